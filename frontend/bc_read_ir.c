/* MLIR bytecode reader: the IR section.  Ops are read in order with their
 * regions right after them (an isolated region in its own nested section
 * from format version 2); values are numbered per isolated region, each
 * region reserving its count; an operand may name a value defined later
 * (a forward reference, resolved when it is defined). */
#include <stdlib.h>
#include <string.h>

#include "frontend/bc_read.h"

/* Values of one isolated-from-above region (and the regions inside it). */
typedef struct Scope {
  Value **values;
  size_t len, cap;
} Scope;

typedef struct Ir {
  BcFile *b;
  int depth;
  int64_t forward; /* unresolved forward references */
  PtrVec orders;   /* BcUseOrder* */
} Ir;

/* Binds the use-list orders read for the values vals[] to them. */
static void bind_orders(Ir *st, const PtrVec *pending, Value *vals) {
  for (int i = 0; i < pending->len; i++) {
    BcUseOrder *u = pending->items[i];
    u->value = &vals[u->index];
    vec_push(&st->orders, u);
  }
}

typedef struct OpAttrsRow {
  const char *name, *attrs;
} OpAttrsRow;

static const OpAttrsRow vhlo_op_attrs[] = {
#define VHLO_OP(ID, name, kind, since, until, structs, constraints, attrs) {name, attrs},
#include "frontend/vhlo_ops.def"
#undef VHLO_OP
};

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* The inherent attribute names of VHLO op on in the order its properties
 * hold them (sorted, as ODS writes them), from its vhlo_ops.def row
 * (NAME[:RULE][=DEFAULT] words), computed once per op name; false for an
 * op VHLO does not have. */
static bool vhlo_prop_names(BcFile *b, BcOpName *on) {
  if (on->prop_names) return true;
  const char *attrs = NULL;
  for (size_t i = 0; i < sizeof vhlo_op_attrs / sizeof vhlo_op_attrs[0] && !attrs; i++)
    if (strcmp(vhlo_op_attrs[i].name, on->name) == 0) attrs = vhlo_op_attrs[i].attrs;
  if (!attrs) return false;
  int n = 0;
  const char **names = arena_alloc(&b->c->arena, sizeof(char *) * (strlen(attrs) / 2 + 1));
  for (const char *p = attrs; *p;) {
    size_t word = strcspn(p, " ");
    if (word) names[n++] = arena_strndup(&b->c->arena, p, strcspn(p, " :="));
    p += word + (p[word] == ' ');
  }
  qsort(names, (size_t)n, sizeof *names, cmp_str);
  on->prop_names = names;
  on->nprop_names = n;
  return true;
}

static void push_attr(BcFile *b, PtrVec *attrs, const char *name, Attr *value) {
  NamedAttr *na = arena_alloc(&b->c->arena, sizeof *na);
  na->name = name;
  na->value = value;
  vec_push(attrs, na);
}

static bool merge_dict(BcFile *b, BcCur *r, const Attr *d, PtrVec *attrs) {
  if (d->kind != ATTR_DICT) return bc_corrupt(b, r, "operation attributes are not a dictionary");
  for (int i = 0; i < d->u.dict.n; i++) push_attr(b, attrs, d->u.dict.items[i].name, d->u.dict.items[i].value);
  return true;
}

/* The properties of a registered op: builtin.module's optional sym_name and
 * sym_visibility, or a VHLO op's attributes in sorted-name order. */
