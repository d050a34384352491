// RUN: %verify-diagnostics %s
// Negative tests for gather and scatter (ir/verify_shape.c).

func.func @gather_rank(%operand: tensor<3x4x2xi64>, %indices: tensor<2x3x2xi64>) -> tensor<2x3x2x2xi64> {
  // expected-error @+1 {{offset_dims size (1) plus collapsed_slice_dims size (1) plus operand_batching_dims size (0) is not equal to operand rank (3)}}
  %0 = "stablehlo.gather"(%operand, %indices) {
    dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0], start_index_map = [1, 0], index_vector_dim = 2>,
    slice_sizes = array<i64: 1, 2, 2>,
    indices_are_sorted = false
  } : (tensor<3x4x2xi64>, tensor<2x3x2xi64>) -> tensor<2x3x2x2xi64>
  func.return %0 : tensor<2x3x2x2xi64>
}

// -----

func.func @gather_ivd(%operand: tensor<3x4x2xi64>, %indices: tensor<2x3x2xi64>) -> tensor<2x3x2x2xi64> {
  // expected-error @+1 {{index_vector_dim 4 is out of bounds for start indices with rank 3}}
  %0 = "stablehlo.gather"(%operand, %indices) {
    dimension_numbers = #stablehlo.gather<offset_dims = [2, 3], collapsed_slice_dims = [0], start_index_map = [1, 0], index_vector_dim = 4>,
    slice_sizes = array<i64: 1, 2, 2>,
    indices_are_sorted = false
  } : (tensor<3x4x2xi64>, tensor<2x3x2xi64>) -> tensor<2x3x2x2xi64>
  func.return %0 : tensor<2x3x2x2xi64>
}

// -----

func.func @gather_start_index_map(%operand: tensor<3x4x2xi64>, %indices: tensor<2x3x2xi64>) -> tensor<2x3x2x2xi64> {
  // expected-error @+1 {{start_index_map size (1) is not equal to size of index dimension (2) of start_indices (2)}}
  %0 = "stablehlo.gather"(%operand, %indices) {
    dimension_numbers = #stablehlo.gather<offset_dims = [2, 3], collapsed_slice_dims = [0], start_index_map = [1], index_vector_dim = 2>,
    slice_sizes = array<i64: 1, 2, 2>,
    indices_are_sorted = false
  } : (tensor<3x4x2xi64>, tensor<2x3x2xi64>) -> tensor<2x3x2x2xi64>
  func.return %0 : tensor<2x3x2x2xi64>
}

// -----

func.func @gather_offset_sorted(%operand: tensor<3x4x2xi64>, %indices: tensor<2x3x2xi64>) -> tensor<2x3x2x2xi64> {
  // expected-error @+1 {{expects offset_dims to be sorted, got: [3, 2]}}
  %0 = "stablehlo.gather"(%operand, %indices) {
    dimension_numbers = #stablehlo.gather<offset_dims = [3, 2], collapsed_slice_dims = [0], start_index_map = [1, 0], index_vector_dim = 2>,
    slice_sizes = array<i64: 1, 2, 2>,
    indices_are_sorted = false
  } : (tensor<3x4x2xi64>, tensor<2x3x2xi64>) -> tensor<2x3x2x2xi64>
  func.return %0 : tensor<2x3x2x2xi64>
}

// -----

func.func @gather_offset_range(%operand: tensor<3x4x2xi64>, %indices: tensor<2x3x2xi64>) -> tensor<2x3x2x2xi64> {
  // expected-error @+1 {{offset_dims contains out-of-range dimension 4 (must be in [0, 4))}}
  %0 = "stablehlo.gather"(%operand, %indices) {
    dimension_numbers = #stablehlo.gather<offset_dims = [2, 4], collapsed_slice_dims = [0], start_index_map = [1, 0], index_vector_dim = 2>,
    slice_sizes = array<i64: 1, 2, 2>,
    indices_are_sorted = false
  } : (tensor<3x4x2xi64>, tensor<2x3x2xi64>) -> tensor<2x3x2x2xi64>
  func.return %0 : tensor<2x3x2x2xi64>
}

