/* The sharding check that runs before every pipeline (passes/pass.h) and
 * in `tpucc --verify-only`: every sharding annotation of the program is
 * read (ir/sharding.h) and fitted to the value it annotates, with a
 * located error naming the value for each one that is malformed or does
 * not fit (docs/spmd.md, "Annotations read"):
 *
 *   mhlo.sharding     GSPMD strings on function arguments and results
 *                     (arg_attrs / res_attrs) and on any op (tuple
 *                     shardings for multi-result ops), the annotation
 *                     custom calls included;
 *   sdy.sharding      #sdy.sharding on arguments and results,
 *                     #sdy.sharding_per_value (one per result) on ops;
 *   sdy ops           sdy.sharding_constraint, sdy.reshard,
 *                     sdy.manual_computation's in/out shardings, and each
 *                     sdy.mesh's device count against mhlo.num_partitions.
 *
 * A sharding fits when its devices are below mhlo.num_partitions (1 when
 * absent), each once, its tile rank is the value's, and it does not tile a
 * token or a dynamic shape.  The annotation custom calls
 * (ir/annotations.def) take one operand and give one result: an identity,
 * except @SPMDFullToShardShape (global to the per-device shape under its
 * operand's mhlo.sharding: the @Sharding feeding it or an annotated
 * argument) and @SPMDShardToFullShape (back to the global shape its own
 * mhlo.sharding describes).  GSPMD and Shardy may mix. */
#include <stdio.h>
#include <string.h>

#include "ir/sharding.h"
#include "passes/pass.h"

typedef struct Checker {
  Context *c;
  Module *m;
  Arena scratch;      /* the shardings read, freed at the end */
  int64_t partitions; /* mhlo.num_partitions, 1 when absent */
  bool failed;
} Checker;

/* A value's description: "%arg0 of @main", "result #1 of @main", "%3". */
typedef struct What {
  char text[160];
} What;

static void describe_op(const Op *op, What *w) {
  const char *hint = op->nresults ? op->results[0].name_hint : NULL;
  if (hint) snprintf(w->text, sizeof w->text, "%s%s", hint[0] == '%' ? "" : "%", hint);
  else snprintf(w->text, sizeof w->text, "the result of '%s'", op->name);
}

/* Fits s (read from attribute name = text) to the value types[0..n) of
 * `what` (n > 1: a multi-result op, whose sharding is a tuple of n or one
 * for all); an error when it does not. */
static void fit(Checker *k, const Op *op, const What *w, const char *name, const char *text, const Sharding *s,
                Type *const *types, int n, bool sdy) {
  char why[SHARDING_WHY_LEN];
  for (int i = 0; i < n; i++) {
    const Sharding *e = s;
    if (n > 1 && s->kind == SHARDING_TUPLE) {
      if (s->nelems != n) {
        op_error(k->c, op, "%s on %s: %s has %d elements for %d results", name, w->text, text, s->nelems, n);
        k->failed = true;
        return;
      }
      e = &s->elems[i];
    }
    const Type *t = types[i];
    bool ok = sharding_fits(e, t, k->partitions, why);
    /* Shardy's whole shardings keep their dimension count: check it too. */
    if (ok && sdy && e->kind != SHARDING_TILED && e->kind != SHARDING_TUPLE && type_is_tensor(t) && t->rank >= 0 &&
        e->rank != t->rank) {
      snprintf(why, sizeof why, "it shards %d dimensions but the value has rank %d", e->rank, t->rank);
      ok = false;
    }
    if (ok) continue;
    char elem[32] = "";
    if (n > 1) snprintf(elem, sizeof elem, " (result #%d)", i);
    op_error(k->c, op, "%s = %s on %s%s does not fit its type '%s': %s", name, text, w->text, elem,
             type_to_string(k->c, t), why);
    k->failed = true;
    return;
  }
}

/* Reads one sharding attribute (GSPMD when gspmd, else Shardy) of the
 * values types[0..n); false after an error. */
