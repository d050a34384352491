// complex<f32> multiply, power, sine and cosine follow XLA's CPU formulas in
// f32 bit for bit (common/scalar.h): a product feeding a sum is one fused
// multiply-add, exp and log are XLA's Cephes polynomials, power works from
// XLA's |x| (max * sqrt(1 + (min/max)^2)), f32 sine and cosine are rounded
// from double (what XLA's gave on the upstream corpus).  Each expected
// value below differs from the complex<f64> result rounded to f32 (what the
// VM computed before) or from the unfused f32 formula in at least one part.
// @constants has no barrier: at -O2 canonicalize sees constant operands, and
// whatever it folds must give the VM's bits.
// RUN: %tpurun --check %s | FileCheck %s --implicit-check-not=FAIL
// RUN: %tpurun -O0 --check %s | FileCheck %s --implicit-check-not=FAIL
// CHECK: checks: 7 passed, 0 failed
func.func @main() {
  %a0 = stablehlo.constant dense<[(3.16425037, 3.70685697), (1.1, 2.3), (0.1, 0.2), (1000.0, -2.5)]> : tensor<4xcomplex<f32>>
  %b0 = stablehlo.constant dense<[(0.586115181, -3.5972445), (-0.7, 4.9), (0.3, 0.4), (7.25, 3.3)]> : tensor<4xcomplex<f32>>
  %a, %b = stablehlo.optimization_barrier %a0, %b0 : tensor<4xcomplex<f32>>, tensor<4xcomplex<f32>>
  %0 = stablehlo.multiply %a, %b : tensor<4xcomplex<f32>>
  check.expect_eq_const %0, dense<[(15.189086, -9.2099371), (-12.0400009, 3.78000045), (-0.0500000045, 0.100000009), (7258.25, 3281.875)]> : tensor<4xcomplex<f32>>
  %1 = stablehlo.power %a, %b : tensor<4xcomplex<f32>>
  check.expect_eq_const %1, dense<[(26.0952358, 50.2936401), (-0.0016622931, -0.00128224643), (0.395226598, -0.108107492), (-4.00565182e+21, -4.01311344e+21)]> : tensor<4xcomplex<f32>>
  %2 = stablehlo.sine %a : tensor<4xcomplex<f32>>
  check.expect_eq_const %2, dense<[(-0.461613327, -20.3453007), (4.48920822, 2.23938656), (0.101836756, 0.200330153), (5.07066488, -3.4025085)]> : tensor<4xcomplex<f32>>
  %3 = stablehlo.cosine %a : tensor<4xcomplex<f32>>
  check.expect_eq_const %3, dense<[(-20.3698483, 0.461057007), (2.28486347, -4.39985657), (1.01497066, -0.0201000609), (3.4486711, 5.00279045)]> : tensor<4xcomplex<f32>>
  // A running product (reduce_window, as jnp.cumprod lowers): the
  // accumulator is the left operand of each multiply.
  %init = stablehlo.constant dense<(1.0, 0.0)> : tensor<complex<f32>>
  %4 = "stablehlo.reduce_window"(%a, %init) ({
  ^bb0(%x: tensor<complex<f32>>, %y: tensor<complex<f32>>):
    %m = stablehlo.multiply %x, %y : tensor<complex<f32>>
    stablehlo.return %m : tensor<complex<f32>>
  }) {window_dimensions = array<i64: 4>, padding = dense<[[3, 0]]> : tensor<1x2xi64>} : (tensor<4xcomplex<f32>>, tensor<complex<f32>>) -> tensor<4xcomplex<f32>>
  check.expect_eq_const %4, dense<[(3.16425037, 3.70685697), (-5.04509544, 11.3553181), (-2.77557302, 0.126512691), (-2775.25684, 133.45163)]> : tensor<4xcomplex<f32>>
  func.call @constants() : () -> ()
  func.return
}
func.func private @constants() {
  %a = stablehlo.constant dense<[(3.16425037, 3.70685697), (1.1, 2.3)]> : tensor<2xcomplex<f32>>
  %b = stablehlo.constant dense<[(0.586115181, -3.5972445), (-0.7, 4.9)]> : tensor<2xcomplex<f32>>
  %0 = stablehlo.multiply %a, %b : tensor<2xcomplex<f32>>
  check.expect_eq_const %0, dense<[(15.189086, -9.2099371), (-12.0400009, 3.78000045)]> : tensor<2xcomplex<f32>>
  %1 = stablehlo.sine %a : tensor<2xcomplex<f32>>
  check.expect_eq_const %1, dense<[(-0.461613327, -20.3453007), (4.48920822, 2.23938656)]> : tensor<2xcomplex<f32>>
  func.return
}
