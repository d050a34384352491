"""tpurun.torch's neural-network lowerings (lower_nn.py) against PyTorch CPU,
forward and backward, in every eager mode: matrix products, Linear,
attention, convolution, pooling, batch and layer normalization."""
import pytest
import torch
import torch.nn.functional as F

import tpurun.torch as tt
from torchcheck import assert_close, run_both

aten = torch.ops.aten


def randn(*shape, seed=0):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


# ---- matrix products ----------------------------------------------------------

PRODUCTS = {
    "mm": (lambda x, y: x @ y, [(3, 4), (4, 5)]),
    "addmm": (lambda b, x, y: torch.addmm(b, x, y), [(5,), (3, 4), (4, 5)]),
    "addmm_beta_alpha": (lambda b, x, y: torch.addmm(b, x, y, beta=0.5, alpha=2.0), [(3, 5), (3, 4), (4, 5)]),
    "bmm": (torch.bmm, [(2, 3, 4), (2, 4, 5)]),
    "baddbmm": (lambda b, x, y: torch.baddbmm(b, x, y, beta=-1.5, alpha=0.5), [(2, 3, 5), (2, 3, 4), (2, 4, 5)]),
    "mv": (torch.mv, [(3, 4), (4,)]),
    "dot": (torch.dot, [(4,), (4,)]),
    "matmul_4d": (torch.matmul, [(2, 3, 4, 5), (2, 3, 5, 2)]),
}


@pytest.mark.parametrize("name", sorted(PRODUCTS))
def test_products(mode, name):
    fn, shapes = PRODUCTS[name]
    run_both(fn, *[randn(*s, seed=i) for i, s in enumerate(shapes)])


@pytest.mark.parametrize("name", ["mm", "addmm", "bmm", "matmul_4d"])
def test_products_at_medium_precision(mode, name):
    """torch.set_float32_matmul_precision("medium"): f32 products take bf16
    operands (a TPU's DEFAULT precision) and accumulate in f32, as the CPU
    does on operands rounded to bf16; the bias stays f32."""
    fn, shapes = PRODUCTS[name]
    inputs = [randn(*s, seed=i) for i, s in enumerate(shapes)]
    first_operand = 1 if name == "addmm" else 0
    rounded = inputs[:first_operand] + [x.bfloat16().float() for x in inputs[first_operand:]]
    torch.set_float32_matmul_precision("medium")
    try:
        got = fn(*[tt.to_tpu(x) for x in inputs])
    finally:
        torch.set_float32_matmul_precision("highest")
    assert_close(got, fn(*rounded))
    assert not torch.allclose(tt.to_cpu(got), fn(*inputs), rtol=1e-5, atol=1e-5), "not rounded to bf16"


@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 4)])
def test_linear(mode, shape):
    run_both(F.linear, randn(*shape), randn(5, 4, seed=1), randn(5, seed=2))


def test_linear_without_bias(mode):
    run_both(F.linear, randn(3, 4), randn(5, 4, seed=1))


def test_attention_by_hand(mode):
    """Scaled dot-product scores and their product with the values, 4-D."""
    def attend(q, k, v):
        return (q @ k.transpose(-1, -2)) * 0.5 @ v
    run_both(attend, randn(2, 3, 4, 5), randn(2, 3, 4, 5, seed=1), randn(2, 3, 4, 5, seed=2))


# ---- convolution ------------------------------------------------------------------

CONV2D = {
    "plain": dict(),
    "stride_padding": dict(stride=2, padding=1),
    "same": dict(padding="same"),
    "same_dilated": dict(padding="same", dilation=2),
    "dilation": dict(padding=2, dilation=2),
    "asymmetric": dict(stride=(2, 1), padding=(0, 1), dilation=(1, 2)),
    "stride_leaves_rows": dict(stride=3),
    "padding_over_kernel": dict(padding=3),
    "groups": dict(groups=2, padding=1),
    "depthwise": dict(groups=4, stride=2),
}


@pytest.mark.parametrize("name", sorted(CONV2D))
@pytest.mark.parametrize("bias", [True, False])
def test_conv2d(mode, name, bias):
    kw = CONV2D[name]
    in_per_group = 4 // kw.get("groups", 1)
    inputs = [randn(2, 4, 7, 6), randn(8, in_per_group, 3, 3, seed=1)] + ([randn(8, seed=2)] if bias else [])
    run_both(lambda x, w, b=None: F.conv2d(x, w, b, **kw), *inputs)


def test_conv1d(mode):
    run_both(lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=1), randn(2, 3, 9), randn(4, 3, 3, seed=1),
             randn(4, seed=2))


@pytest.mark.parametrize("kw", [dict(stride=2, padding=1, output_padding=1, groups=2), dict(dilation=2)],
                         ids=["strided_groups", "dilated"])
