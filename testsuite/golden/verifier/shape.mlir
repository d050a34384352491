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
  func.return %0 : tensor<2x2xf32>
}

// -----

func.func @bid_size_mismatch(%a: tensor<3xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{size of operand dimension 0 (3) is not equal to 1 or size of result dimension 1 (4)}}
  %0 = stablehlo.broadcast_in_dim %a, dims = [1] : (tensor<3xf32>) -> tensor<2x4xf32>
  func.return %0 : tensor<2x4xf32>
}

// -----

func.func @bid_rank(%a: tensor<2x3xf32>) -> tensor<6xf32> {
  // expected-error @+1 {{result rank (1) is less than operand rank (2)}}
  %0 = stablehlo.broadcast_in_dim %a, dims = [0, 1] : (tensor<2x3xf32>) -> tensor<6xf32>
  func.return %0 : tensor<6xf32>
}

// -----

func.func @bid_missing_attr(%a: tensor<2xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{requires attribute 'broadcast_dimensions'}}
  %0 = "stablehlo.broadcast_in_dim"(%a) : (tensor<2xf32>) -> tensor<3x2xf32>
  func.return %0 : tensor<3x2xf32>
}

// -----

func.func @bid_attr_kind(%a: tensor<2xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{attribute 'broadcast_dimensions' must be a 1-dimensional list of integers}}
  %0 = "stablehlo.broadcast_in_dim"(%a) {broadcast_dimensions = "1"} : (tensor<2xf32>) -> tensor<3x2xf32>
  func.return %0 : tensor<3x2xf32>
}

// -----

func.func @bid_elem(%a: tensor<2xf32>) -> tensor<3x2xf16> {
  // expected-error @+1 {{expects the result to have the element type of the operand}}
  %0 = stablehlo.broadcast_in_dim %a, dims = [1] : (tensor<2xf32>) -> tensor<3x2xf16>
  func.return %0 : tensor<3x2xf16>
}

// -----

func.func @broadcast_shape(%a: tensor<2xf32>) -> tensor<3x3xf32> {
  // expected-error @+1 {{inferred shape [3, 2] is incompatible with the result type 'tensor<3x3xf32>'}}
  %0 = "stablehlo.broadcast"(%a) {broadcast_sizes = array<i64: 3>} : (tensor<2xf32>) -> tensor<3x3xf32>
  func.return %0 : tensor<3x3xf32>
}

// -----

func.func @dyn_bid_output(%a: tensor<2xf32>, %s: tensor<2xi64>) -> tensor<?x?x?xf32> {
  // expected-error @+1 {{output_dimensions size (2) does not match result rank (3)}}
  %0 = "stablehlo.dynamic_broadcast_in_dim"(%a, %s) {broadcast_dimensions = array<i64: 2>} : (tensor<2xf32>, tensor<2xi64>) -> tensor<?x?x?xf32>
  func.return %0 : tensor<?x?x?xf32>
}

// -----

func.func @reshape_count(%a: tensor<2x3xf32>) -> tensor<5xf32> {
  // expected-error @+1 {{number of output elements (5) doesn't match expected number of elements (6)}}
  %0 = stablehlo.reshape %a : (tensor<2x3xf32>) -> tensor<5xf32>
  func.return %0 : tensor<5xf32>
}

// -----

func.func @reshape_elem(%a: tensor<2x3xf32>) -> tensor<6xi32> {
  // expected-error @+1 {{expects the result to have the element type of the operand}}
  %0 = stablehlo.reshape %a : (tensor<2x3xf32>) -> tensor<6xi32>
  func.return %0 : tensor<6xi32>
}

// -----

func.func @dynamic_reshape_rank(%a: tensor<2x3xf32>, %s: tensor<2xi64>) -> tensor<?xf32> {
  // expected-error @+1 {{output_shape size (2) does not match result rank (1)}}
  %0 = stablehlo.dynamic_reshape %a, %s : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<?xf32>
  func.return %0 : tensor<?xf32>
}

// -----

func.func @transpose_dup(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{permutation contains duplicate dimension 0}}
  %0 = stablehlo.transpose %a, dims = [0, 0] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

func.func @transpose_size(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{operand rank (2) does not match permutation size (1)}}
  %0 = stablehlo.transpose %a, dims = [0] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

func.func @transpose_result(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{inferred shape [3, 2] is incompatible with the result type 'tensor<2x3xf32>' (dimension 0)}}
  %0 = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

