/* Eager op signatures: an op name, its attributes and operand types are
 * verified once, by the compiler's own parser, type inference and
 * verifier, on a one-op module; the signature is then found by hash.  Its
 * executable is that module lowered directly (no pass but the op's kernel
 * choice and the fit check), kept in the memory tier. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "ir/table.h"
#include "runtime/runtime.h"

/* A growable string. */
typedef struct Str {
  char *p;
  size_t n, cap;
  bool oom;
} Str;

static void str_add(Str *s, const char *text, size_t len) {
  if (s->oom) return;
  if (s->n + len + 1 > s->cap) {
    size_t cap = s->cap ? s->cap : 256;
    while (cap < s->n + len + 1) cap *= 2;
    char *p = realloc(s->p, cap);
    if (!p) {
      s->oom = true;
      return;
    }
    s->p = p, s->cap = cap;
  }
  memcpy(s->p + s->n, text, len);
  s->n += len;
  s->p[s->n] = '\0';
}

static void str_puts(Str *s, const char *text) { str_add(s, text, strlen(text)); }

static void str_printf(Str *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void str_printf(Str *s, const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n < (int)sizeof buf) {
    str_add(s, buf, (size_t)n);
    return;
  }
  char *big = malloc((size_t)n + 1);
  if (!big) {
    s->oom = true;
    return;
  }
  va_start(ap, fmt);
  vsnprintf(big, (size_t)n + 1, fmt, ap);
  va_end(ap);
  str_add(s, big, (size_t)n);
  free(big);
}

/* ---- the text of a one-op module ---------------------------------------- */

/* "(T0, T1)" of types. */
static void type_list(Str *s, const RtType *const *t, int n) {
  str_puts(s, "(");
  for (int i = 0; i < n; i++) str_printf(s, "%s%s", i ? ", " : "", t[i]->mlir);
  str_puts(s, ")");
}

/* The module holding the op `head operands tail` on arguments %i0..:
 * with results when res is non-NULL, else with none (inference probes). */
static char *module_text(const char *head, const char *tail, const RtType *const *in, int nin,
                         const RtType *const *res, int nres) {
  Str s = {0};
  str_puts(&s, "func.func @main(");
  for (int i = 0; i < nin; i++) str_printf(&s, "%s%%i%d: %s", i ? ", " : "", i, in[i]->mlir);
  str_puts(&s, ") -> ");
  type_list(&s, res, res ? nres : 0);
  str_puts(&s, " {\n  ");
  if (res && nres == 1) str_puts(&s, "%r = ");
  if (res && nres > 1) str_printf(&s, "%%r:%d = ", nres);
  str_puts(&s, head);
  for (int i = 0; i < nin; i++) str_printf(&s, "%s%%i%d", i ? ", " : "", i);
  str_puts(&s, tail);
  str_puts(&s, "\n  return");
  for (int i = 0; res && i < nres; i++) str_printf(&s, nres == 1 ? " %%r" : "%s %%r#%d", i ? "," : "", i);
  for (int i = 0; res && i < nres; i++) str_printf(&s, "%s%s", i ? ", " : " : ", res[i]->mlir);
  str_puts(&s, "\n}\n");
  if (s.oom) free(s.p);
  return s.oom ? NULL : s.p;
}

/* ") MID : (in) -> (res)" */
static char *tail_text(const char *mid, const RtType *const *in, int nin, const RtType *const *res, int nres) {
  Str s = {0};
  str_printf(&s, ")%s%s : ", *mid ? " " : "", mid);
  type_list(&s, in, nin);
  str_puts(&s, " -> ");
  type_list(&s, res, res ? nres : 0);
  if (s.oom) free(s.p);
  return s.oom ? NULL : s.p;
}

/* ---- parsing and checking ------------------------------------------------ */

/* A parse of a generated module, with its diagnostics in memory. */
typedef struct Probe {
  Context *ctx;
  Module *m;
  Op *op;      /* the one op */
  char *diag;
  size_t diaglen;
  FILE *out;
  char *text; /* owned: diagnostics quote it until probe_free */
  SourceFile file;
  char name[64];
} Probe;

/* Parses text (named "op #N") and finds its op; false after diagnostics
 * or when the text is not exactly one op of kind `kind` on the arguments
 * (attributes that smuggle in more text). */
