/* Lowering of verified IR to bytecode: one bytecode function per func.func
 * and per region (a region's free values become extra parameters), one
 * instruction per op, registers for SSA values, and kill lists from
 * liveness so the VM frees every buffer right after its last use and runs
 * element-wise ops in place when the operand dies there.
 *
 * This file holds the builder (registers, fields, instructions, regions,
 * functions) and the dispatch: each op goes to the lowering function and
 * opcode of its row in ir/ops.def.  The lowering functions live by family
 * in lower_data.c, lower_compute.c, lower_control.c, lower_collective.c
 * and lower_fusion.c. */
#include <stdlib.h>
#include <string.h>

#include "backend/lower.h"

uint32_t new_reg(FuncBuilder *fb, const Type *t, const Op *where) {
  if (fb->nregs == fb->regcap) {
    fb->regcap = fb->regcap ? fb->regcap * 2 : 64;
    fb->reg_types = xrealloc(fb->reg_types, fb->regcap * sizeof(int64_t));
  }
  uint32_t ty = emit_type(fb->e, t, where);
  fb->reg_types[fb->nregs] = ty == UINT32_MAX ? 0 : ty;
  return fb->nregs++;
}

uint32_t bind_value(FuncBuilder *fb, Value *v, const Op *where) {
  uint32_t r = new_reg(fb, v->type, where);
  *table_put(&fb->regs, v, 0) = (void *)(uintptr_t)(r + 1);
  return r;
}

