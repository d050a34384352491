/* eager_transformer: the transformer block of examples/transformer_block.mlir
 * written op by op against libtpurun's public C API (runtime/tpurun.h), run
 * in each eager mode (DESIGN.md §9), the results compared.
 *
 *   eager_transformer [debug|strict|fused|all] [--seq N] [--width D]
 *                     [--heads H] [--mlp F] [--vocab V] [--steps K]
 *                     [--program FILE] [--no-program-check] [--metrics]
 *
 * The block (defaults: the .mlir's 8 tokens, width 32, 2 heads, MLP 64,
 * vocabulary 64):
 *   x = embedding[tokens]                                    (gather)
 *   x = x + attention(layer_norm(x, ln1_scale))              (causal, H heads)
 *   y = x + w2 . gelu(w1 . layer_norm(x, ln2_scale))
 * Every op is one tpu_op call with its StableHLO name and its attributes in
 * MLIR attribute-dictionary syntax; result types are passed only where
 * StableHLO cannot infer them (reshape, broadcast_in_dim, iota).  One
 * difference from the .mlir: the causal mask writes -1e30, not -inf, into
 * the hidden scores, because Debug mode rejects any result holding an Inf;
 * exp(-1e30 - max) is 0 as exp(-inf) is, so the result is the same bits.
 *
 * Data: the weights are what `tpurun --input=random:K` gives parameter K of
 * the .mlir (K = 1..9: embedding, wq, wk, wv, wo, w1, w2, ln1_scale,
 * ln2_scale): splitmix64 seeds a xoshiro256** generator per parameter
 * (seed K, parameter index K) and each f32 is k * 2^-23 - 1 for the top 24
 * bits k of one draw, uniform in [-1, 1) (vm/io/literal.c).  The tokens are
 * those of `make run`, 3,14,15,9,26,5,35,8, and for longer sequences token
 * i is (that list's i mod 8 entry + 8 * (i / 8)) mod V.  At the default
 * sizes the result is therefore the 8x32 result `make run` prints.
 *
 * Each mode runs the block --steps times (each step from the tokens, its
 * result read to the host) and prints the result's checksum (64-bit
 * FNV-1a of its bytes), sum and first values, and the step times: the
 * first, the median of the others and (from tpu_metrics_json) the compiles
 * and direct lowerings after the first step.  Checks
 * (exit 1 with a message when one fails):
 *   - every step of a mode gives the same bytes;
 *   - Debug and Strict: bitwise equal (memcmp);
 *   - Fused against Strict: |f - s| <= 1e-4 * max(1, |s|) per element;
 *   - at the default sizes, the whole program (--program FILE, default
 *     examples/transformer_block.mlir) through tpu_program_compile and
 *     tpu_program_run on the same data: |e - p| <= 1e-5 * max(1, |p|) for
 *     Debug and Strict, 1e-4 for Fused.
 * Every tpu_* return code is checked (a failure prints tpu_error and exits
 * 1) and every tensor is released.  --metrics prints tpu_metrics_json last.
 *
 * Build: make build/eager_transformer (cc -I runtime ... build/libtpurun.a
 * -lgmp -lxxhash -lm -lpthread). */
/* clock_gettime (POSIX) under a plain -std=c11 too. */
#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EAGER_CLIENT_NAME "eager_transformer"
#include "eager_client.h"

static const char *progname = EAGER_CLIENT_NAME;

/* A dot_general contracting lhs dimension 1 with rhs dimension 0 (a matmul). */
static const char DOT_MM[] =
    "{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}";
/* Scores [head, query, key] = q . k over head_dim, batched over the head. */
static const char DOT_QK[] = "{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [1], "
                             "rhs_batching_dimensions = [1], lhs_contracting_dimensions = [2], "
                             "rhs_contracting_dimensions = [2]>}";
