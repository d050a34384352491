/* The MLIR bytecode writer (frontend/bc_write*.c): exact bytes for a small
 * hand-made module in VHLO form, the layout changes between bytecode
 * format versions, and refusals of what a target version lacks. */
#include <dirent.h>

#include "frontend/bytecode.h"
#include "frontend/vhlo.h"
#include "testsuite/unit/unit_tests.h"

/* vhlo_emit_version_api.mlir in VHLO form: a func_v1 adding its argument
 * to itself. */
static const char add_module[] =
    "module {\n"
    "  \"vhlo.func_v1\"() <{arg_attrs = [], function_type = (tensor<f32>) -> tensor<f32>, res_attrs = [],\n"
    "                      sym_name = \"main\", sym_visibility = \"\"}> ({\n"
    "  ^bb0(%arg0: tensor<f32>):\n"
    "    %0 = \"vhlo.add_v1\"(%arg0, %arg0) : (tensor<f32>, tensor<f32>) -> tensor<f32>\n"
    "    \"vhlo.return_v1\"(%0) : (tensor<f32>) -> ()\n"
    "  }) : () -> ()\n"
    "}\n";

/* What StableHLO writes for add_module at 1.1.0 with --strip-debuginfo:
 * format 6, dialects builtin and vhlo, attributes loc(unknown), [],
 * type_v1, "main", "", types tensor, function, f32, properties for the
 * module (no sym_name) and the func. */
static const uint8_t add_module_1_1_0[] = {
    0x4d, 0x4c, 0xef, 0x52, 0x0d, 0x53, 0x74, 0x61, 0x62, 0x6c, 0x65, 0x48, 0x4c, 0x4f, 0x5f, 0x76, 0x31, 0x2e,
    0x31, 0x2e, 0x30, 0x00, 0x01, 0x19, 0x05, 0x01, 0x05, 0x09, 0x01, 0x03, 0x0b, 0x03, 0x07, 0x0f, 0x13, 0x17,
    0x03, 0x21, 0x0b, 0x07, 0x01, 0x03, 0x07, 0x03, 0x09, 0x0b, 0x0b, 0x0b, 0x0b, 0x03, 0x07, 0x0f, 0x17, 0x07,
    0x02, 0x25, 0x1f, 0x03, 0x01, 0x23, 0x03, 0x1d, 0x0d, 0x1d, 0x0f, 0x29, 0x01, 0x05, 0x11, 0x03, 0x01, 0x03,
    0x01, 0x09, 0x04, 0x4b, 0x05, 0x01, 0x50, 0x01, 0x01, 0x07, 0x04, 0x3b, 0x03, 0x01, 0x05, 0x03, 0x50, 0x01,
    0x03, 0x07, 0x04, 0x27, 0x03, 0x05, 0x0b, 0x03, 0x01, 0x00, 0x05, 0x06, 0x01, 0x03, 0x01, 0x05, 0x01, 0x01,
    0x07, 0x04, 0x01, 0x03, 0x03, 0x06, 0x03, 0x01, 0x05, 0x01, 0x00, 0x79, 0x11, 0x03, 0x0b, 0x15, 0x0f, 0x11,
    0x0f, 0x0b, 0x11, 0x62, 0x75, 0x69, 0x6c, 0x74, 0x69, 0x6e, 0x00, 0x76, 0x68, 0x6c, 0x6f, 0x00, 0x6d, 0x6f,
    0x64, 0x75, 0x6c, 0x65, 0x00, 0x66, 0x75, 0x6e, 0x63, 0x5f, 0x76, 0x31, 0x00, 0x61, 0x64, 0x64, 0x5f, 0x76,
    0x31, 0x00, 0x72, 0x65, 0x74, 0x75, 0x72, 0x6e, 0x5f, 0x76, 0x31, 0x00, 0x6d, 0x61, 0x69, 0x6e, 0x00, 0x00,
    0x08, 0x15, 0x05, 0x05, 0x01, 0x01, 0x0b, 0x03, 0x05, 0x03, 0x07, 0x09,
};

