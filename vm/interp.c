/* The interpreter: frames of registers holding reference-counted buffers,
 * the control opcodes (constants, calls, while/if/case, tuples, checks)
 * and dispatch of every other opcode to its kernel.  All value memory goes
 * through one accounted allocator, bounded by the simulated HBM. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/limits.h"
#include "vm/dtype.h"
#include "vm/internal.h"
#include "vm/io/io.h"
#include "vm/opinfo.h"
#include "vm/parallel.h"
#include "vm/profile.h"
#include "vm/chips/timeline.h"

enum BufFlags {
  BUF_CONST = 1,    /* data points into the program: never written or freed */
  BUF_BORROWED = 2, /* data owned by a kernel (region arguments) */
  BUF_TUPLE = 4,
};

/* A value: tensor bytes, a tuple of values, or a token (no bytes). */
typedef struct VmBuf {
  int64_t refs;
  uint64_t nbytes;
  uint32_t flags;
  uint32_t nmembers;
  struct VmBuf **members;
  void *data;
  double ready_s; /* modeled time the value exists (an async collective's end) */
} VmBuf;

/* A while instruction running, with its completed iterations (for the
 * message of a run that exceeds its limits). */
typedef struct VmLoop {
  const VmInstr *ins;
  uint64_t trips;
  struct VmLoop *outer;
} VmLoop;

/* Freed blocks of at least VM_SPARE_MIN_BYTES are kept for reuse, at most
 * VM_SPARE_BLOCKS of them and VM_SPARE_MAX_BYTES in all per executor. */
enum { VM_SPARE_BLOCKS = 64 };
#define VM_SPARE_MIN_BYTES ((size_t)256 << 10)
#define VM_SPARE_MAX_BYTES ((size_t)512 << 20)

struct VmExec {
  const VmProgram *prog;
  VmOptions opts;
  uint64_t live_bytes, peak_bytes;
  uint64_t tile_bytes;           /* of live_bytes: on-chip tile buffers (vm_tile_alloc) */
  uint64_t hbm_peak;             /* high-water mark of live_bytes - tile_bytes */
  bool hbm_refused; /* the last failed allocation exceeded the HBM */
  VmCheckStats checks;
  char error[1024];
  /* The frame and instruction being executed (for traps and region calls). */
  VmBuf **regs;
  const VmFunc *func;
  const VmInstr *ins;
  int depth;
  /* The limits of the current run (VmOptions.max_steps, timeout_s,
   * interrupt): instructions executed, the CLOCK_MONOTONIC_COARSE second the run
   * must end by (0: none; a slice's chips share theirs, deadline_fixed),
   * the innermost running loop, and whether an interrupt ended the run. */
  uint64_t steps;
  double deadline_s;
  bool deadline_fixed;
  struct VmLoop *loop;
  bool interrupted;
  VmProfile *profile; /* VmOptions.profile: host time per op (vm/profile.h) */
  /* Expanded splat / elided constants, per function and instruction. */
  VmBuf ***const_cache;
  /* Plans kernels decided once per instruction (vm_instr_cache). */
  void ***plan_cache;
  bool warned_elided;
  /* Values recorded by probe instructions, in execution order. */
  struct Probe {
    const char *id;
    const VmType *type;
    void *data;
  } *probes;
  uint32_t nprobes, probecap;
  /* The slice this chip belongs to (vm/chips/chips.c), or a fabric of its own
   * for send/recv on a chip alone (own_fabric). */
  VmFabric *fabric;
  int chip;
  bool own_fabric;
  bool victim;          /* the run was ended by another chip or a deadlock */
  bool ran_collective;  /* the instruction just run met its group (its time is on the ICI) */
  double collective_end_s; /* ... and when its transfer ends */
  /* Deferred meetings (vm/chips/chips.c): the asynchronous collectives
   * this chip started and has not completed, oldest first; the one being
   * completed; what the kernel just deferred (defer_*). */
  struct VmPending *pending, *completing;
  void *defer_meeting;
  size_t defer_event;
  double defer_clock;
  bool deferred; /* the instruction just run was deferred */
  VmTimeline timeline;  /* the modeled timeline of the entry function */
  VmPool *pool;         /* helper threads of vm_parallel_for (vm/parallel.c) */
  /* Large blocks the runs freed, kept for later allocations of the same
   * size: the next run of a program allocates the same sizes, and fresh
   * pages from the host cost a page fault each (BERT-base: 17k a run). */
  struct VmSpare {
    void *p;
    size_t n;
  } spare[VM_SPARE_BLOCKS];
  int nspare;
  size_t spare_bytes;
};

/* ------------------------------------------------------------------ */
/* Memory. */


static void *default_realloc(void *ud, void *p, size_t old, size_t n) {
  (void)ud;
  (void)old;
  if (n == 0) {
    free(p);
    return NULL;
  }
  return realloc(p, n);
}

/* A spare block of exactly n bytes taken for reuse, or NULL. */
static void *spare_take(VmExec *x, size_t n) {
  for (int i = x->nspare - 1; i >= 0; i--)
    if (x->spare[i].n == n) {
      void *p = x->spare[i].p;
      x->spare[i] = x->spare[--x->nspare];
      x->spare_bytes -= n;
      return p;
    }
  return NULL;
}

/* Keeps a freed block of n bytes as a spare; false when it is too small
 * to be worth it or the spares are full. */
static bool spare_keep(VmExec *x, void *p, size_t n) {
  if (n < VM_SPARE_MIN_BYTES || x->nspare == VM_SPARE_BLOCKS || x->spare_bytes + n > VM_SPARE_MAX_BYTES)
    return false;
  x->spare[x->nspare++] = (struct VmSpare){p, n};
  x->spare_bytes += n;
  return true;
}

/* The host allocation behind vm_mem_in: the spares first for a new large
 * block or a freed one, else opts.realloc_fn. */
static void *host_realloc(VmExec *x, void *p, size_t old, size_t n) {
  if (!p && n >= VM_SPARE_MIN_BYTES) {
    void *q = spare_take(x, n);
    if (q) return q;
  }
  if (p && n == 0 && spare_keep(x, p, old)) return NULL;
  return x->opts.realloc_fn(x->opts.realloc_ud, p, old, n);
}

/* The one allocator of the VM: everything it holds is accounted against
 * the simulated HBM; on_chip marks a kernel's tile buffer, which the TPU
 * keeps in VMEM, so it stays out of the measured HBM peak.  Spare blocks
 * are free memory of the simulated HBM, held for reuse on the host. */
static void *vm_mem_in(VmExec *x, void *p, size_t old, size_t n, bool on_chip) {
  x->hbm_refused = n > old && x->opts.hbm_bytes && x->live_bytes + (n - old) > x->opts.hbm_bytes;
  if (x->hbm_refused) return NULL;
  void *q = host_realloc(x, p, old, n);
  if (n && !q) return NULL;
  x->live_bytes = x->live_bytes - old + n;
  if (on_chip) x->tile_bytes = x->tile_bytes - old + n;
  if (x->live_bytes > x->peak_bytes) x->peak_bytes = x->live_bytes;
  if (x->live_bytes - x->tile_bytes > x->hbm_peak) x->hbm_peak = x->live_bytes - x->tile_bytes;
  return q;
}

static void *vm_mem(VmExec *x, void *p, size_t old, size_t n) { return vm_mem_in(x, p, old, n, false); }

