/* Internals of libtpurun (docs/runtime.md): the client, interned types,
 * tensors, executables and their memory tier, streams with their workers,
 * the fused-graph builder and the metrics.  The public API is tpurun.h. */
#ifndef RUNTIME_RUNTIME_H
#define RUNTIME_RUNTIME_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "cache/cache.h"
#include "ir/table.h"
#include "runtime/compile.h"
#include "runtime/tpurun.h"
#include "vm/vm.h"

/* ---- errors ---------------------------------------------------------- */
/* Records the calling thread's failure message (tpu_error) and returns
 * code.  The message lives in a thread-local buffer: the one piece of
 * state outside a client, as errno is. */
int rt_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The calling thread's last message, and the code it was recorded with. */
const char *rt_last_error(void);
int rt_last_code(void);

/* ---- types ----------------------------------------------------------- */
/* A tensor type interned in the client: its VM form and its spelling
 * ("2x3xf32"); never freed before the client. */
typedef struct RtType {
  VmType vm;
  int64_t *dims;
  char *str;      /* "2x3xf32" */
  char *mlir;     /* "tensor<2x3xf32>" */
} RtType;

/* The interned type of a type string ("2x3xf32", "f32", "tensor<4xbf16>");
 * NULL with a message (rt_fail, TPU_ERR_USAGE) when it is not one. */
const RtType *rt_type_intern(TpuClient *c, const char *spelling);
/* The interned type of a VM tensor type. */
const RtType *rt_type_of_vm(TpuClient *c, const VmType *t);

/* ---- executables ----------------------------------------------------- */
/* A loaded program with a pool of executors, one per concurrent run. */
typedef struct RtExe {
  VmProgram *prog;
  int fn; /* entry function */
  pthread_mutex_t lock;
  VmExec **pool; /* idle executors */
  int npool, cappool;
} RtExe;

/* An executable of function fn of p (taking p); NULL after rt_fail. */
RtExe *rt_exe_new(VmProgram *p, int fn);
void rt_exe_free(RtExe *e);
double rt_now(void);

/* An executor of e (from its pool, else new, with c's HBM and threads);
 * NULL when out of memory. */
VmExec *rt_exe_take(TpuClient *c, RtExe *e);
void rt_exe_give(RtExe *e, VmExec *x);

/* The signature of one eager op: op name, attributes and regions (the
 * shorthand expanded), operand and result types.  Interned in the memory
 * tier; its executable is built on first use in Strict and Debug mode. */
typedef struct RtSig {
  char *key;        /* its bytes in the client's signature table */
  char *op, *attrs; /* as given (attrs "" when NULL) */
  int nin, nres;
  const RtType **in, **res;
  char *head;     /* "\"stablehlo.add\"(": the op's text up to its operands */
  char *tail;     /* ") {attrs} ({regions}) : (operand types) -> (result types)" */
  atomic_uintptr_t exe; /* RtExe *, built once */
} RtSig;

/* ---- tensors ----------------------------------------------------------- */
enum { RT_PENDING, RT_READY, RT_FAILED };

typedef struct RtNode RtNode;
typedef struct RtGraph RtGraph;

struct TpuTensor {
  uint64_t pad[3];      /* keeps magic clear of an allocator's free-list links */
  uint32_t magic;       /* RT_TENSOR_LIVE, or RT_TENSOR_DEAD once released */
  TpuClient *client;
  atomic_int refs;      /* the client's handles */
  atomic_int total;     /* handles plus references from queued work and graphs */
  int chip;
  const RtType *type;
  void *data;           /* malloc'ed; valid once READY */
  atomic_int state;
  int err_code;         /* FAILED: the code and message of the op that failed */
  char *err_msg;
  uint64_t id;          /* creation number, names it in messages */
  uint64_t op_index;    /* the op that made it (0: the host) */
  const char *op_name;
  RtGraph *graph;       /* Fused: the pending graph it is a node result of */
  int node, node_result;
  struct TpuTensor *live_prev, *live_next; /* the chip's live tensors; the free list */
};

enum { RT_TENSOR_LIVE = 0x7e45011eu, RT_TENSOR_DEAD = 0xdeadbeefu };
/* Released tensor records wait this long in a FIFO before reuse, so a
 * released handle passed to the API is reported, not followed. */
enum { RT_TENSOR_QUARANTINE = 4096 };

/* A new tensor of type t on chip, in state PENDING, with one handle;
 * reserves its bytes on the chip (TPU_ERR_RUNTIME with the live tensors
 * named when the chip's HBM is full).  NULL after rt_fail. */
