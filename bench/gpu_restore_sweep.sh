#!/usr/bin/env bash
# Restore bandwidth against staging chunk size and fill threads (GPU machine).
set -uo pipefail
OUT=${OUT:-bench/out}
mkdir -p "$OUT"
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
export VK_DRIVER_FILES=${VK_DRIVER_FILES:-/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json}
export XDG_RUNTIME_DIR=/tmp UNLOST_LOG=error
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=RelWithDebInfo -DUL_WERROR=OFF > /dev/null 2>&1 &&
  cmake --build build-gpu -j "$(nproc)" --target unlost_cli > /dev/null 2>&1 || exit 1
for chunk in 16 32 64 128; do
  for threads in 4 8 16; do
    r=$(UNLOST_STAGING_CHUNK_MB=$chunk UNLOST_FILL_THREADS=$threads build-gpu/unlost bench recovery --bytes 1G --json 2>/dev/null)
    echo "chunk_mb=$chunk threads=$threads $r" | tee -a "$OUT/sweep.txt"
  done
done
