/* Parsing of pretty (custom) op forms: the format language of ir/syntax.h
 * and the whole-op hooks (module, func, constant, reduce, while, ...). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/parse_internal.h"
#include "ir/syntax.h"

/* What a pretty form collects before the op is built. */
typedef struct OpParts {
  PtrVec operands;   /* Value* */
  PtrVec attrs;      /* NamedAttr* */
  PtrVec op_types;   /* Type* declared for operands (may be empty) */
  PtrVec res_types;  /* Type* of results */
  Loc types_loc;
  OpKind kind;       /* the op being parsed (hooks shared by several ops) */
} OpParts;

static void parts_free(OpParts *o) {
  vec_free(&o->operands);
  vec_free(&o->attrs);
  vec_free(&o->op_types);
  vec_free(&o->res_types);
}

static void add_attr(Parser *p, OpParts *o, const char *name, Attr *v) {
  NamedAttr *na = arena_alloc(&p->c->arena, sizeof(NamedAttr));
  na->name = arena_strdup(&p->c->arena, name);
  na->value = v;
  vec_push(&o->attrs, na);
}

static bool parse_operand_list(Parser *p, OpParts *o) {
  if (p->tok.kind != TOK_PERCENT) return true;
  for (;;) {
    Value *v = parse_value_use(p);
    if (!v) return false;
    vec_push(&o->operands, v);
    if (!p_is(p, ",")) return true;
    /* Continue only if a value follows the comma. */
    Lexer save = p->lex;
    Token comma = p->tok;
    p_next(p);
    if (p->tok.kind != TOK_PERCENT) {
      p->lex = save;
      p->tok = comma;
      return true;
    }
  }
}

static bool merge_attr_dict(Parser *p, OpParts *o) {
  if (!p_is(p, "{")) return true;
  Attr *d = parse_attr_dict(p);
  if (!d) return false;
  for (int i = 0; i < d->u.dict.n; i++) add_attr(p, o, d->u.dict.items[i].name, d->u.dict.items[i].value);
  return true;
}

static bool parse_types_n(Parser *p, PtrVec *out, int n) {
  for (int i = 0; i < n; i++) {
    if (i && !p_expect(p, ",")) return false;
    Type *t = parse_type(p);
    if (!t) return false;
    vec_push(out, t);
  }
  return true;
}

/* Results after '->': one type, or a parenthesized list. */
static bool parse_result_types(Parser *p, PtrVec *out) {
  if (p_is(p, "(")) return parse_type_list_parens(p, out);
  Type *t = parse_type(p);
  if (!t) return false;
  vec_push(out, t);
  return true;
}

static void take_function_type(OpParts *o, const Type *f) {
  for (int i = 0; i < f->ninputs; i++) vec_push(&o->op_types, f->inputs[i]);
  for (int i = 0; i < f->nresults; i++) vec_push(&o->res_types, f->results[i]);
}

static bool parse_types_directive(Parser *p, OpParts *o, const char *dir, int nresults) {
  int nops = o->operands.len;
  o->types_loc = p->tok.loc;
  if (strcmp(dir, "same") == 0) {
    Type *t = parse_type(p);
    if (!t) return false;
    if (t->kind == TY_FUNC) {
      take_function_type(o, t);
      return true;
    }
    for (int i = 0; i < nops; i++) vec_push(&o->op_types, t);
    for (int i = 0; i < nresults; i++) vec_push(&o->res_types, t);
    return true;
  }
  if (strcmp(dir, "fn") == 0) {
    Type *t = parse_function_type(p);
    if (!t) return false;
    take_function_type(o, t);
    return true;
  }
  if (strcmp(dir, "res") == 0) return parse_types_n(p, &o->res_types, nresults ? nresults : 1);
  if (strcmp(dir, "ops") == 0) return parse_types_n(p, &o->op_types, nops);
  if (strcmp(dir, "pair") == 0) {
    if (!parse_types_n(p, &o->op_types, nops)) return false;
    for (int i = 0; i < nops; i++) vec_push(&o->res_types, o->op_types.items[i]);
    return true;
  }
  if (strcmp(dir, "chlo") == 0) {
    if (!parse_types_n(p, &o->op_types, nops)) return false;
    return p_expect(p, "->") && parse_result_types(p, &o->res_types);
  }
  if (strcmp(dir, "select") == 0) {
    Type *t = parse_type(p);
    if (!t) return false;
    if (t->kind == TY_FUNC) {
      take_function_type(o, t);
      return true;
    }
    if (!p_expect(p, ",")) return false;
    Type *v = parse_type(p);
    if (!v) return false;
    vec_push(&o->op_types, t);
    vec_push(&o->op_types, v);
    vec_push(&o->op_types, v);
    vec_push(&o->res_types, v);
    return true;
  }
  if (strcmp(dir, "complex") == 0) {
    Type *t = parse_type(p);
    if (!t) return false;
    if (t->kind == TY_FUNC) {
      take_function_type(o, t);
      return true;
    }
    if (t->kind != TY_TENSOR || !elem_is_complex(t->elem)) {
      p_error(p, o->types_loc, "expected a complex tensor type");
      return false;
    }
    Type *part = type_tensor(p->c, elem_complex_part(t->elem), t->rank, t->dims, t->encoding);
    for (int i = 0; i < nops; i++) vec_push(&o->op_types, part);
    vec_push(&o->res_types, t);
    return true;
  }
  if (strcmp(dir, "tuple") == 0) {
    Type *t = parse_type(p);
    if (!t) return false;
    if (t->kind != TY_TUPLE) {
      p_error(p, o->types_loc, "expected a tuple type");
      return false;
    }
    for (int i = 0; i < t->ninputs; i++) vec_push(&o->op_types, t->inputs[i]);
    vec_push(&o->res_types, t);
    return true;
  }
  die("unknown type directive !%s", dir);
}

static const char *const precision_values[] = {"DEFAULT", "HIGH", "HIGHEST", NULL};

