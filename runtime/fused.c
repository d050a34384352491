/* Fused Eager: ops are deferred into a graph per stream; at a
 * materialization point the graph becomes one StableHLO function, compiled
 * through the -O2 pipeline and the caches (a repeated step hits the memory
 * tier), whose results are the graph's tensors the client still holds. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "runtime/runtime.h"

/* An operand of a node: a result of an earlier node or a graph input. */
typedef struct RtArg {
  int node;  /* -1: input `index` */
  int index; /* the node's result, or the input */
} RtArg;

struct RtNode {
  RtSig *sig;
  uint64_t op_index;
  RtArg *args;
  TpuTensor **results; /* the graph holds an internal reference to each */
};

struct RtGraph {
  TpuStream *stream; /* the stream it defers ops of */
  RtNode *nodes;
  int n, cap;
  TpuTensor **inputs; /* internal references */
  int nin, capin;
  TpuTensor **slots; /* open-addressing set of inputs: tensor -> index in islot */
  int *islot;
  int nslots;
  uint64_t hash;  /* the ops and their wiring so far (repeated steps) */
  bool cut_pending; /* its ops so far made a graph materialized before: cut
                     * here when the next op comes (temporaries released) */
  uint64_t shape; /* the ops and attributes without types (recompiles) */
};

TpuStream *rt_graph_stream(const RtGraph *g) { return g->stream; }

void rt_graph_free(RtGraph *g) {
  for (int i = 0; i < g->n; i++) {
    for (int r = 0; r < g->nodes[i].sig->nres; r++) rt_tensor_unref_internal(g->nodes[i].results[r]);
    free(g->nodes[i].args);
    free(g->nodes[i].results);
  }
  for (int i = 0; i < g->nin; i++) rt_tensor_unref_internal(g->inputs[i]);
  free(g->nodes);
  free(g->inputs);
  free(g->slots);
  free(g->islot);
  free(g);
}

/* Grows the input set to hold twice the inputs; false when out of memory. */
static bool grow_slots(RtGraph *g) {
  int n = g->nslots ? 2 * g->nslots : 64;
  TpuTensor **slots = calloc((size_t)n, sizeof *slots);
  int *islot = calloc((size_t)n, sizeof *islot);
  if (!slots || !islot) return free(slots), free(islot), false;
  for (int i = 0; i < g->nin; i++) {
    size_t h = (size_t)(((uintptr_t)g->inputs[i] >> 4) * 0x9E3779B97F4A7C15ull) & (size_t)(n - 1);
    while (slots[h]) h = (h + 1) & (size_t)(n - 1);
    slots[h] = g->inputs[i];
    islot[h] = i;
  }
  free(g->slots), free(g->islot);
  g->slots = slots, g->islot = islot, g->nslots = n;
  return true;
}

/* The input index of external tensor t, added (with an internal
 * reference) when new; -1 when out of memory. */
static int input_of(RtGraph *g, TpuTensor *t) {
  if (2 * (g->nin + 1) > g->nslots && !grow_slots(g)) return -1;
  size_t h = (size_t)(((uintptr_t)t >> 4) * 0x9E3779B97F4A7C15ull) & (size_t)(g->nslots - 1);
  while (g->slots[h] && g->slots[h] != t) h = (h + 1) & (size_t)(g->nslots - 1);
  if (g->slots[h]) return g->islot[h];
  if (g->nin == g->capin) {
    int cap = g->capin ? 2 * g->capin : 16;
    TpuTensor **v = realloc(g->inputs, sizeof *v * (size_t)cap);
    if (!v) return -1;
    g->inputs = v, g->capin = cap;
  }
  rt_tensor_ref_internal(t);
  g->inputs[g->nin] = t;
  g->slots[h] = t;
  g->islot[h] = g->nin;
  return g->nin++;
}

/* The graph's SSA name of an argument: "%i3", "%v7" or "%v7#1". */
static void arg_name(const RtGraph *g, RtArg a, char *buf, size_t len) {
  if (a.node < 0) snprintf(buf, len, "%%i%d", a.index);
  else if (g->nodes[a.node].sig->nres == 1) snprintf(buf, len, "%%v%d", a.node);
  else snprintf(buf, len, "%%v%d#%d", a.node, a.index);
}

