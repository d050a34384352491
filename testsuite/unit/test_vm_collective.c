/* The collectives (vm/kernels/collective.c, vm/kernels/channel.c) below the tools: the
 * loader refuses hostile group, pair and dimension fields, and all_reduce
 * on a slice of chips (vm/chips/chips.c) gives the bits of a sequential left
 * fold in group order, on the fast path and the region path, whatever the
 * host thread count. */
#include <math.h>
#include <xxhash.h>

#include "testsuite/unit/unit_tests.h"
#include "vm/vm.h"

static void fix_checksum(uint8_t *img, size_t n) {
  TpubHeader *h = (TpubHeader *)img;
  h->checksum = 0;
  h->checksum = XXH3_64bits(img, n);
}

static void expect_refused(const uint8_t *img, size_t n, const char *reason) {
  char err[256] = "";
  VmProgram *p = vm_program_load(img, n, err, sizeof err);
  if (p) fail_msg("loaded a bad image (expected '%s')", reason);
  if (!strstr(err, reason)) fail_msg("reason '%s' does not mention '%s'", err, reason);
}

/* The first place the INTS section holds the len values v (fails the test
 * when there is none). */
static int64_t *find_ints(uint8_t *img, const int64_t *v, int len) {
  const TpubSection *sec = (const TpubSection *)(img + sizeof(TpubHeader));
  while (sec->kind != TPUB_SEC_INTS) sec++;
  int64_t *ints = (int64_t *)(img + sec->offset);
  for (uint32_t i = 0; i + (uint32_t)len <= sec->count; i++)
    if (memcmp(&ints[i], v, sizeof(int64_t) * (size_t)len) == 0) return &ints[i];
  fail_msg("field pattern not found");
  return NULL;
}

static const char fields_program[] =
    "func.func @main(%x: tensor<4x6xf32>, %t: !stablehlo.token) -> (tensor<4x6xf32>, tensor<4x12xf32>, "
    "tensor<8x3xf32>, tensor<4x6xf32>, !stablehlo.token) {\n"
    "  %r = \"stablehlo.all_reduce\"(%x) ({\n"
    "    ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
    "      %s = stablehlo.add %a, %b : tensor<f32>\n"
    "      stablehlo.return %s : tensor<f32>\n"
    "  }) {replica_groups = dense<[[10, 11], [12, 13]]> : tensor<2x2xi64>, channel_handle = "
    "#stablehlo.channel_handle<handle = 77, type = 1>} : (tensor<4x6xf32>) -> tensor<4x6xf32>\n"
    "  %g = \"stablehlo.all_gather\"(%x) {all_gather_dim = 1 : i64, replica_groups = dense<[[20, 21]]> : "
    "tensor<1x2xi64>} : (tensor<4x6xf32>) -> tensor<4x12xf32>\n"
    "  %a = \"stablehlo.all_to_all\"(%x) {split_dimension = 1 : i64, concat_dimension = 0 : i64, split_count = 2 : "
    "i64, replica_groups = dense<[[30, 31]]> : tensor<1x2xi64>} : (tensor<4x6xf32>) -> tensor<8x3xf32>\n"
    "  %p = \"stablehlo.collective_permute\"(%x) {source_target_pairs = dense<[[40, 41], [41, 42]]> : "
    "tensor<2x2xi64>} : (tensor<4x6xf32>) -> tensor<4x6xf32>\n"
    "  %s = \"stablehlo.send\"(%x, %t) {channel_handle = #stablehlo.channel_handle<handle = 55, type = 2>, "
    "is_host_transfer = true} : (tensor<4x6xf32>, !stablehlo.token) -> !stablehlo.token\n"
    "  return %r, %g, %a, %p, %s : tensor<4x6xf32>, tensor<4x12xf32>, tensor<8x3xf32>, tensor<4x6xf32>, "
    "!stablehlo.token\n"
    "}\n";

