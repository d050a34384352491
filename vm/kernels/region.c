/* Machinery shared by the kernels with region bodies (vm/kernels/region.h):
 * scratch sets, region calls per element, the scalar evaluator that runs
 * simple bodies without the VM, comparator recognition and ordering keys. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/scalar.h"
#include "vm/kernels/region.h"

/* ------------------------------------------------------------------ */
/* Scratch */

void *kr_scratch_get(Scratch *s, int64_t count, size_t elem_size) {
  size_t bytes;
  if (count < 0 || s->n == SCRATCH_SLOTS || __builtin_mul_overflow((size_t)count, elem_size, &bytes)) return NULL;
  if (bytes == 0) bytes = 1;
  void *p = vm_scratch_alloc(s->x, bytes);
  if (!p) return NULL;
  s->p[s->n] = p;
  s->size[s->n++] = bytes;
  return p;
}

void kr_scratch_release(Scratch *s) {
  while (s->n > 0) {
    s->n--;
    vm_scratch_free(s->x, s->p[s->n], s->size[s->n]);
  }
}

int kr_scratch_fail(Scratch *s, const char *op) {
  kr_scratch_release(s);
  return vm_trap(s->x, "out of memory: %s scratch", op);
}

/* ------------------------------------------------------------------ */
/* Validation helpers */

/* The function of region field f, at check time. */
static const VmFunc *check_region_func(const VmCheck *c, int f) {
  return &c->prog->funcs[c->ins->fields[f].regions[0].func];
}

bool kr_is_scalar_of(const VmType *t, int elem) { return vm_type_is_scalar(t) && t->elem == elem; }

/* Explicit parameter i of region field f must be tensor<elem>. */
bool kr_check_region_param(VmCheck *c, const char *op, int f, int i, int elem) {
  const VmFunc *fn = check_region_func(c, f);
  if (!kr_is_scalar_of(fn->reg_types[i], elem))
    return vm_check_fail(c, "%s: region argument %d must be tensor<%s>", op, i, vm_elem_name(elem));
  return true;
}

/* Result i of region field f must be tensor<elem>. */
bool kr_check_region_result(VmCheck *c, const char *op, int f, int i, int elem) {
  const VmFunc *fn = check_region_func(c, f);
  if (!kr_is_scalar_of(fn->result_types[i], elem))
    return vm_check_fail(c, "%s: region result %d must be tensor<%s>", op, i, vm_elem_name(elem));
  return true;
}

/* Result i must be a tensor of elem with the given shape. */
bool kr_check_result_shape(VmCheck *c, const char *op, uint32_t i, int elem, int rank, const int64_t *dims) {
  const VmType *t = vm_check_out(c, i);
  bool ok = vm_type_is_tensor(t) && t->elem == elem && t->rank == rank;
  for (int d = 0; ok && d < rank; d++) ok = t->dims[d] == dims[d];
  if (ok) return true;
  char buf[256];
  int len = 0;
  for (int d = 0; d < rank && len < 200; d++)
    len += snprintf(buf + len, sizeof buf - (size_t)len, "%" PRId64 "x", dims[d]);
  if (len >= 200) len = 200;
  snprintf(buf + len, sizeof buf - (size_t)len, "%s", vm_elem_name(elem));
  return vm_check_fail(c, "%s: result %u must be tensor<%s>", op, i, buf);
}

/* ------------------------------------------------------------------ */
/* Comparators: recognising `return compare(arg0, arg1)` and ordering keys. */

static int swap_direction(int dir) {
  switch (dir) {
  case DIR_GE: return DIR_LE;
  case DIR_GT: return DIR_LT;
  case DIR_LE: return DIR_GE;
  case DIR_LT: return DIR_GT;
  default: return dir;
  }
}

/* True when region r is `return compare(arg0, arg1)` (either order; the
 * direction is given for (arg0, arg1)) without captures. */
