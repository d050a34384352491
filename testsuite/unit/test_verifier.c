/* The generic verifier (ir/verifier.c): functions, returns, calls, symbols,
 * terminators, op counts, dominance; modules written as text or built
 * with the IR API. */
#include "testsuite/unit/unit_tests.h"

/* Parse text (which must parse) and verify it. */
static bool verify_text(const char *text) {
  parsed_free(cur);
  cur = parse_text(text);
  if (!cur->m) fail_msg("parse failed:\n%s", parsed_diags(cur));
  return verify_module(cur->c, cur->m);
}

/* The module must be rejected with a diagnostic at line:col containing msg. */
static void rejects(const char *text, int line, int col, const char *msg) {
  if (verify_text(text)) fail_msg("verifier accepted:\n%s", text);
  assert_true(parsed_errors(cur) >= 1);
  char want[512];
  snprintf(want, sizeof want, "test.mlir:%d:%d: error: %s", line, col, msg);
  assert_contains(parsed_diags(cur), want);
}

static void accepts(const char *text) {
  if (!verify_text(text)) fail_msg("verifier rejected:\n%s\n%s", text, parsed_diags(cur));
  assert_int_equal(parsed_errors(cur), 0);
  assert_string_equal(parsed_diags(cur), "");
}

/* ------------------------------------------------------------ functions */

static void test_missing_func_return(void **state) {
  (void)state;
  rejects("func.func @f(%a: tensor<f32>) -> tensor<f32> {\n"
          "  %0 = stablehlo.abs %a : tensor<f32>\n}\n",
          2, 8, "'stablehlo.abs' op the body of a function must end with 'func.return'");
}

static void test_empty_function_body(void **state) {
  (void)state;
  rejects("func.func @f() {\n}\n", 1, 1, "'func.func' op the body of a function must end with 'func.return'");
}

static void test_return_type_mismatch(void **state) {
  (void)state;
  rejects("func.func @f(%a: tensor<f32>) -> tensor<i32> {\n  func.return %a : tensor<f32>\n}\n", 2, 3,
          "'func.return' op type of return operand 0 ('tensor<f32>') doesn't match function result type "
          "('tensor<i32>') in function @f");
}

static void test_return_count_mismatch(void **state) {
  (void)state;
  rejects("func.func @f(%a: tensor<f32>) -> (tensor<f32>, tensor<f32>) {\n  func.return %a : tensor<f32>\n}\n", 2, 3,
          "'func.return' op has 1 operands, but enclosing function (@f) returns 2");
  rejects("func.func @f(%a: tensor<f32>) {\n  func.return %a : tensor<f32>\n}\n", 2, 3,
          "'func.return' op has 1 operands, but enclosing function (@f) returns 0");
}

static void test_public_declaration(void **state) {
  (void)state;
  rejects("func.func @ext(tensor<f32>) -> tensor<f32>\n", 1, 1,
          "'func.func' op a function declaration (no body) must be private");
  accepts("func.func private @ext(tensor<f32>) -> tensor<f32>\n");
}

static void test_entry_block_mismatch(void **state) {
  (void)state;
  rejects("\"func.func\"() ({\n^bb0(%a: tensor<i32>):\n  \"func.return\"() : () -> ()\n}) "
          "{function_type = (tensor<f32>) -> (), sym_name = \"f\"} : () -> ()\n",
          1, 1,
          "'func.func' op type of entry block argument #0 ('tensor<i32>') does not match the function signature "
          "('tensor<f32>')");
  rejects("\"func.func\"() ({\n^bb0(%a: tensor<f32>, %b: tensor<f32>):\n  \"func.return\"() : () -> ()\n}) "
          "{function_type = (tensor<f32>) -> (), sym_name = \"f\"} : () -> ()\n",
          1, 1, "'func.func' op entry block has 2 arguments but the function type has 1 inputs");
}

