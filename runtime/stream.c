/* Streams: in-order queues of work, each drained by its own host thread
 * (TorchTPU's multi-queue); events between them; tpu_op in the Strict and
 * Debug modes (docs/runtime.md). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/runtime.h"
#include "vm/chips/timeline.h"
#include "vm/dtype.h"

RtWork *rt_work_new(RtWorkKind kind, int nin, int nout) {
  RtWork *w = calloc(1, sizeof *w + sizeof(TpuTensor *) * (size_t)(nin + nout));
  if (!w) return NULL;
  w->kind = kind;
  w->nin = nin;
  w->nout = nout;
  w->in = (TpuTensor **)(w + 1);
  w->out = w->in + nin;
  return w;
}

void rt_work_free(RtWork *w) {
  for (int i = 0; i < w->nin; i++)
    if (w->in[i]) rt_tensor_unref_internal(w->in[i]);
  for (int i = 0; i < w->nout; i++)
    if (w->out[i]) rt_tensor_unref_internal(w->out[i]);
  if (w->event && atomic_fetch_sub(&w->event->refs, 1) == 1) free(w->event);
  free(w);
}

/* Marks every result of w failed with the message; records it on s as
 * the stream's first error unless the caller reports it itself. */
static void fail_work(TpuStream *s, RtWork *w, int code, const char *msg) {
  for (int i = 0; i < w->nout; i++) rt_tensor_fail(w->out[i], code, msg);
  if (w->reported) return;
  pthread_mutex_lock(&s->lock);
  if (!s->err_code) {
    s->err_code = code;
    s->err_msg = strdup(msg);
  }
  pthread_mutex_unlock(&s->lock);
}

/* Waits for w's operands; false (w failed) when one of them failed. */
static bool wait_operands(TpuStream *s, RtWork *w) {
  for (int i = 0; i < w->nin; i++) {
    TpuTensor *t = w->in[i];
    if (atomic_load(&t->state) == RT_PENDING && rt_tensor_wait(t, "host_read") && atomic_load(&t->state) == RT_PENDING) {
      /* Its graph could not be queued (out of memory): no data to run on. */
      fail_work(s, w, rt_last_code(), rt_last_error());
      return false;
    }
    if (atomic_load(&t->state) == RT_FAILED) {
      fail_work(s, w, t->err_code, t->err_msg ? t->err_msg : "an operand failed");
      return false;
    }
  }
  return true;
}

/* Runs an executable on w's operands into its results. */
static void run_exe(TpuClient *c, TpuStream *s, RtWork *w) {
  VmExec *x = rt_exe_take(c, w->exe);
  VmValue argv[32], resv[16];
  VmValue *args = w->nin <= 32 ? argv : calloc((size_t)w->nin, sizeof *args);
  VmValue *res = w->nout <= 16 ? resv : calloc((size_t)w->nout, sizeof *res);
  if (!x || !args || !res) {
    fail_work(s, w, TPU_ERR_RUNTIME, "out of host memory");
  } else {
    for (int i = 0; i < w->nin; i++) args[i] = (VmValue){.type = &w->in[i]->type->vm, .data = w->in[i]->data};
    int st = vm_run(x, w->exe->fn, args, w->nin, res);
    if (st == VM_OK) {
      rt_count_modeled(c, vm_exec_timeline(x)->clock_s);
      for (int i = 0; i < w->nout; i++) rt_tensor_ready(w->out[i], res[i].data);
    } else {
      char msg[2048];
      snprintf(msg, sizeof msg, "op #%" PRIu64 " '%s' failed: %s", w->op_index, w->op_name, vm_error(x));
      fail_work(s, w, TPU_ERR_RUNTIME, msg);
    }
  }
  if (x) rt_exe_give(w->exe, x);
  if (args != argv) free(args);
  if (res != resv) free(res);
}

