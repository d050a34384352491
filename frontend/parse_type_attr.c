/* Parsing of types and attributes, including dense literals (integers of any
 * width are read exactly with GMP and range-checked against their type). */
#include <ctype.h>
#include <errno.h>
#include <gmp.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/parse_internal.h"
#include "ir/quant.h"

/* ------------------------------------------------------------ types */

static Attr *parse_number_attr(Parser *p);
static Type *parse_type_uncached(Parser *p);

/* The type a !name = type alias defined (consuming its token), or NULL. */
static Type *type_alias_value(Parser *p, const Token *t) {
  for (int i = 0; i < p->aliases.len; i++) {
    AttrAlias *al = p->aliases.items[i];
    if (al->type && al->len == t->len && memcmp(al->name, t->text, t->len) == 0) {
      p_next(p);
      return al->type;
    }
  }
  return NULL;
}

/* Parse the inside of tensor<...> at the character level: dims are written
 * glued to 'x' (2x?x3xf32), which tokens cannot express. */
static Type *parse_tensor_body(Parser *p, Loc loc) {
  Lexer *lx = &p->lex;
  lexer_reset_to(lx, &p->tok);
  PtrVec dimv = {0};
  int64_t dims[64];
  int rank = 0;
  bool unranked = false;
  for (;;) {
    lexer_skip_space(lx);
    const char *s = lx->p;
    if (s < lx->end && *s == '*' && s + 1 < lx->end && s[1] == 'x') {
      if (unranked || rank > 0) {
        p_error(p, lexer_loc(lx), "'*' (unranked) must be the only dimension of a tensor type");
        return NULL;
      }
      unranked = true;
      lx->p += 2;
      lx->col += 2;
      continue;
    }
    if ((s < lx->end && *s == '?') || (s < lx->end && isdigit((unsigned char)*s))) {
      if (unranked) {
        p_error(p, lexer_loc(lx), "an unranked tensor type cannot have dimensions");
        return NULL;
      }
    }
    if (s < lx->end && *s == '?' && s + 1 < lx->end && s[1] == 'x') {
      if (rank == 64) break;
      dims[rank++] = DIM_DYNAMIC;
      lx->p += 2;
      lx->col += 2;
      continue;
    }
    const char *q = s;
    while (q < lx->end && isdigit((unsigned char)*q)) q++;
    if (q > s && q < lx->end && *q == 'x') {
      if (rank == 64) {
        vec_free(&dimv);
        p_error(p, loc, "tensor rank above 64 is not supported");
        return NULL;
      }
      errno = 0;
      long long d = strtoll(s, NULL, 10);
      if (errno == ERANGE) {
        p_error(p, lexer_loc(lx), "dimension size does not fit in 64 bits");
        return NULL;
      }
      dims[rank++] = d;
      lx->col += (uint32_t)(q + 1 - s);
      lx->p = q + 1;
      continue;
    }
    break;
  }
  vec_free(&dimv);
  p_next(p);
  Type *elem = parse_type(p);
  if (!elem) return NULL;
  Attr *encoding = NULL;
  if (p_accept(p, ",")) {
    encoding = parse_attr(p);
    if (!encoding) return NULL;
  }
  if (!p_expect(p, ">")) return NULL;
  const char *why = unranked ? NULL : type_shape_check(p->c, rank, dims, encoding);
  if (why) {
    p_error(p, loc, "%s", why);
    return NULL;
  }
  if (encoding) encoding = type_bounds_canonical(p->c, encoding);
  if (elem->kind == TY_ELEM)
    return type_tensor(p->c, elem->elem, unranked ? -1 : rank, dims, encoding);
  if (elem->kind == TY_OPAQUE)
    return type_tensor_opaque_elem(p->c, elem, unranked ? -1 : rank, dims, encoding);
  p_error(p, loc, "invalid tensor element type");
  return NULL;
}

/* Skip the balanced <...> text starting at the current token '<', at the
 * character level as MLIR does for dialect types and attributes: any text is
 * allowed inside, '->' does not close, strings are skipped whole. */
bool skip_balanced_angles(Parser *p, const char **end_text) {
  const char *q = p->tok.text, *e = p->lex.end;
  Loc start = p->tok.loc;
  int depth = 0;
  for (; q < e; q++) {
    char ch = *q;
    if (ch == '"') {
      for (q++; q < e && *q != '"' && *q != '\n' && *q != 0; q++)
        if (*q == '\\' && q + 1 < e && q[1] != 0) q++;
      if (q >= e || *q != '"') break;
    } else if (ch == '<') {
      depth++;
    } else if (ch == '>' && !(q > p->tok.text && q[-1] == '-')) {
      if (--depth == 0) break;
    } else if (ch == 0) {
      break;
    }
  }
  if (q >= e || *q != '>') {
    p_error(p, start, "unbalanced '<' in dialect type or attribute");
    return false;
  }
  *end_text = q + 1;
  /* Re-sync the lexer after the closing '>' (the text may span lines). */
  lexer_reset_to(&p->lex, &p->tok);
  for (const char *r = p->tok.text; r <= q; r++) {
    if (*r == '\n') {
      p->lex.line++;
      p->lex.col = 1;
    } else {
      p->lex.col++;
    }
  }
  p->lex.p = q + 1;
  p_next(p);
  return true;
}

Type *parse_function_type(Parser *p) {
  PtrVec in = {0}, out = {0};
  if (!parse_type_list_parens(p, &in)) {
    vec_free(&in);
    return NULL;
  }
  if (!p_expect(p, "->")) {
    vec_free(&in);
    return NULL;
  }
  if (p_is(p, "(")) {
    if (!parse_type_list_parens(p, &out)) {
      vec_free(&in);
      vec_free(&out);
      return NULL;
    }
  } else {
    Type *t = parse_type(p);
    if (!t) {
      vec_free(&in);
      return NULL;
    }
    vec_push(&out, t);
  }
  Type *f = type_func(p->c, in.len, (Type **)in.items, out.len, (Type **)out.items);
  vec_free(&in);
  vec_free(&out);
  return f;
}

bool parse_type_list_parens(Parser *p, PtrVec *out) {
  if (!p_expect(p, "(")) return false;
  if (p_accept(p, ")")) return true;
  do {
    Type *t = parse_type(p);
    if (!t) return false;
    vec_push(out, t);
  } while (p_accept(p, ","));
  return p_expect(p, ")");
}

/* The location of byte OFF of a type's text that starts at AT. */
static Loc quant_error_loc(Loc at, const char *text, size_t off) {
  for (size_t i = 0; i < off; i++) {
    if (text[i] == '\n') {
      at.line++;
      at.col = 1;
    } else {
      at.col++;
    }
  }
  return at;
}

/* Any other !dialect.type<...> after its name token T: kept as text; a
 * !quant.uniform must parse (ir/quant.c), else a located error. */
static Type *parse_dialect_type(Parser *p, const Token *t) {
  const char *end = t->text + t->len;
  if (p_is(p, "<") && !skip_balanced_angles(p, &end)) return NULL;
  size_t n = (size_t)(end - t->text), off;
  QuantType q;
  char err[120];
  if (quant_is_uniform_text(t->text, n) && !quant_parse(&p->c->arena, t->text, n, &q, &off, err, sizeof err)) {
    p_error(p, quant_error_loc(t->loc, t->text, off), "%s", err);
    return NULL;
  }
  return type_opaque(p->c, t->text, n);
}

/* Length of the one-line "tensor<...>" spelling at s, or 0. */
static size_t tensor_spelling_len(const char *s, const char *end) {
  if (end - s < 8 || s[6] != '<') return 0;
  int depth = 0;
  for (const char *q = s + 6; q < end && q - s < 512; q++) {
    if (*q == '<') depth++;
    else if (*q == '>' && q[-1] != '-' && --depth == 0) return (size_t)(q + 1 - s);
    else if (*q == '\n' || *q == '"' || *q == '/') return 0;
  }
  return 0;
}

