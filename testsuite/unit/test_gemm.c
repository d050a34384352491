/* The matrix-multiply engine (vm/kernels/gemm.c): f32/f64 through
 * OpenBLAS against a naive reference in every layout, bf16 and 8-bit
 * integer kernels of every ISA against exact references, results that do
 * not depend on the thread count, and mxu_dot's bits equal to
 * dot_general's. */
#include <math.h>

#include "testsuite/unit/unit_tests.h"
#include "vm/kernels/gemm.h"
#include "vm/vm.h"

static uint64_t seed = 12345;

static uint32_t rnd(void) { return (uint32_t)((seed = seed * 6364136223846793005ull + 1442695040888963407ull) >> 33); }

/* A VM executor with `threads` host threads (the program is a stub). */
static VmExec *new_exec(VmProgram **prog, int threads) {
  static const char text[] = "func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n  return %x : tensor<2xf32>\n}\n";
  size_t n;
  uint8_t *img = compile_text(text, &n);
  char err[256];
  *prog = vm_program_load(img, n, err, sizeof err);
  free(img);
  assert_non_null(*prog);
  VmOptions o = {.threads = threads};
  return vm_exec_new(*prog, &o);
}

/* Strides (rs, cs) of an M x K operand stored as layout 0 row-major, 1
 * column-major (transposed), 2 row-major with padded, doubled strides
 * (no BLAS layout: copied). */
static void layout(int kind, int64_t rows, int64_t cols, int64_t *rs, int64_t *cs) {
  if (kind == 0) *rs = cols, *cs = 1;
  if (kind == 1) *rs = 1, *cs = rows;
  if (kind == 2) *rs = 2 * cols + 2, *cs = 2;
}

/* f32 and f64 products against a double reference, in every layout of
 * A and B (B transposed is PyTorch's Linear weight), with each ISA's
 * kernels for few rows (generic: OpenBLAS alone). */
static void test_gemm_float_layouts(void **state) {
  (void)state;
  VmProgram *prog;
  VmExec *x = new_exec(&prog, 1);
  static const int64_t shapes[][3] = {{1, 3072, 768}, {7, 33, 65}, {65, 17, 300}, {128, 128, 129}};
  for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
    for (int la = 0; la < 3; la++)
      for (int lb = 0; lb < 3; lb++)
        for (int k = 0; k < 6; k++) {
          int dbl = k / 3, isa = k % 3;
          int64_t M = shapes[si][0], N = shapes[si][1], K = shapes[si][2], rsa, csa, rsb, csb;
          layout(la, M, K, &rsa, &csa);
          layout(lb, K, N, &rsb, &csb);
          size_t na = (size_t)((M - 1) * rsa + (K - 1) * csa + 1), nb = (size_t)((K - 1) * rsb + (N - 1) * csb + 1);
          double *a = calloc(na, 8), *b = calloc(nb, 8), *c = calloc((size_t)(M * N), 8);
          float *af = calloc(na, 4), *bf = calloc(nb, 4), *cf = calloc((size_t)(M * N), 4);
          for (size_t i = 0; i < na; i++) af[i] = (float)(a[i] = (double)(rnd() % 2001) / 1000.0 - 1.0);
          for (size_t i = 0; i < nb; i++) bf[i] = (float)(b[i] = (double)(rnd() % 2001) / 1000.0 - 1.0);
          GemmWork w;
          gemm_work_init(&w, x, dbl ? GK_F64 : GK_F32);
          w.isa = (GemmIsa)isa;
          assert_int_equal(dbl ? gemm_run(&w, M, N, K, a, rsa, csa, b, rsb, csb, c, N)
                               : gemm_run(&w, M, N, K, af, rsa, csa, bf, rsb, csb, cf, N),
                           VM_OK);
          gemm_work_free(&w);
          for (int64_t i = 0; i < M; i++)
            for (int64_t j = 0; j < N; j++) {
              double ref = 0;
              for (int64_t p = 0; p < K; p++) ref += a[i * rsa + p * csa] * b[p * rsb + j * csb];
              double got = dbl ? c[i * N + j] : cf[i * N + j];
              if (fabs(got - ref) > (dbl ? 1e-9 : 1e-3) * (1 + sqrt((double)K)))
                fail_msg("%s isa %d %lldx%lldx%lld layouts %d/%d: C[%lld,%lld] = %g, want %g", dbl ? "f64" : "f32",
                         isa, (long long)M, (long long)N, (long long)K, la, lb, (long long)i, (long long)j, got, ref);
            }
          free(a), free(b), free(c), free(af), free(bf), free(cf);
        }
  vm_exec_free(x);
  vm_program_free(prog);
}

