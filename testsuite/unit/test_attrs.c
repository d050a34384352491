/* Attributes: parsed inside `module attributes {a = ...} {}` and inspected. */
#include <math.h>

#include "testsuite/unit/unit_tests.h"

/* Parse `module attributes {a = TEXT} {}` and return attribute a (NULL if
 * the module was rejected). */
static const Attr *attr_of(const char *text) {
  char buf[4096];
  snprintf(buf, sizeof buf, "module attributes {a = %s} {}", text);
  parsed_free(cur);
  cur = parse_text(buf);
  return cur->m ? op_attr(cur->m->op, "a") : NULL;
}

/* Parse text that must be rejected with one error containing msg. */
static void attr_rejected(const char *text, const char *msg) {
  const Attr *a = attr_of(text);
  if (a) fail_msg("attribute '%s' was accepted", text);
  assert_int_equal(parsed_errors(cur), 1);
  assert_contains(parsed_diags(cur), msg);
}

static const char *astr(const Attr *a) { return attr_to_string(cur->c, a); }

/* ------------------------------------------------------------- integers */

static void test_int_default_i64(void **state) {
  (void)state;
  const Attr *a = attr_of("42");
  assert_non_null(a);
  assert_int_equal(a->kind, ATTR_INT);
  assert_ptr_equal(a->type, type_elem(cur->c, ELEM_I64));
  assert_int_equal(a->u.i, 42);
  int64_t v = 0;
  assert_true(attr_as_int(a, &v));
  assert_int_equal(v, 42);
  assert_string_equal(astr(a), "42 : i64");
}

static void test_int_ui64_max(void **state) {
  (void)state;
  const Attr *a = attr_of("18446744073709551615 : ui64");
  assert_non_null(a);
  assert_int_equal(a->kind, ATTR_INT);
  assert_ptr_equal(a->type, type_elem(cur->c, ELEM_UI64));
  assert_true((uint64_t)a->u.i == UINT64_MAX);
  assert_string_equal(astr(a), "18446744073709551615 : ui64");
}

static void test_int_ui64_overflow(void **state) {
  (void)state;
  attr_rejected("18446744073709551616 : ui64", "out of range for type ui64");
}

static void test_int_i8_range(void **state) {
  (void)state;
  const Attr *a = attr_of("-128 : i8");
  assert_non_null(a);
  assert_int_equal(a->u.i, -128);
  a = attr_of("255 : i8"); /* signless accepts the unsigned range */
  assert_non_null(a);
  assert_int_equal(a->u.i, -1);
  assert_string_equal(astr(a), "-1 : i8");
  a = attr_of("0xFF : i8");
  assert_non_null(a);
  assert_int_equal(a->u.i, -1);
  attr_rejected("-129 : i8", "integer literal -129 is out of range for type i8");
}

static void test_int_i8_above_unsigned_range(void **state) {
  (void)state;
  attr_rejected("256 : i8", "out of range for type i8");
}

static void test_int_hex_out_of_range(void **state) {
  (void)state;
  attr_rejected("0x100 : i8", "out of range");
}

static void test_int_unsigned_and_signed(void **state) {
  (void)state;
  const Attr *a = attr_of("65535 : ui16");
  assert_non_null(a);
  assert_int_equal(a->u.i, 65535);
  assert_string_equal(astr(a), "65535 : ui16");
  a = attr_of("-32768 : si16");
  assert_non_null(a);
  assert_int_equal(a->u.i, -32768);
  attr_rejected("32768 : si16", "out of range for type si16"); /* explicitly signed: no unsigned range */
}

static void test_int_negative_unsigned(void **state) {
  (void)state;
  attr_rejected("-1 : ui8", "integer literal -1 is out of range for type ui8");
}

static void test_int_i64_limits(void **state) {
  (void)state;
  const Attr *a = attr_of("-9223372036854775808 : i64");
  assert_non_null(a);
  assert_true(a->u.i == INT64_MIN);
  a = attr_of("18446744073709551615 : i64"); /* unsigned range of a signless type */
  assert_non_null(a);
  assert_int_equal(a->u.i, -1);
  attr_rejected("-9223372036854775809 : i64", "out of range for type i64");
}

static void test_int_100_digits(void **state) {
  (void)state;
  char digits[101];
  memset(digits, '7', 100);
  digits[100] = 0;
  attr_rejected(digits, "out of range");
  char buf[128];
  snprintf(buf, sizeof buf, "-%s : ui64", digits);
  attr_rejected(buf, "out of range for type ui64");
  char hex[80] = "0x";
  memset(hex + 2, 'F', 40);
  hex[42] = 0;
  strcat(hex, " : i32");
  attr_rejected(hex, "out of range for type i32");
}

static void test_int_i1(void **state) {
  (void)state;
  const Attr *a = attr_of("1 : i1");
  assert_non_null(a);
  assert_int_equal(a->kind, ATTR_INT);
  assert_true(a->u.i != 0);
  assert_string_equal(astr(a), "true");
  a = attr_of("0 : i1");
  assert_non_null(a);
  assert_int_equal(a->u.i, 0);
  attr_rejected("2 : i1", "out of range for type i1");
}

static void test_int_small_widths(void **state) {
  (void)state;
  const Attr *a = attr_of("7 : ui4");
  assert_non_null(a);
  assert_int_equal(a->u.i, 7);
  a = attr_of("15 : i4");
  assert_non_null(a);
  assert_int_equal(a->u.i, -1);
  attr_rejected("16 : i4", "out of range for type i4");
  attr_rejected("-3 : si2", "out of range for type si2");
}