static bool read_sharding(Checker *k, const Op *op, const What *w, const char *name, const Attr *a, bool gspmd,
                          Sharding *s, const char **text) {
  char why[SHARDING_WHY_LEN];
  *text = attr_to_string(k->c, a);
  bool ok;
  if (gspmd) {
    ok = a->kind == ATTR_STRING;
    if (!ok) snprintf(why, sizeof why, "not a string");
    else ok = sharding_parse_gspmd(&k->scratch, a->u.str.s, a->u.str.len, s, why);
  } else {
    ok = a->kind == ATTR_OPAQUE;
    if (!ok) snprintf(why, sizeof why, "not a Shardy sharding (#sdy.sharding<...> or #sdy.sharding_per_value<...>)");
    else ok = sharding_parse_sdy(&k->scratch, k->m, a->u.str.s, s, why);
  }
  if (!ok) {
    op_error(k->c, op, "malformed %s on %s: %s: %s", name, w->text, *text, why);
    k->failed = true;
  }
  return ok;
}

/* Checks attribute name = a, if it is a sharding, against types[0..n):
 * per_value (ops) wants #sdy.sharding_per_value of n, else #sdy.sharding. */
static void check_attr(Checker *k, const Op *op, const What *w, const char *name, const Attr *a, Type *const *types,
                       int n, bool per_value) {
  bool gspmd = strcmp(name, "mhlo.sharding") == 0;
  if (!gspmd && strcmp(name, "sdy.sharding") != 0) return;
  Sharding s;
  const char *text;
  if (!read_sharding(k, op, w, name, a, gspmd, &s, &text)) return;
  if (!gspmd && (s.kind == SHARDING_TUPLE) != per_value) {
    op_error(k->c, op, "%s on %s must be a %s, not %s", name, w->text,
             per_value ? "#sdy.sharding_per_value<[...]> (one per result)" : "#sdy.sharding<...>", text);
    k->failed = true;
    return;
  }
  if (!gspmd && per_value && s.nelems != n) {
    op_error(k->c, op, "%s on %s: %s has %d shardings for %d results", name, w->text, text, s.nelems, n);
    k->failed = true;
    return;
  }
  if (!gspmd && per_value) {
    for (int i = 0; i < n; i++) fit(k, op, w, name, text, &s.elems[i], &types[i], 1, true);
    return;
  }
  if (n > 0) fit(k, op, w, name, text, &s, types, n, !gspmd);
}

static void check_dict(Checker *k, const Op *op, const What *w, const Attr *d, Type *t) {
  if (!d || d->kind != ATTR_DICT) return;
  for (int i = 0; i < d->u.dict.n; i++) check_attr(k, op, w, d->u.dict.items[i].name, d->u.dict.items[i].value, &t, 1, false);
}

/* ------------------------------------------------------------------ */
/* The annotation custom calls and the sdy ops */

/* The per-device type of a value of type t under s (each dim cut into
 * tiles, rounded up as XLA pads); t itself when s keeps it whole. */
static Type *per_device(Checker *k, Type *t, const Sharding *s) {
  if (s->kind != SHARDING_TILED || !type_is_static(t) || t->rank != s->rank) return t;
  int64_t dims[SHARDING_MAX_RANK];
  for (int d = 0; d < t->rank; d++) dims[d] = (t->dims[d] + s->tiles[d] - 1) / s->tiles[d];
  return t->elem_opaque ? type_tensor_opaque_elem(k->c, t->elem_opaque, t->rank, dims, t->encoding)
                        : type_tensor(k->c, t->elem, t->rank, dims, t->encoding);
}

/* Reads the GSPMD attribute a into s; false (quietly) when absent or
 * malformed (the attribute check reports that). */
static bool read_gspmd(Checker *k, const Attr *a, Sharding *s) {
  char why[SHARDING_WHY_LEN];
  return a && a->kind == ATTR_STRING && sharding_parse_gspmd(&k->scratch, a->u.str.s, a->u.str.len, s, why);
}

/* The mhlo.sharding annotating value v: its defining op's (a custom_call
 * @Sharding, as JAX writes it), or a function argument's; NULL when none. */
static const Attr *value_gspmd(const Value *v) {
  if (v->def) return op_attr(v->def, "mhlo.sharding");
  const Op *f = v->block && v->block->parent ? v->block->parent->parent : NULL;
  if (!f || f->kind != OP_FUNC || op_body(f) != v->block) return NULL;
  const Attr *list = op_attr(f, "arg_attrs");
  if (!list || list->kind != ATTR_ARRAY || v->index >= list->u.array.n) return NULL;
  const Attr *d = list->u.array.items[v->index];
  for (int i = 0; d && d->kind == ATTR_DICT && i < d->u.dict.n; i++)
    if (strcmp(d->u.dict.items[i].name, "mhlo.sharding") == 0) return d->u.dict.items[i].value;
  return NULL;
}

