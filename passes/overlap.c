/* Collective overlap (pass "collective-overlap"): hides ICI transfers
 * behind computation, in two steps per block (function bodies and the
 * bodies of while, if and case):
 *
 * 1. Combining.  Small stablehlo.all_reduce ops become one variadic
 *    all_reduce when they have equal reduction computations, equal
 *    replica_groups, channel_handle and use_global_device_ids, none of
 *    them depends on another, nothing with a side effect and no other
 *    collective sits between them, and their operands add up to at most
 *    OVERLAP_COMBINE_BYTES.  The combined op takes the place of the last
 *    one; the ops between them that read the earlier results move after it.
 *    Functions that interpreter.run_parallel runs next to a different
 *    function (MPMD) are not combined: the other program would meet a
 *    different collective.
 *
 * 2. Scheduling.  Every all_reduce, all_gather, reduce_scatter,
 *    all_to_all, collective_permute and collective_broadcast with a
 *    modeled ICI time is split into a start and a done, and a list
 *    scheduler orders the block:
 *      - starts issue as early as their operands allow, in their original
 *        relative order (every chip of a group must meet the collectives
 *        in the same order), and never ahead of an op with a side effect;
 *      - at most OVERLAP_MAX_IN_FLIGHT collectives of one kind are in
 *        flight: a start beyond that brings the oldest one's done first;
 *      - the other ops keep their relative order, except that an op
 *        waiting for a done lets the independent ops after it go first:
 *        a done comes as late as its first use allows;
 *      - the live HBM bytes (operands of a collective stay live until its
 *        done; a result lives from its op to its last use; views share
 *        their operand's buffer) must stay within the target's HBM less
 *        the resident constants: a start that would exceed it when issued
 *        early, counting everything the ops it moves above allocate, waits
 *        for its original place, and an op that would exceed it brings the
 *        in-flight dones first.  The estimate ignores in-place reuse, so
 *        it errs on the side of fewer moves.
 *    A collective with no op but other collectives between its start and
 *    its done has nothing to overlap with and stays whole, where its start
 *    is; a block whose order does not change is left untouched.  Split
 *    pairs become tpu.async_start (its region holds the collective) and
 *    tpu.async_done.  A block that already holds them is left alone, so
 *    the pass can run twice. */
#include <stdlib.h>
#include <string.h>

#include "ir/table.h"
#include "passes/cost.h"
#include "passes/pass.h"
#include "passes/walk.h"

/* All-reduces are combined up to this many operand bytes (tiled layout):
 * 4 MiB.  The α-β model (common/ici.h) gives the reason: on a v5e slice of 8
 * to 256 chips the latency term of an all-reduce (4 to 16 hops of 1 us,
 * plus 1 us to issue it) equals its bandwidth term at about 0.8 to 3 MiB,
 * so merging collectives below a few MiB saves most of their fixed cost,
 * while a larger combined collective is bandwidth bound (nothing left to
 * save) and starts only when its last operand is ready, which shortens the
 * overlap. */
#define OVERLAP_COMBINE_BYTES (4.0 * (1 << 20))
/* Collectives of one kind in flight at once: 2.  The ICI runs one
 * collective at a time in the model, so a second in flight lets the next
 * transfer queue behind the current one without waiting for the compute
 * stream to consume it; more would only hold more HBM.  (XLA's
 * latency-hiding scheduler defaults to 1 per kind.) */
#define OVERLAP_MAX_IN_FLIGHT 2

/* ------------------------------------------------------------------ */
/* Shared helpers. */

/* The ancestor of op that sits in block b, or NULL. */
static Op *in_block(const Block *b, Op *op) {
  while (op && op->parent != b) op = op->parent && op->parent->parent ? op->parent->parent->parent : NULL;
  return op;
}

/* Calls fn on every value op uses, its regions' ops included. */
static void each_use(const Op *op, void (*fn)(void *ud, Value *v), void *ud) {
  for (int i = 0; i < op->noperands; i++)
    if (op->operands[i]) fn(ud, op->operands[i]);
  for (int r = 0; r < op->nregions; r++)
    for (int k = 0; k < op->regions[r].nblocks; k++)
      for (const Op *o = op->regions[r].blocks[k]->first; o; o = o->next) each_use(o, fn, ud);
}

/* The collectives the pass splits. */
static bool is_splittable(const Op *op) {
  switch (op->kind) {
  case OP_ALL_REDUCE: case OP_ALL_GATHER: case OP_REDUCE_SCATTER: case OP_ALL_TO_ALL: case OP_COLLECTIVE_PERMUTE:
  case OP_COLLECTIVE_BROADCAST:
    return true;
  default: return false;
  }
}

