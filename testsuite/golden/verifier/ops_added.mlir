// RUN: %verify-diagnostics %s
// Negative tests for the ops of issue 17's missing-ops part: collective_broadcast's
// variadic and has_dynamic_root forms, chlo.mulhi, interpreter.print.

func.func @cb_roots_type(%a: tensor<2xf32>, %r: tensor<2xi32>) -> tensor<2xf32> {
  // expected-error @+1 {{expects the roots operand #1 to be tensor<1xi32>, but got 'tensor<2xi32>'}}
  %0 = "stablehlo.collective_broadcast"(%a, %r) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, has_dynamic_root} : (tensor<2xf32>, tensor<2xi32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

func.func @cb_dyn_needs_two(%r: tensor<0xi32>) {
  // expected-error @+1 {{expects at least 2 operands with has_dynamic_root = true, but got 1}}
  "stablehlo.collective_broadcast"(%r) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, has_dynamic_root} : (tensor<0xi32>) -> ()
  func.return
}

// -----

func.func @cb_result_count(%a: tensor<2xf32>, %b: tensor<3xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{expects 2 results (one per broadcast operand), but got 1}}
  %0 = "stablehlo.collective_broadcast"(%a, %b) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

func.func @cb_result_type(%a: tensor<2xf32>, %b: tensor<3xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  // expected-error @+1 {{expects result #1 to have the type of operand #1, but got 'tensor<2xf32>' and 'tensor<3xf32>'}}
  %0:2 = "stablehlo.collective_broadcast"(%a, %b) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xf32>, tensor<3xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  func.return %0#0, %0#1 : tensor<2xf32>, tensor<2xf32>
}

// -----

func.func @mulhi_float(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{}}
  %0 = chlo.mulhi %a, %a : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

func.func @print_token(%t: !stablehlo.token) {
  // expected-error @+1 {{}}
  interpreter.print %t : !stablehlo.token
  func.return
}

// -----

func.func @constant_like_type(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{value's type doesn't match element return type}}
  %0 = "chlo.constant_like"(%a) {value = 1 : i32} : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

func.func @constant_like_shape(%a: tensor<2xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{requires the same shape for the operand and the result, but got 'tensor<2xf32>' and 'tensor<3xf32>'}}
  %0 = "chlo.constant_like"(%a) {value = 1.0 : f32} : (tensor<2xf32>) -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}

// -----

func.func @asin_acos_kernel_real(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{}}
  %0 = chlo._asin_acos_kernel %a : tensor<2xf32> -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

func.func @async_done_of_tensor(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{operand must be a future, but got 'tensor<2xf32>'}}
  %0 = "stablehlo.async_done"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

func.func @async_start_slice_type(%a: tensor<4xf32>) -> !stablehlo.future<tensor<3xf32>> {
  // expected-error @+1 {{inferred type(s) '!stablehlo.future<tensor<2xf32>>' are incompatible with return type(s) of operation '!stablehlo.future<tensor<3xf32>>'}}
  %0 = "stablehlo.async_start"(%a) ({
  ^bb0(%v: tensor<4xf32>):
    %s = stablehlo.slice %v [0:2] : (tensor<4xf32>) -> tensor<2xf32>
    "stablehlo.return"(%s) : (tensor<2xf32>) -> ()
  }) : (tensor<4xf32>) -> !stablehlo.future<tensor<3xf32>>
  func.return %0 : !stablehlo.future<tensor<3xf32>>
}

// -----

// expected-error @+1 {{future element type must be a ranked tensor, but got 'tensor<*xf32>'}}
func.func private @future_unranked() -> !stablehlo.future<tensor<*xf32>>
