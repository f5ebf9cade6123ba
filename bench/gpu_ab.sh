#!/usr/bin/env bash
# The same benchmark on two trees, run alternately on one machine, so that
# their figures can be compared (GPU machines move by a third between
# runs and between machines): this tree, built by gpu_env.sh in build-gpu/,
# and the tree in $OLD (a copy of an earlier commit, e.g. made with
# `git archive COMMIT | tar -x -C .old`, carried to the machine), built in
# $OLD/build-gpu/. RUNS (default 3) alternate runs of each; BENCH (default
# `unlost bench webgpu --json`) is run as "$B/$BENCH" with B each build.
# Output: $OUT/ab_{old,new}_N.json and the figures in $OUT/ab.log.
set -uo pipefail
. "$(dirname "$0")/gpu_env.sh"
OLD=${OLD:-.old}
[ -d "$OLD/src" ] || { echo "gpu_ab.sh: no tree in $OLD" >&2; exit 2; }
# The old tree uses this tree's Dawn (the pinned one; it is not carried twice).
mkdir -p "$OLD/third_party/dawn"
[ -e "$OLD/third_party/dawn/node_modules" ] || ln -s "$PWD/third_party/dawn/node_modules" "$OLD/third_party/dawn/node_modules"
cmake -S "$OLD" -B "$OLD/build-gpu" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DUL_WERROR=OFF > "$OUT/build_old.log" 2>&1 &&
  cmake --build "$OLD/build-gpu" -j "$(nproc)" >> "$OUT/build_old.log" 2>&1 || { tail -30 "$OUT/build_old.log"; exit 1; }
BENCH=${BENCH:-unlost bench webgpu --json}
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; git log --oneline -1; } > "$OUT/ab.log" 2>&1
for i in $(seq 1 "${RUNS:-3}"); do
  for t in old new; do
    b=build-gpu; [ $t = old ] && b=$OLD/build-gpu
    timeout 200 $b/$BENCH > "$OUT/ab_${t}_$i.json" 2>> "$OUT/ab.log"
    echo "== $t $i rc=$?" >> "$OUT/ab.log"
    python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join("%s %s" % (k, d[k].get("ratio", d[k].get("tps_ratio"))) for k in ("dispatch", "ggml", "upload_4k_20k", "decode") if k in d))' \
      "$OUT/ab_${t}_$i.json" >> "$OUT/ab.log" 2>&1
  done
done
cat "$OUT/ab.log"
