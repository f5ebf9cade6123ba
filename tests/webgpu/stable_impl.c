/* A stand-in for a webgpu.h implementation built on the stable header
 * (webgpu-native/webgpu-headers, September 2025 on): it exports the entry
 * points that tell that revision (wgpuGetInstanceFeatures, and no
 * wgpuGetInstanceCapabilities) and wgpuCreateInstance. No such
 * implementation can run here (the pinned Dawn is the June 2025 one), so
 * webgpu_revision_impl loads this one: libunlost-webgpu must refuse it at
 * load, before any call reaches it. */
#include <stddef.h>

void *wgpuCreateInstance(const void *descriptor);
int wgpuGetInstanceFeatures(void *features);

void *wgpuCreateInstance(const void *descriptor) {
  (void)descriptor;
  return NULL;
}

int wgpuGetInstanceFeatures(void *features) {
  (void)features;
  return 2; /* WGPUStatus_Error */
}
