#!/usr/bin/env bash
# bench/collectives.sh BUILD_DIR — the simulated chips' collectives: an
# all_reduce (sum) of a 64 MiB f32 array (4096x4096) across 8 chips
# (`tpurun --replicas=8 --benchmark=N`, the median wall time of one run of
# @main on all 8 chips, inputs already in memory) against a plain memcpy of
# the same 64 MiB measured in the same run (NumPy's np.copyto, median of N
# copies after a warm-up).  The all_reduce reads 8 operands of 64 MiB and
# writes 8 results of 64 MiB, so 8 memcpys' worth of memory traffic is its
# floor on one host; the ratio says how far above that it is.  Also prints
# the modeled time of the all_reduce on the ICI of the target (tpurun
# --profile's row and its modeled step).
set -u
BUILD=${1:?usage: bench/collectives.sh BUILD_DIR}
TPURUN="$BUILD/tpurun"
PY=/usr/bin/python3
N=${BENCH_REPEAT:-5}
CHIPS=8
[ -x "$TPURUN" ] || { echo "bench: $TPURUN not built (run make)" >&2; exit 1; }
"$PY" -c 'import numpy' 2>/dev/null || { echo "bench: python3-numpy missing" >&2; exit 1; }
dir="$BUILD/bench"
mkdir -p "$dir"

cat >"$dir/all_reduce_64mib.mlir" <<'MLIR'
module @all_reduce_64mib attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 8 : i32} {
  func.func public @main(%x: tensor<4096x4096xf32>) -> tensor<4096x4096xf32> {
    %0 = "stablehlo.all_reduce"(%x) <{replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
    return %0 : tensor<4096x4096xf32>
  }
}
MLIR

# Every chip gets the same seeded operand (one input of the parameter's type).
cmd=("$TPURUN" --replicas="$CHIPS" "$dir/all_reduce_64mib.mlir" --input=random:1 --benchmark="$N" --profile)
echo "command: ${cmd[*]##*/}"
"${cmd[@]}" >"$dir/all_reduce_64mib.out" 2>&1 || {
  echo "bench: tpurun failed:" >&2
  cat "$dir/all_reduce_64mib.out" >&2
  exit 1
}
ar_ms=$(sed -n 's/^benchmark: .* median \([0-9.]*\) ms.*/\1/p' "$dir/all_reduce_64mib.out")
[ -n "$ar_ms" ] || { echo "bench: no benchmark line in tpurun's output:" >&2; cat "$dir/all_reduce_64mib.out" >&2; exit 1; }
# The profile row of the all_reduce: host ms, modeled us, bound, ...
model_us=$(awk '/stablehlo\.all_reduce \(/ { print $2; exit }' "$dir/all_reduce_64mib.out")
step=$(sed -n 's/^modeled step: //p' "$dir/all_reduce_64mib.out")

cp_ms=$("$PY" - "$N" <<'PY'
import sys, time
import numpy as np
n = int(sys.argv[1])
src = np.random.default_rng(1).uniform(-1, 1, (4096, 4096)).astype(np.float32)
dst = np.empty_like(src)
np.copyto(dst, src)
ts = []
for _ in range(n):
    t0 = time.perf_counter(); np.copyto(dst, src); ts.append(time.perf_counter() - t0)
ts.sort()
print("%.3f" % (ts[len(ts) // 2] * 1e3))
PY
) || { echo "bench: the NumPy memcpy failed" >&2; exit 1; }

printf '%-40s %12s\n' bench "median ms"
printf '%-40s %12s\n' "all_reduce 64 MiB f32, $CHIPS chips (tpurun)" "$ar_ms"
printf '%-40s %12s\n' "memcpy 64 MiB (numpy copyto)" "$cp_ms"
echo "all_reduce / memcpy: $(awk -v a="$ar_ms" -v b="$cp_ms" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "n/a" }')" \
  "(8 chips read 8 x 64 MiB and write 8 x 64 MiB: 8x is the memory-traffic floor)"
echo "modeled on v5e: all_reduce ${model_us:-n/a} us (cost model); timeline: ${step:-n/a}"
echo "(medians of $N runs; tpurun --threads default: one per core ($(nproc)); numpy $("$PY" -c 'import numpy; print(numpy.__version__)'), one thread)"