// -----

func.func @gather_collapsed_range(%operand: tensor<3x4x2xi64>, %indices: tensor<2x3x2xi64>) -> tensor<2x3x2x2xi64> {
  // expected-error @+1 {{collapsed_slice_dims contains out-of-range dimension 3 (must be in [0, 3))}}
  %0 = "stablehlo.gather"(%operand, %indices) {
    dimension_numbers = #stablehlo.gather<offset_dims = [2, 3], collapsed_slice_dims = [3], start_index_map = [1, 0], index_vector_dim = 2>,
    slice_sizes = array<i64: 1, 2, 2>,
    indices_are_sorted = false
  } : (tensor<3x4x2xi64>, tensor<2x3x2xi64>) -> tensor<2x3x2x2xi64>
  func.return %0 : tensor<2x3x2x2xi64>
}

// -----

func.func @gather_collapsed_size(%operand: tensor<3x4x2xi64>, %indices: tensor<2x3x2xi64>) -> tensor<2x3x2x2xi64> {
  // expected-error @+1 {{slice_sizes collapsed dimension 0 should <= 1 but got 2}}
  %0 = "stablehlo.gather"(%operand, %indices) {
    dimension_numbers = #stablehlo.gather<offset_dims = [2, 3], collapsed_slice_dims = [0], start_index_map = [1, 0], index_vector_dim = 2>,
    slice_sizes = array<i64: 2, 2, 2>,
    indices_are_sorted = false
  } : (tensor<3x4x2xi64>, tensor<2x3x2xi64>) -> tensor<2x3x2x2xi64>
  func.return %0 : tensor<2x3x2x2xi64>
}

// -----

func.func @gather_slice_bounds(%operand: tensor<3x4x2xi64>, %indices: tensor<2x3x2xi64>) -> tensor<2x3x2x2xi64> {
  // expected-error @+1 {{slice size (5) is out of bounds for operand dimension 1 (size 4)}}
  %0 = "stablehlo.gather"(%operand, %indices) {
    dimension_numbers = #stablehlo.gather<offset_dims = [2, 3], collapsed_slice_dims = [0], start_index_map = [1, 0], index_vector_dim = 2>,
    slice_sizes = array<i64: 1, 5, 2>,
    indices_are_sorted = false
  } : (tensor<3x4x2xi64>, tensor<2x3x2xi64>) -> tensor<2x3x2x2xi64>
  func.return %0 : tensor<2x3x2x2xi64>
}

// -----

func.func @gather_slice_count(%operand: tensor<3x4x2xi64>, %indices: tensor<2x3x2xi64>) -> tensor<2x3x2x2xi64> {
  // expected-error @+1 {{slice_sizes size (2) not equal to operand rank (3)}}
  %0 = "stablehlo.gather"(%operand, %indices) {
    dimension_numbers = #stablehlo.gather<offset_dims = [2, 3], collapsed_slice_dims = [0], start_index_map = [1, 0], index_vector_dim = 2>,
    slice_sizes = array<i64: 1, 2>,
    indices_are_sorted = false
  } : (tensor<3x4x2xi64>, tensor<2x3x2xi64>) -> tensor<2x3x2x2xi64>
  func.return %0 : tensor<2x3x2x2xi64>
}

// -----

func.func @gather_result(%operand: tensor<3x4x2xi64>, %indices: tensor<2x3x2xi64>) -> tensor<2x3x2x3xi64> {
  // expected-error @+1 {{inferred shape [2, 3, 2, 2] is incompatible with the result type 'tensor<2x3x2x3xi64>'}}
  %0 = "stablehlo.gather"(%operand, %indices) {
    dimension_numbers = #stablehlo.gather<offset_dims = [2, 3], collapsed_slice_dims = [0], start_index_map = [1, 0], index_vector_dim = 2>,
    slice_sizes = array<i64: 1, 2, 2>,
    indices_are_sorted = false
  } : (tensor<3x4x2xi64>, tensor<2x3x2xi64>) -> tensor<2x3x2x3xi64>
  func.return %0 : tensor<2x3x2x3xi64>
}

