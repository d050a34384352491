/* tpucc: the StableHLO compiler driver.  See `tpucc --help`. */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "frontend/bytecode.h"
#include "frontend/parser.h"
#include "ir/ir.h"
#include "passes/cost.h"
#include "tools/driver.h"

static const char usage_text[] =
    "usage: tpucc [options] INPUT.mlir|INPUT.mlir.bc\n"
    "\n"
    "Compiles StableHLO (text as JAX, PyTorch/XLA and StableHLO's own tests write\n"
    "it, or a portable artifact: MLIR bytecode in the VHLO dialect, told by its\n"
    "magic bytes) to bytecode for tpurun.\n"
    "\n"
    "options:\n"
    "  --emit=tpub            bytecode (default)\n"
    "  --emit=asm             a readable disassembly of the bytecode\n"
    "  --emit=mlir            the verified IR in MLIR's pretty form\n"
    "  --emit=mlir-generic    MLIR's generic op form (readable by mlir-opt-14\n"
    "                         --allow-unregistered-dialect)\n"
    "  --emit=vhlo-bytecode   a StableHLO portable artifact of the verified input\n"
    "                         (MLIR bytecode in the VHLO dialect), for --vhlo-version;\n"
    "                         CHLO ops kept (--passes=chlo-decompose: VHLO ops only)\n"
    "  --vhlo-version=X.Y.Z   the StableHLO version the artifact is for, 0.9.0 to\n"
    "                         1.20.0 (default 1.20.0); an op or type it lacks is\n"
    "                         refused, naming the version that introduced it\n"
    "  -o FILE                output path (default: INPUT with .tpub for bytecode,\n"
    "                         INPUT.mlir with .mlir.bc for vhlo-bytecode,\n"
    "                         standard output for the text forms)\n"
    "%s"
    "  --report               print the cost model's table (per op: FLOPs, HBM bytes,\n"
    "                         modeled time, bound unit, MXU utilization; program\n"
    "                         total and peak HBM) to standard output; emits\n"
    "                         nothing unless -o is given\n"
    "  --slices=S             the module's chips form S slices (default 1), each its own\n"
    "                         ICI torus, joined by the data-center network (DCN): the\n"
    "                         cost model gives collectives across slices a DCN stage and\n"
    "                         --report a dcn: line (docs/passes.md); S must divide\n"
    "                         mhlo.num_replicas x mhlo.num_partitions (else exit 2)\n"
    "  --verify-only          parse and verify (shardings included), print diagnostics,\n"
    "                         emit nothing\n"
    "  --split-input-file     treat '// -----' separated chunks as separate modules\n"
    "  --input-shape=SPEC     the concrete type of an argument of @main, repeat in order:\n"
    "                         3x4xf32, f32, i64=3 (a dimension variable's value); a\n"
    "                         program with unbounded '?' dimensions is refined to these\n"
    "                         shapes (refine-shapes, docs/shape-refinement.md)\n"
    "  --cache-stats          print the cache's entries, bytes, hits, misses, evictions\n"
    "                         and entries filled from rank 0 of an MPI job\n"
    "  --cache-clear          remove every entry of the cache\n"
    "  --explain-cache        print the cache key's components and their hashes, and\n"
    "                         whether the program is in the cache; compile nothing\n"
    "  (tpucc uses the cache for bytecode output when --cache-dir is given or\n"
    "   TPU_CACHE_DIR is set)\n"
    "  --version, --help\n"
    "\n"
    "INPUT may be '-' for standard input.\n"
    "exit status: 0 success, 1 bad usage, 2 input rejected (diagnostics printed),\n"
    "             3 unreadable input file (or a corrupt portable artifact),\n"
    "             70 internal error\n";

typedef enum Emit { EMIT_TPUB, EMIT_ASM, EMIT_MLIR, EMIT_MLIR_GENERIC, EMIT_VHLO, EMIT_NONE } Emit;

typedef struct Options {
  const char *input, *output;
  Emit emit;
  const char *vhlo_version; /* --vhlo-version; NULL: the current one */
  bool split;
  bool report; /* --report: the cost table on stdout */
  bool cache_stats, cache_clear, explain_cache;
  CompileOptions compile;
  RefineArg *shapes; /* --input-shape, in order */
  int nshapes;
} Options;

static int usage_error(const char *fmt, const char *arg) { return driver_usage_error("tpucc", fmt, arg); }

