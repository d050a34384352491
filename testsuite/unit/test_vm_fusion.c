/* The FUSION opcode (vm/kernels/fusion.c): the loader refuses a body whose
 * signature does not match; a loop body runs in tile scratch (its peak
 * memory is the result, not the intermediates), gives the same bits for
 * every thread count, and ends in a clean trap when any allocation fails. */
#include <xxhash.h>

#include "backend/backend.h"
#include "testsuite/unit/unit_tests.h"
#include "vm/vm.h"

#define N (1 << 20)

/* A loop fusion over N f32 (@fused), the same body that cannot run by tiles
 * (@whole: a transpose of a square-shaped reshape makes it whole-buffer),
 * and a second fusion over i32 (@ints). */
static const char fusion_text[] =
    "func.func @fused(%x: tensor<1048576xf32>, %y: tensor<1048576xf32>) -> tensor<1048576xf32> {\n"
    "  %r = \"tpu.fusion\"(%x, %y) ({\n"
    "  ^bb0(%a: tensor<1048576xf32>, %b: tensor<1048576xf32>):\n"
    "    %c = stablehlo.constant dense<0.5> : tensor<1048576xf32>\n"
    "    %0 = stablehlo.multiply %a, %b : tensor<1048576xf32>\n"
    "    %1 = stablehlo.add %0, %a : tensor<1048576xf32>\n"
    "    %2 = stablehlo.maximum %1, %b : tensor<1048576xf32>\n"
    "    %3 = stablehlo.multiply %2, %c : tensor<1048576xf32>\n"
    "    \"tpu.yield\"(%3) : (tensor<1048576xf32>) -> ()\n"
    "  }) {kind = \"loop\"} : (tensor<1048576xf32>, tensor<1048576xf32>) -> tensor<1048576xf32>\n"
    "  return %r : tensor<1048576xf32>\n"
    "}\n"
    "func.func @whole(%x: tensor<1048576xf32>, %y: tensor<1048576xf32>) -> tensor<1048576xf32> {\n"
    "  %r = \"tpu.fusion\"(%x, %y) ({\n"
    "  ^bb0(%a: tensor<1048576xf32>, %b: tensor<1048576xf32>):\n"
    "    %0 = stablehlo.multiply %a, %b : tensor<1048576xf32>\n"
    "    %1 = stablehlo.reshape %0 : (tensor<1048576xf32>) -> tensor<1024x1024xf32>\n"
    "    %2 = stablehlo.transpose %1, dims = [1, 0] : (tensor<1024x1024xf32>) -> tensor<1024x1024xf32>\n"
    "    %3 = stablehlo.reshape %2 : (tensor<1024x1024xf32>) -> tensor<1048576xf32>\n"
    "    \"tpu.yield\"(%3) : (tensor<1048576xf32>) -> ()\n"
    "  }) {kind = \"loop\"} : (tensor<1048576xf32>, tensor<1048576xf32>) -> tensor<1048576xf32>\n"
    "  return %r : tensor<1048576xf32>\n"
    "}\n"
    "func.func @ints(%x: tensor<8xi32>) -> tensor<8xi32> {\n"
    "  %r = \"tpu.fusion\"(%x, %x) ({\n"
    "  ^bb0(%a: tensor<8xi32>, %b: tensor<8xi32>):\n"
    "    %0 = stablehlo.add %a, %b : tensor<8xi32>\n"
    "    \"tpu.yield\"(%0) : (tensor<8xi32>) -> ()\n"
    "  }) {kind = \"loop\"} : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>\n"
    "  return %r : tensor<8xi32>\n"
    "}\n";

static uint8_t *compile_fusions(size_t *n) { return compile_text(fusion_text, n); }

static const TpubSection *section(const uint8_t *img, uint32_t kind) {
  const TpubHeader *h = (const TpubHeader *)img;
  const TpubSection *s = (const TpubSection *)(img + sizeof *h);
  for (uint32_t i = 0; i < h->section_count; i++)
    if (s[i].kind == kind) return &s[i];
  fail_msg("no section %u", kind);
  return NULL;
}

/* The INTS words of the fields of every FUSION instruction, in code order
 * (at most max); returns how many. */
static int fusion_fields(uint8_t *img, int64_t **fields, int max) {
  const TpubSection *code = section(img, TPUB_SEC_CODE), *ints = section(img, TPUB_SEC_INTS);
  const uint32_t *w = (const uint32_t *)(img + code->offset);
  int64_t *pool = (int64_t *)(img + ints->offset);
  int found = 0;
  for (uint32_t pc = 0; pc < code->count;) {
    const uint32_t *ins = w + pc;
    uint32_t nin = ins[1], nout = ins[2];
    uint32_t nkill = ins[TPUB_INSTR_HEADER_WORDS + nin + nout];
    if ((ins[0] & 0xffff) == VM_OP_FUSION && found < max) fields[found++] = pool + ins[3];
    pc += TPUB_INSTR_HEADER_WORDS + nin + nout + 1 + nkill;
  }
  return found;
}

static void refix_checksum(uint8_t *img, size_t n) {
  TpubHeader *h = (TpubHeader *)img;
  h->checksum = 0;
  h->checksum = XXH3_64bits(img, n);
}

static void expect_load_error(const uint8_t *img, size_t n, const char *reason) {
  char err[256] = "";
  VmProgram *p = vm_program_load(img, n, err, sizeof err);
  if (p) fail_msg("loaded a bad image (expected '%s')", reason);
  assert_contains(err, reason);
}

/* A FUSION whose body takes f32 where the operands are i32 (the body of
 * another fusion), or an unknown kind, is refused at load time. */
