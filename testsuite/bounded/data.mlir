func.func @main(%x: tensor<DYNx4xf32BND>, %y: tensor<DYNx4xf32BND>) -> (tensor<DYNx4xf32BNDC>, tensor<DYNx2xf32BND>, tensor<DYNx4xf32BNDQ>, tensor<DYNx4xf32BND>, tensor<2x4xf32>, tensor<DYNx4xf32BND>) {
  %c = stablehlo.concatenate %x, %y, dim = 0 : (tensor<DYNx4xf32BND>, tensor<DYNx4xf32BND>) -> tensor<DYNx4xf32BNDC>
  %s = stablehlo.slice %x [0:LIM, 1:4:2] : (tensor<DYNx4xf32BND>) -> tensor<DYNx2xf32BND>
  %pv = stablehlo.constant dense<7.0> : tensor<f32>
  %p = stablehlo.pad %x, %pv, low = [1, 0], high = [2, 0], interior = [1, 0] : (tensor<DYNx4xf32BND>, tensor<f32>) -> tensor<DYNx4xf32BNDQ>
  %r = stablehlo.reverse %x, dims = [0, 1] : tensor<DYNx4xf32BND>
  %i = stablehlo.constant dense<5> : tensor<i32>
  %z = stablehlo.constant dense<0> : tensor<i32>
  %d = stablehlo.dynamic_slice %x, %i, %z, sizes = [2, 4] : (tensor<DYNx4xf32BND>, tensor<i32>, tensor<i32>) -> tensor<2x4xf32>
  %u = stablehlo.dynamic_update_slice %y, %d, %i, %z : (tensor<DYNx4xf32BND>, tensor<2x4xf32>, tensor<i32>, tensor<i32>) -> tensor<DYNx4xf32BND>
  return %c, %s, %p, %r, %d, %u : tensor<DYNx4xf32BNDC>, tensor<DYNx2xf32BND>, tensor<DYNx4xf32BNDQ>, tensor<DYNx4xf32BND>, tensor<2x4xf32>, tensor<DYNx4xf32BND>
}
