/* The bytecode writer's building blocks: byte buffers with MLIR's varint
 * encodings, pointer maps, the string section, and the numbering tables of
 * dialects, attributes and types (MLIR's IRNumbering: first use creates an
 * entry and numbers what it refers to; later uses count references). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/bc_write.h"

/* ------------------------------------------------------------------ */
/* Buffers. */

static void bcb_reserve(BcBuf *b, size_t n) {
  if (b->len + n <= b->cap) return;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->len + n) cap *= 2;
  b->data = xrealloc(b->data, cap);
  b->cap = cap;
}

void bcb_byte(BcBuf *b, uint8_t v) {
  bcb_reserve(b, 1);
  b->data[b->len++] = v;
}

void bcb_bytes(BcBuf *b, const void *p, size_t n) {
  if (!n) return;
  bcb_reserve(b, n);
  memcpy(b->data + b->len, p, n);
  b->len += n;
}

/* MLIR's prefix varint: the count of trailing zero bits of the first byte
 * is the number of extra bytes; a 0 first byte is followed by 8 bytes. */
void bcb_varint(BcBuf *b, uint64_t v) {
  if ((v >> 7) == 0) {
    bcb_byte(b, (uint8_t)((v << 1) | 1));
    return;
  }
  uint64_t it = v >> 7;
  for (int nbytes = 2; nbytes < 9; nbytes++) {
    if ((it >>= 7) == 0) {
      uint64_t enc = ((v << 1) | 1) << (nbytes - 1);
      for (int i = 0; i < nbytes; i++) bcb_byte(b, (uint8_t)(enc >> (8 * i)));
      return;
    }
  }
  bcb_byte(b, 0);
  for (int i = 0; i < 8; i++) bcb_byte(b, (uint8_t)(v >> (8 * i)));
}

void bcb_svarint(BcBuf *b, int64_t v) {
  uint64_t u = (uint64_t)v;
  bcb_varint(b, (u << 1) ^ (uint64_t)(v >> 63));
}

void bcb_varint_flag(BcBuf *b, uint64_t v, bool flag) { bcb_varint(b, (v << 1) | (flag ? 1 : 0)); }

void bcb_align(BcBuf *b, unsigned align) {
  if (align < 2) return;
  while (b->len % align) bcb_byte(b, 0xCB);
  if (align > b->align) b->align = align;
}

void bcb_section(BcBuf *b, int code, BcBuf *body) {
  size_t code_at = b->len;
  bcb_byte(b, (uint8_t)code);
  bcb_varint(b, body->len);
  if (body->align > 1) {
    if (b->len & (body->align - 1)) {
      bcb_varint(b, body->align);
      bcb_align(b, body->align);
      b->data[code_at] |= 0x80;
    } else if (body->align > b->align) {
      b->align = body->align;
    }
  }
  bcb_bytes(b, body->data, body->len);
  bcb_free(body);
}

void bcb_free(BcBuf *b) {
  free(b->data);
  *b = (BcBuf){0};
}

/* ------------------------------------------------------------------ */
/* Pointer maps. */

static size_t ptr_hash(const void *p) {
  uint64_t x = (uint64_t)(uintptr_t)p;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return (size_t)x;
}

void bcw_map_put(BcPtrMap *m, const void *k, uint32_t v) {
  if ((m->count + 1) * 2 > m->cap) {
    BcPtrMap n = {0};
    n.cap = m->cap ? m->cap * 2 : 64;
    n.keys = xcalloc(n.cap, sizeof *n.keys);
    n.vals = xcalloc(n.cap, sizeof *n.vals);
    for (size_t i = 0; i < m->cap; i++)
      if (m->keys[i]) bcw_map_put(&n, m->keys[i], m->vals[i]);
    free(m->keys);
    free(m->vals);
    *m = n;
  }
  size_t i = ptr_hash(k) & (m->cap - 1);
  while (m->keys[i] && m->keys[i] != k) i = (i + 1) & (m->cap - 1);
  if (!m->keys[i]) m->count++;
  m->keys[i] = k;
  m->vals[i] = v;
}

bool bcw_map_get(const BcPtrMap *m, const void *k, uint32_t *v) {
  if (!m->cap) return false;
  size_t i = ptr_hash(k) & (m->cap - 1);
  while (m->keys[i]) {
    if (m->keys[i] == k) {
      *v = m->vals[i];
      return true;
    }
    i = (i + 1) & (m->cap - 1);
  }
  return false;
}

void bcw_map_free(BcPtrMap *m) {
  free(m->keys);
  free(m->vals);
  *m = (BcPtrMap){0};
}

/* ------------------------------------------------------------------ */
/* Strings. */

