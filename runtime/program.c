/* Whole programs: compiled through the one compile path and the caches,
 * run on all the client's chips as tpurun runs them (DESIGN.md §9). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/run.h"
#include "runtime/runtime.h"
#include "vm/chips/timeline.h"
#include "vm/dtype.h"

enum { RT_PROGRAM_LIVE = 0x9709a11eu };

struct TpuProgram {
  uint32_t magic;
  TpuClient *client;
  RtExe *exe; /* owned by the client's tier; NULL for a deferred program */
  /* A program with unbounded dimensions is compiled at each run for its
   * arguments' types (once per signature, docs/shape-refinement.md). */
  char *text;
  size_t len;
  int nparams, nresults;
};

TPU_API int tpu_program_compile(TpuClient *c, const char *mlir, size_t len, TpuProgram **out) {
  if (!out) return rt_fail(TPU_ERR_USAGE, "tpu_program_compile: out is NULL");
  *out = NULL;
  if (!c) return rt_fail(TPU_ERR_USAGE, "tpu_program_compile: client is NULL");
  if (!mlir && len) return rt_fail(TPU_ERR_USAGE, "tpu_program_compile: mlir is NULL");
  if (len > (2ull << 30)) return rt_fail(TPU_ERR_DATA, "tpu_program_compile: %zu bytes of text (at most 2 GiB)", len);
  int np = 0, nr = 0;
  bool deferred = compile_text_needs_shapes(mlir ? mlir : "", len, NULL, &np, &nr);
  RtExe *exe = deferred ? NULL : rt_exe_of_program(c, mlir ? mlir : "", len, NULL);
  if (!exe && !deferred) return rt_last_code();
  TpuProgram *p = calloc(1, sizeof *p);
  char *text = deferred ? malloc(len + 1) : NULL;
  if (!p || (deferred && !text)) {
    free(p), free(text);
    return rt_fail(TPU_ERR_RUNTIME, "out of host memory");
  }
  if (text) memcpy(text, mlir, len);
  *p = (TpuProgram){RT_PROGRAM_LIVE, c, exe, text, len, np, nr};
  *out = p;
  return TPU_OK;
}

TPU_API void tpu_program_release(TpuProgram *p) {
  if (!p || p->magic != RT_PROGRAM_LIVE) return;
  p->magic = 0;
  free(p->text);
  free(p);
}

/* The function of p named name (NULL: "main"), or -1 after rt_fail; 0
 * for @main of a deferred program. */
static int find_function(const TpuProgram *p, const char *name, const char *api) {
  if (!p || p->magic != RT_PROGRAM_LIVE) return rt_fail(-1, "%s: not a live program", api);
  if (!p->exe && (!name || strcmp(name, "main") == 0)) return 0;
  if (!p->exe)
    return rt_fail(-1, "%s: the program has unbounded dimensions: only @main runs (refined to its arguments)", api);
  int fi = vm_program_find(p->exe->prog, name ? name : "main");
  if (fi < 0) return rt_fail(-1, "%s: the program has no function @%s", api, name ? name : "main");
  return fi;
}

TPU_API int tpu_program_signature(const TpuProgram *p, const char *function, int *n_params, int *n_results) {
  int fi = find_function(p, function, "tpu_program_signature");
  if (fi < 0) return TPU_ERR_USAGE;
  const VmFunc *f = p->exe ? &p->exe->prog->funcs[fi] : NULL;
  if (n_params) *n_params = f ? (int)run_user_count(f, false) : p->nparams;
  if (n_results) *n_results = f ? (int)run_user_count(f, true) : p->nresults;
  return TPU_OK;
}

/* The chips a run uses: the module's replicas x partitions when they make
 * the client's chips, else one replica per chip; a partitioned program's
 * partitions always, as many replicas as fill the client (the module's
 * mesh with one replica).  False after rt_fail when they cannot. */