/* Parses text and writes it for version v; NULL when the writer refused. */
static uint8_t *write_text(Parsed **pp, const char *text, const char *version, size_t *len) {
  Parsed *p = parse_text(text);
  *pp = p;
  assert_non_null(p->m);
  VhloVersion v;
  assert_true(vhlo_version_parse(version, &v));
  uint8_t *out = NULL;
  if (!bc_write_vhlo(p->c, p->m, v, &out, len)) return NULL;
  return out;
}

static void test_hand_made(void **state) {
  (void)state;
  Parsed *p;
  size_t len;
  uint8_t *out = write_text(&p, add_module, "1.1.0", &len);
  assert_non_null(out);
  assert_int_equal(len, sizeof add_module_1_1_0);
  assert_memory_equal(out, add_module_1_1_0, len);
  free(out);
  parsed_free(p);
}

/* MLIR's prefix varint at *p (advanced); small test inputs only. */
static uint64_t varint_at(const uint8_t *b, size_t *p) {
  uint8_t first = b[*p];
  int n = 1;
  while (!(first >> (n - 1) & 1)) n++;
  uint64_t v = 0;
  for (int i = 0; i < n; i++) v |= (uint64_t)b[*p + (size_t)i] << (8 * i);
  *p += (size_t)n;
  return v >> n;
}

/* The bitmask of section codes present in an artifact. */
static unsigned section_codes(const uint8_t *b, size_t len) {
  size_t p = 4;
  varint_at(b, &p);
  while (b[p]) p++;
  p++;
  unsigned codes = 0;
  while (p < len) {
    uint8_t code = b[p++];
    uint64_t n = varint_at(b, &p);
    assert_false(code & 0x80);
    codes |= 1u << code;
    p += n;
  }
  assert_int_equal(p, len);
  return codes;
}

/* Format 0 (StableHLO 0.9.0): no properties section, inherent attributes
 * in the op's dictionary; format 6 has the properties section. */
static void test_format_0(void **state) {
  (void)state;
  Parsed *p;
  size_t len;
  uint8_t *out = write_text(&p, add_module, "0.9.0", &len);
  assert_non_null(out);
  assert_int_equal(out[4], 0x01); /* version 0 */
  assert_memory_equal(out + 5, "StableHLO_v0.9.0", 17);
  assert_int_equal(section_codes(out, len), 0x7f);
  bool names = false;
  for (size_t i = 0; i + 14 <= len; i++) names |= memcmp(out + i, "sym_visibility", 14) == 0;
  assert_true(names);
  free(out);
  assert_int_equal(section_codes(add_module_1_1_0, sizeof add_module_1_1_0), 0x17f);
  parsed_free(p);
}

/* Equal attributes and types are written once. */
static void test_dedupe(void **state) {
  (void)state;
  static const char text[] =
      "module {\n"
      "  \"vhlo.func_v1\"() <{arg_attrs = [], function_type = (tensor<2xi32>) -> tensor<2xi32>, res_attrs = [],\n"
      "                      sym_name = \"f\", sym_visibility = \"\"}> ({\n"
      "  ^bb0(%a: tensor<2xi32>):\n"
      "    %0 = \"vhlo.constant_v1\"() <{value = dense<[1, 2]> : tensor<2xi32>}> : () -> tensor<2xi32>\n"
      "    %1 = \"vhlo.constant_v1\"() <{value = dense<[1, 2]> : tensor<2xi32>}> : () -> tensor<2xi32>\n"
      "    %2 = \"vhlo.add_v1\"(%0, %1) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>\n"
      "    \"vhlo.return_v1\"(%2) : (tensor<2xi32>) -> ()\n"
      "  }) : () -> ()\n"
      "}\n";
  Parsed *p;
  size_t len;
  uint8_t *out = write_text(&p, text, "1.0.0", &len);
  assert_non_null(out);
  /* The tensor data 01000000 02000000 appears once. */
  static const uint8_t data[] = {1, 0, 0, 0, 2, 0, 0, 0};
  int found = 0;
  for (size_t i = 0; i + sizeof data <= len; i++) found += memcmp(out + i, data, sizeof data) == 0;
  assert_int_equal(found, 1);
  free(out);
  parsed_free(p);
}

