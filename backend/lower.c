/* Lowering of verified IR to bytecode: one bytecode function per func.func
 * and per region (a region's free values become extra parameters), one
 * instruction per op, registers for SSA values, and kill lists from
 * liveness so the VM frees every buffer right after its last use and runs
 * element-wise ops in place when the operand dies there. */
#include <stdlib.h>
#include <string.h>

#include "backend/emit.h"

/* One instruction before serialization. */
typedef struct Instr {
  uint16_t opcode, flags;
  bool tilewise; /* a loop FUSION: may write over a dying operand, as an element-wise op */
  uint32_t attrs, nattrs, loc;
  uint32_t nin, nout, nuse;
  uint32_t *in, *out;
  uint32_t *use; /* in + captured registers of its regions */
} Instr;

typedef struct FuncBuilder {
  Emitter *e;
  struct FuncBuilder *outer;
  Table regs; /* Value * -> register + 1 */
  uint32_t nregs, regcap;
  int64_t *reg_types;
  uint32_t ninstrs, instrcap;
  Instr *instrs;
  /* Captures of the region fields of the instruction being built. */
  uint32_t ncaps_pending, capcap;
  uint32_t *caps_pending;
} FuncBuilder;

static void *xrealloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (!q) {
    fprintf(stderr, "tpucc: out of memory lowering to bytecode\n");
    exit(70);
  }
  return q;
}

static uint32_t new_reg(FuncBuilder *fb, const Type *t, const Op *where) {
  if (fb->nregs == fb->regcap) {
    fb->regcap = fb->regcap ? fb->regcap * 2 : 64;
    fb->reg_types = xrealloc(fb->reg_types, fb->regcap * sizeof(int64_t));
  }
  uint32_t ty = emit_type(fb->e, t, where);
  fb->reg_types[fb->nregs] = ty == UINT32_MAX ? 0 : ty;
  return fb->nregs++;
}

static uint32_t bind_value(FuncBuilder *fb, Value *v, const Op *where) {
  uint32_t r = new_reg(fb, v->type, where);
  *table_put(&fb->regs, v, 0) = (void *)(uintptr_t)(r + 1);
  return r;
}

static uint32_t reg_of(FuncBuilder *fb, Value *v) {
  void **slot = table_get(&fb->regs, v, 0);
  if (!slot) {
    /* After an op could not be lowered (reported), its results have no
     * register: give them one so the rest of the program still gets its
     * diagnostics.  The image is discarded. */
    if (fb->e->failed) return bind_value(fb, v, NULL);
    die("value used before its definition reached the back end");
  }
  return (uint32_t)(uintptr_t)*slot - 1;
}

/* ------------------------------------------------------------------ */
/* Fields: written to the buffer of the op being lowered (e->fields) and
 * moved to the INTS pool when its instruction is emitted, so that types
 * and region bodies lowered meanwhile do not interleave with them. */

static void fint(Emitter *e, int64_t v) { bytes_append(e->fields, &v, sizeof v); }

static void field_list(Emitter *e, int n, const int64_t *v) {
  fint(e, n);
  bytes_append(e->fields, v, sizeof(int64_t) * (size_t)n);
}

static void field_f64(Emitter *e, double d) {
  int64_t bits;
  memcpy(&bits, &d, sizeof bits);
  fint(e, bits);
}

/* A list attribute of any encoding (array<i64>, dense<..>, [..]; also
 * rank-2 dense padding, flattened); def when absent. */
static bool attr_ints(Emitter *e, const Op *op, const char *name, int *n, const int64_t **v) {
  const Attr *a = op_attr(op, name);
  if (!a) return false;
  if (a->kind == ATTR_DENSE && elem_is_int(a->type->elem)) {
    int64_t cnt = dense_num_elements(a);
    if (cnt < 0 || cnt > 1 << 20) return false;
    int64_t *out = arena_alloc(&e->c->arena, sizeof(int64_t) * (size_t)(cnt + 1));
    for (int64_t i = 0; i < cnt; i++) out[i] = dense_get_int(a, a->u.dense.splat ? 0 : i);
    *n = (int)cnt;
    *v = out;
    return true;
  }
  if (a->kind == ATTR_DENSE_ARRAY && a->u.darray.elem == ELEM_I1) {
    bool *b;
    if (!attr_as_bool_list(a, n, &b, &e->c->arena)) return false;
    int64_t *out = arena_alloc(&e->c->arena, sizeof(int64_t) * (size_t)(*n + 1));
    for (int i = 0; i < *n; i++) out[i] = b[i];
    *v = out;
    return true;
  }
  if (a->kind == ATTR_ARRAY) { /* [true, false] or [1, 2] */
    int64_t *out = arena_alloc(&e->c->arena, sizeof(int64_t) * (size_t)(a->u.array.n + 1));
    for (int i = 0; i < a->u.array.n; i++) {
      const Attr *it = a->u.array.items[i];
      if (it->kind == ATTR_BOOL) out[i] = it->u.b;
      else if (it->kind == ATTR_INT) out[i] = it->u.i;
      else return false;
    }
    *n = a->u.array.n;
    *v = out;
    return true;
  }
  return attr_as_i64_list(a, n, v, &e->c->arena);
}

/* Emits a list field from attribute `name`, or n_def copies of def. */
static void field_attr_list(Emitter *e, const Op *op, const char *name, int n_def, int64_t def) {
  int n;
  const int64_t *v;
  if (attr_ints(e, op, name, &n, &v)) {
    field_list(e, n, v);
    return;
  }
  fint(e, n_def);
  for (int i = 0; i < n_def; i++) fint(e, def);
}

/* List parameters keys[0], keys[1], ... (NULL-terminated) of a dialect
 * attribute, one list field each. */
static void field_dialect_lists(Emitter *e, const Attr *d, const char *const *keys);

/* A list parameter of a #stablehlo.gather<...>-style dialect attribute. */
static void field_dialect_list(Emitter *e, const Attr *d, const char *key) {
  const Attr *p = dialect_param(d, key);
  int n = 0;
  const int64_t *v = NULL;
  if (p && !attr_as_i64_list(p, &n, &v, &e->c->arena)) n = 0;
  field_list(e, n, v);
}

static void field_dialect_lists(Emitter *e, const Attr *d, const char *const *keys) {
  for (; *keys; keys++) field_dialect_list(e, d, *keys);
}

static int64_t dialect_int(const Attr *d, const char *key, int64_t def) {
  const Attr *p = dialect_param(d, key);
  int64_t v;
  return attr_as_int(p, &v) ? v : def;
}

static int64_t attr_int_or(const Op *op, const char *name, int64_t def) {
  const Attr *a = op_attr(op, name);
  int64_t v;
  if (a && a->kind == ATTR_BOOL) return a->u.b;
  return attr_as_int(a, &v) ? v : def;
}

/* Index of an enum attribute's value in names, or def. */
static int64_t attr_enum_index(const Op *op, const char *name, const char *const *names, int64_t def) {
  const char *v = attr_enum_value(op_attr(op, name));
  if (!v) return def;
  for (int i = 0; names[i]; i++)
    if (strcmp(names[i], v) == 0) return i;
  return def;
}

static void field_precision(Emitter *e, const Op *op) {
  static const char *const precisions[] = {"DEFAULT", "HIGH", "HIGHEST", NULL};
  const Attr *a = op_attr(op, "precision_config");
  int64_t v[8];
  int n = 0;
  if (a && a->kind == ATTR_ARRAY)
    for (int i = 0; i < a->u.array.n && n < 8; i++) {
      const char *s = attr_enum_value(a->u.array.items[i]);
      int64_t idx = 0;
      for (int k = 0; s && precisions[k]; k++)
        if (strcmp(precisions[k], s) == 0) idx = k;
      v[n++] = idx;
    }
  field_list(e, n, v);
}

/* ------------------------------------------------------------------ */
/* Instructions. */

static Instr *push_instr(FuncBuilder *fb, const Op *op, int opcode) {
  if (fb->ninstrs == fb->instrcap) {
    fb->instrcap = fb->instrcap ? fb->instrcap * 2 : 64;
    fb->instrs = xrealloc(fb->instrs, fb->instrcap * sizeof(Instr));
  }
  Instr *in = &fb->instrs[fb->ninstrs++];
  memset(in, 0, sizeof *in);
  in->opcode = (uint16_t)opcode;
  size_t nwords = fb->e->fields->n / sizeof(int64_t);
  in->attrs = emit_ints(fb->e, (const int64_t *)fb->e->fields->p, nwords);
  in->nattrs = (uint32_t)nwords;
  fb->e->fields->n = 0;
  in->loc = emit_loc(fb->e, op->loc, op->name);
  return in;
}

/* Emits opcode with explicit operand / result registers. */
static Instr *emit_regs(FuncBuilder *fb, const Op *op, int opcode, uint32_t nin,
                        const uint32_t *in, uint32_t nout, const uint32_t *out) {
  Instr *ins = push_instr(fb, op, opcode);
  ins->nin = nin;
  ins->nout = nout;
  ins->in = xrealloc(NULL, (nin + 1) * sizeof(uint32_t));
  ins->out = xrealloc(NULL, (nout + 1) * sizeof(uint32_t));
  if (nin) memcpy(ins->in, in, nin * sizeof(uint32_t));
  if (nout) memcpy(ins->out, out, nout * sizeof(uint32_t));
  ins->nuse = nin + fb->ncaps_pending;
  ins->use = xrealloc(NULL, (ins->nuse + 1) * sizeof(uint32_t));
  if (nin) memcpy(ins->use, in, nin * sizeof(uint32_t));
  if (fb->ncaps_pending) memcpy(ins->use + nin, fb->caps_pending, fb->ncaps_pending * sizeof(uint32_t));
  fb->ncaps_pending = 0;
  return ins;
}

