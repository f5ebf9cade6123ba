#!/usr/bin/env bash
# The layer check: every #include "folder/file.h" in src/, tools/ and
# examples/ against the order in src/LAYERS. An edge that goes up or
# sideways fails, as does a tools/ or examples/ include of anything but the
# public header -- unless it is listed in tests/layer_debt.txt, the known
# violations still to be removed (a listed edge that no longer exists fails
# too, so the list only shrinks). Then the same for calls: every function or
# variable one file of src/ uses that another file defines (read from the
# built objects with nm: the reference a declaration in a lower header can
# hide from the include check) must be of the same folder or one below.
# Then the doors: a file of a front door (api: unlost.h, webgpu: webgpu.h)
# may use only symbols of engine/ (the engine's front), base (src/base/ and
# the top of src/), wgpu/ and its own folder -- unless the (file, symbol)
# is listed in tests/door_debt.txt, what the doors still take from below
# the engine (a listed use that no longer exists fails too, so the list
# only shrinks). Then the check tests itself: an added upward include, an
# added upward call, a call between the doors and a door's call into core
# must each make it fail, as must a debt line paid but still listed.
#   test_layers.sh SOURCE_DIR [BUILD_DIR] [--no-self-test]
set -u
root=${1:?usage: test_layers.sh SOURCE_DIR [BUILD_DIR]}
objdir=${2:-}
self_test=${3:-}
[ "$objdir" = --no-self-test ] && { self_test=$objdir; objdir=; }

# debt_paid FILE SEEN WHAT: each line of the debt list FILE that is not
# among the SEEN lines is paid and must go; prints those, returns 1 if any.
debt_paid() {
  local file=$1 seen=$2 what=$3 line bad=0
  [ -f "$file" ] || return 0
  while IFS= read -r line; do
    [ -z "$line" ] || [[ $line == \#* ]] && continue
    if ! grep -qxF "$line" <<< "$seen"; then
      echo "$what debt paid: '$line' no longer exists; remove it from tests/${file##*/}"
      bad=1
    fi
  done < "$file"
  return $bad
}

check() { # check ROOT -> prints violations, returns 1 if any
  local r=$1 bad=0
  declare -A rank=()
  local n=0 line w
  while IFS= read -r line; do
    line=${line%%#*}
    [ -z "${line// /}" ] && continue
    for w in $line; do rank[$w]=$n; done
    n=$((n + 1))
  done < "$r/src/LAYERS"
  local debt_file="$r/tests/layer_debt.txt" seen=""
  local edges
  edges=$(cd "$r" && grep -H -o '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"]*"' \
          $(find src tools examples -name '*.[ch]' 2>/dev/null | sort) 2>/dev/null |
          sed -E 's/:[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]*)"/ \1/')
  while read -r file inc; do
    [ -z "$file" ] && continue
    local top=${file%%/*} from to why=""
    if [ "$top" = src ]; then
      local rest=${file#src/}
      if [[ $rest == */* ]]; then from=${rest%%/*}; else from=base; fi
      if [[ $inc == */* ]]; then to=${inc%%/*}; else
        # A same-folder include ("track_int.h") or a top-level one.
        if [ -e "$r/src/$from/$inc" ]; then to=$from; elif [ -e "$r/src/$inc" ]; then to=base; else continue; fi
      fi
      [ "$from" = "$to" ] && continue
      [ -z "${rank[$from]+x}" ] && why="folder src/$from is not in src/LAYERS"
      [ -z "$why" ] && [ -z "${rank[$to]+x}" ] && why="folder src/$to is not in src/LAYERS"
      if [ -z "$why" ]; then
        if [ "${rank[$to]}" -gt "${rank[$from]}" ]; then why="upward: $from includes $to"
        elif [ "${rank[$to]}" -eq "${rank[$from]}" ]; then why="sideways: $from includes $to"; fi
      fi
    else
      # tools/ and examples/: the public header only (and their own files).
      [ "$inc" = unlost.h ] && continue
      [ -e "$r/$(dirname "$file")/$inc" ] && continue
      if [[ $inc == */* ]] && [ -d "$r/src/${inc%%/*}" ] || [ -e "$r/src/$inc" ]; then
        why="$top includes src/ ($inc)"
      else
        continue
      fi
    fi
    [ -z "$why" ] && continue
    local key="$file -> $inc"
    if [ -f "$debt_file" ] && grep -qxF "$key" "$debt_file"; then
      seen="$seen
$key"
      continue
    fi
    echo "layer violation: $key ($why)"
    bad=1
  done <<< "$edges"
  debt_paid "$debt_file" "$seen" layer || bad=1
  return $bad
}

