#!/usr/bin/env python3
"""Writes src/wgpu/stable.api, the stable webgpu.h revision in webgpu.api's
record format, from the API description the standard publishes
(webgpu-native/webgpu-headers, webgpu.yml), and the classes of its entry
points from src/wgpu/webgpu.api.

Run by hand when the description changes (it is not needed to build):

    tools/wgpugen/yml2api.py PATH/TO/webgpu.yml src/wgpu/webgpu.api REV > src/wgpu/stable.api
    make regen

Only facts are taken (names, values, member and argument lists); the C
spelling is ours. The mapping: snake_case names become WGPU + PascalCase
types and camelCase members; an enum's value is its entry's index (nulls
count), a bitflag's the bit after its index (the first, "none", is 0), a
combination the OR of its parts; an "extensible" struct starts with
nextInChain, an "extension" with its chain; array<T> is a count and a
pointer; a callback with callback_mode style gets a CallbackInfo struct
(mode, callback, two userdata) and its method returns WGPUFuture; every
object has AddRef and Release; free_members structs their FreeMembers.
"""
import sys

import yaml


def pascal(s):
    out, up, i = [], True, 0
    while i < len(s):
        c = s[i]
        if s.startswith('__', i):
            out.append('_')  # unorm10__10__10__2 -> Unorm10_10_10_2
            i += 1
        elif c == '_':
            up = True
        elif up:
            out.append(c.upper())
            up = False
        else:
            out.append(c)
        i += 1
    return ''.join(out)


def camel(s):
    p = pascal(s)
    return p[0].lower() + p[1:] if p else p


def singular(s):
    return 'entry' if s == 'entries' else s[:-1] if s.endswith('s') else s


SCALARS = {
    'bool': 'WGPUBool', 'uint16': 'uint16_t', 'uint32': 'uint32_t', 'uint64': 'uint64_t',
    'int32': 'int32_t', 'usize': 'size_t', 'float32': 'float', 'float64_supertype': 'double',
    'nullable_float32': 'float', 'string_with_default_empty': 'WGPUStringView',
    'out_string': 'WGPUStringView', 'nullable_string': 'WGPUStringView',
    'c_void_data_ptr': 'void *', 'c_void_mapped_range_ptr': 'void *',
}


def ctype(t):
    if t in SCALARS:
        return SCALARS[t]
    if t.startswith('c_void_'):
        return 'void *'
    kind, _, name = t.partition('.')
    if kind in ('enum', 'bitflag', 'struct', 'object'):
        return 'WGPU' + pascal(name)
    if kind == 'callback':
        return 'WGPU' + pascal(name) + 'CallbackInfo'
    raise SystemExit('yml2api: unknown type ' + t)


def decl(m, const_default=True):
    """The C declarators of a member or argument (two for an array)."""
    t, name = m['type'], m['name']
    ptr = m.get('pointer')
    if t.startswith('array<'):
        inner = ctype(t[len('array<'):-1])
        p = '' if ptr == 'mutable' else 'const '
        return ['size_t ' + camel(singular(name)) + 'Count', p + inner + ' *' + camel(name)]
    base = ctype(t)
    if base == 'void *':
        return [('const void *' if ptr == 'immutable' else 'void *') + camel(name)]
    if ptr == 'immutable':
        return ['const ' + base + ' *' + camel(name)]
    if ptr == 'mutable':
        return [base + ' *' + camel(name)]
    return [base + ' ' + camel(name)]


