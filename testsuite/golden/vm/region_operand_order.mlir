// Region bodies written op(arg1, arg0) (vm_region_binary_op in vm/interp.c):
// applied in that order on every path, the kernels' fast paths included.
// XLA's maximum keeps its first operand on a tie, so max(+0, -0) is +0 and
// max(-0, +0) is -0; results are compared as bits.
// RUN: %tpurun -O0 --check %s | FileCheck %s --implicit-check-not=FAIL
// RUN: %tpurun --check %s | FileCheck %s --implicit-check-not=FAIL
// CHECK: checks: 3 passed, 0 failed

// scatter: update_computation(current, update) = maximum(update, current).
func.func @scatter_swapped_max() {
  %c = stablehlo.constant dense<[-0.0, 1.0]> : tensor<2xf32>
  %u = stablehlo.constant dense<[0.0]> : tensor<1xf32>
  %i = stablehlo.constant dense<[[0]]> : tensor<1x1xi32>
  %a = stablehlo.optimization_barrier %c : tensor<2xf32>
  %r = "stablehlo.scatter"(%a, %i, %u) ({
  ^bb0(%cur: tensor<f32>, %upd: tensor<f32>):
    %m = stablehlo.maximum %upd, %cur : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<2xf32>, tensor<1x1xi32>, tensor<1xf32>) -> tensor<2xf32>
  %b = stablehlo.bitcast_convert %r : (tensor<2xf32>) -> tensor<2xi32>
  check.expect_eq_const %b, dense<[0, 1065353216]> : tensor<2xi32>
  func.return
}

// reduce: body(acc, x) = maximum(x, acc), init -0 over one +0: +0.
func.func @reduce_swapped_max() {
  %c = stablehlo.constant dense<[0.0]> : tensor<1xf32>
  %a = stablehlo.optimization_barrier %c : tensor<1xf32>
  %init = stablehlo.constant dense<-0.0> : tensor<f32>
  %r = stablehlo.reduce(%a init: %init) across dimensions = [0] : (tensor<1xf32>, tensor<f32>) -> tensor<f32>
   reducer(%acc: tensor<f32>, %x: tensor<f32>) {
    %m = stablehlo.maximum %x, %acc : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }
  %b = stablehlo.bitcast_convert %r : (tensor<f32>) -> tensor<i32>
  check.expect_eq_const %b, dense<0> : tensor<i32>
  func.return
}

// reduce, body written in the usual order: max(acc=-0, x=+0) is -0.
func.func @reduce_max() {
  %c = stablehlo.constant dense<[0.0]> : tensor<1xf32>
  %a = stablehlo.optimization_barrier %c : tensor<1xf32>
  %init = stablehlo.constant dense<-0.0> : tensor<f32>
  %r = stablehlo.reduce(%a init: %init) across dimensions = [0] : (tensor<1xf32>, tensor<f32>) -> tensor<f32>
   reducer(%acc: tensor<f32>, %x: tensor<f32>) {
    %m = stablehlo.maximum %acc, %x : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }
  %b = stablehlo.bitcast_convert %r : (tensor<f32>) -> tensor<i32>
  check.expect_eq_const %b, dense<-2147483648> : tensor<i32>
  func.return
}