/* f32 products of few rows (gemm_skinny.c) give an element the same bits
 * wherever it is: a sub-tile at odd offsets (2 rows: the streaming [K,N]
 * kernel; 6: the register-blocked one) equals the whole, for both weight
 * layouts and ISAs.  (OpenBLAS does not: its order depends on the
 * position, so gemm_batched cuts by shape only.) */
static void test_gemm_skinny_tiles(void **state) {
  (void)state;
  VmProgram *prog;
  VmExec *x = new_exec(&prog, 1);
  int64_t M = 6, N = 203, K = 333;
  float *a = malloc((size_t)(M * K) * 4), *b = malloc((size_t)(K * N) * 4);
  float *c = malloc((size_t)(M * N) * 4), *t = malloc((size_t)(M * N) * 4);
  for (int64_t i = 0; i < M * K; i++) a[i] = (float)(rnd() % 2001) / 999.0f - 1.0f;
  for (int64_t i = 0; i < K * N; i++) b[i] = (float)(rnd() % 2001) / 997.0f - 1.0f;
  for (int k = 0; k < 4; k++) {
    bool nk = k & 1;
    int64_t rsb = nk ? 1 : N, csb = nk ? K : 1, i0 = 1, j0 = 7, m = k < 2 ? 2 : 5, n = 150;
    GemmWork w;
    gemm_work_init(&w, x, GK_F32);
    w.isa = k < 2 ? GEMM_ISA_AVX2 : GEMM_ISA_AVX512;
    assert_int_equal(gemm_run(&w, M, N, K, a, K, 1, b, rsb, csb, c, N), VM_OK);
    assert_int_equal(gemm_run(&w, m, n, K, a + i0 * K, K, 1, b + j0 * csb, rsb, csb, t, n), VM_OK);
    for (int64_t i = 0; i < m; i++)
      if (memcmp(t + i * n, c + (i0 + i) * N + j0, (size_t)n * 4)) fail_msg("case %d: row %lld differs", k, (long long)i);
    gemm_work_free(&w);
  }
  free(a), free(b), free(c), free(t);
  vm_exec_free(x);
  vm_program_free(prog);
}

/* bf16 of a small random float. */
static uint16_t rnd_bf16(void) {
  float f = (float)((int)(rnd() % 20001) - 10000) / 4096.0f;
  uint32_t u;
  memcpy(&u, &f, 4);
  return (uint16_t)(u >> 16);
}

static float bf16_f32(uint16_t h) {
  uint32_t u = (uint32_t)h << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

/* The documented order: pairs (2q, 2q+1) in increasing q, the odd product
 * added first, each addition rounded. */
static float bf16_ref(const float *a, const float *b, int64_t K, int64_t sb) {
  float acc = 0;
  for (int64_t p = 0; p < K; p += 2) {
    if (p + 1 < K) acc = fmaf(a[p + 1], b[(p + 1) * sb], acc);
    acc = fmaf(a[p], b[p * sb], acc);
  }
  return acc;
}

/* bf16 x bf16 -> f32 for each ISA, bit for bit against bf16_ref, and a
 * sub-tile at odd offsets equal to the same elements of the whole. */
static void test_gemm_bf16(void **state) {
  (void)state;
  VmProgram *prog;
  VmExec *x = new_exec(&prog, 1);
  static const int64_t shapes[][3] = {{1, 40, 768}, {9, 35, 257}, {33, 70, 3}, {100, 65, 600}};
  for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
    for (int isa = GEMM_ISA_GENERIC; isa <= GEMM_ISA_AVX512; isa++) {
      int64_t M = shapes[si][0], N = shapes[si][1], K = shapes[si][2];
      float *a = malloc((size_t)(M * K) * 4), *b = malloc((size_t)(K * N) * 4);
      float *c = malloc((size_t)(M * N) * 4), *t = malloc((size_t)(M * N) * 4);
      for (int64_t i = 0; i < M * K; i++) a[i] = bf16_f32(rnd_bf16());
      for (int64_t i = 0; i < K * N; i++) b[i] = bf16_f32(rnd_bf16());
      GemmWork w;
      gemm_work_init(&w, x, GK_BF16);
      w.isa = (GemmIsa)isa;
      assert_int_equal(gemm_run(&w, M, N, K, a, K, 1, b, N, 1, c, N), VM_OK);
      for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++)
          if (c[i * N + j] != bf16_ref(a + i * K, b + j, K, N))
            fail_msg("bf16 isa %d %lldx%lldx%lld: C[%lld,%lld] = %a, want %a", isa, (long long)M, (long long)N,
                     (long long)K, (long long)i, (long long)j, c[i * N + j], bf16_ref(a + i * K, b + j, K, N));
      int64_t i0 = M / 3, j0 = N / 3 | 1, m = M - i0, n = N - j0 - 1;
      assert_int_equal(gemm_run(&w, m, n, K, a + i0 * K, K, 1, b + j0, N, 1, t, n), VM_OK);
      for (int64_t i = 0; i < m; i++) assert_memory_equal(t + i * n, c + (i0 + i) * N + j0, (size_t)n * 4);
      gemm_work_free(&w);
      free(a), free(b), free(c), free(t);
    }
  vm_exec_free(x);
  vm_program_free(prog);
}

