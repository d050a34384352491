/* The compilation cache (cache/cache.h). */
#include "cache/cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#include "vm/tpub.h"

#define ENTRY_MAGIC "TPUCACHE"
#define ENTRY_VERSION 1
#define ENTRY_SUFFIX ".tpuc"
#define ALIAS_SUFFIX ".alias"
#define MAX_ENTRY_BYTES ((uint64_t)1 << 36) /* refuse absurd sizes in a header */

/* Entry header, little-endian, 64 bytes. */
typedef struct EntryHeader {
  char magic[8];
  uint32_t version;
  uint32_t header_size;
  uint64_t key_hi, key_lo;
  uint64_t payload_size;
  uint64_t payload_hash; /* XXH3-64 of the payload */
  uint64_t created;      /* seconds since the epoch */
  uint64_t header_hash;  /* XXH3-64 of the 56 bytes before it */
} EntryHeader;
_Static_assert(sizeof(EntryHeader) == 64, "cache entry header layout");

/* An alias: the module key a raw-bytes key maps to, with a check.  It
 * names its own raw key too, so an alias copied over another one's file
 * proves it belongs elsewhere. */
#define ALIAS_MAGIC "TPUALIAS"
typedef struct AliasRecord {
  char magic[8];
  uint64_t raw_hi, raw_lo;
  uint64_t key_hi, key_lo;
  uint64_t check; /* XXH3-64 of the 40 bytes before it */
} AliasRecord;
_Static_assert(sizeof(AliasRecord) == 48, "cache alias layout");

struct Cache {
  char dir[4096];
  uint64_t max_bytes;
  const char *tool;
  FILE *warn;
  CacheMetrics metrics;
  CacheLastKeys last;
  bool skip_reads; /* cache_skip_reads: every lookup misses */
};

/* ------------------------------------------------------------------ */
/* Keys. */

void cache_key_hex(CacheKey k, char out[33]) {
  snprintf(out, 33, "%016llx%016llx", (unsigned long long)k.hi, (unsigned long long)k.lo);
}

static void set_part(CacheKeyInfo *info, int i, const char *name, const void *data, size_t n, const char *shown) {
  info->parts[i].name = name;
  info->parts[i].hash = XXH3_64bits(data, n);
  snprintf(info->parts[i].value, sizeof info->parts[i].value, "%s", shown);
}

/* The key over the components' hashes, in a fixed order. */
static CacheKey combine(const CacheKeyInfo *info, const char *domain) {
  XXH3_state_t *st = XXH3_createState();
  if (!st) die("out of memory");
  XXH3_128bits_reset(st);
  XXH3_128bits_update(st, domain, strlen(domain) + 1);
  for (int i = 0; i < CACHE_KEY_PARTS; i++) {
    XXH3_128bits_update(st, info->parts[i].name, strlen(info->parts[i].name) + 1);
    XXH3_128bits_update(st, &info->parts[i].hash, sizeof info->parts[i].hash);
  }
  XXH128_hash_t h = XXH3_128bits_digest(st);
  XXH3_freeState(st);
  return (CacheKey){h.high64, h.low64};
}

/* The instruction set as text (vm/opcodes.def): a development build whose
 * table differs (an opcode added, fields changed) must never load entries
 * another build wrote under the same version numbers. */
static const char instruction_set[] =
#define OPC(id, name, nin, nout, fields, check, exec, flags, doc) name "(" #nin "," #nout ")" fields ";"
#include "vm/opcodes.def"
#undef OPC
    "";

static void set_option_parts(CacheKeyInfo *info, const CacheKeyOptions *o) {
  char fmt[64];
  snprintf(fmt, sizeof fmt, "%d, instruction set %016llx", TPUB_FORMAT_VERSION,
           (unsigned long long)XXH3_64bits(instruction_set, sizeof instruction_set - 1));
  set_part(info, 1, "tpucc_version", o->compiler_version, strlen(o->compiler_version), o->compiler_version);
  set_part(info, 2, "format_version", fmt, strlen(fmt), fmt);
  set_part(info, 3, "target", o->target, strlen(o->target), o->target);
  set_part(info, 4, "options", o->options, strlen(o->options), o->options);
}

