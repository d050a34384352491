// RUN: %tpucc -O0 --emit=mlir %s | FileCheck %s
// RUN: %tpucc -O0 --emit=mlir --emit=mlir-generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: %tpucc -O0 --emit=mlir --emit=mlir-generic %s | %tpucc -O0 --emit=mlir - | FileCheck %s
// convolution: dim_numbers layouts, every window attribute, the raw form of
// #stablehlo.conv, and dynamic_conv (generic only).

// CHECK-LABEL: func.func @conv2d
// CHECK-NEXT:    %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {pad = {{\[}}[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32>
// CHECK-NEXT:    %1 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x3x3x4xf32>
// CHECK-NEXT:    %2 = stablehlo.convolution(%arg2, %arg3) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x3x9x10xf32>, tensor<5x3x3x3xf32>) -> tensor<2x5x7x8xf32>
// GENERIC-LABEL: "func.func"() ({
// GENERIC:         %0 = "stablehlo.convolution"(%arg0, %arg1) {batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 3, input_spatial_dimensions = [1, 2], kernel_input_feature_dimension = 2, kernel_output_feature_dimension = 3, kernel_spatial_dimensions = [0, 1], output_batch_dimension = 0, output_feature_dimension = 3, output_spatial_dimensions = [1, 2]>, feature_group_count = 1 : i64, padding = dense<{{\[}}[1, 1], [1, 1]]> : tensor<2x2xi64>}
// GENERIC:         "stablehlo.convolution"(%arg2, %arg3) {batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 1, input_spatial_dimensions = [2, 3], kernel_input_feature_dimension = 1, kernel_output_feature_dimension = 0, kernel_spatial_dimensions = [2, 3]
func.func @conv2d(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>, %y: tensor<2x3x9x10xf32>, %k: tensor<5x3x3x3xf32>) -> tensor<1x8x8x4xf32> {
  %0 = stablehlo.convolution(%x, %w)
         dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f],
         window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]}
         {batch_group_count = 1 : i64, feature_group_count = 1 : i64}
       : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32>
  %1 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x3x3x4xf32>
  %2 = "stablehlo.convolution"(%y, %k) {
    batch_group_count = 1 : i64,
    dimension_numbers = #stablehlo.conv<raw
      input_batch_dimension = 0, input_feature_dimension = 1, input_spatial_dimensions = [2, 3],
      kernel_input_feature_dimension = 1, kernel_output_feature_dimension = 0, kernel_spatial_dimensions = [2, 3],
      output_batch_dimension = 0, output_feature_dimension = 1, output_spatial_dimensions = [2, 3]>,
    feature_group_count = 1 : i64
  } : (tensor<2x3x9x10xf32>, tensor<5x3x3x3xf32>) -> tensor<2x5x7x8xf32>
  func.return %0 : tensor<1x8x8x4xf32>
}

// One spatial dimension, dilation, and a conv dims attribute written with
// the #stablehlo.conv<...> wrapper in generic form.
// CHECK-LABEL: func.func @conv1d
// CHECK-NEXT:    %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {pad = {{\[}}[2, 2]], lhs_dilate = [2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x16x2xf32>, tensor<3x2x2xf32>) -> tensor<1x33x2xf32>
// CHECK-NEXT:    %1 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {rhs_dilate = [2], reverse = [true]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x16x2xf32>, tensor<3x2x2xf32>) -> tensor<1x12x2xf32>
func.func @conv1d(%x: tensor<1x16x2xf32>, %w: tensor<3x2x2xf32>) -> tensor<1x33x2xf32> {
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {pad = [[2, 2]], lhs_dilate = [2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x16x2xf32>, tensor<3x2x2xf32>) -> tensor<1x33x2xf32>
  %1 = "stablehlo.convolution"(%x, %w) {batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>, feature_group_count = 1 : i64, rhs_dilation = array<i64: 2>, window_reversal = array<i1: true>} : (tensor<1x16x2xf32>, tensor<3x2x2xf32>) -> tensor<1x12x2xf32>
  func.return %0 : tensor<1x33x2xf32>
}
