// Collectives split by collective-overlap run on the VM as asynchronous
// collectives (TPUB_INSTR_ASYNC) and async_done: same results as the plain
// program at -O0, and as numpy.
// RUN: %tpucc --emit=asm %s | FileCheck %s --check-prefix=ASM
// ASM: = all_reduce {{.*}} async
// ASM: = all_reduce {{.*}} async
// ASM: = async_done
// ASM: = all_reduce {{.*}} async
// RUN: %tpucc -O0 --emit=asm %s | FileCheck %s --check-prefix=ASM0
// ASM0-NOT: async
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; r = np.random.default_rng(7); [np.save('%t/in%%d.npy' %% i, r.standard_normal((1024, 768)).astype(np.float32)) for i in range(4)]"
// RUN: %tpurun -O0 --replicas=8 --input=@%t/in0.npy --input=@%t/in1.npy --input=@%t/in2.npy --input=@%t/in3.npy --output=@%t/a0.npy --output=@%t/b0.npy --output=@%t/c0.npy %s
// RUN: %tpurun -O2 --replicas=8 --input=@%t/in0.npy --input=@%t/in1.npy --input=@%t/in2.npy --input=@%t/in3.npy --output=@%t/a2.npy --output=@%t/b2.npy --output=@%t/c2.npy %s
// RUN: cmp %t/a0.npy %t/a2.npy
// RUN: cmp %t/b0.npy %t/b2.npy
// RUN: cmp %t/c0.npy %t/c2.npy
// Every chip has the same inputs: each all-reduce is 8 times the gradient.
// RUN: %python -c "import numpy as np; i = [np.load('%t/in%%d.npy' %% k) for k in range(4)]; o = [np.load('%t/%%s2.npy' %% s) for s in 'abc']; w = [i[1], i[2], i[3]]; e = [w[k] - 8 * (i[0] * w[k]) for k in range(3)]; ok = all(np.allclose(o[k][c], e[k], rtol=1e-6, atol=1e-5) for k in range(3) for c in range(8)); print('numpy', 'ok' if ok else 'MISMATCH')" | FileCheck %s --check-prefix=NUMPY
// NUMPY: numpy ok
module attributes {mhlo.num_replicas = 8 : i32} {
func.func @main(%dy: tensor<1024x768xf32>, %w1: tensor<1024x768xf32>, %w2: tensor<1024x768xf32>, %w3: tensor<1024x768xf32>) -> (tensor<1024x768xf32>, tensor<1024x768xf32>, tensor<1024x768xf32>) {
  %g3 = stablehlo.multiply %dy, %w3 : tensor<1024x768xf32>
  %r3 = "stablehlo.all_reduce"(%g3) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %t = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>} : (tensor<1024x768xf32>) -> tensor<1024x768xf32>
  %u3 = stablehlo.subtract %w3, %r3 : tensor<1024x768xf32>
  %g2 = stablehlo.multiply %dy, %w2 : tensor<1024x768xf32>
  %r2 = "stablehlo.all_reduce"(%g2) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %t = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>} : (tensor<1024x768xf32>) -> tensor<1024x768xf32>
  %u2 = stablehlo.subtract %w2, %r2 : tensor<1024x768xf32>
  %g1 = stablehlo.multiply %dy, %w1 : tensor<1024x768xf32>
  %r1 = "stablehlo.all_reduce"(%g1) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %t = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>} : (tensor<1024x768xf32>) -> tensor<1024x768xf32>
  %u1 = stablehlo.subtract %w1, %r1 : tensor<1024x768xf32>
  return %u1, %u2, %u3 : tensor<1024x768xf32>, tensor<1024x768xf32>, tensor<1024x768xf32>
}
}