/* Whether out contains the bytes want. */
static bool contains(const uint8_t *out, size_t len, const uint8_t *want, size_t n) {
  for (size_t i = 0; i + n <= len; i++)
    if (memcmp(out + i, want, n) == 0) return true;
  return false;
}

/* tensor_v1 of i1: a splat is one byte 0x00 or 0xFF, other data is
 * bit-packed, first element in the lowest bit. */
static void test_bool_tensors(void **state) {
  (void)state;
  static const struct {
    const char *value;
    uint8_t blob[4];
  } cases[] = {
      {"dense<false>", {0x1f, 0x01, 0x03, 0x00}},
      {"dense<true>", {0x1f, 0x01, 0x03, 0xff}},
      {"dense<[true, false, true, true, false]>", {0x1f, 0x01, 0x03, 0x0d}},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char text[1024];
    snprintf(text, sizeof text,
             "module {\n"
             "  \"vhlo.func_v1\"() <{arg_attrs = [], function_type = () -> tensor<5xi1>, res_attrs = [],\n"
             "                      sym_name = \"f\", sym_visibility = \"\"}> ({\n"
             "    %%0 = \"vhlo.constant_v1\"() <{value = %s : tensor<5xi1>}> : () -> tensor<5xi1>\n"
             "    \"vhlo.return_v1\"(%%0) : (tensor<5xi1>) -> ()\n"
             "  }) : () -> ()\n"
             "}\n",
             cases[i].value);
    Parsed *p;
    size_t len;
    uint8_t *out = write_text(&p, text, "1.0.0", &len);
    assert_non_null(out);
    /* tensor_v1 (code 15), type 0, blob of 1 byte. */
    assert_true(contains(out, len, cases[i].blob, 4));
    free(out);
    parsed_free(p);
  }
}

/* A type the target version lacks is refused, naming it and the version
 * that introduced it. */
static void test_refuse_new_type(void **state) {
  (void)state;
  static const char text[] =
      "module {\n"
      "  \"vhlo.func_v1\"() <{arg_attrs = [], function_type = (tensor<f8E4M3>) -> tensor<f8E4M3>, res_attrs = [],\n"
      "                      sym_name = \"f\", sym_visibility = \"\"}> ({\n"
      "  ^bb0(%a: tensor<f8E4M3>):\n"
      "    \"vhlo.return_v1\"(%a) : (tensor<f8E4M3>) -> ()\n"
      "  }) : () -> ()\n"
      "}\n";
  Parsed *p;
  size_t len;
  uint8_t *out = write_text(&p, text, "1.6.0", &len);
  assert_null(out);
  assert_non_null(strstr(parsed_diags(p), "f8E4M3"));
  assert_non_null(strstr(parsed_diags(p), "1.7.0"));
  assert_false(p->c->diag.bad_input);
  parsed_free(p);
  out = write_text(&p, text, "1.7.0", &len);
  assert_non_null(out);
  free(out);
  parsed_free(p);
}

/* A use list not in descending (op, operand) order is written as a
 * use-list order (format 3 on): here %arg0's uses by add operands 0, 1. */