/* Parse argv into opts; returns -1 to continue, else an exit code. */
static int parse_args(int argc, char **argv, Options *o) {
  o->emit = EMIT_TPUB;
  compile_defaults(&o->compile);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int taken;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      printf(usage_text, driver_compile_help);
      return EXIT_OK;
    }
    if (strcmp(a, "--version") == 0) {
      printf("tpucc %s\n", TPUCC_VERSION);
      return EXIT_OK;
    }
    if (strncmp(a, "--emit=", 7) == 0) {
      const char *e = a + 7;
      if (strcmp(e, "mlir") == 0) o->emit = EMIT_MLIR;
      else if (strcmp(e, "mlir-generic") == 0) o->emit = EMIT_MLIR_GENERIC;
      else if (strcmp(e, "tpub") == 0) o->emit = EMIT_TPUB;
      else if (strcmp(e, "asm") == 0) o->emit = EMIT_ASM;
      else if (strcmp(e, "vhlo-bytecode") == 0) o->emit = EMIT_VHLO;
      else return usage_error("unknown --emit kind '%s' (expected tpub, asm, mlir, mlir-generic or vhlo-bytecode)", e);
    } else if (strncmp(a, "--vhlo-version=", 15) == 0) {
      if (!bytecode_version_supported(a + 15))
        return usage_error("--vhlo-version: '%s' is not a StableHLO version this tpucc writes (0.9.0 to 1.20.0)",
                           a + 15);
      o->vhlo_version = a + 15;
    } else if (strcmp(a, "--verify-only") == 0) {
      o->emit = EMIT_NONE;
    } else if (strcmp(a, "--cache-stats") == 0) {
      o->cache_stats = true;
    } else if (strcmp(a, "--cache-clear") == 0) {
      o->cache_clear = true;
    } else if (strcmp(a, "--explain-cache") == 0) {
      o->explain_cache = true;
    } else if (strcmp(a, "--report") == 0) {
      o->report = true;
    } else if (strncmp(a, "--slices=", 9) == 0) {
      char *end;
      long n = strtol(a + 9, &end, 10);
      if (*end || !a[9] || n < 1 || n > 4096) return usage_error("invalid --slices count '%s' (1 to 4096)", a + 9);
      o->compile.slices = (int)n;
    } else if (strcmp(a, "--split-input-file") == 0) {
      o->split = true;
    } else if (strncmp(a, "--input-shape=", 14) == 0) {
      char err[256];
      if (!o->shapes && !(o->shapes = calloc((size_t)argc, sizeof *o->shapes))) return usage_error("%s", "out of memory");
      if (!refine_parse_arg(a + 14, &o->shapes[o->nshapes++], err, sizeof err)) return usage_error("--input-shape: %s", err);
      o->compile.refine = (RefineSpec){NULL, o->nshapes, o->shapes};
      o->compile.refine_always = true;
    } else if (strcmp(a, "-o") == 0) {
      if (++i == argc) return usage_error("%s needs a file name", a);
      o->output = argv[i];
    } else if (strncmp(a, "-o", 2) == 0 && a[2]) {
      o->output = a + 2;
    } else if ((taken = driver_compile_option("tpucc", a, &o->compile)) != 0) {
      if (taken < 0) return EXIT_USAGE;
    } else if (a[0] == '-' && a[1]) {
      return usage_error("unknown option '%s'", a);
    } else {
      if (o->input) return usage_error("more than one input file given ('%s')", a);
      o->input = a;
    }
  }
  if (!o->input && !o->cache_stats && !o->cache_clear) return usage_error("%s", "no input file");
  if (o->vhlo_version && o->emit != EMIT_VHLO) return usage_error("%s", "--vhlo-version applies to --emit=vhlo-bytecode");
  return -1;
}

/* The default output of --emit=tpub (INPUT with its extension replaced by
 * .tpub) and of --emit=vhlo-bytecode (x.mlir -> x.mlir.bc). */
static char *default_output(const char *input, Emit emit) {
  size_t n = strlen(input);
  const char *dot = strrchr(input, '.'), *slash = strrchr(input, '/');
  const char *ext = emit == EMIT_VHLO ? ".mlir.bc" : ".tpub";
  if (emit == EMIT_VHLO && n >= 5 && strcmp(input + n - 5, ".mlir") == 0) ext = ".bc";
  else if (dot && (!slash || dot > slash)) n = (size_t)(dot - input);
  char *out = malloc(n + strlen(ext) + 1);
  if (out) {
    memcpy(out, input, n);
    strcpy(out + n, ext);
  }
  return out;
}

