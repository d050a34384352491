#!/usr/bin/env bash
# tpucc's documented exit codes and usage messages.
source "$(dirname "$0")/lib.sh"
expect_status 0 "$TPUCC" --help;              expect_in "$TMP/out" "usage: tpucc"
expect_status 0 "$TPUCC" --version;           expect_in "$TMP/out" "tpucc "
expect_status 1 "$TPUCC";                     expect_in "$TMP/err" "no input file"
expect_status 1 "$TPUCC" --bogus x.mlir;      expect_in "$TMP/err" "unknown option '--bogus'"
expect_status 1 "$TPUCC" --emit=llvm x.mlir;  expect_in "$TMP/err" "unknown --emit kind"
expect_status 1 "$TPUCC" a.mlir b.mlir;       expect_in "$TMP/err" "more than one input"
expect_status 3 "$TPUCC" "$TMP/missing.mlir"; expect_in "$TMP/err" "cannot open"
expect_status 3 "$TPUCC" "$TMP";              # a directory is unreadable as a file
printf 'func.func @f() {\n  %%0 = stablehlo.bogus : tensor<f32>\n  return\n}\n' > "$TMP/bad.mlir"
expect_status 2 "$TPUCC" "$TMP/bad.mlir";     expect_in "$TMP/err" "bad.mlir:2:8: error: custom op 'stablehlo.bogus' is unknown"
expect_in "$TMP/err" "^"
expect_status 0 "$TPUCC" "$ROOT/examples/mlp.mlir" -o "$TMP/mlp.tpub"
[ -s "$TMP/mlp.tpub" ] || fail "no bytecode written"
expect_status 1 "$TPUCC" --target=v9 "$ROOT/examples/mlp.mlir"; expect_in "$TMP/err" "unknown target"
exit 0
