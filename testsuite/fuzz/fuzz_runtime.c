/* libFuzzer target: the libtpurun C API (runtime/tpurun.h) on call
 * sequences decoded from the input.  One client per process (2 chips, a
 * 64 MiB HBM per chip so large types take the out-of-memory path, memory
 * tier only); each input picks the eager mode, then runs up to 64 calls:
 * tensors from the host with real and garbage type strings, tpu_op and
 * tpu_stream_op with real and garbage op names, attributes, operands
 * (NULL and released handles included, on purpose) and result types,
 * host reads of right and wrong sizes, streams and events, copies between
 * chips, and programs compiled from tables and from fuzz text.
 *
 * Every call must return 0 or a documented code (1..4; 70, a bug in
 * libtpurun, aborts) with a non-empty tpu_error after a failure, and
 * every handle is released at the end of the input (LeakSanitizer). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/tpurun.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static TpuClient *client;

/* ---- the input ---------------------------------------------------------- */

typedef struct {
  const uint8_t *p;
  size_t n;
} In;

static unsigned u8(In *in) {
  if (!in->n) return 0;
  in->n--;
  return *in->p++;
}

static unsigned u16(In *in) { return u8(in) | u8(in) << 8; }

/* Strings made during one input, freed at its end. */
static char *strs[512];
static int nstrs;

static char *keep(char *s) {
  if (nstrs < (int)(sizeof strs / sizeof *strs)) strs[nstrs++] = s;
  else free(s), s = NULL;
  return s;
}

/* A NUL-terminated string of the next len bytes (len from the input). */
static const char *fuzz_str(In *in, size_t max) {
  size_t len = u8(in) % (max + 1);
  if (len > in->n) len = in->n;
  char *s = malloc(len + 1);
  if (!s) return "";
  memcpy(s, in->p, len);
  s[len] = '\0';
  in->p += len, in->n -= len;
  return keep(s) ? s : "";
}

/* ---- tables ------------------------------------------------------------- */

static const struct {
  const char *type;
  size_t bytes;
} types[] = {
    {"f32", 4},          {"4xf32", 16},        {"2x3xf32", 24},       {"3x2xf32", 24},
    {"2x2xf32", 16},     {"4xi32", 16},        {"i32", 4},            {"2x2xbf16", 8},
    {"i1", 1},           {"4xi1", 4},          {"4xi8", 4},           {"0xf32", 0},
    {"2x0x3xf32", 0},    {"tensor<2x2xf32>", 16}, {"4xcomplex<f32>", 32}, {"4xf64", 32},
    {"4xui8", 4},        {"2x4xf16", 16},      {"i64", 8},            {"3xi4", 3},
    {"2x2xi32", 16},     {"4x4xf32", 64},      {"16777216xf32", 64u << 20}, {"1000000000xf32", 4000000000u},
    {"1099511627776xf32", 0}, {"1099511627777xf32", 0}, {"tensor<f32>", 4}, {"2xui32", 8},
    {"", 0},             {"x", 0},             {"4x", 0},             {"tensor<4xf32", 0},
    {"4xf33", 0},        {"-1xf32", 0},        {"4xxf32", 0},         {"tuple<f32>", 0},
};
enum { NTYPES = sizeof types / sizeof *types };

