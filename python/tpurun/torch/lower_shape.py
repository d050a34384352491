"""Shape and data-movement ATen ops: views (view, reshape, permute,
transpose, expand, squeeze, slice, select, split, diagonal, ...) with their
inverses, their backward ops, cat/stack, flip/roll/repeat, padding,
tril/triu, indexing, gather/scatter and embedding."""
import math

import numpy as np
import torch

from ._builder import i64s, tensor_type
from ._lowering import body_region, is_value, max_value, min_value, register, register_view

aten = torch.ops.aten

# ---- small helpers ------------------------------------------------------------

def _dim(d, rank):
    """ATen dim d (possibly negative) as a non-negative int (0 for rank 0)."""
    return d % rank if rank else 0


def _ints(xs):
    """[1, 2] as MLIR writes an integer list inside a dimension-numbers attribute."""
    return "[" + ", ".join(str(int(x)) for x in xs) + "]"


def _slice(b, x, starts, limits, strides):
    """stablehlo.slice of x."""
    shape = tuple(max(0, -(-(lim - st) // sd)) for st, lim, sd in zip(starts, limits, strides))
    if shape == x.shape:
        return x
    attrs = (f"{{start_indices = array<i64{i64s(starts)}>, limit_indices = array<i64{i64s(limits)}>, "
             f"strides = array<i64{i64s(strides)}>}}")
    return b.op("stablehlo.slice", [x], (shape, x.dtype), attrs=attrs)


def _slice_dim(b, x, dim, start, stop, step=1):
    """stablehlo.slice of x along dim only."""
    starts, limits, strides = [0] * x.rank, list(x.shape), [1] * x.rank
    starts[dim], limits[dim], strides[dim] = start, stop, step
    return _slice(b, x, starts, limits, strides)


def _pad(b, x, value, low, high, interior):
    """stablehlo.pad of x with the scalar Value value."""
    shape = tuple(lo + hi + s + max(s - 1, 0) * it for s, lo, hi, it in zip(x.shape, low, high, interior))
    attrs = (f"{{edge_padding_low = array<i64{i64s(low)}>, edge_padding_high = array<i64{i64s(high)}>, "
             f"interior_padding = array<i64{i64s(interior)}>}}")
    return b.op("stablehlo.pad", [x, value], (shape, x.dtype), attrs=attrs)


def _embed(b, part, shape, starts, steps, fill):
    """part placed in a tensor of shape at starts with steps (strided), the
    rest being the scalar Value fill: stablehlo.pad."""
    high = [n - (st + (s - 1) * sd + 1) if s else n - st for n, s, st, sd in zip(shape, part.shape, starts, steps)]
    interior = [sd - 1 for sd in steps]
    return _pad(b, part, fill, list(starts), high, interior)


def _update(b, base, part, starts, steps):
    """base with the (strided) slice at starts overwritten by part."""
    if part.numel == 0:
        return base
    part = b.convert(part, base.dtype)
    if all(s == 1 for s in steps):
        idx = [b.scalar(int(s), torch.int64) for s in starts]  # inputs: x[t] = v keeps one graph for every t
        return b.op("stablehlo.dynamic_update_slice", [base, part] + idx, (base.shape, base.dtype))
    mask = np.zeros(base.shape, dtype=np.bool_)
    mask[tuple(slice(st, st + (n - 1) * sd + 1, sd) for st, n, sd in zip(starts, part.shape, steps))] = True
    padded = _embed(b, part, base.shape, starts, steps, b.constant(0, base.dtype))
    return b.op("stablehlo.select", [b.constant(mask, torch.bool, base.shape), padded, base],
                (base.shape, base.dtype))


def _update_dim(b, base, part, dim, start, step=1):
    """base with its (strided) slice along dim from start overwritten by part."""
    starts, steps = [0] * base.rank, [1] * base.rank
    starts[dim], steps[dim] = start, step
    return _update(b, base, part, starts, steps)


def _slice_range(size, start, end, step):
    """PyTorch's slice bounds: (start, stop) clamped into [0, size]."""
    if step <= 0:
        raise NotImplementedError("tpurun.torch: aten.slice.Tensor: step must be positive")
    start = 0 if start is None else start
    end = size if end is None else end
    start = start + size if start < 0 else start
    end = end + size if end < 0 else end
    start = min(max(start, 0), size)
    end = min(max(end, start), size)
    return start, end


def _iota(b, shape, dim):
    """stablehlo.iota (i64) counting along dim of shape."""
    return b.op("stablehlo.iota", [], (tuple(shape), torch.int64), attrs=f"{{iota_dimension = {dim} : i64}}")


def _concat(b, vals, dim, shape, dtype):
    """vals (converted to dtype) joined along dim into shape; a lone value is itself."""
    vals = [b.convert(v, dtype) for v in vals]
    if len(vals) == 1:
        return vals[0]
    return b.op("stablehlo.concatenate", vals, (tuple(shape), dtype), attrs=f"{{dimension = {dim} : i64}}")


def _gather(b, x, idx, shape, offset_dims, collapsed, start_index_map, ivd, slice_sizes, batching=((), ())):
    """stablehlo.gather of x at idx into shape."""
    batch = (f"operand_batching_dims = {_ints(batching[0])}, start_indices_batching_dims = {_ints(batching[1])}, "
             if batching[0] else "")
    attrs = (f"{{dimension_numbers = #stablehlo.gather<offset_dims = {_ints(offset_dims)}, "
             f"collapsed_slice_dims = {_ints(collapsed)}, {batch}start_index_map = {_ints(start_index_map)}, "
             f"index_vector_dim = {ivd}>, slice_sizes = array<i64{i64s(slice_sizes)}>, indices_are_sorted = false}}")
    return b.op("stablehlo.gather", [x, idx], (tuple(shape), x.dtype), attrs=attrs)


def _combiner(dtype, op):
    """A scatter's update region: op "replace", "add" (or for bool) or "multiply"."""
    if op == "replace":
        ty = tensor_type((), dtype)
        return (f'({{\n  ^bb0(%lhs: {ty}, %rhs: {ty}):\n'
                f'    "stablehlo.return"(%rhs) : ({ty}) -> ()\n}})')
    if dtype == torch.bool:
        op = {"add": "or", "multiply": "and", "maximum": "or", "minimum": "and"}[op]
    return body_region(f"stablehlo.{op}", dtype)


def _scatter(b, x, idx, upd, update_window_dims, inserted, to_operand, ivd, op="replace"):
    """stablehlo.scatter of upd into x at idx, combining with op (see _combiner);
    windows out of bounds are skipped."""
    attrs = (f"{{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = {_ints(update_window_dims)}, "
             f"inserted_window_dims = {_ints(inserted)}, scatter_dims_to_operand_dims = {_ints(to_operand)}, "
             f"index_vector_dim = {ivd}>, indices_are_sorted = false, unique_indices = false}}")
    return b.op("stablehlo.scatter", [x, idx, b.convert(upd, x.dtype)], (x.shape, x.dtype),
                attrs=attrs, regions=_combiner(x.dtype, op))


def _reshape_back(b, base, new, *args, **kwargs):
    """Inverse of every reshape-like view: the new view reshaped to the base's shape."""
    return b.reshape(new, base.shape)


# ---- reshape-like views ----------------------------------------------------------

@register_view(aten.view.default, aten._unsafe_view.default, aten._reshape_alias.default,
               aten.squeeze.default, aten.squeeze.dim, aten.unsqueeze.default,
               inverse=_reshape_back)
def view(b, out, x, *args):
    """Views that only change the shape: a reshape to PyTorch's result shape."""
    return b.reshape(x, out.shape)


def _strided_positions(size, stride, offset):
    """The flat positions as_strided(size, stride, offset) reads, shaped size."""
    pos = np.full(tuple(size), int(offset or 0), dtype=np.int64)
    for d, (n, st) in enumerate(zip(size, stride)):
        shape = [1] * len(size)
        shape[d] = n
        pos = pos + (np.arange(n, dtype=np.int64) * int(st)).reshape(shape)
    return pos


def _as_strided_plan(x, size, stride, offset):
    """(flat positions, or None when as_strided is a plain reshape of x)."""
    size = [int(n) for n in size]
    pos = _strided_positions(size, stride, offset)
    if pos.size and (pos.min() < 0 or pos.max() >= x.numel):
        raise RuntimeError(f"tpurun.torch: aten.as_strided: size={size}, stride={list(stride)}, "
                           f"storage_offset={offset} reads outside a tensor of {x.numel} elements")
    if pos.size == x.numel and np.array_equal(pos.reshape(-1), np.arange(x.numel)):
        return None
    return pos


def _as_strided_back(b, base, new, size, stride, storage_offset=None):
    """as_strided's inverse: the new elements scattered back to their flat positions."""
    pos = _as_strided_plan(base, size, stride, storage_offset)
    if pos is None:
        return b.reshape(new, base.shape)
    flat = b.reshape(base, (base.numel,))
    idx = b.constant(pos.reshape(-1, 1), torch.int64, (pos.size, 1))
    upd = b.reshape(b.convert(new, base.dtype), (pos.size,))
    flat = _scatter(b, flat, idx, upd, update_window_dims=[], inserted=[0], to_operand=[0], ivd=1)
    return b.reshape(flat, base.shape)


@register_view(aten.as_strided.default, inverse=_as_strided_back)
def as_strided(b, out, x, size, stride, storage_offset=None):
    """as_strided over x's elements in row-major order as its storage (what
    PyTorch does for a contiguous tensor: autograd's CopySlices calls it on
    fresh gradients); a gather of constant positions, or a reshape."""
    pos = _as_strided_plan(x, size, stride, storage_offset)
    if pos is None:
        return b.reshape(x, tuple(size))
    flat = b.reshape(x, (x.numel,))
    idx = b.constant(pos.reshape(pos.shape + (1,)), torch.int64, pos.shape + (1,))
    return _gather(b, flat, idx, pos.shape, offset_dims=[], collapsed=[0], start_index_map=[0],
                   ivd=len(pos.shape), slice_sizes=[1])


# ---- permutations ----------------------------------------------------------------

def _transpose_perm(rank, dim0, dim1):
    """The permutation that swaps dim0 and dim1 of rank dims."""
    perm = list(range(rank))
    if rank:
        d0, d1 = _dim(dim0, rank), _dim(dim1, rank)
        perm[d0], perm[d1] = perm[d1], perm[d0]
    return perm


@register_view(aten.transpose.int, inverse=lambda b, base, new, dim0, dim1: transpose(b, None, new, dim0, dim1))
def transpose(b, out, x, dim0, dim1):
    return b.transpose(x, _transpose_perm(x.rank, dim0, dim1))


@register_view(aten.t.default, inverse=lambda b, base, new: t(b, None, new))
def t(b, out, x):
    return b.transpose(x, list(reversed(range(x.rank))))


def _permute_back(b, base, new, dims):
    """permute's inverse: the view permuted by the inverse permutation."""
    perm = [_dim(d, base.rank) for d in dims]
    return b.transpose(new, [perm.index(i) for i in range(base.rank)])


@register_view(aten.permute.default, inverse=_permute_back)
def permute(b, out, x, dims):
    return b.transpose(x, [_dim(d, x.rank) for d in dims])


def _no_inverse(name):
    """The inverse of a view whose elements alias one another: an error."""
    def inverse(b, base, new, *args, **kwargs):
        raise RuntimeError(f"tpurun.torch: cannot write in place through a view made by {name}: several "
                           f"of its elements are one element of the base (clone it first)")
    return inverse


@register_view(aten.expand.default, inverse=_no_inverse("aten.expand"))
def expand(b, out, x, size, implicit=False):
    return b.broadcast(x, out.shape)


# ---- slices --------------------------------------------------------------------------

def _slice_args(x, dim, start, end, step):
    """(dim, start, stop) of slice.Tensor's arguments on x, as PyTorch clamps them."""
    d = _dim(dim, x.rank)
    start, stop = _slice_range(x.shape[d], start, end, step)
    return d, start, stop


def _slice_back(b, base, new, dim=0, start=None, end=None, step=1):
    """slice's inverse: base with the slice overwritten (also slice_scatter)."""
    d, start, _ = _slice_args(base, dim, start, end, step)
    return _update_dim(b, base, new, d, start, step)


@register_view(aten.slice.Tensor, inverse=_slice_back)
def slice_(b, out, x, dim=0, start=None, end=None, step=1):
    d, start, stop = _slice_args(x, dim, start, end, step)
    return _slice_dim(b, x, d, start, stop, step)


@register(aten.slice_scatter.default)
def slice_scatter(b, out, x, src, dim=0, start=None, end=None, step=1):
    """x with src written at the slice."""
    return _slice_back(b, x, src, dim, start, end, step)


@register(aten.slice_backward.default)
def slice_backward(b, out, grad, input_sizes, dim, start, end, step):
    """Zeros of input_sizes with grad at the slice: one pad."""
    shape = tuple(input_sizes)
    d = _dim(dim, len(shape))
    start, _ = _slice_range(shape[d], start, end, step)
    starts, steps = [0] * len(shape), [1] * len(shape)
    starts[d], steps[d] = start, step
    return _embed(b, grad, shape, starts, steps, b.constant(0, grad.dtype))


def _select_index(size, index):
    """select's index, negative ones counted from the end."""
    return index + size if index < 0 else index


def _select_back(b, base, new, dim, index):
    """select's inverse: base with the selected slice overwritten (also select_scatter)."""
    d = _dim(dim, base.rank)
    i = _select_index(base.shape[d], index)
    part = b.reshape(new, base.shape[:d] + (1,) + base.shape[d + 1:])
    return _update_dim(b, base, part, d, i)


@register_view(aten.select.int, inverse=_select_back)
def select(b, out, x, dim, index):
    """x[..., index, ...] along dim: a slice and a reshape."""
    d = _dim(dim, x.rank)
    i = _select_index(x.shape[d], index)
    if not 0 <= i < x.shape[d]:
        raise IndexError(f"tpurun.torch: aten.select.int: index {index} is out of range for a dim of {x.shape[d]}")
    starts = [b.scalar(i if k == d else 0, torch.int64) for k in range(x.rank)]  # inputs: one graph for every x[t]
    sizes = [1 if k == d else n for k, n in enumerate(x.shape)]
    part = b.op("stablehlo.dynamic_slice", [x] + starts, (tuple(sizes), x.dtype),
                attrs=f"{{slice_sizes = array<i64{i64s(sizes)}>}}")
    return b.reshape(part, x.shape[:d] + x.shape[d + 1:])


@register(aten.select_scatter.default)
def select_scatter(b, out, x, src, dim, index):
    """x with src written at the selected index of dim."""
    return _select_back(b, x, src, dim, index)


@register(aten.select_backward.default)
def select_backward(b, out, grad, input_sizes, dim, index):
    """Zeros of input_sizes with grad at the selected index: one pad."""
    shape = tuple(input_sizes)
    d = _dim(dim, len(shape))
    part = b.reshape(grad, shape[:d] + (1,) + shape[d + 1:])
    starts = [0] * len(shape)
    starts[d] = _select_index(shape[d], index)
    return _embed(b, part, shape, starts, [1] * len(shape), b.constant(0, grad.dtype))


def _split_starts(size, sizes):
    """The start of each part of a dim of size split into sizes."""
    starts, acc = [], 0
    for s in sizes:
        starts.append(acc)
        acc += s
    if acc != size:
        raise RuntimeError(f"tpurun.torch: split sizes {list(sizes)} do not add up to {size}")
    return starts


def _even_sizes(size, split_size):
    """split.Tensor's part sizes: split_size each, the last one what remains."""
    if split_size <= 0:
        if size == 0 and split_size == 0:
            return [0]
        raise RuntimeError(f"tpurun.torch: aten.split.Tensor: split_size {split_size} for a dim of {size}")
    n = max(-(-size // split_size), 1)
    return [split_size] * (n - 1) + [size - split_size * (n - 1)]


def _split_parts(b, x, sizes, dim):
    """x's slices of sizes along dim."""
    d = _dim(dim, x.rank)
    starts = _split_starts(x.shape[d], sizes)
    return [_slice_dim(b, x, d, st, st + n) for st, n in zip(starts, sizes)]


def _split_part_back(b, base, new, sizes, dim, index):
    """The inverse of part index of a split: base with that part overwritten."""
    d = _dim(dim, base.rank)
    return _update_dim(b, base, new, d, _split_starts(base.shape[d], sizes)[index])


@register_view(aten.split.Tensor,
               inverse=lambda b, base, new, split_size, dim=0, _index=0: _split_part_back(
                   b, base, new, _even_sizes(base.shape[_dim(dim, base.rank)], split_size), dim, _index))
def split(b, out, x, split_size, dim=0):
    """Parts of split_size along dim (views)."""
    return _split_parts(b, x, _even_sizes(x.shape[_dim(dim, x.rank)], split_size), dim)


@register_view(aten.split_with_sizes.default,
               inverse=lambda b, base, new, sizes, dim=0, _index=0: _split_part_back(b, base, new, sizes, dim,
                                                                                     _index))
def split_with_sizes(b, out, x, sizes, dim=0):
    """Parts of the given sizes along dim (views)."""
    return _split_parts(b, x, sizes, dim)


register(aten.unsafe_split.Tensor)(split)
register(aten.unsafe_split_with_sizes.default)(split_with_sizes)


@register_view(aten.unbind.int, inverse=lambda b, base, new, dim=0, _index=0: _select_back(b, base, new, dim, _index))
def unbind(b, out, x, dim=0):
    """Every index of dim selected (views)."""
    d = _dim(dim, x.rank)
    return [select(b, None, x, d, i) for i in range(x.shape[d])]


# ---- diagonal ----------------------------------------------------------------------

def _diagonal_layout(shape, offset, dim1, dim2):
    """(perm moving dim1, dim2 last, diagonal length, flat start, flat step)."""
    rank = len(shape)
    d1, d2 = _dim(dim1, rank), _dim(dim2, rank)
    perm = [i for i in range(rank) if i not in (d1, d2)] + [d1, d2]
    n, m = shape[d1], shape[d2]
    length = max(0, min(n, m - offset) if offset >= 0 else min(n + offset, m))
    start = offset if offset >= 0 else -offset * m
    return perm, length, start, m + 1


def _diagonal_of(b, x, offset, dim1, dim2):
    """The diagonal of dims dim1, dim2 (moved last, flattened): a strided slice."""
    perm, length, start, step = _diagonal_layout(x.shape, offset, dim1, dim2)
    moved = b.transpose(x, perm)
    flat = b.reshape(moved, moved.shape[:-2] + (moved.shape[-2] * moved.shape[-1],))
    if length == 0:
        return b.constant(0, x.dtype, moved.shape[:-2] + (0,))
    return _slice_dim(b, flat, flat.rank - 1, start, start + (length - 1) * step + 1, step)


def _diagonal_into(b, base, part, offset, dim1, dim2):
    """base with its diagonal (as diagonal() picks it) overwritten by part."""
    perm, length, start, step = _diagonal_layout(base.shape, offset, dim1, dim2)
    moved = b.transpose(base, perm)
    flat = b.reshape(moved, moved.shape[:-2] + (moved.shape[-2] * moved.shape[-1],))
    flat = _update_dim(b, flat, part, flat.rank - 1, start, step)
    return b.transpose(b.reshape(flat, moved.shape), [perm.index(i) for i in range(base.rank)])


@register_view(aten.diagonal.default,
               inverse=lambda b, base, new, offset=0, dim1=0, dim2=1: _diagonal_into(b, base, new, offset, dim1,
                                                                                     dim2))
def diagonal(b, out, x, offset=0, dim1=0, dim2=1):
    """The diagonal of dims dim1, dim2 at offset, as a new last dim (a view)."""
    return _diagonal_of(b, x, offset, dim1, dim2)


@register(aten.diagonal_scatter.default)
def diagonal_scatter(b, out, x, src, offset=0, dim1=0, dim2=1):
    """x with src written on its diagonal."""
    return _diagonal_into(b, x, src, offset, dim1, dim2)


@register(aten.diagonal_backward.default)
def diagonal_backward(b, out, grad, input_sizes, offset, dim1, dim2):
    """Zeros of input_sizes with grad on the diagonal."""
    zeros = b.constant(0, grad.dtype, tuple(input_sizes))
    return _diagonal_into(b, zeros, grad, offset, dim1, dim2)


# ---- joining, reordering, repeating, padding ---------------------------------------

@register(aten.cat.default)
def cat(b, out, tensors, dim=0):
    """Concatenation in out's dtype; empty tensors are skipped (as PyTorch
    skips its legacy 1-D empty operands)."""
    vals = [v for v in tensors if v.numel > 0]
    if not vals:
        return b.constant(0, out.dtype, out.shape)
    return _concat(b, vals, _dim(dim, len(out.shape)), out.shape, out.dtype)


@register(aten.stack.default)
def stack(b, out, tensors, dim=0):
    """tensors joined along a new dim."""
    d = _dim(dim, len(out.shape))
    parts = [b.reshape(v, v.shape[:d] + (1,) + v.shape[d:]) for v in tensors]
    return _concat(b, parts, d, out.shape, out.dtype)


@register(aten.flip.default)
def flip(b, out, x, dims):
    dims = sorted({_dim(d, x.rank) for d in dims})
    if not dims or x.rank == 0:
        return x
    return b.op("stablehlo.reverse", [x], (x.shape, x.dtype), attrs=f"{{dimensions = array<i64{i64s(dims)}>}}")


def _roll_dim(b, x, shift, d):
    """x rolled by shift along dim d: two slices joined in the other order."""
    n = x.shape[d]
    k = shift % n if n else 0
    if k == 0:
        return x
    return _concat(b, [_slice_dim(b, x, d, n - k, n), _slice_dim(b, x, d, 0, n - k)], d, x.shape, x.dtype)


@register(aten.roll.default)
def roll(b, out, x, shifts, dims=()):
    """x rolled along dims (the flattened x when dims is empty)."""
    shifts, dims = list(shifts), list(dims)
    if not dims:
        if len(shifts) != 1:
            raise NotImplementedError("tpurun.torch: aten.roll without dims takes one shift")
        flat = _roll_dim(b, b.reshape(x, (x.numel,)), shifts[0], 0)
        return b.reshape(flat, x.shape)
    if len(shifts) != len(dims):
        raise RuntimeError(f"tpurun.torch: aten.roll: {len(shifts)} shifts for {len(dims)} dims")
    for s, d in zip(shifts, dims):
        x = _roll_dim(b, x, s, _dim(d, x.rank))
    return x


@register(aten.repeat.default)
def repeat(b, out, x, repeats):
    """Tiling: a broadcast to (r0, s0, r1, s1, ...) then a reshape."""
    repeats = [int(r) for r in repeats]
    shape = (1,) * (len(repeats) - x.rank) + x.shape
    x = b.reshape(x, shape)
    tiled = tuple(n for r, s in zip(repeats, shape) for n in (r, s))
    dims = [2 * i + 1 for i in range(len(shape))]
    return b.reshape(b.broadcast(x, tiled, dims), out.shape)


@register(aten.constant_pad_nd.default)
def constant_pad_nd(b, out, x, pad, value=0):
    """Padding (negative amounts crop) of the last len(pad)//2 dims with value."""
    low, high = [0] * x.rank, [0] * x.rank
    for i in range(len(pad) // 2):
        d = x.rank - 1 - i
        low[d], high[d] = int(pad[2 * i]), int(pad[2 * i + 1])
    if x.numel == 0 or any(x.shape[d] + low[d] + high[d] <= 0 for d in range(x.rank)):
        return b.scalar(value, out.dtype, out.shape) if math.prod(out.shape) else b.constant(0, out.dtype,
                                                                                                out.shape)
    return _pad(b, x, b.scalar(value, x.dtype), low, high, [0] * x.rank)


def _triangle(b, out, x, diagonal, lower):
    """tril (lower) / triu of the last two dims: a select with a constant mask."""
    n, m = x.shape[-2], x.shape[-1]
    rows, cols = np.arange(n).reshape(n, 1), np.arange(m).reshape(1, m)
    keep = (cols - rows <= diagonal) if lower else (cols - rows >= diagonal)
    mask = b.broadcast(b.constant(keep, torch.bool, (n, m)), x.shape)
    return b.op("stablehlo.select", [mask, x, b.constant(0, x.dtype, x.shape)], (x.shape, x.dtype))


@register(aten.tril.default)
def tril(b, out, x, diagonal=0):
    return _triangle(b, out, x, diagonal, True)


@register(aten.triu.default)
def triu(b, out, x, diagonal=0):
    return _triangle(b, out, x, diagonal, False)


# ---- gather and scatter along one dim ---------------------------------------------------

def _take_along(b, x, d, idx):
    """x's slices at the positions idx (a Value, or an int array baked as a
    constant) along dim d: the result's dim d becomes idx's dims."""
    if not is_value(idx):
        idx = b.constant(np.asarray(idx, dtype=np.int64), torch.int64, np.shape(idx))
    idx = b.convert(idx, torch.int64)
    shape = x.shape[:d] + idx.shape + x.shape[d + 1:]
    offset = list(range(d)) + list(range(d + idx.rank, len(shape)))
    sizes = [1 if i == d else s for i, s in enumerate(x.shape)]
    return _gather(b, x, idx, shape, offset_dims=offset, collapsed=[d], start_index_map=[d], ivd=idx.rank,
                   slice_sizes=sizes)


def _scatter_along(b, base, upd, d, idx, op):
    """base with upd's slices combined (op, see _combiner) at the positions
    idx (Value or int array) along dim d: upd's dims d.. are idx's dims."""
    if not is_value(idx):
        idx = b.constant(np.asarray(idx, dtype=np.int64), torch.int64, np.shape(idx))
    idx = b.convert(idx, torch.int64)
    windows = list(range(d)) + list(range(d + idx.rank, upd.rank))
    return _scatter(b, base, idx, upd, update_window_dims=windows, inserted=[d], to_operand=[d], ivd=idx.rank,
                    op=op)


@register(aten.index_select.default)
def index_select(b, out, x, dim, index):
    """Whole slices of x at index along dim: one gather."""
    if x.rank == 0:
        return b.reshape(x, out.shape)
    return _take_along(b, x, _dim(dim, x.rank), b.reshape(index, (index.numel,)))


@register(aten.take.default)
def take(b, out, x, index):
    """x's elements (row-major order) at index, negative ones from the end."""
    flat = b.reshape(x, (x.numel,))
    return _take_along(b, flat, 0, _wrap_negative(b, b.convert(index, torch.int64), x.numel))


@register(aten.put.default)
def put(b, out, x, index, source, accumulate=False):
    """x with source written (or added) at the row-major positions index."""
    flat = b.reshape(x, (x.numel,))
    idx = _wrap_negative(b, b.convert(index, torch.int64), x.numel)
    flat = _scatter_along(b, flat, b.reshape(source, idx.shape), 0, idx, "add" if accumulate else "replace")
    return b.reshape(flat, x.shape)


@register(aten.index_add.default)
def index_add(b, out, x, dim, index, source, alpha=1):
    """x with alpha * source's slices added at index along dim: one scatter-add."""
    if x.rank == 0:
        raise NotImplementedError("tpurun.torch: aten.index_add on a 0-d tensor")
    d = _dim(dim, x.rank)
    if alpha != 1:
        source = b.op("stablehlo.multiply", [b.convert(source, x.dtype), b.scalar(alpha, x.dtype, source.shape)],
                      (source.shape, x.dtype))
    source = b.reshape(source, x.shape[:d] + (index.numel,) + x.shape[d + 1:])
    return _scatter_along(b, x, source, d, b.reshape(index, (index.numel,)), "add")


def _full_index(b, index, dim):
    """index (along dim) as full coordinates: shape index.shape + (rank,)."""
    parts = []
    for d in range(index.rank):
        if d == dim:
            parts.append(b.reshape(b.convert(index, torch.int64), index.shape + (1,)))
        else:
            parts.append(_iota(b, index.shape + (1,), d))
    return _concat(b, parts, index.rank, index.shape + (index.rank,), torch.int64)


@register(aten.gather.default)
def gather(b, out, x, dim, index, sparse_grad=False):
    """out[i...] = x[i... with index[i...] at dim]: a gather batched over the other dims."""
    if x.rank == 0:
        return b.reshape(x, out.shape)
    d = _dim(dim, x.rank)
    others = [i for i in range(x.rank) if i != d]
    x = _slice(b, x, [0] * x.rank, [x.shape[i] if i == d else index.shape[i] for i in range(x.rank)],
               [1] * x.rank)
    return _gather(b, x, b.convert(index, torch.int64), index.shape, offset_dims=[], collapsed=[d],
                   start_index_map=[d], ivd=index.rank, slice_sizes=[1] * x.rank, batching=(others, others))


def _scatter_dim(b, x, dim, index, src, op, op_name):
    """x with src (a Value or a number) scattered at index along dim, combined by op."""
    if x.rank == 0:
        raise NotImplementedError(f"tpurun.torch: {op_name} on a 0-d tensor")
    d = _dim(dim, x.rank)
    if index.numel == 0:
        return x
    if is_value(src):
        src = _slice(b, src, [0] * src.rank, list(index.shape), [1] * src.rank)
    else:
        src = b.scalar(src, x.dtype, index.shape)
    all_dims = list(range(x.rank))
    return _scatter(b, x, _full_index(b, index, d), src, update_window_dims=[], inserted=all_dims,
                    to_operand=all_dims, ivd=index.rank, op=op)


_SCATTER_REDUCE = {"add": "add", "multiply": "multiply"}


@register(aten.scatter.src, aten.scatter.value, aten.scatter.reduce, aten.scatter.value_reduce)
def scatter(b, out, x, dim, index, src, reduce=None):
    """x with src (or a value) written at index along dim, or combined by reduce add/multiply."""
    if reduce is not None and reduce not in _SCATTER_REDUCE:
        raise NotImplementedError(f"tpurun.torch: aten.scatter with reduce={reduce!r}")
    return _scatter_dim(b, x, dim, index, src, _SCATTER_REDUCE.get(reduce, "replace"), "aten.scatter")


@register(aten.scatter_add.default)
def scatter_add(b, out, x, dim, index, src):
    """x with src added at index along dim."""
    return _scatter_dim(b, x, dim, index, src, "add", "aten.scatter_add")


_REDUCE_OPS = {"sum": "add", "mean": "add", "prod": "multiply", "amax": "maximum", "amin": "minimum"}


def _reduce_identity(reduce, dtype):
    """The identity element of scatter_reduce's reduce in dtype."""
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    return min_value(dtype) if reduce == "amax" else max_value(dtype)


@register(aten.scatter_reduce.two)
def scatter_reduce(b, out, x, dim, index, src, reduce, include_self=True):
    """x with src combined at index along dim by sum/prod/mean/amax/amin
    (x's own elements included or not)."""
    if reduce not in _REDUCE_OPS:
        raise NotImplementedError(f"tpurun.torch: aten.scatter_reduce with reduce={reduce!r}")
    if reduce == "mean" and not x.dtype.is_floating_point:
        raise NotImplementedError("tpurun.torch: aten.scatter_reduce with reduce='mean' on integers")
    name = "aten.scatter_reduce"
    base = x if include_self else _scatter_dim(b, x, dim, index, _reduce_identity(reduce, x.dtype), "replace",
                                               name)
    res = _scatter_dim(b, base, dim, index, src, _REDUCE_OPS[reduce], name)
    if reduce != "mean":
        return res
    ones = b.constant(1, x.dtype, index.shape)
    count = _scatter_dim(b, b.constant(1 if include_self else 0, x.dtype, x.shape), dim, index, ones, "add", name)
    count = b.op("stablehlo.maximum", [count, b.constant(1, x.dtype, x.shape)], (x.shape, x.dtype))
    return b.op("stablehlo.divide", [res, count], (x.shape, x.dtype))


# ---- advanced indexing --------------------------------------------------------------------

def _wrap_negative(b, idx, size):
    """Indices in [-size, size) as [0, size): (idx + size) % size."""
    n = b.constant(size, torch.int64, idx.shape)
    return b.op("stablehlo.remainder", [b.op("stablehlo.add", [idx, n], (idx.shape, torch.int64)), n],
                (idx.shape, torch.int64))


def _index_plan(b, x, indices, op_name):
    """(coordinates, indexed dims, window dims of the result, result shape) of x[indices]."""
    indices = [b.scalar(i, torch.int64) if isinstance(i, int) and not isinstance(i, bool) else i
               for i in indices] + [None] * (x.rank - len(indices))
    dims = [d for d, i in enumerate(indices) if i is not None]
    if any(not is_value(indices[d]) for d in dims):
        raise NotImplementedError(f"tpurun.torch: {op_name} with a boolean mask index: its result shape "
                                  f"depends on the data; use torch.where or masked_fill instead")
    if any(indices[d].dtype in (torch.bool, torch.uint8) for d in dims):
        raise NotImplementedError(f"tpurun.torch: {op_name} with a boolean mask index: its result shape "
                                  f"depends on the data; use torch.where or masked_fill instead")
    bshape = tuple(torch.broadcast_shapes(*[indices[d].shape for d in dims]))
    coords = [b.reshape(_wrap_negative(b, b.broadcast(b.convert(indices[d], torch.int64), bshape), x.shape[d]),
                        bshape + (1,)) for d in dims]
    coords = _concat(b, coords, len(bshape), bshape + (len(dims),), torch.int64)
    rest = [d for d in range(x.rank) if d not in dims]
    adjacent = dims == list(range(dims[0], dims[-1] + 1))
    before = [d for d in rest if d < dims[0]] if adjacent else []
    after = [d for d in rest if d not in before]
    shape = tuple(x.shape[d] for d in before) + bshape + tuple(x.shape[d] for d in after)
    windows = list(range(len(before))) + list(range(len(before) + len(bshape), len(shape)))
    return coords, dims, windows, shape


@register(aten.index.Tensor)
def index(b, out, x, indices):
    """x[indices] with integer index tensors (None skips a dim; negative
    indices count from the end): one gather."""
    coords, dims, windows, shape = _index_plan(b, x, indices, "aten.index.Tensor")
    sizes = [1 if d in dims else s for d, s in enumerate(x.shape)]
    return _gather(b, x, coords, shape, offset_dims=windows, collapsed=dims, start_index_map=dims,
                   ivd=coords.rank - 1, slice_sizes=sizes)


def _masked_put(b, x, mask, values, accumulate):
    """x[mask] = values for a boolean mask over x's leading dims and one value: a select."""
    if (is_value(values) and values.numel != 1) or mask.shape != x.shape[:mask.rank]:
        raise NotImplementedError("tpurun.torch: aten.index_put with a boolean mask index takes one value "
                                  "(x[mask] = v); use torch.where for more")
    m = b.broadcast(b.convert(mask, torch.bool), x.shape, list(range(mask.rank)))
    v = (b.broadcast(b.reshape(b.convert(values, x.dtype), ()), x.shape) if is_value(values)
         else b.scalar(values, x.dtype, x.shape))
    if accumulate:
        v = b.op("stablehlo.add", [x, v], (x.shape, x.dtype)) if x.dtype != torch.bool else b.op(
            "stablehlo.or", [x, v], (x.shape, x.dtype))
    return b.op("stablehlo.select", [m, v, x], (x.shape, x.dtype))


def _index_put(b, x, indices, values, accumulate=False):
    """x with x[indices] = values (or += when accumulate): one scatter."""
    idx = [i for i in indices if i is not None]
    if len(idx) == 1 and is_value(idx[0]) and idx[0].dtype in (torch.bool, torch.uint8) \
            and len(indices) == 1:
        return _masked_put(b, x, idx[0], values, accumulate)
    coords, dims, windows, shape = _index_plan(b, x, indices, "aten.index_put")
    upd = b.broadcast(b.convert(values, x.dtype) if is_value(values) else b.scalar(values, x.dtype), shape)
    return _scatter(b, x, coords, upd, update_window_dims=windows, inserted=dims, to_operand=dims,
                    ivd=coords.rank - 1, op="add" if accumulate else "replace")


@register(aten.index_put.default, aten._index_put_impl.default)
def index_put(b, out, x, indices, values, accumulate=False, unsafe=False):
    """x with x[indices] = values (or += when accumulate)."""
    return _index_put(b, x, indices, values, accumulate)


@register(aten._index_put_impl_.default)
def index_put_impl_(b, out, x, indices, values, accumulate=False, unsafe=False):
    """The in-place form autograd's index backward may call: x's new value."""
    return _index_put(b, x, indices, values, accumulate)


# ---- embedding -------------------------------------------------------------------------------

@register(aten.embedding.default)
def embedding(b, out, weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """Rows of weight at indices: one gather."""
    idx = b.convert(indices, torch.int64)
    return _gather(b, weight, idx, out.shape, offset_dims=[idx.rank], collapsed=[0], start_index_map=[0],
                   ivd=idx.rank, slice_sizes=[1, weight.shape[1]])


@register(aten.embedding_dense_backward.default)
def embedding_dense_backward(b, out, grad, indices, num_weights, padding_idx, scale_grad_by_freq):
    """The rows of grad added at their indices (a scatter-add); padding_idx's row stays zero."""
    if scale_grad_by_freq:
        raise NotImplementedError("tpurun.torch: aten.embedding_dense_backward with scale_grad_by_freq=True")
    dim = grad.shape[-1]
    rows = b.reshape(grad, (indices.numel, dim))
    idx = b.reshape(b.convert(indices, torch.int64), (indices.numel, 1))
    res = _scatter(b, b.constant(0, grad.dtype, (num_weights, dim)), idx, rows, update_window_dims=[1],
                   inserted=[0], to_operand=[0], ivd=1, op="add")
    if 0 <= padding_idx < num_weights:
        res = _update(b, res, b.constant(0, grad.dtype, (1, dim)), [padding_idx, 0], [1, 1])
    return res


# ---- padding by reflection or replication, pixel shuffles, sliding windows ----------------

def _pad_positions(n, low, high, mode):
    """For each position of a dim of n padded by (low, high): its source position."""
    src = np.arange(-low, n + high, dtype=np.int64)
    if mode == "reflect":
        period = 2 * (n - 1)
        src = np.abs(src) % period if period else np.zeros_like(src)
        return np.where(src >= n, period - src, src)
    return np.clip(src, 0, n - 1)


def _pad_plan(shape, padding, mode):
    """[(dim, source positions)] for the last len(padding)//2 dims."""
    rank = len(shape)
    return [(rank - 1 - i, _pad_positions(shape[rank - 1 - i], padding[2 * i], padding[2 * i + 1], mode))
            for i in range(len(padding) // 2)]


def _pad_by_positions(b, x, padding, mode):
    """x padded (reflect or replicate) by gathering each padded dim's source positions."""
    for d, pos in _pad_plan(x.shape, padding, mode):
        x = _take_along(b, x, d, pos)
    return x


def _pad_by_positions_backward(b, grad, x, padding, mode):
    """The padding's gradient: each dim's positions added back to their sources."""
    shape = list(grad.shape)
    for d, pos in reversed(_pad_plan(x.shape, padding, mode)):
        shape[d] = x.shape[d]
        grad = _scatter_along(b, b.constant(0, grad.dtype, tuple(shape)), grad, d, pos, "add")
    return grad


@register(aten.reflection_pad1d.default, aten.reflection_pad2d.default, aten.reflection_pad3d.default)
def reflection_pad(b, out, x, padding):
    return _pad_by_positions(b, x, padding, "reflect")


@register(aten.replication_pad1d.default, aten.replication_pad2d.default, aten.replication_pad3d.default)
def replication_pad(b, out, x, padding):
    return _pad_by_positions(b, x, padding, "replicate")


@register(aten.reflection_pad1d_backward.default, aten.reflection_pad2d_backward.default,
          aten.reflection_pad3d_backward.default)
def reflection_pad_backward(b, out, grad, x, padding):
    return _pad_by_positions_backward(b, grad, x, padding, "reflect")


@register(aten.replication_pad1d_backward.default, aten.replication_pad2d_backward.default,
          aten.replication_pad3d_backward.default)
def replication_pad_backward(b, out, grad, x, padding):
    return _pad_by_positions_backward(b, grad, x, padding, "replicate")


def _shuffle(b, x, split_shape, perm, out_shape):
    """x reshaped to split_shape, permuted by perm, reshaped to out_shape."""
    return b.reshape(b.transpose(b.reshape(x, split_shape), perm), out_shape)


@register(aten.pixel_shuffle.default)
def pixel_shuffle(b, out, x, r):
    """(*, C*r*r, H, W) -> (*, C, H*r, W*r)."""
    lead, (c, h, w) = x.shape[:-3], x.shape[-3:]
    k = len(lead)
    perm = list(range(k)) + [k, k + 3, k + 1, k + 4, k + 2]
    return _shuffle(b, x, lead + (c // (r * r), r, r, h, w), perm, out.shape)


@register(aten.pixel_unshuffle.default)
def pixel_unshuffle(b, out, x, r):
    """(*, C, H*r, W*r) -> (*, C*r*r, H, W)."""
    lead, (c, h, w) = x.shape[:-3], x.shape[-3:]
    k = len(lead)
    perm = list(range(k)) + [k, k + 2, k + 4, k + 1, k + 3]
    return _shuffle(b, x, lead + (c, h // r, r, w // r, r), perm, out.shape)


def _window_positions(n, size, step):
    """The positions of the sliding windows of size with step in a dim of n: (count, size)."""
    count = (n - size) // step + 1
    return np.arange(count).reshape(-1, 1) * step + np.arange(size).reshape(1, -1)


def _unfold_back(b, base, new, dimension, size, step):
    """unfold's inverse: the windows written back at their positions."""
    d = _dim(dimension, base.rank)
    pos = _window_positions(base.shape[d], size, step)
    upd = b.transpose(new, list(range(d + 1)) + [new.rank - 1] + list(range(d + 1, new.rank - 1)))
    return _scatter_along(b, base, upd, d, pos, "replace")


@register_view(aten.unfold.default, inverse=_unfold_back)
def unfold(b, out, x, dimension, size, step):
    """Sliding windows of size along dimension (a new last dim): a gather of constant positions."""
    if x.rank == 0:
        return b.reshape(x, out.shape)
    d = _dim(dimension, x.rank)
    g = _take_along(b, x, d, _window_positions(x.shape[d], size, step))
    return b.transpose(g, list(range(d + 1)) + list(range(d + 2, g.rank)) + [d + 1])


@register(aten.unfold_backward.default)
def unfold_backward(b, out, grad, input_sizes, dim, size, step):
    """The windows' gradients added back at their positions: one scatter-add."""
    shape = tuple(input_sizes)
    if not shape:
        return b.reshape(grad, ())
    return _unfold_add(b, grad, shape, _dim(dim, len(shape)), size, step)


def _unfold_add(b, grad, shape, d, size, step):
    """Zeros of shape with the windows' gradients (grad) added at their positions along d."""
    pos = _window_positions(shape[d], size, step)
    upd = b.transpose(grad, list(range(d + 1)) + [grad.rank - 1] + list(range(d + 1, grad.rank - 1)))
    return _scatter_along(b, b.constant(0, grad.dtype, shape), upd, d, pos, "add")


def _view_dtype_back(b, base, new, dtype):
    """view.dtype's inverse: the bits back as the base's dtype."""
    return b.op("stablehlo.bitcast_convert", [new], (base.shape, base.dtype))


@register_view(aten.view.dtype, inverse=_view_dtype_back)
def view_dtype(b, out, x, dtype):
    """The same bits as another dtype of the same width (a bitcast_convert)."""
    if torch.empty((), dtype=dtype).element_size() != torch.empty((), dtype=x.dtype).element_size():
        raise NotImplementedError(f"tpurun.torch: aten.view.dtype from {x.dtype} to {dtype} (different widths)")
    return b.op("stablehlo.bitcast_convert", [x], (x.shape, dtype))
