/* The partitioner's op builder (passes/spmd_part.h): local values, their
 * layouts, the partition's tile offsets, and the collectives that move
 * pieces between partitions. */
#include <stdlib.h>
#include <string.h>

#include "passes/spmd_part.h"

/* ------------------------------------------------------------------ */
/* Local values */

const Local *part_get(const Part *P, const Value *old) { return ptr_table_get(&P->locals, old); }

void part_put(Part *P, const Value *old, Value *v, const Sharding *l, bool manual) {
  bool added;
  Local *slot = ptr_table_put(&P->locals, old, &added);
  *slot = (Local){old, added ? old->type : slot->global, v, l, manual, NULL, NULL};
}

void part_remember(Part *P, const Value *old, const Sharding *l, Value *v) {
  Local *slot = ptr_table_get(&P->locals, old);
  slot->alt_l = l;
  slot->alt_v = v;
}

/* ------------------------------------------------------------------ */
/* Building ops before the op being partitioned */

Value *part_emit(Part *P, OpKind k, int n, Value **operands, Type *t, int nattrs, NamedAttr *attrs) {
  Op *op = op_build(P->s->c, k, P->loc, n, operands, t, nattrs, attrs);
  op_insert_before(P->at, op);
  return &op->results[0];
}

Type *part_with_dims(Part *P, const Type *like, const int64_t *dims) {
  Context *c = P->s->c;
  return like->elem_opaque ? type_tensor_opaque_elem(c, like->elem_opaque, like->rank, dims, like->encoding)
                           : type_tensor(c, like->elem, like->rank, dims, like->encoding);
}

Value *part_splat(Part *P, Type *t, const void *elem) {
  int64_t n = 1;
  type_tensor_num_elements(t, &n);
  int esz = elem_storage_bytes(t->elem);
  NamedAttr v = {"value", attr_dense_raw(P->s->c, t, elem, (size_t)esz, n != 1)};
  return part_emit(P, OP_CONSTANT, 0, NULL, t, 1, &v);
}

Value *part_zero_like(Part *P, ElemKind k) {
  uint8_t zero[16] = {0};
  return part_splat(P, type_scalar_tensor(P->s->c, k), zero);
}

Attr *part_groups_attr(Part *P, int64_t ngroups, int64_t size, const int64_t *ids) {
  Context *c = P->s->c;
  int64_t dims[2] = {ngroups, size};
  return attr_dense_raw(c, type_tensor(c, ELEM_I64, 2, dims, NULL), ids, sizeof(int64_t) * (size_t)(ngroups * size), false);
}

Value *part_partition_id(Part *P) {
  if (P->pid) return P->pid;
  Context *c = P->s->c;
  Op *save = P->at;
  P->at = P->func_block->first;
  Value *u = part_emit(P, OP_PARTITION_ID, 0, NULL, type_scalar_tensor(c, ELEM_UI32), 0, NULL);
  P->pid = part_emit(P, OP_CONVERT, 1, &u, type_scalar_tensor(c, ELEM_I32), 0, NULL);
  P->at = save;
  return P->pid;
}

Value *part_lookup(Part *P, const int32_t *table) {
  Context *c = P->s->c;
  int64_t n = P->s->n, one = 1;
  bool same = true;
  for (int64_t p = 1; p < n; p++) same = same && table[p] == table[0];
  if (same) return part_splat(P, type_scalar_tensor(c, ELEM_I32), &table[0]);
  Type *tt = type_tensor(c, ELEM_I32, 1, &n, NULL);
  NamedAttr v = {"value", attr_dense_raw(c, tt, table, sizeof(int32_t) * (size_t)n, false)};
  Value *tab = part_emit(P, OP_CONSTANT, 0, NULL, tt, 1, &v);
  Value *ops[2] = {tab, part_partition_id(P)};
  NamedAttr sz = {"slice_sizes", attr_dense_i64_array(c, 1, &one)};
  Value *one_elem = part_emit(P, OP_DYNAMIC_SLICE, 2, ops, type_tensor(c, ELEM_I32, 1, &one, NULL), 1, &sz);
  return part_emit(P, OP_RESHAPE, 1, &one_elem, type_scalar_tensor(c, ELEM_I32), 0, NULL);
}