static Attr *parse_keyword_enum(Parser *p, const char *enum_name) {
  if (p->tok.kind != TOK_IDENT) {
    p_error_here(p, "expected %s keyword", enum_name);
    return NULL;
  }
  char *v = arena_strndup(&p->c->arena, p->tok.text, p->tok.len);
  p_next(p);
  return attr_enum(p->c, "stablehlo", enum_name, v);
}

static Attr *parse_styled_attr(Parser *p, const char *style) {
  Loc loc = p->tok.loc;
  if (strcmp(style, "arr") == 0) {
    int n;
    int64_t *v;
    if (!parse_i64_list(p, &n, &v)) return NULL;
    return attr_dense_i64_array(p->c, n, v);
  }
  if (strcmp(style, "i64") == 0 || strcmp(style, "i32") == 0) {
    int64_t v;
    if (!parse_int64(p, &v)) return NULL;
    if (style[1] == '3' && (v < INT32_MIN || v > INT32_MAX)) {
      p_error(p, loc, "integer does not fit in i32");
      return NULL;
    }
    return attr_int(p->c, type_elem(p->c, style[1] == '3' ? ELEM_I32 : ELEM_I64), v);
  }
  if (strcmp(style, "u64") == 0) { /* an unsigned 64-bit value (upstream's UI64Attr) */
    uint64_t v;
    return parse_uint64(p, &v) ? attr_int(p->c, type_elem(p->c, ELEM_UI64), (int64_t)v) : NULL;
  }
  if (strcmp(style, "f64") == 0) return parse_float_literal(p, ELEM_F64);
  if (strcmp(style, "str") == 0) {
    if (p->tok.kind != TOK_STRING) {
      p_error_here(p, "expected string");
      return NULL;
    }
    return parse_attr(p);
  }
  if (strcmp(style, "sym") == 0) {
    if (p->tok.kind != TOK_AT) {
      p_error_here(p, "expected symbol reference '@name'");
      return NULL;
    }
    return parse_attr(p);
  }
  if (strncmp(style, "enum.", 5) == 0) return parse_keyword_enum(p, style + 5);
  if (strcmp(style, "prec") == 0) {
    if (!p_expect(p, "[")) return NULL;
    PtrVec items = {0};
    if (!p_is(p, "]")) {
      do {
        Attr *e = parse_keyword_enum(p, "precision");
        if (!e) {
          vec_free(&items);
          return NULL;
        }
        bool known = false;
        for (int i = 0; precision_values[i]; i++)
          if (strcmp(precision_values[i], e->u.enm.value) == 0) known = true;
        if (!known) {
          p_error(p, loc, "unknown precision '%s' (expected DEFAULT, HIGH or HIGHEST)", e->u.enm.value);
          vec_free(&items);
          return NULL;
        }
        vec_push(&items, e);
      } while (p_accept(p, ","));
    }
    Attr *r = p_expect(p, "]") ? attr_array(p->c, items.len, (Attr **)items.items) : NULL;
    vec_free(&items);
    return r;
  }
  if (strcmp(style, "conv") == 0) return parse_conv_dims_body(p);
  if (strcmp(style, "alg") == 0) return parse_dot_algorithm_body(p);
  if (strcmp(style, "dense") == 0) {
    if (!(tok_is(&p->tok, "dense") || tok_is(&p->tok, "dense_resource"))) {
      p_error_here(p, "expected dense literal");
      return NULL;
    }
    return parse_attr(p);
  }
  return parse_attr(p);
}

/* [0:2, 1:4:2] */
static bool parse_slice_ranges(Parser *p, OpParts *o) {
  if (!p_expect(p, "[")) return false;
  int cap = 8, n = 0;
  int64_t *st = xrealloc(NULL, sizeof(int64_t) * 3 * (size_t)cap);
  bool ok = true;
  if (!p_is(p, "]")) {
    do {
      if (n == cap) st = xrealloc(st, sizeof(int64_t) * 3 * (size_t)(cap *= 2));
      int64_t *r = &st[3 * n];
      r[2] = 1;
      if (!parse_int64(p, &r[0]) || !p_expect(p, ":") || !parse_int64(p, &r[1])) {
        ok = false;
        break;
      }
      if (p_accept(p, ":") && !parse_int64(p, &r[2])) {
        ok = false;
        break;
      }
      n++;
    } while (p_accept(p, ","));
  }
  ok = ok && p_expect(p, "]");
  if (ok) {
    int64_t *v[3];
    for (int k = 0; k < 3; k++) {
      v[k] = arena_alloc(&p->c->arena, sizeof(int64_t) * (size_t)(n ? n : 1));
      for (int i = 0; i < n; i++) v[k][i] = st[3 * i + k];
    }
    add_attr(p, o, "start_indices", attr_dense_i64_array(p->c, n, v[0]));
    add_attr(p, o, "limit_indices", attr_dense_i64_array(p->c, n, v[1]));
    add_attr(p, o, "strides", attr_dense_i64_array(p->c, n, v[2]));
  }
  free(st);
  return ok;
}

/* Append [a] x [b] as two dialect params. */
static bool parse_dims_pair(Parser *p, PtrVec *params, const char *lhs, const char *rhs) {
  int nl, nr;
  int64_t *l, *r;
  if (!p_expect(p, "=") || !parse_i64_list(p, &nl, &l)) return false;
  if (!(p->tok.kind == TOK_IDENT && tok_is(&p->tok, "x"))) {
    p_error_here(p, "expected 'x' between lhs and rhs dimensions");
    return false;
  }
  p_next(p);
  if (!parse_i64_list(p, &nr, &r)) return false;
  if (nl) {
    NamedAttr *na = arena_alloc(&p->c->arena, sizeof(NamedAttr));
    *na = (NamedAttr){lhs, attr_int_list(p->c, nl, l)};
    vec_push(params, na);
  }
  if (nr) {
    NamedAttr *na = arena_alloc(&p->c->arena, sizeof(NamedAttr));
    *na = (NamedAttr){rhs, attr_int_list(p->c, nr, r)};
    vec_push(params, na);
  }
  return true;
}

