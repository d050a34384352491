/* Verification rules of control flow (while, if, case, optimization_barrier),
 * collectives, tokens and I/O, custom_call, composite, constant, the check
 * and interpreter dialects, and the CHLO ops that are not element-wise.
 * Spec: "Constraints" of each op in docs/spec.md; CHLO: docs/chlo.md. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ir/sharding.h"
#include "ir/quant.h"
#include "ir/verify_ops.h"

/* ------------------------------------------------------------------ */
/* Region signatures. */

/* The arguments of region R's entry block must be compatible with TYPES
 * (N of them). */
static bool check_region_args(Context *c, const Op *op, int r, const char *what, int n, const Type *const *types,
                              const char *from) {
  Block *b = vo_region_block(op, r);
  if (!b) return true;
  if (b->nargs != n) {
    op_error(c, op, "%s must take %d argument(s) (%s), but takes %d", what, n, from, b->nargs);
    return false;
  }
  for (int i = 0; i < n; i++)
    if (!vo_types_compatible(b->args[i].type, types[i])) {
      op_error(c, op, "expects %s argument #%d to have type '%s' (%s), but got '%s'", what, i,
               vo_type_str(c, types[i]), from, vo_type_str(c, b->args[i].type));
      return false;
    }
  return true;
}

/* The return of region R must yield values compatible with TYPES. */
static bool check_region_returns(Context *c, const Op *op, int r, const char *what, int n, const Type *const *types,
                                 const char *from) {
  const Op *ret = vo_block_return(vo_region_block(op, r));
  if (!ret) return true;
  if (ret->noperands != n) {
    op_error(c, op, "%s must return %d value(s) (%s), but returns %d", what, n, from, ret->noperands);
    return false;
  }
  for (int i = 0; i < n; i++)
    if (!vo_types_compatible(vo_operand_type(ret, i), types[i])) {
      op_error(c, op, "expects %s to return '%s' as value #%d (%s), but returns '%s'", what, vo_type_str(c, types[i]),
               i, from, vo_type_str(c, vo_operand_type(ret, i)));
      return false;
    }
  return true;
}

static const Type **operand_types(Context *c, const Op *op) {
  const Type **t = arena_alloc(&c->arena, sizeof(Type *) * (size_t)(op->noperands + 1));
  for (int i = 0; i < op->noperands; i++) t[i] = vo_operand_type(op, i);
  return t;
}

static const Type **result_types(Context *c, const Op *op) {
  const Type **t = arena_alloc(&c->arena, sizeof(Type *) * (size_t)(op->nresults + 1));
  for (int i = 0; i < op->nresults; i++) t[i] = vo_result_type(op, i);
  return t;
}

/* A 0-d tensor of element type ELEM (any builtin kind when ELEM_COUNT). */
static bool is_scalar_of(const Type *t, ElemKind elem) {
  if (!vo_is_tensor(t)) return false;
  if (t->rank > 0) return false;
  return elem == ELEM_COUNT || !vo_builtin_elem(t) || t->elem == elem;
}

/* ------------------------------------------------------------------ */
/* while, if, case, optimization_barrier */

void verify_while(Context *c, Op *op) {
  int n = op->noperands;
  const Type **ops = operand_types(c, op);
  if (op->nresults != n && !c->infer) {
    op_error(c, op, "expects %d results (one per operand), but got %d", n, op->nresults);
  } else {
    for (int i = 0; i < n; i++)
      if (!vo_types_compatible(ops[i], vo_result_type(op, i))) {
        op_error(c, op, "expects result #%d to have the type of operand #%d, but got '%s' and '%s'", i, i,
                 vo_type_str(c, vo_result_type(op, i)), vo_type_str(c, ops[i]));
        break;
      }
  }
  check_region_args(c, op, 0, "condition region", n, ops, "the operand types");
  const Op *cret = vo_block_return(vo_region_block(op, 0));
  if (cret) {
    if (cret->noperands != 1)
      op_error(c, op, "expect condition body returns a single value but got %d", cret->noperands);
    else if (vo_operand_type(cret, 0) && !is_scalar_of(vo_operand_type(cret, 0), ELEM_I1))
      op_error(c, op, "expect condition block return a zero-ranked tensor of i1 but got '%s'",
               vo_type_str(c, vo_operand_type(cret, 0)));
  }
  check_region_args(c, op, 1, "body region", n, ops, "the operand types");
  check_region_returns(c, op, 1, "body region", n, ops, "the operand types");
}

void verify_if(Context *c, Op *op) {
  const Type *p = vo_operand_type(op, 0);
  if (p && !is_scalar_of(p, ELEM_I1))
    op_error(c, op, "operand #0 must be a 0-dimensional tensor of i1 values, but got '%s'", vo_type_str(c, p));
  const Type **res = result_types(c, op);
  static const char *const names[] = {"true branch", "false branch"};
  for (int r = 0; r < op->nregions && r < 2; r++) {
    check_region_args(c, op, r, names[r], 0, NULL, "branches take no arguments");
    check_region_returns(c, op, r, names[r], op->nresults, res, "the result types");
  }
}

void verify_case(Context *c, Op *op) {
  const Type *idx = vo_operand_type(op, 0);
  if (idx && (!is_scalar_of(idx, ELEM_COUNT) || (vo_builtin_elem(idx) && !(vo_elem_mask(idx->elem) & EM_INT))))
    op_error(c, op, "operand #0 must be a 0-dimensional tensor of integer values, but got '%s'", vo_type_str(c, idx));
  if (op->nregions < 1) {
    op_error(c, op, "expects at least 1 branch");
    return;
  }
  const Type **res = result_types(c, op);
  for (int r = 0; r < op->nregions; r++) {
    char what[32];
    snprintf(what, sizeof what, "branch #%d", r);
    check_region_args(c, op, r, what, 0, NULL, "branches take no arguments");
    check_region_returns(c, op, r, what, op->nresults, res, "the result types");
  }
}

void verify_optimization_barrier(Context *c, Op *op) {
  if (op->nresults != op->noperands && !c->infer) {
    op_error(c, op, "expects %d results (one per operand), but got %d", op->noperands, op->nresults);
    return;
  }
  for (int i = 0; i < op->noperands; i++)
    if (!vo_types_compatible(vo_operand_type(op, i), vo_result_type(op, i))) {
      op_error(c, op, "expects result #%d to have the type of operand #%d, but got '%s' and '%s'", i, i,
               vo_type_str(c, vo_result_type(op, i)), vo_type_str(c, vo_operand_type(op, i)));
      return;
    }
}

/* sdy.mesh names a mesh; sdy.sharding_constraint is an identity with a
 * sharding (what the shardings say: passes/sharding.c). */
void verify_sdy(Context *c, Op *op) {
  const char *need = op->kind == OP_SDY_MESH ? "mesh" : "sharding";
  if (!op_attr(op, need)) op_error(c, op, "requires attribute '%s'", need);
  else if (op->kind == OP_SDY_MESH && !op_symbol_name(op)) op_error(c, op, "requires a string attribute 'sym_name'");
  else if (op->kind != OP_SDY_MESH) verify_optimization_barrier(c, op);
}

/* The Shardy attribute `name` of op as text (kept opaque by the parser),
 * NULL after an error when absent or of another kind. */
static const char *sdy_text(Context *c, const Op *op, const char *name, const char *prefix) {
  const Attr *a = op_attr(op, name);
  if (!a) op_error(c, op, "requires attribute '%s'", name);
  else if (a->kind != ATTR_OPAQUE || strncmp(a->u.str.s, prefix, strlen(prefix)) != 0)
    op_error(c, op, "attribute '%s' must be a %s...> attribute, but got %s", name, prefix, attr_to_string(c, a));
  else return a->u.str.s;
  return NULL;
}

/* Checks values[0..n) (region arguments or sdy.return operands) against the
 * per-device types of globals[0..n) under the shardings text; false after
 * an error. */
