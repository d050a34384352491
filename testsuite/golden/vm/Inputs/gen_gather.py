OUT = 'gather_scatter.mlir'
from kg import *
import numpy as np, math, sys, warnings
warnings.simplefilter('ignore')
inf, nan = math.inf, math.nan
C = []

def gather_ref(op, idx, offset_dims, collapsed, obatch, ibatch, start_map, ivd, sizes):
    """The spec's gather semantics (docs/spec.md, gather), element by element."""
    op, idx = np.asarray(op), np.asarray(idx)
    if ivd == idx.ndim:
        idx = idx[..., None]
    batch_shape = [idx.shape[d] for d in range(idx.ndim) if d != ivd]
    offset_sizes = [sizes[d] for d in range(op.ndim) if d not in collapsed and d not in obatch]
    rank = len(batch_shape) + len(offset_dims)
    batch_dims = [d for d in range(rank) if d not in offset_dims]
    shape = [0] * rank
    for k, d in enumerate(batch_dims):
        shape[d] = batch_shape[k]
    for k, d in enumerate(offset_dims):
        shape[d] = offset_sizes[k]
    out = np.zeros(shape, dtype=op.dtype)
    offset_operand_dims = [d for d in range(op.ndim) if d not in collapsed and d not in obatch]
    for ri in np.ndindex(*shape):
        bi = [ri[d] for d in batch_dims]
        sl = list(bi)
        sl.insert(ivd, slice(None))
        start = idx[tuple(sl)]
        full = [0] * op.ndim
        for ds, do in enumerate(start_map):
            full[do] = min(max(int(start[ds]), 0), op.shape[do] - sizes[do])
        for ob, ib in zip(obatch, ibatch):
            full[ob] = bi[ib if ib < ivd else ib - 1]
        for k, d in enumerate(offset_dims):
            full[offset_operand_dims[k]] += ri[d]
        out[ri] = op[tuple(full)]
    return out

def scatter_ref(inp, idx, upd, uwd, iwd, ibatch, sbatch, s2o, ivd, fn):
    """The spec's scatter semantics; updates out of bounds are skipped."""
    res = np.array(inp).copy()
    idx, upd = np.asarray(idx), np.asarray(upd)
    if ivd == idx.ndim:
        idx = idx[..., None]
    usd = [d for d in range(upd.ndim) if d not in uwd]
    window_operand_dims = [d for d in range(res.ndim) if d not in iwd and d not in ibatch]
    for ui in np.ndindex(*upd.shape):
        si = [ui[d] for d in usd]
        sl = list(si)
        sl.insert(ivd, slice(None))
        start = idx[tuple(sl)]
        full = [0] * res.ndim
        for ds, do in enumerate(s2o):
            full[do] = int(start[ds])
        for ob, sb in zip(ibatch, sbatch):
            full[ob] = si[sb if sb < ivd else sb - 1]
        for k, d in enumerate(uwd):
            full[window_operand_dims[k]] += ui[d]
        if all(0 <= f < s for f, s in zip(full, res.shape)):
            res[tuple(full)] = fn(res[tuple(full)], upd[ui])
    return res

def gather(name, op, ty, idx, ity, offset_dims, collapsed, start_map, ivd, sizes, obatch=(), ibatch=(), comment=None, expect=None):
    x, i = arr(op, ty), np.asarray(idx, dtype=INTS[ity])
    e = gather_ref(x, i, offset_dims, collapsed, obatch, ibatch, start_map, ivd, sizes)
    if expect is not None:
        assert np.array_equal(e, np.asarray(expect)), 'reference disagrees with the spec example'
    dn = 'offset_dims = %s, collapsed_slice_dims = %s, ' % (list(offset_dims), list(collapsed))
    if obatch:
        dn += 'operand_batching_dims = %s, start_indices_batching_dims = %s, ' % (list(obatch), list(ibatch))
    dn += 'start_index_map = %s, index_vector_dim = %d' % (list(start_map), ivd)
    body = ('%%r = "stablehlo.gather"(%%a0, %%a1) {dimension_numbers = #stablehlo.gather<%s>, slice_sizes = array<i64: %s>, '
            'indices_are_sorted = false} : (%s, %s) -> %s') % (dn, ', '.join(map(str, sizes)), tt(x.shape, ty), tt(i.shape, ity), tt(e.shape, ty))
    return Case(name, [(x, ty), (i, ity)], body, [('%r', e, ty, 'eq')], comment)

SPEC_OP = np.arange(1, 49).reshape(2, 3, 4, 2)
SPEC_IDX = [[[[0, 0], [1, 0], [2, 1]], [[0, 1], [1, 1], [0, 9]]], [[[0, 0], [2, 1], [2, 2]], [[1, 2], [0, 1], [1, 0]]]]
SPEC_RES = [[[[[1, 2], [3, 4]], [[3, 4], [5, 6]], [[13, 14], [15, 16]]], [[[33, 34], [35, 36]], [[35, 36], [37, 38]], [[41, 42], [43, 44]]]],
            [[[[1, 2], [3, 4]], [[13, 14], [15, 16]], [[21, 22], [23, 24]]], [[[43, 44], [45, 46]], [[33, 34], [35, 36]], [[27, 28], [29, 30]]]]]
