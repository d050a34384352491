/* The bytecode round trip: lowering, determinism, the loader's refusal of
 * truncated, corrupted and hostile images, and the VM's accounted memory. */
#include <dirent.h>
#include <math.h>
#include <xxhash.h>

#include "backend/backend.h"
#include "backend/emit.h"
#include "common/scalar.h"
#include "vm/dtype.h"
#include "testsuite/unit/unit_tests.h"
#include "vm/profile.h"
#include "vm/vm.h"

/* A program with calls, a loop, a region body, constants and a dot. */
static const char program_text[] =
    "func.func @main(%x: tensor<2x3xf32>, %w: tensor<3x2xf32>) -> (tensor<2x2xf32>, tensor<i32>) {\n"
    "  %d = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>\n"
    "  %one = stablehlo.constant dense<1.0> : tensor<2x2xf32>\n"
    "  %s = stablehlo.add %d, %one : tensor<2x2xf32>\n"
    "  %n = call @count() : () -> tensor<i32>\n"
    "  return %s, %n : tensor<2x2xf32>, tensor<i32>\n"
    "}\n"
    "func.func private @count() -> tensor<i32> {\n"
    "  %c0 = stablehlo.constant dense<0> : tensor<i32>\n"
    "  %c1 = stablehlo.constant dense<1> : tensor<i32>\n"
    "  %c5 = stablehlo.constant dense<5> : tensor<i32>\n"
    "  %r = stablehlo.while(%i = %c0) : tensor<i32>\n"
    "    cond {\n"
    "      %p = stablehlo.compare LT, %i, %c5 : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
    "      stablehlo.return %p : tensor<i1>\n"
    "    } do {\n"
    "      %j = stablehlo.add %i, %c1 : tensor<i32>\n"
    "      stablehlo.return %j : tensor<i32>\n"
    "    }\n"
    "  return %r : tensor<i32>\n"
    "}\n";


/* Runs @main on fixed inputs; returns the status and checks the results
 * when it succeeds. */
static int run_main(const VmProgram *prog, const VmOptions *o, bool expect_ok) {
  VmExec *x = vm_exec_new(prog, o);
  assert_non_null(x);
  int fi = vm_program_find(prog, "main");
  assert_true(fi >= 0);
  const VmFunc *fn = &prog->funcs[fi];
  float xs[6] = {1, 2, 3, 4, 5, 6}, ws[6] = {1, 0, 0, 1, 1, 1};
  VmValue args[2] = {{.type = fn->reg_types[0], .data = xs}, {.type = fn->reg_types[1], .data = ws}};
  VmValue res[2] = {{0}};
  int rc = vm_run(x, fi, args, 2, res);
  if (rc == VM_OK) {
    const float *s = res[0].data;
    /* [[1 2 3] [4 5 6]] x [[1 0] [0 1] [1 1]] + 1 = [[5 6] [11 12]] */
    assert_true(s[0] == 5 && s[1] == 6 && s[2] == 11 && s[3] == 12);
    assert_int_equal(*(const int32_t *)res[1].data, 5);
    vm_value_free(&res[0]);
    vm_value_free(&res[1]);
  } else {
    assert_false(expect_ok);
    assert_true(strlen(vm_error(x)) > 0);
  }
  vm_exec_free(x);
  return rc;
}

static void test_round_trip(void **state) {
  (void)state;
  size_t n;
  uint8_t *img = compile_text(program_text, &n);
  char err[256];
  VmProgram *prog = vm_program_load(img, n, err, sizeof err);
  if (!prog) fail_msg("load failed: %s", err);
  assert_string_equal(prog->target, "v5e");
  assert_int_equal(run_main(prog, NULL, true), VM_OK);
  vm_program_free(prog);
  free(img);
}

static void test_deterministic(void **state) {
  (void)state;
  size_t n1, n2;
  uint8_t *a = compile_text(program_text, &n1), *b = compile_text(program_text, &n2);
  assert_int_equal(n1, n2);
  assert_memory_equal(a, b, n1);
  free(a);
  free(b);
}

static void expect_refused(const uint8_t *img, size_t n, const char *reason) {
  char err[256] = "";
  VmProgram *p = vm_program_load(img, n, err, sizeof err);
  if (p) fail_msg("loaded a bad image (expected '%s')", reason);
  if (!strstr(err, reason)) fail_msg("reason '%s' does not mention '%s'", err, reason);
}

static void fix_checksum(uint8_t *img, size_t n) {
  TpubHeader *h = (TpubHeader *)img;
  h->checksum = 0;
  h->checksum = XXH3_64bits(img, n);
}

static void test_truncated(void **state) {
  (void)state;
  size_t n;
  uint8_t *img = compile_text(program_text, &n);
  for (size_t len = 0; len < n; len++) {
    char err[256] = "";
    VmProgram *p = vm_program_load(img, len, err, sizeof err);
    assert_null(p);
    assert_true(strlen(err) > 0);
  }
  expect_refused(img, 10, "truncated");
  expect_refused(img, n - 1, "truncated");
  free(img);
}

static void test_corrupted_header(void **state) {
  (void)state;
  size_t n;
  uint8_t *img = compile_text(program_text, &n);
  uint8_t *bad = malloc(n);
  memcpy(bad, img, n);
  bad[0] = 'X';
  expect_refused(bad, n, "bad magic");
  memcpy(bad, img, n);
  ((TpubHeader *)bad)->format_version = 99;
  expect_refused(bad, n, "format version 99");
  /* Version 5 had no SHARDS section and reserved words where MODULE now
   * has its flags and mesh: refused at the header, not misread. */
  memcpy(bad, img, n);
  ((TpubHeader *)bad)->format_version = 5;
  fix_checksum(bad, n);
  expect_refused(bad, n, "format version 5, this tpurun reads version 7");
  memcpy(bad, img, n);
  bad[n / 2] ^= 0x40;
  expect_refused(bad, n, "checksum mismatch");
  memcpy(bad, img, n);
  ((TpubHeader *)bad)->section_count = 1000;
  fix_checksum(bad, n);
  expect_refused(bad, n, "sections");
  /* A section pointing past the end. */
  memcpy(bad, img, n);
  TpubSection *sec = (TpubSection *)(bad + sizeof(TpubHeader));
  sec[1].count = 0x7fffffff;
  fix_checksum(bad, n);
  expect_refused(bad, n, "extends past the end");
  free(bad);
  free(img);
}

