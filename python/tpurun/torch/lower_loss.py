"""Losses and their backward ops: nll_loss (1-D, 2-D and the image form
nll_loss2d), mse_loss, smooth_l1_loss, huber_loss, binary_cross_entropy and
binary_cross_entropy_with_logits.  cross_entropy reaches here as
_log_softmax (lower_reduce.py) followed by nll_loss.

Class indices out of range are not checked (PyTorch raises): such an
element picks no class and contributes 0."""
import torch

from ._lowering import register
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


def grad_scale(b, grad, reduction, shape, numel):
    """The cotangent of each loss element: grad broadcast to shape, divided by numel for MEAN."""
    if reduction == MEAN:
        grad = ew(b, "stablehlo.divide", grad, b.constant(numel, grad.dtype))
    return b.broadcast(grad, shape)


def select(b, pred, x, y):
    """pred ? x : y for same-shaped Values."""
    return b.op("stablehlo.select", [pred, x, y], (x.shape, x.dtype))


def zeros(b, v):
    return b.constant(0, v.dtype, v.shape)


# ---- nll_loss ------------------------------------------------------------------

def nll_parts(b, x, target, weight, ignore_index):
    """(class_mask, valid, class_weight): class_mask (x's shape) marks each
    element's target class; valid (target's shape) where target != ignore_index;
    class_weight (x's shape) the class weights, or None without weight."""
    cdim = 1 if x.rank >= 2 else 0
    other = tuple(k for k in range(x.rank) if k != cdim)
    classes = b.op("stablehlo.iota", [], (x.shape, torch.int64), attrs=f"{{iota_dimension = {cdim} : i64}}")
    target = b.convert(target, torch.int64)
    mask = cmp(b, "EQ", classes, b.broadcast(target, x.shape, other))
    valid = cmp(b, "NE", target, b.constant(ignore_index, torch.int64, target.shape))
    cw = b.broadcast(b.convert(weight, x.dtype), x.shape, (cdim,)) if weight is not None else None
    return mask, valid, cw


def pick(b, v, mask, target_shape, cdim):
    """sum over the class dim of v where mask: v at each element's target class."""
    r = reduce_to(b, select(b, mask, v, zeros(b, v)), [cdim], "stablehlo.add", 0, keep=False)
    return b.reshape(r, target_shape)


@register(aten.nll_loss_forward.default, aten.nll_loss2d_forward.default)
def nll_loss_forward(b, out, x, target, weight, reduction, ignore_index):
    """(loss, total_weight): loss = -weight[t] * x[t] per element, reduced; total_weight
    the sum of the weights of the elements not ignored (MEAN's divisor)."""
    cdim = 1 if x.rank >= 2 else 0
    mask, valid, cw = nll_parts(b, x, target, weight, ignore_index)
    picked = pick(b, x, mask, target.shape, cdim)
    w = pick(b, cw, mask, target.shape, cdim) if cw is not None else b.constant(1, x.dtype, target.shape)
    w = select(b, valid, w, zeros(b, w))
    loss = select(b, valid, ew(b, "stablehlo.negate", ew(b, "stablehlo.multiply", picked, w)), zeros(b, w))
    total_weight = b.reshape(reduce_to(b, w, list(range(w.rank)), "stablehlo.add", 0), ())
    if reduction == MEAN:
        total = b.reshape(reduce_to(b, loss, list(range(loss.rank)), "stablehlo.add", 0), ())
        return ew(b, "stablehlo.divide", total, total_weight), total_weight
    return reduced(b, loss, reduction, "nll_loss_forward"), total_weight