/* The <T, ...> of !stablehlo.future: ranked tensors. */
static Type *parse_future_type(Parser *p) {
  if (!p_expect(p, "<")) return NULL;
  PtrVec elems = {0};
  Type *result = NULL;
  do {
    Loc loc = p->tok.loc;
    Type *e = parse_type(p);
    if (!e) goto out;
    if (e->kind != TY_TENSOR || e->rank < 0) {
      p_error(p, loc, "future element type must be a ranked tensor, but got '%s'", type_to_string(p->c, e));
      goto out;
    }
    vec_push(&elems, e);
  } while (p_accept(p, ","));
  if (p_expect(p, ">")) result = type_future(p->c, (int)elems.len, (Type *const *)elems.items);
out:
  vec_free(&elems);
  return result;
}

Type *parse_type(Parser *p) {
  Token t = p->tok;
  /* Most of a StableHLO file is tensor types: reuse each spelling's type. */
  size_t span = t.kind == TOK_IDENT && t.len == 6 && memcmp(t.text, "tensor", 6) == 0
                    ? tensor_spelling_len(t.text, p->lex.end) : 0;
  if (span) {
    void **known = table_get(&p->type_memo, t.text, span);
    if (known) {
      p->lex.p = t.text + span;
      p->lex.col = t.loc.col + (uint32_t)span;
      p_next(p);
      return *known;
    }
  }
  Type *parsed = parse_type_uncached(p);
  if (span && parsed && p->tok.text >= t.text + span) {
    bool only_space = true;
    for (const char *q = t.text + span; q < p->tok.text; q++)
      if (*q != ' ' && *q != '\t' && *q != '\n' && *q != '\r') only_space = false;
    if (only_space) *table_put(&p->type_memo, t.text, span) = parsed;
  }
  return parsed;
}

static Type *parse_type_uncached(Parser *p) {
  Token t = p->tok;
  if (++p->depth > PARSE_MAX_DEPTH) {
    p_error_here(p, "types nested too deeply");
    p->depth--;
    return NULL;
  }
  Type *result = NULL;
  if (t.kind == TOK_IDENT) {
    ElemKind k;
    if (tok_is(&t, "tensor")) {
      p_next(p);
      if (p_is(p, "<")) {
        p_next(p);
        result = parse_tensor_body(p, t.loc);
      }
      else p_error_here(p, "expected '<' after 'tensor'");
    } else if (tok_is(&t, "tuple")) {
      p_next(p);
      PtrVec elems = {0};
      if (p_expect(p, "<")) {
        bool ok = true;
        if (!p_is(p, ">")) {
          do {
            Type *e = parse_type(p);
            if (!e) {
              ok = false;
              break;
            }
            vec_push(&elems, e);
          } while (p_accept(p, ","));
        }
        if (ok && p_expect(p, ">")) result = type_tuple(p->c, elems.len, (Type **)elems.items);
      }
      vec_free(&elems);
    } else if (tok_is(&t, "complex")) {
      p_next(p);
      if (p_expect(p, "<")) {
        Type *part = parse_type(p);
        if (part && p_expect(p, ">")) {
          if (part == type_elem(p->c, ELEM_F32)) result = type_elem(p->c, ELEM_C64);
          else if (part == type_elem(p->c, ELEM_F64)) result = type_elem(p->c, ELEM_C128);
          else p_error(p, t.loc, "only complex<f32> and complex<f64> are supported");
        }
      }
    } else if (tok_is(&t, "none")) {
      p_next(p);
      result = type_none(p->c);
    } else if (tok_is(&t, "memref")) { /* VHLO's buffer_v1: kept as its text */
      p_next(p);
      result = parse_dialect_type(p, &t);
    } else if (elem_from_name(t.text, t.len, &k)) {
      p_next(p);
      result = type_elem(p->c, k);
    } else if (t.len > 1 && (t.text[0] == 'i' || t.text[0] == 'u' || t.text[0] == 's') &&
               isdigit((unsigned char)t.text[t.len - 1])) {
      p_error(p, t.loc, "unsupported integer type '%.*s' (widths 1, 2, 4, 8, 16, 32, 64 are supported)",
              (int)t.len, t.text);
    } else {
      p_error(p, t.loc, "expected type, found '%.*s'", (int)t.len, t.text);
    }
  } else if (t.kind == TOK_BANG) {
    if (t.len == 16 && memcmp(t.text, "!stablehlo.token", 16) == 0) {
      p_next(p);
      result = type_token(p->c);
    } else if (t.len == 17 && memcmp(t.text, "!stablehlo.future", 17) == 0) {
      p_next(p);
      result = parse_future_type(p);
    } else if (!(result = type_alias_value(p, &t))) {
      p_next(p);
      result = parse_dialect_type(p, &t);
    }
  } else if (p_is(p, "(")) {
    result = parse_function_type(p);
  } else {
    p_error_here(p, "expected type");
  }
  p->depth--;
  return result;
}

/* ------------------------------------------------------------ numbers */

/* The current integer token's value (decimal or 0x hex), not consumed;
 * false after an error there. */
static bool token_u64(Parser *p, uint64_t *out) {
  if (p->tok.kind != TOK_INT) {
    p_error_here(p, "expected integer");
    return false;
  }
  errno = 0;
  bool hex = p->tok.len > 2 && p->tok.text[1] == 'x';
  unsigned long long v = strtoull(p->tok.text, NULL, hex ? 16 : 10);
  if (errno == ERANGE) {
    p_error_here(p, "integer does not fit in 64 bits");
    return false;
  }
  *out = v;
  return true;
}

bool parse_uint64(Parser *p, uint64_t *out) {
  if (!token_u64(p, out)) return false;
  p_next(p);
  return true;
}

bool parse_int64(Parser *p, int64_t *out) {
  bool neg = p_accept(p, "-");
  uint64_t v;
  if (!token_u64(p, &v)) return false;
  if (v > (uint64_t)INT64_MAX + (neg ? 1 : 0)) {
    p_error_here(p, "integer does not fit in 64 bits");
    return false;
  }
  *out = neg ? (int64_t)(0 - v) : (int64_t)v;
  p_next(p);
  return true;
}

bool parse_i64_list(Parser *p, int *n, int64_t **v) {
  if (!p_expect(p, "[")) return false;
  int cap = 8, len = 0;
  int64_t *buf = xrealloc(NULL, sizeof(int64_t) * (size_t)cap);
  if (!p_is(p, "]")) {
    do {
      int64_t x;
      if (!parse_int64(p, &x)) {
        free(buf);
        return false;
      }
      if (len == cap) buf = xrealloc(buf, sizeof(int64_t) * (size_t)(cap *= 2));
      buf[len++] = x;
    } while (p_accept(p, ","));
  }
  if (!p_expect(p, "]")) {
    free(buf);
    return false;
  }
  *v = arena_dup(&p->c->arena, buf, sizeof(int64_t) * (size_t)len);
  *n = len;
  free(buf);
  return true;
}

/* Range check and truncate an integer literal for element kind k.  digits
 * excludes the sign; hex when it starts with 0x. */
