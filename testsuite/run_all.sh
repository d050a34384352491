#!/usr/bin/env bash
# testsuite/run_all.sh BUILD_DIR
#
# Runs every test suite that exists (unit, golden, corpus, tools), prints a
# header and its counts per suite, and ends with exactly one closing line
#     N passed, N failed
# Exit status 0 iff nothing failed.  A failing suite does not stop the others.
# Full logs of each suite are kept in BUILD_DIR/test-logs/.
set -u

[ $# -ge 1 ] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
BUILD=$(cd "$1" 2>/dev/null && pwd) || { echo "run_all: no build dir '$1'" >&2; exit 2; }
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 2

PY=/usr/bin/python3
LIT=/usr/lib/llvm-14/build/utils/lit/lit.py
LOGS=$BUILD/test-logs
# tpurun compiles .mlir through the compilation cache: the tests use a fresh
# one of their own, never the user's.
export TPU_CACHE_DIR=$BUILD/test-cache
rm -rf "$TPU_CACHE_DIR"
mkdir -p "$LOGS"

# Generous per-suite limits (seconds) so a hang fails instead of eating CI.
UNIT_TIMEOUT=${UNIT_TIMEOUT:-900}
GOLDEN_TIMEOUT=${GOLDEN_TIMEOUT:-1800}
CORPUS_TIMEOUT=${CORPUS_TIMEOUT:-2400}
TOOL_TIMEOUT=${TOOL_TIMEOUT:-600}
PYTHON_TIMEOUT=${PYTHON_TIMEOUT:-900}

total_pass=0
total_fail=0

# suite_result NAME PASSED FAILED
suite_result() {
  echo "[$1] $2 passed, $3 failed"
  total_pass=$((total_pass + $2))
  total_fail=$((total_fail + $3))
}

# show LOG [MAX]: print a log indented, at most MAX lines (the last ones).
show() {
  local max=${2:-300} n
  n=$(wc -l <"$1")
  if [ "$n" -gt "$max" ]; then
    echo "  ... ($((n - max)) earlier lines in $1)"
  fi
  tail -n "$max" "$1" | sed 's/^/  /'
}

# ---------------------------------------------------------------- unit
echo "== unit (cmocka) =="
if [ -x "$BUILD/unit_tests" ]; then
  log=$LOGS/unit.log
  CMOCKA_MESSAGE_OUTPUT=stdout timeout "$UNIT_TIMEOUT" "$BUILD/unit_tests" >"$log" 2>&1
  rc=$?
  # cmocka prints one summary per group; add them up.
  p=$(sed -n 's/^\[  PASSED  \] \([0-9]\+\) test.*/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
  f=$(sed -n 's/^\[  FAILED  \] \([0-9]\+\) test.*/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
    echo "  unit_tests exited with status $rc (crash or timeout?)"
    f=1
  fi
  if [ "$f" -ne 0 ]; then show "$log"; else grep -E '^\[(==========|  PASSED  )\]' "$log" | sed 's/^/  /'; fi
  suite_result unit "$p" "$f"
else
  echo "  skipped: $BUILD/unit_tests not built (no testsuite/unit/*.c)"
fi

# ---------------------------------------------------------------- golden
echo "== golden (lit + FileCheck) =="
if [ -n "$(find testsuite/golden -name '*.mlir' -print -quit 2>/dev/null)" ]; then
  log=$LOGS/golden.log
  # -s -v: quiet on success, the failing test's commands and output on failure.
  timeout "$GOLDEN_TIMEOUT" "$PY" "$LIT" -sv testsuite/golden \
    --param build_dir="$BUILD" >"$log" 2>&1
  rc=$?
  count() { sed -n "s/^  $1 *: *\([0-9]\+\)$/\1/p" "$log" | awk '{s+=$1} END {print s+0}'; }
  p=$(count 'Passed')
  # Failed, plus the other failure kinds lit reports.
  f=$(( $(count 'Failed') + $(count 'Unresolved') + $(count 'Timed Out') \
        + $(count 'Unexpectedly Passed') ))
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
    echo "  lit exited with status $rc"
    f=1
  fi
  if [ "$f" -ne 0 ]; then show "$log" 400; else grep -E '^  [A-Z][A-Za-z ]*: *[0-9]+$' "$log"; fi
  suite_result golden "$p" "$f"
else
  echo "  skipped: no .mlir files under testsuite/golden/"
fi

# ---------------------------------------------------------------- corpus
echo "== corpus (conformance) =="
if [ -f testsuite/corpus/run.sh ]; then
  log=$LOGS/corpus.log
  timeout "$CORPUS_TIMEOUT" bash testsuite/corpus/run.sh "$BUILD" >"$log" 2>&1
  rc=$?
  last=$(tail -n 1 "$log")
  show "$log" 100
  if [[ $last =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed ]]; then
    p=${BASH_REMATCH[1]} f=${BASH_REMATCH[2]}
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
      echo "  corpus/run.sh exited with status $rc"; f=1
    fi
  else
    echo "  corpus/run.sh (status $rc) did not end with 'N passed, N failed'"
    p=0 f=1
  fi
  suite_result corpus "$p" "$f"
else
  echo "  skipped: no testsuite/corpus/run.sh"
fi

# ---------------------------------------------------------------- conformance
# At -O0 and at -O2 (semantic preservation: every file's expected-value
# checks hold after every optimization), with the verifier after each pass.
for opt in -O0 -O2; do
echo "== conformance $opt (tpurun --check over the corpus) =="
if [ -x "$BUILD/tpurun" ]; then
  log=$LOGS/conformance$opt.log
  OPT=$opt TPURUN_FLAGS=--verify-each timeout "$CORPUS_TIMEOUT" bash testsuite/conformance/run.sh "$BUILD" >"$log" 2>&1
  rc=$?
  last=$(tail -n 1 "$log")
  grep -vE '^(PASS|XFAIL)' "$log" | sed 's/^/  /' | tail -n 60
  if [[ $last =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed ]]; then
    p=${BASH_REMATCH[1]} f=${BASH_REMATCH[2]}
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then echo "  conformance/run.sh exited with status $rc"; f=1; fi
  else
    echo "  conformance/run.sh (status $rc) did not end with 'N passed, N failed'"
    p=0 f=1
  fi
  suite_result "conformance$opt" "$p" "$f"
else
  echo "  skipped: $BUILD/tpurun not built"
fi
done

# ---------------------------------------------------------------- tools
echo "== tools =="
p=0 f=0 ran=0
for t in testsuite/tools/*.sh; do
  [ -f "$t" ] && [ -x "$t" ] || continue
  ran=1
  log=$LOGS/tools-$(basename "$t" .sh).log
  timeout "$TOOL_TIMEOUT" "$t" "$BUILD" >"$log" 2>&1
  rc=$?
  if [ "$rc" -eq 0 ]; then
    echo "  PASS: $t"; p=$((p + 1))
  else
    echo "  FAIL: $t (exit status $rc)"; show "$log" 40 | sed 's/^/  /'; f=$((f + 1))
  fi
done
if [ "$ran" -eq 1 ]; then suite_result tools "$p" "$f"; else echo "  skipped: no executable testsuite/tools/*.sh"; fi

# ---------------------------------------------------------------- python
# The Python package and its PyTorch bridge (testsuite/python, pytest), on
# BUILD's libtpurun.so.  A sanitizer build's library cannot be loaded into
# an uninstrumented python3, so `make sanitize` covers the C side only.
echo "== python (pytest) =="
if nm -D "$BUILD/libtpurun.so" 2>/dev/null | grep -q -E ' U __(asan|tsan|ubsan)_'; then
  echo "  skipped: $BUILD/libtpurun.so is a sanitizer build (make check runs these tests)"
elif ! "$PY" -c 'import pytest, torch, numpy' 2>"$LOGS/python-import.log"; then
  echo "  $PY cannot import pytest, torch and numpy (mk/install-deps.sh test installs them):"
  show "$LOGS/python-import.log" 5
  suite_result python 0 1
else
  log=$LOGS/python.log
  TPURUN_LIBRARY="$BUILD/libtpurun.so" TPURUN_BUILD_DIR="$BUILD" PYTHONPATH="$ROOT/python" \
    timeout "$PYTHON_TIMEOUT" "$PY" -m pytest -q -p no:cacheprovider testsuite/python >"$log" 2>&1
  rc=$?
  summary=$(grep -E '^=*.* in [0-9.]+s' "$log" | tail -n 1)
  p=$(sed -n 's/.*[^0-9]\([0-9]\+\) passed.*/\1/p' <<<" $summary")
  f=$(grep -o -E '[0-9]+ (failed|error|errors)' <<<"$summary" | awk '{s+=$1} END {print s+0}')
  p=${p:-0}
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
    echo "  pytest exited with status $rc (crash or timeout?)"; f=1
  fi
  if [ "$f" -ne 0 ]; then show "$log" 80; else echo "  $summary"; fi
  suite_result python "$p" "$f"
fi

# ---------------------------------------------------------------- total
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
