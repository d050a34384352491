/* eager_bench: the driver of bench/eager.sh, a client of libtpurun's public
 * API only (runtime/tpurun.h; built as BUILD/eager_bench).
 *
 *   eager_bench mlp strict|debug|fused [--batch B] [--steps K]
 *       One SGD training step of the MLP of examples/mlp_train_step.mlir
 *       (128 -> 768 -> 768 -> 768 -> 128, relu, MSE loss, backward, update
 *       p - 0.01 dp) written op by op with tpu_op, K steps, each reading the
 *       loss to the host (a materialization point in Fused mode), then
 *       tpu_sync (so that a step's time holds its whole update).
 *   eager_bench scalar-add strict|debug|fused [--n N]
 *       A chain of N scalar f32 stablehlo.add (x = x + 1) through tpu_op,
 *       then one tpu_sync; the result is checked (N, exact up to 2^24).
 *   eager_bench streams [--n L] [--size N] [--threads T] [--repeat R]
 *       Two chains of L NxN f32 dot_generals (x = x . w) on two streams
 *       of chip 0 (tpu_stream_create) against one stream queuing both
 *       chains interleaved; medians of R rounds after a warm-up round, the
 *       results of both checked bitwise equal.
 *
 * Each prints human-readable lines and one line "result key=value ..." for
 * the script.  Data: tpurun's --input=random:K generator (vm/io/literal.c;
 * splitmix64 + xoshiro256**, f32 uniform in [-1, 1)); MLP and stream
 * weights are scaled by 1/sqrt(fan-in) (resp. sqrt(3/N)) so that repeated
 * steps stay finite.  "compiles after step 1" is the growth of the
 * metrics' "compiles" (graphs and programs through the pipeline) and
 * "direct_lowerings" (one-op executables) counters after the first step;
 * both are -1 when tpu_metrics_json does not name them.  Exit 1 on any
 * failure, with tpu_error's message. */
#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EAGER_CLIENT_NAME "eager_bench"
#include "../examples/eager_client.h"

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  if (n <= 0) return NAN;
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return (n % 2) ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ------------------------------------------------------------------ data */

/* tpurun --input=random:SEED's data for parameter INDEX, times scale. */
static TpuTensor *random_tensor(const char *type, size_t n, uint64_t seed, int index, float scale) {
  float *buf = xmalloc(n * sizeof *buf);
  fill_random_f32(buf, n, seed, index, scale);
  TpuTensor *t = NULL;
  check(tpu_tensor_from_host(client, type, buf, n * sizeof *buf, &t), "tpu_tensor_from_host");
  free(buf);
  return t;
}

static TpuTensor *scalar(float v) {
  TpuTensor *t = NULL;
  check(tpu_tensor_from_host(client, "f32", &v, sizeof v, &t), "tpu_tensor_from_host");
  return t;
}

/* ------------------------------------------------------------------ ops */


/* dot_general contracting lhs dimension L with rhs dimension R, at
 * precision HIGHEST like the .mlir. */
#define DOT(L, R)                                                                                                      \
  "{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [" #L "], rhs_contracting_dimensions = [" #R  \
  "]>, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]}"

static TpuTensor *dot(TpuTensor *a, TpuTensor *b, const char *attrs) {
  return OP("stablehlo.dot_general", attrs, NULL, a, b);
}

static TpuTensor *bcast(TpuTensor *x, const char *dims, const char *type) {
  char attrs[96];
  snprintf(attrs, sizeof attrs, dims[0] ? "{broadcast_dimensions = array<i64: %s>}" : "{broadcast_dimensions = array<i64>%s}",
           dims);
  return OP("stablehlo.broadcast_in_dim", attrs, type, x);
}

/* ------------------------------------------------------------------ metrics */

static TpuEagerMode parse_mode(const char *s) {
  if (s && !strcmp(s, "strict")) return TPU_EAGER_STRICT;
  if (s && !strcmp(s, "debug")) return TPU_EAGER_DEBUG;
  if (s && !strcmp(s, "fused")) return TPU_EAGER_FUSED;
  die("expected a mode (strict, debug or fused), got '%s'", s ? s : "");
  return TPU_EAGER_STRICT;
}

