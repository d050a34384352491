/* Parser: whole modules in generic and pretty forms, multi-results, the
 * '// -----' splitter, and syntax errors (count and message text). */
#include "testsuite/unit/unit_tests.h"

static Parsed *parse(const char *text) {
  parsed_free(cur);
  cur = parse_text(text);
  return cur;
}

/* Parse text that must be rejected by the parser with exactly nerrors
 * errors, the first one at line:col and containing msg. */
static void rejected(const char *text, int nerrors, int line, int col, const char *msg) {
  parse(text);
  if (cur->m) fail_msg("accepted:\n%s", text);
  if (parsed_errors(cur) != nerrors)
    fail_msg("%d errors instead of %d:\n%s", parsed_errors(cur), nerrors, parsed_diags(cur));
  assert_contains(parsed_diags(cur), msg);
  char where[64];
  snprintf(where, sizeof where, "test.mlir:%d:%d: error: ", line, col);
  if (strncmp(parsed_diags(cur), where, strlen(where)) != 0)
    fail_msg("first diagnostic is not at %s:\n%s", where, parsed_diags(cur));
}

static const char *tstr(const Type *t) { return type_to_string(cur->c, t); }

/* ------------------------------------------------------------ whole modules */

static void test_implicit_module(void **state) {
  (void)state;
  parse("func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
        "  func.return %a : tensor<2xf32>\n"
        "}\n"
        "func.func @g() {\n  return\n}\n");
  assert_non_null(cur->m);
  assert_int_equal(cur->m->op->kind, OP_MODULE);
  assert_null(op_symbol_name(cur->m->op));
  Block *body = op_body(cur->m->op);
  assert_non_null(body);
  assert_int_equal(body->first->kind, OP_FUNC);
  assert_int_equal(body->last->kind, OP_FUNC);
  assert_ptr_not_equal(body->first, body->last);
  assert_ptr_equal(module_lookup_func(cur->m, "g"), body->last);
  assert_null(module_lookup_func(cur->m, "h"));
  assert_int_equal(parsed_errors(cur), 0);
  assert_string_equal(parsed_diags(cur), "");
}

static void test_named_module_with_attributes(void **state) {
  (void)state;
  parse("// leading comment\nmodule @jit_f attributes {mhlo.num_partitions = 2 : i32} {\n"
        "  func.func public @main() {\n    func.return\n  }\n}\n");
  assert_non_null(cur->m);
  assert_string_equal(op_symbol_name(cur->m->op), "jit_f");
  const Attr *np = op_attr(cur->m->op, "mhlo.num_partitions");
  assert_non_null(np);
  assert_int_equal(np->u.i, 2);
  assert_int_equal(cur->m->op->loc.line, 2);
  assert_int_equal(cur->m->op->loc.col, 1);
  Op *f = first_func(cur->m);
  assert_string_equal(op_symbol_name(f), "main");
  /* An explicit 'public' is kept, so the printed form stays a fixed point. */
  const Attr *vis = op_attr(f, "sym_visibility");
  assert_non_null(vis);
  assert_string_equal(vis->u.str.s, "public");
}

static void test_function_signature(void **state) {
  (void)state;
  parse("func.func private @f(%x: tensor<2x?xf32> {jax.arg_info = \"x\"}, %y: tensor<i32>) -> "
        "(tensor<2x?xf32> {jax.result_info = \"\"}, tensor<i32>) attributes {foo} {\n"
        "  func.return %x, %y : tensor<2x?xf32>, tensor<i32>\n}\n");
  assert_non_null(cur->m);
  Op *f = first_func(cur->m);
  const Attr *ft = op_attr(f, "function_type");
  assert_int_equal(ft->kind, ATTR_TYPE);
  assert_string_equal(tstr(ft->type), "(tensor<2x?xf32>, tensor<i32>) -> (tensor<2x?xf32>, tensor<i32>)");
  assert_string_equal(op_attr(f, "sym_visibility")->u.str.s, "private");
  const Attr *aa = op_attr(f, "arg_attrs");
  assert_non_null(aa);
  assert_int_equal(aa->u.array.n, 2);
  assert_int_equal(aa->u.array.items[0]->u.dict.n, 1);
  assert_int_equal(aa->u.array.items[1]->u.dict.n, 0);
  assert_non_null(op_attr(f, "res_attrs"));
  assert_int_equal(op_attr(f, "foo")->kind, ATTR_UNIT);
  Block *b = op_body(f);
  assert_int_equal(b->nargs, 2);
  assert_ptr_equal(b->args[0].type, ft->type->inputs[0]);
  assert_string_equal(b->args[1].name_hint, "%y");
  /* the return uses the block arguments */
  Op *ret = b->first;
  assert_int_equal(ret->kind, OP_FUNC_RETURN);
  assert_ptr_equal(ret->operands[0], &b->args[0]);
  assert_ptr_equal(ret->operands[1], &b->args[1]);
}

static void test_function_declaration(void **state) {
  (void)state;
  parse("func.func private @ext(tensor<f32>, tensor<2xi8>) -> tensor<f32>\n");
  assert_non_null(cur->m);
  Op *f = first_func(cur->m);
  assert_non_null(f);
  assert_int_equal(f->nregions, 1);
  assert_int_equal(f->regions[0].nblocks, 0);
  assert_null(op_body(f));
  assert_string_equal(tstr(op_attr(f, "function_type")->type), "(tensor<f32>, tensor<2xi8>) -> tensor<f32>");
}

