/* 8-bit integer micro-kernels of the packed GEMM (gemm_packed.h), int32
 * accumulators wrapping mod 2^32 (the spec's integer semantics for a
 * result of at most 32 bits).  AVX512_VNNI's vpdpbusd multiplies unsigned
 * bytes by signed bytes, four per word: B's values go in the unsigned
 * slot (an i8 B offset by xor 0x80, +128), A's in the signed one (a u8 A
 * offset by xor 0x80, -128), and gemm_int8_fix subtracts the offsets'
 * terms.  The AVX2 and generic kernels widen the values to 16 bits and
 * multiply pairs (vpmaddwd): no offsets.  All are exact. */
#include <string.h>

#include "vm/kernels/gemm_packed.h"

/* Portable kernel, 4 x 16, words of two int16. */
static void micro_generic(int64_t kq, const uint32_t *ap, const uint32_t *bp, void *cv, int64_t ldc, bool accumulate) {
  uint32_t acc[4][16], *c = cv;
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 16; j++) acc[i][j] = accumulate ? c[i * ldc + j] : 0;
  for (int64_t q = 0; q < kq; q++, ap += 4, bp += 16)
    for (int i = 0; i < 4; i++)
      for (int j = 0; j < 16; j++) {
        int32_t lo = (int32_t)(int16_t)ap[i] * (int16_t)bp[j];
        int32_t hi = (int32_t)(int16_t)(ap[i] >> 16) * (int16_t)(bp[j] >> 16);
        acc[i][j] += (uint32_t)lo + (uint32_t)hi;
      }
  for (int i = 0; i < 4; i++) memcpy(c + i * ldc, acc[i], sizeof acc[i]);
}

static const GemmPacked k_generic = {.mr = 4, .nr = 16, .group = 2, .bits = 16, .micro = micro_generic};

/* The values' offsets of kernels g: A's slot holds a + oa, B's b + ob. */
static void offsets(const GemmPacked *g, uint32_t *oa, uint32_t *ob) {
  *oa = g->axor ? (uint32_t)-128 : 0;
  *ob = g->bxor ? 128 : 0;
}

/* Sums of n values src[i * step], mod 2^32. */
static uint32_t line_sum(const int32_t *src, int64_t n, int64_t step) {
  uint32_t s = 0;
  for (int64_t i = 0; i < n; i++) s += (uint32_t)src[i * step];
  return s;
}

void gemm_int8_fix(const GemmPacked *g, int64_t M, int64_t N, int64_t K, const int32_t *A, int64_t rsa,
                   int64_t csa, const int32_t *B, int64_t rsb, int64_t csb, uint32_t *C, int64_t ldc,
                   uint32_t *sums) {
  uint32_t oa, ob;
  offsets(g, &oa, &ob);
  if (!oa && !ob) return;
  uint32_t *rows = sums, *cols = sums + M;
  for (int64_t i = 0; i < M; i++) rows[i] = ob ? ob * line_sum(A + i * rsa, K, csa) : 0;
  for (int64_t j = 0; j < N; j++) cols[j] = oa ? oa * line_sum(B + j * csb, K, rsb) : 0;
  uint32_t both = oa * ob * (uint32_t)K;
  for (int64_t i = 0; i < M; i++)
    for (int64_t j = 0; j < N; j++) C[i * ldc + j] -= rows[i] + cols[j] + both;
}

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define AVX2 __attribute__((target("avx2")))
#define AVX512 __attribute__((target("avx512f,avx512vnni")))

