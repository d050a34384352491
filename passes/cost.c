/* The first-order TPU cost model (passes/cost.h, docs/passes.md "Cost
 * model").  Each op's work is split into MXU FLOPs, vector-unit element
 * operations, HBM bytes and ICI time; its modeled time is the slowest of
 * the units plus a fixed issue overhead.  Every assumption that is not a
 * figure of the target table is a named constant below. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ir/table.h"
#include "passes/cost.h"
#include "passes/pass.h"
#include "common/ici.h"

/* Vector-unit operations per element of the op classes (DESIGN.md §2 gives
 * no figures; these follow the relative costs of XLA's TPU cost analysis:
 * one VPU issue for simple arithmetic, a divide is a reciprocal estimate plus
 * Newton steps, a transcendental a polynomial on the same unit). */
#define COST_DIVIDE_OPS 4         /* divide, remainder */
#define COST_TRANSCENDENTAL_OPS 10 /* exp, log, tanh, logistic, sin, cos, sqrt, rsqrt, ... */
#define COST_POWER_OPS 20          /* pow = exp(y * log(x)) */
#define COST_SPECIAL_OPS 40        /* lgamma, digamma, erf_inv, zeta, polygamma, bessel */
#define COST_RNG_OPS 8             /* a counter-based hash per random element */
/* Data types the VPU emulates with several 32-bit operations per element. */
#define COST_F64_FACTOR 8      /* f64 arithmetic in double-f32 form */
#define COST_WIDE_INT_FACTOR 2 /* 64-bit integers: two 32-bit words */
#define COST_COMPLEX_FACTOR 4  /* a complex multiply-add is four real ones */
/* Calls nested deeper than this, or beyond this many ops visited for one
 * op, are costed as nothing (recursion and call-tree blow-up guards). */
#define COST_MAX_CALL_DEPTH 32
#define COST_MAX_VISITS 1000000
/* Calls the report expands into their callee's rows before calls become
 * one row each. */
#define COST_MAX_EXPANDED_ROWS 100000

/* How an op is priced: the COST column of ir/ops.def. */
typedef enum CostKind {
  CK_FREE,           /* bookkeeping: constants, tuples, returns, checks */
  CK_MOVE,           /* data movement: one VPU op per element written outside a fusion */
  CK_RESHAPE,        /* free when it keeps the tiled layout, else data movement */
  CK_BITCAST,        /* free when the element width stays, else data movement */
  CK_ELEMENTWISE,    /* element-wise, one VPU op per element */
  CK_DIVIDE,         /* element-wise divide, remainder */
  CK_TRANSCENDENTAL, /* element-wise exp, log, sin, ... */
  CK_POWER,          /* element-wise pow */
  CK_SPECIAL,        /* element-wise lgamma, digamma, zeta, ... */
  CK_CLAMP,          /* element-wise max then min */
  CK_MAP,            /* element-wise, its body's ops per element */
  CK_DOT,            /* contractions: MXU passes (cost_gemm_shape) */
  CK_DOT_GENERAL,
  CK_CONVOLUTION,
  CK_REDUCE,         /* the body per input element */
  CK_WINDOW,         /* the body per window element */
  CK_SORT,           /* a bitonic network */
  CK_FFT,
  CK_CHOLESKY,
  CK_TRIANGULAR_SOLVE,
  CK_BATCH_NORM_INFERENCE,
  CK_BATCH_NORM_TRAINING,
  CK_BATCH_NORM_GRAD,
  CK_RNG,            /* a hash per random element; writes only its result */
  CK_SCATTER,        /* the combiner per update element; in place */
  CK_ALL_GATHER,     /* collectives: ICI time from common/ici.h */
  CK_REDUCE_SCATTER,
  CK_ALL_REDUCE,
  CK_CROSS_REPLICA_SUM,
  CK_ALL_TO_ALL,
  CK_COLLECTIVE_BROADCAST,
  CK_COLLECTIVE_PERMUTE,
  CK_SEND,
  CK_OPAQUE,         /* unknown work: only the HBM traffic */
  CK_CALL,           /* the callee's ops */
  CK_WHILE,          /* one trip of both regions */
  CK_BRANCH,         /* the most expensive region */
  CK_ASYNC_START,    /* the collective it starts */
  CK_FUSION,         /* its body as one kernel */
  CK_IOTA,           /* data movement that reads nothing */
  CK_SLICE,          /* data movement that reads only what it writes */
  CK_GATHER,         /* reads what it writes and the indices */
  CK_UPDATE_SLICE,   /* in place: the update read and written */
} CostKind;

static const unsigned char op_cost_kinds[OP_COUNT] = {
#define OP(id, name, mino, maxo, nres, nreg, traits, elems, verify, infer, cost, ...) [OP_##id] = CK_##cost,
#include "ir/ops.def"
#undef OP
};

static CostKind cost_kind(const Op *op) { return (CostKind)op_cost_kinds[op->kind]; }

/* "-", "MXU", "VPU", "HBM", "ICI", "issue" */
static const char *cost_bound_name(CostBound b) {
  static const char *const names[] = {"-", "MXU", "VPU", "HBM", "ICI", "issue"};
  return (unsigned)b < sizeof names / sizeof names[0] ? names[b] : "?";
}

static double pad_to(double x, double m) { return ceil(x / m) * m; }

/* ------------------------------------------------------------------ */
/* Tiled layouts. */

/* Bytes one element takes in HBM: sub-byte kinds are stored as 8-bit. */
static double hbm_elem_bytes(const Type *t) {
  if (t->elem_opaque) return 1; /* quantized storage types are 8-bit */
  int bits = elem_bits(t->elem);
  return bits <= 8 ? 1 : bits <= 16 ? 2 : bits / 8;
}

/* Rows of one tile in the second-minor dimension: (8,128) for 32-bit and
 * wider (a 64-bit element is two 32-bit words), (16,128) 16-bit, (32,128)
 * 8-bit and narrower. */
static double tile_rows(const Type *t) {
  double b = hbm_elem_bytes(t);
  return b == 1 ? 32 : b == 2 ? 16 : 8;
}

static double dim_or_one(int64_t d) { return d == DIM_DYNAMIC ? 1 : (double)d; }

/* Elements of a tensor type (dynamic dimensions count as 1). */
static double num_elems(const Type *t) {
  if (!t) return 0;
  if (t->kind == TY_TUPLE) {
    double n = 0;
    for (int i = 0; i < t->ninputs; i++) n += num_elems(t->inputs[i]);
    return n;
  }
  if (t->kind == TY_ELEM) return 1;
  if (t->kind != TY_TENSOR || t->rank < 0) return 0;
  double n = 1;
  for (int i = 0; i < t->rank; i++) n *= dim_or_one(t->dims[i]);
  return n;
}

/* Elements of a tensor type in its tiled layout, padding included.  Rank 1
 * is laid out as 1xN and rank 0 as 1x1: both fill a whole tile's rows. */
