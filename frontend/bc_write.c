/* MLIR bytecode writer for modules in VHLO form (frontend/vhlo.h): the
 * portable artifact `stablehlo-translate --serialize --target=X.Y.Z
 * --strip-debuginfo` writes, at the MLIR bytecode format of the target
 * version.  The numbering follows MLIR's IRNumbering (entries ordered by
 * reference count, then grouped by dialect per varint byte width) and the
 * sections MLIR's BytecodeWriter, so that the bytes can be identical. */
#include <stdlib.h>
#include <string.h>

#include "frontend/bc_write.h"
#include "frontend/vhlo_legalize.h"

/* ------------------------------------------------------------------ */
/* Ops in VHLO form. */

static bool is_module(const Op *op) { return op->kind == OP_MODULE; }

static bool is_vhlo(const Op *op) { return strncmp(op->name, "vhlo.", 5) == 0; }

static bool is_cast(const Op *op) { return strcmp(op->name, "builtin.unrealized_conversion_cast") == 0; }

/* The domain of op's attributes and values: VHLO for a VHLO op; builtin
 * for the module and for other dialects' ops (a mixed module). */
static BcDom op_dom(const Op *op) { return is_vhlo(op) ? BCD_VHLO : BCD_BUILTIN; }

/* The domain of value v's type: its defining op's (a cast's result the
 * other of its operand's), a block argument its region owner's. */
static BcDom value_dom(const Value *v) {
  bool flip = false;
  for (int depth = 0; depth < 64 && v->def && is_cast(v->def) && v->def->noperands == 1; depth++) {
    flip = !flip;
    v = v->def->operands[0];
  }
  const Op *owner = v->def ? v->def : v->block && v->block->parent ? v->block->parent->parent : NULL;
  bool vhlo = owner && op_dom(owner) == BCD_VHLO;
  return vhlo != flip ? BCD_VHLO : BCD_BUILTIN;
}

/* Whether attribute `name` of op is one of its properties: the module's
 * sym_name and sym_visibility, a VHLO op's inherent attributes (its
 * vhlo_ops.def row); any other attribute is discardable. */
static bool is_prop(const BcW *w, const Op *op, const char *name) {
  if (is_module(op)) return strcmp(name, "sym_name") == 0 || strcmp(name, "sym_visibility") == 0;
  const VhloOpRow *row = is_vhlo(op) ? vhlo_row_by_name(w->vhlo_ops, op->name) : NULL;
  return row && vhlo_row_attr(row, name);
}

/* Whether op writes properties (format 5 on: a builtin.module always, a
 * VHLO op when it has inherent attributes; other dialects' ops keep all
 * their attributes in the dictionary, which MLIR's reader accepts). */
static bool has_props(const BcW *w, const Op *op) {
  if (w->fmt < BC_V_NATIVE_PROPERTIES) return false;
  if (is_module(op)) return true;
  for (int i = 0; i < op->nattrs; i++)
    if (is_prop(w, op, op->attrs[i].name)) return true;
  return false;
}

/* The attribute dictionary op writes: all its attributes, or only the
 * discardable ones when it writes properties. */
static BcKey op_dict_key(BcW *w, const Op *op) {
  bool props = has_props(w, op);
  BcKey k = {.cls = BCA_OPDICT, .dom = BCD_BUILTIN, .vdom = (uint8_t)op_dom(op)};
  if (!props) {
    k.nattrs = op->nattrs;
    k.attrs = op->attrs;
    return k;
  }
  NamedAttr *sel = arena_alloc(&w->c->arena, sizeof *sel * (size_t)(op->nattrs + 1));
  for (int i = 0; i < op->nattrs; i++)
    if (!is_prop(w, op, op->attrs[i].name)) sel[k.nattrs++] = op->attrs[i];
  k.attrs = sel;
  return k;
}

/* Calls fn on each property attribute of op in the order its
 * writeProperties writes them (sorted by name); a module's optional
 * sym_name and sym_visibility are passed as NULL when absent. */
static void for_each_prop(BcW *w, const Op *op, void (*fn)(BcW *, const Op *, const Attr *)) {
  if (is_module(op)) {
    fn(w, op, op_attr(op, "sym_name"));
    fn(w, op, op_attr(op, "sym_visibility"));
    return;
  }
  for (int i = 0; i < op->nattrs; i++)
    if (is_prop(w, op, op->attrs[i].name)) fn(w, op, op->attrs[i].value);
}

