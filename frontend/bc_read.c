/* MLIR bytecode reader: the container (magic, version, producer, sections),
 * the string, dialect, resource, properties and dialect-version sections,
 * and the entry point bc_read_vhlo.  Every read is bounds-checked against
 * its section; a failure reports once and unwinds. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/bc_read.h"
#include "frontend/vhlo_legalize.h"

bool bc_corrupt(BcFile *b, const BcCur *at, const char *fmt, ...) {
  if (b->failed) return false;
  b->failed = true;
  b->c->diag.bad_input = true;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  diag_report(b->c, (Loc){b->diag_file, 0, 0}, SEV_ERROR, "corrupt bytecode in the %s section at byte offset %zu: %s",
              at ? at->section : "header", at ? at->pos : 0, msg);
  return false;
}

bool bc_refuse(BcFile *b, const char *fmt, ...) {
  if (b->failed) return false;
  b->failed = b->refused = true;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  diag_report(b->c, (Loc){b->diag_file, 0, 0}, SEV_ERROR, "%s", msg);
  return false;
}

bool bc_byte(BcFile *b, BcCur *r, uint8_t *out) {
  *out = 0;
  if (b->failed) return false;
  if (r->pos >= r->end) return bc_corrupt(b, r, "unexpected end of data");
  *out = b->data[r->pos++];
  return true;
}

bool bc_varint(BcFile *b, BcCur *r, uint64_t *out) {
  uint8_t first;
  *out = 0;
  size_t at = r->pos;
  if (!bc_byte(b, r, &first)) return false;
  if (first & 1) {
    *out = first >> 1;
    return true;
  }
  int extra = first == 0 ? 8 : __builtin_ctz(first);
  if (r->end - r->pos < (size_t)extra) {
    r->pos = at;
    return bc_corrupt(b, r, "truncated variable-length integer");
  }
  uint64_t v = 0;
  for (int i = extra - 1; i >= 0; i--) v = (v << 8) | b->data[r->pos + (size_t)i];
  r->pos += (size_t)extra;
  if (first == 0) *out = v;
  else *out = ((v << 8) | first) >> (extra + 1);
  return true;
}

bool bc_svarint(BcFile *b, BcCur *r, int64_t *out) {
  uint64_t v;
  if (!bc_varint(b, r, &v)) return false;
  *out = (int64_t)((v >> 1) ^ (~(v & 1) + 1));
  return true;
}

bool bc_varint_flag(BcFile *b, BcCur *r, uint64_t *out, bool *flag) {
  uint64_t v;
  if (!bc_varint(b, r, &v)) return false;
  *flag = v & 1;
  *out = v >> 1;
  return true;
}

bool bc_bytes(BcFile *b, BcCur *r, uint64_t n, BcCur *out) {
  *out = (BcCur){r->pos, r->pos, r->section};
  if (b->failed) return false;
  if (n > r->end - r->pos) return bc_corrupt(b, r, "%llu bytes needed, %zu left", (unsigned long long)n, r->end - r->pos);
  *out = (BcCur){r->pos, r->pos + (size_t)n, r->section};
  r->pos += (size_t)n;
  return true;
}

bool bc_count(BcFile *b, BcCur *r, size_t min_size, uint64_t *out) {
  size_t at = r->pos;
  if (!bc_varint(b, r, out)) return false;
  size_t left = r->end - r->pos;
  if (min_size && *out > left / min_size) {
    r->pos = at;
    return bc_corrupt(b, r, "count %llu exceeds the %zu bytes left", (unsigned long long)*out, left);
  }
  return true;
}

bool bc_string(BcFile *b, BcCur *r, const char **s, size_t *len) {
  size_t at = r->pos;
  uint64_t i;
  if (!bc_varint(b, r, &i)) return false;
  if (i >= b->nstrings) {
    r->pos = at;
    return bc_corrupt(b, r, "string index %llu out of range (%llu strings)", (unsigned long long)i,
                      (unsigned long long)b->nstrings);
  }
  *s = b->strings[i];
  if (len) *len = b->string_lens[i];
  return true;
}

bool bc_align(BcFile *b, BcCur *r, uint64_t align) {
  if (align == 0 || (align & (align - 1)) || align > (1u << 24))
    return bc_corrupt(b, r, "alignment %llu is not a power of two up to 2^24", (unsigned long long)align);
  while (r->pos % align) {
    uint8_t pad;
    if (!bc_byte(b, r, &pad)) return false;
    if (pad != 0xCB) {
      r->pos--;
      return bc_corrupt(b, r, "expected alignment byte 0xCB, found 0x%02X", pad);
    }
  }
  return true;
}

bool bc_section(BcFile *b, BcCur *r, uint8_t *id, BcCur *out) {
  uint8_t idbyte;
  uint64_t len;
  size_t at = r->pos;
  if (!bc_byte(b, r, &idbyte) || !bc_varint(b, r, &len)) return false;
  *id = idbyte & 0x7F;
  if (*id >= BC_NUM_SECTIONS) {
    r->pos = at;
    return bc_corrupt(b, r, "invalid section id %u", *id);
  }
  if (idbyte & 0x80) {
    uint64_t align;
    if (!bc_varint(b, r, &align) || !bc_align(b, r, align)) return false;
  }
  if (len > r->end - r->pos) return bc_corrupt(b, r, "section of %llu bytes, only %zu left", (unsigned long long)len, r->end - r->pos);
  return bc_bytes(b, r, len, out);
}

/* Strings: a count, the sizes in reverse order, then the NUL-terminated
 * string data. */