static void test_int_index(void **state) {
  (void)state;
  const Attr *a = attr_of("5 : index");
  assert_non_null(a);
  assert_ptr_equal(a->type, type_elem(cur->c, ELEM_INDEX));
  assert_int_equal(a->u.i, 5);
}

static void test_int_type_errors(void **state) {
  (void)state;
  attr_rejected("1.5 : i32", "expected integer literal for type i32");
  attr_rejected("1 : tensor<i32>", "expected integer or float type");
  attr_rejected("1 : complex<f32>", "expected integer or float type");
}

/* --------------------------------------------------------------- floats */

static void test_float_attrs(void **state) {
  (void)state;
  const Attr *a = attr_of("2.5 : f32");
  assert_non_null(a);
  assert_int_equal(a->kind, ATTR_FLOAT);
  assert_ptr_equal(a->type, type_elem(cur->c, ELEM_F32));
  assert_int_equal(a->u.f, 0x40200000);
  assert_string_equal(astr(a), "2.5e+00 : f32");
  a = attr_of("1.5");
  assert_ptr_equal(a->type, type_elem(cur->c, ELEM_F64));
  assert_true(a->u.f == 0x3FF8000000000000ull);
  a = attr_of("-0.0 : f64");
  assert_true(a->u.f == 0x8000000000000000ull);
  a = attr_of("0.1 : f16");
  assert_int_equal(a->u.f, 0x2E66);
  a = attr_of("1 : bf16"); /* an integer literal with a float type */
  assert_int_equal(a->u.f, 0x3F80);
  a = attr_of("2.5E-3 : f64");
  assert_true(float_bits_to_double(ELEM_F64, a->u.f) == 2.5e-3);
}

static void test_float_hex_and_special(void **state) {
  (void)state;
  const Attr *a = attr_of("0x7FC00000 : f32");
  assert_non_null(a);
  assert_int_equal(a->u.f, 0x7FC00000);
  assert_string_equal(astr(a), "0x7FC00000 : f32");
  a = attr_of("-inf : f32");
  assert_int_equal(a->u.f, 0xFF800000);
  a = attr_of("nan : f64");
  assert_true(isnan(float_bits_to_double(ELEM_F64, a->u.f)));
  a = attr_of("0x3C00 : f16");
  assert_int_equal(a->u.f, 0x3C00);
  attr_rejected("0x1FFFF : f16", "hexadecimal float literal does not fit in f16");
}

/* ----------------------------------------------------- simple attributes */

static void test_bool_unit_string_symbol(void **state) {
  (void)state;
  const Attr *a = attr_of("true");
  assert_int_equal(a->kind, ATTR_BOOL);
  assert_true(a->u.b);
  a = attr_of("false");
  assert_false(a->u.b);
  a = attr_of("unit");
  assert_int_equal(a->kind, ATTR_UNIT);
  a = attr_of("\"a\\tb\\22\\00c\"");
  assert_int_equal(a->kind, ATTR_STRING);
  assert_int_equal(a->u.str.len, 6);
  assert_memory_equal(a->u.str.s, "a\tb\"\0c", 6);
  assert_string_equal(astr(a), "\"a\\tb\\\"\\00c\"");
  a = attr_of("@\"my func\"");
  assert_int_equal(a->kind, ATTR_SYMREF);
  assert_string_equal(a->u.str.s, "my func");
  assert_string_equal(astr(a), "@\"my func\"");
  a = attr_of("@main");
  assert_string_equal(a->u.str.s, "main");
  a = attr_of("tensor<2xf32>");
  assert_int_equal(a->kind, ATTR_TYPE);
  assert_string_equal(type_to_string(cur->c, a->type), "tensor<2xf32>");
}

static void test_unit_attr_without_value(void **state) {
  (void)state;
  parsed_free(cur);
  cur = parse_text("module attributes {flag, b = 1} {}");
  assert_non_null(cur->m);
  const Attr *f = op_attr(cur->m->op, "flag");
  assert_non_null(f);
  assert_int_equal(f->kind, ATTR_UNIT);
  assert_null(op_attr(cur->m->op, "missing"));
}

static void test_array_and_dict(void **state) {
  (void)state;
  const Attr *a = attr_of("[1, \"x\", [true], @f]");
  assert_int_equal(a->kind, ATTR_ARRAY);
  assert_int_equal(a->u.array.n, 4);
  assert_int_equal(a->u.array.items[0]->kind, ATTR_INT);
  assert_int_equal(a->u.array.items[1]->kind, ATTR_STRING);
  assert_int_equal(a->u.array.items[2]->kind, ATTR_ARRAY);
  assert_int_equal(a->u.array.items[3]->kind, ATTR_SYMREF);
  a = attr_of("{z = 1, a = 2, \"q-r\" = 3}");
  assert_int_equal(a->kind, ATTR_DICT);
  assert_int_equal(a->u.dict.n, 3);
  /* sorted by name */
  assert_string_equal(a->u.dict.items[0].name, "a");
  assert_string_equal(a->u.dict.items[1].name, "q-r");
  assert_string_equal(a->u.dict.items[2].name, "z");
  assert_string_equal(astr(a), "{a = 2 : i64, \"q-r\" = 3 : i64, z = 1 : i64}");
  a = attr_of("[]");
  assert_int_equal(a->u.array.n, 0);
  a = attr_of("{}");
  assert_int_equal(a->u.dict.n, 0);
}

