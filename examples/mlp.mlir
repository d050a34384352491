// A two-layer perceptron with a softmax head, written the way JAX exports it:
// x[8x64] -> dense(64->128) -> relu -> dense(128->10) -> softmax.
module @mlp attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<8x64xf32>, %w1: tensor<64x128xf32>, %b1: tensor<128xf32>,
                         %w2: tensor<128x10xf32>, %b2: tensor<10xf32>) -> (tensor<8x10xf32> {jax.result_info = ""}) {
    %h = stablehlo.dot_general %x, %w1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x64xf32>, tensor<64x128xf32>) -> tensor<8x128xf32>
    %bb1 = stablehlo.broadcast_in_dim %b1, dims = [1] : (tensor<128xf32>) -> tensor<8x128xf32>
    %h1 = stablehlo.add %h, %bb1 : tensor<8x128xf32>
    %zero = stablehlo.constant dense<0.000000e+00> : tensor<8x128xf32>
    %relu = stablehlo.maximum %h1, %zero : tensor<8x128xf32>
    %logits0 = stablehlo.dot_general %relu, %w2, contracting_dims = [1] x [0] : (tensor<8x128xf32>, tensor<128x10xf32>) -> tensor<8x10xf32>
    %bb2 = stablehlo.broadcast_in_dim %b2, dims = [1] : (tensor<10xf32>) -> tensor<8x10xf32>
    %logits = stablehlo.add %logits0, %bb2 : tensor<8x10xf32>
    %y = call @softmax(%logits) : (tensor<8x10xf32>) -> tensor<8x10xf32>
    return %y : tensor<8x10xf32>
  }
  func.func private @softmax(%z: tensor<8x10xf32>) -> tensor<8x10xf32> {
    %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %max = stablehlo.reduce(%z init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<8x10xf32>, tensor<f32>) -> tensor<8xf32>
    %maxb = stablehlo.broadcast_in_dim %max, dims = [0] : (tensor<8xf32>) -> tensor<8x10xf32>
    %shift = stablehlo.subtract %z, %maxb : tensor<8x10xf32>
    %e = stablehlo.exponential %shift : tensor<8x10xf32>
    %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %sum = stablehlo.reduce(%e init: %zero) across dimensions = [1] : (tensor<8x10xf32>, tensor<f32>) -> tensor<8xf32>
     reducer(%acc: tensor<f32>, %v: tensor<f32>)  {
      %s = stablehlo.add %acc, %v : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }
    %sumb = stablehlo.broadcast_in_dim %sum, dims = [0] : (tensor<8xf32>) -> tensor<8x10xf32>
    %p = stablehlo.divide %e, %sumb : tensor<8x10xf32>
    return %p : tensor<8x10xf32>
  }
}
