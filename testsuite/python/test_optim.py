"""torch.optim unchanged on tpurun.torch parameters: five training steps of a
small model on the CPU and on the TPU from the same initial weights, with
parameters and optimizer state compared after every step, in every mode."""
import copy

import pytest
import torch
import torch.nn.functional as F

import tpurun.torch as tt
from torchcheck import assert_close

TOL = 1e-5
STEPS = 5

OPTIMIZERS = {
    "sgd": lambda ps: torch.optim.SGD(ps, lr=0.1),
    "sgd_momentum_wd": lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9, dampening=0.1, weight_decay=0.01),
    "sgd_nesterov": lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01),
    "adam": lambda ps: torch.optim.Adam(ps, lr=0.01),
    "adam_amsgrad_wd": lambda ps: torch.optim.Adam(ps, lr=0.01, amsgrad=True, weight_decay=0.01),
    "adamw": lambda ps: torch.optim.AdamW(ps, lr=0.01, weight_decay=0.1),
    "adamw_amsgrad": lambda ps: torch.optim.AdamW(ps, lr=0.01, betas=(0.8, 0.9), amsgrad=True),
}


def make_model():
    """Two linear layers from a fixed seed."""
    gen_state = torch.random.get_rng_state()
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 6), torch.nn.Linear(6, 3))
    torch.random.set_rng_state(gen_state)
    return model


G = torch.Generator().manual_seed(1)
INPUTS = torch.randn(5, 4, generator=G)
LABELS = torch.tensor([0, 2, 1, 2, 0])
AIMS = torch.randn(5, 3, generator=G)


def loss_of(model, x, labels, aims):
    """Cross-entropy plus MSE, so both losses' backward ops feed the optimizer."""
    out = model(x)
    return F.cross_entropy(out, labels) + F.mse_loss(out, aims)


def assert_same_state(opt_tpu, opt_cpu, params_tpu, params_cpu, step):
    """Each parameter's optimizer state (buffers, step counts) matches."""
    for i, (pt, pc) in enumerate(zip(params_tpu, params_cpu)):
        st, sc = opt_tpu.state[pt], opt_cpu.state[pc]
        assert sorted(st) == sorted(sc), f"step {step}: state keys of parameter {i}"
        for key in sc:
            assert_close(st[key], sc[key], TOL, TOL, f"step {step}: state {key!r} of parameter {i}")


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_optimizer_matches_cpu(mode, name):
    cpu = make_model()
    tpu = tt.to_tpu(copy.deepcopy(cpu))
    params_cpu, params_tpu = list(cpu.parameters()), list(tpu.parameters())
    assert all(tt.is_tpu(p) for p in params_tpu)
    opt_cpu, opt_tpu = OPTIMIZERS[name](params_cpu), OPTIMIZERS[name](params_tpu)
    data_tpu = [tt.to_tpu(t) for t in (INPUTS, LABELS, AIMS)]
    for step in range(STEPS):
        for model, opt, data in ((cpu, opt_cpu, (INPUTS, LABELS, AIMS)), (tpu, opt_tpu, data_tpu)):
            opt.zero_grad()
            loss_of(model, *data).backward()
            opt.step()
        for i, (pt, pc) in enumerate(zip(params_tpu, params_cpu)):
            assert_close(pt.detach(), pc.detach(), TOL, TOL, f"step {step}: parameter {i}")
        assert_same_state(opt_tpu, opt_cpu, params_tpu, params_cpu, step)


def test_changing_learning_rate(mode):
    """A scheduler's new learning rate each step is a graph input: results still match."""
    cpu = make_model()
    tpu = tt.to_tpu(copy.deepcopy(cpu))
    runs = []
    for model, data in ((cpu, (INPUTS, LABELS, AIMS)), (tpu, [tt.to_tpu(t) for t in (INPUTS, LABELS, AIMS)])):
        opt = torch.optim.SGD(model.parameters(), lr=0.2, momentum=0.5)
        sched = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.7)
        for _ in range(STEPS):
            opt.zero_grad()
            loss_of(model, *data).backward()
            opt.step()
            sched.step()
        runs.append([p.detach() for p in model.parameters()])
    for i, (pt, pc) in enumerate(zip(*reversed(runs))):
        assert_close(pt, pc, TOL, TOL, f"parameter {i}")


def test_step_scalars_compile_nothing_new(mode):
    """Adam's per-step numbers (learning rate from a scheduler, bias corrections) are
    scalar inputs: after the second step no new op signature or graph is compiled."""
    model = tt.to_tpu(make_model())
    data = [tt.to_tpu(t) for t in (INPUTS, LABELS, AIMS)]
    opt = torch.optim.Adam(model.parameters(), lr=0.05, amsgrad=True)
    sched = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.7)
    seen = []
    for _ in range(STEPS):
        opt.zero_grad()
        loss = loss_of(model, *data)
        loss.backward()
        opt.step()
        sched.step()
        loss.item()
        m = tt.metrics()
        seen.append((m["compiles"], m["signatures"]))
    assert seen[1] == seen[-1], f"compiles and signatures per step: {seen}"
