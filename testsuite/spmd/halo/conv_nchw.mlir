// NCHW / OIHW convolution, stride 2, H and W tiled 2x2
module @nchw attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<1x4x16x16xf32> {mhlo.sharding = "{devices=[1,1,2,2]<=[4]}"}, %w: tensor<8x4x3x3xf32>) -> (tensor<1x8x8x8xf32> {mhlo.sharding = "{devices=[1,1,2,2]<=[4]}"}) {
    %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [2, 2], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x16x16xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x8x8xf32>
    return %0 : tensor<1x8x8x8xf32>
  }
}
