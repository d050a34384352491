/* How each op is partitioned (passes/spmd_part.h).  Three rules cover
 * every op:
 *
 *   - local: an op with a dim map (passes/spmd_dims.c) is computed on
 *     pieces.  Its compute layout is the target layout with the result
 *     dims no operand maps left whole; each operand is resharded to the
 *     layout the map gives it.  When the operands already tile the dims
 *     the op reduces over (a reduce's dimensions, dot_general's
 *     contracting pairs, convolution's input features) consistently, the
 *     op runs on them as they are and the partial results are combined:
 *     reduce_scatter when the target tiles the result exactly as far as
 *     the groups reach, else all_reduce.  Uneven pieces are masked first
 *     (zeros for contractions, the init value for reduces).
 *   - constants and iotas are made locally (a splat at the local shape;
 *     the piece of a dense constant; an iota plus the piece's offset);
 *   - every other op runs on whole operands (all-gathered as needed) and
 *     its whole results are sliced to their layouts: correct for any op,
 *     and what XLA does for the ops it cannot partition.
 * JAX's annotations are identities that reshard their operand, and
 * manual (shard_map) values are passed through untouched. */
#include <stdlib.h>
#include <string.h>

#include "passes/fold.h"
#include "passes/spmd_part.h"

static bool is_target(const Op *op, const char *name) {
  const Annotation *an = custom_call_annotation(op);
  return an && strcmp(an->target, name) == 0;
}

const Sharding *part_target(Part *P, const Op *op, int r) {
  const Type *t = op->results[r].type;
  if (!type_is_tensor(t) || t->rank < 0) return NULL;
  const Sharding *l = layout_full(P->s, spmd_op_sharding(P->s, op, r), t->rank);
  return l ? l : layout_replicated(P->s, t->rank);
}

static const Sharding *layout_of(const Part *P, const Value *old) {
  const Local *lo = part_get(P, old);
  return lo ? lo->l : NULL;
}

void part_finish(Part *P, const Op *op, int r, Value *v, const Sharding *l) {
  const Sharding *want = part_target(P, op, r);
  if (l && want) {
    v = part_reshard(P, v, l, want, op->results[r].type);
    l = want;
  }
  part_put(P, &op->results[r], v, l, false);
}

void part_mark_inside(Context *c, const Op *op, ValueMap *inside) {
  for (int r = 0; r < op->nregions; r++)
    for (int j = 0; j < op->regions[r].nblocks; j++) {
      Block *b = op->regions[r].blocks[j];
      for (int a = 0; a < b->nargs; a++) value_map_put(c, inside, &b->args[a], &b->args[a]);
      for (Op *in = b->first; in; in = in->next) {
        for (int k = 0; k < in->nresults; k++) value_map_put(c, inside, &in->results[k], &in->results[k]);
        part_mark_inside(c, in, inside);
      }
    }
}

/* Maps the outer values op's regions use (StableHLO regions may capture)
 * to their whole local values. */
static void map_captures(Part *P, const Op *op, const ValueMap *inside, ValueMap *m) {
  for (int r = 0; r < op->nregions; r++)
    for (int j = 0; j < op->regions[r].nblocks; j++)
      for (Op *in = op->regions[r].blocks[j]->first; in; in = in->next) {
        for (int i = 0; i < in->noperands; i++) {
          const Value *v = in->operands[i];
          if (value_map_get(inside, v) || value_map_get(m, v)) continue;
          const Type *t = v->type;
          bool tensor = type_is_tensor(t) && t->rank >= 0;
          value_map_put(P->s->c, m, v, part_operand_as(P, v, tensor ? layout_replicated(P->s, t->rank) : NULL));
        }
        map_captures(P, in, inside, m);
      }
}

/* op's attributes but its shardings (they describe the global value); *n
 * receives their count. */
static NamedAttr *attrs_but_sharding(Part *P, const Op *op, int *n) {
  NamedAttr *attrs = arena_alloc(&P->s->c->arena, sizeof(NamedAttr) * (size_t)(op->nattrs + 1));
  *n = 0;
  for (int i = 0; i < op->nattrs; i++)
    if (strcmp(op->attrs[i].name, "mhlo.sharding") && strcmp(op->attrs[i].name, "sdy.sharding"))
      attrs[(*n)++] = op->attrs[i];
  return attrs;
}