static bool parse_dot_dims(Parser *p, OpParts *o) {
  PtrVec params = {0};
  bool ok = true;
  if (p->tok.kind == TOK_IDENT && tok_is(&p->tok, "batching_dims")) {
    p_next(p);
    ok = parse_dims_pair(p, &params, "lhs_batching_dimensions", "rhs_batching_dimensions") && p_expect(p, ",");
  }
  if (ok) {
    if (p->tok.kind == TOK_IDENT && tok_is(&p->tok, "contracting_dims")) {
      p_next(p);
      ok = parse_dims_pair(p, &params, "lhs_contracting_dimensions", "rhs_contracting_dimensions");
    } else {
      p_error_here(p, "expected 'contracting_dims'");
      ok = false;
    }
  }
  if (ok) {
    NamedAttr items[params.len ? params.len : 1];
    for (int i = 0; i < params.len; i++) items[i] = *(NamedAttr *)params.items[i];
    add_attr(p, o, "dot_dimension_numbers", attr_dialect(p->c, "stablehlo.dot", params.len, items));
  }
  vec_free(&params);
  return ok;
}

/* stride = [..], pad = [[l, h], ..], lhs_dilate = [..], rhs_dilate = [..], reverse = [..] */
static bool parse_conv_window(Parser *p, OpParts *o) {
  static const char *const keys[] = {"stride", "pad", "lhs_dilate", "rhs_dilate", "reverse"};
  bool seen[5] = {false};
  if (p_is(p, "}")) return true;
  do {
    Token key = p->tok;
    if (key.kind != TOK_IDENT) {
      p_error_here(p, "expected window attribute (stride, pad, lhs_dilate, rhs_dilate, reverse)");
      return false;
    }
    for (int k = 0; k < 5; k++) {
      if (!tok_is(&key, keys[k])) continue;
      if (seen[k]) {
        p_error(p, key.loc, "Unexpected keyword %s: window attribute '%s' is given twice", keys[k], keys[k]);
        return false;
      }
      seen[k] = true;
    }
    p_next(p);
    if (!p_expect(p, "=")) return false;
    if (tok_is(&key, "pad")) {
      if (!p_expect(p, "[")) return false;
      int64_t n = 0;
      int cap = 8;
      int64_t *v = xrealloc(NULL, sizeof(int64_t) * 2 * (size_t)cap);
      bool ok = true;
      if (!p_is(p, "]")) {
        do {
          if (n == cap) v = xrealloc(v, sizeof(int64_t) * 2 * (size_t)(cap *= 2));
          if (!p_expect(p, "[") || !parse_int64(p, &v[2 * n]) || !p_expect(p, ",") ||
              !parse_int64(p, &v[2 * n + 1]) || !p_expect(p, "]")) {
            ok = false;
            break;
          }
          n++;
        } while (p_accept(p, ","));
      }
      ok = ok && p_expect(p, "]");
      if (ok) {
        int64_t dims[2] = {n, 2};
        Attr *a = arena_alloc(&p->c->arena, sizeof(Attr));
        a->kind = ATTR_DENSE;
        a->type = type_tensor(p->c, ELEM_I64, 2, dims, NULL);
        a->u.dense.data = arena_dup(&p->c->arena, v, sizeof(int64_t) * 2 * (size_t)n);
        a->u.dense.nbytes = sizeof(int64_t) * 2 * (size_t)n;
        add_attr(p, o, "padding", a);
      }
      free(v);
      if (!ok) return false;
    } else if (tok_is(&key, "reverse")) {
      if (!p_expect(p, "[")) return false;
      bool buf[64];
      int n = 0;
      if (!p_is(p, "]")) {
        do {
          if (n == 64) {
            p_error_here(p, "too many window dimensions");
            return false;
          }
          if (tok_is(&p->tok, "true") || tok_is(&p->tok, "false")) buf[n++] = p->tok.text[0] == 't';
          else if (p->tok.kind == TOK_INT) buf[n++] = strtol(p->tok.text, NULL, 0) != 0;
          else {
            p_error_here(p, "expected boolean");
            return false;
          }
          p_next(p);
        } while (p_accept(p, ","));
      }
      if (!p_expect(p, "]")) return false;
      add_attr(p, o, "window_reversal", attr_dense_bool_array(p->c, n, buf));
    } else {
      const char *name = tok_is(&key, "stride") ? "window_strides"
                         : tok_is(&key, "lhs_dilate") ? "lhs_dilation"
                         : tok_is(&key, "rhs_dilate") ? "rhs_dilation"
                                                       : NULL;
      if (!name) {
        p_error(p, key.loc, "unknown window attribute '%.*s'", (int)key.len, key.text);
        return false;
      }
      int n;
      int64_t *v;
      if (!parse_i64_list(p, &n, &v)) return false;
      add_attr(p, o, name, attr_dense_i64_array(p->c, n, v));
    }
  } while (p_accept(p, ","));
  return true;
}

/* e11m52 */
static bool parse_rp_format(Parser *p, OpParts *o) {
  Token t = p->tok;
  char buf[32];
  long long e, m;
  char tail;
  if (t.kind != TOK_IDENT || t.len >= sizeof buf) {
    p_error_here(p, "expected a format like e8m23");
    return false;
  }
  memcpy(buf, t.text, t.len);
  buf[t.len] = 0;
  if (sscanf(buf, "e%11lldm%11lld%c", &e, &m, &tail) != 2) {
    p_error_here(p, "expected a format like e8m23");
    return false;
  }
  if (e > INT32_MAX || m > INT32_MAX) {
    p_error_here(p, "unable to parse %s '%lld' of the format (it does not fit in i32)",
                 e > INT32_MAX ? "exponent" : "mantissa", e > INT32_MAX ? e : m);
    return false;
  }
  p_next(p);
  add_attr(p, o, "exponent_bits", attr_int(p->c, type_elem(p->c, ELEM_I32), e));
  add_attr(p, o, "mantissa_bits", attr_int(p->c, type_elem(p->c, ELEM_I32), m));
  return true;
}

/* Shardy's short form: <...> for the attribute name = #sdy.KIND<...>,
 * kept as written. */