C.append(gather('gather_spec_example', SPEC_OP, 'i32', SPEC_IDX, 'i64', [3, 4], [1], [2, 1], 3, [1, 1, 2, 2], obatch=[0], ibatch=[1],
                comment='the example of docs/spec.md (gather), result from the spec: batching dims, a clamped index 9', expect=SPEC_RES))
T = np.arange(20).reshape(5, 4) * 1.5
C.append(gather('gather_rows_f32', T, 'f32', [[3], [0], [4], [3]], 'i32', [1], [0], [0], 1, [1, 4], comment='embedding-style: whole rows, repeated'))
C.append(gather('gather_rows_ivd_last_bf16', T, 'bf16', [3, 1], 'i32', [1], [0], [0], 1, [1, 4], comment='index_vector_dim = rank: scalar indices'))
C.append(gather('gather_clamped_f64', T, 'f64', [[-5, 1], [4, 3], [2, 100]], 'i64', [1, 2], [], [0, 1], 1, [2, 2],
                comment='start indices clamp so the slice fits: [-5, 1] -> [0, 1], [4, 3] -> [3, 2]'))
C.append(gather('gather_points_i8', np.arange(20).reshape(5, 4), 'i8', [[0, 0], [4, 3], [2, 1]], 'ui8', [], [0, 1], [0, 1], 1, [1, 1]))
C.append(gather('gather_swapped_map_ui64', np.arange(12).reshape(3, 4) * (2**40), 'ui64', [[1, 2], [3, 0]], 'i32', [1], [1], [1, 0], 1, [2, 1],
                comment='start_index_map = [1, 0]: the index vector is (column, row)'))
C.append(gather('gather_ivd0_c64', (np.arange(6) + 1j).reshape(2, 3), 'complex<f32>', [[1, 0, 1]], 'i32', [1], [0], [0], 0, [1, 3],
                comment='index_vector_dim = 0'))
C.append(gather('gather_offset_first_i16', np.arange(24).reshape(2, 3, 4), 'i16', [[1, 2], [0, 0]], 'i32', [0, 1], [1], [1, 2], 1, [2, 1, 2],
                comment='offset dims before the batch dim in the result'))
C.append(gather('gather_empty_indices_f16', T, 'f16', np.zeros((0, 1)), 'i32', [1], [0], [0], 1, [1, 4], comment='no indices: an empty result'))
C.append(gather('gather_i1', [True, False, True, False], 'i1', [[1], [2]], 'i32', [], [0], [0], 1, [1]))
C.append(gather('gather_ui64_huge_indices', [10, 11, 12, 13], 'i32', [[2**63], [2**64 - 1], [1]], 'ui64', [1], [], [0], 1, [2],
                comment='ui64 starts at and above 2^63 clamp to the end'))
C.append(gather('gather_ui8_indices_past_end', [10, 11, 12, 13], 'i32', [[200], [255]], 'ui8', [], [0], [0], 1, [1]))

def scatter(name, inp, ty, idx, ity, upd, uwd, iwd, s2o, ivd, op='add', comment=None, ibatch=(), sbatch=(), expect=None):
    x, i, u = arr(inp, ty), np.asarray(idx, dtype=INTS[ity]), arr(upd, ty)
    fns = {'add': (lambda a, b: a + b), 'replace': (lambda a, b: b), 'maximum': (lambda a, b: max(a, b)),
           'multiply': (lambda a, b: a * b), 'or': (lambda a, b: a or b)}
    e = scatter_ref(x, i, u, uwd, iwd, ibatch, sbatch, s2o, ivd, fns[op])
    if expect is not None:
        assert np.array_equal(e, np.asarray(expect)), 'reference disagrees with the spec example'
    s = tt((), ty)
    if op == 'replace':
        region = 'stablehlo.return %y : ' + s
    else:
        region = '%%s = stablehlo.%s %%x, %%y : %s\n    stablehlo.return %%s : %s' % (op, s, s)
    dn = 'update_window_dims = %s, inserted_window_dims = %s, ' % (list(uwd), list(iwd))
    if ibatch:
        dn += 'input_batching_dims = %s, scatter_indices_batching_dims = %s, ' % (list(ibatch), list(sbatch))
    dn += 'scatter_dims_to_operand_dims = %s, index_vector_dim = %d' % (list(s2o), ivd)
    body = ('%%r = "stablehlo.scatter"(%%a0, %%a1, %%a2) ({\n  ^bb0(%%x: %s, %%y: %s):\n    %s\n'
            '}) {scatter_dimension_numbers = #stablehlo.scatter<%s>, indices_are_sorted = false, unique_indices = false} : (%s, %s, %s) -> %s') % (
        s, s, region, dn, tt(x.shape, ty), tt(i.shape, ity), tt(u.shape, ty), tt(x.shape, ty))
    return Case(name, [(x, ty), (i, ity), (u, ty)], body, [('%r', e, ty, 'eq')], comment)

