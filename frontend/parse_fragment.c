/* Parsing one attribute or type from a string (parser.h): the text parser
 * run over a fragment, which must be consumed entirely. */
#include "frontend/parse_internal.h"

/* A parser over s[0, n), named after loc's file. */
static void fragment_begin(Parser *p, Context *c, const char *s, size_t n, Loc loc) {
  SourceFile *f = arena_alloc(&c->arena, sizeof *f);
  f->name = loc.file ? loc.file->name : "<fragment>";
  f->text = arena_strndup(&c->arena, s, n);
  f->len = n;
  *p = (Parser){.c = c, .file = f};
  lexer_init(&p->lex, f, f->text, f->text + n, loc.line ? loc.line : 1);
  p_next(p);
}

/* Whether the fragment was consumed without error; releases the parser. */
static bool fragment_end(Parser *p, bool parsed, int errors_before) {
  if (parsed && !p->error && p->tok.kind != TOK_EOF) p_error_here(p, "unexpected text after the end");
  vec_free(&p->resources);
  vec_free(&p->aliases);
  table_free(&p->type_memo, NULL);
  return parsed && !p->error && p->c->diag.nerrors == errors_before;
}

Attr *parse_attribute_text(Context *c, const char *s, size_t n, Loc loc) {
  Parser p;
  int errors_before = c->diag.nerrors;
  fragment_begin(&p, c, s, n, loc);
  Attr *a = p.tok.kind == TOK_EOF ? NULL : parse_attr(&p);
  if (!a && !p.error) p_error_here(&p, "expected an attribute");
  return fragment_end(&p, a != NULL, errors_before) ? a : NULL;
}

Type *parse_type_text(Context *c, const char *s, size_t n, Loc loc) {
  Parser p;
  int errors_before = c->diag.nerrors;
  fragment_begin(&p, c, s, n, loc);
  Type *t = p.tok.kind == TOK_EOF ? NULL : parse_type(&p);
  if (!t && !p.error) p_error_here(&p, "expected a type");
  return fragment_end(&p, t != NULL, errors_before) ? t : NULL;
}
