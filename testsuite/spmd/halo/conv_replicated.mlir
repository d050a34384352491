// 3x3 'same' convolution, rows tiled 2 ways and each piece on 2 partitions (last_tile_dim_replicate): exchanges within each replica group
module @rep attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<1x16x16x4xf32> {mhlo.sharding = "{devices=[1,2,1,1,2]<=[4] last_tile_dim_replicate}"}, %w: tensor<3x3x4x8xf32>) -> (tensor<1x16x16x8xf32> {mhlo.sharding = "{devices=[1,2,1,1,2]<=[4] last_tile_dim_replicate}"}) {
    %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x16x16x4xf32>, tensor<3x3x4x8xf32>) -> tensor<1x16x16x8xf32>
    return %0 : tensor<1x16x16x8xf32>
  }
}
