/* Types: construction and interning, parsing and printing, element kinds. */
#include "frontend/parse_internal.h"
#include "ir/quant.h"
#include "testsuite/unit/unit_tests.h"

/* A context with captured diagnostics, for parsing bare types. */
typedef struct TCtx {
  Context *c;
  char *diag;
  size_t diag_len;
  FILE *out;
  SourceFile files[16];
  int nfiles;
} TCtx;

static int setup(void **state) {
  TCtx *t = calloc(1, sizeof *t);
  t->c = ctx_new();
  t->out = open_memstream(&t->diag, &t->diag_len);
  t->c->diag.out = t->out;
  t->c->diag.show_source = false;
  *state = t;
  return 0;
}

static int teardown(void **state) {
  TCtx *t = *state;
  fclose(t->out);
  free(t->diag);
  ctx_free(t->c);
  free(t);
  return 0;
}

static const char *diags(TCtx *t) {
  fflush(t->out);
  return t->diag ? t->diag : "";
}

/* Parse text as one type; NULL (with a diagnostic) if it is not one, or if
 * tokens are left over. */
static Type *ptype(TCtx *t, const char *text) {
  SourceFile *f = &t->files[t->nfiles++ % 16];
  *f = (SourceFile){"type.mlir", text, strlen(text)};
  Parser p = {.c = t->c, .file = f};
  lexer_init(&p.lex, f, text, text + f->len, 1);
  p_next(&p);
  Type *ty = parse_type(&p);
  bool trailing = ty && p.tok.kind != TOK_EOF;
  if (trailing) diag_report(t->c, p.tok.loc, SEV_ERROR, "trailing tokens after type");
  bool error = p.error;
  table_free(&p.type_memo, NULL);
  vec_free(&p.resources);
  vec_free(&p.aliases);
  return error || trailing ? NULL : ty;
}

static const char *tstr(TCtx *t, const Type *ty) { return type_to_string(t->c, ty); }

static void test_elem_types_interned(void **state) {
  TCtx *t = *state;
  assert_ptr_equal(type_elem(t->c, ELEM_F32), type_elem(t->c, ELEM_F32));
  assert_ptr_not_equal(type_elem(t->c, ELEM_F32), type_elem(t->c, ELEM_F64));
  assert_ptr_not_equal(type_elem(t->c, ELEM_I8), type_elem(t->c, ELEM_UI8));
  assert_int_equal(type_elem(t->c, ELEM_BF16)->kind, TY_ELEM);
  assert_int_equal(type_elem_kind(type_elem(t->c, ELEM_BF16)), ELEM_BF16);
  /* parsing gives the same interned object */
  assert_ptr_equal(ptype(t, "f32"), type_elem(t->c, ELEM_F32));
}

static void test_tensor_interned(void **state) {
  TCtx *t = *state;
  int64_t d1[] = {2, 3}, d2[] = {2, 3}, d3[] = {3, 2};
  Type *a = type_tensor(t->c, ELEM_F32, 2, d1, NULL);
  Type *b = type_tensor(t->c, ELEM_F32, 2, d2, NULL);
  Type *c = type_tensor(t->c, ELEM_F32, 2, d3, NULL);
  Type *e = type_tensor(t->c, ELEM_F16, 2, d1, NULL);
  assert_ptr_equal(a, b);
  assert_ptr_not_equal(a, c);
  assert_ptr_not_equal(a, e);
  assert_ptr_not_equal(a->dims, d1); /* dims are copied into the arena */
  d1[0] = 7;
  assert_int_equal(a->dims[0], 2);
  assert_ptr_equal(ptype(t, "tensor<2x3xf32>"), a);
  assert_string_equal(tstr(t, a), "tensor<2x3xf32>");
}

