/* Type rules of the interpreter dialect's ops added with the host I/O:
 * interpreter.print (its operand is a tensor, as upstream's HLO_Tensor). */
#include "ir/verify_ops.h"

void verify_print(Context *c, Op *op) { vo_require_tensor_operand(c, op, 0); }
