func.func @main(%x: tensor<DYNx4xf32BND>) -> (tensor<DYNx4xf32BNDW>, tensor<1xDYNx4x1xf32BND4>) {
  %z = stablehlo.constant dense<-1.0e+30> : tensor<f32>
  %w = "stablehlo.reduce_window"(%x, %z) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) {window_dimensions = array<i64: 2, 1>} : (tensor<DYNx4xf32BND>, tensor<f32>) -> tensor<DYNx4xf32BNDW>
  %r = stablehlo.reshape %x : (tensor<DYNx4xf32BND>) -> tensor<1xDYNx4x1xf32BND4>
  %k = stablehlo.constant dense<[[[[1.0]], [[2.0]], [[3.0]]], [[[4.0]], [[5.0]], [[6.0]]], [[[7.0]], [[8.0]], [[9.0]]]]> : tensor<3x3x1x1xf32>
  %c = stablehlo.convolution(%r, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1xDYNx4x1xf32BND4>, tensor<3x3x1x1xf32>) -> tensor<1xDYNx4x1xf32BND4>
  return %w, %c : tensor<DYNx4xf32BNDW>, tensor<1xDYNx4x1xf32BND4>
}
