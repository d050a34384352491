/* Loader-time validators of the opcodes the interpreter runs itself
 * (constants, calls, structured control flow, tuples, checks). */
#include "vm/internal.h"

/* Operand i and result i have equal types for i < n. */
static bool same_types_in_out(VmCheck *c, uint32_t first_in, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if (!vm_type_equal(vm_check_in(c, first_in + i), vm_check_out(c, i)))
      return vm_check_fail(c, "result %u does not have the type of operand %u", i, first_in + i);
  return true;
}

bool check_constant(VmCheck *c) {
  const VmType *t = vm_check_out(c, 0);
  const VmField *f = &c->ins->fields[0];
  if (!vm_type_is_tensor(t)) return vm_check_fail(c, "constant of a non-tensor type");
  if (f->flags & VM_CONST_ELIDED) return f->n == 0 ? true : vm_check_fail(c, "elided constant with data");
  int64_t want = (f->flags & VM_CONST_SPLAT) ? vm_elem_bytes(t->elem) : t->nbytes;
  if ((f->flags & VM_CONST_SPLAT) && t->count == 0) want = f->n;
  if (f->n != want) return vm_check_fail(c, "constant has %lld bytes, its type needs %lld", (long long)f->n, (long long)want);
  return true;
}

/* Operands and results of the instruction against region k of field f. */
static bool region_signature(VmCheck *c, int f, uint32_t first_in, uint32_t nin, bool results_too) {
  const VmType *args[256], *res[256];
  if (nin > 256 || c->ins->n_out > 256) return vm_check_fail(c, "too many values");
  for (uint32_t i = 0; i < nin; i++) args[i] = vm_check_in(c, first_in + i);
  for (uint32_t i = 0; i < c->ins->n_out; i++) res[i] = vm_check_out(c, i);
  return vm_check_region(c, f, (int)nin, args, results_too ? (int)c->ins->n_out : -1, res);
}

bool check_call(VmCheck *c) { return region_signature(c, 0, 0, c->ins->n_in, true); }

/* run_parallel: a rectangular grid of at most VM_MAX_CHIPS capture-free
 * programs whose arguments and results, chip after chip, are the
 * instruction's operands and results. */
bool check_run_parallel(VmCheck *c) {
  const VmField *f = &c->ins->fields[0];
  int64_t n = f->n, replicas = vm_field_int(c->ins, 1);
  if (n < 1 || n > VM_MAX_CHIPS || replicas < 1 || n % replicas != 0)
    return vm_check_fail(c, "run_parallel of %lld programs on %lld replicas", (long long)n, (long long)replicas);
  uint32_t in = 0, out = 0;
  for (int64_t k = 0; k < n; k++) {
    const VmRegion *r = &f->regions[k];
    const VmFunc *fn = &c->prog->funcs[r->func];
    if (r->ncaps) return vm_check_fail(c, "run_parallel program %s captures values", fn->name);
    if (fn->n_params > c->ins->n_in - in || fn->n_results > c->ins->n_out - out)
      return vm_check_fail(c, "run_parallel programs take more values than the instruction has");
    for (uint32_t i = 0; i < fn->n_params; i++)
      if (!vm_type_equal(fn->reg_types[i], vm_check_in(c, in + i)))
        return vm_check_fail(c, "operand %u does not have the type of argument %u of %s", in + i, i, fn->name);
    for (uint32_t i = 0; i < fn->n_results; i++)
      if (!vm_type_equal(fn->result_types[i], vm_check_out(c, out + i)))
        return vm_check_fail(c, "result %u does not have the type of result %u of %s", out + i, i, fn->name);
    in += fn->n_params;
    out += fn->n_results;
  }
  if (in != c->ins->n_in || out != c->ins->n_out)
    return vm_check_fail(c, "run_parallel programs take %u values and give %u, the instruction has %u and %u", in, out,
                         c->ins->n_in, c->ins->n_out);
  return true;
}

bool check_while(VmCheck *c) {
  if (c->ins->n_in != c->ins->n_out) return vm_check_fail(c, "while with %u operands and %u results", c->ins->n_in, c->ins->n_out);
  if (!same_types_in_out(c, 0, c->ins->n_in)) return false;
  const VmFunc *cond = &c->prog->funcs[c->ins->fields[0].regions[0].func];
  if (!region_signature(c, 1, 0, c->ins->n_in, true)) return false;
  const VmType *args[256];
  if (c->ins->n_in > 256) return vm_check_fail(c, "too many values");
  for (uint32_t i = 0; i < c->ins->n_in; i++) args[i] = vm_check_in(c, i);
  if (!vm_check_region(c, 0, (int)c->ins->n_in, args, 1, NULL)) return false;
  const VmType *p = cond->result_types[0];
  if (!vm_type_is_scalar(p) || p->elem != TPUB_I1) return vm_check_fail(c, "while condition must return tensor<i1>");
  return true;
}

static bool branch_regions(VmCheck *c, int f) {
  for (int64_t k = 0; k < c->ins->fields[f].n; k++) {
    const VmRegion *r = &c->ins->fields[f].regions[k];
    const VmFunc *fn = &c->prog->funcs[r->func];
    if (fn->n_params != r->ncaps) return vm_check_fail(c, "branch %s takes explicit arguments", fn->name);
    if (fn->n_results != c->ins->n_out) return vm_check_fail(c, "branch %s returns %u values, expected %u", fn->name, fn->n_results, c->ins->n_out);
    for (uint32_t i = 0; i < c->ins->n_out; i++)
      if (!vm_type_equal(fn->result_types[i], vm_check_out(c, i))) return vm_check_fail(c, "branch %s: result %u has the wrong type", fn->name, i);
    for (uint32_t i = 0; i < r->ncaps; i++)
      if (!vm_type_equal(c->func->reg_types[r->caps[i]], fn->reg_types[i])) return vm_check_fail(c, "branch %s: capture %u has the wrong type", fn->name, i);
  }
  return true;
}