/* Context [head, query, head_dim] = probs . v over the keys. */
static const char DOT_PV[] = "{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], "
                             "rhs_batching_dimensions = [1], lhs_contracting_dimensions = [2], "
                             "rhs_contracting_dimensions = [0]>}";

/* ------------------------------------------------------------------ data */

static TpuTensor *upload(const char *type, const void *data, size_t bytes) {
  TpuTensor *t = NULL;
  check(tpu_tensor_from_host(client, type, data, bytes, &t), "tpu_tensor_from_host");
  return t;
}

/* An f32 tensor of type `type` (n elements) filled with parameter K's data. */
static TpuTensor *random_param(const char *type, size_t n, int k) {
  float *buf = xmalloc(n * sizeof *buf);
  fill_random_f32(buf, n, (uint64_t)k, k, 1.0f);
  TpuTensor *t = upload(type, buf, n * sizeof *buf);
  free(buf);
  return t;
}

/* An f32 tensor of n elements all equal to v. */
static TpuTensor *splat(const char *type, size_t n, float v) {
  float *buf = xmalloc(n * sizeof *buf);
  for (size_t i = 0; i < n; i++) buf[i] = v;
  TpuTensor *t = upload(type, buf, n * sizeof *buf);
  free(buf);
  return t;
}

/* ------------------------------------------------------------------ model */

typedef struct {
  int S, D, H, F, V, dh;
  /* Types and size-dependent attributes. */
  char t_SD[64], t_S1i[64], t_SHd[64], t_S[64], t_SSi[64], t_HSSb[64], t_HSS[64];
  char gather_attrs[320];
  /* Parameters (tokens first, in the .mlir's order). */
  TpuTensor *params[10];
  /* Constants of the .mlir, made once. */
  TpuTensor *zero, *ninf0, *width, *eps, *rsqrt_dh, *masked_out, *half, *one, *gelu_c, *sqrt_2_over_pi;
} Model;

enum { P_TOKENS, P_EMB, P_WQ, P_WK, P_WV, P_WO, P_W1, P_W2, P_LN1, P_LN2 };

static void model_init(Model *m, int S, int D, int H, int F, int V) {
  m->S = S, m->D = D, m->H = H, m->F = F, m->V = V, m->dh = D / H;
  snprintf(m->t_SD, sizeof m->t_SD, "%dx%dxf32", S, D);
  snprintf(m->t_S1i, sizeof m->t_S1i, "%dx1xi32", S);
  snprintf(m->t_SHd, sizeof m->t_SHd, "%dx%dx%dxf32", S, H, m->dh);
  snprintf(m->t_S, sizeof m->t_S, "%dxf32", S);
  snprintf(m->t_SSi, sizeof m->t_SSi, "%dx%dxi32", S, S);
  snprintf(m->t_HSSb, sizeof m->t_HSSb, "%dx%dx%dxi1", H, S, S);
  snprintf(m->t_HSS, sizeof m->t_HSS, "%dx%dx%dxf32", H, S, S);
  snprintf(m->gather_attrs, sizeof m->gather_attrs,
           "{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], "
           "start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, %d>}",
           D);

  static const int32_t base[8] = {3, 14, 15, 9, 26, 5, 35, 8};
  int32_t *tok = xmalloc((size_t)S * sizeof *tok);
  for (int i = 0; i < S; i++) tok[i] = (base[i % 8] + 8 * (i / 8)) % V;
  char ty[64];
  snprintf(ty, sizeof ty, "%dxi32", S);
  m->params[P_TOKENS] = upload(ty, tok, (size_t)S * sizeof *tok);
  free(tok);
  struct {
    int rows, cols;
  } shapes[10] = {{0, 0}, {V, D}, {D, D}, {D, D}, {D, D}, {D, D}, {D, F}, {F, D}, {D, 0}, {D, 0}};
  for (int k = 1; k <= 9; k++) {
    if (shapes[k].cols)
      snprintf(ty, sizeof ty, "%dx%dxf32", shapes[k].rows, shapes[k].cols);
    else
      snprintf(ty, sizeof ty, "%dxf32", shapes[k].rows);
    size_t n = (size_t)shapes[k].rows * (size_t)(shapes[k].cols ? shapes[k].cols : 1);
    m->params[k] = random_param(ty, n, k);
  }

  size_t hss = (size_t)H * S * S, sf = (size_t)S * F;
  char t_SF[64];
  snprintf(t_SF, sizeof t_SF, "%dx%dxf32", S, F);
  m->zero = splat("f32", 1, 0.0f);
  m->ninf0 = splat("f32", 1, -INFINITY);
  m->width = splat(m->t_S, (size_t)S, (float)D);
  m->eps = splat(m->t_S, (size_t)S, 9.99999974E-6f);
  m->rsqrt_dh = splat(m->t_HSS, hss, (float)(1.0 / sqrt((double)m->dh)));
  /* The .mlir masks with -inf; Debug mode rejects any result holding an
   * Inf, so the mask here is -1e30: exp(-1e30 - max) is 0 exactly as
   * exp(-inf) is, and the result is the same bits. */
  m->masked_out = splat(m->t_HSS, hss, -1e30f);
  m->half = splat(t_SF, sf, 0.5f);
  m->one = splat(t_SF, sf, 1.0f);
  m->gelu_c = splat(t_SF, sf, 4.471500e-02f);
  m->sqrt_2_over_pi = splat(t_SF, sf, 0.797884583f);
}

