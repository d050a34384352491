"""The ATen -> StableHLO lowering registry and the helpers lowerings share.

A lowering is registered for one or more ATen ops (OpOverloads, or a whole
OpOverloadPacket) and is called as

    fn(b, out, *args, **kwargs)

b: the Builder (_builder.py); out: the op's result metadata as PyTorch's
own meta kernels compute it -- a Spec(shape, dtype) per tensor result,
nested like the op's return (None when the op has no meta kernel); args:
the ATen op's arguments with every tensor replaced by a Value.  It returns
Values shaped like the op's return (a Value, or a tuple of them).

View ops also register an inverse (register_view): given the base's
value, the view's new value and the op's arguments, the base's new value.
In-place ops need no lowering of their own: the dispatcher runs the
functional op and writes the result back (through the view inverses when
the target is a view).

The op families live in lower_*.py; importing this package registers them.
"""
from collections import namedtuple

import torch

from ._builder import Value, i64s, tensor_type

aten = torch.ops.aten

Spec = namedtuple("Spec", "shape dtype")

LOWERINGS = {}
VIEW_INVERSES = {}


def register(*ops):
    """Decorator: fn lowers each of ops (OpOverload or OpOverloadPacket)."""
    def deco(fn):
        for op in ops:
            LOWERINGS[op] = fn
        return fn
    return deco


def register_view(*ops, inverse):
    """Decorator for a view op's lowering; inverse(b, base, new_view, *args, **kwargs)
    returns the base's new Value after the view was overwritten by new_view."""
    def deco(fn):
        for op in ops:
            LOWERINGS[op] = fn
            VIEW_INVERSES[op] = inverse
        return fn
    return deco


def lookup(func):
    """The lowering of an OpOverload, or None."""
    fn = LOWERINGS.get(func)
    if fn is None:
        fn = LOWERINGS.get(func.overloadpacket)
    return fn


# ---- helpers --------------------------------------------------------------

def is_value(x):
    return isinstance(x, Value)


def operand(b, x, dtype, shape):
    """x (a Value or a Python number) as a Value of dtype broadcast to shape."""
    if is_value(x):
        return b.broadcast(b.convert(x, dtype), shape)
    return b.scalar(x, dtype, shape)


def elementwise(b, out, name, *xs, dtype=None):
    """out = name(xs...) element by element: each x converted to dtype
    (default out.dtype) and broadcast to out.shape."""
    dtype = dtype or out.dtype
    vals = [operand(b, x, dtype, out.shape) for x in xs]
    res = b.op(name, vals, (out.shape, dtype))
    return b.convert(res, out.dtype)


def compare(b, out, direction, x, y):
    """out (bool) = x <direction> y, in the promoted type of x and y."""
    dtype = torch.result_type(meta_like(x), meta_like(y))
    vals = [operand(b, v, dtype, out.shape) for v in (x, y)]
    kind = "FLOAT" if dtype.is_floating_point or dtype.is_complex else (
        "UNSIGNED" if dtype in (torch.uint8, torch.bool) else "SIGNED")
    attrs = (f"{{comparison_direction = #stablehlo<comparison_direction {direction}>, "
             f"compare_type = #stablehlo<comparison_type {kind}>}}")
    return b.op("stablehlo.compare", vals, (out.shape, torch.bool), attrs=attrs)


def meta_like(x):
    """A meta tensor (or the number itself) standing for x in torch's type rules."""
    if is_value(x):
        return torch.empty(x.shape, dtype=x.dtype, device="meta")
    return x


def body_region(op, dtype, n_inputs=1):
    """The region of a reducer whose body is the binary op (e.g.
    "stablehlo.add") on scalars of dtype, for n_inputs inputs (variadic
    reduce pairs them)."""
    t = tensor_type((), dtype)
    if n_inputs != 1:
        raise ValueError("body_region: one input only; write the region for variadic reduces")
    return (f'({{\n  ^bb0(%lhs: {t}, %rhs: {t}):\n'
            f'    %r = "{op}"(%lhs, %rhs) : ({t}, {t}) -> {t}\n'
            f'    "stablehlo.return"(%r) : ({t}) -> ()\n}})')


def reduce(b, v, dims, op, init, out_dtype=None):
    """v reduced over dims with the binary op from init (a number), in
    v's dtype (or out_dtype, converted first); the dims are removed."""
    dtype = out_dtype or v.dtype
    v = b.convert(v, dtype)
    dims = sorted(d % v.rank for d in dims) if v.rank else []
    if not dims:
        return v
    shape = tuple(s for i, s in enumerate(v.shape) if i not in dims)
    init_v = b.constant(init, dtype)
    return b.op("stablehlo.reduce", [v, init_v], (shape, dtype), regions=body_region(op, dtype),
                attrs=f"{{dimensions = array<i64{i64s(dims)}>}}")


def normalize_dims(dims, rank):
    """ATen dim arguments (int, list or None for all) as sorted non-negative ints."""
    if dims is None or (isinstance(dims, (list, tuple)) and len(dims) == 0):
        return list(range(rank))
    if isinstance(dims, int):
        dims = [dims]
    return sorted({(d % rank) if rank else 0 for d in dims})


def min_value(dtype):
    """The lowest value of dtype (-inf for floats): max-reduction's init."""
    if dtype == torch.bool:
        return False
    if dtype.is_floating_point:
        return float("-inf")
    return torch.iinfo(dtype).min


def max_value(dtype):
    """The highest value of dtype (+inf for floats): min-reduction's init."""
    if dtype == torch.bool:
        return True
    if dtype.is_floating_point:
        return float("inf")
    return torch.iinfo(dtype).max
