/* Helpers the passes share for walking and classifying the IR. */
#ifndef PASSES_WALK_H
#define PASSES_WALK_H

#include "ir/ir.h"

/* Every func.func of the module that has a body, as `Op *f`. */
#define FOR_EACH_FUNC(m, f)                                                   \
  for (Op *f = op_body((m)->op) ? op_body((m)->op)->first : NULL; f; f = f->next) \
    if (f->kind == OP_FUNC && op_body(f))

/* No side effect: may be removed when unused, merged with an equal op,
 * moved or duplicated (passes/cleanup.c). */
bool op_is_pure(const Op *op);
/* Erases unused pure ops everywhere; returns how many. */
int dce_module(Module *m);

#endif
