// An output fusion (a dot_general with its element-wise consumers) holds no
// second full-size buffer: it is one `fusion` whose body holds the dot; the
// VM computes the dot block by block on host threads and runs the tail on
// each block while it is in cache (the dot's result read twice), writing
// the result once.  The bits are -O0's at 1 and 3 threads; the VM's peak is
// one 1 MiB buffer (-O0 holds two).
// RUN: %tpucc --emit=asm %s -o - | FileCheck %s --check-prefix=ASM
// RUN: %tpurun -O0 %s --seed=5 --input=random --input=random --input=random --output=@%t.0.npy --metrics 2>&1 | FileCheck %s --check-prefix=O0
// RUN: %tpurun --threads=1 %s --seed=5 --input=random --input=random --input=random --output=@%t.1.npy --metrics 2>&1 | FileCheck %s
// RUN: %tpurun --threads=3 %s --seed=5 --input=random --input=random --input=random --output=@%t.3.npy --metrics 2>&1 | FileCheck %s
// RUN: cmp %t.0.npy %t.1.npy && cmp %t.0.npy %t.3.npy
// ASM:      r3 = fusion r2, r0, r1 kind=2 body=@tpu.fusion.region#{{[0-9]+}}  kill r0 r1 r2
// ASM:      r3 = mxu_dot r1, r2
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
