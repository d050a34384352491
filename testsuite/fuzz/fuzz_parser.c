/* libFuzzer target: parse and verify arbitrary text, print and re-parse
 * what was accepted, then run the -O2 pass pipeline with the verifier after
 * every pass (a pass that breaks the IR dies, which the fuzzer reports) and
 * re-parse its output.  Every rejection must be a diagnostic, never a crash. */
#include <stdlib.h>
#include <string.h>

#include "frontend/parser.h"
#include "ir/ir.h"
#include "passes/pass.h"

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
      PassContext pc = {.c = c, .m = m, .target = target_default(), .opt_level = 2};
      Pipeline p = pipeline_for_level(2);
      PassOptions po = {.verify_each = true};
      if (pipeline_run(&pc, &p, &po)) {
        char *printed = print_module_string(c, m, &opts[0]);
        SourceFile f2 = {"optimized.mlir", printed, strlen(printed)};
        Module *m2 = parse_module(c, &f2, printed, printed + f2.len, 1);
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