/* Emits opcode over the op's operands [first, first + n) and all results. */
static Instr *emit_op_range(FuncBuilder *fb, const Op *op, int opcode, int first, int n) {
  uint32_t *in = xrealloc(NULL, (size_t)(n + 1) * sizeof(uint32_t));
  uint32_t *out = xrealloc(NULL, (size_t)(op->nresults + 1) * sizeof(uint32_t));
  for (int i = 0; i < n; i++) in[i] = reg_of(fb, op->operands[first + i]);
  for (int i = 0; i < op->nresults; i++) out[i] = bind_value(fb, &op->results[i], op);
  Instr *ins = emit_regs(fb, op, opcode, (uint32_t)n, in, (uint32_t)op->nresults, out);
  free(in);
  free(out);
  return ins;
}

static Instr *emit_op(FuncBuilder *fb, const Op *op, int opcode) {
  return emit_op_range(fb, op, opcode, 0, op->noperands);
}

/* ------------------------------------------------------------------ */
/* Functions and regions. */

static void lower_block(FuncBuilder *fb, Block *b);
static void finish_func(FuncBuilder *fb, uint32_t index, const char *name, uint32_t flags,
                        uint32_t nparams, int nresults, Type *const *result_types, Loc loc);

/* Adds v to the capture list unless it is defined inside the region
 * (recorded in `inside`). */
static void note_capture(Table *inside, PtrVec *caps, Table *seen, Value *v) {
  if (table_get(inside, v, 0) || table_get(seen, v, 0)) return;
  *table_put(seen, v, 0) = v;
  vec_push(caps, v);
}

static void collect_defs(Table *inside, Region *r) {
  for (int bi = 0; bi < r->nblocks; bi++) {
    Block *b = r->blocks[bi];
    for (int i = 0; i < b->nargs; i++) *table_put(inside, &b->args[i], 0) = &b->args[i];
    for (Op *op = b->first; op; op = op->next) {
      for (int i = 0; i < op->nresults; i++) *table_put(inside, &op->results[i], 0) = &op->results[i];
      for (int k = 0; k < op->nregions; k++) collect_defs(inside, &op->regions[k]);
    }
  }
}

static void collect_uses(Table *inside, PtrVec *caps, Table *seen, Region *r) {
  for (int bi = 0; bi < r->nblocks; bi++)
    for (Op *op = r->blocks[bi]->first; op; op = op->next) {
      for (int i = 0; i < op->noperands; i++) note_capture(inside, caps, seen, op->operands[i]);
      for (int k = 0; k < op->nregions; k++) collect_uses(inside, caps, seen, &op->regions[k]);
    }
}

/* Lowers region r of op into a new function and emits its field (function
 * index and the outer registers it captures). */
static void field_region(FuncBuilder *fb, const Op *op, Region *r) {
  Emitter *e = fb->e;
  if (r->nblocks != 1) {
    op_error(e->c, op, "regions with %d blocks are not supported by the tpurun back end", r->nblocks);
    e->failed = true;
    fint(e, 0);
    fint(e, 0);
    return;
  }
  Table inside = {0}, seen = {0};
  PtrVec caps = {0};
  collect_defs(&inside, r);
  collect_uses(&inside, &caps, &seen, r);

  uint32_t index = emit_func_reserve(e);
  FuncBuilder sub = {.e = e, .outer = fb};
  Block *b = r->blocks[0];
  for (int i = 0; i < b->nargs; i++) bind_value(&sub, &b->args[i], op);
  for (int i = 0; i < caps.len; i++) bind_value(&sub, caps.items[i], op);
  uint32_t nparams = sub.nregs;
  lower_block(&sub, b);
  /* The result types are those of the terminator's operands. */
  Op *term = b->last;
  int nres = term ? term->noperands : 0;
  Type **rt = arena_alloc(&e->c->arena, sizeof(Type *) * (size_t)(nres + 1));
  for (int i = 0; i < nres; i++) rt[i] = term->operands[i]->type;
  char name[64];
  snprintf(name, sizeof name, "%s.region", op->name);
  finish_func(&sub, index, name, TPUB_FUNC_REGION, nparams, nres, rt, op->loc);

  fint(e, index);
  fint(e, caps.len);
  for (int i = 0; i < caps.len; i++) {
    uint32_t reg = reg_of(fb, caps.items[i]);
    fint(e, reg);
    if (fb->ncaps_pending == fb->capcap) {
      fb->capcap = fb->capcap ? fb->capcap * 2 : 16;
      fb->caps_pending = xrealloc(fb->caps_pending, fb->capcap * sizeof(uint32_t));
    }
    fb->caps_pending[fb->ncaps_pending++] = reg;
  }
  vec_free(&caps);
  table_free(&inside, NULL);
  table_free(&seen, NULL);
}

/* Writes the instructions of fb with kill lists and in-place flags, and
 * the function record. */
static void finish_func(FuncBuilder *fb, uint32_t index, const char *name, uint32_t flags,
                        uint32_t nparams, int nresults, Type *const *result_types, Loc loc) {
  Emitter *e = fb->e;
  /* Last use of every register; -1 if never used. */
  int64_t *last = xrealloc(NULL, (fb->nregs + 1) * sizeof(int64_t));
  int64_t *def = xrealloc(NULL, (fb->nregs + 1) * sizeof(int64_t));
  for (uint32_t r = 0; r < fb->nregs; r++) last[r] = -1, def[r] = 0;
  for (uint32_t i = 0; i < fb->ninstrs; i++) {
    Instr *in = &fb->instrs[i];
    for (uint32_t k = 0; k < in->nuse; k++) last[in->use[k]] = i;
    for (uint32_t k = 0; k < in->nout; k++) def[in->out[k]] = i;
  }
  /* Kill lists: each register dies at its last use, or where it is
   * defined when never used; bucketed by instruction (counting sort). */
  uint32_t *kill_start = xrealloc(NULL, (fb->ninstrs + 2) * sizeof(uint32_t));
  uint32_t *kills = xrealloc(NULL, (fb->nregs + 1) * sizeof(uint32_t));
  memset(kill_start, 0, (fb->ninstrs + 2) * sizeof(uint32_t));
  for (uint32_t r = 0; r < fb->nregs && fb->ninstrs; r++) kill_start[(last[r] >= 0 ? last[r] : def[r]) + 1]++;
  for (uint32_t i = 0; i < fb->ninstrs; i++) kill_start[i + 1] += kill_start[i];
  uint32_t *fill = xrealloc(NULL, (fb->ninstrs + 1) * sizeof(uint32_t));
  memcpy(fill, kill_start, (fb->ninstrs + 1) * sizeof(uint32_t));
  for (uint32_t r = 0; r < fb->nregs && fb->ninstrs; r++) kills[fill[last[r] >= 0 ? last[r] : def[r]]++] = r;
  free(fill);
  uint32_t code_start = (uint32_t)(e->code.n / sizeof(uint32_t));
  for (uint32_t i = 0; i < fb->ninstrs; i++) {
    Instr *in = &fb->instrs[i];
    unsigned opflags = vm_op_rows[in->opcode].flags;
    uint32_t flagsw = 0;
    if ((opflags & VMF_UPDATE) && in->nin > 0 && in->nout > 0 && last[in->in[0]] == (int64_t)i &&
        fb->reg_types[in->in[0]] == fb->reg_types[in->out[0]]) {
      bool twice = false; /* an operand passed twice must not be overwritten */
      for (uint32_t k = 1; k < in->nuse; k++) twice |= in->use[k] == in->in[0];
      if (!twice) flagsw = TPUB_INSTR_INPLACE;
    } else if (((opflags & VMF_ELEMENTWISE) && in->nout == 1) || in->tilewise) {
      const TpubType *ot = (const TpubType *)e->types.p + fb->reg_types[in->out[0]];
      for (uint32_t k = 0; k < in->nin && k < 128; k++) {
        const TpubType *it = (const TpubType *)e->types.p + fb->reg_types[in->in[k]];
        if (last[in->in[k]] == (int64_t)i && it->elem == ot->elem && it->rank == ot->rank &&
            (it->rank == 0 || memcmp(e->ints.p + it->dims * 8, e->ints.p + ot->dims * 8, it->rank * 8u) == 0)) {
          flagsw = TPUB_INSTR_INPLACE | k;
          break;
        }
      }
    }
    flagsw |= in->flags;
    uint32_t head[TPUB_INSTR_HEADER_WORDS] = {in->opcode | flagsw << 16, in->nin, in->nout,
                                              in->attrs, in->nattrs, in->loc};
    bytes_append(&e->code, head, sizeof head);
    bytes_append(&e->code, in->in, in->nin * sizeof(uint32_t));
    bytes_append(&e->code, in->out, in->nout * sizeof(uint32_t));
    uint32_t nkill = kill_start[i + 1] - kill_start[i];
    bytes_append(&e->code, &nkill, sizeof nkill);
    bytes_append(&e->code, kills + kill_start[i], nkill * sizeof(uint32_t));
  }
  int64_t *rtypes = xrealloc(NULL, (size_t)(nresults + 1) * sizeof(int64_t));
  for (int i = 0; i < nresults; i++) {
    uint32_t t = emit_type(e, result_types[i], NULL);
    rtypes[i] = t == UINT32_MAX ? 0 : t;
  }
  TpubFunc f = {
      .name = emit_string(e, name),
      .flags = flags,
      .n_params = nparams,
      .n_results = (uint32_t)nresults,
      .n_regs = fb->nregs,
      .reg_types = emit_ints(e, fb->reg_types, fb->nregs),
      .result_types = emit_ints(e, rtypes, (size_t)nresults),
      .code = code_start,
      .code_words = (uint32_t)(e->code.n / sizeof(uint32_t)) - code_start,
      .loc = emit_loc(e, loc, "func.func"),
  };
  emit_func_set(e, index, &f);
  free(rtypes);
  free(last);
  free(def);
  free(kill_start);
  free(kills);
  for (uint32_t i = 0; i < fb->ninstrs; i++) {
    free(fb->instrs[i].in);
    free(fb->instrs[i].out);
    free(fb->instrs[i].use);
  }
  free(fb->instrs);
  free(fb->reg_types);
  free(fb->caps_pending);
  table_free(&fb->regs, NULL);
}