static void test_generic_and_pretty_forms_agree(void **state) {
  (void)state;
  parse("func.func @f(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {\n"
        "  %0 = \"stablehlo.add\"(%a, %b) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>\n"
        "  %1 = stablehlo.add %a, %b : tensor<3xf32>\n"
        "  %2 = \"stablehlo.compare\"(%0, %1) {comparison_direction = #stablehlo<comparison_direction LT>} :"
        " (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>\n"
        "  %3 = stablehlo.compare LT, %0, %1 : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>\n"
        "  func.return %0 : tensor<3xf32>\n}\n");
  assert_non_null(cur->m);
  Op *g = func_op(cur->m, 0), *p = func_op(cur->m, 1);
  assert_int_equal(g->kind, OP_ADD);
  assert_int_equal(p->kind, OP_ADD);
  assert_int_equal(p->noperands, 2);
  assert_ptr_equal(g->operands[0], p->operands[0]);
  assert_ptr_equal(g->operands[1], p->operands[1]);
  assert_ptr_equal(g->results[0].type, p->results[0].type);
  Op *cg = func_op(cur->m, 2), *cp = func_op(cur->m, 3);
  assert_int_equal(cg->kind, OP_COMPARE);
  assert_true(attr_equal(op_attr(cg, "comparison_direction"), op_attr(cp, "comparison_direction")));
  assert_ptr_equal(cp->operands[0], &g->results[0]);
  assert_ptr_equal(cp->operands[1], &p->results[0]);
  assert_string_equal(tstr(cp->results[0].type), "tensor<3xi1>");
  /* use lists record both compares as users of %0 */
  int uses = 0;
  for (Use *u = g->results[0].uses; u; u = u->next) uses++;
  assert_int_equal(uses, 3); /* two compares and the return */
}

static void test_short_op_names(void **state) {
  (void)state;
  /* return and call without the func. prefix, as JAX writes them */
  parse("func.func @f(%a: tensor<f32>) -> tensor<f32> {\n"
        "  %0 = call @g(%a) : (tensor<f32>) -> tensor<f32>\n"
        "  return %0 : tensor<f32>\n}\n"
        "func.func @g(%a: tensor<f32>) -> tensor<f32> {\n  return %a : tensor<f32>\n}\n");
  assert_non_null(cur->m);
  Op *call = func_op(cur->m, 0);
  assert_int_equal(call->kind, OP_FUNC_CALL);
  assert_string_equal(op_attr(call, "callee")->u.str.s, "g");
  assert_int_equal(func_op(cur->m, 1)->kind, OP_FUNC_RETURN);
}

static void test_multi_results(void **state) {
  (void)state;
  parse("func.func @f(%s: tensor<2xui64>) -> tensor<4xui32> {\n"
        "  %0:2 = stablehlo.rng_bit_generator %s, algorithm = DEFAULT : (tensor<2xui64>) -> "
        "(tensor<2xui64>, tensor<4xui32>)\n"
        "  %x, %y = \"stablehlo.rng_bit_generator\"(%0#0) {rng_algorithm = #stablehlo<rng_algorithm PHILOX>} : "
        "(tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)\n"
        "  %p:1, %q:1 = \"stablehlo.rng_bit_generator\"(%x) {rng_algorithm = #stablehlo<rng_algorithm DEFAULT>} : "
        "(tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)\n"
        "  func.return %0#1 : tensor<4xui32>\n}\n");
  if (!cur->m) fail_msg("%s", parsed_diags(cur));
  Op *r0 = func_op(cur->m, 0), *r1 = func_op(cur->m, 1), *r2 = func_op(cur->m, 2), *ret = func_op(cur->m, 3);
  assert_int_equal(r0->nresults, 2);
  assert_string_equal(attr_enum_value(op_attr(r0, "rng_algorithm")), "DEFAULT");
  assert_ptr_equal(r1->operands[0], &r0->results[0]); /* %0#0 */
  assert_ptr_equal(r2->operands[0], &r1->results[0]); /* %x */
  assert_ptr_equal(ret->operands[0], &r0->results[1]); /* %0#1 */
  assert_int_equal(r0->results[1].index, 1);
  assert_ptr_equal(r0->results[1].def, r0);
  assert_string_equal(tstr(r0->results[1].type), "tensor<4xui32>");
  assert_string_equal(r1->results[1].name_hint, "%y");
}

static void test_multi_result_index_out_of_range(void **state) {
  (void)state;
  rejected("func.func @f(%s: tensor<2xui64>) -> tensor<4xui32> {\n"
           "  %0:2 = stablehlo.rng_bit_generator %s, algorithm = DEFAULT : (tensor<2xui64>) -> "
           "(tensor<2xui64>, tensor<4xui32>)\n"
           "  func.return %0#2 : tensor<4xui32>\n}\n",
           1, 3, 15, "result number 2 of '%0' out of range (it has 2 results)");
}

static void test_nested_regions_and_scopes(void **state) {
  (void)state;
  parse("func.func @f(%p: tensor<i1>, %x: tensor<f32>) -> tensor<f32> {\n"
        "  %0 = \"stablehlo.if\"(%p) ({\n"
        "    %1 = stablehlo.negate %x : tensor<f32>\n"
        "    stablehlo.return %1 : tensor<f32>\n"
        "  }, {\n"
        "    %1 = stablehlo.abs %x : tensor<f32>\n" /* same name in a sibling region */
        "    stablehlo.return %1 : tensor<f32>\n"
        "  }) : (tensor<i1>) -> tensor<f32>\n"
        "  func.return %0 : tensor<f32>\n}\n");
  if (!cur->m) fail_msg("%s", parsed_diags(cur));
  Op *iff = func_op(cur->m, 0);
  assert_int_equal(iff->kind, OP_IF);
  assert_int_equal(iff->nregions, 2);
  Block *then = iff->regions[0].blocks[0];
  assert_ptr_equal(then->parent, &iff->regions[0]);
  assert_ptr_equal(iff->regions[0].parent, iff);
  assert_int_equal(then->first->kind, OP_NEGATE);
  assert_ptr_equal(then->first->operands[0], &op_body(first_func(cur->m))->args[1]); /* outer value */
  assert_ptr_equal(then->last->operands[0], &then->first->results[0]);
  Block *els = iff->regions[1].blocks[0];
  assert_int_equal(els->first->kind, OP_ABS);
  assert_ptr_equal(els->last->operands[0], &els->first->results[0]);
  assert_ptr_equal(els->first->parent, els);
}