void rt_work_run(TpuClient *c, TpuStream *s, RtWork *w) {
  switch (w->kind) {
  case RT_WORK_EXE:
    if (wait_operands(s, w)) run_exe(c, s, w);
    break;
  case RT_WORK_COPY:
    if (wait_operands(s, w)) {
      size_t n = (size_t)w->in[0]->type->vm.nbytes;
      void *d = malloc(n ? n : 1);
      if (!d) fail_work(s, w, TPU_ERR_RUNTIME, "out of host memory");
      else rt_tensor_ready(w->out[0], n ? memcpy(d, w->in[0]->data, n) : d);
    }
    break;
  case RT_WORK_EVENT:
    atomic_store(&w->event->done, 1);
    pthread_mutex_lock(&c->lock);
    if (c->waiters) pthread_cond_broadcast(&c->changed);
    pthread_mutex_unlock(&c->lock);
    break;
  case RT_WORK_WAIT:
    pthread_mutex_lock(&c->lock);
    c->waiters++;
    while (!atomic_load(&w->event->done)) pthread_cond_wait(&c->changed, &c->lock);
    c->waiters--;
    pthread_mutex_unlock(&c->lock);
    break;
  }
}

/* Runs and frees w, queued on s, with s->lock released meanwhile (the
 * caller holds it); counts it done and wakes tpu_stream_sync at idle. */
static void run_locked(TpuStream *s, RtWork *w) {
  pthread_mutex_unlock(&s->lock);
  rt_work_run(s->client, s, w);
  rt_work_free(w);
  pthread_mutex_lock(&s->lock);
  s->done++;
  if (s->done == s->queued) pthread_cond_broadcast(&s->idle);
}

/* The worker of a stream: runs its queue in order until told to stop. */
static void *worker(void *arg) {
  TpuStream *s = arg;
  pthread_mutex_lock(&s->lock);
  for (;;) {
    while (!s->head && !s->stopping) pthread_cond_wait(&s->wake, &s->lock);
    if (!s->head) break;
    RtWork *w = s->head;
    s->head = w->next;
    if (!s->head) s->tail = NULL;
    run_locked(s, w);
  }
  pthread_mutex_unlock(&s->lock);
  return NULL;
}

TpuStream *rt_stream_new(TpuClient *c, int chip, bool is_default) {
  TpuStream *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->client = c;
  s->chip = chip;
  s->is_default = is_default;
  pthread_mutex_init(&s->lock, NULL);
  pthread_cond_init(&s->wake, NULL);
  pthread_cond_init(&s->idle, NULL);
  pthread_mutex_init(&s->graph_lock, NULL);
  pthread_mutex_lock(&c->lock);
  s->next = c->streams;
  c->streams = s;
  pthread_mutex_unlock(&c->lock);
  return s;
}

/* Ends s's worker (its queue drained). */
static void stop_worker(TpuStream *s) {
  pthread_mutex_lock(&s->lock);
  s->stopping = true;
  pthread_cond_signal(&s->wake);
  bool started = s->started;
  s->started = false;
  pthread_mutex_unlock(&s->lock);
  if (started) pthread_join(s->thread, NULL);
}

void rt_stream_free(TpuStream *s) {
  stop_worker(s);
  if (s->graph) rt_graph_free(s->graph);
  free(s->err_msg);
  pthread_mutex_destroy(&s->lock);
  pthread_cond_destroy(&s->wake);
  pthread_cond_destroy(&s->idle);
  pthread_mutex_destroy(&s->graph_lock);
  free(s);
}

void rt_stream_retire(TpuClient *c, TpuStream *s) {
  atomic_store(&s->retired, true);
  pthread_mutex_lock(&c->lock);
  for (TpuStream **p = &c->streams; *p; p = &(*p)->next)
    if (*p == s) {
      *p = s->next;
      break;
    }
  pthread_mutex_unlock(&c->lock);
  stop_worker(s);
  pthread_mutex_lock(&c->lock);
  s->next = c->retired;
  c->retired = s;
  pthread_mutex_unlock(&c->lock);
}

