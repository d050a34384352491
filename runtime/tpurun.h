/* tpurun.h: the C API of libtpurun, the embeddable runtime of tpucc
 * (DESIGN.md §9; the manual page is tpurun(3), docs/runtime.md the guide).
 *
 * A TpuClient is one simulated TPU slice with its compilation caches.  It
 * runs single StableHLO/CHLO ops eagerly (tpu_op) in one of three modes and
 * whole compiled programs (tpu_program_*).  Every entry point validates its
 * arguments and returns 0 or one of the TPU_ERR_* codes below, with a
 * message for tpu_error(); none may crash on bad input.
 *
 * Self-contained C11: this header includes only <stddef.h> and <stdint.h>.
 * Every options struct starts with `size_t struct_size` (set it to
 * sizeof(the struct)), so fields can be added without breaking clients
 * compiled against an older header.  Zero-initialised options mean the
 * defaults.  Any number of host threads may use one client at once. */
#ifndef TPURUN_H
#define TPURUN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define TPU_API __attribute__((visibility("default")))
#else
#define TPU_API
#endif

/* The library's version, "MAJOR.MINOR.PATCH" (the tpucc version). */
#define TPURUN_API_VERSION 1
TPU_API const char *tpu_version(void);

/* Return codes: the exit-code family of the tools (DESIGN.md §4). */
enum {
  TPU_OK = 0,
  TPU_ERR_USAGE = 1,    /* misuse of the API: NULL, bad struct_size, bad type string, released tensor */
  TPU_ERR_REJECTED = 2, /* the op or program was rejected (verifier's message) */
  TPU_ERR_DATA = 3,     /* bad data: wrong byte count, invalid bytecode */
  TPU_ERR_RUNTIME = 4,  /* a runtime error: trap, out of the chip's HBM, NaN/Inf in Debug mode */
  TPU_ERR_INTERNAL = 70 /* a bug in libtpurun */
};

typedef struct TpuClient TpuClient;   /* one simulated slice + its caches */
typedef struct TpuTensor TpuTensor;   /* ref-counted, may be not yet ready */
typedef struct TpuProgram TpuProgram; /* a compiled whole program */
typedef struct TpuStream TpuStream;   /* an in-order queue of ops on one chip */
typedef struct TpuEvent TpuEvent;     /* a point in a stream's queue */

/* How tpu_op executes (TorchTPU's eager modes):
 *   STRICT: the op is queued and tpu_op returns at once; the chip's worker
 *           runs the queue in order; errors surface at the next tpu_sync or
 *           host read.
 *   DEBUG:  the op runs at once and is checked: types and attributes at
 *           enqueue, NaN/Inf in its results after it, out-of-memory with
 *           the live tensors named.  Bitwise equal to STRICT.
 *   FUSED:  ops are deferred into a graph, compiled whole through the -O2
 *           pipeline and the cache at a materialization point (host read,
 *           tpu_sync, a bound on the graph's size, a repeated step).
 *           Agrees with STRICT within the conformance tolerances. */
typedef enum { TPU_EAGER_STRICT, TPU_EAGER_DEBUG, TPU_EAGER_FUSED } TpuEagerMode;

/* TpuClientOptions.opt_level. */
enum { TPU_OPT_DEFAULT = 0, TPU_OPT_O0 = 1, TPU_OPT_O1 = 2, TPU_OPT_O2 = 3 };

