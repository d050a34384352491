/* A slice of simulated chips: one host thread per chip, at most
 * VmOptions.threads of them computing at once (a chip that waits gives its
 * turn away), meetings for collectives, channels for send/recv, and exact
 * deadlock detection: when no chip can make progress while one waits, the
 * run ends with a message naming the op and the chips that never came.
 *
 * All shared state lives in one VmFabric under one mutex; every change of
 * it is broadcast on one condition variable.  Chips wait only for each
 * other, so a slice of R*P chips needs no timeout. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vm/chips/fabric.h"

/* ------------------------------------------------------------------ */
/* Fabric. */

VmFabric *vm_fabric_new(int replicas, int partitions, int threads) {
  VmFabric *f = calloc(1, sizeof *f);
  int n = replicas * partitions;
  if (!f || !(f->state = calloc((size_t)n, sizeof(int))) || !(f->execs = calloc((size_t)n, sizeof(VmExec *))) ||
      !(f->wait_done = calloc((size_t)n, sizeof *f->wait_done)) || !(f->wait_arg = calloc((size_t)n, sizeof *f->wait_arg))) {
    if (f) {
      free(f->state);
      free(f->execs);
      free(f->wait_done);
    }
    free(f);
    return NULL;
  }
  pthread_mutex_init(&f->mu, NULL);
  pthread_cond_init(&f->cv, NULL);
  f->nchips = n;
  f->replicas = replicas;
  f->partitions = partitions;
  f->slots = threads < 1 ? 1 : threads;
  f->running = n;
  f->lo = 0;
  f->hi = n;
  f->messages_tail = &f->messages;
  return f;
}

bool fabric_hosts(const VmFabric *f, int chip) { return chip >= f->lo && chip < f->hi; }

/* Frees a meeting and what its remote members brought. */
static void meeting_free(Meeting *m) {
  remote_meeting_free(m);
  for (int k = 0; m->copies && k < m->n; k++) {
    for (uint32_t i = 0; m->copies[k] && i < m->ins->n_in; i++) free(m->copies[k][i].data);
    free(m->copies[k]);
  }
  free(m->copies);
  free(m->deferred);
  free(m->clocks);
  for (int k = 0; m->sigs && k < m->n; k++) free(m->sigs[k].p);
  free(m->sigs);
  free(m->came);
  free(m->wheres);
  free(m->group);
  free(m->in);
  free(m->out);
  free(m);
}

static void message_free(Message *m) {
  for (int i = 0; i < m->n; i++) free(m->data[i]);
  free(m->data);
  free(m->types);
  free(m);
}

/* Readies the fabric for a new run: no messages, meetings or abort. */
void vm_fabric_reset(VmFabric *f) {
  while (f->messages) {
    Message *m = f->messages;
    f->messages = m->next;
    message_free(m);
  }
  f->messages_tail = &f->messages;
  /* Meetings are freed by their last member; only a run whose chips could
   * not all start leaves one behind. */
  while (f->meetings) {
    Meeting *m = f->meetings;
    f->meetings = m->next;
    meeting_free(m);
  }
  f->aborted = false;
  atomic_store(&f->stopped, false);
  f->deadlock[0] = '\0';
  f->running = f->hi - f->lo;
  for (int c = 0; c < f->nchips; c++) f->state[c] = fabric_hosts(f, c) ? CHIP_RUNNING : CHIP_REMOTE;
}

void vm_fabric_free(VmFabric *f) {
  if (!f) return;
  vm_fabric_reset(f);
  remote_free(f);
  pthread_mutex_destroy(&f->mu);
  pthread_cond_destroy(&f->cv);
  free(f->state);
  free(f->execs);
  free(f->wait_done);
  free(f->wait_arg);
  free(f);
}

void vm_fabric_attach(VmFabric *f, int chip, VmExec *x) { f->execs[chip] = x; }
bool vm_fabric_stopped(const VmFabric *f) { return atomic_load_explicit(&f->stopped, memory_order_relaxed); }

VmChipId vm_chip_id(const VmExec *x) {
  const VmFabric *f = vm_exec_fabric(x);
  int c = vm_exec_chip(x);
  if (!f) return (VmChipId){0, 0, 0, 1, 1};
  return (VmChipId){c, c / f->partitions, c % f->partitions, f->replicas, f->partitions};
}

/* Waits on the fabric's condition, giving this chip's compute turn away
 * meanwhile.  Called with the mutex held. */
static void wait_turn(VmFabric *f) {
  f->slots++;
  pthread_cond_broadcast(&f->cv);
  pthread_cond_wait(&f->cv, &f->mu);
  while (f->slots == 0 && !f->aborted) pthread_cond_wait(&f->cv, &f->mu);
  f->slots--;
}

/* Takes a compute turn at the start of a chip's run. */
static void take_turn(VmFabric *f) {
  pthread_mutex_lock(&f->mu);
  while (f->slots == 0 && !f->aborted) pthread_cond_wait(&f->cv, &f->mu);
  f->slots--;
  pthread_mutex_unlock(&f->mu);
}

void fabric_abort_local(VmFabric *f) {
  f->aborted = true;
  atomic_store(&f->stopped, true);
  pthread_cond_broadcast(&f->cv);
}

void fabric_abort_locked(VmFabric *f) {
  bool was = f->aborted;
  fabric_abort_local(f);
  if (!was && f->remote) remote_abort_others(f);
}

