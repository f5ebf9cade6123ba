#!/usr/bin/env bash
# unlost exec (issue 39): a webgpu.h program linked to Dawn runs through the
# layer with the same output as directly, also under a fault schedule (the
# summary counts the recoveries); a run in which the layer is missing, or
# loads but sees no instance, exits non-zero with a message; a program that
# opens its implementation with dlopen by path bypasses the preloaded layer
# (exec says so and fails), and runs through it when the path names
# libunlost-webgpu.so instead (docs/webgpu.md).
#   test_unlost_exec.sh BUILD_DIR [CC DAWN_LIB]
set -uo pipefail
b=$1
cc=${2:-cc}
dawn=${3:-}
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp} UNLOST_LOG=error
prog=$b/tests/webgpu/wgpu_matmul
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; sed 's/^/     /' "$tmp/err" | tail -3; fails=$((fails + 1)); fi; }
"$prog" >"$tmp/direct" 2>/dev/null || { echo "FAIL the program directly"; exit 1; }
"$b/unlost" exec -- "$prog" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "through the layer: exit 0, the same output, a summary" \
  '[ $rc = 0 ] && cmp -s <(grep digest "$tmp/direct") <(grep digest "$tmp/out") && grep -q "^unlost exec: .* exited with status 0; through libunlost-webgpu: no fault schedule, 0 recoveries" "$tmp/err"'
"$b/unlost" exec --chaos loss-every=40 --report "$tmp/report" -- "$prog" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "under loss-every=40: exit 0, the same output, recoveries counted, the report kept" \
  '[ $rc = 0 ] && cmp -s <(grep digest "$tmp/direct") <(grep digest "$tmp/out") && grep -qE "fault\(s\) injected in [0-9]+ WebGPU calls, [1-9][0-9]* recoveries" "$tmp/err" && grep -q "^calls=" "$tmp/report"'
UNLOST_EXEC_LAYER=$tmp/none.so "$b/unlost" exec -- "$prog" >/dev/null 2>"$tmp/err"
rc=$?
check "the layer missing: exit 1, said" '[ $rc = 1 ] && grep -q "libunlost-webgpu not found" "$tmp/err"'
"$b/unlost" exec -- /bin/true >/dev/null 2>"$tmp/err"
rc=$?
check "a program the layer saw no instance of: exit 1, said" '[ $rc = 1 ] && grep -q "saw no WebGPU instance" "$tmp/err"'
"$b/unlost" exec >/dev/null 2>&1
rc=$?
check "no program: usage error" '[ $rc = 2 ]'
if [ -n "$dawn" ] && [ -f "$dawn" ]; then
  cat >"$tmp/dl.c" <<'PROG'
#include <dlfcn.h>
#include <stdio.h>
/* Opens the implementation named by argv[1] with dlopen and makes an instance. */
int main(int argc, char **argv) {
  void *h = argc > 1 ? dlopen(argv[1], RTLD_NOW | RTLD_LOCAL) : NULL;
  if (!h) return 3;
  void *(*create)(const void *) = NULL;
  *(void **)&create = dlsym(h, "wgpuCreateInstance");
  void *instance = create ? create(NULL) : NULL;
  printf("instance %s\n", instance ? "made" : "none");
  return instance ? 0 : 4;
}
PROG
  "$cc" -std=c11 -o "$tmp/dl" "$tmp/dl.c" -ldl || { echo "FAIL cc the dlopen program"; exit 1; }
  "$b/unlost" exec -- "$tmp/dl" "$dawn" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  check "dlopen of the implementation by path: the layer bypassed, exit 1, said" \
    '[ $rc = 1 ] && grep -q "instance made" "$tmp/out" && grep -q "saw no WebGPU instance" "$tmp/err"'
  "$b/unlost" exec -- "$tmp/dl" "$b/libunlost-webgpu.so" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  check "dlopen of libunlost-webgpu.so by path: through the layer, exit 0" \
    '[ $rc = 0 ] && grep -q "instance made" "$tmp/out" && grep -q "exited with status 0; through libunlost-webgpu" "$tmp/err"'
fi
[ "$fails" = 0 ]