static double tiled_elems(const Type *t) {
  if (!t) return 0;
  if (t->kind == TY_TUPLE) {
    double n = 0;
    for (int i = 0; i < t->ninputs; i++) n += tiled_elems(t->inputs[i]);
    return n;
  }
  if (t->kind == TY_ELEM) return tile_rows(t) * 128;
  if (t->kind != TY_TENSOR || t->rank < 0) return 0;
  double minor = t->rank >= 1 ? dim_or_one(t->dims[t->rank - 1]) : 1;
  double second = t->rank >= 2 ? dim_or_one(t->dims[t->rank - 2]) : 1;
  double outer = 1;
  for (int i = 0; i + 2 < t->rank; i++) outer *= dim_or_one(t->dims[i]);
  return outer * pad_to(second, tile_rows(t)) * pad_to(minor, 128);
}

double cost_tiled_bytes(const Type *t) {
  if (!t) return 0;
  if (t->kind == TY_TUPLE) {
    double n = 0;
    for (int i = 0; i < t->ninputs; i++) n += cost_tiled_bytes(t->inputs[i]);
    return n;
  }
  if (t->kind != TY_TENSOR && t->kind != TY_ELEM) return 0;
  return tiled_elems(t) * hbm_elem_bytes(t);
}

static double operand_bytes(const Op *op) {
  double b = 0;
  for (int i = 0; i < op->noperands; i++) b += cost_tiled_bytes(op->operands[i]->type);
  return b;
}

static double result_bytes(const Op *op) {
  double b = 0;
  for (int i = 0; i < op->nresults; i++) b += cost_tiled_bytes(op->results[i].type);
  return b;
}

/* ------------------------------------------------------------------ */
/* Op classes. */

/* A reshape that keeps the two minor dimensions is a bitcast of the tiled
 * layout (rank 0 and 1 compare as 1x1 and 1xN). */
static bool reshape_is_bitcast(const Op *op) {
  const Type *a = op->operands[0]->type, *b = op->results[0].type;
  if (a->kind != TY_TENSOR || b->kind != TY_TENSOR || a->rank < 0 || b->rank < 0) return false;
  for (int k = 1; k <= 2; k++) {
    int64_t da = a->rank >= k ? a->dims[a->rank - k] : 1, db = b->rank >= k ? b->dims[b->rank - k] : 1;
    if (da != db) return false;
  }
  return true;
}

bool cost_op_is_free(const Op *op) {
  switch (cost_kind(op)) {
  case CK_FREE: return true;
  case CK_RESHAPE: return reshape_is_bitcast(op);
  case CK_BITCAST: {
    const Type *a = op->operands[0]->type, *b = op->results[0].type;
    return a->kind == TY_TENSOR && b->kind == TY_TENSOR && a->rank == b->rank && !a->elem_opaque &&
           !b->elem_opaque && elem_bits(a->elem) == elem_bits(b->elem);
  }
  default: return false;
  }
}

/* Vector-unit operations per element of an element-wise op; 0 for the
 * other ops. */
static double elementwise_weight(const Op *op);

static double body_weight(const Op *op) {
  double w = 0;
  for (int r = 0; r < op->nregions; r++)
    for (int b = 0; b < op->regions[r].nblocks; b++)
      for (const Op *o = op->regions[r].blocks[b]->first; o; o = o->next)
        if (!(op_info[o->kind].traits & TRAIT_TERMINATOR) && !cost_op_is_free(o)) {
          double ew = elementwise_weight(o);
          w += ew > 0 ? ew : 1;
        }
  return w > 0 ? w : 1;
}

static double elementwise_weight(const Op *op) {
  switch (cost_kind(op)) {
  case CK_ELEMENTWISE: return 1;
  case CK_DIVIDE: return COST_DIVIDE_OPS;
  case CK_TRANSCENDENTAL: return COST_TRANSCENDENTAL_OPS;
  case CK_POWER: return COST_POWER_OPS;
  case CK_SPECIAL: return COST_SPECIAL_OPS;
  case CK_CLAMP: return 2;
  case CK_MAP: return body_weight(op);
  default: return 0;
  }
}

/* 32-bit VPU operations per element operation on kind t. */
static double elem_vpu_factor(const Type *t) {
  if (!t || (t->kind != TY_TENSOR && t->kind != TY_ELEM) || t->elem_opaque) return 1;
  ElemKind k = t->elem;
  if (k == ELEM_F64) return COST_F64_FACTOR;
  if (k == ELEM_C64) return COST_COMPLEX_FACTOR;
  if (k == ELEM_C128) return COST_COMPLEX_FACTOR * COST_F64_FACTOR;
  if (elem_bits(k) > 32) return COST_WIDE_INT_FACTOR;
  return 1;
}

static double op_vpu_factor(const Op *op) {
  double f = op->nresults ? elem_vpu_factor(op->results[0].type) : 1;
  if (op->noperands) f = fmax(f, elem_vpu_factor(op->operands[0]->type));
  return f;
}

/* ------------------------------------------------------------------ */
/* Attributes. */

/* Integers of a list attribute in any of its spellings; the count, at most max. */
static int int_list(const Attr *a, int64_t *out, int max) {
  if (!a) return 0;
  int n = 0;
  switch (a->kind) {
  case ATTR_DENSE_ARRAY:
    if (!elem_is_int(a->u.darray.elem)) return 0;
    for (; n < a->u.darray.n && n < max; n++) out[n] = a->u.darray.ints[n];
    return n;
  case ATTR_INT_LIST:
    for (; n < a->u.ilist.n && n < max; n++) out[n] = a->u.ilist.v[n];
    return n;
  case ATTR_ARRAY:
    for (int i = 0; i < a->u.array.n && n < max; i++)
      if (a->u.array.items[i]->kind == ATTR_INT) out[n++] = a->u.array.items[i]->u.i;
    return n;
  case ATTR_DENSE: {
    if (!a->type || !elem_is_int(a->type->elem) || a->type->elem_opaque || a->type->rank > 1) return 0;
    int64_t cnt = dense_num_elements(a);
    for (; n < cnt && n < max; n++) out[n] = dense_get_int(a, a->u.dense.splat ? 0 : n);
    return n;
  }
  default: return 0;
  }
}

#define COST_MAX_DIMS 16

static bool in_list(int64_t d, const int64_t *v, int n) {
  for (int i = 0; i < n; i++)
    if (v[i] == d) return true;
  return false;
}

/* Product of the dims of t listed in v (want true) or not listed in any of
 * the lists (want false). */
static double dims_product(const Type *t, const int64_t *v, int n, const int64_t *x, int nx, bool want) {
  double p = 1;
  if (t->kind != TY_TENSOR || t->rank < 0) return 0;
  for (int i = 0; i < t->rank; i++) {
    bool listed = in_list(i, v, n);
    if (want ? listed : !listed && !in_list(i, x, nx)) p *= dim_or_one(t->dims[i]);
  }
  return p;
}

static bool tensor_ok(const Type *t) { return t && t->kind == TY_TENSOR && t->rank >= 0; }

