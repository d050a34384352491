/* tpurun: runs a .tpub (or compiles and runs a .mlir) on a simulated TPU
 * chip.  See `tpurun --help` and DESIGN.md §4. */
#include <errno.h>
#include <malloc.h>
#include <math.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

#include "runtime/run.h"
#include "tools/driver.h"
#include "vm/io/io.h"
#include "vm/profile.h"
#include "vm/chips/timeline.h"
#include "vm/vm.h"

#define EXIT_CHECK EXIT_CHECK_FAILED
#define EXIT_INTERRUPTED 130 /* 128 + SIGINT, as a shell reports a command Ctrl-C ended */

/* The one process-global of tpurun: set by the SIGINT handler, polled by
 * the VM before every instruction (VmOptions.interrupt).  A lock-free
 * atomic is async-signal-safe (C11 7.14.1.1), and the chips' threads read
 * it without a data race. */
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "the SIGINT flag must be lock-free");
static atomic_int interrupted;

static void on_sigint(int sig) {
  (void)sig;
  atomic_store_explicit(&interrupted, 1, memory_order_relaxed);
}

/* Ctrl-C (signal sig: SIGINT; under mpirun, which passes Ctrl-C on to its
 * processes as SIGTERM, that too) ends a run cleanly at its next
 * instruction (exit 130); a signal ignored on entry (a background job)
 * stays ignored. */
static void catch_interrupt(int sig) {
  struct sigaction old, sa;
  if (sigaction(sig, NULL, &old) != 0 || old.sa_handler == SIG_IGN) return;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  sigaction(sig, &sa, NULL);
}

static const char usage_text[] =
    "usage: tpurun [options] PROGRAM.tpub|PROGRAM.mlir|PROGRAM.mlir.bc\n"
    "\n"
    "Runs a compiled program (or compiles a StableHLO .mlir first, text or a\n"
    "portable artifact) on a simulated TPU chip and prints its results.\n"
    "\n"
    "options:\n"
    "  --function=NAME        entry point (default main)\n"
    "  --input=SPEC           an argument, repeat in order: 2x3xf32=1,2,3,4,5,6\n"
    "                         f32=1.5  2x2xi32=[[1 2][3 4]]  @file.npy  random  random:SEED\n"
    "                         2x3xf32=random  2x3xf32=random:SEED (random data of that shape)\n"
    "                         A .mlir whose @main has unbounded '?' dimensions is refined to\n"
    "                         the inputs' shapes (and the values of its integer scalar\n"
    "                         dimension variables, e.g. i64=3) before it is compiled, once\n"
    "                         per distinct input signature (docs/shape-refinement.md)\n"
    "  --output=SPEC          what to do with each result, in order: - prints,\n"
    "                         @file.npy writes (default: print all)\n"
    "  --check                evaluate check ops and custom_call @check.*: run @main, or\n"
    "                         every argument-free function when there is no @main;\n"
    "                         print PASS/FAIL per check\n"
    "  --split-input-file     treat '// -----' separated chunks as separate programs\n"
    "  --seed=N               seed for random inputs and elided weights (default 0)\n"
    "  --threads=N            host threads for tile-parallel kernels and chips (default:\n"
    "                         one per usable CPU); results are the same bits for every N\n"
    "  --replicas=N           run on N replicas (default: the module's mhlo.num_replicas, or 1;\n"
    "                         1 with --check, whose programs use interpreter.run_parallel)\n"
    "  --partitions=M         ... of M partitions each (default: mhlo.num_partitions, or 1)\n"
    "  --mesh=AxB[xC]         the torus the N*M chips sit on, row-major (default: the\n"
    "                         squarest one of the target's 2 or 3 dimensions); with\n"
    "                         --slices, the torus of one slice\n"
    "  --slices=S             the N*M chips form S slices (default 1) of N*M/S chips,\n"
    "                         chip c in slice c/(N*M/S), each its own torus, joined by\n"
    "                         the data-center network (DCN): collectives across slices\n"
    "                         take a DCN stage in the modeled time (docs/chips.md);\n"
    "                         S must divide N*M (else exit 1)\n"
    "                         With several chips every chip runs the function; an input\n"
    "                         of the parameter's type goes to every chip, one of type\n"
    "                         CHIPSx<type> gives chip c its slice c; each result is the\n"
    "                         chips' results stacked on a new leading dimension\n"
    "                         A partitioned program (tpu.spmd_partitioned) takes global\n"
    "                         inputs (or one per replica stacked) and prints global\n"
    "                         results (replicas stacked); its mhlo.num_partitions and\n"
    "                         tpu.mesh are the defaults (docs/chips.md)\n"
    "  --benchmark=N          run the function N more times after a warm-up run and\n"
    "                         print the median and minimum wall time of a run\n"
    "  --metrics              print compiles, cache hits and misses, compile and cache\n"
    "                         load time and the measured peak HBM (the high-water mark\n"
    "                         of a chip's accounted allocator without on-chip tile\n"
    "                         buffers, the highest over chips and runs; arguments and\n"
    "                         constants are not in it) to stderr at the end\n"
    "  --trace=FILE.json      write a Chrome/Perfetto trace of the modeled timeline: one\n"
    "                         process per chip, one track per unit (MXU, VPU, DMA, ICI;\n"
    "                         DCN across --slices); open it in ui.perfetto.dev or\n"
    "                         chrome://tracing\n"
    "  --profile              after the results, print a table (to stdout) of the host\n"
    "                         time of each top-level op of the function beside its\n"
    "                         modeled TPU time, bound unit, MXU utilization, FLOPs and\n"
    "                         HBM bytes (the program's COSTS); with --benchmark, of the\n"
    "                         last run\n"
    "  --max-steps=N          end a run past N steps (exit 4, naming the innermost running\n"
    "                         loop and its trip count); a step is one executed\n"
    "                         instruction, loop and region bodies included, per chip\n"
    "  --timeout=SECONDS      end a run after SECONDS of wall time (a decimal number > 0;\n"
    "                         exit 4, named as for --max-steps).  Ctrl-C (SIGINT) ends a\n"
    "                         run at its next instruction, naming it (exit 130)\n"
    "under mpirun (Open MPI): `mpirun -np P tpurun ...` simulates the slice's chips in P\n"
    "processes (P must divide the chip count), each a contiguous share; results are the\n"
    "same bits as one process's, printed (and written) by rank 0 (docs/mpi.md)\n"
    "  --rank-results         every process prints its own chips' results instead,\n"
    "                         stacked, and writes @f.npy outputs to f.rankR.npy\n"
    "compiling a .mlir input:\n%s"
    "  --version, --help\n"
    "\n"
    "exit status: 0 success, 1 a check failed or bad usage, 2 program rejected,\n"
    "             3 unreadable or invalid file (bad bytecode, bad .npy),\n"
    "             4 runtime error (trap, out of HBM, --max-steps, --timeout),\n"
    "             70 internal error, 130 interrupted (SIGINT)\n";

