/* A slice spread over the processes of an MPI job (DESIGN.md §10): process
 * p hosts the chips [p*C, (p+1)*C); the packets below travel on the
 * transport of vm/chips/mpi.c.
 *
 * Collectives.  When every member a process hosts has come to a meeting,
 * the process sends their operands (a contribution) to the processes of
 * the other members.  Once it holds every member's operands it runs the
 * meeting's phases as one process does, and the phases of the other
 * processes' members but the last (shadow members, into scratch results),
 * so every member folds the same operands in the same order: the bits do
 * not depend on the process count.  Meetings of one (channel, group) are
 * numbered in the order they open, the same on every process.
 *
 * Channels.  Rank 0 keeps every channel's queue (the broker): a send goes
 * there, a receive asks there and gets the oldest message.
 *
 * Deadlocks.  A process is quiet when none of its chips runs or can go on.
 * Each reports its quietness and its counts of data packets sent and
 * received to rank 0 whenever they change.  When every process is quiet
 * and as many packets were received as sent, rank 0 asks every process to
 * describe its chips; if each is still quiet with the same counts, no
 * packet was in flight and none can ever be sent (Mattern's four
 * counters): rank 0 writes the message a single process would write and
 * tells every process to end the run with it.  A chip that fails tells
 * the other processes to stop theirs. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vm/chips/fabric.h"

_Noreturn void remote_die(const char *file, int line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "tpurun: internal error at %s:%d: ", file, line);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  abort();
}

enum PacketKind {
  PK_CONTRIB = 1,  /* a process's members' operands for a meeting */
  PK_SEND,         /* stablehlo.send, to the broker */
  PK_RECV,         /* a chip asks the broker for its channel's oldest message */
  PK_DELIVER,      /* the broker's answer */
  PK_STATUS,       /* quietness and counts, to rank 0 */
  PK_DESCRIBE_REQ, /* rank 0 asks for every chip's state */
  PK_DESCRIBE,     /* the answer */
  PK_ABORT,        /* end the run (a chip failed, or the deadlock message) */
};

/* Packets that carry the program's data, counted for the deadlock check. */
static bool is_data(int kind) { return kind >= PK_CONTRIB && kind <= PK_DELIVER; }

/* How many meetings of one (channel, group) this process has opened. */
typedef struct KeyCount {
  struct KeyCount *next;
  int64_t channel;
  int n;
  int *group;
  uint64_t count;
} KeyCount;

/* A received packet kept for later. */
typedef struct Kept {
  struct Kept *next;
  int64_t channel;
  int chip; /* PK_RECV: the asking chip; PK_DELIVER: the receiver */
  unsigned char *payload;
  size_t len;
} Kept;

/* What a chip of this process waits for (for a deadlock report). */
typedef struct ChipWait {
  const Meeting *meeting; /* NULL: a receive on channel */
  int64_t channel;
} ChipWait;

/* A process's last report, at rank 0. */
typedef struct ProcStatus {
  bool valid, quiet;
  int blocked;
  uint64_t sent, received;
} ProcStatus;

struct Remote {
  VmMpi *mpi;
  uint64_t run;
  int rank, size, per; /* chips per process */
  uint64_t sent, received;
  ProcStatus reported; /* this process's last report */
  KeyCount *keys;
  Kept *contribs;   /* contributions for meetings not open yet */
  Kept *deliveries; /* messages for this process's receivers */
  ChipWait *waits;  /* per chip */
  /* Rank 0: the broker's queues and the deadlock check. */
  Kept *queued, *asks;
  ProcStatus *status, *snapshot;
  unsigned char **replies;
  size_t *reply_len;
  int nreplies;
  uint64_t epoch;
  bool describing;
};

/* ------------------------------------------------------------------ */
/* Encoding. */

/* A type's signature: kind, element, rank, dims. */
static void put_type(Buf *b, const VmType *t) {
  buf_i64(b, t->kind);
  buf_i64(b, t->kind == TPUB_TY_TENSOR ? t->elem : 0);
  buf_i64(b, t->kind == TPUB_TY_TENSOR ? t->rank : 0);
  for (int d = 0; t->kind == TPUB_TY_TENSOR && d < t->rank; d++) buf_i64(b, t->dims[d]);
}

/* Whether the next signature in r is t's. */
static bool type_matches(Rd *r, const VmType *t) {
  int64_t kind = rd_i64(r), elem = rd_i64(r), rank = rd_i64(r);
  bool same = kind == t->kind && (kind != TPUB_TY_TENSOR || (elem == t->elem && rank == t->rank));
  for (int64_t d = 0; d < rank; d++) {
    int64_t v = rd_i64(r);
    if (same && kind == TPUB_TY_TENSOR && v != t->dims[d]) same = false;
  }
  return same;
}

/* Copies b into a packet and posts it (b is cleared); false when out of
 * memory. */