/* Every single-byte change with a repaired checksum is refused with a
 * reason, or loads and runs to a result or a trap: never a crash. */
static void test_every_byte_flip(void **state) {
  (void)state;
  size_t n;
  uint8_t *img = compile_text(program_text, &n);
  uint8_t *bad = malloc(n);
  FILE *devnull = fopen("/dev/null", "w");
  VmOptions o = {.hbm_bytes = 1 << 20, .max_steps = 10000, .check_out = devnull, .warn_out = devnull};
  int loaded = 0;
  for (size_t i = sizeof(TpubHeader); i < n; i++) {
    static const uint8_t flips[] = {0x01, 0x80, 0xff};
    for (size_t k = 0; k < sizeof flips; k++) {
      memcpy(bad, img, n);
      bad[i] ^= flips[k];
      fix_checksum(bad, n);
      char err[256] = "";
      VmProgram *p = vm_program_load(bad, n, err, sizeof err);
      if (!p) {
        assert_true(strlen(err) > 0);
        continue;
      }
      loaded++;
      int fi = vm_program_find(p, "main");
      if (fi >= 0 && p->funcs[fi].n_params == 2) {
        VmExec *x = vm_exec_new(p, &o);
        const VmFunc *fn = &p->funcs[fi];
        float buf0[64] = {0}, buf1[64] = {0};
        if (fn->reg_types[0]->nbytes <= (int64_t)sizeof buf0 && fn->reg_types[1]->nbytes <= (int64_t)sizeof buf1) {
          VmValue args[2] = {{.type = fn->reg_types[0], .data = buf0}, {.type = fn->reg_types[1], .data = buf1}};
          VmValue *res = calloc(fn->n_results + 1, sizeof(VmValue));
          if (vm_run(x, fi, args, 2, res) == VM_OK)
            for (uint32_t r = 0; r < fn->n_results; r++) vm_value_free(&res[r]);
          free(res);
        }
        vm_exec_free(x);
      }
      vm_program_free(p);
    }
  }
  /* Some flips (e.g. in location line numbers or constant bytes) are
   * harmless: the loader must not be refusing everything. */
  assert_true(loaded > 0);
  fclose(devnull);
  free(bad);
  free(img);
}


static void test_allocation_failures(void **state) {
  (void)state;
  size_t n;
  uint8_t *img = compile_text(program_text, &n);
  char err[256];
  VmProgram *prog = vm_program_load(img, n, err, sizeof err);
  assert_non_null(prog);
  /* Every allocation of a run, failed in turn, ends in a clean trap. */
  for (int k = 1;; k++) {
    FailingAlloc fa = {0, k};
    VmOptions o = {.realloc_fn = failing_realloc, .realloc_ud = &fa};
    int rc = run_main(prog, &o, false);
    if (rc == VM_OK) break;
    assert_true(k < 10000);
  }
  /* A tiny HBM: the trap names the op and the capacity. */
  VmOptions small = {.hbm_bytes = 64};
  VmExec *x = vm_exec_new(prog, &small);
  int fi = vm_program_find(prog, "main");
  float xs[6] = {0}, ws[6] = {0};
  VmValue args[2] = {{.type = prog->funcs[fi].reg_types[0], .data = xs}, {.type = prog->funcs[fi].reg_types[1], .data = ws}};
  VmValue res[2] = {{0}};
  assert_int_equal(vm_run(x, fi, args, 2, res), VM_TRAP);
  assert_non_null(strstr(vm_error(x), "HBM"));
  vm_exec_free(x);
  vm_program_free(prog);
  free(img);
}

/* A chain of n functions, each calling the next: deeper than the VM's call
 * limit is refused by the verifier (ir/verify_calls.c, with no recursion
 * of its own) and, compiled past it, by the loader (before it could
 * recurse that deep). */
static void test_call_depth_limit(void **state) {
  (void)state;
  for (int n = 200; n <= 5000; n += 4800) {
    size_t cap = (size_t)n * 200 + 256, len = 0;
    char *text = malloc(cap);
    for (int i = 0; i < n; i++)
      len += (size_t)snprintf(text + len, cap - len,
                              "func.func %s@f%d(%%a: tensor<f32>) -> tensor<f32> {\n"
                              "  %%0 = call @f%d(%%a) : (tensor<f32>) -> tensor<f32>\n  return %%0 : tensor<f32>\n}\n",
                              i ? "private " : "", i, i + 1);
    snprintf(text + len, cap - len, "func.func private @f%d(%%a: tensor<f32>) -> tensor<f32> {\n  return %%a : tensor<f32>\n}\n", n);
    Parsed *parsed = parse_text(text);
    assert_non_null(parsed->m);
    assert_true(verify_module(parsed->c, parsed->m) == (n < 256));
    BackendOptions bo = {.target = "v5e", .compiler_version = "test"};
    uint8_t *img = NULL;
    size_t size;
    assert_true(backend_compile(parsed->c, parsed->m, &bo, &img, &size));
    parsed_free(parsed);
    char err[256] = "";
    VmProgram *p = vm_program_load(img, size, err, sizeof err);
    if (n < 256) {
      if (!p) fail_msg("a %d-deep call chain was refused: %s", n, err);
      vm_program_free(p);
    } else {
      assert_null(p);
      assert_non_null(strstr(err, "calls nest deeper than 256"));
    }
    free(img);
    free(text);
  }
}

/* The compiler's float codecs (ir/elem.c: constants, folding) and the
 * VM's (vm/dtype.c: kernels, scalar and bulk paths) must give the same
 * bits for every float kind narrower than f32: a NaN is compared bit for
 * bit, sign and payload included.  Decoding: every pattern of every kind
 * up to 19 bits (f16, bf16 and tf32 whole).  Encoding: codec_inputs(). */
static uint64_t f64_bits_of(double d) {
  uint64_t u;
  memcpy(&u, &d, sizeof u);
  return u;
}

static double f64_of_bits(uint64_t u) {
  double d;
  memcpy(&d, &u, sizeof d);
  return d;
}

/* Doubles to encode into kind k, both signs of each: NaNs (quiet,
 * signalling, with payloads), infinities, zeros, f64 and f32 subnormals
 * and extremes, every f32 exponent with a spread of mantissas, and for
 * every pattern of k its value, the midpoints to its neighbours (ties)
 * and the doubles just either side of them.  Returns the count (<= cap). */