bool cost_gemm_shape(const Op *op, GemmShape *g) {
  *g = (GemmShape){1, 1, 1, 1, false};
  if (op->noperands < 2 || op->nresults < 1) return false;
  const Type *l = op->operands[0]->type, *r = op->operands[1]->type, *res = op->results[0].type;
  if (!tensor_ok(l) || !tensor_ok(r) || !tensor_ok(res)) return false;
  switch (cost_kind(op)) {
  case CK_DOT:
    g->k = l->rank ? dim_or_one(l->dims[l->rank - 1]) : 1;
    g->m = l->rank == 2 ? dim_or_one(l->dims[0]) : 1;
    g->n = r->rank == 2 ? dim_or_one(r->dims[1]) : 1;
    return true;
  case CK_DOT_GENERAL: {
    const Attr *d = op_attr(op, op->kind == OP_DOT_GENERAL ? "dot_dimension_numbers" : "ragged_dot_dimension_numbers");
    int64_t lb[COST_MAX_DIMS], rb[COST_MAX_DIMS], lc[COST_MAX_DIMS], rc[COST_MAX_DIMS], rg[COST_MAX_DIMS];
    int nlb = int_list(dialect_param(d, "lhs_batching_dimensions"), lb, COST_MAX_DIMS);
    int nrb = int_list(dialect_param(d, "rhs_batching_dimensions"), rb, COST_MAX_DIMS);
    int nlc = int_list(dialect_param(d, "lhs_contracting_dimensions"), lc, COST_MAX_DIMS);
    int nrc = int_list(dialect_param(d, "rhs_contracting_dimensions"), rc, COST_MAX_DIMS);
    int nrg = int_list(dialect_param(d, "rhs_group_dimensions"), rg, COST_MAX_DIMS);
    for (int i = 0; i < nrc && nrg < COST_MAX_DIMS; i++) rg[nrg++] = rc[i];
    g->b = dims_product(l, lb, nlb, NULL, 0, true);
    g->k = dims_product(l, lc, nlc, NULL, 0, true);
    g->m = dims_product(l, lb, nlb, lc, nlc, false);
    g->n = dims_product(r, rb, nrb, rg, nrg, false);
    g->batched = nlb > 0;
    return true;
  }
  case CK_CONVOLUTION: {
    const Attr *dn = op_attr(op, "dimension_numbers");
    if (!dn || dn->kind != ATTR_CONV_DIMS) return false;
    const ConvDims *cd = &dn->u.conv;
    if (cd->output_batch >= res->rank || cd->output_feature >= res->rank || cd->kernel_input_feature >= r->rank)
      return false;
    g->m = dim_or_one(res->dims[cd->output_batch]);
    g->n = dim_or_one(res->dims[cd->output_feature]);
    g->k = dim_or_one(r->dims[cd->kernel_input_feature]);
    for (int i = 0; i < cd->nspatial; i++) {
      if (cd->output_spatial[i] < res->rank) g->m *= dim_or_one(res->dims[cd->output_spatial[i]]);
      if (cd->kernel_spatial[i] < r->rank) g->k *= dim_or_one(r->dims[cd->kernel_spatial[i]]);
    }
    return true;
  }
  default: return false;
  }
}

/* Where a contraction runs, by its operand types: the MXU in bf16 passes, at
 * the int8 rate, or emulated on the vector unit. */
typedef enum DotClass { DOT_INT8, DOT_BF16, DOT_F32, DOT_VPU } DotClass;

static DotClass elem_dot_class(const Type *t) {
  if (!tensor_ok(t) || t->elem_opaque) return DOT_INT8;
  ElemKind k = t->elem;
  int bits = elem_bits(k);
  switch (elem_class(k)) {
  case EC_FLOAT: return bits <= 8 ? DOT_INT8 : bits == 16 ? DOT_BF16 : bits == 32 ? DOT_F32 : DOT_VPU;
  case EC_INT: case EC_UINT: case EC_SINT: return bits <= 8 ? DOT_INT8 : DOT_VPU;
  default: return DOT_VPU;
  }
}

static bool unit_is_vpu(const Op *op) {
  const Attr *u = op_attr(op, "tpu.unit");
  return u && u->kind == ATTR_STRING && u->u.str.len == 3 && memcmp(u->u.str.s, "vpu", 3) == 0;
}

/* Is V an integer tensor whose values come from an integer of at most 8
 * bits, through a widening convert and at most a zero-point subtraction?
 * That is what quant-lower's integer path for quantized contractions feeds
 * the MXU: TPUs run such a contraction at the int8 rate, with the zero
 * point's term as a correction (sum (a - za) b = sum a b - za sum b).
 * Looks through tpu.fusion operands and results. */
static bool from_narrow_int(const Value *v, int depth) {
  if (depth > 8 || !v || !tensor_ok(v->type) || !elem_is_int(v->type->elem)) return false;
  if (!v->def) {
    const Op *f = v->block && v->block->parent ? v->block->parent->parent : NULL;
    return f && f->kind == OP_TPU_FUSION && v->index < f->noperands &&
           from_narrow_int(f->operands[v->index], depth + 1);
  }
  const Op *d = v->def;
  if (d->kind == OP_TPU_FUSION) {
    Block *b = op_body(d);
    const Op *y = b ? b->last : NULL;
    return y && y->kind == OP_TPU_YIELD && v->index < y->noperands && from_narrow_int(y->operands[v->index], depth + 1);
  }
  if (d->kind == OP_CONVERT && d->noperands == 1) {
    const Type *in = d->operands[0]->type;
    return tensor_ok(in) && elem_is_int(in->elem) && elem_bits(in->elem) <= 8;
  }
  if (d->kind == OP_SUBTRACT && d->noperands == 2 && d->operands[1]->def &&
      d->operands[1]->def->kind == OP_CONSTANT)
    return from_narrow_int(d->operands[0], depth + 1);
  return false;
}

static DotClass operand_dot_class(const Value *v) {
  return from_narrow_int(v, 0) ? DOT_INT8 : elem_dot_class(v->type);
}

static DotClass dot_class(const Op *op) {
  DotClass a = operand_dot_class(op->operands[0]), b = operand_dot_class(op->operands[1]);
  return a > b ? a : b;
}

bool cost_runs_on_mxu(const Op *op) {
  GemmShape g;
  return cost_gemm_shape(op, &g) && !unit_is_vpu(op) && dot_class(op) != DOT_VPU;
}

/* bf16 MXU passes of an f32 contraction: the highest precision asked for. */
static double f32_passes(const Op *op) {
  const Attr *a = op_attr(op, "precision_config");
  double p = TARGET_F32_PASSES_DEFAULT;
  if (a && a->kind == ATTR_ARRAY)
    for (int i = 0; i < a->u.array.n; i++) {
      const char *v = attr_enum_value(a->u.array.items[i]);
      if (v && strcmp(v, "HIGHEST") == 0) p = fmax(p, TARGET_F32_PASSES_HIGHEST);
      else if (v && strcmp(v, "HIGH") == 0) p = fmax(p, TARGET_F32_PASSES_HIGH);
    }
  return p;
}

/* ------------------------------------------------------------------ */
/* Work of one op, without the HBM traffic of its operands and results. */

typedef struct Work {
  double flops, mxu_flops, mxu_s, vpu_ops, ici_s, dcn_s;
  double ideal_mxu_s; /* MXU FLOPs at the peak rate of their dtype: util = ideal / time */
  double extra_bytes; /* HBM re-reads of tiled contractions */
} Work;