static bool check_manual_types(Context *c, const Op *op, const Module *m, const char *shardings, const char *axes,
                               int n, Type *const *globals, Type *const *locals, const char *what, Arena *scratch) {
  char why[SHARDING_WHY_LEN];
  for (int i = 0; i < n; i++) {
    const Type *g = globals[i], *l = locals[i];
    if (!g || !l || g->kind != TY_TENSOR || g->rank < 0 || g->elem_opaque) continue;
    bool dynamic = false;
    for (int d = 0; d < g->rank; d++) dynamic |= g->dims[d] == DIM_DYNAMIC;
    if (dynamic) continue;
    int64_t *dims = arena_alloc(scratch, sizeof(int64_t) * (size_t)(g->rank + 1));
    if (!sharding_sdy_manual_shape(scratch, m, shardings, i, axes, g->rank, g->dims, dims, why)) {
      op_error(c, op, "%s #%d: %s", what[0] == 'r' ? "in_shardings" : "out_shardings", i, why);
      return false;
    }
    const Type *want = type_tensor(c, g->elem, g->rank, dims, g->encoding);
    if (want != l) {
      op_error(c, op, "expects %s #%d to have the per-device type '%s' of '%s' over the manual axes, but got '%s'",
               what, i, type_to_string(c, want), type_to_string(c, g), type_to_string(c, l));
      return false;
    }
  }
  return true;
}

/* sdy.manual_computation: one sharding per operand and result, its body
 * takes the operands' per-device types (each dim divided by its manual
 * axes) and sdy.return gives the results' per-device types. */
void verify_sdy_manual_computation(Context *c, Op *op) {
  const char *in = sdy_text(c, op, "in_shardings", "#sdy.sharding_per_value<");
  const char *out = sdy_text(c, op, "out_shardings", "#sdy.sharding_per_value<");
  const char *axes = sdy_text(c, op, "manual_axes", "#sdy<manual_axes");
  if (!in || !out || !axes || op->nregions != 1 || op->regions[0].nblocks != 1) return;
  const Op *top = op;
  while (top->parent && top->parent->parent && top->parent->parent->parent) top = top->parent->parent->parent;
  Module m = {.op = (Op *)top};
  Arena scratch = {0};
  Sharding s[2];
  char why[SHARDING_WHY_LEN];
  const char *texts[2] = {in, out}, *names[2] = {"in_shardings", "out_shardings"};
  int want[2] = {op->noperands, op->nresults};
  for (int k = 0; k < 2; k++) {
    if (!sharding_parse_sdy(&scratch, &m, texts[k], &s[k], why)) {
      op_error(c, op, "malformed %s %s: %s", names[k], texts[k], why);
      goto out;
    }
    if (s[k].nelems != want[k]) {
      op_error(c, op, "expects %d %s (one per %s), but got %d", want[k], names[k], k ? "result" : "operand",
               s[k].nelems);
      goto out;
    }
  }
  const Block *b = op->regions[0].blocks[0];
  if (b->nargs != op->noperands) {
    op_error(c, op, "expects its body to take %d arguments (one per operand), but it takes %d", op->noperands,
             b->nargs);
    goto out;
  }
  Type **globals = arena_alloc(&scratch, sizeof(Type *) * (size_t)(op->noperands + op->nresults + 1));
  Type **locals = arena_alloc(&scratch, sizeof(Type *) * (size_t)(op->noperands + op->nresults + 1));
  for (int i = 0; i < op->noperands; i++) {
    globals[i] = op->operands[i]->type;
    locals[i] = b->args[i].type;
  }
  if (!check_manual_types(c, op, &m, in, axes, op->noperands, globals, locals, "region argument", &scratch)) goto out;
  const Op *ret = b->last;
  if (!ret || ret->kind != OP_SDY_RETURN) {
    op_error(c, op, "expects its body to end with 'sdy.return'");
    goto out;
  }
  if (ret->noperands != op->nresults) {
    op_error(c, op, "expects sdy.return to give %d values (one per result), but it gives %d", op->nresults,
             ret->noperands);
    goto out;
  }
  for (int i = 0; i < op->nresults; i++) {
    globals[i] = op->results[i].type;
    locals[i] = ret->operands[i]->type;
  }
  check_manual_types(c, op, &m, out, axes, op->nresults, globals, locals, "sdy.return value", &scratch);
out:
  arena_free_all(&scratch);
}

/* sdy.return ends an sdy.manual_computation body. */
void verify_sdy_return(Context *c, Op *op) {
  const Op *owner = op->parent && op->parent->parent ? op->parent->parent->parent : NULL;
  if (!owner || owner->kind != OP_SDY_MANUAL_COMPUTATION) op_error(c, op, "expects parent op 'sdy.manual_computation'");
}

/* ------------------------------------------------------------------ */
/* tokens and I/O */

static bool is_token(const Type *t) { return t && t->kind == TY_TOKEN; }

static void expect_token_result(Context *c, const Op *op, int i) {
  const Type *t = vo_result_type(op, i);
  if (t && !is_token(t)) op_error(c, op, "result #%d must be a token, but got '%s'", i, vo_type_str(c, t));
}

static void expect_token_operand(Context *c, const Op *op, int i) {
  const Type *t = vo_operand_type(op, i);
  if (t && !is_token(t)) op_error(c, op, "operand #%d must be a token, but got '%s'", i, vo_type_str(c, t));
}

void verify_create_token(Context *c, Op *op) { expect_token_result(c, op, 0); }

void verify_after_all(Context *c, Op *op) {
  for (int i = 0; i < op->noperands; i++) expect_token_operand(c, op, i);
  expect_token_result(c, op, 0);
}

/* replica_id, partition_id: a ui32 scalar. */
void verify_process_id(Context *c, Op *op) {
  const Type *t = vo_result_type(op, 0);
  if (t && !is_scalar_of(t, ELEM_UI32))
    op_error(c, op, "result #0 must be a 0-dimensional tensor of ui32 values, but got '%s'", vo_type_str(c, t));
}

/* infeed, recv (C1-C3 of infeed): a token in; tensors, then a token out. */
void verify_infeed_recv(Context *c, Op *op) {
  if (op->noperands >= 1) expect_token_operand(c, op, 0);
  if (op->nresults < 1) {
    op_error(c, op, "expects at least 1 result (the token)");
    return;
  }
  expect_token_result(c, op, op->nresults - 1);
  vo_check_infeed_layout(c, op);
  vo_check_channel_type(c, op);
  for (int i = 0; i < op->nresults - 1; i++) {
    const Type *t = vo_result_type(op, i);
    if (t && t->kind != TY_TENSOR && t->kind != TY_TUPLE)
      op_error(c, op, "result #%d must be a tensor, but got '%s'", i, vo_type_str(c, t));
  }
}

/* outfeed, send: tensors, then a token in; a token out. */
void verify_outfeed_send(Context *c, Op *op) {
  if (op->noperands >= 1) expect_token_operand(c, op, op->noperands - 1);
  vo_check_channel_type(c, op);
  expect_token_result(c, op, 0);
}

/* ------------------------------------------------------------------ */
/* collectives */

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

/* replica_groups: a 2-d integer dense attribute.  Values are unique and
 * non-negative (-1 pads uneven groups, except in the ops whose groups all
 * have one size: all_gather, all_to_all, reduce_scatter).  Whether they are
 * below the number of processes (C4 of all_gather) is checked when run:
 * upstream's stricter rule that the ids be exactly 0..n-1 would refuse
 * valid subsets of the replicas.  *group_size
 * receives the second dimension (or -1 when unknown). */
