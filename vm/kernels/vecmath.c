/* Vector f32 functions for the element-wise kernels (vecmath.h): glibc's
 * libmvec AVX2 versions where they are within 2 ULP (glibc declares them
 * for its own vectorizer only under -ffast-math, so they are declared here
 * by their vector-ABI names, _ZGVdN8v_: AVX2, 8 lanes, one argument;
 * glibc's -lm linker script brings libmvec in), and exp computed here in
 * double precision (libmvec's is 3 ULP). */
#include "vm/kernels/vecmath.h"

#include <string.h>

#include "vm/kernels/gemm.h"
#include "vm/opinfo.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define VECMATH_AVX2 __attribute__((target("avx2,fma")))

typedef __m256 (*Vec8Fn)(__m256);
#define DECLARE(f) VECMATH_AVX2 __m256 _ZGVdN8v_##f(__m256);
DECLARE(erff)
DECLARE(erfcf)
DECLARE(tanhf)
DECLARE(sinf)
DECLARE(cosf)
DECLARE(log1pf)
#undef DECLARE

/* e^x for four floats widened to double: x = n ln2 + r with |r| <= ln2/2,
 * e^r by its Taylor polynomial of degree 11 (truncation below 3e-15),
 * scaled by 2^n.  Inputs are clamped to [-110, 100], beyond which the
 * float result is 0 or inf either way. */
VECMATH_AVX2 static __m256d exp4(__m256d x) {
  const __m256d ln2_hi = _mm256_set1_pd(0x1.62e42fefa3800p-1), ln2_lo = _mm256_set1_pd(0x1.ef35793c76730p-45);
  x = _mm256_min_pd(_mm256_max_pd(x, _mm256_set1_pd(-110.0)), _mm256_set1_pd(100.0));
  __m256d n = _mm256_round_pd(_mm256_mul_pd(x, _mm256_set1_pd(0x1.71547652b82fep0)),
                              _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256d r = _mm256_fnmadd_pd(n, ln2_lo, _mm256_fnmadd_pd(n, ln2_hi, x));
  static const double inv_fact[12] = {1.0,          1.0,           1.0 / 2,        1.0 / 6,
                                      1.0 / 24,     1.0 / 120,     1.0 / 720,      1.0 / 5040,
                                      1.0 / 40320,  1.0 / 362880,  1.0 / 3628800,  1.0 / 39916800};
  __m256d p = _mm256_set1_pd(inv_fact[11]);
  for (int k = 10; k >= 0; k--) p = _mm256_fmadd_pd(p, r, _mm256_set1_pd(inv_fact[k]));
  /* 2^n: n + 1023 in the exponent field (n is in [-159, 145]). */
  __m256i bits = _mm256_castpd_si256(_mm256_add_pd(n, _mm256_set1_pd(0x1.8p52 + 1023)));
  __m256d scale = _mm256_castsi256_pd(_mm256_slli_epi64(bits, 52));
  return _mm256_mul_pd(p, scale);
}

/* e^x of eight floats, each rounded once from exp4's double (within 1 ULP
 * of the correctly rounded float; equal to it but within 1e-13 of a
 * rounding midpoint).  NaN stays NaN (quiet, as expf makes it). */
VECMATH_AVX2 static __m256 exp8(__m256 x) {
  __m256d lo = exp4(_mm256_cvtps_pd(_mm256_castps256_ps128(x)));
  __m256d hi = exp4(_mm256_cvtps_pd(_mm256_extractf128_ps(x, 1)));
  __m256 r = _mm256_set_m128(_mm256_cvtpd_ps(hi), _mm256_cvtpd_ps(lo));
  return _mm256_blendv_ps(r, _mm256_add_ps(x, x), _mm256_cmp_ps(x, x, _CMP_UNORD_Q)); /* NaN, quieted */
}

/* 1 / (1 + e^-x) of eight floats: the scalar kernel's formula with exp8. */
VECMATH_AVX2 static __m256 logistic8(__m256 x) {
  const __m256 one = _mm256_set1_ps(1.0f);
  __m256 e = exp8(_mm256_sub_ps(_mm256_setzero_ps(), x));
  return _mm256_div_ps(one, _mm256_add_ps(one, e));
}

/* The vector function of an opcode, or NULL. */
static Vec8Fn vector_of(int opcode) {
  switch (opcode) {
  case VM_OP_EXPONENTIAL: return exp8;
  case VM_OP_LOGISTIC: return logistic8;
  case VM_OP_ERF: return _ZGVdN8v_erff;
  case VM_OP_ERFC: return _ZGVdN8v_erfcf;
  case VM_OP_TANH: return _ZGVdN8v_tanhf;
  case VM_OP_SINE: return _ZGVdN8v_sinf;
  case VM_OP_COSINE: return _ZGVdN8v_cosf;
  case VM_OP_LOG_PLUS_ONE: return _ZGVdN8v_log1pf;
  default: return NULL;
  }
}

/* Whole groups of eight, then the rest padded with zeros to one group. */
VECMATH_AVX2 static void apply(Vec8Fn f, const float *a, float *o, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(o + i, f(_mm256_loadu_ps(a + i)));
  if (i == n) return;
  float in[8] = {0}, out[8];
  memcpy(in, a + i, sizeof(float) * (size_t)(n - i));
  _mm256_storeu_ps(out, f(_mm256_loadu_ps(in)));
  memcpy(o + i, out, sizeof(float) * (size_t)(n - i));
}

/* AVX2 and FMA present and not refused by TPU_VM_ISA=generic (the VM's
 * one reading of it, gemm_isa_default). */
static bool vector_allowed(void) {
  return gemm_isa_default() != GEMM_ISA_GENERIC && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

bool vecmath_f32(int opcode, const float *a, float *o, int64_t n) {
  Vec8Fn f = vector_of(opcode);
  if (!f || !vector_allowed()) return false;
  apply(f, a, o, n);
  return true;
}
#else
bool vecmath_f32(int opcode, const float *a, float *o, int64_t n) {
  (void)opcode, (void)a, (void)o, (void)n;
  return false;
}
#endif
