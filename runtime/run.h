/* The one run path of a program on a slice of chips, shared by tpurun and
 * tpu_program_run (runtime/run.c): each argument goes whole to every chip
 * or, stacked over the chips on a new leading dimension, slice k to chip
 * k; each result comes back stacked the same way. */
#ifndef RUNTIME_RUN_H
#define RUNTIME_RUN_H

#include <stdbool.h>

#include "vm/vm.h"

/* A tensor type with a leading dimension of n added (CHIPSx<type>). */
typedef struct StackedType {
  VmType type;
  int64_t *dims; /* malloc'ed */
} StackedType;

/* False when out of memory. */
bool run_stack_type(StackedType *st, const VmType *t, int n);

/* Points args[k][i] (k < n chips) at whole[i]'s data: all of it, or its
 * slice k when stacked[i]. */
void run_chip_args(const VmFunc *fn, int n, const VmValue *whole, const bool *stacked, VmValue *const *args);

/* Result r of the n chips' results res[k] stacked into *out (out->data
 * malloc'ed, out->type = &st->type; st->dims freed by the caller).  A
 * tuple or token result is not stacked: false with *out untouched, as
 * when out of memory. */
bool run_stack_result(const VmFunc *fn, int r, VmValue *const *res, int n, StackedType *st, VmValue *out);

#endif
