/* The attribute groups StableHLO holds as one structure and VHLO as
 * separate attributes (the STRUCTS column of frontend/vhlo_ops.def):
 * dimension numbers of convolution, dot_general, gather and scatter, dot
 * algorithms and send/recv channel handles.  One table, read both ways. */
#include <string.h>

#include "frontend/vhlo_legalize.h"

/* F_LIST and F_INT0 are left out of the structure when empty or zero. */
typedef enum FieldKind { F_LIST, F_INT, F_INT0, F_TYPE, F_BOOL } FieldKind;

typedef struct Field {
  const char *vhlo;  /* the VHLO attribute */
  const char *param; /* its parameter in the StableHLO structure */
  FieldKind kind;
} Field;

typedef struct StructSpec {
  unsigned flag;
  const char *attr;    /* the StableHLO attribute */
  const char *dialect; /* its #dialect.name; NULL: #stablehlo.conv (ATTR_CONV_DIMS) */
  int n;
  Field f[9];
} StructSpec;

static const StructSpec structs[] = {
    {S_CONV, "dimension_numbers", NULL, 9,
     {{"input_batch_dimension", "", F_INT},
      {"input_feature_dimension", "", F_INT},
      {"input_spatial_dimensions", "", F_LIST},
      {"kernel_input_feature_dimension", "", F_INT},
      {"kernel_output_feature_dimension", "", F_INT},
      {"kernel_spatial_dimensions", "", F_LIST},
      {"output_batch_dimension", "", F_INT},
      {"output_feature_dimension", "", F_INT},
      {"output_spatial_dimensions", "", F_LIST}}},
    {S_DOT, "dot_dimension_numbers", "stablehlo.dot", 4,
     {{"lhs_batching_dimensions", "lhs_batching_dimensions", F_LIST},
      {"rhs_batching_dimensions", "rhs_batching_dimensions", F_LIST},
      {"lhs_contracting_dimensions", "lhs_contracting_dimensions", F_LIST},
      {"rhs_contracting_dimensions", "rhs_contracting_dimensions", F_LIST}}},
    {S_ALG, "algorithm", "stablehlo.dot_algorithm", 7,
     {{"lhs_precision_type", "lhs_precision_type", F_TYPE},
      {"rhs_precision_type", "rhs_precision_type", F_TYPE},
      {"accumulation_type", "accumulation_type", F_TYPE},
      {"lhs_component_count", "lhs_component_count", F_INT},
      {"rhs_component_count", "rhs_component_count", F_INT},
      {"num_primitive_operations", "num_primitive_operations", F_INT},
      {"allow_imprecise_accumulation", "allow_imprecise_accumulation", F_BOOL}}},
    {S_GATHER, "dimension_numbers", "stablehlo.gather", 6,
     {{"offset_dims", "offset_dims", F_LIST},
      {"collapsed_slice_dims", "collapsed_slice_dims", F_LIST},
      {"operand_batching_dims", "operand_batching_dims", F_LIST},
      {"start_indices_batching_dims", "start_indices_batching_dims", F_LIST},
      {"start_index_map", "start_index_map", F_LIST},
      {"index_vector_dim", "index_vector_dim", F_INT0}}},
    {S_SCATTER, "scatter_dimension_numbers", "stablehlo.scatter", 6,
     {{"update_window_dims", "update_window_dims", F_LIST},
      {"inserted_window_dims", "inserted_window_dims", F_LIST},
      {"input_batching_dims", "input_batching_dims", F_LIST},
      {"scatter_indices_batching_dims", "scatter_indices_batching_dims", F_LIST},
      {"scatter_dims_to_operand_dims", "scatter_dims_to_operand_dims", F_LIST},
      {"index_vector_dim", "index_vector_dim", F_INT0}}},
    {S_CHAN, "channel_handle", "stablehlo.channel_handle", 2,
     {{"channel_id", "handle", F_INT}, {"channel_type", "type", F_INT}}},
};