void rt_stream_push(TpuStream *s, RtWork *w) {
  pthread_mutex_lock(&s->lock);
  if (!s->started) {
    s->started = pthread_create(&s->thread, NULL, worker, s) == 0;
    if (!s->started) {
      /* No thread: run it here, in order (nothing else is queued). */
      s->queued++;
      run_locked(s, w);
      pthread_mutex_unlock(&s->lock);
      return;
    }
  }
  if (s->tail) s->tail->next = w;
  else s->head = w;
  s->tail = w;
  s->queued++;
  pthread_cond_signal(&s->wake);
  pthread_mutex_unlock(&s->lock);
}

int rt_stream_sync(TpuStream *s) {
  pthread_mutex_lock(&s->lock);
  while (s->done != s->queued) pthread_cond_wait(&s->idle, &s->lock);
  int code = s->err_code;
  char *msg = s->err_msg;
  s->err_code = 0;
  s->err_msg = NULL;
  pthread_mutex_unlock(&s->lock);
  if (code) rt_fail(code, "%s", msg);
  free(msg);
  return code;
}

/* ---- NaN/Inf check of Debug mode ---------------------------------------- */

/* The first element of a float or complex tensor that is NaN (nan) or
 * infinite (!nan), or -1. */
static int64_t first_non_finite(const TpuTensor *t, bool nan) {
  const VmType *vt = &t->type->vm;
  int elem = vt->elem, cls = vm_elem_class(elem);
  if (cls != TPUB_CLASS_FLOAT && cls != TPUB_CLASS_COMPLEX) return -1;
  int64_t n = cls == TPUB_CLASS_COMPLEX ? 2 * vt->count : vt->count;
  int part = cls == TPUB_CLASS_COMPLEX ? vm_elem_complex_part(elem) : elem;
  for (int64_t i = 0; i < n; i++) {
    double v = part == TPUB_F32 ? ((const float *)t->data)[i] : vm_load_f64(part, t->data, i);
    if (nan ? isnan(v) : isinf(v)) return cls == TPUB_CLASS_COMPLEX ? i / 2 : i;
  }
  return -1;
}

/* Debug mode: waits for the op's results and checks them: a NaN or an
 * infinity the op made (none of its operands held one of that kind) is an
 * error; one it passed on was reported where it was made.  So a mask
 * written with -inf, an operand, is no error, and neither is a constant
 * that writes one (a max-reduction's -inf start): the program chose it. */
static int debug_check(TpuClient *c, uint64_t op_index, const char *op, TpuTensor *const *operands, int nin,
                       TpuTensor **results, int nres) {
  for (int i = 0; i < nres; i++) {
    int rc = rt_tensor_wait(results[i], "host_read");
    if (rc) return rc;
  }
  bool literal = strcmp(op, "stablehlo.constant") == 0;
  for (int i = 0; c->nan_check && !literal && i < nres; i++) {
    atomic_fetch_add(&c->m.nan_checks, 1);
    for (int nan = 1; nan >= 0; nan--) {
      int64_t at = first_non_finite(results[i], nan);
      bool inherited = false;
      for (int k = 0; at >= 0 && k < nin && !inherited; k++) inherited = first_non_finite(operands[k], nan) >= 0;
      if (at >= 0 && !inherited)
        return rt_fail(TPU_ERR_RUNTIME,
                       "op #%" PRIu64 " '%s': result %d (%s) holds %s at element %" PRId64
                       ", and no operand held one (Debug mode checks every result; options.no_nan_check switches it off)",
                       op_index, op, i, results[i]->type->str, nan ? "a NaN" : "an infinity", at);
    }
  }
  return TPU_OK;
}

/* ---- tpu_op -------------------------------------------------------------- */

