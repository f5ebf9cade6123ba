#!/usr/bin/env bash
# Issue 38's figures on a machine with an NVIDIA GPU (docs/BENCHMARKS.md):
# `unlost bench webgpu --json` three times (dispatches, ggml's pattern, the
# 4 KiB upload, the demo model's decode in tokens/s), then a flat profile of
# ggml's pattern, of plain dispatches and of the decode, through the layer
# and directly (perf, self time by library and symbol; without perf, the
# benchmark's own sampler and bench/sample_report.py); then the decode as a
# chaos workload (a loss at 32 points, and the control; CHAOS=0 skips it). Everything in
# $OUT/all.log, the JSON and the reports beside it (joined: perf.txt,
# bench_webgpu_all.json).
set -uo pipefail
. "$(dirname "$0")/gpu_env.sh"
B=build-gpu
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; uname -r; git log --oneline -1; } > "$OUT/all.log" 2>&1
# Three runs with asynchronous checkpoints (the default), then three with
# UNLOST_CHECKPOINT_ASYNC=0 (every checkpoint waits for the queue); ASYNC_MODES="1"
# runs the first three only. PROFILE=0 skips perf (or the sampler).
for a in ${ASYNC_MODES:-1 0}; do
  for i in 1 2 3; do
    echo "== bench_webgpu async=$a $i" >> "$OUT/all.log"
    UNLOST_CHECKPOINT_ASYNC=$a timeout 150 $B/unlost bench webgpu --json > "$OUT/bw_a${a}_$i.json" 2>> "$OUT/all.log"
    echo "rc=$?" >> "$OUT/all.log"
    grep -E '"(dispatch|ggml|upload_4k_20k|decode)"' "$OUT/bw_a${a}_$i.json" >> "$OUT/all.log"
  done
done
if [ "${PROFILE:-1}" = 1 ] && command -v perf > /dev/null; then
  for p in ggml dispatch decode; do
    for way in layer raw; do
      flag=; [ $way = raw ] && flag=--raw
      echo "== perf $p $way" >> "$OUT/all.log"
      timeout 100 perf record -F 2999 -o "$OUT/perf_${p}_$way.data" $B/unlost-bench-webgpu --profile $p $flag --reps 15 >> "$OUT/all.log" 2>&1
      perf report -i "$OUT/perf_${p}_$way.data" --stdio --no-children --sort dso 2> /dev/null | grep '%' | head -12 > "$OUT/perf_${p}_$way.txt"
      perf report -i "$OUT/perf_${p}_$way.data" --stdio --no-children --sort dso,sym --percent-limit 0.3 2> /dev/null |
        grep '%' | head -80 >> "$OUT/perf_${p}_$way.txt"
      rm -f "$OUT/perf_${p}_$way.data"
    done
  done
elif [ "${PROFILE:-1}" = 1 ]; then
  # No perf (gVisor has no perf_event_open events): the benchmark's own
  # sampler (bench/webgpu/sampler.h; the repetitions only) and
  # bench/sample_report.py, the same tables. Each thread is sampled on its
  # own CPU clock (SAMPLE_TIMER=threads; ITIMER_PROF, SAMPLE_TIMER=process,
  # samples a thread that blocks SIGPROF, as driver threads do, at another
  # thread's PC), falling back to ITIMER_PROF where those timers cannot be
  # made. gVisor's CPU clocks tick at 100 Hz, so the patterns run longer than
  # perf's to give thousands of samples (15 repetitions of 2,000 ggml
  # dispatches would give tens); SAMPLE_ARGS="--reps 15" runs perf's sizes.
  for p in ggml dispatch decode; do
    for way in layer raw; do
      flag=; [ $way = raw ] && flag=--raw
      s="$OUT/sample_${p}_$way.txt"
      args="--profile $p $flag ${SAMPLE_ARGS:---reps 64 --ggml 40000 --dispatches 200000 --decode-tokens 256}"
      for timer in ${SAMPLE_TIMER:-threads} process; do
        echo "== sample $p $way ($timer timer)" >> "$OUT/all.log"
        timeout 150 $B/unlost-bench-webgpu $args --sample "$s" --sample-timer $timer >> "$OUT/all.log" 2>&1
        echo "rc=$?" >> "$OUT/all.log"
        [ -s "$s" ] && break # else the timer could not be made: the other one
      done
      { echo "== sampled profile: $p $way"; python3 "$(dirname "$0")/sample_report.py" "$s"; } \
        > "$OUT/perf_${p}_$way.txt" 2>> "$OUT/all.log"
      rm -f "$s"
    done
  done
fi
modes=; [ "${CHAOS:-1}" = 1 ] && modes="loss --control"
for m in $modes; do
  c=; [ "$m" = --control ] && c=--control
  echo "== chaos webgpu-decode $c" >> "$OUT/all.log"
  timeout 300 $B/unlost chaos --workload webgpu-decode --points ${CHAOS_POINTS:-32} --jobs 8 $c >> "$OUT/all.log" 2>&1
  echo "rc=$?" >> "$OUT/all.log"
done
cat "$OUT"/perf_*.txt > "$OUT/perf.txt" 2> /dev/null && rm -f "$OUT"/perf_*.txt
for f in "$OUT"/bw_a*.json; do echo "// $(basename "$f")"; cat "$f"; done > "$OUT/bench_webgpu_all.json" && rm -f "$OUT"/bw_a*.json
tail -40 "$OUT/all.log"
