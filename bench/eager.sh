#!/usr/bin/env bash
# bench/eager.sh BUILD_DIR — libtpurun's eager execution (DESIGN.md §9), all
# measured in this run on this machine:
#   a. Fused against Strict wall time, per step, on
#      - the transformer block of examples/eager_transformer.c at a size
#        where the work dominates (EAGER_TF, default --seq 256 --width 512
#        --heads 8 --mlp 2048, EAGER_STEPS steps), and
#      - the same block at an attention-bound size (EAGER_TF_ATTN, default
#        --seq 512 --width 64 --heads 1 --mlp 256: the softmax over 512x512
#        scores outweighs the projections), and
#      - one SGD training step of examples/mlp_train_step.mlir's MLP op by op
#        (eager_bench mlp: forward, MSE loss, backward, update; batch
#        EAGER_MLP_BATCH), each step reading its loss to the host;
#      the first step (compiles on an empty cache) reported apart from the
#      median of the later ones; ratio Strict/Fused (target >= 2x) and the
#      compiles after the first step from tpu_metrics_json (target 0);
#   b. Strict per-op cost: 100,000 scalar f32 stablehlo.add through tpu_op
#      then one tpu_sync, µs per op (target <= 2 µs), beside PyTorch eager's
#      time per op for 100,000 scalar adds (Debian's python3-torch; skipped
#      with a message when absent);
#   c. two independent streams of chip 0, each a chain of EAGER_CHAIN 512x512
#      f32 dot_generals, against one stream queuing both chains: wall times,
#      ratio, with the default threads per kernel and with one;
#   d. first-step latency: the first tpu_op of each common signature
#      (element-wise, dot_general, reduce, broadcast, reshape, transpose,
#      convert; f32, bf16, f16, i32) and the pipeline compiles it caused
#      (target 0): bench/eager_first.c.
# Every figure is the median over EAGER_REPEAT processes (default
# BENCH_REPEAT, else 5; Strict and Fused alternate), each with an empty cache
# directory of its own.
# Exit 0 unless a tool fails; the targets are reported, not asserted.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/lib.sh"
BUILD=$(cd "${1:?usage: bench/eager.sh BUILD_DIR}" && pwd)
EX="$BUILD/eager_transformer" EB="$BUILD/eager_bench" EF="$BUILD/eager_first"
PY=/usr/bin/python3
R=${EAGER_REPEAT:-${BENCH_REPEAT:-5}}
STEPS=${EAGER_STEPS:-6}
TF=${EAGER_TF:---seq 256 --width 512 --heads 8 --mlp 2048}
TF_ATTN=${EAGER_TF_ATTN:---seq 512 --width 64 --heads 1 --mlp 256}
MLP_BATCH=${EAGER_MLP_BATCH:-2048}
N_ADDS=${EAGER_ADDS:-100000}
CHAIN=${EAGER_CHAIN:-16}
for t in "$EX" "$EB" "$EF"; do
  [ -x "$t" ] || { echo "bench: $t not built (run make $t)" >&2; exit 1; }
done
# The mode is the scripts' choice; never the user's cache.
unset TPU_EAGER_MODE TPU_CACHE_DIR

