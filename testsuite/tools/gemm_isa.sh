#!/usr/bin/env bash
# The packed matrix-multiply kernels through tpurun: a bf16 x bf16 -> f32,
# an i8 x i8 -> i32 and a u8 x u8 -> i32 dot_general (odd sizes, K odd, a
# rhs stored [N,K]) with the CPU's best kernels and with TPU_VM_ISA=avx2 and generic,
# against NumPy (int8 exact; bf16 within f32 rounding of a float64
# reference, and the three ISAs' results bit for bit equal: no denormals).
source "$(dirname "$0")/lib.sh"
TPURUN="$BUILD/tpurun"
PY=/usr/bin/python3
"$PY" -c 'import numpy' 2>/dev/null || { echo "skipped: python3-numpy missing"; exit 0; }
cat > "$TMP/bf16.mlir" <<'MLIR'
func.func @main(%a: tensor<37x301xf32>, %b: tensor<45x301xf32>) -> tensor<37x45xf32> {
  %x = stablehlo.convert %a : (tensor<37x301xf32>) -> tensor<37x301xbf16>
  %y = stablehlo.convert %b : (tensor<45x301xf32>) -> tensor<45x301xbf16>
  %0 = stablehlo.dot_general %x, %y, contracting_dims = [1] x [1] : (tensor<37x301xbf16>, tensor<45x301xbf16>) -> tensor<37x45xf32>
  return %0 : tensor<37x45xf32>
}
MLIR
cat > "$TMP/int8.mlir" <<'MLIR'
func.func @main(%a: tensor<19x333xi8>, %b: tensor<70x333xi8>, %c: tensor<19x333xui8>, %d: tensor<333x70xui8>)
    -> (tensor<19x70xi32>, tensor<19x70xi32>) {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [1] : (tensor<19x333xi8>, tensor<70x333xi8>) -> tensor<19x70xi32>
  %1 = stablehlo.dot_general %c, %d, contracting_dims = [1] x [0] : (tensor<19x333xui8>, tensor<333x70xui8>) -> tensor<19x70xi32>
  return %0, %1 : tensor<19x70xi32>, tensor<19x70xi32>
}
MLIR
"$PY" - "$TMP" <<'PY' || fail "NumPy inputs"
import sys, numpy as np
d = sys.argv[1]
rng = np.random.default_rng(7)
bf = lambda s: (rng.uniform(-4, 4, s).astype(np.float32).view(np.uint32) & 0xffff0000).view(np.float32)
np.save(d + "/a.npy", bf((37, 301))); np.save(d + "/b.npy", bf((45, 301)))
np.save(d + "/i.npy", rng.integers(-128, 128, (19, 333), dtype=np.int8))
np.save(d + "/j.npy", rng.integers(-128, 128, (70, 333), dtype=np.int8))
np.save(d + "/u.npy", rng.integers(0, 256, (19, 333), dtype=np.uint8))
np.save(d + "/v.npy", rng.integers(0, 256, (333, 70), dtype=np.uint8))
PY
for isa in default avx2 generic; do
  env=()
  [ "$isa" != default ] && env=(TPU_VM_ISA=$isa)
  env "${env[@]}" "$TPURUN" -O0 "$TMP/bf16.mlir" --input=@"$TMP/a.npy" --input=@"$TMP/b.npy" \
    --output=@"$TMP/bf16_$isa.npy" > "$TMP/out" 2>&1 || fail "bf16 ($isa): $(head -c 400 "$TMP/out")"
  env "${env[@]}" "$TPURUN" -O0 "$TMP/int8.mlir" --input=@"$TMP/i.npy" --input=@"$TMP/j.npy" \
    --input=@"$TMP/u.npy" --input=@"$TMP/v.npy" --output=@"$TMP/ii_$isa.npy" --output=@"$TMP/uu_$isa.npy" > "$TMP/out" 2>&1 || fail "int8 ($isa): $(head -c 400 "$TMP/out")"
done
msg=$("$PY" - "$TMP" <<'PY'
import sys, numpy as np
d = sys.argv[1]
a, b = np.load(d + "/a.npy").astype(np.float64), np.load(d + "/b.npy").astype(np.float64)
ref = a @ b.T
ld = lambda n: np.load(d + "/" + n + ".npy").astype(np.int64)
iref = {"ii": (ld("i") @ ld("j").T).astype(np.int32), "uu": (ld("u") @ ld("v")).astype(np.int32)}
first = None
for isa in ("default", "avx2", "generic"):
    got = np.load(d + "/bf16_%s.npy" % isa)
    if got.dtype != np.float32 or not np.allclose(got, ref, rtol=1e-5, atol=1e-3):
        print("bf16 %s: max error %g" % (isa, np.abs(got - ref).max())); sys.exit(1)
    if first is not None and got.tobytes() != first.tobytes():
        print("bf16 %s: not the bits of the default kernels" % isa); sys.exit(1)
    first = got
    for k in ("ii", "uu"):
        g = np.load(d + "/%s_%s.npy" % (k, isa))
        if g.dtype != np.int32 or not np.array_equal(g, iref[k]):
            print("int8 %s %s: %d elements differ" % (k, isa, int((g != iref[k]).sum()))); sys.exit(1)
PY
) || fail "$msg"
echo "bf16 and int8 dot_general agree with NumPy under TPU_VM_ISA default, avx2 and generic"
