/* Constant folding (passes/fold.c): integer ops at odd widths (i1, i2, i4,
 * ui4, si4) against hand-computed values, then exhaustively against a plain
 * int64 reference; what must not fold; the canonicalize pass keeps the
 * location of the op it replaces; refine-shapes' argument specs and its
 * dimension-variable substitution. */
#include "passes/fold.h"
#include "passes/pass.h"
#include "passes/refine.h"
#include "testsuite/unit/unit_tests.h"

/* kind(args) at element kind k (result kind out), expected to fold to want. */
static void fold_is(OpKind kind, ElemKind k, ElemKind out, int nargs, const int64_t *args, int64_t want) {
  FoldElemOp e = {.kind = kind, .in = k, .out = out};
  int64_t got = 0;
  if (!fold_int_scalar(&e, nargs, args, &got))
    fail_msg("'%s' on %s did not fold", op_info[kind].name, elem_name(k));
  if (got != want)
    fail_msg("'%s' on %s (%lld, %lld): got %lld, want %lld", op_info[kind].name, elem_name(k),
             (long long)args[0], nargs > 1 ? (long long)args[1] : 0LL, (long long)got, (long long)want);
}

static void bin(OpKind kind, ElemKind k, int64_t a, int64_t b, int64_t want) {
  int64_t args[2] = {a, b};
  fold_is(kind, k, k, 2, args, want);
}

static void un(OpKind kind, ElemKind k, int64_t a, int64_t want) { fold_is(kind, k, k, 1, &a, want); }

static void no_fold(OpKind kind, ElemKind k, int64_t a, int64_t b) {
  FoldElemOp e = {.kind = kind, .in = k, .out = k};
  int64_t args[2] = {a, b}, got;
  if (fold_int_scalar(&e, 2, args, &got))
    fail_msg("'%s' on %s (%lld, %lld) folded to %lld", op_info[kind].name, elem_name(k), (long long)a,
             (long long)b, (long long)got);
}

static void test_i4_by_hand(void **state) {
  (void)state;
  bin(OP_ADD, ELEM_I4, 7, 1, -8);
  bin(OP_ADD, ELEM_I4, -8, -1, 7);
  bin(OP_SUBTRACT, ELEM_I4, -8, 1, 7);
  bin(OP_MULTIPLY, ELEM_I4, 5, 3, -1); /* 15 = 0b1111 */
  bin(OP_MULTIPLY, ELEM_I4, -8, -1, -8);
  bin(OP_DIVIDE, ELEM_I4, -7, 2, -3);
  bin(OP_REMAINDER, ELEM_I4, -7, 2, -1);
  bin(OP_REMAINDER, ELEM_I4, 7, -3, 1);
  bin(OP_SHIFT_LEFT, ELEM_I4, 3, 2, -4);
  bin(OP_SHIFT_LEFT, ELEM_I4, 1, 4, 0);
  bin(OP_SHIFT_RIGHT_ARITHMETIC, ELEM_I4, -8, 1, -4);
  bin(OP_SHIFT_RIGHT_ARITHMETIC, ELEM_I4, -8, 4, -1);
  bin(OP_SHIFT_RIGHT_ARITHMETIC, ELEM_I4, 7, -1, 0);
  bin(OP_SHIFT_RIGHT_LOGICAL, ELEM_I4, -8, 1, 4);
  bin(OP_SHIFT_RIGHT_LOGICAL, ELEM_I4, -1, 3, 1);
  bin(OP_MAXIMUM, ELEM_I4, -8, 7, 7);
  bin(OP_MINIMUM, ELEM_I4, -8, 7, -8);
  bin(OP_AND, ELEM_I4, -2, 7, 6);
  bin(OP_XOR, ELEM_I4, -1, 5, -6);
  un(OP_NOT, ELEM_I4, 5, -6);
  un(OP_NEGATE, ELEM_I4, -8, -8);
  un(OP_ABS, ELEM_I4, -8, -8);
  un(OP_ABS, ELEM_I4, -3, 3);
  un(OP_SIGN, ELEM_I4, -3, -1);
  un(OP_POPCNT, ELEM_I4, -1, 4);
  un(OP_POPCNT, ELEM_I4, -8, 1);
  un(OP_COUNT_LEADING_ZEROS, ELEM_I4, 1, 3);
  un(OP_COUNT_LEADING_ZEROS, ELEM_I4, 0, 4);
  un(OP_COUNT_LEADING_ZEROS, ELEM_I4, -1, 0);
  /* si4 is the same arithmetic */
  bin(OP_ADD, ELEM_SI4, 7, 7, -2);
  bin(OP_MULTIPLY, ELEM_SI4, -3, 3, 7); /* -9 wraps to 7 */
}

