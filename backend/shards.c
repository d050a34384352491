/* The SHARDS section and MODULE's flags and mesh of a partitioned module
 * (tpu.spmd_partitioned): for each public function, which arguments and
 * results are pieces of global tensors, read from their tpu.global_shape,
 * tpu.shard_tiles and tpu.shard_devices attributes (docs/bytecode.md,
 * "Partitioned programs").  Everything the loader would refuse is
 * diagnosed here at the function. */
#include <stdlib.h>
#include <string.h>

#include "backend/emit.h"

/* The value of key in dictionary attribute d, or NULL. */
static const Attr *dict_get(const Attr *d, const char *key) {
  if (!d || d->kind != ATTR_DICT) return NULL;
  for (int i = 0; i < d->u.dict.n; i++)
    if (strcmp(d->u.dict.items[i].name, key) == 0) return d->u.dict.items[i].value;
  return NULL;
}

/* The i64 list of attribute a (array<i64: ...>), or false after reporting
 * it at f; what names the argument or result. */
static bool int_list(Emitter *e, const Op *f, const Attr *a, const char *key, const char *what, int *n,
                     const int64_t **v) {
  if (attr_as_i64_list(a, n, v, &e->c->arena)) return true;
  op_error(e->c, f, "%s of %s must be an array<i64: ...>", key, what);
  return false;
}

/* Checks one annotated argument or result of type t against the module's
 * partitions and appends its record; false after reporting at f. */
static bool shard_record(Emitter *e, const Op *f, const Attr *dict, const Type *t, TpubShard *rec, const char *what) {
  const char *keys[] = {"tpu.global_shape", "tpu.shard_tiles", "tpu.shard_devices"};
  const int64_t *v[3];
  int n[3];
  for (int k = 0; k < 3; k++) {
    const Attr *a = dict_get(dict, keys[k]);
    if (!a) return op_error(e->c, f, "%s has %s without %s", what, dict_get(dict, keys[0]) ? keys[0] : dict_get(dict, keys[1]) ? keys[1] : keys[2], keys[k]), false;
    if (!int_list(e, f, a, keys[k], what, &n[k], &v[k])) return false;
  }
  if (t->kind != TY_TENSOR || t->rank < 0 || t->rank > TPUB_MAX_RANK)
    return op_error(e->c, f, "%s is sharded but is not a ranked tensor", what), false;
  int rank = t->rank;
  int64_t parts = e->module.num_partitions, pieces = 1;
  if (n[0] != rank || n[1] != rank + 1)
    return op_error(e->c, f, "%s: tpu.global_shape has %d dims and tpu.shard_tiles %d counts, expected %d and %d (rank %d, then the replication count)",
                    what, n[0], n[1], rank, rank + 1, rank), false;
  for (int d = 0; d <= rank; d++) {
    if (v[1][d] < 1 || v[1][d] > parts)
      return op_error(e->c, f, "%s: tpu.shard_tiles count %d is %lld (1..%lld, the partitions)", what, d, (long long)v[1][d], (long long)parts), false;
    pieces *= v[1][d];
    if (pieces > parts) break;
  }
  if (pieces != parts || n[2] != parts)
    return op_error(e->c, f, "%s: %d device ids for pieces x replication = %lld; mhlo.num_partitions is %lld", what, n[2],
                    (long long)pieces, (long long)parts), false;
  uint8_t *seen = calloc((size_t)parts, 1);
  bool ok = seen != NULL;
  for (int k = 0; ok && k < n[2]; k++) {
    if (v[2][k] < 0 || v[2][k] >= parts) op_error(e->c, f, "%s: device %lld is not a partition (0..%lld)", what, (long long)v[2][k], (long long)parts - 1), ok = false;
    else if (seen[v[2][k]]++) op_error(e->c, f, "%s: partition %lld appears twice in tpu.shard_devices", what, (long long)v[2][k]), ok = false;
  }
  free(seen);
  for (int d = 0; ok && d < rank; d++) {
    int64_t g = v[0][d], local = g >= 0 ? (g + v[1][d] - 1) / v[1][d] : -1;
    if (g < 0 || t->dims[d] != local)
      op_error(e->c, f, "%s: dim %d is %lld per chip, but tpu.global_shape %lld in %lld tiles gives %lld", what, d,
               (long long)t->dims[d], (long long)g, (long long)v[1][d], (long long)local), ok = false;
  }
  if (!ok) return false;
  rec->rank = (uint16_t)rank;
  rec->global = emit_ints(e, v[0], (size_t)rank);
  rec->tiles = emit_ints(e, v[1], (size_t)rank + 1);
  rec->devices = emit_ints(e, v[2], (size_t)n[2]);
  rec->ndevices = (uint32_t)n[2];
  return true;
}

