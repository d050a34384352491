/* The bytecode round trip: lowering, determinism, the loader's refusal of
 * truncated, corrupted and hostile images, and the VM's accounted memory. */
#include <dirent.h>
#include <math.h>
#include <xxhash.h>

#include "backend/backend.h"
#include "backend/emit.h"
#include "vm/dtype.h"
#include "testsuite/unit/unit_tests.h"
#include "vm/vm.h"

/* A program with calls, a loop, a region body, constants and a dot. */
static const char program_text[] =
    "func.func @main(%x: tensor<2x3xf32>, %w: tensor<3x2xf32>) -> (tensor<2x2xf32>, tensor<i32>) {\n"
    "  %d = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>\n"
    "  %one = stablehlo.constant dense<1.0> : tensor<2x2xf32>\n"
    "  %s = stablehlo.add %d, %one : tensor<2x2xf32>\n"
    "  %n = call @count() : () -> tensor<i32>\n"
    "  return %s, %n : tensor<2x2xf32>, tensor<i32>\n"
    "}\n"
    "func.func private @count() -> tensor<i32> {\n"
    "  %c0 = stablehlo.constant dense<0> : tensor<i32>\n"
    "  %c1 = stablehlo.constant dense<1> : tensor<i32>\n"
    "  %c5 = stablehlo.constant dense<5> : tensor<i32>\n"
    "  %r = stablehlo.while(%i = %c0) : tensor<i32>\n"
    "    cond {\n"
    "      %p = stablehlo.compare LT, %i, %c5 : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
    "      stablehlo.return %p : tensor<i1>\n"
    "    } do {\n"
    "      %j = stablehlo.add %i, %c1 : tensor<i32>\n"
    "      stablehlo.return %j : tensor<i32>\n"
    "    }\n"
    "  return %r : tensor<i32>\n"
    "}\n";

static uint8_t *compile_text(const char *text, size_t *n) {
  Parsed *p = parse_text(text);
  assert_non_null(p->m);
  assert_true(verify_module(p->c, p->m));
  BackendOptions bo = {.target = "v5e", .compiler_version = "test"};
  uint8_t *img = NULL;
  assert_true(backend_compile(p->c, p->m, &bo, &img, n));
  parsed_free(p);
  return img;
}

/* Runs @main on fixed inputs; returns the status and checks the results
 * when it succeeds. */
static int run_main(const VmProgram *prog, const VmOptions *o, bool expect_ok) {
  VmExec *x = vm_exec_new(prog, o);
  assert_non_null(x);
  int fi = vm_program_find(prog, "main");
  assert_true(fi >= 0);
  const VmFunc *fn = &prog->funcs[fi];
  float xs[6] = {1, 2, 3, 4, 5, 6}, ws[6] = {1, 0, 0, 1, 1, 1};
  VmValue args[2] = {{.type = fn->reg_types[0], .data = xs}, {.type = fn->reg_types[1], .data = ws}};
  VmValue res[2] = {{0}};
  int rc = vm_run(x, fi, args, 2, res);
  if (rc == VM_OK) {
    const float *s = res[0].data;
    /* [[1 2 3] [4 5 6]] x [[1 0] [0 1] [1 1]] + 1 = [[5 6] [11 12]] */
    assert_true(s[0] == 5 && s[1] == 6 && s[2] == 11 && s[3] == 12);
    assert_int_equal(*(const int32_t *)res[1].data, 5);
    vm_value_free(&res[0]);
    vm_value_free(&res[1]);
  } else {
    assert_false(expect_ok);
    assert_true(strlen(vm_error(x)) > 0);
  }
  vm_exec_free(x);
  return rc;
}

static void test_round_trip(void **state) {
  (void)state;
  size_t n;
  uint8_t *img = compile_text(program_text, &n);
  char err[256];
  VmProgram *prog = vm_program_load(img, n, err, sizeof err);
  if (!prog) fail_msg("load failed: %s", err);
  assert_string_equal(prog->target, "v5e");
  assert_int_equal(run_main(prog, NULL, true), VM_OK);
  vm_program_free(prog);
  free(img);
}

static void test_deterministic(void **state) {
  (void)state;
  size_t n1, n2;
  uint8_t *a = compile_text(program_text, &n1), *b = compile_text(program_text, &n2);
  assert_int_equal(n1, n2);
  assert_memory_equal(a, b, n1);
  free(a);
  free(b);
}

static void expect_refused(const uint8_t *img, size_t n, const char *reason) {
  char err[256] = "";
  VmProgram *p = vm_program_load(img, n, err, sizeof err);
  if (p) fail_msg("loaded a bad image (expected '%s')", reason);
  if (!strstr(err, reason)) fail_msg("reason '%s' does not mention '%s'", err, reason);
}

static void fix_checksum(uint8_t *img, size_t n) {
  TpubHeader *h = (TpubHeader *)img;
  h->checksum = 0;
  h->checksum = XXH3_64bits(img, n);
}

