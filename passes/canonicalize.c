/* canonicalize: constant folding (passes/fold.c) and algebraic identities,
 * swept over every function until nothing changes (bounded), then DCE.
 *
 * Identities are exact, floats included: x * 1, x / 1, x + (-0.0) and
 * x - 0.0 give x, but x + 0.0 does not (-0.0 + 0.0 is +0.0); integers also
 * fold x + 0, x - 0, x * 0, x & -1, x & 0, x | 0, x | -1, x ^ 0 and shifts
 * by 0.  Shape identities: transpose of a transpose, reshape of a reshape,
 * no-op transpose / reshape / broadcast_in_dim / convert, select on a
 * constant predicate, negate(negate x), not(not x).  JAX's annotation
 * custom calls (ir/annotations.def) and sdy.sharding_constraint are their
 * operand (passes/sharding.c has checked they may be).  get_dimension_size
 * of a static dimension is that size, whatever the operand.  A rewrite
 * never changes a result type, and what it builds takes the location of
 * the op it replaces.  A dynamic op (dynamic_broadcast_in_dim, dynamic_reshape,
 * dynamic_iota, dynamic_pad, real_dynamic_slice, dynamic_gather,
 * dynamic_conv) with constant shape operands and a static result type
 * becomes its static form, and a shape assertion with a constant predicate
 * is dropped (true) or reported (false). */
#include <math.h>
#include <string.h>

#include "passes/fold.h"
#include "passes/pass.h"
#include "passes/refine.h"
#include "passes/walk.h"

#define CANON_MAX_ROUNDS 8

/* ------------------------------------------------------------------ */
/* Constants seen by the identities */

/* The bits every element of v shares, when v is a known constant. */
static bool uniform_bits(const Value *v, uint64_t *bits) { return fold_uniform(fold_known_value(v), bits); }

/* Special values of a known constant, as flags (i1 true is both 1 and
 * all ones). */
enum {
  SP_ZERO = 1,     /* integer 0 */
  SP_ONE = 2,      /* integer 1 or float 1.0 */
  SP_ALL_ONES = 4, /* integer -1 (every bit set) */
  SP_POS_ZERO = 8, /* float +0.0 */
  SP_NEG_ZERO = 16 /* float -0.0 */
};

/* Which special value every element of v is (0: none, or not constant). */
static unsigned special_value(const Value *v) {
  uint64_t bits;
  if (!type_is_tensor(v->type) || v->type->elem_opaque || !uniform_bits(v, &bits)) return 0;
  ElemKind k = v->type->elem;
  if (elem_is_int(k)) {
    int w = elem_bits(k);
    uint64_t mask = w >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << w) - 1, x = bits & mask;
    return (x == 0 ? SP_ZERO : 0) | (x == 1 ? SP_ONE : 0) | (x == mask ? SP_ALL_ONES : 0);
  }
  if (!elem_is_float(k)) return 0;
  double d = float_bits_to_double(k, bits);
  if (d == 1.0) return SP_ONE;
  if (d == 0.0) return signbit(d) ? SP_NEG_ZERO : SP_POS_ZERO;
  return 0;
}

static bool is_int_elem(const Value *v) { return type_is_tensor(v->type) && elem_is_int(v->type->elem); }

/* ------------------------------------------------------------------ */
/* Rewrites */

/* x itself when it has op's result type (a rewrite never changes types). */
static Value *same_type(const Op *op, Value *x) { return x && x->type == op->results[0].type ? x : NULL; }

/* A new stablehlo.constant before `at`, with at's location. */
static Value *constant_before(Context *c, Op *at, Attr *value) {
  NamedAttr na = {"value", value};
  Op *k = op_build(c, OP_CONSTANT, at->loc, 0, NULL, value->type, 1, &na);
  k->srcloc = at->srcloc;
  k->results[0].name_hint = at->results[0].name_hint;
  op_insert_before(at, k);
  return &k->results[0];
}

/* A copy of op (same attributes and result type) whose operand 0 is x. */
static Op *clone_on(Context *c, Op *op, Value *x) {
  ValueMap map = {0};
  value_map_put(c, &map, op->operands[0], x);
  Op *n = op_clone(c, op, &map);
  op_insert_before(op, n);
  return n;
}

/* Binary identities: x OP k where k, on the right (or either side when the
 * op commutes), is a special constant.  Gives x, or k itself when it
 * absorbs (integer x * 0, x & 0, x | -1). */