static bool int_literal_bits(Parser *p, Loc loc, ElemKind k, bool neg, const char *digits, size_t len,
                             uint64_t *out) {
  int width = elem_bits(k);
  ElemClass cls = elem_class(k);
  bool hex = len > 2 && digits[0] == '0' && digits[1] == 'x';
  size_t ndig = hex ? len - 2 : len;
  if (ndig <= (hex ? 15u : 18u)) {
    /* Fast path: fits comfortably in int64. */
    int64_t v = (int64_t)strtoull(digits, NULL, hex ? 16 : 10);
    if (neg) v = -v;
    int64_t lo, hi;
    if (cls == EC_UINT) {
      lo = 0;
      hi = width == 64 ? INT64_MAX : (int64_t)((1ull << width) - 1);
    } else if (cls == EC_SINT) {
      lo = width == 64 ? INT64_MIN : -(int64_t)(1ull << (width - 1));
      hi = width == 64 ? INT64_MAX : (int64_t)((1ull << (width - 1)) - 1);
    } else {
      lo = width == 64 ? INT64_MIN : -(int64_t)(1ull << (width - 1));
      hi = width == 64 ? INT64_MAX : (int64_t)((1ull << width) - 1);
    }
    if (k == ELEM_I1) lo = -1, hi = 1;
    if (v < lo || v > hi) {
      p_error(p, loc, "integer literal %s%.*s is out of range for type %s", neg ? "-" : "", (int)len, digits,
              elem_name(k));
      return false;
    }
    *out = (uint64_t)v;
    return true;
  }
  mpz_t z, lo, hi;
  char *buf = xrealloc(NULL, ndig + 1);
  memcpy(buf, digits + (hex ? 2 : 0), ndig);
  buf[ndig] = 0;
  mpz_init(z);
  mpz_init(lo);
  mpz_init(hi);
  bool ok = mpz_set_str(z, buf, hex ? 16 : 10) == 0;
  free(buf);
  if (neg) mpz_neg(z, z);
  if (cls == EC_UINT) {
    mpz_set_ui(lo, 0);
    mpz_ui_pow_ui(hi, 2, (unsigned long)width);
  } else if (cls == EC_SINT) {
    mpz_ui_pow_ui(hi, 2, (unsigned long)width - 1);
    mpz_neg(lo, hi);
  } else {
    mpz_ui_pow_ui(hi, 2, (unsigned long)width - 1);
    mpz_neg(lo, hi);
    mpz_mul_ui(hi, hi, 2);
  }
  mpz_sub_ui(hi, hi, 1);
  if (!ok || mpz_cmp(z, lo) < 0 || mpz_cmp(z, hi) > 0) {
    p_error(p, loc, "integer literal %s%.*s is out of range for type %s", neg ? "-" : "", (int)len, digits,
            elem_name(k));
    ok = false;
  } else {
    /* Two's complement truncation to 64 bits. */
    mpz_t m;
    mpz_init(m);
    mpz_fdiv_r_2exp(m, z, 64);
    uint64_t v = 0;
    size_t count = 0;
    mpz_export(&v, &count, -1, sizeof v, 0, 0, m);
    *out = v;
    mpz_clear(m);
  }
  mpz_clear(z);
  mpz_clear(lo);
  mpz_clear(hi);
  return ok;
}

/* A scalar literal read before its type is known. */
typedef struct Lit {
  enum { LIT_INT, LIT_FLOAT, LIT_BOOL, LIT_WORD } kind; /* WORD: inf / nan */
  bool neg;
  const char *text;
  size_t len;
  Loc loc;
} Lit;

typedef struct LitVec {
  Lit *items;
  size_t len, cap;
} LitVec;

static void lit_push(LitVec *v, Lit l) {
  if (v->len == v->cap) {
    v->cap = v->cap ? v->cap * 2 : 64;
    v->items = xrealloc(v->items, sizeof(Lit) * v->cap);
  }
  v->items[v->len++] = l;
}

static bool parse_scalar_lit(Parser *p, Lit *out) {
  out->neg = false;
  out->loc = p->tok.loc;
  if (p_accept(p, "-")) out->neg = true;
  else p_accept(p, "+");
  Token t = p->tok;
  out->text = t.text;
  out->len = t.len;
  if (t.kind == TOK_INT) out->kind = LIT_INT;
  else if (t.kind == TOK_FLOAT) out->kind = LIT_FLOAT;
  else if (tok_is(&t, "true") || tok_is(&t, "false")) out->kind = LIT_BOOL;
  else if (tok_is(&t, "inf") || tok_is(&t, "nan")) out->kind = LIT_WORD;
  else {
    p_error_here(p, "expected an element literal");
    return false;
  }
  p_next(p);
  return true;
}

/* Parse nested [..] lists of literals (complex as (re, im)), recording the
 * shape found at each depth. */
static bool parse_lit_nested(Parser *p, LitVec *lits, int depth, int64_t *shape, int *rank, bool *shape_set,
                             bool *is_complex) {
  if (depth > 64) {
    p_error_here(p, "dense literal nested too deeply");
    return false;
  }
  if (p_is(p, "[")) {
    p_next(p);
    int64_t count = 0;
    if (!p_is(p, "]")) {
      do {
        if (!parse_lit_nested(p, lits, depth + 1, shape, rank, shape_set, is_complex)) return false;
        count++;
      } while (p_accept(p, ","));
    }
    if (!p_expect(p, "]")) return false;
    if (!shape_set[depth]) {
      shape_set[depth] = true;
      shape[depth] = count;
      if (depth + 1 > *rank) *rank = depth + 1;
    } else if (shape[depth] != count) {
      p_error_here(p, "dense literal has inconsistent nested list lengths");
      return false;
    }
    return true;
  }
  if (*rank > depth && shape_set[depth]) {
    p_error_here(p, "dense literal mixes scalars and lists at one depth");
    return false;
  }
  Lit l;
  if (p_is(p, "(")) {
    p_next(p);
    *is_complex = true;
    if (!parse_scalar_lit(p, &l)) return false;
    lit_push(lits, l);
    if (!p_expect(p, ",")) return false;
    if (!parse_scalar_lit(p, &l)) return false;
    lit_push(lits, l);
    return p_expect(p, ")");
  }
  if (!parse_scalar_lit(p, &l)) return false;
  lit_push(lits, l);
  return true;
}

/* Convert one scalar literal to the bits of element kind k. */
static bool lit_to_bits(Parser *p, const Lit *l, ElemKind k, uint64_t *out) {
  if (elem_is_int(k) || k == ELEM_INDEX) {
    if (l->kind == LIT_BOOL) {
      if (k != ELEM_I1) {
        p_error(p, l->loc, "boolean literal for non-i1 element type %s", elem_name(k));
        return false;
      }
      *out = l->text[0] == 't';
      return true;
    }
    if (l->kind != LIT_INT) {
      p_error(p, l->loc, "expected integer literal for element type %s", elem_name(k));
      return false;
    }
    if (!int_literal_bits(p, l->loc, k == ELEM_INDEX ? ELEM_I64 : k, l->neg, l->text, l->len, out)) return false;
    if (k == ELEM_I1) *out = *out & 1;
    return true;
  }
  if (elem_is_float(k)) {
    if (l->kind == LIT_BOOL) {
      p_error(p, l->loc, "boolean literal for float element type %s", elem_name(k));
      return false;
    }
    if (l->kind == LIT_INT && l->len > 2 && l->text[1] == 'x') {
      /* Hex bit pattern. */
      errno = 0;
      unsigned long long v = strtoull(l->text, NULL, 16);
      int w = elem_bits(k);
      if (errno == ERANGE || l->neg || (w < 64 && v >> w)) {
        p_error(p, l->loc, "hexadecimal float literal does not fit in %s", elem_name(k));
        return false;
      }
      *out = v;
      return true;
    }
    double d;
    if (l->kind == LIT_WORD) d = l->text[0] == 'i' ? INFINITY : NAN;
    else {
      char buf[512];
      size_t n = l->len < sizeof buf - 1 ? l->len : sizeof buf - 1;
      memcpy(buf, l->text, n);
      buf[n] = 0;
      d = strtod(buf, NULL);
    }
    if (l->neg) d = -d;
    *out = double_to_float_bits(k, d);
    return true;
  }
  p_error(p, l->loc, "literal for unsupported element type %s", elem_name(k));
  return false;
}

static bool parse_hex_blob(Parser *p, const Token *t, uint8_t **data, size_t *nbytes) {
  /* "0x" followed by an even number of hex digits. */
  const char *s = t->text + 1, *e = t->text + t->len - 1;
  if (e - s < 2 || s[0] != '0' || s[1] != 'x' || (e - s) % 2) {
    p_error(p, t->loc, "expected a hex string \"0x...\" with an even number of digits");
    return false;
  }
  s += 2;
  size_t n = (size_t)(e - s) / 2;
  uint8_t *buf = arena_alloc(&p->c->arena, n ? n : 1);
  for (size_t i = 0; i < n; i++) {
    char hi = s[2 * i], lo = s[2 * i + 1];
    if (!isxdigit((unsigned char)hi) || !isxdigit((unsigned char)lo)) {
      p_error(p, t->loc, "invalid hex digit in hex string");
      return false;
    }
    int h = isdigit((unsigned char)hi) ? hi - '0' : (tolower(hi) - 'a' + 10);
    int l = isdigit((unsigned char)lo) ? lo - '0' : (tolower(lo) - 'a' + 10);
    buf[i] = (uint8_t)(h * 16 + l);
  }
  *data = buf;
  *nbytes = n;
  return true;
}

