/* The .tpub loader: checks the whole file before anything runs (header,
 * checksum, section bounds, types, functions, every instruction's
 * registers, fields, regions and per-opcode shape rules, register
 * liveness, the call graph) and decodes it into a VmProgram. */
#include <float.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "vm/internal.h"
#include "vm/opinfo.h"

/* Zeroed, 16-byte aligned; NULL when out of memory. */
static void *pool_alloc(Pool *p, size_t n) {
  n = (n + 15) & ~(size_t)15;
  if (!p->head || p->head->cap - p->head->used < n) {
    size_t cap = n > 65536 ? n : 65536;
    PoolBlock *b = malloc(sizeof *b + cap);
    if (!b) return NULL;
    b->next = p->head;
    b->used = 0;
    b->cap = cap;
    p->head = b;
    p->total += cap;
  }
  void *r = p->head->data + p->head->used;
  p->head->used += n;
  memset(r, 0, n);
  return r;
}

static void pool_free(Pool *p) {
  for (PoolBlock *b = p->head, *next; b; b = next) {
    next = b->next;
    free(b);
  }
  p->head = NULL;
}

/* Loader state. */
typedef struct Loader {
  VmProgramImpl *prog;
  const uint8_t *bytes;
  size_t n;
  const TpubSection *sec[TPUB_SEC_COUNT];
  const int64_t *ints;
  uint64_t nints;
  char *err;
  size_t errlen;
} Loader;

static bool fail(Loader *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool fail(Loader *l, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(l->err, l->errlen, fmt, ap);
  va_end(ap);
  return false;
}

bool vm_check_fail(VmCheck *c, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->err, c->errlen, fmt, ap);
  va_end(ap);
  return false;
}

const VmType *vm_check_in(const VmCheck *c, uint32_t i) {
  return c->func->reg_types[c->ins->in[i]];
}
const VmType *vm_check_out(const VmCheck *c, uint32_t i) {
  return c->func->reg_types[c->ins->out[i]];
}

bool vm_type_is_tensor(const VmType *t) { return t->kind == TPUB_TY_TENSOR; }
bool vm_type_same_shape(const VmType *a, const VmType *b) {
  if (a->kind != TPUB_TY_TENSOR || b->kind != TPUB_TY_TENSOR || a->rank != b->rank) return false;
  for (int i = 0; i < a->rank; i++)
    if (a->dims[i] != b->dims[i]) return false;
  return true;
}
bool vm_type_equal(const VmType *a, const VmType *b) {
  if (a == b) return true;
  if (a->kind != b->kind) return false;
  if (a->kind == TPUB_TY_TOKEN) return true;
  if (a->kind == TPUB_TY_TUPLE) {
    if (a->nmembers != b->nmembers) return false;
    for (int i = 0; i < a->nmembers; i++)
      if (!vm_type_equal(a->members[i], b->members[i])) return false;
    return true;
  }
  return a->elem == b->elem && vm_type_same_shape(a, b);
}
bool vm_type_is_scalar(const VmType *t) { return t->kind == TPUB_TY_TENSOR && t->rank == 0; }

bool vm_check_region(VmCheck *c, int f, int nargs, const VmType *const *arg_types, int nres,
                     const VmType *const *res_types) {
  const VmField *fld = &c->ins->fields[f];
  for (int64_t k = 0; k < fld->n; k++) {
    const VmRegion *r = &fld->regions[k];
    const VmFunc *fn = &c->prog->funcs[r->func];
    if (fn->n_params != (uint32_t)nargs + r->ncaps)
      return vm_check_fail(c, "region %s takes %u parameters, expected %d arguments and %u captures",
                           fn->name, fn->n_params, nargs, r->ncaps);
    if (fn->n_results != (uint32_t)nres)
      return vm_check_fail(c, "region %s returns %u values, expected %d", fn->name, fn->n_results, nres);
    for (uint32_t i = 0; i < r->ncaps; i++)
      if (!vm_type_equal(c->func->reg_types[r->caps[i]], fn->reg_types[nargs + i]))
        return vm_check_fail(c, "region %s: capture %u has the wrong type", fn->name, i);
    for (int i = 0; arg_types && i < nargs; i++)
      if (arg_types[i] && !vm_type_equal(arg_types[i], fn->reg_types[i]))
        return vm_check_fail(c, "region %s: parameter %d has the wrong type", fn->name, i);
    for (int i = 0; res_types && i < nres; i++)
      if (res_types[i] && !vm_type_equal(res_types[i], fn->result_types[i]))
        return vm_check_fail(c, "region %s: result %d has the wrong type", fn->name, i);
  }
  return true;
}

static const char *str_at(Loader *l, uint64_t off) {
  if (off >= l->prog->strtab_size) return NULL;
  return l->prog->strtab + off;
}

/* ------------------------------------------------------------------ */
/* Header and sections. */

static bool ints_range(Loader *l, uint64_t at, uint64_t n) { return at <= l->nints && n <= l->nints - at; }

/* MODULE's flags and device mesh; SHARDS only in a partitioned module. */
static bool load_module_mesh(Loader *l, const TpubModule *mod) {
  VmProgram *p = &l->prog->pub;
  if (mod->flags & ~TPUB_MODULE_SPMD) return fail(l, "MODULE: unknown flags %#x", (unsigned)mod->flags);
  p->spmd = mod->flags & TPUB_MODULE_SPMD;
  if (l->sec[TPUB_SEC_SHARDS] && !p->spmd) return fail(l, "section SHARDS in a module that is not partitioned");
  if (mod->mesh_rank == 0) {
    if (mod->mesh) return fail(l, "MODULE: a mesh index without a mesh rank");
    return true;
  }
  if (mod->mesh_rank != 2 && mod->mesh_rank != 3) return fail(l, "MODULE: mesh of rank %u (2 or 3)", mod->mesh_rank);
  if (!ints_range(l, mod->mesh, mod->mesh_rank)) return fail(l, "MODULE: mesh out of bounds");
  int64_t held = 1;
  for (int d = 0; d < mod->mesh_rank; d++) {
    int64_t v = l->ints[mod->mesh + d];
    if (v < 1 || v > TPUB_MAX_CHIPS) return fail(l, "MODULE: mesh dimension %d is %lld (1..%d)", d, (long long)v, TPUB_MAX_CHIPS);
    held *= v;
    p->mesh[d] = (int)v;
  }
  if (held != p->num_partitions)
    return fail(l, "MODULE: the mesh holds %lld devices, the module has %d partitions", (long long)held, p->num_partitions);
  p->mesh_rank = mod->mesh_rank;
  return true;
}

