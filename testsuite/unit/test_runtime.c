/* libtpurun's C API (runtime/tpurun.h): options, tensors, the three eager
 * modes, rejected ops, errors surfacing at sync, Debug's checks, HBM
 * accounting, streams and events, many chips, whole programs, metrics. */
#include <math.h>

#include "runtime/tpurun.h"
#include "testsuite/unit/unit_tests.h"

/* A client in mode with the memory tier only (tests never touch a disk
 * cache); hbm 0: the target's. */
static TpuClient *client(TpuEagerMode mode, int chips, uint64_t hbm) {
  TpuClientOptions o = {.struct_size = sizeof o, .mode = mode, .chips = chips, .no_disk_cache = 1, .hbm_bytes = hbm,
                        .threads = 1};
  TpuClient *c = NULL;
  assert_int_equal(tpu_client_create(&o, &c), TPU_OK);
  return c;
}

static TpuTensor *host(TpuClient *c, const char *type, const void *data, size_t n) {
  TpuTensor *t = NULL;
  assert_int_equal(tpu_tensor_from_host(c, type, data, n, &t), TPU_OK);
  return t;
}

/* Runs a one-result op and returns its result (asserting success). */
static TpuTensor *op(TpuClient *c, const char *name, const char *attrs, TpuTensor *a, TpuTensor *b, const char *type) {
  TpuTensor *in[2] = {a, b}, *r = NULL;
  const char *types[1] = {type};
  int rc = tpu_op(c, name, attrs, in, b ? 2 : 1, type ? types : NULL, &r, 1);
  if (rc) fprintf(stderr, "%s: %s\n", name, tpu_error(c));
  assert_int_equal(rc, TPU_OK);
  return r;
}

static void test_options(void **state) {
  (void)state;
  TpuClient *c = NULL;
  assert_int_equal(tpu_client_create(NULL, &c), TPU_OK);
  assert_int_equal(tpu_client_mode(c), TPU_EAGER_STRICT);
  assert_int_equal(tpu_client_chips(c), 1);
  tpu_client_destroy(c);
  TpuClientOptions o = {.struct_size = 3};
  assert_int_equal(tpu_client_create(&o, &c), TPU_ERR_USAGE);
  assert_non_null(strstr(tpu_error(NULL), "struct_size"));
  o = (TpuClientOptions){.struct_size = sizeof o, .target = "v9"};
  assert_int_equal(tpu_client_create(&o, &c), TPU_ERR_USAGE);
  assert_non_null(strstr(tpu_error(NULL), "unknown target 'v9'"));
  o = (TpuClientOptions){.struct_size = sizeof o, .chips = -2};
  assert_int_equal(tpu_client_create(&o, &c), TPU_ERR_USAGE);
  assert_int_equal(tpu_client_create(NULL, NULL), TPU_ERR_USAGE);
  setenv("TPU_EAGER_MODE", "fused", 1);
  assert_int_equal(tpu_client_create(NULL, &c), TPU_OK);
  assert_int_equal(tpu_client_mode(c), TPU_EAGER_FUSED);
  tpu_client_destroy(c);
  setenv("TPU_EAGER_MODE", "eager", 1);
  assert_int_equal(tpu_client_create(NULL, &c), TPU_ERR_USAGE);
  assert_non_null(strstr(tpu_error(NULL), "TPU_EAGER_MODE='eager'"));
  unsetenv("TPU_EAGER_MODE");
}

static void test_tensors(void **state) {
  (void)state;
  TpuClient *c = client(TPU_EAGER_STRICT, 1, 0);
  float d[6] = {1, 2, 3, 4, 5, 6}, back[6];
  TpuTensor *t = NULL;
  assert_int_equal(tpu_tensor_from_host(c, "2x3xf33", d, sizeof d, &t), TPU_ERR_USAGE);
  assert_non_null(strstr(tpu_error(c), "'f33' is not an element type"));
  assert_int_equal(tpu_tensor_from_host(c, "2x3", d, sizeof d, &t), TPU_ERR_USAGE);
  assert_int_equal(tpu_tensor_from_host(c, NULL, d, sizeof d, &t), TPU_ERR_USAGE);
  assert_int_equal(tpu_tensor_from_host(c, "2x3xf32", d, 20, &t), TPU_ERR_DATA);
  assert_non_null(strstr(tpu_error(c), "has 24 bytes, 20 given"));
  assert_int_equal(tpu_tensor_from_host(c, "1099511627776x1099511627776xf32", d, 4, &t), TPU_ERR_USAGE);
  t = host(c, "tensor<2x3xf32>", d, sizeof d);
  assert_string_equal(tpu_tensor_type(t), "2x3xf32");
  assert_int_equal(tpu_tensor_bytes(t), 24);
  assert_int_equal(tpu_tensor_chip(t), 0);
  assert_int_equal(tpu_tensor_to_host(t, back, 12), TPU_ERR_DATA);
  assert_int_equal(tpu_tensor_to_host(t, back, sizeof back), TPU_OK);
  assert_memory_equal(back, d, sizeof d);
  tpu_tensor_retain(t);
  tpu_tensor_release(t);
  assert_string_equal(tpu_tensor_type(t), "2x3xf32");
  tpu_tensor_release(t);
  /* A released handle is reported, not followed. */
  assert_null(tpu_tensor_type(t));
  assert_non_null(strstr(tpu_error(c), "was released"));
  assert_int_equal(tpu_tensor_to_host(t, back, sizeof back), TPU_ERR_USAGE);
  tpu_client_destroy(c);
}

