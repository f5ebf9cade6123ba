#!/usr/bin/env bash
# The GPU figures of docs/BENCHMARKS.md, on a machine with an NVIDIA GPU and
# its Vulkan driver. Needs the Vulkan loader: the .deb files in .gl/ are
# unpacked first (see docs/gpu.md). Writes one JSON file per figure to $OUT.
set -uo pipefail
. "$(dirname "$0")/gpu_env.sh"
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nproc; uname -r; } > "$OUT/machine.txt" 2>&1
B=build-gpu/unlost
run() { local name=$1; shift; echo "== $name: $*"; "$@" > "$OUT/$name.json" 2> "$OUT/$name.err"; echo "rc=$?"; cat "$OUT/$name.json"; tail -3 "$OUT/$name.err"; }
run doctor $B doctor --json
run overhead $B bench overhead --json
run recovery_256M $B bench recovery --bytes 256M --json
run recovery_1G $B bench recovery --bytes 1G --json
# The same without the standby device (UNLOST_STANDBY=0): every recovery
# asks for a new device, as one after a reset of the whole GPU does.
UNLOST_STANDBY=0 run recovery_1G_no_standby $B bench recovery --bytes 1G --json
# With the standby but nothing filled on it ahead (UNLOST_STANDBY_PREFILL_MB=0).
UNLOST_STANDBY_PREFILL_MB=0 run recovery_1G_no_prefill $B bench recovery --bytes 1G --json
run decode_default $B bench decode --json
run decode_stories15M $B bench decode --shape stories15M --json
run track $B bench track --json
run track_2 $B bench track --json
run track_3 $B bench track --json
echo "== demo --kv callback"; $B demo --kv callback --json "$OUT/demo_callback.json" > "$OUT/demo_callback.txt" 2>&1; echo "rc=$?"; tail -12 "$OUT/demo_callback.txt"
# The host-to-device copy limit of this machine, for comparison with the
# restore bandwidth: CUDA copies of 1 GiB from pinned and from pageable memory.
echo "== h2d"
python3 - > "$OUT/h2d.json" 2>&1 <<'PY'
import json, time, torch
n = 1 << 30
dev = torch.empty(n, dtype=torch.uint8, device="cuda")
out = {}
for name, pin in (("pinned", True), ("pageable", False)):
    host = torch.empty(n, dtype=torch.uint8, pin_memory=pin)
    host.fill_(1)
    dev.copy_(host, non_blocking=pin); torch.cuda.synchronize()
    best = 1e9
    for _ in range(5):
        t0 = time.perf_counter(); dev.copy_(host, non_blocking=pin); torch.cuda.synchronize()
        best = min(best, time.perf_counter() - t0)
    out[name + "_h2d_gbps"] = round(n / best / 1e9, 2)
print(json.dumps(out))
PY
cat "$OUT/h2d.json"
echo "== demo"; UNLOST_REPORT="$OUT/demo_report.json" $B demo --json "$OUT/demo.json" > "$OUT/demo.txt" 2>&1; echo "rc=$?"; tail -12 "$OUT/demo.txt"
echo "== chaos"; $B chaos --every-call --json "$OUT/chaos.json" > "$OUT/chaos.txt" 2>&1; echo "rc=$?"; tail -3 "$OUT/chaos.txt"
# Pairs, strided (a point costs 0.2-0.4 s here): ${PAIRS_STRIDE:-61} ${PAIR_STRIDE:-5}.
echo "== pairs"; $B chaos --pairs --stride "${PAIRS_STRIDE:-61}" --pair-stride "${PAIR_STRIDE:-5}" --json "$OUT/pairs.json" \
  > "$OUT/pairs.txt" 2>&1; echo "rc=$?"; tail -1 "$OUT/pairs.txt"
# libunlost-webgpu against Dawn directly (docs/webgpu.md), three runs.
for i in 1 2 3; do run bench_webgpu_$i $B bench webgpu --json; done
# The density cliffs (issue 29), one process per workload, every 13th N.
for w in basic zoo decode threads; do
  timeout 470 $B chaos --density --workload $w --steps 100 --stride "${DENSITY_STRIDE:-13}" --hung-after 60 \
    --json "$OUT/density_$w.json" > "$OUT/density_$w.txt" 2>&1 &
done
wait
for w in basic zoo decode threads; do echo "== density $w"; tail -c 600 "$OUT/density_$w.json"; echo; done
# The webgpu.h programs under a loss at every call, 16 at a time.
echo "== chaos webgpu"; timeout 480 $B chaos --workload webgpu-all --stride "${WEBGPU_STRIDE:-1}" --jobs 16 \
  --json "$OUT/chaos_webgpu.json" > "$OUT/chaos_webgpu.txt" 2>&1; echo "rc=$?"; tail -3 "$OUT/chaos_webgpu.txt"
# One archive, so that every output comes back from a machine that returns few files.
tar -C "$OUT" -czf "$OUT/all.tgz" --exclude all.tgz . 2>/dev/null || true