/* What chip c is doing, for a deadlock message. */
static void describe_chip(const VmFabric *f, int c, char *buf, size_t n) {
  if (f->state[c] == CHIP_DONE) {
    snprintf(buf, n, "chip %d finished", c);
  } else {
    char where[256];
    vm_exec_where(f->execs[c], where, sizeof where);
    snprintf(buf, n, "chip %d %s %s", c, f->state[c] == CHIP_BLOCKED ? "waits at" : "runs", where);
  }
}

void fabric_append(char *buf, size_t n, size_t *len, const char *fmt, ...) {
  if (*len >= n) return;
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(buf + *len, n - *len, fmt, ap);
  va_end(ap);
  if (k > 0) *len += (size_t)k < n - *len ? (size_t)k : n - *len - 1;
}

/* The meeting chip c has arrived at and waits in, or NULL. */
static Meeting *meeting_of(const VmFabric *f, int c) {
  for (Meeting *m = f->meetings; m; m = m->next) {
    if (m->full) continue;
    for (int k = 0; k < m->n; k++)
      if (m->group[k] == c && m->came[k]) return m;
  }
  return NULL;
}

/* When no chip runs and one waits, nothing can ever change: describe the
 * lowest waiting chip's meeting (or receive) and end the run. */
static void check_deadlock(VmFabric *f) {
  if (f->running > 0 || f->aborted || f->remote) return; /* an MPI job's: rank 0's (remote.c) */
  int c = -1;
  for (int k = 0; k < f->nchips; k++) {
    if (f->state[k] != CHIP_BLOCKED) continue;
    if (f->wait_done[k](f->wait_arg[k])) return; /* it can go on: it just has not woken yet */
    if (c < 0) c = k;
  }
  if (c < 0) return;
  char where[256];
  vm_exec_where(f->execs[c], where, sizeof where);
  size_t len = 0;
  fabric_append(f->deadlock, sizeof f->deadlock, &len, "deadlock: %s on chip %d can never complete", where, c);
  Meeting *m = meeting_of(f, c);
  if (m && m->mismatched && settle_mismatch(f, m)) return; /* its members trap with the mismatch */
  if (m) {
    fabric_append(f->deadlock, sizeof f->deadlock, &len, ": its group is chips {");
    for (int k = 0; k < m->n; k++) fabric_append(f->deadlock, sizeof f->deadlock, &len, "%s%d", k ? ", " : "", m->group[k]);
    fabric_append(f->deadlock, sizeof f->deadlock, &len, "}; did not arrive:");
    int shown = 0;
    for (int k = 0; k < m->n; k++) {
      if (m->came[k]) continue;
      char d[300];
      describe_chip(f, m->group[k], d, sizeof d);
      fabric_append(f->deadlock, sizeof f->deadlock, &len, "%s %s", shown++ ? ";" : "", d);
    }
  } else {
    fabric_append(f->deadlock, sizeof f->deadlock, &len, ": no chip will send on its channel (");
    int shown = 0;
    for (int k = 0; k < f->nchips; k++) {
      if (k == c) continue;
      char d[300];
      describe_chip(f, k, d, sizeof d);
      fabric_append(f->deadlock, sizeof f->deadlock, &len, "%s%s", shown++ ? "; " : "", d);
    }
    fabric_append(f->deadlock, sizeof f->deadlock, &len, "%s)", shown ? "" : "no other chip");
  }
  fabric_abort_locked(f);
}

/* Waits, blocked, until done() or an abort; false after an abort. */
bool fabric_wait_blocked(VmFabric *f, int chip, bool (*done)(const void *), const void *arg) {
  f->state[chip] = CHIP_BLOCKED;
  f->wait_done[chip] = done;
  f->wait_arg[chip] = arg;
  f->running--;
  check_deadlock(f);
  while (!done(arg) && !f->aborted) wait_turn(f);
  f->state[chip] = CHIP_RUNNING;
  f->running++;
  return !f->aborted;
}

/* The trap of a chip whose run ended because of another chip. */
int fabric_aborted_trap(VmExec *x, const VmFabric *f) {
  vm_exec_mark_victim(x);
  if (f->deadlock[0]) return vm_trap(x, "%s", f->deadlock);
  return vm_trap(x, "stopped: another chip failed");
}

/* ------------------------------------------------------------------ */
/* Collectives. */

static bool meeting_full(const void *m) { return ((const Meeting *)m)->full; }

/* The oldest open meeting of (channel, group) that member me has not
 * joined (a member that went on from an asynchronous start may be in an
 * earlier one), created when there is none; NULL when out of memory. */
