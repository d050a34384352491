// An infeed without a queue is a runtime error (exit 4); a queue shorter
// than the program's infeeds, or on a grid of several processes, a
// compile error (exit 2), and so are a queue entry that is not a function,
// one of the wrong type, and an infeed in a function the program calls.
// RUN: %not %tpurun --check --split-input-file %s 2>&1 | FileCheck %s
// CHECK: stablehlo.infeed ran without an infeed queue
// CHECK: the infeed queue has 1 entry, but the program runs more infeeds
// CHECK: an infeed queue is supported on a grid of one process only
// CHECK: Function 1 : i64 not found
// CHECK: infeed queue entry @q1 has type () -> tensor<3xf32>; the infeed it feeds needs
// CHECK: infeed queue entry @q2 has type (tensor<2xi64>) -> tensor<2xi64>; the infeed it feeds needs
// CHECK: 'stablehlo.infeed' op an infeed inside a region or a called function is not supported with an infeed queue
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

// -----

func.func @fed(%t: !stablehlo.token) -> tensor<2xi64> {
  %a:2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (tensor<2xi64>, !stablehlo.token)
  func.return %a#0 : tensor<2xi64>
}
func.func @q1() -> tensor<3xf32> {
  %c = stablehlo.constant dense<[5.0, 6.0, 7.0]> : tensor<3xf32>
  func.return %c : tensor<3xf32>
}
func.func @q2(%x: tensor<2xi64>) -> tensor<2xi64> {
  func.return %x : tensor<2xi64>
}
func.func @main() {
  %t = stablehlo.after_all : !stablehlo.token
  %f = "interpreter.run_parallel"(%t) {infeed = [1], programs = [[@fed]]} : (!stablehlo.token) -> tensor<2xi64>
  func.return
}

// -----

func.func @fed(%t: !stablehlo.token) -> tensor<2xi64> {
  %a:2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (tensor<2xi64>, !stablehlo.token)
  func.return %a#0 : tensor<2xi64>
}
func.func @q1() -> tensor<3xf32> {
  %c = stablehlo.constant dense<[5.0, 6.0, 7.0]> : tensor<3xf32>
  func.return %c : tensor<3xf32>
}
func.func @q2(%x: tensor<2xi64>) -> tensor<2xi64> {
  func.return %x : tensor<2xi64>
}
func.func @main() {
  %t = stablehlo.after_all : !stablehlo.token
  %f = "interpreter.run_parallel"(%t) {infeed = [@q1], programs = [[@fed]]} : (!stablehlo.token) -> tensor<2xi64>
  func.return
}

// -----

func.func @fed(%t: !stablehlo.token) -> tensor<2xi64> {
  %a:2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (tensor<2xi64>, !stablehlo.token)
  func.return %a#0 : tensor<2xi64>
}
func.func @q1() -> tensor<3xf32> {
  %c = stablehlo.constant dense<[5.0, 6.0, 7.0]> : tensor<3xf32>
  func.return %c : tensor<3xf32>
}
func.func @q2(%x: tensor<2xi64>) -> tensor<2xi64> {
  func.return %x : tensor<2xi64>
}
func.func @main() {
  %t = stablehlo.after_all : !stablehlo.token
  %f = "interpreter.run_parallel"(%t) {infeed = [@q2], programs = [[@fed]]} : (!stablehlo.token) -> tensor<2xi64>
  func.return
}

// -----

func.func private @helper(%t: !stablehlo.token) -> tensor<2xi64> {
  %a:2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (tensor<2xi64>, !stablehlo.token)
  func.return %a#0 : tensor<2xi64>
}
func.func @fed(%t: !stablehlo.token) -> tensor<2xi64> {
  %a = func.call @helper(%t) : (!stablehlo.token) -> tensor<2xi64>
  func.return %a : tensor<2xi64>
}
func.func @q0() -> tensor<2xi64> {
  %c = stablehlo.constant dense<[5, 6]> : tensor<2xi64>
  func.return %c : tensor<2xi64>
}
func.func @main() {
  %t = stablehlo.after_all : !stablehlo.token
  %f = "interpreter.run_parallel"(%t) {infeed = [@q0], programs = [[@fed]]} : (!stablehlo.token) -> tensor<2xi64>
  func.return
}
