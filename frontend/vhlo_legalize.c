/* VHLO form <-> StableHLO IR (frontend/vhlo.h), both directions, each op
 * driven by its row of frontend/vhlo_ops.def: upstream's
 * VhloLegalizeToStablehlo.cpp, StablehloLegalizeToVhlo.cpp and the
 * op-version changes of VhloToVersion.cpp. */
#include <stdlib.h>
#include <string.h>

#include "frontend/vhlo_legalize.h"
#include "ir/quant.h"

typedef struct Legalize {
  Context *c;
  VhloTable *t;
  const BcInfo *info;
  VhloVersion target;
  bool ok;
  PtrVec casts;    /* builtin.unrealized_conversion_cast ops of a mixed module */
  ValueMap twins;  /* a value -> its cast into the other domain (StableHLO -> VHLO) */
} Legalize;

#define CAST_OP "builtin.unrealized_conversion_cast"


#define V3(v) (v).major, (v).minor, (v).patch

/* The spatial or window rank of op, for the defaults sized by it: its
 * window_dimensions' length, else its first operand's rank less two. */
static int window_rank(const Op *op, Arena *scratch) {
  int n;
  const int64_t *v;
  const Attr *w = op_attr(op, "window_dimensions");
  if (w && attr_as_i64_list(w, &n, &v, scratch)) return n;
  if (op->noperands && type_is_tensor(op->operands[0]->type) && op->operands[0]->type->rank >= 2)
    return op->operands[0]->type->rank - 2;
  return 0;
}

/* Whether a VHLO custom call's api_version (enum) or a StableHLO one's
 * (i32) is the typed FFI. */
static bool typed_ffi(const Attr *api) {
  if (!api) return false;
  if (api->kind == ATTR_INT) return api->u.i == 4;
  const char *e = attr_enum_value(api);
  return e && strcmp(e, "API_VERSION_TYPED_FFI") == 0;
}

/* Whether VHLO attribute spec's value v is elided in StableHLO. */
static bool elided(const VhloAttrSpec *spec, const Attr *v, const AttrList *in) {
  if (spec->def == VD_LAYOUTS)
    return vhlo_is_default(alist_get(in, "operand_layouts"), VD_ARR) &&
           vhlo_is_default(alist_get(in, "result_layouts"), VD_ARR);
  return vhlo_is_default(v, spec->def);
}

/* The StableHLO kind of a VHLO op of row: vhlo.return_v1 directly in a
 * function is func.return. */
static OpKind stablehlo_kind(const VhloOpRow *row, const Op *op) {
  if (row->kind != OP_RETURN || !op->parent || !op->parent->parent) return row->kind;
  const Op *parent = op->parent->parent->parent;
  if (parent && (parent->kind == OP_FUNC || strcmp(parent->name, "vhlo.func_v1") == 0)) return OP_FUNC_RETURN;
  return row->kind;
}

/* Reports an op name no VHLO version knows. */
static void unknown_vhlo_op(Legalize *l, const Op *op) {
  const BcInfo *i = l->info;
  if (i && i->has_vhlo_version)
    op_error(l->c, op, "unknown VHLO op '%s' (the artifact is from %s, VHLO version %d.%d.%d; this reader knows VHLO "
             "up to %d.%d.%d)", op->name, i->producer ? i->producer : "an unknown producer", V3(i->vhlo),
             V3(VHLO_VERSION_CURRENT));
  else
    op_error(l->c, op, "unknown VHLO op '%s' (the artifact is from %s; this reader knows VHLO up to %d.%d.%d)",
             op->name, i && i->producer ? i->producer : "an unknown producer", V3(VHLO_VERSION_CURRENT));
}

/* A VHLO op into its StableHLO op, in place: an older version read as the
 * current one (missing attributes at their defaults), defaults elided,
 * each attribute by its rule, groups into structures. */