/* A random 8-bit value of the kind's lhs (rhs false) or rhs signedness,
 * extremes often. */
static int32_t rnd_int8(GemmKind k, bool rhs) {
  bool uns = rhs ? (k == GK_I8SU || k == GK_I8UU) : (k == GK_I8US || k == GK_I8UU);
  uint32_t r = rnd();
  if (uns) return (r & 3) < 2 ? 255 : (uint8_t)(r >> 8);
  return (r & 3) == 0 ? 127 : (r & 3) == 1 ? -128 : (int8_t)(r >> 8);
}

/* i8/u8 products for every signedness, ISA and odd K, bit for bit against
 * an int64 reference wrapped to 32 bits; K = 70000 of extreme values
 * wraps around. */
static void test_gemm_int8(void **state) {
  (void)state;
  VmProgram *prog;
  VmExec *x = new_exec(&prog, 1);
  static const int64_t shapes[][3] = {{1, 17, 5}, {9, 35, 257}, {33, 70, 3}, {3, 5, 70000}, {20, 40, 130}};
  for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
    for (int kind = GK_I8SS; kind <= GK_I8UU; kind++)
      for (int isa = GEMM_ISA_GENERIC; isa <= GEMM_ISA_AVX512; isa++) {
        int64_t M = shapes[si][0], N = shapes[si][1], K = shapes[si][2];
        int32_t *a = malloc((size_t)(M * K) * 4), *b = malloc((size_t)(K * N) * 4), *c = malloc((size_t)(M * N) * 4);
        for (int64_t i = 0; i < M * K; i++) a[i] = rnd_int8((GemmKind)kind, false);
        for (int64_t i = 0; i < K * N; i++) b[i] = rnd_int8((GemmKind)kind, true);
        GemmWork w;
        gemm_work_init(&w, x, (GemmKind)kind);
        w.isa = (GemmIsa)isa;
        /* B as [N, K] (transposed): rsb 1, csb K */
        assert_int_equal(gemm_run(&w, M, N, K, a, K, 1, b, 1, K, c, N), VM_OK);
        bool wrapped = false;
        for (int64_t i = 0; i < M; i++)
          for (int64_t j = 0; j < N; j++) {
            int64_t ref = 0;
            for (int64_t p = 0; p < K; p++) ref += (int64_t)a[i * K + p] * b[j * K + p];
            wrapped = wrapped || ref != (int32_t)(uint32_t)ref;
            if (c[i * N + j] != (int32_t)(uint32_t)ref)
              fail_msg("int8 kind %d isa %d %lldx%lldx%lld: C[%lld,%lld] = %d, want %d", kind, isa, (long long)M,
                       (long long)N, (long long)K, (long long)i, (long long)j, c[i * N + j],
                       (int32_t)(uint32_t)ref);
          }
        if (K == 70000 && kind == GK_I8UU) assert_true(wrapped);
        gemm_work_free(&w);
        free(a), free(b), free(c);
      }
  vm_exec_free(x);
  vm_program_free(prog);
}

/* gemm_batched on 1 and 2 threads gives the same bits (f32, bf16, int8,
 * default and AVX2 ISA). */
