func.func private @scale(%v: tensor<DYNxf32BND1>, %k: tensor<f32>) -> tensor<DYNxf32BND1> {
  %b = stablehlo.broadcast_in_dim %k, dims = [] : (tensor<f32>) -> tensor<DYNxf32BND1>
  %m = stablehlo.multiply %v, %b : tensor<DYNxf32BND1>
  return %m : tensor<DYNxf32BND1>
}
func.func @main(%x: tensor<DYNxf32BND1>) -> (tensor<DYNxf32BND1>, tensor<f32>) {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %two = stablehlo.constant dense<2.0> : tensor<f32>
  %fz = stablehlo.constant dense<0.0> : tensor<f32>
  %w:2 = stablehlo.while(%i = %zero, %v = %x) : tensor<i32>, tensor<DYNxf32BND1>
    cond {
      %three = stablehlo.constant dense<3> : tensor<i32>
      %lt = stablehlo.compare LT, %i, %three : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1> : tensor<i32>
      %n = stablehlo.add %i, %one : tensor<i32>
      %k = stablehlo.constant dense<2.0> : tensor<f32>
      %s = func.call @scale(%v, %k) : (tensor<DYNxf32BND1>, tensor<f32>) -> tensor<DYNxf32BND1>
      stablehlo.return %n, %s : tensor<i32>, tensor<DYNxf32BND1>
    }
  %sum = stablehlo.reduce(%w#1 init: %fz) applies stablehlo.add across dimensions = [0] : (tensor<DYNxf32BND1>, tensor<f32>) -> tensor<f32>
  return %w#1, %sum : tensor<DYNxf32BND1>, tensor<f32>
}