// -----

func.func @gather_start_map_dup(%operand: tensor<3x4x2xi64>, %indices: tensor<2x3x2xi64>) -> tensor<2x3x2x2xi64> {
  // expected-error @+1 {{start_index_map contains duplicate dimension 1}}
  %0 = "stablehlo.gather"(%operand, %indices) {
    dimension_numbers = #stablehlo.gather<offset_dims = [2, 3], collapsed_slice_dims = [0], start_index_map = [1, 1], index_vector_dim = 2>,
    slice_sizes = array<i64: 1, 2, 2>,
    indices_are_sorted = false
  } : (tensor<3x4x2xi64>, tensor<2x3x2xi64>) -> tensor<2x3x2x2xi64>
  func.return %0 : tensor<2x3x2x2xi64>
}

// -----

func.func @gather_batching_sizes(%operand: tensor<2x3x4x2xi64>, %indices: tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi64> {
  // expected-error @+1 {{operand_batching_dims size (1) is not equal to start_indices_batching_dims size (0)}}
  %0 = "stablehlo.gather"(%operand, %indices) {
    dimension_numbers = #stablehlo.gather<offset_dims = [3, 4], collapsed_slice_dims = [1], operand_batching_dims = [0], start_index_map = [2, 1], index_vector_dim = 3>,
    slice_sizes = array<i64: 1, 1, 2, 2>,
    indices_are_sorted = false
  } : (tensor<2x3x4x2xi64>, tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi64>
  func.return %0 : tensor<2x2x3x2x2xi64>
}

// -----

func.func @gather_batching_dims(%operand: tensor<2x3x4x2xi64>, %indices: tensor<2x3x3x2xi64>) -> tensor<2x3x3x2x2xi64> {
  // expected-error @+1 {{operand batching dimension 0 (size 2) and start indices batching dimension 1 (size 3) must have the same size}}
  %0 = "stablehlo.gather"(%operand, %indices) {
    dimension_numbers = #stablehlo.gather<offset_dims = [3, 4], collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [1], start_index_map = [2, 1], index_vector_dim = 3>,
    slice_sizes = array<i64: 1, 1, 2, 2>,
    indices_are_sorted = false
  } : (tensor<2x3x4x2xi64>, tensor<2x3x3x2xi64>) -> tensor<2x3x3x2x2xi64>
  func.return %0 : tensor<2x3x3x2x2xi64>
}

// -----

func.func @gather_batching_ivd(%operand: tensor<2x3x4x2xi64>, %indices: tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi64> {
  // expected-error @+1 {{expects start_indices_batching_dims not to include index_vector_dim 3}}
  %0 = "stablehlo.gather"(%operand, %indices) {
    dimension_numbers = #stablehlo.gather<offset_dims = [3, 4], collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [3], start_index_map = [2, 1], index_vector_dim = 3>,
    slice_sizes = array<i64: 1, 1, 2, 2>,
    indices_are_sorted = false
  } : (tensor<2x3x4x2xi64>, tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi64>
  func.return %0 : tensor<2x2x3x2x2xi64>
}

// -----

func.func @gather_missing_dn(%operand: tensor<3x4x2xi64>, %indices: tensor<2x3x2xi64>) -> tensor<2x3x2x2xi64> {
  // expected-error @+1 {{requires attribute 'dimension_numbers'}}
  %0 = "stablehlo.gather"(%operand, %indices) {
    dimension_numbers_typo = #stablehlo.gather<offset_dims = [2, 3], collapsed_slice_dims = [0], start_index_map = [1, 0], index_vector_dim = 2>,
    slice_sizes = array<i64: 1, 2, 2>,
    indices_are_sorted = false
  } : (tensor<3x4x2xi64>, tensor<2x3x2xi64>) -> tensor<2x3x2x2xi64>
  func.return %0 : tensor<2x3x2x2xi64>
}

// -----

func.func @gather_float_indices(%operand: tensor<3x4x2xi64>, %indices: tensor<2x3x2xf32>) -> tensor<2x3x2x2xi64> {
  // expected-error @+1 {{operand #1 must be tensor of integer values, but got 'tensor<2x3x2xf32>'}}
  %0 = "stablehlo.gather"(%operand, %indices) {
    dimension_numbers = #stablehlo.gather<offset_dims = [2, 3], collapsed_slice_dims = [0], start_index_map = [1, 0], index_vector_dim = 2>,
    slice_sizes = array<i64: 1, 2, 2>,
    indices_are_sorted = false
  } : (tensor<3x4x2xi64>, tensor<2x3x2xf32>) -> tensor<2x3x2x2xi64>
  func.return %0 : tensor<2x3x2x2xi64>
}

// -----

func.func @scatter_rank(%inputs: tensor<3x4x2xi64>, %indices: tensor<2x3x2xi64>, %updates: tensor<2x3x2x2xi64>) -> tensor<3x4x2xi64> {
  // expected-error @+1 {{update_window_dims size (2) plus inserted_window_dims size (0) plus input_batching_dims size (0) is not equal to input rank (3)}}
  %0 = "stablehlo.scatter"(%inputs, %indices, %updates) ({
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
      %1 = stablehlo.add %arg0, %arg1 : tensor<i64>
      stablehlo.return %1 : tensor<i64>
  }) {
    scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2, 3], scatter_dims_to_operand_dims = [1, 0], index_vector_dim = 2>,
    indices_are_sorted = false,
    unique_indices = false
  } : (tensor<3x4x2xi64>, tensor<2x3x2xi64>, tensor<2x3x2x2xi64>) -> tensor<3x4x2xi64>
  func.return %0 : tensor<3x4x2xi64>
}

// -----

func.func @scatter_window_sorted(%inputs: tensor<3x4x2xi64>, %indices: tensor<2x3x2xi64>, %updates: tensor<2x3x2x2xi64>) -> tensor<3x4x2xi64> {
  // expected-error @+1 {{expects update_window_dims to be sorted, got: [3, 2]}}
  %0 = "stablehlo.scatter"(%inputs, %indices, %updates) ({
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
      %1 = stablehlo.add %arg0, %arg1 : tensor<i64>
      stablehlo.return %1 : tensor<i64>
  }) {
    scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [3, 2], inserted_window_dims = [0], scatter_dims_to_operand_dims = [1, 0], index_vector_dim = 2>,
    indices_are_sorted = false,
    unique_indices = false
  } : (tensor<3x4x2xi64>, tensor<2x3x2xi64>, tensor<2x3x2x2xi64>) -> tensor<3x4x2xi64>
  func.return %0 : tensor<3x4x2xi64>
}

// -----

func.func @scatter_window_range(%inputs: tensor<3x4x2xi64>, %indices: tensor<2x3x2xi64>, %updates: tensor<2x3x2x2xi64>) -> tensor<3x4x2xi64> {
  // expected-error @+1 {{update_window_dims contains out-of-range dimension 4 (must be in [0, 4))}}
  %0 = "stablehlo.scatter"(%inputs, %indices, %updates) ({
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
      %1 = stablehlo.add %arg0, %arg1 : tensor<i64>
      stablehlo.return %1 : tensor<i64>
  }) {
    scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2, 4], inserted_window_dims = [0], scatter_dims_to_operand_dims = [1, 0], index_vector_dim = 2>,
    indices_are_sorted = false,
    unique_indices = false
  } : (tensor<3x4x2xi64>, tensor<2x3x2xi64>, tensor<2x3x2x2xi64>) -> tensor<3x4x2xi64>
  func.return %0 : tensor<3x4x2xi64>
}

// -----

func.func @scatter_inserted_range(%inputs: tensor<3x4x2xi64>, %indices: tensor<2x3x2xi64>, %updates: tensor<2x3x2x2xi64>) -> tensor<3x4x2xi64> {
  // expected-error @+1 {{inserted_window_dims contains out-of-range dimension 3 (must be in [0, 3))}}
  %0 = "stablehlo.scatter"(%inputs, %indices, %updates) ({
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
      %1 = stablehlo.add %arg0, %arg1 : tensor<i64>
      stablehlo.return %1 : tensor<i64>
  }) {
    scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2, 3], inserted_window_dims = [3], scatter_dims_to_operand_dims = [1, 0], index_vector_dim = 2>,
    indices_are_sorted = false,
    unique_indices = false
  } : (tensor<3x4x2xi64>, tensor<2x3x2xi64>, tensor<2x3x2x2xi64>) -> tensor<3x4x2xi64>
  func.return %0 : tensor<3x4x2xi64>
}

// -----

func.func @scatter_dims_to_operand(%inputs: tensor<3x4x2xi64>, %indices: tensor<2x3x2xi64>, %updates: tensor<2x3x2x2xi64>) -> tensor<3x4x2xi64> {
  // expected-error @+1 {{scatter_dims_to_operand_dims size (1) is not equal to size of index dimension (2) of scatter_indices (2)}}
  %0 = "stablehlo.scatter"(%inputs, %indices, %updates) ({
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
      %1 = stablehlo.add %arg0, %arg1 : tensor<i64>
      stablehlo.return %1 : tensor<i64>
  }) {
    scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2, 3], inserted_window_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 2>,
    indices_are_sorted = false,
    unique_indices = false
  } : (tensor<3x4x2xi64>, tensor<2x3x2xi64>, tensor<2x3x2x2xi64>) -> tensor<3x4x2xi64>
  func.return %0 : tensor<3x4x2xi64>
}

