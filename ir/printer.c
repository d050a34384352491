/* Printing of modules and ops: MLIR's generic form, and the pretty form
 * driven by each op's format string (ir/syntax.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "ir/print.h"
#include "ir/syntax.h"
#include "ir/table.h"

typedef struct Printer {
  Context *c;
  FILE *out;
  bool generic;
  int indent;
  Table names; /* Value* -> encoded name (see set_name) */
  int next_id, next_arg;
  bool after_open; /* last thing written was ( [ or { : no space before next */
  Table type_text; /* Type* -> its printed spelling (types are interned and repeat a lot) */
} Printer;

static void print_op(Printer *p, const Op *op);
static void print_region(Printer *p, const Region *r, bool print_entry_args);

/* A value prints as %<id> (op result group) or %arg<id> (block argument). */
static void set_name(Printer *p, const Value *v, int id, bool arg) {
  *table_put(&p->names, v, 0) = (void *)((uintptr_t)id * 2 + (arg ? 1 : 0) + 1);
}

static bool get_name(const Printer *p, const Value *v, int *id, bool *arg) {
  void **slot = table_get(&p->names, v, 0);
  if (!slot) return false;
  uintptr_t x = (uintptr_t)*slot - 1;
  *id = (int)(x / 2);
  *arg = x & 1;
  return true;
}

/* print_type through the cache. */
static void put_type(Printer *p, const Type *t) {
  void **slot = table_put(&p->type_text, t, 0);
  if (!*slot) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) die("open_memstream failed");
    print_type(f, t);
    fclose(f);
    *slot = text;
  }
  fputs_unlocked(*slot, p->out);
}

static void name_arg(Printer *p, const Value *v, int id) { set_name(p, v, id, true); }

static void name_block_args(Printer *p, const Block *b) {
  for (int i = 0; i < b->nargs; i++) name_arg(p, &b->args[i], p->next_arg++);
}

/* Write a non-negative integer without printf. */
static void put_uint(FILE *out, unsigned v) {
  char buf[16];
  int n = 0;
  do buf[n++] = (char)('0' + v % 10);
  while ((v /= 10) && n < 16);
  while (n) fputc_unlocked(buf[--n], out);
}

static void print_value(Printer *p, const Value *v) {
  int id;
  bool arg;
  if (!get_name(p, v, &id, &arg)) {
    fputs_unlocked("%<<UNKNOWN SSA VALUE>>", p->out);
    return;
  }
  fputs_unlocked(arg ? "%arg" : "%", p->out);
  put_uint(p->out, (unsigned)id);
  if (!arg && v->def && v->def->nresults > 1) {
    fputc_unlocked('#', p->out);
    put_uint(p->out, (unsigned)v->index);
  }
}

static void print_indent(Printer *p) {
  for (int i = 0; i < p->indent; i++) fputs_unlocked("  ", p->out);
}

static void print_operand_list(Printer *p, const Op *op, int from, int to) {
  for (int i = from; i < to; i++) {
    if (i > from) fputs_unlocked(", ", p->out);
    print_value(p, op->operands[i]);
  }
}

static void print_operand_types(Printer *p, const Op *op, int from, int to) {
  for (int i = from; i < to; i++) {
    if (i > from) fputs_unlocked(", ", p->out);
    put_type(p, op->operands[i]->type);
  }
}

static void print_result_types(Printer *p, const Op *op) {
  bool parens = op->nresults != 1 || op->results[0].type->kind == TY_FUNC;
  if (parens) fputc_unlocked('(', p->out);
  for (int i = 0; i < op->nresults; i++) {
    if (i) fputs_unlocked(", ", p->out);
    put_type(p, op->results[i].type);
  }
  if (parens) fputc_unlocked(')', p->out);
}

static void print_functional_type(Printer *p, const Op *op) {
  fputc_unlocked('(', p->out);
  print_operand_types(p, op, 0, op->noperands);
  fputs_unlocked(") -> ", p->out);
  print_result_types(p, op);
}

/* Print op's attribute dictionary, skipping the names the format prints,
 * those in also_skip, and attributes holding their default. */
static void print_attr_dict(Printer *p, const Op *op, const FmtTok *toks, int ntoks, const char *const *also_skip,
                            bool leading_space) {
  bool first = true;
  const NamedAttr *attrs = op->attrs;
  for (int i = 0; i < op->nattrs; i++) {
    if (toks && fmt_names_attr(toks, ntoks, attrs[i].name)) continue;
    if (attr_is_default(op->kind, attrs[i].name, attrs[i].value)) continue;
    bool skip = false;
    for (const char *const *s = also_skip; s && *s; s++)
      if (strcmp(*s, attrs[i].name) == 0) skip = true;
    if (skip) continue;
    fputs_unlocked(first ? (leading_space ? " {" : "{") : ", ", p->out);
    first = false;
    print_attr_name(p->out, attrs[i].name);
    if (attrs[i].value->kind != ATTR_UNIT) {
      fputs_unlocked(" = ", p->out);
      print_attr(p->out, attrs[i].value, p->generic);
    }
  }
  if (!first) fputc_unlocked('}', p->out);
}

static void assign_result_names(Printer *p, const Op *op) {
  if (!op->nresults) return;
  int id = p->next_id++;
  for (int i = 0; i < op->nresults; i++) set_name(p, &op->results[i], id, false);
}

static void print_result_prefix(Printer *p, const Op *op) {
  if (!op->nresults) return;
  int id = 0;
  bool arg;
  get_name(p, &op->results[0], &id, &arg);
  fputc_unlocked('%', p->out);
  put_uint(p->out, (unsigned)id);
  if (op->nresults > 1) {
    fputc_unlocked(':', p->out);
    put_uint(p->out, (unsigned)op->nresults);
  }
  fputs_unlocked(" = ", p->out);
}

/* ------------------------------------------------------------ generic form */

