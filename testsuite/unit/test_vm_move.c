/* The data-movement kernels (vm/kernels/shape.c, vm/kernels/gather.c)
 * against naive references: transposes of every permutation of rank 3 and
 * 4 at odd sizes (large enough for the blocked, streamed and threaded
 * paths) in 4- and 2-byte elements, broadcasts (row, scalar, middle
 * dims), an embedding gather with out-of-range ids and a dynamic_slice of
 * rows; every one the same bits at 1 and 2 threads. */
#include "testsuite/unit/unit_tests.h"
#include "vm/vm.h"

enum { MAX_TEXT = 1 << 16 };

/* The type text of dims (rank n) of element `elem`. */
static void type_text(char *buf, size_t len, const int64_t *dims, int n, const char *elem) {
  size_t at = (size_t)snprintf(buf, len, "tensor<");
  for (int i = 0; i < n; i++) at += (size_t)snprintf(buf + at, len - at, "%lldx", (long long)dims[i]);
  snprintf(buf + at, len - at, "%s>", elem);
}

/* Runs @main of text on the operands (their bytes) at `threads` threads;
 * returns result 0's bytes (malloc'ed). */
static char *run_text(const char *text, void *const *args, int nargs, int threads) {
  size_t n;
  uint8_t *img = compile_text(text, &n);
  char err[256];
  VmProgram *prog = vm_program_load(img, n, err, sizeof err);
  if (!prog) fail_msg("load failed: %s", err);
  int fi = vm_program_find(prog, "main");
  const VmFunc *fn = &prog->funcs[fi];
  VmValue in[4], res;
  for (int i = 0; i < nargs; i++) in[i] = (VmValue){.type = fn->reg_types[i], .data = args[i]};
  VmOptions o = {.threads = threads};
  VmExec *x = vm_exec_new(prog, &o);
  if (vm_run(x, fi, in, nargs, &res) != VM_OK) fail_msg("run failed: %s", vm_error(x));
  char *out = malloc((size_t)res.type->nbytes + 1);
  memcpy(out, res.data, (size_t)res.type->nbytes);
  vm_value_free(&res);
  vm_exec_free(x);
  vm_program_free(prog);
  free(img);
  return out;
}

/* Expects text's result at 1 and 2 threads to be want (bytes). */
static void expect_result(const char *what, const char *text, void *const *args, int nargs, const void *want,
                          size_t bytes) {
  for (int threads = 1; threads <= 2; threads++) {
    char *got = run_text(text, args, nargs, threads);
    if (memcmp(got, want, bytes) != 0) fail_msg("%s differs from the reference at %d threads", what, threads);
    free(got);
  }
}

/* Distinct element bytes: element i holds i (truncated to es bytes). */
static char *iota_bytes(int64_t count, int es) {
  char *d = malloc((size_t)(count * es) + 1);
  for (int64_t i = 0; i < count; i++) {
    uint32_t v = (uint32_t)i * 2654435761u;
    memcpy(d + i * es, &v, (size_t)es);
  }
  return d;
}

/* The transpose of dims (rank n) by perm against the naive index walk. */
static void check_transpose(const int64_t *dims, int n, const int *perm, int es) {
  static char text[MAX_TEXT];
  char it[128], ot[128], plist[64] = "";
  int64_t odims[4], count = 1, istride[4], s = 1;
  assert_true(n >= 2 && n <= 4);
  for (int i = n - 1; i >= 0; i--) istride[i] = s, s *= dims[i];
  for (int i = 0; i < n; i++) odims[i] = dims[perm[i]], count *= dims[i];
  const char *elem = es == 4 ? "f32" : "bf16";
  type_text(it, sizeof it, dims, n, elem);
  type_text(ot, sizeof ot, odims, n, elem);
  for (int i = 0; i < n; i++) snprintf(plist + strlen(plist), sizeof plist - strlen(plist), "%s%d", i ? ", " : "", perm[i]);
  snprintf(text, sizeof text,
           "func.func @main(%%x: %s) -> %s {\n  %%r = stablehlo.transpose %%x, dims = [%s] : (%s) -> %s\n"
           "  return %%r : %s\n}\n",
           it, ot, plist, it, ot, ot);
  char *x = iota_bytes(count, es), *want = malloc((size_t)(count * es));
  int64_t idx[4] = {0};
  for (int64_t o = 0; o < count; o++) {
    int64_t off = 0;
    for (int i = 0; i < n; i++) off += idx[i] * istride[perm[i]];
    memcpy(want + o * es, x + off * es, (size_t)es);
    for (int i = n - 1; i >= 0 && ++idx[i] == odims[i]; i--) idx[i] = 0;
  }
  void *args[1] = {x};
  expect_result(plist, text, args, 1, want, (size_t)(count * es));
  free(x);
  free(want);
}

/* Calls check_transpose for every permutation of 0..n-1 (Heap's order). */
static void every_permutation(const int64_t *dims, int n, int es) {
  int perm[4], c[4] = {0};
  for (int i = 0; i < n; i++) perm[i] = i;
  check_transpose(dims, n, perm, es);
  for (int i = 1; i < n;) {
    if (c[i] < i) {
      int j = i % 2 ? c[i] : 0, t = perm[j];
      perm[j] = perm[i], perm[i] = t;
      check_transpose(dims, n, perm, es);
      c[i]++, i = 1;
    } else {
      c[i++] = 0;
    }
  }
}

static void test_transpose_rank3(void **state) {
  (void)state;
  const int64_t dims[3] = {67, 41, 197};
  every_permutation(dims, 3, 4);
  every_permutation(dims, 3, 2);
  /* Past 8 MiB: stored around the caches. */
  const int64_t big32[2] = {1031, 2053}, big16[2] = {2053, 2063};
  const int swap[2] = {1, 0};
  check_transpose(big32, 2, swap, 4);
  check_transpose(big16, 2, swap, 2);
}

