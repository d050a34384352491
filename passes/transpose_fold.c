/* Transpose folding, after XLA's TransposeFolding (passes/passes.def
 * "transpose-fold").
 *
 * A stablehlo.transpose that feeds an operand of a dot_general or a
 * convolution is folded into that op's dimension numbers: the op reads the
 * transpose's operand directly, with each dimension number d replaced by
 * permutation[d].  PyTorch writes such a transpose before every nn.Linear
 * (the [out, in] weight turned [in, out]) and around attention's head
 * splits; folded, the weight is read in place and the VM's matrix engine
 * chooses the access order instead of copying it.
 *
 * A convolution names every dimension in its dimension numbers, so any
 * permutation folds.  A dot_general orders its result as batch dims, then
 * the lhs free dims ascending, then the rhs free dims ascending: a
 * transpose folds when it keeps the free dims of its operand in order
 * (always true with one free dim, e.g. a transposed 2-D weight), otherwise
 * folding would permute the result and the transpose stays.  A reduce
 * whose inputs are all transposes by one permutation reduces the original
 * inputs over the mapped dims, when the kept dims stay in order.  A
 * transpose that only moves dims of size 1 keeps the row-major order of
 * the elements: it becomes a reshape, which the VM runs as an alias.  A
 * contraction operand convert(transpose(x)) (a weight narrowed for the
 * product after PyTorch's transpose) becomes transpose(convert(x)) first,
 * so that it folds too.  A transpose left without users is removed by dce.
 * Cost: one visit per op. */
#include <string.h>

#include "passes/pass.h"
#include "passes/walk.h"

/* The dot_general dimension lists, in the order the attribute prints them. */
static const char *const dot_lists[4] = {"lhs_batching_dimensions", "rhs_batching_dimensions",
                                         "lhs_contracting_dimensions", "rhs_contracting_dimensions"};

/* The permutation of a transpose op, or NULL. */
static const int64_t *permutation_of(Context *c, const Op *t, int *n) {
  const int64_t *p;
  if (!t || t->kind != OP_TRANSPOSE || !attr_as_i64_list(op_attr(t, "permutation"), n, &p, &c->arena)) return NULL;
  return p;
}

/* True when dim d is in list v[0..n). */
static bool listed(int64_t d, const int64_t *v, int n) {
  for (int i = 0; i < n; i++)
    if (v[i] == d) return true;
  return false;
}

/* dot_general operand `side` (0 lhs, 1 rhs) read through its transpose:
 * returns the new dimension-numbers attribute, or NULL when the fold would
 * reorder the free dims. */
static Attr *dot_dims_through(Context *c, const Attr *dn, int side, const int64_t *perm, int rank) {
  const Attr *batch = dialect_param(dn, dot_lists[side]), *contract = dialect_param(dn, dot_lists[2 + side]);
  int nb = 0, nc = 0;
  const int64_t *b = NULL, *k = NULL;
  if ((batch && !attr_as_i64_list(batch, &nb, &b, &c->arena)) ||
      (contract && !attr_as_i64_list(contract, &nc, &k, &c->arena)))
    return NULL;
  int64_t last = -1;
  for (int d = 0; d < rank; d++) {
    if (listed(d, b, nb) || listed(d, k, nc)) continue;
    if (perm[d] < last) return NULL;
    last = perm[d];
  }
  NamedAttr *params = arena_alloc(&c->arena, sizeof(NamedAttr) * (size_t)(dn->u.dialect.n ? dn->u.dialect.n : 1));
  for (int i = 0; i < dn->u.dialect.n; i++) {
    params[i] = dn->u.dialect.params[i];
    const char *name = params[i].name;
    bool ours = name && (strcmp(name, dot_lists[side]) == 0 || strcmp(name, dot_lists[2 + side]) == 0);
    int n;
    const int64_t *v;
    if (!ours || !attr_as_i64_list(params[i].value, &n, &v, &c->arena)) continue;
    int64_t *mapped = arena_alloc(&c->arena, sizeof(int64_t) * (size_t)(n ? n : 1));
    for (int j = 0; j < n; j++) mapped[j] = perm[v[j]];
    params[i].value = attr_int_list(c, n, mapped);
  }
  return attr_dialect(c, dn->u.dialect.name, dn->u.dialect.n, params);
}

