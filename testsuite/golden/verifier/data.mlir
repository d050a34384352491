// RUN: %verify-diagnostics %s
// Negative tests for reductions, contractions and linear algebra
// (ir/verify_data.c).

func.func @reduce_dims_range(%a: tensor<1x6xi64>, %init: tensor<i64>) -> tensor<1xi64> {
  // expected-error @+1 {{dimensions contains out-of-range dimension 2 (must be in [0, 2))}}
  %0 = "stablehlo.reduce"(%a, %init) ({
    ^bb0(%x: tensor<i64>, %y: tensor<i64>):
      %1 = stablehlo.add %x, %y : tensor<i64>
      stablehlo.return %1 : tensor<i64>
  }) {dimensions = array<i64: 2>} : (tensor<1x6xi64>, tensor<i64>) -> tensor<1xi64>
  func.return %0 : tensor<1xi64>
}

// -----

func.func @reduce_dims_dup(%a: tensor<1x6xi64>, %init: tensor<i64>) -> tensor<i64> {
  // expected-error @+1 {{dimensions contains duplicate dimension 1}}
  %0 = "stablehlo.reduce"(%a, %init) ({
    ^bb0(%x: tensor<i64>, %y: tensor<i64>):
      %1 = stablehlo.add %x, %y : tensor<i64>
      stablehlo.return %1 : tensor<i64>
  }) {dimensions = array<i64: 1, 1>} : (tensor<1x6xi64>, tensor<i64>) -> tensor<i64>
  func.return %0 : tensor<i64>
}

// -----

func.func @reduce_result_shape(%a: tensor<1x6xi64>, %init: tensor<i64>) -> tensor<6xi64> {
  // expected-error @+1 {{inferred shape [1] is incompatible with result #0 of type 'tensor<6xi64>'}}
  %0 = "stablehlo.reduce"(%a, %init) ({
    ^bb0(%x: tensor<i64>, %y: tensor<i64>):
      %1 = stablehlo.add %x, %y : tensor<i64>
      stablehlo.return %1 : tensor<i64>
  }) {dimensions = array<i64: 1>} : (tensor<1x6xi64>, tensor<i64>) -> tensor<6xi64>
  func.return %0 : tensor<6xi64>
}

// -----

func.func @reduce_pretty_shape(%a: tensor<2x3xf32>, %init: tensor<f32>) -> tensor<3xf32> {
  // expected-error @+1 {{inferred shape [2] is incompatible with result #0 of type 'tensor<3xf32>'}}
  %0 = stablehlo.reduce(%a init: %init) applies stablehlo.add across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}

// -----

func.func @reduce_body_returns(%a: tensor<1x6xi64>, %init: tensor<i64>) -> tensor<1xi64> {
  // expected-error @+1 {{reduction body must return 1 value(s), but returns 2}}
  %0 = "stablehlo.reduce"(%a, %init) ({
    ^bb0(%x: tensor<i64>, %y: tensor<i64>):
      %1 = stablehlo.add %x, %y : tensor<i64>
      stablehlo.return %1, %1 : tensor<i64>, tensor<i64>
  }) {dimensions = array<i64: 1>} : (tensor<1x6xi64>, tensor<i64>) -> tensor<1xi64>
  func.return %0 : tensor<1xi64>
}

// -----

func.func @reduce_body_params(%a: tensor<1x6xi64>, %init: tensor<i64>) -> tensor<1xi64> {
  // expected-error @+1 {{reduction body must take 2 parameters, but takes 3 parameter(s)}}
  %0 = "stablehlo.reduce"(%a, %init) ({
    ^bb0(%x: tensor<i64>, %y: tensor<i64>, %z: tensor<i64>):
      %1 = stablehlo.add %x, %y : tensor<i64>
      stablehlo.return %1 : tensor<i64>
  }) {dimensions = array<i64: 1>} : (tensor<1x6xi64>, tensor<i64>) -> tensor<1xi64>
  func.return %0 : tensor<1xi64>
}

// -----

