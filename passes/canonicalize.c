/* PLACEHOLDER until the pass lands. */
#include "passes/pass.h"

bool pass_canonicalize(PassContext *pc) {
  (void)pc;
  return true;
}
