"""Shape and data-movement ATen ops: views (view, reshape, permute,
transpose, expand, squeeze, slice, select, split, ...) with their
inverses, cat/stack, indexing, gather/scatter, embedding, padding."""
import torch

from ._lowering import register_view

aten = torch.ops.aten


def _reshape_back(b, base, new, *args, **kwargs):
    return b.reshape(new, base.shape)


@register_view(aten.view.default, aten._unsafe_view.default, inverse=_reshape_back)
def view(b, out, x, size):
    return b.reshape(x, out.shape)


def _transpose_back(b, base, new, dim0, dim1):
    return transpose(b, None, new, dim0, dim1)


@register_view(aten.transpose.int, inverse=_transpose_back)
def transpose(b, out, x, dim0, dim1):
    perm = list(range(x.rank))
    if x.rank:
        d0, d1 = dim0 % x.rank, dim1 % x.rank
        perm[d0], perm[d1] = perm[d1], perm[d0]
    return b.transpose(x, perm)


@register_view(aten.t.default, inverse=lambda b, base, new: t(b, None, new))
def t(b, out, x):
    return b.transpose(x, list(reversed(range(x.rank))))


@register_view(aten.expand.default, inverse=lambda b, base, new, *a, **k: _no_inverse("expand"))
def expand(b, out, x, size, implicit=False):
    return b.broadcast(x, out.shape)


def _no_inverse(name):
    raise RuntimeError(f"tpurun.torch: cannot write through a view made by {name}")
