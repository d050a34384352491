/* The shared state of a slice's chips (VmFabric) as vm/chips/chips.c and,
 * for a slice spread over the processes of an MPI job, vm/chips/remote.c
 * see it.  Internal to vm/chips. */
#ifndef VM_CHIPS_FABRIC_H
#define VM_CHIPS_FABRIC_H

#include <pthread.h>
#include <stdatomic.h>

#include "common/ici.h"
#include "vm/chips/chips.h"
#include "vm/chips/mpi.h"
#include "vm/chips/timeline.h"
#include "vm/internal.h"

/* CHIP_REMOTE: a chip another process hosts. */
enum ChipState { CHIP_RUNNING, CHIP_BLOCKED, CHIP_DONE, CHIP_REMOTE };

/* A growing byte buffer (packets, gathers, signatures): buf_* in gather.c. */
typedef struct Buf {
  unsigned char *p;
  size_t len, cap;
  bool failed; /* out of memory */
} Buf;

/* Room for "'stablehlo.op' at file:line:col" (vm_exec_where). */
#define WHERE_LEN 256

/* A collective in progress: members arrive, then run phases together.  In
 * an MPI job the members other processes host arrive as contributions
 * (their operands, remote.c); this process runs their phases but the last
 * itself ("shadow members", into scratch results), so every phase reads
 * what it would read in one process. */
typedef struct Meeting {
  struct Meeting *next;
  int64_t channel;
  int n, arrived, left;
  int nlocal, local_arrived; /* members this process hosts; of them arrived */
  uint64_t seq;              /* this (channel, group)'s meeting count, from 0 */
  int *group;
  bool full, failed;
  const VmInstr *ins;  /* the first arrival's instruction (opcode, types) */
  const VmFunc *func;  /* and its function */
  int first_member; /* the member whose instruction ins is */
  const VmTensor **in; /* per member */
  VmTensor **out;
  double start_s;
  int barrier_count, barrier_gen;
  /* Every member's arrival, location and instruction (as a signature:
   * opcode, operand and result types).  Members that differ make the
   * meeting mismatched; once it is full the message is settled from the
   * lowest chip and the lowest one that differs from it, so it does not
   * depend on who came first (settle_mismatch). */
  bool *came;
  char (*wheres)[WHERE_LEN];
  Buf *sigs;
  bool mismatched;
  char mismatch[640]; /* why a member did not match: every member traps with it */
  /* Remote members: their operand tensors (into kept packets) and shadow
   * results, freed with the meeting. */
  VmTensor *remote;
  unsigned char **packets;
  int npackets;
  /* In an MPI job the local members' operands are copied in (copies[k]),
   * so a member that leaves does not take them with it; a member at an
   * asynchronous start (deferred[k]) leaves them and goes on, and meets the
   * group at its async_done (chips.c, "Deferred meetings"). */
  VmTensor **copies;
  bool *deferred;
  int ndeferred;
  /* Each local member's clock when it came (sent with the contribution:
   * a deferred member has moved on since). */
  double *clocks;
} Meeting;

/* A message sent on a channel, waiting for its receiver. */
typedef struct Message {
  struct Message *next;
  int64_t channel;
  int n;
  const VmType **types;
  void **data;
} Message;

typedef struct Remote Remote;

struct VmFabric {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int nchips, replicas, partitions;
  int slots;   /* host threads free to compute */
  int running; /* chips of this process in CHIP_RUNNING */
  int *state;  /* enum ChipState, per chip */
  /* What a blocked chip waits for: it can go on once done(arg) holds,
   * even before its thread wakes up to see it. */
  bool (**wait_done)(const void *);
  const void **wait_arg;
  VmExec **execs; /* NULL for remote chips */
  Meeting *meetings;
  Message *messages, **messages_tail;
  bool aborted;
  atomic_bool stopped; /* aborted, readable without the mutex (vm_fabric_stopped) */
  char deadlock[1024]; /* the deadlock message, when one ended the run */
  /* The torus and its links, for the collectives' modeled time: mesh is
   * one slice's of `slices`, joined by the DCN (common/ici.h). */
  IciMesh mesh;
  double link_bytes_per_s, hop_s;
  int slices;
  double dcn_bytes_per_s, dcn_s;
  /* An MPI job: this process hosts chips [lo, hi); remote holds the
   * cross-process state (remote.c).  Outside one: [0, nchips), NULL. */
  int lo, hi;
  Remote *remote;
};

bool fabric_hosts(const VmFabric *f, int chip);
/* Ends the run for every chip of this process (they trap at their next
 * wait) and, in an MPI job, of the others.  Called with f->mu held. */
