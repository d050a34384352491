// RUN: %tpucc -O0 --emit=mlir --emit=mlir-generic %s | FileCheck %s
// RUN: %tpucc -O0 --emit=mlir --emit=mlir-generic %s | FileCheck %s --check-prefix=NEG
// --emit=mlir-generic: every op as "name"(operands) ({regions}) {attrs} :
// type, in the syntax MLIR 14 reads: dense arrays as dense<..> : tensor<..>,
// dialect enums quoted, conv dimension numbers in the raw form, empty blocks
// labeled, function signatures as attributes.

// NEG-NOT: array<
// NEG-NOT: #stablehlo<comparison_direction
// NEG-NOT: #stablehlo<precision
// NEG-NOT: ->[b

// CHECK:      "builtin.module"() ({
// CHECK-NEXT:   "func.func"() ({
// CHECK-NEXT:   ^bb0(%arg0: tensor<4xf32>, %arg1: tensor<4xi1>):
func.func @f(%x: tensor<4xf32>, %p: tensor<4xi1>) -> tensor<4xf32> {
  // CHECK-NEXT:   %0 = "stablehlo.compare"(%arg0, %arg0) {compare_type = #stablehlo<"comparison_type TOTALORDER">, comparison_direction = #stablehlo<"comparison_direction EQ">} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %0 = stablehlo.compare EQ, %x, %x, TOTALORDER : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  // CHECK-NEXT:   %1 = "stablehlo.reverse"(%arg0) {dimensions = dense<[0]> : tensor<1xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = stablehlo.reverse %x, dims = [0] : tensor<4xf32>
  // CHECK-NEXT:   %2 = "stablehlo.broadcast_in_dim"(%arg0) {broadcast_dimensions = dense<[1]> : tensor<1xi64>} : (tensor<4xf32>) -> tensor<2x4xf32>
  %2 = stablehlo.broadcast_in_dim %x, dims = [1] : (tensor<4xf32>) -> tensor<2x4xf32>
  // An empty dense array keeps its element type.
  // CHECK-NEXT:   %3 = "stablehlo.transpose"(%arg0) {permutation = dense<[0]> : tensor<1xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  %3 = stablehlo.transpose %x, dims = [0] : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK-NEXT:   %4 = "stablehlo.dot"(%2, %arg0) {precision_config = [#stablehlo<"precision HIGHEST">, #stablehlo<"precision DEFAULT">]} : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2xf32>
  %4 = stablehlo.dot %2, %x, precision = [HIGHEST, DEFAULT] : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2xf32>
  // CHECK-NEXT:   %5 = "stablehlo.constant"() {value = dense<[true, false, true, true]> : tensor<4xi1>} : () -> tensor<4xi1>
  %5 = stablehlo.constant dense<[true, false, true, true]> : tensor<4xi1>
  // CHECK-NEXT:   %6 = "stablehlo.select"(%arg1, %arg0, %1) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %6 = stablehlo.select %p, %x, %1 : tensor<4xi1>, tensor<4xf32>
  // CHECK-NEXT:   %7 = "stablehlo.custom_call"(%6) {call_target_name = "t", has_side_effect = true} : (tensor<4xf32>) -> tensor<4xf32>
  %7 = stablehlo.custom_call @t(%6) {has_side_effect = true} : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK-NEXT:   "func.return"(%7) : (tensor<4xf32>) -> ()
  func.return %7 : tensor<4xf32>
}
// CHECK-NEXT:   }) {function_type = (tensor<4xf32>, tensor<4xi1>) -> tensor<4xf32>, sym_name = "f"} : () -> ()

// Dense arrays of other element types, empty ones, bool arrays.
// CHECK-NEXT:   "func.func"() ({
// CHECK-NEXT:   ^bb0(%arg0: tensor<1x5x1xf32>, %arg1: tensor<2x1x1xf32>):
// CHECK-NEXT:     %0 = "stablehlo.convolution"(%arg0, %arg1) {batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 2, input_spatial_dimensions = [1], kernel_input_feature_dimension = 1, kernel_output_feature_dimension = 2, kernel_spatial_dimensions = [0], output_batch_dimension = 0, output_feature_dimension = 2, output_spatial_dimensions = [1]>, feature_group_count = 1 : i64, window_reversal = dense<[true]> : tensor<1xi1>, window_strides = dense<[2]> : tensor<1xi64>} : (tensor<1x5x1xf32>, tensor<2x1x1xf32>) -> tensor<1x2x1xf32>
// CHECK-NEXT:     %1 = "stablehlo.broadcast_in_dim"(%arg1) {broadcast_dimensions = dense<[0, 1, 2]> : tensor<3xi64>} : (tensor<2x1x1xf32>) -> tensor<2x1x1xf32>
// CHECK-NEXT:     "func.return"() : () -> ()
// CHECK-NEXT:   }) {arrays = [dense<> : tensor<0xi64>, dense<[1.5e+00]> : tensor<1xf32>, dense<[-1]> : tensor<1xi8>], function_type = (tensor<1x5x1xf32>, tensor<2x1x1xf32>) -> (), sym_name = "g"} : () -> ()
func.func @g(%x: tensor<1x5x1xf32>, %k: tensor<2x1x1xf32>) attributes {arrays = [array<i64>, array<f32: 1.5>, array<i8: -1>]} {
  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {stride = [2], reverse = [true]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x5x1xf32>, tensor<2x1x1xf32>) -> tensor<1x2x1xf32>
  %1 = stablehlo.broadcast_in_dim %k, dims = [0, 1, 2] : (tensor<2x1x1xf32>) -> tensor<2x1x1xf32>
  func.return
}

// A declaration is a func.func with an empty region; an empty body block
// keeps its label so that it reads back as a block.
// CHECK-NEXT:   "func.func"() ({
// CHECK-NEXT:   }) {function_type = (tensor<f32>) -> tensor<f32>, sym_name = "decl", sym_visibility = "private"} : () -> ()
func.func private @decl(tensor<f32>) -> tensor<f32>
// CHECK-NEXT:   "func.func"() ({
// CHECK-NEXT:   ^bb0(%arg0: tensor<i1>):
// CHECK-NEXT:     "stablehlo.if"(%arg0) ({
// CHECK-NEXT:       "stablehlo.return"() : () -> ()
// CHECK-NEXT:     }, {
// CHECK-NEXT:       "stablehlo.return"() : () -> ()
// CHECK-NEXT:     }) : (tensor<i1>) -> ()
func.func @regions(%p: tensor<i1>) {
  "stablehlo.if"(%p) ({
    stablehlo.return
  }, {
    stablehlo.return
  }) : (tensor<i1>) -> ()
  func.return
}
// CHECK:      }) : () -> ()
