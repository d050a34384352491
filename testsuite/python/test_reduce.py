"""Reductions and losses on tpurun.torch (lower_reduce.py, lower_loss.py): forward and backward against
PyTorch CPU in every eager mode."""
import math

import pytest
import torch
import torch.nn.functional as F

from torchcheck import run_both

G = torch.Generator().manual_seed(0)


def randn(*shape):
    return torch.randn(*shape, generator=G)


X = randn(3, 4, 5)
X2 = randn(4, 6)
# ties (first occurrence wins) and a NaN row for the index reductions
TIES = torch.tensor([[1.0, 3.0, 3.0, 0.0], [2.0, 2.0, -1.0, -1.0], [0.5, math.nan, 7.0, math.nan]])
INTS = torch.tensor([[3, -1, 4], [1, 5, -9]], dtype=torch.int32)
LABELS = torch.tensor([0, 3, 1, 3, 2])
MASK = torch.rand(4, 6, generator=G) > 0.6
MASK[:, 0] = False
BOOLS = torch.tensor([[True, False, True], [False, False, False]])

CASES = {
    "sum": (lambda x: x.sum(), X),
    "sum_dims_keepdim": (lambda x: x.sum((0, -1), keepdim=True), X),
    "sum_neg_dim": (lambda x: x.sum(-2), X),
    "sum_dtype": (lambda x: x.sum(1, dtype=torch.float64), X),
    "sum_int": (lambda x: x.sum(), INTS),
    "sum_int_dim": (lambda x: x.sum(0), INTS),
    "sum_bool": (lambda x: x.sum(1), BOOLS),
    "sum_scalar": (lambda x: x.sum(), torch.tensor(2.5)),
    "mean": (lambda x: x.mean(), X),
    "mean_dim": (lambda x: x.mean((1, 2), keepdim=True), X),
    "mean_neg": (lambda x: x.mean(-1), X2),
    "prod": (lambda x: x.prod(), X2[:2, :3]),
    "prod_dim": (lambda x: x.prod(1, keepdim=True), X2),
    "prod_int": (lambda x: x.prod(1), INTS),
    "amax": (lambda x: x.amax((0, 2)), X),
    "amin_keepdim": (lambda x: x.amin(-1, keepdim=True), X),
    "argmax_int": (lambda x: x.argmax(1), INTS),
    "max_all": (lambda x: x.max(), X),
    "min_all": (lambda x: x.min(), X2),
    "max_dim": (lambda x: x.max(1), X),
    "min_dim_keepdim": (lambda x: x.min(-1, keepdim=True), X),
    "max_dim_ties_nan": (lambda x: x.max(1), TIES),
    "min_dim_ties_nan": (lambda x: x.min(1), TIES),
    "max_int": (lambda x: x.max(0), INTS),
    "argmax": (lambda x: x.argmax(), X),
    "argmax_dim": (lambda x: x.argmax(-1, keepdim=True), TIES),
    "argmin_dim": (lambda x: x.argmin(0), TIES),
    "argmin_all_keepdim": (lambda x: torch.argmin(x, keepdim=True), X2),
    "var": (lambda x: x.var(), X),
    "var_dim": (lambda x: x.var(1, keepdim=True), X),
    "var_biased": (lambda x: x.var((0, 1), unbiased=False), X),
    "var_correction": (lambda x: torch.var(x, -1, correction=2), X2),
    "std": (lambda x: x.std(), X),
    "std_dim": (lambda x: x.std(0, unbiased=False), X2),
    "var_mean": (lambda x: torch.var_mean(x, 1), X),
    "std_mean": (lambda x: torch.std_mean(x, (0, 2), keepdim=True), X),
    "logsumexp": (lambda x: x.logsumexp(1), X),
    "logsumexp_keepdim": (lambda x: x.logsumexp((-1, 0), keepdim=True), X),
    "cumsum": (lambda x: x.cumsum(1), X),
    "cumsum_neg": (lambda x: x.cumsum(-1), X2),
    "cumsum_int": (lambda x: x.cumsum(1), INTS),
    "cumprod": (lambda x: x.cumprod(0), X2),
    "norm": (lambda x: torch.norm(x), X),
    "norm_p1_dim": (lambda x: torch.norm(x, p=1, dim=1), X2),
    "vector_norm_2": (lambda x: torch.linalg.vector_norm(x, dim=(0, 2), keepdim=True), X),
    "vector_norm_inf": (lambda x: torch.linalg.vector_norm(x, math.inf, dim=-1), X2),
    "vector_norm_3": (lambda x: torch.linalg.vector_norm(x, 3, dim=0), X2),
    "softmax": (lambda x: x.softmax(1), X),
    "softmax_neg": (lambda x: torch.softmax(x, -1), X2),
    "log_softmax": (lambda x: x.log_softmax(-1), X),
    "log_softmax_big": (lambda x: (x * 100).log_softmax(0), X2),
    "softmax_masked": (lambda x: x.masked_fill(MASK, -math.inf).softmax(-1), X2),
    "log_softmax_masked": (lambda x: x.masked_fill(MASK, -math.inf).log_softmax(-1).masked_fill(MASK, 0), X2),
}


