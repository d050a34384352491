/* tpucc: the StableHLO compiler driver.  See `tpucc --help`. */
#include <errno.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/parser.h"
#include "ir/ir.h"

#define TPUCC_VERSION "0.1.0"

static const char usage_text[] =
    "usage: tpucc [options] INPUT.mlir\n"
    "\n"
    "Reads StableHLO text (as JAX, PyTorch/XLA and StableHLO's own tests write it),\n"
    "verifies it, and prints it back.\n"
    "\n"
    "options:\n"
    "  --emit=mlir            print the verified IR in MLIR's pretty form (default)\n"
    "  --emit=mlir-generic    print MLIR's generic op form (readable by mlir-opt-14\n"
    "                         --allow-unregistered-dialect)\n"
    "  --emit=tpub|asm        bytecode and its disassembly (not available yet)\n"
    "  -o FILE                write the output to FILE (default: standard output)\n"
    "  --verify-only          parse and verify, print diagnostics, emit nothing\n"
    "  --split-input-file     treat '// -----' separated chunks as separate modules\n"
    "  --max-errors=N         stop reporting after N errors (default 20)\n"
    "  --version, --help\n"
    "\n"
    "INPUT may be '-' for standard input.\n"
    "exit status: 0 success, 1 bad usage, 2 input rejected (diagnostics printed),\n"
    "             3 unreadable input file, 70 internal error\n";

typedef enum Emit { EMIT_MLIR, EMIT_MLIR_GENERIC, EMIT_NONE } Emit;

typedef struct Options {
  const char *input, *output;
  Emit emit;
  bool split;
  int max_errors;
} Options;

static int usage_error(const char *fmt, const char *arg) {
  fprintf(stderr, "tpucc: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\nrun 'tpucc --help' for usage\n");
  return EXIT_USAGE;
}

/* Parse argv into opts; returns -1 to continue, else an exit code. */
static int parse_args(int argc, char **argv, Options *o) {
  o->emit = EMIT_MLIR;
  o->max_errors = 20;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(usage_text, stdout);
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
      else if (strcmp(e, "tpub") == 0 || strcmp(e, "asm") == 0)
        return usage_error("--emit=%s: bytecode emission is not available in this version yet", e);
      else return usage_error("unknown --emit kind '%s' (expected mlir or mlir-generic)", e);
    } else if (strcmp(a, "--verify-only") == 0) {
      o->emit = EMIT_NONE;
    } else if (strcmp(a, "--split-input-file") == 0) {
      o->split = true;
    } else if (strncmp(a, "--max-errors=", 13) == 0) {
      char *end;
      long n = strtol(a + 13, &end, 10);
      if (*end || n < 1 || n > 100000) return usage_error("invalid --max-errors value '%s'", a + 13);
      o->max_errors = (int)n;
    } else if (strcmp(a, "-o") == 0) {
      if (++i == argc) return usage_error("%s needs a file name", a);
      o->output = argv[i];
    } else if (strncmp(a, "-o", 2) == 0 && a[2]) {
      o->output = a + 2;
    } else if (a[0] == '-' && a[1]) {
      return usage_error("unknown option '%s'", a);
    } else {
      if (o->input) return usage_error("more than one input file given ('%s')", a);
      o->input = a;
    }
  }
  if (!o->input) return usage_error("%s", "no input file");
  return -1;
}

/* Read a whole file (or stdin for "-"); NULL with a message on failure. */
static char *read_file(const char *path, size_t *len) {
  FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "tpucc: cannot open '%s': %s\n", path, strerror(errno));
    return NULL;
  }
  /* Regular files are read in one go; pipes grow the buffer. */
  struct stat st;
  size_t cap = 1 << 16, n = 0;
  if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) cap = (size_t)st.st_size + 1;
  char *buf = malloc(cap);
  for (;;) {
    if (n == cap) {
      cap *= 2;
      char *nb = realloc(buf, cap);
      if (!nb) {
        free(buf);
        fprintf(stderr, "tpucc: '%s' is too large to read\n", path);
        if (f != stdin) fclose(f);
        return NULL;
      }
      buf = nb;
    }
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (got == 0) break;
  }
  bool err = ferror(f);
  if (f != stdin) fclose(f);
  if (err) {
    fprintf(stderr, "tpucc: error reading '%s'\n", path);
    free(buf);
    return NULL;
  }
  *len = n;
  return buf;
}

int main(int argc, char **argv) {
  Options o = {0};
  int rc = parse_args(argc, argv, &o);
  if (rc >= 0) return rc;
  size_t len;
  char *text = read_file(o.input, &len);
  if (!text) return EXIT_BAD_FILE;
  SourceFile file = {strcmp(o.input, "-") == 0 ? "<stdin>" : o.input, text, len};
  FILE *out = stdout;
  if (o.output && o.emit != EMIT_NONE) {
    out = fopen(o.output, "w");
    if (!out) {
      fprintf(stderr, "tpucc: cannot write '%s': %s\n", o.output, strerror(errno));
      free(text);
      return EXIT_BAD_FILE;
    }
  }
  char *out_buffer = NULL;
  if (out != stdout) {
    out_buffer = malloc(1 << 16);
    if (out_buffer) setvbuf(out, out_buffer, _IOFBF, 1 << 16);
  }
  SourceChunk *chunks;
  int nchunks;
  if (o.split) {
    nchunks = split_input_file(&file, &chunks);
  } else {
    chunks = malloc(sizeof(SourceChunk));
    chunks[0] = (SourceChunk){text, text + len, 1};
    nchunks = 1;
  }
  bool failed = false;
  for (int i = 0; i < nchunks; i++) {
    Context *c = ctx_new();
    c->diag.max_errors = o.max_errors;
    Module *m = parse_module(c, &file, chunks[i].start, chunks[i].end, chunks[i].first_line);
    bool ok = m && verify_module(c, m);
    if (!ok) failed = true;
    if (ok && o.emit != EMIT_NONE) {
      if (i > 0) fputs("// -----\n", out);
      PrintOptions po = {.generic = o.emit == EMIT_MLIR_GENERIC};
      print_module(c, m, out, &po);
    }
    ctx_free(c);
  }
  free(chunks);
  free(text);
  if (out != stdout) {
    int closed = fclose(out);
    free(out_buffer);
    if (closed != 0) {
      fprintf(stderr, "tpucc: error writing '%s'\n", o.output);
      return EXIT_BAD_FILE;
    }
  }
  if (out == stdout && fflush(stdout) != 0) return EXIT_BAD_FILE;
  return failed ? EXIT_REJECTED : EXIT_OK;
}