static bool op_to_stablehlo(Legalize *l, Op *op) {
  Context *c = l->c;
  if (op->kind != OP_UNKNOWN) return true;
  const VhloOpRow *row = vhlo_row_by_name(l->t, op->name);
  if (!row) {
    if (strcmp(op->name, CAST_OP) == 0) vec_push(&l->casts, op);
    if (strncmp(op->name, "vhlo.", 5) == 0) {
      unknown_vhlo_op(l, op);
      return false;
    }
    OpKind k = op_kind_from_name(op->name, strlen(op->name));
    if (k != OP_UNKNOWN) op->kind = k, op->name = op_info[k].name;
    return true;
  }
  const VhloOpRow *cur = vhlo_row_current(l->t, row->kind);
  AttrList in = {0}, out = {0};
  for (int i = 0; i < op->nattrs; i++) alist_push(&in, op->attrs[i].name, op->attrs[i].value);
  for (int i = 0; i < cur->nattrs; i++) {
    const VhloAttrSpec *s = &cur->attrs[i];
    if (!alist_get(&in, s->name) && s->def != VD_NONE && !vhlo_row_attr(row, s->name))
      alist_push(&in, s->name, vhlo_default_value(c, s->def, window_rank(op, &c->arena),
                                                   typed_ffi(alist_get(&in, "api_version"))));
  }
  bool ok = true;
  for (int i = 0; i < cur->nattrs && ok; i++) {
    const VhloAttrSpec *s = &cur->attrs[i];
    Attr *v = alist_get(&in, s->name);
    if (!v || struct_member(cur->structs, s->name) || elided(s, v, &in)) continue;
    Attr *a = rule_to_stablehlo(c, s->rule, v);
    if (!a) {
      op_error(c, op, "has an invalid '%s' attribute", s->name);
      ok = false;
    } else {
      alist_push(&out, rule_stablehlo_name(s->rule, s->name), a);
    }
  }
  if (ok && !structs_to_stablehlo(c, cur->structs, &in, &out)) {
    op_error(c, op, "has invalid dimension numbers, channel or algorithm attributes");
    ok = false;
  }
  for (int i = 0; i < op->nattrs; i++)
    if (!vhlo_row_attr(cur, op->attrs[i].name) && !vhlo_row_attr(row, op->attrs[i].name))
      alist_push(&out, op->attrs[i].name, op->attrs[i].value);
  free(in.items);
  if (!ok) {
    free(out.items);
    return false;
  }
  op->kind = stablehlo_kind(cur, op);
  op->name = op_info[op->kind].name;
  alist_install(c, op, &out);
  return true;
}

/* ---- StableHLO -> VHLO ---- */

/* The version that introduced attribute NAME of kind's ops (the oldest row
 * that has it). */
static VhloVersion attr_since(const VhloTable *t, OpKind kind, const char *name) {
  VhloVersion v = VHLO_VERSION_CURRENT;
  for (int i = 0; i < t->n; i++)
    if (t->rows[i].kind == kind && vhlo_row_attr(&t->rows[i], name) && vhlo_version_cmp(t->rows[i].since, v) < 0)
      v = t->rows[i].since;
  return v;
}

/* The version that introduced kind's ops. */
static VhloVersion kind_since(const VhloTable *t, OpKind kind) {
  VhloVersion v = VHLO_VERSION_CURRENT;
  for (int i = 0; i < t->n; i++)
    if (t->rows[i].kind == kind && vhlo_version_cmp(t->rows[i].since, v) < 0) v = t->rows[i].since;
  return v;
}

/* Whether operand i and result i have the same element type for each i. */
static bool same_elements(const Op *op) {
  for (int i = 0; i < op->noperands && i < op->nresults; i++) {
    const Type *a = op->operands[i]->type, *b = op->results[i].type;
    if (type_is_tensor(a) && type_is_tensor(b) && (a->elem != b->elem || a->elem_opaque != b->elem_opaque))
      return false;
  }
  return true;
}

/* The versioned constraints of row at target l->target; false after a
 * diagnostic. */
