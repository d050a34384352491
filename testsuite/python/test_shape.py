"""tpurun.torch's shape and data-movement lowerings (lower_shape.py):
views forward and backward, writes through views (every alias sees them),
joins, padding, indexing, gather/scatter and embedding, in every mode."""
import pytest
import torch

import tpurun.torch as tt
from torchcheck import assert_close, run_both

pytestmark = pytest.mark.filterwarnings("ignore:scatter_reduce.. is in beta")

torch.manual_seed(0)
X = torch.randn(3, 4)
X3 = torch.randn(2, 3, 4)
IDX = torch.tensor([2, 0, -1, 1])

VIEWS = {
    "view": lambda x: x.view(4, 6) * 1,
    "view_neg": lambda x: x.view(-1),
    "reshape_t": lambda x: x[0].t().reshape(12),
    "flatten": lambda x: x.flatten(1),
    "permute": lambda x: x.permute(2, 0, 1),
    "transpose": lambda x: x.transpose(0, -1),
    "t": lambda x: x[0].t(),
    "expand": lambda x: x[:, :1].expand(2, 3, 4),
    "squeeze": lambda x: x[:, :1].squeeze(),
    "squeeze_dim": lambda x: x[:, :1].squeeze(1),
    "unsqueeze": lambda x: x.unsqueeze(-1),
    "slice": lambda x: x[:, 1:-1, ::2],
    "slice_huge": lambda x: x[-100:100, 2:],
    "slice_empty": lambda x: x[:, 3:1],
    "select": lambda x: x[:, -1],
    "split": lambda x: x.split(3, dim=-1),
    "split_sizes": lambda x: x.split([1, 2], dim=1),
    "chunk": lambda x: x.chunk(2, dim=0),
    "unbind": lambda x: x.unbind(1),
    "narrow": lambda x: x.narrow(2, 1, 2),
    "diagonal": lambda x: x.diagonal(0, 1, 2),
    "diagonal_off": lambda x: x[0].diagonal(1),
    "diagonal_neg": lambda x: x[0].diagonal(-1),
    "movedim": lambda x: x.movedim(0, 2),
}


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_views(mode, name):
    run_both(VIEWS[name], X3)


