/* Lowering of tpu.fusion (backend/lower.c dispatches here by the LOWER
 * column of ir/ops.def): a body the VM runs tile by tile, or block by
 * block of its contraction (an output fusion), becomes one FUSION
 * instruction; any other is cut into a root part and a loop tail. */
#include <string.h>

#include "backend/lower.h"

/* A fusion body the VM's FUSION instruction can run tile by tile: only
 * element-wise ops, broadcasts, reshapes and constants. */
static bool loop_fusible(const Op *o);
static bool fusion_is_loop_body(const Op *fusion) {
  for (const Op *o = op_body(fusion)->first; o; o = o->next)
    if (o->kind != OP_TPU_YIELD && !loop_fusible(o)) return false;
  return true;
}

static bool loop_fusible(const Op *o) {
  bool elementwise = (op_info[o->kind].traits & TRAIT_ELEMENTWISE) && !o->nregions;
  return elementwise || o->kind == OP_BROADCAST_IN_DIM || o->kind == OP_RESHAPE || o->kind == OP_CONSTANT;
}

/* An output fusion body the VM runs block by block: one dot_general or
 * convolution of the body's arguments, the rest loop-fusible. */
static bool fusion_is_output_body(const Op *fusion) {
  int contractions = 0;
  for (const Op *o = op_body(fusion)->first; o; o = o->next) {
    if (o->kind == OP_TPU_YIELD || loop_fusible(o)) continue;
    if (o->kind != OP_DOT_GENERAL && o->kind != OP_CONVOLUTION) return false;
    for (int k = 0; k < o->noperands; k++)
      if (o->operands[k]->def) return false;
    contractions++;
  }
  return contractions == 1;
}

/* Builds, detached, a fusion of kind `kind` of the ops `part` (in body
 * order) of a fusion body: its operands are what the part reads from
 * outside it (`in_part` holds its ops), its results the values `outs`,
 * which become aliases of the new op's results in `in_part`. */
static Op *build_part_fusion(Context *c, const Op *fusion, PtrVec *part, Table *in_part, PtrVec *outs,
                             const char *kind) {
  PtrVec params = {0};
  Table seen = {0};
  for (int i = 0; i < part->len; i++) {
    const Op *o = part->items[i];
    for (int k = 0; k < o->noperands; k++) {
      Value *v = o->operands[k];
      if ((v->def && table_get(in_part, v->def, 0)) || table_get(&seen, v, 0)) continue;
      *table_put(&seen, v, 0) = v;
      vec_push(&params, v);
    }
  }
  Type *ptypes[params.len + 1], *otypes[outs->len + 1];
  for (int i = 0; i < params.len; i++) ptypes[i] = ((Value *)params.items[i])->type;
  for (int i = 0; i < outs->len; i++) otypes[i] = ((Value *)outs->items[i])->type;
  NamedAttr k = {"kind", attr_string(c, kind, strlen(kind))};
  Op *f = op_create(c, OP_TPU_FUSION, NULL, fusion->loc, params.len, (Value **)params.items, outs->len, otypes, 1, &k,
                    1);
  Block *b = block_create(c, &f->regions[0], params.len, ptypes);
  region_add_block(c, &f->regions[0], b);
  ValueMap map = {0};
  for (int i = 0; i < params.len; i++) value_map_put(c, &map, params.items[i], &b->args[i]);
  for (int i = 0; i < part->len; i++) op_append(b, op_clone(c, part->items[i], &map));
  Value *ys[outs->len + 1];
  for (int i = 0; i < outs->len; i++) ys[i] = value_map_get(&map, outs->items[i]);
  op_append(b, op_create(c, OP_TPU_YIELD, NULL, fusion->loc, outs->len, ys, 0, NULL, 0, NULL, 0));
  for (int i = 0; i < outs->len; i++) *table_put(in_part, outs->items[i], 0) = &f->results[i];
  table_free(&seen, NULL);
  vec_free(&params);
  return f;
}

static void emit_fusion(FuncBuilder *fb, Op *op, int64_t kind);

/* tpu.fusion kinds by their FUSION field value (kind 0: loop, 1: input). */
static const char *const fusion_kinds[] = {"loop", "input", "output", "multi_output", NULL};

/* Lowers `part` as one detached fusion of kind `kind` yielding `outs`. */
static void lower_part(FuncBuilder *fb, const Op *fusion, PtrVec *part, Table *in_part, PtrVec *outs, int64_t kind) {
  Op *f = build_part_fusion(fb->e->c, fusion, part, in_part, outs, fusion_kinds[kind]);
  emit_fusion(fb, f, kind);
  op_erase(f);
}

/* Whether the root part `root` (its ops in `in_root`) is an input FUSION
 * the VM runs tile by tile: loop-fusible ops whose values only it uses and
 * that use no reduce, and reduces of them (a sibling fusion may hold
 * several).  Then the reduces move after the other ops in `root` and their
 * results go to `outs`, in order. */