Op *part_clone(Part *P, const Op *op, Value **vals, Type **types) {
  Context *c = P->s->c;
  int n;
  NamedAttr *attrs = attrs_but_sharding(P, op, &n);
  ValueMap inside = {0}, m = {0};
  if (op->nregions) {
    part_mark_inside(c, op, &inside);
    map_captures(P, op, &inside, &m);
  }
  Op *copy = op_create(c, op->kind, op->name, op->loc, op->noperands, vals, op->nresults, types, n, attrs, op->nregions);
  copy->srcloc = op->srcloc;
  for (int r = 0; r < op->nregions; r++) region_clone_into(c, &op->regions[r], &copy->regions[r], &m);
  op_insert_before(P->at, copy);
  return copy;
}

/* ------------------------------------------------------------------ */
/* Whole: every operand gathered, the op as written. */

static bool rule_whole(Part *P, Op *op) {
  Value **vals = arena_alloc(&P->s->c->arena, sizeof(Value *) * (size_t)(op->noperands + 1));
  Type **types = arena_alloc(&P->s->c->arena, sizeof(Type *) * (size_t)(op->nresults + 1));
  for (int i = 0; i < op->noperands; i++) {
    const Type *t = op->operands[i]->type;
    bool tensor = type_is_tensor(t) && t->rank >= 0;
    vals[i] = part_operand_as(P, op->operands[i], tensor ? layout_replicated(P->s, t->rank) : NULL);
  }
  for (int r = 0; r < op->nresults; r++) types[r] = op->results[r].type;
  Op *copy = part_clone(P, op, vals, types);
  for (int r = 0; r < op->nresults; r++) {
    const Type *t = op->results[r].type;
    bool tensor = type_is_tensor(t) && t->rank >= 0;
    part_finish(P, op, r, &copy->results[r], tensor ? layout_replicated(P->s, t->rank) : NULL);
  }
  return true;
}

/* ------------------------------------------------------------------ */
/* Local computation on pieces */

typedef struct Plan {
  int k;                       /* result rank */
  int64_t map[8][SHARDING_MAX_RANK + 1]; /* operand i's dim for result dim e */
  int nred;
  int64_t red[2][SHARDING_MAX_RANK + 1]; /* reduction dims of operands 0 and 1 */
  const Sharding *in[8];       /* operand layouts */
  const Sharding *out;         /* the compute layout of the results */
  bool partial;                /* results are partial sums over the reduction dims */
} Plan;

static bool is_reduction_dim(const Plan *pl, int i, int d) {
  for (int j = 0; j < pl->nred && i < 2; j++)
    if (pl->red[i][j] == d) return true;
  return false;
}

static bool is_mapped(const Plan *pl, int i, int d) {
  for (int e = 0; e < pl->k; e++)
    if (pl->map[i][e] == d) return true;
  return false;
}

/* Whether pieces of a reduce may be reduced separately, each from the
 * init value (which also fills the padding), and combined: its body is a
 * single binary op of its two arguments that is idempotent (maximum,
 * minimum, and, or: the init value counted N times changes nothing), or
 * whose init value is its identity (add, or, xor: zero; multiply: one). */
static bool pieces_combine(const Op *op) {
  const Block *b = op->nregions ? op_body(op) : NULL;
  const Op *f = b ? b->first : NULL;
  if (!f || f->next != b->last || f->noperands != 2 || b->nargs != 2 ||
      !((f->operands[0] == &b->args[0] && f->operands[1] == &b->args[1]) ||
        (f->operands[0] == &b->args[1] && f->operands[1] == &b->args[0])))
    return false;
  if (f->kind == OP_MAXIMUM || f->kind == OP_MINIMUM || f->kind == OP_AND || f->kind == OP_OR) return true;
  const Attr *init = fold_known_value(op->operands[1]);
  if (!init || init->kind != ATTR_DENSE || dense_num_elements(init) != 1) return false;
  ElemKind k = init->type->elem;
  if (elem_is_complex(k)) return false;
  int bits = elem_bits(k);
  uint64_t got = dense_get_bits(init, 0), mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
  switch (f->kind) {
  case OP_ADD: case OP_XOR:
    return (got & mask) == 0 || (elem_is_float(k) && (got & mask) == (double_to_float_bits(k, -0.0) & mask));
  case OP_MULTIPLY: return (got & mask) == ((elem_is_float(k) ? double_to_float_bits(k, 1.0) : 1) & mask);
  default: return false;
  }
}

/* The partitions whose partial results one combine adds (they differ only
 * in lhs's reduction dims) hold the same piece of the result. */