static void check_replica_groups(Context *c, const Op *op, bool required, int64_t *group_size) {
  *group_size = -1;
  bool uniform = op->kind == OP_ALL_GATHER || op->kind == OP_ALL_TO_ALL || op->kind == OP_REDUCE_SCATTER;
  const Attr *a = op_attr(op, "replica_groups");
  if (!a) {
    if (required) op_error(c, op, "requires attribute 'replica_groups'");
    return;
  }
  if (a->kind == ATTR_DIALECT && strcmp(a->u.dialect.name, "stablehlo.replica_group_mesh_axes") == 0) {
    vo_check_mesh_axes(c, (Op *)op, a);
    return;
  }
  if (a->kind == ATTR_DIALECT) return; /* other structured forms: their users check them */
  if (a->kind != ATTR_DENSE || !a->type || a->type->kind != TY_TENSOR || a->type->rank != 2 ||
      !vo_builtin_elem(a->type) || !elem_is_int(a->type->elem) || !type_is_static(a->type)) {
    op_error(c, op, "replica groups should be a rank 2 tensor of integers, but got %s", vo_attr_str(c, a));
    return;
  }
  int64_t rows = a->type->dims[0], cols = a->type->dims[1];
  int64_t total = dense_num_elements(a);
  if (total < 0 || total > (1 << 22)) return;
  *group_size = rows > 0 ? cols : -1;
  int64_t *ids = arena_alloc(&c->arena, sizeof(int64_t) * (size_t)(total + 1));
  int64_t n = 0;
  for (int64_t i = 0; i < total; i++) {
    int64_t v = dense_get_int(a, i);
    if (v < -1 || (v == -1 && uniform)) {
      op_error(c, op, "replica groups contain invalid replica id %" PRId64 "%s", v,
               v == -1 ? " (this op's groups all have the same size: no -1 padding)" : "");
      return;
    }
    if (v != -1) ids[n++] = v;
  }
  qsort(ids, (size_t)n, sizeof(int64_t), cmp_i64);
  for (int64_t i = 1; i < n; i++)
    if (ids[i] == ids[i - 1]) {
      op_error(c, op, "replica id #%" PRId64 " seen more than once", ids[i]);
      return;
    }
}

/* C: use_global_device_ids requires a positive channel id. */
static void check_channel(Context *c, const Op *op) {
  bool global = false;
  if (vo_bool_attr(c, op, "use_global_device_ids", false, &global) == AR_OK && global) {
    const Attr *ch = op_attr(op, "channel_handle");
    const Attr *h = ch && ch->kind == ATTR_DIALECT ? dialect_param(ch, "handle") : NULL;
    if (!h || h->kind != ATTR_INT || h->u.i <= 0)
      op_error(c, op, "channel_id must be positive when using global device ids");
  }
}

/* Is the process group exactly a replica group?  True in cross_replica mode
 * (no channel) and flattened_ids mode (use_global_device_ids); in
 * cross_replica_and_partition mode each group also spans every partition, a
 * count the op does not know. */
bool vo_groups_exact(const Op *op) {
  const Attr *ch = op_attr(op, "channel_handle");
  const Attr *h = ch && ch->kind == ATTR_DIALECT ? dialect_param(ch, "handle") : NULL;
  if (!h || h->kind != ATTR_INT || h->u.i <= 0) return true;
  const Attr *g = op_attr(op, "use_global_device_ids");
  return g && (g->kind == ATTR_UNIT || (g->kind == ATTR_BOOL && g->u.b));
}

int64_t vo_replica_group_size(Context *c, const Op *op, bool required) {
  int64_t gs;
  check_replica_groups(c, op, required, &gs);
  return gs;
}

static bool same_count(Context *c, const Op *op) {
  if (op->nresults == op->noperands || c->infer) return true;
  op_error(c, op, "expects %d results (one per operand), but got %d", op->noperands, op->nresults);
  return false;
}

void verify_all_gather(Context *c, Op *op) {
  int64_t gs, dim;
  check_replica_groups(c, op, true, &gs);
  check_channel(c, op);
  AttrRead ad = vo_int_attr(c, op, "all_gather_dim", true, &dim);
  bool ok = same_count(c, op);
  for (int i = 0; i < op->noperands; i++) ok &= vo_require_tensor_operand(c, op, i);
  for (int i = 0; i < op->nresults; i++) ok &= vo_require_tensor_result(c, op, i);
  if (!ok) return;
  bool exact = vo_groups_exact(op);
  for (int i = 0; i < op->noperands; i++) {
    const Type *in = vo_operand_type(op, i), *res = vo_result_type(op, i);
    if (!vo_elems_compatible(in, res))
      op_error(c, op, "expects result #%d to have the element type of operand #%d, but got '%s' and '%s'", i, i,
               vo_type_str(c, res), vo_type_str(c, in));
    if (ad != AR_OK || !vo_is_ranked(in)) continue;
    if (dim < 0 || dim >= in->rank) {
      op_error(c, op, "all_gather_dim %" PRId64 " is out of range for operand #%d of rank %d", dim, i, in->rank);
      return;
    }
    if (!vo_is_ranked(res)) continue;
    if (res->rank != in->rank) {
      op_error(c, op, "expects result #%d to have rank %d, but got '%s'", i, in->rank, vo_type_str(c, res));
      continue;
    }
    for (int k = 0; k < in->rank; k++) {
      int64_t a = in->dims[k], b = res->dims[k];
      if (!vo_dim_known(a) || !vo_dim_known(b)) continue;
      bool good;
      if (k != dim) good = a == b;
      else if (gs >= 0 && exact) good = (__int128)a * gs == b;
      else if (gs > 0) good = a == 0 ? b == 0 : b % ((__int128)a * gs) == 0;
      else good = a == 0 ? b == 0 : b % a == 0;
      if (!good) {
        op_error(c, op, "result #%d '%s' does not match operand '%s' gathered along dimension %" PRId64
                 " (group size %s%s)", i, vo_type_str(c, res), vo_type_str(c, in), dim,
                 gs >= 0 ? vo_i128_str(c, gs) : "unknown", gs >= 0 && !exact ? " times the partitions" : "");
        break;
      }
    }
  }
}

void verify_all_reduce(Context *c, Op *op) {
  int64_t gs;
  check_replica_groups(c, op, false, &gs);
  check_channel(c, op);
  bool ok = same_count(c, op);
  for (int i = 0; i < op->noperands; i++) ok &= vo_require_tensor_operand(c, op, i);
  for (int i = 0; i < op->nresults; i++) ok &= vo_require_tensor_result(c, op, i);
  if (!ok || op->noperands < 1) return;
  const Type *in_types[1] = {vo_operand_type(op, 0)};
  ElemKind e;
  bool body_ok = vo_check_reducer(c, op, 0, "computation", 1, in_types, &e);
  for (int i = 0; i < op->noperands; i++) {
    const Type *in = vo_operand_type(op, i), *res = vo_result_type(op, i);
    if (!vo_shapes_compatible(in, res))
      op_error(c, op, "expects result #%d to have the shape of operand #%d, but got '%s' and '%s'", i, i,
               vo_type_str(c, res), vo_type_str(c, in));
    if (body_ok && e < ELEM_COUNT && vo_builtin_elem(in) && !vo_promotable(in->elem, e))
      op_error(c, op, "operand #%d element type %s is not promotable to the computation's %s", i,
               elem_name(in->elem), elem_name(e));
    if (body_ok && e < ELEM_COUNT && vo_builtin_elem(res) && res->elem != e)
      op_error(c, op, "expects result #%d to have element type %s (from the computation), but got '%s'", i,
               elem_name(e), vo_type_str(c, res));
  }
}

void verify_reduce_scatter(Context *c, Op *op) {
  int64_t gs, dim;
  check_replica_groups(c, op, true, &gs);
  check_channel(c, op);
  AttrRead ad = vo_int_attr(c, op, "scatter_dimension", true, &dim);
  bool ok = vo_require_tensor_operand(c, op, 0);
  ok &= vo_require_tensor_result(c, op, 0);
  if (!ok) return;
  const Type *in = vo_operand_type(op, 0), *res = vo_result_type(op, 0);
  const Type *in_types[1] = {in};
  ElemKind e;
  if (vo_check_reducer(c, op, 0, "computation", 1, in_types, &e) && e < ELEM_COUNT && vo_builtin_elem(res) &&
      res->elem != e)
    op_error(c, op, "expects the result to have element type %s (from the computation), but got '%s'", elem_name(e),
             vo_type_str(c, res));
  if (ad != AR_OK || !vo_is_ranked(in)) return;
  if (dim < 0 || dim >= in->rank) {
    op_error(c, op, "scatter dim should be less than operand rank (%d), but got %" PRId64, in->rank, dim);
    return;
  }
  /* An operand check: it must hold in inference too, where there is no result. */
  if (gs > 0 && vo_dim_known(in->dims[dim]) && in->dims[dim] % gs != 0) {
    op_error(c, op, "operand scatter dimension has size %" PRId64 ", expected to be a multiple of the group size "
             "%" PRId64, in->dims[dim], gs);
    return;
  }
  if (!vo_is_ranked(res)) return;
  if (res->rank != in->rank) {
    op_error(c, op, "expects the result to have rank %d, but got '%s'", in->rank, vo_type_str(c, res));
    return;
  }
  for (int k = 0; k < in->rank; k++) {
    int64_t a = in->dims[k], b = res->dims[k];
    if (!vo_dim_known(a) || !vo_dim_known(b)) continue;
    if (k != dim && a != b) {
      op_error(c, op, "non scatter dimensions should be same for operand (%" PRId64 ") and result (%" PRId64 ")", a,
               b);
      return;
    }
    if (k == dim && gs > 0) {
      if (vo_groups_exact(op) && a / gs != b)
        op_error(c, op, "result scatter dimension has size %" PRId64 ", expected %" PRId64, b, a / gs);
      else if (!vo_groups_exact(op) && (b == 0 ? a != 0 : (a / gs) % b != 0))
        op_error(c, op, "result scatter dimension has size %" PRId64 ", which does not divide %" PRId64, b, a / gs);
    }
  }
}

