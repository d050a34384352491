/* Lexer: token kinds and texts, locations, strings, numbers, error tokens. */
#include "frontend/lexer.h"
#include "testsuite/unit/unit_tests.h"

/* A lexer over a private copy of text[0, len). */
typedef struct Lex {
  SourceFile file;
  Lexer lx;
  char *buf;
} Lex;

static void lex_open_n(Lex *l, const char *text, size_t len, uint32_t first_line) {
  l->buf = malloc(len + 1);
  memcpy(l->buf, text, len);
  l->buf[len] = 0;
  l->file = (SourceFile){"lex.mlir", l->buf, len};
  lexer_init(&l->lx, &l->file, l->buf, l->buf + len, first_line);
}

static void lex_open(Lex *l, const char *text) { lex_open_n(l, text, strlen(text), 1); }
static void lex_close(Lex *l) { free(l->buf); }

/* Assert the next token's kind and exact text. */
static Token expect_tok(Lex *l, TokKind kind, const char *text) {
  Token t = lexer_next(&l->lx);
  if (t.kind != kind || t.len != strlen(text) || memcmp(t.text, text, t.len) != 0)
    fail_msg("expected token kind %d '%s', got kind %d '%.*s'", kind, text, t.kind, (int)t.len, t.text);
  return t;
}

static void test_identifiers(void **state) {
  (void)state;
  Lex l;
  lex_open(&l, "stablehlo.add tensor f32 _x a$b.c func.func");
  expect_tok(&l, TOK_IDENT, "stablehlo.add");
  expect_tok(&l, TOK_IDENT, "tensor");
  expect_tok(&l, TOK_IDENT, "f32");
  expect_tok(&l, TOK_IDENT, "_x");
  expect_tok(&l, TOK_IDENT, "a$b.c");
  expect_tok(&l, TOK_IDENT, "func.func");
  expect_tok(&l, TOK_EOF, "");
  lex_close(&l);
}

static void test_punctuation(void **state) {
  (void)state;
  Lex l;
  lex_open(&l, "( ) [ ] { } < > , : = -> + - * ?");
  static const char *const p[] = {"(", ")", "[", "]", "{", "}", "<", ">", ",", ":", "=", "->", "+", "-", "*", "?"};
  for (size_t i = 0; i < sizeof p / sizeof p[0]; i++) expect_tok(&l, TOK_PUNCT, p[i]);
  expect_tok(&l, TOK_EOF, "");
  lex_close(&l);
}

static void test_arrow_glued(void **state) {
  (void)state;
  Lex l;
  /* '->' is one token even glued to its neighbours; '-' alone is not an arrow. */
  lex_open(&l, "()->tensor -1");
  expect_tok(&l, TOK_PUNCT, "(");
  expect_tok(&l, TOK_PUNCT, ")");
  expect_tok(&l, TOK_PUNCT, "->");
  expect_tok(&l, TOK_IDENT, "tensor");
  expect_tok(&l, TOK_PUNCT, "-");
  expect_tok(&l, TOK_INT, "1");
  lex_close(&l);
}

static void test_resource_braces(void **state) {
  (void)state;
  Lex l;
  lex_open(&l, "{-# dialect_resources #-} {x}");
  expect_tok(&l, TOK_PUNCT, "{-#");
  expect_tok(&l, TOK_IDENT, "dialect_resources");
  expect_tok(&l, TOK_PUNCT, "#-}");
  expect_tok(&l, TOK_PUNCT, "{");
  expect_tok(&l, TOK_IDENT, "x");
  expect_tok(&l, TOK_PUNCT, "}");
  lex_close(&l);
}

static void test_percent_names(void **state) {
  (void)state;
  Lex l;
  lex_open(&l, "%0 %arg0 %0#1 %x_y.z %12#34 %0:2");
  expect_tok(&l, TOK_PERCENT, "%0");
  expect_tok(&l, TOK_PERCENT, "%arg0");
  expect_tok(&l, TOK_PERCENT, "%0#1");
  expect_tok(&l, TOK_PERCENT, "%x_y.z");
  expect_tok(&l, TOK_PERCENT, "%12#34");
  /* %0:2 is a name, ':' and a count */
  expect_tok(&l, TOK_PERCENT, "%0");
  expect_tok(&l, TOK_PUNCT, ":");
  expect_tok(&l, TOK_INT, "2");
  expect_tok(&l, TOK_EOF, "");
  lex_close(&l);
}