/* One small computation: ((a + b) * b) . w, then a row sum. */
static void compute(TpuClient *c, float out[2], float sums[2]) {
  float a[4] = {1, 2, 3, 4}, b[4] = {0.5f, -1, 2, 0.25f}, w[4] = {1, 0, -1, 2}, z = 0;
  TpuTensor *ta = host(c, "2x2xf32", a, 16), *tb = host(c, "2x2xf32", b, 16), *tw = host(c, "2x2xf32", w, 16);
  TpuTensor *tz = host(c, "f32", &z, 4);
  TpuTensor *s = op(c, "stablehlo.add", NULL, ta, tb, NULL);
  TpuTensor *p = op(c, "stablehlo.multiply", NULL, s, tb, "2x2xf32");
  TpuTensor *m = op(c, "stablehlo.dot_general",
                    "{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], "
                    "rhs_contracting_dimensions = [0]>}",
                    p, tw, "2x2xf32");
  TpuTensor *r = op(c, "stablehlo.reduce", "{dimensions = array<i64: 1>, body = \"stablehlo.add\"}", m, tz, "2xf32");
  TpuTensor *row = op(c, "stablehlo.slice",
                      "{start_indices = array<i64: 0, 0>, limit_indices = array<i64: 1, 2>, strides = array<i64: 1, 1>}",
                      m, NULL, "1x2xf32");
  assert_int_equal(tpu_tensor_to_host(row, out, 8), TPU_OK);
  assert_int_equal(tpu_tensor_to_host(r, sums, 8), TPU_OK);
  TpuTensor *all[] = {ta, tb, tw, tz, s, p, m, r, row};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) tpu_tensor_release(all[i]);
}

static void test_modes_agree(void **state) {
  (void)state;
  float out[3][2], sums[3][2];
  for (int mode = 0; mode < 3; mode++) {
    TpuClient *c = client((TpuEagerMode)mode, 1, 0);
    compute(c, out[mode], sums[mode]);
    assert_int_equal(tpu_sync(c), TPU_OK);
    tpu_client_destroy(c);
  }
  /* (1.5*0.5, 1*-1; 5*2, 4.25*0.25) . [[1 0][-1 2]] = [[1.75 -2][8.9375 2.125]] */
  assert_true(out[TPU_EAGER_STRICT][0] == 1.75f && out[TPU_EAGER_STRICT][1] == -2.0f);
  assert_true(sums[TPU_EAGER_STRICT][0] == -0.25f && sums[TPU_EAGER_STRICT][1] == 11.0625f);
  assert_memory_equal(out[TPU_EAGER_DEBUG], out[TPU_EAGER_STRICT], sizeof out[0]);
  assert_memory_equal(sums[TPU_EAGER_DEBUG], sums[TPU_EAGER_STRICT], sizeof sums[0]);
  for (int i = 0; i < 2; i++) {
    assert_true(fabsf(out[TPU_EAGER_FUSED][i] - out[TPU_EAGER_STRICT][i]) <= 1e-5f);
    assert_true(fabsf(sums[TPU_EAGER_FUSED][i] - sums[TPU_EAGER_STRICT][i]) <= 1e-5f);
  }
}