/* ------------------------------------------------------------------ */
/* Ops. */

static bool unsupported(FuncBuilder *fb, const Op *op, const char *what) {
  op_error(fb->e->c, op, "%s is not supported by the tpurun back end", what);
  fb->e->failed = true;
  return false;
}

/* IR ops that map one-to-one onto an opcode without fields. */
static int direct_opcode(OpKind k) {
  switch (k) {
  case OP_ABS: return VM_OP_ABS;
  case OP_CBRT: return VM_OP_CBRT;
  case OP_CEIL: return VM_OP_CEIL;
  case OP_CONVERT: return VM_OP_CONVERT;
  case OP_COSINE: return VM_OP_COSINE;
  case OP_COUNT_LEADING_ZEROS: return VM_OP_COUNT_LEADING_ZEROS;
  case OP_EXPONENTIAL: return VM_OP_EXPONENTIAL;
  case OP_EXPONENTIAL_MINUS_ONE: return VM_OP_EXPONENTIAL_MINUS_ONE;
  case OP_FLOOR: return VM_OP_FLOOR;
  case OP_IMAG: return VM_OP_IMAG;
  case OP_IS_FINITE: return VM_OP_IS_FINITE;
  case OP_LOG: return VM_OP_LOG;
  case OP_LOG_PLUS_ONE: return VM_OP_LOG_PLUS_ONE;
  case OP_LOGISTIC: return VM_OP_LOGISTIC;
  case OP_NEGATE: return VM_OP_NEGATE;
  case OP_NOT: return VM_OP_NOT;
  case OP_POPCNT: return VM_OP_POPCNT;
  case OP_REAL: return VM_OP_REAL;
  case OP_ROUND_NEAREST_AFZ: return VM_OP_ROUND_NEAREST_AFZ;
  case OP_ROUND_NEAREST_EVEN: return VM_OP_ROUND_NEAREST_EVEN;
  case OP_RSQRT: return VM_OP_RSQRT;
  case OP_SIGN: return VM_OP_SIGN;
  case OP_SINE: return VM_OP_SINE;
  case OP_SQRT: return VM_OP_SQRT;
  case OP_TAN: return VM_OP_TAN;
  case OP_TANH: return VM_OP_TANH;
  case OP_ADD: return VM_OP_ADD;
  case OP_AND: return VM_OP_AND;
  case OP_ATAN2: return VM_OP_ATAN2;
  case OP_COMPLEX: return VM_OP_COMPLEX;
  case OP_DIVIDE: return VM_OP_DIVIDE;
  case OP_MAXIMUM: return VM_OP_MAXIMUM;
  case OP_MINIMUM: return VM_OP_MINIMUM;
  case OP_MULTIPLY: return VM_OP_MULTIPLY;
  case OP_OR: return VM_OP_OR;
  case OP_POWER: return VM_OP_POWER;
  case OP_REMAINDER: return VM_OP_REMAINDER;
  case OP_SHIFT_LEFT: return VM_OP_SHIFT_LEFT;
  case OP_SHIFT_RIGHT_ARITHMETIC: return VM_OP_SHIFT_RIGHT_ARITHMETIC;
  case OP_SHIFT_RIGHT_LOGICAL: return VM_OP_SHIFT_RIGHT_LOGICAL;
  case OP_SUBTRACT: return VM_OP_SUBTRACT;
  case OP_XOR: return VM_OP_XOR;
  case OP_CLAMP: return VM_OP_CLAMP;
  case OP_SELECT: return VM_OP_SELECT;
  case OP_BITCAST_CONVERT: return VM_OP_BITCAST_CONVERT;
  case OP_RESHAPE: return VM_OP_RESHAPE;
  case OP_DYNAMIC_UPDATE_SLICE: return VM_OP_DYNAMIC_UPDATE_SLICE;
  case OP_TUPLE: return VM_OP_TUPLE;
  case OP_OPTIMIZATION_BARRIER:
  case OP_SDY_SHARDING_CONSTRAINT: return VM_OP_COPY;
  case OP_CREATE_TOKEN: return VM_OP_TOKEN;
  case OP_AFTER_ALL: return VM_OP_TOKEN;
  case OP_CHLO_ACOS: return VM_OP_ACOS;
  case OP_CHLO_ACOSH: return VM_OP_ACOSH;
  case OP_CHLO_ASIN: return VM_OP_ASIN;
  case OP_CHLO_ASINH: return VM_OP_ASINH;
  case OP_CHLO_ATAN: return VM_OP_ATAN;
  case OP_CHLO_ATANH: return VM_OP_ATANH;
  case OP_CHLO_BESSEL_I1E: return VM_OP_BESSEL_I1E;
  case OP_CHLO_CONJ: return VM_OP_CONJ;
  case OP_CHLO_COSH: return VM_OP_COSH;
  case OP_CHLO_DIGAMMA: return VM_OP_DIGAMMA;
  case OP_CHLO_ERF: return VM_OP_ERF;
  case OP_CHLO_ERF_INV: return VM_OP_ERF_INV;
  case OP_CHLO_ERFC: return VM_OP_ERFC;
  case OP_CHLO_IS_INF: return VM_OP_IS_INF;
  case OP_CHLO_IS_NEG_INF: return VM_OP_IS_NEG_INF;
  case OP_CHLO_IS_POS_INF: return VM_OP_IS_POS_INF;
  case OP_CHLO_LGAMMA: return VM_OP_LGAMMA;
  case OP_CHLO_SINH: return VM_OP_SINH;
  case OP_CHLO_TAN: return VM_OP_TAN;
  case OP_CHLO_NEXT_AFTER: return VM_OP_NEXT_AFTER;
  case OP_CHLO_POLYGAMMA: return VM_OP_POLYGAMMA;
  case OP_CHLO_ZETA: return VM_OP_ZETA;
  default: return -1;
  }
}

/* Canonical VM storage of a dense attribute's elements (see vm/tpub.h). */
static void lower_constant(FuncBuilder *fb, const Op *op, const Attr *a) {
  Emitter *e = fb->e;
  int64_t flags = 0, nbytes = 0;
  uint64_t off = 0;
  if (a && a->kind == ATTR_DENSE) {
    ElemKind k = a->type->elem;
    int sz = elem_storage_bytes(k);
    int64_t count = a->u.dense.splat ? 1 : dense_num_elements(a);
    nbytes = count * sz;
    uint8_t *buf = xrealloc(NULL, (size_t)nbytes + 1);
    if (elem_is_int(k)) {
      for (int64_t i = 0; i < count; i++) {
        int64_t v = dense_get_int(a, i);
        int bits = elem_bits(k);
        if (k == ELEM_I1 || k == ELEM_UI1) v &= 1;
        else if (bits < 64 && elem_is_unsigned(k)) v &= (int64_t)((1ull << bits) - 1);
        else if (bits < 64) v = (int64_t)((uint64_t)v << (64 - bits)) >> (64 - bits);
        memcpy(buf + i * sz, &v, (size_t)sz);
      }
    } else {
      if (nbytes) memcpy(buf, a->u.dense.data, (size_t)nbytes);
    }
    off = emit_const_bytes(e, buf, (size_t)nbytes);
    free(buf);
    if (a->u.dense.splat) flags |= 1;
  } else if (a && a->kind == ATTR_DENSE_RESOURCE) {
    const Resource *res = NULL;
    for (int i = 0; i < e->m->nresources; i++)
      if (strcmp(e->m->resources[i].name, a->u.resource.name) == 0) res = &e->m->resources[i];
    int64_t count;
    if (!type_tensor_num_elements(a->type, &count)) count = -1;
    int64_t want = count * elem_storage_bytes(type_elem_kind(a->type));
    if (res && res->data && (int64_t)res->nbytes == want) {
      off = emit_const_bytes(e, res->data, res->nbytes);
      nbytes = want;
    } else if ((!res || !res->hex) && strcmp(a->u.resource.name, "__elided__") == 0) {
      flags |= 2; /* elided: seeded random data at load time */
    } else {
      unsupported(fb, op, "a dense_resource without a blob of its type's size"); /* the verifier says why */
      return;
    }
  } else {
    unsupported(fb, op, "this constant value");
    return;
  }
  fint(e, (int64_t)off);
  fint(e, nbytes);
  fint(e, flags);
  emit_op(fb, op, VM_OP_CONSTANT);
}

/* get_dimension_size of a static dimension: the size as an i32 constant
 * (canonicalize folds it; this is for -O0). */
static void lower_dimension_size(FuncBuilder *fb, const Op *op) {
  int32_t size;
  if (!static_dimension_size(op, &size)) {
    unsupported(fb, op, "get_dimension_size of a dynamic dimension");
    return;
  }
  fint(fb->e, (int64_t)emit_const_bytes(fb->e, &size, sizeof size));
  fint(fb->e, sizeof size);
  fint(fb->e, 0);
  emit_op_range(fb, op, VM_OP_CONSTANT, 0, 0);
}

/* The integer values of v when a stablehlo.constant defines it (for the
 * dynamic ops whose shape operands are compile-time constants). */
static bool constant_ints(Emitter *e, const Value *v, int *n, const int64_t **out) {
  if (!v->def || v->def->kind != OP_CONSTANT) return false;
  const Attr *a = op_attr(v->def, "value");
  if (!a || a->kind != ATTR_DENSE || !elem_is_int(a->type->elem)) return false;
  int64_t cnt;
  if (!type_tensor_num_elements(a->type, &cnt) || cnt > 1 << 20) return false;
  int64_t *vals = arena_alloc(&e->c->arena, sizeof(int64_t) * (size_t)(cnt + 1));
  for (int64_t i = 0; i < cnt; i++) vals[i] = dense_get_int(a, a->u.dense.splat ? 0 : i);
  *n = (int)cnt;
  *out = vals;
  return true;
}

