// Kernels that write in place or alias their operand (VMF_UPDATE, VMF_ALIAS,
// inplace(...) in --emit=asm): dynamic_update_slice, scatter, bitcast_convert,
// reshape, a loop fusion, and while state holding one tensor twice must
// never change a value that is still used afterwards.  Each function reads
// the operand again after the op.  Hand-written; expected values by hand.
// RUN: %tpurun -O0 --check %s | FileCheck %s --implicit-check-not=FAIL
// RUN: %tpurun --check %s | FileCheck %s --implicit-check-not=FAIL
// CHECK: checks: 16 passed, 0 failed

func.func @dus_keeps_operand() {
  %c0 = stablehlo.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %c1 = stablehlo.constant dense<[9]> : tensor<1xi32>
  %c2 = stablehlo.constant dense<1> : tensor<i32>
  %a, %u, %i = stablehlo.optimization_barrier %c0, %c1, %c2 : tensor<4xi32>, tensor<1xi32>, tensor<i32>
  %r = stablehlo.dynamic_update_slice %a, %u, %i : (tensor<4xi32>, tensor<1xi32>, tensor<i32>) -> tensor<4xi32>
  %s = stablehlo.add %a, %a : tensor<4xi32>
  check.expect_eq_const %r, dense<[1, 9, 3, 4]> : tensor<4xi32>
  check.expect_eq_const %s, dense<[2, 4, 6, 8]> : tensor<4xi32>
  check.expect_eq_const %a, dense<[1, 2, 3, 4]> : tensor<4xi32>
  func.return
}
func.func @scatter_keeps_operand() {
  %c0 = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %c1 = stablehlo.constant dense<[[2]]> : tensor<1x1xi32>
  %c2 = stablehlo.constant dense<[10.0]> : tensor<1xf32>
  %a, %i, %u = stablehlo.optimization_barrier %c0, %c1, %c2 : tensor<3xf32>, tensor<1x1xi32>, tensor<1xf32>
  %r = "stablehlo.scatter"(%a, %i, %u) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, indices_are_sorted = false, unique_indices = false} : (tensor<3xf32>, tensor<1x1xi32>, tensor<1xf32>) -> tensor<3xf32>
  %m = stablehlo.multiply %a, %r : tensor<3xf32>
  check.expect_eq_const %m, dense<[1.0, 4.0, 39.0]> : tensor<3xf32>
  check.expect_eq_const %a, dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  func.return
}
func.func @bitcast_alias() {
  %c0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %a = stablehlo.optimization_barrier %c0 : tensor<2xf32>
  %b = stablehlo.bitcast_convert %a : (tensor<2xf32>) -> tensor<2xi32>
  %one = stablehlo.constant dense<1> : tensor<2xi32>
  %c = stablehlo.add %b, %one : tensor<2xi32>
  %d = stablehlo.reshape %a : (tensor<2xf32>) -> tensor<1x2xf32>
  %e = stablehlo.negate %d : tensor<1x2xf32>
  check.expect_eq_const %c, dense<[1065353217, 1073741825]> : tensor<2xi32>
  check.expect_eq_const %a, dense<[1.0, 2.0]> : tensor<2xf32>
  check.expect_eq_const %b, dense<[1065353216, 1073741824]> : tensor<2xi32>
  check.expect_eq_const %e, dense<[[-1.0, -2.0]]> : tensor<1x2xf32>
  check.expect_eq_const %d, dense<[[1.0, 2.0]]> : tensor<1x2xf32>
  func.return
}
func.func @while_same_tensor_twice() {
  %c0 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %z0 = stablehlo.constant dense<0> : tensor<i32>
  %a, %z = stablehlo.optimization_barrier %c0, %z0 : tensor<2xi32>, tensor<i32>
  %r:3 = stablehlo.while(%i = %z, %x = %a, %y = %a) : tensor<i32>, tensor<2xi32>, tensor<2xi32>
    cond {
      %lim = stablehlo.constant dense<3> : tensor<i32>
      %p = stablehlo.compare  LT, %i, %lim,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1> : tensor<i32>
      %i1 = stablehlo.add %i, %one : tensor<i32>
      %x1 = stablehlo.add %x, %x : tensor<2xi32>
      stablehlo.return %i1, %x1, %y : tensor<i32>, tensor<2xi32>, tensor<2xi32>
    }
  check.expect_eq_const %r#1, dense<[8, 16]> : tensor<2xi32>
  check.expect_eq_const %r#2, dense<[1, 2]> : tensor<2xi32>
  check.expect_eq_const %a, dense<[1, 2]> : tensor<2xi32>
  func.return
}
func.func @fusion_operand_live_after() {
  %c0 = stablehlo.constant dense<[1.0, -2.0, 3.0]> : tensor<3xf32>
  %a = stablehlo.optimization_barrier %c0 : tensor<3xf32>
  %e = stablehlo.abs %a : tensor<3xf32>
  %f = stablehlo.multiply %e, %e : tensor<3xf32>
  %g = "stablehlo.sort"(%a) ({
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    %lt = stablehlo.compare  LT, %p, %q,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) {dimension = 0 : i64, is_stable = true} : (tensor<3xf32>) -> tensor<3xf32>
  check.expect_eq_const %f, dense<[1.0, 4.0, 9.0]> : tensor<3xf32>
  check.expect_eq_const %g, dense<[-2.0, 1.0, 3.0]> : tensor<3xf32>
  check.expect_eq_const %a, dense<[1.0, -2.0, 3.0]> : tensor<3xf32>
  func.return
}
