#!/usr/bin/env bash
# Corpus suite: every file of the StableHLO conformance corpus and the model
# exports must parse, verify and round-trip (pretty and generic forms), and
# the generic form must be accepted by mlir-opt-14 wherever the file uses
# only what MLIR 14 has (no f8/f6/f4 types, no dense_resource).
# Usage: testsuite/corpus/run.sh BUILD_DIR.  Last line: "N passed, N failed".
set -u
BUILD=$(cd "$1" && pwd)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CONF=${TPU_CONFORMANCE_DIR:-$ROOT/../shared/conformance}
MODELS=${TPU_MODELS_DIR:-$(dirname "$CONF")/models}
out="$BUILD/corpus"
mkdir -p "$out"

if [ ! -d "$CONF/stablehlo/testdata" ]; then
  echo "corpus: $CONF/stablehlo not found (set TPU_CONFORMANCE_DIR); skipped"
  echo "0 passed, 0 failed"
  exit 0
fi

passed=0 failed=0
tally() { # parse "N passed, N failed" from the last line of log $1; $2 is the exit status
  local line; line=$(tail -n 1 "$1")
  if [[ ! $line =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]] || [ "$2" -gt 1 ]; then
    echo "corpus_check crashed or printed no summary (exit status $2):"; tail -n 20 "$1"
    failed=$((failed + 1)); return
  fi
  passed=$((passed + BASH_REMATCH[1])); failed=$((failed + BASH_REMATCH[2]))
}

shopt -s nullglob
testdata=("$CONF"/stablehlo/testdata/*.mlir)
models=("$MODELS"/*.mlir)
interpret=("$CONF"/stablehlo/interpret/*.mlir)

"$BUILD/corpus_check" --generic-out="$out/generic-testdata.mlir" "${testdata[@]}" "${models[@]}" > "$out/testdata.log" 2>&1
st=$?
grep -v '^[0-9]* passed' "$out/testdata.log"
echo "testdata + models: $(tail -n 1 "$out/testdata.log")"
tally "$out/testdata.log" $st

"$BUILD/corpus_check" --split-input-file --generic-out="$out/generic-interpret.mlir" "${interpret[@]}" > "$out/interpret.log" 2>&1
st=$?
grep -v '^[0-9]* passed' "$out/interpret.log"
echo "interpret (split): $(tail -n 1 "$out/interpret.log")"
tally "$out/interpret.log" $st

# mlir-opt-14 reads the generic form of every module that uses no post-14
# feature.  Modules are separated by '// -----' lines, each followed by a
# '// FILE:LINE' comment naming its source.
if command -v mlir-opt-14 >/dev/null; then
  /usr/bin/python3 - "$out" <<'PY'
import re, sys
out = sys.argv[1]
chunks = []
for name in ("generic-testdata.mlir", "generic-interpret.mlir"):
    text = open(f"{out}/{name}").read()
    chunks += [c for c in text.split("// -----\n") if c.strip()]
post14 = re.compile(r"f8E|f6E|f4E|dense_resource<")
ok = [c for c in chunks if not post14.search(c)]
open(f"{out}/generic-mlir14.mlir", "w").write("\n// -----\n".join(ok))
open(f"{out}/generic-mlir14.count", "w").write(f"{len(ok)} {len(chunks) - len(ok)}\n")
PY
  read -r n skipped < "$out/generic-mlir14.count"
  if mlir-opt-14 --allow-unregistered-dialect --split-input-file "$out/generic-mlir14.mlir" -o /dev/null 2> "$out/mlir14.err"; then
    echo "mlir-opt-14 accepts the generic form of $n modules ($skipped use f8/f6/f4 types or dense_resource, which MLIR 14 lacks): PASS"
    passed=$((passed + 1))
  else
    echo "mlir-opt-14 rejects generic output:"; head -20 "$out/mlir14.err"
    failed=$((failed + 1))
  fi
fi
echo "$passed passed, $failed failed"