static const char *const mode_names[] = {"strict", "debug", "fused"};

static void create_client(TpuEagerMode mode, int threads) {
  TpuClientOptions o;
  memset(&o, 0, sizeof o);
  o.struct_size = sizeof o;
  o.mode = mode;
  o.threads = threads;
  check(tpu_client_create(&o, &client), "tpu_client_create");
  if (tpu_client_mode(client) != mode)
    die("asked for %s mode, the client runs %s mode (is TPU_EAGER_MODE set?)", mode_names[mode],
        mode_names[tpu_client_mode(client)]);
}

/* ------------------------------------------------------------------ mlp */

enum { NPARAM = 8 };

typedef struct {
  int B;
  char t_B768[48], t_B128[48];
  const char *ptype[NPARAM];
  TpuTensor *zero, *inv_n, *two_over_n, *lr;
} Mlp;

static const char *const mlp_ptypes[NPARAM] = {"128x768xf32", "768xf32", "768x768xf32", "768xf32",
                                               "768x768xf32", "768xf32", "768x128xf32", "128xf32"};

/* One step: p[] is replaced by the updated parameters (the old ones are
 * released); returns the loss (of the parameters before the step). */
static TpuTensor *mlp_step(const Mlp *m, TpuTensor *p[NPARAM], TpuTensor *x, TpuTensor *y) {
  const char *tB768 = m->t_B768, *tB128 = m->t_B128;
  static const char gt[] = "{comparison_direction = #stablehlo<comparison_direction GT>, "
                           "compare_type = #stablehlo<comparison_type FLOAT>}";
  static const char sum0[] = "{dimensions = array<i64: 0>, body = \"stablehlo.add\"}";
  /* forward */
  TpuTensor *zeros = bcast(m->zero, "", tB768);
  TpuTensor *z[4], *h[3];
  TpuTensor *in = x;
  for (int l = 0; l < 4; l++) {
    TpuTensor *mm = dot(in, p[2 * l], DOT(1, 0));
    TpuTensor *bb = bcast(p[2 * l + 1], "1", l == 3 ? tB128 : tB768);
    z[l] = OP("stablehlo.add", NULL, NULL, mm, bb);
    REL(mm, bb);
    if (l < 3) h[l] = OP("stablehlo.maximum", NULL, NULL, z[l], zeros);
    if (l < 3) in = h[l];
  }
  /* loss = mean((pred - y)^2) */
  TpuTensor *diff = OP("stablehlo.subtract", NULL, NULL, z[3], y);
  tpu_tensor_release(z[3]);
  TpuTensor *sq = OP("stablehlo.multiply", NULL, NULL, diff, diff);
  TpuTensor *sqsum =
      OP("stablehlo.reduce", "{dimensions = array<i64: 0, 1>, body = \"stablehlo.add\"}", NULL, sq, m->zero);
  TpuTensor *loss = OP("stablehlo.multiply", NULL, NULL, sqsum, m->inv_n);
  REL(sq, sqsum);
  TpuTensor *scale = bcast(m->two_over_n, "", tB128);
  TpuTensor *g = OP("stablehlo.multiply", NULL, NULL, diff, scale);
  REL(diff, scale);
  /* backward, layer 4 down to 1 */
  TpuTensor *dp[NPARAM];
  for (int l = 3; l >= 0; l--) {
    TpuTensor *act = l ? h[l - 1] : x;
    dp[2 * l] = dot(act, g, DOT(0, 0));
    dp[2 * l + 1] = OP("stablehlo.reduce", sum0, NULL, g, m->zero);
    if (l) {
      TpuTensor *gh = dot(g, p[2 * l], DOT(1, 1));
      TpuTensor *pos = OP("stablehlo.compare", gt, NULL, z[l - 1], zeros);
      TpuTensor *gl = OP("stablehlo.select", NULL, NULL, pos, gh, zeros);
      REL(gh, pos, z[l - 1], h[l - 1]);
      tpu_tensor_release(g);
      g = gl;
    }
  }
  REL(g, zeros);
  /* SGD update */
  for (int i = 0; i < NPARAM; i++) {
    TpuTensor *lrb = bcast(m->lr, "", m->ptype[i]);
    TpuTensor *stepv = OP("stablehlo.multiply", NULL, NULL, dp[i], lrb);
    TpuTensor *np = OP("stablehlo.subtract", NULL, NULL, p[i], stepv);
    REL(lrb, stepv, dp[i], p[i]);
    p[i] = np;
  }
  return loss;
}