MOVES = {
    "cat": (lambda x, y: torch.cat([x, y, x[:, :0]], 1), (X, torch.randn(3, 2))),
    "cat_legacy_empty": (lambda x: torch.cat([x, torch.empty(0)], 0), (X,)),
    "stack": (lambda x, y: torch.stack([x, y], -1), (X, X * 2)),
    "flip": (lambda x: x.flip(0, -1), (X,)),
    "roll": (lambda x: x.roll((1, -5), (0, 1)), (X,)),
    "roll_flat": (lambda x: x.roll(5), (X,)),
    "repeat": (lambda x: x.repeat(2, 1, 3), (X,)),
    "pad": (lambda x: torch.nn.functional.pad(x, (1, 2, -1, 0), value=1.5), (X,)),
    "tril": (lambda x: x.tril(1), (X3,)),
    "triu": (lambda x: x.triu(-1), (X,)),
    "index_select": (lambda x: x.index_select(1, torch.tensor([3, 0, 0])), (X,)),
    "index_add": (lambda x, s: x.index_add(0, torch.tensor([2, 0, 2]), s, alpha=2), (X, torch.randn(3, 4))),
    "gather": (lambda x: x.gather(1, torch.tensor([[0, 3], [1, 1], [2, 0]])), (X,)),
    "scatter_src": (lambda x, s: x.scatter(0, torch.tensor([[2, 0, 1, 2], [1, 1, 0, 0]]), s), (X, torch.randn(2, 4))),
    "scatter_value": (lambda x: x.scatter(1, torch.tensor([[1], [0], [3]]), 2.5), (X,)),
    "scatter_add": (lambda x, s: x.scatter_add(1, torch.tensor([[0, 0], [1, 3], [2, 2]]), s),
                    (X, torch.randn(3, 2))),
    "index": (lambda x: x[IDX], (X,)),
    "index_none": (lambda x: x[:, torch.tensor([[0, 2], [-1, 1]])], (X3,)),
    "index_two": (lambda x: x[torch.tensor([1, 0]), :, torch.tensor([[3], [-2]])], (X3,)),
    "index_adjacent": (lambda x: x[:, torch.tensor([1, 2]), torch.tensor([0, 3])], (X3,)),
    "index_put": (lambda x, v: x.index_put((IDX[:2],), v), (X, torch.randn(4))),
    "index_put_acc": (lambda x, v: x.index_put((torch.tensor([0, 0, 2]), torch.tensor([1, 1, 3])), v, True),
                      (X, torch.randn(3))),
    "embedding": (lambda w: torch.nn.functional.embedding(torch.tensor([[1, 4], [4, 0], [1, 1]]), w, padding_idx=4),
                  (torch.randn(5, 3),)),
    "slice_scatter": (lambda x, s: torch.slice_scatter(x, s, 1, -3, None, 2), (X, torch.randn(3, 2))),
    "select_scatter": (lambda x, s: torch.select_scatter(x, s, 0, -1), (X, torch.randn(4))),
    "diagonal_scatter": (lambda x, s: torch.diagonal_scatter(x, s, -1), (X, torch.randn(2))),
    "take": (lambda x: x.take(torch.tensor([[0, 5], [-1, 5]])), (X,)),
    "put": (lambda x, s: x.put(torch.tensor([1, -2, 1]), s, accumulate=True), (X, torch.randn(3))),
    "scatter_sum": (lambda x, s: x.scatter_reduce(1, torch.tensor([[0, 0], [1, 3], [2, 2]]), s, "sum"),
                    (X, torch.randn(3, 2))),
    "scatter_amax": (lambda x, s: x.scatter_reduce(1, torch.tensor([[0, 0], [1, 3], [2, 2]]), s, "amax",
                                                   include_self=False), (X, torch.randn(3, 2))),
    "scatter_mean": (lambda x, s: x.scatter_reduce(0, torch.tensor([[0, 0, 1, 2]]), s, "mean"),
                     (X, torch.randn(1, 4))),
    "reflect_pad": (lambda x: torch.nn.functional.pad(x[None], (2, 1, 1, 2), mode="reflect"), (X,)),
    "replicate_pad": (lambda x: torch.nn.functional.pad(x, (2, 1), mode="replicate"), (X,)),
    "pixel_shuffle": (lambda x: torch.nn.functional.pixel_shuffle(x.reshape(1, 4, 1, 3), 2), (X,)),
    "pixel_unshuffle": (lambda x: torch.nn.functional.pixel_unshuffle(x.reshape(1, 1, 2, 6), 2), (X,)),
    "unfold": (lambda x: x.unfold(1, 2, 1).unfold(0, 2, 1), (X,)),
}


@pytest.mark.parametrize("name", sorted(MOVES))
def test_data_movement(mode, name):
    fn, inputs = MOVES[name]
    run_both(fn, *inputs)


def test_scatter_multiply(mode):
    run_both(lambda x: x.scatter(1, torch.tensor([[0, 0], [1, 1], [3, 3]]), torch.full((3, 2), 2.0),
                                 reduce="multiply"), X, grad=False)


def test_view_dtype_writes_through(mode):
    def f(x, one):
        x.view(torch.int32)[0].add_(1)
        return x, x.view(torch.int32)
    both(f)


def test_integer_ops(mode):
    x = torch.arange(12).reshape(3, 4)
    run_both(lambda x: (torch.cat([x, x.flip(1)]), x.t()[1:], x.gather(0, torch.tensor([[2, 1, 0, 0]])),
                        x[torch.tensor([0, -1])]), x)


def test_bool_mask_index_is_rejected(mode):
    x = tt.to_tpu(X)
    with pytest.raises(NotImplementedError, match="boolean mask"):
        x[X > 0]


def test_masked_assign_one_value(mode):
    x, xc = tt.to_tpu(X), X.clone()
    mask = X > 0
    x[mask] = 0.5
    xc[mask] = 0.5
    assert_close(x, xc)