/* Opens the output of --emit; NULL after a message. */
static FILE *open_output(const Options *o, char **path_out) {
  *path_out = NULL;
  if (o->emit == EMIT_NONE) return NULL;
  const char *path = o->output;
  bool binary = o->emit == EMIT_TPUB || o->emit == EMIT_VHLO;
  if (!path && binary) {
    if (strcmp(o->input, "-") == 0) return stdout;
    path = *path_out = default_output(o->input, o->emit);
  }
  if (!path || strcmp(path, "-") == 0) return stdout;
  /* No O_TRUNC: close_output() cuts the file to what was written.  Writing
   * over the blocks of the previous output instead of freeing them costs a
   * tenth as much on ext4 (its truncate-then-rewrite heuristic), which is
   * most of a cache hit's time. */
  int fd = open(path, O_WRONLY | O_CREAT, 0666);
  FILE *f = fd >= 0 ? fdopen(fd, binary ? "wb" : "w") : NULL;
  if (!f) {
    fprintf(stderr, "tpucc: cannot write '%s': %s\n", path, strerror(errno));
    if (fd >= 0) close(fd);
  }
  return f;
}

/* Flushes and closes the output, cutting a regular file to the bytes
 * written; false on any failure (errno set). */
static bool close_output(FILE *out) {
  if (out == stdout) return fflush(out) == 0;
  bool ok = fflush(out) == 0;
  struct stat st;
  if (ok && fstat(fileno(out), &st) == 0 && S_ISREG(st.st_mode)) {
    off_t end = ftello(out);
    ok = end >= 0 && (end == st.st_size || ftruncate(fileno(out), end) == 0);
  }
  return (fclose(out) == 0) && ok;
}

/* --explain-cache: the key of each chunk, component by component. */
static bool explain_cache(const Options *o, const SourceFile *file, const SourceChunk *chunk, Cache *cache) {
  Context *c = ctx_new();
  c->diag.max_errors = o->compile.max_errors;
  Module *m = parse_module(c, file, chunk->start, chunk->end, chunk->first_line);
  bool refined;
  bool ok = m && verify_module(c, m) && compile_refine(c, m, &o->compile, &refined);
  if (ok) {
    char opts[512], hex[33];
    CacheKeyOptions ko = compile_cache_key_options(&o->compile, opts, sizeof opts);
    CacheKeyInfo info;
    cache_key_of_module(c, m, &ko, &info);
    printf("cache key of %s:\n", file->name);
    for (int i = 0; i < CACHE_KEY_PARTS; i++)
      printf("  %-15s %016llx  %s\n", info.parts[i].name, (unsigned long long)info.parts[i].hash, info.parts[i].value);
    cache_key_hex(info.key, hex);
    printf("key: %s\nstatus: %s\n", hex, cache && cache_has(cache, info.key) ? "hit" : "miss");
  }
  ctx_free(c);
  return ok;
}

/* Compiles chunk i of file and writes what -o / --emit / --report ask
 * for; the output file is opened at the first successful chunk (*out,
 * *path), so a rejected program leaves none.  False when the chunk is
 * rejected; *rc becomes EXIT_BAD_FILE when the output cannot be opened. */