/* Must keep its place relative to the other such ops and the collectives:
 * side effects, calls, communication.  replica_id, partition_id and
 * tokens only read the chip's identity or order nothing by themselves. */
static bool is_ordered(const Op *op) {
  if (op_is_pure(op)) return false;
  switch (op->kind) {
  case OP_REPLICA_ID: case OP_PARTITION_ID: case OP_CREATE_TOKEN: case OP_AFTER_ALL: return false;
  default: return true;
  }
}

static double operands_bytes(const Op *op) {
  double b = 0;
  for (int i = 0; i < op->noperands; i++) b += cost_tiled_bytes(op->operands[i]->type);
  return b;
}

static void renumber(Block *b) {
  uint32_t i = 0;
  for (Op *op = b->first; op; op = op->next) op->order = i++;
}

/* ------------------------------------------------------------------ */
/* Combining all-reduces. */

static bool attrs_match(const Op *a, const Op *b, const char *name) {
  const Attr *x = op_attr(a, name), *y = op_attr(b, name);
  return (!x && !y) || (x && y && attr_equal(x, y));
}

static bool regions_equal(Context *c, const Region *a, const Region *b, ValueMap *m);

/* Same op up to the renaming m of the values defined so far. */
static bool ops_equal(Context *c, const Op *a, const Op *b, ValueMap *m) {
  if (a->kind != b->kind || a->noperands != b->noperands || a->nresults != b->nresults || a->nattrs != b->nattrs ||
      a->nregions != b->nregions || strcmp(a->name, b->name) != 0)
    return false;
  for (int i = 0; i < a->nattrs; i++)
    if (strcmp(a->attrs[i].name, b->attrs[i].name) != 0 || !attr_equal(a->attrs[i].value, b->attrs[i].value))
      return false;
  for (int i = 0; i < a->noperands; i++) {
    Value *x = value_map_get(m, a->operands[i]);
    if ((x ? x : a->operands[i]) != b->operands[i]) return false;
  }
  for (int i = 0; i < a->nresults; i++) {
    if (a->results[i].type != b->results[i].type) return false;
    value_map_put(c, m, &a->results[i], &b->results[i]);
  }
  for (int r = 0; r < a->nregions; r++)
    if (!regions_equal(c, &a->regions[r], &b->regions[r], m)) return false;
  return true;
}

/* Structurally equal regions: the same ops on corresponding values. */
static bool regions_equal(Context *c, const Region *a, const Region *b, ValueMap *m) {
  if (a->nblocks != b->nblocks) return false;
  for (int k = 0; k < a->nblocks; k++) {
    const Block *x = a->blocks[k], *y = b->blocks[k];
    if (x->nargs != y->nargs) return false;
    for (int i = 0; i < x->nargs; i++) {
      if (x->args[i].type != y->args[i].type) return false;
      value_map_put(c, m, &x->args[i], &y->args[i]);
    }
    const Op *p = x->first, *q = y->first;
    for (; p && q; p = p->next, q = q->next)
      if (!ops_equal(c, p, q, m)) return false;
    if (p || q) return false;
  }
  return true;
}

/* An all_reduce the combiner may merge on its own terms. */
static bool is_small_all_reduce(const Op *op) {
  if (op->kind != OP_ALL_REDUCE || op->nregions != 1 || operands_bytes(op) > OVERLAP_COMBINE_BYTES) return false;
  for (int i = 0; i < op->noperands; i++)
    if (op->operands[i]->type->kind != TY_TENSOR) return false;
  return true;
}

static bool combinable(Context *c, const Op *a, const Op *b) {
  if (!attrs_match(a, b, "replica_groups") || !attrs_match(a, b, "channel_handle") ||
      !attrs_match(a, b, "use_global_device_ids"))
    return false;
  ValueMap m = {0};
  return regions_equal(c, &a->regions[0], &b->regions[0], &m);
}

/* The ops of a combining group: the members, and the other ops of their
 * span that (transitively) read a member's result. */
typedef struct Combine {
  Context *c;
  Block *blk;
  PtrVec members;
  Table tainted; /* Op* of the block -> itself */
  double bytes;
  bool hit; /* scratch of taint_use */
} Combine;

static void taint_use(void *ud, Value *v) {
  Combine *g = ud;
  Op *d = v->def ? in_block(g->blk, v->def) : NULL;
  if (d && table_get(&g->tainted, d, 0)) g->hit = true;
}

