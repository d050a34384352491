/* Lowering of the collectives and point-to-point transfers
 * (vm/kernels/collective.c, vm/kernels/channel.c, docs/collectives.md);
 * backend/lower.c dispatches here by the LOWER column of ir/ops.def. */
#include <stdlib.h>

#include "backend/lower.h"

/* The mode field of the collective opcodes (vm/kernels/collective.h). */
enum { COLL_CROSS_REPLICA, COLL_CROSS_PARTITION, COLL_CROSS_REPLICA_AND_PARTITION, COLL_FLATTENED_IDS };

/* The channel handle's id, 0 without one. */
static int64_t channel_id(const Op *op) {
  const Attr *ch = op_attr(op, "channel_handle");
  return ch && ch->kind == ATTR_DIALECT ? dialect_int(ch, "handle", 0) : 0;
}

/* The spec's process-group mode: all_reduce, all_gather and reduce_scatter
 * (reducing) choose by channel and use_global_device_ids, the others by
 * the channel alone. */
static int64_t collective_mode(const Op *op, bool reducing) {
  if (channel_id(op) <= 0) return COLL_CROSS_REPLICA;
  if (!reducing) return COLL_CROSS_PARTITION;
  const Attr *g = op_attr(op, "use_global_device_ids");
  bool global = g && (g->kind == ATTR_UNIT || (g->kind == ATTR_BOOL && g->u.b));
  return global ? COLL_FLATTENED_IDS : COLL_CROSS_REPLICA_AND_PARTITION;
}

/* A 2-d integer attribute flattened (fields list, then the row length when
 * size_field); absent is empty.  False after a diagnostic. */
static bool field_id_rows(FuncBuilder *fb, const Op *op, const char *name, bool size_field) {
  Emitter *e = fb->e;
  const Attr *a = op_attr(op, name);
  int n = 0;
  const int64_t *v = NULL;
  if (a && (a->kind != ATTR_DENSE || !a->type || a->type->rank != 2 || !attr_ints(e, op, name, &n, &v))) {
    char what[120];
    snprintf(what, sizeof what, "%s other than a 2-d integer constant", name);
    return report_unsupported(fb, op, what);
  }
  field_list(e, n, v);
  if (size_field) fint(e, a && n ? a->type->dims[1] : 0);
  return true;
}

/* A collective of groups: groups, group_size, mode and channel fields. */
static bool field_collective(FuncBuilder *fb, const Op *op, bool reducing) {
  if (!field_id_rows(fb, op, "replica_groups", true)) return false;
  fint(fb->e, collective_mode(op, reducing));
  fint(fb->e, channel_id(op));
  return true;
}

/* The registers of op's operands, each converted to its result's element
 * type where the two differ (a reduction's to_destination_type).  Emitted
 * before the op's own fields are written. */
static uint32_t *operands_in_result_types(FuncBuilder *fb, const Op *op) {
  uint32_t *in = xrealloc(NULL, sizeof(uint32_t) * (size_t)(op->noperands + 1));
  for (int i = 0; i < op->noperands; i++) {
    const Type *t = op->operands[i]->type, *rt = i < op->nresults ? op->results[i].type : t;
    in[i] = reg_of(fb, op->operands[i]);
    if (t->kind == TY_TENSOR && rt->kind == TY_TENSOR && t->elem != rt->elem) {
      uint32_t r = new_reg(fb, type_tensor(fb->e->c, rt->elem, t->rank, t->dims, NULL), op);
      emit_regs(fb, op, VM_OP_CONVERT, 1, &in[i], 1, &r);
      in[i] = r;
    }
  }
  return in;
}

/* Whether region r holds an op that waits for other chips (the VM runs a
 * reduction body inside the collective, where that could never complete). */
static bool region_waits(const Region *r) {
  for (int bi = 0; bi < r->nblocks; bi++)
    for (const Op *o = r->blocks[bi]->first; o; o = o->next) {
      if ((op_info[o->kind].traits & TRAIT_COLLECTIVE) || o->kind == OP_RECV || o->kind == OP_INTERPRETER_RUN_PARALLEL)
        return true;
      for (int k = 0; k < o->nregions; k++)
        if (region_waits(&o->regions[k])) return true;
    }
  return false;
}

/* has_dynamic_root is not supported; false after saying so. */
static bool static_root(FuncBuilder *fb, const Op *op) {
  const Attr *dyn = op_attr(op, "has_dynamic_root");
  return !(dyn && (dyn->kind == ATTR_UNIT || (dyn->kind == ATTR_BOOL && dyn->u.b))) ||
         report_unsupported(fb, op, "a collective with has_dynamic_root");
}

