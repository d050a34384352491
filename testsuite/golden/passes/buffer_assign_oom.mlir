// buffer-assign: a program whose live buffers exceed the target's HBM is
// rejected at the op where the peak happens, naming the largest buffers.
// RUN: %not %tpucc --passes=buffer-assign --verify-each --emit=mlir %s 2>&1 | FileCheck %s
// RUN: %not %tpucc -O0 %s -o %t.tpub 2>&1 | FileCheck %s
// RUN: test ! -e %t.tpub
// The same program fits in v5p's 95 GiB.
// RUN: %tpucc --passes=buffer-assign --verify-each --target=v5p --report %s | FileCheck %s --check-prefix=V5P
// V5P: peak HBM 32.0 GiB (34359742464 bytes)

// CHECK: buffer_assign_oom.mlir:[[@LINE+9]]:8: error: program needs 32.0 GiB of HBM at its peak but v5e has 16 GiB
// CHECK: buffer_assign_oom.mlir:[[@LINE+7]]:8: note: 'stablehlo.broadcast_in_dim' op result #0 (tensor<65536x65536xf32>) is live at the peak: 16.0 GiB
// CHECK: buffer_assign_oom.mlir:[[@LINE+7]]:8: note: 'stablehlo.broadcast_in_dim' op result #0 (tensor<65536x65536xf32>) is live at the peak: 16.0 GiB
// CHECK: buffer_assign_oom.mlir:[[@LINE+4]]:1: note: 'func.func' op argument #0 (tensor<f32>) is live at the peak: 4.0 KiB
// CHECK-NOT: error:
// The add reuses the buffer of its first operand (it dies there), so the
// peak is the two broadcasts, not three buffers.
func.func @main(%s: tensor<f32>) -> tensor<65536x65536xf32> {
  %0 = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<65536x65536xf32>
  %1 = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<65536x65536xf32>
  %2 = stablehlo.add %0, %1 : tensor<65536x65536xf32>
  return %2 : tensor<65536x65536xf32>
}
