#!/usr/bin/env python3
"""NumPy reference of StableHLO's quantization (spec.md, "Quantized element
types" and the dequantize / quantize / dequantize_op_quantize helpers), and
the execution test that runs tpurun on quantized programs and compares its
results with the reference bit for bit.

    quant_ref.py run TPURUN TMPDIR     run every case; exit 1 on a mismatch

Every case is a small StableHLO program whose arguments and results are
quantized or float tensors.  tpurun reads and prints a quantized tensor as
its storage integers (docs/quantization.md), so inputs are storage .npy files
and results are compared as storage integers (floats by their bits).

The reference follows the spec's formulas in the expressed type (f32):
    dequantize(x) = convert(x - zero_point, f32) * scale
    quantize(x)   = convert(round_nearest_even(clamp(storage_min,
                        x / scale + zero_point, storage_max)), storage)
    op on quantized tensors = quantize(op(dequantize(inputs...)))
Contractions are computed in float64 and rounded to f32 once; the cases
keep them exact in f32 (power-of-two scales, or one term per sum), so the
result does not depend on the order of the sums.
"""
import os
import subprocess
import sys

import numpy as np

F32 = np.float32


class QType:
    """A uniform quantized element type."""

    def __init__(self, storage, scales, zps=None, axis=None, lo=None, hi=None, expressed="f32"):
        self.signed = storage[0] == "i"
        self.bits = int(storage[1:])
        self.storage = storage
        self.scales = [float(s) for s in np.atleast_1d(scales)]
        self.zps = [int(z) for z in np.atleast_1d(zps if zps is not None else [0] * len(self.scales))]
        self.axis = axis
        dmin = -(1 << (self.bits - 1)) if self.signed else 0
        dmax = (1 << (self.bits - 1)) - 1 if self.signed else (1 << self.bits) - 1
        self.min = dmin if lo is None else lo
        self.max = dmax if hi is None else hi
        self.narrow = lo is not None or hi is not None
        self.expressed = expressed

    def mlir(self):
        st = self.storage + (f"<{self.min}:{self.max}>" if self.narrow else "")
        params = [f"{s!r}:{z}" for s, z in zip(self.scales, self.zps)]
        if self.axis is None:
            return f"!quant.uniform<{st}:{self.expressed}, {params[0]}>"
        return f"!quant.uniform<{st}:{self.expressed}:{self.axis}, {{{', '.join(params)}}}>"

    def np_expressed(self):
        return {"f32": np.float32, "f16": np.float16, "f64": np.float64}[self.expressed]

    def np_storage(self):
        """The numpy dtype tpurun's .npy files use for the storage."""
        if self.bits <= 8:
            return np.int8 if self.signed else np.uint8
        if self.bits <= 16:
            return np.int16 if self.signed else np.uint16
        return np.int32 if self.signed else np.uint32

    def params(self, shape, values, dtype):
        v = np.array(values, dtype=dtype)
        if self.axis is None:
            return v[0]
        s = [1] * len(shape)
        s[self.axis] = len(values)
        return v.reshape(s)


def tensor(shape, elem):
    return "tensor<" + "".join(f"{d}x" for d in shape) + elem + ">"


def dequantize(x, q):
    """spec: (x - zero_point) as the expressed type, times scale."""
    e = q.np_expressed()
    centered = x.astype(np.int64) - q.params(x.shape, q.zps, np.int64)
    return centered.astype(e) * q.params(x.shape, q.scales, e)


def quantize(x, q):
    """spec: clamp(x / scale + zero_point), round to nearest even, convert."""
    e = q.np_expressed()
    x = x.astype(e)
    s = x / q.params(x.shape, q.scales, e)
    s = s + q.params(x.shape, q.zps, e)
    s = np.clip(s, e(q.min), e(q.max))
    return np.rint(s).astype(q.np_storage())


def requantize(x, qin, qout):
    return quantize(dequantize(x, qin), qout)


def dequantize_op_quantize(op, inputs, out_q):
    return quantize(op(*[dequantize(x, q) for x, q in inputs]), out_q)


def dot_f32(a, b):
    """a (M x K) . b (K x N), in float64 rounded to f32 once."""
    return (a.astype(np.float64) @ b.astype(np.float64)).astype(F32)


def conv_nhwc_f32(x, w, pad):
    """NHWC input, HWIO kernel, stride 1, symmetric zero padding PAD."""
    x = np.pad(x.astype(np.float64), ((0, 0), (pad, pad), (pad, pad), (0, 0)))
    n, h, wd, c = x.shape
    kh, kw, _, o = w.shape
    out = np.zeros((n, h - kh + 1, wd - kw + 1, o))
    for i in range(out.shape[1]):
        for j in range(out.shape[2]):
            patch = x[:, i:i + kh, j:j + kw, :].reshape(n, -1)
            out[:, i, j, :] = patch @ w.astype(np.float64).reshape(-1, o)
    return out.astype(F32)


