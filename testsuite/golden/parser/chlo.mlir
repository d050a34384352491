// RUN: %tpucc -O0 --emit=mlir %s | FileCheck %s
// RUN: %tpucc -O0 --emit=mlir --emit=mlir-generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: %tpucc -O0 --emit=mlir --emit=mlir-generic %s | %tpucc -O0 --emit=mlir - | FileCheck %s
// CHLO ops: "operands : types -> result types" syntax, top_k, scan,
// ragged_dot (generic only).

// CHECK-LABEL: func.func @chlo_unary(%arg0: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    %0 = chlo.acos %arg0 : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT:    %1 = chlo.acosh %0 : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT:    %2 = chlo.asin %1 : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT:    %3 = chlo.asinh %2 : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT:    %4 = chlo.atan %3 : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT:    %5 = chlo.atanh %4 : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT:    %6 = chlo.bessel_i1e %5 : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT:    %7 = chlo.cosh %6 : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT:    %8 = chlo.digamma %7 : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT:    %9 = chlo.erf %8 : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT:    %10 = chlo.erf_inv %9 : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT:    %11 = chlo.erfc %10 : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT:    %12 = chlo.lgamma %11 : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT:    %13 = chlo.sinh %12 : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT:    %14 = chlo.tan %13 : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT:    %15 = chlo.is_inf %14 : tensor<4xf32> -> tensor<4xi1>
// CHECK-NEXT:    %16 = chlo.is_neg_inf %14 : tensor<4xf32> -> tensor<4xi1>
// CHECK-NEXT:    %17 = chlo.is_pos_inf %14 : tensor<4xf32> -> tensor<4xi1>
// CHECK-NEXT:    func.return %14 : tensor<4xf32>
// GENERIC-LABEL: "func.func"() ({
// GENERIC:         %0 = "chlo.acos"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC:         %15 = "chlo.is_inf"(%14) : (tensor<4xf32>) -> tensor<4xi1>
func.func @chlo_unary(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = chlo.acos %x : tensor<4xf32> -> tensor<4xf32>
  %1 = chlo.acosh %0 : tensor<4xf32> -> tensor<4xf32>
  %2 = chlo.asin %1 : tensor<4xf32> -> tensor<4xf32>
  %3 = chlo.asinh %2 : tensor<4xf32> -> tensor<4xf32>
  %4 = chlo.atan %3 : tensor<4xf32> -> tensor<4xf32>
  %5 = chlo.atanh %4 : tensor<4xf32> -> tensor<4xf32>
  %6 = chlo.bessel_i1e %5 : tensor<4xf32> -> tensor<4xf32>
  %7 = chlo.cosh %6 : tensor<4xf32> -> tensor<4xf32>
  %8 = chlo.digamma %7 : tensor<4xf32> -> tensor<4xf32>
  %9 = chlo.erf %8 : tensor<4xf32> -> tensor<4xf32>
  %10 = chlo.erf_inv %9 : tensor<4xf32> -> tensor<4xf32>
  %11 = chlo.erfc %10 : tensor<4xf32> -> tensor<4xf32>
  %12 = chlo.lgamma %11 : tensor<4xf32> -> tensor<4xf32>
  %13 = chlo.sinh %12 : tensor<4xf32> -> tensor<4xf32>
  %14 = chlo.tan %13 : tensor<4xf32> -> tensor<4xf32>
  %15 = chlo.is_inf %14 : tensor<4xf32> -> tensor<4xi1>
  %16 = chlo.is_neg_inf %14 : tensor<4xf32> -> tensor<4xi1>
  %17 = "chlo.is_pos_inf"(%14) : (tensor<4xf32>) -> tensor<4xi1>
  func.return %14 : tensor<4xf32>
}

