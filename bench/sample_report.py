#!/usr/bin/env python3
"""A flat CPU profile from the file of bench/webgpu/sampler.c (written by
`unlost-bench-webgpu --profile P --sample FILE`): self time by module and by
module and symbol, like `perf report --no-children --sort dso,sym`, and the
layer's own functions. For machines without perf (gVisor).

Each sampled PC is placed in the module whose PT_LOAD segment holds it, its
offset (PC minus the module's load bias) looked up in `nm -n -S
--defined-only` of the module, or of its separate debug file (found by
build-id or .gnu_debuglink under /usr/lib/debug, or in perf's ~/.debug),
else `nm -D` (.dynsym: exported functions only; a PC past every symbol's end
is [no symbol]). PCs in no module (JIT code, anonymous mappings) are
[unknown]; the vDSO's are [vdso]; a PLT's, [plt].

A sample whose PC follows a `syscall` instruction was (nearly always) taken
in the kernel, on that system call's behalf: the timers count system time
and the signal is delivered on the way back to user space. Such PCs get a
table of their own by system call (the number read from the `mov $N, %eax`
before the instruction; a guess, marked ? where none is found), and where
the PC has no symbol it is named [syscall NAME].

Percentages: with the process timer (ITIMER_PROF), of the samples (the
process's CPU time); with the per-thread timers (--sample-timer threads),
of the threads' CPU time read from their clocks, the main thread's samples
and the other threads' each weighted by their threads' CPU time, and the
time of threads that could not be sampled (they block SIGPROF, or were made
after the start) a row [not sampled] of its own. The threads table gives
each thread's CPU time against its samples either way. Standard library and
nm (binutils) only.

usage: sample_report.py FILE [--min PCT] [--by-thread] [--json] [--layer-top N]
                        [--build DIR] [--width N]
"""
import argparse
import bisect
import json
import mmap
import os
import re
import struct
import subprocess
import sys

TEXT_TYPES = set("tTwWi")
NM_LINE = re.compile(r"^([0-9a-fA-F]+) (?:([0-9a-fA-F]+) )?(\S) (.*)$")
# The targets whose objects are the layer (src/); bench and tools objects are not.
LAYER_DIRS = ("unlost_obj.dir", "unlost_webgpu_obj.dir")
BENCH_DIRS = ("unlost_bench_webgpu.dir",)
LAYER_PREFIXES = ("ul__", "ul_", "wgpu", "guard_")


# x86-64 system call numbers (the common ones; others print as their number).
SYSCALLS = {
    0: "read", 1: "write", 2: "open", 3: "close", 4: "stat", 5: "fstat", 6: "lstat", 7: "poll", 8: "lseek",
    9: "mmap", 10: "mprotect", 11: "munmap", 12: "brk", 13: "rt_sigaction", 14: "rt_sigprocmask",
    15: "rt_sigreturn", 16: "ioctl", 17: "pread64", 18: "pwrite64", 19: "readv", 20: "writev", 21: "access",
    22: "pipe", 23: "select", 24: "sched_yield", 25: "mremap", 26: "msync", 27: "mincore", 28: "madvise",
    29: "shmget", 30: "shmat", 31: "shmctl", 32: "dup", 33: "dup2", 34: "pause", 35: "nanosleep",
    36: "getitimer", 38: "setitimer", 39: "getpid", 41: "socket", 42: "connect", 44: "sendto", 45: "recvfrom",
    46: "sendmsg", 47: "recvmsg", 56: "clone", 57: "fork", 59: "execve", 60: "exit", 61: "wait4", 62: "kill",
    63: "uname", 72: "fcntl", 73: "flock", 74: "fsync", 75: "fdatasync", 77: "ftruncate", 89: "readlink",
    96: "gettimeofday", 98: "getrusage", 158: "arch_prctl", 186: "gettid", 200: "tkill", 202: "futex",
    218: "set_tid_address", 228: "clock_gettime", 229: "clock_getres", 230: "clock_nanosleep",
    231: "exit_group", 232: "epoll_wait", 234: "tgkill", 257: "openat", 262: "newfstatat", 270: "pselect6",
    271: "ppoll", 273: "set_robust_list", 281: "epoll_pwait", 284: "eventfd", 290: "eventfd2",
    291: "epoll_create1", 292: "dup3", 293: "pipe2", 302: "prlimit64", 318: "getrandom", 319: "memfd_create",
    324: "membarrier", 332: "statx", 334: "rseq", 425: "io_uring_setup", 426: "io_uring_enter", 435: "clone3",
    441: "epoll_pwait2", 449: "futex_waitv",
}
PLT_SECTIONS = (".plt", ".plt.sec", ".plt.got", ".iplt")


