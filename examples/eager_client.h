/* What the eager clients of libtpurun's public API share (the example
 * examples/eager_transformer.c and the benchmark bench/eager_bench.c):
 * error exits, one-result tpu_op calls, releasing lists of tensors, and
 * tpurun's --input=random:SEED data.  Header-only; a client defines
 * EAGER_CLIENT_NAME (its name in messages) before including it and owns
 * the one `client` it declares. */
#ifndef EXAMPLES_EAGER_CLIENT_H
#define EXAMPLES_EAGER_CLIENT_H

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tpurun.h"

static TpuClient *client;

/* Prints "NAME: message" (after what stdout holds so far) and exits 1. */
static void die(const char *fmt, ...) {
  va_list ap;
  fflush(stdout);
  va_start(ap, fmt);
  fprintf(stderr, "%s: ", EAGER_CLIENT_NAME);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(1);
}

/* A tpu_* call that failed: its name, the code and tpu_error's message. */
static void check(int rc, const char *what) {
  if (rc != TPU_OK) die("%s failed (code %d): %s", what, rc, tpu_error(client));
}

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) die("out of memory (%zu bytes)", n);
  return p;
}

/* One tpu_op with one result: rtype is its type, or NULL to let StableHLO's
 * type inference find it. */
static TpuTensor *op_(const char *name, const char *attrs, const char *rtype, TpuTensor *const *operands, int n) {
  TpuTensor *out = NULL;
  const char *rt[1] = {rtype};
  int rc = tpu_op(client, name, attrs, operands, n, rtype ? rt : NULL, &out, 1);
  if (rc != TPU_OK) die("tpu_op %s failed (code %d): %s", name, rc, tpu_error(client));
  if (!out) die("tpu_op %s returned no tensor", name);
  return out;
}

#define NARGS(...) ((int)(sizeof((TpuTensor *[]){__VA_ARGS__}) / sizeof(TpuTensor *)))
#define OP(name, attrs, rtype, ...) op_(name, attrs, rtype, (TpuTensor *const[]){__VA_ARGS__}, NARGS(__VA_ARGS__))

static void release_all(TpuTensor *const *ts, int n) {
  for (int i = 0; i < n; i++) tpu_tensor_release(ts[i]);
}
#define REL(...) release_all((TpuTensor *const[]){__VA_ARGS__}, NARGS(__VA_ARGS__))

/* The client's metrics as a malloc'ed string. */
static char *metrics_json(void) {
  int need = tpu_metrics_json(client, NULL, 0);
  if (need <= 0) die("tpu_metrics_json failed (%d): %s", need, tpu_error(client));
  char *buf = xmalloc((size_t)need);
  int again = tpu_metrics_json(client, buf, (size_t)need);
  if (again <= 0 || again > need) die("tpu_metrics_json failed (%d): %s", again, tpu_error(client));
  return buf;
}

/* The number after "key": in the client's metrics, or -1 if absent. */
static double metric(const char *key) {
  char *json = metrics_json(), pat[96];
  snprintf(pat, sizeof pat, "\"%s\"", key);
  double v = -1;
  const char *p = strstr(json, pat);
  if (p) {
    p += strlen(pat);
    while (*p == ' ' || *p == ':') p++;
    char *end;
    double x = strtod(p, &end);
    if (end != p) v = x;
  }
  free(json);
  return v;
}

/* tpurun --input=random:SEED for parameter INDEX (vm/io/literal.c, which a
 * client of the public header cannot link): splitmix64 seeds xoshiro256**,
 * each f32 is k * 2^-23 - 1 for the top 24 bits k of one draw. */
static uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static uint64_t rotl64(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t xoshiro_next(uint64_t s[4]) {
  uint64_t result = rotl64(s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl64(s[3], 45);
  return result;
}

/* n floats of tpurun --input=random:SEED for parameter INDEX, times scale. */
static void fill_random_f32(float *data, size_t n, uint64_t seed, int index, float scale) {
  uint64_t state = seed ^ ((uint64_t)(uint32_t)index * 0xD1B54A32D192ED03ull);
  uint64_t pseed = splitmix64(&state);
  uint64_t s[4];
  for (int k = 0; k < 4; k++) s[k] = splitmix64(&pseed);
  for (size_t i = 0; i < n; i++) data[i] = (float)(ldexp((double)(xoshiro_next(s) >> 40), -23) - 1.0) * scale;
}

#endif