static int codec_inputs(ElemKind k, double *out, int cap) {
  static const uint64_t specials[] = {
      0x7ff8000000000000ull, 0x7ff0000000000001ull, 0x7ff4000000000000ull, 0x7fffffffffffffffull,
      0x7ffc000000000000ull, 0x7ff8000020000000ull, 0x7ff2468ace000000ull, 0x7ff0000000000000ull,
      0x0000000000000000ull, 0x0000000000000001ull, 0x000fffffffffffffull, 0x0010000000000000ull,
      0x7fefffffffffffffull, 0x3ff0000000000000ull, 0x36a0000000000000ull, 0x3810000000000000ull,
      0x47efffffe0000000ull, 0x47efffff00000000ull, 0x380fffffe0000000ull};
  static const uint32_t mantissas[] = {0, 1, 0x1000, 0x7fff, 0x8000, 0x8001, 0xffff, 0x10000, 0x100000,
                                       0x200000, 0x400000, 0x3fffff, 0x7fffff, 0x7ffffe, 0x555555, 0x2aaaaa};
  int n = 0;
#define ADD(v) (n < cap ? (void)(out[n++] = (v)) : (void)0)
  for (size_t i = 0; i < sizeof specials / sizeof *specials; i++) ADD(f64_of_bits(specials[i]));
  for (uint32_t e = 0; e < 256; e++)
    for (size_t i = 0; i < sizeof mantissas / sizeof *mantissas; i++) ADD((double)scalar_bits_f32(e << 23 | mantissas[i]));
  int width = k == ELEM_TF32 ? 19 : elem_bits(k);
  double prev = NAN;
  uint64_t half = k == ELEM_F8E8M0FNU ? 1ull << width : 1ull << (width - 1); /* E8M0 has no sign bit */
  for (uint64_t b = 0; b < half; b++) { /* the non-negative values, increasing */
    double v = float_bits_to_double(k, b);
    if (isnan(v) || isinf(v)) continue;
    ADD(v);
    if (prev == prev) {
      double mid = prev + (v - prev) / 2;
      ADD(mid);
      ADD(nextafter(mid, 0));
      ADD(nextafter(mid, INFINITY));
    }
    prev = v;
  }
  ADD(prev * 2);
  ADD(nextafter(prev, INFINITY));
  for (int i = 0, m = n; i < m; i++) ADD(-out[i]);
#undef ADD
  return n;
}

/* fail_msg unless ir and vm, the bits each side gave for `what`, agree. */
static void expect_same_bits(ElemKind k, const char *what, uint64_t in, uint64_t ir, uint64_t vm) {
  if (ir != vm)
    fail_msg("%s %s 0x%llx: ir 0x%llx, vm 0x%llx", elem_name(k), what, (unsigned long long)in,
             (unsigned long long)ir, (unsigned long long)vm);
}

static void test_codecs_agree(void **state) {
  (void)state;
  enum { CAP = 1 << 22 };
  double *in = malloc(CAP * sizeof *in), *wide = malloc(CAP * sizeof *wide);
  float *narrow = malloc(CAP * sizeof *narrow), *f32 = malloc(CAP * sizeof *f32);
  uint64_t *store = malloc(CAP * sizeof *store);
  assert_true(in && wide && narrow && f32 && store);
  int kinds = 0;
  for (int k = 0; k < ELEM_COUNT; k++) {
    TpubElem e;
    if (!elem_is_float((ElemKind)k) || !tpub_elem_of((ElemKind)k, &e) || k == ELEM_F32 || k == ELEM_F64) continue;
    kinds++;
    int width = k == ELEM_TF32 ? 19 : elem_bits((ElemKind)k);
    /* decode: scalar, and the bulk loads into double and float */
    uint64_t count = 1ull << width;
    assert_true(count <= CAP);
    for (uint64_t b = 0; b < count; b++) vm_store_bits(e, store, (int64_t)b, b);
    vm_to_f64(e, store, 0, (int64_t)count, wide);
    vm_to_f32(e, store, 0, (int64_t)count, f32);
    for (uint64_t b = 0; b < count; b++) {
      uint64_t ir = f64_bits_of(float_bits_to_double((ElemKind)k, b));
      expect_same_bits((ElemKind)k, "decode", b, ir, f64_bits_of(vm_float_bits_to_f64(e, b)));
      expect_same_bits((ElemKind)k, "bulk decode", b, ir, f64_bits_of(wide[b]));
      expect_same_bits((ElemKind)k, "decode to f32", b, f64_bits_of((float)f64_of_bits(ir)), f64_bits_of(f32[b]));
    }
    /* encode: scalar, and the bulk stores from double and (for the inputs
     * that are f32 values) from float */
    int n = codec_inputs((ElemKind)k, in, CAP);
    assert_true(n < CAP);
    vm_from_f64(e, store, 0, n, in);
    for (int i = 0; i < n; i++) {
      uint64_t ir = double_to_float_bits((ElemKind)k, in[i]), in_bits = f64_bits_of(in[i]);
      expect_same_bits((ElemKind)k, "encode", in_bits, ir, vm_f64_to_float_bits(e, in[i]));
      expect_same_bits((ElemKind)k, "bulk encode", in_bits, ir, vm_load_bits(e, store, i));
      narrow[i] = (float)in[i];
    }
    vm_from_f32(e, store, 0, n, narrow);
    for (int i = 0; i < n; i++) {
      uint64_t ir = double_to_float_bits((ElemKind)k, narrow[i]);
      expect_same_bits((ElemKind)k, "encode from f32", f64_bits_of(narrow[i]), ir, vm_load_bits(e, store, i));
    }
  }
  assert_int_equal(kinds, 14);
  free(in), free(wide), free(narrow), free(f32), free(store);
}

/* ---- the COSTS section and the profile ---- */

/* A cost model for tests: FLOPs and time from the operand count, MXU bound
 * for dot_general, VPU otherwise; no cost (false) for returns.  ud counts
 * the calls. */
