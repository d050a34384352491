// RUN: %tpucc -O0 --emit=mlir %s > %t.1 && %tpucc -O0 --emit=mlir %t.1 > %t.2 && diff %t.1 %t.2
// RUN: %tpucc -O0 --emit=mlir-generic %s > %t.g1 && %tpucc -O0 --emit=mlir-generic %t.g1 > %t.g2 && diff %t.g1 %t.g2
// RUN: FileCheck %s < %t.1
// RUN: FileCheck %s --check-prefix=GENERIC < %t.g1
// Every StableHLO attribute in its generic spelling: printed in the pretty
// form as upstream prints it, and print -> parse -> print is a fixed point
// in both forms.

// CHECK-LABEL: func.func @dot_algorithm
// CHECK: stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [0], contracting_dims = [2] x [1], algorithm = <lhs_precision_type = bf16, rhs_precision_type = bf16, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false> :
// CHECK: stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [0], contracting_dims = [2] x [1], algorithm = <lhs_precision_type = f8E4M3FN, rhs_precision_type = f8E5M2, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = true> :
// GENERIC: algorithm = #stablehlo.dot_algorithm<lhs_precision_type = bf16, rhs_precision_type = bf16, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false>
// GENERIC-SAME: dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>
func.func @dot_algorithm(%arg0: tensor<2x2x2xf32>, %arg1: tensor<2x2x2xf32>) -> (tensor<2x2x2xf32>, tensor<2x2x2xf32>) {
  %0 = "stablehlo.dot_general"(%arg0, %arg1) <{
    dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1],>,
    precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>],
    algorithm = #stablehlo.dot_algorithm<lhs_precision_type = bf16, rhs_precision_type = bf16, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false>
  }> : (tensor<2x2x2xf32>, tensor<2x2x2xf32>) -> tensor<2x2x2xf32>
  %1 = stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [0], contracting_dims = [2] x [1], algorithm = <lhs_precision_type = f8E4M3FN, rhs_precision_type = f8E5M2, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = true> : (tensor<2x2x2xf32>, tensor<2x2x2xf32>) -> tensor<2x2x2xf32>
  func.return %0, %1 : tensor<2x2x2xf32>, tensor<2x2x2xf32>
}