static void store_bits(uint8_t *dst, uint64_t bits, int nbytes) { memcpy(dst, &bits, (size_t)nbytes); }

static Resource *parser_resource(Parser *p, const char *name, size_t len);

/* dense_resource<name> : type, after its keyword. */
static Attr *parse_dense_resource_body(Parser *p, Loc loc) {
  if (p->tok.kind != TOK_IDENT) {
    p_error_here(p, "expected resource name");
    return NULL;
  }
  Token name = p->tok;
  p_next(p);
  if (!p_expect(p, ">") || !p_expect(p, ":")) return NULL;
  Type *t = parse_type(p);
  if (!t) return NULL;
  if (t->kind != TY_TENSOR) {
    p_error(p, loc, "dense_resource requires a tensor type");
    return NULL;
  }
  Attr *a = arena_alloc(&p->c->arena, sizeof(Attr));
  a->kind = ATTR_DENSE_RESOURCE;
  a->type = t;
  a->u.resource.name = parser_resource(p, name.text, name.len)->name;
  return a;
}

/* The literal of a dense<...> (its elements are a, of type t with n
 * elements): the hex blob's bytes; false after a diagnostic. */
static bool dense_from_hex(Parser *p, Loc loc, Attr *a, int64_t n, uint8_t *hex_data, size_t hex_bytes) {
  int esz = elem_storage_bytes(a->type->elem);
  a->u.dense.form = DENSE_HEX;
  if ((int64_t)hex_bytes == esz && n != 1) {
    a->u.dense.splat = true;
  } else if (n > INT64_MAX / esz || (int64_t)hex_bytes != n * esz) {
    p_error(p, loc, "hex dense literal has %zu bytes but type '%s' needs %lld", hex_bytes,
            type_to_string(p->c, a->type), n > INT64_MAX / esz ? -1LL : (long long)(n * esz));
    return false;
  }
  a->u.dense.data = hex_data;
  a->u.dense.nbytes = hex_bytes;
  return true;
}

/* The literal of a dense<...> from its nested list of literals (shape of
 * the given rank, complex when (re, im) pairs); false after a diagnostic. */
static bool dense_from_literals(Parser *p, Loc loc, Attr *a, int64_t n, const LitVec *lits, const int64_t *shape,
                                int rank, bool is_complex) {
  const Type *t = a->type;
  ElemKind k = t->elem;
  if (is_complex != elem_is_complex(k)) {
    p_error(p, loc, is_complex ? "complex literal for non-complex element type %s"
                               : "complex element type %s needs (re, im) literals", elem_name(k));
    return false;
  }
  size_t per = is_complex ? 2 : 1;
  int64_t count = (int64_t)(lits->len / per);
  bool splat = rank == 0 && count == 1;
  if (!splat) {
    bool ok = rank == t->rank;
    for (int i = 0; ok && i < rank; i++) ok = shape[i] == t->dims[i];
    if (!ok) {
      p_error(p, loc, "dense literal shape does not match type '%s'", type_to_string(p->c, t));
      return false;
    }
  }
  int esz = elem_storage_bytes(k);
  uint8_t *data = arena_alloc(&p->c->arena, (size_t)(count ? count : 1) * (size_t)esz);
  ElemKind part = is_complex ? elem_complex_part(k) : k;
  int psz = elem_storage_bytes(part);
  for (size_t i = 0; i < lits->len; i++) {
    uint64_t bits;
    if (!lit_to_bits(p, &lits->items[i], part, &bits)) return false;
    store_bits(data + i * (size_t)psz, bits, psz);
  }
  a->u.dense.data = data;
  a->u.dense.nbytes = (size_t)count * (size_t)esz;
  a->u.dense.splat = splat && n != 1;
  return true;
}

/* After the keyword 'dense' (or dense_resource): '<' body '>' ':' type. */
static Attr *parse_dense_body_with_type(Parser *p, Loc loc, bool is_dense) {
  if (!p_expect(p, "<")) return NULL;
  if (!is_dense) return parse_dense_resource_body(p, loc);
  LitVec lits = {0};
  int64_t shape[66] = {0};
  bool shape_set[66] = {0};
  int rank = 0;
  bool is_complex = false, hex = false, empty = false;
  uint8_t *hex_data = NULL;
  size_t hex_bytes = 0;
  Attr *result = NULL;
  if (p->tok.kind == TOK_STRING) {
    hex = true;
    Token t = p->tok;
    p_next(p);
    if (!parse_hex_blob(p, &t, &hex_data, &hex_bytes)) goto out;
  } else if (p_is(p, ">")) {
    empty = true;
  } else if (!parse_lit_nested(p, &lits, 0, shape, &rank, shape_set, &is_complex)) {
    goto out;
  }
  if (!p_expect(p, ">") || !p_expect(p, ":")) goto out;
  Type *t = parse_type(p);
  if (!t) goto out;
  if (t->kind != TY_TENSOR || !type_is_static(t) || t->elem_opaque) {
    p_error(p, loc, "dense literal requires a statically shaped tensor type, got '%s'", type_to_string(p->c, t));
    goto out;
  }
  int64_t n;
  if (!type_tensor_num_elements(t, &n)) {
    p_error(p, loc, "dense literal type has too many elements");
    goto out;
  }
  Attr *a = arena_alloc(&p->c->arena, sizeof(Attr));
  a->kind = ATTR_DENSE;
  a->type = t;
  if (empty && n != 0) {
    p_error(p, loc, "empty dense literal for type '%s' with %lld elements", type_to_string(p->c, t), (long long)n);
    goto out;
  }
  if (empty) a->u.dense.data = arena_alloc(&p->c->arena, 1);
  if (empty || (hex ? dense_from_hex(p, loc, a, n, hex_data, hex_bytes)
                    : dense_from_literals(p, loc, a, n, &lits, shape, rank, is_complex)))
    result = a;
out:
  free(lits.items);
  return result;
}

/* ------------------------------------------------------------ attributes */

/* The module's resource of that name, created (empty) at its first mention. */
static Resource *parser_resource(Parser *p, const char *name, size_t len) {
  for (int i = 0; i < p->resources.len; i++) {
    Resource *r = p->resources.items[i];
    if (strlen(r->name) == len && memcmp(r->name, name, len) == 0) return r;
  }
  Resource *r = arena_alloc(&p->c->arena, sizeof(Resource));
  r->name = arena_strndup(&p->c->arena, name, len);
  vec_push(&p->resources, r);
  return r;
}

Attr *parse_attr_dict(Parser *p) {
  PtrVec items = {0};
  if (!p_expect(p, "{")) return NULL;
  Attr *result = NULL;
  if (!p_is(p, "}")) {
    do {
      Token key = p->tok;
      const char *name;
      if (key.kind == TOK_IDENT) name = arena_strndup(&p->c->arena, key.text, key.len);
      else if (key.kind == TOK_STRING) {
        size_t len;
        name = tok_string_value(&p->c->arena, &key, &len);
      } else {
        p_error_here(p, "expected attribute name");
        goto out;
      }
      p_next(p);
      Attr *v;
      if (p_accept(p, "=")) {
        v = parse_attr(p);
        if (!v) goto out;
      } else {
        v = attr_unit(p->c);
      }
      for (int i = 0; i < items.len; i++)
        if (strcmp(((NamedAttr *)items.items[i])->name, name) == 0) {
          p_error(p, key.loc, "duplicate attribute '%s'", name);
          goto out;
        }
      NamedAttr *na = arena_alloc(&p->c->arena, sizeof(NamedAttr));
      na->name = name;
      na->value = v;
      vec_push(&items, na);
    } while (p_accept(p, ","));
  }
  if (!p_expect(p, "}")) goto out;
  NamedAttr *flat = arena_alloc(&p->c->arena, sizeof(NamedAttr) * (size_t)(items.len ? items.len : 1));
  for (int i = 0; i < items.len; i++) flat[i] = *(NamedAttr *)items.items[i];
  result = attr_dict(p->c, items.len, flat);
out:
  vec_free(&items);
  return result;
}