# median [DECIMALS]: the median of the numbers on stdin, one a line (n/a if none).
median() {
  sort -g | awk -v d="${1:-2}" '{ v[NR] = $1 } END {
    if (NR == 0) { print "n/a"; exit }
    printf "%.*f\n", d, (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
# target VALUE OP LIMIT: "met (OP LIMIT)" or "NOT met (OP LIMIT)".
target() {
  awk -v v="$1" -v op="$2" -v t="$3" 'BEGIN {
    ok = (v != "n/a" && v != "" && ((op == ">=") ? v + 0 >= t : v + 0 <= t))
    printf "%s (%s %s)", ok ? "met" : "NOT met", op, t }'
}
run_no=0
# run LOG CMD...: CMD with a fresh empty cache; its stdout appended to LOG.
run() {
  local log=$1; shift
  run_no=$((run_no + 1))
  TPU_CACHE_DIR="$BENCH_TMP/cache-$run_no" "$@" >"$BENCH_TMP/out" 2>"$BENCH_TMP/err" || {
    echo "bench: failed: $*" >&2; head -c 4000 "$BENCH_TMP/err" >&2; head -c 2000 "$BENCH_TMP/out" >&2; return 1; }
  cat "$BENCH_TMP/out" >>"$log"
  rm -rf "$BENCH_TMP/cache-$run_no"
}
# field LOG KEY: the values of KEY=... on the "result" lines of LOG, one a line.
field() { sed -n "s/^result .*\\b$2=\\([^ ]*\\).*/\\1/p" "$1"; }

echo "eager: $R runs each (median), $(nproc) CPUs, $STEPS steps per run"
status=0

# ------------------------------------------------------------ a. Fused vs Strict
# The transformer: eager_transformer's own lines, turned into result lines.
tf_result() { # LOG MODE: "result first_ms=.. median_ms=.. compiles_after_first=.. lowerings_after_first=.."
  awk -v m="$2" '
    $1 == m":" { want = 1; next }
    want && /steps?: first/ {
      f = $0; sub(/.*first /, "", f); sub(/ ms.*/, "", f)
      md = "n/a"; if ($0 ~ /then median/) { md = $0; sub(/.*then median /, "", md); sub(/ ms.*/, "", md) }
      c = "n/a"; l = "n/a"
      if ($0 ~ /after step 1:/) { c = $0; sub(/.*after step 1: /, "", c); sub(/ compiles.*/, "", c)
                                  l = $0; sub(/.* compiles, /, "", l); sub(/ direct.*/, "", l) }
      mo = "n/a"; if ($0 ~ /modeled /) { mo = $0; sub(/.*modeled /, "", mo); sub(/ us.*/, "", mo) }
      printf "result first_ms=%s median_ms=%s compiles_after_first=%s lowerings_after_first=%s modeled_us=%s\n", f, md, c, l, mo
      want = 0 }' "$1"
}
echo "  transformer: eager_transformer MODE $TF --steps $STEPS --no-program-check"
echo "  attention:   eager_transformer MODE $TF_ATTN --steps $STEPS --no-program-check"
echo "  mlp:         eager_bench mlp MODE --batch $MLP_BATCH --steps $STEPS"
declare -A A
for bench in transformer attention mlp; do
  for mode in strict fused; do : >"$BENCH_TMP/$bench-$mode"; done
  for ((r = 0; r < R; r++)); do
    if [ $((r % 2)) -eq 0 ]; then order="strict fused"; else order="fused strict"; fi
    for mode in $order; do
      if [ $bench != mlp ]; then
        if [ $bench = transformer ]; then sizes=$TF; else sizes=$TF_ATTN; fi
        # shellcheck disable=SC2086
        run "$BENCH_TMP/raw" "$EX" $mode $sizes --steps "$STEPS" --no-program-check || { status=1; continue; }
        tf_result "$BENCH_TMP/raw" $mode >>"$BENCH_TMP/$bench-$mode"
        : >"$BENCH_TMP/raw"
      else
        run "$BENCH_TMP/$bench-$mode" "$EB" mlp $mode --batch "$MLP_BATCH" --steps "$STEPS" || status=1
      fi
    done
  done
  for mode in strict fused; do
    for k in first_ms median_ms compiles_after_first lowerings_after_first modeled_us; do
      if [ "${k%_ms}" != "$k" ] || [ "$k" = modeled_us ]; then d=2; else d=0; fi
      A[$bench-$mode-$k]=$(field "$BENCH_TMP/$bench-$mode" $k | grep -v 'n/a' | median $d)
    done
  done
done
hdr='%-12s %-7s %12s %12s %10s %10s %16s\n'
printf "$hdr" bench mode "step 1 ms" "step ms" compiles lowerings "modeled step us"
for bench in transformer attention mlp; do
  for mode in strict fused; do
    printf "$hdr" $bench $mode "${A[$bench-$mode-first_ms]}" "${A[$bench-$mode-median_ms]}" \
      "${A[$bench-$mode-compiles_after_first]}" "${A[$bench-$mode-lowerings_after_first]}" \
      "${A[$bench-$mode-modeled_us]}"
  done
done
echo "(step ms: median over the steps after the first; compiles, lowerings: after step 1, from tpu_metrics_json;"
echo " modeled step us: the cost model's time on v5e of what one step ran, tpu_metrics_json's modeled_seconds)"
for bench in transformer attention mlp; do
  r=$(bench_ratio "${A[$bench-strict-median_ms]}" "${A[$bench-fused-median_ms]}")
  r1=$(bench_ratio "${A[$bench-strict-first_ms]}" "${A[$bench-fused-first_ms]}")
  c="${A[$bench-fused-compiles_after_first]}"
  rm=$(bench_ratio "${A[$bench-strict-modeled_us]}" "${A[$bench-fused-modeled_us]}")
  echo "$bench: Strict/Fused per step ${r}x measured on the host, $(target "$r" ">=" 2); ${rm}x modeled on v5e," \
    "$(target "$rm" ">=" 2); first step ${r1}x; Fused compiles after step 1: $c, $(target "$c" "<=" 0)"
done

# ------------------------------------------------------------ b. per-op cost
echo "  scalar adds: eager_bench scalar-add MODE --n $N_ADDS (a chain x = x + 1, then one tpu_sync)"
: >"$BENCH_TMP/adds"
for ((r = 0; r < R; r++)); do
  run "$BENCH_TMP/adds" "$EB" scalar-add strict --n "$N_ADDS" || status=1
done
strict_us=$(field "$BENCH_TMP/adds" us_per_op | median 3)
enq_ms=$(field "$BENCH_TMP/adds" enqueue_ms | median)
other=""
for mode in debug fused; do
  : >"$BENCH_TMP/adds-$mode"
  run "$BENCH_TMP/adds-$mode" "$EB" scalar-add $mode --n "$N_ADDS" || status=1
  other="$other, $mode $(field "$BENCH_TMP/adds-$mode" us_per_op | median 3) µs (1 run)"
done
torch_us="n/a" torch_v=""
if "$PY" -c 'import torch' 2>/dev/null; then
  : >"$BENCH_TMP/torch"
  for ((r = 0; r < R; r++)); do
    "$PY" - "$N_ADDS" >>"$BENCH_TMP/torch" <<'PY' || status=1
import sys, time
import torch
n = int(sys.argv[1])
torch.set_num_threads(1)
one = torch.ones((), dtype=torch.float32)
x = torch.zeros((), dtype=torch.float32)
for _ in range(1000):  # warm-up
    x = x + one
x = torch.zeros((), dtype=torch.float32)
t0 = time.perf_counter()
for _ in range(n):
    x = x + one
t = time.perf_counter() - t0
assert x.item() == float(n), x.item()
print("%.4f" % (t / n * 1e6))
PY
  done
  torch_us=$(median 3 <"$BENCH_TMP/torch")
  torch_v=$("$PY" -c 'import torch; print(torch.__version__)')
else
  echo "note: PyTorch (python3-torch) not installed: its per-op time is skipped" \
    "(apt-get install -y --no-install-recommends python3-torch)"
fi
echo "Strict per op: $strict_us µs ($(target "$strict_us" "<=" 2); enqueue of all $N_ADDS: $enq_ms ms)$other;" \
  "PyTorch eager${torch_v:+ $torch_v} (CPU, 1 thread): $torch_us µs per op;" \
  "Strict/PyTorch $(bench_ratio "$strict_us" "$torch_us")x (< 1: Strict is faster)"

# ------------------------------------------------------------ c. streams
echo "  streams: eager_bench streams --n $CHAIN --size 512 --repeat $R [--threads 1]"
for th in 0 1; do
  : >"$BENCH_TMP/streams"
  run "$BENCH_TMP/streams" "$EB" streams --n "$CHAIN" --size 512 --repeat "$R" --threads $th || { status=1; continue; }
  two=$(field "$BENCH_TMP/streams" two_ms) one=$(field "$BENCH_TMP/streams" one_ms)
  if [ $th = 0 ]; then thl="default threads per kernel"; else thl="1 thread per kernel"; fi
  echo "streams ($thl): two streams $two ms, one stream $one ms, one/two $(bench_ratio "$one" "$two")x" \
    "(2 chains of $CHAIN 512x512 f32 dot_generals)"
done

# ------------------------------------------------------------ d. first-step latency
echo "  first use: eager_first 64 (Strict; each signature's first tpu_op + tpu_sync, then a second)"
if "$EF" 64 >"$BENCH_TMP/first" 2>&1; then
  tail -n 1 "$BENCH_TMP/first"
  c=$(sed -n 's/.*pipeline compiles: \([0-9-]*\).*/\1/p' "$BENCH_TMP/first")
  echo "first use: pipeline compiles $c, $(target "$c" "<=" 0)"
else
  status=1
  cat "$BENCH_TMP/first" >&2
fi
exit $status