Value *part_offset(Part *P, const Sharding *l, int d, int64_t global, const Sharding *other) {
  const int64_t *co = layout_coords(P->s, l), *oc = other ? layout_coords(P->s, other) : NULL;
  int64_t size = layout_local_dim(l, d, global), osize = other ? layout_local_dim(other, d, global) : 0;
  int32_t *table = xcalloc((size_t)P->s->n, sizeof(int32_t));
  for (int64_t p = 0; p < P->s->n; p++) {
    int64_t v = co[p * (l->rank + 1) + d] * size;
    if (other) v -= oc[p * (other->rank + 1) + d] * osize;
    table[p] = (int32_t)v;
  }
  Value *out = part_lookup(P, table);
  free(table);
  return out;
}

/* ------------------------------------------------------------------ */
/* Groups of partitions */

int64_t part_groups(Part *P, const Sharding *l, const bool *vary, int64_t *ids) {
  const int64_t *co = layout_coords(P->s, l);
  int k = l->rank;
  int64_t n = P->s->n, size = 1;
  for (int d = 0; d < k; d++)
    if (vary[d]) size *= l->tiles[d];
  /* Sort partitions by (the coordinates that stay, those that vary). */
  int64_t *key = xcalloc((size_t)n, sizeof(int64_t));
  for (int64_t p = 0; p < n; p++) {
    int64_t fixed = 0, moving = 0;
    for (int d = 0; d < k; d++) {
      if (vary[d]) moving = moving * l->tiles[d] + co[p * (k + 1) + d];
      else fixed = fixed * l->tiles[d] + co[p * (k + 1) + d];
    }
    fixed = fixed * l->replicas + co[p * (k + 1) + k];
    key[p] = (fixed * size + moving) * n + p;
  }
  qsort(key, (size_t)n, sizeof(int64_t), spmd_cmp_i64);
  for (int64_t i = 0; i < n; i++) ids[i] = key[i] % n;
  free(key);
  return size;
}

/* Replica groups of partition-id rows for a flattened-id collective:
 * the rows repeated for every replica (ids r * N + p). */
static Attr *global_groups(Part *P, int64_t size, const int64_t *ids) {
  int64_t n = P->s->n, reps = P->s->replicas;
  int64_t *all = xcalloc((size_t)(n * reps), sizeof(int64_t));
  for (int64_t r = 0; r < reps; r++)
    for (int64_t i = 0; i < n; i++) all[r * n + i] = r * n + ids[i];
  Attr *a = part_groups_attr(P, n * reps / size, size, all);
  free(all);
  return a;
}

static Attr *channel(Part *P) {
  Context *c = P->s->c;
  NamedAttr kv[2] = {{"handle", attr_i64(c, ++P->s->channels)}, {"type", attr_i64(c, 1)}};
  return attr_dialect(c, "stablehlo.channel_handle", 2, kv);
}

/* A scalar computation region for an all_reduce / reduce_scatter: body's
 * clone, or `kind` (add / or) over two scalars of element type k. */
static void computation(Part *P, Op *op, const Region *body, OpKind kind, ElemKind k) {
  Context *c = P->s->c;
  if (body) {
    ValueMap m = {0};
    region_clone_into(c, body, &op->regions[0], &m);
    return;
  }
  Type *st = type_scalar_tensor(c, k), *args[2] = {st, st};
  Block *b = block_create(c, &op->regions[0], 2, args);
  region_add_block(c, &op->regions[0], b);
  Value *ab[2] = {&b->args[0], &b->args[1]};
  Op *sum = op_build(c, kind, P->loc, 2, ab, st, 0, NULL);
  op_append(b, sum);
  Value *r = &sum->results[0];
  op_append(b, op_build(c, OP_RETURN, P->loc, 1, &r, NULL, 0, NULL));
}

