/* The interpreter dialect's host I/O: interpreter.print (the PRINT opcode)
 * and the INFEED opcode (below).  interpreter.print: writes "NAME = TYPE {ELEMENTS}" to
 * stdout in the StableHLO reference interpreter's form, e.g.
 *     %0 = tensor<2x2xi8> {
 *       [
 *         [1, 2],
 *         [3, 4]
 *       ]
 *     }
 * Integers in decimal, i1 as true / false, floats as %.6e when that reads
 * back as the same value (else %.17g), complex as [re, im].  One print
 * holds stdout's lock (flockfile) while it writes, so the prints of the
 * chips of a run_parallel never interleave. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "vm/dtype.h"
#include "vm/io/io.h"
#include "vm/kernels/kernels.h"

/* One real of element type elem, as MLIR's FloatAttr prints it. */
static void print_real(FILE *out, int elem, double v) {
  char buf[64];
  snprintf(buf, sizeof buf, "%.6e", v);
  if (v != v) fputs("0x7FC00000", out);
  else if (vm_float_bits_to_f64(elem, vm_f64_to_float_bits(elem, strtod(buf, NULL))) == v) fputs(buf, out);
  else fprintf(out, "%.17g", v);
}

/* Element i of a tensor of elem. */
static void print_elem(FILE *out, int elem, const void *data, int64_t i) {
  if (vm_elem_class(elem) == TPUB_CLASS_COMPLEX) {
    int part = vm_elem_complex_part(elem);
    fputc('[', out);
    print_real(out, part, vm_load_f64(part, data, 2 * i));
    fputs(", ", out);
    print_real(out, part, vm_load_f64(part, data, 2 * i + 1));
    fputc(']', out);
  } else if (vm_elem_is_float(elem)) {
    print_real(out, elem, vm_load_f64(elem, data, i));
  } else if (elem == TPUB_I1) {
    fputs(vm_load_i64(elem, data, i) ? "true" : "false", out);
  } else if (vm_elem_is_unsigned(elem)) {
    fprintf(out, "%" PRIu64, (uint64_t)vm_load_i64(elem, data, i));
  } else {
    fprintf(out, "%" PRId64, vm_load_i64(elem, data, i));
  }
}

static void newline_indent(FILE *out, int indent) {
  fputc('\n', out);
  for (int i = 0; i < indent; i++) fputs("  ", out);
}

/* Dimension d of the elements from *at on (the reference's printHelper). */
static void print_dim(FILE *out, const VmType *t, const void *data, int d, int64_t *at, int indent, bool last) {
  if (d == t->rank) {
    print_elem(out, t->elem, data, (*at)++);
    if (!last) fputs(", ", out);
    return;
  }
  newline_indent(out, indent);
  fputc('[', out);
  for (int64_t k = 0; k < t->dims[d]; k++) print_dim(out, t, data, d + 1, at, indent + 1, k + 1 == t->dims[d]);
  fputc(']', out);
  if (!last) fputc(',', out);
  else newline_indent(out, indent - 1);
}

bool check_print(VmCheck *c) {
  if (!vm_type_is_tensor(vm_check_in(c, 0))) return vm_check_fail(c, "print: the printed value is not a tensor");
  return true;
}

int exec_print(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  (void)x, (void)out;
  const VmType *t = in[0].type;
  int64_t at = 0;
  flockfile(stdout);
  fprintf(stdout, "%s = tensor<", ins->fields[0].str);
  vm_print_type(stdout, t);
  fputs("> {", stdout);
  if (t->rank == 0) print_elem(stdout, t->elem, in[0].data, 0);
  else print_dim(stdout, t, in[0].data, 0, &at, 1, true);
  fputs("}\n", stdout);
  fflush(stdout);
  funlockfile(stdout);
  return VM_OK;
}

/* INFEED: the expand pass turns the infeeds of a run_parallel's program
 * into calls of its infeed queue; one left runs without a queue. */
bool check_infeed(VmCheck *c) {
  if (c->ins->n_out < 1) return vm_check_fail(c, "infeed: no results");
  return true;
}

int exec_infeed(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  (void)ins, (void)in, (void)out;
  return vm_trap(x, "stablehlo.infeed ran without an infeed queue: tpurun feeds an infeed only from the infeed "
                    "queue of the interpreter.run_parallel that runs its function (on a grid of one process)");
}
