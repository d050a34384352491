/* Lowering of the compute ops (backend/lower.c dispatches here by the
 * LOWER column of ir/ops.def): reductions and the other ops with region
 * bodies, contractions (with the MXU tiling), linear algebra, FFT and
 * random bits. */
#include <string.h>

#include "backend/lower.h"

void lower_reduce(FuncBuilder *fb, Op *op, int opcode) {
  field_attr_list(fb->e, op, "dimensions", 0, 0);
  field_region(fb, op, &op->regions[0]);
  emit_op(fb, op, opcode);
}

void lower_reduce_window(FuncBuilder *fb, Op *op, int opcode) {
  Emitter *e = fb->e;
  int rank = op->operands[0]->type->rank;
  field_attr_list(e, op, "window_dimensions", rank, 1);
  field_attr_list(e, op, "window_strides", rank, 1);
  field_attr_list(e, op, "base_dilations", rank, 1);
  field_attr_list(e, op, "window_dilations", rank, 1);
  field_attr_list(e, op, "padding", 2 * rank, 0);
  field_region(fb, op, &op->regions[0]);
  emit_op(fb, op, opcode);
}

void lower_select_and_scatter(FuncBuilder *fb, Op *op, int opcode) {
  Emitter *e = fb->e;
  int rank = op->operands[0]->type->rank;
  field_attr_list(e, op, "window_dimensions", rank, 1);
  field_attr_list(e, op, "window_strides", rank, 1);
  field_attr_list(e, op, "padding", 2 * rank, 0);
  field_region(fb, op, &op->regions[0]);
  field_region(fb, op, &op->regions[1]);
  emit_op(fb, op, opcode);
}

void lower_sort(FuncBuilder *fb, Op *op, int opcode) {
  fint(fb->e, attr_int_or(op, "dimension", -1));
  fint(fb->e, attr_int_or(op, "is_stable", 0));
  field_region(fb, op, &op->regions[0]);
  emit_op(fb, op, opcode);
}

void lower_map(FuncBuilder *fb, Op *op, int opcode) {
  field_attr_list(fb->e, op, "dimensions", 0, 0);
  field_region(fb, op, &op->regions[0]);
  emit_op(fb, op, opcode);
}

void lower_top_k(FuncBuilder *fb, Op *op, int opcode) { emit_with_int(fb, op, opcode, "k", 1); }

/* chlo.scan: dimension, reverse flag, the count of inputs (the rest are
 * initial carries), the body. */
void lower_scan(FuncBuilder *fb, Op *op, int opcode) {
  Emitter *e = fb->e;
  int64_t ninputs = op->noperands;
  const Attr *seg = op_attr(op, "operandSegmentSizes");
  int nseg;
  const int64_t *segv;
  if (seg && attr_as_i64_list(seg, &nseg, &segv, &e->c->arena) && nseg == 2) ninputs = segv[0];
  fint(e, attr_int_or(op, "dimension", 0));
  fint(e, attr_int_or(op, "is_reverse", 0));
  fint(e, ninputs);
  field_region(fb, op, &op->regions[0]);
  emit_op(fb, op, opcode);
}

/* The tile and pad fields of mxu_dot from a dot_general's tpu.mxu_tile and
 * tpu.mxu_pad (default: the real sizes), checked as the loader will
 * (vm/tpub.h); false after a diagnostic. */
