// RUN: %verify-diagnostics %s
// Negative tests for control flow, collectives, calls, constants, checks and
// CHLO ops (ir/verify_control.c).

func.func @while_cond_type(%a: tensor<i64>) -> tensor<i64> {
  // expected-error @+1 {{expect condition block return a zero-ranked tensor of i1 but got 'tensor<2xi1>'}}
  %0 = "stablehlo.while"(%a) ({
  ^bb0(%x: tensor<i64>):
    %c = stablehlo.constant dense<true> : tensor<2xi1>
    stablehlo.return %c : tensor<2xi1>
  }, {
  ^bb0(%x: tensor<i64>):
    stablehlo.return %x : tensor<i64>
  }) : (tensor<i64>) -> tensor<i64>
  func.return %0 : tensor<i64>
}

// -----

func.func @while_body_type(%a: tensor<i64>) -> tensor<i64> {
  // expected-error @+1 {{expects body region to return 'tensor<i64>' as value #0 (the operand types), but returns 'tensor<f32>'}}
  %0 = "stablehlo.while"(%a) ({
  ^bb0(%x: tensor<i64>):
    %c = stablehlo.constant dense<true> : tensor<i1>
    stablehlo.return %c : tensor<i1>
  }, {
  ^bb0(%x: tensor<i64>):
    %f = stablehlo.constant dense<1.0> : tensor<f32>
    stablehlo.return %f : tensor<f32>
  }) : (tensor<i64>) -> tensor<i64>
  func.return %0 : tensor<i64>
}

// -----

func.func @while_cond_args(%a: tensor<i64>) -> tensor<i64> {
  // expected-error @+1 {{expects condition region argument #0 to have type 'tensor<i64>' (the operand types), but got 'tensor<i32>'}}
  %0 = "stablehlo.while"(%a) ({
  ^bb0(%x: tensor<i32>):
    %c = stablehlo.constant dense<true> : tensor<i1>
    stablehlo.return %c : tensor<i1>
  }, {
  ^bb0(%x: tensor<i64>):
    stablehlo.return %x : tensor<i64>
  }) : (tensor<i64>) -> tensor<i64>
  func.return %0 : tensor<i64>
}

// -----

func.func @while_result(%a: tensor<i64>) -> tensor<i32> {
  // expected-error @+1 {{expects result #0 to have the type of operand #0, but got 'tensor<i32>' and 'tensor<i64>'}}
  %0 = "stablehlo.while"(%a) ({
  ^bb0(%x: tensor<i64>):
    %c = stablehlo.constant dense<true> : tensor<i1>
    stablehlo.return %c : tensor<i1>
  }, {
  ^bb0(%x: tensor<i64>):
    stablehlo.return %x : tensor<i64>
  }) : (tensor<i64>) -> tensor<i32>
  func.return %0 : tensor<i32>
}

// -----

func.func @if_branch_type(%p: tensor<i1>) -> tensor<3xi64> {
  // expected-error @+1 {{expects true branch to return 'tensor<3xi64>' as value #0 (the result types), but returns 'tensor<2xi64>'}}
  %0 = "stablehlo.if"(%p) ({
    %c = stablehlo.constant dense<0> : tensor<2xi64>
    stablehlo.return %c : tensor<2xi64>
  }, {
    %c = stablehlo.constant dense<1> : tensor<3xi64>
    stablehlo.return %c : tensor<3xi64>
  }) : (tensor<i1>) -> tensor<3xi64>
  func.return %0 : tensor<3xi64>
}

// -----

func.func @if_pred(%p: tensor<i32>) -> tensor<2xi64> {
  // expected-error @+1 {{operand #0 must be a 0-dimensional tensor of i1 values, but got 'tensor<i32>'}}
  %0 = "stablehlo.if"(%p) ({
    %c = stablehlo.constant dense<0> : tensor<2xi64>
    stablehlo.return %c : tensor<2xi64>
  }, {
    %c = stablehlo.constant dense<1> : tensor<2xi64>
    stablehlo.return %c : tensor<2xi64>
  }) : (tensor<i32>) -> tensor<2xi64>
  func.return %0 : tensor<2xi64>
}

// -----