typedef struct Options {
  const char *program;
  const char *function;
  const char **inputs, **outputs;
  int ninputs, noutputs;
  bool check, split, profile, metrics;
  const char *trace; /* --trace=FILE.json */
  uint64_t seed;
  int benchmark; /* timed repetitions, 0: off */
  int threads;   /* host threads, 0: one per online core */
  uint64_t max_steps; /* --max-steps, 0: none */
  double timeout_s;   /* --timeout, 0: none */
  int replicas, partitions; /* 0: from the program */
  VmMesh mesh;              /* ndims 0: the default for the chips */
  int slices;               /* --slices, 0: one */
  CompileOptions compile;
  const char *compile_only; /* the first --target/-O/--passes given: only for .mlir input */
  VmMpi *mpi;               /* under mpirun: this process's link to the others, else NULL */
  bool rank_results;        /* --rank-results: every process emits its own chips' results */
} Options;

/* Whether this process prints and writes a slice's results: rank 0 of an
 * MPI job (every process with --rank-results), or the only process. */
static bool emits_results(const Options *o) { return vm_mpi_rank(o->mpi) == 0 || o->rank_results; }

static int usage_error(const char *fmt, const char *arg) { return driver_usage_error("tpurun", fmt, arg); }

/* A preset (passes/targets.def), the default for an unknown name. */
static const Target *target_of(const char *name) {
  const Target *t = target_lookup(name);
  return t ? t : target_default();
}

/* "AxB" or "AxBxC", each dimension >= 1, at most VM_MAX_CHIPS chips. */
static bool parse_mesh(const char *s, VmMesh *m) {
  m->ndims = 0;
  long total = 1;
  for (;;) {
    char *end;
    if (*s < '0' || *s > '9') return false;
    long d = strtol(s, &end, 10);
    if (d < 1 || d > VM_MAX_CHIPS || m->ndims == 3) return false;
    total *= d;
    if (total > VM_MAX_CHIPS) return false;
    m->dims[m->ndims++] = (int)d;
    if (!*end) break;
    if (*end != 'x') return false;
    s = end + 1;
  }
  return m->ndims >= 2;
}

/* --max-steps: decimal digits only, 1 to 2^64 - 1. */
static bool parse_max_steps(const char *s, uint64_t *out) {
  if (*s < '0' || *s > '9') return false;
  char *end;
  errno = 0;
  unsigned long long n = strtoull(s, &end, 10);
  if (*end || errno == ERANGE || n == 0) return false;
  *out = n;
  return true;
}

/* --timeout: a finite number of seconds, more than 0, at most a year. */
static bool parse_timeout(const char *s, double *out) {
  if (!((*s >= '0' && *s <= '9') || *s == '.')) return false;
  char *end;
  double t = strtod(s, &end);
  if (*end || !isfinite(t) || t <= 0 || t > 365 * 86400.0) return false;
  *out = t;
  return true;
}

static int parse_args(int argc, char **argv, Options *o) {
  o->function = NULL;
  compile_defaults(&o->compile);
  o->inputs = calloc((size_t)argc, sizeof(char *));
  o->outputs = calloc((size_t)argc, sizeof(char *));
  if (!o->inputs || !o->outputs) return usage_error("%s", "out of memory");
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int taken;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      printf(usage_text, driver_compile_help);
      return EXIT_OK;
    }
    if (strcmp(a, "--version") == 0) {
      printf("tpurun %s (bytecode format %d)\n", TPUCC_VERSION, TPUB_FORMAT_VERSION);
      return EXIT_OK;
    }
    if (strncmp(a, "--function=", 11) == 0) o->function = a + 11;
    else if (strncmp(a, "--input=", 8) == 0) o->inputs[o->ninputs++] = a + 8;
    else if (strncmp(a, "--output=", 9) == 0) o->outputs[o->noutputs++] = a + 9;
    else if (strcmp(a, "--check") == 0) o->check = true;
    else if (strcmp(a, "--profile") == 0) o->profile = true;
    else if (strcmp(a, "--metrics") == 0) o->metrics = true;
    else if (strncmp(a, "--trace=", 8) == 0) {
      if (!a[8]) return usage_error("%s", "--trace needs a file name");
      o->trace = a + 8;
    }
    else if (strncmp(a, "--threads=", 10) == 0) {
      char *end;
      long n = strtol(a + 10, &end, 10);
      if (*end || n < 1 || n > 4096) return usage_error("invalid --threads count '%s'", a + 10);
      o->threads = (int)n;
    }
    else if (strncmp(a, "--replicas=", 11) == 0 || strncmp(a, "--partitions=", 13) == 0) {
      bool rep = a[2] == 'r';
      const char *v = a + (rep ? 11 : 13);
      char *end;
      long n = strtol(v, &end, 10);
      if (*end || !*v || n < 1 || n > VM_MAX_CHIPS)
        return usage_error(rep ? "invalid --replicas count '%s' (1 to 4096)" : "invalid --partitions count '%s' (1 to 4096)", v);
      *(rep ? &o->replicas : &o->partitions) = (int)n;
    }
    else if (strncmp(a, "--slices=", 9) == 0) {
      char *end;
      long n = strtol(a + 9, &end, 10);
      if (*end || !a[9] || n < 1 || n > VM_MAX_CHIPS) return usage_error("invalid --slices count '%s' (1 to 4096)", a + 9);
      o->slices = (int)n;
    }
    else if (strncmp(a, "--mesh=", 7) == 0) {
      if (!parse_mesh(a + 7, &o->mesh)) return usage_error("invalid --mesh '%s' (expected AxB or AxBxC, each at least 1)", a + 7);
    }
    else if (strncmp(a, "--benchmark=", 12) == 0) {
      char *end;
      long n = strtol(a + 12, &end, 10);
      if (*end || n < 1 || n > 100000) return usage_error("invalid --benchmark count '%s'", a + 12);
      o->benchmark = (int)n;
    }
    else if (strncmp(a, "--max-steps=", 12) == 0) {
      if (!parse_max_steps(a + 12, &o->max_steps))
        return usage_error("invalid --max-steps '%s' (a whole number of steps, at least 1)", a + 12);
    }
    else if (strncmp(a, "--timeout=", 10) == 0) {
      if (!parse_timeout(a + 10, &o->timeout_s))
        return usage_error("invalid --timeout '%s' (seconds, a number greater than 0)", a + 10);
    }
    else if (strcmp(a, "--split-input-file") == 0) o->split = true;
    else if (strcmp(a, "--rank-results") == 0) o->rank_results = true;
    else if (strncmp(a, "--seed=", 7) == 0) {
      char *end;
      o->seed = strtoull(a + 7, &end, 10);
      if (*end || !a[7]) return usage_error("invalid --seed value '%s'", a + 7);
    } else if ((taken = driver_compile_option("tpurun", a, &o->compile)) != 0) {
      if (taken < 0) return EXIT_USAGE;
      bool output_changing = strncmp(a, "--target=", 9) == 0 || strncmp(a, "--passes=", 9) == 0 ||
                             (a[0] == '-' && a[1] == 'O');
      if (output_changing && !o->compile_only) o->compile_only = a;
    } else if (a[0] == '-' && a[1]) {
      return usage_error("unknown option '%s'", a);
    } else {
      if (o->program) return usage_error("more than one program given ('%s')", a);
      o->program = a;
    }
  }
  if (!o->program) return usage_error("%s", "no program file");
  for (int i = 0; i < o->noutputs; i++)
    if (o->outputs[i][0] == '@' && driver_same_file(o->outputs[i] + 1, o->program))
      return usage_error("refusing to write a result over the program file '%s'", o->program);
  return -1;
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Checks every --output against the results of fn before anything runs
 * or is printed: their count, their form, and that a .npy can hold each
 * result it is asked to (with a note where the file holds another form). */