bool kr_region_simple_compare(const VmExec *x, const VmRegion *r, int *dir, int *cmp_type) {
  if (r->ncaps) return false;
  const VmFunc *fn = vm_region_func(x, r);
  if (fn->n_instrs != 2 || fn->n_results != 1) return false;
  const VmInstr *cmp = &fn->instrs[0], *ret = &fn->instrs[1];
  if (cmp->opcode != VM_OP_COMPARE || ret->opcode != VM_OP_RETURN || ret->n_in != 1 || ret->in[0] != cmp->out[0])
    return false;
  int64_t d = vm_field_int(cmp, 0);
  if (d < DIR_EQ || d > DIR_LT) return false;
  *cmp_type = (int)vm_field_int(cmp, 1);
  if (cmp->in[0] == 0 && cmp->in[1] == 1)
    *dir = (int)d;
  else if (cmp->in[0] == 1 && cmp->in[1] == 0)
    *dir = swap_direction((int)d);
  else
    return false;
  return true;
}

int kr_key_kind(int elem, int cmp_type) {
  switch (vm_elem_class(elem)) {
  case TPUB_CLASS_FLOAT:
    if (cmp_type == CMP_DEFAULT || cmp_type == CMP_FLOAT) return KEYS_F64;
    if (cmp_type == CMP_TOTALORDER) return KEYS_I64;
    return KEYS_NONE;
  case TPUB_CLASS_INT:
    if (cmp_type == CMP_DEFAULT || cmp_type == CMP_SIGNED) return KEYS_I64;
    if (cmp_type == CMP_UNSIGNED && elem == TPUB_I1) return KEYS_I64;
    return KEYS_NONE;
  case TPUB_CLASS_UINT: return cmp_type == CMP_DEFAULT || cmp_type == CMP_UNSIGNED ? KEYS_I64 : KEYS_NONE;
  default: return KEYS_NONE;
  }
}

/* The raw storage bits of element i. */
static uint64_t load_bits(int bytes, const void *data, int64_t i) {
  const char *p = (const char *)data + i * bytes;
  switch (bytes) {
  case 1: return *(const uint8_t *)p;
  case 2: {
    uint16_t v;
    memcpy(&v, p, 2);
    return v;
  }
  case 4: {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
  }
  default: {
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
  }
  }
}

/* Key whose signed order is the IEEE totalOrder of a float encoding's bits:
 * -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN. */
static int64_t total_order_key(int elem, uint64_t bits) {
  if (elem == TPUB_F8E8M0FNU) return (int64_t)bits;    /* no sign bit */
  int w = elem == TPUB_TF32 ? 19 : vm_elem_bits(elem); /* tf32: 19 bits in the low bits of 32 */
  uint64_t mag = bits & ((UINT64_C(1) << (w - 1)) - 1);
  return (bits >> (w - 1)) & 1 ? -1 - (int64_t)mag : (int64_t)mag;
}

/* The int64 key of element i: the total order for floats, the value for
 * signed ints, the value shifted into signed range for unsigned ones. */
static int64_t int_key(int elem, const void *data, int64_t i) {
  switch (vm_elem_class(elem)) {
  case TPUB_CLASS_FLOAT: return total_order_key(elem, load_bits(vm_elem_bytes(elem), data, i));
  case TPUB_CLASS_UINT: return (int64_t)((uint64_t)vm_load_i64(elem, data, i) ^ (UINT64_C(1) << 63));
  default: return vm_load_i64(elem, data, i);
  }
}

/* Keys of n elements at base + t * stride (t < n) into ikeys or fkeys. */
void kr_load_keys(int kind, int elem, const void *data, int64_t base, int64_t stride, int64_t n, int64_t *ikeys,
                  double *fkeys) {
  if (kind == KEYS_F64) {
    if (stride == 1)
      vm_to_f64(elem, data, base, n, fkeys);
    else
      for (int64_t t = 0; t < n; t++) fkeys[t] = vm_load_f64(elem, data, base + t * stride);
    return;
  }
  if (stride == 1 && vm_elem_class(elem) == TPUB_CLASS_INT) {
    vm_to_i64(elem, data, base, n, ikeys);
    return;
  }
  for (int64_t t = 0; t < n; t++) ikeys[t] = int_key(elem, data, base + t * stride);
}