class Elf:
    """What the report needs of an x86-64 ELF file: bytes at a virtual address,
    section ranges, the build-id and the debug link. None where the file is not
    a readable 64-bit little-endian ELF."""

    def __init__(self, path):
        self.ok = False
        self.loads, self.sections = [], {}
        try:
            with open(path, "rb") as f:
                self.m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError):
            return
        m = self.m
        if len(m) < 64 or m[:4] != b"\x7fELF" or m[4] != 2 or m[5] != 1:
            return
        phoff, shoff = struct.unpack_from("<QQ", m, 0x20)
        phentsize, phnum, shentsize, shnum, shstrndx = struct.unpack_from("<HHHHH", m, 0x36)
        for i in range(phnum):
            p_type, _, p_offset, p_vaddr, _, p_filesz = struct.unpack_from("<IIQQQQ", m, phoff + i * phentsize)
            if p_type == 1:
                self.loads.append((p_vaddr, p_filesz, p_offset))
        if shoff and shstrndx < shnum:
            def sh(i):
                return struct.unpack_from("<IIQQQQ", m, shoff + i * shentsize)
            stro = sh(shstrndx)[4]
            for i in range(shnum):
                name_off, sh_type, _, addr, off, size = sh(i)
                end = m.find(b"\0", stro + name_off)
                name = m[stro + name_off:end].decode("latin-1")
                self.sections[name] = (addr, size, off, sh_type)
        self.ok = True

    def read(self, vaddr, n):
        for v, filesz, off in self.loads:
            if v <= vaddr and vaddr + n <= v + filesz:
                return self.m[off + vaddr - v:off + vaddr - v + n]
        return None

    def in_plt(self, vaddr):
        for name in PLT_SECTIONS:
            s = self.sections.get(name)
            if s and s[0] <= vaddr < s[0] + s[1]:
                return True
        return False

    def build_id(self):
        s = self.sections.get(".note.gnu.build-id")
        if not s:
            return None
        namesz, descsz, ntype = struct.unpack_from("<III", self.m, s[2])
        if ntype != 3:
            return None
        d = s[2] + 12 + ((namesz + 3) & ~3)
        return self.m[d:d + descsz].hex()

    def debuglink(self):
        s = self.sections.get(".gnu_debuglink")
        if not s:
            return None
        raw = self.m[s[2]:s[2] + s[1]]
        return raw[:raw.find(b"\0")].decode("latin-1")


_elf_cache = {}


def elf(path):
    if path not in _elf_cache:
        _elf_cache[path] = Elf(path)
    return _elf_cache[path]


def debug_file(path):
    """A separate file with the symbols of path, or None."""
    e = elf(path)
    if not e.ok:
        return None
    cands = []
    bid = e.build_id()
    if bid:
        cands.append(f"/usr/lib/debug/.build-id/{bid[:2]}/{bid[2:]}.debug")
        cands.append(os.path.expanduser(f"~/.debug{os.path.realpath(path)}/{bid}/debug"))
    link = e.debuglink()
    if link:
        d = os.path.dirname(os.path.realpath(path))
        cands += [os.path.join(d, link), os.path.join(d, ".debug", link), f"/usr/lib/debug{d}/{link}"]
    for c in cands:
        if os.path.isfile(c) and os.path.realpath(c) != os.path.realpath(path):
            return c
    return None


