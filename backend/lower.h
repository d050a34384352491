/* Internals of the lowering (backend/lower*.c): the per-function builder,
 * the helpers that write an op's fields and instructions, and one lowering
 * function per distinct LOWER column of ir/ops.def. */
#ifndef BACKEND_LOWER_H
#define BACKEND_LOWER_H

#include <stdio.h>

#include "backend/emit.h"

/* One instruction before serialization. */
typedef struct Instr {
  uint16_t opcode, flags;
  bool tilewise; /* a loop FUSION: may write over a dying operand, as an element-wise op */
  uint32_t attrs, nattrs, loc;
  uint32_t nin, nout, nuse;
  uint32_t *in, *out;
  uint32_t *use; /* in + captured registers of its regions */
} Instr;

/* The function being lowered (a func.func, or a region of an op). */
typedef struct FuncBuilder {
  Emitter *e;
  struct FuncBuilder *outer;
  Table regs; /* Value * -> register + 1 */
  uint32_t nregs, regcap;
  int64_t *reg_types;
  uint32_t ninstrs, instrcap;
  Instr *instrs;
  /* Captures of the region fields of the instruction being built. */
  uint32_t ncaps_pending, capcap;
  uint32_t *caps_pending;
} FuncBuilder;

/* The OPCODE column's NONE: the lowering function picks the opcode. */
#define VM_OP_NONE (-1)

/* Lowers op, whose row names `opcode`, into fb. */
typedef void LowerFn(FuncBuilder *fb, Op *op, int opcode);
#define OP(id, name, mino, maxo, nres, nreg, traits, elems, verify, infer, cost, fold, canon, decompose, lower, ...) \
  LowerFn lower_##lower;
#include "ir/ops.def"
#undef OP

/* Registers. */
uint32_t new_reg(FuncBuilder *fb, const Type *t, const Op *where);
uint32_t bind_value(FuncBuilder *fb, Value *v, const Op *where); /* a new register for v */
uint32_t reg_of(FuncBuilder *fb, Value *v);

/* Fields of the op being lowered (e->fields), in opcodes.def order. */
void fint(Emitter *e, int64_t v);
void field_list(Emitter *e, int n, const int64_t *v);
void field_f64(Emitter *e, double d);
/* A list attribute of any encoding; false when absent or not integers. */
bool attr_ints(Emitter *e, const Op *op, const char *name, int *n, const int64_t **v);
/* A list field from attribute `name`, or n_def copies of def. */
void field_attr_list(Emitter *e, const Op *op, const char *name, int n_def, int64_t def);
/* The list parameters keys[0], keys[1], ... (NULL-terminated) of a
 * dialect attribute, one list field each. */
void field_dialect_lists(Emitter *e, const Attr *d, const char *const *keys);
int64_t dialect_int(const Attr *d, const char *key, int64_t def);
int64_t attr_int_or(const Op *op, const char *name, int64_t def);
/* Index of an enum attribute's value in names (NULL-terminated), or def. */
int64_t attr_enum_index(const Op *op, const char *name, const char *const *names, int64_t def);
void field_precision(Emitter *e, const Op *op); /* precision_config as a list */
/* Lowers region r of op into a new function: its index and captures. */
void field_region(FuncBuilder *fb, const Op *op, Region *r);
/* The integer values of v when a stablehlo.constant defines it. */
bool constant_ints(Emitter *e, const Value *v, int *n, const int64_t **out);

/* Instructions. */
Instr *emit_regs(FuncBuilder *fb, const Op *op, int opcode, uint32_t nin, const uint32_t *in, uint32_t nout,
                 const uint32_t *out);
/* opcode over the op's operands [first, first + n) and all its results. */
Instr *emit_op_range(FuncBuilder *fb, const Op *op, int opcode, int first, int n);
Instr *emit_op(FuncBuilder *fb, const Op *op, int opcode);
/* opcode with one field from op's attribute `name`: an int (def when
 * absent) or a list (empty when absent). */
void emit_with_int(FuncBuilder *fb, Op *op, int opcode, const char *name, int64_t def);
void emit_with_list(FuncBuilder *fb, Op *op, int opcode, const char *name);
/* A located "... is not supported by the tpurun back end"; false. */
bool report_unsupported(FuncBuilder *fb, const Op *op, const char *what);

void lower_op(FuncBuilder *fb, Op *op); /* with its own field buffer */
void lower_block(FuncBuilder *fb, Block *b);
/* Writes fb's instructions, kill lists and in-place flags, and its record. */
void finish_func(FuncBuilder *fb, uint32_t index, const char *name, uint32_t flags, uint32_t nparams,
                 int nresults, Type *const *result_types, Loc loc);

#endif
