/* Machine presets (passes/targets.def) and the model constants of
 * DESIGN.md §2 that the cost model and the passes share. */
#ifndef PASSES_TARGET_H
#define PASSES_TARGET_H

#include <stdint.h>

typedef struct Target {
  const char *name;     /* "v5e" */
  int mxu;              /* systolic array side: 128 or 256 */
  double bf16_flops;    /* peak bf16 FLOP/s of the chip */
  double int8_ops;      /* peak int8 (v7x: fp8) OP/s */
  uint64_t hbm_bytes;   /* HBM capacity */
  double hbm_bytes_per_s;
  uint64_t vmem_bytes;  /* on-chip scratch */
  double ici_bytes_per_s; /* per link, one way */
  int torus_dims;       /* 2 or 3 */
  double dcn_bytes_per_s; /* between slices: per chip, one way */
  double dcn_s;           /* latency of a DCN message */
} Target;

/* Model assumptions, explicit (DESIGN.md §2). */
#define TARGET_VPU_LANES 128         /* lanes of the vector unit */
#define TARGET_VPU_SUBLANES 8        /* 32-bit sublanes */
#define TARGET_ISSUE_OVERHEAD_S 1e-6 /* fixed cost of issuing one (fused) op */
#define TARGET_ICI_HOP_S 1e-6        /* latency of one ICI hop */
#define TARGET_MXU_PER_VPU_OP 64     /* MXU FLOP/s per VPU element op/s */
/* bf16 MXU passes of an f32 dot by precision: DEFAULT 1, HIGH 3, HIGHEST 6. */
#define TARGET_F32_PASSES_DEFAULT 1
#define TARGET_F32_PASSES_HIGH 3
#define TARGET_F32_PASSES_HIGHEST 6

const Target *target_lookup(const char *name); /* NULL if unknown */
const Target *target_default(void);            /* v5e */
/* Vector-unit element operations per second, derived from the peak FLOP/s
 * (DESIGN.md: never from a unit count): the MXU FLOP rate divided by
 * TARGET_MXU_PER_VPU_OP, the ratio of a systolic array to one 8x128 vector
 * ALU issue per cycle on the TPU generations of the table. */
double target_vpu_ops_per_s(const Target *t);

#endif