// -----

func.func @scatter_ivd(%inputs: tensor<3x4x2xi64>, %indices: tensor<2x3x2xi64>, %updates: tensor<2x3x2x2xi64>) -> tensor<3x4x2xi64> {
  // expected-error @+1 {{index_vector_dim 5 is out of bounds for scatter indices with rank 3}}
  %0 = "stablehlo.scatter"(%inputs, %indices, %updates) ({
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
      %1 = stablehlo.add %arg0, %arg1 : tensor<i64>
      stablehlo.return %1 : tensor<i64>
  }) {
    scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2, 3], inserted_window_dims = [0], scatter_dims_to_operand_dims = [1, 0], index_vector_dim = 5>,
    indices_are_sorted = false,
    unique_indices = false
  } : (tensor<3x4x2xi64>, tensor<2x3x2xi64>, tensor<2x3x2x2xi64>) -> tensor<3x4x2xi64>
  func.return %0 : tensor<3x4x2xi64>
}

// -----

func.func @scatter_update_scatter_dims(%inputs: tensor<3x4x2xi64>, %indices: tensor<2x3x2xi64>, %updates: tensor<2x4x2x2xi64>) -> tensor<3x4x2xi64> {
  // expected-error @+1 {{expects updates dimension 1 (size 4) to match scatter indices dimension 1 (size 3)}}
  %0 = "stablehlo.scatter"(%inputs, %indices, %updates) ({
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
      %1 = stablehlo.add %arg0, %arg1 : tensor<i64>
      stablehlo.return %1 : tensor<i64>
  }) {
    scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2, 3], inserted_window_dims = [0], scatter_dims_to_operand_dims = [1, 0], index_vector_dim = 2>,
    indices_are_sorted = false,
    unique_indices = false
  } : (tensor<3x4x2xi64>, tensor<2x3x2xi64>, tensor<2x4x2x2xi64>) -> tensor<3x4x2xi64>
  func.return %0 : tensor<3x4x2xi64>
}