#define NSTRUCTS (int)(sizeof structs / sizeof structs[0])

unsigned struct_member(unsigned flags, const char *name) {
  for (int s = 0; s < NSTRUCTS; s++) {
    if (!(flags & structs[s].flag)) continue;
    for (int i = 0; i < structs[s].n; i++)
      if (strcmp(structs[s].f[i].vhlo, name) == 0) return structs[s].flag;
  }
  return 0;
}

bool struct_attr(unsigned flags, const char *name) {
  for (int s = 0; s < NSTRUCTS; s++)
    if ((flags & structs[s].flag) && strcmp(structs[s].attr, name) == 0) return true;
  return false;
}

/* The elements of a VHLO integer tensor (NULL if v is not one). */
static const int64_t *tensor_ints(Context *c, const Attr *v, int *n) {
  if (!v || v->kind != ATTR_DENSE) return NULL;
  int64_t count = dense_num_elements(v);
  if (count < 0 || count > (1 << 20)) return NULL;
  int64_t *out = arena_alloc(&c->arena, sizeof(int64_t) * (size_t)(count ? count : 1));
  for (int64_t i = 0; i < count; i++) out[i] = dense_get_int(v, v->u.dense.splat ? 0 : i);
  *n = (int)count;
  return out;
}

/* #stablehlo.conv from its nine VHLO attributes; NULL if malformed. */
static Attr *conv_to_stablehlo(Context *c, const StructSpec *s, const AttrList *vhlo) {
  int64_t ints[9] = {0};
  const int64_t *lists[9] = {0};
  int lens[9] = {0};
  for (int i = 0; i < s->n; i++) {
    const Attr *v = alist_get(vhlo, s->f[i].vhlo);
    if (s->f[i].kind == F_INT) {
      if (!v || v->kind != ATTR_INT) return NULL;
      ints[i] = v->u.i;
    } else if (!(lists[i] = tensor_ints(c, v, &lens[i]))) {
      return NULL;
    }
  }
  if (lens[5] != lens[2] || lens[8] != lens[2]) return NULL;
  ConvDims d = {ints[0], ints[1], lens[2], lists[2], ints[3], ints[4], lists[5], ints[6], ints[7], lists[8]};
  return attr_conv_dims(c, &d);
}

/* One field of a dialect structure from its VHLO attribute; NULL to leave
 * it out (an empty list), *bad on a malformed value. */
static Attr *field_to_stablehlo(Context *c, const Field *f, Attr *v, bool *bad) {
  int n;
  const int64_t *l;
  switch (f->kind) {
  case F_LIST:
    if (!(l = tensor_ints(c, v, &n))) break;
    return n ? attr_int_list(c, n, l) : NULL;
  case F_INT:
  case F_INT0:
    if (v && v->kind == ATTR_INT) return f->kind == F_INT0 && v->u.i == 0 ? NULL : attr_i64(c, v->u.i);
    break;
  case F_TYPE:
    if (v && v->kind == ATTR_TYPE && v->type && v->type->kind == TY_ELEM)
      return attr_enum(c, NULL, NULL, elem_name(v->type->elem));
    break;
  case F_BOOL:
    if (v && v->kind == ATTR_BOOL) return v;
    break;
  }
  *bad = true;
  return NULL;
}

/* S's structure from its members in vhlo, appended to out; false if one
 * is malformed.  A dot algorithm of none types is no attribute. */
static bool struct_to_stablehlo(Context *c, const StructSpec *s, const AttrList *vhlo, AttrList *out) {
  if (!s->dialect) {
    Attr *a = conv_to_stablehlo(c, s, vhlo);
    if (a) alist_push(out, s->attr, a);
    return a != NULL;
  }
  if (s->flag == S_ALG) {
    int none = 0;
    for (int i = 0; i < s->n; i++) none += vhlo_is_default(alist_get(vhlo, s->f[i].vhlo), VD_NONETYPE);
    if (none == s->n) return true;
    if (none) return false;
  }
  NamedAttr params[9];
  int np = 0;
  bool bad = false;
  for (int i = 0; i < s->n; i++) {
    Attr *p = field_to_stablehlo(c, &s->f[i], alist_get(vhlo, s->f[i].vhlo), &bad);
    if (p) params[np++] = (NamedAttr){s->f[i].param, p};
  }
  if (bad) return false;
  alist_push(out, s->attr, attr_dialect(c, s->dialect, np, params));
  return true;
}