func.func @reduce_body_return_type(%a: tensor<1x6xi64>, %init: tensor<i64>) -> tensor<1xi64> {
  // expected-error @+1 {{reduction body must return 'tensor<i64>' as value #0 (the type of parameter #0), but returns 'tensor<i32>'}}
  %0 = "stablehlo.reduce"(%a, %init) ({
    ^bb0(%x: tensor<i64>, %y: tensor<i64>):
      %1 = stablehlo.convert %x : (tensor<i64>) -> tensor<i32>
      stablehlo.return %1 : tensor<i32>
  }) {dimensions = array<i64: 1>} : (tensor<1x6xi64>, tensor<i64>) -> tensor<1xi64>
  func.return %0 : tensor<1xi64>
}

// -----

func.func @reduce_init_rank(%a: tensor<1x6xi64>, %init: tensor<1xi64>) -> tensor<1xi64> {
  // expected-error @+1 {{expects init value #0 to be a 0-dimensional tensor, but got 'tensor<1xi64>'}}
  %0 = "stablehlo.reduce"(%a, %init) ({
    ^bb0(%x: tensor<i64>, %y: tensor<i64>):
      %1 = stablehlo.add %x, %y : tensor<i64>
      stablehlo.return %1 : tensor<i64>
  }) {dimensions = array<i64: 1>} : (tensor<1x6xi64>, tensor<1xi64>) -> tensor<1xi64>
  func.return %0 : tensor<1xi64>
}

// -----

func.func @reduce_result_elem(%a: tensor<1x6xi64>, %init: tensor<i64>) -> tensor<1xi32> {
  // expected-error @+1 {{expects result #0 to have element type i64 (from the reduction body), but got 'tensor<1xi32>'}}
  %0 = "stablehlo.reduce"(%a, %init) ({
    ^bb0(%x: tensor<i64>, %y: tensor<i64>):
      %1 = stablehlo.add %x, %y : tensor<i64>
      stablehlo.return %1 : tensor<i64>
  }) {dimensions = array<i64: 1>} : (tensor<1x6xi64>, tensor<i64>) -> tensor<1xi32>
  func.return %0 : tensor<1xi32>
}

// -----

func.func @reduce_odd_operands(%a: tensor<1x6xi64>, %init: tensor<i64>) -> tensor<1xi64> {
  // expected-error @+1 {{expects an even number of operands (inputs and init values), but got 3}}
  %0 = "stablehlo.reduce"(%a, %a, %init) ({
    ^bb0(%x: tensor<i64>, %y: tensor<i64>):
      %1 = stablehlo.add %x, %y : tensor<i64>
      stablehlo.return %1 : tensor<i64>
  }) {dimensions = array<i64: 1>} : (tensor<1x6xi64>, tensor<1x6xi64>, tensor<i64>) -> tensor<1xi64>
  func.return %0 : tensor<1xi64>
}

// -----

func.func @reduce_window_shape(%a: tensor<8x9xf32>, %init: tensor<f32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{inferred shape [8, 9] is incompatible with result #0 of type 'tensor<8x8xf32>'}}
  %0 = "stablehlo.reduce_window"(%a, %init) <{padding = dense<[[0, 7], [0, 0]]> : tensor<2x2xi64>, window_dimensions = array<i64: 8, 1>}> ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %1 = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }) : (tensor<8x9xf32>, tensor<f32>) -> tensor<8x8xf32>
  func.return %0 : tensor<8x8xf32>
}

// -----

func.func @reduce_window_dims(%a: tensor<8x9xf32>, %init: tensor<f32>) -> tensor<8x9xf32> {
  // expected-error @+1 {{window_dimensions should have 2 elements (the input rank), but has 1 elements}}
  %0 = "stablehlo.reduce_window"(%a, %init) <{window_dimensions = array<i64: 8>}> ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %1 = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }) : (tensor<8x9xf32>, tensor<f32>) -> tensor<8x9xf32>
  func.return %0 : tensor<8x9xf32>
}

// -----

func.func @reduce_window_strides(%a: tensor<8x9xf32>, %init: tensor<f32>) -> tensor<8x9xf32> {
  // expected-error @+1 {{expects window_strides to be positive, but got [0, 1]}}
  %0 = "stablehlo.reduce_window"(%a, %init) <{window_dimensions = array<i64: 1, 1>, window_strides = array<i64: 0, 1>}> ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %1 = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }) : (tensor<8x9xf32>, tensor<f32>) -> tensor<8x9xf32>
  func.return %0 : tensor<8x9xf32>
}