/* ------------------------------------------------------------------ */
/* Scalar evaluator.  Region bodies built only from constants, compare,
 * select, logic ops, integer arithmetic and f32/f64 add/sub/mul (JAX's sort
 * comparators, argmax reducers...) are compiled to a small program that
 * runs directly on scalars, without a VM call per element.  A register holds
 * its element's storage bits (little-endian, up to 16 bytes). */

#define MINI_MAX_REGS 256

#define CMP3(a, b) (((a) > (b)) - ((a) < (b)))

/* Value of a signed (sign-extended) integer container. */
static int64_t mini_signed(int bytes, uint64_t v) {
  switch (bytes) {
  case 1: return (int8_t)v;
  case 2: return (int16_t)v;
  case 4: return (int32_t)v;
  default: return (int64_t)v;
  }
}



/* What a compiled instruction does. */
enum MiniCode {
  MC_CONST,
  MC_SELECT,
  MC_CMP_F32, /* IEEE compare */
  MC_CMP_F64,
  MC_CMP_FLOAT,  /* IEEE compare of another float kind, through double */
  MC_CMP_TOTAL,  /* totalOrder of a float's bits */
  MC_CMP_SIGNED, /* sign-extended containers */
  MC_CMP_UNSIGNED,
  MC_AND,
  MC_OR,
  MC_XOR,
  MC_NOT, /* xor with the value mask */
  MC_ADD,
  MC_SUB,
  MC_MUL,
  MC_MAX_S,
  MC_MIN_S,
  MC_MAX_U,
  MC_MIN_U,
  MC_ADD_F32,
  MC_SUB_F32,
  MC_MUL_F32,
  MC_ADD_F64,
  MC_SUB_F64,
  MC_MUL_F64,
  MC_WORD0, /* first 64 bits (real of complex<f64>, real of a real float) */
  MC_WORD1, /* imag of complex<f64> */
  MC_LO32,  /* real of complex<f32> */
  MC_HI32,  /* imag of complex<f32> */
  MC_ZERO,  /* imag of a real float */
  MC_RETURN
};

struct MiniOp {
  uint8_t code, dir;
  uint8_t holds; /* compares: bit c+1 set when the direction holds for CMP3 = c */
  uint8_t shift; /* integers: 64 - bits, for sign extension of results */
  bool sign;     /* integers: signed wrap */
  int elem;      /* MC_CMP_FLOAT, MC_CMP_TOTAL */
  uint32_t a, b, c, out;
  uint64_t mask; /* integers: value mask of the container; MC_XOR for not */
  uint64_t k[2]; /* MC_CONST */
};

/* Storage mask of an integer element (wider than its width for signed). */
static uint64_t int_container_mask(int elem) {
  int bytes = vm_elem_bytes(elem);
  return bytes == 8 ? ~UINT64_C(0) : (UINT64_C(1) << (8 * bytes)) - 1;
}

/* Mask of an unsigned (or i1) element's value bits. */
static uint64_t int_width_mask(int elem) {
  int bits = vm_elem_bits(elem);
  return bits == 64 ? ~UINT64_C(0) : (UINT64_C(1) << bits) - 1;
}

static bool int_signed(int elem) { return vm_elem_class(elem) == TPUB_CLASS_INT && elem != TPUB_I1; }

