// 11-row window padded by 5 (and a 9-row max pool padded by 4) on 8 rows tiled 2 ways (each piece on 2 partitions): partition 1 takes partition 0's whole piece plus a zero row below row 0
module @wide2 attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<1x8x6x2xf32> {mhlo.sharding = "{devices=[1,2,1,1,2]<=[4] last_tile_dim_replicate}"}, %w: tensor<11x3x2x2xf32>) -> (tensor<1x8x6x2xf32> {mhlo.sharding = "{devices=[1,2,1,1,2]<=[4] last_tile_dim_replicate}"}) {
    %e = stablehlo.exponential %x : tensor<1x8x6x2xf32>
    %0 = stablehlo.convolution(%e, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[5, 5], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x6x2xf32>, tensor<11x3x2x2xf32>) -> tensor<1x8x6x2xf32>
    %init = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %n = stablehlo.negate %e : tensor<1x8x6x2xf32>
    %1 = "stablehlo.reduce_window"(%n, %init) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %m = stablehlo.maximum %a, %b : tensor<f32>
      stablehlo.return %m : tensor<f32>
    }) {window_dimensions = array<i64: 1, 9, 1, 1>, window_strides = array<i64: 1, 1, 1, 1>, padding = dense<[[0, 0], [4, 4], [0, 0], [0, 0]]> : tensor<4x2xi64>} : (tensor<1x8x6x2xf32>, tensor<f32>) -> tensor<1x8x6x2xf32>
    %2 = stablehlo.add %0, %1 : tensor<1x8x6x2xf32>
    return %2 : tensor<1x8x6x2xf32>
  }
}