def main():
    yml_path, api_path, rev = sys.argv[1], sys.argv[2], sys.argv[3]
    d = yaml.safe_load(open(yml_path))
    classes, futures, last = {}, {}, None
    for line in open(api_path):
        f = line.split()
        if len(f) >= 3 and f[0] == 'fn':
            classes[f[1]] = f[2]
            last = f[1]
        elif f and f[0] == 'refuse-future':
            futures[last] = line.strip()
    # The entry points this revision has and the pinned one has not: how
    # the webgpu.h door answers them in a build of this revision.
    own = {
        'GetInstanceFeatures': 'recovered', 'GetInstanceLimits': 'recovered',
        'HasInstanceFeature': 'recovered', 'SupportedInstanceFeaturesFreeMembers': 'recovered',
        'TextureGetTextureBindingViewDimension': 'recovered',
        'ComputePassEncoderSetImmediates': 'refused-in-door',
        'RenderPassEncoderSetImmediates': 'refused',
        'RenderBundleEncoderSetImmediates': 'refused',
    }
    out = []
    w = out.append
    w('# stable.api: the stable webgpu.h revision (webgpu-native/webgpu-headers at %s),' % rev)
    w('# in the record format of webgpu.api. Written by tools/wgpugen/yml2api.py from the')
    w('# standard\'s API description (webgpu.yml) and the classes of webgpu.api: do not edit;')
    w('# rerun it and `make regen`. tools/wgpugen/wgpugen.c writes src/wgpu/stable/webgpu/webgpu.h')
    w('# from it, and the availability of each entry point in each revision.')
    w('')
    w('typedef WGPUBool uint32_t')
    w('typedef WGPUFlags uint64_t')
    w('')
    w('struct WGPUChainedStruct head')
    w('member struct WGPUChainedStruct *next')
    w('member uint32_t sType')
    w('')
    w('struct WGPUStringView head')
    w('member const char *data')
    w('member size_t length')
    w('')
    for o in d['objects']:
        w('handle WGPU' + pascal(o['name']))
    w('')
    limits = {'uint32_max': 'UINT32_MAX', 'uint64_max': 'UINT64_MAX', 'usize_max': 'SIZE_MAX', 'nan': 'NAN'}
    for c in d['constants']:
        w('const WGPU_%s %s' % (c['name'].upper(), limits[c['value']]))
    w('')
    for e in d['enums']:
        w('enum WGPU' + pascal(e['name']))
        for i, v in enumerate(e['entries']):
            if v is None:
                continue
            w('value %s 0x%08X' % (pascal(v['name']), v.get('value', i)))
    w('')
    for b in d['bitflags']:
        w('flags WGPU' + pascal(b['name']))
        bits = {}
        for i, v in enumerate(b['entries']):
            if 'value_combination' in v:
                val = 0
                for part in v['value_combination']:
                    val |= bits[part]
            else:
                val = 0 if i == 0 else 1 << (i - 1)
            bits[v['name']] = val
            w('value %s 0x%X' % (pascal(v['name']), val))
    w('')
    # Callbacks, and the CallbackInfo structs of those with a mode.
    infos = []
    for cb in d['callbacks']:
        args = []
        for a in cb.get('args', []):
            args += decl(a)
        args += ['void *userdata1', 'void *userdata2']
        w('callback WGPU%sCallback void (%s)' % (pascal(cb['name']), ', '.join(args)))
        members = ['WGPUChainedStruct *nextInChain']
        if cb.get('style') == 'callback_mode':
            members.append('WGPUCallbackMode mode')
        members += ['WGPU%sCallback callback' % pascal(cb['name']), 'void *userdata1', 'void *userdata2']
        infos.append(('WGPU%sCallbackInfo' % pascal(cb['name']), members, []))
    w('callback WGPUProc void (void)')
    w('')
    structs = list(infos)
    free = []
    for s in d['structs']:
        name = 'WGPU' + pascal(s['name'])
        members = []
        if s['type'] in ('extensible', 'extensible_callback_arg'):
            members.append('WGPUChainedStruct *nextInChain')
        elif s['type'] == 'extension':
            members.append('WGPUChainedStruct chain')
        deps = []
        for m in s.get('members', []):
            members += decl(m)
            t = m['type']
            if t.startswith('struct.') and not m.get('pointer'):
                deps.append('WGPU' + pascal(t[len('struct.'):]))
            if t.startswith('callback.'):
                deps.append(ctype(t))
        if s.get('free_members'):
            free.append(name)
        structs.append((name, members, deps))
    # A struct after the structs it holds by value.
    names = {n for n, _, _ in structs}
    done, order = set(), []
    pending = sorted(structs, key=lambda x: x[0])
    while pending:
        rest = []
        for n, m, deps in pending:
            if all(dp in done or dp not in names for dp in deps):
                order.append((n, m))
                done.add(n)
            else:
                rest.append((n, m, deps))
        if len(rest) == len(pending):
            raise SystemExit('yml2api: a cycle among ' + ' '.join(n for n, _, _ in rest))
        pending = rest
    for n, members in order:
        w('struct ' + n)
        for m in members:
            w('member ' + m)
        w('')
    # Entry points.
    fns = []

    def ret_of(r):
        if not r:
            return 'void'
        return decl({'name': 'x', 'type': r['type'], 'pointer': r.get('pointer')})[0].rsplit('x', 1)[0].strip()

    def add(name, ret, params):
        fns.append((name, ret, params))

    for f in d['functions']:
        params = []
        for a in f.get('args', []):
            params += decl(a)
        add(pascal(f['name']), ret_of(f.get('returns')), params)
    add('GetProcAddress', 'WGPUProc', ['WGPUStringView procName'])
    for s in free:
        add(s[len('WGPU'):] + 'FreeMembers', 'void', ['%s %s' % (s, camel(s[len('WGPU'):]))])
    for o in d['objects']:
        on = pascal(o['name'])
        self_param = 'WGPU%s %s' % (on, camel(o['name']))
        for m in o.get('methods', []):
            params = [self_param]
            for a in m.get('args', []):
                params += decl(a)
            ret = ret_of(m.get('returns'))
            if 'callback' in m:
                params.append('WGPU%sCallbackInfo callbackInfo' % pascal(m['callback'][len('callback.'):]))
                ret = 'WGPUFuture'
            add(on + pascal(m['name']), ret, params)
        add(on + 'AddRef', 'void', [self_param])
        add(on + 'Release', 'void', [self_param])
    for name, ret, params in sorted(fns):
        cls = classes.get(name) or own.get(name)
        if not cls:
            raise SystemExit('yml2api: no class for wgpu%s (add it to the table in this script)' % name)
        w('fn %s %s %s (%s)' % (name, cls, ret, ', '.join(params) if params else 'void'))
        if name in futures:
            w(futures[name])
    print('\n'.join(out))


if __name__ == '__main__':
    main()