static void model_release(Model *m) {
  release_all(m->params, 10);
  REL(m->zero, m->ninf0, m->width, m->eps, m->rsqrt_dh, m->masked_out, m->half, m->one, m->gelu_c, m->sqrt_2_over_pi);
}

/* broadcast_in_dim of x to `type` along `dims` ("0", "1", "0, 1", ...). */
static TpuTensor *broadcast(TpuTensor *x, const char *dims, const char *type) {
  char attrs[96];
  snprintf(attrs, sizeof attrs, "{broadcast_dimensions = array<i64: %s>}", dims);
  return OP("stablehlo.broadcast_in_dim", attrs, type, x);
}

/* Layer norm over the last axis (no bias): (x - mean) * rsqrt(var + 1e-5) * scale. */
static TpuTensor *layer_norm(const Model *m, TpuTensor *x, TpuTensor *scale) {
  static const char sum1[] = "{dimensions = array<i64: 1>, body = \"stablehlo.add\"}";
  TpuTensor *sum = OP("stablehlo.reduce", sum1, NULL, x, m->zero);
  TpuTensor *mean = OP("stablehlo.divide", NULL, NULL, sum, m->width);
  TpuTensor *meanb = broadcast(mean, "0", m->t_SD);
  TpuTensor *centered = OP("stablehlo.subtract", NULL, NULL, x, meanb);
  REL(sum, mean, meanb);
  TpuTensor *sq = OP("stablehlo.multiply", NULL, NULL, centered, centered);
  TpuTensor *sqsum = OP("stablehlo.reduce", sum1, NULL, sq, m->zero);
  TpuTensor *var = OP("stablehlo.divide", NULL, NULL, sqsum, m->width);
  TpuTensor *vareps = OP("stablehlo.add", NULL, NULL, var, m->eps);
  TpuTensor *inv = OP("stablehlo.rsqrt", NULL, NULL, vareps);
  TpuTensor *invb = broadcast(inv, "0", m->t_SD);
  TpuTensor *normed = OP("stablehlo.multiply", NULL, NULL, centered, invb);
  REL(sq, sqsum, var, vareps, inv, invb, centered);
  TpuTensor *scaleb = broadcast(scale, "1", m->t_SD);
  TpuTensor *y = OP("stablehlo.multiply", NULL, NULL, normed, scaleb);
  REL(normed, scaleb);
  return y;
}

