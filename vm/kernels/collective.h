/* What vm/kernels/collective.c and vm/kernels/channel.c share: the process-group
 * modes of the collective opcodes' mode field and the group resolution
 * (docs/collectives.md).  Internal to vm/. */
#ifndef VM_K_COLLECTIVE_H
#define VM_K_COLLECTIVE_H

#include "vm/kernels/kernels.h"

/* The mode field: the id space of replica_groups / source_target_pairs. */
enum {
  COLL_CROSS_REPLICA,               /* replica ids; a group is on one partition */
  COLL_CROSS_PARTITION,             /* partition ids; a group is on one replica */
  COLL_CROSS_REPLICA_AND_PARTITION, /* replica ids; a group spans every partition */
  COLL_FLATTENED_IDS,               /* replica * partitions + partition */
};

/* The executing chip's process group under mode, from the groups ids
 * (rows of `size` entries, -1 padding; none: one group of every id): the
 * chip ids in group order go to group (room for every chip of the slice).
 * Returns the member count, 0 when the chip is in no group, or VM_TRAP
 * when an id is outside the slice (what names the field in the message). */
int coll_group(VmExec *x, const int64_t *ids, int64_t len, int64_t size, int mode, const char *what, int *group);

/* Validator of a pairs field f ([src, dst, ...]) and the mode field f + 1. */
bool coll_check_pairs(VmCheck *c, int f);

/* For source_target_pairs (ids in mode's space, mode 0 or 1): traps
 * unless every id is inside the slice, else sets *from to the
 * chip whose pair targets the executing chip and *to to the chip its own
 * pair targets (-1 when there is none). */
int coll_pair_peers(VmExec *x, const int64_t *pairs, int64_t len, int mode, int *from, int *to);

#endif
