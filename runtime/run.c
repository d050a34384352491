/* The one run path of a program on a slice of chips (runtime/run.h). */
#include "runtime/run.h"

#include <stdlib.h>
#include <string.h>

bool run_stack_type(StackedType *st, const VmType *t, int n) {
  st->dims = malloc(sizeof(int64_t) * ((size_t)t->rank + 1));
  if (!st->dims) return false;
  st->dims[0] = n;
  for (int d = 0; d < t->rank; d++) st->dims[d + 1] = t->dims[d];
  st->type = *t;
  st->type.rank = t->rank + 1;
  st->type.dims = st->dims;
  st->type.count = t->count * n;
  st->type.nbytes = t->nbytes * n;
  return true;
}

void run_chip_args(const VmFunc *fn, int n, const VmValue *whole, const bool *stacked, VmValue *const *args) {
  for (int k = 0; k < n; k++)
    for (uint32_t i = 0; i < fn->n_params; i++) {
      args[k][i].type = fn->reg_types[i];
      args[k][i].data = (char *)whole[i].data + (stacked[i] ? (size_t)fn->reg_types[i]->nbytes * (size_t)k : 0);
    }
}

bool run_stack_result(const VmFunc *fn, int r, VmValue *const *res, int n, StackedType *st, VmValue *out) {
  const VmType *t = fn->result_types[r];
  if (t->kind != TPUB_TY_TENSOR || !run_stack_type(st, t, n)) return false;
  void *data = malloc((size_t)st->type.nbytes + 1);
  if (!data) {
    free(st->dims);
    st->dims = NULL;
    return false;
  }
  for (int k = 0; k < n; k++)
    if (t->nbytes) memcpy((char *)data + (size_t)t->nbytes * (size_t)k, res[k][r].data, (size_t)t->nbytes);
  *out = (VmValue){.type = &st->type, .data = data};
  return true;
}
