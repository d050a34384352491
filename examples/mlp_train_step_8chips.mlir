// The SGD step of mlp_train_step.mlir, data-parallel on 8 chips (replicas), written as
// JAX prints a pmap'ed step with psum'ed gradients (locations left out):
//   forward   h1 = relu(x @ w1 + b1), h2 = relu(h1 @ w2 + b2), h3 = relu(h2 @ w3 + b3),
//             pred = h3 @ w4 + b4
//   loss      mean((pred - y)^2) over the whole batch of 2048 rows x 128 outputs
//   backward  dot_generals (transposes through their contracting dimensions), bias
//             gradients by reduce, relu' as compare + select
//   update    p - 0.01 * dp for every parameter
// Every chip holds all parameters and gets 256 of the 2048 rows (tpurun splits an
// input of type 8x256x128xf32 into one slice per chip).  Local gradients are scaled
// by 1/262144 (the whole batch's element count), so one all_reduce(sum) per gradient
// over replica_groups [[0..7]] makes each the whole batch's gradient; they are issued in
// the order the backward pass produces them.  Every chip then applies the same update,
// equal to mlp_train_step.mlir's on the whole batch up to float rounding (the batch sums
// are added in another order).
// Results: the updated w1, b1, ..., w4, b4 and the loss, each stacked over the 8 chips.
// testsuite/tools/train_step.sh checks them against mlp_train_step.mlir; README.md shows how to run it.
// f32 dots at precision HIGHEST: six bf16 MXU passes each in the cost model, as f32 training asks for.
module @jit_train_step attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 8 : i32} {
  func.func public @main(
      %w1: tensor<128x768xf32> {jax.arg_info = "params[0][0]"},
      %b1: tensor<768xf32> {jax.arg_info = "params[0][1]"},
      %w2: tensor<768x768xf32> {jax.arg_info = "params[1][0]"},
      %b2: tensor<768xf32> {jax.arg_info = "params[1][1]"},
      %w3: tensor<768x768xf32> {jax.arg_info = "params[2][0]"},
      %b3: tensor<768xf32> {jax.arg_info = "params[2][1]"},
      %w4: tensor<768x128xf32> {jax.arg_info = "params[3][0]"},
      %b4: tensor<128xf32> {jax.arg_info = "params[3][1]"},
      %x: tensor<256x128xf32> {jax.arg_info = "x"},
      %y: tensor<256x128xf32> {jax.arg_info = "y"})
      -> (tensor<128x768xf32> {jax.result_info = "[0][0][0]"},
          tensor<768xf32> {jax.result_info = "[0][0][1]"},
          tensor<768x768xf32> {jax.result_info = "[0][1][0]"},
          tensor<768xf32> {jax.result_info = "[0][1][1]"},
          tensor<768x768xf32> {jax.result_info = "[0][2][0]"},
          tensor<768xf32> {jax.result_info = "[0][2][1]"},
          tensor<768x128xf32> {jax.result_info = "[0][3][0]"},
          tensor<128xf32> {jax.result_info = "[0][3][1]"},
          tensor<f32> {jax.result_info = "[1]"}) {
    %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    // layer 1: 128 -> 768
    %mm1 = stablehlo.dot_general %x, %w1, contracting_dims = [1] x [0], precision = [HIGHEST, HIGHEST] : (tensor<256x128xf32>, tensor<128x768xf32>) -> tensor<256x768xf32>
    %bb1 = stablehlo.broadcast_in_dim %b1, dims = [1] : (tensor<768xf32>) -> tensor<256x768xf32>
    %z1 = stablehlo.add %mm1, %bb1 : tensor<256x768xf32>
    %zeros1 = stablehlo.broadcast_in_dim %zero, dims = [] : (tensor<f32>) -> tensor<256x768xf32>
    %h1 = stablehlo.maximum %z1, %zeros1 : tensor<256x768xf32>
    // layer 2: 768 -> 768
    %mm2 = stablehlo.dot_general %h1, %w2, contracting_dims = [1] x [0], precision = [HIGHEST, HIGHEST] : (tensor<256x768xf32>, tensor<768x768xf32>) -> tensor<256x768xf32>
    %bb2 = stablehlo.broadcast_in_dim %b2, dims = [1] : (tensor<768xf32>) -> tensor<256x768xf32>
    %z2 = stablehlo.add %mm2, %bb2 : tensor<256x768xf32>
    %zeros2 = stablehlo.broadcast_in_dim %zero, dims = [] : (tensor<f32>) -> tensor<256x768xf32>
    %h2 = stablehlo.maximum %z2, %zeros2 : tensor<256x768xf32>
    // layer 3: 768 -> 768
    %mm3 = stablehlo.dot_general %h2, %w3, contracting_dims = [1] x [0], precision = [HIGHEST, HIGHEST] : (tensor<256x768xf32>, tensor<768x768xf32>) -> tensor<256x768xf32>
    %bb3 = stablehlo.broadcast_in_dim %b3, dims = [1] : (tensor<768xf32>) -> tensor<256x768xf32>
    %z3 = stablehlo.add %mm3, %bb3 : tensor<256x768xf32>
    %zeros3 = stablehlo.broadcast_in_dim %zero, dims = [] : (tensor<f32>) -> tensor<256x768xf32>
    %h3 = stablehlo.maximum %z3, %zeros3 : tensor<256x768xf32>
    // layer 4: 768 -> 128
    %mm4 = stablehlo.dot_general %h3, %w4, contracting_dims = [1] x [0], precision = [HIGHEST, HIGHEST] : (tensor<256x768xf32>, tensor<768x128xf32>) -> tensor<256x128xf32>
    %bb4 = stablehlo.broadcast_in_dim %b4, dims = [1] : (tensor<128xf32>) -> tensor<256x128xf32>
    %z4 = stablehlo.add %mm4, %bb4 : tensor<256x128xf32>
    // loss = mean((pred - y)^2) over the global batch
    %diff = stablehlo.subtract %z4, %y : tensor<256x128xf32>
    %sq = stablehlo.multiply %diff, %diff : tensor<256x128xf32>
    %sqsum = stablehlo.reduce(%sq init: %zero) applies stablehlo.add across dimensions = [0, 1] : (tensor<256x128xf32>, tensor<f32>) -> tensor<f32>
    %inv_n = stablehlo.constant dense<3.814697266e-06> : tensor<f32>
    %loss_local = stablehlo.multiply %sqsum, %inv_n : tensor<f32>
    %two_over_n = stablehlo.constant dense<7.629394531e-06> : tensor<f32>
    %scale = stablehlo.broadcast_in_dim %two_over_n, dims = [] : (tensor<f32>) -> tensor<256x128xf32>
    %g4 = stablehlo.multiply %diff, %scale : tensor<256x128xf32>
    // backward
    %dw4 = stablehlo.dot_general %h3, %g4, contracting_dims = [0] x [0], precision = [HIGHEST, HIGHEST] : (tensor<256x768xf32>, tensor<256x128xf32>) -> tensor<768x128xf32>
    %db4 = stablehlo.reduce(%g4 init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<256x128xf32>, tensor<f32>) -> tensor<128xf32>
    %gh3 = stablehlo.dot_general %g4, %w4, contracting_dims = [1] x [1], precision = [HIGHEST, HIGHEST] : (tensor<256x128xf32>, tensor<768x128xf32>) -> tensor<256x768xf32>
    %pos3 = stablehlo.compare GT, %z3, %zeros3, FLOAT : (tensor<256x768xf32>, tensor<256x768xf32>) -> tensor<256x768xi1>
    %g3 = stablehlo.select %pos3, %gh3, %zeros3 : tensor<256x768xi1>, tensor<256x768xf32>
    %dw3 = stablehlo.dot_general %h2, %g3, contracting_dims = [0] x [0], precision = [HIGHEST, HIGHEST] : (tensor<256x768xf32>, tensor<256x768xf32>) -> tensor<768x768xf32>
    %db3 = stablehlo.reduce(%g3 init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<256x768xf32>, tensor<f32>) -> tensor<768xf32>
    %gh2 = stablehlo.dot_general %g3, %w3, contracting_dims = [1] x [1], precision = [HIGHEST, HIGHEST] : (tensor<256x768xf32>, tensor<768x768xf32>) -> tensor<256x768xf32>
    %pos2 = stablehlo.compare GT, %z2, %zeros2, FLOAT : (tensor<256x768xf32>, tensor<256x768xf32>) -> tensor<256x768xi1>
    %g2 = stablehlo.select %pos2, %gh2, %zeros2 : tensor<256x768xi1>, tensor<256x768xf32>
    %dw2 = stablehlo.dot_general %h1, %g2, contracting_dims = [0] x [0], precision = [HIGHEST, HIGHEST] : (tensor<256x768xf32>, tensor<256x768xf32>) -> tensor<768x768xf32>
    %db2 = stablehlo.reduce(%g2 init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<256x768xf32>, tensor<f32>) -> tensor<768xf32>
    %gh1 = stablehlo.dot_general %g2, %w2, contracting_dims = [1] x [1], precision = [HIGHEST, HIGHEST] : (tensor<256x768xf32>, tensor<768x768xf32>) -> tensor<256x768xf32>
    %pos1 = stablehlo.compare GT, %z1, %zeros1, FLOAT : (tensor<256x768xf32>, tensor<256x768xf32>) -> tensor<256x768xi1>
    %g1 = stablehlo.select %pos1, %gh1, %zeros1 : tensor<256x768xi1>, tensor<256x768xf32>
    %dw1 = stablehlo.dot_general %x, %g1, contracting_dims = [0] x [0], precision = [HIGHEST, HIGHEST] : (tensor<256x128xf32>, tensor<256x768xf32>) -> tensor<128x768xf32>
    %db1 = stablehlo.reduce(%g1 init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<256x768xf32>, tensor<f32>) -> tensor<768xf32>
    // psum of the loss and of every gradient over the 8 replicas, one all_reduce each
    %loss = "stablehlo.all_reduce"(%loss_local) <{replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<f32>) -> tensor<f32>
    %dw4_sum = "stablehlo.all_reduce"(%dw4) <{replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<768x128xf32>) -> tensor<768x128xf32>
    %db4_sum = "stablehlo.all_reduce"(%db4) <{replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<128xf32>) -> tensor<128xf32>
    %dw3_sum = "stablehlo.all_reduce"(%dw3) <{replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<768x768xf32>) -> tensor<768x768xf32>
    %db3_sum = "stablehlo.all_reduce"(%db3) <{replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<768xf32>) -> tensor<768xf32>
    %dw2_sum = "stablehlo.all_reduce"(%dw2) <{replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<768x768xf32>) -> tensor<768x768xf32>
    %db2_sum = "stablehlo.all_reduce"(%db2) <{replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<768xf32>) -> tensor<768xf32>
    %dw1_sum = "stablehlo.all_reduce"(%dw1) <{replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<128x768xf32>) -> tensor<128x768xf32>
    %db1_sum = "stablehlo.all_reduce"(%db1) <{replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<768xf32>) -> tensor<768xf32>
    // SGD update
    %lr = stablehlo.constant dense<1.000000e-02> : tensor<f32>
    %lrw1 = stablehlo.broadcast_in_dim %lr, dims = [] : (tensor<f32>) -> tensor<128x768xf32>
    %stepw1 = stablehlo.multiply %dw1_sum, %lrw1 : tensor<128x768xf32>
    %new_w1 = stablehlo.subtract %w1, %stepw1 : tensor<128x768xf32>
    %lrb1 = stablehlo.broadcast_in_dim %lr, dims = [] : (tensor<f32>) -> tensor<768xf32>
    %stepb1 = stablehlo.multiply %db1_sum, %lrb1 : tensor<768xf32>
    %new_b1 = stablehlo.subtract %b1, %stepb1 : tensor<768xf32>
    %lrw2 = stablehlo.broadcast_in_dim %lr, dims = [] : (tensor<f32>) -> tensor<768x768xf32>
    %stepw2 = stablehlo.multiply %dw2_sum, %lrw2 : tensor<768x768xf32>
    %new_w2 = stablehlo.subtract %w2, %stepw2 : tensor<768x768xf32>
    %lrb2 = stablehlo.broadcast_in_dim %lr, dims = [] : (tensor<f32>) -> tensor<768xf32>
    %stepb2 = stablehlo.multiply %db2_sum, %lrb2 : tensor<768xf32>
    %new_b2 = stablehlo.subtract %b2, %stepb2 : tensor<768xf32>
    %lrw3 = stablehlo.broadcast_in_dim %lr, dims = [] : (tensor<f32>) -> tensor<768x768xf32>
    %stepw3 = stablehlo.multiply %dw3_sum, %lrw3 : tensor<768x768xf32>
    %new_w3 = stablehlo.subtract %w3, %stepw3 : tensor<768x768xf32>
    %lrb3 = stablehlo.broadcast_in_dim %lr, dims = [] : (tensor<f32>) -> tensor<768xf32>
    %stepb3 = stablehlo.multiply %db3_sum, %lrb3 : tensor<768xf32>
    %new_b3 = stablehlo.subtract %b3, %stepb3 : tensor<768xf32>
    %lrw4 = stablehlo.broadcast_in_dim %lr, dims = [] : (tensor<f32>) -> tensor<768x128xf32>
    %stepw4 = stablehlo.multiply %dw4_sum, %lrw4 : tensor<768x128xf32>
    %new_w4 = stablehlo.subtract %w4, %stepw4 : tensor<768x128xf32>
    %lrb4 = stablehlo.broadcast_in_dim %lr, dims = [] : (tensor<f32>) -> tensor<128xf32>
    %stepb4 = stablehlo.multiply %db4_sum, %lrb4 : tensor<128xf32>
    %new_b4 = stablehlo.subtract %b4, %stepb4 : tensor<128xf32>
    return %new_w1, %new_b1, %new_w2, %new_b2, %new_w3, %new_b3, %new_w4, %new_b4, %loss : tensor<128x768xf32>, tensor<768xf32>, tensor<768x768xf32>, tensor<768xf32>, tensor<768x768xf32>, tensor<768xf32>, tensor<768x128xf32>, tensor<128xf32>, tensor<f32>
  }
}
