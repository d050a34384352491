// Lowering of a dot_general with a tpu.mxu_tile schedule (and its
// tpu.mxu_pad padded sizes) to the mxu_dot instruction; without a schedule
// it stays a dot_general.  Bad schedules are diagnosed at the op.
// RUN: %not %tpucc -O0 --split-input-file --emit=asm %s 2>/dev/null | FileCheck %s
// RUN: %not %tpucc -O0 --split-input-file --emit=asm %s 2>&1 >/dev/null | FileCheck %s --check-prefix=ERR

// CHECK-LABEL: func @tiled
// CHECK: = mxu_dot r0, r1 lhs_batching_dims=[] rhs_batching_dims=[] lhs_contracting_dims=[1] rhs_contracting_dims=[0] precision=[] tile=[128, 128, 128] pad=[304, 256, 256]
func.func @tiled(%a: tensor<300x200xf32>, %b: tensor<200x130xf32>) -> tensor<300x130xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] {tpu.mxu_tile = array<i64: 128, 128, 128>, tpu.mxu_pad = array<i64: 304, 256, 256>} : (tensor<300x200xf32>, tensor<200x130xf32>) -> tensor<300x130xf32>
  return %0 : tensor<300x130xf32>
}

// -----

// Without tpu.mxu_pad the padded sizes are the real ones (M, N, K); the
// generic form's dense attributes work as well.  Batch dims count in none.
// CHECK-LABEL: func @batched_no_pad
// CHECK: = mxu_dot r0, r1 lhs_batching_dims=[0] rhs_batching_dims=[0] lhs_contracting_dims=[2] rhs_contracting_dims=[1] precision=[] tile=[8, 16, 32] pad=[5, 11, 7]
func.func @batched_no_pad(%a: tensor<3x5x7xf32>, %b: tensor<3x7x11xf32>) -> tensor<3x5x11xf32> {
  %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>, tpu.mxu_tile = dense<[8, 16, 32]> : tensor<3xi64>} : (tensor<3x5x7xf32>, tensor<3x7x11xf32>) -> tensor<3x5x11xf32>
  return %0 : tensor<3x5x11xf32>
}

// -----

// No schedule (a dot the layout pass keeps on the vector unit, or -O0): dot_general.
// CHECK-LABEL: func @plain
// CHECK-NOT: = mxu_dot
// CHECK: = dot_general r0, r1
// CHECK-NOT: = mxu_dot
func.func @plain(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) -> tensor<4x2xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] {tpu.unit = "vpu"} : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

// ERR: mxu_dot.mlir:[[@LINE+2]]:8: error: 'stablehlo.dot_general' op tpu.mxu_tile and tpu.mxu_pad must be array<i64: M, N, K>
func.func @two_sizes(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) -> tensor<4x2xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] {tpu.mxu_tile = array<i64: 128, 128>} : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

// ERR: mxu_dot.mlir:[[@LINE+2]]:8: error: 'stablehlo.dot_general' op tpu.mxu_tile M = 0 is not in [1, 65536]
func.func @zero_tile(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) -> tensor<4x2xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] {tpu.mxu_tile = array<i64: 0, 128, 128>} : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

// ERR: mxu_dot.mlir:[[@LINE+2]]:8: error: 'stablehlo.dot_general' op tpu.mxu_pad N = 100 must be at least the size 130 and at most 256 more
func.func @pad_too_small(%a: tensor<300x200xf32>, %b: tensor<200x130xf32>) -> tensor<300x130xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] {tpu.mxu_tile = array<i64: 128, 128, 128>, tpu.mxu_pad = array<i64: 304, 100, 256>} : (tensor<300x200xf32>, tensor<200x130xf32>) -> tensor<300x130xf32>
  return %0 : tensor<300x130xf32>
}

// -----

// ERR: mxu_dot.mlir:[[@LINE+2]]:8: error: 'stablehlo.dot_general' op tpu.mxu_pad K = 2000 must be at least the size 200 and at most 512 more
func.func @pad_too_large(%a: tensor<300x200xf32>, %b: tensor<200x130xf32>) -> tensor<300x130xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] {tpu.mxu_tile = array<i64: 128, 128, 512>, tpu.mxu_pad = array<i64: 304, 256, 2000>} : (tensor<300x200xf32>, tensor<200x130xf32>) -> tensor<300x130xf32>
  return %0 : tensor<300x130xf32>
}
