/* Helpers shared by the unit test groups; declared in unit_tests.h. */
#include "testsuite/unit/unit_tests.h"

#include "backend/backend.h"

Parsed *cur;

int parsed_teardown(void **state) {
  (void)state;
  parsed_free(cur);
  cur = NULL;
  return 0;
}

Module build_unary_module(Context *c, const char *name, OpKind kind, Type *t, Op **fn, Op **unary) {
  Loc nowhere = {0};
  Op *mod = op_create(c, OP_MODULE, NULL, nowhere, 0, NULL, 0, NULL, 0, NULL, 1);
  Block *mb = block_create(c, &mod->regions[0], 0, NULL);
  region_add_block(c, &mod->regions[0], mb);
  Type *ft = type_func(c, 1, &t, 1, &t);
  NamedAttr fa[2] = {{"sym_name", attr_string(c, name, strlen(name))}, {"function_type", attr_type(c, ft)}};
  Op *f = op_create(c, OP_FUNC, NULL, nowhere, 0, NULL, 0, NULL, 2, fa, 1);
  op_append(mb, f);
  Block *fb = block_create(c, &f->regions[0], 1, &t);
  region_add_block(c, &f->regions[0], fb);
  Value *arg = &fb->args[0];
  Op *u = op_create(c, kind, NULL, nowhere, 1, &arg, 1, &t, 0, NULL, 0);
  op_append(fb, u);
  Value *r = &u->results[0];
  op_append(fb, op_create(c, OP_FUNC_RETURN, NULL, nowhere, 1, &r, 0, NULL, 0, NULL, 0));
  if (fn) *fn = f;
  if (unary) *unary = u;
  return (Module){.op = mod};
}

void *failing_realloc(void *ud, void *p, size_t old, size_t n) {
  FailingAlloc *f = ud;
  (void)old;
  if (n == 0) {
    free(p);
    return NULL;
  }
  if (++f->calls == f->fail_at) return NULL;
  return realloc(p, n);
}

uint8_t *compile_text(const char *text, size_t *n) {
  Parsed *p = parse_text(text);
  assert_non_null(p->m);
  assert_true(verify_module(p->c, p->m));
  BackendOptions bo = {.target = "v5e", .compiler_version = "test"};
  uint8_t *img = NULL;
  assert_true(backend_compile(p->c, p->m, &bo, &img, n));
  parsed_free(p);
  return img;
}
