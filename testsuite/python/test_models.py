"""End-to-end tests of tpurun.torch on whole models (models.py): forward
passes against PyTorch CPU in every mode, and training loops whose losses
follow the CPU's, whose Debug and Strict runs agree bit for bit, and whose
Fused run compiles its step once."""
import copy

import pytest
import torch
from torch.nn import functional as F

import tpurun.torch as tt
from models import MLP, BertConfig, BertEncoder, SmallCNN, TinyLM
from torchcheck import assert_close

MODES = ("debug", "strict", "fused")
STEPS = 20


@pytest.fixture(autouse=True)
def _restore_mode():
    """Tests that switch modes themselves leave the mode they found."""
    before = tt.get_mode()
    yield
    tt.sync()
    tt.set_mode(before)


def _forward_both(model, *inputs, rtol=1e-4, atol=1e-4):
    """model(*inputs) on the TPU (a copy of the model) equals the CPU's, and
    so do the buffers afterwards (BatchNorm's running statistics)."""
    tpu_model = tt.to_tpu(copy.deepcopy(model))
    with torch.no_grad():
        want = model(*inputs)
        got = tpu_model(*[tt.to_tpu(x) for x in inputs])
    assert_close(got, want, rtol, atol)
    for (name, got_buf), want_buf in zip(tpu_model.named_buffers(), model.buffers()):
        assert_close(got_buf, want_buf, rtol, atol, f"buffer {name}")


def _bert_inputs(cfg, batch=2, seq=8, seed=0):
    g = torch.Generator().manual_seed(seed)
    ids = torch.randint(0, cfg.vocab_size, (batch, seq), generator=g)
    mask = torch.ones(batch, seq, dtype=torch.int64)
    mask[1, seq - 3:] = 0
    return ids, mask


def test_bert_forward(mode):
    torch.manual_seed(0)
    cfg = BertConfig()
    model = BertEncoder(cfg).eval()
    _forward_both(model, *_bert_inputs(cfg))


@pytest.mark.parametrize("train", [False, True], ids=["eval", "train"])
def test_cnn_forward(mode, train):
    torch.manual_seed(0)
    model = SmallCNN().train(train)
    x = torch.randn(2, 3, 8, 8)
    _forward_both(model, x)


# ---- training loops ------------------------------------------------------------

def _mlp_setup():
    """(model, batches, loss(model, batch)) of a small regression problem."""
    torch.manual_seed(0)
    model = MLP((16, 32, 32, 4))
    g = torch.Generator().manual_seed(1)
    batches = [(torch.randn(8, 16, generator=g), torch.randn(8, 4, generator=g)) for _ in range(STEPS)]
    return model, batches, lambda m, b: F.mse_loss(m(b[0]), b[1])


def _lm_setup(dropout=0.0):
    """(model, batches, loss(model, batch)) of next-token prediction on random tokens."""
    torch.manual_seed(0)
    model = TinyLM(vocab_size=32, hidden=32, layers=2, heads=4, context=8, dropout=dropout)
    g = torch.Generator().manual_seed(1)
    batches = []
    for _ in range(STEPS):
        seq = torch.randint(0, 32, (4, 9), generator=g)
        batches.append((seq[:, :-1].contiguous(), seq[:, 1:].contiguous()))
    return model, batches, lambda m, b: m(b[0], b[1])


def _graph_counts():
    """(graphs compiled or loaded from the disk cache, graphs run) so far."""
    m = tt.metrics()
    return m["compiles"] + m["cache"]["disk_hits"], m["graphs"]


def _train(model, batches, loss_fn, tpu, lr=1e-2):
    """Adam for len(batches) steps on a copy of model: (per-step losses as
    floats, {name: final parameter on the CPU}, _graph_counts() after each step)."""
    model = copy.deepcopy(model)
    if tpu:
        model = tt.to_tpu(model)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    losses, graphs = [], []
    for batch in batches:
        if tpu:
            batch = [tt.to_tpu(x) for x in batch]
        opt.zero_grad()
        loss = loss_fn(model, batch)
        loss.backward()
        opt.step()
        losses.append(loss.item())
        graphs.append(_graph_counts() if tpu else None)
    params = {name: tt.to_cpu(p.detach()) for name, p in model.named_parameters()}
    return losses, params, graphs