static bool groups_share_result(Part *P, const Plan *pl, const Sharding *lhs) {
  bool vary[SHARDING_MAX_RANK + 1] = {0};
  for (int j = 0; j < pl->nred; j++) vary[pl->red[0][j]] = true;
  int64_t *ids = xcalloc((size_t)P->s->n, sizeof(int64_t));
  int64_t size = part_groups(P, lhs, vary, ids);
  const int64_t *co = layout_coords(P->s, pl->out);
  int k = pl->k;
  bool same = true;
  for (int64_t g = 0; g < P->s->n && same; g++) {
    int64_t first = ids[g - g % size], p = ids[g];
    same = memcmp(co + p * (k + 1), co + first * (k + 1), sizeof(int64_t) * (size_t)k) == 0;
  }
  free(ids);
  return same;
}

/* The operands as they are, when they tile reduction dims consistently
 * and nothing else unmapped: the compute layout from their coordinates. */
static bool plan_partial(Part *P, const Op *op, Plan *pl) {
  Spmd *s = P->s;
  int nin = op->kind == OP_REDUCE ? 1 : 2; /* reduce: its input; contractions: lhs and rhs */
  if (!pl->nred || op->noperands < nin || (op->kind == OP_REDUCE && !pieces_combine(op))) return false;
  const Sharding *cur[2] = {layout_of(P, op->operands[0]), nin > 1 ? layout_of(P, op->operands[1]) : NULL};
  if (!cur[0] || (nin > 1 && !cur[1])) return false;
  bool tiled = false;
  for (int j = 0; j < pl->nred; j++) {
    int64_t a = pl->red[0][j], b = nin > 1 ? pl->red[1][j] : -1;
    if (cur[0]->tiles[a] > 1) tiled = true;
    if (b >= 0 && cur[0]->tiles[a] != cur[1]->tiles[b]) return false;
  }
  if (!tiled) return false;
  for (int i = 0; i < nin; i++)
    for (int d = 0; d < cur[i]->rank; d++)
      if (cur[i]->tiles[d] > 1 && !is_mapped(pl, i, d) && !is_reduction_dim(pl, i, d)) return false;
  const int64_t *c0 = layout_coords(s, cur[0]), *c1 = nin > 1 ? layout_coords(s, cur[1]) : NULL;
  int k = pl->k, r0 = cur[0]->rank, r1 = nin > 1 ? cur[1]->rank : 0;
  int64_t tiles[SHARDING_MAX_RANK + 1];
  int64_t *co = xcalloc((size_t)(s->n * (k + 1)), sizeof(int64_t));
  bool consistent = true;
  for (int64_t p = 0; p < s->n && consistent; p++) {
    for (int j = 0; j < pl->nred && c1; j++)
      if (c0[p * (r0 + 1) + pl->red[0][j]] != c1[p * (r1 + 1) + pl->red[1][j]]) consistent = false;
    for (int e = 0; e < k; e++) {
      int64_t a = pl->map[0][e], b = nin > 1 ? pl->map[1][e] : -1;
      int64_t ca = a >= 0 ? c0[p * (r0 + 1) + a] : 0, cb = b >= 0 ? c1[p * (r1 + 1) + b] : 0;
      int64_t ta = a >= 0 ? cur[0]->tiles[a] : 1, tb = b >= 0 ? cur[1]->tiles[b] : 1;
      if (a >= 0 && b >= 0 && (ta != tb || ca != cb)) consistent = false;
      tiles[e] = ta > 1 ? ta : tb;
      co[p * (k + 1) + e] = ta > 1 ? ca : cb;
    }
    co[p * (k + 1) + k] = 0;
  }
  pl->out = consistent ? layout_from_coords(s, k, tiles, co) : NULL;
  free(co);
  if (!pl->out || !groups_share_result(P, pl, cur[0])) return false;
  pl->in[0] = cur[0];
  if (nin > 1) pl->in[1] = cur[1];
  for (int i = nin; i < op->noperands; i++) pl->in[i] = layout_replicated(s, op->operands[i]->type->rank);
  pl->partial = true;
  return true;
}

/* The target with the result dims no operand can supply left whole, and
 * each operand's layout by its map. */
