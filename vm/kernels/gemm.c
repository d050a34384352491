/* Matrix-multiply engine for dot_general, mxu_dot, convolution and
 * ragged_dot (see gemm.h).  f32 and f64 products go to OpenBLAS, run
 * single-threaded inside the VM (openblas_set_num_threads(1), once, for
 * the process's instance of the library) while gemm_batched shares a
 * product's output tiles among the VM's host threads. */
#include "vm/kernels/gemm.h"

#include <cblas.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "vm/dtype.h"
#include "vm/kernels/gemm_packed.h"
#include "vm/kernels/gemm_skinny.h"
#include "vm/kernels/kernels.h"
#include "vm/parallel.h"

/* gemm_batched's tiles: one per GEMM_TILE_FLOPS of work (gemm.h), at most
 * MAX_TILES per product, at least MIN_TM rows and MIN_TN columns. */
#define MAX_TILES 8
#define MIN_TM 16
#define MIN_TN 64

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* ---- instruction sets ---- */

GemmIsa gemm_isa_default(void) {
  const char *s = getenv("TPU_VM_ISA");
  if (s && !strcmp(s, "generic")) return GEMM_ISA_GENERIC;
  if (s && !strcmp(s, "avx2")) return GEMM_ISA_AVX2;
  return GEMM_ISA_AVX512;
}

/* ---- kinds ---- */

/* The kind of an integer product: GK_I8xy for 8-bit operands into a
 * result of at most 32 bits, else GK_I64. */
static GemmKind int_kind(int result_elem, int lhs_elem, int rhs_elem) {
  bool l8 = lhs_elem == TPUB_I8 || lhs_elem == TPUB_U8, r8 = rhs_elem == TPUB_I8 || rhs_elem == TPUB_U8;
  if (!l8 || !r8 || vm_elem_bytes(result_elem) > 4) return GK_I64;
  return (GemmKind)(GK_I8SS + 2 * (lhs_elem == TPUB_U8) + (rhs_elem == TPUB_U8));
}

int gemm_kind_for(int result_elem, int lhs_elem, int rhs_elem) {
  int rc = vm_elem_class(result_elem);
  int lc = vm_elem_class(lhs_elem), hc = vm_elem_class(rhs_elem);
  bool ints = (lc == TPUB_CLASS_INT || lc == TPUB_CLASS_UINT) &&
              (hc == TPUB_CLASS_INT || hc == TPUB_CLASS_UINT);
  switch (rc) {
  case TPUB_CLASS_COMPLEX:
    return result_elem == TPUB_C128 ? GK_C128 : GK_C64;
  case TPUB_CLASS_FLOAT:
    if (lc == TPUB_CLASS_COMPLEX || hc == TPUB_CLASS_COMPLEX) return -1;
    if (result_elem == TPUB_F64) return GK_F64;
    return lhs_elem == TPUB_BF16 && rhs_elem == TPUB_BF16 ? GK_BF16 : GK_F32;
  default:
    if (!ints) return -1;
    if (result_elem == TPUB_I1) return GK_BOOL;
    return int_kind(result_elem, lhs_elem, rhs_elem);
  }
}

int gemm_kind_bytes(GemmKind k) {
  static const int bytes[] = {4, 8, 8, 16, 8, 1, 4, 4, 4, 4, 4};
  return bytes[k];
}

/* The packed kinds: bf16 and 8-bit integers. */
static bool packed_kind(GemmKind k) { return k >= GK_BF16; }

bool gemm_is_native(GemmKind k, int elem) {
  switch (k) {
  case GK_F32: return elem == TPUB_F32;
  case GK_F64: return elem == TPUB_F64;
  case GK_C64: return elem == TPUB_C64;
  case GK_C128: return elem == TPUB_C128;
  case GK_I64: return elem == TPUB_I64 || elem == TPUB_U64;
  case GK_BOOL: return elem == TPUB_I1;
  case GK_BF16: return elem == TPUB_F32;
  default: return elem == TPUB_I32 || elem == TPUB_U32;
  }
}

