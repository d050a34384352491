OUT = 'sort.mlir'
from kg import *
import numpy as np, math, struct, sys, warnings
warnings.simplefilter('ignore')
inf, nan = math.inf, math.nan
C = []

def sort_case(name, ops, dim, cmp_dir, ctype, stable, key_order, comment=None, nkeys=1):
    """ops: [(array, ty)]; sorted along dim by operand 0 (and 1 when nkeys = 2,
    lexicographically) with compare cmp_dir; key_order maps an element to a
    Python sort key (ascending); a stable sort keeps equal keys in order."""
    ins = [(arr(a, ty), ty) for a, ty in ops]
    shp = ins[0][0].shape
    args = []
    for i, (a, ty) in enumerate(ins):
        args.append('%%x%d: %s, %%y%d: %s' % (i, tt((), ty), i, tt((), ty)))
    lines = ['%%r:%d = "stablehlo.sort"(%s) ({' % (len(ins), ', '.join('%%a%d' % i for i in range(len(ins)))),
             '  ^bb0(%s):' % ', '.join('%%x%d: %s, %%y%d: %s' % (i, tt((), ty), i, tt((), ty)) for i, (a, ty) in enumerate(ins))]
    t0 = tt((), ins[0][1])
    lines.append('    %%c = stablehlo.compare  %s, %%x0, %%y0,  %s : (%s, %s) -> tensor<i1>' % (cmp_dir, ctype, t0, t0))
    if nkeys == 2:
        t1 = tt((), ins[1][1])
        lines.append('    %%e = stablehlo.compare  EQ, %%x0, %%y0,  %s : (%s, %s) -> tensor<i1>' % (ctype, t0, t0))
        lines.append('    %%k1 = stablehlo.compare  %s, %%x1, %%y1 : (%s, %s) -> tensor<i1>' % (cmp_dir, t1, t1))
        lines.append('    %t = stablehlo.and %e, %k1 : tensor<i1>')
        lines.append('    %o = stablehlo.or %c, %t : tensor<i1>')
        lines.append('    stablehlo.return %o : tensor<i1>')
    else:
        lines.append('    stablehlo.return %c : tensor<i1>')
    lines.append('}) {dimension = %d : i64, is_stable = %s} : (%s) -> (%s)' % (
        dim, 'true' if stable else 'false', ', '.join(tt(shp, ty) for _, ty in ins), ', '.join(tt(shp, ty) for _, ty in ins)))
    # reference: Python's sorted() is stable
    outs = [a.copy() for a, _ in ins]
    moved = [np.moveaxis(a, dim, -1) for a, _ in ins]
    res = [np.moveaxis(o, dim, -1) for o in outs]
    for pos in np.ndindex(moved[0].shape[:-1]):
        n = moved[0].shape[-1]
        keyf = (lambda j: tuple(key_order(moved[k][pos][j]) for k in range(nkeys)))
        perm = sorted(range(n), key=keyf)
        for k in range(len(ins)):
            res[k][pos] = moved[k][pos][perm]
    checks = [('%%r#%d' % k, np.moveaxis(res[k], -1, dim), ty, 'eq') for k, (_, ty) in enumerate(ins)]
    return Case(name, ins, '\n'.join(lines), checks, comment)

def tk32(v):
    u = struct.unpack('<I', struct.pack('<f', float(v)))[0]
    return -(u & 0x7FFFFFFF) - 1 if u >> 31 else u

asc = lambda v: v
desc = lambda v: -v
C.append(sort_case('sort_f32_asc', [([3.0, -1.0, 2.5, -inf, inf, 0.0, -7.25], 'f32')], 0, 'LT', 'FLOAT', True, asc))
C.append(sort_case('sort_f32_totalorder', [([3.0, nan, -0.0, 0.0, -inf, 1.0, -0.0], 'f32')], 0, 'LT', 'TOTALORDER', True, tk32,
                   'TOTALORDER puts -0 before +0 and NaN last'))
