// RUN: %tpucc -O0 --emit=mlir %s | FileCheck %s
// RUN: %tpucc -O0 --emit=mlir --emit=mlir-generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: %tpucc -O0 --emit=mlir --emit=mlir-generic %s | %tpucc -O0 --emit=mlir - | FileCheck %s
// Element-wise binary ops of ir/ops.def.

// CHECK-LABEL: func.func @float_binary(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    %0 = stablehlo.add %arg0, %arg1 : tensor<4xf32>
// CHECK-NEXT:    %1 = stablehlo.atan2 %0, %arg1 : tensor<4xf32>
// CHECK-NEXT:    %2 = stablehlo.divide %1, %arg1 : tensor<4xf32>
// CHECK-NEXT:    %3 = stablehlo.maximum %2, %arg1 : tensor<4xf32>
// CHECK-NEXT:    %4 = stablehlo.minimum %3, %arg1 : tensor<4xf32>
// CHECK-NEXT:    %5 = stablehlo.multiply %4, %arg1 : tensor<4xf32>
// CHECK-NEXT:    %6 = stablehlo.power %5, %arg1 : tensor<4xf32>
// CHECK-NEXT:    %7 = stablehlo.remainder %6, %arg1 : tensor<4xf32>
// CHECK-NEXT:    %8 = stablehlo.subtract %7, %arg1 : tensor<4xf32>
// CHECK-NEXT:    func.return %8 : tensor<4xf32>
// GENERIC-LABEL: "func.func"() ({
// GENERIC-NEXT:  ^bb0(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>):
// GENERIC-NEXT:    %0 = "stablehlo.add"(%arg0, %arg1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// GENERIC-NEXT:    %1 = "stablehlo.atan2"(%0, %arg1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// GENERIC:         %8 = "stablehlo.subtract"(%7, %arg1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
func.func @float_binary(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %b : tensor<4xf32>
  %1 = stablehlo.atan2 %0, %b : tensor<4xf32>
  %2 = stablehlo.divide %1, %b : tensor<4xf32>
  %3 = stablehlo.maximum %2, %b : tensor<4xf32>
  %4 = stablehlo.minimum %3, %b : tensor<4xf32>
  %5 = stablehlo.multiply %4, %b : tensor<4xf32>
  %6 = stablehlo.power %5, %b : tensor<4xf32>
  %7 = stablehlo.remainder %6, %b : tensor<4xf32>
  %8 = stablehlo.subtract %7, %b : tensor<4xf32>
  func.return %8 : tensor<4xf32>
}

// CHECK-LABEL: func.func @int_binary(%arg0: tensor<2x2xui32>, %arg1: tensor<2x2xui32>) -> tensor<2x2xui32> {
// CHECK-NEXT:    %0 = stablehlo.and %arg0, %arg1 : tensor<2x2xui32>
// CHECK-NEXT:    %1 = stablehlo.or %0, %arg1 : tensor<2x2xui32>
// CHECK-NEXT:    %2 = stablehlo.xor %1, %arg1 : tensor<2x2xui32>
// CHECK-NEXT:    %3 = stablehlo.shift_left %2, %arg1 : tensor<2x2xui32>
// CHECK-NEXT:    %4 = stablehlo.shift_right_arithmetic %3, %arg1 : tensor<2x2xui32>
// CHECK-NEXT:    %5 = stablehlo.shift_right_logical %4, %arg1 : tensor<2x2xui32>
// CHECK-NEXT:    %6 = stablehlo.remainder %5, %arg1 : tensor<2x2xui32>
// CHECK-NEXT:    %7 = stablehlo.divide %6, %arg1 : tensor<2x2xui32>
// CHECK-NEXT:    func.return %7 : tensor<2x2xui32>
func.func @int_binary(%a: tensor<2x2xui32>, %b: tensor<2x2xui32>) -> tensor<2x2xui32> {
  %0 = stablehlo.and %a, %b : tensor<2x2xui32>
  %1 = stablehlo.or %0, %b : tensor<2x2xui32>
  %2 = stablehlo.xor %1, %b : tensor<2x2xui32>
  %3 = stablehlo.shift_left %2, %b : tensor<2x2xui32>
  %4 = stablehlo.shift_right_arithmetic %3, %b : tensor<2x2xui32>
  %5 = stablehlo.shift_right_logical %4, %b : tensor<2x2xui32>
  %6 = stablehlo.remainder %5, %b : tensor<2x2xui32>
  %7 = stablehlo.divide %6, %b : tensor<2x2xui32>
  func.return %7 : tensor<2x2xui32>
}

// Logical ops on i1, and the generic form read back as pretty.
// CHECK-LABEL: func.func @bool_binary
// CHECK-NEXT:    %0 = stablehlo.and %arg0, %arg1 : tensor<3xi1>
// CHECK-NEXT:    %1 = stablehlo.or %0, %arg1 : tensor<3xi1>
// CHECK-NEXT:    %2 = stablehlo.xor %1, %arg1 : tensor<3xi1>
// CHECK-NEXT:    %3 = stablehlo.add %2, %arg1 : tensor<3xi1>
// CHECK-NEXT:    %4 = stablehlo.multiply %3, %arg1 : tensor<3xi1>
func.func @bool_binary(%a: tensor<3xi1>, %b: tensor<3xi1>) -> tensor<3xi1> {
  %0 = "stablehlo.and"(%a, %b) : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  %1 = "stablehlo.or"(%0, %b) : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  %2 = "stablehlo.xor"(%1, %b) : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  %3 = stablehlo.add %2, %b : tensor<3xi1>
  %4 = stablehlo.multiply %3, %b : tensor<3xi1>
  func.return %4 : tensor<3xi1>
}

// complex(re, im) writes only the result type when the parts match it.
// CHECK-LABEL: func.func @complex_ops
// CHECK-NEXT:    %0 = stablehlo.complex %arg0, %arg1 : tensor<2xcomplex<f64>>
// CHECK-NEXT:    %1 = stablehlo.multiply %0, %0 : tensor<2xcomplex<f64>>
// CHECK-NEXT:    %2 = stablehlo.divide %1, %0 : tensor<2xcomplex<f64>>
// GENERIC-LABEL: sym_name = "bool_binary"
// GENERIC:         %0 = "stablehlo.complex"(%arg0, %arg1) : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xcomplex<f64>>
func.func @complex_ops(%re: tensor<2xf64>, %im: tensor<2xf64>) -> tensor<2xcomplex<f64>> {
  %0 = stablehlo.complex %re, %im : tensor<2xcomplex<f64>>
  %1 = stablehlo.multiply %0, %0 : tensor<2xcomplex<f64>>
  %2 = stablehlo.divide %1, %0 : tensor<2xcomplex<f64>>
  func.return %2 : tensor<2xcomplex<f64>>
}

// Dynamic and unranked shapes, quantized-free: the type is printed as given.
// CHECK-LABEL: func.func @dynamic(%arg0: tensor<?x4xf16>, %arg1: tensor<?x4xf16>) -> tensor<?x4xf16> {
// CHECK-NEXT:    %0 = stablehlo.add %arg0, %arg1 : tensor<?x4xf16>
func.func @dynamic(%a: tensor<?x4xf16>, %b: tensor<?x4xf16>) -> tensor<?x4xf16> {
  %0 = stablehlo.add %a, %b : tensor<?x4xf16>
  func.return %0 : tensor<?x4xf16>
}
