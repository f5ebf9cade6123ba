#!/usr/bin/env bash
# libunlost-webgpu built against the stable webgpu.h (issue 39): configures a
# build of its own with -DUNLOST_WEBGPU_INCLUDE_DIR=src/wgpu/stable (unlost's
# own declarations of the stable revision, generated from src/wgpu/stable.api)
# and checks that
#   - it configures as a stable build and compiles with -Werror, no warning;
#   - libunlost-webgpu.so exports every function that header declares (nm -D);
#   - a program compiled against that header alone, linked to that library,
#     gets the layer's answers to the stable revision's own instance
#     questions (wgpuGetInstanceLimits, wgpuHasInstanceFeature,
#     wgpuGetInstanceFeatures), and its wgpuCreateInstance with the stable
#     descriptor reaches the implementation: the pinned Dawn, of the other
#     revision, which the layer must refuse at load with a message naming
#     both revisions (no implementation of the stable header runs here); an
#     instance descriptor laid out as the pinned revision's is refused as a
#     program of the other revision;
#   - a folder whose webgpu.h is of neither revision is refused at configure
#     time with a message.
#
# Usage: test_stable_build.sh SOURCE_DIR [CMAKE] [CC] [DAWN_LIB]
# Exit: 0 pass, 1 fail.
set -euo pipefail
src=$(cd "${1:?usage: test_stable_build.sh SOURCE_DIR [CMAKE] [CC] [DAWN_LIB]}" && pwd)
cmake=${2:-cmake}
cc=${3:-cc}
dawn=${4:-$src/third_party/dawn/node_modules/bun-webgpu-linux-x64/libwebgpu_wrapper.so}
jobs=$(nproc 2>/dev/null || echo 2)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/unlost-stable.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "test_stable_build: FAIL: $*" >&2; exit 1; }
header=$src/src/wgpu/stable/webgpu/webgpu.h
[ -f "$header" ] || fail "no $header (make regen)"

echo "== configure against $src/src/wgpu/stable"
"$cmake" -S "$src" -B "$tmp/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER="$cc" \
  -DUNLOST_WEBGPU_INCLUDE_DIR="$src/src/wgpu/stable" -DUL_WERROR=ON >"$tmp/configure.log" 2>&1 \
  || { cat "$tmp/configure.log"; fail "configure"; }
grep -q "building against the stable webgpu.h" "$tmp/configure.log" \
  || { cat "$tmp/configure.log"; fail "the build was not configured as one against the stable webgpu.h"; }

echo "== build libunlost-webgpu"
"$cmake" --build "$tmp/build" -j "$jobs" --target unlost_webgpu unlost_shared >"$tmp/build.log" 2>&1 \
  || { grep -E 'error|warning' "$tmp/build.log" | head -40; fail "build"; }
if grep -q 'warning:' "$tmp/build.log"; then
  grep 'warning:' "$tmp/build.log" | head -20
  fail "the build warned"
fi
lib=$(find "$tmp/build" -maxdepth 1 -name 'libunlost-webgpu.so' | head -1)
[ -n "$lib" ] || fail "no libunlost-webgpu.so"

echo "== exports"
grep -oE '\bwgpu[A-Z][A-Za-z0-9]*\(' "$header" | tr -d '(' | sort -u >"$tmp/declared.txt"
nm -D --defined-only "$lib" | awk '$2 == "T" {print $3}' | grep '^wgpu' | sort -u >"$tmp/exported.txt"
missing=$(comm -23 "$tmp/declared.txt" "$tmp/exported.txt")
[ -z "$missing" ] || fail "declared by the stable webgpu.h and not exported: $(echo "$missing" | tr '\n' ' ')"
echo "$(wc -l <"$tmp/declared.txt") functions declared, all exported ($(wc -l <"$tmp/exported.txt") wgpu* exported)"