void fabric_abort_locked(VmFabric *f);
/* The same, for an abort another process asked for: not passed on. */
void fabric_abort_local(VmFabric *f);
/* Appends printf output to buf (of size n, holding *len bytes). */
void fabric_append(char *buf, size_t n, size_t *len, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Waits, blocked, until done(arg) or an abort; false after an abort.
 * Called with f->mu held. */
bool fabric_wait_blocked(VmFabric *f, int chip, bool (*done)(const void *), const void *arg);
/* The trap of a chip whose run ended because of another chip. */
int fabric_aborted_trap(VmExec *x, const VmFabric *f);
/* An instruction's signature: opcode, operand and result types
 * (remote.c); equal signatures meet. */
void fabric_signature(Buf *b, const VmFunc *fn, const VmInstr *ins);
bool fabric_same_signature(const Buf *a, const Buf *b);
/* Member k of m has come (its signature and location set): notes a
 * mismatch, and once every member has come marks m full, settling the
 * mismatch if there is one.  Called with f->mu held. */
void fabric_member_came(VmFabric *f, Meeting *m, int k);
/* The mismatch among the members of m that came, named by the lowest chip
 * and the lowest chip that differs from it; fails m and aborts the run.
 * False when they all match.  Called with f->mu held. */
bool settle_mismatch(VmFabric *f, Meeting *m);

/* A slice (vm_slice_new): its fabric, the executors of the chips this
 * process hosts, and what the last run gathered of the others'. */
typedef struct GatheredChip {
  VmCheckStats stats;
  uint64_t peak_hbm;
  VmTimeline timeline;
} GatheredChip;

struct VmSlice {
  VmFabric *fabric;
  VmExec **execs; /* NULL for chips other processes host */
  int nchips;
  VmMesh mesh;
  double deadline_s;   /* vm_slice_set_deadline: of every run, */
  bool deadline_fixed; /* instead of one from VmOptions.timeout_s */
  char error[1024];
  VmMpi *mpi;             /* an MPI job's, else NULL */
  GatheredChip *gathered; /* per chip; of remote chips only */
  void *blob;             /* the last gather's bytes (remote errors point in) */
};

/* How a chip's run ended. */
typedef struct ChipOutcome {
  int rc;
  bool victim, started;
  const char *error;
} ChipOutcome;

/* gather.c: after this process's chips ran, every chip's outcome,
 * statistics, timeline and (when the run succeeded and results is not
 * NULL) results, to every process. */
void slice_gather(VmSlice *s, const int *fns, ChipOutcome *out, VmValue *const *results);
void slice_gathered_free(VmSlice *s);

/* Packing packets and gathers: a growing buffer, and a reader that stops
 * the process on a short packet (an internal error: only tpurun writes
 * them). */
void buf_put(Buf *b, const void *data, size_t n);
void buf_i64(Buf *b, int64_t v);
void buf_pad64(Buf *b); /* to a multiple of 64 bytes */
typedef struct Rd {
  const unsigned char *p;
  size_t len, at;
} Rd;
int64_t rd_i64(Rd *r);
const void *rd_bytes(Rd *r, size_t n);
void rd_pad64(Rd *r);

/* ------------------------------------------------------------------ */
/* remote.c: a slice spread over the processes of an MPI job. */

/* An internal bug (or the host out of memory where the job cannot go
 * on): says where, and ends the process. */
#define die(...) remote_die(__FILE__, __LINE__, __VA_ARGS__)
_Noreturn void remote_die(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Starts run `run` of the fabric's slice on the job's transport (every
 * process's n-th run is one run); false when out of memory. */
bool remote_begin(VmFabric *f, VmMpi *mpi);
/* After this process's chips are done: waits for the other processes',
 * keeping the transport attached (their collectives may still need this
 * process) until every process is there, then detaches. */
void remote_end(VmFabric *f);
void remote_free(VmFabric *f);
/* Tells the other processes that this one's run failed (f->mu held). */
void remote_abort_others(VmFabric *f);
/* ... because meeting m is mismatched: their copies of m fail with its
 * message, so their members trap with it too. */
void remote_abort_mismatch(VmFabric *f, const Meeting *m);
/* A meeting was opened (its first local member has set ins and func):
 * numbers it and takes the contributions that came for it before.  Called
 * with f->mu held. */
void remote_meeting_opened(VmFabric *f, Meeting *m);
/* Every local member of m has arrived: sends their operands to the
 * processes of the other members.  Called with f->mu held. */
void remote_contribute(VmFabric *f, Meeting *m);
/* Allocates the shadow results of m's remote members (once, by the local
 * member that runs their phases); false when out of memory. */
bool remote_shadows(Meeting *m, const VmTensor *like, int nout);
void remote_meeting_free(Meeting *m);
/* send/recv through rank 0's channel broker. */
int remote_channel_send(VmFabric *f, VmExec *x, int64_t channel, const VmTensor *in, int nin);
int remote_channel_recv(VmFabric *f, VmExec *x, int64_t channel, VmTensor *out, int nout);
/* Records what chip c waits for, for a deadlock report (f->mu held):
 * a meeting, or a receive on channel (m NULL). */
void remote_waits(VmFabric *f, int chip, const Meeting *m, int64_t channel);

#endif