static bool tiled_reduce_root(PtrVec *root, Table *in_root, PtrVec *outs) {
  PtrVec others = {0}, reduces = {0};
  bool ok = true;
  for (int i = 0; i < root->len && ok; i++) {
    Op *o = root->items[i];
    if (o->kind == OP_REDUCE) {
      vec_push(&reduces, o);
      for (int k = 0; k < o->nresults; k++) vec_push(outs, &o->results[k]);
      continue;
    }
    ok = loop_fusible(o);
    for (int k = 0; k < o->noperands && ok; k++) ok = !o->operands[k]->def || o->operands[k]->def->kind != OP_REDUCE;
    for (int k = 0; k < o->nresults && ok; k++)
      for (const Use *u = o->results[k].uses; u && ok; u = u->next) ok = table_get(in_root, u->user, 0) != NULL;
    vec_push(&others, o);
  }
  ok = ok && reduces.len > 0;
  for (int i = 0; ok && i < others.len; i++) root->items[i] = others.items[i];
  for (int i = 0; ok && i < reduces.len; i++) root->items[others.len + i] = reduces.items[i];
  vec_free(&others);
  vec_free(&reduces);
  return ok;
}

/* Any other fusion (a reduce, a dot_general or convolution of values the
 * body computes, with its consumers) runs in two parts: the root and what feeds it, then the
 * element-wise tail that only consumes the root as a loop FUSION, tile by
 * tile.  A root that is one reduce of loop-fusible producers is an input
 * FUSION (the VM folds the producer's tiles as they are computed); any
 * other root part runs as plain instructions (their host kernels are
 * whole-array already).  All of it keeps the fusion's cost record: the
 * model prices the fused op. */
static void lower_fusion_inline(FuncBuilder *fb, Op *fusion) {
  Block *body = op_body(fusion);
  for (int i = 0; i < body->nargs; i++)
    *table_put(&fb->regs, &body->args[i], 0) = (void *)(uintptr_t)(reg_of(fb, fusion->operands[i]) + 1);
  /* The root part: ops that are not loop-fusible and everything they read
   * inside the body (producers come first, so one backward sweep). */
  Table root_part = {0}, in_tail = {0};
  for (Op *o = body->last; o; o = o->prev) {
    if (o->kind == OP_TPU_YIELD) continue;
    if (loop_fusible(o) && !table_get(&root_part, o, 0)) continue;
    *table_put(&root_part, o, 0) = o;
    for (int k = 0; k < o->noperands; k++)
      if (o->operands[k]->def && o->operands[k]->def->parent == body)
        *table_put(&root_part, o->operands[k]->def, 0) = o;
  }
  PtrVec tail = {0}, root = {0}, outs = {0};
  for (Op *o = body->first; o; o = o->next) {
    if (o->kind == OP_TPU_YIELD) continue;
    if (table_get(&root_part, o, 0)) {
      vec_push(&root, o);
    } else {
      vec_push(&tail, o);
      *table_put(&in_tail, o, 0) = o;
    }
  }
  if (tiled_reduce_root(&root, &root_part, &outs)) {
    lower_part(fb, fusion, &root, &root_part, &outs, 1);
    for (int i = 0; i < outs.len; i++) {
      void **alias = table_get(&root_part, outs.items[i], 0);
      *table_put(&fb->regs, outs.items[i], 0) = (void *)(uintptr_t)(reg_of(fb, *alias) + 1);
    }
  } else {
    for (int i = 0; i < root.len; i++) lower_op(fb, root.items[i]);
  }
  /* The tail's yielded values, once each. */
  const Op *yield = body->last;
  outs.len = 0;
  for (int i = 0; i < yield->noperands; i++) {
    Value *v = yield->operands[i];
    bool dup = false;
    for (int k = 0; k < outs.len; k++) dup |= outs.items[k] == v;
    if (!dup && v->def && table_get(&in_tail, v->def, 0)) vec_push(&outs, v);
  }
  if (outs.len) lower_part(fb, fusion, &tail, &in_tail, &outs, 0);
  for (int i = 0; i < yield->noperands; i++) {
    Value *v = yield->operands[i];
    void **alias = table_get(&in_tail, v, 0);
    Value *src = alias ? *alias : v;
    *table_put(&fb->regs, &fusion->results[i], 0) = (void *)(uintptr_t)(reg_of(fb, src) + 1);
  }
  table_free(&root_part, NULL);
  table_free(&in_tail, NULL);
  vec_free(&tail);
  vec_free(&root);
  vec_free(&outs);
}

/* One FUSION instruction of kind `kind`; the body becomes a region
 * function (isolated: no captures). */
static void emit_fusion(FuncBuilder *fb, Op *op, int64_t kind) {
  Emitter *e = fb->e;
  Bytes fields = {0}, *saved = e->fields;
  e->fields = &fields;
  fint(e, kind);
  field_region(fb, op, &op->regions[0]);
  emit_op(fb, op, VM_OP_FUSION)->tilewise = kind == 0 && loop_fusion_writes_in_place(op);
  e->fields = saved;
  bytes_free(&fields);
}

/* tpu.fusion: one FUSION when its body runs tile by tile or block by block
 * (an output fusion), else in parts. */
void lower_fusion(FuncBuilder *fb, Op *op, int opcode) {
  (void)opcode;
  if (fusion_is_output_body(op)) {
    emit_fusion(fb, op, 2);
    return;
  }
  if (!fusion_is_loop_body(op)) {
    lower_fusion_inline(fb, op);
    return;
  }
  const Attr *k = op_attr(op, "kind");
  int64_t kind = 0;
  for (int i = 0; k && k->kind == ATTR_STRING && fusion_kinds[i]; i++)
    if (strcmp(fusion_kinds[i], k->u.str.s) == 0) kind = i;
  emit_fusion(fb, op, kind);
}
