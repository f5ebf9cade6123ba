#!/usr/bin/env bash
# Builds and runs a probe of bench/probe/ on the GPU machine (see its head):
# PROBE=import_probe (the default) or PROBE=fill_probe.
set -uo pipefail
. "$(dirname "$0")/../gpu_env.sh"
cmake --build build-gpu -j "$(nproc)" --target unlost_static >> "$OUT/build.log" 2>&1
P=${PROBE:-import_probe}
bash bench/probe/build.sh "$P" /tmp/ip || exit 1
df -h /tmp | tail -1
/tmp/ip "${1:-1024}" 2>&1 | tee "$OUT/probe.txt"