/* Compiles a compare of element type in_elem; false for complex. */
static bool mini_compile_compare(const VmInstr *ins, int in_elem, MiniOp *op) {
  op->dir = (uint8_t)vm_field_int(ins, 0);
  for (int c = -1; c <= 1; c++) op->holds |= (uint8_t)(scalar_direction_holds(op->dir, c) << (c + 1));
  op->elem = in_elem;
  switch (vm_elem_class(in_elem)) {
  case TPUB_CLASS_FLOAT:
    if (vm_field_int(ins, 1) == CMP_TOTALORDER)
      op->code = MC_CMP_TOTAL;
    else
      op->code = in_elem == TPUB_F32 ? MC_CMP_F32 : in_elem == TPUB_F64 ? MC_CMP_F64 : MC_CMP_FLOAT;
    return true;
  case TPUB_CLASS_COMPLEX: return false;
  default: op->code = op->sign ? MC_CMP_SIGNED : MC_CMP_UNSIGNED; return true;
  }
}

/* Compiles and, or, xor, max, min (integers) and add, subtract, multiply
 * (integers but i1, f32, f64); false for other element types. */
static bool mini_compile_arith(const VmInstr *ins, int in_elem, bool is_int, MiniOp *op) {
  switch (ins->opcode) {
  case VM_OP_AND: op->code = MC_AND; return is_int;
  case VM_OP_OR: op->code = MC_OR; return is_int;
  case VM_OP_XOR: op->code = MC_XOR; return is_int;
  case VM_OP_MAXIMUM: op->code = op->sign ? MC_MAX_S : MC_MAX_U; return is_int;
  case VM_OP_MINIMUM: op->code = op->sign ? MC_MIN_S : MC_MIN_U; return is_int;
  default: break;
  }
  int k = ins->opcode == VM_OP_ADD ? 0 : ins->opcode == VM_OP_SUBTRACT ? 1 : 2;
  if (is_int && in_elem != TPUB_I1)
    op->code = (uint8_t)(MC_ADD + k);
  else if (in_elem == TPUB_F32)
    op->code = (uint8_t)(MC_ADD_F32 + k);
  else if (in_elem == TPUB_F64)
    op->code = (uint8_t)(MC_ADD_F64 + k);
  else
    return false;
  return true;
}

/* Compiles one instruction; false when the evaluator cannot run it. */
static bool mini_compile_op(const VmFunc *fn, const VmInstr *ins, MiniOp *op) {
  memset(op, 0, sizeof *op);
  int in_elem = ins->n_in ? fn->reg_types[ins->in[0]]->elem : -1;
  int out_elem = ins->n_out ? fn->reg_types[ins->out[0]]->elem : -1;
  op->a = ins->n_in > 0 ? ins->in[0] : 0;
  op->b = ins->n_in > 1 ? ins->in[1] : 0;
  op->c = ins->n_in > 2 ? ins->in[2] : 0;
  op->out = ins->n_out ? ins->out[0] : 0;
  bool is_int = in_elem >= 0 && vm_elem_is_int(in_elem);
  if (is_int) {
    op->sign = int_signed(in_elem);
    op->shift = (uint8_t)(64 - vm_elem_bits(in_elem));
    op->mask = op->sign ? int_container_mask(in_elem) : int_width_mask(in_elem);
  }
  switch (ins->opcode) {
  case VM_OP_CONSTANT: {
    const VmField *f = &ins->fields[0];
    int bytes = vm_elem_bytes(out_elem);
    if (f->flags & (VM_CONST_ELIDED | VM_CONST_NONE) || f->n < bytes) return false;
    op->code = MC_CONST;
    memcpy(op->k, f->data, (size_t)bytes);
    return true;
  }
  case VM_OP_COMPARE: return mini_compile_compare(ins, in_elem, op);
  case VM_OP_SELECT: op->code = MC_SELECT; return true;
  case VM_OP_REAL:
  case VM_OP_IMAG: {
    bool real = ins->opcode == VM_OP_REAL;
    if (in_elem == TPUB_C64)
      op->code = real ? MC_LO32 : MC_HI32;
    else if (in_elem == TPUB_C128)
      op->code = real ? MC_WORD0 : MC_WORD1;
    else
      op->code = real ? MC_WORD0 : MC_ZERO;
    return true;
  }
  case VM_OP_NOT:
    op->code = MC_NOT;
    return is_int;
  case VM_OP_AND:
  case VM_OP_OR:
  case VM_OP_XOR:
  case VM_OP_MAXIMUM:
  case VM_OP_MINIMUM:
  case VM_OP_ADD:
  case VM_OP_SUBTRACT:
  case VM_OP_MULTIPLY: return mini_compile_arith(ins, in_elem, is_int, op);
  default: return false;
  }
}

