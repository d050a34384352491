"""tpurun.torch's own behaviour: moving data and modules, printing, modes,
metrics, errors with the user's source line, missing lowerings, fallback."""
import os
import subprocess
import sys

import pytest
import torch

import tpurun
import tpurun.torch as tt
from torchcheck import assert_close

HERE = os.path.dirname(os.path.abspath(__file__))


def test_to_tpu_and_back_keeps_values_and_dtypes(mode):
    for t in (torch.randn(3, 4), torch.arange(6).reshape(2, 3), torch.tensor([True, False]),
              torch.randn(5, dtype=torch.float64), torch.randn(4).to(torch.bfloat16), torch.tensor(2.5)):
        x = tt.to_tpu(t)
        assert tt.is_tpu(x) and x.shape == t.shape and x.dtype == t.dtype
        back = tt.to_cpu(x)
        assert not tt.is_tpu(back) and torch.equal(back, t)
        assert torch.equal(x.cpu(), t) and x.tolist() == t.tolist()


def test_module_moves_parameters_and_buffers(mode):
    m = torch.nn.BatchNorm1d(3)
    tt.to_tpu(m)
    assert all(tt.is_tpu(p) for p in m.parameters()) and all(tt.is_tpu(b) for b in m.buffers())
    assert isinstance(m.weight, torch.nn.Parameter) and m.weight.requires_grad
    tt.to_cpu(m)
    assert not any(tt.is_tpu(p) for p in m.parameters())
    assert torch.equal(m.weight, torch.ones(3))


def test_printing_materializes(mode):
    x = tt.to_tpu(torch.tensor([1.0, 2.0])) * 3
    text = repr(x)
    assert "tensor([3., 6.]" in text and "device='tpu'" in text
    w = tt.to_tpu(torch.ones(2)).requires_grad_(True)
    assert "requires_grad=True" in repr(w)
    assert "grad_fn=<MulBackward0>" in repr(w * 2)


def test_item_and_numpy(mode):
    x = tt.to_tpu(torch.tensor([1.5, 2.5]))
    assert (x.sum() * 2).item() == 8.0
    assert x.numpy().tolist() == [1.5, 2.5]


def test_autograd_and_sgd_step(mode):
    torch.manual_seed(0)
    lin = torch.nn.Linear(4, 2)
    ref = torch.nn.Linear(4, 2)
    ref.load_state_dict(lin.state_dict())
    tt.to_tpu(lin)
    x = torch.randn(8, 4)
    for model, xin in ((lin, tt.to_tpu(x)), (ref, x)):
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        loss = model(xin).square().mean()
        loss.backward()
        opt.step()
    assert_close(lin.weight.detach(), ref.weight.detach())
    assert_close(lin.bias.detach(), ref.bias.detach())


def test_mode_switch_and_metrics():
    tt.set_mode("fused")
    assert tt.get_mode() == "fused"
    before = tt.metrics()
    x = tt.to_tpu(torch.ones(4))
    y = (x + 1) * 2
    assert y.tolist() == [4.0] * 4
    after = tt.metrics()
    assert after["ops"]["fused"] > before["ops"]["fused"]
    assert after["torch"]["aten_ops"] >= before["torch"]["aten_ops"] + 2
    assert after["materializations"]["host_read"] > before["materializations"]["host_read"]
    tt.set_mode("strict")
    assert tt.get_mode() == "strict" and tt.metrics()["mode"] == "strict"
    with pytest.raises(ValueError):
        tt.set_mode("eager")


def test_missing_lowering_names_the_op(mode):
    x = tt.to_tpu(torch.eye(3) * 2)
    with pytest.raises(NotImplementedError, match=r"no lowering of aten\.linalg_cholesky_ex.*tpu 3x3xf32"):
        torch.linalg.cholesky(x)


