"""tpurun.torch.Tensor: a torch.Tensor subclass whose data is a libtpurun value.

Each ATen op that reaches __torch_dispatch__ (autograd runs above it, so
backward and optimizers arrive here as ordinary ATen ops) is lowered to
StableHLO ops through a Builder (_builder.py): for tensors made by to_tpu
the EagerBuilder of the package's client, in its eager mode.

Values are immutable, so aliasing is modelled, not shared: tensors that
alias one another (views, detach, Parameters) share a Store, and each
holds the chain of view ops that leads from the store's whole value to
its own.  Overwriting a tensor (an in-place op, copy_) replays the chain's
inverses to give the store a new whole value and bumps its version; every
other alias sees the new value at its next use by replaying its chain.
"""
import copy
import functools
import math
import os
import sys
import threading
import traceback
import warnings

import torch

import tpurun

from ._builder import EagerBuilder, Value, type_str
from ._lowering import VIEW_INVERSES, Spec, lookup

aten = torch.ops.aten


class Store:
    """The data a set of aliasing tensors share: its whole value and a
    version bumped on every overwrite."""
    __slots__ = ("value", "version", "builder")

    def __init__(self, value, builder):
        self.value, self.version, self.builder = value, 0, builder


class ViewStep:
    """One view op of a chain: func(base, *args, **kwargs)[index]."""
    __slots__ = ("func", "args", "kwargs", "index", "out")

    def __init__(self, func, args, kwargs, index, out):
        self.func, self.args, self.kwargs, self.index, self.out = func, args, kwargs, index, out


class Mutated:
    """A lowering's return for an op that also overwrites some of its tensor
    arguments: result is the op's return, updates maps argument names to
    their new Values."""
    __slots__ = ("result", "updates")

    def __init__(self, result, updates):
        self.result, self.updates = result, updates


class Tensor(torch.Tensor):
    """A tensor on the simulated TPU (made by tpurun.torch.to_tpu)."""

    @staticmethod
    def __new__(cls, store, chain=(), value=None, requires_grad=False, geometry=(None, None)):
        v = value if value is not None else store.value
        r = torch.Tensor._make_wrapper_subclass(cls, v.shape, dtype=v.dtype, device="cpu",
                                                requires_grad=requires_grad, strides=geometry[0],
                                                storage_offset=geometry[1])
        r._store, r._chain, r._cached, r._seen = store, tuple(chain), v, store.version
        return r

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        """No torch-function layer (results keep their class), except that
        a TPU tensor cannot take a CPU tensor's data: nn.Module._apply then
        replaces a parameter rather than setting its .data (module.cpu());
        and F.one_hot of a TPU tensor stays on the TPU."""
        if func is torch._has_compatible_shallow_copy_type:
            return isinstance(args[0], Tensor) and isinstance(args[1], Tensor)
        if func is torch.nn.functional.one_hot and isinstance(args[0], Tensor):
            return _one_hot(*args, **(kwargs or {}))
        if kwargs:
            return torch._C._disabled_torch_function_impl(func, types, args, kwargs)
        return torch._C._disabled_torch_function_impl(func, types, args)

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        return dispatch(func, args, kwargs or {})

    # Host views of the data: each materializes (a host read).
    def __repr__(self, *, tensor_contents=None):
        if self._store.value is None or not isinstance(self._store.builder, EagerBuilder):
            return f"tpurun.torch.Tensor(shape={tuple(self.shape)}, dtype={self.dtype}, traced)"
        text = repr(to_cpu(self))
        grad = ""
        if self.grad_fn is not None:
            grad = f", grad_fn=<{type(self.grad_fn).__name__}>"
        elif self.requires_grad:
            grad = ", requires_grad=True"
        return f"{text[:-1]}, device='tpu'{grad})"

    def numpy(self):
        return to_cpu(self).numpy()

    def tolist(self):
        return to_cpu(self).tolist()

    def cpu(self):
        return to_cpu(self)

    def to(self, *args, **kwargs):
        """PyTorch's Tensor.to, except that the device written as a string,
        x.to("cpu"), or a CPU tensor, x.to(cpu_tensor), gives a CPU tensor
        (the subclass reports device cpu, so PyTorch would keep it on the
        TPU).  A torch.device object is taken as the device the tensor
        reports: code such as clip_grad_norm_'s `.to(grads[0].device)` keeps
        its tensors on the TPU."""
        device, dtype, _, _ = torch._C._nn._parse_to(*args, **kwargs)
        named = args[0] if args else kwargs.get("device", kwargs.get("other"))
        to_host = isinstance(named, str) or (isinstance(named, torch.Tensor) and not isinstance(named, Tensor))
        if device is not None and device.type == "cpu" and to_host:
            t = to_cpu(self)
            return t.to(dtype) if dtype is not None else t
        return super().to(*args, **kwargs)

    @property
    def data(self):
        """PyTorch's x.data: a detached alias."""
        return torch.Tensor.data.__get__(self)

    @data.setter
    def data(self, y):
        """x.data = y: x takes y's data (and dtype, shape) as an alias of y;
        a CPU y is uploaded.  module.double() and .half() set it."""
        if not isinstance(y, Tensor):
            y = to_tpu(y, self._store.builder)
        torch.Tensor.data.__set__(self, y)
        self._store, self._chain, self._cached, self._seen = y._store, y._chain, value_of(y), y._store.version

    def __deepcopy__(self, memo):
        """An independent TPU copy (a new store of the same, immutable
        Value), keeping requires_grad, Parameter-ness and the gradient."""
        if id(self) in memo:
            return memo[id(self)]
        if not self.is_leaf:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
                               "protocol at the moment")
        new = Tensor(Store(value_of(self), self._store.builder), requires_grad=self.requires_grad)
        memo[id(self)] = new
        for k, v in self.__dict__.items():
            if k not in ("_store", "_chain", "_cached", "_seen"):
                setattr(new, k, copy.deepcopy(v, memo))
        if self.grad is not None:
            new.grad = copy.deepcopy(self.grad, memo)
        return new

    def __array__(self, dtype=None):
        a = self.numpy()
        return a if dtype is None else a.astype(dtype)

    def __reduce_ex__(self, proto):
        return (_from_cpu_tensor, (to_cpu(self),))