/* HBM bytes beyond one read of each operand of an MXU-tiled contraction:
 * an operand that does not fit in half of VMEM is read again for every
 * column (lhs) or row (rhs) of output tiles. */
static double tile_rereads(const Op *op, const Target *t, const GemmShape *g) {
  int64_t tile[3];
  if (int_list(op_attr(op, "tpu.mxu_tile"), tile, 3) != 3 || tile[0] <= 0 || tile[1] <= 0) return 0;
  double a = cost_tiled_bytes(op->operands[0]->type), b = cost_tiled_bytes(op->operands[1]->type);
  double resident = (double)t->vmem_bytes / 2, extra = 0;
  if (a > resident) extra += a * (ceil(g->n / (double)tile[1]) - 1);
  if (b > resident) extra += b * (ceil(g->m / (double)tile[0]) - 1);
  return extra;
}

static void contraction_work(const Op *op, const Target *t, Work *w) {
  GemmShape g;
  if (!cost_gemm_shape(op, &g)) return;
  double flops = 2 * g.b * g.m * g.n * g.k;
  w->flops += flops;
  DotClass cls = dot_class(op);
  if (cls == DOT_VPU || unit_is_vpu(op)) {
    double f = fmax(elem_vpu_factor(op->operands[0]->type), elem_vpu_factor(op->operands[1]->type));
    w->vpu_ops += flops * f;
    return;
  }
  double passes = cls == DOT_F32 ? f32_passes(op) : 1;
  double mxu = t->mxu, rate = cls == DOT_INT8 ? t->int8_ops : t->bf16_flops;
  double mf = 2 * g.b * pad_to(g.m, TARGET_VPU_SUBLANES) * pad_to(g.n, mxu) * pad_to(g.k, mxu) * passes;
  w->mxu_flops += mf;
  w->mxu_s += mf / rate;
  w->ideal_mxu_s += flops / rate;
  w->extra_bytes += tile_rereads(op, t, &g);
}

/* ------------------------------------------------------------------ */
/* Collectives on the ICI torus (common/ici.h). */

/* The builtin.module around op, or NULL. */
static const Op *module_of(const Op *op) {
  while (op && op->kind != OP_MODULE) op = op->parent && op->parent->parent ? op->parent->parent->parent : NULL;
  return op;
}

/* An integer attribute of the module around op (mhlo.num_replicas, ...),
 * def when absent or not a positive integer. */
static int64_t module_int(const Op *op, const char *name, int64_t def) {
  const Op *m = module_of(op);
  const Attr *a = m ? op_attr(m, name) : NULL;
  int64_t v;
  return a && attr_as_int(a, &v) && v >= 1 ? v : def;
}

/* The spec's process-group modes. */
typedef enum GroupMode { GM_REPLICA, GM_PARTITION, GM_REPLICA_AND_PARTITION, GM_FLATTENED } GroupMode;

static int64_t channel_handle(const Op *op) {
  const Attr *ch = op_attr(op, "channel_handle"), *h = ch && ch->kind == ATTR_DIALECT ? dialect_param(ch, "handle") : NULL;
  int64_t v;
  return h && attr_as_int(h, &v) ? v : 0;
}

/* all_gather, all_reduce and reduce_scatter choose by channel and
 * use_global_device_ids; the others by the channel alone. */
static GroupMode group_mode(const Op *op) {
  if (channel_handle(op) <= 0) return GM_REPLICA;
  if (op->kind != OP_ALL_GATHER && op->kind != OP_ALL_REDUCE && op->kind != OP_REDUCE_SCATTER) return GM_PARTITION;
  const Attr *g = op_attr(op, "use_global_device_ids");
  return g && (g->kind == ATTR_UNIT || (g->kind == ATTR_BOOL && g->u.b)) ? GM_FLATTENED : GM_REPLICA_AND_PARTITION;
}

/* Bounds that keep a malformed count from making the model loop long. */
#define COST_MAX_CHIPS (1 << 20)
#define COST_MAX_GROUP_IDS (1 << 16)

/* A 2-d integer attribute (replica_groups, source_target_pairs): rows x
 * cols ids, NULL when absent or of another form. */
static const Attr *id_rows(const Op *op, const char *name, int64_t *rows, int64_t *cols) {
  const Attr *a = op_attr(op, name);
  if (!a || a->kind != ATTR_DENSE || !a->type || a->type->kind != TY_TENSOR || a->type->rank != 2 ||
      a->type->elem_opaque || !elem_is_int(a->type->elem) || !type_is_static(a->type))
    return NULL;
  *rows = a->type->dims[0];
  *cols = a->type->dims[1];
  bool small = *rows <= COST_MAX_GROUP_IDS && *cols <= COST_MAX_GROUP_IDS && *rows * *cols <= COST_MAX_GROUP_IDS;
  return small ? a : NULL;
}

/* The ICI model's name for op's collective; false for other ops. */
static bool ici_kind_of(const Op *op, IciCollective *k) {
  switch (cost_kind(op)) {
  case CK_ALL_GATHER: *k = ICI_ALL_GATHER; return true;
  case CK_REDUCE_SCATTER: *k = ICI_REDUCE_SCATTER; return true;
  case CK_ALL_REDUCE: case CK_CROSS_REPLICA_SUM: *k = ICI_ALL_REDUCE; return true;
  case CK_ALL_TO_ALL: *k = ICI_ALL_TO_ALL; return true;
  case CK_COLLECTIVE_BROADCAST: *k = ICI_COLLECTIVE_BROADCAST; return true;
  case CK_COLLECTIVE_PERMUTE: *k = ICI_COLLECTIVE_PERMUTE; return true;
  case CK_SEND: *k = ICI_SEND_RECV; return true;
  default: return false;
  }
}

/* Chips of the slice that one group of ids (n of them, -1 padding
 * skipped) names in mode gm, into out (at most cap); the count. */
static int group_chips(GroupMode gm, const Attr *ids, int64_t first, int64_t n, int64_t partitions, int *out,
                       int64_t cap) {
  int k = 0;
  for (int64_t i = 0; i < n; i++) {
    int64_t id = dense_get_int(ids, first + i);
    if (id < 0) continue;
    int64_t per = gm == GM_REPLICA_AND_PARTITION ? partitions : 1;
    for (int64_t p = 0; p < per && k < cap; p++)
      out[k++] = (int)(gm == GM_REPLICA ? id * partitions : gm == GM_REPLICA_AND_PARTITION ? id * partitions + p : id);
  }
  return k;
}

/* The run's chips (the module's) on the target: tpu.num_slices slices
 * (tpucc --slices; 1 when absent or when it does not divide the chips),
 * each on the target's default torus of its share of the chips. */
static IciFabric fabric_of(const Op *op, const Target *t, int64_t chips) {
  int64_t slices = module_int(op, "tpu.num_slices", 1);
  if (chips % slices) slices = 1;
  IciFabric f = {.slices = (int)slices, .link_bytes_per_s = t->ici_bytes_per_s, .hop_s = TARGET_ICI_HOP_S,
                 .dcn_bytes_per_s = t->dcn_bytes_per_s, .dcn_s = t->dcn_s};
  ici_default_mesh((int)(chips / slices), t->torus_dims, &f.mesh);
  return f;
}