def test_scale_grad_by_freq_is_rejected(mode):
    w = tt.to_tpu(torch.randn(5, 3)).requires_grad_()
    e = torch.nn.functional.embedding(torch.tensor([1, 1]), w, scale_grad_by_freq=True)
    with pytest.raises(NotImplementedError, match="scale_grad_by_freq"):
        e.sum().backward()


# ---- aliasing: writes through views ---------------------------------------------------------

def both(fn):
    """fn(x) on a TPU copy and a CPU copy of X; compares every returned tensor."""
    got, want = fn(tt.to_tpu(X.clone()), torch.ones(1)), fn(X.clone(), torch.ones(1))
    assert_close(got, want)


def test_slice_add_changes_base(mode):
    def f(x, one):
        v = x[1:3]
        v.add_(one)
        return x, v
    both(f)


def test_transpose_sees_later_write(mode):
    def f(x, one):
        t = x.t()
        x.mul_(2)
        return t, t[1]
    both(f)


def test_assignments(mode):
    def f(x, one):
        y = x[:, 0] * 1
        x[0] = 5
        x[:, 1] = y
        x[torch.tensor([2, -3])] = torch.arange(4.0)
        x.view(-1)[2] = 7
        x[1, ::2] = torch.tensor([8.0, 9.0])
        x[:, torch.tensor([3, 0])] = torch.tensor([[1.0], [2.0], [3.0]])
        x[torch.tensor([1]), torch.tensor([[2], [0]])] += 1
        x[-1, -3:100] = one * 4
        return x
    both(f)


def test_chain_of_views(mode):
    def f(x, one):
        a = x.t()[1:]
        c = a.unsqueeze(0)[0, :, 1]
        c.mul_(10)
        d = x.view(2, 6)
        s = d.split(4, 1)[1]
        s.add_(one)
        return x, a, c, d, s
    both(f)


def test_views_of_split_unbind_diagonal(mode):
    def f(x, one):
        x.unbind(0)[2].add_(one)
        x.diagonal(1).mul_(3)
        x.split([1, 3], 1)[1][0].mul_(-1)
        return x
    both(f)


def test_parameter_updated_under_no_grad(mode):
    p = torch.nn.Parameter(X.clone())
    tp = torch.nn.Parameter(tt.to_tpu(X.clone()))
    rows, col = tp[1:], tp.t()[2]
    with torch.no_grad():
        tp.add_(1)
        p.add_(1)
    assert_close((rows, col), (p[1:].detach(), p.t()[2].detach()))


def test_write_through_view_then_backward(mode):
    def f(x, y):
        z = x * 1
        z[1] = y
        z.t()[2].mul_(2)
        z[:, ::2] = y[:3, None] * 3
        return z
    run_both(f, X, torch.randn(4))


def test_write_through_expand_is_rejected(mode):
    x = tt.to_tpu(torch.zeros(3))
    with pytest.raises(RuntimeError, match="expand"):
        x.expand(2, 3).add_(1)


def test_unfold_writes_through(mode):
    def f(x, one):
        x.unfold(1, 2, 2)[1].mul_(3)
        return x
    both(f)


def test_as_strided(mode):
    run_both(lambda x: (x.as_strided((2, 2), (1, 4), 1), x.as_strided((3, 4), (4, 1))), X)


def test_as_strided_of_a_view_addresses_the_storage(mode):
    def f(x, one):
        v = x.t()[1:]
        s = v.as_strided((2, 2), (1, 4), 5)
        s.mul_(-1)
        return x, v, s
    both(f)


def test_select_assign_keeps_one_fused_graph():
    """x[t] = v over t: the index is an input of the graph, not a constant."""
    tt.set_mode("fused")
    x, v = tt.to_tpu(torch.zeros(6, 4)), tt.to_tpu(torch.ones(4))

    def new_graphs():
        m = tt.metrics()
        return m["compiles"] + m["cache"]["disk_hits"]
    counts = []
    for t in range(1, 6):
        x[t] = v * t
        x[t - 1].add_(v)
        tt.sync()
        counts.append(new_graphs())
    assert counts[1:] == [counts[1]] * 4, counts
    assert_close(x, torch.tensor([1.0, 2, 3, 4, 5, 5])[:, None].expand(6, 4))