/* Every bad field the validators must refuse, one patch at a time. */
static void test_validators(void **state) {
  (void)state;
  size_t n;
  uint8_t *img = compile_text(fields_program, &n);
  char err[256];
  VmProgram *p = vm_program_load(img, n, err, sizeof err);
  if (!p) fail_msg("load failed: %s", err);
  vm_program_free(p);
  /* groups:l group_size:i mode:i channel:i of each op, as written. */
  static const int64_t ar[] = {4, 10, 11, 12, 13, 2, 2, 77}, ag[] = {2, 20, 21, 2, 0, 0, 1};
  static const int64_t a2a[] = {2, 30, 31, 2, 0, 0, 1, 0, 2}, cp[] = {4, 40, 41, 41, 42, 0, 0};
  static const int64_t snd[] = {0, 1, 55, 1};
  int64_t *far = find_ints(img, ar, 8), *fag = find_ints(img, ag, 7);
  int64_t *fa2a = find_ints(img, a2a, 9), *fcp = find_ints(img, cp, 7), *fsnd = find_ints(img, snd, 4);
  const struct {
    int64_t *field, value;
    const char *reason;
  } cases[] = {
      {&far[2], 10, "all_reduce: replica_groups names 10 twice"},
      {&far[3], -2, "all_reduce: group entry -2 is negative"},
      {&far[5], 3, "all_reduce: 4 group entries do not make groups of 3"},
      {&far[5], 0, "all_reduce: 4 group entries do not make groups of 0"},
      {&far[6], 1, "all_reduce: mode 1 is not allowed"},
      {&far[6], 4, "all_reduce: mode 4 is not allowed"},
      {&fag[6], 2, "all_gather: dim 2 is not a dimension of operand 0"},
      {&fag[6], -1, "all_gather: dim -1 is not a dimension of operand 0"},
      {&fag[6], 0, "all_gather: result 0 differs from operand 0 in dimension 1"},
      {&fag[4], 1, "all_gather: mode 1 is not allowed"},
      {&fa2a[8], 0, "all_to_all: split_count 0 is not in [1, 4096]"},
      {&fa2a[8], 4, "all_to_all: groups of 2 for a split_count of 4"},
      {&fa2a[6], 9, "all_to_all: split_dim 9 or concat_dim 0 out of range"},
      {&fa2a[7], 1, "all_to_all: result 0 has 8 in dimension 0, expected 4"},
      {&fa2a[4], 2, "all_to_all: mode 2 is not allowed"},
      {&fcp[2], 42, "collective_permute: the targets of source_target_pairs names 42 twice"},
      {&fcp[3], 40, "collective_permute: the sources of source_target_pairs names 40 twice"},
      {&fcp[1], -1, "collective_permute: source_target_pairs entry -1 is negative"},
      {&fcp[5], 3, "collective_permute: mode 3 is not allowed"},
      {&fsnd[3], 2, "send: host flag 2"},
  };
  uint8_t *bad = malloc(n);
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    memcpy(bad, img, n);
    *(int64_t *)(bad + ((uint8_t *)cases[k].field - img)) = cases[k].value;
    fix_checksum(bad, n);
    expect_refused(bad, n, cases[k].reason);
  }
  free(bad);
  free(img);
}

/* 5 chips, 100003 elements (not a multiple of the 64-element chunks): the
 * one-add body (fast path) and 2a + b (called per element). */