static bool probe_parse(Probe *p, char *text, uint64_t op_index, OpKind kind, int nin) {
  memset(p, 0, sizeof *p);
  p->text = text;
  snprintf(p->name, sizeof p->name, "op #%" PRIu64, op_index);
  p->file = (SourceFile){p->name, text, strlen(text)};
  p->ctx = ctx_new();
  p->out = open_memstream(&p->diag, &p->diaglen);
  if (p->out) p->ctx->diag.out = p->out;
  p->m = parse_module(p->ctx, &p->file, text, text + p->file.len, 1);
  if (!p->m) return false;
  Op *fn = module_lookup_func(p->m, "main");
  Block *b = fn ? op_body(fn) : NULL;
  Op *op = b ? b->first : NULL;
  bool one = op && op->next == b->last && op->kind == kind && op->noperands == nin;
  for (int i = 0; one && i < nin; i++) one = !op->operands[i]->def && op->operands[i]->index == i;
  if (!one) {
    fprintf(p->out ? p->out : stderr, "%s: error: the attributes are not one attribute dictionary (and regions) of the op\n",
            p->name);
    return false;
  }
  p->op = op;
  return true;
}

/* Fails with the probe's diagnostics (or fallback); returns code.  The
 * diagnostics name the op "op #N:" without the line and column inside the
 * generated module (the quoted line and its caret show the place). */
static int probe_fail(Probe *p, int code, const char *fallback) {
  if (p->out) fflush(p->out);
  if (!p->diag || !*p->diag) return rt_fail(code, "%s", fallback);
  size_t name = strlen(p->name), w = 0;
  for (size_t r = 0; p->diag[r];) {
    if (strncmp(p->diag + r, p->name, name) == 0 && p->diag[r + name] == ':') {
      size_t k = r + name + 1, digits = 0;
      while (p->diag[k] >= '0' && p->diag[k] <= '9') k++, digits++;
      if (digits && p->diag[k] == ':') k++;
      while (p->diag[k] >= '0' && p->diag[k] <= '9') k++, digits++;
      if (digits && p->diag[k] == ':') {
        memmove(p->diag + w, p->diag + r, name);
        w += name, r = k;
        continue;
      }
    }
    p->diag[w++] = p->diag[r++];
  }
  p->diag[w] = '\0';
  return rt_fail(code, "%s", p->diag);
}

static void probe_free(Probe *p) {
  free(p->text);
  if (p->out) fclose(p->out);
  free(p->diag);
  if (p->ctx) ctx_free(p->ctx);
}

/* The ops whose single binary body `body = "stablehlo.add"` names. */
static bool takes_body_shorthand(OpKind k) {
  return k == OP_REDUCE || k == OP_REDUCE_WINDOW || k == OP_SCATTER || k == OP_ALL_REDUCE || k == OP_REDUCE_SCATTER;
}

/* The attributes and regions of the op as text: the probe's attributes
 * printed back, with a `body` shorthand turned into its region. */
static char *mid_text(Probe *p, const char *attrs, const RtType *const *in, int nin) {
  Op *op = p->op;
  const Attr *body = op_attr(op, "body");
  if (!body || op->nregions > 0 || !takes_body_shorthand(op->kind)) return strdup(attrs);
  if (body->kind != ATTR_STRING) {
    op_error(p->ctx, op, "body must name a binary op, as in body = \"stablehlo.add\"");
    return NULL;
  }
  OpKind bk = op_kind_from_name(body->u.str.s, body->u.str.len);
  if (bk == OP_UNKNOWN || op_info[bk].min_operands != 2 || op_info[bk].num_regions != 0 || nin < 1) {
    op_error(p->ctx, op, "body \"%.*s\" is not a binary StableHLO op", (int)body->u.str.len, body->u.str.s);
    return NULL;
  }
  if ((op->kind == OP_REDUCE || op->kind == OP_REDUCE_WINDOW) && nin != 2) {
    op_error(p->ctx, op, "the body shorthand takes one input and one init value; write the region for %d operands", nin);
    return NULL;
  }
  /* The element type: past one "Nx" per dimension ("complex<f32>" holds an x). */
  const char *elem = in[0]->str;
  for (int d = 0; d < in[0]->vm.rank; d++) elem = strchr(elem, 'x') + 1;
  Str s = {0};
  str_printf(&s,
             "({\n  ^bb0(%%a: tensor<%s>, %%b: tensor<%s>):\n    %%s = \"%.*s\"(%%a, %%b) : (tensor<%s>, "
             "tensor<%s>) -> tensor<%s>\n    stablehlo.return %%s : tensor<%s>\n  }) {",
             elem, elem, (int)body->u.str.len, body->u.str.s, elem, elem, elem, elem);
  int k = 0;
  for (int i = 0; i < op->nattrs; i++) {
    if (strcmp(op->attrs[i].name, "body") == 0) continue;
    str_printf(&s, "%s%s = %s", k++ ? ", " : "", op->attrs[i].name, attr_to_string(p->ctx, op->attrs[i].value));
  }
  str_puts(&s, "}");
  if (s.oom) free(s.p);
  return s.oom ? NULL : s.p;
}

