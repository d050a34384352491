/* The VM's public interface: loading a .tpub, running a function, and the
 * runtime types the kernels work on.  The VM links only vm/ (DESIGN.md §1). */
#ifndef VM_H
#define VM_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "vm/tpub.h"

/* ------------------------------------------------------------------ */
/* Element types. */
int vm_elem_bits(int elem);
int vm_elem_bytes(int elem);
int vm_elem_class(int elem); /* TPUB_CLASS_* */
const char *vm_elem_name(int elem);
bool vm_elem_is_float(int elem);  /* real floating point (not complex) */
bool vm_elem_is_int(int elem);    /* signed, signless or unsigned integer, incl. i1 */
bool vm_elem_is_unsigned(int elem);
int vm_elem_complex_part(int elem); /* C64 -> F32, C128 -> F64 */

/* ------------------------------------------------------------------ */
/* Loaded program. */
typedef struct VmType VmType;
struct VmType {
  uint8_t kind; /* TpubTypeKind */
  uint8_t elem; /* TpubElem, tensors */
  int rank;     /* tensors */
  const int64_t *dims;
  int64_t count;  /* elements */
  int64_t nbytes; /* count * element bytes */
  int nmembers;   /* tuples */
  const VmType *const *members;
};

typedef struct VmRegion {
  uint32_t func;        /* function index */
  uint32_t ncaps;       /* captured registers of the enclosing function, */
  const uint32_t *caps; /* passed after the explicit arguments */
} VmRegion;

/* One decoded attribute field.  INT and F64: n = 1, v[0] (F64 as bits);
 * LIST: n, v; STR: str; CONST: data, n = bytes, flags (VM_CONST_*);
 * REGION: n = 1, regions[0]; REGIONS: n, regions. */
typedef struct VmField {
  int64_t n;
  const int64_t *v;
  const VmRegion *regions;
  const char *str;
  const void *data;
  uint32_t flags;
} VmField;

enum VmConstFlags {
  VM_CONST_SPLAT = 1,  /* data holds one element, repeated */
  VM_CONST_ELIDED = 2, /* dense_resource<__elided__>: filled with seeded random data */
  VM_CONST_NONE = 4,   /* an absent constant (n = 0) */
};

typedef struct VmInstr {
  uint16_t opcode;
  uint16_t flags; /* TPUB_INSTR_* */
  uint32_t n_in, n_out, n_kill;
  const uint32_t *in, *out, *kill; /* registers */
  uint32_t loc;                    /* index into VmProgram.locs */
  const VmField *fields;           /* one per field of the opcode (vm/opinfo.h) */
  uint32_t nfields;
  uint32_t pc;                     /* word offset in the function, for messages */
} VmInstr;

/* A parameter or result of a partitioned program's public function that is
 * a piece of a global tensor (a SHARDS record, checked by the loader). */
typedef struct VmShard {
  VmType global;          /* the global tensor type (rank, dims, count, nbytes) */
  const int64_t *tiles;   /* global.rank piece counts, then the replication count r */
  const int64_t *devices; /* prod(tiles) * r partition ids, row-major over [tiles, r] */
  int64_t ndevices;       /* = the module's num_partitions */
} VmShard;

/* A bounded dynamic dim of a public function's parameter or result (a
 * DYNDIMS record, checked by the loader; docs/dynamic-shapes.md). */
typedef struct VmDynDim {
  bool result;     /* a result's, else a parameter's */
  uint32_t index;  /* the padded tensor */
  uint32_t dim;
  uint32_t size;   /* the tensor<i32> parameter or result holding its size */
  int64_t bound;
} VmDynDim;

typedef struct VmFunc {
  const char *name;
  uint32_t flags; /* TPUB_FUNC_* */
  uint32_t n_params, n_results, n_regs;
  const VmType *const *reg_types;
  const VmType *const *result_types;
  uint32_t n_instrs;
  const VmInstr *instrs;
  uint32_t loc;
  /* Partitioned programs (VmProgram.spmd): n_params and n_results entries,
   * each the piece it is of a global tensor, or NULL for a whole value;
   * NULL arrays when the function has no SHARDS records. */
  const VmShard *const *param_shards, *const *result_shards;
  /* Its bounded dynamic dims, parameters' then results' (none: 0). */
  uint32_t n_dyn;
  const VmDynDim *dyn;
} VmFunc;

