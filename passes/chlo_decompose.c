/* PLACEHOLDER until the pass lands. */
#include "passes/pass.h"

bool pass_chlo_decompose(PassContext *pc) {
  (void)pc;
  return true;
}
