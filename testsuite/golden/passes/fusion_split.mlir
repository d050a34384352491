// An output fusion (a dot_general of its operands with an element-wise
// tail) is one `fusion` of kind 2 whose body holds the contraction: the VM
// computes it block by block and runs the tail on each block; the results
// equal the unfused program's.
// RUN: %tpucc --emit=asm %s | FileCheck %s
// RUN: %tpurun -O0 %s --input=random:1 --input=random:2 --input=random:3 > %t.o0
// RUN: %tpurun -O2 %s --input=random:1 --input=random:2 --input=random:3 > %t.o2
// RUN: diff %t.o0 %t.o2

// CHECK-LABEL: func @main#0
// CHECK:         = fusion {{.*}} kind=2 body=@tpu.fusion.region#[[TAIL:[0-9]+]]
// CHECK-NOT:     = add
// CHECK:       func @tpu.fusion.region#[[TAIL]]
// CHECK:         = {{(mxu_dot|dot_general)}} r1, r2
// CHECK:         broadcast_in_dim
// CHECK:         add
// CHECK:         maximum
func.func @main(%a: tensor<16x256xf32>, %w: tensor<256x128xf32>, %bias: tensor<128xf32>) -> tensor<16x128xf32> {
  %d = stablehlo.dot_general %a, %w, contracting_dims = [1] x [0] : (tensor<16x256xf32>, tensor<256x128xf32>) -> tensor<16x128xf32>
  %b = stablehlo.broadcast_in_dim %bias, dims = [1] : (tensor<128xf32>) -> tensor<16x128xf32>
  %0 = stablehlo.add %d, %b : tensor<16x128xf32>
  %z = stablehlo.constant dense<0.0> : tensor<16x128xf32>
  %1 = stablehlo.maximum %0, %z : tensor<16x128xf32>
  return %1 : tensor<16x128xf32>
}
