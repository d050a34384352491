/* Lowering of calls, structured control flow, custom calls and the check
 * and interpreter dialects (backend/lower.c dispatches here by the LOWER
 * column of ir/ops.def). */
#include <stdlib.h>
#include <string.h>

#include "backend/lower.h"

/* The callee of a symbol attribute, as a function index, or -1. */
static int64_t callee_index(Emitter *e, const Attr *sym) {
  if (!sym || (sym->kind != ATTR_SYMREF && sym->kind != ATTR_STRING)) return -1;
  void **slot = table_get(&e->func_index, sym->u.str.s, strlen(sym->u.str.s));
  return slot ? (int64_t)(uintptr_t)*slot - 1 : -1;
}

/* A call of function index fi with the op's operands and results. */
static void call_function(FuncBuilder *fb, const Op *op, int64_t fi) {
  fint(fb->e, fi);
  fint(fb->e, 0);
  emit_op(fb, op, VM_OP_CALL);
}

/* interpreter.run_parallel: programs[replica][partition] become one
 * region each, row-major; one program on one chip is a plain call. */
void lower_run_parallel(FuncBuilder *fb, Op *op, int opcode) {
  Emitter *e = fb->e;
  const Attr *progs = op_attr(op, "programs");
  int replicas = progs && progs->kind == ATTR_ARRAY ? progs->u.array.n : 0, partitions = -1;
  for (int r = 0; r < replicas; r++) {
    const Attr *row = progs->u.array.items[r];
    int n = row->kind == ATTR_ARRAY ? row->u.array.n : -1;
    if (partitions < 0) partitions = n;
    if (n != partitions || n < 1) {
      report_unsupported(fb, op, "interpreter.run_parallel whose programs are not a non-empty rectangular grid");
      return;
    }
  }
  if (replicas < 1) {
    report_unsupported(fb, op, "interpreter.run_parallel without programs");
    return;
  }
  int64_t *funcs = arena_alloc(&e->c->arena, sizeof(int64_t) * (size_t)(replicas * partitions));
  for (int r = 0; r < replicas; r++)
    for (int p = 0; p < partitions; p++) {
      int64_t fi = callee_index(e, progs->u.array.items[r]->u.array.items[p]);
      if (fi < 0) {
        report_unsupported(fb, op, "interpreter.run_parallel of an unknown function");
        return;
      }
      funcs[r * partitions + p] = fi;
    }
  if (replicas * partitions == 1) {
    call_function(fb, op, funcs[0]);
    return;
  }
  fint(e, replicas * partitions);
  for (int k = 0; k < replicas * partitions; k++) {
    fint(e, funcs[k]);
    fint(e, 0);
  }
  fint(e, replicas);
  emit_op(fb, op, opcode);
}

/* check ops: kind 0 eq, 1 almost_eq, 2 close; CHECK2 compares two operands,
 * CHECK an operand with the expected constant. */
static void emit_check(FuncBuilder *fb, const Op *op, int opcode, int kind, double tol, int64_t min_ulp,
                        int64_t max_ulp, const Attr *expected) {
  Emitter *e = fb->e;
  fint(e, kind);
  field_f64(e, tol);
  fint(e, min_ulp);
  fint(e, max_ulp);
  if (!expected) {
    emit_op(fb, op, opcode);
    return;
  }
  /* The expected constant, canonicalized like a stablehlo.constant. */
  int sz = elem_storage_bytes(expected->type->elem);
  int64_t count = expected->u.dense.splat ? 1 : dense_num_elements(expected);
  uint8_t *buf = xrealloc(NULL, (size_t)(count * sz) + 1);
  for (int64_t i = 0; i < count; i++) {
    if (elem_is_int(expected->type->elem)) {
      int64_t v = dense_get_int(expected, i);
      memcpy(buf + i * sz, &v, (size_t)sz);
    } else {
      memcpy(buf + i * sz, expected->u.dense.data + i * sz, (size_t)sz);
    }
  }
  uint64_t off = emit_const_bytes(e, buf, (size_t)(count * sz));
  free(buf);
  fint(e, (int64_t)off);
  fint(e, count * sz);
  fint(e, expected->u.dense.splat ? 1 : 0);
  emit_op(fb, op, opcode);
}