static void test_func_attributes(void **state) {
  (void)state;
  rejects("\"func.func\"() ({\n^bb0(%a: tensor<f32>):\n  \"func.return\"() : () -> ()\n}) "
          "{arg_attrs = [{}, {}], function_type = (tensor<f32>) -> (), sym_name = \"f\"} : () -> ()\n",
          1, 1, "'func.func' op 'arg_attrs' must be an array of 1 dictionaries");
  rejects("\"func.func\"() ({\n  \"func.return\"() : () -> ()\n}) "
          "{function_type = () -> (), sym_name = \"f\", sym_visibility = \"secret\"} : () -> ()\n",
          1, 1, "'func.func' op 'sym_visibility' must be \"public\", \"private\" or \"nested\"");
  rejects("\"func.func\"() ({\n  \"func.return\"() : () -> ()\n}) {sym_name = \"f\"} : () -> ()\n", 1, 1,
          "'func.func' op requires a function type attribute 'function_type'");
  rejects("\"func.func\"() ({\n  \"func.return\"() : () -> ()\n}) {function_type = () -> (), sym_name = 3} : () -> ()\n",
          1, 1, "'func.func' op requires a string attribute 'sym_name'");
}

/* ---------------------------------------------------------------- calls */

static void test_call_unknown_function(void **state) {
  (void)state;
  rejects("func.func @f(%a: tensor<f32>) -> tensor<f32> {\n"
          "  %0 = func.call @nope(%a) : (tensor<f32>) -> tensor<f32>\n"
          "  func.return %0 : tensor<f32>\n}\n",
          2, 8, "'func.call' op 'nope' does not reference a valid function");
}

static void test_call_operand_count(void **state) {
  (void)state;
  rejects("func.func private @g(tensor<f32>) -> tensor<f32>\n"
          "func.func @f(%a: tensor<f32>) -> tensor<f32> {\n"
          "  %0 = func.call @g(%a, %a) : (tensor<f32>, tensor<f32>) -> tensor<f32>\n"
          "  func.return %0 : tensor<f32>\n}\n",
          3, 8, "'func.call' op incorrect number of operands for callee: 2, expected 1");
}

static void test_call_operand_type(void **state) {
  (void)state;
  rejects("func.func private @g(tensor<f32>) -> tensor<f32>\n"
          "func.func @f(%a: tensor<i32>) -> tensor<f32> {\n"
          "  %0 = func.call @g(%a) : (tensor<i32>) -> tensor<f32>\n"
          "  func.return %0 : tensor<f32>\n}\n",
          3, 8,
          "'func.call' op operand type mismatch: expected operand type 'tensor<f32>', but provided 'tensor<i32>' "
          "for operand number 0");
}

static void test_call_result_mismatch(void **state) {
  (void)state;
  rejects("func.func private @g(tensor<f32>) -> tensor<f32>\n"
          "func.func @f(%a: tensor<f32>) -> tensor<i32> {\n"
          "  %0 = func.call @g(%a) : (tensor<f32>) -> tensor<i32>\n"
          "  func.return %0 : tensor<i32>\n}\n",
          3, 8, "'func.call' op result type mismatch at index 0: expected 'tensor<f32>', but found 'tensor<i32>'");
  rejects("func.func private @g(tensor<f32>) -> tensor<f32>\n"
          "func.func @f(%a: tensor<f32>) {\n"
          "  func.call @g(%a) : (tensor<f32>) -> ()\n"
          "  func.return\n}\n",
          3, 3, "'func.call' op incorrect number of results for callee: 0, expected 1");
}

static void test_call_needs_symbol(void **state) {
  (void)state;
  rejects("func.func @f(%a: tensor<f32>) {\n"
          "  \"func.call\"(%a) {callee = \"g\"} : (tensor<f32>) -> ()\n"
          "  func.return\n}\n",
          2, 3, "'func.call' op requires a 'callee' symbol reference attribute");
}