/* ------------------------------------------------------------------ */
/* Numbering. */

static BcOpName *opname(BcW *w, const char *name) {
  for (int i = 0; i < w->nopnames; i++)
    if (strcmp(w->opnames[i]->name, name) == 0) return w->opnames[i];
  return NULL;
}

static void number_opname(BcW *w, const Op *op) {
  const char *name = op->name;
  BcOpName *n = opname(w, name);
  if (n) {
    n->refs++;
    return;
  }
  n = arena_alloc(&w->c->arena, sizeof *n);
  n->name = name;
  n->dlen = (size_t)(strchr(name, '.') - name);
  n->dialect = bcw_dialect(w, name, n->dlen);
  n->refs = 1;
  if (w->nopnames == w->capopnames) {
    w->capopnames = w->capopnames ? w->capopnames * 2 : 64;
    w->opnames = xrealloc(w->opnames, (size_t)w->capopnames * sizeof *w->opnames);
  }
  w->opnames[w->nopnames++] = n;
}

static BcKey unknown_loc(void) { return (BcKey){.cls = BCA_UNKNOWN_LOC, .dom = BCD_BUILTIN}; }

static void number_prop_attr(BcW *w, const Op *op, const Attr *a) {
  if (!a) return;
  BcKey k = bcw_key_attr(op_dom(op), a);
  bcw_number_attr(w, &k);
}

/* Whether op can be written: the module, a VHLO op, or an op of another
 * dialect kept generically (CHLO, the interpreter's check and interpreter
 * ops, casts), as upstream's serializer with --allow-other-dialects; not
 * tpucc's internal tpu.* ops, nor a StableHLO op VHLO does not hold. */
static bool check_op(BcW *w, const Op *op) {
  if (strncmp(op->name, "tpu.", 4) == 0)
    bcw_error(w, "is not a VHLO op: tpucc's internal ops cannot be written as a portable artifact");
  else if (strncmp(op->name, "stablehlo.", 10) == 0 || !strchr(op->name, '.'))
    bcw_error(w, "is not a VHLO op: VHLO has no op for it");
  else
    return true;
  return false;
}

static void number_op(BcW *w, const Op *op) {
  w->cur_op = op;
  if (!check_op(w, op)) return;
  number_opname(w, op);
  for (int i = 0; i < op->nresults; i++) {
    bcw_map_put(&w->values, &op->results[i], w->next_value++);
    bcw_number_type(w, value_dom(&op->results[i]), op->results[i].type);
  }
  BcKey dict = op_dict_key(w, op);
  if (dict.nattrs) bcw_number_attr(w, &dict);
  if (has_props(w, op)) for_each_prop(w, op, number_prop_attr);
  BcKey loc = unknown_loc();
  bcw_number_attr(w, &loc);
}

static void number_region(BcW *w, const Region *r) {
  BcKey loc = unknown_loc();
  for (int bi = 0; bi < r->nblocks; bi++) {
    const Block *b = r->blocks[bi];
    for (int i = 0; i < b->nargs; i++) {
      bcw_map_put(&w->values, &b->args[i], w->next_value++);
      bcw_number_attr(w, &loc);
      bcw_number_type(w, value_dom(&b->args[i]), b->args[i].type);
    }
    for (const Op *op = b->first; op; op = op->next) number_op(w, op);
  }
}

/* Whether value v is defined inside op x (in one of its regions). */
static bool defined_inside(const Value *v, const Op *x) {
  const Block *b = v->def ? v->def->parent : v->block;
  while (b && b->parent) {
    const Op *owner = b->parent->parent;
    if (owner == x) return true;
    b = owner ? owner->parent : NULL;
  }
  return false;
}

/* Whether no op nested in x uses a value defined outside x. */
static bool uses_only_inside(const Op *x, const Op *op) {
  for (int r = 0; r < op->nregions; r++)
    for (int bi = 0; bi < op->regions[r].nblocks; bi++)
      for (const Op *in = op->regions[r].blocks[bi]->first; in; in = in->next) {
        for (int i = 0; i < in->noperands; i++)
          if (!defined_inside(in->operands[i], x)) return false;
        if (!uses_only_inside(x, in)) return false;
      }
  return true;
}

/* MLIR's isolation of an op with regions, computed from its uses (and the
 * op ids of the pre-order walk, for use-list orders). */
