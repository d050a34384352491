// RUN: %verify-diagnostics %s
// Negative tests for the shape rules (ir/verify_shape.c).

func.func @bid_size(%a: tensor<2xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{broadcast_dimensions size (2) does not match operand rank (1)}}
  %0 = stablehlo.broadcast_in_dim %a, dims = [0, 1] : (tensor<2xf32>) -> tensor<3x2xf32>
  func.return %0 : tensor<3x2xf32>
}

// -----

func.func @bid_range(%a: tensor<2xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{broadcast_dimensions contains out-of-range dimension 2 (must be in [0, 2))}}
  %0 = stablehlo.broadcast_in_dim %a, dims = [2] : (tensor<2xf32>) -> tensor<3x2xf32>
  func.return %0 : tensor<3x2xf32>
}

// -----

func.func @bid_duplicate(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {
  // expected-error @+1 {{broadcast_dimensions contains duplicate dimension 1}}
  %0 = stablehlo.broadcast_in_dim %a, dims = [1, 1] : (tensor<2x2xf32>) -> tensor<2x2xf32>
  func.return %0 : tensor<2x2x// RUN: %verify-diagnostics %s
// Negative tests for gather and scatter (ir/verify_shape.c).

func.func @gather_rank(%operand: tensor<3x4x2xi64>, %indices: tensor<2x3x2xi64>) -> tensor<2x3x2x2xi64> {
  // expected-error @+1 {{offset_dims size (1) plus collapsed_slice_dims size (1) plus operand_batching_dims size (0) is not equal to operand rank (3)}}
  %0 = "stablehlo.gather"(%operand, %indices) {
    dimension_numbers = #stablehlo.gather<offset_dims = [2], cooffset_dims = [3, 2], collapsed_slice_dims = [0], start_index_map = [1, 0], index_vector_dim = 2>,
    slice_sizes = array<i64: 1, 2, 2>,
    indices_are_sorted = false
  } : (tensor<3x4x2xi64>, f32>
}

// -----

func.func @bid_size_mismatch(%a: tensor<3xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{size of operand dimension 0 (3) is not equal to 1 or size of result dimension 1 (4)}}
  %0 = stablehlo.broadcast_in_dim %a, dims = [1] : (tensor<3xf32>) -> tensor<2x4xf32>
  func.return %0 : tensor<2x4xf32>
}

// -----

func.func tens@bid_rank(%a: tensor<2x3xf32>) -> tensor<6xf32>or<2x3x2xi64>) -> tensor<2x3x2x2xi64>
  func.return %0 : tensor<2x3x2x2xi64>
}

// -----

func.fun