// RUN: %verify-diagnostics %s
// Negative tests for the rules on attributes: dot_general's algorithm
// (frontend/parse_type_attr.c, ir/verify_data.c), result_accuracy
// (ir/verify_elementwise.c), replica groups (ir/verify_control.c), the
// structured attributes' keys, custom_call / infeed / composite
// (ir/verify_layouts.c).

func.func @alg_count(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %0 = "stablehlo.dot_general"(%a, %a) <{
    dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>,
    // expected-error @+1 {{dot algorithm: lhs component count must be positive, but got 0}}
    algorithm = #stablehlo.dot_algorithm<lhs_precision_type = f32, rhs_precision_type = f32, accumulation_type = f32, lhs_component_count = 0, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false>
  }> : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  func.return %0 : tensor<2x2xf32>
}

// -----

func.func @alg_ops(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {
  // expected-error @+1 {{dot algorithm: num primitive operations must be positive, but got -2}}
  %0 = stablehlo.dot_general %a, %a, contracting_dims = [1] x [0], algorithm = <lhs_precision_type = f32, rhs_precision_type = f32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = -2, allow_imprecise_accumulation = false> : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  func.return %0 : tensor<2x2xf32>
}

// -----

func.func @alg_unknown(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {
  // expected-error @+1 {{dot algorithm not known to be supported on any hardware: {lhs:'f32', rhs:'f32', accum:'f32', lhs_components:1, rhs_components:1, primitive_ops:1, imprecise:1}}}
  %0 = stablehlo.dot_general %a, %a, contracting_dims = [1] x [0], algorithm = <lhs_precision_type = f32, rhs_precision_type = f32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = true> : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  func.return %0 : tensor<2x2xf32>
}

// -----

func.func @alg_int_type(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {
  // expected-error @+1 {{dot algorithm not known to be supported on any hardware: {lhs:'i8'}}
  %0 = stablehlo.dot_general %a, %a, contracting_dims = [1] x [0], algorithm = <lhs_precision_type = i8, rhs_precision_type = f32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false> : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  func.return %0 : tensor<2x2xf32>
}

// -----

func.func @alg_missing(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {
  // expected-error @+1 {{#stablehlo.dot_algorithm needs 'allow_imprecise_accumulation' (true or false)}}
  %0 = stablehlo.dot_general %a, %a, contracting_dims = [1] x [0], algorithm = <lhs_precision_type = bf16, rhs_precision_type = bf16, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1> : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  func.return %0 : tensor<2x2xf32>
}

// -----

func.func @alg_not_a_type(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {
  // expected-error @+1 {{#stablehlo.dot_algorithm: 'accumulation_type' is not a type: 'float'}}
  %0 = stablehlo.dot_general %a, %a, contracting_dims = [1] x [0], algorithm = <lhs_precision_type = bf16, rhs_precision_type = bf16, accumulation_type = float, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false> : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  func.return %0 : tensor<2x2xf32>
}

// -----

func.func @alg_precision(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {
  // expected-error @+1 {{must specify DEFAULT precision config when algorithm is set, but precision #0 is HIGHEST}}
  %0 = stablehlo.dot_general %a, %a, contracting_dims = [1] x [0], precision = [HIGHEST, DEFAULT], algorithm = <lhs_precision_type = bf16, rhs_precision_type = bf16, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 3, allow_imprecise_accumulation = false> : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  func.return %0 : tensor<2x2xf32>
}

// -----

func.func @accuracy_highest(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{Invalid tolerances for ResultAccuracyAttr with mode HIGHEST, must be all zero (got atol 1, rtol 0, ulps 4)}}
  %0 = "stablehlo.sine"(%a) {result_accuracy = #stablehlo.result_accuracy<atol = 1.0, rtol = 0.0, ulps = 4, mode = #stablehlo.result_accuracy_mode<HIGHEST>>} : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

func.func @accuracy_negative(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{result_accuracy: negative tolerance (atol 0, rtol -0.5, ulps 0)}}
  %0 = "stablehlo.sqrt"(%a) {result_accuracy = #stablehlo.result_accuracy<rtol = -0.5, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>} : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

func.func @accuracy_mode(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{attribute 'result_accuracy' must be a #stablehlo.result_accuracy<}}
  %0 = "stablehlo.tan"(%a) {result_accuracy = #stablehlo.result_accuracy<mode = #stablehlo.result_accuracy_mode<FAST>>} : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

func.func @replica_pad_in_gather(%a: tensor<1xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{replica groups contain invalid replica id -1 (this op's groups all have the same size: no -1 padding)}}
  %0 = "stablehlo.all_gather"(%a) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1], [2, -1]]> : tensor<2x2xi64>} : (tensor<1xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

func.func @select_and_scatter_window(%a: tensor<4xf32>, %s: tensor<4xf32>) -> tensor<4xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  // expected-error @+1 {{window_dimensions should have 1 elements (the operand rank), but is absent}}
  %0 = "stablehlo.select_and_scatter"(%a, %s, %z) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %c = stablehlo.compare GE, %x, %y : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }, {
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %t = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %t : tensor<f32>
  }) : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----

module attributes {
  stablehlo.dot = #stablehlo.dot<
    lhs_contracting_dimensions = [1],
    // expected-error @+1 {{duplicated `lhs_contracting_dimensions` entry}}
    lhs_contracting_dimensions = [1]
  >
} {}

// -----

module attributes {
  // expected-error @+1 {{expected one of: `offset_dims`, `collapsed_slice_dims`, `operand_batching_dims`, `start_indices_batching_dims`, `start_index_map`, `index_vector_dim`}}
  stablehlo.gather = #stablehlo.gather<offset_dim = [1]>
} {}

// -----

module attributes {
  stablehlo.scatter = #stablehlo.scatter<
    update_window_dims = [1]
    // expected-error @+1 {{expected '>' or ',' in #stablehlo.scatter<...>}}
    index_vector_dim = 1
  >
} {}

// -----

module attributes {
  // expected-error @+1 {{expected '[' (#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>)}}
  stablehlo.conv = #stablehlo.conv<{b, 0, 1, f}x[0, 1, i, o]->[b, 0, 1, f]>
} {}

// -----

func.func @layouts_one_side(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{Layout attributes should be specified for either both operands and results or none (only operand_layouts is given)}}
  %0 = "stablehlo.custom_call"(%x) {call_target_name = "foo", operand_layouts = [dense<[0]> : tensor<1xindex>]} : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

func.func @layouts_count(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{Number of operands must match the number of operand layouts, 1 != 2}}
  %0 = "stablehlo.custom_call"(%x) {call_target_name = "foo", operand_layouts = [dense<[0]> : tensor<1xindex>, dense<[0]> : tensor<1xindex>], result_layouts = [dense<[0]> : tensor<1xindex>]} : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

func.func @layouts_perm(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{incorrect layout dense<[0, 0]> : tensor<2xindex> for type 'tensor<2x3xf32>', layout must be a permutation of [0, 2)}}
  %0 = "stablehlo.custom_call"(%x) {call_target_name = "foo", operand_layouts = [dense<[1, 0]> : tensor<2xindex>], result_layouts = [dense<[0, 0]> : tensor<2xindex>]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

func.func @layouts_token(%t: !stablehlo.token) -> !stablehlo.token {
  // expected-error @+1 {{Only tensor types can have non-empty layout: operand #0 of type '!stablehlo.token' has layout}}
  %0 = "stablehlo.custom_call"(%t) {call_target_name = "foo", operand_layouts = [dense<[0]> : tensor<1xindex>], result_layouts = [dense<> : tensor<0xindex>]} : (!stablehlo.token) -> !stablehlo.token
  func.return %0 : !stablehlo.token
}

// -----

func.func @alias_index(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{expects operandIndex in the output_operand_alias attribute to be in range [0, 1); got: 1}}
  %0 = "stablehlo.custom_call"(%x) {call_target_name = "foo", output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 1, operand_tuple_indices = []>]} : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

func.func @alias_type(%x: tensor<2xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{shapes mismatch in the output_operand_alias attribute: operand part has type 'tensor<2xf32>' and output part has type 'tensor<3xf32>'}}
  %0 = "stablehlo.custom_call"(%x) {call_target_name = "foo", output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, operand_tuple_indices = []>]} : (tensor<2xf32>) -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}

// -----

func.func @alias_tuple_index(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{output_tuple_indices in the output_operand_alias attribute out of bounds}}
  %0 = "stablehlo.custom_call"(%x) {call_target_name = "foo", output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>]} : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

func.func @backend_config_ffi() {
  // expected-error @+1 {{backend_config for api_version API_VERSION_TYPED_FFI must be a dictionary attribute}}
  "stablehlo.custom_call"() {api_version = 4 : i32, backend_config = "x", call_target_name = "foo"} : () -> ()
  func.return
}

// -----

func.func @backend_config_string() {
  // expected-error @+1 {{backend_config for api_version API_VERSION_ORIGINAL must be a string attribute}}
  "stablehlo.custom_call"() {api_version = 1 : i32, backend_config = {x = 1 : i32}, call_target_name = "foo"} : () -> ()
  func.return
}

// -----

func.func @infeed_layout_size(%t: !stablehlo.token) -> tensor<3xi32> {
  // expected-error @+1 {{layout-attribute size must be 1 (which is the number of op-results - 1 (for token result)), but got 2}}
  %0:2 = "stablehlo.infeed"(%t) {infeed_config = "", layout = [[0], [0]]} : (!stablehlo.token) -> (tensor<3xi32>, !stablehlo.token)
  func.return %0#0 : tensor<3xi32>
}

// -----

func.func @infeed_layout_leaf(%t: !stablehlo.token) -> tensor<3xi32> {
  // expected-error @+1 {{layout-attribute's leaf elements are expected to be of type integer, but got "a"}}
  %0:2 = "stablehlo.infeed"(%t) {infeed_config = "", layout = [["a"]]} : (!stablehlo.token) -> (tensor<3xi32>, !stablehlo.token)
  func.return %0#0 : tensor<3xi32>
}

// -----

func.func @foo() { func.return }
func.func @composite_name() {
  // expected-error @+1 {{name 'foo.%' must be a valid namespaced op name}}
  stablehlo.composite "foo.%" { decomposition = @foo } : () -> ()
  func.return
}

// -----

func.func @foo() { func.return }
func.func @composite_digit() {
  // expected-error @+1 {{name '0.foo' must be a valid namespaced op name}}
  stablehlo.composite "0.foo" { decomposition = @foo } : () -> ()
  func.return
}

// -----

func.func @mesh_missing(%x: tensor<16x8xf32>) -> tensor<16x16xf32> {
  // expected-error @+1 {{replica_groups: mesh symbol 'nowhere' not found}}
  %0 = "stablehlo.all_gather"(%x) {all_gather_dim = 1 : i64, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @nowhere, axes = [#stablehlo.axis_ref<name = "a">]>} : (tensor<16x8xf32>) -> tensor<16x16xf32>
  func.return %0 : tensor<16x16xf32>
}
