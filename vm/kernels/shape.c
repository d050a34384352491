/* Data-movement kernels (vm/opcodes.def "data movement"): broadcast_in_dim,
 * reshape, transpose, slice, dynamic_slice, dynamic_update_slice,
 * concatenate, pad, iota, reverse; and the strided copy engine of
 * vm/kernels/shape.h that they, gather and scatter share.  Elements move as
 * opaque units of their storage size; only iota computes values. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "vm/kernels/shape.h"
#include "vm/parallel.h"

#if defined(__SSE2__)
#include <immintrin.h>
#endif

/* Copies of at least PARALLEL_COPY_MIN bytes run on host threads in slabs
 * of about COPY_SLAB_BYTES (fixed by the shape: any thread count gives the
 * same bytes, as any copy does). */
enum { PARALLEL_COPY_MIN = 1 << 21, COPY_SLAB_BYTES = 1 << 19 };
/* Copies of at least this many bytes store contiguous runs around the caches. */
enum { STREAM_COPY_MIN = 8 << 20 };

/* The 16-byte element (complex<f64>), moved as two words. */
typedef struct Elem16 {
  uint64_t lo, hi;
} Elem16;

/* ------------------------------------------------------------------ */
/* Copy engine */

void vm_row_major_strides(int rank, const int64_t *dims, int64_t *strides) {
  int64_t s = 1;
  for (int d = rank - 1; d >= 0; d--) {
    strides[d] = s;
    s *= dims[d];
  }
}

void vm_fill_elems(void *dst, int esize, int64_t n, const void *value) {
  if (n <= 0) return;
  switch (esize) {
  case 1: memset(dst, *(const uint8_t *)value, (size_t)n); return;
  case 2: {
    uint16_t v, *d = dst;
    memcpy(&v, value, 2);
    for (int64_t i = 0; i < n; i++) d[i] = v;
    return;
  }
  case 4: {
    uint32_t v, *d = dst;
    memcpy(&v, value, 4);
    for (int64_t i = 0; i < n; i++) d[i] = v;
    return;
  }
  case 8: {
    uint64_t v, *d = dst;
    memcpy(&v, value, 8);
    for (int64_t i = 0; i < n; i++) d[i] = v;
    return;
  }
  default: {
    /* Doubling copies: one element, then 1, 2, 4... already written. */
    char *d = dst;
    size_t total = (size_t)n * (size_t)esize, done = (size_t)esize;
    memmove(d, value, (size_t)esize);
    while (done < total) {
      size_t chunk = done < total - done ? done : total - done;
      memcpy(d + done, d, chunk);
      done += chunk;
    }
    return;
  }
  }
}

void vm_stream_copy(void *dst, const void *src, size_t n) {
#if defined(__SSE2__)
  char *d = dst;
  const char *s = src;
  size_t head = (16 - ((uintptr_t)d & 15)) & 15;
  if (n < 64 + head) {
    memcpy(d, s, n);
    return;
  }
  if (head) memcpy(d, s, head);
  d += head, s += head, n -= head;
  size_t body = n & ~(size_t)63;
  for (size_t i = 0; i < body; i += 64) {
    __m128i a = _mm_loadu_si128((const __m128i *)(s + i)), b = _mm_loadu_si128((const __m128i *)(s + i + 16));
    __m128i c = _mm_loadu_si128((const __m128i *)(s + i + 32)), e = _mm_loadu_si128((const __m128i *)(s + i + 48));
    _mm_stream_si128((__m128i *)(d + i), a);
    _mm_stream_si128((__m128i *)(d + i + 16), b);
    _mm_stream_si128((__m128i *)(d + i + 32), c);
    _mm_stream_si128((__m128i *)(d + i + 48), e);
  }
  if (n > body) memcpy(d + body, s + body, n - body);
#else
  memcpy(dst, src, n);
#endif
}