static void test_ui4_i2_i1_by_hand(void **state) {
  (void)state;
  bin(OP_ADD, ELEM_UI4, 15, 1, 0);
  bin(OP_SUBTRACT, ELEM_UI4, 0, 1, 15);
  bin(OP_MULTIPLY, ELEM_UI4, 15, 15, 1); /* 225 = 14 * 16 + 1 */
  bin(OP_DIVIDE, ELEM_UI4, 15, 4, 3);
  bin(OP_SHIFT_RIGHT_ARITHMETIC, ELEM_UI4, 9, 1, 12); /* sign-fills the top bit */
  bin(OP_SHIFT_RIGHT_LOGICAL, ELEM_UI4, 9, 1, 4);
  bin(OP_SHIFT_LEFT, ELEM_UI4, 9, 1, 2);
  bin(OP_MAXIMUM, ELEM_UI4, 15, 7, 15); /* unsigned order */
  un(OP_NEGATE, ELEM_UI4, 1, 15);
  un(OP_NOT, ELEM_UI4, 0, 15);
  un(OP_COUNT_LEADING_ZEROS, ELEM_UI4, 8, 0);

  bin(OP_ADD, ELEM_I2, 1, 1, -2);
  bin(OP_MULTIPLY, ELEM_I2, -2, -1, -2);
  bin(OP_SUBTRACT, ELEM_I2, -2, 1, 1);
  un(OP_COUNT_LEADING_ZEROS, ELEM_I2, 0, -2); /* 2 does not fit in i2 */
  un(OP_NEGATE, ELEM_I2, -2, -2);

  bin(OP_ADD, ELEM_I1, 1, 1, 1); /* boolean add is or */
  bin(OP_MULTIPLY, ELEM_I1, 1, 0, 0);
  bin(OP_XOR, ELEM_I1, 1, 1, 0);
  bin(OP_MAXIMUM, ELEM_I1, 0, 1, 1);
  bin(OP_MINIMUM, ELEM_I1, 0, 1, 0);
  un(OP_NOT, ELEM_I1, 1, 0);
  un(OP_NOT, ELEM_I1, 0, 1);
  bin(OP_ADD, ELEM_UI1, 1, 1, 0); /* ui1 is an unsigned number: wraps */

  /* compare gives i1; convert wraps, except to i1 (nonzero is true) */
  int64_t lt[2] = {15, 7};
  FoldElemOp cmp = {.kind = OP_COMPARE, .direction = 5, .in = ELEM_UI4, .out = ELEM_I1};
  int64_t got = -1;
  assert_true(fold_int_scalar(&cmp, 2, lt, &got));
  assert_int_equal(got, 0);
  cmp.in = ELEM_I4; /* 15 as i4 is -1 */
  assert_true(fold_int_scalar(&cmp, 2, lt, &got));
  assert_int_equal(got, 1);
  int64_t v = 12;
  fold_is(OP_CONVERT, ELEM_UI4, ELEM_I4, 1, &v, -4);
  fold_is(OP_CONVERT, ELEM_UI4, ELEM_I2, 1, &v, 0);
  fold_is(OP_CONVERT, ELEM_UI4, ELEM_I1, 1, &v, 1);
  v = -1;
  fold_is(OP_CONVERT, ELEM_I4, ELEM_UI4, 1, &v, 15);
  fold_is(OP_CONVERT, ELEM_I2, ELEM_I64, 1, &v, -1);
  v = -8;
  fold_is(OP_CONVERT, ELEM_I4, ELEM_F32, 1, &v, 0xC1000000); /* f32 bits of -8.0 */
  int64_t sel[3] = {0, 5, -3};
  fold_is(OP_SELECT, ELEM_I4, ELEM_I4, 3, sel, -3);
  int64_t clamp[3] = {-2, -8, 3};
  fold_is(OP_CLAMP, ELEM_I4, ELEM_I4, 3, clamp, -2);
}