static void print_block_header(Printer *p, const Block *b) {
  print_indent(p);
  if (b->nargs == 0) {
    fputs_unlocked("^bb0:\n", p->out);
    return;
  }
  fputs_unlocked("^bb0(", p->out);
  for (int i = 0; i < b->nargs; i++) {
    if (i) fputs_unlocked(", ", p->out);
    print_value(p, &b->args[i]);
    fputs_unlocked(": ", p->out);
    put_type(p, b->args[i].type);
  }
  fputs_unlocked("):\n", p->out);
}

static void print_block_ops(Printer *p, const Block *b) {
  p->indent++;
  for (const Op *op = b->first; op; op = op->next) print_op(p, op);
  p->indent--;
}

static void print_region(Printer *p, const Region *r, bool print_entry_args) {
  fputs_unlocked("{\n", p->out);
  for (int i = 0; i < r->nblocks; i++) {
    const Block *b = r->blocks[i];
    name_block_args(p, b);
    /* An empty entry block needs its label, or it would read back as no block. */
    if (i > 0 || (print_entry_args && b->nargs > 0) || !b->first) print_block_header(p, b);
    print_block_ops(p, b);
  }
  print_indent(p);
  fputc_unlocked('}', p->out);
}

static void print_generic_op(Printer *p, const Op *op) {
  fputc_unlocked('"', p->out);
  fputs_unlocked(op->name, p->out);
  fputs_unlocked("\"(", p->out);
  print_operand_list(p, op, 0, op->noperands);
  fputc_unlocked(')', p->out);
  if (op->nregions) {
    fputs_unlocked(" (", p->out);
    for (int i = 0; i < op->nregions; i++) {
      if (i) fputs_unlocked(", ", p->out);
      print_region(p, &op->regions[i], true);
    }
    fputc_unlocked(')', p->out);
  }
  print_attr_dict(p, op, NULL, 0, NULL, true);
  fputs_unlocked(" : ", p->out);
  print_functional_type(p, op);
}

/* ------------------------------------------------------------ pretty form */

static bool attr_fits_style(const Attr *a, const char *style, Arena *scratch) {
  int n;
  const int64_t *v;
  if (strcmp(style, "arr") == 0) return attr_as_i64_list(a, &n, &v, scratch);
  /* The pretty form implies the type: only that type fits. */
  if (strcmp(style, "i64") == 0 || strcmp(style, "i32") == 0)
    return a->kind == ATTR_INT && a->type->kind == TY_ELEM && a->type->elem == (style[1] == '3' ? ELEM_I32 : ELEM_I64);
  if (strcmp(style, "u64") == 0) /* ui64, or an i64 that is not negative */
    return a->kind == ATTR_INT && a->type->kind == TY_ELEM &&
           (a->type->elem == ELEM_UI64 || (a->type->elem == ELEM_I64 && a->u.i >= 0));
  if (strcmp(style, "f64") == 0) return a->kind == ATTR_FLOAT && a->type->kind == TY_ELEM && a->type->elem == ELEM_F64;
  if (strcmp(style, "str") == 0) return a->kind == ATTR_STRING;
  if (strcmp(style, "sym") == 0) return a->kind == ATTR_SYMREF;
  if (strncmp(style, "enum.", 5) == 0)
    return a->kind == ATTR_ENUM && a->u.enm.enum_name && strcmp(a->u.enm.enum_name, style + 5) == 0;
  if (strcmp(style, "prec") == 0) {
    if (a->kind != ATTR_ARRAY) return false;
    for (int i = 0; i < a->u.array.n; i++)
      if (a->u.array.items[i]->kind != ATTR_ENUM) return false;
    return true;
  }
  if (strcmp(style, "conv") == 0) return a->kind == ATTR_CONV_DIMS;
  if (strcmp(style, "alg") == 0)
    return a->kind == ATTR_DIALECT && strcmp(a->u.dialect.name, "stablehlo.dot_algorithm") == 0;
  if (strcmp(style, "dense") == 0) return a->kind == ATTR_DENSE || a->kind == ATTR_DENSE_RESOURCE;
  return true; /* attr */
}

/* The #sdy.KIND<...> attribute name of op, kept as written (opaque). */
static const char *sdy_short(const Op *op, const char *name, const char *kind) {
  const Attr *a = op_attr(op, name);
  size_t k = strlen(kind);
  if (!a || a->kind != ATTR_OPAQUE || a->u.str.len <= k || strncmp(a->u.str.s, kind, k) != 0 || a->u.str.s[k] != '<')
    return NULL;
  return a->u.str.s + k;
}

/* ------------------------------------------------------- fragment hooks
 * Each fragment hook of ir/hooks.def has a test (can op be written with it?)
 * and a printer; fragment_printers below indexes them by hook. */

static bool sdy_sym_fits(const Op *op, Arena *scratch) {
  (void)scratch;
  return op_symbol_name(op) != NULL;
}

static bool sdy_mesh_fits(const Op *op, Arena *scratch) {
  (void)scratch;
  return sdy_short(op, "mesh", "#sdy.mesh") != NULL;
}

static bool sdy_sharding_fits(const Op *op, Arena *scratch) {
  (void)scratch;
  return sdy_short(op, "sharding", "#sdy.sharding") != NULL;
}

static bool slice_ranges_fits(const Op *op, Arena *scratch) {
  int n, n1, n2;
  const int64_t *v, *v1, *v2;
  if (!attr_as_i64_list(op_attr(op, "start_indices"), &n, &v, scratch) ||
      !attr_as_i64_list(op_attr(op, "limit_indices"), &n1, &v1, scratch))
    return false;
  if (n != n1) return false;
  /* The pretty form always implies strides: without them, print generic. */
  const Attr *st = op_attr(op, "strides");
  return st && attr_as_i64_list(st, &n2, &v2, scratch) && n2 == n;
}