TpuTensor *rt_tensor_new(TpuClient *c, int chip, const RtType *t, uint64_t op_index, const char *op_name);
void rt_tensor_ready(TpuTensor *t, void *data);
void rt_tensor_fail(TpuTensor *t, int code, const char *msg);
/* Waits until t is not PENDING (materializing its graph first in Fused
 * mode, for reason); the op's code and message (rt_fail) when it FAILED. */
int rt_tensor_wait(TpuTensor *t, const char *reason);
/* Takes and drops a reference held by queued work or a graph. */
void rt_tensor_ref_internal(TpuTensor *t);
void rt_tensor_unref_internal(TpuTensor *t);
/* Checks a handle passed to the API: non-NULL, alive, of client c (when c
 * is non-NULL); false after rt_fail(TPU_ERR_USAGE). */
bool rt_tensor_valid(const TpuClient *c, const TpuTensor *t, const char *what);

/* ---- streams ----------------------------------------------------------- */
typedef enum { RT_WORK_EXE, RT_WORK_COPY, RT_WORK_EVENT, RT_WORK_WAIT } RtWorkKind;

typedef struct RtWork {
  RtWorkKind kind;
  RtExe *exe;
  uint64_t op_index;
  const char *op_name;
  TpuEvent *event;
  bool reported; /* Debug mode: the caller reports a failure, not the stream */
  int nin, nout;
  TpuTensor **in, **out; /* internal references */
  struct RtWork *next;
} RtWork;

struct TpuStream {
  TpuClient *client;
  int chip;
  bool is_default;
  pthread_t thread;
  bool started, stopping;
  atomic_bool retired; /* tpu_stream_destroy ran: the handle is dead */
  pthread_mutex_t lock;
  pthread_cond_t wake, idle;
  pthread_mutex_t graph_lock; /* Fused: the pending graph; held while it compiles */
  RtWork *head, *tail;
  uint64_t queued, done;
  int err_code;   /* first failure not yet reported */
  char *err_msg;
  RtGraph *graph; /* Fused: ops deferred on this stream */
  struct TpuStream *next;
};

struct TpuEvent {
  TpuClient *client;
  TpuStream *stream; /* may be destroyed before the event: look it up in client->streams */
  atomic_int refs;
  atomic_int done;
};

TpuStream *rt_stream_new(TpuClient *c, int chip, bool is_default);
/* Unlinks s from the client's streams and ends its worker; its record
 * stays until the client is destroyed, since another thread's
 * rt_flush_all may still hold it. */
void rt_stream_retire(TpuClient *c, TpuStream *s);
void rt_stream_free(TpuStream *s);
/* Queues w (taking it); starts the worker on first use. */
void rt_stream_push(TpuStream *s, RtWork *w);
/* Waits for every item queued on s; returns and clears its first error. */
int rt_stream_sync(TpuStream *s);
RtWork *rt_work_new(RtWorkKind kind, int nin, int nout);

/* ---- fused graphs ------------------------------------------------------ */
/* Appends an op of signature sig to s's pending graph; fills results. */
int rt_graph_add(TpuStream *s, RtSig *sig, uint64_t op_index, TpuTensor *const *in, TpuTensor **results);
/* Compiles and queues s's pending graph (reason: "host_read", "sync", ...). */
int rt_graph_flush(TpuStream *s, const char *reason);
void rt_graph_free(RtGraph *g);
/* The stream whose ops g defers. */
TpuStream *rt_graph_stream(const RtGraph *g);

/* ---- the client ---------------------------------------------------------- */
typedef struct RtMetrics {
  atomic_uint_fast64_t ops[3];       /* per TpuEagerMode */
  atomic_uint_fast64_t signatures;   /* distinct op signatures verified */
  atomic_uint_fast64_t direct;       /* one-op executables lowered directly (no pipeline) */
  atomic_uint_fast64_t graphs;       /* fused graphs materialized */
  atomic_uint_fast64_t graph_ops;    /* ops in them */
  atomic_uint_fast64_t compiles;     /* graphs and programs through the pipeline */
  atomic_uint_fast64_t mem_hits;     /* memory tier: signatures, graphs, programs */
  atomic_uint_fast64_t recompiles;   /* a graph shape compiled again for new types */
  atomic_uint_fast64_t programs_run;
  atomic_uint_fast64_t nan_checks;
  double compile_s, direct_s;        /* under metrics_lock */
  double modeled_s;                  /* the target's modeled time of every run (under metrics_lock) */
  uint64_t reasons[8];               /* materializations per reason (rt_reason_index) */
  pthread_mutex_t metrics_lock;
} RtMetrics;