static bool post_buf(VmFabric *f, const int *to, int nto, int kind, Buf *b) {
  Remote *rm = f->remote;
  size_t len = b->len;
  unsigned char *payload = b->failed ? NULL : vm_mpi_packet(len);
  if (payload && len) memcpy(payload, b->p, len);
  free(b->p);
  *b = (Buf){0};
  if (!payload) return false;
  if (is_data(kind)) rm->sent += (uint64_t)nto;
  vm_mpi_post(rm->mpi, to, nto, rm->run, kind, payload, len);
  return true;
}

static int proc_of(const Remote *rm, int chip) { return chip / rm->per; }

/* The job cannot go on without a packet it could not build. */
static _Noreturn void out_of_memory(VmFabric *f) {
  fprintf(stderr, "tpurun: out of host memory building a packet for the other processes; ending the job\n");
  vm_mpi_abort(f->remote->mpi, 4);
}

/* ------------------------------------------------------------------ */
/* Collectives. */

/* Member k's operand and result tensors in m->remote. */
static VmTensor *remote_tensors(Meeting *m, int k) {
  return m->remote + (size_t)k * (m->ins->n_in + m->ins->n_out);
}

void fabric_signature(Buf *b, const VmFunc *fn, const VmInstr *ins) {
  b->len = 0;
  buf_i64(b, ins->opcode);
  buf_i64(b, ins->n_in);
  buf_i64(b, ins->n_out);
  for (uint32_t i = 0; i < ins->n_in; i++) put_type(b, fn->reg_types[ins->in[i]]);
  for (uint32_t i = 0; i < ins->n_out; i++) put_type(b, fn->reg_types[ins->out[i]]);
}

/* A contribution: the meeting's key, then each local member's index,
 * clock, location and signature, then (when they all match the meeting's)
 * their operands. */
void remote_contribute(VmFabric *f, Meeting *m) {
  Remote *rm = f->remote;
  const VmInstr *ins = m->ins;
  Buf b = {0};
  buf_i64(&b, m->channel);
  buf_i64(&b, (int64_t)m->seq);
  buf_i64(&b, m->n);
  for (int k = 0; k < m->n; k++) buf_i64(&b, m->group[k]);
  buf_i64(&b, m->nlocal);
  bool same = true;
  for (int k = 0; k < m->n; k++) {
    if (!fabric_hosts(f, m->group[k])) continue;
    buf_i64(&b, k);
    buf_put(&b, &m->clocks[k], sizeof m->clocks[k]);
    buf_put(&b, m->wheres[k], WHERE_LEN);
    buf_i64(&b, (int64_t)m->sigs[k].len);
    buf_put(&b, m->sigs[k].p, m->sigs[k].len);
    same &= fabric_same_signature(&m->sigs[k], &m->sigs[m->first_member]);
  }
  /* Operands only when this process's members agree (else the meeting
   * fails everywhere and nobody reads them). */
  buf_i64(&b, same);
  for (int k = 0; same && k < m->n; k++) {
    if (!fabric_hosts(f, m->group[k])) continue;
    for (uint32_t i = 0; i < ins->n_in; i++) {
      buf_pad64(&b);
      buf_put(&b, m->in[k][i].data, (size_t)m->in[k][i].type->nbytes);
    }
  }
  int to[VM_MAX_CHIPS], nto = 0;
  for (int k = 0; k < m->n; k++) {
    int p = proc_of(rm, m->group[k]);
    bool seen = p == rm->rank;
    for (int j = 0; j < nto && !seen; j++) seen = to[j] == p;
    if (!seen) to[nto++] = p;
  }
  if (!post_buf(f, to, nto, PK_CONTRIB, &b)) out_of_memory(f);
}

/* Takes the contribution payload (after its channel, seq and group) into
 * open meeting m; false when it was not kept. */
