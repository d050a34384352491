OUT = 'map.mlir'
import numpy as np, math, sys, warnings
from kg import *
inf, nan = math.inf, math.nan

warnings.simplefilter('ignore')
C = []

def map_case(name, ins, body_ops, rty, ref, comment=None):
    ins = [(arr(a, ty), ty) for a, ty in ins]
    shp = ins[0][0].shape
    e = arr(ref(*[a for a, _ in ins]), rty)
    args = ', '.join('%%x%d: %s' % (i, tt((), ty)) for i, (_, ty) in enumerate(ins))
    body = ['%%r = "stablehlo.map"(%s) ({' % ', '.join('%%a%d' % i for i in range(len(ins))), '  ^bb0(%s):' % args]
    body += ['    ' + l for l in body_ops]
    dims = 'array<i64: %s>' % ', '.join(str(d) for d in range(len(shp))) if shp else 'array<i64>'
    body.append('}) {dimensions = %s} : (%s) -> %s' % (dims,
                                                                 ', '.join(tt(shp, ty) for _, ty in ins), tt(shp, rty)))
    return Case(name, ins, '\n'.join(body), [('%r', e, rty, 'eq')], comment)

C.append(map_case('map_add_f32', [([[1.0, 2.5], [-3.0, 4.0]], 'f32'), ([[0.5, 0.5], [3.0, -inf]], 'f32')],
                  ['%s = stablehlo.add %x0, %x1 : tensor<f32>', 'stablehlo.return %s : tensor<f32>'], 'f32', lambda a, b: a + b,
                  'map applies the scalar body element by element'))
C.append(map_case('map_fma_i32', [([1, 2, 3, 2**30], 'i32'), ([4, 5, 6, 4], 'i32'), ([-1, 0, 1, 7], 'i32')],
                  ['%m = stablehlo.multiply %x0, %x1 : tensor<i32>', '%s = stablehlo.add %m, %x2 : tensor<i32>', 'stablehlo.return %s : tensor<i32>'],
                  'i32', lambda a, b, c: ((a.astype(np.int64) * b + c + 2**31) % 2**32 - 2**31), 'three operands, a two-op body; wraps'))
C.append(map_case('map_to_i1', [([1.0, math.nan, -2.0], 'f64'), ([1.0, 1.0, 3.0], 'f64')],
                  ['%c = stablehlo.compare  LT, %x0, %x1,  FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>', 'stablehlo.return %c : tensor<i1>'],
                  'i1', lambda a, b: a < b, 'a result type other than the operands\''))
C.append(map_case('map_select_bf16', [([1.0, -2.0, 0.5], 'bf16')],
                  ['%z = stablehlo.constant dense<0.0> : tensor<bf16>', '%p = stablehlo.compare  GT, %x0, %z,  FLOAT : (tensor<bf16>, tensor<bf16>) -> tensor<i1>',
                   '%n = stablehlo.negate %x0 : tensor<bf16>', '%s = stablehlo.select %p, %x0, %n : tensor<i1>, tensor<bf16>', 'stablehlo.return %s : tensor<bf16>'],
                  'bf16', np.abs, 'a constant and select inside the body (|x|)'))
C.append(map_case('map_convert_ui8_f16', [([255, 0, 17], 'ui8')],
                  ['%f = stablehlo.convert %x0 : (tensor<ui8>) -> tensor<f16>', '%h = stablehlo.constant dense<0.5> : tensor<f16>',
                   '%m = stablehlo.multiply %f, %h : tensor<f16>', 'stablehlo.return %m : tensor<f16>'], 'f16', lambda a: a.astype(np.float16) * np.float16(0.5)))
C.append(map_case('map_c64', [([1 + 2j, -1j], 'complex<f32>'), ([3 + 0j, 2j], 'complex<f32>')],
                  ['%m = stablehlo.multiply %x0, %x1 : tensor<complex<f32>>', 'stablehlo.return %m : tensor<complex<f32>>'], 'complex<f32>', lambda a, b: a * b))
C.append(map_case('map_rank0', [(7, 'i64'), (-9, 'i64')], ['%m = stablehlo.maximum %x0, %x1 : tensor<i64>', 'stablehlo.return %m : tensor<i64>'],
                  'i64', np.maximum))
C.append(map_case('map_empty', [(np.zeros((0, 2)), 'f32')], ['%m = stablehlo.exponential %x0 : tensor<f32>', 'stablehlo.return %m : tensor<f32>'],
                  'f32', np.exp))
C.append(map_case('map_3d_ui32', [(np.arange(24).reshape(2, 3, 4), 'ui32')],
                  ['%c = stablehlo.constant dense<3> : tensor<ui32>', '%s = stablehlo.shift_left %x0, %c : tensor<ui32>', 'stablehlo.return %s : tensor<ui32>'],
                  'ui32', lambda a: a << 3))

HEADER = '''map (vm/kernels/reduce.c): scalar bodies of one and several ops over one,
two and three operands (f32, i32 wrapping, f64 -> i1, bf16 with a constant and
select, ui8 -> f16, complex<f32>, i64, ui32), rank 0, empty and 3-D operands.
References: NumPy element-wise.'''
print(write(out_path(OUT), HEADER, C, 'gen_map.py'))
