/* The call-graph rule of tpurun's loader, checked on the IR so that the
 * compiler rejects, with a location, what the VM would refuse: no function
 * may reach itself through calls (func.call, composite decompositions,
 * interpreter.run_parallel programs), and no chain of calls and region
 * bodies may nest deeper than TPU_MAX_CALL_DEPTH (common/limits.h).
 *
 * Depth counts as the loader does: a function is one level, and so is each
 * region of an op (the back end makes each a function), so a call inside a
 * while body of @f is two levels below @f.  (The back end runs a few bodies
 * inline, tpu.async_start's and non-loop fusions'; counting them too makes
 * the rule safe, never laxer than the loader.)  One depth-first search over
 * the functions with an explicit stack: linear in ops and calls, whatever
 * the depth. */
#include <stdio.h>
#include <string.h>

#include "common/limits.h"
#include "ir/table.h"
#include "ir/verify_ops.h"

typedef struct Call {
  Op *op;     /* the calling op */
  int callee; /* function index */
  int level;  /* region nesting of op in its function: 1 in the body */
} Call;

typedef struct Fn {
  Op *op;
  const char *name;
  Call *calls;
  int ncalls;
  int own;       /* levels of its own regions: 1 + their deepest nesting */
  int color;     /* 0 unvisited, 1 on the search stack, 2 done */
  int next;      /* on the stack: the next call to follow */
  int64_t depth; /* done: the longest chain from here, in levels */
  int best;      /* done: the call starting that chain, -1 for its own regions */
} Fn;

typedef struct Graph {
  Context *c;
  Table index; /* name -> function index + 1 */
  Fn *fns;
  int n;
  bool cyclic;
} Graph;

/* The function index a symbol attribute names, or -1. */
static int callee_of(const Graph *g, const Attr *sym) {
  if (!sym || (sym->kind != ATTR_SYMREF && sym->kind != ATTR_STRING) || !sym->u.str.s[0]) return -1;
  void **slot = table_get(&g->index, sym->u.str.s, strlen(sym->u.str.s));
  return slot ? (int)(intptr_t)*slot - 1 : -1;
}

/* Records a call of sym by op (counts it while f->calls is NULL). */
static void add_call(Graph *g, Fn *f, Op *op, const Attr *sym, int level) {
  int callee = callee_of(g, sym);
  if (callee < 0) return;
  if (f->calls) f->calls[f->ncalls] = (Call){op, callee, level};
  f->ncalls++;
}

static void add_calls_of(Graph *g, Fn *f, Op *op, int level) {
  if (op->kind == OP_FUNC_CALL) add_call(g, f, op, op_attr(op, "callee"), level);
  if (op->kind == OP_COMPOSITE) add_call(g, f, op, op_attr(op, "decomposition"), level);
  if (op->kind != OP_INTERPRETER_RUN_PARALLEL) return;
  const Attr *p = op_attr(op, "programs");
  for (int r = 0; p && p->kind == ATTR_ARRAY && r < p->u.array.n; r++) {
    const Attr *row = p->u.array.items[r];
    for (int k = 0; row->kind == ATTR_ARRAY && k < row->u.array.n; k++) add_call(g, f, op, row->u.array.items[k], level);
  }
}

/* Walks region r of f at nesting level: its calls and deepest level. */
static void walk_region(Graph *g, Fn *f, Region *r, int level) {
  if (level > f->own) f->own = level;
  for (int b = 0; b < r->nblocks; b++)
    for (Op *op = r->blocks[b]->first; op; op = op->next) {
      add_calls_of(g, f, op, level);
      for (int k = 0; k < op->nregions; k++) walk_region(g, f, &op->regions[k], level + 1);
    }
}

/* Appends "@name" or text to buf (of size n, len used), cut short with "...". */
static void append(char *buf, size_t n, size_t *len, const char *pre, const char *name) {
  if (*len + 4 >= n) return;
  int k = snprintf(buf + *len, n - *len, "%s%s", pre, name);
  *len += k > 0 && (size_t)k < n - *len ? (size_t)k : n - *len - 1;
  if (*len + 4 >= n) strcpy(buf + n - 4, "...");
}

/* A call on the search stack back to stack[m]: the cycle from stack[m],
 * reported at the call that starts it. */
static void report_cycle(Graph *g, const int *stack, int top, int m) {
  Fn *f = &g->fns[stack[m]];
  const Call *first = &f->calls[f->next - 1];
  g->cyclic = true;
  if (m == top - 1) {
    op_error(g->c, first->op, "@%s calls itself (tpurun runs no recursive calls)", f->name);
    return;
  }
  char cycle[1024];
  size_t len = 0;
  cycle[0] = '\0';
  for (int k = m + 1; k < top; k++) append(cycle, sizeof cycle, &len, k > m + 1 ? " -> @" : "@", g->fns[stack[k]].name);
  append(cycle, sizeof cycle, &len, " -> @", f->name);
  op_error(g->c, first->op, "@%s calls itself through %s (tpurun runs no recursive calls)", f->name, cycle);
}

