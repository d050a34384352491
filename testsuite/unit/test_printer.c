/* Printer: print -> parse -> print is a fixed point, in pretty and generic
 * form, over modules that use every directive of the format language
 * (ir/syntax.h); plus what the printed text looks like. */
#include "testsuite/unit/unit_tests.h"

/* Parse and verify text (failing the test with the diagnostics if it is
 * rejected), print it pretty and generic, and check:
 *   pretty:  P1 = print(parse(text)), P2 = print(parse(P1)): P1 == P2
 *   generic: G1 = print_generic(parse(text)), G2 likewise from G1: G1 == G2
 *   the generic print of parse(P1) is G1;
 *   with pretty_of_generic, also the pretty print of parse(G1) is P1 (not so
 *   when a generic-only op keeps an array<..> attribute that the generic
 *   form writes as dense<..>).
 * Returns P1 and (if g1_out is not NULL) G1, malloc'd. */
static char *fixed_point_ex(const char *text, char **g1_out, bool pretty_of_generic) {
  Parsed *p = parse_text(text);
  if (!parsed_verify(p)) fail_msg("input rejected:\n%s", parsed_diags(p));
  char *p1 = parsed_print(p, false), *g1 = parsed_print(p, true);
  parsed_free(p);

  Parsed *q = parse_text(p1);
  if (!parsed_verify(q)) fail_msg("pretty output rejected:\n%s\n---\n%s", parsed_diags(q), p1);
  char *p2 = parsed_print(q, false), *gq = parsed_print(q, true);
  parsed_free(q);
  if (strcmp(p1, p2) != 0) fail_msg("pretty print is not a fixed point:\n%s\n---\n%s", p1, p2);
  if (strcmp(g1, gq) != 0) fail_msg("generic print changed by a pretty round trip:\n%s\n---\n%s", g1, gq);
  free(p2);
  free(gq);

  Parsed *r = parse_text(g1);
  if (!parsed_verify(r)) fail_msg("generic output rejected:\n%s\n---\n%s", parsed_diags(r), g1);
  char *g2 = parsed_print(r, true), *p3 = parsed_print(r, false);
  parsed_free(r);
  if (strcmp(g1, g2) != 0) fail_msg("generic print is not a fixed point:\n%s\n---\n%s", g1, g2);
  if (pretty_of_generic && strcmp(p1, p3) != 0)
    fail_msg("pretty print of the generic form differs:\n%s\n---\n%s", p1, p3);
  free(g2);
  free(p3);
  /* the generic form uses no syntax older MLIR parsers lack */
  assert_not_contains(g1, "array<");
  if (g1_out) *g1_out = g1;
  else free(g1);
  return p1;
}

static char *fixed_point(const char *text, char **g1_out) { return fixed_point_ex(text, g1_out, true); }

static void test_elementwise_directives(void **state) {
  (void)state;
  char *g;
  char *p = fixed_point("func.func @f(%a: tensor<2xf32>, %b: tensor<2xf32>, %p: tensor<2xi1>, %i: tensor<2xi32>) -> "
                        "tensor<2xf32> {\n"
                        "  %0 = stablehlo.add %a, %b : tensor<2xf32>\n"
                        "  %1 = stablehlo.add %a, %b {foo = 1 : i32} : tensor<2xf32>\n"
                        "  %2 = stablehlo.convert %i : (tensor<2xi32>) -> tensor<2xf32>\n"
                        "  %3 = stablehlo.select %p, %a, %b : tensor<2xi1>, tensor<2xf32>\n"
                        "  %4 = stablehlo.clamp %a, %b, %a : tensor<2xf32>\n"
                        "  %5 = stablehlo.complex %a, %b : tensor<2xcomplex<f32>>\n"
                        "  %6 = stablehlo.not %p : tensor<2xi1>\n"
                        "  %7 = stablehlo.is_finite %a : (tensor<2xf32>) -> tensor<2xi1>\n"
                        "  %8 = stablehlo.real %5 : (tensor<2xcomplex<f32>>) -> tensor<2xf32>\n"
                        "  func.return %0 : tensor<2xf32>\n}\n",
                        &g);
  /* !same: one type when all agree, else a function type */
  assert_contains(p, "%0 = stablehlo.add %arg0, %arg1 : tensor<2xf32>\n");
  assert_contains(p, "%1 = stablehlo.add %arg0, %arg1 {foo = 1 : i32} : tensor<2xf32>\n");
  assert_contains(p, "%2 = stablehlo.convert %arg3 : (tensor<2xi32>) -> tensor<2xf32>\n");
  /* !select and !complex */
  assert_contains(p, "%3 = stablehlo.select %arg2, %arg0, %arg1 : tensor<2xi1>, tensor<2xf32>\n");
  assert_contains(p, "%5 = stablehlo.complex %arg0, %arg1 : tensor<2xcomplex<f32>>\n");
  assert_contains(p, "%7 = stablehlo.is_finite %arg0 : (tensor<2xf32>) -> tensor<2xi1>\n");
  assert_contains(g, "%3 = \"stablehlo.select\"(%arg2, %arg0, %arg1) : (tensor<2xi1>, tensor<2xf32>, tensor<2xf32>) -> "
                     "tensor<2xf32>\n");
  assert_contains(g, "%1 = \"stablehlo.add\"(%arg0, %arg1) {foo = 1 : i32} : (tensor<2xf32>, tensor<2xf32>) -> "
                     "tensor<2xf32>\n");
  free(p);
  free(g);
}