static void test_calls_valid(void **state) {
  (void)state;
  /* calls in both directions, a call before the callee's definition
   * (recursion is refused: golden/verifier/calls.mlir) */
  accepts("func.func @k(%a: tensor<f32>) -> tensor<f32> {\n"
          "  func.return %a : tensor<f32>\n}\n"
          "func.func @f(%a: tensor<f32>) -> tensor<f32> {\n"
          "  %0 = func.call @g(%a) : (tensor<f32>) -> tensor<f32>\n"
          "  func.return %0 : tensor<f32>\n}\n"
          "func.func @g(%a: tensor<f32>) -> tensor<f32> {\n"
          "  %0 = func.call @k(%a) : (tensor<f32>) -> tensor<f32>\n"
          "  %1 = func.call @k(%0) : (tensor<f32>) -> tensor<f32>\n"
          "  func.return %1 : tensor<f32>\n}\n"
          "func.func @h() {\n  func.call @none() : () -> ()\n  func.return\n}\n"
          "func.func private @none()\n");
}

/* -------------------------------------------------------------- symbols */

static void test_duplicate_symbol(void **state) {
  (void)state;
  rejects("func.func @dup() {\n  func.return\n}\nfunc.func @dup() {\n  func.return\n}\n", 4, 1,
          "'func.func' op redefinition of symbol named 'dup'");
  assert_int_equal(parsed_errors(cur), 1);
  rejects("func.func private @d(tensor<f32>)\nfunc.func @x() {\n  func.return\n}\nfunc.func private @d(tensor<i32>)\n",
          5, 1, "'func.func' op redefinition of symbol named 'd'");
}

static void test_op_at_module_level(void **state) {
  (void)state;
  rejects("module {\n  %0 = stablehlo.constant dense<1.0> : tensor<f32>\n}\n", 2, 8,
          "'stablehlo.constant' op cannot appear at module level (only func.func can)");
}

static void test_nested_module(void **state) {
  (void)state;
  rejects("module {\n  module {\n  }\n}\n", 2, 3, "'builtin.module' op nested modules are not supported");
}

/* ----------------------------------------------------------- terminators */

static void test_stablehlo_return_in_function(void **state) {
  (void)state;
  rejects("func.func @f(%a: tensor<f32>) -> tensor<f32> {\n  stablehlo.return %a : tensor<f32>\n}\n", 2, 3,
          "'stablehlo.return' op must be inside a region of a StableHLO op (use func.return in functions)");
}

static void test_func_return_in_region(void **state) {
  (void)state;
  rejects("func.func @f(%p: tensor<i1>, %a: tensor<f32>) -> tensor<f32> {\n"
          "  %0 = \"stablehlo.if\"(%p) ({\n"
          "    func.return %a : tensor<f32>\n"
          "  }, {\n"
          "    stablehlo.return %a : tensor<f32>\n"
          "  }) : (tensor<i1>) -> tensor<f32>\n"
          "  func.return %0 : tensor<f32>\n}\n",
          3, 5, "'func.return' op expects parent op 'func.func'");
}

static void test_terminator_not_last(void **state) {
  (void)state;
  rejects("func.func @f(%a: tensor<f32>) -> tensor<f32> {\n"
          "  func.return %a : tensor<f32>\n"
          "  %0 = stablehlo.abs %a : tensor<f32>\n}\n",
          2, 3, "'func.return' op must be the last operation in the parent block");
}

static void test_region_without_terminator(void **state) {
  (void)state;
  rejects("func.func @f(%p: tensor<i1>, %a: tensor<f32>) -> tensor<f32> {\n"
          "  %0 = \"stablehlo.if\"(%p) ({\n"
          "    %1 = stablehlo.abs %a : tensor<f32>\n"
          "  }, {\n"
          "    stablehlo.return %a : tensor<f32>\n"
          "  }) : (tensor<i1>) -> tensor<f32>\n"
          "  func.return %0 : tensor<f32>\n}\n",
          3, 10, "'stablehlo.abs' op expects the region of its parent op to end with 'stablehlo.return'");
  rejects("func.func @f(%p: tensor<i1>, %a: tensor<f32>) -> tensor<f32> {\n"
          "  %0 = \"stablehlo.if\"(%p) ({\n"
          "  ^bb0:\n"
          "  }, {\n"
          "    stablehlo.return %a : tensor<f32>\n"
          "  }) : (tensor<i1>) -> tensor<f32>\n"
          "  func.return %0 : tensor<f32>\n}\n",
          2, 8, "'stablehlo.if' op has a region with an empty block; it must end with 'stablehlo.return'");
}