/* [b, 0, 1, f]: letters name the two special dims, digits spatial order. */
static bool parse_conv_layout(Parser *p, char c0, char c1, int64_t *d0, int64_t *d1, int64_t *spatial, int *nsp) {
  if (!p_expect(p, "[")) return false;
  int pos = 0;
  *d0 = *d1 = -1;
  int64_t sp[64];
  int nspatial = 0;
  for (int i = 0; i < 64; i++) sp[i] = -1;
  if (!p_is(p, "]")) {
    do {
      if (pos >= 64) {
        p_error_here(p, "convolution layout too long");
        return false;
      }
      if (p->tok.kind == TOK_IDENT && p->tok.len == 1 && (p->tok.text[0] == c0 || p->tok.text[0] == c1)) {
        int64_t *d = p->tok.text[0] == c0 ? d0 : d1;
        if (*d >= 0) {
          p_error_here(p, "duplicate '%c' in convolution layout", p->tok.text[0]);
          return false;
        }
        *d = pos;
      } else if (p->tok.kind == TOK_INT) {
        long v = strtol(p->tok.text, NULL, 10);
        if (v < 0 || v >= 62 || sp[v] >= 0) {
          p_error_here(p, "invalid or duplicate spatial dimension in convolution layout");
          return false;
        }
        sp[v] = pos;
        nspatial++;
      } else {
        p_error_here(p, "expected '%c', '%c' or a spatial dimension number", c0, c1);
        return false;
      }
      p_next(p);
      pos++;
    } while (p_accept(p, ","));
  }
  if (!p_expect(p, "]")) return false;
  for (int i = 0; i < nspatial; i++)
    if (sp[i] < 0) {
      p_error_here(p, "spatial dimensions of a convolution layout must be numbered 0..%d", nspatial - 1);
      return false;
    }
  if (*d0 < 0 || *d1 < 0) {
    p_error_here(p, "convolution layout needs both '%c' and '%c'", c0, c1);
    return false;
  }
  if (*nsp >= 0 && *nsp != nspatial) {
    /* an inconsistency of the op (upstream's verifier reports it there) */
    p_error(p, p->op_loc.file ? p->op_loc : p->tok.loc,
            "convolution layouts have different numbers of spatial dimensions (%d, then %d): the input, kernel and "
            "output must have the same",
            *nsp, nspatial);
    return false;
  }
  *nsp = nspatial;
  memcpy(spatial, sp, sizeof(int64_t) * (size_t)nspatial);
  return true;
}

Attr *parse_conv_dims_body(Parser *p) {
  ConvDims d = {0};
  int64_t in_sp[64], k_sp[64], out_sp[64];
  int nsp = -1;
  if (!parse_conv_layout(p, 'b', 'f', &d.input_batch, &d.input_feature, in_sp, &nsp)) return NULL;
  if (!(p->tok.kind == TOK_IDENT && tok_is(&p->tok, "x"))) {
    p_error_here(p, "expected 'x' between convolution layouts");
    return NULL;
  }
  p_next(p);
  if (!parse_conv_layout(p, 'i', 'o', &d.kernel_input_feature, &d.kernel_output_feature, k_sp, &nsp)) return NULL;
  if (!p_expect(p, "->")) return NULL;
  if (!parse_conv_layout(p, 'b', 'f', &d.output_batch, &d.output_feature, out_sp, &nsp)) return NULL;
  d.nspatial = nsp;
  d.input_spatial = in_sp;
  d.kernel_spatial = k_sp;
  d.output_spatial = out_sp;
  return attr_conv_dims(p->c, &d);
}

/* #stablehlo.conv<raw input_batch_dimension = 0, ...> */
static Attr *conv_from_raw(Parser *p, Attr *dialect, Loc loc) {
  ConvDims d = {0};
  Arena scratch = {0};
  static const char *const ints[] = {"input_batch_dimension", "input_feature_dimension",
                                     "kernel_input_feature_dimension", "kernel_output_feature_dimension",
                                     "output_batch_dimension", "output_feature_dimension"};
  int64_t *fields[] = {&d.input_batch, &d.input_feature, &d.kernel_input_feature, &d.kernel_output_feature,
                       &d.output_batch, &d.output_feature};
  for (int i = 0; i < 6; i++) {
    const Attr *v = dialect_param(dialect, ints[i]);
    if (!v || v->kind != ATTR_INT) {
      p_error(p, loc, "#stablehlo.conv raw form needs '%s'", ints[i]);
      return NULL;
    }
    *fields[i] = v->u.i;
  }
  static const char *const lists[] = {"input_spatial_dimensions", "kernel_spatial_dimensions",
                                      "output_spatial_dimensions"};
  const int64_t **outs[] = {&d.input_spatial, &d.kernel_spatial, &d.output_spatial};
  for (int i = 0; i < 3; i++) {
    int n;
    const int64_t *v;
    if (!attr_as_i64_list(dialect_param(dialect, lists[i]), &n, &v, &scratch) || (i > 0 && n != d.nspatial)) {
      p_error(p, loc, "#stablehlo.conv raw form needs '%s' of matching length", lists[i]);
      arena_free_all(&scratch);
      return NULL;
    }
    d.nspatial = n;
    *outs[i] = arena_dup(&p->c->arena, v, sizeof(int64_t) * (size_t)n);
  }
  arena_free_all(&scratch);
  Attr *attr = arena_alloc(&p->c->arena, sizeof(Attr));
  attr->kind = ATTR_CONV_DIMS;
  attr->u.conv = d;
  return attr;
}

/* One parameter value of a dialect attribute. */
static Attr *parse_dialect_param_value(Parser *p) {
  if (p_is(p, "?")) {
    p_next(p);
    return attr_i64(p->c, DIM_DYNAMIC);
  }
  if (p_is(p, "[")) {
    p_next(p);
    PtrVec items = {0};
    bool all_int = true;
    if (!p_is(p, "]")) {
      do {
        Attr *v = parse_dialect_param_value(p);
        if (!v) {
          vec_free(&items);
          return NULL;
        }
        if (v->kind != ATTR_INT) all_int = false;
        vec_push(&items, v);
      } while (p_accept(p, ","));
    }
    if (!p_expect(p, "]")) {
      vec_free(&items);
      return NULL;
    }
    Attr *r;
    if (all_int) {
      int64_t *v = arena_alloc(&p->c->arena, sizeof(int64_t) * (size_t)(items.len ? items.len : 1));
      for (int i = 0; i < items.len; i++) v[i] = ((Attr *)items.items[i])->u.i;
      r = attr_int_list(p->c, items.len, v);
    } else {
      r = attr_array(p->c, items.len, (Attr **)items.items);
    }
    vec_free(&items);
    return r;
  }
  if (p_is(p, "-") || p->tok.kind == TOK_INT) {
    Token first = p->tok;
    Lexer save_lex = p->lex;
    if (p_is(p, "-")) p_next(p);
    bool is_float = p->tok.kind == TOK_FLOAT;
    p->lex = save_lex;
    p->tok = first;
    if (is_float) return parse_number_attr(p); /* -0.5, -0.5 : f32 */
    int64_t v;
    if (!parse_int64(p, &v)) return NULL;
    return attr_i64(p->c, v);
  }
  if (p->tok.kind == TOK_IDENT && !tok_is(&p->tok, "dense") && !tok_is(&p->tok, "array") &&
      !tok_is(&p->tok, "true") && !tok_is(&p->tok, "false") && !tok_is(&p->tok, "tensor") &&
      !tok_is(&p->tok, "unit")) {
    Token t = p->tok;
    p_next(p);
    char *word = arena_strndup(&p->c->arena, t.text, t.len);
    return attr_enum(p->c, NULL, NULL, word);
  }
  return parse_attr(p);
}

