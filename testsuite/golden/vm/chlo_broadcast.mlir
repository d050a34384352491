// chlo.broadcast_* (passes/chlo_decompose.c: broadcast_in_dim of each
// operand to the result's shape, then the element-wise op): NumPy-style
// broadcasting (trailing dimensions aligned, size-1 dimensions stretched),
// broadcast_dimensions, a scalar select predicate, compare to i1, complex.
// Inputs pass through stablehlo.optimization_barrier so that -O2 does not
// fold the ops.  The VM has no kernels of its own for them: -O0, which
// does not decompose, refuses them with a located error.
// RUN: %tpurun -O1 --check %s | FileCheck %s --implicit-check-not=FAIL
// RUN: %tpurun --check %s | FileCheck %s --implicit-check-not=FAIL
// RUN: not %tpurun -O0 --check %s 2>&1 | FileCheck %s --check-prefix=O0
// RUN: %tpucc --emit=mlir %s -o - | FileCheck %s --check-prefix=IR
// CHECK: checks: 6 passed, 0 failed
// IR-NOT: chlo.broadcast
// O0: chlo_broadcast.mlir:19:8: error: 'chlo.broadcast_add' op 'chlo.broadcast_add' is not supported by the tpurun back end
func.func @numpy() {
  %a0 = stablehlo.constant dense<[[[1.0], [2.0]]]> : tensor<1x2x1xf32>
  %b0 = stablehlo.constant dense<[10.0, 20.0, 30.0]> : tensor<3xf32>
  %a, %b = stablehlo.optimization_barrier %a0, %b0 : tensor<1x2x1xf32>, tensor<3xf32>
  %0 = chlo.broadcast_add %a, %b : (tensor<1x2x1xf32>, tensor<3xf32>) -> tensor<1x2x3xf32>
  check.expect_eq_const %0, dense<[[[11.0, 21.0, 31.0], [12.0, 22.0, 32.0]]]> : tensor<1x2x3xf32>
  %1 = chlo.broadcast_compare %a, %b {comparison_direction = #chlo<comparison_direction GT>} : (tensor<1x2x1xf32>, tensor<3xf32>) -> tensor<1x2x3xi1>
  check.expect_eq_const %1, dense<false> : tensor<1x2x3xi1>
  func.return
}
func.func @dims() {
  %a0 = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %c0 = stablehlo.constant dense<[100, 200]> : tensor<2xi32>
  %a, %c = stablehlo.optimization_barrier %a0, %c0 : tensor<2x3xi32>, tensor<2xi32>
  %0 = chlo.broadcast_subtract %a, %c {broadcast_dimensions = array<i64: 0>} : (tensor<2x3xi32>, tensor<2xi32>) -> tensor<2x3xi32>
  check.expect_eq_const %0, dense<[[-99, -98, -97], [-196, -195, -194]]> : tensor<2x3xi32>
  %1 = chlo.broadcast_shift_left %c, %a {broadcast_dimensions = array<i64: 0>} : (tensor<2xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  check.expect_eq_const %1, dense<[[200, 400, 800], [3200, 6400, 12800]]> : tensor<2x3xi32>
  func.return
}
func.func @select_complex() {
  %p0 = stablehlo.constant dense<false> : tensor<i1>
  %t0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf64>
  %f0 = stablehlo.constant dense<[[3.0, 4.0], [5.0, 6.0]]> : tensor<2x2xf64>
  %p, %t, %f = stablehlo.optimization_barrier %p0, %t0, %f0 : tensor<i1>, tensor<2xf64>, tensor<2x2xf64>
  %0 = chlo.broadcast_select %p, %t, %f : (tensor<i1>, tensor<2xf64>, tensor<2x2xf64>) -> tensor<2x2xf64>
  check.expect_eq_const %0, dense<[[3.0, 4.0], [5.0, 6.0]]> : tensor<2x2xf64>
  %1 = chlo.broadcast_complex %t, %f : (tensor<2xf64>, tensor<2x2xf64>) -> tensor<2x2xcomplex<f64>>
  check.expect_eq_const %1, dense<[[(1.0, 3.0), (2.0, 4.0)], [(1.0, 5.0), (2.0, 6.0)]]> : tensor<2x2xcomplex<f64>>
  func.return
}
