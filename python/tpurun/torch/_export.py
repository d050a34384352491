"""tpurun.torch.export: a PyTorch module as StableHLO text (the ahead-of-time path).

The module is traced twice.  First torch.fx's make_fx records the ATen ops
of functional_call(module, state, inputs) as a graph whose placeholders are
the module's parameters and buffers, then the inputs.  Then that graph runs
on tpurun.torch tensors whose builder is a TraceBuilder: the lowerings that
serve eager execution write the function's body as text.  The module is
written as a JAX export writes one: weights and inputs are arguments named
by jax.arg_info, results named by jax.result_info.
"""
import re

import torch
from torch.fx.experimental.proxy_tensor import make_fx
from torch.nn.utils import stateless
from torch.utils._pytree import tree_flatten

from ._builder import TraceBuilder
from ._tensor import Tensor, to_cpu, upload, value_of, wrap


def export(module, *example_inputs):
    """StableHLO text of module(*example_inputs) that tpucc compiles: one
    public @main taking the module's parameters and buffers (named like
    "0.weight"), then the tensor inputs (named "args[i]"), and returning
    the flattened outputs ("result", or "result[i]" for several).  The
    module is traced as given (train or eval mode), without gradients and
    without changing its buffers (BatchNorm's running statistics);
    tensors it captures that are neither parameters nor buffers become
    constants; non-tensor inputs are fixed at their example values.  A
    module that draws random numbers (dropout in train mode) takes the
    generator's state last, as a 2 x ui64 argument named "rng_state".
    A plain callable (a function, a lambda) is exported as a module
    without state.  Tensors inside list, tuple or dict inputs would be
    fixed as constants: they raise TypeError (pass them as separate tensor
    arguments)."""
    module = _as_module(module)
    _check_inputs(example_inputs)
    names, groups, weights = _module_state(module)
    tensor_pos = [i for i, x in enumerate(example_inputs) if isinstance(x, torch.Tensor)]
    inputs = [to_cpu(example_inputs[i]).detach().clone() for i in tensor_pos]

    def call(*flat):
        state = {name: flat[k] for k, group in enumerate(groups) for name in group}
        args = list(example_inputs)
        for i, x in zip(tensor_pos, flat[len(groups):]):
            args[i] = x
        return stateless.functional_call(module, state, tuple(args))

    graph = _trace(module, call, weights + inputs)
    b = _ExportBuilder()
    traced = [wrap(b.argument(w.shape, w.dtype, name), b) for name, w in zip(names, weights)]
    traced += [wrap(b.argument(x.shape, x.dtype, f"args[{i}]"), b) for i, x in zip(tensor_pos, inputs)]
    with torch.no_grad():
        outputs = graph(*traced)
    results = _results(b, outputs)
    return _module_text(_module_name(module), b, results)


