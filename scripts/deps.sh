#!/usr/bin/env bash
# Installs what unlost needs to build, test and run on Debian 12. Idempotent:
# a second run changes nothing and takes a few seconds.
#   - Mesa's Vulkan drivers (lavapipe) from bookworm-backports: bookworm's own
#     Mesa 22.3 is rejected by Dawn, which then falls back to its Null backend.
#   - the Vulkan loader, the build tools, pahole (ABI test), doxygen,
#     libmicrohttpd (serve), jansson (report), chromium (the page's browser test)
#   - the pinned Dawn build from npm (package-lock.json carries its integrity)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi

need_pkgs="cmake make gcc pkg-config libvulkan1 dwarves curl libmicrohttpd-dev libjansson-dev chromium doxygen"
missing=""
for p in $need_pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done

mesa_ok() {
  local v
  v=$(dpkg-query -W -f='${Version}' mesa-vulkan-drivers 2>/dev/null || true)
  [ -n "$v" ] && dpkg --compare-versions "$v" ge 24
}

# Adds bookworm-backports next to the mirror apt already uses for bookworm.
add_backports() {
  if grep -rqs "bookworm-backports" /etc/apt/sources.list /etc/apt/sources.list.d/; then
    return 0
  fi
  local uri=""
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    uri=$(awk '/^URIs:/{u=$2} /^Suites:/{ if ($0 ~ /bookworm( |$)/ && u != "" && u !~ /security/) { print u; exit } }' \
          /etc/apt/sources.list.d/debian.sources)
  fi
  if [ -z "$uri" ] && [ -f /etc/apt/sources.list ]; then
    uri=$(awk '$1=="deb" && $3=="bookworm" {print $2; exit}' /etc/apt/sources.list)
  fi
  if [ -z "$uri" ]; then
    echo "deps: cannot find the Debian mirror apt uses for bookworm; add bookworm-backports to apt's sources by hand" >&2
    exit 1
  fi
  echo "deps: adding bookworm-backports ($uri)"
  printf 'Types: deb\nURIs: %s\nSuites: bookworm-backports\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' "$uri" \
    | $SUDO tee /etc/apt/sources.list.d/bookworm-backports.sources >/dev/null
}

if [ -n "$missing" ] || ! mesa_ok; then
  add_backports
  $SUDO apt-get update -qq
  if [ -n "$missing" ]; then
    echo "deps: installing$missing"
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
  fi
  if ! mesa_ok; then
    have=$(dpkg-query -W -f='${Version}' mesa-vulkan-drivers 2>/dev/null || true)
    if [ -n "$have" ]; then
      echo "deps: upgrading the system's mesa-vulkan-drivers $have to bookworm-backports' (Dawn rejects Mesa 22)"
    else
      echo "deps: installing mesa-vulkan-drivers from bookworm-backports"
    fi
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq -t bookworm-backports mesa-vulkan-drivers >/dev/null
  fi
fi

# npm (to install the pinned Dawn) when the machine has none.
if ! command -v npm >/dev/null 2>&1; then
  echo "deps: installing npm"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq npm >/dev/null
fi

# Dawn, pinned by version and integrity in package-lock.json.
lib="$here/third_party/dawn/node_modules/bun-webgpu-linux-x64/libwebgpu_wrapper.so"
if [ ! -f "$lib" ]; then
  echo "deps: installing the pinned Dawn package (npm ci)"
  (cd "$here/third_party/dawn" && npm ci --ignore-scripts --no-audit --no-fund --silent)
fi
[ -f "$lib" ] || { echo "deps: $lib missing after npm ci" >&2; exit 1; }
echo "deps: ok (mesa $(dpkg-query -W -f='${Version}' mesa-vulkan-drivers), dawn $(cd "$here/third_party/dawn" && node -p "require('./package-lock.json').packages['node_modules/bun-webgpu-linux-x64'].version"))"