// -----

func.func @reduce_window_padding(%a: tensor<8x9xf32>, %init: tensor<f32>) -> tensor<8x9xf32> {
  // expected-error @+1 {{expects padding to have shape [2, 2], but got [1, 2]}}
  %0 = "stablehlo.reduce_window"(%a, %init) <{padding = dense<[[0, 7]]> : tensor<1x2xi64>, window_dimensions = array<i64: 1, 1>}> ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %1 = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }) : (tensor<8x9xf32>, tensor<f32>) -> tensor<8x9xf32>
  func.return %0 : tensor<8x9xf32>
}

// -----

func.func @select_and_scatter_source(%a: tensor<4x4xf32>, %s: tensor<3x3xf32>, %init: tensor<f32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{expects source shape to be [2, 2] (the number of windows), but got 'tensor<3x3xf32>'}}
  %0 = "stablehlo.select_and_scatter"(%a, %s, %init) <{window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>}> ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %1 = stablehlo.compare  GE, %x, %y,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  }, {
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %1 = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }) : (tensor<4x4xf32>, tensor<3x3xf32>, tensor<f32>) -> tensor<4x4xf32>
  func.return %0 : tensor<4x4xf32>
}

// -----

func.func @select_and_scatter_select(%a: tensor<4x4xf32>, %s: tensor<2x2xf32>, %init: tensor<f32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{select region must return tensor<i1>, but returns 'tensor<f32>'}}
  %0 = "stablehlo.select_and_scatter"(%a, %s, %init) <{window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>}> ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %1 = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }, {
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %1 = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }) : (tensor<4x4xf32>, tensor<2x2xf32>, tensor<f32>) -> tensor<4x4xf32>
  func.return %0 : tensor<4x4xf32>
}

// -----

func.func @dot_general_contracting(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<2x5xf32> {
  // expected-error @+1 {{contracting dimension sizes must match for lhs/rhs: lhs dimension 1 has size 3, rhs dimension 0 has size 4}}
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  func.return %0 : tensor<2x5xf32>
}

// -----

func.func @dot_general_result(%a: tensor<2x3xf32>, %b: tensor<3x5xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{inferred shape [2, 5] is incompatible with result #0 of type 'tensor<2x4xf32>' (dimension 1)}}
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x4xf32>
  func.return %0 : tensor<2x4xf32>
}

// -----

func.func @dot_general_batch_count(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x3x2x5xf32> {
  // expected-error @+1 {{lhs and rhs should have the same number of batching dimensions (1 vs 0)}}
  %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>} : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x2x5xf32>
  func.return %0 : tensor<2x3x2x5xf32>
}

// -----

func.func @dot_general_batch_size(%a: tensor<2x3x4xf32>, %b: tensor<3x4x5xf32>) -> tensor<2x3x5xf32> {
  // expected-error @+1 {{batching dimension sizes must match for lhs/rhs: lhs dimension 0 has size 2, rhs dimension 0 has size 3}}
  %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x3x4xf32>, tensor<3x4x5xf32>) -> tensor<2x3x5xf32>
  func.return %0 : tensor<2x3x5xf32>
}

// -----

func.func @dot_general_range(%a: tensor<2x3xf32>, %b: tensor<3x5xf32>) -> tensor<2x5xf32> {
  // expected-error @+1 {{lhs_contracting_dimensions contains out-of-range dimension 2 (must be in [0, 2))}}
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [2] x [0] : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x5xf32>
  func.return %0 : tensor<2x5xf32>
}

// -----

func.func @dot_general_dup(%a: tensor<3x3xf32>, %b: tensor<3x3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{has duplicated dimension 0 in lhs_batching_dimensions and lhs_contracting_dimensions}}
  %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [1]>} : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}

// -----

func.func @dot_general_no_dims(%a: tensor<2x3xf32>, %b: tensor<3x5xf32>) -> tensor<2x5xf32> {
  // expected-error @+1 {{requires attribute 'dot_dimension_numbers'}}
  %0 = "stablehlo.dot_general"(%a, %b) : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x5xf32>
  func.return %0 : tensor<2x5xf32>
}