uint32_t bcw_fnv(const void *p, size_t n, uint32_t h) {
  const uint8_t *s = p;
  for (size_t i = 0; i < n; i++) h = (h ^ s[i]) * 16777619u;
  return h;
}

static void strings_rehash(BcStrings *t) {
  size_t ns = t->nslots ? t->nslots * 2 : 256;
  free(t->slots);
  t->slots = xcalloc(ns, sizeof *t->slots);
  t->nslots = ns;
  for (size_t i = 0; i < t->count; i++) {
    size_t j = bcw_fnv(t->s[i], t->n[i], 2166136261u) & (ns - 1);
    while (t->slots[j]) j = (j + 1) & (ns - 1);
    t->slots[j] = (uint32_t)i + 1;
  }
}

size_t bcw_string(BcW *w, const char *s, size_t n) {
  BcStrings *t = &w->strings;
  if ((t->count + 1) * 2 > t->nslots) strings_rehash(t);
  size_t j = bcw_fnv(s, n, 2166136261u) & (t->nslots - 1);
  while (t->slots[j]) {
    size_t i = t->slots[j] - 1;
    if (t->n[i] == n && memcmp(t->s[i], s, n) == 0) return i;
    j = (j + 1) & (t->nslots - 1);
  }
  if (t->count == t->cap) {
    t->cap = t->cap ? t->cap * 2 : 64;
    t->s = xrealloc(t->s, t->cap * sizeof *t->s);
    t->n = xrealloc(t->n, t->cap * sizeof *t->n);
  }
  t->s[t->count] = s;
  t->n[t->count] = n;
  t->slots[j] = (uint32_t)++t->count;
  return t->count - 1;
}

/* ------------------------------------------------------------------ */
/* Dialects, attributes and types. */

void bcw_error(BcW *w, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (w->cur_op)
    op_error(w->c, w->cur_op, "%s", msg);
  else
    diag_report(w->c, (Loc){0}, SEV_ERROR, "%s", msg);
  w->failed = true;
}

int bcw_dialect(BcW *w, const char *name, size_t len) {
  for (int i = 0; i < w->ndialects; i++)
    if (w->dialect_len[i] == len && memcmp(w->dialects[i], name, len) == 0) return i;
  if (w->ndialects == (int)(sizeof w->dialects / sizeof w->dialects[0])) die("too many dialects");
  w->dialects[w->ndialects] = name;
  w->dialect_len[w->ndialects] = len;
  return w->ndialects++;
}

BcKey bcw_key_str(BcDom dom, const char *s, size_t n) {
  return (BcKey){.cls = BCA_STR, .dom = (uint8_t)dom, .s = s, .n = n};
}

BcKey bcw_key_attr(BcDom dom, const Attr *a) {
  if (a->kind == ATTR_STRING) return bcw_key_str(dom, a->u.str.s, a->u.str.len);
  return (BcKey){.cls = BCA_ATTR, .dom = (uint8_t)bcw_attr_dom(dom, a), .a = a};
}

static uint32_t key_hash(const BcKey *k) {
  uint32_t h = 2166136261u ^ (uint32_t)(k->cls * 31 + k->dom * 7 + k->vdom);
  switch ((BcAttrClass)k->cls) {
  case BCA_ATTR: return h * 16777619u ^ bcw_hash_attr(k->a);
  case BCA_STR: return bcw_fnv(k->s, k->n, h);
  case BCA_OPDICT:
    for (int i = 0; i < k->nattrs; i++)
      h = bcw_fnv(k->attrs[i].name, strlen(k->attrs[i].name), h) * 31 ^ bcw_hash_attr(k->attrs[i].value);
    return h;
  case BCA_UNKNOWN_LOC: return h;
  }
  return h;
}

static bool key_equal(const BcKey *a, const BcKey *b) {
  if (a->cls != b->cls || a->dom != b->dom || a->vdom != b->vdom) return false;
  switch ((BcAttrClass)a->cls) {
  case BCA_ATTR: return attr_equal(a->a, b->a);
  case BCA_STR: return a->n == b->n && memcmp(a->s, b->s, a->n) == 0;
  case BCA_OPDICT:
    if (a->nattrs != b->nattrs) return false;
    for (int i = 0; i < a->nattrs; i++)
      if (strcmp(a->attrs[i].name, b->attrs[i].name) != 0 || !attr_equal(a->attrs[i].value, b->attrs[i].value))
        return false;
    return true;
  case BCA_UNKNOWN_LOC: return true;
  }
  return false;
}

static uint32_t type_hash(BcDom dom, const Type *t) { return (uint32_t)ptr_hash(t) * 2654435761u ^ (uint32_t)dom; }

