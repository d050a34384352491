/* The collectives (vm/opcodes.def "collectives"): all_reduce,
 * cross_replica_sum, all_gather, reduce_scatter, all_to_all,
 * collective_permute, collective_broadcast and collective_reduce, with the
 * StableHLO spec's process groups; replica_id, partition_id, send and recv
 * are in vm/kernels/channel.c.
 *
 * Each kernel resolves the executing chip's process group from its
 * VmChipId and the instruction's fields, then meets the group in
 * vm_collective (vm/chips/chips.h) and moves the data in phases that every member
 * runs in its own thread: a member writes only its own results, reading the
 * members' operands (and results written in an earlier phase).  Reductions
 * fold left in group order, element by element, so the bits never depend
 * on the member count's chunking or the host threads (docs/collectives.md). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "vm/chips/chips.h"
#include "vm/kernels/collective.h"
#include "vm/kernels/shape.h"
#include "vm/kernels/region.h"
#include "vm/opinfo.h"

/* Field indices shared by the group-based opcodes. */
enum { F_GROUPS, F_GROUP_SIZE, F_MODE, F_CHANNEL, F_EXTRA };

/* Elements folded per block on the fast path: the accumulator block stays
 * in the cache while every member's operand streams through it. */
#define FOLD_BLOCK 4096

/* ------------------------------------------------------------------ */
/* Process groups */

/* The id space of a mode, for messages. */
static const char *mode_id_name(int mode) {
  return mode == COLL_CROSS_PARTITION ? "partition" : mode == COLL_FLATTENED_IDS ? "device" : "replica";
}

/* How many ids the mode's space has on this slice. */
static int mode_limit(const VmChipId *id, int mode) {
  return mode == COLL_CROSS_PARTITION ? id->partitions
         : mode == COLL_FLATTENED_IDS ? id->replicas * id->partitions
                                      : id->replicas;
}

/* This chip's id in the mode's space. */
static int mode_self(const VmChipId *id, int mode) {
  return mode == COLL_CROSS_PARTITION ? id->partition : mode == COLL_FLATTENED_IDS ? id->chip : id->replica;
}

/* The chip of id v of the mode's space, on this chip's line (its partition
 * for replica ids, its replica for partition ids). */
static int mode_chip(const VmChipId *id, int mode, int64_t v) {
  switch (mode) {
  case COLL_CROSS_PARTITION: return id->replica * id->partitions + (int)v;
  case COLL_FLATTENED_IDS: return (int)v;
  default: return (int)v * id->partitions + id->partition;
  }
}

int coll_group(VmExec *x, const int64_t *ids, int64_t len, int64_t size, int mode, const char *what, int *group) {
  VmChipId id = vm_chip_id(x);
  int limit = mode_limit(&id, mode), self = mode_self(&id, mode);
  for (int64_t i = 0; i < len; i++)
    if (ids[i] >= limit)
      return vm_trap(x, "%s names %s %" PRId64 ", but the slice has %d %s%s", what, mode_id_name(mode), ids[i], limit,
                     mode_id_name(mode), limit == 1 ? "" : "s");
  /* The row holding this chip's id; no rows is one row of every id. */
  int64_t start = -1;
  for (int64_t i = 0; i < len && start < 0; i++)
    if (ids[i] == self) start = i - i % size;
  if (len > 0 && start < 0) return 0;
  int64_t rowlen = len > 0 ? size : limit;
  int n = 0;
  int reps = mode == COLL_CROSS_REPLICA_AND_PARTITION ? id.partitions : 1;
  for (int p = 0; p < reps; p++)
    for (int64_t k = 0; k < rowlen; k++) {
      int64_t v = len > 0 ? ids[start + k] : k;
      if (v < 0) continue; /* padding of a short row */
      group[n++] = mode == COLL_CROSS_REPLICA_AND_PARTITION ? (int)v * id.partitions + p : mode_chip(&id, mode, v);
    }
  return n;
}

int coll_pair_peers(VmExec *x, const int64_t *pairs, int64_t len, int mode, int *from, int *to) {
  VmChipId id = vm_chip_id(x);
  int limit = mode_limit(&id, mode), self = mode_self(&id, mode);
  *from = *to = -1;
  for (int64_t i = 0; i < len; i++)
    if (pairs[i] >= limit)
      return vm_trap(x, "source_target_pairs name %s %" PRId64 ", but the slice has %d %s%s", mode_id_name(mode),
                     pairs[i], limit, mode_id_name(mode), limit == 1 ? "" : "s");
  for (int64_t i = 0; i + 1 < len; i += 2) {
    if (pairs[i + 1] == self) *from = mode_chip(&id, mode, pairs[i]);
    if (pairs[i] == self) *to = mode_chip(&id, mode, pairs[i + 1]);
  }
  return VM_OK;
}

