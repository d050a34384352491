#!/usr/bin/env bash
# libtpurun in an MPI job (docs/runtime.md, "In an MPI job"): BUILD/mpi_client
# (testsuite/runtime/mpi_client.c) under `mpirun -np 2` and `-np 4` creates a
# 4-chip client in every process, compiles a 4-chip all_reduce program
# through the API (and one with an unbounded dimension, compiled at its
# run) and checks every chip's results on every rank.
#   - a shared cache directory: rank 0 compiles each program once, rank 1
#     hits its entries; a second job hits on every rank;
#   - a directory per rank: rank 1's is filled from rank 0;
#   - a program the verifier rejects: every rank gets TPU_ERR_REJECTED with
#     rank 0's diagnostic;
#   - 3 processes for 4 chips: every rank's tpu_program_run says how to
#     choose the process count.
# Skipped when mpirun is missing.
source "$(dirname "$0")/lib.sh"
command -v mpirun >/dev/null || { echo "mpi_runtime: skipped (no mpirun)"; exit 0; }
CLIENT="$BUILD/mpi_client"
[ -x "$CLIENT" ] || fail "$CLIENT not built (make $CLIENT)"
unset TPU_CACHE_DIR

# mpi NP CMD...: CMD in NP processes, stdout in $TMP/out, stderr in $TMP/err.
mpi() {
  local np=$1; shift
  timeout 60 mpirun --oversubscribe --allow-run-as-root -np "$np" "$@" >"$TMP/out" 2>"$TMP/err"
}

# A shared directory: one compile in all, then disk hits everywhere.
mpi 2 "$CLIENT" "$TMP/shared" || fail "2 processes: exit $?: $(cat "$TMP/out" "$TMP/err")"
expect_in "$TMP/out" "rank 0: ok, compiles 2, disk hits 0, disk filled 0"
expect_in "$TMP/out" "rank 1: ok, compiles 0, disk hits 2, disk filled 0"
mpi 2 "$CLIENT" "$TMP/shared" || fail "2 processes, second job: exit $?: $(cat "$TMP/out" "$TMP/err")"
expect_in "$TMP/out" "rank 0: ok, compiles 0, disk hits 2, disk filled 0"
expect_in "$TMP/out" "rank 1: ok, compiles 0, disk hits 2, disk filled 0"
mpi 4 "$CLIENT" "$TMP/shared" || fail "4 processes: exit $?: $(cat "$TMP/out" "$TMP/err")"
[ "$(grep -c ': ok, compiles 0, disk hits 2,' "$TMP/out")" = 4 ] || fail "4 processes: $(cat "$TMP/out")"

# A directory per rank: rank 1's is filled from rank 0.
cat >"$TMP/per_rank.sh" <<SH
#!/bin/sh
exec "$CLIENT" "$TMP/c\$OMPI_COMM_WORLD_RANK" "\$@"
SH
chmod +x "$TMP/per_rank.sh"
mpi 2 "$TMP/per_rank.sh" || fail "per-rank dirs: exit $?: $(cat "$TMP/out" "$TMP/err")"
expect_in "$TMP/out" "rank 0: ok, compiles 2, disk hits 0, disk filled 0"
expect_in "$TMP/out" "rank 1: ok, compiles 0, disk hits 0, disk filled 2"
for e in "$TMP/c0/"*.tpuc; do
  cmp -s "$e" "$TMP/c1/$(basename "$e")" || fail "rank 1's $(basename "$e") differs from rank 0's"
done
# Rank 1's directory alone, outside mpirun: a hit.
expect_status 0 "$CLIENT" "$TMP/c1"
expect_in "$TMP/out" "rank 0: ok, compiles 0, disk hits 2, disk filled 0"

# A rejected program: every rank gets rank 0's diagnostic.
mpi 2 "$CLIENT" "$TMP/shared" bad || fail "rejected program: exit $?: $(cat "$TMP/out" "$TMP/err")"
expect_in "$TMP/out" "rank 0: rejected: program:2:26: error: use of undeclared SSA value name '%nope'"
expect_in "$TMP/out" "rank 1: rejected: program:2:26: error: use of undeclared SSA value name '%nope'"

# 3 processes cannot share 4 chips.
mpi 3 "$CLIENT" "$TMP/shared" && fail "3 processes for 4 chips succeeded: $(cat "$TMP/out")"
[ "$(grep -c 'tpu_program_run: 3 processes cannot share 4 chips evenly' "$TMP/out")" = 3 ] \
  || fail "3 processes: expected the share error on every rank: $(cat "$TMP/out" "$TMP/err")"
echo "mpi_runtime: ok"