static void test_region_value_not_visible_outside(void **state) {
  (void)state;
  rejected("func.func @f(%p: tensor<i1>, %x: tensor<f32>) -> tensor<f32> {\n"
           "  %0 = \"stablehlo.if\"(%p) ({\n"
           "    %inner = stablehlo.negate %x : tensor<f32>\n"
           "    stablehlo.return %inner : tensor<f32>\n"
           "  }, {\n"
           "    stablehlo.return %x : tensor<f32>\n"
           "  }) : (tensor<i1>) -> tensor<f32>\n"
           "  func.return %inner : tensor<f32>\n}\n",
           1, 8, 15, "use of undeclared SSA value name '%inner'");
}

static void test_block_arguments(void **state) {
  (void)state;
  parse("func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
        "  %0 = \"stablehlo.map\"(%x, %x) ({\n"
        "  ^bb0(%a: tensor<f32> loc(\"a\"), %b: tensor<f32>):\n"
        "    %s = stablehlo.add %a, %b : tensor<f32>\n"
        "    stablehlo.return %s : tensor<f32>\n"
        "  }) {dimensions = array<i64: 0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>\n"
        "  func.return %0 : tensor<4xf32>\n}\n");
  if (!cur->m) fail_msg("%s", parsed_diags(cur));
  Op *map = func_op(cur->m, 0);
  Block *b = map->regions[0].blocks[0];
  assert_int_equal(b->nargs, 2);
  assert_ptr_equal(b->args[0].block, b);
  assert_null(b->args[0].def);
  assert_int_equal(b->args[1].index, 1);
  assert_ptr_equal(b->first->operands[1], &b->args[1]);
}

static void test_pretty_attribute_forms(void **state) {
  (void)state;
  parse("func.func @f(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {\n"
        "  %0 = stablehlo.slice %a [0:2, 1:3:2] : (tensor<2x3xf32>) -> tensor<2x1xf32>\n"
        "  %1 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0], precision = [DEFAULT, HIGH] :"
        " (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>\n"
        "  %2 = stablehlo.iota dim = 1 : tensor<2x4xi32>\n"
        "  %3 = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>\n"
        "  %4 = stablehlo.reduce_precision %a, format = e8m7 : tensor<2x3xf32>\n"
        "  %5 = stablehlo.compare GT, %a, %a, TOTALORDER : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>\n"
        "  func.return %1 : tensor<2x4xf32>\n}\n");
  if (!cur->m) fail_msg("%s", parsed_diags(cur));
  Arena *ar = &cur->c->arena;
  int n;
  const int64_t *v;
  Op *slice = func_op(cur->m, 0);
  assert_true(attr_as_i64_list(op_attr(slice, "start_indices"), &n, &v, ar));
  assert_int_equal(n, 2);
  assert_int_equal(v[1], 1);
  assert_true(attr_as_i64_list(op_attr(slice, "limit_indices"), &n, &v, ar));
  assert_int_equal(v[0], 2);
  assert_true(attr_as_i64_list(op_attr(slice, "strides"), &n, &v, ar));
  assert_int_equal(v[0], 1);
  assert_int_equal(v[1], 2);
  Op *dot = func_op(cur->m, 1);
  const Attr *dd = op_attr(dot, "dot_dimension_numbers");
  assert_int_equal(dd->kind, ATTR_DIALECT);
  assert_string_equal(dd->u.dialect.name, "stablehlo.dot");
  assert_int_equal(dialect_param(dd, "lhs_contracting_dimensions")->u.ilist.v[0], 1);
  assert_int_equal(dialect_param(dd, "rhs_contracting_dimensions")->u.ilist.v[0], 0);
  assert_null(dialect_param(dd, "lhs_batching_dimensions"));
  const Attr *prec = op_attr(dot, "precision_config");
  assert_int_equal(prec->u.array.n, 2);
  assert_string_equal(attr_enum_value(prec->u.array.items[1]), "HIGH");
  assert_string_equal(prec->u.array.items[1]->u.enm.enum_name, "precision");
  const Attr *dim = op_attr(func_op(cur->m, 2), "iota_dimension");
  assert_int_equal(dim->u.i, 1);
  assert_ptr_equal(dim->type, type_elem(cur->c, ELEM_I64));
  assert_int_equal(op_attr(func_op(cur->m, 3), "permutation")->kind, ATTR_DENSE_ARRAY);
  Op *rp = func_op(cur->m, 4);
  assert_int_equal(op_attr(rp, "exponent_bits")->u.i, 8);
  assert_int_equal(op_attr(rp, "mantissa_bits")->u.i, 7);
  Op *cmp = func_op(cur->m, 5);
  assert_string_equal(attr_enum_value(op_attr(cmp, "comparison_direction")), "GT");
  assert_string_equal(attr_enum_value(op_attr(cmp, "compare_type")), "TOTALORDER");
}

static void test_convolution_pretty(void **state) {
  (void)state;
  parse("func.func @f(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32> {\n"
        "  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], "
        "window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], "
        "reverse = [false, true]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : "
        "(tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32>\n"
        "  func.return %0 : tensor<1x8x8x4xf32>\n}\n");
  if (!cur->m) fail_msg("%s", parsed_diags(cur));
  Op *conv = func_op(cur->m, 0);
  assert_int_equal(conv->kind, OP_CONVOLUTION);
  assert_int_equal(op_attr(conv, "dimension_numbers")->kind, ATTR_CONV_DIMS);
  const Attr *pad = op_attr(conv, "padding");
  assert_int_equal(pad->kind, ATTR_DENSE);
  assert_string_equal(tstr(pad->type), "tensor<2x2xi64>");
  assert_int_equal(dense_get_int(pad, 3), 1);
  int n;
  bool *bv;
  assert_true(attr_as_bool_list(op_attr(conv, "window_reversal"), &n, &bv, &cur->c->arena));
  assert_int_equal(n, 2);
  assert_true(!bv[0] && bv[1]);
  assert_non_null(op_attr(conv, "window_strides"));
  assert_non_null(op_attr(conv, "lhs_dilation"));
  assert_non_null(op_attr(conv, "rhs_dilation"));
  assert_int_equal(op_attr(conv, "feature_group_count")->u.i, 1);
}