static bool reads_tainted(Combine *g, const Op *op) {
  g->hit = false;
  each_use(op, taint_use, g);
  return g->hit;
}

/* Replaces the group's members by one all_reduce where the last one was;
 * the tainted ops before it move right after it, in order. */
static void combine_flush(Combine *g) {
  if (g->members.len >= 2) {
    Context *c = g->c;
    Op *first = g->members.items[0], *last = g->members.items[g->members.len - 1];
    int n = 0;
    for (int i = 0; i < g->members.len; i++) n += ((Op *)g->members.items[i])->noperands;
    Value **operands = xrealloc(NULL, sizeof(Value *) * (size_t)n);
    Type **types = xrealloc(NULL, sizeof(Type *) * (size_t)n);
    n = 0;
    for (int i = 0; i < g->members.len; i++) {
      Op *m = g->members.items[i];
      for (int k = 0; k < m->noperands; k++) operands[n] = m->operands[k], types[n++] = m->results[k].type;
    }
    Op *comb = op_create(c, OP_ALL_REDUCE, NULL, first->loc, n, operands, n, types, 0, NULL, 1);
    comb->nattrs = first->nattrs;
    comb->attrs = first->attrs;
    comb->srcloc = first->srcloc;
    ValueMap map = {0};
    region_clone_into(c, &first->regions[0], &comb->regions[0], &map);
    op_insert_before(last, comb);
    /* Ops of the span that read a member's result follow the combined op. */
    Op *at = comb;
    for (Op *o = first->next, *next; o && o != comb; o = next) {
      next = o->next;
      if (!table_get(&g->tainted, o, 0)) continue;
      bool member = false;
      for (int i = 0; i < g->members.len && !member; i++) member = g->members.items[i] == o;
      if (member) continue;
      op_unlink(o);
      op_insert_after(at, o);
      at = o;
    }
    n = 0;
    for (int i = 0; i < g->members.len; i++) {
      Op *m = g->members.items[i];
      for (int k = 0; k < m->nresults; k++) value_replace_all_uses(c, &m->results[k], &comb->results[n++]);
      op_erase(m);
    }
    free(operands);
    free(types);
  }
  g->members.len = 0;
  g->bytes = 0;
  table_free(&g->tainted, NULL);
  memset(&g->tainted, 0, sizeof g->tainted);
}

static void combine_block(Context *c, Block *b) {
  Combine g = {.c = c, .blk = b};
  for (Op *op = b->first, *next; op; op = next) {
    next = op->next;
    if (is_small_all_reduce(op)) {
      double bytes = operands_bytes(op);
      bool joins = g.members.len && combinable(c, g.members.items[0], op) && !reads_tainted(&g, op) &&
                   g.bytes + bytes <= OVERLAP_COMBINE_BYTES;
      if (!joins) combine_flush(&g);
      vec_push(&g.members, op);
      *table_put(&g.tainted, op, 0) = op;
      g.bytes += bytes;
      continue;
    }
    if (is_ordered(op) || is_splittable(op) || (op_info[op->kind].traits & TRAIT_TERMINATOR)) {
      combine_flush(&g);
      continue;
    }
    if (g.members.len && reads_tainted(&g, op)) *table_put(&g.tainted, op, 0) = op;
  }
  combine_flush(&g);
  vec_free(&g.members);
}

/* ------------------------------------------------------------------ */
/* The schedule of one block. */

/* Node numbering: op i of the block is node i (for a split collective,
 * its start); the done of split collective k is node n + k. */
typedef struct Sched {
  PassContext *pc;
  Block *blk;
  int n;       /* ops, terminator excluded */
  Op **ops;
  Op *term;    /* NULL when the block has none */
  int ncoll;
  int *coll;   /* op index -> collective number, -1 */
  int *coll_op; /* collective number -> op index */
  /* Edges, then CSR. */
  int nedges, capedges;
  int (*edges)[2];
  int *succ_start, *succ, *indeg;
  /* Buffers: block arguments and results of the block's ops. */
  Table buf_of; /* Value* -> buffer + 1 */
  int nbufs;
  double *bytes;
  int *root, *pending;
  int *use_start, *uses; /* node -> buffers it holds until it is emitted (CSR) */
  int *alloc_start, *allocs; /* node -> buffers it allocates (CSR) */
  double live, budget;
  /* Scratch for collecting one node's uses. */
  int cur, ntmp, captmp;
  int *tmp;
} Sched;