/* Convolution dimension numbers with the input (side 0) or kernel (side 1)
 * read through a transpose. */
static Attr *conv_dims_through(Context *c, const Attr *dn, int side, const int64_t *perm) {
  ConvDims d = dn->u.conv;
  int64_t *spatial = arena_alloc(&c->arena, sizeof(int64_t) * (size_t)(d.nspatial ? d.nspatial : 1));
  const int64_t *old = side == 0 ? d.input_spatial : d.kernel_spatial;
  for (int i = 0; i < d.nspatial; i++) spatial[i] = perm[old[i]];
  if (side == 0) {
    d.input_batch = perm[d.input_batch];
    d.input_feature = perm[d.input_feature];
    d.input_spatial = spatial;
  } else {
    d.kernel_input_feature = perm[d.kernel_input_feature];
    d.kernel_output_feature = perm[d.kernel_output_feature];
    d.kernel_spatial = spatial;
  }
  return attr_conv_dims(c, &d);
}

/* Operand `side` of op, convert(transpose(x)) used by op alone (an f32
 * weight transposed, then narrowed to bf16 for the product), rewritten as
 * transpose(convert(x)) so that the transpose folds: the convert reads x
 * in place. */
static void convert_before_transpose(Context *c, Op *op, int side) {
  Value *v = op->operands[side];
  Op *cv = v->def;
  if (!cv || cv->kind != OP_CONVERT || !v->uses || v->uses->next) return;
  Op *tr = cv->operands[0]->def;
  Value *x = tr && tr->kind == OP_TRANSPOSE ? tr->operands[0] : NULL;
  if (!x || !type_is_tensor(x->type) || !type_is_static(x->type) || x->type->encoding || x->type->elem_opaque ||
      !type_is_tensor(v->type) || v->type->elem_opaque || !elem_is_float(v->type->elem) ||
      !elem_is_float(x->type->elem))
    return;
  Type *narrowed = type_tensor(c, v->type->elem, x->type->rank, x->type->dims, NULL);
  Op *convert = op_build(c, OP_CONVERT, cv->loc, 1, &x, narrowed, 0, NULL);
  Value *cx = &convert->results[0];
  Op *transpose = op_build(c, OP_TRANSPOSE, tr->loc, 1, &cx, v->type, 0, NULL);
  op_set_attr(c, transpose, "permutation", (Attr *)op_attr(tr, "permutation"));
  convert->srcloc = cv->srcloc, transpose->srcloc = tr->srcloc;
  op_insert_before(cv, convert);
  op_insert_before(cv, transpose);
  op_set_operand(c, op, side, &transpose->results[0]);
}

/* Folds the transposes feeding op's two operands; returns how many. */
static int fold_operands(Context *c, Op *op) {
  bool is_dot = op->kind == OP_DOT_GENERAL;
  const char *attr_name = is_dot ? "dot_dimension_numbers" : "dimension_numbers";
  int folded = 0;
  for (int side = 0; side < 2; side++) {
    convert_before_transpose(c, op, side);
    int n;
    const int64_t *perm = permutation_of(c, op->operands[side]->def, &n);
    const Attr *dn = op_attr(op, attr_name);
    if (!perm || !dn || (is_dot ? dn->kind != ATTR_DIALECT : dn->kind != ATTR_CONV_DIMS)) continue;
    Attr *through = is_dot ? dot_dims_through(c, dn, side, perm, n) : conv_dims_through(c, dn, side, perm);
    if (!through) continue;
    op_set_attr(c, op, attr_name, through);
    op_set_operand(c, op, side, op->operands[side]->def->operands[0]);
    folded++;
  }
  return folded;
}

/* A reduce whose inputs are transposes by one permutation, reading the
 * transposes' operands over the mapped dims; returns the inputs folded. */
