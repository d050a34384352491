// A convolution output fusion whose result's outermost dimension is not the
// batch (conv2d's weight gradient, as PyTorch's backward writes it: input
// [f, b, 0, 1], output [f, b, 0, 1]) runs as one chunk: its bits are -O0's.
// The VM once cut such a result into batch chunks along its feature
// dimension and wrote past the chunk (heap corruption).
// RUN: %tpucc --emit=mlir %s -o - | FileCheck %s --check-prefix=IR
// RUN: %tpurun -O0 %s --seed=7 --input=random --input=random --input=random --output=@%t.0.npy
// RUN: %tpurun -O2 %s --seed=7 --input=random --input=random --input=random --output=@%t.2.npy
// RUN: %tpurun -O2 --threads=1 %s --seed=7 --input=random --input=random --input=random --output=@%t.1.npy
// RUN: cmp %t.0.npy %t.2.npy && cmp %t.0.npy %t.1.npy
// IR: "tpu.fusion"
// IR: kind = "output"
func.func @main(%a: tensor<2x3x8x8xf32>, %m: tensor<2x4x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<4x3x3x3xf32> {
  %c = "stablehlo.convolution"(%a, %m) {dimension_numbers = #stablehlo.conv<[f, b, 0, 1]x[i, o, 0, 1]->[f, b, 0, 1]>, window_strides = array<i64: 1, 1>, padding = dense<[[1, 1], [1, 1]]> : tensor<2x2xi64>, feature_group_count = 1 : i64, batch_group_count = 1 : i64} : (tensor<2x3x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<4x3x3x3xf32>
  %r = stablehlo.add %c, %w : tensor<4x3x3x3xf32>
  return %r : tensor<4x3x3x3xf32>
}