/* The callee of a symbol attribute, as a function index, or -1. */
static int64_t callee_index(Emitter *e, const Attr *sym) {
  if (!sym || (sym->kind != ATTR_SYMREF && sym->kind != ATTR_STRING)) return -1;
  void **slot = table_get(&e->func_index, sym->u.str.s, strlen(sym->u.str.s));
  return slot ? (int64_t)(uintptr_t)*slot - 1 : -1;
}

/* A call of function index fi with the op's operands and results. */
static void lower_call_to(FuncBuilder *fb, const Op *op, int64_t fi) {
  fint(fb->e, fi);
  fint(fb->e, 0);
  emit_op(fb, op, VM_OP_CALL);
}

/* interpreter.run_parallel: programs[replica][partition] become one
 * region each, row-major; one program on one chip is a plain call. */
static void lower_run_parallel(FuncBuilder *fb, const Op *op) {
  Emitter *e = fb->e;
  const Attr *progs = op_attr(op, "programs");
  int replicas = progs && progs->kind == ATTR_ARRAY ? progs->u.array.n : 0, partitions = -1;
  for (int r = 0; r < replicas; r++) {
    const Attr *row = progs->u.array.items[r];
    int n = row->kind == ATTR_ARRAY ? row->u.array.n : -1;
    if (partitions < 0) partitions = n;
    if (n != partitions || n < 1) {
      unsupported(fb, op, "interpreter.run_parallel whose programs are not a non-empty rectangular grid");
      return;
    }
  }
  if (replicas < 1) {
    unsupported(fb, op, "interpreter.run_parallel without programs");
    return;
  }
  int64_t *funcs = arena_alloc(&e->c->arena, sizeof(int64_t) * (size_t)(replicas * partitions));
  for (int r = 0; r < replicas; r++)
    for (int p = 0; p < partitions; p++) {
      int64_t fi = callee_index(e, progs->u.array.items[r]->u.array.items[p]);
      if (fi < 0) {
        unsupported(fb, op, "interpreter.run_parallel of an unknown function");
        return;
      }
      funcs[r * partitions + p] = fi;
    }
  if (replicas * partitions == 1) {
    lower_call_to(fb, op, funcs[0]);
    return;
  }
  fint(e, replicas * partitions);
  for (int k = 0; k < replicas * partitions; k++) {
    fint(e, funcs[k]);
    fint(e, 0);
  }
  fint(e, replicas);
  emit_op(fb, op, VM_OP_RUN_PARALLEL);
}

static const char *const cmp_dirs[] = {"EQ", "NE", "GE", "GT", "LE", "LT", NULL};
static const char *const cmp_types[] = {"NOTYPE", "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED", NULL};

/* check ops: kind 0 eq, 1 almost_eq, 2 close. */
static void lower_check(FuncBuilder *fb, const Op *op, int kind, double tol, int64_t min_ulp,
                        int64_t max_ulp, const Attr *expected) {
  Emitter *e = fb->e;
  fint(e, kind);
  field_f64(e, tol);
  fint(e, min_ulp);
  fint(e, max_ulp);
  if (!expected) {
    emit_op(fb, op, VM_OP_CHECK2);
    return;
  }
  /* The expected constant, canonicalized like a stablehlo.constant. */
  int sz = elem_storage_bytes(expected->type->elem);
  int64_t count = expected->u.dense.splat ? 1 : dense_num_elements(expected);
  uint8_t *buf = xrealloc(NULL, (size_t)(count * sz) + 1);
  for (int64_t i = 0; i < count; i++) {
    if (elem_is_int(expected->type->elem)) {
      int64_t v = dense_get_int(expected, i);
      memcpy(buf + i * sz, &v, (size_t)sz);
    } else {
      memcpy(buf + i * sz, expected->u.dense.data + i * sz, (size_t)sz);
    }
  }
  uint64_t off = emit_const_bytes(e, buf, (size_t)(count * sz));
  free(buf);
  fint(e, (int64_t)off);
  fint(e, count * sz);
  fint(e, expected->u.dense.splat ? 1 : 0);
  emit_op(fb, op, VM_OP_CHECK);
}

static double attr_f64_or(const Op *op, const char *name, double def) {
  const Attr *a = op_attr(op, name);
  if (!a || a->kind != ATTR_FLOAT) return def;
  return float_bits_to_double(type_elem_kind(a->type), a->u.f);
}

static void lower_custom_call(FuncBuilder *fb, const Op *op) {
  const Attr *t = op_attr(op, "call_target_name");
  const char *name = t && t->kind == ATTR_STRING ? t->u.str.s : "";
  if (op->noperands == 2 && op->nresults == 0) {
    if (strcmp(name, "check.expect_eq") == 0) return lower_check(fb, op, 0, 0, 0, 0, NULL);
    if (strcmp(name, "check.expect_almost_eq") == 0) return lower_check(fb, op, 1, 1e-3, 0, 0, NULL);
    if (strcmp(name, "check.expect_close") == 0) return lower_check(fb, op, 2, 0, 0, 3, NULL);
  }
  if (custom_call_annotation(op) && op->noperands == 1 && op->nresults == 1 &&
      op->operands[0]->type == op->results[0].type) {
    emit_op(fb, op, VM_OP_COPY); /* an identity (passes/sharding.c checked the partitions) */
    return;
  }
  char what[160];
  snprintf(what, sizeof what, "custom_call @%.100s", name);
  unsupported(fb, op, what);
}

/* The tile and pad fields of mxu_dot from a dot_general's tpu.mxu_tile and
 * tpu.mxu_pad (default: the real sizes), checked as the loader will
 * (vm/tpub.h); false after a diagnostic. */
static bool field_mxu_tiling(FuncBuilder *fb, const Op *op) {
  Emitter *e = fb->e;
  const Attr *d = op_attr(op, "dot_dimension_numbers");
  static const char *const keys[4] = {"lhs_batching_dimensions", "lhs_contracting_dimensions",
                                      "rhs_batching_dimensions", "rhs_contracting_dimensions"};
  int n[4] = {0};
  const int64_t *v[4] = {NULL};
  for (int i = 0; i < 4; i++) {
    const Attr *p = dialect_param(d, keys[i]);
    if (p && !attr_as_i64_list(p, &n[i], &v[i], &e->c->arena)) n[i] = 0;
  }
  /* real = {M, N, K}: lhs free, rhs free, contracting. */
  int64_t real[3] = {1, 1, 1};
  for (int side = 0; side < 2; side++) {
    const Type *t = op->operands[side]->type;
    uint64_t used = 0;
    for (int k = 2 * side; k < 2 * side + 2; k++)
      for (int i = 0; i < n[k]; i++)
        if (v[k][i] >= 0 && v[k][i] < 64) used |= 1ull << v[k][i];
    for (int dim = 0; dim < t->rank && dim < 64; dim++)
      if (!(used & (1ull << dim))) real[side] *= t->dims[dim];
  }
  for (int i = 0; i < n[1]; i++) real[2] *= op->operands[0]->type->dims[v[1][i]];
  int nt, np = 3;
  const int64_t *tile, *pad = real;
  if (!attr_ints(e, op, "tpu.mxu_tile", &nt, &tile) || nt != 3 ||
      (op_attr(op, "tpu.mxu_pad") && (!attr_ints(e, op, "tpu.mxu_pad", &np, &pad) || np != 3))) {
    op_error(e->c, op, "tpu.mxu_tile and tpu.mxu_pad must be array<i64: M, N, K>");
    e->failed = true;
    return false;
  }
  static const char axis[3] = {'M', 'N', 'K'};
  for (int i = 0; i < 3; i++) {
    int64_t slack = tile[i] > TPUB_MXU_PAD_SLACK ? tile[i] : TPUB_MXU_PAD_SLACK;
    if (tile[i] < 1 || tile[i] > TPUB_MXU_MAX_TILE) {
      op_error(e->c, op, "tpu.mxu_tile %c = %lld is not in [1, %d]", axis[i], (long long)tile[i],
               TPUB_MXU_MAX_TILE);
      e->failed = true;
      return false;
    }
    if (pad[i] < real[i] || pad[i] - real[i] > slack) {
      op_error(e->c, op, "tpu.mxu_pad %c = %lld must be at least the size %lld and at most %lld more",
               axis[i], (long long)pad[i], (long long)real[i], (long long)slack);
      e->failed = true;
      return false;
    }
  }
  field_list(e, 3, tile);
  field_list(e, 3, pad);
  return true;
}

/* ------------------------------------------------------------------ */
/* Collectives (vm/kernels/collective.c, vm/kernels/channel.c, docs/collectives.md). */

/* The mode field of the collective opcodes (vm/kernels/collective.h). */
enum { COLL_CROSS_REPLICA, COLL_CROSS_PARTITION, COLL_CROSS_REPLICA_AND_PARTITION, COLL_FLATTENED_IDS };

/* The channel handle's id, 0 without one. */
static int64_t channel_id(const Op *op) {
  const Attr *ch = op_attr(op, "channel_handle");
  return ch && ch->kind == ATTR_DIALECT ? dialect_int(ch, "handle", 0) : 0;
}

/* The spec's process-group mode: all_reduce, all_gather and reduce_scatter
 * (reducing) choose by channel and use_global_device_ids, the others by
 * the channel alone. */
static int64_t collective_mode(const Op *op, bool reducing) {
  if (channel_id(op) <= 0) return COLL_CROSS_REPLICA;
  if (!reducing) return COLL_CROSS_PARTITION;
  const Attr *g = op_attr(op, "use_global_device_ids");
  bool global = g && (g->kind == ATTR_UNIT || (g->kind == ATTR_BOOL && g->u.b));
  return global ? COLL_FLATTENED_IDS : COLL_CROSS_REPLICA_AND_PARTITION;
}

/* A 2-d integer attribute flattened (fields list, then the row length when
 * size_field); absent is empty.  False after a diagnostic. */