static void test_reduce_applies_form(void **state) {
  (void)state;
  parse("func.func @f(%x: tensor<4x8xf32>, %z: tensor<f32>) -> tensor<4xf32> {\n"
        "  %0 = stablehlo.reduce(%x init: %z) applies stablehlo.maximum across dimensions = [1] :"
        " (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>\n"
        "  func.return %0 : tensor<4xf32>\n}\n");
  if (!cur->m) fail_msg("%s", parsed_diags(cur));
  Op *red = func_op(cur->m, 0);
  assert_int_equal(red->kind, OP_REDUCE);
  assert_int_equal(red->noperands, 2);
  assert_int_equal(red->nregions, 1);
  Block *b = red->regions[0].blocks[0];
  assert_int_equal(b->nargs, 2);
  assert_string_equal(tstr(b->args[0].type), "tensor<f32>");
  Op *inner = b->first;
  assert_int_equal(inner->kind, OP_MAXIMUM);
  assert_ptr_equal(inner->operands[0], &b->args[0]);
  assert_ptr_equal(inner->operands[1], &b->args[1]);
  assert_int_equal(inner->next->kind, OP_RETURN);
  assert_ptr_equal(inner->next->operands[0], &inner->results[0]);
  assert_true(parsed_verify(cur));
}

static void test_reduce_reducer_form(void **state) {
  (void)state;
  parse("func.func @f(%x: tensor<4x8xf32>, %y: tensor<4x8xi32>, %z: tensor<f32>, %zi: tensor<i32>) ->"
        " tensor<4xf32> {\n"
        "  %0:2 = stablehlo.reduce(%x init: %z), (%y init: %zi) across dimensions = [1] :"
        " (tensor<4x8xf32>, tensor<4x8xi32>, tensor<f32>, tensor<i32>) -> (tensor<4xf32>, tensor<4xi32>)\n"
        "   reducer(%a: tensor<f32>, %b: tensor<f32>) (%c: tensor<i32>, %d: tensor<i32>) {\n"
        "    %s = stablehlo.add %a, %b : tensor<f32>\n"
        "    %t = stablehlo.add %c, %d : tensor<i32>\n"
        "    stablehlo.return %s, %t : tensor<f32>, tensor<i32>\n"
        "  }\n"
        "  func.return %0#0 : tensor<4xf32>\n}\n");
  if (!cur->m) fail_msg("%s", parsed_diags(cur));
  Op *red = func_op(cur->m, 0);
  /* operands: inputs then inits */
  Block *fb = op_body(first_func(cur->m));
  assert_ptr_equal(red->operands[0], &fb->args[0]);
  assert_ptr_equal(red->operands[1], &fb->args[1]);
  assert_ptr_equal(red->operands[2], &fb->args[2]);
  assert_ptr_equal(red->operands[3], &fb->args[3]);
  /* block arguments: every accumulator first, then every element */
  Block *b = red->regions[0].blocks[0];
  assert_int_equal(b->nargs, 4);
  assert_string_equal(b->args[0].name_hint, "%a");
  assert_string_equal(b->args[1].name_hint, "%c");
  assert_string_equal(b->args[2].name_hint, "%b");
  assert_string_equal(b->args[3].name_hint, "%d");
  assert_string_equal(tstr(b->args[1].type), "tensor<i32>");
  assert_true(parsed_verify(cur));
}

static void test_while_pretty(void **state) {
  (void)state;
  parse("func.func @f(%n: tensor<i64>) -> tensor<i64> {\n"
        "  %0 = stablehlo.while(%i = %n) : tensor<i64>\n"
        "   cond {\n"
        "    %c = stablehlo.compare LT, %i, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>\n"
        "    stablehlo.return %c : tensor<i1>\n"
        "  } do {\n"
        "    stablehlo.return %i : tensor<i64>\n"
        "  }\n"
        "  func.return %0 : tensor<i64>\n}\n");
  if (!cur->m) fail_msg("%s", parsed_diags(cur));
  Op *w = func_op(cur->m, 0);
  assert_int_equal(w->kind, OP_WHILE);
  assert_int_equal(w->nregions, 2);
  Block *cond = w->regions[0].blocks[0], *body = w->regions[1].blocks[0];
  assert_int_equal(cond->nargs, 1);
  assert_int_equal(body->nargs, 1);
  /* %i names the argument of each region */
  assert_ptr_equal(cond->first->operands[0], &cond->args[0]);
  assert_ptr_equal(body->first->operands[0], &body->args[0]);
  assert_ptr_equal(cond->first->operands[1], &op_body(first_func(cur->m))->args[0]);
  assert_true(parsed_verify(cur));
}

static void test_custom_call_and_constant(void **state) {
  (void)state;
  parse("func.func @f() -> tensor<2xf32> {\n"
        "  %c = stablehlo.constant {foo = 1 : i32} dense<[1.0, 2.0]> : tensor<2xf32>\n"
        "  %0 = stablehlo.custom_call @\"my target\"(%c) {api_version = 2 : i32} : (tensor<2xf32>) -> tensor<2xf32>\n"
        "  stablehlo.custom_call @check.expect_eq(%0, %c) : (tensor<2xf32>, tensor<2xf32>) -> ()\n"
        "  func.return %0 : tensor<2xf32>\n}\n");
  if (!cur->m) fail_msg("%s", parsed_diags(cur));
  Op *c = func_op(cur->m, 0);
  assert_int_equal(c->kind, OP_CONSTANT);
  assert_int_equal(op_attr(c, "value")->kind, ATTR_DENSE);
  assert_int_equal(op_attr(c, "foo")->u.i, 1);
  assert_ptr_equal(c->results[0].type, op_attr(c, "value")->type);
  Op *cc = func_op(cur->m, 1);
  const Attr *target = op_attr(cc, "call_target_name");
  assert_int_equal(target->kind, ATTR_STRING);
  assert_string_equal(target->u.str.s, "my target");
  Op *check = func_op(cur->m, 2);
  assert_int_equal(check->nresults, 0);
  assert_string_equal(op_attr(check, "call_target_name")->u.str.s, "check.expect_eq");
}

