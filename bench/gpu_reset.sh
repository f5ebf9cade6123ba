#!/usr/bin/env bash
# A whole-GPU reset on the GPU machine (docs/BENCHMARKS.md; the dated runs
# in docs/bench/HISTORY.md, "a reset of the whole GPU"): what pinning host
# memory costs by page size (bench/probe, PROBE_PIN=1), then loss to first
# dispatch at 1 GiB with the standby lost or none, the restore on demand's
# first use against every byte put back inside the recovery (first_use_ms,
# first_use_eager_ms), and the chaos harness's pairs and storm, whose
# recoveries put contents back on demand.
set -uo pipefail
. "$(dirname "$0")/gpu_env.sh"
B=build-gpu/unlost
run() { local name=$1; shift; echo "== $name: $*"; "$@" > "$OUT/$name.json" 2> "$OUT/$name.err"; echo "rc=$?"; cat "$OUT/$name.json"; tail -3 "$OUT/$name.err"; }
if [ "${PIN:-1}" = 1 ]; then
echo "== pin probe"
bash bench/probe/build.sh import_probe /tmp/ip &&
  PROBE_PIN=1 timeout 240 /tmp/ip "${PIN_MIB:-1024}" > "$OUT/pin.txt" 2>&1
echo "rc=$?"; grep -v '"host"' "$OUT/pin.txt" | cut -c1-400
fi
run recovery_1G $B bench recovery --bytes 1G --reps "${REPS:-5}" --json
UNLOST_STANDBY=0 run recovery_1G_no_standby $B bench recovery --bytes 1G --reps "${REPS:-5}" --json
echo "== pairs"; timeout "${PAIRS_S:-150}" $B chaos --pairs --stride "${PAIRS_STRIDE:-61}" --pair-stride "${PAIR_STRIDE:-5}" \
  --json "$OUT/pairs.json" > "$OUT/pairs.txt" 2>&1; echo "rc=$?"; tail -c 900 "$OUT/pairs.json"; echo
echo "== storm"; timeout 120 $B chaos --storm "${STORM_S:-60}" --seed 5 --json "$OUT/storm.json" > "$OUT/storm.txt" 2>&1
echo "rc=$?"; cat "$OUT/storm.json"
