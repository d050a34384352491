/* The client: options, the thread's error message, the default streams,
 * tpu_sync and the metrics (DESIGN.md §9, docs/runtime.md). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "passes/target.h"
#include "runtime/runtime.h"

/* The calling thread's last failure: tpu_error's answer, like errno. */
static _Thread_local char thread_error[4096];
static _Thread_local int thread_code;

int rt_fail(int code, const char *fmt, ...) {
  char msg[sizeof thread_error]; /* the arguments may quote the last message */
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  memcpy(thread_error, msg, sizeof msg);
  thread_code = code;
  return code;
}

const char *rt_last_error(void) { return thread_error; }

int rt_last_code(void) { return thread_code; }

TPU_API const char *tpu_error(const TpuClient *c) {
  (void)c;
  return thread_error;
}

TPU_API const char *tpu_version(void) { return TPUCC_VERSION; }

const char *const rt_reasons[8] = {"host_read", "sync", "size_bound", "repeated_step",
                                   "program_run", "cross_stream", "mode_switch", "copy"};

int rt_reason_index(const char *reason) {
  for (int i = 0; i < 8; i++)
    if (strcmp(rt_reasons[i], reason) == 0) return i;
  return 0;
}

/* The mode of TPU_EAGER_MODE, or fallback when unset; -1 when it names none. */
static int mode_from_env(int fallback) {
  const char *e = getenv("TPU_EAGER_MODE");
  if (!e || !*e) return fallback;
  if (strcasecmp(e, "strict") == 0) return TPU_EAGER_STRICT;
  if (strcasecmp(e, "debug") == 0) return TPU_EAGER_DEBUG;
  if (strcasecmp(e, "fused") == 0) return TPU_EAGER_FUSED;
  return -1;
}

/* The options a client reads, whatever the size of the caller's struct:
 * fields past its struct_size keep their defaults. */
static int read_options(const TpuClientOptions *in, TpuClientOptions *o) {
  memset(o, 0, sizeof *o);
  if (!in) return TPU_OK;
  if (in->struct_size < offsetof(TpuClientOptions, no_disk_cache) || in->struct_size > 4096)
    return rt_fail(TPU_ERR_USAGE,
                   "tpu_client_create: options.struct_size is %zu; set it to sizeof(TpuClientOptions) (%zu)",
                   in->struct_size, sizeof(TpuClientOptions));
  memcpy(o, in, in->struct_size < sizeof *o ? in->struct_size : sizeof *o);
  if ((unsigned)o->mode > TPU_EAGER_FUSED)
    return rt_fail(TPU_ERR_USAGE, "tpu_client_create: options.mode %d is not a TpuEagerMode", (int)o->mode);
  if (o->chips < 0 || o->chips > VM_MAX_CHIPS)
    return rt_fail(TPU_ERR_USAGE, "tpu_client_create: options.chips %d is not in 0..%d", o->chips, VM_MAX_CHIPS);
  if (o->threads < 0 || o->threads > 1024)
    return rt_fail(TPU_ERR_USAGE, "tpu_client_create: options.threads %d is not in 0..1024", o->threads);
  if (o->opt_level < 0 || o->opt_level > TPU_OPT_O2)
    return rt_fail(TPU_ERR_USAGE, "tpu_client_create: options.opt_level %d is not a TPU_OPT_* value", o->opt_level);
  if (o->fused_max_ops < 0)
    return rt_fail(TPU_ERR_USAGE, "tpu_client_create: options.fused_max_ops %d is negative", o->fused_max_ops);
  return TPU_OK;
}