# ------------------------------------------------------------------ cases
RNG = np.random.default_rng(17)


def storage_values(q, shape):
    return RNG.integers(q.min, q.max + 1, size=shape).astype(q.np_storage())


def unary_case(name, op_text, q_in, q_out, shape, fn, arg=None):
    """A quantized value through one op (uniform_quantize, dequantize, ...)."""
    tin = tensor(shape, q_in.mlir() if isinstance(q_in, QType) else q_in)
    tout = tensor(shape, q_out.mlir() if isinstance(q_out, QType) else q_out)
    prog = (f"func.func @main(%a: {tin}) -> {tout} {{\n"
            f"  %r = {op_text} %a : ({tin}) -> {tout}\n"
            f"  func.return %r : {tout}\n}}\n")
    if arg is None:
        arg = storage_values(q_in, shape)
    return name, prog, [arg], [fn(arg)]


def binary_case(name, op, qa, qb, qr, shape, fn):
    ta, tb, tr = (tensor(shape, q.mlir()) for q in (qa, qb, qr))
    prog = (f"func.func @main(%a: {ta}, %b: {tb}) -> {tr} {{\n"
            f"  %r = \"stablehlo.{op}\"(%a, %b) : ({ta}, {tb}) -> {tr}\n"
            f"  func.return %r : {tr}\n}}\n")
    a, b = storage_values(qa, shape), storage_values(qb, shape)
    return name, prog, [a, b], [dequantize_op_quantize(fn, [(a, qa), (b, qb)], qr)]


def dot_case(name, qa, qb, qr, m, k, n, lhs_float=False):
    ta = tensor((m, k), "f32" if lhs_float else qa.mlir())
    tb, tr = tensor((k, n), qb.mlir()), tensor((m, n), "f32" if lhs_float else qr.mlir())
    prog = (f"func.func @main(%a: {ta}, %b: {tb}) -> {tr} {{\n"
            f"  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : ({ta}, {tb}) -> {tr}\n"
            f"  func.return %r : {tr}\n}}\n")
    b = storage_values(qb, (k, n))
    if lhs_float:
        a = (RNG.integers(-16, 17, size=(m, k)) / 8.0).astype(F32)  # dyadic: the f32 sums are exact
        return name, prog, [a, b], [dot_f32(a, dequantize(b, qb))]
    a = storage_values(qa, (m, k))
    return name, prog, [a, b], [quantize(dot_f32(dequantize(a, qa), dequantize(b, qb)), qr)]


def conv_case(name, qa, qb, qr, xshape, wshape, pad):
    """qa and qr None: hybrid (float input and result, quantized kernel)."""
    oshape = (xshape[0], xshape[1] + 2 * pad - wshape[0] + 1, xshape[2] + 2 * pad - wshape[1] + 1, wshape[3])
    ta, tb = tensor(xshape, qa.mlir() if qa else "f32"), tensor(wshape, qb.mlir())
    tr = tensor(oshape, qr.mlir() if qr else "f32")
    prog = (f"func.func @main(%a: {ta}, %b: {tb}) -> {tr} {{\n"
            f"  %r = stablehlo.convolution(%a, %b) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], "
            f"window = {{stride = [1, 1], pad = [[{pad}, {pad}], [{pad}, {pad}]]}} "
            f"{{batch_group_count = 1 : i64, feature_group_count = 1 : i64}} : ({ta}, {tb}) -> {tr}\n"
            f"  func.return %r : {tr}\n}}\n")
    b = storage_values(qb, wshape)
    if qa is None:
        a = (RNG.integers(-16, 17, size=xshape) / 4.0).astype(F32)  # dyadic: the f32 sums are exact
        return name, prog, [a, b], [conv_nhwc_f32(a, dequantize(b, qb), pad)]
    a = storage_values(qa, xshape)
    return name, prog, [a, b], [quantize(conv_nhwc_f32(dequantize(a, qa), dequantize(b, qb), pad), qr)]


def move_case(name, qa, shape, body, out_shape, fn, qr=None):
    """Data movement on quantized values: the storage integers move."""
    qr = qr or qa
    ta, tr = tensor(shape, qa.mlir()), tensor(out_shape, qr.mlir())
    prog = (f"func.func @main(%a: {ta}) -> {tr} {{\n"
            f"  %r = {body} : ({ta}) -> {tr}\n"
            f"  func.return %r : {tr}\n}}\n")
    a = storage_values(qa, shape)
    return name, prog, [a], [fn(a)]


