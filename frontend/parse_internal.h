/* Parser state shared by the front end's files. */
#ifndef TPUCC_PARSE_INTERNAL_H
#define TPUCC_PARSE_INTERNAL_H

#include "frontend/lexer.h"
#include "frontend/parser.h"
#include "ir/table.h"

/* A name bound in an SSA scope: count consecutive values (an op's results). */
typedef struct ScopeEntry {
  Value *values;
  int count;
} ScopeEntry;

/* One SSA name scope (a region): name (without '%') -> ScopeEntry*. */
typedef struct Scope {
  struct Scope *parent;
  Table names;
} Scope;

typedef struct AttrAlias {
  const char *name; /* "#map" or "!type" as written */
  size_t len;
  Attr *value;      /* an attribute alias */
  Type *type;       /* a type alias (!name = type) */
} AttrAlias;

typedef struct Parser {
  Context *c;
  Lexer lex;
  Token tok;  /* current token */
  Loc prev_end; /* just after the token before it (where a missing token belongs) */
  Loc op_loc;   /* the op being parsed (file NULL outside ops), for op-level rules */
  const SourceFile *file;
  Scope *scope;
  PtrVec resources;  /* Resource* referenced or defined */
  PtrVec aliases;    /* AttrAlias* */
  bool error;        /* a syntax error occurred in the current top-level item */
  int depth;         /* nesting depth guard */
  Table type_memo;   /* tensor type spelling ("tensor<2x3xf32>") -> Type* */
} Parser;

enum { PARSE_MAX_DEPTH = 200 };

/* Token handling. */
void p_next(Parser *p);
bool p_is(Parser *p, const char *text);
bool p_accept(Parser *p, const char *text);
bool p_expect(Parser *p, const char *text);
void p_error(Parser *p, Loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void p_error_here(Parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Types and attributes (parse_type_attr.c). */
Type *parse_type(Parser *p);
bool parse_type_list_parens(Parser *p, PtrVec *out); /* ( t, t ) */
Type *parse_function_type(Parser *p);
Attr *parse_attr(Parser *p);
/* Skips the balanced <...> text at the current '<' token, as MLIR does for
 * dialect attributes; *end_text: just after its '>'. */
bool skip_balanced_angles(Parser *p, const char **end_text);
Attr *parse_attr_dict(Parser *p);  /* { k = v, ... }; the current token is '{' */
/* An unsigned 64-bit integer token (up to 2^64-1). */
bool parse_uint64(Parser *p, uint64_t *out);
bool parse_int64(Parser *p, int64_t *out); /* optional leading '-' */
bool parse_i64_list(Parser *p, int *n, int64_t **v); /* [1, 2] */
Attr *parse_conv_dims_body(Parser *p); /* [b, 0, 1, f]x[...]->[...] */
Attr *parse_dot_algorithm_body(Parser *p); /* <lhs_precision_type = bf16, ...> */
bool check_dot_algorithm(Parser *p, const Attr *a, Loc loc); /* dot_general C22-C24, I8-I10 */
Attr *parse_float_literal(Parser *p, ElemKind k); /* 1.5, -2, 0x7FC00000: no type */
void parse_resource_section(Parser *p);

/* Ops (parse_op.c, parse_custom.c). */
Op *parse_op(Parser *p);
/* Skip a trailing loc(...) if present, keeping its text on op (may be NULL). */
void skip_loc(Parser *p, Op *op);
/* After a syntax error: skip to the next line that starts a top-level item. */
void recover_to_next_item(Parser *p);
bool parse_region(Parser *p, Region *r, int nargs, Type **arg_types, Value **named_args_out);
/* '(' %a: type {attrs}? loc? , ... ')' of a block header: the names
 * (Token *) and types (Type *) pushed on the vectors. */
bool parse_block_args(Parser *p, PtrVec *names, PtrVec *types);
Value *parse_value_use(Parser *p);
void scope_push(Parser *p);
void scope_pop(Parser *p);
bool scope_define(Parser *p, const Token *name, Value *values, int count);
bool parse_custom_op(Parser *p, OpKind kind, Loc loc, int nresults, Op **out);

#endif
