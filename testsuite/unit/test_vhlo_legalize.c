/* VHLO form <-> StableHLO (frontend/vhlo_legalize*.c): the op table, round
 * trips of the shared pair files at their own and the current version,
 * op-version changes and the refusals. */
#include <dirent.h>

#include "frontend/vhlo.h"
#include "frontend/vhlo_legalize.h"
#include "testsuite/unit/unit_tests.h"

static void test_table(void **state) {
  (void)state;
  Context *c = ctx_new();
  VhloTable *t = vhlo_table(c);
  assert_int_equal(t->n, 145);
  for (int i = 0; i < t->n; i++) {
    const VhloOpRow *r = &t->rows[i];
    assert_ptr_equal(vhlo_row_by_name(t, r->name), r);
    assert_true(vhlo_version_cmp(r->since, r->until) <= 0);
    const VhloOpRow *cur = vhlo_row_current(t, r->kind);
    assert_int_equal(vhlo_version_cmp(cur->until, VHLO_VERSION_CURRENT), 0);
    assert_ptr_equal(vhlo_row_at(t, r->kind, r->since), r);
  }
  const VhloOpRow *dot = vhlo_row_by_name(t, "vhlo.dot_general_v2");
  assert_non_null(dot);
  assert_int_equal(dot->kind, OP_DOT_GENERAL);
  assert_int_equal(vhlo_row_attr(dot, "allow_imprecise_accumulation")->def, VD_NONETYPE);
  assert_int_equal(vhlo_row_attr(dot, "precision_config")->def, VD_PREC);
  assert_string_equal(vhlo_row_at(t, OP_DOT_GENERAL, (VhloVersion){1, 5, 0})->name, "vhlo.dot_general_v1");
  assert_null(vhlo_row_at(t, OP_TAN, (VhloVersion){1, 3, 0}));
  assert_int_equal(vhlo_row_attr(vhlo_row_by_name(t, "vhlo.call_v1"), "callee")->rule, VR_SYM);
  ctx_free(c);
}

/* Drops what upstream's printer leaves out but ours prints as written:
 * custom_call's api_version = 1 and a default result_accuracy. */
static void drop_printed_defaults(Op *op) {
  for (int r = 0; r < op->nregions; r++)
    for (int b = 0; b < op->regions[r].nblocks; b++)
      for (Op *o = op->regions[r].blocks[b]->first; o; o = o->next) {
        int k = 0;
        for (int i = 0; i < o->nattrs; i++) {
          const NamedAttr *na = &o->attrs[i];
          bool api = o->kind == OP_CUSTOM_CALL && strcmp(na->name, "api_version") == 0 &&
                     na->value->kind == ATTR_INT && na->value->u.i == 1;
          bool acc = strcmp(na->name, "result_accuracy") == 0 && vhlo_is_default(na->value, VD_ACC);
          if (!api && !acc) o->attrs[k++] = *na;
        }
        o->nattrs = k;
        drop_printed_defaults(o);
      }
}

/* Parses path, prints it (P1), converts it to VHLO at v and back, prints
 * it again (P2): P1 == P2. */
static void round_trip_file(const char *path, VhloVersion v) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *text = malloc((size_t)n + 1);
  assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  Parsed *p = parse_file_text(path, text, (size_t)n, 5, false);
  free(text);
  if (!p->m) print_message("%s: %s\n", path, parsed_diags(p));
  assert_non_null(p->m);
  drop_printed_defaults(p->m->op);
  char *p1 = parsed_print(p, false);
  bool to = stablehlo_to_vhlo(p->c, p->m, v);
  if (!to) print_message("%s at %d.%d.%d: %s\n", path, v.major, v.minor, v.patch, parsed_diags(p));
  assert_true(to);
  assert_true(vhlo_to_stablehlo(p->c, p->m, NULL));
  char *p2 = parsed_print(p, false);
  if (strcmp(p1, p2) != 0) print_message("%s at %d.%d.%d: round trip differs\n", path, v.major, v.minor, v.patch);
  assert_string_equal(p1, p2);
  free(p1);
  free(p2);
  parsed_free(p);
}

