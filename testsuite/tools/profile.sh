#!/usr/bin/env bash
# tpurun --profile (vm/profile.h): after the results, a table on stdout with
# one row per top-level op of the entry function (measured host time,
# largest first) beside its modeled TPU cost from the COSTS section that
# tpucc writes, then the totals; with --benchmark, of the last run.
source "$(dirname "$0")/lib.sh"
TPURUN="$BUILD/tpurun"
cat > "$TMP/p.mlir" <<'MLIR'
func.func @main(%a: tensor<300x256xf32>, %b: tensor<256x512xf32>) -> tensor<300x512xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<300x256xf32>, tensor<256x512xf32>) -> tensor<300x512xf32>
  %1 = stablehlo.tanh %0 : tensor<300x512xf32>
  return %1 : tensor<300x512xf32>
}
MLIR
"$TPUCC" "$TMP/p.mlir" -o "$TMP/p.tpub" || fail "tpucc failed"
header="  host ms   model us  bound  MXU%    GFLOP    HBM MB  op (location)"

# check_table FILE: the rows are sorted by host time, the total row sums
# them, and the dot's row (a dot_general, or the tpu.fusion that -O2 may
# make of it and the tanh) has numbers in its modeled columns.
check_table() {
  awk -v header="$header" '
    $0 == header { in_table = 1; next }
    in_table && / total$/ { total = $1; done = 1; next }
    in_table && !done {
      if (prev != "" && $1 > prev + 0) { print "rows not sorted: " $1 " after " prev; bad = 1 }
      prev = $1; sum += $1; rows++
      if ($0 ~ /(stablehlo\.dot_general|tpu\.fusion(\(output\))?) \(.*p\.mlir:[23]:8\)$/) {
        dot = 1
        if ($2 !~ /^[0-9.]+$/ || $4 !~ /^[0-9.]+$/ || $5 !~ /^[0-9.]+$/) { print "dot row without a model: " $0; bad = 1 }
      }
    }
    END {
      if (!in_table || !done) { print "no table or no total row"; exit 1 }
      if (!dot) { print "no row for the dot"; exit 1 }
      if (sum - total > 0.01 * rows || total - sum > 0.01 * rows) { print "total " total " is not the sum " sum; exit 1 }
      exit bad
    }' "$1" || fail "bad profile table in $(basename "$1"): $(sed -n '/^profile of/,$p' "$1")"
}

expect_status 0 "$TPURUN" "$TMP/p.tpub" --profile --input=random:1 --input=random:2
expect_in "$TMP/out" "profile of @main: host time of"
expect_in "$TMP/out" "modeled cost on v5e"
expect_in "$TMP/out" "$header"
check_table "$TMP/out"
# Results come first, then the table.
[ "$(grep -n '^result\[0\]:' "$TMP/out" | cut -d: -f1)" -lt "$(grep -n '^profile of' "$TMP/out" | cut -d: -f1)" ] ||
  fail "the table must follow the results"
# The same program compiled through tpurun, for another target.
expect_status 0 "$TPURUN" "$TMP/p.mlir" --target=v6e --profile --input=random:1 --input=random:2 --output=@"$TMP/o.npy"
expect_in "$TMP/out" "modeled cost on v6e"
check_table "$TMP/out"
# With --benchmark: the benchmark line, then the profile of the last run.
expect_status 0 "$TPURUN" "$TMP/p.tpub" --profile --benchmark=3 --input=random:1 --input=random:2
expect_in "$TMP/out" "benchmark: @main median"
check_table "$TMP/out"
# Without --profile: no table.
expect_status 0 "$TPURUN" "$TMP/p.tpub" --input=random:1 --input=random:2
grep -q "profile of" "$TMP/out" && fail "a table without --profile"
# --help documents it.
expect_status 0 "$TPURUN" --help
expect_in "$TMP/out" "--profile"
exit 0
