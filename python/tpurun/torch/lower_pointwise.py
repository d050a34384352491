"""Element-wise ATen ops: arithmetic, math functions, comparisons, where,
activations and their backward ops, optimizer helpers, fills and random
numbers."""
import math

import torch

from ._builder import i64s, literal, tensor_type
from ._lowering import Spec, compare, elementwise, is_value, meta_like, operand, reduce, register

aten = torch.ops.aten


# ---- helpers on Values of one shape and dtype --------------------------------

def const(b, x, like):
    """A structural constant x splat over like's shape and dtype (one op)."""
    dtype = like.dtype
    t = tensor_type(like.shape, dtype)
    return b.op("stablehlo.constant", [], (like.shape, dtype), attrs=f"{{value = dense<{literal(x, dtype)}> : {t}}}")


def ew(b, name, *vals, dtype=None):
    """name(vals...) on Values of one shape (result dtype: the first's, or dtype)."""
    return b.op(name, list(vals), (vals[0].shape, dtype or vals[0].dtype))


def cmp(b, direction, x, y):
    """x <direction> y (bool) for Values of one shape and dtype."""
    dtype = x.dtype
    kind = "FLOAT" if dtype.is_floating_point else ("UNSIGNED" if dtype in (torch.uint8, torch.bool) else "SIGNED")
    attrs = (f"{{comparison_direction = #stablehlo<comparison_direction {direction}>, "
             f"compare_type = #stablehlo<comparison_type {kind}>}}")
    return b.op("stablehlo.compare", [x, y], (x.shape, torch.bool), attrs=attrs)


def select(b, pred, on_true, on_false):
    """on_true where pred, else on_false (Values of one shape)."""
    return b.op("stablehlo.select", [pred, on_true, on_false], (on_true.shape, on_true.dtype))


def operands(b, out, *xs, dtype=None):
    """Each x (Value or number) as a Value of dtype (default out.dtype) and out's shape."""
    return [operand(b, x, dtype or out.dtype, out.shape) for x in xs]


def unary(name):
    """A lowering of out = name(x), computed in out's dtype (ints promote to float)."""
    def lower(b, out, x):
        return elementwise(b, out, name, x)
    lower.__doc__ = f"{name} element by element."
    return lower


# ---- arithmetic ---------------------------------------------------------------

@register(aten.add.Tensor, aten.add.Scalar)
def add(b, out, x, y, alpha=1):
    """x + alpha * y (or for bools: x or y)."""
    if out.dtype == torch.bool:
        return elementwise(b, out, "stablehlo.or", x, y)
    if alpha != 1:
        y = elementwise(b, out, "stablehlo.multiply", y, alpha)
    return elementwise(b, out, "stablehlo.add", x, y)


@register(aten.sub.Tensor, aten.sub.Scalar)
def sub(b, out, x, y, alpha=1):
    """x - alpha * y."""
    if alpha != 1:
        y = elementwise(b, out, "stablehlo.multiply", y, alpha)
    return elementwise(b, out, "stablehlo.subtract", x, y)


@register(aten.rsub.Tensor, aten.rsub.Scalar)
def rsub(b, out, x, y, alpha=1):
    """y - alpha * x."""
    return sub(b, out, y, x, alpha)


@register(aten.mul.Tensor, aten.mul.Scalar)
def mul(b, out, x, y):
    """x * y (or for bools: x and y)."""
    return elementwise(b, out, "stablehlo.and" if out.dtype == torch.bool else "stablehlo.multiply", x, y)


@register(aten.div.Tensor, aten.div.Scalar, aten.true_divide.Tensor, aten.true_divide.Scalar)
def div(b, out, x, y):
    """x / y in out's (floating) dtype."""
    return elementwise(b, out, "stablehlo.divide", x, y)


@register(aten.div.Tensor_mode, aten.div.Scalar_mode)
def div_mode(b, out, x, y, rounding_mode=None):
    """x / y rounded as rounding_mode says (None, "trunc" or "floor")."""
    if rounding_mode is None:
        return div(b, out, x, y)
    if rounding_mode == "trunc":
        q = elementwise(b, out, "stablehlo.divide", x, y)
        return trunc(b, out, q)
    if rounding_mode == "floor":
        return floor_divide(b, out, x, y)
    raise NotImplementedError(f"tpurun.torch: aten.div rounding_mode={rounding_mode!r}")


@register(aten.floor_divide.default, aten.floor_divide.Scalar, aten.floor_divide_.Tensor)
def floor_divide(b, out, x, y):
    """x / y rounded toward -inf (integers: the truncated quotient, corrected)."""
    x, y = operands(b, out, x, y)
    q = ew(b, "stablehlo.divide", x, y)
    if out.dtype.is_floating_point:
        return ew(b, "stablehlo.floor", q)
    r = ew(b, "stablehlo.remainder", x, y)
    zero = const(b, 0, r)
    inexact = cmp(b, "NE", r, zero)
    signs_differ = ew(b, "stablehlo.xor", cmp(b, "LT", r, zero), cmp(b, "LT", y, zero))
    fix = b.convert(ew(b, "stablehlo.and", inexact, signs_differ), out.dtype)
    return ew(b, "stablehlo.subtract", q, fix)


@register(aten.fmod.Tensor, aten.fmod.Scalar)
def fmod(b, out, x, y):
    """C's fmod: the remainder with the dividend's sign."""
    return elementwise(b, out, "stablehlo.remainder", x, y)


@register(aten.remainder.Tensor, aten.remainder.Scalar, aten.remainder.Scalar_Tensor)
def remainder(b, out, x, y):
    """Python's modulo: the remainder with the divisor's sign."""
    x, y = operands(b, out, x, y)
    r = ew(b, "stablehlo.remainder", x, y)
    zero = const(b, 0, r)
    wrong_sign = ew(b, "stablehlo.and", cmp(b, "NE", r, zero),
                    ew(b, "stablehlo.xor", cmp(b, "LT", r, zero), cmp(b, "LT", y, zero)))
    return select(b, wrong_sign, ew(b, "stablehlo.add", r, y), r)