static int cmd_mlp(int argc, char **argv) {
  if (argc < 1) die("mlp: expected a mode");
  TpuEagerMode mode = parse_mode(argv[0]);
  int B = 2048, steps = 5;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--batch") && i + 1 < argc)
      B = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--steps") && i + 1 < argc)
      steps = atoi(argv[++i]);
    else
      die("mlp: unknown argument '%s'", argv[i]);
  }
  if (B < 1 || steps < 1) die("mlp: --batch and --steps need positive numbers");
  create_client(mode, 0);
  Mlp m;
  m.B = B;
  snprintf(m.t_B768, sizeof m.t_B768, "%dx768xf32", B);
  snprintf(m.t_B128, sizeof m.t_B128, "%dx128xf32", B);
  for (int i = 0; i < NPARAM; i++) m.ptype[i] = mlp_ptypes[i];
  m.zero = scalar(0.0f);
  m.inv_n = scalar((float)(1.0 / ((double)B * 128)));
  m.two_over_n = scalar((float)(2.0 / ((double)B * 128)));
  m.lr = scalar(0.01f);
  static const int fan_in[NPARAM] = {128, 128, 768, 768, 768, 768, 768, 768};
  static const size_t count[NPARAM] = {128 * 768, 768, 768 * 768, 768, 768 * 768, 768, 768 * 128, 128};
  TpuTensor *p[NPARAM];
  for (int i = 0; i < NPARAM; i++)
    p[i] = random_tensor(m.ptype[i], count[i], (uint64_t)i + 1, i, (float)(1.0 / sqrt((double)fan_in[i])));
  TpuTensor *x = random_tensor(m.t_B128, (size_t)B * 128, 9, 8, 1.0f);
  TpuTensor *y = random_tensor(m.t_B128, (size_t)B * 128, 10, 9, 1.0f);

  double *ms = xmalloc((size_t)steps * sizeof *ms);
  double c1 = 0, l1 = 0, m1 = 0;
  float first_loss = 0, loss_v = 0;
  for (int s = 0; s < steps; s++) {
    double t0 = now_ms();
    TpuTensor *loss = mlp_step(&m, p, x, y);
    check(tpu_tensor_to_host(loss, &loss_v, sizeof loss_v), "tpu_tensor_to_host");
    tpu_tensor_release(loss);
    /* The loss is ready before the update: in Strict mode the update would
     * still run into the next step's time. */
    check(tpu_sync(client), "tpu_sync");
    ms[s] = now_ms() - t0;
    if (s == 0) first_loss = loss_v, c1 = metric("compiles"), l1 = metric("direct_lowerings"), m1 = metric("modeled_seconds");
    if (!isfinite(loss_v)) die("mlp: step %d: the loss is %g", s + 1, loss_v);
  }
  check(tpu_sync(client), "tpu_sync");
  double c2 = metric("compiles"), l2 = metric("direct_lowerings"), m2 = metric("modeled_seconds");
  double comp = (c1 < 0 || c2 < 0) ? -1 : c2 - c1, low = (l1 < 0 || l2 < 0) ? -1 : l2 - l1;
  double modeled_us = (m1 < 0 || m2 < 0 || steps < 2) ? -1 : (m2 - m1) / (steps - 1) * 1e6;
  double first = ms[0], med = steps > 1 ? median(ms + 1, steps - 1) : NAN;
  printf("mlp %s, batch %d, %d steps: first %.2f ms, then median %.2f ms; loss %.6f -> %.6f; "
         "after step 1: %.0f compiles, %.0f direct lowerings; modeled %.2f us per step\n",
         mode_names[mode], B, steps, first, med, first_loss, loss_v, comp, low, modeled_us);
  printf("result bench=mlp mode=%s batch=%d steps=%d first_ms=%.3f median_ms=%.3f compiles_after_first=%.0f "
         "lowerings_after_first=%.0f modeled_us=%.3f loss=%.6f\n",
         mode_names[mode], B, steps, first, med, comp, low, modeled_us, loss_v);
  free(ms);
  release_all(p, NPARAM);
  REL(x, y, m.zero, m.inv_n, m.two_over_n, m.lr);
  tpu_client_destroy(client);
  return 0;
}

