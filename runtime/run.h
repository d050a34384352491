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

/* Partitioned programs (VmProgram.spmd; docs/chips.md, "Partitioned
 * programs"): chip c is replica c / partitions, partition c % partitions.
 * Parameter (result) i's global type: its VmShard's, or the per-chip type
 * of a whole value. */
const VmType *run_global_type(const VmFunc *fn, bool result, int i);

/* Fills args[c] for every chip c of replicas x partitions from the global
 * values whole[i] (of run_global_type, or stacked[i]: replicas of them on
 * a new leading dimension, replica k's slice k): a whole parameter points
 * at the global data, a sharded one gets a malloc'ed buffer with the
 * piece its partition holds, zero-padded.  False when out of memory; free
 * with run_spmd_args_free either way. */
bool run_spmd_args(const VmFunc *fn, int replicas, int partitions, const VmValue *whole, const bool *stacked,
                   VmValue *const *args);
void run_spmd_args_free(const VmFunc *fn, int n, VmValue *const *args);

/* Result r assembled from the chips' results res[c]: each replica's global
 * value (a sharded result from the first partition holding each piece,
 * padding dropped; a whole one from partition 0), stacked on a new leading
 * dimension when replicas > 1, into *out (data malloc'ed, type &st->type;
 * st->dims freed by the caller).  False for a tuple or token result or
 * when out of memory. */
bool run_spmd_result(const VmFunc *fn, int r, VmValue *const *res, int replicas, int partitions, StackedType *st,
                     VmValue *out);

/* Bounded dynamic dims (VmFunc.dyn; docs/dynamic-shapes.md).  A size
 * parameter or result (one that carries a dim's runtime size) is not the
 * user's: the user gives and sees the others, in order. */
bool run_is_size(const VmFunc *fn, bool result, uint32_t i);
uint32_t run_user_count(const VmFunc *fn, bool result);
/* Parses the input for parameter p (a padded one) at the shape its spec
 * states (random and .npy: the bounds), each dynamic dim within its bound
 * and each static dim equal, into args[p] zero-padded to the bounds
 * (data malloc'ed), and its size parameters into args[size] (malloc'ed).
 * 0, 1 (usage: a shape that does not fit, with err), 3 or 70. */
int run_dyn_input(const VmFunc *fn, uint32_t p, const char *spec, int index, VmValue *args, char *err, size_t errlen);
/* The same for a value given of its own shape (tpu_program_run). */
int run_dyn_pad(const VmFunc *fn, uint32_t p, const VmValue *given, int index, VmValue *args, char *err, size_t errlen);
/* The user's results of res into out (run_user_count of them): padded
 * ones cut to the sizes their size results give, the others as they are.
 * False when out of memory; free with run_dyn_results_free. */
bool run_dyn_results(const VmFunc *fn, const VmValue *res, VmValue *out);
void run_dyn_results_free(const VmFunc *fn, VmValue *out);

#endif