# The folder of a source path relative to src/ ("core/native.c" -> core,
# "internal.h" -> base), in REPLY (no subshell: it runs for every edge).
folder_of() { case $1 in */*) REPLY=${1%%/*} ;; *) REPLY=base ;; esac; }

# check_calls ROOT EDGES: EDGES lines "user.c definer.c symbol" (paths under
# src/); prints violations, returns 1 if any.
check_calls() {
  local r=$1 edges=$2 bad=0
  declare -A rank=()
  local n=0 line w
  while IFS= read -r line; do
    line=${line%%#*}
    [ -z "${line// /}" ] && continue
    for w in $line; do rank[$w]=$n; done
    n=$((n + 1))
  done < "$r/src/LAYERS"
  local user def sym
  while read -r user def sym; do
    [ -z "$user" ] && continue
    local a b
    folder_of "$user"; a=$REPLY
    folder_of "$def"; b=$REPLY
    [ "$a" = "$b" ] && continue
    if [ -z "${rank[$a]+x}" ] || [ -z "${rank[$b]+x}" ]; then
      echo "call violation: src/$user uses $sym of src/$def (a folder not in src/LAYERS)"; bad=1; continue
    fi
    if [ "${rank[$b]}" -ge "${rank[$a]}" ]; then
      echo "call violation: src/$user uses $sym of src/$def ($([ "${rank[$b]}" -gt "${rank[$a]}" ] && echo upward || echo sideways): $a calls $b)"
      bad=1
    fi
  done <<< "$edges"
  return $bad
}

# check_doors ROOT EDGES: a door's file uses only symbols of engine/, base,
# wgpu/ and its own folder, or one listed in tests/door_debt.txt ("file
# symbol", paths under src/); prints violations and paid debt, returns 1 if
# any.
doors="api webgpu"
check_doors() {
  local r=$1 edges=$2 bad=0 seen="" user def sym line
  local debt_file="$r/tests/door_debt.txt"
  declare -A listed=()
  if [ -f "$debt_file" ]; then
    while IFS= read -r line; do listed[$line]=1; done < "$debt_file"
  fi
  while read -r user def sym; do
    [ -z "$user" ] && continue
    local a b
    folder_of "$user"; a=$REPLY
    folder_of "$def"; b=$REPLY
    [[ " $doors " == *" $a "* ]] || continue
    case $b in "$a" | engine | base | wgpu) continue ;; esac
    if [ -n "${listed[$user $sym]+x}" ]; then
      seen="$seen
$user $sym"
      continue
    fi
    echo "door violation: src/$user uses $sym of src/$def (a door uses engine/, base, wgpu/ and its own folder)"
    bad=1
  done <<< "$edges"
  debt_paid "$debt_file" "$seen" door || bad=1
  return $bad
}

# The edges of the built objects: for every symbol an object uses and
# another defines.
call_edges() {
  local dir=$1 r=$2 o
  local -a objs=()
  # Objects of sources that still exist (a build folder keeps those of files
  # since moved or removed).
  while IFS= read -r o; do
    local src=${o#*_obj.dir/src/}
    [ -f "$r/src/${src%.o}" ] && objs+=("$o")
  done < <(find "$dir" -path '*_obj.dir/src/*' -name '*.c.o' | sort)
  [ "${#objs[@]}" -gt 0 ] || return 1
  declare -A def=()
  local rel s t
  for o in "${objs[@]}"; do
    rel=${o#*_obj.dir/src/}
    rel=${rel%.o}
    while read -r _ t s; do
      case $t in T|D|B|R) def[$s]=$rel ;; esac
    done < <(nm --defined-only "$o")
  done
  for o in "${objs[@]}"; do
    rel=${o#*_obj.dir/src/}
    rel=${rel%.o}
    while read -r _ s; do
      [ -n "${def[$s]+x}" ] && [ "${def[$s]}" != "$rel" ] && echo "$rel ${def[$s]} $s"
    done < <(nm -u "$o")
  done
  return 0
}

check "$root"
rc=$?
if [ "$rc" -ne 0 ]; then echo "FAIL: the layer check found the violations above"; exit 1; fi
echo "ok   layers: every include of src/, tools/ and examples/ follows src/LAYERS (with the listed debt)"
if [ -n "$objdir" ]; then
  edges=$(call_edges "$objdir" "$root") || { echo "FAIL: no objects of src/ under $objdir (build first)"; exit 1; }
  check_calls "$root" "$edges"
  if [ $? -ne 0 ]; then echo "FAIL: the layer check found the calls above going up or sideways"; exit 1; fi
  echo "ok   calls: $(wc -l <<< "$edges") uses of one file's symbols by another go down src/LAYERS"
  check_doors "$root" "$edges"
  if [ $? -ne 0 ]; then echo "FAIL: the door check found the uses above"; exit 1; fi
  for door in $doors; do
    echo "ok   doors: src/$door/ uses only engine/, base, wgpu/ and itself, with $(grep -c "^$door/" "$root/tests/door_debt.txt") uses listed in tests/door_debt.txt"
  done
  if [ "$self_test" != --no-self-test ]; then
    if check_calls "$root" "$edges
core/native.c recover/vitals.c ul__device_health_loss" > /dev/null; then
      echo "FAIL: an upward call (core -> recover) was not caught"; exit 1
    fi
    echo "ok   self-test: an added upward call (src/core/native.c -> src/recover/vitals.c) fails the check"
    if check_calls "$root" "$edges
webgpu/wgpu_device.c api/device.c ul_device_destroy" > /dev/null; then
      echo "FAIL: a call between the doors (webgpu -> api) was not caught"; exit 1
    fi
    echo "ok   self-test: an added call between the doors (src/webgpu/wgpu_device.c -> src/api/device.c) fails the check"
    out=$(check_doors "$root" "$edges
webgpu/wgpu_queue.c core/transfer.c ul__queue_submit")
    if [ $? -eq 0 ] || ! grep -q "door violation: src/webgpu/wgpu_queue.c uses ul__queue_submit" <<< "$out"; then
      echo "FAIL: a door's call into core (webgpu -> core) was not caught"; exit 1
    fi
    echo "ok   self-test: an added call from a door into core fails the check:"
    echo "       $out"
    first=$(grep -v '^#' "$root/tests/door_debt.txt" | grep -m1 .)
    if [ -n "$first" ]; then
      if check_doors "$root" "$(grep -v "^${first%% *} [^ ]* ${first#* }\$" <<< "$edges")" > /dev/null; then
        echo "FAIL: a door debt line paid but still listed ($first) was not caught"; exit 1
      fi
      echo "ok   self-test: a door debt line paid but still listed ('$first') fails the check"
    fi
  fi
fi

if [ "$self_test" != --no-self-test ]; then
  # The check can fail: an upward include added in a copy must be caught.
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  mkdir -p "$tmp/src" "$tmp/tests"
  cp -r "$root/src/." "$tmp/src/"
  cp -r "$root/tools" "$root/examples" "$tmp/" 2>/dev/null
  cp "$root/tests/layer_debt.txt" "$tmp/tests/" 2>/dev/null
  echo '#include "recover/recover.h"' >> "$tmp/src/wgpu/procs.c"
  if check "$tmp" > "$tmp/out"; then
    echo "FAIL: an upward include (wgpu -> recover) was not caught"; exit 1
  fi
  grep -q "upward: wgpu includes recover" "$tmp/out" || { echo "FAIL: the upward include was not named"; cat "$tmp/out"; exit 1; }
  echo "ok   self-test: an added upward include (src/wgpu/procs.c -> recover) fails the check"
  cp "$root/src/wgpu/procs.c" "$tmp/src/wgpu/procs.c"
  echo '#include "health/health.h"' >> "$tmp/src/track/track.c"
  if check "$tmp" > "$tmp/out"; then echo "FAIL: a sideways include (track -> health) was not caught"; exit 1; fi
  echo "ok   self-test: an added sideways include (src/track/track.c -> health) fails the check"
fi
exit 0
