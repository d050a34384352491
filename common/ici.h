/* The ICI model (DESIGN.md §2), shared by the compiler's cost model
 * (passes/cost.c) and the VM's modeled timeline: where chips sit on a
 * torus and how long a collective takes among them.  Pure functions of
 * their arguments: no state, no allocation; the target's figures (link
 * bandwidth, per-hop latency, torus dimensionality) are parameters
 * (passes/targets.def, TARGET_ICI_HOP_S).
 *
 * Placement.  A slice of chips sits on a torus of ndims (1..3) axes of
 * dims[0] x ... x dims[ndims - 1] chips; chip c sits at the row-major
 * coordinates of c (the last axis varies fastest).  The default slice of a
 * target is the most square (2D) or most cubic (3D) factorization of the
 * chip count, dims ascending: 8 chips are 2x4 on v5e, 2x2x2 on v4.
 *
 * Wraparound.  A torus axis wraps around only when it is full: an axis
 * has its wraparound link only when its size is a multiple of the
 * target's wrap unit, ici_wrap_unit(torus_dims):
 *   - 2D targets (v5e, v6e): 16, the side of a full 16x16 pod; smaller
 *     slices (2x4, 4x8, 8x8, ...) are meshes without wraparound links;
 *   - 3D targets (v4, v5p, v7x): 4, the side of the 4x4x4 cubes slices are
 *     built from; the optical switches close the ring of an axis made of
 *     whole cubes (4, 8, 12, 16 chips), not of a partial one (1, 2).
 *
 * Collectives (the α-β model on bidirectional rings per torus axis; the
 * group uses every axis along which its chips' coordinates differ):
 *   - per spanned axis, the ring through the group's coordinates has a
 *     circumference C in hops: on a wrapping axis the shorter of the whole
 *     cycle and the smallest arc holding the members, folded back; on a
 *     non-wrapping axis the ring folds back along the line, C = 2 x span.
 *     A bidirectional ring's farthest member is floor(C / 2) hops away:
 *     on a full wrapping axis of k chips floor(k / 2), on a line k - 1
 *     (the hops double).  hops = the sum over the spanned axes.
 *   - all_gather, reduce_scatter: max(hops x hop_s, share / (2 x link_bw x
 *     axes)), share = bytes x (n - 1) / n: what each chip receives (all-
 *     gather) or sends (reduce-scatter) of the full array; both directions
 *     of every spanned axis carry it at once.
 *   - all_reduce: reduce-scatter + all-gather (twice the above).
 *   - all_to_all: each chip sends the share to the others, spread over
 *     the group, so a byte crosses on average d hops (d = C / 4 on a ring
 *     of circumference C, at least 1; the largest over the spanned axes):
 *     max(hops x hop_s, share x d / (2 x link_bw x axes)).
 *   - collective_broadcast: the root (the group's first chip) streams the
 *     whole array down both directions of every spanned axis, pipelined:
 *     max(distance to the farthest member x hop_s, bytes / (2 x link_bw x
 *     axes)).
 *   - collective_permute, send/recv: each source sends bytes to its target
 *     on one link path: max(torus distance x hop_s, bytes / link_bw), the
 *     largest over the pairs (pairs do not contend in this model); a chip
 *     sending to itself costs nothing.
 * `bytes` is always the size of the full array on one chip: the gathered
 * result of an all_gather, the operand of a reduce_scatter, all_reduce,
 * all_to_all or broadcast, what one source sends for a permute.  A group
 * of one chip costs nothing.
 *
 * Multislice (ici_fabric_seconds).  A run's chips may form S slices of
 * C / S chips each (chip c in slice c / (C / S), at local id c % (C / S)),
 * every slice its own torus (the mesh above describes one), the slices
 * joined by the data-center network (DCN): per chip a share of its host's
 * NICs, dcn_bytes_per_s one way, and a latency dcn_s per message.  A
 * collective whose group sits in one slice costs what the ICI model gives
 * on that slice's torus.  One whose group spans k > 1 slices runs
 * hierarchically, as XLA lays out multislice collectives: an ICI stage
 * inside every slice among its members, and a DCN stage among the slices
 * (ici_dcn_seconds derives each kind's formula), one after the other, so
 * its time is the ICI part (the slowest slice) plus the DCN part.  A
 * permute's or send/recv's pairs run side by side: a pair inside a slice
 * takes its ICI time, a pair across slices its DCN time, the slowest pair
 * sets the time. */
#ifndef VM_ICI_H
#define VM_ICI_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#define ICI_MAX_DIMS 3
/* Axes longer than this are modeled as this long (VM_MAX_CHIPS chips). */
#define ICI_MAX_AXIS 4096

