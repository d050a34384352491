/* tpurun --profile: the measured host time of each top-level op of the
 * entry function, beside the op's modeled TPU cost from the COSTS section
 * (vm/tpub.h).  With VmOptions.profile set, vm_run times every instruction
 * of the function it runs (not those of the functions it calls, which count
 * toward the calling instruction) and adds the time to the instruction's
 * op: its COSTS op id, or the instruction itself without a COSTS section.
 * Each vm_run starts a new profile. */
#ifndef VM_PROFILE_H
#define VM_PROFILE_H

#include <stdio.h>

#include "vm/vm.h"

typedef struct VmProfile {
  const VmProgram *prog;
  int func;          /* the entry function of the last run, -1: none */
  uint32_t nkeys;    /* n_locs + 1: op ids, or location index + 1 */
  double *host_s;    /* host seconds per key */
  uint64_t *count;   /* instructions timed per key */
  uint32_t *loc;     /* the location of the first instruction of each key */
} VmProfile;

/* A zeroed profile for program p; NULL when out of host memory. */
VmProfile *vm_profile_new(const VmProgram *p);
void vm_profile_free(VmProfile *pr);
/* Starts a new profile of function fn. */
void vm_profile_reset(VmProfile *pr, int fn);
/* Adds the host time of one executed instruction (its location index). */
void vm_profile_add(VmProfile *pr, uint32_t loc, double seconds);

/* The profile of x's last run, or NULL when VmOptions.profile is off. */
const VmProfile *vm_exec_profile(const VmExec *x);

/* Prints the table: a heading, one row per op that ran, by host time
 * (largest first), then the totals:
 *     host ms   model us  bound  MXU%    GFLOP    HBM MB  op (location)
 * Modeled columns are '-' without a COSTS section; the modeled total is
 * the sum of the ops' modeled times (each op counted once). */
void vm_profile_print(const VmProfile *pr, FILE *out);

#endif
