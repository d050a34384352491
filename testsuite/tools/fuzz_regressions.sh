#!/usr/bin/env bash
# Inputs the fuzzer once crashed on (testsuite/fuzz/regressions) are now
# rejected or accepted cleanly: exit 0 or 2, never a signal, no leak under ASan.
source "$(dirname "$0")/lib.sh"
for f in "$ROOT"/testsuite/fuzz/regressions/*; do
  timeout 20 "$TPUCC" --verify-only "$f" > /dev/null 2> "$TMP/err"
  st=$?
  [ $st -eq 0 ] || [ $st -eq 2 ] || fail "$(basename "$f"): exit status $st: $(head -c 300 "$TMP/err")"
  timeout 20 "$TPUCC" --emit=mlir --split-input-file "$f" > /dev/null 2> "$TMP/err"
  st=$?
  [ $st -eq 0 ] || [ $st -eq 2 ] || fail "$(basename "$f") (split): exit status $st"
done
exit 0