static Meeting *find_meeting(VmFabric *f, const int *group, int n, int64_t channel, int me) {
  Meeting **pm = &f->meetings;
  for (; *pm; pm = &(*pm)->next) {
    Meeting *m = *pm;
    if (!m->full && m->channel == channel && m->n == n && memcmp(m->group, group, sizeof(int) * (size_t)n) == 0 &&
        !m->came[me])
      return m;
  }
  Meeting *m = calloc(1, sizeof *m);
  if (!m || !(m->group = malloc(sizeof(int) * (size_t)n)) || !(m->in = calloc((size_t)n, sizeof *m->in)) ||
      !(m->out = calloc((size_t)n, sizeof *m->out)) || !(m->came = calloc((size_t)n, sizeof *m->came)) ||
      !(m->wheres = calloc((size_t)n, sizeof *m->wheres)) || !(m->sigs = calloc((size_t)n, sizeof *m->sigs))) {
    if (m) meeting_free(m);
    return NULL;
  }
  memcpy(m->group, group, sizeof(int) * (size_t)n);
  m->n = n;
  m->channel = channel;
  for (int k = 0; k < n; k++) m->nlocal += fabric_hosts(f, group[k]);
  if (m->nlocal < n && (!(m->copies = calloc((size_t)n, sizeof *m->copies)) ||
                        !(m->deferred = calloc((size_t)n, sizeof *m->deferred)) ||
                        !(m->clocks = calloc((size_t)n, sizeof *m->clocks)))) {
    meeting_free(m);
    return NULL;
  }
  *pm = m;
  return m;
}

/* A member leaves; the last one unlinks and frees the meeting. */
static void leave_meeting(VmFabric *f, Meeting *m) {
  if (++m->left < m->local_arrived || !(m->full || f->aborted)) return;
  Meeting **pm = &f->meetings;
  while (*pm != m) pm = &(*pm)->next;
  *pm = m->next;
  meeting_free(m);
}

/* Waits until every member has reached this barrier; false when the
 * meeting failed or the run was aborted. */
static bool barrier(VmFabric *f, Meeting *m) {
  int gen = m->barrier_gen;
  if (++m->barrier_count == m->nlocal - m->ndeferred) {
    m->barrier_count = 0;
    m->barrier_gen++;
    pthread_cond_broadcast(&f->cv);
  } else {
    while (m->barrier_gen == gen && !m->failed && !f->aborted) wait_turn(f);
  }
  return !m->failed && !f->aborted;
}

/* Chip of id `id` of a permute pair: a replica id in this chip's
 * partition (mode 0) or a partition id in its replica (mode 1). */
static int pair_chip(const VmChipId *me, int mode, int64_t id) {
  return mode == 0 ? (int)id * me->partitions + me->partition : me->replica * me->partitions + (int)id;
}

/* Modeled time of the executing collective among the meeting's members on
 * the slices' tori and the DCN between them (common/ici.h). */
static IciTime collective_time(const VmFabric *f, const VmExec *x, const Meeting *m) {
  const VmInstr *ins = m->ins;
  const VmFunc *fn = m->func;
  double in_bytes = 0, out_bytes = 0;
  for (uint32_t i = 0; i < ins->n_in; i++) in_bytes += (double)fn->reg_types[ins->in[i]]->nbytes;
  for (uint32_t i = 0; i < ins->n_out; i++) out_bytes += (double)fn->reg_types[ins->out[i]]->nbytes;
  IciCollective kind;
  double bytes = in_bytes;
  IciFabric net = {f->mesh, f->slices, f->link_bytes_per_s, f->hop_s, f->dcn_bytes_per_s, f->dcn_s};
  const int *chips = m->group;
  int n = m->n, *ends = NULL;
  switch (ins->opcode) {
  case VM_OP_ALL_GATHER: kind = ICI_ALL_GATHER, bytes = out_bytes; break;
  case VM_OP_REDUCE_SCATTER: kind = ICI_REDUCE_SCATTER; break;
  case VM_OP_ALL_TO_ALL: kind = ICI_ALL_TO_ALL; break;
  case VM_OP_COLLECTIVE_BROADCAST: kind = ICI_COLLECTIVE_BROADCAST; break;
  case VM_OP_COLLECTIVE_PERMUTE: {
    int64_t len;
    const int64_t *pairs = vm_field_list(ins, 0, &len);
    int mode = (int)vm_field_int(ins, 1);
    VmChipId me = vm_chip_id(x);
    if (!(ends = malloc(sizeof(int) * ((size_t)len + 1)))) return (IciTime){0, 0, 0};
    for (int64_t i = 0; i < len; i++) {
      int c = pair_chip(&me, mode, pairs[i]);
      ends[i] = c >= 0 && c < f->nchips ? c : -1;
    }
    kind = ICI_COLLECTIVE_PERMUTE, chips = ends, n = (int)len;
    break;
  }
  default: kind = ICI_ALL_REDUCE; break; /* all_reduce, cross_replica_sum, collective_reduce */
  }
  int *scratch = malloc(sizeof(int) * ((size_t)n + 1));
  IciTime t = {0, 0, 0};
  if (scratch) t = ici_fabric_seconds(kind, bytes, chips, n, &net, scratch);
  free(scratch);
  free(ends);
  return t;
}

/* Puts the meeting's collective on the chip's timeline. */
static void charge_collective(const VmFabric *f, VmExec *x, const Meeting *m) {
  IciTime t = collective_time(f, x, m);
  vm_exec_collective_ran(x, m->start_s, t.total_s, t.dcn_s);
}

/* This chip's position in group (*me), after checking that the group
 * names distinct chips of the slice. */
static int group_position(VmExec *x, VmChipId id, const int *group, int n, int *me) {
  int chips = id.replicas * id.partitions;
  *me = -1;
  for (int k = 0; k < n; k++) {
    if (group[k] < 0 || group[k] >= chips)
      return vm_trap(x, "its group names chip %d, but the slice has %d chip%s", group[k], chips, chips == 1 ? "" : "s");
    for (int j = 0; j < k; j++)
      if (group[j] == group[k]) return vm_trap(x, "its group names chip %d twice", group[k]);
    if (group[k] == id.chip) *me = k;
  }
  if (*me < 0) return vm_trap(x, "internal error: chip %d is not in its own group", id.chip);
  return VM_OK;
}

