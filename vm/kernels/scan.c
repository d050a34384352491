/* chlo.scan: runs the body region once per index along `dimension`.
 *
 * Operands are N inputs then M initial carries; results are K outputs then
 * the M final carries.  At step t the body gets the inputs' slices at t
 * (the scan dimension removed) and the current carries, and returns the
 * outputs' slices at t and the next carries.  is_reverse walks t from the
 * last index down.  Slices are gathered into (and outputs scattered from)
 * contiguous scratch, except when the scan dimension is the outermost one,
 * where a slice is a contiguous block and is used in place. */
#include <string.h>

#include "vm/kernels/kernels.h"

enum { SCAN_DIMENSION, SCAN_IS_REVERSE, SCAN_NUM_INPUTS, SCAN_BODY };

/* vm_call_region passes at most this many arguments and results. */
#define SCAN_MAX_VALUES 64

/* Operand and result counts of a scan instruction. */
typedef struct ScanCounts {
  int n_inputs, n_carries, n_outputs;
} ScanCounts;

static ScanCounts scan_counts(const VmInstr *ins) {
  ScanCounts s;
  s.n_inputs = (int)vm_field_int(ins, SCAN_NUM_INPUTS);
  s.n_carries = (int)ins->n_in - s.n_inputs;
  s.n_outputs = (int)ins->n_out - s.n_carries;
  return s;
}

/* True when `slice` is `full` with dimension `dim` removed (same element type). */
static bool is_slice_of(const VmType *slice, const VmType *full, int dim) {
  if (!vm_type_is_tensor(slice) || !vm_type_is_tensor(full)) return false;
  if (slice->elem != full->elem || slice->rank + 1 != full->rank) return false;
  for (int d = 0, s = 0; d < full->rank; d++) {
    if (d == dim) continue;
    if (slice->dims[s++] != full->dims[d]) return false;
  }
  return true;
}

