"""Neural-network ATen ops: matrix products, convolution and its backward,
max/average/adaptive pooling and their backward ops, batch, layer and
group normalization with their backward ops."""
import math

import numpy as np
import torch

from ._builder import i64s, literal, tensor_type
from ._lowering import Spec, body_region, operand, reduce, register
from ._tensor import Mutated

aten = torch.ops.aten

HALF = (torch.float16, torch.bfloat16)


def acc_type(dtype):
    """The type PyTorch computes normalizations and pooling sums in: f32 for f16/bf16."""
    return torch.float32 if dtype in HALF else dtype


def binary(b, name, x, y):
    """name(x, y) for Values of one shape and dtype (y may be broadcast first)."""
    return b.op(name, [x, b.broadcast(y, x.shape)], (x.shape, x.dtype))


def unary(b, name, x):
    return b.op(name, [x], (x.shape, x.dtype))


def along(b, v, shape, dim):
    """The 1-D Value v broadcast to shape along dimension dim."""
    return b.broadcast(v, shape, (dim,))


def dims_text(xs):
    return "[" + ", ".join(str(int(d)) for d in xs) + "]"


# ---- matrix products --------------------------------------------------------

def matmul_operands(b, x, y):
    """x and y as a float32 matrix product takes them: rounded to bf16 when
    torch.set_float32_matmul_precision("medium") allows it (a TPU's DEFAULT
    precision: the VM's bf16 kernels, f32 accumulation and result)."""
    if x.dtype == y.dtype == torch.float32 and torch.get_float32_matmul_precision() == "medium":
        return b.convert(x, torch.bfloat16), b.convert(y, torch.bfloat16)
    return x, y


def dot(b, x, y, out, lhs_batch=(), rhs_batch=(), lhs_contract=(), rhs_contract=()):
    """stablehlo.dot_general of x and y into out (shape, dtype)."""
    attrs = ("{dot_dimension_numbers = #stablehlo.dot<"
             + (f"lhs_batching_dimensions = {dims_text(lhs_batch)}, "
                f"rhs_batching_dimensions = {dims_text(rhs_batch)}, " if lhs_batch else "")
             + f"lhs_contracting_dimensions = {dims_text(lhs_contract)}, "
               f"rhs_contracting_dimensions = {dims_text(rhs_contract)}>}}")
    return b.op("stablehlo.dot_general", [x, y], (out.shape, out.dtype), attrs=attrs)


def scaled_sum(b, out, product, bias, beta, alpha):
    """beta * bias + alpha * product (bias ignored when beta is 0, as PyTorch does)."""
    if alpha != 1:
        product = binary(b, "stablehlo.multiply", product, b.scalar(alpha, out.dtype))
    if beta == 0:
        return product
    bias = operand(b, bias, out.dtype, out.shape)
    if beta != 1:
        bias = binary(b, "stablehlo.multiply", bias, b.scalar(beta, out.dtype))
    return binary(b, "stablehlo.add", product, bias)


def same_dtype(op, *operands):
    """PyTorch's error for a product of operands of different dtypes (the
    TPU's dot_general takes one element type)."""
    dtypes = [v.dtype for v in operands if v is not None and hasattr(v, "dtype")]
    if any(d != dtypes[0] for d in dtypes):
        found = " and ".join(str(d).replace("torch.", "") for d in dtypes)
        raise RuntimeError(f"{op}: expected all operands to have the same dtype, but found {found}")


@register(aten.mm.default)
def mm(b, out, x, y):
    same_dtype("mm", x, y)
    shape, dtype = (x.shape[0], y.shape[1]), x.dtype
    x, y = matmul_operands(b, x, y)
    return dot(b, x, y, Spec(shape, dtype), lhs_contract=[1], rhs_contract=[0])


@register(aten.addmm.default)
def addmm(b, out, bias, x, y, beta=1, alpha=1):
    """beta * bias + alpha * (x @ y): nn.Linear's forward."""
    same_dtype("addmm", bias, x, y)
    return scaled_sum(b, out, mm(b, out, x, y), bias, beta, alpha)


@register(aten.bmm.default)
def bmm(b, out, x, y):
    same_dtype("bmm", x, y)
    shape, dtype = (x.shape[0], x.shape[1], y.shape[2]), x.dtype
    x, y = matmul_operands(b, x, y)
    return dot(b, x, y, Spec(shape, dtype), lhs_batch=[0], rhs_batch=[0], lhs_contract=[2], rhs_contract=[1])


@register(aten.baddbmm.default)
def baddbmm(b, out, bias, x, y, beta=1, alpha=1):
    same_dtype("baddbmm", bias, x, y)
    return scaled_sum(b, out, bmm(b, out, x, y), bias, beta, alpha)


@register(aten.mv.default)
def mv(b, out, x, y):
    same_dtype("mv", x, y)
    shape, dtype = (x.shape[0],), x.dtype
    x, y = matmul_operands(b, x, y)
    return dot(b, x, y, Spec(shape, dtype), lhs_contract=[1], rhs_contract=[0])