// result_accuracy: zero tolerances are left out, floats print without a type.
// CHECK-LABEL: func.func @result_accuracy
// CHECK: stablehlo.exponential %arg0 {result_accuracy = #stablehlo.result_accuracy<atol = 1.0e-05, rtol = 1.0e-04, ulps = 2, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>} : tensor<2xf32>
// CHECK: stablehlo.tanh %arg0 {result_accuracy = #stablehlo.result_accuracy<mode = #stablehlo.result_accuracy_mode<HIGHEST>>} : tensor<2xf32>
// CHECK: stablehlo.log %arg0 {result_accuracy = #stablehlo.result_accuracy<atol = 1.0e-05, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>} : tensor<2xf32>
func.func @result_accuracy(%arg0: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %0 = "stablehlo.exponential"(%arg0) {result_accuracy = #stablehlo.result_accuracy<atol = 1.0e-5, rtol = 1.0e-4, ulps = 2, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>} : (tensor<2xf32>) -> tensor<2xf32>
  %1 = "stablehlo.tanh"(%arg0) {result_accuracy = #stablehlo.result_accuracy<atol = 0.0, rtol = 0.0, ulps = 0, mode = #stablehlo.result_accuracy_mode<HIGHEST>>} : (tensor<2xf32>) -> tensor<2xf32>
  %2 = "stablehlo.log"(%arg0) {result_accuracy = #stablehlo.result_accuracy<atol = 1.0e-5, rtol = 0.0, ulps = 0, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>} : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0, %1, %2 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

// comparison_direction / compare_type, fft_type, rng_distribution, rng_algorithm, transpose.
// CHECK-LABEL: func.func @enums
// CHECK: stablehlo.compare  LT, %arg0, %arg0,  TOTALORDER : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
// CHECK: stablehlo.fft %{{.*}}, type = FFT, length = [4] : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
// CHECK: stablehlo.rng %{{.*}}, %{{.*}}, %{{.*}}, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<4xf32>
// CHECK: stablehlo.rng_bit_generator %{{.*}}, algorithm = PHILOX : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)
// CHECK: transpose_a = #stablehlo<transpose ADJOINT>
// GENERIC: compare_type = #stablehlo<"comparison_type TOTALORDER">, comparison_direction = #stablehlo<"comparison_direction LT">
// GENERIC: fft_type = #stablehlo<"fft_type FFT">
// GENERIC: rng_distribution = #stablehlo<"rng_distribution UNIFORM">
// GENERIC: rng_algorithm = #stablehlo<"rng_algorithm PHILOX">
// GENERIC: transpose_a = #stablehlo<"transpose ADJOINT">
func.func @enums(%arg0: tensor<4xf32>, %c: tensor<4xcomplex<f32>>, %s: tensor<2xui64>, %a: tensor<2x2xf32>) -> (tensor<4xi1>, tensor<4xcomplex<f32>>, tensor<4xf32>, tensor<2xui64>, tensor<4xui32>, tensor<2x2xf32>) {
  %0 = "stablehlo.compare"(%arg0, %arg0) {comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type TOTALORDER>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %1 = "stablehlo.fft"(%c) {fft_type = #stablehlo<fft_type FFT>, fft_length = array<i64: 4>} : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
  %lo = stablehlo.constant dense<0.0> : tensor<f32>
  %hi = stablehlo.constant dense<1.0> : tensor<f32>
  %shape = stablehlo.constant dense<4> : tensor<1xi64>
  %2 = "stablehlo.rng"(%lo, %hi, %shape) {rng_distribution = #stablehlo<rng_distribution UNIFORM>} : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<4xf32>
  %3:2 = "stablehlo.rng_bit_generator"(%s) {rng_algorithm = #stablehlo<rng_algorithm PHILOX>} : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)
  %4 = "stablehlo.triangular_solve"(%a, %a) {left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose ADJOINT>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  func.return %0, %1, %2, %3#0, %3#1, %4 : tensor<4xi1>, tensor<4xcomplex<f32>>, tensor<4xf32>, tensor<2xui64>, tensor<4xui32>, tensor<2x2xf32>
}

// #stablehlo.gather, #stablehlo.scatter, #stablehlo.conv, channel_handle, output_operand_alias.
// CHECK-LABEL: func.func @structured
// CHECK: dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>
// CHECK: scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>
// CHECK: dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f]
// CHECK: channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>
// CHECK: output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, operand_tuple_indices = []>]
func.func @structured(%x: tensor<4x3xf32>, %i: tensor<2x1xi32>, %u: tensor<2x3xf32>, %in: tensor<1x8x2xf32>, %k: tensor<3x2x2xf32>) -> (tensor<2x3xf32>, tensor<4x3xf32>, tensor<1x6x2xf32>, tensor<4x3xf32>, tensor<4x3xf32>) {
  %0 = "stablehlo.gather"(%x, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 3>, indices_are_sorted = false} : (tensor<4x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>
  %1 = "stablehlo.scatter"(%x, %i, %u) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, indices_are_sorted = false, unique_indices = false} : (tensor<4x3xf32>, tensor<2x1xi32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %2 = "stablehlo.convolution"(%in, %k) {dimension_numbers = #stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, window_strides = array<i64: 1>} : (tensor<1x8x2xf32>, tensor<3x2x2xf32>) -> tensor<1x6x2xf32>
  %3 = "stablehlo.all_reduce"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0]]> : tensor<1x1xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>} : (tensor<4x3xf32>) -> tensor<4x3xf32>
  %4 = "stablehlo.custom_call"(%x) {call_target_name = "foo", output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, operand_tuple_indices = []>]} : (tensor<4x3xf32>) -> tensor<4x3xf32>
  func.return %0, %1, %2, %3, %4 : tensor<2x3xf32>, tensor<4x3xf32>, tensor<1x6x2xf32>, tensor<4x3xf32>, tensor<4x3xf32>
}
