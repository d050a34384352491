/* The MLIR bytecode reader (frontend/bc_read*.c): every VHLO artifact of
 * the corpus and the chess model read; known ops and attribute values;
 * the refusal of a future version; hand-built files (a minimal module, a
 * reference cycle, a newer format); truncation at every byte offset and
 * single-byte corruption never crash and always end in a module or a
 * located error. */
#include <dirent.h>

#include "frontend/vhlo.h"
#include "testsuite/unit/unit_tests.h"

/* A read of bytes: its context (diagnostics captured), module and info. */
typedef struct Read {
  Context *c;
  Module *m;
  BcInfo info;
  SourceFile file;
  char *diag;
  size_t diag_len;
  FILE *out;
} Read;

static Read *read_bytes(const char *name, const void *data, size_t n) {
  Read *r = calloc(1, sizeof *r);
  r->c = ctx_new();
  r->out = open_memstream(&r->diag, &r->diag_len);
  r->c->diag.out = r->out;
  r->file = (SourceFile){name, data, n};
  r->m = bc_read_vhlo(r->c, &r->file, &r->info);
  fflush(r->out);
  return r;
}

static void read_free(Read *r) {
  fclose(r->out);
  free(r->diag);
  ctx_free(r->c);
  free(r);
}

static char *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)len + 1);
  *n = fread(buf, 1, (size_t)len, f);
  fclose(f);
  return buf;
}

static const char *corpus_root(void) {
  const char *env = getenv("TPU_CONFORMANCE_DIR");
  return env && *env ? env : "../shared/conformance";
}

/* A corpus file's bytes (NULL when the corpus is absent). */
static char *corpus_file(const char *rel, size_t *n) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", corpus_root(), rel);
  return slurp(path, n);
}

static long count_ops(const Op *op) {
  long n = 1;
  for (int i = 0; i < op->nregions; i++)
    for (int b = 0; b < op->regions[i].nblocks; b++)
      for (const Op *o = op->regions[i].blocks[b]->first; o; o = o->next) n += count_ops(o);
  return n;
}

static const Op *find_op(const Op *op, const char *name) {
  if (strcmp(op->name, name) == 0) return op;
  for (int i = 0; i < op->nregions; i++)
    for (int b = 0; b < op->regions[i].nblocks; b++)
      for (const Op *o = op->regions[i].blocks[b]->first; o; o = o->next) {
        const Op *f = find_op(o, name);
        if (f) return f;
      }
  return NULL;
}

static void test_corpus(void **state) {
  (void)state;
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/stablehlo/vhlo", corpus_root());
  DIR *d = opendir(dir);
  if (!d) {
    print_message("bc_read corpus: %s not found; skipped\n", dir);
    skip();
  }
  long files = 0, ops = 0;
  for (struct dirent *e; (e = readdir(d));) {
    size_t l = strlen(e->d_name);
    if (l < 8 || strcmp(e->d_name + l - 8, ".mlir.bc") != 0 || strncmp(e->d_name, "invalid_", 8) == 0) continue;
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    size_t n;
    char *buf = slurp(path, &n);
    assert_non_null(buf);
    Read *r = read_bytes(path, buf, n);
    if (!r->m) fail_msg("%s: %s", e->d_name, r->diag);
    assert_int_equal(r->c->diag.nerrors, 0);
    assert_true(r->info.has_vhlo_version);
    ops += count_ops(r->m->op);
    files++;
    read_free(r);
    free(buf);
  }
  closedir(d);
  size_t n;
  snprintf(dir, sizeof dir, "%s/../models/searchless_chess_9m.mlir.bc", corpus_root());
  char *buf = slurp(dir, &n);
  if (buf) {
    Read *r = read_bytes(dir, buf, n);
    if (!r->m) fail_msg("chess: %s", r->diag);
    ops += count_ops(r->m->op);
    files++;
    assert_non_null(find_op(r->m->op, "vhlo.dot_general_v1"));
    assert_string_equal(op_symbol_name(r->m->op), "jit_predict_sequence");
    read_free(r);
    free(buf);
  }
  print_message("bc_read corpus: %ld files, %ld ops\n", files, ops);
  assert_true(files >= 17);
}

