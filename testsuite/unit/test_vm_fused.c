/* Output fusions (vm/kernels/fusion.c, vm/kernels/fusion_dot.c): a
 * dot_general or convolution with its element-wise epilogue runs block by
 * block and gives the bits of the same ops run unfused, whether the
 * contraction's result is also a result or not, at every thread count; a
 * body the blocks cannot run runs whole, with the same bits. */
#include "testsuite/unit/unit_tests.h"
#include "vm/vm.h"

/* GELU (erf) of x*w + b: 0.5 * t * (1 + erf(t * 0.70710678)). */
#define GELU(T, t)                                                                        \
  "    %h = stablehlo.constant dense<0.5> : " T "\n"                                      \
  "    %s = stablehlo.constant dense<0.70710678> : " T "\n"                               \
  "    %o = stablehlo.constant dense<1.0> : " T "\n"                                      \
  "    %g0 = stablehlo.multiply " t ", %s : " T "\n"                                      \
  "    %g1 = chlo.erf %g0 : " T " -> " T "\n"                                              \
  "    %g2 = stablehlo.add %g1, %o : " T "\n"                                              \
  "    %g3 = stablehlo.multiply " t ", %h : " T "\n"                                      \
  "    %g = stablehlo.multiply %g3, %g2 : " T "\n"

#define DOT_T "tensor<300x600xf32>"
#define DOT_SIG "(%x: tensor<300x200xf32>, %w: tensor<200x600xf32>, %b: tensor<600xf32>)"
#define DOT_SIGF "(%xa: tensor<300x200xf32>, %wa: tensor<200x600xf32>, %ba: tensor<600xf32>)"
#define DOT_BODY                                                                                                 \
  "    %d = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<300x200xf32>, "                 \
  "tensor<200x600xf32>) -> " DOT_T "\n"                                                                          \
  "    %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<600xf32>) -> " DOT_T "\n"                       \
  "    %t = stablehlo.add %d, %bb : " DOT_T "\n" GELU(DOT_T, "%t")

#define CONV_T "tensor<5x9x9x6xf32>"
#define CONV_SIG "(%x: tensor<5x9x9x4xf32>, %w: tensor<3x3x4x6xf32>, %b: tensor<6xf32>)"
#define CONV_SIGF "(%xa: tensor<5x9x9x4xf32>, %wa: tensor<3x3x4x6xf32>, %ba: tensor<6xf32>)"
#define CONV_BODY                                                                                                \
  "    %d = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = "       \
  "{stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : "    \
  "(tensor<5x9x9x4xf32>, tensor<3x3x4x6xf32>) -> " CONV_T "\n"                                                   \
  "    %bb = stablehlo.broadcast_in_dim %b, dims = [3] : (tensor<6xf32>) -> " CONV_T "\n"                        \
  "    %z = stablehlo.constant dense<0.0> : " CONV_T "\n"                                                        \
  "    %t = stablehlo.add %d, %bb : " CONV_T "\n"                                                                \
  "    %g = stablehlo.maximum %t, %z : " CONV_T "\n"

#define BDOT_T "tensor<3x17x33xbf16>"
#define BDOT_SIG "(%x: tensor<3x17x40xbf16>, %w: tensor<3x40x33xbf16>, %b: tensor<33xbf16>)"
#define BDOT_SIGF "(%xa: tensor<3x17x40xbf16>, %wa: tensor<3x40x33xbf16>, %ba: tensor<33xbf16>)"
#define BDOT_BODY                                                                                               \
  "    %d = stablehlo.dot_general %x, %w, batching_dims = [0] x [0], contracting_dims = [2] x [1] : "           \
  "(tensor<3x17x40xbf16>, tensor<3x40x33xbf16>) -> " BDOT_T "\n"                                                \
  "    %bb = stablehlo.broadcast_in_dim %b, dims = [2] : (tensor<33xbf16>) -> " BDOT_T "\n"                     \
  "    %g = stablehlo.multiply %d, %bb : " BDOT_T "\n"

/* An output body the blocks cannot run (the dot's result broadcast to
 * another shape): it runs whole, with the same bits. */
#define WHOLE_T "tensor<3x32xf32>"
#define WHOLE_SIG "(%x: tensor<4x6xf32>, %w: tensor<6x8xf32>, %b: tensor<8xf32>)"
#define WHOLE_SIGF "(%xa: tensor<4x6xf32>, %wa: tensor<6x8xf32>, %ba: tensor<8xf32>)"
#define WHOLE_BODY                                                                                               \
  "    %d = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<4x6xf32>, tensor<6x8xf32>) -> " \
  "tensor<4x8xf32>\n"                                                                                            \
  "    %r = stablehlo.reshape %d : (tensor<4x8xf32>) -> tensor<32xf32>\n"                                         \
  "    %bb = stablehlo.broadcast_in_dim %r, dims = [1] : (tensor<32xf32>) -> " WHOLE_T "\n"                       \
  "    %g = stablehlo.add %bb, %bb : " WHOLE_T "\n"