static void test_caret_and_bang(void **state) {
  (void)state;
  Lex l;
  lex_open(&l, "^bb0 !stablehlo.token !quant.uniform<i8:f32, 0.5>");
  expect_tok(&l, TOK_CARET, "^bb0");
  expect_tok(&l, TOK_BANG, "!stablehlo.token");
  expect_tok(&l, TOK_BANG, "!quant.uniform");
  expect_tok(&l, TOK_PUNCT, "<");
  lex_close(&l);
}

static void test_symbols(void **state) {
  (void)state;
  Lex l;
  lex_open(&l, "@main @\"quoted name\" @check.expect_eq");
  expect_tok(&l, TOK_AT, "@main");
  Token q = expect_tok(&l, TOK_AT, "@\"quoted name\"");
  expect_tok(&l, TOK_AT, "@check.expect_eq");
  /* tok_string_value decodes the quoted part of @"..." */
  Arena a = {0};
  size_t len;
  char *s = tok_string_value(&a, &q, &len);
  assert_int_equal(len, 11);
  assert_string_equal(s, "quoted name");
  arena_free_all(&a);
  lex_close(&l);
}

static void test_unterminated_quoted_symbol(void **state) {
  (void)state;
  Lex l;
  lex_open(&l, "@\"abc\nx");
  Token t = lexer_next(&l.lx);
  assert_int_equal(t.kind, TOK_ERROR);
  lex_close(&l);
}

static void test_hash_tokens(void **state) {
  (void)state;
  Lex l;
  lex_open(&l, "#stablehlo.gather<x> #stablehlo<a> #loc3 #a-b");
  expect_tok(&l, TOK_HASH, "#stablehlo.gather");
  expect_tok(&l, TOK_PUNCT, "<");
  expect_tok(&l, TOK_IDENT, "x");
  expect_tok(&l, TOK_PUNCT, ">");
  expect_tok(&l, TOK_HASH, "#stablehlo");
  expect_tok(&l, TOK_PUNCT, "<");
  expect_tok(&l, TOK_IDENT, "a");
  expect_tok(&l, TOK_PUNCT, ">");
  expect_tok(&l, TOK_HASH, "#loc3");
  /* '-' continues a name, except before '>' */
  expect_tok(&l, TOK_HASH, "#a-b");
  lex_close(&l);
}

static void test_dash_before_arrow_ends_name(void **state) {
  (void)state;
  Lex l;
  lex_open(&l, "!foo.bar->x");
  expect_tok(&l, TOK_BANG, "!foo.bar");
  expect_tok(&l, TOK_PUNCT, "->");
  expect_tok(&l, TOK_IDENT, "x");
  lex_close(&l);
}

static void test_strings(void **state) {
  (void)state;
  Lex l;
  lex_open(&l, "\"abc\" \"a\\\"b\" \"\"");
  expect_tok(&l, TOK_STRING, "\"abc\"");
  Token t = expect_tok(&l, TOK_STRING, "\"a\\\"b\"");
  expect_tok(&l, TOK_STRING, "\"\"");
  Arena a = {0};
  size_t len;
  char *s = tok_string_value(&a, &t, &len);
  assert_int_equal(len, 3);
  assert_string_equal(s, "a\"b");
  arena_free_all(&a);
  lex_close(&l);
}

static void test_string_escapes(void **state) {
  (void)state;
  Lex l;
  /* \n \t \" \\ and two-digit hex escapes, including \00 */
  lex_open(&l, "\"x\\ny\\tz\\\\w\\41\\7e\\00!\"");
  Token t = lexer_next(&l.lx);
  assert_int_equal(t.kind, TOK_STRING);
  Arena a = {0};
  size_t len;
  char *s = tok_string_value(&a, &t, &len);
  static const char want[] = "x\ny\tz\\wA~\0!";
  assert_int_equal(len, sizeof want - 1);
  assert_memory_equal(s, want, sizeof want - 1);
  assert_int_equal(s[len], 0);
  arena_free_all(&a);
  lex_close(&l);
}