static void test_generic_unknown_op_parses(void **state) {
  (void)state;
  parse("func.func @f(%a: tensor<f32>) -> tensor<f32> {\n"
        "  %0 = \"mydialect.frob\"(%a) {k = 3} : (tensor<f32>) -> tensor<f32>\n"
        "  func.return %0 : tensor<f32>\n}\n");
  assert_non_null(cur->m); /* parsed; the verifier rejects it */
  Op *op = func_op(cur->m, 0);
  assert_int_equal(op->kind, OP_UNKNOWN);
  assert_string_equal(op->name, "mydialect.frob");
  assert_false(parsed_verify(cur));
  assert_contains(parsed_diags(cur), "'mydialect.frob' op is not an operation tpucc knows");
}

static void test_generic_properties(void **state) {
  (void)state;
  parse("func.func @f(%a: tensor<3xf32>) -> tensor<3xf32> {\n"
        "  %0 = \"stablehlo.reverse\"(%a) <{dimensions = array<i64: 0>}> {other = 1} :"
        " (tensor<3xf32>) -> tensor<3xf32>\n"
        "  func.return %0 : tensor<3xf32>\n}\n");
  if (!cur->m) fail_msg("%s", parsed_diags(cur));
  Op *op = func_op(cur->m, 0);
  assert_int_equal(op->nattrs, 2);
  assert_non_null(op_attr(op, "dimensions"));
  assert_non_null(op_attr(op, "other"));
}

static void test_locations(void **state) {
  (void)state;
  parse("func.func @f(%a: tensor<f32>) -> tensor<f32> {\n"
        "  %0 = stablehlo.abs %a : tensor<f32> loc(\"x.py\":3:4)\n"
        "    %1 = \"stablehlo.negate\"(%0) : (tensor<f32>) -> tensor<f32> loc(#loc1)\n"
        "  func.return %1 : tensor<f32>\n}\n#loc1 = loc(\"y.py\":1:1)\n");
  if (!cur->m) fail_msg("%s", parsed_diags(cur));
  Op *abs = func_op(cur->m, 0), *neg = func_op(cur->m, 1);
  assert_int_equal(abs->loc.line, 2);
  assert_int_equal(abs->loc.col, 8); /* the op name, after "%0 = " */
  assert_ptr_equal(abs->loc.file, &cur->file);
  assert_string_equal(abs->srcloc, "loc(\"x.py\":3:4)");
  assert_int_equal(neg->loc.line, 3);
  assert_int_equal(neg->loc.col, 10);
  assert_string_equal(neg->srcloc, "loc(#loc1)");
  assert_int_equal(first_func(cur->m)->loc.line, 1);
}

static void test_comments_and_whitespace(void **state) {
  (void)state;
  parse("// c1\n\n  func.func @f(%a: tensor<f32>) -> tensor<f32> { // c2\n"
        "\t%0 = stablehlo.abs   %a   :   tensor<f32> // c3\n"
        "\r\n  func.return %0 : tensor<f32> }   // end\n");
  assert_non_null(cur->m);
  assert_int_equal(func_op(cur->m, 0)->loc.line, 4);
}

static void test_empty_input(void **state) {
  (void)state;
  parse("");
  assert_non_null(cur->m);
  assert_int_equal(cur->m->op->kind, OP_MODULE);
  Block *b = op_body(cur->m->op);
  assert_non_null(b);
  assert_null(b->first);
  parse("  // only a comment\n");
  assert_non_null(cur->m);
  assert_true(parsed_verify(cur));
}

static void test_many_values_in_scope(void **state) {
  (void)state;
  /* enough names to grow the scope table several times */
  size_t cap = 1 << 20, len = 0;
  char *text = malloc(cap);
  len += (size_t)snprintf(text + len, cap - len, "func.func @f(%%a: tensor<f32>) -> tensor<f32> {\n");
  len += (size_t)snprintf(text + len, cap - len, "  %%v0 = stablehlo.abs %%a : tensor<f32>\n");
  for (int i = 1; i < 2000; i++)
    len += (size_t)snprintf(text + len, cap - len, "  %%v%d = stablehlo.add %%v%d, %%v%d : tensor<f32>\n", i,
                            i - 1, i / 2);
  len += (size_t)snprintf(text + len, cap - len, "  func.return %%v1999 : tensor<f32>\n}\n");
  parse(text);
  free(text);
  if (!cur->m) fail_msg("%s", parsed_diags(cur));
  Op *op = func_op(cur->m, 1999);
  assert_int_equal(op->kind, OP_ADD);
  assert_ptr_equal(op->operands[1], &func_op(cur->m, 999)->results[0]);
  assert_true(parsed_verify(cur));
}

/* ----------------------------------------------------------- split files */

static void test_split_input_file(void **state) {
  (void)state;
  static const char text[] = "a\n"           /* 1 */
                             "// -----\n"    /* 2 */
                             "b\n"           /* 3 */
                             "c\n"           /* 4 */
                             "  // -----  \n" /* 5: surrounding blanks are allowed */
                             "// ----- x\n"  /* 6: not a separator */
                             "// ------\n"   /* 7: not a separator */
                             "d\n"           /* 8 */
                             "// -----";     /* 9: at the end, without newline */
  SourceFile f = {"s.mlir", text, sizeof text - 1};
  SourceChunk *ch = NULL;
  int n = split_input_file(&f, &ch);
  assert_int_equal(n, 4);
  assert_int_equal(ch[0].first_line, 1);
  assert_int_equal(ch[0].end - ch[0].start, 2);
  assert_memory_equal(ch[0].start, "a\n", 2);
  assert_int_equal(ch[1].first_line, 3);
  assert_memory_equal(ch[1].start, "b\nc\n", 4);
  assert_int_equal(ch[1].end - ch[1].start, 4);
  assert_int_equal(ch[2].first_line, 6);
  assert_memory_equal(ch[2].start, "// ----- x\n", 11);
  assert_int_equal(ch[3].first_line, 10);
  assert_int_equal(ch[3].end - ch[3].start, 0);
  free(ch);
}

