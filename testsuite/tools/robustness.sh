#!/usr/bin/env bash
# Hostile inputs end in a diagnostic and exit 2, never a signal or a hang.
source "$(dirname "$0")/lib.sh"
check_rejected() { # NAME: the file $TMP/NAME must be rejected cleanly
  timeout 10 "$TPUCC" --verify-only "$TMP/$1" > /dev/null 2> "$TMP/err"
  local st=$?
  [ $st -eq 2 ] || fail "$1: exit status $st, expected 2: $(head -c 300 "$TMP/err")"
  grep -q "error:" "$TMP/err" || fail "$1: no diagnostic"
}
printf 'func.func @f() {\n' > "$TMP/unterminated.mlir"; check_rejected unterminated.mlir
printf '\x00\x01\x02garbage' > "$TMP/binary.mlir"; check_rejected binary.mlir
printf 'func.func @f() -> tensor<99999999999999999999xf32>\n' > "$TMP/hugedim.mlir"; check_rejected hugedim.mlir
printf 'func.func @f(%%a: tensor<4611686018427387904x4xf32>) {\n  return\n}\n' > "$TMP/bytes.mlir"; check_rejected bytes.mlir
python3 -c "print('func.func @f() {\n  %0 = stablehlo.constant dense<' + '['*5000 + '1' + ']'*5000 + '> : tensor<1xf32>\n  return\n}')" > "$TMP/deep.mlir"; check_rejected deep.mlir
python3 -c "print('func.func @f() -> ' + 'tuple<'*5000 + 'f32' + '>'*5000 + ' {\n}')" > "$TMP/deeptype.mlir"; check_rejected deeptype.mlir
printf 'func.func @f() {\n  %%0 = stablehlo.constant dense<123456789012345678901234567890> : tensor<i64>\n  return\n}\n' > "$TMP/bigint.mlir"; check_rejected bigint.mlir
printf 'func.func @f() {\n  %%0 = "stablehlo.add"() : () -> tensor<f32>\n  return\n}\n' > "$TMP/arity.mlir"; check_rejected arity.mlir
exit 0