/* ---------------------------------------------------------- op counts */

static void test_operand_and_result_counts(void **state) {
  (void)state;
  rejects("func.func @f(%a: tensor<f32>) -> tensor<f32> {\n"
          "  %0 = \"stablehlo.add\"(%a) : (tensor<f32>) -> tensor<f32>\n"
          "  func.return %0 : tensor<f32>\n}\n",
          2, 8, "'stablehlo.add' op requires 2 operands, but found 1");
  rejects("func.func @f(%a: tensor<f32>) -> tensor<f32> {\n"
          "  %0 = \"stablehlo.abs\"(%a, %a) : (tensor<f32>, tensor<f32>) -> tensor<f32>\n"
          "  func.return %0 : tensor<f32>\n}\n",
          2, 8, "'stablehlo.abs' op requires 1 operand, but found 2");
  rejects("func.func @f(%a: tensor<f32>) -> tensor<f32> {\n"
          "  %0:2 = \"stablehlo.abs\"(%a) : (tensor<f32>) -> (tensor<f32>, tensor<f32>)\n"
          "  func.return %0#0 : tensor<f32>\n}\n",
          2, 10, "'stablehlo.abs' op requires 1 result, but found 2");
  rejects("func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
          "  %0 = \"stablehlo.concatenate\"() {dimension = 0 : i64} : () -> tensor<4xf32>\n"
          "  func.return %0 : tensor<4xf32>\n}\n",
          2, 8, "'stablehlo.concatenate' op requires at least 1 operand, but found 0");
}

static void test_region_count(void **state) {
  (void)state;
  rejects("func.func @f(%a: tensor<f32>) -> tensor<f32> {\n"
          "  %0 = \"stablehlo.abs\"(%a) ({\n"
          "    stablehlo.return %a : tensor<f32>\n"
          "  }) : (tensor<f32>) -> tensor<f32>\n"
          "  func.return %0 : tensor<f32>\n}\n",
          2, 8, "'stablehlo.abs' op requires 0 regions, but found 1");
}

static void test_unknown_op(void **state) {
  (void)state;
  rejects("func.func @f(%a: tensor<f32>) -> tensor<f32> {\n"
          "  %0 = \"my.op\"(%a) : (tensor<f32>) -> tensor<f32>\n"
          "  func.return %0 : tensor<f32>\n}\n",
          2, 8, "'my.op' op is not an operation tpucc knows (unregistered operation)");
}

static void test_all_errors_reported(void **state) {
  (void)state;
  /* every problem is reported, not only the first */
  assert_false(verify_text("func.func @a(%x: tensor<f32>) -> tensor<i32> {\n  func.return %x : tensor<f32>\n}\n"
                           "func.func @b(%x: tensor<f32>) -> tensor<f32> {\n"
                           "  %0 = func.call @zz(%x) : (tensor<f32>) -> tensor<f32>\n"
                           "  func.return %0 : tensor<f32>\n}\n"
                           "func.func @a() {\n  func.return\n}\n"));
  const char *d = parsed_diags(cur);
  assert_contains(d, "test.mlir:2:3: error: 'func.return' op type of return operand 0");
  assert_contains(d, "test.mlir:5:8: error: 'func.call' op 'zz' does not reference a valid function");
  assert_contains(d, "test.mlir:8:1: error: 'func.func' op redefinition of symbol named 'a'");
  assert_int_equal(parsed_errors(cur), 3);
}

/* --------------------------------------------------------------- valid */