static void test_select_with_scalar_predicate(void **state) {
  (void)state;
  char *p = fixed_point("func.func @f(%p: tensor<i1>, %a: tensor<2xf32>) -> tensor<2xf32> {\n"
                        "  %0 = stablehlo.select %p, %a, %a : tensor<i1>, tensor<2xf32>\n"
                        "  func.return %0 : tensor<2xf32>\n}\n",
                        NULL);
  assert_contains(p, "stablehlo.select %arg0, %arg1, %arg1 : tensor<i1>, tensor<2xf32>");
  free(p);
}

static void test_compare_enum_and_optional_group(void **state) {
  (void)state;
  char *g;
  char *p = fixed_point("func.func @f(%a: tensor<2xf32>) -> tensor<2xi1> {\n"
                        "  %0 = stablehlo.compare LT, %a, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>\n"
                        "  %1 = stablehlo.compare GE, %a, %a, FLOAT : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>\n"
                        "  func.return %1 : tensor<2xi1>\n}\n",
                        &g);
  assert_contains(p, "%0 = stablehlo.compare LT, %arg0, %arg0 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>\n");
  assert_contains(p, "%1 = stablehlo.compare GE, %arg0, %arg0, FLOAT : (");
  /* generic form: the enums are quoted */
  assert_contains(g, "{comparison_direction = #stablehlo<\"comparison_direction LT\">}");
  assert_contains(g, "{compare_type = #stablehlo<\"comparison_type FLOAT\">, comparison_direction = "
                     "#stablehlo<\"comparison_direction GE\">}");
  assert_not_contains(g, "#stablehlo<comparison_direction");
  free(p);
  free(g);
}

static void test_shape_directives(void **state) {
  (void)state;
  char *g;
  char *p = fixed_point(
      "func.func @f(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>, %i: tensor<2x3xi32>) -> tensor<2x3xf32> {\n"
      "  %0 = stablehlo.iota dim = 1 : tensor<2x3xi32>\n"
      "  %1 = stablehlo.concatenate %a, %b, dim = 0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>\n"
      "  %2 = stablehlo.broadcast_in_dim %a, dims = [1, 2] : (tensor<2x3xf32>) -> tensor<4x2x3xf32>\n"
      "  %3 = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>\n"
      "  %4 = stablehlo.reverse %a, dims = [0, 1] : tensor<2x3xf32>\n"
      "  %5 = stablehlo.reshape %a : (tensor<2x3xf32>) -> tensor<6xf32>\n"
      "  %6 = stablehlo.slice %a [0:2, 1:3] : (tensor<2x3xf32>) -> tensor<2x2xf32>\n"
      "  %7 = stablehlo.slice %a [0:2:2, 0:3:2] : (tensor<2x3xf32>) -> tensor<1x2xf32>\n"
      "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
      "  %8 = stablehlo.pad %a, %z, low = [0, 1], high = [1, 0], interior = [0, 1] : (tensor<2x3xf32>, tensor<f32>) -> "
      "tensor<3x6xf32>\n"
      "  %9 = stablehlo.reduce_precision %a, format = e5m10 : tensor<2x3xf32>\n"
      "  %10 = stablehlo.get_dimension_size %a, dim = 1 : (tensor<2x3xf32>) -> tensor<i32>\n"
      "  %11 = stablehlo.broadcast %a, sizes = [5] : (tensor<2x3xf32>) -> tensor<5x2x3xf32>\n"
      "  func.return %a : tensor<2x3xf32>\n}\n",
      &g);
  assert_contains(p, "%0 = stablehlo.iota dim = 1 : tensor<2x3xi32>\n");
  assert_contains(p, "stablehlo.concatenate %arg0, %arg1, dim = 0 : (");
  assert_contains(p, "stablehlo.broadcast_in_dim %arg0, dims = [1, 2] : (");
  assert_contains(p, "stablehlo.reverse %arg0, dims = [0, 1] : tensor<2x3xf32>\n");
  /* @slice_ranges: strides only when some stride is not 1 */
  assert_contains(p, "stablehlo.slice %arg0 [0:2, 1:3] : (");
  assert_contains(p, "stablehlo.slice %arg0 [0:2:2, 0:3:2] : (");
  assert_contains(p, "low = [0, 1], high = [1, 0], interior = [0, 1] : (");
  assert_contains(p, "stablehlo.reduce_precision %arg0, format = e5m10 : tensor<2x3xf32>\n");
  /* generic form: dense arrays become dense<..> : tensor<Nxi64> */
  assert_contains(g, "{iota_dimension = 1 : i64}");
  assert_contains(g, "{broadcast_dimensions = dense<[1, 2]> : tensor<2xi64>}");
  assert_contains(g, "{limit_indices = dense<[2, 3]> : tensor<2xi64>, start_indices = dense<[0, 1]> : tensor<2xi64>, "
                     "strides = dense<[1, 1]> : tensor<2xi64>}");
  assert_contains(g, "{exponent_bits = 5 : i32, mantissa_bits = 10 : i32}");
  free(p);
  free(g);
}

