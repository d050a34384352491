#!/usr/bin/env bash
# bench/models.sh BUILD_DIR — the optimizer on the real model exports
# (../shared/models: searchless_chess_9m, jax_resnet_50) and the programs
# of examples/: for each at -O0 and at -O2 (issue 15: -O2 never slower),
#   - the whole-process wall time of `tpurun MODEL --input=random...`
#     (what a user feels): cold, compiling (`--no-cache`), and warm, loading
#     the bytecode from a compilation cache filled by an untimed run first
#     (a private `--cache-dir`); medians of BENCH_REPEAT runs, the levels
#     interleaved so machine noise hits both alike;
#   - the compute alone: `tpurun --benchmark=N` (the median of N runs of
#     @main after a warm-up run, inputs in memory), MODELS_ROUNDS processes
#     per level, interleaved, the median of their medians; with the default
#     threads (one per core) and with --threads=1;
#   - the modeled HBM bytes and time of `tpucc --report`.
# Ratios are -O0 / -O2: > 1 means -O2 is better.  The goal of issue 15:
# searchless_chess_9m's whole process at -O2 at least 1.5x faster than -O0.
#
# Environment: BENCH_REPEAT (whole-process runs per level, default 5),
# MODELS_ROUNDS (--benchmark processes per level, default 3), MODELS_RUNS
# (N of --benchmark, default 5).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/lib.sh"
BUILD=${1:?usage: bench/models.sh BUILD_DIR}
ROOT=$(cd "$HERE/.." && pwd)
CONF=${TPU_CONFORMANCE_DIR:-$ROOT/../shared/conformance}
MODELS=${TPU_MODELS_DIR:-$(dirname "$CONF")/models}
ROUNDS=${MODELS_ROUNDS:-3}
RUNS=${MODELS_RUNS:-5}
shopt -s nullglob
models=("$MODELS"/*.mlir "$ROOT"/examples/*.mlir)
[ ${#models[@]} -gt 0 ] || { echo "skipped: no models in $MODELS"; exit 0; }

# From the report's last line "total: modeled T us, F FLOPs, B HBM bytes, ...":
report_us() { sed -n 's/^total: modeled \([0-9.]*\) us.*/\1/p' "$1"; }
report_bytes() { sed -n 's/^total: .*, \([0-9]*\) HBM bytes.*/\1/p' "$1"; }
median_of() { sort -g "$1" | awk '{ a[NR] = $1 } END { if (NR) print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
# verdict RATIO GOAL: "met" or "NOT met" (RATIO >= GOAL).
verdict() { awk -v r="$1" -v g="$2" 'BEGIN { print (r != "n/a" && r + 0 >= g) ? "met" : "NOT met" }'; }

echo "models: $MODELS; $BENCH_REPEAT whole-process runs per level (median), $ROUNDS processes of --benchmark=$RUNS per level;" \
  "load average $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
echo "  cold:    tpurun -OL --no-cache MODEL --input=random... --output=@OUT.npy"
echo "  warm:    tpurun -OL --cache-dir=TMP MODEL --input=random... --output=@OUT.npy   (after one untimed run)"
echo "  compute: tpurun -OL --cache-dir=TMP --benchmark=$RUNS MODEL --input=random...    (median of the runs; median over processes)"
echo "  1thr:    the same with --threads=1 (the default is one per core)"
echo "  report:  tpucc -OL --report MODEL"
printf '%-22s %9s %9s %6s %9s %9s %6s %11s %11s %6s %11s %11s %6s\n' model "O0 cold s" "O2 cold s" ratio "O0 warm s" "O2 warm s" ratio \
  "O0 comp ms" "O2 comp ms" ratio "O0 1thr ms" "O2 1thr ms" ratio
lines=()
modeled=()
for m in "${models[@]}"; do
  name=$(basename "$m" .mlir)
  # The canonical print names every parameter %argN on one line.
  sig=$("$BUILD/tpucc" -O0 --emit=mlir "$m" 2>/dev/null | grep -m1 'func.func public @main')
  nin=$(grep -o '%arg[0-9]*:' <<<"$sig" | wc -l)
  ins=(); for ((i = 0; i < nin; i++)); do ins+=(--input=random); done
  cache="$BENCH_TMP/cache"
  for o in O0 O2; do
    : >"$BENCH_TMP/cold.$o"; : >"$BENCH_TMP/warm.$o"; : >"$BENCH_TMP/comp.$o"; : >"$BENCH_TMP/comp1.$o"
    "$BUILD/tpurun" "-$o" --cache-dir="$cache" "$m" "${ins[@]}" --output=@"$BENCH_TMP/out.npy" >/dev/null 2>&1 \
      || { echo "bench: tpurun -$o $m failed" >&2; exit 1; }
  done
  for ((r = 0; r < BENCH_REPEAT; r++)); do
    for o in O0 O2; do
      bench_measure "$BENCH_TMP/cold.$o" "$name -$o cold" "$BUILD/tpurun" "-$o" --no-cache "$m" "${ins[@]}" --output=@"$BENCH_TMP/out.npy" || exit 1
      bench_measure "$BENCH_TMP/warm.$o" "$name -$o warm" "$BUILD/tpurun" "-$o" --cache-dir="$cache" "$m" "${ins[@]}" --output=@"$BENCH_TMP/out.npy" || exit 1
    done
  done
  for ((r = 0; r < ROUNDS; r++)); do
    for o in O0 O2; do
      line=$("$BUILD/tpurun" "-$o" --cache-dir="$cache" --benchmark="$RUNS" "$m" "${ins[@]}" 2>"$BENCH_TMP/err" | grep '^benchmark:')
      [ -n "$line" ] || { echo "bench: tpurun -$o --benchmark $m failed:" >&2; head -c 4000 "$BENCH_TMP/err" >&2; exit 1; }
      sed -n 's/.*median \([0-9.]*\) ms.*/\1/p' <<<"$line" >>"$BENCH_TMP/comp.$o"
      line=$("$BUILD/tpurun" "-$o" --threads=1 --cache-dir="$cache" --benchmark="$RUNS" "$m" "${ins[@]}" 2>"$BENCH_TMP/err" | grep '^benchmark:')
      [ -n "$line" ] || { echo "bench: tpurun -$o --threads=1 --benchmark $m failed:" >&2; head -c 4000 "$BENCH_TMP/err" >&2; exit 1; }
      sed -n 's/.*median \([0-9.]*\) ms.*/\1/p' <<<"$line" >>"$BENCH_TMP/comp1.$o"
    done
  done
  read -r c0 _ < <(bench_stats "$BENCH_TMP/cold.O0")
  read -r c2 _ < <(bench_stats "$BENCH_TMP/cold.O2")
  read -r w0 _ < <(bench_stats "$BENCH_TMP/warm.O0")
  read -r w2 _ < <(bench_stats "$BENCH_TMP/warm.O2")
  p0=$(median_of "$BENCH_TMP/comp.O0") p2=$(median_of "$BENCH_TMP/comp.O2")
  q0=$(median_of "$BENCH_TMP/comp1.O0") q2=$(median_of "$BENCH_TMP/comp1.O2")
  rc=$(bench_ratio "$c0" "$c2") rw=$(bench_ratio "$w0" "$w2") rp=$(bench_ratio "$p0" "$p2") rq=$(bench_ratio "$q0" "$q2")
  printf '%-22s %9s %9s %6s %9s %9s %6s %11s %11s %6s %11s %11s %6s\n' "$name" "$c0" "$c2" "$rc" "$w0" "$w2" "$rw" \
    "$p0" "$p2" "$rp" "$q0" "$q2" "$rq"
  goal=""
  [ "$name" = searchless_chess_9m ] && goal=" (goal >= 1.5: cold $(verdict "$rc" 1.5), warm $(verdict "$rw" 1.5))"
  lines+=("$name: whole process -O0/-O2 ${rc}x cold, ${rw}x warm$goal; compute alone -O0/-O2 ${rp}x, at one thread ${rq}x")

  "$BUILD/tpucc" -O0 --report "$m" >"$BENCH_TMP/r0" 2>/dev/null || { echo "bench: tpucc --report failed on $m" >&2; exit 1; }
  "$BUILD/tpucc" -O2 --report "$m" >"$BENCH_TMP/r2" 2>/dev/null || { echo "bench: tpucc --report failed on $m" >&2; exit 1; }
  b0=$(report_bytes "$BENCH_TMP/r0") b2=$(report_bytes "$BENCH_TMP/r2")
  t0=$(report_us "$BENCH_TMP/r0") t2=$(report_us "$BENCH_TMP/r2")
  modeled+=("$(printf '%-22s %14s %14s %7s %12s %12s %7s' "$name" "${b0:-?}" "${b2:-?}" "$(bench_ratio "${b0:-0}" "${b2:-0}")" \
    "${t0:-?}" "${t2:-?}" "$(bench_ratio "${t0:-0}" "${t2:-0}")")")
done
echo "(load average after: $(cut -d' ' -f1-3 /proc/loadavg))"
echo
printf '%-22s %14s %14s %7s %12s %12s %7s\n' model "O0 HBM bytes" "O2 HBM bytes" ratio "O0 model us" "O2 model us" ratio
printf '%s\n' "${modeled[@]}"
echo
printf '%s\n' "${lines[@]}"
exit 0
