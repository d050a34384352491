// interpreter.print writes NAME = VALUE in the reference interpreter's form,
// one print at a time from the chips of a run_parallel; a run_parallel's
// infeed queue feeds its program's infeeds in order (the expand pass).
// RUN: %tpurun -O0 --check %s | FileCheck %s
// RUN: %tpurun -O2 --check %s | FileCheck %s
// CHECK: {{%[0-9]+}} = tensor<2x2xi8> {
// CHECK-NEXT:   [
// CHECK-NEXT:     [1, 2],
// CHECK-NEXT:     [3, 4]
// CHECK-NEXT:   ]
// CHECK-NEXT: }
// CHECK-NEXT: {{%[a-z0-9]+}} = tensor<f32> {2.500000e+00}
// CHECK-NEXT: %0 = tensor<2xi1> {
// CHECK-NEXT:   [true, false]
// CHECK-NEXT: }
// CHECK-NEXT: %0 = tensor<2xi1> {
// CHECK: checks: 2 passed, 0 failed
func.func @show(%x: tensor<f32>) {
  %m = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>
  interpreter.print %m : tensor<2x2xi8>
  interpreter.print %x : tensor<f32>
  func.return
}
func.func @chip() -> tensor<2xi1> {
  %b = stablehlo.constant dense<[true, false]> : tensor<2xi1>
  interpreter.print %b : tensor<2xi1>
  func.return %b : tensor<2xi1>
}
func.func @fed(%t: !stablehlo.token) -> (tensor<2xi64>, tensor<i32>) {
  %a:2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (tensor<2xi64>, !stablehlo.token)
  %b:2 = "stablehlo.infeed"(%a#1) : (!stablehlo.token) -> (tensor<i32>, !stablehlo.token)
  func.return %a#0, %b#0 : tensor<2xi64>, tensor<i32>
}
func.func @q0() -> tensor<2xi64> {
  %c = stablehlo.constant dense<[5, 6]> : tensor<2xi64>
  func.return %c : tensor<2xi64>
}
func.func @q1() -> tensor<i32> {
  %c = stablehlo.constant dense<7> : tensor<i32>
  func.return %c : tensor<i32>
}
func.func @main() {
  %h = stablehlo.constant dense<2.5> : tensor<f32>
  func.call @show(%h) : (tensor<f32>) -> ()
  %r:2 = "interpreter.run_parallel"() {programs = [[@chip, @chip]]} : () -> (tensor<2xi1>, tensor<2xi1>)
  %t = stablehlo.after_all : !stablehlo.token
  %f:2 = "interpreter.run_parallel"(%t) {infeed = [@q0, @q1], programs = [[@fed]]} : (!stablehlo.token) -> (tensor<2xi64>, tensor<i32>)
  check.expect_eq_const %f#0, dense<[5, 6]> : tensor<2xi64>
  check.expect_eq_const %f#1, dense<7> : tensor<i32>
  func.return
}