/* The result types of op by StableHLO's inference, interned; false after
 * diagnostics. */
static bool infer_results(TpuClient *c, Probe *p, const RtType **res, int nres) {
  Type *out[64];
  int n = infer_result_types(p->ctx, p->op, out, 64);
  if (n < 0) return false;
  if (n != nres) {
    op_error(p->ctx, p->op, "has %d results, but %d result tensors were asked for", n, nres);
    return false;
  }
  for (int i = 0; i < n; i++) {
    char *t = type_to_string(p->ctx, out[i]);
    if (!(res[i] = rt_type_intern(c, t))) {
      op_error(p->ctx, p->op, "result %d has type %s, which an eager tensor cannot hold", i, t);
      return false;
    }
  }
  return true;
}

/* Parses the op `head attrs` on operands of types in with no results (a
 * probe): true with p holding it, else false after rt_fail (p freed). */
static bool probe_op(Probe *p, const char *head, const char *attrs, const RtType *const *in, int nin, OpKind kind,
                     uint64_t op_index) {
  char *tail = tail_text(attrs, in, nin, NULL, 0);
  char *text = tail ? module_text(head, tail, in, nin, NULL, 0) : NULL;
  free(tail);
  if (!text) return rt_fail(TPU_ERR_RUNTIME, "out of host memory"), false;
  bool ok = probe_parse(p, text, op_index, kind, nin);
  if (!ok) probe_fail(p, TPU_ERR_REJECTED, "rejected"), probe_free(p);
  return ok;
}

/* The attributes and regions of the op (the body shorthand expanded) in
 * *mid and, with infer, its inferred result types; TPU_OK or rt_fail's
 * code. */
static int resolve_op(TpuClient *c, const char *head, const char *attrs, const RtType *const *in, int nin, OpKind kind,
                      bool infer, const RtType **res, int nres, uint64_t op_index, char **mid) {
  Probe p;
  if (!probe_op(&p, head, attrs, in, nin, kind, op_index)) return TPU_ERR_REJECTED;
  *mid = mid_text(&p, attrs, in, nin);
  if (*mid && infer && strcmp(*mid, attrs) != 0) {
    /* The region changes what inference sees (reduce's body types). */
    probe_free(&p);
    if (!probe_op(&p, head, *mid, in, nin, kind, op_index)) return free(*mid), *mid = NULL, TPU_ERR_REJECTED;
  }
  bool ok = *mid && (!infer || infer_results(c, &p, res, nres));
  if (!ok) probe_fail(&p, TPU_ERR_REJECTED, "rejected");
  probe_free(&p);
  if (!ok) free(*mid), *mid = NULL;
  return ok ? TPU_OK : TPU_ERR_REJECTED;
}

/* Verifies the one-op module of head and tail; TPU_OK or rt_fail's code. */
static int verify_op(const char *head, const char *tail, const RtType *const *in, int nin, const RtType *const *res,
                     int nres, OpKind kind, uint64_t op_index) {
  char *module = module_text(head, tail, in, nin, res, nres);
  if (!module) return rt_fail(TPU_ERR_RUNTIME, "out of host memory");
  Probe p;
  bool ok = probe_parse(&p, module, op_index, kind, nin) && verify_module(p.ctx, p.m);
  if (!ok) probe_fail(&p, TPU_ERR_REJECTED, "rejected");
  probe_free(&p);
  return ok ? TPU_OK : TPU_ERR_REJECTED;
}

/* Builds a new signature into *out: resolves the op and its result types
 * and verifies the one-op module; TPU_OK or rt_fail's code. */