struct TpuClient {
  _Atomic TpuEagerMode mode; /* tpu_client_set_mode may change it while other threads issue ops */
  int nchips;
  const char *target_name;
  uint64_t hbm_bytes;
  int threads;
  int fused_max_ops;
  bool nan_check;
  CompileOptions graph_opts; /* -O level and target of graphs and programs */
  CompileOptions op_opts;    /* one-op executables: layout and buffer-assign */
  Cache *disk;               /* NULL: memory tier only */
  VmMpi *mpi;                /* in an MPI job: the link to the other processes (multi-chip runs), else NULL */
  const char *dump_dir;      /* $TPU_DUMP_GRAPHS: each fused graph compiled is written there */
  pthread_mutex_t disk_lock; /* a Cache is not thread-safe: held around every use of disk */
  char cache_dir[4096];
  pthread_mutex_t lock;      /* types, signatures, graph and program tiers, live lists */
  pthread_cond_t changed;    /* a tensor left PENDING */
  int waiters;
  Table types; /* RtType by spelling */
  Table sigs;  /* RtSig by key */
  Table exes;  /* RtExeEntry by 128-bit key: graphs and programs by text, fused graphs by structure */
  Table shapes; /* hashes of the graph shapes compiled (recompile counting) */
  Table steps;  /* hashes of the graph prefixes materialized (repeated steps) */
  TpuStream **defaults;   /* one per chip, created on first use */
  TpuStream *streams;     /* every live stream */
  TpuStream *retired;     /* destroyed streams, freed with the client */
  uint64_t *chip_bytes;   /* bytes held per chip */
  TpuTensor **live;       /* per chip, the live tensors (list heads) */
  TpuTensor *free_head, *free_tail; /* released records, oldest first */
  int nfree;
  atomic_uint_fast64_t next_op, next_tensor;
  RtMetrics m;
};

/* The default stream of chip. */
TpuStream *rt_default_stream(TpuClient *c, int chip);
/* The signature of an op (verified and interned on first use) in *out;
 * TPU_OK, or the code of rt_fail (usage, rejected, out of memory). */
int rt_sig_get(TpuClient *c, const char *op, const char *attrs, const RtType *const *in, int nin,
               const char *const *result_types, int nres, uint64_t op_index, RtSig **out);
/* The executable of a one-op signature (built once). */
RtExe *rt_sig_exe(TpuClient *c, RtSig *sig, uint64_t op_index);
/* The executable of a whole module's text (entry @main, else its first
 * function), through the memory tier, the disk tier and the pipeline;
 * name: the source name in its messages.  *compiled (when non-NULL):
 * whether this call ran the pipeline (not a memory or disk hit).  NULL
 * after rt_fail. */
RtExe *rt_exe_of_text(TpuClient *c, const char *text, size_t len, const char *name, bool *compiled);
/* A whole program's executable, as rt_exe_of_text (name "program"); when
 * refine is non-NULL, a program with unbounded dimensions refined to the
 * argument types of refine (docs/shape-refinement.md): one executable per
 * distinct signature, keyed by the text and the signature.  In an MPI job
 * on a client of several chips only rank 0 compiles, and every process
 * makes the same calls (docs/runtime.md, "In an MPI job"). */
RtExe *rt_exe_of_program(TpuClient *c, const char *text, size_t len, const RefineSpec *refine);
/* The executable stored under a key of the caller's (a fused graph's
 * structure), counted as a memory-tier hit; NULL when absent. */
RtExe *rt_exe_by_key(TpuClient *c, uint64_t hi, uint64_t lo);
/* Stores e (owned by its text's entry) under that key too. */
void rt_exe_alias(TpuClient *c, uint64_t hi, uint64_t lo, RtExe *e);
/* Runs w on the calling thread (s's worker). */
void rt_work_run(TpuClient *c, TpuStream *s, RtWork *w);
void rt_work_free(RtWork *w);
/* The one-op module of sig (malloc'ed text). */
char *rt_sig_module(const RtSig *sig);
void rt_sig_free(void *sig);
/* Frees the client's signatures, graph and program tier, and types. */
void rt_tiers_free(TpuClient *c);
/* Frees the tensors still live and the released records (destruction). */
void rt_tensor_free_all(TpuClient *c);
/* Materializes every stream's pending graph. */
int rt_flush_all(TpuClient *c, const char *reason);
int rt_reason_index(const char *reason);
/* Adds a run's modeled time on the target to the metrics. */
void rt_count_modeled(TpuClient *c, double seconds);
extern const char *const rt_reasons[8];

#endif
