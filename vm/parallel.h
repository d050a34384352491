/* Host threads for kernels whose work splits into independent tasks (MXU
 * output tiles, fusion tiles).  Each task writes its own part of the
 * result, so results are the same bits for every thread count (DESIGN.md
 * §3).  Internal to vm/. */
#ifndef VM_PARALLEL_H
#define VM_PARALLEL_H

#include <stdint.h>

#include "vm/vm.h"

/* One task; worker is in [0, vm_parallel_workers(...)) and lets a kernel
 * keep per-worker scratch.  Tasks must not call vm_trap, vm_scratch_alloc
 * or anything else that touches the VmExec: allocate per-worker memory
 * before the call and return a status instead.  Returns VM_OK or VM_TRAP. */
typedef int (*VmTaskFn)(void *ctx, int worker, int64_t task);

/* Workers a call with ntasks tasks uses: min(VmOptions.threads, ntasks),
 * at least 1. */
int vm_parallel_workers(const VmExec *x, int64_t ntasks);

/* Runs fn for every task in [0, ntasks) on up to vm_parallel_workers()
 * threads (the calling thread is worker 0, the others are the exec's
 * parked helpers; a helper that cannot start leaves its tasks to the
 * others).  Not reentrant: one call at a time per exec.  Returns VM_TRAP if a task did (the
 * remaining tasks are skipped), else VM_OK.  The caller reports the trap. */
int vm_parallel_for(VmExec *x, int64_t ntasks, VmTaskFn fn, void *ctx);

/* The helper threads of an exec, parked between vm_parallel_for calls. */
typedef struct VmPool VmPool;
/* The exec's pool slot (vm/interp.c): NULL until its first parallel call. */
VmPool **vm_exec_pool(VmExec *x);
/* Ends and joins the helpers (vm_exec_free); NULL is ignored. */
void vm_pool_free(VmPool *p);

#endif