func.func @case_branch(%i: tensor<i32>) -> tensor<2xi64> {
  // expected-error @+1 {{expects branch #1 to return 'tensor<2xi64>' as value #0 (the result types), but returns 'tensor<2xf32>'}}
  %0 = "stablehlo.case"(%i) ({
    %c = stablehlo.constant dense<0> : tensor<2xi64>
    stablehlo.return %c : tensor<2xi64>
  }, {
    %c = stablehlo.constant dense<1.0> : tensor<2xf32>
    stablehlo.return %c : tensor<2xf32>
  }) : (tensor<i32>) -> tensor<2xi64>
  func.return %0 : tensor<2xi64>
}

// -----

func.func @case_index(%i: tensor<2xi32>) -> tensor<2xi64> {
  // expected-error @+1 {{operand #0 must be a 0-dimensional tensor of integer values, but got 'tensor<2xi32>'}}
  %0 = "stablehlo.case"(%i) ({
    %c = stablehlo.constant dense<0> : tensor<2xi64>
    stablehlo.return %c : tensor<2xi64>
  }) : (tensor<2xi32>) -> tensor<2xi64>
  func.return %0 : tensor<2xi64>
}

// -----

func.func @optimization_barrier_types(%a: tensor<f32>) -> tensor<f64> {
  // expected-error @+1 {{expects result #0 to have the type of operand #0, but got 'tensor<f64>' and 'tensor<f32>'}}
  %0 = "stablehlo.optimization_barrier"(%a) : (tensor<f32>) -> tensor<f64>
  func.return %0 : tensor<f64>
}

// -----

func.func @all_gather_result(%a: tensor<2x2xi64>) -> tensor<2x3xi64> {
  // expected-error @+1 {{does not match operand 'tensor<2x2xi64>' gathered along dimension 1 (group size 2)}}
  %0 = "stablehlo.all_gather"(%a) {all_gather_dim = 1 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x2xi64>) -> tensor<2x3xi64>
  func.return %0 : tensor<2x3xi64>
}

// -----

func.func @all_gather_dim(%a: tensor<2x2xi64>) -> tensor<2x4xi64> {
  // expected-error @+1 {{all_gather_dim 2 is out of range for operand #0 of rank 2}}
  %0 = "stablehlo.all_gather"(%a) {all_gather_dim = 2 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x2xi64>) -> tensor<2x4xi64>
  func.return %0 : tensor<2x4xi64>
}

// -----

func.func @all_gather_groups(%a: tensor<2x2xi64>) -> tensor<2x4xi64> {
  // expected-error @+1 {{replica id #0 seen more than once}}
  %0 = "stablehlo.all_gather"(%a) {all_gather_dim = 1 : i64, replica_groups = dense<[[0, 0]]> : tensor<1x2xi64>} : (tensor<2x2xi64>) -> tensor<2x4xi64>
  func.return %0 : tensor<2x4xi64>
}

// -----

func.func @all_gather_global_ids(%a: tensor<2x2xi64>) -> tensor<2x4xi64> {
  // expected-error @+1 {{channel_id must be positive when using global device ids}}
  %0 = "stablehlo.all_gather"(%a) {all_gather_dim = 1 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids} : (tensor<2x2xi64>) -> tensor<2x4xi64>
  func.return %0 : tensor<2x4xi64>
}

// -----

func.func @all_reduce_body(%a: tensor<4xi64>) -> tensor<4xi64> {
  // expected-error @+1 {{computation must return 1 value(s), but returns 2}}
  %0 = "stablehlo.all_reduce"(%a) ({
  ^bb0(%x: tensor<i64>, %y: tensor<i64>):
    %1 = stablehlo.add %x, %y : tensor<i64>
    stablehlo.return %1, %1 : tensor<i64>, tensor<i64>
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xi64>) -> tensor<4xi64>
  func.return %0 : tensor<4xi64>
}

// -----

func.func @all_reduce_shape(%a: tensor<4xi64>) -> tensor<2xi64> {
  // expected-error @+1 {{expects result #0 to have the shape of operand #0, but got 'tensor<2xi64>' and 'tensor<4xi64>'}}
  %0 = "stablehlo.all_reduce"(%a) ({
  ^bb0(%x: tensor<i64>, %y: tensor<i64>):
    %1 = stablehlo.add %x, %y : tensor<i64>
    stablehlo.return %1 : tensor<i64>
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xi64>) -> tensor<2xi64>
  func.return %0 : tensor<2xi64>
}

// -----

func.func @reduce_scatter_result(%a: tensor<4xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{result scatter dimension has size 3, expected 2}}
  %0 = "stablehlo.reduce_scatter"(%a) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %1 = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }) {scatter_dimension = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}

