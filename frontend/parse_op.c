/* Parsing of modules, functions, regions, blocks and ops in generic form;
 * pretty forms are in parse_custom.c. */
#include <stdlib.h>
#include <string.h>

#include "frontend/bytecode.h"
#include "frontend/parse_internal.h"

/* ------------------------------------------------------------ tokens */

void p_next(Parser *p) {
  p->prev_end = (Loc){p->lex.file, p->lex.line, p->lex.col};
  p->tok = lexer_next(&p->lex);
}
bool p_is(Parser *p, const char *text) { return tok_is(&p->tok, text); }

bool p_accept(Parser *p, const char *text) {
  if (!p_is(p, text)) return false;
  p_next(p);
  return true;
}

/* A missing token is reported where it belongs: after the previous token
 * when the current one starts a later line (as MLIR's custom parsers do). */
bool p_expect(Parser *p, const char *text) {
  if (p_accept(p, text)) return true;
  if (p->tok.kind == TOK_EOF) {
    p_error_here(p, "expected '%s' but reached the end of the input", text);
  } else if (p->tok.kind != TOK_ERROR && p->prev_end.file && p->tok.loc.line > p->prev_end.line) {
    p_error(p, p->prev_end, "expected '%s' here, found '%.*s' on a later line", text,
            (int)(p->tok.len > 40 ? 40 : p->tok.len), p->tok.text);
  } else {
    p_error_here(p, "expected '%s', found '%.*s'", text, (int)(p->tok.len > 40 ? 40 : p->tok.len), p->tok.text);
  }
  return false;
}

void p_error(Parser *p, Loc loc, const char *fmt, ...) {
  /* One syntax error per top-level item: later ones are usually echoes. */
  if (p->error) return;
  p->error = true;
  va_list ap;
  va_start(ap, fmt);
  diag_vreport(p->c, loc, SEV_ERROR, fmt, ap);
  va_end(ap);
}

void p_error_here(Parser *p, const char *fmt, ...) {
  if (p->error) return;
  p->error = true;
  va_list ap;
  va_start(ap, fmt);
  if (p->tok.kind == TOK_ERROR) {
    diag_report(p->c, p->tok.loc, SEV_ERROR, "unexpected character or unterminated token '%.*s'",
                (int)(p->tok.len > 20 ? 20 : p->tok.len), p->tok.text);
  } else {
    diag_vreport(p->c, p->tok.loc, SEV_ERROR, fmt, ap);
  }
  va_end(ap);
}

/* ------------------------------------------------------------ scopes */

void scope_push(Parser *p) {
  Scope *s = xcalloc(1, sizeof(Scope));
  s->parent = p->scope;
  p->scope = s;
}

void scope_pop(Parser *p) {
  Scope *s = p->scope;
  p->scope = s->parent;
  table_free(&s->names, NULL);
  free(s);
}

static ScopeEntry *scope_lookup(const Parser *p, const char *name, size_t len) {
  for (Scope *sc = p->scope; sc; sc = sc->parent) {
    void **e = table_get(&sc->names, name, len);
    if (e) return *e;
  }
  return NULL;
}

/* Define %name (token text includes '%') as count consecutive values. */
bool scope_define(Parser *p, const Token *name, Value *values, int count) {
  const char *s = name->text + 1;
  size_t len = name->len - 1;
  if (scope_lookup(p, s, len)) {
    p_error(p, name->loc, "redefinition of SSA value '%.*s'", (int)name->len, name->text);
    return false;
  }
  for (int i = 0; i < count; i++)
    if (!values[i].name_hint) values[i].name_hint = arena_strndup(&p->c->arena, name->text, name->len);
  ScopeEntry *e = arena_alloc(&p->c->arena, sizeof(ScopeEntry));
  *e = (ScopeEntry){values, count};
  *table_put(&p->scope->names, s, len) = e;
  return true;
}