register(aten.neg.default)(unary("stablehlo.negate"))
register(aten.abs.default)(unary("stablehlo.abs"))


@register(aten.sign.default, aten.sgn.default)
def sign(b, out, x):
    """-1, 0 or 1 (bools and unsigned: x != 0; NaN: 0 as in PyTorch)."""
    if out.dtype in (torch.bool, torch.uint8):
        return b.convert(cmp(b, "NE", x, const(b, 0, x)), out.dtype)
    s = elementwise(b, out, "stablehlo.sign", x)
    if not out.dtype.is_floating_point:
        return s
    return select(b, cmp(b, "NE", s, s), const(b, 0, s), s)


def sign_bit(b, x):
    """x's sign bit (true for -0.0 and negative NaNs too), as bool."""
    ints = {8: torch.int64, 4: torch.int32, 2: torch.int16}[torch.empty((), dtype=x.dtype).element_size()]
    bits = b.op("stablehlo.bitcast_convert", [x], (x.shape, ints))
    return cmp(b, "LT", bits, const(b, 0, bits))


@register(aten.signbit.default)
def signbit(b, out, x):
    """x < 0, including -0.0 (never for unsigned and bool)."""
    if not x.dtype.is_floating_point:
        return b.convert(cmp(b, "LT", x, const(b, 0, x)), torch.bool) if x.dtype.is_signed else const(b, False, out)
    return sign_bit(b, x)


@register(aten.copysign.Tensor, aten.copysign.Scalar)
def copysign(b, out, x, y):
    """|x| with y's sign bit."""
    x, y = operands(b, out, x, y)
    a = ew(b, "stablehlo.abs", x)
    return select(b, sign_bit(b, y), ew(b, "stablehlo.negate", a), a)


@register(aten.reciprocal.default)
def reciprocal(b, out, x):
    """1 / x."""
    x = b.convert(x, out.dtype)
    return ew(b, "stablehlo.divide", const(b, 1, x), x)


@register(aten.pow.Tensor_Scalar, aten.pow_.Scalar)
def pow_tensor_scalar(b, out, x, exponent):
    """x ** exponent; 0, 1, 2, 0.5 and -1 as cheaper ops."""
    x = b.convert(x, out.dtype)
    if exponent == 1:
        return x
    if exponent == 0:
        return const(b, 1, x)
    if exponent == 2:
        return ew(b, "stablehlo.multiply", x, x)
    if exponent == 0.5 and out.dtype.is_floating_point:
        return ew(b, "stablehlo.sqrt", x)
    if exponent == -1 and out.dtype.is_floating_point:
        return ew(b, "stablehlo.divide", const(b, 1, x), x)
    return ew(b, "stablehlo.power", x, b.scalar(exponent, out.dtype, out.shape))


@register(aten.pow.Tensor_Tensor, aten.pow.Scalar, aten.pow_.Tensor)
def pow_(b, out, x, y):
    """x ** y element by element."""
    return elementwise(b, out, "stablehlo.power", x, y)


@register(aten.maximum.default, aten.max.other)
def maximum(b, out, x, y):
    """The larger of x and y (for bools: x or y)."""
    return elementwise(b, out, "stablehlo.or" if out.dtype == torch.bool else "stablehlo.maximum", x, y)


@register(aten.minimum.default, aten.min.other)
def minimum(b, out, x, y):
    """The smaller of x and y (for bools: x and y)."""
    return elementwise(b, out, "stablehlo.and" if out.dtype == torch.bool else "stablehlo.minimum", x, y)


@register(aten.clamp.default, aten.clamp.Tensor)
def clamp(b, out, x, min=None, max=None):
    """x limited to [min, max] (either bound may be None)."""
    if min is None and max is None:
        raise NotImplementedError("tpurun.torch: aten.clamp with min=None and max=None")
    res = b.broadcast(b.convert(x, out.dtype), out.shape)
    if min is not None:
        res = ew(b, "stablehlo.maximum", res, operand(b, min, out.dtype, out.shape))
    if max is not None:
        res = ew(b, "stablehlo.minimum", res, operand(b, max, out.dtype, out.shape))
    return res


@register(aten.clamp_min.default, aten.clamp_min.Tensor)
def clamp_min(b, out, x, min):
    return clamp(b, out, x, min=min)


@register(aten.clamp_max.default, aten.clamp_max.Tensor)
def clamp_max(b, out, x, max):
    return clamp(b, out, x, max=max)


def _rounding(name):
    """A lowering of floor/ceil/round: name on floats, the identity on integers."""
    def lower(b, out, x):
        if not out.dtype.is_floating_point:
            return b.convert(x, out.dtype)
        return ew(b, name, b.convert(x, out.dtype))
    lower.__doc__ = f"{name} on floats; integers are already whole."
    return lower


register(aten.floor.default)(_rounding("stablehlo.floor"))
register(aten.ceil.default)(_rounding("stablehlo.ceil"))
register(aten.round.default)(_rounding("stablehlo.round_nearest_even"))


@register(aten.round.decimals)
def round_decimals(b, out, x, decimals=0):
    """x rounded (half to even) to decimals decimal places."""
    if decimals == 0:
        return ew(b, "stablehlo.round_nearest_even", x)
    scale = const(b, 10.0 ** abs(decimals), x)
    up, down = ("stablehlo.multiply", "stablehlo.divide")
    if decimals < 0:
        up, down = down, up
    return ew(b, down, ew(b, "stablehlo.round_nearest_even", ew(b, up, x, scale)), scale)


@register(aten.trunc.default, aten.fix.default)
def trunc(b, out, x):
    """x rounded toward zero: sign(x) * floor(|x|)."""
    if not out.dtype.is_floating_point:
        return b.convert(x, out.dtype)
    x = b.convert(x, out.dtype)
    return ew(b, "stablehlo.multiply", ew(b, "stablehlo.sign", x), ew(b, "stablehlo.floor", ew(b, "stablehlo.abs", x)))


@register(aten.frac.default)
def frac(b, out, x):
    """x - trunc(x)."""
    return ew(b, "stablehlo.subtract", x, trunc(b, out, x))


# ---- math functions -------------------------------------------------------------

for _op, _name in [(aten.exp, "stablehlo.exponential"), (aten.expm1, "stablehlo.exponential_minus_one"),
                   (aten.log, "stablehlo.log"), (aten.log1p, "stablehlo.log_plus_one"),
                   (aten.sqrt, "stablehlo.sqrt"), (aten.rsqrt, "stablehlo.rsqrt"),
                   (aten.sin, "stablehlo.sine"), (aten.cos, "stablehlo.cosine"), (aten.tan, "stablehlo.tan"),
                   (aten.tanh, "stablehlo.tanh"), (aten.sigmoid, "stablehlo.logistic"),
                   (aten.erf, "chlo.erf"), (aten.erfinv, "chlo.erf_inv"), (aten.sinh, "chlo.sinh"),
                   (aten.cosh, "chlo.cosh"), (aten.asin, "chlo.asin"), (aten.acos, "chlo.acos"),
                   (aten.atan, "chlo.atan")]:
    register(_op.default)(unary(_name))


def _log_base(base):
    """A lowering of log in base: log(x) * (1 / ln(base))."""
    def lower(b, out, x):
        y = elementwise(b, out, "stablehlo.log", x)
        return ew(b, "stablehlo.multiply", y, const(b, 1.0 / math.log(base), y))
    lower.__doc__ = f"The logarithm in base {base}."
    return lower


register(aten.log2.default)(_log_base(2))
register(aten.log10.default)(_log_base(10))


@register(aten.exp2.default)
def exp2(b, out, x):
    """2 ** x."""
    x = b.convert(x, out.dtype)
    return ew(b, "stablehlo.power", const(b, 2, x), x)


@register(aten.atan2.default)
def atan2(b, out, y, x):
    return elementwise(b, out, "stablehlo.atan2", y, x)


@register(aten.xlogy.Tensor, aten.xlogy.Scalar_Self, aten.xlogy.Scalar_Other)
def xlogy(b, out, x, y):
    """x * log(y), 0 where x == 0 (NaN where y is)."""
    x, y = operands(b, out, x, y)
    zero = const(b, 0, x)
    res = select(b, cmp(b, "EQ", x, zero), zero, ew(b, "stablehlo.multiply", x, ew(b, "stablehlo.log", y)))
    return select(b, cmp(b, "NE", y, y), y, res)


# ---- comparisons and logic -------------------------------------------------------

def _comparison(direction):
    """A lowering of a comparison (Tensor and Scalar forms)."""
    def lower(b, out, x, y):
        return compare(b, out, direction, x, y)
    lower.__doc__ = f"x {direction} y element by element (bool)."
    return lower


for _op, _dir in [(aten.eq, "EQ"), (aten.ne, "NE"), (aten.lt, "LT"), (aten.le, "LE"), (aten.gt, "GT"), (aten.ge, "GE")]:
    register(_op.Tensor, _op.Scalar)(_comparison(_dir))


def truthy(b, x, shape):
    """x (a Value or number) != 0 as a bool Value broadcast to shape."""
    if not is_value(x):
        return b.scalar(bool(x), torch.bool, shape)
    if x.dtype != torch.bool:
        x = cmp(b, "NE", x, const(b, 0, x))
    return b.broadcast(x, shape)


def _logical(name):
    """A lowering of a logical binary op on the truth of its operands."""
    def lower(b, out, x, y):
        res = ew(b, name, truthy(b, x, out.shape), truthy(b, y, out.shape))
        return b.convert(res, out.dtype)
    lower.__doc__ = f"{name} of x != 0 and y != 0."
    return lower


register(aten.logical_and.default)(_logical("stablehlo.and"))
register(aten.logical_or.default)(_logical("stablehlo.or"))
register(aten.logical_xor.default)(_logical("stablehlo.xor"))


@register(aten.logical_not.default)
def logical_not(b, out, x):
    """x == 0."""
    return b.convert(ew(b, "stablehlo.not", truthy(b, x, out.shape)), out.dtype)


def _bitwise(name):
    """A lowering of a bitwise binary op (Tensor, Scalar and Scalar_Tensor forms)."""
    def lower(b, out, x, y):
        return elementwise(b, out, name, x, y)
    lower.__doc__ = f"{name} of the bits (logic on bools)."
    return lower


for _op, _name in [(aten.bitwise_and, "stablehlo.and"), (aten.bitwise_or, "stablehlo.or"),
                   (aten.bitwise_xor, "stablehlo.xor")]:
    register(_op.Tensor, _op.Scalar, _op.Scalar_Tensor)(_bitwise(_name))
register(aten.bitwise_not.default)(unary("stablehlo.not"))


def _shift(left):
    """A lowering of << (left) or >> (arithmetic for signed integers, as in PyTorch)."""
    def lower(b, out, x, y):
        if out is None:  # __lshift__ and __rshift__ have no meta kernel
            out = Spec(torch.broadcast_shapes(*(v.shape for v in (x, y) if is_value(v))),
                       torch.result_type(meta_like(x), meta_like(y)))
        x, y = operands(b, out, x, y)
        if left:
            name = "stablehlo.shift_left"
        else:
            name = "stablehlo.shift_right_arithmetic" if out.dtype.is_signed else "stablehlo.shift_right_logical"
        return ew(b, name, x, y)
    lower.__doc__ = "x shifted " + ("left" if left else "right") + " by y bits."
    return lower


for _packet, _dunder, _left in [(aten.bitwise_left_shift, aten.__lshift__, True),
                                (aten.bitwise_right_shift, aten.__rshift__, False)]:
    register(_packet.Tensor, _packet.Tensor_Scalar, _packet.Scalar_Tensor,
             _dunder.Tensor, _dunder.Scalar)(_shift(_left))


@register(aten.isnan.default)
def isnan(b, out, x):
    """x != x (never for integers)."""
    if not x.dtype.is_floating_point:
        return const(b, False, Spec(x.shape, torch.bool))
    return cmp(b, "NE", x, x)


@register(aten.isinf.default)
def isinf(b, out, x):
    """|x| > the largest finite number (never for integers; no inf constant:
    Debug mode refuses a constant holding one)."""
    if not x.dtype.is_floating_point:
        return const(b, False, Spec(x.shape, torch.bool))
    a = ew(b, "stablehlo.abs", x)
    return cmp(b, "GT", a, const(b, torch.finfo(a.dtype).max, a))


@register(aten.isfinite.default)
def isfinite(b, out, x):
    """Neither inf nor NaN (always for integers)."""
    if not x.dtype.is_floating_point:
        return const(b, True, Spec(x.shape, torch.bool))
    return ew(b, "stablehlo.is_finite", x, dtype=torch.bool)


@register(aten.nan_to_num.default)
def nan_to_num(b, out, x, nan=None, posinf=None, neginf=None):
    """x with NaN, +inf and -inf replaced (defaults: 0 and the largest finite numbers)."""
    if not out.dtype.is_floating_point:
        return x
    info = torch.finfo(out.dtype)
    big, small = const(b, info.max, x), const(b, info.min, x)
    res = select(b, cmp(b, "GT", x, big), big if posinf is None else operand(b, posinf, x.dtype, x.shape), x)
    res = select(b, cmp(b, "LT", x, small), small if neginf is None else operand(b, neginf, x.dtype, x.shape), res)
    return select(b, cmp(b, "NE", x, x), operand(b, 0.0 if nan is None else nan, x.dtype, x.shape), res)


@register(aten.logaddexp.default)
def logaddexp(b, out, x, y):
    """log(exp(x) + exp(y)) = max + log1p(exp(-|x - y|))."""
    x, y = operands(b, out, x, y)
    m = ew(b, "stablehlo.maximum", x, y)
    d = ew(b, "stablehlo.negate", ew(b, "stablehlo.abs", ew(b, "stablehlo.subtract", x, y)))
    return ew(b, "stablehlo.add", m, ew(b, "stablehlo.log_plus_one", ew(b, "stablehlo.exponential", d)))


@register(aten.where.self, aten.where.ScalarSelf, aten.where.ScalarOther, aten.where.Scalar)
def where(b, out, cond, x, y):
    """x where cond, else y (broadcast together)."""
    pred = b.broadcast(b.convert(cond, torch.bool), out.shape)
    return select(b, pred, *operands(b, out, x, y))


@register(aten.masked_fill.Scalar, aten.masked_fill.Tensor)
def masked_fill(b, out, x, mask, value):
    """x with value wherever mask."""
    pred = b.broadcast(b.convert(mask, torch.bool), out.shape)
    return select(b, pred, *operands(b, out, value, x))


# ---- activations and their backward ops --------------------------------------------

def mul_all(b, *vals):
    """The product of Values of one shape and dtype."""
    res = vals[0]
    for v in vals[1:]:
        res = ew(b, "stablehlo.multiply", res, v)
    return res


@register(aten.relu.default)
def relu(b, out, x):
    """max(x, 0)."""
    return ew(b, "stablehlo.maximum", x, const(b, 0, x))


@register(aten.threshold.default)
def threshold(b, out, x, threshold, value):
    """x where x > threshold, else value."""
    t, v = operands(b, out, threshold, value)
    return select(b, cmp(b, "LE", x, t), v, x)


@register(aten.threshold_backward.default)
def threshold_backward(b, out, grad, x, threshold):
    """grad where x > threshold, else 0 (relu's backward: threshold 0, 3 ops)."""
    x = b.convert(x, out.dtype)
    zero = const(b, 0, out)
    limit = zero if threshold == 0 else operand(b, threshold, out.dtype, out.shape)
    return select(b, cmp(b, "LE", x, limit), zero, grad)


SQRT1_2 = 1 / math.sqrt(2)
GELU_K = math.sqrt(2 / math.pi)
GELU_C = 0.044715


def _gelu_tanh_parts(b, x):
    """(x^2, 2 k, sigmoid(u)) with u = 2 k (x + c x^3): gelu's tanh form is
    0.5 x (1 + tanh(u / 2)) = x sigmoid(u)."""
    x2 = ew(b, "stablehlo.multiply", x, x)
    two_k = const(b, 2 * GELU_K, x)
    slope = ew(b, "stablehlo.add", two_k, ew(b, "stablehlo.multiply", x2, const(b, 2 * GELU_K * GELU_C, x)))
    return x2, two_k, ew(b, "stablehlo.logistic", ew(b, "stablehlo.multiply", x, slope))


@register(aten.gelu.default)
def gelu(b, out, x, approximate="none"):
    """x * Phi(x): erf form ("none": 0.5 x erfc(-x / sqrt 2), 6 ops) or tanh form ("tanh")."""
    x = b.convert(x, out.dtype)
    if approximate == "tanh":
        return ew(b, "stablehlo.multiply", x, _gelu_tanh_parts(b, x)[2])
    if approximate != "none":
        raise NotImplementedError(f"tpurun.torch: aten.gelu approximate={approximate!r}")
    tail = ew(b, "chlo.erfc", ew(b, "stablehlo.multiply", x, const(b, -SQRT1_2, x)))
    return ew(b, "stablehlo.multiply", ew(b, "stablehlo.multiply", x, const(b, 0.5, x)), tail)


@register(aten.gelu_backward.default)
def gelu_backward(b, out, grad, x, approximate="none"):
    """grad * d gelu(x) / dx: grad * (Phi(x) + x phi(x))."""
    x = b.convert(x, out.dtype)
    if approximate == "tanh":  # sig + x sig (1 - sig) du/dx
        x2, two_k, sig = _gelu_tanh_parts(b, x)
        du = ew(b, "stablehlo.add", two_k, ew(b, "stablehlo.multiply", x2, const(b, 6 * GELU_K * GELU_C, x)))
        slope = mul_all(b, x, sig, ew(b, "stablehlo.subtract", const(b, 1, x), sig), du)
        return ew(b, "stablehlo.multiply", grad, ew(b, "stablehlo.add", sig, slope))
    if approximate != "none":
        raise NotImplementedError(f"tpurun.torch: aten.gelu_backward approximate={approximate!r}")
    s = ew(b, "stablehlo.multiply", x, const(b, -SQRT1_2, x))
    cdf = ew(b, "stablehlo.multiply", ew(b, "chlo.erfc", s), const(b, 0.5, x))
    pdf = ew(b, "stablehlo.exponential", ew(b, "stablehlo.negate", ew(b, "stablehlo.multiply", s, s)))
    x_pdf = mul_all(b, x, pdf, const(b, 1 / math.sqrt(2 * math.pi), x))
    return ew(b, "stablehlo.multiply", grad, ew(b, "stablehlo.add", cdf, x_pdf))


@register(aten.sigmoid_backward.default)
def sigmoid_backward(b, out, grad, y):
    """grad * y * (1 - y), y = sigmoid(x)."""
    return mul_all(b, grad, y, ew(b, "stablehlo.subtract", const(b, 1, y), y))


@register(aten.tanh_backward.default)
def tanh_backward(b, out, grad, y):
    """grad * (1 - y^2), y = tanh(x)."""
    one_minus_y2 = ew(b, "stablehlo.subtract", const(b, 1, y), ew(b, "stablehlo.multiply", y, y))
    return ew(b, "stablehlo.multiply", grad, one_minus_y2)


@register(aten.silu.default)
def silu(b, out, x):
    """x * sigmoid(x)."""
    return ew(b, "stablehlo.multiply", x, ew(b, "stablehlo.logistic", x))


@register(aten.silu_backward.default)
def silu_backward(b, out, grad, x):
    """grad * s * (1 + x (1 - s)), s = sigmoid(x)."""
    s = ew(b, "stablehlo.logistic", x)
    one = const(b, 1, x)
    inner = ew(b, "stablehlo.add", one, ew(b, "stablehlo.multiply", x, ew(b, "stablehlo.subtract", one, s)))
    return mul_all(b, grad, s, inner)


@register(aten.leaky_relu.default)
def leaky_relu(b, out, x, negative_slope=0.01):
    """x where x > 0, else slope * x."""
    return select(b, cmp(b, "GT", x, const(b, 0, x)), x, elementwise(b, out, "stablehlo.multiply", x, negative_slope))


@register(aten.leaky_relu_backward.default)
def leaky_relu_backward(b, out, grad, x, negative_slope, self_is_result):
    """grad where x > 0, else slope * grad."""
    scaled = elementwise(b, out, "stablehlo.multiply", grad, negative_slope)
    return select(b, cmp(b, "GT", x, const(b, 0, x)), grad, scaled)


@register(aten.hardtanh.default)
def hardtanh(b, out, x, min_val=-1, max_val=1):
    return clamp(b, out, x, min_val, max_val)


@register(aten.hardtanh_backward.default)
def hardtanh_backward(b, out, grad, x, min_val, max_val):
    """grad inside (min_val, max_val), else 0."""
    lo, hi = operands(b, out, min_val, max_val)
    outside = ew(b, "stablehlo.or", cmp(b, "LE", x, lo), cmp(b, "GE", x, hi))
    return select(b, outside, const(b, 0, grad), grad)


@register(aten.elu.default)
def elu(b, out, x, alpha=1, scale=1, input_scale=1):
    """scale * x where x > 0, else alpha * scale * (exp(input_scale * min(x, 0)) - 1)
    (no overflow in the branch not taken: Debug mode would report its inf)."""
    a, s, i = operands(b, out, alpha * scale, scale, input_scale)
    zero = const(b, 0, x)
    below = ew(b, "stablehlo.minimum", x, zero)
    neg = ew(b, "stablehlo.exponential_minus_one", ew(b, "stablehlo.multiply", below, i))
    neg = ew(b, "stablehlo.multiply", neg, a)
    return select(b, cmp(b, "GT", x, zero), ew(b, "stablehlo.multiply", x, s), neg)


@register(aten.elu_backward.default)
def elu_backward(b, out, grad, alpha, scale, input_scale, is_result, x_or_result):
    """elu's derivative times grad, from x or (is_result) from elu's result."""
    a, s, i = operands(b, out, alpha * scale, scale, input_scale)
    v, zero = x_or_result, const(b, 0, x_or_result)
    if is_result:
        neg = mul_all(b, grad, i, ew(b, "stablehlo.add", v, a))
    else:
        below = ew(b, "stablehlo.minimum", v, zero)
        neg = mul_all(b, grad, i, a, ew(b, "stablehlo.exponential", ew(b, "stablehlo.multiply", below, i)))
    return select(b, cmp(b, "GT", v, zero), ew(b, "stablehlo.multiply", grad, s), neg)


@register(aten.softplus.default)
def softplus(b, out, x, beta=1, threshold=20):
    """log1p(exp(beta x)) / beta, x itself where beta x > threshold (exp's
    argument capped there: no overflow in the branch not taken)."""
    be, th = operands(b, out, beta, threshold)
    bx = ew(b, "stablehlo.multiply", x, be)
    capped = ew(b, "stablehlo.minimum", bx, th)
    soft = ew(b, "stablehlo.divide", ew(b, "stablehlo.log_plus_one", ew(b, "stablehlo.exponential", capped)), be)
    return select(b, cmp(b, "GT", bx, th), x, soft)


@register(aten.softplus_backward.default)
def softplus_backward(b, out, grad, x, beta, threshold):
    """grad * sigmoid(beta x), grad itself where beta x > threshold."""
    be, th = operands(b, out, beta, threshold)
    bx = ew(b, "stablehlo.multiply", x, be)
    return select(b, cmp(b, "GT", bx, th), grad, ew(b, "stablehlo.multiply", grad, ew(b, "stablehlo.logistic", bx)))


@register(aten.mish.default)
def mish(b, out, x):
    """x * tanh(softplus(x))."""
    return ew(b, "stablehlo.multiply", x, _tanh_softplus(b, x))


def _tanh_softplus(b, x):
    """tanh(log1p(exp(min(x, 20)))): the cap changes nothing (tanh is 1 by
    then) but keeps exp from overflowing."""
    capped = ew(b, "stablehlo.minimum", x, const(b, 20, x))
    return ew(b, "stablehlo.tanh", ew(b, "stablehlo.log_plus_one", ew(b, "stablehlo.exponential", capped)))


@register(aten.mish_backward.default)
def mish_backward(b, out, grad, x):
    """grad * (t + x sigmoid(x) (1 - t^2)), t = tanh(softplus(x))."""
    t = _tanh_softplus(b, x)
    dt = ew(b, "stablehlo.subtract", const(b, 1, t), ew(b, "stablehlo.multiply", t, t))
    slope = ew(b, "stablehlo.add", t, mul_all(b, x, ew(b, "stablehlo.logistic", x), dt))
    return ew(b, "stablehlo.multiply", grad, slope)


@register(aten.log_sigmoid_forward.default)
def log_sigmoid_forward(b, out, x):
    """(log sigmoid(x) = min(x, 0) - log1p(exp(-|x|)), a buffer the backward ignores)."""
    zero = const(b, 0, x)
    tail = ew(b, "stablehlo.exponential", ew(b, "stablehlo.negate", ew(b, "stablehlo.abs", x)))
    tail = ew(b, "stablehlo.log_plus_one", tail)
    return ew(b, "stablehlo.subtract", ew(b, "stablehlo.minimum", x, zero), tail), const(b, 0, out[1])


@register(aten.log_sigmoid_backward.default)
def log_sigmoid_backward(b, out, grad, x, buffer):
    """grad * sigmoid(-x)."""
    return ew(b, "stablehlo.multiply", grad, ew(b, "stablehlo.logistic", ew(b, "stablehlo.negate", x)))


def _prelu_weight(b, x, w):
    """PReLU's weight broadcast to x: one slope, or one per channel (dim 1)."""
    if w.numel == 1:
        return b.broadcast(b.reshape(w, ()), x.shape, ())
    return b.broadcast(w, x.shape, (1,))


@register(aten.prelu.default)
def prelu(b, out, x, weight):
    """x where x > 0, else weight * x."""
    return select(b, cmp(b, "GT", x, const(b, 0, x)), x, ew(b, "stablehlo.multiply", x, _prelu_weight(b, x, weight)))


@register(aten.prelu_backward.default)
def prelu_backward(b, out, grad, x, weight):
    """(grad where x > 0 else weight * grad, the sum of x * grad where x <= 0 per slope)."""
    zero = const(b, 0, x)
    positive = cmp(b, "GT", x, zero)
    grad_x = select(b, positive, grad, ew(b, "stablehlo.multiply", grad, _prelu_weight(b, x, weight)))
    per_element = select(b, positive, zero, ew(b, "stablehlo.multiply", x, grad))
    dims = [d for d in range(x.rank) if weight.numel == 1 or d != 1]
    return grad_x, b.reshape(reduce(b, per_element, dims, "stablehlo.add", 0), weight.shape)


def _halves(b, x, dim):
    """x split in two along dim (stablehlo.slice)."""
    half = x.shape[dim] // 2
    shape = tuple(half if d == dim else n for d, n in enumerate(x.shape))
    parts = []
    for start in (0, half):
        starts = [start if d == dim else 0 for d in range(x.rank)]
        limits = [start + half if d == dim else n for d, n in enumerate(x.shape)]
        attrs = (f"{{start_indices = array<i64{i64s(starts)}>, limit_indices = array<i64{i64s(limits)}>, "
                 f"strides = array<i64{i64s([1] * x.rank)}>}}")
        parts.append(b.op("stablehlo.slice", [x], (shape, x.dtype), attrs=attrs))
    return parts


@register(aten.glu.default)
def glu(b, out, x, dim=-1):
    """a * sigmoid(g) for the halves a, g of x along dim."""
    a, g = _halves(b, x, dim % x.rank)
    return ew(b, "stablehlo.multiply", a, ew(b, "stablehlo.logistic", g))


@register(aten.glu_backward.default)
def glu_backward(b, out, grad, x, dim):
    """(grad sigmoid(g), grad a sigmoid(g) (1 - sigmoid(g))) joined along dim."""
    dim = dim % x.rank
    a, g = _halves(b, x, dim)
    sig = ew(b, "stablehlo.logistic", g)
    grad_a = ew(b, "stablehlo.multiply", grad, sig)
    grad_g = mul_all(b, grad_a, a, ew(b, "stablehlo.subtract", const(b, 1, sig), sig))
    return b.op("stablehlo.concatenate", [grad_a, grad_g], (x.shape, x.dtype), attrs=f"{{dimension = {dim} : i64}}")


@register(aten.hardsigmoid.default)
def hardsigmoid(b, out, x):
    """clamp(x / 6 + 1/2, 0, 1)."""
    y = ew(b, "stablehlo.add", ew(b, "stablehlo.multiply", x, const(b, 1 / 6, x)), const(b, 0.5, x))
    return ew(b, "stablehlo.minimum", ew(b, "stablehlo.maximum", y, const(b, 0, x)), const(b, 1, x))


@register(aten.hardsigmoid_backward.default)
def hardsigmoid_backward(b, out, grad, x):
    """grad / 6 inside (-3, 3), else 0."""
    inside = ew(b, "stablehlo.and", cmp(b, "GT", x, const(b, -3, x)), cmp(b, "LT", x, const(b, 3, x)))
    return select(b, inside, ew(b, "stablehlo.multiply", grad, const(b, 1 / 6, grad)), const(b, 0, grad))


