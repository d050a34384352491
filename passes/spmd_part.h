/* The partitioner's internals (passes/spmd_partition.c, spmd_build.c,
 * spmd_rules.c): the function being rewritten, its local values, and
 * the builder of local ops and collectives. */
#ifndef PASSES_SPMD_PART_H
#define PASSES_SPMD_PART_H

#include "passes/spmd.h"

/* What an old (global) value became on each partition. */
typedef struct Local {
  const Value *old;
  const Type *global;  /* old's type (arguments are retyped in place) */
  Value *v;            /* the per-partition value */
  const Sharding *l;   /* its layout (full tiled form); NULL for non-tensors */
  bool manual;         /* already per-device (shard_map bodies) */
  const Sharding *alt_l; /* the last other layout it was resharded to, */
  Value *alt_v;          /* and that value (placed where it dominates every later use) */
} Local;

typedef struct Part {
  Spmd *s;
  Block *block;  /* the block being rewritten */
  Block *func_block; /* the function body (where the partition id is made) */
  Op *at;        /* new ops go before this op */
  Loc loc;
  PtrTable locals; /* old value -> Local */
  Value *pid;    /* the partition id as tensor<i32> */
  bool failed;
} Part;

const Local *part_get(const Part *P, const Value *old);
void part_put(Part *P, const Value *old, Value *v, const Sharding *l, bool manual);
/* Records v as old's value in layout l, for later uses to reuse. */
void part_remember(Part *P, const Value *old, const Sharding *l, Value *v);

/* One op before P->at with P->loc; its result. */
Value *part_emit(Part *P, OpKind k, int n, Value **operands, Type *t, int nattrs, NamedAttr *attrs);
Type *part_with_dims(Part *P, const Type *like, const int64_t *dims);
Value *part_splat(Part *P, Type *t, const void *elem); /* elem: host-layout bytes */
Value *part_zero_like(Part *P, ElemKind k);            /* tensor<k> zero */
Attr *part_groups_attr(Part *P, int64_t ngroups, int64_t size, const int64_t *ids);
/* table[p] on partition p, as tensor<i32>. */
Value *part_lookup(Part *P, const int32_t *table);
/* Where partition p's piece of l starts along dim d (coordinate times
 * local extent), minus that of `minus` when given. */
Value *part_offset(Part *P, const Sharding *l, int d, int64_t global, const Sharding *minus);
/* The partitions in groups that differ only in the dims with vary[d]
 * (the replication index stays), each group ordered by those dims'
 * coordinates: ids[] holds the N partitions group after group; returns
 * the group size. */
int64_t part_groups(Part *P, const Sharding *l, const bool *vary, int64_t *ids);

/* The kinds of collective the partitioner inserts (PassContext.spmd_inserted). */
enum { SPMD_ALL_GATHER, SPMD_ALL_REDUCE, SPMD_REDUCE_SCATTER, SPMD_ALL_TO_ALL, SPMD_COLLECTIVE_PERMUTE };

/* Collectives over groups of `size` partitions (ids from part_groups). */
Value *part_all_reduce(Part *P, Value *x, int64_t size, const int64_t *ids, const Region *body, OpKind kind);
Value *part_reduce_scatter(Part *P, Value *x, int dim, int64_t size, const int64_t *ids, const Region *body,
                           OpKind kind);
Value *part_all_gather(Part *P, Value *x, int dim, int64_t size, const int64_t *ids);
Value *part_all_to_all(Part *P, Value *x, int split, int concat, int64_t size, const int64_t *ids);
/* Local data movement. */
Value *part_slice(Part *P, Value *x, const int64_t *limit);  /* x[0:limit] */
Value *part_pad_to(Part *P, Value *x, const int64_t *dims);  /* zeros after the end */
Value *part_dynamic_slice(Part *P, Value *x, Value *const *starts, const int64_t *sizes);
/* x with the padding of uneven pieces (positions at or past global[d]
 * along the dims with dims[d]) replaced by the scalar fill. */
Value *part_mask(Part *P, Value *x, const Sharding *l, const int64_t *global, const bool *dims, Value *fill);

/* x (layout from, of global type g) as layout to (passes/spmd_partition.c). */
Value *part_reshard(Part *P, Value *x, const Sharding *from, const Sharding *to, const Type *g);
/* Every partition holds the same pieces under a and b. */
bool part_same_data(const Part *P, const Sharding *a, const Sharding *b);
/* About the bytes part_reshard moves between partitions for that change
 * (0 when every partition keeps or slices its own piece). */
int64_t part_reshard_bytes(const Part *P, const Sharding *from, const Sharding *to, const Type *g);
/* The old value as layout l: resharded once, then reused. */
Value *part_operand_as(Part *P, const Value *old, const Sharding *l);

/* A windowed op on spatially tiled operands, with halo exchange
 * (passes/spmd_halo.c): 1 done, 0 failed after a diagnostic, -1 not such
 * an op (the other rules apply). */
int part_halo(Part *P, Op *op);

/* Rewrites block b in place for the partitions: new arguments in layouts
 * args[i] (NULL: not a tensor; manual[i] when per-device, manual may be
 * NULL), every op partitioned in order, the terminator's operands in
 * rets[i] (rets or rets[i] NULL: as they are).  False after a diagnostic. */
bool part_block(Part *P, Block *b, const Sharding *const *args, const bool *manual, const Sharding *const *rets);
/* The partition id as tensor<i32>, built once at the function's start. */
Value *part_partition_id(Part *P);

/* The rules' common steps (passes/spmd_rules.c). */
/* Result r's target layout: its op's sharding, replicated when none;
 * NULL for a result that is not a ranked tensor. */
const Sharding *part_target(Part *P, const Op *op, int r);
/* Sets result r of the old op to v (layout l), resharded to its target. */
void part_finish(Part *P, const Op *op, int r, Value *v, const Sharding *l);
/* A copy of op on vals with result types, before P->at, its regions
 * cloned (outer values they capture mapped to their whole local values),
 * without its shardings. */
Op *part_clone(Part *P, const Op *op, Value **vals, Type **types);
/* Records every value defined inside op's regions in m. */
void part_mark_inside(Context *c, const Op *op, ValueMap *m);

/* Partitions one op (passes/spmd_rules.c); false after a diagnostic. */
bool part_op(Part *P, Op *op);

/* x sent from pairs[2i] to pairs[2i + 1] (partition ids, in every
 * replica); a partition no pair names as target receives zeros. */
Value *part_collective_permute(Part *P, Value *x, int64_t npairs, const int64_t *pairs);

#endif
