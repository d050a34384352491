#!/usr/bin/env bash
# bench/vm.sh BUILD_DIR — the VM's array-at-a-time kernels against NumPy
# (OpenBLAS for the matmul), measured in the same run on the same machine:
#   chain:  five f32 element-wise ops (multiply, add, maximum, multiply,
#           subtract) over 2^24 elements, unfused in both (tpurun at -O0);
#   fused chain: the same chain as one tpu.fusion, run tile by tile on
#           host threads (the -O2 build of chain.mlir once the fusion pass
#           fuses it, else a hand-written tpu.fusion of it), against
#           NumPy's unfused evaluation, with --threads default and 1;
#   matmul: a 1024x1024x1024 f32 dot_general (-O0: one thread), and the
#           same with a hand-written tpu.mxu_tile schedule (mxu_dot, on
#           every core and on one), against OpenBLAS on every core and on one.
# Both sides time the computation only (inputs already in memory): tpurun
# with --benchmark=N (median of N runs after a warm-up), NumPy with the
# median of N runs of the same expression.  Ratios > 1 mean tpurun is faster.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=${1:?usage: bench/vm.sh BUILD_DIR}
TPURUN="$BUILD/tpurun"
PY=/usr/bin/python3
N=${BENCH_REPEAT:-5}
[ -x "$TPURUN" ] || { echo "bench: $TPURUN not built (run make)" >&2; exit 1; }
"$PY" -c 'import numpy' 2>/dev/null || { echo "bench: python3-numpy missing" >&2; exit 1; }
dir="$BUILD/bench"
mkdir -p "$dir"

cat > "$dir/chain.mlir" <<'MLIR'
func.func @main(%x: tensor<16777216xf32>, %y: tensor<16777216xf32>) -> tensor<16777216xf32> {
  %0 = stablehlo.multiply %x, %y : tensor<16777216xf32>
  %1 = stablehlo.add %0, %x : tensor<16777216xf32>
  %2 = stablehlo.maximum %1, %y : tensor<16777216xf32>
  %3 = stablehlo.multiply %2, %2 : tensor<16777216xf32>
  %4 = stablehlo.subtract %3, %x : tensor<16777216xf32>
  return %4 : tensor<16777216xf32>
}
MLIR
cat > "$dir/chain_fused.mlir" <<'MLIR'
func.func @main(%x: tensor<16777216xf32>, %y: tensor<16777216xf32>) -> tensor<16777216xf32> {
  %r = "tpu.fusion"(%x, %y) ({
  ^bb0(%a: tensor<16777216xf32>, %b: tensor<16777216xf32>):
    %0 = stablehlo.multiply %a, %b : tensor<16777216xf32>
    %1 = stablehlo.add %0, %a : tensor<16777216xf32>
    %2 = stablehlo.maximum %1, %b : tensor<16777216xf32>
    %3 = stablehlo.multiply %2, %2 : tensor<16777216xf32>
    %4 = stablehlo.subtract %3, %a : tensor<16777216xf32>
    "tpu.yield"(%4) : (tensor<16777216xf32>) -> ()
  }) {kind = "loop"} : (tensor<16777216xf32>, tensor<16777216xf32>) -> tensor<16777216xf32>
  return %r : tensor<16777216xf32>
}
MLIR
cat > "$dir/matmul.mlir" <<'MLIR'
func.func @main(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %0 : tensor<1024x1024xf32>
}
MLIR
cat > "$dir/matmul_mxu.mlir" <<'MLIR'
func.func @main(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] {tpu.mxu_tile = array<i64: 512, 512, 256>, tpu.mxu_pad = array<i64: 1024, 1024, 1024>} : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %0 : tensor<1024x1024xf32>
}
MLIR

