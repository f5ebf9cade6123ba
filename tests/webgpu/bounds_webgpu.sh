#!/usr/bin/env bash
# Bounded input through libunlost-webgpu (issue 36); see bounds_webgpu.c.
#   bounds_webgpu.sh chains|strings|selfload|report DIRECT LINKED LIBRARY
# DIRECT is bounds_webgpu.c linked to the implementation, LINKED the same
# linked to libunlost-webgpu, LIBRARY the library itself. Every run is under
# a watchdog (BOUNDS_WATCHDOG_S, default 20 s): a run that outlives it is a
# hang, and fails the test rather than hanging it.
set -u
what=$1 direct=$2 linked=$3 lib=$4
watchdog=${BOUNDS_WATCHDOG_S:-20}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# run OUT PROGRAM ARGS...: stdout to OUT, stderr to OUT.err; its exit code
# (124 or 137 when the watchdog stopped it).
run() {
  local out=$1
  shift
  timeout -k 5 "$watchdog" "$@" >"$out" 2>"$out.err"
}

# compare CASE: the case on the implementation and through the layer; the
# transcripts must be the same.
compare() {
  local c=$1 rc
  run "$tmp/direct.$c" "$direct" "$c"
  rc=$?
  [ "$rc" = 77 ] && exit 77
  if [ "$rc" != 0 ]; then
    echo "FAIL: $c on the implementation exited $rc"
    cat "$tmp/direct.$c" "$tmp/direct.$c.err"
    fail=1
    return
  fi
  run "$tmp/linked.$c" "$linked" "$c"
  rc=$?
  if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
    echo "FAIL: $c through the layer did not end within ${watchdog} s (a hang)"
  elif [ "$rc" != 0 ]; then
    echo "FAIL: $c through the layer exited $rc"
  fi
  if [ "$rc" != 0 ] || ! cmp -s "$tmp/direct.$c" "$tmp/linked.$c"; then
    echo "FAIL: $c: the layer's answers differ from the implementation's (< implementation, > layer):"
    diff "$tmp/direct.$c" "$tmp/linked.$c"
    echo "--- the layer's stderr:"
    tail -n 20 "$tmp/linked.$c.err"
    fail=1
    return
  fi
  echo "ok: $c: the same answers as the implementation:"
  sed 's/^/    /' "$tmp/linked.$c"
}

case $what in
chains)
  compare instance-cycle
  compare device-cycle
  # RequestAdapter: the implementation walks a cycle there for ever itself
  # (it validates no options chain), so there is no answer to compare: the
  # layer's must be an Error (4) through the callback, in bounded time.
  run "$tmp/adapter" "$linked" adapter-cycle
  rc=$?
  want="adapter with a cycle: status 4, adapter null"
  if [ "$rc" != 0 ] || [ "$(head -n 1 "$tmp/adapter")" != "$want" ]; then
    echo "FAIL: adapter-cycle through the layer exited $rc, said '$(head -n 1 "$tmp/adapter")' (want '$want')"
    tail -n 20 "$tmp/adapter.err"
    fail=1
  else
    echo "ok: adapter-cycle: $want ($(grep -m1 'adapter:' "$tmp/adapter.err"))"
  fi
  compare resource-cycle
  ;;
strings)
  compare strings
  ;;
selfload)
  # The library named as its own implementation: at its path, and as a copy
  # at another path (another object of the same code). Either must be
  # refused, in bounded time, with a message that says why.
  cp "$lib" "$tmp/libcopy.so"
  for impl in "$lib" "$tmp/libcopy.so"; do
    UNLOST_WEBGPU_LIB=$impl UNLOST_LOG=error run "$tmp/self" "$linked" instance
    rc=$?
    if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
      echo "FAIL: UNLOST_WEBGPU_LIB=$impl: wgpuCreateInstance did not return within ${watchdog} s (a hang)"
      fail=1
      continue
    fi
    if [ "$rc" != 0 ] || [ "$(cat "$tmp/self")" != "instance null" ]; then
      echo "FAIL: UNLOST_WEBGPU_LIB=$impl: exited $rc, said '$(cat "$tmp/self")' (want 'instance null')"
      cat "$tmp/self.err"
      fail=1
      continue
    fi
    if ! grep -q "unlost" "$tmp/self.err" || ! grep -q "$impl" "$tmp/self.err"; then
      echo "FAIL: UNLOST_WEBGPU_LIB=$impl: refused without a message naming it:"
      cat "$tmp/self.err"
      fail=1
      continue
    fi
    echo "ok: UNLOST_WEBGPU_LIB=$impl refused: $(grep -m1 unlost "$tmp/self.err")"
  done
  ;;
report)
  # A program that never releases its instance, with two losses injected:
  # its report is written at exit, once, with what happened.
  report=$tmp/report
  UNLOST_CHAOS=loss@30,loss@60 UNLOST_CHAOS_REPORT=$report run "$tmp/noexit" "$linked" noexit
  rc=$?
  [ "$rc" = 77 ] && exit 77
  if [ "$rc" != 0 ]; then
    echo "FAIL: the program exited $rc"
    cat "$tmp/noexit" "$tmp/noexit.err"
    exit 1
  fi
  if [ ! -s "$report" ]; then
    echo "FAIL: no chaos report at exit (the program never released its instance)"
    exit 1
  fi
  echo "report: $(cat "$report")"
  lines=$(wc -l <"$report")
  line=$(head -n 1 "$report")
  re='^calls=([0-9]+) injected=([0-9]+) recoveries=([0-9]+) leaked_devices=([0-9]+) failed_devices=([0-9]+) reentries=([0-9]+) recovery_ms=([0-9.]+)$'
  if [ "$lines" != 1 ] || ! [[ $line =~ $re ]]; then
    echo "FAIL: the report is not one line of the layer's format"
    exit 1
  fi
  calls=${BASH_REMATCH[1]} injected=${BASH_REMATCH[2]} recoveries=${BASH_REMATCH[3]}
  leaked=${BASH_REMATCH[4]} failed=${BASH_REMATCH[5]} reentries=${BASH_REMATCH[6]}
  # Both losses land (the program makes more than 60 calls), each is
  # recovered from, and nothing failed or re-entered.
  if [ "$calls" -lt 60 ] || [ "$injected" != 2 ] || [ "$recoveries" != 2 ] || [ "$failed" != 0 ] ||
    [ "$leaked" != 0 ] || [ "$reentries" != 0 ]; then
    echo "FAIL: want calls >= 60, injected=2, recoveries=2, no failed or leaked device, no re-entry"
    exit 1
  fi
  echo "ok: the report at exit says what the schedule did"
  ;;
*)
  echo "usage: $0 chains|strings|selfload|report DIRECT LINKED LIBRARY"
  exit 2
  ;;
esac
exit $fail