static void test_tuple_and_pair_directives(void **state) {
  (void)state;
  char *p = fixed_point("func.func @f(%a: tensor<2xf32>, %i: tensor<i32>) -> tensor<2xf32> {\n"
                        "  %0 = stablehlo.tuple %a, %i : tuple<tensor<2xf32>, tensor<i32>>\n"
                        "  %1 = stablehlo.get_tuple_element %0[0] : (tuple<tensor<2xf32>, tensor<i32>>) -> "
                        "tensor<2xf32>\n"
                        "  %2:2 = stablehlo.optimization_barrier %a, %i : tensor<2xf32>, tensor<i32>\n"
                        "  %3 = stablehlo.tuple : tuple<>\n"
                        "  func.return %2#0 : tensor<2xf32>\n}\n",
                        NULL);
  assert_contains(p, "%0 = stablehlo.tuple %arg0, %arg1 : tuple<tensor<2xf32>, tensor<i32>>\n");
  assert_contains(p, "%1 = stablehlo.get_tuple_element %0[0] : (tuple<tensor<2xf32>, tensor<i32>>) -> tensor<2xf32>\n");
  assert_contains(p, "%2:2 = stablehlo.optimization_barrier %arg0, %arg1 : tensor<2xf32>, tensor<i32>\n");
  assert_contains(p, "%3 = stablehlo.tuple : tuple<>\n");
  assert_contains(p, "func.return %2#0 : tensor<2xf32>\n");
  free(p);
}

static void test_dot_directives(void **state) {
  (void)state;
  char *g;
  char *p = fixed_point(
      "func.func @f(%a: tensor<5x2x3xf32>, %b: tensor<5x3x4xf32>, %m: tensor<2x3xf32>, %n: tensor<3x4xf32>) -> "
      "tensor<5x2x4xf32> {\n"
      "  %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1], "
      "precision = [HIGH, HIGHEST] : (tensor<5x2x3xf32>, tensor<5x3x4xf32>) -> tensor<5x2x4xf32>\n"
      "  %1 = stablehlo.dot_general %m, %n, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> "
      "tensor<2x4xf32>\n"
      "  %2 = stablehlo.dot %m, %n, precision = [DEFAULT, DEFAULT] : (tensor<2x3xf32>, tensor<3x4xf32>) -> "
      "tensor<2x4xf32>\n"
      "  %3 = stablehlo.dot %m, %n : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>\n"
      "  %4 = stablehlo.dot_general %m, %n, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT], "
      "algorithm = #stablehlo.dot_algorithm<lhs_precision_type = tf32, rhs_precision_type = tf32, "
      "accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 3, "
      "allow_imprecise_accumulation = false> : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>\n"
      "  %5 = stablehlo.einsum %m, %n, config = \"ab,bc->ac\" : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>\n"
      "  func.return %0 : tensor<5x2x4xf32>\n}\n",
      &g);
  assert_contains(p, "stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [0], contracting_dims = [2] x [1], "
                     "precision = [HIGH, HIGHEST] : (");
  assert_contains(p, "%1 = stablehlo.dot_general %arg2, %arg3, contracting_dims = [1] x [0] : (");
  /* DEFAULT precisions are the default: printed as absent. */
  assert_contains(p, "%2 = stablehlo.dot %arg2, %arg3 : (");
  assert_contains(p, "%3 = stablehlo.dot %arg2, %arg3 : (");
  assert_contains(p, "contracting_dims = [1] x [0], algorithm = <lhs_precision_type = tf32");
  assert_contains(p, "config = \"ab,bc->ac\" : (");
  assert_contains(g, "dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = "
                     "[0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>");
  assert_contains(g, "precision_config = [#stablehlo<\"precision HIGH\">, #stablehlo<\"precision HIGHEST\">]");
  free(p);
  free(g);
}

static void test_convolution_directives(void **state) {
  (void)state;
  char *g;
  char *p = fixed_point(
      "func.func @f(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32> {\n"
      "  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = "
      "{stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, true]} "
      "{batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> "
      "tensor<1x8x8x4xf32>\n"
      "  %1 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} "
      "{batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> "
      "tensor<1x6x6x4xf32>\n"
      "  func.return %0 : tensor<1x8x8x4xf32>\n}\n",
      &g);
  assert_contains(p, "%0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], "
                     "window = {pad = [[1, 1], [1, 1]], reverse = [false, true]} {batch_group_count = 1 : i64, "
                     "feature_group_count = 1 : i64} : (");
  assert_contains(p, "window = {} {batch_group_count");
  /* generic: the raw conv form, dense padding, bool arrays as dense<..> : tensor<Nxi1> */
  assert_contains(g, "dimension_numbers = #stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 3, "
                     "input_spatial_dimensions = [1, 2]");
  assert_contains(g, "padding = dense<[[1, 1], [1, 1]]> : tensor<2x2xi64>");
  assert_contains(g, "window_reversal = dense<[false, true]> : tensor<2xi1>");
  /* Unit strides and dilations are the defaults: printed as absent. */
  assert_null(strstr(g, "window_strides"));
  free(p);
  free(g);
}

