/* bf16 x bf16 -> f32 micro-kernels of the packed GEMM (gemm_packed.h).
 * A word holds a pair of K values, the lower index in the low half.
 * AVX512_BF16's vdpbf16ps adds the pair's odd product, rounds, then the
 * even product and rounds (measured on Zen 4); bf16 products are exact in
 * f32, so the AVX2 and generic kernels do the same with two FMAs and give
 * the same bits, except that vdpbf16ps treats denormal inputs and results
 * as zero (DAZ, FTZ) and the others do not. */
#include <math.h>
#include <string.h>

#include "vm/kernels/gemm_packed.h"

/* The f32 of the odd (high) and even (low) bf16 of a word. */
static inline float bf_hi(uint32_t w) {
  float f;
  w &= 0xffff0000u;
  memcpy(&f, &w, 4);
  return f;
}

static inline float bf_lo(uint32_t w) {
  float f;
  w <<= 16;
  memcpy(&f, &w, 4);
  return f;
}

/* Portable kernel, 4 x 16. */
static void micro_generic(int64_t kq, const uint32_t *ap, const uint32_t *bp, void *cv, int64_t ldc, bool accumulate) {
  float acc[4][16], *c = cv;
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 16; j++) acc[i][j] = accumulate ? c[i * ldc + j] : 0.0f;
  for (int64_t q = 0; q < kq; q++, ap += 4, bp += 16)
    for (int i = 0; i < 4; i++)
      for (int j = 0; j < 16; j++) {
        acc[i][j] = fmaf(bf_hi(ap[i]), bf_hi(bp[j]), acc[i][j]);
        acc[i][j] = fmaf(bf_lo(ap[i]), bf_lo(bp[j]), acc[i][j]);
      }
  for (int i = 0; i < 4; i++) memcpy(c + i * ldc, acc[i], sizeof acc[i]);
}

static const GemmPacked k_generic = {.mr = 4, .nr = 16, .group = 2, .bits = 16, .shift = 16, .micro = micro_generic};

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define AVX2 __attribute__((target("avx2,fma")))
#define AVX512 __attribute__((target("avx512f,avx512bf16")))

/* AVX2 + FMA kernel, 4 x 16: each pair as two FMAs, odd first. */
static AVX2 void micro_avx2(int64_t kq, const uint32_t *ap, const uint32_t *bp, void *cv, int64_t ldc,
                            bool accumulate) {
  float *c = cv;
  __m256 acc[4][2];
  const __m256i hi = _mm256_set1_epi32((int)0xffff0000u);
#pragma GCC unroll 4
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 2; j++) acc[i][j] = accumulate ? _mm256_loadu_ps(c + i * ldc + 8 * j) : _mm256_setzero_ps();
  for (int64_t q = 0; q < kq; q++, ap += 4, bp += 16) {
    __m256i w0 = _mm256_loadu_si256((const __m256i *)bp), w1 = _mm256_loadu_si256((const __m256i *)(bp + 8));
    __m256 o0 = _mm256_castsi256_ps(_mm256_and_si256(w0, hi)), e0 = _mm256_castsi256_ps(_mm256_slli_epi32(w0, 16));
    __m256 o1 = _mm256_castsi256_ps(_mm256_and_si256(w1, hi)), e1 = _mm256_castsi256_ps(_mm256_slli_epi32(w1, 16));
#pragma GCC unroll 4
    for (int i = 0; i < 4; i++) {
      __m256 ao = _mm256_set1_ps(bf_hi(ap[i])), ae = _mm256_set1_ps(bf_lo(ap[i]));
      acc[i][0] = _mm256_fmadd_ps(ae, e0, _mm256_fmadd_ps(ao, o0, acc[i][0]));
      acc[i][1] = _mm256_fmadd_ps(ae, e1, _mm256_fmadd_ps(ao, o1, acc[i][1]));
    }
  }
#pragma GCC unroll 4
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 2; j++) _mm256_storeu_ps(c + i * ldc + 8 * j, acc[i][j]);
}

/* AVX512_BF16 kernel, 8 x 32: one vdpbf16ps per pair. */
static AVX512 void micro_avx512(int64_t kq, const uint32_t *ap, const uint32_t *bp, void *cv, int64_t ldc,
                                bool accumulate) {
  float *c = cv;
  __m512 acc[8][2];
#pragma GCC unroll 8
  for (int i = 0; i < 8; i++)
    for (int j = 0; j < 2; j++) acc[i][j] = accumulate ? _mm512_loadu_ps(c + i * ldc + 16 * j) : _mm512_setzero_ps();
  for (int64_t q = 0; q < kq; q++, ap += 8, bp += 32) {
    __m512bh b0 = (__m512bh)_mm512_loadu_si512(bp), b1 = (__m512bh)_mm512_loadu_si512(bp + 16);
#pragma GCC unroll 8
    for (int i = 0; i < 8; i++) {
      __m512bh a = (__m512bh)_mm512_set1_epi32((int)ap[i]);
      acc[i][0] = _mm512_dpbf16_ps(acc[i][0], a, b0);
      acc[i][1] = _mm512_dpbf16_ps(acc[i][1], a, b1);
    }
  }
#pragma GCC unroll 8
  for (int i = 0; i < 8; i++)
    for (int j = 0; j < 2; j++) _mm512_storeu_ps(c + i * ldc + 16 * j, acc[i][j]);
}

static const GemmPacked k_avx2 = {.mr = 4, .nr = 16, .group = 2, .bits = 16, .shift = 16, .micro = micro_avx2};
static const GemmPacked k_avx512 = {.mr = 8, .nr = 32, .group = 2, .bits = 16, .shift = 16, .micro = micro_avx512};

const GemmPacked *gemm_bf16_kernels(GemmIsa isa) {
  if (isa >= GEMM_ISA_AVX512 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bf16"))
    return &k_avx512;
  if (isa >= GEMM_ISA_AVX2 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return &k_avx2;
  return &k_generic;
}
#else
const GemmPacked *gemm_bf16_kernels(GemmIsa isa) {
  (void)isa;
  return &k_generic;
}
#endif
