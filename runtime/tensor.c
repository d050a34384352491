/* Interned tensor types and the tensors of a client: their lifetime,
 * readiness, HBM accounting per chip, and the host copies of the API. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/runtime.h"

/* ---- types ------------------------------------------------------------- */

enum { RT_MAX_RANK = 64 };

static const char *const elem_names[TPUB_ELEM_COUNT] = {
#define X(id, name, bits, bytes, cls) [TPUB_##id] = name,
    TPUB_ELEMS(X)
#undef X
};

/* The element type spelled at s (the longest name that matches); -1. */
static int elem_at(const char *s, size_t *len) {
  int best = -1;
  size_t best_len = 0;
  for (int e = 0; e < TPUB_ELEM_COUNT; e++) {
    size_t n = strlen(elem_names[e]);
    if (n > best_len && strncmp(s, elem_names[e], n) == 0) best = e, best_len = n;
  }
  *len = best_len;
  return best;
}

/* Parses "2x3xf32" (the body of tensor<...>, up to end) into dims and the
 * element type; false with a reason. */
static bool parse_type_body(const char *s, const char *end, int64_t *dims, int *rank, int *elem, char *why,
                            size_t whylen) {
  *rank = 0;
  while (s < end && *s >= '0' && *s <= '9') {
    char *e;
    unsigned long long v = strtoull(s, &e, 10);
    if (e >= end || *e != 'x' || v > (1ull << 40)) {
      snprintf(why, whylen, v > (1ull << 40) ? "dimension %llu is too large" : "expected 'x' after a dimension", v);
      return false;
    }
    if (*rank == RT_MAX_RANK) {
      snprintf(why, whylen, "more than %d dimensions", RT_MAX_RANK);
      return false;
    }
    dims[(*rank)++] = (int64_t)v;
    s = e + 1;
  }
  size_t n;
  *elem = elem_at(s, &n);
  if (*elem < 0 || s + n != end) {
    snprintf(why, whylen, "'%.*s' is not an element type (i1..i64, ui8..ui64, bf16, f16, f32, f64, complex<f32>, ...)",
             (int)(end - s), s);
    return false;
  }
  return true;
}

/* Interns the type of elem and dims (caller holds c->lock). */
static const RtType *intern_locked(TpuClient *c, int elem, const int64_t *dims, int rank) {
  char buf[RT_MAX_RANK * 21 + 32];
  size_t n = 0;
  for (int i = 0; i < rank; i++) n += (size_t)snprintf(buf + n, sizeof buf - n, "%" PRId64 "x", dims[i]);
  snprintf(buf + n, sizeof buf - n, "%s", elem_names[elem]);
  void **found = table_get(&c->types, buf, strlen(buf));
  if (found) return *found;
  RtType *t = calloc(1, sizeof *t);
  int64_t count = 1;
  for (int i = 0; i < rank; i++) count = count && dims[i] ? (count > INT64_MAX / dims[i] ? -1 : count * dims[i]) : 0;
  if (!t || count < 0 || count > (INT64_C(1) << 50) / vm_elem_bytes(elem)) {
    free(t);
    return NULL;
  }
  t->dims = malloc(sizeof(int64_t) * ((size_t)rank + 1));
  t->str = strdup(buf);
  t->mlir = malloc(strlen(buf) + 9);
  if (!t->dims || !t->str || !t->mlir) {
    free(t->dims), free(t->str), free(t->mlir), free(t);
    return NULL;
  }
  sprintf(t->mlir, "tensor<%s>", buf);
  memcpy(t->dims, dims, sizeof(int64_t) * (size_t)rank);
  t->vm = (VmType){.kind = TPUB_TY_TENSOR, .elem = (uint8_t)elem, .rank = rank, .dims = t->dims, .count = count,
                   .nbytes = count * vm_elem_bytes(elem)};
  *table_put(&c->types, t->str, strlen(t->str)) = t;
  return t;
}