enum { CHUNK = 256 };

/* Real elements -> interleaved (re, 0) complex of float (dbl false) or double. */
static void load_real_as_complex(bool dbl, int elem, const void *src, int64_t n, void *dst) {
  for (int64_t i0 = 0; i0 < n; i0 += CHUNK) {
    int64_t cnt = n - i0 < CHUNK ? n - i0 : CHUNK;
    if (dbl) {
      double tmp[CHUNK];
      double *d = (double *)dst + 2 * i0;
      vm_to_f64(elem, src, i0, cnt, tmp);
      for (int64_t i = 0; i < cnt; i++) d[2 * i] = tmp[i], d[2 * i + 1] = 0;
    } else {
      float tmp[CHUNK];
      float *d = (float *)dst + 2 * i0;
      vm_to_f32(elem, src, i0, cnt, tmp);
      for (int64_t i = 0; i < cnt; i++) d[2 * i] = tmp[i], d[2 * i + 1] = 0;
    }
  }
}

/* 8-bit elements (i8 or u8) -> int32. */
static void load_int8(int elem, const void *src, int64_t n, int32_t *dst) {
  if (elem == TPUB_I8)
    for (int64_t i = 0; i < n; i++) dst[i] = ((const int8_t *)src)[i];
  else
    for (int64_t i = 0; i < n; i++) dst[i] = ((const uint8_t *)src)[i];
}

/* int32 -> an integer type of at most 32 bits, wrapping. */
static void store_int32(int elem, const int32_t *src, int64_t n, void *dst) {
  for (int64_t i0 = 0; i0 < n; i0 += CHUNK) {
    int64_t tmp[CHUNK], cnt = n - i0 < CHUNK ? n - i0 : CHUNK;
    for (int64_t i = 0; i < cnt; i++) tmp[i] = src[i0 + i];
    vm_from_i64(elem, dst, i0, cnt, tmp);
  }
}

void gemm_load(GemmKind k, int elem, const void *src, int64_t n, void *dst) {
  if (gemm_is_native(k, elem)) {
    memcpy(dst, src, (size_t)n * (size_t)gemm_kind_bytes(k));
    return;
  }
  switch (k) {
  case GK_F32:
  case GK_BF16: vm_to_f32(elem, src, 0, n, dst); return;
  case GK_F64: vm_to_f64(elem, src, 0, n, dst); return;
  case GK_I64: vm_to_i64(elem, src, 0, n, dst); return;
  case GK_BOOL:
    for (int64_t i0 = 0; i0 < n; i0 += CHUNK) {
      int64_t tmp[CHUNK], cnt = n - i0 < CHUNK ? n - i0 : CHUNK;
      vm_to_i64(elem, src, i0, cnt, tmp);
      for (int64_t i = 0; i < cnt; i++) ((uint8_t *)dst)[i0 + i] = tmp[i] != 0;
    }
    return;
  case GK_C64:
    if (elem == TPUB_C128) {
      const double *s = src;
      for (int64_t i = 0; i < 2 * n; i++) ((float *)dst)[i] = (float)s[i];
    } else {
      load_real_as_complex(false, elem, src, n, dst);
    }
    return;
  case GK_C128:
    if (elem == TPUB_C64) {
      const float *s = src;
      for (int64_t i = 0; i < 2 * n; i++) ((double *)dst)[i] = s[i];
    } else {
      load_real_as_complex(true, elem, src, n, dst);
    }
    return;
  default: load_int8(elem, src, n, dst); return;
  }
}