/* ------------------------------------------------------------------ scalar adds */

static int cmd_scalar_add(int argc, char **argv) {
  if (argc < 1) die("scalar-add: expected a mode");
  TpuEagerMode mode = parse_mode(argv[0]);
  long n = 100000;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--n") && i + 1 < argc)
      n = atol(argv[++i]);
    else
      die("scalar-add: unknown argument '%s'", argv[i]);
  }
  if (n < 1 || n > (1L << 24)) die("scalar-add: --n must be in 1..2^24");
  create_client(mode, 0);
  TpuTensor *one = scalar(1.0f);
  /* Warm-up: the add's executable compiled (or loaded) once. */
  TpuTensor *w = OP("stablehlo.add", NULL, NULL, one, one);
  check(tpu_sync(client), "tpu_sync");
  tpu_tensor_release(w);
  TpuTensor *x = scalar(0.0f);
  double t0 = now_ms();
  for (long i = 0; i < n; i++) {
    TpuTensor *nx = OP("stablehlo.add", NULL, NULL, x, one);
    tpu_tensor_release(x);
    x = nx;
  }
  double t1 = now_ms();
  check(tpu_sync(client), "tpu_sync");
  double t2 = now_ms();
  float v = 0;
  check(tpu_tensor_to_host(x, &v, sizeof v), "tpu_tensor_to_host");
  if (v != (float)n) die("scalar-add: the chain of %ld adds gave %g", n, v);
  double us = (t2 - t0) * 1e3 / (double)n;
  printf("scalar-add %s: %ld adds + tpu_sync in %.2f ms (enqueue %.2f ms): %.3f us per op\n", mode_names[mode], n,
         t2 - t0, t1 - t0, us);
  printf("result bench=scalar-add mode=%s n=%ld total_ms=%.3f enqueue_ms=%.3f us_per_op=%.4f\n", mode_names[mode], n,
         t2 - t0, t1 - t0, us);
  REL(x, one);
  tpu_client_destroy(client);
  return 0;
}

/* ------------------------------------------------------------------ streams */

/* Queues one x . w on s. */
static TpuTensor *chain_op(TpuStream *s, TpuTensor *x, TpuTensor *w) {
  TpuTensor *out = NULL;
  TpuTensor *const in[2] = {x, w};
  int rc = tpu_stream_op(s, "stablehlo.dot_general", DOT(1, 0), in, 2, NULL, &out, 1);
  if (rc != TPU_OK) die("tpu_stream_op stablehlo.dot_general failed (code %d): %s", rc, tpu_error(client));
  return out;
}

/* One round: chains a and b, L ops each, on sa and sb (equal: one stream
 * queuing both, interleaved); results to host into ra and rb.  Returns ms. */
static double streams_round(TpuStream *sa, TpuStream *sb, TpuTensor *x0, TpuTensor *wa, TpuTensor *wb, int L,
                            float *ra, float *rb, size_t bytes) {
  double t0 = now_ms();
  TpuTensor *a = x0, *b = x0;
  tpu_tensor_retain(x0);
  tpu_tensor_retain(x0);
  for (int i = 0; i < L; i++) {
    TpuTensor *na = chain_op(sa, a, wa), *nb = chain_op(sb, b, wb);
    REL(a, b);
    a = na, b = nb;
  }
  check(tpu_stream_sync(sa), "tpu_stream_sync");
  if (sb != sa) check(tpu_stream_sync(sb), "tpu_stream_sync");
  double t = now_ms() - t0;
  check(tpu_tensor_to_host(a, ra, bytes), "tpu_tensor_to_host");
  check(tpu_tensor_to_host(b, rb, bytes), "tpu_tensor_to_host");
  REL(a, b);
  return t;
}

