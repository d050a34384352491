#!/usr/bin/env bash
# bench/cache.sh BUILD_DIR — the compilation cache (DESIGN.md §5, issue 5) on
# searchless_chess_9m (../shared/models) and a generated 10,000-op module
# (bench/gen_parser_bench.py 10000):
#   - in-process: the compile time of a miss (parse + verify + passes +
#     lowering) against the load time of a hit (read + check the entry), both
#     from `tpurun --metrics`; medians of BENCH_REPEAT runs, each cold run on
#     an empty cache directory, each warm run on the directory it filled;
#   - whole process: the wall time of `tpucc --cache-dir=D FILE -o OUT` on a
#     warm cache against an empty one (what a user feels), with
#     `tpucc --no-cache` beside them; medians of BENCH_REPEAT, interleaved.
# Targets (issue 5): warm load >= 20x faster than a cold compile for both;
# whole process >= 10x for the 10,000-op module, >= 5x for the chess model.
# Wall times are medians in ms from bash's $EPOCHREALTIME around each run of
# the tool itself (process start-up included: `tpucc --version` on the last
# line shows that floor).  Exit 0 unless a tool fails; the targets are
# reported, not asserted.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/lib.sh"
BUILD=$(cd "${1:?usage: bench/cache.sh BUILD_DIR}" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
CONF=${TPU_CONFORMANCE_DIR:-$ROOT/../shared/conformance}
MODELS=${TPU_MODELS_DIR:-$(dirname "$CONF")/models}
TPUCC="$BUILD/tpucc" TPURUN="$BUILD/tpurun"
N=10000

bench_require python3 python3 || exit 1
[ -x "$TPUCC" ] && [ -x "$TPURUN" ] || { echo "bench: $TPUCC or $TPURUN not built (run make)" >&2; exit 1; }
# Never touch the user's cache.
unset TPU_CACHE_DIR TPU_CACHE_FAIL_WRITES
export XDG_CACHE_HOME="$BENCH_TMP/xdg"

# ------------------------------------------------------------ inputs
dir="$BUILD/bench"
mkdir -p "$dir"
gen="$dir/cache-$N.mlir"
bench_generated_module "$N" "$gen"
# NAME FILE FUNCTION: the generated module has no @main; run its first
# function (tpurun compiles the whole module either way).
progs=("ops-$N|$gen|f_0")
chess="$MODELS/searchless_chess_9m.mlir"
if [ -f "$chess" ]; then
  progs=("searchless_chess_9m|$chess|main" "${progs[@]}")
else
  echo "note: $chess not found; benchmarking the generated module only"
fi

# random_inputs FILE FUNCTION: one --input=random per argument of FUNCTION.
random_inputs() {
  local sig n i
  if [ "$2" = main ]; then
    sig=$(grep -m1 -E 'func\.func (public )?@main\(' "$1")
    n=$(grep -o '%arg[0-9]*:' <<<"$sig" | wc -l)
  else
    # Generic form: the function type names its arguments' types.
    sig=$(grep -m1 "sym_name = \"$2\"" "$1" | sed -n 's/.*function_type = (\([^)]*\)) ->.*/\1/p')
    n=$(grep -o 'tensor<' <<<"$sig" | wc -l)
  fi
  for ((i = 0; i < n; i++)); do printf -- '--input=random\n'; done
}

# metrics_of ERR: "COMPILES HITS COMPILE_MS LOAD_MS" from tpurun --metrics.
metrics_of() {
  sed -n 's/^metrics: compiles \([0-9]*\), cache hits \([0-9]*\), cache misses [0-9]*, compile time \([0-9.]*\) ms, load time \([0-9.]*\) ms, peak HBM [0-9]* bytes$/\1 \2 \3 \4/p' "$1"
}
# measure LOG NAME CMD...: one run of CMD, its wall time in seconds appended
# to LOG.  Timed directly (no /usr/bin/time in between: at a few ms per run
# its own start-up would be a large part of the figure).
measure() {
  local log=$1 name=$2 t0 t1; shift 2
  t0=$EPOCHREALTIME
  "$@" >/dev/null 2>"$BENCH_TMP/stderr" || {
    echo "bench: $name failed: $*" >&2; head -c 4000 "$BENCH_TMP/stderr" >&2; return 1; }
  t1=$EPOCHREALTIME
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f\n", b - a }' >>"$log"
}
wall_ms() { awk '{ printf "%.6f\n", $1 * 1000 }' "$1" >"$1.ms"; printf '%.2f' "$(median "$1.ms")"; }
median() { sort -g "$1" | awk '{ v[NR] = $1 } END { if (NR == 0) { print "n/a"; exit } print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# target RATIO T: "met (>=Tx)" or "NOT met (>=Tx)".
target() { awk -v r="$1" -v t="$2" 'BEGIN { printf "%s (>=%gx)\n", (r != "n/a" && r + 0 >= t) ? "met" : "NOT met", t }'; }

echo "cache: $BENCH_REPEAT runs each, $(nproc) CPUs"
echo "  in-process: tpurun --cache-dir=D --metrics FILE [--function=F] --input=random... (empty D, then the same D)"
echo "  process:    tpucc --cache-dir=D FILE -o OUT (empty D against a warm one; tpucc --no-cache FILE -o OUT beside)"
hdr='%-20s %9s %9s %8s %-15s | %9s %9s %9s %8s %-15s\n'
rows=()
for p in "${progs[@]}"; do
  IFS='|' read -r name file fn <<<"$p"
  mapfile -t ins < <(random_inputs "$file" "$fn")
  [ ${#ins[@]} -gt 0 ] || { echo "bench: no arguments found for @$fn in $file" >&2; exit 1; }
  run=("$TPURUN" "$file" --function="$fn" "${ins[@]}" --output=@"$BENCH_TMP/out.npy")
  # ---------------------------------------------------------- in-process
  : >"$BENCH_TMP/compile" ; : >"$BENCH_TMP/load"
  for ((r = 0; r < BENCH_REPEAT; r++)); do
    d="$BENCH_TMP/in-$r"
    rm -rf "$d"
    for phase in cold warm; do
      "${run[@]}" --cache-dir="$d" --metrics >/dev/null 2>"$BENCH_TMP/err" || {
        echo "bench: $name ($phase) failed: ${run[*]} --cache-dir=$d --metrics" >&2; head -c 4000 "$BENCH_TMP/err" >&2; exit 1; }
      read -r c h cms lms < <(metrics_of "$BENCH_TMP/err")
      if [ "$phase" = cold ]; then
        [ "${c:-}" = 1 ] && [ "${h:-}" = 0 ] || { echo "bench: $name: the cold run was not a compile: $(grep '^metrics:' "$BENCH_TMP/err")" >&2; exit 1; }
        echo "$cms" >>"$BENCH_TMP/compile"
      else
        [ "${c:-}" = 0 ] && [ "${h:-}" = 1 ] || { echo "bench: $name: the warm run was not a hit: $(grep '^metrics:' "$BENCH_TMP/err")" >&2; exit 1; }
        echo "$lms" >>"$BENCH_TMP/load"
      fi
    done
    rm -rf "$d"
  done
  cms=$(median "$BENCH_TMP/compile") lms=$(median "$BENCH_TMP/load")
  r1=$(bench_ratio "$cms" "$lms")
  # ---------------------------------------------------------- whole process
  out="$BENCH_TMP/out.tpub" wd="$BENCH_TMP/warm-cache" cd_="$BENCH_TMP/cold-cache"
  rm -rf "$wd"
  measure "$BENCH_TMP/fill" "$name tpucc (filling)" "$TPUCC" --cache-dir="$wd" "$file" -o "$out" || exit 1
  [ -n "$(find "$wd" -name '*.tpuc' -print -quit)" ] || { echo "bench: tpucc --cache-dir=$wd wrote no entry" >&2; exit 1; }
  : >"$BENCH_TMP/cold" ; : >"$BENCH_TMP/warm" ; : >"$BENCH_TMP/nocache"
  for ((r = 0; r < BENCH_REPEAT; r++)); do
    rm -rf "$cd_"
    measure "$BENCH_TMP/cold" "$name tpucc (empty cache)" "$TPUCC" --cache-dir="$cd_" "$file" -o "$out" || exit 1
    measure "$BENCH_TMP/warm" "$name tpucc (warm cache)" "$TPUCC" --cache-dir="$wd" "$file" -o "$out" || exit 1
    measure "$BENCH_TMP/nocache" "$name tpucc --no-cache" "$TPUCC" --no-cache "$file" -o "$out" || exit 1
  done
  # Median wall in ms from the full-precision first column of the logs.
  wc=$(wall_ms "$BENCH_TMP/cold") ww=$(wall_ms "$BENCH_TMP/warm") wn=$(wall_ms "$BENCH_TMP/nocache")
  r2=$(bench_ratio "$wc" "$ww")
  if [ "$name" = "ops-$N" ]; then t2=10; else t2=5; fi
  rows+=("$(printf "$hdr" "$name" "$cms" "$lms" "${r1}x" "$(target "$r1" 20)" "$wn" "$wc" "$ww" "${r2}x" "$(target "$r2" "$t2")")")
done
printf "$hdr" "" "compile" "load" "" "" "no-cache" "cold" "warm" "" ""
printf "$hdr" program "ms" "ms" ratio target "wall ms" "wall ms" "wall ms" ratio target
printf '%s\n' "${rows[@]}"
# The floor of any whole-process figure: starting tpucc and exiting.
: >"$BENCH_TMP/floor"
for ((r = 0; r < BENCH_REPEAT; r++)); do measure "$BENCH_TMP/floor" "tpucc --version" "$TPUCC" --version || exit 1; done
echo "process floor: tpucc --version takes $(wall_ms "$BENCH_TMP/floor") ms (median wall)"
