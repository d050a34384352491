// i32 max pool, window 3 dilated by 2, stride 2, padding 2, 14 rows on 4 partitions (the init value INT_MIN at the edges)
module @ip attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<1x14x16x4xi32> {mhlo.sharding = "{devices=[1,4,1,1]<=[4]}"}) -> (tensor<1x7x16x4xi32> {mhlo.sharding = "{devices=[1,4,1,1]<=[4]}"}) {
    %init = stablehlo.constant dense<-2147483648> : tensor<i32>
    %c = stablehlo.constant dense<-5> : tensor<1x14x16x4xi32>
    %y = stablehlo.add %x, %c : tensor<1x14x16x4xi32>
    %0 = "stablehlo.reduce_window"(%y, %init) ({
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      %m = stablehlo.maximum %a, %b : tensor<i32>
      stablehlo.return %m : tensor<i32>
    }) {window_dimensions = array<i64: 1, 3, 1, 1>, window_strides = array<i64: 1, 2, 1, 1>, window_dilations = array<i64: 1, 2, 1, 1>, padding = dense<[[0, 0], [2, 2], [0, 0], [0, 0]]> : tensor<4x2xi64>} : (tensor<1x14x16x4xi32>, tensor<i32>) -> tensor<1x7x16x4xi32>
    return %0 : tensor<1x7x16x4xi32>
  }
}