static void test_split_no_separator(void **state) {
  (void)state;
  static const char text[] = "x\ny\n";
  SourceFile f = {"s.mlir", text, sizeof text - 1};
  SourceChunk *ch = NULL;
  int n = split_input_file(&f, &ch);
  assert_int_equal(n, 1);
  assert_ptr_equal(ch[0].start, text);
  assert_ptr_equal(ch[0].end, text + f.len);
  assert_int_equal(ch[0].first_line, 1);
  free(ch);
  SourceFile empty = {"e.mlir", text, 0};
  n = split_input_file(&empty, &ch);
  assert_int_equal(n, 1);
  assert_int_equal(ch[0].end - ch[0].start, 0);
  free(ch);
}

static void test_split_many_chunks(void **state) {
  (void)state;
  /* more chunks than the splitter's initial capacity */
  char *text = malloc(100 * 16);
  text[0] = 0;
  for (int i = 0; i < 100; i++) strcat(text, "x\n// -----\n");
  SourceFile f = {"s.mlir", text, strlen(text)};
  SourceChunk *ch = NULL;
  int n = split_input_file(&f, &ch);
  assert_int_equal(n, 101);
  for (int i = 0; i < 100; i++) {
    assert_int_equal(ch[i].first_line, 1 + 2 * i);
    assert_int_equal(ch[i].end - ch[i].start, 2);
  }
  free(ch);
  free(text);
}

static void test_split_chunks_keep_line_numbers(void **state) {
  (void)state;
  static const char text[] = "func.func @ok() {\n  func.return\n}\n"
                             "// -----\n"
                             "func.func @bad() {\n"
                             "  %0 = stablehlo.abs %nope : tensor<f32>\n"
                             "  func.return\n}\n";
  SourceFile f = {"split.mlir", text, sizeof text - 1};
  SourceChunk *ch = NULL;
  int n = split_input_file(&f, &ch);
  assert_int_equal(n, 2);
  Context *c = ctx_new();
  char *buf = NULL;
  size_t len = 0;
  c->diag.out = open_memstream(&buf, &len);
  c->diag.show_source = false;
  Module *m0 = parse_module(c, &f, ch[0].start, ch[0].end, ch[0].first_line);
  assert_non_null(m0);
  Module *m1 = parse_module(c, &f, ch[1].start, ch[1].end, ch[1].first_line);
  assert_null(m1);
  fclose(c->diag.out);
  assert_int_equal(c->diag.nerrors, 1);
  assert_contains(buf, "split.mlir:6:22: error: use of undeclared SSA value name '%nope'");
  free(buf);
  ctx_free(c);
  free(ch);
}

/* ------------------------------------------------------------------ errors */

static void test_error_undeclared_value(void **state) {
  (void)state;
  rejected("func.func @f(%a: tensor<f32>) -> tensor<f32> {\n"
           "  %0 = stablehlo.add %a, %b : tensor<f32>\n"
           "  func.return %0 : tensor<f32>\n}\n",
           1, 2, 26, "use of undeclared SSA value name '%b'");
}

static void test_error_type_mismatch(void **state) {
  (void)state;
  rejected("func.func @f(%a: tensor<f32>) -> tensor<f32> {\n"
           "  %0 = stablehlo.add %a, %a : tensor<f64>\n"
           "  func.return %0 : tensor<f32>\n}\n",
           1, 2, 31, "use of value '%a' expects different type than prior uses: 'tensor<f64>' vs 'tensor<f32>'");
}

static void test_error_generic_type_mismatch(void **state) {
  (void)state;
  rejected("func.func @f(%a: tensor<f32>) -> tensor<f32> {\n"
           "  %0 = \"stablehlo.abs\"(%a) : (tensor<2xf32>) -> tensor<f32>\n"
           "  func.return %0 : tensor<f32>\n}\n",
           1, 2, 30, "expects different type than prior uses");
}

static void test_error_operand_type_count(void **state) {
  (void)state;
  rejected("func.func @f(%a: tensor<f32>) -> tensor<f32> {\n"
           "  %0 = \"stablehlo.add\"(%a, %a) : (tensor<f32>) -> tensor<f32>\n"
           "  func.return %0 : tensor<f32>\n}\n",
           1, 2, 34, "expected 2 operand types but had 1");
}

static void test_error_unknown_op(void **state) {
  (void)state;
  rejected("func.func @f(%a: tensor<f32>) -> tensor<f32> {\n"
           "  %0 = foo.bar %a : tensor<f32>\n"
           "  func.return %0 : tensor<f32>\n}\n",
           1, 2, 8, "custom op 'foo.bar' is unknown");
}

static void test_error_generic_only_op_in_pretty_form(void **state) {
  (void)state;
  rejected("func.func @f(%a: tensor<f32>) -> tensor<f32> {\n"
           "  %0 = stablehlo.sort %a : tensor<f32>\n"
           "  func.return %0 : tensor<f32>\n}\n",
           1, 2, 8, "custom op 'stablehlo.sort' is unknown in pretty form (write it in generic form)");
}

static void test_error_unterminated_function(void **state) {
  (void)state;
  rejected("func.func @f(%a: tensor<f32>) -> tensor<f32> {\n"
           "  %0 = stablehlo.abs %a : tensor<f32>\n",
           1, 3, 1, "expected '}' to close the function body");
}

static void test_error_unterminated_region(void **state) {
  (void)state;
  rejected("func.func @f(%a: tensor<i1>) -> tensor<i1> {\n"
           "  %0 = \"stablehlo.if\"(%a) ({\n"
           "    stablehlo.return %a : tensor<i1>\n",
           1, 4, 1, "expected '}' to close a region");
}