static bool run_mesh(const TpuClient *c, const VmProgram *p, VmMesh *m) {
  if (p->spmd) {
    if (c->nchips % p->num_partitions)
      return rt_fail(TPU_ERR_USAGE, "tpu_program_run: the program is partitioned for %d partitions; the client's %d chips "
                     "are not a whole number of replicas of them", p->num_partitions, c->nchips), false;
    *m = (VmMesh){c->nchips / p->num_partitions, p->num_partitions, 0, {0}};
    if (m->replicas == 1 && p->mesh_rank) {
      m->ndims = p->mesh_rank;
      memcpy(m->dims, p->mesh, sizeof m->dims);
    }
  } else if (p->num_replicas * p->num_partitions == c->nchips) {
    *m = (VmMesh){p->num_replicas, p->num_partitions, 0, {0}};
  } else {
    *m = (VmMesh){c->nchips, 1, 0, {0}};
  }
  return true;
}

/* Whether argument t fits parameter type pt whole (every chip gets it) or
 * stacked n times (chip, or for a partitioned program replica, i gets
 * slice i); false after rt_fail. */
static bool arg_fits(TpuClient *c, const TpuTensor *t, const VmType *pt, int n, int i, bool spmd, bool *stacked) {
  const VmType *at = &t->type->vm;
  bool same = pt->kind == TPUB_TY_TENSOR && at->elem == pt->elem && at->rank == pt->rank &&
              !memcmp(at->dims, pt->dims, sizeof(int64_t) * (size_t)pt->rank);
  bool stack = n > 1 && pt->kind == TPUB_TY_TENSOR && at->elem == pt->elem && at->rank == pt->rank + 1 &&
               at->dims[0] == n && !memcmp(at->dims + 1, pt->dims, sizeof(int64_t) * (size_t)pt->rank);
  *stacked = stack;
  if (same || stack) return true;
  if (spmd) {
    const RtType *gt = rt_type_of_vm(c, pt);
    rt_fail(TPU_ERR_USAGE, "tpu_program_run: argument %d is %s, but the partitioned program takes the global value %s%s",
            i, t->type->str, gt ? gt->str : "?", n > 1 ? " (or one per replica stacked)" : "");
    return false;
  }
  rt_fail(TPU_ERR_USAGE, "tpu_program_run: argument %d is %s, but the parameter is not of that type%s", i, t->type->str,
          n > 1 ? " (nor stacked over the chips)" : "");
  return false;
}

/* Runs function fi on the slice of the client's chips; per-chip results
 * in res[chip]. */
static int run_slice(TpuProgram *p, RtExe *exe, int fi, TpuTensor *const *args, int nargs, VmValue **res) {
  TpuClient *c = p->client;
  const VmProgram *prog = exe->prog;
  const VmFunc *f = &prog->funcs[fi];
  VmMesh mesh;
  if (!run_mesh(c, prog, &mesh)) return TPU_ERR_USAGE;
  int n = c->nchips;
  bool stacked[256];
  for (int i = 0; i < nargs; i++)
    if (!arg_fits(c, args[i], prog->spmd ? run_global_type(f, false, i) : f->reg_types[i],
                  prog->spmd ? mesh.replicas : n, i, prog->spmd, &stacked[i]))
      return TPU_ERR_USAGE;
  VmValue **argv = calloc((size_t)n, sizeof *argv);
  int *fns = calloc((size_t)n, sizeof *fns);
  VmOptions o = {.hbm_bytes = c->hbm_bytes, .threads = c->threads, .mpi = c->mpi};
  char why[256];
  int lo, hi;
  if (n > 1 && c->mpi && !vm_mpi_share(c->mpi, n, &lo, &hi, why, sizeof why)) {
    free(argv), free(fns);
    return rt_fail(TPU_ERR_USAGE, "tpu_program_run: %s", why);
  }
  VmSlice *slice = argv && fns ? (n > 1 ? vm_slice_new(exe->prog, &o, &mesh) : NULL) : NULL;
  int rc = argv && fns && (n == 1 || slice) ? TPU_OK : rt_fail(TPU_ERR_RUNTIME, "out of host memory starting %d chips", n);
  VmValue whole[256];
  for (int i = 0; i < nargs; i++) whole[i] = (VmValue){.type = f->reg_types[i], .data = args[i]->data};
  /* A partitioned program's arguments are global: each chip its piece. */
  for (int k = 0; k < n && rc == TPU_OK; k++) {
    fns[k] = fi;
    if (!(argv[k] = calloc((size_t)nargs + 1, sizeof(VmValue)))) rc = rt_fail(TPU_ERR_RUNTIME, "out of host memory");
  }
  if (rc == TPU_OK && prog->spmd && !run_spmd_args(f, mesh.replicas, mesh.partitions, whole, stacked, argv))
    rc = rt_fail(TPU_ERR_RUNTIME, "out of host memory cutting the global arguments into pieces");
  else if (rc == TPU_OK && !prog->spmd)
    run_chip_args(f, n, whole, stacked, argv);
  if (rc == TPU_OK && n == 1) {
    VmExec *x = rt_exe_take(c, exe);
    int st = x ? vm_run(x, fi, argv[0], nargs, res[0]) : VM_TRAP;
    if (st != VM_OK) rc = rt_fail(TPU_ERR_RUNTIME, "%s", x ? vm_error(x) : "out of host memory");
    else rt_count_modeled(c, vm_exec_timeline(x)->clock_s);
    if (x) rt_exe_give(exe, x);
  } else if (rc == TPU_OK) {
    if (vm_slice_run(slice, fns, (const VmValue *const *)argv, res) != VM_OK)
      rc = rt_fail(TPU_ERR_RUNTIME, "%s", vm_slice_error(slice));
    double step = 0; /* the slice's modeled step: its slowest chip */
    for (int k = 0; rc == TPU_OK && k < n; k++)
      if (vm_slice_timeline(slice, k)->clock_s > step) step = vm_slice_timeline(slice, k)->clock_s;
    rt_count_modeled(c, step);
  }
  if (prog->spmd) run_spmd_args_free(f, n, argv);
  for (int k = 0; argv && k < n; k++) free(argv[k]);
  free(argv);
  free(fns);
  if (slice) vm_slice_free(slice);
  return rc;
}