/* Fills c's configuration from the options; TPU_OK or a usage error. */
static int configure(TpuClient *c, const TpuClientOptions *o) {
  const Target *t = target_lookup(o->target ? o->target : "v5e");
  if (!t) return rt_fail(TPU_ERR_USAGE, "tpu_client_create: unknown target '%s' (v4, v5e, v5p, v6e, v7x)", o->target);
  int mode = mode_from_env((int)o->mode);
  if (mode < 0)
    return rt_fail(TPU_ERR_USAGE, "TPU_EAGER_MODE='%s' is not one of debug, strict, fused", getenv("TPU_EAGER_MODE"));
  atomic_init(&c->mode, mode);
  c->nchips = o->chips ? o->chips : 1;
  c->target_name = t->name;
  c->hbm_bytes = o->hbm_bytes ? o->hbm_bytes : t->hbm_bytes;
  c->threads = o->threads ? o->threads : vm_default_threads();
  c->fused_max_ops = o->fused_max_ops ? o->fused_max_ops : 2048;
  c->nan_check = !o->no_nan_check;
  c->dump_dir = getenv("TPU_DUMP_GRAPHS");
  if (c->dump_dir && !*c->dump_dir) c->dump_dir = NULL;
  compile_defaults(&c->graph_opts);
  c->graph_opts.target = t->name;
  c->graph_opts.opt_level = o->opt_level ? o->opt_level - 1 : 2;
  /* One op: its CHLO expansion where the VM has no kernel, its own kernel
   * choice (layout: MXU tiles for a contraction) and the fit check;
   * nothing that needs more than the op. */
  c->op_opts = c->graph_opts;
  c->op_opts.explicit_passes = true;
  c->op_opts.passes = (Pipeline){.n = 4, .ids = {PASS_EXPAND, PASS_CHLO_DECOMPOSE, PASS_LAYOUT, PASS_BUFFER_ASSIGN}};
  if (o->cache_max_bytes) c->graph_opts.cache_max_bytes = o->cache_max_bytes;
  if (!o->no_disk_cache && cache_resolve_dir(o->cache_dir, c->cache_dir, sizeof c->cache_dir))
    c->disk = cache_open(c->cache_dir, c->graph_opts.cache_max_bytes, "libtpurun", NULL);
  /* In an MPI job the client's chips are spread over its processes. */
  char err[256];
  c->mpi = vm_mpi_open("libtpurun", err, sizeof err);
  if (!c->mpi && err[0]) return rt_fail(TPU_ERR_RUNTIME, "tpu_client_create: cannot join the MPI job: %s", err);
  return TPU_OK;
}

TPU_API int tpu_client_create(const TpuClientOptions *opts, TpuClient **out) {
  if (!out) return rt_fail(TPU_ERR_USAGE, "tpu_client_create: out is NULL");
  *out = NULL;
  TpuClientOptions o;
  int rc = read_options(opts, &o);
  if (rc) return rc;
  TpuClient *c = calloc(1, sizeof *c);
  if (!c) return rt_fail(TPU_ERR_RUNTIME, "tpu_client_create: out of host memory");
  pthread_mutex_init(&c->lock, NULL);
  pthread_mutex_init(&c->disk_lock, NULL);
  pthread_cond_init(&c->changed, NULL);
  pthread_mutex_init(&c->m.metrics_lock, NULL);
  if ((rc = configure(c, &o)) != TPU_OK) {
    tpu_client_destroy(c);
    return rc;
  }
  c->defaults = calloc((size_t)c->nchips, sizeof *c->defaults);
  c->chip_bytes = calloc((size_t)c->nchips, sizeof *c->chip_bytes);
  c->live = calloc((size_t)c->nchips, sizeof *c->live);
  if (!c->defaults || !c->chip_bytes || !c->live) {
    tpu_client_destroy(c);
    return rt_fail(TPU_ERR_RUNTIME, "tpu_client_create: out of host memory");
  }
  *out = c;
  return TPU_OK;
}