// -----

func.func @dot_general_elem(%a: tensor<2x3xf32>, %b: tensor<3x5xf16>) -> tensor<2x5xf32> {
  // expected-error @+1 {{expects lhs and rhs to have the same element type, but got 'tensor<2x3xf32>' and 'tensor<3x5xf16>'}}
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x5xf16>) -> tensor<2x5xf32>
  func.return %0 : tensor<2x5xf32>
}

// -----

func.func @dot_general_precision(%a: tensor<2x3xf32>, %b: tensor<3x5xf32>) -> tensor<2x5xf32> {
  // expected-error @+1 {{expects precision config to be empty or have <= 2 elements, but got 3}}
  %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>, #stablehlo<precision HIGH>]} : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x5xf32>
  func.return %0 : tensor<2x5xf32>
}

// -----

func.func @dot_rank(%a: tensor<2x3x4xf32>, %b: tensor<4xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{expects lhs and rhs of rank 1 or 2}}
  %0 = stablehlo.dot %a, %b : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

func.func @dot_result(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{inferred shape [2] is incompatible with result #0 of type 'tensor<3xf32>'}}
  %0 = stablehlo.dot %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}

// -----

func.func @conv_result(%a: tensor<1x4x4x2xf32>, %k: tensor<3x3x2x5xf32>) -> tensor<1x3x2x5xf32> {
  // expected-error @+1 {{inferred shape [1, 2, 2, 5] is incompatible with result #0 of type 'tensor<1x3x2x5xf32>'}}
  %0 = stablehlo.convolution(%a, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[0, 0], [0, 0]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x4x2xf32>, tensor<3x3x2x5xf32>) -> tensor<1x3x2x5xf32>
  func.return %0 : tensor<1x3x2x5xf32>
}

// -----

func.func @conv_padded_result(%a: tensor<1x16x16x2xf32>, %k: tensor<2x3x2x2xf32>) -> tensor<1x32x32x2xf32> {
  // expected-error @+1 {{inferred shape [1, 32, 33, 2] is incompatible with result #0 of type 'tensor<1x32x32x2xf32>' (dimension 2)}}
  %0 = stablehlo.convolution(%a, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {pad = [[1, 1], [2, 2]], lhs_dilate = [2, 2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x16x16x2xf32>, tensor<2x3x2x2xf32>) -> tensor<1x32x32x2xf32>
  func.return %0 : tensor<1x32x32x2xf32>
}

// -----

func.func @conv_input_feature(%a: tensor<1x4x4x2xf32>, %k: tensor<3x3x3x5xf32>) -> tensor<1x2x2x5xf32> {
  // expected-error @+1 {{expects input feature dimension (2) / feature_group_count = kernel input feature dimension (3)}}
  %0 = stablehlo.convolution(%a, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x4x2xf32>, tensor<3x3x3x5xf32>) -> tensor<1x2x2x5xf32>
  func.return %0 : tensor<1x2x2x5xf32>
}

// -----

func.func @conv_groups(%a: tensor<2x4x4x2xf32>, %k: tensor<3x3x1x4xf32>) -> tensor<1x2x2x4xf32> {
  // expected-error @+1 {{expects batch_group_count and feature_group_count not to be both greater than 1}}
  %0 = stablehlo.convolution(%a, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1]} {batch_group_count = 2 : i64, feature_group_count = 2 : i64} : (tensor<2x4x4x2xf32>, tensor<3x3x1x4xf32>) -> tensor<1x2x2x4xf32>
  func.return %0 : tensor<1x2x2x4xf32>
}

// -----

func.func @conv_stride(%a: tensor<1x4x4x2xf32>, %k: tensor<3x3x2x5xf32>) -> tensor<1x2x2x5xf32> {
  // expected-error @+1 {{expects window_strides to be positive, but got [0, 1]}}
  %0 = stablehlo.convolution(%a, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [0, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x4x2xf32>, tensor<3x3x2x5xf32>) -> tensor<1x2x2x5xf32>
  func.return %0 : tensor<1x2x2x5xf32>
}

// -----

func.func @conv_ranks(%a: tensor<1x4x4x2xf32>, %k: tensor<3x2x5xf32>) -> tensor<1x2x2x5xf32> {
  // expected-error @+1 {{expects convolution arguments to have same number of dimensions}}
  %0 = "stablehlo.convolution"(%a, %k) {dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x4x2xf32>, tensor<3x2x5xf32>) -> tensor<1x2x2x5xf32>
  func.return %0 : tensor<1x2x2x5xf32>
}

// -----

func.func @fft_rfft_elem(%a: tensor<4xf32>) -> tensor<3xcomplex<f64>> {
  // expected-error @+1 {{RFFT does not map operand element type f32 to result element type complex<f64>}}
  %0 = stablehlo.fft %a, type = RFFT, length = [4] : (tensor<4xf32>) -> tensor<3xcomplex<f64>>
  func.return %0 : tensor<3xcomplex<f64>>
}

// -----

func.func @fft_rfft_shape(%a: tensor<4xf32>) -> tensor<4xcomplex<f32>> {
  // expected-error @+1 {{inferred shape [3] is incompatible with result #0 of type 'tensor<4xcomplex<f32>>'}}
  %0 = stablehlo.fft %a, type = RFFT, length = [4] : (tensor<4xf32>) -> tensor<4xcomplex<f32>>
  func.return %0 : tensor<4xcomplex<f32>>
}

// -----

func.func @fft_length_size(%a: tensor<2x2x2x2xcomplex<f32>>) -> tensor<2x2x2x2xcomplex<f32>> {
  // expected-error @+1 {{fft_length must have 1 to 3 elements, but has 4}}
  %0 = stablehlo.fft %a, type = FFT, length = [2, 2, 2, 2] : (tensor<2x2x2x2xcomplex<f32>>) -> tensor<2x2x2x2xcomplex<f32>>
  func.return %0 : tensor<2x2x2x2xcomplex<f32>>
}

// -----

func.func @fft_rfft_length(%a: tensor<8xf32>) -> tensor<5xcomplex<f32>> {
  // expected-error @+1 {{expects the trailing dimensions of the real operand to be fft_length [4]}}
  %0 = stablehlo.fft %a, type = RFFT, length = [4] : (tensor<8xf32>) -> tensor<5xcomplex<f32>>
  func.return %0 : tensor<5xcomplex<f32>>
}

// -----

func.func @fft_irfft_shape(%a: tensor<4xcomplex<f32>>) -> tensor<8xf32> {
  // expected-error @+1 {{expects the last operand dimension to be 5 for a result of 'tensor<8xf32>'}}
  %0 = stablehlo.fft %a, type = IRFFT, length = [8] : (tensor<4xcomplex<f32>>) -> tensor<8xf32>
  func.return %0 : tensor<8xf32>
}

// -----

func.func @fft_on_real(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{FFT does not map operand element type f32 to result element type f32}}
  %0 = stablehlo.fft %a, type = FFT, length = [4] : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----

func.func @sort_comparator_result(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{comparator must return tensor<i1>, but returns 'tensor<f32>'}}
  %0 = "stablehlo.sort"(%a) <{dimension = 0 : i64}> ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %1 = stablehlo.subtract %x, %y : tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----

func.func @sort_dimension(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{dimension attribute value must be in range [-1, 1), but found 2}}
  %0 = "stablehlo.sort"(%a) <{dimension = 2 : i64}> ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %1 = stablehlo.compare  LT, %x, %y,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  }) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----

func.func @sort_result(%a: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{expects result #0 to have the type of input #0, but got 'tensor<4xf16>' and 'tensor<4xf32>'}}
  %0 = "stablehlo.sort"(%a) <{dimension = 0 : i64}> ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %1 = stablehlo.compare  LT, %x, %y,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  }) : (tensor<4xf32>) -> tensor<4xf16>
  func.return %0 : tensor<4xf16>
}

