// depthwise 3x3 convolution (feature_group_count 4), rows tiled 4 ways
module @dw attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<1x16x16x4xf32> {mhlo.sharding = "{devices=[1,4,1,1]<=[4]}"}, %w: tensor<3x3x1x4xf32>) -> (tensor<1x16x16x4xf32> {mhlo.sharding = "{devices=[1,4,1,1]<=[4]}"}) {
    %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 4 : i64} : (tensor<1x16x16x4xf32>, tensor<3x3x1x4xf32>) -> tensor<1x16x16x4xf32>
    return %0 : tensor<1x16x16x4xf32>
  }
}
