#!/usr/bin/env bash
# Compiles every ```c block of README.md and docs/*.md against include/unlost.h:
#   cc -std=c11 -Wall -Wextra -Werror -Iinclude -c
# A block whose first line is `// fragment` is a piece of a function body; it
# is compiled inside
#   ul_status fragment(ul_env *env, ul_device *dev) { ...; return UL_OK; }
# after <stdio.h>, <stdlib.h>, <string.h> and <unlost.h>. A block whose first
# line is `// webgpu fragment` is a piece of
#   void fragment(WGPUDevice device, size_t n)
# after our webgpu.h declarations (src/wgpu/wgpu_api.h) and unlost_webgpu.h.
# Other blocks must be whole translation units. Errors point at the
# Markdown file and line. docs/webgpu.md's table lists every entry point of
# src/wgpu/wgpu_api.h once, "refused" exactly for those src/webgpu/ refuses.
# Also: the YAML block of docs/kubernetes.md equals docs/k8s/deployment.yaml
# (and yamllint accepts it, where installed); the man page renders without
# warnings (where groff is installed); every relative Markdown link resolves.
#
# Usage: test_docs.sh SOURCE_DIR [CC]
set -euo pipefail
src=$(cd "${1:?usage: test_docs.sh SOURCE_DIR [CC]}" && pwd)
cc=${2:-cc}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/unlost-docs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fails=0