void cache_key_of_module(Context *c, const Module *m, const CacheKeyOptions *o, CacheKeyInfo *out) {
  memset(out, 0, sizeof *out);
  PrintOptions po = {.generic = false, .locations = false};
  char *text = print_module_string(c, m, &po);
  size_t n = strlen(text);
  char shown[96];
  snprintf(shown, sizeof shown, "canonical IR, %zu bytes, locations stripped", n);
  set_part(out, 0, "ir", text, n, shown);
  /* 64 bits shown, 128 in the key: the IR's own 128-bit hash is folded in. */
  XXH128_hash_t full = XXH3_128bits(text, n);
  out->parts[0].hash ^= full.high64;
  free(text);
  set_option_parts(out, o);
  out->key = combine(out, "tpucc-cache-module");
}

CacheKey cache_key_of_bytes(const void *bytes, size_t n, const CacheKeyOptions *o) {
  CacheKeyInfo info = {0};
  set_part(&info, 0, "ir", bytes, n, "raw input");
  XXH128_hash_t full = XXH3_128bits(bytes, n);
  info.parts[0].hash ^= full.high64;
  set_option_parts(&info, o);
  return combine(&info, "tpucc-cache-raw");
}

/* ------------------------------------------------------------------ */
/* The directory. */

bool cache_resolve_dir(const char *dir, char *buf, size_t n) {
  const char *env = getenv("TPU_CACHE_DIR");
  if (dir && *dir) return (size_t)snprintf(buf, n, "%s", dir) < n;
  if (env && *env) return (size_t)snprintf(buf, n, "%s", env) < n;
  const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  if (xdg && *xdg) return (size_t)snprintf(buf, n, "%s/tpucc", xdg) < n;
  if (home && *home) return (size_t)snprintf(buf, n, "%s/.cache/tpucc", home) < n;
  return false;
}

/* TPU_CACHE_FAIL_WRITES=1 makes every write into the cache directory fail
 * as a full disk would (errno ENOSPC): the tests' stand-in for a full file
 * system where none can be mounted. */
static bool writes_fail(void) {
  const char *inject = getenv("TPU_CACHE_FAIL_WRITES");
  if (!inject || strcmp(inject, "1") != 0) return false;
  errno = ENOSPC;
  return true;
}

static void warnf(Cache *ca, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warnf(Cache *ca, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(ca->warn, "%s: warning: cache: ", ca->tool);
  vfprintf(ca->warn, fmt, ap);
  fputc('\n', ca->warn);
  va_end(ap);
}

/* mkdir -p */
static bool make_dirs(const char *path) {
  char buf[4096];
  if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) return false;
  for (char *p = buf + 1; *p; p++)
    if (*p == '/') {
      *p = 0;
      if (mkdir(buf, 0777) != 0 && errno != EEXIST) return false;
      *p = '/';
    }
  return mkdir(buf, 0777) == 0 || errno == EEXIST;
}

Cache *cache_open(const char *dir, uint64_t max_bytes, const char *tool, FILE *warn) {
  Cache *ca = calloc(1, sizeof *ca);
  if (!ca) return NULL;
  ca->tool = tool;
  ca->warn = warn ? warn : stderr;
  ca->max_bytes = max_bytes;
  if (!cache_resolve_dir(dir, ca->dir, sizeof ca->dir)) {
    warnf(ca, "no cache directory (set --cache-dir, TPU_CACHE_DIR or HOME); compiling without the cache");
    free(ca);
    return NULL;
  }
  struct stat st;
  bool made = make_dirs(ca->dir);
  const char *why = !made || stat(ca->dir, &st) != 0 ? strerror(errno) : !S_ISDIR(st.st_mode) ? "not a directory" : NULL;
  if (why) {
    warnf(ca, "cannot use directory '%s': %s; compiling without the cache", ca->dir, why);
    free(ca);
    return NULL;
  }
  /* The start of the statistics, written once. */
  char path[4400];
  snprintf(path, sizeof path, "%s/.since", ca->dir);
  int fd = writes_fail() ? -1 : open(path, O_WRONLY | O_CREAT | O_EXCL, 0666);
  if (fd >= 0) {
    char stamp[32];
    int len = snprintf(stamp, sizeof stamp, "%lld\n", (long long)time(NULL));
    if (write(fd, stamp, (size_t)len) != len) unlink(path);
    close(fd);
  }
  return ca;
}