static bool compile_chunk(const Options *o, const SourceFile *file, SourceChunk *chunk, int i, Cache *cache,
                          bool write, FILE **out, char **path, int *rc) {
  Context *c = ctx_new();
  c->diag.max_errors = o->compile.max_errors;
  uint8_t *img = NULL;
  size_t n = 0;
  PassContext pc = {0};
  Module *m = NULL;
  bool ok;
  if (cache) {
    int crc = compile_source(file, chunk, &o->compile, cache, NULL, &img, &n);
    ok = crc == 0;
    if (crc == EXIT_BAD_FILE) *rc = EXIT_BAD_FILE;
  } else {
    m = parse_module(c, file, chunk->start, chunk->end, chunk->first_line);
    bool refined, verify_only = o->emit == EMIT_NONE && !o->report;
    ok = m && verify_module(c, m);
    if (ok && o->emit == EMIT_VHLO)
      ok = (!o->compile.explicit_passes || compile_optimize(c, m, &o->compile, &pc)) &&
           bytecode_write_module(c, m, o->vhlo_version, &img, &n);
    else if (ok)
      ok = verify_only ? sharding_check(c, m)
                       : compile_refine(c, m, &o->compile, &refined) && compile_optimize(c, m, &o->compile, &pc);
  }
  if (!ok && c->diag.bad_input) *rc = EXIT_BAD_FILE;
  if (ok && !cache && write && (o->emit == EMIT_TPUB || o->emit == EMIT_ASM))
    ok = compile_lower(c, m, &o->compile, &img, &n);
  if (ok && write && !*out && !(*out = open_output(o, path))) *rc = EXIT_BAD_FILE;
  if (ok && *out) {
    if (i > 0 && o->emit != EMIT_TPUB) fputs("// -----\n", *out);
    if (o->emit == EMIT_TPUB || o->emit == EMIT_VHLO) {
      fwrite(img, 1, n, *out);
    } else if (o->emit == EMIT_ASM) {
      backend_disassemble(img, n, *out);
    } else {
      PrintOptions po = {.generic = o->emit == EMIT_MLIR_GENERIC};
      print_module(c, m, *out, &po);
    }
  }
  if (ok && o->report) {
    if (i > 0) fputs("// -----\n", stdout);
    cost_report(&pc, stdout);
  }
  free(img);
  ctx_free(c);
  return ok;
}

int main(int argc, char **argv) {
  Options o = {0};
  int rc = parse_args(argc, argv, &o);
  if (rc >= 0) return rc;
  if (o.cache_stats || o.cache_clear) {
    rc = o.cache_clear ? cache_clear(o.compile.cache_dir, stdout) : EXIT_OK;
    if (rc == EXIT_OK && o.cache_stats) rc = cache_print_stats(o.compile.cache_dir, stdout);
    return rc;
  }
  /* --report emits the program only when -o names where. */
  bool write = o.emit != EMIT_NONE && (!o.report || o.output);
  if (o.split && (o.emit == EMIT_TPUB || o.emit == EMIT_VHLO) && write)
    return usage_error("%s", "--split-input-file writes several programs: use it with --emit=asm, mlir or mlir-generic");
  char *out_path = o.output ? NULL : default_output(o.input, o.emit);
  const char *target_path = o.output ? o.output : o.emit == EMIT_TPUB || o.emit == EMIT_VHLO ? out_path : NULL;
  bool clobbers = write && target_path && driver_same_file(target_path, o.input);
  free(out_path);
  if (clobbers) return usage_error("refusing to write the output over the input file '%s'", o.input);
  size_t len;
  char *text = driver_read_file("tpucc", o.input, o.compile.max_input_bytes, &len);
  if (!text) return EXIT_BAD_FILE;
  SourceFile file = {strcmp(o.input, "-") == 0 ? "<stdin>" : o.input, text, len};
  SourceChunk *chunks;
  int nchunks = source_chunks(&file, o.split, &chunks);
  /* Bytecode goes through the cache when the user asked for one. */
  bool cached = !o.compile.no_cache && (o.compile.cache_dir || getenv("TPU_CACHE_DIR")) && write && !o.report &&
                (o.emit == EMIT_TPUB || o.emit == EMIT_ASM);
  Cache *cache = cached || o.explain_cache
                     ? cache_open(o.compile.cache_dir, o.compile.cache_max_bytes, "tpucc", stderr)
                     : NULL;
  if (o.explain_cache) {
    bool all = true;
    for (int i = 0; i < nchunks; i++) all &= explain_cache(&o, &file, &chunks[i], cache);
    cache_close(cache);
    free(chunks);
    free(text);
    free(o.shapes);
    return all ? EXIT_OK : EXIT_REJECTED;
  }
  bool failed = false;
  char *path = NULL;
  FILE *out = NULL;
  rc = EXIT_OK;
  for (int i = 0; i < nchunks && rc == EXIT_OK; i++)
    if (!compile_chunk(&o, &file, &chunks[i], i, cache, write, &out, &path, &rc)) failed = true;
  if (out && !close_output(out)) {
    fprintf(stderr, "tpucc: error writing '%s'\n", path ? path : o.output ? o.output : "<stdout>");
    rc = EXIT_BAD_FILE;
  }
  if (rc == EXIT_OK && failed) rc = EXIT_REJECTED;
  cache_close(cache);
  free(path);
  free(chunks);
  free(text);
  free(o.shapes);
  return rc;
}