/* Whether dictionary d holds any of the shard attributes. */
static bool has_shard_attrs(const Attr *d) {
  return dict_get(d, "tpu.global_shape") || dict_get(d, "tpu.shard_tiles") || dict_get(d, "tpu.shard_devices");
}

/* The records of function f (FUNCS index fi), parameters then results. */
static void func_shards(Emitter *e, const Op *f, uint32_t fi, bool spmd, bool public_) {
  const Attr *fta = op_attr(f, "function_type");
  if (!fta || fta->kind != ATTR_TYPE) return;
  const Type *ft = fta->type;
  const char *keys[] = {"arg_attrs", "res_attrs"};
  for (int side = 0; side < 2; side++) {
    const Attr *list = op_attr(f, keys[side]);
    int count = side ? ft->nresults : ft->ninputs;
    for (int i = 0; list && list->kind == ATTR_ARRAY && i < list->u.array.n && i < count; i++) {
      const Attr *d = list->u.array.items[i];
      if (!has_shard_attrs(d)) continue;
      char what[200];
      snprintf(what, sizeof what, side ? "result #%d of @%s" : "%%arg%d of @%s", i, op_symbol_name(f));
      if (!spmd || !public_) {
        op_error(e->c, f, "%s is sharded (tpu.global_shape, tpu.shard_*), but %s", what,
                 spmd ? "only a public function's arguments and results can be" : "the module is not tpu.spmd_partitioned");
        e->failed = true;
        continue;
      }
      TpubShard rec = {.func = fi, .kind = side ? TPUB_SHARD_RESULT : TPUB_SHARD_PARAM, .index = (uint32_t)i};
      if (shard_record(e, f, d, side ? ft->results[i] : ft->inputs[i], &rec, what))
        bytes_append(&e->shards, &rec, sizeof rec);
      else
        e->failed = true;
    }
  }
}

/* tpu.mesh of a partitioned module into MODULE; false after reporting. */
static bool module_mesh(Emitter *e, const Op *module) {
  const Attr *a = op_attr(module, "tpu.mesh");
  if (!a) return true;
  int n;
  const int64_t *v;
  int64_t held = 1;
  if (!attr_as_i64_list(a, &n, &v, &e->c->arena) || (n != 2 && n != 3))
    return op_error(e->c, module, "tpu.mesh must be an array<i64: a, b> or array<i64: a, b, c>"), false;
  for (int d = 0; d < n; d++) {
    if (v[d] < 1 || v[d] > TPUB_MAX_CHIPS) return op_error(e->c, module, "tpu.mesh dimension %d is %lld (1..%d)", d, (long long)v[d], TPUB_MAX_CHIPS), false;
    held *= v[d];
  }
  if (held != e->module.num_partitions)
    return op_error(e->c, module, "tpu.mesh holds %lld devices, but mhlo.num_partitions is %u", (long long)held,
                    e->module.num_partitions), false;
  e->module.mesh_rank = (uint16_t)n;
  e->module.mesh = emit_ints(e, v, (size_t)n);
  return true;
}

void emit_shards(Emitter *e, const Module *m) {
  bool spmd = op_attr(m->op, "tpu.spmd_partitioned") != NULL;
  if (spmd) {
    e->module.flags |= TPUB_MODULE_SPMD;
    if (!module_mesh(e, m->op)) e->failed = true;
  } else if (op_attr(m->op, "tpu.mesh")) {
    op_error(e->c, m->op, "tpu.mesh needs the module attribute tpu.spmd_partitioned");
    e->failed = true;
  }
  Block *body = op_body(m->op);
  uint32_t index = 0; /* module functions hold the first FUNCS indices, in order */
  for (const Op *f = body ? body->first : NULL; f; f = f->next) {
    if (f->kind != OP_FUNC) continue;
    const Attr *vis = op_attr(f, "sym_visibility");
    bool private_ = vis && vis->kind == ATTR_STRING && strcmp(vis->u.str.s, "private") == 0;
    func_shards(e, f, index++, spmd, !private_);
  }
}
