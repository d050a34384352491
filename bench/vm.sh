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
#           every core and on one), against OpenBLAS on every core and on one;
#   data movement and fusion, against the copy bandwidth of this machine
#           (NumPy's copyto of as many bytes, measured in the same run;
#           bytes read + bytes written on both sides): transposes (2-D and
#           attention's [B,S,H,D] <-> [B,H,S,D], f32 and bf16),
#           broadcast_in_dim (bias row, scalar, middle dim), a reshape copy,
#           an embedding gather ([30522,768] f32 table, 8192 token ids, as
#           PyTorch's nn.Embedding exports it), a dynamic_slice of rows, the
#           fused chain, and an output fusion (1024x768 @ 768x3072 + bias +
#           GELU (erf)) at -O2 against its unfused -O0 run.
# Both sides time the computation only (inputs already in memory): tpurun
# (--no-cache: compiled by this build, never an older cache entry) with
# --benchmark=N (median of N runs after a warm-up), NumPy with the
# median of N runs of the same expression.  Ratios > 1 mean tpurun is faster.
# tpurun runs with OPENBLAS_NUM_THREADS=1 (the VM never uses OpenBLAS's
# threads, which would otherwise spin on a core for the first ~70 ms).
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
  OPENBLAS_NUM_THREADS=1 "$TPURUN" --no-cache "$dir/$name.mlir" "$@" --input=random:1 --input=random:2 --benchmark="$N" >"$dir/$name.out" 2>&1 ||
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
# ---- data movement and fusion against the copy bandwidth ----------------
# mlir NAME TEXT: writes $dir/NAME.mlir.
mlir() { printf '%s\n' "$2" > "$dir/$1.mlir"; }
# One function @main of one op: mlir_op NAME ARGS RESULT OP.
mlir_op() { mlir "$1" "func.func @main($2) -> $3 {
  %r = $4
  return %r : $3
}"; }
mlir_op tr2d_f32 '%x: tensor<4096x4096xf32>' 'tensor<4096x4096xf32>' \
  'stablehlo.transpose %x, dims = [1, 0] : (tensor<4096x4096xf32>) -> tensor<4096x4096xf32>'
mlir_op tr2d_bf16 '%x: tensor<4096x4096xbf16>' 'tensor<4096x4096xbf16>' \
  'stablehlo.transpose %x, dims = [1, 0] : (tensor<4096x4096xbf16>) -> tensor<4096x4096xbf16>'
for t in f32 bf16; do
  mlir_op "bshd_$t" "%x: tensor<16x512x12x64x$t>" "tensor<16x12x512x64x$t>" \
    "stablehlo.transpose %x, dims = [0, 2, 1, 3] : (tensor<16x512x12x64x$t>) -> tensor<16x12x512x64x$t>"
  mlir_op "bhsd_$t" "%x: tensor<16x12x512x64x$t>" "tensor<16x512x12x64x$t>" \
    "stablehlo.transpose %x, dims = [0, 2, 1, 3] : (tensor<16x12x512x64x$t>) -> tensor<16x512x12x64x$t>"
done
mlir_op bc_row '%x: tensor<4096xf32>' 'tensor<4096x4096xf32>' \
  'stablehlo.broadcast_in_dim %x, dims = [1] : (tensor<4096xf32>) -> tensor<4096x4096xf32>'
mlir_op bc_scalar '%x: tensor<f32>' 'tensor<4096x4096xf32>' \
  'stablehlo.broadcast_in_dim %x, dims = [] : (tensor<f32>) -> tensor<4096x4096xf32>'
mlir_op bc_middle '%x: tensor<64x4096xf32>' 'tensor<64x64x4096xf32>' \
  'stablehlo.broadcast_in_dim %x, dims = [0, 2] : (tensor<64x4096xf32>) -> tensor<64x64x4096xf32>'
mlir_op reshape '%x: tensor<4096x4096xf32>' 'tensor<16777216xf32>' \
  'stablehlo.reshape %x : (tensor<4096x4096xf32>) -> tensor<16777216xf32>'
