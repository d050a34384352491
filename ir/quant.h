/* Uniform quantized element types (!quant.uniform<...>): the parsed
 * descriptor kept with the interned type, its canonical spelling, and the
 * helpers the verifier and passes/quant_lower.c share.
 *
 * Grammar (MLIR's quant dialect):
 *   !quant.uniform<STORAGE[<MIN:MAX>]:EXPRESSED[:AXIS], PARAMS>
 *   STORAGE ::= iN | siN | uN | uiN      PARAMS ::= P | '{' P {',' P} '}'
 *   P ::= SCALE [':' ZERO_POINT]          (zero point defaults to 0) */
#ifndef TPUCC_IR_QUANT_H
#define TPUCC_IR_QUANT_H

#include "ir/ir.h"

typedef struct QuantType {
  char prefix[3];        /* storage spelling as written: "i", "si", "u" or "ui" */
  int bits;              /* storage width, 1..32 */
  bool is_signed;
  ElemKind storage;      /* the storage integer kind: IN (signed) or UIN (unsigned) */
  int64_t storage_min, storage_max;
  ElemKind expressed;    /* a float kind */
  int axis;              /* quantized dimension; -1 for per-tensor */
  int nscales;           /* 1 for per-tensor */
  const double *scales;
  const int64_t *zero_points;
} QuantType;

/* How quantized tensors meet an op kind (ir/quant.def). */
enum { QF_PER_AXIS = 1u << 0, QF_MOVES = 1u << 1, QF_BODY = 1u << 2 };
unsigned quant_op_flags(OpKind k);

/* Parses the text of a !quant.uniform type (from '!' to the closing '>').
 * On failure returns false, with a message in ERR and the byte offset of
 * the problem in *ERR_OFF. */
bool quant_parse(Arena *a, const char *text, size_t len, QuantType *out, size_t *err_off, char *err,
                 size_t errn);
/* The canonical spelling, as MLIR prints it (scales in %e form when that
 * reads back to the same double, else the shortest exact decimal). */
char *quant_format(Arena *a, const QuantType *q);
bool quant_is_uniform_text(const char *text, size_t len); /* starts with !quant.uniform< */

/* The descriptor of a quantized element type or of a tensor of them; NULL
 * for anything else. */
const QuantType *type_quant(const Type *t);
bool type_is_quant(const Type *t);
bool type_is_per_axis(const Type *t);
bool type_contains_quant(const Type *t); /* quantized, or a tuple / function type holding one */
/* A tensor type like T whose element is E (a builtin kind). */
Type *type_with_elem(Context *c, const Type *t, ElemKind e);
/* T with its quantized element replaced by its storage kind (T itself when
 * T is not quantized); tuples and function types are mapped element-wise. */
Type *type_quant_storage(Context *c, Type *t);
/* The default [min, max] of a storage integer of BITS bits. */
void quant_storage_range(int bits, bool is_signed, int64_t *min, int64_t *max);
/* Checks the op-independent StableHLO constraints of the quantized element
 * of T (storage widths 2..32 signless or unsigned, zero points within
 * [storage_min, storage_max], per-axis dimension and scale count against
 * T's shape).  NULL when fine, else a static message. */
const char *quant_check_tensor(const Type *t);

#endif