/* An attribute alias reference (#loc3, #map): its value, NULL after a
 * diagnostic. */
static Attr *attr_alias_value(Parser *p, Token t) {
  for (int i = 0; i < p->aliases.len; i++) {
    AttrAlias *al = p->aliases.items[i];
    if (al->len == t.len && memcmp(al->name, t.text, t.len) == 0) return al->value;
  }
  p_error(p, t.loc, "undefined attribute alias '%.*s'", (int)t.len, t.text);
  return NULL;
}

/* The body of an enum-form dialect attribute after '<', through '>':
 * #stablehlo<comparison_direction LT> or #stablehlo<"comparison_direction LT">. */
static Attr *parse_enum_form(Parser *p, const char *name, size_t nlen) {
  const char *body;
  size_t blen;
  Token first = p->tok;
  if (first.kind == TOK_STRING) {
    body = tok_string_value(&p->c->arena, &first, &blen);
    p_next(p);
  } else {
    const char *end = first.text;
    while (!p_is(p, ">") && p->tok.kind != TOK_EOF && p->tok.kind != TOK_ERROR) {
      end = p->tok.text + p->tok.len;
      p_next(p);
    }
    body = first.text;
    blen = (size_t)(end - first.text);
  }
  if (!p_expect(p, ">")) return NULL;
  const char *sp = memchr(body, ' ', blen);
  char *dialect = arena_strndup(&p->c->arena, name, nlen);
  if (!sp) return attr_enum(p->c, dialect, NULL, arena_strndup(&p->c->arena, body, blen));
  const char *val = sp;
  while (val < body + blen && *val == ' ') val++;
  return attr_enum(p->c, dialect, arena_strndup(&p->c->arena, body, (size_t)(sp - body)),
                   arena_strndup(&p->c->arena, val, (size_t)(body + blen - val)));
}

/* The parameter keys of StableHLO's structured attributes, which are
 * errors when misspelt (others are kept as written); NULL for the rest. */
static const char *const *stablehlo_param_keys(const char *name, size_t nlen) {
  static const char *const dot[] = {"lhs_batching_dimensions", "rhs_batching_dimensions",
                                    "lhs_contracting_dimensions", "rhs_contracting_dimensions", NULL};
  static const char *const gather[] = {"offset_dims",      "collapsed_slice_dims", "operand_batching_dims",
                                       "start_indices_batching_dims", "start_index_map", "index_vector_dim",
                                       NULL};
  static const char *const scatter[] = {"update_window_dims",           "inserted_window_dims",
                                        "input_batching_dims",          "scatter_indices_batching_dims",
                                        "scatter_dims_to_operand_dims", "index_vector_dim",
                                        NULL};
  static const char *const alias[] = {"output_tuple_indices", "operand_index", "operand_tuple_indices", NULL};
  static const char *const channel[] = {"handle", "type", NULL};
  static const char *const accuracy[] = {"atol", "rtol", "ulps", "mode", NULL};
  static const struct {
    const char *name;
    const char *const *keys;
  } table[] = {{"stablehlo.dot", dot},
               {"stablehlo.gather", gather},
               {"stablehlo.scatter", scatter},
               {"stablehlo.output_operand_alias", alias},
               {"stablehlo.channel_handle", channel},
               {"stablehlo.result_accuracy", accuracy}};
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (strlen(table[i].name) == nlen && memcmp(table[i].name, name, nlen) == 0) return table[i].keys;
  return NULL;
}

/* A parameter key of a structured StableHLO attribute: one of keys, given
 * once.  False after a diagnostic. */
static bool check_param_key(Parser *p, const Token *at, const char *name, const PtrVec *params,
                            const char *const *keys) {
  bool known = false;
  for (int i = 0; name && keys[i]; i++) known |= strcmp(keys[i], name) == 0;
  if (!known) {
    char list[512];
    size_t len = 0;
    for (int i = 0; keys[i] && len < sizeof list; i++)
      len += (size_t)snprintf(list + len, sizeof list - len, "%s`%s`", i ? ", " : "", keys[i]);
    p_error(p, at->loc, "expected one of: %s", list);
    return false;
  }
  for (int i = 0; i < params->len; i++)
    if (strcmp(((NamedAttr *)params->items[i])->name, name) == 0) {
      p_error(p, at->loc, "duplicated `%s` entry", name);
      return false;
    }
  return true;
}

/* The structured parameters of a dialect attribute up to (not through) its
 * '>': `key = value` or bare values, comma-separated.  False (quietly)
 * when they do not follow that grammar. */
static bool parse_dialect_params(Parser *p, PtrVec *params, const char *const *keys) {
  if (p_is(p, ">")) return true;
  do {
    if (params->len && p_is(p, ">")) break; /* a trailing comma, as upstream accepts */
    NamedAttr *na = arena_alloc(&p->c->arena, sizeof(NamedAttr));
    Token key = p->tok;
    if (p->tok.kind == TOK_IDENT) {
      Lexer save_lex = p->lex;
      p_next(p);
      if (p_accept(p, "=")) {
        na->name = arena_strndup(&p->c->arena, key.text, key.len);
      } else {
        p->lex = save_lex;
        p->tok = key;
      }
    }
    if (keys && !check_param_key(p, &key, na->name, params, keys)) return false;
    na->value = parse_dialect_param_value(p);
    if (!na->value) return false;
    vec_push(params, na);
  } while (p_accept(p, ","));
  return p_is(p, ">");
}

/* The precision-type word of a dot algorithm's parameter key ("f32"), or
 * NULL after a diagnostic when it is missing or not a type name. */
static const char *dot_alg_type(Parser *p, const Attr *a, const char *key, Loc loc) {
  const Attr *v = dialect_param(a, key);
  if (!v || v->kind != ATTR_ENUM || v->u.enm.dialect) {
    p_error(p, loc, "#stablehlo.dot_algorithm needs '%s' (a type such as bf16 or f32)", key);
    return NULL;
  }
  ElemKind k;
  if (!elem_from_name(v->u.enm.value, strlen(v->u.enm.value), &k)) {
    p_error(p, loc, "#stablehlo.dot_algorithm: '%s' is not a type: '%s'", key, v->u.enm.value);
    return NULL;
  }
  return v->u.enm.value;
}

/* Is this (lhs, rhs, accumulation, primitive operations) one of the dot
 * algorithms StableHLO knows to run on some hardware (dot_general I8-I10)? */
static bool dot_alg_known(const char *l, const char *r, const char *acc, int64_t lc, int64_t rc, int64_t nops,
                          bool imprecise) {
  if (lc != 1 || rc != 1) return false;
  bool l8 = strncmp(l, "f8", 2) == 0, r8 = strncmp(r, "f8", 2) == 0;
  if (l8 && r8 && strcmp(acc, "f32") == 0 && nops == 1) return true;
  if (imprecise) return false;
  static const struct {
    const char *l, *r, *acc;
    int64_t n;
  } known[] = {{"f16", "f16", "f16", 1},   {"f16", "f16", "f32", 1},   {"bf16", "bf16", "bf16", 1},
               {"bf16", "bf16", "f32", 1}, {"bf16", "bf16", "f32", 3}, {"bf16", "bf16", "f32", 6},
               {"bf16", "bf16", "f32", 9}, {"tf32", "tf32", "f32", 1}, {"tf32", "tf32", "f32", 3},
               {"f32", "f32", "f32", 1},   {"f64", "f64", "f64", 1}};
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
    if (strcmp(known[i].l, l) == 0 && strcmp(known[i].r, r) == 0 && strcmp(known[i].acc, acc) == 0 &&
        known[i].n == nops)
      return true;
  return false;
}

/* The rules of a #stablehlo.dot_algorithm (dot_general C22-C24, I8-I10):
 * every field given, counts positive, a known combination. */
