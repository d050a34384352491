/* Shardings: how a value of a program written on global shapes is laid out
 * over the devices (partitions) of an SPMD program (DESIGN.md §10).  GSPMD's
 * `mhlo.sharding` strings and Shardy's `#sdy.sharding` attributes are both
 * read into one form, XLA's tile assignment:
 *
 *   a TILED sharding of a rank-k value cuts dimension d into tiles[d]
 *   pieces; the devices array, row-major over [tiles[0], ..., tiles[k-1],
 *   replicas], names the device (partition id) holding each piece, the
 *   last axis listing the devices that hold the same piece (replication).
 *
 * REPLICATED and MAXIMAL keep the whole value on every device / one device;
 * MANUAL values are already per-device (shard_map's body); UNKNOWN leaves
 * the choice to propagation.  docs/spmd.md describes the forms read. */
#ifndef TPUCC_IR_SHARDING_H
#define TPUCC_IR_SHARDING_H

#include "ir/ir.h"

enum {
  SHARDING_MAX_RANK = 16,      /* data dims of a tiled sharding (TPUB_MAX_RANK) */
  SHARDING_MAX_DEVICES = 4096, /* devices of one sharding (tpurun's chip limit) */
  SHARDING_WHY_LEN = 256,      /* size of the why buffers below */
};

typedef enum ShardingKind {
  SHARDING_REPLICATED, /* the whole value on every device */
  SHARDING_MAXIMAL,    /* the whole value on one device */
  SHARDING_TILED,      /* pieces on devices, maybe replicated */
  SHARDING_MANUAL,     /* per-device values the program handles itself */
  SHARDING_UNKNOWN,    /* {unknown}: propagation decides */
  SHARDING_TUPLE,      /* one sharding per tuple element */
} ShardingKind;

typedef struct Sharding Sharding;
struct Sharding {
  ShardingKind kind;
  int rank;               /* TILED: data dims */
  const int64_t *tiles;   /* TILED: rank entries, pieces per data dim (>= 1) */
  int64_t replicas;       /* TILED: devices holding each piece (>= 1) */
  bool partial_manual;    /* TILED: last_tile_dims={manual...}: replicas counts manual subgroups */
  int64_t ndevices;       /* TILED: product of tiles and replicas */
  const int64_t *devices; /* TILED: ndevices ids, row-major over [tiles..., replicas] */
  int64_t device;         /* MAXIMAL: the device */
  int nelems;             /* TUPLE */
  const Sharding *elems;  /* TUPLE: nelems shardings */
};

/* Parses a GSPMD string ("{devices=[2,1]<=[2]}", "{replicated}", tuples,
 * last_tile_dim_replicate, last_tile_dims={...}, metadata ignored) into
 * arena memory; false with the reason in why (SHARDING_WHY_LEN bytes). */
bool sharding_parse_gspmd(Arena *a, const char *text, size_t len, Sharding *out, char *why);

/* Reads a Shardy attribute (the text of #sdy.sharding<...> or
 * #sdy.sharding_per_value<[...]>; the latter gives a TUPLE) against the
 * module's sdy.mesh ops; false with the reason in why. */
bool sharding_parse_sdy(Arena *a, const Module *m, const char *text, Sharding *out, char *why);

/* The per-device dims (out) of a value of dims[rank] under sharding #index
 * of a Shardy attribute (the text of #sdy.sharding<...>, of
 * #sdy.sharding_per_value<[...]> or a bare [<...>, ...]) when the mesh axes
 * of manual_axes ({"x", "y"} or #sdy<manual_axes{...}>) are manual: each
 * dim divided by the sizes of its manual axes (sdy.manual_computation's
 * body); false with the reason in why. */
bool sharding_sdy_manual_shape(Arena *a, const Module *m, const char *text, int index, const char *manual_axes,
                               int rank, const int64_t *dims, int64_t *out, char *why);

/* Reads the text of an sdy.mesh's #sdy.mesh<[...], device_ids=[...]>:
 * its axis count, its device count (the product of the axis sizes) and,
 * for a maximal mesh (no axes, one device id), that device (else -1);
 * false with the reason in why. */
bool sharding_sdy_mesh(Arena *a, const char *text, int *naxes, int64_t *ndevices, int64_t *device, char *why);

/* The canonical GSPMD string of s ("{devices=[2,1]<=[2]}" when the devices
 * are in order, else the explicit list; tuples as "{a, b}"). */
char *sharding_to_string(Arena *a, const Sharding *s);

/* Same layout: equal kinds, tiles, replicas and devices (MAXIMAL: device;
 * TUPLE: each element).  A TILED sharding with every tile count 1 equals
 * REPLICATED. */
bool sharding_equal(const Sharding *a, const Sharding *b);

/* Whether s can lay out a value of type t on num_devices partitions: the
 * tile rank is t's rank, every device id is below num_devices and appears
 * once, t is a static tensor (not a token or a dynamic shape); false with
 * the reason in why. */
bool sharding_fits(const Sharding *s, const Type *t, int64_t num_devices, char *why);

/* True when every tile count is 1 (or s is REPLICATED/MAXIMAL): each
 * device holds whole values. */
bool sharding_is_whole(const Sharding *s);

/* A TILED sharding in arena memory (tiles copied; devices copied, or
 * 0..n-1 when devices is NULL).  Every tile 1 and replicas n gives the
 * tiled form of REPLICATED. */
Sharding sharding_tiled(Arena *a, int rank, const int64_t *tiles, int64_t replicas, const int64_t *devices);

#endif
