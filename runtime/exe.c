/* Executables and the client's memory tier: one-op executables hang off
 * their signatures (runtime/op.c), graphs and programs are found by the
 * XXH3-128 of their text, then in the disk tier (cache/), then compiled
 * through the one compile path (runtime/compile.c). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <xxhash.h>

#include "runtime/runtime.h"

double rt_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

RtExe *rt_exe_new(VmProgram *p, int fn) {
  if (p->n_funcs == 0) {
    vm_program_free(p);
    rt_fail(TPU_ERR_REJECTED, "the module has no function");
    return NULL;
  }
  RtExe *e = calloc(1, sizeof *e);
  if (!e) {
    vm_program_free(p);
    rt_fail(TPU_ERR_RUNTIME, "out of host memory");
    return NULL;
  }
  e->prog = p;
  e->fn = fn;
  pthread_mutex_init(&e->lock, NULL);
  return e;
}

void rt_exe_free(RtExe *e) {
  for (int i = 0; i < e->npool; i++) vm_exec_free(e->pool[i]);
  free(e->pool);
  vm_program_free(e->prog);
  pthread_mutex_destroy(&e->lock);
  free(e);
}

VmExec *rt_exe_take(TpuClient *c, RtExe *e) {
  pthread_mutex_lock(&e->lock);
  VmExec *x = e->npool ? e->pool[--e->npool] : NULL;
  pthread_mutex_unlock(&e->lock);
  if (x) return x;
  VmOptions o = {.hbm_bytes = c->hbm_bytes, .threads = c->threads, .warn_out = NULL};
  return vm_exec_new(e->prog, &o);
}

void rt_exe_give(RtExe *e, VmExec *x) {
  pthread_mutex_lock(&e->lock);
  if (e->npool == e->cappool) {
    int cap = e->cappool ? 2 * e->cappool : 4;
    VmExec **p = realloc(e->pool, sizeof *p * (size_t)cap);
    if (p) e->pool = p, e->cappool = cap;
  }
  if (e->npool < e->cappool) {
    e->pool[e->npool++] = x;
    x = NULL;
  }
  pthread_mutex_unlock(&e->lock);
  if (x) vm_exec_free(x);
}

/* An executable in the tier under a 128-bit key. */
typedef struct RtExeEntry {
  XXH128_hash_t key;
  RtExe *exe;
  bool alias; /* another entry owns exe */
} RtExeEntry;

/* The entry for key (caller holds c->lock); NULL when absent. */
static RtExe *tier_find(TpuClient *c, XXH128_hash_t k) {
  void **slot = table_get(&c->exes, &k, sizeof k);
  return slot ? ((RtExeEntry *)*slot)->exe : NULL;
}

/* Adds exe under key (caller holds c->lock, key absent); false when out of
 * memory. */
static bool tier_add(TpuClient *c, XXH128_hash_t k, RtExe *exe, bool alias) {
  RtExeEntry *e = malloc(sizeof *e);
  if (!e) return false;
  *e = (RtExeEntry){k, exe, alias};
  *table_put(&c->exes, &e->key, sizeof e->key) = e;
  return true;
}

/* table_free's callback: an entry and the executable it owns. */
static void entry_free(void *entry) {
  RtExeEntry *e = entry;
  if (!e->alias) rt_exe_free(e->exe);
  free(e);
}

/* table_free's callback: an interned type. */
static void type_free(void *type) {
  RtType *t = type;
  free(t->dims), free(t->str), free(t->mlir), free(t);
}

/* compile_source of text through the disk tier: 0 with the image (*img,
 * *n bytes, malloc'ed), else its status with the diagnostics in *diag
 * (malloc'ed).  *keys (when non-NULL): the disk entry's keys.  *compiled:
 * whether the pipeline ran (a disk miss). */
