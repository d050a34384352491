/* The context, op/block/region construction, use lists, and diagnostics. */
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"

const OpInfo op_info[OP_COUNT] = {
#define OP(id, name, mino, maxo, nres, nreg, traits, elems, verify, infer, cost, fold, canon, decompose, lower, opcode, fmt, \
           summary) \
  {name, sizeof(name) - 1, fmt, mino, maxo, nres, nreg, traits, elems},
#include "ir/ops.def"
#undef OP
};

OpKind op_kind_from_name(const char *name, size_t len) {
  /* ~150 names: a linear scan that rejects on length and last character
   * first costs less than parsing the op itself. */
  for (int k = 1; k < OP_COUNT; k++) {
    const char *n = op_info[k].name;
    if (op_info[k].name_len == len && n[len - 1] == name[len - 1] && memcmp(n, name, len) == 0) return (OpKind)k;
  }
  return OP_UNKNOWN;
}

Context *ctx_new(void) {
  Context *c = xcalloc(1, sizeof(Context));
  c->diag.out = stderr;
  c->diag.max_errors = 20;
  c->diag.show_source = true;
  return c;
}

void ctx_free(Context *c) {
  if (!c) return;
  arena_free_all(&c->arena);
  free(c->types.buckets);
  free(c);
}

/* Links operand i's use slot at the head of its value's use list. */
static void add_use(Op *op, int i) {
  Value *v = op->operands[i];
  if (!v) return;
  Use *u = &op->operand_uses[i];
  u->user = op;
  u->operand_index = i;
  u->next = v->uses;
  if (v->uses) v->uses->pprev = &u->next;
  u->pprev = &v->uses;
  v->uses = u;
}

void op_remove_use(Op *op, int i) {
  if (!op->operands[i]) return;
  Use *u = &op->operand_uses[i];
  *u->pprev = u->next;
  if (u->next) u->next->pprev = u->pprev;
  u->next = NULL;
  u->pprev = NULL;
}

Op *op_create(Context *c, OpKind kind, const char *name, Loc loc, int noperands, Value **operands,
              int nresults, Type **result_types, int nattrs, NamedAttr *attrs, int nregions) {
  Op *op = arena_alloc(&c->arena, sizeof(Op));
  op->kind = kind;
  op->name = name ? name : op_info[kind].name;
  op->loc = loc;
  op->noperands = noperands;
  if (noperands) {
    op->operands = arena_dup(&c->arena, operands, sizeof(Value *) * (size_t)noperands);
    op->operand_uses = arena_alloc(&c->arena, sizeof(Use) * (size_t)noperands);
    for (int i = 0; i < noperands; i++) add_use(op, i);
  }
  op->nresults = nresults;
  if (nresults) {
    op->results = arena_alloc(&c->arena, sizeof(Value) * (size_t)nresults);
    for (int i = 0; i < nresults; i++) {
      op->results[i].type = result_types[i];
      op->results[i].def = op;
      op->results[i].index = i;
    }
  }
  if (nattrs) {
    Attr *d = attr_dict(c, nattrs, attrs);
    op->nattrs = d->u.dict.n;
    op->attrs = d->u.dict.items;
  }
  op->nregions = nregions;
  if (nregions) {
    op->regions = arena_alloc(&c->arena, sizeof(Region) * (size_t)nregions);
    for (int i = 0; i < nregions; i++) op->regions[i].parent = op;
  }
  return op;
}

void op_append(Block *b, Op *op) {
  op->parent = b;
  op->prev = b->last;
  op->next = NULL;
  if (b->last) b->last->next = op;
  else b->first = op;
  b->last = op;
}

void op_set_operand(Context *c, Op *op, int i, Value *v) {
  (void)c;
  op_remove_use(op, i);
  op->operands[i] = v;
  add_use(op, i);
}

Block *block_create(Context *c, Region *parent, int nargs, Type **arg_types) {
  Block *b = arena_alloc(&c->arena, sizeof(Block));
  b->parent = parent;
  b->nargs = nargs;
  if (nargs) {
    b->args = arena_alloc(&c->arena, sizeof(Value) * (size_t)nargs);
    for (int i = 0; i < nargs; i++) {
      b->args[i].type = arg_types[i];
      b->args[i].block = b;
      b->args[i].index = i;
    }
  }
  return b;
}