mlir_op embed '%w: tensor<30522x768xf32>, %i: tensor<8192x1xi32>' 'tensor<8192x768xf32>' \
  '"stablehlo.gather"(%w, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 768>}> : (tensor<30522x768xf32>, tensor<8192x1xi32>) -> tensor<8192x768xf32>'
mlir_op dslice '%w: tensor<30522x768xf32>, %s: tensor<i32>, %z: tensor<i32>' 'tensor<8192x768xf32>' \
  'stablehlo.dynamic_slice %w, %s, %z, sizes = [8192, 768] : (tensor<30522x768xf32>, tensor<i32>, tensor<i32>) -> tensor<8192x768xf32>'
mlir ffn 'func.func @main(%x: tensor<1024x768xf32>, %w: tensor<768x3072xf32>, %b: tensor<3072xf32>) -> tensor<1024x3072xf32> {
  %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<1024x768xf32>, tensor<768x3072xf32>) -> tensor<1024x3072xf32>
  %1 = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<3072xf32>) -> tensor<1024x3072xf32>
  %2 = stablehlo.add %0, %1 : tensor<1024x3072xf32>
  %h = stablehlo.constant dense<0.5> : tensor<1024x3072xf32>
  %s = stablehlo.constant dense<0.70710678> : tensor<1024x3072xf32>
  %o = stablehlo.constant dense<1.0> : tensor<1024x3072xf32>
  %3 = stablehlo.multiply %2, %s : tensor<1024x3072xf32>
  %4 = chlo.erf %3 : tensor<1024x3072xf32> -> tensor<1024x3072xf32>
  %5 = stablehlo.add %4, %o : tensor<1024x3072xf32>
  %6 = stablehlo.multiply %2, %h : tensor<1024x3072xf32>
  %7 = stablehlo.multiply %6, %5 : tensor<1024x3072xf32>
  return %7 : tensor<1024x3072xf32>
}'
"$PY" - "$dir" <<'PY'
import sys, numpy as np
rng = np.random.default_rng(3)
np.save(sys.argv[1] + "/ids.npy", rng.integers(0, 30522, (8192, 1), dtype=np.int32))
PY