def _close_params(got, want, what, skip=(), rtol=1e-4, atol=1e-4):
    """got and want ({name: tensor}) allclose, but for the names in skip."""
    for name, w in want.items():
        if not any(s in name for s in skip):
            assert_close(got[name], w, rtol, atol, f"{what} {name}")


def _train_all_modes(setup, rtol=1e-4, atol=1e-5, noisy=()):
    """Trains setup()'s model on the CPU and in each mode; checks each
    mode's losses and final parameters against the CPU's, Debug == Strict
    bit for bit, and the Fused loop compiling no graph after its second
    step.  noisy: parameters whose gradient is zero up to rounding, which
    Adam's normalization turns into lr-sized steps of any sign."""
    model, batches, loss_fn = setup()
    cpu_losses, cpu_params, _ = _train(model, batches, loss_fn, tpu=False)
    runs = {}
    for mode in MODES:
        tt.set_mode(mode)
        runs[mode] = _train(model, batches, loss_fn, tpu=True)
        tt.sync()
        losses, params, _ = runs[mode]
        for step, (got, want) in enumerate(zip(losses, cpu_losses)):
            assert abs(got - want) <= atol + rtol * abs(want), f"{mode} step {step}: loss {got}, CPU {want}"
        _close_params(params, cpu_params, f"{mode} parameter", skip=noisy)
    (dl, dp, _), (sl, sp, _) = runs["debug"], runs["strict"]
    assert dl == sl, "Debug and Strict losses differ"
    for name in dp:
        assert torch.equal(dp[name], sp[name]), f"parameter {name}: Debug and Strict differ"
    _check_fused_graphs(runs["fused"][2])
    return runs


def _check_fused_graphs(counts):
    """The Fused loop runs one graph a step (cut by the loss's host read) and
    compiles none after its second step (Adam's state exists by then)."""
    compiled, ran = zip(*counts)
    assert compiled[-1] == compiled[1], f"the Fused loop kept compiling: graphs compiled after each step {compiled}"
    steps = [b - a for a, b in zip(ran, ran[1:])]
    assert steps == [1] * len(steps), f"graphs run per Fused step: {steps}"


def test_mlp_training():
    _train_all_modes(_mlp_setup)


def test_lm_training():
    # A key projection's bias only adds a constant to each row of scores,
    # which softmax removes: its gradient is rounding noise.
    _train_all_modes(_lm_setup, noisy=("attention.key.bias",))


def test_lm_dropout_same_in_every_mode():
    """With dropout on, the TPU's generator (tt.manual_seed) gives the same
    masks in Debug and Strict (bitwise) and in Fused, whose loop compiles
    no graph after its second step (the generator state is no constant)."""
    model, batches, loss_fn = _lm_setup(dropout=0.1)
    batches = batches[:5]
    runs = {}
    for mode in MODES:
        tt.set_mode(mode)
        tt.manual_seed(1234)
        runs[mode] = _train(model, batches, loss_fn, tpu=True)
        tt.sync()
    assert runs["debug"][0] == runs["strict"][0]
    for name, p in runs["debug"][1].items():
        assert torch.equal(p, runs["strict"][1][name]), f"parameter {name}: Debug and Strict differ"
    torch.testing.assert_close(torch.tensor(runs["fused"][0]), torch.tensor(runs["strict"][0]), rtol=1e-4, atol=1e-5)
    _check_fused_graphs(runs["fused"][2])
    cpu_no_dropout = _train(model.eval(), batches, loss_fn, tpu=False)[0]
    assert runs["strict"][0][0] != cpu_no_dropout[0], "dropout had no effect"