static void test_gemm_threads(void **state) {
  (void)state;
  static const GemmKind kinds[] = {GK_F32, GK_F64, GK_BF16, GK_I8SU};
  static const int64_t shapes[][4] = {{2, 200, 300, 150}, {1, 5, 3072, 768}, {3, 64, 64, 64}};
  for (int avx2 = 0; avx2 < 2; avx2++) {
    if (avx2) setenv("TPU_VM_ISA", "avx2", 1);
    for (size_t ki = 0; ki < sizeof kinds / sizeof kinds[0]; ki++)
      for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
        int64_t B = shapes[si][0], M = shapes[si][1], N = shapes[si][2], K = shapes[si][3];
        int es = gemm_kind_bytes(kinds[ki]);
        uint8_t *a = malloc((size_t)(B * M * K * es)), *b = malloc((size_t)(B * K * N * es));
        uint8_t *c[2] = {malloc((size_t)(B * M * N * es)), malloc((size_t)(B * M * N * es))};
        for (int64_t i = 0; i < B * M * K; i++)
          if (es == 8) ((double *)a)[i] = (double)(rnd() % 1000) / 999.0;
          else if (kinds[ki] == GK_I8SU) ((int32_t *)a)[i] = (int8_t)rnd();
          else ((float *)a)[i] = bf16_f32(rnd_bf16());
        for (int64_t i = 0; i < B * K * N; i++)
          if (es == 8) ((double *)b)[i] = (double)(rnd() % 1000) / 777.0;
          else if (kinds[ki] == GK_I8SU) ((int32_t *)b)[i] = (uint8_t)rnd();
          else ((float *)b)[i] = bf16_f32(rnd_bf16());
        for (int t = 0; t < 2; t++) {
          VmProgram *prog;
          VmExec *x = new_exec(&prog, t + 1);
          /* B as [batch][N][K]: the PyTorch Linear layout */
          GemmOperand ao = {a, M * K, K, 1}, bo = {b, K * N, 1, K};
          assert_int_equal(gemm_batched(x, kinds[ki], B, M, N, K, ao, bo, c[t]), VM_OK);
          vm_exec_free(x);
          vm_program_free(prog);
        }
        if (memcmp(c[0], c[1], (size_t)(B * M * N * es)))
          fail_msg("kind %d shape %zu: 1 and 2 threads differ", kinds[ki], si);
        free(a), free(b), free(c[0]), free(c[1]);
      }
  }
  unsetenv("TPU_VM_ISA");
}

/* A program computing the same f32 product as dot_general and as mxu_dot
 * (odd tile sizes, padding), run on 1 and 2 threads: four equal results. */
static void test_gemm_mxu_bits(void **state) {
  (void)state;
  static const char text[] =
      "func.func @main(%a: tensor<300x200xf32>, %b: tensor<500x200xf32>) -> (tensor<300x500xf32>, tensor<300x500xf32>) {\n"
      "  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [1] : (tensor<300x200xf32>, tensor<500x200xf32>) -> tensor<300x500xf32>\n"
      "  %1 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [1] {tpu.mxu_tile = array<i64: 136, 72, 128>, "
      "tpu.mxu_pad = array<i64: 304, 504, 200>} : (tensor<300x200xf32>, tensor<500x200xf32>) -> tensor<300x500xf32>\n"
      "  return %0, %1 : tensor<300x500xf32>, tensor<300x500xf32>\n"
      "}\n";
  size_t n;
  uint8_t *img = compile_text(text, &n);
  char err[256];
  VmProgram *prog = vm_program_load(img, n, err, sizeof err);
  free(img);
  assert_non_null(prog);
  float *a = malloc(300 * 200 * 4), *b = malloc(500 * 200 * 4), *first = NULL;
  for (int i = 0; i < 300 * 200; i++) a[i] = (float)(rnd() % 2001) / 997.0f - 1.0f;
  for (int i = 0; i < 500 * 200; i++) b[i] = (float)(rnd() % 2001) / 991.0f - 1.0f;
  for (int t = 1; t <= 2; t++) {
    VmOptions o = {.threads = t};
    VmExec *x = vm_exec_new(prog, &o);
    int fi = vm_program_find(prog, "main");
    const VmFunc *fn = &prog->funcs[fi];
    VmValue args[2] = {{.type = fn->reg_types[0], .data = a}, {.type = fn->reg_types[1], .data = b}};
    VmValue res[2] = {{0}};
    assert_int_equal(vm_run(x, fi, args, 2, res), VM_OK);
    assert_memory_equal(res[0].data, res[1].data, 300 * 500 * 4);
    if (!first) {
      first = malloc(300 * 500 * 4);
      memcpy(first, res[0].data, 300 * 500 * 4);
    } else {
      assert_memory_equal(first, res[0].data, 300 * 500 * 4);
    }
    vm_value_free(&res[0]);
    vm_value_free(&res[1]);
    vm_exec_free(x);
  }
  free(a), free(b), free(first);
  vm_program_free(prog);
}

int run_gemm_tests(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_gemm_float_layouts), cmocka_unit_test(test_gemm_skinny_tiles),
      cmocka_unit_test(test_gemm_bf16),
      cmocka_unit_test(test_gemm_int8),          cmocka_unit_test(test_gemm_threads),
      cmocka_unit_test(test_gemm_mxu_bits),
  };
  return cmocka_run_group_tests_name("gemm", tests, NULL, NULL);
}