static bool parse_sdy_short(Parser *p, OpParts *o, const char *name, const char *kind) {
  if (!p_is(p, "<")) {
    p_error_here(p, "expected '<'");
    return false;
  }
  const char *start = p->tok.text, *end;
  if (!skip_balanced_angles(p, &end)) return false;
  size_t k = strlen(kind), n = (size_t)(end - start);
  char *text = arena_alloc(&p->c->arena, k + n + 1);
  memcpy(text, kind, k);
  memcpy(text + k, start, n);
  text[k + n] = 0;
  add_attr(p, o, name, attr_opaque(p->c, text, k + n));
  return true;
}

static bool parse_symbol_name(Parser *p, OpParts *o, const char *attr_name);

static bool parse_sdy_sym(Parser *p, OpParts *o) { return parse_symbol_name(p, o, "sym_name"); }
static bool parse_sdy_mesh(Parser *p, OpParts *o) { return parse_sdy_short(p, o, "mesh", "#sdy.mesh"); }
static bool parse_sdy_sharding(Parser *p, OpParts *o) {
  return parse_sdy_short(p, o, "sharding", "#sdy.sharding");
}

/* The parsers of the fragment hooks (ir/hooks.def); NULL for whole-op hooks. */
static bool (*const fragment_parsers[HOOK_COUNT])(Parser *p, OpParts *o) = {
#define WHOLE_HOOK(id, name)
#define FRAGMENT_HOOK(id, name) [HOOK_##id] = parse_##name,
#include "ir/hooks.def"
#undef WHOLE_HOOK
#undef FRAGMENT_HOOK
};

/* Does the input start optional group toks[i] (an OPT_BEGIN)?  The group's
 * leading literals (up to two: ", precision") must all match, so groups that
 * both start with ',' are told apart. */
static bool group_starts(Parser *p, const FmtTok *toks, int i, int n) {
  int j = i + 1;
  if (j < n && toks[j].kind == FMT_OPERANDS) return p->tok.kind == TOK_PERCENT;
  if (j >= n || toks[j].kind != FMT_LITERAL || !p_is(p, toks[j].text)) return false;
  if (j + 1 >= n || toks[j + 1].kind != FMT_LITERAL) return true;
  Lexer save = p->lex;
  Token first = p->tok;
  p_next(p);
  bool match = p_is(p, toks[j + 1].text);
  p->lex = save;
  p->tok = first;
  return match;
}

static bool parse_formatted(Parser *p, OpParts *o, const char *fmt, int nresults) {
  FmtTok toks[FMT_MAX_TOKENS];
  int n = fmt_tokenize(fmt, toks);
  for (int i = 0; i < n; i++) {
    const FmtTok *t = &toks[i];
    switch (t->kind) {
    case FMT_OPT_BEGIN:
      if (!group_starts(p, toks, i, n))
        while (i < n && toks[i].kind != FMT_OPT_END) i++;
      break;
    case FMT_OPT_END: break;
    case FMT_LITERAL:
      if (!p_expect(p, t->text)) return false;
      break;
    case FMT_OPERANDS:
      if (!parse_operand_list(p, o)) return false;
      break;
    case FMT_ATTR_DICT:
      if (!merge_attr_dict(p, o)) return false;
      break;
    case FMT_ATTR: {
      Attr *a = parse_styled_attr(p, t->style);
      if (!a) return false;
      add_attr(p, o, t->text, a);
      if (strcmp(t->style, "dense") == 0 && o->op_types.len == 0) vec_push(&o->op_types, a->type);
      break;
    }
    case FMT_TYPES:
      if (!parse_types_directive(p, o, t->text, nresults)) return false;
      break;
    case FMT_HOOK:
      if (!fragment_parsers[t->hook]) die("@%s is a whole-op hook inside a longer op format", t->text);
      if (!fragment_parsers[t->hook](p, o)) return false;
      break;
    }
  }
  return true;
}

/* Check declared operand types against the values and build the op. */
static Op *build_op(Parser *p, OpKind kind, Loc loc, int nresults, OpParts *o, int nregions) {
  if (o->op_types.len != o->operands.len) {
    p_error(p, o->types_loc.file ? o->types_loc : loc, "expected %d operand types but had %d", o->operands.len,
            o->op_types.len);
    return NULL;
  }
  for (int i = 0; i < o->operands.len; i++) {
    Value *v = o->operands.items[i];
    Type *t = o->op_types.items[i];
    if (v->type != t) {
      p_error(p, o->types_loc.file ? o->types_loc : loc,
              "use of value '%s' expects different type than prior uses: '%s' vs '%s'",
              v->name_hint ? v->name_hint : "%?", type_to_string(p->c, t), type_to_string(p->c, v->type));
      return NULL;
    }
  }
  if (o->res_types.len != nresults) {
    p_error(p, loc, "operation defines %d results but was provided %d to bind", o->res_types.len, nresults);
    return NULL;
  }
  NamedAttr *flat = arena_alloc(&p->c->arena, sizeof(NamedAttr) * (size_t)(o->attrs.len ? o->attrs.len : 1));
  for (int i = 0; i < o->attrs.len; i++) {
    flat[i] = *(NamedAttr *)o->attrs.items[i];
    for (int j = 0; j < i; j++)
      if (strcmp(flat[j].name, flat[i].name) == 0) {
        p_error(p, loc, "attribute '%s' is given twice", flat[i].name);
        return NULL;
      }
  }
  return op_create(p->c, kind, NULL, loc, o->operands.len, (Value **)o->operands.items, nresults,
                   (Type **)o->res_types.items, o->attrs.len, flat, nregions);
}

/* ------------------------------------------------------- whole-op hooks */

static bool parse_symbol_name(Parser *p, OpParts *o, const char *attr_name) {
  if (p->tok.kind != TOK_AT) {
    p_error_here(p, "expected symbol name '@name'");
    return false;
  }
  Attr *sym = parse_attr(p);
  if (!sym) return false;
  add_attr(p, o, attr_name, attr_string(p->c, sym->u.str.s, sym->u.str.len));
  return true;
}

