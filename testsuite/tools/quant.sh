#!/usr/bin/env bash
# Quantized programs end to end: tpurun runs each case of
# testsuite/quant/quant_ref.py (quantize / dequantize / requantize per
# tensor and per axis on i4, i8, u8, i16 storage; add, multiply, subtract;
# dot_general on the integer fast path, the float path and hybrid;
# convolution; reshape, transpose, slice) and its results must equal the
# NumPy reference of the spec's formulas bit for bit.  Also checks that the
# fast path is taken where docs/quantization.md says it is, that the cost
# model charges it at the int8 rate, and that tpurun prints a quantized
# result as its storage integers.
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

# The cost model: the integer path's contraction runs at the int8 MXU rate,
# twice the bf16 one on v5e, so it keeps the MXU busy half as long as the
# float path's f32 contraction (same shapes; only lhs's scale differs).
for s in 0.5 0.3; do
  cat > "$TMP/cost$s.mlir" <<MLIR
func.func @main(%a: tensor<1024x4096x!quant.uniform<i4:f32, $s:3>>, %b: tensor<4096x1024x!quant.uniform<i4:f32, 0.25>>) -> tensor<1024x1024x!quant.uniform<i8:f32, 4.0>> {
  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<1024x4096x!quant.uniform<i4:f32, $s:3>>, tensor<4096x1024x!quant.uniform<i4:f32, 0.25>>) -> tensor<1024x1024x!quant.uniform<i8:f32, 4.0>>
  func.return %r : tensor<1024x1024x!quant.uniform<i8:f32, 4.0>>
}
MLIR
  expect_status 0 "$TPUCC" --target=v5e --report "$TMP/cost$s.mlir" -o "$TMP/cost.tpub"
  grep -m1 'tpu.fusion(output)' "$TMP/out" | awk '{print $NF}' > "$TMP/mxu$s"
done
fast=$(cat "$TMP/mxu0.5") slow=$(cat "$TMP/mxu0.3")
awk -v f="$fast" -v s="$slow" 'BEGIN { exit !(f > 0 && f * 1.9 < s && f * 2.1 > s) }' ||
  fail "MXU % of the integer path ($fast) is not half the float path's ($slow)"

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
