/* Lowering of the data ops (backend/lower.c dispatches here by the LOWER
 * column of ir/ops.def): constants, CHLO's implicitly broadcasting binary
 * ops, comparisons, and the data movement ops with their fields. */
#include <stdlib.h>
#include <string.h>

#include "backend/lower.h"

/* Canonical VM storage of a dense attribute's elements (see vm/tpub.h). */
void lower_constant(FuncBuilder *fb, Op *op, int opcode) {
  Emitter *e = fb->e;
  const Attr *a = op_attr(op, "value");
  int64_t flags = 0, nbytes = 0;
  uint64_t off = 0;
  if (a && a->kind == ATTR_DENSE) {
    ElemKind k = a->type->elem;
    int sz = elem_storage_bytes(k);
    int64_t count = a->u.dense.splat ? 1 : dense_num_elements(a);
    nbytes = count * sz;
    uint8_t *buf = xrealloc(NULL, (size_t)nbytes + 1);
    if (elem_is_int(k)) {
      for (int64_t i = 0; i < count; i++) {
        int64_t v = dense_get_int(a, i);
        int bits = elem_bits(k);
        if (k == ELEM_I1 || k == ELEM_UI1) v &= 1;
        else if (bits < 64 && elem_is_unsigned(k)) v &= (int64_t)((1ull << bits) - 1);
        else if (bits < 64) v = (int64_t)((uint64_t)v << (64 - bits)) >> (64 - bits);
        memcpy(buf + i * sz, &v, (size_t)sz);
      }
    } else {
      if (nbytes) memcpy(buf, a->u.dense.data, (size_t)nbytes);
    }
    off = emit_const_bytes(e, buf, (size_t)nbytes);
    free(buf);
    if (a->u.dense.splat) flags |= 1;
  } else if (a && a->kind == ATTR_DENSE_RESOURCE) {
    const Resource *res = NULL;
    for (int i = 0; i < e->m->nresources; i++)
      if (strcmp(e->m->resources[i].name, a->u.resource.name) == 0) res = &e->m->resources[i];
    int64_t count;
    if (!type_tensor_num_elements(a->type, &count)) count = -1;
    int64_t want = count * elem_storage_bytes(type_elem_kind(a->type));
    if (res && res->data && (int64_t)res->nbytes == want) {
      off = emit_const_bytes(e, res->data, res->nbytes);
      nbytes = want;
    } else if ((!res || !res->hex) && strcmp(a->u.resource.name, "__elided__") == 0) {
      flags |= 2; /* elided: seeded random data at load time */
    } else {
      report_unsupported(fb, op, "a dense_resource without a blob of its type's size"); /* the verifier says why */
      return;
    }
  } else {
    report_unsupported(fb, op, "this constant value");
    return;
  }
  fint(e, (int64_t)off);
  fint(e, nbytes);
  fint(e, flags);
  emit_op(fb, op, opcode);
}

/* get_dimension_size of a static dimension: the size as an i32 constant
 * (canonicalize folds it; this is for -O0). */
void lower_dimension_size(FuncBuilder *fb, Op *op, int opcode) {
  int32_t size;
  if (!static_dimension_size(op, &size)) {
    report_unsupported(fb, op, "get_dimension_size of a dynamic dimension");
    return;
  }
  fint(fb->e, (int64_t)emit_const_bytes(fb->e, &size, sizeof size));
  fint(fb->e, sizeof size);
  fint(fb->e, 0);
  emit_op_range(fb, op, opcode, 0, 0);
}

/* CHLO's binary ops broadcast implicitly: each operand of another shape
 * than the result is broadcast to it first. */
