#!/usr/bin/env bash
# Every dot_general of the conformance corpus, forced onto mxu_dot with a
# tiny schedule (tpu.mxu_tile = [2, 3, 4], so even small dots have several
# tiles and edge tiles), still passes its checks, on 1 and 2 host threads.
# The corpus covers the element types (ints of every width, unsigned,
# floats, bf16/f16, complex, mixed operand types) and dimension numbers
# that the golden tests (testsuite/golden/backend/mxu_exec.mlir) sample.
source "$(dirname "$0")/lib.sh"
TPURUN="$BUILD/tpurun"
CONF=${TPU_CONFORMANCE_DIR:-$ROOT/../shared/conformance}
shopt -s nullglob
files=($(grep -l 'stablehlo.dot_general' "$CONF"/stablehlo/testdata/*.mlir 2>/dev/null))
[ ${#files[@]} -gt 0 ] || { echo "skipped: no corpus in $CONF"; exit 0; }
n=0
for f in "${files[@]}"; do
  name=$(basename "$f" .mlir)
  "$TPUCC" -O0 --emit=mlir-generic "$f" > "$TMP/g.mlir" 2>/dev/null || continue
  sed 's/"stablehlo.dot_general"(\([^)]*\)) {/"stablehlo.dot_general"(\1) {tpu.mxu_tile = dense<[2, 3, 4]> : tensor<3xi64>, /' \
    "$TMP/g.mlir" > "$TMP/$name.mlir"
  "$TPUCC" -O0 --emit=asm "$TMP/$name.mlir" 2>&1 | grep -q '= mxu_dot' || fail "$name: no mxu_dot after the rewrite"
  for t in 1 2; do
    "$TPURUN" -O0 --check --threads=$t "$TMP/$name.mlir" > "$TMP/out" 2>&1 ||
      fail "$name (threads $t): $(grep -m3 -v '^PASS' "$TMP/out")"
  done
  n=$((n + 1))
done
[ "$n" -gt 0 ] || fail "no corpus dot_general compiled"
echo "$n corpus programs pass with mxu_dot"