/* %name or %name#N: look the value up through the enclosing scopes. */
Value *parse_value_use(Parser *p) {
  Token t = p->tok;
  if (t.kind != TOK_PERCENT) {
    p_error_here(p, "expected SSA value");
    return NULL;
  }
  p_next(p);
  const char *s = t.text + 1;
  size_t len = t.len - 1;
  int index = 0;
  const char *hash = memchr(s, '#', len);
  if (hash) {
    long long n = strtoll(hash + 1, NULL, 10);
    index = n > INT32_MAX ? INT32_MAX : (int)n;
    len = (size_t)(hash - s);
  }
  ScopeEntry *e = scope_lookup(p, s, len);
  if (e) {
    if (index >= e->count) {
      p_error(p, t.loc, "result number %d of '%%%.*s' out of range (it has %d results)", index, (int)len, s,
              e->count);
      return NULL;
    }
    return &e->values[index];
  }
  p_error(p, t.loc, "use of undeclared SSA value name '%.*s'", (int)t.len, t.text);
  return NULL;
}

/* ------------------------------------------------------------ regions */


bool parse_block_args(Parser *p, PtrVec *names, PtrVec *types) {
  if (!p_expect(p, "(")) return false;
  if (p_accept(p, ")")) return true;
  do {
    if (p->tok.kind != TOK_PERCENT) {
      p_error_here(p, "expected block argument");
      return false;
    }
    Token *name = arena_dup(&p->c->arena, &p->tok, sizeof(Token));
    p_next(p);
    if (!p_expect(p, ":")) return false;
    Type *t = parse_type(p);
    if (!t) return false;
    if (p_is(p, "{") && !parse_attr_dict(p)) return false;
    skip_loc(p, NULL); /* loc(...) on a block argument */
    if (p->error) return false;
    vec_push(names, name);
    vec_push(types, t);
  } while (p_accept(p, ","));
  return p_expect(p, ")");
}

static bool parse_block_body(Parser *p, Block *b) {
  while (!p_is(p, "}") && p->tok.kind != TOK_CARET) {
    if (p->tok.kind == TOK_EOF) {
      p_error_here(p, "expected '}' to close a region");
      return false;
    }
    Op *op = parse_op(p);
    if (!op) return false;
    op_append(b, op);
  }
  return true;
}

/* Parse '{' blocks '}'.  When nargs >= 0 the entry block's arguments are
 * given (pretty forms name them elsewhere): named_args_out[i] are already
 * defined by the caller's scope. */
bool parse_region(Parser *p, Region *r, int nargs, Type **arg_types, Value **named_args_out) {
  if (!p_expect(p, "{")) return false;
  if (++p->depth > PARSE_MAX_DEPTH) {
    p_error_here(p, "regions nested too deeply");
    p->depth--;
    return false;
  }
  scope_push(p);
  bool ok = true;
  bool first = true;
  while (ok && !p_is(p, "}")) {
    Block *b;
    if (p->tok.kind == TOK_CARET) {
      p_next(p);
      PtrVec names = {0}, types = {0};
      if (p_is(p, "(")) ok = parse_block_args(p, &names, &types);
      ok = ok && p_expect(p, ":");
      if (ok) {
        b = block_create(p->c, r, types.len, (Type **)types.items);
        for (int i = 0; ok && i < names.len; i++) ok = scope_define(p, names.items[i], &b->args[i], 1);
        region_add_block(p->c, r, b);
      }
      vec_free(&names);
      vec_free(&types);
      if (!ok) break;
    } else if (first) {
      b = block_create(p->c, r, nargs > 0 ? nargs : 0, arg_types);
      if (named_args_out)
        for (int i = 0; i < nargs; i++) named_args_out[i] = &b->args[i];
      region_add_block(p->c, r, b);
    } else {
      p_error_here(p, "expected a block label");
      ok = false;
      break;
    }
    first = false;
    ok = parse_block_body(p, r->blocks[r->nblocks - 1]);
  }
  scope_pop(p);
  p->depth--;
  return ok && p_expect(p, "}");
}

/* ------------------------------------------------------------ ops */