const RtType *rt_type_intern(TpuClient *c, const char *spelling) {
  if (!spelling) {
    rt_fail(TPU_ERR_USAGE, "type is NULL");
    return NULL;
  }
  const char *s = spelling, *end = s + strlen(s);
  if (strncmp(s, "tensor<", 7) == 0 && end > s + 7 && end[-1] == '>') s += 7, end--;
  int64_t dims[RT_MAX_RANK];
  int rank, elem;
  char why[256];
  if (!parse_type_body(s, end, dims, &rank, &elem, why, sizeof why)) {
    rt_fail(TPU_ERR_USAGE, "'%s' is not a tensor type like \"2x3xf32\": %s", spelling, why);
    return NULL;
  }
  pthread_mutex_lock(&c->lock);
  const RtType *t = intern_locked(c, elem, dims, rank);
  pthread_mutex_unlock(&c->lock);
  if (!t) rt_fail(TPU_ERR_USAGE, "type '%s' is too large (at most 2^50 bytes)", spelling);
  return t;
}

const RtType *rt_type_of_vm(TpuClient *c, const VmType *vt) {
  if (vt->kind != TPUB_TY_TENSOR || vt->rank > RT_MAX_RANK) {
    rt_fail(TPU_ERR_USAGE, "a tuple or token value cannot be a tensor of the eager API");
    return NULL;
  }
  pthread_mutex_lock(&c->lock);
  const RtType *t = intern_locked(c, vt->elem, vt->dims, vt->rank);
  pthread_mutex_unlock(&c->lock);
  if (!t) rt_fail(TPU_ERR_RUNTIME, "out of host memory");
  return t;
}

/* ---- tensors ------------------------------------------------------------ */

/* A human size: "12 bytes", "4.0 MiB". */
static void human_bytes(uint64_t n, char *buf, size_t len) {
  if (n < 10240) snprintf(buf, len, "%" PRIu64 " bytes", n);
  else if (n < (10ull << 20)) snprintf(buf, len, "%.1f KiB", (double)n / 1024);
  else if (n < (10ull << 30)) snprintf(buf, len, "%.1f MiB", (double)n / (1 << 20));
  else snprintf(buf, len, "%.1f GiB", (double)n / (1 << 30));
}

/* The out-of-memory message naming the largest live tensors of chip
 * (caller holds c->lock). */
static int oom_locked(TpuClient *c, int chip, const RtType *t, uint64_t op_index, const char *op_name) {
  char msg[3072], need[32], held[32], cap[32];
  human_bytes((uint64_t)t->vm.nbytes, need, sizeof need);
  human_bytes(c->chip_bytes[chip], held, sizeof held);
  human_bytes(c->hbm_bytes, cap, sizeof cap);
  int nlive = 0;
  for (TpuTensor *l = c->live[chip]; l; l = l->live_next) nlive++;
  char who[160] = "the host";
  if (op_index) snprintf(who, sizeof who, "op #%" PRIu64 " '%s'", op_index, op_name);
  size_t n = (size_t)snprintf(msg, sizeof msg, "out of memory on chip %d: %s needs %s for a %s tensor; %s of %s are held by %d live tensors",
                              chip, who, need, t->str, held, cap, nlive);
  /* The largest ones, up to eight, by repeated selection below the last. */
  uint64_t below = UINT64_MAX;
  for (int k = 0; k < 8 && n < sizeof msg - 200; k++) {
    TpuTensor *best = NULL;
    for (TpuTensor *l = c->live[chip]; l; l = l->live_next)
      if ((uint64_t)l->type->vm.nbytes < below && (!best || l->type->vm.nbytes > best->type->vm.nbytes)) best = l;
    if (!best) break;
    char sz[32];
    human_bytes((uint64_t)best->type->vm.nbytes, sz, sizeof sz);
    if (best->op_index)
      n += (size_t)snprintf(msg + n, sizeof msg - n, "%s tensor #%" PRIu64 " (%s, %s, from op #%" PRIu64 " '%s')",
                            k ? "," : ":", best->id, best->type->str, sz, best->op_index, best->op_name);
    else
      n += (size_t)snprintf(msg + n, sizeof msg - n, "%s tensor #%" PRIu64 " (%s, %s, from the host)", k ? "," : ":",
                            best->id, best->type->str, sz);
    below = (uint64_t)best->type->vm.nbytes;
  }
  return rt_fail(TPU_ERR_RUNTIME, "%s", msg);
}

