// dynamic_pad of x: n with low 1, high n, interior 1; real_dynamic_slice
// x[1:n, 0:4:2] of y: n x 4.
func.func public @main(%n: tensor<i64>, %x: tensor<?xf32>, %y: tensor<?x4xf32>) -> (tensor<?xf32>, tensor<?x2xf32>) {
  %d1 = stablehlo.reshape %n : (tensor<i64>) -> tensor<1xi64>
  %one = stablehlo.constant dense<1> : tensor<1xi64>
  %zero = stablehlo.constant dense<0.5> : tensor<f32>
  %p = stablehlo.dynamic_pad %x, %zero, %one, %d1, %one : (tensor<?xf32>, tensor<f32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?xf32>
  %z = stablehlo.constant dense<0> : tensor<1xi64>
  %c4 = stablehlo.constant dense<4> : tensor<1xi64>
  %c2 = stablehlo.constant dense<2> : tensor<1xi64>
  %start = stablehlo.concatenate %one, %z, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %limit = stablehlo.concatenate %d1, %c4, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %strides = stablehlo.concatenate %one, %c2, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %s = stablehlo.real_dynamic_slice %y, %start, %limit, %strides : (tensor<?x4xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x2xf32>
  return %p, %s : tensor<?xf32>, tensor<?x2xf32>
}
