#!/usr/bin/env bash
# bench/compile_scaling.sh BUILD_DIR — compile time against module size.
# For each shape of bench/gen_scaling.py (BENCH_SCALING_SHAPES, default chain,
# layers, dag, quantized and bounded) at each size of
# BENCH_SCALING_SIZES (default "1000 10000 100000" ops), the whole-process
# wall time of `tpucc -O0` and `tpucc -O2 --time-passes` (medians of
# BENCH_REPEAT runs, interleaved with mlir-opt-14 reading the same file, the
# peer), printed as microseconds per op; the -O2/-O0 ratio; the passes'
# own time at -O2 (the "Total Execution Time" of --time-passes); and per
# shape the ratio of microseconds per op at the largest size to the
# smallest (1.00 is linear).  Exit 0 unless a tool fails.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
BUILD=$(cd "${1:?usage: bench/compile_scaling.sh BUILD_DIR}" && pwd)
SIZES=(${BENCH_SCALING_SIZES:-1000 10000 100000})
SHAPES=(${BENCH_SCALING_SHAPES:-chain layers dag quantized bounded})
TPUCC="$BUILD/tpucc"
MLIR_OPT=mlir-opt-14
GEN="$HERE/gen_scaling.py"

bench_require_compile_peers "$TPUCC" || exit 1
dir="$BUILD/bench"
mkdir -p "$dir"

# The module of SHAPE and N ops, generated once (again when the generator changes).
module() {
  local path="$dir/scaling-$1-$2.mlir"
  if ! [ -s "$path" ] || [ "$GEN" -nt "$path" ]; then
    python3 "$GEN" "$1" "$2" "$path.tmp" && mv "$path.tmp" "$path" || {
      echo "bench: generating $path failed" >&2; rm -f "$path.tmp"; exit 1; }
  fi
  echo "$path"
}

us_per_op() { awk -v s="$1" -v n="$2" 'BEGIN { printf "%.2f", s * 1e6 / n }'; }
median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

echo "compile scaling: shapes ${SHAPES[*]}, sizes ${SIZES[*]} ops, $BENCH_REPEAT runs per tool, $(nproc) CPUs"
echo "  -O0:         $TPUCC -O0 FILE -o /dev/null"
echo "  -O2:         $TPUCC -O2 --time-passes FILE -o /dev/null"
echo "  mlir-opt-14: $MLIR_OPT --allow-unregistered-dialect FILE -o /dev/null   (parse + print only)"
echo "  FILE:        $dir/scaling-SHAPE-N.mlir, from bench/gen_scaling.py SHAPE N"
row() { printf '  %-7s %7s %10s %10s %8s %11s %11s %8s\n' "$@"; }
row shape ops "O0 us/op" "O2 us/op" "O2/O0" "passes us/op" "mlir-opt us/op" "O2/peer"
for shape in "${SHAPES[@]}"; do
  first0="" first2="" firstp=""
  for n in "${SIZES[@]}"; do
    in=$(module "$shape" "$n")
    : >"$BENCH_TMP/O0"; : >"$BENCH_TMP/O2"; : >"$BENCH_TMP/peer"; : >"$BENCH_TMP/passes"
    # One untimed run of each warms the page cache.
    bench_measure "$BENCH_TMP/warm" "tpucc -O0" "$TPUCC" -O0 "$in" -o /dev/null || exit 1
    bench_measure "$BENCH_TMP/warm" "$MLIR_OPT" "$MLIR_OPT" --allow-unregistered-dialect "$in" -o /dev/null || exit 1
    for ((i = 0; i < BENCH_REPEAT; i++)); do
      bench_measure "$BENCH_TMP/O0" "tpucc -O0" "$TPUCC" -O0 "$in" -o /dev/null || exit 1
      bench_measure "$BENCH_TMP/O2" "tpucc -O2" "$TPUCC" -O2 --time-passes "$in" -o /dev/null || exit 1
      sed -n 's/^ *Total Execution Time: \([0-9.]*\) seconds/\1/p' "$BENCH_TMP/stderr" >>"$BENCH_TMP/passes"
      bench_measure "$BENCH_TMP/peer" "$MLIR_OPT" "$MLIR_OPT" --allow-unregistered-dialect "$in" -o /dev/null || exit 1
    done
    # Medians of the logs' wall seconds at full (microsecond) resolution.
    w0=$(cut -d' ' -f1 "$BENCH_TMP/O0" | median) w2=$(cut -d' ' -f1 "$BENCH_TMP/O2" | median)
    wp=$(cut -d' ' -f1 "$BENCH_TMP/peer" | median) ps=$(median <"$BENCH_TMP/passes")
    u0=$(us_per_op "$w0" "$n") u2=$(us_per_op "$w2" "$n") up=$(us_per_op "$ps" "$n") uo=$(us_per_op "$wp" "$n")
    row "$shape" "$n" "$u0" "$u2" "$(bench_ratio "$w2" "$w0")" "$up" "$uo" "$(bench_ratio "$w2" "$wp")"
    [ -n "$first0" ] || first0=$u0 first2=$u2 firstp=$up
    last0=$u0 last2=$u2 lastp=$up
  done
  echo "  $shape: us/op at ${SIZES[-1]} ops / at ${SIZES[0]} ops: -O0 $(bench_ratio "$last0" "$first0")," \
       "-O2 $(bench_ratio "$last2" "$first2"), passes $(bench_ratio "$lastp" "$firstp")"
done
echo "(us/op: median whole-process wall time per op of the module, start-up included;"
echo " passes: the -O2 pipeline alone, from --time-passes; O2/peer: tpucc -O2 against mlir-opt-14 parsing and printing)"