uint32_t reg_of(FuncBuilder *fb, Value *v) {
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

void fint(Emitter *e, int64_t v) { bytes_append(e->fields, &v, sizeof v); }

void field_list(Emitter *e, int n, const int64_t *v) {
  fint(e, n);
  bytes_append(e->fields, v, sizeof(int64_t) * (size_t)n);
}

void field_f64(Emitter *e, double d) {
  int64_t bits;
  memcpy(&bits, &d, sizeof bits);
  fint(e, bits);
}

/* A list attribute of any encoding (array<i64>, dense<..>, [..]; also
 * rank-2 dense padding, flattened); def when absent. */
bool attr_ints(Emitter *e, const Op *op, const char *name, int *n, const int64_t **v) {
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
void field_attr_list(Emitter *e, const Op *op, const char *name, int n_def, int64_t def) {
  int n;
  const int64_t *v;
  if (attr_ints(e, op, name, &n, &v)) {
    field_list(e, n, v);
    return;
  }
  fint(e, n_def);
  for (int i = 0; i < n_def; i++) fint(e, def);
}

/* A list parameter of a #stablehlo.gather<...>-style dialect attribute. */
static void field_dialect_list(Emitter *e, const Attr *d, const char *key) {
  const Attr *p = dialect_param(d, key);
  int n = 0;
  const int64_t *v = NULL;
  if (p && !attr_as_i64_list(p, &n, &v, &e->c->arena)) n = 0;
  field_list(e, n, v);
}

void field_dialect_lists(Emitter *e, const Attr *d, const char *const *keys) {
  for (; *keys; keys++) field_dialect_list(e, d, *keys);
}

int64_t dialect_int(const Attr *d, const char *key, int64_t def) {
  const Attr *p = dialect_param(d, key);
  int64_t v;
  return attr_as_int(p, &v) ? v : def;
}

int64_t attr_int_or(const Op *op, const char *name, int64_t def) {
  const Attr *a = op_attr(op, name);
  int64_t v;
  if (a && a->kind == ATTR_BOOL) return a->u.b;
  return attr_as_int(a, &v) ? v : def;
}

/* Index of an enum attribute's value in names, or def. */
int64_t attr_enum_index(const Op *op, const char *name, const char *const *names, int64_t def) {
  const char *v = attr_enum_value(op_attr(op, name));
  if (!v) return def;
  for (int i = 0; names[i]; i++)
    if (strcmp(names[i], v) == 0) return i;
  return def;
}

void field_precision(Emitter *e, const Op *op) {
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
Instr *emit_regs(FuncBuilder *fb, const Op *op, int opcode, uint32_t nin,
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
Instr *emit_op_range(FuncBuilder *fb, const Op *op, int opcode, int first, int n) {
  uint32_t *in = xrealloc(NULL, (size_t)(n + 1) * sizeof(uint32_t));
  uint32_t *out = xrealloc(NULL, (size_t)(op->nresults + 1) * sizeof(uint32_t));
  for (int i = 0; i < n; i++) in[i] = reg_of(fb, op->operands[first + i]);
  for (int i = 0; i < op->nresults; i++) out[i] = bind_value(fb, &op->results[i], op);
  Instr *ins = emit_regs(fb, op, opcode, (uint32_t)n, in, (uint32_t)op->nresults, out);
  free(in);
  free(out);
  return ins;
}

Instr *emit_op(FuncBuilder *fb, const Op *op, int opcode) {
  return emit_op_range(fb, op, opcode, 0, op->noperands);
}
/* ------------------------------------------------------------------ */
/* Functions and regions. */

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
void field_region(FuncBuilder *fb, const Op *op, Region *r) {
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

/* Liveness of fb's registers: last[r] the instruction of r's last use (-1:
 * none), and kill lists: each register dies at its last use, or where it
 * is defined when never used, bucketed by instruction (counting sort):
 * kills[kill_start[i] .. kill_start[i + 1]) die at instruction i. */
static void kill_lists(const FuncBuilder *fb, int64_t *last, uint32_t *kill_start, uint32_t *kills) {
  int64_t *def = xrealloc(NULL, (fb->nregs + 1) * sizeof(int64_t));
  for (uint32_t r = 0; r < fb->nregs; r++) last[r] = -1, def[r] = 0;
  for (uint32_t i = 0; i < fb->ninstrs; i++) {
    const Instr *in = &fb->instrs[i];
    for (uint32_t k = 0; k < in->nuse; k++) last[in->use[k]] = i;
    for (uint32_t k = 0; k < in->nout; k++) def[in->out[k]] = i;
  }
  memset(kill_start, 0, (fb->ninstrs + 2) * sizeof(uint32_t));
  for (uint32_t r = 0; r < fb->nregs && fb->ninstrs; r++) kill_start[(last[r] >= 0 ? last[r] : def[r]) + 1]++;
  for (uint32_t i = 0; i < fb->ninstrs; i++) kill_start[i + 1] += kill_start[i];
  uint32_t *fill = xrealloc(NULL, (fb->ninstrs + 1) * sizeof(uint32_t));
  memcpy(fill, kill_start, (fb->ninstrs + 1) * sizeof(uint32_t));
  for (uint32_t r = 0; r < fb->nregs && fb->ninstrs; r++) kills[fill[last[r] >= 0 ? last[r] : def[r]]++] = r;
  free(fill);
  free(def);
}

/* The INPLACE flag of instruction i: an update op over its dying operand
 * 0, or an element-wise op (or loop FUSION) over a dying operand of the
 * result's type, whose index the flag carries. */
static uint32_t inplace_flags(const FuncBuilder *fb, uint32_t i, const int64_t *last) {
  const Emitter *e = fb->e;
  const Instr *in = &fb->instrs[i];
  unsigned opflags = vm_op_rows[in->opcode].flags;
  if ((opflags & VMF_UPDATE) && in->nin > 0 && in->nout > 0 && last[in->in[0]] == (int64_t)i &&
      fb->reg_types[in->in[0]] == fb->reg_types[in->out[0]]) {
    for (uint32_t k = 1; k < in->nuse; k++)
      if (in->use[k] == in->in[0]) return 0; /* an operand passed twice must not be overwritten */
    return TPUB_INSTR_INPLACE;
  }
  if (!((opflags & VMF_ELEMENTWISE) && in->nout == 1) && !in->tilewise) return 0;
  const TpubType *ot = (const TpubType *)e->types.p + fb->reg_types[in->out[0]];
  for (uint32_t k = 0; k < in->nin && k < 128; k++) {
    const TpubType *it = (const TpubType *)e->types.p + fb->reg_types[in->in[k]];
    if (last[in->in[k]] == (int64_t)i && it->elem == ot->elem && it->rank == ot->rank &&
        (it->rank == 0 || memcmp(e->ints.p + it->dims * 8, e->ints.p + ot->dims * 8, it->rank * 8u) == 0))
      return TPUB_INSTR_INPLACE | k;
  }
  return 0;
}

/* Writes the instructions of fb with kill lists and in-place flags, and
 * the function record. */
void finish_func(FuncBuilder *fb, uint32_t index, const char *name, uint32_t flags,
                        uint32_t nparams, int nresults, Type *const *result_types, Loc loc) {
  Emitter *e = fb->e;
  int64_t *last = xrealloc(NULL, (fb->nregs + 1) * sizeof(int64_t));
  uint32_t *kill_start = xrealloc(NULL, (fb->ninstrs + 2) * sizeof(uint32_t));
  uint32_t *kills = xrealloc(NULL, (fb->nregs + 1) * sizeof(uint32_t));
  kill_lists(fb, last, kill_start, kills);
  uint32_t code_start = (uint32_t)(e->code.n / sizeof(uint32_t));
  for (uint32_t i = 0; i < fb->ninstrs; i++) {
    Instr *in = &fb->instrs[i];
    uint32_t flagsw = inplace_flags(fb, i, last) | in->flags;
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

bool report_unsupported(FuncBuilder *fb, const Op *op, const char *what) {
  op_error(fb->e->c, op, "%s is not supported by the tpurun back end", what);
  fb->e->failed = true;
  return false;
}

/* The integer values of v when a stablehlo.constant defines it (for the
 * dynamic ops whose shape operands are compile-time constants). */
bool constant_ints(Emitter *e, const Value *v, int *n, const int64_t **out) {
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

/* opcode with one int field, op's attribute `name` (def when absent). */
void emit_with_int(FuncBuilder *fb, Op *op, int opcode, const char *name, int64_t def) {
  fint(fb->e, attr_int_or(op, name, def));
  emit_op(fb, op, opcode);
}

/* opcode with one list field, op's attribute `name` (empty when absent). */
void emit_with_list(FuncBuilder *fb, Op *op, int opcode, const char *name) {
  field_attr_list(fb->e, op, name, 0, 0);
  emit_op(fb, op, opcode);
}

/* An op whose operands and results map one to one onto the opcode's, with
 * no fields. */
void lower_plain(FuncBuilder *fb, Op *op, int opcode) { emit_op(fb, op, opcode); }

/* An op the back end has no lowering for: a located error. */
void lower_unsupported(FuncBuilder *fb, Op *op, int opcode) {
  (void)opcode;
  char what[160];
  snprintf(what, sizeof what, "'%s'", op->name);
  report_unsupported(fb, op, what);
}

/* The lowering function and opcode of each op: the LOWER and OPCODE
 * columns of ir/ops.def. */
static const struct {
  LowerFn *lower;
  int opcode;
} lowerings[OP_COUNT] = {
#define OP(id, name, mino, maxo, nres, nreg, traits, elems, verify, infer, cost, fold, canon, decompose, lower, opcode, ...) \
  [OP_##id] = {lower_##lower, VM_OP_##opcode},
#include "ir/ops.def"
#undef OP
};

void lower_op(FuncBuilder *fb, Op *op) {
  Emitter *e = fb->e;
  Bytes fields = {0}, *saved = e->fields;
  e->fields = &fields;
  lowerings[op->kind].lower(fb, op, lowerings[op->kind].opcode);
  e->fields = saved;
  bytes_free(&fields);
}

void lower_block(FuncBuilder *fb, Block *b) {
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
  e.module = (TpubModule){module_chips(c, m->op, "mhlo.num_replicas"), module_chips(c, m->op, "mhlo.num_partitions"), 0, 0, 0};
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
  if (!e.failed) emit_shards(&e, m);
  if (!e.failed) emit_dyndims(&e, m);
  if (e.failed) {
    emit_free(&e);
    return false;
  }
  emit_finish(&e, out, outlen);
  emit_free(&e);
  return true;
}