/* The function of g returning the node results in outs[0..nout). */
static char *graph_text(const RtGraph *g, const RtArg *outs, int nout, size_t *len) {
  char *text = NULL;
  FILE *f = open_memstream(&text, len);
  if (!f) return NULL;
  fputs("func.func @main(", f);
  for (int i = 0; i < g->nin; i++) fprintf(f, "%s%%i%d: %s", i ? ", " : "", i, g->inputs[i]->type->mlir);
  fputs(") -> (", f);
  for (int i = 0; i < nout; i++) fprintf(f, "%s%s", i ? ", " : "", g->nodes[outs[i].node].sig->res[outs[i].index]->mlir);
  fputs(") {\n", f);
  char name[32];
  for (int k = 0; k < g->n; k++) {
    const RtNode *n = &g->nodes[k];
    if (n->sig->nres == 1) fprintf(f, "  %%v%d = ", k);
    else if (n->sig->nres > 1) fprintf(f, "  %%v%d:%d = ", k, n->sig->nres);
    else fputs("  ", f);
    fputs(n->sig->head, f);
    for (int i = 0; i < n->sig->nin; i++) {
      arg_name(g, n->args[i], name, sizeof name);
      fprintf(f, "%s%s", i ? ", " : "", name);
    }
    fprintf(f, "%s\n", n->sig->tail);
  }
  fputs("  return", f);
  for (int i = 0; i < nout; i++) {
    arg_name(g, outs[i], name, sizeof name);
    fprintf(f, "%s %s", i ? "," : "", name);
  }
  for (int i = 0; i < nout; i++)
    fprintf(f, "%s%s", i ? ", " : " : ", g->nodes[outs[i].node].sig->res[outs[i].index]->mlir);
  fputs("\n}\n", f);
  fclose(f);
  return text;
}

/* Whether hash h is in set t (caller holds c->lock); with add, puts it
 * there.  A member's key is its own malloc'ed value (freed with the set). */
static bool hash_seen(Table *t, uint64_t h, bool add) {
  if (table_get(t, &h, sizeof h)) return true;
  uint64_t *key = add ? malloc(sizeof *key) : NULL;
  if (key) *key = h, *table_put(t, key, sizeof *key) = key; /* out of memory: only forgotten */
  return false;
}

/* Counts a compile of a graph shape seen before (with other types). */
static void count_shape(TpuClient *c, uint64_t shape, bool compiled) {
  pthread_mutex_lock(&c->lock);
  bool seen = hash_seen(&c->shapes, shape, true);
  pthread_mutex_unlock(&c->lock);
  if (seen && compiled) atomic_fetch_add(&c->m.recompiles, 1);
}

/* Fails every result of g's nodes with the current message. */
static void fail_graph(TpuStream *s, RtGraph *g, int code) {
  const char *msg = rt_last_error();
  for (int k = 0; k < g->n; k++)
    for (int r = 0; r < g->nodes[k].sig->nres; r++) rt_tensor_fail(g->nodes[k].results[r], code, msg);
  pthread_mutex_lock(&s->lock);
  if (!s->err_code) s->err_code = code, s->err_msg = strdup(msg);
  pthread_mutex_unlock(&s->lock);
}

/* Whether a node result is needed after the graph: the client holds it,
 * or queued work (an op issued in another mode) does; the graph's own
 * reference is the one reference beyond those. */
static bool needed(TpuTensor *t) { return atomic_load(&t->refs) > 0 || atomic_load(&t->total) > 1; }

/* The node results still needed (the graph's outputs). */
static int graph_outputs(RtGraph *g, RtArg **outs) {
  int n = 0;
  for (int k = 0; k < g->n; k++)
    for (int r = 0; r < g->nodes[k].sig->nres; r++) n += needed(g->nodes[k].results[r]);
  *outs = malloc(sizeof **outs * (size_t)(n + 1));
  if (!*outs) return -1;
  n = 0;
  for (int k = 0; k < g->n; k++)
    for (int r = 0; r < g->nodes[k].sig->nres; r++)
      if (needed(g->nodes[k].results[r])) (*outs)[n++] = (RtArg){k, r};
  return n;
}

/* Writes a compiled graph's text to DIR/graph-<XXH3-64 of it>.mlir (the
 * TPU_DUMP_GRAPHS debugging aid); a failure is silent. */
static void dump_graph(const char *dir, const char *text, size_t len) {
  char path[4096];
  snprintf(path, sizeof path, "%s/graph-%016llx.mlir", dir, (unsigned long long)XXH3_64bits(text, len));
  FILE *f = fopen(path, "w");
  if (!f) return;
  fwrite(text, 1, len, f);
  fclose(f);
}

/* The results of g are no longer deferred: their work is queued (or they
 * failed).  Only now, so that an op of another thread that finds one of
 * them deferred flushes (and waits on the graph lock until the work is
 * queued) instead of queuing itself ahead of it. */