@register(aten.dot.default)
def dot_(b, out, x, y):
    same_dtype("dot", x, y)
    dtype = x.dtype
    x, y = matmul_operands(b, x, y)
    return dot(b, x, y, Spec((), dtype), lhs_contract=[0], rhs_contract=[0])


# ---- convolution ------------------------------------------------------------

def layout(first, second, n):
    """A convolution operand's dimension labels: first, second, then n spatial dims."""
    return (first, second) + tuple(str(i) for i in range(n))


def conv(b, x, w, dtype, lhs, rhs, res, strides, pads, lhs_dil, rhs_dil, groups=1, batch_groups=1):
    """stablehlo.convolution of x and w with the dimension labels lhs, rhs,
    res (tuples of "b", "f" / "i", "o" / spatial digits); pads: (lo, hi) per
    spatial dimension.  The result shape is computed here."""
    n = len(strides)
    size = {"b": x.shape[lhs.index("b")] // batch_groups, "f": w.shape[rhs.index("o")]}
    for i in range(n):
        d = str(i)
        base = (x.shape[lhs.index(d)] - 1) * lhs_dil[i] + 1
        window = (w.shape[rhs.index(d)] - 1) * rhs_dil[i] + 1
        size[d] = (base + pads[i][0] + pads[i][1] - window) // strides[i] + 1
    shape = tuple(size[label] for label in res)

    def labels(xs):
        return "[" + ", ".join(xs) + "]"
    pad_text = "[" + ", ".join(f"[{lo}, {hi}]" for lo, hi in pads) + "]"
    attrs = (f"{{dimension_numbers = #stablehlo.conv<{labels(lhs)}x{labels(rhs)}->{labels(res)}>, "
             f"window_strides = array<i64{i64s(strides)}>, "
             f"padding = dense<{pad_text}> : tensor<{n}x2xi64>, "
             f"lhs_dilation = array<i64{i64s(lhs_dil)}>, rhs_dilation = array<i64{i64s(rhs_dil)}>, "
             f"feature_group_count = {groups} : i64, batch_group_count = {batch_groups} : i64}}")
    return b.op("stablehlo.convolution", [x, w], (shape, dtype), attrs=attrs)


def per_dim(xs, n):
    """An ATen int-list argument (one value meaning all) as n ints."""
    xs = [xs] if isinstance(xs, int) else list(xs)
    return xs * n if len(xs) == 1 else xs


def conv_forward(b, x, w, stride, padding, dilation, groups, out_spatial=None):
    """PyTorch's (cross-correlation) convolution of x [N, C, ...] with w [O, C/groups, ...];
    out_spatial: the result's spatial sizes when they must differ from the
    usual ones (a transposed convolution's input gradient, output_padding
    at least the stride), by the padding after."""
    n = x.rank - 2
    pads = [(p, p) for p in padding]
    if out_spatial is not None:
        pads = [(padding[i], (out_spatial[i] - 1) * stride[i] + (w.shape[2 + i] - 1) * dilation[i] + 1
                 - x.shape[2 + i] - padding[i]) for i in range(n)]
    bf, oi = layout("b", "f", n), layout("o", "i", n)
    return conv(b, x, w, x.dtype, bf, oi, bf, stride, pads, [1] * n, dilation, groups)


def conv_input_grad(b, gy, w, in_spatial, stride, padding, dilation, groups):
    """The gradient of conv_forward with respect to its input (spatial sizes
    in_spatial) given the output's gradient gy: a convolution of gy dilated
    by the stride with the reversed, transposed kernel."""
    n = gy.rank - 2
    out_ch, in_per_group = w.shape[0], w.shape[1]
    kernel = b.op("stablehlo.reverse", [w], (w.shape, w.dtype),
                  attrs=f"{{dimensions = array<i64{i64s(range(2, n + 2))}>}}")
    if groups == 1:
        rhs = layout("i", "o", n)
    else:
        spatial = w.shape[2:]
        kernel = b.reshape(kernel, (groups, out_ch // groups, in_per_group) + spatial)
        kernel = b.transpose(kernel, [0, 2, 1] + list(range(3, n + 3)))
        kernel = b.reshape(kernel, (groups * in_per_group, out_ch // groups) + spatial)
        rhs = layout("o", "i", n)
    pads = []
    for i in range(n):
        window = (w.shape[2 + i] - 1) * dilation[i] + 1
        pads.append((window - 1 - padding[i], in_spatial[i] - (gy.shape[2 + i] - 1) * stride[i] + padding[i] - 1))
    bf = layout("b", "f", n)
    return conv(b, gy, kernel, gy.dtype, bf, rhs, bf, [1] * n, pads, stride, dilation, groups)


def conv_weight_grad(b, x, gy, kernel_spatial, stride, padding, dilation, groups):
    """The gradient of conv_forward with respect to its weight: x's batch
    contracted with gy's, the stride becoming gy's dilation."""
    n = x.rank - 2
    pads = [(padding[i], (kernel_spatial[i] - 1) * dilation[i] + (gy.shape[2 + i] - 1) * stride[i] + 1
             - x.shape[2 + i] - padding[i]) for i in range(n)]
    # The result as [C/groups, O, ...] then transposed: a convolution whose
    # result layout is [f, b, ...] overflows its buffer when the VM fuses it
    # with its consumer (vm/kernels/fusion.c run_conv; reported on issue 19).
    grad = conv(b, x, gy, x.dtype, layout("f", "b", n), layout("i", "o", n), layout("b", "f", n), dilation, pads,
                [1] * n, stride, batch_groups=groups)
    return b.transpose(grad, [1, 0] + list(range(2, n + 2)))


def add_bias(b, y, bias):
    return binary(b, "stablehlo.add", y, along(b, b.convert(bias, y.dtype), y.shape, 1))


def transposed_size(x, w, stride, padding, dilation, output_padding):
    """The spatial sizes of a transposed convolution's result."""
    return [(x.shape[2 + i] - 1) * stride[i] - 2 * padding[i] + (w.shape[2 + i] - 1) * dilation[i]
            + output_padding[i] + 1 for i in range(x.rank - 2)]


def conv_args(x, stride, padding, dilation, output_padding):
    n = x.rank - 2
    return [per_dim(a, n) for a in (stride, padding, dilation, output_padding)]


@register(aten.convolution.default)
def convolution(b, out, x, w, bias, stride, padding, dilation, transposed, output_padding, groups):
    """N-d convolution (1-D, 2-D, 3-D), transposed or not, with an optional bias."""
    stride, padding, dilation, output_padding = conv_args(x, stride, padding, dilation, output_padding)
    if transposed:
        size = transposed_size(x, w, stride, padding, dilation, output_padding)
        y = conv_input_grad(b, x, w, size, stride, padding, dilation, groups)
    else:
        y = conv_forward(b, x, w, stride, padding, dilation, groups)
    return y if bias is None else add_bias(b, y, bias)


@register(aten.convolution_backward.default)
def convolution_backward(b, out, gy, x, w, bias_sizes, stride, padding, dilation, transposed,
                         output_padding, groups, output_mask):
    """(grad_input, grad_weight, grad_bias), each None where output_mask says so."""
    stride, padding, dilation, output_padding = conv_args(x, stride, padding, dilation, output_padding)
    gx = gw = gb = None
    if output_mask[0]:
        if transposed:
            gx = conv_forward(b, gy, w, stride, padding, dilation, groups, x.shape[2:])
        else:
            gx = conv_input_grad(b, gy, w, x.shape[2:], stride, padding, dilation, groups)
    if output_mask[1]:
        if transposed:
            gw = conv_weight_grad(b, gy, x, w.shape[2:], stride, padding, dilation, groups)
        else:
            gw = conv_weight_grad(b, x, gy, w.shape[2:], stride, padding, dilation, groups)
    if output_mask[2]:
        gb = reduce(b, gy, [d for d in range(gy.rank) if d != 1], "stablehlo.add", 0)
    return gx, gw, gb


# ---- pooling ----------------------------------------------------------------

def pool_args(kernel_size, stride, padding, dilation=1):
    """Pooling's window over x's last two dims: (kernel, stride, padding, dilation), each 2 ints."""
    kernel = per_dim(kernel_size, 2)
    stride = per_dim(stride, 2) if stride else kernel
    return kernel, stride, per_dim(padding, 2), per_dim(dilation, 2)


def pooled_size(size, k, s, p, d, ceil_mode):
    """PyTorch's pooling output size along one dimension."""
    span = size + 2 * p - d * (k - 1) - 1
    out = (span + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


def window_attrs(rank, kernel, stride, pads, dilation=(1, 1), base_dilation=(1, 1)):
    """reduce_window's attributes for a window over the last two of rank dims."""
    lead = [1] * (rank - 2)
    pad_text = "[" + ", ".join(f"[{lo}, {hi}]" for lo, hi in [(0, 0)] * (rank - 2) + list(pads)) + "]"
    return (f"{{window_dimensions = array<i64{i64s(lead + list(kernel))}>, "
            f"window_strides = array<i64{i64s(lead + list(stride))}>, "
            f"base_dilations = array<i64{i64s(lead + list(base_dilation))}>, "
            f"window_dilations = array<i64{i64s(lead + list(dilation))}>, "
            f"padding = dense<{pad_text}> : tensor<{rank}x2xi64>}}")


def forward_pads(x, out_hw, kernel, stride, padding, dilation):
    """(lo, hi) per pooled dim so that reduce_window yields exactly out_hw windows."""
    pads = []
    for i in range(2):
        window = (kernel[i] - 1) * dilation[i] + 1
        size = x.shape[x.rank - 2 + i]
        pads.append((padding[i], max(0, (out_hw[i] - 1) * stride[i] + window - size - padding[i])))
    return pads


def sum_window(b, x, out_shape, attrs):
    """reduce_window add of x (padding adds zeros)."""
    return b.op("stablehlo.reduce_window", [x, b.constant(0, x.dtype)], (out_shape, x.dtype),
                regions=body_region("stablehlo.add", x.dtype), attrs=attrs)


def max_index_region(dtype):
    """The body of a (value, index) max reduction: the larger value wins, the
    lower index among equals, NaN over numbers (the later of two NaNs), as
    PyTorch's max_pool2d picks."""
    t, it, bt = tensor_type((), dtype), tensor_type((), torch.int64), tensor_type((), torch.bool)

    def cmp(name, lhs, rhs, direction, kind, typ):
        return (f'    %{name} = "stablehlo.compare"(%{lhs}, %{rhs}) {{comparison_direction = '
                f'#stablehlo<comparison_direction {direction}>, compare_type = #stablehlo<comparison_type {kind}>}} '
                f': ({typ}, {typ}) -> {bt}\n')

    def logic(name, op, lhs, rhs):
        return f'    %{name} = "stablehlo.{op}"(%{lhs}, %{rhs}) : ({bt}, {bt}) -> {bt}\n'

    def select(name, x, y, typ):
        return f'    %{name} = "stablehlo.select"(%take, %{x}, %{y}) : ({bt}, {typ}, {typ}) -> {typ}\n'
    return ("({\n  ^bb0(%av: " + t + ", %ai: " + it + ", %bv: " + t + ", %bi: " + it + "):\n"
            + cmp("gt", "av", "bv", "GT", "FLOAT", t) + cmp("eq", "av", "bv", "EQ", "FLOAT", t)
            + cmp("an", "av", "av", "NE", "FLOAT", t) + cmp("bn", "bv", "bv", "NE", "FLOAT", t)
            + cmp("lt", "ai", "bi", "LT", "SIGNED", it) + cmp("later", "ai", "bi", "GT", "SIGNED", it)
            + logic("tie", "and", "eq", "lt") + logic("win", "or", "gt", "tie")
            + f'    %bnum = "stablehlo.not"(%bn) : ({bt}) -> {bt}\n'
            + logic("nanwin", "or", "bnum", "later") + logic("anan", "and", "an", "nanwin")
            + logic("take", "or", "win", "anan")
            + select("v", "av", "bv", t) + select("i", "ai", "bi", it)
            + f'    "stablehlo.return"(%v, %i) : ({t}, {it}) -> ()\n}})')


@register(aten.max_pool2d_with_indices.default)
def max_pool2d_with_indices(b, out, x, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """(max over each window, its flat index into the input's H*W plane)."""
    kernel, stride, padding, dilation = pool_args(kernel_size, stride, padding, dilation)
    h, w = x.shape[-2:]
    out_hw = [pooled_size(x.shape[x.rank - 2 + i], kernel[i], stride[i], padding[i], dilation[i], ceil_mode)
              for i in range(2)]
    out_shape = x.shape[:-2] + tuple(out_hw)
    index = b.op("stablehlo.iota", [], ((h * w,), torch.int64), attrs="{iota_dimension = 0 : i64}")
    index = b.broadcast(b.reshape(index, (h, w)), x.shape)
    attrs = window_attrs(x.rank, kernel, stride, forward_pads(x, out_hw, kernel, stride, padding, dilation),
                         dilation)
    # -inf as an input, not a constant: Debug mode rejects a constant op making an infinity.
    inits = [b.scalar(float("-inf"), x.dtype), b.constant(torch.iinfo(torch.int64).max, torch.int64)]
    values, indices = b.op("stablehlo.reduce_window", [x, index] + inits,
                           [(out_shape, x.dtype), (out_shape, torch.int64)],
                           regions=max_index_region(x.dtype), attrs=attrs)
    return values, indices


@register(aten.max_pool2d_with_indices_backward.default)
def max_pool2d_with_indices_backward(b, out, gy, x, kernel_size, stride, padding, dilation, ceil_mode, indices):
    return scatter_to_indices(b, gy, x, indices)


def scatter_to_indices(b, gy, x, indices):
    """Each output gradient added at its window's max, indices flat in x's
    H*W planes (scatter-add)."""
    planes, plane = math.prod(x.shape[:-2]), x.shape[-2] * x.shape[-1]
    per_plane = gy.numel // max(planes, 1)
    offsets = b.op("stablehlo.iota", [], ((planes, per_plane), torch.int64), attrs="{iota_dimension = 0 : i64}")
    offsets = binary(b, "stablehlo.multiply", offsets, b.constant(plane, torch.int64))
    flat = binary(b, "stablehlo.add", b.reshape(indices, (planes, per_plane)), offsets)
    flat = b.reshape(flat, (gy.numel, 1))
    dtype = acc_type(gy.dtype)
    zeros = b.constant(0, dtype, (x.numel,))
    attrs = ("{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], "
             "scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, "
             "indices_are_sorted = false, unique_indices = false}")
    res = b.op("stablehlo.scatter", [zeros, flat, b.reshape(b.convert(gy, dtype), (gy.numel,))],
               ((x.numel,), dtype), regions=body_region("stablehlo.add", dtype), attrs=attrs)
    return b.convert(b.reshape(res, x.shape), gy.dtype)


@register(aten.adaptive_max_pool2d.default)
def adaptive_max_pool2d(b, out, x, output_size):
    """(max, index) over adaptive windows: max pooling when the sizes divide evenly."""
    out_hw = per_dim(output_size, 2)
    sizes = x.shape[-2:]
    if any(size % n for size, n in zip(sizes, out_hw)):
        raise NotImplementedError(f"aten.adaptive_max_pool2d: output_size {tuple(out_hw)} does not divide the "
                                  f"input's {tuple(sizes)} (windows of unequal sizes)")
    kernel = [size // n for size, n in zip(sizes, out_hw)]
    return max_pool2d_with_indices(b, out, x, kernel, kernel)


@register(aten.adaptive_max_pool2d_backward.default)
def adaptive_max_pool2d_backward(b, out, gy, x, indices):
    return scatter_to_indices(b, gy, x, indices)


def avg_divisor(size, out_n, k, s, p, count_include_pad):
    """The element count of each of out_n windows along one dimension."""
    counts = []
    for o in range(out_n):
        start, end = o * s - p, min(o * s - p + k, size + p)
        if not count_include_pad:
            start, end = max(start, 0), min(end, size)
        counts.append(end - start)
    return np.array(counts, dtype=np.float64)


def avg_scale(b, shape, x_hw, kernel, stride, padding, count_include_pad, divisor_override, dtype):
    """1 / each window's divisor, broadcast to the pooled shape."""
    out_hw = shape[-2:]
    if divisor_override:
        return b.constant(1.0 / divisor_override, dtype, shape)
    rows, cols = (avg_divisor(x_hw[i], out_hw[i], kernel[i], stride[i], padding[i], count_include_pad)
                  for i in range(2))
    table = b.constant(1.0 / np.outer(rows, cols), dtype, out_hw)
    return b.broadcast(table, shape)


@register(aten.avg_pool2d.default)
def avg_pool2d(b, out, x, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    kernel, stride, padding, _ = pool_args(kernel_size, stride, padding)
    out_hw = [pooled_size(x.shape[x.rank - 2 + i], kernel[i], stride[i], padding[i], 1, ceil_mode) for i in range(2)]
    shape = x.shape[:-2] + tuple(out_hw)
    dtype = acc_type(x.dtype)
    attrs = window_attrs(x.rank, kernel, stride, forward_pads(x, out_hw, kernel, stride, padding, (1, 1)))
    total = sum_window(b, b.convert(x, dtype), shape, attrs)
    scale = avg_scale(b, shape, x.shape[-2:], kernel, stride, padding, count_include_pad, divisor_override, dtype)
    return b.convert(binary(b, "stablehlo.multiply", total, scale), x.dtype)


@register(aten.avg_pool2d_backward.default)
def avg_pool2d_backward(b, out, gy, x, kernel_size, stride, padding, ceil_mode, count_include_pad,
                        divisor_override):
    """Each output gradient, divided by its window's divisor, spread over the
    window: a reduce_window sum over gy dilated by the stride."""
    kernel, stride, padding, _ = pool_args(kernel_size, stride, padding)
    dtype = acc_type(gy.dtype)
    scale = avg_scale(b, gy.shape, x.shape[-2:], kernel, stride, padding, count_include_pad, divisor_override,
                      dtype)
    g = binary(b, "stablehlo.multiply", b.convert(gy, dtype), scale)
    pads = [(kernel[i] - 1 - padding[i], x.shape[x.rank - 2 + i] - (gy.shape[gy.rank - 2 + i] - 1) * stride[i]
             + padding[i] - 1) for i in range(2)]
    attrs = window_attrs(x.rank, kernel, (1, 1), pads, base_dilation=stride)
    return b.convert(sum_window(b, g, x.shape, attrs), gy.dtype)


def adaptive_matrix(size, out_n):
    """The [out_n, size] averaging matrix of adaptive pooling along one dimension."""
    m = np.zeros((out_n, size))
    for o in range(out_n):
        start, end = (o * size) // out_n, -((-(o + 1) * size) // out_n)
        m[o, start:end] = 1.0 / (end - start)
    return m


def contract_last2(b, v, hm, wm, dtype, transposed):
    """v [..., A, B] multiplied by hm along A and wm along B (hm, wm: NumPy
    matrices [out, in], or [in, out] when transposed)."""
    side = 0 if transposed else 1
    lead = v.shape[:-2]
    h_mat, w_mat = b.constant(hm, dtype, hm.shape), b.constant(wm, dtype, wm.shape)
    r = v.rank
    t = dot(b, v, h_mat, Spec(lead + (v.shape[-1], hm.shape[1 - side]), dtype),
            lhs_contract=[r - 2], rhs_contract=[side])
    return dot(b, t, w_mat, Spec(lead + (hm.shape[1 - side], wm.shape[1 - side]), dtype),
               lhs_contract=[r - 2], rhs_contract=[side])


@register(aten._adaptive_avg_pool2d.default)
def adaptive_avg_pool2d(b, out, x, output_size):
    """Adaptive average pooling: a global mean, or averaging matrices along H and W."""
    out_h, out_w = per_dim(output_size, 2)
    h, w = x.shape[-2:]
    dtype = acc_type(x.dtype)
    if (out_h, out_w) == (1, 1):
        total = reduce(b, x, [x.rank - 2, x.rank - 1], "stablehlo.add", 0, out_dtype=dtype)
        mean = binary(b, "stablehlo.multiply", total, b.constant(1.0 / (h * w), dtype))
        return b.convert(b.reshape(mean, x.shape[:-2] + (1, 1)), x.dtype)
    y = contract_last2(b, b.convert(x, dtype), adaptive_matrix(h, out_h), adaptive_matrix(w, out_w), dtype, False)
    return b.convert(y, x.dtype)


@register(aten._adaptive_avg_pool2d_backward.default)
def adaptive_avg_pool2d_backward(b, out, gy, x):
    h, w = x.shape[-2:]
    out_h, out_w = gy.shape[-2:]
    dtype = acc_type(gy.dtype)
    g = b.convert(gy, dtype)
    if (out_h, out_w) == (1, 1):
        g = binary(b, "stablehlo.multiply", g, b.constant(1.0 / (h * w), dtype))
        return b.convert(b.broadcast(g, x.shape), gy.dtype)
    gx = contract_last2(b, g, adaptive_matrix(h, out_h), adaptive_matrix(w, out_w), dtype, True)
    return b.convert(gx, gy.dtype)


# ---- normalization ------------------------------------------------------------

def splat(b, value, dtype, shape):
    """A constant of shape, every element value: one op."""
    return b.op("stablehlo.constant", [], (shape, dtype),
                attrs=f"{{value = dense<{literal(value, dtype)}> : {tensor_type(shape, dtype)}}}")


def total(b, v, dims, zero):
    """v summed over dims (removed), from the scalar Value zero."""
    shape = tuple(n for d, n in enumerate(v.shape) if d not in dims)
    return b.op("stablehlo.reduce", [v, zero], (shape, v.dtype), regions=body_region("stablehlo.add", v.dtype),
                attrs=f"{{dimensions = array<i64{i64s(dims)}>}}")


def rsqrt_plus(b, var, eps):
    """1 / sqrt(var + eps)."""
    return unary(b, "stablehlo.rsqrt", binary(b, "stablehlo.add", var, b.scalar(eps, var.dtype)))


def ones_or(b, v, dtype, shape):
    """v converted to dtype, or ones of shape when v is None (no affine weight)."""
    return b.constant(1, dtype, shape) if v is None else b.convert(v, dtype)


def moments(b, x, dims):
    """(mean, biased variance, x - mean) of x over dims, two-pass as PyTorch."""
    keep = [d for d in range(x.rank) if d not in dims]
    zero = b.constant(0, x.dtype)
    count = math.prod(x.shape[d] for d in dims)
    inv_count = splat(b, 1.0 / max(count, 1), x.dtype, tuple(x.shape[d] for d in keep))
    mean = binary(b, "stablehlo.multiply", total(b, x, dims, zero), inv_count)
    centered = binary(b, "stablehlo.subtract", x, b.broadcast(mean, x.shape, keep))
    var = binary(b, "stablehlo.multiply", total(b, binary(b, "stablehlo.multiply", centered, centered), dims, zero),
                 inv_count)
    return mean, var, centered


@register(aten.native_batch_norm.default)
def native_batch_norm(b, out, x, weight, bias, running_mean, running_var, training, momentum, eps):
    """(y, save_mean, save_invstd); in training the running stats are updated
    in place (the variance unbiased), in eval they normalize."""
    dtype, channels = acc_type(x.dtype), x.shape[1]
    xf = b.convert(x, dtype)
    dims = [d for d in range(x.rank) if d != 1]
    updates = {}
    if training:
        mean, var, _ = moments(b, xf, dims)
        count = x.numel // max(channels, 1)
        for name, old, new in (("running_mean", running_mean, mean), ("running_var", running_var, var)):
            if old is None:
                continue
            if name == "running_var":
                new = binary(b, "stablehlo.multiply", new, b.constant(count / max(count - 1, 1), dtype))
            old = b.convert(old, dtype)
            kept = binary(b, "stablehlo.multiply", old, b.scalar(1 - momentum, dtype))
            moved = binary(b, "stablehlo.multiply", new, b.scalar(momentum, dtype))
            updates[name] = binary(b, "stablehlo.add", kept, moved)
    elif running_mean is None or running_var is None:
        raise NotImplementedError("aten.native_batch_norm: eval mode (training=False) without running_mean/running_var")
    else:
        mean, var = b.convert(running_mean, dtype), b.convert(running_var, dtype)
    invstd = rsqrt_plus(b, var, eps)
    scale = binary(b, "stablehlo.multiply", invstd, ones_or(b, weight, dtype, (channels,)))
    shift = binary(b, "stablehlo.multiply", mean, scale)
    if bias is not None:
        shift = binary(b, "stablehlo.subtract", b.convert(bias, dtype), shift)
    else:
        shift = unary(b, "stablehlo.negate", shift)
    y = binary(b, "stablehlo.multiply", xf, along(b, scale, x.shape, 1))
    y = b.convert(binary(b, "stablehlo.add", y, along(b, shift, x.shape, 1)), x.dtype)
    result = (y, b.convert(mean, out[1].dtype), b.convert(invstd, out[2].dtype))
    return Mutated(result, updates) if updates else result


@register(aten.native_batch_norm_backward.default)
def native_batch_norm_backward(b, out, gy, x, weight, running_mean, running_var, save_mean, save_invstd,
                               train, eps, output_mask):
    """(grad_input, grad_weight, grad_bias) of batch normalization."""
    dtype, channels = acc_type(x.dtype), x.shape[1]
    dims = [d for d in range(x.rank) if d != 1]
    if train:
        mean, invstd = b.convert(save_mean, dtype), b.convert(save_invstd, dtype)
    else:
        mean, invstd = b.convert(running_mean, dtype), rsqrt_plus(b, b.convert(running_var, dtype), eps)
    g, xf = b.convert(gy, dtype), b.convert(x, dtype)
    xhat = binary(b, "stablehlo.multiply", binary(b, "stablehlo.subtract", xf, along(b, mean, x.shape, 1)),
                  along(b, invstd, x.shape, 1))
    sum_g = reduce(b, g, dims, "stablehlo.add", 0)
    sum_gx = reduce(b, binary(b, "stablehlo.multiply", g, xhat), dims, "stablehlo.add", 0)
    gx = None
    if output_mask[0]:
        scale = binary(b, "stablehlo.multiply", invstd, ones_or(b, weight, dtype, (channels,)))
        if train:
            inv_n = b.constant(channels / max(x.numel, 1), dtype)
            mean_g = binary(b, "stablehlo.multiply", sum_g, inv_n)
            mean_gx = binary(b, "stablehlo.multiply", sum_gx, inv_n)
            g = binary(b, "stablehlo.subtract", g, along(b, mean_g, x.shape, 1))
            g = binary(b, "stablehlo.subtract", g, binary(b, "stablehlo.multiply", xhat,
                                                           along(b, mean_gx, x.shape, 1)))
        gx = b.convert(binary(b, "stablehlo.multiply", g, along(b, scale, x.shape, 1)), x.dtype)
    gw = b.convert(sum_gx, out[1].dtype) if output_mask[1] else None
    gb = b.convert(sum_g, out[2].dtype) if output_mask[2] else None
    return gx, gw, gb


def norm_dims(x, normalized_shape):
    """The trailing dims layer norm normalizes over."""
    return list(range(x.rank - len(normalized_shape), x.rank))


@register(aten.native_layer_norm.default)
def native_layer_norm(b, out, x, normalized_shape, weight, bias, eps):
    """(y, mean, rstd) over the trailing normalized_shape dims."""
    dtype = acc_type(x.dtype)
    dims = norm_dims(x, normalized_shape)
    mean, var, centered = moments(b, b.convert(x, dtype), dims)
    rstd = rsqrt_plus(b, var, eps)
    y = binary(b, "stablehlo.multiply", centered, b.broadcast(rstd, x.shape, range(dims[0])))
    if weight is not None:
        y = binary(b, "stablehlo.multiply", y, b.convert(weight, dtype))
    if bias is not None:
        y = binary(b, "stablehlo.add", y, b.convert(bias, dtype))
    stat_shape = x.shape[:dims[0]] + (1,) * len(dims)
    return (b.convert(y, x.dtype), b.reshape(b.convert(mean, out[1].dtype), stat_shape),
            b.reshape(b.convert(rstd, out[2].dtype), stat_shape))


@register(aten.native_layer_norm_backward.default)
def native_layer_norm_backward(b, out, gy, x, normalized_shape, mean, rstd, weight, bias, output_mask):
    """(grad_input, grad_weight, grad_bias) of layer normalization."""
    dtype = acc_type(x.dtype)
    dims = norm_dims(x, normalized_shape)
    batch = list(range(dims[0]))
    rstd = b.broadcast(b.convert(rstd, dtype), x.shape)  # [..., 1, 1] stats broadcast as they are
    g, zero = b.convert(gy, dtype), b.constant(0, dtype)
    xhat = binary(b, "stablehlo.multiply", binary(b, "stablehlo.subtract", b.convert(x, dtype),
                                                   b.broadcast(b.convert(mean, dtype), x.shape)), rstd)
    gx = gw = gb = None
    if output_mask[0]:
        gw_in = g if weight is None else binary(b, "stablehlo.multiply", g, b.convert(weight, dtype))
        inv_count = splat(b, 1.0 / max(math.prod(x.shape[d] for d in dims), 1), dtype, x.shape[:dims[0]])
        mean_g = binary(b, "stablehlo.multiply", total(b, gw_in, dims, zero), inv_count)
        mean_gx = binary(b, "stablehlo.multiply",
                         total(b, binary(b, "stablehlo.multiply", gw_in, xhat), dims, zero), inv_count)
        d = binary(b, "stablehlo.subtract", gw_in, b.broadcast(mean_g, x.shape, batch))
        d = binary(b, "stablehlo.subtract", d, binary(b, "stablehlo.multiply", xhat,
                                                       b.broadcast(mean_gx, x.shape, batch)))
        gx = b.convert(binary(b, "stablehlo.multiply", d, rstd), x.dtype)
    if output_mask[1] and weight is not None:
        gw = b.convert(total(b, binary(b, "stablehlo.multiply", g, xhat), batch, zero), weight.dtype)
    if output_mask[2] and bias is not None:
        gb = b.convert(total(b, g, batch, zero), bias.dtype)
    return gx, gw, gb


@register(aten.native_group_norm.default)
def native_group_norm(b, out, x, weight, bias, n, channels, spatial, groups, eps):
    """(y, mean, rstd) of group normalization; mean and rstd are [N, groups]."""
    dtype = acc_type(x.dtype)
    grouped = b.reshape(b.convert(x, dtype), (n, groups, channels // groups * spatial))
    mean, var, centered = moments(b, grouped, [2])
    rstd = rsqrt_plus(b, var, eps)
    y = b.reshape(binary(b, "stablehlo.multiply", centered, b.broadcast(rstd, grouped.shape, (0, 1))),
                  (n, channels, spatial))
    if weight is not None:
        y = binary(b, "stablehlo.multiply", y, along(b, b.convert(weight, dtype), y.shape, 1))
    if bias is not None:
        y = binary(b, "stablehlo.add", y, along(b, b.convert(bias, dtype), y.shape, 1))
    return (b.convert(b.reshape(y, x.shape), x.dtype), b.convert(mean, out[1].dtype),
            b.convert(rstd, out[2].dtype))


@register(aten.native_group_norm_backward.default)
def native_group_norm_backward(b, out, gy, x, mean, rstd, weight, n, channels, spatial, groups, output_mask):
    """(grad_input, grad_weight, grad_bias) of group normalization."""
    dtype = acc_type(x.dtype)
    grouped = (n, groups, channels // groups * spatial)
    per_channel = (n, channels, spatial)
    rstd = b.broadcast(b.convert(rstd, dtype), grouped, (0, 1))
    centered = binary(b, "stablehlo.subtract", b.reshape(b.convert(x, dtype), grouped),
                      b.broadcast(b.convert(mean, dtype), grouped, (0, 1)))
    xhat = binary(b, "stablehlo.multiply", centered, rstd)
    g, zero = b.reshape(b.convert(gy, dtype), per_channel), b.constant(0, dtype)
    gx = gw = gb = None
    if output_mask[0]:
        gw_in = g if weight is None else binary(b, "stablehlo.multiply", g,
                                                 along(b, b.convert(weight, dtype), per_channel, 1))
        gw_in = b.reshape(gw_in, grouped)
        inv_count = splat(b, 1.0 / max(grouped[2], 1), dtype, grouped[:2])
        mean_g = binary(b, "stablehlo.multiply", total(b, gw_in, [2], zero), inv_count)
        mean_gx = binary(b, "stablehlo.multiply",
                         total(b, binary(b, "stablehlo.multiply", gw_in, xhat), [2], zero), inv_count)
        d = binary(b, "stablehlo.subtract", gw_in, b.broadcast(mean_g, grouped, (0, 1)))
        d = binary(b, "stablehlo.subtract", d, binary(b, "stablehlo.multiply", xhat,
                                                       b.broadcast(mean_gx, grouped, (0, 1))))
        gx = b.convert(b.reshape(binary(b, "stablehlo.multiply", d, rstd), x.shape), x.dtype)
    if output_mask[1] and weight is not None:
        gxhat = binary(b, "stablehlo.multiply", g, b.reshape(xhat, per_channel))
        gw = b.convert(total(b, gxhat, [0, 2], zero), weight.dtype)
    if output_mask[2]:
        gb = b.convert(total(b, g, [0, 2], zero), out[2].dtype)
    return gx, gw, gb
