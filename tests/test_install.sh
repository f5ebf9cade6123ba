#!/usr/bin/env bash
# Installs unlost into a temporary prefix and uses it the two ways a program
# would: `cc $(pkg-config --cflags --libs unlost)` and a CMake project with
# find_package(unlost). Each build runs examples/compute.c (when it exists)
# and tests/install_smoke.c, which fails unless the webgpu.h implementation
# was found under the prefix.
#
# The build is a separate configure of a copy of the source tree, for
# another prefix than the one it is then installed into (`cmake --install
# --prefix`, as `make install PREFIX=` does, without reconfiguring). After
# the install the copy's third_party/ is removed: the build tree's run path
# names it, so only with it gone does a run prove that the installed copy
# (<prefix>/lib/unlost/libwebgpu_wrapper.so) is found. UNLOST_WEBGPU_LIB is
# unset for the same reason. No installed file may hold a path of the
# source copy, the build or the configured prefix (debug info aside).
#
# Usage: test_install.sh SOURCE_DIR [CMAKE] [CC] [DAWN_LIB]
# Exit: 0 pass, 1 fail, 77 skipped (no Dawn: run `make deps`).
set -euo pipefail
src=$(cd "${1:?usage: test_install.sh SOURCE_DIR [CMAKE] [CC] [DAWN_LIB]}" && pwd)
cmake=${2:-cmake}
cc=${3:-cc}
dawn=${4:-$src/third_party/dawn/node_modules/bun-webgpu-linux-x64/libwebgpu_wrapper.so}
jobs=$(nproc 2>/dev/null || echo 2)
unset UNLOST_WEBGPU_LIB
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}

if [ ! -f "$dawn" ]; then
  echo "test_install: SKIP: no Dawn at $dawn (run make deps)"
  exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/unlost-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
step() { echo "== $*"; }
fail() { echo "test_install: FAIL: $*" >&2; exit 1; }

step "copy the source tree"
mkdir -p "$tmp/src"
tar -C "$src" --exclude='./build*' --exclude=./third_party --exclude=./.git \
  --exclude=./notes -cf - . | tar -C "$tmp/src" -xf -
dawn_rel=${dawn#"$src"/}
[ "$dawn_rel" != "$dawn" ] || dawn_rel=third_party/dawn/node_modules/bun-webgpu-linux-x64/libwebgpu_wrapper.so
mkdir -p "$tmp/src/$(dirname "$dawn_rel")"
cp "$dawn" "$tmp/src/$dawn_rel"

step "configure, build, install into $prefix"
"$cmake" -S "$tmp/src" -B "$tmp/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_INSTALL_PREFIX="$tmp/configured" -DUL_WERROR=OFF >"$tmp/configure.log" \
  || { cat "$tmp/configure.log"; fail "configure"; }
"$cmake" --build "$tmp/build" -j "$jobs" --target unlost_shared unlost_static unlost_webgpu unlost_webgpu_static unlost_cli unlost_bench_webgpu \
  >"$tmp/build.log" 2>&1 || { tail -40 "$tmp/build.log"; fail "build"; }
"$cmake" --install "$tmp/build" --prefix "$prefix" >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; fail "install"; }
rm -rf "$tmp/src/third_party"   # the build tree's Dawn is gone now
[ ! -e "$tmp/configured" ] || fail "the install wrote into the configured prefix"

step "no path of the build in the installed files"
n_checked=0
while IFS= read -r -d '' f; do
  g=$f
  case "$(head -c7 "$f" | od -An -c | tr -d ' ')" in *177ELF* | '!<arch>') is_obj=1 ;; *) is_obj=0 ;; esac
  if [ "$is_obj" = 1 ]; then
    g=$tmp/nodebug; objcopy --strip-debug "$f" "$g" 2>/dev/null || cp "$f" "$g"
  fi
  for bad in "$tmp/src" "$tmp/build" "$tmp/configured"; do
    if grep -qaF "$bad" "$g"; then fail "$f holds the path $bad"; fi
  done
  n_checked=$((n_checked + 1))
done < <(find "$prefix" -type f -print0)
echo "$n_checked installed files hold no path of the source, the build or the configured prefix"

step "check the installed files"
pc=$(find "$prefix" -name unlost.pc)
[ -n "$pc" ] || fail "no unlost.pc under $prefix"
libdir=$(dirname "$(dirname "$pc")")
# bin/ holds the tool alone: the front door's benchmark is its helper, in
# libexec/unlost (issue 40), and `unlost bench webgpu` finds it there.
[ "$(ls "$prefix/bin")" = unlost ] || fail "bin/ holds more than unlost: $(ls "$prefix/bin" | tr '\n' ' ')"
# (an option it does not know: the benchmark itself answers with its usage, exit 2)
bw_rc=0
"$prefix/bin/unlost" bench webgpu --no-such-option >"$tmp/bw_help.txt" 2>&1 || bw_rc=$?
[ "$bw_rc" = 2 ] && grep -q "^usage: unlost bench webgpu" "$tmp/bw_help.txt" \
  || { cat "$tmp/bw_help.txt"; fail "unlost bench webgpu did not find its benchmark (installed)"; }