static void test_many_types_interned(void **state) {
  TCtx *t = *state;
  /* Enough types to grow the hash table several times. */
  Type *first[3000];
  for (int64_t i = 0; i < 3000; i++) first[i] = type_tensor(t->c, ELEM_I32, 1, &i, NULL);
  for (int64_t i = 0; i < 3000; i++) {
    int64_t d = i;
    assert_ptr_equal(type_tensor(t->c, ELEM_I32, 1, &d, NULL), first[i]);
    assert_int_equal(first[i]->dims[0], i);
  }
}

static void test_scalar_tensor(void **state) {
  TCtx *t = *state;
  Type *s = type_scalar_tensor(t->c, ELEM_I1);
  assert_ptr_equal(s, type_tensor(t->c, ELEM_I1, 0, NULL, NULL));
  assert_ptr_equal(s, ptype(t, "tensor<i1>"));
  assert_int_equal(s->rank, 0);
  assert_true(type_is_static(s));
  int64_t n = -1;
  assert_true(type_tensor_num_elements(s, &n));
  assert_int_equal(n, 1);
  assert_ptr_not_equal(s, type_elem(t->c, ELEM_I1));
  assert_string_equal(tstr(t, s), "tensor<i1>");
}

static void test_dynamic_dims(void **state) {
  TCtx *t = *state;
  Type *ty = ptype(t, "tensor<?x4x?xbf16>");
  assert_non_null(ty);
  assert_int_equal(ty->rank, 3);
  assert_true(ty->dims[0] == DIM_DYNAMIC);
  assert_int_equal(ty->dims[1], 4);
  assert_true(ty->dims[2] == DIM_DYNAMIC);
  assert_false(type_is_static(ty));
  int64_t n = 123;
  assert_false(type_tensor_num_elements(ty, &n));
  assert_int_equal(n, 123);
  assert_string_equal(tstr(t, ty), "tensor<?x4x?xbf16>");
}

static void test_unranked(void **state) {
  TCtx *t = *state;
  Type *u = ptype(t, "tensor<*xf32>");
  assert_non_null(u);
  assert_int_equal(u->rank, -1);
  assert_ptr_equal(u, type_tensor(t->c, ELEM_F32, -1, NULL, NULL));
  assert_ptr_not_equal(u, type_scalar_tensor(t->c, ELEM_F32));
  assert_false(type_is_static(u));
  assert_true(type_is_tensor(u));
  assert_string_equal(tstr(t, u), "tensor<*xf32>");
}

static void test_zero_sized_tensor(void **state) {
  TCtx *t = *state;
  Type *ty = ptype(t, "tensor<0x5xi8>");
  assert_non_null(ty);
  int64_t n = -1;
  assert_true(type_tensor_num_elements(ty, &n));
  assert_int_equal(n, 0);
  assert_true(type_is_static(ty));
}

static void test_bounds_encoding(void **state) {
  TCtx *t = *state;
  Type *a = ptype(t, "tensor<?x4xf32, #stablehlo.bounds<8, ?>>");
  Type *b = ptype(t, "tensor<?x4xf32, #stablehlo.bounds<8, ?>>");
  Type *c = ptype(t, "tensor<?x4xf32, #stablehlo.bounds<9, ?>>");
  Type *plain = ptype(t, "tensor<?x4xf32>");
  assert_non_null(a);
  assert_non_null(c);
  assert_ptr_equal(a, b); /* equal encodings intern to one type */
  assert_ptr_not_equal(a, c);
  assert_ptr_not_equal(a, plain);
  assert_null(plain->encoding);
  const Attr *enc = a->encoding;
  assert_non_null(enc);
  assert_int_equal(enc->kind, ATTR_DIALECT);
  assert_string_equal(enc->u.dialect.name, "stablehlo.bounds");
  assert_int_equal(enc->u.dialect.n, 2);
  assert_null(enc->u.dialect.params[0].name);
  assert_int_equal(enc->u.dialect.params[0].value->kind, ATTR_INT);
  assert_int_equal(enc->u.dialect.params[0].value->u.i, 8);
  assert_true(enc->u.dialect.params[1].value->u.i == DIM_DYNAMIC);
  /* the encoding is printed after the element type */
  assert_contains(tstr(t, a), "tensor<?x4xf32, #stablehlo.bounds<8, ");
}