static void test_duplicate_dict_key(void **state) {
  (void)state;
  attr_rejected("{x = 1, x = 2}", "duplicate attribute 'x'");
}

static void test_duplicate_module_attribute(void **state) {
  (void)state;
  parsed_free(cur);
  cur = parse_text("module attributes {a = 1, a = 2} {}");
  assert_null(cur->m);
  assert_contains(parsed_diags(cur), "duplicate attribute 'a'");
}

/* ------------------------------------------------------------------ dense */

static void test_dense_splat(void **state) {
  (void)state;
  const Attr *a = attr_of("dense<1.5> : tensor<2x2xf32>");
  assert_non_null(a);
  assert_int_equal(a->kind, ATTR_DENSE);
  assert_true(a->u.dense.splat);
  assert_int_equal(a->u.dense.nbytes, 4);
  assert_int_equal(dense_num_elements(a), 4);
  assert_int_equal(dense_get_bits(a, 0), 0x3FC00000);
  assert_int_equal(dense_get_bits(a, 3), 0x3FC00000);
  assert_string_equal(astr(a), "dense<1.5e+00> : tensor<2x2xf32>");
}

static void test_dense_scalar_is_not_splat(void **state) {
  (void)state;
  const Attr *a = attr_of("dense<-7> : tensor<i32>");
  assert_non_null(a);
  assert_false(a->u.dense.splat);
  assert_int_equal(dense_num_elements(a), 1);
  assert_int_equal(dense_get_int(a, 0), -7);
  a = attr_of("dense<[9]> : tensor<1xi8>");
  assert_false(a->u.dense.splat);
  assert_int_equal(dense_get_int(a, 0), 9);
}

static void test_dense_nested_list(void **state) {
  (void)state;
  const Attr *a = attr_of("dense<[[1, 2, 3], [4, 5, -6]]> : tensor<2x3xi32>");
  assert_non_null(a);
  assert_false(a->u.dense.splat);
  assert_int_equal(a->u.dense.form, DENSE_LIST);
  assert_int_equal(a->u.dense.nbytes, 24);
  for (int i = 0; i < 5; i++) assert_int_equal(dense_get_int(a, i), i + 1);
  assert_int_equal(dense_get_int(a, 5), -6);
  assert_string_equal(astr(a), "dense<[[1, 2, 3], [4, 5, -6]]> : tensor<2x3xi32>");
}

static void test_dense_unsigned_and_wide(void **state) {
  (void)state;
  const Attr *a = attr_of("dense<[255, 0]> : tensor<2xui8>");
  assert_int_equal(dense_get_int(a, 0), 255);
  a = attr_of("dense<[255, 128]> : tensor<2xi8>");
  assert_int_equal(dense_get_int(a, 0), -1);
  assert_int_equal(dense_get_int(a, 1), -128);
  a = attr_of("dense<18446744073709551615> : tensor<ui64>");
  assert_non_null(a);
  assert_true(dense_get_bits(a, 0) == UINT64_MAX);
  assert_string_equal(astr(a), "dense<18446744073709551615> : tensor<ui64>");
  attr_rejected("dense<[1, 300]> : tensor<2xi8>", "integer literal 300 is out of range for type i8");
}

static void test_dense_hex(void **state) {
  (void)state;
  const Attr *a = attr_of("dense<\"0x0100000002000000\"> : tensor<2xi32>");
  assert_non_null(a);
  assert_int_equal(a->u.dense.form, DENSE_HEX);
  assert_int_equal(dense_get_int(a, 0), 1);
  assert_int_equal(dense_get_int(a, 1), 2);
  assert_string_equal(astr(a), "dense<\"0x0100000002000000\"> : tensor<2xi32>");
  /* one element's worth of bytes is a splat */
  a = attr_of("dense<\"0xFFFF\"> : tensor<3xi16>");
  assert_true(a->u.dense.splat);
  assert_int_equal(dense_get_int(a, 2), -1);
}

static void test_dense_hex_wrong_size(void **state) {
  (void)state;
  attr_rejected("dense<\"0x010000000200\"> : tensor<2xi32>", "hex dense literal has 6 bytes but type");
}

static void test_dense_hex_bad_digits(void **state) {
  (void)state;
  attr_rejected("dense<\"0x0G\"> : tensor<i8>", "invalid hex digit");
  attr_rejected("dense<\"0x123\"> : tensor<i8>", "even number of digits");
}

static void test_dense_complex(void **state) {
  (void)state;
  const Attr *a = attr_of("dense<[(1.0, 2.0), (3.0, -4.5)]> : tensor<2xcomplex<f32>>");
  assert_non_null(a);
  assert_int_equal(a->u.dense.nbytes, 16);
  float parts[4];
  memcpy(parts, a->u.dense.data, 16);
  assert_true(parts[0] == 1.0f && parts[1] == 2.0f && parts[2] == 3.0f && parts[3] == -4.5f);
  assert_string_equal(astr(a), "dense<[(1.0e+00, 2.0e+00), (3.0e+00, -4.5e+00)]> : tensor<2xcomplex<f32>>");
  a = attr_of("dense<(0.5, 0.25)> : tensor<3xcomplex<f64>>");
  assert_true(a->u.dense.splat);
  assert_int_equal(a->u.dense.nbytes, 16);
}

static void test_dense_complex_errors(void **state) {
  (void)state;
  attr_rejected("dense<[1.0, 2.0]> : tensor<2xcomplex<f32>>", "needs (re, im) literals");
  attr_rejected("dense<(1.0, 2.0)> : tensor<f32>", "complex literal for non-complex element type f32");
}

