#!/usr/bin/env bash
# examples/transformer_block.mlir end to end: compile with tpucc, run with
# tpurun on deterministic .npy inputs, compare with the NumPy reference
# (transformer_ref.py, float64) within 1e-4 relative.
source "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
REF="$ROOT/testsuite/tools/transformer_ref.py"
TPURUN="$BUILD/tpurun"

"$PY" -c 'import numpy' 2>/dev/null || { echo "skipped: no numpy"; exit 0; }
[ -x "$TPURUN" ] || fail "$TPURUN not built"

"$PY" "$REF" inputs "$TMP" || fail "could not write the inputs"
expect_status 0 "$TPUCC" "$ROOT/examples/transformer_block.mlir" -o "$TMP/block.tpub"
inputs=()
for i in 0 1 2 3 4 5 6 7 8 9; do inputs+=("--input=@$TMP/$i.npy"); done
expect_status 0 "$TPURUN" "$TMP/block.tpub" "${inputs[@]}" --output="@$TMP/out.npy"
[ -s "$TMP/out.npy" ] || fail "tpurun wrote no $TMP/out.npy"
"$PY" "$REF" compare "$TMP" "$TMP/out.npy" || fail "tpurun's result differs from the NumPy reference"
exit 0