static const char *const ops[] = {
    "stablehlo.add", "stablehlo.subtract", "stablehlo.multiply", "stablehlo.divide", "stablehlo.maximum",
    "stablehlo.minimum", "stablehlo.negate", "stablehlo.abs", "stablehlo.exponential", "stablehlo.log",
    "stablehlo.sqrt", "stablehlo.rsqrt", "stablehlo.tanh", "stablehlo.convert", "stablehlo.dot_general",
    "stablehlo.reduce", "stablehlo.broadcast_in_dim", "stablehlo.reshape", "stablehlo.transpose",
    "stablehlo.concatenate", "stablehlo.slice", "stablehlo.iota", "stablehlo.constant", "stablehlo.compare",
    "stablehlo.select", "stablehlo.reduce_window", "stablehlo.scatter", "stablehlo.gather", "stablehlo.sort",
    "stablehlo.while", "stablehlo.if", "stablehlo.case", "stablehlo.all_reduce", "stablehlo.custom_call",
    "stablehlo.rng", "stablehlo.power", "stablehlo.remainder", "stablehlo.and", "stablehlo.or", "stablehlo.xor",
    "stablehlo.not", "stablehlo.clamp", "stablehlo.pad", "stablehlo.reverse", "stablehlo.dynamic_slice",
    "stablehlo.dynamic_update_slice", "stablehlo.get_tuple_element", "stablehlo.tuple",
    "stablehlo.optimization_barrier", "chlo.erf", "chlo.tan", "chlo.broadcast_add", "chlo.top_k",
    "stablehlo.return", "func.return", "func.func", "builtin.module", "stablehlo.after_all",
    "stablehlo.infeed", "stablehlo.outfeed", "stablehlo.send", "stablehlo.recv", "stablehlo.replica_id",
    "stablehlo.partition_id", "stablehlo.collective_permute", "stablehlo.cholesky", "stablehlo.fft",
    "stablehlo.triangular_solve", "stablehlo.composite", "stablehlo.real", "stablehlo.imag",
    "stablehlo.complex", "stablehlo.bitcast_convert", "stablehlo.is_finite", "stablehlo.popcnt",
    "stablehlo.sign", "stablehlo.cbrt", "stablehlo.logistic", "stablehlo.atan2", "stablehlo.shift_left",
    "stablehlo.map", "stablehlo.reduce_precision", "stablehlo.reduce_scatter", "stablehlo.all_gather",
    "stablehlo.all_to_all", "stablehlo.batch_norm_inference", "stablehlo.dynamic_iota",
    "stablehlo.get_dimension_size", "stablehlo.round_nearest_even", "stablehlo.select_and_scatter",
    "stablehlo.convolution", "stablehlo.rng_bit_generator", "stablehlo.uniform_quantize",
    "stablehlo.Add", "stablehlo.", "stablehlo", "", "mhlo.add", "stablehlo.add\"(%i0) : () -> ()",
};
enum { NOPS = sizeof ops / sizeof *ops };

static const char *const attrs[] = {
    "{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}",
    "{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], "
    "lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>}",
    "{dimensions = array<i64: 0>, body = \"stablehlo.add\"}",
    "{body = \"stablehlo.add\", dimensions = array<i64: 1>}",
    "{body = \"stablehlo.maximum\", dimensions = array<i64: 0, 1>}",
    "{body = \"stablehlo.maximum\", window_dimensions = array<i64: 2>}",
    "{body = \"stablehlo.add\", window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 1, 1>}",
    "{body = \"stablehlo.negate\", dimensions = array<i64: 0>}",
    "{body = \"stablehlo.while\", dimensions = array<i64: 0>}",
    "{body = 3, dimensions = array<i64: 0>}",
    "{body = \"\", dimensions = array<i64: 0>}",
    "{broadcast_dimensions = array<i64: 0>}",
    "{broadcast_dimensions = array<i64: 1>}",
    "{broadcast_dimensions = array<i64>}",
    "{permutation = array<i64: 1, 0>}",
    "{permutation = array<i64: 0, 0>}",
    "{dimension = 0 : i64}",
    "{dimension = 7 : i64}",
    "{iota_dimension = 0 : i64}",
    "{comparison_direction = #stablehlo<comparison_direction LT>}",
    "{start_indices = array<i64: 0>, limit_indices = array<i64: 2>, strides = array<i64: 1>}",
    "{start_indices = array<i64: 3>, limit_indices = array<i64: 1>, strides = array<i64: 0>}",
    "{value = dense<1.0> : tensor<4xf32>}",
    "{value = dense<[1, 2, 3, 4]> : tensor<4xi32>}",
    "{edge_padding_low = array<i64: 1>, edge_padding_high = array<i64: 1>, interior_padding = array<i64: 0>}",
    "({\n  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n    %s = stablehlo.add %a, %b : tensor<f32>\n"
    "    stablehlo.return %s : tensor<f32>\n  }) {dimensions = array<i64: 0>}",
    "({\n  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n    stablehlo.return %a : tensor<f32>\n  })",
    "{replica_groups = dense<[[0]]> : tensor<1x1xi64>, body = \"stablehlo.add\"}",
    "{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, body = \"stablehlo.add\"}",
    "{call_target_name = \"foo\"}",
    "{dimensions = array<i64: 0>}",
    "{rng_distribution = #stablehlo<rng_distribution UNIFORM>}",
    "{fft_type = #stablehlo<fft_type FFT>, fft_length = array<i64: 4>}",
    "{exponent_bits = 5 : i32, mantissa_bits = 2 : i32}",
    "{}",
    "",
    "{} : () -> ()\n  %x = stablehlo.constant dense<0.0> : tensor<f32>\n  %y = \"stablehlo.add\"(",
    ") : (tensor<4xf32>) -> tensor<4xf32>\n}\nfunc.func @g(",
    "{",
    "}",
    "{body = \"stablehlo.add\"",
    "{a = #stablehlo<",
    "{dimensions = array<i64: 99999999999999999999>}",
};
enum { NATTRS = sizeof attrs / sizeof *attrs };

