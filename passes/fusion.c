/* PLACEHOLDER until the pass lands. */
#include "passes/pass.h"

bool pass_fusion(PassContext *pc) {
  (void)pc;
  return true;
}