/* A tensor record: from the quarantine FIFO once it is long enough, else
 * new (caller holds c->lock). */
static TpuTensor *record_locked(TpuClient *c) {
  TpuTensor *t = NULL;
  if (c->nfree > RT_TENSOR_QUARANTINE) {
    t = c->free_head;
    c->free_head = t->live_next;
    if (!c->free_head) c->free_tail = NULL;
    c->nfree--;
  } else {
    t = malloc(sizeof *t);
  }
  if (t) memset(t, 0, sizeof *t);
  return t;
}

TpuTensor *rt_tensor_new(TpuClient *c, int chip, const RtType *type, uint64_t op_index, const char *op_name) {
  pthread_mutex_lock(&c->lock);
  if (c->chip_bytes[chip] + (uint64_t)type->vm.nbytes > c->hbm_bytes) {
    oom_locked(c, chip, type, op_index, op_name);
    pthread_mutex_unlock(&c->lock);
    return NULL;
  }
  TpuTensor *t = record_locked(c);
  if (!t) {
    pthread_mutex_unlock(&c->lock);
    rt_fail(TPU_ERR_RUNTIME, "out of host memory");
    return NULL;
  }
  t->magic = RT_TENSOR_LIVE;
  t->client = c;
  atomic_init(&t->refs, 1);
  atomic_init(&t->total, 1);
  atomic_init(&t->state, RT_PENDING);
  t->chip = chip;
  t->type = type;
  t->id = ++c->next_tensor;
  t->op_index = op_index;
  t->op_name = op_name;
  t->node = -1;
  c->chip_bytes[chip] += (uint64_t)type->vm.nbytes;
  t->live_next = c->live[chip];
  if (t->live_next) t->live_next->live_prev = t;
  c->live[chip] = t;
  pthread_mutex_unlock(&c->lock);
  return t;
}

/* Wakes the threads waiting for a tensor to leave PENDING. */
static void notify(TpuClient *c) {
  pthread_mutex_lock(&c->lock);
  if (c->waiters) pthread_cond_broadcast(&c->changed);
  pthread_mutex_unlock(&c->lock);
}

void rt_tensor_ready(TpuTensor *t, void *data) {
  t->data = data;
  atomic_store(&t->state, RT_READY);
  notify(t->client);
}

void rt_tensor_fail(TpuTensor *t, int code, const char *msg) {
  t->err_code = code;
  t->err_msg = strdup(msg);
  atomic_store(&t->state, RT_FAILED);
  notify(t->client);
}

int rt_tensor_wait(TpuTensor *t, const char *reason) {
  TpuClient *c = t->client;
  if (atomic_load(&t->state) == RT_PENDING) {
    pthread_mutex_lock(&c->lock);
    TpuStream *s = t->graph ? rt_graph_stream(t->graph) : NULL;
    pthread_mutex_unlock(&c->lock);
    if (s) {
      /* Only t's stream: the graphs of others keep growing.  A failure
       * that left t deferred ends the wait here (t's own graph failing
       * marks t FAILED, reported below). */
      int rc = rt_graph_flush(s, reason);
      pthread_mutex_lock(&c->lock);
      bool deferred = t->graph != NULL;
      pthread_mutex_unlock(&c->lock);
      if (rc && deferred) return rc;
    }
    pthread_mutex_lock(&c->lock);
    c->waiters++;
    while (atomic_load(&t->state) == RT_PENDING) pthread_cond_wait(&c->changed, &c->lock);
    c->waiters--;
    pthread_mutex_unlock(&c->lock);
  }
  if (atomic_load(&t->state) == RT_FAILED) return rt_fail(t->err_code, "%s", t->err_msg ? t->err_msg : "failed");
  return TPU_OK;
}