static void add_edge(Sched *s, int from, int to) {
  if (from == to) return;
  if (s->nedges == s->capedges) {
    s->capedges = s->capedges ? 2 * s->capedges : 256;
    s->edges = xrealloc(s->edges, sizeof *s->edges * (size_t)s->capedges);
  }
  s->edges[s->nedges][0] = from;
  s->edges[s->nedges++][1] = to;
}

static int buf_of(const Sched *s, const Value *v) {
  void **slot = table_get(&s->buf_of, v, 0);
  return slot ? (int)(intptr_t)*slot - 1 : -1;
}

static int find_root(const Sched *s, int b) {
  while (s->root[b] != b) b = s->root[b];
  return b;
}

/* The node that produces v for op `user` of the block, -1 if none (a
 * value from outside, or from user's own regions). */
static int producer(const Sched *s, const Value *v, int user) {
  Op *d = v->def ? in_block(s->blk, v->def) : NULL;
  if (!d || d == s->term || (int)d->order == user) return -1;
  int i = (int)d->order;
  return s->coll[i] >= 0 ? s->n + s->coll[i] : i;
}

static void tmp_push(Sched *s, int x) {
  if (s->ntmp == s->captmp) {
    s->captmp = s->captmp ? 2 * s->captmp : 64;
    s->tmp = xrealloc(s->tmp, sizeof(int) * (size_t)s->captmp);
  }
  s->tmp[s->ntmp++] = x;
}

/* each_use callback: a data edge into node s->cur and the buffer it holds. */
static void note_use(void *ud, Value *v) {
  Sched *s = ud;
  int p = producer(s, v, s->cur);
  if (p >= 0) add_edge(s, p, s->cur);
  int b = buf_of(s, v);
  if (b >= 0) tmp_push(s, find_root(s, b));
}

/* A free op with operands (reshape, bitcast, tuple access, barrier) whose
 * first result is a view of its first operand's buffer. */
static bool is_view(const Op *op) { return op->noperands > 0 && op->kind != OP_CONSTANT && cost_op_is_free(op); }

static void add_buf(Sched *s, const Value *v, double bytes) {
  int i = s->nbufs++;
  s->bytes[i] = bytes;
  s->root[i] = i;
  s->pending[i] = 0;
  *table_put(&s->buf_of, v, 0) = (void *)(intptr_t)(i + 1);
}

/* Appends CSR row `node` of the list (starts, items) from s->tmp. */
static void csr_row(Sched *s, int *start, int **items, int *len, int *cap, int node) {
  start[node] = *len;
  for (int k = 0; k < s->ntmp; k++) {
    if (*len == *cap) {
      *cap = *cap ? 2 * *cap : 256;
      *items = xrealloc(*items, sizeof(int) * (size_t)*cap);
    }
    (*items)[(*len)++] = s->tmp[k];
  }
  start[node + 1] = *len;
  s->ntmp = 0;
}