void gemm_store(GemmKind k, int elem, const void *src, int64_t n, void *dst) {
  if (gemm_is_native(k, elem)) {
    memcpy(dst, src, (size_t)n * (size_t)gemm_kind_bytes(k));
    return;
  }
  switch (k) {
  case GK_F32:
  case GK_BF16: vm_from_f32(elem, dst, 0, n, src); return;
  case GK_F64: vm_from_f64(elem, dst, 0, n, src); return;
  case GK_I64: vm_from_i64(elem, dst, 0, n, src); return;
  case GK_BOOL:
    for (int64_t i0 = 0; i0 < n; i0 += CHUNK) {
      int64_t tmp[CHUNK], cnt = n - i0 < CHUNK ? n - i0 : CHUNK;
      for (int64_t i = 0; i < cnt; i++) tmp[i] = ((const uint8_t *)src)[i0 + i];
      vm_from_i64(elem, dst, i0, cnt, tmp);
    }
    return;
  case GK_C64: /* the only other complex result is c128 */
    for (int64_t i = 0; i < 2 * n; i++) ((double *)dst)[i] = ((const float *)src)[i];
    return;
  case GK_C128:
    for (int64_t i = 0; i < 2 * n; i++) ((float *)dst)[i] = (float)((const double *)src)[i];
    return;
  default: store_int32(elem, src, n, dst); return;
  }
}

/* ---- strided copies ---- */

typedef struct {
  uint64_t lo, hi;
} Elem16;

#define STRIDED_ROW(T)                                                      \
  do {                                                                      \
    const T *s = (const T *)src + off;                                      \
    T *d = (T *)dst + done;                                                 \
    if (inner_stride == 1)                                                  \
      memcpy(d, s, sizeof(T) * (size_t)inner);                              \
    else                                                                    \
      for (int64_t i = 0; i < inner; i++) d[i] = s[i * inner_stride];       \
  } while (0)

void gemm_strided_copy(int es, int rank, const int64_t *sizes, const int64_t *strides,
                       const void *src, void *dst) {
  int64_t total = 1;
  for (int d = 0; d < rank; d++) total *= sizes[d];
  if (total == 0) return;
  if (rank == 0) {
    memcpy(dst, src, (size_t)es);
    return;
  }
  int64_t inner = sizes[rank - 1], inner_stride = strides[rank - 1];
  int64_t idx[TPUB_MAX_RANK] = {0};
  int64_t off = 0;
  for (int64_t done = 0; done < total; done += inner) {
    switch (es) {
    case 1: STRIDED_ROW(uint8_t); break;
    case 2: STRIDED_ROW(uint16_t); break;
    case 4: STRIDED_ROW(uint32_t); break;
    case 8: STRIDED_ROW(uint64_t); break;
    default: STRIDED_ROW(Elem16); break;
    }
    for (int d = rank - 2; d >= 0; d--) {
      off += strides[d];
      if (++idx[d] < sizes[d]) break;
      off -= strides[d] * sizes[d];
      idx[d] = 0;
    }
  }
}

#undef STRIDED_ROW

/* ---- the generic kernels (complex, integer, boolean) ---- */

/* C = A * B for interleaved complex of float (T float) or double. */
#define COMPLEX_GEMM(T)                                                            \
  do {                                                                             \
    const T *a = A;                                                                \
    const T *b = B;                                                                \
    for (int64_t i = 0; i < M; i++) {                                              \
      T *c = (T *)C + 2 * i * ldc;                                                 \
      memset(c, 0, sizeof(T) * 2 * (size_t)N);                                     \
      for (int64_t p = 0; p < K; p++) {                                            \
        T ar = a[2 * (i * rsa + p * csa)], ai = a[2 * (i * rsa + p * csa) + 1];    \
        const T *br = b + 2 * p * rsb;                                             \
        for (int64_t j = 0; j < N; j++) {                                          \
          T xr = br[2 * j * csb], xi = br[2 * j * csb + 1];                        \
          c[2 * j] += ar * xr - ai * xi;                                           \
          c[2 * j + 1] += ar * xi + ai * xr;                                       \
        }                                                                          \
      }                                                                            \
    }                                                                              \
  } while (0)

