// Every chlo.broadcast_* op not covered by vm/chlo_broadcast.mlir, run with
// its result checked: a 2x1 operand against a 2-vector gives 2x2 (trailing
// dimensions aligned, the size-1 dimension stretched).  The decomposition
// (passes/chlo_decompose.c) removes them before the back end.
// RUN: %tpurun --check %s | FileCheck %s --implicit-check-not=FAIL
// RUN: %tpurun -O1 --check %s | FileCheck %s --implicit-check-not=FAIL
// RUN: %tpucc --emit=mlir %s -o - | FileCheck %s --check-prefix=IR
// CHECK: checks: 14 passed, 0 failed
// IR-NOT: chlo.broadcast
func.func @bits() {
  %a0 = stablehlo.constant dense<[[12], [10]]> : tensor<2x1xi32>
  %b0 = stablehlo.constant dense<[6, 3]> : tensor<2xi32>
  %a, %b = stablehlo.optimization_barrier %a0, %b0 : tensor<2x1xi32>, tensor<2xi32>
  %0 = chlo.broadcast_and %a, %b : (tensor<2x1xi32>, tensor<2xi32>) -> tensor<2x2xi32>
  check.expect_eq_const %0, dense<[[4, 0], [2, 2]]> : tensor<2x2xi32>
  %1 = chlo.broadcast_or %a, %b : (tensor<2x1xi32>, tensor<2xi32>) -> tensor<2x2xi32>
  check.expect_eq_const %1, dense<[[14, 15], [14, 11]]> : tensor<2x2xi32>
  %2 = chlo.broadcast_xor %a, %b : (tensor<2x1xi32>, tensor<2xi32>) -> tensor<2x2xi32>
  check.expect_eq_const %2, dense<[[10, 15], [12, 9]]> : tensor<2x2xi32>
  func.return
}
func.func @shifts_remainder() {
  %a0 = stablehlo.constant dense<[-16, 16]> : tensor<2xi32>
  %s0 = stablehlo.constant dense<[[1], [2]]> : tensor<2x1xi32>
  %r0 = stablehlo.constant dense<[[7], [-7]]> : tensor<2x1xi32>
  %d0 = stablehlo.constant dense<[3, 4]> : tensor<2xi32>
  %a, %s, %r, %d = stablehlo.optimization_barrier %a0, %s0, %r0, %d0 : tensor<2xi32>, tensor<2x1xi32>, tensor<2x1xi32>, tensor<2xi32>
  %0 = chlo.broadcast_shift_right_arithmetic %a, %s : (tensor<2xi32>, tensor<2x1xi32>) -> tensor<2x2xi32>
  check.expect_eq_const %0, dense<[[-8, 8], [-4, 4]]> : tensor<2x2xi32>
  %1 = chlo.broadcast_shift_right_logical %a, %s : (tensor<2xi32>, tensor<2x1xi32>) -> tensor<2x2xi32>
  check.expect_eq_const %1, dense<[[2147483640, 8], [1073741820, 4]]> : tensor<2x2xi32>
  %2 = chlo.broadcast_remainder %r, %d : (tensor<2x1xi32>, tensor<2xi32>) -> tensor<2x2xi32>
  check.expect_eq_const %2, dense<[[1, 3], [-1, -3]]> : tensor<2x2xi32>
  func.return
}
func.func @arith() {
  %a0 = stablehlo.constant dense<[[1.0], [3.0]]> : tensor<2x1xf32>
  %b0 = stablehlo.constant dense<[2.0, 4.0]> : tensor<2xf32>
  %a, %b = stablehlo.optimization_barrier %a0, %b0 : tensor<2x1xf32>, tensor<2xf32>
  %0 = chlo.broadcast_divide %a, %b : (tensor<2x1xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  check.expect_eq_const %0, dense<[[0.5, 0.25], [1.5, 0.75]]> : tensor<2x2xf32>
  %1 = chlo.broadcast_maximum %a, %b : (tensor<2x1xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  check.expect_eq_const %1, dense<[[2.0, 4.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %2 = chlo.broadcast_minimum %a, %b : (tensor<2x1xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  check.expect_eq_const %2, dense<[[1.0, 1.0], [2.0, 3.0]]> : tensor<2x2xf32>
  %3 = chlo.broadcast_power %b, %a : (tensor<2xf32>, tensor<2x1xf32>) -> tensor<2x2xf32>
  check.expect_almost_eq_const %3, dense<[[2.0, 4.0], [8.0, 64.0]]> : tensor<2x2xf32>
  func.return
}
func.func @transcendental() {
  %y0 = stablehlo.constant dense<[[0.0], [1.0]]> : tensor<2x1xf32>
  %x0 = stablehlo.constant dense<[1.0, 0.0]> : tensor<2xf32>
  %t0 = stablehlo.constant dense<[2.0, -1.0]> : tensor<2xf32>
  %n0 = stablehlo.constant dense<[[0.0], [1.0]]> : tensor<2x1xf32>
  %q0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %s0 = stablehlo.constant dense<[[2.0], [3.0]]> : tensor<2x1xf32>
  %y, %x, %t, %n, %q, %s = stablehlo.optimization_barrier %y0, %x0, %t0, %n0, %q0, %s0 : tensor<2x1xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2x1xf32>, tensor<2xf32>, tensor<2x1xf32>
  %0 = chlo.broadcast_atan2 %y, %x : (tensor<2x1xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  check.expect_almost_eq_const %0, dense<[[0.0, 0.0], [0.785398185, 1.57079637]]> : tensor<2x2xf32>
  %1 = chlo.broadcast_next_after %x, %t : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  check.expect_eq_const %1, dense<[1.00000012, -1.401298464e-45]> : tensor<2xf32>
  %2 = chlo.broadcast_polygamma %n, %q : (tensor<2x1xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  check.expect_almost_eq_const %2, dense<[[-0.577215672, 0.422784328], [1.64493406, 0.644934066]]> : tensor<2x2xf32>
  %3 = chlo.broadcast_zeta %s, %q : (tensor<2x1xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  check.expect_almost_eq_const %3, dense<[[1.64493406, 0.644934066], [1.20205688, 0.202056900]]> : tensor<2x2xf32>
  func.return
}