for f in include/unlost.h include/unlost_webgpu.h bin/unlost; do
  [ -f "$prefix/$f" ] || fail "missing $prefix/$f"
done
for f in libunlost.a libunlost.so libunlost-webgpu.a libunlost-webgpu.so pkgconfig/unlost-webgpu.pc \
  unlost/libwebgpu_wrapper.so cmake/unlost/unlostConfig.cmake \
  cmake/unlost/unlostConfigVersion.cmake cmake/unlost/unlostTargets.cmake; do
  [ -e "$libdir/$f" ] || fail "missing $libdir/$f"
done
# The soname carries the minor version while the version is 0.y (CHANGELOG).
version=$(pkg-config --modversion "$libdir/pkgconfig/unlost-webgpu.pc" 2>/dev/null || true)
for lib in libunlost libunlost-webgpu; do
  soname=$(readelf -d "$libdir/$lib.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
  [ -n "$soname" ] && [ -f "$libdir/$soname" ] || fail "soname '$soname' not installed in $libdir"
  case "$version" in
    0.*) want="$lib.so.$(echo "$version" | cut -d. -f1-2)" ;;
    *) want="$lib.so.${version%%.*}" ;;
  esac
  [ "$soname" = "$want" ] || fail "soname of $lib is '$soname', not '$want' (version $version)"
  echo "soname $soname"
done

progs=("$src/tests/install_smoke.c")
[ -f "$src/examples/compute.c" ] && progs+=("$src/examples/compute.c")
# Runs a built program; install_smoke also checks where Dawn came from.
run() {
  local exe=$1 name=$2
  if [ "$name" = install_smoke ]; then "$exe" "$prefix" || fail "$exe $prefix"
  else "$exe" || fail "$exe"; fi
}

step "pkg-config"
export PKG_CONFIG_PATH=$(dirname "$pc")
echo "unlost $(pkg-config --modversion unlost): $(pkg-config --cflags --libs unlost)"
for p in "${progs[@]}"; do
  name=$(basename "$p" .c)
  # shellcheck disable=SC2046
  "$cc" -std=c11 -Wall -Wextra -Werror -o "$tmp/pc_$name" "$p" $(pkg-config --cflags --libs unlost) \
    -Wl,-rpath,"$libdir" || fail "cc $name with pkg-config"
  run "$tmp/pc_$name" "$name"
done

# A program written on webgpu.h alone, linked to libunlost-webgpu instead of
# the implementation, compiled against the installed headers alone (the
# installed <webgpu/webgpu.h>: issue 39 found none): it must run on the
# installed library and the installed Dawn. First the smallest such
# program, then the matmul test program (whose helpers include the same
# installed declarations).
for f in include/unlost/webgpu/webgpu.h include/unlost/wgpu/wgpu.h include/unlost/wgpu/wgpu_api.h; do
  [ -f "$prefix/$f" ] || fail "not installed: $f"
done
cat >"$tmp/hello_webgpu.c" <<'PROG'
#include <webgpu/webgpu.h>
#include <stdio.h>
int main(void) {
  WGPUInstance instance = wgpuCreateInstance(NULL);
  if (!instance) return 1;
  wgpuInstanceRelease(instance);
  printf("ok hello_webgpu\n");
  return 0;
}
PROG
wprog=$src/tests/webgpu/wgpu_matmul.c
step "pkg-config unlost-webgpu"
echo "unlost-webgpu $(pkg-config --modversion unlost-webgpu): $(pkg-config --cflags --libs unlost-webgpu)"
# shellcheck disable=SC2046
"$cc" -std=c11 -Wall -Wextra -Werror -o "$tmp/pc_hello" "$tmp/hello_webgpu.c" \
  $(pkg-config --cflags --libs unlost-webgpu) -Wl,-rpath,"$libdir" || fail "cc <webgpu/webgpu.h> with pkg-config"
"$tmp/pc_hello" >"$tmp/hello.out" || fail "the <webgpu/webgpu.h> program on the installed library"
grep -q "^ok hello_webgpu" "$tmp/hello.out" || fail "the <webgpu/webgpu.h> program did not pass"
# shellcheck disable=SC2046
"$cc" -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -I"$src/tests/webgpu" -o "$tmp/pc_webgpu" "$wprog" \
  $(pkg-config --cflags --libs unlost-webgpu) -lm -Wl,-rpath,"$libdir" || fail "cc a webgpu.h program with pkg-config"
