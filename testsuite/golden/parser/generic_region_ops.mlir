// RUN: %tpucc -O0 --emit=mlir %s | FileCheck %s
// RUN: %tpucc -O0 --emit=mlir --emit=mlir-generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: %tpucc -O0 --emit=mlir %s | %tpucc -O0 --emit=mlir - | FileCheck %s
// Ops that have no pretty form (reduce_window, select_and_scatter, scatter,
// gather, dynamic_gather, sort): printed in generic form, their bodies in
// pretty form, their dialect attributes structured.

// CHECK-LABEL: func.func @reduce_window
// CHECK-NEXT:    %0 = "stablehlo.reduce_window"(%arg0, %arg1) ({
// CHECK-NEXT:    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
// CHECK-NEXT:      %1 = stablehlo.maximum %arg2, %arg3 : tensor<f32>
// CHECK-NEXT:      stablehlo.return %1 : tensor<f32>
// CHECK-NEXT:    }) {padding = dense<{{\[}}[0, 0], [0, 1]]> : tensor<2x2xi64>, window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>} : (tensor<4x5xf32>, tensor<f32>) -> tensor<2x3xf32>
// GENERIC-LABEL: "func.func"() ({
// GENERIC:         }) {padding = dense<{{\[}}[0, 0], [0, 1]]> : tensor<2x2xi64>, window_dimensions = dense<[2, 2]> : tensor<2xi64>, window_strides = dense<[2, 2]> : tensor<2xi64>}
func.func @reduce_window(%x: tensor<4x5xf32>, %z: tensor<f32>) -> tensor<2x3xf32> {
  %0 = "stablehlo.reduce_window"(%x, %z) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) {window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>,
      padding = dense<[[0, 0], [0, 1]]> : tensor<2x2xi64>} : (tensor<4x5xf32>, tensor<f32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @select_and_scatter
// CHECK-NEXT:    %0 = "stablehlo.select_and_scatter"(%arg0, %arg1, %arg2) ({
// CHECK-NEXT:    ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
// CHECK-NEXT:      %1 = stablehlo.compare GE, %arg3, %arg4 : (tensor<f32>, tensor<f32>) -> tensor<i1>
// CHECK-NEXT:      stablehlo.return %1 : tensor<i1>
// CHECK-NEXT:    }, {
// CHECK-NEXT:    ^bb0(%arg5: tensor<f32>, %arg6: tensor<f32>):
// CHECK-NEXT:      %2 = stablehlo.add %arg5, %arg6 : tensor<f32>
// CHECK-NEXT:      stablehlo.return %2 : tensor<f32>
// CHECK-NEXT:    }) {window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>} : (tensor<4x4xf32>, tensor<2x2xf32>, tensor<f32>) -> tensor<4x4xf32>
// CHECK-NEXT:    %3 = stablehlo.abs %0 : tensor<4x4xf32>
func.func @select_and_scatter(%x: tensor<4x4xf32>, %s: tensor<2x2xf32>, %z: tensor<f32>) -> tensor<4x4xf32> {
  %0 = "stablehlo.select_and_scatter"(%x, %s, %z) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %c = stablehlo.compare GE, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }, {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %t = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %t : tensor<f32>
  }) {window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>} : (tensor<4x4xf32>, tensor<2x2xf32>, tensor<f32>) -> tensor<4x4xf32>
  %1 = stablehlo.abs %0 : tensor<4x4xf32>
  func.return %1 : tensor<4x4xf32>
}

// CHECK-LABEL: func.func @gather_scatter
// CHECK-NEXT:    %0 = "stablehlo.gather"(%arg0, %arg1) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 6>} : (tensor<4x6xf32>, tensor<2x1xi64>) -> tensor<2x6xf32>
// CHECK-NEXT:    %1 = "stablehlo.scatter"(%arg0, %arg1, %0) ({
// CHECK-NEXT:    ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
// CHECK-NEXT:      %2 = stablehlo.add %arg3, %arg4 : tensor<f32>
// CHECK-NEXT:      stablehlo.return %2 : tensor<f32>
// CHECK-NEXT:    }) {indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<4x6xf32>, tensor<2x1xi64>, tensor<2x6xf32>) -> tensor<4x6xf32>
// CHECK-NEXT:    %3 = "stablehlo.dynamic_gather"(%arg0, %arg1, %arg2) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>} : (tensor<4x6xf32>, tensor<2x1xi64>, tensor<2xi64>) -> tensor<2x6xf32>
// GENERIC:         "stablehlo.gather"(%arg0, %arg1) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = dense<[1, 6]> : tensor<2xi64>}
func.func @gather_scatter(%x: tensor<4x6xf32>, %i: tensor<2x1xi64>, %sizes: tensor<2xi64>) -> tensor<4x6xf32> {
  %0 = "stablehlo.gather"(%x, %i) {
    dimension_numbers = #stablehlo.gather<
      offset_dims = [1],
      collapsed_slice_dims = [0],
      start_index_map = [0],
      index_vector_dim = 1>,
    slice_sizes = array<i64: 1, 6>,
    indices_are_sorted = false
  } : (tensor<4x6xf32>, tensor<2x1xi64>) -> tensor<2x6xf32>
  %1 = "stablehlo.scatter"(%x, %i, %0) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %t = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %t : tensor<f32>
  }) {
    scatter_dimension_numbers = #stablehlo.scatter<
      update_window_dims = [1],
      inserted_window_dims = [0],
      scatter_dims_to_operand_dims = [0],
      index_vector_dim = 1>,
    indices_are_sorted = true,
    unique_indices = false
  } : (tensor<4x6xf32>, tensor<2x1xi64>, tensor<2x6xf32>) -> tensor<4x6xf32>
  %2 = "stablehlo.dynamic_gather"(%x, %i, %sizes) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>} : (tensor<4x6xf32>, tensor<2x1xi64>, tensor<2xi64>) -> tensor<2x6xf32>
  func.return %1 : tensor<4x6xf32>
}

// Properties <{...}> are read like attributes.
// CHECK-LABEL: func.func @sort
// CHECK-NEXT:    %0:2 = "stablehlo.sort"(%arg0, %arg1) ({
// CHECK-NEXT:    ^bb0(%arg2: tensor<i64>, %arg3: tensor<i64>, %arg4: tensor<i64>, %arg5: tensor<i64>):
// CHECK-NEXT:      %1 = stablehlo.compare GT, %arg2, %arg3 : (tensor<i64>, tensor<i64>) -> tensor<i1>
// CHECK-NEXT:      stablehlo.return %1 : tensor<i1>
// CHECK-NEXT:    }) {dimension = 0 : i64, is_stable = true} : (tensor<2x3xi64>, tensor<2x3xi64>) -> (tensor<2x3xi64>, tensor<2x3xi64>)
// CHECK-NEXT:    func.return %0#1 : tensor<2x3xi64>
func.func @sort(%a: tensor<2x3xi64>, %b: tensor<2x3xi64>) -> tensor<2x3xi64> {
  %r0, %r1 = "stablehlo.sort"(%a, %b) <{dimension = 0 : i64, is_stable = true}> ({
    ^bb0(%x0: tensor<i64>, %x1: tensor<i64>, %y0: tensor<i64>, %y1: tensor<i64>):
      %p = stablehlo.compare GT, %x0, %x1 : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
  }) : (tensor<2x3xi64>, tensor<2x3xi64>) -> (tensor<2x3xi64>, tensor<2x3xi64>)
  func.return %r1 : tensor<2x3xi64>
}