static int compile_image(TpuClient *c, const char *text, size_t len, const char *name, const RefineSpec *refine,
                         uint8_t **img, size_t *n, char **diag, CacheLastKeys *keys, bool *compiled) {
  size_t diaglen = 0;
  *diag = NULL;
  FILE *mem = open_memstream(diag, &diaglen);
  CompileOptions o = c->graph_opts;
  o.diag_out = mem;
  if (refine) o.refine = *refine;
  SourceFile file = {name, text, len};
  SourceChunk chunk = {text, text + len, 1};
  CacheMetrics local = {0};
  *img = NULL;
  *n = 0;
  /* The disk tier is one Cache shared by the client's threads, and a
   * Cache is not thread-safe: compiles through it take turns. */
  if (c->disk) pthread_mutex_lock(&c->disk_lock);
  if (c->disk) memset(cache_last_keys(c->disk), 0, sizeof(CacheLastKeys));
  int rc = compile_source(&file, &chunk, &o, c->disk, &local, img, n);
  if (keys) *keys = c->disk ? *cache_last_keys(c->disk) : (CacheLastKeys){0};
  if (c->disk) pthread_mutex_unlock(&c->disk_lock);
  if (mem) fclose(mem);
  *compiled = local.compiles > 0;
  pthread_mutex_lock(&c->m.metrics_lock);
  c->m.compile_s += local.compile_s;
  pthread_mutex_unlock(&c->m.metrics_lock);
  atomic_fetch_add(&c->m.compiles, (uint64_t)local.compiles);
  return rc;
}

/* What rank 0 of an MPI job tells the other processes about a compile. */
typedef struct JobOutcome {
  int32_t rc;         /* compile_source's status */
  CacheLastKeys keys; /* the entry's keys in rank 0's disk tier */
} JobOutcome;

/* compile_image in an MPI job: only rank 0 compiles; it sends its status
 * and cache keys, then its image or its diagnostics, to the others, which
 * take the same entry from their own disk tier when it holds it, else
 * store the image there (cache_adopt).  -1 when MPI failed. */
static int compile_image_in_job(TpuClient *c, const char *text, size_t len, const char *name,
                                const RefineSpec *refine, uint8_t **img, size_t *n, char **diag, bool *compiled) {
  JobOutcome out;
  memset(&out, 0, sizeof out);
  bool root = vm_mpi_rank(c->mpi) == 0;
  *compiled = false;
  if (root) out.rc = compile_image(c, text, len, name, refine, img, n, diag, &out.keys, compiled);
  if (root && !*diag && !(*diag = calloc(1, 1))) out.rc = -1;
  if (!vm_mpi_bcast(c->mpi, &out, sizeof out, 0)) out.rc = -1;
  if (out.rc == -1) return -1;
  void *blob = out.rc == 0 ? (void *)*img : (void *)*diag;
  size_t bn = !root ? 0 : out.rc == 0 ? *n : strlen(*diag) + 1;
  if (!vm_mpi_bcast_blob(c->mpi, &blob, &bn, 0)) return -1;
  if (root) return out.rc;
  if (out.rc != 0) {
    *diag = blob;
    (*diag)[bn ? bn - 1 : 0] = 0;
    return out.rc;
  }
  *img = blob, *n = bn;
  uint8_t *mine;
  size_t mn;
  if (c->disk && out.keys.has_key) {
    pthread_mutex_lock(&c->disk_lock);
    if (cache_adopt(c->disk, &out.keys, *img, *n, &mine, &mn)) free(*img), *img = mine, *n = mn;
    pthread_mutex_unlock(&c->disk_lock);
  }
  return 0;
}

/* Compiles text through the disk tier and the pipeline into a loaded
 * program (in job: the MPI job's protocol, compile_image_in_job); NULL
 * after rt_fail with the diagnostics.  *compiled: whether the pipeline
 * ran here (a disk miss). */
static VmProgram *compile_text(TpuClient *c, const char *text, size_t len, const char *name, const RefineSpec *refine,
                               bool job, bool *compiled) {
  uint8_t *img = NULL;
  size_t n = 0;
  char *diag = NULL;
  int rc = job ? compile_image_in_job(c, text, len, name, refine, &img, &n, &diag, compiled)
               : compile_image(c, text, len, name, refine, &img, &n, &diag, NULL, compiled);
  VmProgram *p = NULL;
  if (rc == 0) {
    char err[512];
    p = vm_program_load(img, n, err, sizeof err);
    if (!p) rt_fail(TPU_ERR_INTERNAL, "%s: the compiled program does not load: %s", name, err);
    /* Every process of the job runs it, or none. */
    if (job && vm_mpi_max(c->mpi, p ? 0 : 1) != 0 && p) {
      vm_program_free(p);
      p = NULL;
      rt_fail(TPU_ERR_INTERNAL, "%s: another process of the MPI job could not load rank 0's compiled program", name);
    }
  } else if (rc == -1) {
    rt_fail(TPU_ERR_RUNTIME, "%s: MPI failed sharing rank 0's compilation", name);
  } else {
    rt_fail(rc == 3 ? TPU_ERR_DATA : TPU_ERR_REJECTED, "%s", diag && *diag ? diag : "the program was rejected");
  }
  free(img);
  free(diag);
  return p;
}

