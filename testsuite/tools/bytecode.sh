#!/usr/bin/env bash
# Portable artifacts (docs/bytecode-input.md): StableHLO's .mlir.bc pairs
# read as their text; the chess model from bytecode gives the same bits and
# the same cache entry as from text; the corpus written for every version
# reads back; future, truncated and corrupt files are refused with the
# documented exit codes and messages.
source "$(dirname "$0")/lib.sh"
TPURUN="$BUILD/tpurun"
CHECK="$BUILD/bytecode_check"
CONF=${TPU_CONFORMANCE_DIR:-$ROOT/../shared/conformance}
MODELS=${TPU_MODELS_DIR:-$(dirname "$CONF")/models}
[ -x "$CHECK" ] || fail "$CHECK not built (make $CHECK)"
export TPU_CACHE_DIR="$TMP/cache"

# 1. Every pair of StableHLO's vhlo tests: bytecode and text print alike.
shopt -s nullglob
pairs=("$CONF"/stablehlo/vhlo/stablehlo_legalize_to_vhlo.*.mlir)
if [ ${#pairs[@]} -gt 0 ]; then
  "$CHECK" pairs "${pairs[@]}" > "$TMP/pairs" || fail "pairs: $(grep -m3 -A3 FAIL "$TMP/pairs")"
  expect_in "$TMP/pairs" "${#pairs[@]} passed, 0 failed"
  echo "pairs: ${#pairs[@]} match their text"
  # Read and written again, each artifact is byte-identical to StableHLO's.
  "$CHECK" identical "${pairs[@]}" > "$TMP/identical"
  expect_in "$TMP/identical" "${#pairs[@]} written again from the artifact"
  echo "identical: $(grep '^byte-identical' "$TMP/identical")"
else
  echo "skipped: no pairs in $CONF/stablehlo/vhlo"
fi

# 2. The chess model: same IR, same cache key, same bits as its text.
chess=$MODELS/searchless_chess_9m.mlir
if [ -f "$chess.bc" ]; then
  expect_status 0 "$TPUCC" -O0 --emit=mlir "$chess.bc"; mv "$TMP/out" "$TMP/bc.mlir"
  expect_status 0 "$TPUCC" -O0 --emit=mlir "$chess"; mv "$TMP/out" "$TMP/text.mlir"
  cmp -s "$TMP/bc.mlir" "$TMP/text.mlir" || fail "chess: --emit=mlir differs: $(diff "$TMP/text.mlir" "$TMP/bc.mlir" | head -c 400)"
  expect_status 0 "$TPUCC" --explain-cache "$chess.bc"; grep '^key:' "$TMP/out" > "$TMP/key.bc"
  expect_status 0 "$TPUCC" --explain-cache "$chess"; grep '^key:' "$TMP/out" > "$TMP/key.text"
  cmp -s "$TMP/key.bc" "$TMP/key.text" || fail "chess: cache keys differ: $(cat "$TMP/key.bc" "$TMP/key.text")"
  nin=$(grep -m1 'func.func public @main' "$chess" | grep -o '%arg[0-9]*:' | wc -l)
  ins=(); for ((i = 0; i < nin; i++)); do ins+=(--input=random); done
  expect_status 0 "$TPURUN" --seed=3 --metrics "$chess.bc" "${ins[@]}"
  mv "$TMP/out" "$TMP/run.bc"; expect_in "$TMP/err" "compiles 1, cache hits 0"
  expect_status 0 "$TPURUN" --seed=3 --metrics "$chess" "${ins[@]}"
  expect_in "$TMP/err" "compiles 0, cache hits 1"
  cmp -s "$TMP/run.bc" "$TMP/out" || fail "chess: results from bytecode and text differ"
  # Written back at 1.0.0 (the artifact's own version), it reads the same.
  expect_status 0 "$TPUCC" --emit=vhlo-bytecode --vhlo-version=1.0.0 "$chess" -o "$TMP/chess.bc"
  expect_status 0 "$TPUCC" -O0 --emit=mlir "$TMP/chess.bc"
  cmp -s "$TMP/out" "$TMP/text.mlir" || fail "chess: written artifact reads back differently"
  # Errors: a truncated artifact is a bad file (exit 3) naming a section and an offset.
  head -c 20000 "$chess.bc" > "$TMP/trunc.mlir.bc"
  expect_status 3 "$TPUCC" "$TMP/trunc.mlir.bc"; expect_in "$TMP/err" "offset"
  expect_status 3 "$TPURUN" "$TMP/trunc.mlir.bc" "${ins[@]}"
  # Corrupt bytes anywhere: exit 2 or 3 with a message, never a crash.
  for off in 5 40 300 1000 4000 9000 15000 30000 45000; do
    cp "$chess.bc" "$TMP/bad.mlir.bc"
    printf '\xff' | dd of="$TMP/bad.mlir.bc" bs=1 seek=$off conv=notrunc status=none
    timeout 20 "$TPUCC" --verify-only "$TMP/bad.mlir.bc" > /dev/null 2> "$TMP/err"
    st=$?
    case $st in
      0) ;;
      2|3) [ -s "$TMP/err" ] || fail "corrupt byte at $off: exit $st without a message" ;;
      *) fail "corrupt byte at $off: exit $st: $(head -c 300 "$TMP/err")" ;;
    esac
  done
  echo "chess: bytecode = text (IR, cache key, results); errors clean"