// -----

func.func @scatter_update_window_dims(%inputs: tensor<3x4x2xi64>, %indices: tensor<2x3x2xi64>, %updates: tensor<2x3x5x2xi64>) -> tensor<3x4x2xi64> {
  // expected-error @+1 {{expects updates dimension 2 (size 5) to be at most the size 4 of input dimension 1}}
  %0 = "stablehlo.scatter"(%inputs, %indices, %updates) ({
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
      %1 = stablehlo.add %arg0, %arg1 : tensor<i64>
      stablehlo.return %1 : tensor<i64>
  }) {
    scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2, 3], inserted_window_dims = [0], scatter_dims_to_operand_dims = [1, 0], index_vector_dim = 2>,
    indices_are_sorted = false,
    unique_indices = false
  } : (tensor<3x4x2xi64>, tensor<2x3x2xi64>, tensor<2x3x5x2xi64>) -> tensor<3x4x2xi64>
  func.return %0 : tensor<3x4x2xi64>
}

// -----

func.func @scatter_update_rank(%inputs: tensor<3x4x2xi64>, %indices: tensor<2x3x2xi64>, %updates: tensor<2x3x2x2x1xi64>) -> tensor<3x4x2xi64> {
  // expected-error @+1 {{expects updates to have rank 4 (2 scatter dimensions plus 2 window dimensions)}}
  %0 = "stablehlo.scatter"(%inputs, %indices, %updates) ({
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
      %1 = stablehlo.add %arg0, %arg1 : tensor<i64>
      stablehlo.return %1 : tensor<i64>
  }) {
    scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2, 3], inserted_window_dims = [0], scatter_dims_to_operand_dims = [1, 0], index_vector_dim = 2>,
    indices_are_sorted = false,
    unique_indices = false
  } : (tensor<3x4x2xi64>, tensor<2x3x2xi64>, tensor<2x3x2x2x1xi64>) -> tensor<3x4x2xi64>
  func.return %0 : tensor<3x4x2xi64>
}