static void test_use_list_order(void **state) {
  (void)state;
  Parsed *p = parse_text(add_module);
  assert_non_null(p->m);
  Block *body = op_body(op_body(p->m->op)->first);
  Value *arg = &body->args[0];
  Use *first = arg->uses, *second = first->next;
  assert_non_null(second);
  assert_null(second->next);
  /* Relink as [operand 0, operand 1]: ascending, as StableHLO's conversion leaves it. */
  assert_int_equal(first->operand_index, 1);
  arg->uses = second;
  second->pprev = &arg->uses;
  second->next = first;
  first->pprev = &second->next;
  first->next = NULL;
  uint8_t *out;
  size_t len;
  assert_true(bc_write_vhlo(p->c, p->m, (VhloVersion){1, 1, 0}, &out, &len));
  /* Block: 2 ops with arguments, 1 argument of type 0 without location,
   * use-list mask, 2 uses in order 1, 0. */
  static const uint8_t want[] = {0x0b, 0x03, 0x01, 0x20, 0x09, 0x03, 0x01};
  bool found = false;
  for (size_t i = 0; i + sizeof want <= len; i++) found |= memcmp(out + i, want, sizeof want) == 0;
  assert_true(found);
  free(out);
  /* Format 1 (StableHLO 0.10.0) has no use-list orders. */
  assert_true(bc_write_vhlo(p->c, p->m, (VhloVersion){0, 10, 0}, &out, &len));
  found = false;
  for (size_t i = 0; i + 3 <= len; i++) found |= memcmp(out + i, "\x20\x09\x03", 3) == 0;
  assert_false(found);
  free(out);
  parsed_free(p);
}

/* The conformance artifacts StableHLO wrote whose every value's uses are
 * in the order our reader leaves them (it does not apply use-list
 * orders): written again, they are byte-identical. */
static const char *const identical_files[] = {
    "stablehlo_legalize_to_vhlo.0_9_0.mlir.bc",  "stablehlo_legalize_to_vhlo.0_11_0.mlir.bc",
    "stablehlo_legalize_to_vhlo.0_13_0.mlir.bc", "stablehlo_legalize_to_vhlo.0_15_0.mlir.bc",
    "stablehlo_legalize_to_vhlo.0_17_0.mlir.bc", "stablehlo_legalize_to_vhlo.0_19_0.mlir.bc",
    "stablehlo_legalize_to_vhlo.1_0_0.mlir.bc",  "stablehlo_legalize_to_vhlo.1_19_0.mlir.bc",
    "stablehlo_legalize_to_vhlo.1_20_0.mlir.bc",
};

static bool expect_identical(const char *name) {
  for (size_t i = 0; i < sizeof identical_files / sizeof identical_files[0]; i++)
    if (strcmp(identical_files[i], name) == 0) return true;
  return false;
}

static char *read_all(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *buf = NULL;
  size_t cap = 0, len = 0;
  for (;;) {
    if (len == cap) buf = realloc(buf, cap = cap ? cap * 2 : 65536);
    size_t got = fread(buf + len, 1, cap - len, f);
    if (!got) break;
    len += got;
  }
  fclose(f);
  *n = len;
  return buf;
}

/* The target version of an artifact: X_Y_Z in its name, 1.0.0 for the
 * chess model. */
static bool artifact_version(const char *name, VhloVersion *v) {
  if (strstr(name, "searchless_chess")) {
    *v = (VhloVersion){1, 0, 0};
    return true;
  }
  const char *d = strchr(name, '.');
  return d && sscanf(d + 1, "%d_%d_%d", &v->major, &v->minor, &v->patch) == 3;
}

typedef struct CorpusStats {
  int files, round_trips, identical;
} CorpusStats;

/* Reads path, writes it for its version, reads that back: both print the
 * same generic text; byte identity where expected. */
static void round_trip(const char *path, const char *name, CorpusStats *st) {
  VhloVersion v;
  if (!artifact_version(name, &v)) return;
  size_t n = 0;
  char *data = read_all(path, &n);
  assert_non_null(data);
  Context *c = ctx_new();
  FILE *sink = fopen("/dev/null", "w");
  c->diag.out = sink;
  SourceFile file = {name, data, n};
  BcInfo info;
  Module *m = bc_read_vhlo(c, &file, &info);
  if (m) {
    st->files++;
    PrintOptions o = {.generic = true};
    char *before = print_module_string(c, m, &o);
    uint8_t *out;
    size_t len;
    if (!bc_write_vhlo(c, m, v, &out, &len)) fail_msg("%s: not written", name);
    Context *c2 = ctx_new();
    c2->diag.out = sink;
    SourceFile file2 = {"written.bc", (const char *)out, len};
    Module *m2 = bc_read_vhlo(c2, &file2, &info);
    if (!m2) fail_msg("%s: the written artifact does not read back", name);
    char *after = print_module_string(c2, m2, &o);
    if (strcmp(before, after) != 0) fail_msg("%s: the written artifact reads back differently", name);
    st->round_trips++;
    bool same = len == n && memcmp(out, data, n) == 0;
    st->identical += same;
    if (expect_identical(name) && !same) fail_msg("%s: not byte-identical to StableHLO's", name);
    free(before);
    free(after);
    free(out);
    ctx_free(c2);
  }
  fclose(sink);
  ctx_free(c);
  free(data);
}