static bool read_strings(BcFile *b) {
  BcCur r = b->sections[BC_SEC_STRING];
  uint64_t n;
  if (!bc_count(b, &r, 2, &n)) return false;
  b->nstrings = n;
  b->strings = arena_alloc(&b->c->arena, sizeof(char *) * (n ? n : 1));
  b->string_lens = arena_alloc(&b->c->arena, sizeof(size_t) * (n ? n : 1));
  size_t data_end = r.end;
  for (uint64_t k = n; k-- > 0;) {
    uint64_t size;
    if (!bc_varint(b, &r, &size)) return false;
    if (size == 0 || size > data_end - r.pos) return bc_corrupt(b, &r, "string size %llu exceeds the data", (unsigned long long)size);
    size_t start = data_end - (size_t)size;
    if (b->data[data_end - 1] != 0) return bc_corrupt(b, &r, "string %llu is not NUL-terminated", (unsigned long long)k);
    b->strings[k] = (const char *)b->data + start;
    b->string_lens[k] = (size_t)size - 1;
    data_end = start;
  }
  if (r.pos != data_end) return bc_corrupt(b, &r, "trailing data between the string sizes and their data");
  return true;
}

static int dialect_named(const BcFile *b, const char *name) {
  for (uint64_t i = 0; i < b->ndialects; i++)
    if (strcmp(b->dialects[i].name, name) == 0) return (int)i;
  return -1;
}

/* One op name of a dialect group; before v5 without the registered bit. */
static bool read_op_name(BcFile *b, BcCur *r, uint32_t dialect, PtrVec *names) {
  const char *s;
  size_t len;
  int registered = -1;
  if (b->version < BC_V_NATIVE_PROPERTIES) {
    if (!bc_string(b, r, &s, &len)) return false;
  } else {
    uint64_t idx;
    bool flag;
    size_t at = r->pos;
    if (!bc_varint_flag(b, r, &idx, &flag)) return false;
    if (idx >= b->nstrings) {
      r->pos = at;
      return bc_corrupt(b, r, "string index %llu out of range", (unsigned long long)idx);
    }
    s = b->strings[idx];
    len = b->string_lens[idx];
    registered = flag;
  }
  BcOpName *o = arena_alloc(&b->c->arena, sizeof *o);
  o->dialect = dialect;
  o->registered = registered;
  const char *d = b->dialects[dialect].name;
  o->name = len ? arena_printf(&b->c->arena, "%s.%.*s", d, (int)len, s) : d;
  vec_push(names, o);
  return true;
}

