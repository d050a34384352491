#!/usr/bin/env bash
# Issue 12 (hardening) at the tools' level: a byte-order mark, long source
# lines in diagnostics, the input size bound, a sharding that does not fit refused.
source "$(dirname "$0")/lib.sh"
TPURUN="$BUILD/tpurun"

# A UTF-8 byte-order mark at the start of a file is skipped; a diagnostic on
# line 1 still points at the right column.
printf '\xef\xbb\xbffunc.func @main() -> tensor<2xf32> {\n  %%0 = stablehlo.constant dense<[1.0, 2.5]> : tensor<2xf32>\n  return %%0 : tensor<2xf32>\n}\n' > "$TMP/bom.mlir"
expect_status 0 "$TPURUN" "$TMP/bom.mlir"
expect_in "$TMP/out" "result[0]: 2xf32=1 2.5"
printf '\xef\xbb\xbffunc.func @f(%%a: tensor<2xf32>) -> tensor<2xf32> { return %%a : tensor<3xf32>\n}\n' > "$TMP/bom2.mlir"
expect_status 2 "$TPUCC" --verify-only "$TMP/bom2.mlir"
expect_in "$TMP/err" "bom2.mlir:1:64: error: use of value '%a' expects different type"
sed -n 3p "$TMP/err" | grep -qx ' \{63\}\^' || fail "BOM: caret not under column 64: $(cat "$TMP/err")"

# A diagnostic on a very long line shows a window of about 200 characters
# around the column, "..." on each cut side, the caret under the column.
python3 -c "
print('func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {')
print('  %0 = stablehlo.add %a, %a : tensor<2xf32>' + ' ' * 5000 + '%1 = stablehlo.bogus' + ' ' * 1000000 + '// end')
print('  return %0 : tensor<2xf32>\n}')" > "$TMP/long.mlir"
expect_status 2 "$TPUCC" --verify-only "$TMP/long.mlir"
expect_in "$TMP/err" "long.mlir:2:5049: error: custom op 'stablehlo.bogus' is unknown"
python3 - "$TMP/err" <<'PY' || fail "long line: $(head -c 600 "$TMP/err")"
import sys
lines = open(sys.argv[1]).read().split("\n")
src, caret = lines[1], lines[2]
assert src.startswith("...") and src.endswith("...") and len(src) <= 210, src
assert caret.strip() == "^" and src[caret.index("^"):].startswith("stablehlo.bogus"), (src, caret)
PY
# An error near the start of a long line: no "..." before it.
python3 -c "print('func.func @f() {\n  %0 = stablehlo.bogus' + ' ' * 1000 + '\n}')" > "$TMP/long2.mlir"
expect_status 2 "$TPUCC" --verify-only "$TMP/long2.mlir"
sed -n 2p "$TMP/err" | grep -q '^  %0 = stablehlo.bogus *\.\.\.$' || fail "long line start: $(cat "$TMP/err")"
sed -n 3p "$TMP/err" | grep -qx '       ^' || fail "long line start caret: $(cat "$TMP/err")"

# The input size bound (default 2 GiB): past it, exit 3 and a message, for
# pipes, character devices and regular files.
head -c 3M /dev/zero > "$TMP/zeros"
expect_status 3 timeout 20 sh -c "\"$TPUCC\" - --max-input-size=1M < \"$TMP/zeros\""
expect_in "$TMP/err" "tpucc: <stdin>: input larger than 1048576 bytes (raise with --max-input-size)"
expect_status 3 timeout 20 "$TPUCC" /dev/zero --max-input-size=1M
expect_in "$TMP/err" "tpucc: /dev/zero: input larger than 1048576 bytes (raise with --max-input-size)"
expect_status 3 timeout 20 "$TPURUN" /dev/zero --max-input-size=64K
expect_in "$TMP/err" "tpurun: /dev/zero: input larger than 65536 bytes"
size=$(wc -c < "$TMP/bom.mlir")
expect_status 0 "$TPURUN" "$TMP/bom.mlir" --max-input-size="$size"
expect_status 3 "$TPURUN" "$TMP/bom.mlir" --max-input-size=$((size - 1))
expect_in "$TMP/err" "input larger than $((size - 1)) bytes"
expect_status 1 "$TPUCC" "$TMP/bom.mlir" --max-input-size=1X
expect_in "$TMP/err" "invalid --max-input-size '1X'"
# A sharding that does not fit the program (4 devices on 2 partitions) is
# refused at compile time by both tools (exit 2, the value named), never
# run.
cat > "$TMP/tiled.mlir" <<'MLIR'
module @jit_f attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x2xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}) -> (tensor<4x2xf32> {mhlo.sharding = "{devices=[2,1]<=[2]}"}) {
    %0 = stablehlo.add %arg0, %arg0 : tensor<4x2xf32>
    return %0 : tensor<4x2xf32>
  }
}
MLIR
msg="tiled.mlir:2:3: error: 'func.func' op mhlo.sharding = \"{devices=[4,1]<=[4]}\" on %arg0 of @main does not fit its type 'tensor<4x2xf32>': it spreads over 4 devices but the program has 2 partitions"
expect_status 2 "$TPURUN" "$TMP/tiled.mlir" --input='2x4x2xf32=1,2,3,4,5,6,7,8,1,2,3,4,5,6,7,8'
expect_in "$TMP/err" "$msg"
grep -q "result" "$TMP/out" && fail "a program with a bad sharding printed results: $(cat "$TMP/out")"
for o in -O0 -O2; do
  expect_status 2 "$TPUCC" "$o" "$TMP/tiled.mlir" -o "$TMP/tiled.tpub"
  expect_in "$TMP/err" "$msg"
done
expect_status 2 "$TPUCC" --verify-only "$TMP/tiled.mlir"
[ -e "$TMP/tiled.tpub" ] && fail "a .tpub was written for a program with a bad sharding"
exit 0