static double attr_f64_or(const Op *op, const char *name, double def) {
  const Attr *a = op_attr(op, name);
  if (!a || a->kind != ATTR_FLOAT) return def;
  return float_bits_to_double(type_elem_kind(a->type), a->u.f);
}

/* A custom_call: the check.* targets JAX writes, shape assertions, identity annotations
 * (ir/annotations.def), or a located error. */
void lower_custom_call(FuncBuilder *fb, Op *op, int opcode) {
  (void)opcode;
  const Attr *t = op_attr(op, "call_target_name");
  const char *name = t && t->kind == ATTR_STRING ? t->u.str.s : "";
  if (op->noperands == 2 && op->nresults == 0) {
    if (strcmp(name, "check.expect_eq") == 0) return emit_check(fb, op, VM_OP_CHECK2, 0, 0, 0, 0, NULL);
    if (strcmp(name, "check.expect_almost_eq") == 0) return emit_check(fb, op, VM_OP_CHECK2, 1, 1e-3, 0, 0, NULL);
    if (strcmp(name, "check.expect_close") == 0) return emit_check(fb, op, VM_OP_CHECK2, 2, 0, 0, 3, NULL);
  }
  if (strcmp(name, "shape_assertion") == 0 && op->noperands >= 1 && op->nresults == 0) {
    const Attr *m = op_attr(op, "error_message"); /* a runtime check (docs/shape-refinement.md) */
    fint(fb->e, emit_string(fb->e, m && m->kind == ATTR_STRING ? m->u.str.s : "shape assertion failed"));
    emit_op(fb, op, VM_OP_ASSERT);
    return;
  }
  if (custom_call_annotation(op) && op->noperands == 1 && op->nresults == 1 &&
      op->operands[0]->type == op->results[0].type) {
    emit_op(fb, op, VM_OP_COPY); /* an identity (passes/sharding.c checked the partitions) */
    return;
  }
  char what[160];
  snprintf(what, sizeof what, "custom_call @%.100s", name);
  report_unsupported(fb, op, what);
}

/* func.call, composite (its decomposition): a CALL. */
void lower_call(FuncBuilder *fb, Op *op, int opcode) {
  (void)opcode;
  int64_t fi = callee_index(fb->e, op_attr(op, op->kind == OP_COMPOSITE ? "decomposition" : "callee"));
  if (fi < 0) {
    report_unsupported(fb, op, "a call to an unknown function");
    return;
  }
  call_function(fb, op, fi);
}

void lower_while(FuncBuilder *fb, Op *op, int opcode) {
  field_region(fb, op, &op->regions[0]);
  field_region(fb, op, &op->regions[1]);
  emit_op(fb, op, opcode);
}

void lower_if(FuncBuilder *fb, Op *op, int opcode) {
  field_region(fb, op, &op->regions[0]);
  field_region(fb, op, &op->regions[1]);
  emit_op(fb, op, opcode);
}

void lower_case(FuncBuilder *fb, Op *op, int opcode) {
  fint(fb->e, op->nregions);
  for (int i = 0; i < op->nregions; i++) field_region(fb, op, &op->regions[i]);
  emit_op(fb, op, opcode);
}

void lower_check_eq(FuncBuilder *fb, Op *op, int opcode) {
  emit_check(fb, op, opcode, 0, 0, 0, 0, NULL);
}

void lower_check_almost_eq(FuncBuilder *fb, Op *op, int opcode) {
  emit_check(fb, op, opcode, 1, attr_f64_or(op, "tolerance", 1e-4), 0, 0, NULL);
}

void lower_check_close(FuncBuilder *fb, Op *op, int opcode) {
  emit_check(fb, op, opcode, 2, 0, attr_int_or(op, "min_ulp_difference", 0), attr_int_or(op, "max_ulp_difference", 1),
             NULL);
}

void lower_check_eq_const(FuncBuilder *fb, Op *op, int opcode) {
  emit_check(fb, op, opcode, 0, 0, 0, 0, op_attr(op, "value"));
}

void lower_check_almost_eq_const(FuncBuilder *fb, Op *op, int opcode) {
  emit_check(fb, op, opcode, 1, attr_f64_or(op, "tolerance", 1e-4), 0, 0, op_attr(op, "value"));
}