/* Dialects (names, version records), then op names grouped by dialect. */
static bool read_dialects(BcFile *b) {
  BcCur r = b->sections[BC_SEC_DIALECT];
  uint64_t n;
  if (!bc_count(b, &r, 1, &n)) return false;
  b->ndialects = n;
  b->dialects = arena_alloc(&b->c->arena, sizeof(BcDialect) * (n ? n : 1));
  for (uint64_t i = 0; i < n; i++) {
    BcDialect *d = &b->dialects[i];
    if (b->version < BC_V_DIALECT_VERSIONING) {
      if (!bc_string(b, &r, &d->name, NULL)) return false;
      continue;
    }
    uint64_t idx;
    size_t at = r.pos;
    if (!bc_varint_flag(b, &r, &idx, &d->has_version)) return false;
    if (idx >= b->nstrings) {
      r.pos = at;
      return bc_corrupt(b, &r, "dialect name index %llu out of range", (unsigned long long)idx);
    }
    d->name = b->strings[idx];
    if (d->has_version) {
      uint8_t id;
      if (!bc_section(b, &r, &id, &d->version)) return false;
      if (id != BC_SEC_DIALECT_VERSIONS) return bc_corrupt(b, &r, "expected a dialect version section, found section %u", id);
      d->version.section = "dialect version";
    }
  }
  if (b->version >= BC_V_ELIDE_UNKNOWN_BLOCK_ARG_LOC) {
    uint64_t nops;
    if (!bc_count(b, &r, 1, &nops)) return false;
  }
  PtrVec names = {0};
  while (r.pos < r.end && !b->failed) {
    uint64_t d, count;
    size_t at = r.pos;
    if (!bc_varint(b, &r, &d)) break;
    if (d >= n) {
      r.pos = at;
      bc_corrupt(b, &r, "dialect index %llu out of range", (unsigned long long)d);
      break;
    }
    if (!bc_count(b, &r, 1, &count)) break;
    for (uint64_t k = 0; k < count; k++)
      if (!read_op_name(b, &r, (uint32_t)d, &names)) break;
  }
  b->nopnames = (uint64_t)names.len;
  b->opnames = arena_alloc(&b->c->arena, sizeof(BcOpName) * (size_t)(names.len ? names.len : 1));
  for (int i = 0; i < names.len; i++) b->opnames[i] = *(BcOpName *)names.items[i];
  vec_free(&names);
  b->builtin = dialect_named(b, "builtin");
  b->vhlo = dialect_named(b, "vhlo");
  b->chlo = dialect_named(b, "chlo");
  b->stablehlo = dialect_named(b, "stablehlo");
  return !b->failed;
}

/* "; its ops VHLO does not know: 'vhlo.x_v9', ..." from the dialect
 * section's op names (empty when it has none), into out. */
static void unknown_vhlo_ops(BcFile *b, char *out, size_t n) {
  VhloTable *t = vhlo_table(b->c);
  size_t used = 0;
  int found = 0;
  out[0] = 0;
  for (uint64_t i = 0; i < b->nopnames && used + 1 < n; i++) {
    const char *name = b->opnames[i].name;
    if (strncmp(name, "vhlo.", 5) != 0 || vhlo_row_by_name(t, name)) continue;
    used += (size_t)snprintf(out + used, n - used, "%s'%s'", found++ ? ", " : "; its ops VHLO does not know: ", name);
  }
  if (used >= n && n > 4) strcpy(out + n - 4, "...");
}

/* The StableHLO or VHLO version of the artifact: the dialect version record
 * of stablehlo / vhlo (major, minor, patch) when present, else the
 * producer string "StableHLO_vX.Y.Z"; refuses one newer than ours. */
static bool read_versions(BcFile *b) {
  for (uint64_t i = 0; i < b->ndialects; i++) {
    BcDialect *d = &b->dialects[i];
    if (!d->has_version || ((int)i != b->vhlo && (int)i != b->stablehlo)) continue;
    BcCur r = d->version;
    uint64_t v[3];
    for (int k = 0; k < 3; k++)
      if (!bc_varint(b, &r, &v[k])) return false;
    if (v[0] > 1000000 || v[1] > 1000000 || v[2] > 1000000) return bc_corrupt(b, &r, "implausible dialect version");
    b->info->vhlo = (VhloVersion){(int)v[0], (int)v[1], (int)v[2]};
    b->info->has_vhlo_version = true;
  }
  const char *p = b->info->producer;
  if (!b->info->has_vhlo_version && strncmp(p, "StableHLO_v", 11) == 0) {
    VhloVersion v;
    if (vhlo_version_parse(p + 11, &v)) {
      b->info->vhlo = v;
      b->info->has_vhlo_version = true;
    }
  }
  VhloVersion cur = VHLO_VERSION_CURRENT;
  if (b->info->has_vhlo_version && vhlo_version_cmp(b->info->vhlo, cur) > 0) {
    VhloVersion v = b->info->vhlo;
    char unknown[512];
    unknown_vhlo_ops(b, unknown, sizeof unknown);
    return bc_refuse(b, "the artifact's StableHLO version %d.%d.%d (producer \"%s\") is newer than the newest this reader supports, %d.%d.%d%s",
                     v.major, v.minor, v.patch, p, cur.major, cur.minor, cur.patch, unknown);
  }
  return true;
}

