#!/usr/bin/env bash
# Builds a probe of bench/probe/ against build-gpu/libunlost.a:
# build.sh NAME OUT (NAME: import_probe or fill_probe). A probe that prints
# its lines with the CLI's JSON writer (it includes "cli.h") gets
# tools/unlost/cli_json.c and jansson; without jansson it says so and is
# not built (Debian: libjansson-dev; on the GPU machine, the .deb files of
# libjansson4 and libjansson-dev in .gl/, which bench/gpu_env.sh unpacks).
set -uo pipefail
name=${1:?usage: build.sh NAME OUT}
out=${2:?usage: build.sh NAME OUT}
flags=(-std=gnu11 -O2 -Isrc -Iinclude -Ibuild-gpu)
if ! grep -q '^#include "cli.h"' "bench/probe/$name.c"; then
  gcc "${flags[@]}" -c "bench/probe/$name.c" -o "$out.o" && gcc "$out.o" build-gpu/libunlost.a -lpthread -ldl -lm -o "$out"
  exit
fi
if ! pkg-config --exists jansson 2>/dev/null; then
  echo "bench/probe/build.sh: $name prints its JSON lines with jansson, which pkg-config does not find" \
    "(Debian: libjansson-dev): not built" >&2
  exit 1
fi
flags+=(-DUL_HAVE_JANSSON -Itools/unlost $(pkg-config --cflags jansson))
gcc "${flags[@]}" -c "bench/probe/$name.c" -o "$out.o" &&
  gcc "${flags[@]}" -c tools/unlost/cli_json.c -o "$out.cli_json.o" &&
  gcc "$out.o" "$out.cli_json.o" build-gpu/libunlost.a -lpthread -ldl -lm $(pkg-config --libs jansson) -o "$out"