static bool fake_cost(void *ud, const Op *op, TpubCost *out) {
  ++*(int *)ud;
  if (op->kind == OP_FUNC_RETURN) return false;
  out->flops = 1000.0 * (op->noperands + 1);
  out->hbm_bytes = 64;
  out->modeled_s = 1e-6 * (op->noperands + 1);
  out->bound = op->kind == OP_DOT_GENERAL ? TPUB_BOUND_MXU : TPUB_BOUND_VPU;
  out->mxu_util = op->kind == OP_DOT_GENERAL ? 0.5f : 0.0f;
  return true;
}

static uint8_t *compile_with_costs(const char *text, size_t *n, int *calls) {
  Parsed *p = parse_text(text);
  assert_non_null(p->m);
  assert_true(verify_module(p->c, p->m));
  BackendOptions bo = {.target = "v5e", .compiler_version = "test", .op_cost = fake_cost, .cost_ud = calls};
  uint8_t *img = NULL;
  assert_true(backend_compile(p->c, p->m, &bo, &img, n));
  parsed_free(p);
  return img;
}

/* The section-table entry of kind in an image, NULL without one. */
static TpubSection *find_section(uint8_t *img, uint32_t kind) {
  const TpubHeader *h = (const TpubHeader *)img;
  TpubSection *sec = (TpubSection *)(img + sizeof *h);
  for (uint32_t i = 0; i < h->section_count; i++)
    if (sec[i].kind == kind) return &sec[i];
  return NULL;
}

static TpubSection *costs_section(uint8_t *img) { return find_section(img, TPUB_SEC_COSTS); }

static const VmInstr *find_instr(const VmFunc *fn, int opcode) {
  for (uint32_t i = 0; i < fn->n_instrs; i++)
    if (fn->instrs[i].opcode == opcode) return &fn->instrs[i];
  fail_msg("no instruction with opcode %d in %s", opcode, fn->name);
  return NULL;
}

static void test_costs_round_trip(void **state) {
  (void)state;
  size_t n, n2, n3;
  int calls = 0;
  uint8_t *img = compile_with_costs(program_text, &n, &calls);
  /* Once per op directly in a function body: @main has 5, @count 5 (the
   * while's region bodies are part of the while). */
  assert_int_equal(calls, 10);
  uint8_t *again = compile_with_costs(program_text, &n2, &calls);
  assert_int_equal(n, n2);
  assert_memory_equal(img, again, n);
  /* One COSTS record per top-level op, one LOCOPS entry per location. */
  assert_int_equal(costs_section(img)->count, 10);
  assert_int_equal(find_section(img, TPUB_SEC_LOCOPS)->count, find_section(img, TPUB_SEC_LOCS)->count);
  /* Without a cost model there is neither section. */
  uint8_t *plain = compile_text(program_text, &n3);
  assert_null(costs_section(plain));
  assert_null(find_section(plain, TPUB_SEC_LOCOPS));
  char err[256];
  VmProgram *pp = vm_program_load(plain, n3, err, sizeof err);
  assert_non_null(pp);
  assert_null(pp->costs);
  vm_program_free(pp);

  assert_non_null(costs_section(img));
  VmProgram *prog = vm_program_load(img, n, err, sizeof err);
  if (!prog) fail_msg("load failed: %s", err);
  assert_non_null(prog->costs);
  const VmFunc *mainf = &prog->funcs[vm_program_find(prog, "main")];
  const VmCost *dot = &prog->costs[find_instr(mainf, VM_OP_DOT_GENERAL)->loc];
  assert_int_equal(dot->op, 1);
  assert_int_equal(dot->bound, TPUB_BOUND_MXU);
  assert_true(dot->flops == 3000 && dot->hbm_bytes == 64 && dot->modeled_s == 3e-6 && dot->mxu_util == 0.5f);
  const VmCost *add = &prog->costs[find_instr(mainf, VM_OP_ADD)->loc];
  assert_int_equal(add->op, 3);
  assert_int_equal(add->bound, TPUB_BOUND_VPU);
  /* The return had no cost: an id, zeros. */
  const VmCost *ret = &prog->costs[find_instr(mainf, VM_OP_RETURN)->loc];
  assert_int_equal(ret->op, 5);
  assert_true(ret->bound == TPUB_BOUND_NONE && ret->flops == 0 && ret->modeled_s == 0);
  /* @count's while is op 9 (after its three constants), and so are the
   * instructions of its cond and body functions; function records: op 0. */
  const VmFunc *countf = &prog->funcs[vm_program_find(prog, "count")];
  const VmInstr *w = find_instr(countf, VM_OP_WHILE);
  assert_int_equal(prog->costs[w->loc].op, 9);
  for (int r = 0; r < 2; r++) {
    const VmFunc *body = &prog->funcs[w->fields[r].regions[0].func];
    for (uint32_t i = 0; i < body->n_instrs; i++) assert_int_equal(prog->costs[body->instrs[i].loc].op, 9);
  }
  assert_int_equal(prog->costs[mainf->loc].op, 0);
  assert_int_equal(prog->costs[countf->loc].op, 0);
  /* Each op's row label is a location of that op, named after it. */
  assert_int_equal(prog->costs[dot->op_loc].op, 1);
  assert_string_equal(prog->locs[dot->op_loc].op, "stablehlo.dot_general");
  assert_int_equal(prog->costs[w->loc].op_loc, prog->costs[prog->costs[w->loc].op_loc].op_loc);
  assert_int_equal(run_main(prog, NULL, true), VM_OK);
  vm_program_free(prog);
  free(img);
  free(again);
  free(plain);
}

/* MODULE carries the module's mhlo.num_replicas / mhlo.num_partitions
 * (1 when absent); a bad one is refused with a reason. */
