OUT = 'reduce_window.mlir'
from kg import *
import numpy as np, math, sys, warnings, itertools
warnings.simplefilter('ignore')
inf, nan = math.inf, math.nan
C = []
FN = {'add': lambda a, b: a + b, 'maximum': lambda a, b: a if (a != a or a >= b) else b, 'minimum': lambda a, b: a if (a != a or a <= b) else b,
      'multiply': lambda a, b: a * b, 'and': lambda a, b: a and b}

def rw_ref(x, init, op, wd, ws, bd, wdl, pad):
    """The spec's reduce_window: pad (with base dilation as interior padding)
    by the init value, then fold every dilated window."""
    x = np.asarray(x)
    r = x.ndim
    dil_shape = [(d - 1) * b + 1 if d else 0 for d, b in zip(x.shape, bd)]
    pshape = [s + lo + hi for s, (lo, hi) in zip(dil_shape, pad)]
    P = np.full([max(p, 0) for p in pshape], init, dtype=x.dtype)
    for idx in np.ndindex(*x.shape):
        q = [i * b + lo for i, b, (lo, hi) in zip(idx, bd, pad)]
        if all(0 <= v < s for v, s in zip(q, pshape)):
            P[tuple(q)] = x[idx]
    eff = [(w - 1) * d + 1 for w, d in zip(wd, wdl)]
    out_shape = [max(0, (p - e) // s + 1) if p >= e else 0 for p, e, s in zip(pshape, eff, ws)]
    out = np.zeros(out_shape, dtype=x.dtype)
    for o in np.ndindex(*out_shape):
        acc = init
        for w in np.ndindex(*wd):
            acc = FN[op](acc, P[tuple(oi * s + wi * d for oi, s, wi, d in zip(o, ws, w, wdl))])
        out[o] = acc
    return out

def rw(name, x, ty, init, op, wd, ws=None, bd=None, wdl=None, pad=None, comment=None, expect=None):
    a = arr(x, ty) if ty != 'i1' else np.asarray(x, dtype=bool)
    r = a.ndim
    ws, bd, wdl, pad = ws or [1] * r, bd or [1] * r, wdl or [1] * r, pad or [[0, 0]] * r
    iv = arr(init, ty) if ty != 'i1' else np.asarray(init, dtype=bool)
    e = rw_ref(a, iv[()], op, wd, ws, bd, wdl, pad)
    if expect is not None:
        assert np.array_equal(e, np.asarray(expect)), 'reference disagrees with the spec example'
    s = tt((), ty)
    body = ('%%r = "stablehlo.reduce_window"(%%a0, %%a1) ({\n  ^bb0(%%x: %s, %%y: %s):\n    %%s = stablehlo.%s %%x, %%y : %s\n    stablehlo.return %%s : %s\n'
            '}) {window_dimensions = array<i64: %s>, window_strides = array<i64: %s>, base_dilations = array<i64: %s>, window_dilations = array<i64: %s>, '
            'padding = dense<%s> : tensor<%dx2xi64>} : (%s, %s) -> %s') % (
        s, s, op, s, s, ', '.join(map(str, wd)), ', '.join(map(str, ws)), ', '.join(map(str, bd)), ', '.join(map(str, wdl)),
        [list(p) for p in pad], r, tt(a.shape, ty), s, tt(e.shape, ty))
    return Case(name, [(a, ty), (iv, ty)], body, [('%r', e, ty, 'eq')], comment)

C.append(rw('reduce_window_spec_example', [[1, 2], [3, 4], [5, 6]], 'i64', 0, 'add', [2, 1], [4, 1], [2, 1], [3, 1], [[2, 1], [0, 0]],
            'the example of docs/spec.md (reduce_window), result from the spec', expect=[[0, 0], [3, 4]]))
X = np.arange(1, 21).reshape(4, 5)
C.append(rw('max_pool_2x2_f32', X * 1.0, 'f32', -inf, 'maximum', [2, 2], [2, 2], comment='max pooling, stride 2, the last column dropped'))
C.append(rw('max_pool_same_pad_f32', [[1.0, nan, 3.0], [-inf, 5.0, -1.0]], 'f32', -inf, 'maximum', [3, 3], [1, 1], pad=[[1, 1], [1, 1]],
            comment='SAME padding with the init value; NaN propagates'))
C.append(rw('sum_pool_f64', X / 4, 'f64', 0.0, 'add', [2, 3], [1, 2]))
C.append(rw('sum_pool_pad_i32', X, 'i32', 0, 'add', [3, 3], [2, 2], pad=[[1, 2], [0, 1]]))
C.append(rw('min_window_dilated_i8', X - 10, 'i8', 127, 'minimum', [2, 2], [1, 1], wdl=[2, 3], comment='window dilation'))
C.append(rw('sum_base_dilated_ui16', X, 'ui16', 0, 'add', [2, 2], [1, 1], bd=[2, 2], comment='base dilation: the holes hold the init value'))
C.append(rw('sum_base_window_dilated_strided_f32', np.arange(8.0), 'f32', 0.0, 'add', [3], [3], [2], [2], [[1, 3]],
            comment='base and window dilation, stride and padding together'))
C.append(rw('mul_window_bf16', [1.0, 2.0, 0.5, 4.0, -1.0], 'bf16', 1.0, 'multiply', [2]))
C.append(rw('max_window_f16', [1.0, 65504.0, -65504.0, 2.0], 'f16', -inf, 'maximum', [3], [1], pad=[[2, 0]]))
C.append(rw('and_window_i1', [True, True, False, True, True], 'i1', True, 'and', [2]))
C.append(rw('sum_window_c64', [1j, 1 + 0j, 2 - 1j], 'complex<f32>', 0j, 'add', [2]))
C.append(rw('reduce_window_i64_3d', np.arange(24).reshape(2, 3, 4), 'i64', 0, 'add', [1, 2, 2], [1, 1, 2]))
C.append(rw('reduce_window_negative_pad', X, 'i32', 0, 'add', [1, 2], [1, 1], pad=[[-1, 0], [0, -2]], comment='negative padding crops'))
C.append(rw('reduce_window_empty_result', [1.0, 2.0], 'f32', 0.0, 'add', [3], comment='a window larger than the input: an empty result'))
X2 = np.array([3.0, 1.0, 4.0, 1.0, 5.0], dtype=np.float32)
C.append(Case('reduce_window_two_operands_argmax', [(X2, 'f32'), (np.arange(5, dtype=np.int32), 'i32'), (np.array(-np.inf, dtype=np.float32), 'f32'),
                                                     (np.array(-1, dtype=np.int32), 'i32')],
              '\n'.join(['%r:2 = "stablehlo.reduce_window"(%a0, %a1, %a2, %a3) ({',
                         '  ^bb0(%xv: tensor<f32>, %xi: tensor<i32>, %yv: tensor<f32>, %yi: tensor<i32>):',
                         '    %ge = stablehlo.compare  GE, %xv, %yv,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>',
                         '    %v = stablehlo.select %ge, %xv, %yv : tensor<i1>, tensor<f32>',
                         '    %i = stablehlo.select %ge, %xi, %yi : tensor<i1>, tensor<i32>',
                         '    stablehlo.return %v, %i : tensor<f32>, tensor<i32>',
                         '}) {window_dimensions = array<i64: 3>, window_strides = array<i64: 1>} : (tensor<5xf32>, tensor<5xi32>, tensor<f32>, tensor<i32>) -> (tensor<3xf32>, tensor<3xi32>)']),
              [('%r#0', np.array([max(X2[i:i + 3]) for i in range(3)], dtype=np.float32), 'f32', 'eq'),
               ('%r#1', np.array([i + int(np.argmax(X2[i:i + 3])) for i in range(3)], dtype=np.int32), 'i32', 'eq')],
              'two operands reduced together: a windowed argmax (no ties, so any order of the fold agrees)'))

def sas_ref(x, src, init, sel, ws_dims, strides, pad):
    x = np.asarray(x)
    res = np.full(x.shape, init, dtype=x.dtype)
    for o in np.ndindex(*np.shape(src)):
        best = None
        for w in np.ndindex(*ws_dims):
            q = tuple(oi * s + wi - lo for oi, s, wi, (lo, hi) in zip(o, strides, w, pad))
            if not all(0 <= v < d for v, d in zip(q, x.shape)):
                continue  # padding is never selected
            if best is None or not sel(x[best], x[q]):
                best = q
        res[best] = res[best] + np.asarray(src)[o]
    return res

def sas(name, x, ty, src, init, cmp, wd, ws, pad, comment=None, expect=None):
    a, s_, iv = arr(x, ty), arr(src, ty), arr(init, ty)
    selfn = {'GE': lambda p, q: p >= q, 'LE': lambda p, q: p <= q, 'GT': lambda p, q: p > q}[cmp]
    e = sas_ref(a, s_, iv[()], selfn, wd, ws, pad)
    if expect is not None:
        assert np.array_equal(e, np.asarray(expect)), 'reference disagrees with the spec example'
    s = tt((), ty)
    ctype = 'FLOAT' if ty.startswith(('f', 'bf')) else 'SIGNED'
    body = ('%%r = "stablehlo.select_and_scatter"(%%a0, %%a1, %%a2) ({\n  ^bb0(%%x: %s, %%y: %s):\n'
            '    %%c = stablehlo.compare  %s, %%x, %%y,  %s : (%s, %s) -> tensor<i1>\n    stablehlo.return %%c : tensor<i1>\n'
            '}, {\n  ^bb0(%%x: %s, %%y: %s):\n    %%s = stablehlo.add %%x, %%y : %s\n    stablehlo.return %%s : %s\n'
            '}) {window_dimensions = array<i64: %s>, window_strides = array<i64: %s>, padding = dense<%s> : tensor<%dx2xi64>} : (%s, %s, %s) -> %s') % (
        s, s, cmp, ctype, s, s, s, s, s, s, ', '.join(map(str, wd)), ', '.join(map(str, ws)), [list(p) for p in pad], a.ndim,
        tt(a.shape, ty), tt(s_.shape, ty), s, tt(a.shape, ty))
    return Case(name, [(a, ty), (s_, ty), (iv, ty)], body, [('%r', e, ty, 'eq')], comment)

C.append(sas('select_and_scatter_spec_example', [[1, 5], [2, 5], [3, 6], [4, 4]], 'i64', [[5, 6], [7, 8]], 0, 'GE', [3, 1], [2, 1], [[0, 1], [0, 0]],
             'the example of docs/spec.md (select_and_scatter), result from the spec', expect=[[0, 0], [0, 0], [5, 14], [7, 0]]))
C.append(sas('select_and_scatter_maxpool_grad_f32', [[1.0, 3.0, 2.0, 0.0], [4.0, 2.0, 3.0, 3.0], [0.5, 0.5, 9.0, 1.0], [0.5, 0.5, 1.0, 1.0]], 'f32',
             [[1.0, 2.0], [3.0, 4.0]], 0.0, 'GE', [2, 2], [2, 2], [[0, 0], [0, 0]], 'max pooling\'s gradient; ties (3, 3) select the first'))
C.append(sas('select_and_scatter_overlap_i32', [[1, 2, 3], [4, 5, 6], [7, 8, 9]], 'i32', [[1, 10], [100, 1000]], 0, 'GE', [2, 2], [1, 1], [[0, 0], [0, 0]],
             'overlapping windows selecting the same element add up'))
C.append(sas('select_and_scatter_min_padded_f64', [3.0, 1.0, 2.0, 1.0, 5.0], 'f64', [1.0, 2.0, 4.0], 10.0, 'LE', [3], [2], [[1, 1]],
             'select the minimum (LE: ties to the first); padding is never selected; init 10'))
C.append(sas('select_and_scatter_gt_last_tie_bf16', [2.0, 2.0, 2.0], 'bf16', [1.0], 0.0, 'GT', [3], [1], [[0, 0]],
             'GT: on ties the later element wins'))

HEADER = '''reduce_window and select_and_scatter (vm/kernels/reduce.c): the spec
examples with the spec's results, max / sum / min / multiply / and pooling
over f16, bf16, f32, f64, i8, i32, i64, ui16, i1, complex<f32>; strides,
padding (SAME, asymmetric, negative), base dilation, window dilation, all
together, 3-D, NaN, an empty result; select_and_scatter as max-pool gradient
with ties, overlapping windows, LE and GT selectors, padding never selected.
References: the spec's definitions written out in the generator (padded
input, dilated windows), checked against the spec examples.'''
print(write(out_path(OUT), HEADER, C, 'gen_reduce_window.py'))