static void test_unterminated_string(void **state) {
  (void)state;
  Lex l;
  lex_open(&l, "\"abc\ndef\"");
  Token t = lexer_next(&l.lx);
  assert_int_equal(t.kind, TOK_ERROR);
  lex_close(&l);
  lex_open(&l, "\"abc\\\"");
  t = lexer_next(&l.lx);
  assert_int_equal(t.kind, TOK_ERROR);
  lex_close(&l);
}

static void test_integers(void **state) {
  (void)state;
  Lex l;
  lex_open(&l, "0 123 0x1F 0xdeadBEEF 007");
  expect_tok(&l, TOK_INT, "0");
  expect_tok(&l, TOK_INT, "123");
  expect_tok(&l, TOK_INT, "0x1F");
  expect_tok(&l, TOK_INT, "0xdeadBEEF");
  expect_tok(&l, TOK_INT, "007");
  expect_tok(&l, TOK_EOF, "");
  lex_close(&l);
}

static void test_hex_needs_digit(void **state) {
  (void)state;
  Lex l;
  /* "0x" without a hex digit is the integer 0 then the identifier x... */
  lex_open(&l, "0xg 0x");
  expect_tok(&l, TOK_INT, "0");
  expect_tok(&l, TOK_IDENT, "xg");
  expect_tok(&l, TOK_INT, "0");
  expect_tok(&l, TOK_IDENT, "x");
  lex_close(&l);
}

static void test_floats(void **state) {
  (void)state;
  Lex l;
  lex_open(&l, "1.5 1e5 2.5E-3 1.0e+10 3. 6E2");
  expect_tok(&l, TOK_FLOAT, "1.5");
  expect_tok(&l, TOK_FLOAT, "1e5");
  expect_tok(&l, TOK_FLOAT, "2.5E-3");
  expect_tok(&l, TOK_FLOAT, "1.0e+10");
  expect_tok(&l, TOK_FLOAT, "3.");
  expect_tok(&l, TOK_FLOAT, "6E2");
  expect_tok(&l, TOK_EOF, "");
  lex_close(&l);
}

static void test_exponent_needs_digits(void **state) {
  (void)state;
  Lex l;
  /* 'e' without digits is not an exponent. */
  lex_open(&l, "1e 2e+ 3ex");
  expect_tok(&l, TOK_INT, "1");
  expect_tok(&l, TOK_IDENT, "e");
  expect_tok(&l, TOK_INT, "2");
  expect_tok(&l, TOK_IDENT, "e");
  expect_tok(&l, TOK_PUNCT, "+");
  expect_tok(&l, TOK_INT, "3");
  expect_tok(&l, TOK_IDENT, "ex");
  lex_close(&l);
}

static void test_shape_text_tokens(void **state) {
  (void)state;
  Lex l;
  /* Why tensor bodies are read character by character: */
  lex_open(&l, "2x3xf32");
  expect_tok(&l, TOK_INT, "2");
  expect_tok(&l, TOK_IDENT, "x3xf32");
  lex_close(&l);
}

static void test_locations(void **state) {
  (void)state;
  Lex l;
  lex_open(&l, "a bc\n  %d\n\n\t e // comment ( [\n  f");
  Token t = lexer_next(&l.lx);
  assert_int_equal(t.loc.line, 1);
  assert_int_equal(t.loc.col, 1);
  t = lexer_next(&l.lx);
  assert_int_equal(t.loc.line, 1);
  assert_int_equal(t.loc.col, 3);
  t = lexer_next(&l.lx);
  assert_int_equal(t.kind, TOK_PERCENT);
  assert_int_equal(t.loc.line, 2);
  assert_int_equal(t.loc.col, 3);
  t = lexer_next(&l.lx);
  assert_true(tok_is(&t, "e"));
  assert_int_equal(t.loc.line, 4);
  assert_int_equal(t.loc.col, 3); /* a tab counts as one column */
  t = lexer_next(&l.lx);         /* the comment is skipped */
  assert_true(tok_is(&t, "f"));
  assert_int_equal(t.loc.line, 5);
  assert_int_equal(t.loc.col, 3);
  assert_ptr_equal(t.loc.file, &l.file);
  t = lexer_next(&l.lx);
  assert_int_equal(t.kind, TOK_EOF);
  assert_int_equal(t.loc.line, 5);
  assert_int_equal(t.loc.col, 4);
  lex_close(&l);
}

