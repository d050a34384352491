#!/usr/bin/env bash
# Exit codes and messages of the tools' corner cases (issue 12): each line
# here was a silent success or a misleading message before.
source "$(dirname "$0")/lib.sh"
TPURUN="$BUILD/tpurun"
export TPU_CACHE_DIR="$TMP/cache"

# --max-errors holds with the cache in use too.
{
  echo 'func.func @main(%a: tensor<2xf32>, %b: tensor<3xf32>) {'
  for i in 1 2 3 4 5 6; do echo "  %$i = stablehlo.add %a, %b : (tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32>"; done
  echo '  return'
  echo '}'
} >"$TMP/many.mlir"
for cache in --no-cache --cache-dir="$TMP/c1"; do
  expect_status 2 "$TPURUN" "$cache" --max-errors=2 "$TMP/many.mlir"
  [ "$(grep -c 'error:' "$TMP/err")" -eq 2 ] || fail "tpurun $cache --max-errors=2 printed $(grep -c 'error:' "$TMP/err") errors"
  expect_in "$TMP/err" "too many errors (2), stopping"
  expect_status 2 "$TPUCC" "$cache" --max-errors=2 "$TMP/many.mlir" -o "$TMP/many.tpub"
  [ "$(grep -c 'error:' "$TMP/err")" -eq 2 ] || fail "tpucc $cache --max-errors=2 printed $(grep -c 'error:' "$TMP/err") errors"
done
expect_status 1 "$TPURUN" --max-errors=0 "$TMP/many.mlir"; expect_in "$TMP/err" "invalid --max-errors value '0'"

# A cache directory that is a file: "not a directory", and the run goes on.
printf 'func.func @main(%%a: tensor<2xf32>) -> tensor<2xf32> {\n  %%0 = stablehlo.add %%a, %%a : tensor<2xf32>\n  return %%0 : tensor<2xf32>\n}\n' >"$TMP/p.mlir"
: >"$TMP/afile"
TPU_CACHE_DIR="$TMP/afile" expect_status 0 "$TPURUN" "$TMP/p.mlir" --input=2xf32=1,2
expect_in "$TMP/err" "cannot use directory '$TMP/afile': not a directory; compiling without the cache"
expect_in "$TMP/out" "result[0]: 2xf32=2 4"

# --check that ran no check is exit 1.
printf 'func.func @main() {\n  %%0 = stablehlo.constant dense<1.0> : tensor<f32>\n  return\n}\n' >"$TMP/nochecks.mlir"
expect_status 1 "$TPURUN" --check "$TMP/nochecks.mlir"
expect_in "$TMP/err" "no checks ran"
expect_in "$TMP/out" "checks: 0 passed, 0 failed"

# --target / -O / --passes with a .tpub: a warning naming the option.
expect_status 0 "$TPUCC" "$TMP/p.mlir" -o "$TMP/p.tpub" --target=v4
for opt in --target=v6e -O0 --passes=inline; do
  expect_status 0 "$TPURUN" "$opt" "$TMP/p.tpub" --input=2xf32=1,2
  expect_in "$TMP/err" "warning: $opt is ignored: '$TMP/p.tpub' is already compiled (for v4)"
done
expect_status 0 "$TPURUN" "$TMP/p.tpub" --input=2xf32=1,2
[ ! -s "$TMP/err" ] || fail "a plain .tpub run warned: $(cat "$TMP/err")"

# An output naming the program file is refused, and the program survives.
cp "$TMP/p.mlir" "$TMP/keep.mlir"
expect_status 1 "$TPUCC" "$TMP/keep.mlir" -o "$TMP/keep.mlir"
expect_in "$TMP/err" "refusing to write the output over the input file"
expect_status 1 "$TPUCC" "$TMP/keep.mlir" --emit=mlir -o "$TMP/../$(basename "$TMP")/keep.mlir"
cmp -s "$TMP/p.mlir" "$TMP/keep.mlir" || fail "tpucc overwrote its input"
cp "$TMP/p.tpub" "$TMP/keep.tpub"
expect_status 1 "$TPURUN" "$TMP/keep.tpub" --input=2xf32=1,2 --output=@"$TMP/keep.tpub"
expect_in "$TMP/err" "refusing to write a result over the program file"
cmp -s "$TMP/p.tpub" "$TMP/keep.tpub" || fail "tpurun overwrote its program"

# Every output is checked before any is printed or written.
cat >"$TMP/tok.mlir" <<'MLIR'
func.func @main(%a: tensor<2xbf16>) -> (tensor<2xbf16>, !stablehlo.token) {
  %t = stablehlo.create_token : !stablehlo.token
  return %a, %t : tensor<2xbf16>, !stablehlo.token
}
MLIR
expect_status 1 "$TPURUN" "$TMP/tok.mlir" --input=2xbf16=1.5,-2 --output=- --output=@"$TMP/t.npy"
expect_in "$TMP/err" "result 1 of @main: $TMP/t.npy: a value of type token cannot be written to .npy"
[ ! -s "$TMP/out" ] || fail "a result was printed before the bad output was found: $(cat "$TMP/out")"
# bf16 goes to .npy as its bit patterns in uint16, with a note, and reads back.
expect_status 0 "$TPURUN" "$TMP/tok.mlir" --input=2xbf16=1.5,-2 --output=@"$TMP/bf.npy" --output=-
expect_in "$TMP/err" "note: $TMP/bf.npy holds the bf16 bit patterns as uint16"
expect_status 0 "$TPURUN" "$TMP/tok.mlir" --input=@"$TMP/bf.npy"
expect_in "$TMP/out" "result[0]: 2xbf16=1.5 -2"
if [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
  got=$(/usr/bin/python3 -c "import numpy as n, sys; a = n.load(sys.argv[1]); print(a.dtype, list(a))" "$TMP/bf.npy")
  [ "$got" = "uint16 [16320, 49152]" ] || fail "NumPy reads bf.npy as '$got'"
fi
exit 0
