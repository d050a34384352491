/* cmocka unit tests: one binary (build/unit_tests), one group per file.
 *
 * Each test_<name>.c exports run_<name>_tests(), which runs its group with
 * cmocka_run_group_tests_name and returns the number of failures; main.c
 * calls them all.  The helpers below parse text into a module with the
 * diagnostics captured in memory, so tests can assert on their text. */
#ifndef TPUCC_UNIT_TESTS_H
#define TPUCC_UNIT_TESTS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka.h needs the three headers above first. */
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/parser.h"
#include "ir/ir.h"

int run_lexer_tests(void);
int run_types_tests(void);
int run_elem_tests(void);
int run_attrs_tests(void);
int run_parser_tests(void);
int run_printer_tests(void);
int run_verifier_tests(void);
int run_bytecode_tests(void);
int run_vm_io_tests(void);
int run_vm_fusion_tests(void);
int run_vm_fused_tests(void);
int run_vm_move_tests(void);
int run_vm_collective_tests(void);
int run_ici_tests(void);
int run_tables_tests(void);
int run_infer_tests(void);
int run_runtime_tests(void);
int run_vecmath_tests(void);
int run_gemm_tests(void);
int run_vm_pool_tests(void);
int run_sharding_tests(void);
int run_bc_read_tests(void);
int run_vhlo_legalize_tests(void);
int run_bc_write_tests(void);

/* A VmReallocFn that fails the fail_at-th allocation (1-based) and counts
 * calls: for the VM's allocation-failure tests. */
typedef struct FailingAlloc {
  int calls, fail_at;
} FailingAlloc;
void *failing_realloc(void *ud, void *p, size_t old, size_t n);

/* Parses, verifies and lowers text to a .tpub image (malloc'ed); fails the
 * test on any error. */
uint8_t *compile_text(const char *text, size_t *n);
int run_fold_tests(void);
int run_cache_tests(void);

/* A parse of one text: the context, the module (NULL if rejected) and the
 * diagnostics printed while parsing (and verifying, if asked). */
typedef struct Parsed {
  Context *c;
  Module *m;
  SourceFile file;
  char *text;   /* private copy of the input (NUL-terminated) */
  char *diag;   /* diagnostics so far (see parsed_diags) */
  size_t diag_len;
  FILE *diag_out;
} Parsed;

/* Parse len bytes of text (which may contain NUL bytes) as a module read
 * from file NAME, stopping after MAX_ERRORS errors; SHOW_SOURCE: quote the
 * source line under each diagnostic. */
static inline Parsed *parse_file_text(const char *name, const char *text, size_t len, int max_errors,
                                      bool show_source) {
  Parsed *p = calloc(1, sizeof *p);
  p->c = ctx_new();
  p->diag_out = open_memstream(&p->diag, &p->diag_len);
  p->c->diag.out = p->diag_out;
  p->c->diag.show_source = show_source;
  p->c->diag.max_errors = max_errors;
  p->text = malloc(len + 1);
  memcpy(p->text, text, len);
  p->text[len] = 0;
  p->file = (SourceFile){name, p->text, len};
  p->m = parse_module(p->c, &p->file, p->text, p->text + len, 1);
  return p;
}

/* Parse len bytes of text (which may contain NUL bytes) as a module. */
static inline Parsed *parse_text_n(const char *text, size_t len) {
  return parse_file_text("test.mlir", text, len, 1000, false);
}

static inline Parsed *parse_text(const char *text) { return parse_text_n(text, strlen(text)); }

/* The diagnostics printed so far ("" if none). */
static inline const char *parsed_diags(Parsed *p) {
  fflush(p->diag_out);
  return p->diag ? p->diag : "";
}

static inline int parsed_errors(const Parsed *p) { return p->c->diag.nerrors; }

/* Parse and verify: true when both succeed. */
static inline bool parsed_verify(Parsed *p) { return p->m && verify_module(p->c, p->m); }

static inline void parsed_free(Parsed *p) {
  if (!p) return;
  fclose(p->diag_out);
  free(p->diag);
  ctx_free(p->c);
  free(p->text);
  free(p);
}

/* Printed module (malloc'd). */
static inline char *parsed_print(Parsed *p, bool generic) {
  PrintOptions o = {.generic = generic};
  return print_module_string(p->c, p->m, &o);
}

/* The parse of the current test (helpers.c), freed by parsed_teardown. */
extern Parsed *cur;
int parsed_teardown(void **state);

/* A module built with the IR API, without source locations:
 *   func.func @NAME(%arg0: T) -> T { %0 = KIND %arg0 : T; func.return %0 }
 * *fn and *unary (unless NULL) receive the function and the op of kind KIND. */
Module build_unary_module(Context *c, const char *name, OpKind kind, Type *t, Op **fn, Op **unary);

/* The first func.func of the module and its body. */
static inline Op *first_func(const Module *m) {
  Block *b = op_body(m->op);
  for (Op *op = b ? b->first : NULL; op; op = op->next)
    if (op->kind == OP_FUNC) return op;
  return NULL;
}

/* The i-th op (0-based) of the first function's body. */
static inline Op *func_op(const Module *m, int i) {
  Op *f = first_func(m);
  Block *b = f ? op_body(f) : NULL;
  Op *op = b ? b->first : NULL;
  while (op && i-- > 0) op = op->next;
  return op;
}

/* Assert that haystack contains needle, printing both if not. */
#define assert_contains(haystack, needle)                                                   \
  do {                                                                                      \
    const char *h_ = (haystack), *n_ = (needle);                                            \
    if (!h_ || !strstr(h_, n_)) fail_msg("expected to find \"%s\" in:\n%s", n_, h_ ? h_ : "(null)"); \
  } while (0)

#define assert_not_contains(haystack, needle)                                               \
  do {                                                                                      \
    const char *h_ = (haystack), *n_ = (needle);                                            \
    if (h_ && strstr(h_, n_)) fail_msg("did not expect \"%s\" in:\n%s", n_, h_);            \
  } while (0)

#endif
