/* Simulated chips and the ICI between them, as the collective kernels see
 * them (vm/chips/chips.c; DESIGN.md §2).  A slice of chips (vm_slice_new) runs
 * one thread per chip, at most VmOptions.threads of them computing at
 * once; chips meet at collectives and exchange values through channels.
 * A single VmExec outside any slice is a slice of one chip.  Internal to
 * vm/. */
#ifndef VM_CHIPS_H
#define VM_CHIPS_H

#include "vm/vm.h"

/* Who the executing chip is. */
typedef struct VmChipId {
  int chip;       /* replica * partitions + partition */
  int replica, partition;
  int replicas, partitions;
} VmChipId;
VmChipId vm_chip_id(const VmExec *x);

/* One member's view of a collective whose members have all arrived. */
typedef struct VmMeeting {
  int n;                      /* members */
  int me;                     /* this chip's index in the group */
  const int *chips;           /* chip ids, in group order */
  const VmTensor *const *in;  /* in[k][i]: operand i of member k (read-only) */
  VmTensor *const *out;       /* out[k][j]: result j of member k */
  double start_s;             /* modeled start: the latest member's arrival */
} VmMeeting;

/* One phase of a collective, run by every member in its own thread (x is
 * that member's VmExec: region calls and vm_trap use it).  A phase writes
 * only this member's results, out[me]; it may read any member's operands,
 * and the results other members wrote in earlier phases.  Returns VM_OK,
 * or VM_TRAP after vm_trap(x, ...).  In an MPI job a process also runs
 * every phase but the last for the members other processes host (m->me is
 * then theirs), with x and ctx of one of its own members: ctx must serve
 * any member in those phases. */
typedef int (*VmPhaseFn)(VmExec *x, const VmMeeting *m, int phase, void *ctx);

/* Joins the collective the executing instruction runs, with the chips of
 * group (chip ids in group order, this chip among them once) on channel
 * (0 when the op has none); in and out are the instruction's operands and
 * results.  Blocks until every member has arrived, then
 * runs phases 0..nphases-1 of fn with a barrier after each, and returns
 * when every member has finished the last one (so operand and result
 * buffers stay valid throughout).  Members must be at the same opcode with
 * the same operand and result types, or every one of them traps naming the
 * mismatch.  A group that can never gather (a member finished, or every
 * chip waits at a collective or receive that cannot complete) traps with a
 * message naming the op, its location and the chips that did not arrive;
 * the run ends with exit 4, never a hang. */
int vm_collective(VmExec *x, const int *group, int n, int64_t channel, const VmTensor *in, VmTensor *out,
                  int nphases, VmPhaseFn fn, void *ctx);

/* stablehlo.send: queues copies of the operands on channel (never
 * blocks).  stablehlo.recv: takes the oldest message of channel, waiting
 * for one (a receive that can never be served traps as a deadlock); its
 * tensors must have out's types. */
int vm_channel_send(VmExec *x, int64_t channel, const VmTensor *in, int nin);
int vm_channel_recv(VmExec *x, int64_t channel, VmTensor *out, int nout);

#endif