static void number_ops(BcW *w, const Op *op, uint32_t *next_id) {
  bcw_map_put(&w->ops, op, (*next_id)++);
  if (op->nregions) bcw_map_put(&w->isolated, op, is_module(op) || uses_only_inside(op, op));
  for (int r = 0; r < op->nregions; r++)
    for (int bi = 0; bi < op->regions[r].nblocks; bi++)
      for (const Op *in = op->regions[r].blocks[bi]->first; in; in = in->next) number_ops(w, in, next_id);
}

static bool is_isolated(const BcW *w, const Op *op) {
  uint32_t v = 0;
  bcw_map_get(&w->isolated, op, &v);
  return v != 0;
}

typedef struct RegionItem {
  const Region *r;
  uint32_t start;
} RegionItem;

static void push_regions(BcW *w, const Op *op, RegionItem **stack, int *n, int *cap) {
  uint32_t start = is_isolated(w, op) ? 0 : w->next_value;
  for (int r = 0; r < op->nregions; r++) {
    if (*n == *cap) {
      *cap = *cap ? *cap * 2 : 64;
      *stack = xrealloc(*stack, (size_t)*cap * sizeof **stack);
    }
    (*stack)[(*n)++] = (RegionItem){&op->regions[r], start};
  }
}

/* Numbers the IR in MLIR's order: the root op, then a stack of regions. */
static void number_ir(BcW *w, const Op *root) {
  uint32_t next_id = 0;
  number_ops(w, root, &next_id);
  number_op(w, root);
  RegionItem *stack = NULL;
  int n = 0, cap = 0;
  push_regions(w, root, &stack, &n, &cap);
  while (n > 0) {
    RegionItem it = stack[--n];
    w->next_value = it.start;
    number_region(w, it.r);
    for (int bi = 0; bi < it.r->nblocks; bi++)
      for (const Op *op = it.r->blocks[bi]->first; op; op = op->next)
        if (op->nregions) push_regions(w, op, &stack, &n, &cap);
  }
  free(stack);
}

/* ------------------------------------------------------------------ */
/* Ordering: by reference count, then by dialect within each range of
 * numbers that takes the same number of varint bytes. */

typedef struct SortItem {
  void *p;
  uint32_t refs;
  int dialect;
} SortItem;

typedef bool (*SortLess)(const SortItem *a, const SortItem *b, int first);

static bool by_refs(const SortItem *a, const SortItem *b, int first) {
  (void)first;
  return a->refs > b->refs;
}

static bool by_dialect(const SortItem *a, const SortItem *b, int first) {
  if (a->dialect == first) return b->dialect != first;
  if (b->dialect == first) return false;
  return a->dialect < b->dialect;
}

static void merge_sort(SortItem *v, SortItem *tmp, size_t n, SortLess less, int first) {
  if (n < 2) return;
  size_t h = n / 2;
  merge_sort(v, tmp, h, less, first);
  merge_sort(v + h, tmp, n - h, less, first);
  size_t i = 0, j = h, k = 0;
  while (i < h && j < n) tmp[k++] = less(&v[j], &v[i], first) ? v[j++] : v[i++];
  while (i < h) tmp[k++] = v[i++];
  while (j < n) tmp[k++] = v[j++];
  memcpy(v, tmp, n * sizeof *v);
}

/* Sorts items in place the way IRNumbering does. */
static void order_items(SortItem *v, size_t n) {
  if (!n) return;
  SortItem *tmp = xcalloc(n, sizeof *tmp);
  merge_sort(v, tmp, n, by_refs, 0);
  int first = 0;
  size_t in_group = 0, pos = 0;
  for (int i = 1; i < 9; i++) {
    in_group = ((size_t)1 << (7 * i)) - in_group;
    size_t take = n - pos < in_group ? n - pos : in_group;
    merge_sort(v + pos, tmp, take, by_dialect, first);
    first = v[pos + take - 1].dialect;
    pos += take;
    if (pos == n) break;
  }
  free(tmp);
}

static void order_ents(BcEnt **ents, int n) {
  SortItem *v = xcalloc((size_t)n + 1, sizeof *v);
  for (int i = 0; i < n; i++) v[i] = (SortItem){ents[i], ents[i]->refs, ents[i]->dialect};
  order_items(v, (size_t)n);
  for (int i = 0; i < n; i++) {
    ents[i] = v[i].p;
    ents[i]->number = (uint32_t)i;
  }
  free(v);
}