typedef struct {
  size_t struct_size;
  const char *target;    /* "v5e" when NULL: v4, v5e, v5p, v6e, v7x */
  int chips;             /* 1 when 0; at most 4096 */
  TpuEagerMode mode;     /* TPU_EAGER_MODE=debug|strict|fused overrides it at creation */
  const char *cache_dir; /* NULL: $TPU_CACHE_DIR, then ${XDG_CACHE_HOME:-$HOME/.cache}/tpucc */
  int threads;           /* host threads per kernel; 0: one per CPU the process may run on */
  /* Fields below were added after the minimum contract; 0 means the default. */
  int no_disk_cache;       /* 1: memory tier only */
  int no_nan_check;        /* 1: Debug mode does not scan results for NaN/Inf */
  int opt_level;           /* programs and fused graphs: TPU_OPT_O0..TPU_OPT_O2 (0: -O2) */
  int fused_max_ops;       /* Fused: materialize a graph at this many ops (0: 2048) */
  uint64_t hbm_bytes;      /* each chip's memory (0: the target's HBM) */
  uint64_t cache_max_bytes; /* disk tier bound (0: 1 GiB) */
} TpuClientOptions;

TPU_API int tpu_client_create(const TpuClientOptions *opts, TpuClient **out);
/* Waits for every queued op, then frees the client; tensors, programs and
 * streams still held become unusable (releasing them afterwards is not
 * allowed). */
TPU_API void tpu_client_destroy(TpuClient *c);
/* The message of this thread's last failure (c may be NULL). */
TPU_API const char *tpu_error(const TpuClient *c);
TPU_API int tpu_client_chips(const TpuClient *c);
TPU_API TpuEagerMode tpu_client_mode(const TpuClient *c);
/* Switches the mode for ops issued afterwards, whatever TPU_EAGER_MODE
 * said at creation (a pending fused graph is materialized first). */
TPU_API int tpu_client_set_mode(TpuClient *c, TpuEagerMode mode);

/* ---- tensors ------------------------------------------------------------ */
/* type: a tensor type, "2x3xf32", "f32", "4xbf16" (or "tensor<2x3xf32>").
 * data holds the elements row-major in the element type's storage
 * (bf16/f16 as 2 bytes, i1 and sub-byte integers one byte each, complex
 * as pairs); bytes must be exactly that size.  The tensor lives on chip 0. */
TPU_API int tpu_tensor_from_host(TpuClient *c, const char *type, const void *data, size_t bytes,
                                 TpuTensor **out);
/* The same on a chosen chip. */
TPU_API int tpu_tensor_from_host_on(TpuClient *c, int chip, const char *type, const void *data, size_t bytes,
                                    TpuTensor **out);
/* Copies the tensor to the host, waiting for it (a materialization point
 * in Fused mode); bytes must equal tpu_tensor_bytes. */
TPU_API int tpu_tensor_to_host(TpuTensor *t, void *data, size_t bytes);
TPU_API const char *tpu_tensor_type(const TpuTensor *t); /* "2x3xf32" */
TPU_API size_t tpu_tensor_bytes(const TpuTensor *t);
TPU_API int tpu_tensor_chip(const TpuTensor *t);
/* A copy of t on another chip of the same client (queued like an op). */
TPU_API int tpu_tensor_to_chip(TpuTensor *t, int chip, TpuTensor **out);
TPU_API void tpu_tensor_retain(TpuTensor *t);
TPU_API void tpu_tensor_release(TpuTensor *t);

/* ---- eager ops ---------------------------------------------------------- */
/* One StableHLO (or CHLO) op, e.g. "stablehlo.dot_general", on tensors of
 * one chip.  attrs: its attributes in MLIR attribute-dictionary syntax
 * ("{dot_dimension_numbers = #stablehlo.dot<...>}") or NULL.  An op with
 * regions writes them before the dictionary, as MLIR's generic form does
 * ("({ ^bb0(...): ... }) {dimensions = array<i64: 1>}"); a single-body
 * reducer (reduce and reduce_window of one input, scatter, all_reduce,
 * reduce_scatter) may instead name its body's binary op with the
 * pseudo-attribute `body = "stablehlo.add"`.
 * An op without operands works too: "stablehlo.constant" with
 * "{value = dense<1.5> : tensor<4xf32>}", "stablehlo.iota" with its type.
 * result_types: NULL to infer them where StableHLO's type inference can,
 * else n_results type strings.  results: n_results new tensors, owned by
 * the caller.  Returns at once in Strict and Fused mode. */