@register(aten.nll_loss_backward.default, aten.nll_loss2d_backward.default)
def nll_loss_backward(b, out, grad, x, target, weight, reduction, ignore_index, total_weight):
    """d loss / d x: -weight[t] * grad at each element's target class, 0 elsewhere."""
    cdim = 1 if x.rank >= 2 else 0
    other = tuple(k for k in range(x.rank) if k != cdim)
    mask, valid, cw = nll_parts(b, x, target, weight, ignore_index)
    keep = b.op("stablehlo.and", [mask, b.broadcast(valid, x.shape, other)], (x.shape, torch.bool))
    if reduction == MEAN:
        grad = ew(b, "stablehlo.divide", grad, b.convert(total_weight, grad.dtype))
    g = b.broadcast(grad, x.shape, other if reduction == NONE else ())
    g = ew(b, "stablehlo.negate", g if cw is None else ew(b, "stablehlo.multiply", g, cw))
    return b.convert(select(b, keep, g, zeros(b, g)), out.dtype)


# ---- regression losses ---------------------------------------------------------

def difference(b, x, target):
    """x - target, broadcast together, in x's dtype."""
    shape = torch.broadcast_shapes(x.shape, target.shape)
    return ew(b, "stablehlo.subtract", b.broadcast(x, shape), b.broadcast(b.convert(target, x.dtype), shape))


@register(aten.mse_loss.default)
def mse_loss(b, out, x, target, reduction=MEAN):
    d = difference(b, x, target)
    return reduced(b, ew(b, "stablehlo.multiply", d, d), reduction, "mse_loss")


@register(aten.mse_loss_backward.default)
def mse_loss_backward(b, out, grad, x, target, reduction):
    """2 (x - target) grad (/ N for MEAN)."""
    d = difference(b, x, target)
    g = grad_scale(b, grad, reduction, d.shape, d.numel)
    return ew(b, "stablehlo.multiply", ew(b, "stablehlo.multiply", d, b.constant(2, d.dtype, d.shape)), g)


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
    return ew(b, "stablehlo.multiply", huber_slope(b, d, beta, True), grad_scale(b, grad, reduction, d.shape, d.numel))


@register(aten.huber_loss.default)
def huber_loss(b, out, x, target, reduction=MEAN, delta=1.0):
    return reduced(b, huber_elements(b, difference(b, x, target), delta, False), reduction, "huber_loss")


@register(aten.huber_loss_backward.default)
def huber_loss_backward(b, out, grad, x, target, reduction, delta):
    d = difference(b, x, target)
    return ew(b, "stablehlo.multiply", huber_slope(b, d, delta, False), grad_scale(b, grad, reduction, d.shape, d.numel))


# ---- binary cross-entropy --------------------------------------------------------

def weighted(b, loss, weight):
    """loss times weight (broadcast), or loss itself without weight."""
    if weight is None:
        return loss
    return ew(b, "stablehlo.multiply", loss, b.broadcast(b.convert(weight, loss.dtype), loss.shape))


@register(aten.binary_cross_entropy.default)
def binary_cross_entropy(b, out, x, target, weight=None, reduction=MEAN):
    """-(t log x + (1 - t) log(1 - x)), each log clamped at -100 as PyTorch does."""
    t = b.convert(target, x.dtype)
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
    t = b.convert(target, x.dtype)
    one = b.constant(1, x.dtype, x.shape)
    denom = ew(b, "stablehlo.maximum", ew(b, "stablehlo.multiply", x, ew(b, "stablehlo.subtract", one, x)),
               b.constant(1e-12, x.dtype, x.shape))
    r = ew(b, "stablehlo.divide", ew(b, "stablehlo.subtract", x, t), denom)
    r = ew(b, "stablehlo.multiply", r, grad_scale(b, grad, reduction, x.shape, x.numel))
    return weighted(b, r, weight)


@register(aten.binary_cross_entropy_with_logits.default)
def binary_cross_entropy_with_logits(b, out, x, target, weight=None, pos_weight=None, reduction=MEAN):
    """(1 - t) x + lw (log1p(exp(-|x|)) + max(-x, 0)), lw = 1 + (pos_weight - 1) t."""
    t = b.convert(target, x.dtype)
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
