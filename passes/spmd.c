/* What both SPMD passes read and write: whether a module is to be
 * partitioned, the shardings its annotations state, and the mhlo.sharding
 * attributes propagation leaves for the partitioner (passes/spmd.h). */
#include <stdlib.h>
#include <string.h>

#include "passes/spmd.h"

static size_t ptr_slot(const PtrTable *t, const void *key) {
  uint64_t h = ((uintptr_t)key >> 4) * 0x9E3779B97F4A7C15ull;
  h ^= h >> 29; /* the product's high bits into the low ones the mask keeps */
  for (size_t i = h & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
    const void *k = *(const void *const *)(t->slots + i * t->size);
    if (k == key || !k) return i;
  }
}

void *ptr_table_get(const PtrTable *t, const void *key) {
  if (!t->cap) return NULL;
  unsigned char *r = t->slots + ptr_slot(t, key) * t->size;
  return *(const void **)r ? r : NULL;
}

void *ptr_table_put(PtrTable *t, const void *key, bool *added) {
  if ((t->count + 1) * 2 > t->cap) {
    PtrTable old = *t;
    t->cap = old.cap ? old.cap * 2 : 256;
    t->slots = xcalloc(t->cap, t->size);
    for (size_t i = 0; i < old.cap; i++) {
      const unsigned char *r = old.slots + i * t->size;
      if (*(const void *const *)r) memcpy(t->slots + ptr_slot(t, *(const void *const *)r) * t->size, r, t->size);
    }
    free(old.slots);
  }
  unsigned char *r = t->slots + ptr_slot(t, key) * t->size;
  *added = !*(const void **)r;
  if (*added) {
    t->count++;
    *(const void **)r = key;
  }
  return r;
}

void ptr_table_free(PtrTable *t) {
  free(t->slots);
  *t = (PtrTable){.size = t->size};
}

/* A parsed attribute, kept so each is read once however often it is asked. */
typedef struct ParsedAttr {
  const Attr *a;
  const Sharding *s; /* NULL when malformed */
} ParsedAttr;

static bool is_sharding_attr(const char *name) {
  return strcmp(name, "mhlo.sharding") == 0 || strcmp(name, "sdy.sharding") == 0;
}

static bool dict_has_sharding(const Attr *d) {
  for (int i = 0; d && d->kind == ATTR_DICT && i < d->u.dict.n; i++)
    if (is_sharding_attr(d->u.dict.items[i].name)) return true;
  return false;
}

/* Any sharding annotation in block b (ops, nested regions included). */
static bool block_has_sharding(const Block *b) {
  for (const Op *op = b->first; op; op = op->next) {
    if (op->kind == OP_SDY_MESH || op->kind == OP_SDY_SHARDING_CONSTRAINT || custom_call_annotation(op)) return true;
    for (int i = 0; i < op->nattrs; i++)
      if (is_sharding_attr(op->attrs[i].name)) return true;
    if (op->kind == OP_FUNC) {
      const Attr *lists[2] = {op_attr(op, "arg_attrs"), op_attr(op, "res_attrs")};
      for (int s = 0; s < 2; s++)
        for (int i = 0; lists[s] && lists[s]->kind == ATTR_ARRAY && i < lists[s]->u.array.n; i++)
          if (dict_has_sharding(lists[s]->u.array.items[i])) return true;
    }
    for (int r = 0; r < op->nregions; r++)
      for (int j = 0; j < op->regions[r].nblocks; j++)
        if (block_has_sharding(op->regions[r].blocks[j])) return true;
  }
  return false;
}

bool spmd_wanted(const Module *m) {
  int64_t n = 1;
  attr_as_int(op_attr(m->op, "mhlo.num_partitions"), &n);
  Block *body = op_body(m->op);
  return n > 1 && body && !op_attr(m->op, "tpu.spmd_partitioned") && block_has_sharding(body);
}

/* The largest channel handle of the ops in b, nested ones included. */
static int64_t max_channel(const Block *b) {
  int64_t m = 0;
  for (const Op *op = b->first; op; op = op->next) {
    const Attr *ch = op_attr(op, "channel_handle");
    const Attr *h = ch && ch->kind == ATTR_DIALECT ? dialect_param(ch, "handle") : NULL;
    int64_t v;
    if (h && attr_as_int(h, &v) && v > m) m = v;
    for (int r = 0; r < op->nregions; r++)
      for (int j = 0; j < op->regions[r].nblocks; j++) {
        int64_t inner = max_channel(op->regions[r].blocks[j]);
        if (inner > m) m = inner;
      }
  }
  return m;
}

Spmd spmd_begin(PassContext *pc) {
  Spmd s = {.pc = pc, .c = pc->c, .m = pc->m, .n = 1, .replicas = 1};
  attr_as_int(op_attr(pc->m->op, "mhlo.num_partitions"), &s.n);
  attr_as_int(op_attr(pc->m->op, "mhlo.num_replicas"), &s.replicas);
  if (s.replicas < 1) s.replicas = 1;
  s.channels = max_channel(op_body(pc->m->op));
  s.layouts = layout_table_new();
  s.parsed = xcalloc(1, sizeof *s.parsed);
  s.parsed->size = sizeof(ParsedAttr);
  return s;
}

