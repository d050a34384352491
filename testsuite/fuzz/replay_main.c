/* A main for a libFuzzer target without libFuzzer: runs
 * LLVMFuzzerTestOneInput once on each file named on the command line
 * (testsuite/tools/fuzz_regressions.sh replays the runtime fuzzer's
 * regression inputs with it).  Exit 0 when every input ran, 2 when a file
 * cannot be read; a finding aborts, as under the fuzzer. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    FILE *f = fopen(argv[i], "rb");
    if (!f) {
      fprintf(stderr, "%s: cannot open %s\n", argv[0], argv[i]);
      return 2;
    }
    uint8_t *buf = malloc(1 << 20);
    size_t n = buf ? fread(buf, 1, 1 << 20, f) : 0;
    fclose(f);
    if (!buf) return 2;
    LLVMFuzzerTestOneInput(buf, n);
    free(buf);
  }
  return 0;
}
