// custom_call @shape_assertion: a tensor<i1> predicate, integer scalars for
// the message's {i}, no results.  A placeholder out of range (however many
// digits) is printed as written.
// RUN: %verify-diagnostics %s
// RUN: %not %tpurun %S/Inputs/shape_assertion_huge.mlir --input=i1=false --input=i64=3 2>&1 | FileCheck %s
// CHECK: shape assertion failed: bad {4294967295} 3 {9223372036854775807} {1} end

func.func @main(%p: tensor<2xi1>, %x: tensor<f32>) -> tensor<f32> {
  // expected-error @+2 {{custom_call @shape_assertion expects a tensor<i1> predicate first, but got tensor<2xi1>}}
  // expected-error @+1 {{custom_call @shape_assertion operand 1 must be an integer scalar (a value for {0}), but got tensor<f32>}}
  stablehlo.custom_call @shape_assertion(%p, %x) {error_message = "bad {0}", has_side_effect = true} : (tensor<2xi1>, tensor<f32>) -> ()
  return %x : tensor<f32>
}

// -----

func.func @main(%p: tensor<i1>, %x: tensor<i64>) -> tensor<i64> {
  // expected-error @+1 {{custom_call @shape_assertion has no results, but got 1}}
  %0 = stablehlo.custom_call @shape_assertion(%p, %x) {error_message = "bad {0}", has_side_effect = true} : (tensor<i1>, tensor<i64>) -> tensor<i1>
  return %x : tensor<i64>
}

// -----

func.func @main(%p: tensor<i1>, %x: tensor<i64>) -> tensor<i64> {
  stablehlo.custom_call @shape_assertion(%p, %x) {error_message = "bad {0}", has_side_effect = true} : (tensor<i1>, tensor<i64>) -> ()
  return %x : tensor<i64>
}
