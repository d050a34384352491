"""Neural-network ATen ops: matrix products, convolution, pooling, batch
and layer normalization, losses, embedding's backward, dropout."""
import torch

from ._lowering import register

aten = torch.ops.aten


def dot(b, x, y, out, lhs_batch=(), rhs_batch=(), lhs_contract=(), rhs_contract=()):
    """stablehlo.dot_general of x and y into out (shape, dtype)."""
    def dims(xs):
        return "[" + ", ".join(str(d) for d in xs) + "]"
    attrs = ("{dot_dimension_numbers = #stablehlo.dot<"
             + (f"lhs_batching_dimensions = {dims(lhs_batch)}, rhs_batching_dimensions = {dims(rhs_batch)}, "
                if lhs_batch else "")
             + f"lhs_contracting_dimensions = {dims(lhs_contract)}, "
               f"rhs_contracting_dimensions = {dims(rhs_contract)}>}}")
    return b.op("stablehlo.dot_general", [x, y], (out.shape, out.dtype), attrs=attrs)


@register(aten.mm.default)
def mm(b, out, x, y):
    return dot(b, x, y, out, lhs_contract=[1], rhs_contract=[0])
