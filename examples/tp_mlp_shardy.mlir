// examples/tp_mlp.mlir in Shardy's form (JAX with jax_use_shardy_partitioner,
// the default since JAX 0.7): the mesh is a named op, every argument and result
// carries a #sdy.sharding over it, and with_sharding_constraint becomes
// sdy.sharding_constraint.  {} is an unsharded dimension, {"x"} one split over
// the 8 devices of axis "x".  Same inputs and result as tp_mlp.mlir.
module @jit_mlp attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=8]>
  func.func public @main(%arg0: tensor<16x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg1: tensor<256x1024xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"x"}]>}, %arg2: tensor<1024xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}, %arg3: tensor<1024x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, %arg4: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}) -> (tensor<16x256xf32> {jax.result_info = "", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x256xf32>, tensor<256x1024xf32>) -> tensor<16x1024xf32>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<1024xf32>) -> tensor<16x1024xf32>
    %2 = stablehlo.add %0, %1 : tensor<16x1024xf32>
    %3 = sdy.sharding_constraint %2 <@mesh, [{}, {"x"}]> : tensor<16x1024xf32>
    %4 = call @gelu(%3) : (tensor<16x1024xf32>) -> tensor<16x1024xf32>
    %5 = stablehlo.dot_general %4, %arg3, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x1024xf32>, tensor<1024x256xf32>) -> tensor<16x256xf32>
    %6 = stablehlo.broadcast_in_dim %arg4, dims = [1] : (tensor<256xf32>) -> tensor<16x256xf32>
    %7 = stablehlo.add %5, %6 : tensor<16x256xf32>
    return %7 : tensor<16x256xf32>
  }
  // jax.nn.gelu(x, approximate=True) = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
  func.func private @gelu(%arg0: tensor<16x1024xf32>) -> tensor<16x1024xf32> {
    %0 = stablehlo.multiply %arg0, %arg0 : tensor<16x1024xf32>
    %1 = stablehlo.multiply %0, %arg0 : tensor<16x1024xf32>
    %cst = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x1024xf32>
    %3 = stablehlo.multiply %2, %1 : tensor<16x1024xf32>
    %4 = stablehlo.add %arg0, %3 : tensor<16x1024xf32>
    %cst_0 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<16x1024xf32>
    %6 = stablehlo.multiply %5, %4 : tensor<16x1024xf32>
    %7 = stablehlo.tanh %6 : tensor<16x1024xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<16x1024xf32>
    %9 = stablehlo.add %8, %7 : tensor<16x1024xf32>
    %cst_2 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<16x1024xf32>
    %11 = stablehlo.multiply %10, %arg0 : tensor<16x1024xf32>
    %12 = stablehlo.multiply %11, %9 : tensor<16x1024xf32>
    return %12 : tensor<16x1024xf32>
  }
}