bool check_if(VmCheck *c) {
  const VmType *p = vm_check_in(c, 0);
  if (c->ins->n_in != 1 || !vm_type_is_scalar(p) || p->elem != TPUB_I1) return vm_check_fail(c, "if needs one tensor<i1> operand");
  return branch_regions(c, 0) && branch_regions(c, 1);
}

bool check_case(VmCheck *c) {
  const VmType *p = vm_check_in(c, 0);
  if (c->ins->n_in != 1 || !vm_type_is_scalar(p) || !vm_elem_is_int(p->elem) || p->elem == TPUB_I1)
    return vm_check_fail(c, "case needs one integer scalar operand");
  if (c->ins->fields[0].n < 1) return vm_check_fail(c, "case without branches");
  return branch_regions(c, 0);
}

bool check_return(VmCheck *c) {
  if (c->ins->n_in != c->func->n_results) return vm_check_fail(c, "returns %u values, the function has %u results", c->ins->n_in, c->func->n_results);
  for (uint32_t i = 0; i < c->ins->n_in; i++)
    if (!vm_type_equal(vm_check_in(c, i), c->func->result_types[i])) return vm_check_fail(c, "returned value %u has the wrong type", i);
  return true;
}

bool check_tuple(VmCheck *c) {
  const VmType *t = vm_check_out(c, 0);
  if (t->kind != TPUB_TY_TUPLE || (uint32_t)t->nmembers != c->ins->n_in) return vm_check_fail(c, "result is not a tuple of the operands");
  for (uint32_t i = 0; i < c->ins->n_in; i++)
    if (!vm_type_equal(t->members[i], vm_check_in(c, i))) return vm_check_fail(c, "tuple member %u has the wrong type", i);
  return true;
}

bool check_get_tuple_element(VmCheck *c) {
  const VmType *t = vm_check_in(c, 0);
  int64_t k = vm_field_int(c->ins, 0);
  if (t->kind != TPUB_TY_TUPLE || k < 0 || k >= t->nmembers) return vm_check_fail(c, "index %lld out of the tuple", (long long)k);
  if (!vm_type_equal(t->members[k], vm_check_out(c, 0))) return vm_check_fail(c, "result has the wrong type");
  return true;
}

bool check_copy(VmCheck *c) {
  if (c->ins->n_in != c->ins->n_out) return vm_check_fail(c, "copy with %u operands and %u results", c->ins->n_in, c->ins->n_out);
  return same_types_in_out(c, 0, c->ins->n_in);
}

bool check_token(VmCheck *c) {
  if (vm_check_out(c, 0)->kind != TPUB_TY_TOKEN) return vm_check_fail(c, "result is not a token");
  return true;
}

static bool check_kind(VmCheck *c) {
  int64_t kind = vm_field_int(c->ins, 0);
  if (kind < 0 || kind > 2) return vm_check_fail(c, "unknown check kind %lld", (long long)kind);
  if (!vm_type_is_tensor(vm_check_in(c, 0))) return vm_check_fail(c, "checked value is not a tensor");
  return true;
}

bool check_check(VmCheck *c) {
  if (!check_kind(c)) return false;
  const VmType *t = vm_check_in(c, 0);
  const VmField *f = &c->ins->fields[4];
  int64_t want = (f->flags & VM_CONST_SPLAT) ? vm_elem_bytes(t->elem) : t->nbytes;
  if ((f->flags & VM_CONST_SPLAT) && t->count == 0) want = f->n;
  if ((f->flags & ~VM_CONST_SPLAT) || f->n != want) return vm_check_fail(c, "expected constant does not match the checked type");
  return true;
}

bool check_check2(VmCheck *c) {
  if (!check_kind(c)) return false;
  if (!vm_type_equal(vm_check_in(c, 0), vm_check_in(c, 1))) return vm_check_fail(c, "compared values differ in type");
  return true;
}

bool check_assert(VmCheck *c) {
  if (c->ins->n_in < 1) return vm_check_fail(c, "assert without a predicate");
  for (uint32_t i = 0; i < c->ins->n_in; i++) {
    const VmType *t = vm_check_in(c, i);
    bool ok = vm_type_is_tensor(t) && t->count == 1 && (i == 0 ? t->elem == TPUB_I1 : vm_elem_is_int(t->elem));
    if (!ok) return vm_check_fail(c, i == 0 ? "assert predicate is not an i1 scalar" : "assert operand %u is not an integer scalar", i);
  }
  return true;
}

bool check_probe(VmCheck *c) {
  if (!vm_type_is_tensor(vm_check_in(c, 0))) return vm_check_fail(c, "probed value is not a tensor");
  return same_types_in_out(c, 0, 1);
}

bool check_check_probe(VmCheck *c) {
  if (!vm_type_is_tensor(vm_check_in(c, 0))) return vm_check_fail(c, "checked value is not a tensor");
  if (vm_field_int(c->ins, 1) < 0) return vm_check_fail(c, "negative probe iteration");
  return true;
}
