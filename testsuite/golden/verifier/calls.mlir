// RUN: %verify-diagnostics %s
// The call graph (ir/verify_calls.c): tpurun's loader refuses recursion, so
// the verifier does, at the call that starts the cycle, naming all of it.
// Chains deeper than tpurun runs: call_depth.mlir.

func.func @self(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'func.call' op @self calls itself (tpurun runs no recursive calls)}}
  %0 = func.call @self(%x) : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @main(%x: tensor<f32>) -> tensor<f32> {
  %0 = func.call @f(%x) : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
func.func private @f(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'func.call' op @f calls itself through @g -> @h -> @f (tpurun runs no recursive calls)}}
  %0 = func.call @g(%x) : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
func.func private @g(%x: tensor<f32>) -> tensor<f32> {
  %0 = func.call @h(%x) : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
func.func private @h(%x: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.negate %x : tensor<f32>
  %1 = func.call @f(%0) : (tensor<f32>) -> tensor<f32>
  return %1 : tensor<f32>
}

// -----

// Through a region body: the while's body calls @g, which calls @loop.
func.func @loop(%x: tensor<i32>) -> tensor<i32> {
  %r = stablehlo.while(%i = %x) : tensor<i32>
   cond {
    %c = stablehlo.constant dense<true> : tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    // expected-error @+1 {{'func.call' op @loop calls itself through @g -> @loop (tpurun runs no recursive calls)}}
    %n = func.call @g(%i) : (tensor<i32>) -> tensor<i32>
    stablehlo.return %n : tensor<i32>
  }
  return %r : tensor<i32>
}
func.func private @g(%x: tensor<i32>) -> tensor<i32> {
  %p = stablehlo.constant dense<true> : tensor<i1>
  %0 = "stablehlo.if"(%p) ({
    %1 = func.call @loop(%x) : (tensor<i32>) -> tensor<i32>
    stablehlo.return %1 : tensor<i32>
  }, {
    stablehlo.return %x : tensor<i32>
  }) : (tensor<i1>) -> tensor<i32>
  return %0 : tensor<i32>
}

// -----

// interpreter.run_parallel programs are calls too.
func.func @main() {
  %z = stablehlo.constant dense<0> : tensor<i32>
  // expected-error @+1 {{'interpreter.run_parallel' op @main calls itself through @chip -> @main (tpurun runs no recursive calls)}}
  %r:2 = "interpreter.run_parallel"(%z, %z) {programs = [[@chip], [@chip]]} : (tensor<i32>, tensor<i32>) -> (tensor<i32>, tensor<i32>)
  func.return
}
func.func @chip(%x: tensor<i32>) -> tensor<i32> {
  func.call @main() : () -> ()
  return %x : tensor<i32>
}

// -----

// Shared callees are no cycle: @a and @b both call @leaf, twice.
func.func @main(%x: tensor<f32>) -> tensor<f32> {
  %0 = func.call @a(%x) : (tensor<f32>) -> tensor<f32>
  %1 = func.call @b(%0) : (tensor<f32>) -> tensor<f32>
  %2 = func.call @leaf(%1) : (tensor<f32>) -> tensor<f32>
  return %2 : tensor<f32>
}
func.func private @a(%x: tensor<f32>) -> tensor<f32> {
  %0 = func.call @leaf(%x) : (tensor<f32>) -> tensor<f32>
  %1 = func.call @b(%0) : (tensor<f32>) -> tensor<f32>
  return %1 : tensor<f32>
}
func.func private @b(%x: tensor<f32>) -> tensor<f32> {
  %0 = func.call @leaf(%x) : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
func.func private @leaf(%x: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.negate %x : tensor<f32>
  return %0 : tensor<f32>
}
