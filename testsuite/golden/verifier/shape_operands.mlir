// RUN: %verify-diagnostics %s
// Shape operands (ir/verify_shape.c): statically shaped, and when a
// constant defines them, checked against the result type as the attribute
// forms are; send/recv channel types, all_to_all's groups
// (ir/verify_layouts.c, ir/verify_control.c).

func.func @dbid_operand(%arg0: tensor<1x3xi32>) -> tensor<?x?x?xi32> {
  %shape = stablehlo.constant dense<[2, 1, 1]> : tensor<3xi32>
  // expected-error @+1 {{size of operand dimension 1 (3) is not equal to 1 or value of shape at index 2 (1)}}
  %0 = stablehlo.dynamic_broadcast_in_dim %arg0, %shape, dims = [1, 2] : (tensor<1x3xi32>, tensor<3xi32>) -> tensor<?x?x?xi32>
  func.return %0 : tensor<?x?x?xi32>
}

// -----

func.func @dbid_result(%arg0: tensor<4xf32>) -> tensor<3x4xf32> {
  %shape = stablehlo.constant dense<[-1, 4]> : tensor<2xi64>
  // expected-error @+1 {{output shape [-1, 4] is incompatible with return type of operation 'tensor<3x4xf32>'}}
  %0 = stablehlo.dynamic_broadcast_in_dim %arg0, %shape, dims = [1] : (tensor<4xf32>, tensor<2xi64>) -> tensor<3x4xf32>
  func.return %0 : tensor<3x4xf32>
}

// -----

func.func @dynamic_shape_operand(%arg0: tensor<?xf32>, %shape: tensor<?xindex>) -> tensor<1x4xf32> {
  // expected-error @+1 {{operand #1 must be statically shaped (a 1-d shape of known length), but got 'tensor<?xindex>'}}
  %0 = stablehlo.dynamic_reshape %arg0, %shape : (tensor<?xf32>, tensor<?xindex>) -> tensor<1x4xf32>
  func.return %0 : tensor<1x4xf32>
}

// -----

func.func @reshape_count(%arg0: tensor<2x5xf32>) -> tensor<?x?x?xf32> {
  %shape = stablehlo.constant dense<[2, 3, 4]> : tensor<3xi32>
  // expected-error @+1 {{output_shape is incompatible with input type of operation: input has 10 elements, but output_shape has 24}}
  %0 = stablehlo.dynamic_reshape %arg0, %shape : (tensor<2x5xf32>, tensor<3xi32>) -> tensor<?x?x?xf32>
  func.return %0 : tensor<?x?x?xf32>
}

// -----