class _Function(torch.nn.Module):
    """A plain callable as a module without parameters (named after it)."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        return self.fn(*args)


def _as_module(module):
    """module itself, a callable wrapped in _Function, else TypeError."""
    if isinstance(module, torch.nn.Module):
        return module
    if callable(module):
        return _Function(module)
    raise TypeError(f"tpurun.torch.export takes an nn.Module (or a function), not a {type(module).__name__}")


def _check_inputs(example_inputs):
    """TypeError for a tensor nested in a list, tuple or dict input."""
    for i, x in enumerate(example_inputs):
        if isinstance(x, (list, tuple, dict)) and any(isinstance(leaf, torch.Tensor) for leaf in tree_flatten(x)[0]):
            raise TypeError(f"tpurun.torch.export: input {i} is a {type(x).__name__} holding tensors, which would be "
                            f"fixed as constants; pass them as separate tensor arguments")


class _ExportBuilder(TraceBuilder):
    """A TraceBuilder whose random generator state (b.rng, see
    lower_pointwise.rng_state) is an argument named "rng_state" (2 x ui64,
    THREE_FRY's key), added when a random op (train-mode dropout) first
    draws, as a JAX export takes its key."""

    def __init__(self):
        super().__init__()
        self._rng = None

    @property
    def rng(self):
        if self._rng is None:
            self._rng = self.argument((2,), "ui64", "rng_state")
        return self._rng

    @rng.setter
    def rng(self, value):
        self._rng = value


def _module_state(module):
    """(names, groups, tensors) of the module's distinct parameters and
    buffers in definition order: groups[k] lists every name of tensor k
    (tied weights have several), names[k] its first."""
    by_id, groups, tensors = {}, [], []
    mods = list(module.named_modules(remove_duplicate=False))
    items = [(f"{prefix}.{k}" if prefix else k, t) for attr in ("_parameters", "_buffers")
             for prefix, mod in mods for k, t in getattr(mod, attr).items()]
    for name, t in items:
        if t is None:
            continue
        k = by_id.get(id(t))
        if k is None:
            k = by_id[id(t)] = len(tensors)
            groups.append([])
            tensors.append(to_cpu(t).detach().clone())
        groups[k].append(name)
    return [g[0] for g in groups], groups, tensors


def _trace(module, call, flat_inputs):
    """The ATen graph of call(*flat_inputs) (make_fx, no gradients); a
    clear error for data-dependent Python control flow."""
    try:
        with torch.no_grad():
            return make_fx(call)(*flat_inputs)
    except RuntimeError as e:
        if "value out of a tracing tensor" in str(e):
            raise RuntimeError(
                f"tpurun.torch.export: {type(module).__name__} reads a tensor's value in Python (data-dependent "
                f"control flow such as `if x.sum() > 0`, .item(), .tolist()), which a traced program cannot do; "
                f"write it with tensor ops (torch.where) or fix the value outside the module") from e
        raise


def _results(b, outputs):
    """[(jax.result_info, Value)] of the module's outputs, flattened."""
    leaves = tree_flatten(outputs)[0]
    paths = _leaf_paths(outputs)
    results = []
    for path, leaf in zip(paths, leaves):
        if isinstance(leaf, Tensor):
            v = value_of(leaf)
        elif isinstance(leaf, torch.Tensor):
            v = upload(leaf, b)
        elif isinstance(leaf, (bool, int, float)):
            v = b.constant(leaf, torch.tensor(leaf).dtype)
        else:
            raise TypeError(f"tpurun.torch.export: output {path} is a {type(leaf).__name__}, not a tensor")
        results.append((path, v))
    if not results:
        raise ValueError("tpurun.torch.export: the module returns no tensor")
    return results


def _leaf_paths(x, prefix="result"):
    """The jax.result_info name of each leaf of x, in tree_flatten's order."""
    if isinstance(x, (list, tuple)):
        return [p for i, y in enumerate(x) for p in _leaf_paths(y, f"{prefix}[{i}]")]
    if isinstance(x, dict):
        return [p for k in x for p in _leaf_paths(x[k], f"{prefix}[{k!r}]")]
    return [prefix]


def _quote(s):
    """s as an MLIR string literal."""
    return '"' + s.replace("\\", "\\5C").replace('"', "\\22") + '"'


def _module_name(module):
    """@jit_<class name> (a function's name for a _Function), as a symbol name."""
    name = getattr(module.fn, "__name__", "function") if isinstance(module, _Function) else type(module).__name__
    return "jit_" + re.sub(r"[^A-Za-z0-9_]", "_", name)


def _module_text(name, b, results):
    """The whole module: attributes of a JAX export, @main's signature, the
    traced body and its return."""
    params = ", ".join(f"{v.ref}: {v.type}" + (f" {{jax.arg_info = {_quote(info)}}}" if info else "")
                       for v, info in b.args)
    rets = ", ".join(f"{v.type} {{jax.result_info = {_quote(path)}}}" for path, v in results)
    lines = [f"module @{name} attributes {{jax.uses_shape_polymorphism = false, "
             f"mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32}} {{",
             f"  func.func public @main({params}) -> ({rets}) {{"]
    lines += ["    " + line.replace("\n", "\n    ") for line in b.lines]
    values = ", ".join(v.ref for _, v in results)
    types = ", ".join(v.type for _, v in results)
    lines += [f"    return {values} : {types}", "  }", "}", ""]
    return "\n".join(lines)
