#!/usr/bin/python3
"""verify_diagnostics.py TPUCC FILE [extra tpucc args]

MLIR's -verify-diagnostics convention, checked outside the compiler.

FILE is split on lines that are exactly `// -----`.  Each chunk is written to
a temporary file, padded with empty lines so that its line numbers are those
of FILE, and compiled with `TPUCC --verify-only [extra args] CHUNK`.

Expectations are comments in the chunk:
    // expected-error {{msg}}            on this line
    // expected-error @+N {{msg}}        N lines below   (@-N: above)
    // expected-error @above {{msg}}     previous line without an expectation
    // expected-error @below {{msg}}     next line without an expectation
    // expected-error @unknown {{msg}}   a diagnostic without a location
and the same with expected-warning, expected-note, expected-remark.  With
`expected-error-re` the text is literal except for `{{regex}}` parts.

tpucc prints `PATH:LINE:COL: error: MESSAGE` (then a source line and a caret,
ignored).  Every expectation must be met by a diagnostic of the same severity
on its line whose message contains the text; every error and warning printed
must be expected.  tpucc must exit 2 for a chunk that expects an error and 0
otherwise.  Exit status: 0 if everything matched, 1 otherwise.
"""

import os
import re
import subprocess
import sys
import tempfile

SPLIT = '// -----'
TIMEOUT = 120  # seconds per chunk

EXPECT_RE = re.compile(
    r'expected-(error|warning|note|remark)(-re)?\s*'
    r'(?:@(\+\d+|-\d+|above|below|unknown))?\s*\{\{(.*)\}\}\s*$')
DESIGNATOR_RE = re.compile(r'expected-(error|warning|note|remark)\b')
DIAG_RE = re.compile(
    r'^(?:(?P<file>\S.*?):(?P<line>\d+):(?P<col>\d+): |(?P<noloc>[^:\s]*: ?))?'
    r'(?P<sev>error|warning|note|remark): (?P<msg>.*)$')


class Expected:
    def __init__(self, sev, line, text, is_re, at):
        self.sev, self.line, self.text, self.at = sev, line, text, at
        self.regex = re_from_expect(text) if is_re else None

    def matches(self, diag):
        if diag.sev != self.sev or diag.line != self.line:
            return False
        if self.regex is not None:
            return self.regex.search(diag.msg) is not None
        return self.text in diag.msg


class Emitted:
    def __init__(self, sev, line, msg):
        self.sev, self.line, self.msg = sev, line, msg


def re_from_expect(text):
    """`a {{b.*}} c`: literal a and c, regex b.* (FileCheck's convention)."""
    out, pos = [], 0
    while True:
        start = text.find('{{', pos)
        if start < 0:
            out.append(re.escape(text[pos:]))
            break
        end = text.find('}}', start + 2)
        if end < 0:
            out.append(re.escape(text[pos:]))
            break
        out.append(re.escape(text[pos:start]))
        out.append('(?:%s)' % text[start + 2:end])
        pos = end + 2
    return re.compile(''.join(out))


def split_chunks(lines):
    """[(first_line_number, [lines])] with 1-based numbers."""
    chunks, start, cur = [], 1, []
    for i, ln in enumerate(lines, 1):
        if ln.rstrip('\r\n').rstrip() == SPLIT:
            chunks.append((start, cur))
            start, cur = i + 1, []
        else:
            cur.append(ln)
    chunks.append((start, cur))
    return chunks


def collect_expectations(first, lines, path, errors):
    exps = []
    has_designator = [bool(DESIGNATOR_RE.search(ln)) for ln in lines]
    for idx, ln in enumerate(lines):
        m = EXPECT_RE.search(ln)
        if not m:
            if has_designator[idx]:
                errors.append('%s:%d: malformed expectation: %s'
                              % (path, first + idx, ln.strip()))
            continue
        sev, is_re, at, text = m.group(1), bool(m.group(2)), m.group(3), m.group(4)
        lineno = first + idx
        if at is None:
            target = lineno
        elif at == 'unknown':
            target = 0
        elif at == 'above':
            j = idx - 1
            while j >= 0 and has_designator[j]:
                j -= 1
            target = first + j if j >= 0 else -1
        elif at == 'below':
            j = idx + 1
            while j < len(lines) and has_designator[j]:
                j += 1
            target = first + j if j < len(lines) else -1
        else:
            target = lineno + int(at)
        if target < 0 or (at is not None and at != 'unknown' and target < first):
            errors.append('%s:%d: expectation @%s points outside its chunk'
                          % (path, lineno, at))
            continue
        exps.append(Expected(sev, target, text, is_re, lineno))
    return exps