/* Compiles region r for kr_mini_run, with the current
 * values of its captures; false when some instruction is not supported. */
static bool mini_compile(const VmExec *x, const VmRegion *r, Scratch *s, MiniProg *p) {
  const VmFunc *fn = vm_region_func(x, r);
  if (fn->n_regs > MINI_MAX_REGS || fn->n_params > fn->n_regs || fn->n_instrs == 0 || fn->n_params < r->ncaps)
    return false;
  for (uint32_t i = 0; i < fn->n_regs; i++)
    if (!vm_type_is_scalar(fn->reg_types[i])) return false;
  const VmInstr *ret = &fn->instrs[fn->n_instrs - 1];
  if (ret->opcode != VM_OP_RETURN || ret->n_in != fn->n_results) return false;
  p->nops = fn->n_instrs - 1;
  p->ncaps = r->ncaps;
  p->nargs = fn->n_params - r->ncaps;
  p->nres = fn->n_results;
  p->ret = ret->in;
  p->ops = kr_scratch_get(s, p->nops, sizeof(MiniOp));
  p->arg_bytes = kr_scratch_get(s, p->nargs, 1);
  p->res_bytes = kr_scratch_get(s, p->nres, 1);
  p->caps = kr_scratch_get(s, p->ncaps, sizeof *p->caps);
  if (!p->ops || !p->arg_bytes || !p->res_bytes || !p->caps) return false;
  for (uint32_t i = 0; i < p->ncaps; i++) {
    int bytes = vm_elem_bytes(fn->reg_types[p->nargs + i]->elem);
    p->caps[i][0] = p->caps[i][1] = 0;
    memcpy(p->caps[i], vm_region_capture(x, r, i), (size_t)bytes);
  }
  for (uint32_t k = 0; k < p->nops; k++)
    if (!mini_compile_op(fn, &fn->instrs[k], &p->ops[k])) return false;
  for (uint32_t i = 0; i < p->nargs; i++) p->arg_bytes[i] = (uint8_t)vm_elem_bytes(fn->reg_types[i]->elem);
  for (uint32_t i = 0; i < p->nres; i++) p->res_bytes[i] = (uint8_t)vm_elem_bytes(fn->reg_types[p->ret[i]]->elem);
  return true;
}

/* Wraps an integer result to its element's width and storage form. */
static inline uint64_t mini_wrap(const MiniOp *op, uint64_t v) {
  if (op->sign) return (uint64_t)((int64_t)(v << op->shift) >> op->shift) & op->mask;
  return v & op->mask;
}

/* Loads the arguments into the first registers, zero-extended. */
static inline void mini_load_args(const MiniProg *p, const VmTensor *args, uint64_t (*reg)[2]) {
  for (uint32_t i = 0; i < p->nargs; i++) {
    const void *src = args[i].data;
    reg[i][1] = 0;
    switch (p->arg_bytes[i]) {
    case 1: reg[i][0] = *(const uint8_t *)src; break;
    case 2: {
      uint16_t v;
      memcpy(&v, src, 2);
      reg[i][0] = v;
      break;
    }
    case 4: {
      uint32_t v;
      memcpy(&v, src, 4);
      reg[i][0] = v;
      break;
    }
    case 8: memcpy(&reg[i][0], src, 8); break;
    default: memcpy(reg[i], src, 16); break;
    }
  }
}

