#!/usr/bin/env bash
# bench/torch_bridge.sh BUILD_DIR — BERT-base driven from PyTorch through
# tpurun.torch (bench/torch_bridge.py): Fused against Strict Eager, and
# Fused against PyTorch CPU eager, at batch 8 x 128 tokens (issue 19's
# targets: Fused >= 2x Strict, Fused >= 1.5x faster than PyTorch), then the
# per-op host overhead of each mode from Python.
#
# Each tool runs in its own process, TB_ROUNDS rounds interleaved; a
# process prints the median of TB_RUNS forwards after two warm-ups; the
# table shows the median over rounds.  tpurun.torch runs at PyTorch's
# float32 matmul precision "highest" (exact f32, PyTorch CPU's arithmetic)
# and "medium" (torch.set_float32_matmul_precision: float32 matmuls in
# bfloat16 internally, a TPU's DEFAULT precision); PyTorch's CPU kernels
# compute f32 at either.  Every tpurun result is checked allclose to
# PyTorch's (rtol = atol = 1e-3 at highest, 5e-2 at medium).
#
# Environment: TB_SIZES (default "8x128"), TB_LAYERS (default 12),
# TB_ROUNDS (default 3), TB_RUNS (default 5), TB_OPS (overhead ops, 20000).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=$(cd "${1:?usage: bench/torch_bridge.sh BUILD_DIR}" && pwd)
PY=/usr/bin/python3
SIZES=${TB_SIZES:-8x128}
LAYERS=${TB_LAYERS:-12}
ROUNDS=${TB_ROUNDS:-3}
RUNS=${TB_RUNS:-5}
OPS=${TB_OPS:-20000}
[ -f "$BUILD/libtpurun.so" ] || { echo "bench: $BUILD/libtpurun.so not built (run make)" >&2; exit 1; }
"$PY" -c 'import torch, numpy' 2>/dev/null || { echo "skipped: $PY cannot import torch and numpy (apt-get install python3-torch)"; exit 0; }
export TPURUN_LIBRARY=$BUILD/libtpurun.so
# The bridge's compiles go to a cache of the benchmark's own, emptied first.
export TPU_CACHE_DIR=$BUILD/bench/torch_bridge/cache
DIR=$BUILD/bench/torch_bridge
rm -rf "$DIR" && mkdir -p "$DIR" || exit 1

median_of() { sort -g "$1" | awk '{ a[NR] = $1 } END { if (NR) print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
met() { awk -v r="$1" -v t="$2" 'BEGIN { print (r >= t) ? "met" : "NOT met" }'; }

echo "torch_bridge: BERT-base encoder ($LAYERS layers, hidden 768, 12 heads), f32, from PyTorch $("$PY" -c 'import torch; print(torch.__version__)')"
status=0
for size in $SIZES; do
  b=${size%x*} s=${size#*x}
  echo "batch $b x $s tokens ($RUNS timed forwards per process, $ROUNDS rounds; load average $(cut -d' ' -f1-3 /proc/loadavg) before)"
  configs=("torch highest" "strict highest" "fused highest" "strict medium" "fused medium")
  for r in $(seq "$ROUNDS"); do
    for c in "${configs[@]}"; do
      read -r tool prec <<<"$c"
      out=$DIR/$tool-$prec-$size.npy
      "$PY" "$HERE/torch_bridge.py" forward --tool "$tool" --precision "$prec" --batch "$b" --seq "$s" \
        --layers "$LAYERS" --repeat "$RUNS" --out "$out" >"$DIR/$tool-$prec-$size.$r.log" 2>&1 ||
        { echo "  $tool ($prec) failed:"; tail -n 15 "$DIR/$tool-$prec-$size.$r.log" | sed 's/^/    /'; status=1; continue; }
      sed -n 's/.*median \([0-9.]*\) ms.*/\1/p' "$DIR/$tool-$prec-$size.$r.log" >>"$DIR/$tool-$prec-$size.ms"
    done
  done
  printf '  %-24s %12s  %s\n' "tool (matmul precision)" "median ms" "last process"
  declare -A med=()
  for c in "${configs[@]}"; do
    read -r tool prec <<<"$c"
    [ -s "$DIR/$tool-$prec-$size.ms" ] || continue
    med[$tool-$prec]=$(median_of "$DIR/$tool-$prec-$size.ms")
    printf '  %-24s %12.1f  %s\n' "$tool ($prec)" "${med[$tool-$prec]}" \
      "$(sed -n 's/.*over [0-9]* runs (\(.*\))/\1/p' "$(ls "$DIR/$tool-$prec-$size".*.log | tail -n 1)")"
  done
  for prec in highest medium; do
    tol=1e-3; [ "$prec" = medium ] && tol=5e-2
    for tool in strict fused; do
      [ -f "$DIR/$tool-$prec-$size.npy" ] && [ -f "$DIR/torch-highest-$size.npy" ] || continue
      "$PY" -c "
import numpy as np, sys
a, b = np.load(sys.argv[1]), np.load(sys.argv[2])
ok = a.shape == b.shape and np.allclose(a, b, rtol=$tol, atol=$tol)
print('  compare %s (%s) with PyTorch: max abs diff %.3g, allclose(%s) %s' % (sys.argv[3], sys.argv[4], float(np.abs(a - b).max()), '$tol', 'ok' if ok else 'FAIL'))
sys.exit(0 if ok else 1)" "$DIR/$tool-$prec-$size.npy" "$DIR/torch-highest-$size.npy" "$tool" "$prec" || status=1
    done
    if [ -n "${med[fused-$prec]:-}" ] && [ -n "${med[strict-$prec]:-}" ]; then
      r=$(ratio "${med[strict-$prec]}" "${med[fused-$prec]}")
      echo "  $size ($prec): Fused is ${r}x faster than Strict (target >= 2: $(met "$r" 2))"
    fi
    if [ -n "${med[fused-$prec]:-}" ] && [ -n "${med[torch-highest]:-}" ]; then
      r=$(ratio "${med[torch-highest]}" "${med[fused-$prec]}")
      echo "  $size ($prec): Fused is ${r}x faster than PyTorch CPU eager (target >= 1.5: $(met "$r" 1.5))"
    fi
  done
  unset med
done

echo "per-op host overhead from Python ($OPS x 'x = x + y' on 8 floats):"
for tool in torch debug strict fused; do
  "$PY" "$HERE/torch_bridge.py" overhead --tool "$tool" --ops "$OPS" 2>&1 | sed 's/^/  /' || status=1
done
exit $status