/* The group of a group-based instruction; traps when the chip is in none
 * (unless none_ok: then 0). */
static int instr_group(VmExec *x, const VmInstr *ins, bool none_ok, int *group) {
  int64_t len, size = vm_field_int(ins, F_GROUP_SIZE);
  const int64_t *ids = vm_field_list(ins, F_GROUPS, &len);
  int mode = ins->opcode == VM_OP_CROSS_REPLICA_SUM ? COLL_CROSS_REPLICA : (int)vm_field_int(ins, F_MODE);
  int n = coll_group(x, ids, len, size, mode, "replica_groups", group);
  if (n == 0 && !none_ok) {
    VmChipId id = vm_chip_id(x);
    return vm_trap(x, "chip %d (replica %d, partition %d) is in no group of replica_groups", id.chip, id.replica,
                   id.partition);
  }
  return n;
}

/* ------------------------------------------------------------------ */
/* Data movement helpers */

/* [*lo, *hi): the elements of `count` that member k of n owns in the
 * chunked phases (64-element aligned chunks, the last ones may be empty). */
static void chunk_of(int64_t count, int n, int k, int64_t *lo, int64_t *hi) {
  int64_t per = (count + n - 1) / n;
  per = (per + 63) / 64 * 64;
  *lo = per * k < count ? per * k : count;
  *hi = *lo + per < count ? *lo + per : count;
}

/* Copies a box of box[d] elements per dimension from src (row-major dims
 * sdims, starting at soff) to dst (dims ddims, starting at doff), through
 * the shape kernels' copy plan. */
static void copy_box(void *dst, const int64_t *ddims, const int64_t *doff, const void *src, const int64_t *sdims,
                     const int64_t *soff, const int64_t *box, int rank, int esize) {
  int64_t sstride[TPUB_MAX_RANK], dstride[TPUB_MAX_RANK], sbase = 0, dbase = 0;
  vm_row_major_strides(rank, sdims, sstride);
  vm_row_major_strides(rank, ddims, dstride);
  for (int d = 0; d < rank; d++) {
    sbase += soff[d] * sstride[d];
    dbase += doff[d] * dstride[d];
  }
  VmCopyPlan plan;
  vm_copy_plan_init(&plan, esize, rank, box, sstride, dstride);
  vm_copy_plan_run(&plan, dst, dbase, src, sbase);
}

/* Asks the kernel for huge pages under a large result about to be written
 * whole: most of a big collective's time otherwise goes to first-touch
 * page faults of its fresh result buffers.  A hint only. */
static void prefer_huge_pages(void *p, size_t n) {
#ifdef MADV_HUGEPAGE
  const uintptr_t huge = (uintptr_t)2 << 20;
  if (n < 4 * huge) return;
  uintptr_t lo = ((uintptr_t)p + huge - 1) & ~(huge - 1), hi = ((uintptr_t)p + n) & ~(huge - 1);
  if (hi > lo) madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
  (void)p, (void)n;
#endif
}

/* How a member combines two values: one binary opcode as a vector loop, or
 * the region per element. */
typedef struct Reducer {
  int binop;    /* VM_OP_ADD, ... or -1 */
  bool swapped; /* the body is op(arg1, arg0) */
  bool ready;   /* rc holds a prepared region call */
  RegionCall rc;
  Scratch scratch;
} Reducer;

/* Prepares the reducer of the executing instruction: region field f, or
 * add when f < 0.  Returns false after a trap (out of memory). */
static bool reducer_init(Reducer *r, VmExec *x, const VmInstr *ins, int f) {
  memset(r, 0, sizeof *r);
  r->scratch.x = x;
  if (f < 0) {
    r->binop = VM_OP_ADD;
    return true;
  }
  const VmRegion *body = &ins->fields[f].regions[0];
  r->binop = vm_region_binary_op(x, body, -1, &r->swapped);
  if (r->binop >= 0) return true;
  if (!kr_region_call_init(&r->rc, &r->scratch, x, body)) {
    kr_scratch_fail(&r->scratch, vm_op_rows[ins->opcode].name);
    return false;
  }
  r->ready = true;
  return true;
}

static void reducer_free(Reducer *r) { kr_scratch_release(&r->scratch); }

/* dst[j] = a[j] op b[j] for j < n with the element-wise kernel of the
 * reducer's op, so every element type rounds and wraps exactly as the
 * unfused op does. */
static void binop_run(const Reducer *r, int elem, void *dst, const void *a, const void *b, int64_t n) {
  vm_binary_apply(r->binop, elem, dst, r->swapped ? b : a, r->swapped ? a : b, n);
}