static void test_valid_modules(void **state) {
  (void)state;
  accepts("");
  accepts("module @empty {\n}\n");
  accepts("func.func @f() {\n  func.return\n}\n");
  /* regions see the values of enclosing blocks */
  accepts("func.func @f(%p: tensor<i1>, %x: tensor<f32>) -> tensor<f32> {\n"
          "  %a = stablehlo.abs %x : tensor<f32>\n"
          "  %0 = \"stablehlo.if\"(%p) ({\n"
          "    %1 = stablehlo.negate %a : tensor<f32>\n"
          "    stablehlo.return %1 : tensor<f32>\n"
          "  }, {\n"
          "    %2 = \"stablehlo.if\"(%p) ({\n"
          "      stablehlo.return %x : tensor<f32>\n"
          "    }, {\n"
          "      stablehlo.return %a : tensor<f32>\n"
          "    }) : (tensor<i1>) -> tensor<f32>\n"
          "    stablehlo.return %2 : tensor<f32>\n"
          "  }) : (tensor<i1>) -> tensor<f32>\n"
          "  func.return %0 : tensor<f32>\n}\n");
  accepts("func.func @f(%a: tensor<2xf32> {jax.arg_info = \"a\"}) -> (tensor<2xf32> {jax.result_info = \"\"}) "
          "attributes {x} {\n  func.return %a : tensor<2xf32>\n}\n"
          "func.func nested @g() {\n  func.return\n}\n");
}

static void test_verify_twice(void **state) {
  (void)state;
  accepts("func.func @f(%a: tensor<f32>) -> tensor<f32> {\n"
          "  %0 = stablehlo.abs %a : tensor<f32>\n"
          "  func.return %0 : tensor<f32>\n}\n");
  assert_true(verify_module(cur->c, cur->m));
  assert_int_equal(parsed_errors(cur), 0);
}

/* ---------------------------------------------- IR built or edited by API */

static void test_use_before_definition(void **state) {
  (void)state;
  accepts("func.func @f(%a: tensor<f32>) -> tensor<f32> {\n"
          "  %0 = stablehlo.abs %a : tensor<f32>\n"
          "  %1 = stablehlo.negate %0 : tensor<f32>\n"
          "  func.return %1 : tensor<f32>\n}\n");
  Op *abs = func_op(cur->m, 0), *neg = func_op(cur->m, 1);
  /* make abs use neg's result: a use before the definition */
  op_set_operand(cur->c, abs, 0, &neg->results[0]);
  assert_ptr_equal(abs->operands[0], &neg->results[0]);
  assert_false(verify_module(cur->c, cur->m));
  assert_contains(parsed_diags(cur), "test.mlir:2:8: error: 'stablehlo.abs' op operand #0 does not dominate this use");
}

static void test_value_from_another_function(void **state) {
  (void)state;
  accepts("func.func @f(%a: tensor<f32>) -> tensor<f32> {\n"
          "  %0 = stablehlo.abs %a : tensor<f32>\n"
          "  func.return %0 : tensor<f32>\n}\n"
          "func.func @g(%b: tensor<f32>) -> tensor<f32> {\n"
          "  %0 = stablehlo.negate %b : tensor<f32>\n"
          "  func.return %0 : tensor<f32>\n}\n");
  Block *mb = op_body(cur->m->op);
  Op *f = mb->first, *g = f->next;
  Op *neg = op_body(g)->first;
  Op *abs = op_body(f)->first;
  /* g's negate now reads f's argument, then f's abs result */
  op_set_operand(cur->c, neg, 0, &op_body(f)->args[0]);
  assert_false(verify_module(cur->c, cur->m));
  assert_contains(parsed_diags(cur), "test.mlir:6:8: error: 'stablehlo.negate' op operand #0 does not dominate this use");
  op_set_operand(cur->c, neg, 0, &abs->results[0]);
  int before = parsed_errors(cur);
  assert_false(verify_module(cur->c, cur->m));
  assert_true(parsed_errors(cur) > before);
  /* and back: valid again */
  op_set_operand(cur->c, neg, 0, &op_body(g)->args[0]);
  before = parsed_errors(cur);
  assert_true(verify_module(cur->c, cur->m));
  assert_int_equal(parsed_errors(cur), before);
}