bool check_dot_algorithm(Parser *p, const Attr *a, Loc loc) {
  static const char *const keys[] = {"lhs_precision_type", "rhs_precision_type", "accumulation_type",
                                     "lhs_component_count", "rhs_component_count", "num_primitive_operations",
                                     "allow_imprecise_accumulation"};
  for (int i = 0; i < a->u.dialect.n; i++) {
    bool known = false;
    const char *name = a->u.dialect.params[i].name;
    for (int k = 0; k < 7; k++) known |= name && strcmp(name, keys[k]) == 0;
    if (!known) {
      p_error(p, loc, "#stablehlo.dot_algorithm has an unknown parameter '%s' (expected %s, %s, %s, %s, %s, %s, %s)",
              a->u.dialect.params[i].name ? a->u.dialect.params[i].name : "(positional)", keys[0], keys[1], keys[2],
              keys[3], keys[4], keys[5], keys[6]);
      return false;
    }
  }
  const char *t[3];
  for (int k = 0; k < 3; k++)
    if (!(t[k] = dot_alg_type(p, a, keys[k], loc))) return false;
  int64_t n[3];
  static const char *const what[] = {"lhs component count", "rhs component count", "num primitive operations"};
  for (int k = 0; k < 3; k++) {
    const Attr *v = dialect_param(a, keys[3 + k]);
    if (!v || v->kind != ATTR_INT) {
      p_error(p, loc, "#stablehlo.dot_algorithm needs '%s' (an integer)", keys[3 + k]);
      return false;
    }
    n[k] = v->u.i;
    if (n[k] < 1) {
      p_error(p, loc, "dot algorithm: %s must be positive, but got %" PRId64, what[k], n[k]);
      return false;
    }
  }
  const Attr *imp = dialect_param(a, keys[6]);
  if (!imp || imp->kind != ATTR_BOOL) {
    p_error(p, loc, "#stablehlo.dot_algorithm needs '%s' (true or false)", keys[6]);
    return false;
  }
  if (!dot_alg_known(t[0], t[1], t[2], n[0], n[1], n[2], imp->u.b)) {
    p_error(p, loc,
            "dot algorithm not known to be supported on any hardware: {lhs:'%s', rhs:'%s', accum:'%s', "
            "lhs_components:%" PRId64 ", rhs_components:%" PRId64 ", primitive_ops:%" PRId64 ", imprecise:%d}",
            t[0], t[1], t[2], n[0], n[1], n[2], imp->u.b ? 1 : 0);
    return false;
  }
  return true;
}

/* #dialect.name<...> or #dialect<...>: structured when the body is a list of
 * [key =] value items, else kept as text. */
static Attr *parse_hash_attr(Parser *p) {
  Token t = p->tok;
  const char *name = t.text + 1;
  size_t nlen = t.len - 1;
  p_next(p);
  if (!p_is(p, "<")) return attr_alias_value(p, t);
  Token open = p->tok;
  bool is_conv = nlen == 14 && memcmp(name, "stablehlo.conv", 14) == 0;
  p_next(p);
  if (is_conv && p_is(p, "[")) {
    Attr *a = parse_conv_dims_body(p);
    if (!a || !p_expect(p, ">")) return NULL;
    return a;
  }
  if (is_conv && !tok_is(&p->tok, "raw")) {
    p_error_here(p, "expected '[' (#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>)");
    return NULL;
  }
  bool sdy = nlen >= 3 && memcmp(name, "sdy", 3) == 0 && (nlen == 3 || name[3] == '.');
  if (memchr(name, '.', nlen) == NULL && !sdy) return parse_enum_form(p, name, nlen);
  PtrVec params = {0};
  bool raw = false;
  if (p->tok.kind == TOK_IDENT && tok_is(&p->tok, "raw")) {
    raw = true;
    p_next(p);
  }
  bool saved_error = p->error;
  bool saved_quiet = p->c->diag.quiet;
  int saved_errors = p->c->diag.nerrors;
  /* Try the structured grammar quietly; fall back to opaque text on failure.
   * Shardy's attributes have a grammar of their own ({"x"} is a list of
   * axes, not a dictionary): always opaque, so they print as written. */
  const char *const *keys = stablehlo_param_keys(name, nlen);
  p->c->diag.quiet = keys ? saved_quiet : true;
  bool ok = !sdy && parse_dialect_params(p, &params, keys);
  p->c->diag.quiet = saved_quiet;
  if (!ok && keys) {
    p_error_here(p, "expected '>' or ',' in #%.*s<...>", (int)nlen, name);
    vec_free(&params);
    return NULL;
  }
  if (!ok) {
    /* Opaque: rescan from '<' to its matching '>'. */
    p->c->diag.nerrors = saved_errors;
    p->error = saved_error;
    vec_free(&params);
    p->lex.p = open.text;
    p->lex.line = open.loc.line;
    p->lex.col = open.loc.col;
    p_next(p);
    const char *end = open.text;
    if (!skip_balanced_angles(p, &end)) return NULL;
    return attr_opaque(p->c, t.text, (size_t)(end - t.text));
  }
  p_next(p); /* '>' */
  NamedAttr items[params.len ? params.len : 1];
  int n = 0;
  /* A structure of known keys in their declared order, as upstream prints it. */
  for (int k = 0; keys && keys[k]; k++)
    for (int i = 0; i < params.len; i++)
      if (strcmp(((NamedAttr *)params.items[i])->name, keys[k]) == 0) items[n++] = *(NamedAttr *)params.items[i];
  for (int i = 0; !keys && i < params.len; i++) items[n++] = *(NamedAttr *)params.items[i];
  Attr *a = attr_dialect(p->c, arena_strndup(&p->c->arena, name, nlen), params.len, items);
  vec_free(&params);
  if (is_conv && raw) return conv_from_raw(p, a, t.loc);
  if (nlen == 23 && memcmp(name, "stablehlo.dot_algorithm", 23) == 0 && !check_dot_algorithm(p, a, t.loc))
    return NULL;
  return a;
}

/* The pretty form of dot_general's algorithm: <lhs_precision_type = bf16,
 * ...>, the body of a #stablehlo.dot_algorithm; the current token is '<'. */
Attr *parse_dot_algorithm_body(Parser *p) {
  Loc loc = p->tok.loc;
  if (p->tok.kind == TOK_HASH) { /* the generic spelling, as older tpucc printed it */
    Attr *a = parse_attr(p);
    if (a && (a->kind != ATTR_DIALECT || strcmp(a->u.dialect.name, "stablehlo.dot_algorithm") != 0)) {
      p_error(p, loc, "expected a dot algorithm <lhs_precision_type = .., ...>");
      return NULL;
    }
    return a;
  }
  if (!p_expect(p, "<")) return NULL;
  PtrVec params = {0};
  bool ok = parse_dialect_params(p, &params, NULL) && p_expect(p, ">");
  if (!ok) {
    p_error_here(p, "expected '<key = value, ...>' of a dot algorithm");
    vec_free(&params);
    return NULL;
  }
  NamedAttr items[params.len ? params.len : 1];
  for (int i = 0; i < params.len; i++) items[i] = *(NamedAttr *)params.items[i];
  Attr *a = attr_dialect(p->c, "stablehlo.dot_algorithm", params.len, items);
  vec_free(&params);
  return check_dot_algorithm(p, a, loc) ? a : NULL;
}