static void test_func_forms(void **state) {
  (void)state;
  char *g;
  char *p = fixed_point(
      "module @m attributes {mhlo.num_partitions = 1 : i32} {\n"
      "  func.func private @decl(tensor<f32>) -> tensor<f32>\n"
      "  func.func @attrs(%a: tensor<4xf32> {jax.arg_info = \"a\"}, %b: tensor<i32>) -> (tensor<4xf32> "
      "{jax.result_info = \"r\"}, tensor<i32>) attributes {some.attr = 1 : i64} {\n"
      "    return %a, %b : tensor<4xf32>, tensor<i32>\n  }\n"
      "  func.func @caller(%x: tensor<f32>) -> tensor<f32> {\n"
      "    %0 = call @decl(%x) : (tensor<f32>) -> tensor<f32>\n"
      "    return %0 : tensor<f32>\n  }\n"
      "  func.func @\"quoted name\"() {\n    return\n  }\n"
      "}\n",
      &g);
  assert_contains(p, "module @m attributes {mhlo.num_partitions = 1 : i32} {\n");
  assert_contains(p, "  func.func private @decl(tensor<f32>) -> tensor<f32>\n");
  assert_contains(p, "  func.func @attrs(%arg0: tensor<4xf32> {jax.arg_info = \"a\"}, %arg1: tensor<i32>) -> "
                     "(tensor<4xf32> {jax.result_info = \"r\"}, tensor<i32>) attributes {some.attr = 1 : i64} {\n");
  assert_contains(p, "    func.return %arg0, %arg1 : tensor<4xf32>, tensor<i32>\n");
  /* value numbering restarts in every function */
  assert_contains(p, "  func.func @caller(%arg0: tensor<f32>) -> tensor<f32> {\n"
                     "    %0 = func.call @decl(%arg0) : (tensor<f32>) -> tensor<f32>\n");
  assert_contains(p, "  func.func @\"quoted name\"() {\n    func.return\n  }\n");
  assert_contains(g, "{arg_attrs = [{jax.arg_info = \"a\"}, {}], function_type = (tensor<4xf32>, tensor<i32>) -> "
                     "(tensor<4xf32>, tensor<i32>), res_attrs = [{jax.result_info = \"r\"}, {}], some.attr = 1 : i64, "
                     "sym_name = \"attrs\"}");
  assert_contains(g, "sym_visibility = \"private\"");
  assert_contains(g, "\"func.call\"(%arg0) {callee = @decl}");
  assert_contains(g, "}) {mhlo.num_partitions = 1 : i32, sym_name = \"m\"} : () -> ()\n");
  free(p);
  free(g);
}

static void test_whole_op_hooks(void **state) {
  (void)state;
  char *g;
  char *p = fixed_point(
      "func.func @loops(%n: tensor<i64>, %x: tensor<4xf32>) -> tensor<4xf32> {\n"
      "  %c0 = stablehlo.constant dense<0> : tensor<i64>\n"
      "  %c1 = stablehlo.constant {tag = \"one\"} dense<1> : tensor<i64>\n"
      "  %r:2 = stablehlo.while(%i = %c0, %acc = %x) : tensor<i64>, tensor<4xf32>\n"
      "   cond {\n"
      "    %lt = stablehlo.compare LT, %i, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>\n"
      "    stablehlo.return %lt : tensor<i1>\n"
      "  } do {\n"
      "    %i1 = stablehlo.add %i, %c1 : tensor<i64>\n"
      "    stablehlo.return %i1, %acc : tensor<i64>, tensor<4xf32>\n"
      "  }\n"
      "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
      "  %s = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0] : "
      "(tensor<4xf32>, tensor<f32>) -> tensor<f32>\n"
      "  %m = stablehlo.reduce(%x init: %z) across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>\n"
      "   reducer(%a: tensor<f32>, %b: tensor<f32>) {\n"
      "    %t = stablehlo.maximum %a, %b : tensor<f32>\n"
      "    %u = stablehlo.abs %t : tensor<f32>\n"
      "    stablehlo.return %u : tensor<f32>\n"
      "  }\n"
      "  %cc = stablehlo.custom_call @foo(%x) {backend_config = \"cfg\"} : (tensor<4xf32>) -> tensor<4xf32>\n"
      "  stablehlo.custom_call @check.expect_eq(%x, %cc) {has_side_effect = true} : (tensor<4xf32>, tensor<4xf32>) -> ()\n"
      "  func.return %r#1 : tensor<4xf32>\n}\n",
      &g);
  assert_contains(p, "%1 = stablehlo.constant {tag = \"one\"} dense<1> : tensor<i64>\n");
  assert_contains(p, "%2:2 = stablehlo.while(%arg2 = %0, %arg3 = %arg1) : tensor<i64>, tensor<4xf32>\n"
                     "     cond {\n"
                     "      %3 = stablehlo.compare LT, %arg2, %arg0 : (tensor<i64>, tensor<i64>) -> tensor<i1>\n"
                     "      stablehlo.return %3 : tensor<i1>\n"
                     "    } do {\n"
                     "      %4 = stablehlo.add %arg2, %1 : tensor<i64>\n");
  assert_contains(p, "stablehlo.reduce(%arg1 init: %5) applies stablehlo.add across dimensions = [0] : ("
                     "tensor<4xf32>, tensor<f32>) -> tensor<f32>\n");
  assert_contains(p, " reducer(%arg4: tensor<f32>, %arg5: tensor<f32>) {\n");
  assert_contains(p, "stablehlo.custom_call @foo(%arg1) {backend_config = \"cfg\"} : (tensor<4xf32>) -> tensor<4xf32>\n");
  assert_contains(p, "    stablehlo.custom_call @check.expect_eq(%arg1, %10) {has_side_effect = true} : ("
                     "tensor<4xf32>, tensor<4xf32>) -> ()\n");
  assert_contains(g, "\"stablehlo.while\"(%0, %arg1) ({\n");
  assert_contains(g, "{call_target_name = \"check.expect_eq\", has_side_effect = true}");
  assert_contains(g, "}) {dimensions = dense<[0]> : tensor<1xi64>} : (tensor<4xf32>, tensor<f32>) -> tensor<f32>\n");
  free(p);
  free(g);
}