static void test_locations_after_multichar_tokens(void **state) {
  (void)state;
  Lex l;
  lex_open(&l, "\"ab\" -> 0x1F 2.5e3 @\"q\" x");
  int cols[] = {1, 6, 9, 14, 20, 25};
  for (int i = 0; i < 6; i++) {
    Token t = lexer_next(&l.lx);
    assert_int_equal(t.loc.col, cols[i]);
    assert_int_equal(t.loc.line, 1);
  }
  lex_close(&l);
}

static void test_first_line_offset(void **state) {
  (void)state;
  Lex l;
  lex_open_n(&l, "x\ny", 3, 40);
  Token t = lexer_next(&l.lx);
  assert_int_equal(t.loc.line, 40);
  t = lexer_next(&l.lx);
  assert_int_equal(t.loc.line, 41);
  assert_int_equal(t.loc.col, 1);
  lex_close(&l);
}

static void test_crlf(void **state) {
  (void)state;
  Lex l;
  lex_open(&l, "a\r\nb // c\r\n d");
  expect_tok(&l, TOK_IDENT, "a");
  Token t = expect_tok(&l, TOK_IDENT, "b");
  assert_int_equal(t.loc.line, 2);
  assert_int_equal(t.loc.col, 1);
  t = expect_tok(&l, TOK_IDENT, "d");
  assert_int_equal(t.loc.line, 3);
  assert_int_equal(t.loc.col, 2);
  lex_close(&l);
}

static void test_error_tokens(void **state) {
  (void)state;
  Lex l;
  lex_open(&l, "$ ~ ; \\ `");
  for (int i = 0; i < 5; i++) {
    Token t = lexer_next(&l.lx);
    assert_int_equal(t.kind, TOK_ERROR);
    assert_int_equal(t.len, 1);
    assert_int_equal(t.loc.col, 1 + 2 * i);
  }
  expect_tok(&l, TOK_EOF, "");
  lex_close(&l);
}

static void test_sigil_without_name(void **state) {
  (void)state;
  static const char *const inputs[] = {"%", "% x", "@", "@ x", "#", "^", "!"};
  for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
    Lex l;
    lex_open(&l, inputs[i]);
    Token t = lexer_next(&l.lx);
    assert_int_equal(t.kind, TOK_ERROR);
    assert_int_equal(t.len, 1);
    lex_close(&l);
  }
}

static void test_nul_bytes(void **state) {
  (void)state;
  Lex l;
  static const char text[] = "a\0b\0\0%c";
  lex_open_n(&l, text, sizeof text - 1, 1);
  expect_tok(&l, TOK_IDENT, "a");
  Token t = lexer_next(&l.lx);
  assert_int_equal(t.kind, TOK_ERROR);
  assert_int_equal(t.len, 1);
  assert_int_equal(t.text[0], 0);
  assert_int_equal(t.loc.col, 2);
  expect_tok(&l, TOK_IDENT, "b");
  assert_int_equal(lexer_next(&l.lx).kind, TOK_ERROR);
  assert_int_equal(lexer_next(&l.lx).kind, TOK_ERROR);
  expect_tok(&l, TOK_PERCENT, "%c");
  /* the lexer stops at the end given, not at the first NUL */
  expect_tok(&l, TOK_EOF, "");
  lex_close(&l);
}

static void test_nul_inside_string(void **state) {
  (void)state;
  Lex l;
  /* A NUL byte ends a string as unterminated: printed output never holds NUL. */
  static const char text[] = "\"a\0b\" x";
  lex_open_n(&l, text, sizeof text - 1, 1);
  Token t = lexer_next(&l.lx);
  assert_int_equal(t.kind, TOK_ERROR);
  assert_int_equal(t.len, 2);
  lex_close(&l);
}