static bool load_sections(Loader *l) {
  static const size_t rec_size[TPUB_SEC_COUNT] = {
      [TPUB_SEC_STRTAB] = 1,           [TPUB_SEC_INTS] = 8, [TPUB_SEC_TYPES] = sizeof(TpubType),
      [TPUB_SEC_CONSTS] = 1,           [TPUB_SEC_FUNCS] = sizeof(TpubFunc),
      [TPUB_SEC_CODE] = sizeof(uint32_t), [TPUB_SEC_LOCS] = sizeof(TpubLoc),
      [TPUB_SEC_MODULE] = sizeof(TpubModule), [TPUB_SEC_COSTS] = sizeof(TpubCost),
      [TPUB_SEC_LOCOPS] = sizeof(uint32_t), [TPUB_SEC_SHARDS] = sizeof(TpubShard),
      [TPUB_SEC_DYNDIMS] = sizeof(TpubDyn)};
  static const char *const sec_name[TPUB_SEC_COUNT] = {
      [TPUB_SEC_STRTAB] = "STRTAB", [TPUB_SEC_INTS] = "INTS",   [TPUB_SEC_TYPES] = "TYPES",
      [TPUB_SEC_CONSTS] = "CONSTS", [TPUB_SEC_FUNCS] = "FUNCS", [TPUB_SEC_CODE] = "CODE",
      [TPUB_SEC_LOCS] = "LOCS",     [TPUB_SEC_MODULE] = "MODULE", [TPUB_SEC_COSTS] = "COSTS",
      [TPUB_SEC_LOCOPS] = "LOCOPS", [TPUB_SEC_SHARDS] = "SHARDS",
      [TPUB_SEC_DYNDIMS] = "DYNDIMS"};
  if (l->n < sizeof(TpubHeader))
    return fail(l, "truncated: %zu bytes is shorter than the %zu-byte header", l->n, sizeof(TpubHeader));
  TpubHeader h;
  memcpy(&h, l->bytes, sizeof h);
  if (memcmp(h.magic, TPUB_MAGIC, 8) != 0) return fail(l, "not a .tpub file (bad magic)");
  if (h.format_version != TPUB_FORMAT_VERSION)
    return fail(l, "format version %u, this tpurun reads version %d", h.format_version, TPUB_FORMAT_VERSION);
  if (h.header_size != sizeof h) return fail(l, "header size %u, expected %zu", h.header_size, sizeof h);
  if (h.file_size != l->n)
    return fail(l, "truncated or padded: header says %llu bytes, file has %zu",
                (unsigned long long)h.file_size, l->n);
  uint64_t sum = h.checksum;
  ((TpubHeader *)l->bytes)->checksum = 0; /* our private copy */
  uint64_t actual = XXH3_64bits(l->bytes, l->n);
  ((TpubHeader *)l->bytes)->checksum = sum;
  if (actual != sum)
    return fail(l, "checksum mismatch (stored %016llx, computed %016llx): the file is corrupt",
                (unsigned long long)sum, (unsigned long long)actual);
  VmProgram *p = &l->prog->pub;
  memcpy(p->compiler_version, h.compiler_version, 16);
  memcpy(p->target, h.target, 8);
  p->format_version = h.format_version;
  if (h.section_count > 64) return fail(l, "%u sections is more than the format allows", h.section_count);
  if (sizeof h + (uint64_t)h.section_count * sizeof(TpubSection) > l->n)
    return fail(l, "truncated section table");
  const TpubSection *tab = (const TpubSection *)(l->bytes + sizeof h);
  for (uint32_t i = 0; i < h.section_count; i++) {
    const TpubSection *s = &tab[i];
    if (s->kind == 0 || s->kind >= TPUB_SEC_COUNT) return fail(l, "section %u has unknown kind %u", i, s->kind);
    if (l->sec[s->kind]) return fail(l, "section %s appears twice", sec_name[s->kind]);
    if (s->offset % 16) return fail(l, "section %s is not 16-byte aligned", sec_name[s->kind]);
    uint64_t bytes = (uint64_t)s->count * rec_size[s->kind];
    if (s->offset > l->n || bytes > l->n - s->offset)
      return fail(l, "section %s (offset %llu, %llu bytes) extends past the end of the file",
                  sec_name[s->kind], (unsigned long long)s->offset, (unsigned long long)bytes);
    l->sec[s->kind] = s;
  }
  for (int k = 1; k < TPUB_SEC_COUNT; k++)
    if (!l->sec[k] && k != TPUB_SEC_COSTS && k != TPUB_SEC_LOCOPS && k != TPUB_SEC_SHARDS && k != TPUB_SEC_DYNDIMS) return fail(l, "section %s is missing", sec_name[k]);
  if (!l->sec[TPUB_SEC_COSTS] != !l->sec[TPUB_SEC_LOCOPS])
    return fail(l, l->sec[TPUB_SEC_COSTS] ? "section COSTS without LOCOPS" : "section LOCOPS without COSTS");
  l->prog->strtab = (const char *)l->bytes + l->sec[TPUB_SEC_STRTAB]->offset;
  l->prog->strtab_size = l->sec[TPUB_SEC_STRTAB]->count;
  if (l->prog->strtab_size == 0 || l->prog->strtab[l->prog->strtab_size - 1] != '\0')
    return fail(l, "string table is empty or not NUL-terminated");
  l->ints = (const int64_t *)(l->bytes + l->sec[TPUB_SEC_INTS]->offset);
  l->nints = l->sec[TPUB_SEC_INTS]->count;
  l->prog->consts = l->bytes + l->sec[TPUB_SEC_CONSTS]->offset;
  l->prog->consts_size = l->sec[TPUB_SEC_CONSTS]->count;
  /* MODULE: the slice the program was written for. */
  if (l->sec[TPUB_SEC_MODULE]->count != 1)
    return fail(l, "section MODULE has %u records, expected 1", l->sec[TPUB_SEC_MODULE]->count);
  TpubModule mod;
  memcpy(&mod, l->bytes + l->sec[TPUB_SEC_MODULE]->offset, sizeof mod);
  if (mod.num_replicas < 1 || mod.num_replicas > TPUB_MAX_CHIPS || mod.num_partitions < 1 ||
      mod.num_partitions > TPUB_MAX_CHIPS || (uint64_t)mod.num_replicas * mod.num_partitions > TPUB_MAX_CHIPS)
    return fail(l, "MODULE: %u replicas x %u partitions (each 1..%d, at most %d chips)", mod.num_replicas,
                mod.num_partitions, TPUB_MAX_CHIPS, TPUB_MAX_CHIPS);
  p->num_replicas = (int)mod.num_replicas;
  p->num_partitions = (int)mod.num_partitions;
  return load_module_mesh(l, &mod);
}

