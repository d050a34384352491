/* The first-order TPU cost model of DESIGN.md §2, per (fused) top-level op:
 *   time = max(MXU FLOPs / MXU rate, VPU ops / VPU rate, HBM bytes / HBM
 *          bandwidth) + TARGET_ISSUE_OVERHEAD_S
 * with arrays in their tiled layouts ((8,128) 32-bit, (16,128) 16-bit,
 * (32,128) 8-bit in the two minor dimensions) and MXU operands padded to
 * the target's MXU size.  Used by `tpucc --report`, by the fusion pass (HBM
 * bytes saved) and, through the back end's COSTS section, by
 * `tpurun --profile`. */
#ifndef PASSES_COST_H
#define PASSES_COST_H

#include <stdio.h>

#include "ir/ir.h"
#include "passes/target.h"

typedef struct PassContext PassContext;

typedef enum CostBound { BOUND_NONE, BOUND_MXU, BOUND_VPU, BOUND_HBM, BOUND_ICI, BOUND_ISSUE } CostBound;

typedef struct OpCost {
  double flops;        /* useful arithmetic: 2*M*N*K for a dot, 1 per element op */
  double mxu_flops;    /* FLOPs the MXU executes: padded to its size, times passes */
  double vpu_ops;      /* vector-unit element operations */
  double hbm_bytes;    /* bytes read and written in HBM, tiled layouts */
  double mxu_s, vpu_s, hbm_s, ici_s; /* time of each unit alone */
  double dcn_s;        /* of ici_s, the part on the DCN between slices (tpu.num_slices) */
  double time_s;       /* modeled time: the max of the above + issue overhead; 0 for free ops */
  CostBound bound;     /* the unit that sets time_s */
  double mxu_util;     /* flops / (time_s * peak MXU rate); 0 without MXU work */
} OpCost;

/* Bytes of a tensor type in its tiled HBM layout (0 for tokens; tuples sum). */
double cost_tiled_bytes(const Type *t);
/* Cost of one op that sits directly in a function body (a tpu.fusion counts
 * its operands and results as HBM traffic and its body as compute). */
OpCost cost_of_op(const Op *op, const Target *t);

/* No time and no HBM traffic: constants (weights already in HBM), tuples,
 * get_tuple_element, returns, optimization_barrier, reshapes that keep the
 * two minor dimensions and same-width bitcast_converts (views of their
 * operand's buffer), check and probe ops, tpu.async_done (its start
 * carries the collective's cost). */
bool cost_op_is_free(const Op *op);

/* The GEMM a dot, dot_general, ragged dot or convolution implies: batch b,
 * rows m, columns n, contraction k (a convolution: m = batch x output
 * spatial, n = output features, k = kernel spatial x input features per
 * group).  false for other ops. */
typedef struct GemmShape {
  double b, m, n, k;
  bool batched; /* dot_general with batching dimensions */
} GemmShape;
bool cost_gemm_shape(const Op *op, GemmShape *g);
/* A contraction the model puts on the MXU: float operands of 32 bits or
 * less, integers of 8 bits or less, and no tpu.unit = "vpu". */
bool cost_runs_on_mxu(const Op *op);

/* "16.0 GiB", "3.2 MiB", "12.0 KiB", "512 B". */
void cost_format_bytes(double bytes, char *buf, size_t len);

/* The --report table of module m on target t: one row per top-level op
 * with cost (constants, returns and free ops are left out), then the
 * program total, the MXU utilization of the whole program and the peak HBM
 * (peak_hbm_bytes from buffer-assign, 0: not known), the transposes
 * folded and left (layout_report).  The total runs the
 * rows on a compute stream and an ICI stream (async collectives overlap
 * the compute; plain ones block it); the last line gives both streams'
 * busy times and the ICI time the compute stream waited for. */
void cost_report(const PassContext *pc, FILE *out);

#endif