static bool dot_dims_fits(const Op *op, Arena *scratch) {
  (void)scratch;
  const Attr *d = op_attr(op, "dot_dimension_numbers");
  if (!d || d->kind != ATTR_DIALECT || strcmp(d->u.dialect.name, "stablehlo.dot") != 0) return false;
  for (int i = 0; i < d->u.dialect.n; i++) {
    const char *k = d->u.dialect.params[i].name;
    if (!k || d->u.dialect.params[i].value->kind != ATTR_INT_LIST) return false;
    if (strcmp(k, "lhs_batching_dimensions") && strcmp(k, "rhs_batching_dimensions") &&
        strcmp(k, "lhs_contracting_dimensions") && strcmp(k, "rhs_contracting_dimensions"))
      return false;
  }
  return true;
}

static bool conv_window_fits(const Op *op, Arena *scratch) {
  int n;
  const int64_t *v;
  static const char *const lists[] = {"window_strides", "lhs_dilation", "rhs_dilation"};
  for (int i = 0; i < 3; i++) {
    const Attr *a = op_attr(op, lists[i]);
    if (a && !attr_as_i64_list(a, &n, &v, scratch)) return false;
  }
  const Attr *pad = op_attr(op, "padding");
  if (pad && !(pad->kind == ATTR_DENSE && elem_is_int(pad->type->elem) && pad->type->rank == 2 &&
               pad->type->dims[1] == 2 && type_is_static(pad->type)))
    return false;
  const Attr *rev = op_attr(op, "window_reversal");
  bool *bv;
  if (rev && !attr_as_bool_list(rev, &n, &bv, scratch)) return false;
  return true;
}

static bool rp_format_fits(const Op *op, Arena *scratch) {
  (void)scratch;
  const Attr *e = op_attr(op, "exponent_bits"), *m = op_attr(op, "mantissa_bits");
  return e && m && e->kind == ATTR_INT && m->kind == ATTR_INT;
}

static bool all_types_equal(const Op *op) {
  const Type *t = op->noperands ? op->operands[0]->type : op->nresults ? op->results[0].type : NULL;
  for (int i = 0; i < op->noperands; i++)
    if (op->operands[i]->type != t) return false;
  for (int i = 0; i < op->nresults; i++)
    if (op->results[i].type != t) return false;
  return true;
}

static bool types_fit(const Op *op, const char *dir) {
  if (strcmp(dir, "select") == 0) return op->noperands == 3 && op->nresults == 1;
  if (strcmp(dir, "tuple") == 0) {
    if (op->nresults != 1 || op->results[0].type->kind != TY_TUPLE) return false;
    const Type *t = op->results[0].type;
    if (t->ninputs != op->noperands) return false;
    for (int i = 0; i < op->noperands; i++)
      if (op->operands[i]->type != t->inputs[i]) return false;
    return true;
  }
  if (strcmp(dir, "pair") == 0) {
    if (op->noperands != op->nresults) return false;
    for (int i = 0; i < op->noperands; i++)
      if (op->operands[i]->type != op->results[i].type) return false;
    return true;
  }
  if (strcmp(dir, "res") == 0) return op->noperands == 0 && op->nresults >= 1;
  if (strcmp(dir, "ops") == 0) return op->nresults == 0;
  if (strcmp(dir, "same") == 0) return op->noperands + op->nresults > 0;
  if (strcmp(dir, "complex") == 0) return op->noperands == 2 && op->nresults == 1;
  return true;
}

/* Write a separator before the next item, following MLIR's spacing. */
static void sep(Printer *p, const char *next) {
  bool tight = strcmp(next, ",") == 0 || strcmp(next, ")") == 0 || strcmp(next, "]") == 0 ||
               strcmp(next, "}") == 0 || strcmp(next, "(") == 0 || strcmp(next, "[") == 0;
  if (!tight && !p->after_open) fputc_unlocked(' ', p->out);
  p->after_open = strcmp(next, "(") == 0 || strcmp(next, "[") == 0 || strcmp(next, "{") == 0;
}

static void print_i64_list(Printer *p, int n, const int64_t *v) {
  fputc_unlocked('[', p->out);
  for (int i = 0; i < n; i++) fprintf(p->out, i ? ", %" PRId64 : "%" PRId64, v[i]);
  fputc_unlocked(']', p->out);
}

static void print_styled_attr(Printer *p, const Attr *a, const char *style, Arena *scratch) {
  int n;
  const int64_t *v;
  if (strcmp(style, "arr") == 0) {
    attr_as_i64_list(a, &n, &v, scratch);
    print_i64_list(p, n, v);
  } else if (strcmp(style, "i64") == 0 || strcmp(style, "i32") == 0) {
    fprintf(p->out, "%" PRId64, a->u.i);
  } else if (strcmp(style, "u64") == 0) {
    fprintf(p->out, "%" PRIu64, (uint64_t)a->u.i);
  } else if (strcmp(style, "f64") == 0) {
    print_float_value(p->out, a->type->elem, a->u.f);
  } else if (strncmp(style, "enum.", 5) == 0) {
    fputs_unlocked(a->u.enm.value, p->out);
  } else if (strcmp(style, "prec") == 0) {
    fputc_unlocked('[', p->out);
    for (int i = 0; i < a->u.array.n; i++) fprintf(p->out, i ? ", %s" : "%s", a->u.array.items[i]->u.enm.value);
    fputc_unlocked(']', p->out);
  } else if (strcmp(style, "conv") == 0) {
    print_conv_dims(p->out, &a->u.conv);
  } else if (strcmp(style, "alg") == 0) {
    print_dialect_body(p->out, a, false);
  } else {
    print_attr(p->out, a, false);
  }
}

static const int64_t *dialect_list(const Attr *d, const char *key, int *n) {
  const Attr *a = dialect_param(d, key);
  *n = a ? a->u.ilist.n : 0;
  return a ? a->u.ilist.v : NULL;
}