void *vm_scratch_alloc(VmExec *x, size_t n) { return vm_mem(x, NULL, 0, n ? n : 1); }
void vm_scratch_free(VmExec *x, void *p, size_t n) {
  if (p) vm_mem(x, p, n ? n : 1, 0);
}
void *vm_tile_alloc(VmExec *x, size_t n) { return vm_mem_in(x, NULL, 0, n ? n : 1, true); }
void vm_tile_free(VmExec *x, void *p, size_t n) {
  if (p) vm_mem_in(x, p, n ? n : 1, 0, true);
}

static VmBuf *buf_new(VmExec *x, uint64_t nbytes) {
  VmBuf *b = vm_mem(x, NULL, 0, sizeof(VmBuf) + nbytes + 16);
  if (!b) return NULL;
  memset(b, 0, sizeof *b);
  b->refs = 1;
  b->nbytes = nbytes;
  b->data = (void *)(((uintptr_t)(b + 1) + 15) & ~(uintptr_t)15);
  return b;
}

static VmBuf *buf_wrap(VmExec *x, void *data, uint64_t nbytes, uint32_t flags) {
  VmBuf *b = vm_mem(x, NULL, 0, sizeof(VmBuf));
  if (!b) return NULL;
  memset(b, 0, sizeof *b);
  b->refs = 1;
  b->nbytes = nbytes;
  b->flags = flags;
  b->data = data;
  return b;
}

static void buf_release(VmExec *x, VmBuf *b) {
  if (!b || --b->refs > 0) return;
  for (uint32_t i = 0; i < b->nmembers; i++) buf_release(x, b->members[i]);
  if (b->members) vm_mem(x, b->members, sizeof(VmBuf *) * b->nmembers, 0);
  bool owns_data = !(b->flags & (BUF_CONST | BUF_BORROWED | BUF_TUPLE)) && b->data;
  vm_mem(x, b, sizeof(VmBuf) + (owns_data ? b->nbytes + 16 : 0), 0);
}

static VmBuf *buf_ref(VmBuf *b) {
  b->refs++;
  return b;
}

/* ------------------------------------------------------------------ */
/* Errors. */

static int trap_at(VmExec *x, const VmInstr *ins, const char *fmt, va_list ap) {
  char msg[768];
  vsnprintf(msg, sizeof msg, fmt, ap);
  if (ins) {
    const VmLoc *l = &x->prog->locs[ins->loc];
    snprintf(x->error, sizeof x->error, "%s:%u:%u: error: '%s' op %s", l->file[0] ? l->file : "<unknown>", l->line,
             l->col, l->op, msg);
  } else {
    snprintf(x->error, sizeof x->error, "error: %s", msg);
  }
  return VM_TRAP;
}

int vm_trap(VmExec *x, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  trap_at(x, x->ins, fmt, ap);
  va_end(ap);
  return VM_TRAP;
}