static bool parse_attributes_keyword(Parser *p, OpParts *o) {
  if (!(p->tok.kind == TOK_IDENT && tok_is(&p->tok, "attributes"))) return true;
  p_next(p);
  if (!p_is(p, "{")) {
    p_error_here(p, "expected '{' after 'attributes'");
    return false;
  }
  return merge_attr_dict(p, o);
}

static Op *parse_module_hook(Parser *p, Loc loc, OpParts *o, int nresults) {
  (void)nresults;
  if (p->tok.kind == TOK_AT && !parse_symbol_name(p, o, "sym_name")) return NULL;
  if (!parse_attributes_keyword(p, o)) return NULL;
  Op *op = build_op(p, OP_MODULE, loc, 0, o, 1);
  if (!op) return NULL;
  Block *b = block_create(p->c, &op->regions[0], 0, NULL);
  region_add_block(p->c, &op->regions[0], b);
  if (!p_expect(p, "{")) return NULL;
  scope_push(p);
  bool failed = false;
  while (!p_is(p, "}")) {
    if (p->tok.kind == TOK_EOF) {
      if (!failed) p_error_here(p, "expected '}' to close the module");
      failed = true;
      break;
    }
    Op *inner = parse_op(p);
    if (inner) {
      op_append(b, inner);
      continue;
    }
    /* Report the errors of the following functions too. */
    failed = true;
    recover_to_next_item(p);
    p->error = false;
  }
  scope_pop(p);
  if (failed) {
    p->error = true;
    return NULL;
  }
  if (!p_expect(p, "}")) return NULL;
  return op;
}

/* A function's signature as written: named (or unnamed) arguments with
 * their attribute dictionaries, results with theirs. */
typedef struct FuncSignature {
  PtrVec arg_names, arg_types, arg_attrs, res_types, res_attrs;
  bool any_arg_attrs, any_res_attrs;
} FuncSignature;

/* "(%a: T {attrs}, ...)": false after a diagnostic. */
static bool parse_func_args(Parser *p, FuncSignature *sig) {
  if (!p_expect(p, "(")) return false;
  if (!p_is(p, ")")) {
    do {
      Token *name = NULL;
      if (p->tok.kind == TOK_PERCENT) {
        name = arena_dup(&p->c->arena, &p->tok, sizeof(Token));
        p_next(p);
        if (!p_expect(p, ":")) return false;
      }
      Type *t = parse_type(p);
      if (!t) return false;
      Attr *d = attr_dict(p->c, 0, NULL);
      if (p_is(p, "{")) {
        d = parse_attr_dict(p);
        if (!d) return false;
        if (d->u.dict.n) sig->any_arg_attrs = true;
      }
      skip_loc(p, NULL);
      if (p->error) return false;
      bool first_arg = sig->arg_types.len == 0, named_so_far = sig->arg_names.len > 0;
      if (!first_arg && (name != NULL) != named_so_far) {
        p_error_here(p, "function arguments must be all named or all unnamed");
        return false;
      }
      if (name) vec_push(&sig->arg_names, name);
      vec_push(&sig->arg_types, t);
      vec_push(&sig->arg_attrs, d);
    } while (p_accept(p, ","));
  }
  return p_expect(p, ")");
}

/* "-> T" or "-> (T {attrs}, ...)", when present: false after a diagnostic. */
static bool parse_func_results(Parser *p, FuncSignature *sig) {
  if (!p_accept(p, "->")) return true;
  bool parens = p_accept(p, "(");
  if (!parens || !p_is(p, ")")) {
    do {
      Type *t = parse_type(p);
      if (!t) return false;
      Attr *d = attr_dict(p->c, 0, NULL);
      if (parens && p_is(p, "{")) {
        d = parse_attr_dict(p);
        if (!d) return false;
        if (d->u.dict.n) sig->any_res_attrs = true;
      }
      vec_push(&sig->res_types, t);
      vec_push(&sig->res_attrs, d);
    } while (parens && p_accept(p, ","));
  }
  return !parens || p_expect(p, ")");
}

/* "{ ops }": the one-block body of func op, whose entry block's arguments
 * are the named function arguments; false after a diagnostic. */
static bool parse_func_body(Parser *p, Loc loc, Op *op, const FuncSignature *sig) {
  if (sig->arg_names.len != sig->arg_types.len) {
    p_error(p, loc, "a function with a body needs named arguments");
    return false;
  }
  Block *b = block_create(p->c, &op->regions[0], sig->arg_types.len, (Type **)sig->arg_types.items);
  region_add_block(p->c, &op->regions[0], b);
  scope_push(p);
  bool ok = true;
  for (int i = 0; ok && i < sig->arg_names.len; i++) ok = scope_define(p, sig->arg_names.items[i], &b->args[i], 1);
  p_next(p); /* '{' */
  while (ok && !p_is(p, "}")) {
    if (p->tok.kind == TOK_EOF) {
      p_error_here(p, "expected '}' to close the function body");
      ok = false;
    } else if (p->tok.kind == TOK_CARET) {
      p_error_here(p, "functions with several blocks are not supported (StableHLO bodies are one block)");
      ok = false;
    } else {
      Op *inner = parse_op(p);
      if (inner) op_append(b, inner);
      ok = inner != NULL;
    }
  }
  scope_pop(p);
  return ok && p_expect(p, "}");
}

