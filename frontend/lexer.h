/* Lexer for MLIR / StableHLO text. */
#ifndef TPUCC_LEXER_H
#define TPUCC_LEXER_H

#include "ir/ir.h"

typedef enum TokKind {
  TOK_EOF,
  TOK_ERROR,
  TOK_IDENT,      /* bare identifier: stablehlo.add, tensor, f32, dense */
  TOK_PERCENT,    /* %name or %0, optionally with #N (use of a result) */
  TOK_CARET,      /* ^bb0 */
  TOK_AT,         /* @name or @"name" */
  TOK_HASH,       /* #name or #dialect.name */
  TOK_BANG,       /* !dialect.name */
  TOK_INT,        /* 123 or 0x1F */
  TOK_FLOAT,      /* 1.5, 1e3, 2.0E-5 */
  TOK_STRING,     /* "..." (text includes the quotes) */
  TOK_PUNCT,      /* ( ) [ ] { } < > , : = -> + - * ? {-# #-} */
} TokKind;

typedef struct Token {
  TokKind kind;
  const char *text;
  size_t len;
  Loc loc;
} Token;

typedef struct Lexer {
  const SourceFile *file;
  const char *p, *end;
  uint32_t line, col;
} Lexer;

void lexer_init(Lexer *lx, const SourceFile *file, const char *start, const char *end, uint32_t first_line);
Token lexer_next(Lexer *lx);
/* Move the lexer back to the start of token t (for character-level parsing). */
void lexer_reset_to(Lexer *lx, const Token *t);
/* Skip spaces and comments without producing a token. */
void lexer_skip_space(Lexer *lx);
Loc lexer_loc(const Lexer *lx);

bool tok_is(const Token *t, const char *text); /* punctuation or identifier text */
/* Decode a string literal's contents (escapes \n \t \" \\ \XX) into the arena. */
char *tok_string_value(Arena *a, const Token *t, size_t *len);

#endif
