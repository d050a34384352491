"""Helpers the PyTorch-bridge tests share: run a function on CPU tensors and
on TPU tensors, compare results and gradients."""
import torch
from torch.utils._pytree import tree_flatten, tree_map

import tpurun.torch as tt

# check.expect_almost_eq's default tolerance in StableHLO's tests: 1e-4.
RTOL = 1e-4
ATOL = 1e-4


def to_cpu_tree(x):
    return tree_map(lambda t: tt.to_cpu(t) if isinstance(t, torch.Tensor) else t, x)


def assert_close(tpu, cpu, rtol=RTOL, atol=ATOL, what="result"):
    """tpu (moved to the CPU) equals cpu: same structure, shapes, dtypes;
    values allclose (exactly for integer and bool tensors)."""
    got, want = tree_flatten(to_cpu_tree(tpu))[0], tree_flatten(cpu)[0]
    assert len(got) == len(want), f"{what}: {len(got)} outputs, expected {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        if not isinstance(w, torch.Tensor):
            assert g == w or (isinstance(w, float) and abs(g - w) <= atol + rtol * abs(w)), f"{what}[{i}]: {g} != {w}"
            continue
        assert isinstance(g, torch.Tensor) and not tt.is_tpu(g), f"{what}[{i}]: not a tensor: {g!r}"
        assert g.shape == w.shape, f"{what}[{i}]: shape {tuple(g.shape)}, expected {tuple(w.shape)}"
        assert g.dtype == w.dtype, f"{what}[{i}]: dtype {g.dtype}, expected {w.dtype}"
        if w.is_floating_point() or w.is_complex():
            torch.testing.assert_close(g, w, rtol=rtol, atol=atol, equal_nan=True, msg=lambda m: f"{what}[{i}]: {m}")
        else:
            assert torch.equal(g, w), f"{what}[{i}]: {g} != {w}"


def run_both(fn, *inputs, grad=True, rtol=RTOL, atol=ATOL, seed=0):
    """Checks fn(*inputs) on the TPU against the CPU, forward and (for float
    inputs, when grad) backward with a seeded random cotangent.  Returns
    (tpu result, cpu result)."""
    def prep(x, tpu):
        if not isinstance(x, torch.Tensor):
            return x
        y = tt.to_tpu(x.detach().clone()) if tpu else x.detach().clone()
        if grad and (x.is_floating_point() or x.is_complex()):
            y.requires_grad_(True)
        return y
    cpu_in = [prep(x, False) for x in inputs]
    tpu_in = [prep(x, True) for x in inputs]
    want = fn(*cpu_in)
    got = fn(*tpu_in)
    assert_close(got, want, rtol, atol, "forward")
    if grad:
        outs_c = [o for o in tree_flatten(want)[0] if isinstance(o, torch.Tensor) and o.requires_grad]
        outs_t = [o for o in tree_flatten(got)[0] if isinstance(o, torch.Tensor) and o.requires_grad]
        assert len(outs_c) == len(outs_t)
        if outs_c:
            g = torch.Generator().manual_seed(seed)
            cots = [torch.randn(o.shape, generator=g, dtype=o.dtype) for o in outs_c]
            sum((o * c).sum() for o, c in zip(outs_c, cots)).backward()
            sum((o * tt.to_tpu(c)).sum() for o, c in zip(outs_t, cots)).backward()
            for i, (a, b) in enumerate(zip(tpu_in, cpu_in)):
                if isinstance(b, torch.Tensor) and b.requires_grad:
                    assert (a.grad is None) == (b.grad is None), f"grad of input {i}: presence differs"
                    if b.grad is not None:
                        assert_close(a.grad, b.grad, rtol, atol, f"grad of input {i}")
    return got, want
