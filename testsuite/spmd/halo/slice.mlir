// slice along a tiled dim: rows [3, 15) of 16 tiled 4 ways (a shift by 3 from the next piece), rows 1, 3, ..., 15 (stride 2), and a 2-D tiling
module @slice attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<16x8xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}, %y: tensor<16x12xf32> {mhlo.sharding = "{devices=[2,2]<=[4]}"}) -> (tensor<12x8xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}, tensor<8x3xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}, tensor<13x9xf32> {mhlo.sharding = "{devices=[2,2]<=[4]}"}) {
    %0 = stablehlo.slice %x [3:15, 0:8] : (tensor<16x8xf32>) -> tensor<12x8xf32>
    %1 = stablehlo.slice %x [1:16:2, 2:8:2] : (tensor<16x8xf32>) -> tensor<8x3xf32>
    %2 = stablehlo.slice %y [2:15, 1:10] : (tensor<16x12xf32>) -> tensor<13x9xf32>
    return %0, %1, %2 : tensor<12x8xf32>, tensor<8x3xf32>, tensor<13x9xf32>
  }
}
