/* corpus_check: parse, verify and round-trip every file given.
 *
 * For each module (each '// -----' chunk with --split-input-file):
 *   parse + verify succeed;
 *   pretty print P1; parse P1, verify, print P2: P1 == P2 (fixed point);
 *   generic print G1; parse G1, verify, print G2: G1 == G2;
 *   generic print of the module read back from P1 equals G1.
 * Prints one line per file and "N passed, N failed"; with --generic-out=FILE
 * writes every G1, separated by '// -----', for checking with mlir-opt-14. */
#include <stdlib.h>
#include <string.h>

#include "frontend/parser.h"
#include "ir/ir.h"

typedef struct Result {
  char reason[512];
} Result;

static char *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  *len = fread(buf, 1, (size_t)n, f);
  buf[*len] = 0;
  fclose(f);
  return buf;
}

/* Parse + verify text as a module; NULL on any diagnostic. */
static Module *load(Context *c, const char *name, const char *text, size_t len, uint32_t line) {
  SourceFile *f = arena_alloc(&c->arena, sizeof(SourceFile));
  f->name = name;
  f->text = text;
  f->len = len;
  Module *m = parse_module(c, f, text, text + len, line);
  if (!m || !verify_module(c, m)) return NULL;
  return m;
}

static bool check_chunk(const char *path, const SourceFile *file, SourceChunk ch, FILE *generic_out, Result *r) {
  Context *c = ctx_new();
  char *diag_buf = NULL;
  size_t diag_len = 0;
  FILE *diag = open_memstream(&diag_buf, &diag_len);
  c->diag.out = diag;
  c->diag.show_source = false;
  bool ok = false;
  char *p1 = NULL, *p2 = NULL, *g1 = NULL, *g2 = NULL, *p3 = NULL;
  Module *m = parse_module(c, file, ch.start, ch.end, ch.first_line);
  if (!m || !verify_module(c, m)) {
    fflush(diag);
    snprintf(r->reason, sizeof r->reason, "rejected: %.400s", diag_buf ? diag_buf : "");
    goto out;
  }
  PrintOptions pretty = {0}, generic = {.generic = true};
  p1 = print_module_string(c, m, &pretty);
  g1 = print_module_string(c, m, &generic);
  Module *m2 = load(c, "<pretty>", p1, strlen(p1), 1);
  if (!m2) {
    fflush(diag);
    snprintf(r->reason, sizeof r->reason, "pretty output does not parse back: %.400s", diag_buf);
    goto out;
  }
  p2 = print_module_string(c, m2, &pretty);
  if (strcmp(p1, p2) != 0) {
    snprintf(r->reason, sizeof r->reason, "pretty print is not a fixed point");
    goto out;
  }
  Module *m3 = load(c, "<generic>", g1, strlen(g1), 1);
  if (!m3) {
    fflush(diag);
    snprintf(r->reason, sizeof r->reason, "generic output does not parse back: %.400s", diag_buf);
    goto out;
  }
  g2 = print_module_string(c, m3, &generic);
  p3 = print_module_string(c, m2, &generic);
  if (strcmp(g1, g2) != 0) {
    snprintf(r->reason, sizeof r->reason, "generic print is not a fixed point");
    goto out;
  }
  if (strcmp(g1, p3) != 0) {
    snprintf(r->reason, sizeof r->reason, "generic and pretty forms read back differently");
    goto out;
  }
  if (generic_out) fprintf(generic_out, "// -----\n// %s:%u\n%s", path, ch.first_line, g1);
  ok = true;
out:
  free(p1);
  free(p2);
  free(g1);
  free(g2);
  free(p3);
  fclose(diag);
  free(diag_buf);
  ctx_free(c);
  return ok;
}

int main(int argc, char **argv) {
  bool split = false;
  FILE *generic_out = NULL;
  int passed = 0, failed = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--split-input-file") == 0) {
      split = true;
      continue;
    }
    if (strncmp(argv[i], "--generic-out=", 14) == 0) {
      generic_out = fopen(argv[i] + 14, "w");
      if (!generic_out) {
        perror(argv[i] + 14);
        return 2;
      }
      continue;
    }
    size_t len;
    char *text = read_all(argv[i], &len);
    if (!text) {
      printf("FAIL %s: cannot read\n", argv[i]);
      failed++;
      continue;
    }
    SourceFile file = {argv[i], text, len};
    SourceChunk *chunks;
    int n = source_chunks(&file, split, &chunks);
    Result r = {{0}};
    bool ok = true;
    for (int k = 0; k < n && ok; k++) {
      ok = check_chunk(argv[i], &file, chunks[k], generic_out, &r);
      if (!ok && split) {
        char tmp[600];
        snprintf(tmp, sizeof tmp, "chunk at line %u: %s", chunks[k].first_line, r.reason);
        memcpy(r.reason, tmp, sizeof r.reason - 1);
      }
    }
    for (char *q = r.reason; *q; q++)
      if (*q == '\n') *q = ' ';
    if (ok) {
      passed++;
    } else {
      failed++;
      printf("FAIL %s: %s\n", argv[i], r.reason);
    }
    free(chunks);
    free(text);
  }
  if (generic_out) fclose(generic_out);
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