static bool field_mxu_tiling(FuncBuilder *fb, const Op *op) {
  Emitter *e = fb->e;
  const Attr *d = op_attr(op, "dot_dimension_numbers");
  static const char *const keys[4] = {"lhs_batching_dimensions", "lhs_contracting_dimensions",
                                      "rhs_batching_dimensions", "rhs_contracting_dimensions"};
  int n[4] = {0};
  const int64_t *v[4] = {NULL};
  for (int i = 0; i < 4; i++) {
    const Attr *p = dialect_param(d, keys[i]);
    if (p && !attr_as_i64_list(p, &n[i], &v[i], &e->c->arena)) n[i] = 0;
  }
  /* real = {M, N, K}: lhs free, rhs free, contracting. */
  int64_t real[3] = {1, 1, 1};
  for (int side = 0; side < 2; side++) {
    const Type *t = op->operands[side]->type;
    uint64_t used = 0;
    for (int k = 2 * side; k < 2 * side + 2; k++)
      for (int i = 0; i < n[k]; i++)
        if (v[k][i] >= 0 && v[k][i] < 64) used |= 1ull << v[k][i];
    for (int dim = 0; dim < t->rank && dim < 64; dim++)
      if (!(used & (1ull << dim))) real[side] *= t->dims[dim];
  }
  for (int i = 0; i < n[1]; i++) real[2] *= op->operands[0]->type->dims[v[1][i]];
  int nt, np = 3;
  const int64_t *tile, *pad = real;
  if (!attr_ints(e, op, "tpu.mxu_tile", &nt, &tile) || nt != 3 ||
      (op_attr(op, "tpu.mxu_pad") && (!attr_ints(e, op, "tpu.mxu_pad", &np, &pad) || np != 3))) {
    op_error(e->c, op, "tpu.mxu_tile and tpu.mxu_pad must be array<i64: M, N, K>");
    e->failed = true;
    return false;
  }
  static const char axis[3] = {'M', 'N', 'K'};
  for (int i = 0; i < 3; i++) {
    int64_t slack = tile[i] > TPUB_MXU_PAD_SLACK ? tile[i] : TPUB_MXU_PAD_SLACK;
    if (tile[i] < 1 || tile[i] > TPUB_MXU_MAX_TILE) {
      op_error(e->c, op, "tpu.mxu_tile %c = %lld is not in [1, %d]", axis[i], (long long)tile[i],
               TPUB_MXU_MAX_TILE);
      e->failed = true;
      return false;
    }
    if (pad[i] < real[i] || pad[i] - real[i] > slack) {
      op_error(e->c, op, "tpu.mxu_pad %c = %lld must be at least the size %lld and at most %lld more",
               axis[i], (long long)pad[i], (long long)real[i], (long long)slack);
      e->failed = true;
      return false;
    }
  }
  field_list(e, 3, tile);
  field_list(e, 3, pad);
  return true;
}

/* Does dot_general's algorithm round a value of type t to its `key`
 * precision type (a float type with fewer exponent or mantissa bits than
 * t's float elements)?  bits: that type's exponent and mantissa widths.
 * The multi-pass algorithms (num_primitive_operations > 1: bf16 x3/x6/x9,
 * tf32 x3) emulate the operand precision, so they round nothing. */
static bool algorithm_rounds(const Attr *alg, const char *key, const Type *t, int64_t bits[2]) {
  static const struct {
    const char *name;
    int64_t e, m;
  } formats[] = {{"bf16", 8, 7},         {"f16", 5, 10},      {"tf32", 8, 10},      {"f32", 8, 23},
                 {"f64", 11, 52},        {"f8E3M4", 3, 4},    {"f8E4M3", 4, 3},     {"f8E4M3FN", 4, 3},
                 {"f8E4M3FNUZ", 4, 3},   {"f8E4M3B11FNUZ", 4, 3}, {"f8E5M2", 5, 2}, {"f8E5M2FNUZ", 5, 2}};
  if (!alg || alg->kind != ATTR_DIALECT || t->kind != TY_TENSOR || !elem_is_float(t->elem)) return false;
  const Attr *n = dialect_param(alg, "num_primitive_operations");
  const char *name = attr_enum_value(dialect_param(alg, key));
  if (!name || (n && n->kind == ATTR_INT && n->u.i > 1)) return false;
  int64_t te = t->elem == ELEM_F64 ? 11 : t->elem == ELEM_F16 ? 5 : 8;
  int64_t tm = t->elem == ELEM_F64 ? 52 : t->elem == ELEM_F32 ? 23 : t->elem == ELEM_F16 ? 10 : 7;
  for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
    if (strcmp(formats[i].name, name) == 0) {
      bits[0] = formats[i].e;
      bits[1] = formats[i].m;
      return bits[0] < te || bits[1] < tm;
    }
  return false;
}