bool spmd_is_constraint(const Op *op) {
  const Annotation *an = custom_call_annotation(op);
  return op->kind == OP_SDY_SHARDING_CONSTRAINT || op->kind == OP_SDY_RESHARD || (an && strcmp(an->target, "Sharding") == 0);
}

int spmd_cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

bool spmd_is_private(const Op *func) {
  const Attr *v = op_attr(func, "sym_visibility");
  return v && v->kind == ATTR_STRING && v->u.str.len == 7 && memcmp(v->u.str.s, "private", 7) == 0;
}

/* The sharding of attribute a (GSPMD string or Shardy text); element
 * `index` of a tuple; NULL when absent or malformed (sharding_check has
 * reported those). */
static const Sharding *read_sharding(const Spmd *s, const Attr *a, int index) {
  if (!a) return NULL;
  bool added;
  ParsedAttr *pa = ptr_table_put(s->parsed, a, &added);
  if (added) {
    Sharding *out = arena_alloc(&s->c->arena, sizeof *out);
    char why[SHARDING_WHY_LEN];
    bool ok = a->kind == ATTR_STRING ? sharding_parse_gspmd(&s->c->arena, a->u.str.s, a->u.str.len, out, why)
                                     : sharding_parse_sdy(&s->c->arena, s->m, attr_to_string(s->c, a), out, why);
    pa->s = ok ? out : NULL;
  }
  const Sharding *out = pa->s;
  if (!out) return NULL;
  if (out->kind != SHARDING_TUPLE) return out;
  return index < out->nelems ? &out->elems[index] : NULL;
}

const Sharding *spmd_attr_sharding(const Spmd *s, const Attr *a, int index) { return read_sharding(s, a, index); }

const Sharding *spmd_op_sharding(const Spmd *s, const Op *op, int index) {
  if (op->kind == OP_SDY_MANUAL_COMPUTATION) return read_sharding(s, op_attr(op, "out_shardings"), index);
  const Attr *a = op_attr(op, "mhlo.sharding");
  if (!a) a = op_attr(op, "sdy.sharding");
  if (!a && (op->kind == OP_SDY_SHARDING_CONSTRAINT || op->kind == OP_SDY_RESHARD))
    a = op_attr(op, "sharding");
  return read_sharding(s, a, index);
}

static const Attr *func_dict(const Op *func, int side, int index) {
  const Attr *list = op_attr(func, side ? "res_attrs" : "arg_attrs");
  if (!list || list->kind != ATTR_ARRAY || index >= list->u.array.n) return NULL;
  const Attr *d = list->u.array.items[index];
  return d && d->kind == ATTR_DICT ? d : NULL;
}

const Sharding *spmd_func_sharding(const Spmd *s, const Op *func, int side, int index) {
  const Attr *d = func_dict(func, side, index);
  for (int i = 0; d && i < d->u.dict.n; i++)
    if (is_sharding_attr(d->u.dict.items[i].name)) return read_sharding(s, d->u.dict.items[i].value, 0);
  return NULL;
}

void spmd_set_func_attr(Spmd *s, Op *func, int side, int index, const char *key, Attr *value) {
  const char *name = side ? "res_attrs" : "arg_attrs";
  const Type *ft = op_attr(func, "function_type")->type;
  int n = side ? ft->nresults : ft->ninputs;
  Attr *list = (Attr *)op_attr(func, name);
  /* One array per function, its dicts replaced in place: setting every
   * argument's attributes stays linear in the argument count. */
  if (!list || list->kind != ATTR_ARRAY || list->u.array.n != n) {
    Attr **items = arena_alloc(&s->c->arena, sizeof(Attr *) * (size_t)(n + 1));
    for (int i = 0; i < n; i++)
      items[i] = list && list->kind == ATTR_ARRAY && i < list->u.array.n ? list->u.array.items[i] : attr_dict(s->c, 0, NULL);
    list = attr_array(s->c, n, items);
    op_set_attr(s->c, func, name, list);
  }
  const Attr *d = list->u.array.items[index];
  NamedAttr *kv = arena_alloc(&s->c->arena, sizeof(NamedAttr) * (size_t)(d->u.dict.n + 1));
  int m = 0;
  for (int i = 0; i < d->u.dict.n; i++)
    if (strcmp(d->u.dict.items[i].name, key) != 0) kv[m++] = d->u.dict.items[i];
  if (value) kv[m++] = (NamedAttr){key, value};
  list->u.array.items[index] = attr_dict(s->c, m, kv);
}

void spmd_set_func_sharding(Spmd *s, Op *func, int side, int index, const Sharding *l) {
  char *text = sharding_to_string(&s->c->arena, l);
  spmd_set_func_attr(s, func, side, index, "mhlo.sharding", attr_string(s->c, text, strlen(text)));
}

void spmd_set_op_sharding(Spmd *s, Op *op, const Sharding *const *results) {
  Sharding t = {.kind = SHARDING_TUPLE, .nelems = op->nresults};
  Sharding *elems = arena_alloc(&s->c->arena, sizeof(Sharding) * (size_t)op->nresults);
  for (int r = 0; r < op->nresults; r++) elems[r] = results[r] ? *results[r] : (Sharding){.kind = SHARDING_REPLICATED};
  t.elems = elems;
  char *text = sharding_to_string(&s->c->arena, op->nresults == 1 ? &elems[0] : &t);
  op_set_attr(s->c, op, "mhlo.sharding", attr_string(s->c, text, strlen(text)));
}