/* The i1 result of a compiled compare of the bits a and b. */
static inline uint64_t mini_compare(const MiniOp *op, uint64_t a, uint64_t b) {
  switch (op->code) {
  case MC_CMP_F32: {
    float x = vm_bits_f32(a), y = vm_bits_f32(b);
    return x != x || y != y ? op->dir == DIR_NE : (uint64_t)(op->holds >> (CMP3(x, y) + 1) & 1);
  }
  case MC_CMP_F64: {
    double x = vm_bits_f64(a), y = vm_bits_f64(b);
    return x != x || y != y ? op->dir == DIR_NE : (uint64_t)(op->holds >> (CMP3(x, y) + 1) & 1);
  }
  case MC_CMP_FLOAT: {
    double x = vm_float_bits_to_f64(op->elem, a), y = vm_float_bits_to_f64(op->elem, b);
    return x != x || y != y ? op->dir == DIR_NE : (uint64_t)(op->holds >> (CMP3(x, y) + 1) & 1);
  }
  case MC_CMP_TOTAL: {
    int64_t x = total_order_key(op->elem, a), y = total_order_key(op->elem, b);
    return (uint64_t)(op->holds >> (CMP3(x, y) + 1) & 1);
  }
  case MC_CMP_SIGNED: {
    int64_t x = (int64_t)(a << op->shift) >> op->shift, y = (int64_t)(b << op->shift) >> op->shift;
    return (uint64_t)(op->holds >> (CMP3(x, y) + 1) & 1);
  }
  default: return (uint64_t)(op->holds >> (CMP3(a, b) + 1) & 1); /* MC_CMP_UNSIGNED */
  }
}

/* Runs one compiled instruction on the registers. */
static inline void mini_step(const MiniOp *op, uint64_t (*reg)[2]) {
  uint64_t a = reg[op->a][0], b = reg[op->b][0], r0 = 0, r1 = 0;
  switch (op->code) {
  case MC_CONST:
    r0 = op->k[0];
    r1 = op->k[1];
    break;
  case MC_SELECT: {
    const uint64_t *src = a & 1 ? reg[op->b] : reg[op->c];
    r0 = src[0];
    r1 = src[1];
    break;
  }
  case MC_CMP_F32:
  case MC_CMP_F64:
  case MC_CMP_FLOAT:
  case MC_CMP_TOTAL:
  case MC_CMP_SIGNED:
  case MC_CMP_UNSIGNED: r0 = mini_compare(op, a, b); break;
  case MC_AND: r0 = a & b; break;
  case MC_OR: r0 = a | b; break;
  case MC_XOR: r0 = a ^ b; break;
  case MC_NOT: r0 = a ^ op->mask; break;
  case MC_ADD: r0 = mini_wrap(op, a + b); break;
  case MC_SUB: r0 = mini_wrap(op, a - b); break;
  case MC_MUL: r0 = mini_wrap(op, a * b); break;
  case MC_MAX_S:
  case MC_MIN_S: {
    bool a_greater = (int64_t)(a << op->shift) > (int64_t)(b << op->shift);
    r0 = (op->code == MC_MAX_S) == a_greater ? a : b;
    break;
  }
  case MC_MAX_U: r0 = a > b ? a : b; break;
  case MC_MIN_U: r0 = a < b ? a : b; break;
  case MC_ADD_F32: r0 = vm_f32_bits(vm_bits_f32(a) + vm_bits_f32(b)); break;
  case MC_SUB_F32: r0 = vm_f32_bits(vm_bits_f32(a) - vm_bits_f32(b)); break;
  case MC_MUL_F32: r0 = vm_f32_bits(vm_bits_f32(a) * vm_bits_f32(b)); break;
  case MC_ADD_F64: r0 = vm_f64_bits(vm_bits_f64(a) + vm_bits_f64(b)); break;
  case MC_SUB_F64: r0 = vm_f64_bits(vm_bits_f64(a) - vm_bits_f64(b)); break;
  case MC_MUL_F64: r0 = vm_f64_bits(vm_bits_f64(a) * vm_bits_f64(b)); break;
  case MC_WORD0: r0 = a; break;
  case MC_WORD1: r0 = reg[op->a][1]; break;
  case MC_LO32: r0 = a & 0xffffffffu; break;
  case MC_HI32: r0 = a >> 32; break;
  default: break; /* MC_ZERO */
  }
  reg[op->out][0] = r0;
  reg[op->out][1] = r1;
}

