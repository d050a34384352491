// whole (replicated) operands, results tiled by the ops' own shardings: each partition cuts its window out locally, no exchange (no-exchange)
module @whole attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<1x18x16x4xf32> {mhlo.sharding = "{replicated}"}, %w: tensor<3x3x4x8xf32> {mhlo.sharding = "{replicated}"}, %y: tensor<16x8xf32> {mhlo.sharding = "{replicated}"}) -> (tensor<1x9x8x8xf32> {mhlo.sharding = "{devices=[1,4,1,1]<=[4]}"}, tensor<1x9x16x4xf32> {mhlo.sharding = "{devices=[1,2,2,1]<=[4]}"}, tensor<21x9xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}, tensor<12x8xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}) {
    %e = stablehlo.exponential %x : tensor<1x18x16x4xf32>
    %0 = stablehlo.convolution(%e, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 2], pad = [[0, 1], [0, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, mhlo.sharding = "{devices=[1,4,1,1]<=[4]}"} : (tensor<1x18x16x4xf32>, tensor<3x3x4x8xf32>) -> tensor<1x9x8x8xf32>
    %init = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %n = stablehlo.negate %x : tensor<1x18x16x4xf32>
    %1 = "stablehlo.reduce_window"(%n, %init) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %m = stablehlo.maximum %a, %b : tensor<f32>
      stablehlo.return %m : tensor<f32>
    }) {window_dimensions = array<i64: 1, 3, 3, 1>, window_strides = array<i64: 1, 2, 1, 1>, mhlo.sharding = "{devices=[1,2,2,1]<=[4]}", padding = dense<[[0, 0], [1, 1], [1, 1], [0, 0]]> : tensor<4x2xi64>} : (tensor<1x18x16x4xf32>, tensor<f32>) -> tensor<1x9x16x4xf32>
    %v = stablehlo.constant dense<7.0> : tensor<f32>
    %2 = stablehlo.pad %y, %v, low = [3, 0], high = [2, 1], interior = [0, 0] {mhlo.sharding = "{devices=[4,1]<=[4]}"} : (tensor<16x8xf32>, tensor<f32>) -> tensor<21x9xf32>
    %3 = stablehlo.slice %y [3:15, 0:8] {mhlo.sharding = "{devices=[4,1]<=[4]}"} : (tensor<16x8xf32>) -> tensor<12x8xf32>
    return %0, %1, %2, %3 : tensor<1x9x8x8xf32>, tensor<1x9x16x4xf32>, tensor<21x9xf32>, tensor<12x8xf32>
  }
}