bool fabric_same_signature(const Buf *a, const Buf *b) { return a->len == b->len && memcmp(a->p, b->p, a->len) == 0; }

void fabric_member_came(VmFabric *f, Meeting *m, int k) {
  m->came[k] = true;
  /* The first member that came is this process's first (a meeting opens
   * with it): members differ iff one differs from it. */
  if (!fabric_same_signature(&m->sigs[m->first_member], &m->sigs[k])) m->mismatched = true;
  if (++m->arrived < m->n) return;
  m->full = true;
  if (m->mismatched) settle_mismatch(f, m);
  pthread_cond_broadcast(&f->cv);
}

bool settle_mismatch(VmFabric *f, Meeting *m) {
  int l = -1, d = -1;
  for (int k = 0; k < m->n; k++)
    if (m->came[k] && (l < 0 || m->group[k] < m->group[l])) l = k;
  for (int k = 0; l >= 0 && k < m->n; k++)
    if (m->came[k] && !fabric_same_signature(&m->sigs[k], &m->sigs[l]) && (d < 0 || m->group[k] < m->group[d])) d = k;
  if (d < 0) return false;
  snprintf(m->mismatch, sizeof m->mismatch,
           "does not match its group: chip %d is at %s, chip %d at %s, with other operand or result types",
           m->group[l], m->wheres[l], m->group[d], m->wheres[d]);
  m->failed = true;
  if (f->remote && !f->aborted) remote_abort_mismatch(f, m);
  fabric_abort_locked(f);
  return true;
}

/* Waits until every member of m has come; leaves it after an abort (its
 * mismatch, or another chip's failure, is the trap).  Called with f->mu
 * held; releases it. */
static int await_meeting(VmFabric *f, VmExec *x, Meeting *m) {
  int chip = vm_exec_chip(x);
  if (!m->full && f->remote) remote_waits(f, chip, m, 0);
  if ((!m->full && !fabric_wait_blocked(f, chip, meeting_full, m)) || m->failed) {
    char mismatch[sizeof m->mismatch];
    snprintf(mismatch, sizeof mismatch, "%s", m->mismatch);
    leave_meeting(f, m);
    pthread_mutex_unlock(&f->mu);
    return mismatch[0] ? vm_trap(x, "%s", mismatch) : fabric_aborted_trap(x, f);
  }
  pthread_mutex_unlock(&f->mu);
  return VM_OK;
}

/* A copy of an instruction's operands (a meeting of an MPI job keeps its
 * members' own); NULL when out of memory. */
static VmTensor *copy_operands(const VmInstr *ins, const VmTensor *in) {
  VmTensor *c = calloc((size_t)ins->n_in + 1, sizeof *c);
  for (uint32_t i = 0; c && i < ins->n_in; i++) {
    size_t bytes = (size_t)in[i].type->nbytes;
    c[i].type = in[i].type;
    if (!(c[i].data = aligned_alloc(64, (bytes + 64) & ~(size_t)63))) {
      for (uint32_t j = 0; j < i; j++) free(c[j].data);
      free(c);
      return NULL;
    }
    if (bytes) memcpy(c[i].data, in[i].data, bytes);
  }
  return c;
}

/* Brings this chip, member me of group, to its meeting with its operands
 * and results, and waits until every member has come; *mp is the meeting
 * when it returns VM_OK.  Takes and releases f->mu. */
static int join_meeting(VmFabric *f, VmExec *x, const int *group, int n, int64_t channel, int me, const VmTensor *in,
                        VmTensor *out, bool defer, Meeting **mp) {
  const VmInstr *ins = vm_exec_instr(x);
  const VmFunc *func = vm_exec_func(x);
  pthread_mutex_lock(&f->mu);
  if (f->aborted) {
    pthread_mutex_unlock(&f->mu);
    return fabric_aborted_trap(x, f);
  }
  Meeting *m = find_meeting(f, group, n, channel, me);
  VmTensor *copy = NULL;
  if (m && m->copies && !(copy = copy_operands(ins, in))) m = NULL;
  if (!m) {
    fabric_abort_locked(f);
    pthread_mutex_unlock(&f->mu);
    return vm_trap(x, "out of host memory");
  }
  if (copy) m->copies[me] = copy;
  m->in[me] = copy ? copy : in;
  m->out[me] = defer ? NULL : out;
  if (defer) m->deferred[me] = true, m->ndeferred++;
  double clock = vm_exec_clock(x);
  if (clock > m->start_s) m->start_s = clock;
  if (m->clocks) m->clocks[me] = clock;
  vm_exec_where(x, m->wheres[me], WHERE_LEN);
  fabric_signature(&m->sigs[me], func, ins);
  if (m->sigs[me].failed) {
    fabric_abort_locked(f);
    pthread_mutex_unlock(&f->mu);
    return vm_trap(x, "out of host memory");
  }
  m->local_arrived++;
  bool first = !m->ins;
  if (first) { /* the first member of this process */
    m->ins = ins;
    m->func = func;
    m->first_member = me;
  }
  fabric_member_came(f, m, me);
  if (first && f->remote) remote_meeting_opened(f, m);
  if (m->nlocal < n && m->local_arrived == m->nlocal) remote_contribute(f, m);
  *mp = m;
  if (defer) {
    pthread_mutex_unlock(&f->mu);
    return VM_OK;
  }
  return await_meeting(f, x, m);
}