static void test_rejected_ops(void **state) {
  (void)state;
  for (int mode = 0; mode < 3; mode++) {
    TpuClient *c = client((TpuEagerMode)mode, 1, 0);
    float d[6] = {0};
    TpuTensor *a = host(c, "2x3xf32", d, 24), *b = host(c, "3x2xf32", d, 24), *r = NULL;
    TpuTensor *in[2] = {a, b};
    const char *wrong[1] = {"3x3xf32"};
    assert_int_equal(tpu_op(c, "stablehlo.add", NULL, in, 2, wrong, &r, 1), TPU_ERR_REJECTED);
    assert_non_null(strstr(tpu_error(c), "error: 'stablehlo.add' op"));
    assert_non_null(strstr(tpu_error(c), "op #"));
    assert_null(r);
    assert_int_equal(tpu_op(c, "stablehlo.frobnicate", NULL, in, 2, NULL, &r, 1), TPU_ERR_USAGE);
    assert_non_null(strstr(tpu_error(c), "not a StableHLO or CHLO op"));
    assert_int_equal(tpu_op(c, "stablehlo.add\" junk", NULL, in, 2, NULL, &r, 1), TPU_ERR_USAGE);
    assert_int_equal(tpu_op(c, "stablehlo.transpose", "{permutation = array<i64: 1, 0", in, 1, NULL, &r, 1),
                     TPU_ERR_REJECTED);
    /* Attributes that smuggle in another op are refused. */
    assert_int_equal(tpu_op(c, "stablehlo.negate", ": (tensor<2x3xf32>) -> tensor<2x3xf32>\n %x = stablehlo.abs %i0", in, 1,
                            wrong, &r, 1),
                     TPU_ERR_REJECTED);
    assert_int_equal(tpu_op(c, "stablehlo.add", NULL, in, 2, NULL, NULL, 1), TPU_ERR_USAGE);
    /* Verified but without a VM kernel: rejected (2), as tpucc does, not 70. */
    const char *int_t[1] = {"2x2xi32"};
    if (mode != TPU_EAGER_FUSED) {
      assert_int_equal(tpu_op(c, "stablehlo.dot_general",
                              "{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], "
                              "rhs_contracting_dimensions = [0]>}",
                              in, 2, int_t, &r, 1),
                       TPU_ERR_REJECTED);
      assert_non_null(strstr(tpu_error(c), "tpurun has no kernel for this form of the op"));
    }
    /* The same op asking for two results, after a use with one. */
    TpuTensor *aa2[2] = {a, a}, *two[2] = {NULL, NULL};
    const char *one_t[1] = {"2x3xf32"};
    assert_int_equal(tpu_op(c, "stablehlo.add", NULL, aa2, 2, one_t, two, 1), TPU_OK);
    tpu_tensor_release(two[0]);
    assert_int_equal(tpu_op(c, "stablehlo.add", NULL, aa2, 2, NULL, two, 1), TPU_OK);
    tpu_tensor_release(two[0]);
    two[0] = NULL;
    assert_int_equal(tpu_op(c, "stablehlo.add", NULL, aa2, 2, NULL, two, 2), TPU_ERR_REJECTED);
    assert_non_null(strstr(tpu_error(c), "has 1 results, but 2 result tensors were asked for"));
    assert_null(two[0]);
    assert_null(two[1]);
    assert_int_equal(tpu_op(NULL, "stablehlo.add", NULL, in, 2, NULL, &r, 1), TPU_ERR_USAGE);
    assert_int_equal(tpu_op(c, "stablehlo.add", NULL, NULL, 2, NULL, &r, 1), TPU_ERR_USAGE);
    const char *same[1] = {"2x3xf32"};
    TpuTensor *aa[2] = {a, a};
    assert_int_equal(tpu_op(c, "stablehlo.add", NULL, aa, 2, same, &r, 1), TPU_OK);
    tpu_tensor_release(r);
    assert_int_equal(tpu_sync(c), TPU_OK);
    tpu_tensor_release(a);
    tpu_tensor_release(b);
    tpu_client_destroy(c);
  }
}

static const char trap_attrs[] = "{replica_groups = dense<[[1]]> : tensor<1x1xi64>, body = \"stablehlo.add\"}";

static void test_strict_error_at_sync(void **state) {
  (void)state;
  TpuClient *c = client(TPU_EAGER_STRICT, 1, 0);
  float d[2] = {1, 2}, back[2];
  TpuTensor *a = host(c, "2xf32", d, 8);
  TpuTensor *r = op(c, "stablehlo.all_reduce", trap_attrs, a, NULL, "2xf32");
  TpuTensor *n = op(c, "stablehlo.negate", NULL, r, NULL, NULL);
  int rc = tpu_sync(c);
  assert_int_equal(rc, TPU_ERR_RUNTIME);
  assert_non_null(strstr(tpu_error(c), "op #1 'stablehlo.all_reduce' failed"));
  assert_non_null(strstr(tpu_error(c), "names replica 1"));
  assert_int_equal(tpu_sync(c), TPU_OK); /* reported once */
  assert_int_equal(tpu_tensor_to_host(n, back, 8), TPU_ERR_RUNTIME);
  assert_non_null(strstr(tpu_error(c), "'stablehlo.all_reduce'"));
  tpu_tensor_release(n);
  tpu_tensor_release(r);
  /* Debug reports it at the op itself. */
  assert_int_equal(tpu_client_set_mode(c, TPU_EAGER_DEBUG), TPU_OK);
  TpuTensor *in[1] = {a};
  const char *t[1] = {"2xf32"};
  assert_int_equal(tpu_op(c, "stablehlo.all_reduce", trap_attrs, in, 1, t, &r, 1), TPU_ERR_RUNTIME);
  assert_null(r);
  assert_int_equal(tpu_sync(c), TPU_OK);
  tpu_tensor_release(a);
  tpu_client_destroy(c);
}

static void test_debug_nan_check(void **state) {
  (void)state;
  TpuClient *c = client(TPU_EAGER_DEBUG, 1, 0);
  float d[3] = {1, -1, 4};
  TpuTensor *a = host(c, "3xf32", d, 12), *r = NULL, *in[1] = {a};
  assert_int_equal(tpu_op(c, "stablehlo.log", NULL, in, 1, NULL, &r, 1), TPU_ERR_RUNTIME);
  assert_non_null(strstr(tpu_error(c), "holds a NaN at element 1, and no operand held one"));
  assert_non_null(strstr(tpu_error(c), "'stablehlo.log'"));
  /* An infinity the op only passes on (a -inf mask) is no error; one it
   * makes is. */
  float inf[3] = {-INFINITY, 1, 2}, big[3] = {3e38f, 1, 2};
  TpuTensor *m = host(c, "3xf32", inf, 12), *b = host(c, "3xf32", big, 12), *in2[2] = {m, a};
  assert_int_equal(tpu_op(c, "stablehlo.maximum", NULL, in2, 2, NULL, &r, 1), TPU_OK);
  tpu_tensor_release(r);
  in2[0] = b, in2[1] = b;
  assert_int_equal(tpu_op(c, "stablehlo.add", NULL, in2, 2, NULL, &r, 1), TPU_ERR_RUNTIME);
  assert_non_null(strstr(tpu_error(c), "holds an infinity at element 0"));
  /* A constant that writes -inf (a max-reduction's start) is the program's choice. */
  assert_int_equal(tpu_op(c, "stablehlo.constant", "{value = dense<0xFF800000> : tensor<f32>}", NULL, 0, NULL, &r, 1),
                   TPU_OK);
  tpu_tensor_release(r);
  tpu_tensor_release(m), tpu_tensor_release(b), tpu_tensor_release(a);
  tpu_client_destroy(c);
  TpuClientOptions o = {.struct_size = sizeof o, .mode = TPU_EAGER_DEBUG, .no_nan_check = 1, .no_disk_cache = 1};
  assert_int_equal(tpu_client_create(&o, &c), TPU_OK);
  a = host(c, "3xf32", d, 12);
  in[0] = a;
  assert_int_equal(tpu_op(c, "stablehlo.log", NULL, in, 1, NULL, &r, 1), TPU_OK);
  tpu_tensor_release(r);
  tpu_tensor_release(a);
  tpu_client_destroy(c);
}

static void test_out_of_memory(void **state) {
  (void)state;
  TpuClient *c = client(TPU_EAGER_STRICT, 1, 4096);
  static float d[1024];
  TpuTensor *a = host(c, "256xf32", d, 1024), *b = host(c, "512xf32", d, 2048), *r = NULL, *in[1] = {b};
  TpuTensor *x = NULL;
  assert_int_equal(tpu_tensor_from_host(c, "2048xf32", d, 8192, &x), TPU_ERR_RUNTIME);
  assert_non_null(strstr(tpu_error(c), "out of memory on chip 0"));
  assert_int_equal(tpu_op(c, "stablehlo.exponential", NULL, in, 1, NULL, &r, 1), TPU_ERR_RUNTIME);
  assert_non_null(strstr(tpu_error(c), "'stablehlo.exponential' needs 2048 bytes"));
  assert_non_null(strstr(tpu_error(c), "held by 2 live tensors: tensor #2 (512xf32, 2048 bytes, from the host)"));
  tpu_tensor_release(b);
  assert_int_equal(tpu_op(c, "stablehlo.exponential", NULL, (TpuTensor *[]){a}, 1, NULL, &r, 1), TPU_OK);
  tpu_tensor_release(r);
  tpu_tensor_release(a);
  tpu_client_destroy(c);
}

/* A step whose graph is the same every time: compiles once in Fused. */
static void test_fused_compiles_once(void **state) {
  (void)state;
  TpuClient *c = client(TPU_EAGER_FUSED, 1, 0);
  float w[4] = {0.5f, 0.25f, 1, 2}, x[4] = {1, 2, 3, 4}, out[4];
  TpuTensor *tw = host(c, "4xf32", w, 16), *tx = host(c, "4xf32", x, 16);
  for (int step = 0; step < 5; step++) {
    TpuTensor *p = op(c, "stablehlo.multiply", NULL, tx, tw, NULL);
    TpuTensor *q = op(c, "stablehlo.tanh", NULL, p, NULL, NULL);
    TpuTensor *nw = op(c, "stablehlo.subtract", NULL, tw, q, NULL);
    tpu_tensor_release(p);
    tpu_tensor_release(q);
    tpu_tensor_release(tw);
    tw = nw;
    assert_int_equal(tpu_tensor_to_host(tw, out, 16), TPU_OK);
  }
  for (int i = 0; i < 4; i++) {
    float v = w[i];
    for (int s = 0; s < 5; s++) v = v - tanhf(x[i] * v);
    assert_true(fabsf(out[i] - v) <= 1e-5f);
  }
  char m[4096];
  int n = tpu_metrics_json(c, m, sizeof m);
  assert_true(n > 0 && n <= (int)sizeof m);
  assert_non_null(strstr(m, "\"graphs\": 5"));
  assert_non_null(strstr(m, "\"compiles\": 1,"));
  assert_non_null(strstr(m, "\"memory_hits\": 4"));
  assert_non_null(strstr(m, "\"ops\": {\"strict\": 0, \"debug\": 0, \"fused\": 15}"));
  char small[8];
  assert_int_equal(tpu_metrics_json(c, small, sizeof small), n);
  assert_int_equal(small[7], '\0');
  tpu_tensor_release(tw);
  tpu_tensor_release(tx);
  tpu_client_destroy(c);
}

/* A host read in Fused mode reads its tensor even when another stream's
 * graph fails to compile; that failure is left for tpu_sync. */
static void test_fused_read_beside_failed_graph(void **state) {
  (void)state;
  TpuClient *c = client(TPU_EAGER_FUSED, 1, 0);
  float d[2] = {1, 2}, back[2] = {0, 0};
  TpuTensor *a = host(c, "2xf32", d, 8), *bad = NULL, *in[1] = {a};
  TpuStream *s;
  assert_int_equal(tpu_stream_create(c, 0, &s), TPU_OK);
  const char *t[1] = {"2xf32"};
  assert_int_equal(tpu_stream_op(s, "stablehlo.custom_call", "{call_target_name = \"nope\"}", in, 1, t, &bad, 1),
                   TPU_OK);
  TpuTensor *n = op(c, "stablehlo.negate", NULL, a, NULL, NULL);
  assert_int_equal(tpu_tensor_to_host(n, back, 8), TPU_OK);
  assert_true(back[0] == -1 && back[1] == -2);
  assert_int_equal(tpu_sync(c), TPU_ERR_REJECTED);
  assert_non_null(strstr(tpu_error(c), "custom_call @nope"));
  assert_int_equal(tpu_tensor_to_host(bad, back, 8), TPU_ERR_REJECTED);
  tpu_tensor_release(bad);
  tpu_tensor_release(n);
  tpu_tensor_release(a);
  tpu_stream_destroy(s);
  tpu_client_destroy(c);
}

static void test_streams_and_events(void **state) {
  (void)state;
  TpuClient *c = client(TPU_EAGER_STRICT, 1, 0);
  TpuStream *s1, *s2;
  assert_int_equal(tpu_stream_create(c, 0, &s1), TPU_OK);
  assert_int_equal(tpu_stream_create(c, 0, &s2), TPU_OK);
  assert_int_equal(tpu_stream_create(c, 1, &s2), TPU_ERR_USAGE);
  assert_int_equal(tpu_stream_create(c, 0, &s2), TPU_OK);
  int32_t v[3] = {1, 2, 3}, out[3];
  TpuTensor *a = host(c, "3xi32", v, 12), *b = NULL, *d = NULL, *in[2] = {a, a};
  assert_int_equal(tpu_stream_op(s1, "stablehlo.add", NULL, in, 2, NULL, &b, 1), TPU_OK);
  TpuEvent *e;
  assert_int_equal(tpu_event_record(s1, &e), TPU_OK);
  assert_int_equal(tpu_stream_wait_event(s2, e), TPU_OK);
  in[0] = b;
  assert_int_equal(tpu_stream_op(s2, "stablehlo.multiply", NULL, in, 2, NULL, &d, 1), TPU_OK);
  assert_int_equal(tpu_event_sync(e), TPU_OK);
  assert_int_equal(tpu_event_query(e), 1);
  assert_int_equal(tpu_stream_sync(s2), TPU_OK);
  assert_int_equal(tpu_tensor_to_host(d, out, 12), TPU_OK);
  assert_true(out[0] == 2 && out[1] == 8 && out[2] == 18);
  tpu_event_release(e);
  tpu_stream_destroy(s1);
  tpu_stream_destroy(s2);
  assert_int_equal(tpu_stream_sync(s1), TPU_ERR_USAGE);
  assert_non_null(strstr(tpu_error(c), "the stream was destroyed"));
  tpu_tensor_release(a), tpu_tensor_release(b), tpu_tensor_release(d);
  tpu_client_destroy(c);
}

static const char sum_program[] =
    "func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n"
    "  %0 = \"stablehlo.all_reduce\"(%x) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({\n"
    "  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
    "    %s = stablehlo.add %a, %b : tensor<f32>\n"
    "    stablehlo.return %s : tensor<f32>\n"
    "  }) : (tensor<2xf32>) -> tensor<2xf32>\n"
    "  return %0 : tensor<2xf32>\n"
    "}\n";

static void test_chips_and_programs(void **state) {
  (void)state;
  TpuClient *c = client(TPU_EAGER_STRICT, 2, 0);
  float x[4] = {1, 2, 10, 20}, out[4];
  TpuTensor *t = host(c, "2x2xf32", x, 16), *u = NULL, *r = NULL;
  assert_int_equal(tpu_tensor_to_chip(t, 1, &u), TPU_OK);
  assert_int_equal(tpu_tensor_chip(u), 1);
  TpuTensor *in[2] = {t, u};
  assert_int_equal(tpu_op(c, "stablehlo.add", NULL, in, 2, NULL, &r, 1), TPU_ERR_USAGE);
  assert_non_null(strstr(tpu_error(c), "tpu_tensor_to_chip"));
  in[0] = u;
  assert_int_equal(tpu_op(c, "stablehlo.add", NULL, in, 2, NULL, &r, 1), TPU_OK);
  assert_int_equal(tpu_tensor_chip(r), 1);
  assert_int_equal(tpu_tensor_to_host(r, out, 16), TPU_OK);
  assert_true(out[0] == 2 && out[3] == 40);
  tpu_tensor_release(r);
  TpuProgram *p = NULL;
  assert_int_equal(tpu_program_compile(c, "func.func @main(", 16, &p), TPU_ERR_REJECTED);
  assert_non_null(strstr(tpu_error(c), "program:1:"));
  assert_int_equal(tpu_program_compile(c, sum_program, strlen(sum_program), &p), TPU_OK);
  int np, nr;
  assert_int_equal(tpu_program_signature(p, NULL, &np, &nr), TPU_OK);
  assert_true(np == 1 && nr == 1);
  assert_int_equal(tpu_program_signature(p, "nope", &np, &nr), TPU_ERR_USAGE);
  in[0] = t; /* 2x2: chip i gets row i; the result is stacked */
  assert_int_equal(tpu_program_run(p, NULL, in, 1, &r, 1), TPU_OK);
  assert_string_equal(tpu_tensor_type(r), "2x2xf32");
  assert_int_equal(tpu_tensor_to_host(r, out, 16), TPU_OK);
  assert_true(out[0] == 11 && out[1] == 22 && out[2] == 11 && out[3] == 22);
  tpu_tensor_release(r);
  assert_int_equal(tpu_program_run(p, NULL, in, 2, &r, 1), TPU_ERR_USAGE);
  tpu_program_release(p);
  tpu_tensor_release(t), tpu_tensor_release(u);
  tpu_client_destroy(c);
}

