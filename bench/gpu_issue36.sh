#!/usr/bin/env bash
# Issue 36's figures on a machine with an NVIDIA GPU (docs/BENCHMARKS.md):
# the WGSL reading against the GPU (test_wgsl_oracle), generated webgpu.h
# programs directly and through libunlost-webgpu under loss schedules (one
# thread and several), and bench webgpu (its upload figure among the
# others). Everything in $OUT/all.log, the JSON beside it.
set -uo pipefail
. "$(dirname "$0")/gpu_env.sh"
B=build-gpu
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; uname -r; git log --oneline -1; } > "$OUT/all.log" 2>&1
run() {
  local name=$1 limit=$2; shift 2
  echo "== $name: $*" >> "$OUT/all.log"
  local t0=$SECONDS
  timeout "$limit" "$@" >> "$OUT/all.log" 2>&1
  echo "rc=$? ($((SECONDS - t0)) s)" >> "$OUT/all.log"
}
run oracle 200 $B/tests/test_wgsl_oracle --count ${ORACLE_COUNT:-1000} --seed 1
run gen 200 $B/unlost chaos --workload webgpu-gen --programs ${GEN_PROGRAMS:-32} --seed 500 --schedules 4 \
  --jobs 8 --timeout 60 --json "$OUT/gen.json"
run gen_threads 200 $B/unlost chaos --workload webgpu-gen --programs ${GEN_PROGRAMS:-32} --gen-threads --seed 900 \
  --schedules 4 --jobs 8 --timeout 60 --json "$OUT/gen_threads.json"
echo "== bench_webgpu" >> "$OUT/all.log"
timeout 300 $B/unlost bench webgpu --json > "$OUT/bench_webgpu.json" 2>> "$OUT/all.log"
echo "rc=$?" >> "$OUT/all.log"
tail -40 "$OUT/all.log"