void lower_chlo_binary(FuncBuilder *fb, Op *op, int opcode) {
  Emitter *e = fb->e;
  if (op->nresults != 1 || op->noperands != 2) {
    emit_op(fb, op, opcode);
    return;
  }
  uint32_t in[2];
  const Type *rt = op->results[0].type;
  for (int i = 0; i < 2; i++) {
    const Type *t = op->operands[i]->type;
    in[i] = reg_of(fb, op->operands[i]);
    if (t->kind == TY_TENSOR && t->rank >= 0 && rt->rank >= 0 && t != rt &&
        (t->rank != rt->rank || memcmp(t->dims, rt->dims, sizeof(int64_t) * (size_t)t->rank))) {
      int64_t dims[TPUB_MAX_RANK];
      for (int d = 0; d < t->rank && d < TPUB_MAX_RANK; d++) dims[d] = rt->rank - t->rank + d;
      field_list(e, t->rank, dims);
      Type *bt = type_tensor(e->c, t->elem, rt->rank, rt->dims, NULL);
      uint32_t r = new_reg(fb, bt, op);
      emit_regs(fb, op, VM_OP_BROADCAST_IN_DIM, 1, &in[i], 1, &r);
      in[i] = r;
    }
  }
  uint32_t out = bind_value(fb, &op->results[0], op);
  emit_regs(fb, op, opcode, 2, in, 1, &out);
}

/* The dynamic shape ops lower to their static forms: the shape operand is
 * redundant when the result type is static.  False after a diagnostic. */
static bool static_result(FuncBuilder *fb, const Op *op) {
  int64_t cnt;
  return type_tensor_num_elements(op->results[0].type, &cnt) ||
         report_unsupported(fb, op, "a dynamically shaped result");
}

void lower_dynamic_iota(FuncBuilder *fb, Op *op, int opcode) {
  if (!static_result(fb, op)) return;
  fint(fb->e, attr_int_or(op, "iota_dimension", 0));
  emit_op_range(fb, op, opcode, 0, 0);
}

void lower_dynamic_reshape(FuncBuilder *fb, Op *op, int opcode) {
  if (static_result(fb, op)) emit_op_range(fb, op, opcode, 0, 1);
}

void lower_dynamic_broadcast_in_dim(FuncBuilder *fb, Op *op, int opcode) {
  if (!static_result(fb, op)) return;
  field_attr_list(fb->e, op, "broadcast_dimensions", 0, 0);
  emit_op_range(fb, op, opcode, 0, 1);
}

/* dynamic_pad with constant amounts: a pad. */
void lower_dynamic_pad(FuncBuilder *fb, Op *op, int opcode) {
  int n[3];
  const int64_t *v[3];
  for (int i = 0; i < 3; i++)
    if (!constant_ints(fb->e, op->operands[2 + i], &n[i], &v[i])) {
      report_unsupported(fb, op, "dynamic_pad with padding amounts computed at run time");
      return;
    }
  for (int i = 0; i < 3; i++) field_list(fb->e, n[i], v[i]);
  emit_op_range(fb, op, opcode, 0, 2);
}

void lower_compare(FuncBuilder *fb, Op *op, int opcode) {
  static const char *const dirs[] = {"EQ", "NE", "GE", "GT", "LE", "LT", NULL};
  static const char *const types[] = {"NOTYPE", "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED", NULL};
  fint(fb->e, attr_enum_index(op, "comparison_direction", dirs, 0));
  fint(fb->e, attr_enum_index(op, "compare_type", types, 0));
  emit_op(fb, op, opcode);
}

void lower_reduce_precision(FuncBuilder *fb, Op *op, int opcode) {
  fint(fb->e, attr_int_or(op, "exponent_bits", 8));
  fint(fb->e, attr_int_or(op, "mantissa_bits", 23));
  emit_op(fb, op, opcode);
}

void lower_broadcast_in_dim(FuncBuilder *fb, Op *op, int opcode) {
  emit_with_list(fb, op, opcode, "broadcast_dimensions");
}

/* broadcast prepends dimensions: a broadcast_in_dim onto the trailing ones. */
void lower_broadcast(FuncBuilder *fb, Op *op, int opcode) {
  const Type *t = op->operands[0]->type, *rt = op->results[0].type;
  int64_t dims[TPUB_MAX_RANK];
  int r = t->rank < TPUB_MAX_RANK ? t->rank : TPUB_MAX_RANK;
  for (int d = 0; d < r; d++) dims[d] = rt->rank - t->rank + d;
  field_list(fb->e, r, dims);
  emit_op(fb, op, opcode);
}