/* A resource entry's payload: a blob (alignment, size, data). */
static void add_resource(BcFile *b, const char *key, const uint8_t *data, size_t n, uint64_t align) {
  Resource *res = arena_alloc(&b->c->arena, sizeof *res);
  res->name = key;
  res->data = arena_dup(&b->c->arena, data, n ? n : 1);
  res->nbytes = n;
  char *hex = arena_alloc(&b->c->arena, 2 + 2 * (n + 4) + 1);
  static const char digits[] = "0123456789ABCDEF";
  size_t k = 0;
  hex[k++] = '0';
  hex[k++] = 'x';
  uint8_t head[4] = {(uint8_t)align, (uint8_t)(align >> 8), (uint8_t)(align >> 16), (uint8_t)(align >> 24)};
  for (int i = 0; i < 4; i++) hex[k++] = digits[head[i] >> 4], hex[k++] = digits[head[i] & 15];
  for (size_t i = 0; i < n; i++) hex[k++] = digits[data[i] >> 4], hex[k++] = digits[data[i] & 15];
  hex[k] = 0;
  res->hex = hex;
  vec_push(&b->module_resources, res);
}

/* One group of resources: count, then (key, size, kind) in the offset
 * section and the payloads in order in the resource section. */
static bool read_resource_group(BcFile *b, BcCur *off, BcCur *data, bool dialect, PtrVec *handles) {
  uint64_t n;
  if (!bc_count(b, off, 3, &n)) return false;
  for (uint64_t i = 0; i < n; i++) {
    const char *key;
    uint64_t size;
    uint8_t kind;
    BcCur payload;
    if (!bc_string(b, off, &key, NULL) || !bc_varint(b, off, &size) || !bc_byte(b, off, &kind) ||
        !bc_bytes(b, data, size, &payload))
      return false;
    if (!dialect) continue;
    vec_push(handles, (void *)key);
    if (size == 0 || kind != 0) { /* a declaration, or a bool (1) or string (2) entry: no data */
      Resource *res = arena_alloc(&b->c->arena, sizeof *res);
      res->name = key;
      vec_push(&b->module_resources, res);
      continue;
    }
    uint64_t align, dsize;
    if (!bc_varint(b, &payload, &align) || !bc_varint(b, &payload, &dsize) || !bc_align(b, &payload, align)) return false;
    BcCur blob;
    if (!bc_bytes(b, &payload, dsize, &blob))
      return false;
    if (payload.pos != payload.end) return bc_corrupt(b, &payload, "trailing bytes in resource '%s'", key);
    add_resource(b, key, b->data + blob.pos, blob.end - blob.pos, align);
  }
  return true;
}

static bool read_resources(BcFile *b) {
  bool has = b->has_section[BC_SEC_RESOURCE], has_off = b->has_section[BC_SEC_RESOURCE_OFFSET];
  if (has != has_off) return bc_corrupt(b, NULL, "a resource section without its offset section (or the reverse)");
  if (!has) return true;
  BcCur off = b->sections[BC_SEC_RESOURCE_OFFSET], data = b->sections[BC_SEC_RESOURCE];
  uint64_t nexternal;
  PtrVec handles = {0};
  bool ok = bc_count(b, &off, 1, &nexternal);
  for (uint64_t i = 0; ok && i < nexternal; i++) {
    const char *key;
    ok = bc_string(b, &off, &key, NULL) && read_resource_group(b, &off, &data, false, NULL);
  }
  while (ok && off.pos < off.end) {
    uint64_t d;
    size_t at = off.pos;
    ok = bc_varint(b, &off, &d);
    if (ok && d >= b->ndialects) {
      off.pos = at;
      ok = bc_corrupt(b, &off, "dialect index %llu out of range", (unsigned long long)d);
    }
    if (ok) ok = read_resource_group(b, &off, &data, true, &handles);
  }
  b->nresources = (uint64_t)handles.len;
  b->resources = arena_alloc(&b->c->arena, sizeof(char *) * (size_t)(handles.len ? handles.len : 1));
  for (int i = 0; i < handles.len; i++) b->resources[i] = handles.items[i];
  vec_free(&handles);
  return ok;
}