static void test_not_folded(void **state) {
  (void)state;
  no_fold(OP_DIVIDE, ELEM_I4, 5, 0);
  no_fold(OP_REMAINDER, ELEM_I4, 5, 0);
  no_fold(OP_DIVIDE, ELEM_I4, -8, -1);
  no_fold(OP_REMAINDER, ELEM_I4, -8, -1);
  no_fold(OP_DIVIDE, ELEM_I64, INT64_MIN, -1);
  no_fold(OP_DIVIDE, ELEM_UI4, 15, 0);
  no_fold(OP_POWER, ELEM_I4, 2, 2);
  bin(OP_DIVIDE, ELEM_UI4, 8, 15, 0); /* 15 is not -1 for an unsigned type */
  bin(OP_DIVIDE, ELEM_I4, -7, -1, 7);
}

/* Reference: v wrapped to width w, signed or not. */
static int64_t wrap(int64_t v, int w, bool is_signed) {
  uint64_t u = (uint64_t)v & (((uint64_t)1 << w) - 1);
  if (is_signed && (u >> (w - 1)) & 1) u |= ~(((uint64_t)1 << w) - 1);
  return (int64_t)u;
}

/* Every pair of i2, i4, ui4 and ui2 values, against int64 arithmetic. */
static void test_exhaustive_small(void **state) {
  (void)state;
  const ElemKind kinds[] = {ELEM_I2, ELEM_I4, ELEM_UI2, ELEM_UI4, ELEM_SI4};
  for (size_t ki = 0; ki < sizeof kinds / sizeof kinds[0]; ki++) {
    ElemKind k = kinds[ki];
    int w = elem_bits(k);
    bool sg = !elem_is_unsigned(k);
    int64_t lo = sg ? -(1 << (w - 1)) : 0, hi = sg ? (1 << (w - 1)) - 1 : (1 << w) - 1;
    for (int64_t a = lo; a <= hi; a++)
      for (int64_t b = lo; b <= hi; b++) {
        bin(OP_ADD, k, a, b, wrap(a + b, w, sg));
        bin(OP_SUBTRACT, k, a, b, wrap(a - b, w, sg));
        bin(OP_MULTIPLY, k, a, b, wrap(a * b, w, sg));
        bin(OP_AND, k, a, b, wrap(a & b, w, sg));
        bin(OP_OR, k, a, b, wrap(a | b, w, sg));
        bin(OP_MAXIMUM, k, a, b, a > b ? a : b);
        if (b != 0 && !(sg && b == -1 && a == lo)) {
          bin(OP_DIVIDE, k, a, b, wrap(a / b, w, sg));
          bin(OP_REMAINDER, k, a, b, wrap(a % b, w, sg));
        }
        bool out = b < 0 || b >= w;
        int64_t ua = a & ((1 << w) - 1), sa = wrap(a, w, true);
        bin(OP_SHIFT_LEFT, k, a, b, out ? 0 : wrap((int64_t)((uint64_t)a << b), w, sg));
        bin(OP_SHIFT_RIGHT_LOGICAL, k, a, b, out ? 0 : wrap(ua >> b, w, sg));
        int64_t floor_shift = sa >= 0 ? sa >> (out ? 0 : b) : ~(~sa >> (out ? 0 : b));
        bin(OP_SHIFT_RIGHT_ARITHMETIC, k, a, b, wrap(out ? (sa < 0 ? -1 : 0) : floor_shift, w, sg));
      }
  }
}

/* The constant that replaces a folded op takes its location. */
static void test_pass_keeps_location(void **state) {
  (void)state;
  cur = parse_text("func.func @f() -> tensor<2xi4> {\n"
                   "  %a = stablehlo.constant dense<[7, 1]> : tensor<2xi4>\n"
                   "  %b = stablehlo.add %a, %a : tensor<2xi4>\n"
                   "  return %b : tensor<2xi4>\n"
                   "}\n");
  assert_true(parsed_verify(cur));
  PassContext pc = {.c = cur->c, .m = cur->m};
  assert_true(pass_canonicalize(&pc));
  Op *k = func_op(cur->m, 0);
  assert_int_equal(k->kind, OP_CONSTANT);
  assert_int_equal(k->loc.line, 3);
  assert_int_equal(k->loc.col, 8);
  assert_int_equal(func_op(cur->m, 1)->kind, OP_FUNC_RETURN); /* the old constant is gone */
  const Attr *v = op_attr(k, "value");
  assert_int_equal(dense_get_int(v, 0), -2);
  assert_int_equal(dense_get_int(v, 1), 2);
  char *text = parsed_print(cur, false);
  assert_contains(text, "dense<[-2, 2]> : tensor<2xi4>");
  free(text);
}

