/* Matrix-multiply engine for dot_general and convolution (see gemm.h). */
#include "vm/kernels/gemm.h"

#include <string.h>

#include "vm/dtype.h"
#include "vm/kernels/kernels.h"

/* Cache blocking of the real kernels: an A block (GK_MC x GK_KC) stays in
 * L2, a packed B panel (GK_KC x GK_NR) in L1.  GK_MC is a multiple of the
 * micro-kernel's 6 rows, GK_NC of every GK_NR. */
#define GK_MC 120
#define GK_KC 256
#define GK_NC 4096
#define GK_NR_MAX 16 /* widest B panel of all instances (f32 AVX2) */

/* ---- the blocked kernels: SSE2-width instances, AVX2 ones on x86 ---- */

typedef float gk_v4f __attribute__((vector_size(16)));
typedef double gk_v2d __attribute__((vector_size(16)));

#define GK_T float
#define GK_V gk_v4f
#define GK_VL 4
#define GK_ATTR
#define GK_NAME(x) x##_f32_v4
#include "vm/kernels/gemm_kernel.inc"
#undef GK_T
#undef GK_V
#undef GK_VL
#undef GK_ATTR
#undef GK_NAME

#define GK_T double
#define GK_V gk_v2d
#define GK_VL 2
#define GK_ATTR
#define GK_NAME(x) x##_f64_v2
#include "vm/kernels/gemm_kernel.inc"
#undef GK_T
#undef GK_V
#undef GK_VL
#undef GK_ATTR
#undef GK_NAME

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define GK_HAVE_AVX2 1
typedef float gk_v8f __attribute__((vector_size(32)));
typedef double gk_v4d __attribute__((vector_size(32)));

#define GK_T float
#define GK_V gk_v8f
#define GK_VL 8
#define GK_ATTR __attribute__((target("avx2")))
#define GK_NAME(x) x##_f32_v8
#include "vm/kernels/gemm_kernel.inc"
#undef GK_T
#undef GK_V
#undef GK_VL
#undef GK_ATTR
#undef GK_NAME

#define GK_T double
#define GK_V gk_v4d
#define GK_VL 4
#define GK_ATTR __attribute__((target("avx2")))
#define GK_NAME(x) x##_f64_v4
#include "vm/kernels/gemm_kernel.inc"
#undef GK_T
#undef GK_V
#undef GK_VL
#undef GK_ATTR
#undef GK_NAME
#else
#define GK_HAVE_AVX2 0
#endif

/* ---- kinds ---- */

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
    return result_elem == TPUB_F64 ? GK_F64 : GK_F32;
  default:
    if (!ints) return -1;
    return result_elem == TPUB_I1 ? GK_BOOL : GK_I64;
  }
}

int gemm_kind_bytes(GemmKind k) {
  static const int bytes[] = {4, 8, 8, 16, 8, 1};
  return bytes[k];
}

