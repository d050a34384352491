func.func @main(%x: tensor<DYNx4xf32BND>) -> (tensor<DYNx2xf32BNDS>, tensor<DYNx4xf32BNDQ>) {
  %n = stablehlo.get_dimension_size %x, dim = 0 : (tensor<DYNx4xf32BND>) -> tensor<i32>
  %n1 = stablehlo.reshape %n : (tensor<i32>) -> tensor<1xi32>
  %c4 = stablehlo.constant dense<[4]> : tensor<1xi32>
  %start = stablehlo.constant dense<[1, 0]> : tensor<2xi32>
  %limit = stablehlo.concatenate %n1, %c4, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %strides = stablehlo.constant dense<[2, 2]> : tensor<2xi32>
  %s = stablehlo.real_dynamic_slice %x, %start, %limit, %strides : (tensor<DYNx4xf32BND>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<DYNx2xf32BNDS>
  %pv = stablehlo.constant dense<7.0> : tensor<f32>
  %lo = stablehlo.constant dense<[1, 0]> : tensor<2xi32>
  %hi = stablehlo.constant dense<[2, 0]> : tensor<2xi32>
  %in = stablehlo.constant dense<[1, 0]> : tensor<2xi32>
  %p = stablehlo.dynamic_pad %x, %pv, %lo, %hi, %in : (tensor<DYNx4xf32BND>, tensor<f32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<DYNx4xf32BNDQ>
  return %s, %p : tensor<DYNx2xf32BNDS>, tensor<DYNx4xf32BNDQ>
}