/* all_reduce, reduce_scatter and collective_reduce over converted
 * operands: the group fields, scatter_dimension, the computation. */
void lower_reduction(FuncBuilder *fb, Op *op, int opcode) {
  if (!static_root(fb, op)) return;
  if (op->nregions != 1 || region_waits(&op->regions[0])) {
    report_unsupported(fb, op, "a reduction computation that runs a collective or recv");
    return;
  }
  uint32_t *in = operands_in_result_types(fb, op);
  uint32_t *out = xrealloc(NULL, sizeof(uint32_t) * (size_t)(op->nresults + 1));
  if (field_collective(fb, op, opcode != VM_OP_COLLECTIVE_REDUCE)) {
    if (opcode == VM_OP_REDUCE_SCATTER) fint(fb->e, attr_int_or(op, "scatter_dimension", 0));
    field_region(fb, op, &op->regions[0]);
    for (int i = 0; i < op->nresults; i++) out[i] = bind_value(fb, &op->results[i], op);
    emit_regs(fb, op, opcode, (uint32_t)op->noperands, in, (uint32_t)op->nresults, out);
  }
  free(in);
  free(out);
}

/* send and recv: pairs, mode, channel, host flag; payloads of tensors. */
void lower_send_recv(FuncBuilder *fb, Op *op, int opcode) {
  for (int i = 0; i < op->noperands + op->nresults; i++) {
    const Type *t = i < op->noperands ? op->operands[i]->type : op->results[i - op->noperands].type;
    if (t->kind == TY_TUPLE) {
      report_unsupported(fb, op, "a tuple sent or received");
      return;
    }
  }
  if (!field_id_rows(fb, op, "source_target_pairs", false)) return;
  fint(fb->e, collective_mode(op, false));
  fint(fb->e, channel_id(op));
  fint(fb->e, attr_int_or(op, "is_host_transfer", 0));
  emit_op(fb, op, opcode);
}

void lower_cross_replica_sum(FuncBuilder *fb, Op *op, int opcode) {
  if (field_id_rows(fb, op, "replica_groups", true)) emit_op(fb, op, opcode);
}

void lower_all_gather(FuncBuilder *fb, Op *op, int opcode) {
  if (!field_collective(fb, op, true)) return;
  fint(fb->e, attr_int_or(op, "all_gather_dim", 0));
  emit_op(fb, op, opcode);
}

void lower_all_to_all(FuncBuilder *fb, Op *op, int opcode) {
  if (!field_collective(fb, op, false)) return;
  fint(fb->e, attr_int_or(op, "split_dimension", 0));
  fint(fb->e, attr_int_or(op, "concat_dimension", 0));
  fint(fb->e, attr_int_or(op, "split_count", 1));
  emit_op(fb, op, opcode);
}

/* With has_dynamic_root, the roots stay the last operand (the VM reads them). */
void lower_collective_broadcast(FuncBuilder *fb, Op *op, int opcode) {
  if (field_collective(fb, op, false)) emit_op(fb, op, opcode);
}

void lower_collective_permute(FuncBuilder *fb, Op *op, int opcode) {
  if (!field_id_rows(fb, op, "source_target_pairs", false)) return;
  fint(fb->e, collective_mode(op, false));
  fint(fb->e, channel_id(op));
  emit_op(fb, op, opcode);
}

/* tpu.async_start: the region's collective over the start's operands, its
 * instruction flagged async: the VM puts the transfer on the ICI and goes
 * on. */
void lower_async_start(FuncBuilder *fb, Op *op, int opcode) {
  (void)opcode;
  Block *body = op_body(op);
  Op *inner = body->first;
  for (int i = 0; i < body->nargs; i++)
    *table_put(&fb->regs, &body->args[i], 0) = (void *)(uintptr_t)(reg_of(fb, op->operands[i]) + 1);
  uint32_t first = fb->ninstrs;
  lower_op(fb, inner);
  for (uint32_t i = first; i < fb->ninstrs; i++)
    if (vm_op_rows[fb->instrs[i].opcode].flags & VMF_COLLECTIVE) fb->instrs[i].flags |= TPUB_INSTR_ASYNC;
  for (int i = 0; i < op->nresults; i++)
    *table_put(&fb->regs, &op->results[i], 0) = (void *)(uintptr_t)(reg_of(fb, &inner->results[i]) + 1);
}