void verify_all_to_all(Context *c, Op *op) {
  int64_t gs, sd, cd, sc;
  check_replica_groups(c, op, true, &gs);
  AttrRead as = vo_int_attr(c, op, "split_dimension", true, &sd);
  AttrRead ac = vo_int_attr(c, op, "concat_dimension", true, &cd);
  AttrRead an = vo_int_attr(c, op, "split_count", true, &sc);
  bool ok = same_count(c, op);
  for (int i = 0; i < op->noperands; i++) ok &= vo_require_tensor_operand(c, op, i);
  for (int i = 0; i < op->nresults; i++) ok &= vo_require_tensor_result(c, op, i);
  if (an == AR_OK && sc <= 0) {
    op_error(c, op, "split_count must be positive, but got %" PRId64, sc);
    an = AR_BAD;
  }
  const Attr *rg = op_attr(op, "replica_groups");
  if (an == AR_OK && rg && rg->kind == ATTR_DENSE && rg->type->rank == 2 && rg->type->dims[0] == 0)
    op_error(c, op, "group size of replica_groups must be split_count %" PRId64 ", but there are no groups", sc);
  if (an == AR_OK && gs >= 0 && gs != sc)
    op_error(c, op, "group size of replica_groups must be split_count %" PRId64 ", but got %" PRId64, sc, gs);
  if (!ok || as != AR_OK || ac != AR_OK || an != AR_OK) return;
  for (int i = 0; i < op->noperands; i++) {
    const Type *in = vo_operand_type(op, i), *res = vo_result_type(op, i);
    if (!vo_elems_compatible(in, res))
      op_error(c, op, "expects result #%d to have the element type of operand #%d, but got '%s' and '%s'", i, i,
               vo_type_str(c, res), vo_type_str(c, in));
    if (!vo_is_ranked(in)) continue;
    if (sd < 0 || sd >= in->rank || cd < 0 || cd >= in->rank) {
      op_error(c, op, "split_dimension (%" PRId64 ") and concat_dimension (%" PRId64 ") must be in [0, %d)", sd, cd,
               in->rank);
      return;
    }
    if (vo_dim_known(in->dims[sd]) && in->dims[sd] % sc != 0) {
      op_error(c, op, "split dimension has size %" PRId64 ", expected to be a multiple of split_count %" PRId64,
               in->dims[sd], sc);
      return;
    }
    int64_t *d = arena_alloc(&c->arena, sizeof(int64_t) * (size_t)(in->rank + 1));
    for (int k = 0; k < in->rank; k++) d[k] = in->dims[k];
    if (sd != cd) {
      if (vo_dim_known(d[sd])) d[sd] /= sc;
      if (vo_dim_known(d[cd])) {
        if ((__int128)d[cd] * sc > INT64_MAX) d[cd] = DIM_DYNAMIC;
        else d[cd] *= sc;
      }
    }
    if (vo_infer_shape(c, i, in->rank, d) || !vo_is_ranked(res)) continue;
    bool good = res->rank == in->rank;
    for (int k = 0; good && k < in->rank; k++) good = vo_dims_compatible(res->dims[k], d[k]);
    if (!good)
      op_error(c, op, "expects result #%d to have shape %s, but got '%s'", i, vo_list_str(c, in->rank, d),
               vo_type_str(c, res));
  }
}

void verify_collective_permute(Context *c, Op *op) {
  int n = 0;
  const int64_t *p = NULL;
  if (vo_pairs_attr(c, op, "source_target_pairs", true, &n, &p) == AR_OK) {
    bool bad = false;
    int64_t *src = arena_alloc(&c->arena, sizeof(int64_t) * (size_t)(n + 1));
    int64_t *dst = arena_alloc(&c->arena, sizeof(int64_t) * (size_t)(n + 1));
    for (int i = 0; i < n && !bad; i++) {
      if (p[2 * i] < 0 || p[2 * i + 1] < 0) {
        op_error(c, op, "replica ids in source_target_pairs must be >= 0, but got [%" PRId64 ", %" PRId64 "]",
                 p[2 * i], p[2 * i + 1]);
        bad = true;
      }
      src[i] = p[2 * i];
      dst[i] = p[2 * i + 1];
    }
    if (!bad) {
      qsort(src, (size_t)n, sizeof(int64_t), cmp_i64);
      qsort(dst, (size_t)n, sizeof(int64_t), cmp_i64);
      for (int i = 1; i < n && !bad; i++)
        if (src[i] == src[i - 1]) {
          op_error(c, op, "duplicate sources not allowed: %" PRId64, src[i]);
          bad = true;
        }
      for (int i = 1; i < n && !bad; i++)
        if (dst[i] == dst[i - 1]) {
          op_error(c, op, "duplicate targets not allowed: %" PRId64, dst[i]);
          bad = true;
        }
    }
  }
  if (!same_count(c, op)) return;
  for (int i = 0; i < op->noperands; i++)
    if (!vo_types_compatible(vo_operand_type(op, i), vo_result_type(op, i)))
      op_error(c, op, "expects result #%d to have the type of operand #%d, but got '%s' and '%s'", i, i,
               vo_type_str(c, vo_result_type(op, i)), vo_type_str(c, vo_operand_type(op, i)));
}

/* C3-C5: with has_dynamic_root the last operand is the roots,
 * tensor<[N]xi32>, and the first N operands give the N results. */
void verify_collective_broadcast(Context *c, Op *op) {
  int64_t gs;
  check_replica_groups(c, op, true, &gs);
  bool dyn = false;
  vo_bool_attr(c, op, "has_dynamic_root", false, &dyn);
  int n = op->noperands - (dyn ? 1 : 0);
  if (n < 1) {
    op_error(c, op, "expects at least %d operands with has_dynamic_root = %s, but got %d", dyn ? 2 : 1,
             dyn ? "true" : "false", op->noperands);
    return;
  }
  const Type *root = dyn ? vo_operand_type(op, n) : NULL;
  if (root && !(vo_rank(root) == 1 && root->elem == ELEM_I32 && vo_dims_compatible(vo_dim(root, 0), n)))
    op_error(c, op, "expects the roots operand #%d to be tensor<%dxi32>, but got '%s'", n, n, vo_type_str(c, root));
  if (op->nresults != n && !c->infer) {
    op_error(c, op, "expects %d results (one per broadcast operand), but got %d", n, op->nresults);
    return;
  }
  for (int i = 0; i < n && i < op->nresults; i++)
    if (!vo_types_compatible(vo_operand_type(op, i), vo_result_type(op, i)))
      op_error(c, op, "expects result #%d to have the type of operand #%d, but got '%s' and '%s'", i, i,
               vo_type_str(c, vo_result_type(op, i)), vo_type_str(c, vo_operand_type(op, i)));
}

/* ------------------------------------------------------------------ */
/* custom_call, composite, constant */

/* The module op containing OP, or NULL. */
static const Op *enclosing_module(const Op *op) {
  for (int depth = 0; op && depth < 100000; depth++) {
    if (op->kind == OP_MODULE) return op;
    const Block *b = op->parent;
    const Region *r = b ? b->parent : NULL;
    op = r ? r->parent : NULL;
  }
  return NULL;
}