typedef struct IciMesh {
  int ndims;                  /* 1..3 */
  int dims[ICI_MAX_DIMS];     /* chips along each axis (1 beyond ndims) */
  bool wraps[ICI_MAX_DIMS];   /* the axis has its wraparound link */
} IciMesh;

typedef enum IciCollective {
  ICI_ALL_GATHER,
  ICI_REDUCE_SCATTER,
  ICI_ALL_REDUCE,
  ICI_ALL_TO_ALL,
  ICI_COLLECTIVE_BROADCAST,
  ICI_COLLECTIVE_PERMUTE, /* chips holds n / 2 (source, target) pairs */
  ICI_SEND_RECV,          /* likewise */
} IciCollective;

/* Chips per axis whose multiples have wraparound links (see above). */
static inline int ici_wrap_unit(int torus_dims) { return torus_dims >= 3 ? 4 : 16; }

/* A mesh of the given axes (ndims 1..3, sizes >= 1) with the wraparound
 * rule of a target whose torus has torus_dims dimensions.  False (and a
 * 1-chip mesh) when the axes are out of range. */
static inline bool ici_mesh_init(IciMesh *m, int ndims, const int *dims, int torus_dims) {
  *m = (IciMesh){1, {1, 1, 1}, {false, false, false}};
  if (ndims < 1 || ndims > ICI_MAX_DIMS) return false;
  for (int a = 0; a < ndims; a++)
    if (dims[a] < 1) return false;
  m->ndims = ndims;
  int unit = ici_wrap_unit(torus_dims);
  for (int a = 0; a < ndims; a++) {
    m->dims[a] = dims[a];
    m->wraps[a] = dims[a] > 2 && dims[a] % unit == 0;
  }
  return true;
}

static inline int64_t ici_mesh_chips(const IciMesh *m) {
  int64_t n = 1;
  for (int a = 0; a < m->ndims; a++) n *= m->dims[a];
  return n;
}

/* The default slice of `chips` chips on a target with a torus of
 * torus_dims (2 or 3) dimensions: the factorization whose largest axis is
 * smallest (ties: whose smallest axis is largest), dims ascending. */
static inline void ici_default_mesh(int chips, int torus_dims, IciMesh *m) {
  int nd = torus_dims >= 3 ? 3 : 2, best[3] = {1, 1, chips > 0 ? chips : 1};
  int n = best[2];
  if (nd == 2) {
    for (int a = 1; (int64_t)a * a <= n; a++)
      if (n % a == 0) best[0] = a, best[1] = n / a;
  } else {
    for (int a = 1; (int64_t)a * a * a <= n; a++) {
      if (n % a) continue;
      for (int b = a; (int64_t)b * b <= n / a; b++) {
        if ((n / a) % b) continue;
        int c = n / a / b;
        if (c < best[2] || (c == best[2] && a > best[0])) best[0] = a, best[1] = b, best[2] = c;
      }
    }
  }
  ici_mesh_init(m, nd, best, torus_dims);
}

/* Coordinate of chip c along axis a (row-major, the last axis fastest). */
static inline int ici_coord(const IciMesh *m, int c, int a) {
  for (int k = m->ndims - 1; k > a; k--) c /= m->dims[k];
  return c % m->dims[a];
}

/* Hops between chips a and b: per axis the shorter way around when the
 * axis wraps, else the distance along the line. */
static inline int ici_distance(const IciMesh *m, int a, int b) {
  int hops = 0;
  for (int k = 0; k < m->ndims; k++) {
    int d = ici_coord(m, a, k) - ici_coord(m, b, k);
    if (d < 0) d = -d;
    if (m->wraps[k] && m->dims[k] - d < d) d = m->dims[k] - d;
    hops += d;
  }
  return hops;
}

/* Circumference in hops of the ring through the distinct coordinates the
 * chips have along axis a (0 when they all share one). */
static inline int ici_ring_hops(const IciMesh *m, const int *chips, int n, int a) {
  int dim = m->dims[a] < ICI_MAX_AXIS ? m->dims[a] : ICI_MAX_AXIS;
  unsigned char seen[ICI_MAX_AXIS] = {0};
  int lo = dim, hi = -1;
  int64_t total = ici_mesh_chips(m);
  for (int i = 0; i < n; i++) {
    if (chips[i] < 0 || chips[i] >= total) continue;
    int x = ici_coord(m, chips[i], a);
    if (x >= dim) x = dim - 1;
    seen[x] = 1;
    if (x < lo) lo = x;
    if (x > hi) hi = x;
  }
  if (hi <= lo) return 0;
  int line = 2 * (hi - lo);
  if (!m->wraps[a]) return line;
  /* Smallest arc holding every coordinate: the cycle minus its largest
   * empty gap. */
  int gap = lo + dim - hi, prev = lo;
  for (int x = lo + 1; x <= hi; x++)
    if (seen[x]) {
      if (x - prev > gap) gap = x - prev;
      prev = x;
    }
  int arc = dim - gap;
  return dim < 2 * arc ? dim : 2 * arc;
}