/* Whether member k runs its phases with the others now: hosted here and
 * not deferred to its async_done. */
static bool present(const VmFabric *f, const Meeting *m, int k) {
  return fabric_hosts(f, m->group[k]) && !(m->deferred && m->deferred[k]);
}

/* Whether member me runs the phases of m's absent members (shadows): the
 * first present member, when later phases read results. */
static bool runs_shadows(const VmFabric *f, const Meeting *m, int me, int nphases) {
  if (!f->remote || m->nlocal - m->ndeferred == m->n || nphases < 2) return false;
  int k = 0;
  while (!present(f, m, k)) k++;
  return k == me;
}

/* Phase p of every absent member of m, into its shadow results. */
static bool run_shadow_phase(const VmFabric *f, VmExec *x, const Meeting *m, const VmMeeting *view, int p, VmPhaseFn fn,
                             void *ctx) {
  for (int k = 0; k < m->n; k++) {
    if (present(f, m, k)) continue;
    VmMeeting shadow = *view;
    shadow.me = k;
    if (fn(x, &shadow, p, ctx) != VM_OK) return false;
  }
  return true;
}

/* Runs the phases of a full meeting, every member passing a barrier after
 * each; a failing member aborts the slice.  Then leaves the meeting. */
static int run_phases(VmFabric *f, VmExec *x, Meeting *m, const VmMeeting *view, int nphases, VmPhaseFn fn,
                      void *ctx) {
  int rc = VM_OK;
  bool shadows = runs_shadows(f, m, view->me, nphases);
  if (shadows && !remote_shadows(m, view->out[view->me], (int)m->ins->n_out)) {
    vm_trap(x, "out of host memory");
    pthread_mutex_lock(&f->mu);
    m->failed = true;
    fabric_abort_locked(f);
    leave_meeting(f, m);
    pthread_mutex_unlock(&f->mu);
    return VM_TRAP;
  }
  for (int p = 0; p < nphases; p++) {
    bool ok = fn(x, view, p, ctx) == VM_OK;
    if (ok && shadows && p < nphases - 1) ok = run_shadow_phase(f, x, m, view, p, fn, ctx);
    pthread_mutex_lock(&f->mu);
    if (!ok) {
      m->failed = true;
      fabric_abort_locked(f);
    }
    bool go = barrier(f, m);
    pthread_mutex_unlock(&f->mu);
    if (!ok) {
      rc = VM_TRAP;
      break;
    }
    if (!go) {
      rc = fabric_aborted_trap(x, f);
      break;
    }
  }
  pthread_mutex_lock(&f->mu);
  leave_meeting(f, m);
  pthread_mutex_unlock(&f->mu);
  return rc;
}

/* ------------------------------------------------------------------ */
/* Deferred meetings.  In an MPI job an asynchronous collective (the
 * TPUB_INSTR_ASYNC start of a tpu.async_start/async_done pair) whose group
 * spans processes does not wait at its start: the member arrives (its
 * operands copied into the meeting and sent to the other processes) and
 * the chip goes on computing while the transport moves them.  At its
 * async_done the interpreter runs the kernel again in completion mode
 * (vm_exec_completing): the member waits for the group, then computes its
 * own results alone, running every other member's phases but the last
 * into private scratch, so it needs no barrier with members that may be
 * elsewhere by then and folds exactly what one process folds. */

static bool spans_processes(const VmFabric *f, const int *group, int n) {
  for (int k = 0; k < n; k++)
    if (!fabric_hosts(f, group[k])) return true;
  return false;
}

/* Member me of meeting m computes its results out by itself. */
static int complete_alone(VmExec *x, Meeting *m, int me, VmTensor *out, int nphases, VmPhaseFn fn, void *ctx) {
  uint32_t nout = m->ins->n_out;
  VmTensor *scratch = calloc((size_t)m->n * nout + 1, sizeof *scratch);
  VmTensor **outs = calloc((size_t)m->n, sizeof *outs);
  bool ok = scratch && outs;
  for (int k = 0; ok && k < m->n; k++) {
    outs[k] = k == me ? out : scratch + (size_t)k * nout;
    for (uint32_t i = 0; k != me && ok && i < nout; i++) {
      outs[k][i].type = out[i].type;
      ok = (outs[k][i].data = aligned_alloc(64, ((size_t)out[i].type->nbytes + 64) & ~(size_t)63)) != NULL;
    }
  }
  VmMeeting view = {m->n, me, m->group, m->in, outs, m->start_s};
  for (int p = 0; ok && p < nphases; p++)
    for (int k = 0; ok && k < m->n; k++) {
      if (p == nphases - 1 && k != me) continue;
      view.me = k;
      ok = fn(x, &view, p, ctx) == VM_OK;
    }
  for (size_t i = 0; scratch && i < (size_t)m->n * nout; i++) free(scratch[i].data);
  free(scratch);
  free(outs);
  if (!ok && !vm_error(x)[0]) vm_trap(x, "out of host memory");
  return ok ? VM_OK : VM_TRAP;
}