/* Causal self-attention: softmax(q k^T / sqrt(head_dim) + mask) v, then wo. */
static TpuTensor *attention(const Model *m, TpuTensor *h) {
  TpuTensor *q2 = OP("stablehlo.dot_general", DOT_MM, NULL, h, m->params[P_WQ]);
  TpuTensor *k2 = OP("stablehlo.dot_general", DOT_MM, NULL, h, m->params[P_WK]);
  TpuTensor *v2 = OP("stablehlo.dot_general", DOT_MM, NULL, h, m->params[P_WV]);
  TpuTensor *q = OP("stablehlo.reshape", NULL, m->t_SHd, q2);
  TpuTensor *k = OP("stablehlo.reshape", NULL, m->t_SHd, k2);
  TpuTensor *v = OP("stablehlo.reshape", NULL, m->t_SHd, v2);
  REL(q2, k2, v2);

  TpuTensor *qk = OP("stablehlo.dot_general", DOT_QK, NULL, q, k);
  TpuTensor *scores = OP("stablehlo.multiply", NULL, NULL, qk, m->rsqrt_dh);
  REL(q, k, qk);

  /* Causal mask: query i sees keys j <= i; the others get -1e30 (see
   * masked_out). */
  const char *t_SSi = m->t_SSi;
  TpuTensor *row = op_("stablehlo.iota", "{iota_dimension = 0 : i64}", t_SSi, NULL, 0);
  TpuTensor *col = op_("stablehlo.iota", "{iota_dimension = 1 : i64}", t_SSi, NULL, 0);
  TpuTensor *allowed = OP("stablehlo.compare",
                          "{comparison_direction = #stablehlo<comparison_direction GE>, "
                          "compare_type = #stablehlo<comparison_type SIGNED>}",
                          NULL, row, col);
  TpuTensor *allowedb = broadcast(allowed, "1, 2", m->t_HSSb);
  TpuTensor *masked = OP("stablehlo.select", NULL, NULL, allowedb, scores, m->masked_out);
  REL(row, col, allowed, allowedb, scores);

  /* Softmax over the keys. */
  TpuTensor *max = OP("stablehlo.reduce", "{dimensions = array<i64: 2>, body = \"stablehlo.maximum\"}", NULL, masked,
                      m->ninf0);
  TpuTensor *maxb = broadcast(max, "0, 1", m->t_HSS);
  TpuTensor *shifted = OP("stablehlo.subtract", NULL, NULL, masked, maxb);
  TpuTensor *e = OP("stablehlo.exponential", NULL, NULL, shifted);
  REL(masked, max, maxb, shifted);
  TpuTensor *sum =
      OP("stablehlo.reduce", "{dimensions = array<i64: 2>, body = \"stablehlo.add\"}", NULL, e, m->zero);
  TpuTensor *sumb = broadcast(sum, "0, 1", m->t_HSS);
  TpuTensor *probs = OP("stablehlo.divide", NULL, NULL, e, sumb);
  REL(e, sum, sumb);

  /* Weighted values, heads merged back, output projection. */
  TpuTensor *ctx = OP("stablehlo.dot_general", DOT_PV, NULL, probs, v);
  TpuTensor *ctxt = OP("stablehlo.transpose", "{permutation = array<i64: 1, 0, 2>}", NULL, ctx);
  TpuTensor *merged = OP("stablehlo.reshape", NULL, m->t_SD, ctxt);
  TpuTensor *out = OP("stablehlo.dot_general", DOT_MM, NULL, merged, m->params[P_WO]);
  REL(probs, v, ctx, ctxt, merged);
  return out;
}

