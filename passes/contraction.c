/* contraction_dims: the GEMM view of dot_general and convolution. */
#include "passes/contraction.h"

static bool in_list(int n, const int64_t *v, int64_t d) {
  for (int i = 0; i < n; i++)
    if (v[i] == d) return true;
  return false;
}

static bool static_ranked(const Type *t) { return t && t->kind == TY_TENSOR && type_is_static(t); }

static bool dims_list(const Attr *d, const char *key, int *n, const int64_t **v, Arena *scratch) {
  const Attr *a = d ? dialect_param(d, key) : NULL;
  if (!a) {
    *n = 0;
    *v = NULL;
    return true;
  }
  return attr_as_i64_list(a, n, v, scratch);
}

static bool dot_dims(const Op *op, Contraction *out, Arena *scratch) {
  const Type *l = op->operands[0]->type, *r = op->operands[1]->type;
  int nlb, nrb, nlc, nrc;
  const int64_t *lb, *rb, *lc, *rc;
  if (op->kind == OP_DOT) {
    static const int64_t zero = 0;
    int64_t last = l->rank - 1;
    lb = rb = NULL, nlb = nrb = 0;
    nlc = nrc = 1;
    lc = arena_dup(scratch, &last, sizeof last);
    rc = &zero;
  } else {
    const Attr *d = op_attr(op, "dot_dimension_numbers");
    if (!dims_list(d, "lhs_batching_dimensions", &nlb, &lb, scratch) ||
        !dims_list(d, "rhs_batching_dimensions", &nrb, &rb, scratch) ||
        !dims_list(d, "lhs_contracting_dimensions", &nlc, &lc, scratch) ||
        !dims_list(d, "rhs_contracting_dimensions", &nrc, &rc, scratch))
      return false;
  }
  *out = (Contraction){1, 1, 1, 1, nlb > 0};
  for (int i = 0; i < l->rank; i++) {
    if (in_list(nlb, lb, i)) out->batch *= l->dims[i];
    else if (in_list(nlc, lc, i)) out->k *= l->dims[i];
    else out->m *= l->dims[i];
  }
  for (int i = 0; i < r->rank; i++)
    if (!in_list(nrb, rb, i) && !in_list(nrc, rc, i)) out->n *= r->dims[i];
  return true;
}

static bool conv_dims(const Op *op, Contraction *out) {
  const Attr *dn = op_attr(op, "dimension_numbers");
  if (!dn || dn->kind != ATTR_CONV_DIMS) return false;
  const ConvDims *cd = &dn->u.conv;
  const Type *k = op->operands[1]->type, *res = op->results[0].type;
  int64_t groups = 1, batch_groups = 1;
  const Attr *g = op_attr(op, "feature_group_count"), *bg = op_attr(op, "batch_group_count");
  if (g) attr_as_int(g, &groups);
  if (bg) attr_as_int(bg, &batch_groups);
  if (groups < 1 || batch_groups < 1) return false;
  int64_t window = 1, spatial_out = 1;
  for (int i = 0; i < cd->nspatial; i++) {
    if (cd->kernel_spatial[i] < 0 || cd->kernel_spatial[i] >= k->rank) return false;
    if (cd->output_spatial[i] < 0 || cd->output_spatial[i] >= res->rank) return false;
    window *= k->dims[cd->kernel_spatial[i]];
    spatial_out *= res->dims[cd->output_spatial[i]];
  }
  if (cd->kernel_input_feature < 0 || cd->kernel_input_feature >= k->rank || cd->output_feature < 0 ||
      cd->output_feature >= res->rank || cd->output_batch < 0 || cd->output_batch >= res->rank)
    return false;
  int64_t groups_all = groups * batch_groups;
  *out = (Contraction){
      .batch = groups_all,
      .m = res->dims[cd->output_batch] * spatial_out,
      .n = res->dims[cd->output_feature] / groups_all,
      .k = k->dims[cd->kernel_input_feature] * window,
  };
  return true;
}

bool contraction_dims(const Op *op, Contraction *out) {
  if (op->kind != OP_DOT_GENERAL && op->kind != OP_DOT && op->kind != OP_CONVOLUTION) return false;
  if (op->noperands < 2 || op->nresults != 1) return false;
  if (!static_ranked(op->operands[0]->type) || !static_ranked(op->operands[1]->type) ||
      !static_ranked(op->results[0].type))
    return false;
  Arena scratch = {0};
  bool ok = op->kind == OP_CONVOLUTION ? conv_dims(op, out) : dot_dims(op, out, &scratch);
  arena_free_all(&scratch);
  return ok && out->m > 0 && out->n > 0 && out->k > 0 && out->batch > 0;
}