void skip_loc(Parser *p, Op *op) {
  if (!(p->tok.kind == TOK_IDENT && tok_is(&p->tok, "loc"))) return;
  Token start = p->tok;
  p_next(p);
  if (!p_is(p, "(")) {
    p_error_here(p, "expected '(' after 'loc'");
    return;
  }
  int depth = 0;
  const char *end = start.text;
  do {
    if (p_is(p, "(")) depth++;
    else if (p_is(p, ")")) depth--;
    else if (p->tok.kind == TOK_EOF) {
      p_error_here(p, "unterminated loc(...)");
      return;
    }
    end = p->tok.text + p->tok.len;
    p_next(p);
  } while (depth > 0);
  if (op) op->srcloc = arena_strndup(&p->c->arena, start.text, (size_t)(end - start.text));
}

/* The "({...}, {...})" regions of a generic op after its '(', into a
 * temporary array (moved into the op once it exists); false after a
 * diagnostic. */
static bool parse_generic_regions(Parser *p, Region **regions, int *nregions) {
  PtrVec rv = {0};
  bool ok = true;
  do {
    Region *r = arena_alloc(&p->c->arena, sizeof(Region));
    ok = parse_region(p, r, -1, NULL, NULL);
    if (ok) vec_push(&rv, r);
  } while (ok && p_accept(p, ","));
  ok = ok && p_expect(p, ")");
  if (ok) {
    *nregions = rv.len;
    *regions = arena_alloc(&p->c->arena, sizeof(Region) * (size_t)(rv.len ? rv.len : 1));
    for (int i = 0; i < rv.len; i++) (*regions)[i] = *(Region *)rv.items[i];
  }
  vec_free(&rv);
  return ok;
}

/* The generic op's function type against its operands (their types so
 * far) and the results bound to it; false after a diagnostic. */
static bool generic_types_match(Parser *p, Loc loc, Loc type_loc, const Type *ft, const PtrVec *operands,
                                int nresults) {
  if (ft->ninputs != operands->len) {
    p_error(p, type_loc, "expected %d operand types but had %d", operands->len, ft->ninputs);
    return false;
  }
  for (int i = 0; i < operands->len; i++) {
    Value *v = operands->items[i];
    if (v->type != ft->inputs[i]) {
      p_error(p, type_loc, "use of value '%s' expects different type than prior uses: '%s' vs '%s'",
              v->name_hint ? v->name_hint : "%?", type_to_string(p->c, ft->inputs[i]), type_to_string(p->c, v->type));
      return false;
    }
  }
  if (ft->nresults != nresults) {
    p_error(p, loc, "operation defines %d results but was provided %d to bind", ft->nresults, nresults);
    return false;
  }
  return true;
}

/* The op kind of a name; arith.constant, which upstream StableHLO tests
 * use for tensor constants, reads as stablehlo.constant (the same syntax
 * and semantics when its value is a tensor). */
static OpKind parse_op_kind(const char *name, size_t len) {
  if (len == 14 && memcmp(name, "arith.constant", 14) == 0) return OP_CONSTANT;
  return op_kind_from_name(name, len);
}