def syscall_at(path, off):
    """(number or None) when the instruction before offset off is `syscall`, else False."""
    e = elf(path)
    if not e.ok or off < 2 or e.read(off - 2, 2) != b"\x0f\x05":
        return False
    back = 32
    code = e.read(off - 2 - back, back)
    while code is None and back > 8:
        back //= 2
        code = e.read(off - 2 - back, back)
    if code is None:
        return None
    # The nearest `mov $imm32, %eax` (b8 imm32, no REX.B prefix) before it.
    for i in range(len(code) - 5, -1, -1):
        if code[i] == 0xB8 and (i == 0 or code[i - 1] not in (0x41, 0x43, 0x45, 0x47, 0x49, 0x4B, 0x4D, 0x4F)):
            n = struct.unpack_from("<I", code, i + 1)[0]
            if n < 1024:
                return n
    return None


def parse(path):
    d = {"modules": [], "threads": {}, "tasks": [], "pcs": [], "complete": False, "timer": "process"}
    with open(path, encoding="utf-8", errors="replace") as f:
        first = f.readline().split()
        if first[:1] != ["unlost-sampler"]:
            raise SystemExit(f"sample_report: {path}: not a sampler file (no 'unlost-sampler' header)")
        for line in f:
            line = line.rstrip("\n")
            key, _, rest = line.partition(" ")
            if key == "pc":
                pc, cls, n = rest.split(" ")
                d["pcs"].append((int(pc, 16), cls, int(n)))
            elif key == "load":
                s, e, flags = rest.split(" ")
                d["modules"][-1]["loads"].append((int(s, 16), int(e, 16), flags))
            elif key == "module":
                base, _, name = rest.partition(" ")
                d["modules"].append({"name": name, "base": int(base, 16), "loads": []})
            elif key == "task":
                tid, c0, c1, blk, name = (rest.split(" ", 4) + [""])[:5]
                d["tasks"].append({"tid": int(tid), "cpu0_ms": float(c0), "cpu1_ms": float(c1),
                                   "blocks_sigprof": {"b": True, "-": False}.get(blk), "name": name})
            elif key == "timer":
                d["timer"], _, nt = rest.partition(" ")
                d["timers"] = int(nt or 0)
            elif key == "thread":
                tid, n = rest.split(" ")
                d["threads"][int(tid)] = int(n)
            elif key == "exe":
                d["exe"] = rest
            elif key == "end":
                d["complete"] = True
            elif key in ("hz", "main_tid", "samples", "cpu_ms"):
                f2 = line.split(" ")
                for k, v in zip(f2[0::2], f2[1::2]):
                    d[k] = float(v) if "." in v else int(v)
    return d


_nm_cache = {}
_nm_missing = []


def run_nm(args):
    """nm's output, or "" (said once) where nm cannot be run."""
    try:
        return subprocess.run(["nm"] + args, capture_output=True, text=True, errors="replace").stdout
    except OSError as e:
        if not _nm_missing:
            _nm_missing.append(str(e))
            print(f"sample_report: cannot run nm ({e}): no symbols", file=sys.stderr)
        return ""


def nm_symbols(path, dynamic=False):
    """[(addr, size or 0, name)] of the text symbols, sorted, one per address."""
    out = run_nm(["-n", "-S", "-C", "--defined-only"] + (["-D"] if dynamic else []) + [path])
    syms = {}
    for line in out.splitlines():
        m = NM_LINE.match(line)
        if not m or m.group(3) not in TEXT_TYPES:
            continue
        a, size, name = int(m.group(1), 16), int(m.group(2) or "0", 16), m.group(4)
        old = syms.get(a)
        if old is None or size > old[0] or (size == old[0] and m.group(3) in "TW" and old[2] not in "TW"):
            syms[a] = (size, name, m.group(3))
    return [(a, v[0], v[1]) for a, v in sorted(syms.items())]


def symtab(path):
    """The module's symbols ((addrs, entries), and where they came from)."""
    if path not in _nm_cache:
        syms, src = [], "none"
        if os.path.isfile(path):
            syms, src = nm_symbols(path), ".symtab"
            dbg = None if syms else debug_file(path)
            if dbg:
                syms, src = nm_symbols(dbg), dbg
            if not syms:
                syms, src = nm_symbols(path, dynamic=True), ".dynsym"
        _nm_cache[path] = ([s[0] for s in syms], syms, src)
    return _nm_cache[path]