static bool field_id_rows(FuncBuilder *fb, const Op *op, const char *name, bool size_field) {
  Emitter *e = fb->e;
  const Attr *a = op_attr(op, name);
  int n = 0;
  const int64_t *v = NULL;
  if (a && (a->kind != ATTR_DENSE || !a->type || a->type->rank != 2 || !attr_ints(e, op, name, &n, &v))) {
    char what[120];
    snprintf(what, sizeof what, "%s other than a 2-d integer constant", name);
    return unsupported(fb, op, what);
  }
  field_list(e, n, v);
  if (size_field) fint(e, a && n ? a->type->dims[1] : 0);
  return true;
}

/* A collective of groups: groups, group_size, mode and channel fields. */
static bool field_collective(FuncBuilder *fb, const Op *op, bool reducing) {
  if (!field_id_rows(fb, op, "replica_groups", true)) return false;
  fint(fb->e, collective_mode(op, reducing));
  fint(fb->e, channel_id(op));
  return true;
}

/* The registers of op's operands, each converted to its result's element
 * type where the two differ (a reduction's to_destination_type).  Emitted
 * before the op's own fields are written. */
static uint32_t *operands_in_result_types(FuncBuilder *fb, const Op *op) {
  uint32_t *in = xrealloc(NULL, sizeof(uint32_t) * (size_t)(op->noperands + 1));
  for (int i = 0; i < op->noperands; i++) {
    const Type *t = op->operands[i]->type, *rt = i < op->nresults ? op->results[i].type : t;
    in[i] = reg_of(fb, op->operands[i]);
    if (t->kind == TY_TENSOR && rt->kind == TY_TENSOR && t->elem != rt->elem) {
      uint32_t r = new_reg(fb, type_tensor(fb->e->c, rt->elem, t->rank, t->dims, NULL), op);
      emit_regs(fb, op, VM_OP_CONVERT, 1, &in[i], 1, &r);
      in[i] = r;
    }
  }
  return in;
}

/* Whether region r holds an op that waits for other chips (the VM runs a
 * reduction body inside the collective, where that could never complete). */
static bool region_waits(const Region *r) {
  for (int bi = 0; bi < r->nblocks; bi++)
    for (const Op *o = r->blocks[bi]->first; o; o = o->next) {
      switch (o->kind) {
      case OP_ALL_REDUCE: case OP_ALL_GATHER: case OP_ALL_TO_ALL: case OP_COLLECTIVE_BROADCAST:
      case OP_COLLECTIVE_PERMUTE: case OP_REDUCE_SCATTER: case OP_COLLECTIVE_REDUCE: case OP_CROSS_REPLICA_SUM:
      case OP_RECV: case OP_INTERPRETER_RUN_PARALLEL: return true;
      default: break;
      }
      for (int k = 0; k < o->nregions; k++)
        if (region_waits(&o->regions[k])) return true;
    }
  return false;
}

/* all_reduce, reduce_scatter and collective_reduce over converted
 * operands: the group fields, scatter_dimension, the computation. */
static void lower_reduction(FuncBuilder *fb, Op *op, int opcode) {
  const Attr *dyn = op_attr(op, "has_dynamic_root");
  if (dyn && (dyn->kind == ATTR_UNIT || (dyn->kind == ATTR_BOOL && dyn->u.b))) {
    unsupported(fb, op, "a collective with has_dynamic_root");
    return;
  }
  if (op->nregions != 1 || region_waits(&op->regions[0])) {
    unsupported(fb, op, "a reduction computation that runs a collective or recv");
    return;
  }
  uint32_t *in = operands_in_result_types(fb, op);
  uint32_t *out = xrealloc(NULL, sizeof(uint32_t) * (size_t)(op->nresults + 1));
  if (field_collective(fb, op, opcode != VM_OP_COLLECTIVE_REDUCE)) {
    if (opcode == VM_OP_REDUCE_SCATTER) fint(fb->e, attr_int_or(op, "scatter_dimension", 0));
    field_region(fb, op, &op->regions[0]);
    for (int i = 0; i < op->nresults; i++) out[i] = bind_value(fb, &op->results[i], op);
    emit_regs(fb, op, opcode, (uint32_t)op->noperands, in, (uint32_t)op->nresults, out);
  }
  free(in);
  free(out);
}

/* send and recv: pairs, mode, channel, host flag; payloads of tensors. */
static void lower_send_recv(FuncBuilder *fb, Op *op, int opcode) {
  for (int i = 0; i < op->noperands + op->nresults; i++) {
    const Type *t = i < op->noperands ? op->operands[i]->type : op->results[i - op->noperands].type;
    if (t->kind == TY_TUPLE) {
      unsupported(fb, op, "a tuple sent or received");
      return;
    }
  }
  if (!field_id_rows(fb, op, "source_target_pairs", false)) return;
  fint(fb->e, collective_mode(op, false));
  fint(fb->e, channel_id(op));
  fint(fb->e, attr_int_or(op, "is_host_transfer", 0));
  emit_op(fb, op, opcode);
}

static void lower_op_fields(FuncBuilder *fb, Op *op);

/* A fusion body the VM's FUSION instruction can run tile by tile: only
 * element-wise ops, broadcasts, reshapes and constants. */
static bool loop_fusible(const Op *o);
static bool fusion_is_loop_body(const Op *fusion) {
  for (const Op *o = op_body(fusion)->first; o; o = o->next)
    if (o->kind != OP_TPU_YIELD && !loop_fusible(o)) return false;
  return true;
}

static void lower_op(FuncBuilder *fb, Op *op);

static bool loop_fusible(const Op *o) {
  bool elementwise = (op_info[o->kind].traits & TRAIT_ELEMENTWISE) && !o->nregions;
  return elementwise || o->kind == OP_BROADCAST_IN_DIM || o->kind == OP_RESHAPE || o->kind == OP_CONSTANT;
}

/* Builds, detached, a fusion of kind `kind` of the ops `part` (in body
 * order) of a fusion body: its operands are what the part reads from
 * outside it (`in_part` holds its ops), its results the values `outs`,
 * which become aliases of the new op's results in `in_part`. */
static Op *build_part_fusion(Context *c, const Op *fusion, PtrVec *part, Table *in_part, PtrVec *outs,
                             const char *kind) {
  PtrVec params = {0};
  Table seen = {0};
  for (int i = 0; i < part->len; i++) {
    const Op *o = part->items[i];
    for (int k = 0; k < o->noperands; k++) {
      Value *v = o->operands[k];
      if ((v->def && table_get(in_part, v->def, 0)) || table_get(&seen, v, 0)) continue;
      *table_put(&seen, v, 0) = v;
      vec_push(&params, v);
    }
  }
  Type *ptypes[params.len + 1], *otypes[outs->len + 1];
  for (int i = 0; i < params.len; i++) ptypes[i] = ((Value *)params.items[i])->type;
  for (int i = 0; i < outs->len; i++) otypes[i] = ((Value *)outs->items[i])->type;
  NamedAttr k = {"kind", attr_string(c, kind, strlen(kind))};
  Op *f = op_create(c, OP_TPU_FUSION, NULL, fusion->loc, params.len, (Value **)params.items, outs->len, otypes, 1, &k,
                    1);
  Block *b = block_create(c, &f->regions[0], params.len, ptypes);
  region_add_block(c, &f->regions[0], b);
  ValueMap map = {0};
  for (int i = 0; i < params.len; i++) value_map_put(c, &map, params.items[i], &b->args[i]);
  for (int i = 0; i < part->len; i++) op_append(b, op_clone(c, part->items[i], &map));
  Value *ys[outs->len + 1];
  for (int i = 0; i < outs->len; i++) ys[i] = value_map_get(&map, outs->items[i]);
  op_append(b, op_create(c, OP_TPU_YIELD, NULL, fusion->loc, outs->len, ys, 0, NULL, 0, NULL, 0));
  for (int i = 0; i < outs->len; i++) *table_put(in_part, outs->items[i], 0) = &f->results[i];
  table_free(&seen, NULL);
  vec_free(&params);
  return f;
}

static void emit_fusion(FuncBuilder *fb, Op *op, int64_t kind);

/* tpu.fusion kinds by their FUSION field value (kind 0: loop, 1: input). */
static const char *const fusion_kinds[] = {"loop", "input", "output", "multi_output", NULL};

/* Lowers `part` as one detached fusion of kind `kind` yielding `outs`. */
static void lower_part(FuncBuilder *fb, const Op *fusion, PtrVec *part, Table *in_part, PtrVec *outs, int64_t kind) {
  Op *f = build_part_fusion(fb->e->c, fusion, part, in_part, outs, fusion_kinds[kind]);
  emit_fusion(fb, f, kind);
  op_erase(f);
}

/* Whether the root part `root` (its ops in `in_root`) is an input FUSION
 * the VM runs tile by tile: loop-fusible ops whose values only it uses and
 * that use no reduce, and reduces of them (a sibling fusion may hold
 * several).  Then the reduces move after the other ops in `root` and their
 * results go to `outs`, in order. */
static bool tiled_reduce_root(PtrVec *root, Table *in_root, PtrVec *outs) {
  PtrVec others = {0}, reduces = {0};
  bool ok = true;
  for (int i = 0; i < root->len && ok; i++) {
    Op *o = root->items[i];
    if (o->kind == OP_REDUCE) {
      vec_push(&reduces, o);
      for (int k = 0; k < o->nresults; k++) vec_push(outs, &o->results[k]);
      continue;
    }
    ok = loop_fusible(o);
    for (int k = 0; k < o->noperands && ok; k++) ok = !o->operands[k]->def || o->operands[k]->def->kind != OP_REDUCE;
    for (int k = 0; k < o->nresults && ok; k++)
      for (const Use *u = o->results[k].uses; u && ok; u = u->next) ok = table_get(in_root, u->user, 0) != NULL;
    vec_push(&others, o);
  }
  ok = ok && reduces.len > 0;
  for (int i = 0; ok && i < others.len; i++) root->items[i] = others.items[i];
  for (int i = 0; ok && i < reduces.len; i++) root->items[others.len + i] = reduces.items[i];
  vec_free(&others);
  vec_free(&reduces);
  return ok;
}