typedef struct VmLoc {
  const char *file;
  uint32_t line, col;
  const char *op;
} VmLoc;

/* The modeled TPU cost of the top-level op a location belongs to (its
 * COSTS record through LOCOPS, checked). */
typedef struct VmCost {
  uint32_t op;    /* 1-based top-level op id; 0: none */
  uint32_t op_loc; /* location record naming that op */
  uint8_t bound;  /* TpubBound */
  float mxu_util;
  double flops, hbm_bytes, modeled_s;
} VmCost;

typedef struct VmProgram VmProgram;
struct VmProgram {
  char compiler_version[17];
  char target[9];
  uint32_t format_version;
  uint32_t n_types, n_funcs, n_locs;
  const VmType *types;
  const VmFunc *funcs;
  const VmLoc *locs;
  const VmCost *costs; /* n_locs records, parallel to locs; NULL without a COSTS section */
  int num_replicas, num_partitions; /* the module's slice (MODULE section) */
  /* The module is the per-chip program of an SPMD partitioning: its public
   * functions take global arguments and give global results (VmShard). */
  bool spmd;
  int mesh_rank; /* 0 or the module's device mesh (2 or 3 dims, product num_partitions) */
  int mesh[3];
};

/* Loads and verifies a whole .tpub image (the bytes are copied).  On
 * failure returns NULL and writes the reason (without the file name) to
 * err. */
VmProgram *vm_program_load(const void *bytes, size_t n, char *err, size_t errlen);
void vm_program_free(VmProgram *p);
/* Names `file` (which must outlive p) as the source of every location that
 * names one: a program compiled from one .mlir and found in the compilation
 * cache keeps the file name it was first compiled under. */
void vm_program_set_source(VmProgram *p, const char *file);
int vm_program_find(const VmProgram *p, const char *name); /* function index or -1 */

/* ------------------------------------------------------------------ */
/* Execution. */

/* A tensor as a kernel sees it: the static type and row-major host data. */
typedef struct VmTensor {
  const VmType *type;
  void *data;
} VmTensor;

typedef struct VmExec VmExec;

/* Memory allocator hook: every byte the VM allocates for values goes
 * through it (Lua's debug_realloc idea); tests can make it fail. */
typedef void *(*VmReallocFn)(void *ud, void *p, size_t old, size_t n);

typedef struct VmOptions {
  uint64_t hbm_bytes;  /* capacity of the simulated chip's HBM; 0: unlimited */
  bool run_checks;     /* evaluate check ops (otherwise they are no-ops) */
  FILE *check_out;     /* PASS/FAIL lines (default stdout) */
  FILE *warn_out;      /* warnings (default stderr) */
  uint64_t seed;       /* seed for elided constants */
  int threads;         /* host threads for tile-parallel kernels; 0 or 1: one */
  bool profile;        /* time the entry function's instructions (vm/profile.h) */
  bool trace;          /* keep the modeled timeline's events (vm/chips/timeline.h) */
  /* The target's ICI for the modeled timeline (common/ici.h): link bandwidth
   * one way, latency of a hop, torus dimensions (2 or 3).  0: collectives
   * take no modeled time. */
  double ici_link_bytes_per_s, ici_hop_s;
  int torus_dims;
  /* Multislice (common/ici.h): the chips form `slices` slices (0 or 1:
   * one) of chips / slices each, every slice its own torus, joined by the
   * data-center network: per chip dcn_bytes_per_s one way, dcn_s a
   * message.  vm_slice_new refuses a count that does not divide the chips. */
  int slices;
  double dcn_bytes_per_s, dcn_s;
  VmReallocFn realloc_fn; /* NULL: the C library */
  void *realloc_ud;
  /* Limits of a run (tpurun --max-steps, --timeout).  A step is one
   * executed instruction, those of called functions and region bodies
   * (loop conditions and bodies, reducers, comparators) included, counted
   * per chip and per vm_run.  Past a limit the run traps naming the
   * innermost running loop and its trip count. */
  uint64_t max_steps; /* 0: no limit */
  double timeout_s;   /* wall-clock seconds from the start of the run; 0: none */
  /* Polled before every instruction: once it holds non-zero (a SIGINT
   * handler sets it), the run ends with VM_INTERRUPTED.  NULL: never. */
  const atomic_int *interrupt;
  /* The processes of an MPI job (vm_mpi_open): a slice then hosts only this
   * process's share of its chips and meets the others over MPI.  NULL: one
   * process holds every chip. */
  struct VmMpi *mpi;
} VmOptions;