static void test_error_unterminated_module(void **state) {
  (void)state;
  rejected("module {\n  func.func @f() {\n    func.return\n  }\n", 1, 5, 1, "expected '}' to close the module");
}

static void test_error_redefinition(void **state) {
  (void)state;
  rejected("func.func @f(%a: tensor<f32>) -> tensor<f32> {\n"
           "  %0 = stablehlo.abs %a : tensor<f32>\n"
           "  %0 = stablehlo.abs %a : tensor<f32>\n"
           "  func.return %0 : tensor<f32>\n}\n",
           1, 3, 3, "redefinition of SSA value '%0'");
}

static void test_error_shadowing_outer_value(void **state) {
  (void)state;
  /* a region may not redefine a name of an enclosing scope */
  rejected("func.func @f(%p: tensor<i1>, %x: tensor<f32>) -> tensor<f32> {\n"
           "  %0 = \"stablehlo.if\"(%p) ({\n"
           "    %x = stablehlo.negate %x : tensor<f32>\n"
           "    stablehlo.return %x : tensor<f32>\n"
           "  }, {\n"
           "    stablehlo.return %x : tensor<f32>\n"
           "  }) : (tensor<i1>) -> tensor<f32>\n"
           "  func.return %0 : tensor<f32>\n}\n",
           1, 3, 5, "redefinition of SSA value '%x'");
}

static void test_error_wrong_result_count(void **state) {
  (void)state;
  rejected("func.func @f(%a: tensor<f32>) -> tensor<f32> {\n"
           "  %0:2 = \"stablehlo.abs\"(%a) : (tensor<f32>) -> tensor<f32>\n"
           "  func.return %a : tensor<f32>\n}\n",
           1, 2, 10, "operation defines 1 results but was provided 2 to bind");
}

static void test_error_missing_equals(void **state) {
  (void)state;
  rejected("func.func @f(%a: tensor<f32>) -> tensor<f32> {\n"
           "  %0 stablehlo.abs %a : tensor<f32>\n"
           "  func.return %a : tensor<f32>\n}\n",
           1, 2, 6, "expected '=', found 'stablehlo.abs'");
}

static void test_error_bad_result_count_syntax(void **state) {
  (void)state;
  rejected("func.func @f(%a: tensor<f32>) {\n"
           "  %0:0 = \"stablehlo.abs\"(%a) : (tensor<f32>) -> ()\n"
           "  func.return\n}\n",
           1, 2, 3, "invalid result count");
}

static void test_error_duplicate_attribute(void **state) {
  (void)state;
  rejected("func.func @f(%a: tensor<f32>) -> tensor<f32> {\n"
           "  %0 = \"stablehlo.abs\"(%a) {x = 1, x = 2} : (tensor<f32>) -> tensor<f32>\n"
           "  func.return %0 : tensor<f32>\n}\n",
           1, 2, 36, "duplicate attribute 'x'");
  rejected("func.func @f(%a: tensor<f32>) -> tensor<f32> {\n"
           "  %0 = \"stablehlo.abs\"(%a) <{x = 1}> {x = 2} : (tensor<f32>) -> tensor<f32>\n"
           "  func.return %0 : tensor<f32>\n}\n",
           1, 2, 8, "attribute 'x' given both as property and attribute");
  rejected("func.func @f(%a: tensor<3xf32>) -> tensor<3xf32> {\n"
           "  %0 = stablehlo.reverse %a, dims = [0] {dimensions = array<i64: 0>} : tensor<3xf32>\n"
           "  func.return %0 : tensor<3xf32>\n}\n",
           1, 2, 8, "attribute 'dimensions' is given twice");
}

static void test_error_bad_type(void **state) {
  (void)state;
  rejected("func.func @f(%a: tensor<2xf33>) {\n  func.return\n}\n", 1, 1, 27, "expected type, found 'f33'");
  rejected("func.func @f(%a: i7) {\n  func.return\n}\n", 1, 1, 18, "unsupported integer type 'i7'");
}

static void test_error_bad_dense(void **state) {
  (void)state;
  rejected("func.func @f() {\n"
           "  %0 = stablehlo.constant dense<[1, 2, 3]> : tensor<2xi32>\n"
           "  func.return\n}\n",
           1, 2, 27, "dense literal shape does not match type 'tensor<2xi32>'");
  rejected("func.func @f() {\n"
           "  %0 = stablehlo.constant dense<300> : tensor<i8>\n"
           "  func.return\n}\n",
           1, 2, 33, "integer literal 300 is out of range for type i8");
}

static void test_error_block_successors(void **state) {
  (void)state;
  rejected("func.func @f() {\n  \"foo.br\"()[^bb1] : () -> ()\n}\n", 1, 2, 13, "block successors are not supported");
}

static void test_error_several_blocks(void **state) {
  (void)state;
  rejected("func.func @f() {\n  func.return\n^bb1:\n  func.return\n}\n", 1, 3, 1,
           "functions with several blocks are not supported");
}

static void test_error_mixed_named_args(void **state) {
  (void)state;
  rejected("func.func @f(%a: tensor<f32>, tensor<f32>) {\n  func.return\n}\n", 1, 1, 42,
           "function arguments must be all named or all unnamed");
  rejected("func.func @f(tensor<f32>) {\n  func.return\n}\n", 1, 1, 1, "a function with a body needs named arguments");
}

static void test_error_two_modules(void **state) {
  (void)state;
  rejected("module {\n}\nmodule {\n}\n", 1, 3, 1, "expected end of input after the module");
}

static void test_error_unexpected_character(void **state) {
  (void)state;
  rejected("func.func @f() {\n  func.return ~\n}\n", 1, 2, 15, "unexpected character or unterminated token '~'");
}

static void test_error_nul_byte(void **state) {
  (void)state;
  static const char text[] = "func.func @f() {\n  func.return\0\n}\n";
  parsed_free(cur);
  cur = parse_text_n(text, sizeof text - 1);
  assert_null(cur->m);
  assert_int_equal(parsed_errors(cur), 1);
  assert_contains(parsed_diags(cur), "test.mlir:2:14: error: unexpected character or unterminated token");
}