A = torch.ops.aten
ATEN_CASES = {  # overloads the Python API of 1.13 does not emit, called directly
    "var.dim": (lambda x: A.var.dim(x, [1], False, True), X),
    "var.default": (lambda x: A.var.default(x, False), X2),
    "std.dim": (lambda x: A.std.dim(x, [0, 2], True), X),
    "std.default": (lambda x: A.std.default(x), X2),
    "sum_int_to_float": (lambda x: x.sum(0, dtype=torch.float32), INTS),
    "mean_dtype": (lambda x: x.mean(1, dtype=torch.float64), X2),
    "prod_dtype": (lambda x: x.prod(dtype=torch.float64), X2[:2]),
    "norm.ScalarOpt_dtype": (lambda x: A.norm.ScalarOpt_dtype(x, 2, dtype=torch.float64), X2),
    "norm.Scalar": (lambda x: A.norm.Scalar(x, 1), X2),
    "vector_norm_0": (lambda x: torch.linalg.vector_norm(x, 0, dim=1), X2.masked_fill(MASK, 0)),
    "vector_norm_neg_inf": (lambda x: torch.linalg.vector_norm(x, -math.inf), X2),
    "nll_loss_forward": (lambda x: A.nll_loss_forward(x, LABELS[:4], None, 1, -100), X2),
    "nll_loss_forward_none_1d": (lambda x: A.nll_loss_forward(x, LABELS[1], None, 0, -100), X2[0]),
}


@pytest.mark.parametrize("name", sorted(ATEN_CASES))
def test_aten_overload(mode, name):
    fn, x = ATEN_CASES[name]
    run_both(fn, x, grad=x.is_floating_point() and name != "vector_norm_0")


@pytest.mark.parametrize("name", sorted(CASES))
def test_reduction(mode, name):
    fn, x = CASES[name]
    run_both(fn, x)


def test_nan_propagates(mode):
    """amax/amin/max/min of a row holding NaN are NaN (forward only: the backward divides by 0)."""
    for fn in (lambda x: x.amax(1), lambda x: x.amin(1), lambda x: x.max(), lambda x: x.min()):
        run_both(fn, TIES, grad=False)


@pytest.mark.parametrize("op", ["any", "all"])
def test_any_all(mode, op):
    for x in (BOOLS, INTS, torch.tensor([0.0, 0.5]), torch.tensor([[1, 0], [2, 3]], dtype=torch.uint8)):
        run_both(lambda t: getattr(t, op)(), x)
        run_both(lambda t: getattr(t, op)(1), x if x.dim() > 1 else x[None])
        run_both(lambda t: getattr(t, op)(-1, keepdim=True), x)


def test_logsumexp_of_minus_infinity(mode):
    """A row of -inf sums to -inf (Debug mode would report log's -inf: not run there)."""
    if mode == "debug":
        pytest.skip("Debug mode reports the -inf log makes")
    run_both(lambda x: x.logsumexp(1), torch.tensor([[-math.inf, -math.inf], [0.0, -math.inf]]))