static void order_opnames(BcW *w) {
  SortItem *v = xcalloc((size_t)w->nopnames + 1, sizeof *v);
  for (int i = 0; i < w->nopnames; i++) v[i] = (SortItem){w->opnames[i], w->opnames[i]->refs, w->opnames[i]->dialect};
  order_items(v, (size_t)w->nopnames);
  for (int i = 0; i < w->nopnames; i++) {
    w->opnames[i] = v[i].p;
    w->opnames[i]->number = (uint32_t)i;
  }
  free(v);
}

/* ------------------------------------------------------------------ */
/* Sections. */

static uint32_t number_of_attr(BcW *w, BcKey k) {
  BcEnt *e = bcw_find_attr(w, &k);
  if (!e) die("bytecode writer: attribute used but not numbered");
  return e->number;
}

static uint32_t number_of_type(BcW *w, BcDom dom, const Type *t) {
  BcEnt *e = bcw_find_type(w, dom, t);
  if (!e) die("bytecode writer: type used but not numbered");
  return e->number;
}

static void write_dialect_section(BcW *w, BcBuf *out) {
  BcBuf b = {0};
  bcb_varint(&b, (uint64_t)w->ndialects);
  for (int i = 0; i < w->ndialects; i++) {
    size_t id = bcw_string(w, w->dialects[i], w->dialect_len[i]);
    if (w->fmt < BC_V_DIALECT_VERSIONING)
      bcb_varint(&b, id);
    else
      bcb_varint_flag(&b, id, false);
  }
  if (w->fmt >= BC_V_ELIDE_UNKNOWN_BLOCK_ARG_LOC) bcb_varint(&b, (uint64_t)w->nopnames);
  for (int i = 0; i < w->nopnames;) {
    int j = i;
    while (j < w->nopnames && w->opnames[j]->dialect == w->opnames[i]->dialect) j++;
    bcb_varint(&b, (uint64_t)w->opnames[i]->dialect);
    bcb_varint(&b, (uint64_t)(j - i));
    for (; i < j; i++) {
      const BcOpName *n = w->opnames[i];
      size_t id = bcw_string(w, n->name + n->dlen + 1, strlen(n->name + n->dlen + 1));
      if (w->fmt < BC_V_NATIVE_PROPERTIES)
        bcb_varint(&b, id);
      else
        bcb_varint_flag(&b, id, true);
    }
  }
  bcb_section(out, BC_SEC_DIALECT, &b);
}

/* Writes one dialect-grouped run of entries: their data into data, their
 * offsets into offsets. */
static void write_entries(BcW *w, BcEnt **ents, int n, BcBuf *offsets, BcBuf *data, uint64_t *prev) {
  w->numbering = false;
  w->out = data;
  for (int i = 0; i < n;) {
    int j = i;
    while (j < n && ents[j]->dialect == ents[i]->dialect) j++;
    bcb_varint(offsets, (uint64_t)ents[i]->dialect);
    bcb_varint(offsets, (uint64_t)(j - i));
    for (; i < j; i++) {
      if (ents[i]->is_type)
        bcw_encode_type(w, ents[i]);
      else
        bcw_encode_attr(w, ents[i]);
      bcb_varint_flag(offsets, data->len - *prev, ents[i]->dom != BCD_TEXT);
      *prev = data->len;
    }
  }
}

static void write_attr_type_section(BcW *w, BcBuf *out) {
  BcBuf offsets = {0}, data = {0};
  uint64_t prev = 0;
  bcb_varint(&offsets, (uint64_t)w->nattrs);
  bcb_varint(&offsets, (uint64_t)w->ntypes);
  write_entries(w, w->attrs, w->nattrs, &offsets, &data, &prev);
  write_entries(w, w->types, w->ntypes, &offsets, &data, &prev);
  bcb_section(out, BC_SEC_ATTR_TYPE_OFFSET, &offsets);
  bcb_section(out, BC_SEC_ATTR_TYPE, &data);
}

/* The properties section being built: entries (size-prefixed) deduplicated
 * by content. */
typedef struct Props {
  BcBuf *entries;
  uint32_t *hashes;
  size_t count, cap;
  uint32_t *slots; /* index + 1 */
  size_t nslots;
} Props;

