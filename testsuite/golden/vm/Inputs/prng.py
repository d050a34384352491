M32 = 0xFFFFFFFF
def rotl(x, r):
    return ((x << r) | (x >> (32 - r))) & M32
def threefry2x32(key, ctr, rounds=20):
    R = [13, 15, 26, 6, 17, 29, 16, 24]
    ks = [key[0], key[1], key[0] ^ key[1] ^ 0x1BD11BDA]
    x0, x1 = (ctr[0] + ks[0]) & M32, (ctr[1] + ks[1]) & M32
    for i in range(rounds):
        x0 = (x0 + x1) & M32
        x1 = rotl(x1, R[i % 8]) ^ x0
        if i % 4 == 3:
            s = (i + 1) // 4
            x0 = (x0 + ks[s % 3]) & M32
            x1 = (x1 + ks[(s + 1) % 3] + s) & M32
    return x0, x1
def philox4x32(key, ctr, rounds=10):
    c = list(ctr); k0, k1 = key
    for i in range(rounds):
        p0 = 0xD2511F53 * c[0]; p1 = 0xCD9E8D57 * c[2]
        c = [((p1 >> 32) ^ c[1] ^ k0) & M32, p1 & M32, ((p0 >> 32) ^ c[3] ^ k1) & M32, p0 & M32]
        k0 = (k0 + 0x9E3779B9) & M32; k1 = (k1 + 0xBB67AE85) & M32
    return tuple(c)
if __name__ == '__main__':
    for k, c in (((0, 0), (0, 0)), ((M32, M32), (M32, M32)), ((0x13198a2e, 0x03707344), (0x243f6a88, 0x85a308d3))):
        print('threefry', ['%08x' % v for v in threefry2x32(k, c)])
    for k, c in (((0, 0), (0, 0, 0, 0)), ((M32, M32), (M32,) * 4), ((0xa4093822, 0x299f31d0), (0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344))):
        print('philox', ['%08x' % v for v in philox4x32(k, c)])