static void test_dense_bool(void **state) {
  (void)state;
  const Attr *a = attr_of("dense<[true, false, true]> : tensor<3xi1>");
  assert_non_null(a);
  assert_int_equal(dense_get_int(a, 0), 1);
  assert_int_equal(dense_get_int(a, 1), 0);
  assert_int_equal(dense_get_int(a, 2), 1);
  assert_string_equal(astr(a), "dense<[true, false, true]> : tensor<3xi1>");
  int n = 0;
  bool *bv = NULL;
  assert_true(attr_as_bool_list(a, &n, &bv, &cur->c->arena));
  assert_int_equal(n, 3);
  assert_true(bv[0] && !bv[1] && bv[2]);
  a = attr_of("dense<true> : tensor<i1>");
  assert_int_equal(dense_get_int(a, 0), 1);
  attr_rejected("dense<true> : tensor<i32>", "boolean literal for non-i1 element type i32");
}

static void test_dense_float_kinds(void **state) {
  (void)state;
  const Attr *a = attr_of("dense<[1.0, -2.0]> : tensor<2xbf16>");
  assert_non_null(a);
  assert_int_equal(a->u.dense.nbytes, 4);
  assert_int_equal(dense_get_bits(a, 0), 0x3F80);
  assert_int_equal(dense_get_bits(a, 1), 0xC000);
  a = attr_of("dense<448.0> : tensor<f8E4M3FN>");
  assert_int_equal(dense_get_bits(a, 0), 0x7E);
  a = attr_of("dense<[0x7FC00000, 1.0]> : tensor<2xf32>");
  assert_int_equal(dense_get_bits(a, 0), 0x7FC00000);
  attr_rejected("dense<[1.5]> : tensor<1xi32>", "expected integer literal for element type i32");
}

static void test_dense_shape_errors(void **state) {
  (void)state;
  attr_rejected("dense<[1, 2, 3]> : tensor<2xi32>", "dense literal shape does not match type 'tensor<2xi32>'");
}

static void test_dense_inconsistent_lists(void **state) {
  (void)state;
  attr_rejected("dense<[[1, 2], [3]]> : tensor<2x2xi32>", "inconsistent nested list lengths");
}

static void test_dense_needs_static_type(void **state) {
  (void)state;
  attr_rejected("dense<1> : tensor<?xi32>", "statically shaped tensor type");
  attr_rejected("dense<1> : i32", "statically shaped tensor type");
}

static void test_dense_empty(void **state) {
  (void)state;
  const Attr *a = attr_of("dense<> : tensor<0xf32>");
  assert_non_null(a);
  assert_int_equal(dense_num_elements(a), 0);
  assert_int_equal(a->u.dense.nbytes, 0);
  a = attr_of("dense<[]> : tensor<0xi32>");
  assert_non_null(a);
  assert_int_equal(dense_num_elements(a), 0);
  attr_rejected("dense<> : tensor<2xf32>", "empty dense literal");
}

static void test_dense_resource(void **state) {
  (void)state;
  parsed_free(cur);
  cur = parse_text("module attributes {a = dense_resource<blob1> : tensor<2xi32>} {}\n"
                   "{-#\n  dialect_resources: {\n    builtin: {\n"
                   "      blob1: \"0x040000000700000008000000\"\n    }\n  }\n#-}\n");
  assert_non_null(cur->m);
  const Attr *a = op_attr(cur->m->op, "a");
  assert_int_equal(a->kind, ATTR_DENSE_RESOURCE);
  assert_string_equal(a->u.resource.name, "blob1");
  assert_string_equal(type_to_string(cur->c, a->type), "tensor<2xi32>");
  assert_int_equal(cur->m->nresources, 1);
  const Resource *r = &cur->m->resources[0];
  assert_string_equal(r->name, "blob1");
  assert_int_equal(r->nbytes, 8); /* the first 4 bytes are the alignment */
  int32_t v[2];
  memcpy(v, r->data, 8);
  assert_int_equal(v[0], 7);
  assert_int_equal(v[1], 8);
  assert_string_equal(astr(a), "dense_resource<blob1> : tensor<2xi32>");
}

static void test_dense_resource_elided(void **state) {
  (void)state;
  const Attr *a = attr_of("dense_resource<__elided__> : tensor<4xf32>");
  assert_non_null(a);
  assert_int_equal(cur->m->nresources, 1);
  assert_null(cur->m->resources[0].data);
  attr_rejected("dense_resource<x> : f32", "dense_resource requires a tensor type");
}

/* ----------------------------------------------------------- dense arrays */

static void test_dense_array_i64(void **state) {
  (void)state;
  const Attr *a = attr_of("array<i64: 1, -2, 3>");
  assert_non_null(a);
  assert_int_equal(a->kind, ATTR_DENSE_ARRAY);
  assert_int_equal(a->u.darray.elem, ELEM_I64);
  assert_int_equal(a->u.darray.n, 3);
  assert_int_equal(a->u.darray.ints[1], -2);
  assert_string_equal(astr(a), "array<i64: 1, -2, 3>");
  a = attr_of("array<i64>");
  assert_non_null(a);
  assert_int_equal(a->u.darray.n, 0);
  assert_string_equal(astr(a), "array<i64>");
}

