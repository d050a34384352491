/* MLIR bytecode reader: the attribute/type table.  Entries are located by
 * the offset section and decoded lazily on their first reference (cached by
 * index); a reference cycle or nesting past BC_MAX_DEPTH is corruption.
 * Entries without a dialect encoding are MLIR assembly text, parsed by
 * our text parser (frontend/parse_fragment.c). */
#include <string.h>

#include "frontend/bc_read.h"
#include "frontend/parser.h"

/* One dialect-grouped run of entries: (dialect, count, (size|custom)*). */
static bool read_entries(BcFile *b, BcCur *off, BcEntry *entries, uint64_t n, size_t *data_pos) {
  const BcCur *sec = &b->sections[BC_SEC_ATTR_TYPE];
  uint64_t i = 0;
  while (i < n) {
    uint64_t d, count;
    size_t at = off->pos;
    if (!bc_varint(b, off, &d)) return false;
    if (d >= b->ndialects) {
      off->pos = at;
      return bc_corrupt(b, off, "dialect index %llu out of range", (unsigned long long)d);
    }
    if (!bc_count(b, off, 1, &count)) return false;
    if (count > n - i) return bc_corrupt(b, off, "%llu entries in a group, only %llu expected", (unsigned long long)count, (unsigned long long)(n - i));
    for (uint64_t k = 0; k < count; k++, i++) {
      uint64_t size;
      BcEntry *e = &entries[i];
      if (!bc_varint_flag(b, off, &size, &e->custom)) return false;
      if (size > sec->end - *data_pos) return bc_corrupt(b, off, "entry of %llu bytes runs past the attribute/type section", (unsigned long long)size);
      e->dialect = (uint32_t)d;
      e->data = (BcCur){*data_pos, *data_pos + (size_t)size, "attribute/type"};
      *data_pos += (size_t)size;
    }
  }
  return true;
}

bool bc_attr_table(BcFile *b) {
  BcCur off = b->sections[BC_SEC_ATTR_TYPE_OFFSET];
  uint64_t na, nt;
  if (!bc_count(b, &off, 1, &na) || !bc_count(b, &off, 1, &nt)) return false;
  if (na + nt > off.end - off.pos) return bc_corrupt(b, &off, "%llu attributes and %llu types exceed the section", (unsigned long long)na, (unsigned long long)nt);
  b->nattrs = na;
  b->ntypes = nt;
  b->attrs = arena_alloc(&b->c->arena, sizeof(BcEntry) * (size_t)(na ? na : 1));
  b->types = arena_alloc(&b->c->arena, sizeof(BcEntry) * (size_t)(nt ? nt : 1));
  size_t pos = b->sections[BC_SEC_ATTR_TYPE].pos;
  if (!read_entries(b, &off, b->attrs, na, &pos) || !read_entries(b, &off, b->types, nt, &pos)) return false;
  if (off.pos != off.end) return bc_corrupt(b, &off, "trailing data in the attribute/type offset section");
  return true;
}

/* Text of an assembly-format entry (NUL-terminated, nothing after it). */
static bool asm_text(BcFile *b, BcCur *r, const char **s, size_t *n) {
  *s = NULL;
  *n = 0;
  const uint8_t *nul = memchr(b->data + r->pos, 0, r->end - r->pos);
  if (!nul) return bc_corrupt(b, r, "assembly-format entry without a terminating NUL");
  *s = (const char *)b->data + r->pos;
  *n = (size_t)(nul - (b->data + r->pos));
  r->pos += *n + 1;
  return true;
}

/* Parses an assembly-format entry with our text parser, its diagnostics
 * silenced; a spelling it does not accept is refused (exit 2). */
static bool parse_asm_entry(BcFile *b, BcCur *r, BcEntry *e, bool is_type) {
  const char *s;
  size_t n;
  if (!asm_text(b, r, &s, &n)) return false;
  DiagEngine saved = b->c->diag;
  b->c->diag.quiet = true;
  Loc loc = {b->diag_file, 0, 0};
  if (is_type) e->type = parse_type_text(b->c, s, n, loc);
  else e->attr = parse_attribute_text(b->c, s, n, loc);
  b->c->diag = saved;
  if (is_type ? !e->type : !e->attr)
    return bc_refuse(b, "unsupported %s '%.*s' (dialect %s) in the bytecode", is_type ? "type" : "attribute",
                     (int)(n > 200 ? 200 : n), s, b->dialects[e->dialect].name);
  return true;
}