/* Host threads to use by default: the CPUs this process may run on
 * (sched_getaffinity, so cpusets count), else the online CPUs; divided
 * among the processes of an MPI job on this host that mpirun did not bind
 * to cores (OMPI_COMM_WORLD_LOCAL_SIZE). */
int vm_default_threads(void);

VmExec *vm_exec_new(const VmProgram *p, const VmOptions *opts);
void vm_exec_free(VmExec *x);

/* Host values passed in and out of vm_run. */
typedef struct VmValue {
  const VmType *type;
  void *data;           /* tensors: nbytes, owned by the caller */
  int nmembers;         /* tuples */
  struct VmValue *members;
} VmValue;

/* VM_INTERRUPTED: VmOptions.interrupt ended the run (vm_error says at
 * which op); any other failure is VM_TRAP. */
enum VmStatus { VM_OK = 0, VM_TRAP = -1, VM_INTERRUPTED = -2 };

/* Runs function fn with args (their types must match the parameters:
 * vm_run checks).  On success fills results (n_results values whose data
 * the caller frees with vm_value_free), unless results is NULL (they are
 * dropped: timing loops measure the run alone).  On a trap returns VM_TRAP;
 * vm_error() then holds "file:line:col: 'stablehlo.op' message". */
int vm_run(VmExec *x, int fn, const VmValue *args, int nargs, VmValue *results);
const char *vm_error(const VmExec *x);
void vm_value_free(VmValue *v);

/* ------------------------------------------------------------------ */
/* Many processes: an Open MPI job (vm/chips/mpi.c; DESIGN.md §10). */

/* This process's link to the other processes of its MPI job. */
typedef struct VmMpi VmMpi;

/* The process's MPI transport when it runs in an Open MPI job of two or
 * more processes (mpirun sets OMPI_COMM_WORLD_SIZE); libmpi is loaded and
 * initialised on the first call.  NULL outside such a job (err empty) or
 * when MPI cannot start (err says why).  who names the program in messages
 * ("tpurun").  Every open is matched by a vm_mpi_close; MPI itself is
 * finalised when the process exits normally.  A process of the job that
 * dies ends every other one: it prints "WHO: rank R (pid N on HOST) died;
 * ending the job" and exits with status 4. */
VmMpi *vm_mpi_open(const char *who, char *err, size_t errlen);
void vm_mpi_close(VmMpi *m);
/* Ends the whole job at once with exit status code (MPI_Abort): for a
 * failure the other processes may not share. */
_Noreturn void vm_mpi_abort(VmMpi *m, int code);
int vm_mpi_rank(const VmMpi *m);
int vm_mpi_size(const VmMpi *m);
/* The chips [*lo, *hi) of a slice of nchips that this process hosts: a
 * contiguous share, nchips / size each.  False, with a message in err
 * saying which process counts work, when size does not divide nchips. */
bool vm_mpi_share(const VmMpi *m, int nchips, int *lo, int *hi, char *err, size_t errlen);

/* Collectives of the host code (inputs, results, the compilation cache):
 * every process calls the same ones in the same order, one thread at a
 * time.  They return false only when MPI fails (the job is then ending). */
bool vm_mpi_bcast(VmMpi *m, void *buf, size_t len, int root);
/* root's *len bytes at *buf to every process: the others get a malloc'ed
 * copy in *buf (theirs is not read). */
bool vm_mpi_bcast_blob(VmMpi *m, void **buf, size_t *len, int root);
/* Every process's len bytes at mine, in rank order, to every process:
 * *all (malloc'ed) holds them back to back, lens[r] is rank r's length. */
bool vm_mpi_allgather_blob(VmMpi *m, const void *mine, size_t len, void **all, size_t *lens);
/* The largest of every process's v (an exit status they agree on). */
int vm_mpi_max(VmMpi *m, int v);

/* ------------------------------------------------------------------ */
/* Slices of chips (vm/chips/chips.c). */

#define VM_MAX_CHIPS TPUB_MAX_CHIPS

/* The chips of a slice: replicas x partitions of them (chip c is replica
 * c / partitions, partition c % partitions), sitting row-major on a torus
 * of dims[0] x ... x dims[ndims - 1] chips (ndims 0: the target's default
 * slice, common/ici.h ici_default_mesh).  With VmOptions.slices > 1 the
 * dims are one slice's torus. */