static bool check_constraints(Legalize *l, const Op *op, const VhloOpRow *row,
                              const AttrList *attrs) {
  Context *c = l->c;
  VhloVersion t = l->target;
  unsigned k = row->constraints;
  if ((k & C_ONE_OPERAND) && op->noperands != 1) {
    op_error(c, op, "with %d operands needs StableHLO 1.5.0 (%s has one operand at %d.%d.%d)", op->noperands,
             row->name, V3(t));
    return false;
  }
  if ((k & C_NO_REGIONS) && op->nregions) {
    op_error(c, op, "with regions needs StableHLO 1.14.0 (target %d.%d.%d)", V3(t));
    return false;
  }
  if ((k & C_SAME_ELEMENTS_0_17) && vhlo_version_cmp(t, (VhloVersion){0, 17, 0}) < 0 && !same_elements(op)) {
    op_error(c, op, "with result element types unlike its operands' needs StableHLO 0.17.0 (target %d.%d.%d)", V3(t));
    return false;
  }
  if ((k & C_CUSTOM_CALL_1_3) && vhlo_version_cmp(t, (VhloVersion){1, 3, 0}) < 0) {
    const Attr *cfg = alist_get(attrs, "backend_config");
    if ((cfg && cfg->kind == ATTR_DICT) || typed_ffi(alist_get(attrs, "api_version"))) {
      op_error(c, op, "with a dictionary backend_config or the typed FFI needs StableHLO 1.3.0 (target %d.%d.%d)",
               V3(t));
      return false;
    }
  }
  if ((k & C_NO_FUTURE_OPERANDS_1_17) && vhlo_version_cmp(t, (VhloVersion){1, 17, 0}) < 0)
    for (int i = 0; i < op->noperands; i++)
      if (op->operands[i]->type->kind == TY_FUTURE) {
        op_error(c, op, "with a future operand needs StableHLO 1.17.0 (target %d.%d.%d)", V3(t));
        return false;
      }
  return true;
}

/* The version that introduced element type k in VHLO (vhlo_codes.def);
 * the minimum for kinds VHLO does not have (the writer refuses those). */
static VhloVersion elem_since(ElemKind k) {
  static const struct {
    ElemKind k;
    const char *since;
  } elems[] = {
#define VHLO_ELEM_TYPE(code, kind, since) {ELEM_##kind, since},
#include "frontend/vhlo_codes.def"
#undef VHLO_ELEM_TYPE
  };
  VhloVersion v = VHLO_VERSION_MINIMUM;
  for (size_t i = 0; i < sizeof elems / sizeof elems[0]; i++)
    if (elems[i].k == k && !vhlo_version_parse(elems[i].since, &v)) die("vhlo_codes.def: bad version");
  return v;
}

static VhloVersion newer(VhloVersion a, VhloVersion b) { return vhlo_version_cmp(a, b) < 0 ? b : a; }

/* The version that introduced everything type t is made of. */
static VhloVersion type_since(const Type *t, int depth) {
  VhloVersion v = VHLO_VERSION_MINIMUM;
  if (!t || depth > 64) return v;
  switch (t->kind) {
  case TY_ELEM: return elem_since(elem_is_complex(t->elem) ? elem_complex_part(t->elem) : t->elem);
  case TY_TENSOR:
    return t->elem_opaque ? type_since(t->elem_opaque, depth + 1)
                          : elem_since(elem_is_complex(t->elem) ? elem_complex_part(t->elem) : t->elem);
  case TY_NONE: return (VhloVersion){1, 6, 0};
  case TY_OPAQUE:
    if (t->quant && t->quant->axis >= 0) return (VhloVersion){0, 18, 0};
    return strncmp(t->text, "memref<", 7) == 0 ? (VhloVersion){1, 13, 0} : v;
  case TY_FUTURE: v = (VhloVersion){1, 15, 0}; /* fall through */
  case TY_TUPLE:
    for (int i = 0; i < t->ninputs; i++) v = newer(v, type_since(t->inputs[i], depth + 1));
    return v;
  case TY_FUNC:
    for (int i = 0; i < t->ninputs; i++) v = newer(v, type_since(t->inputs[i], depth + 1));
    for (int i = 0; i < t->nresults; i++) v = newer(v, type_since(t->results[i], depth + 1));
    return v;
  case TY_TOKEN: return v;
  }
  return v;
}

/* The version that introduced VHLO attribute #stablehlo.NAME (nlen bytes;
 * vhlo_codes.def's mnemonic NAME_v1); the minimum if VHLO has no such. */