static bool registered_properties(BcFile *b, BcCur *r, BcOpName *on, PtrVec *attrs) {
  uint64_t idx;
  size_t at = r->pos;
  if (!bc_varint(b, r, &idx)) return false;
  if (idx >= b->nprops) {
    r->pos = at;
    return bc_corrupt(b, r, "properties index %llu out of range (%llu entries)", (unsigned long long)idx, (unsigned long long)b->nprops);
  }
  BcCur sec = {b->prop_offsets[idx], b->sections[BC_SEC_PROPERTIES].end, "properties"}, p;
  if (!bc_blob(b, &sec, &p)) return false;
  if (strcmp(on->name, "builtin.module") == 0) {
    static const char *const names[] = {"sym_name", "sym_visibility"};
    for (int i = 0; i < 2; i++) {
      uint64_t a;
      bool present;
      BcCur ref = p;
      if (!bc_varint_flag(b, &p, &a, &present)) return false;
      if (!present) continue;
      Attr *v = bc_attr_at(b, &ref, a);
      if (!v) return false;
      push_attr(b, attrs, names[i], v);
    }
  } else if ((int)on->dialect == b->vhlo) {
    if (!vhlo_prop_names(b, on)) return bc_refuse(b, "unknown VHLO operation '%s' (producer %s)", on->name, b->info->producer);
    for (int i = 0; i < on->nprop_names; i++) {
      Attr *v = bc_attr(b, &p);
      if (!v) return false;
      push_attr(b, attrs, on->prop_names[i], v);
    }
  } else {
    return bc_refuse(b, "the properties of operation '%s' are in an encoding this reader does not know", on->name);
  }
  if (p.pos != p.end) return bc_corrupt(b, &p, "trailing bytes in the properties of '%s'", on->name);
  return true;
}

/* Defines values[*next ..] as vals (resolving forward references). */
static bool define_values(Ir *st, BcCur *r, Scope *sc, size_t *next, size_t end, Value *vals, int n) {
  BcFile *b = st->b;
  if ((size_t)n > end - *next) return bc_corrupt(b, r, "more values defined than the region declared");
  for (int i = 0; i < n; i++, (*next)++) {
    Value *old = sc->values[*next];
    if (old) {
      value_replace_all_uses(b->c, old, &vals[i]);
      st->forward--;
    }
    sc->values[*next] = &vals[i];
  }
  return true;
}

static Value *read_operand(Ir *st, BcCur *r, Scope *sc) {
  BcFile *b = st->b;
  uint64_t idx;
  size_t at = r->pos;
  if (!bc_varint(b, r, &idx)) return NULL;
  if (idx >= sc->len) {
    r->pos = at;
    bc_corrupt(b, r, "value index %llu out of range (%zu values)", (unsigned long long)idx, sc->len);
    return NULL;
  }
  if (!sc->values[idx]) {
    sc->values[idx] = arena_alloc(&b->c->arena, sizeof(Value));
    sc->values[idx]->type = type_none(b->c);
    st->forward++;
  }
  return sc->values[idx];
}

static bool read_region(Ir *st, BcCur *r, Region *reg, Scope *sc);

/* The regions of op: nested in their own IR section when isolated (v2+). */
static bool read_op_regions(Ir *st, BcCur *r, Op *op, bool isolated, Scope *sc) {
  BcFile *b = st->b;
  if (++st->depth > BC_MAX_DEPTH) return bc_corrupt(b, r, "regions nested too deeply");
  BcCur inner = *r, *rr = r;
  if (isolated && b->version >= BC_V_LAZY_LOADING) {
    uint8_t id;
    if (!bc_section(b, r, &id, &inner)) return false;
    if (id != BC_SEC_IR) return bc_corrupt(b, r, "expected an IR section for a region, found section %u", id);
    inner.section = "IR";
    rr = &inner;
  }
  Scope own = {0};
  Scope *use = isolated ? &own : sc;
  bool ok = true;
  for (int i = 0; ok && i < op->nregions; i++) ok = read_region(st, rr, &op->regions[i], use);
  free(own.values);
  if (ok && rr == &inner && inner.pos != inner.end) ok = bc_corrupt(b, &inner, "trailing bytes after the regions of '%s'", op->name);
  st->depth--;
  return ok;
}

/* One op: name, mask, location, attributes, properties, results, operands,
 * successors, use-lists, region count; then its regions. */
