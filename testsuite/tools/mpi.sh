#!/usr/bin/env bash
# A slice simulated by many processes (issue 20, DESIGN.md §10):
# `mpirun -np P tpurun ...` against one process, when mpirun is on PATH.
#   1. the many-chip programs (chips.sh's and every collective of the VM,
#      replicas x partitions, send/recv, sync (-O0) and async (-O2)
#      collectives, f32 sums whose bits depend on the fold order): results
#      cmp-identical for P = 2 and 4; rank 0 prints what one process prints
#      and writes the same --trace file (one slice, and two with the DCN),
#      the others print nothing;
#      --rank-results splits the results by rank;
#   2. the interpret corpus files that use interpreter.run_parallel under
#      `tpurun --check` with P = 2 and 4: the same PASS count, and exit 4
#      at the op when P does not divide a run_parallel's chips;
#   3. the 8-chip training step, P = 1, 2 and 4: cmp-identical;
#   4. deadlocks across processes (a chip that skips an all_reduce, a recv
#      nobody sends to): exit 4 with the one-process message, no hang;
#   5. mismatched collectives and a chip's trap across processes: exit 4,
#      the same message;
#   6. rank 1 of 2, rank 0 of 4 killed with SIGKILL: the job ends within
#      10 s, naming the dead rank;
#   7. P not dividing the chips: exit 1 saying which P work;
#   8. a shared --cache-dir: one compile for the whole job (mpi_cache.sh
#      tests the cache under mpirun in depth);
#   9. a rank that cannot read the program or an input: every process
#      ends with exit 3.
# Every mpirun runs under `timeout 60` (a hang fails the test) with -q
# (mpirun's own help texts off) and --threads=1 or 2 per process (the
# machine has 2 cores).  MPI_FAST=1 runs a fast subset (`make tsan`).
# Prints the number of results compared bitwise at the end.
source "$(dirname "$0")/lib.sh"
TPURUN=$(cd "$BUILD" && pwd)/tpurun
PY=/usr/bin/python3
CONF=${TPU_CONFORMANCE_DIR:-$ROOT/../shared/conformance}
FAST=${MPI_FAST:-0}

command -v mpirun >/dev/null 2>&1 || { echo "mpi: skipped (no mpirun)"; exit 0; }
[ -x "$TPURUN" ] || fail "$TPURUN not built"
"$PY" -c 'import numpy' 2>/dev/null || fail "$PY cannot import numpy (mk/install-deps.sh test)"

# one ARGS...: tpurun in one process.
one() { "$TPURUN" --no-cache --threads=2 "$@"; }
# mp P ARGS...: tpurun in an mpirun job of P processes; each rank's stdout
# and stderr are also kept in $TMP/ranks/1/rank.R/.  MPI_PRELOAD (make
# tsan): a library the ranks preload (Open MPI's libpmix, so that
# ThreadSanitizer never sees it unloaded at MPI_Finalize).
mp() {
  local p=$1 rc threads=1
  shift
  [ "$p" -le 2 ] && threads=2
  rm -rf "$TMP/ranks"
  timeout -k 5 60 mpirun --oversubscribe --allow-run-as-root -q --output-filename "$TMP/ranks" -np "$p" \
    ${MPI_PRELOAD:+-x LD_PRELOAD="$MPI_PRELOAD"} "$TPURUN" --no-cache --threads=$threads "$@"
  rc=$?
  [ $rc -eq 124 ] && echo "mpi.sh: mpirun -np $p did not end within 60 s" >&2
  # Under make tsan, ThreadSanitizer's symbolizer notes files it cannot
  # read (Open MPI's unlinked shared-memory segments): not tpurun's output.
  [ -n "${MPI_PRELOAD:-}" ] && sed -i '/^LLVMSymbolizer: /d' "$TMP"/ranks/1/rank.*/stderr 2>/dev/null
  return $rc
}
# rank_stderr P: the ranks' stderr of the last mp, in rank order.
rank_stderr() {
  local r
  for ((r = 0; r < $1; r++)); do cat "$TMP/ranks/1/rank.$r/stderr" 2>/dev/null; done
}

SUM='({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %t = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %t : tensor<f32>
  })'
ISUM='({
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      %t = stablehlo.add %a, %b : tensor<i32>
      stablehlo.return %t : tensor<i32>
  })'
MAX='({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %t = stablehlo.maximum %a, %b : tensor<f32>
      stablehlo.return %t : tensor<f32>
  })'
# Not associative nor commutative: the bits depend on the group's order.
HALF='({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %h = stablehlo.constant dense<0.5> : tensor<f32>
      %m = stablehlo.multiply %a, %h : tensor<f32>
      %t = stablehlo.add %m, %b : tensor<f32>
      stablehlo.return %t : tensor<f32>
  })'