static int cmd_streams(int argc, char **argv) {
  int L = 16, N = 512, threads = 0, R = 3;
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--n") && i + 1 < argc)
      L = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--size") && i + 1 < argc)
      N = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
      threads = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
      R = atoi(argv[++i]);
    else
      die("streams: unknown argument '%s'", argv[i]);
  }
  if (L < 1 || N < 1 || threads < 0 || R < 1) die("streams: bad arguments");
  create_client(TPU_EAGER_STRICT, threads);
  char ty[48];
  snprintf(ty, sizeof ty, "%dx%dxf32", N, N);
  size_t n = (size_t)N * N, bytes = n * sizeof(float);
  float sc = (float)sqrt(3.0 / N);
  TpuTensor *x0 = random_tensor(ty, n, 1, 0, 1.0f);
  TpuTensor *wa = random_tensor(ty, n, 2, 1, sc), *wb = random_tensor(ty, n, 3, 2, sc);
  TpuStream *s1 = NULL, *s2 = NULL;
  check(tpu_stream_create(client, 0, &s1), "tpu_stream_create");
  check(tpu_stream_create(client, 0, &s2), "tpu_stream_create");
  float *r[4];
  for (int i = 0; i < 4; i++) r[i] = xmalloc(bytes);
  double *two = xmalloc((size_t)R * sizeof *two), *one = xmalloc((size_t)R * sizeof *one);
  streams_round(s1, s2, x0, wa, wb, 1, r[0], r[1], bytes); /* warm-up: the executable */
  for (int k = 0; k < R; k++) {
    if (k % 2 == 0) {
      two[k] = streams_round(s1, s2, x0, wa, wb, L, r[0], r[1], bytes);
      one[k] = streams_round(s1, s1, x0, wa, wb, L, r[2], r[3], bytes);
    } else {
      one[k] = streams_round(s1, s1, x0, wa, wb, L, r[2], r[3], bytes);
      two[k] = streams_round(s1, s2, x0, wa, wb, L, r[0], r[1], bytes);
    }
    if (memcmp(r[0], r[2], bytes) || memcmp(r[1], r[3], bytes))
      die("streams: two streams and one stream computed different results");
  }
  for (size_t i = 0; i < n; i++)
    if (!isfinite(r[0][i]) || !isfinite(r[1][i])) die("streams: the chain overflowed");
  double m2 = median(two, R), m1 = median(one, R);
  char th[32];
  snprintf(th, sizeof th, threads ? "%d" : "default", threads);
  printf("streams: 2 chains of %d %dx%d f32 dot_generals, threads per kernel %s, median of %d: "
         "two streams %.2f ms, one stream %.2f ms, one/two %.2fx\n",
         L, N, N, th, R, m2, m1, m1 / m2);
  printf("result bench=streams n=%d size=%d threads=%d repeat=%d two_ms=%.3f one_ms=%.3f\n", L, N, threads, R, m2, m1);
  tpu_stream_destroy(s1);
  tpu_stream_destroy(s2);
  REL(x0, wa, wb);
  for (int i = 0; i < 4; i++) free(r[i]);
  free(two);
  free(one);
  tpu_client_destroy(client);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) die("usage: eager_bench mlp|scalar-add|streams ... (see bench/eager_bench.c)");
  if (!strcmp(argv[1], "mlp")) return cmd_mlp(argc - 2, argv + 2);
  if (!strcmp(argv[1], "scalar-add")) return cmd_scalar_add(argc - 2, argv + 2);
  if (!strcmp(argv[1], "streams")) return cmd_streams(argc - 2, argv + 2);
  die("unknown benchmark '%s' (mlp, scalar-add, streams)", argv[1]);
  return 1;
}