/* "name"(operands) <{props}>? ({regions})? {attrs}? : (types) -> types */
static Op *parse_generic_op(Parser *p, Loc loc, int nresults) {
  Token name_tok = p->tok;
  size_t nlen;
  char *name = tok_string_value(&p->c->arena, &name_tok, &nlen);
  p_next(p);
  PtrVec operands = {0}, attrs = {0};
  Op *op = NULL;
  if (!p_expect(p, "(")) goto out;
  if (!p_is(p, ")")) {
    do {
      Value *v = parse_value_use(p);
      if (!v) goto out;
      vec_push(&operands, v);
    } while (p_accept(p, ","));
  }
  if (!p_expect(p, ")")) goto out;
  if (p_is(p, "[")) {
    p_error_here(p, "block successors are not supported (StableHLO uses structured control flow)");
    goto out;
  }
  if (p_accept(p, "<")) {
    if (!p_is(p, "{")) {
      p_error_here(p, "expected '{' after '<' for op properties");
      goto out;
    }
    Attr *props = parse_attr_dict(p);
    if (!props || !p_expect(p, ">")) goto out;
    for (int i = 0; i < props->u.dict.n; i++) vec_push(&attrs, &props->u.dict.items[i]);
  }
  OpKind kind = parse_op_kind(name, nlen);
  /* Regions are parsed into a temporary op, then moved. */
  Region *tmp_regions = NULL;
  int nregions = 0;
  if (p_accept(p, "(") && !parse_generic_regions(p, &tmp_regions, &nregions)) goto out;
  if (p_is(p, "{")) {
    Attr *d = parse_attr_dict(p);
    if (!d) goto out;
    for (int i = 0; i < d->u.dict.n; i++) {
      for (int j = 0; j < attrs.len; j++)
        if (strcmp(((NamedAttr *)attrs.items[j])->name, d->u.dict.items[i].name) == 0) {
          p_error(p, loc, "attribute '%s' given both as property and attribute", d->u.dict.items[i].name);
          goto out;
        }
      vec_push(&attrs, &d->u.dict.items[i]);
    }
  }
  if (!p_expect(p, ":")) goto out;
  Loc type_loc = p->tok.loc;
  Type *ft = parse_function_type(p);
  if (!ft) goto out;
  if (!generic_types_match(p, loc, type_loc, ft, &operands, nresults)) goto out;
  NamedAttr *flat = arena_alloc(&p->c->arena, sizeof(NamedAttr) * (size_t)(attrs.len ? attrs.len : 1));
  for (int i = 0; i < attrs.len; i++) flat[i] = *(NamedAttr *)attrs.items[i];
  op = op_create(p->c, kind, kind == OP_UNKNOWN ? name : NULL, loc, operands.len, (Value **)operands.items,
                 ft->nresults, (Type **)ft->results, attrs.len, flat, nregions);
  for (int i = 0; i < nregions; i++) {
    op->regions[i] = tmp_regions[i];
    op->regions[i].parent = op;
    for (int b = 0; b < op->regions[i].nblocks; b++) op->regions[i].blocks[b]->parent = &op->regions[i];
  }
out:
  vec_free(&operands);
  vec_free(&attrs);
  return op;
}

Op *parse_op(Parser *p) {
  PtrVec names = {0};
  PtrVec counts = {0};
  int nresults = 0;
  Loc loc = p->tok.loc;
  Loc outer = p->op_loc;
  Op *op = NULL;
  if (p->tok.kind == TOK_PERCENT) {
    do {
      if (p->tok.kind != TOK_PERCENT || memchr(p->tok.text, '#', p->tok.len)) {
        p_error_here(p, "expected SSA result name");
        goto out;
      }
      Token *name = arena_dup(&p->c->arena, &p->tok, sizeof(Token));
      p_next(p);
      intptr_t count = 1;
      if (p_accept(p, ":")) {
        int64_t n;
        if (p->tok.kind != TOK_INT || !parse_int64(p, &n) || n < 1 || n > 1000000) {
          p_error(p, name->loc, "invalid result count");
          goto out;
        }
        count = (intptr_t)n;
      }
      vec_push(&names, name);
      vec_push(&counts, (void *)count);
      nresults += (int)count;
    } while (p_accept(p, ","));
    if (!p_expect(p, "=")) goto out;
    loc = p->tok.loc;
  }
  p->op_loc = loc;
  if (p->tok.kind == TOK_STRING) {
    op = parse_generic_op(p, loc, nresults);
  } else if (p->tok.kind == TOK_IDENT) {
    Token name = p->tok;
    OpKind kind = parse_op_kind(name.text, name.len);
    if (kind == OP_UNKNOWN && !memchr(name.text, '.', name.len)) {
      char buf[64];
      snprintf(buf, sizeof buf, "func.%.*s", (int)(name.len > 40 ? 40 : name.len), name.text);
      kind = op_kind_from_name(buf, strlen(buf));
      if (kind == OP_UNKNOWN) {
        snprintf(buf, sizeof buf, "builtin.%.*s", (int)(name.len > 40 ? 40 : name.len), name.text);
        kind = op_kind_from_name(buf, strlen(buf));
      }
    }
    if (kind == OP_UNKNOWN || !op_info[kind].format) {
      p_error(p, name.loc, "custom op '%.*s' is unknown%s", (int)name.len, name.text,
              kind != OP_UNKNOWN ? " in pretty form (write it in generic form)" : "");
      goto out;
    }
    p_next(p);
    if (!parse_custom_op(p, kind, loc, nresults, &op)) op = NULL;
  } else {
    p_error_here(p, "expected operation name");
    goto out;
  }
  if (!op) goto out;
  skip_loc(p, op);
  if (p->error) {
    op = NULL;
    goto out;
  }
  if (op->nresults != nresults) {
    p_error(p, loc, "operation defines %d results but was provided %d to bind", op->nresults, nresults);
    op = NULL;
    goto out;
  }
  /* Bind result names. */
  int base = 0;
  for (int i = 0; i < names.len; i++) {
    int count = (int)(intptr_t)counts.items[i];
    if (!scope_define(p, names.items[i], &op->results[base], count)) {
      op = NULL;
      goto out;
    }
    base += count;
  }
out:
  p->op_loc = outer;
  vec_free(&names);
  vec_free(&counts);
  return op;
}