/* The slower of two collective times. */
static IciTime slower(IciTime a, IciTime b) { return b.total_s > a.total_s ? b : a; }

/* Seconds of a collective (common/ici.h), ICI and DCN: its groups resolved
 * to the module's chips, mhlo.num_replicas x mhlo.num_partitions (default
 * 1, grown to hold every id the op names), in tpu.num_slices slices of the
 * target's default torus (fabric_of); the slowest group sets the time.  A
 * group of one chip, or a run beyond COST_MAX_CHIPS chips, costs nothing. */
static IciTime collective_seconds(const Op *op, const Target *t) {
  IciCollective kind;
  IciTime none = {0, 0, 0};
  if (!ici_kind_of(op, &kind)) return none;
  bool pairs = kind == ICI_COLLECTIVE_PERMUTE || kind == ICI_SEND_RECV;
  int64_t rows = 0, cols = 0;
  const Attr *ids = id_rows(op, pairs ? "source_target_pairs" : "replica_groups", &rows, &cols);
  if (pairs && (!ids || cols != 2)) return none;
  if (!ids) rows = cols = 0;
  GroupMode gm = op->kind == OP_CROSS_REPLICA_SUM ? GM_REPLICA : group_mode(op);
  int64_t reps = module_int(op, "mhlo.num_replicas", 1), parts = module_int(op, "mhlo.num_partitions", 1), top = -1;
  for (int64_t i = 0; i < rows * cols; i++) {
    int64_t id = dense_get_int(ids, i);
    if (id > top) top = id;
  }
  if (top >= COST_MAX_CHIPS || reps > COST_MAX_CHIPS || parts > COST_MAX_CHIPS) return none;
  if (gm == GM_PARTITION && top >= parts) parts = top + 1;
  if ((gm == GM_REPLICA || gm == GM_REPLICA_AND_PARTITION) && top >= reps) reps = top + 1;
  if (gm == GM_FLATTENED && top >= reps * parts) reps = (top + parts) / parts;
  int64_t chips = reps * parts;
  if (chips > COST_MAX_CHIPS) return none;
  IciFabric fabric = fabric_of(op, t, chips);
  double bytes = op->kind == OP_ALL_GATHER ? result_bytes(op) : operand_bytes(op);
  int64_t cap = 2 * chips + 2;
  int *group = malloc(sizeof(int) * (size_t)cap), *scratch = malloc(sizeof(int) * (size_t)cap);
  IciTime worst = none;
  if (!group || !scratch) {
    free(group);
    free(scratch);
    return none;
  }
  if (rows * cols == 0) {
    /* No groups: one of every replica (partition, chip) of the mode. */
    int n = 0;
    int64_t step = gm == GM_REPLICA ? parts : 1, count = gm == GM_REPLICA ? reps : gm == GM_PARTITION ? parts : chips;
    for (int64_t i = 0; i < count; i++) group[n++] = (int)(i * step);
    worst = pairs ? none : ici_fabric_seconds(kind, bytes, group, n, &fabric, scratch);
  } else if (pairs) {
    GroupMode pm = gm == GM_REPLICA ? GM_REPLICA : GM_PARTITION;
    int n = 0;
    for (int64_t r = 0; r < rows; r++) {
      int pair[2];
      if (group_chips(pm, ids, 2 * r, 2, parts, pair, 2) == 2 && n + 2 <= cap) group[n++] = pair[0], group[n++] = pair[1];
    }
    worst = ici_fabric_seconds(kind, bytes, group, n, &fabric, scratch);
  } else {
    for (int64_t r = 0; r < rows; r++) {
      int n = group_chips(gm, ids, r * cols, cols, parts, group, cap);
      worst = slower(worst, ici_fabric_seconds(kind, bytes, group, n, &fabric, scratch));
    }
  }
  free(group);
  free(scratch);
  return worst;
}

/* A collective's seconds into w: all of them as ICI (the unit that
 * carries them), the DCN part also apart. */
static void collective_work(const Op *op, const Target *t, Work *w) {
  IciTime c = collective_seconds(op, t);
  w->ici_s += c.total_s;
  w->dcn_s += c.dcn_s;
}

/* Window elements of a reduce_window / select_and_scatter. */
static double window_size(const Op *op) {
  int64_t w[COST_MAX_DIMS];
  int n = int_list(op_attr(op, "window_dimensions"), w, COST_MAX_DIMS);
  double s = 1;
  for (int i = 0; i < n; i++) s *= (double)w[i];
  return s;
}

/* VPU work of ops elements of op's operand 0 each cost. */
static void vpu_work(const Op *op, double ops, Work *w) {
  w->flops += ops;
  w->vpu_ops += ops * op_vpu_factor(op);
}

/* Work of the ops whose body (or algorithm) runs on the vector unit. */
static void algorithm_work(const Op *op, Work *w) {
  const Type *res = op->nresults ? op->results[0].type : NULL;
  const Type *in = op->noperands ? op->operands[0]->type : NULL;
  switch (cost_kind(op)) {
  case CK_REDUCE:
    w->flops += body_weight(op) * num_elems(in);
    w->vpu_ops += body_weight(op) * tiled_elems(in) * op_vpu_factor(op);
    return;
  case CK_WINDOW:
    vpu_work(op, body_weight(op) * window_size(op) * num_elems(op->kind == OP_REDUCE_WINDOW ? res : in), w);
    return;
  case CK_SORT: {
    /* A bitonic network: log2(d) (log2(d) + 1) / 2 compare-exchange stages. */
    int64_t dim = -1; /* absent: the last dimension, as the kernel sorts */
    const Attr *a = op_attr(op, "dimension");
    if (a) attr_as_int(a, &dim);
    double d = tensor_ok(in) && in->rank > 0 ? dim_or_one(in->dims[dim >= 0 && dim < in->rank ? dim : in->rank - 1]) : 1;
    double lg = d > 1 ? ceil(log2(d)) : 0;
    vpu_work(op, num_elems(in) * lg * (lg + 1) / 2 * body_weight(op), w);
    return;
  }
  case CK_FFT: {
    int64_t len[COST_MAX_DIMS];
    int n = int_list(op_attr(op, "fft_length"), len, COST_MAX_DIMS);
    double l = 1;
    for (int i = 0; i < n; i++) l *= (double)len[i];
    vpu_work(op, 5 * fmax(num_elems(in), num_elems(res)) * (l > 1 ? log2(l) : 1), w);
    return;
  }
  case CK_CHOLESKY:
  case CK_TRIANGULAR_SOLVE: {
    double n = tensor_ok(in) && in->rank > 0 ? dim_or_one(in->dims[in->rank - 1]) : 1;
    vpu_work(op, cost_kind(op) == CK_CHOLESKY ? num_elems(in) * n / 3 : num_elems(op->operands[1]->type) * n, w);
    return;
  }
  case CK_BATCH_NORM_INFERENCE:
  case CK_BATCH_NORM_TRAINING:
  case CK_BATCH_NORM_GRAD: {
    CostKind k = cost_kind(op);
    double per = k == CK_BATCH_NORM_INFERENCE ? 4 : k == CK_BATCH_NORM_TRAINING ? 8 : 12;
    w->flops += per * num_elems(in);
    w->vpu_ops += per * tiled_elems(in) * op_vpu_factor(op);
    return;
  }
  case CK_SCATTER: {
    /* The combiner runs once per update element. */
    int n = (op->noperands - 1) / 2;
    double upd = 0;
    for (int i = 0; i < n; i++) upd += num_elems(op->operands[n + 1 + i]->type);
    vpu_work(op, upd * body_weight(op), w);
    return;
  }
  default: die("cost kind without an algorithm");
  }
}