// -----

func.func @scatter_result_shape(%inputs: tensor<3x4x2xi64>, %indices: tensor<2x3x2xi64>, %updates: tensor<2x3x2x2xi64>) -> tensor<3x4x3xi64> {
  // expected-error @+1 {{expects result #0 to have the shape of input #0}}
  %0 = "stablehlo.scatter"(%inputs, %indices, %updates) ({
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
      %1 = stablehlo.add %arg0, %arg1 : tensor<i64>
      stablehlo.return %1 : tensor<i64>
  }) {
    scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2, 3], inserted_window_dims = [0], scatter_dims_to_operand_dims = [1, 0], index_vector_dim = 2>,
    indices_are_sorted = false,
    unique_indices = false
  } : (tensor<3x4x2xi64>, tensor<2x3x2xi64>, tensor<2x3x2x2xi64>) -> tensor<3x4x3xi64>
  func.return %0 : tensor<3x4x3xi64>
}

// -----

func.func @scatter_update_elem(%inputs: tensor<3x4x2xi64>, %indices: tensor<2x3x2xi64>, %updates: tensor<2x3x2x2xi32>) -> tensor<3x4x2xi64> {
  // expected-error @+1 {{expects updates #0 to have the element type of input #0}}
  %0 = "stablehlo.scatter"(%inputs, %indices, %updates) ({
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
      %1 = stablehlo.add %arg0, %arg1 : tensor<i64>
      stablehlo.return %1 : tensor<i64>
  }) {
    scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2, 3], inserted_window_dims = [0], scatter_dims_to_operand_dims = [1, 0], index_vector_dim = 2>,
    indices_are_sorted = false,
    unique_indices = false
  } : (tensor<3x4x2xi64>, tensor<2x3x2xi64>, tensor<2x3x2x2xi32>) -> tensor<3x4x2xi64>
  func.return %0 : tensor<3x4x2xi64>
}

// -----

