#!/usr/bin/env bash
# Input from stdin, output with -o, --verify-only, --split-input-file.
source "$(dirname "$0")/lib.sh"
ex="$ROOT/examples/mlp.mlir"
expect_status 0 "$TPUCC" --emit=mlir "$ex" -o "$TMP/a.mlir"
[ -s "$TMP/a.mlir" ] || fail "-o wrote nothing"
"$TPUCC" --emit=mlir - < "$ex" > "$TMP/b.mlir" || fail "stdin input failed"
cmp -s "$TMP/a.mlir" "$TMP/b.mlir" || fail "stdin and file input print differently"
expect_status 0 "$TPUCC" --verify-only "$ex"
[ ! -s "$TMP/out" ] || fail "--verify-only printed something"
# Printing is a fixed point.
"$TPUCC" --emit=mlir "$TMP/a.mlir" > "$TMP/c.mlir" || fail "re-parse of printed output failed"
cmp -s "$TMP/a.mlir" "$TMP/c.mlir" || fail "print is not a fixed point"
# Split files: all errors of all chunks are reported with original line numbers.
cat > "$TMP/split.mlir" <<'MLIR'
func.func @ok(%a: tensor<f32>) -> tensor<f32> {
  return %a : tensor<f32>
}
// -----
func.func @bad1(%a: tensor<f32>) -> tensor<i32> {
  return %a : tensor<f32>
}
// -----
func.func @bad2() {
  %0 = stablehlo.add %x, %x : tensor<f32>
  return
}
MLIR
expect_status 2 "$TPUCC" --emit=mlir --split-input-file "$TMP/split.mlir"
expect_in "$TMP/err" "split.mlir:6:3: error"
expect_in "$TMP/err" "split.mlir:10:22: error: use of undeclared SSA value name '%x'"
printf 'func.func @a() {\n  return\n}\n// -----\nfunc.func @b() {\n  return\n}\n' > "$TMP/two.mlir"
expect_status 0 "$TPUCC" --emit=mlir --split-input-file "$TMP/two.mlir"
expect_in "$TMP/out" "// -----"
# Bytecode: the default output is INPUT.tpub; -o - writes it to stdout; a
# rejected program leaves no output file.
cp "$ex" "$TMP/m.mlir"
expect_status 0 "$TPUCC" "$TMP/m.mlir"
[ -s "$TMP/m.tpub" ] || fail "default output $TMP/m.tpub not written"
"$TPUCC" "$TMP/m.mlir" -o - > "$TMP/m2.tpub" || fail "-o - failed"
cmp -s "$TMP/m.tpub" "$TMP/m2.tpub" || fail "bytecode is not deterministic"
expect_status 2 "$TPUCC" "$TMP/split.mlir" -o "$TMP/none.tpub"
[ ! -e "$TMP/none.tpub" ] || fail "a rejected program left an output file"
expect_status 1 "$TPUCC" --split-input-file "$TMP/two.mlir"
expect_in "$TMP/err" "--split-input-file writes several programs"
expect_status 0 "$TPUCC" --emit=asm "$TMP/m.mlir"
expect_in "$TMP/out" "func @main"
# Without the flag the same file is one module with duplicate-free symbols: it fails too.
expect_status 2 "$TPUCC" "$TMP/split.mlir"
exit 0
