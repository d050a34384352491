// collective_broadcast with several operands and has_dynamic_root: result j
// comes from the member roots[j] of the group; an out-of-range root traps.
// RUN: %tpurun -O0 --check %s | FileCheck %s
// RUN: %tpurun -O2 --check %s | FileCheck %s
// CHECK: checks: 6 passed, 0 failed
func.func @bcast(%a: tensor<2xi64>, %b: tensor<i32>, %r: tensor<2xi32>) -> (tensor<2xi64>, tensor<i32>) {
  %0:2 = "stablehlo.collective_broadcast"(%a, %b, %r) {replica_groups = dense<[[2, 0, 1]]> : tensor<1x3xi64>, has_dynamic_root} : (tensor<2xi64>, tensor<i32>, tensor<2xi32>) -> (tensor<2xi64>, tensor<i32>)
  func.return %0#0, %0#1 : tensor<2xi64>, tensor<i32>
}
func.func @main() {
  %a0 = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
  %a1 = stablehlo.constant dense<[3, 4]> : tensor<2xi64>
  %a2 = stablehlo.constant dense<[5, 6]> : tensor<2xi64>
  %b0 = stablehlo.constant dense<10> : tensor<i32>
  %b1 = stablehlo.constant dense<11> : tensor<i32>
  %b2 = stablehlo.constant dense<12> : tensor<i32>
  // roots [1, 2]: operand 0 from group member 1 (replica 0), operand 1 from member 2 (replica 1).
  %r = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %o:6 = "interpreter.run_parallel"(%a0, %b0, %r, %a1, %b1, %r, %a2, %b2, %r) {programs = [[@bcast], [@bcast], [@bcast]]} : (tensor<2xi64>, tensor<i32>, tensor<2xi32>, tensor<2xi64>, tensor<i32>, tensor<2xi32>, tensor<2xi64>, tensor<i32>, tensor<2xi32>) -> (tensor<2xi64>, tensor<i32>, tensor<2xi64>, tensor<i32>, tensor<2xi64>, tensor<i32>)
  check.expect_eq_const %o#0, dense<[1, 2]> : tensor<2xi64>
  check.expect_eq_const %o#1, dense<11> : tensor<i32>
  check.expect_eq_const %o#2, dense<[1, 2]> : tensor<2xi64>
  check.expect_eq_const %o#3, dense<11> : tensor<i32>
  check.expect_eq_const %o#4, dense<[1, 2]> : tensor<2xi64>
  check.expect_eq_const %o#5, dense<11> : tensor<i32>
  func.return
}