static int fold_reduce(Context *c, Op *op) {
  int ninputs = op->noperands / 2, n = 0, nd;
  const int64_t *perm = NULL, *dims;
  if (!attr_as_i64_list(op_attr(op, "dimensions"), &nd, &dims, &c->arena)) return 0;
  for (int i = 0; i < ninputs; i++) {
    int ni;
    const int64_t *pi = permutation_of(c, op->operands[i]->def, &ni);
    if (!pi || (perm && (ni != n || memcmp(pi, perm, sizeof(int64_t) * (size_t)n) != 0))) return 0;
    perm = pi, n = ni;
  }
  int64_t last = -1, *mapped = arena_alloc(&c->arena, sizeof(int64_t) * (size_t)(nd ? nd : 1));
  for (int d = 0; d < n; d++) {
    if (listed(d, dims, nd)) continue;
    if (perm[d] < last) return 0;
    last = perm[d];
  }
  for (int i = 0; i < nd; i++) mapped[i] = perm[dims[i]];
  op_set_attr(c, op, "dimensions", attr_dense_i64_array(c, nd, mapped));
  for (int i = 0; i < ninputs; i++) op_set_operand(c, op, i, op->operands[i]->def->operands[0]);
  return ninputs;
}

/* A transpose that moves only dims of size 1 as a reshape; true if done. */
static bool transpose_as_reshape(Context *c, Op *op) {
  int n;
  const int64_t *perm = permutation_of(c, op, &n);
  const Type *in = op->operands[0]->type;
  if (!perm || !type_is_tensor(in) || !type_is_static(in) || in->rank != n) return false;
  int64_t last = -1;
  for (int d = 0; d < n; d++) {
    if (in->dims[perm[d]] == 1) continue;
    if (perm[d] < last) return false;
    last = perm[d];
  }
  Value *x = op->operands[0];
  Op *reshape = op_build(c, OP_RESHAPE, op->loc, 1, &x, op->results[0].type, 0, NULL);
  reshape->srcloc = op->srcloc;
  op_insert_before(op, reshape);
  value_replace_all_uses(c, &op->results[0], &reshape->results[0]);
  return true;
}

/* Every contraction, reduce and transpose of a block and of its nested
 * regions. */
static uint64_t fold_block(Context *c, Block *b) {
  uint64_t folded = 0;
  for (Op *op = b->first; op; op = op->next) {
    for (int r = 0; r < op->nregions; r++)
      for (int k = 0; k < op->regions[r].nblocks; k++) folded += fold_block(c, op->regions[r].blocks[k]);
    if (op->kind == OP_DOT_GENERAL || op->kind == OP_CONVOLUTION) folded += (uint64_t)fold_operands(c, op);
    else if (op->kind == OP_REDUCE) folded += (uint64_t)fold_reduce(c, op);
    else if (op->kind == OP_TRANSPOSE && op->results[0].uses) folded += transpose_as_reshape(c, op);
  }
  return folded;
}

bool pass_transpose_fold(PassContext *pc) {
  FOR_EACH_FUNC(pc->m, f) pc->transposes_folded += fold_block(pc->c, op_body(f));
  dce_module(pc->m);
  return true;
}

/* The transposes of a block and its nested regions, and their bytes. */
static void count_transposes(const Block *b, uint64_t *n, double *bytes) {
  for (const Op *op = b->first; op; op = op->next) {
    for (int r = 0; r < op->nregions; r++)
      for (int k = 0; k < op->regions[r].nblocks; k++) count_transposes(op->regions[r].blocks[k], n, bytes);
    int64_t count;
    if (op->kind != OP_TRANSPOSE || !type_tensor_num_elements(op->results[0].type, &count)) continue;
    (*n)++;
    *bytes += (double)count * elem_bits(op->results[0].type->elem) / 8;
  }
}

void layout_report(const PassContext *pc, FILE *out) {
  uint64_t left = 0;
  double bytes = 0;
  FOR_EACH_FUNC(pc->m, f) count_transposes(op_body(f), &left, &bytes);
  fprintf(out, "layout: %llu transposes folded (into contractions and reduces, or as reshapes); %llu remain",
          (unsigned long long)pc->transposes_folded, (unsigned long long)left);
  fprintf(out, left ? " (%.0f bytes written)\n" : "\n", bytes);
}