static void props_rehash(Props *ps) {
  size_t ns = ps->nslots ? ps->nslots * 2 : 64;
  free(ps->slots);
  ps->slots = xcalloc(ns, sizeof *ps->slots);
  ps->nslots = ns;
  for (size_t i = 0; i < ps->count; i++) {
    size_t j = ps->hashes[i] & (ns - 1);
    while (ps->slots[j]) j = (j + 1) & (ns - 1);
    ps->slots[j] = (uint32_t)i + 1;
  }
}

/* The index of properties blob raw (added unless already present). */
static size_t props_add(Props *ps, const BcBuf *raw) {
  BcBuf e = {0};
  bcb_varint(&e, raw->len);
  bcb_bytes(&e, raw->data, raw->len);
  uint32_t h = bcw_fnv(e.data, e.len, 2166136261u);
  if ((ps->count + 1) * 2 > ps->nslots) props_rehash(ps);
  size_t j = h & (ps->nslots - 1);
  for (; ps->slots[j]; j = (j + 1) & (ps->nslots - 1)) {
    size_t i = ps->slots[j] - 1;
    if (ps->hashes[i] == h && ps->entries[i].len == e.len && memcmp(ps->entries[i].data, e.data, e.len) == 0) {
      bcb_free(&e);
      return i;
    }
  }
  if (ps->count == ps->cap) {
    ps->cap = ps->cap ? ps->cap * 2 : 64;
    ps->entries = xrealloc(ps->entries, ps->cap * sizeof *ps->entries);
    ps->hashes = xrealloc(ps->hashes, ps->cap * sizeof *ps->hashes);
  }
  ps->entries[ps->count] = e;
  ps->hashes[ps->count] = h;
  ps->slots[j] = (uint32_t)++ps->count;
  return ps->count - 1;
}

static void props_free(Props *ps) {
  for (size_t i = 0; i < ps->count; i++) bcb_free(&ps->entries[i]);
  free(ps->entries);
  free(ps->hashes);
  free(ps->slots);
}

typedef struct IrWriter {
  BcW *w;
  Props props;
  BcBuf scratch;
  uint32_t unknown_loc;
} IrWriter;

static uint32_t value_id(BcW *w, const Value *v) {
  uint32_t id;
  if (!bcw_map_get(&w->values, v, &id)) die("bytecode writer: operand value not numbered");
  return id;
}

static uint32_t op_id(BcW *w, const Op *op) {
  uint32_t id;
  if (!bcw_map_get(&w->ops, op, &id)) die("bytecode writer: op not numbered");
  return id;
}

/* MLIR's use-list orders of the values vals[0..n): for each value whose
 * uses are not in descending (op id, operand number) order, the
 * permutation that sorts them so. */
static void write_use_lists(BcW *w, BcBuf *b, uint8_t *mask, const Value *vals, int n) {
  int nlists = 0;
  for (int pass = 0; pass < 2; pass++) {
    if (pass == 1) {
      if (!nlists) return;
      *mask |= 0x20;
      if (n != 1) bcb_varint(b, (uint64_t)nlists);
    }
    for (int i = 0; i < n; i++) {
      size_t nuses = 0;
      for (const Use *u = vals[i].uses; u; u = u->next) nuses++;
      if (nuses < 2) continue;
      uint64_t *ids = xcalloc(nuses, sizeof *ids);
      uint32_t *order = xcalloc(nuses, sizeof *order);
      bool ordered = true;
      size_t k = 0;
      for (const Use *u = vals[i].uses; u; u = u->next, k++) {
        ids[k] = (uint64_t)op_id(w, u->user) << 32 | (uint32_t)u->operand_index;
        if (k && !(ids[k - 1] > ids[k])) ordered = false;
        order[k] = (uint32_t)k;
      }
      if (!ordered && pass == 0) nlists++;
      if (!ordered && pass == 1) {
        for (size_t x = 1; x < nuses; x++)
          for (size_t y = x; y > 0 && ids[order[y]] > ids[order[y - 1]]; y--) {
            uint32_t t = order[y];
            order[y] = order[y - 1];
            order[y - 1] = t;
          }
        size_t shuffled = 0;
        for (size_t x = 0; x < nuses; x++) shuffled += order[x] != x;
        bool pairs = shuffled < nuses / 2;
        if (n != 1) bcb_varint(b, (uint64_t)i);
        if (pairs) {
          bcb_varint_flag(b, shuffled * 2, true);
          for (size_t x = 0; x < nuses; x++)
            if (order[x] != x) {
              bcb_varint(b, order[x]);
              bcb_varint(b, x);
            }
        } else {
          bcb_varint_flag(b, nuses, false);
          for (size_t x = 0; x < nuses; x++) bcb_varint(b, order[x]);
        }
      }
      free(ids);
      free(order);
    }
  }
}

