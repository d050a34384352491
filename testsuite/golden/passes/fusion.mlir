// The fusion pass: which ops join a tpu.fusion, of which kind, and which
// must stay out.
// RUN: %tpucc --passes=fusion --verify-each --emit=mlir --split-input-file %s | FileCheck %s

// A chain of element-wise ops with a broadcast scalar: one loop fusion.
// CHECK-LABEL: func.func @chain
// CHECK: "tpu.fusion"(%arg0, %arg1)
// CHECK: stablehlo.broadcast_in_dim
// CHECK: stablehlo.multiply
// CHECK: stablehlo.add
// CHECK: stablehlo.tanh
// CHECK: tpu.yield
// CHECK: {kind = "loop"}
// CHECK-NOT: stablehlo.
// CHECK: func.return
func.func @chain(%x: tensor<8x128xf32>, %s: tensor<f32>) -> tensor<8x128xf32> {
  %b = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<8x128xf32>
  %0 = stablehlo.multiply %x, %b : tensor<8x128xf32>
  %1 = stablehlo.add %0, %x : tensor<8x128xf32>
  %2 = stablehlo.tanh %1 : tensor<8x128xf32>
  return %2 : tensor<8x128xf32>
}

// -----

// An expensive op with two users is computed once, not duplicated into
// both consumers: it stays the root of its own fusion and both read it.
// CHECK-LABEL: func.func @no_duplicate_expensive
// CHECK: %[[E:.*]] = "tpu.fusion"(%arg0)
// CHECK: stablehlo.exponential
// CHECK: {kind = "loop"}
// CHECK: "tpu.fusion"(%[[E]]
// CHECK-NOT: stablehlo.exponential
// CHECK: func.return
func.func @no_duplicate_expensive(%x: tensor<256xf32>) -> (tensor<256xf32>, tensor<256xf32>) {
  %n = stablehlo.negate %x : tensor<256xf32>
  %e = stablehlo.exponential %n : tensor<256xf32>
  %a = stablehlo.add %e, %e : tensor<256xf32>
  %m = stablehlo.multiply %e, %x : tensor<256xf32>
  %s = stablehlo.sqrt %m : tensor<256xf32>
  return %a, %s : tensor<256xf32>, tensor<256xf32>
}

// -----

// A cheap broadcast with two users is duplicated into both fusions.
// CHECK-LABEL: func.func @duplicate_broadcast
// CHECK: "tpu.fusion"
// CHECK: stablehlo.broadcast_in_dim
// CHECK: "tpu.fusion"
// CHECK: stablehlo.broadcast_in_dim
// CHECK-NOT: stablehlo.broadcast_in_dim
// CHECK: func.return
func.func @duplicate_broadcast(%x: tensor<64x128xf32>, %v: tensor<128xf32>) -> (tensor<64x128xf32>, tensor<64x128xf32>) {
  %b = stablehlo.broadcast_in_dim %v, dims = [1] : (tensor<128xf32>) -> tensor<64x128xf32>
  %0 = stablehlo.add %x, %b : tensor<64x128xf32>
  %1 = stablehlo.multiply %0, %0 : tensor<64x128xf32>
  %2 = stablehlo.subtract %1, %b : tensor<64x128xf32>
  %3 = stablehlo.maximum %1, %b : tensor<64x128xf32>
  return %2, %3 : tensor<64x128xf32>, tensor<64x128xf32>
}

// -----

// Reduction input fusion: the element-wise producers of a reduce.
// CHECK-LABEL: func.func @reduce_input
// CHECK: "tpu.fusion"
// CHECK: stablehlo.multiply
// CHECK: stablehlo.reduce
// CHECK: {kind = "input"}
func.func @reduce_input(%x: tensor<16x256xf32>) -> tensor<16xf32> {
  %0 = stablehlo.multiply %x, %x : tensor<16x256xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%0 init: %z) applies stablehlo.add across dimensions = [1] : (tensor<16x256xf32>, tensor<f32>) -> tensor<16xf32>
  return %r : tensor<16xf32>
}

// -----

// Output fusion: bias add and activation fused into the dot_general.
// CHECK-LABEL: func.func @dot_bias_relu
// CHECK: "tpu.fusion"
// CHECK: stablehlo.dot_general
// CHECK: stablehlo.add
// CHECK: stablehlo.maximum
// CHECK: {kind = "output"}
func.func @dot_bias_relu(%a: tensor<128x256xf32>, %w: tensor<256x512xf32>, %bias: tensor<512xf32>) -> tensor<128x512xf32> {
  %d = stablehlo.dot_general %a, %w, contracting_dims = [1] x [0] : (tensor<128x256xf32>, tensor<256x512xf32>) -> tensor<128x512xf32>
  %b = stablehlo.broadcast_in_dim %bias, dims = [1] : (tensor<512xf32>) -> tensor<128x512xf32>
  %0 = stablehlo.add %d, %b : tensor<128x512xf32>
  %z = stablehlo.constant dense<0.0> : tensor<128x512xf32>
  %1 = stablehlo.maximum %0, %z : tensor<128x512xf32>
  return %1 : tensor<128x512xf32>
}

