// f32 exponential_minus_one is XLA's EmitExpm1 (common/scalar.h): e^x - 1
// with XLA's exp for |x| > 0.5, tanh(x/2) (e^x + 1) with XLA's tanh below,
// x where x/2 underflows.  0.25, 0.75, -0.3 and -0.001 give bits one ULP
// from the correctly rounded result (0.284025431, 1.11699998, -0.259181798,
// -0.00099950016), as XLA's do.  bf16 computes in f32 and rounds once.
// @constants has no barrier: whatever -O2 folds must give the VM's bits.
// RUN: %tpurun --check %s | FileCheck %s --implicit-check-not=FAIL
// RUN: %tpurun -O0 --check %s | FileCheck %s --implicit-check-not=FAIL
// CHECK: checks: 3 passed, 0 failed
func.func @main() {
  %c = stablehlo.constant dense<[0.25, 0.75, -0.3, 2.5, 1.0e-30, -0.001, 0xFF800000]> : tensor<7xf32>
  %x = stablehlo.optimization_barrier %c : tensor<7xf32>
  %0 = stablehlo.exponential_minus_one %x : tensor<7xf32>
  check.expect_eq_const %0, dense<[0.284025401, 1.1170001, -0.259181768, 11.1824942, 1.0e-30, -0.000999500044, -1.0]> : tensor<7xf32>
  %h = stablehlo.convert %x : (tensor<7xf32>) -> tensor<7xbf16>
  %1 = stablehlo.exponential_minus_one %h : tensor<7xbf16>
  %2 = stablehlo.convert %1 : (tensor<7xbf16>) -> tensor<7xf32>
  check.expect_eq_const %2, dense<[0.283203125, 1.1171875, -0.259765625, 11.1875, 9.98402083e-31, -0.000999450684, -1.0]> : tensor<7xf32>
  func.call @constants() : () -> ()
  func.return
}
func.func private @constants() {
  %c = stablehlo.constant dense<[0.25, 0.75]> : tensor<2xf32>
  %0 = stablehlo.exponential_minus_one %c : tensor<2xf32>
  check.expect_eq_const %0, dense<[0.284025401, 1.1170001]> : tensor<2xf32>
  func.return
}
