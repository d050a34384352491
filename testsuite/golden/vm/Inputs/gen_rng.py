OUT = 'rng.mlir'
from kg import *
import numpy as np, sys
from prng import threefry2x32, philox4x32, M32

# Known-answer vectors of Random123 (Salmon et al., SC'11; the kat_vectors file
# JAX and XLA test against): the implementations in prng.py must reproduce them.
assert threefry2x32((0, 0), (0, 0)) == (0x6b200159, 0x99ba4efe)
assert threefry2x32((M32, M32), (M32, M32)) == (0x1cb996fc, 0xbb002be7)
assert threefry2x32((0x13198a2e, 0x03707344), (0x243f6a88, 0x85a308d3)) == (0xc4923a9c, 0x483df7a0)
assert philox4x32((0, 0), (0, 0, 0, 0)) == (0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8)
assert philox4x32((M32, M32), (M32,) * 4) == (0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd)
assert philox4x32((0xa4093822, 0x299f31d0), (0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344)) == (0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1)

M64 = (1 << 64) - 1
def split(u):
    return (u & M32, u >> 32)

def threefry_bits(state, shape, bits):
    """XLA's RngBitGenerator THREE_FRY: key = state[0], counter = state[1];
    32-bit outputs: ceil(n / 2) counters, the first words then the second
    words; 64-bit outputs: n counters, (first | second << 32)."""
    key, ctr = split(state[0]), state[1]
    n = int(np.prod(shape))
    if bits == 32:
        h = (n + 1) // 2
        outs = [threefry2x32(key, split((ctr + i) & M64)) for i in range(h)]
        vals = [o[0] for o in outs] + [o[1] for o in outs]
        return np.array(vals[:n], dtype=np.uint64).reshape(shape), [state[0], (ctr + h) & M64]
    outs = [threefry2x32(key, split((ctr + i) & M64)) for i in range(n)]
    return np.array([o[0] | o[1] << 32 for o in outs], dtype=np.uint64).reshape(shape), [state[0], (ctr + n) & M64]

def philox_bits(state, shape, bits):
    """XLA's RngBitGenerator PHILOX: key = state[0], a 128-bit counter
    state[1] + state[2] << 64 (state[2] = 0 when absent); ceil(n / 4)
    counters for 32-bit outputs, ceil(n / 2) for 64-bit ones."""
    key = split(state[0])
    c128 = state[1] | ((state[2] if len(state) > 2 else 0) << 64)
    n = int(np.prod(shape))
    per = 4 if bits == 32 else 2
    m = (n + per - 1) // per
    vals = []
    for i in range(m):
        c = (c128 + i) & ((1 << 128) - 1)
        o = philox4x32(key, (c & M32, (c >> 32) & M32, (c >> 64) & M32, c >> 96))
        vals += list(o) if bits == 32 else [o[0] | o[1] << 32, o[2] | o[3] << 32]
    c = (c128 + m) & ((1 << 128) - 1)
    new = [state[0], c & M64] + ([c >> 64] if len(state) > 2 else [])
    return np.array(vals[:n], dtype=np.uint64).reshape(shape), new

C = []
def rng_case(name, alg, state, shape, ty, comment=None, kat=None):
    bits = 64 if '64' in ty else 32
    f = threefry_bits if alg == 'THREE_FRY' else philox_bits
    vals, new = f(state, shape, bits)
    if kat is not None:
        assert [int(v) for v in vals.ravel()] == kat
    if ty.startswith('i'):
        vals = vals.astype(np.int64 if bits == 64 else np.int64)
        vals = np.array([(int(v) + (1 << (bits - 1))) % (1 << bits) - (1 << (bits - 1)) for v in vals.ravel()], dtype=INTS[ty]).reshape(shape)
    st = np.array(state, dtype=np.uint64)
    body = '%%s, %%r = stablehlo.rng_bit_generator %%a0, algorithm = %s : (%s) -> (%s, %s)' % (
        alg, tt(st.shape, 'ui64'), tt(st.shape, 'ui64'), tt(shape, ty))
    return Case(name, [(st, 'ui64')], body, [('%r', vals.astype(INTS[ty]) if ty.startswith('u') else vals, ty, 'eq'),
                                             ('%s', np.array(new, dtype=np.uint64), 'ui64', 'eq')], comment)

