#!/usr/bin/env bash
# libtpurun from 8 host threads at once, in each eager mode
# (testsuite/runtime/threads.c): eager ops on default and own streams with
# events, copies between chips, whole programs, all checked against the
# host.  `make tsan` runs this script on its ThreadSanitizer build.
source "$(dirname "$0")/lib.sh"
PROG="$BUILD/runtime_threads"
[ -x "$PROG" ] || fail "$PROG not built (make $PROG)"
# A fresh disk tier of its own, shared by the threads.
export TPU_CACHE_DIR="$TMP/cache"
unset TPU_EAGER_MODE
timeout 500 "$PROG" > "$TMP/out" 2> "$TMP/err"
st=$?
[ $st -eq 0 ] || fail "runtime_threads exited $st: $(head -c 2000 "$TMP/err")"
expect_in "$TMP/out" "mode strict: 8 threads"
expect_in "$TMP/out" "mode debug: 8 threads"
expect_in "$TMP/out" "mode fused: 8 threads"
exit 0