const Op *vo_lookup_func(const Op *from, const char *name) {
  const Op *m = enclosing_module(from);
  const Block *b = m ? op_body(m) : NULL;
  if (!b || !name) return NULL;
  for (const Op *o = b->first; o; o = o->next) {
    const char *n = op_symbol_name(o);
    if (o->kind == OP_FUNC && n && strcmp(n, name) == 0) return o;
  }
  return NULL;
}

/* custom_call @shape_assertion(%pred, %dims...) (JAX): a tensor<i1>
 * predicate, integer scalars for the message's {i}, no results. */
static void verify_shape_assertion(Context *c, Op *op) {
  const Type *p = op->noperands ? vo_operand_type(op, 0) : NULL;
  if (!p || p->kind != TY_TENSOR || p->rank != 0 || p->elem_opaque || p->elem != ELEM_I1)
    op_error(c, op, "custom_call @shape_assertion expects a tensor<i1> predicate first, but got %s",
             p ? vo_type_str(c, p) : "no operand");
  for (int i = 1; i < op->noperands; i++) {
    const Type *t = vo_operand_type(op, i);
    if (!t || t->kind != TY_TENSOR || t->rank != 0 || t->elem_opaque || !elem_is_int(t->elem) || t->elem == ELEM_I1)
      op_error(c, op, "custom_call @shape_assertion operand %d must be an integer scalar (a value for {%d}), but got %s",
               i, i - 1, vo_type_str(c, t));
  }
  if (op->nresults != 0) op_error(c, op, "custom_call @shape_assertion has no results, but got %d", op->nresults);
}

static const char *const check_targets[] = {"check.expect_eq", "check.expect_almost_eq", "check.expect_close", NULL};

void verify_custom_call(Context *c, Op *op) {
  const Attr *t = op_attr(op, "call_target_name");
  const char *target = NULL;
  if (!t) op_error(c, op, "requires attribute 'call_target_name'");
  else if (t->kind != ATTR_STRING && t->kind != ATTR_SYMREF)
    op_error(c, op, "attribute 'call_target_name' must be a string, but got %s", vo_attr_str(c, t));
  else target = t->u.str.s;
  bool flag;
  vo_bool_attr(c, op, "has_side_effect", false, &flag);
  int64_t api = 0;
  AttrRead aa = vo_int_attr(c, op, "api_version", false, &api);
  if (aa == AR_OK && (api < 0 || api > 4))
    op_error(c, op, "api_version must be between 0 and 4, but got %" PRId64, api);
  const Attr *bc = op_attr(op, "backend_config");
  if (bc && bc->kind != ATTR_STRING && bc->kind != ATTR_DICT)
    op_error(c, op, "backend_config must be a string or a dictionary, but got %s", vo_attr_str(c, bc));
  vo_check_custom_call_attrs(c, op);
  const Attr *cc = op_attr(op, "called_computations");
  if (cc) {
    if (cc->kind != ATTR_ARRAY)
      op_error(c, op, "called_computations must be an array of symbol references, but got %s", vo_attr_str(c, cc));
    else
      for (int i = 0; i < cc->u.array.n; i++)
        if (!cc->u.array.items[i] || cc->u.array.items[i]->kind != ATTR_SYMREF) {
          op_error(c, op, "called_computations must be an array of symbol references, but got %s",
                   vo_attr_str(c, cc));
          break;
        }
  }
  if (!target) return;
  if (strcmp(target, "shape_assertion") == 0) {
    verify_shape_assertion(c, op);
    return;
  }
  /* custom_call @check.expect_*(%actual, %expected): two values of one type */
  for (const char *const *p = check_targets; *p; p++) {
    if (strcmp(*p, target) != 0) continue;
    if (op->noperands != 2) {
      op_error(c, op, "custom_call @%s expects 2 operands (actual, expected), but got %d", target, op->noperands);
      return;
    }
    if (op->nresults != 0) {
      op_error(c, op, "custom_call @%s has no results, but got %d", target, op->nresults);
      return;
    }
    if (!vo_types_compatible(vo_operand_type(op, 0), vo_operand_type(op, 1)))
      op_error(c, op, "custom_call @%s expects operands of the same type, but got '%s' and '%s'", target,
               vo_type_str(c, vo_operand_type(op, 0)), vo_type_str(c, vo_operand_type(op, 1)));
    return;
  }
}

/* Input and result types of a func.func: function_type if present, else the
 * entry block arguments and the func.return of its body. */
static bool func_signature(const Op *f, int *nin, Type *const **in, int *nout, Type *const **out) {
  const Attr *ft = op_attr(f, "function_type");
  if (ft && ft->kind == ATTR_TYPE && ft->type && ft->type->kind == TY_FUNC) {
    *nin = ft->type->ninputs;
    *in = ft->type->inputs;
    *nout = ft->type->nresults;
    *out = ft->type->results;
    return true;
  }
  return false;
}

/* The block arguments of an isolated region (tpu.fusion, tpu.async_start)
 * are the op's operands: as many, of the same types.  Reports the first
 * mismatch. */
static bool isolated_args_match(Context *c, const Op *op, const Block *b) {
  if (b->nargs != op->noperands) {
    op_error(c, op, "region takes %d argument(s) but the op has %d operand(s)", b->nargs, op->noperands);
    return false;
  }
  for (int i = 0; i < b->nargs; i++)
    if (b->args[i].type != op->operands[i]->type) {
      op_error(c, op, "region argument #%d has type '%s' but operand #%d has type '%s'", i,
               vo_type_str(c, b->args[i].type), i, vo_type_str(c, op->operands[i]->type));
      return false;
    }
  return true;
}

/* tpu.fusion: block arguments match the operands, tpu.yield the results,
 * and `kind` names one of XLA's fusion kinds. */
void verify_fusion(Context *c, Op *op) {
  static const char *const kinds[] = {"loop", "input", "output", "multi_output"};
  const Attr *kind = op_attr(op, "kind");
  bool known = false;
  for (size_t i = 0; kind && kind->kind == ATTR_STRING && i < sizeof kinds / sizeof kinds[0]; i++)
    known |= strcmp(kind->u.str.s, kinds[i]) == 0;
  if (!known) op_error(c, op, "requires attribute 'kind', one of \"loop\", \"input\", \"output\", \"multi_output\"");
  Block *b = vo_region_block(op, 0);
  if (!b || !isolated_args_match(c, op, b)) return;
  const Op *y = b->last;
  if (!y || y->kind != OP_TPU_YIELD) {
    op_error(c, op, "region must end with 'tpu.yield'");
    return;
  }
  if (y->noperands != op->nresults) {
    op_error(c, op, "'tpu.yield' gives %d value(s) but the op has %d result(s)", y->noperands, op->nresults);
    return;
  }
  for (int i = 0; i < y->noperands; i++)
    if (y->operands[i]->type != op->results[i].type)
      op_error(c, op, "result #%d has type '%s' but 'tpu.yield' gives '%s'", i,
               vo_type_str(c, op->results[i].type), vo_type_str(c, y->operands[i]->type));
}

void verify_tpu_yield(Context *c, Op *op) {
  const Block *b = op->parent;
  const Op *owner = b && b->parent ? b->parent->parent : NULL;
  if (!owner || (owner->kind != OP_TPU_FUSION && owner->kind != OP_TPU_ASYNC_START))
    op_error(c, op, "expects parent op 'tpu.fusion' or 'tpu.async_start'");
}

/* The collectives the overlap pass starts asynchronously. */
static bool is_async_collective(OpKind k) {
  return k == OP_ALL_REDUCE || k == OP_ALL_GATHER || k == OP_REDUCE_SCATTER || k == OP_ALL_TO_ALL ||
         k == OP_COLLECTIVE_PERMUTE || k == OP_COLLECTIVE_BROADCAST;
}

/* tpu.async_start: its isolated region is one block whose arguments are
 * the operands, holding one collective over exactly those arguments and
 * the tpu.yield of its results; the op's results have the yielded types
 * and all go, each once and in order, to one tpu.async_done. */