static void plan_from_target(Part *P, const Op *op, const Sharding *want, Plan *pl) {
  Spmd *s = P->s;
  const Sharding *c = want;
  const Type *rt = op->results[0].type;
  for (int e = 0; e < pl->k; e++) {
    if (c->tiles[e] == 1) continue;
    /* a broadcast's new dims are copies: any piece of them is local */
    bool supplied = op->noperands == 0 || op->kind == OP_BROADCAST_IN_DIM, uneven = false;
    for (int i = 0; i < op->noperands; i++) {
      int64_t d = pl->map[i][e], t = c->tiles[e];
      if (d < 0) continue;
      supplied = true;
      if (op->kind == OP_RESHAPE && (op->operands[i]->type->dims[d] % t || rt->dims[e] % t)) uneven = true;
    }
    if (!supplied || uneven) c = layout_untile(s, c, e);
  }
  pl->out = c;
  for (int i = 0; i < op->noperands; i++) {
    const Type *t = op->operands[i]->type;
    int64_t inv[SHARDING_MAX_RANK + 1];
    for (int d = 0; d < t->rank; d++) inv[d] = -1;
    for (int e = 0; e < pl->k; e++)
      if (pl->map[i][e] >= 0) inv[pl->map[i][e]] = e;
    pl->in[i] = layout_map(s, c, t->rank, inv);
  }
}

/* slice, dynamic_slice and gather name sizes: the local extent where
 * they take a dim whole (a dim they cut stays whole on every partition). */
static void localize_attrs(Part *P, const Op *op, Op *copy) {
  Context *c = P->s->c;
  const char *name = op->kind == OP_SLICE ? "limit_indices" : "slice_sizes";
  int n;
  const int64_t *sizes;
  if ((op->kind != OP_SLICE && op->kind != OP_DYNAMIC_SLICE && op->kind != OP_GATHER) ||
      !attr_as_i64_list(op_attr(op, name), &n, &sizes, &c->arena))
    return;
  const Type *g = part_get(P, op->operands[0])->global, *l = copy->operands[0]->type;
  int64_t local[SHARDING_MAX_RANK + 1];
  for (int d = 0; d < n && d < g->rank && d <= SHARDING_MAX_RANK; d++) local[d] = sizes[d] == g->dims[d] ? l->dims[d] : sizes[d];
  op_set_attr(c, copy, name, attr_dense_i64_array(c, n, local));
}

/* The partial results combined over the reduction dims' groups. */
static void combine(Part *P, const Op *op, const Plan *pl, Op *copy) {
  Spmd *s = P->s;
  bool vary[SHARDING_MAX_RANK + 1] = {0};
  for (int j = 0; j < pl->nred; j++) vary[pl->red[0][j]] = true;
  int64_t *ids = xcalloc((size_t)s->n, sizeof(int64_t));
  int64_t size = part_groups(P, pl->in[0], vary, ids);
  const Region *body = op->kind == OP_REDUCE ? &op->regions[0] : NULL;
  Value *x = &copy->results[0];
  OpKind kind = x->type->elem == ELEM_I1 ? OP_OR : OP_ADD;
  const Sharding *want = part_target(P, op, 0);
  /* reduce_scatter when want tiles one dim d `size` times finer than the
   * compute layout, each group's members holding its pieces in order. */
  int d = -1;
  for (int e = 0; e < pl->k; e++)
    if (want->tiles[e] != pl->out->tiles[e]) d = d == -1 && want->tiles[e] == pl->out->tiles[e] * size ? e : -2;
  if (d >= 0 && op->results[0].type->dims[d] % want->tiles[d] == 0) {
    const int64_t *cw = layout_coords(s, want), *co = layout_coords(s, pl->out);
    bool fits = true;
    for (int64_t g = 0; g < s->n && fits; g++) {
      int64_t p = ids[g], pos = g % size;
      for (int e = 0; e < pl->k; e++) {
        int64_t expect = e == d ? co[p * (pl->k + 1) + e] * size + pos : co[p * (pl->k + 1) + e];
        if (cw[p * (pl->k + 1) + e] != expect) fits = false;
      }
    }
    if (fits) {
      Value *y = part_reduce_scatter(P, x, d, size, ids, body, kind);
      free(ids);
      part_put(P, &op->results[0], y, want, false);
      return;
    }
  }
  Value *y = part_all_reduce(P, x, size, ids, body, kind);
  free(ids);
  part_finish(P, op, 0, y, pl->out);
}

/* Operand i resharded to its plan layout, its uneven reduction dims
 * masked for a partial computation. */