bool structs_to_stablehlo(Context *c, unsigned flags, const AttrList *vhlo, AttrList *out) {
  for (int s = 0; s < NSTRUCTS; s++)
    if ((flags & structs[s].flag) && !struct_to_stablehlo(c, &structs[s], vhlo, out)) return false;
  return true;
}

/* The nine VHLO attributes of a #stablehlo.conv. */
static void conv_to_vhlo(Context *c, const StructSpec *s, const ConvDims *d, AttrList *out) {
  const int64_t ints[9] = {d->input_batch, d->input_feature, 0, d->kernel_input_feature,
                           d->kernel_output_feature, 0, d->output_batch, d->output_feature, 0};
  const int64_t *lists[9] = {[2] = d->input_spatial, [5] = d->kernel_spatial, [8] = d->output_spatial};
  for (int i = 0; i < s->n; i++)
    alist_push(out, s->f[i].vhlo,
               s->f[i].kind == F_INT ? attr_i64(c, ints[i]) : vhlo_i64_tensor(c, d->nspatial, lists[i], false));
}

/* One VHLO attribute from field f of structure a (NULL: absent); NULL if
 * malformed. */
static Attr *field_to_vhlo(Context *c, const Field *f, const Attr *a) {
  const Attr *v = a ? dialect_param(a, f->param) : NULL;
  ElemKind k;
  switch (f->kind) {
  case F_LIST:
    if (!v) return vhlo_i64_tensor(c, 0, NULL, false);
    if (v->kind == ATTR_INT_LIST) return vhlo_i64_tensor(c, v->u.ilist.n, v->u.ilist.v, false);
    return NULL;
  case F_INT0:
    if (!v) return attr_i64(c, 0);
    /* fall through */
  case F_INT: return v && v->kind == ATTR_INT ? attr_i64(c, v->u.i) : NULL;
  case F_TYPE:
    if (v && v->kind == ATTR_ENUM && elem_from_name(v->u.enm.value, strlen(v->u.enm.value), &k))
      return attr_type(c, type_elem(c, k));
    return NULL;
  case F_BOOL: return v && v->kind == ATTR_BOOL ? (Attr *)v : NULL;
  }
  return NULL;
}

bool structs_to_vhlo(Context *c, const Op *op, unsigned flags, AttrList *out) {
  for (int s = 0; s < NSTRUCTS; s++) {
    const StructSpec *sp = &structs[s];
    if (!(flags & sp->flag)) continue;
    const Attr *a = op_attr(op, sp->attr);
    if (!a && sp->flag == S_ALG) {
      for (int i = 0; i < sp->n; i++) alist_push(out, sp->f[i].vhlo, vhlo_default_value(c, VD_NONETYPE, 0, false));
      continue;
    }
    if (!sp->dialect && a && a->kind == ATTR_CONV_DIMS) {
      conv_to_vhlo(c, sp, &a->u.conv, out);
      continue;
    }
    if (!a || !sp->dialect || a->kind != ATTR_DIALECT || strcmp(a->u.dialect.name, sp->dialect) != 0) {
      op_error(c, op, "has no valid '%s' attribute to write as VHLO", sp->attr);
      return false;
    }
    for (int i = 0; i < sp->n; i++) {
      Attr *v = field_to_vhlo(c, &sp->f[i], a);
      if (!v) {
        op_error(c, op, "'%s' has no valid '%s'", sp->attr, sp->f[i].param);
        return false;
      }
      alist_push(out, sp->f[i].vhlo, v);
    }
  }
  return true;
}
