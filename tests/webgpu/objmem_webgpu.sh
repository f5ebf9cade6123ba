#!/usr/bin/env bash
# What libunlost-webgpu keeps of objects the program released (issue 36,
# observation 12), measured by hand (not a CTest test: Dawn's own lazy frees
# move the figure by a megabyte between runs): the same program (objmem_webgpu.c) linked to the
# implementation and to the layer makes N buffers and N bind groups,
# releases them, submits once more and waits. The heap the layer keeps
# beyond the implementation's must stay under BOUND bytes a pair: a buffer
# no entry of the operation log names is freed at its release (before, every
# buffer destroyed while the log held anything was kept until the next
# checkpoint: 2,240 bytes a pair at N=5000).
#   objmem_webgpu.sh DIR_OF_BINARIES [N] [BOUND]
set -uo pipefail
dir=$1 n=${2:-5000} bound=${3:-1200}
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp} UNLOST_LOG=error OBJMEM_TICK=1
d=$("$dir/webgpu_objmem_direct" "$n" --unused 2>/dev/null | grep '^{') || { echo "direct run failed"; exit 1; }
l=$("$dir/webgpu_objmem_linked" "$n" --unused 2>/dev/null | grep '^{') || { echo "layer run failed"; exit 1; }
echo "direct: $d"
echo "layer:  $l"
kd=$(sed -E 's/.*"kept": (-?[0-9]+).*/\1/' <<<"$d")
kl=$(sed -E 's/.*"kept": (-?[0-9]+).*/\1/' <<<"$l")
extra=$(( (kl - kd) / n ))
echo "the layer keeps $extra bytes a pair after their release (bound $bound)"
[ "$extra" -le "$bound" ] || { echo "FAIL: over the bound"; exit 1; }
echo "ok objmem"