/* The completion of a deferred member at its async_done. */
static int complete_deferred(VmFabric *f, VmExec *x, Meeting *m, int me, VmTensor *out, int nphases, VmPhaseFn fn,
                             void *ctx) {
  pthread_mutex_lock(&f->mu);
  if (f->aborted) {
    leave_meeting(f, m);
    pthread_mutex_unlock(&f->mu);
    return fabric_aborted_trap(x, f);
  }
  int rc = await_meeting(f, x, m);
  if (rc != VM_OK) return rc;
  charge_collective(f, x, m);
  rc = complete_alone(x, m, me, out, nphases, fn, ctx);
  pthread_mutex_lock(&f->mu);
  if (rc != VM_OK) fabric_abort_locked(f);
  leave_meeting(f, m);
  pthread_mutex_unlock(&f->mu);
  return rc;
}

const VmTensor *vm_meeting_inputs(const void *meeting, int chip) {
  const Meeting *m = meeting;
  for (int k = 0; k < m->n; k++)
    if (m->group[k] == chip) return m->in[k];
  return NULL;
}

void vm_meeting_abandon(VmExec *x, void *meeting) {
  VmFabric *f = vm_exec_fabric(x);
  pthread_mutex_lock(&f->mu);
  leave_meeting(f, meeting);
  pthread_mutex_unlock(&f->mu);
}

int vm_collective(VmExec *x, const int *group, int n, int64_t channel, const VmTensor *in, VmTensor *out,
                  int nphases, VmPhaseFn fn, void *ctx) {
  VmFabric *f = vm_exec_fabric(x);
  int me;
  int rc = group_position(x, vm_chip_id(x), group, n, &me);
  if (rc != VM_OK) return rc;
  if (!f) {
    /* One chip alone: a group of one meets at once. */
    const VmTensor *ins[1] = {in};
    VmTensor *outs[1] = {out};
    VmMeeting view = {1, 0, group, ins, outs, vm_exec_clock(x)};
    for (int p = 0; p < nphases; p++)
      if (fn(x, &view, p, ctx) != VM_OK) return VM_TRAP;
    return VM_OK;
  }
  void *deferred = vm_exec_completing(x);
  if (deferred) return complete_deferred(f, x, deferred, me, out, nphases, fn, ctx);
  bool defer = f->remote && (vm_exec_instr(x)->flags & TPUB_INSTR_ASYNC) && spans_processes(f, group, n);
  Meeting *m = NULL;
  if ((rc = join_meeting(f, x, group, n, channel, me, in, out, defer, &m)) != VM_OK) return rc;
  if (defer) {
    vm_exec_defer(x, m);
    return VM_OK;
  }
  charge_collective(f, x, m);
  VmMeeting view = {n, me, m->group, m->in, m->out, m->start_s};
  return run_phases(f, x, m, &view, nphases, fn, ctx);
}

/* ------------------------------------------------------------------ */
/* Channels. */

typedef struct RecvWait {
  const VmFabric *f;
  int64_t channel;
} RecvWait;

static bool message_ready(const void *arg) {
  const RecvWait *w = arg;
  for (const Message *m = w->f->messages; m; m = m->next)
    if (m->channel == w->channel) return true;
  return false;
}

int vm_channel_send(VmExec *x, int64_t channel, const VmTensor *in, int nin) {
  VmFabric *f = vm_exec_fabric_or_solo(x);
  if (!f) return vm_trap(x, "out of host memory");
  if (f->remote) return remote_channel_send(f, x, channel, in, nin);
  Message *m = calloc(1, sizeof *m);
  if (m) {
    m->channel = channel;
    m->types = calloc((size_t)nin + 1, sizeof *m->types);
    m->data = calloc((size_t)nin + 1, sizeof *m->data);
  }
  if (!m || !m->types || !m->data) {
    if (m) message_free(m);
    return vm_trap(x, "out of host memory");
  }
  for (int i = 0; i < nin; i++) {
    size_t bytes = (size_t)in[i].type->nbytes;
    m->types[i] = in[i].type;
    if (!(m->data[i] = malloc(bytes + 1))) {
      message_free(m);
      return vm_trap(x, "out of host memory");
    }
    m->n = i + 1;
    if (bytes) memcpy(m->data[i], in[i].data, bytes);
  }
  m->n = nin;
  pthread_mutex_lock(&f->mu);
  *f->messages_tail = m;
  f->messages_tail = &m->next;
  pthread_cond_broadcast(&f->cv);
  pthread_mutex_unlock(&f->mu);
  return VM_OK;
}

int vm_channel_recv(VmExec *x, int64_t channel, VmTensor *out, int nout) {
  VmFabric *f = vm_exec_fabric_or_solo(x);
  if (!f) return vm_trap(x, "out of host memory");
  if (f->remote) return remote_channel_recv(f, x, channel, out, nout);
  int chip = vm_exec_chip(x);
  RecvWait w = {f, channel};
  pthread_mutex_lock(&f->mu);
  if (f->aborted || (!message_ready(&w) && !fabric_wait_blocked(f, chip, message_ready, &w))) {
    pthread_mutex_unlock(&f->mu);
    return fabric_aborted_trap(x, f);
  }
  Message **pm = &f->messages;
  while ((*pm)->channel != channel) pm = &(*pm)->next;
  Message *m = *pm;
  *pm = m->next;
  if (f->messages_tail == &m->next) f->messages_tail = pm;
  pthread_mutex_unlock(&f->mu);
  int rc = VM_OK;
  if (m->n != nout) {
    rc = vm_trap(x, "receives %d values on channel %lld, but %d were sent", nout, (long long)channel, m->n);
  } else {
    for (int i = 0; i < nout && rc == VM_OK; i++) {
      if (!vm_type_equal(m->types[i], out[i].type))
        rc = vm_trap(x, "value %d received on channel %lld has another type than was sent", i, (long long)channel);
      else if (out[i].type->nbytes)
        memcpy(out[i].data, m->data[i], (size_t)out[i].type->nbytes);
    }
  }
  message_free(m);
  return rc;
}