void verify_async_start(Context *c, Op *op) {
  Block *b = vo_region_block(op, 0);
  if (!b || !isolated_args_match(c, op, b)) return;
  const Op *coll = b->first, *y = coll ? coll->next : NULL;
  if (!coll || !is_async_collective(coll->kind) || !y || y->kind != OP_TPU_YIELD || y->next) {
    op_error(c, op, "region must hold one collective (all_reduce, all_gather, reduce_scatter, all_to_all, "
             "collective_permute or collective_broadcast) followed by 'tpu.yield'");
    return;
  }
  bool args_in_order = coll->noperands == b->nargs;
  for (int i = 0; args_in_order && i < b->nargs; i++) args_in_order = coll->operands[i] == &b->args[i];
  if (!args_in_order) {
    op_error(c, op, "'%s' must take the region's arguments, in order", coll->name);
    return;
  }
  bool yields_results = y->noperands == coll->nresults;
  for (int i = 0; yields_results && i < y->noperands; i++) yields_results = y->operands[i] == &coll->results[i];
  if (!yields_results) {
    op_error(c, op, "'tpu.yield' must give the results of '%s', in order", coll->name);
    return;
  }
  if (op->nresults != coll->nresults) {
    op_error(c, op, "has %d result(s) but '%s' has %d", op->nresults, coll->name, coll->nresults);
    return;
  }
  for (int i = 0; i < op->nresults; i++)
    if (op->results[i].type != coll->results[i].type) {
      op_error(c, op, "result #%d has type '%s' but '%s' gives '%s'", i, vo_type_str(c, op->results[i].type),
               coll->name, vo_type_str(c, coll->results[i].type));
      return;
    }
  const Op *done = NULL;
  for (int i = 0; i < op->nresults; i++) {
    const Use *u = op->results[i].uses;
    if (!u || u->next || u->user->kind != OP_TPU_ASYNC_DONE) {
      op_error(c, op, "result #%d must be used exactly once, by a 'tpu.async_done'", i);
      return;
    }
    if ((done && u->user != done) || u->operand_index != i) {
      op_error(c, op, "results must all go to one 'tpu.async_done', in order");
      return;
    }
    done = u->user;
  }
}

/* tpu.async_done: its operands are the results of one tpu.async_start of
 * its block, in order, and its results have their types. */
void verify_async_done(Context *c, Op *op) {
  const Op *start = op->operands[0] ? op->operands[0]->def : NULL;
  bool ok = start && start->kind == OP_TPU_ASYNC_START && start->nresults == op->noperands;
  for (int i = 0; ok && i < op->noperands; i++) ok = op->operands[i] == &start->results[i];
  if (!ok) {
    op_error(c, op, "operands must be all the results of one 'tpu.async_start', in order");
    return;
  }
  if (start->parent != op->parent) {
    op_error(c, op, "must be in the block of its 'tpu.async_start'");
    return;
  }
  if (op->nresults != op->noperands) {
    op_error(c, op, "has %d result(s) for %d operand(s)", op->nresults, op->noperands);
    return;
  }
  for (int i = 0; i < op->nresults; i++)
    if (op->results[i].type != op->operands[i]->type)
      op_error(c, op, "result #%d has type '%s' but operand #%d has type '%s'", i,
               vo_type_str(c, op->results[i].type), i, vo_type_str(c, op->operands[i]->type));
}

void verify_composite(Context *c, Op *op) {
  const Attr *name = op_attr(op, "name");
  if (!name) op_error(c, op, "requires attribute 'name'");
  else if (name->kind != ATTR_STRING)
    op_error(c, op, "attribute 'name' must be a string, but got %s", vo_attr_str(c, name));
  else {
    const char *s = name->u.str.s;
    if (!vo_namespaced_op_name(s))
      op_error(c, op, "name '%s' must be a valid namespaced op name (dialect.op: a letter, then letters, digits, "
               "'_'; then '.' parts of letters, digits, '_', '$')", s);
  }
  const Attr *ca = op_attr(op, "composite_attributes");
  if (ca && ca->kind != ATTR_DICT)
    op_error(c, op, "attribute 'composite_attributes' must be a dictionary, but got %s", vo_attr_str(c, ca));
  int64_t version;
  AttrRead av = vo_int_attr(c, op, "version", false, &version);
  if (av == AR_OK && version < 0) op_error(c, op, "version must be non-negative, but got %" PRId64, version);
  const Attr *dec = op_attr(op, "decomposition");
  if (!dec) {
    op_error(c, op, "requires attribute 'decomposition'");
    return;
  }
  if (dec->kind != ATTR_SYMREF) {
    op_error(c, op, "attribute 'decomposition' must be a symbol reference, but got %s", vo_attr_str(c, dec));
    return;
  }
  const Op *f = vo_lookup_func(op, dec->u.str.s);
  if (!f) {
    op_error(c, op, "'%s' does not reference a valid function", dec->u.str.s);
    return;
  }
  const Block *body = op_body(f);
  int nin = 0, nout = 0;
  Type *const *in = NULL, *const *out = NULL;
  bool have_sig = func_signature(f, &nin, &in, &nout, &out);
  if (!have_sig && body) nin = body->nargs;
  if (nin != op->noperands) {
    op_error(c, op, "has %d operand(s), but the decomposition @%s takes %d", op->noperands, dec->u.str.s, nin);
    return;
  }
  for (int i = 0; i < nin; i++) {
    const Type *want = have_sig ? in[i] : (body ? body->args[i].type : NULL);
    if (!vo_types_compatible(vo_operand_type(op, i), want)) {
      op_error(c, op, "operand #%d has type '%s', but the decomposition @%s expects '%s'", i,
               vo_type_str(c, vo_operand_type(op, i)), dec->u.str.s, vo_type_str(c, want));
      return;
    }
  }
  if (!have_sig) return;
  if (nout != op->nresults) {
    op_error(c, op, "has %d result(s), but the decomposition @%s returns %d", op->nresults, dec->u.str.s, nout);
    return;
  }
  for (int i = 0; i < nout; i++)
    if (!vo_types_compatible(vo_result_type(op, i), out[i])) {
      op_error(c, op, "result #%d has type '%s', but the decomposition @%s returns '%s'", i,
               vo_type_str(c, vo_result_type(op, i)), dec->u.str.s, vo_type_str(c, out[i]));
      return;
    }
}

void verify_constant(Context *c, Op *op) {
  const Attr *v = op_attr(op, "value");
  if (!v) {
    op_error(c, op, "requires attribute 'value'");
    return;
  }
  const Type *res = vo_result_type(op, 0);
  if (v->kind != ATTR_DENSE && v->kind != ATTR_DENSE_RESOURCE) return; /* sparse / opaque literals */
  if (!v->type || !res) return;
  /* A quantized constant's literal holds its storage values. */
  if (type_is_quant(res) && res->kind == TY_TENSOR && v->type->kind == TY_TENSOR) {
    if (v->type != type_quant_storage(c, (Type *)res))
      op_error(c, op, "the literal of a quantized constant must have the storage type '%s', but got '%s'",
               vo_type_str(c, type_quant_storage(c, (Type *)res)), vo_type_str(c, v->type));
    return;
  }
  if (!vo_types_compatible(v->type, res))
    op_error(c, op, "inferred type(s) '%s' are incompatible with return type(s) of operation '%s'",
             vo_type_str(c, v->type), vo_type_str(c, res));
}

/* ------------------------------------------------------------------ */
/* check and interpreter dialects */

/* The tolerance and ULP bounds any check op may carry. */
static void check_tolerances(Context *c, Op *op) {
  const Attr *tol = op_attr(op, "tolerance");
  if (tol && tol->kind != ATTR_FLOAT && tol->kind != ATTR_INT)
    op_error(c, op, "attribute 'tolerance' must be a float, but got %s", vo_attr_str(c, tol));
  if (op->kind == OP_CHECK_EXPECT_CLOSE) {
    /* unsigned 64-bit (upstream's UI64Attr; max defaults to 1): a ui64
     * attribute's bits, or a non-negative i64 */
    int64_t mx = 1, mn = 0;
    AttrRead ax = vo_int_attr(c, op, "max_ulp_difference", false, &mx);
    AttrRead an = vo_int_attr(c, op, "min_ulp_difference", false, &mn);
    const Attr *amx = op_attr(op, "max_ulp_difference"), *amn = op_attr(op, "min_ulp_difference");
    bool umx = amx && amx->type && amx->type->elem == ELEM_UI64, umn = amn && amn->type && amn->type->elem == ELEM_UI64;
    if (ax == AR_OK && !umx && mx < 0)
      op_error(c, op, "max_ulp_difference must be non-negative, but got %" PRId64, mx);
    if (an == AR_OK && !umn && mn < 0)
      op_error(c, op, "min_ulp_difference must be non-negative, but got %" PRId64, mn);
    if (ax != AR_BAD && an != AR_BAD && (umx || mx >= 0) && (umn || mn >= 0) && (uint64_t)mn > (uint64_t)mx)
      op_error(c, op, "min_ulp_difference (%" PRIu64 ") must not exceed max_ulp_difference (%" PRIu64 ")",
               (uint64_t)mn, (uint64_t)mx);
  }
}

