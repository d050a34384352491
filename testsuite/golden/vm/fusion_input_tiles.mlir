// Input fusions (a reduce with its element-wise producers, or a sibling
// fusion of several) run tile by tile (vm/kernels/fusion.c): the producer's
// tiles are folded into the reduces as they are computed, in row-major
// order, so every result has the bits of
// the unfused program (-O0) whatever the number of host threads: reduced
// outer, inner and all dimensions, a bf16 sum (rounded at every step) with
// an element-wise tail, an
// integer sum, a max, and a reducer the fast paths do not know (the region
// per element).
// RUN: %tpucc --emit=asm %s -o - | FileCheck %s --check-prefix=ASM
// RUN: %tpurun -O0 %s --seed=3 --input=random --input=random --input=random --input=random --output=@%t.0.0.npy --output=@%t.0.1.npy --output=@%t.0.2.npy --output=@%t.0.3.npy --output=@%t.0.4.npy --output=@%t.0.5.npy
// RUN: %tpurun -O2 --threads=1 %s --seed=3 --input=random --input=random --input=random --input=random --output=@%t.1.0.npy --output=@%t.1.1.npy --output=@%t.1.2.npy --output=@%t.1.3.npy --output=@%t.1.4.npy --output=@%t.1.5.npy
// RUN: %tpurun -O2 --threads=3 %s --seed=3 --input=random --input=random --input=random --input=random --output=@%t.3.0.npy --output=@%t.3.1.npy --output=@%t.3.2.npy --output=@%t.3.3.npy --output=@%t.3.4.npy --output=@%t.3.5.npy
// RUN: for i in 0 1 2 3 4 5; do cmp %t.0.$i.npy %t.1.$i.npy && cmp %t.0.$i.npy %t.3.$i.npy || exit 1; done
// ASM-LABEL: func @main#0
// ASM-COUNT-3: fusion {{.*}} kind=1
// ASM-NOT:     = reduce
// ASM-LABEL: func @tpu.fusion.region
func.func @main(%x: tensor<300x1000xf32>, %y: tensor<1000xf32>, %h: tensor<300x1000xbf16>, %i: tensor<300x1000xi32>)
    -> (tensor<1000xf32>, tensor<300xf32>, tensor<f32>, tensor<300xf32>, tensor<1000xi32>, tensor<300xf32>) {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %yb = stablehlo.broadcast_in_dim %y, dims = [1] : (tensor<1000xf32>) -> tensor<300x1000xf32>
  %m = stablehlo.multiply %x, %yb : tensor<300x1000xf32>
  %e = stablehlo.exponential %m : tensor<300x1000xf32>
  %r0 = stablehlo.reduce(%e init: %z) applies stablehlo.add across dimensions = [0] : (tensor<300x1000xf32>, tensor<f32>) -> tensor<1000xf32>
  %yb1 = stablehlo.broadcast_in_dim %y, dims = [1] : (tensor<1000xf32>) -> tensor<300x1000xf32>
  %t = stablehlo.tanh %x : tensor<300x1000xf32>
  %s = stablehlo.add %t, %yb1 : tensor<300x1000xf32>
  %r1 = stablehlo.reduce(%s init: %z) applies stablehlo.add across dimensions = [1] : (tensor<300x1000xf32>, tensor<f32>) -> tensor<300xf32>
  %c = stablehlo.cosine %x : tensor<300x1000xf32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %r2 = stablehlo.reduce(%c init: %ninf) applies stablehlo.maximum across dimensions = [0, 1] : (tensor<300x1000xf32>, tensor<f32>) -> tensor<f32>
  %hz = stablehlo.constant dense<0.0> : tensor<bf16>
  %hh = stablehlo.multiply %h, %h : tensor<300x1000xbf16>
  %r3h = stablehlo.reduce(%hh init: %hz) applies stablehlo.add across dimensions = [1] : (tensor<300x1000xbf16>, tensor<bf16>) -> tensor<300xbf16>
  %r3 = stablehlo.convert %r3h : (tensor<300xbf16>) -> tensor<300xf32>
  %iz = stablehlo.constant dense<0> : tensor<i32>
  %ii = stablehlo.add %i, %i : tensor<300x1000xi32>
  %r4 = stablehlo.reduce(%ii init: %iz) applies stablehlo.add across dimensions = [0] : (tensor<300x1000xi32>, tensor<i32>) -> tensor<1000xi32>
  %sq = stablehlo.sine %x : tensor<300x1000xf32>
  %r5 = stablehlo.reduce(%sq init: %z) across dimensions = [1] : (tensor<300x1000xf32>, tensor<f32>) -> tensor<300xf32>
   reducer(%a: tensor<f32>, %b: tensor<f32>) {
    %half = stablehlo.constant dense<0.5> : tensor<f32>
    %ah = stablehlo.multiply %a, %half : tensor<f32>
    %n = stablehlo.add %ah, %b : tensor<f32>
    stablehlo.return %n : tensor<f32>
  }
  return %r0, %r1, %r2, %r3, %r4, %r5 : tensor<1000xf32>, tensor<300xf32>, tensor<f32>, tensor<300xf32>, tensor<1000xi32>, tensor<300xf32>
}

// A body whose second reduce reads the first's result (no pass forms one;
// the back end lowers it as written) runs whole, with the right values.
// RUN: %tpurun -O0 %s --function=chained --input='2x3xf32=[[1 2 3][4 5 6]]' | FileCheck %s --check-prefix=CHAIN
// CHAIN: result[0]: f32=21
// CHAIN: result[1]: 2xf32=6 15
func.func @chained(%x: tensor<2x3xf32>) -> (tensor<f32>, tensor<2xf32>) {
  %r:2 = "tpu.fusion"(%x) ({
  ^bb0(%a: tensor<2x3xf32>):
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %r1 = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
    %r2 = stablehlo.reduce(%r1 init: %z) applies stablehlo.add across dimensions = [0] : (tensor<2xf32>, tensor<f32>) -> tensor<f32>
    "tpu.yield"(%r2, %r1) : (tensor<f32>, tensor<2xf32>) -> ()
  }) {kind = "input"} : (tensor<2x3xf32>) -> (tensor<f32>, tensor<2xf32>)
  return %r#0, %r#1 : tensor<f32>, tensor<2xf32>
}