static void print_slice_ranges(Printer *p, const Op *op, Arena *scratch) {
  FILE *out = p->out;
  int n, n1, n2 = 0;
  const int64_t *v, *lim, *st = NULL;
  attr_as_i64_list(op_attr(op, "start_indices"), &n, &v, scratch);
  attr_as_i64_list(op_attr(op, "limit_indices"), &n1, &lim, scratch);
  if (op_attr(op, "strides")) attr_as_i64_list(op_attr(op, "strides"), &n2, &st, scratch);
  fputs_unlocked(" [", out);
  for (int i = 0; i < n; i++) {
    if (i) fputs_unlocked(", ", out);
    fprintf(out, "%" PRId64 ":%" PRId64, v[i], lim[i]);
    if (st && st[i] != 1) fprintf(out, ":%" PRId64, st[i]);
  }
  fputc_unlocked(']', out);
}

static void print_dot_dims(Printer *p, const Op *op, Arena *scratch) {
  (void)scratch;
  FILE *out = p->out;
  const Attr *d = op_attr(op, "dot_dimension_numbers");
  int nl, nr;
  const int64_t *l = dialect_list(d, "lhs_batching_dimensions", &nl);
  const int64_t *r = dialect_list(d, "rhs_batching_dimensions", &nr);
  if (nl || nr) {
    fputs_unlocked("batching_dims = ", out);
    print_i64_list(p, nl, l);
    fputs_unlocked(" x ", out);
    print_i64_list(p, nr, r);
    fputs_unlocked(", ", out);
  }
  l = dialect_list(d, "lhs_contracting_dimensions", &nl);
  r = dialect_list(d, "rhs_contracting_dimensions", &nr);
  fputs_unlocked("contracting_dims = ", out);
  print_i64_list(p, nl, l);
  fputs_unlocked(" x ", out);
  print_i64_list(p, nr, r);
}

static void print_conv_window(Printer *p, const Op *op, Arena *scratch) {
  FILE *out = p->out;
  int n;
  const int64_t *v;
  static const char *const names[] = {"window_strides", "padding", "lhs_dilation", "rhs_dilation",
                                      "window_reversal"};
  static const char *const keys[] = {"stride", "pad", "lhs_dilate", "rhs_dilate", "reverse"};
  bool first = true;
  for (int k = 0; k < 5; k++) {
    const Attr *a = op_attr(op, names[k]);
    if (!a || attr_is_default(op->kind, names[k], a)) continue;
    fprintf(out, "%s%s = ", first ? "" : ", ", keys[k]);
    first = false;
    if (k == 1) {
      fputc_unlocked('[', out);
      for (int64_t i = 0; i < a->type->dims[0]; i++)
        fprintf(out, "%s[%" PRId64 ", %" PRId64 "]", i ? ", " : "", dense_get_int(a, 2 * i),
                dense_get_int(a, 2 * i + 1));
      fputc_unlocked(']', out);
    } else if (k == 4) {
      bool *bv;
      attr_as_bool_list(a, &n, &bv, scratch);
      fputc_unlocked('[', out);
      for (int i = 0; i < n; i++) fprintf(out, "%s%s", i ? ", " : "", bv[i] ? "true" : "false");
      fputc_unlocked(']', out);
    } else {
      attr_as_i64_list(a, &n, &v, scratch);
      print_i64_list(p, n, v);
    }
  }
}

static void print_sdy_sym(Printer *p, const Op *op, Arena *scratch) {
  (void)scratch;
  fputc_unlocked('@', p->out);
  print_attr_name(p->out, op_symbol_name(op));
}

static void print_sdy_mesh(Printer *p, const Op *op, Arena *scratch) {
  (void)scratch;
  fputs_unlocked(sdy_short(op, "mesh", "#sdy.mesh"), p->out);
}

static void print_sdy_sharding(Printer *p, const Op *op, Arena *scratch) {
  (void)scratch;
  fputs_unlocked(sdy_short(op, "sharding", "#sdy.sharding"), p->out);
}

static void print_rp_format(Printer *p, const Op *op, Arena *scratch) {
  (void)scratch;
  fprintf(p->out, "e%" PRId64 "m%" PRId64, op_attr(op, "exponent_bits")->u.i, op_attr(op, "mantissa_bits")->u.i);
}

/* A hook's printing half: can op be written with it, and the writer. */
typedef struct HookPrinter {
  bool (*fits)(const Op *op, Arena *scratch);
  void (*print)(Printer *p, const Op *op, Arena *scratch);
} HookPrinter;

/* The fragment hooks of ir/hooks.def; zero for whole-op hooks. */
static const HookPrinter fragment_printers[HOOK_COUNT] = {
#define WHOLE_HOOK(id, name)
#define FRAGMENT_HOOK(id, name) [HOOK_##id] = {name##_fits, print_##name},
#include "ir/hooks.def"
#undef WHOLE_HOOK
#undef FRAGMENT_HOOK
};

/* Can this op be written with its format?  Checks operand counts, regions,
 * required attributes and their kinds. */
static bool pretty_fits(const Op *op, const FmtTok *t, int n, Arena *scratch) {
  if (op->nregions) return false;
  int depth = 0;
  for (int i = 0; i < n; i++) {
    switch (t[i].kind) {
    case FMT_OPT_BEGIN: depth++; break;
    case FMT_OPT_END: depth--; break;
    case FMT_ATTR: {
      const Attr *a = op_attr(op, t[i].text);
      if (!a) {
        if (depth == 0) return false;
      } else if (!attr_fits_style(a, t[i].style, scratch)) {
        return false;
      }
      if (strcmp(t[i].style, "dense") == 0 && (op->noperands != 1 || op->operands[0]->type != a->type))
        return false;
      break;
    }
    case FMT_HOOK:
      if (!fragment_printers[t[i].hook].print) die("@%s is a whole-op hook inside a longer op format", t[i].text);
      if (!fragment_printers[t[i].hook].fits(op, scratch)) return false;
      break;
    case FMT_TYPES:
      if (!types_fit(op, t[i].text)) return false;
      break;
    default: break;
    }
  }
  return true;
}