static bool load_types(Loader *l) {
  const TpubType *rec = (const TpubType *)(l->bytes + l->sec[TPUB_SEC_TYPES]->offset);
  uint32_t n = l->sec[TPUB_SEC_TYPES]->count;
  VmType *types = pool_alloc(&l->prog->pool, sizeof(VmType) * (n + 1));
  uint8_t *nesting = pool_alloc(&l->prog->pool, n + 1u); /* tuple depth of each type */
  if (!types || !nesting) return fail(l, "out of memory");
  for (uint32_t i = 0; i < n; i++) {
    VmType *t = &types[i];
    t->kind = rec[i].kind;
    if (t->kind == TPUB_TY_TOKEN) continue;
    if (t->kind == TPUB_TY_TUPLE) {
      if (!ints_range(l, rec[i].dims, rec[i].rank)) return fail(l, "type %u: members out of bounds", i);
      const VmType **m = pool_alloc(&l->prog->pool, sizeof(VmType *) * (rec[i].rank + 1u));
      if (!m) return fail(l, "out of memory");
      for (uint32_t k = 0; k < rec[i].rank; k++) {
        int64_t ti = l->ints[rec[i].dims + k];
        if (ti < 0 || (uint64_t)ti >= i) return fail(l, "type %u: member %u is not an earlier type", i, k);
        m[k] = &types[ti];
        if (nesting[ti] + 1 > nesting[i]) nesting[i] = nesting[ti] + 1;
      }
      if (nesting[i] > TPUB_MAX_TUPLE_NESTING)
        return fail(l, "type %u: tuples nest deeper than %d", i, TPUB_MAX_TUPLE_NESTING);
      t->nmembers = rec[i].rank;
      t->members = m;
      continue;
    }
    if (t->kind != TPUB_TY_TENSOR) return fail(l, "type %u has unknown kind %u", i, t->kind);
    if (rec[i].elem >= TPUB_ELEM_COUNT) return fail(l, "type %u has unknown element type %u", i, rec[i].elem);
    if (rec[i].rank > TPUB_MAX_RANK) return fail(l, "type %u has rank %u (at most %d)", i, rec[i].rank, TPUB_MAX_RANK);
    if (!ints_range(l, rec[i].dims, rec[i].rank)) return fail(l, "type %u: dims out of bounds", i);
    t->elem = rec[i].elem;
    t->rank = rec[i].rank;
    t->dims = l->ints + rec[i].dims;
    int64_t count = 1;
    for (int d = 0; d < t->rank; d++) {
      int64_t dim = t->dims[d];
      if (dim < 0) return fail(l, "type %u: negative dimension %lld", i, (long long)dim);
      if (dim && count > ((int64_t)1 << 50) / dim)
        return fail(l, "type %u: more than 2^50 elements", i);
      count *= dim;
    }
    t->count = count;
    t->nbytes = count * vm_elem_bytes(t->elem);
  }
  l->prog->pub.types = types;
  l->prog->pub.n_types = n;
  return true;
}

static const VmType *type_at(Loader *l, int64_t i) {
  if (i < 0 || (uint64_t)i >= l->prog->pub.n_types) return NULL;
  return &l->prog->pub.types[i];
}

static bool load_locs(Loader *l) {
  const TpubLoc *rec = (const TpubLoc *)(l->bytes + l->sec[TPUB_SEC_LOCS]->offset);
  uint32_t n = l->sec[TPUB_SEC_LOCS]->count;
  VmLoc *locs = pool_alloc(&l->prog->pool, sizeof(VmLoc) * (n + 1));
  if (!locs) return fail(l, "out of memory");
  for (uint32_t i = 0; i < n; i++) {
    locs[i].file = str_at(l, rec[i].file);
    locs[i].op = str_at(l, rec[i].op);
    if (!locs[i].file || !locs[i].op) return fail(l, "location %u names a string out of bounds", i);
    locs[i].line = rec[i].line;
    locs[i].col = rec[i].col;
  }
  l->prog->pub.locs = locs;
  l->prog->pub.n_locs = n;
  return true;
}

/* The optional COSTS and LOCOPS sections: one cost record per top-level
 * op (known bound, zero pads, finite non-negative numbers, an op location
 * that belongs to the op) and one op id per location, expanded into one
 * VmCost per location. */
