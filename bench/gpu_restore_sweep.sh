#!/usr/bin/env bash
# Restore bandwidth against staging chunk size and fill threads (GPU machine).
set -uo pipefail
. "$(dirname "$0")/gpu_env.sh"
for chunk in 16 32 64 128; do
  for threads in 4 8 16; do
    r=$(UNLOST_STAGING_CHUNK_MB=$chunk UNLOST_FILL_THREADS=$threads build-gpu/unlost bench recovery --bytes 1G --json 2>/dev/null)
    echo "chunk_mb=$chunk threads=$threads $r" | tee -a "$OUT/sweep.txt"
  done
done