static void test_multi_input_reduce(void **state) {
  (void)state;
  char *p = fixed_point(
      "func.func @f(%x: tensor<4x8xf32>, %y: tensor<4x8xi32>) -> tensor<4xf32> {\n"
      "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
      "  %zi = stablehlo.constant dense<0> : tensor<i32>\n"
      "  %r:2 = stablehlo.reduce(%x init: %z), (%y init: %zi) across dimensions = [1] : (tensor<4x8xf32>, "
      "tensor<4x8xi32>, tensor<f32>, tensor<i32>) -> (tensor<4xf32>, tensor<4xi32>)\n"
      "   reducer(%a: tensor<f32>, %b: tensor<f32>) (%c: tensor<i32>, %d: tensor<i32>) {\n"
      "    %s = stablehlo.add %a, %b : tensor<f32>\n"
      "    %t = stablehlo.maximum %c, %d : tensor<i32>\n"
      "    stablehlo.return %s, %t : tensor<f32>, tensor<i32>\n"
      "  }\n"
      "  func.return %r#0 : tensor<4xf32>\n}\n",
      NULL);
  assert_contains(p, "%2:2 = stablehlo.reduce(%arg0 init: %0), (%arg1 init: %1) across dimensions = [1] : (");
  assert_contains(p, " reducer(%arg2: tensor<f32>, %arg4: tensor<f32>) (%arg3: tensor<i32>, %arg5: tensor<i32>) {\n");
  assert_contains(p, "%3 = stablehlo.add %arg2, %arg4 : tensor<f32>\n");
  free(p);
}

static void test_scan_hook(void **state) {
  (void)state;
  char *g;
  char *p = fixed_point("func.func @f(%x: tensor<4xi32>) -> tensor<4xi32> {\n"
                        "  %init = stablehlo.constant dense<0> : tensor<i32>\n"
                        "  %0:2 = chlo.scan(%x) inits(%init) dimension=0 {\n"
                        "  ^bb0(%a: tensor<i32>, %b: tensor<i32>):\n"
                        "    %1 = stablehlo.add %a, %b : tensor<i32>\n"
                        "    stablehlo.return %1, %1 : tensor<i32>, tensor<i32>\n"
                        "  } : (tensor<4xi32>, tensor<i32>) -> (tensor<4xi32>, tensor<i32>)\n"
                        "  func.return %0#0 : tensor<4xi32>\n}\n",
                        &g);
  assert_contains(p, "%1:2 = chlo.scan(%arg0) inits(%0) dimension=0 {\n"
                     "    ^bb0(%arg1: tensor<i32>, %arg2: tensor<i32>):\n");
  assert_contains(g, "operandSegmentSizes = dense<[1, 1]> : tensor<2xi32>");
  free(p);
  free(g);
}

static void test_check_and_interpreter_ops(void **state) {
  (void)state;
  char *g;
  char *p = fixed_point(
      "func.func @f(%x: tensor<4xf32>) {\n"
      "  check.expect_eq %x, %x : tensor<4xf32>\n"
      "  check.expect_eq_const %x, dense<1.0> : tensor<4xf32>\n"
      "  check.expect_almost_eq %x, %x : tensor<4xf32>\n"
      "  check.expect_almost_eq %x, %x, tolerance = 1.0e-03 : tensor<4xf32>\n"
      "  check.expect_almost_eq_const %x, dense<2.0> : tensor<4xf32>, tolerance = 0.5\n"
      "  check.expect_close %x, %x, max_ulp_difference = 3 : tensor<4xf32>, tensor<4xf32>\n"
      "  check.expect_close %x, %x, max_ulp_difference = 3, min_ulp_difference = 1 : tensor<4xf32>, tensor<4xf32>\n"
      "  check.expect_serialized_eq %x, probe_id = \"p\", iter = 2 : tensor<4xf32>\n"
      "  %0 = interpreter.probe %x, probe_id = \"p\" : tensor<4xf32>\n"
      "  func.return\n}\n",
      &g);
  assert_contains(p, "check.expect_eq_const %arg0, dense<1.0e+00> : tensor<4xf32>\n");
  assert_contains(p, "check.expect_almost_eq %arg0, %arg0 : tensor<4xf32>\n");
  assert_contains(p, "check.expect_almost_eq %arg0, %arg0, tolerance = 1.0e-03 : tensor<4xf32>\n");
  assert_contains(p, "check.expect_almost_eq_const %arg0, dense<2.0e+00> : tensor<4xf32>, tolerance = 5.0e-01\n");
  assert_contains(p, "check.expect_close %arg0, %arg0, max_ulp_difference = 3, min_ulp_difference = 1 : ");
  assert_contains(p, "check.expect_serialized_eq %arg0, probe_id = \"p\", iter = 2 : tensor<4xf32>\n");
  assert_contains(p, "%0 = interpreter.probe %arg0, probe_id = \"p\" : tensor<4xf32>\n");
  assert_contains(p, "    func.return\n");
  assert_contains(g, "\"check.expect_almost_eq\"(%arg0, %arg0) {tolerance = 1.0e-03 : f64}");
  assert_contains(g, "\"check.expect_close\"(%arg0, %arg0) {max_ulp_difference = 3 : ui64} : (tensor<4xf32>, "
                     "tensor<4xf32>) -> ()");
  free(p);
  free(g);
}

