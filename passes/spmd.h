/* SPMD partitioning, the parts shared by sharding-propagation
 * (passes/spmd_propagate.c) and spmd-partition (passes/spmd_partition.c,
 * passes/spmd_rules.c); docs/spmd.md describes the design.
 *
 * Every sharding the passes handle is in the *full tiled form*: a TILED
 * sharding whose devices array lists each of the program's N partitions
 * once (REPLICATED: every tile 1, replicas N, devices 0..N-1).  In that
 * form each partition p has a coordinate per tiled dim plus its index on
 * the replication axis, and the passes reason per partition. */
#ifndef PASSES_SPMD_H
#define PASSES_SPMD_H

#include "ir/sharding.h"
#include "passes/pass.h"

/* An open-addressing table of records of `size` bytes whose first member
 * is their key, a pointer (the SPMD passes' tables by Value). */
typedef struct PtrTable {
  unsigned char *slots;
  size_t cap, count, size;
} PtrTable;
void *ptr_table_get(const PtrTable *t, const void *key); /* NULL when absent */
/* key's record, added zeroed but for its key (*added set) when absent. */
void *ptr_table_put(PtrTable *t, const void *key, bool *added);
void ptr_table_free(PtrTable *t);

/* The partitions of the program and the arena shardings live in. */
typedef struct Spmd {
  PassContext *pc;
  Context *c;
  Module *m;
  int64_t n;        /* partitions (mhlo.num_partitions) */
  int64_t replicas; /* mhlo.num_replicas */
  int64_t channels; /* the largest channel handle in use */
  struct LayoutTable *layouts; /* every distinct layout once, with its coordinates */
  PtrTable *parsed;            /* sharding attributes read so far, by Attr */
} Spmd;

/* Whether the module asks for partitioning: num_partitions > 1 and some
 * sharding annotation, and not already partitioned (tpu.spmd_partitioned). */
bool spmd_wanted(const Module *m);
Spmd spmd_begin(PassContext *pc);
void spmd_end(Spmd *s); /* frees the layout and parsed-attribute tables */
struct LayoutTable *layout_table_new(void);
bool spmd_is_private(const Op *func);
/* custom_call @Sharding, sdy.sharding_constraint, sdy.reshard: identities
 * that pin their result's sharding. */
bool spmd_is_constraint(const Op *op);
int spmd_cmp_i64(const void *a, const void *b); /* qsort order of int64_t */
/* The sharding an op states for its result `index` (mhlo.sharding, a
 * tuple's element, or sdy.sharding), or of a function's argument/result
 * (side 0/1), normalized; NULL when none. */
const Sharding *spmd_op_sharding(const Spmd *s, const Op *op, int index);
const Sharding *spmd_func_sharding(const Spmd *s, const Op *func, int side, int index);
/* Element `index` of a sharding attribute (GSPMD string or Shardy text,
 * e.g. sdy.manual_computation's in_shardings); NULL when absent. */
const Sharding *spmd_attr_sharding(const Spmd *s, const Attr *a, int index);

/* ---- the full tiled form (passes/spmd_layout.c) ---- */
/* s (any kind, for a value of rank `rank`) in the full tiled form; NULL
 * for MANUAL, UNKNOWN and tuples, or when it does not cover the N
 * partitions. */
const Sharding *layout_full(const Spmd *s, const Sharding *in, int rank);
const Sharding *layout_replicated(const Spmd *s, int rank);
bool layout_is_replicated(const Sharding *l);
/* coords[p * (rank + 1) + d]: partition p's tile index along dim d, and
 * at [rank] its index on the replication axis (computed once per layout). */
const int64_t *layout_coords(const Spmd *s, const Sharding *l);
/* The layout whose partition p holds the tile at coords[p * (k + 1) + d]
 * (d < k) of tiles[], the replication index at [k] ordering replicas;
 * NULL when the coordinates are not balanced (some tile held by more
 * partitions than another). */
const Sharding *layout_from_coords(const Spmd *s, int k, const int64_t *tiles, const int64_t *coords);
/* out[e] = l's dim map[e] (map[e] < 0: a new untiled dim); dims of l not
 * in map fold into replication.  Exactly a transpose when map is a
 * permutation. */
const Sharding *layout_map(const Spmd *s, const Sharding *l, int k, const int64_t *map);
/* l with dim d untiled (its tiles folded into replication). */
const Sharding *layout_untile(const Spmd *s, const Sharding *l, int d);
/* Elements per partition along dim d of a global extent: ceil(D / tiles). */
int64_t layout_local_dim(const Sharding *l, int d, int64_t global);
Type *layout_local_type(const Spmd *s, const Sharding *l, Type *global);
/* Pieces a partition holds (product of tiles): a measure of parallelism. */
int64_t layout_pieces(const Sharding *l);

/* ---- dim correspondences of an op (passes/spmd_dims.c) ---- */
/* An integer list attribute read flat (array<i64>, dense 1-d, and the
 * 2-d tensor<Nx2xi64> of a window's padding row by row); n = 0 when
 * absent or not integers. */
const int64_t *spmd_int_list(Context *c, const Attr *a, int *n);
/* For each result dim e of op's result 0, the dim of operand i it is
 * computed from pointwise (out[e], -1 for none): tiling that dim of the
 * result and of the operand alike is local.  Returns false when op has no
 * such map (the partitioner then computes it replicated). */
bool spmd_dim_map(const Spmd *s, const Op *op, int operand, int64_t *out);
/* Dims of the operands that op reduces over and that may be tiled with a
 * combine afterwards (reduce: its dimensions; dot_general: contracting
 * pairs; convolution: input/kernel feature), as pairs (lhs dim, rhs dim;
 * -1 for an operand without it) in lhs[], rhs[]; their count. */
int spmd_reduction_dims(const Spmd *s, const Op *op, int64_t *lhs, int64_t *rhs);

/* The dim map propagation uses for a windowed op whose windowed dims can
 * be tiled with a halo exchange (passes/spmd_halo.c): spmd_dim_map plus
 * those dims; false when the op is not such an op. */
bool spmd_halo_map(const Spmd *s, const Op *op, int operand, int64_t *out);

/* The layout of op's result 0 from its operands' layouts ls[i] (NULL:
 * unknown) through the dim maps (with the halo maps when halo): the
 * operands' tilings combined, or, where they disagree, the largest
 * operand's alone (passes/spmd_propagate.c).  NULL when none is known. */
const Sharding *spmd_combine(const Spmd *s, const Op *op, const Sharding *const *ls, bool halo);

/* ---- writing what the passes decide ---- */
/* op's mhlo.sharding: one string for one result, a tuple for several. */
void spmd_set_op_sharding(Spmd *s, Op *op, const Sharding *const *results);
/* A key of a function's arg_attrs (side 0) or res_attrs (side 1) dict
 * (value NULL removes it), and its mhlo.sharding. */
void spmd_set_func_attr(Spmd *s, Op *func, int side, int index, const char *key, Attr *value);
void spmd_set_func_sharding(Spmd *s, Op *func, int side, int index, const Sharding *l);

#endif