func.func @slice_limit(%a: tensor<4xf32>) -> tensor<5xf32> {
  // expected-error @+1 {{limit index 5 is larger than dimension size 4 in dimension 0}}
  %0 = "stablehlo.slice"(%a) {start_indices = array<i64: 0>, limit_indices = array<i64: 5>, strides = array<i64: 1>} : (tensor<4xf32>) -> tensor<5xf32>
  func.return %0 : tensor<5xf32>
}

// -----

func.func @slice_start_limit(%a: tensor<4xf32>) -> tensor<0xf32> {
  // expected-error @+1 {{start index 3 is larger than limit index 2 in dimension 0}}
  %0 = "stablehlo.slice"(%a) {start_indices = array<i64: 3>, limit_indices = array<i64: 2>, strides = array<i64: 1>} : (tensor<4xf32>) -> tensor<0xf32>
  func.return %0 : tensor<0xf32>
}

// -----

func.func @slice_stride(%a: tensor<4xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{stride must be positive but got 0 in dimension 0}}
  %0 = "stablehlo.slice"(%a) {start_indices = array<i64: 0>, limit_indices = array<i64: 2>, strides = array<i64: 0>} : (tensor<4xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

func.func @slice_negative(%a: tensor<4xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{negative start index -1 in dimension 0}}
  %0 = "stablehlo.slice"(%a) {start_indices = array<i64: -1>, limit_indices = array<i64: 2>, strides = array<i64: 1>} : (tensor<4xf32>) -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}

// -----

func.func @slice_result(%a: tensor<4xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{inferred shape [2] is incompatible with the result type 'tensor<3xf32>'}}
  %0 = "stablehlo.slice"(%a) {start_indices = array<i64: 1>, limit_indices = array<i64: 4>, strides = array<i64: 2>} : (tensor<4xf32>) -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}

// -----

