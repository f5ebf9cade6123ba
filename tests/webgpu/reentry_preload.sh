#!/usr/bin/env bash
# A program linked to the implementation, run with libunlost-webgpu
# preloaded: its calls reach the layer (the layer's report is written) and
# the implementation's own calls never do (reentries=0).
#   reentry_preload.sh PROGRAM LIBRARY [PRELOAD_FIRST]
set -u
prog=$1 lib=$2 first=${3:-}
report=$(mktemp)
trap 'rm -f "$report"' EXIT
env UNLOST_CHAOS_REPORT="$report" UNLOST_LOG=error LD_PRELOAD="${first:+$first:}$lib" "$prog" >/dev/null
rc=$?
[ "$rc" = 77 ] && exit 77
if [ "$rc" != 0 ]; then echo "FAIL: $prog exited $rc under LD_PRELOAD"; exit 1; fi
line=$(cat "$report")
if [ -z "$line" ]; then echo "FAIL: no report: the preloaded library did not take the program's calls"; exit 1; fi
echo "report: $line"
case " $line " in
  *" reentries=0 "*) echo "ok: the implementation did not re-enter the layer" ;;
  *) echo "FAIL: the implementation re-entered the layer: $line"; exit 1 ;;
esac