/* Tanh-approximated GELU: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))). */
static TpuTensor *gelu(const Model *m, TpuTensor *x) {
  TpuTensor *x2 = OP("stablehlo.multiply", NULL, NULL, x, x);
  TpuTensor *x3 = OP("stablehlo.multiply", NULL, NULL, x2, x);
  TpuTensor *cx3 = OP("stablehlo.multiply", NULL, NULL, m->gelu_c, x3);
  TpuTensor *inner = OP("stablehlo.add", NULL, NULL, x, cx3);
  TpuTensor *arg = OP("stablehlo.multiply", NULL, NULL, m->sqrt_2_over_pi, inner);
  TpuTensor *t = OP("stablehlo.tanh", NULL, NULL, arg);
  TpuTensor *onept = OP("stablehlo.add", NULL, NULL, m->one, t);
  TpuTensor *halfx = OP("stablehlo.multiply", NULL, NULL, m->half, x);
  TpuTensor *y = OP("stablehlo.multiply", NULL, NULL, halfx, onept);
  REL(x2, x3, cx3, inner, arg, t, onept, halfx);
  return y;
}

/* The block: a new tensor of type SxDxf32, owned by the caller. */
static TpuTensor *block(const Model *m) {
  TpuTensor *ids = OP("stablehlo.reshape", NULL, m->t_S1i, m->params[P_TOKENS]);
  TpuTensor *x = OP("stablehlo.gather", m->gather_attrs, NULL, m->params[P_EMB], ids);
  tpu_tensor_release(ids);

  TpuTensor *h1 = layer_norm(m, x, m->params[P_LN1]);
  TpuTensor *attn = attention(m, h1);
  TpuTensor *x1 = OP("stablehlo.add", NULL, NULL, x, attn);
  REL(h1, attn, x);

  TpuTensor *h2 = layer_norm(m, x1, m->params[P_LN2]);
  TpuTensor *up = OP("stablehlo.dot_general", DOT_MM, NULL, h2, m->params[P_W1]);
  TpuTensor *act = gelu(m, up);
  TpuTensor *down = OP("stablehlo.dot_general", DOT_MM, NULL, act, m->params[P_W2]);
  TpuTensor *y = OP("stablehlo.add", NULL, NULL, x1, down);
  REL(h2, up, act, down, x1);
  return y;
}

