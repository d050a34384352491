#!/usr/bin/python3
"""Re-stamps .tpub files (the loader's fuzz regressions) for the current
instruction set and format version after vm/opcodes.def changed.

    mk/restamp-tpub.py REV FILE...

REV is the git revision whose vm/opcodes.def the files were written with.
Each instruction's opcode is mapped by name from REV's numbering to the
working tree's; the format version becomes vm/tpub.h's TPUB_FORMAT_VERSION
and the checksum (XXH3-64 of the file with the checksum field zero, through
libxxhash) is recomputed.  A file that is not of REV's format version
(already re-stamped, or of another REV), whose code does not walk cleanly,
or that uses an opcode the current table lacks, is left alone with a
message (exit status 1).
Used by testsuite/unit/test_bytecode.c's regression procedure
(docs/adding-an-op.md)."""
import ctypes
import re
import struct
import subprocess
import sys

HEADER, SECTION, FUNC = 64, 16, 40
MAGIC = b'TPUB\x89\r\n\x1a'
SEC_FUNCS, SEC_CODE = 5, 6
INSTR_HEADER_WORDS = 6


def opcode_names(text):
    return re.findall(r'^OPC\(\w+, "([^"]+)"', text, flags=re.M)


def format_version(text):
    """TPUB_FORMAT_VERSION of a vm/tpub.h text."""
    m = re.search(r'#define TPUB_FORMAT_VERSION (\d+)', text)
    if not m:
        raise ValueError('no TPUB_FORMAT_VERSION in vm/tpub.h')
    return int(m.group(1))


def sections(b):
    count = struct.unpack_from('<I', b, 40)[0]
    secs = {k: (c, off) for k, c, off in (struct.unpack_from('<IIQ', b, HEADER + SECTION * i) for i in range(count))}
    if SEC_FUNCS not in secs or SEC_CODE not in secs:
        raise ValueError('no FUNCS or CODE section')
    return secs


def instruction_starts(b, secs):
    """Word offsets (into CODE) of every instruction, function by function."""
    nfuncs, foff = secs[SEC_FUNCS]
    ncode, coff = secs[SEC_CODE]
    words = struct.unpack_from('<%dI' % ncode, b, coff)
    starts = []
    for f in range(nfuncs):
        code, code_words = struct.unpack_from('<II', b, foff + FUNC * f + 28)
        i, end = code, code + code_words
        if end > ncode:
            raise ValueError('function %d runs past the CODE section' % f)
        while i < end:
            if i + INSTR_HEADER_WORDS > end:
                raise ValueError('instruction header past the function end')
            starts.append(i)
            k = i + INSTR_HEADER_WORDS + words[i + 1] + words[i + 2]
            if k >= end:
                raise ValueError('kill list past the function end')
            i = k + 1 + words[k]
    return words, coff, starts


def restamp(path, old, new, versions, xxh):
    """Maps path's opcodes from REV's numbering (old) to the tree's (new).
    versions = (REV's format version, the tree's)."""
    b = bytearray(open(path, 'rb').read())
    if b[:8] != MAGIC:
        raise ValueError('not a .tpub file')
    have = struct.unpack_from('<I', b, 8)[0]
    if have == versions[1] and versions[0] != versions[1]:
        raise ValueError('already format version %d' % have)
    if have != versions[0]:
        raise ValueError('format version %d, but REV writes version %d' % (have, versions[0]))
    words, coff, starts = instruction_starts(b, sections(b))
    for i in starts:
        op, flags = words[i] & 0xffff, words[i] >> 16
        if op >= len(old) or old[op] not in new:
            raise ValueError('opcode %d has no counterpart' % op)
        struct.pack_into('<I', b, coff + 4 * i, new.index(old[op]) | flags << 16)
    struct.pack_into('<I', b, 8, versions[1])
    struct.pack_into('<Q', b, 56, 0)
    struct.pack_into('<Q', b, 56, xxh.XXH3_64bits(bytes(b), len(b)))
    open(path, 'wb').write(b)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    try:
        rev = sys.argv[1]
        old = opcode_names(subprocess.check_output(['git', 'show', rev + ':vm/opcodes.def']).decode())
        new = opcode_names(open('vm/opcodes.def').read())
        versions = (format_version(subprocess.check_output(['git', 'show', rev + ':vm/tpub.h']).decode()),
                    format_version(open('vm/tpub.h').read()))
        xxh = ctypes.CDLL('libxxhash.so.0')
    except (subprocess.CalledProcessError, OSError, ValueError) as e:
        sys.exit('restamp-tpub: %s (run it from the repository root; it needs libxxhash)' % e)
    xxh.XXH3_64bits.restype = ctypes.c_uint64
    xxh.XXH3_64bits.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
    status = 0
    for path in sys.argv[2:]:
        try:
            restamp(path, old, new, versions, xxh)
            print('restamped', path)
        except (ValueError, struct.error, OSError, IndexError) as e:
            print('%s: left alone: %s' % (path, e), file=sys.stderr)
            status = 1
    sys.exit(status)


if __name__ == '__main__':
    main()
