"""tpurun.torch.export: modules as StableHLO text that tpucc compiles and
tpurun runs with PyTorch's results (through the command-line tools and
through tpurun.Client), named as JAX names a module's arguments and results."""
import copy
import os
import re
import subprocess

import numpy as np
import pytest
import torch
from torch.utils._pytree import tree_flatten

import tpurun
import tpurun.torch as tt
from models import MLP, BertConfig, BertEncoder, SmallCNN, TinyLM

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.environ.get("TPURUN_BUILD_DIR") or os.path.join(HERE, "..", "..", "build")
RTOL = ATOL = 1e-4


def _tool(name):
    path = os.path.join(BUILD, name)
    if not os.path.exists(path):
        pytest.skip(f"{path} not built")
    return path


def _signature(text):
    """([arg_info of each argument], [result_info of each result]) of @main."""
    header = next(line for line in text.splitlines() if "func.func public @main" in line)
    params, results = header.split(") -> (", 1)
    arg_infos = re.findall(r'jax\.arg_info = "([^"]*)"', params)
    result_infos = re.findall(r'jax\.result_info = "([^"]*)"', results)
    assert len(arg_infos) == params.count("%arg") and len(result_infos) == results.count("tensor<"), header
    return arg_infos, result_infos


def _arguments(module, inputs, arg_infos):
    """The NumPy array of each argument, found by its jax.arg_info name."""
    state = dict(module.named_parameters())
    state.update(module.named_buffers())
    arrays = []
    for info in arg_infos:
        m = re.fullmatch(r"args\[(\d+)\]", info)
        t = inputs[int(m.group(1))] if m else state[info]
        arrays.append(t.detach().numpy())
    return arrays


def _round_trip(tmp_path, module, *inputs, rtol=RTOL, atol=ATOL):
    """Exports module, runs it with tpucc + tpurun and with tpurun.Client,
    compares both with PyTorch; returns the text."""
    with torch.no_grad():
        want = [t.numpy() for t in tree_flatten(copy.deepcopy(module)(*inputs))[0]]
    text = tt.export(module, *inputs)
    arg_infos, result_infos = _signature(text)
    assert len(result_infos) == len(want)
    args = _arguments(module, inputs, arg_infos)
    with tpurun.Client(no_disk_cache=True) as client:
        got = [r.numpy() for r in client.compile(text).run(*args)]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)

    src, prog = tmp_path / "model.mlir", tmp_path / "model.tpub"
    src.write_text(text)
    subprocess.run([_tool("tpucc"), str(src), "-o", str(prog)], check=True, capture_output=True, text=True)
    cmd = [_tool("tpurun"), str(prog), "--threads=1"]
    for i, a in enumerate(args):
        np.save(tmp_path / f"arg{i}.npy", a)
        cmd.append(f"--input=@{tmp_path / f'arg{i}.npy'}")
    cmd += [f"--output=@{tmp_path / f'res{i}.npy'}" for i in range(len(want))]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    for i, w in enumerate(want):
        np.testing.assert_allclose(np.load(tmp_path / f"res{i}.npy"), w, rtol=rtol, atol=atol)
    return text


# ---- the models -------------------------------------------------------------------

def test_export_mlp(tmp_path):
    torch.manual_seed(0)
    model = MLP((16, 32, 4))
    text = _round_trip(tmp_path, model, torch.randn(5, 16))
    assert _signature(text) == (["net.0.weight", "net.0.bias", "net.2.weight", "net.2.bias", "args[0]"], ["result"])
    assert "mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32" in text


def test_export_bert(tmp_path):
    torch.manual_seed(0)
    cfg = BertConfig()
    model = BertEncoder(cfg).eval()
    g = torch.Generator().manual_seed(0)
    ids = torch.randint(0, cfg.vocab_size, (2, 8), generator=g)
    mask = torch.ones(2, 8, dtype=torch.int64)
    mask[0, 6:] = 0
    text = _round_trip(tmp_path, model, ids, mask)
    args, results = _signature(text)
    assert args[0] == "word_embeddings.weight" and args[-2:] == ["args[0]", "args[1]"]
    assert "layers.1.attention.query.weight" in args and "position_ids" in args
    assert results == ["result"]


@pytest.mark.parametrize("train", [False, True], ids=["eval", "train"])
def test_export_cnn(tmp_path, train):
    torch.manual_seed(0)
    model = SmallCNN().train(train)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.uniform_(-0.5, 0.5)
                m.running_var.uniform_(0.5, 2.0)
    before = {k: v.clone() for k, v in model.state_dict().items()}
    text = _round_trip(tmp_path, model, torch.randn(2, 3, 8, 8))
    args, _ = _signature(text)
    assert "features.1.running_mean" in args and "features.1.num_batches_tracked" in args
    for k, v in model.state_dict().items():
        assert torch.equal(v, before[k]), f"export changed {k}"