/* Reads path's bytes into buf (malloc'd), NULL if absent. */
static char *read_all(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  *n = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc(*n + 1);
  if (fread(buf, 1, *n, f) != *n) *n = 0;
  buf[*n] = 0;
  fclose(f);
  return buf;
}

/* The pair path (X.mlir) and X.mlir.bc: the artifact read and converted
 * to StableHLO prints as the text does. */
static void bc_pair(const char *path) {
  size_t n, bn;
  char *text = read_all(path, &n);
  char bcpath[8300];
  snprintf(bcpath, sizeof bcpath, "%s.bc", path);
  char *bc = read_all(bcpath, &bn);
  assert_non_null(text);
  assert_non_null(bc);
  Parsed *p = parse_file_text(path, text, n, 5, false);
  assert_non_null(p->m);
  drop_printed_defaults(p->m->op);
  char *p1 = parsed_print(p, false);
  SourceFile bf = {bcpath, bc, bn};
  BcInfo info = {0};
  Module *m = bc_read_vhlo(p->c, &bf, &info);
  if (!m) print_message("%s: %s\n", bcpath, parsed_diags(p));
  assert_non_null(m);
  bool ok = vhlo_to_stablehlo(p->c, m, &info);
  if (!ok) print_message("%s: %s\n", bcpath, parsed_diags(p));
  assert_true(ok);
  char *p2 = print_module_string(p->c, m, &(PrintOptions){0});
  if (strcmp(p1, p2) != 0) print_message("%s: the artifact reads unlike the text\n", bcpath);
  assert_string_equal(p1, p2);
  free(p1);
  free(p2);
  free(text);
  free(bc);
  parsed_free(p);
}

static void test_shared_pairs(void **state) {
  (void)state;
  const char *env = getenv("TPU_CONFORMANCE_DIR");
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/stablehlo/vhlo", env && *env ? env : "../shared/conformance");
  DIR *d = opendir(dir);
  if (!d) {
    print_message("vhlo pairs: %s not found; skipped\n", dir);
    skip();
  }
  int files = 0;
  for (struct dirent *e; (e = readdir(d));) {
    VhloVersion v;
    char ver[32];
    size_t len = strlen(e->d_name);
    if (strncmp(e->d_name, "stablehlo_legalize_to_vhlo.", 27) != 0 || len < 33 ||
        strcmp(e->d_name + len - 5, ".mlir") != 0 || len - 32 >= sizeof ver)
      continue;
    memcpy(ver, e->d_name + 27, len - 32);
    ver[len - 32] = 0;
    for (char *q = ver; *q; q++)
      if (*q == '_') *q = '.';
    assert_true(vhlo_version_parse(ver, &v));
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    round_trip_file(path, VHLO_VERSION_CURRENT);
    round_trip_file(path, v);
    bc_pair(path);
    files++;
  }
  closedir(d);
  print_message("vhlo pairs: %d files round-tripped at their version and %d.%d.%d, their .bc read as the text\n", files,
                VHLO_VERSION_CURRENT.major, VHLO_VERSION_CURRENT.minor, VHLO_VERSION_CURRENT.patch);
  assert_true(files > 0);
}

/* The first op of the first function, after conversion. */
static Op *first_op(Parsed *p) { return op_body(op_body(p->m->op)->first)->first; }

static void test_versions(void **state) {
  (void)state;
  const char *text =
      "func.func @f(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %i: tensor<1xi32>) -> tensor<2x4xf32> {\n"
      "  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>\n"
      "  func.return %0 : tensor<2x4xf32>\n"
      "}\n";
  for (int k = 0; k < 2; k++) {
    Parsed *p = parse_text(text);
    assert_non_null(p->m);
    char *p1 = parsed_print(p, false);
    assert_true(stablehlo_to_vhlo(p->c, p->m, k ? (VhloVersion){1, 5, 0} : VHLO_VERSION_CURRENT));
    Op *dot = first_op(p);
    assert_string_equal(dot->name, k ? "vhlo.dot_general_v1" : "vhlo.dot_general_v2");
    assert_int_equal(dot->kind, OP_UNKNOWN);
    assert_non_null(op_attr(dot, "lhs_contracting_dimensions"));
    assert_int_equal(op_attr(dot, "precision_config")->u.array.n, 2);
    assert_true(k ? !op_attr(dot, "accumulation_type") : vhlo_is_default(op_attr(dot, "accumulation_type"), VD_NONETYPE));
    assert_string_equal(dot->next->name, "vhlo.return_v1");
    assert_string_equal(op_body(p->m->op)->first->name, "vhlo.func_v1");
    assert_true(vhlo_to_stablehlo(p->c, p->m, NULL));
    assert_int_equal(first_op(p)->kind, OP_DOT_GENERAL);
    assert_int_equal(first_op(p)->next->kind, OP_FUNC_RETURN);
    char *p2 = parsed_print(p, false);
    assert_string_equal(p1, p2);
    free(p1);
    free(p2);
    parsed_free(p);
  }
}