/* dst[0, len) = the left fold over members k = 0..n-1 of their operand i's
 * elements [off, off + len). */
static int fold_range(Reducer *r, const VmMeeting *m, int i, void *dst, int64_t off, int64_t len) {
  const VmType *t = m->in[0][i].type;
  int elem = t->elem;
  size_t es = (size_t)vm_elem_bytes(elem);
  char *d = dst;
  if (len <= 0) return VM_OK;
  if (m->n == 1) {
    memcpy(d, (const char *)m->in[0][i].data + off * (int64_t)es, (size_t)len * es);
    return VM_OK;
  }
  if (!r->ready) {
    for (int64_t b0 = 0; b0 < len; b0 += FOLD_BLOCK) {
      int64_t bn = len - b0 < FOLD_BLOCK ? len - b0 : FOLD_BLOCK;
      char *db = d + b0 * (int64_t)es;
      int64_t at = (off + b0) * (int64_t)es;
      binop_run(r, elem, db, (const char *)m->in[0][i].data + at, (const char *)m->in[1][i].data + at, bn);
      for (int k = 2; k < m->n; k++) binop_run(r, elem, db, db, (const char *)m->in[k][i].data + at, bn);
    }
    return VM_OK;
  }
  RegionCall *rc = &r->rc;
  _Alignas(16) char acc[16];
  for (int64_t j = 0; j < len; j++) {
    int64_t at = (off + j) * (int64_t)es;
    memcpy(acc, (const char *)m->in[0][i].data + at, es);
    for (int k = 1; k < m->n; k++) {
      rc->args[0].data = acc;
      rc->args[1].data = (char *)m->in[k][i].data + at;
      if (kr_region_call(rc) != VM_OK) return VM_TRAP;
      memcpy(acc, rc->res[0].data, es);
    }
    memcpy(d + j * (int64_t)es, acc, es);
  }
  return VM_OK;
}

/* What the phases of one instruction share (each member has its own). */
typedef struct Job {
  const VmInstr *ins;
  Reducer red;
  int dim, split_dim, concat_dim; /* all_gather / reduce_scatter dim; all_to_all */
  int source;                     /* collective_permute: member whose operand this chip gets, -1 none */
} Job;

/* ------------------------------------------------------------------ */
/* Phases */

/* all_reduce and cross_replica_sum: phase 0 reduces this member's chunk of
 * every operand into its own results; phase 1 copies the other chunks
 * from their owners' results. */
static int phase_all_reduce(VmExec *x, const VmMeeting *m, int phase, void *ctx) {
  (void)x;
  Job *j = ctx;
  for (uint32_t i = 0; i < j->ins->n_out; i++) {
    const VmType *t = m->out[m->me][i].type;
    size_t es = (size_t)vm_elem_bytes(t->elem);
    char *dst = m->out[m->me][i].data;
    for (int k = 0; k < m->n; k++) {
      if ((phase == 0) != (k == m->me)) continue;
      int64_t lo, hi;
      chunk_of(t->count, m->n, k, &lo, &hi);
      if (hi <= lo) continue;
      if (phase == 0) {
        if (fold_range(&j->red, m, (int)i, dst + lo * (int64_t)es, lo, hi - lo) != VM_OK) return VM_TRAP;
      } else {
        memcpy(dst + lo * (int64_t)es, (const char *)m->out[k][i].data + lo * (int64_t)es, (size_t)(hi - lo) * es);
      }
    }
  }
  return VM_OK;
}

/* collective_reduce: phase 0 as all_reduce's; in phase 1 the root (member
 * 0) gathers the chunks; in phase 2 the others clear their results. */
static int phase_collective_reduce(VmExec *x, const VmMeeting *m, int phase, void *ctx) {
  Job *j = ctx;
  if (phase == 0 || (phase == 1 && m->me == 0)) return phase_all_reduce(x, m, phase, ctx);
  if (phase == 2 && m->me != 0)
    for (uint32_t i = 0; i < j->ins->n_out; i++)
      memset(m->out[m->me][i].data, 0, (size_t)m->out[m->me][i].type->nbytes);
  return VM_OK;
}

