"""Random numbers on the TPU (lower_pointwise.py): dropout, bernoulli, uniform,
normal; seeded by tpurun.torch.manual_seed, the same bits in every mode."""
import pytest
import torch
import torch.nn.functional as F

import tpurun.torch as tt
from conftest import MODES
from torchcheck import assert_close

aten = torch.ops.aten
N = 4096


def ones_tpu(*shape, requires_grad=False):
    t = tt.to_tpu(torch.ones(*shape))
    return t.requires_grad_(True) if requires_grad else t


def draws():
    """One of each random op from a fresh seed, on the CPU."""
    tt.manual_seed(1234)
    x = ones_tpu(8, 16)
    out = [F.dropout(x, 0.3, True), aten.native_dropout(x, 0.6, True)[1], torch.rand_like(x),
           torch.randn_like(x), torch.empty_like(x).uniform_(-2, 2), torch.empty_like(x).normal_(3, 0.5),
           torch.bernoulli(x * 0.25), torch.empty_like(x).bernoulli_(0.75)]
    return [tt.to_cpu(t) for t in out]


def test_same_seed_same_bits_in_every_mode():
    before = tt.get_mode()
    try:
        runs = []
        for m in MODES:
            tt.set_mode(m)
            runs.append(draws())
            tt.sync()
    finally:
        tt.set_mode(before)
    for other in runs[1:]:
        for a, b in zip(runs[0], other):
            assert torch.equal(a, b)


def test_seeds(mode):
    x = ones_tpu(N)
    tt.manual_seed(7)
    a = tt.to_cpu(torch.rand_like(x))
    b = tt.to_cpu(torch.rand_like(x))
    tt.manual_seed(7)
    c = tt.to_cpu(torch.rand_like(x))
    tt.manual_seed(8)
    d = tt.to_cpu(torch.rand_like(x))
    assert torch.equal(a, c) and not torch.equal(a, b) and not torch.equal(a, d)


def test_default_seed_is_torch_initial_seed():
    from tpurun.torch._tensor import STATE
    seed = STATE.seed
    try:
        STATE.seed = None
        tt.manual_seed(0)  # drops the builder's state
        STATE.seed = None
        torch.manual_seed(99)
        a = tt.to_cpu(torch.rand_like(ones_tpu(16)))
        tt.manual_seed(99)
        b = tt.to_cpu(torch.rand_like(ones_tpu(16)))
    finally:
        STATE.seed = seed
    assert torch.equal(a, b)


@pytest.mark.parametrize("p", [0.1, 0.5, 0.8])
def test_dropout_keep_fraction_scale_and_backward(mode, p):
    tt.manual_seed(3)
    x = ones_tpu(N, requires_grad=True)
    y = F.dropout(x, p, True)
    y.backward(tt.to_tpu(torch.ones(N)))
    got, grad = tt.to_cpu(y.detach()), tt.to_cpu(x.grad)
    kept = got != 0
    sigma = (p * (1 - p) / N) ** 0.5
    assert abs(kept.float().mean().item() - (1 - p)) < 5 * sigma
    torch.testing.assert_close(got[kept], torch.full_like(got[kept], 1 / (1 - p)))
    torch.testing.assert_close(grad, got)


def test_native_dropout_and_backward(mode):
    tt.manual_seed(4)
    x = tt.to_tpu(torch.randn(N))
    y, mask = aten.native_dropout(x, 0.25, True)
    y, mask, xc = tt.to_cpu(y), tt.to_cpu(mask), tt.to_cpu(x)
    assert mask.dtype == torch.bool
    assert abs(mask.float().mean().item() - 0.75) < 5 * (0.25 * 0.75 / N) ** 0.5
    torch.testing.assert_close(y, xc * mask / 0.75)
    g = torch.randn(N)
    back = aten.native_dropout_backward(tt.to_tpu(g), tt.to_tpu(mask), 1 / 0.75)
    assert_close(back, g * mask / 0.75)