static const char fused_text[] =
    "func.func @dot_fused" DOT_SIGF " -> " DOT_T " {\n"
    "  %r = \"tpu.fusion\"(%xa, %wa, %ba) ({\n"
    "  ^bb0(%x: tensor<300x200xf32>, %w: tensor<200x600xf32>, %b: tensor<600xf32>):\n" DOT_BODY
    "    \"tpu.yield\"(%g) : (" DOT_T ") -> ()\n"
    "  }) {kind = \"output\"} : (tensor<300x200xf32>, tensor<200x600xf32>, tensor<600xf32>) -> " DOT_T "\n"
    "  return %r : " DOT_T "\n"
    "}\n"
    "func.func @dot_plain" DOT_SIG " -> " DOT_T " {\n" DOT_BODY "  return %g : " DOT_T "\n}\n"
    "func.func @also_fused" DOT_SIGF " -> (" DOT_T ", " DOT_T ") {\n"
    "  %r:2 = \"tpu.fusion\"(%xa, %wa, %ba) ({\n"
    "  ^bb0(%x: tensor<300x200xf32>, %w: tensor<200x600xf32>, %b: tensor<600xf32>):\n" DOT_BODY
    "    \"tpu.yield\"(%g, %d) : (" DOT_T ", " DOT_T ") -> ()\n"
    "  }) {kind = \"output\"} : (tensor<300x200xf32>, tensor<200x600xf32>, tensor<600xf32>) -> (" DOT_T ", " DOT_T
    ")\n"
    "  return %r#0, %r#1 : " DOT_T ", " DOT_T "\n"
    "}\n"
    "func.func @also_plain" DOT_SIG " -> (" DOT_T ", " DOT_T ") {\n" DOT_BODY "  return %g, %d : " DOT_T ", " DOT_T
    "\n}\n"
    "func.func @conv_fused" CONV_SIGF " -> " CONV_T " {\n"
    "  %r = \"tpu.fusion\"(%xa, %wa, %ba) ({\n"
    "  ^bb0(%x: tensor<5x9x9x4xf32>, %w: tensor<3x3x4x6xf32>, %b: tensor<6xf32>):\n" CONV_BODY
    "    \"tpu.yield\"(%g) : (" CONV_T ") -> ()\n"
    "  }) {kind = \"output\"} : (tensor<5x9x9x4xf32>, tensor<3x3x4x6xf32>, tensor<6xf32>) -> " CONV_T "\n"
    "  return %r : " CONV_T "\n"
    "}\n"
    "func.func @conv_plain" CONV_SIG " -> " CONV_T " {\n" CONV_BODY "  return %g : " CONV_T "\n}\n"
    "func.func @bdot_fused" BDOT_SIGF " -> " BDOT_T " {\n"
    "  %r = \"tpu.fusion\"(%xa, %wa, %ba) ({\n"
    "  ^bb0(%x: tensor<3x17x40xbf16>, %w: tensor<3x40x33xbf16>, %b: tensor<33xbf16>):\n" BDOT_BODY
    "    \"tpu.yield\"(%g) : (" BDOT_T ") -> ()\n"
    "  }) {kind = \"output\"} : (tensor<3x17x40xbf16>, tensor<3x40x33xbf16>, tensor<33xbf16>) -> " BDOT_T "\n"
    "  return %r : " BDOT_T "\n"
    "}\n"
    "func.func @bdot_plain" BDOT_SIG " -> " BDOT_T " {\n" BDOT_BODY "  return %g : " BDOT_T "\n}\n"
    "func.func @whole_fused" WHOLE_SIGF " -> " WHOLE_T " {\n"
    "  %r = \"tpu.fusion\"(%xa, %wa, %ba) ({\n"
    "  ^bb0(%x: tensor<4x6xf32>, %w: tensor<6x8xf32>, %b: tensor<8xf32>):\n" WHOLE_BODY
    "    \"tpu.yield\"(%g) : (" WHOLE_T ") -> ()\n"
    "  }) {kind = \"output\"} : (tensor<4x6xf32>, tensor<6x8xf32>, tensor<8xf32>) -> " WHOLE_T "\n"
    "  return %r : " WHOLE_T "\n"
    "}\n"
    "func.func @whole_plain" WHOLE_SIG " -> " WHOLE_T " {\n" WHOLE_BODY "  return %g : " WHOLE_T "\n}\n";

/* Deterministic operand bytes: small values of any 2- or 4-byte float. */
static void *make_input(const VmType *t, uint32_t seed) {
  size_t eb = (size_t)(t->nbytes / (t->count ? t->count : 1));
  char *d = malloc((size_t)t->nbytes + 1);
  for (int64_t i = 0; i < t->count; i++) {
    uint32_t h = (uint32_t)i * 2654435761u + seed * 40503u;
    h ^= h >> 13;
    float v = (float)((int)(h % 2001) - 1000) / 997.0f, *f = &v;
    uint32_t bits;
    memcpy(&bits, f, 4);
    if (eb == 2) {
      uint16_t hi = (uint16_t)(bits >> 16);
      memcpy(d + i * 2, &hi, 2);
    } else {
      memcpy(d + i * 4, &bits, 4);
    }
  }
  return d;
}