def _one_hot(x, num_classes=-1):
    """F.one_hot of TPU indices, on the TPU (PyTorch's makes its zeros on
    the CPU, x's reported device).  As on CUDA, indices out of range give
    rows of zeros rather than an error (checking them is a host read)."""
    if x.dtype != torch.int64:
        raise RuntimeError("one_hot is only applicable to index tensor.")
    if num_classes < 0:
        if x.numel() == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(x.max().item()) + 1
    return (x.unsqueeze(-1) == torch.arange(num_classes)).long()


def _from_cpu_tensor(t):
    return to_tpu(t)


# ---- the package's state ----------------------------------------------------

class State:
    """Everything tpurun.torch keeps between calls (one per process): the
    client and its builder, the fallback switch and the bridge's counters.
    lock (reentrant) serializes the client's creation and module
    conversions (which toggle PyTorch's global
    overwrite_module_params_on_conversion).  pid is the process that made
    the client: a libtpurun client cannot cross os.fork()."""

    def __init__(self):
        self.client = None
        self.builder = None
        self.client_options = {}
        self.mode = None
        self.allow_cpu_fallback = False
        self.counters = {"aten_ops": 0, "cpu_fallbacks": 0, "decompositions": 0, "host_uploads": 0,
                         "host_reads": 0}
        self.meta_cache = {}
        self.seed = None  # tpurun.torch.manual_seed's; the generator's state is the builder's rng
        self.lock = threading.RLock()
        self.pid = None


STATE = State()


def check_process():
    """RuntimeError when the package's client was made by another process
    (this one is a fork's child): libtpurun's threads do not survive fork.
    Ops need no such check: the client refuses every C call after a fork."""
    if STATE.pid is not None and STATE.pid != os.getpid():
        raise RuntimeError(
            "tpurun.torch: this process was forked after the parent made its TPU client, and a libtpurun "
            "client cannot cross fork (its worker threads stay in the parent): use the 'spawn' start method "
            "(multiprocessing.set_start_method('spawn')), or create the TPU tensors in the child after fork")


def default_builder():
    """The EagerBuilder of the package's client, creating both on first use
    (mode from set_mode, else the options' mode, else TPU_EAGER_MODE, else
    strict; applied after creation, since the client reads TPU_EAGER_MODE)."""
    if STATE.builder is None:
        with STATE.lock:
            if STATE.builder is None:
                opts = dict(STATE.client_options)
                env = os.environ.get("TPU_EAGER_MODE", "strict").lower() or "strict"
                mode = STATE.mode or opts.get("mode") or env
                opts["mode"] = mode
                client = tpurun.Client(**opts)
                client.mode = mode
                STATE.client, STATE.pid = client, os.getpid()
                STATE.builder = EagerBuilder(client)
    check_process()
    return STATE.builder