static void test_error_bad_reduce_applies(void **state) {
  (void)state;
  rejected("func.func @f(%x: tensor<4xf32>, %z: tensor<f32>) -> tensor<f32> {\n"
           "  %0 = stablehlo.reduce(%x init: %z) applies stablehlo.abs across dimensions = [0] :"
           " (tensor<4xf32>, tensor<f32>) -> tensor<f32>\n"
           "  func.return %0 : tensor<f32>\n}\n",
           1, 2, 46,
           "expected the inner-op to be a commutative binary-op from the stablehlo dialect, with zero region, "
           "producing single result; found 'stablehlo.abs'");
}

static void test_error_recovery_reports_each_function(void **state) {
  (void)state;
  /* one error per top-level item, and parsing continues after each */
  parse("func.func @a() {\n  %0 = stablehlo.abs %x : tensor<f32>\n  func.return\n}\n"
        "func.func @b() {\n  func.return\n}\n"
        "func.func @c() {\n  %0 = nope.op : tensor<f32>\n  func.return\n}\n"
        "func.func @d() {\n  %0 = stablehlo.abs %y : tensor<f32>\n  func.return\n}\n");
  assert_null(cur->m);
  assert_int_equal(parsed_errors(cur), 3);
  const char *d = parsed_diags(cur);
  assert_contains(d, "test.mlir:2:22: error: use of undeclared SSA value name '%x'");
  assert_contains(d, "test.mlir:9:8: error: custom op 'nope.op' is unknown");
  assert_contains(d, "test.mlir:13:22: error: use of undeclared SSA value name '%y'");
}

static void test_error_limit(void **state) {
  (void)state;
  size_t cap = 8192, len = 0;
  char *text = malloc(cap);
  for (int i = 0; i < 10; i++)
    len += (size_t)snprintf(text + len, cap - len, "func.func @f%d() {\n  %%0 = stablehlo.abs %%x : tensor<f32>\n}\n", i);
  parsed_free(cur);
  Parsed *p = cur = parse_file_text("test.mlir", text, len, 3, false);
  free(text);
  assert_null(p->m);
  assert_int_equal(p->c->diag.nerrors, 10); /* all counted */
  assert_true(p->c->diag.suppressed);
  const char *d = parsed_diags(p);
  assert_contains(d, "too many errors (3), stopping");
  int shown = 0;
  for (const char *s = d; (s = strstr(s, ": error: ")); s++) shown++;
  assert_int_equal(shown, 3);
}

static void test_error_source_line_and_caret(void **state) {
  (void)state;
  parsed_free(cur);
  static const char text[] = "func.func @f() {\n  %0 = stablehlo.abs %x : tensor<f32>\n}\n";
  cur = parse_file_text("t.mlir", text, sizeof text - 1, 20, true); /* the Context defaults */
  assert_null(cur->m);
  assert_string_equal(parsed_diags(cur), "t.mlir:2:22: error: use of undeclared SSA value name '%x'\n"
                                         "  %0 = stablehlo.abs %x : tensor<f32>\n"
                                         "                     ^\n");
}

static void test_deeply_nested_regions(void **state) {
  (void)state;
  /* 300 nested ifs: a diagnostic, not a stack overflow */
  size_t cap = 1 << 16, len = 0;
  char *text = malloc(cap);
  len += (size_t)snprintf(text + len, cap - len, "func.func @f(%%p: tensor<i1>) {\n");
  for (int i = 0; i < 300; i++) len += (size_t)snprintf(text + len, cap - len, "\"stablehlo.if\"(%%p) ({\n");
  parse(text);
  free(text);
  assert_null(cur->m);
  assert_contains(parsed_diags(cur), "nested too deeply");
}

int run_parser_tests(void) {
#define T(f) cmocka_unit_test_teardown(f, parsed_teardown)
  const struct CMUnitTest tests[] = {
      T(test_implicit_module),
      T(test_named_module_with_attributes),
      T(test_function_signature),
      T(test_function_declaration),
      T(test_generic_and_pretty_forms_agree),
      T(test_short_op_names),
      T(test_multi_results),
      T(test_multi_result_index_out_of_range),
      T(test_nested_regions_and_scopes),
      T(test_region_value_not_visible_outside),
      T(test_block_arguments),
      T(test_pretty_attribute_forms),
      T(test_convolution_pretty),
      T(test_reduce_applies_form),
      T(test_reduce_reducer_form),
      T(test_while_pretty),
      T(test_custom_call_and_constant),
      T(test_generic_unknown_op_parses),
      T(test_generic_properties),
      T(test_locations),
      T(test_comments_and_whitespace),
      T(test_empty_input),
      T(test_many_values_in_scope),
      T(test_split_input_file),
      T(test_split_no_separator),
      T(test_split_many_chunks),
      T(test_split_chunks_keep_line_numbers),
      T(test_error_undeclared_value),
      T(test_error_type_mismatch),
      T(test_error_generic_type_mismatch),
      T(test_error_operand_type_count),
      T(test_error_unknown_op),
      T(test_error_generic_only_op_in_pretty_form),
      T(test_error_unterminated_function),
      T(test_error_unterminated_region),
      T(test_error_unterminated_module),
      T(test_error_redefinition),
      T(test_error_shadowing_outer_value),
      T(test_error_wrong_result_count),
      T(test_error_missing_equals),
      T(test_error_bad_result_count_syntax),
      T(test_error_duplicate_attribute),
      T(test_error_bad_type),
      T(test_error_bad_dense),
      T(test_error_block_successors),
      T(test_error_several_blocks),
      T(test_error_mixed_named_args),
      T(test_error_two_modules),
      T(test_error_unexpected_character),
      T(test_error_nul_byte),
      T(test_error_bad_reduce_applies),
      T(test_error_recovery_reports_each_function),
      T(test_error_limit),
      T(test_error_source_line_and_caret),
      T(test_deeply_nested_regions),
  };
#undef T
  return cmocka_run_group_tests_name("parser", tests, NULL, NULL);
}