/* array<i64: 1, 2> */
static Attr *parse_dense_array(Parser *p) {
  Loc loc = p->tok.loc;
  p_next(p);
  if (!p_expect(p, "<")) return NULL;
  Type *et = parse_type(p);
  if (!et) return NULL;
  if (et->kind != TY_ELEM || !(elem_is_int(et->elem) || elem_is_float(et->elem))) {
    p_error(p, loc, "array<...> needs an integer or float element type");
    return NULL;
  }
  ElemKind k = et->elem;
  int cap = 8, n = 0;
  int64_t *iv = xrealloc(NULL, sizeof(int64_t) * (size_t)cap);
  double *fv = xrealloc(NULL, sizeof(double) * (size_t)cap);
  bool ok = true;
  if (p_accept(p, ":")) {
    do {
      Lit l;
      if (!parse_scalar_lit(p, &l)) {
        ok = false;
        break;
      }
      uint64_t bits;
      if (!lit_to_bits(p, &l, k, &bits)) {
        ok = false;
        break;
      }
      if (n == cap) {
        cap *= 2;
        iv = xrealloc(iv, sizeof(int64_t) * (size_t)cap);
        fv = xrealloc(fv, sizeof(double) * (size_t)cap);
      }
      if (elem_is_int(k)) {
        int w = elem_bits(k);
        int64_t v = (int64_t)bits;
        if (w < 64) v = elem_is_unsigned(k) || k == ELEM_I1 ? (int64_t)(bits & ((1ull << w) - 1))
                                                            : (int64_t)(bits << (64 - w)) >> (64 - w);
        iv[n] = v;
      } else {
        fv[n] = float_bits_to_double(k, bits);
      }
      n++;
    } while (p_accept(p, ","));
  }
  Attr *a = NULL;
  if (ok && p_expect(p, ">")) {
    a = arena_alloc(&p->c->arena, sizeof(Attr));
    a->kind = ATTR_DENSE_ARRAY;
    a->u.darray.elem = k;
    a->u.darray.n = n;
    if (elem_is_int(k)) a->u.darray.ints = arena_dup(&p->c->arena, iv, sizeof(int64_t) * (size_t)(n ? n : 1));
    else a->u.darray.floats = arena_dup(&p->c->arena, fv, sizeof(double) * (size_t)(n ? n : 1));
  }
  free(iv);
  free(fv);
  return a;
}

Attr *parse_float_literal(Parser *p, ElemKind k) {
  Lit l;
  uint64_t bits;
  if (!parse_scalar_lit(p, &l)) return NULL;
  if (l.kind == LIT_BOOL) {
    p_error(p, l.loc, "expected a float literal");
    return NULL;
  }
  if (!lit_to_bits(p, &l, k, &bits)) return NULL;
  return attr_float_bits(p->c, type_elem(p->c, k), bits);
}

/* A number attribute: integer or float with an optional ': type'. */
static Attr *parse_number_attr(Parser *p) {
  Lit l;
  if (!parse_scalar_lit(p, &l)) return NULL;
  Type *t;
  if (p_accept(p, ":")) {
    t = parse_type(p);
    if (!t) return NULL;
  } else {
    t = type_elem(p->c, l.kind == LIT_INT ? ELEM_I64 : ELEM_F64);
  }
  if (t->kind != TY_ELEM || elem_is_complex(t->elem)) {
    p_error(p, l.loc, "expected integer or float type after ':'");
    return NULL;
  }
  uint64_t bits;
  if (elem_is_float(t->elem)) {
    if (!lit_to_bits(p, &l, t->elem, &bits)) return NULL;
    return attr_float_bits(p->c, t, bits);
  }
  if (l.kind != LIT_INT) {
    p_error(p, l.loc, "expected integer literal for type %s", elem_name(t->elem));
    return NULL;
  }
  ElemKind k = t->elem;
  if (!lit_to_bits(p, &l, k, &bits)) return NULL;
  int w = elem_bits(k);
  int64_t v = (int64_t)bits;
  if (w < 64) v = elem_is_unsigned(k) ? (int64_t)(bits & ((1ull << w) - 1)) : (int64_t)(bits << (64 - w)) >> (64 - w);
  return attr_int(p->c, t, v);
}

Attr *parse_attr(Parser *p) {
  Token t = p->tok;
  if (++p->depth > PARSE_MAX_DEPTH) {
    p_error_here(p, "attributes nested too deeply");
    p->depth--;
    return NULL;
  }
  Attr *r = NULL;
  if (t.kind == TOK_INT || t.kind == TOK_FLOAT || p_is(p, "-") || tok_is(&t, "inf") || tok_is(&t, "nan")) {
    r = parse_number_attr(p);
  } else if (t.kind == TOK_STRING) {
    size_t len;
    char *s = tok_string_value(&p->c->arena, &t, &len);
    p_next(p);
    r = attr_string(p->c, s, len);
  } else if (t.kind == TOK_AT) {
    size_t len;
    const char *name;
    if (t.len > 1 && t.text[1] == '"') name = tok_string_value(&p->c->arena, &t, &len);
    else name = arena_strndup(&p->c->arena, t.text + 1, t.len - 1);
    p_next(p);
    r = attr_symref(p->c, name);
  } else if (p_is(p, "[")) {
    p_next(p);
    PtrVec items = {0};
    bool ok = true;
    if (!p_is(p, "]")) {
      do {
        Attr *v = parse_attr(p);
        if (!v) {
          ok = false;
          break;
        }
        vec_push(&items, v);
      } while (p_accept(p, ","));
    }
    if (ok && p_expect(p, "]")) r = attr_array(p->c, items.len, (Attr **)items.items);
    vec_free(&items);
  } else if (p_is(p, "{")) {
    r = parse_attr_dict(p);
  } else if (t.kind == TOK_HASH) {
    r = parse_hash_attr(p);
  } else if (tok_is(&t, "true") || tok_is(&t, "false")) {
    p_next(p);
    r = attr_bool(p->c, t.text[0] == 't');
  } else if (tok_is(&t, "unit")) {
    p_next(p);
    r = attr_unit(p->c);
  } else if (tok_is(&t, "dense") || tok_is(&t, "dense_resource")) {
    p_next(p);
    r = parse_dense_body_with_type(p, t.loc, t.len == 5);
  } else if (tok_is(&t, "array")) {
    r = parse_dense_array(p);
  } else if (t.kind == TOK_IDENT && (tok_is(&t, "affine_map") || tok_is(&t, "affine_set") ||
                                      tok_is(&t, "sparse") || tok_is(&t, "strided") || tok_is(&t, "distinct"))) {
    p_next(p);
    const char *end = t.text + t.len;
    if (p_is(p, "<") && skip_balanced_angles(p, &end)) r = attr_opaque(p->c, t.text, (size_t)(end - t.text));
    else if (!p->error) p_error(p, t.loc, "expected '<' after '%.*s'", (int)t.len, t.text);
  } else if (t.kind == TOK_IDENT || t.kind == TOK_BANG || p_is(p, "(")) {
    Type *ty = parse_type(p);
    if (ty) r = attr_type(p->c, ty);
  } else {
    p_error_here(p, "expected attribute value");
  }
  p->depth--;
  return r;
}

/* {-# dialect_resources: { builtin: { name: "0x..." } } #-} */
void parse_resource_section(Parser *p) {
  p_next(p); /* {-# */
  while (!p_is(p, "#-}") && p->tok.kind != TOK_EOF && !p->error) {
    if (p->tok.kind != TOK_IDENT) {
      p_error_here(p, "expected a resource group name");
      return;
    }
    bool is_dialect = tok_is(&p->tok, "dialect_resources");
    p_next(p);
    if (!p_expect(p, ":") || !p_expect(p, "{")) return;
    while (!p_is(p, "}") && !p->error) {
      /* dialect name */
      p_next(p);
      if (!p_expect(p, ":") || !p_expect(p, "{")) return;
      while (!p_is(p, "}") && !p->error) {
        Token name = p->tok;
        if (name.kind != TOK_IDENT && name.kind != TOK_STRING) {
          p_error_here(p, "expected resource name");
          return;
        }
        p_next(p);
        if (!p_expect(p, ":")) return;
        if (p->tok.kind != TOK_STRING) {
          p_error_here(p, "expected a hex string for resource");
          return;
        }
        Token blob = p->tok;
        p_next(p);
        if (is_dialect) {
          Resource *r = parser_resource(p, name.text, name.len);
          uint8_t *data;
          size_t n;
          if (!parse_hex_blob(p, &blob, &data, &n)) return;
          r->hex = arena_strndup(&p->c->arena, blob.text + 1, blob.len - 2);
          /* The first 4 bytes are the blob's alignment. */
          r->data = n >= 4 ? data + 4 : NULL;
          r->nbytes = n >= 4 ? n - 4 : 0;
        }
        if (!p_accept(p, ",")) break;
      }
      if (!p_expect(p, "}")) return;
      if (!p_accept(p, ",")) break;
    }
    if (!p_expect(p, "}")) return;
    p_accept(p, ",");
  }
  p_expect(p, "#-}");
}