/* Creates the results of sig on chip; false after rt_fail (none kept). */
static bool new_results(TpuClient *c, int chip, const RtSig *sig, uint64_t op_index, TpuTensor **results) {
  for (int i = 0; i < sig->nres; i++) {
    results[i] = rt_tensor_new(c, chip, sig->res[i], op_index, sig->op);
    if (!results[i]) {
      while (i-- > 0) tpu_tensor_release(results[i]), results[i] = NULL;
      return false;
    }
  }
  return true;
}

/* Checks tpu_op's arguments; the chip the operands live on, -2 when
 * there are none, or -1 after rt_fail. */
static int check_op_args(TpuClient *c, const char *op, TpuTensor *const *operands, int n_operands,
                         TpuTensor **results, int n_results) {
  if (!op) return rt_fail(-1, "tpu_op: op is NULL");
  if (n_operands < 0 || n_operands > 4096) return rt_fail(-1, "tpu_op: n_operands %d is not in 0..4096", n_operands);
  if (n_results < 0 || n_results > 64) return rt_fail(-1, "tpu_op: n_results %d is not in 0..64", n_results);
  if (n_operands && !operands) return rt_fail(-1, "tpu_op: operands is NULL");
  if (n_results && !results) return rt_fail(-1, "tpu_op: results is NULL");
  int chip = -1;
  for (int i = 0; i < n_operands; i++) {
    const TpuTensor *t = operands[i];
    if (!(t && t->magic == RT_TENSOR_LIVE && t->client == c && atomic_load(&((TpuTensor *)t)->refs) > 0)) {
      char what[64]; /* formatted only for the message */
      snprintf(what, sizeof what, "tpu_op '%.20s': operand %d", op, i);
      if (!rt_tensor_valid(c, t, what)) return -1;
    }
    if (chip >= 0 && operands[i]->chip != chip)
      return rt_fail(-1, "tpu_op '%s': operand %d is on chip %d, operand 0 on chip %d; copy it with tpu_tensor_to_chip", op,
                     i, operands[i]->chip, chip);
    chip = operands[i]->chip;
  }
  return n_operands ? chip : -2;
}

/* An operand still deferred in a Fused graph (the mode changed since) has
 * its graph queued now, on this thread: a worker that waited for it would
 * wait for work queued behind itself. */
static int flush_deferred_operands(TpuClient *c, TpuTensor *const *operands, int n) {
  bool deferred = false;
  pthread_mutex_lock(&c->lock);
  for (int i = 0; i < n && !deferred; i++) deferred = operands[i]->graph != NULL;
  pthread_mutex_unlock(&c->lock);
  return deferred ? rt_flush_all(c, "mode_switch") : TPU_OK;
}

/* tpu_op on stream s, its arguments checked (check_op_args) by the caller. */
static int run_op(TpuStream *s, const char *op, const char *attrs, TpuTensor *const *operands, int n_operands,
                  const char *const *result_types, TpuTensor **results, int n_results) {
  TpuClient *c = s->client;
  uint64_t op_index = atomic_fetch_add(&c->next_op, 1) + 1;
  const RtType *inv[64];
  const RtType **in = n_operands <= 64 ? inv : malloc(sizeof *in * (size_t)n_operands);
  if (!in) return rt_fail(TPU_ERR_RUNTIME, "out of host memory");
  for (int i = 0; i < n_operands; i++) in[i] = operands[i]->type;
  RtSig *sig = NULL;
  int rc = rt_sig_get(c, op, attrs ? attrs : "", in, n_operands, result_types, n_results, op_index, &sig);
  if (in != inv) free(in);
  if (rc) return rc;
  TpuEagerMode mode = (TpuEagerMode)atomic_load(&c->mode);
  atomic_fetch_add(&c->m.ops[mode], 1);
  if (mode == TPU_EAGER_FUSED) return rt_graph_add(s, sig, op_index, operands, results);
  RtExe *exe = rt_sig_exe(c, sig, op_index);
  if (!exe) return rt_last_code(); /* rejected, out of memory, or a bytecode bug */
  if ((rc = flush_deferred_operands(c, operands, n_operands))) return rc;
  RtWork *w = rt_work_new(RT_WORK_EXE, n_operands, n_results);
  if (!w) return rt_fail(TPU_ERR_RUNTIME, "out of host memory");
  if (!new_results(c, s->chip, sig, op_index, results)) {
    rt_work_free(w);
    return TPU_ERR_RUNTIME;
  }
  w->exe = exe;
  w->op_index = op_index;
  w->op_name = sig->op;
  w->reported = mode == TPU_EAGER_DEBUG;
  for (int i = 0; i < n_operands; i++) rt_tensor_ref_internal(w->in[i] = operands[i]);
  for (int i = 0; i < n_results; i++) rt_tensor_ref_internal(w->out[i] = results[i]);
  rt_stream_push(s, w);
  if (mode != TPU_EAGER_DEBUG) return TPU_OK;
  rc = debug_check(c, op_index, sig->op, operands, n_operands, results, n_results);
  if (rc)
    for (int i = 0; i < n_results; i++) tpu_tensor_release(results[i]), results[i] = NULL;
  return rc;
}