/* Result r of every chip as one tensor: chip 0's on one chip, else
 * stacked on a new leading dimension; a partitioned program's global
 * value (one per replica, stacked when there are several). */
static TpuTensor *gather_result(TpuClient *c, const VmProgram *prog, const VmFunc *f, VmValue **res, int r) {
  int n = c->nchips;
  if (f->result_types[r]->kind != TPUB_TY_TENSOR)
    return rt_fail(TPU_ERR_USAGE, "tpu_program_run: result %d is a tuple or token", r), NULL;
  StackedType st = {0};
  VmValue v = res[0][r];
  bool ok = n == 1 || (prog->spmd ? run_spmd_result(f, r, res, n / prog->num_partitions, prog->num_partitions, &st, &v)
                                  : run_stack_result(f, r, res, n, &st, &v));
  if (!ok) return rt_fail(TPU_ERR_RUNTIME, "out of host memory"), NULL;
  const RtType *rt = rt_type_of_vm(c, v.type);
  free(st.dims);
  TpuTensor *out = rt ? rt_tensor_new(c, 0, rt, 0, NULL) : NULL;
  if (!out) {
    if (n > 1) free(v.data);
    return NULL;
  }
  out->data = v.data;
  if (n == 1) res[0][r].data = NULL;
  atomic_store(&out->state, RT_READY);
  return out;
}

/* The executable of a deferred program for these arguments (ready):
 * refined to their types, the leading integer scalars' values as its
 * dimension variables; NULL after rt_fail. */
static RtExe *refined_exe(TpuProgram *p, TpuTensor *const *args, int n_args) {
  RefineArg *ra = calloc((size_t)n_args + 1, sizeof *ra);
  if (!ra) return rt_fail(TPU_ERR_RUNTIME, "out of host memory"), NULL;
  bool leading = true;
  for (int i = 0; i < n_args; i++) {
    const VmType *t = &args[i]->type->vm;
    const char *en = vm_elem_name(t->elem);
    ra[i].known = t->rank <= REFINE_MAX_RANK && elem_from_name(en, strlen(en), &ra[i].elem);
    ra[i].rank = t->rank;
    for (int d = 0; ra[i].known && d < t->rank; d++) ra[i].dims[d] = t->dims[d];
    leading = leading && ra[i].known && t->rank == 0 && elem_is_int(ra[i].elem) && t->elem != TPUB_I1;
    if (leading) {
      int w = vm_elem_bits(t->elem);
      uint64_t bits = vm_load_bits(t->elem, args[i]->data, 0);
      ra[i].has_value = true;
      ra[i].value = w >= 64 || vm_elem_is_unsigned(t->elem) ? (int64_t)bits : (int64_t)(bits << (64 - w)) >> (64 - w);
    }
  }
  RefineSpec spec = {NULL, n_args, ra};
  RtExe *e = rt_exe_of_program(p->client, p->text, p->len, &spec);
  free(ra);
  return e;
}