static void print_types_directive(Printer *p, const Op *op, const char *dir) {
  if (strcmp(dir, "same") == 0) {
    if (all_types_equal(op)) put_type(p, op->noperands ? op->operands[0]->type : op->results[0].type);
    else print_functional_type(p, op);
  } else if (strcmp(dir, "fn") == 0) {
    print_functional_type(p, op);
  } else if (strcmp(dir, "res") == 0) {
    for (int i = 0; i < op->nresults; i++) {
      if (i) fputs_unlocked(", ", p->out);
      put_type(p, op->results[i].type);
    }
  } else if (strcmp(dir, "ops") == 0 || strcmp(dir, "pair") == 0) {
    print_operand_types(p, op, 0, op->noperands);
  } else if (strcmp(dir, "chlo") == 0) {
    print_operand_types(p, op, 0, op->noperands);
    fputs_unlocked(" -> ", p->out);
    print_result_types(p, op);
  } else if (strcmp(dir, "select") == 0) {
    const Type *t = op->operands[1]->type;
    if (op->operands[2]->type == t && op->results[0].type == t) {
      put_type(p, op->operands[0]->type);
      fputs_unlocked(", ", p->out);
      put_type(p, t);
    } else {
      print_functional_type(p, op);
    }
  } else if (strcmp(dir, "tuple") == 0) {
    put_type(p, op->results[0].type);
  } else if (strcmp(dir, "complex") == 0) {
    /* complex(re, im): one result type when the parts are its real type */
    const Type *r = op->results[0].type;
    if (r->kind == TY_TENSOR && elem_is_complex(r->elem) && op->operands[0]->type == op->operands[1]->type &&
        op->operands[0]->type == type_tensor(p->c, elem_complex_part(r->elem), r->rank, r->dims, r->encoding))
      put_type(p, r);
    else
      print_functional_type(p, op);
  }
}

/* Is the optional group starting at t[i] present for this op? */
static bool group_present(const Op *op, const FmtTok *t, int i, int n) {
  for (int j = i + 1; j < n && t[j].kind != FMT_OPT_END; j++) {
    if (t[j].kind == FMT_ATTR) {
      const Attr *a = op_attr(op, t[j].text);
      return a && !attr_is_default(op->kind, t[j].text, a);
    }
    if (t[j].kind == FMT_OPERANDS || t[j].kind == FMT_TYPES) return op->noperands > 0;
  }
  return true;
}

static void print_formatted(Printer *p, const Op *op, const FmtTok *t, int n, Arena *scratch) {
  p->after_open = false;
  for (int i = 0; i < n; i++) {
    switch (t[i].kind) {
    case FMT_OPT_BEGIN:
      if (!group_present(op, t, i, n))
        while (i < n && t[i].kind != FMT_OPT_END) i++;
      break;
    case FMT_OPT_END: break;
    case FMT_LITERAL:
      sep(p, t[i].text);
      fputs_unlocked(t[i].text, p->out);
      break;
    case FMT_OPERANDS:
      if (!op->noperands) break;
      sep(p, "%");
      print_operand_list(p, op, 0, op->noperands);
      break;
    case FMT_ATTR_DICT: {
      char *buf = NULL;
      size_t len = 0;
      FILE *saved = p->out;
      p->out = open_memstream(&buf, &len);
      print_attr_dict(p, op, t, n, NULL, false);
      fclose(p->out);
      p->out = saved;
      if (len) {
        sep(p, "{");
        p->after_open = false;
        fputs_unlocked(buf, p->out);
      }
      free(buf);
      break;
    }
    case FMT_ATTR:
      sep(p, "$");
      print_styled_attr(p, op_attr(op, t[i].text), t[i].style, scratch);
      break;
    case FMT_TYPES:
      sep(p, "!");
      print_types_directive(p, op, t[i].text);
      break;
    case FMT_HOOK:
      if (t[i].hook != HOOK_SLICE_RANGES) sep(p, "@");
      fragment_printers[t[i].hook].print(p, op, scratch);
      p->after_open = false;
      break;
    }
  }
}

/* ------------------------------------------------------- whole-op hooks */

/* " attributes {..}" with the op's attributes not in skip, if any. */
static void print_attributes_keyword(Printer *p, const Op *op, const char *const *skip) {
  char *buf = NULL;
  size_t len = 0;
  FILE *saved = p->out;
  p->out = open_memstream(&buf, &len);
  print_attr_dict(p, op, NULL, 0, skip, false);
  fclose(p->out);
  p->out = saved;
  if (len) fprintf(p->out, " attributes %s", buf);
  free(buf);
}

static void print_func_hook(Printer *p, const Op *op, Arena *scratch) {
  (void)scratch;
  const Attr *ft = op_attr(op, "function_type");
  const Attr *vis = op_attr(op, "sym_visibility");
  const Attr *arg_attrs = op_attr(op, "arg_attrs"), *res_attrs = op_attr(op, "res_attrs");
  const Type *fty = ft->type;
  fputs_unlocked("func.func ", p->out);
  if (vis) fprintf(p->out, "%s ", vis->u.str.s);
  print_symbol(p->out, op_symbol_name(op));
  fputc_unlocked('(', p->out);
  Block *body = op_body(op);
  p->next_id = 0;
  p->next_arg = 0;
  if (body) name_block_args(p, body);
  for (int i = 0; i < fty->ninputs; i++) {
    if (i) fputs_unlocked(", ", p->out);
    if (body) {
      print_value(p, &body->args[i]);
      fputs_unlocked(": ", p->out);
    }
    put_type(p, fty->inputs[i]);
    if (arg_attrs && i < arg_attrs->u.array.n && arg_attrs->u.array.items[i]->u.dict.n) {
      fputc_unlocked(' ', p->out);
      print_attr(p->out, arg_attrs->u.array.items[i], false);
    }
  }
  fputc_unlocked(')', p->out);
  bool res_has_attrs = false;
  for (int i = 0; res_attrs && i < res_attrs->u.array.n; i++)
    if (res_attrs->u.array.items[i]->u.dict.n) res_has_attrs = true;
  if (fty->nresults) {
    fputs_unlocked(" -> ", p->out);
    bool parens = fty->nresults != 1 || res_has_attrs || fty->results[0]->kind == TY_FUNC;
    if (parens) fputc_unlocked('(', p->out);
    for (int i = 0; i < fty->nresults; i++) {
      if (i) fputs_unlocked(", ", p->out);
      put_type(p, fty->results[i]);
      if (res_attrs && i < res_attrs->u.array.n && res_attrs->u.array.items[i]->u.dict.n) {
        fputc_unlocked(' ', p->out);
        print_attr(p->out, res_attrs->u.array.items[i], false);
      }
    }
    if (parens) fputc_unlocked(')', p->out);
  }
  static const char *const func_attrs[] = {"sym_name", "function_type", "sym_visibility",
                                           "arg_attrs", "res_attrs", NULL};
  print_attributes_keyword(p, op, func_attrs);
  if (body) {
    fputs_unlocked(" {\n", p->out);
    print_block_ops(p, body);
    print_indent(p);
    fputc_unlocked('}', p->out);
  }
}

