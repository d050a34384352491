// Causal multi-head self-attention on 8 chips arranged as a 2x4 mesh
// ("data"=2, "model"=4), as
//   jax.jit(attention,
//           in_shardings=(P("data", None, None), P(None, "model", None),
//                         P(None, "model", None), P(None, "model", None), P("model", None, None)),
//           out_shardings=P("data", None, None)).lower(x, wq, wk, wv, wo).as_text()
// prints it, locations left out:
//   q, k, v = einsum("bsd,dnh->bsnh", x, wq / wk / wv)       (8 heads of 32)
//   s = einsum("bqnh,bknh->bnqk", q / sqrt(32), k), causal mask, softmax over k
//   o = einsum("bnqk,bknh->bqnh", p, v), y = einsum("bqnh,nhd->bqd", o, wo)
// x [4x64x256] and y are split by batch over "data" (2) and replicated over
// "model"; the projections are split by heads over "model" (4 pieces, 2 heads
// each; device d = 4 * data + model, so the pieces of a head live on devices m
// and m + 4: the transposed iota <=[2,4]T(1,0)); the with_sharding_constraints
// put q, k, v and the attention weights on the 2x4 mesh (batch x heads).  The
// output projection contracts the split heads: the partitioner all-reduces its
// partial sums over "model".  No collective is written here (DESIGN.md §10):
// tpurun takes and prints global values.
module @jit_attention attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x64x256xf32> {mhlo.layout_mode = "default", mhlo.sharding = "{devices=[2,1,1,4]<=[8] last_tile_dim_replicate}"}, %arg1: tensor<256x8x32xf32> {mhlo.layout_mode = "default", mhlo.sharding = "{devices=[1,4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg2: tensor<256x8x32xf32> {mhlo.layout_mode = "default", mhlo.sharding = "{devices=[1,4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg3: tensor<256x8x32xf32> {mhlo.layout_mode = "default", mhlo.sharding = "{devices=[1,4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}, %arg4: tensor<8x32x256xf32> {mhlo.layout_mode = "default", mhlo.sharding = "{devices=[4,1,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}) -> (tensor<4x64x256xf32> {jax.result_info = "", mhlo.layout_mode = "default", mhlo.sharding = "{devices=[2,1,1,4]<=[8] last_tile_dim_replicate}"}) {
    // projections: [b, s, d] x [d, n, h] -> [b, s, n, h]
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x64x256xf32>, tensor<256x8x32xf32>) -> tensor<4x64x8x32xf32>
    %1 = stablehlo.custom_call @Sharding(%0) {mhlo.sharding = "{devices=[2,1,4,1]<=[8]}"} : (tensor<4x64x8x32xf32>) -> tensor<4x64x8x32xf32>
    %2 = stablehlo.dot_general %arg0, %arg2, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x64x256xf32>, tensor<256x8x32xf32>) -> tensor<4x64x8x32xf32>
    %3 = stablehlo.custom_call @Sharding(%2) {mhlo.sharding = "{devices=[2,1,4,1]<=[8]}"} : (tensor<4x64x8x32xf32>) -> tensor<4x64x8x32xf32>
    %4 = stablehlo.dot_general %arg0, %arg3, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x64x256xf32>, tensor<256x8x32xf32>) -> tensor<4x64x8x32xf32>
    %5 = stablehlo.custom_call @Sharding(%4) {mhlo.sharding = "{devices=[2,1,4,1]<=[8]}"} : (tensor<4x64x8x32xf32>) -> tensor<4x64x8x32xf32>
    // q / sqrt(32)
    %cst = stablehlo.constant dense<0.176776692> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x64x8x32xf32>
    %7 = stablehlo.multiply %1, %6 : tensor<4x64x8x32xf32>
    // scores: [b, q, n, h] x [b, k, n, h] -> [b, n, q, k]
    %8 = stablehlo.dot_general %7, %3, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<4x64x8x32xf32>, tensor<4x64x8x32xf32>) -> tensor<4x8x64x64xf32>
    // causal mask: key position <= query position
    %9 = stablehlo.iota dim = 0 : tensor<64x64xi32>
    %10 = stablehlo.iota dim = 1 : tensor<64x64xi32>
    %11 = stablehlo.compare  GE, %9, %10,  SIGNED : (tensor<64x64xi32>, tensor<64x64xi32>) -> tensor<64x64xi1>
    %12 = stablehlo.broadcast_in_dim %11, dims = [2, 3] : (tensor<64x64xi1>) -> tensor<4x8x64x64xi1>
    %cst_0 = stablehlo.constant dense<-1.000000e+09> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x8x64x64xf32>
    %14 = stablehlo.select %12, %8, %13 : tensor<4x8x64x64xi1>, tensor<4x8x64x64xf32>
    // softmax over the keys
    %cst_1 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %15 = stablehlo.reduce(%14 init: %cst_1) applies stablehlo.maximum across dimensions = [3] : (tensor<4x8x64x64xf32>, tensor<f32>) -> tensor<4x8x64xf32>
    %16 = stablehlo.broadcast_in_dim %15, dims = [0, 1, 2] : (tensor<4x8x64xf32>) -> tensor<4x8x64x64xf32>
    %17 = stablehlo.subtract %14, %16 : tensor<4x8x64x64xf32>
    %18 = stablehlo.exponential %17 : tensor<4x8x64x64xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %19 = stablehlo.reduce(%18 init: %cst_2) applies stablehlo.add across dimensions = [3] : (tensor<4x8x64x64xf32>, tensor<f32>) -> tensor<4x8x64xf32>
    %20 = stablehlo.broadcast_in_dim %19, dims = [0, 1, 2] : (tensor<4x8x64xf32>) -> tensor<4x8x64x64xf32>
    %21 = stablehlo.divide %18, %20 : tensor<4x8x64x64xf32>
    %22 = stablehlo.custom_call @Sharding(%21) {mhlo.sharding = "{devices=[2,4,1,1]<=[8]}"} : (tensor<4x8x64x64xf32>) -> tensor<4x8x64x64xf32>
    // weighted values: [b, n, q, k] x [b, k, n, h] -> [b, n, q, h] -> [b, q, n, h]
    %23 = stablehlo.dot_general %22, %5, batching_dims = [0, 1] x [0, 2], contracting_dims = [3] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x8x64x64xf32>, tensor<4x64x8x32xf32>) -> tensor<4x8x64x32xf32>
    %24 = stablehlo.transpose %23, dims = [0, 2, 1, 3] : (tensor<4x8x64x32xf32>) -> tensor<4x64x8x32xf32>
    // output projection: [b, q, n, h] x [n, h, d] -> [b, q, d], contracting the split heads
    %25 = stablehlo.dot_general %24, %arg4, contracting_dims = [2, 3] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<4x64x8x32xf32>, tensor<8x32x256xf32>) -> tensor<4x64x256xf32>
    return %25 : tensor<4x64x256xf32>
  }
}
