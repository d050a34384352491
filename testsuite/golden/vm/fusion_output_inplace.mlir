// An output fusion (a dot_general with its element-wise consumers) holds no
// second full-size buffer: the dot runs as its own instruction and the tail
// as a loop `fusion` written in place over the dot's result (it dies there),
// tile by tile on host threads, reading every operand tile (the dot's
// result twice) before writing it.  The bits are -O0's at 1 and 3 threads;
// the VM's peak is one 1 MiB buffer (-O0 holds two).
// RUN: %tpucc --emit=asm %s -o - | FileCheck %s --check-prefix=ASM
// RUN: %tpurun -O0 %s --seed=5 --input=random --input=random --input=random --output=@%t.0.npy --metrics 2>&1 | FileCheck %s --check-prefix=O0
// RUN: %tpurun --threads=1 %s --seed=5 --input=random --input=random --input=random --output=@%t.1.npy --metrics 2>&1 | FileCheck %s
// RUN: %tpurun --threads=3 %s --seed=5 --input=random --input=random --input=random --output=@%t.3.npy --metrics 2>&1 | FileCheck %s
// RUN: cmp %t.0.npy %t.1.npy && cmp %t.0.npy %t.3.npy
// ASM:      r3 = mxu_dot r0, r1
// ASM-NEXT: r4 = fusion r2, r3 kind=0 body=@tpu.fusion.region#{{[0-9]+}} inplace(r3)  kill r2 r3
// O0:       peak HBM 20{{[0-9][0-9][0-9][0-9][0-9]}} bytes
// CHECK:    peak HBM 10{{[0-9][0-9][0-9][0-9][0-9]}} bytes
func.func @main(%a: tensor<512x256xf32>, %w: tensor<256x512xf32>, %b: tensor<512xf32>) -> tensor<512x512xf32> {
  %d = stablehlo.dot_general %a, %w, contracting_dims = [1] x [0] : (tensor<512x256xf32>, tensor<256x512xf32>) -> tensor<512x512xf32>
  %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<512xf32>) -> tensor<512x512xf32>
  %s = stablehlo.add %d, %bb : tensor<512x512xf32>
  %t = stablehlo.tanh %s : tensor<512x512xf32>
  %m = stablehlo.multiply %t, %d : tensor<512x512xf32>
  return %m : tensor<512x512xf32>
}
