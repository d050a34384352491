#!/usr/bin/env bash
# Inputs the fuzzer once crashed on (testsuite/fuzz/regressions) are now
# rejected or accepted cleanly: exit 0 or 2, never a signal, no leak under ASan.
# The runtime fuzzer's inputs (testsuite/fuzz/runtime-regressions) go
# through its harness without libFuzzer ($BUILD/fuzz_runtime_replay): it
# aborts on a finding, so anything but exit 0 fails.
source "$(dirname "$0")/lib.sh"
for f in "$ROOT"/testsuite/fuzz/regressions/* "$ROOT"/testsuite/fuzz/parser-seeds/*; do
  timeout 20 "$TPUCC" --verify-only "$f" > /dev/null 2> "$TMP/err"
  st=$?
  [ $st -eq 0 ] || [ $st -eq 2 ] || fail "$(basename "$f"): exit status $st: $(head -c 300 "$TMP/err")"
  timeout 20 "$TPUCC" --emit=mlir --split-input-file "$f" > /dev/null 2> "$TMP/err"
  st=$?
  [ $st -eq 0 ] || [ $st -eq 2 ] || fail "$(basename "$f") (split): exit status $st"
done
REPLAY="$BUILD/fuzz_runtime_replay"
[ -x "$REPLAY" ] || fail "$REPLAY not built (make $REPLAY)"
for f in "$ROOT"/testsuite/fuzz/runtime-regressions/* "$ROOT"/testsuite/fuzz/runtime-seeds/*; do
  timeout 60 "$REPLAY" "$f" > /dev/null 2> "$TMP/err"
  st=$?
  [ $st -eq 0 ] || fail "$(basename "$f") (runtime): exit status $st: $(head -c 600 "$TMP/err")"
done
exit 0
