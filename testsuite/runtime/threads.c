/* libtpurun from many host threads at once (testsuite/tools/runtime_threads.sh;
 * `make tsan` runs it under ThreadSanitizer).  One client of 2 chips per
 * eager mode, in turn; 8 threads share it, each issuing a few hundred
 * ops: element-wise ops, dot_general with its attributes, reduce with the
 * `body` shorthand, a shape mismatch that must be rejected (code 2), on
 * the default streams and on two streams of its own with an event between
 * them, copies to the other chip, and a whole program compiled and run on
 * both chips.  A last round starts in Strict mode and the main thread
 * switches the mode every 2 ms meanwhile.  Every result read back is
 * checked against the same computation in C: exact for integers, within a
 * tolerance for floats.
 *
 *   runtime_threads [ITERATIONS]    exit 0 when all agree, 1 otherwise */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/tpurun.h"

enum { NTHREADS = 8 };

static TpuClient *client;
static int iterations = 35;
static atomic_int failed;
static atomic_int running; /* threads not yet done */
static bool mixed;         /* the main thread switches modes meanwhile */
static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;
static const char *const mode_names[3] = {"strict", "debug", "fused"};

static void failf(int id, const char *what, int rc) {
  pthread_mutex_lock(&print_lock);
  fprintf(stderr, "runtime_threads: mode %s, thread %d: %s (code %d): %s\n", mode_names[tpu_client_mode(client)], id,
          what, rc, rc ? tpu_error(client) : "");
  pthread_mutex_unlock(&print_lock);
  atomic_store(&failed, 1);
}

/* Stops the thread's work on the first failure. */
#define TRY(call, what)                                                                                                \
  do {                                                                                                                 \
    int rc_ = (call);                                                                                                  \
    if (rc_ != 0) {                                                                                                    \
      failf(id, what, rc_);                                                                                            \
      goto out;                                                                                                        \
    }                                                                                                                  \
  } while (0)

#define CHECK(cond, what)                                                                                              \
  do {                                                                                                                 \
    if (!(cond)) {                                                                                                     \
      failf(id, what, 0);                                                                                              \
      goto out;                                                                                                        \
    }                                                                                                                  \
  } while (0)

static const char *const program_text =
    "func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {\n"
    "  %0 = stablehlo.add %a, %b : tensor<4xf32>\n"
    "  %1 = stablehlo.multiply %0, %a : tensor<4xf32>\n"
    "  return %1 : tensor<4xf32>\n"
    "}\n";

static bool close_to(float got, float want) { return fabsf(got - want) <= 1e-4f * (1.0f + fabsf(want)); }

