#!/usr/bin/env bash
# The generated half of the webgpu.h door is exactly what tools/wgpugen
# writes from src/wgpu/webgpu.api and src/wgpu/stable.api: runs the generator into OUT_DIR and
# compares each file with the committed one. A difference means a generated
# file was edited by hand, or the description or the generator changed
# without `make regen`. Then the check tests itself: a committed file with
# one line edited must fail it.
#
# Usage: test_generated.sh SOURCE_DIR WGPUGEN OUT_DIR
set -euo pipefail
src=$(cd "${1:?usage: test_generated.sh SOURCE_DIR WGPUGEN OUT_DIR}" && pwd)
gen=${2:?usage: test_generated.sh SOURCE_DIR WGPUGEN OUT_DIR}
out=${3:?usage: test_generated.sh SOURCE_DIR WGPUGEN OUT_DIR}
files=(src/wgpu/wgpu.h src/wgpu/wgpu_api.h src/webgpu/refused.c src/webgpu/lifetime.c docs/webgpu.md
  src/wgpu/stable/webgpu/webgpu.h)

rm -rf "$out"
mkdir -p "$out/gen/src/wgpu/stable/webgpu" "$out/gen/src/webgpu" "$out/gen/docs"
"$gen" "$src" "$out/gen"

# compare ROOT: 0 when each file under ROOT is what the generator wrote.
compare() {
  local fails=0 f
  for f in "${files[@]}"; do
    if ! diff -u --label "$f (committed)" --label "$f (generated)" "$1/$f" "$out/gen/$f" >"$out/diff"; then
      echo "FAIL $f is not what tools/wgpugen writes from src/wgpu/webgpu.api" \
        "(edit the description and run make regen, not the file):"
      head -n 40 "$out/diff"
      fails=$((fails + 1))
    fi
  done
  return "$fails"
}

if ! compare "$src"; then
  echo "test_generated: the committed files differ" >&2
  exit 1
fi

# The self-test: a copy of the committed files with one line of refused.c
# changed by hand must be caught.
mkdir -p "$out/edited/src/wgpu/stable/webgpu" "$out/edited/src/webgpu" "$out/edited/docs"
for f in "${files[@]}"; do cp "$src/$f" "$out/edited/$f"; done
sed -i '0,/return NULL;/s//return (void *)0;/' "$out/edited/src/webgpu/refused.c"
if compare "$out/edited" >/dev/null; then
  echo "test_generated: a hand edit of refused.c went unnoticed" >&2
  exit 1
fi
echo "test_generated: ${#files[@]} files as generated; a hand edit is caught"
