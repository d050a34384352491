"""Reductions: sum, nansum, mean, prod, count_nonzero, amax/amin/aminmax,
max/min (with indices), argmax/argmin, sort, topk, median, var/std (and
their _mean forms), any/all, logsumexp, cumsum/cumprod/logcumsumexp,
cummax/cummin, vector norms, softmax and log_softmax with their backward ops.
"""
import math

import torch

from ._builder import i64s, literal, tensor_type
from ._lowering import Spec, body_region, max_value, min_value, normalize_dims, register

aten = torch.ops.aten


# ---- helpers ------------------------------------------------------------------

def reduce_dims(dims, rank):
    """ATen dims (int, list, None or [] for all) as sorted non-negative ints; none for a scalar."""
    return normalize_dims(dims, rank) if rank else []


def ew(b, name, *vals, dtype=None):
    """name applied element by element to same-shaped Values (result dtype: the first's, or dtype)."""
    return b.op(name, list(vals), (vals[0].shape, dtype or vals[0].dtype))


def cmp(b, direction, x, y):
    """x <direction> y (bool) for same-shaped Values."""
    kind = "FLOAT" if x.dtype.is_floating_point else ("UNSIGNED" if x.dtype in (torch.uint8, torch.bool)
                                                      else "SIGNED")
    attrs = (f"{{comparison_direction = #stablehlo<comparison_direction {direction}>, "
             f"compare_type = #stablehlo<comparison_type {kind}>}}")
    return b.op("stablehlo.compare", [x, y], (x.shape, torch.bool), attrs=attrs)


def reduce_to(b, v, dims, op, init):
    """v reduced over dims (non-negative) with the binary op from init; the dims removed."""
    if not dims:
        return v
    shape = tuple(s for i, s in enumerate(v.shape) if i not in dims)
    return b.op("stablehlo.reduce", [v, b.constant(init, v.dtype)], (shape, v.dtype),
                regions=body_region(op, v.dtype), attrs=f"{{dimensions = array<i64{i64s(dims)}>}}")


def count(v, dims):
    """How many elements of v each reduction over dims combines."""
    return math.prod(v.shape[d] for d in dims)


def full_like(b, v, x):
    """A constant x of v's shape and dtype."""
    return b.constant(x, v.dtype, v.shape)


def acc_type(dtype):
    """The type a reduction of dtype accumulates in: float32 for the 16-bit floats (as PyTorch's CPU kernels)."""
    return torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype


def widened(b, x, dtype):
    """x converted to dtype's accumulation type."""
    return b.convert(x, acc_type(dtype))


def spread(b, r, shape, dims):
    """r, a reduction over dims, broadcast back to the reduced operand's shape."""
    return b.broadcast(r, shape, tuple(k for k in range(len(shape)) if k not in dims))


# ---- sum, mean, prod, amax, amin ------------------------------------------------

@register(aten.sum.default, aten.sum.dim_IntList)
def sum_(b, out, x, dims=None, keepdim=False, dtype=None):
    """Sum over dims (all when None or []), in out's dtype (int and bool -> int64)."""
    r = reduce_to(b, widened(b, x, out.dtype), reduce_dims(dims, x.rank), "stablehlo.add", 0)
    return b.convert(b.reshape(r, out.shape), out.dtype)


@register(aten.mean.default, aten.mean.dim)
def mean(b, out, x, dims=None, keepdim=False, dtype=None):
    """Sum over dims divided by their element count (NaN when empty, as PyTorch)."""
    dims = reduce_dims(dims, x.rank)
    s = reduce_to(b, widened(b, x, out.dtype), dims, "stablehlo.add", 0)
    r = ew(b, "stablehlo.divide", s, full_like(b, s, count(x, dims)))
    return b.convert(b.reshape(r, out.shape), out.dtype)


