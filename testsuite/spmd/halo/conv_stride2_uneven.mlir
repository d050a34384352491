// 3x3 stride 2, padding [0, 1], 18 rows on 4 partitions, after exp (padding rows masked)
module @conv_stride2_uneven attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<1x18x18x4xf32> {mhlo.sharding = "{devices=[1,4,1,1]<=[4]}"}, %w: tensor<3x3x4x8xf32>) -> (tensor<1x9x9x8xf32> {mhlo.sharding = "{devices=[1,4,1,1]<=[4]}"}) {
    %e = stablehlo.exponential %x : tensor<1x18x18x4xf32>
    %0 = stablehlo.convolution(%e, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 2], pad = [[0, 1], [0, 1]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x18x18x4xf32>, tensor<3x3x4x8xf32>) -> tensor<1x9x9x8xf32>
    return %0 : tensor<1x9x9x8xf32>
  }
}