# ---- moving data --------------------------------------------------------------

def wrap(value, builder):
    return Tensor(Store(value, builder))


def upload(t, builder):
    """A plain CPU tensor as a Value of builder."""
    STATE.counters["host_uploads"] += 1
    t = t.detach()
    if t.dtype == torch.bfloat16:
        return builder.from_numpy(t.float().numpy(), torch.bfloat16)
    return builder.from_numpy(t.contiguous().numpy(), t.dtype)


def value_of(t):
    """The current Value of a tpurun.torch.Tensor (replaying its view chain
    when its store was overwritten since)."""
    st = t._store
    if not t._chain:
        return st.value
    if t._seen != st.version:
        v = st.value
        for step in t._chain:
            v = _apply_view(st.builder, step, v)
        t._cached, t._seen = v, st.version
    return t._cached


def _apply_view(b, step, v):
    r = lookup(step.func)(b, step.out, v, *step.args, **step.kwargs)
    return r[step.index] if step.index is not None else r


def assign(t, new, builder=None):
    """Overwrites tensor t (all its elements) with Value new, converted to
    t's dtype and broadcast to its shape; every alias sees it.  A plain CPU
    t (cpu.add_(tpu)) gets a copy of the result: builder is new's."""
    if not isinstance(t, Tensor):
        _write_cpu(t, new, builder)
        return
    st, b = t._store, t._store.builder
    new = b.broadcast(b.convert(new, t.dtype), tuple(t.shape))
    if not t._chain:
        st.value = new
    else:
        bases = [st.value]
        for step in t._chain[:-1]:
            bases.append(_apply_view(b, step, bases[-1]))
        cur = new
        for step, base in zip(reversed(t._chain), reversed(bases)):
            kwargs = dict(step.kwargs)
            if step.index is not None:
                kwargs["_index"] = step.index
            cur = VIEW_INVERSES[step.func](b, base, cur, *step.args, **kwargs)
        st.value = cur
    st.version += 1
    t._cached, t._seen = new, st.version


def _write_cpu(t, v, b):
    """A plain CPU tensor overwritten with Value v of builder b (a device
    transfer, counted as a host read)."""
    if not isinstance(b, EagerBuilder):
        raise RuntimeError("tpurun.torch: a traced op cannot write a CPU tensor (inside export)")
    STATE.counters["host_reads"] += 1
    with torch.no_grad():
        t.copy_(b.to_torch(b.broadcast(b.convert(v, t.dtype), tuple(t.shape))))


# ---- dispatch ----------------------------------------------------------------

def _map(fn, x):
    """fn applied to every leaf of x (nested lists, tuples and dict values):
    ATen arguments nest no deeper, and this is the dispatcher's hot path."""
    if isinstance(x, (list, tuple)):
        return type(x)(_map(fn, y) for y in x)
    if isinstance(x, dict):
        return {k: _map(fn, v) for k, v in x.items()}
    return fn(x)


def _leaves(x):
    """The leaves of x (as _map visits them)."""
    if isinstance(x, (list, tuple)):
        for y in x:
            yield from _leaves(y)
    elif isinstance(x, dict):
        for v in x.values():
            yield from _leaves(v)
    else:
        yield x


def _builder_of(args, kwargs):
    for x in _leaves((args, kwargs)):
        if isinstance(x, Tensor):
            return x._store.builder
    return default_builder()


def _to_value(b):
    """The argument converter of one dispatch: TPU tensors to their Values
    (of builder b only), CPU tensors uploaded: 0-dim ones through b.scalar
    (cached, and a graph input: a changing learning-rate tensor does not
    change a fused graph), keeping their dtype, which type promotion reads."""
    def conv(x):
        if isinstance(x, Tensor):
            if x._store.builder is not b:
                raise RuntimeError("tpurun.torch: an op mixes tensors of two clients (or a traced tensor "
                                   "with an eager one)")
            return value_of(x)
        if isinstance(x, torch.Tensor):
            if x.dim() == 0 and not x.requires_grad:
                return b.scalar(x.item(), x.dtype)
            return upload(x, b)
        return x
    return conv