TpuStream *rt_default_stream(TpuClient *c, int chip) {
  pthread_mutex_lock(&c->lock);
  TpuStream *s = c->defaults[chip];
  pthread_mutex_unlock(&c->lock);
  if (s) return s;
  TpuStream *made = rt_stream_new(c, chip, true);
  if (!made) return NULL;
  pthread_mutex_lock(&c->lock);
  if (!c->defaults[chip]) {
    c->defaults[chip] = made;
    made = NULL;
  }
  s = c->defaults[chip];
  pthread_mutex_unlock(&c->lock);
  if (made) rt_stream_retire(c, made); /* another thread's stream won */
  return s;
}

/* The streams of c at this moment (malloc'ed array, *n of them). */
static TpuStream **all_streams(TpuClient *c, int *n) {
  pthread_mutex_lock(&c->lock);
  int k = 0;
  for (TpuStream *s = c->streams; s; s = s->next) k++;
  TpuStream **v = calloc((size_t)k + 1, sizeof *v);
  k = 0;
  for (TpuStream *s = c->streams; v && s; s = s->next) v[k++] = s;
  pthread_mutex_unlock(&c->lock);
  *n = k;
  return v;
}

int rt_flush_all(TpuClient *c, const char *reason) {
  int n, rc = TPU_OK;
  TpuStream **v = all_streams(c, &n);
  if (!v) return rt_fail(TPU_ERR_RUNTIME, "out of host memory");
  for (int i = 0; i < n; i++) {
    int r = rt_graph_flush(v[i], reason);
    if (r && !rc) rc = r;
  }
  free(v);
  return rc;
}

TPU_API int tpu_sync(TpuClient *c) {
  if (!c) return rt_fail(TPU_ERR_USAGE, "tpu_sync: client is NULL");
  int rc = rt_flush_all(c, "sync");
  char first[sizeof thread_error] = "";
  if (rc) snprintf(first, sizeof first, "%s", thread_error);
  int n;
  TpuStream **v = all_streams(c, &n);
  if (!v) return rt_fail(TPU_ERR_RUNTIME, "tpu_sync: out of host memory");
  for (int i = 0; i < n; i++) {
    int r = rt_stream_sync(v[i]);
    if (r && !rc) {
      rc = r;
      snprintf(first, sizeof first, "%s", thread_error);
    }
  }
  free(v);
  if (rc) rt_fail(rc, "%s", first);
  return rc;
}

TPU_API int tpu_client_chips(const TpuClient *c) { return c ? c->nchips : rt_fail(-1, "tpu_client_chips: client is NULL"); }

TPU_API TpuEagerMode tpu_client_mode(const TpuClient *c) {
  return c ? (TpuEagerMode)atomic_load(&((TpuClient *)c)->mode) : TPU_EAGER_STRICT;
}

TPU_API int tpu_client_set_mode(TpuClient *c, TpuEagerMode mode) {
  if (!c) return rt_fail(TPU_ERR_USAGE, "tpu_client_set_mode: client is NULL");
  if ((unsigned)mode > TPU_EAGER_FUSED)
    return rt_fail(TPU_ERR_USAGE, "tpu_client_set_mode: %d is not a TpuEagerMode", (int)mode);
  int old = atomic_exchange(&c->mode, (int)mode);
  int rc = old == TPU_EAGER_FUSED ? rt_flush_all(c, "mode_switch") : TPU_OK;
  return rc;
}

TPU_API void tpu_client_destroy(TpuClient *c) {
  if (!c) return;
  rt_flush_all(c, "sync");
  for (TpuStream *s = c->streams; s; s = s->next) rt_stream_sync(s);
  while (c->streams) {
    TpuStream *s = c->streams;
    c->streams = s->next;
    rt_stream_free(s);
  }
  while (c->retired) {
    TpuStream *s = c->retired;
    c->retired = s->next;
    rt_stream_free(s);
  }
  rt_tensor_free_all(c);
  rt_tiers_free(c);
  if (c->disk) cache_close(c->disk);
  if (c->mpi) vm_mpi_close(c->mpi);
  free(c->defaults);
  free(c->chip_bytes);
  free(c->live);
  table_free(&c->shapes, free);
  table_free(&c->steps, free);
  pthread_mutex_destroy(&c->lock);
  pthread_mutex_destroy(&c->disk_lock);
  pthread_cond_destroy(&c->changed);
  pthread_mutex_destroy(&c->m.metrics_lock);
  free(c);
}