/* The longest chain from f, once every callee off the stack is done
 * (callees still on it close cycles, already reported). */
static void finish(Graph *g, Fn *f) {
  f->depth = f->own;
  f->best = -1;
  for (int i = 0; i < f->ncalls; i++) {
    const Fn *h = &g->fns[f->calls[i].callee];
    if (h->color == 2 && f->calls[i].level + h->depth > f->depth) {
      f->depth = f->calls[i].level + h->depth;
      f->best = i;
    }
  }
  f->color = 2;
}

/* Depth-first search from root; stack has room for every function. */
static void search(Graph *g, int root, int *stack) {
  int top = 0;
  stack[top++] = root;
  g->fns[root].color = 1;
  while (top > 0) {
    Fn *f = &g->fns[stack[top - 1]];
    if (f->next == f->ncalls) {
      finish(g, f);
      top--;
      continue;
    }
    int callee = f->calls[f->next++].callee;
    if (g->fns[callee].color == 0) {
      g->fns[callee].color = 1;
      stack[top++] = callee;
    } else if (g->fns[callee].color == 1) {
      int m = top - 1;
      while (stack[m] != callee) m--;
      report_cycle(g, stack, top, m);
    }
  }
}

/* "@a -> @b -> ... -> @z": the longest chain from f (first and last
 * functions when it is long). */
static void chain_text(const Graph *g, const Fn *f, char *buf, size_t n) {
  int count = 0;
  for (const Fn *h = f; h; h = h->best >= 0 ? &g->fns[h->calls[h->best].callee] : NULL) count++;
  size_t len = 0;
  buf[0] = '\0';
  int k = 0;
  for (const Fn *h = f; h; h = h->best >= 0 ? &g->fns[h->calls[h->best].callee] : NULL, k++) {
    if (count > 6 && k == 3) append(buf, n, &len, " -> ", "...");
    if (count > 6 && k >= 3 && k < count - 2) continue;
    append(buf, n, &len, k ? " -> @" : "@", h->name);
  }
}

/* Reports each function whose chain is too deep while the rest of it is
 * not: one error per place where the limit is crossed. */
static void report_depth(Graph *g) {
  for (int i = 0; i < g->n; i++) {
    const Fn *f = &g->fns[i];
    if (f->depth <= TPU_MAX_CALL_DEPTH) continue;
    if (f->best < 0) {
      op_error(g->c, f->op, "nests regions %lld deep, more than the %d levels of calls and region bodies tpurun runs",
               (long long)f->depth, TPU_MAX_CALL_DEPTH);
      continue;
    }
    const Call *call = &f->calls[f->best];
    if (g->fns[call->callee].depth > TPU_MAX_CALL_DEPTH) continue;
    char chain[512];
    chain_text(g, f, chain, sizeof chain);
    op_error(g->c, call->op,
             "starts a chain of calls and region bodies %lld levels deep (%s), more than the %d tpurun runs",
             (long long)f->depth, chain, TPU_MAX_CALL_DEPTH);
  }
}

void verify_call_graph(Context *c, Module *m) {
  Block *body = op_body(m->op);
  Graph g = {.c = c};
  for (Op *op = body ? body->first : NULL; op; op = op->next) g.n += op->kind == OP_FUNC;
  if (g.n == 0) return;
  g.fns = arena_alloc(&c->arena, sizeof(Fn) * (size_t)g.n);
  int *stack = arena_alloc(&c->arena, sizeof(int) * (size_t)g.n);
  int i = 0;
  for (Op *op = body->first; op; op = op->next) {
    if (op->kind != OP_FUNC) continue;
    const char *name = op_symbol_name(op);
    g.fns[i] = (Fn){.op = op, .name = name ? name : "?"};
    if (name && name[0]) {
      void **slot = table_put(&g.index, name, strlen(name));
      if (!*slot) *slot = (void *)(intptr_t)(i + 1);
    }
    i++;
  }
  /* Two walks per function: count its calls, then record them. */
  for (i = 0; i < g.n; i++) {
    Fn *f = &g.fns[i];
    for (int pass = 0; pass < 2 && f->op->nregions > 0; pass++) {
      if (pass == 1) f->calls = arena_alloc(&c->arena, sizeof(Call) * ((size_t)f->ncalls + 1));
      f->ncalls = 0;
      walk_region(&g, f, &f->op->regions[0], 1);
    }
    if (f->own == 0) f->own = 1; /* a declaration */
  }
  for (i = 0; i < g.n; i++)
    if (g.fns[i].color == 0) search(&g, i, stack);
  if (!g.cyclic) report_depth(&g);
  table_free(&g.index, NULL);
}