static void test_module_section(void **state) {
  (void)state;
  size_t n;
  int calls = 0;
  uint8_t *img = compile_with_costs(program_text, &n, &calls);
  char err[256];
  VmProgram *p = vm_program_load(img, n, err, sizeof err);
  assert_non_null(p);
  assert_int_equal(p->num_replicas, 1);
  assert_int_equal(p->num_partitions, 1);
  vm_program_free(p);
  uint8_t *img2 = compile_with_costs(
      "module attributes {mhlo.num_replicas = 4 : i32, mhlo.num_partitions = 2 : i32} {\n"
      "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n  return %a : tensor<2xf32>\n}\n}\n",
      &n, &calls);
  assert_non_null(p = vm_program_load(img2, n, err, sizeof err));
  assert_int_equal(p->num_replicas, 4);
  assert_int_equal(p->num_partitions, 2);
  vm_program_free(p);
  uint8_t *bad = malloc(n);
  const struct {
    int what;
    const char *reason;
  } cases[] = {
      {0, "section MODULE has 2 records, expected 1"},
      {1, "MODULE: 0 replicas x 2 partitions"},
      {2, "MODULE: 4 replicas x 4097 partitions"},
      {3, "MODULE: 4096 replicas x 2 partitions"},
      {4, "MODULE: unknown flags 0x2"},
      {5, "MODULE: a mesh index without a mesh rank"},
      {6, "MODULE: mesh of rank 1 (2 or 3)"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    memcpy(bad, img2, n);
    TpubSection *sec = find_section(bad, TPUB_SEC_MODULE);
    TpubModule *mod = (TpubModule *)(bad + sec->offset);
    switch (cases[k].what) {
    case 0: sec->count = 2; break;
    case 1: mod->num_replicas = 0; break;
    case 2: mod->num_partitions = 4097; break;
    case 3: mod->num_replicas = 4096; break;
    case 4: mod->flags = 2; break;
    case 5: mod->mesh = 3; break;
    case 6: mod->mesh_rank = 1; break;
    }
    fix_checksum(bad, n);
    expect_refused(bad, n, cases[k].reason);
  }
  free(bad);
  free(img);
  free(img2);
}

/* A partitioned module: parameter 0 is 4 rows in 2 pieces on partitions
 * 1 and 0, result 0 is replicated on both (read from partition 1). */
static const char spmd_text[] =
    "module attributes {mhlo.num_partitions = 2 : i32, tpu.spmd_partitioned, tpu.mesh = array<i64: 1, 2>} {\n"
    "func.func @main(%a: tensor<2x3xf32> {tpu.global_shape = array<i64: 4, 3>, tpu.shard_tiles = array<i64: 2, 1, 1>,"
    " tpu.shard_devices = array<i64: 1, 0>}, %b: tensor<f32>) -> (tensor<2x3xf32> {tpu.global_shape = array<i64: 2, 3>,"
    " tpu.shard_tiles = array<i64: 1, 1, 2>, tpu.shard_devices = array<i64: 1, 0>}) {\n"
    "  return %a : tensor<2x3xf32>\n}\n}\n";

/* SHARDS and MODULE's mesh round-trip; every corruption is refused with
 * a reason naming the section. */
static void test_shards_section(void **state) {
  (void)state;
  size_t n;
  int calls = 0;
  uint8_t *img = compile_with_costs(spmd_text, &n, &calls);
  char err[256];
  VmProgram *p = vm_program_load(img, n, err, sizeof err);
  if (!p) fail_msg("load failed: %s", err);
  assert_true(p->spmd);
  assert_true(p->mesh_rank == 2 && p->mesh[0] == 1 && p->mesh[1] == 2);
  const VmFunc *fn = &p->funcs[vm_program_find(p, "main")];
  assert_non_null(fn->param_shards);
  assert_null(fn->param_shards[1]);
  const VmShard *sh = fn->param_shards[0];
  assert_true(sh->global.rank == 2 && sh->global.dims[0] == 4 && sh->global.dims[1] == 3 && sh->global.nbytes == 48);
  assert_true(sh->tiles[0] == 2 && sh->tiles[1] == 1 && sh->tiles[2] == 1 && sh->ndevices == 2 && sh->devices[0] == 1);
  assert_true(fn->result_shards[0]->tiles[2] == 2);
  vm_program_free(p);
  const struct {
    int what;
    const char *reason;
  } cases[] = {
      {0, "SHARDS: @main parameter 0: device id 2 is not a partition (0..1)"},
      {1, "SHARDS: @main parameter 0: partition 1 holds two pieces"},
      {2, "SHARDS: @main parameter 0: 1 device ids for pieces x replication = 2"},
      {3, "SHARDS: @main parameter 0: dim 0 is 2 per chip, but ceil(global 5 / 2 tiles) = 3"},
      {4, "SHARDS: @main parameter 0: rank 1, the type has rank 2"},
      {5, "SHARDS: record 1 (@main parameter 0) is out of order or repeated"},
      {6, "SHARDS: record 0 names function 7"},
      {7, "SHARDS: record 0: @main parameter 5 does not exist (2)"},
      {8, "SHARDS: @main parameter 0: tile count of dim 1 is 0"},
      {9, "SHARDS: @main parameter 0: nonzero padding"},
      {10, "section SHARDS in a module that is not partitioned"},
      {11, "MODULE: the mesh holds 4 devices, the module has 2 partitions"},
      {12, "SHARDS: @main parameter 0: negative global dimension -1"},
      {13, "SHARDS: record 0: unknown kind 2"},
      {14, "SHARDS: @main parameter 1: rank 2, the type has rank 0"},
  };
  uint8_t *bad = malloc(n);
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    memcpy(bad, img, n);
    TpubShard *rec = (TpubShard *)(bad + find_section(bad, TPUB_SEC_SHARDS)->offset);
    int64_t *ints = (int64_t *)(bad + find_section(bad, TPUB_SEC_INTS)->offset);
    TpubModule *mod = (TpubModule *)(bad + find_section(bad, TPUB_SEC_MODULE)->offset);
    switch (cases[k].what) {
    case 0: ints[rec[0].devices] = 2; break;
    case 1: ints[rec[0].devices + 1] = 1; break;
    case 2: rec[0].ndevices = 1; break;
    case 3: ints[rec[0].global] = 5; break;
    case 4: rec[0].rank = 1; break;
    case 5: rec[1].kind = TPUB_SHARD_PARAM; break;
    case 6: rec[0].func = 7; break;
    case 7: rec[0].index = 5; break;
    case 8: ints[rec[0].tiles + 1] = 0; break;
    case 9: rec[0].pad = 1; break;
    case 10: mod->flags = 0; break;
    case 11: ints[mod->mesh] = 2; break;
    case 12: ints[rec[0].global] = -1; break;
    case 13: rec[0].kind = 2; break;
    case 14: rec[0].index = 1; break;
    }
    fix_checksum(bad, n);
    expect_refused(bad, n, cases[k].reason);
  }
  free(bad);
  free(img);
}