/* ---- metrics ------------------------------------------------------------ */

void rt_count_modeled(TpuClient *c, double seconds) {
  pthread_mutex_lock(&c->m.metrics_lock);
  c->m.modeled_s += seconds;
  pthread_mutex_unlock(&c->m.metrics_lock);
}

TPU_API int tpu_metrics_json(TpuClient *c, char *buf, size_t len) {
  if (!c) return rt_fail(-1, "tpu_metrics_json: client is NULL");
  if (!buf && len) return rt_fail(-1, "tpu_metrics_json: buf is NULL but len is %zu", len);
  static const char *const modes[3] = {"strict", "debug", "fused"};
  RtMetrics *m = &c->m;
  char dir[2 * sizeof c->cache_dir];
  size_t d = 0;
  for (const char *p = c->disk ? c->cache_dir : ""; *p && d + 8 < sizeof dir; p++) {
    if (*p == '"' || *p == '\\') dir[d++] = '\\';
    if ((unsigned char)*p < 0x20) d += (size_t)snprintf(dir + d, sizeof dir - d, "\\u%04x", *p);
    else dir[d++] = *p;
  }
  dir[d] = '\0';
  pthread_mutex_lock(&c->disk_lock);
  CacheMetrics disk = c->disk ? *cache_metrics(c->disk) : (CacheMetrics){0};
  pthread_mutex_unlock(&c->disk_lock);
  pthread_mutex_lock(&m->metrics_lock);
  char reasons[512];
  size_t r = 0;
  for (int i = 0; i < 8; i++)
    r += (size_t)snprintf(reasons + r, sizeof reasons - r, "%s\"%s\": %llu", i ? ", " : "", rt_reasons[i],
                          (unsigned long long)m->reasons[i]);
  int n = snprintf(
      buf, len,
      "{\"mode\": \"%s\", \"chips\": %d, \"target\": \"%s\", "
      "\"ops\": {\"strict\": %llu, \"debug\": %llu, \"fused\": %llu}, "
      "\"signatures\": %llu, \"direct_lowerings\": %llu, \"direct_lowering_seconds\": %.6f, "
      "\"graphs\": %llu, \"graph_ops\": %llu, \"compiles\": %llu, \"compile_seconds\": %.6f, "
      "\"recompiles\": %llu, \"programs_run\": %llu, \"nan_checks\": %llu, \"modeled_seconds\": %.9f, "
      "\"cache\": {\"memory_hits\": %llu, \"disk_hits\": %llu, \"disk_misses\": %llu, \"disk_filled\": %llu, "
      "\"disk_dir\": \"%s\"}, "
      "\"materializations\": {%s}}",
      modes[atomic_load(&c->mode)], c->nchips, c->target_name, (unsigned long long)m->ops[0], (unsigned long long)m->ops[1],
      (unsigned long long)m->ops[2], (unsigned long long)m->signatures, (unsigned long long)m->direct, m->direct_s,
      (unsigned long long)m->graphs, (unsigned long long)m->graph_ops, (unsigned long long)m->compiles, m->compile_s,
      (unsigned long long)m->recompiles, (unsigned long long)m->programs_run, (unsigned long long)m->nan_checks, m->modeled_s,
      (unsigned long long)m->mem_hits, (unsigned long long)disk.hits, (unsigned long long)disk.misses,
      (unsigned long long)disk.filled, dir, reasons);
  pthread_mutex_unlock(&m->metrics_lock);
  return n < 0 ? -1 : n + 1;
}
