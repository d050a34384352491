// custom_call @shape_assertion: a constant-true one disappears, a
// constant-false one is a located error with the formatted message, one
// that depends on run-time data ends the run with exit 4.
// RUN: %tpucc %s -O0 --emit=mlir --input-shape=i64=3 --input-shape=3x4xf32 --input-shape=i32 | FileCheck %s --check-prefix=TRUE
// RUN: %not %tpucc %s -O0 --emit=mlir --input-shape=i64=2 --input-shape=2x4xf32 --input-shape=i32 2>&1 | FileCheck %s --check-prefix=FALSE
// RUN: %tpurun %s --input=i64=3 --input=3x4xf32=random --input=i32=1 | FileCheck %s --check-prefix=OK
// RUN: %not %tpurun %s --input=i64=3 --input=3x4xf32=random --input=i32=7 2>&1 | FileCheck %s --check-prefix=TRAP
// RUN: %tpurun %s --input=i64=3 --input=3x4xf32=random --input=i32=7; test $? -eq 4

// TRUE-NOT: must be at least
// TRUE: stablehlo.custom_call @shape_assertion
// TRUE-SAME: index {0} out of range
// TRUE-NOT: must be at least
// FALSE: refine_assertion.mlir:25:3: error: 'stablehlo.custom_call' op shape assertion failed: dimension 2 must be at least 3
// OK: result[0]: f32=
// TRAP: refine_assertion.mlir:26:3: error: 'stablehlo.custom_call' op shape assertion failed: index 7 out of range [0, 3)
func.func public @main(%arg0: tensor<i64>, %arg1: tensor<?x4xf32>, %arg2: tensor<i32>) -> tensor<f32> {
  %three = stablehlo.constant dense<3> : tensor<i64>
  %ok = stablehlo.compare GE, %arg0, %three, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
  %d = stablehlo.convert %arg0 : (tensor<i64>) -> tensor<i32>
  %z = stablehlo.constant dense<0> : tensor<i32>
  %lo = stablehlo.compare GE, %arg2, %z, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
  %hi = stablehlo.compare LT, %arg2, %d, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
  %in = stablehlo.and %lo, %hi : tensor<i1>
  stablehlo.custom_call @shape_assertion(%ok, %arg0) {error_message = "dimension {0} must be at least 3", has_side_effect = true} : (tensor<i1>, tensor<i64>) -> ()
  stablehlo.custom_call @shape_assertion(%in, %arg2, %d) {error_message = "index {0} out of range [0, {1})", has_side_effect = true} : (tensor<i1>, tensor<i32>, tensor<i32>) -> ()
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%arg1 init: %zero) applies stablehlo.add across dimensions = [0, 1] : (tensor<?x4xf32>, tensor<f32>) -> tensor<f32>
  return %s : tensor<f32>
}
