/* The .tpub writer: growable sections, interned strings and types, and the
 * final image with its header, section table and XXH3-64 checksum. */
#include "backend/emit.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

void bytes_append(Bytes *b, const void *data, size_t n) {
  if (b->n + n > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->n + n) cap *= 2;
    uint8_t *p = realloc(b->p, cap);
    if (!p) {
      fprintf(stderr, "tpucc: out of memory writing bytecode\n");
      exit(70);
    }
    b->p = p;
    b->cap = cap;
  }
  if (n) memcpy(b->p + b->n, data, n);
  b->n += n;
}

/* Pads b with zeros to a multiple of align. */
static void bytes_align(Bytes *b, size_t align) {
  static const uint8_t zeros[16];
  while (b->n % align) bytes_append(b, zeros, 1);
}

void bytes_free(Bytes *b) {
  free(b->p);
  memset(b, 0, sizeof *b);
}

uint32_t emit_string(Emitter *e, const char *s) {
  size_t len = strlen(s);
  if (len == 0) s = "", len = 0;
  if (len) {
    void **slot = table_get(&e->str_index, s, len);
    if (slot) return (uint32_t)(uintptr_t)*slot - 1;
  }
  if (e->strtab.n == 0) bytes_append(&e->strtab, "", 1); /* offset 0 is "" */
  if (len == 0) return 0;
  uint32_t off = (uint32_t)e->strtab.n;
  bytes_append(&e->strtab, s, len + 1);
  /* The key must outlive the table: point it into the arena. */
  char *key = arena_strndup(&e->c->arena, s, len);
  *table_put(&e->str_index, key, len) = (void *)(uintptr_t)(off + 1);
  return off;
}

/* Entries in the INTS pool so far: the index of the next one. */
static uint32_t ints_count(const Emitter *e) { return (uint32_t)(e->ints.n / sizeof(int64_t)); }

uint32_t emit_ints(Emitter *e, const int64_t *v, size_t n) {
  uint32_t at = ints_count(e);
  bytes_append(&e->ints, v, n * sizeof(int64_t));
  return at;
}

bool tpub_elem_of(ElemKind k, TpubElem *out) {
  static const struct {
    ElemKind ir;
    TpubElem vm;
  } extra[] = {{ELEM_SI2, TPUB_I2},   {ELEM_SI4, TPUB_I4},   {ELEM_SI8, TPUB_I8},
               {ELEM_SI16, TPUB_I16}, {ELEM_SI32, TPUB_I32}, {ELEM_SI64, TPUB_I64},
               {ELEM_INDEX, TPUB_I64}};
  static const char *const names[] = {
#define X(id, name, bits, bytes, cls) name,
      TPUB_ELEMS(X)
#undef X
  };
  for (size_t i = 0; i < sizeof extra / sizeof extra[0]; i++)
    if (extra[i].ir == k) return *out = extra[i].vm, true;
  const char *n = elem_name(k);
  for (int i = 0; i < TPUB_ELEM_COUNT; i++)
    if (strcmp(names[i], n) == 0) return *out = (TpubElem)i, true;
  return false;
}

/* How deep tuples nest in t (0 for a tensor). */
static int tuple_depth(const Type *t) {
  int d = 0;
  for (int i = 0; t->kind == TY_TUPLE && i < t->ninputs; i++) {
    int m = tuple_depth(t->inputs[i]);
    if (m > d) d = m;
  }
  return t->kind == TY_TUPLE ? d + 1 : 0;
}