// -----

func.func @sort_comparator_params(%a: tensor<4xf32>, %b: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>) {
  // expected-error @+1 {{comparator must take 4 parameters, but takes 2 parameter(s)}}
  %0:2 = "stablehlo.sort"(%a, %b) <{dimension = 0 : i64}> ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %1 = stablehlo.compare  LT, %x, %y,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  }) : (tensor<4xf32>, tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>)
  func.return %0#0, %0#1 : tensor<4xf32>, tensor<4xi32>
}

// -----

func.func @cholesky_rank(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{argument 'a' must have rank >= 2, got shape [4]}}
  %0 = "stablehlo.cholesky"(%a) {lower = true} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----

func.func @cholesky_square(%a: tensor<3x4xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{minor dimensions of 'a' must have equal size, got shape [3, 4]}}
  %0 = "stablehlo.cholesky"(%a) {lower = true} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  func.return %0 : tensor<3x4xf32>
}

// -----

func.func @triangular_solve_shared(%a: tensor<4x4xf32>, %b: tensor<3x1xf32>) -> tensor<3x1xf32> {
  // expected-error @+1 {{shared dimension of operands 'a' and 'b' does not match}}
  %0 = "stablehlo.triangular_solve"(%a, %b) <{left_side = true, lower = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = true}> : (tensor<4x4xf32>, tensor<3x1xf32>) -> tensor<3x1xf32>
  func.return %0 : tensor<3x1xf32>
}