/* Frees t's data and puts its record in the quarantine FIFO. */
static void destroy(TpuTensor *t) {
  TpuClient *c = t->client;
  free(t->data);
  free(t->err_msg);
  pthread_mutex_lock(&c->lock);
  c->chip_bytes[t->chip] -= (uint64_t)t->type->vm.nbytes;
  if (t->live_prev) t->live_prev->live_next = t->live_next;
  else c->live[t->chip] = t->live_next;
  if (t->live_next) t->live_next->live_prev = t->live_prev;
  t->magic = RT_TENSOR_DEAD;
  t->live_next = NULL;
  if (c->free_tail) c->free_tail->live_next = t;
  else c->free_head = t;
  c->free_tail = t;
  c->nfree++;
  pthread_mutex_unlock(&c->lock);
}

void rt_tensor_ref_internal(TpuTensor *t) { atomic_fetch_add(&t->total, 1); }

void rt_tensor_unref_internal(TpuTensor *t) {
  if (atomic_fetch_sub(&t->total, 1) == 1) destroy(t);
}

bool rt_tensor_valid(const TpuClient *c, const TpuTensor *t, const char *what) {
  if (!t) return rt_fail(TPU_ERR_USAGE, "%s is NULL", what), false;
  if (t->magic == RT_TENSOR_DEAD || atomic_load(&((TpuTensor *)t)->refs) <= 0)
    return rt_fail(TPU_ERR_USAGE, "%s was released (tensor #%" PRIu64 ")", what, t->id), false;
  if (t->magic != RT_TENSOR_LIVE) return rt_fail(TPU_ERR_USAGE, "%s is not a tensor of libtpurun", what), false;
  if (c && t->client != c) return rt_fail(TPU_ERR_USAGE, "%s belongs to another client", what), false;
  return true;
}

void rt_tensor_free_all(TpuClient *c) {
  for (int chip = 0; c->live && chip < c->nchips; chip++) /* NULL: tpu_client_create ran out of memory */
    for (TpuTensor *t = c->live[chip], *n; t; t = n) {
      n = t->live_next;
      free(t->data), free(t->err_msg), free(t);
    }
  for (TpuTensor *t = c->free_head, *n; t; t = n) {
    n = t->live_next;
    free(t);
  }
  c->free_head = c->free_tail = NULL;
  c->nfree = 0;
}

/* ---- the API ------------------------------------------------------------ */

TPU_API int tpu_tensor_from_host_on(TpuClient *c, int chip, const char *type, const void *data, size_t bytes,
                                    TpuTensor **out) {
  if (!out) return rt_fail(TPU_ERR_USAGE, "tpu_tensor_from_host: out is NULL");
  *out = NULL;
  if (!c) return rt_fail(TPU_ERR_USAGE, "tpu_tensor_from_host: client is NULL");
  if (chip < 0 || chip >= c->nchips)
    return rt_fail(TPU_ERR_USAGE, "tpu_tensor_from_host: chip %d is not one of the client's %d chips", chip, c->nchips);
  const RtType *t = rt_type_intern(c, type);
  if (!t) return rt_fail(TPU_ERR_USAGE, "tpu_tensor_from_host: %s", rt_last_error());
  if (bytes != (size_t)t->vm.nbytes)
    return rt_fail(TPU_ERR_DATA, "tpu_tensor_from_host: a %s tensor has %" PRId64 " bytes, %zu given", t->str,
                   t->vm.nbytes, bytes);
  if (!data && bytes) return rt_fail(TPU_ERR_USAGE, "tpu_tensor_from_host: data is NULL");
  void *copy = malloc(bytes ? bytes : 1);
  if (!copy) return rt_fail(TPU_ERR_RUNTIME, "tpu_tensor_from_host: out of host memory for %zu bytes", bytes);
  TpuTensor *x = rt_tensor_new(c, chip, t, 0, NULL);
  if (!x) {
    free(copy);
    return TPU_ERR_RUNTIME;
  }
  if (bytes) memcpy(copy, data, bytes);
  x->data = copy;
  atomic_store(&x->state, RT_READY);
  *out = x;
  return TPU_OK;
}