static int check_outputs(const Options *o, const VmProgram *p, const VmFunc *fn) {
  if ((uint32_t)o->noutputs > fn->n_results) {
    fprintf(stderr, "tpurun: %d --output given, @%s has %u result%s\n", o->noutputs, fn->name, fn->n_results,
            fn->n_results == 1 ? "" : "s");
    return EXIT_USAGE;
  }
  for (int pass = 0; pass < 2; pass++) /* every output checked, then the notes */
    for (int i = 0; i < o->noutputs; i++) {
      const char *spec = o->outputs[i];
      char err[1024], note[600];
      if (strcmp(spec, "-") == 0) continue;
      if (spec[0] != '@') {
        fprintf(stderr, "tpurun: --output=%s: expected '-' or '@FILE.npy'\n", spec);
        return EXIT_USAGE;
      }
      const VmType *t = p->spmd ? run_global_type(fn, true, i) : fn->result_types[i];
      int rc = vm_npy_writable(t, spec + 1, note, sizeof note, err, sizeof err);
      if (rc != VM_IO_OK) {
        fprintf(stderr, "tpurun: result %d of @%s: %s\n", i, fn->name, err);
        return rc;
      }
      if (pass == 1 && note[0]) fprintf(stderr, "tpurun: note: %s\n", note);
    }
  return EXIT_OK;
}

/* Prints or writes the results as --output asks (check_outputs passed). */
static int emit_results(const Options *o, const VmFunc *fn, VmValue *res) {
  for (uint32_t i = 0; i < fn->n_results; i++) {
    const char *spec = (int)i < o->noutputs ? o->outputs[i] : (o->noutputs ? NULL : "-");
    if (!spec) continue;
    if (strcmp(spec, "-") == 0) {
      printf("result[%u]: ", i);
      vm_print_value(stdout, &res[i]);
      printf("\n");
      continue;
    }
    char err[512];
    int rc = vm_npy_write(spec + 1, &res[i], err, sizeof err);
    if (rc != VM_IO_OK) {
      fprintf(stderr, "tpurun: %s\n", err);
      return rc;
    }
  }
  return EXIT_OK;
}

/* emit_results of the user's results (bounded dims cut to their sizes). */
static int emit_user_results(const Options *o, const VmFunc *fn, const VmFunc *user, VmValue *res) {
  if (!fn->n_dyn) return emit_results(o, fn, res);
  VmValue *cut = calloc(user->n_results + 1, sizeof(VmValue));
  if (!cut || !run_dyn_results(fn, res, cut)) {
    free(cut);
    fprintf(stderr, "tpurun: out of memory\n");
    return 70;
  }
  int rc = emit_results(o, user, cut);
  run_dyn_results_free(fn, cut);
  free(cut);
  return rc;
}

/* The exit status of a failed run (vm_run, vm_slice_run). */
static int run_failed(int vm_status) { return vm_status == VM_INTERRUPTED ? EXIT_INTERRUPTED : EXIT_RUNTIME; }

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* --benchmark: n timed runs after the first; prints median and minimum. */
static int benchmark(const Options *o, VmExec *x, int fi, const VmValue *args, const VmFunc *fn) {
  double *t = calloc((size_t)o->benchmark, sizeof(double));
  int rc = EXIT_OK;
  /* The results stay in the VM (vm_run drops them): only the run is timed. */
  for (int k = 0; k < o->benchmark && t; k++) {
    double t0 = now_seconds();
    int st = vm_run(x, fi, args, (int)fn->n_params, NULL);
    if (st != VM_OK) {
      fprintf(stderr, "%s\n", vm_error(x));
      rc = run_failed(st);
      break;
    }
    t[k] = now_seconds() - t0;
  }
  if (rc == EXIT_OK && t) {
    qsort(t, (size_t)o->benchmark, sizeof(double), compare_doubles);
    printf("benchmark: @%s median %.3f ms, min %.3f ms over %d runs\n", fn->name, t[o->benchmark / 2] * 1e3,
           t[0] * 1e3, o->benchmark);
  }
  free(t);
  return rc;
}

/* --trace: the chips' modeled timelines as a Chrome/Perfetto trace. */
static int write_trace(const Options *o, const VmProgram *p, const VmTimeline *const *chips, int n, int partitions) {
  FILE *f = fopen(o->trace, "w");
  bool ok = f && vm_trace_write(f, p, chips, n, partitions);
  if (f && fclose(f) != 0) ok = false;
  if (!ok) {
    fprintf(stderr, "tpurun: cannot write the trace '%s'\n", o->trace);
    return EXIT_BAD_FILE;
  }
  return EXIT_OK;
}

/* The modeled step of a run: the latest chip's clock, with the ICI time
 * the chips waited for (printed with --profile and --trace); across
 * slices, the DCN part of the ICI busy time too. */
static void print_modeled_step(const VmTimeline *const *chips, int n, int slices) {
  double step = 0, exposed = 0, ici = 0, dcn = 0;
  for (int c = 0; c < n; c++) {
    if (chips[c]->clock_s > step) step = chips[c]->clock_s;
    if (chips[c]->exposed_s > exposed) exposed = chips[c]->exposed_s;
    if (chips[c]->ici_s > ici) ici = chips[c]->ici_s;
    if (chips[c]->dcn_s > dcn) dcn = chips[c]->dcn_s;
  }
  printf("modeled step: %.3f us on %d chip%s (ICI busy %.3f us, of which the chips waited %.3f us", step * 1e6, n,
         n == 1 ? "" : "s", ici * 1e6, exposed * 1e6);
  if (slices > 1) printf("; %d slices, DCN busy %.3f us of the ICI's", slices, dcn * 1e6);
  printf(")\n");
}

