#!/usr/bin/env bash
# The compilation cache in an MPI job (docs/cache.md, "Many processes"):
# under `mpirun -np 2 tpurun`, only rank 0 compiles.
#   - a directory both ranks share: one compile in all; rank 1 hits the
#     entry rank 0 wrote; a second run hits on both ranks;
#   - a directory per rank: rank 1's is filled from rank 0 ("filled from
#     rank 0 1", and in tpucc --cache-stats) and holds the same entry; its
#     next run hits there;
#   - --no-cache: rank 0 compiles, rank 1 takes its image over MPI;
#   - a program rank 0 rejects: every rank exits 2, the diagnostic printed
#     once;
#   - a refined program (no alias) is filled under its module key.
# Skipped when mpirun is missing.
source "$(dirname "$0")/lib.sh"
command -v mpirun >/dev/null || { echo "mpi_cache: skipped (no mpirun)"; exit 0; }
TPURUN="$BUILD/tpurun"
unset TPU_CACHE_DIR

# mpi CMD...: CMD in 2 processes, stdout in $TMP/out, stderr in $TMP/err.
mpi() { timeout 60 mpirun --oversubscribe --allow-run-as-root -np 2 "$@" >"$TMP/out" 2>"$TMP/err"; }

# metrics RANK C H F: rank RANK's --metrics line says C compiles, H hits
# and F entries filled from rank 0.
metrics() {
  local line
  line=$(grep "^metrics: rank $1: " "$TMP/err") || fail "no metrics line of rank $1 in: $(cat "$TMP/err")"
  [[ $line == "metrics: rank $1: compiles $2, cache hits $3, cache misses "*", filled from rank 0 $4,"* ]] \
    || fail "rank $1: expected compiles $2, cache hits $3, filled from rank 0 $4; got '$line'"
}

cat >"$TMP/ar.mlir" <<'MLIR'
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "stablehlo.all_reduce"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %t = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %t : tensor<f32>
  }) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
