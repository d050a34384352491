# Helpers for tool tests: each test script sources this, gets $TPUCC, and
# fails (exit 1) at the first broken expectation with a message.
set -u
BUILD=${1:?usage: test.sh BUILD_DIR}
TPUCC="$BUILD/tpucc"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

fail() { echo "FAIL: $*"; exit 1; }

# expect_status CODE CMD...: run CMD, require exit status CODE.
expect_status() {
  local want=$1; shift
  "$@" > "$TMP/out" 2> "$TMP/err"
  local got=$?
  [ "$got" -eq "$want" ] || fail "'$*' exited $got, expected $want; stderr: $(head -c 400 "$TMP/err")"
}

# expect_in FILE TEXT: FILE contains TEXT.
expect_in() { grep -qF -- "$2" "$1" || fail "expected '$2' in $(basename "$1"): $(head -c 400 "$1")"; }
