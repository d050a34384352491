/* The packed GEMM driver of the bf16 and 8-bit kinds (see gemm_packed.h):
 * cache blocking, packing, edge tiles. */
#include "vm/kernels/gemm_packed.h"

#include <string.h>

/* An A block (PK_MC rows x PK_KQ words) stays in L2, a B panel (PK_KQ
 * words x nr) in L1.  PK_MC is a multiple of every mr (8, 6, 4). */
#define PK_MC 96
#define PK_KQ 128
#define PK_NC 2048

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* The word of values k .. k+group-1 (those < kc) of a line of src whose
 * values are sk elements apart. */
static inline uint32_t pack_word(const GemmPacked *g, const uint32_t *src, int64_t sk, int64_t k, int64_t kc,
                                 uint32_t x) {
  uint32_t mask = (1u << g->bits) - 1, w = 0;
  int n = (int)min64(g->group, kc - k);
  for (int t = 0; t < n; t++) w |= (((src[(k + t) * sk] >> g->shift) & mask) ^ x) << (t * g->bits);
  return w;
}

/* The word of values (2 x 16 bits or 4 x 8 bits) at s, s + sk, ... */
static inline uint32_t word2(const uint32_t *s, int64_t sk, int shift, uint32_t x) {
  return (((s[0] >> shift) & 0xffff) ^ x) | ((((s[sk] >> shift) & 0xffff) ^ x) << 16);
}

static inline uint32_t word4(const uint32_t *s, int64_t sk, uint32_t x) {
  return ((s[0] & 0xff) ^ x) | (((s[sk] & 0xff) ^ x) << 8) | (((s[2 * sk] & 0xff) ^ x) << 16) |
         (((s[3 * sk] & 0xff) ^ x) << 24);
}

typedef uint32_t pk_v8 __attribute__((vector_size(32)));

/* Words [0, full) of 8 adjacent lines (sl == 1) at once into o. */
static void pack_words_x8(const GemmPacked *g, int width, int64_t full, const uint32_t *src, int64_t sk, uint32_t x,
                          uint32_t *o) {
  int64_t step = g->group * sk;
  for (int64_t q = 0; q < full; q++) {
    const uint32_t *s = src + q * step;
    pk_v8 v[4], w;
    for (int t = 0; t < g->group; t++) memcpy(&v[t], s + t * sk, sizeof v[t]);
    if (g->group == 2)
      w = (((v[0] >> g->shift) & 0xffff) ^ x) | ((((v[1] >> g->shift) & 0xffff) ^ x) << 16);
    else
      w = ((v[0] & 0xff) ^ x) | (((v[1] & 0xff) ^ x) << 8) | (((v[2] & 0xff) ^ x) << 16) | (((v[3] & 0xff) ^ x) << 24);
    memcpy(o + q * width, &w, sizeof w);
  }
}

/* Words [0, full) of n lines (stride sl) into o (word stride width). */
static void pack_full_words(const GemmPacked *g, int width, int n, int64_t full, const uint32_t *src, int64_t sl,
                            int64_t sk, uint32_t x, uint32_t *o) {
  int64_t step = g->group * sk;
  int l = 0;
  if (sl == 1)
    for (; l + 8 <= n; l += 8) pack_words_x8(g, width, full, src + l, sk, x, o + l);
  for (; l < n; l++) {
    const uint32_t *s = src + l * sl;
    if (g->group == 2)
      for (int64_t q = 0; q < full; q++) o[q * width + l] = word2(s + q * step, sk, g->shift, x);
    else
      for (int64_t q = 0; q < full; q++) o[q * width + l] = word4(s + q * step, sk, x);
  }
}

/* Lines [0, lines) of src (line stride sl, value stride sk, kc values) ->
 * panels of width lines each, kq words per line, word-major; lines past
 * `lines` up to a multiple of width are zero. */
static void pack_panels(const GemmPacked *g, int width, int64_t lines, int64_t kc, const uint32_t *src, int64_t sl,
                        int64_t sk, uint32_t x, uint32_t *out) {
  int64_t kq = (kc + g->group - 1) / g->group, full = kc / g->group;
  for (int64_t l0 = 0; l0 < lines; l0 += width) {
    int n = (int)min64(width, lines - l0);
    pack_full_words(g, width, n, full, src + l0 * sl, sl, sk, x, out);
    for (int l = 0; l < n && full < kq; l++) out[full * width + l] = pack_word(g, src + (l0 + l) * sl, sk, full * g->group, kc, x);
    for (int64_t q = 0; q < kq; q++)
      for (int l = n; l < width; l++) out[q * width + l] = 0;
    out += kq * width;
  }
}

void gemm_packed_bytes(const GemmPacked *g, int64_t M, int64_t N, int64_t K, size_t *abytes, size_t *bbytes) {
  int64_t kq = min64((K + g->group - 1) / g->group, PK_KQ);
  int64_t mc = min64((M + g->mr - 1) / g->mr * g->mr, PK_MC);
  int64_t nc = min64((N + g->nr - 1) / g->nr * g->nr, PK_NC);
  *abytes = (size_t)(mc * kq) * 4;
  *bbytes = (size_t)(nc * kq) * 4;
}

/* One micro-tile; an edge tile goes through a full-size local tile. */
static void micro_tile(const GemmPacked *g, int64_t kq, const uint32_t *ap, const uint32_t *bp, uint32_t *c,
                       int64_t ldc, int mr, int nr, bool accumulate) {
  if (mr == g->mr && nr == g->nr) {
    g->micro(kq, ap, bp, c, ldc, accumulate);
    return;
  }
  uint32_t tile[8 * 32] = {0};
  if (accumulate)
    for (int i = 0; i < mr; i++) memcpy(tile + i * g->nr, c + i * ldc, (size_t)nr * 4);
  g->micro(kq, ap, bp, tile, g->nr, accumulate);
  for (int i = 0; i < mr; i++) memcpy(c + i * ldc, tile + i * g->nr, (size_t)nr * 4);
}

void gemm_packed_run(const GemmPacked *g, int64_t M, int64_t N, int64_t K, const uint32_t *A, int64_t rsa,
                     int64_t csa, const uint32_t *B, int64_t rsb, int64_t csb, uint32_t *C, int64_t ldc,
                     uint32_t *apack, uint32_t *bpack) {
  int64_t kcmax = PK_KQ * g->group;
  for (int64_t jc = 0; jc < N; jc += PK_NC) {
    int64_t nc = min64(N - jc, PK_NC);
    for (int64_t pc = 0; pc < K; pc += kcmax) {
      int64_t kc = min64(K - pc, kcmax), kq = (kc + g->group - 1) / g->group;
      pack_panels(g, g->nr, nc, kc, B + pc * rsb + jc * csb, csb, rsb, g->bxor, bpack);
      for (int64_t ic = 0; ic < M; ic += PK_MC) {
        int64_t mc = min64(M - ic, PK_MC);
        pack_panels(g, g->mr, mc, kc, A + ic * rsa + pc * csa, rsa, csa, g->axor, apack);
        for (int64_t jr = 0; jr < nc; jr += g->nr)
          for (int64_t ir = 0; ir < mc; ir += g->mr)
            micro_tile(g, kq, apack + ir * kq, bpack + jr * kq, C + (ic + ir) * ldc + jc + jr, ldc,
                       (int)min64(g->mr, mc - ir), (int)min64(g->nr, nc - jr), pc > 0);
      }
    }
  }
}