func.func @scatter_body_returns(%inputs: tensor<3x4x2xi64>, %indices: tensor<2x3x2xi64>, %updates: tensor<2x3x2x2xi64>) -> tensor<3x4x2xi64> {
  // expected-error @+1 {{update_computation must return 1 value(s), but returns 2}}
  %0 = "stablehlo.scatter"(%inputs, %indices, %updates) ({
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
      %1 = stablehlo.add %arg0, %arg1 : tensor<i64>
      stablehlo.return %1, %1 : tensor<i64>, tensor<i64>
  }) {
    scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2, 3], inserted_window_dims = [0], scatter_dims_to_operand_dims = [1, 0], index_vector_dim = 2>,
    indices_are_sorted = false,
    unique_indices = false
  } : (tensor<3x4x2xi64>, tensor<2x3x2xi64>, tensor<2x3x2x2xi64>) -> tensor<3x4x2xi64>
  func.return %0 : tensor<3x4x2xi64>
}

// -----

func.func @scatter_body_params(%inputs: tensor<3x4x2xi64>, %indices: tensor<2x3x2xi64>, %updates: tensor<2x3x2x2xi64>) -> tensor<3x4x2xi64> {
  // expected-error @+1 {{update_computation parameter #0 must be a 0-dimensional tensor, but got 'tensor<2xi64>'}}
  %0 = "stablehlo.scatter"(%inputs, %indices, %updates) ({
    ^bb0(%arg0: tensor<2xi64>, %arg1: tensor<2xi64>):
      %1 = stablehlo.add %arg0, %arg1 : tensor<2xi64>
      stablehlo.return %1 : tensor<2xi64>
  }) {
    scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2, 3], inserted_window_dims = [0], scatter_dims_to_operand_dims = [1, 0], index_vector_dim = 2>,
    indices_are_sorted = false,
    unique_indices = false
  } : (tensor<3x4x2xi64>, tensor<2x3x2xi64>, tensor<2x3x2x2xi64>) -> tensor<3x4x2xi64>
  func.return %0 : tensor<3x4x2xi64>
}

// -----

func.func @scatter_body_promotable(%inputs: tensor<3x4x2xi64>, %indices: tensor<2x3x2xi64>, %updates: tensor<2x3x2x2xi64>) -> tensor<3x4x2xi64> {
  // expected-error @+1 {{element type of update_computation parameter #0 is expected to be promotable from the element type i64 of input #0, but got i32}}
  %0 = "stablehlo.scatter"(%inputs, %indices, %updates) ({
    ^bb0(%arg0: tensor<i32>, %arg1: tensor<i32>):
      %1 = stablehlo.add %arg0, %arg1 : tensor<i32>
      stablehlo.return %1 : tensor<i32>
  }) {
    scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2, 3], inserted_window_dims = [0], scatter_dims_to_operand_dims = [1, 0], index_vector_dim = 2>,
    indices_are_sorted = false,
    unique_indices = false
  } : (tensor<3x4x2xi64>, tensor<2x3x2xi64>, tensor<2x3x2x2xi64>) -> tensor<3x4x2xi64>
  func.return %0 : tensor<3x4x2xi64>
}

// -----

func.func @scatter_dup_sdod(%inputs: tensor<3x4x2xi64>, %indices: tensor<2x3x2xi64>, %updates: tensor<2x3x2x2xi64>) -> tensor<3x4x2xi64> {
  // expected-error @+1 {{scatter_dims_to_operand_dims contains duplicate dimension 1}}
  %0 = "stablehlo.scatter"(%inputs, %indices, %updates) ({
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
      %1 = stablehlo.add %arg0, %arg1 : tensor<i64>
      stablehlo.return %1 : tensor<i64>
  }) {
    scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2, 3], inserted_window_dims = [0], scatter_dims_to_operand_dims = [1, 1], index_vector_dim = 2>,
    indices_are_sorted = false,
    unique_indices = false
  } : (tensor<3x4x2xi64>, tensor<2x3x2xi64>, tensor<2x3x2x2xi64>) -> tensor<3x4x2xi64>
  func.return %0 : tensor<3x4x2xi64>
}
