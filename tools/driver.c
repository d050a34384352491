/* The shared part of the drivers: file reading and the compile pipeline. */
#include "tools/driver.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backend/backend.h"
#include "ir/ir.h"

char *driver_read_file(const char *tool, const char *path, size_t *len) {
  FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "%s: cannot open '%s': %s\n", tool, path, strerror(errno));
    return NULL;
  }
  /* Regular files are read in one go; pipes grow the buffer. */
  struct stat st;
  size_t cap = 1 << 16, n = 0;
  if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
    fprintf(stderr, "%s: cannot read '%s': it is a directory\n", tool, path);
    fclose(f);
    return NULL;
  }
  if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) cap = (size_t)st.st_size + 1;
  char *buf = malloc(cap);
  for (;;) {
    if (!buf) break;
    if (n == cap) {
      cap *= 2;
      char *nb = realloc(buf, cap);
      if (!nb) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = nb;
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
  if (err) {
    fprintf(stderr, "%s: error reading '%s'\n", tool, path);
    free(buf);
    return NULL;
  }
  *len = n;
  return buf;
}

int driver_usage_error(const char *tool, const char *fmt, const char *arg) {
  fprintf(stderr, "%s: ", tool);
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\nrun '%s --help' for usage\n", tool);
  return 1;
}

int driver_compile_option(const char *tool, const char *arg, CompileOptions *o) {
  static const char *const targets[] = {"v4", "v5e", "v5p", "v6e", "v7x"};
  if (strcmp(arg, "-O0") == 0 || strcmp(arg, "-O1") == 0 || strcmp(arg, "-O2") == 0) {
    o->opt_level = arg[2] - '0';
    return 1;
  }
  if (strncmp(arg, "--target=", 9) != 0) return 0;
  for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++)
    if (strcmp(targets[i], arg + 9) == 0) {
      o->target = targets[i];
      return 1;
    }
  driver_usage_error(tool, "unknown target '%s' (v4, v5e, v5p, v6e, v7x)", arg + 9);
  return -1;
}

int driver_compile(const SourceFile *file, const SourceChunk *chunk, const CompileOptions *o, uint8_t **out,
                   size_t *outlen) {
  Context *c = ctx_new();
  if (o->max_errors) c->diag.max_errors = o->max_errors;
  Module *m = parse_module(c, file, chunk->start, chunk->end, chunk->first_line);
  bool ok = m && verify_module(c, m);
  if (ok) {
    BackendOptions bo = {.target = o->target ? o->target : "v5e", .compiler_version = TPUCC_VERSION};
    ok = backend_compile(c, m, &bo, out, outlen);
  }
  ctx_free(c);
  return ok ? 0 : 2;
}