static bool load_costs(Loader *l) {
  const TpubSection *sec = l->sec[TPUB_SEC_COSTS], *osec = l->sec[TPUB_SEC_LOCOPS];
  if (!sec) return true;
  uint32_t n = l->prog->pub.n_locs, nops = sec->count;
  if (osec->count != n) return fail(l, "LOCOPS has %u entries for %u locations", osec->count, n);
  /* Each op names a location of its own: more ops than locations is corrupt. */
  if (nops > n) return fail(l, "COSTS has %u records for %u locations", nops, n);
  const TpubCost *rec = (const TpubCost *)(l->bytes + sec->offset);
  const uint32_t *locop = (const uint32_t *)(l->bytes + osec->offset);
  for (uint32_t k = 0; k < n; k++)
    if (locop[k] > nops)
      return fail(l, "LOCOPS: location %u: op id %u out of range (%u COSTS records)", k, locop[k], nops);
  for (uint32_t i = 0; i < nops; i++) {
    const TpubCost *c = &rec[i];
    if (c->bound >= TPUB_BOUND_COUNT) return fail(l, "COSTS: op %u: unknown bound unit %u", i + 1, c->bound);
    for (int k = 0; k < 7; k++)
      if (c->pad[k]) return fail(l, "COSTS: op %u: nonzero padding", i + 1);
    if (c->op_loc >= n) return fail(l, "COSTS: op %u: op location %u out of range (%u locations)", i + 1, c->op_loc, n);
    if (locop[c->op_loc] != i + 1)
      return fail(l, "COSTS: op %u: op location %u belongs to op %u", i + 1, c->op_loc, locop[c->op_loc]);
    const double nums[] = {c->mxu_util, c->flops, c->hbm_bytes, c->modeled_s};
    static const char *const names[] = {"MXU utilization", "FLOPs", "HBM bytes", "modeled time"};
    for (int k = 0; k < 4; k++)
      if (!(nums[k] >= 0 && nums[k] <= DBL_MAX)) return fail(l, "COSTS: op %u: %s is %g", i + 1, names[k], nums[k]);
  }
  VmCost *costs = pool_alloc(&l->prog->pool, sizeof(VmCost) * (n + 1));
  if (!costs) return fail(l, "out of memory");
  for (uint32_t k = 0; k < n; k++) {
    if (!locop[k]) continue; /* op 0, location 0, zeros (pool memory is zeroed) */
    const TpubCost *c = &rec[locop[k] - 1];
    costs[k] = (VmCost){locop[k], c->op_loc, c->bound, c->mxu_util, c->flops, c->hbm_bytes, c->modeled_s};
  }
  l->prog->pub.costs = costs;
  return true;
}

/* ------------------------------------------------------------------ */
/* Functions and code. */

static bool decode_region(Loader *l, const VmFunc *fn, const int64_t **w, const int64_t *end, VmRegion *r,
                          uint32_t nfuncs) {
  if (end - *w < 2) return false;
  int64_t f = (*w)[0], ncaps = (*w)[1];
  if (f < 0 || (uint64_t)f >= nfuncs || ncaps < 0 || ncaps > end - *w - 2) return false;
  uint32_t *caps = pool_alloc(&l->prog->pool, sizeof(uint32_t) * ((size_t)ncaps + 1));
  if (!caps) return false;
  for (int64_t i = 0; i < ncaps; i++) {
    int64_t reg = (*w)[2 + i];
    if (reg < 0 || (uint64_t)reg >= fn->n_regs) return false;
    caps[i] = (uint32_t)reg;
  }
  r->func = (uint32_t)f;
  r->ncaps = (uint32_t)ncaps;
  r->caps = caps;
  *w += 2 + ncaps;
  return true;
}

/* Decodes the fields of ins from INTS[attrs .. attrs + n). */
static bool decode_fields(Loader *l, const VmFunc *fn, VmInstr *ins, const VmOpInfo *info, uint32_t attrs,
                          uint32_t n, uint32_t nfuncs) {
  if (!ints_range(l, attrs, n)) return fail(l, "attributes out of bounds");
  const int64_t *w = l->ints + attrs, *end = w + n;
  VmField *fields = pool_alloc(&l->prog->pool, sizeof(VmField) * ((size_t)info->nfields + 1));
  if (!fields) return fail(l, "out of memory");
  for (int f = 0; f < info->nfields; f++) {
    VmField *fld = &fields[f];
    const char *name = info->field_name[f];
    switch (info->field_kind[f]) {
    case VM_FIELD_INT:
    case VM_FIELD_F64:
      if (end - w < 1) return fail(l, "field %s missing", name);
      fld->n = 1;
      fld->v = w++;
      break;
    case VM_FIELD_LIST:
      if (end - w < 1 || w[0] < 0 || w[0] > end - w - 1) return fail(l, "list field %s out of bounds", name);
      fld->n = w[0];
      fld->v = w + 1;
      w += 1 + w[0];
      break;
    case VM_FIELD_STR:
      if (end - w < 1 || !(fld->str = str_at(l, (uint64_t)w[0]))) return fail(l, "string field %s out of bounds", name);
      fld->n = 1;
      fld->v = w++;
      break;
    case VM_FIELD_CONST: {
      if (end - w < 3) return fail(l, "constant field %s missing", name);
      int64_t off = w[0], nb = w[1], flags = w[2];
      if (off < 0 || nb < 0 || (uint64_t)off > l->prog->consts_size ||
          (uint64_t)nb > l->prog->consts_size - (uint64_t)off || flags < 0 || flags > 7)
        return fail(l, "constant field %s out of bounds", name);
      if (off % 16) return fail(l, "constant field %s is not 16-byte aligned", name);
      fld->v = w;
      fld->n = nb;
      fld->data = l->prog->consts + off;
      fld->flags = (uint32_t)flags;
      w += 3;
      break;
    }
    case VM_FIELD_REGION: {
      VmRegion *r = pool_alloc(&l->prog->pool, sizeof(VmRegion));
      if (!r || !decode_region(l, fn, &w, end, r, nfuncs)) return fail(l, "region field %s is invalid", name);
      fld->n = 1;
      fld->regions = r;
      break;
    }
    case VM_FIELD_REGIONS: {
      if (end - w < 1 || w[0] < 0 || w[0] > end - w) return fail(l, "region list %s out of bounds", name);
      int64_t cnt = *w++;
      VmRegion *r = pool_alloc(&l->prog->pool, sizeof(VmRegion) * ((size_t)cnt + 1));
      if (!r) return fail(l, "out of memory");
      for (int64_t k = 0; k < cnt; k++)
        if (!decode_region(l, fn, &w, end, &r[k], nfuncs)) return fail(l, "region %lld of %s is invalid", (long long)k, name);
      fld->n = cnt;
      fld->regions = r;
      break;
    }
    default: return fail(l, "internal: opcode table field kind '%c'", info->field_kind[f]);
    }
  }
  if (w != end) return fail(l, "%td extra attribute words", end - w);
  ins->fields = fields;
  ins->nfields = (uint32_t)info->nfields;
  return true;
}