static void test_corpus(void **state) {
  (void)state;
  const char *env = getenv("TPU_CONFORMANCE_DIR");
  const char *root = env && *env ? env : "../shared/conformance";
  char dir[4096], path[8192];
  snprintf(dir, sizeof dir, "%s/stablehlo/vhlo", root);
  DIR *d = opendir(dir);
  if (!d) {
    print_message("bc_write corpus: %s not found; skipped\n", dir);
    skip();
  }
  CorpusStats st = {0};
  for (struct dirent *e; (e = readdir(d));) {
    size_t l = strlen(e->d_name);
    if (l < 4 || strcmp(e->d_name + l - 3, ".bc") != 0) continue;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    round_trip(path, e->d_name, &st);
  }
  closedir(d);
  snprintf(path, sizeof path, "%s/../models/searchless_chess_9m.mlir.bc", root);
  FILE *f = fopen(path, "rb");
  if (f) {
    fclose(f);
    round_trip(path, "searchless_chess_9m.mlir.bc", &st);
  }
  print_message("bc_write corpus: %d artifacts, %d round trips, %d byte-identical\n", st.files, st.round_trips,
                st.identical);
  assert_true(st.files > 0);
  assert_int_equal(st.round_trips, st.files);
}

/* A mixed module (upstream's --allow-other-dialects): CHLO ops with CHLO
 * enum attributes, the interpreter's check ops, an attribute with no
 * bytecode encoding, between StableHLO ops. */
static const char mixed_module[] =
    "func.func @main(%a: tensor<2xf32>) -> tensor<2xi1> {\n"
    "  %0 = chlo.sinh %a : tensor<2xf32> -> tensor<2xf32>\n"
    "  %1 = stablehlo.add %0, %a : tensor<2xf32>\n"
    "  %2 = chlo.broadcast_compare %1, %a {compare_type = #chlo<comparison_type FLOAT>, comparison_direction = "
    "#chlo<comparison_direction LT>} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>\n"
    "  check.expect_almost_eq %1, %0 : tensor<2xf32>\n"
    "  check.expect_eq %2, %2 {mhlo.note = #stablehlo<precision HIGH>} : tensor<2xi1>\n"
    "  check.expect_eq_const %2, dense<[true, false]> : tensor<2xi1>\n"
    "  return %2 : tensor<2xi1>\n"
    "}\n";

/* Whether the n bytes want (a NUL-terminated string's, with its NUL) occur in out. */
static bool contains_str(const uint8_t *out, size_t len, const char *want) {
  size_t n = strlen(want) + 1;
  for (size_t i = 0; i + n <= len; i++)
    if (memcmp(out + i, want, n) == 0) return true;
  return false;
}

/* Written at versions of each bytecode format and read back, a mixed
 * module prints as its text: casts gone, CHLO and check ops with their
 * attributes; the CHLO enums custom-encoded, the attribute with no
 * encoding as its assembly text. */