static VhloVersion dialect_attr_since(const char *name, size_t nlen) {
  static const struct {
    const char *mnemonic, *since;
  } attrs[] = {
#define VHLO_ATTR(id, code, mnemonic, since) {mnemonic, since},
#include "frontend/vhlo_codes.def"
#undef VHLO_ATTR
  };
  VhloVersion v = VHLO_VERSION_MINIMUM;
  for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++) {
    size_t ml = strlen(attrs[i].mnemonic) - 3; /* less "_v1" */
    if (ml == nlen && memcmp(attrs[i].mnemonic, name, ml) == 0 && !vhlo_version_parse(attrs[i].since, &v))
      die("vhlo_codes.def: bad version");
  }
  return v;
}

/* The version that introduced everything attribute a is made of (its
 * #stablehlo structures, nested attributes and types). */
static VhloVersion attr_version(const Attr *a, int depth) {
  VhloVersion v = VHLO_VERSION_MINIMUM;
  if (!a || depth > 64) return v;
  if (a->type) v = type_since(a->type, depth + 1);
  switch (a->kind) {
  case ATTR_ARRAY:
    for (int i = 0; i < a->u.array.n; i++) v = newer(v, attr_version(a->u.array.items[i], depth + 1));
    return v;
  case ATTR_DICT:
    for (int i = 0; i < a->u.dict.n; i++) v = newer(v, attr_version(a->u.dict.items[i].value, depth + 1));
    return v;
  case ATTR_DIALECT:
    if (strncmp(a->u.dialect.name, "stablehlo.", 10) == 0)
      v = newer(v, dialect_attr_since(a->u.dialect.name + 10, strlen(a->u.dialect.name + 10)));
    for (int i = 0; i < a->u.dialect.n; i++) v = newer(v, attr_version(a->u.dialect.params[i].value, depth + 1));
    return v;
  case ATTR_OPAQUE:
    if (a->u.str.len > 11 && strncmp(a->u.str.s, "#stablehlo.", 11) == 0)
      v = newer(v, dialect_attr_since(a->u.str.s + 11, strcspn(a->u.str.s + 11, "<")));
    return v;
  default: return v;
  }
}

/* Whether op's attributes (VHLO form) exist at l->target; false after a
 * diagnostic naming the first that does not. */
static bool check_attrs(Legalize *l, const Op *op, const AttrList *attrs) {
  for (int i = 0; i < attrs->n; i++) {
    VhloVersion since = attr_version(attrs->items[i].value, 0);
    if (vhlo_version_cmp(since, l->target) > 0) {
      op_error(l->c, op, "attribute '%s' needs StableHLO %d.%d.%d (target %d.%d.%d)", attrs->items[i].name,
               V3(since), V3(l->target));
      return false;
    }
  }
  return true;
}

/* Whether type t exists at l->target; false after a diagnostic on op. */
static bool check_type(Legalize *l, const Op *op, const Type *t) {
  int nb;
  if (t->kind == TY_TENSOR && t->encoding && !type_has_bounds(t, &nb)) {
    op_error(l->c, op, "uses type '%s', whose encoding VHLO cannot hold (only bounds)", type_to_string(l->c, t));
    return false;
  }
  VhloVersion since = type_since(t, 0);
  if (vhlo_version_cmp(since, l->target) <= 0) return true;
  op_error(l->c, op, "uses type '%s', which needs StableHLO %d.%d.%d (target %d.%d.%d)", type_to_string(l->c, t),
           V3(since), V3(l->target));
  return false;
}

/* The types of op's operands, results and block arguments at l->target. */
static bool check_types(Legalize *l, const Op *op) {
  for (int i = 0; i < op->noperands; i++)
    if (!check_type(l, op, op->operands[i]->type)) return false;
  for (int i = 0; i < op->nresults; i++)
    if (!check_type(l, op, op->results[i].type)) return false;
  for (int r = 0; r < op->nregions; r++)
    for (int b = 0; b < op->regions[r].nblocks; b++)
      for (int i = 0; i < op->regions[r].blocks[b]->nargs; i++)
        if (!check_type(l, op, op->regions[r].blocks[b]->args[i].type)) return false;
  return true;
}

/* The attributes of row `cur` in `attrs` rewritten for the older row `old`
 * (attributes it lacks must hold their defaults; ones only it has get
 * theirs); false after a diagnostic naming the attribute and the version
 * that introduced it. */