func.func @slice_count(%a: tensor<4xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{the number of elements in start_indices (2) does not match the rank of the operand (1)}}
  %0 = "stablehlo.slice"(%a) {start_indices = array<i64: 0, 0>, limit_indices = array<i64: 2>, strides = array<i64: 1>} : (tensor<4xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

func.func @slice_pretty(%a: tensor<4x4xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{inferred shape [2, 4] is incompatible with the result type 'tensor<2x3xf32>' (dimension 1)}}
  %0 = stablehlo.slice %a [0:2, 0:4] : (tensor<4x4xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

func.func @dynamic_slice_size(%a: tensor<4xf32>, %i: tensor<i64>) -> tensor<5xf32> {
  // expected-error @+1 {{slice size 5 is larger than dimension size 4 in dimension 0}}
  %0 = stablehlo.dynamic_slice %a, %i, sizes = [5] : (tensor<4xf32>, tensor<i64>) -> tensor<5xf32>
  func.return %0 : tensor<5xf32>
}

// -----

func.func @dynamic_slice_count(%a: tensor<4x4xf32>, %i: tensor<i64>) -> tensor<2x2xf32> {
  // expected-error @+1 {{has 1 start indices, but the operand has rank 2}}
  %0 = "stablehlo.dynamic_slice"(%a, %i) {slice_sizes = array<i64: 2, 2>} : (tensor<4x4xf32>, tensor<i64>) -> tensor<2x2xf32>
  func.return %0 : tensor<2x2xf32>
}

// -----

func.func @dynamic_slice_index_type(%a: tensor<4xf32>, %i: tensor<f32>) -> tensor<2xf32> {
  // expected-error @+1 {{operand #1 must be a 0-dimensional tensor of integer values, but got 'tensor<f32>'}}
  %0 = "stablehlo.dynamic_slice"(%a, %i) {slice_sizes = array<i64: 2>} : (tensor<4xf32>, tensor<f32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

func.func @dynamic_slice_mixed_indices(%a: tensor<4x4xf32>, %i: tensor<i32>, %j: tensor<i64>) -> tensor<2x2xf32> {
  // expected-error @+1 {{start indices must have the same type, but got 'tensor<i32>' and 'tensor<i64>'}}
  %0 = "stablehlo.dynamic_slice"(%a, %i, %j) {slice_sizes = array<i64: 2, 2>} : (tensor<4x4xf32>, tensor<i32>, tensor<i64>) -> tensor<2x2xf32>
  func.return %0 : tensor<2x2xf32>
}

// -----

func.func @dynamic_slice_result(%a: tensor<4xf32>, %i: tensor<i64>) -> tensor<3xf32> {
  // expected-error @+1 {{inferred shape [2] is incompatible with the result type 'tensor<3xf32>'}}
  %0 = "stablehlo.dynamic_slice"(%a, %i) {slice_sizes = array<i64: 2>} : (tensor<4xf32>, tensor<i64>) -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}

// -----

func.func @dus_update(%a: tensor<4xf32>, %u: tensor<5xf32>, %i: tensor<i64>) -> tensor<4xf32> {
  // expected-error @+1 {{update dimension 0 (5) is larger than the operand dimension (4)}}
  %0 = stablehlo.dynamic_update_slice %a, %u, %i : (tensor<4xf32>, tensor<5xf32>, tensor<i64>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----

func.func @dus_result(%a: tensor<4xf32>, %u: tensor<2xf32>, %i: tensor<i64>) -> tensor<5xf32> {
  // expected-error @+1 {{requires the result type 'tensor<5xf32>' to match the operand type 'tensor<4xf32>'}}
  %0 = stablehlo.dynamic_update_slice %a, %u, %i : (tensor<4xf32>, tensor<2xf32>, tensor<i64>) -> tensor<5xf32>
  func.return %0 : tensor<5xf32>
}

// -----

func.func @dus_elem(%a: tensor<4xf32>, %u: tensor<2xi32>, %i: tensor<i64>) -> tensor<4xf32> {
  // expected-error @+1 {{expects the update to have the element type of the operand}}
  %0 = stablehlo.dynamic_update_slice %a, %u, %i : (tensor<4xf32>, tensor<2xi32>, tensor<i64>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----

func.func @concat_dim(%a: tensor<2xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{dimension 1 is out-of-bounds for input rank 1}}
  %0 = stablehlo.concatenate %a, %a, dim = 1 : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----

func.func @concat_non_concat(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{shapes of operand (0) and (1) do not match at non-concat index 1}}
  %0 = stablehlo.concatenate %a, %b, dim = 0 : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<4x3xf32>
  func.return %0 : tensor<4x3xf32>
}

// -----

func.func @concat_result(%a: tensor<2xf32>, %b: tensor<3xf32>) -> tensor<6xf32> {
  // expected-error @+1 {{inferred shape [5] is incompatible with the result type 'tensor<6xf32>'}}
  %0 = stablehlo.concatenate %a, %b, dim = 0 : (tensor<2xf32>, tensor<3xf32>) -> tensor<6xf32>
  func.return %0 : tensor<6xf32>
}

// -----

func.func @concat_scalar(%a: tensor<f32>) -> tensor<2xf32> {
  // expected-error @+1 {{rank-0 values cannot be concatenated}}
  %0 = stablehlo.concatenate %a, %a, dim = 0 : (tensor<f32>, tensor<f32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

func.func @concat_elem(%a: tensor<2xf32>, %b: tensor<2xi32>) -> tensor<4xf32> {
  // expected-error @+1 {{requires the same element type for all operands}}
  %0 = stablehlo.concatenate %a, %b, dim = 0 : (tensor<2xf32>, tensor<2xi32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----

func.func @concat_rank(%a: tensor<2xf32>, %b: tensor<2x2xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{operands (0) and (1) do not match rank}}
  %0 = stablehlo.concatenate %a, %b, dim = 0 : (tensor<2xf32>, tensor<2x2xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----

func.func @pad_result(%a: tensor<3xf32>, %p: tensor<f32>) -> tensor<8xf32> {
  // expected-error @+1 {{inferred shape [7] is incompatible with the result type 'tensor<8xf32>'}}
  %0 = stablehlo.pad %a, %p, low = [1], high = [-1], interior = [2] : (tensor<3xf32>, tensor<f32>) -> tensor<8xf32>
  func.return %0 : tensor<8xf32>
}

// -----

func.func @pad_interior(%a: tensor<3xf32>, %p: tensor<f32>) -> tensor<3xf32> {
  // expected-error @+1 {{interior padding cannot be negative: -1 in dimension 0}}
  %0 = stablehlo.pad %a, %p, low = [0], high = [0], interior = [-1] : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}

// -----

func.func @pad_negative_size(%a: tensor<2xf32>, %p: tensor<f32>) -> tensor<0xf32> {
  // expected-error @+1 {{padding results in negative size -1 for dimension 0}}
  %0 = stablehlo.pad %a, %p, low = [-3], high = [0], interior = [0] : (tensor<2xf32>, tensor<f32>) -> tensor<0xf32>
  func.return %0 : tensor<0xf32>
}

// -----

func.func @pad_value_rank(%a: tensor<2xf32>, %p: tensor<1xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{padding value type should be a rank-0 tensor, is rank 1}}
  %0 = stablehlo.pad %a, %p, low = [0], high = [0], interior = [0] : (tensor<2xf32>, tensor<1xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

func.func @pad_sizes(%a: tensor<2x2xf32>, %p: tensor<f32>) -> tensor<2x2xf32> {
  // expected-error @+1 {{must have one entry per operand dimension (2)}}
  %0 = stablehlo.pad %a, %p, low = [0], high = [0, 0], interior = [0, 0] : (tensor<2x2xf32>, tensor<f32>) -> tensor<2x2xf32>
  func.return %0 : tensor<2x2xf32>
}

// -----

func.func @iota_dim() -> tensor<4xi32> {
  // expected-error @+1 {{iota dimension 1 is out of range for the result rank 1}}
  %0 = stablehlo.iota dim = 1 : tensor<4xi32>
  func.return %0 : tensor<4xi32>
}

// -----

func.func @iota_scalar() -> tensor<i32> {
  // expected-error @+1 {{does not support scalars}}
  %0 = stablehlo.iota dim = 0 : tensor<i32>
  func.return %0 : tensor<i32>
}

// -----

func.func @dynamic_iota_rank(%s: tensor<3xi64>) -> tensor<?x?xf32> {
  // expected-error @+1 {{output_shape size (3) does not match result rank (2)}}
  %0 = stablehlo.dynamic_iota %s, dim = 0 : (tensor<3xi64>) -> tensor<?x?xf32>
  func.return %0 : tensor<?x?xf32>
}

// -----

func.func @reverse_dup(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{dimensions contains duplicate dimension 0}}
  %0 = stablehlo.reverse %a, dims = [0, 0] : tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

func.func @reverse_range(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{dimensions contains out-of-range dimension 2 (must be in [0, 2))}}
  %0 = stablehlo.reverse %a, dims = [2] : tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

func.func @get_dimension_size_range(%a: tensor<2x3xf32>) -> tensor<i32> {
  // expected-error @+1 {{requires dimension attribute in range [0, 2); found (2)}}
  %0 = stablehlo.get_dimension_size %a, dim = 2 : (tensor<2x3xf32>) -> tensor<i32>
  func.return %0 : tensor<i32>
}

// -----

func.func @gte_index(%t: tuple<tensor<f32>, tensor<i64>>) -> tensor<f32> {
  // expected-error @+1 {{index 2 is out of bounds of operand with size 2}}
  %0 = stablehlo.get_tuple_element %t[2] : (tuple<tensor<f32>, tensor<i64>>) -> tensor<f32>
  func.return %0 : tensor<f32>
}

// -----

func.func @gte_type(%t: tuple<tensor<f32>, tensor<i64>>) -> tensor<f32> {
  // expected-error @+1 {{has return type tensor<f32>, but expected tensor<i64>}}
  %0 = stablehlo.get_tuple_element %t[1] : (tuple<tensor<f32>, tensor<i64>>) -> tensor<f32>
  func.return %0 : tensor<f32>
}

// -----

func.func @gte_not_tuple(%a: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{operand #0 must be a tuple, but got 'tensor<f32>'}}
  %0 = "stablehlo.get_tuple_element"(%a) {index = 0 : i32} : (tensor<f32>) -> tensor<f32>
  func.return %0 : tensor<f32>
}

// -----

func.func @tuple_type(%a: tensor<f32>, %b: tensor<i64>) -> tuple<tensor<f32>, tensor<f32>> {
  // expected-error @+1 {{result element #1 has type 'tensor<f32>', but operand #1 has type 'tensor<i64>'}}
  %0 = "stablehlo.tuple"(%a, %b) : (tensor<f32>, tensor<i64>) -> tuple<tensor<f32>, tensor<f32>>
  func.return %0 : tuple<tensor<f32>, tensor<f32>>
}

// -----

func.func @dynamic_pad_sizes(%a: tensor<5x4xi64>, %p: tensor<i64>, %l: tensor<3xi64>, %h: tensor<2xi64>) -> tensor<?x?xi64> {
  // expected-error @+1 {{padding operand #2 has 3 elements, but the operand has rank 2}}
  %0 = stablehlo.dynamic_pad %a, %p, %l, %h, %h : (tensor<5x4xi64>, tensor<i64>, tensor<3xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x?xi64>
  func.return %0 : tensor<?x?xi64>
}

// -----

func.func @real_dynamic_slice_rank(%a: tensor<5x4xi64>, %s: tensor<2xi64>) -> tensor<?xi64> {
  // expected-error @+1 {{expects the result to have rank 2, but got 'tensor<?xi64>'}}
  %0 = stablehlo.real_dynamic_slice %a, %s, %s, %s : (tensor<5x4xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?xi64>
  func.return %0 : tensor<?xi64>
}
