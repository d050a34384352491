"""Differential fuzzing of tpurun.torch: random chains of ATen ops (element-wise,
broadcasting, reductions, views, in-place writes through views) run on PyTorch
CPU and on the TPU, compared value for value, with gradients.

`make check` runs a fixed, derandomized sample (FUZZ_EXAMPLES, default 40 per
mode); `make fuzz-python` runs many more with fresh randomness
(TPU_FUZZ_EXAMPLES, TPU_FUZZ_SEED)."""
import os

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tpurun.torch as tt
from torchcheck import assert_close

EXAMPLES = int(os.environ.get("TPU_FUZZ_EXAMPLES", "40"))
RANDOM = os.environ.get("TPU_FUZZ_RANDOM") == "1"

UNARY = [torch.neg, torch.abs, torch.tanh, torch.sigmoid, torch.exp, torch.relu, torch.sin,
         lambda x: x * 0.5, lambda x: x.clamp(-1, 1), lambda x: torch.nn.functional.gelu(x),
         lambda x: x.softmax(-1), lambda x: x.log_softmax(0) if x.dim() else x]
BINARY = [torch.add, torch.sub, torch.mul, torch.maximum, torch.minimum,
          lambda a, b: torch.where(a > b, a, b), lambda a, b: a / (b.abs() + 1)]
REDUCE = [lambda x, d: x.sum(d), lambda x, d: x.mean(d, keepdim=True), lambda x, d: x.amax(d),
          lambda x, d: x.var(d) if x.shape[d] > 1 else x.sum(d)]
VIEWS = [lambda x: x.t() if x.dim() == 2 else x, lambda x: x.reshape(-1), lambda x: x.unsqueeze(0),
         lambda x: x[1:] if x.dim() and x.shape[0] > 1 else x, lambda x: x.flip(0) if x.dim() else x,
         lambda x: x[..., ::2] if x.dim() else x]


@st.composite
def programs(draw):
    """A starting shape and a list of (kind, op index, extra) steps."""
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=0, max_size=3)))
    steps = draw(st.lists(st.tuples(st.sampled_from(["unary", "binary", "reduce", "view", "inplace"]),
                                    st.integers(0, 99), st.integers(0, 99)), min_size=1, max_size=6))
    return shape, steps


def partner(x, y):
    """y when it broadcasts against x (x's last dim is y's length), else y summed to a scalar."""
    if x.dim() and y.dim() and x.shape[-1] == y.shape[0]:
        return y
    return y.sum()


def run(program, x, y):
    """The program applied to x (and y, broadcast against it), on whatever device they are."""
    shape, steps = program
    for kind, i, j in steps:
        if kind == "unary":
            x = UNARY[i % len(UNARY)](x)
        elif kind == "binary":
            x = BINARY[i % len(BINARY)](x, partner(x, y))
        elif kind == "reduce" and x.dim():
            x = REDUCE[i % len(REDUCE)](x, j % x.dim())
        elif kind == "view":
            x = VIEWS[i % len(VIEWS)](x)
        elif kind == "inplace" and x.dim():
            x = x.clone()
            x[j % x.shape[0]].mul_(1.5).add_(0.25)
    return x


@pytest.mark.parametrize("mode", ["debug", "strict", "fused"])
def test_random_op_chains_match_cpu(mode):
    tt.set_mode(mode)

    @settings(max_examples=EXAMPLES, derandomize=not RANDOM, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(programs(), st.integers(0, 2**31 - 1))
    def check(program, seed):
        g = torch.Generator().manual_seed(seed)
        x = torch.randn(program[0], generator=g)
        y = torch.randn(program[0][-1:] if program[0] else (), generator=g)
        xc, yc = x.clone().requires_grad_(True), y.clone().requires_grad_(True)
        xt, yt = tt.to_tpu(x).requires_grad_(True), tt.to_tpu(y).requires_grad_(True)
        want, got = run(program, xc, yc), run(program, xt, yt)
        assert_close(got.detach(), want.detach(), rtol=1e-4, atol=1e-5)
        if want.requires_grad:
            want.sum().backward()
            got.sum().backward()
            for a, b in ((xt, xc), (yt, yc)):
                assert (a.grad is None) == (b.grad is None)
                if b.grad is not None:
                    assert_close(a.grad, b.grad, rtol=1e-4, atol=1e-5, what="grad")

    check()
    tt.set_mode("strict")
