/* f32 products of at most 16 rows (batch-1 inference) that stream the
 * weight B once: OpenBLAS packs B first, which for so few rows costs more
 * than the product.  B stored [N,K] (PyTorch's Linear weight: rsb 1): each
 * C element is a dot of two contiguous rows, the vector's lanes summed in
 * a fixed order; B stored [K,N] (csb 1): broadcast FMAs over B's rows,
 * each element summed in increasing p.  Either way the bits depend only
 * on the operands, K and the ISA, not on the position or the tiling.
 * AVX-512 and AVX2 + FMA instances of gemm_skinny.inc.  The AVX2 [K,N]
 * kernel holds 6 rows: more take several passes over B, which for a row
 * stride of a multiple of 4 KiB thrash the caches' sets (8x slower at
 * N = 3072), so those go to OpenBLAS. */
#include "vm/kernels/gemm_skinny.h"

#include <string.h>

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

static int64_t sk_min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* ---- AVX-512 ---- */

#define AVX512 __attribute__((target("avx512f")))

static AVX512 inline __mmask16 mask16(int64_t n) {
  return n <= 0 ? 0 : n >= 16 ? 0xffff : (__mmask16)((1u << n) - 1);
}

#define SK_V __m512
#define SK_VL 16
#define SK_MASK __mmask16
#define SK_MASK_OF(n) mask16(n)
#define SK_LOAD(m, p) _mm512_maskz_loadu_ps(m, p)
#define SK_LOADU(p) _mm512_loadu_ps(p)
#define SK_STORE(p, m, v) _mm512_mask_storeu_ps(p, m, v)
#define SK_FMA(a, b, c) _mm512_fmadd_ps(a, b, c)
#define SK_SET1(x) _mm512_set1_ps(x)
#define SK_ZERO _mm512_setzero_ps()
#define SK_HSUM(v) _mm512_reduce_add_ps(v)
#define SK_ATTR AVX512
#define SK_INLINE __attribute__((target("avx512f"), always_inline)) inline
#define SK_NK_ROWS 4
#define SK_NK_COLS 6
#define SK_KN_ROWS 8
#define SK_NAME(x) x##_avx512
#include "vm/kernels/gemm_skinny.inc"
#undef SK_V
#undef SK_VL
#undef SK_MASK
#undef SK_MASK_OF
#undef SK_LOAD
#undef SK_LOADU
#undef SK_STORE
#undef SK_FMA
#undef SK_SET1
#undef SK_ZERO
#undef SK_HSUM
#undef SK_ATTR
#undef SK_INLINE
#undef SK_NK_ROWS
#undef SK_NK_COLS
#undef SK_KN_ROWS
#undef SK_NAME

/* ---- AVX2 + FMA ---- */

#define AVX2 __attribute__((target("avx2,fma")))

static AVX2 inline __m256i mask8(int64_t n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)sk_min64(n < 0 ? 0 : n, 8)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/* The lanes' sum: halves, then pairs, then the last two. */
static AVX2 inline float hsum8(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  return _mm_cvtss_f32(_mm_add_ss(s, _mm_shuffle_ps(s, s, 1)));
}

#define SK_V __m256
#define SK_VL 8
#define SK_MASK __m256i
#define SK_MASK_OF(n) mask8(n)
#define SK_LOAD(m, p) _mm256_maskload_ps(p, m)
#define SK_LOADU(p) _mm256_loadu_ps(p)
#define SK_STORE(p, m, v) _mm256_maskstore_ps(p, m, v)
#define SK_FMA(a, b, c) _mm256_fmadd_ps(a, b, c)
#define SK_SET1(x) _mm256_set1_ps(x)
#define SK_ZERO _mm256_setzero_ps()
#define SK_HSUM(v) hsum8(v)
#define SK_ATTR AVX2
#define SK_INLINE __attribute__((target("avx2,fma"), always_inline)) inline
#define SK_NK_ROWS 2
#define SK_NK_COLS 5
#define SK_KN_ROWS 6
#define SK_NAME(x) x##_avx2
#include "vm/kernels/gemm_skinny.inc"

bool gemm_skinny_f32(GemmIsa isa, int64_t M, int64_t N, int64_t K, const float *A, int64_t rsa, int64_t csa,
                     const float *B, int64_t rsb, int64_t csb, float *C, int64_t ldc) {
  bool nk = rsb == 1 && csb >= K, kn = csb == 1 && rsb >= N;
  if (M > GEMM_SKINNY_ROWS || (csa != 1 && K > 1) || (!nk && !kn)) return false;
  if (isa >= GEMM_ISA_AVX512 && __builtin_cpu_supports("avx512f")) {
    if (nk)
      nk_avx512(M, N, K, A, rsa, B, csb, C, ldc);
    else
      kn_avx512(M, N, K, A, rsa, B, rsb, C, ldc);
  } else if (isa >= GEMM_ISA_AVX2 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
             (nk || M <= 6)) {
    if (nk)
      nk_avx2(M, N, K, A, rsa, B, csb, C, ldc);
    else
      kn_avx2(M, N, K, A, rsa, B, rsb, C, ldc);
  } else {
    return false;
  }
  return true;
}
#else
bool gemm_skinny_f32(GemmIsa isa, int64_t M, int64_t N, int64_t K, const float *A, int64_t rsa, int64_t csa,
                     const float *B, int64_t rsb, int64_t csb, float *C, int64_t ldc) {
  (void)isa, (void)M, (void)N, (void)K, (void)A, (void)rsa, (void)csa, (void)B, (void)rsb, (void)csb, (void)C,
      (void)ldc;
  return false;
}
#endif