static void test_dense_array_other_kinds(void **state) {
  (void)state;
  const Attr *a = attr_of("array<i1: true, false>");
  assert_int_equal(a->u.darray.elem, ELEM_I1);
  assert_int_equal(a->u.darray.ints[0], 1);
  assert_int_equal(a->u.darray.ints[1], 0);
  assert_string_equal(astr(a), "array<i1: true, false>");
  a = attr_of("array<f32: 1.5, -2.0>");
  assert_int_equal(a->u.darray.elem, ELEM_F32);
  assert_non_null(a->u.darray.floats);
  assert_true(a->u.darray.floats[0] == 1.5 && a->u.darray.floats[1] == -2.0);
  assert_string_equal(astr(a), "array<f32: 1.5e+00, -2.0e+00>");
  a = attr_of("array<i8: 255, -128>"); /* signless i8: unsigned range accepted */
  assert_int_equal(a->u.darray.ints[0], -1);
  assert_int_equal(a->u.darray.ints[1], -128);
  a = attr_of("array<ui8: 255>");
  assert_int_equal(a->u.darray.ints[0], 255);
  a = attr_of("array<i32: 7>");
  assert_int_equal(a->u.darray.elem, ELEM_I32);
  attr_rejected("array<i8: 256>", "out of range for type i8");
  attr_rejected("array<tensor<i32>: 1>", "array<...> needs an integer or float element type");
}

/* ------------------------------------------------------ dialect attributes */

static void test_gather_dims(void **state) {
  (void)state;
  const Attr *a = attr_of("#stablehlo.gather<offset_dims = [1, 2], collapsed_slice_dims = [0], "
                          "start_index_map = [0], index_vector_dim = 1>");
  assert_non_null(a);
  assert_int_equal(a->kind, ATTR_DIALECT);
  assert_string_equal(a->u.dialect.name, "stablehlo.gather");
  assert_int_equal(a->u.dialect.n, 4);
  assert_string_equal(a->u.dialect.params[0].name, "offset_dims"); /* source order */
  const Attr *od = dialect_param(a, "offset_dims");
  assert_non_null(od);
  assert_int_equal(od->kind, ATTR_INT_LIST);
  assert_int_equal(od->u.ilist.n, 2);
  assert_int_equal(od->u.ilist.v[1], 2);
  const Attr *ivd = dialect_param(a, "index_vector_dim");
  assert_int_equal(ivd->kind, ATTR_INT);
  assert_int_equal(ivd->u.i, 1);
  assert_null(dialect_param(a, "operand_batching_dims"));
  assert_null(dialect_param(NULL, "x"));
  assert_string_equal(astr(a), "#stablehlo.gather<offset_dims = [1, 2], collapsed_slice_dims = [0], "
                               "start_index_map = [0], index_vector_dim = 1>");
}

static void test_dialect_empty_list_and_nested(void **state) {
  (void)state;
  const Attr *a = attr_of("#stablehlo.scatter<update_window_dims = [], inserted_window_dims = [0]>");
  assert_non_null(a);
  const Attr *u = dialect_param(a, "update_window_dims");
  assert_int_equal(u->kind, ATTR_INT_LIST);
  assert_int_equal(u->u.ilist.n, 0);
  a = attr_of("#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, "
              "operand_tuple_indices = []>");
  assert_int_equal(a->kind, ATTR_DIALECT);
  assert_int_equal(a->u.dialect.n, 3);
}

static void test_dialect_positional_and_question(void **state) {
  (void)state;
  const Attr *a = attr_of("#stablehlo.bounds<?, 4>");
  assert_int_equal(a->kind, ATTR_DIALECT);
  assert_int_equal(a->u.dialect.n, 2);
  assert_null(a->u.dialect.params[0].name);
  assert_true(a->u.dialect.params[0].value->u.i == DIM_DYNAMIC);
  assert_int_equal(a->u.dialect.params[1].value->u.i, 4);
  a = attr_of("#stablehlo.type_extensions<bounds = [?, 8]>");
  const Attr *b = dialect_param(a, "bounds");
  assert_int_equal(b->kind, ATTR_INT_LIST);
  assert_true(b->u.ilist.v[0] == DIM_DYNAMIC);
  assert_int_equal(b->u.ilist.v[1], 8);
}

static void test_dialect_keyword_and_nested_attr(void **state) {
  (void)state;
  const Attr *a = attr_of("#foo.bar<mode = HIGHEST, inner = #stablehlo<precision HIGH>, s = \"x\", "
                          "t = tensor<2xf32>>");
  assert_int_equal(a->kind, ATTR_DIALECT);
  const Attr *mode = dialect_param(a, "mode");
  assert_int_equal(mode->kind, ATTR_ENUM);
  assert_null(mode->u.enm.dialect);
  assert_string_equal(attr_enum_value(mode), "HIGHEST");
  const Attr *inner = dialect_param(a, "inner");
  assert_int_equal(inner->kind, ATTR_ENUM);
  assert_string_equal(inner->u.enm.dialect, "stablehlo");
  assert_string_equal(attr_enum_value(inner), "HIGH");
  assert_int_equal(dialect_param(a, "s")->kind, ATTR_STRING);
  assert_int_equal(dialect_param(a, "t")->kind, ATTR_TYPE);
}

static void test_enum_attr(void **state) {
  (void)state;
  const Attr *a = attr_of("#stablehlo<comparison_direction LT>");
  assert_int_equal(a->kind, ATTR_ENUM);
  assert_string_equal(a->u.enm.dialect, "stablehlo");
  assert_string_equal(a->u.enm.enum_name, "comparison_direction");
  assert_string_equal(a->u.enm.value, "LT");
  assert_string_equal(attr_enum_value(a), "LT");
  assert_string_equal(astr(a), "#stablehlo<comparison_direction LT>");
  assert_null(attr_enum_value(attr_of("1")));
  assert_null(attr_enum_value(NULL));
}