typedef struct VmMesh {
  int replicas, partitions;
  int ndims;
  int dims[3];
} VmMesh;

typedef struct VmSlice VmSlice;

/* replicas * partitions chips (at most VM_MAX_CHIPS), each with its own
 * HBM (opts->hbm_bytes) and state, sharing opts->threads host threads
 * (opts->profile: chip 0 is profiled);
 * NULL when out of memory or the mesh is invalid. */
VmSlice *vm_slice_new(const VmProgram *p, const VmOptions *opts, const VmMesh *mesh);
void vm_slice_free(VmSlice *s);
/* Chip c's executor (its checks, peak memory and profile); NULL for a
 * chip another process of an MPI job hosts. */
VmExec *vm_slice_exec(VmSlice *s, int chip);
/* Whether this process hosts chip c (always, outside an MPI job). */
bool vm_slice_hosts(const VmSlice *s, int chip);
/* Runs function fns[c] on chip c with the values args[c] (as vm_run) and
 * fills results[c] (or drops them when results or results[c] is NULL).
 * Returns VM_OK, or VM_TRAP when a chip trapped or the chips deadlocked;
 * vm_slice_error() then holds the message of the lowest chip that failed
 * by itself, else the deadlock's, and no results are filled.  Returns
 * VM_INTERRUPTED instead when that chip was interrupted.
 * In an MPI job every process calls it (host collective order): each runs
 * the chips it hosts (only their args are read) and gets every chip's
 * results, the same status and the same message. */
int vm_slice_run(VmSlice *s, const int *fns, const VmValue *const *args, VmValue *const *results);
const char *vm_slice_error(const VmSlice *s);

/* Check statistics of the runs so far. */
typedef struct VmCheckStats {
  int passed, failed;
} VmCheckStats;
VmCheckStats vm_check_stats(const VmExec *x);

/* High-water marks of the accounted allocator over the runs so far: all
 * of it; the HBM (values and kernel scratch, without the tile buffers:
 * what the compiler's buffer assignment models).  Arguments (borrowed)
 * and the program's constants are not in them. */
uint64_t vm_peak_bytes(const VmExec *x);
uint64_t vm_peak_hbm_bytes(const VmExec *x);

/* Chip c's check statistics and HBM high-water mark, as of the last
 * vm_slice_run, whichever process of an MPI job hosts it. */
VmCheckStats vm_slice_check_stats(const VmSlice *s, int chip);
uint64_t vm_slice_peak_hbm_bytes(const VmSlice *s, int chip);

/* ------------------------------------------------------------------ */
/* Services for kernels. */

/* Records a runtime error of the current instruction; returns VM_TRAP. */
int vm_trap(VmExec *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Accounted scratch memory (counts toward HBM); NULL when refused, after
 * which the kernel returns vm_trap(x, "...").  Free with the same size. */
void *vm_scratch_alloc(VmExec *x, size_t n);
void vm_scratch_free(VmExec *x, void *p, size_t n);
/* The same for a kernel's tile buffers, which the TPU holds on chip
 * (VMEM): fusion tiles, MXU and GEMM operand tiles.  Bounded by the HBM
 * with everything else, but outside vm_peak_hbm_bytes. */
void *vm_tile_alloc(VmExec *x, size_t n);
void vm_tile_free(VmExec *x, void *p, size_t n);

/* Calls a region: args are the region's explicit arguments (the captures
 * are appended by the VM); results[i].data must point to caller-owned
 * storage of the region's i-th result type, into which the result is
 * copied.  results[i].type is set by the call. */
int vm_call_region(VmExec *x, const VmRegion *r, const VmTensor *args, int nargs,
                   VmTensor *results);

/* The function a region runs (for pattern matching a body). */
const VmFunc *vm_region_func(const VmExec *x, const VmRegion *r);
const VmProgram *vm_exec_program(const VmExec *x);
const VmOptions *vm_exec_options(const VmExec *x);

/* Field accessors. */
static inline int64_t vm_field_int(const VmInstr *ins, int f) { return ins->fields[f].v[0]; }
static inline double vm_field_f64(const VmInstr *ins, int f) {
  union {
    int64_t i;
    double d;
  } u = {ins->fields[f].v[0]};
  return u.d;
}
static inline const int64_t *vm_field_list(const VmInstr *ins, int f, int64_t *n) {
  *n = ins->fields[f].n;
  return ins->fields[f].v;
}

#endif