/* A program with unbounded dimensions (JAX shape polymorphism): n and
 * x: n x 2 give y = x broadcast to 2 x n x 2 with n added. */
static const char poly_program[] =
    "func.func public @main(%n: tensor<i64>, %x: tensor<?x2xf32>) -> tensor<2x?x2xf32> {\n"
    "  %d = stablehlo.reshape %n : (tensor<i64>) -> tensor<1xi64>\n"
    "  %c2 = stablehlo.constant dense<2> : tensor<1xi64>\n"
    "  %s = stablehlo.concatenate %c2, %d, %c2, dim = 0 : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3xi64>\n"
    "  %b = stablehlo.dynamic_broadcast_in_dim %x, %s, dims = [1, 2] : (tensor<?x2xf32>, tensor<3xi64>) -> tensor<2x?x2xf32>\n"
    "  %nf = stablehlo.convert %n : (tensor<i64>) -> tensor<f32>\n"
    "  %nb = stablehlo.dynamic_broadcast_in_dim %nf, %s, dims = [] : (tensor<f32>, tensor<3xi64>) -> tensor<2x?x2xf32>\n"
    "  %y = stablehlo.add %b, %nb : tensor<2x?x2xf32>\n"
    "  return %y : tensor<2x?x2xf32>\n"
    "}\n";

/* tpu_program_compile of an unbounded program defers compiling; each run
 * refines it to its arguments' shapes (one compile per signature). */
static void test_unbounded_program(void **state) {
  (void)state;
  TpuClient *c = client(TPU_EAGER_STRICT, 1, 0);
  TpuProgram *p = NULL;
  assert_int_equal(tpu_program_compile(c, poly_program, strlen(poly_program), &p), TPU_OK);
  int np, nr;
  assert_int_equal(tpu_program_signature(p, NULL, &np, &nr), TPU_OK);
  assert_true(np == 2 && nr == 1);
  for (int64_t n = 1; n <= 3; n++) {
    float x[6] = {1, 2, 3, 4, 5, 6}, out[12];
    TpuTensor *in[2] = {host(c, "i64", &n, 8), NULL}, *r = NULL;
    char ty[32];
    snprintf(ty, sizeof ty, "%dx2xf32", (int)n);
    in[1] = host(c, ty, x, (size_t)n * 8);
    assert_int_equal(tpu_program_run(p, NULL, in, 2, &r, 1), TPU_OK);
    snprintf(ty, sizeof ty, "2x%dx2xf32", (int)n);
    assert_string_equal(tpu_tensor_type(r), ty);
    assert_int_equal(tpu_tensor_to_host(r, out, (size_t)n * 16), TPU_OK);
    for (int i = 0; i < 4 * n; i++) assert_true(out[i] == x[i % (2 * n)] + (float)n);
    tpu_tensor_release(r), tpu_tensor_release(in[0]), tpu_tensor_release(in[1]);
  }
  char m[2048];
  assert_true(tpu_metrics_json(c, m, sizeof m) > 0);
  assert_non_null(strstr(m, "\"compiles\": 3,"));
  int64_t n = 2; /* the same signature again: no compile */
  float x[6] = {0};
  TpuTensor *in[2] = {host(c, "i64", &n, 8), host(c, "2x2xf32", x, 16)}, *r = NULL;
  assert_int_equal(tpu_program_run(p, NULL, in, 2, &r, 1), TPU_OK);
  assert_true(tpu_metrics_json(c, m, sizeof m) > 0);
  assert_non_null(strstr(m, "\"compiles\": 3,"));
  tpu_tensor_release(r), tpu_tensor_release(in[1]);
  in[1] = host(c, "3x2xf32", x, 24); /* n = 2 but 3 rows: a located error */
  assert_int_equal(tpu_program_run(p, NULL, in, 2, &r, 1), TPU_ERR_REJECTED);
  assert_non_null(strstr(tpu_error(c), "program:5:"));
  assert_int_equal(tpu_program_run(p, "other", in, 2, &r, 1), TPU_ERR_USAGE);
  tpu_tensor_release(in[0]), tpu_tensor_release(in[1]);
  tpu_program_release(p);
  tpu_client_destroy(c);
}