/* Builds nodes, edges and buffers; false when there is nothing to split. */
static bool sched_build(Sched *s) {
  Block *b = s->blk;
  renumber(b);
  s->term = b->last && (op_info[b->last->kind].traits & TRAIT_TERMINATOR) ? b->last : NULL;
  for (Op *op = b->first; op && op != s->term; op = op->next) s->n++;
  s->ops = xrealloc(NULL, sizeof(Op *) * (size_t)(s->n + 1));
  s->coll = xrealloc(NULL, sizeof(int) * (size_t)(s->n + 1));
  s->coll_op = xrealloc(NULL, sizeof(int) * (size_t)(s->n + 1));
  int i = 0;
  for (Op *op = b->first; op && op != s->term; op = op->next, i++) {
    s->ops[i] = op;
    s->coll[i] = -1;
    if (is_splittable(op) && cost_of_op(op, s->pc->target).ici_s > 0) {
      s->coll[i] = s->ncoll;
      s->coll_op[s->ncoll++] = i;
    }
  }
  if (s->ncoll == 0) return false;
  int nn = s->n + s->ncoll;
  /* Buffers. */
  int nvals = b->nargs;
  for (i = 0; i < s->n; i++) nvals += s->ops[i]->nresults;
  s->bytes = xrealloc(NULL, sizeof(double) * (size_t)(nvals + 1));
  s->root = xrealloc(NULL, sizeof(int) * (size_t)(nvals + 1));
  s->pending = xrealloc(NULL, sizeof(int) * (size_t)(nvals + 1));
  for (int a = 0; a < b->nargs; a++) {
    add_buf(s, &b->args[a], cost_tiled_bytes(b->args[a].type));
    s->live += s->bytes[s->nbufs - 1];
  }
  for (i = 0; i < s->n; i++) {
    Op *op = s->ops[i];
    bool view = is_view(op);
    for (int r = 0; r < op->nresults; r++) {
      add_buf(s, &op->results[r], view || op->kind == OP_CONSTANT ? 0 : cost_tiled_bytes(op->results[r].type));
      int src = view && r == 0 ? buf_of(s, op->operands[0]) : -1;
      if (src >= 0) s->root[s->nbufs - 1] = find_root(s, src);
    }
  }
  /* Edges and the buffers each node holds; a split collective's operands
   * are held by its done. */
  s->use_start = xrealloc(NULL, sizeof(int) * (size_t)(nn + 1));
  s->alloc_start = xrealloc(NULL, sizeof(int) * (size_t)(nn + 1));
  int nuses = 0, capuses = 0, nallocs = 0, capallocs = 0;
  for (i = 0; i < s->n; i++) {
    Op *op = s->ops[i];
    s->cur = i;
    each_use(op, note_use, s);
    if (s->coll[i] >= 0) {
      /* The start holds nothing: the done holds the operands (below). */
      add_edge(s, i, s->n + s->coll[i]);
      s->ntmp = 0;
    }
    csr_row(s, s->use_start, &s->uses, &nuses, &capuses, i);
    for (int r = 0; r < op->nresults; r++) {
      int bb = buf_of(s, &op->results[r]);
      if (s->root[bb] == bb) tmp_push(s, bb);
    }
    csr_row(s, s->alloc_start, &s->allocs, &nallocs, &capallocs, i);
  }
  for (int k = 0; k < s->ncoll; k++) {
    Op *op = s->ops[s->coll_op[k]];
    for (int j = 0; j < op->noperands; j++) {
      int bb = buf_of(s, op->operands[j]);
      if (bb >= 0) tmp_push(s, find_root(s, bb));
    }
    csr_row(s, s->use_start, &s->uses, &nuses, &capuses, s->n + k);
    csr_row(s, s->alloc_start, &s->allocs, &nallocs, &capallocs, s->n + k);
  }
  /* The terminator holds what it returns to the end. */
  for (int k = 0; s->term && k < s->term->noperands; k++) {
    int bb = buf_of(s, s->term->operands[k]);
    if (bb >= 0) s->pending[find_root(s, bb)]++;
  }
  for (int k = 0; k < nuses; k++) s->pending[s->uses[k]]++;
  /* Ordered ops and starts keep their order: a chain of edges. */
  int prev = -1;
  for (i = 0; i < s->n; i++)
    if (s->coll[i] >= 0 || is_ordered(s->ops[i]) || is_splittable(s->ops[i])) {
      if (prev >= 0) add_edge(s, prev, i);
      prev = i;
    }
  /* CSR of the successors. */
  s->succ_start = xcalloc((size_t)nn + 2, sizeof(int));
  s->indeg = xcalloc((size_t)nn + 1, sizeof(int));
  s->succ = xrealloc(NULL, sizeof(int) * (size_t)(s->nedges + 1));
  for (int e = 0; e < s->nedges; e++) s->succ_start[s->edges[e][0] + 1]++, s->indeg[s->edges[e][1]]++;
  for (int k = 0; k < nn; k++) s->succ_start[k + 1] += s->succ_start[k];
  int *fill = xrealloc(NULL, sizeof(int) * (size_t)(nn + 1));
  memcpy(fill, s->succ_start, sizeof(int) * (size_t)nn);
  for (int e = 0; e < s->nedges; e++) s->succ[fill[s->edges[e][0]]++] = s->edges[e][1];
  free(fill);
  return true;
}

static void sched_free(Sched *s) {
  free(s->ops);
  free(s->coll);
  free(s->coll_op);
  free(s->edges);
  free(s->succ_start);
  free(s->succ);
  free(s->indeg);
  table_free(&s->buf_of, NULL);
  free(s->bytes);
  free(s->root);
  free(s->pending);
  free(s->use_start);
  free(s->uses);
  free(s->alloc_start);
  free(s->allocs);
  free(s->tmp);
}

/* A min-heap of node numbers: the ready ops, first in original order. */
typedef struct Heap {
  int *v;
  int n;
} Heap;