static void test_enum_quoted_form(void **state) {
  (void)state;
  /* the quoted (generic) spelling gives the same attribute */
  parsed_free(cur);
  cur = parse_text("module attributes {a = #stablehlo<comparison_direction LT>, "
                   "b = #stablehlo<\"comparison_direction LT\">, c = #stablehlo<\"precision HIGH\">} {}");
  assert_non_null(cur->m);
  const Attr *a = op_attr(cur->m->op, "a"), *b = op_attr(cur->m->op, "b");
  assert_true(attr_equal(a, b));
  assert_false(attr_equal(a, op_attr(cur->m->op, "c")));
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  print_attr(f, b, true);
  fclose(f);
  assert_string_equal(buf, "#stablehlo<\"comparison_direction LT\">");
  free(buf);
  assert_string_equal(astr(b), "#stablehlo<comparison_direction LT>");
}

static void test_opaque_fallback(void **state) {
  (void)state;
  const Attr *a = attr_of("#foo.bar<a -> b>");
  assert_non_null(a);
  assert_int_equal(a->kind, ATTR_OPAQUE);
  assert_int_equal(a->u.str.len, strlen("#foo.bar<a -> b>"));
  assert_memory_equal(a->u.str.s, "#foo.bar<a -> b>", a->u.str.len);
  assert_string_equal(astr(a), "#foo.bar<a -> b>");
  assert_int_equal(parsed_errors(cur), 0); /* the failed structured attempt leaves no error */
  a = attr_of("#foo.bar<x<y, [z]>>");
  assert_int_equal(a->kind, ATTR_OPAQUE);
  assert_string_equal(astr(a), "#foo.bar<x<y, [z]>>");
  a = attr_of("affine_map<(d0, d1) -> (d1, d0)>");
  assert_int_equal(a->kind, ATTR_OPAQUE);
  assert_string_equal(astr(a), "affine_map<(d0, d1) -> (d1, d0)>");
}

static void test_opaque_unbalanced(void **state) {
  (void)state;
  attr_rejected("#foo.bar<a -> b", "unbalanced '<' in dialect type or attribute");
}

static void test_conv_dims(void **state) {
  (void)state;
  const Attr *a = attr_of("#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>");
  assert_non_null(a);
  assert_int_equal(a->kind, ATTR_CONV_DIMS);
  const ConvDims *d = &a->u.conv;
  assert_int_equal(d->input_batch, 0);
  assert_int_equal(d->input_feature, 3);
  assert_int_equal(d->nspatial, 2);
  assert_int_equal(d->input_spatial[0], 1);
  assert_int_equal(d->input_spatial[1], 2);
  assert_int_equal(d->kernel_input_feature, 2);
  assert_int_equal(d->kernel_output_feature, 3);
  assert_int_equal(d->kernel_spatial[0], 0);
  assert_int_equal(d->kernel_spatial[1], 1);
  assert_int_equal(d->output_feature, 3);
  assert_string_equal(astr(a), "#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>");
}

static void test_conv_dims_raw_equals_pretty(void **state) {
  (void)state;
  const Attr *p = attr_of("#stablehlo.conv<[b, f, 1, 0]x[o, i, 0, 1]->[b, 1, 0, f]>");
  assert_non_null(p);
  char *pretty = strdup(astr(p));
  char *raw = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&raw, &len);
  print_attr(f, p, true);
  fclose(f);
  assert_contains(raw, "#stablehlo.conv<raw input_batch_dimension = 0");
  /* the raw (generic) form reads back to the same dimension numbers */
  const Attr *r = attr_of(raw);
  assert_non_null(r);
  assert_int_equal(r->kind, ATTR_CONV_DIMS);
  assert_string_equal(astr(r), pretty);
  assert_int_equal(r->u.conv.input_spatial[0], 3);
  assert_int_equal(r->u.conv.output_spatial[0], 2);
  free(raw);
  free(pretty);
}

static void test_conv_dims_errors(void **state) {
  (void)state;
  attr_rejected("#stablehlo.conv<[b, 0, f]x[0, i]->[b, 0, f]>", "convolution layout needs both 'i' and 'o'");
  attr_rejected("#stablehlo.conv<[b, 0, 0, f]x[0, 1, i, o]->[b, 0, 1, f]>", "duplicate spatial dimension");
  attr_rejected("#stablehlo.conv<[b, 0, 1, f]x[0, i, o]->[b, 0, 1, f]>", "different numbers of spatial");
}

/* --------------------------------------------------------- typed views */

static void expect_list(const Attr *a, int n, const int64_t *want) {
  int got_n = -1;
  const int64_t *v = NULL;
  if (!attr_as_i64_list(a, &got_n, &v, &cur->c->arena)) fail_msg("attr_as_i64_list refused %s", astr(a));
  assert_int_equal(got_n, n);
  for (int i = 0; i < n; i++) assert_int_equal(v[i], want[i]);
}

static void test_as_i64_list_encodings(void **state) {
  (void)state;
  static const int64_t want[] = {3, -1, 4};
  expect_list(attr_of("array<i64: 3, -1, 4>"), 3, want);
  expect_list(attr_of("dense<[3, -1, 4]> : tensor<3xi64>"), 3, want);
  expect_list(attr_of("dense<[3, -1, 4]> : tensor<3xi32>"), 3, want);
  expect_list(attr_of("[3, -1, 4]"), 3, want);
  expect_list(attr_of("[3 : i32, -1 : i32, 4 : i32]"), 3, want);
  const Attr *g = attr_of("#stablehlo.gather<offset_dims = [3, -1, 4]>");
  expect_list(dialect_param(g, "offset_dims"), 3, want);
  static const int64_t splat[] = {5, 5};
  expect_list(attr_of("dense<5> : tensor<2xi64>"), 2, splat);
  expect_list(attr_of("array<i64>"), 0, NULL);
  expect_list(attr_of("[]"), 0, NULL);
}