def test_export_lm_logits_and_loss(tmp_path):
    torch.manual_seed(0)
    model = TinyLM(vocab_size=32, hidden=32, layers=2, heads=4, context=8).eval()
    g = torch.Generator().manual_seed(0)
    tokens = torch.randint(0, 32, (2, 8), generator=g)
    targets = torch.randint(0, 32, (2, 8), generator=g)
    _round_trip(tmp_path / "", model, tokens)
    (tmp_path / "loss").mkdir()
    text = _round_trip(tmp_path / "loss", model, tokens, targets)
    assert "tensor<f32> {jax.result_info = \"result\"}" in text


# ---- the export's own behaviour ----------------------------------------------------

class Pair(torch.nn.Module):
    """A weight, a captured constant, outputs that are an input and a view of one."""

    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(4, 3))
        self.scale = torch.tensor([1.0, 2.0, 3.0])

    def forward(self, x, y):
        return {"out": torch.mm(x, self.weight) * self.scale, "x": x, "yt": y.t()}


def test_constants_aliases_and_result_names(tmp_path):
    torch.manual_seed(0)
    text = _round_trip(tmp_path, Pair(), torch.randn(2, 4), torch.randn(3, 5))
    assert _signature(text) == (["weight", "args[0]", "args[1]"],
                                ["result['out']", "result['x']", "result['yt']"])
    assert "dense<[1.0, 2.0, 3.0]>" in text


class Tied(torch.nn.Module):
    """An embedding whose weight the output projection shares."""

    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(10, 4)
        self.proj = torch.nn.Linear(4, 10, bias=False)
        self.proj.weight = self.embed.weight

    def forward(self, ids):
        return self.proj(self.embed(ids))


def test_tied_weights_are_one_argument(tmp_path):
    text = _round_trip(tmp_path, Tied(), torch.tensor([[1, 2, 3]]))
    assert _signature(text)[0] == ["embed.weight", "args[0]"]


def test_deterministic():
    torch.manual_seed(0)
    model = MLP((6, 8, 2))
    x = torch.randn(3, 6)
    assert tt.export(model, x) == tt.export(model, x)


class Branchy(torch.nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x * 2
        return x


def test_data_dependent_control_flow_is_refused():
    with pytest.raises(RuntimeError, match="data-dependent control flow"):
        tt.export(Branchy(), torch.randn(3))


def test_module_on_tpu():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Dropout(0.5))
    x = torch.randn(2, 4)
    eval_text = tt.export(model.eval(), x)
    assert tt.export(tt.to_tpu(model), x) == eval_text


def test_train_mode_dropout_takes_the_generator_state():
    """Train-mode dropout draws from an "rng_state" argument: the key that
    tpurun.torch.manual_seed(s) makes gives eager execution's mask."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 64), torch.nn.Dropout(0.5))
    x = torch.randn(3, 4)
    assert "rng_state" not in tt.export(model.eval(), x)
    text = tt.export(model.train(), x)
    assert _signature(text)[0] == ["0.weight", "0.bias", "args[0]", "rng_state"]
    args = [model[0].weight.detach().numpy(), model[0].bias.detach().numpy(), x.numpy()]
    tt.manual_seed(7)
    eager = tt.to_cpu(tt.to_tpu(copy.deepcopy(model))(tt.to_tpu(x))).detach().numpy()
    with tpurun.Client(no_disk_cache=True) as client:
        program = client.compile(text)
        seeded = program.run(*args, np.array([7, 0x5EED], np.uint64))[0].numpy()
        other = program.run(*args, np.array([8, 0x5EED], np.uint64))[0].numpy()
    np.testing.assert_allclose(seeded, eager, rtol=RTOL, atol=ATOL)
    assert (seeded == 0).any() and not np.array_equal(seeded == 0, other == 0)


def test_non_finite_constants_of_every_float_width():
    class Scale(torch.nn.Module):
        def __init__(self, dtype):
            super().__init__()
            self.c = torch.tensor([1.5, float("inf"), -float("inf"), float("nan")], dtype=dtype)

        def forward(self, x):
            return x * self.c

    for dtype, elem in ((torch.float32, "f32"), (torch.float64, "f64"), (torch.bfloat16, "bf16")):
        m, x = Scale(dtype), torch.ones(4, dtype=dtype)
        with tpurun.Client(no_disk_cache=True) as c:
            got, = c.compile(tt.export(m, x)).run(c.tensor(np.ones(4, np.float32), type=f"4x{elem}"))
            np.testing.assert_array_equal(got.numpy(), m(x).float().numpy())
