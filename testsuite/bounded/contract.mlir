func.func @main(%x: tensor<DYNx4xf32BND>) -> (tensor<DYNx3xf32BND>, tensor<3xf32>, tensor<DYNx2x2xf32BND3>, tensor<3xDYNxf32BNDT>) {
  %w = stablehlo.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0], [1.5, 2.5, 3.5]]> : tensor<4x3xf32>
  %d = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<DYNx4xf32BND>, tensor<4x3xf32>) -> tensor<DYNx3xf32BND>
  %t = stablehlo.transpose %x, dims = [1, 0] : (tensor<DYNx4xf32BND>) -> tensor<4xDYNxf32BNDT>
  %w2 = stablehlo.constant dense<1.0> : tensor<3x4xf32>
  %c = stablehlo.dot_general %w2, %t, contracting_dims = [1] x [0] : (tensor<3x4xf32>, tensor<4xDYNxf32BNDT>) -> tensor<3xDYNxf32BNDT>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%c init: %z) applies stablehlo.add across dimensions = [1] : (tensor<3xDYNxf32BNDT>, tensor<f32>) -> tensor<3xf32>
  %r = stablehlo.reshape %x : (tensor<DYNx4xf32BND>) -> tensor<DYNx2x2xf32BND3>
  return %d, %s, %r, %c : tensor<DYNx3xf32BND>, tensor<3xf32>, tensor<DYNx2x2xf32BND3>, tensor<3xDYNxf32BNDT>
}