static Op *parse_func_hook(Parser *p, Loc loc, OpParts *o, int nresults) {
  (void)nresults;
  if (p->tok.kind == TOK_IDENT &&
      (tok_is(&p->tok, "public") || tok_is(&p->tok, "private") || tok_is(&p->tok, "nested"))) {
    add_attr(p, o, "sym_visibility", attr_string(p->c, p->tok.text, p->tok.len));
    p_next(p);
  }
  if (!parse_symbol_name(p, o, "sym_name")) return NULL;
  FuncSignature sig = {0};
  Op *op = NULL;
  if (parse_func_args(p, &sig) && parse_func_results(p, &sig) && parse_attributes_keyword(p, o)) {
    Type *fty = type_func(p->c, sig.arg_types.len, (Type **)sig.arg_types.items, sig.res_types.len,
                          (Type **)sig.res_types.items);
    add_attr(p, o, "function_type", attr_type(p->c, fty));
    if (sig.any_arg_attrs)
      add_attr(p, o, "arg_attrs", attr_array(p->c, sig.arg_attrs.len, (Attr **)sig.arg_attrs.items));
    if (sig.any_res_attrs)
      add_attr(p, o, "res_attrs", attr_array(p->c, sig.res_attrs.len, (Attr **)sig.res_attrs.items));
    op = build_op(p, OP_FUNC, loc, 0, o, 1);
    if (op && p_is(p, "{") && !parse_func_body(p, loc, op, &sig)) op = NULL;
  }
  vec_free(&sig.arg_names);
  vec_free(&sig.arg_types);
  vec_free(&sig.arg_attrs);
  vec_free(&sig.res_types);
  vec_free(&sig.res_attrs);
  return op;
}

/* StableHLO's other constant form, `() <{value = ...}> {attrs} : () -> T`,
 * which quantized constants use: the literal holds the storage values and
 * T is the quantized tensor type. */
static Op *parse_constant_typed(Parser *p, Loc loc, OpParts *o, int nresults) {
  if (!p_expect(p, "(") || !p_expect(p, ")")) return NULL;
  if (p_accept(p, "<")) {
    if (!p_is(p, "{") || !merge_attr_dict(p, o) || !p_expect(p, ">")) return NULL;
  }
  if (!merge_attr_dict(p, o)) return NULL;
  if (!p_expect(p, ":") || !p_expect(p, "(") || !p_expect(p, ")") || !p_expect(p, "->")) return NULL;
  Type *t = parse_type(p);
  if (!t) return NULL;
  vec_push(&o->res_types, t);
  return build_op(p, OP_CONSTANT, loc, nresults, o, 0);
}

static Op *parse_constant_hook(Parser *p, Loc loc, OpParts *o, int nresults) {
  if (p_is(p, "(")) return parse_constant_typed(p, loc, o, nresults);
  if (!merge_attr_dict(p, o)) return NULL;
  Attr *v = parse_attr(p);
  if (!v) return NULL;
  if (v->kind != ATTR_DENSE && v->kind != ATTR_DENSE_RESOURCE) {
    p_error(p, loc, "%s expects a dense literal", op_info[o->kind].name);
    return NULL;
  }
  add_attr(p, o, "value", v);
  vec_push(&o->res_types, v->type);
  return build_op(p, o->kind, loc, nresults, o, 0);
}

static Op *parse_custom_call_hook(Parser *p, Loc loc, OpParts *o, int nresults) {
  if (!parse_symbol_name(p, o, "call_target_name")) return NULL;
  if (!p_expect(p, "(") || !parse_operand_list(p, o) || !p_expect(p, ")")) return NULL;
  if (!merge_attr_dict(p, o) || !p_expect(p, ":")) return NULL;
  if (!parse_types_directive(p, o, "fn", nresults)) return NULL;
  return build_op(p, OP_CUSTOM_CALL, loc, nresults, o, 0);
}

/* Region whose entry block args are given by the caller (pretty forms). */
static bool parse_region_with_args(Parser *p, Region *r, int n, Token **names, Type **types) {
  scope_push(p);
  Block *b = block_create(p->c, r, n, types);
  bool ok = true;
  for (int i = 0; ok && i < n; i++) ok = scope_define(p, names[i], &b->args[i], 1);
  region_add_block(p->c, r, b);
  ok = ok && p_expect(p, "{");
  while (ok && !p_is(p, "}")) {
    if (p->tok.kind == TOK_EOF || p->tok.kind == TOK_CARET) {
      p_error_here(p, "expected '}' to close the region");
      ok = false;
      break;
    }
    Op *inner = parse_op(p);
    if (!inner) ok = false;
    else op_append(b, inner);
  }
  scope_pop(p);
  return ok && p_expect(p, "}");
}

/* The "(%x init: %i), ..." operand list of the reduce form: inputs, then
 * inits, appended to o's operands; false after a diagnostic. */
static bool parse_reduce_operands(Parser *p, OpParts *o, int *n) {
  PtrVec inputs = {0}, inits = {0};
  bool ok = true;
  do {
    Value *x = NULL, *i = NULL;
    ok = p_expect(p, "(") && (x = parse_value_use(p));
    if (ok && !(p->tok.kind == TOK_IDENT && tok_is(&p->tok, "init"))) {
      p_error_here(p, "expected 'init:'");
      ok = false;
    }
    if (ok) p_next(p);
    ok = ok && p_expect(p, ":") && (i = parse_value_use(p)) && p_expect(p, ")");
    if (ok) {
      vec_push(&inputs, x);
      vec_push(&inits, i);
    }
  } while (ok && p_accept(p, ","));
  for (int i = 0; ok && i < inputs.len; i++) vec_push(&o->operands, inputs.items[i]);
  for (int i = 0; ok && i < inits.len; i++) vec_push(&o->operands, inits.items[i]);
  *n = inputs.len;
  vec_free(&inputs);
  vec_free(&inits);
  return ok;
}

/* "applies OP": the binary op named, OP_UNKNOWN when the form is absent;
 * false after a diagnostic. */
static bool parse_reduce_applies(Parser *p, OpKind *body_kind, Loc *body_loc) {
  *body_kind = OP_UNKNOWN;
  *body_loc = p->tok.loc;
  if (!(p->tok.kind == TOK_IDENT && tok_is(&p->tok, "applies"))) return true;
  p_next(p);
  *body_loc = p->tok.loc;
  if (p->tok.kind != TOK_IDENT) {
    p_error_here(p, "expected an op name after 'applies'");
    return false;
  }
  OpKind k = op_kind_from_name(p->tok.text, p->tok.len);
  if (k == OP_UNKNOWN || op_info[k].min_operands != 2 || op_info[k].max_operands != 2 ||
      op_info[k].num_results != 1 || !(op_info[k].traits & TRAIT_COMMUTATIVE) ||
      strncmp(op_info[k].name, "stablehlo.", 10) != 0) {
    p_error_here(p, "expected the inner-op to be a commutative binary-op from the stablehlo dialect, with zero "
                 "region, producing single result; found '%.*s'", (int)p->tok.len, p->tok.text);
    return false;
  }
  p_next(p);
  *body_kind = k;
  return true;
}