/* Register r of type t, or a new one holding it rounded to the algorithm's
 * `key` precision type (reduce_precision) when that is narrower. */
static uint32_t round_to_algorithm(FuncBuilder *fb, const Op *op, const Attr *alg, const char *key, Type *t,
                                   uint32_t r) {
  int64_t bits[2];
  if (!algorithm_rounds(alg, key, t, bits)) return r;
  uint32_t out = new_reg(fb, t, op);
  fint(fb->e, bits[0]);
  fint(fb->e, bits[1]);
  emit_regs(fb, op, VM_OP_REDUCE_PRECISION, 1, &r, 1, &out);
  return out;
}

/* dot_general; MXU_DOT instead when the layout pass tiled it for the MXU
 * (after a diagnostic the dot_general still defines the result).  An
 * algorithm with narrower precision types rounds the float operands to
 * them first and the result to its accumulation type after. */
void lower_dot_general(FuncBuilder *fb, Op *op, int opcode) {
  Emitter *e = fb->e;
  const Attr *alg = op_attr(op, "algorithm");
  uint32_t in[2] = {reg_of(fb, op->operands[0]), reg_of(fb, op->operands[1])};
  static const char *const sides[2] = {"lhs_precision_type", "rhs_precision_type"};
  for (int i = 0; i < 2; i++) in[i] = round_to_algorithm(fb, op, alg, sides[i], op->operands[i]->type, in[i]);
  const Attr *d = op_attr(op, "dot_dimension_numbers");
  static const char *const keys[] = {"lhs_batching_dimensions", "rhs_batching_dimensions",
                                     "lhs_contracting_dimensions", "rhs_contracting_dimensions", NULL};
  field_dialect_lists(e, d, keys);
  field_precision(e, op);
  if (op_attr(op, "tpu.mxu_tile") && field_mxu_tiling(fb, op)) opcode = VM_OP_MXU_DOT;
  Type *rt = op->results[0].type;
  uint32_t out = bind_value(fb, &op->results[0], op);
  int64_t bits[2];
  if (!algorithm_rounds(alg, "accumulation_type", rt, bits)) {
    emit_regs(fb, op, opcode, 2, in, 1, &out);
    return;
  }
  uint32_t acc = new_reg(fb, rt, op);
  emit_regs(fb, op, opcode, 2, in, 1, &acc);
  fint(e, bits[0]);
  fint(e, bits[1]);
  emit_regs(fb, op, VM_OP_REDUCE_PRECISION, 1, &acc, 1, &out);
}

/* dot: a dot_general contracting lhs's last dimension with rhs's first. */
void lower_dot(FuncBuilder *fb, Op *op, int opcode) {
  Emitter *e = fb->e;
  int64_t lc = op->operands[0]->type->rank - 1, rc = 0;
  field_list(e, 0, NULL);
  field_list(e, 0, NULL);
  field_list(e, 1, &lc);
  field_list(e, 1, &rc);
  field_precision(e, op);
  emit_op(fb, op, opcode);
}

void lower_ragged_dot(FuncBuilder *fb, Op *op, int opcode) {
  const Attr *d = op_attr(op, "ragged_dot_dimension_numbers");
  static const char *const keys[] = {"lhs_batching_dimensions",    "rhs_batching_dimensions",
                                     "lhs_contracting_dimensions", "rhs_contracting_dimensions",
                                     "lhs_ragged_dimensions",      "rhs_group_dimensions",
                                     NULL};
  field_dialect_lists(fb->e, d, keys);
  field_precision(fb->e, op);
  emit_op(fb, op, opcode);
}

/* The padding field of a convolution: its attribute, or dynamic_conv's
 * constant operand 2.  False after a diagnostic. */
static bool field_conv_padding(FuncBuilder *fb, const Op *op, int nspatial) {
  if (op->kind != OP_DYNAMIC_CONV) {
    field_attr_list(fb->e, op, "padding", 2 * nspatial, 0);
    return true;
  }
  int np;
  const int64_t *pad;
  if (!constant_ints(fb->e, op->operands[2], &np, &pad))
    return report_unsupported(fb, op, "dynamic_conv with padding computed at run time");
  field_list(fb->e, np, pad);
  return true;
}

