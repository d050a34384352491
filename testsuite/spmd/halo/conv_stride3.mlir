// 4x3 window, stride 3, padding [2, 1], 20 rows on 4 partitions (output pieces of 2 against input pieces of 5: per-partition offsets)
module @s3 attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<1x20x16x4xf32> {mhlo.sharding = "{devices=[1,4,1,1]<=[4]}"}, %w: tensor<4x3x4x8xf32>) -> (tensor<1x7x6x8xf32> {mhlo.sharding = "{devices=[1,4,1,1]<=[4]}"}) {
    %e = stablehlo.exponential %x : tensor<1x20x16x4xf32>
    %0 = stablehlo.convolution(%e, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [3, 3], pad = [[2, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x20x16x4xf32>, tensor<4x3x4x8xf32>) -> tensor<1x7x6x8xf32>
    return %0 : tensor<1x7x6x8xf32>
  }
}