/* A partitioned program (as the SPMD partitioner writes it): %x is 5x3
 * in 2x2 tiles on partitions 3 1 0 2 (uneven: 3x2 pieces), %s whole; each
 * chip adds 100 * partition + 1000 * replica + %s to its piece, and
 * returns the sum of its piece (whole: partition 0's, rows 3-4 and a zero
 * padding row of columns 0-1). */
#define SPMD_X_ATTRS \
  "{tpu.global_shape = array<i64: 5, 3>, tpu.shard_tiles = array<i64: 2, 2, 1>, tpu.shard_devices = array<i64: 3, 1, 0, 2>}"
static const char spmd_program[] =
    "module attributes {mhlo.num_partitions = 4 : i32, tpu.spmd_partitioned, tpu.mesh = array<i64: 2, 2>} {\n"
    "func.func @main(%x: tensor<3x2xf32> " SPMD_X_ATTRS ", %s: tensor<f32>)\n"
    "    -> (tensor<3x2xf32> " SPMD_X_ATTRS ", tensor<f32>) {\n"
    "  %p = stablehlo.partition_id : tensor<ui32>\n"
    "  %pf = stablehlo.convert %p : (tensor<ui32>) -> tensor<f32>\n"
    "  %r = stablehlo.replica_id : tensor<ui32>\n"
    "  %rf = stablehlo.convert %r : (tensor<ui32>) -> tensor<f32>\n"
    "  %c100 = stablehlo.constant dense<100.0> : tensor<f32>\n"
    "  %c1000 = stablehlo.constant dense<1000.0> : tensor<f32>\n"
    "  %a = stablehlo.multiply %pf, %c100 : tensor<f32>\n"
    "  %b = stablehlo.multiply %rf, %c1000 : tensor<f32>\n"
    "  %ab = stablehlo.add %a, %b : tensor<f32>\n"
    "  %abs = stablehlo.add %ab, %s : tensor<f32>\n"
    "  %bc = stablehlo.broadcast_in_dim %abs, dims = [] : (tensor<f32>) -> tensor<3x2xf32>\n"
    "  %r0 = stablehlo.add %x, %bc : tensor<3x2xf32>\n"
    "  %zero = stablehlo.constant dense<0.0> : tensor<f32>\n"
    "  %r1 = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0, 1]"
    " : (tensor<3x2xf32>, tensor<f32>) -> tensor<f32>\n"
    "  return %r0, %r1 : tensor<3x2xf32>, tensor<f32>\n"
    "}\n}\n";

/* The partition holding global element (i, j) of %x: tiles of 3x2. */
static int spmd_owner(int i, int j) {
  static const int devices[4] = {3, 1, 0, 2};
  return devices[(i / 3) * 2 + j / 2];
}

/* tpu_program_run of a bounded program: any size within the bound, the
 * results cut to their sizes, a size over the bound refused
 * (docs/dynamic-shapes.md). */
static void test_bounded_program(void **state) {
  (void)state;
  static const char text[] =
      "func.func @main(%x: tensor<?x2xf32, #stablehlo.bounds<4, ?>>) -> (tensor<?x2xf32, #stablehlo.bounds<4, ?>>, "
      "tensor<2xf32>) {\n"
      "  %a = stablehlo.add %x, %x : tensor<?x2xf32, #stablehlo.bounds<4, ?>>\n"
      "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
      "  %s = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0] : "
      "(tensor<?x2xf32, #stablehlo.bounds<4, ?>>, tensor<f32>) -> tensor<2xf32>\n"
      "  return %a, %s : tensor<?x2xf32, #stablehlo.bounds<4, ?>>, tensor<2xf32>\n}\n";
  TpuClient *c = client(TPU_EAGER_STRICT, 1, 0);
  TpuProgram *p = NULL;
  if (tpu_program_compile(c, text, strlen(text), &p)) fail_msg("%s", tpu_error(c));
  int np, nr;
  assert_int_equal(tpu_program_signature(p, NULL, &np, &nr), TPU_OK);
  assert_true(np == 1 && nr == 2);
  float x[6] = {1, 2, 3, 4, 5, 6}, out[8], zeros[10] = {0};
  TpuTensor *t = host(c, "3x2xf32", x, 24), *r[2] = {NULL, NULL};
  if (tpu_program_run(p, NULL, &t, 1, r, 2)) fail_msg("%s", tpu_error(c));
  assert_string_equal(tpu_tensor_type(r[0]), "3x2xf32");
  assert_int_equal(tpu_tensor_to_host(r[0], out, 24), TPU_OK);
  assert_true(out[0] == 2 && out[5] == 12);
  assert_int_equal(tpu_tensor_to_host(r[1], out, 8), TPU_OK);
  assert_true(out[0] == 9 && out[1] == 12);
  tpu_tensor_release(r[0]), tpu_tensor_release(r[1]);
  TpuTensor *big = host(c, "5x2xf32", zeros, 40);
  assert_int_equal(tpu_program_run(p, NULL, &big, 1, r, 2), TPU_ERR_USAGE);
  assert_non_null(strstr(tpu_error(c), "bounded by 4"));
  tpu_tensor_release(big), tpu_tensor_release(t);
  tpu_program_release(p);
  tpu_client_destroy(c);
}

