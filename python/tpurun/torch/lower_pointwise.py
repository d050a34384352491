"""Element-wise ATen ops: arithmetic, math functions, comparisons, where,
activations and their backward ops, fills and random numbers."""
import torch

from ._lowering import elementwise, register

aten = torch.ops.aten


@register(aten.add.Tensor, aten.add.Scalar)
def add(b, out, x, y, alpha=1):
    """x + alpha * y."""
    if alpha != 1:
        y = elementwise(b, out, "stablehlo.multiply", y, alpha)
    return elementwise(b, out, "stablehlo.add", x, y)


@register(aten.mul.Tensor, aten.mul.Scalar)
def mul(b, out, x, y):
    return elementwise(b, out, "stablehlo.multiply", x, y)


@register(aten.ones_like.default)
def ones_like(b, out, x, **kwargs):
    return b.constant(1, out.dtype, out.shape)
