/* The shared part of the drivers: file reading and the compile pipeline. */
#include "tools/driver.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "backend/backend.h"
#include "ir/ir.h"
#include "passes/cost.h"
#include "vm/vm.h"

char *driver_read_file(const char *tool, const char *path, uint64_t max, size_t *len) {
  FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "%s: cannot open '%s': %s\n", tool, path, strerror(errno));
    return NULL;
  }
  /* Everything is read in chunks into a growing buffer, never more than
   * max + 1 bytes: a regular file's size is only the first guess. */
  struct stat st;
  size_t cap = 1 << 16, n = 0;
  if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
    fprintf(stderr, "%s: cannot read '%s': it is a directory\n", tool, path);
    if (f != stdin) fclose(f);
    return NULL;
  }
  if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) cap = (size_t)st.st_size + 1;
  if (cap > max + 1) cap = (size_t)max + 1;
  char *buf = malloc(cap);
  while (buf && n <= max) {
    if (n == cap) {
      cap = cap > max / 2 ? (size_t)max + 1 : cap * 2;
      char *nb = realloc(buf, cap);
      if (!nb) free(buf);
      buf = nb;
      if (!buf) break;
    }
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (got == 0) break;
  }
  bool err = ferror(f);
  if (f != stdin) fclose(f);
  if (!buf) {
    fprintf(stderr, "%s: '%s' is too large to read\n", tool, path);
    return NULL;
  }
  if (n > max) {
    fprintf(stderr, "%s: %s: input larger than %llu bytes (raise with --max-input-size)\n", tool,
            strcmp(path, "-") == 0 ? "<stdin>" : path,
            (unsigned long long)max);
    free(buf);
    return NULL;
  }
  if (err) {
    fprintf(stderr, "%s: error reading '%s'\n", tool, path);
    free(buf);
    return NULL;
  }
  *len = n;
  return buf;
}

bool driver_same_file(const char *a, const char *b) {
  struct stat sa, sb;
  if (strcmp(a, "-") == 0 || strcmp(b, "-") == 0) return false;
  return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* A byte count with an optional K, M or G suffix, at most 2^50; false if
 * malformed. */
static bool parse_size(const char *s, uint64_t *out) {
  char *end;
  if (*s < '0' || *s > '9') return false;
  unsigned long long v = strtoull(s, &end, 10);
  unsigned shift = *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : 0;
  if (shift) end++;
  if (end == s || *end || v > (1ull << 50) >> shift) return false;
  *out = (uint64_t)v << shift;
  return true;
}

int driver_usage_error(const char *tool, const char *fmt, const char *arg) {
  fprintf(stderr, "%s: ", tool);
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\nrun '%s --help' for usage\n", tool);
  return 1;
}

const char driver_compile_help[] =
    "  -O0, -O1, -O2          optimization level (default -O2)\n"
    "  --target=NAME          v4, v5e (default), v5p, v6e, v7x\n"
    "  --passes=a,b,c         run these passes instead of the -O pipeline:\n"
#define PASS(id, name, fn, doc) "                           " name ": " doc "\n"
#include "passes/passes.def"
#undef PASS
    "  --verify-each          run the verifier after every pass\n"
    "  --print-ir-after-all   print the IR after every pass (to stderr)\n"
    "  --print-ir-after=PASS  print the IR after PASS (to stderr)\n"
    "  --time-passes          print the wall time of every pass (to stderr)\n"
    "  --max-errors=N         stop reporting after N errors (default 20)\n"
    "  --cache-dir=DIR        compilation cache directory (default $TPU_CACHE_DIR, else\n"
    "                         ${XDG_CACHE_HOME:-$HOME/.cache}/tpucc)\n"
    "  --no-cache             do not use the compilation cache\n"
    "  --cache-max-size=N     evict least recently used entries above N bytes (K, M, G;\n"
    "                         default 1G)\n"
    "  --max-input-size=N     refuse an input file larger than N bytes (K, M, G;\n"
    "                         default 2G)\n";

int driver_compile_option(const char *tool, const char *arg, CompileOptions *o) {
  if (strcmp(arg, "-O0") == 0 || strcmp(arg, "-O1") == 0 || strcmp(arg, "-O2") == 0) {
    o->opt_level = arg[2] - '0';
    return 1;
  }
  if (strcmp(arg, "--verify-each") == 0) return o->pass_opts.verify_each = true, 1;
  if (strcmp(arg, "--print-ir-after-all") == 0) return o->pass_opts.print_after_all = true, 1;
  if (strcmp(arg, "--time-passes") == 0) return o->pass_opts.time_passes = true, 1;
  if (strncmp(arg, "--print-ir-after=", 17) == 0) {
    PassId id;
    if (!pass_lookup(arg + 17, strlen(arg + 17), &id)) {
      driver_usage_error(tool, "unknown pass '%s' in --print-ir-after", arg + 17);
      return -1;
    }
    o->pass_opts.print_after = pass_name(id);
    return 1;
  }
  if (strncmp(arg, "--passes=", 9) == 0) {
    char err[256];
    if (!pipeline_parse(arg + 9, &o->passes, err, sizeof err)) {
      driver_usage_error(tool, "%s", err);
      return -1;
    }
    o->explicit_passes = true;
    return 1;
  }
  if (strncmp(arg, "--max-errors=", 13) == 0) {
    char *end;
    long n = strtol(arg + 13, &end, 10);
    if (end == arg + 13 || *end || n < 1 || n > 100000) {
      driver_usage_error(tool, "invalid --max-errors value '%s' (1 to 100000)", arg + 13);
      return -1;
    }
    o->max_errors = (int)n;
    return 1;
  }
  if (strcmp(arg, "--no-cache") == 0) return o->no_cache = true, 1;
  if (strncmp(arg, "--cache-dir=", 12) == 0) {
    if (!arg[12]) {
      driver_usage_error(tool, "%s", "--cache-dir needs a directory");
      return -1;
    }
    o->cache_dir = arg + 12;
    return 1;
  }
  if (strncmp(arg, "--cache-max-size=", 17) == 0) {
    if (!parse_size(arg + 17, &o->cache_max_bytes)) {
      driver_usage_error(tool, "invalid --cache-max-size '%s' (bytes, or a number with K, M or G)", arg + 17);
      return -1;
    }
    return 1;
  }
  if (strncmp(arg, "--max-input-size=", 17) == 0) {
    if (!parse_size(arg + 17, &o->max_input_bytes) || o->max_input_bytes == 0) {
      driver_usage_error(tool, "invalid --max-input-size '%s' (bytes, or a number with K, M or G)", arg + 17);
      return -1;
    }
    return 1;
  }
  if (strncmp(arg, "--target=", 9) != 0) return 0;
  const Target *t = target_lookup(arg + 9);
  if (t) {
    o->target = t->name;
    return 1;
  }
  driver_usage_error(tool, "unknown target '%s' (v4, v5e, v5p, v6e, v7x)", arg + 9);
  return -1;
}