/* convolution and dynamic_conv: window, dimension numbers, group counts. */
void lower_convolution(FuncBuilder *fb, Op *op, int opcode) {
  Emitter *e = fb->e;
  const Attr *dn = op_attr(op, "dimension_numbers");
  if (!dn || dn->kind != ATTR_CONV_DIMS) {
    report_unsupported(fb, op, "a convolution without #stablehlo.conv dimension numbers");
    return;
  }
  const ConvDims *cd = &dn->u.conv;
  int ns = cd->nspatial;
  field_attr_list(e, op, "window_strides", ns, 1);
  if (!field_conv_padding(fb, op, ns)) return;
  field_attr_list(e, op, "lhs_dilation", ns, 1);
  field_attr_list(e, op, "rhs_dilation", ns, 1);
  field_attr_list(e, op, "window_reversal", ns, 0);
  fint(e, cd->input_batch);
  fint(e, cd->input_feature);
  field_list(e, ns, cd->input_spatial);
  fint(e, cd->kernel_input_feature);
  fint(e, cd->kernel_output_feature);
  field_list(e, ns, cd->kernel_spatial);
  fint(e, cd->output_batch);
  fint(e, cd->output_feature);
  field_list(e, ns, cd->output_spatial);
  fint(e, attr_int_or(op, "feature_group_count", 1));
  fint(e, attr_int_or(op, "batch_group_count", 1));
  field_precision(e, op);
  emit_op_range(fb, op, opcode, 0, 2);
}

void lower_fft(FuncBuilder *fb, Op *op, int opcode) {
  static const char *const fft_types[] = {"FFT", "IFFT", "RFFT", "IRFFT", NULL};
  fint(fb->e, attr_enum_index(op, "fft_type", fft_types, 0));
  field_attr_list(fb->e, op, "fft_length", 0, 0);
  emit_op(fb, op, opcode);
}

void lower_triangular_solve(FuncBuilder *fb, Op *op, int opcode) {
  static const char *const transposes[] = {"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT", NULL};
  fint(fb->e, attr_int_or(op, "left_side", 0));
  fint(fb->e, attr_int_or(op, "lower", 0));
  fint(fb->e, attr_int_or(op, "unit_diagonal", 0));
  fint(fb->e, attr_enum_index(op, "transpose_a", transposes, 0));
  emit_op(fb, op, opcode);
}

void lower_cholesky(FuncBuilder *fb, Op *op, int opcode) { emit_with_int(fb, op, opcode, "lower", 0); }

void lower_rng_bit_generator(FuncBuilder *fb, Op *op, int opcode) {
  static const char *const algs[] = {"DEFAULT", "THREE_FRY", "PHILOX", NULL};
  fint(fb->e, attr_enum_index(op, "rng_algorithm", algs, 0));
  emit_op(fb, op, opcode);
}

/* rng: distribution (0 UNIFORM, 1 NORMAL) and a seed hashed from the op's
 * line and column and its place in the bytecode (so two rng ops draw different streams); the shape
 * operand is the result's type. */
void lower_rng(FuncBuilder *fb, Op *op, int opcode) {
  static const char *const dists[] = {"UNIFORM", "NORMAL", NULL};
  uint64_t h = 0xcbf29ce484222325ull;
  h = (h ^ op->loc.line) * 0x100000001b3ull;
  h = (h ^ op->loc.col) * 0x100000001b3ull;
  h = (h ^ fb->e->nops) * 0x100000001b3ull; /* copies of one source op (inlined) differ */
  h = (h ^ fb->ninstrs) * 0x100000001b3ull;
  fint(fb->e, attr_enum_index(op, "rng_distribution", dists, 0));
  fint(fb->e, (int64_t)(h & 0x7fffffffffffffffull));
  emit_op_range(fb, op, opcode, 0, 2);
}
