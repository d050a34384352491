// inline, cse and dce, with the cases where they must not fire.
// RUN: %tpucc --passes=inline,cse,dce --verify-each --emit=mlir --split-input-file %s | FileCheck %s

// CSE merges equal ops, also into a nested region; not ops whose
// attributes differ; never elided weights (unknown values) or rng.
// CHECK-LABEL: func.func @cse
// CHECK-COUNT-1: stablehlo.add %arg0, %arg0
// CHECK: stablehlo.compare  GT
// CHECK: stablehlo.compare  LT
// CHECK: dense_resource<__elided__>
// CHECK: dense_resource<__elided__>
// CHECK: stablehlo.rng
// CHECK: stablehlo.rng
func.func @cse(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi1>, tensor<4xi1>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = stablehlo.add %x, %x : tensor<4xf32>
  %1 = stablehlo.add %x, %x : tensor<4xf32>
  %2 = stablehlo.multiply %0, %1 : tensor<4xf32>
  %3 = stablehlo.compare GT, %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %4 = stablehlo.compare LT, %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %w1 = stablehlo.constant dense_resource<__elided__> : tensor<4xf32>
  %w2 = stablehlo.constant dense_resource<__elided__> : tensor<4xf32>
  %ws = stablehlo.add %w1, %w2 : tensor<4xf32>
  %lo = stablehlo.constant dense<0.0> : tensor<f32>
  %hi = stablehlo.constant dense<1.0> : tensor<f32>
  %shape = stablehlo.constant dense<4> : tensor<1xi64>
  %r1 = stablehlo.rng %lo, %hi, %shape, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<4xf32>
  %r2 = stablehlo.rng %lo, %hi, %shape, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<4xf32>
  %rs = stablehlo.add %r1, %r2 : tensor<4xf32>
  return %2, %3, %4, %ws, %rs, %rs : tensor<4xf32>, tensor<4xi1>, tensor<4xi1>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// DCE removes dead pure ops, keeps side effects.
// CHECK-LABEL: func.func @dce
// CHECK-NOT: stablehlo.exponential
// CHECK: stablehlo.custom_call @side_effect
// CHECK: func.return
func.func @dce(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.exponential %x : tensor<4xf32>
  %1 = stablehlo.add %0, %0 : tensor<4xf32>
  %2 = stablehlo.custom_call @side_effect(%x) {has_side_effect = true} : (tensor<4xf32>) -> tensor<4xf32>
  return %x : tensor<4xf32>
}

// -----

// Inlining copies the callee at each call; a public callee stays.
// CHECK-LABEL: func.func @caller
// CHECK-NOT: func.call
// CHECK: stablehlo.negate %arg0
// CHECK: stablehlo.negate
// CHECK: stablehlo.sine
// CHECK: func.func @kept
func.func @caller(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @neg(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = func.call @neg(%0) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = func.call @kept(%1) : (tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}
func.func private @neg(%y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.negate %y : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @kept(%y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.sine %y : tensor<4xf32>
  return %0 : tensor<4xf32>
}
