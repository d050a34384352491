#!/usr/bin/env bash
# bench/parser.sh BUILD_DIR — parse + verify + print generic form, tpucc
# against mlir-opt-14, on a generated module of BENCH_OPS (default 100000)
# StableHLO ops.  Runs each tool BENCH_REPEAT (default 5) times, alternating
# the two in one loop so machine noise hits both; prints median/min/max wall
# seconds, median peak RSS, and the two ratios.  Exit 0 unless a tool fails.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
BUILD=$(cd "${1:?usage: bench/parser.sh BUILD_DIR}" && pwd)
N=${BENCH_OPS:-100000}
TPUCC="$BUILD/tpucc"
MLIR_OPT=mlir-opt-14

bench_require_compile_peers "$TPUCC" || exit 1

# ------------------------------------------------------------ input
# Generated once per N; regenerated when the generator changes.
dir="$BUILD/bench"
mkdir -p "$dir"
in="$dir/parser-$N.mlir"
bench_generated_module "$N" "$in"
out1="$dir/parser-$N.tpucc.mlir"
out2="$dir/parser-$N.mlir-opt.mlir"
cmd1=("$TPUCC" "$in" --emit=mlir-generic -o "$out1")
cmd2=("$MLIR_OPT" --allow-unregistered-dialect --mlir-print-op-generic "$in" -o "$out2")

size=$(awk -v b="$(stat -L -c %s "$in")" 'BEGIN { printf "%.1f", b / 1048576 }')
echo "parser: $N ops, $size MiB, $BENCH_REPEAT runs per tool, $(nproc) CPUs"
echo "  tpucc:       ${cmd1[*]}"
echo "  mlir-opt-14: ${cmd2[*]}"

# ------------------------------------------------------------ warm-up + checks
# One untimed run of each (warms the page cache), then each output must
# re-parse: tpucc's by tpucc and by mlir-opt-14, mlir-opt-14's by mlir-opt-14.
warm="$BENCH_TMP/warm"
bench_measure "$warm" tpucc "${cmd1[@]}" || exit 1
bench_measure "$warm" mlir-opt-14 "${cmd2[@]}" || exit 1
bench_measure "$warm" "tpucc re-parsing its output" "$TPUCC" --verify-only "$out1" || exit 1
bench_measure "$warm" "mlir-opt-14 re-parsing its output" \
  "$MLIR_OPT" --allow-unregistered-dialect "$out2" -o /dev/null || exit 1
bench_measure "$warm" "mlir-opt-14 reading tpucc's output" \
  "$MLIR_OPT" --allow-unregistered-dialect "$out1" -o /dev/null || exit 1

# ------------------------------------------------------------ timed runs
log1="$BENCH_TMP/tpucc" log2="$BENCH_TMP/mlir-opt"
for ((i = 0; i < BENCH_REPEAT; i++)); do
  # Alternate which tool goes first too, so neither always follows the other.
  if ((i % 2 == 0)); then
    bench_measure "$log1" tpucc "${cmd1[@]}" || exit 1
    bench_measure "$log2" mlir-opt-14 "${cmd2[@]}" || exit 1
  else
    bench_measure "$log2" mlir-opt-14 "${cmd2[@]}" || exit 1
    bench_measure "$log1" tpucc "${cmd1[@]}" || exit 1
  fi
done

read -r med1 min1 max1 cpu1 rss1 < <(bench_stats "$log1")
read -r med2 min2 max2 cpu2 rss2 < <(bench_stats "$log2")
row() { printf '  %-12s %9s %7s %7s %13s %13s\n' "$@"; }
row tool "median s" "min s" "max s" "median CPU s" "peak RSS MiB"
row tpucc "$med1" "$min1" "$max1" "$cpu1" "$rss1"
row mlir-opt-14 "$med2" "$min2" "$max2" "$cpu2" "$rss2"
if awk -v a="$med1" -v b="$med2" 'BEGIN { exit !(a <= b) }'; then
  echo "speed: tpucc is $(bench_ratio "$med2" "$med1")x faster than mlir-opt-14 (median)"
else
  echo "speed: tpucc is $(bench_ratio "$med1" "$med2")x slower than mlir-opt-14 (median)"
fi
echo "memory: tpucc peak RSS is $(bench_ratio "$rss1" "$rss2")x of mlir-opt-14"
kops() { awk -v n="$N" -v t="$1" 'BEGIN { printf "%.0f", n / t / 1000 }'; }
echo "  (throughput: tpucc $(kops "$med1")k ops/s, mlir-opt-14 $(kops "$med2")k ops/s;" \
     "CPU time tpucc/mlir-opt-14: $(bench_ratio "$cpu1" "$cpu2"))"
