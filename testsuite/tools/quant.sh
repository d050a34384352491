#!/usr/bin/env bash
# Quantized programs end to end: tpurun runs each case of
# testsuite/quant/quant_ref.py (quantize / dequantize / requantize per
# tensor and per axis on i4, i8, u8, i16 storage; add, multiply, subtract;
# dot_general on the integer fast path, the float path and hybrid;
# convolution; reshape, transpose, slice) and its results must equal the
# NumPy reference of the spec's formulas bit for bit.  Also checks that the
# fast path is taken where docs/quantization.md says it is, and that
# tpurun prints a quantized result as its storage integers.
source "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
TPURUN="$BUILD/tpurun"
"$PY" -c 'import numpy' 2>/dev/null || { echo "skipped: no numpy"; exit 0; }
[ -x "$TPURUN" ] || fail "$TPURUN not built"

"$PY" "$ROOT/testsuite/quant/quant_ref.py" run "$TPURUN" "$TMP" > "$TMP/ref.log" 2>&1 || {
  cat "$TMP/ref.log"; fail "tpurun differs from the quantization reference"; }
cat "$TMP/ref.log"
grep -q '^[1-9][0-9]* passed, 0 failed$' "$TMP/ref.log" || fail "no case ran"

# The integer fast path: an i32 dot_general for exact power-of-two scales,
# the f32 one otherwise (at every -O level).
for o in -O0 -O2; do
  expect_status 0 "$TPUCC" $o --emit=mlir "$TMP/dot_int_fast_path.mlir" -o "$TMP/fast.mlir"
  expect_in "$TMP/fast.mlir" "-> tensor<4x3xi32>"
  expect_status 0 "$TPUCC" $o --emit=mlir "$TMP/dot_generic_path.mlir" -o "$TMP/slow.mlir"
  expect_in "$TMP/slow.mlir" "-> tensor<4x3xf32>"
  grep -q 'quant.uniform' "$TMP/fast.mlir" "$TMP/slow.mlir" && fail "a quantized type is left after $o"
done

# tpurun prints quantized results as storage integers.
cat > "$TMP/print.mlir" <<'MLIR'
func.func @main() -> tensor<3x!quant.uniform<i8:f32, 5.000000e-01:-3>> {
  %x = stablehlo.constant dense<[1.0, -2.0, 100.0]> : tensor<3xf32>
  %q = stablehlo.uniform_quantize %x : (tensor<3xf32>) -> tensor<3x!quant.uniform<i8:f32, 0.5:-3>>
  func.return %q : tensor<3x!quant.uniform<i8:f32, 0.5:-3>>
}
MLIR
expect_status 0 "$TPURUN" "$TMP/print.mlir"
expect_in "$TMP/out" "result[0]: 3xi8=-1 -7 127"
exit 0