static void test_value_from_sibling_region(void **state) {
  (void)state;
  accepts("func.func @f(%p: tensor<i1>, %x: tensor<f32>) -> tensor<f32> {\n"
          "  %0 = \"stablehlo.if\"(%p) ({\n"
          "    %1 = stablehlo.negate %x : tensor<f32>\n"
          "    stablehlo.return %1 : tensor<f32>\n"
          "  }, {\n"
          "    %2 = stablehlo.abs %x : tensor<f32>\n"
          "    stablehlo.return %2 : tensor<f32>\n"
          "  }) : (tensor<i1>) -> tensor<f32>\n"
          "  func.return %0 : tensor<f32>\n}\n");
  Op *iff = func_op(cur->m, 0);
  Op *neg = iff->regions[0].blocks[0]->first;
  Op *abs = iff->regions[1].blocks[0]->first;
  op_set_operand(cur->c, abs, 0, &neg->results[0]);
  assert_false(verify_module(cur->c, cur->m));
  assert_contains(parsed_diags(cur), "test.mlir:6:10: error: 'stablehlo.abs' op operand #0 does not dominate this use");
  /* the if's own result is not visible inside its regions either */
  op_set_operand(cur->c, abs, 0, &iff->results[0]);
  assert_false(verify_module(cur->c, cur->m));
}

static void test_use_lists_follow_set_operand(void **state) {
  (void)state;
  accepts("func.func @f(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {\n"
          "  %0 = stablehlo.add %a, %a : tensor<f32>\n"
          "  func.return %0 : tensor<f32>\n}\n");
  Block *fb = op_body(first_func(cur->m));
  Op *add = func_op(cur->m, 0);
  int na = 0, nb = 0;
  for (Use *u = fb->args[0].uses; u; u = u->next) na++;
  assert_int_equal(na, 2);
  op_set_operand(cur->c, add, 1, &fb->args[1]);
  na = 0;
  for (Use *u = fb->args[0].uses; u; u = u->next) {
    na++;
    assert_int_equal(u->operand_index, 0);
  }
  for (Use *u = fb->args[1].uses; u; u = u->next) {
    nb++;
    assert_ptr_equal(u->user, add);
    assert_int_equal(u->operand_index, 1);
  }
  assert_int_equal(na, 1);
  assert_int_equal(nb, 1);
  assert_true(verify_module(cur->c, cur->m));
}

static void test_api_built_module(void **state) {
  (void)state;
  Context *c = ctx_new();
  char *buf = NULL;
  size_t len = 0;
  c->diag.out = open_memstream(&buf, &len);
  Loc nowhere = {0};
  Type *t = type_scalar_tensor(c, ELEM_F32), *ti = type_scalar_tensor(c, ELEM_I32);
  Op *fn, *abs;
  Module m = build_unary_module(c, "f", OP_ABS, t, &fn, &abs);
  Block *fb = abs->parent;
  Value *arg = &fb->args[0];
  Op *ret = abs->next;
  assert_true(verify_module(c, &m));
  assert_ptr_equal(module_lookup_func(&m, "f"), fn);
  /* a result of the wrong type: the return no longer matches */
  Op *bad = op_create(c, OP_CONVERT, NULL, nowhere, 1, &arg, 1, &ti, 0, NULL, 0);
  Value *br = &bad->results[0];
  op_set_operand(c, ret, 0, br);
  /* not yet in a block: insert it before the return */
  bad->parent = fb;
  bad->prev = abs;
  bad->next = ret;
  abs->next = bad;
  ret->prev = bad;
  assert_false(verify_module(c, &m));
  fflush(c->diag.out);
  assert_contains(buf, "<unknown>: error: 'func.return' op type of return operand 0 ('tensor<i32>') doesn't match "
                       "function result type ('tensor<f32>') in function @f");
  assert_int_equal(c->diag.nerrors, 1);
  fclose(c->diag.out);
  free(buf);
  ctx_free(c);
}