/* Seconds the collective `kind` takes among the n chips (chip ids of the
 * slice; a permute or send/recv: n / 2 source-target pairs) moving `bytes`
 * (see the header comment), with links of link_bytes_per_s one way and
 * hop_s per hop.  Chip ids outside the mesh are ignored. */
static inline double ici_collective_seconds(IciCollective kind, double bytes, const int *chips, int n,
                                            const IciMesh *m, double link_bytes_per_s, double hop_s) {
  if (n <= 1 || bytes < 0 || link_bytes_per_s <= 0) return 0;
  if (kind == ICI_COLLECTIVE_PERMUTE || kind == ICI_SEND_RECV) {
    double worst = 0;
    int64_t total = ici_mesh_chips(m);
    for (int i = 0; i + 1 < n; i += 2) {
      int s = chips[i], t = chips[i + 1];
      if (s < 0 || t < 0 || s >= total || t >= total || s == t) continue;
      double sec = fmax(ici_distance(m, s, t) * hop_s, bytes / link_bytes_per_s);
      if (sec > worst) worst = sec;
    }
    return worst;
  }
  int hops = 0, axes = 0, far = 0;
  double mean = 1;
  for (int a = 0; a < m->ndims; a++) {
    int c = ici_ring_hops(m, chips, n, a);
    if (c == 0) continue;
    axes++;
    hops += c / 2;
    if (c / 4.0 > mean) mean = c / 4.0;
  }
  if (axes == 0) return 0;
  double bw = 2 * link_bytes_per_s * axes, share = bytes * (n - 1) / n;
  switch (kind) {
  case ICI_ALL_GATHER: case ICI_REDUCE_SCATTER: return fmax(hops * hop_s, share / bw);
  case ICI_ALL_REDUCE: return 2 * fmax(hops * hop_s, share / bw);
  case ICI_ALL_TO_ALL: return fmax(hops * hop_s, share * mean / bw);
  case ICI_COLLECTIVE_BROADCAST:
    for (int i = 1; i < n; i++) {
      bool in = chips[0] >= 0 && chips[i] >= 0 && chips[0] < ici_mesh_chips(m) && chips[i] < ici_mesh_chips(m);
      int d = in ? ici_distance(m, chips[0], chips[i]) : 0;
      if (d > far) far = d;
    }
    return fmax(far * hop_s, bytes / bw);
  default: return 0;
  }
}

/* Seconds of the DCN stage of a collective among k >= 2 slices with m >= 1
 * members in each (of a group of n = k x m chips; a slice with fewer
 * members sets m, its chips carry the largest shard), moving `bytes` (as
 * above), with bw bytes/s one way per chip and latency alpha per message.
 * Each stage is a ring over the k slices, run by the m chips of a slice
 * side by side (the members at one local position form a ring), so a
 * ring step moves a piece in bw time and costs one alpha:
 *   - reduce_scatter: the ICI stage leaves every chip the slice's sum of
 *     a shard of bytes / m; the ring reduce-scatters it over the k slices:
 *     k - 1 steps of (bytes / m) / k each:
 *     (k - 1) / k x bytes / m / bw + (k - 1) x alpha.
 *   - all_gather: the mirror image (the DCN ring first gathers the k
 *     pieces of bytes / (k m) into a shard of bytes / m, then the ICI
 *     stage gathers the slice's shards): the same time.
 *   - all_reduce: reduce-scatter on ICI, all-reduce of the bytes / m shard
 *     over DCN (a ring reduce-scatter and all-gather: twice the above),
 *     all-gather on ICI: 2 (k - 1) / k x bytes / m / bw + 2 (k - 1) x alpha.
 *   - all_to_all: of a chip's bytes, the (k - 1) / k bound for other
 *     slices leave over its own NIC, to the chip at the same local
 *     position of each (k - 1 messages; the ICI stage moves the rest):
 *     (k - 1) / k x bytes / bw + (k - 1) x alpha.
 *   - collective_broadcast: the whole array goes from the root's slice
 *     down a pipelined chain through the other k - 1 slices (then each
 *     broadcasts it on its ICI): bytes / bw + (k - 1) x alpha.
 *   - collective_permute, send/recv: one pair across slices, one message:
 *     bytes / bw + alpha. */