/* Results of a bounded run: the user's results cut[0..n) as new tensors. */
static int bounded_results(TpuClient *c, const VmValue *cut, TpuTensor **results, int n) {
  for (int r = 0; r < n; r++) {
    const RtType *rt = rt_type_of_vm(c, cut[r].type);
    void *data = rt ? malloc((size_t)cut[r].type->nbytes + 1) : NULL;
    TpuTensor *out = rt && data ? rt_tensor_new(c, 0, rt, 0, NULL) : NULL;
    if (!out) {
      free(data);
      for (int k = 0; k < r; k++) tpu_tensor_release(results[k]), results[k] = NULL;
      if (!rt || data) return rt_last_code(); /* rt_type_of_vm or rt_tensor_new said why */
      return rt_fail(TPU_ERR_RUNTIME, "out of host memory");
    }
    memcpy(data, cut[r].data, (size_t)cut[r].type->nbytes);
    out->data = data;
    atomic_store(&out->state, RT_READY);
    results[r] = out;
  }
  return TPU_OK;
}

/* tpu_program_run of a function with bounded dynamic dims, on one chip:
 * each bounded argument of any shape within its bounds, padded, its sizes
 * passed; the results cut to their runtime sizes (docs/dynamic-shapes.md). */
static int run_bounded(TpuClient *c, RtExe *exe, int fi, TpuTensor *const *args, TpuTensor **results, int n_results) {
  const VmFunc *f = &exe->prog->funcs[fi];
  if (c->nchips != 1)
    return rt_fail(TPU_ERR_USAGE, "tpu_program_run: @%s has bounded dynamic dims and runs on one chip, the client has %d",
                   f->name, c->nchips);
  VmValue *argv = calloc(f->n_params + 1, sizeof *argv), *res = calloc(f->n_results + 1, sizeof *res);
  VmValue *cut = calloc((size_t)n_results + 1, sizeof *cut);
  bool *padded = calloc(f->n_params + 1, sizeof *padded);
  int rc = argv && res && cut && padded ? TPU_OK : rt_fail(TPU_ERR_RUNTIME, "out of host memory");
  for (uint32_t i = 0, u = 0; rc == TPU_OK && i < f->n_params; i++) {
    if (run_is_size(f, false, i)) continue;
    const TpuTensor *t = args[u];
    bool dyn = false, stacked;
    for (uint32_t k = 0; k < f->n_dyn; k++) dyn |= !f->dyn[k].result && f->dyn[k].index == i;
    if (dyn) {
      char err[300];
      VmValue given = {.type = &t->type->vm, .data = t->data};
      int st = run_dyn_pad(f, i, &given, (int)u, argv, err, sizeof err);
      padded[i] = true;
      if (st) rc = rt_fail(st == 1 ? TPU_ERR_USAGE : TPU_ERR_RUNTIME, "tpu_program_run: %s", err);
    } else if (!arg_fits(c, t, f->reg_types[i], 1, (int)u, false, &stacked)) {
      rc = TPU_ERR_USAGE;
    } else {
      argv[i] = (VmValue){.type = f->reg_types[i], .data = t->data};
    }
    u++;
  }
  bool ran = false;
  if (rc == TPU_OK) {
    VmExec *x = rt_exe_take(c, exe);
    int st = x ? vm_run(x, fi, argv, (int)f->n_params, res) : VM_TRAP;
    if (st != VM_OK) rc = rt_fail(TPU_ERR_RUNTIME, "%s", x ? vm_error(x) : "out of host memory");
    else rt_count_modeled(c, vm_exec_timeline(x)->clock_s), ran = true;
    if (x) rt_exe_give(exe, x);
  }
  bool cut_ok = ran && run_dyn_results(f, res, cut);
  if (ran && !cut_ok) rc = rt_fail(TPU_ERR_RUNTIME, "out of host memory");
  if (cut_ok) rc = bounded_results(c, cut, results, n_results);
  if (cut_ok) run_dyn_results_free(f, cut);
  for (uint32_t i = 0; ran && i < f->n_results; i++) vm_value_free(&res[i]);
  for (uint32_t i = 0; padded && i < f->n_params; i++)
    if (padded[i] || run_is_size(f, false, i)) free(argv[i].data);
  free(argv), free(res), free(cut), free(padded);
  return rc;
}

