#!/usr/bin/env bash
# Runs a program directly on the implementation and through the layer and
# compares their "case" lines (tests/webgpu/futures_webgpu.c): the
# implementation is the oracle. Usage: futures_compare.sh DIRECT LAYER
set -u
direct=$(timeout 120 "$1") ; rd=$?
layer=$(timeout 120 "$2") ; rl=$?
echo "== directly on the implementation (exit $rd)"; echo "$direct"
echo "== through the layer (exit $rl)"; echo "$layer"
[ $rd -eq 77 ] && exit 77
if [ $rd -ne 0 ] || [ $rl -ne 0 ]; then echo "FAIL: a run failed"; exit 1; fi
d=$(grep '^case ' <<<"$direct"); l=$(grep '^case ' <<<"$layer")
[ -n "$d" ] || { echo "FAIL: no cases"; exit 1; }
if [ "$d" != "$l" ]; then
  echo "FAIL: the layer answers differently:"; diff <(echo "$d") <(echo "$l"); exit 1
fi
echo "every case answered as the implementation answers it"