def _sig(x):
    """x as a cache key: Values by shape and dtype, numbers with their type
    (1, 1.0 and True promote differently)."""
    t = type(x)
    if t is Value:
        return (x.shape, x.dtype)
    if t is tuple or t is list:
        return tuple([_sig(y) for y in x])
    if t is float:
        return (float, "nan") if math.isnan(x) else (float, x)
    if t is bool or t is int or t is complex:
        return (t, x)
    return x


def _memoized(cache, key_parts, compute):
    """compute() cached in cache under the signature of key_parts (with the
    default dtype, which promotion reads); uncached when unhashable.  The
    cache is emptied when full."""
    try:
        key = (torch.get_default_dtype(), _sig(key_parts))
        hash(key)
    except TypeError:
        return compute()
    try:
        return cache[key]
    except KeyError:
        pass
    value = compute()
    if len(cache) >= META_CACHE_ENTRIES:
        cache.clear()
    cache[key] = value
    return value


def _meta(x):
    if isinstance(x, Value):
        return torch.empty(x.shape, dtype=x.dtype, device="meta")
    return x


def _spec(x):
    if isinstance(x, torch.Tensor):
        return Spec(tuple(x.shape), x.dtype)
    if isinstance(x, (list, tuple)):
        return type(x)(_spec(y) for y in x)
    return x


META_CACHE_ENTRIES = 1 << 16


def _numbers_in_tensor_slots(func, args, kwargs):
    """args and kwargs with each number in a Tensor parameter (a 0-d CPU
    tensor that _to_value read) as a 0-d meta tensor, as meta kernels want."""
    args, kwargs = list(args), dict(kwargs)
    for i, a in enumerate(func._schema.arguments):
        if str(a.type) not in ("Tensor", "Optional[Tensor]"):
            continue
        if i < len(args) and isinstance(args[i], (bool, int, float)):
            args[i] = torch.tensor(args[i], device="meta")
        elif isinstance(kwargs.get(a.name), (bool, int, float)):
            kwargs[a.name] = torch.tensor(kwargs[a.name], device="meta")
    return args, kwargs


def meta_out(func, vargs, vkwargs):
    """The op's result metadata (Specs) from PyTorch's meta kernel, cached
    per (op, argument types); None when the op has no meta kernel.  The
    kernel's own errors (wrong shapes, bad arguments) are the user's, raised
    with the source line of the op."""
    def compute():
        try:
            margs, mkwargs = _numbers_in_tensor_slots(func, _map(_meta, vargs), _map(_meta, vkwargs))
            return _spec(func(*margs, **mkwargs))
        except (NotImplementedError, TypeError):  # TypeError: 1.13's broken meta decompositions (huber_loss_backward)
            return None
        except (RuntimeError, IndexError, ValueError) as e:
            raise type(e)(_with_source_line(str(e), func)) from None
    return _memoized(STATE.meta_cache, (func, vargs, tuple(sorted(vkwargs.items()))), compute)


def _is_view(func):
    rets = func._schema.returns
    return len(rets) > 0 and rets[0].alias_info is not None and not rets[0].alias_info.is_write


def _mutated_args(func):
    return [a for a in func._schema.arguments if a.alias_info is not None and a.alias_info.is_write]


def _functional_variant(func):
    """The functional op an in-place op (add_.Tensor: add.Tensor) or an out=
    op (add.out: add.Tensor) stands for."""
    name, overload = func.overloadpacket.__name__, func._overloadname
    if overload == "out" or overload.endswith("_out"):
        return _out_functional(func)
    if not name.endswith("_"):
        return None
    packet = getattr(aten, name[:-1], None)
    if packet is None:
        return None
    return getattr(packet, overload, None)


@functools.lru_cache(maxsize=None)
def _out_functional(func):
    """The overload of func's packet taking func's arguments but out=."""
    want = [(a.name, str(a.type)) for a in func._schema.arguments if a.name != "out"]
    for name in func.overloadpacket.overloads():
        op = getattr(func.overloadpacket, name)
        if [(a.name, str(a.type)) for a in op._schema.arguments] == want:
            return op
    return None


def dispatch(func, args, kwargs):
    """Runs one ATen op on tpurun.torch tensors."""
    STATE.counters["aten_ops"] += 1
    try:
        special = SPECIAL.get(func) or SPECIAL.get(func.overloadpacket)
        if special is not None:
            return special(func, args, kwargs)
        if func.overloadpacket.__name__.startswith("_foreach_"):
            return _foreach(func, args, kwargs)
        mutated = _mutated_args(func)
        if mutated:
            return _dispatch_inplace(func, args, kwargs, mutated)
        return _dispatch_functional(func, args, kwargs)
    except tpurun.TpuError as e:
        raise type(e)(_with_source_line(e.message, func), e.code) from None