static void test_as_i64_list_refusals(void **state) {
  (void)state;
  int n;
  const int64_t *v;
  static const char *const bad[] = {
      "array<f32: 1.0>", "[1, \"a\"]", "dense<[[1, 2]]> : tensor<1x2xi64>", "dense<[1.0]> : tensor<1xf32>",
      "\"x\"",           "1",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    const Attr *a = attr_of(bad[i]);
    assert_non_null(a);
    if (attr_as_i64_list(a, &n, &v, &cur->c->arena)) fail_msg("attr_as_i64_list accepted %s", bad[i]);
  }
  assert_false(attr_as_i64_list(NULL, &n, &v, &cur->c->arena));
}

static void test_as_bool_list(void **state) {
  (void)state;
  int n = 0;
  bool *bv = NULL;
  const Attr *a = attr_of("array<i1: false, true>");
  assert_true(attr_as_bool_list(a, &n, &bv, &cur->c->arena));
  assert_int_equal(n, 2);
  assert_true(!bv[0] && bv[1]);
  a = attr_of("array<i64: 1>");
  assert_false(attr_as_bool_list(a, &n, &bv, &cur->c->arena));
  a = attr_of("[true]");
  assert_false(attr_as_bool_list(a, &n, &bv, &cur->c->arena));
  a = attr_of("dense<[true, true]> : tensor<1x2xi1>");
  assert_false(attr_as_bool_list(a, &n, &bv, &cur->c->arena));
}

/* ------------------------------------------------------ equality, aliases */

static void test_attr_equal(void **state) {
  (void)state;
  static const char *const texts[] = {
      "1 : i32", "2.5 : f32", "\"s\"", "[1, 2]", "{a = 1}", "dense<[1, 2]> : tensor<2xi8>", "array<i64: 1>",
      "#stablehlo<comparison_direction GE>", "#stablehlo.gather<offset_dims = [1]>",
      "#stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>", "tensor<2xf32>", "@f", "#foo.bar<a -> b>",
  };
  enum { N = sizeof texts / sizeof texts[0] };
  /* Parse each text twice in one context; each equals its twin and no other. */
  char buf[4096] = "module attributes {";
  for (int i = 0; i < N; i++) {
    char item[256];
    snprintf(item, sizeof item, "%sa%02d = %s, b%02d = %s", i ? ", " : "", i, texts[i], i, texts[i]);
    strcat(buf, item);
  }
  strcat(buf, "} {}");
  parsed_free(cur);
  cur = parse_text(buf);
  assert_non_null(cur->m);
  for (int i = 0; i < N; i++) {
    char an[16], bn[16];
    snprintf(an, sizeof an, "a%02d", i);
    snprintf(bn, sizeof bn, "b%02d", i);
    const Attr *a = op_attr(cur->m->op, an), *b = op_attr(cur->m->op, bn);
    assert_non_null(a);
    if (!attr_equal(a, b)) fail_msg("'%s' is not equal to itself", texts[i]);
    for (int j = 0; j < N; j++) {
      if (j == i) continue;
      snprintf(bn, sizeof bn, "b%02d", j);
      if (attr_equal(a, op_attr(cur->m->op, bn))) fail_msg("'%s' equals '%s'", texts[i], texts[j]);
    }
  }
  assert_false(attr_equal(NULL, op_attr(cur->m->op, "a00")));
  assert_true(attr_equal(NULL, NULL));
}

static void test_attr_equal_details(void **state) {
  (void)state;
  parsed_free(cur);
  cur = parse_text("module attributes {a = 1 : i32, b = 1 : i64, c = dense<1> : tensor<2xi32>, "
                   "d = dense<1> : tensor<2xi64>, e = array<i32: 1>, f = array<i64: 1>, g = 2.0 : f32, "
                   "h = 2.0 : f64} {}");
  assert_non_null(cur->m);
  const Op *m = cur->m->op;
  /* the same value with another type is another attribute */
  assert_false(attr_equal(op_attr(m, "a"), op_attr(m, "b")));
  assert_false(attr_equal(op_attr(m, "c"), op_attr(m, "d")));
  assert_false(attr_equal(op_attr(m, "e"), op_attr(m, "f")));
  assert_false(attr_equal(op_attr(m, "g"), op_attr(m, "h")));
}

static void test_alias(void **state) {
  (void)state;
  parsed_free(cur);
  cur = parse_text("#x = 7 : i32\n#y = #stablehlo<comparison_direction EQ>\n"
                   "module attributes {a = #x, b = #y} {}");
  assert_non_null(cur->m);
  const Attr *a = op_attr(cur->m->op, "a");
  assert_int_equal(a->kind, ATTR_INT);
  assert_int_equal(a->u.i, 7);
  assert_string_equal(attr_enum_value(op_attr(cur->m->op, "b")), "EQ");
  attr_rejected("#nope", "undefined attribute alias '#nope'");
}

