/* Internals shared by the loader, the interpreter and the control-op
 * validators of the VM. */
#ifndef VM_INTERNAL_H
#define VM_INTERNAL_H

#include "vm/kernels/kernels.h"

/* A bump allocator for the loaded program: blocks freed together. */
typedef struct PoolBlock {
  struct PoolBlock *next;
  size_t used, cap;
  _Alignas(16) unsigned char data[];
} PoolBlock;

typedef struct Pool {
  PoolBlock *head;
  size_t total;
} Pool;


/* What a loaded program keeps besides the public VmProgram fields. */
typedef struct VmProgramImpl {
  VmProgram pub;
  Pool pool;
  const uint8_t *consts;
  uint64_t consts_size;
  const char *strtab;
  uint64_t strtab_size;
} VmProgramImpl;

/* ------------------------------------------------------------------ */
/* Chips (vm/chips/chips.c) and what the interpreter tells them about a chip. */

/* The shared state of a slice's chips: meetings, channels, turns. */
typedef struct VmFabric VmFabric;
VmFabric *vm_fabric_new(int replicas, int partitions, int threads);
void vm_fabric_free(VmFabric *f);
void vm_fabric_reset(VmFabric *f);
void vm_fabric_attach(VmFabric *f, int chip, VmExec *x);
/* Whether a chip's failure has ended the slice's run (any thread may ask;
 * a computing chip stops at its next instruction). */
bool vm_fabric_stopped(const VmFabric *f);

/* Makes x chip `chip` of fabric f (vm_slice_new). */
void vm_exec_attach(VmExec *x, VmFabric *f, int chip);
/* The slice x runs in, or NULL for a chip alone. */
VmFabric *vm_exec_fabric(const VmExec *x);
/* The slice's fabric, or for a chip alone a fabric of one chip created on
 * first use (send and recv need one); NULL when out of memory. */
VmFabric *vm_exec_fabric_or_solo(VmExec *x);
int vm_exec_chip(const VmExec *x);
/* "'stablehlo.op' at file:line:col" of the instruction x executes. */
void vm_exec_where(const VmExec *x, char *buf, size_t n);
const VmInstr *vm_exec_instr(const VmExec *x);
const VmFunc *vm_exec_func(const VmExec *x);
/* Modeled seconds this chip has run (its clock on the modeled timeline). */
double vm_exec_clock(const VmExec *x);
/* The executing instruction was a collective that started at start_s and
 * takes dur_s on the ICI (dcn_s of it on the DCN between slices): puts it
 * on the chip's timeline; returns its end. */
double vm_exec_collective_ran(VmExec *x, double start_s, double dur_s, double dcn_s);
/* A chip whose run another chip's failure or a deadlock ended: its own
 * error is not the run's. */
/* Deferred meetings (vm/chips/chips.c): the executing asynchronous
 * collective arrived at its meeting without waiting; the interpreter
 * completes it when its results are first used (their async_done),
 * running its kernel again while vm_exec_completing returns the meeting. */
void vm_exec_defer(VmExec *x, void *meeting);
void *vm_exec_completing(const VmExec *x);
/* The copies of chip's operands a meeting keeps, for the completion. */
const VmTensor *vm_meeting_inputs(const void *meeting, int chip);
/* A chip that will not complete its deferred meeting (it failed) leaves. */
void vm_meeting_abandon(VmExec *x, void *meeting);
void vm_exec_mark_victim(VmExec *x);
bool vm_exec_is_victim(const VmExec *x);
void vm_exec_reset_chip(VmExec *x);
/* The CLOCK_MONOTONIC_COARSE second by which runs of x must end (0: none),
 * instead of VmOptions.timeout_s from the start of each run: the chips of
 * a slice share one deadline. */
void vm_exec_set_deadline(VmExec *x, double deadline_s);
/* The deadline of every run of slice s (as vm_exec_set_deadline), instead
 * of VmOptions.timeout_s from the start of each: the chips an
 * interpreter.run_parallel starts keep their parent's. */
void vm_slice_set_deadline(VmSlice *s, double deadline_s);

#endif
