"""Values and builders: what an ATen lowering emits StableHLO ops into.

A lowering (see _lowering.py) works on Values, never on torch tensors, and
emits ops through a Builder.  The same lowering serves two builders:

* EagerBuilder runs each op on a tpurun.Client (tpu_op, in the client's
  eager mode); a Value's ref is a tpurun.Tensor.
* TraceBuilder writes each op as a line of StableHLO text (export); a
  Value's ref is an SSA name.
"""
import math
import struct
import threading
from collections import OrderedDict

import numpy as np
import torch

import tpurun

# torch dtype -> StableHLO element type.
ELEM = {torch.float32: "f32", torch.float64: "f64", torch.float16: "f16", torch.bfloat16: "bf16",
        torch.int64: "i64", torch.int32: "i32", torch.int16: "i16", torch.int8: "i8", torch.uint8: "ui8",
        torch.bool: "i1", torch.complex64: "complex<f32>", torch.complex128: "complex<f64>"}
TORCH_OF_ELEM = {v: k for k, v in ELEM.items()}


def elem_of(dtype):
    """The StableHLO element type of a torch dtype (TypeError when none).
    A str is an element type torch lacks ("ui32", "ui64": random bits and
    generator states), passed through."""
    if isinstance(dtype, str):
        return dtype
    try:
        return ELEM[dtype]
    except KeyError:
        raise TypeError(f"tpurun.torch: dtype {dtype} has no StableHLO element type") from None


def type_str(shape, dtype):
    """"2x3xf32" for ((2, 3), torch.float32)."""
    return "x".join([str(int(d)) for d in shape] + [elem_of(dtype)])


def tensor_type(shape, dtype):
    """"tensor<2x3xf32>"."""
    return f"tensor<{type_str(shape, dtype)}>"


class Value:
    """One tensor value: its shape (tuple of ints), torch dtype (or an
    element type string torch lacks, see elem_of) and the builder's
    reference to it (a tpurun.Tensor, or an SSA name)."""
    __slots__ = ("shape", "dtype", "ref")

    def __init__(self, shape, dtype, ref):
        self.shape, self.dtype, self.ref = tuple(int(d) for d in shape), dtype, ref

    @property
    def rank(self):
        return len(self.shape)

    @property
    def numel(self):
        return math.prod(self.shape)

    @property
    def type(self):
        return tensor_type(self.shape, self.dtype)

    def __repr__(self):
        return f"Value({type_str(self.shape, self.dtype)})"


_NONFINITE_BITS = {  # (nan, +inf, -inf) bit patterns
    torch.float32: ("0x7FC00000", "0x7F800000", "0xFF800000"),
    torch.float64: ("0x7FF8000000000000", "0x7FF0000000000000", "0xFFF0000000000000"),
    torch.float16: ("0x7E00", "0x7C00", "0xFC00"),
    torch.bfloat16: ("0x7FC0", "0x7F80", "0xFF80"),
}


def literal(x, dtype):
    """x written as an element of a dense<...> literal of dtype."""
    if dtype == torch.bool:
        return "true" if x else "false"
    if dtype.is_complex:
        c = complex(x)
        part = torch.float32 if dtype == torch.complex64 else torch.float64
        return f"({literal(c.real, part)}, {literal(c.imag, part)})"
    if dtype.is_floating_point:
        x = float(x)
        if math.isnan(x):
            return _NONFINITE_BITS[dtype][0]
        if math.isinf(x):
            return _NONFINITE_BITS[dtype][1 if x > 0 else 2]
        if dtype == torch.float32:  # the nearest f32, printed exactly
            x = struct.unpack("f", struct.pack("f", x))[0]
        text = repr(x)
        if "e" in text and "." not in text.split("e")[0]:
            mant, exp = text.split("e")
            text = f"{mant}.0e{exp}"
        elif "." not in text and "e" not in text:
            text += ".0"
        return text
    return str(int(x))


