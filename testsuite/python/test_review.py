"""Regression tests for the review of issue 19's PyTorch bridge: deepcopy,
threads, fork, the meta cache's keys, 0-dim CPU tensors, x.data =, in-place
checks, CPU targets, tied weights, modes, fallback write-back, products of
mixed dtypes, empty reductions and export's arguments."""
import copy
import os
import subprocess
import sys

import pytest
import torch
from torch._decomp import decomposition_table

import tpurun.torch as tt
from tpurun.torch import _tensor
from torchcheck import assert_close, run_both

T, C = tt.to_tpu, tt.to_cpu
HERE = os.path.dirname(os.path.abspath(__file__))


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([os.path.join(HERE, "..", "..", "python"), HERE])
    return env


# ---- A: deepcopy ---------------------------------------------------------------

def test_deepcopy_tensor_is_independent(mode):
    x = T(torch.arange(4.)).requires_grad_()
    y = copy.deepcopy(x)
    assert tt.is_tpu(y) and y.requires_grad and y is not x
    with torch.no_grad():
        y.add_(1)
    assert C(x).tolist() == [0, 1, 2, 3] and C(y).tolist() == [1, 2, 3, 4]
    pair = copy.deepcopy([x, x])
    assert pair[0] is pair[1]


def test_deepcopy_module_trains_independently(mode):
    torch.manual_seed(0)
    m = T(torch.nn.Linear(3, 2))
    m2 = copy.deepcopy(m)
    assert all(isinstance(p, torch.nn.Parameter) and tt.is_tpu(p) for p in m2.parameters())
    before = C(m.weight).clone()
    opt = torch.optim.SGD(m2.parameters(), lr=0.1)
    m2(T(torch.ones(1, 3))).sum().backward()
    opt.step()
    assert torch.equal(C(m.weight), before) and not torch.equal(C(m2.weight), before)


# ---- B: threads ----------------------------------------------------------------