/* Runs function name with `threads` host threads; returns its results'
 * bytes, concatenated (malloc'ed), in *bytes. */
static char *run_named(const VmProgram *prog, const char *name, const VmOptions *o, size_t *bytes) {
  int fi = vm_program_find(prog, name);
  if (fi < 0) fail_msg("no function %s", name);
  const VmFunc *fn = &prog->funcs[fi];
  VmValue args[3], res[2];
  for (uint32_t i = 0; i < fn->n_params; i++) args[i] = (VmValue){.type = fn->reg_types[i], .data = make_input(fn->reg_types[i], i + 1)};
  VmExec *x = vm_exec_new(prog, o);
  assert_non_null(x);
  int rc = vm_run(x, fi, args, (int)fn->n_params, res);
  char *all = NULL;
  if (rc != VM_OK) {
    if (!o->realloc_fn) fail_msg("%s: %s", name, vm_error(x));
    assert_true(strlen(vm_error(x)) > 0);
    for (uint32_t i = 0; i < fn->n_params; i++) free(args[i].data);
    vm_exec_free(x);
    return NULL;
  }
  *bytes = 0;
  for (uint32_t j = 0; j < fn->n_results; j++) *bytes += (size_t)res[j].type->nbytes;
  all = malloc(*bytes + 1);
  char *at = all;
  for (uint32_t j = 0; j < fn->n_results; j++) {
    memcpy(at, res[j].data, (size_t)res[j].type->nbytes);
    at += res[j].type->nbytes;
    vm_value_free(&res[j]);
  }
  for (uint32_t i = 0; i < fn->n_params; i++) free(args[i].data);
  vm_exec_free(x);
  return all;
}

/* name_fused gives name_plain's bits at 1, 2 and 3 threads. */
static void expect_same(const char *name) {
  size_t n;
  uint8_t *img = compile_text(fused_text, &n);
  char err[256], fused[64], plain[64];
  VmProgram *prog = vm_program_load(img, n, err, sizeof err);
  if (!prog) fail_msg("load failed: %s", err);
  snprintf(fused, sizeof fused, "%s_fused", name);
  snprintf(plain, sizeof plain, "%s_plain", name);
  size_t want_n, got_n;
  VmOptions one = {.threads = 1};
  char *want = run_named(prog, plain, &one, &want_n);
  for (int threads = 1; threads <= 3; threads++) {
    VmOptions o = {.threads = threads};
    char *got = run_named(prog, fused, &o, &got_n);
    assert_int_equal(got_n, want_n);
    if (memcmp(got, want, want_n) != 0) fail_msg("%s at %d threads differs from the unfused ops", name, threads);
    free(got);
  }
  free(want);
  vm_program_free(prog);
  free(img);
}

static void test_dot_bias_gelu(void **state) {
  (void)state;
  expect_same("dot");
}

static void test_dot_result_also_yielded(void **state) {
  (void)state;
  expect_same("also");
}

static void test_conv_bias_relu(void **state) {
  (void)state;
  expect_same("conv");
}

static void test_batched_bf16_dot(void **state) {
  (void)state;
  expect_same("bdot");
}

static void test_output_body_run_whole(void **state) {
  (void)state;
  expect_same("whole");
}

/* Every allocation of a fused dot and convolution run (result, operand
 * copies, blocks, GEMM buffers, tiles), failed in turn, ends in a clean
 * trap. */
static void test_allocation_failures(void **state) {
  (void)state;
  size_t n, bytes;
  uint8_t *img = compile_text(fused_text, &n);
  char err[256];
  VmProgram *prog = vm_program_load(img, n, err, sizeof err);
  assert_non_null(prog);
  const char *names[3] = {"dot_fused", "conv_fused", "bdot_fused"};
  for (int f = 0; f < 3; f++)
    for (int k = 1;; k++) {
      FailingAlloc fa = {0, k};
      VmOptions o = {.realloc_fn = failing_realloc, .realloc_ud = &fa, .threads = 2};
      char *got = run_named(prog, names[f], &o, &bytes);
      free(got);
      if (got) break;
      assert_true(k < 1000);
    }
  vm_program_free(prog);
  free(img);
}

int run_vm_fused_tests(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_dot_bias_gelu),
      cmocka_unit_test(test_dot_result_also_yielded),
      cmocka_unit_test(test_conv_bias_relu),
      cmocka_unit_test(test_batched_bf16_dot),
      cmocka_unit_test(test_output_body_run_whole),
      cmocka_unit_test(test_allocation_failures),
  };
  return cmocka_run_group_tests_name("vm_fused", tests, NULL, NULL);
}
