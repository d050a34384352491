#!/usr/bin/env bash
# Bounded dynamic dims (docs/dynamic-shapes.md): each program of
# testsuite/bounded/ is compiled ONCE with its '?' dims bounded, run at the
# sizes 0, 1, 3 and the bound, and each result compared with the static
# program of that size (the template with the size substituted); the cache
# holds one entry for all sizes; a size over the bound is refused.
source "$(dirname "$0")/lib.sh"
TPURUN="$BUILD/tpurun"
T="$ROOT/testsuite/bounded"
bounded() { # template -> the bounded program
  sed -e 's/DYN/?/g' -e 's/BNDC/, #stablehlo.bounds<16, ?>/g' -e 's/BNDQ/, #stablehlo.bounds<18, ?>/g' \
      -e 's/BNDW/, #stablehlo.bounds<7, ?>/g' -e 's/BNDS/, #stablehlo.bounds<4, ?>/g' -e 's/BND4/, #stablehlo.bounds<?, 8, ?, ?>/g' \
      -e 's/BNDT2/, #stablehlo.bounds<?, 16>/g' -e 's/BNDT/, #stablehlo.bounds<?, 8>/g' -e 's/BND3/, #stablehlo.bounds<8, ?, ?>/g' \
      -e 's/BND1/, #stablehlo.bounds<8>/g' -e 's/BND/, #stablehlo.bounds<8, ?>/g' -e 's/LIM/8/g' "$1"
}
static_of() { # template n -> the static program of size n
  local n=$2 q=$(( $2 > 0 ? 2 * $2 + 2 : 3 ))
  sed -e "s/DYNx4xf32BNDC/$((2 * n))x4xf32/g" -e "s/DYNx4xf32BNDW/$((n - 1))x4xf32/g" -e "s/DYNxf32BNDT2/$((2 * n))xf32/g" -e "s/DYNx2xf32BNDS/$((n / 2))x2xf32/g" -e "s/DYNx4xf32BNDQ/${q}x4xf32/g" -e "s/DYN/$n/g" -e "s/LIM/$n/g" \
      -e 's/BND[CQTWS1234]*//g' "$1" |
  # tpurun's back end runs no real_dynamic_slice: the static program slices.
  sed -e "s/stablehlo.real_dynamic_slice %x, %start, %limit, %strides : (\(tensor<[0-9x]*f32>\), tensor<2xi32>, tensor<2xi32>, tensor<2xi32>)/stablehlo.slice %x [1:$n:2, 0:4:2] : (\1)/"
}
vals() { python3 -c "import sys; n=int(sys.argv[1]); print(' '.join(str(i % $2 - 2) for i in range(n)))" "$1"; }
runs=0
for prog in elementwise contract data control more window scatter reshape dynops; do
  bounded "$T/$prog.mlir" > "$TMP/$prog.mlir"
  expect_status 0 "$TPUCC" "$TMP/$prog.mlir" -o "$TMP/$prog.tpub"
  sizes="0 1 3 8"
  [ $prog = data ] && sizes="2 3 8" # its dynamic_slice takes 2 rows
  [ $prog = more ] && sizes="1 3 8" # its gather takes a row
  [ $prog = window ] && sizes="2 3 8" # its window has 2 rows
  [ $prog = dynops ] && sizes="1 3 8" # its static twin slices from row 1
  for n in $sizes; do
    static_of "$T/$prog.mlir" $n > "$TMP/static.mlir"
    case $prog in
      control) ins=(--input="${n}xf32=$(vals $n 7)") ;;
      contract | window | dynops) ins=(--input="${n}x4xf32=$(vals $((4 * n)) 7)") ;;
      reshape) ins=(--input="${n}x2xf32=$(vals $((2 * n)) 7)") ;;
      *) ins=(--input="${n}x4xf32=$(vals $((4 * n)) 7)" --input="${n}x4xf32=$(vals $((4 * n)) 5)") ;;
    esac
    "$TPURUN" "$TMP/$prog.tpub" "${ins[@]}" > "$TMP/dyn.txt" 2>&1 || fail "$prog at size $n: $(cat "$TMP/dyn.txt")"
    "$TPURUN" --no-cache "$TMP/static.mlir" "${ins[@]}" > "$TMP/static.txt" 2>&1 || fail "static $prog $n: $(cat "$TMP/static.txt")"
    cmp -s "$TMP/dyn.txt" "$TMP/static.txt" || fail "$prog at size $n: $(diff "$TMP/dyn.txt" "$TMP/static.txt" | head -6)"
    grep -q "^result\[0\]: " "$TMP/dyn.txt" || fail "$prog at size $n printed no result"
    runs=$((runs + 1))
  done
