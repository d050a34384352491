// One SGD step of a 2-layer perceptron (256 -> 512 -> 256, relu) with a mean
// squared error loss, FSDP-style on 8 chips, as
//   jax.jit(train_step,
//           in_shardings=(P("x", None), P("x"), P("x", None), P("x"), P("x", None), P("x", None)),
//           out_shardings=(P("x", None), P("x"), P("x", None), P("x"), P()))
//       .lower(w1, b1, w2, b2, x, y).as_text()
// prints it on a mesh of 8 devices ("x"), locations left out:
//   forward   h = relu(x @ w1 + b1), pred = h @ w2 + b2
//   loss      mean((pred - y)^2) over the batch of 64 rows x 256 outputs
//   backward  as jax.grad writes it: dot_generals contracting the batch, a
//             transpose, bias gradients by reduce, relu' as compare + select
//   update    p - 0.05 * dp
// Results: the updated w1, b1, w2, b2 (sharded like the parameters) and the
// loss (replicated).  The batch (x, y: 64 rows) is split over the 8 chips, and
// so is every parameter along its first dimension (FSDP / ZeRO-3): the
// partitioner must all-gather each weight before its use and reduce-scatter
// its gradient back to the weight's shards; the loss is an all-reduce.  The
// with_sharding_constraints keep the activations split by batch rows.  No
// collective is written here (DESIGN.md §10): tpurun takes and prints global
// values.
module @jit_train_step attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<256x512xf32> {mhlo.layout_mode = "default", mhlo.sharding = "{devices=[8,1]<=[8]}"}, %arg1: tensor<512xf32> {mhlo.layout_mode = "default", mhlo.sharding = "{devices=[8]<=[8]}"}, %arg2: tensor<512x256xf32> {mhlo.layout_mode = "default", mhlo.sharding = "{devices=[8,1]<=[8]}"}, %arg3: tensor<256xf32> {mhlo.layout_mode = "default", mhlo.sharding = "{devices=[8]<=[8]}"}, %arg4: tensor<64x256xf32> {mhlo.layout_mode = "default", mhlo.sharding = "{devices=[8,1]<=[8]}"}, %arg5: tensor<64x256xf32> {mhlo.layout_mode = "default", mhlo.sharding = "{devices=[8,1]<=[8]}"}) -> (tensor<256x512xf32> {jax.result_info = "[0][0]", mhlo.layout_mode = "default", mhlo.sharding = "{devices=[8,1]<=[8]}"}, tensor<512xf32> {jax.result_info = "[0][1]", mhlo.layout_mode = "default", mhlo.sharding = "{devices=[8]<=[8]}"}, tensor<512x256xf32> {jax.result_info = "[0][2]", mhlo.layout_mode = "default", mhlo.sharding = "{devices=[8,1]<=[8]}"}, tensor<256xf32> {jax.result_info = "[0][3]", mhlo.layout_mode = "default", mhlo.sharding = "{devices=[8]<=[8]}"}, tensor<f32> {jax.result_info = "[1]", mhlo.layout_mode = "default", mhlo.sharding = "{replicated}"}) {
    // forward
    %0 = stablehlo.dot_general %arg4, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<64x256xf32>, tensor<256x512xf32>) -> tensor<64x512xf32>
    %1 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<512xf32>) -> tensor<64x512xf32>
    %2 = stablehlo.add %0, %1 : tensor<64x512xf32>
    %3 = stablehlo.custom_call @Sharding(%2) {mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<64x512xf32>) -> tensor<64x512xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<64x512xf32>
    %5 = stablehlo.maximum %3, %4 : tensor<64x512xf32>
    %6 = stablehlo.dot_general %5, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<64x512xf32>, tensor<512x256xf32>) -> tensor<64x256xf32>
    %7 = stablehlo.broadcast_in_dim %arg3, dims = [1] : (tensor<256xf32>) -> tensor<64x256xf32>
    %8 = stablehlo.add %6, %7 : tensor<64x256xf32>
    %9 = stablehlo.custom_call @Sharding(%8) {mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<64x256xf32>) -> tensor<64x256xf32>
    // loss = mean((pred - y)^2)
    %10 = stablehlo.subtract %9, %arg5 : tensor<64x256xf32>
    %11 = stablehlo.multiply %10, %10 : tensor<64x256xf32>
    %12 = stablehlo.reduce(%11 init: %cst) applies stablehlo.add across dimensions = [0, 1] : (tensor<64x256xf32>, tensor<f32>) -> tensor<f32>
    %cst_0 = stablehlo.constant dense<1.638400e+04> : tensor<f32>
    %13 = stablehlo.divide %12, %cst_0 : tensor<f32>
    // backward: d loss / d pred = 2 (pred - y) / 16384
    %cst_1 = stablehlo.constant dense<1.22070313E-4> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<64x256xf32>
    %15 = stablehlo.multiply %14, %10 : tensor<64x256xf32>
    // layer 2: dw2 = h^T g (contracting the batch), db2 = sum over the batch, dh = g w2^T
    %16 = stablehlo.dot_general %5, %15, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<64x512xf32>, tensor<64x256xf32>) -> tensor<512x256xf32>
    %17 = stablehlo.reduce(%15 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<64x256xf32>, tensor<f32>) -> tensor<256xf32>
    %18 = stablehlo.dot_general %15, %arg2, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<64x256xf32>, tensor<512x256xf32>) -> tensor<64x512xf32>
    // relu': the gradient where the pre-activation is positive
    %19 = stablehlo.compare  GT, %3, %4,  FLOAT : (tensor<64x512xf32>, tensor<64x512xf32>) -> tensor<64x512xi1>
    %20 = stablehlo.select %19, %18, %4 : tensor<64x512xi1>, tensor<64x512xf32>
    // layer 1: dw1 = (dz^T x)^T, db1 = sum over the batch
    %21 = stablehlo.dot_general %20, %arg4, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<64x512xf32>, tensor<64x256xf32>) -> tensor<512x256xf32>
    %22 = stablehlo.transpose %21, dims = [1, 0] : (tensor<512x256xf32>) -> tensor<256x512xf32>
    %23 = stablehlo.reduce(%20 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<64x512xf32>, tensor<f32>) -> tensor<512xf32>
    // SGD update with learning rate 0.05
    %cst_2 = stablehlo.constant dense<5.000000e-02> : tensor<f32>
    %24 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<256x512xf32>
    %25 = stablehlo.multiply %24, %22 : tensor<256x512xf32>
    %26 = stablehlo.subtract %arg0, %25 : tensor<256x512xf32>
    %27 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<512xf32>
    %28 = stablehlo.multiply %27, %23 : tensor<512xf32>
    %29 = stablehlo.subtract %arg1, %28 : tensor<512xf32>
    %30 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<512x256xf32>
    %31 = stablehlo.multiply %30, %16 : tensor<512x256xf32>
    %32 = stablehlo.subtract %arg2, %31 : tensor<512x256xf32>
    %33 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %34 = stablehlo.multiply %33, %17 : tensor<256xf32>
    %35 = stablehlo.subtract %arg3, %34 : tensor<256xf32>
    return %26, %29, %32, %35, %13 : tensor<256x512xf32>, tensor<512xf32>, tensor<512x256xf32>, tensor<256xf32>, tensor<f32>
  }
}