@register(aten.prod.default, aten.prod.dim_int)
def prod(b, out, x, dim=None, keepdim=False, dtype=None):
    """Product over dim (all when absent)."""
    if dim is not None and not isinstance(dim, int):
        raise NotImplementedError(f"tpurun.torch: aten.prod: dim={dim!r}")
    r = reduce_to(b, widened(b, x, out.dtype), reduce_dims(dim, x.rank), "stablehlo.multiply", 1)
    return b.convert(b.reshape(r, out.shape), out.dtype)


@register(aten.nansum.default)
def nansum(b, out, x, dims=None, keepdim=False, dtype=None):
    """Sum over dims with NaNs counted as 0."""
    if x.dtype.is_floating_point:
        x = b.op("stablehlo.select", [cmp(b, "NE", x, x), full_like(b, x, 0), x], (x.shape, x.dtype))
    return sum_(b, out, x, dims, keepdim, dtype)


@register(aten.count_nonzero.default, aten.count_nonzero.dim_IntList)
def count_nonzero(b, out, x, dims=None):
    """How many elements over dims are not 0 (int64; no meta kernel: out is None)."""
    return reduce_to(b, b.convert(truth(b, x), torch.int64), reduce_dims(dims, x.rank), "stablehlo.add", 0)


def extreme(b, x, dims, largest):
    """max (largest) or min over dims; NaN propagates as in PyTorch."""
    if x.dtype == torch.bool:
        return reduce_to(b, x, dims, "stablehlo.or" if largest else "stablehlo.and", not largest)
    if largest:
        return reduce_to(b, x, dims, "stablehlo.maximum", min_value(x.dtype))
    return reduce_to(b, x, dims, "stablehlo.minimum", max_value(x.dtype))


def nonempty(op, x, dims):
    """PyTorch's error for max/min of an empty tensor (no identity to return)."""
    if x.numel == 0 and not dims:
        raise RuntimeError(f"{op}(): Expected reduction dim to be specified for input.numel() == 0. "
                           f"Specify the reduction dim with the 'dim' argument.")
    for d in dims:
        if x.shape[d] == 0:
            raise IndexError(f"{op}(): Expected reduction dim {d} to have non-zero size.")


@register(aten.amax.default)
def amax(b, out, x, dim=(), keepdim=False):
    nonempty("amax", x, reduce_dims(dim, x.rank) if dim else ())
    return b.reshape(extreme(b, x, reduce_dims(dim, x.rank), True), out.shape)


@register(aten.amin.default)
def amin(b, out, x, dim=(), keepdim=False):
    nonempty("amin", x, reduce_dims(dim, x.rank) if dim else ())
    return b.reshape(extreme(b, x, reduce_dims(dim, x.rank), False), out.shape)


@register(aten.aminmax.default)
def aminmax(b, out, x, *, dim=None, keepdim=False):
    """(min, max) over dim (all when None)."""
    dims = reduce_dims(dim, x.rank)
    return b.reshape(extreme(b, x, dims, False), out[0].shape), b.reshape(extreme(b, x, dims, True), out[1].shape)


@register(aten.max.default)
def max_all(b, out, x):
    nonempty("max", x, ())
    return b.reshape(extreme(b, x, reduce_dims(None, x.rank), True), out.shape)


@register(aten.min.default)
def min_all(b, out, x):
    nonempty("min", x, ())
    return b.reshape(extreme(b, x, reduce_dims(None, x.rank), False), out.shape)


# ---- values with indices: max.dim, min.dim, argmax, argmin -------------------------