static bool attach_contribution(VmFabric *f, Meeting *m, unsigned char *payload, size_t len, size_t at) {
  Rd r = {payload, len, at};
  const VmInstr *ins = m->ins;
  uint32_t n_in = ins->n_in, n_out = ins->n_out;
  int64_t members = rd_i64(&r);
  int ks[VM_MAX_CHIPS];
  if (members < 1 || members > m->n) die("contribution of %lld members to a group of %d", (long long)members, m->n);
  for (int64_t j = 0; j < members; j++) {
    int k = ks[j] = (int)rd_i64(&r);
    if (k < 0 || k >= m->n || m->came[k]) die("contribution of member %d of a group of %d", k, m->n);
    double clock;
    memcpy(&clock, rd_bytes(&r, sizeof clock), sizeof clock);
    if (clock > m->start_s) m->start_s = clock;
    memcpy(m->wheres[k], rd_bytes(&r, WHERE_LEN), WHERE_LEN);
    m->wheres[k][WHERE_LEN - 1] = '\0';
    size_t siglen = (size_t)rd_i64(&r);
    m->sigs[k].len = 0;
    buf_put(&m->sigs[k], rd_bytes(&r, siglen), siglen);
    if (m->sigs[k].failed) die("out of host memory");
  }
  bool with_operands = rd_i64(&r) != 0;
  bool kept = false;
  for (int64_t j = 0; with_operands && j < members; j++) {
    if (!fabric_same_signature(&m->sigs[ks[j]], &m->sigs[m->first_member])) break; /* the meeting fails */
    if (!m->remote && !(m->remote = calloc((size_t)m->n * (n_in + n_out) + 1, sizeof(VmTensor))))
      die("out of host memory taking other processes' operands");
    VmTensor *t = remote_tensors(m, ks[j]);
    for (uint32_t i = 0; i < n_in; i++) {
      rd_pad64(&r);
      t[i].type = m->func->reg_types[ins->in[i]];
      t[i].data = (void *)rd_bytes(&r, (size_t)t[i].type->nbytes);
    }
    m->in[ks[j]] = t;
    kept = true;
  }
  if (kept) {
    unsigned char **packets = realloc(m->packets, sizeof *packets * (size_t)(m->npackets + 1));
    if (!packets) die("out of host memory");
    m->packets = packets;
    m->packets[m->npackets++] = payload;
  }
  for (int64_t j = 0; j < members; j++) fabric_member_came(f, m, ks[j]);
  return kept;
}

/* The (channel, group, seq) of a contribution; *at: where the rest starts. */
static void contribution_key(const unsigned char *payload, size_t len, int64_t *channel, uint64_t *seq, int *n,
                             const int64_t **group, size_t *at) {
  Rd r = {payload, len, 0};
  *channel = rd_i64(&r);
  *seq = (uint64_t)rd_i64(&r);
  *n = (int)rd_i64(&r);
  *group = rd_bytes(&r, sizeof(int64_t) * (size_t)*n);
  *at = r.at;
}

static bool key_is(const Meeting *m, int64_t channel, uint64_t seq, int n, const int64_t *group) {
  if (m->channel != channel || m->seq != seq || m->n != n) return false;
  for (int k = 0; k < n; k++) {
    int64_t g;
    memcpy(&g, group + k, sizeof g);
    if (g != m->group[k]) return false;
  }
  return true;
}

/* A contribution came: into its meeting, or kept until the meeting opens. */
static bool take_contribution(VmFabric *f, unsigned char *payload, size_t len) {
  int64_t channel;
  uint64_t seq;
  int n;
  const int64_t *group;
  size_t at;
  contribution_key(payload, len, &channel, &seq, &n, &group, &at);
  for (Meeting *m = f->meetings; m; m = m->next)
    if (m->ins && key_is(m, channel, seq, n, group)) return attach_contribution(f, m, payload, len, at);
  Kept *k = calloc(1, sizeof *k);
  if (!k) die("out of host memory");
  *k = (Kept){f->remote->contribs, channel, 0, payload, len};
  f->remote->contribs = k;
  return true;
}

void remote_meeting_opened(VmFabric *f, Meeting *m) {
  Remote *rm = f->remote;
  KeyCount **pk = &rm->keys;
  while (*pk && !((*pk)->channel == m->channel && (*pk)->n == m->n &&
                  memcmp((*pk)->group, m->group, sizeof(int) * (size_t)m->n) == 0))
    pk = &(*pk)->next;
  if (!*pk) {
    KeyCount *k = calloc(1, sizeof *k);
    if (!k || !(k->group = malloc(sizeof(int) * (size_t)m->n))) die("out of host memory");
    k->channel = m->channel;
    k->n = m->n;
    memcpy(k->group, m->group, sizeof(int) * (size_t)m->n);
    *pk = k;
  }
  m->seq = (*pk)->count++;
  for (Kept **pc = &rm->contribs; *pc;) {
    Kept *c = *pc;
    int64_t channel;
    uint64_t seq;
    int n;
    const int64_t *group;
    size_t at;
    contribution_key(c->payload, c->len, &channel, &seq, &n, &group, &at);
    if (!key_is(m, channel, seq, n, group)) {
      pc = &c->next;
      continue;
    }
    *pc = c->next;
    if (!attach_contribution(f, m, c->payload, c->len, at)) vm_mpi_packet_free(c->payload);
    free(c);
  }
}

bool remote_shadows(Meeting *m, const VmTensor *like, int nout) {
  if (!m->remote && !(m->remote = calloc((size_t)m->n * (m->ins->n_in + m->ins->n_out) + 1, sizeof(VmTensor))))
    return false;
  for (int k = 0; k < m->n; k++) {
    if (m->out[k]) continue;
    VmTensor *t = remote_tensors(m, k) + m->ins->n_in;
    for (int i = 0; i < nout; i++) {
      t[i].type = like[i].type;
      if (!(t[i].data = aligned_alloc(64, ((size_t)like[i].type->nbytes + 64) & ~(size_t)63))) return false;
    }
    m->out[k] = t;
  }
  return true;
}

