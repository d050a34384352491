// An infeed without a queue is a runtime error (exit 4); a queue shorter
// than the program's infeeds, or on a grid of several processes, a
// compile error (exit 2).
// RUN: %not %tpurun --check --split-input-file %s 2>&1 | FileCheck %s
// CHECK: stablehlo.infeed ran without an infeed queue
// CHECK: the infeed queue has 1 entry, but the program runs more infeeds
// CHECK: an infeed queue is supported on a grid of one process only
func.func @main() {
  %t = stablehlo.after_all : !stablehlo.token
  %a:2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (tensor<2xi64>, !stablehlo.token)
  check.expect_eq_const %a#0, dense<[5, 6]> : tensor<2xi64>
  func.return
}

// -----

func.func @fed(%t: !stablehlo.token) -> tensor<2xi64> {
  %a:2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (tensor<2xi64>, !stablehlo.token)
  %b:2 = "stablehlo.infeed"(%a#1) : (!stablehlo.token) -> (tensor<2xi64>, !stablehlo.token)
  func.return %b#0 : tensor<2xi64>
}
func.func @q0() -> tensor<2xi64> {
  %c = stablehlo.constant dense<[5, 6]> : tensor<2xi64>
  func.return %c : tensor<2xi64>
}
func.func @main() {
  %t = stablehlo.after_all : !stablehlo.token
  %f = "interpreter.run_parallel"(%t) {infeed = [@q0], programs = [[@fed]]} : (!stablehlo.token) -> tensor<2xi64>
  check.expect_eq_const %f, dense<[5, 6]> : tensor<2xi64>
  func.return
}

// -----

func.func @fed(%t: !stablehlo.token) -> tensor<2xi64> {
  %a:2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (tensor<2xi64>, !stablehlo.token)
  func.return %a#0 : tensor<2xi64>
}
func.func @q0() -> tensor<2xi64> {
  %c = stablehlo.constant dense<[5, 6]> : tensor<2xi64>
  func.return %c : tensor<2xi64>
}
func.func @main() {
  %t = stablehlo.after_all : !stablehlo.token
  %f:2 = "interpreter.run_parallel"(%t, %t) {infeed = [@q0, @q0], programs = [[@fed, @fed]]} : (!stablehlo.token, !stablehlo.token) -> (tensor<2xi64>, tensor<2xi64>)
  check.expect_eq_const %f#0, dense<[5, 6]> : tensor<2xi64>
  func.return
}