def test_threads_share_one_client():
    code = """
import threading, torch, tpurun.torch as tt
out, errors = [], []
def work():
    try:
        out.append(tt.to_tpu(torch.ones(2)))
        tt.to_tpu(torch.nn.Linear(2, 2))
    except Exception as e:
        errors.append(e)
ts = [threading.Thread(target=work) for _ in range(8)]
[t.start() for t in ts]; [t.join() for t in ts]
assert not errors, errors
assert tt.to_cpu(sum(out)).tolist() == [8.0, 8.0]
assert not torch.__future__.get_overwrite_module_params_on_conversion()
"""
    r = subprocess.run([sys.executable, "-c", code], env=_env(), capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr


def test_state_has_a_lock():
    assert hasattr(_tensor.STATE.lock, "acquire")


# ---- C: fork -------------------------------------------------------------------

def test_fork_child_gets_clear_error():
    code = """
import os, sys, torch, tpurun.torch as tt
x = tt.to_tpu(torch.ones(2))
pid = os.fork()
if pid == 0:
    try:
        x + 1
        code = 1
    except RuntimeError as e:
        code = 0 if "fork" in str(e) and "spawn" in str(e) else 2
    try:
        tt.client()
        code = code or 3
    except RuntimeError:
        pass
    del x
    sys.exit(code)
_, status = os.waitpid(pid, 0)
assert tt.to_cpu(x + 1).tolist() == [2.0, 2.0]
sys.exit(os.waitstatus_to_exitcode(status))
"""
    r = subprocess.run([sys.executable, "-c", code], env=_env(), capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, (r.returncode, r.stderr)


# ---- D: the meta cache's keys ------------------------------------------------------

def test_meta_cache_keys_number_types(mode):
    i = T(torch.arange(4))
    assert (i + 1.0).dtype == torch.float32 and (i + 1).dtype == torch.int64
    assert (i + True).dtype == torch.int64 and (T(torch.tensor([True])) + True).dtype == torch.bool
    old = torch.get_default_dtype()
    try:
        torch.set_default_dtype(torch.float64)
        assert (i + 1.0).dtype == torch.float64
    finally:
        torch.set_default_dtype(old)
    assert (i + 1.0).dtype == torch.float32


# ---- E: 0-dim CPU tensors ------------------------------------------------------------

@pytest.mark.parametrize("dtype", [torch.int64, torch.bool, torch.float16, torch.float64])
@pytest.mark.parametrize("scalar_dtype", [torch.int64, torch.bool, torch.float16, torch.float64])
def test_zero_dim_cpu_tensor_promotes_as_on_cpu(dtype, scalar_dtype):
    x = torch.tensor([0, 1, 1], dtype=dtype)
    s = torch.tensor(1, dtype=scalar_dtype)
    for op in (torch.mul, torch.add):
        if dtype == scalar_dtype == torch.bool and op is torch.add:
            continue
        assert_close(op(T(x), s), op(x, s))


def test_zero_dim_cpu_tensor_where_a_tensor_is_needed(mode):
    w = torch.randn(4, 3)
    x = torch.randn(2, 3)
    assert_close(T(x).index_select(1, torch.tensor(1)), x.index_select(1, torch.tensor(1)))
    assert_close(torch.nn.functional.embedding(torch.tensor(1), T(w)), w[1])
    assert_close(torch.stack([T(torch.tensor(1.)), torch.tensor(5.)]), torch.tensor([1., 5.]))
    run_both(lambda a: a * torch.tensor(0.5, dtype=torch.float64), torch.randn(3))


def test_zero_dim_learning_rate_tensor_is_a_graph_input(mode):
    x, seen = T(torch.ones(3)), []
    for lr in (0.1, 0.2, 0.3, 0.4):
        assert (x * torch.tensor(lr) + 1).sum().item() == pytest.approx(3 * lr + 3)
        m = tt.metrics()
        seen.append((m["compiles"], m["signatures"]))
    assert seen[1] == seen[-1], f"compiles and signatures per step: {seen}"


# ---- F: x.data = y, module.double(), to('cpu') ---------------------------------------------

def test_data_setter_aliases(mode):
    x = T(torch.zeros(4))
    x.data = T(torch.ones(2, 2))
    assert tuple(x.shape) == (2, 2) and C(x).tolist() == [[1, 1], [1, 1]]
    x.data = torch.full((3,), 2.0)
    assert tt.is_tpu(x) and C(x).tolist() == [2, 2, 2]
    assert tt.is_tpu(x.data) and not x.data.requires_grad


def test_module_double_half_and_cpu(mode):
    m = T(torch.nn.Linear(3, 2)).double()
    assert m.weight.dtype == C(m.weight).dtype == torch.float64
    assert m(T(torch.ones(1, 3, dtype=torch.float64))).dtype == torch.float64
    m.half()
    assert C(m.weight).dtype == torch.float16
    m.cpu()
    assert not tt.is_tpu(m.weight) and m.weight.dtype == torch.float16 and isinstance(m.weight, torch.nn.Parameter)


def test_to_cpu_device(mode):
    x = T(torch.arange(3.))
    for y in (x.to("cpu"), x.to(device="cpu"), x.to("cpu", torch.float64)):
        assert not tt.is_tpu(y) and y.tolist() == [0, 1, 2]
    assert x.to(torch.float64).dtype == torch.float64 and tt.is_tpu(x.to(torch.float64))
    # A device object is the one the tensor reports (clip_grad_norm_'s .to(grads[0].device)).
    assert tt.is_tpu(x.to(x.device)) and tt.is_tpu(x.to(torch.device("cpu"), torch.float64))


# ---- G: in-place results that do not fit ----------------------------------------------------

def test_inplace_cast_and_shape_errors(mode):
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        T(torch.arange(3)).add_(1.5)
    with pytest.raises(RuntimeError, match="result type Long can't be cast to the desired output type Bool"):
        T(torch.tensor([True])).add_(1)
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type Long"):
        torch.add(T(torch.ones(2)), 1, out=T(torch.zeros(2, dtype=torch.long)))
    with pytest.raises(RuntimeError, match=r"output with shape \[3\] doesn't match the broadcast shape \[2, 3\]"):
        T(torch.ones(3)).add_(T(torch.ones(2, 3)))
    out = T(torch.zeros(0))
    assert torch.add(T(torch.ones(2, 3)), 1, out=out) is out and C(out).tolist() == [[2, 2, 2]] * 2
    out = T(torch.zeros(0))
    alias = out.detach()
    with pytest.raises(NotImplementedError, match="out= tensor has shape"):
        torch.add(T(torch.ones(2, 3)), 1, out=out)
    assert C(alias).shape == (0,)
    out = T(torch.zeros(2))
    with pytest.warns(UserWarning, match="was resized"):
        torch.mul(T(torch.ones(2, 3)), 2, out=out)
    assert C(out).tolist() == [[2, 2, 2]] * 2
    x = T(torch.ones(2, dtype=torch.float16))
    x.add_(T(torch.ones(2)))
    assert x.dtype == torch.float16 and C(x).tolist() == [2, 2]


# ---- J: CPU targets of TPU values -------------------------------------------------

def test_cpu_target_tpu_source(mode):
    src = T(torch.arange(3.))
    reads = tt.metrics()["torch"]["host_reads"]
    assert torch.zeros(3).copy_(src).tolist() == [0, 1, 2]
    assert tt.metrics()["torch"]["host_reads"] > reads
    c = torch.zeros(3)
    c[:] = src
    assert c.tolist() == [0, 1, 2]
    c.add_(src)
    assert c.tolist() == [0, 2, 4] and not tt.is_tpu(c)
    for n in (3, -1):
        hot = torch.nn.functional.one_hot(T(torch.tensor([[0, 2], [1, 1]])), n)
        assert tt.is_tpu(hot)
        assert_close(hot, torch.nn.functional.one_hot(torch.tensor([[0, 2], [1, 1]]), n))
    m, cpu = T(torch.nn.Linear(2, 2)), torch.nn.Linear(2, 2)
    cpu.load_state_dict(m.state_dict())
    assert torch.equal(cpu.weight, C(m.weight)) and not tt.is_tpu(cpu.weight)


# ---- K: in-place shape changes -------------------------------------------------------

def _transpose_aliased(x):
    alias = x.detach()
    return alias, x.transpose_(0, 1)


def test_shape_changing_inplace_ops(mode):
    for name, call in [("resize_", lambda x: x.resize_(6)), ("as_strided_", lambda x: x.as_strided_((3, 2), (2, 1))),
                       ("t_", lambda x: x[0:1].t_()), ("transpose_", _transpose_aliased)]:
        with pytest.raises(NotImplementedError, match=name):
            call(T(torch.ones(2, 3)))
    x = T(torch.ones(2, 3))
    assert x.resize_(2, 3) is x and x.resize_as_(torch.zeros(2, 3)) is x and C(x).shape == (2, 3)
    a = torch.arange(6.).reshape(2, 3)
    for call in (lambda x: x.t_(), lambda x: x.transpose_(0, 1), lambda x: x.swapdims_(1, 0)):
        x = T(a)
        assert call(x).shape == (3, 2)
        assert_close(x, a.t())
        assert_close(x[1:] * 2, a.t()[1:] * 2)
    x = T(torch.arange(6.).reshape(2, 3))
    assert x.unsqueeze_(0).shape == (1, 2, 3) and C(x).shape == (1, 2, 3)
    assert x.squeeze_(0).shape == (2, 3) and C(x).tolist() == [[0, 1, 2], [3, 4, 5]]
    x = T(torch.ones(2, 3))
    alias = x.detach()
    with pytest.raises(NotImplementedError, match="unsqueeze_"):
        x.unsqueeze_(0)
    assert C(alias).shape == (2, 3)
    with pytest.raises(NotImplementedError, match="unsqueeze_"):
        x[0].unsqueeze_(0)


def test_adamax_matches_cpu(mode):
    torch.manual_seed(0)
    cpu = torch.nn.Linear(3, 2)
    tpu = T(copy.deepcopy(cpu))
    for m in (cpu, tpu):
        opt = torch.optim.Adamax(m.parameters(), lr=0.1)
        for _ in range(2):
            opt.zero_grad()
            x = torch.ones(2, 3)
            m(T(x) if m is tpu else x).square().sum().backward()
            opt.step()
    assert_close(tpu.weight, cpu.weight.detach())


# ---- H: tied weights -----------------------------------------------------------------

def test_tied_parameters_stay_tied():
    m = torch.nn.Module()
    m.a, m.b = torch.nn.Linear(2, 2), torch.nn.Linear(2, 2)
    m.b.weight = m.a.weight
    n = len(list(m.parameters()))
    tt.to_tpu(m)
    assert m.a.weight is m.b.weight and tt.is_tpu(m.a.weight) and len(list(m.parameters())) == n
    tt.to_cpu(m)
    assert m.a.weight is m.b.weight and not tt.is_tpu(m.a.weight) and len(list(m.parameters())) == n


# ---- I: set_mode before the first op ------------------------------------------------------

def test_set_mode_before_first_op_beats_environment():
    code = """
import torch, tpurun.torch as tt
tt.set_mode('debug')
tt.to_tpu(torch.ones(2)) + 1
assert tt.get_mode() == 'debug', tt.get_mode()
"""
    env = dict(_env(), TPU_EAGER_MODE="fused")
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr


# ---- L: CPU fallback writes back written arguments only --------------------------------------

def test_cpu_fallback_writes_only_written_arguments(mode, monkeypatch):
    monkeypatch.setattr(_tensor.STATE, "allow_cpu_fallback", True)
    monkeypatch.setattr(_tensor, "lookup", lambda func: None)
    monkeypatch.setitem(decomposition_table, torch.ops.aten.add_.Tensor, None)
    x, y = T(torch.ones(2)), T(torch.full((2,), 3.0))
    version = y._store.version
    r = x.add_(y)
    assert r is x and C(x).tolist() == [4, 4] and y._store.version == version


# ---- M: products of mixed dtypes, empty reductions ------------------------------------------

def test_mixed_dtype_products_raise(mode):
    f, d = T(torch.ones(2, 2)), T(torch.ones(2, 2, dtype=torch.float64))
    for name, call in [("mm", lambda: f @ d), ("mv", lambda: f.mv(d[0])), ("dot", lambda: f[0].dot(d[0])),
                       ("bmm", lambda: f[None].bmm(d[None])), ("addmm", lambda: torch.addmm(f, f, d)),
                       ("baddbmm", lambda: torch.baddbmm(f[None], f[None], d[None]))]:
        with pytest.raises(RuntimeError, match=name):
            call()


def test_empty_max_min_raise(mode):
    e = T(torch.zeros(0))
    for name in ("max", "min", "amax", "amin"):
        with pytest.raises(RuntimeError, match=f"{name}\\(\\): Expected reduction dim"):
            getattr(e, name)()
    with pytest.raises(IndexError, match="non-zero size"):
        T(torch.zeros(2, 0)).amax(1)
    assert C(T(torch.zeros(2, 0)).amax(0)).shape == (0,)


# ---- N: one cache helper --------------------------------------------------------------

def test_geometry_and_meta_caches_share_the_helper(mode):
    x = T(torch.arange(6.).reshape(2, 3))
    assert x[:, 1].stride() == (3,) and x[:, 1].storage_offset() == 1
    assert hasattr(_tensor, "_memoized")


# ---- O: export's arguments ----------------------------------------------------------------

def test_export_function_and_nested_tensors():
    text = tt.export(lambda x: x * 2, torch.ones(2))
    assert "func.func public @main" in text and "stablehlo.multiply" in text
    with pytest.raises(TypeError, match="separate tensor arguments"):
        tt.export(torch.nn.Identity(), [torch.ones(2)])
    with pytest.raises(TypeError, match="separate tensor arguments"):
        tt.export(torch.nn.Identity(), {"a": torch.ones(2)})


def test_to_tpu_tensor_stays_on_tpu_and_deepcopy_of_non_leaf_raises(mode):
    x, y = T(torch.arange(3)), T(torch.ones(2))
    z = x.to(y)
    assert tt.is_tpu(z) and z.dtype == torch.float32
    assert not tt.is_tpu(x.to(torch.ones(1)))
    with pytest.raises(RuntimeError, match="graph leaves"):
        copy.deepcopy(T(torch.ones(2)).requires_grad_() * 2)


def test_shape_changing_inplace_ops_gradient(mode):
    def f(x):
        y = x * 2
        y.t_()
        z = (y * torch.arange(2.)).sin()
        z.unsqueeze_(0)
        return z
    run_both(f, torch.randn(2, 3))