def parse_output(out):
    diags = []
    for ln in out.splitlines():
        m = DIAG_RE.match(ln)
        if not m:
            continue
        line = int(m.group('line')) if m.group('line') else 0
        diags.append(Emitted(m.group('sev'), line, m.group('msg')))
    return diags


def match(exps, diags):
    """Maximum bipartite matching expectation <-> diagnostic (Kuhn).
    Returns (unmatched expectations, unmatched diagnostics)."""
    owner = [None] * len(diags)  # diag index -> expectation index

    def try_assign(e, seen):
        for d, diag in enumerate(diags):
            if d in seen or not exps[e].matches(diag):
                continue
            seen.add(d)
            if owner[d] is None or try_assign(owner[d], seen):
                owner[d] = e
                return True
        return False

    for e in range(len(exps)):
        try_assign(e, set())
    matched = set(o for o in owner if o is not None)
    return ([x for i, x in enumerate(exps) if i not in matched],
            [x for d, x in enumerate(diags) if owner[d] is None])


def check_chunk(tpucc, extra, path, first, lines, tmpdir, whole_file):
    errors = []
    exps = collect_expectations(first, lines, path, errors)
    if whole_file:
        target = path
    else:
        target = os.path.join(tmpdir, '%s.%d' % (os.path.basename(path), first))
        with open(target, 'w') as f:
            f.write('\n' * (first - 1))
            f.writelines(lines)
    cmd = [tpucc, '--verify-only'] + extra + [target]
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              timeout=TIMEOUT)
        out = proc.stdout.decode('utf-8', 'replace')
        rc = proc.returncode
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b'').decode('utf-8', 'replace')
        rc = None
    except OSError as e:
        print('verify_diagnostics: cannot run %s: %s' % (tpucc, e), file=sys.stderr)
        sys.exit(1)

    missing, unexpected = match(exps, parse_output(out))
    for e in missing:
        where = e.line if e.line else e.at
        errors.append('%s:%d: expected %s "%s" was not produced'
                      % (path, where, e.sev, e.text))
    for d in unexpected:
        if d.sev in ('error', 'warning'):
            errors.append('%s:%d: unexpected %s: %s' % (path, d.line, d.sev, d.msg))

    want_rc = 2 if any(e.sev == 'error' for e in exps) else 0
    if rc is None:
        errors.append('%s:%d: tpucc timed out after %d s on this chunk'
                      % (path, first, TIMEOUT))
    elif rc < 0:
        errors.append('%s:%d: tpucc killed by signal %d on this chunk'
                      % (path, first, -rc))
    elif rc != want_rc:
        errors.append('%s:%d: tpucc exited with status %d, expected %d'
                      % (path, first, rc, want_rc))
    if errors:
        errors.append('--- output of: %s\n%s---' % (' '.join(cmd), out))
    return errors


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 1
    tpucc, path, extra = argv[1], argv[2], argv[3:]
    with open(path, encoding='utf-8', errors='replace') as f:
        lines = f.readlines()
    chunks = split_chunks(lines)
    failures = 0
    with tempfile.TemporaryDirectory(prefix='verify-diag-') as tmpdir:
        for first, chunk in chunks:
            errs = check_chunk(tpucc, extra, path, first, chunk, tmpdir,
                               whole_file=len(chunks) == 1)
            for e in errs:
                print(e)
            failures += bool(errs)
    if failures:
        print('%s: %d of %d chunk(s) failed diagnostics verification'
              % (path, failures, len(chunks)))
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