echo "== a program built on the stable webgpu.h"
cat >"$tmp/prog.c" <<'PROG'
#include <webgpu/webgpu.h>
#include <stdio.h>
int main(void) {
  WGPUInstanceLimits limits = {0};
  WGPUStatus ls = wgpuGetInstanceLimits(&limits);
  WGPUSupportedInstanceFeatures feats = {0};
  wgpuGetInstanceFeatures(&feats);
  printf("limits %d %zu features %zu timed %d spirv %d\n", ls == WGPUStatus_Success, limits.timedWaitAnyMaxCount,
         feats.featureCount, (int)wgpuHasInstanceFeature(WGPUInstanceFeatureName_TimedWaitAny),
         (int)wgpuHasInstanceFeature(WGPUInstanceFeatureName_ShaderSourceSPIRV));
  wgpuSupportedInstanceFeaturesFreeMembers(feats);
  WGPUInstanceFeatureName timed = WGPUInstanceFeatureName_TimedWaitAny;
  WGPUInstanceDescriptor desc = {0};
  desc.requiredFeatureCount = 1;
  desc.requiredFeatures = &timed;
  WGPUInstance instance = wgpuCreateInstance(&desc);
  printf("instance %s\n", instance ? "made" : "refused");
  if (instance) wgpuInstanceRelease(instance);
  /* The pinned revision's descriptor (a capabilities struct: next, a
   * WGPUBool, a wait count) where the stable one belongs: a tell. */
  struct { void *next, *cap_next; uint32_t enable, pad; size_t max; } pinned = {0, 0, 1, 0, 64};
  instance = wgpuCreateInstance((const WGPUInstanceDescriptor *)(const void *)&pinned);
  printf("pinned-layout instance %s\n", instance ? "made" : "refused");
  return 0;
}
PROG
"$cc" -std=c11 -Wall -Wextra -Werror -I"$src/src/wgpu/stable" -o "$tmp/prog" "$tmp/prog.c" \
  -L"$(dirname "$lib")" -lunlost-webgpu -Wl,-rpath,"$(dirname "$lib")" || fail "cc a program on the stable webgpu.h"
UNLOST_WEBGPU_LIB=$dawn "$tmp/prog" >"$tmp/prog.out" 2>"$tmp/prog.err" || { cat "$tmp/prog.err"; fail "the program"; }
cat "$tmp/prog.out"
grep -qx 'limits 1 64 features 1 timed 1 spirv 0' "$tmp/prog.out" \
  || fail "the stable revision's instance questions were not answered by the layer"
grep -qx 'instance refused' "$tmp/prog.out" || fail "an instance was made over an implementation of the other revision"
grep -q "it speaks Dawn's webgpu.h of June 2025" "$tmp/prog.err" && grep -q "built for the stable webgpu.h" "$tmp/prog.err" \
  || { cat "$tmp/prog.err"; fail "the refusal at load does not name both revisions"; }
echo "refused at load: $(grep -o "it speaks [^,]*" "$tmp/prog.err" | head -1)"
grep -qx 'pinned-layout instance refused' "$tmp/prog.out" \
  && grep -q "the program was built on Dawn's webgpu.h of June 2025" "$tmp/prog.err" \
  || { cat "$tmp/prog.err"; fail "an instance descriptor of the pinned revision's layout was not refused as such"; }
echo "a descriptor of the pinned revision's layout: refused, both revisions named"

echo "== a webgpu.h of neither revision"
mkdir -p "$tmp/other/webgpu"
printf '#define WEBGPU_H_\ntypedef int WGPUBool;\n' >"$tmp/other/webgpu/webgpu.h"
if "$cmake" -S "$src" -B "$tmp/build2" -DUNLOST_WEBGPU_INCLUDE_DIR="$tmp/other" >"$tmp/configure2.log" 2>&1; then
  fail "a webgpu.h of neither revision was accepted"
fi
grep -q "of neither revision" "$tmp/configure2.log" || { cat "$tmp/configure2.log"; fail "no message"; }
echo "test_stable_build: ok"