/* Any other fusion (a reduce, a dot_general or convolution with its
 * consumers) runs in two parts: the root and what feeds it, then the
 * element-wise tail that only consumes the root as a loop FUSION, tile by
 * tile.  A root that is one reduce of loop-fusible producers is an input
 * FUSION (the VM folds the producer's tiles as they are computed); any
 * other root part runs as plain instructions (their host kernels are
 * whole-array already).  All of it keeps the fusion's cost record: the
 * model prices the fused op. */
static void lower_fusion_inline(FuncBuilder *fb, Op *fusion) {
  Block *body = op_body(fusion);
  for (int i = 0; i < body->nargs; i++)
    *table_put(&fb->regs, &body->args[i], 0) = (void *)(uintptr_t)(reg_of(fb, fusion->operands[i]) + 1);
  /* The root part: ops that are not loop-fusible and everything they read
   * inside the body (producers come first, so one backward sweep). */
  Table root_part = {0}, in_tail = {0};
  for (Op *o = body->last; o; o = o->prev) {
    if (o->kind == OP_TPU_YIELD) continue;
    if (loop_fusible(o) && !table_get(&root_part, o, 0)) continue;
    *table_put(&root_part, o, 0) = o;
    for (int k = 0; k < o->noperands; k++)
      if (o->operands[k]->def && o->operands[k]->def->parent == body)
        *table_put(&root_part, o->operands[k]->def, 0) = o;
  }
  PtrVec tail = {0}, root = {0}, outs = {0};
  for (Op *o = body->first; o; o = o->next) {
    if (o->kind == OP_TPU_YIELD) continue;
    if (table_get(&root_part, o, 0)) {
      vec_push(&root, o);
    } else {
      vec_push(&tail, o);
      *table_put(&in_tail, o, 0) = o;
    }
  }
  if (tiled_reduce_root(&root, &root_part, &outs)) {
    lower_part(fb, fusion, &root, &root_part, &outs, 1);
    for (int i = 0; i < outs.len; i++) {
      void **alias = table_get(&root_part, outs.items[i], 0);
      *table_put(&fb->regs, outs.items[i], 0) = (void *)(uintptr_t)(reg_of(fb, *alias) + 1);
    }
  } else {
    for (int i = 0; i < root.len; i++) lower_op(fb, root.items[i]);
  }
  /* The tail's yielded values, once each. */
  const Op *yield = body->last;
  outs.len = 0;
  for (int i = 0; i < yield->noperands; i++) {
    Value *v = yield->operands[i];
    bool dup = false;
    for (int k = 0; k < outs.len; k++) dup |= outs.items[k] == v;
    if (!dup && v->def && table_get(&in_tail, v->def, 0)) vec_push(&outs, v);
  }
  if (outs.len) lower_part(fb, fusion, &tail, &in_tail, &outs, 0);
  for (int i = 0; i < yield->noperands; i++) {
    Value *v = yield->operands[i];
    void **alias = table_get(&in_tail, v, 0);
    Value *src = alias ? *alias : v;
    *table_put(&fb->regs, &fusion->results[i], 0) = (void *)(uintptr_t)(reg_of(fb, src) + 1);
  }
  table_free(&root_part, NULL);
  table_free(&in_tail, NULL);
  vec_free(&tail);
  vec_free(&root);
  vec_free(&outs);
}

/* One FUSION instruction of kind `kind`; the body becomes a region
 * function (isolated: no captures). */
static void emit_fusion(FuncBuilder *fb, Op *op, int64_t kind) {
  Emitter *e = fb->e;
  Bytes fields = {0}, *saved = e->fields;
  e->fields = &fields;
  fint(e, kind);
  field_region(fb, op, &op->regions[0]);
  emit_op(fb, op, VM_OP_FUSION)->tilewise = kind == 0 && loop_fusion_writes_in_place(op);
  e->fields = saved;
  bytes_free(&fields);
}

/* Lowers one op with its own field buffer. */
static void lower_op(FuncBuilder *fb, Op *op) {
  Emitter *e = fb->e;
  Bytes fields = {0}, *saved = e->fields;
  e->fields = &fields;
  lower_op_fields(fb, op);
  e->fields = saved;
  bytes_free(&fields);
}