def _foreach(func, args, kwargs):
    """A _foreach_X op (optimizers with foreach=True) as X on each element:
    list arguments are taken element by element, others passed to each."""
    base = getattr(aten, func.overloadpacket.__name__[len("_foreach_"):], None)
    if base is None:
        return _no_lowering(func, args, kwargs)
    n = len(args[0])
    keyword = {a.name for o in base.overloads() for a in getattr(base, o)._schema.arguments if a.kwarg_only}
    names = [a.name for a in func._schema.arguments]
    if "value" in keyword:  # _foreach_addcdiv_.ScalarList's per-tensor `scalars` are addcdiv's `value`
        names = ["value" if name in ("scalar", "scalars") else name for name in names]
    positional = [a for name, a in zip(names, args) if name not in keyword]
    named = dict(kwargs, **{name: a for name, a in zip(names, args) if name in keyword})

    def pick(a, i):
        return a[i] if isinstance(a, (list, tuple)) and len(a) == n else a
    results = [base(*[pick(a, i) for a in positional], **{k: pick(v, i) for k, v in named.items()})
               for i in range(n)]
    return results if func._schema.returns else None


def _lower(func, args, kwargs, fn):
    b = _builder_of(args, kwargs)
    conv = _to_value(b)
    vargs, vkwargs = _map(conv, args), _map(conv, kwargs)
    out = meta_out(func, vargs, vkwargs)
    return b, fn(b, out, *vargs, **vkwargs), out, vargs, vkwargs


def _wrap_all(res, b):
    return _map(lambda v: wrap(v, b) if isinstance(v, Value) else v, res)


def _dispatch_functional(func, args, kwargs):
    """An op that writes none of its arguments; a view op's results share
    the base's store and extend its view chain."""
    fn = lookup(func)
    if fn is None:
        return _no_lowering(func, args, kwargs)
    b, res, out, vargs, vkwargs = _lower(func, args, kwargs, fn)
    if isinstance(res, Mutated):
        _apply_updates(func, args, kwargs, res.updates)
        res = res.result
    if _is_view(func) and isinstance(args[0], Tensor) and func in VIEW_INVERSES:
        base = args[0]
        rest = tuple(vargs[1:])
        if isinstance(res, (list, tuple)):
            return [_view_tensor(base, ViewStep(func, rest, vkwargs, i, out), v) for i, v in enumerate(res)]
        return _view_tensor(base, ViewStep(func, rest, vkwargs, None, out), res)
    return _wrap_all(res, b)


def _view_tensor(base, step, value):
    return Tensor(base._store, base._chain + (step,), value=value, geometry=_view_geometry(base, step))


def _view_geometry(base, step):
    """The (strides, storage_offset) PyTorch gives this view of a strided
    base: autograd's CopySlices reads them (as_strided on the gradient).
    Cached per (op, base geometry, arguments)."""
    sizes, strides, offset = tuple(base.shape), base.stride(), base.storage_offset()

    def compute():
        extent = offset + 1 + sum((n - 1) * st for n, st in zip(sizes, strides) if n > 0)
        m = torch.empty(extent, dtype=base.dtype, device="meta").as_strided(sizes, strides, offset)
        try:
            r = step.func(m, *step.args, **step.kwargs)
            r = r[step.index] if step.index is not None else r
            return (r.stride(), r.storage_offset())
        except (RuntimeError, NotImplementedError, TypeError, IndexError, ValueError):
            return (None, None)
    key = (step.func, sizes, strides, offset, base.dtype, step.args, tuple(sorted(step.kwargs.items())), step.index)
    return _memoized(_GEOMETRY_CACHE, key, compute)


_GEOMETRY_CACHE = {}


