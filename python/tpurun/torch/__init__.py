"""tpurun.torch: PyTorch on the simulated TPU (DESIGN.md §9, docs/python.md).

    import torch, tpurun.torch as tt
    tt.set_mode("fused")                 # or "strict" / "debug", or TPU_EAGER_MODE
    model = tt.to_tpu(torch.nn.Linear(4, 2))
    x = tt.to_tpu(torch.randn(3, 4))
    loss = model(x).square().mean()
    loss.backward()                      # autograd runs above the TPU tensors
    print(loss.item(), tt.metrics())
    text = tt.export(model.cpu(), torch.randn(3, 4))   # StableHLO for tpucc

Every ATen op on a TPU tensor is lowered to StableHLO ops and run through
libtpurun's eager API in the client's mode.  An op without a lowering
raises NotImplementedError naming it, unless set_cpu_fallback(True).
"""
import tpurun

from . import _tensor
from ._tensor import STATE, Tensor, to_cpu, to_tpu
from . import lower_pointwise, lower_reduce, lower_shape, lower_nn, lower_loss  # noqa: F401  (register lowerings)
from ._export import export

__all__ = ["Tensor", "to_tpu", "to_cpu", "set_mode", "get_mode", "sync", "metrics", "export",
           "set_cpu_fallback", "manual_seed", "configure", "is_tpu", "client"]


def configure(allow_cpu_fallback=None, **options):
    """allow_cpu_fallback: see set_cpu_fallback (any time).  The other
    options are the package's client's (tpurun.Client's arguments: target,
    threads, opt_level, no_disk_cache, ...), given before its first use."""
    if allow_cpu_fallback is not None:
        set_cpu_fallback(allow_cpu_fallback)
    if not options:
        return
    if STATE.client is not None:
        raise RuntimeError("tpurun.torch.configure: the client already exists; configure before the first op")
    STATE.client_options.update(options)


def client():
    """The package's tpurun.Client (created on first use)."""
    return _tensor.default_builder().client


def set_mode(mode):
    """Eager mode for ops issued from now on: "debug", "strict" or "fused"."""
    if mode not in tpurun.MODES:
        raise ValueError(f"tpurun.torch.set_mode: {mode!r} is not one of {sorted(tpurun.MODES)}")
    STATE.mode = mode
    if STATE.client is not None:
        STATE.client.mode = mode


def get_mode():
    """The current eager mode's name."""
    if STATE.client is not None:
        return STATE.client.mode
    return _tensor.default_builder().client.mode


def sync():
    """Waits for every queued op (materializes Fused graphs); raises the first error."""
    if STATE.client is not None:
        STATE.client.sync()


def metrics():
    """The client's counters (tpurun.Client.metrics) plus the bridge's own:
    ATen ops dispatched, decompositions, CPU fallbacks, host uploads and reads."""
    m = client().metrics()
    m["torch"] = dict(STATE.counters)
    return m


def set_cpu_fallback(allow=True):
    """Lets ops without a lowering run on the CPU (counted as cpu_fallbacks)."""
    STATE.allow_cpu_fallback = bool(allow)


def manual_seed(seed):
    """Seeds the TPU's random generator (dropout, rand, ...): the same seed
    gives the same numbers in every mode."""
    STATE.seed = int(seed)
    if STATE.builder is not None:
        STATE.builder.rng = None


def is_tpu(x):
    """True for a tensor on the simulated TPU."""
    return isinstance(x, Tensor)
