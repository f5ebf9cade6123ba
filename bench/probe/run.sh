#!/usr/bin/env bash
# Builds and runs a probe of bench/probe/ on the GPU machine (see its head):
# PROBE=import_probe (the default) or PROBE=fill_probe.
set -uo pipefail
. "$(dirname "$0")/../gpu_env.sh"
cmake --build build-gpu -j "$(nproc)" --target unlost_static >> "$OUT/build.log" 2>&1
P=${PROBE:-import_probe}
gcc -std=gnu11 -O2 -Isrc -Iinclude -Ibuild-gpu -c bench/probe/$P.c -o /tmp/ip.o && gcc /tmp/ip.o build-gpu/libunlost.a -lpthread -ldl -lm -o /tmp/ip || exit 1
df -h /tmp | tail -1
/tmp/ip "${1:-1024}" 2>&1 | tee "$OUT/probe.txt"