void region_add_block(Context *c, Region *r, Block *b) {
  Block **blocks = arena_alloc(&c->arena, sizeof(Block *) * (size_t)(r->nblocks + 1));
  if (r->nblocks) memcpy(blocks, r->blocks, sizeof(Block *) * (size_t)r->nblocks);
  blocks[r->nblocks++] = b;
  r->blocks = blocks;
  b->parent = r;
}

const Attr *op_attr(const Op *op, const char *name) {
  /* Attributes are sorted: binary search. */
  int lo = 0, hi = op->nattrs - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    int c = strcmp(op->attrs[mid].name, name);
    if (c == 0) return op->attrs[mid].value;
    if (c < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return NULL;
}

bool loop_fusion_writes_in_place(const Op *fusion) {
  const Attr *k = op_attr(fusion, "kind");
  if (fusion->kind != OP_TPU_FUSION || fusion->nresults == 0 || fusion->nregions != 1 ||
      fusion->regions[0].nblocks != 1 || !k || k->kind != ATTR_STRING || k->u.str.len != 4 ||
      memcmp(k->u.str.s, "loop", 4) != 0)
    return false;
  const Block *body = fusion->regions[0].blocks[0];
  for (const Op *o = body->first; o; o = o->next)
    if (o->kind == OP_BROADCAST_IN_DIM && o->noperands == 1 && !o->operands[0]->def &&
        o->operands[0]->block == body && o->operands[0]->type == fusion->results[0].type)
      return false;
  return true;
}

bool static_dimension_size(const Op *op, int32_t *size) {
  const Type *t = op->noperands == 1 ? op->operands[0]->type : NULL;
  int64_t dim;
  if (op->kind != OP_GET_DIMENSION_SIZE || !t || !type_is_tensor(t) || !attr_as_int(op_attr(op, "dimension"), &dim) ||
      dim < 0 || dim >= t->rank || t->dims[dim] == DIM_DYNAMIC || t->dims[dim] > INT32_MAX)
    return false;
  *size = (int32_t)t->dims[dim];
  return true;
}

void op_set_attr(Context *c, Op *op, const char *name, Attr *value) {
  /* Copy on write: clones share their attribute array (ir/rewrite.c). */
  for (int i = 0; i < op->nattrs; i++)
    if (strcmp(op->attrs[i].name, name) == 0) {
      NamedAttr *copy = arena_dup(&c->arena, op->attrs, sizeof(NamedAttr) * (size_t)op->nattrs);
      copy[i].value = value;
      op->attrs = copy;
      return;
    }
  NamedAttr *na = arena_alloc(&c->arena, sizeof(NamedAttr) * (size_t)(op->nattrs + 1));
  if (op->nattrs) memcpy(na, op->attrs, sizeof(NamedAttr) * (size_t)op->nattrs);
  na[op->nattrs] = (NamedAttr){arena_strdup(&c->arena, name), value};
  Attr *d = attr_dict(c, op->nattrs + 1, na);
  op->attrs = d->u.dict.items;
  op->nattrs = d->u.dict.n;
}

const Annotation *custom_call_annotation(const Op *op) {
  static const Annotation table[] = {
#define ANNOTATION(target, spmd_only, meaning) {target, spmd_only, meaning},
#include "ir/annotations.def"
#undef ANNOTATION
  };
  if (op->kind != OP_CUSTOM_CALL) return NULL;
  const Attr *t = op_attr(op, "call_target_name");
  if (!t || t->kind != ATTR_STRING) return NULL;
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (strcmp(t->u.str.s, table[i].target) == 0) return &table[i];
  return NULL;
}

Block *op_body(const Op *op) {
  if (op->nregions < 1 || op->regions[0].nblocks < 1) return NULL;
  return op->regions[0].blocks[0];
}

const char *op_symbol_name(const Op *op) {
  const Attr *a = op_attr(op, "sym_name");
  return a && a->kind == ATTR_STRING ? a->u.str.s : NULL;
}

Op *module_lookup_func(const Module *m, const char *name) {
  Block *b = op_body(m->op);
  if (!b) return NULL;
  for (Op *op = b->first; op; op = op->next) {
    const char *n = op_symbol_name(op);
    if (op->kind == OP_FUNC && n && strcmp(n, name) == 0) return op;
  }
  return NULL;
}

/* ---- diagnostics ---- */

static const char *sev_name(Severity s) {
  switch (s) {
  case SEV_ERROR: return "error";
  case SEV_WARNING: return "warning";
  case SEV_NOTE: return "note";
  case SEV_REMARK: return "remark";
  }
  return "error";
}

/* Print the source line of loc and a caret under its column.  A line longer
 * than SOURCE_WINDOW is cut to a window around the column, with "..." on
 * each cut side; the caret still points at the column in that window. */
enum { SOURCE_WINDOW = 200 };
static void show_source_line(FILE *out, Loc loc) {
  const SourceFile *f = loc.file;
  const char *p = f->text, *end = f->text + f->len;
  for (uint32_t line = 1; line < loc.line && p < end; p++)
    if (*p == '\n') line++;
  if (loc.line == 1 && end - p >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0) p += 3; /* byte-order mark */
  const char *eol = p;
  while (eol < end && *eol != '\n') eol++;
  const char *col = p + (loc.col ? loc.col - 1 : 0);
  if (col > eol) col = eol;
  const char *from = p, *to = eol;
  if (eol - p > SOURCE_WINDOW) {
    from = col - p > SOURCE_WINDOW / 2 ? col - SOURCE_WINDOW / 2 : p;
    to = eol - from > SOURCE_WINDOW ? from + SOURCE_WINDOW : eol;
    if (to == eol && eol - SOURCE_WINDOW > p) from = eol - SOURCE_WINDOW;
  }
  const char *pre = from > p ? "..." : "", *post = to < eol ? "..." : "";
  fprintf(out, "%s%.*s%s\n", pre, (int)(to - from), from, post);
  fputs(pre[0] ? "   " : "", out);
  for (const char *q = from; q < col; q++) fputc(*q == '\t' ? '\t' : ' ', out);
  fputs("^\n", out);
}

void diag_vreport(Context *c, Loc loc, Severity sev, const char *fmt, va_list ap) {
  DiagEngine *d = &c->diag;
  if (d->quiet) {
    if (sev == SEV_ERROR) d->nerrors++;
    return;
  }
  if (sev == SEV_ERROR) {
    d->nerrors++;
    if (d->nerrors > d->max_errors) {
      if (!d->suppressed) fprintf(d->out, "tpucc: too many errors (%d), stopping\n", d->max_errors);
      d->suppressed = true;
      return;
    }
  } else if (sev == SEV_WARNING) {
    d->nwarnings++;
  }
  if (d->suppressed) return;
  if (loc.file) fprintf(d->out, "%s:%u:%u: ", loc.file->name, loc.line, loc.col);
  else fprintf(d->out, "<unknown>: ");
  fprintf(d->out, "%s: ", sev_name(sev));
  vfprintf(d->out, fmt, ap);
  fputc('\n', d->out);
  if (loc.file && loc.file->text && d->show_source) show_source_line(d->out, loc);
}

void diag_report(Context *c, Loc loc, Severity sev, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  diag_vreport(c, loc, sev, fmt, ap);
  va_end(ap);
}

static void op_diag(Context *c, const Op *op, Severity sev, const char *fmt, va_list ap) {
  char msg[1024];
  vsnprintf(msg, sizeof msg, fmt, ap);
  diag_report(c, op->loc, sev, "'%s' op %s", op->name, msg);
}

void op_error(Context *c, const Op *op, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  op_diag(c, op, SEV_ERROR, fmt, ap);
  va_end(ap);
}

void op_note(Context *c, const Op *op, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  op_diag(c, op, SEV_NOTE, fmt, ap);
  va_end(ap);
}