bool gemm_is_native(GemmKind k, int elem) {
  switch (k) {
  case GK_F32: return elem == TPUB_F32;
  case GK_F64: return elem == TPUB_F64;
  case GK_C64: return elem == TPUB_C64;
  case GK_C128: return elem == TPUB_C128;
  case GK_I64: return elem == TPUB_I64 || elem == TPUB_U64;
  case GK_BOOL: return elem == TPUB_I1;
  }
  return false;
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

void gemm_load(GemmKind k, int elem, const void *src, int64_t n, void *dst) {
  if (gemm_is_native(k, elem)) {
    memcpy(dst, src, (size_t)n * (size_t)gemm_kind_bytes(k));
    return;
  }
  switch (k) {
  case GK_F32: vm_to_f32(elem, src, 0, n, dst); return;
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
  }
}

void gemm_store(GemmKind k, int elem, const void *src, int64_t n, void *dst) {
  if (gemm_is_native(k, elem)) {
    memcpy(dst, src, (size_t)n * (size_t)gemm_kind_bytes(k));
    return;
  }
  switch (k) {
  case GK_F32: vm_from_f32(elem, dst, 0, n, src); return;
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

/* ---- work buffers ---- */

void gemm_work_init(GemmWork *w, VmExec *x, GemmKind kind) {
  memset(w, 0, sizeof *w);
  w->x = x;
  w->kind = kind;
#if GK_HAVE_AVX2
  w->avx2 = __builtin_cpu_supports("avx2");
#endif
}

void gemm_work_free(GemmWork *w) {
  if (w->apack) vm_tile_free(w->x, w->apack, w->abytes);
  if (w->bpack) vm_tile_free(w->x, w->bpack, w->bbytes);
  w->apack = w->bpack = NULL;
  w->abytes = w->bbytes = 0;
  w->reserved = false;
}

/* Packing buffer bytes of the real kernels for a product of these sizes. */
static void pack_bytes(GemmKind kind, int64_t M, int64_t N, int64_t K, size_t *abytes, size_t *bbytes) {
  int64_t es = gemm_kind_bytes(kind);
  int64_t mc = M < GK_MC ? (M + 5) / 6 * 6 : GK_MC;
  int64_t nc = N < GK_NC ? (N + GK_NR_MAX - 1) / GK_NR_MAX * GK_NR_MAX : GK_NC;
  int64_t kc = K < GK_KC ? K : GK_KC;
  *abytes = (size_t)(mc * kc * es);
  *bbytes = (size_t)(nc * kc * es);
}

/* Grows *buf to at least n bytes; false when refused. */
static bool ensure_buffer(VmExec *x, void **buf, size_t *have, size_t n) {
  if (*have >= n) return true;
  if (*buf) vm_tile_free(x, *buf, *have);
  *buf = vm_tile_alloc(x, n);
  *have = *buf ? n : 0;
  return *buf != NULL;
}

int gemm_work_reserve(GemmWork *w, int64_t M, int64_t N, int64_t K) {
  w->reserved = false;
  if ((w->kind == GK_F32 || w->kind == GK_F64) && M > 0 && K > 0) {
    size_t abytes, bbytes;
    pack_bytes(w->kind, M, N, K, &abytes, &bbytes);
    if (!ensure_buffer(w->x, &w->apack, &w->abytes, abytes) ||
        (N > 0 && !ensure_buffer(w->x, &w->bpack, &w->bbytes, bbytes)))
      return vm_trap(w->x, "out of memory: matrix multiply packing buffers");
  }
  w->reserved = true;
  return VM_OK;
}

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

/* gemm_run and gemm_run_packed: B strided, or (packed != NULL) packed by
 * gemm_pack_b, for the real kernels. */
static int gemm_any(GemmWork *w, int64_t M, int64_t N, int64_t K, const void *A, int64_t rsa, int64_t csa,
                    const void *B, int64_t rsb, int64_t csb, const void *packed, void *C, int64_t ldc) {
  if (M <= 0 || N <= 0) return VM_OK;
  int es = gemm_kind_bytes(w->kind);
  if (K <= 0) {
    for (int64_t i = 0; i < M; i++) memset((char *)C + i * ldc * es, 0, (size_t)(N * es));
    return VM_OK;
  }
  switch (w->kind) {
  case GK_F32:
  case GK_F64: {
    size_t abytes, bbytes;
    pack_bytes(w->kind, M, N, K, &abytes, &bbytes);
    if (packed) bbytes = 0;
    if (w->reserved && (abytes > w->abytes || bbytes > w->bbytes)) return VM_TRAP;
    if (!ensure_buffer(w->x, &w->apack, &w->abytes, abytes) ||
        (bbytes && !ensure_buffer(w->x, &w->bpack, &w->bbytes, bbytes)))
      return vm_trap(w->x, "out of memory: matrix multiply packing buffers");
    if (w->kind == GK_F32) {
#if GK_HAVE_AVX2
      if (w->avx2) {
        gemm_f32_v8(M, N, K, A, rsa, csa, B, rsb, csb, C, ldc, w->apack, w->bpack, packed);
        return VM_OK;
      }
#endif
      gemm_f32_v4(M, N, K, A, rsa, csa, B, rsb, csb, C, ldc, w->apack, w->bpack, packed);
    } else {
#if GK_HAVE_AVX2
      if (w->avx2) {
        gemm_f64_v4(M, N, K, A, rsa, csa, B, rsb, csb, C, ldc, w->apack, w->bpack, packed);
        return VM_OK;
      }
#endif
      gemm_f64_v2(M, N, K, A, rsa, csa, B, rsb, csb, C, ldc, w->apack, w->bpack, packed);
    }
    return VM_OK;
  }
  case GK_C64: COMPLEX_GEMM(float); return VM_OK;
  case GK_C128: COMPLEX_GEMM(double); return VM_OK;
  case GK_I64: gemm_i64(M, N, K, A, rsa, csa, B, rsb, csb, C, ldc); return VM_OK;
  case GK_BOOL: gemm_bool(M, N, K, A, rsa, csa, B, rsb, csb, C, ldc); return VM_OK;
  }
  return VM_OK;
}

int gemm_run(GemmWork *w, int64_t M, int64_t N, int64_t K, const void *A, int64_t rsa,
             int64_t csa, const void *B, int64_t rsb, int64_t csb, void *C, int64_t ldc) {
  return gemm_any(w, M, N, K, A, rsa, csa, B, rsb, csb, NULL, C, ldc);
}

/* Columns of a B panel of w's real kernel (the packed width unit). */
static int64_t panel_cols(const GemmWork *w) {
  int64_t lanes = (w->kind == GK_F32 ? 4 : 2) * (w->avx2 ? 2 : 1);
  return 2 * lanes;
}

size_t gemm_packed_b_bytes(const GemmWork *w, int64_t K, int64_t N) {
  int64_t cols = N;
  if (w->kind == GK_F32 || w->kind == GK_F64) cols = (N + panel_cols(w) - 1) / panel_cols(w) * panel_cols(w);
  return (size_t)(K * cols * gemm_kind_bytes(w->kind));
}

void gemm_pack_b(const GemmWork *w, int64_t K, int64_t N, const void *B, int64_t rsb, int64_t csb, void *packed) {
  if (K <= 0 || N <= 0) return;
  switch (w->kind) {
  case GK_F32:
#if GK_HAVE_AVX2
    if (w->avx2) {
      pack_b_all_f32_v8(K, N, B, rsb, csb, packed);
      return;
    }
#endif
    pack_b_all_f32_v4(K, N, B, rsb, csb, packed);
    return;
  case GK_F64:
#if GK_HAVE_AVX2
    if (w->avx2) {
      pack_b_all_f64_v4(K, N, B, rsb, csb, packed);
      return;
    }
#endif
    pack_b_all_f64_v2(K, N, B, rsb, csb, packed);
    return;
  default: {
    int64_t sizes[2] = {K, N}, strides[2] = {rsb, csb};
    gemm_strided_copy(gemm_kind_bytes(w->kind), 2, sizes, strides, B, packed);
    return;
  }
  }
}

int gemm_run_packed(GemmWork *w, int64_t M, int64_t N, int64_t K, const void *A, int64_t rsa, int64_t csa,
                    const void *packed, void *C, int64_t ldc) {
  if (w->kind == GK_F32 || w->kind == GK_F64) return gemm_any(w, M, N, K, A, rsa, csa, NULL, 0, 0, packed, C, ldc);
  return gemm_any(w, M, N, K, A, rsa, csa, packed, N, 1, NULL, C, ldc);
}
