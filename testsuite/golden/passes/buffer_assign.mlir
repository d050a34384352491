// buffer-assign: liveness, in-place reuse and the peak of live HBM bytes,
// seen through --report's total line.  Each f32 1024x1024 buffer is 4 MiB.
// RUN: %tpucc --passes=buffer-assign --verify-each --report --split-input-file %s | FileCheck %s
// Many callees: their peaks are memoized in a table that grows while one is
// being computed.  x (4) + f's result (4) + inside f, the previous link (4),
// the call's result (4) and the callee's temporary (4) = 20 MiB.
// RUN: %python %S/Inputs/call_fan.py > %t.fan.mlir
// RUN: %tpucc -O0 --report %t.fan.mlir | FileCheck %s --check-prefix=FAN
// FAN: peak HBM 20.0 MiB (20971520 bytes)
// The pass does not change the IR.
// RUN: %tpucc --passes=buffer-assign --verify-each --emit=mlir --split-input-file %s | FileCheck %s --check-prefix=IR
// IR-NOT: tpu.
// IR: %0 = stablehlo.exponential %arg0 : tensor<1024x1024xf32>
// IR-NEXT: %1 = stablehlo.negate %0 : tensor<1024x1024xf32>

// An element-wise chain over an argument that dies at its first op runs in
// place: one buffer.
// CHECK: peak HBM 4.0 MiB (4194304 bytes)
func.func @main(%a: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %0 = stablehlo.exponential %a : tensor<1024x1024xf32>
  %1 = stablehlo.negate %0 : tensor<1024x1024xf32>
  return %1 : tensor<1024x1024xf32>
}

// -----
// No reuse while the operand is still needed: two buffers.
// CHECK: peak HBM 8.0 MiB (8388608 bytes)
func.func @main(%a: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %0 = stablehlo.exponential %a : tensor<1024x1024xf32>
  %1 = stablehlo.add %0, %a : tensor<1024x1024xf32>
  return %1 : tensor<1024x1024xf32>
}

// -----
// No reuse by an op that is not element-wise (transpose), nor across sizes
// (convert to f64 doubles the bytes): 4 + 4 and then 4 + 8 MiB.
// CHECK: peak HBM 12.0 MiB (12582912 bytes)
func.func @main(%a: tensor<1024x1024xf32>) -> tensor<1024x1024xf64> {
  %0 = stablehlo.transpose %a, dims = [1, 0] : (tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %1 = stablehlo.convert %0 : (tensor<1024x1024xf32>) -> tensor<1024x1024xf64>
  return %1 : tensor<1024x1024xf64>
}

// -----
// Reuse keeps the element type, as the VM's in-place flag does: a convert
// f32 -> i32 (same bytes) gets a buffer of its own, 4 + 4 MiB.
// CHECK: peak HBM 8.0 MiB (8388608 bytes)
func.func @main(%a: tensor<1024x1024xf32>) -> tensor<1024x1024xi32> {
  %0 = stablehlo.convert %a : (tensor<1024x1024xf32>) -> tensor<1024x1024xi32>
  return %0 : tensor<1024x1024xi32>
}

// -----
// A bitcast reshape is a view: it keeps the argument's buffer alive and
// allocates nothing; the exponential then reuses that buffer.
// CHECK: peak HBM 4.0 MiB (4194304 bytes)
func.func @main(%a: tensor<1024x1024xf32>) -> tensor<1x1024x1024xf32> {
  %0 = stablehlo.reshape %a : (tensor<1024x1024xf32>) -> tensor<1x1024x1024xf32>
  %1 = stablehlo.exponential %0 : tensor<1x1024x1024xf32>
  return %1 : tensor<1x1024x1024xf32>
}

// -----
// A dense constant is a resident weight (one 4 KiB tile here); a splat
// constant is materialized by the op that reads it, while it runs: the add
// needs 4 (a) + 4 (splat) MiB and writes in place.
// CHECK: peak HBM 8.0 MiB (8392704 bytes)
func.func @main(%a: tensor<1024x1024xf32>) -> (tensor<1024x1024xf32>, tensor<4xf32>) {
  %w = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %one = stablehlo.constant dense<1.0> : tensor<1024x1024xf32>
  %0 = stablehlo.add %a, %one : tensor<1024x1024xf32>
  return %0, %w : tensor<1024x1024xf32>, tensor<4xf32>
}

// -----
// A loop body's temporaries count while the loop runs: 4 (x) + 4 (the
// while's result, which the body's result lives in) + 4 (the exponential
// inside the body) + three 4 KiB tiles of scalars (%n, the counter the
// while returns, the splat %c0 it reads).
// CHECK: peak HBM 12.0 MiB (12595200 bytes)
func.func @main(%x: tensor<1024x1024xf32>, %n: tensor<i32>) -> tensor<1024x1024xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %r:2 = stablehlo.while(%i = %c0, %acc = %x) : tensor<i32>, tensor<1024x1024xf32>
   cond {
    %lt = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %i1 = stablehlo.add %i, %c1 : tensor<i32>
    %e = stablehlo.exponential %acc : tensor<1024x1024xf32>
    %t = stablehlo.transpose %e, dims = [1, 0] : (tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
    %a1 = stablehlo.multiply %t, %acc : tensor<1024x1024xf32>
    stablehlo.return %i1, %a1 : tensor<i32>, tensor<1024x1024xf32>
  }
  return %r#1 : tensor<1024x1024xf32>
}

// -----
// A call adds its callee's own buffers (the callee's arguments and results
// are the caller's): 4 (a) + 4 (the call's result) + 4 (the temporary).
// CHECK: peak HBM 12.0 MiB (12582912 bytes)
func.func @main(%a: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %0 = func.call @f(%a) : (tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %0 : tensor<1024x1024xf32>
}
func.func private @f(%x: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %0 = stablehlo.transpose %x, dims = [1, 0] : (tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %1 = stablehlo.transpose %0, dims = [1, 0] : (tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %1 : tensor<1024x1024xf32>
}