bool check_scan(VmCheck *c) {
  const VmInstr *ins = c->ins;
  int64_t num_inputs = vm_field_int(ins, SCAN_NUM_INPUTS);
  int64_t dim = vm_field_int(ins, SCAN_DIMENSION);
  int64_t is_reverse = vm_field_int(ins, SCAN_IS_REVERSE);
  if (is_reverse != 0 && is_reverse != 1)
    return vm_check_fail(c, "scan: is_reverse must be 0 or 1, got %lld", (long long)is_reverse);
  if (num_inputs < 0 || num_inputs > (int64_t)ins->n_in)
    return vm_check_fail(c, "scan: num_inputs %lld out of range [0, %u]", (long long)num_inputs, ins->n_in);
  int64_t n_carries = (int64_t)ins->n_in - num_inputs;
  if (n_carries > (int64_t)ins->n_out)
    return vm_check_fail(c, "scan: %lld carries but only %u results", (long long)n_carries, ins->n_out);
  ScanCounts s = scan_counts(ins);
  if (s.n_inputs + s.n_carries > SCAN_MAX_VALUES || s.n_outputs + s.n_carries > SCAN_MAX_VALUES)
    return vm_check_fail(c, "scan: more than %d body arguments or results", SCAN_MAX_VALUES);
  if (dim < 0 || dim >= TPUB_MAX_RANK)
    return vm_check_fail(c, "scan: dimension %lld out of range", (long long)dim);

  /* The scan length comes from the inputs, else from the outputs. */
  int64_t length = -1;
  for (int i = 0; i < (int)ins->n_in + (int)ins->n_out; i++) {
    bool is_input = i < (int)ins->n_in;
    int k = is_input ? i : i - (int)ins->n_in;
    const VmType *t = is_input ? vm_check_in(c, (uint32_t)k) : vm_check_out(c, (uint32_t)k);
    if (!vm_type_is_tensor(t))
      return vm_check_fail(c, "scan: %s %d is not a tensor", is_input ? "operand" : "result", k);
    bool scanned = is_input ? k < s.n_inputs : k < s.n_outputs;
    if (!scanned) continue;
    if (dim >= t->rank)
      return vm_check_fail(c, "scan: dimension %lld out of range for the rank-%d %s %d", (long long)dim,
                           t->rank, is_input ? "input" : "output", k);
    if (length < 0) length = t->dims[dim];
    if (t->dims[dim] != length)
      return vm_check_fail(c, "scan: %s %d has size %lld along dimension %lld, expected %lld",
                           is_input ? "input" : "output", k, (long long)t->dims[dim], (long long)dim,
                           (long long)length);
  }
  if (length < 0) return vm_check_fail(c, "scan: no input or output gives the scan length");

  if (!vm_check_region(c, SCAN_BODY, s.n_inputs + s.n_carries, NULL, s.n_outputs + s.n_carries, NULL))
    return false;
  const VmFunc *body = &c->prog->funcs[ins->fields[SCAN_BODY].regions[0].func];
  for (int i = 0; i < s.n_inputs; i++)
    if (!is_slice_of(body->reg_types[i], vm_check_in(c, (uint32_t)i), (int)dim))
      return vm_check_fail(c, "scan: body parameter %d is not input %d without dimension %lld", i, i,
                           (long long)dim);
  for (int j = 0; j < s.n_carries; j++) {
    const VmType *init = vm_check_in(c, (uint32_t)(s.n_inputs + j));
    if (!vm_type_equal(body->reg_types[s.n_inputs + j], init))
      return vm_check_fail(c, "scan: body parameter %d does not have the type of init %d", s.n_inputs + j, j);
    if (!vm_type_equal(body->result_types[s.n_outputs + j], init))
      return vm_check_fail(c, "scan: body result %d does not have the type of init %d", s.n_outputs + j, j);
    if (!vm_type_equal(vm_check_out(c, (uint32_t)(s.n_outputs + j)), init))
      return vm_check_fail(c, "scan: result %d does not have the type of init %d", s.n_outputs + j, j);
  }
  for (int k = 0; k < s.n_outputs; k++)
    if (!is_slice_of(body->result_types[k], vm_check_out(c, (uint32_t)k), (int)dim))
      return vm_check_fail(c, "scan: body result %d is not output %d without dimension %lld", k, k,
                           (long long)dim);
  return true;
}

/* How one scanned tensor splits around the scan dimension: `outer` blocks
 * of `length` slabs of `slab` bytes; a slice is one slab of every block. */
typedef struct ScanLayout {
  int64_t outer, slab;
  size_t slice_bytes;
  char *scratch; /* contiguous slice, or NULL when the slice is used in place */
} ScanLayout;

static ScanLayout scan_layout(const VmType *t, int dim) {
  ScanLayout l;
  int64_t inner = 1;
  l.outer = 1;
  for (int d = 0; d < dim; d++) l.outer *= t->dims[d];
  for (int d = dim + 1; d < t->rank; d++) inner *= t->dims[d];
  l.slab = inner * vm_elem_bytes(t->elem);
  l.slice_bytes = (size_t)(l.outer * l.slab);
  l.scratch = NULL;
  return l;
}

/* Copies slice t of `full` into `slice` (to_slice) or back. */
static void scan_copy(const ScanLayout *l, int64_t length, int64_t t, char *full, char *slice, bool to_slice) {
  if (l->slab == 0) return;
  for (int64_t o = 0; o < l->outer; o++) {
    char *f = full + (o * length + t) * l->slab, *s = slice + o * l->slab;
    if (to_slice)
      memcpy(s, f, (size_t)l->slab);
    else
      memcpy(f, s, (size_t)l->slab);
  }
}

/* Scratch rounded up so that every carved buffer stays 16-byte aligned. */
static size_t align16(size_t n) { return (n + 15) & ~(size_t)15; }