Value *part_all_reduce(Part *P, Value *x, int64_t size, const int64_t *ids, const Region *body, OpKind kind) {
  Context *c = P->s->c;
  NamedAttr a[3] = {{"channel_handle", channel(P)}, {"replica_groups", global_groups(P, size, ids)},
                    {"use_global_device_ids", attr_unit(c)}};
  Type *t = x->type;
  Op *op = op_create(c, OP_ALL_REDUCE, op_info[OP_ALL_REDUCE].name, P->loc, 1, &x, 1, &t, 3, a, 1);
  computation(P, op, body, kind, t->elem);
  op_insert_before(P->at, op);
  P->s->pc->spmd_inserted[SPMD_ALL_REDUCE]++;
  return &op->results[0];
}

Value *part_reduce_scatter(Part *P, Value *x, int dim, int64_t size, const int64_t *ids, const Region *body,
                           OpKind kind) {
  Context *c = P->s->c;
  int64_t dims[SHARDING_MAX_RANK + 1];
  memcpy(dims, x->type->dims, sizeof(int64_t) * (size_t)x->type->rank);
  dims[dim] /= size;
  Type *t = part_with_dims(P, x->type, dims);
  NamedAttr a[4] = {{"channel_handle", channel(P)}, {"replica_groups", global_groups(P, size, ids)},
                    {"scatter_dimension", attr_i64(c, dim)}, {"use_global_device_ids", attr_unit(c)}};
  Op *op = op_create(c, OP_REDUCE_SCATTER, op_info[OP_REDUCE_SCATTER].name, P->loc, 1, &x, 1, &t, 4, a, 1);
  computation(P, op, body, kind, t->elem);
  op_insert_before(P->at, op);
  P->s->pc->spmd_inserted[SPMD_REDUCE_SCATTER]++;
  return &op->results[0];
}

Value *part_all_gather(Part *P, Value *x, int dim, int64_t size, const int64_t *ids) {
  Context *c = P->s->c;
  int64_t dims[SHARDING_MAX_RANK + 1];
  memcpy(dims, x->type->dims, sizeof(int64_t) * (size_t)x->type->rank);
  dims[dim] *= size;
  NamedAttr a[4] = {{"all_gather_dim", attr_i64(c, dim)}, {"channel_handle", channel(P)},
                    {"replica_groups", global_groups(P, size, ids)}, {"use_global_device_ids", attr_unit(c)}};
  P->s->pc->spmd_inserted[SPMD_ALL_GATHER]++;
  return part_emit(P, OP_ALL_GATHER, 1, &x, part_with_dims(P, x->type, dims), 4, a);
}

Value *part_all_to_all(Part *P, Value *x, int split, int concat, int64_t size, const int64_t *ids) {
  Context *c = P->s->c;
  int64_t dims[SHARDING_MAX_RANK + 1];
  memcpy(dims, x->type->dims, sizeof(int64_t) * (size_t)x->type->rank);
  dims[split] /= size;
  dims[concat] *= size;
  NamedAttr a[5] = {{"channel_handle", channel(P)},
                    {"concat_dimension", attr_i64(c, concat)},
                    {"replica_groups", part_groups_attr(P, P->s->n / size, size, ids)},
                    {"split_count", attr_i64(c, size)},
                    {"split_dimension", attr_i64(c, split)}};
  P->s->pc->spmd_inserted[SPMD_ALL_TO_ALL]++;
  return part_emit(P, OP_ALL_TO_ALL, 1, &x, part_with_dims(P, x->type, dims), 5, a);
}

Value *part_slice(Part *P, Value *x, const int64_t *limit) {
  Context *c = P->s->c;
  int k = x->type->rank;
  int64_t zero[SHARDING_MAX_RANK + 1] = {0}, one[SHARDING_MAX_RANK + 1];
  for (int d = 0; d < k; d++) one[d] = 1;
  NamedAttr a[3] = {{"limit_indices", attr_dense_i64_array(c, k, limit)},
                    {"start_indices", attr_dense_i64_array(c, k, zero)},
                    {"strides", attr_dense_i64_array(c, k, one)}};
  return part_emit(P, OP_SLICE, 1, &x, part_with_dims(P, x->type, limit), 3, a);
}