void cache_close(Cache *ca) { free(ca); }
CacheMetrics *cache_metrics(Cache *ca) { return &ca->metrics; }
CacheLastKeys *cache_last_keys(Cache *ca) { return &ca->last; }

static void note_key(Cache *ca, CacheKey key) {
  ca->last.has_key = true;
  ca->last.key = key;
}

static void note_raw(Cache *ca, CacheKey raw) {
  ca->last.has_raw = true;
  ca->last.raw = raw;
}

/* One event byte appended to DIR/events (H hit, M miss, E eviction, F an
 * entry filled from rank 0 of an MPI job);
 * appends of one byte are atomic, so concurrent processes never tear it. */
static void record_event(Cache *ca, char ev) {
  char path[4400];
  snprintf(path, sizeof path, "%s/events", ca->dir);
  int fd = writes_fail() ? -1 : open(path, O_WRONLY | O_CREAT | O_APPEND, 0666);
  if (fd < 0) return;
  if (write(fd, &ev, 1) != 1) { /* statistics are best effort */
  }
  close(fd);
}

static void entry_path(const Cache *ca, CacheKey k, const char *suffix, char *out, size_t n) {
  char hex[33];
  cache_key_hex(k, hex);
  snprintf(out, n, "%s/%s%s", ca->dir, hex, suffix);
}

/* Reads a whole small file; false if it cannot. */
static bool read_file(const char *path, uint8_t **data, size_t *n, int *err) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) {
    *err = errno;
    return false;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > MAX_ENTRY_BYTES + 64) {
    *err = EINVAL;
    close(fd);
    return false;
  }
  size_t size = (size_t)st.st_size, got = 0;
  uint8_t *buf = malloc(size + 1);
  while (buf && got < size) {
    ssize_t r = read(fd, buf + got, size - got);
    if (r <= 0) break;
    got += (size_t)r;
  }
  close(fd);
  if (!buf || got != size) {
    free(buf);
    *err = EIO;
    return false;
  }
  *data = buf;
  *n = size;
  return true;
}

/* Checks an entry header against the key and the payload size; NULL if
 * good, else the reason. */
static const char *header_problem(const EntryHeader *h, CacheKey key, size_t payload_size) {
  if (memcmp(h->magic, ENTRY_MAGIC, 8) != 0) return "bad magic";
  if (h->header_hash != XXH3_64bits(h, offsetof(EntryHeader, header_hash))) return "header checksum mismatch";
  if (h->version != ENTRY_VERSION || h->header_size != sizeof *h) return "unknown entry version";
  if (h->key_hi != key.hi || h->key_lo != key.lo) return "holds another key";
  if (h->payload_size != payload_size) return "truncated or padded payload";
  return NULL;
}

/* Checks an entry's bytes; NULL if good, else the reason. */
static const char *entry_problem(const uint8_t *data, size_t n, CacheKey key) {
  if (n < sizeof(EntryHeader)) return "shorter than its header";
  EntryHeader h;
  memcpy(&h, data, sizeof h);
  const char *why = header_problem(&h, key, n - sizeof h);
  if (!why && h.payload_hash != XXH3_64bits(data + sizeof h, n - sizeof h)) why = "payload checksum mismatch";
  return why;
}

/* Reads entry key; a bad one is removed with a warning.  The payload is
 * read straight into the buffer the caller gets (a warm hit is mostly this
 * read). */
static bool read_entry(Cache *ca, CacheKey key, uint8_t **img, size_t *n) {
  char path[4400];
  entry_path(ca, key, ENTRY_SUFFIX, path, sizeof path);
  int fd = open(path, O_RDONLY);
  if (fd < 0) {
    if (errno != ENOENT) warnf(ca, "cannot read entry '%s': %s; recompiling", path, strerror(errno));
    return false;
  }
  struct stat st;
  EntryHeader h;
  uint8_t *payload = NULL;
  size_t size = 0;
  const char *why = NULL;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) why = "not a regular file";
  else if ((uint64_t)st.st_size < sizeof h || pread(fd, &h, sizeof h, 0) != (ssize_t)sizeof h)
    why = "shorter than its header";
  else if ((uint64_t)st.st_size - sizeof h > MAX_ENTRY_BYTES) why = "impossibly large";
  else {
    size = (size_t)st.st_size - sizeof h;
    payload = malloc(size + 1);
    if (!payload || pread(fd, payload, size, sizeof h) != (ssize_t)size) why = "unreadable payload";
  }
  close(fd);
  if (!why) why = header_problem(&h, key, size);
  if (!why && h.payload_hash != XXH3_64bits(payload, size)) why = "payload checksum mismatch";
  if (why) {
    warnf(ca, "entry '%s' is corrupt (%s): removed, recompiling", path, why);
    unlink(path);
    free(payload);
    return false;
  }
  *img = payload;
  *n = size;
  note_key(ca, key);
  /* A hit makes the entry the most recently used. */
  utimensat(AT_FDCWD, path, NULL, 0);
  return true;
}