MLIR
ARGS=(--replicas=4 --metrics "$TMP/ar.mlir" --input=4x4xf32=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16)
WANT="4x4xf32=[28 32 36 40][28 32 36 40][28 32 36 40][28 32 36 40]"
entries() { ls "$1"/*.tpuc 2>/dev/null | wc -l; }

# ---- a shared directory: one compile in all, then hits on both ranks
mpi "$TPURUN" --cache-dir="$TMP/shared" "${ARGS[@]}" || fail "shared dir: exit $?: $(cat "$TMP/err")"
expect_in "$TMP/out" "$WANT"
metrics 0 1 0 0
metrics 1 0 1 0
[ "$(grep -c 'compiles 1,' "$TMP/err")" = 1 ] || fail "shared dir: not exactly one compile: $(cat "$TMP/err")"
[ "$(entries "$TMP/shared")" = 1 ] || fail "shared dir: expected one entry: $(ls -a "$TMP/shared")"
mpi "$TPURUN" --cache-dir="$TMP/shared" "${ARGS[@]}" || fail "shared dir, second run: exit $?: $(cat "$TMP/err")"
metrics 0 0 1 0
metrics 1 0 1 0
ls -a "$TMP/shared" | grep -q '^\.tmp\.' && fail "shared dir: a temporary file was left: $(ls -a "$TMP/shared")"

# ---- a directory per rank: rank 1's is filled from rank 0
cat >"$TMP/per_rank.sh" <<SH
#!/bin/sh
exec "$TPURUN" --cache-dir="$TMP/c\$OMPI_COMM_WORLD_RANK" "\$@"
SH
chmod +x "$TMP/per_rank.sh"
mpi "$TMP/per_rank.sh" "${ARGS[@]}" || fail "per-rank dirs: exit $?: $(cat "$TMP/err")"
expect_in "$TMP/out" "$WANT"
metrics 0 1 0 0
metrics 1 0 0 1
[ "$(entries "$TMP/c1")" = 1 ] || fail "rank 1's directory was not filled: $(ls -a "$TMP/c1")"
"$BUILD/tpucc" --cache-stats --cache-dir="$TMP/c1" >"$TMP/stats" || fail "tpucc --cache-stats exited $?"
expect_in "$TMP/stats" "filled from rank 0: 1"
"$BUILD/tpucc" --cache-stats --cache-dir="$TMP/c0" >"$TMP/stats" || fail "tpucc --cache-stats exited $?"
expect_in "$TMP/stats" "filled from rank 0: 0"
cmp -s "$TMP/c0/"*.tpuc "$TMP/c1/"*.tpuc || fail "rank 1's entry differs from rank 0's"
[ "$(ls "$TMP/c0"/*.alias | xargs -n1 basename)" = "$(ls "$TMP/c1"/*.alias | xargs -n1 basename)" ] \
  || fail "rank 1's alias differs from rank 0's"
mpi "$TMP/per_rank.sh" "${ARGS[@]}" || fail "per-rank dirs, second run: exit $?: $(cat "$TMP/err")"
metrics 0 0 1 0
metrics 1 0 1 0
# Rank 1 alone (one process) hits the entry rank 0 filled it with.
expect_status 0 "$TPURUN" --cache-dir="$TMP/c1" "${ARGS[@]}"
expect_in "$TMP/err" "metrics: compiles 0, cache hits 1, cache misses 0,"

# ---- --no-cache: rank 0 compiles, rank 1 loads the bytes it sends
mpi "$TPURUN" --no-cache "${ARGS[@]}" || fail "--no-cache: exit $?: $(cat "$TMP/err")"
expect_in "$TMP/out" "$WANT"
metrics 0 1 0 0
metrics 1 0 0 0

# ---- a rejected program: exit 2 everywhere, one diagnostic
cat >"$TMP/bad.mlir" <<'MLIR'
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %x, %nope : tensor<4xf32>
  return %0 : tensor<4xf32>
}
MLIR
mpi "$TPURUN" --cache-dir="$TMP/shared" --replicas=4 "$TMP/bad.mlir" --input=random
rc=$?
[ "$rc" = 2 ] || fail "a rejected program under mpirun exited $rc, expected 2: $(cat "$TMP/err")"
[ "$(grep -c 'error:' "$TMP/err")" = 1 ] || fail "the diagnostic is not printed exactly once: $(cat "$TMP/err")"
# Each rank's own status: a wrapper records it.
cat >"$TMP/status.sh" <<SH
#!/bin/sh
"$TPURUN" "\$@"
echo \$? >"$TMP/status\$OMPI_COMM_WORLD_RANK"
SH
chmod +x "$TMP/status.sh"
mpi "$TMP/status.sh" --cache-dir="$TMP/shared" --replicas=4 "$TMP/bad.mlir" --input=random
[ "$(cat "$TMP/status0" "$TMP/status1" 2>/dev/null | tr '\n' ' ')" = "2 2 " ] \
  || fail "the ranks' exit statuses are not 2 and 2: $(cat "$TMP"/status* 2>/dev/null)"

# ---- a refined program (unbounded dims, no alias): filled by module key
cat >"$TMP/dyn.mlir" <<'MLIR'
func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = "stablehlo.all_reduce"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %t = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %t : tensor<f32>
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
MLIR
mpi "$TMP/per_rank.sh" --replicas=2 --metrics "$TMP/dyn.mlir" --input=3xf32=1,2,3 \
  || fail "refined program: exit $?: $(cat "$TMP/err")"
expect_in "$TMP/out" "2x3xf32=[2 4 6][2 4 6]"
metrics 1 0 0 1
mpi "$TMP/per_rank.sh" --replicas=2 --metrics "$TMP/dyn.mlir" --input=3xf32=1,2,3 \
  || fail "refined program, second run: exit $?: $(cat "$TMP/err")"
metrics 0 0 1 0
metrics 1 0 1 0
echo "mpi_cache: ok"
