/* Programs built on another revision of webgpu.h. This layer reads the
 * program's structs and enums with the layout of UL__WGPU_REVISION; the
 * stable webgpu.h that programs are built on today has another instance
 * descriptor and other values for texture formats, features and sTypes
 * (docs/webgpu.md, "Header revisions"). Read with the wrong layout they
 * would be taken for other formats and features, so such a program is
 * refused loudly, never misread: the entry points only the stable header
 * declares are defined here as tells (a call to one says which header the
 * program was built on, and never reaches the implementation with one of
 * the layer's objects), and wgpuCreateInstance reads the tell of the
 * instance descriptor's layout (instance.c). After a tell, every new
 * instance and adapter request is refused. */
#include "webgpu/wg.h"

static _Atomic bool foreign;

void ul__wg_foreign(const char *tell) {
  if (atomic_exchange(&foreign, true)) return;
  ul__log(UL__LOG_ERROR,
          "%s: the program was built on " UL__WGPU_REVISION_OTHER ", and this libunlost-webgpu for "
          UL__WGPU_REVISION ": their instance descriptors, texture formats and features differ, and the program's "
          "structs would be misread, so its instances are refused; build unlost against the program's webgpu.h, "
          "or the program against unlost's (pkg-config --cflags unlost-webgpu)",
          tell);
}

bool ul__wg_foreign_seen(void) { return atomic_load(&foreign); }

#if !UL_WGPU_STABLE /* built on the stable header, these are its own (instance.c, refused.c) */

/* The stable header's lists and limits of instance features, by layout
 * (its types are not this revision's). */
typedef struct stable_instance_features {
  size_t featureCount;
  const uint32_t *features;
} stable_instance_features;

/* Exported, declared by no header of this revision. */
WGPUStatus wgpuGetInstanceFeatures(stable_instance_features *features);
WGPUStatus wgpuGetInstanceLimits(void *limits);
WGPUBool wgpuHasInstanceFeature(uint32_t feature);
void wgpuSupportedInstanceFeaturesFreeMembers(stable_instance_features features);
uint32_t wgpuTextureGetTextureBindingViewDimension(WGPUTexture texture);
void wgpuComputePassEncoderSetImmediates(WGPUComputePassEncoder pass, uint32_t offset, const void *data, size_t size);
void wgpuRenderPassEncoderSetImmediates(void *pass, uint32_t offset, const void *data, size_t size);
void wgpuRenderBundleEncoderSetImmediates(void *bundle, uint32_t offset, const void *data, size_t size);

UL__WG_EXPORT WGPUStatus wgpuGetInstanceFeatures(stable_instance_features *features) {
  ul__wg_foreign("wgpuGetInstanceFeatures");
  if (features) *features = (stable_instance_features){0, NULL};
  return WGPUStatus_Error;
}

UL__WG_EXPORT WGPUStatus wgpuGetInstanceLimits(void *limits) {
  UL__UNUSED(limits);
  ul__wg_foreign("wgpuGetInstanceLimits");
  return WGPUStatus_Error;
}

UL__WG_EXPORT WGPUBool wgpuHasInstanceFeature(uint32_t feature) {
  UL__UNUSED(feature);
  ul__wg_foreign("wgpuHasInstanceFeature");
  return 0;
}

UL__WG_EXPORT void wgpuSupportedInstanceFeaturesFreeMembers(stable_instance_features features) {
  /* Never filled by the layer: nothing to free. */
  UL__UNUSED(features);
  ul__wg_foreign("wgpuSupportedInstanceFeaturesFreeMembers");
}

UL__WG_EXPORT uint32_t wgpuTextureGetTextureBindingViewDimension(WGPUTexture texture) {
  ul__wg_check(texture, UL__WG_TEXTURE, "wgpuTextureGetTextureBindingViewDimension");
  ul__wg_foreign("wgpuTextureGetTextureBindingViewDimension");
  return 0; /* Undefined */
}

UL__WG_EXPORT void wgpuComputePassEncoderSetImmediates(WGPUComputePassEncoder pass, uint32_t offset, const void *data,
                                                      size_t size) {
  UL__UNUSED(offset), UL__UNUSED(data), UL__UNUSED(size);
  ul__wg_check(pass, UL__WG_PASS, "wgpuComputePassEncoderSetImmediates");
  ul__wg_foreign("wgpuComputePassEncoderSetImmediates");
}

/* Render passes and bundles are never the layer's (refused.c): their
 * handles are not followed. */
UL__WG_EXPORT void wgpuRenderPassEncoderSetImmediates(void *pass, uint32_t offset, const void *data, size_t size) {
  UL__UNUSED(pass), UL__UNUSED(offset), UL__UNUSED(data), UL__UNUSED(size);
  ul__wg_foreign("wgpuRenderPassEncoderSetImmediates");
}

UL__WG_EXPORT void wgpuRenderBundleEncoderSetImmediates(void *bundle, uint32_t offset, const void *data, size_t size) {
  UL__UNUSED(bundle), UL__UNUSED(offset), UL__UNUSED(data), UL__UNUSED(size);
  ul__wg_foreign("wgpuRenderBundleEncoderSetImmediates");
}
#endif