static void heap_push(Heap *h, int x) {
  int i = h->n++;
  while (i > 0 && h->v[(i - 1) / 2] > x) {
    h->v[i] = h->v[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  h->v[i] = x;
}

static int heap_pop(Heap *h) {
  int top = h->v[0], x = h->v[--h->n], i = 0;
  for (;;) {
    int c = 2 * i + 1;
    if (c >= h->n) break;
    if (c + 1 < h->n && h->v[c + 1] < h->v[c]) c++;
    if (h->v[c] >= x) break;
    h->v[i] = h->v[c];
    i = c;
  }
  if (h->n) h->v[i] = x;
  return top;
}

static double alloc_bytes(const Sched *s, int node) {
  double b = 0;
  for (int k = s->alloc_start[node]; k < s->alloc_start[node + 1]; k++) b += s->bytes[s->allocs[k]];
  return b;
}

/* The list scheduler (see the top of the file); order receives the nodes. */
typedef struct Run {
  Sched *s;
  Heap ready;      /* ready ops (not starts, not dones) */
  int ready_start; /* the start whose turn it is, -1 */
  int *inflight;   /* collective numbers in start order */
  int head, ninflight;
  bool *emitted;
  int next_orig;   /* the first op (not a collective) not yet emitted */
  double jumped;   /* bytes the ops before ready_start that are not emitted allocate */
  int *order, norder;
} Run;

/* Makes `start` the start whose turn it is. */
static void set_ready_start(Run *r, int start) {
  const Sched *s = r->s;
  r->ready_start = start;
  r->jumped = 0;
  for (int j = r->next_orig; j < start; j++)
    if (!r->emitted[j] && s->coll[j] < 0) r->jumped += alloc_bytes(s, j);
}

static int inflight_of(const Run *r, OpKind kind, int *oldest) {
  int count = 0;
  *oldest = -1;
  for (int k = r->head; k < r->ninflight; k++) {
    int coll = r->inflight[k];
    if (coll < 0 || (kind != OP_UNKNOWN && r->s->ops[r->s->coll_op[coll]]->kind != kind)) continue;
    if (*oldest < 0) *oldest = r->s->n + coll;
    count++;
  }
  return count;
}

static void emit_node(Run *r, int node) {
  Sched *s = r->s;
  r->emitted[node] = true;
  r->order[r->norder++] = node;
  if (node < s->n && s->coll[node] >= 0) {
    r->inflight[r->ninflight++] = s->coll[node];
    r->ready_start = -1;
    r->jumped = 0;
  } else if (node >= s->n) {
    for (int k = r->head; k < r->ninflight; k++)
      if (r->inflight[k] == node - s->n) r->inflight[k] = -1;
    while (r->head < r->ninflight && r->inflight[r->head] < 0) r->head++;
  }
  if (node < r->ready_start && s->coll[node] < 0) r->jumped -= alloc_bytes(s, node);
  s->live += alloc_bytes(s, node);
  for (int k = s->use_start[node]; k < s->use_start[node + 1]; k++) {
    int b = s->uses[k];
    if (--s->pending[b] == 0) s->live -= s->bytes[b];
  }
  for (int k = s->alloc_start[node]; k < s->alloc_start[node + 1]; k++)
    if (s->pending[s->allocs[k]] == 0) s->live -= s->bytes[s->allocs[k]];
  for (int k = s->succ_start[node]; k < s->succ_start[node + 1]; k++) {
    int t = s->succ[k];
    if (--s->indeg[t] > 0 || t >= s->n) continue;
    if (s->coll[t] >= 0) set_ready_start(r, t);
    else heap_push(&r->ready, t);
  }
  while (r->next_orig < s->n && (r->emitted[r->next_orig] || s->coll[r->next_orig] >= 0)) r->next_orig++;
}

/* The next node to emit. */
static int pick_node(Run *r) {
  Sched *s = r->s;
  int oldest;
  if (r->ready_start >= 0) {
    int st = r->ready_start;
    if (inflight_of(r, s->ops[st]->kind, &oldest) >= OVERLAP_MAX_IN_FLIGHT) return oldest;
    if (r->next_orig > st || s->live + alloc_bytes(s, st) + r->jumped <= s->budget) return st;
  }
  if (r->ready.n) {
    int c = r->ready.v[0];
    if (s->live + alloc_bytes(s, c) > s->budget && inflight_of(r, OP_UNKNOWN, &oldest) > 0) return oldest;
    return heap_pop(&r->ready);
  }
  if (inflight_of(r, OP_UNKNOWN, &oldest) > 0) return oldest;
  if (r->ready_start >= 0) return r->ready_start;
  die("the collective schedule of a block is stuck");
}

/* Builds tpu.async_start / tpu.async_done for op (detached); op's uses
 * move to the done. */
static void split_collective(Context *c, Op *op, Op **start_out, Op **done_out) {
  int n = op->noperands, m = op->nresults;
  Type **in = xrealloc(NULL, sizeof(Type *) * (size_t)(n + 1)), **out = xrealloc(NULL, sizeof(Type *) * (size_t)(m + 1));
  for (int i = 0; i < n; i++) in[i] = op->operands[i]->type;
  for (int i = 0; i < m; i++) out[i] = op->results[i].type;
  Op *start = op_create(c, OP_TPU_ASYNC_START, NULL, op->loc, n, op->operands, m, out, 0, NULL, 1);
  start->srcloc = op->srcloc;
  Block *body = block_create(c, &start->regions[0], n, in);
  region_add_block(c, &start->regions[0], body);
  ValueMap map = {0};
  Op *inner = op_clone(c, op, &map);
  for (int i = 0; i < n; i++) op_set_operand(c, inner, i, &body->args[i]);
  op_append(body, inner);
  Value **ys = xrealloc(NULL, sizeof(Value *) * (size_t)(m + 1)), **rs = xrealloc(NULL, sizeof(Value *) * (size_t)(m + 1));
  for (int i = 0; i < m; i++) ys[i] = &inner->results[i], rs[i] = &start->results[i];
  op_append(body, op_create(c, OP_TPU_YIELD, NULL, op->loc, m, ys, 0, NULL, 0, NULL, 0));
  Op *done = op_create(c, OP_TPU_ASYNC_DONE, NULL, op->loc, m, rs, m, out, 0, NULL, 0);
  done->srcloc = op->srcloc;
  for (int i = 0; i < m; i++) value_replace_all_uses(c, &op->results[i], &done->results[i]);
  op_erase(op);
  *start_out = start;
  *done_out = done;
  free(in);
  free(out);
  free(ys);
  free(rs);
}

/* Rewrites the block in the scheduled order; false when nothing changes.
 * A collective is split only when an op that is not a collective ends up
 * between its start and its done; otherwise it stays whole where its
 * start is. */
static bool sched_apply(Sched *s, const int *order, int norder) {
  Context *c = s->pc->c;
  int *pos = xrealloc(NULL, sizeof(int) * (size_t)(norder + 1)), *ops_before = xrealloc(NULL, sizeof(int) * (size_t)(norder + 1));
  bool *split = xcalloc((size_t)s->ncoll + 1, sizeof(bool));
  /* ops_before[i]: ops that are not collectives among order[0..i). */
  ops_before[0] = 0;
  for (int i = 0; i < norder; i++) {
    pos[order[i]] = i;
    ops_before[i + 1] = ops_before[i] + (order[i] < s->n && s->coll[order[i]] < 0);
  }
  bool changed = false;
  for (int k = 0; k < s->ncoll; k++) {
    int from = pos[s->coll_op[k]], to = pos[s->n + k];
    split[k] = ops_before[to] - ops_before[from + 1] > 0;
    changed |= split[k];
  }
  int prev = -1;
  for (int i = 0; i < norder && !changed; i++) {
    if (order[i] >= s->n) continue;
    changed = order[i] < prev;
    prev = order[i];
  }
  if (changed) {
    Op **seq = xrealloc(NULL, sizeof(Op *) * (size_t)(norder + 1));
    Op **starts = xcalloc((size_t)s->ncoll + 1, sizeof(Op *)), **dones = xcalloc((size_t)s->ncoll + 1, sizeof(Op *));
    int nseq = 0;
    for (int k = 0; k < s->ncoll; k++)
      if (split[k]) split_collective(c, s->ops[s->coll_op[k]], &starts[k], &dones[k]);
    for (int i = 0; i < norder; i++) {
      int node = order[i];
      if (node >= s->n) {
        if (dones[node - s->n]) seq[nseq++] = dones[node - s->n];
        continue;
      }
      int k = s->coll[node];
      seq[nseq++] = k >= 0 && starts[k] ? starts[k] : s->ops[node];
    }
    for (int i = 0; i < nseq; i++) {
      op_unlink(seq[i]);
      if (s->term) op_insert_before(s->term, seq[i]);
      else op_append(s->blk, seq[i]);
    }
    free(seq);
    free(starts);
    free(dones);
  }
  free(pos);
  free(ops_before);
  free(split);
  return changed;
}

static void schedule_block(PassContext *pc, Block *b, double budget) {
  Sched s = {.pc = pc, .blk = b};
  if (!sched_build(&s)) {
    sched_free(&s);
    return;
  }
  s.budget = budget;
  int nn = s.n + s.ncoll;
  Run r = {.s = &s, .ready_start = -1};
  r.ready.v = xrealloc(NULL, sizeof(int) * (size_t)(nn + 1));
  r.inflight = xrealloc(NULL, sizeof(int) * (size_t)(s.ncoll + 1));
  r.emitted = xcalloc((size_t)nn + 1, sizeof(bool));
  r.order = xrealloc(NULL, sizeof(int) * (size_t)(nn + 1));
  int first_start = -1;
  for (int i = 0; i < s.n; i++)
    if (s.indeg[i] == 0) {
      if (s.coll[i] >= 0) first_start = i;
      else heap_push(&r.ready, i);
    }
  while (r.next_orig < s.n && s.coll[r.next_orig] >= 0) r.next_orig++;
  if (first_start >= 0) set_ready_start(&r, first_start);
  while (r.norder < nn) emit_node(&r, pick_node(&r));
  sched_apply(&s, r.order, r.norder);
  free(r.ready.v);
  free(r.inflight);
  free(r.emitted);
  free(r.order);
  sched_free(&s);
}

/* ------------------------------------------------------------------ */

/* Functions interpreter.run_parallel runs next to a different function. */
static void note_mpmd(const Attr *a, int *distinct, const char **first) {
  if (!a) return;
  if (a->kind == ATTR_ARRAY) {
    for (int i = 0; i < a->u.array.n; i++) note_mpmd(a->u.array.items[i], distinct, first);
    return;
  }
  if (a->kind != ATTR_SYMREF) return;
  if (!*first) *first = a->u.str.s;
  else if (strcmp(*first, a->u.str.s) != 0) *distinct = 2;
}

static void mark_mpmd(const Attr *a, Module *m, Table *mpmd) {
  if (!a) return;
  if (a->kind == ATTR_ARRAY) {
    for (int i = 0; i < a->u.array.n; i++) mark_mpmd(a->u.array.items[i], m, mpmd);
    return;
  }
  Op *f = a->kind == ATTR_SYMREF ? module_lookup_func(m, a->u.str.s) : NULL;
  if (f) *table_put(mpmd, f, 0) = f;
}

static void find_mpmd(Module *m, Block *b, Table *mpmd) {
  for (Op *op = b->first; op; op = op->next) {
    if (op->kind == OP_INTERPRETER_RUN_PARALLEL) {
      const Attr *progs = op_attr(op, "programs");
      int distinct = 1;
      const char *first = NULL;
      note_mpmd(progs, &distinct, &first);
      if (distinct > 1) mark_mpmd(progs, m, mpmd);
    }
    for (int r = 0; r < op->nregions; r++)
      for (int k = 0; k < op->regions[r].nblocks; k++) find_mpmd(m, op->regions[r].blocks[k], mpmd);
  }
}

/* Combines and schedules b and the blocks nested in it.  A block that
 * already holds async collectives (the pass ran, or they were written by
 * hand) is left as it is. */
static void overlap_block(PassContext *pc, Block *b, double budget, bool combine) {
  bool scheduled = false;
  for (Op *op = b->first; op; op = op->next) {
    scheduled |= op->kind == OP_TPU_ASYNC_START;
    if (op->kind == OP_WHILE || op->kind == OP_IF || op->kind == OP_CASE)
      for (int r = 0; r < op->nregions; r++)
        for (int k = 0; k < op->regions[r].nblocks; k++) overlap_block(pc, op->regions[r].blocks[k], budget, combine);
  }
  if (scheduled) return;
  if (combine) combine_block(pc->c, b);
  schedule_block(pc, b, budget);
}

/* Bytes of the resident weights: every constant but splats. */
static double resident_constants(const Block *b) {
  double sum = 0;
  for (const Op *o = b->first; o; o = o->next) {
    const Attr *v = o->kind == OP_CONSTANT ? op_attr(o, "value") : NULL;
    if (v && !(v->kind == ATTR_DENSE && (v->u.dense.splat || dense_num_elements(v) == 1)))
      sum += cost_tiled_bytes(o->results[0].type);
    for (int r = 0; r < o->nregions; r++)
      for (int k = 0; k < o->regions[r].nblocks; k++) sum += resident_constants(o->regions[r].blocks[k]);
  }
  return sum;
}

bool pass_collective_overlap(PassContext *pc) {
  Table mpmd = {0};
  double constants = 0;
  FOR_EACH_FUNC(pc->m, f) {
    find_mpmd(pc->m, op_body(f), &mpmd);
    constants += resident_constants(op_body(f));
  }
  double budget = (double)pc->target->hbm_bytes - constants;
  FOR_EACH_FUNC(pc->m, f) overlap_block(pc, op_body(f), budget, !table_get(&mpmd, f, 0));
  table_free(&mpmd, NULL);
  return true;
}
