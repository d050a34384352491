#!/usr/bin/env bash
# tpurun's command line (DESIGN.md §4): inputs in every form, printed and
# .npy outputs, --function, --check, --split-input-file, bad bytecode,
# runtime errors, and the documented exit codes.
source "$(dirname "$0")/lib.sh"
TPURUN="$BUILD/tpurun"
expect_status 0 "$TPURUN" --help; expect_in "$TMP/out" "usage: tpurun"
expect_status 0 "$TPURUN" --version; expect_in "$TMP/out" "bytecode format"
expect_status 1 "$TPURUN"; expect_in "$TMP/err" "no program file"
expect_status 1 "$TPURUN" --bogus x.tpub; expect_in "$TMP/err" "unknown option"
expect_status 3 "$TPURUN" "$TMP/missing.tpub"; expect_in "$TMP/err" "cannot open"

cat > "$TMP/f.mlir" <<'MLIR'
func.func @main(%a: tensor<2x2xf32>, %b: tensor<f32>) -> (tensor<2x2xf32>, tensor<2xi32>) {
  %0 = stablehlo.broadcast_in_dim %b, dims = [] : (tensor<f32>) -> tensor<2x2xf32>
  %1 = stablehlo.multiply %a, %0 : tensor<2x2xf32>
  %2 = stablehlo.iota dim = 0 : tensor<2xi32>
  return %1, %2 : tensor<2x2xf32>, tensor<2xi32>
}
func.func @twice(%x: tensor<3xi8>) -> tensor<3xi8> {
  %0 = stablehlo.add %x, %x : tensor<3xi8>
  return %0 : tensor<3xi8>
}
MLIR
# Inputs: nested brackets, flat lists, scalars; printed results.
expect_status 0 "$TPURUN" "$TMP/f.mlir" '--input=2x2xf32=[[1 2][3 4]]' --input=f32=0.5
expect_in "$TMP/out" "result[0]: 2x2xf32=[0.5 1][1.5 2]"
expect_in "$TMP/out" "result[1]: 2xi32=0 1"
expect_status 0 "$TPURUN" "$TMP/f.mlir" --input=2x2xf32=1,2,3,4 --input=f32=2
expect_in "$TMP/out" "result[0]: 2x2xf32=[2 4][6 8]"
# Compiled .tpub input gives the same results; i8 arithmetic wraps.
"$BUILD/tpucc" "$TMP/f.mlir" -o "$TMP/f.tpub" || fail "tpucc failed"
expect_status 0 "$TPURUN" "$TMP/f.tpub" --function=twice --input=3xi8=100,-100,7
expect_in "$TMP/out" "result[0]: 3xi8=-56 56 14"
expect_status 1 "$TPURUN" "$TMP/f.tpub" --function=nope; expect_in "$TMP/err" "no function @nope"
# Wrong inputs are usage errors with a reason.
expect_status 1 "$TPURUN" "$TMP/f.tpub" --input=3x2xf32=1,2,3,4,5,6 --input=f32=1; expect_in "$TMP/err" "expected 2x2xf32"
expect_status 1 "$TPURUN" "$TMP/f.tpub" --input=2x2xf32=1,2,3 --input=f32=1
expect_status 1 "$TPURUN" "$TMP/f.tpub" --function=twice --input=3xi8=1,2,300; expect_in "$TMP/err" "out of range"
expect_status 1 "$TPURUN" "$TMP/f.tpub" --input=2x2xf32=1,2,3,4; expect_in "$TMP/err" "takes 2 arguments"
expect_status 1 "$TPURUN" "$TMP/f.tpub" --input=2x2xf32=1,2,3,4 --input=f32=1 --output=- --output=- --output=-
expect_in "$TMP/err" "3 --output given, @main has 2 results"
# random inputs are seeded: the same seed gives the same bits.
"$TPURUN" "$TMP/f.tpub" --input=random:3 --input=random:4 > "$TMP/r1" || fail "random run failed"
"$TPURUN" "$TMP/f.tpub" --input=random:3 --input=random:4 > "$TMP/r2" || fail "random run failed"
cmp -s "$TMP/r1" "$TMP/r2" || fail "random:SEED is not deterministic"
# .npy outputs read back as inputs.
expect_status 0 "$TPURUN" "$TMP/f.tpub" --input=2x2xf32=1,2,3,4 --input=f32=3 "--output=@$TMP/o.npy" --output=-
[ -s "$TMP/o.npy" ] || fail "--output=@file.npy wrote nothing"
expect_in "$TMP/out" "result[1]: 2xi32=0 1"
expect_status 0 "$TPURUN" "$TMP/f.tpub" "--input=@$TMP/o.npy" --input=f32=1
expect_in "$TMP/out" "result[0]: 2x2xf32=[3 6][9 12]"
printf 'garbage' > "$TMP/bad.npy"
expect_status 3 "$TPURUN" "$TMP/f.tpub" "--input=@$TMP/bad.npy" --input=f32=1
# Bad bytecode: truncated, corrupted, or not bytecode at all: exit 3 with a reason.
head -c 100 "$TMP/f.tpub" > "$TMP/trunc.tpub"
expect_status 3 "$TPURUN" "$TMP/trunc.tpub"; expect_in "$TMP/err" "trunc.tpub: bad bytecode: truncated"
cp "$TMP/f.tpub" "$TMP/flip.tpub"
printf '\x55' | dd of="$TMP/flip.tpub" bs=1 seek=200 conv=notrunc status=none
expect_status 3 "$TPURUN" "$TMP/flip.tpub"; expect_in "$TMP/err" "bad bytecode: checksum mismatch"
printf 'not bytecode' > "$TMP/text.tpub"
expect_status 3 "$TPURUN" "$TMP/text.tpub"; expect_in "$TMP/err" "bad bytecode"
# A rejected program is exit 2.
printf 'func.func @main() -> tensor<f32> {\n  %%0 = stablehlo.bogus : tensor<f32>\n  return %%0 : tensor<f32>\n}\n' > "$TMP/bad.mlir"
expect_status 2 "$TPURUN" "$TMP/bad.mlir"
# Runtime error: more than the chip's HBM, named with the op and its location.
cat > "$TMP/big.mlir" <<'MLIR'
func.func @main() -> tensor<4x1073741824xf32> {
  %0 = stablehlo.iota dim = 1 : tensor<4x1073741824xf32>
  return %0 : tensor<4x1073741824xf32>
}
MLIR
# The compiler's buffer assignment rejects it first (exit 2); without that
# pass the VM's own limit stops it at run time (exit 4).
expect_status 2 "$TPURUN" --target=v5e "$TMP/big.mlir"
expect_in "$TMP/err" "big.mlir:2:8: error: program needs 32.0 GiB of HBM at its peak but v5e has 16 GiB"
expect_status 4 "$TPURUN" --target=v5e --passes=dce "$TMP/big.mlir"
expect_in "$TMP/err" "big.mlir:2:8: error: 'stablehlo.iota' op out of memory"
expect_in "$TMP/err" "HBM"
# --check: PASS and FAIL lines, exit 1 on a failed check; split files.
cat > "$TMP/checks.mlir" <<'MLIR'
func.func @good() {
  %0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %1 = stablehlo.add %0, %0 : tensor<2xf32>
  check.expect_eq_const %1, dense<[2.0, 4.0]> : tensor<2xf32>
  func.return
}
// -----
func.func @bad() {
  %0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  check.expect_almost_eq_const %0, dense<[1.0, 2.5]> : tensor<2xf32>
  func.return
}
MLIR
expect_status 1 "$TPURUN" --check --split-input-file "$TMP/checks.mlir"
expect_in "$TMP/out" "PASS expect_eq at $TMP/checks.mlir:4:3"
expect_in "$TMP/out" "FAIL expect_almost_eq at $TMP/checks.mlir:10:3: 1 of 2 elements differs; at [1]: expected 2.5, actual 2 (abs diff 0.5 > tolerance 0.0001)"
expect_in "$TMP/out" "checks: 1 passed, 1 failed"
head -n 6 "$TMP/checks.mlir" > "$TMP/good.mlir"
expect_status 0 "$TPURUN" --check "$TMP/good.mlir"; expect_in "$TMP/out" "checks: 1 passed, 0 failed"
# Elided weights: random data and a warning.
cat > "$TMP/elided.mlir" <<'MLIR'
func.func @main() -> tensor<4xf32> {
  %0 = stablehlo.constant dense_resource<__elided__> : tensor<4xf32>
  return %0 : tensor<4xf32>
}
MLIR
expect_status 0 "$TPURUN" "$TMP/elided.mlir"
expect_in "$TMP/err" "warning: dense_resource<__elided__> weights are filled with seeded random data"
expect_in "$TMP/out" "result[0]: 4xf32="
exit 0