static void write_prop(BcW *w, const Op *op, const Attr *a) {
  BcBuf *b = w->out;
  if (is_module(op)) {
    if (a)
      bcb_varint_flag(b, number_of_attr(w, bcw_key_attr(BCD_BUILTIN, a)), true);
    else
      bcb_varint(b, 0);
    return;
  }
  bcb_varint(b, number_of_attr(w, bcw_key_attr(BCD_VHLO, a)));
}

static void write_region(IrWriter *ir, BcBuf *b, const Region *r);

static void write_op(IrWriter *ir, BcBuf *b, const Op *op) {
  BcW *w = ir->w;
  BcOpName *name = opname(w, op->name);
  bcb_varint(b, name->number);
  size_t mask_at = b->len;
  uint8_t mask = 0;
  bcb_byte(b, 0);
  bcb_varint(b, ir->unknown_loc);
  BcKey dict = op_dict_key(w, op);
  if (dict.nattrs) {
    mask |= 0x01;
    bcb_varint(b, number_of_attr(w, dict));
  }
  if (has_props(w, op)) {
    ir->scratch.len = 0;
    w->out = &ir->scratch;
    for_each_prop(w, op, write_prop);
    mask |= 0x40;
    bcb_varint(b, props_add(&ir->props, &ir->scratch));
  }
  if (op->nresults) {
    mask |= 0x02;
    bcb_varint(b, (uint64_t)op->nresults);
    for (int i = 0; i < op->nresults; i++) bcb_varint(b, number_of_type(w, value_dom(&op->results[i]), op->results[i].type));
  }
  if (op->noperands) {
    mask |= 0x04;
    bcb_varint(b, (uint64_t)op->noperands);
    for (int i = 0; i < op->noperands; i++) bcb_varint(b, value_id(w, op->operands[i]));
  }
  if (w->fmt >= BC_V_USE_LIST_ORDERING) write_use_lists(w, b, &mask, op->results, op->nresults);
  if (op->nregions) mask |= 0x10;
  b->data[mask_at] = mask;
  if (!op->nregions) return;
  bool isolated = is_isolated(w, op);
  bcb_varint_flag(b, (uint64_t)op->nregions, isolated);
  if (isolated && w->fmt >= BC_V_LAZY_LOADING) {
    BcBuf sec = {0};
    for (int r = 0; r < op->nregions; r++) write_region(ir, &sec, &op->regions[r]);
    bcb_section(b, BC_SEC_IR, &sec);
  } else {
    for (int r = 0; r < op->nregions; r++) write_region(ir, b, &op->regions[r]);
  }
}

static void write_block(IrWriter *ir, BcBuf *b, const Block *blk) {
  BcW *w = ir->w;
  uint64_t nops = 0;
  for (const Op *op = blk->first; op; op = op->next) nops++;
  bcb_varint_flag(b, nops, blk->nargs > 0);
  if (blk->nargs) {
    bcb_varint(b, (uint64_t)blk->nargs);
    for (int i = 0; i < blk->nargs; i++) {
      uint32_t t = number_of_type(w, value_dom(&blk->args[i]), blk->args[i].type);
      if (w->fmt >= BC_V_ELIDE_UNKNOWN_BLOCK_ARG_LOC) {
        bcb_varint_flag(b, t, false);
      } else {
        bcb_varint(b, t);
        bcb_varint(b, ir->unknown_loc);
      }
    }
    if (w->fmt >= BC_V_USE_LIST_ORDERING) {
      size_t mask_at = b->len;
      uint8_t mask = 0;
      bcb_byte(b, 0);
      write_use_lists(w, b, &mask, blk->args, blk->nargs);
      b->data[mask_at] = mask;
    }
  }
  for (const Op *op = blk->first; op; op = op->next) write_op(ir, b, op);
}