static void detach_results(TpuClient *c, RtGraph *g) {
  pthread_mutex_lock(&c->lock);
  for (int k = 0; k < g->n; k++)
    for (int r = 0; r < g->nodes[k].sig->nres; r++) g->nodes[k].results[r]->graph = NULL;
  pthread_mutex_unlock(&c->lock);
}

/* The executable of g returning outs: found by the graph's ops, wiring
 * and outputs (a repeated step writes no text), else by its text through
 * the tiers and the pipeline.  NULL with *code set after rt_fail. */
static RtExe *graph_exe(TpuClient *c, const RtGraph *g, const RtArg *outs, int nout, bool *compiled, int *code) {
  XXH128_hash_t key = XXH3_128bits_withSeed(outs, sizeof *outs * (size_t)nout, g->hash);
  RtExe *exe = rt_exe_by_key(c, key.high64, key.low64);
  if (exe) return exe;
  size_t len;
  char *text = graph_text(g, outs, nout, &len);
  if (!text) return *code = rt_fail(TPU_ERR_RUNTIME, "out of host memory"), NULL;
  char name[96];
  snprintf(name, sizeof name, "fused graph of ops #%" PRIu64 "-#%" PRIu64, g->nodes[0].op_index,
           g->nodes[g->n - 1].op_index);
  exe = rt_exe_of_text(c, text, len, name, compiled);
  if (exe) {
    rt_exe_alias(c, key.high64, key.low64, exe);
    if (*compiled && c->dump_dir) dump_graph(c->dump_dir, text, len);
  } else {
    *code = rt_last_code();
  }
  free(text);
  return exe;
}

/* Compiles g and queues it on s (caller holds s->graph_lock, g detached). */
static int materialize(TpuStream *s, RtGraph *g, const char *reason) {
  TpuClient *c = s->client;
  RtArg *outs;
  int nout = graph_outputs(g, &outs);
  if (nout < 0) {
    /* The graph is freed after this: its results must not keep pointing
     * at it (nor stay pending forever). */
    int code = rt_fail(TPU_ERR_RUNTIME, "out of host memory");
    fail_graph(s, g, code);
    detach_results(c, g);
    return code;
  }
  pthread_mutex_lock(&c->m.metrics_lock);
  c->m.reasons[rt_reason_index(reason)]++;
  pthread_mutex_unlock(&c->m.metrics_lock);
  pthread_mutex_lock(&c->lock);
  hash_seen(&c->steps, g->hash, true);
  pthread_mutex_unlock(&c->lock);
  if (nout == 0) {
    free(outs);
    detach_results(c, g);
    return TPU_OK; /* nothing the client can still read */
  }
  bool compiled = false;
  int code = TPU_OK;
  RtExe *exe = graph_exe(c, g, outs, nout, &compiled, &code);
  RtWork *w = exe ? rt_work_new(RT_WORK_EXE, g->nin, nout) : NULL;
  if (exe && !w) code = rt_fail(TPU_ERR_RUNTIME, "out of host memory");
  if (code) {
    fail_graph(s, g, code);
    free(outs);
    detach_results(c, g);
    return code;
  }
  atomic_fetch_add(&c->m.graphs, 1);
  atomic_fetch_add(&c->m.graph_ops, (uint64_t)g->n);
  count_shape(c, g->shape, compiled); /* a memory-tier hit is no recompile */
  w->exe = exe;
  w->op_index = g->nodes[0].op_index;
  w->op_name = "fused graph";
  for (int i = 0; i < g->nin; i++) rt_tensor_ref_internal(w->in[i] = g->inputs[i]);
  for (int i = 0; i < nout; i++) rt_tensor_ref_internal(w->out[i] = g->nodes[outs[i].node].results[outs[i].index]);
  free(outs);
  rt_stream_push(s, w);
  detach_results(c, g);
  return TPU_OK;
}

int rt_graph_flush(TpuStream *s, const char *reason) {
  pthread_mutex_lock(&s->graph_lock);
  RtGraph *g = s->graph;
  s->graph = NULL;
  int rc = g ? materialize(s, g, reason) : TPU_OK;
  pthread_mutex_unlock(&s->graph_lock);
  if (g) rt_graph_free(g);
  return rc;
}