// -----

func.func @all_to_all_groups(%a: tensor<4x2xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{group size of replica_groups must be split_count 2, but got 3}}
  %0 = "stablehlo.all_to_all"(%a) {split_dimension = 0 : i64, concat_dimension = 1 : i64, split_count = 2 : i64, replica_groups = dense<[[0, 1, 2]]> : tensor<1x3xi64>} : (tensor<4x2xf32>) -> tensor<2x4xf32>
  func.return %0 : tensor<2x4xf32>
}

// -----

func.func @all_to_all_result(%a: tensor<4x2xf32>) -> tensor<4x2xf32> {
  // expected-error @+1 {{expects result #0 to have shape [2, 4], but got 'tensor<4x2xf32>'}}
  %0 = "stablehlo.all_to_all"(%a) {split_dimension = 0 : i64, concat_dimension = 1 : i64, split_count = 2 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4x2xf32>) -> tensor<4x2xf32>
  func.return %0 : tensor<4x2xf32>
}

// -----

func.func @collective_permute_sources(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{duplicate sources not allowed: 0}}
  %0 = "stablehlo.collective_permute"(%a) {source_target_pairs = dense<[[0, 1], [0, 2]]> : tensor<2x2xi64>} : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

func.func @collective_permute_type(%a: tensor<2xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{expects result #0 to have the type of operand #0, but got 'tensor<3xf32>' and 'tensor<2xf32>'}}
  %0 = "stablehlo.collective_permute"(%a) {source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>} : (tensor<2xf32>) -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}

// -----

func.func @custom_call_check_arity(%a: tensor<2xf32>) {
  // expected-error @+1 {{custom_call @check.expect_eq expects 2 operands (actual, expected), but got 1}}
  stablehlo.custom_call @check.expect_eq(%a) {has_side_effect = true} : (tensor<2xf32>) -> ()
  func.return
}

// -----

func.func @custom_call_check_types(%a: tensor<2xf32>, %b: tensor<2xf16>) {
  // expected-error @+1 {{custom_call @check.expect_close expects operands of the same type, but got 'tensor<2xf32>' and 'tensor<2xf16>'}}
  stablehlo.custom_call @check.expect_close(%a, %b) {has_side_effect = true} : (tensor<2xf32>, tensor<2xf16>) -> ()
  func.return
}

// -----

func.func @custom_call_api_version(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{api_version must be between 0 and 4, but got 7}}
  %0 = "stablehlo.custom_call"(%a) {call_target_name = "foo", api_version = 7 : i32} : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

func.func @custom_call_no_target(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{requires attribute 'call_target_name'}}
  %0 = "stablehlo.custom_call"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

func.func @composite_missing_decomposition(%a: tensor<i64>) -> tensor<i64> {
  // expected-error @+1 {{does not reference a valid function}}
  %0 = stablehlo.composite "stablehlo.add_n" %a {decomposition = @nonexistent} : (tensor<i64>) -> tensor<i64>
  func.return %0 : tensor<i64>
}

// -----

func.func @add_n.impl(%a: tensor<i64>) -> tensor<i64> {
  func.return %a : tensor<i64>
}

func.func @composite_types(%a: tensor<i32>) -> tensor<i32> {
  // expected-error @+1 {{operand #0 has type 'tensor<i32>', but the decomposition @add_n.impl expects 'tensor<i64>'}}
  %0 = stablehlo.composite "stablehlo.add_n" %a {decomposition = @add_n.impl} : (tensor<i32>) -> tensor<i32>
  func.return %0 : tensor<i32>
}

// -----

func.func @add_n.impl(%a: tensor<i64>) -> tensor<i64> {
  func.return %a : tensor<i64>
}

func.func @composite_name(%a: tensor<i64>) -> tensor<i64> {
  // expected-error @+1 {{name 'add_n' must be a valid namespaced op name}}
  %0 = stablehlo.composite "add_n" %a {decomposition = @add_n.impl} : (tensor<i64>) -> tensor<i64>
  func.return %0 : tensor<i64>
}

// -----

func.func @constant_type() -> tensor<i64> {
  // expected-error @+1 {{inferred type(s) 'tensor<i32>' are incompatible with return type(s) of operation 'tensor<i64>'}}
  %0 = "stablehlo.constant"() {value = dense<1> : tensor<i32>} : () -> tensor<i64>
  func.return %0 : tensor<i64>
}

// -----

func.func @check_eq_const_type(%a: tensor<2xi32>) {
  // expected-error @+1 {{expects the constant of type 'tensor<2xi64>' to have the operand type 'tensor<2xi32>'}}
  "check.expect_eq_const"(%a) {value = dense<[1, 2]> : tensor<2xi64>} : (tensor<2xi32>) -> ()
  func.return
}

// -----

func.func @check_eq_types(%a: tensor<2xi32>, %b: tensor<3xi32>) {
  // expected-error @+1 {{expects operands of the same type, but got 'tensor<2xi32>' and 'tensor<3xi32>'}}
  "check.expect_eq"(%a, %b) : (tensor<2xi32>, tensor<3xi32>) -> ()
  func.return
}

// -----

func.func @check_close_ulps(%a: tensor<2xf32>) {
  // expected-error @+1 {{min_ulp_difference (5) must not exceed max_ulp_difference (3)}}
  "check.expect_close"(%a, %a) {max_ulp_difference = 3 : i64, min_ulp_difference = 5 : i64} : (tensor<2xf32>, tensor<2xf32>) -> ()
  func.return
}

// -----

func.func @probe_id(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{requires attribute 'probe_id'}}
  %0 = "interpreter.probe"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

func.func @top_k_large(%a: tensor<3xf32>) -> (tensor<5xf32>, tensor<5xi32>) {
  // expected-error @+1 {{operand's last dimension must be at least 5}}
  %0:2 = chlo.top_k(%a, k = 5) : tensor<3xf32> -> (tensor<5xf32>, tensor<5xi32>)
  func.return %0#0, %0#1 : tensor<5xf32>, tensor<5xi32>
}

// -----

func.func @top_k_indices(%a: tensor<5xf32>) -> (tensor<2xf32>, tensor<2xi64>) {
  // expected-error @+1 {{expects indices of element type i32, but got 'tensor<2xi64>'}}
  %0:2 = chlo.top_k(%a, k = 2) : tensor<5xf32> -> (tensor<2xf32>, tensor<2xi64>)
  func.return %0#0, %0#1 : tensor<2xf32>, tensor<2xi64>
}

// -----

func.func @top_k_shape(%a: tensor<4x5xf32>) -> (tensor<4x3xf32>, tensor<4x2xi32>) {
  // expected-error @+1 {{expects result #0 to have shape [4, 2], but got 'tensor<4x3xf32>'}}
  %0:2 = chlo.top_k(%a, k = 2) : tensor<4x5xf32> -> (tensor<4x3xf32>, tensor<4x2xi32>)
  func.return %0#0, %0#1 : tensor<4x3xf32>, tensor<4x2xi32>
}

// -----

func.func @ragged_dot_shape(%l: tensor<11x5xf32>, %r: tensor<3x5x7xf32>, %g: tensor<3xi64>) -> tensor<11x5xf32> {
  // expected-error @+1 {{inferred shape [11, 7] is incompatible with the result type 'tensor<11x5xf32>'}}
  %0 = "chlo.ragged_dot"(%l, %r, %g) {
    ragged_dot_dimension_numbers = #chlo.ragged_dot<
      lhs_batching_dimensions = [],
      rhs_batching_dimensions = [],
      lhs_contracting_dimensions = [1],
      rhs_contracting_dimensions = [1],
      lhs_ragged_dimensions = [0],
      rhs_group_dimensions = [0]
    >,
    precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>]
  } : (tensor<11x5xf32>, tensor<3x5x7xf32>, tensor<3xi64>) -> tensor<11x5xf32>
  func.return %0 : tensor<11x5xf32>
}