def arg_region(dtype, largest, last=False):
    """The body of a (value, index) reduce: the larger (smaller) value wins, NaN
    beats every number, equal values keep the lower index (PyTorch's first
    occurrence; the higher one when last, as cummax/cummin)."""
    t, i, p = tensor_type((), dtype), tensor_type((), torch.int64), tensor_type((), torch.bool)
    kind = "FLOAT" if dtype.is_floating_point else ("UNSIGNED" if dtype in (torch.uint8, torch.bool)
                                                    else "SIGNED")

    def compare(name, lhs, rhs, direction, typ=t, k=kind):
        return (f'    %{name} = "stablehlo.compare"(%{lhs}, %{rhs}) {{comparison_direction = '
                f'#stablehlo<comparison_direction {direction}>, compare_type = #stablehlo<comparison_type {k}>}}'
                f' : ({typ}, {typ}) -> {p}\n')

    def logic(name, op, lhs, rhs):
        return f'    %{name} = "stablehlo.{op}"(%{lhs}, %{rhs}) : ({p}, {p}) -> {p}\n'

    lines = [compare("wins", "a", "b", "GT" if largest else "LT"), compare("same", "a", "b", "EQ")]
    if dtype.is_floating_point:
        lines += [compare("anan", "a", "a", "NE"), compare("bnan", "b", "b", "NE"),
                  f'    %bnum = "stablehlo.not"(%bnan) : ({p}) -> {p}\n',
                  logic("nanwins", "and", "anan", "bnum"), logic("better", "or", "wins", "nanwins"),
                  logic("bothnan", "and", "anan", "bnan"), logic("equal", "or", "same", "bothnan")]
    else:
        lines += [logic("better", "or", "wins", "wins"), logic("equal", "or", "same", "same")]
    lines += [compare("first", "ai", "bi", "GT" if last else "LT", i, "SIGNED"),
              logic("tie", "and", "equal", "first"),
              logic("pick", "or", "better", "tie"),
              f'    %v = "stablehlo.select"(%pick, %a, %b) : ({p}, {t}, {t}) -> {t}\n',
              f'    %j = "stablehlo.select"(%pick, %ai, %bi) : ({p}, {i}, {i}) -> {i}\n',
              f'    "stablehlo.return"(%v, %j) : ({t}, {i}) -> ()\n']
    return f"({{\n  ^bb0(%a: {t}, %ai: {i}, %b: {t}, %bi: {i}):\n{''.join(lines)}}})"


def arg_extreme(b, x, dim, largest):
    """(values, int64 indices) of the max (largest) or min of x along dim, dim removed."""
    if x.dtype == torch.bool:
        x = b.convert(x, torch.uint8)
    if x.shape[dim] == 0:
        raise NotImplementedError("tpurun.torch: max/min/argmax/argmin over an empty dimension")
    shape = tuple(s for k, s in enumerate(x.shape) if k != dim)
    idx = b.op("stablehlo.iota", [], (x.shape, torch.int64), attrs=f"{{iota_dimension = {dim} : i64}}")
    init = min_value(x.dtype) if largest else max_value(x.dtype)
    return b.op("stablehlo.reduce", [x, idx, b.constant(init, x.dtype), b.constant(0, torch.int64)],
                [(shape, x.dtype), (shape, torch.int64)], regions=arg_region(x.dtype, largest),
                attrs=f"{{dimensions = array<i64: {dim}>}}")


def max_min_dim(b, out, x, dim, keepdim, largest):
    """max.dim / min.dim: (values, indices)."""
    if x.rank == 0:
        return x, b.constant(0, torch.int64)
    vals, idx = arg_extreme(b, x, dim % x.rank, largest)
    return b.convert(b.reshape(vals, out[0].shape), out[0].dtype), b.reshape(idx, out[1].shape)


@register(aten.max.dim)
def max_dim(b, out, x, dim, keepdim=False):
    return max_min_dim(b, out, x, dim, keepdim, True)


@register(aten.min.dim)
def min_dim(b, out, x, dim, keepdim=False):
    return max_min_dim(b, out, x, dim, keepdim, False)


def argextreme(b, out, x, dim, largest):
    """argmax / argmin: indices along dim, or into the flattened x when dim is None."""
    if x.rank == 0:
        return b.constant(0, torch.int64)
    if dim is None:
        x, dim = b.reshape(x, (x.numel,)), 0
    return b.reshape(arg_extreme(b, x, dim % x.rank, largest)[1], out.shape)


@register(aten.argmax.default)
def argmax(b, out, x, dim=None, keepdim=False):
    return argextreme(b, out, x, dim, True)


@register(aten.argmin.default)
def argmin(b, out, x, dim=None, keepdim=False):
    return argextreme(b, out, x, dim, False)