static Op *read_op(Ir *st, BcCur *r, Scope *sc, size_t *next, size_t end, bool define) {
  BcFile *b = st->b;
  uint64_t idx;
  uint8_t mask;
  size_t at = r->pos;
  if (!bc_varint(b, r, &idx)) return NULL;
  if (idx >= b->nopnames) {
    r->pos = at;
    bc_corrupt(b, r, "operation name index %llu out of range", (unsigned long long)idx);
    return NULL;
  }
  BcOpName *on = &b->opnames[idx];
  if (!bc_byte(b, r, &mask)) return NULL;
  if (mask & 0x80) {
    r->pos--;
    bc_corrupt(b, r, "unknown operation encoding bits 0x%02X", mask);
    return NULL;
  }
  BcLoc *loc = bc_loc(b, r);
  if (!loc) return NULL;
  PtrVec attrs = {0};
  PtrVec types = {0}, operands = {0};
  Op *op = NULL;
  uint64_t nregions = 0;
  bool isolated = false, ok = true;
  if (mask & 0x01) {
    Attr *d = bc_attr(b, r);
    ok = d && merge_dict(b, r, d, &attrs);
  }
  if (ok && (mask & 0x40)) {
    if (on->registered < 0) ok = bc_corrupt(b, r, "properties in format version %llu", (unsigned long long)b->version);
    else if (on->registered) ok = registered_properties(b, r, on, &attrs);
    else {
      Attr *d = bc_attr(b, r);
      ok = d && merge_dict(b, r, d, &attrs);
    }
  }
  uint64_t n;
  if (ok && (mask & 0x02)) {
    ok = bc_count(b, r, 1, &n);
    for (uint64_t i = 0; ok && i < n; i++) {
      Type *t = bc_type(b, r);
      if (t) vec_push(&types, t);
      ok = t != NULL;
    }
  }
  if (ok && (mask & 0x04)) {
    ok = bc_count(b, r, 1, &n);
    for (uint64_t i = 0; ok && i < n; i++) {
      Value *v = read_operand(st, r, sc);
      if (v) vec_push(&operands, v);
      ok = v != NULL;
    }
  }
  if (ok && (mask & 0x08)) ok = bc_refuse(b, "operation '%s' has block successors, which StableHLO does not use", on->name);
  PtrVec orders = {0};
  if (ok && (mask & 0x20) && b->version >= BC_V_USE_LIST_ORDERING) ok = bc_read_use_lists(b, r, (uint64_t)types.len, &orders);
  if (ok && (mask & 0x10)) {
    ok = bc_varint_flag(b, r, &nregions, &isolated);
    if (ok && nregions > r->end - r->pos + 1024) ok = bc_corrupt(b, r, "%llu regions", (unsigned long long)nregions);
  }
  if (ok) {
    NamedAttr *na = arena_alloc(&b->c->arena, sizeof(NamedAttr) * (size_t)(attrs.len ? attrs.len : 1));
    for (int i = 0; i < attrs.len; i++) na[i] = *(NamedAttr *)attrs.items[i];
    bool module = strcmp(on->name, "builtin.module") == 0;
    op = op_create(b->c, module ? OP_MODULE : OP_UNKNOWN, module ? NULL : on->name, loc->loc, operands.len,
                   (Value **)operands.items, types.len, (Type **)types.items, attrs.len, na, (int)nregions);
    for (int i = 1; i < op->nattrs; i++)
      if (strcmp(op->attrs[i - 1].name, op->attrs[i].name) == 0) {
        bc_corrupt(b, r, "attribute '%s' given twice on '%s'", op->attrs[i].name, on->name);
        op = NULL;
        break;
      }
  }
  if (op) {
    if (strcmp(loc->text, "unknown") != 0) {
      if (!loc->srcloc) loc->srcloc = bc_cat(b, "loc(", loc->text, ")");
      op->srcloc = loc->srcloc;
    }
    bind_orders(st, &orders, op->results);
    if (define && !define_values(st, r, sc, next, end, op->results, op->nresults)) op = NULL;
  }
  vec_free(&attrs);
  vec_free(&types);
  vec_free(&operands);
  vec_free(&orders);
  if (op && nregions && !read_op_regions(st, r, op, isolated, sc)) return NULL;
  return op;
}

