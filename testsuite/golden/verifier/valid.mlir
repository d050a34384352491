// RUN: %verify-diagnostics %s
// Valid programs the per-op rules must accept: dynamic dimensions, unranked
// tensors, edge cases of the spec (negative padding, empty windows, zero
// sizes), and every legacy attribute encoding.

func.func @dynamic_elementwise(%a: tensor<?x3xf32>, %b: tensor<2x?xf32>) -> tensor<2x3xf32> {
  %0 = "stablehlo.add"(%a, %b) : (tensor<?x3xf32>, tensor<2x?xf32>) -> tensor<2x3xf32>
  %1 = "stablehlo.multiply"(%0, %a) : (tensor<2x3xf32>, tensor<?x3xf32>) -> tensor<?x?xf32>
  %2 = "stablehlo.subtract"(%1, %0) : (tensor<?x?xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %2 : tensor<2x3xf32>
}

// -----

func.func @unranked(%a: tensor<*xf32>, %b: tensor<2x3xf32>) -> tensor<*xf32> {
  %0 = "stablehlo.add"(%a, %b) : (tensor<*xf32>, tensor<2x3xf32>) -> tensor<*xf32>
  %1 = "stablehlo.convert"(%0) : (tensor<*xf32>) -> tensor<*xi32>
  %2 = "stablehlo.convert"(%1) : (tensor<*xi32>) -> tensor<*xf32>
  func.return %2 : tensor<*xf32>
}

// -----

func.func @element_classes(%i: tensor<4xi32>, %u: tensor<4xui8>, %p: tensor<4xi1>, %f: tensor<4xbf16>, %c: tensor<4xcomplex<f64>>) -> tensor<4xi1> {
  %0 = stablehlo.add %p, %p : tensor<4xi1>
  %1 = stablehlo.multiply %p, %0 : tensor<4xi1>
  %2 = stablehlo.negate %u : tensor<4xui8>
  %3 = stablehlo.popcnt %u : tensor<4xui8>
  %4 = stablehlo.abs %i : tensor<4xi32>
  %5 = stablehlo.abs %c : (tensor<4xcomplex<f64>>) -> tensor<4xf64>
  %6 = stablehlo.real %c : (tensor<4xcomplex<f64>>) -> tensor<4xf64>
  %7 = stablehlo.imag %f : (tensor<4xbf16>) -> tensor<4xbf16>
  %8 = "stablehlo.complex"(%5, %6) : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xcomplex<f64>>
  %9 = stablehlo.is_finite %f : (tensor<4xbf16>) -> tensor<4xi1>
  %10 = stablehlo.not %p : tensor<4xi1>
  %11 = stablehlo.shift_right_logical %u, %u : tensor<4xui8>
  %12 = stablehlo.sqrt %c : tensor<4xcomplex<f64>>
  %13 = stablehlo.compare  EQ, %p, %p,  UNSIGNED : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %14 = stablehlo.compare  LT, %f, %f,  TOTALORDER : (tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xi1>
  %15 = stablehlo.compare  NE, %c, %c,  FLOAT : (tensor<4xcomplex<f64>>, tensor<4xcomplex<f64>>) -> tensor<4xi1>
  %16 = stablehlo.compare  GT, %i, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  %17 = stablehlo.sign %i : tensor<4xi32>
  func.return %13 : tensor<4xi1>
}

// -----

func.func @select_clamp_bitcast(%p: tensor<i1>, %a: tensor<2x3xf32>, %lo: tensor<f32>) -> tensor<2x3x4xi8> {
  %0 = stablehlo.select %p, %a, %a : tensor<i1>, tensor<2x3xf32>
  %1 = stablehlo.clamp %lo, %0, %lo : (tensor<f32>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %2 = stablehlo.bitcast_convert %1 : (tensor<2x3xf32>) -> tensor<2x3x4xi8>
  %3 = stablehlo.bitcast_convert %2 : (tensor<2x3x4xi8>) -> tensor<2x3xf32>
  %4 = stablehlo.bitcast_convert %3 : (tensor<2x3xf32>) -> tensor<2x3xi32>
  func.return %2 : tensor<2x3x4xi8>
}

// -----

func.func @shapes(%a: tensor<3xf32>, %p: tensor<f32>, %i: tensor<i32>, %b: tensor<2x?xf32>) -> tensor<7xf32> {
  %0 = stablehlo.broadcast_in_dim %a, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
  %1 = "stablehlo.broadcast_in_dim"(%p) {broadcast_dimensions = dense<> : tensor<0xi64>} : (tensor<f32>) -> tensor<4x4xf32>
  %2 = "stablehlo.broadcast_in_dim"(%0) {broadcast_dimensions = dense<[0, 1]> : tensor<2xi64>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = stablehlo.broadcast_in_dim %b, dims = [0, 1] : (tensor<2x?xf32>) -> tensor<2x5xf32>
  %4 = stablehlo.reshape %0 : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %5 = stablehlo.transpose %0, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %6 = stablehlo.slice %a [1:3] : (tensor<3xf32>) -> tensor<2xf32>
  %7 = "stablehlo.slice"(%a) {start_indices = array<i64: 0>, limit_indices = array<i64: 3>, strides = array<i64: 2>} : (tensor<3xf32>) -> tensor<2xf32>
  %8 = stablehlo.concatenate %6, %7, %a, dim = 0 : (tensor<2xf32>, tensor<2xf32>, tensor<3xf32>) -> tensor<7xf32>
  %9 = stablehlo.pad %a, %p, low = [1], high = [-1], interior = [2] : (tensor<3xf32>, tensor<f32>) -> tensor<7xf32>
  %10 = stablehlo.pad %a, %p, low = [0], high = [0], interior = [5] : (tensor<3xf32>, tensor<f32>) -> tensor<13xf32>
  %11 = stablehlo.dynamic_slice %a, %i, sizes = [2] : (tensor<3xf32>, tensor<i32>) -> tensor<2xf32>
  %12 = stablehlo.dynamic_update_slice %a, %11, %i : (tensor<3xf32>, tensor<2xf32>, tensor<i32>) -> tensor<3xf32>
  %13 = stablehlo.iota dim = 1 : tensor<2x3xi32>
  %14 = stablehlo.reverse %0, dims = [0, 1] : tensor<2x3xf32>
  %15 = stablehlo.concatenate %b, %b, dim = 1 : (tensor<2x?xf32>, tensor<2x?xf32>) -> tensor<2x?xf32>
  %16 = stablehlo.get_dimension_size %b, dim = 1 : (tensor<2x?xf32>) -> tensor<i32>
  %17 = stablehlo.reshape %p : (tensor<f32>) -> tensor<1x1xf32>
  %18 = "stablehlo.broadcast"(%a) {broadcast_sizes = array<i64: 2>} : (tensor<3xf32>) -> tensor<2x3xf32>
  func.return %9 : tensor<7xf32>
}

// -----

func.func @zero_sized(%a: tensor<0x3xf32>, %p: tensor<f32>) -> tensor<0x3xf32> {
  %0 = stablehlo.pad %a, %p, low = [0, 0], high = [0, 0], interior = [3, 0] : (tensor<0x3xf32>, tensor<f32>) -> tensor<0x3xf32>
  %1 = stablehlo.reshape %0 : (tensor<0x3xf32>) -> tensor<3x0xf32>
  func.return %0 : tensor<0x3xf32>
}

// -----

func.func @tuples(%a: tensor<2xf64>, %b: tensor<i64>) -> tensor<i64> {
  %0 = stablehlo.tuple %b : tuple<tensor<i64>>
  %1 = stablehlo.tuple %a, %0 : tuple<tensor<2xf64>, tuple<tensor<i64>>>
  %2 = stablehlo.get_tuple_element %1[1] : (tuple<tensor<2xf64>, tuple<tensor<i64>>>) -> tuple<tensor<i64>>
  %3 = stablehlo.get_tuple_element %2[0] : (tuple<tensor<i64>>) -> tensor<i64>
  func.return %3 : tensor<i64>
}

// -----

func.func @gather_scatter(%operand: tensor<3x4x2xi64>, %idx: tensor<2x3x2xi64>, %upd: tensor<2x3x2x2xi64>, %v: tensor<3xi64>, %j: tensor<1x1xi32>) -> tensor<2x3x2x2xi64> {
  %0 = "stablehlo.gather"(%operand, %idx) {
    dimension_numbers = #stablehlo.gather<offset_dims = [2, 3], collapsed_slice_dims = [0], start_index_map = [1, 0], index_vector_dim = 2>,
    slice_sizes = array<i64: 1, 2, 2>, indices_are_sorted = false
  } : (tensor<3x4x2xi64>, tensor<2x3x2xi64>) -> tensor<2x3x2x2xi64>
  %1 = "stablehlo.gather"(%v, %j) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1>}> : (tensor<3xi64>, tensor<1x1xi32>) -> tensor<1xi64>
  %2 = "stablehlo.scatter"(%operand, %idx, %upd) ({
    ^bb0(%x: tensor<i64>, %y: tensor<i64>):
      %s = stablehlo.add %x, %y : tensor<i64>
      stablehlo.return %s : tensor<i64>
  }) {
    scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2, 3], inserted_window_dims = [0], scatter_dims_to_operand_dims = [1, 0], index_vector_dim = 2>,
    indices_are_sorted = false, unique_indices = false
  } : (tensor<3x4x2xi64>, tensor<2x3x2xi64>, tensor<2x3x2x2xi64>) -> tensor<3x4x2xi64>
  func.return %0 : tensor<2x3x2x2xi64>
}

// -----

func.func @gather_batching(%operand: tensor<2x3x4x2xi64>, %idx: tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi64> {
  %0 = "stablehlo.gather"(%operand, %idx) {
    dimension_numbers = #stablehlo.gather<offset_dims = [3, 4], collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [1], start_index_map = [2, 1], index_vector_dim = 3>,
    slice_sizes = array<i64: 1, 1, 2, 2>, indices_are_sorted = false
  } : (tensor<2x3x4x2xi64>, tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi64>
  func.return %0 : tensor<2x2x3x2x2xi64>
}

// -----

func.func @reductions(%a: tensor<8x9xf32>, %init: tensor<f32>, %b: tensor<20x20xi1>, %c: tensor<i1>) -> tensor<i1> {
  %0 = "stablehlo.reduce_window"(%a, %init) <{padding = dense<[[0, 7], [0, 0]]> : tensor<2x2xi64>, window_dimensions = array<i64: 8, 1>}> ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.maximum %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<8x9xf32>, tensor<f32>) -> tensor<8x9xf32>
  %1 = "stablehlo.reduce_window"(%a, %init) <{window_dimensions = array<i64: 10, 1>}> ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<8x9xf32>, tensor<f32>) -> tensor<0x9xf32>
  %2 = stablehlo.reduce(%b init: %c) applies stablehlo.or across dimensions = [0, 1] : (tensor<20x20xi1>, tensor<i1>) -> tensor<i1>
  %3 = stablehlo.reduce(%a init: %init) applies stablehlo.add across dimensions = [0] : (tensor<8x9xf32>, tensor<f32>) -> tensor<9xf32>
  func.return %2 : tensor<i1>
}

// -----

func.func @contractions(%a: tensor<4x3xbf16>, %b: tensor<3x6xbf16>, %x: tensor<1x16x16x2xf32>, %k: tensor<2x3x2x2xf32>) -> tensor<1x32x33x2xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<4x3xbf16>, tensor<3x6xbf16>) -> tensor<4x6xbf16>
  %1 = stablehlo.dot %a, %b : (tensor<4x3xbf16>, tensor<3x6xbf16>) -> tensor<4x6xbf16>
  %2 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {pad = [[1, 1], [2, 2]], lhs_dilate = [2, 2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x16x16x2xf32>, tensor<2x3x2x2xf32>) -> tensor<1x32x33x2xf32>
  func.return %2 : tensor<1x32x33x2xf32>
}

// -----

func.func @fft(%a: tensor<14x15x0x17xcomplex<f64>>, %b: tensor<4x8xf32>) -> tensor<14x15x0x33xf64> {
  %0 = stablehlo.fft %a, type =  IRFFT, length = [33] : (tensor<14x15x0x17xcomplex<f64>>) -> tensor<14x15x0x33xf64>
  %1 = stablehlo.fft %b, type = RFFT, length = [8] : (tensor<4x8xf32>) -> tensor<4x5xcomplex<f32>>
  %2 = stablehlo.fft %1, type = FFT, length = [5] : (tensor<4x5xcomplex<f32>>) -> tensor<4x5xcomplex<f32>>
  func.return %0 : tensor<14x15x0x33xf64>
}

// -----

func.func @control(%a: tensor<i64>, %p: tensor<i1>) -> tensor<i64> {
  %0 = stablehlo.while(%it = %a) : tensor<i64>
   cond {
    %c = stablehlo.compare  LT, %it, %it,  SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    stablehlo.return %it : tensor<i64>
  }
  %1 = "stablehlo.if"(%p) ({
    stablehlo.return %0 : tensor<i64>
  }, {
    stablehlo.return %a : tensor<i64>
  }) : (tensor<i1>) -> tensor<i64>
  func.return %1 : tensor<i64>
}

// -----

func.func @sort(%a: tensor<2x3xi64>, %b: tensor<2x3xf32>) -> tensor<2x3xi64> {
  %0:2 = "stablehlo.sort"(%a, %b) ({
    ^bb0(%w: tensor<i64>, %x: tensor<i64>, %y: tensor<f32>, %z: tensor<f32>):
      %c = stablehlo.compare GT, %w, %x : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
  }) {dimension = -1 : i64, is_stable = true} : (tensor<2x3xi64>, tensor<2x3xf32>) -> (tensor<2x3xi64>, tensor<2x3xf32>)
  func.return %0#0 : tensor<2x3xi64>
}

// -----

func.func @checks(%a: tensor<2xf32>) {
  stablehlo.custom_call @check.expect_close(%a, %a) {has_side_effect = true} : (tensor<2xf32>, tensor<2xf32>) -> ()
  check.expect_almost_eq_const %a, dense<[1.0, 2.0]> : tensor<2xf32>
  check.expect_eq %a, %a : tensor<2xf32>
  func.return
}

// -----

func.func @top_k(%a: tensor<5x3xbf16>) -> (tensor<5x2xbf16>, tensor<5x2xi32>) {
  %values, %indices = chlo.top_k(%a, k = 2) : tensor<5x3xbf16> -> (tensor<5x2xbf16>, tensor<5x2xi32>)
  func.return %values, %indices : tensor<5x2xbf16>, tensor<5x2xi32>
}

// -----

func.func @attribute_encodings(%x: tensor<1x4x4x2xf32>, %k: tensor<3x3x2x5xf32>, %s: tensor<2xui64>, %a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<1x2x2x5xf32> {
  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x2xf32>, tensor<3x3x2x5xf32>) -> tensor<1x2x2x5xf32>
  %1 = "stablehlo.convolution"(%x, %k) {dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, window_strides = dense<1> : tensor<2xi64>, padding = dense<0> : tensor<2x2xi64>, window_reversal = dense<false> : tensor<2xi1>, lhs_dilation = array<i64: 1, 1>, batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x4x2xf32>, tensor<3x3x2x5xf32>) -> tensor<1x2x2x5xf32>
  %2:2 = stablehlo.rng_bit_generator %s, algorithm = PHILOX : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4x4xui32>)
  %3 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0], precision = [DEFAULT, HIGHEST] : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %4 = stablehlo.dot %a, %b, precision = [HIGH, HIGH] : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %5 = "stablehlo.all_reduce"(%a) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, use_global_device_ids}> ({
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    %r = stablehlo.add %p, %q : tensor<f32>
    stablehlo.return %r : tensor<f32>
  }) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %6 = "stablehlo.reduce_scatter"(%a) ({
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    %r = stablehlo.add %p, %q : tensor<f32>
    stablehlo.return %r : tensor<f32>
  }) {scatter_dimension = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>} : (tensor<4x4xf32>) -> tensor<1x4xf32>
  %7 = "stablehlo.all_to_all"(%a) {split_dimension = 1 : i64, concat_dimension = 0 : i64, split_count = 2 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4x4xf32>) -> tensor<8x2xf32>
  %8 = "stablehlo.collective_broadcast"(%a) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %9 = "stablehlo.triangular_solve"(%a, %b) {left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose ADJOINT>} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %10 = "stablehlo.cholesky"(%a) {lower = true} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %11 = stablehlo.custom_call @foo(%a) {api_version = 4 : i32, backend_config = {x = 1 : i32}} : (tensor<4x4xf32>) -> tuple<tensor<4x4xf32>, tensor<i32>>
  %12 = stablehlo.custom_call @bar(%a) {backend_config = "abc", called_computations = [@attribute_encodings]} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  func.return %0 : tensor<1x2x2x5xf32>
}

// -----

func.func @bounded(%a: tensor<?x4xf32, #stablehlo.bounds<8, ?>>, %b: tensor<8x4xf32>) -> tensor<?x4xf32, #stablehlo.bounds<8, ?>> {
  %0 = "stablehlo.add"(%a, %b) : (tensor<?x4xf32, #stablehlo.bounds<8, ?>>, tensor<8x4xf32>) -> tensor<?x4xf32, #stablehlo.bounds<8, ?>>
  %1 = stablehlo.transpose %0, dims = [1, 0] : (tensor<?x4xf32, #stablehlo.bounds<8, ?>>) -> tensor<4x?xf32, #stablehlo.bounds<?, 8>>
  func.return %0 : tensor<?x4xf32, #stablehlo.bounds<8, ?>>
}