/* Appends a node for sig to g; its results in results[]. */
static int add_node(TpuStream *s, RtGraph *g, RtSig *sig, uint64_t op_index, TpuTensor *const *in, TpuTensor **results) {
  TpuClient *c = s->client;
  if (g->n == g->cap) {
    int cap = g->cap ? 2 * g->cap : 64;
    RtNode *v = realloc(g->nodes, sizeof *v * (size_t)cap);
    if (!v) return rt_fail(TPU_ERR_RUNTIME, "out of host memory");
    g->nodes = v, g->cap = cap;
  }
  RtNode *n = &g->nodes[g->n];
  *n = (RtNode){sig, op_index, calloc((size_t)sig->nin + 1, sizeof(RtArg)),
                calloc((size_t)sig->nres + 1, sizeof(TpuTensor *))};
  if (!n->args || !n->results) return free(n->args), free(n->results), rt_fail(TPU_ERR_RUNTIME, "out of host memory");
  uint64_t h = XXH3_64bits_withSeed(&sig, sizeof sig, g->hash);
  g->shape = XXH3_64bits_withSeed(sig->op, strlen(sig->op), XXH3_64bits_withSeed(sig->attrs, strlen(sig->attrs), g->shape));
  for (int i = 0; i < sig->nin; i++) {
    /* in[i]->graph is written under c->lock (materialize of another graph). */
    pthread_mutex_lock(&c->lock);
    bool inside = in[i]->graph == g;
    pthread_mutex_unlock(&c->lock);
    n->args[i] = inside ? (RtArg){in[i]->node, in[i]->node_result} : (RtArg){-1, input_of(g, in[i])};
    if (n->args[i].index < 0) return free(n->args), free(n->results), rt_fail(TPU_ERR_RUNTIME, "out of host memory");
    h = XXH3_64bits_withSeed(&n->args[i], sizeof n->args[i], h);
  }
  for (int r = 0; r < sig->nres; r++) {
    TpuTensor *t = rt_tensor_new(c, s->chip, sig->res[r], op_index, sig->op);
    if (!t) {
      while (r-- > 0) tpu_tensor_release(n->results[r]), rt_tensor_unref_internal(n->results[r]), results[r] = NULL;
      free(n->args), free(n->results);
      return TPU_ERR_RUNTIME;
    }
    rt_tensor_ref_internal(t);
    pthread_mutex_lock(&c->lock);
    t->graph = g, t->node = g->n, t->node_result = r;
    pthread_mutex_unlock(&c->lock);
    n->results[r] = results[r] = t;
  }
  g->hash = h;
  g->n++;
  return TPU_OK;
}

int rt_graph_add(TpuStream *s, RtSig *sig, uint64_t op_index, TpuTensor *const *in, TpuTensor **results) {
  TpuClient *c = s->client;
  /* An operand still deferred on another stream is materialized first. */
  for (int i = 0; i < sig->nin; i++) {
    pthread_mutex_lock(&c->lock);
    RtGraph *other = in[i]->graph;
    pthread_mutex_unlock(&c->lock);
    if (!other) continue;
    /* s->graph changes under graph_lock only (another thread may flush it). */
    pthread_mutex_lock(&s->graph_lock);
    bool mine = other == s->graph;
    pthread_mutex_unlock(&s->graph_lock);
    if (!mine) {
      int rc = rt_flush_all(c, "cross_stream");
      if (rc) return rc;
      break;
    }
  }
  pthread_mutex_lock(&s->graph_lock);
  if (s->graph && s->graph->cut_pending) {
    RtGraph *done = s->graph;
    s->graph = NULL;
    int rc = materialize(s, done, "repeated_step");
    rt_graph_free(done);
    if (rc) {
      pthread_mutex_unlock(&s->graph_lock);
      return rc;
    }
  }
  if (!s->graph) {
    if (!(s->graph = calloc(1, sizeof *s->graph))) {
      pthread_mutex_unlock(&s->graph_lock);
      return rt_fail(TPU_ERR_RUNTIME, "out of host memory");
    }
    /* Set once, before any tensor points at the graph: readers take it
     * under the client's lock (rt_tensor_wait), not the graph lock. */
    s->graph->stream = s;
  }
  RtGraph *g = s->graph;
  int rc = add_node(s, g, sig, op_index, in, results);
  const char *reason = NULL;
  if (rc == TPU_OK && g->n >= c->fused_max_ops) reason = "size_bound";
  if (rc == TPU_OK && !reason) {
    pthread_mutex_lock(&c->lock);
    g->cut_pending = hash_seen(&c->steps, g->hash, false);
    pthread_mutex_unlock(&c->lock);
  }
  if (reason) {
    s->graph = NULL;
    rc = materialize(s, g, reason);
    /* The call fails: the op's results are not handed out (they are
     * FAILED, and the graph's error stays on s for tpu_sync). */
    for (int r = 0; rc && r < sig->nres; r++) tpu_tensor_release(results[r]), results[r] = NULL;
  }
  pthread_mutex_unlock(&s->graph_lock);
  if (reason) rt_graph_free(g);
  return rc;
}