static int build_sig(TpuClient *c, OpKind kind, const char *op, const char *attrs, const RtType *const *in, int nin,
                     const RtType **res, int nres, bool infer, uint64_t op_index, RtSig **out) {
  char *head = malloc(strlen(op) + 4), *mid = NULL, *tail = NULL;
  if (!head) return rt_fail(TPU_ERR_RUNTIME, "out of host memory");
  sprintf(head, "\"%s\"(", op);
  int rc = resolve_op(c, head, attrs, in, nin, kind, infer, res, nres, op_index, &mid);
  if (rc == TPU_OK && !(tail = tail_text(mid, in, nin, res, nres))) rc = rt_fail(TPU_ERR_RUNTIME, "out of host memory");
  free(mid);
  if (rc == TPU_OK) rc = verify_op(head, tail, in, nin, res, nres, kind, op_index);
  RtSig *sig = rc == TPU_OK ? calloc(1, sizeof *sig) : NULL;
  const RtType **types = sig ? malloc(sizeof *types * (size_t)(nin + nres + 1)) : NULL;
  if (!types) {
    if (rc == TPU_OK) rc = rt_fail(TPU_ERR_RUNTIME, "out of host memory");
    free(sig), free(head), free(tail);
    return rc;
  }
  memcpy(types, in, sizeof *types * (size_t)nin);
  memcpy(types + nin, res, sizeof *types * (size_t)nres);
  *sig = (RtSig){.op = strdup(op), .attrs = strdup(attrs), .nin = nin, .nres = nres, .in = types,
                 .res = types + nin, .head = head, .tail = tail};
  *out = sig;
  return TPU_OK;
}

/* ---- the signature table -------------------------------------------------- */

/* The signature's key: op, attributes, the number of results, whether
 * their types are inferred, and the interned operand and result types, as
 * bytes; into buf when it fits in cap, else malloc'ed (NULL when out of
 * memory).  *len: its size. */
static char *sig_key(char *buf, size_t cap, const char *op, const char *attrs, const RtType *const *in, int nin,
                     const RtType *const *res, int nres, size_t *len) {
  size_t lo = strlen(op) + 1, la = strlen(attrs) + 1, lt = sizeof *in * (size_t)(nin + (res ? nres : 0));
  *len = lo + la + 2 + lt;
  char *k = *len <= cap ? buf : malloc(*len);
  if (!k) return NULL;
  memcpy(k, op, lo);
  memcpy(k + lo, attrs, la);
  k[lo + la] = (char)nres; /* at most 64 */
  k[lo + la + 1] = res ? 'r' : 'i';
  memcpy(k + lo + la + 2, in, sizeof *in * (size_t)nin);
  if (res) memcpy(k + lo + la + 2 + sizeof *in * (size_t)nin, res, sizeof *res * (size_t)nres);
  return k;
}

void rt_sig_free(void *sig) {
  RtSig *s = sig;
  RtExe *e = (RtExe *)atomic_load(&s->exe);
  if (e) rt_exe_free(e);
  free(s->op), free(s->attrs), free(s->head), free(s->tail), free(s->in), free(s->key), free(s);
}

/* The op's kind, or OP_UNKNOWN after rt_fail when the name is not an op
 * tpu_op can run. */
static OpKind op_kind_checked(const char *op) {
  size_t n = strlen(op);
  for (size_t i = 0; i < n; i++)
    if (!(op[i] == '.' || op[i] == '_' || (op[i] >= 'a' && op[i] <= 'z') || (op[i] >= '0' && op[i] <= '9')))
      return rt_fail(TPU_ERR_USAGE, "'%s' is not an op name like \"stablehlo.add\"", op), OP_UNKNOWN;
  OpKind k = op_kind_from_name(op, n);
  if (k == OP_UNKNOWN) return rt_fail(TPU_ERR_USAGE, "'%s' is not a StableHLO or CHLO op", op), OP_UNKNOWN;
  if (strncmp(op, "stablehlo.", 10) && strncmp(op, "chlo.", 5))
    return rt_fail(TPU_ERR_USAGE, "'%s' is not a StableHLO or CHLO op", op), OP_UNKNOWN;
  if (k == OP_RETURN || (op_info[k].traits & TRAIT_TERMINATOR))
    return rt_fail(TPU_ERR_USAGE, "'%s' ends a region; it is not an op tpu_op can run", op), OP_UNKNOWN;
  return k;
}

/* Builds and interns the signature of key (not yet in the table) in *out;
 * TPU_OK or rt_fail's code. */