static int trapf(VmExec *x, const VmInstr *ins, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int trapf(VmExec *x, const VmInstr *ins, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  trap_at(x, ins, fmt, ap);
  va_end(ap);
  return VM_TRAP;
}

static int oom(VmExec *x, const VmInstr *ins, uint64_t n) {
  if (x->hbm_refused)
    return trapf(x, ins, "out of memory: %llu more bytes with %llu live exceeds the chip's %llu-byte HBM",
                 (unsigned long long)n, (unsigned long long)x->live_bytes, (unsigned long long)x->opts.hbm_bytes);
  return trapf(x, ins, "out of host memory allocating %llu bytes", (unsigned long long)n);
}

/* Seconds of the clock deadlines are kept in: CLOCK_MONOTONIC_COARSE,
 * read at every step of a run with a timeout, costs a few ns (its
 * resolution, a few ms, is plenty for a timeout). */
static double monotonic_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* "'op' at file:line:col" of instruction ins. */
static void where_of(const VmExec *x, const VmInstr *ins, char *buf, size_t n) {
  const VmLoc *l = &x->prog->locs[ins->loc];
  snprintf(buf, n, "'%s' at %s:%u:%u", l->op, l->file[0] ? l->file : "<unknown>", l->line, l->col);
}

/* The trap of a run past --max-steps or --timeout (what): named at the
 * innermost running loop, with its trip count, else at ins. */
static int limit_trap(VmExec *x, const VmInstr *ins, const char *what) {
  if (!x->loop) return trapf(x, ins, "exceeded %s after %llu steps", what, (unsigned long long)x->steps);
  return trapf(x, x->loop->ins, "exceeded %s after %llu steps (trip count %llu)", what,
               (unsigned long long)x->steps, (unsigned long long)x->loop->trips);
}

/* An interrupt (VmOptions.interrupt) seen before instruction ins. */
static int interrupt_trap(VmExec *x, const VmInstr *ins) {
  char here[300], loop[300] = "";
  where_of(x, ins, here, sizeof here);
  if (x->loop && x->loop->ins != ins) {
    char w[256];
    where_of(x, x->loop->ins, w, sizeof w);
    snprintf(loop, sizeof loop, " (trip %llu of %s)", (unsigned long long)x->loop->trips + 1, w);
  }
  x->interrupted = true;
  snprintf(x->error, sizeof x->error, "error: interrupted while running %s%s", here, loop);
  return VM_TRAP;
}

/* The limits of a run, checked before each instruction (one step): an
 * interrupt, --max-steps, the deadline and the failure of another chip of
 * the slice.  A long kernel is not cut short; the run ends before the
 * next instruction. */
static int check_limits(VmExec *x, const VmInstr *ins) {
  x->steps++;
  if (x->opts.interrupt && atomic_load_explicit(x->opts.interrupt, memory_order_relaxed))
    return interrupt_trap(x, ins);
  if (x->opts.max_steps && x->steps > x->opts.max_steps) {
    x->steps--; /* ins does not run */
    char what[64];
    snprintf(what, sizeof what, "--max-steps=%llu", (unsigned long long)x->opts.max_steps);
    return limit_trap(x, ins, what);
  }
  if (x->deadline_s > 0 && monotonic_s() > x->deadline_s) {
    x->steps--;
    char what[64];
    snprintf(what, sizeof what, "--timeout=%g", x->opts.timeout_s);
    return limit_trap(x, ins, what);
  }
  if (x->fabric && !x->own_fabric && vm_fabric_stopped(x->fabric)) {
    x->victim = true;
    return trapf(x, ins, "stopped: another chip failed");
  }
  return VM_OK;
}

void vm_exec_set_deadline(VmExec *x, double deadline_s) {
  x->deadline_s = deadline_s;
  x->deadline_fixed = true;
}

const char *vm_error(const VmExec *x) { return x->error; }
VmCheckStats vm_check_stats(const VmExec *x) { return x->checks; }
uint64_t vm_peak_bytes(const VmExec *x) { return x->peak_bytes; }
uint64_t vm_peak_hbm_bytes(const VmExec *x) { return x->hbm_peak; }
const VmOptions *vm_exec_options(const VmExec *x) { return &x->opts; }
const VmProfile *vm_exec_profile(const VmExec *x) { return x->profile; }
VmPool **vm_exec_pool(VmExec *x) { return &x->pool; }

const VmProgram *vm_exec_program(const VmExec *x) { return x->prog; }
const VmFunc *vm_region_func(const VmExec *x, const VmRegion *r) { return &x->prog->funcs[r->func]; }

void vm_exec_attach(VmExec *x, VmFabric *f, int chip) {
  x->fabric = f;
  x->chip = chip;
}
VmFabric *vm_exec_fabric(const VmExec *x) { return x->own_fabric ? NULL : x->fabric; }
VmFabric *vm_exec_fabric_or_solo(VmExec *x) {
  if (!x->fabric && (x->fabric = vm_fabric_new(1, 1, 1))) {
    x->own_fabric = true;
    vm_fabric_attach(x->fabric, 0, x);
  }
  return x->fabric;
}
int vm_exec_chip(const VmExec *x) { return x->chip; }
const VmInstr *vm_exec_instr(const VmExec *x) { return x->ins; }
const VmFunc *vm_exec_func(const VmExec *x) { return x->func; }
double vm_exec_clock(const VmExec *x) { return x->timeline.clock_s; }
const VmTimeline *vm_exec_timeline(const VmExec *x) { return &x->timeline; }

/* An asynchronous collective deferred to its first use: its meeting, its
 * start instruction, its results (referenced until completed), its place
 * on the timeline. */
typedef struct VmPending {
  struct VmPending *next;
  void *meeting;
  const VmInstr *ins;
  uint32_t nout;
  VmBuf **outs;
  VmTensor *out;
  size_t event;
  double clock_s, end_s;
} VmPending;

void vm_exec_defer(VmExec *x, void *meeting) {
  x->defer_meeting = meeting;
  x->ran_collective = true;
  x->defer_event = vm_timeline_reserve(&x->timeline, x->ins ? x->ins->loc : 0);
  x->defer_clock = x->timeline.clock_s;
}

void *vm_exec_completing(const VmExec *x) { return x->completing ? x->completing->meeting : NULL; }

/* The completion's collective time, where its start reserved it. */
static double completed_collective(VmExec *x, double start_s, double dur_s, double dcn_s) {
  VmPending *p = x->completing;
  p->end_s = vm_timeline_collective_at(&x->timeline, p->event, p->clock_s, start_s, dur_s, dcn_s);
  return p->end_s;
}

/* The kernel of ins deferred its meeting: keeps what the completion needs
 * (results out, of registers x->regs[ins->out]). */
static int keep_pending(VmExec *x, const VmInstr *ins, const VmTensor *out) {
  VmPending *p = calloc(1, sizeof *p);
  if (p) {
    p->outs = calloc(ins->n_out + 1, sizeof *p->outs);
    p->out = calloc(ins->n_out + 1, sizeof *p->out);
  }
  if (!p || !p->outs || !p->out) {
    if (p) free(p->outs);
    free(p);
    vm_meeting_abandon(x, x->defer_meeting);
    return trapf(x, ins, "out of host memory");
  }
  *p = (VmPending){NULL, x->defer_meeting, ins, ins->n_out, p->outs, p->out, x->defer_event, x->defer_clock, 0};
  for (uint32_t i = 0; i < ins->n_out; i++) {
    p->outs[i] = buf_ref(x->regs[ins->out[i]]);
    p->out[i] = out[i];
  }
  VmPending **tail = &x->pending;
  while (*tail) tail = &(*tail)->next;
  *tail = p;
  x->deferred = true;
  return VM_OK;
}

/* Unlinks and frees the oldest pending collective. */
static void drop_pending(VmExec *x) {
  VmPending *p = x->pending;
  x->pending = p->next;
  for (uint32_t i = 0; i < p->nout; i++) buf_release(x, p->outs[i]);
  free(p->outs);
  free(p->out);
  free(p);
}

/* Completes the oldest pending collective: its kernel again, which meets
 * the group and computes this chip's results. */
static int complete_oldest(VmExec *x) {
  VmPending *p = x->pending;
  const VmInstr *saved = x->ins;
  x->completing = p;
  x->ins = p->ins;
  int rc = vm_exec_table[p->ins->opcode](x, p->ins, vm_meeting_inputs(p->meeting, x->chip), p->out);
  x->ins = saved;
  x->completing = NULL;
  for (uint32_t i = 0; i < p->nout; i++) p->outs[i]->ready_s = p->end_s;
  drop_pending(x);
  return rc;
}

/* Before ins runs: completes the pending collectives (oldest first) up to
 * the last whose results it reads. */
static int complete_used(VmExec *x, VmBuf **regs, const VmInstr *ins) {
  int last = -1, k = 0;
  for (const VmPending *p = x->pending; p; p = p->next, k++)
    for (uint32_t i = 0; i < ins->n_in; i++)
      for (uint32_t j = 0; j < p->nout; j++)
        if (regs[ins->in[i]] == p->outs[j]) last = k;
  int rc = VM_OK;
  for (; last >= 0 && rc == VM_OK; last--) rc = complete_oldest(x);
  return rc;
}

/* At the end of a run: completes what is left, or after a failure leaves
 * the meetings. */
static int finish_pending(VmExec *x, int rc) {
  while (x->pending && rc == VM_OK) rc = complete_oldest(x);
  while (x->pending) {
    vm_meeting_abandon(x, x->pending->meeting);
    drop_pending(x);
  }
  return rc;
}

double vm_exec_collective_ran(VmExec *x, double start_s, double dur_s, double dcn_s) {
  if (x->completing) return completed_collective(x, start_s, dur_s, dcn_s);
  x->ran_collective = true;
  bool async = x->ins && (x->ins->flags & TPUB_INSTR_ASYNC);
  x->collective_end_s = vm_timeline_collective(&x->timeline, x->ins ? x->ins->loc : 0, start_s, dur_s, dcn_s, async);
  return x->collective_end_s;
}
void vm_exec_mark_victim(VmExec *x) { x->victim = true; }
bool vm_exec_is_victim(const VmExec *x) { return x->victim; }
void vm_exec_reset_chip(VmExec *x) {
  x->victim = false;
  vm_timeline_reset(&x->timeline);
}

void vm_exec_where(const VmExec *x, char *buf, size_t n) {
  if (x->ins) where_of(x, x->ins, buf, n);
  else snprintf(buf, n, "the start of its program");
}

/* ------------------------------------------------------------------ */
/* Setup. */

VmExec *vm_exec_new(const VmProgram *p, const VmOptions *opts) {
  VmExec *x = calloc(1, sizeof *x);
  if (!x) return NULL;
  x->prog = p;
  if (opts) x->opts = *opts;
  if (!x->opts.realloc_fn) x->opts.realloc_fn = default_realloc;
  if (!x->opts.check_out) x->opts.check_out = stdout;
  if (!x->opts.warn_out) x->opts.warn_out = stderr;
  x->timeline.record = x->opts.trace;
  x->const_cache = calloc(p->n_funcs + 1, sizeof(VmBuf **));
  x->plan_cache = calloc(p->n_funcs + 1, sizeof(void **));
  if (!x->const_cache || !x->plan_cache) {
    free(x->const_cache);
    free(x->plan_cache);
    free(x);
    return NULL;
  }
  if (x->opts.profile && !(x->profile = vm_profile_new(p))) {
    vm_exec_free(x);
    return NULL;
  }
  return x;
}

void vm_exec_free(VmExec *x) {
  if (!x) return;
  for (uint32_t f = 0; f < x->prog->n_funcs; f++) {
    if (!x->const_cache[f]) continue;
    for (uint32_t i = 0; i < x->prog->funcs[f].n_instrs; i++) buf_release(x, x->const_cache[f][i]);
    free(x->const_cache[f]);
  }
  free(x->const_cache);
  vm_profile_free(x->profile);
  for (uint32_t f = 0; f < x->prog->n_funcs; f++) {
    for (uint32_t i = 0; x->plan_cache[f] && i < x->prog->funcs[f].n_instrs; i++) free(x->plan_cache[f][i]);
    free(x->plan_cache[f]);
  }
  free(x->plan_cache);
  if (x->own_fabric) vm_fabric_free(x->fabric);
  vm_pool_free(x->pool);
  vm_timeline_free(&x->timeline);
  for (uint32_t i = 0; i < x->nprobes; i++) vm_mem(x, x->probes[i].data, (size_t)x->probes[i].type->nbytes + 1, 0);
  vm_mem(x, x->probes, sizeof *x->probes * x->probecap, 0);
  for (int i = 0; i < x->nspare; i++) x->opts.realloc_fn(x->opts.realloc_ud, x->spare[i].p, x->spare[i].n, 0);
  free(x);
}

/* ------------------------------------------------------------------ */
/* Execution. */

static int run_func(VmExec *x, uint32_t fi, VmBuf **args, uint32_t nargs, uint32_t nowned, VmBuf **results);

/* Arguments of a region: explicit values, then the captured registers.
 * owned: the callee takes over the references of the explicit values (so
 * a loop body can update its state in place); they are consumed even when
 * the call fails. */
static int call_region(VmExec *x, const VmRegion *r, VmBuf **explicit_args, uint32_t n, VmBuf **results,
                       bool owned) {
  VmBuf *stack_args[16];
  uint32_t total = n + r->ncaps;
  VmBuf **args = total <= 16 ? stack_args : malloc(sizeof(VmBuf *) * total);
  if (!args) {
    for (uint32_t i = 0; owned && i < n; i++) buf_release(x, explicit_args[i]);
    return trapf(x, x->ins, "out of host memory");
  }
  for (uint32_t i = 0; i < n; i++) args[i] = explicit_args[i];
  for (uint32_t i = 0; i < r->ncaps; i++) args[n + i] = x->regs[r->caps[i]];
  int rc = run_func(x, r->func, args, total, owned ? n : 0, results);
  if (args != stack_args) free(args);
  return rc;
}

int vm_call_region(VmExec *x, const VmRegion *r, const VmTensor *args, int nargs, VmTensor *results) {
  const VmFunc *fn = &x->prog->funcs[r->func];
  VmBuf *argbufs[64], *resbufs[64];
  if (nargs > 64 || fn->n_results > 64) return vm_trap(x, "region with more than 64 values");
  int rc = VM_OK;
  int made = 0;
  for (; made < nargs; made++) {
    argbufs[made] = buf_wrap(x, args[made].data, (uint64_t)fn->reg_types[made]->nbytes, BUF_BORROWED);
    if (!argbufs[made]) {
      rc = oom(x, x->ins, sizeof(VmBuf));
      break;
    }
  }
  if (rc == VM_OK) rc = call_region(x, r, argbufs, (uint32_t)nargs, resbufs, false);
  for (int i = 0; i < made; i++) buf_release(x, argbufs[i]);
  if (rc != VM_OK) return rc;
  /* Result 0 last: it may be written over an argument (an in-place FUSION)
   * that another result still reads. */
  for (uint32_t i = fn->n_results; i-- > 0;) {
    results[i].type = fn->result_types[i];
    if (resbufs[i]->data && results[i].data != resbufs[i]->data)
      memcpy(results[i].data, resbufs[i]->data, resbufs[i]->nbytes);
    buf_release(x, resbufs[i]);
  }
  return VM_OK;
}

void **vm_instr_cache(VmExec *x) {
  uint32_t fi = (uint32_t)(x->func - x->prog->funcs), ii = (uint32_t)(x->ins - x->func->instrs);
  if (!x->plan_cache[fi] && !(x->plan_cache[fi] = calloc(x->func->n_instrs + 1, sizeof(void *)))) return NULL;
  return &x->plan_cache[fi][ii];
}

const void *vm_region_capture(const VmExec *x, const VmRegion *r, uint32_t i) { return x->regs[r->caps[i]]->data; }

int vm_region_binary_op(const VmExec *x, const VmRegion *r, int elem, bool *swapped) {
  const VmFunc *fn = &x->prog->funcs[r->func];
  if (r->ncaps || fn->n_params != 2 || fn->n_results != 1 || fn->n_instrs != 2) return -1;
  const VmInstr *op = &fn->instrs[0], *ret = &fn->instrs[1];
  if (op->n_in != 2 || op->n_out != 1 || ret->n_in != 1 || ret->in[0] != op->out[0]) return -1;
  if (!((op->in[0] == 0 && op->in[1] == 1) || (op->in[0] == 1 && op->in[1] == 0))) return -1;
  bool reversed = op->in[0] == 1;
  if (swapped) *swapped = reversed;
  else if (reversed && !vm_elem_is_int(elem)) return -1;
  switch (op->opcode) {
  case VM_OP_ADD:
  case VM_OP_MULTIPLY:
  case VM_OP_MAXIMUM:
  case VM_OP_MINIMUM:
  case VM_OP_AND:
  case VM_OP_OR:
  case VM_OP_XOR: return op->opcode;
  default: return -1;
  }
}

/* Makes random stand-in weights keep a network's activations finite:
 * vectors (biases, norm scales, variances) become positive, near 1;
 * matrices and kernels get variance 1/fan_in, fan_in being all dims but
 * the last (HWIO kernels, [in, out] matrices). */
static void scale_like_weights(const VmType *t, void *data) {
  if (!vm_elem_is_float(t->elem)) return;
  int64_t last = t->rank ? t->dims[t->rank - 1] : 1;
  double fan_in = last > 0 ? (double)t->count / (double)last : 1;
  double scale = sqrt(3.0 / (fan_in > 1 ? fan_in : 1));
  for (int64_t i = 0; i < t->count; i++) {
    double v = vm_load_f64(t->elem, data, i);
    vm_store_f64(t->elem, data, i, t->rank <= 1 ? 1.0 + 0.5 * v : v * scale);
  }
}

/* A value for a constant instruction: the program's bytes, or (splat,
 * elided) an expanded copy cached per instruction. */
static VmBuf *constant_value(VmExec *x, uint32_t fi, uint32_t ii, const VmInstr *ins, const VmType *t) {
  const VmField *f = &ins->fields[0];
  if (!(f->flags & (VM_CONST_SPLAT | VM_CONST_ELIDED)))
    return buf_wrap(x, (void *)f->data, (uint64_t)t->nbytes, BUF_CONST);
  if (!x->const_cache[fi]) {
    x->const_cache[fi] = calloc(x->prog->funcs[fi].n_instrs, sizeof(VmBuf *));
    if (!x->const_cache[fi]) return NULL;
  }
  VmBuf **slot = &x->const_cache[fi][ii];
  if (!*slot) {
    VmBuf *b = buf_new(x, (uint64_t)t->nbytes);
    if (!b) return NULL;
    if (f->flags & VM_CONST_ELIDED) {
      if (!x->warned_elided) {
        fprintf(x->opts.warn_out,
                "warning: dense_resource<__elided__> weights are filled with seeded random data (seed %llu; vectors near 1, kernels with variance 1/fan-in)\n",
                (unsigned long long)x->opts.seed);
        x->warned_elided = true;
      }
      /* Seeded by the constant's source position, so every optimization
       * level (which may move, merge or inline constants) sees the same
       * weights for the same source constant. */
      const VmLoc *loc = &x->prog->locs[ins->loc];
      vm_fill_random(t->elem, b->data, t->count,
                     x->opts.seed * 0x9E3779B97F4A7C15ull + (uint64_t)loc->line * 65537u + loc->col);
      scale_like_weights(t, b->data);
    } else {
      size_t es = (size_t)vm_elem_bytes(t->elem);
      for (int64_t i = 0; i < t->count; i++) memcpy((char *)b->data + (size_t)i * es, f->data, es);
    }
    b->flags |= BUF_CONST; /* shared: never written in place */
    *slot = b;
  }
  return buf_ref(*slot);
}

static const char *check_name(int64_t kind) {
  return kind == 0 ? "expect_eq" : kind == 1 ? "expect_almost_eq" : "expect_close";
}

/* custom_call @shape_assertion: traps with its message, {i} replaced by
 * operand i+1's value, when the predicate is false. */
static int run_assert(VmExec *x, const VmFunc *fn, const VmInstr *ins) {
  if (vm_load_bits(TPUB_I1, x->regs[ins->in[0]]->data, 0) & 1) return VM_OK;
  char msg[600];
  size_t n = 0;
  for (const char *p = ins->fields[0].str; *p && n + 24 < sizeof msg;) {
    const char *stop;
    long i = tpu_message_placeholder(p, (long)ins->n_in - 1, &stop);
    if (i >= 0) {
      int elem = fn->reg_types[ins->in[i + 1]]->elem;
      uint64_t bits = vm_load_bits(elem, x->regs[ins->in[i + 1]]->data, 0);
      int w = vm_elem_bits(elem);
      if (w >= 64 && vm_elem_is_unsigned(elem))
        n += (size_t)snprintf(msg + n, sizeof msg - n, "%llu", (unsigned long long)bits);
      else
        n += (size_t)snprintf(msg + n, sizeof msg - n, "%lld",
                              (long long)(w >= 64 || vm_elem_is_unsigned(elem) ? (int64_t)bits
                                                                                : (int64_t)(bits << (64 - w)) >> (64 - w)));
      p = stop;
    } else {
      msg[n++] = *p++;
    }
  }
  msg[n] = 0;
  return trapf(x, ins, "shape assertion failed: %s", msg);
}

static int run_check(VmExec *x, const VmFunc *fn, const VmInstr *ins) {
  if (!x->opts.run_checks) return VM_OK;
  const VmType *t = fn->reg_types[ins->in[0]];
  VmTensor actual = {t, x->regs[ins->in[0]]->data}, expected = {t, NULL};
  void *expanded = NULL;
  if (ins->opcode == VM_OP_CHECK2) {
    expected.data = x->regs[ins->in[1]]->data;
  } else if (ins->fields[4].flags & VM_CONST_SPLAT) {
    expanded = vm_scratch_alloc(x, (size_t)t->nbytes);
    if (!expanded) return oom(x, ins, (uint64_t)t->nbytes);
    size_t es = (size_t)vm_elem_bytes(t->elem);
    for (int64_t i = 0; i < t->count; i++) memcpy((char *)expanded + (size_t)i * es, ins->fields[4].data, es);
    expected.data = expanded;
  } else {
    expected.data = (void *)ins->fields[4].data;
  }
  char detail[512] = "";
  int64_t kind = vm_field_int(ins, 0);
  bool ok = vm_compare((int)kind, vm_field_f64(ins, 1), vm_field_int(ins, 2), vm_field_int(ins, 3), &actual,
                       &expected, detail, sizeof detail);
  vm_scratch_free(x, expanded, (size_t)t->nbytes);
  const VmLoc *l = &x->prog->locs[ins->loc];
  if (ok) {
    x->checks.passed++;
    fprintf(x->opts.check_out, "PASS %s at %s:%u:%u\n", check_name(kind), l->file, l->line, l->col);
  } else {
    x->checks.failed++;
    fprintf(x->opts.check_out, "FAIL %s at %s:%u:%u: %s\n", check_name(kind), l->file, l->line, l->col, detail);
  }
  return VM_OK;
}

/* interpreter.probe: keep a copy of the value under its id. */
static int record_probe(VmExec *x, const VmFunc *fn, const VmInstr *ins) {
  const VmType *t = fn->reg_types[ins->in[0]];
  if (x->nprobes == x->probecap) {
    uint32_t cap = x->probecap ? x->probecap * 2 : 8;
    void *p = vm_mem(x, x->probes, sizeof *x->probes * x->probecap, sizeof *x->probes * cap);
    if (!p) return oom(x, ins, sizeof *x->probes * cap);
    x->probes = p;
    x->probecap = cap;
  }
  void *copy = vm_mem(x, NULL, 0, (size_t)t->nbytes + 1);
  if (!copy) return oom(x, ins, (uint64_t)t->nbytes);
  memcpy(copy, x->regs[ins->in[0]]->data, (size_t)t->nbytes);
  x->probes[x->nprobes++] = (struct Probe){ins->fields[0].str, t, copy};
  x->regs[ins->out[0]] = buf_ref(x->regs[ins->in[0]]);
  return VM_OK;
}

/* check.expect_serialized_eq: the iter-th value probed under the id. */
static int check_probe_value(VmExec *x, const VmFunc *fn, const VmInstr *ins) {
  if (!x->opts.run_checks) return VM_OK;
  const VmType *t = fn->reg_types[ins->in[0]];
  const char *id = ins->fields[0].str;
  int64_t iter = vm_field_int(ins, 1), seen = 0;
  const struct Probe *found = NULL;
  for (uint32_t i = 0; i < x->nprobes && !found; i++)
    if (strcmp(x->probes[i].id, id) == 0 && seen++ == iter) found = &x->probes[i];
  char detail[512] = "";
  bool ok = false;
  if (!found) {
    snprintf(detail, sizeof detail, "no value probed as \"%s\" at iteration %lld", id, (long long)iter);
  } else if (!vm_type_equal(found->type, t)) {
    snprintf(detail, sizeof detail, "the value probed as \"%s\" has another type", id);
  } else {
    VmTensor actual = {t, x->regs[ins->in[0]]->data}, expected = {t, found->data};
    ok = vm_compare(VM_CMP_EQ, 0, 0, 0, &actual, &expected, detail, sizeof detail);
  }
  const VmLoc *l = &x->prog->locs[ins->loc];
  if (ok) x->checks.passed++;
  else x->checks.failed++;
  fprintf(x->opts.check_out, ok ? "PASS %s at %s:%u:%u\n" : "FAIL %s at %s:%u:%u: %s\n", "expect_serialized_eq",
          l->file, l->line, l->col, detail);
  return VM_OK;
}

const VmExecFn vm_exec_table[VM_OP_COUNT] = {
#define OPC(id, name, nin, nout, fields, check, exec, flags, doc) [VM_OP_##id] = exec,
#include "vm/opcodes.def"
#undef OPC
};

/* The bytes of a value of type a are also a valid value of type b (so an
 * aliasing opcode may share the buffer): same size, and either the same
 * element type or element types that fill their containers exactly (a
 * sub-byte type's bytes hold an extension that a bitcast must redo). */
static bool same_bytes(const VmType *a, const VmType *b) {
  if (a->nbytes != b->nbytes) return false;
  if (a->elem == b->elem) return true;
  return vm_elem_bits(a->elem) == 8 * vm_elem_bytes(a->elem) && vm_elem_bits(b->elem) == 8 * vm_elem_bytes(b->elem);
}

int exec_control(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  (void)in;
  (void)out;
  return trapf(x, ins, "internal error: control opcode %u dispatched to a kernel", ins->opcode);
}

/* Runs a kernel: operand tensors, result buffers (in place or aliased
 * where allowed), then the kernel. */
static int run_kernel(VmExec *x, const VmFunc *fn, const VmInstr *ins) {
  VmTensor in_stack[16], out_stack[8];
  VmTensor *in = ins->n_in <= 16 ? in_stack : malloc(sizeof(VmTensor) * ins->n_in);
  VmTensor *out = ins->n_out <= 8 ? out_stack : malloc(sizeof(VmTensor) * ins->n_out);
  int rc = VM_OK;
  if (!in || !out) {
    rc = trapf(x, ins, "out of host memory");
    goto done;
  }
  for (uint32_t i = 0; i < ins->n_in; i++) in[i] = (VmTensor){fn->reg_types[ins->in[i]], x->regs[ins->in[i]]->data};
  unsigned flags = vm_op_rows[ins->opcode].flags;
  if ((flags & VMF_ALIAS) && ins->n_out == 1 && same_bytes(fn->reg_types[ins->out[0]], in[0].type)) {
    x->regs[ins->out[0]] = buf_ref(x->regs[ins->in[0]]);
    goto done;
  }
  for (uint32_t i = 0; i < ins->n_out; i++) {
    const VmType *t = fn->reg_types[ins->out[i]];
    VmBuf *b = NULL;
    if (i == 0 && (ins->flags & TPUB_INSTR_INPLACE)) {
      VmBuf *src = x->regs[ins->in[ins->flags & 0xff]];
      if (src->refs == 1 && !(src->flags & (BUF_CONST | BUF_BORROWED)) && src->nbytes == (uint64_t)t->nbytes)
        b = buf_ref(src);
    }
    if (!b && !(b = buf_new(x, (uint64_t)t->nbytes))) {
      rc = oom(x, ins, (uint64_t)t->nbytes);
      goto done;
    }
    x->regs[ins->out[i]] = b;
    out[i] = (VmTensor){t, b->data};
  }
  x->ins = ins;
  rc = vm_exec_table[ins->opcode](x, ins, in, out);
  if (x->defer_meeting) {
    if (rc == VM_OK) rc = keep_pending(x, ins, out);
    else vm_meeting_abandon(x, x->defer_meeting);
    x->defer_meeting = NULL;
  }
done:
  if (in && in != in_stack) free(in);
  if (out && out != out_stack) free(out);
  return rc;
}

/* A value lent to another chip: its tensors' bytes are shared, not copied
 * (the lender waits for the borrower); unlend frees only the structure. */
static bool lend_value(const VmBuf *b, const VmType *t, VmValue *v) {
  memset(v, 0, sizeof *v);
  v->type = t;
  if (t->kind == TPUB_TY_TUPLE) {
    if (!(v->members = calloc((size_t)t->nmembers + 1, sizeof(VmValue)))) return false;
    v->nmembers = t->nmembers;
    for (int i = 0; i < t->nmembers; i++)
      if (!lend_value(b->members[i], t->members[i], &v->members[i])) return false;
    return true;
  }
  v->data = b->data;
  return true;
}

static void unlend_value(VmValue *v) {
  for (int i = 0; i < v->nmembers; i++) unlend_value(&v->members[i]);
  free(v->members);
  memset(v, 0, sizeof *v);
}

static VmBuf *value_to_buf(VmExec *x, const VmValue *v, const VmType *t, bool copy);

/* interpreter.run_parallel: a new slice of chips runs one program each;
 * this chip waits for all of them. */
static int run_parallel(VmExec *x, const VmFunc *fn, const VmInstr *ins) {
  if (vm_exec_fabric(x)) return trapf(x, ins, "run_parallel on a chip that already runs in a slice");
  const VmField *progs = &ins->fields[0];
  int n = (int)progs->n, replicas = (int)vm_field_int(ins, 1);
  VmMesh mesh = {replicas, n / replicas, 0, {0, 0, 0}};
  VmOptions o = x->opts;
  o.profile = false;
  int lo, hi;
  char why[256];
  if (o.mpi && !vm_mpi_share(o.mpi, n, &lo, &hi, why, sizeof why)) return trapf(x, ins, "%s", why);
  VmSlice *slice = vm_slice_new(x->prog, &o, &mesh);
  if (slice) vm_slice_set_deadline(slice, x->deadline_s); /* the chips share this chip's */
  int *fns = calloc((size_t)n, sizeof(int));
  VmValue **args = calloc((size_t)n, sizeof(VmValue *)), **res = calloc((size_t)n, sizeof(VmValue *));
  int rc = slice && fns && args && res ? VM_OK : trapf(x, ins, "out of host memory starting %d chips", n);
  uint32_t in = 0;
  for (int k = 0; k < n && rc == VM_OK; k++) {
    const VmFunc *p = &x->prog->funcs[progs->regions[k].func];
    fns[k] = (int)progs->regions[k].func;
    args[k] = calloc(p->n_params + 1, sizeof(VmValue));
    res[k] = calloc(p->n_results + 1, sizeof(VmValue));
    if (!args[k] || !res[k]) rc = trapf(x, ins, "out of host memory");
    for (uint32_t i = 0; i < p->n_params && rc == VM_OK; i++, in++)
      if (!lend_value(x->regs[ins->in[in]], fn->reg_types[ins->in[in]], &args[k][i]))
        rc = trapf(x, ins, "out of host memory");
  }
  int src = rc == VM_OK ? vm_slice_run(slice, fns, (const VmValue *const *)args, res) : VM_OK;
  if (src != VM_OK) {
    snprintf(x->error, sizeof x->error, "%s", vm_slice_error(slice));
    x->interrupted = src == VM_INTERRUPTED;
    rc = VM_TRAP;
  }
  for (int k = 0; slice && k < n; k++) {
    VmCheckStats cs = vm_slice_check_stats(slice, k);
    x->checks.passed += cs.passed;
    x->checks.failed += cs.failed;
  }
  uint32_t out = 0;
  for (int k = 0; k < n && args && res; k++) {
    const VmFunc *p = &x->prog->funcs[progs->regions[k].func];
    for (uint32_t i = 0; args[k] && i < p->n_params; i++) unlend_value(&args[k][i]);
    for (uint32_t i = 0; res[k] && i < p->n_results; i++, out++) {
      if (rc == VM_OK && !(x->regs[ins->out[out]] = value_to_buf(x, &res[k][i], p->result_types[i], true)))
        rc = oom(x, ins, (uint64_t)p->result_types[i]->nbytes);
      vm_value_free(&res[k][i]);
    }
    free(args[k]);
    free(res[k]);
  }
  free(fns);
  free(args);
  free(res);
  vm_slice_free(slice);
  return rc;
}

/* call: results = callee(operands). */
static int run_call(VmExec *x, VmBuf **regs, const VmInstr *ins) {
  VmBuf *tmp_stack[16];
  VmBuf **a = ins->n_in <= 16 ? tmp_stack : malloc(sizeof(VmBuf *) * ins->n_in);
  if (!a) return trapf(x, ins, "out of host memory");
  for (uint32_t i = 0; i < ins->n_in; i++) a[i] = regs[ins->in[i]];
  VmBuf **res = malloc(sizeof(VmBuf *) * (ins->n_out + 1));
  int rc;
  if (!res) rc = trapf(x, ins, "out of host memory");
  else rc = call_region(x, &ins->fields[0].regions[0], a, ins->n_in, res, false);
  if (rc == VM_OK)
    for (uint32_t i = 0; i < ins->n_out; i++) regs[ins->out[i]] = res[i];
  free(res);
  if (a != tmp_stack) free(a);
  return rc;
}

/* while: the state goes through cond and body until cond is false; the
 * loop is on x->loop while it runs (for the limits' message). */
static int run_while(VmExec *x, VmBuf **regs, const VmInstr *ins) {
  uint32_t n = ins->n_in;
  VmBuf **state = malloc(sizeof(VmBuf *) * (n + 1)), **next = malloc(sizeof(VmBuf *) * (n + 1));
  if (!state || !next) {
    free(state);
    free(next);
    return trapf(x, ins, "out of host memory");
  }
  for (uint32_t i = 0; i < n; i++) state[i] = buf_ref(regs[ins->in[i]]);
  VmLoop loop = {ins, 0, x->loop};
  x->loop = &loop;
  int rc;
  for (;;) {
    VmBuf *pred;
    x->ins = ins;
    if ((rc = call_region(x, &ins->fields[0].regions[0], state, n, &pred, false)) != VM_OK) break;
    bool go = *(const uint8_t *)pred->data != 0;
    buf_release(x, pred);
    if (!go) break;
    x->ins = ins;
    /* The body owns the state: it may update it in place. */
    rc = call_region(x, &ins->fields[1].regions[0], state, n, next, true);
    for (uint32_t i = 0; i < n; i++) state[i] = rc == VM_OK ? next[i] : NULL;
    if (rc != VM_OK) break;
    loop.trips++;
  }
  x->loop = loop.outer;
  if (rc == VM_OK)
    for (uint32_t i = 0; i < n; i++) regs[ins->out[i]] = state[i];
  else
    for (uint32_t i = 0; i < n; i++) buf_release(x, state[i]);
  free(state);
  free(next);
  return rc;
}

/* if / case: runs the region operand 0 picks (an out-of-range case index,
 * or a negative unsigned one, runs the last branch). */
static int run_branch(VmExec *x, const VmFunc *fn, VmBuf **regs, const VmInstr *ins) {
  const VmType *pt = fn->reg_types[ins->in[0]];
  const VmRegion *r;
  if (ins->opcode == VM_OP_IF) {
    r = &ins->fields[*(const uint8_t *)regs[ins->in[0]]->data ? 0 : 1].regions[0];
  } else {
    int64_t idx = vm_load_i64(pt->elem, regs[ins->in[0]]->data, 0);
    int64_t nb = ins->fields[0].n;
    if (vm_elem_is_unsigned(pt->elem) && idx < 0) idx = nb - 1;
    if (idx < 0 || idx >= nb) idx = nb - 1;
    r = &ins->fields[0].regions[idx];
  }
  VmBuf **res = malloc(sizeof(VmBuf *) * (ins->n_out + 1));
  if (!res) return trapf(x, ins, "out of host memory");
  int rc = call_region(x, r, NULL, 0, res, false);
  if (rc == VM_OK)
    for (uint32_t i = 0; i < ins->n_out; i++) regs[ins->out[i]] = res[i];
  free(res);
  return rc;
}

/* tuple: a value holding references to the operands. */
static int run_tuple(VmExec *x, VmBuf **regs, const VmInstr *ins) {
  VmBuf *t = buf_wrap(x, NULL, 0, BUF_TUPLE);
  VmBuf **m = t ? vm_mem(x, NULL, 0, sizeof(VmBuf *) * (ins->n_in + 1)) : NULL;
  if (!m) {
    if (t) buf_release(x, t);
    return oom(x, ins, sizeof(VmBuf *) * ins->n_in);
  }
  for (uint32_t i = 0; i < ins->n_in; i++) m[i] = buf_ref(regs[ins->in[i]]);
  t->members = m;
  t->nmembers = ins->n_in;
  regs[ins->out[0]] = t;
  return VM_OK;
}

/* Executes instruction ii of function fi (frame regs; a return writes
 * results): the control opcodes here, the others through their kernel. */
static int run_instr(VmExec *x, uint32_t fi, uint32_t ii, VmBuf **regs, VmBuf **results) {
  const VmFunc *fn = &x->prog->funcs[fi];
  const VmInstr *ins = &fn->instrs[ii];
  switch (ins->opcode) {
  case VM_OP_CONSTANT:
    if (!(regs[ins->out[0]] = constant_value(x, fi, ii, ins, fn->reg_types[ins->out[0]])))
      return oom(x, ins, (uint64_t)fn->reg_types[ins->out[0]]->nbytes);
    return VM_OK;
  case VM_OP_CALL: return run_call(x, regs, ins);
  case VM_OP_WHILE: return run_while(x, regs, ins);
  case VM_OP_IF:
  case VM_OP_CASE: return run_branch(x, fn, regs, ins);
  case VM_OP_RETURN:
    for (uint32_t i = 0; i < ins->n_in; i++) results[i] = buf_ref(regs[ins->in[i]]);
    return VM_OK;
  case VM_OP_TUPLE: return run_tuple(x, regs, ins);
  case VM_OP_GET_TUPLE_ELEMENT:
    regs[ins->out[0]] = buf_ref(regs[ins->in[0]]->members[vm_field_int(ins, 0)]);
    return VM_OK;
  case VM_OP_COPY:
    for (uint32_t i = 0; i < ins->n_in; i++) regs[ins->out[i]] = buf_ref(regs[ins->in[i]]);
    return VM_OK;
  case VM_OP_ASYNC_DONE:
    for (uint32_t i = 0; i < ins->n_in; i++) {
      vm_timeline_wait(&x->timeline, regs[ins->in[i]]->ready_s);
      regs[ins->out[i]] = buf_ref(regs[ins->in[i]]);
    }
    x->timeline.last_op = 0;
    return VM_OK;
  case VM_OP_TOKEN:
    if (!(regs[ins->out[0]] = buf_wrap(x, NULL, 0, BUF_TUPLE))) return oom(x, ins, sizeof(VmBuf));
    return VM_OK;
  case VM_OP_RUN_PARALLEL: return run_parallel(x, fn, ins);
  case VM_OP_CHECK:
  case VM_OP_CHECK2: return run_check(x, fn, ins);
  case VM_OP_PROBE: return record_probe(x, fn, ins);
  case VM_OP_ASSERT: return run_assert(x, fn, ins);
  case VM_OP_CHECK_PROBE: return check_probe_value(x, fn, ins);
  default: return run_kernel(x, fn, ins);
  }
}

/* After instruction ins ran (status rc): frees its kill list, stamps the
 * results of an async collective with its end, and puts the entry
 * function's ops on the modeled timeline. */
static void after_instr(VmExec *x, VmBuf **regs, const VmInstr *ins, int rc) {
  for (uint32_t k = 0; k < ins->n_kill; k++) {
    buf_release(x, regs[ins->kill[k]]);
    regs[ins->kill[k]] = NULL;
  }
  if (x->ran_collective && rc == VM_OK && (ins->flags & TPUB_INSTR_ASYNC) && !x->deferred)
    for (uint32_t i = 0; i < ins->n_out; i++)
      if (regs[ins->out[i]]) regs[ins->out[i]]->ready_s = x->collective_end_s;
  if (x->depth == 1 && rc == VM_OK && ins->opcode != VM_OP_ASYNC_DONE && !x->ran_collective)
    vm_timeline_op(&x->timeline, x->prog, ins);
  x->ran_collective = false;
  x->deferred = false;
}

/* Runs function fi; the first nowned arguments' references pass to the
 * callee (released by it, even on failure), the others are borrowed. */
static int run_func(VmExec *x, uint32_t fi, VmBuf **args, uint32_t nargs, uint32_t nowned, VmBuf **results) {
  const VmFunc *fn = &x->prog->funcs[fi];
  VmBuf **regs = NULL;
  if (nargs != fn->n_params || x->depth >= TPUB_MAX_CALL_DEPTH || !(regs = calloc(fn->n_regs + 1, sizeof(VmBuf *)))) {
    for (uint32_t i = 0; i < nowned; i++) buf_release(x, args[i]);
    if (nargs != fn->n_params) return trapf(x, x->ins, "internal error: %s called with %u arguments", fn->name, nargs);
    if (!regs && x->depth < TPUB_MAX_CALL_DEPTH) return trapf(x, x->ins, "out of host memory");
    return trapf(x, x->ins, "calls nested deeper than %d", TPUB_MAX_CALL_DEPTH);
  }
  for (uint32_t i = 0; i < nargs; i++) regs[i] = i < nowned ? args[i] : buf_ref(args[i]);
  VmBuf **saved_regs = x->regs;
  const VmFunc *saved_func = x->func;
  const VmInstr *saved_ins = x->ins;
  x->regs = regs;
  x->func = fn;
  x->depth++;
  int rc = VM_OK;
  /* --profile times the instructions of the entry function. */
  bool timed = x->profile && x->depth == 1;
  struct timespec t0, t1;
  for (uint32_t ii = 0; ii < fn->n_instrs && rc == VM_OK; ii++) {
    const VmInstr *ins = &fn->instrs[ii];
    x->ins = ins;
    if (timed) clock_gettime(CLOCK_MONOTONIC, &t0);
    if ((rc = check_limits(x, ins)) != VM_OK) break;
    if (x->pending && (rc = complete_used(x, regs, ins)) != VM_OK) break;
    rc = run_instr(x, fi, ii, regs, results);
    after_instr(x, regs, ins, rc);
    if (timed) {
      clock_gettime(CLOCK_MONOTONIC, &t1);
      vm_profile_add(x->profile, ins->loc, (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
    }
  }
  /* Registers still live (after a trap, or in a file whose kill lists
   * leave some) are released here; results hold their own references. */
  for (uint32_t r = 0; r < fn->n_regs; r++) buf_release(x, regs[r]);
  free(regs);
  x->regs = saved_regs;
  x->func = saved_func;
  x->ins = saved_ins;
  x->depth--;
  return rc;
}

/* ------------------------------------------------------------------ */
/* The host interface. */

/* A host value as a buffer: its tensors' bytes borrowed (arguments: the
 * VM never writes them), or copied into this chip's memory (copy: values
 * another chip returned). */
static VmBuf *value_to_buf(VmExec *x, const VmValue *v, const VmType *t, bool copy) {
  if (t->kind == TPUB_TY_TUPLE) {
    VmBuf *b = buf_wrap(x, NULL, 0, BUF_TUPLE);
    if (!b) return NULL;
    b->members = vm_mem(x, NULL, 0, sizeof(VmBuf *) * ((size_t)t->nmembers + 1));
    if (!b->members) {
      buf_release(x, b);
      return NULL;
    }
    for (int i = 0; i < t->nmembers; i++) {
      if (!(b->members[i] = value_to_buf(x, &v->members[i], t->members[i], copy))) {
        buf_release(x, b);
        return NULL;
      }
      b->nmembers = (uint32_t)i + 1;
    }
    return b;
  }
  if (t->kind == TPUB_TY_TOKEN) return buf_wrap(x, NULL, 0, BUF_TUPLE);
  if (!copy) return buf_wrap(x, v->data, (uint64_t)t->nbytes, BUF_BORROWED);
  VmBuf *b = buf_new(x, (uint64_t)t->nbytes);
  if (b && t->nbytes) memcpy(b->data, v->data, (size_t)t->nbytes);
  return b;
}

static bool buf_to_value(const VmBuf *b, const VmType *t, VmValue *v) {
  memset(v, 0, sizeof *v);
  v->type = t;
  if (t->kind == TPUB_TY_TUPLE) {
    v->members = calloc((size_t)t->nmembers + 1, sizeof(VmValue));
    if (!v->members) return false;
    v->nmembers = t->nmembers;
    for (int i = 0; i < t->nmembers; i++)
      if (!buf_to_value(b->members[i], t->members[i], &v->members[i])) return false;
    return true;
  }
  if (t->kind == TPUB_TY_TOKEN) return true;
  v->data = malloc((size_t)t->nbytes + 1);
  if (!v->data) return false;
  if (t->nbytes) memcpy(v->data, b->data, (size_t)t->nbytes);
  return true;
}

void vm_value_free(VmValue *v) {
  if (!v) return;
  for (int i = 0; i < v->nmembers; i++) vm_value_free(&v->members[i]);
  free(v->members);
  free(v->data);
  memset(v, 0, sizeof *v);
}

int vm_run(VmExec *x, int fi, const VmValue *args, int nargs, VmValue *results) {
  x->error[0] = '\0';
  x->ins = NULL;
  x->steps = 0;
  x->loop = NULL;
  x->interrupted = false;
  if (!x->deadline_fixed) x->deadline_s = x->opts.timeout_s > 0 ? monotonic_s() + x->opts.timeout_s : 0;
  if (x->own_fabric) vm_fabric_reset(x->fabric);
  vm_timeline_reset(&x->timeline);
  x->ran_collective = false;
  if (fi < 0 || (uint32_t)fi >= x->prog->n_funcs) return trapf(x, NULL, "no function %d", fi);
  if (x->profile) vm_profile_reset(x->profile, fi);
  const VmFunc *fn = &x->prog->funcs[fi];
  if ((uint32_t)nargs != fn->n_params)
    return trapf(x, NULL, "@%s takes %u arguments, %d given", fn->name, fn->n_params, nargs);
  for (int i = 0; i < nargs; i++)
    if (!vm_type_equal(args[i].type, fn->reg_types[i]))
      return trapf(x, NULL, "argument %d of @%s has the wrong type", i, fn->name);
  VmBuf **a = calloc((size_t)nargs + 1, sizeof(VmBuf *));
  VmBuf **r = calloc(fn->n_results + 1, sizeof(VmBuf *));
  int rc = VM_OK;
  if (!a || !r) rc = trapf(x, NULL, "out of host memory");
  for (int i = 0; i < nargs && rc == VM_OK; i++)
    if (!(a[i] = value_to_buf(x, &args[i], fn->reg_types[i], false))) rc = oom(x, NULL, (uint64_t)fn->reg_types[i]->nbytes);
  if (rc == VM_OK) rc = run_func(x, (uint32_t)fi, a, (uint32_t)nargs, 0, r);
  rc = finish_pending(x, rc);
  for (int i = 0; a && i < nargs; i++) buf_release(x, a[i]);
  if (rc == VM_OK) {
    for (uint32_t i = 0; results && i < fn->n_results; i++)
      if (!buf_to_value(r[i], fn->result_types[i], &results[i])) rc = trapf(x, NULL, "out of host memory");
    for (uint32_t i = 0; i < fn->n_results; i++) buf_release(x, r[i]);
  }
  free(a);
  free(r);
  return rc != VM_OK && x->interrupted ? VM_INTERRUPTED : rc;
}
