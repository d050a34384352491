// A Megatron tensor-parallel MLP block on 8 chips, as
//   jax.jit(mlp, in_shardings=(P(), P(None, "x"), P("x"), P("x", None), P()),
//           out_shardings=P()).lower(x, w1, b1, w2, b2).as_text()
// prints it on a mesh of 8 devices ("x"), locations left out:
//   y = gelu(x @ w1 + b1) @ w2 + b2      (gelu in its tanh form, approximate=True)
// x [16x256] and the result are replicated; w1 [256x1024] is split by columns
// and b1 with it, w2 [1024x256] by rows: every chip computes its 128 columns of
// the hidden layer and a partial sum of y, which the partitioner must
// all-reduce (the only collective of the program).  The with_sharding_constraint
// on the hidden layer pins it to the columns' layout.  No collective is written
// here: tpucc partitions the program (DESIGN.md §10) and tpurun takes and
// prints global values (x of shape 16x256, y of shape 16x256).
// examples/tp_mlp_shardy.mlir is the same program in Shardy's form.
module @jit_mlp attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<16x256xf32> {mhlo.layout_mode = "default", mhlo.sharding = "{replicated}"}, %arg1: tensor<256x1024xf32> {mhlo.layout_mode = "default", mhlo.sharding = "{devices=[1,8]<=[8]}"}, %arg2: tensor<1024xf32> {mhlo.layout_mode = "default", mhlo.sharding = "{devices=[8]<=[8]}"}, %arg3: tensor<1024x256xf32> {mhlo.layout_mode = "default", mhlo.sharding = "{devices=[8,1]<=[8]}"}, %arg4: tensor<256xf32> {mhlo.layout_mode = "default", mhlo.sharding = "{replicated}"}) -> (tensor<16x256xf32> {jax.result_info = "", mhlo.layout_mode = "default", mhlo.sharding = "{replicated}"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x256xf32>, tensor<256x1024xf32>) -> tensor<16x1024xf32>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<1024xf32>) -> tensor<16x1024xf32>
    %2 = stablehlo.add %0, %1 : tensor<16x1024xf32>
    %3 = stablehlo.custom_call @Sharding(%2) {mhlo.sharding = "{devices=[1,8]<=[8]}"} : (tensor<16x1024xf32>) -> tensor<16x1024xf32>
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