func.func @iota_shape() -> tensor<4xf32> {
  %shape = stablehlo.constant dense<[3]> : tensor<1xi64>
  // expected-error @+1 {{output shape [3] is incompatible with return type of operation 'tensor<4xf32>'}}
  %0 = stablehlo.dynamic_iota %shape, dim = 0 : (tensor<1xi64>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----

func.func @pad_interior(%arg: tensor<4xf64>, %v: tensor<f64>, %lo: tensor<1xi32>, %hi: tensor<1xi32>) -> tensor<?xf64> {
  %in = stablehlo.constant dense<-1> : tensor<1xi32>
  // expected-error @+1 {{interior_padding must be non-negative, but got -1}}
  %0 = stablehlo.dynamic_pad %arg, %v, %lo, %hi, %in : (tensor<4xf64>, tensor<f64>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<?xf64>
  func.return %0 : tensor<?xf64>
}

// -----

func.func @pad_size(%arg: tensor<4xf64>, %v: tensor<f64>) -> tensor<4xf64> {
  %p = stablehlo.constant dense<1> : tensor<1xi32>
  // expected-error @+1 {{expected output dimension at index 0 to equal 9, but got 4}}
  %0 = stablehlo.dynamic_pad %arg, %v, %p, %p, %p : (tensor<4xf64>, tensor<f64>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<4xf64>
  func.return %0 : tensor<4xf64>
}

// -----

func.func @rng_shape(%a: tensor<f32>, %b: tensor<f32>) -> tensor<12xf32> {
  %shape = stablehlo.constant dense<7> : tensor<1xi64>
  // expected-error @+1 {{the shape operand [7] is incompatible with the result type 'tensor<12xf32>'}}
  %0 = stablehlo.rng %a, %b, %shape, distribution = NORMAL : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<12xf32>
  func.return %0 : tensor<12xf32>
}

// -----

func.func @dynamic_gather_slices(%operand: tensor<?x?x?xi32>, %idx: tensor<?x?x?xi32>) -> tensor<?x?x?xi32> {
  %sizes = stablehlo.constant dense<[1, 1, 8]> : tensor<3xi32>
  // expected-error @+1 {{slice_sizes collapsed dimension 2 should <= 1 but got 8}}
  %0 = "stablehlo.dynamic_gather"(%operand, %idx, %sizes) {dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0, 2], start_index_map = [0, 1], index_vector_dim = 2>, indices_are_sorted = false} : (tensor<?x?x?xi32>, tensor<?x?x?xi32>, tensor<3xi32>) -> tensor<?x?x?xi32>
  func.return %0 : tensor<?x?x?xi32>
}

// -----

func.func @dynamic_gather_rank(%operand: tensor<?x?x?xi32>, %idx: tensor<?x?x?xi32>, %sizes: tensor<2xi32>) -> tensor<?x?x?xi32> {
  // expected-error @+1 {{slice_sizes size (2) not equal to operand rank (3)}}
  %0 = "stablehlo.dynamic_gather"(%operand, %idx, %sizes) {dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 2>, indices_are_sorted = false} : (tensor<?x?x?xi32>, tensor<?x?x?xi32>, tensor<2xi32>) -> tensor<?x?x?xi32>
  func.return %0 : tensor<?x?x?xi32>
}

// -----

func.func @send_host(%x: tensor<2xi64>, %t: !stablehlo.token) -> !stablehlo.token {
  // expected-error @+1 {{channel_type should be DEVICE_TO_HOST when is_host_transfer is true, but the channel_handle's type is 1}}
  %0 = "stablehlo.send"(%x, %t) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, is_host_transfer = true} : (tensor<2xi64>, !stablehlo.token) -> !stablehlo.token
  func.return %0 : !stablehlo.token
}

// -----

func.func @recv_device(%t: !stablehlo.token) -> tensor<2xi64> {
  // expected-error @+1 {{channel_type should be DEVICE_TO_DEVICE when is_host_transfer is false, but the channel_handle's type is 3}}
  %0:2 = "stablehlo.recv"(%t) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 3>, is_host_transfer = false} : (!stablehlo.token) -> (tensor<2xi64>, !stablehlo.token)
  func.return %0#0 : tensor<2xi64>
}

// -----

func.func @all_to_all_no_groups(%x: tensor<4x16xf32>) -> tensor<16x4xf32> {
  // expected-error @+1 {{group size of replica_groups must be split_count 4, but there are no groups}}
  %0 = "stablehlo.all_to_all"(%x) {split_dimension = 1 : i64, concat_dimension = 0 : i64, split_count = 4 : i64, replica_groups = dense<0> : tensor<0x2xi64>} : (tensor<4x16xf32>) -> tensor<16x4xf32>
  func.return %0 : tensor<16x4xf32>
}

// -----

func.func @dynamic_conv_window(%x: tensor<1x8x8x2xf32>, %k: tensor<0x3x2x4xf32>) -> tensor<1x8x8x4xf32> {
  %pad = stablehlo.constant dense<0> : tensor<2x2xi64>
  // expected-error @+1 {{expects window to have positive value for 0-th window dimension, but got 0 (kernel dimension 0)}}
  %0 = "stablehlo.dynamic_conv"(%x, %k, %pad) {dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64} : (tensor<1x8x8x2xf32>, tensor<0x3x2x4xf32>, tensor<2x2xi64>) -> tensor<1x8x8x4xf32>
  func.return %0 : tensor<1x8x8x4xf32>
}

// -----

// A dynamic_conv whose padding is computed: its window is checked once the
// padding is known (as upstream; refinement makes it a convolution), so
// window_strides of the wrong length pass here.
func.func @dynamic_conv_computed_padding(%x: tensor<1x?x16xf32>, %k: tensor<4x16x16xf32>, %p: tensor<1x2xi32>) -> tensor<1x?x16xf32> {
  %0 = "stablehlo.dynamic_conv"(%x, %k, %p) {batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>, feature_group_count = 1 : i64, window_strides = array<i64: 2, 2>} : (tensor<1x?x16xf32>, tensor<4x16x16xf32>, tensor<1x2xi32>) -> tensor<1x?x16xf32>
  func.return %0 : tensor<1x?x16xf32>
}

// -----

func.func @dynamic_conv_constant_padding(%x: tensor<1x8x16xf32>, %k: tensor<4x16x16xf32>) -> tensor<1x?x16xf32> {
  %p = stablehlo.constant dense<[[0, 0]]> : tensor<1x2xi32>
  // expected-error @+1 {{window_strides should have 1 elements, but has 2 elements}}
  %0 = "stablehlo.dynamic_conv"(%x, %k, %p) {batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>, feature_group_count = 1 : i64, window_strides = array<i64: 2, 2>} : (tensor<1x8x16xf32>, tensor<4x16x16xf32>, tensor<1x2xi32>) -> tensor<1x?x16xf32>
  func.return %0 : tensor<1x?x16xf32>
}
