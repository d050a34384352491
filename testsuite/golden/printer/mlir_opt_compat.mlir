// RUN: %tpucc -O0 --emit=mlir --emit=mlir-generic %s | mlir-opt-14 --allow-unregistered-dialect -mlir-print-op-generic | FileCheck %s
// RUN: %tpucc -O0 --emit=mlir --emit=mlir-generic %s | mlir-opt-14 --allow-unregistered-dialect -mlir-print-op-generic | %tpucc -O0 --emit=mlir - | FileCheck %s --check-prefix=BACK
// The generic form is read by MLIR 14's own parser (mlir-opt-14, unknown
// dialects allowed), and what mlir-opt-14 prints is read back by tpucc.

// CHECK-LABEL: "func.func"() ({
// CHECK:         "stablehlo.compare"(%arg0, %arg0) {comparison_direction = #stablehlo<"comparison_direction LT">}
// CHECK:         "stablehlo.convolution"
// CHECK-SAME:      dimension_numbers = #stablehlo.conv<raw input_batch_dimension = 0
// CHECK:         "stablehlo.reduce"
// CHECK:         {dimensions = dense<1> : tensor<1xi64>}
// CHECK:         "stablehlo.while"
// CHECK:       sym_name = "main"
// BACK-LABEL: func.func @main
// BACK:         stablehlo.compare LT, %arg0, %arg0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
// BACK:         stablehlo.convolution(%arg2, %arg3) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {pad = {{\[}}[1, 1]]}
// BACK:         stablehlo.reduce(%arg0 init: %{{[0-9]+}}) applies stablehlo.add across dimensions = [1]
// BACK:         stablehlo.while
// BACK:         stablehlo.slice %arg0 [0:2, 0:3:2]
func.func @main(%a: tensor<2x3xf32>, %i: tensor<4xi64>, %x: tensor<1x8x2xf32>, %k: tensor<3x2x4xf32>) -> tensor<2xf32> {
  %0 = stablehlo.compare LT, %a, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %1 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {stride = [1], pad = [[1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x2xf32>, tensor<3x2x4xf32>) -> tensor<1x8x4xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %2 = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
  %3 = stablehlo.while(%c = %i) : tensor<4xi64>
   cond {
    %t = stablehlo.constant dense<false> : tensor<i1>
    stablehlo.return %t : tensor<i1>
  } do {
    stablehlo.return %c : tensor<4xi64>
  }
  %4 = stablehlo.slice %a [0:2, 0:3:2] : (tensor<2x3xf32>) -> tensor<2x2xf32>
  %5 = stablehlo.constant dense<[0x7FC00000, -0.0, 1.0e-45]> : tensor<3xf32>
  %6 = stablehlo.constant dense<"0x0102030405060708"> : tensor<2xi32>
  func.return %2 : tensor<2xf32>
}
