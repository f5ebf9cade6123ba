#!/usr/bin/env bash
# The program generator on a machine with an NVIDIA GPU (issue 36):
# webgpu-gen one thread and several, through libunlost-webgpu under random
# loss schedules, results against the same program run directly on Dawn.
# Run after gpu_issue38.sh on the same machine (it reuses build-gpu).
# Everything in $OUT/gen.log, the JSON beside it.
set -uo pipefail
. "$(dirname "$0")/gpu_env.sh"
B=build-gpu
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; git log --oneline -1; } > "$OUT/gen.log" 2>&1
for t in 0 1; do
  flag=; [ $t = 1 ] && flag=--gen-threads
  echo "== gen threads=$t" >> "$OUT/gen.log"
  timeout ${GEN_TIMEOUT:-200} $B/unlost chaos --workload webgpu-gen --programs ${GEN_PROGRAMS:-32} $flag \
    --seed $((500 + 400 * t)) --schedules 4 --jobs 8 --timeout 60 --json "$OUT/gen_t$t.json" >> "$OUT/gen.log" 2>&1
  echo "rc=$?" >> "$OUT/gen.log"
done
tail -20 "$OUT/gen.log"
