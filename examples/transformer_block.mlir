// One pre-LN transformer decoder block over a sequence of 8 tokens, written
// the way JAX exports it (model width 32, 2 heads of 16, MLP width 64,
// vocabulary of 64):
//
//   x = embedding[tokens]
//   x = x + attention(layer_norm(x, ln1_scale))     (causal, 2 heads)
//   y = x + mlp(layer_norm(x, ln2_scale))           (32 -> 64 -> gelu -> 32)
module @transformer_block attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%tokens: tensor<8xi32>, %embedding: tensor<64x32xf32>,
                         %wq: tensor<32x32xf32>, %wk: tensor<32x32xf32>, %wv: tensor<32x32xf32>, %wo: tensor<32x32xf32>,
                         %w1: tensor<32x64xf32>, %w2: tensor<64x32xf32>,
                         %ln1_scale: tensor<32xf32>, %ln2_scale: tensor<32xf32>) -> (tensor<8x32xf32> {jax.result_info = ""}) {
    // Embedding lookup: row tokens[i] of the table for each position i.
    %ids = stablehlo.reshape %tokens : (tensor<8xi32>) -> tensor<8x1xi32>
    %x = "stablehlo.gather"(%embedding, %ids) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 32>}> : (tensor<64x32xf32>, tensor<8x1xi32>) -> tensor<8x32xf32>

    // Attention sub-block with its residual connection.
    %h1 = call @layer_norm(%x, %ln1_scale) : (tensor<8x32xf32>, tensor<32xf32>) -> tensor<8x32xf32>
    %attn = call @causal_self_attention(%h1, %wq, %wk, %wv, %wo) : (tensor<8x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<8x32xf32>
    %x1 = stablehlo.add %x, %attn : tensor<8x32xf32>

    // MLP sub-block with its residual connection.
    %h2 = call @layer_norm(%x1, %ln2_scale) : (tensor<8x32xf32>, tensor<32xf32>) -> tensor<8x32xf32>
    %up = stablehlo.dot_general %h2, %w1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x32xf32>, tensor<32x64xf32>) -> tensor<8x64xf32>
    %act = call @gelu(%up) : (tensor<8x64xf32>) -> tensor<8x64xf32>
    %down = stablehlo.dot_general %act, %w2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<8x32xf32>
    %y = stablehlo.add %x1, %down : tensor<8x32xf32>
    return %y : tensor<8x32xf32>
  }

  // Layer norm over the last axis (no bias): (x - mean) * rsqrt(var + 1e-5) * scale.
  func.func private @layer_norm(%x: tensor<8x32xf32>, %scale: tensor<32xf32>) -> tensor<8x32xf32> {
    %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %width = stablehlo.constant dense<3.200000e+01> : tensor<8xf32>
    %eps = stablehlo.constant dense<9.99999974E-6> : tensor<8xf32>
    // Mean of each row.
    %sum = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<8x32xf32>, tensor<f32>) -> tensor<8xf32>
    %mean = stablehlo.divide %sum, %width : tensor<8xf32>
    %meanb = stablehlo.broadcast_in_dim %mean, dims = [0] : (tensor<8xf32>) -> tensor<8x32xf32>
    %centered = stablehlo.subtract %x, %meanb : tensor<8x32xf32>
    // Variance of each row, then the normalising factor.
    %sq = stablehlo.multiply %centered, %centered : tensor<8x32xf32>
    %sqsum = stablehlo.reduce(%sq init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<8x32xf32>, tensor<f32>) -> tensor<8xf32>
    %var = stablehlo.divide %sqsum, %width : tensor<8xf32>
    %vareps = stablehlo.add %var, %eps : tensor<8xf32>
    %inv = stablehlo.rsqrt %vareps : tensor<8xf32>
    %invb = stablehlo.broadcast_in_dim %inv, dims = [0] : (tensor<8xf32>) -> tensor<8x32xf32>
    %normed = stablehlo.multiply %centered, %invb : tensor<8x32xf32>
    // Per-feature scale.
    %scaleb = stablehlo.broadcast_in_dim %scale, dims = [1] : (tensor<32xf32>) -> tensor<8x32xf32>
    %y = stablehlo.multiply %normed, %scaleb : tensor<8x32xf32>
    return %y : tensor<8x32xf32>
  }

  // Two-head causal self-attention: softmax(q k^T / sqrt(16) + mask) v, then wo.
  func.func private @causal_self_attention(%h: tensor<8x32xf32>, %wq: tensor<32x32xf32>, %wk: tensor<32x32xf32>,
                                           %wv: tensor<32x32xf32>, %wo: tensor<32x32xf32>) -> tensor<8x32xf32> {
    // Projections, split into heads: [seq, head, head_dim].
    %q2 = stablehlo.dot_general %h, %wq, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x32xf32>, tensor<32x32xf32>) -> tensor<8x32xf32>
    %k2 = stablehlo.dot_general %h, %wk, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x32xf32>, tensor<32x32xf32>) -> tensor<8x32xf32>
    %v2 = stablehlo.dot_general %h, %wv, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x32xf32>, tensor<32x32xf32>) -> tensor<8x32xf32>
    %q = stablehlo.reshape %q2 : (tensor<8x32xf32>) -> tensor<8x2x16xf32>
    %k = stablehlo.reshape %k2 : (tensor<8x32xf32>) -> tensor<8x2x16xf32>
    %v = stablehlo.reshape %v2 : (tensor<8x32xf32>) -> tensor<8x2x16xf32>

    // Scores per head: [head, query, key] = q . k / sqrt(head_dim).
    %qk = stablehlo.dot_general %q, %k, batching_dims = [1] x [1], contracting_dims = [2] x [2], precision = [DEFAULT, DEFAULT] : (tensor<8x2x16xf32>, tensor<8x2x16xf32>) -> tensor<2x8x8xf32>
    %rsqrt_dh = stablehlo.constant dense<2.500000e-01> : tensor<2x8x8xf32>
    %scores = stablehlo.multiply %qk, %rsqrt_dh : tensor<2x8x8xf32>

    // Causal mask: query i sees keys j <= i; the others get -inf.
    %row = stablehlo.iota dim = 0 : tensor<8x8xi32>
    %col = stablehlo.iota dim = 1 : tensor<8x8xi32>
    %allowed = stablehlo.compare  GE, %row, %col,  SIGNED : (tensor<8x8xi32>, tensor<8x8xi32>) -> tensor<8x8xi1>
    %allowedb = stablehlo.broadcast_in_dim %allowed, dims = [1, 2] : (tensor<8x8xi1>) -> tensor<2x8x8xi1>
    %ninf = stablehlo.constant dense<0xFF800000> : tensor<2x8x8xf32>
    %masked = stablehlo.select %allowedb, %scores, %ninf : tensor<2x8x8xi1>, tensor<2x8x8xf32>

    // Softmax over keys: exp(s - max) / sum(exp(s - max)).
    %ninf0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %max = stablehlo.reduce(%masked init: %ninf0) applies stablehlo.maximum across dimensions = [2] : (tensor<2x8x8xf32>, tensor<f32>) -> tensor<2x8xf32>
    %maxb = stablehlo.broadcast_in_dim %max, dims = [0, 1] : (tensor<2x8xf32>) -> tensor<2x8x8xf32>
    %shifted = stablehlo.subtract %masked, %maxb : tensor<2x8x8xf32>
    %e = stablehlo.exponential %shifted : tensor<2x8x8xf32>
    %sum = stablehlo.reduce(%e init: %zero) across dimensions = [2] : (tensor<2x8x8xf32>, tensor<f32>) -> tensor<2x8xf32>
     reducer(%acc: tensor<f32>, %val: tensor<f32>)  {
      %s = stablehlo.add %acc, %val : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }
    %sumb = stablehlo.broadcast_in_dim %sum, dims = [0, 1] : (tensor<2x8xf32>) -> tensor<2x8x8xf32>
    %probs = stablehlo.divide %e, %sumb : tensor<2x8x8xf32>

    // Weighted values [head, query, head_dim], heads merged back: [seq, 32].
    %ctx = stablehlo.dot_general %probs, %v, batching_dims = [0] x [1], contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x8x8xf32>, tensor<8x2x16xf32>) -> tensor<2x8x16xf32>
    %ctxt = stablehlo.transpose %ctx, dims = [1, 0, 2] : (tensor<2x8x16xf32>) -> tensor<8x2x16xf32>
    %merged = stablehlo.reshape %ctxt : (tensor<8x2x16xf32>) -> tensor<8x32xf32>

    // Output projection.
    %out = stablehlo.dot_general %merged, %wo, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x32xf32>, tensor<32x32xf32>) -> tensor<8x32xf32>
    return %out : tensor<8x32xf32>
  }

  // Tanh-approximated GELU: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
  func.func private @gelu(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
    %half = stablehlo.constant dense<5.000000e-01> : tensor<8x64xf32>
    %one = stablehlo.constant dense<1.000000e+00> : tensor<8x64xf32>
    %c = stablehlo.constant dense<4.471500e-02> : tensor<8x64xf32>
    %sqrt_2_over_pi = stablehlo.constant dense<0.797884583> : tensor<8x64xf32>
    %x2 = stablehlo.multiply %x, %x : tensor<8x64xf32>
    %x3 = stablehlo.multiply %x2, %x : tensor<8x64xf32>
    %cx3 = stablehlo.multiply %c, %x3 : tensor<8x64xf32>
    %inner = stablehlo.add %x, %cx3 : tensor<8x64xf32>
    %arg = stablehlo.multiply %sqrt_2_over_pi, %inner : tensor<8x64xf32>
    %t = stablehlo.tanh %arg : tensor<8x64xf32>
    %onept = stablehlo.add %one, %t : tensor<8x64xf32>
    %halfx = stablehlo.multiply %half, %x : tensor<8x64xf32>
    %y = stablehlo.multiply %halfx, %onept : tensor<8x64xf32>
    return %y : tensor<8x64xf32>
  }
}
