/* Lexer for MLIR / StableHLO text: one token at a time, with locations. */
#include <ctype.h>
#include <string.h>

#include "frontend/lexer.h"

void lexer_init(Lexer *lx, const SourceFile *file, const char *start, const char *end, uint32_t first_line) {
  /* A UTF-8 byte-order mark at the start of the file is not part of the text. */
  if (file && start == file->text && end - start >= 3 && memcmp(start, "\xEF\xBB\xBF", 3) == 0) start += 3;
  lx->file = file;
  lx->p = start;
  lx->end = end;
  lx->line = first_line;
  lx->col = 1;
}

Loc lexer_loc(const Lexer *lx) { return (Loc){lx->file, lx->line, lx->col}; }

static void advance(Lexer *lx, size_t n) {
  for (size_t i = 0; i < n && lx->p < lx->end; i++) {
    if (*lx->p == '\n') {
      lx->line++;
      lx->col = 1;
    } else {
      lx->col++;
    }
    lx->p++;
  }
}

/* Advance over n characters known not to contain a newline. */
static void advance_inline(Lexer *lx, const char *to) {
  lx->col += (uint32_t)(to - lx->p);
  lx->p = to;
}

void lexer_skip_space(Lexer *lx) {
  while (lx->p < lx->end) {
    char ch = *lx->p;
    if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n') {
      advance(lx, 1);
    } else if (ch == '/' && lx->p + 1 < lx->end && lx->p[1] == '/') {
      while (lx->p < lx->end && *lx->p != '\n') {
        lx->p++;
        lx->col++;
      }
    } else {
      break;
    }
  }
}

void lexer_reset_to(Lexer *lx, const Token *t) {
  lx->p = t->text;
  lx->line = t->loc.line;
  lx->col = t->loc.col;
}

static bool is_id_start(char c) { return isalpha((unsigned char)c) || c == '_'; }
static bool is_id_char(char c) { return isalnum((unsigned char)c) || c == '_' || c == '$' || c == '.'; }
static bool is_suffix_char(char c) { return isalnum((unsigned char)c) || c == '_' || c == '$' || c == '.' || c == '-'; }

static Token make(Lexer *lx, TokKind k, const char *start, Loc loc) {
  Token t = {k, start, (size_t)(lx->p - start), loc};
  return t;
}

/* Scan a quoted string starting at lx->p ('"'); false if unterminated.
 * Strings never span lines. */
static bool scan_string(Lexer *lx) {
  const char *q = lx->p + 1, *e = lx->end;
  while (q < e) {
    char ch = *q;
    if (ch == '"') {
      advance_inline(lx, q + 1);
      return true;
    }
    if (ch == '\n' || ch == 0) break; /* no NUL bytes in strings: output never has them */
    if (ch == '\\' && q + 1 < e && q[1] != '\n' && q[1] != 0) q++;
    q++;
  }
  advance_inline(lx, q);
  return false;
}