/* ------------------------------------------------------------ top level */

/* Is the current token the first on its line? */
static bool tok_starts_line(const Parser *p) {
  const char *q = p->tok.text;
  while (q > p->file->text && (q[-1] == ' ' || q[-1] == '\t')) q--;
  return q == p->file->text || q[-1] == '\n';
}

void recover_to_next_item(Parser *p) {
  /* Skip the token that failed, then up to a line that starts a function, a
   * module, an alias or the resource section. */
  if (p->tok.kind != TOK_EOF) p_next(p);
  while (p->tok.kind != TOK_EOF) {
    if (tok_starts_line(p) &&
        ((p->tok.kind == TOK_IDENT && (tok_is(&p->tok, "func.func") || tok_is(&p->tok, "module"))) ||
         (p->tok.kind == TOK_STRING && p->tok.len == 11 && memcmp(p->tok.text, "\"func.func\"", 11) == 0) ||
         p_is(p, "{-#") || ((p->tok.kind == TOK_HASH || p->tok.kind == TOK_BANG) && p->tok.loc.col == 1)))
      return;
    p_next(p);
  }
}

/* #name = attribute or !name = type at the top level. */
static void define_alias(Parser *p) {
  Token name = p->tok;
  p_next(p);
  p_next(p); /* '=' */
  if (name.kind == TOK_HASH && p->tok.kind == TOK_IDENT && tok_is(&p->tok, "loc")) {
    skip_loc(p, NULL);
    return;
  }
  Attr *v = NULL;
  Type *t = NULL;
  if (name.kind == TOK_BANG) t = parse_type(p);
  else v = parse_attr(p);
  if (!v && !t) return;
  AttrAlias *al = arena_alloc(&p->c->arena, sizeof(AttrAlias));
  al->name = name.text;
  al->len = name.len;
  al->value = v;
  al->type = t;
  vec_push(&p->aliases, al);
}

/* Is the current token '#name' or '!name' followed by '=' (an alias)? */
static bool at_alias_definition(Parser *p) {
  if (p->tok.kind != TOK_HASH && p->tok.kind != TOK_BANG) return false;
  Lexer save = p->lex;
  Token t = p->tok;
  p_next(p);
  bool is_def = p_is(p, "=");
  p->lex = save;
  p->tok = t;
  return is_def;
}

/* Parse top-level items into body until EOF (or '}' when nested). */
static void parse_top_level_items(Parser *p, Block *body, bool nested) {
  while (p->tok.kind != TOK_EOF && !(nested && p_is(p, "}"))) {
    p->error = false;
    if (at_alias_definition(p)) {
      define_alias(p);
      if (p->error) recover_to_next_item(p);
      continue;
    }
    if (p_is(p, "{-#")) {
      parse_resource_section(p);
      if (p->error) return;
      continue;
    }
    if (!body) {
      p_error_here(p, "expected end of input after the module (one top-level module per input)");
      return;
    }
    const char *before = p->tok.text;
    Op *op = parse_op(p);
    if (op) op_append(body, op);
    else if (p->error) recover_to_next_item(p);
    else break;
    if (!op && p->tok.text == before && p->tok.kind != TOK_EOF) p_next(p); /* always make progress */
  }
}

