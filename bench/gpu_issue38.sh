#!/usr/bin/env bash
# Issue 38's figures on a machine with an NVIDIA GPU (docs/BENCHMARKS.md):
# `unlost bench webgpu --json` three times (dispatches, ggml's pattern, the
# 4 KiB upload), then a flat profile of ggml's pattern and of plain
# dispatches, through the layer and directly (perf, self time by library
# and symbol). Everything in $OUT/all.log, the JSON and the reports beside it.
set -uo pipefail
. "$(dirname "$0")/gpu_env.sh"
B=build-gpu
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; uname -r; git log --oneline -1; } > "$OUT/all.log" 2>&1
for i in 1 2 3; do
  echo "== bench_webgpu $i" >> "$OUT/all.log"
  timeout 150 $B/unlost bench webgpu --json > "$OUT/bench_webgpu_$i.json" 2>> "$OUT/all.log"
  echo "rc=$?" >> "$OUT/all.log"
  grep -E '"(dispatch|ggml|upload_4k_20k)"' "$OUT/bench_webgpu_$i.json" >> "$OUT/all.log"
done
if [ "${PROFILE:-1}" = 1 ] && command -v perf > /dev/null; then
  for p in ggml dispatch; do
    for way in layer raw; do
      flag=; [ $way = raw ] && flag=--raw
      echo "== perf $p $way" >> "$OUT/all.log"
      timeout 100 perf record -F 2999 -o "$OUT/perf_${p}_$way.data" $B/unlost-bench-webgpu --profile $p $flag --reps 15 >> "$OUT/all.log" 2>&1
      perf report -i "$OUT/perf_${p}_$way.data" --stdio --no-children --sort dso,sym --percent-limit 0.4 2> /dev/null |
        grep -v '^$' | head -70 > "$OUT/perf_${p}_$way.txt"
      perf report -i "$OUT/perf_${p}_$way.data" --stdio --no-children --sort dso 2> /dev/null | grep '%' | head -12 >> "$OUT/perf_${p}_$way.txt"
      rm -f "$OUT/perf_${p}_$way.data"
    done
  done
fi
tail -40 "$OUT/all.log"
