#!/usr/bin/env bash
# The fault harness on the GPU (docs/bench/HISTORY.md, "The fault harness on
# the H200"): every call, strided pairs, and storms for five seeds with the
# health monitor on or off. Usage: bench/gpu_chaos.sh points | pairs STRIDE
# PAIR_STRIDE | on SECONDS | off SECONDS | zoo STRIDE SECONDS (the zoo
# workload strided, then a storm of it; several modes may follow each other).
# On the H200 a point costs about 200 ms (a new NVIDIA device each), so pairs
# are strided more than on the CPU adapter.
set -uo pipefail
. "$(dirname "$0")/gpu_env.sh"
B=build-gpu/unlost
# Every run's files in $R, one archive of them in $OUT at the end.
R=$(mktemp -d)
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; $B doctor --json; } > "$R/machine.txt" 2>&1
while [ $# -gt 0 ]; do
  what=$1; shift
  case $what in
  points)
    echo "== every call"; $B chaos --every-call --fault loss --json "$R/chaos_loss.json" > "$R/chaos_loss.txt" 2>&1
    echo "rc=$?"; tail -1 "$R/chaos_loss.txt" ;;
  pairs)
    echo "== pairs --stride $1 --pair-stride $2"
    $B chaos --pairs --stride "$1" --pair-stride "$2" --json "$R/chaos_pairs.json" > "$R/chaos_pairs.txt" 2>&1
    echo "rc=$?"; tail -1 "$R/chaos_pairs.txt"; shift 2 ;;
  zoo)
    echo "== zoo every call, stride $1"
    $B chaos --workload zoo --every-call --stride "$1" --fault loss --json "$R/zoo_points.json" > "$R/zoo_points.txt" 2>&1
    echo "rc=$?"; tail -1 "$R/zoo_points.txt"
    echo "== zoo storm $2 s seed 1"
    $B chaos --workload zoo --storm "$2" --seed 1 --json "$R/zoo_storm.json" > "$R/zoo_storm.txt" 2>&1
    echo "rc=$?"; tail -2 "$R/zoo_storm.txt" | cut -c1-400
    shift 2 ;;
  on | off)
    secs=$1; shift
    flag=; [ "$what" = off ] && flag=--no-health
    for seed in 1 2 3 4 5; do
      echo "== storm $secs s seed $seed health $what"
      $B chaos --storm "$secs" --seed "$seed" $flag --json "$R/storm_${what}_$seed.json" > "$R/storm_${what}_$seed.txt" 2>&1
      echo "rc=$?"; tail -1 "$R/storm_${what}_$seed.txt" | cut -c1-400
    done ;;
  esac
done
tar czf "$OUT/gpu_chaos.tgz" -C "$R" .
