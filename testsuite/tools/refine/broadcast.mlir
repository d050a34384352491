// dynamic_broadcast_in_dim to [2, n, 4] of x: n x 4; plus get_dimension_size.
func.func public @main(%n: tensor<i64>, %x: tensor<?x4xf32>) -> (tensor<2x?x4xf32>, tensor<i32>) {
  %d = stablehlo.convert %n : (tensor<i64>) -> tensor<i32>
  %d1 = stablehlo.reshape %d : (tensor<i32>) -> tensor<1xi32>
  %c2 = stablehlo.constant dense<2> : tensor<1xi32>
  %c4 = stablehlo.constant dense<4> : tensor<1xi32>
  %s = stablehlo.concatenate %c2, %d1, %c4, dim = 0 : (tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<3xi32>
  %b = stablehlo.dynamic_broadcast_in_dim %x, %s, dims = [1, 2] : (tensor<?x4xf32>, tensor<3xi32>) -> tensor<2x?x4xf32>
  %g = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
  return %b, %g : tensor<2x?x4xf32>, tensor<i32>
}