def test_native_dropout_edge_cases(mode):
    x = tt.to_tpu(torch.randn(5, 3))
    xc = tt.to_cpu(x)
    all_true = torch.ones(5, 3, dtype=torch.bool)
    for p, train in ((0.0, True), (0.5, False)):
        assert_close(aten.native_dropout(x, p, train), (xc, all_true))
    with pytest.raises(ZeroDivisionError):  # as on the CPU (PyTorch 1.13)
        aten.native_dropout(x, 1.0, True)
    y = tt.to_tpu(torch.randn(5, 3)).requires_grad_(True)
    F.dropout(y, 1.0, True).sum().backward()
    assert_close(F.dropout(y, 1.0, True), torch.zeros(5, 3))
    assert_close(y.grad, torch.zeros(5, 3))


def test_dropout_eval_is_identity(mode):
    x = tt.to_tpu(torch.randn(4, 5))
    assert_close(F.dropout(x, 0.5, training=False), tt.to_cpu(x))
    layer = torch.nn.Dropout(0.5).eval()
    assert_close(layer(x), tt.to_cpu(x))
    assert_close(F.dropout(x, 0.0, training=True), tt.to_cpu(x))


def test_bernoulli(mode):
    tt.manual_seed(5)
    x = ones_tpu(N)
    a = tt.to_cpu(torch.empty_like(x).bernoulli_(0.3))
    b = tt.to_cpu(torch.bernoulli(x * 0.6))
    c = tt.to_cpu(torch.bernoulli(x, 0.9))
    for t, p in ((a, 0.3), (b, 0.6), (c, 0.9)):
        assert set(t.unique().tolist()) <= {0.0, 1.0}
        assert abs(t.mean().item() - p) < 5 * (p * (1 - p) / N) ** 0.5
    assert_close(torch.empty_like(x).bernoulli_(0.0), torch.zeros(N))
    assert_close(torch.empty_like(x).bernoulli_(1.0), torch.ones(N))


def test_uniform_and_rand_like(mode):
    tt.manual_seed(6)
    x = ones_tpu(N)
    u = tt.to_cpu(torch.rand_like(x))
    assert u.min() >= 0 and u.max() < 1 and abs(u.mean().item() - 0.5) < 0.03
    v = tt.to_cpu(torch.empty_like(x).uniform_(-3, 1))
    assert v.min() >= -3 and v.max() < 1 and abs(v.mean().item() + 1) < 0.12
    d = tt.to_cpu(torch.rand_like(x, dtype=torch.float64))
    assert d.dtype == torch.float64 and d.min() >= 0 and d.max() < 1


def test_normal_and_randn_like(mode):
    tt.manual_seed(7)
    x = ones_tpu(N)
    z = tt.to_cpu(torch.randn_like(x))
    assert torch.isfinite(z).all()
    assert abs(z.mean().item()) < 0.08 and abs(z.std().item() - 1) < 0.06
    w = tt.to_cpu(torch.empty_like(x).normal_(2.0, 0.5))
    assert abs(w.mean().item() - 2) < 0.04 and abs(w.std().item() - 0.5) < 0.03


def test_nn_init_on_parameters(mode):
    tt.manual_seed(8)
    w = torch.nn.Parameter(tt.to_tpu(torch.empty(64, 64)))
    with torch.no_grad():
        torch.nn.init.kaiming_uniform_(w, a=5 ** 0.5)
        bound = 1 / 8
        got = tt.to_cpu(w.detach())
        assert got.abs().max() <= bound and got.std() > bound / 3
        torch.nn.init.trunc_normal_(w, std=0.02)
        got = tt.to_cpu(w.detach())
        assert got.abs().max() <= 2 and abs(got.std().item() - 0.02) < 0.003
        torch.nn.init.xavier_normal_(w)
        assert abs(tt.to_cpu(w.detach()).std().item() - (2 / 128) ** 0.5) < 0.01
        torch.nn.init.zeros_(w)
        torch.nn.init.constant_(w[:2], 0.5)
        got = tt.to_cpu(w.detach())
        assert got[:2].eq(0.5).all() and got[2:].eq(0).all()
    assert tt.is_tpu(w) and w.requires_grad