static Value *canon_binary_identity(Context *c, Op *op) {
  (void)c;
  if (op->noperands != 2) return NULL;
  Value *l = op->operands[0], *r = op->operands[1];
  unsigned sl = special_value(l), sr = special_value(r);
  bool ints = is_int_elem(l), commutes = op_info[op->kind].traits & TRAIT_COMMUTATIVE;
#define RHS_IS(w) ((sr & (w)) != 0)
#define ANY_IS(w) (RHS_IS(w) || (commutes && (sl & (w))))
#define OTHER(w) (RHS_IS(w) ? l : r) /* the side that is not the constant w */
#define CONST(w) (RHS_IS(w) ? r : l) /* the constant w */
  switch (op->kind) {
  case OP_ADD: {
    unsigned zero = ints ? SP_ZERO : SP_NEG_ZERO; /* x + 0.0 is not x for x = -0.0 */
    return ANY_IS(zero) ? same_type(op, OTHER(zero)) : NULL;
  }
  case OP_SUBTRACT: return RHS_IS(ints ? SP_ZERO : SP_POS_ZERO) ? same_type(op, l) : NULL;
  case OP_MULTIPLY:
    if (ints && ANY_IS(SP_ZERO)) return same_type(op, CONST(SP_ZERO));
    return ANY_IS(SP_ONE) ? same_type(op, OTHER(SP_ONE)) : NULL;
  case OP_DIVIDE: return RHS_IS(SP_ONE) ? same_type(op, l) : NULL;
  case OP_AND:
    if (!ints) return NULL;
    if (ANY_IS(SP_ZERO)) return same_type(op, CONST(SP_ZERO));
    return ANY_IS(SP_ALL_ONES) ? same_type(op, OTHER(SP_ALL_ONES)) : NULL;
  case OP_OR:
    if (!ints) return NULL;
    if (ANY_IS(SP_ALL_ONES)) return same_type(op, CONST(SP_ALL_ONES));
    return ANY_IS(SP_ZERO) ? same_type(op, OTHER(SP_ZERO)) : NULL;
  case OP_XOR: return ints && ANY_IS(SP_ZERO) ? same_type(op, OTHER(SP_ZERO)) : NULL;
  case OP_SHIFT_LEFT:
  case OP_SHIFT_RIGHT_LOGICAL:
  case OP_SHIFT_RIGHT_ARITHMETIC: return RHS_IS(SP_ZERO) ? same_type(op, l) : NULL;
  default: return NULL;
  }
#undef RHS_IS
#undef ANY_IS
#undef OTHER
#undef CONST
}

static bool is_identity_perm(int n, const int64_t *p) {
  for (int i = 0; i < n; i++)
    if (p[i] != i) return false;
  return true;
}

/* transpose: identity permutation -> x; transpose of a transpose -> one
 * transpose with the composed permutation (or x). */
static Value *canon_transpose(Context *c, Op *op) {
  Value *x = op->operands[0];
  int n;
  const int64_t *p;
  if (!attr_as_i64_list(op_attr(op, "permutation"), &n, &p, &c->arena)) return NULL;
  if (is_identity_perm(n, p)) return same_type(op, x);
  Op *inner = x->def;
  int ni;
  const int64_t *pi;
  if (!inner || inner->kind != OP_TRANSPOSE ||
      !attr_as_i64_list(op_attr(inner, "permutation"), &ni, &pi, &c->arena) || ni != n)
    return NULL;
  int64_t *q = arena_alloc(&c->arena, sizeof(int64_t) * (size_t)(n ? n : 1));
  for (int i = 0; i < n; i++) {
    if (p[i] < 0 || p[i] >= n) return NULL;
    q[i] = pi[p[i]];
  }
  Value *y = inner->operands[0];
  if (is_identity_perm(n, q)) return same_type(op, y);
  Op *t = clone_on(c, op, y);
  op_set_attr(c, t, "permutation", attr_dense_i64_array(c, n, q));
  return &t->results[0];
}

/* reshape: to its own type -> x; of a reshape -> one reshape (or x). */
static Value *canon_reshape(Context *c, Op *op) {
  Value *x = op->operands[0];
  if (same_type(op, x)) return x;
  Op *inner = x->def;
  if (!inner || inner->kind != OP_RESHAPE) return NULL;
  Value *y = inner->operands[0];
  if (same_type(op, y)) return y;
  return &clone_on(c, op, y)->results[0];
}