done
[ "$runs" -eq 32 ] || fail "ran $runs of 32"
# Every -O level: the same results at size 3.
for prog in elementwise contract control more window scatter; do
  for opt in -O0 -O1; do
    expect_status 0 "$TPUCC" $opt "$TMP/$prog.mlir" -o "$TMP/$prog$opt.tpub"
    case $prog in
      control) ins=(--input="3xf32=$(vals 3 7)") ;;
      contract | window | dynops) ins=(--input="3x4xf32=$(vals 12 7)") ;;
      *) ins=(--input="3x4xf32=$(vals 12 7)" --input="3x4xf32=$(vals 12 5)") ;;
    esac
    "$TPURUN" "$TMP/$prog.tpub" "${ins[@]}" > "$TMP/o2.txt" 2>&1
    "$TPURUN" "$TMP/$prog$opt.tpub" "${ins[@]}" > "$TMP/o.txt" 2>&1 || fail "$prog $opt: $(cat "$TMP/o.txt")"
    cmp -s "$TMP/o.txt" "$TMP/o2.txt" || fail "$prog $opt differs from -O2: $(diff "$TMP/o.txt" "$TMP/o2.txt" | head -4)"
  done
done
# A size over the bound, or a static dim that differs: exit 1 with a reason.
expect_status 1 "$TPURUN" "$TMP/contract.tpub" --input="9x4xf32=1"
expect_in "$TMP/err" "dim 0 is 9, the parameter's is bounded by 8"
expect_status 1 "$TPURUN" "$TMP/contract.tpub" --input="2x5xf32=1"
# Operands of one element-wise op (or one contraction) whose sizes differ at
# run time: exit 4 naming the op and both sizes, never a silent result.
printf 'func.func @main(%%x: tensor<?x4xf32, #stablehlo.bounds<8, ?>>, %%y: tensor<?x4xf32, #stablehlo.bounds<8, ?>>) -> tensor<?x4xf32, #stablehlo.bounds<8, ?>> {\n  %%0 = stablehlo.add %%x, %%y : tensor<?x4xf32, #stablehlo.bounds<8, ?>>\n  return %%0 : tensor<?x4xf32, #stablehlo.bounds<8, ?>>\n}\n' > "$TMP/mismatch.mlir"
expect_status 0 "$TPUCC" "$TMP/mismatch.mlir" -o "$TMP/mismatch.tpub"
expect_status 4 "$TPURUN" "$TMP/mismatch.tpub" --input="3x4xf32=1" --input="5x4xf32=1"
expect_in "$TMP/err" "'stablehlo.add' operands' dim 0 sizes differ at run time: 3 and 5"
expect_status 0 "$TPURUN" "$TMP/mismatch.tpub" --input="3x4xf32=1" --input="3x4xf32=1"
# The records, in the disassembly and refused when corrupt (exit 3).
expect_status 0 "$TPUCC" --emit=asm "$TMP/contract.mlir" -o "$TMP/contract.asm"
expect_in "$TMP/contract.asm" "; dynamic param 0 dim 0: bound 8, size in param 1"
expect_in "$TMP/contract.asm" "; dynamic result 3 dim 1: bound 8, size in result 6"
/usr/bin/python3 - "$TMP/contract.tpub" "$TMP/bad.tpub" <<'PY' || fail "could not corrupt the DYNDIMS record"
import ctypes, struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
count = struct.unpack_from('<I', b, 40)[0]
for i in range(count):
    kind, n, off = struct.unpack_from('<IIQ', b, 64 + 16 * i)
    if kind == 12:  # DYNDIMS: bound of record 0
        struct.pack_into('<q', b, off + 16, 9)
