func.func @main(%x: tensor<DYNx4xf32BND>, %y: tensor<DYNx4xf32BND>) -> (tensor<DYNx4xf32BND>, tensor<DYNx4xf32BND>) {
  %idx = stablehlo.constant dense<[[1], [6], [2]]> : tensor<3x1xi32>
  %upd = stablehlo.constant dense<1.0> : tensor<3x4xf32>
  %s = "stablehlo.scatter"(%x, %idx, %upd) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<DYNx4xf32BND>, tensor<3x1xi32>, tensor<3x4xf32>) -> tensor<DYNx4xf32BND>
  %col = stablehlo.slice %y [0:LIM, 0:1] : (tensor<DYNx4xf32BND>) -> tensor<DYNx1xf32BND>
  %ci = stablehlo.convert %col : (tensor<DYNx1xf32BND>) -> tensor<DYNx1xi32BND>
  %t = "stablehlo.scatter"(%x, %ci, %y) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<DYNx4xf32BND>, tensor<DYNx1xi32BND>, tensor<DYNx4xf32BND>) -> tensor<DYNx4xf32BND>
  return %s, %t : tensor<DYNx4xf32BND>, tensor<DYNx4xf32BND>
}