static const char *const programs[] = {
    "func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {\n"
    "  %0 = stablehlo.add %a, %b : tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n",
    "func.func @main(%a: tensor<f32>) -> (tensor<f32>, tensor<f32>) {\n"
    "  %0 = stablehlo.multiply %a, %a : tensor<f32>\n  return %0, %a : tensor<f32>, tensor<f32>\n}\n",
    "func.func @main() -> tensor<2x3xi32> {\n"
    "  %0 = stablehlo.iota dim = 1 : tensor<2x3xi32>\n  return %0 : tensor<2x3xi32>\n}\n",
    "func.func @main(%a: tensor<f32>) -> tuple<tensor<f32>> {\n"
    "  %0 = stablehlo.tuple %a : tuple<tensor<f32>>\n  return %0 : tuple<tensor<f32>>\n}\n",
    "func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
    "  %0 = stablehlo.divide %a, %a : tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n"
    "func.func @other(%a: tensor<f32>) -> tensor<f32> {\n  return %a : tensor<f32>\n}\n",
    "module {}\n",
    "",
    "func.func @main() -> !stablehlo.token {\n  %0 = stablehlo.after_all : !stablehlo.token\n"
    "  return %0 : !stablehlo.token\n}\n",
    "func.func @main(%a: tensor<16777216xf32>) -> tensor<16777216xf32> {\n  return %a : tensor<16777216xf32>\n}\n",
};
enum { NPROGRAMS = sizeof programs / sizeof *programs };

/* ---- checks ------------------------------------------------------------- */

/* rc must be a documented code, with a message when it is not 0. */
static int verbose = -1;

static int check(int rc, const char *call) {
  if (verbose < 0) verbose = getenv("FUZZ_RUNTIME_VERBOSE") != NULL;
  if (verbose) fprintf(stderr, "%s: %d%s%.200s\n", call, rc, rc ? ": " : "", rc ? tpu_error(client) : "");
  if (rc < 0 || rc > 4) {
    fprintf(stderr, "fuzz_runtime: %s returned %d: %s\n", call, rc, tpu_error(client));
    abort();
  }
  if (rc != 0) {
    const char *e = tpu_error(client);
    if (!e || !*e) {
      fprintf(stderr, "fuzz_runtime: %s returned %d with an empty tpu_error\n", call, rc);
      abort();
    }
  }
  return rc;
}

/* ---- the state of one input ------------------------------------------------ */

enum { NSLOTS = 24, NSTREAMS = 4, NEVENTS = 8, NPROGS = 4 };

typedef struct {
  TpuTensor *t; /* NULL: empty; with handles == 0: released, kept to pass again */
  int handles;
} Slot;

static Slot slots[NSLOTS];
static TpuStream *streams[NSTREAMS];
static TpuEvent *events[NEVENTS];
static TpuProgram *progs[NPROGS];

/* A handle to pass: live, released or NULL. */
static TpuTensor *pick(In *in) {
  unsigned k = u8(in) % (NSLOTS + 1);
  return k == NSLOTS ? NULL : slots[k].t;
}