/* The 1.20.0 artifact: format 6 with properties; its first test functions
 * compare with each direction, and result_accuracy comes out as the text
 * parser's attribute. */
static void test_known_file(void **state) {
  (void)state;
  size_t n;
  char *buf = corpus_file("stablehlo/vhlo/stablehlo_legalize_to_vhlo.1_20_0.mlir.bc", &n);
  if (!buf) skip();
  Read *r = read_bytes("a.bc", buf, n);
  assert_non_null(r->m);
  assert_int_equal((int)r->info.format_version, 6);
  assert_string_equal(r->info.producer, "StableHLO_v1.20.0");
  assert_int_equal(r->info.vhlo.minor, 20);
  assert_int_equal(r->m->op->kind, OP_MODULE);
  const Op *cmp = find_op(r->m->op, "vhlo.compare_v1");
  assert_non_null(cmp);
  assert_int_equal(cmp->kind, OP_UNKNOWN);
  assert_int_equal(cmp->noperands, 2);
  assert_int_equal(cmp->nresults, 1);
  Attr *eq = parse_attribute_text(r->c, "#stablehlo<comparison_direction EQ>", 35, (Loc){0});
  assert_non_null(eq);
  assert_true(attr_equal(op_attr(cmp, "comparison_direction"), eq));
  assert_string_equal(attr_enum_value(op_attr(cmp, "compare_type")), "NOTYPE");
  const Op *fn = cmp->parent->parent->parent;
  assert_string_equal(fn->name, "vhlo.func_v1");
  const Attr *sym = op_attr(fn, "sym_name");
  assert_true(sym && sym->kind == ATTR_STRING && strcmp(sym->u.str.s, "attr_comparison_direction_eq") == 0);
  const Op *exp = find_op(r->m->op, "vhlo.exponential_v2");
  assert_non_null(exp);
  const Attr *acc = op_attr(exp, "result_accuracy");
  assert_true(acc && acc->kind == ATTR_DIALECT && strcmp(acc->u.dialect.name, "stablehlo.result_accuracy") == 0);
  read_free(r);
  free(buf);
}

/* Format 0 (0.9.0): no dialect versions, attributes in the dictionary. */
static void test_format0_file(void **state) {
  (void)state;
  size_t n;
  char *buf = corpus_file("stablehlo/vhlo/stablehlo_legalize_to_vhlo.0_9_0.mlir.bc", &n);
  if (!buf) skip();
  Read *r = read_bytes("a.bc", buf, n);
  assert_non_null(r->m);
  assert_int_equal((int)r->info.format_version, 0);
  const Op *c = find_op(r->m->op, "vhlo.constant_v1");
  assert_non_null(c);
  const Attr *v = op_attr(c, "value");
  assert_true(v && v->kind == ATTR_DENSE);
  read_free(r);
  free(buf);
}

static void test_future_version(void **state) {
  (void)state;
  size_t n;
  char *buf = corpus_file("stablehlo/vhlo/invalid_vhlo_future.mlir.bc", &n);
  if (!buf) skip();
  Read *r = read_bytes("future.bc", buf, n);
  assert_null(r->m);
  assert_false(r->c->diag.bad_input);
  assert_non_null(strstr(r->diag, "2.0.0"));
  assert_non_null(strstr(r->diag, "StableHLO_v2.0.0"));
  read_free(r);
  free(buf);
}

/* A growable byte buffer for hand-built bytecode. */
typedef struct Bytes {
  uint8_t b[256];
  size_t n;
} Bytes;

static void put(Bytes *o, const char *s, size_t n) {
  memcpy(o->b + o->n, s, n);
  o->n += n;
}

static void section(Bytes *o, uint8_t id, const char *data, size_t n) {
  o->b[o->n++] = id;
  o->b[o->n++] = (uint8_t)(n << 1 | 1);
  put(o, data, n);
}

/* Format 1, strings "module", "builtin" and "f.py", one op name; attrs is the
 * attribute section (entry sizes in offsets), ir the IR section. */
