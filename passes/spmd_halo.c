/* Windowed ops on spatially tiled values (convolution, reduce_window, pad,
 * slice): each partition fetches the rows its window needs from its
 * neighbours with collective_permute (halo exchange). */
#include "passes/spmd_part.h"

bool spmd_halo_map(const Spmd *s, const Op *op, int operand, int64_t *out) {
  (void)s, (void)op, (void)operand, (void)out;
  return false;
}

int part_halo(Part *P, Op *op) {
  (void)P, (void)op;
  return -1;
}