static void lower_op_fields(FuncBuilder *fb, Op *op) {
  Emitter *e = fb->e;
  int direct = direct_opcode(op->kind);
  if (direct >= 0) {
    if (op->kind >= OP_CHLO_ACOS && op->nresults == 1 && op->noperands == 2) {
      /* CHLO binary ops broadcast implicitly: make the shapes explicit. */
      uint32_t in[2];
      const Type *rt = op->results[0].type;
      for (int i = 0; i < 2; i++) {
        const Type *t = op->operands[i]->type;
        in[i] = reg_of(fb, op->operands[i]);
        if (t->kind == TY_TENSOR && t->rank >= 0 && rt->rank >= 0 && t != rt &&
            (t->rank != rt->rank || memcmp(t->dims, rt->dims, sizeof(int64_t) * (size_t)t->rank))) {
          int64_t dims[TPUB_MAX_RANK];
          for (int d = 0; d < t->rank && d < TPUB_MAX_RANK; d++) dims[d] = rt->rank - t->rank + d;
          field_list(e, t->rank, dims);
          Type *bt = type_tensor(e->c, t->elem, rt->rank, rt->dims, NULL);
          uint32_t r = new_reg(fb, bt, op);
          emit_regs(fb, op, VM_OP_BROADCAST_IN_DIM, 1, &in[i], 1, &r);
          in[i] = r;
        }
      }
      uint32_t out = bind_value(fb, &op->results[0], op);
      emit_regs(fb, op, direct, 2, in, 1, &out);
      return;
    }
    emit_op(fb, op, direct);
    return;
  }
  switch (op->kind) {
  case OP_FUNC_RETURN:
  case OP_RETURN:
  case OP_TPU_YIELD: emit_op(fb, op, VM_OP_RETURN); return;
  case OP_FUNC_CALL:
  case OP_COMPOSITE: {
    int64_t fi = callee_index(e, op_attr(op, op->kind == OP_COMPOSITE ? "decomposition" : "callee"));
    if (fi < 0) {
      unsupported(fb, op, "a call to an unknown function");
      return;
    }
    lower_call_to(fb, op, fi);
    return;
  }
  case OP_INTERPRETER_RUN_PARALLEL: lower_run_parallel(fb, op); return;
  case OP_OUTFEED: emit_op(fb, op, VM_OP_TOKEN); return;
  case OP_DYNAMIC_IOTA:
  case OP_DYNAMIC_RESHAPE:
  case OP_DYNAMIC_BROADCAST_IN_DIM: {
    /* The shape operand is redundant when the result type is static. */
    Type *rt = op->results[0].type;
    int64_t cnt;
    if (!type_tensor_num_elements(rt, &cnt)) {
      unsupported(fb, op, "a dynamically shaped result");
      return;
    }
    if (op->kind == OP_DYNAMIC_IOTA) {
      fint(e, attr_int_or(op, "iota_dimension", 0));
      emit_op_range(fb, op, VM_OP_IOTA, 0, 0);
    } else if (op->kind == OP_DYNAMIC_RESHAPE) {
      emit_op_range(fb, op, VM_OP_RESHAPE, 0, 1);
    } else {
      field_attr_list(e, op, "broadcast_dimensions", 0, 0);
      emit_op_range(fb, op, VM_OP_BROADCAST_IN_DIM, 0, 1);
    }
    return;
  }
  case OP_DYNAMIC_PAD: {
    int n[3];
    const int64_t *v[3];
    for (int i = 0; i < 3; i++)
      if (!constant_ints(e, op->operands[2 + i], &n[i], &v[i])) {
        unsupported(fb, op, "dynamic_pad with padding amounts computed at run time");
        return;
      }
    for (int i = 0; i < 3; i++) field_list(e, n[i], v[i]);
    emit_op_range(fb, op, VM_OP_PAD, 0, 2);
    return;
  }
  case OP_INTERPRETER_PROBE: {
    const Attr *id = op_attr(op, "probe_id");
    fint(e, emit_string(e, id && id->kind == ATTR_STRING ? id->u.str.s : ""));
    emit_op(fb, op, VM_OP_PROBE);
    return;
  }
  case OP_CHECK_EXPECT_SERIALIZED_EQ: {
    const Attr *id = op_attr(op, "probe_id");
    fint(e, emit_string(e, id && id->kind == ATTR_STRING ? id->u.str.s : ""));
    fint(e, attr_int_or(op, "iter", 0));
    emit_op(fb, op, VM_OP_CHECK_PROBE);
    return;
  }
  case OP_CHLO_SCAN: {
    int64_t ninputs = op->noperands;
    const Attr *seg = op_attr(op, "operandSegmentSizes");
    int nseg;
    const int64_t *segv;
    if (seg && attr_as_i64_list(seg, &nseg, &segv, &e->c->arena) && nseg == 2) ninputs = segv[0];
    fint(e, attr_int_or(op, "dimension", 0));
    fint(e, attr_int_or(op, "is_reverse", 0));
    fint(e, ninputs);
    field_region(fb, op, &op->regions[0]);
    emit_op(fb, op, VM_OP_SCAN);
    return;
  }
  case OP_CHLO_RAGGED_DOT: {
    const Attr *d = op_attr(op, "ragged_dot_dimension_numbers");
    static const char *const keys[] = {"lhs_batching_dimensions",    "rhs_batching_dimensions",
                                       "lhs_contracting_dimensions", "rhs_contracting_dimensions",
                                       "lhs_ragged_dimensions",      "rhs_group_dimensions",
                                       NULL};
    field_dialect_lists(e, d, keys);
    field_precision(e, op);
    emit_op(fb, op, VM_OP_RAGGED_DOT);
    return;
  }
  case OP_REPLICA_ID: emit_op(fb, op, VM_OP_REPLICA_ID); return;
  case OP_PARTITION_ID: emit_op(fb, op, VM_OP_PARTITION_ID); return;
  case OP_ALL_REDUCE: lower_reduction(fb, op, VM_OP_ALL_REDUCE); return;
  case OP_REDUCE_SCATTER: lower_reduction(fb, op, VM_OP_REDUCE_SCATTER); return;
  case OP_COLLECTIVE_REDUCE: lower_reduction(fb, op, VM_OP_COLLECTIVE_REDUCE); return;
  case OP_CROSS_REPLICA_SUM:
    if (field_id_rows(fb, op, "replica_groups", true)) emit_op(fb, op, VM_OP_CROSS_REPLICA_SUM);
    return;
  case OP_ALL_GATHER:
    if (!field_collective(fb, op, true)) return;
    fint(e, attr_int_or(op, "all_gather_dim", 0));
    emit_op(fb, op, VM_OP_ALL_GATHER);
    return;
  case OP_ALL_TO_ALL:
    if (!field_collective(fb, op, false)) return;
    fint(e, attr_int_or(op, "split_dimension", 0));
    fint(e, attr_int_or(op, "concat_dimension", 0));
    fint(e, attr_int_or(op, "split_count", 1));
    emit_op(fb, op, VM_OP_ALL_TO_ALL);
    return;
  case OP_COLLECTIVE_BROADCAST: {
    const Attr *dyn = op_attr(op, "has_dynamic_root");
    if (dyn && (dyn->kind == ATTR_UNIT || (dyn->kind == ATTR_BOOL && dyn->u.b))) {
      unsupported(fb, op, "a collective with has_dynamic_root");
      return;
    }
    if (field_collective(fb, op, false)) emit_op(fb, op, VM_OP_COLLECTIVE_BROADCAST);
    return;
  }
  case OP_COLLECTIVE_PERMUTE:
    if (!field_id_rows(fb, op, "source_target_pairs", false)) return;
    fint(e, collective_mode(op, false));
    fint(e, channel_id(op));
    emit_op(fb, op, VM_OP_COLLECTIVE_PERMUTE);
    return;
  case OP_SEND: lower_send_recv(fb, op, VM_OP_SEND); return;
  case OP_RECV: lower_send_recv(fb, op, VM_OP_RECV); return;
  case OP_CONSTANT: lower_constant(fb, op, op_attr(op, "value")); return;
  case OP_GET_DIMENSION_SIZE: lower_dimension_size(fb, op); return;
  case OP_TPU_ASYNC_START: {
    /* The region's collective over the start's operands, its instruction
     * flagged async: the VM puts the transfer on the ICI and goes on. */
    Block *body = op_body(op);
    Op *inner = body->first;
    for (int i = 0; i < body->nargs; i++)
      *table_put(&fb->regs, &body->args[i], 0) = (void *)(uintptr_t)(reg_of(fb, op->operands[i]) + 1);
    uint32_t first = fb->ninstrs;
    lower_op(fb, inner);
    for (uint32_t i = first; i < fb->ninstrs; i++)
      if (vm_op_rows[fb->instrs[i].opcode].flags & VMF_COLLECTIVE) fb->instrs[i].flags |= TPUB_INSTR_ASYNC;
    for (int i = 0; i < op->nresults; i++)
      *table_put(&fb->regs, &op->results[i], 0) = (void *)(uintptr_t)(reg_of(fb, &inner->results[i]) + 1);
    return;
  }
  case OP_TPU_ASYNC_DONE: emit_op(fb, op, VM_OP_ASYNC_DONE); return;
  case OP_TPU_FUSION: {
    if (!fusion_is_loop_body(op)) {
      lower_fusion_inline(fb, op);
      return;
    }
    const Attr *k = op_attr(op, "kind");
    int64_t kind = 0;
    for (int i = 0; k && k->kind == ATTR_STRING && fusion_kinds[i]; i++)
      if (strcmp(fusion_kinds[i], k->u.str.s) == 0) kind = i;
    emit_fusion(fb, op, kind);
    return;
  }
  case OP_COMPARE:
    fint(e, attr_enum_index(op, "comparison_direction", cmp_dirs, 0));
    fint(e, attr_enum_index(op, "compare_type", cmp_types, 0));
    emit_op(fb, op, VM_OP_COMPARE);
    return;
  case OP_REDUCE_PRECISION:
    fint(e, attr_int_or(op, "exponent_bits", 8));
    fint(e, attr_int_or(op, "mantissa_bits", 23));
    emit_op(fb, op, VM_OP_REDUCE_PRECISION);
    return;
  case OP_BROADCAST_IN_DIM: field_attr_list(e, op, "broadcast_dimensions", 0, 0); break;
  case OP_BROADCAST: {
    const Type *t = op->operands[0]->type, *rt = op->results[0].type;
    int64_t dims[TPUB_MAX_RANK];
    int r = t->rank < TPUB_MAX_RANK ? t->rank : TPUB_MAX_RANK;
    for (int d = 0; d < r; d++) dims[d] = rt->rank - t->rank + d;
    field_list(e, r, dims);
    emit_op(fb, op, VM_OP_BROADCAST_IN_DIM);
    return;
  }
  case OP_TRANSPOSE: field_attr_list(e, op, "permutation", 0, 0); break;
  case OP_SLICE: {
    int rank = op->operands[0]->type->rank;
    field_attr_list(e, op, "start_indices", rank, 0);
    field_attr_list(e, op, "limit_indices", rank, 0);
    field_attr_list(e, op, "strides", rank, 1);
    emit_op(fb, op, VM_OP_SLICE);
    return;
  }
  case OP_DYNAMIC_SLICE: field_attr_list(e, op, "slice_sizes", 0, 0); break;
  case OP_CONCATENATE: fint(e, attr_int_or(op, "dimension", 0)); break;
  case OP_PAD: {
    int rank = op->operands[0]->type->rank;
    field_attr_list(e, op, "edge_padding_low", rank, 0);
    field_attr_list(e, op, "edge_padding_high", rank, 0);
    field_attr_list(e, op, "interior_padding", rank, 0);
    emit_op(fb, op, VM_OP_PAD);
    return;
  }
  case OP_IOTA: fint(e, attr_int_or(op, "iota_dimension", 0)); break;
  case OP_REVERSE: field_attr_list(e, op, "dimensions", 0, 0); break;
  case OP_GET_TUPLE_ELEMENT: fint(e, attr_int_or(op, "index", 0)); break;
  case OP_GATHER: {
    const Attr *d = op_attr(op, "dimension_numbers");
    static const char *const keys[] = {"offset_dims", "collapsed_slice_dims", "operand_batching_dims",
                                       "start_indices_batching_dims", "start_index_map", NULL};
    field_dialect_lists(e, d, keys);
    fint(e, dialect_int(d, "index_vector_dim", 0));
    field_attr_list(e, op, "slice_sizes", 0, 0);
    fint(e, attr_int_or(op, "indices_are_sorted", 0));
    break;
  }
  case OP_SCATTER: {
    const Attr *d = op_attr(op, "scatter_dimension_numbers");
    static const char *const keys[] = {"update_window_dims", "inserted_window_dims", "input_batching_dims",
                                       "scatter_indices_batching_dims", "scatter_dims_to_operand_dims", NULL};
    field_dialect_lists(e, d, keys);
    fint(e, dialect_int(d, "index_vector_dim", 0));
    fint(e, attr_int_or(op, "indices_are_sorted", 0));
    fint(e, attr_int_or(op, "unique_indices", 0));
    field_region(fb, op, &op->regions[0]);
    break;
  }
  case OP_REDUCE:
    field_attr_list(e, op, "dimensions", 0, 0);
    field_region(fb, op, &op->regions[0]);
    break;
  case OP_REDUCE_WINDOW: {
    int rank = op->operands[0]->type->rank;
    field_attr_list(e, op, "window_dimensions", rank, 1);
    field_attr_list(e, op, "window_strides", rank, 1);
    field_attr_list(e, op, "base_dilations", rank, 1);
    field_attr_list(e, op, "window_dilations", rank, 1);
    field_attr_list(e, op, "padding", 2 * rank, 0);
    field_region(fb, op, &op->regions[0]);
    break;
  }
  case OP_SELECT_AND_SCATTER: {
    int rank = op->operands[0]->type->rank;
    field_attr_list(e, op, "window_dimensions", rank, 1);
    field_attr_list(e, op, "window_strides", rank, 1);
    field_attr_list(e, op, "padding", 2 * rank, 0);
    field_region(fb, op, &op->regions[0]);
    field_region(fb, op, &op->regions[1]);
    break;
  }
  case OP_SORT:
    fint(e, attr_int_or(op, "dimension", -1));
    fint(e, attr_int_or(op, "is_stable", 0));
    field_region(fb, op, &op->regions[0]);
    break;
  case OP_MAP:
    field_attr_list(e, op, "dimensions", 0, 0);
    field_region(fb, op, &op->regions[0]);
    break;
  case OP_CHLO_TOP_K: fint(e, attr_int_or(op, "k", 1)); emit_op(fb, op, VM_OP_TOP_K); return;
  case OP_DOT_GENERAL: {
    const Attr *d = op_attr(op, "dot_dimension_numbers");
    static const char *const keys[] = {"lhs_batching_dimensions", "rhs_batching_dimensions",
                                       "lhs_contracting_dimensions", "rhs_contracting_dimensions", NULL};
    field_dialect_lists(e, d, keys);
    field_precision(e, op);
    /* After a diagnostic, a dot_general still defines the result. */
    if (op_attr(op, "tpu.mxu_tile") && field_mxu_tiling(fb, op)) {
      emit_op(fb, op, VM_OP_MXU_DOT);
      return;
    }
    break;
  }
  case OP_DOT: {
    int64_t lc = op->operands[0]->type->rank - 1, rc = 0;
    field_list(e, 0, NULL);
    field_list(e, 0, NULL);
    field_list(e, 1, &lc);
    field_list(e, 1, &rc);
    field_precision(e, op);
    emit_op(fb, op, VM_OP_DOT_GENERAL);
    return;
  }
  case OP_CONVOLUTION:
  case OP_DYNAMIC_CONV: {
    const Attr *dn = op_attr(op, "dimension_numbers");
    if (!dn || dn->kind != ATTR_CONV_DIMS) {
      unsupported(fb, op, "a convolution without #stablehlo.conv dimension numbers");
      return;
    }
    const ConvDims *cd = &dn->u.conv;
    int ns = cd->nspatial;
    field_attr_list(e, op, "window_strides", ns, 1);
    if (op->kind == OP_DYNAMIC_CONV) {
      int np;
      const int64_t *pad;
      if (!constant_ints(e, op->operands[2], &np, &pad)) {
        unsupported(fb, op, "dynamic_conv with padding computed at run time");
        return;
      }
      field_list(e, np, pad);
    } else {
      field_attr_list(e, op, "padding", 2 * ns, 0);
    }
    field_attr_list(e, op, "lhs_dilation", ns, 1);
    field_attr_list(e, op, "rhs_dilation", ns, 1);
    field_attr_list(e, op, "window_reversal", ns, 0);
    fint(e, cd->input_batch);
    fint(e, cd->input_feature);
    field_list(e, ns, cd->input_spatial);
    fint(e, cd->kernel_input_feature);
    fint(e, cd->kernel_output_feature);
    field_list(e, ns, cd->kernel_spatial);
    fint(e, cd->output_batch);
    fint(e, cd->output_feature);
    field_list(e, ns, cd->output_spatial);
    fint(e, attr_int_or(op, "feature_group_count", 1));
    fint(e, attr_int_or(op, "batch_group_count", 1));
    field_precision(e, op);
    emit_op_range(fb, op, VM_OP_CONVOLUTION, 0, 2);
    return;
  }
  case OP_FFT: {
    static const char *const fft_types[] = {"FFT", "IFFT", "RFFT", "IRFFT", NULL};
    fint(e, attr_enum_index(op, "fft_type", fft_types, 0));
    field_attr_list(e, op, "fft_length", 0, 0);
    break;
  }
  case OP_TRIANGULAR_SOLVE: {
    static const char *const transposes[] = {"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT", NULL};
    fint(e, attr_int_or(op, "left_side", 0));
    fint(e, attr_int_or(op, "lower", 0));
    fint(e, attr_int_or(op, "unit_diagonal", 0));
    fint(e, attr_enum_index(op, "transpose_a", transposes, 0));
    break;
  }
  case OP_CHOLESKY: fint(e, attr_int_or(op, "lower", 0)); break;
  case OP_RNG_BIT_GENERATOR: {
    static const char *const algs[] = {"DEFAULT", "THREE_FRY", "PHILOX", NULL};
    fint(e, attr_enum_index(op, "rng_algorithm", algs, 0));
    break;
  }
  case OP_WHILE:
    field_region(fb, op, &op->regions[0]);
    field_region(fb, op, &op->regions[1]);
    break;
  case OP_IF:
    field_region(fb, op, &op->regions[0]);
    field_region(fb, op, &op->regions[1]);
    break;
  case OP_CASE:
    fint(e, op->nregions);
    for (int i = 0; i < op->nregions; i++) field_region(fb, op, &op->regions[i]);
    break;
  case OP_CUSTOM_CALL: lower_custom_call(fb, op); return;
  case OP_CHECK_EXPECT_EQ: lower_check(fb, op, 0, 0, 0, 0, NULL); return;
  case OP_CHECK_EXPECT_ALMOST_EQ:
    lower_check(fb, op, 1, attr_f64_or(op, "tolerance", 1e-4), 0, 0, NULL);
    return;
  case OP_CHECK_EXPECT_CLOSE:
    lower_check(fb, op, 2, 0, attr_int_or(op, "min_ulp_difference", 0),
                attr_int_or(op, "max_ulp_difference", 0), NULL);
    return;
  case OP_CHECK_EXPECT_EQ_CONST: lower_check(fb, op, 0, 0, 0, 0, op_attr(op, "value")); return;
  case OP_CHECK_EXPECT_ALMOST_EQ_CONST:
    lower_check(fb, op, 1, attr_f64_or(op, "tolerance", 1e-4), 0, 0, op_attr(op, "value"));
    return;
  default: {
    char what[160];
    snprintf(what, sizeof what, "'%s'", op->name);
    unsupported(fb, op, what);
    return;
  }
  }
  /* The cases that break emit the op's own opcode with the fields written. */
  static const struct {
    OpKind ir;
    int vm;
  } with_fields[] = {
      {OP_BROADCAST_IN_DIM, VM_OP_BROADCAST_IN_DIM}, {OP_TRANSPOSE, VM_OP_TRANSPOSE},
      {OP_DYNAMIC_SLICE, VM_OP_DYNAMIC_SLICE},       {OP_CONCATENATE, VM_OP_CONCATENATE},
      {OP_IOTA, VM_OP_IOTA},                         {OP_REVERSE, VM_OP_REVERSE},
      {OP_GET_TUPLE_ELEMENT, VM_OP_GET_TUPLE_ELEMENT}, {OP_GATHER, VM_OP_GATHER},
      {OP_SCATTER, VM_OP_SCATTER},                   {OP_REDUCE, VM_OP_REDUCE},
      {OP_REDUCE_WINDOW, VM_OP_REDUCE_WINDOW},       {OP_SELECT_AND_SCATTER, VM_OP_SELECT_AND_SCATTER},
      {OP_SORT, VM_OP_SORT},                         {OP_MAP, VM_OP_MAP},
      {OP_DOT_GENERAL, VM_OP_DOT_GENERAL},           {OP_CONVOLUTION, VM_OP_CONVOLUTION},
      {OP_FFT, VM_OP_FFT},                           {OP_TRIANGULAR_SOLVE, VM_OP_TRIANGULAR_SOLVE},
      {OP_CHOLESKY, VM_OP_CHOLESKY},                 {OP_RNG_BIT_GENERATOR, VM_OP_RNG_BIT_GENERATOR},
      {OP_WHILE, VM_OP_WHILE},                       {OP_IF, VM_OP_IF},
      {OP_CASE, VM_OP_CASE},
  };
  for (size_t i = 0; i < sizeof with_fields / sizeof with_fields[0]; i++)
    if (with_fields[i].ir == op->kind) {
      emit_op(fb, op, with_fields[i].vm);
      return;
    }
  die("back end case without an opcode");
}