def _dispatch_inplace(func, args, kwargs, mutated):
    """An op that overwrites arguments: its own lowering, or its functional
    variant's, whose result is assigned to the written argument."""
    name = func.overloadpacket.__name__
    if name in METADATA_INPLACE:
        return _metadata_inplace(func, args, kwargs)
    fn = lookup(func)
    target_name = mutated[0].name
    functional = None
    if fn is not None:
        b, res, *_ = _lower(func, args, kwargs, fn)
    else:
        functional = _functional_variant(func)
        fn = lookup(functional) if functional is not None else None
        if fn is None or len(mutated) != 1 or target_name not in ("self", "out"):
            return _no_lowering(func, args, kwargs)
        inputs = {k: v for k, v in kwargs.items() if k != "out"}
        b, res, *_ = _lower(functional, args, inputs, fn)
    if isinstance(res, Mutated):
        _apply_updates(func, args, kwargs, res.updates)
        return _named_arg(func, args, kwargs, target_name)
    target = _named_arg(func, args, kwargs, target_name)
    res = res[0] if isinstance(res, (tuple, list)) else res
    if functional is not None:
        _check_writable(func, target, target_name, res)
    if target_name == "out" and isinstance(target, Tensor) and tuple(res.shape) != tuple(target.shape):
        _resize_out(func, target, res)
    else:
        assign(target, res, b)
    return target


def _unaliased(t):
    """Whether t is neither a view nor aliased (no other tensor shares its
    store), so that its shape may change."""
    return not t._chain and sys.getrefcount(t._store) <= 2  # t._store and getrefcount's argument


def _resize_out(func, t, value):
    """An out= tensor of another shape than the result: resized to it, as
    PyTorch does, when unaliased; else NotImplementedError."""
    if not _unaliased(t):
        raise NotImplementedError(f"tpurun.torch: {func}: the out= tensor has shape {list(t.shape)}, the result "
                                  f"{list(value.shape)}; resizing a TPU tensor that is a view or aliased is not "
                                  f"supported: pass an out= of the result's shape")
    if t.numel() > 0:
        warnings.warn(f"An output with one or more elements was resized since it had shape {list(t.shape)}, which "
                      f"does not match the required output shape {list(value.shape)}.", UserWarning)
    _replace_whole(t, value)


def _replace_whole(t, value):
    """Unaliased t takes value (converted to its dtype) as its store's whole
    value, with PyTorch's metadata (shape, contiguous strides)."""
    st = t._store
    st.value, st.version = st.builder.convert(value, t.dtype), st.version + 1
    t._cached, t._seen = st.value, st.version
    torch.Tensor.data.__set__(t, Tensor(st))


_DTYPE_NAMES = {torch.float32: "Float", torch.float64: "Double", torch.float16: "Half", torch.bfloat16: "BFloat16",
                torch.int64: "Long", torch.int32: "Int", torch.int16: "Short", torch.int8: "Char",
                torch.uint8: "Byte", torch.bool: "Bool", torch.complex64: "ComplexFloat",
                torch.complex128: "ComplexDouble"}


def _dtype_name(dtype):
    """PyTorch's name of a dtype in messages: Float, Long, Bool, ..."""
    return _DTYPE_NAMES.get(dtype, str(dtype))


def _check_writable(func, target, target_name, res):
    """PyTorch's errors for an in-place or out= op whose result (a Value)
    does not fit its target: a dtype it cannot be cast to (int.add_(1.5)),
    or (in place) a broadcast shape other than the target's."""
    if isinstance(res.dtype, torch.dtype) and not torch.can_cast(res.dtype, target.dtype):
        raise RuntimeError(_with_source_line(f"result type {_dtype_name(res.dtype)} can't be cast to the desired "
                                             f"output type {_dtype_name(target.dtype)}", func))
    if target_name == "self" and tuple(res.shape) != tuple(target.shape):
        raise RuntimeError(_with_source_line(f"output with shape {list(target.shape)} doesn't match the broadcast "
                                             f"shape {list(res.shape)}", func))


METADATA_INPLACE = {"unsqueeze_", "squeeze_", "t_", "transpose_", "swapdims_", "swapaxes_", "as_strided_",
                    "resize_", "resize_as_"}

# The in-place shape changes supported (on unaliased tensors), by the view op they apply.
SHAPE_INPLACE = {aten.unsqueeze_.default: aten.unsqueeze.default, aten.squeeze_.default: aten.squeeze.default,
                 aten.squeeze_.dim: aten.squeeze.dim, aten.t_.default: aten.t.default,
                 aten.transpose_.default: aten.transpose.int}


