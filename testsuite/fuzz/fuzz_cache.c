/* libFuzzer target: arbitrary bytes as a cache entry and as an alias file.
 * Every bad file must be a miss (removed, warned about), never a crash,
 * and a hit must return exactly the payload of a well-formed entry. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cache/cache.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static char dir[64];
  if (!dir[0]) {
    strcpy(dir, "/tmp/tpucc-fuzz-cache-XXXXXX");
    if (!mkdtemp(dir)) abort();
  }
  FILE *devnull = fopen("/dev/null", "w");
  Cache *ca = cache_open(dir, 1 << 30, "fuzz", devnull);
  if (!ca) abort();
  CacheKey key = {0x1234, 0x5678};
  char hex[33], path[128];
  cache_key_hex(key, hex);
  const char *suffixes[] = {".tpuc", ".alias"};
  for (int s = 0; s < 2; s++) {
    snprintf(path, sizeof path, "%s/%s%s", dir, hex, suffixes[s]);
    FILE *f = fopen(path, "wb");
    if (!f) abort();
    fwrite(data, 1, size, f);
    fclose(f);
    uint8_t *img = NULL;
    size_t n = 0;
    bool hit = s == 0 ? cache_get(ca, key, &img, &n) : cache_get_alias(ca, key, &img, &n);
    if (hit && n + 64 != size && s == 0) abort();
    free(img);
    unlink(path);
  }
  cache_close(ca);
  fclose(devnull);
  return 0;
}