def reduce_max_case(name, q, shape):
    """A reduce whose body computes on quantized scalars (maximum)."""
    t, e, r = tensor(shape, q.mlir()), tensor((), q.mlir()), tensor(shape[:1], q.mlir())
    st = "i" if q.signed else "ui"
    prog = (f"func.func @main(%a: {t}) -> {r} {{\n"
            f"  %init = stablehlo.constant() <{{value = dense<{q.min}> : tensor<{st}{q.bits}>}}> : () -> {e}\n"
            f"  %r = stablehlo.reduce(%a init: %init) across dimensions = [1] : ({t}, {e}) -> {r}\n"
            f"    reducer(%x: {e}, %y: {e}) {{\n"
            f"      %m = stablehlo.maximum %x, %y : {e}\n"
            f"      stablehlo.return %m : {e}\n    }}\n"
            f"  func.return %r : {r}\n}}\n")
    a = storage_values(q, shape)
    return name, prog, [a], [quantize(dequantize(a, q).max(axis=1), q)]


def cases():
    q8 = QType("i8", 0.1, -3)
    q8b = QType("i8", 0.2, 5)
    qu8 = QType("u8", 0.05, 128)
    q4 = QType("i4", 0.75, 1)
    q16 = QType("i16", 1e-3, -100)
    qnarrow = QType("i8", 0.5, 0, lo=-127, hi=127)
    qax = QType("u8", [0.5, 0.25, 0.1, 2.0], [0, 10, 128, 255], axis=1)
    qax16 = QType("i16", [0.01, 0.02, 0.03], [0, -5, 7], axis=0)
    x = (RNG.standard_normal((3, 4)) * 20).astype(F32)
    ties = np.array([[0.05, 0.15, -0.25, 0.35], [12.7, -12.8, 13.0, -13.1], [0.0, -0.0, 1e9, -1e9]], F32)
    qf = "stablehlo.uniform_quantize"
    qd = "stablehlo.uniform_dequantize"
    out = [
        unary_case("quantize_i8", qf, "f32", q8, (3, 4), lambda a: quantize(a, q8), x),
        unary_case("quantize_i8_ties_and_clamp", qf, "f32", q8, (3, 4), lambda a: quantize(a, q8), ties),
        unary_case("quantize_u8_per_axis", qf, "f32", qax, (3, 4), lambda a: quantize(a, qax), x),
        unary_case("quantize_i4", qf, "f32", q4, (3, 4), lambda a: quantize(a, q4), x / 4),
        unary_case("quantize_i16", qf, "f32", q16, (3, 4), lambda a: quantize(a, q16), x),
        unary_case("quantize_narrow_range", qf, "f32", qnarrow, (3, 4), lambda a: quantize(a, qnarrow), x * 10),
        unary_case("dequantize_i8", qd, q8, "f32", (3, 4), lambda a: dequantize(a, q8)),
        unary_case("dequantize_u8_per_axis", qd, qax, "f32", (3, 4), lambda a: dequantize(a, qax)),
        unary_case("dequantize_i4", qd, q4, "f32", (3, 4), lambda a: dequantize(a, q4)),
        unary_case("dequantize_i16_per_axis", qd, qax16, "f32", (3, 4), lambda a: dequantize(a, qax16)),
        unary_case("requantize_i8", qf, q8, q8b, (3, 4), lambda a: requantize(a, q8, q8b)),
        unary_case("requantize_i8_to_u8", qf, q8, qu8, (3, 4), lambda a: requantize(a, q8, qu8)),
        binary_case("add_i8", "add", q8, q8b, QType("i8", 0.15, 1), (3, 4), lambda a, b: a + b),
        binary_case("add_u8", "add", qu8, qu8, qu8, (3, 4), lambda a, b: a + b),
        binary_case("add_i4", "add", q4, q4, QType("i4", 1.5, 0), (3, 4), lambda a, b: a + b),
        binary_case("multiply_i8", "multiply", q8, q8b, QType("i8", 0.5, 2), (3, 4), lambda a, b: a * b),
        binary_case("subtract_i16", "subtract", q16, q16, q16, (3, 4), lambda a, b: a - b),
        dot_case("dot_int_fast_path", QType("i8", 0.5, 3), QType("i8", 0.25), QType("i8", 1.0, -5), 4, 8, 3),
        dot_case("dot_int_per_axis", QType("i8", 0.5, 3), QType("i8", [0.5, 0.25, 0.125], axis=1),
                 QType("i8", [2.0, 1.0, 0.5], [1, 2, 3], axis=1), 4, 8, 3),
        dot_case("dot_int_i16_narrow", QType("i16", 0.125, -7, lo=-300, hi=300), QType("i16", 0.0625, lo=-300, hi=300),
                 QType("i16", 0.5, 4), 3, 4, 2),
        dot_case("dot_i16_generic_path", QType("i16", 0.125, -7), QType("i16", 0.0625), QType("i16", 0.5, 4), 3, 1, 2),
        dot_case("dot_generic_path", QType("i8", 0.1, 3), QType("i8", 0.3), QType("i8", 0.07, -5), 4, 1, 3),
        dot_case("dot_hybrid", None, QType("i8", [0.5, 0.25, 0.125], axis=1), None, 4, 8, 3, lhs_float=True),
        conv_case("conv_int_fast_path", QType("i8", 0.5, 1), QType("i8", [1.0, 0.5, 0.25, 0.125], axis=3),
                  QType("i8", [4.0, 2.0, 1.0, 0.5], [0, 1, -1, 2], axis=3), (1, 5, 5, 2), (3, 3, 2, 4), 1),
        conv_case("conv_generic_path", QType("i8", 0.3, 1), QType("i8", 0.2), QType("i8", 0.9, 3),
                  (1, 4, 4, 1), (1, 1, 1, 2), 0),
        conv_case("conv_hybrid", None, QType("i8", [0.5, 0.25], axis=3), None, (1, 4, 4, 2), (2, 2, 2, 2), 0),
        unary_case("quantize_f16_expressed", qf, "f16", QType("i8", 0.1, 3, expressed="f16"), (3, 4),
                   lambda a: quantize(a, QType("i8", 0.1, 3, expressed="f16")), x.astype(np.float16)),
        unary_case("dequantize_f16_expressed", qd, QType("u8", 0.3, 100, expressed="f16"), "f16", (3, 4),
                   lambda a: dequantize(a, QType("u8", 0.3, 100, expressed="f16"))),
        reduce_max_case("reduce_max_body", QType("i8", 0.1, -3), (3, 4)),
        move_case("reshape_i8", q8, (3, 4), "stablehlo.reshape %a", (2, 6), lambda a: a.reshape(2, 6)),
        move_case("transpose_per_axis", qax, (3, 4), "stablehlo.transpose %a, dims = [1, 0]", (4, 3),
                  lambda a: a.T, QType("u8", qax.scales, qax.zps, axis=0)),
        move_case("slice_u8", qu8, (3, 4), "stablehlo.slice %a [1:3, 0:4:2]", (2, 2), lambda a: a[1:3, 0:4:2]),
    ]
    return out