static inline double ici_dcn_seconds(IciCollective kind, double bytes, int k, int m, double bw, double alpha) {
  if (k <= 1 || bytes < 0 || bw <= 0) return 0;
  double steps = k - 1, shard = bytes / (m < 1 ? 1 : m);
  switch (kind) {
  case ICI_REDUCE_SCATTER: case ICI_ALL_GATHER: return steps / k * shard / bw + steps * alpha;
  case ICI_ALL_REDUCE: return 2 * (steps / k * shard / bw + steps * alpha);
  case ICI_ALL_TO_ALL: return steps / k * bytes / bw + steps * alpha;
  case ICI_COLLECTIVE_BROADCAST: return bytes / bw + steps * alpha;
  case ICI_COLLECTIVE_PERMUTE: case ICI_SEND_RECV: return bytes / bw + alpha;
  }
  return 0;
}

/* The chips of a run and the networks between them: slices of one torus
 * each (mesh: one slice's), their ICI links, and the DCN between them. */
typedef struct IciFabric {
  IciMesh mesh;
  int slices;                      /* >= 1; every slice holds ici_mesh_chips(&mesh) chips */
  double link_bytes_per_s, hop_s;  /* ICI: per link one way, per hop */
  double dcn_bytes_per_s, dcn_s;   /* DCN: per chip one way, per message */
} IciFabric;

/* A collective's modeled time, and the parts of it its ICI and DCN stages
 * take (a permute's: its slowest pair inside a slice and across slices). */
typedef struct IciTime {
  double total_s, ici_s, dcn_s;
} IciTime;

static inline int ici_int_order(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* The permute or send/recv pairs (chips: n / 2 of them) on fabric f. */
static inline IciTime ici_fabric_pairs(IciCollective kind, double bytes, const int *chips, int n, const IciFabric *f) {
  IciTime t = {0, 0, 0};
  int per = (int)ici_mesh_chips(&f->mesh), all = per * f->slices;
  for (int i = 0; i + 1 < n; i += 2) {
    int s = chips[i], d = chips[i + 1];
    if (s < 0 || d < 0 || s >= all || d >= all || s == d) continue;
    if (s / per == d / per) {
      int pair[2] = {s % per, d % per};
      t.ici_s = fmax(t.ici_s, ici_collective_seconds(kind, bytes, pair, 2, &f->mesh, f->link_bytes_per_s, f->hop_s));
    } else {
      t.dcn_s = fmax(t.dcn_s, ici_dcn_seconds(kind, bytes, 2, 1, f->dcn_bytes_per_s, f->dcn_s));
    }
  }
  t.total_s = fmax(t.ici_s, t.dcn_s);
  return t;
}

/* Seconds of the collective `kind` among the n chips (run-wide ids; a
 * permute or send/recv: n / 2 pairs) moving `bytes`, on fabric f (see the
 * header comment, Multislice).  scratch: room for n ints.  With one slice
 * this is ici_collective_seconds on its torus; ids outside the run are
 * ignored. */
static inline IciTime ici_fabric_seconds(IciCollective kind, double bytes, const int *chips, int n, const IciFabric *f,
                                         int *scratch) {
  if (f->slices <= 1) {
    double s = ici_collective_seconds(kind, bytes, chips, n, &f->mesh, f->link_bytes_per_s, f->hop_s);
    return (IciTime){s, s, 0};
  }
  if (kind == ICI_COLLECTIVE_PERMUTE || kind == ICI_SEND_RECV) return ici_fabric_pairs(kind, bytes, chips, n, f);
  /* The members by chip id, so each slice's are a run; a broadcast's
   * root first in its slice's. */
  int per = (int)ici_mesh_chips(&f->mesh), all = per * f->slices, kept = 0, root = -1;
  for (int i = 0; i < n; i++)
    if (chips[i] >= 0 && chips[i] < all) scratch[kept++] = chips[i];
  if (kept > 0) root = chips[0];
  qsort(scratch, (size_t)kept, sizeof *scratch, ici_int_order);
  IciTime t = {0, 0, 0};
  int k = 0, fewest = kept;
  for (int lo = 0, hi; lo < kept; lo = hi) {
    int slice = scratch[lo] / per;
    for (hi = lo; hi < kept && scratch[hi] / per == slice; hi++)
      if (scratch[hi] == root && hi > lo) scratch[hi] = scratch[lo], scratch[lo] = root;
    for (int i = lo; i < hi; i++) scratch[i] %= per;
    /* all_to_all: the slice's stage exchanges only the blocks its members
     * send one another, hi - lo of the kept (all of them in one slice). */
    double b = kind == ICI_ALL_TO_ALL ? bytes * (hi - lo) / kept : bytes;
    t.ici_s = fmax(t.ici_s, ici_collective_seconds(kind, b, scratch + lo, hi - lo, &f->mesh, f->link_bytes_per_s,
                                                   f->hop_s));
    if (hi - lo < fewest) fewest = hi - lo;
    k++;
  }
  t.dcn_s = ici_dcn_seconds(kind, bytes, k, fewest, f->dcn_bytes_per_s, f->dcn_s);
  t.total_s = t.ici_s + t.dcn_s;
  return t;
}

#endif
