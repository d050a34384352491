// 1-D causal convolution (padding [4, 0]), 30 steps on 4 partitions
module @c1 attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<2x30x3xf32> {mhlo.sharding = "{devices=[1,4,1]<=[4]}"}, %w: tensor<5x3x6xf32>) -> (tensor<2x30x6xf32> {mhlo.sharding = "{devices=[1,4,1]<=[4]}"}) {
    %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {stride = [1], pad = [[4, 0]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x30x3xf32>, tensor<5x3x6xf32>) -> tensor<2x30x6xf32>
    return %0 : tensor<2x30x6xf32>
  }
}