static bool func_prints_pretty(const Op *op, Arena *scratch) {
  (void)scratch;
  const Attr *ft = op_attr(op, "function_type"), *name = op_attr(op, "sym_name");
  const Attr *vis = op_attr(op, "sym_visibility");
  if (!ft || ft->kind != ATTR_TYPE || ft->type->kind != TY_FUNC || !name || name->kind != ATTR_STRING)
    return false;
  if (vis && vis->kind != ATTR_STRING) return false;
  if (op->nregions != 1 || op->regions[0].nblocks > 1) return false;
  Block *body = op_body(op);
  if (body && body->nargs != ft->type->ninputs) return false;
  for (int i = 0; body && i < body->nargs; i++)
    if (body->args[i].type != ft->type->inputs[i]) return false;
  const char *keys[] = {"arg_attrs", "res_attrs"};
  int counts[] = {ft->type->ninputs, ft->type->nresults};
  for (int k = 0; k < 2; k++) {
    const Attr *a = op_attr(op, keys[k]);
    if (!a) continue;
    if (a->kind != ATTR_ARRAY || a->u.array.n != counts[k]) return false;
    for (int i = 0; i < a->u.array.n; i++)
      if (a->u.array.items[i]->kind != ATTR_DICT) return false;
  }
  return true;
}

/* module: always in its pretty form. */
static bool module_prints_pretty(const Op *op, Arena *scratch) {
  (void)op, (void)scratch;
  return true;
}

static void print_module_hook(Printer *p, const Op *op, Arena *scratch) {
  (void)scratch;
  fputs_unlocked("module", p->out);
  const char *name = op_symbol_name(op);
  if (name) {
    fputc_unlocked(' ', p->out);
    print_symbol(p->out, name);
  }
  static const char *const skip[] = {"sym_name", NULL};
  print_attributes_keyword(p, op, skip);
  fputs_unlocked(" {\n", p->out);
  Block *b = op_body(op);
  if (b) print_block_ops(p, b);
  print_indent(p);
  fputc_unlocked('}', p->out);
}

/* The "applies" short form of reduce: one input and a body that is a single
 * commutative binary StableHLO op on the two block arguments (as upstream
 * prints it; the parser reads no other). */
static const Op *reduce_short_form_op(const Op *op) {
  if (op->noperands != 2 || op->nregions != 1 || op->regions[0].nblocks != 1) return NULL;
  const Block *b = op->regions[0].blocks[0];
  if (b->nargs != 2) return NULL;
  const Op *inner = b->first;
  if (!inner || !inner->next || inner->next->next) return NULL;
  const Op *ret = inner->next;
  if (ret->kind != OP_RETURN || ret->noperands != 1 || ret->operands[0] != &inner->results[0]) return NULL;
  const OpInfo *info = &op_info[inner->kind];
  if (inner->kind == OP_UNKNOWN || inner->noperands != 2 || inner->nresults != 1 || inner->nattrs ||
      inner->nregions || info->min_operands != 2 || info->max_operands != 2 || !(info->traits & TRAIT_SAME_TYPE) ||
      !(info->traits & TRAIT_COMMUTATIVE) || strncmp(info->name, "stablehlo.", 10) != 0)
    return NULL;
  if (inner->operands[0] != &b->args[0] || inner->operands[1] != &b->args[1]) return NULL;
  const Type *t = b->args[0].type;
  if (b->args[1].type != t || inner->results[0].type != t || t->kind != TY_TENSOR || t->rank != 0) return NULL;
  if (op->operands[1]->type != t || op->nresults != 1) return NULL;
  return inner;
}

static bool reduce_prints_pretty(const Op *op, Arena *scratch) {
  int n;
  const int64_t *v;
  if (op->noperands % 2 || op->nregions != 1 || op->regions[0].nblocks != 1) return false;
  if (!attr_as_i64_list(op_attr(op, "dimensions"), &n, &v, scratch)) return false;
  const Block *b = op->regions[0].blocks[0];
  return b->nargs == op->noperands;
}