static Value *plan_operand(Part *P, const Op *op, const Plan *pl, int i) {
  const Type *t = op->operands[i]->type;
  Value *v = part_operand_as(P, op->operands[i], type_is_tensor(t) ? pl->in[i] : NULL);
  if (!pl->partial || i >= 2 || (op->kind == OP_REDUCE && i > 0)) return v;
  bool dims[SHARDING_MAX_RANK + 1] = {0};
  for (int j = 0; j < pl->nred; j++)
    if (pl->red[i][j] >= 0) dims[pl->red[i][j]] = true;
  Value *fill = op->kind == OP_REDUCE ? part_operand_as(P, op->operands[1], layout_replicated(P->s, 0))
                                      : part_zero_like(P, t->elem);
  return part_mask(P, v, pl->in[i], t->dims, dims, fill);
}

/* The bytes a plan moves: its operands' reshards and its result's. */
static int64_t plan_bytes(Part *P, const Op *op, const Plan *pl) {
  int64_t bytes = 0;
  for (int i = 0; i < op->noperands; i++) {
    const Local *lo = part_get(P, op->operands[i]);
    if (lo->l && pl->in[i]) bytes += part_reshard_bytes(P, lo->l, pl->in[i], lo->global);
  }
  return bytes + part_reshard_bytes(P, pl->out, part_target(P, op, 0), op->results[0].type);
}

/* The cheaper of computing in the target's layout (operands resharded)
 * and in the operands' own combined layout (the result resharded); on a
 * tie the one that cuts the work into more pieces, then the target's. */
static void plan_cheapest(Part *P, const Op *op, Plan *pl) {
  plan_from_target(P, op, part_target(P, op, 0), pl);
  const Sharding **cur = arena_alloc(&P->s->c->arena, sizeof(Sharding *) * (size_t)(op->noperands + 1));
  for (int i = 0; i < op->noperands; i++) cur[i] = layout_of(P, op->operands[i]);
  const Sharding *own = op->noperands ? spmd_combine(P->s, op, cur, false) : NULL;
  if (!own || part_same_data(P, own, pl->out)) return;
  Plan *alt = xcalloc(1, sizeof *alt);
  *alt = *pl;
  plan_from_target(P, op, own, alt);
  int64_t a = plan_bytes(P, op, alt), b = plan_bytes(P, op, pl);
  if (a < b || (a == b && layout_pieces(alt->out) > layout_pieces(pl->out))) *pl = *alt;
  free(alt);
}

static bool rule_local(Part *P, Op *op, Plan *pl) {
  Context *c = P->s->c;
  if (!plan_partial(P, op, pl)) {
    pl->partial = false;
    plan_cheapest(P, op, pl);
  }
  Value **vals = arena_alloc(&c->arena, sizeof(Value *) * (size_t)(op->noperands + 1));
  Type **types = arena_alloc(&c->arena, sizeof(Type *) * (size_t)(op->nresults + 1));
  for (int i = 0; i < op->noperands; i++) vals[i] = plan_operand(P, op, pl, i);
  for (int r = 0; r < op->nresults; r++) types[r] = layout_local_type(P->s, pl->out, op->results[r].type);
  Op *copy = part_clone(P, op, vals, types);
  localize_attrs(P, op, copy);
  if (pl->partial) {
    combine(P, op, pl, copy);
    return true;
  }
  for (int r = 0; r < op->nresults; r++) part_finish(P, op, r, &copy->results[r], pl->out);
  return true;
}

/* Whether op can be computed on pieces: a dim map for every operand, one
 * static tensor shape for all results, regions only as scalar bodies. */
static bool plan_map(Part *P, const Op *op, Plan *pl) {
  if (op->nresults < 1 || op->noperands > 8 || (op_info[op->kind].traits & TRAIT_SIDE_EFFECT)) return false;
  const Type *rt = op->results[0].type;
  if (!type_is_tensor(rt) || !type_is_static(rt) || rt->rank > SHARDING_MAX_RANK) return false;
  for (int r = 1; r < op->nresults; r++)
    if (op->results[r].type->kind != TY_TENSOR || !type_same_dims(op->results[r].type, rt))
      return false;
  if (op->nregions && op->kind != OP_REDUCE && op->kind != OP_SORT && op->kind != OP_MAP &&
      op->kind != OP_REDUCE_WINDOW && op->kind != OP_SCATTER)
    return false;
  pl->k = rt->rank;
  for (int i = 0; i < op->noperands; i++) {
    const Type *t = op->operands[i]->type;
    if (!type_is_tensor(t) || !type_is_static(t) || !spmd_dim_map(P->s, op, i, pl->map[i])) return false;
  }
  pl->nred = spmd_reduction_dims(P->s, op, pl->red[0], pl->red[1]);
  return true;
}