static bool read_regs(Loader *l, const VmFunc *fn, const uint32_t *w, uint32_t n, const char *what,
                      const uint32_t **out) {
  for (uint32_t i = 0; i < n; i++)
    if (w[i] >= fn->n_regs) return fail(l, "%s register %u out of range (%u registers)", what, w[i], fn->n_regs);
  *out = w;
  return true;
}

/* Decodes and checks the instructions of function fi. */
static bool load_code(Loader *l, VmFunc *fn, const TpubFunc *rec, uint32_t nfuncs) {
  const uint32_t *code = (const uint32_t *)(l->bytes + l->sec[TPUB_SEC_CODE]->offset);
  uint64_t ncode = l->sec[TPUB_SEC_CODE]->count;
  if (rec->code > ncode || rec->code_words > ncode - rec->code) return fail(l, "code out of bounds");
  const uint32_t *w = code + rec->code, *end = w + rec->code_words;
  /* Count instructions first. */
  uint32_t count = 0;
  for (const uint32_t *p = w; p < end; count++) {
    if (end - p < TPUB_INSTR_HEADER_WORDS) return fail(l, "truncated instruction at word %td", p - w);
    uint64_t len = (uint64_t)TPUB_INSTR_HEADER_WORDS + p[1] + p[2];
    if (len >= (uint64_t)(end - p)) return fail(l, "truncated instruction at word %td", p - w);
    len += 1 + (uint64_t)p[len];
    if (len > (uint64_t)(end - p)) return fail(l, "truncated instruction at word %td", p - w);
    p += len;
  }
  if (count == 0) return fail(l, "empty function");
  VmInstr *instrs = pool_alloc(&l->prog->pool, sizeof(VmInstr) * count);
  if (!instrs) return fail(l, "out of memory");
  VmOpInfo info;
  const uint32_t *p = w;
  for (uint32_t i = 0; i < count; i++) {
    VmInstr *ins = &instrs[i];
    ins->pc = (uint32_t)(p - w);
    uint32_t opcode = p[0] & 0xffff;
    ins->flags = (uint16_t)(p[0] >> 16);
    if (opcode >= VM_OP_COUNT) return fail(l, "pc %u: unknown opcode %u", ins->pc, opcode);
    ins->opcode = (uint16_t)opcode;
    vm_op_describe((int)opcode, &info);
    ins->n_in = p[1];
    ins->n_out = p[2];
    if ((info.n_in >= 0 && ins->n_in != (uint32_t)info.n_in) || (info.n_out >= 0 && ins->n_out != (uint32_t)info.n_out))
      return fail(l, "pc %u: %s with %u operands and %u results", ins->pc, info.name, ins->n_in, ins->n_out);
    ins->loc = p[5];
    if (ins->loc >= l->prog->pub.n_locs) return fail(l, "pc %u: location %u out of range", ins->pc, ins->loc);
    const uint32_t *regs = p + TPUB_INSTR_HEADER_WORDS;
    if (!read_regs(l, fn, regs, ins->n_in, "operand", &ins->in)) return false;
    if (!read_regs(l, fn, regs + ins->n_in, ins->n_out, "result", &ins->out)) return false;
    ins->n_kill = regs[ins->n_in + ins->n_out];
    if (!read_regs(l, fn, regs + ins->n_in + ins->n_out + 1, ins->n_kill, "kill", &ins->kill)) return false;
    if ((ins->flags & TPUB_INSTR_INPLACE) &&
        (!(info.flags & (VMF_ELEMENTWISE | VMF_UPDATE | VMF_TILEWISE)) || (ins->flags & 0xff) >= ins->n_in ||
         ins->n_out < 1 ||
         ((info.flags & VMF_UPDATE) && (ins->flags & 0xff) != 0) ||
         !vm_type_equal(fn->reg_types[ins->in[ins->flags & 0xff]], fn->reg_types[ins->out[0]])))
      return fail(l, "pc %u: bad in-place flag", ins->pc);
    if ((ins->flags & TPUB_INSTR_ASYNC) && !(info.flags & VMF_COLLECTIVE))
      return fail(l, "pc %u: async flag on %s, which is not a collective", ins->pc, info.name);
    if (ins->flags & ~(TPUB_INSTR_INPLACE | TPUB_INSTR_ASYNC | 0xffu)) return fail(l, "pc %u: unknown flags", ins->pc);
    if (!decode_fields(l, fn, ins, &info, p[3], p[4], nfuncs)) return false;
    p = regs + ins->n_in + ins->n_out + 1 + ins->n_kill;
  }
  if (instrs[count - 1].opcode != VM_OP_RETURN) return fail(l, "function does not end with return");
  fn->instrs = instrs;
  fn->n_instrs = count;
  return true;
}

/* Registers: every operand is live (defined, not yet killed); results are
 * not live when written; kills name live registers; a return comes last. */