/* Integer product with wrap-around (unsigned arithmetic). */
static void gemm_i64(int64_t M, int64_t N, int64_t K, const uint64_t *a, int64_t rsa,
                     int64_t csa, const uint64_t *b, int64_t rsb, int64_t csb, uint64_t *C,
                     int64_t ldc) {
  for (int64_t i = 0; i < M; i++) {
    uint64_t *c = C + i * ldc;
    memset(c, 0, sizeof(uint64_t) * (size_t)N);
    for (int64_t p = 0; p < K; p++) {
      uint64_t av = a[i * rsa + p * csa];
      const uint64_t *br = b + p * rsb;
      if (csb == 1)
        for (int64_t j = 0; j < N; j++) c[j] += av * br[j];
      else
        for (int64_t j = 0; j < N; j++) c[j] += av * br[j * csb];
    }
  }
}

/* Boolean product: or of ands. */
static void gemm_bool(int64_t M, int64_t N, int64_t K, const uint8_t *a, int64_t rsa,
                      int64_t csa, const uint8_t *b, int64_t rsb, int64_t csb, uint8_t *C,
                      int64_t ldc) {
  for (int64_t i = 0; i < M; i++) {
    uint8_t *c = C + i * ldc;
    memset(c, 0, (size_t)N);
    for (int64_t p = 0; p < K; p++) {
      uint8_t av = a[i * rsa + p * csa];
      const uint8_t *br = b + p * rsb;
      for (int64_t j = 0; j < N; j++) c[j] |= av & br[j * csb];
    }
  }
}

/* ---- work buffers ---- */

void gemm_work_init(GemmWork *w, VmExec *x, GemmKind kind) {
  memset(w, 0, sizeof *w);
  w->x = x;
  w->kind = kind;
  w->isa = gemm_isa_default();
}

void gemm_work_free(GemmWork *w) {
  if (w->apack) vm_tile_free(w->x, w->apack, w->abytes);
  if (w->bpack) vm_tile_free(w->x, w->bpack, w->bbytes);
  if (w->sums) vm_tile_free(w->x, w->sums, w->sbytes);
  w->apack = w->bpack = w->sums = NULL;
  w->abytes = w->bbytes = w->sbytes = 0;
  w->reserved = false;
}

/* The packed kernels of a packed kind for w's ISA. */
static const GemmPacked *packed_kernels(const GemmWork *w) {
  return w->kind == GK_BF16 ? gemm_bf16_kernels(w->isa) : gemm_int8_kernels(w->isa, w->kind);
}

/* Grows *buf to at least n bytes; false when refused. */
static bool ensure_buffer(VmExec *x, void **buf, size_t *have, size_t n) {
  if (*have >= n) return true;
  if (*buf) vm_tile_free(x, *buf, *have);
  *buf = vm_tile_alloc(x, n);
  *have = *buf ? n : 0;
  return *buf != NULL;
}

/* Makes w's buffers at least abytes, bbytes and sbytes; a trap when
 * refused, VM_TRAP alone when w is reserved and they are too small. */
static int ensure_buffers(GemmWork *w, size_t abytes, size_t bbytes, size_t sbytes) {
  if (w->reserved && (abytes > w->abytes || bbytes > w->bbytes || sbytes > w->sbytes)) return VM_TRAP;
  if (!ensure_buffer(w->x, &w->apack, &w->abytes, abytes) || !ensure_buffer(w->x, &w->bpack, &w->bbytes, bbytes) ||
      !ensure_buffer(w->x, &w->sums, &w->sbytes, sbytes))
    return vm_trap(w->x, "out of memory: matrix multiply packing buffers");
  return VM_OK;
}

int gemm_work_reserve(GemmWork *w, int64_t M, int64_t N, int64_t K) {
  w->reserved = false;
  if (packed_kind(w->kind) && M > 0 && N > 0 && K > 0) {
    size_t abytes, bbytes;
    gemm_packed_bytes(packed_kernels(w), M, N, K, &abytes, &bbytes);
    int status = ensure_buffers(w, abytes, bbytes, (size_t)(M + N) * 4);
    if (status != VM_OK) return status;
  }
  w->reserved = true;
  return VM_OK;
}