def _metadata_inplace(func, args, kwargs):
    """An in-place op that changes the tensor's shape: those of
    SHAPE_INPLACE on a tensor that is neither a view nor aliased (no other
    tensor shares its store; torch.optim.Adamax's temporary) take the new
    value, whole and contiguous, and PyTorch's metadata; resize_ and
    resize_as_ to the tensor's own shape do nothing (as on the CPU); the
    others (and views, aliases) raise NotImplementedError."""
    t, name = args[0], func.overloadpacket.__name__
    if name in ("resize_", "resize_as_") and tuple(t.shape) == tuple(getattr(args[1], "shape", args[1])):
        return t
    view = SHAPE_INPLACE.get(func)
    if view is None or not isinstance(t, Tensor) or not _unaliased(t):
        raise NotImplementedError(
            f"tpurun.torch: {func} changes a tensor's shape in place, which TPU tensors support only for "
            f"unsqueeze_, squeeze_, t_ and transpose_ of a tensor that is neither a view nor aliased; use the "
            f"out-of-place form (x = x.{name[:-1]}(...))")
    b, res, *_ = _lower(view, args, kwargs, lookup(view))
    _replace_whole(t, res)
    return t


def _named_arg(func, args, kwargs, name):
    for i, a in enumerate(func._schema.arguments):
        if a.name == name:
            return args[i] if i < len(args) else kwargs[name]
    raise KeyError(name)


def _apply_updates(func, args, kwargs, updates):
    """Writes a lowering's Mutated updates into the named arguments."""
    for name, v in updates.items():
        t = _named_arg(func, args, kwargs, name)
        if isinstance(t, torch.Tensor):  # a CPU one too: a buffer (running stats) updated by a TPU op
            assign(t, v, _builder_of(args, kwargs))


def _no_lowering(func, args, kwargs):
    """An op without a lowering: PyTorch's decomposition, the CPU when
    allowed, else NotImplementedError naming the op and its operands."""
    from torch._decomp import decomposition_table
    decomp = decomposition_table.get(func)
    if decomp is not None:
        STATE.counters["decompositions"] += 1
        return decomp(*args, **kwargs)
    if STATE.allow_cpu_fallback:
        return _cpu_fallback(func, args, kwargs)
    types = ", ".join(_describe(a) for a in _leaves((args, kwargs)) if isinstance(a, torch.Tensor))
    raise NotImplementedError(
        f"tpurun.torch: no lowering of {func} to StableHLO (operands: {types}); "
        f"tpurun.torch.set_cpu_fallback(True) runs such ops on the CPU instead")


def _describe(t):
    kind = "tpu" if isinstance(t, Tensor) else "cpu"
    return f"{kind} {type_str(t.shape, t.dtype)}"


def _cpu_fallback(func, args, kwargs):
    """Runs func on CPU copies and moves the results back (counted): the
    arguments the schema marks as written get their new data, and a result
    that is one of them is that argument itself."""
    STATE.counters["cpu_fallbacks"] += 1
    b = _builder_of(args, kwargs)
    cpu_args = _map(lambda x: to_cpu(x) if isinstance(x, Tensor) else x, (args, kwargs))
    res = func(*cpu_args[0], **cpu_args[1])
    originals = {}
    for a in _mutated_args(func):
        try:
            written, cpu_written = _named_arg(func, args, kwargs, a.name), _named_arg(func, *cpu_args, a.name)
        except KeyError:  # an optional argument not given
            continue
        for t, cpu_t in zip(_leaves(written), _leaves(cpu_written)):
            if isinstance(t, Tensor):
                assign(t, upload(cpu_t, b))
                originals[id(cpu_t)] = t

    def back(x):
        if not isinstance(x, torch.Tensor):
            return x
        return originals[id(x)] if id(x) in originals else wrap(upload(x, b), b)
    return _map(back, res)


# ---- ops handled here, not by a lowering -----------------------------------

def _alias(func, args, kwargs):
    t = args[0]
    return Tensor(t._store, t._chain, value=value_of(t), geometry=(t.stride(), t.storage_offset()))


def _clone(func, args, kwargs):
    t = args[0]
    return wrap(value_of(t), t._store.builder)


def _to_copy(func, args, kwargs):
    t = args[0]
    dtype = kwargs.get("dtype") or t.dtype
    device = kwargs.get("device")
    if device is not None and torch.device(device).type not in ("cpu",):
        raise RuntimeError(f"tpurun.torch: cannot move a TPU tensor to {device}; use tpurun.torch.to_cpu")
    b = t._store.builder
    return wrap(b.convert(value_of(t), dtype), b)


def _copy_(func, args, kwargs):
    dst, src = args[0], args[1]
    if not isinstance(dst, Tensor):  # cpu.copy_(tpu): a device transfer
        _write_cpu(dst, value_of(src), src._store.builder)
        return dst
    b = dst._store.builder
    v = value_of(src) if isinstance(src, Tensor) else upload(src, b) if isinstance(src, torch.Tensor) else None
    if v is None:
        v = b.scalar(src, dst.dtype)
    assign(dst, v)
    return dst