/* tpu_program_run on a partitioned program takes global arguments and
 * gives global results: on 4 chips one replica, on 8 two (stacked); a
 * global argument per replica may be stacked too; a wrong global shape
 * and a client whose chips are not whole replicas are usage errors. */
static void test_partitioned_program(void **state) {
  (void)state;
  float x[30], s = 0.5f, out[30], sum[2];
  for (int i = 0; i < 30; i++) x[i] = (float)i;
  for (int chips = 4; chips <= 8; chips += 4) {
    int reps = chips / 4;
    TpuClient *c = client(TPU_EAGER_STRICT, chips, 0);
    TpuProgram *p = NULL;
    if (tpu_program_compile(c, spmd_program, strlen(spmd_program), &p)) fail_msg("%s", tpu_error(c));
    TpuTensor *in[2] = {host(c, "5x3xf32", x, 60), host(c, "f32", &s, 4)}, *r[2] = {NULL, NULL};
    if (tpu_program_run(p, NULL, in, 2, r, 2)) fail_msg("%s", tpu_error(c));
    assert_string_equal(tpu_tensor_type(r[0]), reps == 1 ? "5x3xf32" : "2x5x3xf32");
    assert_string_equal(tpu_tensor_type(r[1]), reps == 1 ? "f32" : "2xf32");
    assert_int_equal(tpu_tensor_to_host(r[0], out, 60u * (size_t)reps), TPU_OK);
    assert_int_equal(tpu_tensor_to_host(r[1], sum, 4u * (size_t)reps), TPU_OK);
    for (int k = 0; k < reps; k++) {
      for (int i = 0; i < 5; i++)
        for (int j = 0; j < 3; j++)
          assert_true(out[k * 15 + i * 3 + j] == x[i * 3 + j] + 100.0f * (float)spmd_owner(i, j) + 1000.0f * (float)k + 0.5f);
      assert_true(sum[k] == 9 + 10 + 12 + 13);
    }
    tpu_tensor_release(r[0]), tpu_tensor_release(r[1]);
    if (reps == 2) { /* one global value per replica, stacked */
      TpuTensor *both = host(c, "2x5x3xf32", x, 120);
      TpuTensor *in2[2] = {both, in[1]};
      if (tpu_program_run(p, NULL, in2, 2, r, 2)) fail_msg("%s", tpu_error(c));
      assert_int_equal(tpu_tensor_to_host(r[1], sum, 8), TPU_OK);
      assert_true(sum[0] == 9 + 10 + 12 + 13 && sum[1] == 24 + 25 + 27 + 28);
      tpu_tensor_release(r[0]), tpu_tensor_release(r[1]), tpu_tensor_release(both);
    }
    TpuTensor *local = host(c, "3x2xf32", x, 24), *in3[2] = {local, in[1]};
    assert_int_equal(tpu_program_run(p, NULL, in3, 2, r, 2), TPU_ERR_USAGE);
    assert_non_null(strstr(tpu_error(c), "argument 0 is 3x2xf32, but the partitioned program takes the global value 5x3xf32"));
    tpu_tensor_release(local);
    tpu_tensor_release(in[0]), tpu_tensor_release(in[1]);
    tpu_program_release(p);
    tpu_client_destroy(c);
  }
  TpuClient *c = client(TPU_EAGER_STRICT, 6, 0);
  TpuProgram *p = NULL;
  assert_int_equal(tpu_program_compile(c, spmd_program, strlen(spmd_program), &p), TPU_OK);
  TpuTensor *in[2] = {host(c, "5x3xf32", x, 60), host(c, "f32", &s, 4)}, *r[2] = {NULL, NULL};
  assert_int_equal(tpu_program_run(p, NULL, in, 2, r, 2), TPU_ERR_USAGE);
  assert_non_null(strstr(tpu_error(c), "partitioned for 4 partitions; the client's 6 chips"));
  tpu_tensor_release(in[0]), tpu_tensor_release(in[1]);
  tpu_program_release(p);
  tpu_client_destroy(c);
}

int run_runtime_tests(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_options),           cmocka_unit_test(test_tensors),
      cmocka_unit_test(test_modes_agree),       cmocka_unit_test(test_rejected_ops),
      cmocka_unit_test(test_strict_error_at_sync), cmocka_unit_test(test_debug_nan_check),
      cmocka_unit_test(test_out_of_memory),     cmocka_unit_test(test_fused_compiles_once),
      cmocka_unit_test(test_fused_read_beside_failed_graph),
      cmocka_unit_test(test_streams_and_events), cmocka_unit_test(test_chips_and_programs), cmocka_unit_test(test_unbounded_program),
      cmocka_unit_test(test_bounded_program),
      cmocka_unit_test(test_partitioned_program),
  };
  return cmocka_run_group_tests_name("runtime", tests, NULL, NULL);
}