/* The --input spec of parameter i: "random" (or none) and SHAPE=random
 * take --seed; buf holds a rewritten spec. */
static const char *input_spec(const Options *o, uint32_t i, char *buf, size_t n) {
  const char *s = (int)i < o->ninputs ? o->inputs[i] : NULL;
  const char *eq = s ? strchr(s, '=') : NULL;
  if (!s || strcmp(s, "random") == 0) {
    snprintf(buf, n, "random:%llu", (unsigned long long)o->seed);
    return buf;
  }
  if (eq && strcmp(eq + 1, "random") == 0 && (size_t)(eq - s) < n - 32) {
    snprintf(buf, n, "%.*s=random:%llu", (int)(eq - s), s, (unsigned long long)o->seed);
    return buf;
  }
  return s;
}

/* Runs function fi with the --input arguments. */
static int run_function(const Options *o, VmExec *x, const VmProgram *p, int fi) {
  const VmFunc *fn = &p->funcs[fi];
  VmFunc user = *fn; /* the arguments and results the user gives and sees (bounded dims: no sizes) */
  user.n_params = run_user_count(fn, false);
  user.n_results = run_user_count(fn, true);
  if (!o->check && (uint32_t)o->ninputs != user.n_params) {
    fprintf(stderr, "tpurun: @%s takes %u arguments, %d --input given\n", fn->name, user.n_params, o->ninputs);
    return EXIT_USAGE;
  }
  /* Under mpirun every process runs this chip; rank 0 writes its results. */
  bool emit = vm_mpi_rank(o->mpi) == 0;
  int out_rc = o->check || o->benchmark || !emit ? EXIT_OK : check_outputs(o, p, &user);
  if (o->mpi) out_rc = vm_mpi_max(o->mpi, out_rc);
  if (out_rc != EXIT_OK) return out_rc;
  VmValue *args = calloc(fn->n_params + 1, sizeof(VmValue));
  VmValue *res = calloc(fn->n_results + 1, sizeof(VmValue));
  int rc = EXIT_OK;
  if (!args || !res) {
    fprintf(stderr, "tpurun: out of memory\n");
    rc = 70;
  }
  for (uint32_t i = 0, u = 0; i < fn->n_params && rc == EXIT_OK; i++) {
    char err[512];
    char spec[256];
    if (run_is_size(fn, false, i)) continue;
    uint32_t j = u++;
    const char *s = input_spec(o, j, spec, sizeof spec);
    int st = fn->n_dyn ? run_dyn_input(fn, i, s, (int)j, args, err, sizeof err)
                       : vm_parse_input(s, fn->reg_types[i], (int)j, &args[i], err, sizeof err);
    if (st != VM_IO_OK) {
      fprintf(stderr, "tpurun: %s\n", err);
      rc = st;
    }
  }
  /* Under mpirun every process runs the chip (its run_parallel slices span
   * them): all start it, or none; rank 0 speaks for them. */
  if (o->mpi) rc = vm_mpi_max(o->mpi, rc);
  int st = rc == EXIT_OK ? vm_run(x, fi, args, (int)fn->n_params, res) : VM_OK;
  if (rc == EXIT_OK) {
    if (st != VM_OK) {
      if (emit) fprintf(stderr, "%s\n", vm_error(x));
      rc = run_failed(st);
    } else if (o->benchmark) {
      rc = benchmark(o, x, fi, args, fn);
    } else if (!o->check) {
      rc = emit ? emit_user_results(o, fn, &user, res) : EXIT_OK;
    }
    if (rc == EXIT_OK && o->profile) vm_profile_print(vm_exec_profile(x), stdout);
    const VmTimeline *tl = vm_exec_timeline(x);
    if (rc == EXIT_OK && (o->profile || o->trace)) print_modeled_step(&tl, 1, 1);
    if (rc == EXIT_OK && o->trace && emit) rc = write_trace(o, p, &tl, 1, 1);
  }
  for (uint32_t i = 0; args && i < fn->n_params; i++) vm_value_free(&args[i]);
  for (uint32_t i = 0; res && i < fn->n_results; i++) vm_value_free(&res[i]);
  free(args);
  free(res);
  return rc;
}

/* The --input values of a run on replicas x partitions chips: whole[i]
 * holds input i, of the parameter's type (every chip gets it) or stacked
 * (chip c gets slice c, stacked[i] set).  A partitioned program's inputs
 * are global values (run_global_type), or one per replica stacked. */
static int parse_chip_inputs(const Options *o, const VmProgram *p, const VmFunc *fn, const VmMesh *mesh,
                             VmValue *whole, bool *stacked) {
  int n = p->spmd ? mesh->replicas : mesh->replicas * mesh->partitions; /* values an input may stack */
  for (uint32_t i = 0; i < fn->n_params; i++) {
    char err[512], err2[512], spec[256];
    const char *s = input_spec(o, i, spec, sizeof spec);
    const VmType *type = p->spmd ? run_global_type(fn, false, (int)i) : fn->reg_types[i];
    int st = vm_parse_input(s, type, (int)i, &whole[i], err, sizeof err);
    if (st == VM_IO_OK) continue;
    StackedType t;
    if (n > 1 && type->kind == TPUB_TY_TENSOR && run_stack_type(&t, type, n)) {
      int st2 = vm_parse_input(s, &t.type, (int)i, &whole[i], err2, sizeof err2);
      free(t.dims);
      if (st2 == VM_IO_OK) {
        whole[i].type = type; /* data holds n of them */
        stacked[i] = true;
        continue;
      }
    }
    if (p->spmd) {
      fprintf(stderr, "tpurun: %s (argument %u of the partitioned @%s takes the global value, ", err, i, fn->name);
      vm_print_type(stderr, type);
      fprintf(stderr, "%s; each of its %d partitions gets %s ", n > 1 ? ", or one per replica stacked" : "",
              mesh->partitions, fn->param_shards && fn->param_shards[i] ? "its piece," : "a copy,");
      vm_print_type(stderr, fn->reg_types[i]);
      fprintf(stderr, ")\n");
    } else {
      fprintf(stderr, "tpurun: %s (on %d chips an input may also hold %d values of the parameter's type, one per chip)\n",
              err, n, n);
    }
    return st;
  }
  return EXIT_OK;
}

/* Prints or writes (o's outputs) each result of the n chips res[0..n),
 * stacked on a new leading dimension (a tuple or token result: the first
 * chip's); with spmd, a partitioned program's global values (one per
 * replica, stacked when there are several). */
