#!/usr/bin/env bash
# Conformance: runs every StableHLO test program of the corpus with
# `tpurun --check` and prints one line per file:
#     PASS FILE | FAIL FILE: reason | UNSUPPORTED FILE: reason
# then `conformance: P passed, F failed, U unsupported`.
#
# The corpus is $CONF/stablehlo/testdata/*.mlir, $CONF/stablehlo/interpret/*.mlir
# (run with --split-input-file) and, when present,
# $CONF/stablehlo/testdata/quantized/*.mlir (split when a file has `// -----`).
#
# Files listed in testsuite/conformance/known_failures.txt (name, then the
# reason) are expected not to pass: they print as XFAIL and do not count as
# failures of the suite; one that passes prints XPASS and fails the suite
# (so the list stays true).  The last line is the suite's
# "N passed, N failed" for testsuite/run_all.sh.
#
# Usage: testsuite/conformance/run.sh BUILD_DIR [FILTER_REGEX]
# Environment: OPT (default -O2) the optimization level the programs are
# compiled at; TPURUN_FLAGS extra tpurun flags (make check adds
# --verify-each).  Logs go to BUILD_DIR/conformance$OPT/.
set -u
BUILD=$(cd "$1" && pwd)
FILTER=${2:-.}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CONF=${TPU_CONFORMANCE_DIR:-$ROOT/../shared/conformance}
KNOWN=$ROOT/testsuite/conformance/known_failures.txt
JOBS=${JOBS:-$(nproc)}
OPT=${OPT:--O2}
TPURUN_FLAGS=${TPURUN_FLAGS:-}
OUT=$BUILD/conformance$OPT
mkdir -p "$OUT"

if [ ! -d "$CONF/stablehlo/testdata" ]; then
  echo "conformance: $CONF/stablehlo not found (set TPU_CONFORMANCE_DIR); skipped"
  echo "conformance: 0 passed, 0 failed, 0 unsupported"
  echo "0 passed, 0 failed"
  exit 0
fi

# One file: prints its status line.  Programs over several chips
# (run_parallel grids, collectives, send / recv) run like any other: a
# failure of theirs is a FAIL, never hidden as unsupported.
run_one() {
  local f=$1 name split=() log
  name=$(basename "$(dirname "$f")")/$(basename "$f")
  log=$OUT/$(echo "$name" | tr '/' '_').log
  case $name in interpret/*) split=(--split-input-file) ;; esac
  # testdata/quantized/: some files hold several `// -----` modules.
  case $name in quantized/*) grep -q -- '^// -----' "$f" && split=(--split-input-file) ;; esac
  # stdout and stderr apart first: a program without checks passes when
  # its stderr is clean (its stdout may hold interpreter.print output).
  timeout 120 "$BUILD/tpurun" "$OPT" $TPURUN_FLAGS --check "${split[@]}" "$f" >"$log.out" 2>"$log.err"
  local rc=$?
  cat "$log.out" "$log.err" >"$log"
  local noisy; noisy=$(grep -vc -e ': no checks ran' "$log.err")
  rm -f "$log.out" "$log.err"
  local summary; summary=$(grep -E '^checks: [0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)
  if [ $rc -eq 0 ] && [[ $summary =~ ^checks:\ ([0-9]+)\ passed,\ 0\ failed$ ]] && [ "${BASH_REMATCH[1]}" -gt 0 ]; then
    echo "PASS $name"
  elif grep -q "is not supported by the tpurun back end" "$log"; then
    echo "UNSUPPORTED $name: $(grep -m1 -o "'[^']*' op .*not supported by the tpurun back end\|error: .*not supported by the tpurun back end" "$log" | head -c 200)"
  elif [ $rc -eq 124 ]; then
    echo "FAIL $name: timed out after 120 s"
  elif [ $rc -eq 1 ] && [ "$summary" = "checks: 0 passed, 0 failed" ] && ! grep -q 'check\.' "$f" \
       && [ "$noisy" -eq 0 ]; then
    echo "PASS $name"  # a program without checks passes by running cleanly (tpurun: "no checks ran")
  elif [ $rc -eq 1 ] && grep -q ': no checks ran' "$log"; then
    echo "FAIL $name: no checks ran"
  else
    local why; why=$(grep -m1 -E '^FAIL |error|bad bytecode' "$log" | head -c 300)
    echo "FAIL $name: exit $rc: ${why:-$(tail -n 1 "$log" | head -c 300)}"
  fi
}
export -f run_one
export BUILD OUT OPT TPURUN_FLAGS

{ ls "$CONF"/stablehlo/testdata/*.mlir; ls "$CONF"/stablehlo/interpret/*.mlir
  [ -d "$CONF/stablehlo/testdata/quantized" ] && ls "$CONF"/stablehlo/testdata/quantized/*.mlir; } 2>/dev/null |
  grep -E -- "$FILTER" | xargs -P "$JOBS" -I{} bash -c 'run_one "$1"' _ {} | sort -k2 >"$OUT/results.txt"

declare -A known
if [ -f "$KNOWN" ]; then
  while read -r name _; do
    [[ -z $name || $name == \#* ]] && continue
    known[$name]=1
  done <"$KNOWN"
fi

pass=0 fail=0 unsup=0 suite_fail=0
while read -r status name rest; do
  name=${name%:}
  case $status in
    PASS) pass=$((pass + 1))
      if [ -n "${known[$name]:-}" ]; then echo "XPASS $name: listed in known_failures.txt but passes"; suite_fail=$((suite_fail + 1)); continue; fi ;;
    FAIL) fail=$((fail + 1)) ;;
    UNSUPPORTED) unsup=$((unsup + 1)) ;;
  esac
  if [ "$status" != PASS ] && [ -n "${known[$name]:-}" ]; then
    echo "XFAIL $name: $rest"
  else
    echo "$status $name${rest:+: $rest}"
    [ "$status" != PASS ] && suite_fail=$((suite_fail + 1))
  fi
done <"$OUT/results.txt"
echo "conformance: $pass passed, $fail failed, $unsup unsupported"
echo "$pass passed, $suite_fail failed"
[ "$suite_fail" -eq 0 ]