/* The seed of a refined program's key: a hash of its argument types. */
static uint64_t refine_seed(const RefineSpec *r) {
  XXH3_state_t *st = XXH3_createState();
  if (!st) return 0;
  XXH3_64bits_reset(st);
  XXH3_64bits_update(st, r->entry ? r->entry : "main", strlen(r->entry ? r->entry : "main") + 1);
  for (int i = 0; i < r->nargs; i++) {
    const RefineArg *a = &r->args[i];
    int64_t head[5] = {a->known, a->any_elem, a->elem, a->rank, a->has_value ? a->value : INT64_MIN};
    XXH3_64bits_update(st, head, sizeof head);
    XXH3_64bits_update(st, a->dims, sizeof(int64_t) * (size_t)a->rank);
  }
  uint64_t h = XXH3_64bits_digest(st);
  XXH3_freeState(st);
  return h | 1; /* never 0, the seed of unrefined texts */
}

/* rt_exe_of_text and rt_exe_of_program (job: an MPI job's multi-chip
 * program, compiled by rank 0 once any process misses its memory tier). */
static RtExe *exe_of_text(TpuClient *c, const char *text, size_t len, const char *name, const RefineSpec *refine,
                          bool job, bool *compiled_now) {
  XXH128_hash_t k = refine ? XXH3_128bits_withSeed(text, len, refine_seed(refine)) : XXH3_128bits(text, len);
  if (compiled_now) *compiled_now = false;
  pthread_mutex_lock(&c->lock);
  RtExe *e = tier_find(c, k);
  pthread_mutex_unlock(&c->lock);
  if (e && (!job || vm_mpi_max(c->mpi, 0) == 0)) {
    atomic_fetch_add(&c->m.mem_hits, 1);
    return e;
  }
  if (!e && job) vm_mpi_max(c->mpi, 1);
  bool compiled;
  VmProgram *p = compile_text(c, text, len, name, refine, job, &compiled);
  if (e) { /* this process had it; another did not */
    vm_program_free(p);
    atomic_fetch_add(&c->m.mem_hits, 1);
    return e;
  }
  if (!p) return NULL;
  int fn = vm_program_find(p, refine && refine->entry ? refine->entry : "main");
  if (!(e = rt_exe_new(p, fn < 0 ? 0 : fn))) return NULL;
  if (compiled_now) *compiled_now = compiled;
  pthread_mutex_lock(&c->lock);
  RtExe *other = tier_find(c, k);
  bool added = !other && tier_add(c, k, e, false);
  pthread_mutex_unlock(&c->lock);
  if (added) return e;
  rt_exe_free(e);
  if (!other) rt_fail(TPU_ERR_RUNTIME, "out of host memory");
  return other; /* another thread got there first */
}

RtExe *rt_exe_of_text(TpuClient *c, const char *text, size_t len, const char *name, bool *compiled_now) {
  return exe_of_text(c, text, len, name, NULL, false, compiled_now);
}

RtExe *rt_exe_of_program(TpuClient *c, const char *text, size_t len, const RefineSpec *refine) {
  return exe_of_text(c, text, len, "program", refine, c->mpi && c->nchips > 1, NULL);
}

RtExe *rt_exe_by_key(TpuClient *c, uint64_t hi, uint64_t lo) {
  pthread_mutex_lock(&c->lock);
  RtExe *e = tier_find(c, (XXH128_hash_t){.low64 = lo, .high64 = hi});
  pthread_mutex_unlock(&c->lock);
  if (e) atomic_fetch_add(&c->m.mem_hits, 1);
  return e;
}

void rt_exe_alias(TpuClient *c, uint64_t hi, uint64_t lo, RtExe *e) {
  XXH128_hash_t k = {.low64 = lo, .high64 = hi};
  pthread_mutex_lock(&c->lock);
  if (!tier_find(c, k)) tier_add(c, k, e, true); /* out of memory: only a later miss */
  pthread_mutex_unlock(&c->lock);
}

void rt_tiers_free(TpuClient *c) {
  table_free(&c->sigs, rt_sig_free);
  table_free(&c->exes, entry_free);
  table_free(&c->types, type_free);
}