// -----

func.func @triangular_solve_int(%a: tensor<4x4xi32>, %b: tensor<4x1xf32>) -> tensor<4x1xf32> {
  // expected-error @+1 {{operand #0 must be tensor of floating-point or complex values}}
  %0 = "stablehlo.triangular_solve"(%a, %b) <{left_side = true, lower = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = true}> : (tensor<4x4xi32>, tensor<4x1xf32>) -> tensor<4x1xf32>
  func.return %0 : tensor<4x1xf32>
}

// -----

func.func @batch_norm_feature_index(%x: tensor<2x3xf32>, %s: tensor<3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{expects feature_index to be smaller than the rank of operand type; got feature_index 3, and rank 2.}}
  %0 = "stablehlo.batch_norm_inference"(%x, %s, %s, %s, %s) {epsilon = 1.0e-3 : f32, feature_index = 3 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

func.func @batch_norm_scale(%x: tensor<2x3xf32>, %s: tensor<2xf32>, %t: tensor<3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{expects operand #1 to be a 1-dimensional tensor of size 3 (the feature dimension), but got 'tensor<2xf32>'}}
  %0 = "stablehlo.batch_norm_inference"(%x, %s, %t, %t, %t) {epsilon = 1.0e-3 : f32, feature_index = 1 : i64} : (tensor<2x3xf32>, tensor<2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

func.func @batch_norm_epsilon(%x: tensor<2x3xf32>, %s: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) {
  // expected-error @+1 {{requires attribute 'epsilon'}}
  %0:3 = "stablehlo.batch_norm_training"(%x, %s, %s) {feature_index = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>)
  func.return %0#0, %0#1, %0#2 : tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

func.func @rng_bit_generator_state(%s: tensor<3xui64>) -> (tensor<3xui64>, tensor<4xui32>) {
  // expected-error @+1 {{output state shape must be compatible with [2], but got 'tensor<3xui64>'}}
  %0:2 = stablehlo.rng_bit_generator %s, algorithm = THREE_FRY : (tensor<3xui64>) -> (tensor<3xui64>, tensor<4xui32>)
  func.return %0#0, %0#1 : tensor<3xui64>, tensor<4xui32>
}

// -----

func.func @rng_bit_generator_state_type(%s: tensor<2xui64>) -> (tensor<3xui64>, tensor<4xui32>) {
  // expected-error @+1 {{output state shape must be compatible with initial state shape}}
  %0:2 = stablehlo.rng_bit_generator %s, algorithm = DEFAULT : (tensor<2xui64>) -> (tensor<3xui64>, tensor<4xui32>)
  func.return %0#0, %0#1 : tensor<3xui64>, tensor<4xui32>
}

// -----

func.func @rng_normal_int(%a: tensor<i32>, %shape: tensor<1xi64>) -> tensor<4xi32> {
  // expected-error @+1 {{NORMAL distribution requires floating-point operands}}
  %0 = "stablehlo.rng"(%a, %a, %shape) {rng_distribution = #stablehlo<rng_distribution NORMAL>} : (tensor<i32>, tensor<i32>, tensor<1xi64>) -> tensor<4xi32>
  func.return %0 : tensor<4xi32>
}