/* Work of op; in a fusion body data movement is free (it is addressing
 * inside the kernel). */
static void op_work(const Op *op, const Target *t, Work *w, bool fused) {
  if (cost_op_is_free(op)) return;
  const Type *res = op->nresults ? op->results[0].type : NULL;
  const Type *in = op->noperands ? op->operands[0]->type : NULL;
  double ew = elementwise_weight(op);
  if (ew > 0) {
    w->flops += num_elems(res);
    w->vpu_ops += tiled_elems(res) * ew * op_vpu_factor(op);
    return;
  }
  switch (cost_kind(op)) {
  case CK_DOT: case CK_DOT_GENERAL: case CK_CONVOLUTION: contraction_work(op, t, w); return;
  case CK_REDUCE: case CK_WINDOW: case CK_SORT: case CK_FFT: case CK_CHOLESKY: case CK_TRIANGULAR_SOLVE:
  case CK_BATCH_NORM_INFERENCE: case CK_BATCH_NORM_TRAINING: case CK_BATCH_NORM_GRAD: case CK_SCATTER:
    algorithm_work(op, w);
    return;
  case CK_RNG:
    w->flops += num_elems(op->results[op->nresults - 1].type);
    w->vpu_ops += COST_RNG_OPS * tiled_elems(op->results[op->nresults - 1].type);
    return;
  case CK_ALL_GATHER: case CK_REDUCE_SCATTER: case CK_ALL_REDUCE: case CK_CROSS_REPLICA_SUM:
  case CK_ALL_TO_ALL: case CK_COLLECTIVE_BROADCAST: case CK_COLLECTIVE_PERMUTE:
    collective_work(op, t, w);
    if (op->nregions || cost_kind(op) == CK_CROSS_REPLICA_SUM) {
      w->flops += num_elems(in);
      w->vpu_ops += tiled_elems(in) * op_vpu_factor(op);
    }
    return;
  case CK_SEND: collective_work(op, t, w); return;
  case CK_OPAQUE: return; /* unknown work: only their HBM traffic is modeled */
  default:
    /* Data movement: broadcast, transpose, slice, concatenate, pad, gather,
     * reverse, iota, dynamic slices, relayouting reshapes: one VPU op per
     * element written. */
    if (!fused) w->vpu_ops += tiled_elems(res);
    return;
  }
}

/* HBM bytes of an op outside a fusion: its operands and results, except
 * where it touches only part of them. */
static double op_bytes(const Op *op) {
  switch (cost_kind(op)) {
  case CK_IOTA: case CK_RNG: return result_bytes(op);
  case CK_SLICE: return 2 * result_bytes(op);
  case CK_GATHER: return 2 * result_bytes(op) + cost_tiled_bytes(op->operands[1]->type);
  case CK_UPDATE_SLICE: {
    /* In place: the update is read and written, plus the start indices. */
    double b = 2 * cost_tiled_bytes(op->operands[1]->type);
    for (int i = 2; i < op->noperands; i++) b += cost_tiled_bytes(op->operands[i]->type);
    return b;
  }
  case CK_SCATTER: {
    /* In place: updates read, their targets read and written, indices read. */
    int n = (op->noperands - 1) / 2;
    double b = cost_tiled_bytes(op->operands[n]->type);
    for (int i = 0; i < n; i++) b += 3 * cost_tiled_bytes(op->operands[n + 1 + i]->type);
    return b;
  }
  default: return operand_bytes(op) + result_bytes(op);
  }
}

/* ------------------------------------------------------------------ */
/* Totals. */

/* time, bound and utilization from the units' work. */
static OpCost finish(const Work *w, double hbm_bytes, const Target *t) {
  OpCost c = {0};
  c.flops = w->flops;
  c.mxu_flops = w->mxu_flops;
  c.vpu_ops = w->vpu_ops;
  c.hbm_bytes = hbm_bytes;
  c.mxu_s = w->mxu_s;
  c.vpu_s = w->vpu_ops / target_vpu_ops_per_s(t);
  c.hbm_s = hbm_bytes / t->hbm_bytes_per_s;
  c.ici_s = w->ici_s;
  c.dcn_s = w->dcn_s;
  double m = c.mxu_s;
  c.bound = BOUND_MXU;
  if (c.vpu_s > m) m = c.vpu_s, c.bound = BOUND_VPU;
  if (c.hbm_s > m) m = c.hbm_s, c.bound = BOUND_HBM;
  if (c.ici_s > m) m = c.ici_s, c.bound = BOUND_ICI;
  if (m < TARGET_ISSUE_OVERHEAD_S) c.bound = BOUND_ISSUE;
  c.time_s = m + TARGET_ISSUE_OVERHEAD_S;
  c.mxu_util = w->ideal_mxu_s / c.time_s;
  return c;
}

/* Sums costs of ops run one after the other; the bound is where most of
 * the time went. */
typedef struct Sum {
  OpCost c;
  double by_bound[BOUND_ISSUE + 1];
  double ideal_mxu_s;
} Sum;

static void sum_add(Sum *s, const OpCost *c) {
  s->c.flops += c->flops;
  s->c.mxu_flops += c->mxu_flops;
  s->c.vpu_ops += c->vpu_ops;
  s->c.hbm_bytes += c->hbm_bytes;
  s->c.mxu_s += c->mxu_s;
  s->c.vpu_s += c->vpu_s;
  s->c.hbm_s += c->hbm_s;
  s->c.ici_s += c->ici_s;
  s->c.dcn_s += c->dcn_s;
  s->c.time_s += c->time_s;
  s->by_bound[c->bound] += c->time_s;
  s->ideal_mxu_s += c->mxu_util * c->time_s;
}

static OpCost sum_finish(const Sum *s) {
  OpCost c = s->c;
  c.bound = BOUND_NONE;
  double best = 0;
  for (int b = BOUND_MXU; b <= BOUND_ISSUE; b++)
    if (s->by_bound[b] > best) best = s->by_bound[b], c.bound = (CostBound)b;
  c.mxu_util = c.time_s > 0 ? s->ideal_mxu_s / c.time_s : 0;
  return c;
}

static OpCost cost_at_depth(const Op *op, const Target *t, int depth, long *budget);

static void sum_block(Sum *s, const Block *b, const Target *t, int depth, long *budget) {
  for (const Op *o = b->first; o && --*budget > 0; o = o->next) {
    OpCost c = cost_at_depth(o, t, depth, budget);
    if (c.time_s > 0) sum_add(s, &c);
  }
}