static void test_fusion_signature_refused(void **state) {
  (void)state;
  size_t n;
  uint8_t *img = compile_fusions(&n);
  char err[256];
  VmProgram *ok = vm_program_load(img, n, err, sizeof err);
  if (!ok) fail_msg("load failed: %s", err);
  vm_program_free(ok);
  int64_t *f[3];
  assert_int_equal(fusion_fields(img, f, 3), 3);
  /* fields: kind, body function, captures */
  int64_t ints_body = f[2][1];
  f[2][1] = f[0][1];
  refix_checksum(img, n);
  expect_load_error(img, n, "parameter 0 has the wrong type");
  f[2][1] = ints_body;
  f[2][0] = 7;
  refix_checksum(img, n);
  expect_load_error(img, n, "fusion: kind 7 is not 0..3");
  free(img);
}

/* Runs function name on x, y (N f32 each); returns the result's bits
 * (malloc'd) and the peak bytes of live values. */
static uint32_t *run_fn(const VmProgram *prog, const char *name, const VmOptions *o, uint64_t *peak, int *rc) {
  static float xs[N], ys[N];
  for (int i = 0; i < N; i++) {
    xs[i] = (float)((i % 1000) - 500) * 0.01f;
    ys[i] = (float)((i * 7 % 333) - 111) * 0.02f;
  }
  VmExec *x = vm_exec_new(prog, o);
  assert_non_null(x);
  int fi = vm_program_find(prog, name);
  assert_true(fi >= 0);
  VmValue args[2] = {{.type = prog->funcs[fi].reg_types[0], .data = xs},
                     {.type = prog->funcs[fi].reg_types[1], .data = ys}};
  VmValue res = {0};
  *rc = vm_run(x, fi, args, 2, &res);
  uint32_t *bits = NULL;
  if (*rc == VM_OK) {
    bits = malloc(sizeof(float) * N);
    memcpy(bits, res.data, sizeof(float) * N);
    vm_value_free(&res);
  } else {
    assert_true(strlen(vm_error(x)) > 0);
  }
  if (peak) *peak = vm_peak_bytes(x);
  vm_exec_free(x);
  return bits;
}

/* The loop body needs only its result and tile scratch; the same size of
 * body run whole holds an intermediate of N elements too.  Every thread
 * count gives the same bits, and they are those of the arithmetic. */
static void test_fusion_tiles(void **state) {
  (void)state;
  size_t n;
  uint8_t *img = compile_fusions(&n);
  char err[256];
  VmProgram *prog = vm_program_load(img, n, err, sizeof err);
  if (!prog) fail_msg("load failed: %s", err);
  const uint64_t result_bytes = sizeof(float) * N;
  uint64_t peak_tiled, peak_whole;
  int rc;
  VmOptions one = {.threads = 1};
  uint32_t *ref = run_fn(prog, "fused", &one, &peak_tiled, &rc);
  assert_int_equal(rc, VM_OK);
  free(run_fn(prog, "whole", &one, &peak_whole, &rc));
  assert_int_equal(rc, VM_OK);
  if (peak_tiled >= result_bytes + (1 << 20)) fail_msg("tiled fusion peak %llu bytes", (unsigned long long)peak_tiled);
  if (peak_whole < 2 * result_bytes) fail_msg("whole fusion peak %llu bytes", (unsigned long long)peak_whole);
  for (int i = 0; i < N; i += 9973) {
    float a = (float)((i % 1000) - 500) * 0.01f, b = (float)((i * 7 % 333) - 111) * 0.02f;
    float t = a * b + a, want = (t >= b ? t : b) * 0.5f, got;
    memcpy(&got, &ref[i], sizeof got);
    if (got != want) fail_msg("element %d: %g, expected %g", i, (double)got, (double)want);
  }
  for (int threads = 2; threads <= 5; threads += 3) {
    VmOptions o = {.threads = threads};
    uint32_t *bits = run_fn(prog, "fused", &o, NULL, &rc);
    assert_int_equal(rc, VM_OK);
    assert_memory_equal(bits, ref, sizeof(float) * N);
    free(bits);
  }
  free(ref);
  vm_program_free(prog);
  free(img);
}


/* Every allocation of a fused run (result, tile scratch), failed in turn,
 * ends in a clean trap; a small HBM fits the tiled run but not the whole
 * one. */
static void test_fusion_allocation_failures(void **state) {
  (void)state;
  size_t n;
  uint8_t *img = compile_fusions(&n);
  char err[256];
  VmProgram *prog = vm_program_load(img, n, err, sizeof err);
  assert_non_null(prog);
  int rc;
  for (int k = 1;; k++) {
    FailingAlloc fa = {0, k};
    VmOptions o = {.realloc_fn = failing_realloc, .realloc_ud = &fa, .threads = 2};
    free(run_fn(prog, "fused", &o, NULL, &rc));
    if (rc == VM_OK) break;
    assert_true(k < 1000);
  }
  VmOptions small = {.hbm_bytes = sizeof(float) * N + (1 << 20), .threads = 2};
  free(run_fn(prog, "fused", &small, NULL, &rc));
  assert_int_equal(rc, VM_OK);
  free(run_fn(prog, "whole", &small, NULL, &rc));
  assert_int_equal(rc, VM_TRAP);
  vm_program_free(prog);
  free(img);
}

int run_vm_fusion_tests(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fusion_signature_refused),
      cmocka_unit_test(test_fusion_tiles),
      cmocka_unit_test(test_fusion_allocation_failures),
  };
  return cmocka_run_group_tests_name("vm_fusion", tests, NULL, NULL);
}