static void test_tuple(void **state) {
  TCtx *t = *state;
  Type *ty = ptype(t, "tuple<tensor<f32>, tuple<i32, !stablehlo.token>>");
  assert_non_null(ty);
  assert_int_equal(ty->kind, TY_TUPLE);
  assert_int_equal(ty->ninputs, 2);
  assert_ptr_equal(ty->inputs[0], type_scalar_tensor(t->c, ELEM_F32));
  assert_int_equal(ty->inputs[1]->kind, TY_TUPLE);
  assert_ptr_equal(ty->inputs[1]->inputs[1], type_token(t->c));
  Type *parts[2] = {type_elem(t->c, ELEM_I32), type_token(t->c)};
  assert_ptr_equal(ty->inputs[1], type_tuple(t->c, 2, parts));
  assert_string_equal(tstr(t, ty), "tuple<tensor<f32>, tuple<i32, !stablehlo.token>>");
  Type *empty = ptype(t, "tuple<>");
  assert_non_null(empty);
  assert_int_equal(empty->ninputs, 0);
  assert_ptr_equal(empty, type_tuple(t->c, 0, NULL));
  assert_string_equal(tstr(t, empty), "tuple<>");
}

static void test_function_types(void **state) {
  TCtx *t = *state;
  Type *f = ptype(t, "(tensor<f32>, i32) -> tensor<2xf32>");
  assert_non_null(f);
  assert_int_equal(f->kind, TY_FUNC);
  assert_int_equal(f->ninputs, 2);
  assert_int_equal(f->nresults, 1);
  assert_string_equal(tstr(t, f), "(tensor<f32>, i32) -> tensor<2xf32>");
  Type *g = ptype(t, "() -> (f32, f64)");
  assert_int_equal(g->ninputs, 0);
  assert_int_equal(g->nresults, 2);
  assert_string_equal(tstr(t, g), "() -> (f32, f64)");
  Type *h = ptype(t, "() -> ()");
  assert_int_equal(h->nresults, 0);
  assert_string_equal(tstr(t, h), "() -> ()");
  /* a function-typed result needs parentheses to read back */
  Type *k = ptype(t, "() -> (() -> f32)");
  assert_non_null(k);
  assert_string_equal(tstr(t, k), "() -> (() -> f32)");
  assert_ptr_equal(ptype(t, tstr(t, k)), k);
  Type *in[1] = {type_elem(t->c, ELEM_F32)};
  assert_ptr_equal(type_func(t->c, 0, NULL, 1, in), k->results[0]);
}

static void test_complex(void **state) {
  TCtx *t = *state;
  assert_ptr_equal(ptype(t, "complex<f32>"), type_elem(t->c, ELEM_C64));
  assert_ptr_equal(ptype(t, "complex<f64>"), type_elem(t->c, ELEM_C128));
  Type *ct = ptype(t, "tensor<3xcomplex<f64>>");
  assert_non_null(ct);
  assert_int_equal(ct->elem, ELEM_C128);
  assert_string_equal(tstr(t, ct), "tensor<3xcomplex<f64>>");
  assert_int_equal(elem_complex_part(ELEM_C64), ELEM_F32);
  assert_int_equal(elem_complex_part(ELEM_C128), ELEM_F64);
  assert_int_equal(elem_storage_bytes(ELEM_C128), 16);
  assert_true(elem_is_complex(ELEM_C64));
  assert_false(elem_is_float(ELEM_C64));
}

static void test_complex_unsupported_part(void **state) {
  TCtx *t = *state;
  assert_null(ptype(t, "complex<f16>"));
  assert_contains(diags(t), "only complex<f32> and complex<f64> are supported");
}