static int emit_stacked(const Options *o, const VmFunc *fn, VmValue *const *res, int n, const VmMesh *spmd) {
  VmValue *stacked = calloc(fn->n_results + 1, sizeof(VmValue));
  StackedType *types = calloc(fn->n_results + 1, sizeof(StackedType));
  int rc = stacked && types ? EXIT_OK : 70;
  for (uint32_t i = 0; i < fn->n_results && rc == EXIT_OK; i++) {
    if (fn->result_types[i]->kind != TPUB_TY_TENSOR) stacked[i] = res[0][i];
    else if (spmd ? !run_spmd_result(fn, (int)i, res, spmd->replicas, spmd->partitions, &types[i], &stacked[i])
                  : !run_stack_result(fn, (int)i, res, n, &types[i], &stacked[i]))
      rc = 70;
  }
  if (rc == EXIT_OK) rc = emit_results(o, fn, stacked);
  else fprintf(stderr, "tpurun: out of memory\n");
  for (uint32_t i = 0; stacked && types && i < fn->n_results; i++) {
    if (fn->result_types[i]->kind != TPUB_TY_TENSOR) continue;
    free(stacked[i].data);
    free(types[i].dims);
  }
  free(stacked);
  free(types);
  return rc;
}

/* The results of a slice's chips, stacked (a partitioned program's as
 * global values). */
static int emit_chip_results(const Options *o, const VmProgram *p, const VmFunc *fn, VmValue *const *res,
                             const VmMesh *mesh) {
  return emit_stacked(o, fn, res, mesh->replicas * mesh->partitions, p->spmd ? mesh : NULL);
}

/* --rank-results in an MPI job: this process's chips [lo, hi), each
 * result stacked over them (a partitioned program's too: its chips'
 * pieces, not the global value), to stdout or to the @FILE outputs with
 * ".rankR" before their extension. */
static int emit_rank_results(const Options *o, const VmFunc *fn, VmValue *const *res, int lo, int hi) {
  Options mine = *o;
  const char **outs = calloc((size_t)o->noutputs + 1, sizeof *outs);
  char (*names)[4096] = calloc((size_t)o->noutputs + 1, sizeof *names);
  int rc = outs && names ? EXIT_OK : 70;
  for (int i = 0; i < o->noutputs && rc == EXIT_OK; i++) {
    const char *f = o->outputs[i], *dot = strrchr(f, '.'), *slash = strrchr(f, '/');
    if (!dot || (slash && dot < slash)) dot = f + strlen(f);
    snprintf(names[i], sizeof names[i], "%.*s.rank%d%s", (int)(dot - f), f, vm_mpi_rank(o->mpi), dot);
    outs[i] = f[0] == '@' ? names[i] : f;
  }
  mine.outputs = outs;
  if (rc == EXIT_OK) rc = emit_stacked(&mine, fn, res + lo, hi - lo, NULL);
  else fprintf(stderr, "tpurun: out of memory\n");
  free(outs);
  free(names);
  return rc;
}

/* Runs function fi on every chip of a slice with the --input arguments. */
static int run_on_chips(const Options *o, const VmProgram *p, int fi, const VmOptions *vo, const VmMesh *mesh,
                        VmCheckStats *stats, uint64_t *peak) {
  const VmFunc *fn = &p->funcs[fi];
  int n = mesh->replicas * mesh->partitions;
  if (!o->check && (uint32_t)o->ninputs != fn->n_params) {
    fprintf(stderr, "tpurun: @%s takes %u arguments, %d --input given\n", fn->name, fn->n_params, o->ninputs);
    return EXIT_USAGE;
  }
  int lo = 0, hi = n;
  char why[512];
  if (o->mpi && !vm_mpi_share(o->mpi, n, &lo, &hi, why, sizeof why)) {
    if (vm_mpi_rank(o->mpi) == 0)
      fprintf(stderr, "tpurun: %s (the slice has %d replicas x %d partitions)\n", why, mesh->replicas, mesh->partitions);
    return EXIT_USAGE;
  }
  int out_rc = o->check || o->benchmark || !emits_results(o) ? EXIT_OK : check_outputs(o, p, fn);
  if (o->mpi) out_rc = vm_mpi_max(o->mpi, out_rc);
  if (out_rc != EXIT_OK) return out_rc;
  VmValue *whole = calloc(fn->n_params + 1, sizeof(VmValue));
  bool *stacked = calloc(fn->n_params + 1, sizeof(bool));
  int *fns = calloc((size_t)n, sizeof(int));
  VmValue **args = calloc((size_t)n, sizeof(VmValue *)), **res = calloc((size_t)n, sizeof(VmValue *));
  VmSlice *slice = vm_slice_new(p, vo, mesh);
  int rc = whole && stacked && fns && args && res && slice ? EXIT_OK : 70;
  for (int c = 0; c < n && rc == EXIT_OK; c++) {
    fns[c] = fi;
    args[c] = calloc(fn->n_params + 1, sizeof(VmValue));
    res[c] = calloc(fn->n_results + 1, sizeof(VmValue));
    if (!args[c] || !res[c]) rc = 70;
  }
  if (rc != EXIT_OK) fprintf(stderr, "tpurun: out of memory starting %d chips\n", n);
  if (rc == EXIT_OK) rc = parse_chip_inputs(o, p, fn, mesh, whole, stacked);
  if (rc == EXIT_OK && p->spmd && !run_spmd_args(fn, mesh->replicas, mesh->partitions, whole, stacked, args)) {
    fprintf(stderr, "tpurun: out of memory cutting the global inputs into %d chips' pieces\n", n);
    rc = 70;
  }
  if (rc == EXIT_OK && !p->spmd) run_chip_args(fn, n, whole, stacked, args);
  if (o->mpi) rc = vm_mpi_max(o->mpi, rc); /* every process starts the chips, or none */
  int st = rc == EXIT_OK ? vm_slice_run(slice, fns, (const VmValue *const *)args, res) : VM_OK;
  bool rank0 = vm_mpi_rank(o->mpi) == 0;
  if (rc == EXIT_OK) {
    if (st != VM_OK) {
      if (rank0) fprintf(stderr, "%s\n", vm_slice_error(slice));
      rc = run_failed(st);
    } else if (o->benchmark) {
      double *t = calloc((size_t)o->benchmark, sizeof(double));
      for (int k = 0; k < o->benchmark && t && rc == EXIT_OK; k++) {
        double t0 = now_seconds();
        if ((st = vm_slice_run(slice, fns, (const VmValue *const *)args, NULL)) != VM_OK) {
          if (rank0) fprintf(stderr, "%s\n", vm_slice_error(slice));
          rc = run_failed(st);
        }
        t[k] = now_seconds() - t0;
      }
      if (rc == EXIT_OK && t) {
        qsort(t, (size_t)o->benchmark, sizeof(double), compare_doubles);
        printf("benchmark: @%s on %d chips median %.3f ms, min %.3f ms over %d runs\n", fn->name, n,
               t[o->benchmark / 2] * 1e3, t[0] * 1e3, o->benchmark);
      }
      free(t);
    } else if (!o->check && emits_results(o)) {
      rc = o->mpi && o->rank_results ? emit_rank_results(o, fn, res, lo, hi) : emit_chip_results(o, p, fn, res, mesh);
    }
    if (rc == EXIT_OK && o->profile && vm_slice_hosts(slice, 0)) {
      printf("profile of chip 0 of %d:\n", n);
      vm_profile_print(vm_exec_profile(vm_slice_exec(slice, 0)), stdout);
    }
    const VmTimeline **tls = rc == EXIT_OK && (o->profile || o->trace) ? calloc((size_t)n, sizeof *tls) : NULL;
    for (int c = 0; tls && c < n; c++) tls[c] = vm_slice_timeline(slice, c);
    if (tls) print_modeled_step(tls, n, o->slices);
    if (tls && o->trace && rank0) rc = write_trace(o, p, tls, n, mesh->partitions);
    free(tls);
  }
  for (int c = 0; slice && c < n; c++) {
    VmCheckStats cs = vm_slice_check_stats(slice, c);
    stats->passed += cs.passed;
    stats->failed += cs.failed;
    uint64_t chip_peak = vm_slice_peak_hbm_bytes(slice, c);
    if (chip_peak > *peak) *peak = chip_peak;
  }
  if (p->spmd) run_spmd_args_free(fn, n, args);
  for (int c = 0; c < n && res; c++) {
    for (uint32_t i = 0; res[c] && i < fn->n_results; i++) vm_value_free(&res[c][i]);
    free(res[c]);
    if (args) free(args[c]);
  }
  for (uint32_t i = 0; whole && i < fn->n_params; i++) vm_value_free(&whole[i]);
  vm_slice_free(slice);
  free(whole);
  free(stacked);
  free(fns);
  free(args);
  free(res);
  return rc;
}