void remote_meeting_free(Meeting *m) {
  if (m->remote) {
    for (int k = 0; k < m->n; k++) {
      if (m->out[k] != remote_tensors(m, k) + m->ins->n_in) continue;
      for (uint32_t i = 0; i < m->ins->n_out; i++) free(m->out[k][i].data);
    }
  }
  for (int i = 0; i < m->npackets; i++) vm_mpi_packet_free(m->packets[i]);
  free(m->packets);
  free(m->remote);
}

void remote_waits(VmFabric *f, int chip, const Meeting *m, int64_t channel) {
  f->remote->waits[chip] = (ChipWait){m, channel};
}

/* ------------------------------------------------------------------ */
/* Channels. */

int remote_channel_send(VmFabric *f, VmExec *x, int64_t channel, const VmTensor *in, int nin) {
  Buf b = {0};
  buf_i64(&b, channel);
  buf_i64(&b, nin);
  for (int i = 0; i < nin; i++) put_type(&b, in[i].type);
  for (int i = 0; i < nin; i++) {
    buf_pad64(&b);
    buf_put(&b, in[i].data, (size_t)in[i].type->nbytes);
  }
  int broker = 0;
  pthread_mutex_lock(&f->mu);
  bool ok = post_buf(f, &broker, 1, PK_SEND, &b);
  pthread_mutex_unlock(&f->mu);
  return ok ? VM_OK : vm_trap(x, "out of host memory");
}

typedef struct DeliveryWait {
  const Remote *rm;
  int chip;
} DeliveryWait;

static bool delivery_ready(const void *arg) {
  const DeliveryWait *w = arg;
  for (const Kept *k = w->rm->deliveries; k; k = k->next)
    if (k->chip == w->chip) return true;
  return false;
}

/* Copies a delivered message (a PK_SEND payload) into out. */
static int unpack_message(VmExec *x, int64_t channel, const unsigned char *p, size_t len, VmTensor *out, int nout) {
  Rd r = {p, len, 0};
  (void)rd_i64(&r);
  int n = (int)rd_i64(&r);
  if (n != nout)
    return vm_trap(x, "receives %d values on channel %lld, but %d were sent", nout, (long long)channel, n);
  for (int i = 0; i < n; i++)
    if (!type_matches(&r, out[i].type))
      return vm_trap(x, "value %d received on channel %lld has another type than was sent", i, (long long)channel);
  for (int i = 0; i < n; i++) {
    rd_pad64(&r);
    const void *data = rd_bytes(&r, (size_t)out[i].type->nbytes);
    if (out[i].type->nbytes) memcpy(out[i].data, data, (size_t)out[i].type->nbytes);
  }
  return VM_OK;
}

int remote_channel_recv(VmFabric *f, VmExec *x, int64_t channel, VmTensor *out, int nout) {
  Remote *rm = f->remote;
  int chip = vm_exec_chip(x), broker = 0;
  Buf b = {0};
  buf_i64(&b, channel);
  buf_i64(&b, chip);
  DeliveryWait w = {rm, chip};
  pthread_mutex_lock(&f->mu);
  if (f->aborted) {
    pthread_mutex_unlock(&f->mu);
    free(b.p);
    return fabric_aborted_trap(x, f);
  }
  if (!post_buf(f, &broker, 1, PK_RECV, &b)) {
    pthread_mutex_unlock(&f->mu);
    return vm_trap(x, "out of host memory");
  }
  remote_waits(f, chip, NULL, channel);
  if (!delivery_ready(&w) && !fabric_wait_blocked(f, chip, delivery_ready, &w)) {
    pthread_mutex_unlock(&f->mu);
    return fabric_aborted_trap(x, f);
  }
  Kept **pk = &rm->deliveries;
  while ((*pk)->chip != chip) pk = &(*pk)->next;
  Kept *k = *pk;
  *pk = k->next;
  pthread_mutex_unlock(&f->mu);
  /* The payload: the receiver's chip, padding, then the sender's PK_SEND. */
  int rc = unpack_message(x, channel, k->payload + 64, k->len - 64, out, nout);
  vm_mpi_packet_free(k->payload);
  free(k);
  return rc;
}

/* Rank 0: hands the oldest message of channel to its oldest asker, while
 * there are both. */