/* interpreter.probe: the probe id as a string field. */
void lower_probe(FuncBuilder *fb, Op *op, int opcode) {
  const Attr *id = op_attr(op, "probe_id");
  fint(fb->e, emit_string(fb->e, id && id->kind == ATTR_STRING ? id->u.str.s : ""));
  emit_op(fb, op, opcode);
}

/* check.expect_serialized_eq: the probe id and the iteration. */
void lower_check_probe(FuncBuilder *fb, Op *op, int opcode) {
  const Attr *id = op_attr(op, "probe_id");
  fint(fb->e, emit_string(fb->e, id && id->kind == ATTR_STRING ? id->u.str.s : ""));
  fint(fb->e, attr_int_or(op, "iter", 0));
  emit_op(fb, op, opcode);
}

/* Gives value v the register of value from (an alias: no copy). */
static void alias_value(FuncBuilder *fb, Value *v, Value *from) {
  *table_put(&fb->regs, v, 0) = (void *)(uintptr_t)(reg_of(fb, from) + 1);
}

/* sdy.manual_computation whose body sees whole values (every manual axis
 * of size 1: one device): its body inlined, arguments and results aliased.
 * Otherwise the body works on per-device pieces and only the SPMD
 * partitioner can run it: a located error. */
void lower_manual_computation(FuncBuilder *fb, Op *op, int opcode) {
  (void)opcode;
  Block *b = op->nregions == 1 && op->regions[0].nblocks == 1 ? op->regions[0].blocks[0] : NULL;
  Op *ret = b ? b->last : NULL;
  bool whole = b && ret && ret->kind == OP_SDY_RETURN && b->nargs == op->noperands && ret->noperands == op->nresults;
  for (int i = 0; whole && i < op->noperands; i++) whole = b->args[i].type == op->operands[i]->type;
  for (int i = 0; whole && i < op->nresults; i++) whole = ret->operands[i]->type == op->results[i].type;
  if (!whole) {
    op_error(fb->e->c, op,
             "its body works on per-device pieces of its operands; the back end runs it only once SPMD "
             "partitioning has rewritten it (on one device it is inlined)");
    fb->e->failed = true;
    return;
  }
  for (int i = 0; i < b->nargs; i++) alias_value(fb, &b->args[i], op->operands[i]);
  for (Op *inner = b->first; inner && inner != ret; inner = inner->next) lower_op(fb, inner);
  for (int i = 0; i < op->nresults; i++) alias_value(fb, &op->results[i], ret->operands[i]);
}

/* Counts, in MLIR's printing order, the result groups and block arguments
 * of block b until v is met; true when found (*name set). */
static bool number_in_block(const Block *b, const Value *v, int *res, int *arg, char *name, size_t n) {
  for (int i = 0; i < b->nargs; i++, (*arg)++)
    if (&b->args[i] == v) {
      snprintf(name, n, "%%arg%d", *arg);
      return true;
    }
  for (const Op *o = b->first; o; o = o->next) {
    if (o->nresults > 0) {
      for (int i = 0; i < o->nresults; i++)
        if (&o->results[i] == v) {
          if (o->nresults == 1) snprintf(name, n, "%%%d", *res);
          else snprintf(name, n, "%%%d#%d", *res, i);
          return true;
        }
      (*res)++;
    }
    for (int r = 0; r < o->nregions; r++)
      for (int k = 0; k < o->regions[r].nblocks; k++)
        if (number_in_block(o->regions[r].blocks[k], v, res, arg, name, n)) return true;
  }
  return false;
}

/* interpreter.print: the operand's name as MLIR prints the function that
 * holds it (%0, %1#2, %arg0), for the "NAME = " prefix. */
void lower_print(FuncBuilder *fb, Op *op, int opcode) {
  const Op *f = op;
  while (f && f->kind != OP_FUNC) f = f->parent && f->parent->parent ? f->parent->parent->parent : NULL;
  char name[48] = "%0";
  int res = 0, arg = 0;
  if (f && f->nregions == 1 && f->regions[0].nblocks > 0)
    number_in_block(f->regions[0].blocks[0], op->operands[0], &res, &arg, name, sizeof name);
  fint(fb->e, emit_string(fb->e, name));
  emit_op(fb, op, opcode);
}