TPU_API int tpu_program_run(TpuProgram *p, const char *function, TpuTensor *const *args, int n_args,
                            TpuTensor **results, int n_results) {
  int fi = find_function(p, function, "tpu_program_run");
  if (fi < 0) return TPU_ERR_USAGE;
  TpuClient *c = p->client;
  if (!p->exe && (n_args != p->nparams || (n_args && !args)))
    return rt_fail(TPU_ERR_USAGE, "tpu_program_run: @main takes %d arguments, %d given", p->nparams, n_args);
  if (!p->exe && n_results != p->nresults)
    return rt_fail(TPU_ERR_USAGE, "tpu_program_run: @main has %d results, %d asked for", p->nresults, n_results);
  for (int i = 0; !p->exe && i < n_args; i++) {
    if (!rt_tensor_valid(c, args[i], "tpu_program_run: argument")) return TPU_ERR_USAGE;
    int rc = rt_tensor_wait(args[i], "program_run");
    if (rc) return rc;
  }
  RtExe *exe = p->exe ? p->exe : refined_exe(p, args, n_args);
  if (!exe) return rt_last_code();
  if (!p->exe && (fi = vm_program_find(exe->prog, "main")) < 0)
    return rt_fail(TPU_ERR_INTERNAL, "tpu_program_run: the refined program has no @main");
  const VmFunc *f = &exe->prog->funcs[fi];
  uint32_t np = run_user_count(f, false), nr = run_user_count(f, true); /* without bounded dims' sizes */
  if (n_args != (int)np || (n_args && !args))
    return rt_fail(TPU_ERR_USAGE, "tpu_program_run: @%s takes %u arguments, %d given", f->name, np, n_args);
  if (n_results != (int)nr || (n_results && !results))
    return rt_fail(TPU_ERR_USAGE, "tpu_program_run: @%s has %u results, %d asked for", f->name, nr, n_results);
  if (n_args > 256) return rt_fail(TPU_ERR_USAGE, "tpu_program_run: more than 256 arguments");
  for (int i = 0; i < n_results; i++) results[i] = NULL;
  for (int i = 0; i < n_args; i++) {
    char what[64];
    snprintf(what, sizeof what, "tpu_program_run: argument %d", i);
    if (!rt_tensor_valid(c, args[i], what)) return TPU_ERR_USAGE;
  }
  for (int i = 0; i < n_args; i++) {
    int rc = rt_tensor_wait(args[i], "program_run");
    if (rc) return rc;
  }
  if (f->n_dyn) {
    int rc = run_bounded(c, exe, fi, args, results, n_results);
    atomic_fetch_add(&c->m.programs_run, 1);
    return rc;
  }
  VmValue **res = calloc((size_t)c->nchips, sizeof *res);
  for (int k = 0; res && k < c->nchips; k++)
    if (!(res[k] = calloc((size_t)n_results + 1, sizeof(VmValue)))) {
      while (k-- > 0) free(res[k]);
      free(res), res = NULL;
    }
  if (!res) return rt_fail(TPU_ERR_RUNTIME, "out of host memory");
  int rc = run_slice(p, exe, fi, args, n_args, res);
  atomic_fetch_add(&c->m.programs_run, 1);
  for (int r = 0; rc == TPU_OK && r < n_results; r++)
    if (!(results[r] = gather_result(c, exe->prog, f, res, r))) rc = strstr(rt_last_error(), "memory") ? TPU_ERR_RUNTIME : TPU_ERR_USAGE;
  if (rc)
    for (int r = 0; r < n_results; r++)
      if (results[r]) tpu_tensor_release(results[r]), results[r] = NULL;
  for (int k = 0; k < c->nchips; k++) {
    for (int r = 0; r < n_results; r++) vm_value_free(&res[k][r]);
    free(res[k]);
  }
  free(res);
  return rc;
}
