// --report at -O0 (no inlining): a call is expanded into its callee's rows,
// indented, each time it is called; a while loop is one row that counts one
// trip of its condition and body.
// RUN: %tpucc -O0 --report --verify-each %s | FileCheck %s
// RUN: %tpucc -O0 --report --verify-each --split-input-file %s | FileCheck %s --check-prefix=SPLIT

// CHECK: op
// CHECK-NEXT: {{^  }}stablehlo.exponential report_calls.mlir:[[@LINE+26]]:8 1048576 8388608 11.243 HBM
// CHECK-NEXT: {{^    }}stablehlo.add report_calls.mlir:[[@LINE+31]]:8 1048576 12582912 16.364 HBM
// CHECK-NEXT: {{^  }}stablehlo.exponential report_calls.mlir:[[@LINE+24]]:8 1048576 8388608 11.243 HBM
// CHECK-NEXT: {{^    }}stablehlo.add report_calls.mlir:[[@LINE+29]]:8 1048576 12582912 16.364 HBM
// CHECK-NEXT: {{^}}stablehlo.while report_calls.mlir:[[@LINE+9]]:10 1048578 12607488 18.394 HBM
// CHECK-NEXT: time by bound: MXU 0.000 us, VPU 0.000 us, HBM 73.606 us, ICI 0.000 us, issue 0.000 us
// CHECK-NEXT: total: modeled 73.606 us, 5242882 FLOPs, 54550528 HBM bytes, MXU utilization 0.0%, peak HBM 12.0 MiB (12587008 bytes)
// CHECK-NOT: func @
func.func @main(%x: tensor<1024x1024xf32>, %n: tensor<i32>) -> tensor<1024x1024xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %0 = call @outer(%x) : (tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %1 = call @outer(%0) : (tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %r:2 = stablehlo.while(%i = %c0, %acc = %1) : tensor<i32>, tensor<1024x1024xf32>
   cond {
    %lt = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %i1 = stablehlo.add %i, %c1 : tensor<i32>
    %a1 = stablehlo.multiply %acc, %acc : tensor<1024x1024xf32>
    stablehlo.return %i1, %a1 : tensor<i32>, tensor<1024x1024xf32>
  }
  return %r#1 : tensor<1024x1024xf32>
}

func.func private @outer(%x: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %0 = stablehlo.exponential %x : tensor<1024x1024xf32>
  %1 = call @inner(%0) : (tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %1 : tensor<1024x1024xf32>
}

func.func private @inner(%x: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %0 = stablehlo.add %x, %x : tensor<1024x1024xf32>
  return %0 : tensor<1024x1024xf32>
}

// -----
// Without @main, every public function is an entry point with a header.
// SPLIT: // -----
// SPLIT: func @first
// SPLIT-NEXT: stablehlo.negate report_calls.mlir:[[@LINE+5]]:8
// SPLIT-NEXT: func @second
// SPLIT-NEXT: stablehlo.abs report_calls.mlir:[[@LINE+10]]:8
// SPLIT-NOT: func @helper
func.func @first(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = stablehlo.negate %x : tensor<8xf32>
  return %0 : tensor<8xf32>
}
func.func private @helper(%x: tensor<8xf32>) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}
func.func @second(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = stablehlo.abs %x : tensor<8xf32>
  return %0 : tensor<8xf32>
}