/* The body of "applies OP": ^bb0(%a: tensor<T>, %b: tensor<T>): r = OP(a, b);
 * return r; false after a diagnostic. */
static bool build_applies_body(Parser *p, Op *op, int n, OpKind body_kind, Loc body_loc) {
  if (n != 1 || op->operands[1]->type->kind != TY_TENSOR) {
    p_error(p, body_loc, "'applies' form needs exactly one input and a tensor init value");
    return false;
  }
  Type *t = type_scalar_tensor(p->c, op->operands[1]->type->elem);
  Type *ts[2] = {t, t};
  Block *b = block_create(p->c, &op->regions[0], 2, ts);
  region_add_block(p->c, &op->regions[0], b);
  Value *args[2] = {&b->args[0], &b->args[1]};
  Op *inner = op_create(p->c, body_kind, NULL, body_loc, 2, args, 1, ts, 0, NULL, 0);
  op_append(b, inner);
  Value *res = &inner->results[0];
  op_append(b, op_create(p->c, OP_RETURN, NULL, body_loc, 1, &res, 0, NULL, 0, NULL, 0));
  return true;
}

/* "reducer (%acc: T, %x: T) ... {...}" of n inputs: the block takes all
 * accumulators, then all inputs; false after a diagnostic. */
static bool parse_reducer(Parser *p, Loc loc, Op *op, int n) {
  if (!(p->tok.kind == TOK_IDENT && tok_is(&p->tok, "reducer"))) {
    p_error_here(p, "expected 'applies' or 'reducer'");
    return false;
  }
  p_next(p);
  Token *names[2 * 64];
  Type *types[2 * 64];
  if (n > 64) {
    p_error(p, loc, "too many reduce inputs");
    return false;
  }
  for (int i = 0; i < n; i++) {
    if (!p_expect(p, "(")) return false;
    for (int k = 0; k < 2; k++) {
      if (k && !p_expect(p, ",")) return false;
      if (p->tok.kind != TOK_PERCENT) {
        p_error_here(p, "expected block argument");
        return false;
      }
      names[k * n + i] = arena_dup(&p->c->arena, &p->tok, sizeof(Token));
      p_next(p);
      if (!p_expect(p, ":") || !(types[k * n + i] = parse_type(p))) return false;
    }
    if (!p_expect(p, ")")) return false;
  }
  return parse_region_with_args(p, &op->regions[0], 2 * n, names, types);
}

/* stablehlo.reduce(%x init: %i), ... applies OP | reducer(...) {...} */
static Op *parse_reduce_hook(Parser *p, Loc loc, OpParts *o, int nresults) {
  int n;
  OpKind body_kind;
  Loc body_loc;
  if (!parse_reduce_operands(p, o, &n) || !parse_reduce_applies(p, &body_kind, &body_loc)) return NULL;
  if (!p_expect(p, "across") || !p_expect(p, "dimensions") || !p_expect(p, "=")) return NULL;
  Attr *dims = parse_styled_attr(p, "arr");
  if (!dims) return NULL;
  add_attr(p, o, "dimensions", dims);
  if (!merge_attr_dict(p, o) || !p_expect(p, ":") || !parse_types_directive(p, o, "fn", nresults)) return NULL;
  Op *op = build_op(p, OP_REDUCE, loc, nresults, o, 1);
  if (!op) return NULL;
  bool ok = body_kind != OP_UNKNOWN ? build_applies_body(p, op, n, body_kind, body_loc) : parse_reducer(p, loc, op, n);
  return ok ? op : NULL;
}

/* stablehlo.while(%a = %x, ...) attributes {..}? : types cond {..} do {..} */
static Op *parse_while_hook(Parser *p, Loc loc, OpParts *o, int nresults) {
  PtrVec names = {0};
  Op *op = NULL;
  if (!p_expect(p, "(")) goto out;
  if (!p_is(p, ")")) {
    do {
      if (p->tok.kind != TOK_PERCENT) {
        p_error_here(p, "expected loop variable name");
        goto out;
      }
      vec_push(&names, arena_dup(&p->c->arena, &p->tok, sizeof(Token)));
      p_next(p);
      if (!p_expect(p, "=")) goto out;
      Value *v = parse_value_use(p);
      if (!v) goto out;
      vec_push(&o->operands, v);
    } while (p_accept(p, ","));
  }
  if (!p_expect(p, ")")) goto out;
  if (!parse_attributes_keyword(p, o)) goto out;
  if (o->operands.len) {
    if (!p_expect(p, ":") || !parse_types_directive(p, o, "ops", nresults)) goto out;
  }
  for (int i = 0; i < o->op_types.len; i++) vec_push(&o->res_types, o->op_types.items[i]);
  op = build_op(p, OP_WHILE, loc, nresults, o, 2);
  if (!op) goto out;
  static const char *const kw[2] = {"cond", "do"};
  for (int r = 0; r < 2; r++) {
    if (!(p->tok.kind == TOK_IDENT && tok_is(&p->tok, kw[r]))) {
      p_error_here(p, "expected '%s' region", kw[r]);
      op = NULL;
      goto out;
    }
    p_next(p);
    if (!parse_region_with_args(p, &op->regions[r], names.len, (Token **)names.items, (Type **)o->op_types.items)) {
      op = NULL;
      goto out;
    }
  }
out:
  vec_free(&names);
  return op;
}

