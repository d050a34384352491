// RUN: %tpucc -O0 --emit=mlir %s | FileCheck %s
// RUN: %tpucc -O0 --emit=mlir --emit=mlir-generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: %tpucc -O0 --emit=mlir --emit=mlir-generic %s | %tpucc -O0 --emit=mlir - | FileCheck %s
// stablehlo.composite: a name, operands, attributes and a decomposition.

// CHECK-LABEL: func.func private @add_n.impl(%arg0: tensor<i64>) -> tensor<i64> {
func.func private @add_n.impl(%arg0: tensor<i64>) -> tensor<i64> {
  %0 = stablehlo.constant dense<2> : tensor<i64>
  %1 = stablehlo.add %arg0, %0 : tensor<i64>
  func.return %1 : tensor<i64>
}

// CHECK-LABEL: func.func @main() -> tensor<i64> {
// CHECK-NEXT:    %0 = stablehlo.constant dense<1> : tensor<i64>
// CHECK-NEXT:    %1 = stablehlo.composite "stablehlo.add_n" %0 {composite_attributes = {n = 2 : i64}, decomposition = @add_n.impl} : (tensor<i64>) -> tensor<i64>
// CHECK-NEXT:    %2:2 = stablehlo.composite "my.pair" %0, %1 {decomposition = @pair.impl, version = 1 : i32} : (tensor<i64>, tensor<i64>) -> (tensor<i64>, tensor<i64>)
// CHECK-NEXT:    func.return %1 : tensor<i64>
// GENERIC-LABEL: sym_name = "add_n.impl"
// GENERIC:         %1 = "stablehlo.composite"(%0) {composite_attributes = {n = 2 : i64}, decomposition = @add_n.impl, name = "stablehlo.add_n"} : (tensor<i64>) -> tensor<i64>
// GENERIC-NEXT:    %2:2 = "stablehlo.composite"(%0, %1) {decomposition = @pair.impl, name = "my.pair", version = 1 : i32}
func.func @main() -> tensor<i64> {
  %0 = stablehlo.constant dense<1> : tensor<i64>
  %1 = stablehlo.composite "stablehlo.add_n" %0 {
    composite_attributes = { n = 2 : i64 },
    decomposition = @add_n.impl
  } : (tensor<i64>) -> tensor<i64>
  %2:2 = "stablehlo.composite"(%0, %1) {name = "my.pair", decomposition = @pair.impl, version = 1 : i32} : (tensor<i64>, tensor<i64>) -> (tensor<i64>, tensor<i64>)
  func.return %1 : tensor<i64>
}

func.func private @pair.impl(%a: tensor<i64>, %b: tensor<i64>) -> (tensor<i64>, tensor<i64>) {
  func.return %b, %a : tensor<i64>, tensor<i64>
}