/* A program after dynamic-pad: %a padded to 8 rows, its size %n; the
 * result likewise (docs/dynamic-shapes.md). */
static const char dyn_text[] =
    "func.func @main(%a: tensor<8x4xf32>, %n: tensor<i32>) -> (tensor<8x4xf32>, tensor<i32>) attributes "
    "{tpu.dynamic_args = array<i64: 0, 0, 8, 1>, tpu.dynamic_results = array<i64: 0, 0, 8, 1>} {\n"
    "  return %a, %n : tensor<8x4xf32>, tensor<i32>\n}\n";

/* DYNDIMS round-trips; every corruption is refused with a reason. */
static void test_dyndims_section(void **state) {
  (void)state;
  size_t n;
  int calls = 0;
  uint8_t *img = compile_with_costs(dyn_text, &n, &calls);
  char err[256];
  VmProgram *p = vm_program_load(img, n, err, sizeof err);
  if (!p) fail_msg("load failed: %s", err);
  const VmFunc *fn = &p->funcs[vm_program_find(p, "main")];
  assert_int_equal(fn->n_dyn, 2);
  assert_true(!fn->dyn[0].result && fn->dyn[0].index == 0 && fn->dyn[0].dim == 0 && fn->dyn[0].size == 1 &&
              fn->dyn[0].bound == 8);
  assert_true(fn->dyn[1].result && fn->dyn[1].size == 1);
  vm_program_free(p);
  const char *reasons[] = {
      "DYNDIMS: record 0 (@main parameter 0 dim 0): bound 9, the tensor's dim is 8",
      "DYNDIMS: record 0 (@main parameter 0 dim 3): dim 3 is not a dim of a tensor",
      "DYNDIMS: record 0 (@main parameter 1 dim 0): dim 0 is not a dim of a tensor",
      "DYNDIMS: record 0 (@main parameter 0 dim 0): tensor 0 or size 0 is not one of its 2",
      "DYNDIMS: record 1 (@main parameter 0 dim 0): its size 1 is shared or is a padded tensor",
      "DYNDIMS: record 0 names function 9",
      "DYNDIMS: record 0: unknown kind 5",
  };
  uint8_t *bad = malloc(n);
  for (int k = 0; k < (int)(sizeof reasons / sizeof reasons[0]); k++) {
    memcpy(bad, img, n);
    TpubDyn *rec = (TpubDyn *)(bad + find_section(bad, TPUB_SEC_DYNDIMS)->offset);
    switch (k) {
    case 0: rec[0].bound = 9; break;
    case 1: rec[0].dim = 3; break;
    case 2: rec[0].index = 1, rec[0].size = 0; break;
    case 3: rec[0].size = 0; break;
    case 4: rec[1] = rec[0]; break;
    case 5: rec[0].func = 9; break;
    case 6: rec[0].kind = 5; break;
    }
    fix_checksum(bad, n);
    expect_refused(bad, n, reasons[k]);
  }
  free(bad);
  free(img);
}

/* Corrupt COSTS records and LOCOPS entries are refused with a reason
 * naming the section. */
