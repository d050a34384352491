#!/usr/bin/env bash
# Issue 12: a recursive call chain, or one deeper than tpurun runs, is
# rejected by the compiler (exit 2, located, naming the whole cycle) instead
# of compiling to bytecode tpurun refuses, and nothing unloadable is ever
# written or cached (tpucc and tpurun, through --cache-dir and TPU_CACHE_DIR).
source "$(dirname "$0")/lib.sh"
TPURUN="$BUILD/tpurun"

cat > "$TMP/rec.mlir" <<'EOF'
func.func @main(%x: tensor<f32>) -> tensor<f32> {
  %0 = func.call @f(%x) : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
func.func private @f(%x: tensor<f32>) -> tensor<f32> {
  %0 = func.call @g(%x) : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
func.func private @g(%x: tensor<f32>) -> tensor<f32> {
  %0 = func.call @h(%x) : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
func.func private @h(%x: tensor<f32>) -> tensor<f32> {
  %0 = func.call @f(%x) : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
EOF
python3 "$ROOT/testsuite/golden/verifier/Inputs/call_chain.py" 257 call > "$TMP/deep.mlir"
python3 "$ROOT/testsuite/golden/verifier/Inputs/call_chain.py" 256 call > "$TMP/ok.mlir"
CYCLE="rec.mlir:6:8: error: 'func.call' op @f calls itself through @g -> @h -> @f"
DEEP="deep.mlir:2:8: error: 'func.call' op starts a chain of calls and region bodies 257 levels deep"

# entries DIR: the number of cache entries and aliases in DIR.
entries() { find "$1" -name '*.tpuc' -o -name '*.alias' 2>/dev/null | wc -l; }

for opt in -O0 -O2; do
  C="$TMP/cache$opt"
  expect_status 2 "$TPUCC" $opt "$TMP/rec.mlir" --cache-dir="$C" -o "$TMP/rec.tpub"; expect_in "$TMP/err" "$CYCLE"
  [ ! -e "$TMP/rec.tpub" ] || fail "tpucc $opt wrote bytecode for a recursive program"
  expect_status 2 "$TPUCC" $opt "$TMP/deep.mlir" --cache-dir="$C" -o "$TMP/deep.tpub"; expect_in "$TMP/err" "$DEEP"
  [ ! -e "$TMP/deep.tpub" ] || fail "tpucc $opt wrote bytecode for a too deep program"
  expect_status 2 "$TPUCC" $opt "$TMP/rec.mlir" --emit=asm --cache-dir="$C"; expect_in "$TMP/err" "$CYCLE"
  TPU_CACHE_DIR="$C" expect_status 2 "$TPURUN" $opt "$TMP/rec.mlir" --input=f32=1; expect_in "$TMP/err" "$CYCLE"
  TPU_CACHE_DIR="$C" expect_status 2 "$TPURUN" $opt "$TMP/deep.mlir" --function=f0 --input=f32=1
  expect_in "$TMP/err" "$DEEP"
  [ "$(entries "$C")" -eq 0 ] || fail "$opt: the cache holds an entry after rejected programs: $(ls -a "$C")"
  # The same cache takes a program that loads: the check above can see entries.
  expect_status 0 "$TPUCC" $opt "$TMP/ok.mlir" --cache-dir="$C" -o "$TMP/ok.tpub"
  [ "$(entries "$C")" -gt 0 ] || fail "$opt: no cache entry for a valid program"
  TPU_CACHE_DIR="$C" expect_status 0 "$TPURUN" $opt "$TMP/ok.mlir" --function=f0 --input=f32=2
  expect_in "$TMP/out" "result[0]: f32=-2"
done
# --verify-only reports the same, without a back end.
expect_status 2 "$TPUCC" --verify-only "$TMP/rec.mlir"; expect_in "$TMP/err" "$CYCLE"
exit 0
