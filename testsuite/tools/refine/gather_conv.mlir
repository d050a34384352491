// dynamic_gather of rows idx of x: 5 x n (slice sizes [1, n]);
// dynamic_conv (1-D, kernel 3, padding [1, 1]) of v: 1 x n x 1 through a
// private function (specialized by refine-shapes).
func.func public @main(%n: tensor<i64>, %x: tensor<5x?xf32>, %idx: tensor<2x1xi32>, %v: tensor<1x?x1xf32>, %w: tensor<3x1x1xf32>) -> (tensor<2x?xf32>, tensor<1x?x1xf32>) {
  %d1 = stablehlo.reshape %n : (tensor<i64>) -> tensor<1xi64>
  %one = stablehlo.constant dense<1> : tensor<1xi64>
  %sizes = stablehlo.concatenate %one, %d1, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %g = "stablehlo.dynamic_gather"(%x, %idx, %sizes) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>} : (tensor<5x?xf32>, tensor<2x1xi32>, tensor<2xi64>) -> tensor<2x?xf32>
  %c = func.call @conv(%n, %v, %w) : (tensor<i64>, tensor<1x?x1xf32>, tensor<3x1x1xf32>) -> tensor<1x?x1xf32>
  return %g, %c : tensor<2x?xf32>, tensor<1x?x1xf32>
}
func.func private @conv(%n: tensor<i64>, %v: tensor<1x?x1xf32>, %w: tensor<3x1x1xf32>) -> tensor<1x?x1xf32> {
  %pad = stablehlo.constant dense<[[1, 1]]> : tensor<1x2xi32>
  %c = "stablehlo.dynamic_conv"(%v, %w, %pad) {batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>, feature_group_count = 1 : i64, window_strides = array<i64: 1>} : (tensor<1x?x1xf32>, tensor<3x1x1xf32>, tensor<1x2xi32>) -> tensor<1x?x1xf32>
  return %c : tensor<1x?x1xf32>
}