class Builder:
    """The interface lowerings use.  Subclasses implement _emit,
    _from_array and _scalar_input."""

    def op(self, name, operands, out, attrs=None, regions=None):
        """Emits one op; out is (shape, dtype) for one result (returns a
        Value) or a list of them (returns a list).  attrs: the attribute
        dictionary text "{...}" or None.  regions: the regions' text, as
        MLIR's generic form writes them before the dictionary."""
        single = isinstance(out, tuple) and len(out) == 2 and isinstance(out[1], (torch.dtype, str))
        outs = [out] if single else list(out)
        res = self._emit(name, list(operands), [(tuple(s), d) for s, d in outs], attrs, regions)
        return res[0] if single else res

    def constant(self, x, dtype, shape=()):
        """A constant baked into the program: x a number (splat over shape)
        or an array-like of exactly shape."""
        shape = tuple(shape)
        if isinstance(x, (int, float, bool, complex)):
            v = self._splat(x, dtype)
            return v if shape == () else self.broadcast(v, shape, ())
        return self._from_array(np.asarray(x), dtype, shape, baked=True)

    def scalar(self, x, dtype, shape=()):
        """A number the user's program gave (a Python scalar operand, a
        learning rate): an input of the step rather than a baked constant,
        so a changing value does not change the compiled graph; broadcast
        to shape."""
        v = self._scalar_input(x, dtype)
        return v if shape == () else self.broadcast(v, shape, ())

    def from_numpy(self, array, dtype):
        """A tensor of host data (an input, not a constant)."""
        a = np.asarray(array)
        return self._from_array(a, dtype, a.shape, baked=False)

    def _splat(self, x, dtype):
        return self.op("stablehlo.constant", [], ((), dtype),
                       attrs=f"{{value = dense<{literal(x, dtype)}> : {tensor_type((), dtype)}}}")

    # ---- helpers every lowering wants -----------------------------------
    def broadcast(self, v, shape, dims=None):
        """broadcast_in_dim of v to shape; dims default: v's dims aligned to
        the right (NumPy broadcasting).  Returns v itself when nothing changes."""
        shape = tuple(int(d) for d in shape)
        if dims is None:
            dims = tuple(range(len(shape) - v.rank, len(shape)))
        if v.shape == shape and tuple(dims) == tuple(range(len(shape))):
            return v
        attrs = f"{{broadcast_dimensions = array<i64{i64s(dims)}>}}"
        return self.op("stablehlo.broadcast_in_dim", [v], (shape, v.dtype), attrs=attrs)

    def convert(self, v, dtype):
        """v converted to dtype (itself when it already is)."""
        if v.dtype == dtype:
            return v
        return self.op("stablehlo.convert", [v], (v.shape, dtype))

    def reshape(self, v, shape):
        shape = tuple(int(d) for d in shape)
        if v.shape == shape:
            return v
        return self.op("stablehlo.reshape", [v], (shape, v.dtype))

    def transpose(self, v, perm):
        perm = tuple(int(p) for p in perm)
        if perm == tuple(range(v.rank)):
            return v
        return self.op("stablehlo.transpose", [v], (tuple(v.shape[p] for p in perm), v.dtype),
                       attrs=f"{{permutation = array<i64{i64s(perm)}>}}")


def i64s(xs):
    """": 1, 2" for array<i64: 1, 2>, "" for an empty array<i64>."""
    xs = list(xs)
    return (": " + ", ".join(str(int(x)) for x in xs)) if xs else ""



def host_array(array, dtype):
    """(contiguous NumPy storage, type string element) of array as dtype."""
    if dtype == torch.bfloat16:
        return tpurun.bf16_from_f32(np.asarray(array, dtype=np.float32))
    if dtype == torch.bool:
        return np.ascontiguousarray(np.asarray(array, dtype=np.bool_))
    np_dtype = torch.empty((), dtype=dtype).numpy().dtype
    return np.ascontiguousarray(np.asarray(array, dtype=np_dtype))


