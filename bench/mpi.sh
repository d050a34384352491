#!/usr/bin/env bash
# bench/mpi.sh BUILD_DIR — the 8-chip training step (examples/
# mlp_train_step_8chips.mlir at -O2, with its asynchronous all_reduces)
# simulated by one process and by P = 2 and 4 processes under Open MPI
# (docs/mpi.md), on this host.  Two figures per P, each the median of
# BENCH_REPEAT runs:
#   step  — `tpurun --benchmark=20`'s median wall time of one step (every
#           process runs its chips; the results are gathered each step);
#   job   — the whole `mpirun -np P tpurun ...` command: start-up, MPI's
#           initialisation, one step, the gather and MPI's finalisation.
# The peer is one process without mpirun, measured in the same run.  The
# results of every P are compared bitwise with one process's.
set -u
BUILD=${1:?usage: bench/mpi.sh BUILD_DIR}
TPURUN="$BUILD/tpurun"
TPUCC="$BUILD/tpucc"
N=${BENCH_REPEAT:-5}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
command -v mpirun >/dev/null || { echo "mpi: skipped (no mpirun; install openmpi-bin)"; exit 0; }
[ -x "$TPURUN" ] || { echo "bench: $TPURUN not built (run make)" >&2; exit 1; }
dir="$BUILD/bench/mpi"
mkdir -p "$dir"
"$TPUCC" -O2 "$ROOT/examples/mlp_train_step_8chips.mlir" -o "$dir/step.tpub" || exit 1
inputs=()
for i in $(seq 0 9); do inputs+=("--input=random:$i"); done
MPIRUN=(mpirun --oversubscribe --allow-run-as-root)

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
now() { date +%s.%N; }

# run P ARGS...: one process when P is 0, else mpirun -np P.
run() {
  local p=$1
  shift
  if [ "$p" = 0 ]; then "$TPURUN" "$@"; else "${MPIRUN[@]}" -np "$p" "$TPURUN" "$@"; fi
}

declare -A step job
for p in 0 1 2 4; do
  steps=() jobs=()
  for ((r = 0; r < N; r++)); do
    s=$(run "$p" --replicas=8 "$dir/step.tpub" "${inputs[@]}" --benchmark=20 2>&1 |
      sed -n 's/^benchmark: .* median \([0-9.]*\) ms.*/\1/p')
    [ -n "$s" ] || { echo "bench: P=$p --benchmark failed" >&2; exit 1; }
    steps+=("$s")
    t0=$(now)
    run "$p" --replicas=8 "$dir/step.tpub" "${inputs[@]}" --output=@"$dir/r$p.npy" >/dev/null 2>&1 ||
      { echo "bench: P=$p run failed" >&2; exit 1; }
    jobs+=("$(echo "$(now) - $t0" | bc -l)")
  done
  step[$p]=$(printf '%s\n' "${steps[@]}" | median)
  job[$p]=$(printf '%s\n' "${jobs[@]}" | median)
  [ "$p" = 0 ] || cmp -s "$dir/r0.npy" "$dir/r$p.npy" || { echo "bench: P=$p results differ from one process's" >&2; exit 1; }
done

printf '%-34s %12s %12s %14s\n' "8-chip training step" "step ms" "job s" "step vs 1 proc"
printf '%-34s %12.3f %12.3f %14s\n' "one process (no mpirun)" "${step[0]}" "${job[0]}" "1.00x"
for p in 1 2 4; do
  printf '%-34s %12.3f %12.3f %13.2fx\n' "mpirun -np $p" "${step[$p]}" "${job[$p]}" \
    "$(echo "${step[0]} / ${step[$p]}" | bc -l)"
done
echo "results: P = 1, 2, 4 bitwise equal to one process"