static const char reduce_program[] =
    "func.func @sum(%x: tensor<100003xf32>) -> tensor<100003xf32> {\n"
    "  %r = \"stablehlo.all_reduce\"(%x) ({\n"
    "    ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
    "      %s = stablehlo.add %a, %b : tensor<f32>\n"
    "      stablehlo.return %s : tensor<f32>\n"
    "  }) {replica_groups = dense<[[3, 1, 4, 0, 2]]> : tensor<1x5xi64>} : (tensor<100003xf32>) -> "
    "tensor<100003xf32>\n"
    "  return %r : tensor<100003xf32>\n"
    "}\n"
    "func.func @twice(%x: tensor<100003xf32>) -> tensor<100003xf32> {\n"
    "  %r = \"stablehlo.all_reduce\"(%x) ({\n"
    "    ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
    "      %two = stablehlo.constant dense<2.0> : tensor<f32>\n"
    "      %m = stablehlo.multiply %a, %two : tensor<f32>\n"
    "      %s = stablehlo.add %m, %b : tensor<f32>\n"
    "      stablehlo.return %s : tensor<f32>\n"
    "  }) {replica_groups = dense<[[3, 1, 4, 0, 2]]> : tensor<1x5xi64>} : (tensor<100003xf32>) -> "
    "tensor<100003xf32>\n"
    "  return %r : tensor<100003xf32>\n"
    "}\n";

enum { CHIPS = 5, COUNT = 100003 };

/* Runs function name on CHIPS chips with `threads` host threads; every
 * chip's result must be `want`. */
static void run_on_slice(const VmProgram *p, const char *name, int threads, float *const *data, const float *want) {
  VmOptions o = {.threads = threads};
  VmMesh mesh = {CHIPS, 1, 1, {CHIPS, 1, 1}};
  VmSlice *s = vm_slice_new(p, &o, &mesh);
  assert_non_null(s);
  int fi = vm_program_find(p, name), fns[CHIPS];
  assert_true(fi >= 0);
  VmValue args[CHIPS], res[CHIPS];
  const VmValue *argp[CHIPS];
  VmValue *resp[CHIPS];
  for (int c = 0; c < CHIPS; c++) {
    fns[c] = fi;
    args[c] = (VmValue){.type = p->funcs[fi].reg_types[0], .data = data[c]};
    argp[c] = &args[c];
    resp[c] = &res[c];
  }
  if (vm_slice_run(s, fns, argp, resp) != VM_OK) fail_msg("%s: %s", name, vm_slice_error(s));
  for (int c = 0; c < CHIPS; c++) {
    if (memcmp(res[c].data, want, sizeof(float) * COUNT) != 0)
      fail_msg("%s with %d threads: chip %d differs from the left fold", name, threads, c);
    vm_value_free(&res[c]);
  }
  vm_slice_free(s);
}

static void test_all_reduce_bits(void **state) {
  (void)state;
  size_t n;
  uint8_t *img = compile_text(reduce_program, &n);
  char err[256];
  VmProgram *p = vm_program_load(img, n, err, sizeof err);
  if (!p) fail_msg("load failed: %s", err);
  float *data[CHIPS], *sum = malloc(sizeof(float) * COUNT), *twice = malloc(sizeof(float) * COUNT);
  for (int c = 0; c < CHIPS; c++) {
    data[c] = malloc(sizeof(float) * COUNT);
    for (int i = 0; i < COUNT; i++) data[c][i] = sinf(0.001f * (float)i * (float)(c + 1)) * 1e3f + (float)c;
  }
  /* Left folds in the group order 3, 1, 4, 0, 2. */
  static const int order[CHIPS] = {3, 1, 4, 0, 2};
  for (int i = 0; i < COUNT; i++) {
    volatile float s = data[order[0]][i], t = data[order[0]][i];
    for (int k = 1; k < CHIPS; k++) {
      s = s + data[order[k]][i];
      volatile float m = t * 2.0f;
      t = m + data[order[k]][i];
    }
    sum[i] = s;
    twice[i] = t;
  }
  for (int threads = 1; threads <= 4; threads += 3) {
    run_on_slice(p, "sum", threads, data, sum);
    run_on_slice(p, "twice", threads, data, twice);
  }
  for (int c = 0; c < CHIPS; c++) free(data[c]);
  free(sum);
  free(twice);
  vm_program_free(p);
  free(img);
}

int run_vm_collective_tests(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_validators),
      cmocka_unit_test(test_all_reduce_bits),
  };
  return cmocka_run_group_tests_name("vm_collective", tests, NULL, NULL);
}