/* reduce_scatter: this member reduces its own part along dim directly. */
static int phase_reduce_scatter(VmExec *x, const VmMeeting *m, int phase, void *ctx) {
  (void)x, (void)phase;
  Job *j = ctx;
  for (uint32_t i = 0; i < j->ins->n_out; i++) {
    const VmType *ti = m->in[m->me][i].type, *to = m->out[m->me][i].type;
    size_t es = (size_t)vm_elem_bytes(to->elem);
    int64_t outer = 1, inner = 1, part = to->dims[j->dim], whole = ti->dims[j->dim];
    for (int d = 0; d < j->dim; d++) outer *= ti->dims[d];
    for (int d = j->dim + 1; d < ti->rank; d++) inner *= ti->dims[d];
    char *dst = m->out[m->me][i].data;
    for (int64_t o = 0; o < outer; o++)
      if (fold_range(&j->red, m, (int)i, dst + o * part * inner * (int64_t)es,
                     (o * whole + m->me * part) * inner, part * inner) != VM_OK)
        return VM_TRAP;
  }
  return VM_OK;
}

/* all_gather: this member copies every member's operand into its place
 * along dim. */
static int phase_all_gather(VmExec *x, const VmMeeting *m, int phase, void *ctx) {
  (void)x, (void)phase;
  Job *j = ctx;
  int64_t soff[TPUB_MAX_RANK] = {0}, doff[TPUB_MAX_RANK] = {0};
  for (uint32_t i = 0; i < j->ins->n_out; i++) {
    const VmType *ti = m->in[m->me][i].type, *to = m->out[m->me][i].type;
    for (int k = 0; k < m->n; k++) {
      doff[j->dim] = k * ti->dims[j->dim];
      copy_box(m->out[m->me][i].data, to->dims, doff, m->in[k][i].data, ti->dims, soff, ti->dims, ti->rank,
               vm_elem_bytes(ti->elem));
    }
  }
  return VM_OK;
}

/* all_to_all: this member takes part `me` along split_dim of every
 * member's operand and places member k's at k along concat_dim. */
static int phase_all_to_all(VmExec *x, const VmMeeting *m, int phase, void *ctx) {
  (void)x, (void)phase;
  Job *j = ctx;
  for (uint32_t i = 0; i < j->ins->n_out; i++) {
    const VmType *ti = m->in[m->me][i].type, *to = m->out[m->me][i].type;
    int64_t box[TPUB_MAX_RANK], soff[TPUB_MAX_RANK] = {0}, doff[TPUB_MAX_RANK] = {0};
    for (int d = 0; d < ti->rank; d++) box[d] = ti->dims[d];
    box[j->split_dim] /= m->n;
    soff[j->split_dim] = m->me * box[j->split_dim];
    for (int k = 0; k < m->n; k++) {
      doff[j->concat_dim] = k * box[j->concat_dim];
      copy_box(m->out[m->me][i].data, to->dims, doff, m->in[k][i].data, ti->dims, soff, box, ti->rank,
               vm_elem_bytes(ti->elem));
    }
  }
  return VM_OK;
}

/* collective_permute: this member's operand source, or zeros. */
static int phase_permute(VmExec *x, const VmMeeting *m, int phase, void *ctx) {
  (void)x, (void)phase;
  Job *j = ctx;
  for (uint32_t i = 0; i < j->ins->n_out; i++) {
    size_t bytes = (size_t)m->out[m->me][i].type->nbytes;
    if (!bytes) continue;
    if (j->source < 0) memset(m->out[m->me][i].data, 0, bytes);
    else memcpy(m->out[m->me][i].data, m->in[j->source][i].data, bytes);
  }
  return VM_OK;
}

/* collective_broadcast: result i is operand i of the member roots[i] (an
 * extra operand: has_dynamic_root; every member reads its own), else of
 * the first member. */
static int phase_broadcast(VmExec *x, const VmMeeting *m, int phase, void *ctx) {
  (void)x, (void)phase;
  Job *j = ctx;
  const int32_t *roots = j->ins->n_in > j->ins->n_out ? m->in[m->me][j->ins->n_out].data : NULL;
  for (uint32_t i = 0; i < j->ins->n_out; i++) {
    size_t bytes = (size_t)m->out[m->me][i].type->nbytes;
    if (bytes) memcpy(m->out[m->me][i].data, m->in[roots ? roots[i] : 0][i].data, bytes);
  }
  return VM_OK;
}

/* ------------------------------------------------------------------ */
/* Kernels */

/* Zeros every result (a chip outside every group). */
static int zero_results(const VmInstr *ins, VmTensor *out) {
  for (uint32_t i = 0; i < ins->n_out; i++)
    if (out[i].type->nbytes) memset(out[i].data, 0, (size_t)out[i].type->nbytes);
  return VM_OK;
}

/* Joins the group with job's phases; releases the job's reducer. */
static int meet(VmExec *x, const int *group, int n, const VmInstr *ins, const VmTensor *in, VmTensor *out,
                int nphases, VmPhaseFn fn, Job *job, int64_t channel) {
  for (uint32_t i = 0; i < ins->n_out; i++) prefer_huge_pages(out[i].data, (size_t)out[i].type->nbytes);
  int rc = vm_collective(x, group, n, channel, in, out, nphases, fn, job);
  reducer_free(&job->red);
  return rc;
}