static void print_reduce_hook(Printer *p, const Op *op, Arena *scratch) {
  int n, half = op->noperands / 2;
  const int64_t *dims;
  attr_as_i64_list(op_attr(op, "dimensions"), &n, &dims, scratch);
  fputs_unlocked(op->name, p->out);
  for (int i = 0; i < half; i++) {
    fputs_unlocked(i ? ", (" : "(", p->out);
    print_value(p, op->operands[i]);
    fputs_unlocked(" init: ", p->out);
    print_value(p, op->operands[half + i]);
    fputc_unlocked(')', p->out);
  }
  const Op *inner = reduce_short_form_op(op);
  if (inner) fprintf(p->out, " applies %s", inner->name);
  fputs_unlocked(" across dimensions = ", p->out);
  print_i64_list(p, n, dims);
  static const char *const skip[] = {"dimensions", NULL};
  print_attr_dict(p, op, NULL, 0, skip, true);
  fputs_unlocked(" : ", p->out);
  print_functional_type(p, op);
  if (inner) return;
  const Block *b = op->regions[0].blocks[0];
  name_block_args(p, b);
  fputc_unlocked('\n', p->out);
  print_indent(p);
  fputs_unlocked(" reducer", p->out);
  for (int i = 0; i < half; i++) {
    fputc_unlocked('(', p->out);
    print_value(p, &b->args[i]);
    fputs_unlocked(": ", p->out);
    put_type(p, b->args[i].type);
    fputs_unlocked(", ", p->out);
    print_value(p, &b->args[half + i]);
    fputs_unlocked(": ", p->out);
    put_type(p, b->args[half + i].type);
    fputs_unlocked(") ", p->out);
  }
  fputs_unlocked("{\n", p->out);
  print_block_ops(p, b);
  print_indent(p);
  fputc_unlocked('}', p->out);
}

static bool while_prints_pretty(const Op *op, Arena *scratch) {
  (void)scratch;
  if (op->nregions != 2) return false;
  for (int r = 0; r < 2; r++) {
    if (op->regions[r].nblocks != 1) return false;
    const Block *b = op->regions[r].blocks[0];
    if (b->nargs != op->noperands) return false;
    for (int i = 0; i < b->nargs; i++)
      if (b->args[i].type != op->operands[i]->type) return false;
  }
  if (op->nresults != op->noperands) return false;
  for (int i = 0; i < op->nresults; i++)
    if (op->results[i].type != op->operands[i]->type) return false;
  return true;
}

static void print_while_hook(Printer *p, const Op *op, Arena *scratch) {
  (void)scratch;
  const Block *cond = op->regions[0].blocks[0], *body = op->regions[1].blocks[0];
  int first_arg = p->next_arg;
  name_block_args(p, cond);
  for (int i = 0; i < body->nargs; i++) name_arg(p, &body->args[i], first_arg + i);
  fputs_unlocked("stablehlo.while(", p->out);
  for (int i = 0; i < op->noperands; i++) {
    if (i) fputs_unlocked(", ", p->out);
    print_value(p, &cond->args[i]);
    fputs_unlocked(" = ", p->out);
    print_value(p, op->operands[i]);
  }
  fputc_unlocked(')', p->out);
  print_attributes_keyword(p, op, NULL);
  if (op->noperands) {
    fputs_unlocked(" : ", p->out);
    print_operand_types(p, op, 0, op->noperands);
  }
  fputc_unlocked('\n', p->out);
  print_indent(p);
  fputs_unlocked(" cond {\n", p->out);
  print_block_ops(p, cond);
  print_indent(p);
  fputs_unlocked("} do {\n", p->out);
  print_block_ops(p, body);
  print_indent(p);
  fputc_unlocked('}', p->out);
}

static bool custom_call_prints_pretty(const Op *op, Arena *scratch) {
  (void)scratch;
  const Attr *t = op_attr(op, "call_target_name");
  return t && t->kind == ATTR_STRING && op->nregions == 0 && strlen(t->u.str.s) == t->u.str.len;
}

static void print_custom_call_hook(Printer *p, const Op *op, Arena *scratch) {
  (void)scratch;
  fputs_unlocked("stablehlo.custom_call ", p->out);
  print_symbol(p->out, op_attr(op, "call_target_name")->u.str.s);
  fputc_unlocked('(', p->out);
  print_operand_list(p, op, 0, op->noperands);
  fputc_unlocked(')', p->out);
  static const char *const skip[] = {"call_target_name", NULL};
  print_attr_dict(p, op, NULL, 0, skip, true);
  fputs_unlocked(" : ", p->out);
  print_functional_type(p, op);
}

static bool constant_prints_pretty(const Op *op, Arena *scratch) {
  (void)scratch;
  const Attr *v = op_attr(op, "value");
  if (!v || op->nresults != 1 || op->noperands) return false;
  if (v->kind != ATTR_DENSE && v->kind != ATTR_DENSE_RESOURCE) return false;
  return v->type == op->results[0].type;
}

static void print_constant_hook(Printer *p, const Op *op, Arena *scratch) {
  (void)scratch;
  fputs_unlocked(op->name, p->out); /* stablehlo.constant or chlo.constant */
  static const char *const skip[] = {"value", NULL};
  print_attr_dict(p, op, NULL, 0, skip, true);
  fputc_unlocked(' ', p->out);
  print_attr(p->out, op_attr(op, "value"), false);
}

static bool scan_prints_pretty(const Op *op, Arena *scratch) {
  int n;
  const int64_t *seg;
  const Attr *s = op_attr(op, "operandSegmentSizes");
  if (!s || !attr_as_i64_list(s, &n, &seg, scratch) || n != 2 || seg[0] < 0 || seg[1] < 0 ||
      seg[0] + seg[1] != op->noperands)
    return false;
  const Attr *d = op_attr(op, "dimension");
  return d && d->kind == ATTR_INT && op->nregions == 1 && op->regions[0].nblocks == 1;
}

static void print_scan_hook(Printer *p, const Op *op, Arena *scratch) {
  int n;
  const int64_t *seg;
  attr_as_i64_list(op_attr(op, "operandSegmentSizes"), &n, &seg, scratch);
  fputs_unlocked("chlo.scan(", p->out);
  print_operand_list(p, op, 0, (int)seg[0]);
  fputs_unlocked(") inits(", p->out);
  print_operand_list(p, op, (int)seg[0], op->noperands);
  fprintf(p->out, ") dimension=%" PRId64, op_attr(op, "dimension")->u.i);
  static const char *const skip[] = {"operandSegmentSizes", "dimension", NULL};
  print_attributes_keyword(p, op, skip);
  fputc_unlocked(' ', p->out);
  print_region(p, &op->regions[0], true);
  fputs_unlocked(" : ", p->out);
  print_functional_type(p, op);
}