/* The func.func a func.call names, found through the enclosing module. */
static const Op *callee_of(const Op *call) {
  const Attr *a = op_attr(call, "callee");
  if (!a || a->kind != ATTR_SYMREF) return NULL;
  const Op *m = call;
  while (m && m->kind != OP_MODULE) m = m->parent && m->parent->parent ? m->parent->parent->parent : NULL;
  if (!m || !op_body(m)) return NULL;
  for (const Op *f = op_body(m)->first; f; f = f->next) {
    const char *n = op_symbol_name(f);
    if (f->kind == OP_FUNC && n && strcmp(n, a->u.str.s) == 0) return op_body(f) ? f : NULL;
  }
  return NULL;
}

/* The cost of op; budget counts down the ops visited inside calls and
 * regions. */
static OpCost cost_at_depth(const Op *op, const Target *t, int depth, long *budget) {
  Sum s = {0};
  switch (cost_kind(op)) {
  case CK_CALL: {
    const Op *f = callee_of(op);
    if (f && depth < COST_MAX_CALL_DEPTH) sum_block(&s, op_body(f), t, depth + 1, budget);
    return sum_finish(&s);
  }
  case CK_WHILE: /* one trip: the trip count is not known at compile time */
    for (int r = 0; r < op->nregions; r++)
      for (int b = 0; b < op->regions[r].nblocks; b++) sum_block(&s, op->regions[r].blocks[b], t, depth, budget);
    return sum_finish(&s);
  case CK_BRANCH: { /* the most expensive branch */
    OpCost best = {0};
    for (int r = 0; r < op->nregions; r++) {
      Sum branch = {0};
      for (int b = 0; b < op->regions[r].nblocks; b++)
        sum_block(&branch, op->regions[r].blocks[b], t, depth, budget);
      OpCost c = sum_finish(&branch);
      if (c.time_s > best.time_s) best = c;
    }
    return best;
  }
  case CK_ASYNC_START: {
    /* The collective it starts, priced as if it ran alone. */
    const Block *b = op_body(op);
    return b && b->first && b->first != b->last ? cost_at_depth(b->first, t, depth, budget) : (OpCost){0};
  }
  case CK_FUSION: {
    Work w = {0};
    for (int r = 0; r < op->nregions; r++)
      for (int b = 0; b < op->regions[r].nblocks; b++)
        for (const Op *o = op->regions[r].blocks[b]->first; o; o = o->next) op_work(o, t, &w, true);
    return finish(&w, operand_bytes(op) + result_bytes(op) + w.extra_bytes, t);
  }
  default:
    if (cost_op_is_free(op)) return (OpCost){0};
    Work w = {0};
    op_work(op, t, &w, false);
    return finish(&w, op_bytes(op) + w.extra_bytes, t);
  }
}

OpCost cost_of_op(const Op *op, const Target *t) {
  long budget = COST_MAX_VISITS;
  return cost_at_depth(op, t, 0, &budget);
}

/* ------------------------------------------------------------------ */
/* The report. */

/* "16.0 GiB", "3.2 MiB", "12.0 KiB", "512 B". */
void cost_format_bytes(double bytes, char *buf, size_t len) {
  if (bytes >= (double)(1u << 30)) snprintf(buf, len, "%.1f GiB", bytes / (double)(1u << 30));
  else if (bytes >= (double)(1u << 20)) snprintf(buf, len, "%.1f MiB", bytes / (double)(1u << 20));
  else if (bytes >= 1024) snprintf(buf, len, "%.1f KiB", bytes / 1024);
  else snprintf(buf, len, "%.0f B", bytes);
}

/* The two streams of the report's total: the compute stream runs the rows
 * in order; the ICI stream runs one collective at a time.  A plain
 * collective holds the compute stream until it ends; a tpu.async_start
 * issues on the ICI stream once the compute stream has reached it (its
 * operands are ready) and the ICI stream is free, and its tpu.async_done
 * makes the compute stream wait for the end.  Collectives inside control
 * flow run synchronously within their row. */
typedef struct Streams {
  double clock_s;    /* the compute stream */
  double ici_free_s; /* when the ICI stream is next free */
  double compute_s, ici_s, exposed_s; /* busy times; compute time spent waiting for the ICI */
  double dcn_s;      /* of ici_s, the DCN stages of collectives across slices */
  Table ends;        /* tpu.async_start Op* -> (double *) end of its transfer */
} Streams;

typedef struct Report {
  const Target *t;
  FILE *out;
  Sum total;
  Streams st;
  long expand; /* calls that may still be expanded */
  long visits; /* ops all rows may still visit inside calls and regions */
} Report;

/* Ops that only move data between chips. */
static bool is_communication(const Op *op) {
  IciCollective k;
  return ici_kind_of(op, &k);
}

/* Advances the streams over one row of cost c. */
static void streams_row(Streams *s, const Op *op, const OpCost *c) {
  if (op->kind == OP_TPU_ASYNC_START) {
    double start = fmax(s->clock_s, s->ici_free_s);
    s->ici_free_s = start + c->time_s;
    s->ici_s += c->time_s;
    s->dcn_s += c->dcn_s;
    double *end = malloc(sizeof *end);
    if (!end) return; /* the done then waits for nothing: a report, not a failure */
    *end = s->ici_free_s;
    void **slot = table_put(&s->ends, op, 0);
    free(*slot);
    *slot = end;
    return;
  }
  if (is_communication(op) && c->ici_s > 0) {
    double end = fmax(s->clock_s, s->ici_free_s) + c->time_s;
    s->exposed_s += end - s->clock_s;
    s->ici_s += c->time_s;
    s->dcn_s += c->dcn_s;
    s->clock_s = s->ici_free_s = end;
    return;
  }
  s->clock_s += c->time_s;
  s->compute_s += c->time_s - c->ici_s;
  s->ici_s += c->ici_s;
  s->dcn_s += c->dcn_s;
  s->exposed_s += c->ici_s;
}

/* A tpu.async_done: the compute stream waits for its start's transfer. */
static void streams_done(Streams *s, const Op *done) {
  const Op *start = done->noperands ? done->operands[0]->def : NULL;
  void **slot = start ? table_get(&s->ends, start, 0) : NULL;
  if (!slot || !*slot) return;
  double end = *(double *)*slot;
  if (end > s->clock_s) {
    s->exposed_s += end - s->clock_s;
    s->clock_s = end;
  }
}

static void report_row(Report *r, const Op *op, const OpCost *c, int depth) {
  char name[96], loc[160];
  const char *kind = NULL;
  if (op->kind == OP_TPU_FUSION) {
    const Attr *k = op_attr(op, "kind");
    kind = k && k->kind == ATTR_STRING ? k->u.str.s : "?";
  } else if (op->kind == OP_TPU_ASYNC_START && op_body(op) && op_body(op)->first) {
    const char *inner = op_body(op)->first->name, *dot = strchr(inner, '.');
    kind = dot ? dot + 1 : inner;
  }
  int ind = depth < 8 ? 2 * depth : 16;
  if (kind) snprintf(name, sizeof name, "%*s%s(%s)", ind, "", op->name, kind);
  else snprintf(name, sizeof name, "%*s%s", ind, "", op->name);
  if (op->loc.file) {
    const char *f = op->loc.file->name, *slash = strrchr(f, '/');
    snprintf(loc, sizeof loc, "%s:%u:%u", slash ? slash + 1 : f, op->loc.line, op->loc.col);
  } else {
    snprintf(loc, sizeof loc, "-");
  }
  fprintf(r->out, "%-34s %-30s %16.0f %14.0f %12.3f %-5s %6.1f\n", name, loc, c->flops, c->hbm_bytes, c->time_s * 1e6,
          cost_bound_name(c->bound), 100 * c->mxu_util);
}