/* The reductions: all_reduce (region field f), cross_replica_sum (f < 0)
 * and collective_reduce. */
static int run_reduction(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out, int f, bool to_root) {
  int group[VM_MAX_CHIPS];
  int n = instr_group(x, ins, to_root, group);
  if (n < 0) return VM_TRAP;
  if (n == 0) return zero_results(ins, out);
  Job job = {.ins = ins};
  if (!reducer_init(&job.red, x, ins, f)) return VM_TRAP;
  int64_t channel = f < 0 ? 0 : vm_field_int(ins, F_CHANNEL);
  return meet(x, group, n, ins, in, out, to_root ? 3 : 2, to_root ? phase_collective_reduce : phase_all_reduce, &job,
              channel);
}

int exec_all_reduce(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  return run_reduction(x, ins, in, out, F_EXTRA, false);
}

int exec_cross_replica_sum(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  return run_reduction(x, ins, in, out, -1, false);
}

int exec_collective_reduce(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  return run_reduction(x, ins, in, out, F_EXTRA, true);
}

/* The group size n must scale dim of the operands to the results' (by
 * `mul`, or divide them when !mul); traps naming both otherwise. */
static int check_scaled_dim(VmExec *x, const VmInstr *ins, const VmTensor *in, const VmTensor *out, int dim, int n,
                            bool mul) {
  for (uint32_t i = 0; i < ins->n_out; i++) {
    int64_t a = in[i].type->dims[dim], b = out[i].type->dims[dim];
    if (mul ? a * n != b : b * n != a)
      return vm_trap(x, "dimension %d of operand %u is %" PRId64 " and of its result %" PRId64
                     ", but the group has %d member%s", dim, i, a, b, n, n == 1 ? "" : "s");
  }
  return VM_OK;
}

int exec_all_gather(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  int group[VM_MAX_CHIPS];
  int n = instr_group(x, ins, false, group);
  if (n < 0) return VM_TRAP;
  Job job = {.ins = ins, .dim = (int)vm_field_int(ins, F_EXTRA)};
  if (check_scaled_dim(x, ins, in, out, job.dim, n, true) != VM_OK) return VM_TRAP;
  return meet(x, group, n, ins, in, out, 1, phase_all_gather, &job, vm_field_int(ins, F_CHANNEL));
}

int exec_reduce_scatter(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  int group[VM_MAX_CHIPS];
  int n = instr_group(x, ins, false, group);
  if (n < 0) return VM_TRAP;
  Job job = {.ins = ins, .dim = (int)vm_field_int(ins, F_EXTRA)};
  if (check_scaled_dim(x, ins, in, out, job.dim, n, false) != VM_OK) return VM_TRAP;
  if (!reducer_init(&job.red, x, ins, F_EXTRA + 1)) return VM_TRAP;
  return meet(x, group, n, ins, in, out, 1, phase_reduce_scatter, &job, vm_field_int(ins, F_CHANNEL));
}

int exec_all_to_all(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  int group[VM_MAX_CHIPS];
  int n = instr_group(x, ins, false, group);
  if (n < 0) return VM_TRAP;
  int64_t count = vm_field_int(ins, F_EXTRA + 2);
  if (n != count)
    return vm_trap(x, "split_count is %" PRId64 ", but the group has %d member%s", count, n, n == 1 ? "" : "s");
  Job job = {.ins = ins};
  job.split_dim = (int)vm_field_int(ins, F_EXTRA);
  job.concat_dim = (int)vm_field_int(ins, F_EXTRA + 1);
  return meet(x, group, n, ins, in, out, 1, phase_all_to_all, &job, vm_field_int(ins, F_CHANNEL));
}

int exec_collective_broadcast(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  int group[VM_MAX_CHIPS];
  int n = instr_group(x, ins, true, group);
  if (n < 0) return VM_TRAP;
  if (n == 0) return zero_results(ins, out);
  if (ins->n_in > ins->n_out) {
    const int32_t *roots = in[ins->n_out].data;
    for (uint32_t i = 0; i < ins->n_out; i++)
      if (roots[i] < 0 || roots[i] >= n)
        return vm_trap(x, "collective_broadcast: root %" PRId32 " of result %u is not a member of a group of %d", roots[i],
                       i, n);
  }
  Job job = {.ins = ins};
  return meet(x, group, n, ins, in, out, 1, phase_broadcast, &job, vm_field_int(ins, F_CHANNEL));
}