static void test_end_bound_respected(void **state) {
  (void)state;
  Lex l;
  /* Lex only "ab c" of "ab cdef": the last token is cut at the end. */
  lex_open(&l, "ab cdef");
  l.lx.end = l.buf + 4;
  expect_tok(&l, TOK_IDENT, "ab");
  expect_tok(&l, TOK_IDENT, "c");
  expect_tok(&l, TOK_EOF, "");
  lex_close(&l);
}

static void test_eof_is_sticky(void **state) {
  (void)state;
  Lex l;
  lex_open(&l, "  // only a comment");
  for (int i = 0; i < 3; i++) assert_int_equal(lexer_next(&l.lx).kind, TOK_EOF);
  lex_close(&l);
}

static void test_reset_to(void **state) {
  (void)state;
  Lex l;
  lex_open(&l, "foo\n  bar baz");
  lexer_next(&l.lx);
  Token bar = lexer_next(&l.lx);
  Token baz = lexer_next(&l.lx);
  assert_true(tok_is(&baz, "baz"));
  lexer_reset_to(&l.lx, &bar);
  Token again = lexer_next(&l.lx);
  assert_true(tok_is(&again, "bar"));
  assert_ptr_equal(again.text, bar.text);
  assert_int_equal(again.loc.line, 2);
  assert_int_equal(again.loc.col, 3);
  lex_close(&l);
}

static void test_skip_space_and_loc(void **state) {
  (void)state;
  Lex l;
  lex_open(&l, "  // c\n   x");
  lexer_skip_space(&l.lx);
  Loc loc = lexer_loc(&l.lx);
  assert_int_equal(loc.line, 2);
  assert_int_equal(loc.col, 4);
  assert_int_equal(*l.lx.p, 'x');
  lex_close(&l);
}

static void test_tok_is(void **state) {
  (void)state;
  Lex l;
  lex_open(&l, "\"x\" x -> %x");
  Token s = lexer_next(&l.lx), id = lexer_next(&l.lx), arrow = lexer_next(&l.lx), pc = lexer_next(&l.lx);
  assert_false(tok_is(&s, "\"x\"")); /* strings never match */
  assert_true(tok_is(&id, "x"));
  assert_false(tok_is(&id, "xx"));
  assert_false(tok_is(&id, ""));
  assert_true(tok_is(&arrow, "->"));
  assert_false(tok_is(&arrow, "-"));
  assert_false(tok_is(&pc, "%x"));
  lex_close(&l);
}

int run_lexer_tests(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_identifiers),
      cmocka_unit_test(test_punctuation),
      cmocka_unit_test(test_arrow_glued),
      cmocka_unit_test(test_resource_braces),
      cmocka_unit_test(test_percent_names),
      cmocka_unit_test(test_caret_and_bang),
      cmocka_unit_test(test_symbols),
      cmocka_unit_test(test_unterminated_quoted_symbol),
      cmocka_unit_test(test_hash_tokens),
      cmocka_unit_test(test_dash_before_arrow_ends_name),
      cmocka_unit_test(test_strings),
      cmocka_unit_test(test_string_escapes),
      cmocka_unit_test(test_unterminated_string),
      cmocka_unit_test(test_integers),
      cmocka_unit_test(test_hex_needs_digit),
      cmocka_unit_test(test_floats),
      cmocka_unit_test(test_exponent_needs_digits),
      cmocka_unit_test(test_shape_text_tokens),
      cmocka_unit_test(test_locations),
      cmocka_unit_test(test_locations_after_multichar_tokens),
      cmocka_unit_test(test_first_line_offset),
      cmocka_unit_test(test_crlf),
      cmocka_unit_test(test_error_tokens),
      cmocka_unit_test(test_sigil_without_name),
      cmocka_unit_test(test_nul_bytes),
      cmocka_unit_test(test_nul_inside_string),
      cmocka_unit_test(test_end_bound_respected),
      cmocka_unit_test(test_eof_is_sticky),
      cmocka_unit_test(test_reset_to),
      cmocka_unit_test(test_skip_space_and_loc),
      cmocka_unit_test(test_tok_is),
  };
  return cmocka_run_group_tests_name("lexer", tests, NULL, NULL);
}