# ------------------------------------------------------------------ runner
def same_bits(a, b):
    """Equal shapes and values; floats compared by their bits."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    if a.dtype.kind == "f" or b.dtype.kind == "f":
        as_int = {2: np.uint16, 4: np.uint32, 8: np.uint64}
        return a.dtype == b.dtype and np.array_equal(a.view(as_int[a.itemsize]), b.view(as_int[b.itemsize]))
    return np.array_equal(a.astype(np.int64), b.astype(np.int64))


def run(tpurun, tmp):
    passed = failed = 0
    for name, prog, args, want in cases():
        src = os.path.join(tmp, name + ".mlir")
        with open(src, "w") as f:
            f.write(prog)
        cmd = [tpurun, src]
        for i, a in enumerate(args):
            np.save(os.path.join(tmp, f"{name}.in{i}.npy"), a)
            cmd.append(f"--input=@{tmp}/{name}.in{i}.npy")
        for i in range(len(want)):
            cmd.append(f"--output=@{tmp}/{name}.out{i}.npy")
        p = subprocess.run(cmd, capture_output=True, text=True)
        ok = p.returncode == 0
        why = p.stderr.strip()[:300]
        for i, w in enumerate(want):
            if not ok:
                break
            got = np.load(os.path.join(tmp, f"{name}.out{i}.npy"))
            if not same_bits(got, w):
                ok = False
                bad = np.argwhere(got.astype(np.float64) != w.astype(np.float64))
                why = f"result {i} differs at {len(bad)} places, first {bad[0].tolist() if len(bad) else '?'}: " \
                      f"got {got.flat[0:6]}..., want {w.flat[0:6]}..."
        print(("PASS " if ok else "FAIL ") + name + ("" if ok else ": " + why))
        passed += ok
        failed += not ok
    print(f"{passed} passed, {failed} failed")
    return failed == 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "run":
        sys.exit(0 if run(sys.argv[2], sys.argv[3]) else 1)
    print(__doc__)
    sys.exit(2)