def test_empty_reductions(mode):
    empty = torch.zeros(0, 3)
    run_both(lambda x: x.sum(0), empty)
    run_both(lambda x: x.prod(0), empty)
    run_both(lambda x: x.sum(), empty)
    run_both(lambda x: x.any(0), empty > 0)
    run_both(lambda x: x.cumsum(1), empty)


# ---- losses (lower_loss.py) ----------------------------------------------------

LOGITS = randn(5, 4)
IGNORED = torch.tensor([0, -100, 1, 2, -100])
WEIGHT = torch.tensor([0.5, 2.0, 1.0, 3.0])
IMAGE = randn(2, 3, 2, 2)
PIXEL_LABELS = torch.tensor([[[0, 2], [1, 1]], [[2, 0], [-100, 1]]])
PRED, AIM = randn(3, 4), randn(3, 4)
PROBS, BITS = torch.rand(3, 4, generator=G) * 0.9 + 0.05, torch.rand(3, 4, generator=G)

REDUCTIONS = ["none", "mean", "sum"]


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_nll_loss(mode, reduction):
    logp = F.log_softmax(LOGITS, 1)
    run_both(lambda x, t: F.nll_loss(x, t, reduction=reduction), logp, LABELS)
    run_both(lambda x, t: F.nll_loss(x, t, weight=WEIGHT, reduction=reduction), logp, IGNORED)
    run_both(lambda x, t: F.nll_loss(x, t, ignore_index=3, reduction=reduction), logp, LABELS)
    run_both(lambda x, t: F.nll_loss(x, t, weight=WEIGHT, reduction=reduction), logp[0], LABELS[1])
    run_both(lambda x, t: F.nll_loss(x, t, weight=WEIGHT[:3], reduction=reduction), IMAGE, PIXEL_LABELS)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cross_entropy(mode, reduction):
    run_both(lambda x, t: F.cross_entropy(x, t, reduction=reduction), LOGITS, IGNORED)
    run_both(lambda x, t: F.cross_entropy(x, t, weight=WEIGHT, reduction=reduction), LOGITS * 30, LABELS)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_regression_losses(mode, reduction):
    run_both(lambda x, y: F.mse_loss(x, y, reduction=reduction), PRED, AIM)
    run_both(lambda x, y: F.l1_loss(x, y, reduction=reduction), PRED, AIM)
    run_both(lambda x, y: F.smooth_l1_loss(x, y, reduction=reduction, beta=0.7), PRED, AIM)
    run_both(lambda x, y: F.smooth_l1_loss(x, y, reduction=reduction, beta=0.0), PRED, AIM)
    run_both(lambda x, y: F.huber_loss(x, y, reduction=reduction, delta=0.6), PRED, AIM)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_binary_cross_entropy(mode, reduction):
    run_both(lambda p: F.binary_cross_entropy(p, BITS, reduction=reduction), PROBS)
    run_both(lambda p: F.binary_cross_entropy(p, BITS, weight=WEIGHT, reduction=reduction), PROBS)
    run_both(lambda x: F.binary_cross_entropy_with_logits(x, BITS, reduction=reduction), PRED * 5)
    run_both(lambda x: F.binary_cross_entropy_with_logits(x, BITS, weight=WEIGHT, pos_weight=WEIGHT.flip(0),
                                                          reduction=reduction), PRED)


def test_bfloat16_accumulates_in_float32(mode):
    """bf16 inputs: sums, softmax, variance and norms accumulate in float32 as PyTorch's CPU kernels
    do (CPU PyTorch 1.13 has no float16 softmax to compare with)."""
    x = (randn(4, 64) * 3).to(torch.bfloat16)
    for fn in (lambda t: t.sum(1), lambda t: t.mean(), lambda t: t.softmax(-1), lambda t: t.log_softmax(0),
               lambda t: t.var(1), lambda t: t.logsumexp(1), lambda t: torch.linalg.vector_norm(t, dim=1),
               lambda t: t.cumsum(1)):
        run_both(fn, x, rtol=1e-2, atol=1e-2)