static bool check_liveness(Loader *l, const VmFunc *fn) {
  uint8_t *live = calloc(fn->n_regs + 1, 1);
  if (!live) return fail(l, "out of memory");
  bool ok = true;
  for (uint32_t r = 0; r < fn->n_params; r++) live[r] = 1;
  for (uint32_t i = 0; i < fn->n_instrs && ok; i++) {
    const VmInstr *ins = &fn->instrs[i];
    for (uint32_t k = 0; k < ins->n_in && ok; k++)
      if (!live[ins->in[k]]) ok = fail(l, "pc %u: operand register %u is not live", ins->pc, ins->in[k]);
    /* Only region fields have regions. */
    for (uint32_t f = 0; f < ins->nfields && ok; f++)
      for (int64_t k = 0; ins->fields[f].regions && k < ins->fields[f].n && ok; k++)
        for (uint32_t c = 0; c < ins->fields[f].regions[k].ncaps && ok; c++)
          if (!live[ins->fields[f].regions[k].caps[c]]) ok = fail(l, "pc %u: captured register is not live", ins->pc);
    for (uint32_t k = 0; k < ins->n_out && ok; k++) {
      if (live[ins->out[k]]) ok = fail(l, "pc %u: result register %u is written twice", ins->pc, ins->out[k]);
      live[ins->out[k]] = 1;
    }
    for (uint32_t k = 0; k < ins->n_kill && ok; k++) {
      if (!live[ins->kill[k]]) ok = fail(l, "pc %u: killed register %u is not live", ins->pc, ins->kill[k]);
      live[ins->kill[k]] = 0;
    }
    if (ins->opcode == VM_OP_RETURN && i + 1 != fn->n_instrs) ok = fail(l, "pc %u: return before the end", ins->pc);
  }
  free(live);
  return ok;
}

/* The call graph (calls and regions) must be acyclic and at most
 * TPUB_MAX_CALL_DEPTH deep.  depth[f]: 0 unvisited, -1 in progress; level
 * bounds this recursion itself. */
static bool check_calls(Loader *l, uint32_t f, int *depth, int level) {
  const VmFunc *fn = &l->prog->pub.funcs[f];
  if (depth[f] == -1) return fail(l, "function %s calls itself (recursion is not allowed)", fn->name);
  if (depth[f] > 0) return true;
  if (level > TPUB_MAX_CALL_DEPTH) return fail(l, "calls nest deeper than %d", TPUB_MAX_CALL_DEPTH);
  depth[f] = -1;
  int d = 1;
  for (uint32_t i = 0; i < fn->n_instrs; i++) {
    const VmInstr *ins = &fn->instrs[i];
    for (uint32_t k = 0; k < ins->nfields; k++) {
      if (!ins->fields[k].regions) continue;
      for (int64_t j = 0; j < ins->fields[k].n; j++) {
        uint32_t g = ins->fields[k].regions[j].func;
        if (!check_calls(l, g, depth, level + 1)) return false;
        if (depth[g] + 1 > d) d = depth[g] + 1;
      }
    }
  }
  if (d > TPUB_MAX_CALL_DEPTH) return fail(l, "calls nest deeper than %d", TPUB_MAX_CALL_DEPTH);
  depth[f] = d;
  return true;
}

typedef bool (*CheckFn)(VmCheck *c);
static const CheckFn check_table[VM_OP_COUNT] = {
#define OPC(id, name, nin, nout, fields, check, exec, flags, doc) [VM_OP_##id] = check,
#include "vm/opcodes.def"
#undef OPC
};

static bool load_funcs(Loader *l) {
  const TpubFunc *rec = (const TpubFunc *)(l->bytes + l->sec[TPUB_SEC_FUNCS]->offset);
  uint32_t n = l->sec[TPUB_SEC_FUNCS]->count;
  VmFunc *funcs = pool_alloc(&l->prog->pool, sizeof(VmFunc) * (n + 1));
  if (!funcs) return fail(l, "out of memory");
  l->prog->pub.funcs = funcs;
  l->prog->pub.n_funcs = n;
  for (uint32_t i = 0; i < n; i++) {
    VmFunc *fn = &funcs[i];
    const TpubFunc *r = &rec[i];
    if (!(fn->name = str_at(l, r->name))) return fail(l, "function %u: name out of bounds", i);
    fn->flags = r->flags;
    if (r->n_params > r->n_regs) return fail(l, "function %s: more parameters than registers", fn->name);
    if (r->n_regs > (1u << 24) || r->n_results > (1u << 16)) return fail(l, "function %s: too many registers", fn->name);
    if (!ints_range(l, r->reg_types, r->n_regs) || !ints_range(l, r->result_types, r->n_results))
      return fail(l, "function %s: type lists out of bounds", fn->name);
    const VmType **rt = pool_alloc(&l->prog->pool, sizeof(VmType *) * (r->n_regs + 1u));
    const VmType **res = pool_alloc(&l->prog->pool, sizeof(VmType *) * (r->n_results + 1u));
    if (!rt || !res) return fail(l, "out of memory");
    for (uint32_t k = 0; k < r->n_regs; k++)
      if (!(rt[k] = type_at(l, l->ints[r->reg_types + k]))) return fail(l, "function %s: register %u has a bad type", fn->name, k);
    for (uint32_t k = 0; k < r->n_results; k++)
      if (!(res[k] = type_at(l, l->ints[r->result_types + k]))) return fail(l, "function %s: result %u has a bad type", fn->name, k);
    fn->n_params = r->n_params;
    fn->n_results = r->n_results;
    fn->n_regs = r->n_regs;
    fn->reg_types = rt;
    fn->result_types = res;
    if (r->loc >= l->prog->pub.n_locs) return fail(l, "function %s: location out of range", fn->name);
    fn->loc = r->loc;
  }
  for (uint32_t i = 0; i < n; i++) {
    char sub[200];
    if (!load_code(l, &funcs[i], &rec[i], n) || !check_liveness(l, &funcs[i])) {
      snprintf(sub, sizeof sub, "%s", l->err);
      return fail(l, "function %s: %s", funcs[i].name, sub);
    }
  }
  /* Per-opcode rules, once every function's signature is known. */
  for (uint32_t i = 0; i < n; i++) {
    VmFunc *fn = &funcs[i];
    for (uint32_t k = 0; k < fn->n_instrs; k++) {
      char reason[256] = "";
      VmCheck c = {&l->prog->pub, fn, &fn->instrs[k], reason, sizeof reason};
      if (!check_table[fn->instrs[k].opcode](&c)) {
        VmOpInfo info;
        vm_op_describe(fn->instrs[k].opcode, &info);
        return fail(l, "function %s, pc %u (%s): %s", fn->name, fn->instrs[k].pc, info.name,
                    reason[0] ? reason : "invalid");
      }
    }
  }
  int *depth = calloc(n + 1, sizeof(int));
  if (!depth) return fail(l, "out of memory");
  bool ok = true;
  for (uint32_t i = 0; i < n && ok; i++) ok = check_calls(l, i, depth, 1);
  free(depth);
  return ok;
}