static void test_mixed_round_trip(void **state) {
  (void)state;
  static const char *const versions[] = {"1.20.0", "1.1.0", "1.0.0", "0.14.0", "0.9.0"};
  for (size_t v = 0; v < sizeof versions / sizeof versions[0]; v++) {
    Parsed *p = parse_text(mixed_module);
    assert_true(parsed_verify(p));
    char *before = parsed_print(p, false);
    uint8_t *out = NULL;
    size_t len = 0;
    if (!bytecode_write_module(p->c, p->m, versions[v], &out, &len)) fail_msg("%s: %s", versions[v], parsed_diags(p));
    assert_true(contains_str(out, len, "chlo"));
    assert_true(contains_str(out, len, "check"));
    assert_true(contains_str(out, len, "unrealized_conversion_cast"));
    assert_true(contains_str(out, len, "#stablehlo<precision HIGH>"));
    for (size_t i = 0; i + 6 <= len; i++) assert_false(memcmp(out + i, "#chlo<", 6) == 0);
    Parsed *q = parse_file_text("mixed.mlir.bc", (const char *)out, len, 1000, false);
    if (!q->m) fail_msg("%s: %s", versions[v], parsed_diags(q));
    char *after = parsed_print(q, false);
    assert_string_equal(before, after);
    free(before);
    free(after);
    free(out);
    parsed_free(q);
    parsed_free(p);
  }
}

/* The number of ops named NAME nested in op. */
static int count_ops(const Op *op, const char *name) {
  int n = 0;
  for (int r = 0; r < op->nregions; r++)
    for (int b = 0; b < op->regions[r].nblocks; b++)
      for (const Op *o = op->regions[r].blocks[b]->first; o; o = o->next)
        n += (strcmp(o->name, name) == 0) + count_ops(o, name);
  return n;
}

/* In VHLO form, one cast per value crossing between VHLO and another
 * dialect: %a and %1 into CHLO/check, %0 and %2 out of them. */
static void test_mixed_casts(void **state) {
  (void)state;
  Parsed *p = parse_text(mixed_module);
  assert_true(parsed_verify(p));
  assert_true(stablehlo_to_vhlo(p->c, p->m, VHLO_VERSION_CURRENT));
  assert_int_equal(count_ops(p->m->op, "builtin.unrealized_conversion_cast"), 4);
  assert_int_equal(count_ops(p->m->op, "vhlo.add_v1"), 1);
  assert_int_equal(count_ops(p->m->op, "chlo.broadcast_compare"), 1);
  BcInfo info = {0};
  assert_true(vhlo_to_stablehlo(p->c, p->m, &info));
  assert_int_equal(count_ops(p->m->op, "builtin.unrealized_conversion_cast"), 0);
  parsed_free(p);
}

/* tpucc's internal ops are refused, naming the op. */
static void test_refuse_internal_op(void **state) {
  (void)state;
  static const char text[] =
      "module {\n"
      "  \"vhlo.func_v1\"() <{arg_attrs = [], function_type = (tensor<f32>) -> tensor<f32>, res_attrs = [],\n"
      "                      sym_name = \"main\", sym_visibility = \"\"}> ({\n"
      "  ^bb0(%arg0: tensor<f32>):\n"
      "    \"tpu.yield\"(%arg0) : (tensor<f32>) -> ()\n"
      "  }) : () -> ()\n"
      "}\n";
  Parsed *p;
  size_t len;
  uint8_t *out = write_text(&p, text, "1.20.0", &len);
  assert_null(out);
  assert_non_null(strstr(parsed_diags(p), "tpu.yield"));
  assert_non_null(strstr(parsed_diags(p), "is not a VHLO op"));
  parsed_free(p);
}

int run_bc_write_tests(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_hand_made),
      cmocka_unit_test(test_format_0),
      cmocka_unit_test(test_dedupe),
      cmocka_unit_test(test_refuse_new_type),
      cmocka_unit_test(test_use_list_order),
      cmocka_unit_test(test_bool_tensors),
      cmocka_unit_test(test_mixed_round_trip),
      cmocka_unit_test(test_mixed_casts),
      cmocka_unit_test(test_refuse_internal_op),
      cmocka_unit_test(test_corpus),
  };
  return cmocka_run_group_tests_name("bc_write", tests, NULL, NULL);
}
