OUT = 'fft.mlir'
from kg import *
import numpy as np, math, sys, warnings
warnings.simplefilter('ignore')
C = []
rng = np.random.RandomState(99)

def fft_case(name, x, ty, kind, length, comment=None):
    x = np.asarray(x)
    axes = tuple(range(-len(length), 0))
    if kind == 'FFT':
        e = np.fft.fftn(x, axes=axes); rty = ty
    elif kind == 'IFFT':
        e = np.fft.ifftn(x, axes=axes); rty = ty
    elif kind == 'RFFT':
        e = np.fft.rfftn(x, axes=axes); rty = 'complex<%s>' % ty
    else:
        e = np.fft.irfftn(x, s=length, axes=axes); rty = ty[8:-1]
    tol = 2e-5 * max(1.0, float(np.max(np.abs(e))) if e.size else 1.0) if '32' in ty else 1e-12 * max(1.0, float(np.max(np.abs(e))) if e.size else 1.0)
    a = arr(x, ty)
    body = '%%r = stablehlo.fft %%a0, type = %s, length = %s : (%s) -> %s' % (kind, list(length), tt(a.shape, ty), tt(e.shape, rty))
    return Case(name, [(a, ty)], body, [('%r', e, rty, ('almost', float('%.1g' % tol)))], comment)

def cx(*shape):
    return (rng.uniform(-1, 1, shape) + 1j * rng.uniform(-1, 1, shape)).round(3)

def re(*shape):
    return rng.uniform(-1, 1, shape).round(3)

C.append(fft_case('fft_impulse_c64', [1, 0, 0, 0], 'complex<f32>', 'FFT', [4], 'the FFT of an impulse is all ones'))
C.append(fft_case('fft_8_c64', cx(8), 'complex<f32>', 'FFT', [8]))
C.append(fft_case('fft_batch_c128', cx(3, 16), 'complex<f64>', 'FFT', [16], 'a batch of 3 transforms over the last dim'))
C.append(fft_case('fft_2d_c64', cx(2, 4, 8), 'complex<f32>', 'FFT', [4, 8], 'over the two trailing dims'))
C.append(fft_case('fft_3d_c128', cx(2, 3, 4), 'complex<f64>', 'FFT', [2, 3, 4]))
C.append(fft_case('fft_odd_c128', cx(7), 'complex<f64>', 'FFT', [7], 'a prime length'))
C.append(fft_case('fft_12_c64', cx(2, 12), 'complex<f32>', 'FFT', [12]))
C.append(fft_case('fft_length1_c64', cx(3, 1), 'complex<f32>', 'FFT', [1], 'length 1: the identity'))
C.append(fft_case('ifft_8_c64', cx(8), 'complex<f32>', 'IFFT', [8], 'IFFT is scaled by 1/n'))
C.append(fft_case('ifft_2d_c128', cx(3, 5, 6), 'complex<f64>', 'IFFT', [5, 6]))
C.append(fft_case('rfft_8_f32', re(8), 'f32', 'RFFT', [8], 'RFFT: n/2 + 1 outputs'))
C.append(fft_case('rfft_odd_f64', re(2, 9), 'f64', 'RFFT', [9]))
C.append(fft_case('rfft_2d_f32', re(4, 6), 'f32', 'RFFT', [4, 6], 'the last dim halved, the others full'))
C.append(fft_case('irfft_8_c64', np.fft.rfft(re(8)).round(3), 'complex<f32>', 'IRFFT', [8], 'IRFFT: n/2 + 1 inputs, n real outputs'))
C.append(fft_case('irfft_odd_c128', np.fft.rfft(re(2, 7)).round(3), 'complex<f64>', 'IRFFT', [7], 'an odd length: (n + 1) / 2 inputs used'))
C.append(fft_case('irfft_2d_c128', np.fft.rfftn(re(4, 6)).round(3), 'complex<f64>', 'IRFFT', [4, 6]))
C.append(fft_case('irfft_nonhermitian_c64', cx(5), 'complex<f32>', 'IRFFT', [8],
                  'non-Hermitian input: the imaginary parts of the first and last bins are ignored'))
C.append(fft_case('fft_64_c128', cx(64), 'complex<f64>', 'FFT', [64]))

HEADER = '''fft (vm/kernels/fft.c): FFT, IFFT (scaled by 1/n), RFFT (n/2 + 1
outputs) and IRFFT (n real outputs, non-Hermitian input) over complex<f32>,
complex<f64>, f32, f64; lengths 1, 4, 7, 8, 9, 12, 16, 64; 1-D, 2-D and 3-D
transforms with batch dimensions.  References: numpy.fft, within an absolute
tolerance scaled by the result's largest magnitude (2e-5 for 32-bit, 1e-12 for
64-bit).'''
print(write(out_path(OUT), HEADER, C, 'gen_fft.py'))