static bool downgrade_attrs(Legalize *l, Op *op, const VhloOpRow *cur, const VhloOpRow *old,
                            AttrList *attrs) {
  AttrList out = {0};
  bool ok = true;
  for (int i = 0; i < attrs->n; i++) {
    const char *name = attrs->items[i].name;
    const VhloAttrSpec *s = vhlo_row_attr(cur, name);
    if (!s || vhlo_row_attr(old, name)) {
      alist_push(&out, name, attrs->items[i].value);
    } else if (!vhlo_is_default(attrs->items[i].value, s->def == VD_NONE ? VD_EMPTY : s->def)) {
      VhloVersion since = attr_since(l->t, cur->kind, name);
      op_error(l->c, op, "needs StableHLO %d.%d.%d for its '%s' (target %d.%d.%d)", V3(since), name, V3(l->target));
      ok = false;
    }
  }
  for (int i = 0; i < old->nattrs; i++)
    if (!vhlo_row_attr(cur, old->attrs[i].name))
      alist_push(&out, old->attrs[i].name,
                 vhlo_default_value(l->c, old->attrs[i].def, window_rank(op, &l->c->arena), false));
  free(attrs->items);
  *attrs = out;
  return ok;
}

/* Whether StableHLO attribute NAME is one row's rules or structures read. */
static bool stablehlo_attr_of(const VhloOpRow *row, const char *name) {
  for (int i = 0; i < row->nattrs; i++)
    if (strcmp(rule_stablehlo_name(row->attrs[i].rule, row->attrs[i].name), name) == 0) return true;
  return struct_attr(row->structs, name);
}

/* A StableHLO op into its VHLO op at l->target, in place. */
static bool op_to_vhlo(Legalize *l, Op *op) {
  Context *c = l->c;
  OpKind kind = op->kind == OP_FUNC_RETURN ? OP_RETURN : op->kind;
  const VhloOpRow *cur = op->kind == OP_MODULE ? NULL : vhlo_row_current(l->t, kind);
  if (!cur) return true;
  AttrList out = {0};
  bool ffi = typed_ffi(op_attr(op, "api_version"));
  bool ok = true;
  for (int i = 0; i < cur->nattrs && ok; i++) {
    const VhloAttrSpec *s = &cur->attrs[i];
    if (struct_member(cur->structs, s->name)) continue;
    const Attr *a = op_attr(op, rule_stablehlo_name(s->rule, s->name));
    Attr *v = a ? rule_to_vhlo(c, s->rule, (Attr *)a)
                : s->def != VD_NONE ? vhlo_default_value(c, s->def, window_rank(op, &c->arena), ffi)
                : s->rule == VR_UNIT ? attr_bool(c, false) : NULL;
    if (a && !v) {
      op_error(c, op, "has an invalid '%s' attribute", rule_stablehlo_name(s->rule, s->name));
      ok = false;
    } else if (v) {
      alist_push(&out, s->name, v);
    }
  }
  ok = ok && structs_to_vhlo(c, op, cur->structs, &out);
  for (int i = 0; i < op->nattrs; i++) {
    const char *name = op->attrs[i].name;
    if (!alist_get(&out, name) && !stablehlo_attr_of(cur, name)) alist_push(&out, name, generic_to_vhlo(c, op->attrs[i].value));
  }
  const VhloOpRow *row = ok ? vhlo_row_at(l->t, kind, l->target) : cur;
  if (!row) {
    op_error(c, op, "is not in StableHLO %d.%d.%d: it was introduced in %d.%d.%d", V3(l->target),
             V3(kind_since(l->t, kind)));
    ok = false;
  }
  if (ok && row != cur) ok = downgrade_attrs(l, op, cur, row, &out);
  if (ok) ok = check_constraints(l, op, row, &out) && check_types(l, op) && check_attrs(l, op, &out);
  if (!ok) {
    free(out.items);
    return false;
  }
  op->kind = OP_UNKNOWN;
  op->name = row->name;
  alist_install(c, op, &out);
  return true;
}

/* ---- mixed modules: casts between VHLO and other dialects ---- */

static bool is_vhlo_op(const Op *op) { return strncmp(op->name, "vhlo.", 5) == 0; }

static bool is_cast_op(const Op *op) { return strcmp(op->name, CAST_OP) == 0; }