Token lexer_next(Lexer *lx) {
  lexer_skip_space(lx);
  Loc loc = lexer_loc(lx);
  const char *s = lx->p;
  if (lx->p >= lx->end) return (Token){TOK_EOF, s, 0, loc};
  char ch = *lx->p;
  const char *e = lx->end;

  if (is_id_start(ch)) {
    const char *q = lx->p + 1;
    while (q < e && is_id_char(*q)) q++;
    advance_inline(lx, q);
    return make(lx, TOK_IDENT, s, loc);
  }
  if (isdigit((unsigned char)ch)) {
    if (ch == '0' && lx->p + 2 < e && lx->p[1] == 'x' && isxdigit((unsigned char)lx->p[2])) {
      advance(lx, 2);
      while (lx->p < e && isxdigit((unsigned char)*lx->p)) advance(lx, 1);
      return make(lx, TOK_INT, s, loc);
    }
    const char *q = lx->p;
    while (q < e && isdigit((unsigned char)*q)) q++;
    advance_inline(lx, q);
    bool is_float = false;
    if (lx->p < e && *lx->p == '.') {
      is_float = true;
      advance(lx, 1);
      while (lx->p < e && isdigit((unsigned char)*lx->p)) advance(lx, 1);
    }
    if (lx->p < e && (*lx->p == 'e' || *lx->p == 'E')) {
      const char *q = lx->p + 1;
      if (q < e && (*q == '+' || *q == '-')) q++;
      if (q < e && isdigit((unsigned char)*q)) {
        is_float = true;
        advance(lx, (size_t)(q - lx->p));
        while (lx->p < e && isdigit((unsigned char)*lx->p)) advance(lx, 1);
      }
    }
    return make(lx, is_float ? TOK_FLOAT : TOK_INT, s, loc);
  }
  if (ch == '%' || ch == '^' || ch == '@' || ch == '#' || ch == '!') {
    TokKind k = ch == '%' ? TOK_PERCENT : ch == '^' ? TOK_CARET : ch == '@' ? TOK_AT : ch == '#' ? TOK_HASH : TOK_BANG;
    if (ch == '#' && lx->p + 1 < e && lx->p[1] == '-' && lx->p + 2 < e && lx->p[2] == '}') {
      advance(lx, 3);
      return make(lx, TOK_PUNCT, s, loc);
    }
    advance(lx, 1);
    if (k == TOK_AT && lx->p < e && *lx->p == '"') {
      if (!scan_string(lx)) return make(lx, TOK_ERROR, s, loc);
      return make(lx, TOK_AT, s, loc);
    }
    if (lx->p >= e || !is_suffix_char(*lx->p)) return make(lx, TOK_ERROR, s, loc);
    const char *q = lx->p;
    while (q < e && is_suffix_char(*q)) {
      /* '-' only inside names like #stablehlo.cross-replica-sum, not '->' */
      if (*q == '-' && (q + 1 >= e || q[1] == '>')) break;
      q++;
    }
    advance_inline(lx, q);
    if (k == TOK_PERCENT && lx->p + 1 < e && *lx->p == '#' && isdigit((unsigned char)lx->p[1])) {
      advance(lx, 1);
      while (lx->p < e && isdigit((unsigned char)*lx->p)) advance(lx, 1);
    }
    return make(lx, k, s, loc);
  }
  if (ch == '"') {
    if (!scan_string(lx)) return make(lx, TOK_ERROR, s, loc);
    return make(lx, TOK_STRING, s, loc);
  }
  if (ch == '-' && lx->p + 1 < e && lx->p[1] == '>') {
    advance(lx, 2);
    return make(lx, TOK_PUNCT, s, loc);
  }
  if (ch == '{' && lx->p + 2 < e && lx->p[1] == '-' && lx->p[2] == '#') {
    advance(lx, 3);
    return make(lx, TOK_PUNCT, s, loc);
  }
  switch (ch) {
  case '(': case ')': case '[': case ']': case '{': case '}': case '<': case '>':
  case ',': case ':': case '=': case '+': case '-': case '*': case '?':
    advance_inline(lx, lx->p + 1);
    return make(lx, TOK_PUNCT, s, loc);
  default: break;
  }
  advance(lx, 1);
  return make(lx, TOK_ERROR, s, loc);
}

bool tok_is(const Token *t, const char *text) {
  if (t->len == 0 || t->text[0] != text[0] || (t->kind != TOK_PUNCT && t->kind != TOK_IDENT)) return false;
  for (size_t i = 1; i < t->len; i++)
    if (t->text[i] != text[i]) return false;
  return text[t->len] == 0;
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

char *tok_string_value(Arena *a, const Token *t, size_t *len) {
  const char *s = t->text, *e = t->text + t->len;
  while (s < e && *s != '"') s++;
  s++;
  e--; /* closing quote */
  char *out = arena_alloc(a, (size_t)(e - s) + 1);
  size_t n = 0;
  for (const char *p = s; p < e; p++) {
    if (*p != '\\' || p + 1 >= e) {
      out[n++] = *p;
      continue;
    }
    p++;
    if (*p == 'n') out[n++] = '\n';
    else if (*p == 't') out[n++] = '\t';
    else if (*p == '"' || *p == '\\') out[n++] = *p;
    else if (p + 1 < e && hexval(p[0]) >= 0 && hexval(p[1]) >= 0) {
      out[n++] = (char)(hexval(p[0]) * 16 + hexval(p[1]));
      p++;
    } else out[n++] = *p;
  }
  out[n] = 0;
  *len = n;
  return out;
}