# copy_gbs BYTES: NumPy copyto of BYTES (read + written) per second, GB/s.
copy_gbs() {
  "$PY" - "$1" "$N" <<'PY'
import sys, time, numpy as np
nbytes, n = int(sys.argv[1]) // 2, max(int(sys.argv[2]), 5)
a = np.ones(nbytes // 4, np.float32); b = np.empty_like(a)
np.copyto(b, a); ts = []
for _ in range(n):
    t0 = time.perf_counter(); np.copyto(b, a); ts.append(time.perf_counter() - t0)
ts.sort()
print("%.2f" % (2 * a.nbytes / ts[len(ts) // 2] / 1e9))
PY
}
# dm_row LABEL BYTES NAME [TPURUN OPTIONS...]: a kernel moving BYTES, and
# the copy bandwidth measured just before it (the machine may be shared).
dm_row() {
  local label=$1 bytes=$2 name=$3 t cgbs
  shift 3
  cgbs=$(copy_gbs "$bytes") || { status=1; return; }
  t=$(OPENBLAS_NUM_THREADS=1 "$TPURUN" --no-cache "$dir/$name.mlir" "$@" --benchmark="$N" 2>&1 | sed -n 's/^benchmark: .* median \([0-9.]*\) ms.*/\1/p')
  [ -n "$t" ] || { "$TPURUN" --no-cache "$dir/$name.mlir" "$@" --benchmark=1 >&2; status=1; return; }
  awk -v l="$label" -v b="$bytes" -v t="$t" -v c="$cgbs" 'BEGIN {
    if (t == 0) { printf "%-34s %10.3f %10s %10.1f %9s\n", l, t, "alias", c, "-"; exit }
    g = b / (t * 1e6); printf "%-34s %10.3f %10.1f %10.1f %8.2fx\n", l, t, g, c, g / c }'
}
MB=$((1 << 20))
echo
echo "data movement and fusion: GB/s = (bytes read + bytes written) / median time; copy = NumPy copyto, same bytes"
printf '%-34s %10s %10s %10s %9s\n' kernel "tpurun ms" "GB/s" "copy GB/s" "ratio"
R1=(--input=random:1)
dm_row "transpose 4096^2 f32" $((128 * MB)) tr2d_f32 -O0 "${R1[@]}"
dm_row "transpose 4096^2 bf16" $((64 * MB)) tr2d_bf16 -O0 "${R1[@]}"
dm_row "transpose BSHD->BHSD f32" $((48 * MB)) bshd_f32 -O0 "${R1[@]}"
dm_row "transpose BHSD->BSHD f32" $((48 * MB)) bhsd_f32 -O0 "${R1[@]}"
dm_row "transpose BSHD->BHSD bf16" $((24 * MB)) bshd_bf16 -O0 "${R1[@]}"
dm_row "transpose BHSD->BSHD bf16" $((24 * MB)) bhsd_bf16 -O0 "${R1[@]}"
dm_row "broadcast row 4096->4096^2" $((64 * MB + 16384)) bc_row -O0 "${R1[@]}"
dm_row "broadcast scalar->4096^2" $((64 * MB)) bc_scalar -O0 "${R1[@]}"
dm_row "broadcast middle 64x4096->64^2x4096" $((64 * MB + MB)) bc_middle -O0 "${R1[@]}"
dm_row "reshape copy 4096^2 f32" $((128 * MB)) reshape -O0 "${R1[@]}"
dm_row "gather 8192 rows of 30522x768" $((48 * MB + 32768)) embed -O0 "${R1[@]}" --input=@"$dir/ids.npy"
dm_row "dynamic_slice 8192 rows" $((48 * MB)) dslice -O0 "${R1[@]}" --input=i32=100 --input=i32=0
dm_row "fused chain 2^24 (-O2)" $((192 * MB)) chain -O2 "${R1[@]}" --input=random:2
dm_row "fused chain 2^24 (-O2, 1 thread)" $((192 * MB)) chain -O2 --threads=1 "${R1[@]}" --input=random:2
FFN=(--input=random:1 --input=random:2 --input=random:3)
# The bytes an output fusion must move: x, w, b read, the result written.
FFNB=$(((1024 * 768 + 768 * 3072 + 3072 + 1024 * 3072) * 4))
dm_row "dot+bias+GELU, unfused (-O0)" "$FFNB" ffn -O0 "${FFN[@]}"
dm_row "dot+bias+GELU, output fusion (-O2)" "$FFNB" ffn -O2 "${FFN[@]}"
t0=$(OPENBLAS_NUM_THREADS=1 "$TPURUN" --no-cache "$dir/ffn.mlir" -O0 "${FFN[@]}" --benchmark="$N" 2>&1 | sed -n 's/^benchmark: .* median \([0-9.]*\) ms.*/\1/p')
t2=$(OPENBLAS_NUM_THREADS=1 "$TPURUN" --no-cache "$dir/ffn.mlir" -O2 "${FFN[@]}" --benchmark="$N" 2>&1 | sed -n 's/^benchmark: .* median \([0-9.]*\) ms.*/\1/p')
t21=$(OPENBLAS_NUM_THREADS=1 "$TPURUN" --no-cache "$dir/ffn.mlir" -O2 --threads=1 "${FFN[@]}" --benchmark="$N" 2>&1 | sed -n 's/^benchmark: .* median \([0-9.]*\) ms.*/\1/p')
if [ -n "$t0" ] && [ -n "$t2" ] && [ -n "$t21" ]; then
  awk -v a="$t0" -v b="$t2" -v c="$t21" 'BEGIN { printf "output fusion 1024x768 @ 768x3072 + bias + GELU: -O0 (unfused) %.3f ms, -O2 (fused) %.3f ms (%.2fx), -O2 --threads=1 %.3f ms (%.2fx)\n", a, b, a / b, c, a / c }'
else
  status=1
fi
echo "(fused chain: $how; tpurun --threads default is one per core: $(nproc))"
echo "(ratio = numpy time / tpurun time; medians of $N runs; numpy $("$PY" -c 'import numpy; print(numpy.__version__)'), single process each)"
exit $status
