#!/usr/bin/python3
"""The longest C functions of a tree: lines from the signature to the
closing brace, found by brace depth after comments, strings and
preprocessor lines are blanked.  Build folders and .git are skipped.

    mk/longest-functions.py [TREE] [N]      (default: . and 15)"""
import sys, re, os
def strip(src):
    src = re.sub(r'/\*.*?\*/', lambda m: '\n' * m.group(0).count('\n'), src, flags=re.S)
    src = re.sub(r'//[^\n]*', '', src)
    src = re.sub(r'"(\\.|[^"\\\n])*"', '""', src)
    src = re.sub(r"'(\\.|[^'\\\n])*'", "''", src)
    src = re.sub(r'^\s*#[^\n]*(\\\n[^\n]*)*', lambda m: '\n' * m.group(0).count('\n'), src, flags=re.M)
    return src
rows = []
top = sys.argv[1] if len(sys.argv) > 1 else '.'
for root, dirs, files in os.walk(top):
    dirs[:] = [d for d in dirs if not d.startswith(('build', '.git'))]
    for f in files:
        if not f.endswith(('.c', '.inc')): continue
        p = os.path.join(root, f)
        s = strip(open(p, errors='replace').read())
        depth = 0; head = ''; head_line = 0; start = None; name = None; line = 1
        for ch in s:
            if ch == '\n': line += 1
            if depth == 0:
                if ch == '{':
                    m = re.search(r'(\w+)\s*\([^=]*\)\s*$', head.strip(), flags=re.S)
                    if m and '=' not in head.split('(')[0]:
                        start = head_line; name = m.group(1)
                        name = re.search(r'(\w+)\s*\(', head).group(1)
                    else: start = None
                    depth = 1; continue
                if ch in ';}': head = ''; continue
                if not head.strip() and not ch.isspace(): head_line = line
                head += ch
            else:
                if ch == '{': depth += 1
                elif ch == '}':
                    depth -= 1
                    if depth == 0:
                        if start is not None: rows.append((line - start + 1, os.path.relpath(p, top), name))
                        head = ''; start = None
rows.sort(reverse=True)
for n, p, name in rows[:int(sys.argv[2]) if len(sys.argv) > 2 else 15]:
    print(f'{n:5d} {p}: {name}')