static void test_constructed_attrs_print(void **state) {
  (void)state;
  attr_of("1");
  Context *c = cur->c;
  int64_t v[] = {1, DIM_DYNAMIC, 3}, w[] = {1, -2};
  assert_string_equal(attr_to_string(c, attr_int_list(c, 3, v)), "[1, ?, 3]");
  assert_string_equal(attr_to_string(c, attr_dense_i64_array(c, 2, w)), "array<i64: 1, -2>");
  bool bv[] = {true, false};
  assert_string_equal(attr_to_string(c, attr_dense_bool_array(c, 2, bv)), "array<i1: true, false>");
  assert_string_equal(attr_to_string(c, attr_enum(c, "stablehlo", "fft_type", "FFT")), "#stablehlo<fft_type FFT>");
  assert_string_equal(attr_to_string(c, attr_enum(c, NULL, NULL, "HIGH")), "HIGH");
  assert_string_equal(attr_to_string(c, attr_symref(c, "a.b")), "@a.b");
  assert_string_equal(attr_to_string(c, attr_symref(c, "1x")), "@\"1x\"");
  assert_string_equal(attr_to_string(c, attr_string(c, "q\"\n\x01", 4)), "\"q\\\"\\n\\01\"");
  assert_string_equal(attr_to_string(c, attr_float_bits(c, type_elem(c, ELEM_BF16), 0x3F80)), "1.0e+00 : bf16");
  assert_string_equal(attr_to_string(c, attr_float_bits(c, type_elem(c, ELEM_F32), 0x7F800000)), "0x7F800000 : f32");
  assert_string_equal(attr_to_string(c, attr_i64(c, -5)), "-5 : i64");
  assert_string_equal(attr_to_string(c, attr_opaque(c, "#x.y<~>", 7)), "#x.y<~>");
  NamedAttr items[2] = {{"z", attr_unit(c)}, {"a", attr_bool(c, false)}};
  assert_string_equal(attr_to_string(c, attr_dict(c, 2, items)), "{a = false, z}");
  assert_string_equal(items[0].name, "z"); /* attr_dict sorts a copy */
}

static void test_float_shortest_printing(void **state) {
  (void)state;
  static const struct {
    const char *in, *out;
  } cases[] = {
      {"1.0 : f32", "1.0e+00 : f32"},      {"0.1 : f32", "1.0e-01 : f32"},
      {"0.1 : f64", "1.0e-01 : f64"},      {"1.0e10 : f64", "1.0e+10 : f64"},
      {"123.456 : f64", "1.23456e+02 : f64"}, {"0.0 : f32", "0.0e+00 : f32"},
      {"65504.0 : f16", "6.55e+04 : f16"}, {"3.140625 : bf16", "3.14e+00 : bf16"},
      {"1.0e-45 : f32", "1.0e-45 : f32"},  {"0x0001 : f16", "6.0e-08 : f16"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const Attr *a = attr_of(cases[i].in);
    assert_non_null(a);
    assert_string_equal(astr(a), cases[i].out);
    /* and the short form reads back to the same bits */
    uint64_t bits = a->u.f;
    const Attr *b = attr_of(cases[i].out);
    assert_non_null(b);
    assert_true(b->u.f == bits);
  }
}

int run_attrs_tests(void) {
#define T(f) cmocka_unit_test_teardown(f, parsed_teardown)
  const struct CMUnitTest tests[] = {
      T(test_int_default_i64),
      T(test_int_ui64_max),
      T(test_int_ui64_overflow),
      T(test_int_i8_range),
      T(test_int_i8_above_unsigned_range),
      T(test_int_hex_out_of_range),
      T(test_int_unsigned_and_signed),
      T(test_int_negative_unsigned),
      T(test_int_i64_limits),
      T(test_int_100_digits),
      T(test_int_i1),
      T(test_int_small_widths),
      T(test_int_index),
      T(test_int_type_errors),
      T(test_float_attrs),
      T(test_float_hex_and_special),
      T(test_bool_unit_string_symbol),
      T(test_unit_attr_without_value),
      T(test_array_and_dict),
      T(test_duplicate_dict_key),
      T(test_duplicate_module_attribute),
      T(test_dense_splat),
      T(test_dense_scalar_is_not_splat),
      T(test_dense_nested_list),
      T(test_dense_unsigned_and_wide),
      T(test_dense_hex),
      T(test_dense_hex_wrong_size),
      T(test_dense_hex_bad_digits),
      T(test_dense_complex),
      T(test_dense_complex_errors),
      T(test_dense_bool),
      T(test_dense_float_kinds),
      T(test_dense_shape_errors),
      T(test_dense_inconsistent_lists),
      T(test_dense_needs_static_type),
      T(test_dense_empty),
      T(test_dense_resource),
      T(test_dense_resource_elided),
      T(test_dense_array_i64),
      T(test_dense_array_other_kinds),
      T(test_gather_dims),
      T(test_dialect_empty_list_and_nested),
      T(test_dialect_positional_and_question),
      T(test_dialect_keyword_and_nested_attr),
      T(test_enum_attr),
      T(test_enum_quoted_form),
      T(test_opaque_fallback),
      T(test_opaque_unbalanced),
      T(test_conv_dims),
      T(test_conv_dims_raw_equals_pretty),
      T(test_conv_dims_errors),
      T(test_as_i64_list_encodings),
      T(test_as_i64_list_refusals),
      T(test_as_bool_list),
      T(test_attr_equal),
      T(test_attr_equal_details),
      T(test_alias),
      T(test_constructed_attrs_print),
      T(test_float_shortest_printing),
  };
#undef T
  return cmocka_run_group_tests_name("attrs", tests, NULL, NULL);
}