def lookup(path, off):
    addrs, syms, _ = symtab(path)
    i = bisect.bisect_right(addrs, off) - 1
    # An address past its symbol's end: an earlier symbol may still hold it.
    for j in range(i, max(i - 8, -1), -1):
        a, size, name = syms[j]
        if size == 0 and j == i:
            return name  # no size known: up to the next symbol, as perf does
        if a <= off < a + size:
            return name
    return "[no symbol]"


def names_in_objects(dirs):
    """Names of the text symbols defined in the object files under dirs."""
    names, found = set(), False
    for d in dirs:
        objs = []
        for root, _, files in os.walk(d):
            objs += [os.path.join(root, f) for f in files if f.endswith(".o")]
        if not objs:
            continue
        found = True
        out = run_nm(["-C", "--defined-only"] + sorted(objs))
        for line in out.splitlines():
            m = NM_LINE.match(line)
            if m and m.group(3) in TEXT_TYPES:
                names.add(m.group(4))
    return names if found else None


def layer_rule(build):
    """A function telling whether an executable symbol is the layer's, and what the rule was."""
    cm = os.path.join(build, "CMakeFiles")
    layer = names_in_objects([os.path.join(cm, d) for d in LAYER_DIRS])
    if layer is not None:
        return (lambda n: n in layer or n.startswith(LAYER_PREFIXES)), \
            f"defined in {cm}/{{{','.join(LAYER_DIRS)}}} (src/), or named {'*, '.join(LAYER_PREFIXES)}*"
    bench = names_in_objects([os.path.join(cm, d) for d in BENCH_DIRS])
    if bench is not None:
        return (lambda n: n not in bench or n.startswith(LAYER_PREFIXES)), \
            f"every executable symbol not defined in {cm}/{BENCH_DIRS[0]} (bench and tools objects)"
    return (lambda n: True), "every executable symbol (no object files found under " + cm + ")"