static void test_token_none_opaque(void **state) {
  TCtx *t = *state;
  assert_ptr_equal(ptype(t, "!stablehlo.token"), type_token(t->c));
  assert_ptr_equal(ptype(t, "none"), type_none(t->c));
  Type *o = ptype(t, "!foo.bar<1, <2>>");
  assert_non_null(o);
  assert_int_equal(o->kind, TY_OPAQUE);
  assert_string_equal(o->text, "!foo.bar<1, <2>>");
  assert_ptr_equal(o, type_opaque(t->c, "!foo.bar<1, <2>>", 16));
  assert_string_equal(tstr(t, o), "!foo.bar<1, <2>>");
}

static void test_quantized_element(void **state) {
  TCtx *t = *state;
  Type *q = ptype(t, "tensor<2x!quant.uniform<i8:f32, 5.000000e-01:-3>>");
  assert_non_null(q);
  assert_int_equal(q->kind, TY_TENSOR);
  assert_non_null(q->elem_opaque);
  assert_int_equal(q->elem_opaque->kind, TY_OPAQUE);
  assert_int_equal(q->rank, 1);
  assert_string_equal(tstr(t, q), "tensor<2x!quant.uniform<i8:f32, 5.000000e-01:-3>>");
  assert_ptr_equal(ptype(t, "tensor<2x!quant.uniform<i8:f32, 5.000000e-01:-3>>"), q);
}

/* The descriptor behind an interned quantized type, and its interning by
 * value: spellings of one type give one Type. */
static void test_quant_descriptor(void **state) {
  TCtx *t = *state;
  Type *a = ptype(t, "tensor<3x2x!quant.uniform<u8<1:200>:bf16:1, {0.5:3, 0.25:1}>>");
  assert_non_null(a);
  const QuantType *q = type_quant(a);
  assert_non_null(q);
  assert_false(q->is_signed);
  assert_int_equal(q->bits, 8);
  assert_int_equal(q->storage, ELEM_UI8);
  assert_int_equal(q->storage_min, 1);
  assert_int_equal(q->storage_max, 200);
  assert_int_equal(q->expressed, ELEM_BF16);
  assert_int_equal(q->axis, 1);
  assert_int_equal(q->nscales, 2);
  assert_true(q->scales[0] == 0.5 && q->scales[1] == 0.25);
  assert_int_equal(q->zero_points[0], 3);
  assert_int_equal(q->zero_points[1], 1);
  assert_true(type_is_per_axis(a));
  assert_ptr_equal(type_quant_storage(t->c, a), ptype(t, "tensor<3x2xui8>"));
  assert_ptr_equal(ptype(t, "tensor<3x2x!quant.uniform<u8<1:200>:bf16:1, {5.0e-1:3,2.5e-1:1}>>"), a);
  assert_null(quant_check_tensor(a));
  assert_non_null(quant_check_tensor(ptype(t, "tensor<3x3x!quant.uniform<u8:bf16:1, {0.5, 0.25}>>")));
  Type *i4 = ptype(t, "!quant.uniform<i4:f32, 1.0>");
  assert_int_equal(type_quant(i4)->storage_min, -8);
  assert_int_equal(type_quant(i4)->storage_max, 7);
  assert_null(type_quant(ptype(t, "tensor<2xi8>")));
}

