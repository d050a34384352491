// 3x3 stride 2 max pool, rows and columns tiled 2x2
module @maxpool_2d attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<1x16x16x4xf32> {mhlo.sharding = "{devices=[1,2,2,1]<=[4]}"}) -> (tensor<1x8x8x4xf32> {mhlo.sharding = "{devices=[1,2,2,1]<=[4]}"}) {
    %init = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %y = stablehlo.negate %x : tensor<1x16x16x4xf32>
    %0 = "stablehlo.reduce_window"(%y, %init) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %m = stablehlo.maximum %a, %b : tensor<f32>
      stablehlo.return %m : tensor<f32>
    }) {window_dimensions = array<i64: 1, 3, 3, 1>, window_strides = array<i64: 1, 2, 2, 1>, padding = dense<[[0, 0], [1, 1], [1, 1], [0, 0]]> : tensor<4x2xi64>} : (tensor<1x16x16x4xf32>, tensor<f32>) -> tensor<1x8x8x4xf32>
    return %0 : tensor<1x8x8x4xf32>
  }
}