Value *part_pad_to(Part *P, Value *x, const int64_t *dims) {
  Context *c = P->s->c;
  int k = x->type->rank;
  bool same = true;
  int64_t lo[SHARDING_MAX_RANK + 1] = {0}, hi[SHARDING_MAX_RANK + 1];
  for (int d = 0; d < k; d++) {
    hi[d] = dims[d] - x->type->dims[d];
    same = same && hi[d] == 0;
  }
  if (same) return x;
  Value *ops[2] = {x, part_zero_like(P, x->type->elem)};
  NamedAttr a[3] = {{"edge_padding_high", attr_dense_i64_array(c, k, hi)},
                    {"edge_padding_low", attr_dense_i64_array(c, k, lo)},
                    {"interior_padding", attr_dense_i64_array(c, k, lo)}};
  return part_emit(P, OP_PAD, 2, ops, part_with_dims(P, x->type, dims), 3, a);
}

Value *part_dynamic_slice(Part *P, Value *x, Value *const *starts, const int64_t *sizes) {
  Context *c = P->s->c;
  int k = x->type->rank;
  Value *ops[SHARDING_MAX_RANK + 2];
  ops[0] = x;
  for (int d = 0; d < k; d++) ops[d + 1] = starts[d];
  NamedAttr a = {"slice_sizes", attr_dense_i64_array(c, k, sizes)};
  return part_emit(P, OP_DYNAMIC_SLICE, k + 1, ops, part_with_dims(P, x->type, sizes), 1, &a);
}

Value *part_mask(Part *P, Value *x, const Sharding *l, const int64_t *global, const bool *dims, Value *fill) {
  Context *c = P->s->c;
  int k = x->type->rank;
  Value *keep = NULL;
  for (int d = 0; d < k; d++) {
    if (!dims[d] || l->tiles[d] == 1 || global[d] % l->tiles[d] == 0) continue;
    Type *it = type_tensor(c, ELEM_I32, k, x->type->dims, NULL);
    NamedAttr ia = {"iota_dimension", attr_i64(c, d)};
    Value *iota = part_emit(P, OP_IOTA, 0, NULL, it, 1, &ia);
    Value *off = part_offset(P, l, d, global[d], NULL);
    NamedAttr bd = {"broadcast_dimensions", attr_dense_i64_array(c, 0, NULL)};
    Value *boff = part_emit(P, OP_BROADCAST_IN_DIM, 1, &off, it, 1, &bd);
    Value *sum_ops[2] = {iota, boff};
    Value *pos = part_emit(P, OP_ADD, 2, sum_ops, it, 0, NULL);
    int32_t lim = (int32_t)global[d];
    Value *limit = part_emit(P, OP_BROADCAST_IN_DIM, 1, (Value *[]){part_splat(P, type_scalar_tensor(c, ELEM_I32), &lim)}, it, 1, &bd);
    Value *cmp_ops[2] = {pos, limit};
    NamedAttr dir = {"comparison_direction", attr_enum(c, "stablehlo", "comparison_direction", "LT")};
    Value *in = part_emit(P, OP_COMPARE, 2, cmp_ops, type_tensor(c, ELEM_I1, k, x->type->dims, NULL), 1, &dir);
    Value *and_ops[2] = {keep, in};
    keep = keep ? part_emit(P, OP_AND, 2, and_ops, in->type, 0, NULL) : in;
  }
  if (!keep) return x;
  NamedAttr bd = {"broadcast_dimensions", attr_dense_i64_array(c, 0, NULL)};
  Value *bfill = part_emit(P, OP_BROADCAST_IN_DIM, 1, &fill, x->type, 1, &bd);
  Value *sel[3] = {keep, x, bfill};
  return part_emit(P, OP_SELECT, 3, sel, x->type, 0, NULL);
}

Value *part_collective_permute(Part *P, Value *x, int64_t npairs, const int64_t *pairs) {
  NamedAttr a[2] = {{"channel_handle", channel(P)}, {"source_target_pairs", part_groups_attr(P, npairs, 2, pairs)}};
  P->s->pc->spmd_inserted[SPMD_COLLECTIVE_PERMUTE]++;
  return part_emit(P, OP_COLLECTIVE_PERMUTE, 1, &x, x->type, 2, a);
}
