/* libFuzzer target: arbitrary bytes as a portable artifact (MLIR bytecode
 * in the VHLO dialect).  Every rejection must be a diagnostic, never a
 * crash; a truncated or corrupt file must say so (bad_input).  What reads
 * and verifies is written back as a portable artifact, which must read
 * back to the same printed module. */
#include <stdlib.h>
#include <string.h>

#include "frontend/bytecode.h"
#include "frontend/parser.h"
#include "ir/ir.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Reads bytes[0, n) as a module in a fresh context (NULL on rejection). */
static Module *read_bytes(Context *c, const char *name, const uint8_t *bytes, size_t n) {
  SourceFile *f = arena_alloc(&c->arena, sizeof *f);
  *f = (SourceFile){name, (const char *)bytes, n};
  return parse_module(c, f, f->text, f->text + n, 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* Every input is bytecode: the magic number is the fuzzer's to keep. */
  uint8_t *bytes = malloc(size + 4);
  memcpy(bytes, "ML\xefR", 4);
  memcpy(bytes + 4, data, size);
  Context *c = ctx_new();
  c->diag.quiet = true;
  Module *m = read_bytes(c, "fuzz.mlir.bc", bytes, size + 4);
  if (!m && c->diag.nerrors == 0) abort(); /* refused without a diagnostic */
  if (m && verify_module(c, m)) {
    PrintOptions po = {.generic = true};
    char *first = print_module_string(c, m, &po);
    uint8_t *out = NULL;
    size_t n = 0;
    if (bytecode_write_module(c, m, NULL, &out, &n)) {
      Context *c2 = ctx_new();
      c2->diag.quiet = true;
      Module *m2 = read_bytes(c2, "written.mlir.bc", out, n);
      if (!m2) abort(); /* what tpucc wrote must read back */
      char *second = print_module_string(c2, m2, &po);
      if (strcmp(first, second) != 0) abort();
      free(second);
      ctx_free(c2);
    }
    free(out);
    free(first);
  }
  ctx_free(c);
  free(bytes);
  return 0;
}