static void test_op_attr_helpers(void **state) {
  (void)state;
  accepts("func.func @f(%a: tensor<f32>) -> tensor<f32> {\n"
          "  %0 = stablehlo.abs %a {z = 1, b = 2, m = 3} : tensor<f32>\n"
          "  func.return %0 : tensor<f32>\n}\n");
  Op *abs = func_op(cur->m, 0);
  assert_int_equal(abs->nattrs, 3);
  assert_string_equal(abs->attrs[0].name, "b"); /* sorted */
  assert_int_equal(op_attr(abs, "m")->u.i, 3);
  assert_null(op_attr(abs, "a"));
  assert_null(op_attr(abs, "zz"));
  op_set_attr(cur->c, abs, "m", attr_i64(cur->c, 30));
  assert_int_equal(op_attr(abs, "m")->u.i, 30);
  assert_int_equal(abs->nattrs, 3);
  op_set_attr(cur->c, abs, "a", attr_unit(cur->c));
  assert_int_equal(abs->nattrs, 4);
  assert_string_equal(abs->attrs[0].name, "a");
  assert_non_null(op_attr(abs, "z"));
  assert_string_equal(op_info[OP_ABS].name, "stablehlo.abs");
  assert_int_equal(op_kind_from_name("stablehlo.abs", 13), OP_ABS);
  assert_int_equal(op_kind_from_name("stablehlo.ab", 12), OP_UNKNOWN);
  assert_int_equal(op_kind_from_name("stablehlo.absx", 13), OP_ABS);
  assert_int_equal(op_kind_from_name("chlo.top_k", 10), OP_CHLO_TOP_K);
  assert_true(op_info[OP_FUNC_RETURN].traits & TRAIT_TERMINATOR);
  assert_true(op_info[OP_ADD].traits & TRAIT_COMMUTATIVE);
  assert_false(op_info[OP_SUBTRACT].traits & TRAIT_COMMUTATIVE);
}

static void test_op_table_consistency(void **state) {
  (void)state;
  for (int k = 1; k < OP_COUNT; k++) {
    const OpInfo *i = &op_info[k];
    assert_int_equal(op_kind_from_name(i->name, strlen(i->name)), k);
    if (i->elems) assert_true(i->traits & (TRAIT_ELEMENTWISE | TRAIT_BROADCASTING));
    if (i->max_operands >= 0) assert_true(i->min_operands <= i->max_operands);
    assert_non_null(strchr(i->name, '.'));
  }
}

int run_verifier_tests(void) {
#define T(f) cmocka_unit_test_teardown(f, parsed_teardown)
  const struct CMUnitTest tests[] = {
      T(test_missing_func_return),
      T(test_empty_function_body),
      T(test_return_type_mismatch),
      T(test_return_count_mismatch),
      T(test_public_declaration),
      T(test_entry_block_mismatch),
      T(test_func_attributes),
      T(test_call_unknown_function),
      T(test_call_operand_count),
      T(test_call_operand_type),
      T(test_call_result_mismatch),
      T(test_call_needs_symbol),
      T(test_calls_valid),
      T(test_duplicate_symbol),
      T(test_op_at_module_level),
      T(test_nested_module),
      T(test_stablehlo_return_in_function),
      T(test_func_return_in_region),
      T(test_terminator_not_last),
      T(test_region_without_terminator),
      T(test_operand_and_result_counts),
      T(test_region_count),
      T(test_unknown_op),
      T(test_all_errors_reported),
      T(test_valid_modules),
      T(test_verify_twice),
      T(test_use_before_definition),
      T(test_value_from_another_function),
      T(test_value_from_sibling_region),
      T(test_use_lists_follow_set_operand),
      T(test_api_built_module),
      T(test_op_attr_helpers),
      T(test_op_table_consistency),
  };
#undef T
  return cmocka_run_group_tests_name("verifier", tests, NULL, NULL);
}