# ---- sort, topk, median ------------------------------------------------------------

def order_region(dtype, descending):
    """A sort comparator on (value, index) pairs: ascending (descending) values, NaN
    after (before) every number as PyTorch sorts them; ties are left to is_stable."""
    t, i, p = tensor_type((), dtype), tensor_type((), torch.int64), tensor_type((), torch.bool)
    kind = "FLOAT" if dtype.is_floating_point else ("UNSIGNED" if dtype in (torch.uint8, torch.bool)
                                                    else "SIGNED")

    def compare(name, lhs, rhs, direction):
        return (f'    %{name} = "stablehlo.compare"(%{lhs}, %{rhs}) {{comparison_direction = '
                f'#stablehlo<comparison_direction {direction}>, compare_type = #stablehlo<comparison_type {kind}>}}'
                f' : ({t}, {t}) -> {p}\n')

    lines = [compare("before", "a", "b", "GT" if descending else "LT")]
    if dtype.is_floating_point:
        nan_side, num_side = ("a", "b") if descending else ("b", "a")
        lines += [compare("nan", nan_side, nan_side, "NE"), compare("num", num_side, num_side, "EQ"),
                  f'    %nanlast = "stablehlo.and"(%nan, %num) : ({p}, {p}) -> {p}\n',
                  f'    %r = "stablehlo.or"(%before, %nanlast) : ({p}, {p}) -> {p}\n',
                  f'    "stablehlo.return"(%r) : ({p}) -> ()\n']
    else:
        lines += [f'    "stablehlo.return"(%before) : ({p}) -> ()\n']
    return f"({{\n  ^bb0(%a: {t}, %b: {t}, %ai: {i}, %bi: {i}):\n{''.join(lines)}}})"


def sorted_along(b, x, dim, descending):
    """(values, int64 indices) of x stably sorted along dim."""
    v = b.convert(x, torch.uint8) if x.dtype == torch.bool else x
    idx = b.op("stablehlo.iota", [], (x.shape, torch.int64), attrs=f"{{iota_dimension = {dim} : i64}}")
    vals, ids = b.op("stablehlo.sort", [v, idx], [(x.shape, v.dtype), (x.shape, torch.int64)],
                     regions=order_region(v.dtype, descending), attrs=f"{{dimension = {dim} : i64, is_stable = true}}")
    return b.convert(vals, x.dtype), ids


def take(b, v, dim, start, stop):
    """v[start:stop] along dim (stablehlo.slice)."""
    limits = [stop if k == dim else n for k, n in enumerate(v.shape)]
    starts = [start if k == dim else 0 for k in range(v.rank)]
    shape = tuple(hi - lo for lo, hi in zip(starts, limits))
    return b.op("stablehlo.slice", [v], (shape, v.dtype),
                attrs=f"{{start_indices = array<i64{i64s(starts)}>, limit_indices = array<i64{i64s(limits)}>, "
                      f"strides = array<i64{i64s([1] * v.rank)}>}}")


@register(aten.sort.default)
def sort(b, out, x, dim=-1, descending=False):
    if x.rank == 0:
        return x, b.constant(0, torch.int64)
    return sorted_along(b, x, dim % x.rank, descending)


@register(aten.sort.stable)
def sort_stable(b, out, x, *, stable=None, dim=-1, descending=False):
    """Every sort here is stable (PyTorch's CPU order of ties)."""
    return sort(b, out, x, dim, descending)


@register(aten.topk.default)
def topk(b, out, x, k, dim=-1, largest=True, sorted=True):
    """The k largest (smallest) along dim, in order, ties by index."""
    if x.rank == 0:
        return x, b.constant(0, torch.int64)
    dim = dim % x.rank
    vals, ids = sorted_along(b, x, dim, largest)
    return take(b, vals, dim, 0, k), take(b, ids, dim, 0, k)