void cache_skip_reads(Cache *ca, bool skip) { ca->skip_reads = skip; }

bool cache_get(Cache *ca, CacheKey key, uint8_t **img, size_t *n) {
  if (ca->skip_reads) {
    ca->metrics.misses++;
    return false;
  }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  bool hit = read_entry(ca, key, img, n);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  if (hit) {
    ca->metrics.hits++;
    ca->metrics.load_s += (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  } else {
    ca->metrics.misses++;
  }
  record_event(ca, hit ? 'H' : 'M');
  return hit;
}

/* Checks an alias file's bytes against the raw key it was looked up by;
 * NULL if good, else the reason. */
static const char *alias_problem(const uint8_t *data, size_t n, CacheKey raw, AliasRecord *out) {
  if (n != sizeof *out) return "wrong size";
  memcpy(out, data, sizeof *out);
  if (memcmp(out->magic, ALIAS_MAGIC, 8) != 0) return "bad magic";
  if (out->check != XXH3_64bits(out, offsetof(AliasRecord, check))) return "checksum mismatch";
  if (out->raw_hi != raw.hi || out->raw_lo != raw.lo) return "belongs to another input";
  return NULL;
}

bool cache_get_alias(Cache *ca, CacheKey raw, uint8_t **img, size_t *n) {
  if (ca->skip_reads) return false;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  char path[4400];
  entry_path(ca, raw, ALIAS_SUFFIX, path, sizeof path);
  uint8_t *data;
  size_t size;
  int err;
  if (!read_file(path, &data, &size, &err)) {
    if (err != ENOENT) {
      warnf(ca, "alias '%s' is unreadable (%s): removed", path, strerror(err));
      unlink(path);
    }
    return false;
  }
  AliasRecord a;
  const char *why = alias_problem(data, size, raw, &a);
  free(data);
  if (why) { /* a torn, foreign or swapped alias only costs a parse */
    warnf(ca, "alias '%s' is corrupt (%s): removed", path, why);
    unlink(path);
    return false;
  }
  if (!read_entry(ca, (CacheKey){a.key_hi, a.key_lo}, img, n)) return false;
  note_raw(ca, raw);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  ca->metrics.hits++;
  ca->metrics.load_s += (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  record_event(ca, 'H');
  return true;
}

/* Writes bytes to a temporary file in the directory and renames it to
 * path; false (errno set) on failure, leaving no temporary behind. */
static bool write_atomically(const Cache *ca, const char *path, const void *a, size_t na, const void *b, size_t nb) {
  if (writes_fail()) return false;
  /* The host's name with the pid: processes of several hosts sharing the
   * directory (NFS) never pick the same temporary name. */
  char host[65] = "";
  if (gethostname(host, sizeof host - 1) != 0) host[0] = 0;
  for (char *c = host; *c; c++)
    if (*c == '/') *c = '_';
  char tmp[4400];
  snprintf(tmp, sizeof tmp, "%s/.tmp.%s.%ld.%llx", ca->dir, host, (long)getpid(),
           (unsigned long long)XXH3_64bits(path, strlen(path)) ^ (unsigned long long)clock());
  int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
  if (fd < 0) return false;
  bool ok = true;
  const void *parts[2] = {a, b};
  size_t sizes[2] = {na, nb};
  for (int i = 0; i < 2 && ok; i++) {
    const uint8_t *p = parts[i];
    size_t left = sizes[i];
    while (left && ok) {
      ssize_t w = write(fd, p, left);
      if (w <= 0) ok = false;
      else p += w, left -= (size_t)w;
    }
  }
  int saved = errno;
  if (close(fd) != 0) ok = false, saved = errno;
  if (ok && rename(tmp, path) != 0) ok = false, saved = errno;
  if (!ok) {
    unlink(tmp);
    errno = saved;
  }
  return ok;
}

static void evict(Cache *ca);

void cache_put(Cache *ca, CacheKey key, const CacheKey *raw, const uint8_t *img, size_t n) {
  EntryHeader h = {.version = ENTRY_VERSION, .header_size = sizeof h, .key_hi = key.hi, .key_lo = key.lo,
                   .payload_size = n, .payload_hash = XXH3_64bits(img, n), .created = (uint64_t)time(NULL)};
  memcpy(h.magic, ENTRY_MAGIC, 8);
  h.header_hash = XXH3_64bits(&h, offsetof(EntryHeader, header_hash));
  char path[4400];
  entry_path(ca, key, ENTRY_SUFFIX, path, sizeof path);
  note_key(ca, key);
  if (!write_atomically(ca, path, &h, sizeof h, img, n)) {
    warnf(ca, "cannot write entry '%s': %s; the result is not cached", path, strerror(errno));
    return;
  }
  if (raw) cache_put_alias(ca, *raw, key);
  evict(ca);
}

void cache_put_alias(Cache *ca, CacheKey raw, CacheKey key) {
  AliasRecord a = {.raw_hi = raw.hi, .raw_lo = raw.lo, .key_hi = key.hi, .key_lo = key.lo};
  memcpy(a.magic, ALIAS_MAGIC, 8);
  a.check = XXH3_64bits(&a, offsetof(AliasRecord, check));
  char path[4400];
  entry_path(ca, raw, ALIAS_SUFFIX, path, sizeof path);
  note_key(ca, key);
  note_raw(ca, raw);
  if (!write_atomically(ca, path, &a, sizeof a, NULL, 0)) warnf(ca, "cannot write alias '%s': %s", path, strerror(errno));
}

bool cache_has(Cache *ca, CacheKey key) {
  char path[4400];
  entry_path(ca, key, ENTRY_SUFFIX, path, sizeof path);
  uint8_t *data;
  size_t size;
  int err;
  if (!read_file(path, &data, &size, &err)) return false;
  bool ok = entry_problem(data, size, key) == NULL;
  free(data);
  return ok;
}

bool cache_adopt(Cache *ca, const CacheLastKeys *keys, const uint8_t *img, size_t n, uint8_t **mine, size_t *mn) {
  bool hit = keys->has_raw && cache_get_alias(ca, keys->raw, mine, mn);
  if (!hit && cache_has(ca, keys->key) && (hit = cache_get(ca, keys->key, mine, mn)) && keys->has_raw)
    cache_put_alias(ca, keys->raw, keys->key);
  if (hit && *mn == n && memcmp(*mine, img, n) == 0) return true;
  if (hit) free(*mine); /* another build's entry under the same versions: rank 0's replaces it */
  cache_put(ca, keys->key, keys->has_raw ? &keys->raw : NULL, img, n);
  ca->metrics.filled++;
  record_event(ca, 'F');
  return false;
}

/* ------------------------------------------------------------------ */
/* Eviction and statistics. */

typedef struct EntryFile {
  char name[80];
  uint64_t bytes;
  struct timespec used;
} EntryFile;

static bool has_suffix(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n > k && strcmp(s + n - k, suffix) == 0;
}

/* The entries of a directory (malloc'ed array) and their total size. */
static EntryFile *list_entries(const char *dir, int *count, uint64_t *total) {
  *count = 0;
  *total = 0;
  DIR *d = opendir(dir);
  if (!d) return NULL;
  int cap = 64;
  EntryFile *v = malloc(sizeof *v * (size_t)cap);
  struct dirent *e;
  while (v && (e = readdir(d))) {
    if (!has_suffix(e->d_name, ENTRY_SUFFIX) || strlen(e->d_name) >= sizeof v->name) continue;
    char path[4400];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    if (stat(path, &st) != 0) continue;
    if (*count == cap) {
      EntryFile *nv = realloc(v, sizeof *v * (size_t)(cap *= 2));
      if (!nv) break;
      v = nv;
    }
    EntryFile *f = &v[(*count)++];
    snprintf(f->name, sizeof f->name, "%s", e->d_name);
    f->bytes = (uint64_t)st.st_size;
    f->used = st.st_mtim;
    *total += f->bytes;
  }
  closedir(d);
  return v;
}

static int older_first(const void *a, const void *b) {
  const EntryFile *x = a, *y = b;
  if (x->used.tv_sec != y->used.tv_sec) return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
  if (x->used.tv_nsec != y->used.tv_nsec) return x->used.tv_nsec < y->used.tv_nsec ? -1 : 1;
  return strcmp(x->name, y->name);
}

/* Least recently used first, down to the bound, under DIR/.lock; when
 * another process holds the lock it is already evicting. */
static void evict(Cache *ca) {
  int count;
  uint64_t total;
  EntryFile *v = list_entries(ca->dir, &count, &total);
  if (!v || total <= ca->max_bytes) {
    free(v);
    return;
  }
  char path[4400];
  snprintf(path, sizeof path, "%s/.lock", ca->dir);
  int fd = open(path, O_RDWR | O_CREAT, 0666);
  if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (fd >= 0) close(fd);
    free(v);
    return;
  }
  free(v);
  v = list_entries(ca->dir, &count, &total); /* fresh, under the lock */
  if (v) qsort(v, (size_t)count, sizeof *v, older_first);
  for (int i = 0; v && i < count && total > ca->max_bytes; i++) {
    snprintf(path, sizeof path, "%s/%s", ca->dir, v[i].name);
    if (unlink(path) == 0) {
      total -= v[i].bytes;
      record_event(ca, 'E');
    }
  }
  free(v);
  flock(fd, LOCK_UN);
  close(fd);
}

int cache_print_stats(const char *dir, FILE *out) {
  char d[4096];
  if (!cache_resolve_dir(dir, d, sizeof d)) {
    fprintf(stderr, "tpucc: no cache directory (set --cache-dir, TPU_CACHE_DIR or HOME)\n");
    return 1;
  }
  int count;
  uint64_t total;
  EntryFile *v = list_entries(d, &count, &total);
  free(v);
  long hits = 0, misses = 0, evictions = 0, filled = 0;
  char path[4400];
  snprintf(path, sizeof path, "%s/events", d);
  FILE *f = fopen(path, "rb");
  for (int ch; f && (ch = fgetc(f)) != EOF;) hits += ch == 'H', misses += ch == 'M', evictions += ch == 'E', filled += ch == 'F';
  if (f) fclose(f);
  snprintf(path, sizeof path, "%s/.since", d);
  long long since = 0;
  f = fopen(path, "r");
  if (f && fscanf(f, "%lld", &since) != 1) since = 0;
  if (f) fclose(f);
  char when[40] = "never used";
  time_t t = (time_t)since;
  struct tm tm;
  if (since > 0 && gmtime_r(&t, &tm)) strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
  fprintf(out,
          "cache: %s\nentries: %d\nbytes: %llu\nhits: %ld\nmisses: %ld\nevictions: %ld\nfilled from rank 0: %ld\n"
          "since: %s\n",
          d, count, (unsigned long long)total, hits, misses, evictions, filled, when);
  return 0;
}

int cache_clear(const char *dir, FILE *out) {
  char d[4096];
  if (!cache_resolve_dir(dir, d, sizeof d)) {
    fprintf(stderr, "tpucc: no cache directory (set --cache-dir, TPU_CACHE_DIR or HOME)\n");
    return 1;
  }
  DIR *dd = opendir(d);
  int removed = 0, failed = 0;
  struct dirent *e;
  while (dd && (e = readdir(dd))) {
    bool entry = has_suffix(e->d_name, ENTRY_SUFFIX);
    if (!entry && !has_suffix(e->d_name, ALIAS_SUFFIX) && strcmp(e->d_name, "events") != 0 &&
        strcmp(e->d_name, ".since") != 0)
      continue;
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", d, e->d_name);
    if (unlink(path) == 0) removed += entry;
    else failed++;
  }
  if (dd) closedir(dd);
  fprintf(out, "cache: removed %d entries from %s\n", removed, d);
  if (failed) fprintf(stderr, "tpucc: could not remove %d files from %s\n", failed, d);
  return failed ? 1 : 0;
}