TPU_API int tpu_op(TpuClient *c, const char *op, const char *attrs, TpuTensor *const *operands, int n_operands,
                   const char *const *result_types, TpuTensor **results, int n_results) {
  if (!c) return rt_fail(TPU_ERR_USAGE, "tpu_op: client is NULL");
  for (int i = 0; results && i < n_results && i <= 64; i++) results[i] = NULL;
  int chip = check_op_args(c, op, operands, n_operands, results, n_results);
  if (chip == -1) return TPU_ERR_USAGE;
  TpuStream *s = rt_default_stream(c, chip < 0 ? 0 : chip);
  if (!s) return rt_fail(TPU_ERR_RUNTIME, "out of host memory");
  return run_op(s, op, attrs, operands, n_operands, result_types, results, n_results);
}

/* ---- the stream API --------------------------------------------------------- */

/* Checks a stream handle; false after rt_fail. */
static bool stream_valid(const TpuStream *s, const char *fn) {
  if (!s) return rt_fail(TPU_ERR_USAGE, "%s: stream is NULL", fn), false;
  if (atomic_load(&((TpuStream *)s)->retired)) return rt_fail(TPU_ERR_USAGE, "%s: the stream was destroyed", fn), false;
  return true;
}

TPU_API int tpu_stream_create(TpuClient *c, int chip, TpuStream **out) {
  if (!out) return rt_fail(TPU_ERR_USAGE, "tpu_stream_create: out is NULL");
  *out = NULL;
  if (!c) return rt_fail(TPU_ERR_USAGE, "tpu_stream_create: client is NULL");
  if (chip < 0 || chip >= c->nchips)
    return rt_fail(TPU_ERR_USAGE, "tpu_stream_create: chip %d is not one of the client's %d chips", chip, c->nchips);
  if (!(*out = rt_stream_new(c, chip, false))) return rt_fail(TPU_ERR_RUNTIME, "out of host memory");
  return TPU_OK;
}

TPU_API void tpu_stream_destroy(TpuStream *s) {
  if (!stream_valid(s, "tpu_stream_destroy") || s->is_default) return;
  TpuClient *c = s->client;
  rt_graph_flush(s, "sync");
  rt_stream_sync(s);
  rt_stream_retire(c, s);
}

TPU_API int tpu_stream_op(TpuStream *s, const char *op, const char *attrs, TpuTensor *const *operands,
                          int n_operands, const char *const *result_types, TpuTensor **results, int n_results) {
  if (!stream_valid(s, "tpu_stream_op")) return TPU_ERR_USAGE;
  for (int i = 0; results && i < n_results && i <= 64; i++) results[i] = NULL;
  int chip = check_op_args(s->client, op, operands, n_operands, results, n_results);
  if (chip == -1) return TPU_ERR_USAGE;
  if (chip >= 0 && chip != s->chip)
    return rt_fail(TPU_ERR_USAGE, "tpu_op '%s': the operands are on chip %d, the stream on chip %d", op, chip, s->chip);
  return run_op(s, op, attrs, operands, n_operands, result_types, results, n_results);
}