/* ---- OpenBLAS ---- */

static pthread_once_t blas_once = PTHREAD_ONCE_INIT;

/* OpenBLAS's own threads off: the VM shares the work among its threads. */
static void blas_init(void) { openblas_set_num_threads(1); }

/* How BLAS reads a rows x cols matrix with strides rs, cs (elements):
 * row-major (no transpose) or column-major (transposed), with leading
 * dimension *ld; false when it is neither. */
static bool blas_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs, bool *trans, int64_t *ld) {
  if ((cs == 1 || cols == 1) && (rows == 1 || rs >= cols)) {
    *trans = false;
    *ld = rows == 1 ? (cols > 1 ? cols : 1) : rs;
  } else if ((rs == 1 || rows == 1) && (cols == 1 || cs >= rows)) {
    *trans = true;
    *ld = cols == 1 ? (rows > 1 ? rows : 1) : cs;
  } else {
    return false;
  }
  return *ld <= INT_MAX;
}

/* An operand BLAS cannot read as it is, copied row-major into *buf. */
static int blas_operand(GemmWork *w, int64_t rows, int64_t cols, const void **p, int64_t *rs, int64_t *cs,
                        bool *trans, int64_t *ld, void **buf, size_t *have) {
  if (blas_layout(rows, cols, *rs, *cs, trans, ld)) return VM_OK;
  int es = gemm_kind_bytes(w->kind);
  size_t bytes = (size_t)(rows * cols * es);
  if (w->reserved && bytes > *have) return VM_TRAP;
  if (!ensure_buffer(w->x, buf, have, bytes)) return vm_trap(w->x, "out of memory: matrix multiply operand copy");
  int64_t sizes[2] = {rows, cols}, strides[2] = {*rs, *cs};
  gemm_strided_copy(es, 2, sizes, strides, *p, *buf);
  *p = *buf;
  *rs = cols, *cs = 1;
  return blas_layout(rows, cols, *rs, *cs, trans, ld) ? VM_OK : VM_TRAP;
}

/* C = A * B through cblas_sgemm or cblas_dgemm. */
static int blas_gemm(GemmWork *w, int64_t M, int64_t N, int64_t K, const void *A, int64_t rsa, int64_t csa,
                     const void *B, int64_t rsb, int64_t csb, void *C, int64_t ldc) {
  bool ta, tb;
  int64_t lda, ldb;
  int status = blas_operand(w, M, K, &A, &rsa, &csa, &ta, &lda, &w->apack, &w->abytes);
  if (status == VM_OK) status = blas_operand(w, K, N, &B, &rsb, &csb, &tb, &ldb, &w->bpack, &w->bbytes);
  if (status != VM_OK) return status;
  pthread_once(&blas_once, blas_init);
  enum CBLAS_TRANSPOSE at = ta ? CblasTrans : CblasNoTrans, bt = tb ? CblasTrans : CblasNoTrans;
  if (w->kind == GK_F32)
    cblas_sgemm(CblasRowMajor, at, bt, (int)M, (int)N, (int)K, 1.0f, A, (int)lda, B, (int)ldb, 0.0f, C, (int)ldc);
  else
    cblas_dgemm(CblasRowMajor, at, bt, (int)M, (int)N, (int)K, 1.0, A, (int)lda, B, (int)ldb, 0.0, C, (int)ldc);
  return VM_OK;
}

/* C = A * B through the packed kernels of a bf16 or 8-bit kind. */
static int packed_gemm(GemmWork *w, int64_t M, int64_t N, int64_t K, const void *A, int64_t rsa, int64_t csa,
                       const void *B, int64_t rsb, int64_t csb, void *C, int64_t ldc) {
  const GemmPacked *g = packed_kernels(w);
  size_t abytes, bbytes;
  gemm_packed_bytes(g, M, N, K, &abytes, &bbytes);
  int status = ensure_buffers(w, abytes, bbytes, (size_t)(M + N) * 4);
  if (status != VM_OK) return status;
  gemm_packed_run(g, M, N, K, A, rsa, csa, B, rsb, csb, C, ldc, w->apack, w->bpack);
  if (w->kind != GK_BF16) gemm_int8_fix(g, M, N, K, A, rsa, csa, B, rsb, csb, C, ldc, w->sums);
  return VM_OK;
}

