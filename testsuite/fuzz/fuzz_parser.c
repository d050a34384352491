/* libFuzzer target: parse and verify arbitrary text, then print and re-parse
 * what was accepted.  Every rejection must be a diagnostic, never a crash. */
#include <stdlib.h>
#include <string.h>

#include "frontend/parser.h"
#include "ir/ir.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = malloc(size + 1);
  memcpy(text, data, size);
  text[size] = 0;
  SourceFile file = {"fuzz.mlir", text, size};
  SourceChunk *chunks;
  int n = split_input_file(&file, &chunks);
  for (int i = 0; i < n; i++) {
    Context *c = ctx_new();
    c->diag.quiet = true;
    Module *m = parse_module(c, &file, chunks[i].start, chunks[i].end, chunks[i].first_line);
    if (m && verify_module(c, m)) {
      PrintOptions opts[2] = {{.generic = false}, {.generic = true}};
      for (int k = 0; k < 2; k++) {
        char *printed = print_module_string(c, m, &opts[k]);
        SourceFile f2 = {"printed.mlir", printed, strlen(printed)};
        Module *m2 = parse_module(c, &f2, printed, printed + f2.len, 1);
        /* What tpucc printed from a verified module must read back. */
        if (!m2 || !verify_module(c, m2)) abort();
        free(printed);
      }
    }
    ctx_free(c);
  }
  free(chunks);
  free(text);
  return 0;
}