static void test_chlo_and_enum_styles(void **state) {
  (void)state;
  char *g;
  char *p = fixed_point(
      "func.func @f(%x: tensor<4xf32>, %c: tensor<4xcomplex<f32>>, %s: tensor<2xui64>, %lo: tensor<f32>, %sh: "
      "tensor<1xi64>) -> tensor<4xf32> {\n"
      "  %0 = chlo.acos %x : tensor<4xf32> -> tensor<4xf32>\n"
      "  %1 = chlo.next_after %x, %x : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>\n"
      "  %2:2 = chlo.top_k(%x, k = 2) : tensor<4xf32> -> (tensor<2xf32>, tensor<2xi32>)\n"
      "  %3 = chlo.is_inf %x : tensor<4xf32> -> tensor<4xi1>\n"
      "  %4 = stablehlo.fft %c, type = IFFT, length = [4] : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>\n"
      "  %5:2 = stablehlo.rng_bit_generator %s, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, "
      "tensor<4xui32>)\n"
      "  %6 = stablehlo.rng %lo, %lo, %sh, distribution = NORMAL : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> "
      "tensor<4xf32>\n"
      "  func.return %0 : tensor<4xf32>\n}\n",
      &g);
  assert_contains(p, "%0 = chlo.acos %arg0 : tensor<4xf32> -> tensor<4xf32>\n");
  assert_contains(p, "%1 = chlo.next_after %arg0, %arg0 : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>\n");
  assert_contains(p, "%2:2 = chlo.top_k(%arg0, k = 2) : tensor<4xf32> -> (tensor<2xf32>, tensor<2xi32>)\n");
  assert_contains(p, "stablehlo.fft %arg1, type = IFFT, length = [4] : (");
  assert_contains(p, "stablehlo.rng_bit_generator %arg2, algorithm = THREE_FRY : (");
  assert_contains(p, "distribution = NORMAL : (");
  assert_contains(g, "fft_type = #stablehlo<\"fft_type IFFT\">");
  assert_contains(g, "rng_algorithm = #stablehlo<\"rng_algorithm THREE_FRY\">");
  assert_contains(g, "rng_distribution = #stablehlo<\"rng_distribution NORMAL\">");
  assert_contains(g, "\"chlo.top_k\"(%arg0) {k = 2 : i64}");
  free(p);
  free(g);
}

static void test_misc_named_attr_styles(void **state) {
  (void)state;
  char *g;
  char *p = fixed_point(
      "func.func @id(%a: tensor<2xf32>) -> tensor<2xf32> {\n  func.return %a : tensor<2xf32>\n}\n"
      "func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
      "  %0 = stablehlo.composite \"my.op\" %a {composite_attributes = {n = 2 : i64}, decomposition = @id} : "
      "(tensor<2xf32>) -> tensor<2xf32>\n"
      "  %t = stablehlo.create_token : !stablehlo.token\n"
      "  %t2 = stablehlo.after_all %t, %t : !stablehlo.token\n"
      "  %r = stablehlo.replica_id : tensor<ui32>\n"
      "  func.return %0 : tensor<2xf32>\n}\n",
      &g);
  assert_contains(p, "%0 = stablehlo.composite \"my.op\" %arg0 {composite_attributes = {n = 2 : i64}, decomposition "
                     "= @id} : (tensor<2xf32>) -> tensor<2xf32>\n");
  assert_contains(p, "%1 = stablehlo.create_token : !stablehlo.token\n");
  assert_contains(p, "%2 = stablehlo.after_all %1, %1 : !stablehlo.token\n");
  assert_contains(p, "%3 = stablehlo.replica_id : tensor<ui32>\n");
  assert_contains(g, "{composite_attributes = {n = 2 : i64}, decomposition = @id, name = \"my.op\"}");
  free(p);
  free(g);
}

static void test_generic_only_ops(void **state) {
  (void)state;
  char *g;
  char *p = fixed_point_ex(
      "func.func @g(%x: tensor<4x6xf32>, %i: tensor<2x1xi64>, %p: tensor<i1>, %n: tensor<i32>) -> tensor<4x6xf32> {\n"
      "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
      "  %rw = \"stablehlo.reduce_window\"(%x, %z) ({\n"
      "  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
      "    %m = stablehlo.maximum %a, %b : tensor<f32>\n"
      "    stablehlo.return %m : tensor<f32>\n"
      "  }) {window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>} : (tensor<4x6xf32>, "
      "tensor<f32>) -> tensor<2x3xf32>\n"
      "  %s = \"stablehlo.sort\"(%x) ({\n"
      "  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
      "    %c = stablehlo.compare GT, %a, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
      "    stablehlo.return %c : tensor<i1>\n"
      "  }) {dimension = 1 : i64, is_stable = true} : (tensor<4x6xf32>) -> tensor<4x6xf32>\n"
      "  %g = \"stablehlo.gather\"(%x, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], "
      "collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 6>} : "
      "(tensor<4x6xf32>, tensor<2x1xi64>) -> tensor<2x6xf32>\n"
      "  %if = \"stablehlo.if\"(%p) ({\n"
      "    stablehlo.return %x : tensor<4x6xf32>\n"
      "  }, {\n"
      "    stablehlo.return %s : tensor<4x6xf32>\n"
      "  }) : (tensor<i1>) -> tensor<4x6xf32>\n"
      "  %case = \"stablehlo.case\"(%n) ({\n"
      "    stablehlo.return %x : tensor<4x6xf32>\n"
      "  }, {\n"
      "    stablehlo.return %if : tensor<4x6xf32>\n"
      "  }) : (tensor<i32>) -> tensor<4x6xf32>\n"
      "  func.return %case : tensor<4x6xf32>\n}\n",
      &g, false);
  assert_contains(p, "%1 = \"stablehlo.reduce_window\"(%arg0, %0) ({\n"
                     "    ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):\n"
                     "      %2 = stablehlo.maximum %arg4, %arg5 : tensor<f32>\n");
  assert_contains(p, "{window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>} : (");
  assert_contains(p, "%3 = \"stablehlo.sort\"(%arg0) ({\n");
  assert_contains(p, "%5 = \"stablehlo.gather\"(%arg0, %arg1) {dimension_numbers = #stablehlo.gather<offset_dims = "
                     "[1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = "
                     "array<i64: 1, 6>} : (");
  /* regions without block arguments print no block header */
  assert_contains(p, "%6 = \"stablehlo.if\"(%arg2) ({\n      stablehlo.return %arg0 : tensor<4x6xf32>\n    }, {\n");
  assert_contains(p, "%7 = \"stablehlo.case\"(%arg3) ({\n");
  /* generic: block labels, the region's ops generic too, dense arrays as dense<..> */
  assert_contains(g, "\"stablehlo.reduce_window\"(%arg0, %0) ({\n    ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):\n"
                     "      %2 = \"stablehlo.maximum\"(%arg4, %arg5) : (tensor<f32>, tensor<f32>) -> tensor<f32>\n");
  assert_contains(g, "{window_dimensions = dense<[2, 2]> : tensor<2xi64>, window_strides = dense<[2, 2]> : tensor<2xi64>}");
  free(p);
  free(g);
}

