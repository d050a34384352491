#!/usr/bin/env bash
# Compile time grows linearly with the module (issue 12).  The SPMD passes
# too (issue 16): sharding-propagation and spmd-partition on the "sharded"
# layers (8 partitions) at 20,000 ops count at most 12 times their steps at
# 2,000.  For each shape of
# bench/gen_scaling.py (an element-wise chain, repeated model layers, a wide
# DAG with many users per value), the work the fusion pass counts
# (`--time-passes` prints "fusion (N steps)") at 20,000 ops is at most 12
# times the work at 2,000 ops (10 is linear; the old pass was n^3 on the
# chain and n^2 on the others).  No wall time is asserted: the timeout only
# keeps a regression from hanging `make check` (the old pass needed many
# minutes on the 20,000-op chain).  A long chain is split into fusions of at
# most 1024 ops.
source "$(dirname "$0")/lib.sh"
GEN="$ROOT/bench/gen_scaling.py"

fusion_steps() { # SHAPE N: the fusion pass's step count at -O2
  python3 "$GEN" "$1" "$2" "$TMP/$1-$2.mlir" || fail "gen_scaling.py $1 $2"
  timeout 60 "$TPUCC" --time-passes "$TMP/$1-$2.mlir" -o /dev/null 2> "$TMP/time"
  local st=$?
  [ $st -eq 0 ] || fail "$1 with $2 ops: tpucc exited $st (124: over the 60 s guard)"
  local n
  n=$(sed -n 's/.* fusion (\([0-9]*\) steps)$/\1/p' "$TMP/time")
  [ -n "$n" ] || fail "$1 with $2 ops: no 'fusion (N steps)' line in --time-passes: $(head -c 600 "$TMP/time")"
  echo "$n"
}

for shape in chain layers dag; do
  # fusion_steps runs in a subshell: its FAIL line comes back in the value.
  small=$(fusion_steps "$shape" 2000) || { echo "$small"; exit 1; }
  big=$(fusion_steps "$shape" 20000) || { echo "$big"; exit 1; }
  [ "$big" -le $((12 * small)) ] || fail "$shape: fusion did $small steps at 2000 ops but $big at 20000 (more than 12x)"
  echo "$shape: $small steps at 2000 ops, $big at 20000"
done

spmd_steps() { # N: the steps of sharding-propagation + spmd-partition at -O2
  python3 "$GEN" sharded "$1" "$TMP/sharded-$1.mlir" || fail "gen_scaling.py sharded $1"
  timeout 60 "$TPUCC" --time-passes "$TMP/sharded-$1.mlir" -o /dev/null 2> "$TMP/time" || fail "sharded with $1 ops: tpucc failed"
  local n
  n=$(sed -n 's/.* \(sharding-propagation\|spmd-partition\) (\([0-9]*\) steps)$/\2/p' "$TMP/time" | awk '{ s += $1 } END { if (NR) print s }')
  [ -n "$n" ] || fail "sharded with $1 ops: no spmd steps in --time-passes: $(head -c 600 "$TMP/time")"
  echo "$n"
}
small=$(spmd_steps 2000) || { echo "$small"; exit 1; }
big=$(spmd_steps 20000) || { echo "$big"; exit 1; }
[ "$big" -le $((12 * small)) ] || fail "sharded: the SPMD passes did $small steps at 2000 ops but $big at 20000 (more than 12x)"
echo "sharded: SPMD passes $small steps at 2000 ops, $big at 20000"

# The 20,000-op chain is split by the group-size bound: no fusion body holds
# more than 1024 ops (a body's ops are the lines between "tpu.fusion" and
# its tpu.yield).
"$TPUCC" --emit=mlir "$TMP/chain-20000.mlir" -o "$TMP/chain.out" || fail "chain: --emit=mlir failed"
awk '/"tpu.fusion"/ { n = 0; inside = 1; fusions++; next }
     inside && /^ *\^bb/ { next }
     inside && /tpu.yield/ { if (n > max) max = n; inside = 0; next }
     inside { n++ }
     END { print fusions, max }' "$TMP/chain.out" > "$TMP/sizes"
read -r fusions largest < "$TMP/sizes"
[ "${fusions:-0}" -ge 19 ] || fail "chain of 20000 ops: $fusions fusions, expected at least 19 of at most 1024 ops"
[ "${largest:-0}" -le 1024 ] || fail "chain of 20000 ops: a fusion of $largest ops (bound 1024)"
[ "${largest:-0}" -ge 1000 ] || fail "chain of 20000 ops: largest fusion only $largest ops"
echo "chain: $fusions fusions, the largest of $largest ops"
exit 0
