#!/usr/bin/env bash
# bench/run.sh BUILD_DIR — every benchmark, in order (`make bench`).
# Builds nothing: BUILD_DIR must hold the built tools.  Each benchmark is a
# script bench/NAME.sh BUILD_DIR that prints its own table and ratios and
# exits non-zero only when a tool fails.  See bench/README.md.
#
# Environment: BENCH_REPEAT (runs per tool, default 5), BENCH_OPS (size of
# the parser benchmark's module, default 100000), BENCH_SCALING_SIZES (op
# counts of the compile-scaling benchmark, default "1000 10000 100000").
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=${1:?usage: bench/run.sh BUILD_DIR}

# Add new benchmarks here as bench/NAME.sh.
BENCHES=(parser compile_scaling vm gemm models bert cache collectives spmd eager torch_bridge mpi)

failed=()
for b in "${BENCHES[@]}"; do
  echo "== $b"
  "$HERE/$b.sh" "$BUILD" || failed+=("$b")
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "bench: failed: ${failed[*]}" >&2
  exit 1
fi