/* AVX2 kernel, 6 x 16: vpmaddwd of int16 pairs. */
static AVX2 void micro_avx2(int64_t kq, const uint32_t *ap, const uint32_t *bp, void *cv, int64_t ldc,
                            bool accumulate) {
  uint32_t *c = cv;
  __m256i acc[6][2];
#pragma GCC unroll 6
  for (int i = 0; i < 6; i++)
    for (int j = 0; j < 2; j++)
      acc[i][j] = accumulate ? _mm256_loadu_si256((const __m256i *)(c + i * ldc + 8 * j)) : _mm256_setzero_si256();
  for (int64_t q = 0; q < kq; q++, ap += 6, bp += 16) {
    __m256i b0 = _mm256_loadu_si256((const __m256i *)bp), b1 = _mm256_loadu_si256((const __m256i *)(bp + 8));
#pragma GCC unroll 6
    for (int i = 0; i < 6; i++) {
      __m256i a = _mm256_set1_epi32((int)ap[i]);
      acc[i][0] = _mm256_add_epi32(acc[i][0], _mm256_madd_epi16(b0, a));
      acc[i][1] = _mm256_add_epi32(acc[i][1], _mm256_madd_epi16(b1, a));
    }
  }
#pragma GCC unroll 6
  for (int i = 0; i < 6; i++)
    for (int j = 0; j < 2; j++) _mm256_storeu_si256((__m256i *)(c + i * ldc + 8 * j), acc[i][j]);
}

/* AVX512_VNNI kernel, 8 x 32: vpdpbusd of unsigned B and signed A quads. */
static AVX512 void micro_avx512(int64_t kq, const uint32_t *ap, const uint32_t *bp, void *cv, int64_t ldc,
                                bool accumulate) {
  uint32_t *c = cv;
  __m512i acc[8][2];
#pragma GCC unroll 8
  for (int i = 0; i < 8; i++)
    for (int j = 0; j < 2; j++)
      acc[i][j] = accumulate ? _mm512_loadu_si512(c + i * ldc + 16 * j) : _mm512_setzero_si512();
  for (int64_t q = 0; q < kq; q++, ap += 8, bp += 32) {
    __m512i b0 = _mm512_loadu_si512(bp), b1 = _mm512_loadu_si512(bp + 16);
#pragma GCC unroll 8
    for (int i = 0; i < 8; i++) {
      __m512i a = _mm512_set1_epi32((int)ap[i]);
      acc[i][0] = _mm512_dpbusd_epi32(acc[i][0], b0, a);
      acc[i][1] = _mm512_dpbusd_epi32(acc[i][1], b1, a);
    }
  }
#pragma GCC unroll 8
  for (int i = 0; i < 8; i++)
    for (int j = 0; j < 2; j++) _mm512_storeu_si512(c + i * ldc + 16 * j, acc[i][j]);
}

static const GemmPacked k_avx2 = {.mr = 6, .nr = 16, .group = 2, .bits = 16, .micro = micro_avx2};

/* Indexed by kind - GK_I8SS (lhs, rhs signedness: SS, SU, US, UU). */
static const GemmPacked k_avx512[4] = {
    {.mr = 8, .nr = 32, .group = 4, .bits = 8, .axor = 0, .bxor = 0x80, .micro = micro_avx512},
    {.mr = 8, .nr = 32, .group = 4, .bits = 8, .axor = 0, .bxor = 0, .micro = micro_avx512},
    {.mr = 8, .nr = 32, .group = 4, .bits = 8, .axor = 0x80, .bxor = 0x80, .micro = micro_avx512},
    {.mr = 8, .nr = 32, .group = 4, .bits = 8, .axor = 0x80, .bxor = 0, .micro = micro_avx512},
};

const GemmPacked *gemm_int8_kernels(GemmIsa isa, GemmKind kind) {
  if (isa >= GEMM_ISA_AVX512 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vnni"))
    return &k_avx512[kind - GK_I8SS];
  if (isa >= GEMM_ISA_AVX2 && __builtin_cpu_supports("avx2")) return &k_avx2;
  return &k_generic;
}
#else
const GemmPacked *gemm_int8_kernels(GemmIsa isa, GemmKind kind) {
  (void)isa, (void)kind;
  return &k_generic;
}
#endif
