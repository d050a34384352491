// RUN: %verify-diagnostics %s
// chlo.ragged_dot's group_sizes and chlo.scan's inputs and body
// (ir/verify_control.c).

func.func @group_sizes_rank(%lhs: tensor<11x5xf32>, %rhs: tensor<3x5x7xf32>, %g: tensor<3x2xi64>) -> tensor<11x7xf32> {
  // expected-error @+1 {{expected group_sizes to have rank 1, got 2}}
  %0 = "chlo.ragged_dot"(%lhs, %rhs, %g) {ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>} : (tensor<11x5xf32>, tensor<3x5x7xf32>, tensor<3x2xi64>) -> tensor<11x7xf32>
  func.return %0 : tensor<11x7xf32>
}

// -----

func.func @group_sizes_shape(%lhs: tensor<19x17x11x5xf32>, %rhs: tensor<3x19x5x7xf32>, %g: tensor<19x11x3xi64>) -> tensor<19x17x11x7xf32> {
  // expected-error @+1 {{group_sizes is expected to have shape [19, 17, 3], got [19, 11, 3]}}
  %0 = "chlo.ragged_dot"(%lhs, %rhs, %g) {ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [1], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [2], rhs_group_dimensions = [0]>} : (tensor<19x17x11x5xf32>, tensor<3x19x5x7xf32>, tensor<19x11x3xi64>) -> tensor<19x17x11x7xf32>
  func.return %0 : tensor<19x17x11x7xf32>
}

// -----

func.func @group_dim_size(%lhs: tensor<11x5xf32>, %rhs: tensor<3x5x7xf32>, %g: tensor<2xi64>) -> tensor<11x7xf32> {
  // expected-error @+1 {{rhs group dimension is expected to have size=2, got 3}}
  %0 = "chlo.ragged_dot"(%lhs, %rhs, %g) {ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>} : (tensor<11x5xf32>, tensor<3x5x7xf32>, tensor<2xi64>) -> tensor<11x7xf32>
  func.return %0 : tensor<11x7xf32>
}

// -----

func.func @group_dim_is_batch(%lhs: tensor<3x11x5xf32>, %rhs: tensor<3x5x7xf32>, %g: tensor<3xi64>) -> tensor<3x11x7xf32> {
  // expected-error @+1 {{has duplicated dimension from rhs_group_dimensions and rhs_batching_dimensions: 0}}
  %0 = "chlo.ragged_dot"(%lhs, %rhs, %g) {ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [1], rhs_group_dimensions = [0]>} : (tensor<3x11x5xf32>, tensor<3x5x7xf32>, tensor<3xi64>) -> tensor<3x11x7xf32>
  func.return %0 : tensor<3x11x7xf32>
}

// -----

func.func @scan_size(%x: tensor<2x3xf32>, %y: tensor<3x3xf32>) -> (tensor<2x3xf32>, tensor<3x3xf32>) {
  // expected-error @+1 {{invalid scan dimension size of operand 1 (3, but 2 before)}}
  %0:2 = chlo.scan(%x, %y) inits() dimension=0 {
  ^bb0(%a: tensor<3xf32>, %b: tensor<3xf32>):
    stablehlo.return %a, %b : tensor<3xf32>, tensor<3xf32>
  } : (tensor<2x3xf32>, tensor<3x3xf32>) -> (tensor<2x3xf32>, tensor<3x3xf32>)
  func.return %0#0, %0#1 : tensor<2x3xf32>, tensor<3x3xf32>
}

// -----

func.func @scan_body_args(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{expects 1 arguments in the body, but got 2}}
  %0 = chlo.scan(%x) inits() dimension=0 {
  ^bb0(%a: tensor<3xf32>, %b: tensor<3xf32>):
    stablehlo.return %a : tensor<3xf32>
  } : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

func.func @scan_carry_type(%x: tensor<2x3xf32>, %init: tensor<3xi32>) -> (tensor<2x3xf32>, tensor<3xf32>) {
  // expected-error @+1 {{operand and body argument 1 are incompatible ('tensor<3xi32>' and 'tensor<3xf32>')}}
  %0:2 = chlo.scan(%x) inits(%init) dimension=0 {
  ^bb0(%a: tensor<3xf32>, %b: tensor<3xf32>):
    stablehlo.return %a, %b : tensor<3xf32>, tensor<3xf32>
  } : (tensor<2x3xf32>, tensor<3xi32>) -> (tensor<2x3xf32>, tensor<3xf32>)
  func.return %0#0, %0#1 : tensor<2x3xf32>, tensor<3xf32>
}
