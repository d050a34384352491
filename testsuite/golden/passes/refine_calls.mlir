// refine-shapes specializes a callee once per distinct signature (operand
// types and constant scalar operands): four calls of one signature
// make one copy of @f and one of @g, not one per call site (which
// would grow exponentially with the call depth).
// RUN: %tpucc %s -O0 --emit=mlir --input-shape=3xf32 --print-ir-after=refine-shapes 2>&1 >/dev/null | FileCheck %s
// RUN: %tpurun %s --input=3xf32=1,2,3 | FileCheck %s --check-prefix=RESULT

// CHECK-LABEL: IR Dump After refine-shapes
// CHECK-COUNT-1: func.func private @g_refined_{{[0-9]+}}(%arg0: tensor<3xf32>) -> tensor<3xf32>
// CHECK-COUNT-1: func.func private @f_refined_{{[0-9]+}}(%arg0: tensor<3xf32>) -> tensor<3xf32>
// CHECK-NOT: func.func private
// CHECK: func.func @main
// RESULT: result[0]: 3xf32=16 32 48
func.func private @g(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = stablehlo.add %x, %x : tensor<?xf32>
  return %0 : tensor<?xf32>
}
func.func private @f(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = func.call @g(%x) : (tensor<?xf32>) -> tensor<?xf32>
  %1 = func.call @g(%0) : (tensor<?xf32>) -> tensor<?xf32>
  return %1 : tensor<?xf32>
}
func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = func.call @f(%x) : (tensor<?xf32>) -> tensor<?xf32>
  %1 = func.call @f(%0) : (tensor<?xf32>) -> tensor<?xf32>
  return %1 : tensor<?xf32>
}