/* ------------------------------------------------------------------ */
/* Slices. */

VmSlice *vm_slice_new(const VmProgram *p, const VmOptions *opts, const VmMesh *mesh) {
  int n = mesh->replicas * mesh->partitions;
  if (mesh->replicas < 1 || mesh->partitions < 1 || n > VM_MAX_CHIPS) return NULL;
  VmMpi *mpi = opts ? opts->mpi : NULL;
  int lo = 0, hi = n;
  char why[256];
  if (mpi && !vm_mpi_share(mpi, n, &lo, &hi, why, sizeof why)) return NULL;
  VmSlice *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->nchips = n;
  s->mesh = *mesh;
  s->mpi = mpi;
  int threads = opts && opts->threads > 0 ? opts->threads : 1;
  s->fabric = vm_fabric_new(mesh->replicas, mesh->partitions, threads);
  s->execs = calloc((size_t)n, sizeof(VmExec *));
  s->gathered = calloc((size_t)n, sizeof *s->gathered);
  if (!s->fabric || !s->execs || !s->gathered) {
    vm_slice_free(s);
    return NULL;
  }
  s->fabric->lo = lo;
  s->fabric->hi = hi;
  s->fabric->running = hi - lo;
  int torus_dims = opts && opts->torus_dims == 3 ? 3 : 2;
  int slices = opts && opts->slices > 1 ? opts->slices : 1; /* the mesh is one slice's */
  if (n % slices) {
    vm_slice_free(s);
    return NULL;
  }
  if (mesh->ndims == 0) {
    ici_default_mesh(n / slices, torus_dims, &s->fabric->mesh);
    s->mesh.ndims = s->fabric->mesh.ndims;
    memcpy(s->mesh.dims, s->fabric->mesh.dims, sizeof s->mesh.dims);
  } else if (!ici_mesh_init(&s->fabric->mesh, mesh->ndims, mesh->dims, torus_dims) ||
             ici_mesh_chips(&s->fabric->mesh) != n / slices) {
    vm_slice_free(s);
    return NULL;
  }
  s->fabric->link_bytes_per_s = opts ? opts->ici_link_bytes_per_s : 0;
  s->fabric->hop_s = opts ? opts->ici_hop_s : 0;
  s->fabric->slices = slices;
  s->fabric->dcn_bytes_per_s = opts ? opts->dcn_bytes_per_s : 0;
  s->fabric->dcn_s = opts ? opts->dcn_s : 0;
  /* Chips share the host threads: each kernel gets its share. */
  VmOptions chip_opts = opts ? *opts : (VmOptions){0};
  chip_opts.threads = threads / (hi - lo) > 1 ? threads / (hi - lo) : 1;
  for (int c = lo; c < hi; c++) {
    chip_opts.profile = opts && opts->profile && c == 0; /* tpurun --profile prints chip 0's */
    if (!(s->execs[c] = vm_exec_new(p, &chip_opts))) {
      vm_slice_free(s);
      return NULL;
    }
    vm_exec_attach(s->execs[c], s->fabric, c);
    vm_fabric_attach(s->fabric, c, s->execs[c]);
  }
  return s;
}

void vm_slice_free(VmSlice *s) {
  if (!s) return;
  for (int c = 0; s->execs && c < s->nchips; c++) vm_exec_free(s->execs[c]);
  slice_gathered_free(s);
  free(s->execs);
  vm_fabric_free(s->fabric);
  free(s);
}

VmExec *vm_slice_exec(VmSlice *s, int chip) { return s->execs[chip]; }
bool vm_slice_hosts(const VmSlice *s, int chip) { return s->execs[chip] != NULL; }

VmCheckStats vm_slice_check_stats(const VmSlice *s, int chip) {
  return s->execs[chip] ? vm_check_stats(s->execs[chip]) : s->gathered[chip].stats;
}

uint64_t vm_slice_peak_hbm_bytes(const VmSlice *s, int chip) {
  return s->execs[chip] ? vm_peak_hbm_bytes(s->execs[chip]) : s->gathered[chip].peak_hbm;
}

const VmTimeline *vm_slice_timeline(const VmSlice *s, int chip) {
  return s->execs[chip] ? vm_exec_timeline(s->execs[chip]) : &s->gathered[chip].timeline;
}
const char *vm_slice_error(const VmSlice *s) { return s->error; }
void vm_slice_set_deadline(VmSlice *s, double deadline_s) {
  s->deadline_s = deadline_s;
  s->deadline_fixed = true;
}

typedef struct ChipRun {
  VmSlice *s;
  int chip, fn, nargs, rc;
  const VmValue *args;
  VmValue *results;
} ChipRun;