// -----

func.func @ragged_dot_group(%l: tensor<11x5xf32>, %r: tensor<5x7xf32>, %g: tensor<3xi64>) -> tensor<11x7xf32> {
  // expected-error @+1 {{the rhs must have a group dimension when the lhs ragged dimension is a non-contracting dimension}}
  %0 = "chlo.ragged_dot"(%l, %r, %g) {
    ragged_dot_dimension_numbers = #chlo.ragged_dot<
      lhs_batching_dimensions = [],
      rhs_batching_dimensions = [],
      lhs_contracting_dimensions = [1],
      rhs_contracting_dimensions = [0],
      lhs_ragged_dimensions = [0],
      rhs_group_dimensions = []
    >
  } : (tensor<11x5xf32>, tensor<5x7xf32>, tensor<3xi64>) -> tensor<11x7xf32>
  func.return %0 : tensor<11x7xf32>
}

// -----

func.func @replica_id_type() -> tensor<i32> {
  // expected-error @+1 {{result #0 must be a 0-dimensional tensor of ui32 values, but got 'tensor<i32>'}}
  %0 = "stablehlo.replica_id"() : () -> tensor<i32>
  func.return %0 : tensor<i32>
}

// -----

func.func @after_all_operand(%a: tensor<f32>) -> !stablehlo.token {
  // expected-error @+1 {{operand #0 must be a token, but got 'tensor<f32>'}}
  %0 = "stablehlo.after_all"(%a) : (tensor<f32>) -> !stablehlo.token
  func.return %0 : !stablehlo.token
}