def test_cpu_fallback_is_opt_in_and_counted(mode):
    x = tt.to_tpu(torch.eye(3) * 4)
    tt.configure(allow_cpu_fallback=True)
    try:
        before = tt.metrics()["torch"]["cpu_fallbacks"]
        r = torch.linalg.cholesky(x)
        assert tt.is_tpu(r)
        assert torch.allclose(tt.to_cpu(r), torch.eye(3) * 2)
        # linalg_cholesky_ex, and the error check linalg.cholesky runs on its info result.
        assert tt.metrics()["torch"]["cpu_fallbacks"] == before + 2
    finally:
        tt.set_cpu_fallback(False)


def test_shape_error_names_the_source_line(mode):
    a, b = tt.to_tpu(torch.ones(2, 3)), tt.to_tpu(torch.ones(2, 3))
    with pytest.raises(RuntimeError) as e:
        a.mm(b)  # the line the message must name
    assert "cannot be multiplied" in str(e.value)
    assert f"test_bridge.py:{e.tb.tb_lineno}" in str(e.value) and "a.mm(b)" in str(e.value)


def test_debug_mode_names_the_line_that_made_a_nan():
    tt.set_mode("debug")
    try:
        x = tt.to_tpu(torch.tensor([1.0, -1.0]))
        with pytest.raises(tpurun.TpuRuntimeError) as e:
            y = torch.log(x)  # noqa: F841  (the NaN is made here)
        text = str(e.value)
        assert "NaN" in text and "stablehlo.log" in text and "aten.log" in text
        assert f"test_bridge.py:{e.tb.tb_lineno}" in text and "torch.log(x)" in text
    finally:
        tt.set_mode("strict")


def test_strict_mode_sees_no_error_for_a_nan():
    tt.set_mode("strict")
    y = torch.log(tt.to_tpu(torch.tensor([-1.0])))
    assert torch.isnan(tt.to_cpu(y)).all()


def test_cpu_operands_are_uploaded_and_counted(mode):
    x = tt.to_tpu(torch.ones(3))
    before = tt.metrics()["torch"]["host_uploads"]
    y = x + torch.tensor([1.0, 2.0, 3.0])
    assert tt.is_tpu(y) and y.tolist() == [2.0, 3.0, 4.0]
    assert tt.metrics()["torch"]["host_uploads"] == before + 1
    assert (x * torch.tensor(2.0)).tolist() == [2.0] * 3


def test_env_var_chooses_the_mode():
    code = "import tpurun.torch as tt, torch; tt.to_tpu(torch.ones(1)); print(tt.get_mode())"
    env = dict(os.environ, TPU_EAGER_MODE="fused", PYTHONPATH=os.pathsep.join(sys.path))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "fused"


@pytest.mark.parametrize("opt", [torch.optim.SGD, torch.optim.Adam, torch.optim.AdamW])
def test_foreach_optimizers(mode, opt):
    torch.manual_seed(0)
    ref = torch.nn.Linear(3, 2)
    lin = torch.nn.Linear(3, 2)
    lin.load_state_dict(ref.state_dict())
    tt.to_tpu(lin)
    x = torch.randn(4, 3)
    kwargs = dict(lr=0.1, foreach=True) if opt is not torch.optim.SGD else dict(lr=0.1, momentum=0.9, foreach=True)
    for model, xin in ((lin, tt.to_tpu(x)), (ref, x)):
        o = opt(model.parameters(), **kwargs)
        for _ in range(2):
            o.zero_grad()
            model(xin).square().sum().backward()
            o.step()
    assert_close(lin.weight.detach(), ref.weight.detach(), rtol=1e-5, atol=1e-5)
    assert_close(lin.bias.detach(), ref.bias.detach(), rtol=1e-5, atol=1e-5)


def test_cpu_running_stats_follow_a_tpu_batch_norm(mode):
    bn = torch.nn.BatchNorm1d(3)
    ref = torch.nn.BatchNorm1d(3)
    x = torch.randn(8, 3)
    bn.weight, bn.bias = (torch.nn.Parameter(tt.to_tpu(p.detach())) for p in (bn.weight, bn.bias))
    bn(tt.to_tpu(x))
    ref(x)
    assert not tt.is_tpu(bn.running_mean)
    torch.testing.assert_close(bn.running_mean, ref.running_mean, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(bn.running_var, ref.running_var, rtol=1e-5, atol=1e-5)