static void *thread_main(void *arg) {
  int id = (int)(intptr_t)arg;
  int chip = id % 2, other = 1 - chip;
  TpuStream *s1 = NULL, *s2 = NULL;
  int rc0 = tpu_stream_create(client, chip, &s1);
  if (rc0 == 0) rc0 = tpu_stream_create(client, chip, &s2);
  if (rc0 != 0) failf(id, "tpu_stream_create", rc0);
  for (int it = 0; it < iterations && !atomic_load(&failed); it++) {
    TpuTensor *a = NULL, *b = NULL, *zero = NULL, *c = NULL, *d = NULL, *f = NULL, *r = NULL, *x = NULL,
              *y = NULL, *z = NULL, *g = NULL, *h = NULL, *bad = (TpuTensor *)&id;
    TpuEvent *e = NULL;
    TpuProgram *p = NULL;
    TpuTensor *pa = NULL, *pb = NULL, *pr = NULL;
    int32_t av[4], bv[4], cv[4], dv[4], fv[4], hv[4], rv = 0, zero_v = 0, sum = 0;
    float xv[6], yv[6], zv[4];
    for (int k = 0; k < 4; k++) av[k] = id * 7 + it + k - 20, bv[k] = (id + 1) * (k + 1) - it;
    for (int k = 0; k < 6; k++) xv[k] = 0.5f * (float)(id + k) - (float)it / 8, yv[k] = (float)(k % 3) - 0.25f * (float)id;
    TRY(tpu_tensor_from_host_on(client, chip, "4xi32", av, sizeof av, &a), "from_host a");
    TRY(tpu_tensor_from_host_on(client, chip, "4xi32", bv, sizeof bv, &b), "from_host b");
    TRY(tpu_tensor_from_host_on(client, chip, "i32", &zero_v, sizeof zero_v, &zero), "from_host zero");
    TRY(tpu_tensor_from_host_on(client, chip, "2x3xf32", xv, sizeof xv, &x), "from_host x");
    TRY(tpu_tensor_from_host_on(client, chip, "3x2xf32", yv, sizeof yv, &y), "from_host y");
    /* c = a + b on the chip's default stream; d = c * a on s1; an event
     * on s1 that s2 waits for; f = d - b and r = sum(f) on s2. */
    TRY(tpu_op(client, "stablehlo.add", NULL, (TpuTensor *[]){a, b}, 2, NULL, &c, 1), "add");
    TRY(tpu_stream_op(s1, "stablehlo.multiply", NULL, (TpuTensor *[]){c, a}, 2, NULL, &d, 1), "multiply on s1");
    TRY(tpu_event_record(s1, &e), "tpu_event_record");
    TRY(tpu_stream_wait_event(s2, e), "tpu_stream_wait_event");
    TRY(tpu_stream_op(s2, "stablehlo.subtract", NULL, (TpuTensor *[]){d, b}, 2, NULL, &f, 1), "subtract on s2");
    TRY(tpu_stream_op(s2, "stablehlo.reduce", "{dimensions = array<i64: 0>, body = \"stablehlo.add\"}",
                      (TpuTensor *[]){f, zero}, 2, (const char *[]){"i32"}, &r, 1),
        "reduce on s2");
    TRY(tpu_op(client, "stablehlo.dot_general",
               "{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], "
               "rhs_contracting_dimensions = [0]>}",
               (TpuTensor *[]){x, y}, 2, (const char *[]){"2x2xf32"}, &z, 1),
        "dot_general");
    /* A shape mismatch is rejected at once, in every mode. */
    int rc = tpu_op(client, "stablehlo.add", NULL, (TpuTensor *[]){a, x}, 2, NULL, &bad, 1);
    CHECK(rc == 2 && bad == NULL && *tpu_error(client), "a shape mismatch was not rejected with code 2");
    /* f copied to the other chip and negated there. */
    TRY(tpu_tensor_to_chip(f, other, &g), "tpu_tensor_to_chip");
    CHECK(tpu_tensor_chip(g) == other, "the copy is on the wrong chip");
    TRY(tpu_op(client, "stablehlo.negate", NULL, &g, 1, NULL, &h, 1), "negate on the other chip");
    TRY(tpu_tensor_to_host(c, cv, sizeof cv), "read c");
    TRY(tpu_tensor_to_host(d, dv, sizeof dv), "read d");
    TRY(tpu_tensor_to_host(f, fv, sizeof fv), "read f");
    TRY(tpu_tensor_to_host(r, &rv, sizeof rv), "read r");
    TRY(tpu_tensor_to_host(z, zv, sizeof zv), "read z");
    TRY(tpu_tensor_to_host(h, hv, sizeof hv), "read h");
    TRY(tpu_event_sync(e), "tpu_event_sync");
    CHECK(tpu_event_query(e) == 1, "the event is not complete after tpu_event_sync");
    for (int k = 0; k < 4; k++) {
      int32_t want_c = av[k] + bv[k], want_d = want_c * av[k], want_f = want_d - bv[k];
      CHECK(cv[k] == want_c, "add: wrong result");
      CHECK(dv[k] == want_d, "multiply: wrong result");
      CHECK(fv[k] == want_f, "subtract: wrong result");
      CHECK(hv[k] == -want_f, "negate of the copy: wrong result");
      sum += want_f;
    }
    CHECK(rv == sum, "reduce: wrong result");
    for (int i = 0; i < 2; i++)
      for (int j = 0; j < 2; j++) {
        float want = 0;
        for (int k = 0; k < 3; k++) want += xv[i * 3 + k] * yv[k * 2 + j];
        CHECK(close_to(zv[i * 2 + j], want), "dot_general: wrong result");
      }
    /* Every seventh step: the whole program, compiled (the memory tier
     * after the first thread) and run on both chips. */
    if (it % 7 == id % 7) {
      float pav[4], pbv[8], prv[8];
      for (int k = 0; k < 4; k++) pav[k] = (float)(k + id) * 0.5f;
      for (int k = 0; k < 8; k++) pbv[k] = (float)(k - it) * 0.25f;
      TRY(tpu_program_compile(client, program_text, strlen(program_text), &p), "tpu_program_compile");
      int np = 0, nr = 0;
      TRY(tpu_program_signature(p, NULL, &np, &nr), "tpu_program_signature");
      CHECK(np == 2 && nr == 1, "tpu_program_signature: wrong counts");
      TRY(tpu_tensor_from_host(client, "4xf32", pav, sizeof pav, &pa), "from_host program a");
      TRY(tpu_tensor_from_host(client, "2x4xf32", pbv, sizeof pbv, &pb), "from_host program b");
      TRY(tpu_program_run(p, NULL, (TpuTensor *[]){pa, pb}, 2, &pr, 1), "tpu_program_run");
      CHECK(strcmp(tpu_tensor_type(pr), "2x4xf32") == 0, "tpu_program_run: the result is not stacked");
      TRY(tpu_tensor_to_host(pr, prv, sizeof prv), "read the program's result");
      for (int k = 0; k < 8; k++)
        CHECK(close_to(prv[k], (pav[k % 4] + pbv[k]) * pav[k % 4]), "tpu_program_run: wrong result");
    }
  out:
    if (e) tpu_event_release(e);
    if (p) tpu_program_release(p);
    TpuTensor *all[] = {a, b, zero, c, d, f, r, x, y, z, g, h, pa, pb, pr};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
      if (all[i]) tpu_tensor_release(all[i]);
  }
  if (s1 && !atomic_load(&failed) && (rc0 = tpu_stream_sync(s1)) != 0) failf(id, "tpu_stream_sync", rc0);
  if (s1) tpu_stream_destroy(s1);
  if (s2) tpu_stream_destroy(s2);
  atomic_fetch_sub(&running, 1);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc > 1) iterations = atoi(argv[1]);
  for (int round = 0; round <= TPU_EAGER_FUSED + 1; round++) {
    int mode = round <= TPU_EAGER_FUSED ? round : TPU_EAGER_STRICT;
    mixed = round > TPU_EAGER_FUSED;
    TpuClientOptions o;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.chips = 2;
    o.mode = (TpuEagerMode)mode;
    o.threads = 2;
    o.no_disk_cache = getenv("TPU_CACHE_DIR") ? 0 : 1;
    if (tpu_client_create(&o, &client) != 0) {
      fprintf(stderr, "runtime_threads: tpu_client_create: %s\n", tpu_error(NULL));
      return 1;
    }
    if (tpu_client_mode(client) != (TpuEagerMode)mode && !mixed) {
      fprintf(stderr, "runtime_threads: the client is not in mode %s (is TPU_EAGER_MODE set?)\n", mode_names[mode]);
      return 1;
    }
    pthread_t t[NTHREADS];
    atomic_store(&running, NTHREADS);
    for (int i = 0; i < NTHREADS; i++)
      if (pthread_create(&t[i], NULL, thread_main, (void *)(intptr_t)i) != 0) {
        fprintf(stderr, "runtime_threads: pthread_create failed\n");
        return 1;
      }
    /* Last round: the main thread switches the mode while the others run
     * (every mode gives the same results). */
    for (int k = 0; mixed && atomic_load(&running) > 0; k++) {
      int rc = tpu_client_set_mode(client, (TpuEagerMode)(k % 3));
      if (rc != 0 && rc != 2 && rc != 4) {
        fprintf(stderr, "runtime_threads: tpu_client_set_mode: code %d: %s\n", rc, tpu_error(client));
        atomic_store(&failed, 1);
      }
      struct timespec ms = {0, 2000000};
      nanosleep(&ms, NULL);
    }
    for (int i = 0; i < NTHREADS; i++) pthread_join(t[i], NULL);
    int rc = tpu_sync(client);
    if (getenv("RUNTIME_THREADS_METRICS")) {
      char m[4096];
      tpu_metrics_json(client, m, sizeof m);
      printf("%s\n", m);
    }
    if (rc != 0 && !atomic_load(&failed)) {
      fprintf(stderr, "runtime_threads: mode %s: tpu_sync: code %d: %s\n", mode_names[mode], rc, tpu_error(client));
      atomic_store(&failed, 1);
    }
    tpu_client_destroy(client);
    if (atomic_load(&failed)) return 1;
    printf("runtime_threads: mode %s: %d threads x %d steps agree with the host\n",
           mixed ? "switching" : mode_names[mode], NTHREADS, iterations);
  }
  return 0;
}
