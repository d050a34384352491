// two convolutions (3x3 'same', then 5x5 stride 2 padded by 2) on 18 rows: the tiling propagates through both, after an add that leaves the padding rows non-zero
module @chain attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<1x18x16x4xf32> {mhlo.sharding = "{devices=[1,4,1,1]<=[4]}"}, %w: tensor<3x3x4x4xf32>, %w2: tensor<5x5x4x4xf32>) -> tensor<1x9x8x4xf32> {
    %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x18x16x4xf32>, tensor<3x3x4x4xf32>) -> tensor<1x18x16x4xf32>
    %z = stablehlo.constant dense<0.5> : tensor<1x18x16x4xf32>
    %1 = stablehlo.add %0, %z : tensor<1x18x16x4xf32>
    %2 = stablehlo.convolution(%1, %w2) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 2], pad = [[2, 2], [2, 2]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x18x16x4xf32>, tensor<5x5x4x4xf32>) -> tensor<1x9x8x4xf32>
    return %2 : tensor<1x9x8x4xf32>
  }
}