/* ------------------------------------------------------------------ */
/* SHARDS: the global tensors of a partitioned program's arguments and
 * results (vm/tpub.h TpubShard). */

/* Checks one record's counts (tiles, r, device ids) into sh; what names it. */
static bool check_shard_pieces(Loader *l, const TpubShard *r, VmShard *sh, const char *what) {
  int64_t pieces = 1, n = l->prog->pub.num_partitions;
  for (uint32_t d = 0; d <= r->rank; d++) {
    int64_t t = sh->tiles[d];
    if (t < 1 || t > n)
      return fail(l, "SHARDS: %s: %s %u is %lld (1..%lld, the partitions)", what, d < r->rank ? "tile count of dim" : "replication count", d < r->rank ? d : r->rank, (long long)t, (long long)n);
    pieces *= t;
    if (pieces > n) break;
  }
  if (pieces != n || r->ndevices != n)
    return fail(l, "SHARDS: %s: %u device ids for pieces x replication = %lld, expected one per partition (%lld)", what,
                r->ndevices, (long long)pieces, (long long)n);
  if (!ints_range(l, r->devices, r->ndevices)) return fail(l, "SHARDS: %s: device ids out of bounds", what);
  sh->devices = l->ints + r->devices;
  sh->ndevices = r->ndevices;
  uint8_t *seen = calloc((size_t)n, 1);
  if (!seen) return fail(l, "out of memory");
  bool ok = true;
  for (uint32_t k = 0; k < r->ndevices && ok; k++) {
    int64_t id = sh->devices[k];
    if (id < 0 || id >= n) ok = fail(l, "SHARDS: %s: device id %lld is not a partition (0..%lld)", what, (long long)id, (long long)n - 1);
    else if (seen[id]++) ok = fail(l, "SHARDS: %s: partition %lld holds two pieces", what, (long long)id);
  }
  free(seen);
  return ok;
}

/* Checks one record against the per-chip type t into sh. */
static bool check_shard(Loader *l, const TpubShard *r, const VmType *t, VmShard *sh, const char *what) {
  if (r->pad) return fail(l, "SHARDS: %s: nonzero padding", what);
  if (t->kind != TPUB_TY_TENSOR) return fail(l, "SHARDS: %s is not a tensor", what);
  if (r->rank != t->rank) return fail(l, "SHARDS: %s: rank %u, the type has rank %d", what, r->rank, t->rank);
  if (!ints_range(l, r->global, r->rank) || !ints_range(l, r->tiles, r->rank + 1u))
    return fail(l, "SHARDS: %s: dims out of bounds", what);
  sh->tiles = l->ints + r->tiles;
  if (!check_shard_pieces(l, r, sh, what)) return false;
  sh->global = *t;
  sh->global.dims = l->ints + r->global;
  int64_t count = 1;
  for (int d = 0; d < t->rank; d++) {
    int64_t g = sh->global.dims[d], tiles = sh->tiles[d];
    if (g < 0) return fail(l, "SHARDS: %s: negative global dimension %lld", what, (long long)g);
    if (t->dims[d] != (g + tiles - 1) / tiles)
      return fail(l, "SHARDS: %s: dim %d is %lld per chip, but ceil(global %lld / %lld tiles) = %lld", what, d,
                  (long long)t->dims[d], (long long)g, (long long)tiles, (long long)((g + tiles - 1) / tiles));
    if (g && count > ((int64_t)1 << 50) / g) return fail(l, "SHARDS: %s: more than 2^50 global elements", what);
    count *= g;
  }
  sh->global.count = count;
  sh->global.nbytes = count * vm_elem_bytes(t->elem);
  return true;
}

static bool load_shards(Loader *l) {
  const TpubSection *sec = l->sec[TPUB_SEC_SHARDS];
  if (!sec) return true;
  const TpubShard *rec = (const TpubShard *)(l->bytes + sec->offset);
  VmFunc *funcs = (VmFunc *)l->prog->pub.funcs;
  uint32_t nfuncs = l->prog->pub.n_funcs;
  for (uint32_t k = 0; k < sec->count; k++) {
    const TpubShard *r = &rec[k];
    if (r->func >= nfuncs) return fail(l, "SHARDS: record %u names function %u of %u", k, r->func, nfuncs);
    VmFunc *fn = &funcs[r->func];
    if (!(fn->flags & TPUB_FUNC_PUBLIC) || (fn->flags & TPUB_FUNC_REGION))
      return fail(l, "SHARDS: record %u: @%s is not a public function", k, fn->name);
    if (r->kind > TPUB_SHARD_RESULT) return fail(l, "SHARDS: record %u: unknown kind %u", k, r->kind);
    bool param = r->kind == TPUB_SHARD_PARAM;
    uint32_t count = param ? fn->n_params : fn->n_results;
    char what[160];
    snprintf(what, sizeof what, "@%s %s %u", fn->name, param ? "parameter" : "result", r->index);
    if (r->index >= count) return fail(l, "SHARDS: record %u: %s does not exist (%u)", k, what, count);
    if (k > 0) {
      const TpubShard *q = &rec[k - 1];
      if (q->func > r->func || (q->func == r->func && (q->kind > r->kind || (q->kind == r->kind && q->index >= r->index))))
        return fail(l, "SHARDS: record %u (%s) is out of order or repeated", k, what);
    }
    const VmShard **list = (const VmShard **)(param ? fn->param_shards : fn->result_shards);
    if (!list) {
      list = pool_alloc(&l->prog->pool, sizeof(VmShard *) * (count + 1u));
      if (!list) return fail(l, "out of memory");
      if (param) fn->param_shards = list;
      else fn->result_shards = list;
    }
    VmShard *sh = pool_alloc(&l->prog->pool, sizeof *sh);
    if (!sh) return fail(l, "out of memory");
    if (!check_shard(l, r, param ? fn->reg_types[r->index] : fn->result_types[r->index], sh, what)) return false;
    list[r->index] = sh;
  }
  return true;
}