static void test_costs_corrupt(void **state) {
  (void)state;
  size_t n;
  int calls = 0;
  uint8_t *img = compile_with_costs(program_text, &n, &calls);
  uint8_t *bad = malloc(n);
  const struct {
    int what;
    const char *reason;
  } cases[] = {
      {0, "LOCOPS has"},
      {1, "COSTS: op 2: FLOPs is nan"},
      {2, "COSTS: op 3: modeled time is -1"},
      {3, "COSTS: op 1: unknown bound unit 6"},
      {4, "LOCOPS: location 3: op id 11 out of range (10 COSTS records)"},
      {5, "COSTS: op 1: nonzero padding"},
      {6, "COSTS: op 1: HBM bytes is inf"},
      {7, "out of range (9 COSTS records)"},
      {8, "COSTS: op 4: op location"},
      {9, "belongs to op 1"},
      {10, "section COSTS without LOCOPS"},
      {11, "section LOCOPS without COSTS"},
      {12, "COSTS: op 5: MXU utilization is -0.5"},
      {13, "COSTS has"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    memcpy(bad, img, n);
    TpubHeader *h = (TpubHeader *)bad;
    TpubSection *sec = costs_section(bad), *osec = find_section(bad, TPUB_SEC_LOCOPS);
    TpubCost *rec = (TpubCost *)(bad + sec->offset);
    uint32_t *locop = (uint32_t *)(bad + osec->offset);
    switch (cases[k].what) {
    case 0: osec->count--; break;
    case 1: rec[1].flops = NAN; break;
    case 2: rec[2].modeled_s = -1; break;
    case 3: rec[0].bound = TPUB_BOUND_COUNT; break;
    case 4: locop[3] = sec->count + 1; break;
    case 5: rec[0].pad[6] = 1; break;
    case 6: rec[0].hbm_bytes = INFINITY; break;
    case 7: sec->count--; break; /* op 10's locations name a record that is gone */
    case 8: rec[3].op_loc = osec->count; break;
    case 9: rec[1].op_loc = rec[0].op_loc; break; /* a location of op 1 */
    case 10: /* LOCOPS is the last section: drop it */
      assert_ptr_equal(osec, (TpubSection *)(bad + sizeof *h) + h->section_count - 1);
      h->section_count--;
      break;
    case 11: /* COSTS, just before it, replaced by LOCOPS */
      assert_ptr_equal(sec + 1, osec);
      *sec = *osec;
      h->section_count--;
      break;
    case 12: rec[4].mxu_util = -0.5f; break;
    case 13: /* more records than locations: LOCOPS shrunk to nine */
      osec->count = 9;
      find_section(bad, TPUB_SEC_LOCS)->count = 9;
      sec->count = 10;
      break;
    }
    fix_checksum(bad, n);
    expect_refused(bad, n, cases[k].reason);
    if (cases[k].what == 8) expect_refused(bad, n, "out of range");
  }
  /* Every byte flip in COSTS and LOCOPS is refused, or loads with every
   * location's op id and op location in range and finite numbers. */
  const TpubSection *sec = costs_section(img), *osec = find_section(img, TPUB_SEC_LOCOPS);
  size_t from = sec->offset, to = osec->offset + osec->count * sizeof(uint32_t);
  int loaded = 0, refused = 0;
  for (size_t i = from; i < to; i++) {
    static const uint8_t flips[] = {0x01, 0x80, 0xff};
    for (size_t f = 0; f < sizeof flips; f++) {
      memcpy(bad, img, n);
      bad[i] ^= flips[f];
      fix_checksum(bad, n);
      char err[256] = "";
      VmProgram *p = vm_program_load(bad, n, err, sizeof err);
      if (!p) {
        if (!strstr(err, "COSTS") && !strstr(err, "LOCOPS")) fail_msg("byte %zu: reason '%s' names no section", i, err);
        refused++;
        continue;
      }
      loaded++;
      for (uint32_t l = 0; l < p->n_locs; l++) {
        const VmCost *c = &p->costs[l];
        assert_true(c->op <= p->n_locs && c->op_loc < p->n_locs && c->bound < TPUB_BOUND_COUNT);
        assert_true(isfinite(c->flops) && isfinite(c->hbm_bytes) && isfinite(c->modeled_s) && c->modeled_s >= 0);
      }
      vm_program_free(p);
    }
  }
  assert_true(loaded > 0 && refused > 0);
  free(bad);
  free(img);
}

/* The profile: host time per op id, printed beside the modeled cost. */
static void test_profile(void **state) {
  (void)state;
  size_t n;
  int calls = 0;
  uint8_t *img = compile_with_costs(program_text, &n, &calls);
  char err[256];
  VmProgram *prog = vm_program_load(img, n, err, sizeof err);
  assert_non_null(prog);
  VmOptions o = {.profile = true};
  VmExec *x = vm_exec_new(prog, &o);
  int fi = vm_program_find(prog, "main");
  float xs[6] = {1, 2, 3, 4, 5, 6}, ws[6] = {1, 0, 0, 1, 1, 1};
  VmValue args[2] = {{.type = prog->funcs[fi].reg_types[0], .data = xs}, {.type = prog->funcs[fi].reg_types[1], .data = ws}};
  VmValue res[2] = {{0}};
  for (int run = 0; run < 2; run++) {
    assert_int_equal(vm_run(x, fi, args, 2, res), VM_OK);
    vm_value_free(&res[0]);
    vm_value_free(&res[1]);
  }
  const VmProfile *pr = vm_exec_profile(x);
  assert_non_null(pr);
  /* Each op of @main ran once in the last run (a new run resets the
   * profile); @count's ops are inside the call, not rows of their own. */
  for (uint32_t k = 1; k <= 5; k++) assert_int_equal(pr->count[k], 1);
  for (uint32_t k = 6; k < pr->nkeys; k++) assert_int_equal(pr->count[k], 0);
  char *text = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&text, &len);
  vm_profile_print(pr, out);
  fclose(out);
  assert_contains(text, "profile of @main: host time of 5 ops, modeled cost on v5e");
  assert_contains(text, "  host ms   model us  bound  MXU%    GFLOP    HBM MB  op (location)");
  assert_contains(text, "     3.000  MXU    50.0    0.000     0.000  stablehlo.dot_general (test.mlir:2:8)");
  assert_contains(text, "     8.000                 0.000     0.000  total");
  free(text);
  vm_exec_free(x);
  vm_program_free(prog);
  /* Without COSTS: one row per instruction, '-' for the model. */
  free(img);
  img = compile_text(program_text, &n);
  prog = vm_program_load(img, n, err, sizeof err);
  x = vm_exec_new(prog, &o);
  fi = vm_program_find(prog, "main");
  args[0].type = prog->funcs[fi].reg_types[0];
  args[1].type = prog->funcs[fi].reg_types[1];
  assert_int_equal(vm_run(x, fi, args, 2, res), VM_OK);
  vm_value_free(&res[0]);
  vm_value_free(&res[1]);
  out = open_memstream(&text, &len);
  vm_profile_print(vm_exec_profile(x), out);
  fclose(out);
  assert_contains(text, "(no COSTS section: modeled columns '-')");
  assert_contains(text, "         -  -         -        -         -  stablehlo.dot_general (test.mlir:2:8)");
  free(text);
  vm_exec_free(x);
  vm_program_free(prog);
  free(img);
  /* Off by default. */
  VmExec *quiet = vm_exec_new(prog = vm_program_load(img = compile_text(program_text, &n), n, err, sizeof err), NULL);
  assert_null(vm_exec_profile(quiet));
  vm_exec_free(quiet);
  vm_program_free(prog);
  free(img);
}