"$tmp/pc_webgpu" >"$tmp/webgpu.out" || { cat "$tmp/webgpu.out"; fail "the webgpu.h program on the installed library"; }
grep -q "^ok " "$tmp/webgpu.out" || fail "the webgpu.h program did not pass"
ldd "$tmp/pc_webgpu" >"$tmp/ldd_webgpu.txt" || fail "ldd pc_webgpu"
grep -q "$libdir/libunlost-webgpu.so" "$tmp/ldd_webgpu.txt" || { cat "$tmp/ldd_webgpu.txt"; fail "not linked to the installed libunlost-webgpu.so"; }

# The same program run through the installed `unlost exec` under a loss
# schedule: the same output as without losses, and recoveries counted.
step "unlost exec"
"$prefix/bin/unlost" exec --chaos loss-every=40 -- "$tmp/pc_webgpu" >"$tmp/exec.out" 2>"$tmp/exec.err" \
  || { cat "$tmp/exec.err"; fail "unlost exec --chaos loss-every=40 (installed)"; }
cmp -s <(grep '^digest' "$tmp/webgpu.out") <(grep '^digest' "$tmp/exec.out") \
  || fail "unlost exec: the output differs from the run without losses"
grep -qE 'through libunlost-webgpu: [0-9]+ fault\(s\) injected in [0-9]+ WebGPU calls, [1-9][0-9]* recoveries' "$tmp/exec.err" \
  || { cat "$tmp/exec.err"; fail "unlost exec: no recovery counted"; }

step "find_package(unlost)"
mkdir -p "$tmp/consumer"
{
  echo 'cmake_minimum_required(VERSION 3.20)'
  echo 'project(consumer LANGUAGES C)'
  echo 'find_package(unlost 0.1 REQUIRED CONFIG)'
  for p in "${progs[@]}"; do
    name=$(basename "$p" .c)
    echo "add_executable($name \"$p\")"
    echo "target_link_libraries($name PRIVATE unlost::unlost)"
    echo "add_executable(${name}_static \"$p\")"
    echo "target_link_libraries(${name}_static PRIVATE unlost::unlost_static)"
  done
  echo "add_executable(webgpu_prog \"$wprog\")"
  echo "target_include_directories(webgpu_prog PRIVATE \"$src/tests/webgpu\")"
  echo "add_executable(hello_webgpu \"$tmp/hello_webgpu.c\")"
  echo "target_link_libraries(hello_webgpu PRIVATE unlost::webgpu)"
  echo "target_compile_definitions(webgpu_prog PRIVATE _GNU_SOURCE)"
  echo "target_link_libraries(webgpu_prog PRIVATE unlost::webgpu m)"
} >"$tmp/consumer/CMakeLists.txt"
"$cmake" -S "$tmp/consumer" -B "$tmp/consumer/build" -DCMAKE_C_COMPILER="$cc" \
  -DCMAKE_PREFIX_PATH="$prefix" >"$tmp/consumer.log" || { cat "$tmp/consumer.log"; fail "find_package"; }
"$cmake" --build "$tmp/consumer/build" -j "$jobs" >>"$tmp/consumer.log" 2>&1 \
  || { tail -40 "$tmp/consumer.log"; fail "consumer build"; }
for p in "${progs[@]}"; do
  name=$(basename "$p" .c)
  run "$tmp/consumer/build/$name" "$name"
  run "$tmp/consumer/build/${name}_static" "$name"
done
"$tmp/consumer/build/hello_webgpu" >"$tmp/hello2.out" || fail "hello_webgpu (unlost::webgpu)"
grep -q "^ok hello_webgpu" "$tmp/hello2.out" || fail "hello_webgpu (unlost::webgpu) did not pass"
"$tmp/consumer/build/webgpu_prog" >"$tmp/webgpu2.out" || { cat "$tmp/webgpu2.out"; fail "webgpu_prog (unlost::webgpu)"; }
grep -q "^ok " "$tmp/webgpu2.out" || fail "webgpu_prog did not pass"
# ldd to a file first: grep -q quits at the first match, and under pipefail
# the SIGPIPE that ldd may then get would fail the check at random.
ldd "$tmp/consumer/build/install_smoke" >"$tmp/ldd.txt" || fail "ldd install_smoke"
grep -q "$libdir/libunlost.so" "$tmp/ldd.txt" \
  || { cat "$tmp/ldd.txt"; fail "unlost::unlost did not link the installed libunlost.so"; }

step "the installed CLI"
"$prefix/bin/unlost" --version
"$prefix/bin/unlost" doctor >"$tmp/doctor.txt" || { cat "$tmp/doctor.txt"; fail "unlost doctor"; }
grep "^implementation" "$tmp/doctor.txt"
grep -q "^implementation  *$libdir/unlost/libwebgpu_wrapper.so" "$tmp/doctor.txt" \
  || fail "the installed CLI did not load the installed Dawn"

echo "test_install: ok"