K3 = (0x03707344 << 32) | 0x13198a2e
C3 = (0x85a308d3 << 32) | 0x243f6a88
C.append(rng_case('three_fry_kat_zero', 'THREE_FRY', [0, 0], (2,), 'ui32', 'THREE_FRY, one counter: Random123\'s known answer for key 0, counter 0;\nthe new state advances the counter by one', kat=[0x6b200159, 0x99ba4efe]))
C.append(rng_case('three_fry_kat_ones', 'THREE_FRY', [M64, M64], (2,), 'ui32', 'key and counter all ones (the counter wraps to 0)', kat=[0x1cb996fc, 0xbb002be7]))
C.append(rng_case('three_fry_kat_pi', 'THREE_FRY', [K3, C3], (2,), 'ui32', 'the digits-of-pi known answer', kat=[0xc4923a9c, 0x483df7a0]))
C.append(rng_case('three_fry_2x3_ui32', 'THREE_FRY', [42, 7], (2, 3), 'ui32', 'several counters: the first words of each, then the second words'))
C.append(rng_case('three_fry_odd_ui32', 'THREE_FRY', [K3, 5], (5,), 'ui32', 'an odd count: the last second word dropped'))
C.append(rng_case('three_fry_ui64', 'THREE_FRY', [K3, C3], (3,), 'ui64', '64-bit outputs: one counter each, first word low'))
C.append(rng_case('three_fry_i32', 'THREE_FRY', [1, 2], (2, 2), 'i32'))
C.append(rng_case('philox_kat_zero', 'PHILOX', [0, 0, 0], (4,), 'ui32', 'PHILOX with a 128-bit counter: Random123\'s known answers', kat=[0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]))
C.append(rng_case('philox_kat_ones', 'PHILOX', [M64, M64, M64], (4,), 'ui32', 'all ones: the 128-bit counter wraps', kat=[0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd]))
C.append(rng_case('philox_kat_pi', 'PHILOX', [(0x299f31d0 << 32) | 0xa4093822, (0x85a308d3 << 32) | 0x243f6a88, (0x03707344 << 32) | 0x13198a2e], (4,), 'ui32',
                  kat=[0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1]))
C.append(rng_case('philox_two_word_state', 'PHILOX', [0, 0], (4,), 'ui32', 'a 2-word state: the counter\'s high half is 0', kat=[0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]))
C.append(rng_case('philox_carry_ui32', 'PHILOX', [9, M64, 3], (2, 5), 'ui32', 'ten outputs from three counters; the low half carries into the high half'))
C.append(rng_case('philox_ui64', 'PHILOX', [9, 100, 0], (3,), 'ui64', '64-bit outputs: two per counter'))
C.append(rng_case('philox_i64', 'PHILOX', [0, 0], (2,), 'i64'))

HEADER = '''rng_bit_generator (vm/kernels/linalg.c) with THREE_FRY (Threefry-2x32, 20
rounds) and PHILOX (Philox-4x32, 10 rounds): the Random123 known-answer
vectors (key / counter 0, all ones, digits of pi) as outputs of a single
counter, then several counters, odd counts, 64-bit and signed outputs, the
128-bit Philox counter's carry, and the new state.  Expected values come
from independent Python implementations of both generators
(Inputs/prng.py), asserted against the Random123 known answers, arranged
as XLA's RngBitGenerator expander lays them out (key = state[0], counters
from state[1..]).  DEFAULT is implementation-defined and not tested.'''
print(write(out_path(OUT), HEADER, C, 'gen_rng.py'))
