/* The modeled timeline of a chip (tpurun --trace, --profile): each
 * top-level op of the entry function takes its modeled time (COSTS) on the
 * unit that bounds it; a collective starts when the last chip of its group
 * arrives and takes the ICI model's time (common/ici.h) for its group on the
 * slice's torus; an asynchronous one (TPUB_INSTR_ASYNC) runs on the ICI
 * while the chip goes on, and async_done waits for it.  A collective
 * across slices (VmOptions.slices) also has a DCN stage: its time is part
 * of the collective's, kept apart as DCN busy time and drawn on a DCN
 * track.  Internal to vm/. */
#ifndef VM_TIMELINE_H
#define VM_TIMELINE_H

#include <stdio.h>

#include "vm/vm.h"

/* The tracks of a chip in the trace. */
enum VmUnit { VM_UNIT_MXU, VM_UNIT_VPU, VM_UNIT_DMA, VM_UNIT_ICI, VM_UNIT_DCN, VM_UNIT_COUNT };

typedef struct VmTraceEvent {
  uint32_t loc; /* names the op */
  uint8_t unit; /* VmUnit */
  double start_s, dur_s;
} VmTraceEvent;

typedef struct VmTimeline {
  double clock_s;   /* the chip's compute stream */
  double ici_s;     /* ICI busy time (collectives, their DCN stages included) */
  double dcn_s;     /* of ici_s, the DCN stages of collectives across slices */
  double exposed_s; /* time the compute stream waited for the ICI */
  uint32_t last_op; /* COSTS op id last charged (0: none) */
  bool record;      /* keep events for a trace */
  VmTraceEvent *events;
  size_t nevents, cap;
} VmTimeline;

void vm_timeline_reset(VmTimeline *t);
void vm_timeline_free(VmTimeline *t);
/* Charges a top-level instruction of the entry function: its op's modeled
 * time, once per op (consecutive instructions of one op are one op). */
void vm_timeline_op(VmTimeline *t, const VmProgram *p, const VmInstr *ins);
/* A collective that started at start_s (the group's latest arrival) and
 * takes dur_s on the ICI, dcn_s of it on the DCN between slices;
 * synchronous ones hold the compute stream until it ends.  Returns its
 * end. */
double vm_timeline_collective(VmTimeline *t, uint32_t loc, double start_s, double dur_s, double dcn_s, bool async);
/* An asynchronous collective whose start is known only later (a deferred
 * meeting of an MPI job, vm/chips/chips.c): reserve keeps its place in
 * the trace at the start (returns the event, or (size_t)-1 when not
 * recording); collective_at then puts it where vm_timeline_collective
 * would have, clock_s being the chip's clock at the start.  Returns its
 * end. */
size_t vm_timeline_reserve(VmTimeline *t, uint32_t loc);
double vm_timeline_collective_at(VmTimeline *t, size_t event, double clock_s, double start_s, double dur_s,
                                 double dcn_s);
/* async_done: the compute stream waits until ready_s. */
void vm_timeline_wait(VmTimeline *t, double ready_s);

/* The timeline of x's last run. */
const VmTimeline *vm_exec_timeline(const VmExec *x);
/* Chip c's timeline of the slice's last run, whichever process of an MPI
 * job hosts it. */
const VmTimeline *vm_slice_timeline(const VmSlice *s, int chip);

/* Writes a Chrome/Perfetto trace (JSON) of chips' timelines: one process
 * per chip, one thread per unit.  Returns false on a write error. */
bool vm_trace_write(FILE *out, const VmProgram *p, const VmTimeline *const *chips, int nchips, int partitions);

#endif