# ------------------------------------------------------------------ programs
# chips.sh's many-chip programs (copied): an all_reduce and replica ids on
# 4 chips; 2 replicas x 2 partitions; an 8-chip f32 sum of exponentials of
# random data (bits depend on the fold order); MPMD groups.
cat > "$TMP/ar.mlir" <<MLIR
module attributes {mhlo.num_replicas = 4 : i32} {
func.func @main(%x: tensor<4xf32>, %w: tensor<4xf32>) -> (tensor<4xf32>, tensor<ui32>) {
  %y = stablehlo.multiply %x, %w : tensor<4xf32>
  %0 = "stablehlo.all_reduce"(%y) $SUM {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  %r = stablehlo.replica_id : tensor<ui32>
  return %0, %r : tensor<4xf32>, tensor<ui32>
}
}
MLIR
cat > "$TMP/rp.mlir" <<MLIR
func.func @main(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<ui32>, tensor<ui32>) {
  %0 = "stablehlo.all_reduce"(%x) $SUM {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xf32>) -> tensor<2xf32>
  %r = stablehlo.replica_id : tensor<ui32>
  %p = stablehlo.partition_id : tensor<ui32>
  return %0, %r, %p : tensor<2xf32>, tensor<ui32>, tensor<ui32>
}
MLIR
cat > "$TMP/big.mlir" <<MLIR
func.func @main(%x: tensor<3000xf32>) -> tensor<3000xf32> {
  %e = stablehlo.exponential %x : tensor<3000xf32>
  %0 = "stablehlo.all_reduce"(%e) $SUM {replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>} : (tensor<3000xf32>) -> tensor<3000xf32>
  return %0 : tensor<3000xf32>
}
MLIR
cat > "$TMP/groups.mlir" <<MLIR
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %r = stablehlo.replica_id : tensor<ui32>
  %two = stablehlo.constant dense<2> : tensor<ui32>
  %p = stablehlo.compare EQ, %r, %two : (tensor<ui32>, tensor<ui32>) -> tensor<i1>
  %y = "stablehlo.if"(%p) ({
    %t = stablehlo.multiply %x, %x : tensor<2xf32>
    stablehlo.return %t : tensor<2xf32>
  }, {
    stablehlo.return %x : tensor<2xf32>
  }) : (tensor<i1>) -> tensor<2xf32>
  %0 = "stablehlo.all_reduce"(%y) $SUM {replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>} : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
MLIR
# An f32 sum over 8 chips in a scrambled group order: its bits depend on
# the order of the fold (checked below against NumPy).
cat > "$TMP/fold.mlir" <<MLIR
func.func @main(%x: tensor<4096xf32>) -> tensor<4096xf32> {
  %0 = "stablehlo.all_reduce"(%x) $SUM {replica_groups = dense<[[3, 1, 4, 0, 2, 7, 5, 6]]> : tensor<1x8xi64>} : (tensor<4096xf32>) -> tensor<4096xf32>
  return %0 : tensor<4096xf32>
}
MLIR
"$PY" -c "import numpy as np; np.save('$TMP/fold_in.npy', (np.random.default_rng(5).standard_normal((8, 4096)) * 10.0 ** np.arange(-3, 5)[:, None]).astype(np.float32))" ||
  fail "could not write fold_in.npy"
# Every collective of the VM on 8 replicas, groups in scrambled orders
# that span the processes: all_reduce (sum, max, a custom region),
# all_gather, reduce_scatter, all_to_all, collective_permute (chips 4 and 6
# in no pair, chip 1 sent to but sending nowhere), collective_broadcast
# (chips 2, 4, 7 in no group), collective_reduce, replica_id.  Each chip's
# data is random and scaled by its replica id.  At -O2 the collectives are
# asynchronous (collective-overlap), at -O0 synchronous.
cat > "$TMP/coll8.mlir" <<MLIR
func.func @main(%x: tensor<256xf32>) -> (tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<128xf32>, tensor<32xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<ui32>) {
  %r = stablehlo.replica_id : tensor<ui32>
  %rf = stablehlo.convert %r : (tensor<ui32>) -> tensor<f32>
  %rb = stablehlo.broadcast_in_dim %rf, dims = [] : (tensor<f32>) -> tensor<256xf32>
  %e0 = stablehlo.exponential %x : tensor<256xf32>
  %e = stablehlo.multiply %e0, %rb : tensor<256xf32>
  %y = stablehlo.add %e, %x : tensor<256xf32>
  %sum = "stablehlo.all_reduce"(%y) $SUM {replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>} : (tensor<256xf32>) -> tensor<256xf32>
  %max = "stablehlo.all_reduce"(%y) $MAX {replica_groups = dense<[[0, 2, 4, 6], [1, 3, 5, 7]]> : tensor<2x4xi64>} : (tensor<256xf32>) -> tensor<256xf32>
  %cust = "stablehlo.all_reduce"(%y) $HALF {replica_groups = dense<[[7, 3, 1, 5, 0, 6, 2, 4]]> : tensor<1x8xi64>} : (tensor<256xf32>) -> tensor<256xf32>
  %part = stablehlo.slice %y [0:32] : (tensor<256xf32>) -> tensor<32xf32>
  %gath = "stablehlo.all_gather"(%part) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 5, 2, 7], [4, 1, 6, 3]]> : tensor<2x4xi64>} : (tensor<32xf32>) -> tensor<128xf32>
  %rs = "stablehlo.reduce_scatter"(%y) $SUM {scatter_dimension = 0 : i64, replica_groups = dense<[[3, 1, 4, 0, 2, 7, 5, 6]]> : tensor<1x8xi64>} : (tensor<256xf32>) -> tensor<32xf32>
  %a2a = "stablehlo.all_to_all"(%y) {split_dimension = 0 : i64, concat_dimension = 0 : i64, split_count = 4 : i64, replica_groups = dense<[[0, 1, 6, 7], [2, 3, 4, 5]]> : tensor<2x4xi64>} : (tensor<256xf32>) -> tensor<256xf32>
  %perm = "stablehlo.collective_permute"(%y) {source_target_pairs = dense<[[0, 5], [5, 2], [2, 7], [7, 0], [1, 3]]> : tensor<5x2xi64>} : (tensor<256xf32>) -> tensor<256xf32>
  %bc = "stablehlo.collective_broadcast"(%y) {replica_groups = dense<[[3, 0, 6], [5, 1, -1]]> : tensor<2x3xi64>} : (tensor<256xf32>) -> tensor<256xf32>
  %cr = "stablehlo.collective_reduce"(%y) $SUM {replica_groups = dense<[[1, 6, 3, 0]]> : tensor<1x4xi64>} : (tensor<256xf32>) -> tensor<256xf32>
  return %sum, %max, %cust, %gath, %rs, %a2a, %perm, %bc, %cr, %r : tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<128xf32>, tensor<32xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<ui32>
}
MLIR
# 2 replicas x 4 partitions (chip c = replica c / 4, partition c % 4):
# cross_replica, cross_replica_and_partition, flattened_ids groups, a
# cross_partition all_to_all and collective_permute (partition 2 in no
# pair), replica_id and partition_id.
cat > "$TMP/rp8.mlir" <<MLIR
func.func @main(%x: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<128xf32>, tensor<64xf32>, tensor<64xf32>, tensor<ui32>, tensor<ui32>) {
  %e = stablehlo.exponential %x : tensor<64xf32>
  %cr = "stablehlo.all_reduce"(%e) $SUM {replica_groups = dense<[[1, 0]]> : tensor<1x2xi64>} : (tensor<64xf32>) -> tensor<64xf32>
  %crp = "stablehlo.all_reduce"(%e) $HALF {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>} : (tensor<64xf32>) -> tensor<64xf32>
  %fl = "stablehlo.all_reduce"(%e) $SUM {replica_groups = dense<[[0, 3, 4, 7], [6, 1, 2, 5]]> : tensor<2x4xi64>, channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, use_global_device_ids} : (tensor<64xf32>) -> tensor<64xf32>
  %h = stablehlo.slice %e [0:32] : (tensor<64xf32>) -> tensor<32xf32>
  %g = "stablehlo.all_gather"(%h) {all_gather_dim = 0 : i64, replica_groups = dense<[[3, 1, 0, 2], [4, 6, 7, 5]]> : tensor<2x4xi64>, channel_handle = #stablehlo.channel_handle<handle = 3, type = 1>, use_global_device_ids} : (tensor<32xf32>) -> tensor<128xf32>
  %a = "stablehlo.all_to_all"(%e) {split_dimension = 0 : i64, concat_dimension = 0 : i64, split_count = 4 : i64, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, channel_handle = #stablehlo.channel_handle<handle = 4, type = 1>} : (tensor<64xf32>) -> tensor<64xf32>
  %p = "stablehlo.collective_permute"(%e) {source_target_pairs = dense<[[0, 3], [3, 1], [1, 0]]> : tensor<3x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 5, type = 1>} : (tensor<64xf32>) -> tensor<64xf32>
  %r = stablehlo.replica_id : tensor<ui32>
  %q = stablehlo.partition_id : tensor<ui32>
  return %cr, %crp, %fl, %g, %a, %p, %r, %q : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<128xf32>, tensor<64xf32>, tensor<64xf32>, tensor<ui32>, tensor<ui32>
}
MLIR
# Several operands (f32 and i32) per collective, gather, scatter and split
# dimensions other than 0, a chip that permutes to itself, on 4 replicas.
cat > "$TMP/multi.mlir" <<MLIR
func.func @main(%x: tensor<4x8xf32>, %y: tensor<4x8xi32>) -> (tensor<4x32xf32>, tensor<4x32xi32>, tensor<4x2xf32>, tensor<8x4xf32>, tensor<8x4xi32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xi32>) {
  %g:2 = "stablehlo.all_gather"(%x, %y) {all_gather_dim = 1 : i64, replica_groups = dense<[[3, 0, 2, 1]]> : tensor<1x4xi64>} : (tensor<4x8xf32>, tensor<4x8xi32>) -> (tensor<4x32xf32>, tensor<4x32xi32>)
  %rs = "stablehlo.reduce_scatter"(%x) $SUM {scatter_dimension = 1 : i64, replica_groups = dense<[[1, 3, 0, 2]]> : tensor<1x4xi64>} : (tensor<4x8xf32>) -> tensor<4x2xf32>
  %aa:2 = "stablehlo.all_to_all"(%x, %y) {split_dimension = 1 : i64, concat_dimension = 0 : i64, split_count = 2 : i64, replica_groups = dense<[[0, 3], [2, 1]]> : tensor<2x2xi64>} : (tensor<4x8xf32>, tensor<4x8xi32>) -> (tensor<8x4xf32>, tensor<8x4xi32>)
  %x2 = stablehlo.multiply %x, %x : tensor<4x8xf32>
  %ar:2 = "stablehlo.all_reduce"(%x, %x2) $SUM {replica_groups = dense<[[2, 1, 3, 0]]> : tensor<1x4xi64>} : (tensor<4x8xf32>, tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>)
  %p0 = "stablehlo.collective_permute"(%x) {source_target_pairs = dense<[[2, 2], [0, 3], [3, 1]]> : tensor<3x2xi64>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %p1 = "stablehlo.collective_permute"(%y) {source_target_pairs = dense<[[1, 1], [3, 0]]> : tensor<2x2xi64>} : (tensor<4x8xi32>) -> tensor<4x8xi32>
  return %g#0, %g#1, %rs, %aa#0, %aa#1, %ar#0, %ar#1, %p0, %p1 : tensor<4x32xf32>, tensor<4x32xi32>, tensor<4x2xf32>, tensor<8x4xf32>, tensor<8x4xi32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xi32>
}
MLIR
# send/recv on 4 partitions: a ring on channel 3, then only 3 -> 0 on
# channel 4 (partitions 1 to 3 receive zeros).
cat > "$TMP/ring.mlir" <<'MLIR'
func.func @main(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %t = stablehlo.after_all : !stablehlo.token
  %s = "stablehlo.send"(%x, %t) {channel_handle = #stablehlo.channel_handle<handle = 3, type = 1>, is_host_transfer = false, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>} : (tensor<8xf32>, !stablehlo.token) -> !stablehlo.token
  %v, %t2 = "stablehlo.recv"(%s) {channel_handle = #stablehlo.channel_handle<handle = 3, type = 1>, is_host_transfer = false, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>} : (!stablehlo.token) -> (tensor<8xf32>, !stablehlo.token)
  %s4 = "stablehlo.send"(%v, %t2) {channel_handle = #stablehlo.channel_handle<handle = 4, type = 1>, is_host_transfer = false, source_target_pairs = dense<[[3, 0]]> : tensor<1x2xi64>} : (tensor<8xf32>, !stablehlo.token) -> !stablehlo.token
  %w, %t3 = "stablehlo.recv"(%s4) {channel_handle = #stablehlo.channel_handle<handle = 4, type = 1>, is_host_transfer = false, source_target_pairs = dense<[[3, 0]]> : tensor<1x2xi64>} : (!stablehlo.token) -> (tensor<8xf32>, !stablehlo.token)
  return %v, %w : tensor<8xf32>, tensor<8xf32>
}
MLIR

# ------------------------------------------------------------------ 1. bits
compared=0
# same_bits NAME NRESULTS "P..." ARGS...: tpurun ARGS writes its NRESULTS
# results in one process (without mpirun), then in an mpirun job of P
# processes for each P; all cmp-identical.
same_bits() {
  local name=$1 n=$2 ps=$3 p k outs
  shift 3
  for p in one $ps; do
    outs=()
    for ((k = 0; k < n; k++)); do outs+=("--output=@$TMP/$name.$p.$k.npy"); rm -f "$TMP/$name.$p.$k.npy"; done
    if [ "$p" = one ]; then
      expect_status 0 one "$@" "${outs[@]}"
    else
      expect_status 0 mp "$p" "$@" "${outs[@]}"
    fi
  done
  for p in $ps; do
    for ((k = 0; k < n; k++)); do
      cmp -s "$TMP/$name.one.$k.npy" "$TMP/$name.$p.$k.npy" ||
        fail "$name: result $k with $p processes differs from one process's"
      compared=$((compared + 1))
    done
  done
}

if [ "$FAST" = 1 ]; then
  same_bits coll8 10 "2 4" --replicas=8 "$TMP/coll8.mlir" --input=8x256xf32=random:7
else
  X=4x4xf32=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16
  same_bits ar 2 "2 4" "$TMP/ar.mlir" --input=$X --input=4xf32=1,1,1,2
  same_bits rp 3 "2 4" --replicas=2 --partitions=2 --mesh=2x2 "$TMP/rp.mlir" --input=4x2xf32=1,2,10,20,100,200,1000,2000
  same_bits big 1 "2 4" --replicas=8 "$TMP/big.mlir" --input=8x3000xf32=random:7
  same_bits fold 1 "2 4" --replicas=8 "$TMP/fold.mlir" --input=@"$TMP/fold_in.npy"
  # It is the left fold in group order, which another order would not give.
  "$PY" - "$TMP" <<'PY' || fail "fold.mlir: the sum is not the group-order fold, or the order does not matter"
import sys
import numpy as np
d = sys.argv[1]
x, got = np.load(d + "/fold_in.npy"), np.load(d + "/fold.one.0.npy")
def fold(order):
    acc = x[order[0]].copy()
    for c in order[1:]:
        acc = acc + x[c]
    return acc
want = fold([3, 1, 4, 0, 2, 7, 5, 6])
assert all(got[c].tobytes() == want.tobytes() for c in range(8)), "not the group-order fold"
assert fold(list(range(8))).tobytes() != want.tobytes(), "chip order gives the same bits"
PY
  same_bits groups 1 "2 4" --replicas=4 "$TMP/groups.mlir" --input=4x2xf32=1,2,3,4,5,6,7,8
  same_bits coll8 10 "2 4" --replicas=8 "$TMP/coll8.mlir" --input=8x256xf32=random:7
  same_bits coll8-O0 10 "4" -O0 --replicas=8 "$TMP/coll8.mlir" --input=8x256xf32=random:7
  # Bytecode compiled beforehand: nothing to compile or share.
  expect_status 0 "$TPUCC" "$TMP/coll8.mlir" -o "$TMP/coll8.tpub"
  same_bits coll8-tpub 10 "2 4" --replicas=8 "$TMP/coll8.tpub" --input=8x256xf32=random:7
  same_bits rp8 8 "2 4" --replicas=2 --partitions=4 "$TMP/rp8.mlir" --input=8x64xf32=random:3
  same_bits ring 2 "2 4" --partitions=4 "$TMP/ring.mlir" --input=4x8xf32=random:5
  same_bits multi 9 "2 4" --replicas=4 "$TMP/multi.mlir" --input=4x4x8xf32=random:1 --input=4x4x8xi32=random:2
fi
# same_print NAME ARGS...: rank 0 prints what one process prints (results
# and the modeled step), the other ranks nothing (so each process did not
# simply run every chip itself), and the --trace file (every chip's
# timeline) is the same bytes, for P = 2 and 4.
same_print() {
  local name=$1 p r
  shift
  expect_status 0 one "$@" --trace="$TMP/$name.trace1"
  cp "$TMP/out" "$TMP/$name.stdout"
  expect_in "$TMP/$name.stdout" "modeled step:"
  for p in 2 4; do
    expect_status 0 mp $p "$@" --trace="$TMP/$name.trace$p"
    cmp -s "$TMP/$name.trace1" "$TMP/$name.trace$p" || fail "$name with $p processes: the --trace file differs from one process's"
    cmp -s "$TMP/$name.stdout" "$TMP/ranks/1/rank.0/stdout" ||
      fail "$name with $p processes: rank 0 printed $(head -c 300 "$TMP/ranks/1/rank.0/stdout"), one process $(head -c 300 "$TMP/$name.stdout")"
    for ((r = 1; r < p; r++)); do
      [ -s "$TMP/ranks/1/rank.$r/stdout" ] && fail "$name with $p processes: rank $r printed $(head -c 300 "$TMP/ranks/1/rank.$r/stdout")"
    done
  done
}
same_print rp --replicas=2 --partitions=2 "$TMP/rp.mlir" --input=4x2xf32=random:2
# Two slices joined by the DCN: the modeled step's DCN term and the trace's
# DCN tracks as one process models them.
if [ "$FAST" != 1 ]; then
  same_print slices --replicas=8 --slices=2 "$TMP/coll8.mlir" --input=8x256xf32=random:7
  expect_in "$TMP/slices.stdout" "2 slices, DCN busy"
  grep -q DCN "$TMP/slices.trace1" || fail "no DCN track in the 2-slice trace"
fi
# --rank-results: each rank writes its own chips' results to f.rankR.npy
# (and prints them); in rank order they are one process's stacked result.
if [ "$FAST" != 1 ]; then
  expect_status 0 mp 4 --rank-results --replicas=8 "$TMP/fold.mlir" --input=@"$TMP/fold_in.npy" --output=@"$TMP/rr.npy"
  "$PY" - "$TMP" <<'PY' || fail "--rank-results: the ranks' files are not one process's result in rank order"
import sys
import numpy as np
d = sys.argv[1]
parts = [np.load("%s/rr.rank%d.npy" % (d, r)) for r in range(4)]
assert all(p.shape == (2, 4096) for p in parts), [p.shape for p in parts]
assert np.concatenate(parts).tobytes() == np.load(d + "/fold.one.0.npy").tobytes()
PY
  expect_status 0 mp 2 --rank-results --replicas=2 --partitions=2 "$TMP/rp.mlir" --input=4x2xf32=random:2
  expect_in "$TMP/ranks/1/rank.1/stdout" "result[1]: 2xui32=1 1"
  expect_in "$TMP/ranks/1/rank.1/stdout" "result[2]: 2xui32=0 1"
fi
# The comparisons can fail: other inputs give other bits.
expect_status 0 one --replicas=8 "$TMP/coll8.mlir" --input=8x256xf32=random:8 --output=@"$TMP/other.npy"
cmp -s "$TMP/other.npy" "$TMP/coll8.one.0.npy" && fail "coll8: the same sums for other random inputs"
# The async form is what -O2 runs.
expect_status 0 "$TPUCC" --emit=asm "$TMP/coll8.mlir" -o "$TMP/coll8.s"
grep -q ' async ' "$TMP/coll8.s" || fail "coll8 at -O2 has no async collective"

# ------------------------------------------------------------------ 2. interpret
# chips_of FILE: the chip count of each split's interpreter.run_parallel
# (the product of its programs grid), one per line.
chips_of() {
  "$PY" - "$1" <<'PY'
import re, sys
for part in open(sys.argv[1]).read().split("// -----"):
    m = re.search(r"programs\s*=\s*(\[\[.*?\]\])", part, re.S)
    print(len(re.findall(r"@\w+", m.group(1))) if m else 0)
PY
}
# check_same FILE P: tpurun --check FILE in P processes passes the same
# number of checks as in one process.
check_same() {
  local f=$1 p=$2 want
  expect_status 0 one --check --split-input-file "$f"
  want=$(grep -E '^checks: [0-9]+ passed, 0 failed$' "$TMP/out" | tail -n 1)
  [ -n "$want" ] || fail "$f: no 'checks: N passed, 0 failed' in one process: $(tail -n 3 "$TMP/out")"
  expect_status 0 mp "$p" --check --split-input-file "$f"
  grep -qxF "$want" "$TMP/out" || fail "$f with $p processes: expected '$want', got: $(grep '^checks:' "$TMP/out")"
  grep -q '^FAIL' "$TMP/out" && fail "$f with $p processes: $(grep -m1 '^FAIL' "$TMP/out")"
  for ((r = 1; r < p; r++)); do
    [ -s "$TMP/ranks/1/rank.$r/stdout" ] && fail "$f with $p processes: rank $r printed $(head -c 300 "$TMP/ranks/1/rank.$r/stdout")"
  done
  interp=$((interp + 1))
}
interp=0
if [ -d "$CONF/stablehlo/interpret" ]; then
  mkdir -p "$TMP/splits"
  mapfile -t files < <(grep -l run_parallel "$CONF"/stablehlo/interpret/*.mlir)
  for f in "${files[@]}"; do
    [ "$FAST" = 1 ] && [ "$(basename "$f")" != all_gather.mlir ] && continue
    mapfile -t counts < <(chips_of "$f")
    for p in 2 4; do
      whole=1
      for c in "${counts[@]}"; do [ "$c" -gt 0 ] && [ $((c % p)) -eq 0 ] || whole=0; done
      if [ $whole = 1 ]; then check_same "$f" "$p"; continue; fi
      # Else each split whose chips P divides, on its own.
      "$PY" - "$f" "$TMP/splits/$(basename "$f" .mlir)" <<'PY'
import sys
for i, part in enumerate(open(sys.argv[1]).read().split("// -----")):
    open("%s.%d.mlir" % (sys.argv[2], i), "w").write(part)
PY
      for i in "${!counts[@]}"; do
        c=${counts[$i]}
        [ "$c" -gt 0 ] && [ $((c % p)) -eq 0 ] && grep -q 'check\.' "$TMP/splits/$(basename "$f" .mlir).$i.mlir" &&
          check_same "$TMP/splits/$(basename "$f" .mlir).$i.mlir" "$p"
      done
    done
  done
  [ "$interp" -ge 2 ] || fail "only $interp interpret runs under mpirun"
  # 4 processes cannot share all_gather.mlir's 2-chip run_parallel: a
  # runtime error at the op (exit 4), saying which counts work, printed by
  # rank 0 only.
  expect_status 4 mp 4 --check --split-input-file "$CONF/stablehlo/interpret/all_gather.mlir"
  expect_in "$TMP/err" "all_gather.mlir:14:18: error: 'interpreter.run_parallel' op 4 processes cannot share 2 chips evenly; use a process count that divides 2: 1 2"
  for ((r = 1; r < 4; r++)); do
    [ -s "$TMP/ranks/1/rank.$r/stderr" ] && fail "all_gather.mlir with 4 processes: rank $r printed errors too: $(head -c 300 "$TMP/ranks/1/rank.$r/stderr")"
  done
else
  echo "mpi: interpret files skipped ($CONF/stablehlo/interpret not found; set TPU_CONFORMANCE_DIR)"
fi

# ------------------------------------------------------------------ 3. training step
if [ "$FAST" != 1 ]; then
  EIGHT="$ROOT/examples/mlp_train_step_8chips.mlir"
  # Seeded inputs: shared parameters, the batch split over the 8 chips.
  nparams=$("$PY" - "$EIGHT" "$TMP" <<'PY'
import re, sys
import numpy as np
text = open(sys.argv[1]).read()
head = text[text.index("@main("):text.index(") {", text.index("@main("))]
shapes = [tuple(int(d) for d in m.group(1).split("x")[:-1])
          for m in re.finditer(r"%\w+: tensor<([0-9x]*f32)>", head)]
rng = np.random.default_rng(20261122)
for i, s in enumerate(shapes[:-2]):
    a = rng.standard_normal(s) * (np.sqrt(2.0 / s[0]) if len(s) == 2 else 0.1)
    np.save(f"{sys.argv[2]}/p{i}.npy", a.astype(np.float32))
for name, s in (("x8", shapes[-2]), ("y8", shapes[-1])):
    np.save(f"{sys.argv[2]}/{name}.npy", rng.standard_normal((8,) + s).astype(np.float32))
print(len(shapes) - 2)
PY
  ) || fail "could not write the training step's inputs"
  params=()
  for ((i = 0; i < nparams; i++)); do params+=("--input=@$TMP/p$i.npy"); done
  same_bits train $((nparams + 1)) "1 2 4" --replicas=8 "$EIGHT" "${params[@]}" \
    --input=@"$TMP/x8.npy" --input=@"$TMP/y8.npy"
fi

# ------------------------------------------------------------------ 4, 5. deadlock, mismatch
# Chips 0-2 all_reduce over {0, 1, 2, 3}; chip 3 finishes.
cat > "$TMP/dl4.mlir" <<MLIR
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = stablehlo.replica_id : tensor<ui32>
  %three = stablehlo.constant dense<3> : tensor<ui32>
  %p = stablehlo.compare NE, %r, %three : (tensor<ui32>, tensor<ui32>) -> tensor<i1>
  %0 = "stablehlo.if"(%p) ({
    %s = "stablehlo.all_reduce"(%x) $SUM {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<4xf32>) -> tensor<4xf32>
    stablehlo.return %s : tensor<4xf32>
  }, {
    stablehlo.return %x : tensor<4xf32>
  }) : (tensor<i1>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
MLIR
# A ring of sends on 4 partitions that partition 3 skips: partition 0's recv waits forever.
cat > "$TMP/norecv.mlir" <<'MLIR'
func.func @main(%x: tensor<2xi32>) -> tensor<2xi32> {
  %t = stablehlo.after_all : !stablehlo.token
  %q = stablehlo.partition_id : tensor<ui32>
  %three = stablehlo.constant dense<3> : tensor<ui32>
  %p = stablehlo.compare NE, %q, %three : (tensor<ui32>, tensor<ui32>) -> tensor<i1>
  %s = "stablehlo.if"(%p) ({
    %s1 = "stablehlo.send"(%x, %t) {channel_handle = #stablehlo.channel_handle<handle = 3, type = 1>, is_host_transfer = false, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>} : (tensor<2xi32>, !stablehlo.token) -> !stablehlo.token
    stablehlo.return %s1 : !stablehlo.token
  }, {
    stablehlo.return %t : !stablehlo.token
  }) : (tensor<i1>) -> !stablehlo.token
  %v, %t2 = "stablehlo.recv"(%s) {channel_handle = #stablehlo.channel_handle<handle = 3, type = 1>, is_host_transfer = false, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>} : (!stablehlo.token) -> (tensor<2xi32>, !stablehlo.token)
  return %v : tensor<2xi32>
}
MLIR
# Chips 0, 1 at an all_reduce, chips 2, 3 at an all_gather of the same
# group: the message names chip 0 and the lowest chip that differs, 2.
cat > "$TMP/mm_op.mlir" <<MLIR
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = stablehlo.replica_id : tensor<ui32>
  %two = stablehlo.constant dense<2> : tensor<ui32>
  %p = stablehlo.compare LT, %r, %two : (tensor<ui32>, tensor<ui32>) -> tensor<i1>
  %0 = "stablehlo.if"(%p) ({
    %s = "stablehlo.all_reduce"(%x) $SUM {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<4xf32>) -> tensor<4xf32>
    stablehlo.return %s : tensor<4xf32>
  }, {
    %g = "stablehlo.all_gather"(%x) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<4xf32>) -> tensor<16xf32>
    %h = stablehlo.slice %g [0:4] : (tensor<16xf32>) -> tensor<4xf32>
    stablehlo.return %h : tensor<4xf32>
  }) : (tensor<i1>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
MLIR
# Chips 0-2 all_reduce f32, chip 3 the same group in i32.
cat > "$TMP/mm_type.mlir" <<MLIR
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = stablehlo.replica_id : tensor<ui32>
  %three = stablehlo.constant dense<3> : tensor<ui32>
  %p = stablehlo.compare LT, %r, %three : (tensor<ui32>, tensor<ui32>) -> tensor<i1>
  %0 = "stablehlo.if"(%p) ({
    %s = "stablehlo.all_reduce"(%x) $SUM {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<4xf32>) -> tensor<4xf32>
    stablehlo.return %s : tensor<4xf32>
  }, {
    %i = stablehlo.convert %x : (tensor<4xf32>) -> tensor<4xi32>
    %s = "stablehlo.all_reduce"(%i) $ISUM {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<4xi32>) -> tensor<4xi32>
    %f = stablehlo.convert %s : (tensor<4xi32>) -> tensor<4xf32>
    stablehlo.return %f : tensor<4xf32>
  }) : (tensor<i1>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
MLIR
# interpreter.run_parallel on 4 chips running @a, @b, @a, @b: each waits
# for the next in a cycle of groups.
cat > "$TMP/cycle4.mlir" <<MLIR
module {
  func.func @a(%x: tensor<2xf32>) -> tensor<2xf32> {
    %0 = "stablehlo.all_reduce"(%x) $SUM {replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>} : (tensor<2xf32>) -> tensor<2xf32>
    return %0 : tensor<2xf32>
  }
  func.func @b(%x: tensor<2xf32>) -> tensor<2xf32> {
    %0 = "stablehlo.all_reduce"(%x) $SUM {replica_groups = dense<[[1, 2], [0, 3]]> : tensor<2x2xi64>} : (tensor<2xf32>) -> tensor<2xf32>
    return %0 : tensor<2xf32>
  }
  func.func @main() {
    %v = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %r:4 = "interpreter.run_parallel"(%v, %v, %v, %v) {programs = [[@a], [@b], [@a], [@b]]} : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
    func.return
  }
}
MLIR
# Chip 3 loops past --max-steps while chips 0-2 wait for it at an all_reduce.
cat > "$TMP/trap.mlir" <<MLIR
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = stablehlo.replica_id : tensor<ui32>
  %three = stablehlo.constant dense<3> : tensor<ui32>
  %p = stablehlo.compare EQ, %r, %three : (tensor<ui32>, tensor<ui32>) -> tensor<i1>
  %y = "stablehlo.if"(%p) ({
    %w = stablehlo.while(%v = %x) : tensor<4xf32>
     cond {
      %t = stablehlo.constant dense<true> : tensor<i1>
      stablehlo.return %t : tensor<i1>
    } do {
      %n = stablehlo.add %v, %v : tensor<4xf32>
      stablehlo.return %n : tensor<4xf32>
    }
    stablehlo.return %w : tensor<4xf32>
  }, {
    stablehlo.return %x : tensor<4xf32>
  }) : (tensor<i1>) -> tensor<4xf32>
  %s = "stablehlo.all_reduce"(%y) $SUM {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  return %s : tensor<4xf32>
}
MLIR
# same_error NAME TEXT "P..." ARGS...: exit 4 in one process with TEXT in
# its stderr, and in P processes exit 4 with the ranks' stderr (in rank
# order) equal to the one process's.
same_error() {
  local name=$1 text=$2 ps=$3 p
  shift 3
  expect_status 4 timeout -k 5 60 "$TPURUN" --no-cache "$@"
  expect_in "$TMP/err" "$text"
  cp "$TMP/err" "$TMP/$name.err1"
  for p in $ps; do
    expect_status 4 mp "$p" "$@"
    rank_stderr "$p" > "$TMP/$name.err$p"
    diff "$TMP/$name.err1" "$TMP/$name.err$p" > "$TMP/$name.diff" ||
      fail "$name with $p processes: stderr differs from one process's: $(head -c 600 "$TMP/$name.diff")"
  done
}
cd "$TMP" || fail "no $TMP"
if [ "$FAST" = 1 ]; then
  same_error dl4 "op deadlock:" "2" --replicas=4 dl4.mlir --input=random
  same_error mm_op "does not match its group" "2" --replicas=4 mm_op.mlir --input=random
else
  same_error dl4 "dl4.mlir:6:10: error: 'stablehlo.all_reduce' op deadlock:" "2 4" --replicas=4 dl4.mlir --input=random
  same_error norecv "no chip will send on its channel" "2 4" --partitions=4 norecv.mlir --input=random
  same_error mm_op "chip 0 is at 'stablehlo.all_reduce' at mm_op.mlir:6:10, chip 2 at 'stablehlo.all_gather' at mm_op.mlir:13:10, with other operand or result types" "2 4" --replicas=4 mm_op.mlir --input=random
  same_error mm_type "chip 0 is at 'stablehlo.all_reduce' at mm_type.mlir:6:10, chip 3 at 'stablehlo.all_reduce' at mm_type.mlir:14:10, with other operand or result types" "4" --replicas=4 mm_type.mlir --input=random
  same_error cycle4 "on chip 0 can never complete: its group is chips {0, 1}; did not arrive: chip 1 waits at 'stablehlo.all_reduce' at cycle4.mlir:" "2 4" --check cycle4.mlir
  # A chip's trap in another process: its own message, as in one process.
  same_error trap "trap.mlir:6:10: error: 'stablehlo.while' op exceeded --max-steps=1000 after 1000 steps" "4" \
    --replicas=4 --max-steps=1000 trap.mlir --input=random
fi

# ------------------------------------------------------------------ 6. a killed rank
# 4 chips all_reduce in a loop that runs until --timeout.
cat > "$TMP/killme.mlir" <<MLIR
func.func @main(%x: tensor<16xf32>) -> tensor<16xf32> {
  %r = stablehlo.while(%v = %x) : tensor<16xf32>
   cond {
    %t = stablehlo.constant dense<true> : tensor<i1>
    stablehlo.return %t : tensor<i1>
  } do {
    %s = "stablehlo.all_reduce"(%v) $SUM {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<16xf32>) -> tensor<16xf32>
    %h = stablehlo.constant dense<0.25> : tensor<16xf32>
    %n = stablehlo.multiply %s, %h : tensor<16xf32>
    stablehlo.return %n : tensor<16xf32>
  }
  return %r : tensor<16xf32>
}
MLIR
# cpu PID: the clock ticks of CPU time process PID has used.
cpu() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
# kill_rank P R: the loop in P processes (--timeout=50, far beyond the
# test); once every rank is in it (10 clock ticks of CPU time each; MPI's
# start takes 3), at most 20 s after the start, kill -9 rank R: the job
# ends within 10 s, mpirun's status is not 0, and stderr names the dead
# rank and its pid.
kill_rank() {
  local p=$1 r=$2 job pids=() busy=0 pid victim=
  mp "$p" --replicas=4 --timeout=50 "$TMP/killme.mlir" --input=random > "$TMP/kill.out" 2> "$TMP/kill.err" &
  job=$!
  for ((i = 0; i < 200 && busy < p; i++)); do
    sleep 0.1
    mapfile -t pids < <(pgrep -f "^$TPURUN --no-cache .*$TMP/killme.mlir")
    busy=0
    for pid in "${pids[@]}"; do [ "$(cpu "$pid")" -ge 10 ] && busy=$((busy + 1)); done
  done
  for pid in "${pids[@]}"; do
    tr '\0' '\n' < "/proc/$pid/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$r" && victim=$pid
  done
  if [ "${#pids[@]}" -ne "$p" ] || [ "$busy" -ne "$p" ] || [ -z "$victim" ]; then
    kill -9 "${pids[@]}" 2>/dev/null
    wait "$job"
    fail "killme: expected $p busy tpurun processes, one of them rank $r; found ${#pids[@]}, $busy busy after $i tries"
  fi
  kill -9 "$victim"
  local t0 rc ms
  t0=$(date +%s%N)
  wait "$job"
  rc=$?
  ms=$((($(date +%s%N) - t0) / 1000000))
  [ "$rc" -ne 0 ] || fail "killme: mpirun exited 0 after rank $r was killed"
  [ "$rc" -ne 124 ] || fail "killme: the job did not end after rank $r was killed"
  [ "$ms" -lt 10000 ] || fail "killme: the job took $ms ms to end after rank $r was killed"
  grep -qF "tpurun: rank $r (pid $victim on " "$TMP/kill.err" ||
    fail "killme: no 'tpurun: rank $r (pid $victim on ...' in stderr: $(head -c 600 "$TMP/kill.err")"
  grep -qF "died; ending the job" "$TMP/kill.err" || fail "killme: no 'died; ending the job' in stderr"
  echo "killed rank $r of $p after $i tries: the job ended $ms ms later, mpirun status $rc"
}
if [ "$FAST" != 1 ]; then
  kill_rank 2 1
  kill_rank 4 0
fi

# ------------------------------------------------------------------ 7. P must divide the chips
expect_status 1 mp 3 --replicas=8 "$TMP/big.mlir" --input=random
expect_in "$TMP/err" "3 processes cannot share 8 chips evenly; use a process count that divides 8: 1 2 4 8"

# ------------------------------------------------------------------ 8. the shared cache
if [ "$FAST" != 1 ]; then
  # compiles FILE: the sum of "compiles N" over the ranks' --metrics lines
  # ("metrics: [rank R: ]compiles N, ...").
  compiles() { sed -n 's/.*metrics: \(rank [0-9]*: \)\{0,1\}compiles \([0-9]*\),.*/\2/p' "$1" | awk '{s += $1} END {print s + 0}'; }
  for pass in first second; do
    rm -rf "$TMP/ranks"
    timeout -k 5 60 mpirun --oversubscribe --allow-run-as-root -q --output-filename "$TMP/ranks" -np 2 \
      "$TPURUN" --threads=1 --cache-dir="$TMP/cache" --metrics --replicas=8 "$TMP/coll8.mlir" --input=8x256xf32=random:7 \
      > "$TMP/out" 2> "$TMP/err" || fail "cache ($pass run): mpirun exited $?: $(head -c 400 "$TMP/err")"
    rank_stderr 2 > "$TMP/metrics.$pass"
    n=$(compiles "$TMP/metrics.$pass")
    want=1; [ $pass = second ] && want=0
    [ "$n" -eq $want ] || fail "cache ($pass run): $n compiles in the job, expected $want: $(cat "$TMP/metrics.$pass")"
  done
  grep -q 'cache hits [1-9]' "$TMP/ranks/1/rank.1/stderr" ||
    fail "cache: rank 1 reports no cache hit: $(cat "$TMP/ranks/1/rank.1/stderr")"
  [ "$(find "$TMP/cache" -name '*.tpuc' | wc -l)" -eq 1 ] || fail "cache: not exactly one entry: $(ls "$TMP/cache")"
fi

# ------------------------------------------------------------------ 9. an unreadable file
# Every process reads the program and the inputs itself; one that cannot
# (rank R's file is missing, the others' is fine) ends the whole job with
# one process's status for it (3), before the chips start, within 20 s.
if [ "$FAST" != 1 ]; then
  "$PY" -c "import numpy as np; np.save('$TMP/ok4.npy', np.ones((4, 2), np.float32))" || fail "could not write ok4.npy"
  expect_status 3 one --replicas=4 "$TMP/groups.mlir" --input=@"$TMP/missing.npy"
  expect_in "$TMP/err" "cannot open $TMP/missing.npy"
  for what in "program 1" "input 1" "input 0"; do
    read -r kind r <<<"$what"
    prog=$TMP/groups.mlir input=$TMP/ok4.npy
    [ "$kind" = program ] && prog=$TMP/missing.mlir
    [ "$kind" = input ] && input=$TMP/missing.npy
    cat > "$TMP/rank_files.sh" <<SH
#!/bin/sh
# Rank $r gets the missing $kind.
if [ "\$OMPI_COMM_WORLD_RANK" = $r ]; then
  exec "$TPURUN" --no-cache --threads=1 --replicas=4 "$prog" --input=@"$input"
fi
exec "$TPURUN" --no-cache --threads=1 --replicas=4 "$TMP/groups.mlir" --input=@"$TMP/ok4.npy"
SH
    chmod +x "$TMP/rank_files.sh"
    expect_status 3 timeout -k 5 20 mpirun --oversubscribe --allow-run-as-root -q -np 2 "$TMP/rank_files.sh"
    expect_in "$TMP/err" "cannot open"
    expect_in "$TMP/err" "$TMP/missing."
  done
fi

echo "mpi: ok ($compared results bitwise equal to one process, $interp interpret runs)"