cd "$src"
shopt -s nullglob
mds=(README.md docs/*.md)
for md in "${mds[@]}"; do
  base=$(echo "$md" | tr '/.' '__')
  awk -v out="$tmp/$base" -v md="$md" '
    BEGIN { n = 0; in_c = 0; in_other = 0 }
    in_c && /^```[ \t]*$/ { in_c = 0; if (frag == 1) print "  return UL_OK;\n}" > f; if (frag == 2) print "}" > f; close(f); next }
    in_c {
      if (first) {
        first = 0
        if ($0 ~ /^\/\/ webgpu fragment/) {
          frag = 2
          print "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include \"wgpu/wgpu_api.h\"\n#include <unlost_webgpu.h>" > f
          print "void fragment(WGPUDevice device, size_t n);" > f
          print "void fragment(WGPUDevice device, size_t n) {\n  (void)device;\n  (void)n;" > f
        } else if ($0 ~ /^\/\/ fragment/) {
          frag = 1
          print "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <unlost.h>" > f
          print "ul_status fragment(ul_env *env, ul_device *dev);" > f
          print "ul_status fragment(ul_env *env, ul_device *dev) {\n  (void)env;\n  (void)dev;" > f
        }
        printf "#line %d \"%s\"\n", NR, md > f
      }
      print > f; next
    }
    in_other && /^```/ { in_other = 0; next }
    in_other { next }
    /^```c[ \t]*$/ { in_c = 1; first = 1; frag = 0; n++; f = sprintf("%s_%02d.c", out, n); next }
    /^```/ { in_other = 1; next }
  ' "$md"
done

blocks=("$tmp"/*.c)
for c in "${blocks[@]}"; do
  if ! "$cc" -std=c11 -Wall -Wextra -Werror -I"$src/include" -I"$src/src" -c "$c" -o "${c%.c}.o" 2>"${c%.c}.err"; then
    echo "FAIL $(basename "$c"):" >&2
    cat "${c%.c}.err" >&2
    fails=$((fails + 1))
  fi
done
echo "test_docs: ${#blocks[@]} C blocks from ${#mds[@]} files compiled, $fails failed"

# The Kubernetes manifest: the guide's block and the file must agree.
if [ -f docs/k8s/deployment.yaml ]; then
  awk '/^```yaml[ \t]*$/ { y = 1; next } y && /^```/ { exit } y' docs/kubernetes.md >"$tmp/guide.yaml"
  grep -v '^#' docs/k8s/deployment.yaml >"$tmp/file.yaml"
  if ! diff -u "$tmp/file.yaml" "$tmp/guide.yaml" >"$tmp/yaml.diff"; then
    echo "FAIL docs/kubernetes.md's manifest differs from docs/k8s/deployment.yaml:" >&2
    cat "$tmp/yaml.diff" >&2
    fails=$((fails + 1))
  fi
  if command -v yamllint >/dev/null; then
    yamllint -d '{extends: default, rules: {line-length: {max: 120}, document-start: disable}}' \
      docs/k8s/deployment.yaml || { echo "FAIL yamllint docs/k8s/deployment.yaml" >&2; fails=$((fails + 1)); }
  fi
fi

# docs/webgpu.md: one row per entry point, refused exactly where the library
# refuses (src/webgpu/refused.c, and the render pass and the two commands
# the encoder refuses).
if [ -f docs/webgpu.md ] && [ -f src/wgpu/wgpu_api.h ]; then
  grep -o '^  X([^,]*, [A-Za-z0-9]*,' src/wgpu/wgpu_api.h | sed 's/.*, \([A-Za-z0-9]*\),$/wgpu\1/' | sort -u >"$tmp/api.txt"
  sed -n 's/^| `\(wgpu[A-Za-z0-9]*\)` | \([a-z]*\) |.*/\1 \2/p' docs/webgpu.md | sort >"$tmp/table.txt"
  if ! diff <(cut -d' ' -f1 "$tmp/table.txt") "$tmp/api.txt" >"$tmp/table.diff"; then
    echo "FAIL docs/webgpu.md's table does not list every entry point once:" >&2
    cat "$tmp/table.diff" >&2
    fails=$((fails + 1))
  fi
  { sed -n 's/^UL__WG_EXPORT [^(]* \(wgpu[A-Za-z0-9]*\)(.*/\1/p' src/webgpu/refused.c
    echo wgpuCommandEncoderBeginRenderPass; echo wgpuCommandEncoderWriteBuffer; echo wgpuComputePassEncoderSetImmediateData
    echo wgpuComputePassEncoderSetImmediates
  } | sort -u >"$tmp/refused.txt"
  if ! diff <(awk '$2 == "refused" {print $1}' "$tmp/table.txt") "$tmp/refused.txt" >"$tmp/refused.diff"; then
    echo "FAIL docs/webgpu.md's refused rows differ from what src/webgpu/ refuses:" >&2
    cat "$tmp/refused.diff" >&2
    fails=$((fails + 1))
  fi
fi

# The README names every package `make deps` installs with apt (issue 40).
if [ -f scripts/deps.sh ] && [ -f README.md ]; then
  for p in $(sed -n 's/^need_pkgs="\(.*\)"$/\1/p' scripts/deps.sh) mesa-vulkan-drivers npm; do
    grep -q -- "$p" README.md || {
      echo "FAIL README.md does not name $p, which make deps installs" >&2
      fails=$((fails + 1))
    }
  done
fi

# Relative links: every [text](target) of README.md, docs/*.md and
# docs/bench/*.md names a file or folder of the tree (docs/bench/ keeps only
# the JSON behind the current tables; what it dropped is named as text).
for md in README.md docs/*.md docs/bench/*.md; do
  while IFS= read -r t; do
    case "$t" in http://* | https://* | mailto:* | '#'* | '') continue ;; esac
    if [ ! -e "$(dirname "$md")/${t%%#*}" ]; then
      echo "FAIL $md links to $t, which does not exist" >&2
      fails=$((fails + 1))
    fi
  done < <(grep -o '](\([^) ]*\))' "$md" | sed 's/^](\(.*\))$/\1/')
done

# The man page.
if [ -f docs/unlost.1 ] && command -v groff >/dev/null; then
  if ! groff -man -Tutf8 -ww -z docs/unlost.1 2>"$tmp/man.err" || [ -s "$tmp/man.err" ]; then
    echo "FAIL docs/unlost.1 does not render cleanly:" >&2
    cat "$tmp/man.err" >&2
    fails=$((fails + 1))
  fi
fi

[ "$fails" -eq 0 ] || { echo "test_docs: $fails failures" >&2; exit 1; }
echo "test_docs: ok"