int exec_collective_permute(VmExec *x, const VmInstr *ins, const VmTensor *in, VmTensor *out) {
  int64_t len;
  const int64_t *pairs = vm_field_list(ins, 0, &len);
  int mode = (int)vm_field_int(ins, 1), from, to;
  if (coll_pair_peers(x, pairs, len, mode, &from, &to) != VM_OK) return VM_TRAP;
  if (from < 0 && to < 0) return zero_results(ins, out);
  /* The group: the chips of every pair on this chip's line, ascending. */
  VmChipId id = vm_chip_id(x);
  bool used[VM_MAX_CHIPS] = {false};
  for (int64_t i = 0; i < len; i++) used[mode_chip(&id, mode, pairs[i])] = true;
  int group[VM_MAX_CHIPS], n = 0;
  Job job = {.ins = ins, .source = -1};
  for (int c = 0; c < id.replicas * id.partitions; c++)
    if (used[c]) {
      if (c == from) job.source = n;
      group[n++] = c;
    }
  return meet(x, group, n, ins, in, out, 1, phase_permute, &job, vm_field_int(ins, 2));
}

/* ------------------------------------------------------------------ */
/* Validators */

static const char *op_name(const VmCheck *c) { return vm_op_rows[c->ins->opcode].name; }

/* Operands [0, n_in) and results [0, n_out) are tensors, as many of each,
 * result i of operand i's element type (and shape when same_shape). */