static void test_transpose_rank4(void **state) {
  (void)state;
  const int64_t dims[4] = {13, 37, 9, 131};
  every_permutation(dims, 4, 4);
  every_permutation(dims, 4, 2);
  const int64_t bshd[4] = {3, 515, 12, 64};
  const int perm[4] = {0, 2, 1, 3};
  check_transpose(bshd, 4, perm, 4);
  check_transpose(bshd, 4, perm, 2);
}

/* broadcast_in_dim of a [a] or [a, c] operand (or a scalar) into out. */
static void check_broadcast(const int64_t *idims, int in_rank, const int64_t *odims, int out_rank, const int *map) {
  static char text[MAX_TEXT];
  char it[128], ot[128], mlist[64] = "";
  int64_t icount = 1, ocount = 1, istride[4] = {0}, s = 1;
  for (int i = in_rank - 1; i >= 0; i--) istride[i] = s, s *= idims[i], icount *= idims[i];
  for (int i = 0; i < out_rank; i++) ocount *= odims[i];
  type_text(it, sizeof it, idims, in_rank, "f32");
  type_text(ot, sizeof ot, odims, out_rank, "f32");
  for (int i = 0; i < in_rank; i++) snprintf(mlist + strlen(mlist), sizeof mlist - strlen(mlist), "%s%d", i ? ", " : "", map[i]);
  snprintf(text, sizeof text,
           "func.func @main(%%x: %s) -> %s {\n  %%r = stablehlo.broadcast_in_dim %%x, dims = [%s] : (%s) -> %s\n"
           "  return %%r : %s\n}\n",
           it, ot, mlist, it, ot, ot);
  char *x = iota_bytes(icount, 4), *want = malloc((size_t)(ocount * 4));
  int64_t idx[4] = {0};
  for (int64_t o = 0; o < ocount; o++) {
    int64_t off = 0;
    for (int i = 0; i < in_rank; i++) off += idx[map[i]] * istride[i];
    memcpy(want + o * 4, x + off * 4, 4);
    for (int i = out_rank - 1; i >= 0 && ++idx[i] == odims[i]; i--) idx[i] = 0;
  }
  void *args[1] = {x};
  expect_result(mlist[0] ? mlist : "scalar", text, args, 1, want, (size_t)(ocount * 4));
  free(x);
  free(want);
}

static void test_broadcasts(void **state) {
  (void)state;
  const int64_t row[1] = {1031}, out2[2] = {1203, 1031}, mid_in[2] = {37, 1031}, out3[3] = {37, 29, 1031};
  const int map_row[1] = {1}, map_mid[2] = {0, 2};
  check_broadcast(row, 1, out2, 2, map_row);
  check_broadcast(NULL, 0, out2, 2, NULL);
  check_broadcast(mid_in, 2, out3, 3, map_mid);
}

/* An embedding lookup (PyTorch's nn.Embedding export) with ids out of
 * range (clamped), and a dynamic_slice of rows with a start clamped. */
static void test_gather_rows(void **state) {
  (void)state;
  enum { V = 1001, D = 769, T = 2731 };
  static char text[MAX_TEXT];
  snprintf(text, sizeof text,
           "func.func @main(%%w: tensor<%dx%dxf32>, %%i: tensor<%dx1xi32>) -> tensor<%dx%dxf32> {\n"
           "  %%r = \"stablehlo.gather\"(%%w, %%i) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], "
           "collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, "
           "slice_sizes = array<i64: 1, %d>}> : (tensor<%dx%dxf32>, tensor<%dx1xi32>) -> tensor<%dx%dxf32>\n"
           "  return %%r : tensor<%dx%dxf32>\n}\n",
           V, D, T, T, D, D, V, D, T, T, D, T, D);
  char *w = iota_bytes((int64_t)V * D, 4), *want = malloc((size_t)T * D * 4);
  int32_t *ids = malloc(sizeof(int32_t) * T);
  for (int t = 0; t < T; t++) {
    ids[t] = (int32_t)((t * 7919) % (V + 40)) - 20;
    int32_t row = ids[t] < 0 ? 0 : ids[t] >= V ? V - 1 : ids[t];
    memcpy(want + (size_t)t * D * 4, w + (size_t)row * D * 4, (size_t)D * 4);
  }
  void *args[2] = {w, ids};
  expect_result("gather", text, args, 2, want, (size_t)T * D * 4);
  snprintf(text, sizeof text,
           "func.func @main(%%w: tensor<%dx%dxf32>, %%s: tensor<i32>, %%z: tensor<i32>) -> tensor<700x%dxf32> {\n"
           "  %%r = stablehlo.dynamic_slice %%w, %%s, %%z, sizes = [700, %d] : (tensor<%dx%dxf32>, tensor<i32>, "
           "tensor<i32>) -> tensor<700x%dxf32>\n  return %%r : tensor<700x%dxf32>\n}\n",
           V, D, D, D, V, D, D, D);
  int32_t start = 999, zero = 0;
  void *dargs[3] = {w, &start, &zero};
  expect_result("dynamic_slice", text, dargs, 3, w + (size_t)(V - 700) * D * 4, (size_t)700 * D * 4);
  free(w);
  free(want);
  free(ids);
}

int run_vm_move_tests(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_transpose_rank3),
      cmocka_unit_test(test_transpose_rank4),
      cmocka_unit_test(test_broadcasts),
      cmocka_unit_test(test_gather_rows),
  };
  return cmocka_run_group_tests_name("vm_move", tests, NULL, NULL);
}