/* Properties: a count, then each entry as (size, bytes); offsets kept. */
static bool read_properties(BcFile *b) {
  if (!b->has_section[BC_SEC_PROPERTIES]) return true;
  BcCur r = b->sections[BC_SEC_PROPERTIES];
  if (r.pos == r.end) return true;
  uint64_t n;
  if (!bc_count(b, &r, 1, &n)) return false;
  b->nprops = n;
  b->prop_offsets = arena_alloc(&b->c->arena, sizeof(size_t) * (n ? n : 1));
  for (uint64_t i = 0; i < n; i++) {
    b->prop_offsets[i] = r.pos;
    uint64_t size;
    BcCur skip;
    if (!bc_varint(b, &r, &size) ||
        !bc_bytes(b, &r, size, &skip))
      return false;
  }
  if (r.pos != r.end) return bc_corrupt(b, &r, "trailing data after %llu property entries", (unsigned long long)n);
  return true;
}

static const char *const section_names[BC_NUM_SECTIONS] = {
    "string", "dialect", "attribute/type", "attribute/type offset", "IR",
    "resource", "resource offset", "dialect version", "properties"};

/* Magic, version, producer, then the top-level sections. */
static bool read_header(BcFile *b) {
  BcCur r = {0, b->len, "header"};
  if (b->len < 4 || memcmp(b->data, "ML\xefR", 4) != 0) return bc_corrupt(b, &r, "missing the MLIR bytecode magic 'ML\\xefR'");
  r.pos = 4;
  if (!bc_varint(b, &r, &b->version)) return false;
  b->info->format_version = b->version;
  if (b->version > BC_V_CURRENT)
    return bc_refuse(b, "MLIR bytecode format version %llu is newer than the newest this reader supports (%d)",
                     (unsigned long long)b->version, BC_V_CURRENT);
  const uint8_t *nul = memchr(b->data + r.pos, 0, r.end - r.pos);
  if (!nul) return bc_corrupt(b, &r, "unterminated producer string");
  b->info->producer = arena_strndup(&b->c->arena, (const char *)b->data + r.pos, (size_t)(nul - b->data) - r.pos);
  r.pos = (size_t)(nul - b->data) + 1;
  r.section = "top-level";
  while (r.pos < r.end) {
    uint8_t id;
    BcCur s;
    size_t at = r.pos;
    if (!bc_section(b, &r, &id, &s)) return false;
    if (b->has_section[id]) {
      r.pos = at;
      return bc_corrupt(b, &r, "duplicate %s section", section_names[id]);
    }
    s.section = section_names[id];
    b->sections[id] = s;
    b->has_section[id] = true;
  }
  for (int id = 0; id <= BC_SEC_IR; id++)
    if (!b->has_section[id]) return bc_corrupt(b, &r, "missing the %s section", section_names[id]);
  if (b->version >= BC_V_NATIVE_PROPERTIES && !b->has_section[BC_SEC_PROPERTIES])
    return bc_corrupt(b, &r, "missing the properties section");
  return true;
}

Module *bc_read_vhlo(Context *c, const SourceFile *file, BcInfo *info) {
  BcInfo scratch;
  BcFile b = {.c = c, .file = file, .data = (const uint8_t *)file->text, .len = file->len, .info = info ? info : &scratch};
  memset(b.info, 0, sizeof *b.info);
  SourceFile *df = arena_alloc(&c->arena, sizeof *df);
  df->name = file->name;
  b.diag_file = df;
  b.info->producer = "";
  Op *top = NULL;
  if (read_header(&b) && read_strings(&b) && read_dialects(&b) && read_versions(&b) && read_properties(&b) &&
      read_resources(&b) && bc_attr_table(&b))
    top = bc_read_ir(&b);
  Module *m = NULL;
  if (top && !b.failed) {
    m = arena_alloc(&c->arena, sizeof *m);
    m->op = top;
    m->file = file;
    m->nresources = b.module_resources.len;
    m->resources = arena_alloc(&c->arena, sizeof(Resource) * (size_t)(m->nresources ? m->nresources : 1));
    for (int i = 0; i < m->nresources; i++) m->resources[i] = *(Resource *)b.module_resources.items[i];
  }
  vec_free(&b.module_resources);
  table_free(&b.files, NULL);
  return m;
}