/* stablehlo_to_vhlo of text at v fails with a diagnostic containing each
 * of want (NULL-terminated). */
static void refused(const char *text, VhloVersion v, const char *const *want) {
  Parsed *p = parse_text(text);
  assert_non_null(p->m);
  assert_false(stablehlo_to_vhlo(p->c, p->m, v));
  assert_false(p->c->diag.bad_input);
  const char *d = parsed_diags(p);
  for (int i = 0; want[i]; i++) {
    if (!strstr(d, want[i])) print_message("missing '%s' in: %s\n", want[i], d);
    assert_non_null(strstr(d, want[i]));
  }
  parsed_free(p);
}

static void test_refusals(void **state) {
  (void)state;
  refused("func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
          "  %0 = stablehlo.tan %a : tensor<4xf32>\n"
          "  func.return %0 : tensor<4xf32>\n}\n",
          (VhloVersion){0, 9, 0}, (const char *const[]){"stablehlo.tan", "0.9.0", "1.4.0", NULL});
  refused("func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<8xf32>, tensor<8xf32>) {\n"
          "  %0:2 = \"stablehlo.all_gather\"(%a, %b) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : "
          "tensor<1x2xi64>} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<8xf32>, tensor<8xf32>)\n"
          "  func.return %0#0, %0#1 : tensor<8xf32>, tensor<8xf32>\n}\n",
          (VhloVersion){1, 4, 0}, (const char *const[]){"stablehlo.all_gather", "1.5.0", NULL});
  refused("func.func @f(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {\n"
          "  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0], algorithm = <lhs_precision_type = f32, "
          "rhs_precision_type = f32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, "
          "num_primitive_operations = 1, allow_imprecise_accumulation = false> : (tensor<2x3xf32>, tensor<3x4xf32>) "
          "-> tensor<2x4xf32>\n"
          "  func.return %0 : tensor<2x4xf32>\n}\n",
          (VhloVersion){1, 5, 0}, (const char *const[]){"stablehlo.dot_general", "1.6.0", "accumulation_type", NULL});
  refused("func.func @f(%a: tensor<4xf8E4M3>) -> tensor<4xf8E4M3> {\n  func.return %a : tensor<4xf8E4M3>\n}\n",
          (VhloVersion){1, 6, 0}, (const char *const[]){"f8E4M3", "1.7.0", "1.6.0", NULL});
  refused("func.func @f() attributes {stablehlo.attr = tf32} {\n  func.return\n}\n", (VhloVersion){1, 5, 0},
          (const char *const[]){"stablehlo.attr", "1.6.0", NULL});
  refused("func.func @f(%a: tensor<f32>) -> tensor<f32> {\n"
          "  %0 = stablehlo.exponential %a {result_accuracy = #stablehlo.result_accuracy<atol = 1.0e-05, rtol = 0.0, "
          "ulps = 1, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>} : tensor<f32>\n"
          "  func.return %0 : tensor<f32>\n}\n",
          (VhloVersion){1, 8, 0}, (const char *const[]){"stablehlo.exponential", "result_accuracy", "1.9.0", NULL});
  refused("func.func @f(%a: tensor<2x!quant.uniform<i8:f32:0, {34.0:16, 34.0:16}>>) -> tensor<2x!quant.uniform<i8:f32:0, "
          "{34.0:16, 34.0:16}>> {\n  func.return %a : tensor<2x!quant.uniform<i8:f32:0, {34.0:16, 34.0:16}>>\n}\n",
          (VhloVersion){0, 17, 0}, (const char *const[]){"0.18.0", NULL});
  refused("func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n  func.return %a : tensor<4xf32>\n}\n",
          (VhloVersion){0, 8, 0}, (const char *const[]){"0.8.0", NULL});
}

