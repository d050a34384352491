/* f32 products of at most 16 rows (batch-1 inference) with AVX-512, which
 * stream the weight B once: OpenBLAS packs B first, which for so few rows
 * costs more than the product.  B stored [N,K] (PyTorch's Linear weight:
 * rsb 1): each C element is a dot of two contiguous rows, 16 lanes summed
 * in a fixed order; B stored [K,N] (csb 1): broadcast FMAs over B's rows,
 * each element summed in increasing p.  Either way the bits depend only
 * on the operands and K, not on the position or the tiling. */
#include "vm/kernels/gemm_skinny.h"

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define AVX512 __attribute__((target("avx512f")))
#define INLINE512 __attribute__((target("avx512f"), always_inline)) inline

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* Columns of B stored [N,K] per block of nk_f32. */
#define NK_COLS 6

/* C[ni <= 4 rows][nj <= NK_COLS columns] of B stored [N,K]: rows of B
 * past the real ones are clamped to the last (computed, not stored). */
static INLINE512 void nk_block(int ni, int nj, int64_t K, const float *A, int64_t rsa, const float *B, int64_t ldb,
                               float *C, int64_t ldc) {
  __m512 acc[4][NK_COLS];
  const float *b[NK_COLS];
#pragma GCC unroll 8
  for (int jj = 0; jj < NK_COLS; jj++) {
    b[jj] = B + (jj < nj ? jj : nj - 1) * ldb;
    for (int ii = 0; ii < 4; ii++) acc[ii][jj] = _mm512_setzero_ps();
  }
  for (int64_t p = 0; p < K; p += 16) {
    __mmask16 m = K - p >= 16 ? 0xffff : (__mmask16)((1u << (K - p)) - 1);
    __m512 av[4];
#pragma GCC unroll 4
    for (int ii = 0; ii < ni; ii++) av[ii] = _mm512_maskz_loadu_ps(m, A + ii * rsa + p);
#pragma GCC unroll 8
    for (int jj = 0; jj < NK_COLS; jj++) {
      __m512 bv = _mm512_maskz_loadu_ps(m, b[jj] + p);
#pragma GCC unroll 4
      for (int ii = 0; ii < ni; ii++) acc[ii][jj] = _mm512_fmadd_ps(av[ii], bv, acc[ii][jj]);
    }
  }
  float sums[4][NK_COLS];
#pragma GCC unroll 4
  for (int ii = 0; ii < ni; ii++)
#pragma GCC unroll 8
    for (int jj = 0; jj < NK_COLS; jj++) sums[ii][jj] = _mm512_reduce_add_ps(acc[ii][jj]);
  for (int ii = 0; ii < ni; ii++)
    for (int jj = 0; jj < nj; jj++) C[ii * ldc + jj] = sums[ii][jj];
}

/* B stored [N,K] (row stride ldb). */
static AVX512 void nk_f32(int64_t M, int64_t N, int64_t K, const float *A, int64_t rsa, const float *B, int64_t ldb,
                          float *C, int64_t ldc) {
  for (int64_t j0 = 0; j0 < N; j0 += NK_COLS) {
    int nj = (int)min64(NK_COLS, N - j0);
    for (int64_t i0 = 0; i0 < M; i0 += 4) {
      const float *a = A + i0 * rsa, *b = B + j0 * ldb;
      float *c = C + i0 * ldc + j0;
      switch (min64(4, M - i0)) {
      case 1: nk_block(1, nj, K, a, rsa, b, ldb, c, ldc); break;
      case 2: nk_block(2, nj, K, a, rsa, b, ldb, c, ldc); break;
      case 3: nk_block(3, nj, K, a, rsa, b, ldb, c, ldc); break;
      default: nk_block(4, nj, K, a, rsa, b, ldb, c, ldc); break;
      }
    }
  }
}

/* C[ni rows][32 columns, masks m0 m1] of B stored [K,N]. */
static INLINE512 void kn_block(int ni, __mmask16 m0, __mmask16 m1, int64_t K, const float *A, int64_t rsa,
                               const float *B, int64_t ldb, float *C, int64_t ldc) {
  __m512 acc[8][2];
#pragma GCC unroll 8
  for (int ii = 0; ii < 8; ii++) acc[ii][0] = acc[ii][1] = _mm512_setzero_ps();
  for (int64_t p = 0; p < K; p++) {
    __m512 b0 = _mm512_maskz_loadu_ps(m0, B + p * ldb), b1 = _mm512_maskz_loadu_ps(m1, B + p * ldb + 16);
#pragma GCC unroll 8
    for (int ii = 0; ii < ni; ii++) {
      __m512 av = _mm512_set1_ps(A[ii * rsa + p]);
      acc[ii][0] = _mm512_fmadd_ps(av, b0, acc[ii][0]);
      acc[ii][1] = _mm512_fmadd_ps(av, b1, acc[ii][1]);
    }
  }
#pragma GCC unroll 8
  for (int ii = 0; ii < ni; ii++) {
    _mm512_mask_storeu_ps(C + ii * ldc, m0, acc[ii][0]);
    _mm512_mask_storeu_ps(C + ii * ldc + 16, m1, acc[ii][1]);
  }
}

/* B stored [K,N] (row stride ldb). */
static AVX512 void kn_f32(int64_t M, int64_t N, int64_t K, const float *A, int64_t rsa, const float *B, int64_t ldb,
                          float *C, int64_t ldc) {
  for (int64_t j0 = 0; j0 < N; j0 += 32) {
    int64_t nj = min64(32, N - j0);
    __mmask16 m0 = nj >= 16 ? 0xffff : (__mmask16)((1u << nj) - 1);
    __mmask16 m1 = nj >= 32 ? 0xffff : nj <= 16 ? 0 : (__mmask16)((1u << (nj - 16)) - 1);
    for (int64_t i0 = 0; i0 < M; i0 += 8) {
      const float *a = A + i0 * rsa, *b = B + j0;
      float *c = C + i0 * ldc + j0;
      switch (min64(8, M - i0)) {
      case 1: kn_block(1, m0, m1, K, a, rsa, b, ldb, c, ldc); break;
      case 2: kn_block(2, m0, m1, K, a, rsa, b, ldb, c, ldc); break;
      case 3: kn_block(3, m0, m1, K, a, rsa, b, ldb, c, ldc); break;
      case 4: kn_block(4, m0, m1, K, a, rsa, b, ldb, c, ldc); break;
      case 5: kn_block(5, m0, m1, K, a, rsa, b, ldb, c, ldc); break;
      case 6: kn_block(6, m0, m1, K, a, rsa, b, ldb, c, ldc); break;
      case 7: kn_block(7, m0, m1, K, a, rsa, b, ldb, c, ldc); break;
      default: kn_block(8, m0, m1, K, a, rsa, b, ldb, c, ldc); break;
      }
    }
  }
}

bool gemm_skinny_f32(GemmIsa isa, int64_t M, int64_t N, int64_t K, const float *A, int64_t rsa, int64_t csa,
                     const float *B, int64_t rsb, int64_t csb, float *C, int64_t ldc) {
  if (M > GEMM_SKINNY_ROWS || (csa != 1 && K > 1) || isa < GEMM_ISA_AVX512 || !__builtin_cpu_supports("avx512f"))
    return false;
  if (rsb == 1 && csb >= K)
    nk_f32(M, N, K, A, rsa, B, csb, C, ldc);
  else if (csb == 1 && rsb >= N)
    kn_f32(M, N, K, A, rsa, B, rsb, C, ldc);
  else
    return false;
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