uint32_t emit_type(Emitter *e, const Type *t, const Op *where) {
  void **slot = table_get(&e->type_index, t, 0);
  if (slot) return (uint32_t)(uintptr_t)*slot - 1;
  TpubType rec = {0};
  if (t->kind == TY_TOKEN) {
    rec.kind = TPUB_TY_TOKEN;
  } else if (t->kind == TY_TUPLE) {
    int64_t members[256];
    if (t->ninputs > 256 || tuple_depth(t) > TPUB_MAX_TUPLE_NESTING) goto unsupported;
    for (int i = 0; i < t->ninputs; i++) {
      uint32_t m = emit_type(e, t->inputs[i], where);
      if (m == UINT32_MAX) return UINT32_MAX;
      members[i] = m;
    }
    rec.kind = TPUB_TY_TUPLE;
    rec.rank = (uint16_t)t->ninputs;
    rec.dims = emit_ints(e, members, (size_t)t->ninputs);
  } else if (t->kind == TY_TENSOR || t->kind == TY_ELEM) {
    TpubElem el;
    if (t->kind == TY_TENSOR && (t->elem_opaque || t->rank < 0)) goto unsupported;
    if (!tpub_elem_of(t->elem, &el)) goto unsupported;
    int rank = t->kind == TY_TENSOR ? t->rank : 0;
    if (rank > TPUB_MAX_RANK) goto unsupported;
    for (int i = 0; i < rank; i++)
      if (t->dims[i] == DIM_DYNAMIC) goto unsupported;
    rec.kind = TPUB_TY_TENSOR;
    rec.elem = (uint8_t)el;
    rec.rank = (uint16_t)rank;
    rec.dims = emit_ints(e, rank ? t->dims : NULL, (size_t)rank);
  } else {
    goto unsupported;
  }
  uint32_t index = (uint32_t)(e->types.n / sizeof rec);
  bytes_append(&e->types, &rec, sizeof rec);
  *table_put(&e->type_index, t, 0) = (void *)(uintptr_t)(index + 1);
  return index;

unsupported:
  if (where)
    op_error(e->c, where, "type %s is not supported by the tpurun back end (dynamic, unranked, quantized or opaque)",
             type_to_string(e->c, t));
  e->failed = true;
  return UINT32_MAX;
}

uint32_t emit_loc(Emitter *e, Loc loc, const char *op_name) {
  TpubLoc rec = {
      .file = emit_string(e, loc.file && loc.file->name ? loc.file->name : ""),
      .line = loc.line,
      .col = loc.col,
      .op = emit_string(e, op_name ? op_name : ""),
  };
  uint32_t index = (uint32_t)(e->locs.n / sizeof rec);
  bytes_append(&e->locs, &rec, sizeof rec);
  if (e->opts->op_cost) bytes_append(&e->locops, &e->op, sizeof e->op);
  return index;
}

void emit_cost_begin(Emitter *e, const Op *op) {
  e->op = ++e->nops;
  if (!e->opts->op_cost) return;
  TpubCost c = {0}, rec = {0};
  if (e->opts->op_cost(e->opts->cost_ud, op, &c)) {
    /* The loader refuses what is not finite and >= 0: a cost model bug. */
    double nums[] = {c.mxu_util, c.flops, c.hbm_bytes, c.modeled_s};
    for (int i = 0; i < 4; i++)
      if (!(nums[i] >= 0 && nums[i] <= DBL_MAX)) die("cost of '%s': number %d is %g", op->name, i, nums[i]);
    if (c.bound >= TPUB_BOUND_COUNT) die("cost of '%s': bound %u", op->name, c.bound);
    rec = (TpubCost){.bound = c.bound, .mxu_util = c.mxu_util, .flops = c.flops, .hbm_bytes = c.hbm_bytes,
                     .modeled_s = c.modeled_s};
  }
  /* The op's own name and location label its profile row: a fusion's
   * instructions carry the locations of the ops inside it. */
  const Attr *kind = op->kind == OP_TPU_FUSION ? op_attr(op, "kind") : NULL;
  const char *label = kind && kind->kind == ATTR_STRING ? arena_printf(&e->c->arena, "%s(%s)", op->name, kind->u.str.s)
                                                        : op->name;
  rec.op_loc = emit_loc(e, op->loc, label);
  bytes_append(&e->costs, &rec, sizeof rec);
}

void emit_cost_end(Emitter *e) { e->op = 0; }

uint32_t emit_func_reserve(Emitter *e) {
  TpubFunc rec = {0};
  bytes_append(&e->funcs, &rec, sizeof rec);
  return e->nfuncs++;
}

