#!/usr/bin/env bash
# bench/gemm.sh BUILD_DIR — matrix multiply at the machine's limits, in one
# run, with --threads=T for T = 2 and 1 (OPENBLAS_NUM_THREADS=T for NumPy):
#   f32:    dot_general 256^3, 1024^3, 2048^3 (-O0) and mxu_dot 1024^3
#           (-O2's schedule) against NumPy a @ b (OpenBLAS);
#   skinny: M = 1, 7, 16 rows against a weight K=768 x N=3072 and
#           K=3072 x N=768, stored [K,N] and [N,K] (PyTorch's Linear:
#           contracting dims [1] x [1]), against the memory bound: the
#           weight's bytes over NumPy's np.copyto bandwidth for a buffer
#           of that size (ratio = bound / tpurun time; NumPy's a @ w shown);
#   bf16, int8: bf16 x bf16 -> f32 and i8 x i8 -> i32 at 1024^3 and
#           2048^3, GFLOP/s against our own f32 dot_general of the size.
# Times are medians: tpurun --benchmark=N, NumPy N runs of the expression.
# tpurun runs with OPENBLAS_NUM_THREADS=1: the VM never uses OpenBLAS's own
# threads, which would otherwise spin on a core for the first ~70 ms.
set -u
BUILD=${1:?usage: bench/gemm.sh BUILD_DIR}
TPURUN="$BUILD/tpurun"
PY=/usr/bin/python3
N=${BENCH_REPEAT:-5}
[ -x "$TPURUN" ] || { echo "bench: $TPURUN not built (run make)" >&2; exit 1; }
"$PY" -c 'import numpy' 2>/dev/null || { echo "bench: python3-numpy missing" >&2; exit 1; }
dir="$BUILD/bench/gemm"
mkdir -p "$dir"

# dot NAME M N K ELEM OUT [nk]: @main(a: MxK, b: KxN or NxK) -> MxN.
dot() {
  local name=$1 m=$2 n=$3 k=$4 e=$5 o=$6 bt="${4}x${3}" dims="[1] x [0]"
  [ "${7:-}" = nk ] && bt="${3}x${4}" dims="[1] x [1]"
  cat > "$dir/$name.mlir" <<MLIR
func.func @main(%a: tensor<${m}x${k}x$e>, %b: tensor<${bt}x$e>) -> tensor<${m}x${n}x$o> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = $dims : (tensor<${m}x${k}x$e>, tensor<${bt}x$e>) -> tensor<${m}x${n}x$o>
  return %0 : tensor<${m}x${n}x$o>
}
MLIR
}
for s in 256 1024 2048; do dot "f32_$s" $s $s $s f32 f32; done
for s in 1024 2048; do
  dot "bf16_$s" $s $s $s bf16 f32
  dot "int8_$s" $s $s $s i8 i32
done
SKINNY=()
for m in 1 7 16; do
  for kn in 768x3072 3072x768; do
    for l in kn nk; do
      dot "skinny_${m}_${kn}_$l" "$m" "${kn#*x}" "${kn%x*}" f32 f32 "$l"
      SKINNY+=("skinny_${m}_${kn}_$l")
    done
  done
done

# tpurun_ms NAME THREADS [OPTIONS...]: median ms of @main over N runs
# (10 N for the sub-millisecond cases: 256^3 and the batch-1 shapes, where
# a thread's wake-up in one run moves a 5-run median).
tpurun_ms() {
  local name=$1 t=$2 runs=$N
  shift 2
  case $name in f32_256 | [0-9]*_*) runs=$((N * 10)) ;; esac
  OPENBLAS_NUM_THREADS=1 "$TPURUN" "$dir/$name.mlir" --threads="$t" "$@" --input=random:1 --input=random:2 --benchmark="$runs" \
    >"$dir/$name.out" 2>&1 || { cat "$dir/$name.out" >&2; return 1; }
  sed -n 's/^benchmark: .* median \([0-9.]*\) ms.*/\1/p' "$dir/$name.out"
}