void lower_transpose(FuncBuilder *fb, Op *op, int opcode) { emit_with_list(fb, op, opcode, "permutation"); }

void lower_slice(FuncBuilder *fb, Op *op, int opcode) {
  int rank = op->operands[0]->type->rank;
  field_attr_list(fb->e, op, "start_indices", rank, 0);
  field_attr_list(fb->e, op, "limit_indices", rank, 0);
  field_attr_list(fb->e, op, "strides", rank, 1);
  emit_op(fb, op, opcode);
}

void lower_dynamic_slice(FuncBuilder *fb, Op *op, int opcode) { emit_with_list(fb, op, opcode, "slice_sizes"); }

void lower_concatenate(FuncBuilder *fb, Op *op, int opcode) { emit_with_int(fb, op, opcode, "dimension", 0); }

void lower_pad(FuncBuilder *fb, Op *op, int opcode) {
  int rank = op->operands[0]->type->rank;
  field_attr_list(fb->e, op, "edge_padding_low", rank, 0);
  field_attr_list(fb->e, op, "edge_padding_high", rank, 0);
  field_attr_list(fb->e, op, "interior_padding", rank, 0);
  emit_op(fb, op, opcode);
}

void lower_iota(FuncBuilder *fb, Op *op, int opcode) { emit_with_int(fb, op, opcode, "iota_dimension", 0); }

void lower_reverse(FuncBuilder *fb, Op *op, int opcode) { emit_with_list(fb, op, opcode, "dimensions"); }

void lower_get_tuple_element(FuncBuilder *fb, Op *op, int opcode) { emit_with_int(fb, op, opcode, "index", 0); }

/* gather's fields before slice_sizes: the dimension numbers. */
static void field_gather_dims(Emitter *e, const Op *op) {
  const Attr *d = op_attr(op, "dimension_numbers");
  static const char *const keys[] = {"offset_dims", "collapsed_slice_dims", "operand_batching_dims",
                                     "start_indices_batching_dims", "start_index_map", NULL};
  field_dialect_lists(e, d, keys);
  fint(e, dialect_int(d, "index_vector_dim", 0));
}

void lower_gather(FuncBuilder *fb, Op *op, int opcode) {
  field_gather_dims(fb->e, op);
  field_attr_list(fb->e, op, "slice_sizes", 0, 0);
  fint(fb->e, attr_int_or(op, "indices_are_sorted", 0));
  emit_op(fb, op, opcode);
}

/* dynamic_gather whose slice_sizes operand is a constant: a gather with
 * those sizes (the loader checks them against the shapes). */
void lower_dynamic_gather(FuncBuilder *fb, Op *op, int opcode) {
  int n;
  const int64_t *sizes;
  if (!constant_ints(fb->e, op->operands[2], &n, &sizes)) {
    report_unsupported(fb, op, "a dynamic_gather whose slice_sizes is not a constant");
    return;
  }
  field_gather_dims(fb->e, op);
  field_list(fb->e, n, sizes);
  fint(fb->e, attr_int_or(op, "indices_are_sorted", 0));
  emit_op_range(fb, op, opcode, 0, 2);
}

void lower_scatter(FuncBuilder *fb, Op *op, int opcode) {
  Emitter *e = fb->e;
  const Attr *d = op_attr(op, "scatter_dimension_numbers");
  static const char *const keys[] = {"update_window_dims", "inserted_window_dims", "input_batching_dims",
                                     "scatter_indices_batching_dims", "scatter_dims_to_operand_dims", NULL};
  field_dialect_lists(e, d, keys);
  fint(e, dialect_int(d, "index_vector_dim", 0));
  fint(e, attr_int_or(op, "indices_are_sorted", 0));
  fint(e, attr_int_or(op, "unique_indices", 0));
  field_region(fb, op, &op->regions[0]);
  emit_op(fb, op, opcode);
}