/* The text of a Shardy attribute between prefix and its final '>' (the
 * part its pretty form writes), NULL when it is not of that form. */
static const char *sdy_inner(const Op *op, const char *name, const char *prefix, size_t *len) {
  const Attr *a = op_attr(op, name);
  size_t n = strlen(prefix);
  if (!a || a->kind != ATTR_OPAQUE || a->u.str.len < n + 1 || strncmp(a->u.str.s, prefix, n) != 0 ||
      a->u.str.s[a->u.str.len - 1] != '>')
    return NULL;
  *len = a->u.str.len - n - 1;
  return a->u.str.s + n;
}

static bool sdy_manual_prints_pretty(const Op *op, Arena *scratch) {
  (void)scratch;
  size_t n;
  const char *in = sdy_inner(op, "in_shardings", "#sdy.sharding_per_value<", &n);
  const char *out = sdy_inner(op, "out_shardings", "#sdy.sharding_per_value<", &n);
  const char *axes = sdy_inner(op, "manual_axes", "#sdy<manual_axes", &n);
  return in && *in == '[' && out && *out == '[' && axes && *axes == '{' && op->nregions == 1 &&
         op->regions[0].nblocks == 1;
}

static void print_sdy_manual_hook(Printer *p, const Op *op, Arena *scratch) {
  (void)scratch;
  static const char *const keys[3][2] = {{"in_shardings", "#sdy.sharding_per_value<"},
                                         {"out_shardings", "#sdy.sharding_per_value<"},
                                         {"manual_axes", "#sdy<manual_axes"}};
  const Block *b = op->regions[0].blocks[0];
  fputs_unlocked("sdy.manual_computation(", p->out);
  print_operand_list(p, op, 0, op->noperands);
  fputc_unlocked(')', p->out);
  for (int k = 0; k < 3; k++) {
    size_t n;
    const char *text = sdy_inner(op, keys[k][0], keys[k][1], &n);
    fprintf(p->out, " %s=%.*s", keys[k][0], (int)n, text);
  }
  name_block_args(p, b);
  fputs_unlocked(" (", p->out);
  for (int i = 0; i < b->nargs; i++) {
    if (i) fputs_unlocked(", ", p->out);
    print_value(p, &b->args[i]);
    fputs_unlocked(": ", p->out);
    put_type(p, b->args[i].type);
  }
  fputs_unlocked(") {\n", p->out);
  print_block_ops(p, b);
  print_indent(p);
  fputc_unlocked('}', p->out);
  static const char *const skip[] = {"in_shardings", "out_shardings", "manual_axes", NULL};
  print_attr_dict(p, op, NULL, 0, skip, true);
  fputs_unlocked(" : ", p->out);
  print_functional_type(p, op);
}

/* The whole-op hooks of ir/hooks.def; zero for fragment hooks. */
static const HookPrinter whole_printers[HOOK_COUNT] = {
#define WHOLE_HOOK(id, name) [HOOK_##id] = {name##_prints_pretty, print_##name##_hook},
#define FRAGMENT_HOOK(id, name)
#include "ir/hooks.def"
#undef WHOLE_HOOK
#undef FRAGMENT_HOOK
};

/* Print op in pretty form if its format allows, returning false if not. */
static bool print_pretty_op(Printer *p, const Op *op) {
  const char *fmt = op_info[op->kind].format;
  if (op->kind == OP_UNKNOWN || !fmt) return false;
  Arena scratch = {0};
  bool done = true;
  FmtHook hook = fmt_whole_hook(fmt);
  if (hook != HOOK_NONE) {
    const HookPrinter *h = &whole_printers[hook];
    if (!h->print) die("@%s is a fragment hook, not an op's whole format", fmt_hook_name(hook));
    if (h->fits(op, &scratch)) h->print(p, op, &scratch);
    else done = false;
  } else {
    FmtTok toks[FMT_MAX_TOKENS];
    int n = fmt_tokenize(fmt, toks);
    if (pretty_fits(op, toks, n, &scratch)) {
      /* Short names inside functions, as MLIR's default dialect does. */
      fputs_unlocked(op->name, p->out);
      print_formatted(p, op, toks, n, &scratch);
    } else {
      done = false;
    }
  }
  arena_free_all(&scratch);
  return done;
}

static void print_op(Printer *p, const Op *op) {
  print_indent(p);
  assign_result_names(p, op);
  print_result_prefix(p, op);
  if (p->generic || !print_pretty_op(p, op)) {
    if (op->kind == OP_FUNC) {
      p->next_id = 0;
      p->next_arg = 0;
    }
    print_generic_op(p, op);
  }
  fputc_unlocked('\n', p->out);
}

static void print_resources(Printer *p, const Module *m) {
  bool any = false;
  for (int i = 0; i < m->nresources; i++)
    if (m->resources[i].hex) any = true;
  if (!any) return;
  fputs_unlocked("\n{-#\n  dialect_resources: {\n    builtin: {\n", p->out);
  bool first = true;
  for (int i = 0; i < m->nresources; i++) {
    if (!m->resources[i].hex) continue;
    fprintf(p->out, "%s      %s: \"%s\"", first ? "" : ",\n", m->resources[i].name, m->resources[i].hex);
    first = false;
  }
  fputs_unlocked("\n    }\n  }\n#-}\n", p->out);
}

void print_module(Context *c, const Module *m, FILE *out, const PrintOptions *opts) {
  Printer p = {.c = c, .out = out, .generic = opts && opts->generic};
  print_op(&p, m->op);
  print_resources(&p, m);
  table_free(&p.names, NULL);
  table_free(&p.type_text, free);
}

char *print_module_string(Context *c, const Module *m, const PrintOptions *opts) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f) die("open_memstream failed");
  print_module(c, m, f, opts);
  fclose(f);
  return buf;
}