def thread_accounting(d):
    """Each thread's CPU time while sampling (its clock at start and stop),
    its samples, and whether it could be sampled."""
    tasks = []
    for t in d["tasks"]:
        c0, c1 = t["cpu0_ms"], t["cpu1_ms"]
        cpu = c1 - c0 if c0 >= 0 and c1 >= 0 else (c1 if c1 >= 0 else None)
        tasks.append({"tid": t["tid"], "name": t["name"], "cpu_ms": round(cpu, 3) if cpu is not None else None,
                      "blocks_sigprof": t["blocks_sigprof"], "samples": d["threads"].get(t["tid"], 0),
                      "there": "both" if c0 >= 0 and c1 >= 0 else ("stop" if c1 >= 0 else "start")})
    tasks.sort(key=lambda t: (-(t["cpu_ms"] or 0), t["tid"]))
    return tasks


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("file")
    ap.add_argument("--min", type=float, default=0.3, help="the module+symbol table's threshold, percent (0.3)")
    ap.add_argument("--by-thread", action="store_true", help="split each table: the main thread, the others")
    ap.add_argument("--json", action="store_true", help="the same tables as JSON")
    ap.add_argument("--layer-top", type=int, default=50, help="lines of the layer's table (50)")
    ap.add_argument("--build", help="the build folder whose CMakeFiles/ tell the layer's objects "
                                    "(default: the executable's folder)")
    ap.add_argument("--width", type=int, default=120, help="symbol names cut to this many characters (text)")
    a = ap.parse_args()

    d = parse(a.file)
    exe = d.get("exe", "")
    main_tid = d.get("main_tid")
    total = sum(n for _, _, n in d["pcs"])
    # Segments, sorted, for the PC's module.
    segs = sorted((s, e, i) for i, m in enumerate(d["modules"]) for s, e, _ in m["loads"])
    starts = [s[0] for s in segs]

    def module_of(pc):
        i = bisect.bisect_right(starts, pc) - 1
        if i >= 0 and pc < segs[i][1]:
            return d["modules"][segs[i][2]]
        return None

    by_mod, by_sym, layer, calls = {}, {}, {}, {}
    is_layer, rule = layer_rule(a.build or os.path.dirname(exe) or ".")

    def add(table, key, cls, n):
        row = table.setdefault(key, [0, 0])
        row[0 if cls == "m" else 1] += n

    for pc, cls, n in d["pcs"]:
        m = module_of(pc)
        if m is None:
            mod, path, sym = "[unknown]", "[unknown]", "[unknown]"
        elif m["name"].startswith("["):
            path = mod = sym = m["name"]
        else:
            path, off = m["name"], pc - m["base"]
            mod = os.path.basename(path)
            sym = "[plt]" if elf(path).in_plt(off) else lookup(path, off)
            nr = syscall_at(path, off)
            if nr is not False:
                name = SYSCALLS.get(nr, str(nr)) if nr is not None else "?"
                if sym == "[no symbol]":
                    sym = f"[syscall {name}]"
                add(calls, (name, mod, sym), cls, n)
        add(by_mod, (mod, path), cls, n)
        add(by_sym, (mod, sym), cls, n)
        if path == exe and is_layer(sym):
            add(layer, sym, cls, n)

    # What a sample stands for, in ms of CPU time. The process timer: the
    # process's CPU time over all samples. The per-thread timers sample each
    # thread at its own rate (ticks it was running at): a main-thread sample
    # stands for the main thread's CPU time over its samples, another's for
    # the other sampled threads' over theirs; the CPU time of threads that
    # could not be sampled is a row of its own.
    tasks = thread_accounting(d)
    task_cpu = sum(t["cpu_ms"] or 0 for t in tasks)
    blocked_cpu = sum(t["cpu_ms"] or 0 for t in tasks if t["blocks_sigprof"])
    main_n = sum(n for tid, n in d["threads"].items() if tid == main_tid)
    other_n = total - main_n
    others = [t for t in d["threads"] if t != main_tid]
    unsampled = []  # (what, ms)
    threads_timer = d["timer"] == "threads" and tasks
    if threads_timer:
        main_cpu = sum(t["cpu_ms"] or 0 for t in tasks if t["tid"] == main_tid)
        late_cpu = sum(t["cpu_ms"] or 0 for t in tasks if t["there"] == "stop" and not t["blocks_sigprof"])
        other_cpu = sum(t["cpu_ms"] or 0 for t in tasks
                        if t["tid"] != main_tid and t["there"] != "stop" and not t["blocks_sigprof"])
        w = {"m": main_cpu / main_n if main_n else 0.0, "o": other_cpu / other_n if other_n else 0.0}
        if blocked_cpu:
            unsampled.append(("threads that block SIGPROF", blocked_cpu))
        if late_cpu:
            unsampled.append(("threads made while sampling", late_cpu))
        for what, cpu, n in (("the main thread: no samples", main_cpu, main_n),
                             ("other threads: no samples", other_cpu, other_n)):
            if cpu and not n:
                unsampled.append((what, cpu))
        denom = task_cpu
    else:
        cpu_ms = d.get("cpu_ms") or 0.0
        w = {"m": cpu_ms / total if total else 0.0, "o": cpu_ms / total if total else 0.0}
        denom = cpu_ms
    unsampled_ms = sum(ms for _, ms in unsampled)

    def ms_of(main, other):
        return main * w["m"] + other * w["o"]

    def pct_ms(ms):
        return 100.0 * ms / denom if denom else 0.0

    def rows(table, keyf, min_pct=None, extra=()):
        out = []
        for k, (nm_, no) in table.items():
            ms = ms_of(nm_, no)
            if min_pct is not None and pct_ms(ms) < min_pct:
                continue
            r = keyf(k)
            r.update({"percent": round(pct_ms(ms), 3), "cpu_ms": round(ms, 3), "samples": nm_ + no, "main": nm_,
                      "other": no})
            out.append(r)
        for r in extra:
            if min_pct is None or r["percent"] >= min_pct:
                out.append(r)
        out.sort(key=lambda r: (-r["cpu_ms"], str(r)))
        return out

    def unsampled_rows(keyf):
        return [dict(keyf(what), percent=round(pct_ms(ms), 3), cpu_ms=round(ms, 3), samples=0, main=0, other=0)
                for what, ms in unsampled]

    mods = rows(by_mod, lambda k: {"module": k[0], "path": k[1]},
                extra=unsampled_rows(lambda what: {"module": "[not sampled]", "path": what}))
    syms = rows(by_sym, lambda k: {"module": k[0], "symbol": k[1]}, min_pct=a.min,
                extra=unsampled_rows(lambda what: {"module": "[not sampled]", "symbol": what}))
    lay = rows(layer, lambda k: {"symbol": k})
    sysc = rows(calls, lambda k: {"syscall": k[0], "module": k[1], "symbol": k[2]})
    nsys = sum(sum(v) for v in calls.values())
    sys_ms = sum(ms_of(*v) for v in calls.values())
    # The user-space share: what perf's dso split says once [kernel.kallsyms] is left out.
    sys_by_mod = {}
    for (_, mod, _), v in calls.items():
        sys_by_mod[mod] = sys_by_mod.get(mod, 0.0) + ms_of(*v)
    user_ms = sum(ms_of(*v) for v in by_mod.values()) - sys_ms
    for r in mods:
        u = r["cpu_ms"] - sys_by_mod.get(r["module"], 0.0) if r["module"] != "[not sampled]" else 0.0
        r["user_percent"] = round(100.0 * u / user_ms, 3) if user_ms > 0 else 0.0
    layer_ms = sum(ms_of(*v) for v in layer.values())
    cpu_s = (d.get("cpu_ms") or 0) / 1e3
    header = {
        "file": a.file, "exe": exe, "timer": d["timer"], "samples": total, "dropped": d.get("dropped", 0),
        "hz_asked": d.get("hz"), "interval_us": d.get("interval_us"),
        "cpu_ms": d.get("cpu_ms"), "wall_ms": d.get("wall_ms"), "user_ms": d.get("user_ms"),
        "sys_ms": d.get("sys_ms"), "samples_per_cpu_s": round(total / cpu_s, 1) if cpu_s > 0 else None,
        "percent_of": "the threads' CPU time (each thread's clock)" if threads_timer else "the process's CPU time",
        "percent_of_ms": round(denom, 3),
        "main_thread_samples": main_n, "other_thread_samples": other_n, "other_threads_sampled": len(others),
        "threads_cpu_ms": round(task_cpu, 3), "blocking_threads_cpu_ms": round(blocked_cpu, 3),
        "not_sampled_ms": round(unsampled_ms, 3),
        "syscall_samples": nsys, "syscall_percent": round(pct_ms(sys_ms), 3),
        "layer_samples": sum(sum(v) for v in layer.values()), "layer_percent": round(pct_ms(layer_ms), 3),
        "layer_rule": rule, "complete": d["complete"],
        "symbols_from": {os.path.basename(p): v[2] for p, v in _nm_cache.items()},
    }

    if a.json:
        json.dump({"header": header, "modules": mods, "symbols": syms, "symbols_min_percent": a.min,
                   "layer": lay, "syscalls": sysc, "threads": tasks}, sys.stdout, indent=1)
        print()
        return

    def cut(s):
        return s if len(s) <= a.width else s[:a.width - 3] + "..."

    def lead(r):
        th = f" {r['main']:>8} {r['other']:>8}" if a.by_thread else ""
        return f"{r['percent']:7.2f}% {r['samples']:>8}{th}"

    head = f"{'percent':>8} {'samples':>8}" + (f" {'main':>8} {'other':>8}" if a.by_thread else "")
    rate = f"{header['samples_per_cpu_s']:.0f}" if header["samples_per_cpu_s"] else "?"
    timer = ("one timer on each thread's CPU clock (timer_create, SIGEV_THREAD_ID)" if d["timer"] == "threads"
             else "ITIMER_PROF, the CPU time of every thread together")
    print(f"# flat CPU profile (self time) of {os.path.basename(exe)}, sampled in-process by sampler.c:")
    print(f"#  SIGPROF from {timer}")
    print(f"# {total} samples ({header['dropped']} dropped) over {d.get('cpu_ms', 0):.1f} ms of CPU "
          f"(user {d.get('user_ms', 0):.1f}, system {d.get('sys_ms', 0):.1f}) in {d.get('wall_ms', 0):.1f} ms wall:")
    print(f"#  {rate} samples per CPU second, {d.get('hz')} Hz asked (the timers tick at the kernel's resolution: "
          f"Linux about")
    print("#  one sample per tick, CONFIG_HZ; gVisor 100 a second)")
    print("# no kernel frames: the CPU time counted includes system time, and a sample taken in a system call")
    print("#  lands on the user PC after it (libc's syscall wrappers: futex, ioctl...) where perf would show")
    print("#  [kernel.kallsyms]; the last table sums those samples by system call")
    print(f"# percent: of {header['percent_of']}, {denom:.1f} ms" +
          (";\n#  each class's samples weighted by its threads' CPU time" if threads_timer else ""))
    print(f"# threads: main {main_n} samples, {len(others)} other thread(s) {other_n}")
    if tasks and blocked_cpu > 0.02 * task_cpu:
        if threads_timer:
            what = "they are not sampled (their SIGPROF stays pending): the row [not sampled] holds their time"
        else:
            what = ("their SIGPROF went to other threads, whose PCs (often a wait's system call) stand for that\n"
                    "#  time; --sample-timer threads samples each thread on its own clock")
        print(f"# WARNING: {100 * blocked_cpu / task_cpu:.0f}% of the threads' CPU time ({blocked_cpu:.0f} ms) was "
              f"in threads that block SIGPROF:\n#  {what}")
    if _nm_missing:
        print(f"# WARNING: nm could not be run ({_nm_missing[0]}): no symbol names (install binutils)")
    if not d["complete"]:
        print("# WARNING: the file has no 'end' line: truncated")
    print()
    print("## by module")
    print("#  (user%: the share of the time not at a system call's return, to set beside perf's split of the")
    print("#   user-space modules without [kernel.kallsyms])")
    print(f"{head} {'user%':>7}  module")
    for r in mods:
        extra = f" ({r['path']})" if r["module"] == "[not sampled]" else ""
        print(f"{lead(r)} {r['user_percent']:6.2f}%  {r['module']}{extra}")
    print()
    print(f"## by module and symbol (>= {a.min}%)")
    print(f"{head}  {'module':<28} symbol")
    for r in syms:
        print(f"{lead(r)}  {r['module']:<28} {cut(r['symbol'])}")
    print()
    print(f"## the layer's own functions: {header['layer_samples']} samples, {header['layer_percent']:.2f}%")
    print(f"#  (rule: {rule})")
    print(f"{head}  symbol")
    for r in lay[:a.layer_top]:
        print(f"{lead(r)}  {cut(r['symbol'])}")
    if len(lay) > a.layer_top:
        rest = lay[a.layer_top:]
        print(f"# ... {len(rest)} more symbols, {sum(r['samples'] for r in rest)} samples, "
              f"{sum(r['percent'] for r in rest):.2f}%")
    print()
    print(f"## threads ({d['timer']} timer): CPU time while sampling, from each thread's clock, and samples taken "
          f"in it")
    print(f"{'cpu ms':>9} {'cpu%':>6} {'samples':>8} {'samp%':>6}  SIGPROF  {'tid':>7}  name")
    for t in tasks:
        cpu = t["cpu_ms"]
        cpus = (f"{cpu:9.1f} {100 * cpu / task_cpu if task_cpu else 0:5.1f}%" if cpu is not None
                else f"{'?':>9} {'':>6}")
        blk = {True: "blocked", False: "", None: "?"}[t["blocks_sigprof"]]
        note = {"both": "", "stop": " (made while sampling)", "start": " (ended while sampling)"}[t["there"]]
        sp = 100.0 * t["samples"] / total if total else 0.0
        print(f"{cpus} {t['samples']:>8} {sp:5.1f}%  {blk:<7}  {t['tid']:>7}  {t['name']}{note}")
    print()
    print(f"## at a system call's return (the kernel's time on its behalf): {nsys} samples, "
          f"{header['syscall_percent']:.2f}%")
    print(f"{head}  {'syscall':<16} {'module':<28} symbol")
    for r in sysc:
        print(f"{lead(r)}  {r['syscall']:<16} {r['module']:<28} {cut(r['symbol'])}")
    src = ", ".join(f"{k} {v}" for k, v in sorted(header["symbols_from"].items()))
    print(f"\n# symbols from: {src}")


if __name__ == "__main__":
    try:
        main()
    except BrokenPipeError:  # | head
        sys.stderr.close()