/* One DYNDIMS record against its function's types (what says which). */
static bool check_dyn(Loader *l, const TpubDyn *r, const VmFunc *fn, const char *what) {
  bool param = r->kind == TPUB_DYN_PARAM;
  uint32_t count = param ? fn->n_params : fn->n_results;
  if (r->index >= count || r->size >= count || r->size == r->index)
    return fail(l, "DYNDIMS: %s: tensor %u or size %u is not one of its %u", what, r->index, r->size, count);
  const VmType *t = param ? fn->reg_types[r->index] : fn->result_types[r->index];
  const VmType *s = param ? fn->reg_types[r->size] : fn->result_types[r->size];
  if (t->kind != TPUB_TY_TENSOR || r->dim >= t->rank) return fail(l, "DYNDIMS: %s: dim %u is not a dim of a tensor", what, r->dim);
  if (t->dims[r->dim] != r->bound || r->bound > INT32_MAX)
    return fail(l, "DYNDIMS: %s: bound %lld, the tensor's dim is %lld", what, (long long)r->bound, (long long)t->dims[r->dim]);
  if (s->kind != TPUB_TY_TENSOR || s->rank != 0 || s->elem != TPUB_I32)
    return fail(l, "DYNDIMS: %s: its size %u is not a tensor<i32>", what, r->size);
  return true;
}

/* DYNDIMS: the bounded dynamic dims of public functions, in order, each
 * size parameter or result used once and not itself a padded tensor. */
static bool load_dyndims(Loader *l) {
  const TpubSection *sec = l->sec[TPUB_SEC_DYNDIMS];
  if (!sec) return true;
  const TpubDyn *rec = (const TpubDyn *)(l->bytes + sec->offset);
  VmFunc *funcs = (VmFunc *)l->prog->pub.funcs;
  uint32_t nfuncs = l->prog->pub.n_funcs;
  VmDynDim *all = pool_alloc(&l->prog->pool, sizeof(VmDynDim) * (sec->count + 1u));
  if (!all) return fail(l, "out of memory");
  for (uint32_t k = 0; k < sec->count; k++) {
    const TpubDyn *r = &rec[k];
    if (r->func >= nfuncs) return fail(l, "DYNDIMS: record %u names function %u of %u", k, r->func, nfuncs);
    VmFunc *fn = &funcs[r->func];
    if (!(fn->flags & TPUB_FUNC_PUBLIC) || (fn->flags & TPUB_FUNC_REGION))
      return fail(l, "DYNDIMS: record %u: @%s is not a public function", k, fn->name);
    if (r->kind > TPUB_DYN_RESULT) return fail(l, "DYNDIMS: record %u: unknown kind %u", k, r->kind);
    char what[160];
    snprintf(what, sizeof what, "record %u (@%s %s %u dim %u)", k, fn->name, r->kind ? "result" : "parameter", r->index, r->dim);
    if (!check_dyn(l, r, fn, what)) return false;
    for (uint32_t j = 0; j < k; j++) {
      const TpubDyn *q = &rec[j];
      if (q->func != r->func || q->kind != r->kind) continue;
      if (q->size == r->size || q->size == r->index || q->index == r->size)
        return fail(l, "DYNDIMS: %s: its size %u is shared or is a padded tensor", what, r->size);
    }
    if (k > 0) {
      const TpubDyn *q = &rec[k - 1];
      uint64_t a[4] = {q->func, q->kind, q->index, q->dim}, b[4] = {r->func, r->kind, r->index, r->dim};
      int c = 0;
      for (int i = 0; i < 4 && !c; i++) c = a[i] < b[i] ? -1 : a[i] > b[i];
      if (c >= 0) return fail(l, "DYNDIMS: %s is out of order or repeated", what);
    }
    all[k] = (VmDynDim){r->kind == TPUB_DYN_RESULT, r->index, r->dim, r->size, r->bound};
    if (!fn->dyn) fn->dyn = &all[k];
    fn->n_dyn++;
  }
  return true;
}

VmProgram *vm_program_load(const void *bytes, size_t n, char *err, size_t errlen) {
  VmProgramImpl *prog = calloc(1, sizeof *prog);
  if (!prog) {
    snprintf(err, errlen, "out of memory");
    return NULL;
  }
  uint8_t *copy = pool_alloc(&prog->pool, n + 1);
  if (!copy) {
    snprintf(err, errlen, "out of memory (%zu bytes)", n);
    free(prog);
    return NULL;
  }
  memcpy(copy, bytes, n);
  Loader l = {.prog = prog, .bytes = copy, .n = n, .err = err, .errlen = errlen};
  if (!load_sections(&l) || !load_types(&l) || !load_locs(&l) || !load_costs(&l) || !load_funcs(&l) ||
      !load_shards(&l) || !load_dyndims(&l)) {
    pool_free(&prog->pool);
    free(prog);
    return NULL;
  }
  return &prog->pub;
}

void vm_program_free(VmProgram *p) {
  if (!p) return;
  VmProgramImpl *impl = (VmProgramImpl *)p;
  pool_free(&impl->pool);
  free(impl);
}

int vm_program_find(const VmProgram *p, const char *name) {
  for (uint32_t i = 0; i < p->n_funcs; i++)
    if (!(p->funcs[i].flags & TPUB_FUNC_REGION) && strcmp(p->funcs[i].name, name) == 0) return (int)i;
  return -1;
}

void vm_program_set_source(VmProgram *p, const char *file) {
  VmLoc *locs = (VmLoc *)p->locs;
  for (uint32_t i = 0; i < p->n_locs; i++)
    if (locs[i].file[0]) locs[i].file = file;
}