/* broadcast_in_dim to the operand's own type along dims 0..r-1 -> x. */
static Value *canon_broadcast_in_dim(Context *c, Op *op) {
  Value *x = op->operands[0];
  int n;
  const int64_t *dims;
  if (!same_type(op, x) || !type_is_tensor(x->type) ||
      !attr_as_i64_list(op_attr(op, "broadcast_dimensions"), &n, &dims, &c->arena) || n != x->type->rank)
    return NULL;
  return is_identity_perm(n, dims) ? x : NULL;
}

/* select on a constant predicate (every element equal), or between one
 * value and itself. */
static Value *canon_select(Context *c, Op *op) {
  (void)c;
  if (op->noperands != 3) return NULL;
  Value *p = op->operands[0], *t = op->operands[1], *f = op->operands[2];
  if (t == f) return same_type(op, t);
  uint64_t bits;
  if (!uniform_bits(p, &bits)) return NULL;
  return same_type(op, (bits & 1) ? t : f);
}

/* get_dimension_size of a static dimension: its size as a constant. */
static Value *canon_dimension_size(Context *c, Op *op) {
  const Type *rt = op->results[0].type;
  int32_t size;
  if (!type_is_tensor(rt) || rt->elem != ELEM_I32 || rt->rank != 0 || !static_dimension_size(op, &size)) return NULL;
  return constant_before(c, op, fold_splat(c, op->results[0].type, (uint64_t)size));
}

/* A dynamic op whose shape operands are constants and whose result type
 * is static: its static form (passes/refine_shapes.c). */
static Value *canon_dynamic(Context *c, Op *op) { return refine_static_form(c, op); }

/* negate(negate(x)), not(not(x)) -> x. */
static Value *canon_involution(Context *c, Op *op) {
  (void)c;
  Op *inner = op->operands[0]->def;
  return inner && inner->kind == op->kind ? same_type(op, inner->operands[0]) : NULL;
}

/* convert, sharding_constraint: x when the result has x's type. */
static Value *canon_forward(Context *c, Op *op) {
  (void)c;
  return same_type(op, op->operands[0]);
}

/* The rewrite of the ops whose CANON column is none. */
static Value *canon_none(Context *c, Op *op) {
  (void)c, (void)op;
  return NULL;
}

/* The simplification of each op: the CANON column of ir/ops.def. */
static Value *(*const simplifiers[OP_COUNT])(Context *c, Op *op) = {
#define OP(id, name, mino, maxo, nres, nreg, traits, elems, verify, infer, cost, fold, canon, ...) [OP_##id] = canon_##canon,
#include "ir/ops.def"
#undef OP
};

/* The folded constant of op when every operand is a known constant. */
static Value *fold(Context *c, Op *op) {
  const Attr *vals[op->noperands ? op->noperands : 1];
  for (int i = 0; i < op->noperands; i++)
    if (!(vals[i] = fold_known_value(op->operands[i]))) return NULL;
  Attr *a = fold_op(c, op, vals);
  return a ? constant_before(c, op, a) : NULL;
}

/* One sweep over a block and its nested blocks; returns the rewrites. */
static int canonicalize_block(Context *c, Block *b) {
  int changed = 0;
  for (Op *op = b->first, *next; op; op = next) {
    next = op->next;
    for (int r = 0; r < op->nregions; r++)
      for (int k = 0; k < op->regions[r].nblocks; k++) changed += canonicalize_block(c, op->regions[r].blocks[k]);
    if (op->kind == OP_CUSTOM_CALL && op->nresults == 0) {
      int folded = refine_fold_assertion(c, op);
      changed += folded > 0;
      if (folded < 0) return changed; /* reported; the pipeline stops */
      continue;
    }
    if (op->nresults != 1 || (op->nregions && !fold_reads_regions(op->kind)) || op->kind == OP_CONSTANT ||
        !op->results[0].uses)
      continue;
    Value *to = NULL;
    if (custom_call_annotation(op) && op->noperands == 1) to = same_type(op, op->operands[0]);
    else if (!op_is_pure(op)) continue;
    if (!to) to = fold(c, op);
    if (!to) to = simplifiers[op->kind](c, op);
    if (!to) continue;
    value_replace_all_uses(c, &op->results[0], to);
    op_erase(op);
    changed++;
  }
  return changed;
}

bool pass_canonicalize(PassContext *pc) {
  int errors = pc->c->diag.nerrors;
  for (int round = 0; round < CANON_MAX_ROUNDS; round++) {
    int changed = 0;
    FOR_EACH_FUNC(pc->m, f) changed += canonicalize_block(pc->c, op_body(f));
    if (pc->c->diag.nerrors != errors) return false; /* a failed shape assertion */
    if (!changed) break;
  }
  dce_module(pc->m);
  return true;
}
