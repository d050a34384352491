// A partitioned program (SHARDS section, MODULE mesh): a seed of make fuzz-loader.
module attributes {mhlo.num_partitions = 4 : i32, tpu.spmd_partitioned, tpu.mesh = array<i64: 2, 2>} {
func.func @main(%x: tensor<3x2xf32> {tpu.global_shape = array<i64: 5, 3>, tpu.shard_tiles = array<i64: 2, 2, 1>, tpu.shard_devices = array<i64: 3, 1, 0, 2>}, %s: tensor<f32>)
    -> (tensor<3x2xf32> {tpu.global_shape = array<i64: 5, 3>, tpu.shard_tiles = array<i64: 2, 2, 1>, tpu.shard_devices = array<i64: 3, 1, 0, 2>}, tensor<f32>) {
  %p = stablehlo.partition_id : tensor<ui32>
  %pf = stablehlo.convert %p : (tensor<ui32>) -> tensor<f32>
  %r = stablehlo.replica_id : tensor<ui32>
  %rf = stablehlo.convert %r : (tensor<ui32>) -> tensor<f32>
  %c100 = stablehlo.constant dense<100.0> : tensor<f32>
  %c1000 = stablehlo.constant dense<1000.0> : tensor<f32>
  %a = stablehlo.multiply %pf, %c100 : tensor<f32>
  %b = stablehlo.multiply %rf, %c1000 : tensor<f32>
  %ab = stablehlo.add %a, %b : tensor<f32>
  %abs = stablehlo.add %ab, %s : tensor<f32>
  %bc = stablehlo.broadcast_in_dim %abs, dims = [] : (tensor<f32>) -> tensor<3x2xf32>
  %r0 = stablehlo.add %x, %bc : tensor<3x2xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %r1 = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0, 1] : (tensor<3x2xf32>, tensor<f32>) -> tensor<f32>
  return %r0, %r1 : tensor<3x2xf32>, tensor<f32>
}
}