/* Keeps a new tensor (one handle), or releases it when there is no room. */
static void adopt(TpuTensor *t) {
  if (!t) return;
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < NSLOTS; i++)
      if (pass == 0 ? !slots[i].t : slots[i].handles == 0) {
        slots[i] = (Slot){t, 1};
        return;
      }
  tpu_tensor_release(t);
}

static Slot *slot_of(TpuTensor *t) {
  for (int i = 0; t && i < NSLOTS; i++)
    if (slots[i].t == t && slots[i].handles > 0) return &slots[i];
  return NULL;
}

static TpuStream *pick_stream(In *in) {
  unsigned k = u8(in) % (NSTREAMS + 1);
  return k == NSTREAMS ? NULL : streams[k];
}

static const char *pick_type(In *in, size_t *bytes) {
  unsigned k = u8(in);
  if (k < 200) {
    *bytes = types[k % NTYPES].bytes;
    return types[k % NTYPES].type;
  }
  *bytes = u8(in);
  return k == 255 ? NULL : fuzz_str(in, 40);
}

static const char *pick_attrs(In *in) {
  unsigned k = u8(in);
  if (k < 200) return attrs[k % NATTRS];
  return k == 255 ? NULL : fuzz_str(in, 120);
}

static const char *pick_op(In *in) {
  unsigned k = u8(in);
  if (k < 240) return ops[k % NOPS];
  return k == 255 ? NULL : fuzz_str(in, 40);
}

static uint8_t scratch[1 << 16];

/* tpu_op or tpu_stream_op with decoded arguments. */
static void do_op(In *in, bool on_stream) {
  TpuStream *s = on_stream ? pick_stream(in) : NULL;
  const char *op = pick_op(in);
  const char *at = pick_attrs(in);
  unsigned f = u8(in);
  int nin = f % 5;
  TpuTensor *operands[4];
  for (int i = 0; i < nin; i++) operands[i] = pick(in);
  int nres = (f >> 3) % 4;
  if (f >> 5 == 7) nres = (int)(u8(in) % 70) - 2; /* -2..67 */
  const char *rt[70];
  size_t ignore;
  bool infer = u8(in) & 1;
  for (int i = 0; !infer && i < 70; i++) rt[i] = i < nres ? pick_type(in, &ignore) : NULL;
  TpuTensor *results[70];
  memset(results, 0, sizeof results);
  TpuTensor *const *ops_arg = nin ? operands : (f & 4) ? NULL : operands;
  int rc = on_stream ? tpu_stream_op(s, op, at, ops_arg, nin, infer ? NULL : rt, results, nres)
                     : tpu_op(client, op, at, ops_arg, nin, infer ? NULL : rt, results, nres);
  check(rc, on_stream ? "tpu_stream_op" : "tpu_op");
  for (int i = 0; i < 70; i++) {
    if (rc != 0 && results[i]) {
      fprintf(stderr, "fuzz_runtime: tpu_op failed (%d) but left result %d set\n", rc, i);
      abort();
    }
    if (rc == 0 && i < nres && !results[i]) {
      fprintf(stderr, "fuzz_runtime: tpu_op succeeded without result %d\n", i);
      abort();
    }
    if (rc == 0 && i < nres) adopt(results[i]);
  }
}

static void do_from_host(In *in) {
  size_t bytes;
  const char *type = pick_type(in, &bytes);
  unsigned f = u8(in);
  if (f & 1) bytes = u16(in);
  if (f & 2) bytes ^= 1;
  const void *d = scratch;
  if (bytes > sizeof scratch) d = (f & 4) ? NULL : scratch, bytes = (f & 4) ? bytes : sizeof scratch;
  else if (f & 8) d = NULL;
  size_t fill = bytes < in->n ? bytes : in->n;
  memcpy(scratch, in->p, fill < sizeof scratch ? fill : sizeof scratch);
  TpuTensor *t = NULL;
  int chip = (f >> 4) % 3;
  int rc = (f & 64) ? tpu_tensor_from_host(client, type, d, bytes, &t)
                    : tpu_tensor_from_host_on(client, chip, type, d, bytes, &t);
  check(rc, "tpu_tensor_from_host");
  if ((rc == 0) != (t != NULL)) {
    fprintf(stderr, "fuzz_runtime: tpu_tensor_from_host returned %d with out %p\n", rc, (void *)t);
    abort();
  }
  adopt(t);
}