/* Runs a compiled body: args[i].data are the arguments, results go to
 * res[i].data; or, when key_out is not NULL, the final bits of register
 * key_reg go to *key_out instead. */
void kr_mini_run(const MiniProg *p, const VmTensor *args, VmTensor *res, uint32_t key_reg, uint64_t *key_out) {
  uint64_t reg[MINI_MAX_REGS][2];
  mini_load_args(p, args, reg);
  for (uint32_t i = 0; i < p->ncaps; i++) {
    reg[p->nargs + i][0] = p->caps[i][0];
    reg[p->nargs + i][1] = p->caps[i][1];
  }
  for (uint32_t k = 0; k < p->nops; k++) mini_step(&p->ops[k], reg);
  if (key_out) {
    *key_out = reg[key_reg][0];
    return;
  }
  for (uint32_t i = 0; i < p->nres; i++) memcpy(res[i].data, reg[p->ret[i]], p->res_bytes[i]);
}

#define ISO_BUDGET 1024

/* The instruction defining each register (-1 for parameters and captures)
 * and which of arg0 (bit 0), arg1 (bit 1) and the other arguments (bit 2)
 * it depends on; false when a register is defined twice. */
static bool def_use_masks(const VmFunc *fn, const MiniProg *p, int32_t *def, uint8_t *deps) {
  for (uint32_t i = 0; i < fn->n_regs; i++) {
    def[i] = -2;
    deps[i] = 0;
  }
  for (uint32_t i = 0; i < fn->n_params; i++) {
    def[i] = -1;
    deps[i] = i == 0 ? 1 : i == 1 ? 2 : i < p->nargs ? 4 : 0;
  }
  for (uint32_t k = 0; k < fn->n_instrs; k++) {
    const VmInstr *ins = &fn->instrs[k];
    uint8_t m = 0;
    for (uint32_t j = 0; j < ins->n_in; j++) {
      if (def[ins->in[j]] == -2) return false;
      m |= deps[ins->in[j]];
    }
    for (uint32_t j = 0; j < ins->n_out; j++) {
      if (def[ins->out[j]] != -2) return false;
      def[ins->out[j]] = (int32_t)k;
      deps[ins->out[j]] = m;
    }
  }
  return true;
}

/* The bits of a register that holds a constant (captured or computed by a
 * constant instruction). */
static const uint64_t *register_constant(const VmFunc *fn, const MiniProg *p, const int32_t *def, uint32_t reg) {
  if (reg >= p->nargs && reg < p->nargs + p->ncaps) return p->caps[reg - p->nargs];
  if (def[reg] >= 0 && fn->instrs[def[reg]].opcode == VM_OP_CONSTANT) return p->ops[def[reg]].k;
  return NULL;
}

/* Register q computes on arg1 what register p computes on arg0. */
static bool same_computation(const VmFunc *fn, const MiniProg *mp, const int32_t *def, uint32_t p, uint32_t q,
                             int *budget) {
  if (--*budget < 0) return false;
  if (p == q) return true; /* shared, argument-free value (deps checked by the caller) */
  if (fn->reg_types[p]->elem != fn->reg_types[q]->elem) return false;
  const uint64_t *kp = register_constant(fn, mp, def, p), *kq = register_constant(fn, mp, def, q);
  if (kp || kq) return kp && kq && kp[0] == kq[0] && kp[1] == kq[1];
  if (def[p] < 0 || def[q] < 0) return p == 0 && q == 1;
  const VmInstr *a = &fn->instrs[def[p]], *b = &fn->instrs[def[q]];
  if (a->opcode != b->opcode || a->n_in != b->n_in) return false;
  if (a->opcode == VM_OP_COMPARE &&
      (vm_field_int(a, 0) != vm_field_int(b, 0) || vm_field_int(a, 1) != vm_field_int(b, 1)))
    return false;
  for (uint32_t j = 0; j < a->n_in; j++)
    if (!same_computation(fn, mp, def, a->in[j], b->in[j], budget)) return false;
  return true;
}