TPU_API int tpu_op(TpuClient *c, const char *op, const char *attrs, TpuTensor *const *operands, int n_operands,
                   const char *const *result_types, TpuTensor **results, int n_results);
/* Every queued op of every stream done; the first error of any is
 * returned (and cleared), naming the op that failed. */
TPU_API int tpu_sync(TpuClient *c);

/* ---- streams (several queues per chip) -------------------------------- */
/* Each chip has a default stream, which tpu_op uses.  Ops on different
 * streams run concurrently on host threads; an op waits for its operands,
 * wherever they were computed, and for the events its stream was told to
 * wait for. */
TPU_API int tpu_stream_create(TpuClient *c, int chip, TpuStream **out);
/* Waits for the stream's queue, then frees it. */
TPU_API void tpu_stream_destroy(TpuStream *s);
TPU_API int tpu_stream_op(TpuStream *s, const char *op, const char *attrs, TpuTensor *const *operands,
                          int n_operands, const char *const *result_types, TpuTensor **results, int n_results);
/* Every op queued on s done; its first error returned and cleared. */
TPU_API int tpu_stream_sync(TpuStream *s);
/* An event that completes when every op queued on s so far has. */
TPU_API int tpu_event_record(TpuStream *s, TpuEvent **out);
/* Ops queued on s after this call start only once e has completed. */
TPU_API int tpu_stream_wait_event(TpuStream *s, TpuEvent *e);
TPU_API int tpu_event_sync(TpuEvent *e);       /* waits; the error of its stream, if any */
TPU_API int tpu_event_query(const TpuEvent *e); /* 1 complete, 0 pending, <0 misuse */
TPU_API void tpu_event_release(TpuEvent *e);

/* ---- whole programs ---------------------------------------------------- */
/* Compiles StableHLO (one module: text, or a portable artifact, MLIR
 * bytecode in the VHLO dialect, told by its magic bytes) through the
 * client's caches, at the client's -O level and target; TPU_ERR_DATA for
 * a truncated or corrupt artifact. */
TPU_API int tpu_program_compile(TpuClient *c, const char *mlir, size_t len, TpuProgram **out);
/* Runs function (NULL: "main") on all the client's chips, as tpurun does:
 * on one chip args have the parameters' types; on N chips an argument of
 * the parameter's type goes to every chip and one of type Nx<type> gives
 * chip i its slice i, and each result is stacked over the chips on a new
 * leading dimension.  A partitioned program (tpu.spmd_partitioned, the
 * SPMD partitioner's output) runs on R = chips / P replicas of its P
 * partitions (TPU_ERR_USAGE when P does not divide the chips) and takes
 * global values, as jax.jit does: each argument is of the global type
 * (tpu.global_shape; a whole parameter's own type), or R of them stacked
 * (replica k gets value k), every chip getting its piece; each result is
 * the global value (R of them stacked when R > 1).  A function with
 * bounded dynamic dims (docs/dynamic-shapes.md) runs on one chip: a bounded
 * argument may have any size within its bounds, each result comes back at
 * its runtime size.  Waits for the arguments; returns when done. */
TPU_API int tpu_program_run(TpuProgram *p, const char *function, TpuTensor *const *args, int n_args,
                            TpuTensor **results, int n_results);
/* The number of parameters and results of function (NULL: "main"). */
TPU_API int tpu_program_signature(const TpuProgram *p, const char *function, int *n_params, int *n_results);
TPU_API void tpu_program_release(TpuProgram *p);

/* ---- metrics ------------------------------------------------------------ */
/* The client's counters as one JSON object: ops per mode, graphs built,
 * compiles and cache hits per tier, compile time, materializations and
 * their reasons, recompiles of one graph shape.  Writes at most len bytes
 * (NUL-terminated when len > 0) and returns the bytes the whole text needs,
 * its NUL included; -1 when c is NULL. */
TPU_API int tpu_metrics_json(TpuClient *c, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif
