"""Losses and their backward ops: nll_loss (1-D, 2-D and the image form
nll_loss2d), mse_loss, smooth_l1_loss, huber_loss, binary_cross_entropy and
binary_cross_entropy_with_logits.  cross_entropy reaches here as
_log_softmax (lower_reduce.py) followed by nll_loss.

Class indices out of range are not checked (PyTorch raises): such an
element picks no class and contributes 0."""
import torch

from ._lowering import is_value, register
from .lower_reduce import cmp, ew, reduce_to

aten = torch.ops.aten

NONE, MEAN, SUM = 0, 1, 2


def reduced(b, loss, reduction, op_name):
    """The per-element loss reduced as ATen's reduction argument says."""
    if reduction == NONE:
        return loss
    dims = list(range(loss.rank))
    total = b.reshape(reduce_to(b, loss, dims, "stablehlo.add", 0), ())
    if reduction == SUM:
        return total
    if reduction == MEAN:
        return ew(b, "stablehlo.divide", total, b.constant(loss.numel, loss.dtype))
    raise NotImplementedError(f"tpurun.torch: aten.{op_name}: reduction={reduction!r}")


def grad_scale(b, grad, reduction, shape, numel, factor=1):
    """The cotangent of each loss element times factor: grad broadcast to shape,
    scaled by factor (factor / numel for MEAN, as PyTorch's kernels scale it)."""
    scale = factor / numel if reduction == MEAN else factor
    if scale != 1:
        grad = ew(b, "stablehlo.multiply", grad, b.constant(scale, grad.dtype, grad.shape))
    return b.broadcast(grad, shape)


def select(b, pred, x, y):
    """pred ? x : y for same-shaped Values."""
    return b.op("stablehlo.select", [pred, x, y], (x.shape, x.dtype))


def as_value(b, v, dtype):
    """v as a Value of dtype: a Value converted, or a number (a 0-d host tensor
    the dispatcher read) as a scalar input."""
    return b.convert(v, dtype) if is_value(v) else b.scalar(v, dtype)


def zeros(b, v):
    """A constant 0 of v's shape and dtype."""
    return b.constant(0, v.dtype, v.shape)


# ---- nll_loss ------------------------------------------------------------------

def class_dim(x):
    """The class dim of nll_loss's input: 1 for (N, C, ...), 0 for (C,)."""
    return 1 if x.rank >= 2 else 0


def target_mask(b, x, target, ignore_index):
    """x-shaped bool: true at each element's target class, unless the target is
    ignore_index (an ignore_index outside [0, C) never matches a class)."""
    cdim = class_dim(x)
    other = tuple(k for k in range(x.rank) if k != cdim)
    classes = b.op("stablehlo.iota", [], (x.shape, torch.int64), attrs=f"{{iota_dimension = {cdim} : i64}}")
    mask = cmp(b, "EQ", classes, b.broadcast(as_value(b, target, torch.int64), x.shape, other))
    if 0 <= ignore_index < x.shape[cdim]:
        mask = b.op("stablehlo.and", [mask, cmp(b, "NE", classes, b.constant(ignore_index, torch.int64, x.shape))],
                    (x.shape, torch.bool))
    return mask


def class_weights(b, x, weight):
    """weight (C,) broadcast along x's class dim, or None without weight."""
    if weight is None:
        return None
    return b.broadcast(b.convert(weight, x.dtype), x.shape, (class_dim(x),))


@register(aten.nll_loss_forward.default, aten.nll_loss2d_forward.default)
def nll_loss_forward(b, out, x, target, weight, reduction, ignore_index):
    """(loss, total_weight): loss = -weight[t] x[t] per element, reduced; total_weight
    the sum of weight[t] over the elements not ignored (MEAN's divisor; 0 for
    NONE, as PyTorch)."""
    mask, cw = target_mask(b, x, target, ignore_index), class_weights(b, x, weight)
    zero = zeros(b, x)
    picked = select(b, mask, x if cw is None else ew(b, "stablehlo.multiply", x, cw), zero)
    all_dims = list(range(x.rank))
    if reduction == NONE:
        loss = b.reshape(ew(b, "stablehlo.negate", reduce_to(b, picked, [class_dim(x)], "stablehlo.add", 0)),
                         target.shape if is_value(target) else ())
    elif reduction in (MEAN, SUM):
        loss = ew(b, "stablehlo.negate", reduce_to(b, picked, all_dims, "stablehlo.add", 0))
    else:
        raise NotImplementedError(f"tpurun.torch: aten.nll_loss_forward: reduction={reduction!r}")
    if reduction == NONE and x.rank >= 2:
        return loss, b.constant(0, x.dtype)
    weights = b.convert(mask, x.dtype) if cw is None else select(b, mask, cw, zero)
    total_weight = reduce_to(b, weights, all_dims, "stablehlo.add", 0)
    if reduction == MEAN:
        loss = ew(b, "stablehlo.divide", loss, total_weight)
    return loss, total_weight


@register(aten.nll_loss_backward.default, aten.nll_loss2d_backward.default)
def nll_loss_backward(b, out, grad, x, target, weight, reduction, ignore_index, total_weight):
    """d loss / d x: -weight[t] grad at each element's target class, 0 elsewhere."""
    mask, cw = target_mask(b, x, target, ignore_index), class_weights(b, x, weight)
    if reduction == MEAN:
        grad = ew(b, "stablehlo.divide", grad, b.convert(total_weight, grad.dtype))
    cdim = class_dim(x)
    other = tuple(k for k in range(x.rank) if k != cdim) if reduction == NONE else ()
    g = b.broadcast(b.convert(ew(b, "stablehlo.negate", grad), x.dtype), x.shape, other)
    if cw is not None:
        g = ew(b, "stablehlo.multiply", g, cw)
    return select(b, mask, g, zeros(b, g))


# ---- regression losses ---------------------------------------------------------

def difference(b, x, target):
    """x - target, broadcast together, in x's dtype."""
    shape = torch.broadcast_shapes(x.shape, target.shape if is_value(target) else ())
    return ew(b, "stablehlo.subtract", b.broadcast(x, shape), b.broadcast(as_value(b, target, x.dtype), shape))


@register(aten.mse_loss.default)
def mse_loss(b, out, x, target, reduction=MEAN):
    d = difference(b, x, target)
    return reduced(b, ew(b, "stablehlo.multiply", d, d), reduction, "mse_loss")


@register(aten.mse_loss_backward.default)
def mse_loss_backward(b, out, grad, x, target, reduction):
    """2 (x - target) grad (/ N for MEAN)."""
    d = difference(b, x, target)
    return ew(b, "stablehlo.multiply", d, grad_scale(b, grad, reduction, d.shape, d.numel, factor=2))


def huber_terms(b, d, delta):
    """(|d| < delta, delta broadcast): the quadratic zone of smooth L1 / Huber."""
    delta_v = b.scalar(delta, d.dtype, d.shape)
    return cmp(b, "LT", ew(b, "stablehlo.abs", d), delta_v), delta_v


def huber_elements(b, d, delta, smooth):
    """Per-element smooth L1 (0.5 d^2 / beta or |d| - 0.5 beta) or Huber
    (0.5 d^2 or delta (|d| - 0.5 delta)) loss."""
    a = ew(b, "stablehlo.abs", d)
    if smooth and delta == 0:
        return a
    inside, delta_v = huber_terms(b, d, delta)
    half = b.constant(0.5, d.dtype, d.shape)
    quad = ew(b, "stablehlo.multiply", half, ew(b, "stablehlo.multiply", d, d))
    lin = ew(b, "stablehlo.subtract", a, ew(b, "stablehlo.multiply", half, delta_v))
    if smooth:
        quad = ew(b, "stablehlo.divide", quad, delta_v)
    else:
        lin = ew(b, "stablehlo.multiply", delta_v, lin)
    return select(b, inside, quad, lin)


def huber_slope(b, d, delta, smooth):
    """d (per element loss) / d d: d / beta or sign(d) (smooth L1); d or delta sign(d) (Huber)."""
    sign = ew(b, "stablehlo.sign", d)
    if smooth and delta == 0:
        return sign
    inside, delta_v = huber_terms(b, d, delta)
    if smooth:
        return select(b, inside, ew(b, "stablehlo.divide", d, delta_v), sign)
    return select(b, inside, d, ew(b, "stablehlo.multiply", delta_v, sign))


@register(aten.smooth_l1_loss.default)
def smooth_l1_loss(b, out, x, target, reduction=MEAN, beta=1.0):
    return reduced(b, huber_elements(b, difference(b, x, target), beta, True), reduction, "smooth_l1_loss")


@register(aten.smooth_l1_loss_backward.default)
def smooth_l1_loss_backward(b, out, grad, x, target, reduction, beta):
    d = difference(b, x, target)
    slope = huber_slope(b, d, beta, True)
    return ew(b, "stablehlo.multiply", slope, grad_scale(b, grad, reduction, d.shape, d.numel))


@register(aten.huber_loss.default)
def huber_loss(b, out, x, target, reduction=MEAN, delta=1.0):
    return reduced(b, huber_elements(b, difference(b, x, target), delta, False), reduction, "huber_loss")


@register(aten.huber_loss_backward.default)
def huber_loss_backward(b, out, grad, x, target, reduction, delta):
    d = difference(b, x, target)
    slope = huber_slope(b, d, delta, False)
    return ew(b, "stablehlo.multiply", slope, grad_scale(b, grad, reduction, d.shape, d.numel))


# ---- binary cross-entropy --------------------------------------------------------

def weighted(b, loss, weight):
    """loss times weight (broadcast), or loss itself without weight."""
    if weight is None:
        return loss
    return ew(b, "stablehlo.multiply", loss, b.broadcast(b.convert(weight, loss.dtype), loss.shape))


@register(aten.binary_cross_entropy.default)
def binary_cross_entropy(b, out, x, target, weight=None, reduction=MEAN):
    """-(t log x + (1 - t) log(1 - x)), each log clamped at -100 as PyTorch does."""
    t = b.broadcast(as_value(b, target, x.dtype), x.shape)
    one, floor = b.constant(1, x.dtype, x.shape), b.constant(-100, x.dtype, x.shape)
    log_x = ew(b, "stablehlo.maximum", ew(b, "stablehlo.log", x), floor)
    log_1mx = ew(b, "stablehlo.maximum", ew(b, "stablehlo.log", ew(b, "stablehlo.subtract", one, x)), floor)
    pos = ew(b, "stablehlo.multiply", t, log_x)
    neg = ew(b, "stablehlo.multiply", ew(b, "stablehlo.subtract", one, t), log_1mx)
    loss = ew(b, "stablehlo.negate", ew(b, "stablehlo.add", pos, neg))
    return reduced(b, weighted(b, loss, weight), reduction, "binary_cross_entropy")


@register(aten.binary_cross_entropy_backward.default)
def binary_cross_entropy_backward(b, out, grad, x, target, weight=None, reduction=MEAN):
    """grad (x - t) / max(x (1 - x), 1e-12), weighted (/ N for MEAN)."""
    t = b.broadcast(as_value(b, target, x.dtype), x.shape)
    one = b.constant(1, x.dtype, x.shape)
    denom = ew(b, "stablehlo.maximum", ew(b, "stablehlo.multiply", x, ew(b, "stablehlo.subtract", one, x)),
               b.constant(1e-12, x.dtype, x.shape))
    r = ew(b, "stablehlo.divide", ew(b, "stablehlo.subtract", x, t), denom)
    r = ew(b, "stablehlo.multiply", r, grad_scale(b, grad, reduction, x.shape, x.numel))
    return weighted(b, r, weight)


@register(aten.binary_cross_entropy_with_logits.default)
def binary_cross_entropy_with_logits(b, out, x, target, weight=None, pos_weight=None, reduction=MEAN):
    """(1 - t) x + lw (log1p(exp(-|x|)) + max(-x, 0)), lw = 1 + (pos_weight - 1) t."""
    t = b.broadcast(as_value(b, target, x.dtype), x.shape)
    one = b.constant(1, x.dtype, x.shape)
    softplus = ew(b, "stablehlo.add",
                  ew(b, "stablehlo.log_plus_one",
                     ew(b, "stablehlo.exponential", ew(b, "stablehlo.negate", ew(b, "stablehlo.abs", x)))),
                  ew(b, "stablehlo.maximum", ew(b, "stablehlo.negate", x), zeros(b, x)))
    if pos_weight is not None:
        pw = b.broadcast(b.convert(pos_weight, x.dtype), x.shape)
        lw = ew(b, "stablehlo.add", one, ew(b, "stablehlo.multiply", ew(b, "stablehlo.subtract", pw, one), t))
        softplus = ew(b, "stablehlo.multiply", lw, softplus)
    loss = ew(b, "stablehlo.add", ew(b, "stablehlo.multiply", ew(b, "stablehlo.subtract", one, t), x), softplus)
    return reduced(b, weighted(b, loss, weight), reduction, "binary_cross_entropy_with_logits")