/* chlo.scan(%inputs) inits(%inits) dimension=N attributes {..}? {region} : fn */
static Op *parse_scan_hook(Parser *p, Loc loc, OpParts *o, int nresults) {
  if (!p_expect(p, "(") || !parse_operand_list(p, o) || !p_expect(p, ")")) return NULL;
  int ninputs = o->operands.len;
  if (!p_expect(p, "inits")) return NULL;
  if (!p_expect(p, "(") || !parse_operand_list(p, o) || !p_expect(p, ")")) return NULL;
  if (!p_expect(p, "dimension")) return NULL;
  if (!p_expect(p, "=")) return NULL;
  Attr *dim = parse_styled_attr(p, "i64");
  if (!dim) return NULL;
  add_attr(p, o, "dimension", dim);
  int64_t seg[2] = {ninputs, o->operands.len - ninputs};
  Attr *segs = attr_dense_i64_array(p->c, 2, seg);
  ((Attr *)segs)->u.darray.elem = ELEM_I32;
  add_attr(p, o, "operandSegmentSizes", segs);
  if (!parse_attributes_keyword(p, o)) return NULL;
  Region tmp = {0};
  if (!parse_region(p, &tmp, -1, NULL, NULL)) return NULL;
  if (!p_expect(p, ":") || !parse_types_directive(p, o, "fn", nresults)) return NULL;
  Op *op = build_op(p, OP_CHLO_SCAN, loc, nresults, o, 1);
  if (!op) return NULL;
  op->regions[0] = tmp;
  op->regions[0].parent = op;
  for (int b = 0; b < tmp.nblocks; b++) tmp.blocks[b]->parent = &op->regions[0];
  return op;
}

/* Appends the raw text of the tokens from the current one through its
 * matching close (open is "[" or "{") to f; false after a diagnostic. */
static bool sdy_raw_group(Parser *p, FILE *f, const char *open, const char *close) {
  if (!p_is(p, open)) {
    p_error_here(p, "expected '%s'", open);
    return false;
  }
  int depth = 0;
  do {
    if (p->tok.kind == TOK_EOF || p->tok.kind == TOK_ERROR) {
      p_error_here(p, "expected '%s'", close);
      return false;
    }
    if (p_is(p, "<")) { /* a sharding: kept as written */
      const char *start = p->tok.text, *end;
      if (!skip_balanced_angles(p, &end)) return false;
      fwrite(start, 1, (size_t)(end - start), f);
      continue;
    }
    if (p_is(p, open)) depth++;
    if (p_is(p, close)) depth--;
    fwrite(p->tok.text, 1, p->tok.len, f);
    if (p_is(p, ",")) fputc(' ', f);
    p_next(p);
  } while (depth > 0);
  return true;
}

/* `keyword=` then a raw group, stored under keyword as prefix + group +
 * ">" (opaque, as the generic form writes it); false after a diagnostic. */
static bool parse_sdy_group(Parser *p, OpParts *o, const char *keyword, const char *prefix, const char *open,
                            const char *close) {
  if (!(p->tok.kind == TOK_IDENT && tok_is(&p->tok, keyword))) {
    p_error_here(p, "expected '%s'", keyword);
    return false;
  }
  p_next(p);
  if (!p_expect(p, "=")) return false;
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f) die("open_memstream failed");
  fputs(prefix, f);
  bool ok = sdy_raw_group(p, f, open, close);
  fputc('>', f);
  fclose(f);
  if (ok) add_attr(p, o, keyword, attr_opaque(p->c, text, len));
  free(text);
  return ok;
}

/* sdy.manual_computation(%xs) in_shardings=[<..>, ..] out_shardings=[..]
 * manual_axes={"x", ..} (%args: types) {body} {attrs}? : fn (Shardy's form) */
static Op *parse_sdy_manual_hook(Parser *p, Loc loc, OpParts *o, int nresults) {
  PtrVec names = {0}, types = {0};
  Region tmp = {0};
  Op *op = NULL;
  if (!p_expect(p, "(") || !parse_operand_list(p, o) || !p_expect(p, ")")) goto out;
  if (!parse_sdy_group(p, o, "in_shardings", "#sdy.sharding_per_value<", "[", "]") ||
      !parse_sdy_group(p, o, "out_shardings", "#sdy.sharding_per_value<", "[", "]") ||
      !parse_sdy_group(p, o, "manual_axes", "#sdy<manual_axes", "{", "}"))
    goto out;
  if (!parse_block_args(p, &names, &types)) goto out;
  if (!parse_region_with_args(p, &tmp, names.len, (Token **)names.items, (Type **)types.items)) goto out;
  if (!merge_attr_dict(p, o) || !p_expect(p, ":") || !parse_types_directive(p, o, "fn", nresults)) goto out;
  op = build_op(p, OP_SDY_MANUAL_COMPUTATION, loc, nresults, o, 1);
  if (!op) goto out;
  op->regions[0] = tmp;
  op->regions[0].parent = op;
  for (int b = 0; b < tmp.nblocks; b++) tmp.blocks[b]->parent = &op->regions[0];
out:
  vec_free(&names);
  vec_free(&types);
  return op;
}

/* The parsers of the whole-op hooks (ir/hooks.def); NULL for fragment hooks. */
static Op *(*const whole_parsers[HOOK_COUNT])(Parser *p, Loc loc, OpParts *o, int nresults) = {
#define WHOLE_HOOK(id, name) [HOOK_##id] = parse_##name##_hook,
#define FRAGMENT_HOOK(id, name)
#include "ir/hooks.def"
#undef WHOLE_HOOK
#undef FRAGMENT_HOOK
};

bool parse_custom_op(Parser *p, OpKind kind, Loc loc, int nresults, Op **out) {
  const char *fmt = op_info[kind].format;
  FmtHook hook = fmt_whole_hook(fmt);
  OpParts o = {.kind = kind};
  Op *op = NULL;
  if (hook == HOOK_NONE) {
    if (parse_formatted(p, &o, fmt, nresults)) op = build_op(p, kind, loc, nresults, &o, 0);
  } else if (whole_parsers[hook]) {
    op = whole_parsers[hook](p, loc, &o, nresults);
  } else {
    die("@%s is a fragment hook, not an op's whole format", fmt_hook_name(hook));
  }
  parts_free(&o);
  *out = op;
  return op != NULL;
}