# the spec's scatter example (docs/spec.md, scatter)
SX = np.arange(1, 49).reshape(2, 3, 4, 2)
SI = [[[[0, 0], [1, 0], [2, 1]], [[0, 1], [1, 1], [0, 9]]], [[[0, 0], [2, 1], [2, 2]], [[1, 2], [0, 1], [1, 0]]]]
SU = np.ones((2, 2, 3, 2, 2), dtype=np.int64)
SR = [[[[3, 4], [6, 7], [6, 7], [7, 8]], [[9, 10], [11, 12], [15, 16], [17, 18]], [[17, 18], [19, 20], [22, 23], [24, 25]]],
      [[[25, 26], [28, 29], [30, 31], [31, 32]], [[35, 36], [38, 39], [38, 39], [39, 40]], [[41, 42], [44, 45], [46, 47], [47, 48]]]]
C.append(scatter('scatter_spec_example', SX, 'i64', SI, 'i64', SU, [3, 4], [1], [2, 1], 3, ibatch=[0], sbatch=[1],
                 comment='the example of docs/spec.md (scatter), result from the spec: batching dims, overlapping windows added,\nthe out-of-bounds window [0, 9] skipped', expect=SR))
Z = np.zeros((5, 3))
C.append(scatter('scatter_add_rows_f32', Z, 'f32', [[1], [3], [1]], 'i32', [[1, 2, 3], [4, 5, 6], [10, 20, 30]], [1], [0], [0], 1,
                 comment='add: duplicate indices accumulate'))
C.append(scatter('scatter_replace_rows_i32', np.arange(15).reshape(5, 3), 'i32', [[4], [0]], 'i32', [[-1, -2, -3], [-4, -5, -6]], [1], [0], [0], 1, op='replace',
                 comment='a body returning the update replaces'))
C.append(scatter('scatter_out_of_bounds_f64', Z, 'f64', [[-1], [5], [2], [100]], 'i64', [[1, 1, 1], [2, 2, 2], [3, 3, 3], [4, 4, 4]], [1], [0], [0], 1,
                 comment='windows wholly out of bounds (-1, 5, 100) are skipped'))
C.append(scatter('scatter_points_max_i8', np.zeros((3, 3)), 'i8', [[0, 0], [2, 1], [0, 0]], 'ui32', [5, -7, 9], [], [0, 1], [0, 1], 1, op='maximum'))
C.append(scatter('scatter_mul_bf16', np.ones((4,)), 'bf16', [[0], [3], [0]], 'i32', [2.0, 0.5, 3.0], [], [0], [0], 1, op='multiply'))
C.append(scatter('scatter_window_2d_ui16', np.zeros((4, 5)), 'ui16', [[1, 2], [0, 0]], 'i32', [[[1, 2], [3, 4]], [[10, 20], [30, 40]]], [1, 2], [], [0, 1], 1,
                 comment='2x2 update windows'))
C.append(scatter('scatter_c128', np.zeros((3,), dtype=complex), 'complex<f64>', [[2], [2]], 'i32', [1j, 2 + 0j], [], [0], [0], 1))
C.append(scatter('scatter_i1_or', [False, False, True], 'i1', [[0], [1]], 'i32', [True, False], [], [0], [0], 1, op='or'))
C.append(scatter('scatter_empty_updates', np.arange(4), 'i32', np.zeros((0, 1)), 'i32', np.zeros((0,)), [], [0], [0], 1,
                 comment='no updates: the input unchanged'))
C.append(scatter('scatter_scalar_indices_f16', np.zeros((4, 2)), 'f16', [3, 1, 3], 'i32', [[0.5, 1.0], [2.0, 4.0], [0.25, 0.25]], [1], [0], [0], 1))
C.append(scatter('scatter_ui64_huge_indices', [0, 0, 0], 'i32', [[2**64 - 1], [2**63], [2]], 'ui64', [5, 6, 7], [], [0], [0], 1,
                 comment='ui64 indices at and above 2^63 are out of bounds: skipped'))

HEADER = '''gather and scatter (vm/kernels/gather.c): the examples of docs/spec.md
(batching dims, clamped gather starts, overlapping and out-of-bounds
scatter windows) with the spec's own results, embedding-style row gathers,
scalar indices (index_vector_dim = rank), index_vector_dim = 0, swapped
start_index_map, offset dims before the batch dims, clamping from below and
above, i8 / ui8 / ui32 / i64 indices, empty index sets; scatter with add
(duplicates accumulate), replace, maximum, multiply and or bodies, windows
wholly out of bounds skipped, 2-D windows, over i1, i8, i16, i32, i64, ui16,
ui64, f16, bf16, f32, f64, complex.  References: the spec's semantics written
out element by element in the generator (checked against the spec examples).'''
print(write(out_path(OUT), HEADER, C, 'gen_gather.py'))