/* quant_parse reports where a malformed type goes wrong. */
static void test_quant_parse_errors(void **state) {
  (void)state;
  static const struct {
    const char *text, *msg;
    size_t off;
  } bad[] = {
      {"!quant.uniform<i8:f32>", "expected ','", 21},
      {"!quant.uniform<x8:f32, 1.0>", "illegal storage type prefix", 15},
      {"!quant.uniform<i8:f32, -1.0>", "out of expressed type range", 23},
      {"!quant.uniform<i8:f32:0, {1.0,}>", "expected floating point scale", 30},
      {"!quant.uniform<i8:f32, 1.0:1:2>", "expected '>'", 28},
      {"!quant.uniform<i8<5:5>:f32, 1.0>", "illegal storage min and storage max", 18},
  };
  Arena a = {0};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    QuantType q;
    size_t off = 0;
    char err[120];
    assert_false(quant_parse(&a, bad[i].text, strlen(bad[i].text), &q, &off, err, sizeof err));
    if (!strstr(err, bad[i].msg)) fail_msg("%s: got '%s'", bad[i].text, err);
    assert_int_equal(off, bad[i].off);
  }
  arena_free_all(&a);
}

static void test_every_elem_name_round_trips(void **state) {
  TCtx *t = *state;
  for (int k = 0; k < ELEM_COUNT; k++) {
    const char *name = elem_name((ElemKind)k);
    ElemKind back = ELEM_COUNT;
    assert_true(elem_from_name(name, strlen(name), &back));
    assert_int_equal(back, k);
    /* and through the type parser and printer, as element and in a tensor */
    Type *e = ptype(t, name);
    if (!e) fail_msg("element type '%s' does not parse: %s", name, diags(t));
    assert_ptr_equal(e, type_elem(t->c, (ElemKind)k));
    assert_string_equal(tstr(t, e), name);
    char buf[64];
    snprintf(buf, sizeof buf, "tensor<2x%s>", name);
    Type *ten = ptype(t, buf);
    assert_non_null(ten);
    assert_int_equal(ten->elem, k);
    assert_string_equal(tstr(t, ten), buf);
  }
}

static void test_elem_name_prefixes_rejected(void **state) {
  (void)state;
  ElemKind k;
  assert_false(elem_from_name("i3", 2, &k));
  assert_false(elem_from_name("f31", 3, &k));
  assert_false(elem_from_name("", 0, &k));
  assert_false(elem_from_name("complex<f16>", 12, &k));
  assert_false(elem_from_name("F32", 3, &k));
  /* the length counts: "f32x" of length 3 is f32, of length 4 is nothing */
  assert_true(elem_from_name("f32x", 3, &k));
  assert_int_equal(k, ELEM_F32);
  assert_false(elem_from_name("f32x", 4, &k));
}

static void test_elem_properties(void **state) {
  (void)state;
  for (int k = 0; k < ELEM_COUNT; k++) {
    int bits = elem_bits((ElemKind)k);
    int bytes = elem_storage_bytes((ElemKind)k);
    int want = 1; /* the smallest of 1, 2, 4, 8, 16 bytes that holds it */
    while (want * 8 < bits) want *= 2;
    assert_int_equal(bytes, want);
    int classes = elem_is_int((ElemKind)k) + elem_is_float((ElemKind)k) + elem_is_complex((ElemKind)k) +
                  (k == ELEM_INDEX);
    assert_int_equal(classes, 1);
  }
  assert_int_equal(elem_bits(ELEM_F8E4M3FN), 8);
  assert_int_equal(elem_bits(ELEM_F4E2M1FN), 4);
  assert_int_equal(elem_storage_bytes(ELEM_F6E2M3FN), 1);
  assert_int_equal(elem_storage_bytes(ELEM_TF32), 4);
  assert_int_equal(elem_storage_bytes(ELEM_I1), 1);
  assert_true(elem_is_unsigned(ELEM_UI32));
  assert_false(elem_is_unsigned(ELEM_I32));
  assert_false(elem_is_unsigned(ELEM_SI32));
  assert_int_equal(elem_class(ELEM_SI8), EC_SINT);
  assert_int_equal(elem_class(ELEM_I8), EC_INT);
  assert_int_equal(elem_class(ELEM_INDEX), EC_INDEX);
}

