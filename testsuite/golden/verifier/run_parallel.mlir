// RUN: %verify-diagnostics %s
// interpreter.run_parallel (upstream's RunParallelOp::verify): a non-empty
// rectangular grid of functions of the module, as many operands and results
// as they take and return in all, an infeed queue of functions each
// returning one tensor.

func.func @foo() {
  func.return
}
func.func @main() {
  // expected-error @+1 {{`programs` attribute cannot be empty}}
  "interpreter.run_parallel"() {programs = []} : () -> ()
  func.return
}

// -----

func.func @foo() {
  func.return
}
func.func @main() {
  // expected-error @+1 {{Sizes of second dimension of `programs` should all match 1 but got 2}}
  "interpreter.run_parallel"() {programs = [[@foo], [@foo, @foo]]} : () -> ()
  func.return
}

// -----

func.func @main() {
  // expected-error @+1 {{Function @bar not found}}
  "interpreter.run_parallel"() {programs = [[@bar]]} : () -> ()
  func.return
}

// -----

func.func @one(%x: tensor<i32>) -> tensor<i32> {
  func.return %x : tensor<i32>
}
func.func @main(%x: tensor<i32>) {
  // expected-error @+2 {{Number of inputs (2) should match the sum of the number of inputs of all programs (1)}}
  // expected-error @+1 {{Number of results (0) should match the sum of the number of results of all programs (1)}}
  "interpreter.run_parallel"(%x, %x) {programs = [[@one]]} : (tensor<i32>, tensor<i32>) -> ()
  func.return
}

// -----

func.func @foo() {
  func.return
}
func.func @main() {
  // expected-error @+1 {{infeed attribute is optional or should not be empty}}
  "interpreter.run_parallel"() {infeed = [], programs = [[@foo]]} : () -> ()
  func.return
}

// -----

func.func @foo() {
  func.return
}
func.func @two() -> (tensor<i32>, tensor<i32>) {
  %c = stablehlo.constant dense<1> : tensor<i32>
  func.return %c, %c : tensor<i32>, tensor<i32>
}
func.func @main() {
  // expected-error @+1 {{Function "two" should return 1 tensor but returns 2}}
  "interpreter.run_parallel"() {infeed = [@two], programs = [[@foo]]} : () -> ()
  func.return
}

// -----

func.func @foo() {
  func.return
}
func.func @tok() -> !stablehlo.token {
  %t = stablehlo.after_all : !stablehlo.token
  func.return %t : !stablehlo.token
}
func.func @main() {
  // expected-error @+1 {{Function "tok" should return a tensor type, but instead returns '!stablehlo.token'}}
  "interpreter.run_parallel"() {infeed = [@tok], programs = [[@foo]]} : () -> ()
  func.return
}