/* ------------------------------------------------------------------ helpers */

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static uint64_t fnv1a(const void *p, size_t n) {
  const unsigned char *b = p;
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
  return h;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The largest |a - b| / max(1, |b|) over n floats (infinite on NaN). */
static double max_rel_diff(const float *a, const float *b, size_t n) {
  double worst = 0;
  for (size_t i = 0; i < n; i++) {
    double d = fabs((double)a[i] - (double)b[i]) / fmax(1.0, fabs((double)b[i]));
    if (d != d) return INFINITY;
    if (d > worst) worst = d;
  }
  return worst;
}

static const char *const mode_names[] = {"strict", "debug", "fused"};

/* Runs the block `steps` times in `mode`; the last result into out (S*D floats). */
static void run_mode(const Model *m, TpuEagerMode mode, int steps, float *out) {
  check(tpu_client_set_mode(client, mode), "tpu_client_set_mode");
  if (tpu_client_mode(client) != mode)
    die("asked for %s mode, the client runs %s mode (is TPU_EAGER_MODE set?)", mode_names[mode],
        mode_names[tpu_client_mode(client)]);
  size_t n = (size_t)m->S * m->D, bytes = n * sizeof(float);
  float *step_out = xmalloc(bytes);
  double *ms = xmalloc((size_t)steps * sizeof *ms);
  double compiles = -1, lowerings = -1, modeled = -1; /* the counters after step 1 */
  for (int s = 0; s < steps; s++) {
    double t0 = now_ms();
    TpuTensor *y = block(m);
    if (tpu_tensor_bytes(y) != bytes || strcmp(tpu_tensor_type(y), m->t_SD) != 0)
      die("%s: the block's result is %s, expected %s", mode_names[mode], tpu_tensor_type(y), m->t_SD);
    check(tpu_tensor_to_host(y, s == 0 ? out : step_out, bytes), "tpu_tensor_to_host");
    tpu_tensor_release(y);
    ms[s] = now_ms() - t0;
    if (s == 0) compiles = metric("compiles"), lowerings = metric("direct_lowerings"), modeled = metric("modeled_seconds");
    if (s > 0 && memcmp(out, step_out, bytes) != 0)
      die("%s: step %d's result differs from step 1's", mode_names[mode], s + 1);
  }
  check(tpu_sync(client), "tpu_sync");

  double sum = 0;
  for (size_t i = 0; i < n; i++) sum += out[i];
  printf("%s:%*s checksum %016llx  sum %.6f  first", mode_names[mode], (int)(6 - strlen(mode_names[mode])), "",
         (unsigned long long)fnv1a(out, bytes), sum);
  for (size_t i = 0; i < 4 && i < n; i++) printf(" %.6f", out[i]);
  printf("\n        %d step%s: first %.2f ms", steps, steps == 1 ? "" : "s", ms[0]);
  if (steps > 1) {
    qsort(ms + 1, (size_t)steps - 1, sizeof *ms, cmp_double);
    int k = steps - 1;
    double med = (k % 2) ? ms[1 + k / 2] : (ms[k / 2] + ms[k / 2 + 1]) / 2;
    printf(", then median %.2f ms", med);
    /* Compiles after the first step: 0 once every op (Strict, Debug) or
     * the step's graphs (Fused) come from the cache. */
    double c2 = metric("compiles"), l2 = metric("direct_lowerings");
    if (compiles >= 0 && c2 >= 0 && lowerings >= 0 && l2 >= 0)
      printf("; after step 1: %.0f compiles, %.0f direct lowerings", c2 - compiles, l2 - lowerings);
    /* What a step would take on the target: the cost model's time of
     * every op or graph the step ran (tpu_metrics_json). */
    double m2 = metric("modeled_seconds");
    if (modeled >= 0 && m2 >= 0) printf("; modeled %.2f us per step", (m2 - modeled) / (steps - 1) * 1e6);
  }
  printf("\n");
  fflush(stdout);
  free(ms);
  free(step_out);
}

/* The whole program on the same data; its SxD result into out. */
static int run_program(const Model *m, const char *path, float *out) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "%s: cannot open %s (give --program FILE, or --no-program-check)\n", progname, path);
    return 1;
  }
  char *text = NULL;
  size_t len = 0, cap = 0;
  for (;;) {
    if (len + 4096 > cap) {
      cap = cap ? 2 * cap : 65536;
      char *t = realloc(text, cap);
      if (!t) die("out of memory");
      text = t;
    }
    size_t got = fread(text + len, 1, cap - len, f);
    len += got;
    if (got == 0) break;
  }
  int err = ferror(f);
  fclose(f);
  if (err) {
    free(text);
    fprintf(stderr, "%s: cannot read %s\n", progname, path);
    return 1;
  }
  TpuProgram *p = NULL;
  check(tpu_program_compile(client, text, len, &p), "tpu_program_compile");
  free(text);
  int np = 0, nr = 0;
  check(tpu_program_signature(p, NULL, &np, &nr), "tpu_program_signature");
  if (np != 10 || nr != 1) die("%s: @main has %d parameters and %d results, expected 10 and 1", path, np, nr);
  TpuTensor *y = NULL;
  check(tpu_program_run(p, NULL, m->params, 10, &y, 1), "tpu_program_run");
  size_t bytes = (size_t)m->S * m->D * sizeof(float);
  if (tpu_tensor_bytes(y) != bytes) die("%s: the result is %s, expected %s", path, tpu_tensor_type(y), m->t_SD);
  check(tpu_tensor_to_host(y, out, bytes), "tpu_tensor_to_host");
  tpu_tensor_release(y);
  tpu_program_release(p);
  return 0;
}

/* ------------------------------------------------------------------ main */