/* check.expect_eq, expect_almost_eq, expect_close: two tensors of one type. */
void verify_check_pair(Context *c, Op *op) {
  for (int i = 0; i < op->noperands && i < 2; i++) vo_require_tensor_operand(c, op, i);
  if (op->noperands == 2 && vo_is_tensor(vo_operand_type(op, 0)) && vo_is_tensor(vo_operand_type(op, 1)) &&
      !vo_types_compatible(vo_operand_type(op, 0), vo_operand_type(op, 1)))
    op_error(c, op, "expects operands of the same type, but got '%s' and '%s'",
             vo_type_str(c, vo_operand_type(op, 0)), vo_type_str(c, vo_operand_type(op, 1)));
  check_tolerances(c, op);
}

/* check.expect_eq_const, expect_almost_eq_const: a tensor and a dense
 * 'value' of its type. */
void verify_check_const(Context *c, Op *op) {
  vo_require_tensor_operand(c, op, 0);
  const Attr *v = op_attr(op, "value");
  if (!v) op_error(c, op, "requires attribute 'value'");
  else if (v->kind != ATTR_DENSE && v->kind != ATTR_DENSE_RESOURCE)
    op_error(c, op, "attribute 'value' must be a dense elements attribute, but got %s", vo_attr_str(c, v));
  else if (v->type && vo_operand_type(op, 0) && !vo_types_compatible(v->type, vo_operand_type(op, 0)))
    op_error(c, op, "expects the constant of type '%s' to have the operand type '%s'", vo_type_str(c, v->type),
             vo_type_str(c, vo_operand_type(op, 0)));
  check_tolerances(c, op);
}

/* check.expect_serialized_eq, interpreter.probe: a string probe_id; the
 * probe's result has its operand's type. */
void verify_probe(Context *c, Op *op) {
  const Attr *id = op_attr(op, "probe_id");
  if (!id) op_error(c, op, "requires attribute 'probe_id'");
  else if (id->kind != ATTR_STRING)
    op_error(c, op, "attribute 'probe_id' must be a string, but got %s", vo_attr_str(c, id));
  if (op->kind == OP_INTERPRETER_PROBE && op->nresults == 1 &&
      !vo_types_compatible(vo_operand_type(op, 0), vo_result_type(op, 0)))
    op_error(c, op, "expects the result to have the operand type, but got '%s' and '%s'",
             vo_type_str(c, vo_result_type(op, 0)), vo_type_str(c, vo_operand_type(op, 0)));
  check_tolerances(c, op);
}

/* ------------------------------------------------------------------ */
/* CHLO: top_k, scan, ragged_dot */

void verify_top_k(Context *c, Op *op) {
  int64_t k;
  AttrRead ak = vo_int_attr(c, op, "k", true, &k);
  bool ok = vo_require_tensor_operand(c, op, 0);
  ok &= vo_require_tensor_result(c, op, 0);
  ok &= vo_check_result(c, op, 1, EM_INT);
  if (!ok) return;
  const Type *in = vo_operand_type(op, 0), *vals = vo_result_type(op, 0), *idx = vo_result_type(op, 1);
  if (ak == AR_OK && k < 0) {
    op_error(c, op, "k must be non-negative, but got %" PRId64, k);
    return;
  }
  if (!vo_elems_compatible(in, vals))
    op_error(c, op, "expects values to have the operand element type, but got '%s' and '%s'", vo_type_str(c, vals),
             vo_type_str(c, in));
  if (vo_builtin_elem(idx) && idx->elem != ELEM_I32)
    op_error(c, op, "expects indices of element type i32, but got '%s'", vo_type_str(c, idx));
  if (!vo_is_ranked(in)) return;
  if (in->rank < 1) {
    op_error(c, op, "operand's rank must be at least 1");
    return;
  }
  int64_t last = in->dims[in->rank - 1];
  if (ak == AR_OK && vo_dim_known(last) && last < k) {
    op_error(c, op, "operand's last dimension must be at least %" PRId64, k);
    return;
  }
  int64_t *d = arena_alloc(&c->arena, sizeof(int64_t) * (size_t)(in->rank + 1));
  for (int i = 0; i < in->rank; i++) d[i] = in->dims[i];
  d[in->rank - 1] = ak == AR_OK ? k : DIM_DYNAMIC;
  for (int r = 0; r < 2; r++) {
    const Type *t = vo_result_type(op, r);
    if (vo_infer_shape(c, r, in->rank, d) || !vo_is_ranked(t)) continue;
    bool good = t->rank == in->rank;
    for (int i = 0; good && i < in->rank; i++) good = vo_dims_compatible(t->dims[i], d[i]);
    if (!good)
      op_error(c, op, "expects result #%d to have shape %s, but got '%s'", r, vo_list_str(c, in->rank, d),
               vo_type_str(c, t));
  }
}

/* chlo.scan: the inputs (the first operandSegmentSizes[0] operands) share
 * the size of the scan dimension (scan_dim_size when given); the body takes
 * one argument per operand, an input without its scan dimension, then the
 * carries as they are. */
void verify_scan(Context *c, Op *op) {
  int64_t dim;
  AttrRead ad = vo_int_attr(c, op, "dimension", true, &dim);
  bool ok = true;
  for (int i = 0; i < op->noperands; i++) ok &= vo_require_tensor_operand(c, op, i);
  Arena scratch = {0};
  int nseg = 0;
  const int64_t *seg = NULL;
  int ninputs = op->noperands;
  if (attr_as_i64_list(op_attr(op, "operandSegmentSizes"), &nseg, &seg, &scratch) && nseg == 2 && seg[0] >= 0 &&
      seg[0] <= op->noperands)
    ninputs = (int)seg[0];
  arena_free_all(&scratch);
  if (!ok || ad != AR_OK) return;
  int64_t size = DIM_DYNAMIC;
  vo_int_attr(c, op, "scan_dim_size", false, &size);
  for (int i = 0; i < ninputs; i++) {
    const Type *t = vo_operand_type(op, i);
    if (!vo_is_ranked(t)) continue;
    if (dim < 0 || dim >= t->rank) {
      op_error(c, op, "scan dimension %" PRId64 " of operand %d is out of bounds (rank %d)", dim, i, t->rank);
      return;
    }
    if (!vo_dim_known(t->dims[dim])) continue;
    if (vo_dim_known(size) && size != t->dims[dim]) {
      op_error(c, op, "invalid scan dimension size of operand %d (%" PRId64 ", but %" PRId64 " before)", i,
               t->dims[dim], size);
      return;
    }
    size = t->dims[dim];
  }
  if (op->nregions < 1 || op->regions[0].nblocks < 1) return;
  const Block *b = op->regions[0].blocks[0];
  if (b->nargs != op->noperands) {
    op_error(c, op, "expects %d arguments in the body, but got %d", op->noperands, b->nargs);
    return;
  }
  for (int i = 0; i < op->noperands; i++) {
    const Type *t = vo_operand_type(op, i), *a = b->args[i].type;
    if (!vo_is_ranked(t) || !vo_is_ranked(a)) continue;
    bool good = vo_elems_compatible(t, a) && a->rank == t->rank - (i < ninputs ? 1 : 0);
    for (int k = 0, j = 0; good && k < t->rank; k++) {
      if (i < ninputs && k == dim) continue;
      good = vo_dims_compatible(t->dims[k], a->dims[j++]);
    }
    if (!good) {
      op_error(c, op, "operand and body argument %d are incompatible ('%s' and '%s')", i, vo_type_str(c, t),
               vo_type_str(c, a));
      return;
    }
  }
}