/* refine_parse_arg: types, a dimension variable's value, a literal's type. */
static void test_refine_parse_arg(void **state) {
  (void)state;
  RefineArg a;
  char err[256];
  assert_true(refine_parse_arg("3x4xf32", &a, err, sizeof err));
  assert_true(a.known && !a.has_value && a.elem == ELEM_F32 && a.rank == 2 && a.dims[0] == 3 && a.dims[1] == 4);
  assert_true(refine_parse_arg("i64=3", &a, err, sizeof err));
  assert_true(a.rank == 0 && a.elem == ELEM_I64 && a.has_value && a.value == 3);
  assert_true(refine_parse_arg("2x2xbf16=1,2,3,4", &a, err, sizeof err));
  assert_true(a.rank == 2 && a.elem == ELEM_BF16 && !a.has_value);
  assert_true(refine_parse_arg("f32=1.5", &a, err, sizeof err));
  assert_true(a.rank == 0 && !a.has_value);
  assert_true(refine_parse_arg("0xi1", &a, err, sizeof err));
  assert_true(a.rank == 1 && a.dims[0] == 0 && a.elem == ELEM_I1);
  assert_false(refine_parse_arg("3xq8", &a, err, sizeof err));
  assert_contains(err, "bad shape '3xq8'");
  assert_false(refine_parse_arg("x4xf32", &a, err, sizeof err));
  assert_false(refine_parse_arg("99999999999999999999x2xf32", &a, err, sizeof err));
}

/* refine_module: the given types replace '?', the dimension variable's
 * value its uses, and the shape computation folds into a static iota. */
static void test_refine_module(void **state) {
  (void)state;
  cur = parse_text("func.func @main(%n: tensor<i64>, %x: tensor<?xf32>) -> (tensor<?xi64>, tensor<?xf32>) {\n"
                   "  %s = stablehlo.reshape %n : (tensor<i64>) -> tensor<1xi64>\n"
                   "  %i = stablehlo.dynamic_iota %s, dim = 0 : (tensor<1xi64>) -> tensor<?xi64>\n"
                   "  %y = stablehlo.abs %x : tensor<?xf32>\n"
                   "  return %i, %y : tensor<?xi64>, tensor<?xf32>\n"
                   "}\n");
  assert_true(parsed_verify(cur));
  int arg;
  assert_true(refine_needed(cur->m, NULL, &arg));
  assert_int_equal(arg, 1);
  RefineArg args[2];
  char err[64];
  assert_true(refine_parse_arg("i64=5", &args[0], err, sizeof err));
  assert_true(refine_parse_arg("5xf32", &args[1], err, sizeof err));
  RefineSpec spec = {NULL, 2, args};
  assert_true(refine_module(cur->c, cur->m, &spec));
  assert_false(refine_needed(cur->m, NULL, &arg));
  char *text = parsed_print(cur, false);
  assert_contains(text, "@main(%arg0: tensor<i64>, %arg1: tensor<5xf32>) -> (tensor<5xi64>, tensor<5xf32>)");
  assert_contains(text, "stablehlo.iota dim = 0 : tensor<5xi64>");
  assert_contains(text, "stablehlo.abs %arg1 : tensor<5xf32>");
  free(text);
  assert_true(verify_module(cur->c, cur->m));
}

int run_fold_tests(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_i4_by_hand),
      cmocka_unit_test(test_ui4_i2_i1_by_hand),
      cmocka_unit_test(test_not_folded),
      cmocka_unit_test(test_exhaustive_small),
      cmocka_unit_test_teardown(test_pass_keeps_location, parsed_teardown),
      cmocka_unit_test(test_refine_parse_arg),
      cmocka_unit_test_teardown(test_refine_module, parsed_teardown),
  };
  return cmocka_run_group_tests_name("fold", tests, NULL, NULL);
}
