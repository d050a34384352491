/* A dot_general or convolution seen as the batched matrix product the MXU
 * runs: batch x (M x K) * (K x N). */
#ifndef PASSES_CONTRACTION_H
#define PASSES_CONTRACTION_H

#include <stdbool.h>
#include <stdint.h>

#include "ir/ir.h"

typedef struct Contraction {
  int64_t batch; /* product of the batching dimensions (dot) or feature groups (conv) */
  int64_t m;     /* lhs free dims (dot) or batch x output spatial positions (conv) */
  int64_t n;     /* rhs free dims (dot) or output features per group (conv) */
  int64_t k;     /* contracting dims (dot) or input features per group x kernel window (conv) */
  bool has_batching; /* a dot_general with batching dimensions (e.g. attention heads) */
} Contraction;

/* False for other ops and for shapes that are not static. */
bool contraction_dims(const Op *op, Contraction *out);

#endif