int gemm_run(GemmWork *w, int64_t M, int64_t N, int64_t K, const void *A, int64_t rsa, int64_t csa, const void *B,
             int64_t rsb, int64_t csb, void *C, int64_t ldc) {
  if (M <= 0 || N <= 0) return VM_OK;
  int es = gemm_kind_bytes(w->kind);
  if (K <= 0) {
    for (int64_t i = 0; i < M; i++) memset((char *)C + i * ldc * es, 0, (size_t)(N * es));
    return VM_OK;
  }
  switch (w->kind) {
  case GK_F32:
    if (gemm_skinny_f32(w->isa, M, N, K, A, rsa, csa, B, rsb, csb, C, ldc)) return VM_OK;
    return blas_gemm(w, M, N, K, A, rsa, csa, B, rsb, csb, C, ldc);
  case GK_F64: return blas_gemm(w, M, N, K, A, rsa, csa, B, rsb, csb, C, ldc);
  case GK_C64: COMPLEX_GEMM(float); return VM_OK;
  case GK_C128: COMPLEX_GEMM(double); return VM_OK;
  case GK_I64: gemm_i64(M, N, K, A, rsa, csa, B, rsb, csb, C, ldc); return VM_OK;
  case GK_BOOL: gemm_bool(M, N, K, A, rsa, csa, B, rsb, csb, C, ldc); return VM_OK;
  default: return packed_gemm(w, M, N, K, A, rsa, csa, B, rsb, csb, C, ldc);
  }
}

/* ---- the batched, threaded product ---- */

typedef struct BatchRun {
  GemmKind kind;
  int es;
  int64_t M, N, K, tm, tn, row_tiles, col_tiles;
  GemmOperand a, b;
  char *C;
  GemmWork *works;
} BatchRun;

void gemm_tile_shape(int64_t M, int64_t N, int64_t K, int64_t *tm, int64_t *tn) {
  double flops = 2.0 * (double)M * (double)N * (double)K;
  int64_t want = flops < GEMM_TILE_FLOPS ? 1 : flops >= (double)GEMM_TILE_FLOPS * MAX_TILES ? MAX_TILES
                                                                                   : (int64_t)(flops / GEMM_TILE_FLOPS);
  int64_t rb = 1, cb = 1;
  while (rb * cb < want) {
    int64_t h = (M + rb - 1) / rb, wd = (N + cb - 1) / cb;
    bool rows_ok = h >= 2 * MIN_TM, cols_ok = wd >= 2 * MIN_TN;
    if (rows_ok && (h >= wd || !cols_ok))
      rb *= 2;
    else if (cols_ok)
      cb *= 2;
    else
      break;
  }
  *tm = min64(M, ((M + rb - 1) / rb + 15) / 16 * 16);
  *tn = min64(N, ((N + cb - 1) / cb + 15) / 16 * 16);
}

/* Task t: tile (t / col_tiles) % row_tiles, t % col_tiles of batch
 * t / (row_tiles * col_tiles). */
static int batch_task(void *ctx, int worker, int64_t t) {
  BatchRun *r = ctx;
  int64_t per = r->row_tiles * r->col_tiles, b = t / per, i0 = t % per / r->col_tiles * r->tm;
  int64_t j0 = t % r->col_tiles * r->tn, es = r->es;
  const char *a = (const char *)r->a.base + (b * r->a.batch_stride + i0 * r->a.row_stride) * es;
  const char *bm = (const char *)r->b.base + (b * r->b.batch_stride + j0 * r->b.col_stride) * es;
  char *c = r->C + (b * r->M * r->N + i0 * r->N + j0) * es;
  return gemm_run(&r->works[worker], min64(r->tm, r->M - i0), min64(r->tn, r->N - j0), r->K, a, r->a.row_stride,
                  r->a.col_stride, bm, r->b.row_stride, r->b.col_stride, c, r->N);
}