void emit_func_set(Emitter *e, uint32_t index, const TpubFunc *f) {
  memcpy(e->funcs.p + (size_t)index * sizeof *f, f, sizeof *f);
}

uint64_t emit_const_bytes(Emitter *e, const void *data, size_t n) {
  bytes_align(&e->consts, 16);
  uint64_t off = e->consts.n;
  bytes_append(&e->consts, data, n);
  return off;
}

void emit_finish(Emitter *e, uint8_t **out, size_t *outlen) {
  if (e->strtab.n == 0) bytes_append(&e->strtab, "", 1);
  Bytes module = {0};
  bytes_append(&module, &e->module, sizeof e->module);
  typedef struct {
    uint32_t kind;
    Bytes *b;
    size_t rec;
    bool present;
  } Sec;
  Sec all[] = {
      {TPUB_SEC_STRTAB, &e->strtab, 1, true},
      {TPUB_SEC_INTS, &e->ints, sizeof(int64_t), true},
      {TPUB_SEC_TYPES, &e->types, sizeof(TpubType), true},
      {TPUB_SEC_CONSTS, &e->consts, 1, true},
      {TPUB_SEC_FUNCS, &e->funcs, sizeof(TpubFunc), true},
      {TPUB_SEC_CODE, &e->code, sizeof(uint32_t), true},
      {TPUB_SEC_LOCS, &e->locs, sizeof(TpubLoc), true},
      {TPUB_SEC_MODULE, &module, sizeof(TpubModule), true},
      /* COSTS and LOCOPS only when asked for; SHARDS when it has records. */
      {TPUB_SEC_COSTS, &e->costs, sizeof(TpubCost), e->opts->op_cost != NULL},
      {TPUB_SEC_LOCOPS, &e->locops, sizeof(uint32_t), e->opts->op_cost != NULL},
      {TPUB_SEC_SHARDS, &e->shards, sizeof(TpubShard), e->shards.n > 0},
      {TPUB_SEC_DYNDIMS, &e->dyndims, sizeof(TpubDyn), e->dyndims.n > 0},
  };
  Sec secs[sizeof all / sizeof all[0]];
  int nsecs = 0;
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    if (all[i].present) secs[nsecs++] = all[i];
  Bytes img = {0};
  TpubHeader h = {0};
  memcpy(h.magic, TPUB_MAGIC, 8);
  h.format_version = TPUB_FORMAT_VERSION;
  h.header_size = sizeof h;
  strncpy(h.compiler_version, e->opts->compiler_version, sizeof h.compiler_version - 1);
  strncpy(h.target, e->opts->target, sizeof h.target - 1);
  h.section_count = nsecs;
  bytes_append(&img, &h, sizeof h);
  TpubSection table[TPUB_SEC_COUNT];
  uint64_t off = sizeof h + sizeof table[0] * (size_t)nsecs;
  for (int i = 0; i < nsecs; i++) {
    off = (off + 15) & ~(uint64_t)15;
    table[i] = (TpubSection){secs[i].kind, (uint32_t)(secs[i].b->n / secs[i].rec), off};
    off += secs[i].b->n;
  }
  bytes_append(&img, table, sizeof table[0] * (size_t)nsecs);
  for (int i = 0; i < nsecs; i++) {
    bytes_align(&img, 16);
    bytes_append(&img, secs[i].b->p, secs[i].b->n);
  }
  bytes_free(&module);
  TpubHeader *hp = (TpubHeader *)img.p;
  hp->file_size = img.n;
  hp->checksum = XXH3_64bits(img.p, img.n);
  *out = img.p;
  *outlen = img.n;
}

void emit_free(Emitter *e) {
  bytes_free(&e->strtab);
  bytes_free(&e->ints);
  bytes_free(&e->types);
  bytes_free(&e->consts);
  bytes_free(&e->funcs);
  bytes_free(&e->code);
  bytes_free(&e->locs);
  bytes_free(&e->costs);
  bytes_free(&e->locops);
  bytes_free(&e->shards);
  bytes_free(&e->dyndims);
  table_free(&e->str_index, NULL);
  table_free(&e->type_index, NULL);
  table_free(&e->func_index, NULL);
}