/* mxu_dot's validator: tile sizes in range, pads at least the real sizes. */
static void test_mxu_dot_validator(void **state) {
  (void)state;
  static const char text[] =
      "func.func @main(%a: tensor<300x200xf32>, %b: tensor<200x130xf32>) -> tensor<300x130xf32> {\n"
      "  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] {tpu.mxu_tile = array<i64: 136, 72, 40>, "
      "tpu.mxu_pad = array<i64: 304, 136, 200>} : (tensor<300x200xf32>, tensor<200x130xf32>) -> tensor<300x130xf32>\n"
      "  return %0 : tensor<300x130xf32>\n"
      "}\n";
  size_t n;
  uint8_t *img = compile_text(text, &n);
  char err[256];
  VmProgram *p = vm_program_load(img, n, err, sizeof err);
  if (!p) fail_msg("load failed: %s", err);
  assert_int_equal(p->funcs[0].instrs[0].opcode, VM_OP_MXU_DOT);
  vm_program_free(p);
  /* The fields in INTS: ... 3 136 72 40 3 304 136 200. */
  const TpubSection *sec = (const TpubSection *)(img + sizeof(TpubHeader));
  while (sec->kind != TPUB_SEC_INTS) sec++;
  int64_t *ints = (int64_t *)(img + sec->offset), *tile = NULL;
  for (uint32_t i = 0; i + 8 <= sec->count && !tile; i++)
    if (ints[i] == 3 && ints[i + 1] == 136 && ints[i + 2] == 72 && ints[i + 3] == 40 && ints[i + 4] == 3)
      tile = &ints[i + 1];
  assert_non_null(tile);
  int64_t *pad = tile + 4;
  uint8_t *bad = malloc(n);
  const struct {
    int64_t *field, value;
    const char *reason;
  } cases[] = {
      {&tile[0], 0, "mxu_dot: tile M = 0 is not in [1, 65536]"},
      {&tile[2], 65537, "mxu_dot: tile K = 65537 is not in [1, 65536]"},
      {&pad[1], 129, "mxu_dot: padded N = 129 for a real size of 130"},
      {&pad[0], 300 + 257, "mxu_dot: padded M = 557 for a real size of 300"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    memcpy(bad, img, n);
    *(int64_t *)(bad + ((uint8_t *)cases[k].field - img)) = cases[k].value;
    fix_checksum(bad, n);
    expect_refused(bad, n, cases[k].reason);
  }
  free(bad);
  free(img);
}

/* The in-place flag of a FUSION: the back end writes it on a loop fusion
 * whose operand of its result's type dies there; the loader refuses it on
 * any other kind. */
static void test_fusion_inplace_flag(void **state) {
  (void)state;
  static const char text[] =
      "func.func @main(%a: tensor<4x8xf32>, %c: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {\n"
      "  %e = stablehlo.exponential %c : tensor<4xf32>\n"
      "  %l = \"tpu.fusion\"(%e) ({\n"
      "  ^bb0(%x: tensor<4xf32>):\n"
      "    %n = stablehlo.negate %x : tensor<4xf32>\n"
      "    \"tpu.yield\"(%n) : (tensor<4xf32>) -> ()\n"
      "  }) {kind = \"loop\"} : (tensor<4xf32>) -> tensor<4xf32>\n"
      "  %i = \"tpu.fusion\"(%a, %c) ({\n"
      "  ^bb0(%x: tensor<4x8xf32>, %y: tensor<4xf32>):\n"
      "    %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
      "    %b = stablehlo.broadcast_in_dim %y, dims = [0] : (tensor<4xf32>) -> tensor<4x8xf32>\n"
      "    %m = stablehlo.multiply %x, %b : tensor<4x8xf32>\n"
      "    %r = stablehlo.reduce(%m init: %z) applies stablehlo.add across dimensions = [1] : "
      "(tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>\n"
      "    \"tpu.yield\"(%r) : (tensor<4xf32>) -> ()\n"
      "  }) {kind = \"input\"} : (tensor<4x8xf32>, tensor<4xf32>) -> tensor<4xf32>\n"
      "  return %l, %i : tensor<4xf32>, tensor<4xf32>\n"
      "}\n";
  size_t n;
  uint8_t *img = compile_text(text, &n);
  const TpubSection *sec = (const TpubSection *)(img + sizeof(TpubHeader));
  while (sec->kind != TPUB_SEC_CODE) sec++;
  uint32_t *code = (uint32_t *)(img + sec->offset), *loop = NULL, *input = NULL;
  for (uint32_t i = 0; i + 3 <= sec->count; i++) {
    if (code[i] == (VM_OP_FUSION | (uint32_t)TPUB_INSTR_INPLACE << 16) && code[i + 1] == 1) loop = &code[i];
    if (code[i] == VM_OP_FUSION && code[i + 1] == 2 && code[i + 2] == 1) input = &code[i];
  }
  assert_non_null(loop);  /* the exponential's buffer dies at the loop fusion */
  assert_non_null(input); /* the reduce with its producers: an input fusion */
  char err[256];
  VmProgram *p = vm_program_load(img, n, err, sizeof err);
  if (!p) fail_msg("load failed: %s", err);
  vm_program_free(p);
  uint8_t *bad = malloc(n);
  int kind_refusals = 0;
  for (uint32_t k = 0; k < 2; k++) {
    memcpy(bad, img, n);
    *(uint32_t *)(bad + ((uint8_t *)input - img)) = VM_OP_FUSION | (uint32_t)(TPUB_INSTR_INPLACE | k) << 16;
    fix_checksum(bad, n);
    err[0] = '\0';
    if ((p = vm_program_load(bad, n, err, sizeof err))) fail_msg("an in-place input fusion loaded");
    kind_refusals += strstr(err, "fusion: in-place flag on a kind 1 fusion (loop fusions only)") != NULL;
  }
  assert_int_equal(kind_refusals, 1); /* the operand of the result's type; the other is refused as any op */
  free(bad);
  free(img);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every input the loader fuzzer ever found a bug with, through the fuzz
 * harness itself (testsuite/fuzz/fuzz_loader.c, linked in): under `make
 * sanitize` a crash, UB or leak fails the run. */
static void test_loader_fuzz_regressions(void **state) {
  (void)state;
  static const char dir[] = "testsuite/fuzz/loader-regressions";
  DIR *d = opendir(dir);
  assert_non_null(d);
  int n = 0;
  for (struct dirent *ent; (ent = readdir(d));) {
    if (ent->d_name[0] == '.') continue;
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    uint8_t buf[1 << 16];
    size_t len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    /* A file of an older format is refused at the header and no longer
     * reaches the path it was found on: when the format version changes,
     * re-stamp each file (bytes 8..11, then the checksum) after checking
     * that its opcodes and records still mean the same. */
    TpubHeader h;
    assert_true(len >= sizeof h);
    memcpy(&h, buf, sizeof h);
    if (h.format_version != TPUB_FORMAT_VERSION)
      fail_msg("%s: format version %u, expected %d", ent->d_name, h.format_version, TPUB_FORMAT_VERSION);
    assert_int_equal(LLVMFuzzerTestOneInput(buf, len), 0);
    n++;
  }
  closedir(d);
  assert_true(n > 0);
}

int run_bytecode_tests(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_round_trip),        cmocka_unit_test(test_deterministic),
      cmocka_unit_test(test_truncated),         cmocka_unit_test(test_corrupted_header),
      cmocka_unit_test(test_every_byte_flip),   cmocka_unit_test(test_allocation_failures),
      cmocka_unit_test(test_call_depth_limit),  cmocka_unit_test(test_codecs_agree),
      cmocka_unit_test(test_loader_fuzz_regressions), cmocka_unit_test(test_costs_round_trip),
      cmocka_unit_test(test_costs_corrupt),     cmocka_unit_test(test_module_section), cmocka_unit_test(test_shards_section), cmocka_unit_test(test_dyndims_section),     cmocka_unit_test(test_profile),
      cmocka_unit_test(test_mxu_dot_validator),
      cmocka_unit_test(test_fusion_inplace_flag),
  };
  return cmocka_run_group_tests_name("bytecode", tests, NULL, NULL);
}