static void test_pretty_falls_back_to_generic(void **state) {
  (void)state;
  char *p = fixed_point(
      "func.func @f(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {\n"
      /* old-style dense attribute: the pretty form still applies */
      "  %0 = \"stablehlo.transpose\"(%a) {permutation = dense<[1, 0]> : tensor<2xi64>} : (tensor<2x3xf32>) -> "
      "tensor<3x2xf32>\n"
      /* a target name that @symbol cannot spell: printed generically */
      "  %1 = \"stablehlo.custom_call\"(%a) {call_target_name = \"a\\00b\"} : (tensor<2x3xf32>) -> tensor<2x3xf32>\n"
      /* strides that are all 1 are not written */
      "  %2 = \"stablehlo.slice\"(%a) {start_indices = array<i64: 0, 0>, limit_indices = array<i64: 1, 1>, "
      "strides = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<1x1xf32>\n"
      "  func.return %0 : tensor<3x2xf32>\n}\n",
      NULL);
  assert_contains(p, "%0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>\n");
  assert_contains(p, "%1 = \"stablehlo.custom_call\"(%arg0) {call_target_name = \"a\\00b\"} : (tensor<2x3xf32>) -> "
                     "tensor<2x3xf32>\n");
  assert_contains(p, "%2 = stablehlo.slice %arg0 [0:1, 0:1] : (tensor<2x3xf32>) -> tensor<1x1xf32>\n");
  free(p);
}

static void test_dense_forms_and_floats(void **state) {
  (void)state;
  char *p = fixed_point(
      "func.func @f() {\n"
      "  %0 = stablehlo.constant dense<[[1.5, -2.0], [0.1, 1.0e10]]> : tensor<2x2xf32>\n"
      "  %1 = stablehlo.constant dense<\"0x0000803F00000040\"> : tensor<2xf32>\n"
      "  %2 = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
      "  %3 = stablehlo.constant dense<[true, false]> : tensor<2xi1>\n"
      "  %4 = stablehlo.constant dense<(1.0, -0.5)> : tensor<complex<f64>>\n"
      "  %5 = stablehlo.constant dense<> : tensor<0xi32>\n"
      "  %6 = stablehlo.constant dense<255> : tensor<3xui8>\n"
      "  %7 = stablehlo.constant dense<[0.5, 0x7E00]> : tensor<2xf16>\n"
      "  %8 = stablehlo.constant dense<-0.0> : tensor<bf16>\n"
      "  func.return\n}\n",
      NULL);
  assert_contains(p, "dense<[[1.5e+00, -2.0e+00], [1.0e-01, 1.0e+10]]> : tensor<2x2xf32>");
  assert_contains(p, "dense<\"0x0000803F00000040\"> : tensor<2xf32>"); /* hex stays hex */
  assert_contains(p, "dense<0xFF800000> : tensor<f32>");                 /* non-finite as bits */
  assert_contains(p, "dense<[true, false]> : tensor<2xi1>");
  assert_contains(p, "dense<(1.0e+00, -5.0e-01)> : tensor<complex<f64>>");
  assert_contains(p, "dense<> : tensor<0xi32>");
  assert_contains(p, "dense<255> : tensor<3xui8>");
  assert_contains(p, "dense<[5.0e-01, 0x7E00]> : tensor<2xf16>");
  assert_contains(p, "dense<-0.0e+00> : tensor<bf16>");
  free(p);
}

static void test_dense_resource_blob(void **state) {
  (void)state;
  char *g;
  char *p = fixed_point("module @weights {\n"
                        "  func.func @main() -> tensor<2xf32> {\n"
                        "    %w = stablehlo.constant dense_resource<w0> : tensor<2xf32>\n"
                        "    %e = stablehlo.constant dense_resource<__elided__> : tensor<2xf32>\n"
                        "    %0 = stablehlo.add %w, %e : tensor<2xf32>\n"
                        "    func.return %0 : tensor<2xf32>\n"
                        "  }\n"
                        "}\n"
                        "{-#\n  dialect_resources: {\n    builtin: {\n"
                        "      w0: \"0x040000000000803F00000040\"\n    }\n  }\n#-}\n",
                        &g);
  assert_contains(p, "%0 = stablehlo.constant dense_resource<w0> : tensor<2xf32>\n");
  assert_contains(p, "%1 = stablehlo.constant dense_resource<__elided__> : tensor<2xf32>\n");
  static const char blob[] = "\n{-#\n  dialect_resources: {\n    builtin: {\n"
                             "      w0: \"0x040000000000803F00000040\"\n    }\n  }\n#-}\n";
  assert_contains(p, blob);
  assert_contains(g, blob);
  assert_not_contains(p, "__elided__: ");
  free(p);
  free(g);
}