/* The slice a run uses (--replicas, --partitions, --mesh, else the
 * module's); EXIT_OK, or EXIT_USAGE after a message.  The module's slice is
 * the default, except for --check programs that are not partitioned: their
 * @main drives its chips itself with interpreter.run_parallel. */
static int slice_of(const Options *o, const VmProgram *p, const char *name, VmMesh *out) {
  VmMesh mesh = {o->replicas ? o->replicas : o->check ? 1 : p->num_replicas,
                 o->partitions ? o->partitions : o->check && !p->spmd ? 1 : p->num_partitions, 0, {0, 0, 0}};
  int chips = mesh.replicas * mesh.partitions;
  if (p->spmd && mesh.partitions != p->num_partitions) {
    fprintf(stderr, "tpurun: %s is partitioned for %d partitions (mhlo.num_partitions): --partitions=%d cannot split "
            "its global values\n", name, p->num_partitions, mesh.partitions);
    return EXIT_USAGE;
  }
  int slices = o->slices > 1 ? o->slices : 1;
  if (chips % slices) {
    fprintf(stderr, "tpurun: --slices=%d does not divide the run's %d replicas x %d partitions = %d chips\n", slices,
            mesh.replicas, mesh.partitions, chips);
    return EXIT_USAGE;
  }
  if (!o->mesh.ndims && p->mesh_rank && mesh.replicas == 1 && slices == 1) { /* the shardings' device mesh */
    mesh.ndims = p->mesh_rank;
    memcpy(mesh.dims, p->mesh, sizeof mesh.dims);
  }
  if (chips > VM_MAX_CHIPS) {
    fprintf(stderr, "tpurun: %d replicas x %d partitions is more than %d chips\n", mesh.replicas, mesh.partitions,
            VM_MAX_CHIPS);
    return EXIT_USAGE;
  }
  if (o->mesh.ndims) {
    int held = o->mesh.dims[0] * o->mesh.dims[1] * (o->mesh.ndims == 3 ? o->mesh.dims[2] : 1);
    if (held != chips / slices) {
      if (slices > 1)
        fprintf(stderr, "tpurun: --mesh holds %d chips, a slice of the run's %d replicas x %d partitions in %d slices "
                "has %d\n", held, mesh.replicas, mesh.partitions, slices, chips / slices);
      else
        fprintf(stderr, "tpurun: --mesh holds %d chips, the run has %d replicas x %d partitions = %d\n", held,
                mesh.replicas, mesh.partitions, chips);
      return EXIT_USAGE;
    }
    mesh.ndims = o->mesh.ndims;
    memcpy(mesh.dims, o->mesh.dims, sizeof mesh.dims);
  }
  *out = mesh;
  return EXIT_OK;
}

/* Runs a loaded program (freed here); name is for messages.  source: the
 * .mlir the image was compiled from (NULL for a .tpub): its name replaces
 * the one in the image's locations, which may be that of an earlier
 * compilation found in the cache.  *peak: raised to the highest HBM
 * high-water mark of a chip's accounted allocator. */
static int run_program(const Options *o, const char *name, const char *source, VmProgram *p, VmCheckStats *stats,
                       uint64_t *peak) {
  if (source) vm_program_set_source(p, source);
  const Target *target = target_of(p->target[0] ? p->target : o->compile.target);
  VmOptions vo = {.hbm_bytes = target->hbm_bytes,
                  .ici_link_bytes_per_s = target->ici_bytes_per_s,
                  .ici_hop_s = TARGET_ICI_HOP_S,
                  .torus_dims = target->torus_dims,
                  .slices = o->slices,
                  .dcn_bytes_per_s = target->dcn_bytes_per_s,
                  .dcn_s = target->dcn_s,
                  .run_checks = o->check,
                  .seed = o->seed,
                  .profile = o->profile,
                  .trace = o->trace != NULL,
                  .max_steps = o->max_steps,
                  .timeout_s = o->timeout_s,
                  .interrupt = &interrupted,
                  .mpi = o->mpi,
                  .threads = o->threads ? o->threads : vm_default_threads()};
  VmMesh mesh;
  int src = slice_of(o, p, name, &mesh);
  if (src != EXIT_OK) {
    vm_program_free(p);
    return src;
  }
  int chips = mesh.replicas * mesh.partitions;
  if (chips > 1) {
    const char *fname = o->function ? o->function : "main";
    int fi = vm_program_find(p, fname);
    int rc = EXIT_USAGE;
    if (fi < 0) fprintf(stderr, "tpurun: %s: no function @%s\n", name, fname);
    else if (p->funcs[fi].n_dyn) fprintf(stderr, "tpurun: @%s has bounded dynamic dims: it runs on one chip\n", fname);
    else rc = run_on_chips(o, p, fi, &vo, &mesh, stats, peak);
    vm_program_free(p);
    return rc;
  }
  VmExec *x = vm_exec_new(p, &vo);
  int rc = EXIT_OK;
  if (!x) {
    fprintf(stderr, "tpurun: out of memory\n");
    rc = 70;
  } else if (o->function || !o->check || vm_program_find(p, "main") >= 0) {
    const char *fname = o->function ? o->function : "main";
    int fi = vm_program_find(p, fname);
    if (fi < 0) {
      fprintf(stderr, "tpurun: %s: no function @%s\n", name, fname);
      rc = EXIT_USAGE;
    } else {
      rc = run_function(o, x, p, fi);
    }
  } else {
    /* --check without @main: every argument-free public function. */
    for (uint32_t f = 0; f < p->n_funcs && rc == EXIT_OK; f++)
      if ((p->funcs[f].flags & TPUB_FUNC_PUBLIC) && p->funcs[f].n_params == 0) rc = run_function(o, x, p, (int)f);
  }
  if (x) {
    VmCheckStats s = vm_check_stats(x);
    stats->passed += s.passed;
    stats->failed += s.failed;
    if (vm_peak_hbm_bytes(x) > *peak) *peak = vm_peak_hbm_bytes(x);
  }
  vm_exec_free(x);
  vm_program_free(p);
  return rc;
}