// -----

// A dot_general whose result is also returned is not fused into its user.
// CHECK-LABEL: func.func @dot_two_users
// CHECK: %[[D:.*]] = stablehlo.dot_general
// CHECK: "tpu.fusion"(%[[D]]
// CHECK-NOT: stablehlo.dot_general
// CHECK: {kind = "loop"}
func.func @dot_two_users(%a: tensor<128x256xf32>, %w: tensor<256x128xf32>) -> (tensor<128x128xf32>, tensor<128x128xf32>) {
  %d = stablehlo.dot_general %a, %w, contracting_dims = [1] x [0] : (tensor<128x256xf32>, tensor<256x128xf32>) -> tensor<128x128xf32>
  %0 = stablehlo.tanh %d : tensor<128x128xf32>
  %1 = stablehlo.negate %0 : tensor<128x128xf32>
  return %d, %1 : tensor<128x128xf32>, tensor<128x128xf32>
}

// -----

// Siblings reading the same array become one multi-output fusion.
// CHECK-LABEL: func.func @siblings
// CHECK: %[[F:.*]]:2 = "tpu.fusion"(
// CHECK-SAME: %arg0
// CHECK: stablehlo.reduce
// CHECK: {kind = "multi_output"}
// CHECK-NOT: "tpu.fusion"
func.func @siblings(%x: tensor<32x512xf32>) -> (tensor<32xf32>, tensor<32xf32>) {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %sq = stablehlo.multiply %x, %x : tensor<32x512xf32>
  %a = stablehlo.reduce(%sq init: %z) applies stablehlo.add across dimensions = [1] : (tensor<32x512xf32>, tensor<f32>) -> tensor<32xf32>
  %ab = stablehlo.abs %x : tensor<32x512xf32>
  %m = stablehlo.reduce(%ab init: %z) applies stablehlo.maximum across dimensions = [1] : (tensor<32x512xf32>, tensor<f32>) -> tensor<32xf32>
  return %a, %m : tensor<32xf32>, tensor<32xf32>
}

// -----

// Nothing to fuse: a single op, ops of different shapes, and side effects.
// CHECK-LABEL: func.func @must_not_fuse
// CHECK-NOT: tpu.fusion
// CHECK: func.return
func.func @must_not_fuse(%x: tensor<4x8xf32>, %y: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>) {
  %0 = stablehlo.add %x, %x : tensor<4x8xf32>
  %1 = stablehlo.reshape %0 : (tensor<4x8xf32>) -> tensor<32xf32>
  %2 = stablehlo.slice %1 [0:8] : (tensor<32xf32>) -> tensor<8xf32>
  %3 = stablehlo.multiply %2, %y : tensor<8xf32>
  %4 = "stablehlo.custom_call"(%0) {call_target_name = "side_effect", has_side_effect = true} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %4, %3 : tensor<4x8xf32>, tensor<8xf32>
}

// -----

// A reduce whose body reads a value from outside it cannot fold tiles:
// its producer stays unfused (and is counted whole by buffer-assign).
// CHECK-LABEL: func.func @capturing_reducer
// CHECK-NOT: "tpu.fusion"
// CHECK: stablehlo.exponential
// CHECK: stablehlo.reduce
// CHECK: func.return
func.func @capturing_reducer(%x: tensor<32x512xf32>, %k: tensor<f32>) -> tensor<32xf32> {
  %e = stablehlo.exponential %x : tensor<32x512xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%e init: %z) across dimensions = [1] : (tensor<32x512xf32>, tensor<f32>) -> tensor<32xf32>
    reducer(%a: tensor<f32>, %b: tensor<f32>) {
      %m = stablehlo.multiply %b, %k : tensor<f32>
      %s = stablehlo.add %a, %m : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }
  return %r : tensor<32xf32>
}

// -----

// A broadcast inside a fusion reads positions outside the tile it writes,
// so what it reads stays a whole operand: the exponential it transposes is
// not pulled in (the VM could not compute it tile by tile).
// CHECK-LABEL: func.func @broadcast_of_computed
// CHECK: %[[E:.*]] = stablehlo.exponential %arg0
// CHECK: "tpu.fusion"({{.*}}%[[E]]
// CHECK: stablehlo.broadcast_in_dim
// CHECK: {kind = "loop"}
func.func @broadcast_of_computed(%x: tensor<64x64xf32>, %y: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %e = stablehlo.exponential %x : tensor<64x64xf32>
  %t = stablehlo.broadcast_in_dim %e, dims = [1, 0] : (tensor<64x64xf32>) -> tensor<64x64xf32>
  %s = stablehlo.add %t, %y : tensor<64x64xf32>
  %u = stablehlo.add %s, %e : tensor<64x64xf32>
  return %u : tensor<64x64xf32>
}
