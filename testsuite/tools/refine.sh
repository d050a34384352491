#!/usr/bin/env bash
# Unbounded dynamic shapes refined from the actual inputs
# (docs/shape-refinement.md):
#   1. the programs of refine/ (every dynamic op, a call) at sizes 2, 3, 5
#      through tpurun, inputs from .npy files, results compared with NumPy
#      (refine_check.py);
#   2. the cache holds one entry per distinct input signature: a second run
#      with the same shapes is a hit, another size a new entry;
#   3. SHAPE=random and literal inputs; plain random on an unbounded
#      dimension and tpucc without --input-shape are refused naming the
#      argument; a shape that does not fit is a located error;
#   4. tpucc --input-shape writes a .tpub that runs on inputs of that shape.
source "$(dirname "$0")/lib.sh"
TPURUN="$BUILD/tpurun"
unset TPU_CACHE_DIR
DIR="$ROOT/testsuite/tools/refine"
CACHE="$TMP/cache"

# 1. every program at three sizes, compared with NumPy.
/usr/bin/python3 "$ROOT/testsuite/tools/refine_check.py" "$BUILD" "$TMP" "$CACHE" > "$TMP/check" 2>&1 ||
  fail "refine_check.py: $(grep FAIL "$TMP/check" | head -5)"
[ "$(grep -c '^ok ' "$TMP/check")" -eq 12 ] || fail "expected 12 ok lines: $(cat "$TMP/check")"

# 2. one cache entry per program and size; the same shapes hit.
expect_status 0 "$TPUCC" --cache-stats --cache-dir="$CACHE"
expect_in "$TMP/out" "entries: 12"
run_b() { "$TPURUN" "$DIR/broadcast.mlir" --cache-dir="$CACHE" --metrics "$@"; }
expect_status 0 run_b --input=i64=3 --input=3x4xf32=random:1
expect_in "$TMP/err" "compiles 0, cache hits 1, cache misses 0"
expect_in "$TMP/out" "result[1]: i32=3"
expect_status 0 run_b --input=i64=7 --input=7x4xf32=random
expect_in "$TMP/err" "compiles 1, cache hits 0, cache misses 1"
expect_status 0 "$TPUCC" --cache-stats --cache-dir="$CACHE"
expect_in "$TMP/out" "entries: 13"

# 3. literal and random inputs; refusals.
expect_status 0 "$TPURUN" "$DIR/broadcast.mlir" --no-cache --input=i64=1 --input=1x4xf32=1,2,3,4
expect_in "$TMP/out" "result[0]: 2x1x4xf32=[[1 2 3 4]][[1 2 3 4]]"
expect_in "$TMP/out" "result[1]: i32=1"
expect_status 0 "$TPURUN" "$DIR/broadcast.mlir" --no-cache --seed=5 --input=i64=2 --input=2x4xf32=random
cp "$TMP/out" "$TMP/seed5"
expect_status 0 "$TPURUN" "$DIR/broadcast.mlir" --no-cache --input=i64=2 --input=2x4xf32=random:5
cmp -s "$TMP/out" "$TMP/seed5" || fail "2x4xf32=random with --seed=5 differs from 2x4xf32=random:5"
expect_status 2 "$TPURUN" "$DIR/broadcast.mlir" --no-cache --input=i64=2 --input=random
expect_in "$TMP/err" "broadcast.mlir:2:1: error: 'func.func' op argument #1 has the unbounded type tensor<?x4xf32>: give its concrete shape (tpurun --input=3x4xf32=VALUES, =random or @FILE.npy"
expect_status 2 "$TPUCC" "$DIR/broadcast.mlir" -o "$TMP/b.tpub"
expect_in "$TMP/err" "tpucc --input-shape=3x4xf32 once per argument"
[ ! -e "$TMP/b.tpub" ] || fail "a refused program left an output"
expect_status 2 "$TPURUN" "$DIR/broadcast.mlir" --no-cache --input=i64=3 --input=2x4xf32=random
expect_in "$TMP/err" "broadcast.mlir:8:8: error: 'stablehlo.broadcast_in_dim' op size of operand dimension 0 (2) is not equal to 1 or size of result dimension 1 (3)"
expect_status 2 "$TPURUN" "$DIR/broadcast.mlir" --no-cache --input=i64=3 --input=3x5xf32=random
expect_in "$TMP/err" "argument #1 has type tensor<?x4xf32>: the given tensor<3x5xf32> does not fit it"
expect_status 1 "$TPUCC" "$DIR/broadcast.mlir" --input-shape=3xfoo
expect_in "$TMP/err" "--input-shape: bad shape '3xfoo'"
expect_status 1 "$TPURUN" "$DIR/broadcast.mlir" --no-cache --input=i64=2 --input=2x4xf32=randomly
expect_in "$TMP/err" "input 1"

# 4. tpucc --input-shape: a static program for those shapes.
expect_status 0 "$TPUCC" "$DIR/pad_slice.mlir" --input-shape=i64=4 --input-shape=4xf32 --input-shape=4x4xf32 -o "$TMP/p.tpub"
expect_status 0 "$TPURUN" "$TMP/p.tpub" --input=i64=4 --input=4xf32=1,2,3,4 --input=4x4xf32=random
expect_in "$TMP/out" "result[0]: 12xf32=0.5 1 0.5 2 0.5 3 0.5 4 0.5 0.5 0.5 0.5"
expect_status 0 "$TPUCC" "$DIR/pad_slice.mlir" --emit=mlir --input-shape=i64=4 --input-shape=4xf32 --input-shape=4x4xf32
expect_in "$TMP/out" "-> (tensor<12xf32>, tensor<3x2xf32>)"
echo "PASS"