/* Runs a .tpub image (text, len bytes). */
static int run_tpub(const Options *o, const char *text, size_t len, VmCheckStats *stats, uint64_t *peak) {
  char err[512];
  VmProgram *p = vm_program_load(text, len, err, sizeof err);
  if (!p) {
    fprintf(stderr, "tpurun: %s: bad bytecode: %s\n", o->program, err);
    return EXIT_BAD_FILE;
  }
  if (o->compile_only)
    fprintf(stderr, "tpurun: warning: %s is ignored: '%s' is already compiled (for %s); it applies to .mlir input\n",
            o->compile_only, o->program, p->target[0] ? p->target : "v5e");
  return run_program(o, o->program, NULL, p, stats, peak);
}

/* Compiles one chunk of a .mlir file (through the cache) and loads it:
 * EXIT_OK with *p and *img (*n bytes, to free after the run), or the exit
 * code. */
static int compile_here(const Options *o, const SourceFile *file, SourceChunk *chunk, Cache *cache,
                        CacheMetrics *metrics, VmProgram **p, uint8_t **img, size_t *n) {
  int hits = cache ? cache_metrics(cache)->hits : 0;
  int crc = compile_source(file, chunk, &o->compile, cache, metrics, img, n);
  char err[512];
  *p = crc == 0 ? vm_program_load(*img, *n, err, sizeof err) : NULL;
  if (crc == 0 && !*p && cache && cache_metrics(cache)->hits > hits) {
    /* An entry that checks out but does not load (another build wrote it
     * under the same versions) is a miss: compile and replace it. */
    fprintf(stderr, "tpurun: warning: %s: the cached program does not load (%s); compiling it again\n", file->name,
            err);
    free(*img);
    cache_skip_reads(cache, true);
    crc = compile_source(file, chunk, &o->compile, cache, metrics, img, n);
    cache_skip_reads(cache, false);
    if (crc == 0) *p = vm_program_load(*img, *n, err, sizeof err);
  }
  if (crc != 0) return crc == EXIT_BAD_FILE ? EXIT_BAD_FILE : EXIT_REJECTED;
  if (*p) return EXIT_OK;
  fprintf(stderr, "tpurun: %s: bad bytecode: %s\n", file->name, err);
  free(*img);
  return EXIT_BAD_FILE;
}

/* What rank 0 of an MPI job tells the others about one compilation. */
typedef struct Rank0Outcome {
  int32_t rc;         /* EXIT_OK, or the exit code every process returns */
  CacheLastKeys keys; /* the cache keys rank 0 found or stored the entry under */
} Rank0Outcome;

/* A process other than rank 0 takes rank 0's image (sent, n bytes, owned),
 * or the same entry of its own cache (cache_adopt: a hit on a directory
 * shared with rank 0; a cache of its own is filled from rank 0). */
static int load_from_rank0(const char *name, Cache *cache, const Rank0Outcome *out, uint8_t *sent, size_t n,
                           VmProgram **p, uint8_t **img) {
  uint8_t *mine;
  size_t mn;
  if (cache && out->keys.has_key && cache_adopt(cache, &out->keys, sent, n, &mine, &mn)) {
    free(sent);
    sent = mine, n = mn;
  }
  *img = sent;
  char err[512];
  if ((*p = vm_program_load(sent, n, err, sizeof err))) return EXIT_OK;
  fprintf(stderr, "tpurun: %s: rank 0's compiled program does not load here: bad bytecode: %s\n", name, err);
  return EXIT_BAD_FILE;
}

/* compile_and_load in an MPI job: only rank 0 compiles (through its
 * cache; only it prints diagnostics) and sends its exit code, cache keys
 * and image to the others (load_from_rank0); then every process agrees on
 * the exit code. */
static int compile_in_job(const Options *o, const SourceFile *file, SourceChunk *chunk, Cache *cache,
                          CacheMetrics *metrics, VmProgram **p, uint8_t **img) {
  Rank0Outcome out;
  memset(&out, 0, sizeof out);
  size_t n = 0;
  *p = NULL;
  *img = NULL;
  bool root = vm_mpi_rank(o->mpi) == 0;
  if (root) {
    if (cache) memset(cache_last_keys(cache), 0, sizeof(CacheLastKeys));
    out.rc = compile_here(o, file, chunk, cache, metrics, p, img, &n);
    if (cache) out.keys = *cache_last_keys(cache);
  }
  if (!vm_mpi_bcast(o->mpi, &out, sizeof out, 0)) out.rc = EXIT_RUNTIME;
  if (out.rc != EXIT_OK) {
    if (root && *p) vm_program_free(*p), free(*img), *p = NULL;
    return out.rc;
  }
  void *blob = *img;
  int rc = vm_mpi_bcast_blob(o->mpi, &blob, &n, 0) ? EXIT_OK : EXIT_RUNTIME;
  if (!root && rc == EXIT_OK) rc = load_from_rank0(file->name, cache, &out, blob, n, p, img);
  rc = vm_mpi_max(o->mpi, rc);
  if (rc != EXIT_OK && *p) {
    vm_program_free(*p);
    free(*img);
    *p = NULL;
  }
  return rc;
}

/* Compiles one chunk of a .mlir file (through the cache) and loads it:
 * EXIT_OK with *p and *img (to free after the run), or the exit code. */
static int compile_and_load(const Options *o, const SourceFile *file, SourceChunk *chunk, Cache *cache,
                            CacheMetrics *metrics, VmProgram **p, uint8_t **img) {
  size_t n;
  if (o->mpi) return compile_in_job(o, file, chunk, cache, metrics, p, img);
  return compile_here(o, file, chunk, cache, metrics, p, img, &n);
}

/* The concrete argument types the --input values give, for refining a
 * program with unbounded dimensions (o->compile.refine): a literal's or
 * SHAPE=random's type, a .npy header's shape; "random" gives none.  The
 * values of the leading integer scalars (before any other input) are
 * dimension variables, as JAX orders them; later scalars are data.
 * EXIT_OK, or the exit code after a message (an unreadable .npy). */
