func.func @main(%x: tensor<DYNx4xf32BND>, %y: tensor<DYNx4xf32BND>) -> (tensor<DYNx4xf32BND>, tensor<DYNx4xf32BND>, tensor<2x4xf32>) {
  %s = "stablehlo.sort"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %c = stablehlo.compare GT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }) {dimension = 0 : i64, is_stable = true} : (tensor<DYNx4xf32BND>) -> tensor<DYNx4xf32BND>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %sum = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0, 1] : (tensor<DYNx4xf32BND>, tensor<f32>) -> tensor<f32>
  %pred = stablehlo.compare GT, %sum, %z : (tensor<f32>, tensor<f32>) -> tensor<i1>
  %r = "stablehlo.if"(%pred) ({
    stablehlo.return %x : tensor<DYNx4xf32BND>
  }, {
    %m = stablehlo.multiply %y, %y : tensor<DYNx4xf32BND>
    stablehlo.return %m : tensor<DYNx4xf32BND>
  }) : (tensor<i1>) -> tensor<DYNx4xf32BND>
  %idx = stablehlo.constant dense<[[1], [6]]> : tensor<2x1xi32>
  %g = "stablehlo.gather"(%y, %idx) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 4>} : (tensor<DYNx4xf32BND>, tensor<2x1xi32>) -> tensor<2x4xf32>
  return %s, %r, %g : tensor<DYNx4xf32BND>, tensor<DYNx4xf32BND>, tensor<2x4xf32>
}