/* Decodes entry e (an attribute unless is_type) once. */
static bool decode_entry(BcFile *b, BcEntry *e, const BcCur *ref, bool is_type, uint64_t idx) {
  if (e->state == 2) {
    b->expanded += e->size;
    return true;
  }
  if (e->state == 1)
    return bc_corrupt(b, ref, "%s %llu refers to itself", is_type ? "type" : "attribute", (unsigned long long)idx);
  if (b->depth >= BC_MAX_DEPTH) return bc_corrupt(b, ref, "attributes and types nested too deeply");
  e->state = 1;
  b->depth++;
  uint64_t outer = b->expanded;
  b->expanded = 1;
  BcCur r = e->data;
  bool ok;
  if (!e->custom) {
    ok = parse_asm_entry(b, &r, e, is_type);
  } else {
    int d = (int)e->dialect;
    if (d == b->builtin) {
      if (is_type) ok = (e->type = bc_decode_builtin_type(b, &r)) != NULL;
      else ok = (e->attr = bc_decode_builtin_attr(b, &r, e)) != NULL || e->loc;
    } else if (d == b->vhlo) {
      if (is_type) ok = (e->type = bc_decode_vhlo_type(b, &r)) != NULL;
      else ok = (e->attr = bc_decode_vhlo_attr(b, &r)) != NULL;
    } else if (d == b->chlo && !is_type) {
      ok = (e->attr = bc_decode_chlo_attr(b, &r)) != NULL;
    } else {
      ok = bc_refuse(b, "%s of dialect '%s' in a dialect-specific encoding this reader does not know",
                     is_type ? "a type" : "an attribute", b->dialects[d].name);
    }
  }
  b->depth--;
  e->size = b->expanded;
  b->expanded = outer + (e->size < BC_MAX_EXPANDED ? e->size : BC_MAX_EXPANDED);
  if (ok && e->size >= BC_MAX_EXPANDED)
    return bc_corrupt(b, ref, "%s %llu expands to more than %llu nodes", is_type ? "type" : "attribute",
                      (unsigned long long)idx, (unsigned long long)BC_MAX_EXPANDED);
  if (!ok || b->failed) return bc_corrupt(b, &r, "undecodable %s %llu", is_type ? "type" : "attribute", (unsigned long long)idx);
  if (r.pos != r.end) return bc_corrupt(b, &r, "trailing bytes after %s %llu", is_type ? "type" : "attribute", (unsigned long long)idx);
  e->state = 2;
  return true;
}

static BcEntry *attr_entry(BcFile *b, const BcCur *ref, uint64_t idx) {
  if (idx >= b->nattrs) {
    bc_corrupt(b, ref, "attribute index %llu out of range (%llu attributes)", (unsigned long long)idx, (unsigned long long)b->nattrs);
    return NULL;
  }
  BcEntry *e = &b->attrs[idx];
  return decode_entry(b, e, ref, false, idx) ? e : NULL;
}

Attr *bc_attr_at(BcFile *b, const BcCur *ref, uint64_t idx) {
  BcEntry *e = attr_entry(b, ref, idx);
  if (!e) return NULL;
  if (!e->attr) {
    bc_corrupt(b, ref, "attribute %llu is a location, not an attribute value", (unsigned long long)idx);
    return NULL;
  }
  return e->attr;
}

/* A reference (entry index) at r: the cursor naming its position. */
static bool reference(BcFile *b, BcCur *r, uint64_t *idx, BcCur *ref) {
  *ref = (BcCur){r->pos, r->end, r->section};
  return bc_varint(b, r, idx);
}

Attr *bc_attr(BcFile *b, BcCur *r) {
  uint64_t idx;
  BcCur ref;
  return reference(b, r, &idx, &ref) ? bc_attr_at(b, &ref, idx) : NULL;
}

BcLoc *bc_loc(BcFile *b, BcCur *r) {
  uint64_t idx;
  BcCur ref;
  if (!reference(b, r, &idx, &ref)) return NULL;
  BcEntry *e = attr_entry(b, &ref, idx);
  if (!e) return NULL;
  if (!e->loc) {
    bc_corrupt(b, &ref, "attribute %llu is not a location", (unsigned long long)idx);
    return NULL;
  }
  return e->loc;
}

bool bc_string_attr(BcFile *b, BcCur *r, const char **s, size_t *len) {
  size_t at = r->pos;
  Attr *a = bc_attr(b, r);
  if (!a) return false;
  if (a->kind != ATTR_STRING) {
    r->pos = at;
    return bc_corrupt(b, r, "expected a string attribute");
  }
  *s = a->u.str.s;
  *len = a->u.str.len;
  return true;
}

Type *bc_type_at(BcFile *b, const BcCur *ref, uint64_t idx) {
  if (idx >= b->ntypes) {
    bc_corrupt(b, ref, "type index %llu out of range (%llu types)", (unsigned long long)idx, (unsigned long long)b->ntypes);
    return NULL;
  }
  return decode_entry(b, &b->types[idx], ref, true, idx) ? b->types[idx].type : NULL;
}

Type *bc_type(BcFile *b, BcCur *r) {
  uint64_t idx;
  BcCur ref;
  return reference(b, r, &idx, &ref) ? bc_type_at(b, &ref, idx) : NULL;
}