static void test_truncated(void **state) {
  (void)state;
  size_t n;
  uint8_t *img = compile_text(program_text, &n);
  for (size_t len = 0; len < n; len++) {
    char err[256] = "";
    VmProgram *p = vm_program_load(img, len, err, sizeof err);
    assert_null(p);
    assert_true(strlen(err) > 0);
  }
  expect_refused(img, 10, "truncated");
  expect_refused(img, n - 1, "truncated");
  free(img);
}

static void test_corrupted_header(void **state) {
  (void)state;
  size_t n;
  uint8_t *img = compile_text(program_text, &n);
  uint8_t *bad = malloc(n);
  memcpy(bad, img, n);
  bad[0] = 'X';
  expect_refused(bad, n, "bad magic");
  memcpy(bad, img, n);
  ((TpubHeader *)bad)->format_version = 99;
  expect_refused(bad, n, "format version 99");
  memcpy(bad, img, n);
  bad[n / 2] ^= 0x40;
  expect_refused(bad, n, "checksum mismatch");
  memcpy(bad, img, n);
  ((TpubHeader *)bad)->section_count = 1000;
  fix_checksum(bad, n);
  expect_refused(bad, n, "sections");
  /* A section pointing past the end. */
  memcpy(bad, img, n);
  TpubSection *sec = (TpubSection *)(bad + sizeof(TpubHeader));
  sec[1].count = 0x7fffffff;
  fix_checksum(bad, n);
  expect_refused(bad, n, "extends past the end");
  free(bad);
  free(img);
}

/* Every single-byte change with a repaired checksum is refused with a
 * reason, or loads and runs to a result or a trap: never a crash. */
static void test_every_byte_flip(void **state) {
  (void)state;
  size_t n;
  uint8_t *img = compile_text(program_text, &n);
  uint8_t *bad = malloc(n);
  FILE *devnull = fopen("/dev/null", "w");
  VmOptions o = {.hbm_bytes = 1 << 20, .max_instructions = 10000, .check_out = devnull, .warn_out = devnull};
  int loaded = 0;
  for (size_t i = sizeof(TpubHeader); i < n; i++) {
    static const uint8_t flips[] = {0x01, 0x80, 0xff};
    for (size_t k = 0; k < sizeof flips; k++) {
      memcpy(bad, img, n);
      bad[i] ^= flips[k];
      fix_checksum(bad, n);
      char err[256] = "";
      VmProgram *p = vm_program_load(bad, n, err, sizeof err);
      if (!p) {
        assert_true(strlen(err) > 0);
        continue;
      }
      loaded++;
      int fi = vm_program_find(p, "main");
      if (fi >= 0 && p->funcs[fi].n_params == 2) {
        VmExec *x = vm_exec_new(p, &o);
        const VmFunc *fn = &p->funcs[fi];
        float buf0[64] = {0}, buf1[64] = {0};
        if (fn->reg_types[0]->nbytes <= (int64_t)sizeof buf0 && fn->reg_types[1]->nbytes <= (int64_t)sizeof buf1) {
          VmValue args[2] = {{.type = fn->reg_types[0], .data = buf0}, {.type = fn->reg_types[1], .data = buf1}};
          VmValue *res = calloc(fn->n_results + 1, sizeof(VmValue));
          if (vm_run(x, fi, args, 2, res) == VM_OK)
            for (uint32_t r = 0; r < fn->n_results; r++) vm_value_free(&res[r]);
          free(res);
        }
        vm_exec_free(x);
      }
      vm_program_free(p);
    }
  }
  /* Some flips (e.g. in location line numbers or constant bytes) are
   * harmless: the loader must not be refusing everything. */
  assert_true(loaded > 0);
  fclose(devnull);
  free(bad);
  free(img);
}

/* The allocator hook: fail the k-th allocation. */
typedef struct FailingAlloc {
  int calls, fail_at;
} FailingAlloc;

static void *failing_realloc(void *ud, void *p, size_t old, size_t n) {
  FailingAlloc *f = ud;
  (void)old;
  if (n == 0) {
    free(p);
    return NULL;
  }
  if (++f->calls == f->fail_at) return NULL;
  return realloc(p, n);
}

static void test_allocation_failures(void **state) {
  (void)state;
  size_t n;
  uint8_t *img = compile_text(program_text, &n);
  char err[256];
  VmProgram *prog = vm_program_load(img, n, err, sizeof err);
  assert_non_null(prog);
  /* Every allocation of a run, failed in turn, ends in a clean trap. */
  for (int k = 1;; k++) {
    FailingAlloc fa = {0, k};
    VmOptions o = {.realloc_fn = failing_realloc, .realloc_ud = &fa};
    int rc = run_main(prog, &o, false);
    if (rc == VM_OK) break;
    assert_true(k < 10000);
  }
  /* A tiny HBM: the trap names the op and the capacity. */
  VmOptions small = {.hbm_bytes = 64};
  VmExec *x = vm_exec_new(prog, &small);
  int fi = vm_program_find(prog, "main");
  float xs[6] = {0}, ws[6] = {0};
  VmValue args[2] = {{.type = prog->funcs[fi].reg_types[0], .data = xs}, {.type = prog->funcs[fi].reg_types[1], .data = ws}};
  VmValue res[2] = {{0}};
  assert_int_equal(vm_run(x, fi, args, 2, res), VM_TRAP);
  assert_non_null(strstr(vm_error(x), "HBM"));
  vm_exec_free(x);
  vm_program_free(prog);
  free(img);
}

