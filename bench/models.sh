#!/usr/bin/env bash
# bench/models.sh BUILD_DIR — the optimizer on the real model exports
# (../shared/models): for each model, the whole-process wall time of
# `tpurun MODEL --input=random...` at -O0 and at -O2 (compile + run, what a
# user feels; medians of BENCH_REPEAT runs, interleaved so machine noise hits
# both levels alike) and the modeled HBM bytes and time of `tpucc --report`
# at both levels.  Ratios > 1 mean -O2 is better.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/lib.sh"
BUILD=${1:?usage: bench/models.sh BUILD_DIR}
ROOT=$(cd "$HERE/.." && pwd)
CONF=${TPU_CONFORMANCE_DIR:-$ROOT/../shared/conformance}
MODELS=${TPU_MODELS_DIR:-$(dirname "$CONF")/models}
shopt -s nullglob
models=("$MODELS"/*.mlir)
[ ${#models[@]} -gt 0 ] || { echo "skipped: no models in $MODELS"; exit 0; }

# From the report's last line "total: modeled T us, F FLOPs, B HBM bytes, ...":
report_us() { sed -n 's/^total: modeled \([0-9.]*\) us.*/\1/p' "$1"; }
report_bytes() { sed -n 's/^total: .*, \([0-9]*\) HBM bytes.*/\1/p' "$1"; }

printf '%-22s %10s %10s %7s %14s %14s %7s %12s %12s\n' model "O0 wall s" "O2 wall s" ratio "O0 HBM bytes" "O2 HBM bytes" ratio "O0 model us" "O2 model us"
for m in "${models[@]}"; do
  name=$(basename "$m" .mlir)
  sig=$(grep -m1 'func.func public @main' "$m")
  nin=$(grep -o '%arg[0-9]*:' <<<"$sig" | wc -l)
  ins=(); for ((i = 0; i < nin; i++)); do ins+=(--input=random); done
  : >"$BENCH_TMP/O0" ; : >"$BENCH_TMP/O2"
  for ((r = 0; r < BENCH_REPEAT; r++)); do
    for o in O0 O2; do
      bench_measure "$BENCH_TMP/$o" "$name -$o" "$BUILD/tpurun" "-$o" "$m" "${ins[@]}" --output=@"$BENCH_TMP/out.npy" || exit 1
    done
  done
  read -r w0 _ < <(bench_stats "$BENCH_TMP/O0")
  read -r w2 _ < <(bench_stats "$BENCH_TMP/O2")
  "$BUILD/tpucc" -O0 --report "$m" >"$BENCH_TMP/r0" 2>/dev/null || { echo "bench: tpucc --report failed on $m" >&2; exit 1; }
  "$BUILD/tpucc" -O2 --report "$m" >"$BENCH_TMP/r2" 2>/dev/null || { echo "bench: tpucc --report failed on $m" >&2; exit 1; }
  b0=$(report_bytes "$BENCH_TMP/r0") b2=$(report_bytes "$BENCH_TMP/r2")
  t0=$(report_us "$BENCH_TMP/r0") t2=$(report_us "$BENCH_TMP/r2")
  printf '%-22s %10s %10s %7s %14s %14s %7s %12s %12s\n' "$name" "$w0" "$w2" "$(bench_ratio "$w0" "$w2")" \
    "${b0:-?}" "${b2:-?}" "$(bench_ratio "${b0:-0}" "${b2:-0}")" "${t0:-?}" "${t2:-?}"
done
