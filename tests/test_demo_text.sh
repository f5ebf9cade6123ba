#!/usr/bin/env bash
# `unlost demo` reads well (issue 40): its text carries no "unlost warn"
# line of the library's for the losses the demo injects, in a pipe (stdout
# and stderr together, as `make demo 2>&1 | cat` shows them) and on a
# terminal (under script(1); skipped without it). The words of the text are
# those of a run without losses, and on a terminal each injected loss is one
# mark (dim, unless NO_COLOR is set). Other lines of the log (UNLOST_LOG=info)
# show, each on a line of its own.
#
# Usage: test_demo_text.sh UNLOST_BINARY
set -euo pipefail
unlost=${1:?usage: test_demo_text.sh UNLOST_BINARY}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/unlost-demo-text.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# The default level: the library's warnings are what must not show.
unset UNLOST_LOG NO_COLOR
args=(demo --steps 40 --losses 2)

# The generated text: the lines between the header's blank line and the
# one before "summary", as words (one a line).
text_words() {
  awk 'NR > 3 && /^$/ { exit } NR > 3 { print }' "$1" | tr -s ' \t' '\n\n' | sed '/^$/d'
}

"$unlost" demo --steps 40 --losses 0 >"$tmp/clean.out" 2>&1 || fail "demo without losses exited $?"
text_words "$tmp/clean.out" >"$tmp/clean.words"
[ -s "$tmp/clean.words" ] || fail "no text in the run without losses"

# 1. A pipe, stderr with stdout. A CLI built without jansson refuses
# --json (before --help): the JSON's count is then not checked.
json=(--json "$tmp/pipe.json")
if ! "$unlost" demo --json "$tmp/probe.json" --help >/dev/null 2>&1; then
  echo "note: this CLI writes no JSON (built without jansson): the JSON's count is not checked"
  json=()
fi
"$unlost" "${args[@]}" "${json[@]}" 2>&1 | cat >"$tmp/pipe.out" || fail "demo in a pipe exited non-zero"
if [ ${#json[@]} -gt 0 ]; then
  grep -q '"log_lines_injected":2,' "$tmp/pipe.json" ||
    fail "the JSON does not count the 2 lines about the injected losses: $(cat "$tmp/pipe.json" 2>/dev/null | head -c 400)"
fi
grep -q '^result: PASS' "$tmp/pipe.out" || fail "demo in a pipe did not pass"
if grep -n 'unlost warn' "$tmp/pipe.out"; then fail "a library warning in the piped output"; fi
text_words "$tmp/pipe.out" >"$tmp/pipe.words"
cmp -s "$tmp/clean.words" "$tmp/pipe.words" || {
  fail "the piped text differs from the run without losses"
  diff "$tmp/clean.words" "$tmp/pipe.words" | head -20 || true
}
if grep -q $'\033' "$tmp/pipe.out"; then fail "escape sequences in a pipe"; fi

# 2. A terminal.
if ! command -v script >/dev/null; then
  echo "script(1) not found: the terminal case is not checked"
  [ "$fails" -eq 0 ] && exit 77
  exit 1
fi
tty_run() { # OUT [ENV...]: the demo under a pseudo-terminal, output in OUT
  local out=$1
  shift
  env "$@" script -qec "$(printf '%q ' "$unlost" "${args[@]}")" /dev/null >"$out" 2>&1 < /dev/null
}
tty_run "$tmp/tty.raw" || fail "demo on a terminal exited non-zero"
# What the terminal ends up showing: each line's last redraw, without
# escape sequences, progress or marks.
final() { # the last redraw of each line, attributes kept
  tr -d '\000' <"$1" | awk -F'\r' '{ n = NF; while (n > 1 && $n == "") n--; print $n }'
}
render() {
  final "$1" | sed -e $'s/\033\\[[0-9;]*[A-Za-z]//g' -e 's/  \[[0-9]*\/[0-9]* tokens[^]]*\]$//' \
    -e $'s/ \xe2\x9f\xb2 [0-9]* ms//g'
}
render "$tmp/tty.raw" >"$tmp/tty.out"
grep -q '^result: PASS' "$tmp/tty.out" || fail "demo on a terminal did not pass"
if grep -n 'unlost warn' "$tmp/tty.raw"; then fail "a library warning on the terminal"; fi
text_words "$tmp/tty.out" >"$tmp/tty.words"
cmp -s "$tmp/clean.words" "$tmp/tty.words" || {
  fail "the text on the terminal differs from the run without losses"
  diff "$tmp/clean.words" "$tmp/tty.words" | head -20 || true
}
marks=$(final "$tmp/tty.raw" | grep -o $'\033\\[2m\xe2\x9f\xb2 [0-9]* ms' | wc -l || true)
[ "$marks" -eq 2 ] || fail "expected 2 dim loss marks on the terminal, saw $marks"

# 3. NO_COLOR: marks without the dim attribute, and no attribute at all.
tty_run "$tmp/nocolor.raw" NO_COLOR=1 || fail "demo with NO_COLOR exited non-zero"
if grep -q $'\033\\[[0-9;]*m' "$tmp/nocolor.raw"; then fail "a color attribute with NO_COLOR set"; fi
marks=$(final "$tmp/nocolor.raw" | grep -o $'\xe2\x9f\xb2 [0-9]* ms' | wc -l || true)
[ "$marks" -eq 2 ] || fail "expected 2 loss marks with NO_COLOR, saw $marks"

# 4. Lines of the library's log that are not about the injected losses
# (UNLOST_LOG=info adds the recoveries' phases) still show, each on a line
# of its own, and the text keeps its words.
UNLOST_LOG=info "$unlost" "${args[@]}" 2>&1 | cat >"$tmp/info.out" || fail "demo at info exited non-zero"
grep -q '^unlost info: ' "$tmp/info.out" || fail "no info line shown at UNLOST_LOG=info"
if grep -n '.unlost \(error\|warn\|info\|debug\):' "$tmp/info.out"; then fail "a log line glued to the text"; fi
grep -v '^unlost info: ' "$tmp/info.out" >"$tmp/info.text"
text_words "$tmp/info.text" >"$tmp/info.words"
cmp -s "$tmp/clean.words" "$tmp/info.words" || {
  fail "the text at UNLOST_LOG=info differs from the run without losses"
  diff "$tmp/clean.words" "$tmp/info.words" | head -20 || true
}
tty_run "$tmp/info.raw" UNLOST_LOG=info || fail "demo at info on a terminal exited non-zero"
grep -q 'unlost info: ' "$tmp/info.raw" || fail "no info line on the terminal at UNLOST_LOG=info"
if final "$tmp/info.raw" | sed -e $'s/\033\\[[0-9;]*[A-Za-z]//g' | grep -n '.unlost \(error\|warn\|info\|debug\):'; then
  fail "a log line glued to the text on the terminal"
fi

if [ "$fails" -ne 0 ]; then
  echo "$fails failure(s); outputs:"
  for f in pipe.out tty.out info.out; do echo "--- $f"; cat "$tmp/$f"; done
  exit 1
fi
echo "ok: the demo's text is whole in a pipe and on a terminal"