static void test_num_elements_overflow(void **state) {
  TCtx *t = *state;
  int64_t n = 0;
  int64_t ok_dims[] = {(int64_t)1 << 31, (int64_t)1 << 31};
  assert_true(type_tensor_num_elements(type_tensor(t->c, ELEM_F32, 2, ok_dims, NULL), &n));
  assert_true(n == (int64_t)1 << 62);
  int64_t big[] = {(int64_t)1 << 32, (int64_t)1 << 32};
  n = 5;
  assert_false(type_tensor_num_elements(type_tensor(t->c, ELEM_F32, 2, big, NULL), &n));
  int64_t edge[] = {INT64_MAX, 1};
  assert_true(type_tensor_num_elements(type_tensor(t->c, ELEM_F32, 2, edge, NULL), &n));
  assert_true(n == INT64_MAX);
  int64_t over[] = {INT64_MAX / 2 + 1, 2};
  assert_false(type_tensor_num_elements(type_tensor(t->c, ELEM_F32, 2, over, NULL), &n));
  /* and through the parser: a type may be huge, only its count overflows */
  Type *huge = ptype(t, "tensor<4294967296x4294967296xf32>");
  assert_non_null(huge);
  assert_false(type_tensor_num_elements(huge, &n));
  assert_false(type_tensor_num_elements(type_elem(t->c, ELEM_F32), &n));
}

static void test_dim_too_large(void **state) {
  TCtx *t = *state;
  assert_null(ptype(t, "tensor<99999999999999999999x2xf32>"));
  assert_contains(diags(t), "does not fit in 64 bits");
}

static void test_rank_limit(void **state) {
  TCtx *t = *state;
  char buf[512] = "tensor<";
  for (int i = 0; i < 64; i++) strcat(buf, "1x");
  strcat(buf, "f32>");
  Type *ty = ptype(t, buf);
  assert_non_null(ty);
  assert_int_equal(ty->rank, 64);
  char buf2[512] = "tensor<";
  for (int i = 0; i < 65; i++) strcat(buf2, "1x");
  strcat(buf2, "f32>");
  assert_null(ptype(t, buf2));
  assert_contains(diags(t), "rank above 64");
}

/* type_shape_check: the one place the text parser and the bytecode
 * readers check a tensor's rank, dims and bounds. */
static void test_shape_check(void **state) {
  TCtx *t = *state;
  Context *c = t->c;
  int64_t dims[65] = {0};
  assert_null(type_shape_check(c, 64, dims, NULL));
  assert_non_null(strstr(type_shape_check(c, 65, dims, NULL), "above 64"));
  int64_t neg[2] = {2, -3};
  assert_non_null(strstr(type_shape_check(c, 2, neg, NULL), "negative dimension size -3"));
  int64_t dyn[2] = {DIM_DYNAMIC, 3};
  NamedAttr ok[2] = {{NULL, attr_i64(c, 8)}, {NULL, attr_i64(c, DIM_DYNAMIC)}};
  assert_null(type_shape_check(c, 2, dyn, attr_dialect(c, "stablehlo.bounds", 2, ok)));
  assert_non_null(strstr(type_shape_check(c, 2, dyn, attr_dialect(c, "stablehlo.bounds", 1, ok)), "Bounds length is 1"));
  NamedAttr on_static[2] = {{NULL, attr_i64(c, 8)}, {NULL, attr_i64(c, 4)}};
  assert_non_null(strstr(type_shape_check(c, 2, dyn, attr_dialect(c, "stablehlo.bounds", 2, on_static)), "Static dimension 1"));
  NamedAttr negb[2] = {{NULL, attr_i64(c, -5)}, {NULL, attr_i64(c, DIM_DYNAMIC)}};
  assert_non_null(strstr(type_shape_check(c, 2, dyn, attr_dialect(c, "stablehlo.bounds", 2, negb)), "bounds must be non-negative"));
}

