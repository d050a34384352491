// The pass manager's instrumentation and its command line.
// RUN: %tpucc --passes=inline,cse,dce --print-ir-after-all --emit=mlir %s -o %t.out 2>&1 | FileCheck %s --check-prefix=ALL
// RUN: %tpucc --passes=inline,cse,dce --print-ir-after=cse --emit=mlir %s -o %t.out 2>&1 | FileCheck %s --check-prefix=ONE
// RUN: %tpucc --time-passes --verify-each --emit=mlir %s -o %t.out 2>&1 | FileCheck %s --check-prefix=TIME
// RUN: %not %tpucc --passes=inline,nonsense %s 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: %not %tpucc --print-ir-after=nonsense %s 2>&1 | FileCheck %s --check-prefix=BAD2
// RUN: %tpucc -O0 --emit=mlir %s | FileCheck %s --check-prefix=O0
// RUN: %tpucc -O2 --emit=mlir %s | FileCheck %s --check-prefix=O2

// ALL: IR Dump After inline
// ALL: func.func @main
// ALL: IR Dump After cse
// ALL: IR Dump After dce
// ALL-NOT: IR Dump After

// ONE-NOT: IR Dump After inline
// ONE: IR Dump After cse
// ONE-NOT: IR Dump After dce

// TIME: Pass execution timing report
// TIME: inline
// TIME: canonicalize
// TIME: buffer-assign
// TIME: Total

// BAD: tpucc: unknown pass 'nonsense'
// BAD2: tpucc: unknown pass 'nonsense' in --print-ir-after

// -O0 leaves the program as written; -O2 inlines the private helper,
// merges the two equal adds and drops the dead op.
// O0: func.call @helper
// O0: func.func private @helper
// O2-NOT: func.call
// O2-NOT: @helper
// O2-NOT: stablehlo.subtract
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @helper(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = stablehlo.add %0, %x : tensor<4xf32>
  %2 = stablehlo.add %0, %x : tensor<4xf32>
  %dead = stablehlo.subtract %1, %2 : tensor<4xf32>
  %3 = stablehlo.multiply %1, %2 : tensor<4xf32>
  return %3 : tensor<4xf32>
}
func.func private @helper(%y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.negate %y : tensor<4xf32>
  return %0 : tensor<4xf32>
}