# numpy_ms THREADS: "NAME MS" lines for the f32 cubes, the skinny shapes
# (a @ w) and "copy_KxN MS" for np.copyto of a weight-sized buffer.
numpy_ms() {
  OPENBLAS_NUM_THREADS=$1 "$PY" - "$N" <<'PY'
import sys, time, numpy as np
n = int(sys.argv[1])
rng = np.random.default_rng(0)
def med(f):
    f(); ts = []
    for _ in range(n):
        t0 = time.perf_counter(); f(); ts.append(time.perf_counter() - t0)
    ts.sort(); return ts[len(ts) // 2] * 1e3
for s in (256, 1024, 2048):
    a = rng.uniform(-1, 1, (s, s)).astype(np.float32); b = rng.uniform(-1, 1, (s, s)).astype(np.float32)
    print("f32_%d %.3f" % (s, med(lambda: a @ b)))
for k, nn in ((768, 3072), (3072, 768)):
    w = rng.uniform(-1, 1, (k, nn)).astype(np.float32); wt = np.ascontiguousarray(w.T); dst = np.empty_like(w)
    print("copy_%dx%d %.3f" % (k, nn, med(lambda: np.copyto(dst, w))))
    for m in (1, 7, 16):
        x = rng.uniform(-1, 1, (m, k)).astype(np.float32)
        print("skinny_%d_%dx%d_kn %.3f" % (m, k, nn, med(lambda: x @ w)))
        print("skinny_%d_%dx%d_nk %.3f" % (m, k, nn, med(lambda: x @ wt.T)))
PY
}

status=0
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "n/a" }'; }
gflops() { awk -v m="$1" -v n="$2" -v k="$3" -v t="$4" 'BEGIN { if (t > 0) printf "%.1f", 2 * m * n * k / t / 1e6; else print "n/a" }'; }
for T in 2 1; do
  np_out=$(numpy_ms "$T") || { status=1; continue; }
  peer() { awk -v k="$1" '$1 == k { print $2 }' <<<"$np_out"; }
  echo "-- threads $T (OPENBLAS_NUM_THREADS=$T for NumPy)"
  printf '%-28s %10s %10s %8s %9s\n' case "tpurun ms" "peer ms" ratio "GFLOP/s"
  declare -A f32ms=()
  for s in 256 1024 2048; do
    t=$(tpurun_ms "f32_$s" "$T" -O0) || { status=1; continue; }
    f32ms[$s]=$t
    p=$(peer "f32_$s")
    printf '%-28s %10s %10s %8s %9s\n' "f32 dot_general ${s}^3" "$t" "$p" "$(ratio "$p" "$t")" "$(gflops $s $s $s "$t")"
  done
  t=$(tpurun_ms f32_1024 "$T" -O2) && p=$(peer f32_1024) &&
    printf '%-28s %10s %10s %8s %9s\n' "f32 mxu_dot 1024^3 (-O2)" "$t" "$p" "$(ratio "$p" "$t")" "$(gflops 1024 1024 1024 "$t")" ||
    status=1
  for kind in bf16 int8; do
    for s in 1024 2048; do
      t=$(tpurun_ms "${kind}_$s" "$T" -O0) || { status=1; continue; }
      f=${f32ms[$s]:-0}
      printf '%-28s %10s %10s %8s %9s\n' "$kind dot_general ${s}^3" "$t" "$f (f32)" "$(ratio "$f" "$t")" \
        "$(gflops $s $s $s "$t")"
    done
  done
  printf '%-28s %10s %10s %8s %9s\n' "skinny (peer: copy bound)" "tpurun ms" "bound ms" ratio "numpy ms"
  for name in "${SKINNY[@]}"; do
    t=$(tpurun_ms "$name" "$T" -O0) || { status=1; continue; }
    rest=${name#skinny_*_}
    b=$(peer "copy_${rest%_*}")
    printf '%-28s %10s %10s %8s %9s\n' "${name#skinny_}" "$t" "$b" "$(ratio "$b" "$t")" "$(peer "$name")"
  done
done
echo "(ratio = peer time / tpurun time, > 1: tpurun faster; bf16/int8 ratios are f32 time / their time at the same"
echo " size; skinny names are M_KxN_layout, nk = weight stored [N,K]; medians of $N runs; numpy" \
  "$("$PY" -c 'import numpy; print(numpy.__version__)'); $(nproc) cores)"
exit $status
