#!/usr/bin/env bash
# A device the program destroys is not lost (issue 40): a webgpu.h program
# on libunlost-webgpu that ends its device normally logs no loss at
# UNLOST_LOG=info ("lost for good" was logged for every wgpuDeviceDestroy
# and last release), and its destroy is still in the log at debug.
#
# Usage: test_destroy_log.sh WEBGPU_PROGRAM (one linked to libunlost-webgpu
# that creates a device, computes and destroys it)
set -euo pipefail
prog=${1:?usage: test_destroy_log.sh WEBGPU_PROGRAM}
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

out=$(UNLOST_LOG=info "$prog" 2>&1) || fail "$prog exited $? at UNLOST_LOG=info"
if grep -n -i -E '(^|[^a-z])lost' <<<"$out"; then fail "a loss logged for a device the program destroyed"; fi
out=$(UNLOST_LOG=debug "$prog" 2>&1) || fail "$prog exited $? at UNLOST_LOG=debug"
grep -q 'unlost debug: webgpu.h device destroyed' <<<"$out" || fail "no debug line for the destroy"
if grep -n -i 'lost for good' <<<"$out"; then fail "'lost for good' at debug"; fi
[ "$fails" -eq 0 ] || exit 1
echo "ok: the program's destroy is not logged as a loss"