def median_along(b, x, dim):
    """(lower median, its index) along dim, dim removed; NaN and the index of the
    first NaN where the row holds one (PyTorch's median)."""
    n = x.shape[dim]
    if n == 0:
        raise NotImplementedError("tpurun.torch: median over an empty dimension")
    shape = tuple(s for k, s in enumerate(x.shape) if k != dim)
    vals, ids = sorted_along(b, x, dim, False)
    med, at = (b.reshape(take(b, v, dim, (n - 1) // 2, (n - 1) // 2 + 1), shape) for v in (vals, ids))
    if not x.dtype.is_floating_point:
        return med, at
    has_nan, first_nan = arg_extreme(b, b.convert(cmp(b, "NE", x, x), torch.uint8), dim, True)
    has_nan = cmp(b, "NE", has_nan, full_like(b, has_nan, 0))
    nan = b.op("stablehlo.select", [has_nan, b.constant(math.nan, x.dtype, shape), med], (shape, x.dtype))
    return nan, b.op("stablehlo.select", [has_nan, first_nan, at], (shape, torch.int64))


@register(aten.median.dim)
def median_dim(b, out, x, dim, keepdim=False):
    """(values, indices) of the lower median along dim (no meta kernel: out is None)."""
    if x.rank == 0:
        return x, b.constant(0, torch.int64)
    dim = dim % x.rank
    vals, ids = median_along(b, x, dim)
    if not keepdim:
        return vals, ids
    shape = tuple(1 if k == dim else n for k, n in enumerate(x.shape))
    return b.reshape(vals, shape), b.reshape(ids, shape)


@register(aten.median.default)
def median(b, out, x):
    """The lower median of all elements (NaN when one is NaN)."""
    if x.rank == 0:
        return x
    return median_along(b, b.reshape(x, (x.numel,)), 0)[0]


# ---- var, std --------------------------------------------------------------------

def var_mean_of(b, x, dims, correction):
    """(variance, mean) over dims; divisor max(0, N - correction)."""
    n = count(x, dims)
    s = reduce_to(b, x, dims, "stablehlo.add", 0)
    m = ew(b, "stablehlo.divide", s, full_like(b, s, n))
    d = ew(b, "stablehlo.subtract", x, spread(b, m, x.shape, dims))
    ss = reduce_to(b, ew(b, "stablehlo.multiply", d, d), dims, "stablehlo.add", 0)
    return ew(b, "stablehlo.divide", ss, full_like(b, ss, max(0, n - correction))), m


def correction_of(correction, unbiased):
    """The divisor correction from ATen's correction= or unbiased= forms (default 1)."""
    if correction is not None:
        return correction
    return 1 if unbiased is None or unbiased else 0


def var_like(b, out, x, dim, correction, keepdim, unbiased=None):
    """(variance, mean) of var/std's arguments, shaped like the result."""
    if x.dtype.is_complex:
        raise NotImplementedError("tpurun.torch: var/std of a complex tensor")
    dims = reduce_dims(dim, x.rank)
    v, m = var_mean_of(b, widened(b, x, x.dtype), dims, correction_of(correction, unbiased))
    shape = out.shape if isinstance(out, Spec) else out[0].shape
    return b.convert(b.reshape(v, shape), x.dtype), b.convert(b.reshape(m, shape), x.dtype)


@register(aten.var.correction)
def var(b, out, x, dim=None, *, correction=None, keepdim=False):
    return var_like(b, out, x, dim, correction, keepdim)[0]


@register(aten.var.dim)
def var_dim(b, out, x, dim, unbiased=True, keepdim=False):
    return var_like(b, out, x, dim, None, keepdim, unbiased)[0]


@register(aten.var.default)
def var_all(b, out, x, unbiased=True):
    return var_like(b, out, x, None, None, False, unbiased)[0]


@register(aten.std.correction)
def std(b, out, x, dim=None, *, correction=None, keepdim=False):
    return ew(b, "stablehlo.sqrt", var_like(b, out, x, dim, correction, keepdim)[0])


@register(aten.std.dim)
def std_dim(b, out, x, dim, unbiased=True, keepdim=False):
    return ew(b, "stablehlo.sqrt", var_like(b, out, x, dim, None, keepdim, unbiased)[0])


@register(aten.std.default)
def std_all(b, out, x, unbiased=True):
    return ew(b, "stablehlo.sqrt", var_like(b, out, x, None, None, False, unbiased)[0])


@register(aten.var_mean.correction)
def var_mean(b, out, x, dim=None, *, correction=None, keepdim=False):
    return var_like(b, out, x, dim, correction, keepdim)


@register(aten.std_mean.correction)
def std_mean(b, out, x, dim=None, *, correction=None, keepdim=False):
    v, m = var_like(b, out, x, dim, correction, keepdim)
    return ew(b, "stablehlo.sqrt", v), m


# ---- any, all ----------------------------------------------------------------------

def truth(b, x):
    """x != 0 as bool."""
    if x.dtype == torch.bool:
        return x
    return cmp(b, "NE", x, full_like(b, x, 0))


@register(aten.any.default, aten.any.dim)
def any_(b, out, x, dim=None, keepdim=False):
    r = reduce_to(b, truth(b, x), reduce_dims(dim, x.rank), "stablehlo.or", False)
    return b.convert(b.reshape(r, out.shape), out.dtype)


@register(aten.all.default, aten.all.dim)
def all_(b, out, x, dim=None, keepdim=False):
    r = reduce_to(b, truth(b, x), reduce_dims(dim, x.rank), "stablehlo.and", True)
    return b.convert(b.reshape(r, out.shape), out.dtype)


# ---- logsumexp, softmax, log_softmax ------------------------------------------------

def stable_max(b, x, dims):
    """max over dims, 0 where it is not finite: logsumexp's shift (-inf for an all -inf row)."""
    m = extreme(b, x, dims, True)
    return b.op("stablehlo.select", [ew(b, "stablehlo.is_finite", m, dtype=torch.bool), m, full_like(b, m, 0)],
                (m.shape, m.dtype))


def shifted_exp_sum(b, x, dims):
    """(x - m, exp(x - m), sum(exp(x - m)) over dims) with m the max over dims
    (a row of -inf, or holding +inf, gives NaN as in PyTorch)."""
    shifted = ew(b, "stablehlo.subtract", x, spread(b, extreme(b, x, dims, True), x.shape, dims))
    e = ew(b, "stablehlo.exponential", shifted)
    return shifted, e, reduce_to(b, e, dims, "stablehlo.add", 0)


@register(aten.logsumexp.default)
def logsumexp(b, out, x, dim, keepdim=False):
    """log(sum(exp(x))) over dim, shifted by the max (0 where it is not finite)."""
    x = widened(b, x, out.dtype)
    dims = reduce_dims(dim, x.rank)
    m = stable_max(b, x, dims)
    s = reduce_to(b, ew(b, "stablehlo.exponential", ew(b, "stablehlo.subtract", x, spread(b, m, x.shape, dims))),
                  dims, "stablehlo.add", 0)
    return b.convert(b.reshape(ew(b, "stablehlo.add", ew(b, "stablehlo.log", s), m), out.shape), out.dtype)


@register(aten._softmax.default)
def softmax(b, out, x, dim, half_to_float=False):
    """exp(x - max) / sum(exp(x - max)) along dim."""
    x = widened(b, x, out.dtype)
    dims = reduce_dims(dim, x.rank)
    _, e, s = shifted_exp_sum(b, x, dims)
    return b.convert(ew(b, "stablehlo.divide", e, spread(b, s, x.shape, dims)), out.dtype)


@register(aten._log_softmax.default)
def log_softmax(b, out, x, dim, half_to_float=False):
    """x - max - log(sum(exp(x - max))) along dim."""
    x = widened(b, x, out.dtype)
    dims = reduce_dims(dim, x.rank)
    shifted, _, s = shifted_exp_sum(b, x, dims)
    return b.convert(ew(b, "stablehlo.subtract", shifted, spread(b, ew(b, "stablehlo.log", s), x.shape, dims)),
                     out.dtype)


@register(aten._softmax_backward_data.default)
def softmax_backward(b, out, grad, y, dim, input_dtype):
    """y * (grad - sum(grad * y)) along dim."""
    dims = reduce_dims(dim, y.rank)
    grad, y = widened(b, grad, grad.dtype), widened(b, y, grad.dtype)
    dot = reduce_to(b, ew(b, "stablehlo.multiply", grad, y), dims, "stablehlo.add", 0)
    r = ew(b, "stablehlo.multiply", y, ew(b, "stablehlo.subtract", grad, spread(b, dot, y.shape, dims)))
    return b.convert(r, out.dtype)


@register(aten._log_softmax_backward_data.default)
def log_softmax_backward(b, out, grad, y, dim, input_dtype):
    """grad - exp(y) * sum(grad) along dim."""
    dims = reduce_dims(dim, y.rank)
    grad, y = widened(b, grad, grad.dtype), widened(b, y, grad.dtype)
    s = reduce_to(b, grad, dims, "stablehlo.add", 0)
    r = ew(b, "stablehlo.subtract", grad,
           ew(b, "stablehlo.multiply", ew(b, "stablehlo.exponential", y), spread(b, s, y.shape, dims)))
    return b.convert(r, out.dtype)


# ---- cumsum, cumprod ------------------------------------------------------------------

def prefix_window(x, dim):
    """reduce_window's attributes for inclusive prefixes along dim: a window
    over the whole dim, padded in front."""
    n = x.shape[dim]
    window = [n if k == dim else 1 for k in range(x.rank)]
    pad = ", ".join(f"[{n - 1 if k == dim else 0}, 0]" for k in range(x.rank))
    return (f"{{window_dimensions = array<i64{i64s(window)}>, "
            f"padding = dense<[{pad}]> : tensor<{x.rank}x2xi64>}}")


def scan(b, x, dim, op, init, region=None):
    """Inclusive prefix reduction along dim with the binary op (or the reducer
    region) from init: one reduce_window."""
    if x.numel == 0 or x.rank == 0 or x.shape[dim] == 1:
        return x
    return b.op("stablehlo.reduce_window", [x, b.constant(init, x.dtype)], (x.shape, x.dtype),
                regions=region or body_region(op, x.dtype), attrs=prefix_window(x, dim))


@register(aten.cumsum.default)
def cumsum(b, out, x, dim, dtype=None):
    r = scan(b, widened(b, x, out.dtype), dim % max(x.rank, 1), "stablehlo.add", 0)
    return b.convert(r, out.dtype)


@register(aten.cumprod.default)
def cumprod(b, out, x, dim, dtype=None):
    r = scan(b, widened(b, x, out.dtype), dim % max(x.rank, 1), "stablehlo.multiply", 1)
    return b.convert(r, out.dtype)


def logaddexp_region(dtype):
    """The reducer log(exp(a) + exp(b)) = max + log1p(exp(min - max)), max itself when min is -inf."""
    t, p = tensor_type((), dtype), tensor_type((), torch.bool)
    binary = [("hi", "maximum", "a", "b"), ("lo", "minimum", "a", "b"), ("d", "subtract", "lo", "hi")]
    lines = [f'    %{n} = "stablehlo.{op}"(%{x}, %{y}) : ({t}, {t}) -> {t}\n' for n, op, x, y in binary]
    lines += [f'    %e = "stablehlo.exponential"(%d) : ({t}) -> {t}\n',
              f'    %l = "stablehlo.log_plus_one"(%e) : ({t}) -> {t}\n',
              f'    %s = "stablehlo.add"(%hi, %l) : ({t}, {t}) -> {t}\n',
              f'    %ninf = "stablehlo.constant"() {{value = dense<{literal(-math.inf, dtype)}> : {t}}} : () -> {t}\n',
              f'    %none = "stablehlo.compare"(%lo, %ninf) {{comparison_direction = '
              f'#stablehlo<comparison_direction EQ>, compare_type = #stablehlo<comparison_type FLOAT>}}'
              f' : ({t}, {t}) -> {p}\n',
              f'    %r = "stablehlo.select"(%none, %hi, %s) : ({p}, {t}, {t}) -> {t}\n',
              f'    "stablehlo.return"(%r) : ({t}) -> ()\n']
    return f"({{\n  ^bb0(%a: {t}, %b: {t}):\n{''.join(lines)}}})"


@register(aten.logcumsumexp.default)
def logcumsumexp(b, out, x, dim):
    """log(cumsum(exp(x))) without overflow (no meta kernel: out is None)."""
    w = widened(b, x, x.dtype)
    r = scan(b, w, dim % max(x.rank, 1), None, -math.inf, region=logaddexp_region(w.dtype))
    return b.convert(r, x.dtype)


def cumulative_extreme(b, out, x, dim, largest):
    """cummax / cummin: (values, int64 indices of the last occurrence) along dim."""
    if x.numel == 0 or x.rank == 0:
        return x, b.constant(0, torch.int64, x.shape)
    dim = dim % x.rank
    v = b.convert(x, torch.uint8) if x.dtype == torch.bool else x
    idx = b.op("stablehlo.iota", [], (x.shape, torch.int64), attrs=f"{{iota_dimension = {dim} : i64}}")
    init = min_value(v.dtype) if largest else max_value(v.dtype)
    vals, ids = b.op("stablehlo.reduce_window", [v, idx, b.constant(init, v.dtype), b.constant(0, torch.int64)],
                     [(x.shape, v.dtype), (x.shape, torch.int64)], regions=arg_region(v.dtype, largest, last=True),
                     attrs=prefix_window(x, dim))
    return b.convert(vals, x.dtype), ids


@register(aten.cummax.default)
def cummax(b, out, x, dim):
    return cumulative_extreme(b, out, x, dim, True)


@register(aten.cummin.default)
def cummin(b, out, x, dim):
    return cumulative_extreme(b, out, x, dim, False)


# ---- vector norms ---------------------------------------------------------------------

def vector_norm(b, x, p, dims):
    """The p-norm of x over dims."""
    if x.dtype.is_complex:
        raise NotImplementedError("tpurun.torch: aten.linalg_vector_norm / aten.norm of a complex tensor")
    if p == 2:
        return ew(b, "stablehlo.sqrt", reduce_to(b, ew(b, "stablehlo.multiply", x, x), dims, "stablehlo.add", 0))
    if p == 0:
        return reduce_to(b, b.convert(truth(b, x), x.dtype), dims, "stablehlo.add", 0)
    a = ew(b, "stablehlo.abs", x)
    if p == 1:
        return reduce_to(b, a, dims, "stablehlo.add", 0)
    if p == math.inf:
        return extreme(b, a, dims, True)
    if p == -math.inf:
        return extreme(b, a, dims, False)
    powered = ew(b, "stablehlo.power", a, b.scalar(p, x.dtype, x.shape))
    s = reduce_to(b, powered, dims, "stablehlo.add", 0)
    return ew(b, "stablehlo.power", s, b.scalar(1.0 / p, x.dtype, s.shape))


@register(aten.linalg_vector_norm.default)
def linalg_vector_norm(b, out, x, ord=2, dim=None, keepdim=False, *, dtype=None):
    r = vector_norm(b, widened(b, x, out.dtype), float(ord), reduce_dims(dim, x.rank))
    return b.convert(b.reshape(r, out.shape), out.dtype)


@register(aten.norm.Scalar, aten.norm.ScalarOpt_dim, aten.norm.ScalarOpt_dtype, aten.norm.ScalarOpt_dim_dtype)
def norm(b, out, x, p=2, dim=None, keepdim=False, dtype=None):
    """aten.norm with p None meaning 2."""
    r = vector_norm(b, widened(b, x, out.dtype), 2.0 if p is None else float(p), reduce_dims(dim, x.rank))
    return b.convert(b.reshape(r, out.shape), out.dtype)