void vm_stream_fence(void) {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

void vm_copy_plan_init(VmCopyPlan *p, int esize, int rank, const int64_t *dims, const int64_t *src_stride,
                       const int64_t *dst_stride) {
  p->esize = esize;
  p->rank = 0;
  p->empty = false;
  p->stream = false;
  for (int d = 0; d < rank; d++)
    if (dims[d] == 0) {
      p->empty = true;
      return;
    }
  for (int d = 0; d < rank; d++) {
    if (dims[d] == 1) continue;
    int r = p->rank;
    if (r > 0 && p->src_stride[r - 1] == src_stride[d] * dims[d] && p->dst_stride[r - 1] == dst_stride[d] * dims[d]) {
      p->dims[r - 1] *= dims[d];
      p->src_stride[r - 1] = src_stride[d];
      p->dst_stride[r - 1] = dst_stride[d];
      continue;
    }
    p->dims[r] = dims[d];
    p->src_stride[r] = src_stride[d];
    p->dst_stride[r] = dst_stride[d];
    p->rank++;
  }
}

#define STRIDED_COPY(T)                                        \
  do {                                                         \
    T *d_ = (T *)dst;                                          \
    const T *s_ = (const T *)src;                              \
    if (ds == 1)                                               \
      for (int64_t k = 0; k < n; k++) d_[k] = s_[k * ss];      \
    else                                                       \
      for (int64_t k = 0; k < n; k++) d_[k * ds] = s_[k * ss]; \
  } while (0)

/* Fills n elements of dst with the element at value through a filled
 * buffer and streaming stores. */
static void stream_fill(char *dst, int esize, int64_t n, const char *value) {
  _Alignas(64) char buf[4096];
  int64_t per = (int64_t)sizeof buf / esize;
  vm_fill_elems(buf, esize, n < per ? n : per, value);
  for (int64_t i = 0; i < n; i += per)
    vm_stream_copy(dst + i * esize, buf, (size_t)((n - i < per ? n - i : per) * esize));
}

/* Copies n elements from src (step ss) to dst (step ds); stream: store
 * contiguous runs around the caches. */
static void copy_run(char *dst, int64_t ds, const char *src, int64_t ss, int64_t n, int esize, bool stream) {
  if (ds == 1 && ss == 1) {
    if (stream) vm_stream_copy(dst, src, (size_t)n * (size_t)esize);
    else memcpy(dst, src, (size_t)n * (size_t)esize);
    return;
  }
  if (ss == 0 && ds == 1) {
    if (stream && esize <= 16) stream_fill(dst, esize, n, src);
    else vm_fill_elems(dst, esize, n, src);
    return;
  }
  switch (esize) {
  case 1: STRIDED_COPY(uint8_t); break;
  case 2: STRIDED_COPY(uint16_t); break;
  case 4: STRIDED_COPY(uint32_t); break;
  case 8: STRIDED_COPY(uint64_t); break;
  default: STRIDED_COPY(Elem16); break;
  }
}

#define TILE 32
#define OUTER_TILE 256
#define RUN_TILE 16

#define TILED_COPY(T)                                                                       \
  do {                                                                                      \
    T *d_ = (T *)dst;                                                                       \
    const T *s_ = (const T *)src;                                                           \
    for (int64_t a0 = 0; a0 < na; a0 += TILE)                                               \
      for (int64_t b0 = 0; b0 < nb; b0 += TILE) {                                           \
        int64_t a1 = a0 + TILE < na ? a0 + TILE : na, b1 = b0 + TILE < nb ? b0 + TILE : nb; \
        for (int64_t a = a0; a < a1; a++)                                                   \
          for (int64_t b = b0; b < b1; b++) d_[a * dsa + b] = s_[a + b * ssb];              \
      }                                                                                     \
  } while (0)

#if defined(__SSE2__)
/* An 8x8 block of 2-byte elements: dst row i (stride dsa) = src column i
 * (src rows of stride ssb), three rounds of interleaves. */
static inline void block8_u16(uint16_t *d, int64_t dsa, const uint16_t *s, int64_t ssb) {
  __m128i r[8], t[8];
  for (int j = 0; j < 8; j++) r[j] = _mm_loadu_si128((const __m128i *)(s + j * ssb));
  for (int j = 0; j < 4; j++) {
    t[2 * j] = _mm_unpacklo_epi16(r[2 * j], r[2 * j + 1]);
    t[2 * j + 1] = _mm_unpackhi_epi16(r[2 * j], r[2 * j + 1]);
  }
  for (int j = 0; j < 2; j++) {
    r[4 * j] = _mm_unpacklo_epi32(t[4 * j], t[4 * j + 2]);
    r[4 * j + 1] = _mm_unpackhi_epi32(t[4 * j], t[4 * j + 2]);
    r[4 * j + 2] = _mm_unpacklo_epi32(t[4 * j + 1], t[4 * j + 3]);
    r[4 * j + 3] = _mm_unpackhi_epi32(t[4 * j + 1], t[4 * j + 3]);
  }
  for (int j = 0; j < 4; j++) {
    _mm_storeu_si128((__m128i *)(d + (2 * j) * dsa), _mm_unpacklo_epi64(r[j], r[j + 4]));
    _mm_storeu_si128((__m128i *)(d + (2 * j + 1) * dsa), _mm_unpackhi_epi64(r[j], r[j + 4]));
  }
}

/* A 4x4 block of 4-byte elements (moved as floats: shuffles copy bits). */
static inline void block4_u32(uint32_t *d, int64_t dsa, const uint32_t *s, int64_t ssb) {
  __m128 r0 = _mm_loadu_ps((const float *)s), r1 = _mm_loadu_ps((const float *)(s + ssb));
  __m128 r2 = _mm_loadu_ps((const float *)(s + 2 * ssb)), r3 = _mm_loadu_ps((const float *)(s + 3 * ssb));
  _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
  _mm_storeu_ps((float *)d, r0);
  _mm_storeu_ps((float *)(d + dsa), r1);
  _mm_storeu_ps((float *)(d + 2 * dsa), r2);
  _mm_storeu_ps((float *)(d + 3 * dsa), r3);
}

/* An 8x8 block of 4-byte elements with AVX2 (only called when the host has it). */
__attribute__((target("avx2"), always_inline)) static inline void block8_u32(uint32_t *d, int64_t dsa, const uint32_t *s, int64_t ssb) {
  __m256 r[8], t[8];
  for (int j = 0; j < 8; j++) r[j] = _mm256_loadu_ps((const float *)(s + j * ssb));
  for (int j = 0; j < 4; j++) {
    t[2 * j] = _mm256_unpacklo_ps(r[2 * j], r[2 * j + 1]);
    t[2 * j + 1] = _mm256_unpackhi_ps(r[2 * j], r[2 * j + 1]);
  }
  for (int j = 0; j < 2; j++) {
    r[4 * j] = _mm256_shuffle_ps(t[4 * j], t[4 * j + 2], 0x44);
    r[4 * j + 1] = _mm256_shuffle_ps(t[4 * j], t[4 * j + 2], 0xee);
    r[4 * j + 2] = _mm256_shuffle_ps(t[4 * j + 1], t[4 * j + 3], 0x44);
    r[4 * j + 3] = _mm256_shuffle_ps(t[4 * j + 1], t[4 * j + 3], 0xee);
  }
  for (int j = 0; j < 4; j++) {
    _mm256_storeu_ps((float *)(d + j * dsa), _mm256_permute2f128_ps(r[j], r[j + 4], 0x20));
    _mm256_storeu_ps((float *)(d + (j + 4) * dsa), _mm256_permute2f128_ps(r[j], r[j + 4], 0x31));
  }
}

/* 8x8 AVX2 blocks of 4-byte elements over na x nb (multiples of 8) in
 * 32x32 tiles. */
__attribute__((target("avx2"))) static void blocks_u32_avx2(uint32_t *d, int64_t dsa, const uint32_t *s, int64_t ssb,
                                                            int64_t na, int64_t nb) {
  for (int64_t a1 = 0; a1 < na; a1 += TILE)
    for (int64_t b1 = 0; b1 < nb; b1 += TILE)
      for (int64_t a0 = a1; a0 < a1 + TILE && a0 < na; a0 += 8)
        for (int64_t b0 = b1; b0 < b1 + TILE && b0 < nb; b0 += 8)
          block8_u32(d + a0 * dsa + b0, dsa, s + a0 + b0 * ssb, ssb);
}

static bool host_avx2(void) { return __builtin_cpu_supports("avx2"); }

/* The SIMD part of a transposing copy: the largest corner of whole
 * blocks (block x block elements); returns the block size (the caller
 * copies the two edge strips), 0 when none applies. */
static int64_t copy_blocks(char *dst, int64_t dsa, const char *src, int64_t ssb, int64_t na, int64_t nb, int esize) {
  if (esize == 2) {
    for (int64_t a0 = 0; a0 + 8 <= na; a0 += 8)
      for (int64_t b0 = 0; b0 + 8 <= nb; b0 += 8)
        block8_u16((uint16_t *)dst + a0 * dsa + b0, dsa, (const uint16_t *)src + a0 + b0 * ssb, ssb);
    return 8;
  }
  if (esize != 4) return 0;
  if (host_avx2()) {
    blocks_u32_avx2((uint32_t *)dst, dsa, (const uint32_t *)src, ssb, na / 8 * 8, nb / 8 * 8);
    return 8;
  }
  for (int64_t a0 = 0; a0 + 4 <= na; a0 += 4)
    for (int64_t b0 = 0; b0 + 4 <= nb; b0 += 4)
      block4_u32((uint32_t *)dst + a0 * dsa + b0, dsa, (const uint32_t *)src + a0 + b0 * ssb, ssb);
  return 4;
}
#else
static int64_t copy_blocks(char *dst, int64_t dsa, const char *src, int64_t ssb, int64_t na, int64_t nb, int esize) {
  (void)dst, (void)dsa, (void)src, (void)ssb, (void)na, (void)nb, (void)esize;
  return 0;
}
#endif

/* A transposing 2-d copy in cache-sized tiles of scalar moves. */
static void copy_tile_scalar(char *dst, int64_t dsa, const char *src, int64_t ssb, int64_t na, int64_t nb, int esize) {
  switch (esize) {
  case 1: TILED_COPY(uint8_t); break;
  case 2: TILED_COPY(uint16_t); break;
  case 4: TILED_COPY(uint32_t); break;
  case 8: TILED_COPY(uint64_t); break;
  default: TILED_COPY(Elem16); break;
  }
}

/* A transposing 2-d copy: dst[a * dsa + b] = src[a + b * ssb] for a < na,
 * b < nb (dst contiguous along b, src along a): SIMD blocks where the
 * element size has them, the edges in scalar tiles; one cache block. */
static void copy_tile_block(char *dst, int64_t dsa, const char *src, int64_t ssb, int64_t na, int64_t nb, int esize) {
  int64_t k = copy_blocks(dst, dsa, src, ssb, na, nb, esize);
  if (k == 0) {
    copy_tile_scalar(dst, dsa, src, ssb, na, nb, esize);
    return;
  }
  int64_t fa = na / k * k, fb = nb / k * k;
  if (fb < nb) copy_tile_scalar(dst + fb * esize, dsa, src + fb * ssb * esize, ssb, fa, nb - fb, esize);
  if (fa < na) copy_tile_scalar(dst + fa * dsa * esize, dsa, src + fa * esize, ssb, na - fa, nb, esize);
}

/* A large transposing copy of 2- or 4-byte elements: square tiles whose
 * rows are one cache line (S = 64 / esize elements), transposed into an
 * L1 buffer and stored to the destination around the caches, source rows
 * outermost (stripes of destination rows measured slower); returns false
 * when the element size has no such path. */
static bool copy_tile_stream(char *dst, int64_t dsa, const char *src, int64_t ssb, int64_t na, int64_t nb, int esize) {
  if (esize != 2 && esize != 4) return false;
  const int64_t S = 64 / esize, fa = na / S * S, fb = nb / S * S;
  _Alignas(64) char buf[64 * 32];
  for (int64_t b0 = 0; b0 < fb; b0 += S)
    for (int64_t a0 = 0; a0 < fa; a0 += S) {
      copy_blocks(buf, S, src + (a0 + b0 * ssb) * esize, ssb, S, S, esize);
      for (int64_t i = 0; i < S; i++) vm_stream_copy(dst + ((a0 + i) * dsa + b0) * esize, buf + i * 64, 64);
    }
  if (fb < nb) copy_tile_scalar(dst + fb * esize, dsa, src + fb * ssb * esize, ssb, fa, nb - fb, esize);
  if (fa < na) copy_tile_scalar(dst + fa * dsa * esize, dsa, src + fa * esize, ssb, na - fa, nb, esize);
  return true;
}

/* copy_tile_block over blocks of OUTER_TILE x OUTER_TILE elements (each
 * block's rows stay in the caches and the TLB), or copy_tile_stream for a
 * large copy (stream). */
static void copy_tile(char *dst, int64_t dsa, const char *src, int64_t ssb, int64_t na, int64_t nb, int esize,
                      bool stream) {
  if (stream && copy_tile_stream(dst, dsa, src, ssb, na, nb, esize)) return;
  for (int64_t a0 = 0; a0 < na; a0 += OUTER_TILE)
    for (int64_t b0 = 0; b0 < nb; b0 += OUTER_TILE)
      copy_tile_block(dst + (a0 * dsa + b0) * esize, dsa, src + (a0 + b0 * ssb) * esize, ssb,
                      na - a0 < OUTER_TILE ? na - a0 : OUTER_TILE, nb - b0 < OUTER_TILE ? nb - b0 : OUTER_TILE, esize);
}

/* The dimension to tile with the innermost one when the copy transposes:
 * the innermost run is contiguous in dst but strided in src, and another
 * dimension is contiguous in src.  -1 when there is none. */
static int transpose_tile_dim(const VmCopyPlan *p) {
  int r = p->rank - 1;
  if (r < 1 || p->dst_stride[r] != 1 || p->src_stride[r] == 1 || p->src_stride[r] == 0 || p->dims[r] < 8) return -1;
  for (int j = 0; j < r; j++)
    if (p->src_stride[j] == 1 && p->dims[j] >= 8) return j;
  return -1;
}

/* Run tiling: a copy whose innermost run is contiguous on both sides, whose
 * next dimension k = rank - 2 is contiguous across runs in dst but not in
 * src, and where another dimension j is contiguous across runs in src (a
 * transpose of whole rows, as attention's [B,S,H,D] <-> [B,H,S,D]): j, or
 * -1 when there is none. */
static int run_tile_dim(const VmCopyPlan *p) {
  int r = p->rank - 1, k = r - 1;
  if (k < 1 || p->dst_stride[r] != 1 || p->src_stride[r] != 1) return -1;
  int64_t run = p->dims[r];
  if (p->dst_stride[k] != run || p->src_stride[k] == run || p->dims[k] < 4) return -1;
  for (int j = 0; j < k; j++)
    if (p->src_stride[j] == run && p->dims[j] >= 4) return j;
  return -1;
}

/* Runs of n contiguous elements at (j, k), j < nj, k < nk, from src + j *
 * n + k * sk to dst + j * dj + k * n, in RUN_TILE x RUN_TILE blocks: both
 * sides read and write a few kilobytes in order per block. */
static void copy_run_tile(char *dst, int64_t dj, const char *src, int64_t sk, int64_t nj, int64_t nk, int64_t n, int es,
                          bool stream) {
  for (int64_t j0 = 0; j0 < nj; j0 += RUN_TILE)
    for (int64_t k0 = 0; k0 < nk; k0 += RUN_TILE)
      for (int64_t j = j0; j < j0 + RUN_TILE && j < nj; j++)
        for (int64_t k = k0; k < k0 + RUN_TILE && k < nk; k++)
          copy_run(dst + (j * dj + k * n) * es, 1, src + (j * n + k * sk) * es, 1, n, es, stream);
}

void vm_copy_plan_run(const VmCopyPlan *p, void *dst, int64_t dst_base, const void *src, int64_t src_base) {
  if (p->empty) return;
  char *d = dst;
  const char *s = src;
  int es = p->esize;
  if (p->rank == 0) {
    memcpy(d + dst_base * es, s + src_base * es, (size_t)es);
    return;
  }
  int r = p->rank - 1, tile = transpose_tile_dim(p), rt = tile < 0 ? run_tile_dim(p) : -1;
  int64_t odims[TPUB_MAX_RANK], osrc[TPUB_MAX_RANK], odst[TPUB_MAX_RANK], idx[TPUB_MAX_RANK];
  int no = 0;
  for (int k = 0; k < (rt >= 0 ? r - 1 : r); k++)
    if (k != tile && k != rt) {
      odims[no] = p->dims[k];
      osrc[no] = p->src_stride[k];
      odst[no] = p->dst_stride[k];
      idx[no] = 0;
      no++;
    }
  int64_t doff = dst_base, soff = src_base;
  for (;;) {
    if (rt >= 0)
      copy_run_tile(d + doff * es, p->dst_stride[rt], s + soff * es, p->src_stride[r - 1], p->dims[rt], p->dims[r - 1],
                    p->dims[r], es, p->stream);
    else if (tile >= 0)
      copy_tile(d + doff * es, p->dst_stride[tile], s + soff * es, p->src_stride[r], p->dims[tile], p->dims[r], es,
                p->stream);
    else
      copy_run(d + doff * es, p->dst_stride[r], s + soff * es, p->src_stride[r], p->dims[r], es, p->stream);
    int k = no - 1;
    for (; k >= 0; k--) {
      doff += odst[k];
      soff += osrc[k];
      if (++idx[k] < odims[k]) break;
      doff -= odst[k] * odims[k];
      soff -= osrc[k] * odims[k];
      idx[k] = 0;
    }
    if (k < 0) return;
  }
}

/* A plan's copy split into fixed slabs of one dimension. */
typedef struct SlabRun {
  const VmCopyPlan *p;
  char *dst;
  const char *src;
  int64_t dst_base, src_base, slab;
  int dim;
} SlabRun;

/* Slab t of a SlabRun (a VmTaskFn). */
static int slab_task(void *ctx, int worker, int64_t t) {
  (void)worker;
  const SlabRun *r = ctx;
  VmCopyPlan sub = *r->p;
  int64_t first = t * r->slab, *n = &sub.dims[r->dim];
  *n = *n - first < r->slab ? *n - first : r->slab;
  vm_copy_plan_run(&sub, r->dst, r->dst_base + first * sub.dst_stride[r->dim], r->src,
                   r->src_base + first * sub.src_stride[r->dim]);
  if (sub.stream) vm_stream_fence();
  return VM_OK;
}

void vm_copy_plan_run_parallel(VmExec *x, const VmCopyPlan *p, void *dst, int64_t dst_base, const void *src,
                               int64_t src_base) {
  if (p->empty || p->rank == 0) {
    vm_copy_plan_run(p, dst, dst_base, src, src_base);
    return;
  }
  int64_t elems = 1;
  for (int d = 0; d < p->rank; d++) elems *= p->dims[d];
  int64_t bytes = elems * p->esize;
  VmCopyPlan big = *p;
  big.stream = bytes >= STREAM_COPY_MIN;
  /* A transposing copy is cut along its source rows (each slab reads a
   * contiguous part of the source), any other along its outermost
   * dimension; slabs of about COPY_SLAB_BYTES, whole blocks when transposed. */
  int dim = transpose_tile_dim(p) >= 0 ? p->rank - 1 : 0;
  int64_t slab = (p->dims[dim] * COPY_SLAB_BYTES + bytes - 1) / bytes;
  if (dim > 0 && slab < OUTER_TILE) slab = OUTER_TILE;
  slab = slab < 1 ? 1 : slab > p->dims[dim] ? p->dims[dim] : slab;
  SlabRun r = {&big, dst, src, dst_base, src_base, slab, dim};
  int64_t ntasks = (p->dims[dim] + slab - 1) / slab;
  if (bytes < PARALLEL_COPY_MIN || ntasks < 2 || vm_parallel_workers(x, 2) < 2) {
    r.slab = p->dims[dim];
    slab_task(&r, 0, 0);
    return;
  }
  vm_parallel_for(x, ntasks, slab_task, &r);
}

void vm_copy_plan_walk(const VmCopyPlan *p, int64_t dst_base, int64_t src_base, VmRunFn fn, void *ctx) {
  if (p->empty) return;
  if (p->rank == 0) {
    fn(ctx, dst_base, src_base, 1, 1, 1);
    return;
  }
  int r = p->rank - 1;
  int64_t idx[TPUB_MAX_RANK] = {0};
  int64_t doff = dst_base, soff = src_base;
  for (;;) {
    fn(ctx, doff, soff, p->dims[r], p->dst_stride[r], p->src_stride[r]);
    int k = r - 1;
    for (; k >= 0; k--) {
      doff += p->dst_stride[k];
      soff += p->src_stride[k];
      if (++idx[k] < p->dims[k]) break;
      doff -= p->dst_stride[k] * p->dims[k];
      soff -= p->src_stride[k] * p->dims[k];
      idx[k] = 0;
    }
    if (k < 0) return;
  }
}

/* ------------------------------------------------------------------ */
/* Validation helpers */

const char *vm_shape_opname(const VmCheck *c) {
  switch (c->ins->opcode) {
  case VM_OP_BROADCAST_IN_DIM: return "broadcast_in_dim";
  case VM_OP_RESHAPE: return "reshape";
  case VM_OP_TRANSPOSE: return "transpose";
  case VM_OP_SLICE: return "slice";
  case VM_OP_DYNAMIC_SLICE: return "dynamic_slice";
  case VM_OP_DYNAMIC_UPDATE_SLICE: return "dynamic_update_slice";
  case VM_OP_CONCATENATE: return "concatenate";
  case VM_OP_PAD: return "pad";
  case VM_OP_IOTA: return "iota";
  case VM_OP_REVERSE: return "reverse";
  case VM_OP_GATHER: return "gather";
  case VM_OP_SCATTER: return "scatter";
  default: return "op";
  }
}

bool vm_shape_need_tensor(VmCheck *c, const VmType *t, const char *what) {
  if (t && vm_type_is_tensor(t)) return true;
  return vm_check_fail(c, "%s: %s is not a tensor", vm_shape_opname(c), what);
}

const char *vm_shape_list_str(char *buf, size_t len, const int64_t *v, int64_t n) {
  size_t at = 0;
  at += (size_t)snprintf(buf, len, "[");
  for (int64_t i = 0; i < n && at < len; i++) {
    if (at + 24 >= len) {
      snprintf(buf + at, len - at, "...");
      at = len;
      break;
    }
    at += (size_t)snprintf(buf + at, len - at, "%s%" PRId64, i ? ", " : "", v[i]);
  }
  if (at < len) snprintf(buf + at, len - at, "]");
  return buf;
}

bool vm_shape_dim_list(VmCheck *c, const char *what, const int64_t *v, int64_t n, int64_t bound, bool sorted) {
  char buf[160];
  if (bound > TPUB_MAX_RANK)
    return vm_check_fail(c, "%s: %s: rank %" PRId64 " is too large", vm_shape_opname(c), what, bound);
  if (n > bound)
    return vm_check_fail(c, "%s: %s %s has more entries than the %" PRId64 " dimensions", vm_shape_opname(c), what,
                         vm_shape_list_str(buf, sizeof buf, v, n), bound);
  bool seen[TPUB_MAX_RANK + 1] = {false};
  for (int64_t i = 0; i < n; i++) {
    if (v[i] < 0 || v[i] >= bound)
      return vm_check_fail(c, "%s: %s %s has %" PRId64 ", out of range [0, %" PRId64 ")", vm_shape_opname(c), what,
                           vm_shape_list_str(buf, sizeof buf, v, n), v[i], bound);
    if (seen[v[i]])
      return vm_check_fail(c, "%s: %s %s repeats %" PRId64, vm_shape_opname(c), what,
                           vm_shape_list_str(buf, sizeof buf, v, n), v[i]);
    seen[v[i]] = true;
    if (sorted && i > 0 && v[i] < v[i - 1])
      return vm_check_fail(c, "%s: %s %s is not sorted", vm_shape_opname(c), what,
                           vm_shape_list_str(buf, sizeof buf, v, n));
  }
  return true;
}

/* Operand i and the result are tensors of the same element type. */
static bool same_elem_io(VmCheck *c, uint32_t i) {
  const VmType *in = vm_check_in(c, i), *out = vm_check_out(c, 0);
  if (!vm_shape_need_tensor(c, in, "operand") || !vm_shape_need_tensor(c, out, "result")) return false;
  if (in->elem != out->elem)
    return vm_check_fail(c, "%s: result element type %s differs from the operand's %s", vm_shape_opname(c),
                         vm_elem_name(out->elem), vm_elem_name(in->elem));
  return true;
}

/* The result has dimension d of size want. */
static bool result_dim_is(VmCheck *c, const VmType *out, int d, int64_t want) {
  if (out->dims[d] == want) return true;
  return vm_check_fail(c, "%s: result dimension %d has size %" PRId64 ", expected %" PRId64, vm_shape_opname(c), d,
                       out->dims[d], want);
}

static bool result_rank_is(VmCheck *c, const VmType *out, int64_t want) {
  if (out->rank == want) return true;
  return vm_check_fail(c, "%s: result has rank %d, expected %" PRId64, vm_shape_opname(c), out->rank, want);
}

/* Field f is a list of exactly n entries. */
static const int64_t *list_of(VmCheck *c, int f, int64_t n, const char *what) {
  int64_t got;
  const int64_t *v = vm_field_list(c->ins, f, &got);
  if (got != n) {
    vm_check_fail(c, "%s: %s has %" PRId64 " entries, expected %" PRId64, vm_shape_opname(c), what, got, n);
    return NULL;
  }
  return v;
}

/* Operands first..first+n-1 are integer scalars (start indices). */
static bool scalar_int_operands(VmCheck *c, uint32_t first, int n) {
  for (int i = 0; i < n; i++) {
    const VmType *t = vm_check_in(c, first + (uint32_t)i);
    if (!t || !vm_type_is_scalar(t) || !vm_elem_is_int(t->elem))
      return vm_check_fail(c, "%s: start index operand %u is not an integer scalar", vm_shape_opname(c),
                           first + (uint32_t)i);
  }
  return true;
}

/* Runs a copy between row-major tensors: the box dims, src strides, dst
 * strides and bases. */
static void copy_box(VmExec *x, int esize, int rank, const int64_t *dims, void *dst, const int64_t *dst_stride,
                     int64_t dst_base, const void *src, const int64_t *src_stride, int64_t src_base) {
  VmCopyPlan plan;
  vm_copy_plan_init(&plan, esize, rank, dims, src_stride, dst_stride);
  vm_copy_plan_run_parallel(x, &plan, dst, dst_base, src, src_base);
}

/* ------------------------------------------------------------------ */
/* broadcast_in_dim */

bool check_broadcast_in_dim(VmCheck *c) {
  if (!same_elem_io(c, 0)) return false;
  const VmType *in = vm_check_in(c, 0), *out = vm_check_out(c, 0);
  const int64_t *dims = list_of(c, 0, in->rank, "broadcast_dimensions");
  if (!dims || !vm_shape_dim_list(c, "broadcast_dimensions", dims, in->rank, out->rank, false)) return false;
  for (int i = 0; i < in->rank; i++)
    if (in->dims[i] != 1 && in->dims[i] != out->dims[dims[i]])
      return vm_check_fail(c,
                           "broadcast_in_dim: operand dimension %d (size %" PRId64 ") cannot broadcast to result "
                           "dimension %" PRId64 " (size %" PRId64 ")",
                           i, in->dims[i], dims[i], out->dims[dims[i]]);
  return true;
}

int exec_broadcast_in_dim(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  const VmType *it = in[0].type, *ot = out[0].type;
  int64_t n;
  const int64_t *dims = vm_field_list(ins, 0, &n);
  int64_t in_stride[TPUB_MAX_RANK], src_stride[TPUB_MAX_RANK] = {0}, dst_stride[TPUB_MAX_RANK];
  vm_row_major_strides(it->rank, it->dims, in_stride);
  vm_row_major_strides(ot->rank, ot->dims, dst_stride);
  for (int i = 0; i < it->rank; i++)
    if (it->dims[i] != 1) src_stride[dims[i]] = in_stride[i];
  copy_box(x, vm_elem_bytes(ot->elem), ot->rank, ot->dims, out[0].data, dst_stride, 0, in[0].data, src_stride, 0);
  return VM_OK;
}

/* ------------------------------------------------------------------ */
/* reshape */

bool check_reshape(VmCheck *c) {
  if (!same_elem_io(c, 0)) return false;
  const VmType *in = vm_check_in(c, 0), *out = vm_check_out(c, 0);
  if (in->count != out->count)
    return vm_check_fail(c, "reshape: operand has %" PRId64 " elements but the result %" PRId64, in->count, out->count);
  return true;
}

int exec_reshape(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  (void)x, (void)ins;
  if (out[0].data != in[0].data && out[0].type->nbytes > 0)
    memcpy(out[0].data, in[0].data, (size_t)out[0].type->nbytes);
  return VM_OK;
}

/* ------------------------------------------------------------------ */
/* transpose */

bool check_transpose(VmCheck *c) {
  if (!same_elem_io(c, 0)) return false;
  const VmType *in = vm_check_in(c, 0), *out = vm_check_out(c, 0);
  const int64_t *perm = list_of(c, 0, in->rank, "permutation");
  if (!perm || !result_rank_is(c, out, in->rank)) return false;
  if (!vm_shape_dim_list(c, "permutation", perm, in->rank, in->rank, false)) return false;
  for (int i = 0; i < in->rank; i++)
    if (!result_dim_is(c, out, i, in->dims[perm[i]])) return false;
  return true;
}

int exec_transpose(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  const VmType *it = in[0].type, *ot = out[0].type;
  int64_t n;
  const int64_t *perm = vm_field_list(ins, 0, &n);
  int64_t in_stride[TPUB_MAX_RANK], src_stride[TPUB_MAX_RANK], dst_stride[TPUB_MAX_RANK];
  vm_row_major_strides(it->rank, it->dims, in_stride);
  vm_row_major_strides(ot->rank, ot->dims, dst_stride);
  for (int i = 0; i < ot->rank; i++) src_stride[i] = in_stride[perm[i]];
  copy_box(x, vm_elem_bytes(ot->elem), ot->rank, ot->dims, out[0].data, dst_stride, 0, in[0].data, src_stride, 0);
  return VM_OK;
}

/* ------------------------------------------------------------------ */
/* slice */

bool check_slice(VmCheck *c) {
  if (!same_elem_io(c, 0)) return false;
  const VmType *in = vm_check_in(c, 0), *out = vm_check_out(c, 0);
  const int64_t *start = list_of(c, 0, in->rank, "start_indices");
  const int64_t *limit = start ? list_of(c, 1, in->rank, "limit_indices") : NULL;
  const int64_t *strides = limit ? list_of(c, 2, in->rank, "strides") : NULL;
  if (!strides || !result_rank_is(c, out, in->rank)) return false;
  for (int d = 0; d < in->rank; d++) {
    if (start[d] < 0 || start[d] > limit[d] || limit[d] > in->dims[d])
      return vm_check_fail(
          c, "slice: dimension %d: need 0 <= start (%" PRId64 ") <= limit (%" PRId64 ") <= size (%" PRId64 ")", d,
          start[d], limit[d], in->dims[d]);
    if (strides[d] <= 0)
      return vm_check_fail(c, "slice: dimension %d: stride %" PRId64 " is not positive", d, strides[d]);
    int64_t span = limit[d] - start[d];
    if (!result_dim_is(c, out, d, span == 0 ? 0 : 1 + (span - 1) / strides[d])) return false;
  }
  return true;
}

int exec_slice(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  const VmType *it = in[0].type, *ot = out[0].type;
  int64_t n;
  const int64_t *start = vm_field_list(ins, 0, &n), *strides = vm_field_list(ins, 2, &n);
  int64_t in_stride[TPUB_MAX_RANK], src_stride[TPUB_MAX_RANK], dst_stride[TPUB_MAX_RANK], base = 0;
  vm_row_major_strides(it->rank, it->dims, in_stride);
  vm_row_major_strides(ot->rank, ot->dims, dst_stride);
  for (int d = 0; d < it->rank; d++) {
    src_stride[d] = in_stride[d] * strides[d];
    if (ot->dims[d] > 0) base += start[d] * in_stride[d];
  }
  if (ot->count == 0) return VM_OK;
  copy_box(x, vm_elem_bytes(ot->elem), ot->rank, ot->dims, out[0].data, dst_stride, 0, in[0].data, src_stride, base);
  return VM_OK;
}

/* ------------------------------------------------------------------ */
/* dynamic_slice, dynamic_update_slice */

/* Start index of dimension d: scalar operand t clamped to [0, hi]. */
static int64_t clamped_start(const VmTensor *t, int64_t hi) {
  int64_t v = vm_load_index(t->type->elem, t->data, 0);
  return v < 0 ? 0 : v > hi ? hi : v;
}

bool check_dynamic_slice(VmCheck *c) {
  if (!same_elem_io(c, 0)) return false;
  const VmType *in = vm_check_in(c, 0), *out = vm_check_out(c, 0);
  if (c->ins->n_in != 1 + (uint32_t)in->rank)
    return vm_check_fail(c, "dynamic_slice: %u start index operands for an operand of rank %d", c->ins->n_in - 1,
                         in->rank);
  if (!scalar_int_operands(c, 1, in->rank)) return false;
  const int64_t *sizes = list_of(c, 0, in->rank, "slice_sizes");
  if (!sizes || !result_rank_is(c, out, in->rank)) return false;
  for (int d = 0; d < in->rank; d++) {
    if (sizes[d] < 0 || sizes[d] > in->dims[d])
      return vm_check_fail(c,
                           "dynamic_slice: slice size %" PRId64 " is out of bounds for dimension %d of size %" PRId64,
                           sizes[d], d, in->dims[d]);
    if (!result_dim_is(c, out, d, sizes[d])) return false;
  }
  return true;
}

int exec_dynamic_slice(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  (void)ins;
  const VmType *it = in[0].type, *ot = out[0].type;
  if (ot->count == 0) return VM_OK;
  int64_t in_stride[TPUB_MAX_RANK], dst_stride[TPUB_MAX_RANK], base = 0;
  vm_row_major_strides(it->rank, it->dims, in_stride);
  vm_row_major_strides(ot->rank, ot->dims, dst_stride);
  for (int d = 0; d < it->rank; d++) base += clamped_start(&in[1 + d], it->dims[d] - ot->dims[d]) * in_stride[d];
  copy_box(x, vm_elem_bytes(ot->elem), ot->rank, ot->dims, out[0].data, dst_stride, 0, in[0].data, in_stride, base);
  return VM_OK;
}

bool check_dynamic_update_slice(VmCheck *c) {
  if (!same_elem_io(c, 0) || !same_elem_io(c, 1)) return false;
  const VmType *in = vm_check_in(c, 0), *upd = vm_check_in(c, 1), *out = vm_check_out(c, 0);
  if (!vm_type_same_shape(in, out))
    return vm_check_fail(c, "dynamic_update_slice: result shape differs from the operand's");
  if (upd->rank != in->rank)
    return vm_check_fail(c, "dynamic_update_slice: update has rank %d, the operand %d", upd->rank, in->rank);
  if (c->ins->n_in != 2 + (uint32_t)in->rank)
    return vm_check_fail(c, "dynamic_update_slice: %u start index operands for an operand of rank %d", c->ins->n_in - 2,
                         in->rank);
  for (int d = 0; d < in->rank; d++)
    if (upd->dims[d] > in->dims[d])
      return vm_check_fail(
          c, "dynamic_update_slice: update dimension %d (size %" PRId64 ") is larger than the operand's (%" PRId64 ")",
          d, upd->dims[d], in->dims[d]);
  return scalar_int_operands(c, 2, in->rank);
}

int exec_dynamic_update_slice(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  (void)ins;
  const VmType *ot = out[0].type, *ut = in[1].type;
  if (out[0].data != in[0].data && ot->nbytes > 0) memcpy(out[0].data, in[0].data, (size_t)ot->nbytes);
  if (ut->count == 0) return VM_OK;
  int64_t out_stride[TPUB_MAX_RANK], upd_stride[TPUB_MAX_RANK], base = 0;
  vm_row_major_strides(ot->rank, ot->dims, out_stride);
  vm_row_major_strides(ut->rank, ut->dims, upd_stride);
  for (int d = 0; d < ot->rank; d++) base += clamped_start(&in[2 + d], ot->dims[d] - ut->dims[d]) * out_stride[d];
  copy_box(x, vm_elem_bytes(ot->elem), ut->rank, ut->dims, out[0].data, out_stride, base, in[1].data, upd_stride, 0);
  return VM_OK;
}

/* ------------------------------------------------------------------ */
/* concatenate */

bool check_concatenate(VmCheck *c) {
  const VmType *out = vm_check_out(c, 0);
  if (c->ins->n_in < 1) return vm_check_fail(c, "concatenate: no operands");
  int64_t dim = vm_field_int(c->ins, 0), total = 0;
  if (!vm_shape_need_tensor(c, out, "result")) return false;
  if (dim < 0 || dim >= out->rank)
    return vm_check_fail(c, "concatenate: dimension %" PRId64 " is out of range for rank %d", dim, out->rank);
  for (uint32_t i = 0; i < c->ins->n_in; i++) {
    if (!same_elem_io(c, i)) return false;
    const VmType *in = vm_check_in(c, i);
    if (in->rank != out->rank)
      return vm_check_fail(c, "concatenate: operand %u has rank %d, the result %d", i, in->rank, out->rank);
    for (int d = 0; d < out->rank; d++)
      if (d != dim && in->dims[d] != out->dims[d])
        return vm_check_fail(c, "concatenate: operand %u dimension %d has size %" PRId64 ", the result %" PRId64, i, d,
                             in->dims[d], out->dims[d]);
    total += in->dims[dim];
    if (total > out->dims[dim]) break;
  }
  return result_dim_is(c, out, (int)dim, total);
}

int exec_concatenate(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  (void)x;
  const VmType *ot = out[0].type;
  int dim = (int)vm_field_int(ins, 0);
  int64_t outer = 1, inner = vm_elem_bytes(ot->elem);
  for (int d = 0; d < dim; d++) outer *= ot->dims[d];
  for (int d = dim + 1; d < ot->rank; d++) inner *= ot->dims[d];
  int64_t row = ot->dims[dim] * inner, at = 0;
  char *dst = out[0].data;
  for (uint32_t i = 0; i < ins->n_in; i++) {
    int64_t chunk = in[i].type->dims[dim] * inner;
    const char *src = in[i].data;
    if (chunk > 0)
      for (int64_t o = 0; o < outer; o++) memcpy(dst + o * row + at, src + o * chunk, (size_t)chunk);
    at += chunk;
  }
  return VM_OK;
}

/* ------------------------------------------------------------------ */
/* pad */

bool check_pad(VmCheck *c) {
  if (!same_elem_io(c, 0) || !same_elem_io(c, 1)) return false;
  const VmType *in = vm_check_in(c, 0), *pv = vm_check_in(c, 1), *out = vm_check_out(c, 0);
  if (!vm_type_is_scalar(pv)) return vm_check_fail(c, "pad: the padding value is not a scalar");
  const int64_t *low = list_of(c, 0, in->rank, "edge_padding_low");
  const int64_t *high = low ? list_of(c, 1, in->rank, "edge_padding_high") : NULL;
  const int64_t *interior = high ? list_of(c, 2, in->rank, "interior_padding") : NULL;
  if (!interior || !result_rank_is(c, out, in->rank)) return false;
  for (int d = 0; d < in->rank; d++) {
    if (interior[d] < 0)
      return vm_check_fail(c, "pad: interior padding %" PRId64 " of dimension %d is negative", interior[d], d);
    __int128 n = in->dims[d], size = (__int128)low[d] + high[d] + n + (n > 0 ? (n - 1) * (__int128)interior[d] : 0);
    if (size != out->dims[d])
      return vm_check_fail(c, "pad: result dimension %d has size %" PRId64 ", but the padding gives %s%" PRId64, d,
                           out->dims[d], size < INT64_MIN || size > INT64_MAX ? "about " : "",
                           size < INT64_MIN   ? INT64_MIN
                           : size > INT64_MAX ? INT64_MAX
                                              : (int64_t)size);
  }
  return true;
}

int exec_pad(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  const VmType *it = in[0].type, *ot = out[0].type;
  int es = vm_elem_bytes(ot->elem);
  vm_fill_elems(out[0].data, es, ot->count, in[1].data);
  if (it->count == 0 || ot->count == 0) return VM_OK;
  int64_t n;
  const int64_t *low = vm_field_list(ins, 0, &n), *interior = vm_field_list(ins, 2, &n);
  int64_t in_stride[TPUB_MAX_RANK], out_stride[TPUB_MAX_RANK], dst_stride[TPUB_MAX_RANK], kept[TPUB_MAX_RANK];
  int64_t src_base = 0, dst_base = 0;
  vm_row_major_strides(it->rank, it->dims, in_stride);
  vm_row_major_strides(ot->rank, ot->dims, out_stride);
  for (int d = 0; d < it->rank; d++) {
    /* Operand index i lands at low + i * step; keep those inside [0, size). */
    __int128 step = (__int128)interior[d] + 1, lo = low[d], size = ot->dims[d];
    __int128 first = lo >= 0 ? 0 : (-lo + step - 1) / step;
    __int128 end = size - lo <= 0 ? 0 : (size - lo + step - 1) / step;
    if (end > it->dims[d]) end = it->dims[d];
    if (first >= end) return VM_OK;
    kept[d] = (int64_t)(end - first);
    src_base += (int64_t)first * in_stride[d];
    dst_base += (int64_t)(lo + first * step) * out_stride[d];
    dst_stride[d] = (int64_t)step * out_stride[d];
  }
  copy_box(x, es, it->rank, kept, out[0].data, dst_stride, dst_base, in[0].data, in_stride, src_base);
  return VM_OK;
}

/* ------------------------------------------------------------------ */
/* iota */

bool check_iota(VmCheck *c) {
  const VmType *out = vm_check_out(c, 0);
  if (!vm_shape_need_tensor(c, out, "result")) return false;
  int64_t dim = vm_field_int(c->ins, 0);
  if (dim < 0 || dim >= out->rank)
    return vm_check_fail(c, "iota: dimension %" PRId64 " is out of range for rank %d", dim, out->rank);
  return true;
}

/* Stores the index value k as element i of data. */
static void store_index_value(int elem, void *data, int64_t i, int64_t k) {
  switch (elem) {
  case TPUB_F32: ((float *)data)[i] = (float)k; return;
  case TPUB_F64: ((double *)data)[i] = (double)k; return;
  case TPUB_I32: ((int32_t *)data)[i] = (int32_t)(uint32_t)k; return;
  case TPUB_I64: ((int64_t *)data)[i] = k; return;
  default:
    if (vm_elem_is_int(elem))
      vm_store_i64(elem, data, i, k);
    else
      vm_store_f64(elem, data, i, (double)k);
  }
}

int exec_iota(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  (void)x, (void)in;
  const VmType *ot = out[0].type;
  if (ot->count == 0) return VM_OK;
  int dim = (int)vm_field_int(ins, 0), es = vm_elem_bytes(ot->elem);
  int64_t outer = 1, inner = 1, n = ot->dims[dim];
  for (int d = 0; d < dim; d++) outer *= ot->dims[d];
  for (int d = dim + 1; d < ot->rank; d++) inner *= ot->dims[d];
  char *base = out[0].data;
  for (int64_t k = 0; k < n; k++) {
    char *run = base + k * inner * es;
    store_index_value(ot->elem, base, k * inner, k);
    vm_fill_elems(run + es, es, inner - 1, run);
  }
  int64_t block = n * inner * es;
  for (int64_t o = 1; o < outer; o++) memcpy(base + o * block, base, (size_t)block);
  return VM_OK;
}

/* ------------------------------------------------------------------ */
/* reverse */

bool check_reverse(VmCheck *c) {
  if (!same_elem_io(c, 0)) return false;
  const VmType *in = vm_check_in(c, 0), *out = vm_check_out(c, 0);
  if (!vm_type_same_shape(in, out)) return vm_check_fail(c, "reverse: result shape differs from the operand's");
  int64_t n;
  const int64_t *dims = vm_field_list(c->ins, 0, &n);
  return vm_shape_dim_list(c, "dimensions", dims, n, in->rank, false);
}

int exec_reverse(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  const VmType *ot = out[0].type;
  if (ot->count == 0) return VM_OK;
  int64_t n, stride[TPUB_MAX_RANK], src_stride[TPUB_MAX_RANK], base = 0;
  const int64_t *dims = vm_field_list(ins, 0, &n);
  vm_row_major_strides(ot->rank, ot->dims, stride);
  memcpy(src_stride, stride, sizeof(int64_t) * (size_t)ot->rank);
  for (int64_t i = 0; i < n; i++) {
    int d = (int)dims[i];
    src_stride[d] = -stride[d];
    base += (ot->dims[d] - 1) * stride[d];
  }
  copy_box(x, vm_elem_bytes(ot->elem), ot->rank, ot->dims, out[0].data, stride, 0, in[0].data, src_stride, base);
  return VM_OK;
}