TPU_API int tpu_tensor_from_host(TpuClient *c, const char *type, const void *data, size_t bytes, TpuTensor **out) {
  return tpu_tensor_from_host_on(c, 0, type, data, bytes, out);
}

TPU_API int tpu_tensor_to_host(TpuTensor *t, void *data, size_t bytes) {
  if (!rt_tensor_valid(NULL, t, "tpu_tensor_to_host: tensor")) return TPU_ERR_USAGE;
  if (bytes != (size_t)t->type->vm.nbytes)
    return rt_fail(TPU_ERR_DATA, "tpu_tensor_to_host: tensor #%" PRIu64 " (%s) has %" PRId64 " bytes, %zu asked for",
                   t->id, t->type->str, t->type->vm.nbytes, bytes);
  if (!data && bytes) return rt_fail(TPU_ERR_USAGE, "tpu_tensor_to_host: data is NULL");
  int rc = rt_tensor_wait(t, "host_read");
  if (rc) return rc;
  if (bytes) memcpy(data, t->data, bytes);
  return TPU_OK;
}

TPU_API const char *tpu_tensor_type(const TpuTensor *t) {
  return rt_tensor_valid(NULL, t, "tpu_tensor_type: tensor") ? t->type->str : NULL;
}

TPU_API size_t tpu_tensor_bytes(const TpuTensor *t) {
  return rt_tensor_valid(NULL, t, "tpu_tensor_bytes: tensor") ? (size_t)t->type->vm.nbytes : 0;
}

TPU_API int tpu_tensor_chip(const TpuTensor *t) {
  return rt_tensor_valid(NULL, t, "tpu_tensor_chip: tensor") ? t->chip : -TPU_ERR_USAGE;
}

TPU_API void tpu_tensor_retain(TpuTensor *t) {
  if (!rt_tensor_valid(NULL, t, "tpu_tensor_retain: tensor")) return;
  atomic_fetch_add(&t->refs, 1);
  atomic_fetch_add(&t->total, 1);
}

TPU_API void tpu_tensor_release(TpuTensor *t) {
  if (!rt_tensor_valid(NULL, t, "tpu_tensor_release: tensor")) return;
  atomic_fetch_sub(&t->refs, 1);
  rt_tensor_unref_internal(t);
}

TPU_API int tpu_tensor_to_chip(TpuTensor *t, int chip, TpuTensor **out) {
  if (!out) return rt_fail(TPU_ERR_USAGE, "tpu_tensor_to_chip: out is NULL");
  *out = NULL;
  if (!rt_tensor_valid(NULL, t, "tpu_tensor_to_chip: tensor")) return TPU_ERR_USAGE;
  TpuClient *c = t->client;
  if (chip < 0 || chip >= c->nchips)
    return rt_fail(TPU_ERR_USAGE, "tpu_tensor_to_chip: chip %d is not one of the client's %d chips", chip, c->nchips);
  pthread_mutex_lock(&c->lock);
  bool deferred = t->graph != NULL; /* written under c->lock by materialize */
  pthread_mutex_unlock(&c->lock);
  if (deferred) {
    int rc = rt_flush_all(c, "copy");
    if (rc) return rc;
  }
  TpuStream *s = rt_default_stream(c, chip);
  RtWork *w = s ? rt_work_new(RT_WORK_COPY, 1, 1) : NULL;
  if (!w) return rt_fail(TPU_ERR_RUNTIME, "tpu_tensor_to_chip: out of host memory");
  TpuTensor *x = rt_tensor_new(c, chip, t->type, atomic_fetch_add(&c->next_op, 1) + 1, "copy");
  if (!x) {
    rt_work_free(w);
    return TPU_ERR_RUNTIME;
  }
  w->op_index = x->op_index;
  w->op_name = "copy";
  w->in[0] = t;
  rt_tensor_ref_internal(t);
  w->out[0] = x;
  rt_tensor_ref_internal(x);
  rt_stream_push(s, w);
  *out = x;
  return TPU_OK;
}