@register(aten.hardswish.default)
def hardswish(b, out, x):
    """x * hardsigmoid(x)."""
    return ew(b, "stablehlo.multiply", x, hardsigmoid(b, out, x))


@register(aten.hardswish_backward.default)
def hardswish_backward(b, out, grad, x):
    """grad * (0 below -3, x / 3 + 1/2 inside, 1 above 3)."""
    inner = ew(b, "stablehlo.add", ew(b, "stablehlo.multiply", x, const(b, 1 / 3, x)), const(b, 0.5, x))
    d = select(b, cmp(b, "LT", x, const(b, -3, x)), const(b, 0, x),
               select(b, cmp(b, "LE", x, const(b, 3, x)), inner, const(b, 1, x)))
    return ew(b, "stablehlo.multiply", grad, d)


# ---- optimizer helpers ---------------------------------------------------------------

def add_scaled(b, out, op, x, t1, t2, value):
    """x + value * op(t1, t2): addcmul and addcdiv."""
    x, t1, t2 = operands(b, out, x, t1, t2)
    term = ew(b, op, t1, t2)
    if value != 1:
        term = ew(b, "stablehlo.multiply", term, b.scalar(value, out.dtype, out.shape))
    return ew(b, "stablehlo.add", x, term)


@register(aten.addcmul.default)
def addcmul(b, out, x, t1, t2, value=1):
    """x + value * t1 * t2."""
    return add_scaled(b, out, "stablehlo.multiply", x, t1, t2, value)


@register(aten.addcdiv.default)
def addcdiv(b, out, x, t1, t2, value=1):
    """x + value * t1 / t2."""
    return add_scaled(b, out, "stablehlo.divide", x, t1, t2, value)


@register(aten.lerp.Scalar, aten.lerp.Tensor)
def lerp(b, out, x, end, weight):
    """x + weight * (end - x); end - (1 - weight) * (end - x) for a number
    weight >= 0.5, as PyTorch computes it."""
    if not is_value(weight) and weight >= 0.5:
        x, end, w = operands(b, out, x, end, 1 - weight)
        return ew(b, "stablehlo.subtract", end, ew(b, "stablehlo.multiply", w, ew(b, "stablehlo.subtract", end, x)))
    x, end, w = operands(b, out, x, end, weight)
    return ew(b, "stablehlo.add", x, ew(b, "stablehlo.multiply", w, ew(b, "stablehlo.subtract", end, x)))


# ---- fills and factories that take a tensor ----------------------------------------

@register(aten.fill.Scalar, aten.fill.Tensor, aten.full_like.default)
def fill(b, out, x, value, **kwargs):
    """x's shape filled with value (a number or a 0-d Value)."""
    return operand(b, value, out.dtype, out.shape)


@register(aten.new_full.default)
def new_full(b, out, x, size, fill_value, **kwargs):
    """size filled with fill_value."""
    return operand(b, fill_value, out.dtype, out.shape)


@register(aten.zero.default, aten.zeros_like.default, aten.empty_like.default, aten.new_zeros.default,
          aten.new_empty.default, aten.new_empty_strided.default)
def zeros(b, out, *args, **kwargs):
    """Zeros of out's shape and dtype (empty tensors too: deterministic)."""
    return const(b, 0, out)


@register(aten.ones_like.default, aten.new_ones.default)
def ones(b, out, *args, **kwargs):
    """Ones of out's shape and dtype."""
    return const(b, 1, out)


# ---- random numbers ------------------------------------------------------------------
# The generator's state is a Value (2 x ui64, THREE_FRY) kept on the builder as
# b.rng, made from the seed (tpurun.torch.manual_seed, else torch.initial_seed())
# on first use; every draw replaces it.  The same seed gives the same bits in
# every mode.

THREE_FRY = "{rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>}"


def rng_state(b):
    """The builder's generator state, seeded on first use: the key
    [seed, 0x5EED] as 2 x ui64 (export's rng_state argument takes the same)."""
    state = getattr(b, "rng", None)
    if state is None:
        from ._tensor import STATE
        seed = STATE.seed if STATE.seed is not None else torch.initial_seed()
        seed = int(seed) & (2 ** 64 - 1)
        key = b.constant([seed - 2 ** 64 if seed >= 2 ** 63 else seed, 0x5EED], torch.int64, (2,))
        state = b.op("stablehlo.bitcast_convert", [key], ((2,), "ui64"))
        b.rng = state
    return state


def random_bits(b, shape, dtype="ui32"):
    """shape random words of dtype (32-bit), advancing the generator."""
    state, bits = b.op("stablehlo.rng_bit_generator", [rng_state(b)], [((2,), "ui64"), (tuple(shape), dtype)],
                       attrs=THREE_FRY)
    b.rng = state
    return bits


def uniform01(b, shape, dtype):
    """Uniform numbers in [0, 1) of dtype: 24 random bits times 2^-24."""
    bits = random_bits(b, shape, torch.int32)
    top = ew(b, "stablehlo.shift_right_logical", bits, const(b, 8, bits))
    u = b.convert(top, dtype)
    return ew(b, "stablehlo.multiply", u, const(b, 2.0 ** -24, u))


def bernoulli_mask(b, shape, p):
    """A bool mask of shape, each element true with probability p (a number):
    32 random bits compared with p * 2^32 (a graph input)."""
    shape = tuple(shape)
    if p <= 0 or p >= 1:
        return const(b, p >= 1, Spec(shape, torch.bool))
    level = min(round(p * 2.0 ** 32), 2 ** 32 - 1)
    as_i32 = b.scalar(level - 2 ** 32 if level >= 2 ** 31 else level, torch.int32)
    limit = b.op("stablehlo.bitcast_convert", [as_i32], ((), "ui32"))
    bits = random_bits(b, shape)
    attrs = ("{comparison_direction = #stablehlo<comparison_direction LT>, "
             "compare_type = #stablehlo<comparison_type UNSIGNED>}")
    return b.op("stablehlo.compare", [bits, b.broadcast(limit, shape, ())], (shape, torch.bool), attrs=attrs)