/* chlo.ragged_dot's group_sizes: [g], or [batch..., x..., g] where x are
 * the lhs dimensions the ragged one splits (before it, of its kind); in
 * the non-contracting mode the rhs group dimension has g entries and is
 * neither a batching nor a contracting one.  False after a diagnostic. */
static bool check_group_sizes(Context *c, const Op *op, const Type *l, const Type *r, const Type *g, const I64List *lb,
                              const I64List *lc, const I64List *rb, const I64List *rc, const I64List *rg,
                              int64_t ragged, bool mode1, bool mode2) {
  for (int i = 0; i < rg->n; i++)
    if (vo_list_contains(rb, rg->v[i]) || vo_list_contains(rc, rg->v[i])) {
      op_error(c, op, "has duplicated dimension from rhs_group_dimensions and rhs_%s_dimensions: %" PRId64,
               vo_list_contains(rb, rg->v[i]) ? "batching" : "contracting", rg->v[i]);
      return false;
    }
  if (!vo_is_ranked(g) || g->rank < 1) return true;
  int64_t *want = arena_alloc(&c->arena, sizeof(int64_t) * (size_t)(l->rank + 1));
  int n = 0;
  if (mode2 || mode1) {
    for (int i = 0; i < lb->n; i++) want[n++] = l->dims[lb->v[i]];
  } else {
    for (int i = 0; i < lb->n && lb->v[i] != ragged; i++) want[n++] = l->dims[lb->v[i]];
  }
  if (mode2)
    for (int i = 0; i < lc->n && lc->v[i] != ragged; i++) want[n++] = l->dims[lc->v[i]];
  if (mode1)
    for (int64_t i = 0; i < ragged; i++)
      if (!vo_list_contains(lb, i) && !vo_list_contains(lc, i)) want[n++] = l->dims[i];
  int64_t groups = g->dims[g->rank - 1];
  want[n] = groups;
  if (g->rank != 1) {
    if (g->rank != n + 1) {
      op_error(c, op, "expected group_sizes to have rank %d, got %d", n + 1, g->rank);
      return false;
    }
    for (int i = 0; i < n; i++)
      if (!vo_dims_compatible(want[i], g->dims[i])) {
        op_error(c, op, "group_sizes is expected to have shape %s, got %s", vo_list_str(c, n + 1, want),
                 vo_shape_str(c, g));
        return false;
      }
  }
  if (mode1 && rg->n == 1 && !vo_dims_compatible(groups, r->dims[rg->v[0]])) {
    op_error(c, op, "rhs group dimension is expected to have size=%" PRId64 ", got %" PRId64, groups,
             r->dims[rg->v[0]]);
    return false;
  }
  return true;
}

void verify_ragged_dot(Context *c, Op *op) {
  bool ok = vo_require_tensor_operand(c, op, 0);
  ok &= vo_require_tensor_operand(c, op, 1);
  ok &= vo_check_operand(c, op, 2, EM_INT);
  ok &= vo_require_tensor_result(c, op, 0);
  const Attr *dn = NULL;
  AttrRead ad = vo_dialect_attr(c, op, "ragged_dot_dimension_numbers", "chlo.ragged_dot", true, &dn);
  if (!ok || ad != AR_OK) return;
  const Type *l = vo_operand_type(op, 0), *r = vo_operand_type(op, 1), *g = vo_operand_type(op, 2);
  if (!vo_elems_compatible(l, r))
    op_error(c, op, "expects lhs and rhs to have the same element type, but got '%s' and '%s'", vo_type_str(c, l),
             vo_type_str(c, r));
  I64List lb, rb, lc, rc, lr, rg;
  if (!vo_dialect_list(c, op, dn, "lhs_batching_dimensions", &lb) ||
      !vo_dialect_list(c, op, dn, "rhs_batching_dimensions", &rb) ||
      !vo_dialect_list(c, op, dn, "lhs_contracting_dimensions", &lc) ||
      !vo_dialect_list(c, op, dn, "rhs_contracting_dimensions", &rc) ||
      !vo_dialect_list(c, op, dn, "lhs_ragged_dimensions", &lr) ||
      !vo_dialect_list(c, op, dn, "rhs_group_dimensions", &rg))
    return;
  if (!vo_is_ranked(l) || !vo_is_ranked(r)) return;
  bool good = true;
  if (lb.n != rb.n || lc.n != rc.n) {
    op_error(c, op, "lhs and rhs must have the same number of batching (%d vs %d) and contracting (%d vs %d) "
             "dimensions", lb.n, rb.n, lc.n, rc.n);
    good = false;
  }
  good &= vo_check_dims(c, op, "lhs_batching_dimensions", &lb, l->rank, true);
  good &= vo_check_dims(c, op, "lhs_contracting_dimensions", &lc, l->rank, true);
  good &= vo_check_dims(c, op, "rhs_batching_dimensions", &rb, r->rank, true);
  good &= vo_check_dims(c, op, "rhs_contracting_dimensions", &rc, r->rank, true);
  good &= vo_check_dims(c, op, "lhs_ragged_dimensions", &lr, l->rank, true);
  good &= vo_check_dims(c, op, "rhs_group_dimensions", &rg, r->rank, true);
  if (lr.n != 1) {
    op_error(c, op, "there must be exactly one ragged dimension in the lhs, but got %d", lr.n);
    good = false;
  }
  if (rg.n > 1) {
    op_error(c, op, "there must be at most one group dimension in the rhs, but got %d", rg.n);
    good = false;
  }
  if (!good) return;
  for (int i = 0; i < lb.n; i++)
    if (!vo_dims_compatible(l->dims[lb.v[i]], r->dims[rb.v[i]])) {
      op_error(c, op, "batching dimension sizes must match for lhs/rhs (dimensions %" PRId64 " and %" PRId64 ")",
               lb.v[i], rb.v[i]);
      return;
    }
  for (int i = 0; i < lc.n; i++)
    if (!vo_dims_compatible(l->dims[lc.v[i]], r->dims[rc.v[i]])) {
      op_error(c, op, "contracting dimension sizes must match for lhs/rhs (dimensions %" PRId64 " and %" PRId64 ")",
               lc.v[i], rc.v[i]);
      return;
    }
  int64_t ragged = lr.v[0];
  bool mode2 = vo_list_contains(&lc, ragged), mode3 = vo_list_contains(&lb, ragged);
  bool mode1 = !mode2 && !mode3;
  if (mode1 && rg.n != 1) {
    op_error(c, op, "the rhs must have a group dimension when the lhs ragged dimension is a non-contracting "
             "dimension");
    return;
  }
  if (!mode1 && rg.n != 0) {
    op_error(c, op, "the rhs must not have a group dimension when the lhs ragged dimension is a %s dimension",
             mode2 ? "contracting" : "batching");
    return;
  }
  if (!check_group_sizes(c, op, l, r, g, &lb, &lc, &rb, &rc, &rg, ragged, mode1, mode2)) return;
  int64_t *d = arena_alloc(&c->arena, sizeof(int64_t) * (size_t)(l->rank + r->rank + 2));
  int k = 0;
  if (mode2) d[k++] = vo_rank(g) >= 1 ? g->dims[g->rank - 1] : DIM_DYNAMIC;
  for (int i = 0; i < lb.n; i++) d[k++] = l->dims[lb.v[i]];
  for (int i = 0; i < l->rank; i++)
    if (!vo_list_contains(&lb, i) && !vo_list_contains(&lc, i)) d[k++] = l->dims[i];
  for (int i = 0; i < r->rank; i++)
    if (!vo_list_contains(&rb, i) && !vo_list_contains(&rc, i) && !vo_list_contains(&rg, i)) d[k++] = r->dims[i];
  const Type *res = vo_result_type(op, 0);
  if (vo_infer_shape(c, 0, k, d) || !vo_is_ranked(res)) return;
  bool match = res->rank == k;
  for (int i = 0; match && i < k; i++) match = vo_dims_compatible(res->dims[i], d[i]);
  if (!match)
    op_error(c, op, "inferred shape %s is incompatible with the result type '%s'", vo_list_str(c, k, d),
             vo_type_str(c, res));
}
