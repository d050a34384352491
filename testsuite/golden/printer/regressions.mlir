// RUN: %tpucc -O0 --emit=mlir %s > %t.1 && %tpucc -O0 --emit=mlir %t.1 > %t.2 && diff %t.1 %t.2
// RUN: %tpucc -O0 --emit=mlir --emit=mlir-generic %s > %t.g1 && %tpucc -O0 --emit=mlir --emit=mlir-generic %t.1 > %t.g2 && diff %t.g1 %t.g2
// RUN: FileCheck %s < %t.1
// Printer and parser bugs found by the unit-test review, each a fixed point now.

// Two optional groups that both start with ',' (precision vs algorithm).
// CHECK-LABEL: func.func public @groups
// CHECK: contracting_dims = [1] x [0], algorithm = <lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false> :
func.func @groups(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> attributes {sym_visibility = "public"} {
  %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, algorithm = #stablehlo.dot_algorithm<lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false>} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// An attribute whose type differs from the one the pretty form implies stays generic.
// CHECK-LABEL: func.func @typed
// CHECK: "stablehlo.iota"() {iota_dimension = 0 : i32}
// CHECK: stablehlo.transpose %arg0, dims = [1, 0]
// CHECK: "stablehlo.slice"(%arg0) {limit_indices
func.func @typed(%a: tensor<2x3xf32>) -> tensor<4xi32> {
  %0 = "stablehlo.iota"() {iota_dimension = 0 : i32} : () -> tensor<4xi32>
  %1 = stablehlo.transpose %a, dims = [01, 00] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %2 = "stablehlo.slice"(%a) {start_indices = array<i64: 0, 0>, limit_indices = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<1x1xf32>
  return %0 : tensor<4xi32>
}

// '?' in dialect parameters, odd text in an opaque attribute, f6 shortest print.
// CHECK-LABEL: func.func private @g(tensor<4x?xf32, #stablehlo.bounds<?, 4>>, tensor<f32> {x.y = #foo.bar<1 + 2 ~ x>}) attributes {f = 7.5e+00 : f6E2M3FN}
func.func private @g(%a: tensor<4x?xf32, #stablehlo.bounds<?, 4>>, %b: tensor<f32> {x.y = #foo.bar<1 + 2 ~ x>}) attributes {f = 7.5 : f6E2M3FN}

// A dialect attribute in the enum form whose body is not plain words (found
// by fuzz-parser): printed as one escaped string in both forms, so it reads
// back; plain words stay bare in the pretty form.
// CHECK-LABEL: func.func @enum_bodies
// CHECK-SAME: odd = #foo<"@m, [{\"y\"}, {}] > x">
// CHECK-SAME: plain = #foo<kind A_B>
func.func @enum_bodies(%a: tensor<2xf32>) -> tensor<2xf32> attributes {odd = #foo<"@m, [{\"y\"}, {}] > x">, plain = #foo<kind A_B>} {
  return %a : tensor<2xf32>
}