static void do_to_host(In *in) {
  TpuTensor *t = pick(in);
  unsigned f = u8(in);
  size_t bytes = tpu_tensor_bytes(t);
  if (f & 1) bytes += (f & 2) ? 1 : (size_t)-1;
  void *buf = bytes <= (100u << 20) ? malloc(bytes + 1) : NULL;
  int rc = tpu_tensor_to_host(t, (f & 4) ? NULL : buf, bytes);
  check(rc, "tpu_tensor_to_host");
  free(buf);
}

static void do_program(In *in) {
  unsigned f = u8(in);
  int slot = (int)(f % NPROGS);
  if (f & 4) {
    /* Compile. */
    const char *text;
    size_t len;
    bool fuzzed = f & 8;
    if (fuzzed) {
      size_t n = u16(in) % 2048;
      if (n > in->n) n = in->n;
      char *t = malloc(n + 1);
      if (!t) return;
      memcpy(t, in->p, n);
      t[n] = '\0';
      in->p += n, in->n -= n;
      keep(t);
      text = t, len = n;
    } else {
      text = programs[u8(in) % NPROGRAMS];
      len = strlen(text);
    }
    TpuProgram *p = NULL;
    int rc = check(tpu_program_compile(client, text, len, &p), "tpu_program_compile");
    if ((rc == 0) != (p != NULL)) abort();
    /* A program from fuzz text may loop for ever: it is compiled, run only
     * when it has no loop. */
    if (p && fuzzed && (memmem(text, len, "while", 5) || memmem(text, len, "call", 4))) {
      tpu_program_release(p);
      p = NULL;
    }
    if (progs[slot]) tpu_program_release(progs[slot]);
    progs[slot] = p;
    return;
  }
  if (f & 8) {
    if (progs[slot]) tpu_program_release(progs[slot]), progs[slot] = NULL;
    return;
  }
  /* Run (a NULL program too). */
  TpuProgram *p = progs[slot];
  const char *fn = (f & 16) ? ((f & 32) ? "other" : "nope") : NULL;
  int np = 0, nr = 0;
  int rc = tpu_program_signature(p, fn, &np, &nr);
  check(rc, "tpu_program_signature");
  if (f & 64) np = (int)(u8(in) % 5), nr = (int)(u8(in) % 5);
  if (np > 8 || nr > 8) return;
  TpuTensor *args[8], *res[8];
  for (int i = 0; i < np; i++) args[i] = pick(in);
  memset(res, 0, sizeof res);
  rc = check(tpu_program_run(p, fn, args, np, res, nr), "tpu_program_run");
  for (int i = 0; i < 8; i++) {
    if ((rc != 0 || i >= nr) && res[i]) abort();
    if (rc == 0 && i < nr) adopt(res[i]);
  }
}

static void do_stream(In *in) {
  unsigned f = u8(in);
  int k = (int)((f >> 4) % NSTREAMS);
  switch (f % 8) {
  case 0: {
    if (streams[k]) break;
    int rc = check(tpu_stream_create((f & 8) ? NULL : client, (int)(u8(in) % 3), &streams[k]), "tpu_stream_create");
    if ((rc == 0) != (streams[k] != NULL)) abort();
    break;
  }
  case 1:
    if (streams[k]) tpu_stream_destroy(streams[k]), streams[k] = NULL;
    break;
  case 2:
    check(tpu_stream_sync(pick_stream(in)), "tpu_stream_sync");
    break;
  case 3: {
    int e = (int)(u8(in) % NEVENTS);
    if (events[e]) break;
    int rc = check(tpu_event_record(pick_stream(in), &events[e]), "tpu_event_record");
    if ((rc == 0) != (events[e] != NULL)) abort();
    break;
  }
  case 4:
    check(tpu_stream_wait_event(pick_stream(in), events[u8(in) % NEVENTS]), "tpu_stream_wait_event");
    break;
  case 5:
    check(tpu_event_sync(events[u8(in) % NEVENTS]), "tpu_event_sync");
    break;
  case 6: {
    int q = tpu_event_query(events[u8(in) % NEVENTS]);
    if (q != 0 && q != 1 && q >= 0) abort();
    break;
  }
  case 7: {
    int e = (int)(u8(in) % NEVENTS);
    if (events[e]) tpu_event_release(events[e]), events[e] = NULL;
    break;
  }
  }
}

