#!/usr/bin/env python3
"""Writes (to stdout) a StableHLO program that checks constant folding
against the VM: for many element types, every element-wise op the
canonicalize pass folds (and the shape ops, on sub-byte, 16-bit and complex
elements) is applied to edge values twice, once to constants
(folded at compile time) and once to the same constants behind an
optimization_barrier (computed by the VM), and check.expect_eq asserts the
two results have the same bits (floats are compared as their bit patterns).

The value sets avoid what the folder deliberately leaves to the VM
(integer division by zero or INT_MIN / -1, max/min of -0.0 and +0.0,
float -> int out of range), so every folded-side op folds.  Above each
function, FOLDED lines (for FileCheck --check-prefix=FOLDED) assert that
after canonicalize only its VM-side ops remain."""
import itertools
import sys

INT_TYPES = ["i1", "i2", "i4", "ui4", "i8", "ui8", "i16", "ui16", "i32", "ui32", "i64", "ui64"]
FLOAT_TYPES = ["f64", "f32", "f16", "bf16", "f8E4M3FN", "f8E5M2", "f8E4M3FNUZ"]
INT_BINARY = ["add", "subtract", "multiply", "and", "or", "xor", "maximum", "minimum",
              "shift_left", "shift_right_arithmetic", "shift_right_logical"]
FLOAT_BINARY = ["add", "subtract", "multiply", "divide", "remainder"]
FLOAT_UNARY = ["negate", "abs", "sqrt", "floor", "ceil", "round_nearest_even", "round_nearest_afz", "sign"]
DIRECTIONS = ["EQ", "NE", "GE", "GT", "LE", "LT"]
COMPUTE_OPS = ("add|subtract|multiply|divide|remainder|and|or|xor|not|negate|abs|sign|maximum|minimum|"
               "shift_left|shift_right_arithmetic|shift_right_logical|popcnt|count_leading_zeros|compare|"
               "convert|select|clamp|sqrt|floor|ceil|round_nearest_even|round_nearest_afz|is_finite|"
               "reshape|transpose|reverse|slice|broadcast_in_dim|broadcast|concatenate|pad|iota")


def width(t):
    if t.startswith("f8"):
        return 8
    return 16 if t == "bf16" else int(t.lstrip("uif"))


def int_range(t):
    w = width(t)
    if t == "i1" or t.startswith("ui"):
        return 0, (1 << w) - 1
    return -(1 << (w - 1)), (1 << (w - 1)) - 1