int split_input_file(const SourceFile *file, SourceChunk **out) {
  const char *s = file->text, *end = file->text + file->len;
  int cap = 16, n = 0;
  SourceChunk *chunks = xrealloc(NULL, sizeof(SourceChunk) * (size_t)cap);
  const char *chunk_start = s;
  uint32_t chunk_line = 1, line = 1;
  for (const char *p = s; p < end;) {
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    if (!eol) eol = end;
    const char *q = p;
    while (q < eol && (*q == ' ' || *q == '\t')) q++;
    const char *r = eol;
    while (r > q && (r[-1] == ' ' || r[-1] == '\t' || r[-1] == '\r')) r--;
    if (r - q == 8 && memcmp(q, "// -----", 8) == 0) {
      if (n == cap) chunks = xrealloc(chunks, sizeof(SourceChunk) * (size_t)(cap *= 2));
      chunks[n++] = (SourceChunk){chunk_start, p, chunk_line};
      chunk_start = eol < end ? eol + 1 : end;
      chunk_line = line + 1;
    }
    line++;
    p = eol < end ? eol + 1 : end;
  }
  if (n == cap) chunks = xrealloc(chunks, sizeof(SourceChunk) * (size_t)(cap + 1));
  chunks[n++] = (SourceChunk){chunk_start, end, chunk_line};
  *out = chunks;
  return n;
}

int source_chunks(const SourceFile *file, bool split, SourceChunk **out) {
  if (split && !bytecode_is_mlir(file->text, file->len)) return split_input_file(file, out);
  *out = xrealloc(NULL, sizeof(SourceChunk));
  (*out)[0] = (SourceChunk){file->text, file->text + file->len, 1};
  return 1;
}

Module *parse_module(Context *c, const SourceFile *file, const char *start, const char *end, uint32_t first_line) {
  if (bytecode_is_mlir(start, (size_t)(end - start))) {
    SourceFile *bytes = arena_dup(&c->arena, file, sizeof *file);
    bytes->text = start;
    bytes->len = (size_t)(end - start);
    return bytecode_read_module(c, bytes);
  }
  Parser p = {.c = c, .file = file};
  lexer_init(&p.lex, file, start, end, first_line);
  p_next(&p);
  int errors_before = c->diag.nerrors;
  Module *m = arena_alloc(&c->arena, sizeof(Module));
  m->file = file;
  /* Skip leading aliases, then see whether the file is one explicit module. */
  Op *module_op = NULL;
  Block *implicit = NULL;
  Loc mloc = p.tok.loc;
  while (!p.error && at_alias_definition(&p)) define_alias(&p);
  scope_push(&p);
  if (p.tok.kind == TOK_IDENT && tok_is(&p.tok, "module")) {
    Op *op = parse_op(&p);
    if (op) module_op = op;
    if (!p.error) parse_top_level_items(&p, NULL, false);
    /* Anything else at top level after the module is a second module:
     * only aliases and resources are allowed. */
  } else if (p.tok.kind == TOK_STRING && p.tok.len == 16 && memcmp(p.tok.text, "\"builtin.module\"", 16) == 0) {
    Op *op = parse_op(&p);
    if (op) module_op = op;
    if (!p.error) parse_top_level_items(&p, NULL, false);
  } else {
    module_op = op_create(c, OP_MODULE, NULL, mloc, 0, NULL, 0, NULL, 0, NULL, 1);
    implicit = block_create(c, &module_op->regions[0], 0, NULL);
    region_add_block(c, &module_op->regions[0], implicit);
    parse_top_level_items(&p, implicit, false);
  }
  scope_pop(&p);
  m->op = module_op;
  m->nresources = p.resources.len;
  m->resources = arena_alloc(&c->arena, sizeof(Resource) * (size_t)(p.resources.len ? p.resources.len : 1));
  for (int i = 0; i < p.resources.len; i++) m->resources[i] = *(Resource *)p.resources.items[i];
  vec_free(&p.resources);
  vec_free(&p.aliases);
  table_free(&p.type_memo, NULL);
  if (c->diag.nerrors > errors_before || !module_op) return NULL;
  return m;
}