static const char usage_text[] =
    "usage: eager_transformer [debug|strict|fused|all] [options]\n"
    "\n"
    "Runs the transformer block of examples/transformer_block.mlir op by op\n"
    "through libtpurun's tpu_op in each eager mode (default: all three) and\n"
    "checks that Debug and Strict agree bitwise, Fused within 1e-4 of Strict,\n"
    "and (default sizes) the whole program within 1e-5.\n"
    "\n"
    "options:\n"
    "  --seq N            tokens (default 8)\n"
    "  --width D          model width (default 32)\n"
    "  --heads H          attention heads, dividing D (default 2)\n"
    "  --mlp F            MLP width (default 64)\n"
    "  --vocab V          vocabulary (default 64)\n"
    "  --steps K          run the block K times per mode (default 1)\n"
    "  --program FILE     the whole program to cross-check against\n"
    "                     (default examples/transformer_block.mlir)\n"
    "  --no-program-check skip that cross-check\n"
    "  --metrics          print tpu_metrics_json at the end\n";

static int parse_count(const char *opt, const char *v, int max) {
  char *end;
  long x = v ? strtol(v, &end, 10) : 0;
  if (!v || *v == 0 || *end != 0 || x < 1 || x > max) {
    fprintf(stderr, "%s: %s needs a number in 1..%d\n%s", progname, opt, max, usage_text);
    exit(1);
  }
  return (int)x;
}

/* The command line. */
typedef struct Args {
  int S, D, H, F, V, steps, metrics, program_check;
  const char *program;
  int modes[3], n_modes;
} Args;

/* Reads the mode word: false when a mode was given already. */
static bool take_mode(Args *a, const char *w) {
  if (a->n_modes) return false;
  if (!strcmp(w, "all")) {
    a->modes[0] = TPU_EAGER_DEBUG, a->modes[1] = TPU_EAGER_STRICT, a->modes[2] = TPU_EAGER_FUSED, a->n_modes = 3;
  } else {
    a->modes[0] = !strcmp(w, "debug") ? TPU_EAGER_DEBUG : !strcmp(w, "strict") ? TPU_EAGER_STRICT : TPU_EAGER_FUSED;
    a->n_modes = 1;
  }
  return true;
}

/* Parses argv into a; -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, Args *a) {
  *a = (Args){.S = 8, .D = 32, .H = 2, .F = 64, .V = 64, .steps = 1, .program_check = 1,
              .program = "examples/transformer_block.mlir"};
  for (int i = 1; i < argc; i++) {
    const char *w = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    int *count = !strcmp(w, "--seq") ? &a->S : !strcmp(w, "--width") ? &a->D : !strcmp(w, "--heads") ? &a->H
               : !strcmp(w, "--mlp") ? &a->F : !strcmp(w, "--vocab") ? &a->V : !strcmp(w, "--steps") ? &a->steps : NULL;
    if (!strcmp(w, "debug") || !strcmp(w, "strict") || !strcmp(w, "fused") || !strcmp(w, "all")) {
      if (!take_mode(a, w)) return fprintf(stderr, "%s: one mode only\n%s", progname, usage_text), 1;
    } else if (count) {
      *count = parse_count(w, v, count == &a->V || count == &a->steps ? 1 << 20 : 1 << 16), i++;
    } else if (!strcmp(w, "--program")) {
      if (!v) return fprintf(stderr, "%s: --program needs a file\n%s", progname, usage_text), 1;
      a->program = v, i++;
    } else if (!strcmp(w, "--no-program-check")) {
      a->program_check = 0;
    } else if (!strcmp(w, "--metrics")) {
      a->metrics = 1;
    } else if (!strcmp(w, "--help") || !strcmp(w, "-h")) {
      return fputs(usage_text, stdout), 0;
    } else {
      return fprintf(stderr, "%s: unknown argument '%s'\n%s", progname, w, usage_text), 1;
    }
  }
  if (!a->n_modes) take_mode(a, "all");
  if (a->D % a->H != 0) return fprintf(stderr, "%s: --width %d is not a multiple of --heads %d\n", progname, a->D, a->H), 1;
  return -1;
}

/* Debug against Strict (bitwise), Fused against Strict (1e-4), and each
 * mode against the whole program when the sizes are the .mlir's; true when
 * all agree. */
