OUT = 'convolution.mlir'
from kg import *
import numpy as np, math, sys, warnings, itertools
warnings.simplefilter('ignore')
C = []
rng = np.random.RandomState(7)

def dilate(x, axes_factors):
    for ax, f in axes_factors:
        if f > 1 and x.shape[ax] > 0:
            shp = list(x.shape)
            shp[ax] = (shp[ax] - 1) * f + 1
            y = np.zeros(shp, dtype=x.dtype)
            sl = [slice(None)] * x.ndim
            sl[ax] = slice(None, None, f)
            y[tuple(sl)] = x
            x = y
    return x

def conv_ref(lhs, rhs, stride, pad, ld, rd, rev, fgc, bgc):
    """Canonical layouts lhs [N, C, S...], rhs [O, I, K...], result [N', O, S'...]
    (the spec's convolution: lhs dilation and padding, rhs dilation and
    reversal, feature and batch groups)."""
    ns = lhs.ndim - 2
    x = dilate(lhs.astype(np.int64), [(2 + i, ld[i]) for i in range(ns)])
    for i, (lo, hi) in enumerate(pad):
        ax = 2 + i
        if lo < 0:
            x = np.take(x, range(-lo, x.shape[ax]), axis=ax)
            lo = 0
        if hi < 0:
            x = np.take(x, range(0, x.shape[ax] + hi), axis=ax)
            hi = 0
        w = [(0, 0)] * x.ndim
        w[ax] = (lo, hi)
        x = np.pad(x, w)
    k = rhs.astype(np.int64)
    for i in range(ns):
        if rev[i]:
            k = np.flip(k, 2 + i)
    k = dilate(k, [(2 + i, rd[i]) for i in range(ns)])
    N, Cc = x.shape[:2]
    O, I = k.shape[:2]
    Nout = N // bgc
    out_sp = [(x.shape[2 + i] - k.shape[2 + i]) // stride[i] + 1 if x.shape[2 + i] >= k.shape[2 + i] else 0 for i in range(ns)]
    out = np.zeros([Nout, O] + out_sp, dtype=np.int64)
    og = O // fgc if fgc > 1 else O // bgc
    for n in range(Nout):
        for o in range(O):
            g = o // (O // fgc)
            bg = o // (O // bgc)
            nn = bg * Nout + n
            for pos in np.ndindex(*out_sp):
                sl = tuple(slice(p * s, p * s + kk) for p, s, kk in zip(pos, stride, k.shape[2:]))
                win = x[(nn, slice(g * I, (g + 1) * I)) + sl]
                out[(n, o) + pos] = np.sum(win * k[o])
    return out

def perm_to(spec):
    """The permutation from canonical [b, f, 0, 1, ...] to a layout like [b, 0, 1, f]."""
    return spec

def conv(name, lhs, rhs, ty, stride=None, pad=None, ld=None, rd=None, rev=None, fgc=1, bgc=1, layout=None, comment=None, rty=None, expect=None):
    lhs, rhs = np.asarray(lhs), np.asarray(rhs)
    ns = lhs.ndim - 2
    stride, pad, ld, rd, rev = stride or [1] * ns, pad or [[0, 0]] * ns, ld or [1] * ns, rd or [1] * ns, rev or [False] * ns
    e = conv_ref(lhs, rhs, stride, pad, ld, rd, rev, fgc, bgc)
    rty = rty or ty
    sp = ', '.join(str(i) for i in range(ns))
    if layout is None:
        dn = '[b, f, %s]x[o, i, %s]->[b, f, %s]' % (sp, sp, sp)
        L, R, E = lhs, rhs, e
    else:
        # channels last: lhs [b, 0.., f], rhs [0.., i, o], result [b, 0.., f]
        dn = '[b, %s, f]x[%s, i, o]->[b, %s, f]' % (sp, sp, sp)
        L = np.moveaxis(lhs, 1, -1)
        R = np.moveaxis(np.moveaxis(rhs, 0, -1), 0, -2)
        E = np.moveaxis(e, 1, -1)
    if expect is not None:
        assert np.array_equal(E, np.asarray(expect)), 'reference disagrees with the spec example'
    a, b = arr(L, ty), arr(R, ty)
    win = []
    win.append('stride = %s' % stride)
    win.append('pad = %s' % [list(p) for p in pad])
    win.append('lhs_dilate = %s' % ld)
    win.append('rhs_dilate = %s' % rd)
    win.append('reverse = %s' % [bool(v) for v in rev])
    body = ('%%r = stablehlo.convolution(%%a0, %%a1) dim_numbers = %s, window = {%s} {batch_group_count = %d : i64, feature_group_count = %d : i64} : (%s, %s) -> %s') % (
        dn, ', '.join(win).replace('True', 'true').replace('False', 'false'), bgc, fgc, tt(a.shape, ty), tt(b.shape, ty), tt(E.shape, rty))
    return Case(name, [(a, ty), (b, ty)], body, [('%r', arr(E, rty), rty, 'eq')], comment)

def ri(*shape, lo=-3, hi=4):
    return rng.randint(lo, hi, size=shape)

# the spec's example (NHWC / HWIO), result [[10, 26], [46, 62]] from docs/spec.md
SL = np.array([[1, 2, 5, 6], [3, 4, 7, 8], [10, 11, 14, 15], [12, 13, 16, 17]]).reshape(1, 1, 4, 4)
C.append(conv('conv_spec_example', SL, np.ones((1, 1, 3, 3), dtype=int), 'i64', stride=[4, 4], ld=[2, 2], layout='nhwc',
              comment='the example of docs/spec.md (convolution), result from the spec: lhs dilation 2, stride 4',
              expect=np.array([[10, 26], [46, 62]]).reshape(1, 2, 2, 1)))
C.append(conv('conv1d_f32', ri(2, 3, 9), ri(4, 3, 3), 'f32', comment='1-D, valid padding'))
C.append(conv('conv2d_stride_pad_f32', ri(1, 2, 7, 6), ri(3, 2, 3, 2), 'f32', stride=[2, 3], pad=[[1, 2], [0, 1]]))
C.append(conv('conv2d_negative_pad_f64', ri(1, 1, 6, 6), ri(1, 1, 2, 2), 'f64', pad=[[-1, 0], [1, -2]], comment='negative padding crops'))
C.append(conv('conv2d_lhs_dilation_i32', ri(1, 2, 4, 3), ri(2, 2, 2, 2), 'i32', ld=[2, 3], pad=[[1, 1], [0, 0]], comment='lhs dilation (transposed convolution)'))
C.append(conv('conv2d_rhs_dilation_f32', ri(2, 1, 8, 7), ri(2, 1, 3, 2), 'f32', rd=[2, 3], comment='rhs (atrous) dilation'))
C.append(conv('conv2d_reversal_f32', ri(1, 1, 4, 4), ri(1, 1, 3, 2), 'f32', rev=[True, False], comment='window reversal flips the kernel'))
C.append(conv('conv2d_feature_groups_f32', ri(2, 6, 5, 5), ri(6, 2, 3, 3), 'f32', fgc=3, comment='feature_group_count = 3: 6 channels in 3 groups'))
C.append(conv('conv2d_depthwise_bf16', ri(1, 4, 5, 4), ri(8, 1, 2, 2), 'bf16', fgc=4, comment='depthwise, channel multiplier 2'))
C.append(conv('conv2d_batch_groups_f32', ri(4, 2, 4, 4), ri(6, 2, 2, 2), 'f32', bgc=2, comment='batch_group_count = 2 (a weight gradient): 4 batches in 2 groups'))
C.append(conv('conv2d_nhwc_f32', ri(2, 3, 5, 5), ri(4, 3, 2, 3), 'f32', stride=[1, 2], pad=[[1, 0], [1, 1]], layout='nhwc', comment='channels-last layouts'))
C.append(conv('conv2d_everything_f64', ri(2, 4, 6, 5), ri(4, 2, 2, 3), 'f64', stride=[2, 1], pad=[[2, 1], [-1, 2]], ld=[1, 2], rd=[2, 1],
              rev=[False, True], fgc=2, comment='every window attribute and a feature group at once'))
C.append(conv('conv1d_i8_to_i32', ri(1, 2, 6, lo=-128, hi=128), ri(2, 2, 3, lo=-128, hi=128), 'i8', rty='i32', comment='i8 operands, i32 result'))
C.append(conv('conv1d_f16', ri(1, 2, 5), ri(1, 2, 2), 'f16'))
C.append(conv('conv3d_f32', ri(1, 1, 3, 4, 3), ri(2, 1, 2, 2, 2), 'f32', stride=[1, 2, 1], comment='three spatial dimensions'))
C.append(conv('conv_empty_output_f32', ri(1, 1, 2, 2), ri(1, 1, 3, 3), 'f32', comment='a kernel larger than the input: an empty result'))
C.append(conv('conv2d_larger_f32', ri(2, 16, 12, 12), ri(32, 16, 3, 3), 'f32', pad=[[1, 1], [1, 1]], comment='16 -> 32 channels, SAME padding'))
C.append(conv('conv1d_i32_wrap', [[[2**31 - 1, 2**31 - 1]]], [[[1, 1]]], 'i32', comment='i32 sums wrap'))

HEADER = '''convolution (vm/kernels/conv.c): the spec example with its result, 1-D,
2-D and 3-D; strides, positive and negative padding, lhs dilation, rhs
dilation, window reversal, feature_group_count (grouped and depthwise),
batch_group_count, channels-first and channels-last dimension numbers, all
attributes at once, i8 -> i32, f16, bf16, f32, f64, an empty result, a
16 -> 32 channel 12x12 case.  Inputs are small integers so every result is
exact; the reference is the spec's definition written out in NumPy in the
generator, checked against the spec example.'''
print(write(out_path(OUT), HEADER, C, 'gen_conv.py'))
