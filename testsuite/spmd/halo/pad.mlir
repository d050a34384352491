// pad along a tiled dim: [3, 2] rows of 7.0 around 16 rows tiled 4 ways (21 rows: pieces of 6), and a cropping pad [-1, 2] of 0.0
module @pad attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<16x8xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}) -> (tensor<21x9xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}, tensor<17x8xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}) {
    %v = stablehlo.constant dense<7.0> : tensor<f32>
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %e = stablehlo.exponential %x : tensor<16x8xf32>
    %0 = stablehlo.pad %e, %v, low = [3, 0], high = [2, 1], interior = [0, 0] : (tensor<16x8xf32>, tensor<f32>) -> tensor<21x9xf32>
    %1 = stablehlo.pad %x, %z, low = [-1, 0], high = [2, 0], interior = [0, 0] : (tensor<16x8xf32>, tensor<f32>) -> tensor<17x8xf32>
    return %0, %1 : tensor<21x9xf32>, tensor<17x8xf32>
  }
}