static void broker_match(VmFabric *f, int64_t channel) {
  Remote *rm = f->remote;
  for (;;) {
    Kept **pm = &rm->queued, **pa = &rm->asks;
    while (*pm && (*pm)->channel != channel) pm = &(*pm)->next;
    while (*pa && (*pa)->channel != channel) pa = &(*pa)->next;
    if (!*pm || !*pa) return;
    Kept *msg = *pm, *ask = *pa;
    *pm = msg->next;
    *pa = ask->next;
    Buf b = {0};
    buf_i64(&b, ask->chip);
    buf_pad64(&b);
    buf_put(&b, msg->payload, msg->len);
    int to = proc_of(rm, ask->chip);
    if (!post_buf(f, &to, 1, PK_DELIVER, &b)) out_of_memory(f);
    vm_mpi_packet_free(msg->payload);
    vm_mpi_packet_free(ask->payload);
    free(msg);
    free(ask);
  }
}

/* Appends a kept packet to the end of list *l (queues are oldest first). */
static void keep_last(Kept **l, int64_t channel, int chip, unsigned char *payload, size_t len) {
  Kept *k = calloc(1, sizeof *k);
  if (!k) die("out of host memory");
  *k = (Kept){NULL, channel, chip, payload, len};
  while (*l) l = &(*l)->next;
  *l = k;
}

/* ------------------------------------------------------------------ */
/* Deadlocks and aborts. */

/* Whether none of this process's chips runs or can go on; *blocked: how
 * many wait. */
static bool quiet(const VmFabric *f, int *blocked) {
  *blocked = 0;
  if (f->running > 0) return false;
  for (int c = f->lo; c < f->hi; c++) {
    if (f->state[c] != CHIP_BLOCKED) continue;
    if (f->wait_done[c](f->wait_arg[c])) return false;
    ++*blocked;
  }
  return true;
}

/* Each tick: reports a change of quietness or counts to rank 0. */
static void report_status(VmFabric *f) {
  Remote *rm = f->remote;
  int blocked;
  bool q = quiet(f, &blocked);
  ProcStatus now = {true, q, blocked, rm->sent, rm->received};
  ProcStatus *last = &rm->reported;
  if (last->valid && last->quiet == q && (!q || (last->sent == now.sent && last->received == now.received &&
                                                 last->blocked == blocked)))
    return;
  *last = now;
  Buf b = {0};
  buf_i64(&b, q);
  buf_i64(&b, blocked);
  buf_i64(&b, (int64_t)now.sent);
  buf_i64(&b, (int64_t)now.received);
  int root = 0;
  if (!post_buf(f, &root, 1, PK_STATUS, &b)) out_of_memory(f);
}

/* Rank 0, on a report: when every process is quiet, some chip waits and
 * every packet sent was received, asks for the chips' descriptions. */
static void check_quiet(VmFabric *f) {
  Remote *rm = f->remote;
  if (rm->describing || f->aborted) return;
  uint64_t sent = 0, received = 0;
  int blocked = 0;
  for (int p = 0; p < rm->size; p++) {
    const ProcStatus *s = &rm->status[p];
    if (!s->valid || !s->quiet) return;
    sent += s->sent, received += s->received, blocked += s->blocked;
  }
  if (sent != received || blocked == 0) return;
  if (memcmp(rm->snapshot, rm->status, sizeof *rm->status * (size_t)rm->size) == 0) return; /* asked already */
  memcpy(rm->snapshot, rm->status, sizeof *rm->status * (size_t)rm->size);
  rm->describing = true;
  rm->nreplies = 0;
  rm->epoch++;
  Buf b = {0};
  buf_i64(&b, (int64_t)rm->epoch);
  int to[VM_MAX_CHIPS];
  for (int p = 0; p < rm->size; p++) to[p] = p;
  if (!post_buf(f, to, rm->size, PK_DESCRIBE_REQ, &b)) out_of_memory(f);
}

/* Answers rank 0 with this process's state and every chip's. */
static void describe(VmFabric *f, uint64_t epoch) {
  Remote *rm = f->remote;
  int blocked;
  bool q = quiet(f, &blocked);
  Buf b = {0};
  buf_i64(&b, (int64_t)epoch);
  buf_i64(&b, q);
  buf_i64(&b, (int64_t)rm->sent);
  buf_i64(&b, (int64_t)rm->received);
  for (int c = f->lo; q && c < f->hi; c++) {
    char where[WHERE_LEN] = {0};
    const ChipWait *w = &rm->waits[c];
    buf_i64(&b, f->state[c]);
    if (f->state[c] != CHIP_DONE) vm_exec_where(f->execs[c], where, sizeof where);
    buf_put(&b, where, sizeof where);
    bool in_meeting = f->state[c] == CHIP_BLOCKED && w->meeting;
    buf_i64(&b, f->state[c] == CHIP_BLOCKED ? (in_meeting ? 1 : 2) : 0);
    buf_i64(&b, in_meeting ? w->meeting->channel : w->channel);
    buf_i64(&b, in_meeting ? (int64_t)w->meeting->seq : 0);
    buf_i64(&b, in_meeting ? w->meeting->n : 0);
    for (int k = 0; in_meeting && k < w->meeting->n; k++) buf_i64(&b, w->meeting->group[k]);
  }
  /* The open meetings, with the members known here to have come (this
   * process's own, and those whose contributions came). */
  int64_t open = 0;
  for (const Meeting *m = f->meetings; q && m; m = m->next) open += m->ins && !m->full;
  buf_i64(&b, open);
  for (const Meeting *m = f->meetings; q && m; m = m->next) {
    if (!m->ins || m->full) continue;
    buf_i64(&b, m->channel);
    buf_i64(&b, (int64_t)m->seq);
    buf_i64(&b, m->n);
    for (int k = 0; k < m->n; k++) buf_i64(&b, m->group[k]);
    for (int k = 0; k < m->n; k++) buf_i64(&b, m->came[k]);
  }
  int root = 0;
  if (!post_buf(f, &root, 1, PK_DESCRIBE, &b)) out_of_memory(f);
}

