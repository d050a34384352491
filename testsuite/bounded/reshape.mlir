func.func @main(%x: tensor<DYNx2xf32BND>) -> (tensor<2xDYNxf32BNDT>, tensor<3xDYNxf32BNDT2>) {
  %r = stablehlo.reshape %x : (tensor<DYNx2xf32BND>) -> tensor<2xDYNxf32BNDT>
  %t = stablehlo.transpose %x, dims = [1, 0] : (tensor<DYNx2xf32BND>) -> tensor<2xDYNxf32BNDT>
  %c = stablehlo.concatenate %t, %t, %t, dim = 0 : (tensor<2xDYNxf32BNDT>, tensor<2xDYNxf32BNDT>, tensor<2xDYNxf32BNDT>) -> tensor<6xDYNxf32BNDT>
  %q = stablehlo.reshape %c : (tensor<6xDYNxf32BNDT>) -> tensor<3xDYNxf32BNDT2>
  return %r, %q : tensor<2xDYNxf32BNDT>, tensor<3xDYNxf32BNDT2>
}