/* Whether v is VHLO-typed in VHLO form: defined by a VHLO op (or an
 * argument of one's region); a cast's result is the other of its operand. */
static bool vhlo_valued(const Value *v) {
  bool flip = false;
  for (int depth = 0; depth < 64 && v->def && is_cast_op(v->def) && v->def->noperands == 1; depth++) {
    flip = !flip;
    v = v->def->operands[0];
  }
  const Op *owner = v->def ? v->def : v->block && v->block->parent ? v->block->parent->parent : NULL;
  return (owner && is_vhlo_op(owner)) != flip;
}

/* The cast of v into the other domain: one per value, right after its
 * definition (at its block's start for a block argument), as upstream's
 * conversion materializes them. */
static Value *twin(Legalize *l, Value *v) {
  Value *t = value_map_get(&l->twins, v);
  if (t) return t;
  Type *ty = v->type;
  Op *cast = op_create(l->c, OP_UNKNOWN, CAST_OP, v->def ? v->def->loc : v->block->loc, 1, &v, 1, &ty, 0, NULL, 0);
  if (v->def) op_insert_after(v->def, cast);
  else if (v->block->first) op_insert_before(v->block->first, cast);
  else op_append(v->block, cast);
  value_map_put(l->c, &l->twins, v, &cast->results[0]);
  return &cast->results[0];
}

/* Operands of op whose domain is not op's get their cast (StableHLO ->
 * VHLO of a mixed module: other dialects' ops keep builtin-typed values). */
static bool insert_casts(Legalize *l, Op *op) {
  if (op->kind == OP_MODULE || is_cast_op(op)) return true;
  bool want = is_vhlo_op(op);
  for (int i = 0; i < op->noperands; i++)
    if (vhlo_valued(op->operands[i]) != want) op_set_operand(l->c, op, i, twin(l, op->operands[i]));
  return true;
}

/* ---- walking ---- */

typedef bool (*OpFn)(Legalize *l, Op *op);

/* Applies fn to every op nested in op's regions (parents first). */
static void walk(Legalize *l, Op *op, OpFn fn, int depth) {
  if (depth > 4096) die("IR nested too deeply");
  for (int r = 0; r < op->nregions; r++)
    for (int b = 0; b < op->regions[r].nblocks; b++)
      for (Op *o = op->regions[r].blocks[b]->first; o; o = o->next) {
        if (!fn(l, o)) l->ok = false;
        walk(l, o, fn, depth + 1);
      }
}

/* Removes the casts between a VHLO type and its builtin twin that a mixed
 * module's artifact wraps other dialects' ops in: in our IR both are one
 * type, so each is an identity (upstream reconciles them pairwise). */
static void drop_identity_casts(Legalize *l) {
  for (int i = 0; i < l->casts.len; i++) {
    Op *cast = l->casts.items[i];
    bool same = cast->noperands == cast->nresults;
    for (int k = 0; same && k < cast->noperands; k++) same = cast->operands[k]->type == cast->results[k].type;
    if (!same) continue;
    for (int k = 0; k < cast->nresults; k++) value_replace_all_uses(l->c, &cast->results[k], cast->operands[k]);
    op_erase(cast);
  }
  vec_free(&l->casts);
}

bool vhlo_to_stablehlo(Context *c, Module *m, const BcInfo *info) {
  Legalize l = {c, vhlo_table(c), info, VHLO_VERSION_CURRENT, true, {0}, {0}};
  walk(&l, m->op, op_to_stablehlo, 0);
  drop_identity_casts(&l);
  return l.ok;
}

bool stablehlo_to_vhlo(Context *c, Module *m, VhloVersion target) {
  Legalize l = {c, vhlo_table(c), NULL, target, true, {0}, {0}};
  if (!vhlo_version_supported(target)) {
    diag_report(c, m->op->loc, SEV_ERROR, "StableHLO version %d.%d.%d is outside the supported %d.%d.%d to %d.%d.%d",
                V3(target), V3(VHLO_VERSION_MINIMUM), V3(VHLO_VERSION_CURRENT));
    return false;
  }
  walk(&l, m->op, op_to_vhlo, 0);
  if (l.ok) walk(&l, m->op, insert_casts, 0);
  return l.ok;
}
