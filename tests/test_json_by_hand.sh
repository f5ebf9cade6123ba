#!/usr/bin/env bash
# JSON is built with a library, not printed by hand (issue 40, "Libraries
# for what libraries do"): no fprintf in src/, tools/ or bench/ writes a
# "key": of its own. The CLI builds its documents with jansson
# (tools/unlost/cli_json.c: cli_json_write). The pattern is the issue's
# acceptance check; it is first tried on a line it must find, so that a
# pattern no grep matches cannot pass.
#   test_json_by_hand.sh SOURCE_DIR
set -u
root=${1:?usage: test_json_by_hand.sh SOURCE_DIR}
pattern='fprintf\([^)]*\\"[a-z_]+\\":'
sample='  fprintf(f, "{\"mode\":\"%s\",", mode);'
grep -qE "$pattern" <<< "$sample" || { echo "FAIL: the pattern does not find a line written by hand: $sample"; exit 1; }
cd "$root" || exit 1
hits=$(grep -rnE "$pattern" src tools bench)
rc=$?
[ $rc -le 1 ] || { echo "FAIL: grep failed ($rc)"; exit 1; }
if [ -n "$hits" ]; then
  echo "FAIL: JSON written by hand with fprintf ($(wc -l <<< "$hits") lines); build it with jansson (cli_json_write):"
  echo "$hits"
  exit 1
fi
echo "no JSON written by hand with fprintf in src, tools or bench"
