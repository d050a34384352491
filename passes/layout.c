/* PLACEHOLDER until the pass lands. */
#include "passes/pass.h"

bool pass_layout(PassContext *pc) {
  (void)pc;
  return true;
}