def test_conv_transpose2d(mode, kw):
    run_both(lambda x, w, b: F.conv_transpose2d(x, w, b, **kw), randn(2, 4, 5, 5), randn(4, 3, 3, 3, seed=1),
             randn(3 * kw.get("groups", 1), seed=2))


def test_conv3d(mode):
    run_both(lambda x, w: F.conv3d(x, w, stride=2, padding=1), randn(1, 2, 5, 5, 5), randn(3, 2, 3, 3, 3, seed=1))


def test_conv_transpose1d(mode):
    run_both(lambda x, w: F.conv_transpose1d(x, w, stride=3, padding=1), randn(2, 3, 6), randn(3, 2, 4, seed=1))


# ---- pooling ------------------------------------------------------------------------

MAX_POOL = {
    "k2": dict(kernel_size=2),
    "k3s2p1": dict(kernel_size=3, stride=2, padding=1),
    "ceil": dict(kernel_size=3, stride=2, ceil_mode=True),
    "ceil_padding": dict(kernel_size=2, ceil_mode=True, padding=1),
    "dilation": dict(kernel_size=(3, 2), stride=(2, 1), padding=(1, 1), dilation=(2, 1)),
}


@pytest.mark.parametrize("name", sorted(MAX_POOL))
def test_max_pool2d_with_indices(mode, name):
    run_both(lambda x: F.max_pool2d(x, return_indices=True, **MAX_POOL[name]), randn(2, 3, 7, 6))


def test_max_pool2d_ties_and_unbatched(mode):
    """Equal values in a window: the first one's index, as PyTorch picks."""
    x = torch.tensor([[[1.0, 1.0, 0.0], [1.0, 2.0, 2.0], [0.0, 2.0, 2.0]]])
    run_both(lambda x: F.max_pool2d(x, 2, stride=1, return_indices=True), x)


def test_max_pool2d_nan_and_infinities(mode):
    """NaN wins a window (the later of two NaNs), -inf windows keep their first index."""
    x = randn(1, 1, 4, 4)
    for (h, w), v in {(0, 1): "nan", (1, 0): "nan", (2, 2): "-inf", (2, 3): "-inf", (3, 2): "-inf",
                      (3, 3): "-inf", (0, 3): "inf"}.items():
        x[0, 0, h, w] = float(v)
    run_both(lambda x: F.max_pool2d(x, 2, return_indices=True), x, grad=False)
    run_both(lambda x: F.max_pool2d(x, 3, stride=1, padding=1, return_indices=True), x, grad=False)


def test_adaptive_max_pool2d(mode):
    run_both(lambda x: F.adaptive_max_pool2d(x, (2, 3), return_indices=True), randn(2, 3, 4, 6))


def test_max_pool2d_module(mode):
    run_both(torch.nn.MaxPool2d(3, stride=2, padding=1), randn(2, 3, 6, 6))


AVG_POOL = {
    "k2": dict(kernel_size=2),
    "k3s2p1": dict(kernel_size=3, stride=2, padding=1),
    "exclude_pad": dict(kernel_size=3, stride=2, padding=1, count_include_pad=False),
    "ceil": dict(kernel_size=3, stride=2, ceil_mode=True),
    "ceil_exclude_pad": dict(kernel_size=3, stride=2, ceil_mode=True, padding=1, count_include_pad=False),
    "divisor_override": dict(kernel_size=(3, 2), stride=(2, 1), padding=(1, 1), divisor_override=5),
}


@pytest.mark.parametrize("name", sorted(AVG_POOL))
def test_avg_pool2d(mode, name):
    run_both(lambda x: F.avg_pool2d(x, **AVG_POOL[name]), randn(2, 3, 7, 6))


@pytest.mark.parametrize("size", [(1, 1), (3, 2), (7, 6)])
def test_adaptive_avg_pool2d(mode, size):
    """_adaptive_avg_pool2d itself: F.adaptive_avg_pool2d makes a (1, 1) output a mean."""
    run_both(lambda x: aten._adaptive_avg_pool2d(x, size), randn(2, 3, 7, 6))


def test_adaptive_avg_pool2d_module(mode):
    run_both(torch.nn.AdaptiveAvgPool2d((2, 3)), randn(2, 3, 5, 7))


# ---- normalization ------------------------------------------------------------------

def running_stats(x):
    """Fresh running mean and variance on x's device."""
    stats = [randn(3, seed=5), randn(3, seed=6).abs() + 0.5]
    return [tt.to_tpu(s) if tt.is_tpu(x) else s for s in stats]


def test_batch_norm_train(mode):
    run_both(lambda x, w, b: F.batch_norm(x, *running_stats(x), w, b, training=True, momentum=0.3),
             randn(4, 3, 5, 5), randn(3, seed=1), randn(3, seed=2))