def int_values(t):
    lo, hi = int_range(t)
    w = width(t)
    cand = [0, 1, 2, 3, -1, -2, lo, hi, lo + 1, hi - 1, w - 1, w, w + 1, hi // 2, lo // 2]
    return sorted({v for v in cand if lo <= v <= hi})


def lit_int(t, v):
    return ("true" if v else "false") if t == "i1" else str(v)


def float_specials(t):
    """(inf, nan, max, min subnormal) bit patterns; None where absent."""
    return {
        "f64": (0x7FF0000000000000, 0x7FF8000000000000, 0x7FEFFFFFFFFFFFFF, 1),
        "f32": (0x7F800000, 0x7FC00000, 0x7F7FFFFF, 1),
        "f16": (0x7C00, 0x7E00, 0x7BFF, 1),
        "bf16": (0x7F80, 0x7FC0, 0x7F7F, 1),
        "f8E4M3FN": (None, 0x7F, 0x7E, 1),
        "f8E5M2": (0x7C, 0x7E, 0x7B, 1),
        "f8E4M3FNUZ": (None, 0x80, 0x7F, 1),
    }[t]


def float_values(t, signed_zero=True):
    digits = {"f64": 16, "f32": 8, "f16": 4, "bf16": 4}.get(t, 2)
    sign = 1 << (width(t) - 1)
    inf, nan, mx, sub = float_specials(t)
    vals = ["0.0", "1.0", "-1.0", "0.1", "-2.5", "3.0", "0.5", "1.5", "7.0", "-0.3"]
    if signed_zero:
        vals.append("-0.0")
    hexes = [nan, mx, mx | sign, sub, sub | sign] + ([inf, inf | sign] if inf is not None else [])
    vals += ["0x%0*X" % (digits, h) for h in hexes]
    return vals


def uint_of(t):
    return {"f64": "ui64", "f32": "ui32", "f16": "ui16", "bf16": "ui16"}.get(t, "ui8")


class Func:
    def __init__(self, name):
        self.name, self.lines, self.n, self.vm_ops = name, [], 0, 0

    def v(self):
        self.n += 1
        return "%%v%d" % self.n

    def emit(self, line):
        self.lines.append("  " + line)

    def const(self, t, vals):
        r = self.v()
        self.emit("%s = stablehlo.constant dense<[%s]> : tensor<%dx%s>" % (r, ", ".join(vals), len(vals), t))
        b = self.v()
        self.emit("%s = stablehlo.optimization_barrier %s : tensor<%dx%s>" % (b, r, len(vals), t))
        return r, b

    def op(self, text, vm):
        r = self.v()
        self.emit("%s = %s" % (r, text))
        self.vm_ops += vm
        return r

    def both(self, fmt, args_fold, args_vm, rtype, n, bits_of=None):
        """Applies fmt to both operand lists and checks the results agree."""
        a = self.op(fmt.format(*args_fold), 0)
        b = self.op(fmt.format(*args_vm), 1)
        if bits_of:
            ut = uint_of(bits_of)
            a, b = [self.op("stablehlo.bitcast_convert %s : (tensor<%dx%s>) -> tensor<%dx%s>" % (x, n, rtype, n, ut), 0)
                    for x in (a, b)]
            rtype = ut
        self.emit("check.expect_eq %s, %s : tensor<%dx%s>" % (a, b, n, rtype))

    def text(self):
        head = ["// FOLDED-LABEL: func.func @%s()" % self.name]
        if self.vm_ops:
            head.append("// FOLDED-COUNT-%d: = stablehlo.{{(%s)}} " % (self.vm_ops, COMPUTE_OPS))
        head.append("// FOLDED-NOT: = stablehlo.{{(%s)}} " % COMPUTE_OPS)
        return "\n".join(head + ["func.func @%s() {" % self.name] + self.lines + ["  return", "}", ""])


def int_func(t):
    f = Func("int_" + t)
    vals = int_values(t)
    pairs = list(itertools.product(vals, vals))
    n = len(pairs)
    ty = "tensor<%dx%s>" % (n, t)
    a = f.const(t, [lit_int(t, x) for x, _ in pairs])
    b = f.const(t, [lit_int(t, y) for _, y in pairs])
    lo, hi = int_range(t)
    bool_ops = {"add", "multiply", "and", "or", "xor", "maximum", "minimum"}
    for op in INT_BINARY:
        if t == "i1" and op not in bool_ops:
            continue
        f.both("stablehlo.%s {0}, {1} : %s" % (op, ty), (a[0], b[0]), (a[1], b[1]), t, n)
    if t != "i1":  # divisors without 0 and -1 (implementation-defined cases)
        dpairs = [(x, y) for x, y in pairs if y != 0 and y != -1]
        da = f.const(t, [lit_int(t, x) for x, _ in dpairs])
        db = f.const(t, [lit_int(t, y) for _, y in dpairs])
        dty = "tensor<%dx%s>" % (len(dpairs), t)
        for op in ("divide", "remainder"):
            f.both("stablehlo.%s {0}, {1} : %s" % (op, dty), (da[0], db[0]), (da[1], db[1]), t, len(dpairs))
    unary = ["not"] + ([] if t == "i1" else ["negate", "popcnt", "count_leading_zeros"])
    if not t.startswith("u") and t != "i1":
        unary += ["abs", "sign"]
    for op in unary:
        f.both("stablehlo.%s {0} : %s" % (op, ty), (a[0],), (a[1],), t, n)
    for d in DIRECTIONS:
        f.both("stablehlo.compare %s, {0}, {1} : (%s, %s) -> tensor<%dxi1>" % (d, ty, ty, n),
               (a[0], b[0]), (a[1], b[1]), "i1", n)
    for to in ["i1", "i8", "ui8", "i32", "ui64", "f32", "f16", "bf16", "f8E4M3FN", "f64"]:
        if to != t:
            f.both("stablehlo.convert {0} : (%s) -> tensor<%dx%s>" % (ty, n, to), (a[0],), (a[1],), to, n,
                   to if to.startswith("f") or to == "bf16" else None)
    p = [f.op("stablehlo.compare LT, %s, %s : (%s, %s) -> tensor<%dxi1>" % (x, y, ty, ty, n), 0)
         for x, y in ((a[0], b[0]), (a[1], b[1]))]
    f.vm_ops += 1
    f.both("stablehlo.select {0}, {1}, {2} : tensor<%dxi1>, %s" % (n, ty), (p[0], a[0], b[0]), (p[1], a[1], b[1]), t, n)
    c = f.const(t, [lit_int(t, y) for _, y in reversed(pairs)])
    f.both("stablehlo.clamp {0}, {1}, {2} : %s" % ty, (b[0], a[0], c[0]), (b[1], a[1], c[1]), t, n)
    return f.text()


def float_func(t):
    f = Func("float_" + t)
    vals = float_values(t)
    pairs = list(itertools.product(vals, vals))
    n = len(pairs)
    ty = "tensor<%dx%s>" % (n, t)
    a = f.const(t, [x for x, _ in pairs])
    b = f.const(t, [y for _, y in pairs])
    for op in FLOAT_BINARY:
        f.both("stablehlo.%s {0}, {1} : %s" % (op, ty), (a[0], b[0]), (a[1], b[1]), t, n, t)
    for op in FLOAT_UNARY:
        f.both("stablehlo.%s {0} : %s" % (op, ty), (a[0],), (a[1],), t, n, t)
    for d in DIRECTIONS:
        for ct in ("", ", TOTALORDER"):
            f.both("stablehlo.compare %s, {0}, {1}%s : (%s, %s) -> tensor<%dxi1>" % (d, ct, ty, ty, n),
                   (a[0], b[0]), (a[1], b[1]), "i1", n)
    f.both("stablehlo.is_finite {0} : (%s) -> tensor<%dxi1>" % (ty, n), (a[0],), (a[1],), "i1", n)
    for to in FLOAT_TYPES + ["i1"]:
        if to != t:
            f.both("stablehlo.convert {0} : (%s) -> tensor<%dx%s>" % (ty, n, to), (a[0],), (a[1],), to, n,
                   None if to == "i1" else to)
    # max/min/clamp without -0.0 (the sign of max(-0.0, +0.0) is not folded)
    zvals = float_values(t, signed_zero=False)
    zpairs = list(itertools.product(zvals, zvals))
    zn = len(zpairs)
    zty = "tensor<%dx%s>" % (zn, t)
    za = f.const(t, [x for x, _ in zpairs])
    zb = f.const(t, [y for _, y in zpairs])
    zc = f.const(t, [y for _, y in reversed(zpairs)])
    for op in ("maximum", "minimum"):
        f.both("stablehlo.%s {0}, {1} : %s" % (op, zty), (za[0], zb[0]), (za[1], zb[1]), t, zn, t)
    f.both("stablehlo.clamp {0}, {1}, {2} : %s" % zty, (zb[0], za[0], zc[0]), (zb[1], za[1], zc[1]), t, zn, t)
    # float -> int inside the range of every result type
    ivals = ["0.0", "1.0", "0.1", "2.5", "3.0", "0.5", "1.5", "7.0", "-0.0", "0.9"]
    iv = f.const(t, ivals)
    ity = "tensor<%dx%s>" % (len(ivals), t)
    for to in ["i4", "ui4", "i8", "ui8", "i32", "ui64"]:
        f.both("stablehlo.convert {0} : (%s) -> tensor<%dx%s>" % (ity, len(ivals), to), (iv[0],), (iv[1],), to,
               len(ivals))
    p = [f.op("stablehlo.compare LT, %s, %s : (%s, %s) -> tensor<%dxi1>" % (x, y, ty, ty, n), 0)
         for x, y in ((a[0], b[0]), (a[1], b[1]))]
    f.vm_ops += 1
    f.both("stablehlo.select {0}, {1}, {2} : tensor<%dxi1>, %s" % (n, ty), (p[0], a[0], b[0]), (p[1], a[1], b[1]),
           t, n, t)
    return f.text()


def shape_func(t, lit):
    """Shape ops on a 2x3x4 constant (sub-byte, 16-bit and complex elements)."""
    f = Func("shapes_" + t.replace("<", "_").replace(">", ""))
    ty = "tensor<2x3x4x%s>" % t
    a = f.const(t, [lit(i) for i in range(24)])
    shaped = [f.op("stablehlo.reshape %s : (tensor<24x%s>) -> %s" % (x, t, ty), 0) for x in a]
    f.vm_ops += 1
    ops = [
        ("stablehlo.transpose {0}, dims = [2, 0, 1] : (%s) -> tensor<4x2x3x%s>" % (ty, t), "4x2x3"),
        ("stablehlo.reverse {0}, dims = [0, 2] : %s" % ty, "2x3x4"),
        ("stablehlo.slice {0} [1:2, 0:3:2, 1:4:2] : (%s) -> tensor<1x2x2x%s>" % (ty, t), "1x2x2"),
        ("stablehlo.broadcast_in_dim {0}, dims = [0, 2, 3] : (%s) -> tensor<2x2x3x4x%s>" % (ty, t), "2x2x3x4"),
        ("stablehlo.broadcast {0}, sizes = [2] : (%s) -> tensor<2x2x3x4x%s>" % (ty, t), "2x2x3x4"),
        ("stablehlo.concatenate {0}, {0}, dim = 1 : (%s, %s) -> tensor<2x6x4x%s>" % (ty, ty, t), "2x6x4"),
        ("stablehlo.pad {0}, {1}, low = [0, -1, 1], high = [1, 0, -2], interior = [1, 0, 1] : (%s, tensor<%s>) -> "
         "tensor<4x2x6x%s>" % (ty, t, t), "4x2x6"),
    ]
    pad = [f.op("stablehlo.slice %s [5:6] : (tensor<24x%s>) -> tensor<1x%s>" % (x, t, t), 0) for x in a]
    pad = [f.op("stablehlo.reshape %s : (tensor<1x%s>) -> tensor<%s>" % (x, t, t), 0) for x in pad]
    f.vm_ops += 2
    for fmt, dims in ops:
        n = 1
        for d in dims.split("x"):
            n *= int(d)
        r = [f.op(fmt.format(x, p), vm) for x, p, vm in zip(shaped, pad, (0, 1))]
        flat = [f.op("stablehlo.reshape %s : (tensor<%sx%s>) -> tensor<%dx%s>" % (x, dims, t, n, t), vm)
                for x, vm in zip(r, (0, 1))]
        f.emit("check.expect_eq %s, %s : tensor<%dx%s>" % (flat[0], flat[1], n, t))
    return f.text()


def main():
    out = ["// " + line if line else "//" for line in __doc__.strip().split("\n")] + [""]
    out += [int_func(t) for t in INT_TYPES]
    out += [float_func(t) for t in FLOAT_TYPES]
    out += [shape_func("i4", lambda i: str(i % 16 - 8)), shape_func("bf16", lambda i: "%d.5" % i),
            shape_func("complex<f32>", lambda i: "(%d.0, %d.5)" % (i, -i))]
    sys.stdout.write("\n".join(out))


if __name__ == "__main__":
    main()