C.append(sort_case('sort_i32_desc', [([5, -2**31, 2**31 - 1, 0, 5, -1], 'i32')], 0, 'GT', 'SIGNED', True, lambda v: -int(v)))
C.append(sort_case('sort_ui8_asc', [([255, 0, 128, 127, 1], 'ui8')], 0, 'LT', 'UNSIGNED', False, lambda v: int(v), 'unsigned order'))
C.append(sort_case('sort_i64_2d_dim1', [([[3, 1, 2], [-1, -3, -2]], 'i64')], 1, 'LT', 'SIGNED', False, lambda v: int(v)))
C.append(sort_case('sort_f64_2d_dim0', [([[3.0, 1.0], [-1.0, 5.0], [2.0, -5.0]], 'f64')], 0, 'GT', 'FLOAT', False, lambda v: -v))
C.append(sort_case('sort_bf16', [([1.0078125, 1.0, -2.0, 0.5], 'bf16')], 0, 'LT', 'FLOAT', False, asc))
C.append(sort_case('sort_f16_desc', [([65504.0, -65504.0, 0.001, 1.0], 'f16')], 0, 'GT', 'FLOAT', False, lambda v: -float(v)))
C.append(sort_case('sort_stable_kv', [([2, 1, 2, 1, 0, 2, 1], 'i32'), ([10, 11, 12, 13, 14, 15, 16], 'i32')], 0, 'LT', 'SIGNED', True,
                   lambda v: int(v), 'keys and values: a stable sort keeps equal keys in their original order'))
C.append(sort_case('sort_stable_kv_f32_values_c64', [([1.0, 0.0, 1.0, 0.0], 'f32'), ([1j, 2j, 3j, 4j], 'complex<f32>'), ([True, False, False, True], 'i1')],
                   0, 'GT', 'FLOAT', True, lambda v: -v, 'three operands, values of other types follow their key'))
C.append(sort_case('sort_two_keys', [([1, 0, 1, 0, 1], 'i32'), ([5, 9, 2, 1, 3], 'ui16')], 0, 'LT', 'SIGNED', True, lambda v: int(v),
                   'a comparator over two keys: lexicographic', nkeys=2))
C.append(sort_case('sort_stable_2d_dim0', [([[1, 2], [0, 2], [1, 2], [0, 1]], 'i8'), ([[0, 1], [2, 3], [4, 5], [6, 7]], 'i8')], 0, 'LT', 'SIGNED', True,
                   lambda v: int(v)))
long = (np.arange(300) * 7919) % 101
C.append(sort_case('sort_long_stable', [(long, 'i32'), (np.arange(300), 'i32')], 0, 'LT', 'SIGNED', True, lambda v: int(v), '300 elements, many ties'))
C.append(sort_case('sort_empty', [(np.zeros((2, 0)), 'f32')], 1, 'LT', 'FLOAT', True, asc))
C.append(sort_case('sort_single', [([[4.0], [3.0]], 'f32')], 1, 'LT', 'FLOAT', True, asc))

def topk(name, a, ty, k, comment=None):
    x = arr(a, ty)
    idx = np.stack([np.array(sorted(range(x.shape[-1]), key=lambda j: (-float(row[j]), j))[:k]) for row in x.reshape(-1, x.shape[-1])])
    idx = idx.reshape(x.shape[:-1] + (k,))
    vals = np.take_along_axis(x, idx, -1)
    body = '%%v, %%i = chlo.top_k(%%a0, k = %d) : %s -> (%s, %s)' % (k, tt(x.shape, ty), tt(vals.shape, ty), tt(vals.shape, 'i32'))
    return Case(name, [(x, ty)], body, [('%v', vals, ty, 'eq'), ('%i', idx.astype(np.int32), 'i32', 'eq')], comment)
C.append(topk('top_k_f32', [[1.0, 5.0, 3.0, 5.0, -inf], [0.0, -1.0, -2.0, -3.0, -4.0]], 'f32', 3, 'largest k along the last dim, ties to the lower index'))
C.append(topk('top_k_i32', [7, -2**31, 2**31 - 1, 7, 0], 'i32', 2))
C.append(topk('top_k_bf16_all', [[0.5, 0.25, 1.0]], 'bf16', 3))
C.append(topk('top_k_3d_ui8', np.arange(24).reshape(2, 3, 4) * 37 % 11, 'ui8', 2))
C.append(topk('top_k_f64_k1', [[-1.0, -0.5]], 'f64', 1))

HEADER = '''sort (vm/kernels/sort.c) with LT / GT comparators of every comparison type
(FLOAT, TOTALORDER with -0.0 and NaN, SIGNED, UNSIGNED) over f16, bf16, f32,
f64, i8..i64, ui8, ui16; along dimension 0 and 1; stable sorts of keys and
values (i32, complex<f32>, i1 following their key), a two-key comparator, 300
elements with many ties, empty and length-1 dimensions; chlo.top_k with ties
(lower index first), k = 1 and k = n, 3-D.  References: Python's stable
sorted().'''
print(write(out_path(OUT), HEADER, C, 'gen_sort.py'))
