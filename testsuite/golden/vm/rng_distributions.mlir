// stablehlo.rng (the RNG opcode, vm/kernels/rng.c): the bounds, mean and
// variance of UNIFORM and NORMAL draws, checked by Inputs/check_rng.py; the
// same run twice gives the same bits; two executions of one op differ.
// RUN: %tpurun -O0 %s --output=@%t.u.npy --output=@%t.n.npy --output=@%t.i.npy --output=@%t.d1.npy --output=@%t.d2.npy
// RUN: %python %S/Inputs/check_rng.py %t.u.npy %t.n.npy %t.i.npy %t.d1.npy %t.d2.npy | FileCheck %s
// RUN: %tpurun -O2 %s --output=@%t.u.npy --output=@%t.n.npy --output=@%t.i.npy --output=@%t.d1.npy --output=@%t.d2.npy
// RUN: %python %S/Inputs/check_rng.py %t.u.npy %t.n.npy %t.i.npy %t.d1.npy %t.d2.npy | FileCheck %s
// RUN: %tpurun -O2 %s --output=- --output=- --output=- --output=- --output=- > %t.a
// RUN: %tpurun -O2 %s --output=- --output=- --output=- --output=- --output=- > %t.b
// RUN: cmp %t.a %t.b
// CHECK: rng statistics: 10 checks passed
func.func @draw() -> tensor<64xf32> {
  %a = stablehlo.constant dense<0.0> : tensor<f32>
  %b = stablehlo.constant dense<1.0> : tensor<f32>
  %s = stablehlo.constant dense<64> : tensor<1xi64>
  %0 = stablehlo.rng %a, %b, %s, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<64xf32>
  func.return %0 : tensor<64xf32>
}
func.func @main() -> (tensor<100000xf32>, tensor<100000xf64>, tensor<100000xi32>, tensor<64xf32>, tensor<64xf32>) {
  %a = stablehlo.constant dense<2.0> : tensor<f32>
  %b = stablehlo.constant dense<5.0> : tensor<f32>
  %s = stablehlo.constant dense<[100000]> : tensor<1xi64>
  %0 = stablehlo.rng %a, %b, %s, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<100000xf32>
  %m = stablehlo.constant dense<1.0> : tensor<f64>
  %d = stablehlo.constant dense<3.0> : tensor<f64>
  %1 = stablehlo.rng %m, %d, %s, distribution = NORMAL : (tensor<f64>, tensor<f64>, tensor<1xi64>) -> tensor<100000xf64>
  %lo = stablehlo.constant dense<-3> : tensor<i32>
  %hi = stablehlo.constant dense<7> : tensor<i32>
  %2 = stablehlo.rng %lo, %hi, %s, distribution = UNIFORM : (tensor<i32>, tensor<i32>, tensor<1xi64>) -> tensor<100000xi32>
  %d1 = func.call @draw() : () -> tensor<64xf32>
  %d2 = func.call @draw() : () -> tensor<64xf32>
  func.return %0, %1, %2, %d1, %d2 : tensor<100000xf32>, tensor<100000xf64>, tensor<100000xi32>, tensor<64xf32>, tensor<64xf32>
}