static void *chip_main(void *arg) {
  ChipRun *r = arg;
  VmFabric *f = r->s->fabric;
  take_turn(f);
  r->rc = vm_run(r->s->execs[r->chip], r->fn, r->args, r->nargs, r->results);
  pthread_mutex_lock(&f->mu);
  f->slots++;
  f->state[r->chip] = CHIP_DONE;
  f->running--;
  if (r->rc != VM_OK && !vm_exec_is_victim(r->s->execs[r->chip])) fabric_abort_locked(f);
  check_deadlock(f);
  pthread_cond_broadcast(&f->cv);
  pthread_mutex_unlock(&f->mu);
  return NULL;
}

/* The run's message and status from every chip's outcome: the lowest
 * chip's own error, else (a deadlock) the lowest failed chip's: the same
 * whatever the threads' timing or the processes. */
static int slice_outcome(VmSlice *s, const ChipOutcome *out) {
  int rc = VM_OK;
  bool interrupted = false;
  for (int c = 0; c < s->nchips && !s->error[0]; c++)
    if (out[c].rc != VM_OK && !out[c].victim) {
      snprintf(s->error, sizeof s->error, "%s", out[c].error);
      interrupted = out[c].rc == VM_INTERRUPTED;
    }
  for (int c = 0; c < s->nchips && !s->error[0]; c++)
    if (out[c].rc != VM_OK) snprintf(s->error, sizeof s->error, "%s", out[c].error);
  for (int c = 0; c < s->nchips; c++)
    if (out[c].rc != VM_OK) rc = VM_TRAP;
  if (rc != VM_OK && !s->error[0]) snprintf(s->error, sizeof s->error, "error: a chip failed");
  return interrupted ? VM_INTERRUPTED : rc;
}

/* Starts this process's chips and waits for them; out[c].rc and victim. */
static void run_chips(VmSlice *s, const int *fns, const VmValue *const *args, VmValue *const *results,
                      ChipRun *runs, pthread_t *threads, ChipOutcome *out) {
  VmFabric *f = s->fabric;
  for (int c = f->lo; c < f->hi; c++) {
    const VmProgram *p = vm_exec_program(s->execs[c]);
    const VmFunc *fn = fns[c] >= 0 && (uint32_t)fns[c] < p->n_funcs ? &p->funcs[fns[c]] : NULL;
    runs[c] = (ChipRun){s, c, fns[c], fn ? (int)fn->n_params : 0, VM_OK, args[c], results ? results[c] : NULL};
    out[c].started = pthread_create(&threads[c], NULL, chip_main, &runs[c]) == 0;
    if (!out[c].started) {
      /* A chip that cannot start is a chip that never arrives. */
      pthread_mutex_lock(&f->mu);
      f->state[c] = CHIP_DONE;
      f->running--;
      runs[c].rc = VM_TRAP;
      snprintf(s->error, sizeof s->error, "error: cannot start a host thread for chip %d", c);
      fabric_abort_locked(f);
      pthread_mutex_unlock(&f->mu);
    }
  }
  for (int c = f->lo; c < f->hi; c++) {
    if (out[c].started) pthread_join(threads[c], NULL);
    out[c].rc = runs[c].rc;
    out[c].victim = vm_exec_is_victim(s->execs[c]);
    out[c].error = vm_error(s->execs[c]);
  }
}

int vm_slice_run(VmSlice *s, const int *fns, const VmValue *const *args, VmValue *const *results) {
  VmFabric *f = s->fabric;
  int n = s->nchips;
  s->error[0] = '\0';
  vm_fabric_reset(f);
  double timeout = vm_exec_options(s->execs[f->lo])->timeout_s, deadline = s->deadline_s;
  if (!s->deadline_fixed && timeout > 0) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts); /* the clock of vm_exec_set_deadline */
    deadline = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec + timeout;
  }
  for (int c = f->lo; c < f->hi; c++) {
    vm_exec_reset_chip(s->execs[c]);
    vm_exec_set_deadline(s->execs[c], deadline);
  }
  ChipRun *runs = calloc((size_t)n, sizeof *runs);
  pthread_t *threads = calloc((size_t)n, sizeof *threads);
  ChipOutcome *out = calloc((size_t)n, sizeof *out);
  if (!runs || !threads || !out || (s->mpi && !remote_begin(f, s->mpi))) {
    if (s->mpi) die("out of host memory starting %d chips", n); /* the other processes cannot go on alone */
    free(runs);
    free(threads);
    free(out);
    snprintf(s->error, sizeof s->error, "error: out of host memory starting %d chips", n);
    return VM_TRAP;
  }
  run_chips(s, fns, args, results, runs, threads, out);
  if (s->mpi) {
    slice_gather(s, fns, out, results);
    remote_end(f);
  }
  int rc = slice_outcome(s, out);
  /* Results of a failed run are not handed out. */
  for (int c = f->lo; rc != VM_OK && results && c < f->hi; c++) {
    if (runs[c].rc != VM_OK || !results[c]) continue;
    const VmFunc *fn = &vm_exec_program(s->execs[c])->funcs[fns[c]];
    for (uint32_t i = 0; i < fn->n_results; i++) vm_value_free(&results[c][i]);
  }
  free(out);
  free(runs);
  free(threads);
  return rc;
}
