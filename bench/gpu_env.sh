# Sourced by the GPU scripts: the Vulkan loader and the GL vendor-neutral
# libraries the NVIDIA ICD needs (the .deb files in .gl/, see docs/gpu.md),
# the driver manifest, and a build in build-gpu/ (the CLI, libunlost-webgpu,
# its bench and the tests/webgpu programs the chaos harness runs).
OUT=${OUT:-bench/out}
mkdir -p "$OUT"
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
export VK_DRIVER_FILES=${VK_DRIVER_FILES:-/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json}
export XDG_RUNTIME_DIR=/tmp UNLOST_LOG=error
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=RelWithDebInfo -DUL_WERROR=OFF > "$OUT/build.log" 2>&1 &&
  cmake --build build-gpu -j "$(nproc)" >> "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
# The CLI's --json summaries and import_probe's lines are built with jansson.
grep -q 'jansson not found' "$OUT/build.log" &&
  echo "note: built without jansson: no --json summary, no import_probe (put the .deb files of libjansson4 and" \
    "libjansson-dev in .gl/ and reconfigure build-gpu)"