int exec_scan(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  ScanCounts s = scan_counts(ins);
  int dim = (int)vm_field_int(ins, SCAN_DIMENSION);
  bool reverse = vm_field_int(ins, SCAN_IS_REVERSE) != 0;
  const VmRegion *body = &ins->fields[SCAN_BODY].regions[0];
  const VmFunc *body_fn = vm_region_func(x, body);
  const VmType *len_type = s.n_inputs ? in[0].type : out[0].type;
  int64_t length = len_type->dims[dim];

  ScanLayout lin[SCAN_MAX_VALUES], lout[SCAN_MAX_VALUES];
  size_t total = 0;
  for (int i = 0; i < s.n_inputs; i++) {
    lin[i] = scan_layout(in[i].type, dim);
    if (lin[i].outer != 1) total += align16(lin[i].slice_bytes);
  }
  for (int k = 0; k < s.n_outputs; k++) {
    lout[k] = scan_layout(out[k].type, dim);
    if (lout[k].outer != 1) total += align16(lout[k].slice_bytes);
  }
  for (int j = 0; j < s.n_carries; j++) total += 2 * align16((size_t)in[s.n_inputs + j].type->nbytes);
  size_t alloc_bytes = total ? total : 1;
  char *scratch = vm_scratch_alloc(x, alloc_bytes);
  if (!scratch) return vm_trap(x, "out of memory: scan slices (%zu bytes)", total);

  char *p = scratch;
  for (int i = 0; i < s.n_inputs; i++)
    if (lin[i].outer != 1) lin[i].scratch = p, p += align16(lin[i].slice_bytes);
  for (int k = 0; k < s.n_outputs; k++)
    if (lout[k].outer != 1) lout[k].scratch = p, p += align16(lout[k].slice_bytes);
  /* Carries alternate between two buffers so that a body returning its
   * carries permuted never reads a value the same call overwrote. */
  char *carry[2][SCAN_MAX_VALUES];
  for (int j = 0; j < s.n_carries; j++) {
    size_t n = align16((size_t)in[s.n_inputs + j].type->nbytes);
    carry[0][j] = p, carry[1][j] = p + n, p += 2 * n;
    memcpy(carry[0][j], in[s.n_inputs + j].data, (size_t)in[s.n_inputs + j].type->nbytes);
  }

  VmTensor args[SCAN_MAX_VALUES], results[SCAN_MAX_VALUES];
  int cur = 0, status = VM_OK;
  for (int64_t step = 0; status == VM_OK && step < length; step++) {
    int64_t t = reverse ? length - 1 - step : step;
    for (int i = 0; i < s.n_inputs; i++) {
      char *full = in[i].data;
      args[i].type = body_fn->reg_types[i];
      if (lin[i].scratch) {
        scan_copy(&lin[i], length, t, full, lin[i].scratch, true);
        args[i].data = lin[i].scratch;
      } else {
        args[i].data = lin[i].slab ? full + t * lin[i].slab : full;
      }
    }
    for (int j = 0; j < s.n_carries; j++) {
      args[s.n_inputs + j].type = in[s.n_inputs + j].type;
      args[s.n_inputs + j].data = carry[cur][j];
      results[s.n_outputs + j].data = carry[1 - cur][j];
    }
    for (int k = 0; k < s.n_outputs; k++) {
      char *full = out[k].data;
      results[k].data = lout[k].scratch ? lout[k].scratch : lout[k].slab ? full + t * lout[k].slab : full;
    }
    status = vm_call_region(x, body, args, s.n_inputs + s.n_carries, results);
    if (status != VM_OK) break;
    for (int k = 0; k < s.n_outputs; k++)
      if (lout[k].scratch) scan_copy(&lout[k], length, t, out[k].data, lout[k].scratch, false);
    cur = 1 - cur;
  }
  if (status == VM_OK)
    for (int j = 0; j < s.n_carries; j++)
      memcpy(out[s.n_outputs + j].data, carry[cur][j], (size_t)out[s.n_outputs + j].type->nbytes);
  vm_scratch_free(x, scratch, alloc_bytes);
  return status;
}