static void slots_grow(BcW *w) {
  size_t ns = w->nslots ? w->nslots * 2 : 1024;
  BcEnt **s = xcalloc(ns, sizeof *s);
  for (size_t i = 0; i < w->nslots; i++) {
    BcEnt *e = w->slots[i];
    if (!e) continue;
    size_t j = e->hash & (ns - 1);
    while (s[j]) j = (j + 1) & (ns - 1);
    s[j] = e;
  }
  free(w->slots);
  w->slots = s;
  w->nslots = ns;
}

/* The slot of the entry matching (is_type, key or type), or of the empty
 * slot where it belongs. */
static size_t find_slot(BcW *w, bool is_type, const BcKey *k, BcDom dom, const Type *t, uint32_t h) {
  size_t j = h & (w->nslots - 1);
  for (BcEnt *e; (e = w->slots[j]); j = (j + 1) & (w->nslots - 1)) {
    if (e->hash != h || e->is_type != is_type) continue;
    if (is_type ? (e->t == t && e->dom == dom) : key_equal(&e->k, k)) return j;
  }
  return j;
}

static BcEnt *insert_ent(BcW *w, size_t slot, BcEnt *e) {
  if ((w->nents + 1) * 2 > w->nslots) {
    slots_grow(w);
    slot = find_slot(w, e->is_type, &e->k, (BcDom)e->dom, e->t, e->hash);
  }
  w->slots[slot] = e;
  w->nents++;
  return e;
}

static const char *const dom_names[] = {"builtin", "vhlo", "chlo"};

/* The number of the dialect entry e is grouped under. */
static int ent_dialect(BcW *w, const BcEnt *e) {
  size_t n;
  const char *name = e->dom == BCD_TEXT ? bcw_text_dialect(w, e, &n) : dom_names[e->dom];
  if (e->dom != BCD_TEXT) n = strlen(name);
  return bcw_dialect(w, name, n);
}

BcEnt *bcw_find_attr(BcW *w, const BcKey *k) {
  if (!w->nslots) return NULL;
  uint32_t h = key_hash(k);
  return w->slots[find_slot(w, false, k, 0, NULL, h)];
}

BcEnt *bcw_find_type(BcW *w, BcDom dom, const Type *t) {
  if (!w->nslots) return NULL;
  dom = bcw_type_dom(dom, t);
  return w->slots[find_slot(w, true, NULL, dom, t, type_hash(dom, t))];
}

/* Encodes e in numbering mode (numbering what it refers to). */
static void number_children(BcW *w, BcEnt *e) {
  bool saved = w->numbering;
  w->numbering = true;
  if (++w->depth > 200) {
    bcw_error(w, "attribute or type nested too deeply to write");
  } else if (e->is_type) {
    bcw_encode_type(w, e);
  } else {
    bcw_encode_attr(w, e);
  }
  w->depth--;
  w->numbering = saved;
}

/* A new attribute or type entry like proto in hash slot `slot`, appended to
 * *list (*n of *cap), its children numbered after it. */
static BcEnt *add_entry(BcW *w, size_t slot, BcEnt proto, BcEnt ***list, int *n, int *cap) {
  BcEnt *e = arena_alloc(&w->c->arena, sizeof *e);
  *e = proto;
  e->dialect = ent_dialect(w, e);
  insert_ent(w, slot, e);
  if (*n == *cap) {
    *cap = *cap ? *cap * 2 : 256;
    *list = xrealloc(*list, (size_t)*cap * sizeof **list);
  }
  (*list)[(*n)++] = e;
  number_children(w, e);
  return e;
}

BcEnt *bcw_number_attr(BcW *w, const BcKey *k) {
  if (!w->nslots) slots_grow(w);
  uint32_t h = key_hash(k);
  size_t slot = find_slot(w, false, k, 0, NULL, h);
  if (w->slots[slot]) {
    w->slots[slot]->refs++;
    return w->slots[slot];
  }
  return add_entry(w, slot, (BcEnt){.dom = k->dom, .k = *k, .refs = 1, .hash = h}, &w->attrs, &w->nattrs,
                   &w->capattrs);
}

BcEnt *bcw_number_type(BcW *w, BcDom dom, const Type *t) {
  if (!w->nslots) slots_grow(w);
  dom = bcw_type_dom(dom, t);
  uint32_t h = type_hash(dom, t);
  size_t slot = find_slot(w, true, NULL, dom, t, h);
  if (w->slots[slot]) {
    w->slots[slot]->refs++;
    return w->slots[slot];
  }
  return add_entry(w, slot, (BcEnt){.is_type = true, .dom = (uint8_t)dom, .t = t, .refs = 1, .hash = h}, &w->types,
                   &w->ntypes, &w->captypes);
}