xx = ctypes.CDLL('libxxhash.so.0')
xx.XXH3_64bits.restype = ctypes.c_uint64
xx.XXH3_64bits.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
struct.pack_into('<Q', b, 56, 0)
struct.pack_into('<Q', b, 56, xx.XXH3_64bits(bytes(b), len(b)))
open(sys.argv[2], 'wb').write(b)
PY
expect_status 3 "$TPURUN" "$TMP/bad.tpub" --input="2x4xf32=1"
expect_in "$TMP/err" "DYNDIMS: record 0 (@main parameter 0 dim 0): bound 9, the tensor's dim is 8"
# A .npy input at its own shape.
/usr/bin/python3 -c "import numpy as np; np.save('$TMP/x.npy', np.arange(12, dtype=np.float32).reshape(3, 4) - 2)"
expect_status 0 "$TPURUN" "$TMP/contract.tpub" --input="@$TMP/x.npy"
cp "$TMP/out" "$TMP/npy.txt"
static_of "$T/contract.mlir" 3 > "$TMP/static.mlir"
expect_status 0 "$TPURUN" --no-cache "$TMP/static.mlir" --input="3x4xf32=$(/usr/bin/python3 -c "print(' '.join(str(i - 2) for i in range(12)))")"
cmp -s "$TMP/out" "$TMP/npy.txt" || fail "a 3x4 .npy input: $(diff "$TMP/out" "$TMP/npy.txt" | head -4)"
expect_in "$TMP/npy.txt" "result[0]: 3x3xf32="
# random uses the bound.
expect_status 0 "$TPURUN" "$TMP/contract.tpub" --input=random
expect_in "$TMP/out" "result[0]: 8x3xf32="
# One cache entry serves every size of the .mlir.
mkdir -p "$TMP/cache"
for n in 1 5 8; do
  expect_status 0 "$TPURUN" --cache-dir="$TMP/cache" --metrics "$TMP/contract.mlir" --input="${n}x4xf32=1"
  expect_in "$TMP/out" "result[0]: ${n}x3xf32="
done
expect_in "$TMP/err" "compiles 0, cache hits 1, cache misses 0"
[ "$(find "$TMP/cache" -type f -name '*.tpuc' | wc -l)" -eq 1 ] || fail "the cache holds $(find "$TMP/cache" -type f -name '*.tpuc' | wc -l) programs, expected one"
# An unbounded argument beside bounded ones needs its shape (shape refinement,
# docs/shape-refinement.md): a located error without it.
printf 'func.func @main(%%a: tensor<?xf32>, %%b: tensor<?xf32, #stablehlo.bounds<4>>) -> tensor<?xf32> {\n  return %%a : tensor<?xf32>\n}\n' > "$TMP/unb.mlir"
expect_status 2 "$TPUCC" "$TMP/unb.mlir" -o "$TMP/unb.tpub"
expect_in "$TMP/err" "argument #0 has the unbounded type tensor<?xf32>: give its concrete shape"
# An op without a rule on a dynamic dim: a located error naming it.
printf 'func.func @main(%%a: tensor<?x3x3xf32, #stablehlo.bounds<4, ?, ?>>) -> tensor<?x3x3xf32, #stablehlo.bounds<4, ?, ?>> {\n  %%0 = "stablehlo.cholesky"(%%a) {lower = true} : (tensor<?x3x3xf32, #stablehlo.bounds<4, ?, ?>>) -> tensor<?x3x3xf32, #stablehlo.bounds<4, ?, ?>>\n  return %%0 : tensor<?x3x3xf32, #stablehlo.bounds<4, ?, ?>>\n}\n' > "$TMP/chol.mlir"
expect_status 2 "$TPUCC" "$TMP/chol.mlir" -o "$TMP/chol.tpub"
expect_in "$TMP/err" "'stablehlo.cholesky' op operand #0: dimension 0 is dynamic"
# A bound the i32 size cannot carry.
printf 'func.func @main(%%a: tensor<?xf32, #stablehlo.bounds<3000000000>>) -> tensor<?xf32, #stablehlo.bounds<3000000000>> {\n  return %%a : tensor<?xf32, #stablehlo.bounds<3000000000>>\n}\n' > "$TMP/huge.mlir"
expect_status 2 "$TPUCC" "$TMP/huge.mlir" -o "$TMP/huge.tpub"
expect_in "$TMP/err" "does not fit the i32 that carries its size"
# Bound 0, and a loop condition reading a captured size.
printf 'func.func @main(%%a: tensor<?xf32, #stablehlo.bounds<0>>) -> tensor<?xf32, #stablehlo.bounds<0>> {\n  %%0 = stablehlo.add %%a, %%a : tensor<?xf32, #stablehlo.bounds<0>>\n  return %%0 : tensor<?xf32, #stablehlo.bounds<0>>\n}\n' > "$TMP/zero.mlir"
expect_status 0 "$TPURUN" "$TMP/zero.mlir" --input=0xf32=
expect_in "$TMP/out" "result[0]: 0xf32="
echo "bounded: $runs runs at sizes 0 (1 or 2 where a program needs rows), 1, 3, 8 matched the static programs"