/* @SPMDFullToShardShape: the full sharding is the mhlo.sharding of its
 * operand (the @Sharding custom_call feeding it, or an annotated function
 * argument); its result the per-device shape.  @SPMDShardToFullShape: its
 * own mhlo.sharding is the full sharding of its result; its operand the
 * per-device shape. */
static void check_spmd_shapes(Checker *k, const Op *op, const Annotation *an) {
  bool to_shard = strcmp(an->target, "SPMDFullToShardShape") == 0;
  Type *global = to_shard ? op->operands[0]->type : op->results[0].type;
  Type *local = to_shard ? op->results[0].type : op->operands[0]->type;
  const Attr *full = to_shard ? value_gspmd(op->operands[0]) : op_attr(op, "mhlo.sharding");
  Sharding s;
  if (!full) {
    op_error(k->c, op, "custom_call @%s: %s (the full sharding)", an->target,
             to_shard ? "its operand has no mhlo.sharding: feed it from a custom_call @Sharding"
                      : "it has no mhlo.sharding");
  } else if (!read_gspmd(k, full, &s)) {
    return; /* malformed: reported where it is */
  } else {
    Type *want = per_device(k, global, &s);
    if (want == local) return;
    op_error(k->c, op,
             "custom_call @%s: the per-device type of '%s' under %s is '%s', but its %s has type '%s'", an->target,
             type_to_string(k->c, global), sharding_to_string(&k->scratch, &s), type_to_string(k->c, want),
             to_shard ? "result" : "operand", type_to_string(k->c, local));
  }
  k->failed = true;
}

/* The annotation custom calls: one operand, one result; identities except
 * the SPMD shape changes. */
static void check_annotation(Checker *k, const Op *op, const Annotation *an) {
  if (op->noperands != 1 || op->nresults != 1) {
    op_error(k->c, op, "custom_call @%s is an identity: it takes one operand and has one result, not %d and %d",
             an->target, op->noperands, op->nresults);
  } else if (an->spmd_only) {
    check_spmd_shapes(k, op, an);
    return;
  } else if (op->operands[0]->type != op->results[0].type) {
    op_error(k->c, op, "custom_call @%s is an identity: its result type '%s' must be its operand type '%s'",
             an->target, type_to_string(k->c, op->results[0].type), type_to_string(k->c, op->operands[0]->type));
  } else {
    return;
  }
  k->failed = true;
}

/* The shardings of an sdy op: the constraint's / reshard's one, the
 * manual computation's per operand and per result. */
static void check_sdy_op(Checker *k, const Op *op, const What *w) {
  static const char *const keys[] = {"sharding", "in_shardings", "out_shardings"};
  for (int i = 0; i < 3; i++) {
    const Attr *a = op_attr(op, keys[i]);
    if (!a || (i == 0) != (op->kind != OP_SDY_MANUAL_COMPUTATION)) continue;
    Sharding s;
    const char *text;
    if (!read_sharding(k, op, w, keys[i], a, false, &s, &text)) continue;
    int n = i == 0 ? 1 : i == 1 ? op->noperands : op->nresults;
    Type **types = arena_alloc(&k->scratch, sizeof(Type *) * (size_t)(n + 1));
    for (int j = 0; j < n; j++) types[j] = i == 1 ? op->operands[j]->type : op->results[j].type;
    if (i == 0 && s.kind != SHARDING_TUPLE) {
      fit(k, op, w, keys[i], text, &s, types, 1, true);
    } else if (i > 0 && s.kind == SHARDING_TUPLE && s.nelems == n) {
      for (int j = 0; j < n; j++) fit(k, op, w, keys[i], text, &s.elems[j], &types[j], 1, true);
    } else {
      op_error(k->c, op, "%s on %s: %s is not %s", keys[i], w->text, text,
               i ? "one sharding per value" : "a #sdy.sharding<...>");
      k->failed = true;
    }
  }
}