fi

# 3. A file from a future StableHLO: refused, naming the version and the op.
future=$CONF/stablehlo/vhlo/invalid_vhlo_future.mlir.bc
if [ -f "$future" ]; then
  expect_status 2 "$TPUCC" "$future"
  expect_in "$TMP/err" "2.0.0"
  expect_in "$TMP/err" "'vhlo.constant_v99'"
fi

# 3b. Hostile files (testsuite/bytecode/regressions/README.md): each is
# refused as corrupt (exit 3, section and offset named), fast, within 1 GB
# (an ASan build maps terabytes of shadow memory: its allocator, which
# aborts on a huge request, stands in for the limit).
limit=1000000
nm "$TPUCC" 2>/dev/null | grep -q ' U __asan_\| T __asan_init' && limit=unlimited
for f in "$ROOT"/testsuite/bytecode/regressions/*.mlir.bc; do
  (ulimit -v "$limit"; timeout 20 "$TPUCC" --verify-only "$f" > /dev/null 2> "$TMP/err")
  st=$?
  [ "$st" -eq 3 ] || fail "$(basename "$f"): exit $st, expected 3: $(head -c 300 "$TMP/err")"
  expect_in "$TMP/err" "section at byte offset"
done
echo "regressions: $(ls "$ROOT"/testsuite/bytecode/regressions/*.mlir.bc | wc -l) hostile files refused"

# 4. Writing: a round trip through every version for a sample of the
# corpus (the whole corpus: make check-bytecode), refusals named.
files=()
for f in "$CONF"/stablehlo/testdata/*.mlir "$CONF"/stablehlo/interpret/*.mlir; do files+=("$f"); done
if [ ${#files[@]} -gt 0 ]; then
  sample=(); for ((i = 0; i < ${#files[@]}; i += ${BYTECODE_STRIDE:-15})); do sample+=("${files[$i]}"); done
  "$CHECK" roundtrip --versions=all "${sample[@]}" > "$TMP/rt" || fail "round trip: $(grep -m3 FAIL "$TMP/rt")"
  echo "round trip of ${#sample[@]} corpus files at every version: $(tail -n 2 "$TMP/rt" | tr '\n' ' ')"
fi
cat > "$TMP/late.mlir" <<'MLIR'
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.tan %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
MLIR
expect_status 2 "$TPUCC" --emit=vhlo-bytecode --vhlo-version=1.0.0 "$TMP/late.mlir" -o "$TMP/late.bc"
expect_in "$TMP/err" "stablehlo.tan"
expect_in "$TMP/err" "1.4.0"
[ ! -e "$TMP/late.bc" ] || fail "a refused artifact was written"
expect_status 0 "$TPUCC" --emit=vhlo-bytecode "$TMP/late.mlir"
[ -s "$TMP/late.mlir.bc" ] || fail "--emit=vhlo-bytecode did not write INPUT.mlir.bc by default"
expect_status 0 "$TPURUN" "$TMP/late.mlir.bc" --input=4xf32=0,0.5,1,-1
expect_status 1 "$TPUCC" --emit=vhlo-bytecode --vhlo-version=3.0.0 "$TMP/late.mlir"
expect_in "$TMP/err" "3.0.0"
expect_status 1 "$TPUCC" --vhlo-version=1.0.0 "$TMP/late.mlir"
exit 0