static void test_deep_nesting(void **state) {
  TCtx *t = *state;
  /* 500 nested tuples: an error, not a stack overflow */
  size_t n = 500;
  char *s = malloc(n * 8 + 16);
  s[0] = 0;
  for (size_t i = 0; i < n; i++) strcat(s, "tuple<");
  strcat(s, "f32");
  for (size_t i = 0; i < n; i++) strcat(s, ">");
  assert_null(ptype(t, s));
  assert_contains(diags(t), "nested too deeply");
  free(s);
}

static void test_type_errors(void **state) {
  TCtx *t = *state;
  assert_null(ptype(t, "i3"));
  assert_contains(diags(t), "unsupported integer type 'i3'");
  assert_null(ptype(t, "tensor<2xf33>"));
  assert_contains(diags(t), "expected type, found 'f33'");
  assert_null(ptype(t, "tensor 2xf32"));
  assert_contains(diags(t), "expected '<' after 'tensor'");
  assert_null(ptype(t, "tensor<2xf32"));
  assert_null(ptype(t, "tensor<2xtuple<f32>>"));
  assert_contains(diags(t), "invalid tensor element type");
  assert_null(ptype(t, "(f32 -> f32"));
  assert_null(ptype(t, "123"));
  assert_contains(diags(t), "expected type");
}

static void test_type_predicates(void **state) {
  TCtx *t = *state;
  assert_false(type_is_tensor(type_elem(t->c, ELEM_F32)));
  assert_false(type_is_static(type_elem(t->c, ELEM_F32)));
  assert_int_equal(type_elem_kind(ptype(t, "tensor<2xui16>")), ELEM_UI16);
  assert_int_equal(type_elem_kind(type_token(t->c)), ELEM_COUNT);
  assert_int_equal(type_elem_kind(ptype(t, "tuple<f32>")), ELEM_COUNT);
}

int run_types_tests(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_elem_types_interned, setup, teardown),
      cmocka_unit_test_setup_teardown(test_tensor_interned, setup, teardown),
      cmocka_unit_test_setup_teardown(test_many_types_interned, setup, teardown),
      cmocka_unit_test_setup_teardown(test_scalar_tensor, setup, teardown),
      cmocka_unit_test_setup_teardown(test_dynamic_dims, setup, teardown),
      cmocka_unit_test_setup_teardown(test_unranked, setup, teardown),
      cmocka_unit_test_setup_teardown(test_zero_sized_tensor, setup, teardown),
      cmocka_unit_test_setup_teardown(test_bounds_encoding, setup, teardown),
      cmocka_unit_test_setup_teardown(test_tuple, setup, teardown),
      cmocka_unit_test_setup_teardown(test_function_types, setup, teardown),
      cmocka_unit_test_setup_teardown(test_complex, setup, teardown),
      cmocka_unit_test_setup_teardown(test_complex_unsupported_part, setup, teardown),
      cmocka_unit_test_setup_teardown(test_token_none_opaque, setup, teardown),
      cmocka_unit_test_setup_teardown(test_quantized_element, setup, teardown),
      cmocka_unit_test_setup_teardown(test_quant_descriptor, setup, teardown),
      cmocka_unit_test(test_quant_parse_errors),
      cmocka_unit_test_setup_teardown(test_every_elem_name_round_trips, setup, teardown),
      cmocka_unit_test(test_elem_name_prefixes_rejected),
      cmocka_unit_test(test_elem_properties),
      cmocka_unit_test_setup_teardown(test_num_elements_overflow, setup, teardown),
      cmocka_unit_test_setup_teardown(test_dim_too_large, setup, teardown),
      cmocka_unit_test_setup_teardown(test_rank_limit, setup, teardown),
      cmocka_unit_test_setup_teardown(test_shape_check, setup, teardown),
      cmocka_unit_test_setup_teardown(test_deep_nesting, setup, teardown),
      cmocka_unit_test_setup_teardown(test_type_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_type_predicates, setup, teardown),
  };
  return cmocka_run_group_tests_name("types", tests, NULL, NULL);
}