# tpurun_ms NAME [TPURUN OPTIONS...]: median ms of @main over N runs.
tpurun_ms() {
  local name=$1
  shift
  "$TPURUN" "$dir/$name.mlir" "$@" --input=random:1 --input=random:2 --benchmark="$N" >"$dir/$name.out" 2>&1 ||
    { cat "$dir/$name.out" >&2; return 1; }
  sed -n 's/^benchmark: .* median \([0-9.]*\) ms.*/\1/p' "$dir/$name.out"
}

numpy_ms() {
  OPENBLAS_NUM_THREADS=${2:-} "$PY" - "$1" "$N" <<'PY'
import sys, time, numpy as np
which, n = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng(0)
if which == "chain":
    x = rng.uniform(-1, 1, 1 << 24).astype(np.float32); y = rng.uniform(-1, 1, 1 << 24).astype(np.float32)
    def f():
        t = np.maximum(x * y + x, y)
        return t * t - x
else:
    a = rng.uniform(-1, 1, (1024, 1024)).astype(np.float32); b = rng.uniform(-1, 1, (1024, 1024)).astype(np.float32)
    f = lambda: a @ b
f()
ts = []
for _ in range(n):
    t0 = time.perf_counter(); f(); ts.append(time.perf_counter() - t0)
ts.sort()
print("%.3f" % (ts[len(ts) // 2] * 1e3))
PY
}

printf '%-22s %12s %12s %8s\n' bench "tpurun ms" "numpy ms" "ratio"
status=0
row() { # NAME TPURUN_MS NUMPY_MS
  local r; r=$(awk -v a="$3" -v b="$2" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "n/a" }')
  printf '%-22s %12s %12s %8s\n' "$1" "$2" "$3" "$r"
}
t=$(tpurun_ms chain -O0) && p=$(numpy_ms chain) && row "chain (5 ops, 2^24)" "$t" "$p" || status=1
# The fused chain: -O2's own fusion when the fusion pass forms one.
TPUCC="$BUILD/tpucc"
if "$TPUCC" -O2 --emit=mlir "$dir/chain.mlir" 2>/dev/null | grep -q 'tpu.fusion'; then
  fused=(chain -O2)
  how="chain.mlir at -O2"
else
  fused=(chain_fused)
  how="hand-written tpu.fusion"
fi
fused_row() { # LABEL TPURUN_MS NUMPY_MS
  local r; r=$(awk -v a="$3" -v b="$2" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "n/a" }')
  printf '%s: tpurun %s ms, NumPy %s ms, ratio %s\n' "$1" "$2" "$3" "$r"
}
fused_lines=()
if p=$(numpy_ms chain); then
  t=$(tpurun_ms "${fused[@]}") && fused_lines+=("$(fused_row "fused chain" "$t" "$p")") || status=1
  t=$(tpurun_ms "${fused[@]}" --threads=1) && fused_lines+=("$(fused_row "fused chain, --threads=1" "$t" "$p")") ||
    status=1
else
  status=1
fi
# dot_general (-O0) runs on one thread; OpenBLAS uses every core unless told.
# mxu_dot (-O0 keeps the hand-written schedule) uses --threads (default: one
# per core).
t=$(tpurun_ms matmul -O0) || status=1
p=$(numpy_ms matmul) && row "matmul 1024^3" "$t" "$p" || status=1
p1=$(numpy_ms matmul 1) && row "matmul, BLAS 1 thread" "$t" "$p1" || status=1
t=$(tpurun_ms matmul_mxu -O0) && row "mxu_dot 1024^3" "$t" "$p" || status=1
t=$(tpurun_ms matmul_mxu -O0 --threads=1) && row "mxu_dot, both 1 thread" "$t" "$p1" || status=1
for l in "${fused_lines[@]}"; do echo "$l"; done
echo "(fused chain: $how; tpurun --threads default is one per core: $(nproc))"
echo "(ratio = numpy time / tpurun time; medians of $N runs; numpy $("$PY" -c 'import numpy; print(numpy.__version__)'), single process each)"
exit $status
