/* The content-hashed persistent compilation cache (DESIGN.md §5,
 * docs/cache.md).
 *
 * Key: XXH3-128 over the canonical printed IR without locations (so
 * whitespace, SSA names and loc(...) do not matter), the tpucc version, the
 * bytecode format version, the target preset and every option that changes
 * the output, each a named component so `--explain-cache` can show which
 * one changed.  An entry is one file DIR/<key>.tpuc: a 64-byte header (magic,
 * version, key, payload size and XXH3-64) and the .tpub, written to a
 * temporary name and renamed into place.  A bad entry is a miss: warned
 * about, removed, recompiled.  Eviction (least recently used first; a hit
 * refreshes an entry's time) takes DIR/.lock, only to evict; readers and
 * writers never wait.  Counters go to DIR/events, one byte per event
 * appended atomically. */
#ifndef CACHE_CACHE_H
#define CACHE_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ir/ir.h"

typedef struct CacheKey {
  uint64_t hi, lo;
} CacheKey;

/* What goes into a key besides the IR. */
typedef struct CacheKeyOptions {
  const char *compiler_version; /* TPUCC_VERSION */
  const char *target;           /* preset name */
  const char *options;          /* every output-changing option, sorted, e.g. "-O2" */
} CacheKeyOptions;

enum { CACHE_KEY_PARTS = 5 };
typedef struct CacheKeyInfo {
  struct {
    const char *name;  /* "ir", "tpucc_version", "format_version", "target", "options" */
    char value[96];    /* shown by --explain-cache (the IR as its size) */
    uint64_t hash;     /* XXH3-64 of the component */
  } parts[CACHE_KEY_PARTS];
  CacheKey key;
} CacheKeyInfo;

/* The key of a verified module (printed canonically into memory). */
void cache_key_of_module(Context *c, const Module *m, const CacheKeyOptions *o, CacheKeyInfo *out);
/* The key of raw input bytes with the same options: the fast path that
 * finds an entry before parsing (an alias to the module's key). */
CacheKey cache_key_of_bytes(const void *bytes, size_t n, const CacheKeyOptions *o);
void cache_key_hex(CacheKey k, char out[33]);

typedef struct Cache Cache;

/* Counters of this process (tpurun --metrics). */
typedef struct CacheMetrics {
  int compiles, hits, misses;
  int filled; /* entries an MPI rank stored from rank 0's image (tpurun) */
  double compile_s, load_s;
} CacheMetrics;

/* The keys of the entry the last lookup found or the last store wrote:
 * the module key, and the raw-bytes key when an alias names it (tpurun's
 * other ranks of an MPI job store rank 0's image under them).  The caller
 * clears it before a compilation. */
typedef struct CacheLastKeys {
  bool has_key, has_raw;
  CacheKey key, raw;
} CacheLastKeys;
CacheLastKeys *cache_last_keys(Cache *ca);

/* The directory: dir if given, else $TPU_CACHE_DIR, else
 * ${XDG_CACHE_HOME:-$HOME/.cache}/tpucc; into buf. False when none can be
 * named (no HOME). */
bool cache_resolve_dir(const char *dir, char *buf, size_t n);
/* Opens (creating) the directory; NULL after a warning on warn when it
 * cannot be used (the caller compiles without a cache). */
Cache *cache_open(const char *dir, uint64_t max_bytes, const char *tool, FILE *warn);
void cache_close(Cache *ca);
CacheMetrics *cache_metrics(Cache *ca);

/* A valid entry's .tpub (malloc'ed) or false (a miss; a bad entry is
 * warned about and removed).  Counts a hit or a miss. */
bool cache_get(Cache *ca, CacheKey key, uint8_t **img, size_t *n);
/* The entry a raw-bytes key was stored under, if any (no miss counted). */
bool cache_get_alias(Cache *ca, CacheKey raw, uint8_t **img, size_t *n);
/* Stores an entry (and, when raw is non-NULL, the alias from the raw
 * bytes' key); a write that fails is a warning.  Then evicts down to the
 * size bound if it is exceeded. */
void cache_put(Cache *ca, CacheKey key, const CacheKey *raw, const uint8_t *img, size_t n);

/* Stores only the alias from a raw-bytes key to an existing entry. */
void cache_put_alias(Cache *ca, CacheKey raw, CacheKey key);
/* While skip is set, every lookup misses (entries are still written): a
 * program whose entry checked out but does not load (written by another
 * build under the same versions) is compiled again and its entry
 * replaced. */
void cache_skip_reads(Cache *ca, bool skip);

/* Whether a valid entry exists (nothing counted, nothing removed). */
bool cache_has(Cache *ca, CacheKey key);

/* An MPI rank other than 0 with rank 0's image (img, n bytes) and the keys
 * it had in rank 0's cache (keys->has_key set): true with the entry of ca
 * (*mine, malloc'ed) when ca holds the same bytes under those keys (a
 * directory shared with rank 0: a hit, counted); else false after storing
 * img there under them (a cache of its own: filled from rank 0, counted in
 * filled), replacing an entry that differs. */
bool cache_adopt(Cache *ca, const CacheLastKeys *keys, const uint8_t *img, size_t n, uint8_t **mine, size_t *mn);

/* --cache-stats and --cache-clear on a directory; exit codes. */
int cache_print_stats(const char *dir, FILE *out);
int cache_clear(const char *dir, FILE *out);

#endif
