/* The preset table (passes/targets.def). */
#include "passes/target.h"

#include <string.h>

static const Target targets[] = {
#define TARGET(id, name, mxu, tflops, tops, hbm_gib, hbm_gbps, vmem_mib, ici_gbps, torus, dcn_gbps, dcn_us) \
  {name, mxu, tflops * 1e12, tops * 1e12, (uint64_t)hbm_gib << 30, hbm_gbps * 1e9, (uint64_t)vmem_mib << 20, ici_gbps * 1e9, \
   torus, dcn_gbps * 1e9, dcn_us * 1e-6},
#include "passes/targets.def"
#undef TARGET
};

const Target *target_lookup(const char *name) {
  for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++)
    if (strcmp(targets[i].name, name) == 0) return &targets[i];
  return NULL;
}

const Target *target_default(void) { return target_lookup("v5e"); }

double target_vpu_ops_per_s(const Target *t) { return t->bf16_flops / TARGET_MXU_PER_VPU_OP; }