def _compatible_shallow_copy_type(func, args, kwargs):
    """Whether set_data (x.data = y) may take y's data into x: both TPU tensors."""
    return isinstance(args[0], Tensor) and isinstance(args[1], Tensor)


def _local_scalar_dense(func, args, kwargs):
    return to_cpu(args[0]).item()


def _as_strided(func, args, kwargs):
    """as_strided addresses the storage: on a view, its base is the store's
    whole value (a root tensor is contiguous from offset 0)."""
    t = args[0]
    if t._chain:
        args = (Tensor(t._store),) + tuple(args[1:])
    return _dispatch_functional(func, args, kwargs)


SPECIAL = {
    aten.as_strided.default: _as_strided,
    aten.detach.default: _alias,
    aten.alias.default: _alias,
    aten.lift_fresh.default: _alias,
    aten.clone.default: _clone,
    aten.lift_fresh_copy.default: _clone,
    aten._to_copy.default: _to_copy,
    aten.copy_.default: _copy_,
    aten._local_scalar_dense.default: _local_scalar_dense,
    aten._has_compatible_shallow_copy_type.default: _compatible_shallow_copy_type,
}


# ---- errors with the user's source line ---------------------------------------

_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_TORCH_DIR = os.path.dirname(os.path.abspath(torch.__file__))


def user_frame():
    """The innermost stack frame outside tpurun and torch: the user's line."""
    for fs in reversed(traceback.extract_stack()):
        f = os.path.abspath(fs.filename)
        if not (f.startswith(_PKG_DIR) or f.startswith(_TORCH_DIR) or fs.filename.startswith("<frozen")):
            return fs
    return None


def _with_source_line(message, func):
    fs = user_frame()
    where = f"{fs.filename}:{fs.lineno}" + (f": {fs.line}" if fs.line else "") if fs else "an unknown line"
    return f"{message}\n  from {func} at {where}"


# ---- public conversions ------------------------------------------------------

def _apply_to_module(m, fn):
    """m._apply(fn), replacing the parameters rather than setting their .data
    (a CPU Parameter cannot take a TPU tensor's data, nor the reverse),
    under STATE.lock (the switch is global).  A tensor shared by several
    slots (tied weights) stays one tensor: converted once, the first
    slot's new Parameter put in the others."""
    slots = {}
    for mod in m.modules():
        for kind in ("_parameters", "_buffers"):
            for key, t in getattr(mod, kind).items():
                if t is not None:
                    slots.setdefault(id(t), []).append((getattr(mod, kind), key))
    converted = {}

    def once(t):
        if id(t) not in converted:
            converted[id(t)] = (t, fn(t))  # t kept alive: its id stays unique
        return converted[id(t)][1]
    with STATE.lock:
        old = torch.__future__.get_overwrite_module_params_on_conversion()
        torch.__future__.set_overwrite_module_params_on_conversion(True)
        try:
            m._apply(once)
        finally:
            torch.__future__.set_overwrite_module_params_on_conversion(old)
    for group in slots.values():
        first_table, first_key = group[0]
        for table, key in group[1:]:
            table[key] = first_table[first_key]
    return m


def to_tpu(x, builder=None):
    """A tensor (or every parameter and buffer of an nn.Module, in place) on the TPU."""
    b = builder or default_builder()
    if isinstance(x, torch.nn.Module):
        return _apply_to_module(x, lambda t: to_tpu(t, b))
    if isinstance(x, Tensor):
        return x
    if not isinstance(x, torch.Tensor):
        x = torch.as_tensor(x)
    t = wrap(upload(x, b), b)
    if x.requires_grad:
        t.requires_grad_(True)
    return t


def to_cpu(x):
    """A tensor (or every parameter and buffer of an nn.Module) back on the CPU: waits for it."""
    if isinstance(x, torch.nn.Module):
        return _apply_to_module(x, to_cpu)
    if not isinstance(x, Tensor):
        return x
    b = x._store.builder
    if not isinstance(b, EagerBuilder):
        raise RuntimeError("tpurun.torch: a traced tensor has no data (inside export)")
    STATE.counters["host_reads"] += 1
    v = value_of(x)
    try:
        return b.to_torch(v)
    except tpurun.TpuError as e:
        raise type(e)(_with_source_line(e.message, "a host read"), e.code) from None