/* ------------------------------------------------------------------ */
/* Constants and iotas */

static bool rule_constant(Part *P, Op *op) {
  const Attr *v = op_attr(op, "value");
  const Sharding *want = part_target(P, op, 0);
  const Type *t = op->results[0].type;
  if (want && v && v->kind == ATTR_DENSE && v->u.dense.splat) {
    part_put(P, &op->results[0], part_splat(P, layout_local_type(P->s, want, op->results[0].type), v->u.dense.data),
             want, false);
    return true;
  }
  Op *copy = part_clone(P, op, NULL, (Type *[]){op->results[0].type});
  part_finish(P, op, 0, &copy->results[0], want ? layout_replicated(P->s, t->rank) : NULL);
  return true;
}

/* An iota along a tiled dim counts from its piece's offset: made in a
 * signed integer type wide enough, the offset added there, and converted
 * once to the result type (a float iota rounds each value once). */
static bool rule_iota(Part *P, Op *op) {
  Context *c = P->s->c;
  const Sharding *want = part_target(P, op, 0);
  int64_t d = 0;
  attr_as_int(op_attr(op, "iota_dimension"), &d);
  Type *gt = op->results[0].type, *lt = layout_local_type(P->s, want, gt);
  if (d < 0 || d >= want->rank || want->tiles[d] == 1) {
    part_put(P, &op->results[0], &part_clone(P, op, NULL, &lt)->results[0], want, false);
    return true;
  }
  ElemKind ik = gt->dims[d] > INT32_MAX ? ELEM_I64 : ELEM_I32;
  Type *it = type_tensor(c, ik, lt->rank, lt->dims, NULL);
  Value *x = &part_clone(P, op, NULL, &it)->results[0];
  Value *off = part_offset(P, want, (int)d, gt->dims[d], NULL);
  if (ik != ELEM_I32) off = part_emit(P, OP_CONVERT, 1, &off, type_scalar_tensor(c, ik), 0, NULL);
  NamedAttr bd = {"broadcast_dimensions", attr_dense_i64_array(c, 0, NULL)};
  Value *b = part_emit(P, OP_BROADCAST_IN_DIM, 1, &off, it, 1, &bd);
  Value *sum[2] = {x, b};
  x = part_emit(P, OP_ADD, 2, sum, it, 0, NULL);
  if (lt != it) x = part_emit(P, OP_CONVERT, 1, &x, lt, 0, NULL);
  part_put(P, &op->results[0], x, want, false);
  return true;
}

/* ------------------------------------------------------------------ */
/* Control flow: the regions are partitioned in place and move to a new
 * op on the local values. */

/* A copy of op's kind and attributes (no sharding) on vals, with the
 * regions of op moved into it. */
static Op *take_regions(Part *P, Op *op, Value **vals, Type **types) {
  Context *c = P->s->c;
  int n;
  NamedAttr *attrs = attrs_but_sharding(P, op, &n);
  Op *w = op_create(c, op->kind, op->name, op->loc, op->noperands, vals, op->nresults, types, n, attrs, op->nregions);
  w->srcloc = op->srcloc;
  for (int r = 0; r < op->nregions; r++) {
    w->regions[r].nblocks = op->regions[r].nblocks;
    w->regions[r].blocks = op->regions[r].blocks;
    for (int j = 0; j < w->regions[r].nblocks; j++) w->regions[r].blocks[j]->parent = &w->regions[r];
    op->regions[r].nblocks = 0;
    op->regions[r].blocks = NULL;
  }
  op_insert_before(P->at, w);
  return w;
}

/* while: the loop-carried values keep the while's layouts (propagation
 * gives it those of its initial values); cond's predicate is whole. */
