// 3x3 'same' convolution, rows and columns tiled 2x2 (corners through the second exchange)
module @conv_2d attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<1x16x16x4xf32> {mhlo.sharding = "{devices=[1,2,2,1]<=[4]}"}, %w: tensor<3x3x4x8xf32>) -> (tensor<1x16x16x8xf32> {mhlo.sharding = "{devices=[1,2,2,1]<=[4]}"}) {
    %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x16x16x4xf32>, tensor<3x3x4x8xf32>) -> tensor<1x16x16x8xf32>
    return %0 : tensor<1x16x16x8xf32>
  }
}