def test_batch_norm_train_without_affine_or_stats(mode):
    run_both(lambda x: F.batch_norm(x, None, None, training=True), randn(4, 3, 5))


def test_batch_norm_eval(mode):
    run_both(lambda x, w, b: F.batch_norm(x, *running_stats(x), w, b, training=False),
             randn(4, 3, 5, 5), randn(3, seed=1), randn(3, seed=2))


@pytest.mark.parametrize("momentum", [0.1, None])
def test_batch_norm2d_module_running_stats(mode, momentum):
    """Two training steps update the running stats and num_batches_tracked as
    PyTorch does (momentum None: the cumulative average); then eval uses them."""
    cpu = torch.nn.BatchNorm2d(3, momentum=momentum)
    tpu = tt.to_tpu(torch.nn.BatchNorm2d(3, momentum=momentum))
    for step in range(2):
        x = randn(4, 3, 5, 5, seed=step) * 2 + 1
        assert_close(tpu(tt.to_tpu(x)), cpu(x))
    for name in ("running_mean", "running_var", "num_batches_tracked"):
        assert_close(getattr(tpu, name), getattr(cpu, name), what=name)
    cpu.eval()
    tpu.eval()
    assert_close(tpu(tt.to_tpu(x)), cpu(x), what="eval")


@pytest.mark.parametrize("shape", [(6,), (3, 6)], ids=["last", "last_two"])
def test_layer_norm(mode, shape):
    run_both(lambda x, w, b: F.layer_norm(x, shape, w, b), randn(2, 3, 6), randn(*shape, seed=1),
             randn(*shape, seed=2))


def test_layer_norm_without_affine(mode):
    run_both(torch.nn.LayerNorm(6, elementwise_affine=False), randn(2, 3, 6))


def test_group_norm(mode):
    run_both(lambda x, w, b: F.group_norm(x, 2, w, b), randn(2, 4, 3, 3), randn(4, seed=1), randn(4, seed=2))
    run_both(lambda x: F.group_norm(x, 3), randn(2, 6, 5))


def test_layer_norm_bf16(mode):
    """bf16 input, computed in f32 as PyTorch does (bf16's rounding: 1e-2)."""
    run_both(lambda x, w, b: F.layer_norm(x, (8,), w, b), randn(4, 8).bfloat16(), randn(8, seed=1).bfloat16(),
             randn(8, seed=2).bfloat16(), rtol=1e-2, atol=1e-2)


BF16 = {
    "addmm": (lambda b, x, y: torch.addmm(b, x, y), [(5,), (3, 4), (4, 5)]),
    "bmm": (torch.bmm, [(2, 3, 4), (2, 4, 5)]),
    "conv2d": (lambda x, w: F.conv2d(x, w, padding=1), [(2, 3, 5, 5), (4, 3, 3, 3)]),
    "max_pool2d": (lambda x: F.max_pool2d(x, 2), [(2, 3, 4, 4)]),
    "avg_pool2d": (lambda x: F.avg_pool2d(x, 3, 2, 1), [(2, 3, 5, 5)]),
    "adaptive_avg_pool2d": (lambda x: F.adaptive_avg_pool2d(x, (2, 3)), [(2, 3, 5, 5)]),
    "batch_norm": (lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True), [(4, 3, 5), (3,), (3,)]),
}


@pytest.mark.parametrize("name", sorted(BF16))
def test_bf16(mode, name):
    """bf16 operands (sums and statistics in f32 as PyTorch computes them); bf16's rounding: 2e-2."""
    fn, shapes = BF16[name]
    run_both(fn, *[randn(*s, seed=i).bfloat16() for i, s in enumerate(shapes)], rtol=2e-2, atol=2e-2)


# ---- a small CNN with modules ------------------------------------------------------

def test_small_cnn_training_step(mode):
    """Conv2d + BatchNorm2d + MaxPool2d + Linear: the loss, every parameter's
    gradient and the running stats after one step equal PyTorch's."""
    def model():
        torch.manual_seed(0)
        return torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3, padding=1), torch.nn.BatchNorm2d(4),
                                   torch.nn.MaxPool2d(2), torch.nn.AvgPool2d(2), torch.nn.Flatten(),
                                   torch.nn.Linear(16, 2))
    cpu, tpu = model(), tt.to_tpu(model())
    x = randn(2, 3, 8, 8)
    cot = randn(2, 2, seed=1)
    want = cpu(x)
    got = tpu(tt.to_tpu(x))
    assert_close(got, want)
    (want * cot).sum().backward()
    (got * tt.to_tpu(cot)).sum().backward()
    for (name, p), q in zip(cpu.named_parameters(), tpu.parameters()):
        assert_close(q.grad, p.grad, what=f"grad of {name}")
    for (name, buf), tbuf in zip(cpu.named_buffers(), tpu.buffers()):
        assert_close(tbuf, buf, what=name)