/* Recognises a key-function comparator in a body compiled by mini_compile. */
bool kr_comparator_key_function(const VmFunc *fn, const MiniProg *mp, KeyFunction *kf) {
  if (mp->nargs < 2 || fn->n_instrs < 2) return false;
  int32_t def[MINI_MAX_REGS];
  uint8_t deps[MINI_MAX_REGS];
  if (!def_use_masks(fn, mp, def, deps)) return false;
  const VmInstr *ret = &fn->instrs[fn->n_instrs - 1];
  if (ret->n_in != 1 || def[ret->in[0]] < 0) return false;
  const VmInstr *cmp = &fn->instrs[def[ret->in[0]]];
  if (cmp->opcode != VM_OP_COMPARE) return false;
  uint32_t p = cmp->in[0], q = cmp->in[1];
  int dir = (int)vm_field_int(cmp, 0);
  if (deps[p] == 2 && deps[q] == 1) {
    uint32_t t = p;
    p = q;
    q = t;
    dir = swap_direction(dir);
  }
  int budget = ISO_BUDGET;
  if (deps[p] != 1 || deps[q] != 2 || !same_computation(fn, mp, def, p, q, &budget)) return false;
  kf->reg = p;
  kf->dir = dir;
  kf->cmp_type = (int)vm_field_int(cmp, 1);
  kf->elem = fn->reg_types[p]->elem;
  return true;
}

/* The sort key of storage bits of elem, as int_key / IEEE double. */
int64_t kr_bits_key_i64(int elem, uint64_t bits) {
  switch (vm_elem_class(elem)) {
  case TPUB_CLASS_FLOAT: return total_order_key(elem, bits);
  case TPUB_CLASS_UINT: return (int64_t)(bits ^ (UINT64_C(1) << 63));
  default: return elem == TPUB_I1 ? (int64_t)bits : mini_signed(vm_elem_bytes(elem), bits);
  }
}

/* ------------------------------------------------------------------ */
/* Generic region calls on scalars. */

bool kr_region_call_init(RegionCall *rc, Scratch *s, VmExec *x, const VmRegion *r) {
  rc->x = x;
  rc->r = r;
  rc->fn = vm_region_func(x, r);
  rc->nargs = (int)(rc->fn->n_params - r->ncaps);
  rc->nres = (int)rc->fn->n_results;
  rc->mini = mini_compile(x, r, s, &rc->prog);
  rc->args = kr_scratch_get(s, rc->nargs, sizeof(VmTensor));
  rc->res = kr_scratch_get(s, rc->nres, sizeof(VmTensor));
  rc->res_store = kr_scratch_get(s, rc->nres, 16);
  if (!rc->args || !rc->res || !rc->res_store) return false;
  for (int i = 0; i < rc->nargs; i++) {
    rc->args[i].type = rc->fn->reg_types[i];
    rc->args[i].data = NULL;
  }
  for (int i = 0; i < rc->nres; i++) {
    rc->res[i].type = rc->fn->result_types[i];
    rc->res[i].data = rc->res_store + 16 * i;
  }
  return true;
}

int kr_region_call(RegionCall *rc) {
  if (rc->mini) {
    kr_mini_run(&rc->prog, rc->args, rc->res, 0, NULL);
    return VM_OK;
  }
  return vm_call_region(rc->x, rc->r, rc->args, rc->nargs, rc->res);
}