class EagerBuilder(Builder):
    """Runs every op at once on a tpurun.Client (in the client's mode).

    Scalar inputs are uploaded once per (value, dtype) and kept in a small
    cache, so a training loop's per-step numbers are graph inputs that do
    not change the fused graph's text.  Scalar constants are made once per
    (literal, dtype) too: in Strict and Debug mode each would otherwise be
    a kernel run per use."""

    CACHE_ENTRIES = 4096

    def __init__(self, client):
        self.client = client
        self._scalars = OrderedDict()
        self._lock = threading.Lock()

    def _cached(self, key, make):
        """The Value cached under key, made by make() on a miss (LRU)."""
        with self._lock:
            v = self._scalars.get(key)
            if v is not None:
                self._scalars.move_to_end(key)
                return v
        v = make()
        with self._lock:
            self._scalars[key] = v
            while len(self._scalars) > self.CACHE_ENTRIES:
                self._scalars.popitem(last=False)
        return v

    def _splat(self, x, dtype):
        text = literal(x, dtype)
        return self._cached(("constant", text, dtype), lambda: Builder._splat(self, x, dtype))

    def _emit(self, name, operands, outs, attrs, regions):
        if regions:
            attrs = regions + " " + (attrs or "{}")
        types = [type_str(s, d) for s, d in outs]
        res = self.client.op(name, [v.ref for v in operands], attrs=attrs, result_types=types,
                             n_results=len(types))
        res = [res] if len(types) == 1 else res
        return [Value(s, d, r) for (s, d), r in zip(outs, res)]

    def _from_array(self, a, dtype, shape, baked):
        storage = host_array(a, dtype).reshape(shape)
        return Value(shape, dtype, self.client.tensor(storage, type=type_str(shape, dtype)))

    def _scalar_input(self, x, dtype):
        key = (type(x), x.hex() if isinstance(x, float) else x, dtype)  # -0.0 is not 0.0; NaN is NaN
        return self._cached(key, lambda: self._from_array(np.asarray(x), dtype, (), baked=False))

    def to_torch(self, v):
        """The value as a new CPU torch tensor of its dtype."""
        if v.dtype == torch.bfloat16:
            raw = v.ref.numpy(raw=True)
            return torch.from_numpy(raw.view(np.int16).copy()).view(torch.bfloat16)
        return torch.from_numpy(v.ref.numpy()).to(v.dtype)


class TraceBuilder(Builder):
    """Writes every op as a line of StableHLO text (tpurun.torch.export)."""

    def __init__(self):
        self.lines = []
        self.args = []  # (Value, its jax.arg_info or None)
        self._next = 0

    def _fresh(self):
        name = f"%{self._next}"
        self._next += 1
        return name

    def argument(self, shape, dtype, info=None):
        """A new function argument; info: its jax.arg_info name."""
        v = Value(shape, dtype, f"%arg{len(self.args)}")
        self.args.append((v, info))
        return v

    def _emit(self, name, operands, outs, attrs, regions):
        res = self._fresh()
        vals = [Value(s, d, res if len(outs) == 1 else f"{res}#{i}") for i, (s, d) in enumerate(outs)]
        lhs = res if len(outs) == 1 else f"{res}:{len(outs)}"
        ins = ", ".join(v.ref for v in operands)
        in_types = ", ".join(v.type for v in operands)
        out_types = ", ".join(v.type for v in vals)
        parts = [f'{lhs} = "{name}"({ins})']
        if regions:
            parts.append(" " + regions.strip())
        if attrs:
            parts.append(" " + attrs)
        parts.append(f" : ({in_types}) -> ({out_types})")
        self.lines.append("".join(parts))
        return vals

    def _from_array(self, a, dtype, shape, baked):
        storage = host_array(a, dtype).reshape(shape)
        if dtype == torch.bool:
            body = "[" + ", ".join("true" if b else "false" for b in storage.reshape(-1)) + "]"
        else:
            flat = storage.reshape(-1)
            if dtype == torch.bfloat16:
                flat = tpurun.f32_from_bf16(flat)
            body = "[" + ", ".join(literal(x.item(), dtype) for x in flat) + "]"
        if storage.size == 1:
            body = body[1:-1]
        flat_v = self.op("stablehlo.constant", [], ((storage.size,) if storage.size != 1 else (), dtype),
                         attrs=f"{{value = dense<{body}> : "
                               f"{tensor_type((storage.size,) if storage.size != 1 else (), dtype)}}}")
        return self.reshape(flat_v, shape)

    def _scalar_input(self, x, dtype):
        return self._splat(x, dtype)