static void check_block(Checker *k, const Block *b) {
  for (const Op *op = b->first; op; op = op->next) {
    const Annotation *an = custom_call_annotation(op);
    if (an) check_annotation(k, op, an);
    What w;
    describe_op(op, &w);
    if (op->kind == OP_SDY_SHARDING_CONSTRAINT || op->kind == OP_SDY_RESHARD ||
        op->kind == OP_SDY_MANUAL_COMPUTATION)
      check_sdy_op(k, op, &w);
    Type **types = arena_alloc(&k->scratch, sizeof(Type *) * (size_t)(op->nresults + 1));
    for (int i = 0; i < op->nresults; i++) types[i] = op->results[i].type;
    for (int i = 0; i < op->nattrs; i++)
      check_attr(k, op, &w, op->attrs[i].name, op->attrs[i].value, types, op->nresults, true);
    for (int r = 0; r < op->nregions; r++)
      for (int j = 0; j < op->regions[r].nblocks; j++) check_block(k, op->regions[r].blocks[j]);
  }
}

/* Arguments and results of a function. */
static void check_func(Checker *k, const Op *f) {
  const Attr *fta = op_attr(f, "function_type");
  const Type *ft = fta && fta->kind == ATTR_TYPE ? fta->type : NULL;
  const char *keys[] = {"arg_attrs", "res_attrs"};
  for (int side = 0; side < 2 && ft; side++) {
    const Attr *list = op_attr(f, keys[side]);
    int ntypes = side ? ft->nresults : ft->ninputs;
    for (int i = 0; list && list->kind == ATTR_ARRAY && i < list->u.array.n && i < ntypes; i++) {
      What w;
      if (side == 0) snprintf(w.text, sizeof w.text, "%%arg%d of @%s", i, op_symbol_name(f));
      else snprintf(w.text, sizeof w.text, "result #%d of @%s", i, op_symbol_name(f));
      check_dict(k, f, &w, list->u.array.items[i], side ? ft->results[i] : ft->inputs[i]);
    }
  }
}

/* Each sdy.mesh reads, and one with axes has mhlo.num_partitions devices
 * when the module says how many; false after an error. */
static bool check_meshes(Checker *k, bool has_partitions) {
  Block *body = op_body(k->m->op);
  bool ok = true;
  for (const Op *op = body ? body->first : NULL; op; op = op->next) {
    const char *name = op->kind == OP_SDY_MESH ? op_symbol_name(op) : NULL;
    const Attr *a = name ? op_attr(op, "mesh") : NULL;
    if (!a) continue;
    int naxes;
    int64_t ndevices, device;
    char why[SHARDING_WHY_LEN];
    if (a->kind != ATTR_OPAQUE || !sharding_sdy_mesh(&k->scratch, a->u.str.s, &naxes, &ndevices, &device, why)) {
      op_error(k->c, op, "malformed sdy.mesh @%s: %s: %s", name, attr_to_string(k->c, a),
               a->kind != ATTR_OPAQUE ? "not a #sdy.mesh<...>" : why);
      ok = false;
    } else if (naxes > 0 && has_partitions && ndevices != k->partitions) {
      op_error(k->c, op, "sdy.mesh @%s has %lld devices but the module has mhlo.num_partitions = %lld", name,
               (long long)ndevices, (long long)k->partitions);
      ok = false;
    } else if (device >= k->partitions) {
      op_error(k->c, op, "sdy.mesh @%s names device %lld, not below mhlo.num_partitions = %lld", name,
               (long long)device, (long long)k->partitions);
      ok = false;
    }
  }
  return ok;
}

bool sharding_check(Context *c, Module *m) {
  Checker k = {.c = c, .m = m, .partitions = 1};
  bool has_partitions = attr_as_int(op_attr(m->op, "mhlo.num_partitions"), &k.partitions);
  if (!has_partitions || k.partitions < 1) k.partitions = 1;
  if (check_meshes(&k, has_partitions)) {
    Block *body = op_body(m->op);
    for (const Op *op = body ? body->first : NULL; op; op = op->next) {
      if (op->kind != OP_FUNC) continue;
      check_func(&k, op);
      if (op_body(op)) check_block(&k, op_body(op));
    }
  } else {
    k.failed = true;
  }
  arena_free_all(&k.scratch);
  return !k.failed;
}
