// RUN: %tpucc -O0 --emit=mlir %s | FileCheck %s
// RUN: %tpucc -O0 --emit=mlir --emit=mlir-generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: %tpucc -O0 --emit=mlir %s | %tpucc -O0 --emit=mlir - | FileCheck %s
// compare (enum keyword, optional compare type), select, clamp, map,
// reduce_precision.

// CHECK-LABEL: func.func @compare
// CHECK-NEXT:    %0 = stablehlo.compare EQ, %arg0, %arg1 : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
// CHECK-NEXT:    %1 = stablehlo.compare NE, %arg0, %arg1, FLOAT : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
// CHECK-NEXT:    %2 = stablehlo.compare GE, %arg0, %arg1, TOTALORDER : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
// CHECK-NEXT:    %3 = stablehlo.compare GT, %arg2, %arg2, SIGNED : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
// CHECK-NEXT:    %4 = stablehlo.compare LE, %arg2, %arg2 : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
// CHECK-NEXT:    %5 = stablehlo.compare LT, %arg2, %arg2 : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
// GENERIC-LABEL: "func.func"() ({
// GENERIC:         %0 = "stablehlo.compare"(%arg0, %arg1) {comparison_direction = #stablehlo<"comparison_direction EQ">} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
// GENERIC-NEXT:    %1 = "stablehlo.compare"(%arg0, %arg1) {compare_type = #stablehlo<"comparison_type FLOAT">, comparison_direction = #stablehlo<"comparison_direction NE">}
// GENERIC-NOT:     #stablehlo<comparison
func.func @compare(%a: tensor<3xf32>, %b: tensor<3xf32>, %i: tensor<3xi32>) -> tensor<3xi1> {
  %0 = stablehlo.compare EQ, %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  %1 = stablehlo.compare  NE, %a, %b,  FLOAT : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  %2 = "stablehlo.compare"(%a, %b) {comparison_direction = #stablehlo<comparison_direction GE>, compare_type = #stablehlo<comparison_type TOTALORDER>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  %3 = "stablehlo.compare"(%i, %i) {comparison_direction = #stablehlo<"comparison_direction GT">, compare_type = #stablehlo<"comparison_type SIGNED">} : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
  %4 = stablehlo.compare LE, %i, %i : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
  %5 = stablehlo.compare LT, %i, %i : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
  func.return %0 : tensor<3xi1>
}

// CHECK-LABEL: func.func @select_clamp
// CHECK-NEXT:    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<3xi1>, tensor<3xf32>
// CHECK-NEXT:    %1 = stablehlo.select %arg3, %arg1, %0 : tensor<i1>, tensor<3xf32>
// CHECK-NEXT:    %2 = stablehlo.clamp %arg1, %1, %arg2 : tensor<3xf32>
// CHECK-NEXT:    %3 = stablehlo.clamp %arg4, %2, %arg4 : (tensor<f32>, tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
// CHECK-NEXT:    func.return %3 : tensor<3xf32>
// GENERIC:         %0 = "stablehlo.select"(%arg0, %arg1, %arg2) : (tensor<3xi1>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
// GENERIC:         %3 = "stablehlo.clamp"(%arg4, %2, %arg4) : (tensor<f32>, tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
func.func @select_clamp(%p: tensor<3xi1>, %a: tensor<3xf32>, %b: tensor<3xf32>, %q: tensor<i1>, %s: tensor<f32>) -> tensor<3xf32> {
  %0 = stablehlo.select %p, %a, %b : tensor<3xi1>, tensor<3xf32>
  %1 = stablehlo.select %q, %a, %0 : (tensor<i1>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %2 = stablehlo.clamp %a, %1, %b : tensor<3xf32>
  %3 = stablehlo.clamp %s, %2, %s : (tensor<f32>, tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  func.return %3 : tensor<3xf32>
}

// map has no pretty form: it prints in generic form, its body pretty.
// CHECK-LABEL: func.func @map
// CHECK-NEXT:    %0 = "stablehlo.map"(%arg0, %arg1) ({
// CHECK-NEXT:    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
// CHECK-NEXT:      %1 = stablehlo.multiply %arg2, %arg3 : tensor<f32>
// CHECK-NEXT:      stablehlo.return %1 : tensor<f32>
// CHECK-NEXT:    }) {dimensions = array<i64: 0, 1>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
// GENERIC:         }) {dimensions = dense<[0, 1]> : tensor<2xi64>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
func.func @map(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %0 = "stablehlo.map"(%a, %b) ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %1 = stablehlo.multiply %x, %y : tensor<f32>
      stablehlo.return %1 : tensor<f32>
  }) {
    dimensions = array<i64: 0, 1>
  } : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  func.return %0 : tensor<2x2xf32>
}

// CHECK-LABEL: func.func @reduce_precision
// CHECK-NEXT:    %0 = stablehlo.reduce_precision %arg0, format = e5m10 : tensor<4xf32>
// CHECK-NEXT:    %1 = stablehlo.reduce_precision %0, format = e8m7 : tensor<4xf32>
// GENERIC:         %0 = "stablehlo.reduce_precision"(%arg0) {exponent_bits = 5 : i32, mantissa_bits = 10 : i32} : (tensor<4xf32>) -> tensor<4xf32>
func.func @reduce_precision(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.reduce_precision %x, format = e5m10 : tensor<4xf32>
  %1 = "stablehlo.reduce_precision"(%0) {exponent_bits = 8 : i32, mantissa_bits = 7 : i32} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %1 : tensor<4xf32>
}
