"""Neural-network ATen ops: matrix products, convolution and its backward,
max/average/adaptive pooling and their backward ops, batch and layer
normalization with their backward ops."""
import math

import numpy as np
import torch

from ._builder import i64s, tensor_type
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


@register(aten.mm.default)
def mm(b, out, x, y):
    return dot(b, x, y, Spec((x.shape[0], y.shape[1]), x.dtype), lhs_contract=[1], rhs_contract=[0])


@register(aten.addmm.default)
def addmm(b, out, bias, x, y, beta=1, alpha=1):
    """beta * bias + alpha * (x @ y): nn.Linear's forward."""
    return scaled_sum(b, out, mm(b, out, x, y), bias, beta, alpha)


@register(aten.bmm.default)
def bmm(b, out, x, y):
    shape = (x.shape[0], x.shape[1], y.shape[2])
    return dot(b, x, y, Spec(shape, x.dtype), lhs_batch=[0], rhs_batch=[0], lhs_contract=[2], rhs_contract=[1])


@register(aten.baddbmm.default)
def baddbmm(b, out, bias, x, y, beta=1, alpha=1):
    return scaled_sum(b, out, bmm(b, out, x, y), bias, beta, alpha)


@register(aten.mv.default)
def mv(b, out, x, y):
    return dot(b, x, y, Spec((x.shape[0],), x.dtype), lhs_contract=[1], rhs_contract=[0])


@register(aten.dot.default)
def dot_(b, out, x, y):
    return dot(b, x, y, Spec((), x.dtype), lhs_contract=[0], rhs_contract=[0])


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


def conv_forward(b, x, w, stride, padding, dilation, groups):
    """PyTorch's (cross-correlation) convolution of x [N, C, ...] with w [O, C/groups, ...]."""
    n = x.rank - 2
    bf, oi = layout("b", "f", n), layout("o", "i", n)
    return conv(b, x, w, x.dtype, bf, oi, bf, stride, [(p, p) for p in padding], [1] * n, dilation, groups)


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
    fb = layout("f", "b", n)
    return conv(b, x, gy, x.dtype, fb, layout("i", "o", n), fb, dilation, pads, [1] * n, stride,
                batch_groups=groups)


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
            gx = conv_forward(b, gy, w, stride, padding, dilation, groups)
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