static int refine_inputs(Options *o, RefineArg *args) {
  bool leading = true;
  for (int i = 0; i < o->ninputs; i++) {
    const char *s = o->inputs[i];
    char err[512];
    if (s[0] == '@') {
      int st = vm_npy_shape(s + 1, &args[i].rank, args[i].dims, REFINE_MAX_RANK, err, sizeof err);
      if (st != VM_IO_OK) {
        fprintf(stderr, "tpurun: input %d: %s\n", i, err);
        return st;
      }
      args[i].known = args[i].any_elem = true;
    } else if (strncmp(s, "random", 6) != 0 && !refine_parse_arg(s, &args[i], err, sizeof err)) {
      memset(&args[i], 0, sizeof args[i]);
    }
    leading = leading && args[i].has_value;
    if (!leading) args[i].has_value = false;
  }
  o->compile.refine = (RefineSpec){o->function ? o->function : "main", o->ninputs, args};
  return EXIT_OK;
}

/* Compiles and runs a .mlir file (text, len bytes), each chunk of it with
 * --split-input-file; the worst exit code. */
static int run_mlir(const Options *o, char *text, size_t len, Cache *cache, CacheMetrics *metrics, VmCheckStats *stats,
                    uint64_t *peak) {
  SourceFile file = {strcmp(o->program, "-") == 0 ? "<stdin>" : o->program, text, len};
  SourceChunk *chunks;
  int nchunks = source_chunks(&file, o->split, &chunks);
  int rc = EXIT_OK;
  for (int i = 0; i < nchunks && rc != EXIT_INTERRUPTED; i++) {
    if (atomic_load(&interrupted)) {
      fprintf(stderr, "tpurun: %s: interrupted before running it\n", file.name);
      rc = EXIT_INTERRUPTED;
      break;
    }
    VmProgram *p;
    uint8_t *img;
    int r = compile_and_load(o, &file, &chunks[i], cache, metrics, &p, &img);
    if (r == EXIT_REJECTED) {
      if (rc == EXIT_OK) rc = EXIT_REJECTED;
      continue;
    }
    if (r == EXIT_OK) {
      r = run_program(o, file.name, file.name, p, stats, peak);
      free(img);
    }
    if (r != EXIT_OK && (rc == EXIT_OK || rc == EXIT_CHECK || r == EXIT_INTERRUPTED)) rc = r;
  }
  free(chunks);
  return rc;
}

/* --check's summary line and exit code: a failed check, or none run, is
 * EXIT_CHECK. */
static int report_checks(const Options *o, const VmCheckStats *stats, int rc) {
  printf("checks: %d passed, %d failed\n", stats->passed, stats->failed);
  if (rc == EXIT_OK && stats->failed) rc = EXIT_CHECK;
  if (rc == EXIT_OK && stats->passed + stats->failed == 0) {
    fprintf(stderr, "tpurun: %s: no checks ran (no check op was executed)\n", o->program);
    rc = EXIT_CHECK;
  }
  return rc;
}

int main(int argc, char **argv) {
  /* Tensors are large and short-lived: keep freed blocks in the heap
   * instead of returning each one to the kernel and faulting it in again. */
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  Options o = {0};
  int rc = parse_args(argc, argv, &o);
  if (rc >= 0) {
    free(o.inputs);
    free(o.outputs);
    return rc;
  }
  catch_interrupt(SIGINT);
  char mpi_err[256];
  o.mpi = vm_mpi_open("tpurun", mpi_err, sizeof mpi_err);
  if (!o.mpi && mpi_err[0]) {
    fprintf(stderr, "tpurun: cannot join the MPI job: %s\n", mpi_err);
    free(o.inputs);
    free(o.outputs);
    return EXIT_RUNTIME;
  }
  if (o.mpi) catch_interrupt(SIGTERM);
  /* Other processes print nothing on stdout unless asked: rank 0 prints
   * the results, as one process would. */
  if (o.mpi && !emits_results(&o) && !freopen("/dev/null", "w", stdout)) {
    fprintf(stderr, "tpurun: cannot silence rank %d's output: %s\n", vm_mpi_rank(o.mpi), strerror(errno));
    vm_mpi_abort(o.mpi, EXIT_RUNTIME);
  }
  size_t len;
  char *text = driver_read_file("tpurun", o.program, o.compile.max_input_bytes, &len);
  /* Every process goes on only if every one read the program. */
  if (o.mpi && vm_mpi_max(o.mpi, text ? EXIT_OK : EXIT_BAD_FILE) != EXIT_OK) {
    free(text);
    text = NULL;
  }
  if (!text) {
    free(o.inputs);
    free(o.outputs);
    vm_mpi_close(o.mpi);
    return EXIT_BAD_FILE;
  }
  VmCheckStats stats = {0};
  uint64_t peak = 0;
  Cache *cache = NULL;
  CacheMetrics metrics = {0};
  if ((len >= 8 && memcmp(text, TPUB_MAGIC, 8) == 0) || ends_with(o.program, ".tpub")) {
    rc = run_tpub(&o, text, len, &stats, &peak);
  } else {
    RefineArg *shapes = calloc((size_t)o.ninputs + 1, sizeof *shapes);
    rc = shapes ? refine_inputs(&o, shapes) : 70;
    if (o.mpi) rc = vm_mpi_max(o.mpi, rc); /* every process reads its inputs, or none goes on */
    cache = o.compile.no_cache ? NULL : cache_open(o.compile.cache_dir, o.compile.cache_max_bytes, "tpurun", stderr);
    if (rc == EXIT_OK) rc = run_mlir(&o, text, len, cache, &metrics, &stats, &peak);
    free(shapes);
  }
  if (o.metrics) {
    const CacheMetrics *cm = cache ? cache_metrics(cache) : &(CacheMetrics){0};
    char rank[64] = "", filled[64] = "";
    if (o.mpi) {
      snprintf(rank, sizeof rank, "rank %d: ", vm_mpi_rank(o.mpi));
      snprintf(filled, sizeof filled, ", filled from rank 0 %d", cm->filled);
    }
    fprintf(stderr,
            "metrics: %scompiles %d, cache hits %d, cache misses %d%s, compile time %.3f ms, load time %.3f ms, "
            "peak HBM %llu bytes\n",
            rank, metrics.compiles, cm->hits, cm->misses, filled, metrics.compile_s * 1e3, cm->load_s * 1e3,
            (unsigned long long)peak);
  }
  cache_close(cache);
  if (o.check) rc = report_checks(&o, &stats, rc);
  free(text);
  free(o.inputs);
  free(o.outputs);
  vm_mpi_close(o.mpi);
  if (fflush(stdout) != 0 && rc == EXIT_OK) rc = EXIT_BAD_FILE;
  return rc;
}