// CHECK-LABEL: func.func @chlo_binary_and_complex
// CHECK-NEXT:    %0 = chlo.next_after %arg0, %arg1 : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT:    %1 = chlo.polygamma %arg0, %arg1 : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT:    %2 = chlo.zeta %arg0, %arg1 : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT:    %3 = chlo.conj %arg2 : tensor<4xcomplex<f32>> -> tensor<4xcomplex<f32>>
// CHECK-NEXT:    %4 = chlo.square %arg2 : tensor<4xcomplex<f32>> -> tensor<4xcomplex<f32>>
// CHECK-NEXT:    %5 = chlo.square %arg0 : tensor<4xf32> -> tensor<4xf32>
// GENERIC:         %4 = "chlo.square"(%arg2) : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
func.func @chlo_binary_and_complex(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<4xcomplex<f32>>) -> tensor<4xf32> {
  %0 = chlo.next_after %a, %b : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %1 = chlo.polygamma %a, %b : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %2 = chlo.zeta %a, %b : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %3 = chlo.conj %c : tensor<4xcomplex<f32>> -> tensor<4xcomplex<f32>>
  %4 = chlo.square %c : tensor<4xcomplex<f32>> -> tensor<4xcomplex<f32>>
  %5 = chlo.square %a : tensor<4xf32> -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// CHECK-LABEL: func.func @top_k_and_scan
// CHECK-NEXT:    %0:2 = chlo.top_k(%arg0, k = 2) : tensor<3x5xf32> -> (tensor<3x2xf32>, tensor<3x2xi32>)
// CHECK-NEXT:    %1 = stablehlo.constant dense<0> : tensor<i32>
// CHECK-NEXT:    %2:2 = chlo.scan(%arg1) inits(%1) dimension=0 {
// CHECK-NEXT:    ^bb0(%arg2: tensor<i32>, %arg3: tensor<i32>):
// CHECK-NEXT:      %3 = stablehlo.add %arg2, %arg3 : tensor<i32>
// CHECK-NEXT:      stablehlo.return %3, %3 : tensor<i32>, tensor<i32>
// CHECK-NEXT:    } : (tensor<4xi32>, tensor<i32>) -> (tensor<4xi32>, tensor<i32>)
// GENERIC:         %0:2 = "chlo.top_k"(%arg0) {k = 2 : i64} : (tensor<3x5xf32>) -> (tensor<3x2xf32>, tensor<3x2xi32>)
// GENERIC:         %2:2 = "chlo.scan"(%arg1, %1) ({
// GENERIC:         }) {dimension = 0 : i64, operandSegmentSizes = dense<[1, 1]> : tensor<2xi32>} : (tensor<4xi32>, tensor<i32>) -> (tensor<4xi32>, tensor<i32>)
func.func @top_k_and_scan(%x: tensor<3x5xf32>, %v: tensor<4xi32>) -> tensor<4xi32> {
  %0:2 = chlo.top_k(%x, k = 2) : tensor<3x5xf32> -> (tensor<3x2xf32>, tensor<3x2xi32>)
  %init = stablehlo.constant dense<0> : tensor<i32>
  %1:2 = chlo.scan(%v) inits(%init) dimension=0 {
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    %s = stablehlo.add %a, %b : tensor<i32>
    stablehlo.return %s, %s : tensor<i32>, tensor<i32>
  } : (tensor<4xi32>, tensor<i32>) -> (tensor<4xi32>, tensor<i32>)
  func.return %1#0 : tensor<4xi32>
}

// CHECK-LABEL: func.func @ragged_dot
// CHECK-NEXT:    %0 = "chlo.ragged_dot"(%arg0, %arg1, %arg2) {precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>], ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>} : (tensor<11x5xf32>, tensor<3x5x7xf32>, tensor<3xi64>) -> tensor<11x7xf32>
// GENERIC:         {precision_config = [#chlo<"precision DEFAULT">, #chlo<"precision DEFAULT">], ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = []
func.func @ragged_dot(%lhs: tensor<11x5xf32>, %rhs: tensor<3x5x7xf32>, %groups: tensor<3xi64>) -> tensor<11x7xf32> {
  %0 = "chlo.ragged_dot"(%lhs, %rhs, %groups) {
    ragged_dot_dimension_numbers = #chlo.ragged_dot<
      lhs_batching_dimensions = [],
      rhs_batching_dimensions = [],
      lhs_contracting_dimensions = [1],
      rhs_contracting_dimensions = [1],
      lhs_ragged_dimensions = [0],
      rhs_group_dimensions = [0]
    >,
    precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>]
  } : (tensor<11x5xf32>, tensor<3x5x7xf32>, tensor<3xi64>) -> tensor<11x7xf32>
  func.return %0 : tensor<11x7xf32>
}

// Broadcasting element-wise ops: "lhs, rhs attrs : (types) -> type".
// CHECK-LABEL: func.func @chlo_broadcast
// CHECK-NEXT:    %0 = chlo.broadcast_add %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %1 = chlo.broadcast_compare %0, %arg2 {broadcast_dimensions = {{.*}}, comparison_direction = #chlo<comparison_direction LT>} : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xi1>
// CHECK-NEXT:    %2 = chlo.broadcast_select %1, %0, %arg1 : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// GENERIC:         %0 = "chlo.broadcast_add"(%arg0, %arg1) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
func.func @chlo_broadcast(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %c: tensor<2xf32>) -> tensor<2x3xf32> {
  %0 = chlo.broadcast_add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = chlo.broadcast_compare %0, %c {broadcast_dimensions = array<i64: 0>, comparison_direction = #chlo<comparison_direction LT>} : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xi1>
  %2 = chlo.broadcast_select %1, %0, %b : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %2 : tensor<2x3xf32>
}