// -----

func.func @outfeed_token(%a: tensor<2xf32>) -> !stablehlo.token {
  // expected-error @+1 {{operand #0 must be a token, but got 'tensor<2xf32>'}}
  %0 = "stablehlo.outfeed"(%a) : (tensor<2xf32>) -> !stablehlo.token
  func.return %0 : !stablehlo.token
}

// -----

func.func @scan_dimension(%input: tensor<4xi32>, %init: tensor<i32>) -> (tensor<4xi32>, tensor<i32>) {
  // expected-error @+1 {{scan dimension 1 of operand 0 is out of bounds (rank 1)}}
  %0:2 = chlo.scan(%input) inits(%init) dimension=1 {
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    %1 = stablehlo.add %a, %b : tensor<i32>
    stablehlo.return %1, %1 : tensor<i32>, tensor<i32>
  } : (tensor<4xi32>, tensor<i32>) -> (tensor<4xi32>, tensor<i32>)
  func.return %0#0, %0#1 : tensor<4xi32>, tensor<i32>
}

// -----

func.func @custom_call_called_computations(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{called_computations must be an array of symbol references}}
  %0 = "stablehlo.custom_call"(%a) {call_target_name = "foo", called_computations = ["bar"]} : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

func.func @infeed_token(%t: !stablehlo.token) -> (tensor<2xf32>, tensor<2xf32>) {
  // expected-error @+1 {{result #1 must be a token, but got 'tensor<2xf32>'}}
  %0:2 = "stablehlo.infeed"(%t) {infeed_config = ""} : (!stablehlo.token) -> (tensor<2xf32>, tensor<2xf32>)
  func.return %0#0, %0#1 : tensor<2xf32>, tensor<2xf32>
}

// -----

func.func @dynamic_conv_padding(%l: tensor<1x4x4x1xi64>, %r: tensor<3x3x1x1xi64>, %p: tensor<3x2xi64>) -> tensor<1x2x2x1xi64> {
  // expected-error @+1 {{expects padding to have shape [2, 2], but got 'tensor<3x2xi64>'}}
  %0 = "stablehlo.dynamic_conv"(%l, %r, %p) {
    window_strides = array<i64: 4, 4>,
    lhs_dilation = array<i64: 2, 2>,
    rhs_dilation = array<i64: 1, 1>,
    window_reversal = array<i1: false, false>,
    dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>,
    batch_group_count = 1 : i64,
    feature_group_count = 1 : i64
  } : (tensor<1x4x4x1xi64>, tensor<3x3x1x1xi64>, tensor<3x2xi64>) -> tensor<1x2x2x1xi64>
  func.return %0 : tensor<1x2x2x1xi64>
}