static void lower_block(FuncBuilder *fb, Block *b) {
  for (Op *op = b->first; op; op = op->next) {
    if (fb->e->failed && fb->e->c->diag.nerrors > 0 && fb->e->c->diag.suppressed) return;
    if (!fb->outer) emit_cost_begin(fb->e, op); /* a top-level op: COSTS */
    lower_op(fb, op);
    if (!fb->outer) emit_cost_end(fb->e);
  }
}

/* mhlo.num_replicas / mhlo.num_partitions of the module: 1 when absent;
 * a value outside 1..TPUB_MAX_CHIPS is reported (and taken as 1). */
static uint32_t module_chips(Context *c, const Op *module, const char *name) {
  const Attr *a = op_attr(module, name);
  int64_t v;
  if (!a) return 1;
  if (!attr_as_int(a, &v) || v < 1 || v > TPUB_MAX_CHIPS) {
    op_error(c, module, "%s must be an integer from 1 to %d", name, TPUB_MAX_CHIPS);
    return 1;
  }
  return (uint32_t)v;
}

bool backend_compile(Context *c, const Module *m, const BackendOptions *o, uint8_t **out,
                     size_t *outlen) {
  Emitter e = {.c = c, .m = m, .opts = o};
  Block *body = op_body(m->op);
  int errors = c->diag.nerrors;
  e.module = (TpubModule){module_chips(c, m->op, "mhlo.num_replicas"), module_chips(c, m->op, "mhlo.num_partitions"), {0, 0}};
  if (c->diag.nerrors > errors) e.failed = true;
  if ((uint64_t)e.module.num_replicas * e.module.num_partitions > TPUB_MAX_CHIPS) {
    op_error(c, m->op, "mhlo.num_replicas x mhlo.num_partitions is %llu chips; tpurun simulates at most %d",
             (unsigned long long)e.module.num_replicas * e.module.num_partitions, TPUB_MAX_CHIPS);
    e.failed = true;
  }
  /* Module functions get the first indices, in order, so calls can name
   * functions defined later. */
  for (Op *f = body ? body->first : NULL; f; f = f->next) {
    if (f->kind != OP_FUNC) continue;
    const char *name = op_symbol_name(f);
    uint32_t index = emit_func_reserve(&e);
    *table_put(&e.func_index, name, strlen(name)) = (void *)(uintptr_t)(index + 1);
  }
  uint32_t index = 0;
  for (Op *f = body ? body->first : NULL; f; f = f->next) {
    if (f->kind != OP_FUNC) continue;
    Block *fbody = op_body(f);
    const Type *ft = NULL;
    const Attr *fta = op_attr(f, "function_type");
    if (fta && fta->kind == ATTR_TYPE) ft = fta->type;
    if (!fbody || !ft) {
      op_error(c, f, "a function without a body is not supported by the tpurun back end");
      e.failed = true;
      index++;
      continue;
    }
    FuncBuilder fb = {.e = &e};
    for (int i = 0; i < fbody->nargs; i++) bind_value(&fb, &fbody->args[i], f);
    lower_block(&fb, fbody);
    const Attr *vis = op_attr(f, "sym_visibility");
    bool private_ = vis && vis->kind == ATTR_STRING && strcmp(vis->u.str.s, "private") == 0;
    finish_func(&fb, index, op_symbol_name(f), private_ ? 0 : TPUB_FUNC_PUBLIC, (uint32_t)fbody->nargs,
                ft->nresults, ft->results, f->loc);
    index++;
  }
  if (e.failed) {
    emit_free(&e);
    return false;
  }
  emit_finish(&e, out, outlen);
  emit_free(&e);
  return true;
}