/* A block header (op count, arguments, their use-lists) and its ops. */
static bool read_block(Ir *st, BcCur *r, Region *reg, Scope *sc, size_t *next, size_t end) {
  BcFile *b = st->b;
  uint64_t nops, nargs = 0;
  bool has_args;
  if (!bc_varint_flag(b, r, &nops, &has_args)) return false;
  if (nops > r->end - r->pos) return bc_corrupt(b, r, "%llu operations exceed the data", (unsigned long long)nops);
  Type **types = NULL;
  if (has_args) {
    if (!bc_count(b, r, 1, &nargs)) return false;
    types = arena_alloc(&b->c->arena, sizeof(Type *) * (size_t)(nargs ? nargs : 1));
    for (uint64_t i = 0; i < nargs; i++) {
      bool has_loc = true;
      if (b->version >= BC_V_ELIDE_UNKNOWN_BLOCK_ARG_LOC) {
        uint64_t t;
        BcCur ref = *r;
        if (!bc_varint_flag(b, r, &t, &has_loc)) return false;
        types[i] = bc_type_at(b, &ref, t);
      } else {
        types[i] = bc_type(b, r);
      }
      if (!types[i] || (has_loc && !bc_loc(b, r))) return false;
    }
  }
  Block *blk = block_create(b->c, reg, (int)nargs, types);
  region_add_block(b->c, reg, blk);
  if (!define_values(st, r, sc, next, end, blk->args, blk->nargs)) return false;
  if (b->version >= BC_V_USE_LIST_ORDERING && has_args) {
    uint8_t has_orders;
    if (!bc_byte(b, r, &has_orders)) return false;
    PtrVec orders = {0};
    bool ok = !has_orders || bc_read_use_lists(b, r, nargs, &orders);
    if (ok) bind_orders(st, &orders, blk->args);
    vec_free(&orders);
    if (!ok) return false;
  }
  for (uint64_t i = 0; i < nops; i++) {
    Op *op = read_op(st, r, sc, next, end, end > 0);
    if (!op) return false;
    op_append(blk, op);
  }
  return true;
}

/* A region: block count, value count, then each block. */
static bool read_region(Ir *st, BcCur *r, Region *reg, Scope *sc) {
  BcFile *b = st->b;
  uint64_t nblocks, nvalues;
  if (!bc_count(b, r, 1, &nblocks)) return false;
  if (nblocks == 0) return true;
  if (!bc_count(b, r, 1, &nvalues)) return false;
  size_t base = sc->len;
  if (sc->len + nvalues > sc->cap) {
    size_t cap = sc->len + (size_t)nvalues + 16;
    sc->values = xrealloc(sc->values, sizeof(Value *) * cap);
    sc->cap = cap;
  }
  if (nvalues) memset(sc->values + base, 0, sizeof(Value *) * (size_t)nvalues);
  sc->len = base + (size_t)nvalues;
  size_t next = base, end = base + (size_t)nvalues;
  bool ok = true;
  for (uint64_t i = 0; ok && i < nblocks; i++) ok = read_block(st, r, reg, sc, &next, end);
  sc->len = base;
  return ok;
}

Op *bc_read_ir(BcFile *b) {
  Ir st = {.b = b};
  BcCur r = b->sections[BC_SEC_IR];
  Region top = {0};
  Scope sc = {0};
  size_t next = 0;
  bool ok = read_block(&st, &r, &top, &sc, &next, 0);
  free(sc.values);
  Block *blk = ok ? top.blocks[0] : NULL;
  if (!ok) {
  } else if (r.pos != r.end) {
    ok = bc_corrupt(b, &r, "trailing bytes after the top-level operations");
  } else if (st.forward != 0) {
    ok = bc_corrupt(b, &r, "%lld values used but never defined", (long long)st.forward);
  } else if (blk->nargs || !blk->first || blk->first != blk->last || blk->first->kind != OP_MODULE ||
             blk->first->nregions != 1) {
    ok = bc_refuse(b, "the bytecode does not hold exactly one builtin.module with one region");
  } else {
    blk->first->parent = NULL;
    ok = bc_apply_use_lists(b, blk->first, &st.orders);
  }
  vec_free(&st.orders);
  return ok ? blk->first : NULL;
}