static int intern_sig(TpuClient *c, const char *key, size_t klen, const char *op, const char *attrs,
                      const RtType *const *in, int nin, const RtType **res, int nres, bool infer, uint64_t op_index,
                      RtSig **out) {
  OpKind kind = op_kind_checked(op);
  if (kind == OP_UNKNOWN) return TPU_ERR_USAGE;
  RtSig *made = NULL;
  int rc = build_sig(c, kind, op, attrs, in, nin, res, nres, infer, op_index, &made);
  if (rc) return rc;
  if (!(made->key = malloc(klen))) {
    rt_sig_free(made);
    return rt_fail(TPU_ERR_RUNTIME, "out of host memory");
  }
  memcpy(made->key, key, klen);
  pthread_mutex_lock(&c->lock);
  void **slot = table_put(&c->sigs, made->key, klen);
  if (!*slot) *slot = made, made = NULL;
  *out = *slot;
  pthread_mutex_unlock(&c->lock);
  if (made) rt_sig_free(made); /* another thread interned it first */
  else atomic_fetch_add(&c->m.signatures, 1);
  return TPU_OK;
}

int rt_sig_get(TpuClient *c, const char *op, const char *attrs, const RtType *const *in, int nin,
               const char *const *result_types, int nres, uint64_t op_index, RtSig **out) {
  const RtType *res[64];
  if (nres > 64) return rt_fail(TPU_ERR_USAGE, "tpu_op: %d results (at most 64)", nres);
  for (int i = 0; result_types && i < nres; i++)
    if (!(res[i] = rt_type_intern(c, result_types[i])))
      return rt_fail(TPU_ERR_USAGE, "tpu_op: result type %d: %s", i, rt_last_error());
  char stack[512];
  size_t klen;
  char *key = sig_key(stack, sizeof stack, op, attrs, in, nin, result_types ? res : NULL, nres, &klen);
  if (!key) return rt_fail(TPU_ERR_RUNTIME, "out of host memory");
  pthread_mutex_lock(&c->lock);
  void **slot = table_get(&c->sigs, key, klen);
  *out = slot ? *slot : NULL;
  pthread_mutex_unlock(&c->lock);
  int rc = *out ? TPU_OK : intern_sig(c, key, klen, op, attrs, in, nin, res, nres, !result_types, op_index, out);
  if (key != stack) free(key);
  return rc;
}

char *rt_sig_module(const RtSig *sig) { return module_text(sig->head, sig->tail, sig->in, sig->nin, sig->res, sig->nres); }

RtExe *rt_sig_exe(TpuClient *c, RtSig *sig, uint64_t op_index) {
  RtExe *e = (RtExe *)atomic_load(&sig->exe);
  if (e) return e;
  double t0 = rt_now();
  char *text = rt_sig_module(sig);
  Probe p = {0};
  bool ok = text && probe_parse(&p, text, op_index, op_kind_from_name(sig->op, strlen(sig->op)), sig->nin);
  uint8_t *img = NULL;
  size_t n = 0;
  ok = ok && compile_optimize(p.ctx, p.m, &c->op_opts, NULL);
  BackendOptions bo = compile_backend_options(&c->op_opts);
  ok = ok && backend_compile(p.ctx, p.m, &bo, &img, &n);
  if (!ok) probe_fail(&p, text ? TPU_ERR_REJECTED : TPU_ERR_RUNTIME, "out of host memory");
  probe_free(&p);
  if (!ok) return NULL;
  char err[512];
  VmProgram *prog = vm_program_load(img, n, err, sizeof err);
  free(img);
  /* As tpucc (exit 2): the verifier accepted a form the VM's loader has
   * no kernel for (e.g. a dot_general of floats into integers). */
  if (!prog)
    return rt_fail(TPU_ERR_REJECTED, "op #%" PRIu64 " '%s': tpurun has no kernel for this form of the op: %s", op_index,
                   sig->op, err),
           NULL;
  vm_program_set_source(prog, "eager op");
  if (!(e = rt_exe_new(prog, 0))) return NULL;
  uintptr_t expected = 0;
  if (!atomic_compare_exchange_strong(&sig->exe, &expected, (uintptr_t)e)) {
    rt_exe_free(e);
    return (RtExe *)expected;
  }
  atomic_fetch_add(&c->m.direct, 1);
  pthread_mutex_lock(&c->m.metrics_lock);
  c->m.direct_s += rt_now() - t0;
  pthread_mutex_unlock(&c->m.metrics_lock);
  return e;
}