static void test_unknown_vhlo_op(void **state) {
  (void)state;
  Parsed *p = parse_text("func.func @f() -> tensor<f32> {\n"
                         "  %0 = stablehlo.constant dense<1.0> : tensor<f32>\n"
                         "  func.return %0 : tensor<f32>\n}\n");
  assert_non_null(p->m);
  assert_true(stablehlo_to_vhlo(p->c, p->m, VHLO_VERSION_CURRENT));
  Op *k = first_op(p);
  assert_string_equal(k->name, "vhlo.constant_v1");
  k->name = "vhlo.constant_v99";
  BcInfo info = {6, "StableHLO_v2.0.0", {2, 0, 0}, true};
  assert_false(vhlo_to_stablehlo(p->c, p->m, &info));
  assert_false(p->c->diag.bad_input);
  const char *d = parsed_diags(p);
  assert_non_null(strstr(d, "vhlo.constant_v99"));
  assert_non_null(strstr(d, "StableHLO_v2.0.0"));
  assert_non_null(strstr(d, "2.0.0"));
  parsed_free(p);
}

/* An older op version read back as the current one: a gather_v1 gets
 * empty batching dims, a custom_call_v1 no result_tilings. */
static void test_upgrade(void **state) {
  (void)state;
  Parsed *p = parse_text(
      "func.func @f(%a: tensor<3x4xf32>, %i: tensor<2x1xi64>) -> tensor<2x4xf32> {\n"
      "  %0 = \"stablehlo.gather\"(%a, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], "
      "collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 4>} : "
      "(tensor<3x4xf32>, tensor<2x1xi64>) -> tensor<2x4xf32>\n"
      "  func.return %0 : tensor<2x4xf32>\n}\n");
  assert_non_null(p->m);
  char *p1 = parsed_print(p, false);
  assert_true(stablehlo_to_vhlo(p->c, p->m, (VhloVersion){1, 0, 0}));
  Op *g = first_op(p);
  assert_string_equal(g->name, "vhlo.gather_v1");
  assert_null(op_attr(g, "operand_batching_dims"));
  assert_int_equal(op_attr(g, "slice_sizes")->kind, ATTR_DENSE);
  assert_true(vhlo_is_default(op_attr(g, "indices_are_sorted"), VD_FALSE));
  assert_true(vhlo_to_stablehlo(p->c, p->m, NULL));
  assert_int_equal(first_op(p)->kind, OP_GATHER);
  char *p2 = parsed_print(p, false);
  assert_string_equal(p1, p2);
  free(p1);
  free(p2);
  parsed_free(p);
}

/* A mixed module's identity casts are removed, their uses rewired. */
static void test_mixed_casts(void **state) {
  (void)state;
  Parsed *p = parse_text("func.func @f(%a: tensor<f32>) -> tensor<f32> {\n"
                         "  %0 = \"builtin.unrealized_conversion_cast\"(%a) : (tensor<f32>) -> tensor<f32>\n"
                         "  %1 = stablehlo.add %0, %0 : tensor<f32>\n"
                         "  func.return %1 : tensor<f32>\n}\n");
  assert_non_null(p->m);
  assert_true(vhlo_to_stablehlo(p->c, p->m, NULL));
  Op *add = first_op(p);
  assert_int_equal(add->kind, OP_ADD);
  assert_ptr_equal(add->operands[0], &op_body(first_func(p->m))->args[0]);
  parsed_free(p);
}

int run_vhlo_legalize_tests(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_table),    cmocka_unit_test(test_versions),       cmocka_unit_test(test_refusals),
      cmocka_unit_test(test_upgrade),  cmocka_unit_test(test_unknown_vhlo_op), cmocka_unit_test(test_shared_pairs),
      cmocka_unit_test(test_mixed_casts),
  };
  return cmocka_run_group_tests_name("vhlo_legalize", tests, NULL, NULL);
}
