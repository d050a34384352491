/* First-use latency of common op signatures in Strict Eager: for each op
 * family of DESIGN.md §9's list and each of f32, bf16, f16 and i32, the
 * wall time of the first tpu_op of a new signature plus its tpu_sync, the
 * same for a second use, and the client's pipeline compiles (which must
 * stay 0: one-op executables are lowered directly).  Prints one line per
 * family and element type, then the medians.  Usage: eager_first [N]
 * (N: the side of the square operands, default 64). */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tpurun.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef struct Family {
  const char *op, *attrs;
  int nin;
  const char *result; /* printf pattern with %d %d %s for N, N, element; NULL: inferred */
  bool int_ok;        /* also on i32 */
} Family;

static const Family families[] = {
    {"stablehlo.add", NULL, 2, NULL, true},
    {"stablehlo.multiply", NULL, 2, NULL, true},
    {"stablehlo.exponential", NULL, 1, NULL, false},
    {"stablehlo.dot_general",
     "{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}", 2,
     "%dx%dx%s", true},
    {"stablehlo.reduce", "{dimensions = array<i64: 1>, body = \"stablehlo.add\"}", -1, "%dx%s", true},
    {"stablehlo.broadcast_in_dim", "{broadcast_dimensions = array<i64: 1, 2>}", 1, "2x%dx%dx%s", true},
    {"stablehlo.reshape", NULL, 1, "%dx%dx%s", true},
    {"stablehlo.transpose", "{permutation = array<i64: 1, 0>}", 1, "%dx%dx%s", true},
    {"stablehlo.convert", NULL, 1, "%dx%dxf32", true},
};

static const char *const elems[] = {"f32", "bf16", "f16", "i32"};

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The result type of f for side n and element e, into buf; NULL if inferred. */
static const char *result_type(const Family *f, int n, const char *e, char *buf, size_t len) {
  if (!f->result) return NULL;
  if (strcmp(f->op, "stablehlo.reduce") == 0) snprintf(buf, len, f->result, n, e);
  else if (strcmp(f->op, "stablehlo.reshape") == 0) snprintf(buf, len, f->result, n * n / 2, 2, e);
  else snprintf(buf, len, f->result, n, n, e);
  return buf;
}

/* Runs f once on a, b (and a scalar init for reduce); seconds. */
static double run_once(TpuClient *c, const Family *f, TpuTensor *a, TpuTensor *b, TpuTensor *init, const char *rt) {
  TpuTensor *in[2] = {a, f->nin == -1 ? init : b}, *r = NULL;
  const char *types[1] = {rt};
  double t0 = now();
  int rc = tpu_op(c, f->op, f->attrs, in, f->nin == -1 ? 2 : f->nin, rt ? types : NULL, &r, 1);
  if (rc == 0) rc = tpu_sync(c);
  double t = now() - t0;
  if (rc) {
    fprintf(stderr, "eager_first: %s: %s\n", f->op, tpu_error(c));
    exit(1);
  }
  tpu_tensor_release(r);
  return t;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 64;
  if (n < 2 || n > 2048 || n % 2) return fprintf(stderr, "usage: eager_first [N: even, 2..2048]\n"), 1;
  TpuClientOptions o = {.struct_size = sizeof o, .mode = TPU_EAGER_STRICT, .no_disk_cache = 1};
  TpuClient *c;
  if (tpu_client_create(&o, &c)) return fprintf(stderr, "%s\n", tpu_error(NULL)), 1;
  double firsts[64], seconds[64];
  int k = 0;
  char *zeros = calloc((size_t)n * (size_t)n, 8);
  for (size_t fi = 0; fi < sizeof families / sizeof families[0]; fi++)
    for (size_t ei = 0; ei < 4; ei++) {
      const Family *f = &families[fi];
      const char *e = elems[ei];
      if (ei == 3 && !f->int_ok) continue;
      size_t eb = ei == 0 || ei == 3 ? 4 : 2;
      char ta[64], ts[32], rt[64];
      snprintf(ta, sizeof ta, "%dx%dx%s", n, n, e);
      snprintf(ts, sizeof ts, "%s", e);
      TpuTensor *a, *b, *init;
      if (tpu_tensor_from_host(c, ta, zeros, (size_t)n * (size_t)n * eb, &a) ||
          tpu_tensor_from_host(c, ta, zeros, (size_t)n * (size_t)n * eb, &b) || tpu_tensor_from_host(c, ts, zeros, eb, &init))
        return fprintf(stderr, "%s\n", tpu_error(c)), 1;
      const char *r = result_type(f, n, e, rt, sizeof rt);
      firsts[k] = run_once(c, f, a, b, init, r);
      seconds[k] = run_once(c, f, a, b, init, r);
      printf("%-28s %-5s first %8.1f us  again %8.1f us\n", f->op, e, firsts[k] * 1e6, seconds[k] * 1e6);
      k++;
      tpu_tensor_release(a), tpu_tensor_release(b), tpu_tensor_release(init);
    }
  char m[4096];
  tpu_metrics_json(c, m, sizeof m);
  const char *comp = strstr(m, "\"compiles\": ");
  qsort(firsts, (size_t)k, sizeof(double), cmp);
  qsort(seconds, (size_t)k, sizeof(double), cmp);
  printf("first use of %d signatures (%dx%d operands): median %.1f us, max %.1f us; a second use: median %.1f us; "
         "pipeline compiles: %d\n",
         k, n, n, firsts[k / 2] * 1e6, firsts[k - 1] * 1e6, seconds[k / 2] * 1e6, comp ? atoi(comp + 12) : -1);
  free(zeros);
  tpu_client_destroy(c);
  return 0;
}