/* One chip as a description packet tells it. */
typedef struct ChipDesc {
  int state, wait; /* wait: 0 none, 1 a meeting, 2 a receive */
  int64_t channel;
  uint64_t seq;
  int n;
  const unsigned char *group; /* n int64s */
  char where[WHERE_LEN];
} ChipDesc;

/* Entry k of one of a description's int64 lists. */
static int64_t desc_at(const unsigned char *list, int k) {
  int64_t v;
  memcpy(&v, list + (size_t)k * sizeof v, sizeof v);
  return v;
}

/* "chip 3 finished", "chip 3 waits at ...", as chips.c's describe_chip. */
static void describe_chip(const ChipDesc *d, int c, char *buf, size_t n) {
  if (d->state == CHIP_DONE) snprintf(buf, n, "chip %d finished", c);
  else snprintf(buf, n, "chip %d %s %s", c, d->state == CHIP_BLOCKED ? "waits at" : "runs", d->where);
}

/* Which members of the meeting chip d waits in have come (arrived[k]),
 * from every process's open meetings (each knows its own members). */
static void arrivals(const Remote *rm, const size_t *meetings_at, const ChipDesc *d, bool *arrived) {
  memset(arrived, 0, sizeof(bool) * (size_t)d->n);
  for (int p = 0; p < rm->size; p++) {
    Rd r = {rm->replies[p], rm->reply_len[p], meetings_at[p]};
    for (int64_t j = 0, open = rd_i64(&r); j < open; j++) {
      int64_t channel = rd_i64(&r), seq = rd_i64(&r), n = rd_i64(&r);
      const unsigned char *group = rd_bytes(&r, sizeof(int64_t) * (size_t)n);
      const unsigned char *came = rd_bytes(&r, sizeof(int64_t) * (size_t)n);
      if (channel != d->channel || (uint64_t)seq != d->seq || n != d->n ||
          memcmp(group, d->group, sizeof(int64_t) * (size_t)n) != 0)
        continue;
      for (int k = 0; k < d->n; k++) arrived[k] |= desc_at(came, k) != 0;
    }
  }
}

/* Rank 0, every description in: the deadlock message (as one process
 * writes it) into f->deadlock; false when the processes moved on. */
static bool compose_deadlock(VmFabric *f, ChipDesc *d) {
  Remote *rm = f->remote;
  size_t meetings_at[VM_MAX_CHIPS];
  bool arrived[VM_MAX_CHIPS];
  for (int p = 0; p < rm->size; p++) {
    Rd r = {rm->replies[p], rm->reply_len[p], sizeof(int64_t)};
    bool q = rd_i64(&r) != 0;
    uint64_t sent = (uint64_t)rd_i64(&r), received = (uint64_t)rd_i64(&r);
    if (!q || sent != rm->snapshot[p].sent || received != rm->snapshot[p].received) return false;
    for (int c = p * rm->per; c < (p + 1) * rm->per; c++) {
      d[c].state = (int)rd_i64(&r);
      memcpy(d[c].where, rd_bytes(&r, WHERE_LEN), WHERE_LEN);
      d[c].where[WHERE_LEN - 1] = '\0';
      d[c].wait = (int)rd_i64(&r);
      d[c].channel = rd_i64(&r);
      d[c].seq = (uint64_t)rd_i64(&r);
      d[c].n = (int)rd_i64(&r);
      d[c].group = rd_bytes(&r, sizeof(int64_t) * (size_t)d[c].n);
    }
    meetings_at[p] = r.at;
  }
  int c = 0;
  while (c < f->nchips && d[c].state != CHIP_BLOCKED) c++;
  if (c == f->nchips) return false;
  if (d[c].wait == 1) arrivals(rm, meetings_at, &d[c], arrived);
  size_t len = 0;
  char *out = f->deadlock;
  size_t cap = sizeof f->deadlock;
  fabric_append(out, cap, &len, "deadlock: %s on chip %d can never complete", d[c].where, c);
  char text[300];
  int shown = 0;
  if (d[c].wait == 1) {
    fabric_append(out, cap, &len, ": its group is chips {");
    for (int k = 0; k < d[c].n; k++) fabric_append(out, cap, &len, "%s%lld", k ? ", " : "", (long long)desc_at(d[c].group, k));
    fabric_append(out, cap, &len, "}; did not arrive:");
    for (int k = 0; k < d[c].n; k++) {
      int g = (int)desc_at(d[c].group, k);
      if (arrived[k]) continue;
      describe_chip(&d[g], g, text, sizeof text);
      fabric_append(out, cap, &len, "%s %s", shown++ ? ";" : "", text);
    }
  } else {
    fabric_append(out, cap, &len, ": no chip will send on its channel (");
    for (int k = 0; k < f->nchips; k++) {
      if (k == c) continue;
      describe_chip(&d[k], k, text, sizeof text);
      fabric_append(out, cap, &len, "%s%s", shown++ ? "; " : "", text);
    }
    fabric_append(out, cap, &len, "%s)", shown ? "" : "no other chip");
  }
  return true;
}