int gemm_operand_ready(VmExec *x, GemmKind kind, int64_t batch, int64_t rows, int64_t cols, GemmOperand *o,
                      void **copy, size_t *bytes) {
  bool t;
  int64_t ld;
  if ((kind != GK_F32 && kind != GK_F64) || blas_layout(rows, cols, o->row_stride, o->col_stride, &t, &ld))
    return VM_OK;
  int es = gemm_kind_bytes(kind);
  *bytes = (size_t)(batch * rows * cols * es);
  if (!(*copy = vm_tile_alloc(x, *bytes)))
    return vm_trap(x, "out of memory: matrix multiply operand copy (%zu bytes)", *bytes);
  int64_t sizes[3] = {batch, rows, cols}, strides[3] = {o->batch_stride, o->row_stride, o->col_stride};
  gemm_strided_copy(es, 3, sizes, strides, o->base, *copy);
  *o = (GemmOperand){.base = *copy, .batch_stride = rows * cols, .row_stride = cols, .col_stride = 1};
  return VM_OK;
}

/* Runs r's tasks with nworkers reserved works. */
static int batch_tasks(VmExec *x, BatchRun *r, int64_t ntasks, int nworkers) {
  int status = VM_OK, ready = 0;
  for (; ready < nworkers && status == VM_OK; ready++) {
    gemm_work_init(&r->works[ready], x, r->kind);
    status = gemm_work_reserve(&r->works[ready], r->tm, r->tn, r->K);
  }
  if (status == VM_OK && nworkers == 1)
    for (int64_t t = 0; t < ntasks && status == VM_OK; t++) status = batch_task(r, 0, t);
  else if (status == VM_OK && vm_parallel_for(x, ntasks, batch_task, r) != VM_OK)
    status = vm_trap(x, "internal error: a matrix multiply tile outgrew its reserved buffers");
  while (ready > 0) gemm_work_free(&r->works[--ready]);
  return status;
}

int gemm_batched(VmExec *x, GemmKind kind, int64_t batch, int64_t M, int64_t N, int64_t K, GemmOperand a,
                 GemmOperand b, void *C) {
  if (batch <= 0 || M <= 0 || N <= 0) return VM_OK;
  BatchRun r = {.kind = kind, .es = gemm_kind_bytes(kind), .M = M, .N = N, .K = K, .a = a, .b = b, .C = C};
  gemm_tile_shape(M, N, K, &r.tm, &r.tn);
  r.row_tiles = (M + r.tm - 1) / r.tm;
  r.col_tiles = (N + r.tn - 1) / r.tn;
  int64_t ntasks = batch * r.row_tiles * r.col_tiles;
  double flops = 2.0 * (double)batch * (double)M * (double)N * (double)K;
  int nworkers = flops < GEMM_TILE_FLOPS ? 1 : vm_parallel_workers(x, ntasks);
  void *acopy = NULL, *bcopy = NULL;
  size_t abytes = 0, bbytes = 0, wbytes = sizeof(GemmWork) * (size_t)nworkers;
  int status = gemm_operand_ready(x, kind, batch, M, K, &r.a, &acopy, &abytes);
  if (status == VM_OK) status = gemm_operand_ready(x, kind, batch, K, N, &r.b, &bcopy, &bbytes);
  if (status == VM_OK && !(r.works = vm_tile_alloc(x, wbytes)))
    status = vm_trap(x, "out of memory: matrix multiply workers");
  if (status == VM_OK) status = batch_tasks(x, &r, ntasks, nworkers);
  if (r.works) vm_tile_free(x, r.works, wbytes);
  if (acopy) vm_tile_free(x, acopy, abytes);
  if (bcopy) vm_tile_free(x, bcopy, bbytes);
  return status;
}