static Bytes tiny_file(const char *offsets, size_t noff, const char *attrs, size_t nattrs, const char *ir, size_t nir) {
  Bytes o = {.n = 0};
  put(&o, "ML\xefR\x03x", 7);
  section(&o, 0, "\x07\x0b\x11\x0fmodule\0builtin\0f.py", 24);
  section(&o, 1, "\x03\x05\x01\x03\x01", 5);
  section(&o, 3, offsets, noff);
  section(&o, 2, attrs, nattrs);
  section(&o, 4, ir, nir);
  return o;
}

static void test_hand_built(void **state) {
  (void)state;
  /* attr 0: unknown location; one builtin.module with an empty region. */
  Bytes ok = tiny_file("\x03\x01\x01\x03\x07", 5, "\x1f", 1, "\x05\x01\x10\x01\x07\x01", 6);
  Read *r = read_bytes("tiny.bc", ok.b, ok.n);
  if (!r->m) fail_msg("%s", r->diag);
  assert_int_equal(r->m->op->kind, OP_MODULE);
  assert_int_equal(r->m->op->nregions, 1);
  read_free(r);
  /* Locations: "f.py"("f.py":3:4) on the module. */
  Bytes named = tiny_file("\x07\x01\x01\x07\x0b\x13\x0f", 7, "\x05\x05\x17\x01\x07\x09\x1d\x01\x03", 9,
                          "\x05\x01\x10\x05\x07\x01", 6);
  r = read_bytes("loc.bc", named.b, named.n);
  if (!r->m) fail_msg("%s", r->diag);
  assert_string_equal(r->m->op->srcloc, "loc(\"f.py\"(\"f.py\":3:4))");
  assert_string_equal(r->m->op->loc.file->name, "f.py");
  assert_null(r->m->op->loc.file->text);
  assert_int_equal(r->m->op->loc.line, 3);
  assert_int_equal(r->m->op->loc.col, 4);
  read_free(r);
  /* A dense_resource<"f.py"> : tensor<1xi32> module attribute and its blob. */
  Bytes res = tiny_file("\x09\x05\x01\x09\x07\x0b\x0f\x13\x01\x05\x13\x0f", 12,
                        "\x1f\x05\x05\x21\x01\x01\x03\x03\x03\x05\x1b\x03\x05\x03\x01\x02\x02", 17,
                        "\x05\x01\x11\x01\x07\x07\x01", 7);
  section(&res, 5, "\x03\x09\xde\xad\xbe\xef", 6);
  section(&res, 6, "\x01\x01\x03\x05\x0d\x00", 6);
  r = read_bytes("res.bc", res.b, res.n);
  if (!r->m) fail_msg("%s", r->diag);
  const Attr *w = op_attr(r->m->op, "f.py");
  assert_true(w && w->kind == ATTR_DENSE_RESOURCE && strcmp(w->u.resource.name, "f.py") == 0);
  assert_string_equal(type_to_string(r->c, w->type), "tensor<1xi32>");
  assert_int_equal(r->m->nresources, 1);
  assert_int_equal((int)r->m->resources[0].nbytes, 4);
  assert_int_equal(r->m->resources[0].data[3], 0xef);
  assert_string_equal(r->m->resources[0].hex, "0x01000000DEADBEEF");
  read_free(r);
  /* The same resource only declared (no data), as dense_resource<__elided__>. */
  res = tiny_file("\x09\x05\x01\x09\x07\x0b\x0f\x13\x01\x05\x13\x0f", 12,
                  "\x1f\x05\x05\x21\x01\x01\x03\x03\x03\x05\x1b\x03\x05\x03\x01\x02\x02", 17,
                  "\x05\x01\x11\x01\x07\x07\x01", 7);
  section(&res, 5, "", 0);
  section(&res, 6, "\x01\x01\x03\x05\x01\x00", 6);
  r = read_bytes("decl.bc", res.b, res.n);
  if (!r->m) fail_msg("%s", r->diag);
  assert_int_equal(r->m->nresources, 1);
  assert_null(r->m->resources[0].data);
  read_free(r);
  /* attr 0 = [attr 0]: a reference cycle, reported as corruption. */
  Bytes cyc = tiny_file("\x03\x01\x01\x03\x0f", 5, "\x01\x03\x01", 3, "\x05\x01\x10\x01\x07\x01", 6);
  r = read_bytes("cycle.bc", cyc.b, cyc.n);
  assert_null(r->m);
  assert_true(r->c->diag.bad_input);
  assert_non_null(strstr(r->diag, "cycle.bc:0:0: error: corrupt bytecode in the attribute/type section at byte offset"));
  assert_non_null(strstr(r->diag, "refers to itself"));
  read_free(r);
  /* Format 7: well-formed but newer than supported (exit 2). */
  ok.b[4] = 0x0f;
  r = read_bytes("new.bc", ok.b, ok.n);
  assert_null(r->m);
  assert_false(r->c->diag.bad_input);
  assert_non_null(strstr(r->diag, "format version 7"));
  read_free(r);
  /* Not bytecode at all. */
  r = read_bytes("text.bc", "module {}", 9);
  assert_null(r->m);
  assert_true(r->c->diag.bad_input);
  read_free(r);
}