static bool compare_results(const Args *a, Model *m, float *const res[3], size_t n) {
  bool ok = true, defaults = a->S == 8 && a->D == 32 && a->H == 2 && a->F == 64 && a->V == 64;
  const float *strict = res[TPU_EAGER_STRICT], *debug = res[TPU_EAGER_DEBUG], *fused = res[TPU_EAGER_FUSED];
  if (debug && strict) {
    bool same = memcmp(debug, strict, n * sizeof(float)) == 0;
    if (same) printf("debug == strict: bitwise equal\n");
    else printf("debug != strict: not bitwise equal (max relative difference %.3g)\n", max_rel_diff(debug, strict, n));
    ok = ok && same;
  }
  if (fused && strict) {
    double d = max_rel_diff(fused, strict, n);
    printf("fused ~ strict: max relative difference %.3g (tolerance 1e-4)%s\n", d, d <= 1e-4 ? "" : ": FAILED");
    ok = ok && d <= 1e-4;
  }
  if (!a->program_check || !defaults) {
    printf("program cross-check skipped (%s)\n", defaults ? "--no-program-check" : "the .mlir's sizes are fixed at the defaults");
    return ok;
  }
  float *prog = xmalloc(n * sizeof(float));
  if (run_program(m, a->program, prog) != 0) ok = false;
  else
    for (int i = 0; i < a->n_modes; i++) {
      double tol = a->modes[i] == TPU_EAGER_FUSED ? 1e-4 : 1e-5, d = max_rel_diff(res[a->modes[i]], prog, n);
      printf("%s ~ program (%s via tpu_program_run): max relative difference %.3g (tolerance %g)%s\n",
             mode_names[a->modes[i]], a->program, d, tol, d <= tol ? "" : ": FAILED");
      ok = ok && d <= tol;
    }
  free(prog);
  return ok;
}

int main(int argc, char **argv) {
  Args a;
  int rc = parse_args(argc, argv, &a);
  if (rc >= 0) return rc;
  TpuClientOptions opts;
  memset(&opts, 0, sizeof opts);
  opts.struct_size = sizeof opts;
  opts.mode = (TpuEagerMode)a.modes[0];
  check(tpu_client_create(&opts, &client), "tpu_client_create");
  printf("eager_transformer: seq %d, width %d, %d heads of %d, mlp %d, vocab %d, %d step%s per mode, libtpurun %s\n",
         a.S, a.D, a.H, a.D / a.H, a.F, a.V, a.steps, a.steps == 1 ? "" : "s", tpu_version());
  Model m;
  model_init(&m, a.S, a.D, a.H, a.F, a.V);
  size_t n = (size_t)a.S * a.D;
  float *res[3] = {NULL, NULL, NULL}; /* by TpuEagerMode */
  for (int i = 0; i < a.n_modes; i++) {
    res[a.modes[i]] = xmalloc(n * sizeof(float));
    run_mode(&m, (TpuEagerMode)a.modes[i], a.steps, res[a.modes[i]]);
  }
  bool ok = compare_results(&a, &m, res, n);
  model_release(&m);
  check(tpu_sync(client), "tpu_sync");
  if (a.metrics) {
    char *json = metrics_json();
    printf("metrics: %s\n", json);
    free(json);
  }
  tpu_client_destroy(client);
  for (int i = 0; i < 3; i++) free(res[i]);
  if (!ok) fprintf(stderr, "%s: the modes' results disagree (see above)\n", progname);
  return ok ? 0 : 1;
}