static bool rule_while(Part *P, Op *op) {
  Context *c = P->s->c;
  int n = op->noperands;
  const Sharding **l = arena_alloc(&c->arena, sizeof(Sharding *) * (size_t)(n + 1));
  bool *manual = arena_alloc(&c->arena, sizeof(bool) * (size_t)(n + 1));
  Value **vals = arena_alloc(&c->arena, sizeof(Value *) * (size_t)(n + 1));
  Type **types = arena_alloc(&c->arena, sizeof(Type *) * (size_t)(n + 1));
  for (int i = 0; i < n; i++) {
    const Local *lo = part_get(P, op->operands[i]);
    manual[i] = lo->manual;
    l[i] = lo->manual || !lo->l ? NULL : part_target(P, op, i);
    vals[i] = l[i] ? part_operand_as(P, op->operands[i], l[i]) : lo->v;
    types[i] = vals[i]->type;
  }
  const Sharding *pred[1] = {layout_replicated(P->s, 0)};
  if (!part_block(P, op->regions[0].blocks[0], l, manual, pred) || !part_block(P, op->regions[1].blocks[0], l, manual, l))
    return false;
  Op *w = take_regions(P, op, vals, types);
  for (int i = 0; i < n; i++) part_put(P, &op->results[i], &w->results[i], l[i], manual[i]);
  return true;
}

/* if / case: a whole predicate or index; each branch returns the
 * results' layouts. */
static bool rule_branches(Part *P, Op *op) {
  Context *c = P->s->c;
  int n = op->nresults;
  const Sharding **l = arena_alloc(&c->arena, sizeof(Sharding *) * (size_t)(n + 1));
  Type **types = arena_alloc(&c->arena, sizeof(Type *) * (size_t)(n + 1));
  Value *sel = part_operand_as(P, op->operands[0], layout_replicated(P->s, 0));
  for (int r = 0; r < n; r++) {
    l[r] = part_target(P, op, r);
    types[r] = l[r] ? layout_local_type(P->s, l[r], op->results[r].type) : op->results[r].type;
  }
  for (int r = 0; r < op->nregions; r++)
    if (op->regions[r].nblocks != 1 || !part_block(P, op->regions[r].blocks[0], NULL, NULL, l)) return false;
  Op *w = take_regions(P, op, &sel, types);
  for (int r = 0; r < n; r++) part_put(P, &op->results[r], &w->results[r], l[r], false);
  return true;
}

/* ------------------------------------------------------------------ */
/* Annotations and manual values */

static bool rule_manual(Part *P, Op *op) {
  Value **vals = arena_alloc(&P->s->c->arena, sizeof(Value *) * (size_t)(op->noperands + 1));
  Type **types = arena_alloc(&P->s->c->arena, sizeof(Type *) * (size_t)(op->nresults + 1));
  for (int i = 0; i < op->noperands; i++) {
    const Local *lo = part_get(P, op->operands[i]);
    const Type *t = op->operands[i]->type;
    vals[i] = lo->manual || !lo->l ? lo->v : part_operand_as(P, op->operands[i], layout_replicated(P->s, t->rank));
  }
  for (int r = 0; r < op->nresults; r++) types[r] = op->results[r].type;
  Op *copy = part_clone(P, op, vals, types);
  for (int r = 0; r < op->nresults; r++) part_put(P, &op->results[r], &copy->results[r], NULL, true);
  return true;
}

static bool any_manual_operand(const Part *P, const Op *op) {
  for (int i = 0; i < op->noperands; i++) {
    const Local *lo = part_get(P, op->operands[i]);
    if (lo && lo->manual) return true;
  }
  return false;
}

/* shard_map's boundaries: global value -> its local piece, and back. */
static bool rule_shard_shape(Part *P, Op *op, bool to_shard) {
  const Local *lo = part_get(P, op->operands[0]);
  const Type *rt = op->results[0].type;
  if (to_shard) {
    if (!lo->l || lo->v->type != rt) {
      op_error(P->s->c, op, "the piece of its operand under its sharding is '%s', not the result type '%s'",
               type_to_string(P->s->c, lo->v->type), type_to_string(P->s->c, rt));
      return false;
    }
    part_put(P, &op->results[0], lo->v, NULL, true);
    return true;
  }
  const Sharding *want = part_target(P, op, 0);
  if (layout_local_type(P->s, want, (Type *)rt) != lo->v->type) {
    op_error(P->s->c, op, "its operand '%s' is not the piece of the result '%s' under the result's sharding",
             type_to_string(P->s->c, lo->v->type), type_to_string(P->s->c, rt));
    return false;
  }
  part_put(P, &op->results[0], lo->v, want, false);
  return true;
}

