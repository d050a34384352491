/* The DYNDIMS section: for each public function that passes/dynamic_pad.c
 * rewrote, its tpu.dynamic_args and tpu.dynamic_results quads (tensor,
 * dim, bound, size index) as TpubDyn records (docs/dynamic-shapes.md).
 * Anything the loader would refuse is diagnosed here at the function. */
#include <string.h>

#include "backend/emit.h"

/* The records of one side of function f (FUNCS index fi); false after
 * reporting a malformed list. */
static bool side_records(Emitter *e, const Op *f, uint32_t fi, bool result) {
  const char *key = result ? "tpu.dynamic_results" : "tpu.dynamic_args";
  const Attr *a = op_attr(f, key);
  if (!a) return true;
  const Attr *fta = op_attr(f, "function_type");
  int n;
  const int64_t *v;
  if (!fta || fta->kind != ATTR_TYPE || !attr_as_i64_list(a, &n, &v, &e->c->arena) || n % 4)
    return op_error(e->c, f, "%s must be an array<i64: ...> of (index, dim, bound, size index) quads", key), false;
  const Type *ft = fta->type;
  int count = result ? ft->nresults : ft->ninputs;
  Type *const *types = result ? ft->results : ft->inputs;
  for (int k = 0; k < n; k += 4) {
    int64_t idx = v[k], dim = v[k + 1], bound = v[k + 2], size = v[k + 3];
    bool ok = idx >= 0 && idx < count && size >= 0 && size < count && types[idx]->kind == TY_TENSOR && dim >= 0 &&
              dim < types[idx]->rank && types[idx]->dims[dim] == bound && bound <= INT32_MAX &&
              types[size] == type_scalar_tensor(e->c, ELEM_I32);
    if (!ok) return op_error(e->c, f, "%s: quad %d (%lld, %lld, %lld, %lld) does not fit the function's type", key, k / 4,
                             (long long)idx, (long long)dim, (long long)bound, (long long)size), false;
    TpubDyn rec = {.func = fi, .kind = result ? TPUB_DYN_RESULT : TPUB_DYN_PARAM, .dim = (uint16_t)dim,
                   .index = (uint32_t)idx, .size = (uint32_t)size, .bound = bound};
    bytes_append(&e->dyndims, &rec, sizeof rec);
  }
  return true;
}

void emit_dyndims(Emitter *e, const Module *m) {
  Block *body = op_body(m->op);
  uint32_t index = 0; /* module functions hold the first FUNCS indices, in order */
  for (const Op *f = body ? body->first : NULL; f; f = f->next) {
    if (f->kind != OP_FUNC) continue;
    uint32_t fi = index++;
    if (!op_attr(f, "tpu.dynamic_args") && !op_attr(f, "tpu.dynamic_results")) continue;
    const Attr *vis = op_attr(f, "sym_visibility");
    if (vis && vis->kind == ATTR_STRING && strcmp(vis->u.str.s, "private") == 0) continue;
    if (!side_records(e, f, fi, false) || !side_records(e, f, fi, true)) e->failed = true;
  }
}