@register(aten.native_dropout.default)
def native_dropout(b, out, x, p, train):
    """(x * mask / (1 - p), mask), mask keeping each element with probability 1 - p;
    (x, all true) when not training."""
    if train is False:
        return x, const(b, True, Spec(x.shape, torch.bool))
    if p >= 1:
        return const(b, 0, x), const(b, False, Spec(x.shape, torch.bool))
    mask = bernoulli_mask(b, x.shape, 1 - p)
    if p == 0:
        return x, mask
    kept = select(b, mask, x, const(b, 0, x))
    return ew(b, "stablehlo.multiply", kept, b.scalar(1 / (1 - p), x.dtype, x.shape)), mask


@register(aten.native_dropout_backward.default)
def native_dropout_backward(b, out, grad, mask, scale):
    """grad * mask * scale."""
    kept = select(b, b.broadcast(mask, grad.shape), grad, const(b, 0, grad))
    return ew(b, "stablehlo.multiply", kept, b.scalar(scale, grad.dtype, grad.shape))


@register(aten.bernoulli_.float, aten.bernoulli.p)
def bernoulli_p(b, out, x, p=0.5, generator=None):
    """Ones with probability p, else zeros, in x's shape and dtype."""
    _no_generator("bernoulli", generator)
    return b.convert(bernoulli_mask(b, x.shape, p), out.dtype)


@register(aten.bernoulli.default, aten.bernoulli_.Tensor)
def bernoulli_tensor(b, out, x, p=None, generator=None):
    """Ones with probability p (a tensor; x itself for bernoulli(x)), else zeros."""
    _no_generator("bernoulli", generator)
    probs = b.broadcast(p if p is not None else x, tuple(x.shape))
    u = uniform01(b, x.shape, probs.dtype if probs.dtype.is_floating_point else torch.float32)
    return b.convert(cmp(b, "LT", u, b.convert(probs, u.dtype)), out.dtype)


@register(aten.uniform.default, aten.uniform_.default)
def uniform(b, out, x, low=0, high=1, generator=None):
    """Uniform numbers in [low, high) in x's shape and dtype."""
    _no_generator("uniform_", generator)
    u = uniform01(b, x.shape, x.dtype)
    if (low, high) == (0, 1):
        return u
    return ew(b, "stablehlo.add", ew(b, "stablehlo.multiply", u, b.scalar(high - low, x.dtype, x.shape)),
              b.scalar(low, x.dtype, x.shape))


@register(aten.rand_like.default)
def rand_like(b, out, x, **kwargs):
    """Uniform numbers in [0, 1) in x's shape, of out's dtype."""
    return uniform01(b, out.shape, out.dtype)


def standard_normal(b, shape, dtype):
    """Normal numbers (mean 0, std 1) by Box-Muller: sqrt(-2 log u1) cos(2 pi u2), u1 in (0, 1]."""
    u1 = uniform01(b, shape, dtype)
    u1 = ew(b, "stablehlo.subtract", const(b, 1, u1), u1)
    u2 = uniform01(b, shape, dtype)
    radius = ew(b, "stablehlo.sqrt", ew(b, "stablehlo.multiply", ew(b, "stablehlo.log", u1), const(b, -2, u1)))
    return ew(b, "stablehlo.multiply", radius,
              ew(b, "stablehlo.cosine", ew(b, "stablehlo.multiply", u2, const(b, 2 * math.pi, u2))))


@register(aten.normal_.default)
def normal_(b, out, x, mean=0, std=1, generator=None):
    """Normal numbers of mean and std in x's shape and dtype."""
    _no_generator("normal_", generator)
    z = standard_normal(b, x.shape, x.dtype)
    if std != 1:
        z = ew(b, "stablehlo.multiply", z, b.scalar(std, x.dtype, x.shape))
    if mean != 0:
        z = ew(b, "stablehlo.add", z, b.scalar(mean, x.dtype, x.shape))
    return z


@register(aten.randn_like.default)
def randn_like(b, out, x, **kwargs):
    """Standard normal numbers in x's shape, of out's dtype."""
    return standard_normal(b, out.shape, out.dtype)


def random_integers(b, shape, low, high, dtype):
    """Integers in [low, high) of dtype: 32 random bits modulo the range (a
    graph input; bias below range / 2^32), plus low."""
    if not 0 < high - low <= 2 ** 32:
        raise NotImplementedError(f"tpurun.torch: random integers in [{low}, {high}): the range must be 1 to 2^32")
    wide = b.convert(random_bits(b, shape), torch.int64)
    drawn = ew(b, "stablehlo.remainder", wide, b.scalar(high - low, torch.int64, shape))
    if low != 0:
        drawn = ew(b, "stablehlo.add", drawn, b.scalar(low, torch.int64, shape))
    return b.convert(drawn, dtype)


@register(aten.randint_like.default, aten.randint_like.low_dtype)
def randint_like(b, out, x, *bounds, **kwargs):
    """Integers in [low (default 0), high) in x's shape, of out's dtype."""
    low, high = (0, bounds[0]) if len(bounds) == 1 else bounds
    return random_integers(b, out.shape, low, high, out.dtype)


@register(aten.random_.to, getattr(aten.random_, "from"))
def random_range(b, out, x, *bounds, generator=None):
    """Integers in [low (default 0), high) in x's shape and dtype."""
    _no_generator("random_", generator)
    low, high = (0, bounds[0]) if len(bounds) == 1 else bounds
    if high is None:
        raise NotImplementedError("tpurun.torch: aten.random_ with to=None")
    return random_integers(b, x.shape, low, high, x.dtype)


def _no_generator(name, generator):
    """Refuses an explicit torch.Generator: the TPU's generator is the builder's."""
    if generator is not None:
        raise NotImplementedError(f"tpurun.torch: aten.{name} with generator= (use tpurun.torch.manual_seed)")
