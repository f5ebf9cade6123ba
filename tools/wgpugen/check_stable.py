#!/usr/bin/env python3
"""Compares unlost's declarations of the stable webgpu.h
(src/wgpu/stable/webgpu/webgpu.h, generated from src/wgpu/stable.api) with
the header the standard publishes (webgpu-native/webgpu-headers' webgpu.h),
which is not in this tree: run by hand after yml2api.py and `make regen`.

    tools/wgpugen/check_stable.py PATH/TO/PUBLISHED/webgpu.h [CC]

Three checks, each printing what differs:
  1. a C program generated from stable.api prints the size and each
     member's offset and size of every struct, every enum and flag value and
     every constant; it is compiled once against each header and the outputs
     must be equal;
  2. every entry point's return and parameter types, read from both headers,
     must be equal;
  3. the same for every callback and WGPUProc typedef.
Exit 0 when all agree, 1 otherwise.
"""
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OURS = os.path.join(ROOT, 'src', 'wgpu', 'stable')


def dump_program(api_path):
    out = ['#include <stdio.h>', '#include <stddef.h>', '#include <webgpu/webgpu.h>', 'int main(void) {']
    cur = None
    for line in open(api_path):
        line = line.rstrip('\n')
        if not line or line.startswith('#'):
            continue
        kw, _, rest = line.partition(' ')
        if kw in ('enum', 'flags'):
            cur = rest
        elif kw == 'value':
            suffix = rest.split()[0]
            out.append('printf("%%s %%llx\\n", "%s_%s", (unsigned long long)%s_%s);' % (cur, suffix, cur, suffix))
        elif kw == 'struct':
            cur = rest.split()[0]
            out.append('printf("%%s size %%zu\\n", "%s", sizeof(%s));' % (cur, cur))
        elif kw == 'member':
            m = re.findall(r'[A-Za-z_][A-Za-z0-9_]*', rest)[-1]
            out.append('printf("%%s.%%s %%zu %%zu\\n", "%s", "%s", offsetof(%s, %s), sizeof(((%s *)0)->%s));'
                       % (cur, m, cur, m, cur, m))
        elif kw == 'const':
            name = rest.split()[0]
            out.append('printf("%%s %%g\\n", "%s", (double)%s);' % (name, name))
    out.append('return 0;\n}')
    return '\n'.join(out) + '\n'


def run_dump(src, include, cc, tmp, tag):
    exe = os.path.join(tmp, 'dump_' + tag)
    subprocess.run([cc, '-std=c11', '-w', '-I', include, '-o', exe, src], check=True)
    return subprocess.run([exe], check=True, capture_output=True, text=True).stdout.splitlines()


def norm_type(t):
    t = re.sub(r'\b(WGPU_NULLABLE|WGPU_FUNCTION_ATTRIBUTE|struct)\b', ' ', t)
    t = re.sub(r'\b([A-Za-z_][A-Za-z0-9_]*) const\b', r'const \1', t.strip())
    t = re.sub(r'\s*\*\s*', ' *', t).strip()
    return re.sub(r'\s+', ' ', t)


def signature(ret, params):
    types = []
    if params.strip() not in ('', 'void'):
        for p in params.split(','):
            types.append(norm_type(re.sub(r'[A-Za-z_][A-Za-z0-9_]*\s*$', '', p.strip())))
    return (norm_type(ret), tuple(types))


def declarations(text):
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    fns, tds = {}, {}
    for m in re.finditer(r'(?:WGPU_EXPORT\s+)?([A-Za-z_][A-Za-z0-9_ *]*?)\s*\bwgpu([A-Z]\w*)\s*\(([^;{]*)\)\s*'
                         r'(?:WGPU_FUNCTION_ATTRIBUTE)?\s*;', text):
        if 'typedef' not in m.group(1):
            fns[m.group(2)] = signature(m.group(1), m.group(3))
    for m in re.finditer(r'typedef\s+([A-Za-z_][A-Za-z0-9_ *]*?)\s*\(\s*\*\s*(WGPU\w+)\s*\)\s*\(([^;]*)\)', text):
        tds[m.group(2)] = signature(m.group(1), m.group(3))
    return fns, tds


def compare(what, a, b):
    bad = 0
    for k in sorted(set(a) | set(b)):
        if a.get(k) != b.get(k):
            print('%s %s: ours %s, published %s' % (what, k, a.get(k), b.get(k)))
            bad += 1
    print('%s: %d compared, %d differ' % (what, len(set(a) | set(b)), bad))
    return bad


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    published, cc = os.path.abspath(sys.argv[1]), sys.argv[2] if len(sys.argv) > 2 else 'cc'
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        pub_inc = os.path.join(tmp, 'pub')
        os.makedirs(os.path.join(pub_inc, 'webgpu'))
        with open(os.path.join(pub_inc, 'webgpu', 'webgpu.h'), 'w') as f:
            f.write(open(published).read())
        src = os.path.join(tmp, 'dump.c')
        with open(src, 'w') as f:
            f.write(dump_program(os.path.join(ROOT, 'src', 'wgpu', 'stable.api')))
        ours, pub = run_dump(src, OURS, cc, tmp, 'ours'), run_dump(src, pub_inc, cc, tmp, 'pub')
        diff = [(a, b) for a, b in zip(ours, pub) if a != b]
        for a, b in diff[:40]:
            print('layout: ours "%s", published "%s"' % (a, b))
        if len(ours) != len(pub):
            print('layout: %d lines, published %d' % (len(ours), len(pub)))
        print('layout: %d sizes, offsets, values and constants, %d differ' % (len(ours), len(diff)))
        bad += len(diff) + (len(ours) != len(pub))
    fo, to = declarations(open(os.path.join(OURS, 'webgpu', 'webgpu.h')).read())
    fp, tp = declarations(open(published).read())
    bad += compare('entry point', fo, fp)
    bad += compare('typedef', to, tp)
    sys.exit(1 if bad else 0)


if __name__ == '__main__':
    main()