static void test_strings_symbols_and_names(void **state) {
  (void)state;
  char *p = fixed_point("module attributes {\"odd-name\" = \"tab\\tquote\\\"nl\\nbyte\\01\", sym = @\"a b\", "
                        "u, e = [], d = {}} {\n}\n",
                        NULL);
  assert_contains(p, "module attributes {d = {}, e = [], \"odd-name\" = \"tab\\tquote\\\"nl\\nbyte\\01\", sym = "
                     "@\"a b\", u} {\n}\n");
  free(p);
}

static void test_large_module_numbering(void **state) {
  (void)state;
  /* %N numbering and %argN across nested regions */
  char *p = fixed_point("func.func @f(%p: tensor<i1>, %x: tensor<f32>) -> tensor<f32> {\n"
                        "  %a = stablehlo.abs %x : tensor<f32>\n"
                        "  %b = \"stablehlo.if\"(%p) ({\n"
                        "    %c = stablehlo.negate %a : tensor<f32>\n"
                        "    stablehlo.return %c : tensor<f32>\n"
                        "  }, {\n"
                        "    %d = stablehlo.sqrt %a : tensor<f32>\n"
                        "    stablehlo.return %d : tensor<f32>\n"
                        "  }) : (tensor<i1>) -> tensor<f32>\n"
                        "  %e = stablehlo.add %a, %b : tensor<f32>\n"
                        "  func.return %e : tensor<f32>\n}\n",
                        NULL);
  assert_contains(p, "    %0 = stablehlo.abs %arg1 : tensor<f32>\n"
                     "    %1 = \"stablehlo.if\"(%arg0) ({\n"
                     "      %2 = stablehlo.negate %0 : tensor<f32>\n"
                     "      stablehlo.return %2 : tensor<f32>\n"
                     "    }, {\n"
                     "      %3 = stablehlo.sqrt %0 : tensor<f32>\n"
                     "      stablehlo.return %3 : tensor<f32>\n"
                     "    }) : (tensor<i1>) -> tensor<f32>\n"
                     "    %4 = stablehlo.add %0, %1 : tensor<f32>\n"
                     "    func.return %4 : tensor<f32>\n");
  free(p);
}

static void test_type_and_attr_printers(void **state) {
  (void)state;
  Parsed *p = parse_text("module attributes {a = array<i64: 1, 2>, b = #stablehlo<precision HIGH>, "
                         "c = #stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>} {}");
  assert_non_null(p->m);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  print_attr(f, op_attr(p->m->op, "a"), false);
  fputc('|', f);
  print_attr(f, op_attr(p->m->op, "a"), true);
  fputc('|', f);
  print_attr(f, op_attr(p->m->op, "b"), true);
  fputc('|', f);
  print_attr(f, op_attr(p->m->op, "c"), false);
  fputc('|', f);
  print_type(f, type_tensor(p->c, ELEM_F8E5M2, 1, (int64_t[]){DIM_DYNAMIC}, NULL));
  fclose(f);
  assert_string_equal(buf, "array<i64: 1, 2>|dense<[1, 2]> : tensor<2xi64>|#stablehlo<\"precision HIGH\">|"
                           "#stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>|tensor<?xf8E5M2>");
  free(buf);
  parsed_free(p);
}

static void test_print_built_module(void **state) {
  (void)state;
  /* A module built with the IR API prints and reads back. */
  Context *c = ctx_new();
  Type *t = type_tensor(c, ELEM_F32, 1, (int64_t[]){3}, NULL);
  Module m = build_unary_module(c, "neg", OP_NEGATE, t, NULL, NULL);
  assert_true(verify_module(c, &m));
  char *s = print_module_string(c, &m, &(PrintOptions){0});
  assert_string_equal(s, "module {\n"
                         "  func.func @neg(%arg0: tensor<3xf32>) -> tensor<3xf32> {\n"
                         "    %0 = stablehlo.negate %arg0 : tensor<3xf32>\n"
                         "    func.return %0 : tensor<3xf32>\n"
                         "  }\n"
                         "}\n");
  free(fixed_point(s, NULL));
  free(s);
  ctx_free(c);
}

int run_printer_tests(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_elementwise_directives),
      cmocka_unit_test(test_select_with_scalar_predicate),
      cmocka_unit_test(test_compare_enum_and_optional_group),
      cmocka_unit_test(test_shape_directives),
      cmocka_unit_test(test_tuple_and_pair_directives),
      cmocka_unit_test(test_dot_directives),
      cmocka_unit_test(test_convolution_directives),
      cmocka_unit_test(test_func_forms),
      cmocka_unit_test(test_whole_op_hooks),
      cmocka_unit_test(test_multi_input_reduce),
      cmocka_unit_test(test_scan_hook),
      cmocka_unit_test(test_check_and_interpreter_ops),
      cmocka_unit_test(test_chlo_and_enum_styles),
      cmocka_unit_test(test_misc_named_attr_styles),
      cmocka_unit_test(test_generic_only_ops),
      cmocka_unit_test(test_pretty_falls_back_to_generic),
      cmocka_unit_test(test_dense_forms_and_floats),
      cmocka_unit_test(test_dense_resource_blob),
      cmocka_unit_test(test_strings_symbols_and_names),
      cmocka_unit_test(test_large_module_numbering),
      cmocka_unit_test(test_type_and_attr_printers),
      cmocka_unit_test(test_print_built_module),
  };
  return cmocka_run_group_tests_name("printer", tests, NULL, NULL);
}
