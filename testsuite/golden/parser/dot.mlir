// RUN: %tpucc -O0 --emit=mlir %s | FileCheck %s
// RUN: %tpucc -O0 --emit=mlir --emit=mlir-generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: %tpucc -O0 --emit=mlir --emit=mlir-generic %s | %tpucc -O0 --emit=mlir - | FileCheck %s
// dot and dot_general: dimension numbers, precision config, algorithm, einsum.

// CHECK-LABEL: func.func @dots
// CHECK-NEXT:    %0 = stablehlo.dot %arg0, %arg1 : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %1 = stablehlo.dot %arg0, %arg1, precision = [HIGH, HIGHEST] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %2 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %3 = stablehlo.dot_general %arg2, %arg3, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<5x2x3xbf16>, tensor<5x3x4xbf16>) -> tensor<5x2x4xf32>
// CHECK-NEXT:    %4 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], algorithm = <lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 3, allow_imprecise_accumulation = false> : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %5 = stablehlo.dot %arg4, %arg4 : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
// GENERIC-LABEL: "func.func"() ({
// GENERIC:         %1 = "stablehlo.dot"(%arg0, %arg1) {precision_config = [#stablehlo<"precision HIGH">, #stablehlo<"precision HIGHEST">]}
// GENERIC-NEXT:    %2 = "stablehlo.dot_general"(%arg0, %arg1) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}
// GENERIC-NEXT:    %3 = "stablehlo.dot_general"(%arg2, %arg3) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>}
// GENERIC-NEXT:    %4 = "stablehlo.dot_general"(%arg0, %arg1) {algorithm = #stablehlo.dot_algorithm<lhs_precision_type = tf32,
func.func @dots(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<5x2x3xbf16>, %d: tensor<5x3x4xbf16>, %v: tensor<3xf32>) -> tensor<2x4xf32> {
  %0 = stablehlo.dot %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %1 = stablehlo.dot %a, %b, precision = [HIGH, HIGHEST] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %2 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %3 = "stablehlo.dot_general"(%c, %d) {
    dot_dimension_numbers = #stablehlo.dot<
      lhs_batching_dimensions = [0],
      rhs_batching_dimensions = [0],
      lhs_contracting_dimensions = [2],
      rhs_contracting_dimensions = [1]
    >,
    precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]
  } : (tensor<5x2x3xbf16>, tensor<5x3x4xbf16>) -> tensor<5x2x4xf32>
  %4 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT], algorithm = #stablehlo.dot_algorithm<lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 3, allow_imprecise_accumulation = false> : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %5 = stablehlo.dot %v, %v : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
  func.return %0 : tensor<2x4xf32>
}

// CHECK-LABEL: func.func @einsums
// CHECK-NEXT:    %0 = stablehlo.einsum %arg0, %arg1, config = "ab,bc->ac" : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %1 = stablehlo.unary_einsum %arg0, config = "ab->ba" : (tensor<2x3xf32>) -> tensor<3x2xf32>
// GENERIC:         %0 = "stablehlo.einsum"(%arg0, %arg1) {einsum_config = "ab,bc->ac"}
func.func @einsums(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %0 = stablehlo.einsum %a, %b, config = "ab,bc->ac" : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %1 = stablehlo.unary_einsum %a, config = "ab->ba" : (tensor<2x3xf32>) -> tensor<3x2xf32>
  func.return %0 : tensor<2x4xf32>
}
