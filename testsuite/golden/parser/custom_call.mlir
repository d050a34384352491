// RUN: %tpucc -O0 --emit=mlir %s | FileCheck %s
// RUN: %tpucc -O0 --emit=mlir --emit=mlir-generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: %tpucc -O0 --emit=mlir --emit=mlir-generic %s | %tpucc -O0 --emit=mlir - | FileCheck %s
// stablehlo.custom_call: target names, attributes, no results, several
// results, and the check.* targets used by test programs.

// CHECK-LABEL: func.func @calls
// CHECK-NEXT:    %0 = stablehlo.custom_call @my_kernel(%arg0, %arg1) {api_version = 2 : i32, backend_config = "cfg"} : (tensor<4xf32>, tensor<i32>) -> tensor<4xf32>
// CHECK-NEXT:    %1:2 = stablehlo.custom_call @my_split(%0) {mhlo.sharding = "{replicated}"} : (tensor<4xf32>) -> (tensor<4xf32>, tensor<i32>)
// CHECK-NEXT:    stablehlo.custom_call @check.expect_eq(%0, %1#0) {has_side_effect = true} : (tensor<4xf32>, tensor<4xf32>) -> ()
// CHECK-NEXT:    %2 = stablehlo.custom_call @"name with spaces"() : () -> tensor<i32>
// CHECK-NEXT:    %3 = stablehlo.custom_call @no_operands() {has_side_effect = true} : () -> tensor<f32>
// CHECK-NEXT:    func.return %0 : tensor<4xf32>
// GENERIC-LABEL: "func.func"() ({
// GENERIC:         %0 = "stablehlo.custom_call"(%arg0, %arg1) {api_version = 2 : i32, backend_config = "cfg", call_target_name = "my_kernel"} : (tensor<4xf32>, tensor<i32>) -> tensor<4xf32>
// GENERIC:         "stablehlo.custom_call"(%0, %1#0) {call_target_name = "check.expect_eq", has_side_effect = true} : (tensor<4xf32>, tensor<4xf32>) -> ()
// GENERIC-NEXT:    %2 = "stablehlo.custom_call"() {call_target_name = "name with spaces"} : () -> tensor<i32>
func.func @calls(%x: tensor<4xf32>, %i: tensor<i32>) -> tensor<4xf32> {
  %0 = stablehlo.custom_call @my_kernel(%x, %i) {backend_config = "cfg", api_version = 2 : i32} : (tensor<4xf32>, tensor<i32>) -> tensor<4xf32>
  %1:2 = stablehlo.custom_call @my_split(%0) {mhlo.sharding = "{replicated}"} : (tensor<4xf32>) -> (tensor<4xf32>, tensor<i32>)
  stablehlo.custom_call @check.expect_eq(%0, %1#0) {has_side_effect = true} : (tensor<4xf32>, tensor<4xf32>) -> ()
  %2 = "stablehlo.custom_call"() {call_target_name = "name with spaces"} : () -> tensor<i32>
  %3 = stablehlo.custom_call @no_operands() {has_side_effect = true} : () -> tensor<f32>
  func.return %0 : tensor<4xf32>
}

// Dictionaries, arrays and layouts inside custom_call attributes.
// CHECK-LABEL: func.func @structured_attrs
// CHECK-NEXT:    %0 = stablehlo.custom_call @foo(%arg0) {backend_config = {alpha = 1.5e+00 : f32, mode = "fast"}, operand_layouts = [dense<[0]> : tensor<1xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0]> : tensor<1xindex>]} : (tensor<4xf32>) -> tensor<4xf32>
func.func @structured_attrs(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.custom_call @foo(%x) {
    backend_config = {mode = "fast", alpha = 1.5 : f32},
    operand_layouts = [dense<0> : tensor<1xindex>],
    result_layouts = [dense<0> : tensor<1xindex>],
    output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, operand_tuple_indices = []>]
  } : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