static void do_handles(In *in) {
  unsigned f = u8(in);
  TpuTensor *t = pick(in);
  Slot *s = slot_of(t);
  switch (f % 6) {
  case 0:
    tpu_tensor_retain(t);
    if (s) s->handles++;
    break;
  case 1:
    tpu_tensor_release(t);
    if (s) s->handles--;
    break;
  case 2: {
    const char *ty = tpu_tensor_type(t);
    if (s && (!ty || !*ty)) abort();
    (void)tpu_tensor_bytes(t);
    int chip = tpu_tensor_chip(t);
    if (s && (chip < 0 || chip > 1)) abort();
    break;
  }
  case 3: {
    TpuTensor *out = NULL;
    int rc = check(tpu_tensor_to_chip(t, (int)(u8(in) % 4) - 1, &out), "tpu_tensor_to_chip");
    if ((rc == 0) != (out != NULL)) abort();
    adopt(out);
    break;
  }
  case 4: {
    char buf[64];
    int n = tpu_metrics_json(client, (f & 8) ? buf : NULL, (f & 8) ? (f & 16 ? sizeof buf : 1) : 0);
    if (n <= 0) abort();
    break;
  }
  case 5:
    check(tpu_client_set_mode(client, (TpuEagerMode)(u8(in) % 4)), "tpu_client_set_mode");
    break;
  }
}

static void setup(void) {
  TpuClientOptions o;
  memset(&o, 0, sizeof o);
  o.struct_size = sizeof o;
  o.chips = 2;
  o.mode = TPU_EAGER_STRICT;
  o.threads = 1;
  o.no_disk_cache = 1;
  o.fused_max_ops = 6;
  o.hbm_bytes = 64u << 20;
  if (tpu_client_create(&o, &client) != 0) {
    fprintf(stderr, "fuzz_runtime: tpu_client_create: %s\n", tpu_error(NULL));
    abort();
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!client) setup();
  In in = {data, size};
  check(tpu_client_set_mode(client, (TpuEagerMode)(u8(&in) % 3)), "tpu_client_set_mode");
  for (int step = 0; step < 64 && in.n; step++) {
    switch (u8(&in) % 12) {
    case 0: case 1: do_from_host(&in); break;
    case 2: case 3: case 4: do_op(&in, false); break;
    case 5: do_op(&in, true); break;
    case 6: check(tpu_sync(u8(&in) == 255 ? NULL : client), "tpu_sync"); break;
    case 7: do_to_host(&in); break;
    case 8: do_stream(&in); break;
    case 9: case 10: do_handles(&in); break;
    case 11: do_program(&in); break;
    }
  }
  /* Every handle of the input released; errors left on the streams
   * reported and cleared. */
  for (int i = 0; i < NEVENTS; i++)
    if (events[i]) tpu_event_release(events[i]), events[i] = NULL;
  for (int i = 0; i < NSTREAMS; i++)
    if (streams[i]) tpu_stream_destroy(streams[i]), streams[i] = NULL;
  for (int i = 0; i < NPROGS; i++)
    if (progs[i]) tpu_program_release(progs[i]), progs[i] = NULL;
  for (int i = 0; i < NSLOTS; i++) {
    while (slots[i].handles-- > 0) tpu_tensor_release(slots[i].t);
    slots[i] = (Slot){NULL, 0};
  }
  check(tpu_sync(client), "tpu_sync");
  tpu_sync(client);
  for (int i = 0; i < nstrs; i++) free(strs[i]);
  nstrs = 0;
  return 0;
}