TPU_API int tpu_stream_sync(TpuStream *s) {
  if (!stream_valid(s, "tpu_stream_sync")) return TPU_ERR_USAGE;
  int rc = rt_graph_flush(s, "sync");
  int rc2 = rt_stream_sync(s);
  return rc ? rc : rc2;
}

TPU_API int tpu_event_record(TpuStream *s, TpuEvent **out) {
  if (!out) return rt_fail(TPU_ERR_USAGE, "tpu_event_record: out is NULL");
  *out = NULL;
  if (!stream_valid(s, "tpu_event_record")) return TPU_ERR_USAGE;
  int rc = rt_graph_flush(s, "sync");
  if (rc) return rc;
  TpuEvent *e = calloc(1, sizeof *e);
  RtWork *w = rt_work_new(RT_WORK_EVENT, 0, 0);
  if (!e || !w) {
    free(e), free(w);
    return rt_fail(TPU_ERR_RUNTIME, "out of host memory");
  }
  e->client = s->client;
  e->stream = s;
  atomic_init(&e->refs, 2); /* the caller's and the queued item's */
  w->event = e;
  rt_stream_push(s, w);
  *out = e;
  return TPU_OK;
}

TPU_API int tpu_stream_wait_event(TpuStream *s, TpuEvent *e) {
  if (!stream_valid(s, "tpu_stream_wait_event")) return TPU_ERR_USAGE;
  if (!e) return rt_fail(TPU_ERR_USAGE, "tpu_stream_wait_event: event is NULL");
  if (e->client != s->client) return rt_fail(TPU_ERR_USAGE, "tpu_stream_wait_event: the event is of another client");
  int rc = rt_graph_flush(s, "sync");
  if (rc) return rc;
  RtWork *w = rt_work_new(RT_WORK_WAIT, 0, 0);
  if (!w) return rt_fail(TPU_ERR_RUNTIME, "out of host memory");
  atomic_fetch_add(&e->refs, 1);
  w->event = e;
  rt_stream_push(s, w);
  return TPU_OK;
}

TPU_API int tpu_event_sync(TpuEvent *e) {
  if (!e) return rt_fail(TPU_ERR_USAGE, "tpu_event_sync: event is NULL");
  TpuClient *c = e->client;
  pthread_mutex_lock(&c->lock);
  c->waiters++;
  while (!atomic_load(&e->done)) pthread_cond_wait(&c->changed, &c->lock);
  c->waiters--;
  /* The stream's error, if the stream still exists (tpu_stream_destroy
   * unlinks it under c->lock before freeing it). */
  TpuStream *s = c->streams;
  while (s && s != e->stream) s = s->next;
  int code = 0;
  char *msg = NULL;
  if (s) {
    pthread_mutex_lock(&s->lock);
    code = s->err_code;
    msg = s->err_msg;
    s->err_code = 0;
    s->err_msg = NULL;
    pthread_mutex_unlock(&s->lock);
  }
  pthread_mutex_unlock(&c->lock);
  if (code) rt_fail(code, "%s", msg);
  free(msg);
  return code;
}

TPU_API int tpu_event_query(const TpuEvent *e) {
  if (!e) return rt_fail(-TPU_ERR_USAGE, "tpu_event_query: event is NULL");
  return atomic_load(&((TpuEvent *)e)->done) ? 1 : 0;
}

TPU_API void tpu_event_release(TpuEvent *e) {
  if (e && atomic_fetch_sub(&e->refs, 1) == 1) free(e);
}
