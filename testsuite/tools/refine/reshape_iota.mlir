// dynamic_reshape of x: n x 4 to [4n], plus dynamic_iota [n, 4] along 0.
func.func public @main(%n: tensor<i64>, %x: tensor<?x4xf32>) -> tensor<?xf32> {
  %d1 = stablehlo.reshape %n : (tensor<i64>) -> tensor<1xi64>
  %c4 = stablehlo.constant dense<4> : tensor<1xi64>
  %s = stablehlo.concatenate %d1, %c4, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %i = stablehlo.dynamic_iota %s, dim = 0 : (tensor<2xi64>) -> tensor<?x4xf32>
  %y = stablehlo.add %x, %i : tensor<?x4xf32>
  %m = stablehlo.multiply %d1, %c4 : tensor<1xi64>
  %r = stablehlo.dynamic_reshape %y, %m : (tensor<?x4xf32>, tensor<1xi64>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}