static void write_region(IrWriter *ir, BcBuf *b, const Region *r) {
  if (!r->nblocks) {
    bcb_varint(b, 0);
    return;
  }
  uint64_t nvalues = 0;
  for (int bi = 0; bi < r->nblocks; bi++) {
    nvalues += (uint64_t)r->blocks[bi]->nargs;
    for (const Op *op = r->blocks[bi]->first; op; op = op->next) nvalues += (uint64_t)op->nresults;
  }
  bcb_varint(b, (uint64_t)r->nblocks);
  bcb_varint(b, nvalues);
  for (int bi = 0; bi < r->nblocks; bi++) write_block(ir, b, r->blocks[bi]);
}

static void write_ir_section(IrWriter *ir, BcBuf *out, const Op *root) {
  BcBuf b = {0};
  bcb_varint_flag(&b, 1, false);
  write_op(ir, &b, root);
  bcb_section(out, BC_SEC_IR, &b);
}

static void write_tail_sections(BcW *w, IrWriter *ir, BcBuf *out) {
  BcBuf res_offsets = {0}, res = {0}, strings = {0};
  bcb_varint(&res_offsets, 0); /* no external resource printers */
  bcb_section(out, BC_SEC_RESOURCE_OFFSET, &res_offsets);
  bcb_section(out, BC_SEC_RESOURCE, &res);
  BcStrings *t = &w->strings;
  bcb_varint(&strings, t->count);
  for (size_t i = t->count; i-- > 0;) bcb_varint(&strings, t->n[i] + 1);
  for (size_t i = 0; i < t->count; i++) {
    bcb_bytes(&strings, t->s[i], t->n[i]);
    bcb_byte(&strings, 0);
  }
  bcb_section(out, BC_SEC_STRING, &strings);
  if (w->fmt >= BC_V_NATIVE_PROPERTIES) {
    BcBuf props = {0};
    bcb_varint(&props, ir->props.count);
    for (size_t i = 0; i < ir->props.count; i++) bcb_bytes(&props, ir->props.entries[i].data, ir->props.entries[i].len);
    bcb_section(out, BC_SEC_PROPERTIES, &props);
  }
}

static void writer_free(BcW *w) {
  free(w->opnames);
  free(w->attrs);
  free(w->types);
  free(w->slots);
  bcw_map_free(&w->values);
  bcw_map_free(&w->ops);
  bcw_map_free(&w->isolated);
  free(w->strings.s);
  free(w->strings.n);
  free(w->strings.slots);
}

bool bc_write_vhlo(Context *c, const Module *m, VhloVersion target, uint8_t **out, size_t *len) {
  *out = NULL;
  *len = 0;
  if (!vhlo_version_supported(target)) {
    diag_report(c, (Loc){0}, SEV_ERROR, "cannot write StableHLO version %d.%d.%d: versions %d.%d.%d to %d.%d.%d are supported",
                target.major, target.minor, target.patch, VHLO_VERSION_MINIMUM.major, VHLO_VERSION_MINIMUM.minor,
                VHLO_VERSION_MINIMUM.patch, VHLO_VERSION_CURRENT.major, VHLO_VERSION_CURRENT.minor,
                VHLO_VERSION_CURRENT.patch);
    return false;
  }
  if (!m || !m->op || !is_module(m->op)) die("bc_write_vhlo: not a module");
  BcW w = {.c = c, .vhlo_ops = vhlo_table(c), .target = target, .fmt = vhlo_bytecode_format(target), .numbering = true};
  number_ir(&w, m->op);
  w.cur_op = NULL;
  if (w.failed) {
    writer_free(&w);
    return false;
  }
  order_ents(w.attrs, w.nattrs);
  order_ents(w.types, w.ntypes);
  order_opnames(&w);

  BcBuf b = {0};
  char producer[64];
  snprintf(producer, sizeof producer, "StableHLO_v%d.%d.%d", target.major, target.minor, target.patch);
  bcb_bytes(&b, "ML\xefR", 4);
  bcb_varint(&b, (uint64_t)w.fmt);
  bcb_bytes(&b, producer, strlen(producer) + 1);
  write_dialect_section(&w, &b);
  write_attr_type_section(&w, &b);
  IrWriter ir = {.w = &w, .unknown_loc = number_of_attr(&w, unknown_loc())};
  write_ir_section(&ir, &b, m->op);
  write_tail_sections(&w, &ir, &b);
  props_free(&ir.props);
  bcb_free(&ir.scratch);
  writer_free(&w);
  *out = b.data;
  *len = b.len;
  return true;
}