/* Tells the other processes to end the run: with the deadlock message
 * (when not NULL), or with meeting m's mismatch (when not NULL). */
static void abort_others(VmFabric *f, const char *deadlock, const Meeting *m) {
  Remote *rm = f->remote;
  Buf b = {0};
  char text[sizeof f->deadlock] = {0};
  if (deadlock) snprintf(text, sizeof text, "%s", deadlock);
  buf_put(&b, text, sizeof text);
  buf_i64(&b, m != NULL);
  if (m) {
    buf_i64(&b, m->channel);
    buf_i64(&b, (int64_t)m->seq);
    buf_i64(&b, m->n);
    for (int k = 0; k < m->n; k++) buf_i64(&b, m->group[k]);
    buf_put(&b, m->mismatch, sizeof m->mismatch);
  }
  int to[VM_MAX_CHIPS], nto = 0;
  for (int p = 0; p < rm->size; p++)
    if (p != rm->rank) to[nto++] = p;
  if (!post_buf(f, to, nto, PK_ABORT, &b)) out_of_memory(f);
}

/* Rank 0: a description came; with all of them, decides. */
static void take_description(VmFabric *f, int from, unsigned char *payload, size_t len) {
  Remote *rm = f->remote;
  Rd r = {payload, len, 0};
  if (!rm->describing || (uint64_t)rd_i64(&r) != rm->epoch || rm->replies[from]) {
    vm_mpi_packet_free(payload);
    return;
  }
  rm->replies[from] = payload;
  rm->reply_len[from] = len;
  if (++rm->nreplies < rm->size) return;
  ChipDesc *d = calloc((size_t)f->nchips, sizeof *d);
  if (!d) die("out of host memory");
  bool deadlocked = !f->aborted && compose_deadlock(f, d);
  free(d);
  for (int p = 0; p < rm->size; p++) vm_mpi_packet_free(rm->replies[p]), rm->replies[p] = NULL;
  rm->describing = false;
  if (!deadlocked) {
    /* Something moved: the reports that came meanwhile decide again. */
    f->deadlock[0] = '\0';
    check_quiet(f);
    return;
  }
  abort_others(f, f->deadlock, NULL);
  fabric_abort_local(f);
}

void remote_abort_others(VmFabric *f) { abort_others(f, NULL, NULL); }
void remote_abort_mismatch(VmFabric *f, const Meeting *m) { abort_others(f, NULL, m); }

/* Another process ended the run: with a deadlock's message, or because a
 * meeting failed with a mismatch (this process's copy fails with it). */
static void take_abort(VmFabric *f, Rd *r) {
  char text[sizeof f->deadlock];
  memcpy(text, rd_bytes(r, sizeof text), sizeof text);
  text[sizeof text - 1] = '\0';
  if (rd_i64(r)) {
    int64_t channel = rd_i64(r), seq = rd_i64(r), n = rd_i64(r);
    const int64_t *group = rd_bytes(r, sizeof(int64_t) * (size_t)n);
    const char *why = rd_bytes(r, sizeof ((Meeting *)0)->mismatch);
    for (Meeting *m = f->meetings; m; m = m->next)
      if (m->ins && key_is(m, channel, (uint64_t)seq, (int)n, group) && !m->failed) {
        snprintf(m->mismatch, sizeof m->mismatch, "%.*s", (int)sizeof m->mismatch - 1, why);
        m->failed = true;
      }
  }
  if (f->aborted) return;
  snprintf(f->deadlock, sizeof f->deadlock, "%s", text);
  fabric_abort_local(f);
}

/* ------------------------------------------------------------------ */
/* The transport's deliveries. */