/* A result sharding the partitioner cannot honour, as a located error. */
static bool unsupported_sharding(Part *P, const Op *op) {
  for (int r = 0; r < op->nresults; r++) {
    const Sharding *l = spmd_op_sharding(P->s, op, r);
    if (l && l->kind == SHARDING_TILED && l->partial_manual) {
      op_error(P->s->c, op, "result #%d is partially manual (last_tile_dims={manual}); tpucc partitions fully "
               "manual shard_map bodies only", r);
      return true;
    }
    if (l && l->kind == SHARDING_TILED && l->ndevices != P->s->n) {
      op_error(P->s->c, op, "the sharding of result #%d covers %lld devices, not the program's %lld partitions", r,
               (long long)l->ndevices, (long long)P->s->n);
      return true;
    }
  }
  return false;
}

/* sdy.manual_computation (shard_map in Shardy form): its operands in
 * in_shardings hand their pieces to the body, whose ops are inlined as
 * written (they are per-device already); sdy.return's values are the
 * results' pieces under out_shardings.  Manual over every mesh axis of
 * size > 1 only: a body that still sees tiled values is refused. */
static bool rule_manual_computation(Part *P, Op *op) {
  Context *c = P->s->c;
  if (op->nregions != 1 || op->regions[0].nblocks != 1) return rule_whole(P, op);
  Block *b = op->regions[0].blocks[0];
  const Attr *in = op_attr(op, "in_shardings");
  for (int i = 0; i < op->noperands && i < b->nargs; i++) {
    const Type *t = op->operands[i]->type;
    bool tensor = type_is_tensor(t) && t->rank >= 0;
    const Sharding *l = tensor ? layout_full(P->s, spmd_attr_sharding(P->s, in, i), t->rank) : NULL;
    if (tensor && !l) l = layout_replicated(P->s, t->rank);
    Value *v = part_operand_as(P, op->operands[i], l);
    if (v->type != b->args[i].type) {
      op_error(c, op, "operand #%d's piece under in_shardings is '%s' but the body takes '%s': the body is manual "
               "over only some mesh axes, which tpucc does not partition", i, type_to_string(c, v->type),
               type_to_string(c, b->args[i].type));
      return false;
    }
    part_put(P, &b->args[i], v, NULL, true);
  }
  for (Op *in_op = b->first; in_op && in_op != b->last; in_op = in_op->next) {
    P->loc = in_op->loc;
    if (!part_op(P, in_op)) return false;
  }
  P->loc = op->loc;
  const Op *ret = b->last;
  for (int r = 0; ret && r < op->nresults && r < ret->noperands; r++) {
    const Local *lo = part_get(P, ret->operands[r]);
    const Sharding *l = part_target(P, op, r);
    if (l && layout_local_type(P->s, l, op->results[r].type) != lo->v->type) {
      op_error(c, op, "result #%d's piece under out_shardings is '%s' but the body returns '%s'", r,
               type_to_string(c, layout_local_type(P->s, l, op->results[r].type)), type_to_string(c, lo->v->type));
      return false;
    }
    part_put(P, &op->results[r], lo->v, l, false);
  }
  return true;
}

bool part_op(Part *P, Op *op) {
  P->s->pc->steps++;
  if (unsupported_sharding(P, op)) return false;
  if (is_target(op, "SPMDFullToShardShape")) return rule_shard_shape(P, op, true);
  if (is_target(op, "SPMDShardToFullShape")) return rule_shard_shape(P, op, false);
  if (op->kind == OP_SDY_MANUAL_COMPUTATION) return rule_manual_computation(P, op);
  if (any_manual_operand(P, op)) return rule_manual(P, op);
  if (spmd_is_constraint(op) && op->noperands == 1 && op->nresults == 1) {
    const Sharding *want = part_target(P, op, 0);
    part_put(P, &op->results[0], part_operand_as(P, op->operands[0], want), want, false);
    return true;
  }
  if (op->kind == OP_CONSTANT && op->nresults == 1) return rule_constant(P, op);
  if (op->kind == OP_WHILE && op->nregions == 2 && op->regions[0].nblocks == 1 && op->regions[1].nblocks == 1)
    return rule_while(P, op);
  if ((op->kind == OP_IF || op->kind == OP_CASE) && op->noperands == 1) return rule_branches(P, op);
  if (op->kind == OP_IOTA && part_target(P, op, 0)) return rule_iota(P, op);
  int halo = part_halo(P, op);
  if (halo >= 0) return halo == 1;
  Plan *pl = xcalloc(1, sizeof *pl);
  bool ok = plan_map(P, op, pl) ? rule_local(P, op, pl) : rule_whole(P, op);
  free(pl);
  return ok;
}