static bool check_pairwise(VmCheck *c, bool same_shape, bool extra) {
  if (c->ins->n_in != c->ins->n_out + (extra ? 1 : 0))
    return vm_check_fail(c, "%s with %u operands and %u results", op_name(c), c->ins->n_in, c->ins->n_out);
  for (uint32_t i = 0; i < c->ins->n_out; i++) {
    const VmType *a = vm_check_in(c, i), *b = vm_check_out(c, i);
    if (!vm_type_is_tensor(a) || !vm_type_is_tensor(b))
      return vm_check_fail(c, "%s: operand and result %u must be tensors", op_name(c), i);
    if (a->elem != b->elem || a->rank != b->rank || (same_shape && !vm_type_equal(a, b)))
      return vm_check_fail(c, "%s: result %u must have the %s of operand %u", op_name(c), i,
                           same_shape ? "type" : "element type and rank", i);
  }
  return true;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* The n values at v (every stride-th from first) are distinct, -1s aside. */
static bool distinct(VmCheck *c, const char *what, const int64_t *v, int64_t n, int64_t first, int64_t stride) {
  int64_t *s = malloc(sizeof(int64_t) * (size_t)(n / stride + 1)), k = 0;
  if (!s) return vm_check_fail(c, "out of memory");
  for (int64_t i = first; i < n; i += stride)
    if (v[i] != -1) s[k++] = v[i];
  qsort(s, (size_t)k, sizeof *s, cmp_i64);
  for (int64_t i = 1; i < k; i++)
    if (s[i] == s[i - 1]) {
      int64_t dup = s[i];
      free(s);
      return vm_check_fail(c, "%s: %s names %" PRId64 " twice", op_name(c), what, dup);
    }
  free(s);
  return true;
}

/* groups, group_size and mode (one of the modes in the bit set `modes`). */
static bool check_groups(VmCheck *c, unsigned modes) {
  int64_t len, size = vm_field_int(c->ins, F_GROUP_SIZE);
  const int64_t *ids = vm_field_list(c->ins, F_GROUPS, &len);
  if (len > 0 && (size < 1 || len % size != 0))
    return vm_check_fail(c, "%s: %" PRId64 " group entries do not make groups of %" PRId64, op_name(c), len, size);
  for (int64_t i = 0; i < len; i++)
    if (ids[i] < -1) return vm_check_fail(c, "%s: group entry %" PRId64 " is negative", op_name(c), ids[i]);
  if (modes) {
    int64_t mode = vm_field_int(c->ins, F_MODE);
    if (mode < 0 || mode > 3 || !(modes & (1u << mode)))
      return vm_check_fail(c, "%s: mode %" PRId64 " is not allowed", op_name(c), mode);
  }
  return distinct(c, "replica_groups", ids, len, 0, 1);
}

#define MODES_REDUCE (1u << COLL_CROSS_REPLICA | 1u << COLL_CROSS_REPLICA_AND_PARTITION | 1u << COLL_FLATTENED_IDS)
#define MODES_LINE (1u << COLL_CROSS_REPLICA | 1u << COLL_CROSS_PARTITION)

/* A pairs field (f) and mode (f + 1): [src, dst] pairs of non-negative
 * ids, sources distinct, targets distinct. */
bool coll_check_pairs(VmCheck *c, int f) {
  int64_t len, mode = vm_field_int(c->ins, f + 1);
  const int64_t *p = vm_field_list(c->ins, f, &len);
  if (len % 2) return vm_check_fail(c, "%s: source_target_pairs has an odd count %" PRId64, op_name(c), len);
  for (int64_t i = 0; i < len; i++)
    if (p[i] < 0) return vm_check_fail(c, "%s: source_target_pairs entry %" PRId64 " is negative", op_name(c), p[i]);
  if (mode < 0 || mode > 1) return vm_check_fail(c, "%s: mode %" PRId64 " is not allowed", op_name(c), mode);
  return distinct(c, "the sources of source_target_pairs", p, len, 0, 2) &&
         distinct(c, "the targets of source_target_pairs", p, len, 1, 2);
}

/* Whether opcode waits for other chips (a region running it inside a
 * collective's phase could never complete). */
static bool is_blocking(int opcode) {
  switch (opcode) {
  case VM_OP_ALL_REDUCE:
  case VM_OP_CROSS_REPLICA_SUM:
  case VM_OP_ALL_GATHER:
  case VM_OP_REDUCE_SCATTER:
  case VM_OP_ALL_TO_ALL:
  case VM_OP_COLLECTIVE_PERMUTE:
  case VM_OP_COLLECTIVE_BROADCAST:
  case VM_OP_COLLECTIVE_REDUCE:
  case VM_OP_RECV:
  case VM_OP_RUN_PARALLEL: return true;
  default: return false;
  }
}

/* The reduction body (region field f): (tensor<E>, tensor<E>) -> tensor<E>
 * for E every operand's element type, and nothing reachable from it waits
 * for other chips. */
static bool check_body(VmCheck *c, int f) {
  const char *op = op_name(c);
  if (!vm_check_region(c, f, 2, NULL, 1, NULL)) return false;
  for (uint32_t i = 0; i < c->ins->n_in; i++) {
    int e = vm_check_in(c, i)->elem;
    if (!kr_check_region_param(c, op, f, 0, e) || !kr_check_region_param(c, op, f, 1, e) ||
        !kr_check_region_result(c, op, f, 0, e))
      return false;
  }
  uint32_t nf = c->prog->n_funcs, top = 0;
  uint32_t *stack = malloc(sizeof(uint32_t) * (nf + 1));
  bool *seen = calloc(nf + 1, 1);
  if (!stack || !seen) {
    free(stack);
    free(seen);
    return vm_check_fail(c, "out of memory");
  }
  stack[top++] = c->ins->fields[f].regions[0].func;
  seen[stack[0]] = true;
  const char *bad = NULL;
  while (top && !bad) {
    const VmFunc *fn = &c->prog->funcs[stack[--top]];
    for (uint32_t k = 0; k < fn->n_instrs && !bad; k++) {
      const VmInstr *in = &fn->instrs[k];
      if (is_blocking(in->opcode)) {
        bad = vm_op_rows[in->opcode].name;
        break;
      }
      VmOpInfo info;
      vm_op_describe(in->opcode, &info);
      for (int q = 0; q < info.nfields; q++) {
        if (info.field_kind[q] != VM_FIELD_REGION && info.field_kind[q] != VM_FIELD_REGIONS) continue;
        for (int64_t r = 0; r < in->fields[q].n; r++) {
          uint32_t g = in->fields[q].regions[r].func;
          if (!seen[g]) {
            seen[g] = true;
            stack[top++] = g;
          }
        }
      }
    }
  }
  free(stack);
  free(seen);
  if (bad) return vm_check_fail(c, "%s: its computation runs %s, which waits for other chips", op, bad);
  return true;
}

bool check_all_reduce(VmCheck *c) {
  return check_pairwise(c, true, false) && check_groups(c, MODES_REDUCE) && check_body(c, F_EXTRA);
}

bool check_collective_reduce(VmCheck *c) {
  return check_pairwise(c, true, false) && check_groups(c, MODES_LINE) && check_body(c, F_EXTRA);
}

bool check_cross_replica_sum(VmCheck *c) {
  if (!check_pairwise(c, true, false) || !check_groups(c, 0)) return false;
  for (uint32_t i = 0; i < c->ins->n_in; i++) {
    int e = vm_check_in(c, i)->elem;
    if (!vm_elem_is_int(e) && !vm_elem_is_float(e) && vm_elem_class(e) != TPUB_CLASS_COMPLEX)
      return vm_check_fail(c, "cross_replica_sum of %s", vm_elem_name(e));
  }
  return true;
}

/* Operands and results pairwise, but for a last operand of roots,
 * tensor<[results]xi32>, with has_dynamic_root. */
bool check_collective_broadcast(VmCheck *c) {
  uint32_t n = c->ins->n_out;
  if (c->ins->n_in == n + 1) {
    const VmType *r = vm_check_in(c, n);
    if (!vm_type_is_tensor(r) || r->elem != TPUB_I32 || r->rank != 1 || r->dims[0] != n)
      return vm_check_fail(c, "collective_broadcast: its roots operand must be tensor<%uxi32>", n);
  }
  return check_pairwise(c, true, c->ins->n_in == n + 1) && check_groups(c, MODES_LINE);
}

bool check_collective_permute(VmCheck *c) { return check_pairwise(c, true, false) && coll_check_pairs(c, 0); }

/* dim (field f) is a dimension of every operand, and result i differs
 * from operand i only there. */
static bool check_dim(VmCheck *c, int f, const char *name, int64_t *dim) {
  *dim = vm_field_int(c->ins, f);
  for (uint32_t i = 0; i < c->ins->n_in; i++) {
    const VmType *a = vm_check_in(c, i), *b = vm_check_out(c, i);
    if (*dim < 0 || *dim >= a->rank)
      return vm_check_fail(c, "%s: %s %" PRId64 " is not a dimension of operand %u", op_name(c), name, *dim, i);
    for (int d = 0; d < a->rank; d++)
      if (d != *dim && a->dims[d] != b->dims[d])
        return vm_check_fail(c, "%s: result %u differs from operand %u in dimension %d", op_name(c), i, i, d);
  }
  return true;
}

bool check_all_gather(VmCheck *c) {
  int64_t dim;
  if (!check_pairwise(c, false, false) || !check_groups(c, MODES_REDUCE) || !check_dim(c, F_EXTRA, "dim", &dim))
    return false;
  for (uint32_t i = 0; i < c->ins->n_in; i++) {
    int64_t a = vm_check_in(c, i)->dims[dim], b = vm_check_out(c, i)->dims[dim];
    if (a == 0 ? b != 0 : (b == 0 || b % a != 0))
      return vm_check_fail(c, "all_gather: result %u's dimension %" PRId64 " is not a multiple of the operand's", i,
                           dim);
  }
  return true;
}

bool check_reduce_scatter(VmCheck *c) {
  int64_t dim;
  if (!check_pairwise(c, false, false) || !check_groups(c, MODES_REDUCE) || !check_dim(c, F_EXTRA, "dim", &dim) ||
      !check_body(c, F_EXTRA + 1))
    return false;
  for (uint32_t i = 0; i < c->ins->n_in; i++) {
    int64_t a = vm_check_in(c, i)->dims[dim], b = vm_check_out(c, i)->dims[dim];
    if (b == 0 ? a != 0 : (a == 0 || a % b != 0))
      return vm_check_fail(c, "reduce_scatter: operand %u's dimension %" PRId64 " is not a multiple of the result's",
                           i, dim);
  }
  return true;
}

bool check_all_to_all(VmCheck *c) {
  if (!check_pairwise(c, false, false) || !check_groups(c, MODES_LINE)) return false;
  int64_t sd = vm_field_int(c->ins, F_EXTRA), cd = vm_field_int(c->ins, F_EXTRA + 1);
  int64_t count = vm_field_int(c->ins, F_EXTRA + 2), len;
  vm_field_list(c->ins, F_GROUPS, &len);
  if (count < 1 || count > VM_MAX_CHIPS)
    return vm_check_fail(c, "all_to_all: split_count %" PRId64 " is not in [1, %d]", count, VM_MAX_CHIPS);
  if (len > 0 && vm_field_int(c->ins, F_GROUP_SIZE) != count)
    return vm_check_fail(c, "all_to_all: groups of %" PRId64 " for a split_count of %" PRId64,
                         vm_field_int(c->ins, F_GROUP_SIZE), count);
  for (uint32_t i = 0; i < c->ins->n_in; i++) {
    const VmType *a = vm_check_in(c, i), *b = vm_check_out(c, i);
    if (sd < 0 || sd >= a->rank || cd < 0 || cd >= a->rank)
      return vm_check_fail(c, "all_to_all: split_dim %" PRId64 " or concat_dim %" PRId64 " out of range", sd, cd);
    if (a->dims[sd] % count != 0)
      return vm_check_fail(c, "all_to_all: dimension %" PRId64 " of operand %u does not split in %" PRId64, sd, i,
                           count);
    for (int d = 0; d < a->rank; d++) {
      int64_t want = a->dims[d];
      if (sd != cd && d == sd) want /= count;
      if (sd != cd && d == cd) want *= count;
      if (b->dims[d] != want)
        return vm_check_fail(c, "all_to_all: result %u has %" PRId64 " in dimension %d, expected %" PRId64, i,
                             b->dims[d], d, want);
    }
  }
  return true;
}