/* Every proper prefix of path's bytes is an error with bad_input; every
 * stride-th single-byte change reads to a module or an error. */
static void damage(const char *rel, size_t stride) {
  size_t n;
  char *buf = corpus_file(rel, &n);
  if (!buf) skip();
  long truncated = 0, modules = 0, errors = 0;
  for (size_t k = 0; k < n; k++) {
    char *p = malloc(k + 1);
    memcpy(p, buf, k);
    Read *r = read_bytes("t.bc", p, k);
    if (r->m || !r->c->diag.bad_input || r->c->diag.nerrors == 0) fail_msg("prefix of %zu bytes: %s", k, r->diag);
    truncated++;
    read_free(r);
    free(p);
  }
  for (size_t k = 0; k < n; k += stride) {
    char *p = malloc(n);
    memcpy(p, buf, n);
    p[k] ^= (char)(0x55 + k % 170);
    Read *r = read_bytes("c.bc", p, n);
    if (r->m) modules++;
    else if (r->c->diag.nerrors > 0) errors++;
    else fail_msg("byte %zu changed: NULL without a diagnostic", k);
    read_free(r);
    free(p);
  }
  print_message("bc_read %s: %ld truncations refused; corruptions: %ld modules, %ld errors\n", rel, truncated, modules, errors);
  free(buf);
}

static void test_truncation_v6(void **state) {
  (void)state;
  damage("stablehlo/vhlo/stablehlo_legalize_to_vhlo.1_20_0.mlir.bc", 3);
}

static void test_truncation_v0(void **state) {
  (void)state;
  damage("stablehlo/vhlo/stablehlo_legalize_to_vhlo.0_9_0.mlir.bc", 5);
}

static void test_fragments(void **state) {
  (void)state;
  Context *c = ctx_new();
  c->diag.quiet = true;
  Type *t = parse_type_text(c, "tensor<2x?xf32>", 15, (Loc){0});
  assert_non_null(t);
  assert_int_equal(t->kind, TY_TENSOR);
  assert_int_equal(t->dims[1], DIM_DYNAMIC);
  Attr *a = parse_attribute_text(c, "[1 : i32, \"s\"]", 14, (Loc){0});
  assert_true(a && a->kind == ATTR_ARRAY && a->u.array.n == 2);
  assert_null(parse_attribute_text(c, "1 : i32 junk", 12, (Loc){0}));
  assert_null(parse_type_text(c, "", 0, (Loc){0}));
  ctx_free(c);
}

int run_bc_read_tests(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fragments),       cmocka_unit_test(test_hand_built),    cmocka_unit_test(test_corpus),
      cmocka_unit_test(test_known_file),      cmocka_unit_test(test_format0_file),  cmocka_unit_test(test_future_version),
      cmocka_unit_test(test_truncation_v6),   cmocka_unit_test(test_truncation_v0),
  };
  return cmocka_run_group_tests_name("bc_read", tests, NULL, NULL);
}