/* Rows for the ops of b; calls are expanded into their callee's rows
 * until the expansion budget runs out, then they are one row each. */
static void report_block(Report *r, const Block *b, int depth) {
  for (const Op *op = b->first; op; op = op->next) {
    const Op *f = op->kind == OP_FUNC_CALL ? callee_of(op) : NULL;
    if (f && depth < COST_MAX_CALL_DEPTH && --r->expand > 0) {
      report_block(r, op_body(f), depth + 1);
      continue;
    }
    if (op->kind == OP_TPU_ASYNC_DONE) {
      streams_done(&r->st, op);
      continue;
    }
    OpCost c = cost_at_depth(op, r->t, depth, &r->visits);
    if (c.time_s <= 0) continue;
    report_row(r, op, &c, depth);
    sum_add(&r->total, &c);
    streams_row(&r->st, op, &c);
  }
}

static bool func_is_private(const Op *f) {
  const Attr *v = op_attr(f, "sym_visibility");
  return v && v->kind == ATTR_STRING && v->u.str.len == 7 && memcmp(v->u.str.s, "private", 7) == 0;
}

/* The SPMD line: a partitioned program is costed per chip. */
static void spmd_report(const PassContext *pc, FILE *out) {
  if (!pc->spmd_partitions) return;
  static const char *const kinds[5] = {"all_gather", "all_reduce", "reduce_scatter", "all_to_all", "collective_permute"};
  fprintf(out, "spmd: partitioned for %lld chips; every figure is per chip (the ICI of the collectives included); inserted:",
          (long long)pc->spmd_partitions);
  uint64_t total = 0;
  for (int k = 0; k < 5; k++) {
    if (pc->spmd_inserted[k]) fprintf(out, " %llu %s", (unsigned long long)pc->spmd_inserted[k], kinds[k]);
    total += pc->spmd_inserted[k];
  }
  fprintf(out, "%s\n", total ? "" : " no collectives");
}

/* The multislice line (tpu.num_slices > 1): the slices, the DCN figures
 * and the part of the ICI stream's time its DCN stages took. */
static void multislice_report(const Module *m, const Target *t, const Streams *st, FILE *out) {
  const Attr *a = op_attr(m->op, "tpu.num_slices");
  int64_t slices = 1;
  if (!a || !attr_as_int(a, &slices) || slices <= 1) return;
  int64_t chips = 1, v;
  static const char *const counts[2] = {"mhlo.num_replicas", "mhlo.num_partitions"};
  for (int i = 0; i < 2; i++)
    if ((a = op_attr(m->op, counts[i])) && attr_as_int(a, &v) && v >= 1) chips *= v;
  if (chips % slices) {
    fprintf(out, "dcn: tpu.num_slices = %lld does not divide the %lld chips: one slice modeled\n", (long long)slices,
            (long long)chips);
    return;
  }
  fprintf(out, "dcn: %lld slices of %lld chips, DCN %.3f GB/s per chip one way, %.1f us a message; DCN %.3f us of the "
          "ICI stream's %.3f us\n", (long long)slices, (long long)(chips / slices), t->dcn_bytes_per_s / 1e9,
          t->dcn_s * 1e6, st->dcn_s * 1e6, st->ici_s * 1e6);
}

void cost_report(const PassContext *pc, FILE *out) {
  const Module *m = pc->m;
  const Target *t = pc->target;
  uint64_t peak_hbm_bytes = pc->peak_hbm_bytes;
  Report r = {.t = t, .out = out, .expand = COST_MAX_EXPANDED_ROWS, .visits = COST_MAX_VISITS};
  const char *file = m->file ? m->file->name : "<module>";
  fprintf(out,
          "tpucc report: %s on %s (MXU %dx%d, %.0f TFLOP/s bf16, %.0f TOP/s int8, HBM %.0f GiB at %.0f GB/s)\n",
          file, t->name, t->mxu, t->mxu, t->bf16_flops / 1e12, t->int8_ops / 1e12,
          (double)t->hbm_bytes / (double)(1u << 30), t->hbm_bytes_per_s / 1e9);
  spmd_report(pc, out);
  fprintf(out, "%-34s %-30s %16s %14s %12s %-5s %6s\n", "op", "location", "FLOPs", "HBM bytes", "time (us)", "bound",
          "MXU %");
  /* Entry points: @main, else every public function, else every function. */
  const Op *main_fn = module_lookup_func(m, "main");
  int entries = 0;
  if (main_fn && op_body(main_fn)) {
    report_block(&r, op_body(main_fn), 0);
    entries++;
  }
  for (int pass = 0; pass < 2 && !entries; pass++)
    for (const Op *f = op_body(m->op) ? op_body(m->op)->first : NULL; f; f = f->next)
      if (f->kind == OP_FUNC && op_body(f) && (pass == 1 || !func_is_private(f))) {
        fprintf(out, "func @%s\n", op_symbol_name(f) ? op_symbol_name(f) : "?");
        report_block(&r, op_body(f), 0);
        entries++;
      }
  OpCost tot = sum_finish(&r.total);
  Streams *st = &r.st;
  tot.time_s = fmax(st->clock_s, st->ici_free_s);
  tot.mxu_util = tot.time_s > 0 ? r.total.ideal_mxu_s / tot.time_s : 0;
  table_free(&st->ends, free);
  fprintf(out, "time by bound: MXU %.3f us, VPU %.3f us, HBM %.3f us, ICI %.3f us, issue %.3f us\n",
          r.total.by_bound[BOUND_MXU] * 1e6, r.total.by_bound[BOUND_VPU] * 1e6, r.total.by_bound[BOUND_HBM] * 1e6,
          r.total.by_bound[BOUND_ICI] * 1e6, r.total.by_bound[BOUND_ISSUE] * 1e6);
  char peak[80], size[32];
  cost_format_bytes((double)peak_hbm_bytes, size, sizeof size);
  snprintf(peak, sizeof peak, "%s (%llu bytes)", size, (unsigned long long)peak_hbm_bytes);
  fprintf(out, "total: modeled %.3f us, %.0f FLOPs, %.0f HBM bytes, MXU utilization %.1f%%, peak HBM %s\n",
          tot.time_s * 1e6, tot.flops, tot.hbm_bytes, 100 * tot.mxu_util,
          peak_hbm_bytes ? peak : "not computed (buffer-assign did not run)");
  layout_report(pc, out);
  fprintf(out, "streams: compute %.3f us, ICI %.3f us; total %.3f us, of which ICI exposed %.3f us\n",
          st->compute_s * 1e6, st->ici_s * 1e6, tot.time_s * 1e6, st->exposed_s * 1e6);
  multislice_report(m, t, st, out);
}
