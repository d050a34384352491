"""Reductions: sum, mean, max/min (with indices), argmax, var/std,
softmax and log_softmax with their backward ops, any/all."""
import torch

from ._lowering import normalize_dims, reduce, register

aten = torch.ops.aten


@register(aten.sum.default, aten.sum.dim_IntList)
def sum_(b, out, x, dims=None, keepdim=False, dtype=None):
    """Sum over dims (all when None), in out's dtype."""
    r = reduce(b, x, normalize_dims(dims, x.rank), "stablehlo.add", 0, out_dtype=out.dtype)
    return b.reshape(r, out.shape)