/* Handles one packet (or tick) under the fabric's mutex; true when the
 * payload was kept. */
static bool handle(VmFabric *f, int from, int kind, unsigned char *payload, size_t len) {
  Remote *rm = f->remote;
  if (is_data(kind)) rm->received++;
  Rd r = {payload, len, 0};
  switch (kind) {
  case VM_MPI_TICK: report_status(f); return false;
  case PK_CONTRIB: return take_contribution(f, payload, len);
  case PK_SEND: {
    int64_t channel = rd_i64(&r);
    keep_last(&rm->queued, channel, -1, payload, len);
    broker_match(f, channel);
    return true;
  }
  case PK_RECV: {
    int64_t channel = rd_i64(&r);
    keep_last(&rm->asks, channel, (int)rd_i64(&r), payload, len);
    broker_match(f, channel);
    return true;
  }
  case PK_DELIVER:
    keep_last(&rm->deliveries, 0, (int)rd_i64(&r), payload, len);
    pthread_cond_broadcast(&f->cv);
    return true;
  case PK_STATUS: {
    ProcStatus *s = &rm->status[from];
    s->valid = true;
    s->quiet = rd_i64(&r) != 0;
    s->blocked = (int)rd_i64(&r);
    s->sent = (uint64_t)rd_i64(&r);
    s->received = (uint64_t)rd_i64(&r);
    check_quiet(f);
    return false;
  }
  case PK_DESCRIBE_REQ: describe(f, (uint64_t)rd_i64(&r)); return false;
  case PK_DESCRIBE: take_description(f, from, payload, len); return true;
  case PK_ABORT: take_abort(f, &r); return false;
  default: die("unknown MPI packet kind %d from rank %d", kind, from);
  }
}

/* The transport's handler (VmMpiHandler). */
static bool deliver(void *ud, int from, int kind, unsigned char *payload, size_t len) {
  VmFabric *f = ud;
  pthread_mutex_lock(&f->mu);
  bool kept = handle(f, from, kind, payload, len);
  pthread_mutex_unlock(&f->mu);
  return kept;
}

/* ------------------------------------------------------------------ */
/* Runs. */

/* Frees a list of kept packets. */
static void free_kept(Kept **l) {
  while (*l) {
    Kept *k = *l;
    *l = k->next;
    vm_mpi_packet_free(k->payload);
    free(k);
  }
}

/* Forgets everything of the last run. */
static void remote_clear(Remote *rm) {
  while (rm->keys) {
    KeyCount *k = rm->keys;
    rm->keys = k->next;
    free(k->group);
    free(k);
  }
  free_kept(&rm->contribs);
  free_kept(&rm->deliveries);
  free_kept(&rm->queued);
  free_kept(&rm->asks);
  for (int p = 0; rm->replies && p < rm->size; p++) vm_mpi_packet_free(rm->replies[p]), rm->replies[p] = NULL;
  rm->sent = rm->received = 0;
  rm->reported = (ProcStatus){0};
  rm->describing = false;
  rm->nreplies = 0;
}

bool remote_begin(VmFabric *f, VmMpi *mpi) {
  Remote *rm = f->remote;
  if (!rm) {
    if (!(rm = calloc(1, sizeof *rm))) return false;
    rm->mpi = mpi;
    rm->rank = vm_mpi_rank(mpi);
    rm->size = vm_mpi_size(mpi);
    rm->per = f->nchips / rm->size;
    rm->waits = calloc((size_t)f->nchips, sizeof *rm->waits);
    rm->status = calloc((size_t)rm->size, sizeof *rm->status);
    rm->snapshot = calloc((size_t)rm->size, sizeof *rm->snapshot);
    rm->replies = calloc((size_t)rm->size, sizeof *rm->replies);
    rm->reply_len = calloc((size_t)rm->size, sizeof *rm->reply_len);
    f->remote = rm;
    if (!rm->waits || !rm->status || !rm->snapshot || !rm->replies || !rm->reply_len) return false;
  }
  remote_clear(rm);
  memset(rm->status, 0, sizeof *rm->status * (size_t)rm->size);
  memset(rm->snapshot, 0, sizeof *rm->snapshot * (size_t)rm->size);
  rm->run = vm_mpi_next_run(mpi);
  vm_mpi_attach(mpi, rm->run, deliver, f);
  return true;
}

void remote_end(VmFabric *f) {
  vm_mpi_detach(f->remote->mpi);
  pthread_mutex_lock(&f->mu);
  remote_clear(f->remote);
  pthread_mutex_unlock(&f->mu);
}

void remote_free(VmFabric *f) {
  Remote *rm = f->remote;
  if (!rm) return;
  remote_clear(rm);
  free(rm->waits);
  free(rm->status);
  free(rm->snapshot);
  free(rm->replies);
  free(rm->reply_len);
  free(rm);
  f->remote = NULL;
}
