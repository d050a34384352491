// Input fusions whose reduce body works on a wider type than its input
// (the spec's promotable reducers: bf16 summed in f32, i8 in i32) still run
// tile by tile: the fold converts each tile as it goes (vm/kernels/reduce.c), so
// the 512x1024 producers are never materialized (the measured peak HBM
// stays under their 512 KiB) and the bits equal the unfused program's at
// any number of host threads.
// RUN: %tpucc --emit=asm %s -o - | FileCheck %s --check-prefix=ASM
// RUN: %tpurun -O0 %s --seed=5 --input=random --input=random --output=@%t.0.0.npy --output=@%t.0.1.npy
// RUN: %tpurun -O2 --threads=1 %s --seed=5 --input=random --input=random --output=@%t.1.0.npy --output=@%t.1.1.npy --metrics 2>%t.metrics
// RUN: %tpurun -O2 --threads=3 %s --seed=5 --input=random --input=random --output=@%t.3.0.npy --output=@%t.3.1.npy
// RUN: for i in 0 1; do cmp %t.0.$i.npy %t.1.$i.npy && cmp %t.0.$i.npy %t.3.$i.npy || exit 1; done
// RUN: awk '/peak HBM/ { found = 1; peak = $(NF - 1) } END { exit !(found && peak < 524288) }' %t.metrics
// ASM-LABEL: func @main#0
// ASM-COUNT-2: fusion {{.*}} kind=1
// ASM-NOT:     = reduce
// ASM-LABEL: func @tpu.fusion.region
func.func @main(%h: tensor<512x1024xbf16>, %b: tensor<512x1024xi8>) -> (tensor<512xf32>, tensor<1024xi32>) {
  %e = stablehlo.exponential %h : tensor<512x1024xbf16>
  %hz = stablehlo.constant dense<0.0> : tensor<bf16>
  %r0 = stablehlo.reduce(%e init: %hz) across dimensions = [1] : (tensor<512x1024xbf16>, tensor<bf16>) -> tensor<512xf32>
    reducer(%x: tensor<f32>, %y: tensor<f32>) {
      %s = stablehlo.add %x, %y : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }
  %bb = stablehlo.multiply %b, %b : tensor<512x1024xi8>
  %bz = stablehlo.constant dense<0> : tensor<i8>
  %r1 = stablehlo.reduce(%bb init: %bz) across dimensions = [0] : (tensor<512x1024xi8>, tensor<i8>) -> tensor<1024xi32>
    reducer(%x: tensor<i32>, %y: tensor<i32>) {
      %s = stablehlo.add %x, %y : tensor<i32>
      stablehlo.return %s : tensor<i32>
    }
  return %r0, %r1 : tensor<512xf32>, tensor<1024xi32>
}
