func.func @main(%a: tensor<DYNx4xf32BND>, %b: tensor<DYNx4xf32BND>) -> (tensor<DYNx4xf32BND>, tensor<4xf32>, tensor<i32>, tensor<DYNx4xi32BND>) {
  %0 = stablehlo.add %a, %b : tensor<DYNx4xf32BND>
  %m = stablehlo.maximum %0, %a : tensor<DYNx4xf32BND>
  %z = stablehlo.constant dense<-1.0e+30> : tensor<f32>
  %1 = stablehlo.reduce(%m init: %z) applies stablehlo.maximum across dimensions = [0] : (tensor<DYNx4xf32BND>, tensor<f32>) -> tensor<4xf32>
  %2 = stablehlo.get_dimension_size %a, dim = 0 : (tensor<DYNx4xf32BND>) -> tensor<i32>
  %c = stablehlo.compare GT, %a, %b : (tensor<DYNx4xf32BND>, tensor<DYNx4xf32BND>) -> tensor<DYNx4xi1BND>
  %s = stablehlo.select %c, %a, %b : tensor<DYNx4xi1BND>, tensor<DYNx4xf32BND>
  %i = stablehlo.convert %s : (tensor<DYNx4xf32BND>) -> tensor<DYNx4xi32BND>
  return %0, %1, %2, %i : tensor<DYNx4xf32BND>, tensor<4xf32>, tensor<i32>, tensor<DYNx4xi32BND>
}
