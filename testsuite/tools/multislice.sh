#!/usr/bin/env bash
# Multislice (docs/chips.md, docs/passes.md): --slices=S splits a run's chips
# into S slices, each its own torus, joined by the data-center network (DCN).
#   - S=1 is the single-slice model, bit for bit (tpurun's modeled step and
#     tpucc --report the same with --slices=1 as without);
#   - an 8-replica data-parallel all_reduce of 1 MiB on v5e costs, with
#     --slices=2, the slice's ICI all-reduce plus the DCN ring all-reduce of
#     a quarter, computed here by hand: tpurun's modeled step grows by that
#     much, its DCN busy time and tpucc --report's dcn: line are the DCN term;
#   - a count that does not divide the chips is refused (tpurun exit 1,
#     tpucc exit 2), and --mesh then describes one slice;
#   - the --trace file gets a DCN track only across slices.
source "$(dirname "$0")/lib.sh"
TPURUN="$BUILD/tpurun"
run() { "$TPURUN" --no-cache "$@"; }

cat > "$TMP/ar.mlir" <<'MLIR'
module attributes {mhlo.num_replicas = 8 : i32} {
func.func @main(%x: tensor<256x1024xf32>) -> tensor<256x1024xf32> {
  %0 = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %t = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %t : tensor<f32>
  }) {replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>} : (tensor<256x1024xf32>) -> tensor<256x1024xf32>
  return %0 : tensor<256x1024xf32>
}
}
MLIR

# By hand, v5e (passes/targets.def): ICI 45 GB/s a link, 1 us a hop; DCN
# 3.125 GB/s a chip, 10 us a message; B = 1 MiB.
#   S=1: 8 chips on a 2x4 mesh (no wraparound): 1 + 3 hops over 2 axes,
#        all-reduce = 2 max(4 us, B 7/8 / (2 x 45e9 x 2))
#   S=2: 4-chip slices on 2x2: ICI 2 max(2 us, B 3/4 / (2 x 45e9 x 2)),
#        DCN 2 ((2-1)/2 x (B/4) / 3.125e9 + (2-1) x 10 us)
read -r ici1 ici2 dcn2 < <(awk 'function max(a, b) { return a > b ? a : b }
  BEGIN { B = 1048576; bw = 2 * 45e9 * 2
          printf "%.6f %.6f %.6f\n", 2 * max(4e-6, B * 7 / 8 / bw) * 1e6, 2 * max(2e-6, B * 3 / 4 / bw) * 1e6,
                 2 * (0.5 * B / 4 / 3.125e9 + 1e-5) * 1e6 }')
dcn2_3=$(printf '%.3f' "$dcn2") # as the tools print it
echo "by hand: all-reduce ${ici1} us on one slice; on two: ICI ${ici2} us + DCN ${dcn2} us"

step() { sed -n 's/^modeled step: \([0-9.]*\) us.*/\1/p' "$TMP/out"; }
near() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; exit !(d < 0.002 && d > -0.002) }'; }

# ---- 1. S=1 is the single-slice model.
expect_status 0 run --target=v5e --profile "$TMP/ar.mlir" --input=random
grep '^modeled step' "$TMP/out" > "$TMP/plain"
step1=$(step)
expect_status 0 run --target=v5e --profile --slices=1 "$TMP/ar.mlir" --input=random
grep '^modeled step' "$TMP/out" | cmp -s - "$TMP/plain" || fail "--slices=1 changed the modeled step: $(cat "$TMP/plain")"
grep -q 'DCN' "$TMP/plain" && fail "a DCN figure on one slice: $(cat "$TMP/plain")"
expect_status 0 "$TPUCC" --report --target=v5e "$TMP/ar.mlir"
cp "$TMP/out" "$TMP/report1"
expect_status 0 "$TPUCC" --report --target=v5e --slices=1 "$TMP/ar.mlir"
cmp -s "$TMP/out" "$TMP/report1" || fail "tpucc --slices=1 changed the report"
grep -q '^dcn:' "$TMP/report1" && fail "a dcn: line on one slice"

# ---- 2. two slices: the step grows by the hand-computed difference.
expect_status 0 run --target=v5e --profile --slices=2 "$TMP/ar.mlir" --input=random
step2=$(step)
expect_in "$TMP/out" "2 slices, DCN busy $dcn2_3 us"
want=$(awk -v s="$step1" -v a="$ici1" -v b="$ici2" -v d="$dcn2" 'BEGIN { printf "%.6f", s - a + b + d }')
echo "modeled step: ${step1} us on one slice, ${step2} us on two (by hand: ${want} us)"
near "$step2" "$want" || fail "the 2-slice step is $step2 us, by hand $want us"
awk -v a="$step2" -v b="$step1" 'BEGIN { exit !(a > b) }' || fail "two slices are not slower"
# The same with --mesh naming one slice's torus.
expect_status 0 run --target=v5e --profile --slices=2 --mesh=2x2 "$TMP/ar.mlir" --input=random
near "$(step)" "$want" || fail "--mesh=2x2 --slices=2 gives $(step) us, by hand $want us"

# ---- 3. the compiler's cost model: the dcn: line carries the DCN term.
expect_status 0 "$TPUCC" --report --target=v5e --slices=2 "$TMP/ar.mlir"
expect_in "$TMP/out" "dcn: 2 slices of 4 chips, DCN 3.125 GB/s per chip one way, 10.0 us a message; DCN $dcn2_3 us"
# Its cache key differs from the one-slice program's.
expect_status 0 "$TPUCC" --explain-cache --slices=2 "$TMP/ar.mlir" --cache-dir="$TMP/cache"
expect_in "$TMP/out" "slices=2"

# ---- 4. refusals.
expect_status 1 run --slices=3 "$TMP/ar.mlir" --input=random
expect_in "$TMP/err" "--slices=3 does not divide the run's 8 replicas x 1 partitions = 8 chips"
expect_status 2 "$TPUCC" --slices=3 "$TMP/ar.mlir" -o "$TMP/x.tpub"
expect_in "$TMP/err" "--slices=3 does not divide the module's 8 chips"
[ -e "$TMP/x.tpub" ] && fail "tpucc wrote a program it refused"
expect_status 1 run --slices=2 --mesh=2x4 "$TMP/ar.mlir" --input=random
expect_in "$TMP/err" "--mesh holds 8 chips, a slice of the run's 8 replicas x 1 partitions in 2 slices has 4"
expect_status 1 run --slices=0 "$TMP/ar.mlir"
expect_in "$TMP/err" "invalid --slices count '0'"
expect_status 1 "$TPUCC" --slices=x "$TMP/ar.mlir"
expect_in "$TMP/err" "invalid --slices count 'x'"

# ---- 5. the trace: a DCN track per chip across slices, none on one slice.
expect_status 0 run --slices=2 --trace="$TMP/t2.json" "$TMP/ar.mlir" --input=random
expect_status 0 run --trace="$TMP/t1.json" "$TMP/ar.mlir" --input=random
[ "$(grep -c '"name": "DCN"' "$TMP/t2.json")" -eq 8 ] || fail "expected 8 DCN tracks in the 2-slice trace"
grep -q '"name": "DCN"' "$TMP/t1.json" && fail "a DCN track on one slice"
exit 0