/* A chain of n functions, each calling the next: deeper than the VM's call
 * limit is refused by the loader (before it could recurse that deep). */
static void test_call_depth_limit(void **state) {
  (void)state;
  for (int n = 200; n <= 5000; n += 4800) {
    size_t cap = (size_t)n * 200 + 256, len = 0;
    char *text = malloc(cap);
    for (int i = 0; i < n; i++)
      len += (size_t)snprintf(text + len, cap - len,
                              "func.func %s@f%d(%%a: tensor<f32>) -> tensor<f32> {\n"
                              "  %%0 = call @f%d(%%a) : (tensor<f32>) -> tensor<f32>\n  return %%0 : tensor<f32>\n}\n",
                              i ? "private " : "", i, i + 1);
    snprintf(text + len, cap - len, "func.func private @f%d(%%a: tensor<f32>) -> tensor<f32> {\n  return %%a : tensor<f32>\n}\n", n);
    size_t size;
    uint8_t *img = compile_text(text, &size);
    char err[256] = "";
    VmProgram *p = vm_program_load(img, size, err, sizeof err);
    if (n < 256) {
      if (!p) fail_msg("a %d-deep call chain was refused: %s", n, err);
      vm_program_free(p);
    } else {
      assert_null(p);
      assert_non_null(strstr(err, "calls nest deeper than 256"));
    }
    free(img);
    free(text);
  }
}

/* The compiler's float codecs (ir/elem.c, used for constants) and the VM's
 * (vm/dtype.c, used when computing) are two copies, because the VM may not
 * link the IR: they must agree on every bit pattern of every float kind up
 * to 16 bits, and on rounding a spread of doubles into each kind. */
static void test_codecs_agree(void **state) {
  (void)state;
  for (int k = 0; k < ELEM_COUNT; k++) {
    TpubElem e;
    if (!elem_is_float((ElemKind)k) || !tpub_elem_of((ElemKind)k, &e)) continue;
    int bits = elem_bits((ElemKind)k);
    if (bits <= 16)
      for (uint64_t b = 0; b < (1ull << bits); b++) {
        double x = float_bits_to_double((ElemKind)k, b), y = vm_float_bits_to_f64(e, b);
        if (!(x == y || (x != x && y != y)) || (x == 0 && signbit(x) != signbit(y)))
          fail_msg("%s bits 0x%llx: ir %g, vm %g", elem_name((ElemKind)k), (unsigned long long)b, x, y);
      }
    uint64_t seed = 12345;
    for (int i = 0; i < 200000; i++) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      double d = ldexp((double)(int64_t)(seed >> 11) / (double)(1ull << 52), (int)((seed >> 3) % 80) - 40);
      uint64_t x = double_to_float_bits((ElemKind)k, d), y = vm_f64_to_float_bits(e, d);
      if (x != y) fail_msg("%s from %.17g: ir 0x%llx, vm 0x%llx", elem_name((ElemKind)k), d, (unsigned long long)x,
                           (unsigned long long)y);
    }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every input the loader fuzzer ever found a bug with, through the fuzz
 * harness itself (testsuite/fuzz/fuzz_loader.c, linked in): under `make
 * sanitize` a crash, UB or leak fails the run. */
static void test_loader_fuzz_regressions(void **state) {
  (void)state;
  static const char dir[] = "testsuite/fuzz/loader-regressions";
  DIR *d = opendir(dir);
  assert_non_null(d);
  int n = 0;
  for (struct dirent *ent; (ent = readdir(d));) {
    if (ent->d_name[0] == '.') continue;
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    uint8_t buf[1 << 16];
    size_t len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    assert_int_equal(LLVMFuzzerTestOneInput(buf, len), 0);
    n++;
  }
  closedir(d);
  assert_true(n > 0);
}

int run_bytecode_tests(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_round_trip),        cmocka_unit_test(test_deterministic),
      cmocka_unit_test(test_truncated),         cmocka_unit_test(test_corrupted_header),
      cmocka_unit_test(test_every_byte_flip),   cmocka_unit_test(test_allocation_failures),
      cmocka_unit_test(test_call_depth_limit),  cmocka_unit_test(test_codecs_agree),
      cmocka_unit_test(test_loader_fuzz_regressions),
  };
  return cmocka_run_group_tests_name("bytecode", tests, NULL, NULL);
}
