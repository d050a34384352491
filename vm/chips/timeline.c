/* The modeled timeline of a chip and its Chrome/Perfetto trace (see
 * vm/chips/timeline.h). */
#include "vm/chips/timeline.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void vm_timeline_reset(VmTimeline *t) {
  t->clock_s = t->ici_s = t->dcn_s = t->exposed_s = 0;
  t->last_op = 0;
  t->nevents = 0;
}

void vm_timeline_free(VmTimeline *t) {
  free(t->events);
  memset(t, 0, sizeof *t);
}

/* Keeps one event when recording (an event that finds no memory is
 * dropped: the trace is a report, the run goes on). */
static void add_event(VmTimeline *t, uint32_t loc, int unit, double start_s, double dur_s) {
  if (!t->record) return;
  if (t->nevents == t->cap) {
    size_t cap = t->cap ? t->cap * 2 : 256;
    VmTraceEvent *e = realloc(t->events, cap * sizeof *e);
    if (!e) return;
    t->events = e;
    t->cap = cap;
  }
  t->events[t->nevents++] = (VmTraceEvent){loc, (uint8_t)unit, start_s, dur_s};
}

static int unit_of_bound(int bound) {
  switch (bound) {
  case TPUB_BOUND_MXU: return VM_UNIT_MXU;
  case TPUB_BOUND_HBM: return VM_UNIT_DMA;
  case TPUB_BOUND_ICI: return VM_UNIT_ICI;
  default: return VM_UNIT_VPU;
  }
}

void vm_timeline_op(VmTimeline *t, const VmProgram *p, const VmInstr *ins) {
  if (!p->costs) return;
  const VmCost *c = &p->costs[ins->loc];
  if (c->op == 0 || c->op == t->last_op) return;
  t->last_op = c->op;
  if (c->modeled_s <= 0) return;
  add_event(t, c->op_loc, unit_of_bound(c->bound), t->clock_s, c->modeled_s);
  t->clock_s += c->modeled_s;
}

double vm_timeline_collective(VmTimeline *t, uint32_t loc, double start_s, double dur_s, double dcn_s, bool async) {
  double dcn = fmin(dcn_s, dur_s);
  if (start_s < t->clock_s) start_s = t->clock_s;
  double end = start_s + dur_s;
  add_event(t, loc, VM_UNIT_ICI, start_s, dur_s);
  /* The DCN stage sits between the slices' ICI stages: drawn centered. */
  if (dcn > 0) add_event(t, loc, VM_UNIT_DCN, start_s + (dur_s - dcn) / 2, dcn);
  t->ici_s += dur_s;
  t->dcn_s += dcn;
  t->last_op = 0;
  if (!async) vm_timeline_wait(t, end);
  return end;
}

size_t vm_timeline_reserve(VmTimeline *t, uint32_t loc) {
  t->last_op = 0;
  size_t at = t->nevents;
  add_event(t, loc, VM_UNIT_ICI, 0, 0);
  return at < t->nevents ? at : (size_t)-1;
}

double vm_timeline_collective_at(VmTimeline *t, size_t event, double clock_s, double start_s, double dur_s,
                                 double dcn_s) {
  double dcn = fmin(dcn_s, dur_s);
  if (start_s < clock_s) start_s = clock_s;
  if (event != (size_t)-1 && event < t->nevents) {
    t->events[event].start_s = start_s;
    t->events[event].dur_s = dur_s;
    /* The DCN stage right after it, where vm_timeline_collective puts it. */
    size_t n = t->nevents;
    if (dcn > 0) add_event(t, t->events[event].loc, VM_UNIT_DCN, start_s + (dur_s - dcn) / 2, dcn);
    if (t->nevents > n) {
      VmTraceEvent e = t->events[n];
      memmove(&t->events[event + 2], &t->events[event + 1], (n - event - 1) * sizeof e);
      t->events[event + 1] = e;
    }
  }
  t->ici_s += dur_s;
  t->dcn_s += dcn;
  return start_s + dur_s;
}

void vm_timeline_wait(VmTimeline *t, double ready_s) {
  if (ready_s <= t->clock_s) return;
  t->exposed_s += ready_s - t->clock_s;
  t->clock_s = ready_s;
}

/* A JSON string's contents. */
static void json_text(FILE *out, const char *s) {
  for (; *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\') fprintf(out, "\\%c", ch);
    else if (ch < 0x20) fprintf(out, "\\u%04x", ch);
    else fputc(ch, out);
  }
}

static bool has_dcn_events(const VmTimeline *t) {
  for (size_t i = 0; t && i < t->nevents; i++)
    if (t->events[i].unit == VM_UNIT_DCN) return true;
  return false;
}

bool vm_trace_write(FILE *out, const VmProgram *p, const VmTimeline *const *chips, int nchips, int partitions) {
  static const char *const unit_names[VM_UNIT_COUNT] = {"MXU", "VPU", "DMA (HBM)", "ICI", "DCN"};
  fprintf(out, "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n");
  bool first = true;
  for (int c = 0; c < nchips; c++) {
    fprintf(out, "%s{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": %d, \"args\": {\"name\": \"chip %d (replica %d, partition %d)\"}}",
            first ? "" : ",\n", c, c, c / partitions, c % partitions);
    first = false;
    fprintf(out, ",\n{\"ph\": \"M\", \"name\": \"process_sort_index\", \"pid\": %d, \"args\": {\"sort_index\": %d}}", c, c);
    /* The DCN track only on a chip whose collectives crossed slices. */
    int units = has_dcn_events(chips[c]) ? VM_UNIT_COUNT : VM_UNIT_DCN;
    for (int u = 0; u < units; u++) {
      fprintf(out, ",\n{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": %d, \"tid\": %d, \"args\": {\"name\": \"%s\"}}", c,
              u, unit_names[u]);
      fprintf(out, ",\n{\"ph\": \"M\", \"name\": \"thread_sort_index\", \"pid\": %d, \"tid\": %d, \"args\": {\"sort_index\": %d}}",
              c, u, u);
    }
    const VmTimeline *t = chips[c];
    for (size_t i = 0; t && i < t->nevents; i++) {
      const VmTraceEvent *e = &t->events[i];
      const VmLoc *l = &p->locs[e->loc];
      fprintf(out, ",\n{\"ph\": \"X\", \"pid\": %d, \"tid\": %d, \"ts\": %.6f, \"dur\": %.6f, \"name\": \"", c, e->unit,
              e->start_s * 1e6, e->dur_s * 1e6);
      json_text(out, l->op);
      fprintf(out, "\", \"args\": {\"location\": \"");
      json_text(out, l->file[0] ? l->file : "<unknown>");
      fprintf(out, ":%u:%u\"}}", l->line, l->col);
    }
  }
  fprintf(out, "\n]}\n");
  return !ferror(out);
}
