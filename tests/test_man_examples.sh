#!/usr/bin/env bash
# Runs every line of the man page's EXAMPLES section (docs/unlost.1) as a
# user would type it, with the build's `unlost` first on PATH, and checks
# that each exits 0 (issue 40: the page's `run` example exited 2). `serve`
# runs until stopped: it is stopped with SIGINT after it says it listens,
# and must exit 0 then; its port is replaced by 0 (a free one), so that the
# test never collides with a server already on the documented port.
#   test_man_examples.sh SOURCE_DIR BUILD_DIR
set -uo pipefail
src=$1 build=$2
page=$src/docs/unlost.1
export PATH="$build:$PATH" XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp} UNLOST_LOG=error
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The lines between .nf and .fi after .SH EXAMPLES, with roff's \- as -.
awk '/^\.SH EXAMPLES/ {on = 1; next} /^\.SH / {on = 0} on && /^\.nf/ {nf = 1; next} on && /^\.fi/ {nf = 0} on && nf' \
  "$page" | sed 's/\\-/-/g' > "$tmp/examples"
n=$(wc -l < "$tmp/examples")
[ "$n" -ge 3 ] || { echo "FAIL: found $n examples in $page"; exit 1; }
fails=0
while IFS= read -r line; do
  if [[ $line == *"unlost serve"* ]]; then
    cmd=$(sed -E 's/(--listen [^ ]*:)[0-9]+/\10/' <<<"$line")
    bash -c "exec $cmd" > "$tmp/out" 2>&1 &
    pid=$!
    for _ in $(seq 1 300); do grep -q "^listening on" "$tmp/out" && break; kill -0 $pid 2>/dev/null || break; sleep 0.1; done
    kill -INT $pid 2>/dev/null
    wait $pid
    rc=$?
    grep -q "^listening on" "$tmp/out" || rc=1
  else
    timeout 300 bash -c "$line" > "$tmp/out" 2>&1
    rc=$?
  fi
  if [ "$rc" -eq 0 ]; then
    echo "ok   $line"
  else
    echo "FAIL $line: exit $rc"
    tail -5 "$tmp/out" | sed 's/^/     /'
    fails=$((fails + 1))
  fi
done < "$tmp/examples"
# The port the docs quote is the one the code listens on by default.
port=$(unlost serve --help 2>&1 | sed -nE 's/.*default: [^ ]*:([0-9]+).*/\1/p' | head -1)
if [ -z "$port" ]; then
  echo "FAIL: unlost serve --help names no default port"
  fails=$((fails + 1))
else
  other=$(grep -rnoE --include='*.md' --include='*.yaml' --include='*.1' \
            -e '(--listen[ ",]+"?[^ ":]*:|\\-\\-listen [^ ]*:|prometheus.io/port: "|containerPort: )[0-9]+' \
            "$src/README.md" "$src/docs" | grep -vE "[^0-9]$port\$" || true)
  if [ -n "$other" ]; then
    echo "FAIL: the docs quote a port other than the default $port:"
    echo "$other" | sed 's/^/     /'
    fails=$((fails + 1))
  else
    echo "ok   every port the docs quote is the default, $port"
  fi
fi
echo "$n examples, $fails failed"
[ "$fails" -eq 0 ]
