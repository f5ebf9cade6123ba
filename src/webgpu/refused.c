/* The entry points of the implementation that unlost-webgpu does not
 * carry -- render pipelines, passes and bundles, surfaces, shared memory
 * and fences, external textures, copies for browsers: a compute library has
 * nothing of them to recover. Each is defined, so that a program's call
 * never reaches the implementation with one of the layer's objects, and
 * refuses with the API's own error path: a validation error on the device
 * it names (or a log line when it names none), an error status, a future
 * answered with an error, NULL for an object. docs/webgpu.md lists them.
 * Written from the list of wgpu/wgpu_api.h by the same script. */
#include "webgpu/wg.h"

/* The device a call names through its first handle, when it is one of the
 * layer's devices or objects (quietly: the refusal is the message). */
static ul__wg_device *device_of(const void *h) {
  const ul__wg_obj *o = h;
  if (!o || o->magic != UL__WG_MAGIC) return NULL;
  if (o->kind == UL__WG_DEVICE) return (ul__wg_device *)o;
  return o->dev;
}

static void refuse(const void *h, const char *what) {
  ul__wg_device *dv = device_of(h);
  if (dv && atomic_load(&dv->h.total) > 0)
    ul__wg_error(dv, WGPUErrorType_Validation, "%s is not supported by unlost-webgpu (it recovers compute work only)",
                 what);
  else
    ul__log(UL__LOG_WARN, "%s is not supported by unlost-webgpu (it recovers compute work only)", what);
}

UL__WG_EXPORT void wgpuAdapterPropertiesMemoryHeapsFreeMembers(WGPUAdapterPropertiesMemoryHeaps adapterPropertiesMemoryHeaps) {
  /* unlost never hands one out: nothing to free. */
  UL__UNUSED(adapterPropertiesMemoryHeaps);
}

UL__WG_EXPORT void wgpuAdapterPropertiesSubgroupMatrixConfigsFreeMembers(WGPUAdapterPropertiesSubgroupMatrixConfigs adapterPropertiesSubgroupMatrixConfigs) {
  /* unlost never hands one out: nothing to free. */
  UL__UNUSED(adapterPropertiesSubgroupMatrixConfigs);
}

UL__WG_EXPORT void wgpuDawnDrmFormatCapabilitiesFreeMembers(WGPUDawnDrmFormatCapabilities dawnDrmFormatCapabilities) {
  /* unlost never hands one out: nothing to free. */
  UL__UNUSED(dawnDrmFormatCapabilities);
}

UL__WG_EXPORT WGPUExternalTexture wgpuDeviceCreateErrorExternalTexture(WGPUDevice device) {
  refuse(device, "wgpuDeviceCreateErrorExternalTexture");
  return NULL;
}

UL__WG_EXPORT WGPUExternalTexture wgpuDeviceCreateExternalTexture(WGPUDevice device, const WGPUExternalTextureDescriptor *externalTextureDescriptor) {
  UL__UNUSED(externalTextureDescriptor);
  refuse(device, "wgpuDeviceCreateExternalTexture");
  return NULL;
}

UL__WG_EXPORT WGPURenderBundleEncoder wgpuDeviceCreateRenderBundleEncoder(WGPUDevice device, const WGPURenderBundleEncoderDescriptor *descriptor) {
  UL__UNUSED(descriptor);
  refuse(device, "wgpuDeviceCreateRenderBundleEncoder");
  return NULL;
}

UL__WG_EXPORT WGPURenderPipeline wgpuDeviceCreateRenderPipeline(WGPUDevice device, const WGPURenderPipelineDescriptor *descriptor) {
  UL__UNUSED(descriptor);
  refuse(device, "wgpuDeviceCreateRenderPipeline");
  return NULL;
}

UL__WG_EXPORT WGPUFuture wgpuDeviceCreateRenderPipelineAsync(WGPUDevice device, const WGPURenderPipelineDescriptor *descriptor, WGPUCreateRenderPipelineAsyncCallbackInfo callbackInfo) {
  UL__UNUSED(descriptor);
  UL__UNUSED(callbackInfo);
  refuse(device, "wgpuDeviceCreateRenderPipelineAsync");
  ul__wg_device *dv = device_of(device);
  if (!dv || !callbackInfo.callback) return (WGPUFuture){0};
  ul__wg_future *f = ul__wg_future_new(dv->instance, UL__WGF_PIPELINE, callbackInfo.mode, (void *)callbackInfo.callback, callbackInfo.userdata1,
                                       callbackInfo.userdata2);
  if (!f) return (WGPUFuture){0};
  WGPUFuture id = ul__wg_future_id(f);
  ul__wg_future_resolve(dv->instance, f, WGPUCreatePipelineAsyncStatus_ValidationError, 0, NULL,
                        "wgpuDeviceCreateRenderPipelineAsync is not supported by unlost-webgpu");
  return id;
}

UL__WG_EXPORT WGPUStatus wgpuDeviceGetAHardwareBufferProperties(WGPUDevice device, void *handle, WGPUAHardwareBufferProperties *properties) {
  UL__UNUSED(handle);
  UL__UNUSED(properties);
  refuse(device, "wgpuDeviceGetAHardwareBufferProperties");
  return WGPUStatus_Error;
}

UL__WG_EXPORT WGPUSharedBufferMemory wgpuDeviceImportSharedBufferMemory(WGPUDevice device, const WGPUSharedBufferMemoryDescriptor *descriptor) {
  UL__UNUSED(descriptor);
  refuse(device, "wgpuDeviceImportSharedBufferMemory");
  return NULL;
}

UL__WG_EXPORT WGPUSharedFence wgpuDeviceImportSharedFence(WGPUDevice device, const WGPUSharedFenceDescriptor *descriptor) {
  UL__UNUSED(descriptor);
  refuse(device, "wgpuDeviceImportSharedFence");
  return NULL;
}

UL__WG_EXPORT WGPUSharedTextureMemory wgpuDeviceImportSharedTextureMemory(WGPUDevice device, const WGPUSharedTextureMemoryDescriptor *descriptor) {
  UL__UNUSED(descriptor);
  refuse(device, "wgpuDeviceImportSharedTextureMemory");
  return NULL;
}

UL__WG_EXPORT void wgpuDeviceSetLoggingCallback(WGPUDevice device, WGPULoggingCallbackInfo callbackInfo) {
  UL__UNUSED(callbackInfo);
  refuse(device, "wgpuDeviceSetLoggingCallback");
}

UL__WG_EXPORT void wgpuDeviceValidateTextureDescriptor(WGPUDevice device, const WGPUTextureDescriptor *descriptor) {
  UL__UNUSED(descriptor);
  refuse(device, "wgpuDeviceValidateTextureDescriptor");
}

UL__WG_EXPORT void wgpuExternalTextureAddRef(WGPUExternalTexture externalTexture) {
  refuse(externalTexture, "wgpuExternalTextureAddRef");
}

UL__WG_EXPORT void wgpuExternalTextureDestroy(WGPUExternalTexture externalTexture) {
  refuse(externalTexture, "wgpuExternalTextureDestroy");
}

UL__WG_EXPORT void wgpuExternalTextureExpire(WGPUExternalTexture externalTexture) {
  refuse(externalTexture, "wgpuExternalTextureExpire");
}

UL__WG_EXPORT void wgpuExternalTextureRefresh(WGPUExternalTexture externalTexture) {
  refuse(externalTexture, "wgpuExternalTextureRefresh");
}

UL__WG_EXPORT void wgpuExternalTextureRelease(WGPUExternalTexture externalTexture) {
  refuse(externalTexture, "wgpuExternalTextureRelease");
}

UL__WG_EXPORT void wgpuExternalTextureSetLabel(WGPUExternalTexture externalTexture, WGPUStringView label) {
  UL__UNUSED(label);
  refuse(externalTexture, "wgpuExternalTextureSetLabel");
}

UL__WG_EXPORT WGPUSurface wgpuInstanceCreateSurface(WGPUInstance instance, const WGPUSurfaceDescriptor *descriptor) {
  UL__UNUSED(descriptor);
  refuse(instance, "wgpuInstanceCreateSurface");
  return NULL;
}

UL__WG_EXPORT void wgpuQueueCopyExternalTextureForBrowser(WGPUQueue queue, const WGPUImageCopyExternalTexture *source, const WGPUTexelCopyTextureInfo *destination, const WGPUExtent3D *copySize, const WGPUCopyTextureForBrowserOptions *options) {
  UL__UNUSED(source);
  UL__UNUSED(destination);
  UL__UNUSED(copySize);
  UL__UNUSED(options);
  refuse(queue, "wgpuQueueCopyExternalTextureForBrowser");
}

UL__WG_EXPORT void wgpuQueueCopyTextureForBrowser(WGPUQueue queue, const WGPUTexelCopyTextureInfo *source, const WGPUTexelCopyTextureInfo *destination, const WGPUExtent3D *copySize, const WGPUCopyTextureForBrowserOptions *options) {
  UL__UNUSED(source);
  UL__UNUSED(destination);
  UL__UNUSED(copySize);
  UL__UNUSED(options);
  refuse(queue, "wgpuQueueCopyTextureForBrowser");
}

UL__WG_EXPORT void wgpuRenderBundleAddRef(WGPURenderBundle renderBundle) {
  refuse(renderBundle, "wgpuRenderBundleAddRef");
}

UL__WG_EXPORT void wgpuRenderBundleEncoderAddRef(WGPURenderBundleEncoder renderBundleEncoder) {
  refuse(renderBundleEncoder, "wgpuRenderBundleEncoderAddRef");
}

UL__WG_EXPORT void wgpuRenderBundleEncoderDraw(WGPURenderBundleEncoder renderBundleEncoder, uint32_t vertexCount, uint32_t instanceCount, uint32_t firstVertex, uint32_t firstInstance) {
  UL__UNUSED(vertexCount);
  UL__UNUSED(instanceCount);
  UL__UNUSED(firstVertex);
  UL__UNUSED(firstInstance);
  refuse(renderBundleEncoder, "wgpuRenderBundleEncoderDraw");
}

UL__WG_EXPORT void wgpuRenderBundleEncoderDrawIndexed(WGPURenderBundleEncoder renderBundleEncoder, uint32_t indexCount, uint32_t instanceCount, uint32_t firstIndex, int32_t baseVertex, uint32_t firstInstance) {
  UL__UNUSED(indexCount);
  UL__UNUSED(instanceCount);
  UL__UNUSED(firstIndex);
  UL__UNUSED(baseVertex);
  UL__UNUSED(firstInstance);
  refuse(renderBundleEncoder, "wgpuRenderBundleEncoderDrawIndexed");
}

UL__WG_EXPORT void wgpuRenderBundleEncoderDrawIndexedIndirect(WGPURenderBundleEncoder renderBundleEncoder, WGPUBuffer indirectBuffer, uint64_t indirectOffset) {
  UL__UNUSED(indirectBuffer);
  UL__UNUSED(indirectOffset);
  refuse(renderBundleEncoder, "wgpuRenderBundleEncoderDrawIndexedIndirect");
}

UL__WG_EXPORT void wgpuRenderBundleEncoderDrawIndirect(WGPURenderBundleEncoder renderBundleEncoder, WGPUBuffer indirectBuffer, uint64_t indirectOffset) {
  UL__UNUSED(indirectBuffer);
  UL__UNUSED(indirectOffset);
  refuse(renderBundleEncoder, "wgpuRenderBundleEncoderDrawIndirect");
}

UL__WG_EXPORT WGPURenderBundle wgpuRenderBundleEncoderFinish(WGPURenderBundleEncoder renderBundleEncoder, const WGPURenderBundleDescriptor *descriptor) {
  UL__UNUSED(descriptor);
  refuse(renderBundleEncoder, "wgpuRenderBundleEncoderFinish");
  return NULL;
}

UL__WG_EXPORT void wgpuRenderBundleEncoderInsertDebugMarker(WGPURenderBundleEncoder renderBundleEncoder, WGPUStringView markerLabel) {
  UL__UNUSED(markerLabel);
  refuse(renderBundleEncoder, "wgpuRenderBundleEncoderInsertDebugMarker");
}

UL__WG_EXPORT void wgpuRenderBundleEncoderPopDebugGroup(WGPURenderBundleEncoder renderBundleEncoder) {
  refuse(renderBundleEncoder, "wgpuRenderBundleEncoderPopDebugGroup");
}

UL__WG_EXPORT void wgpuRenderBundleEncoderPushDebugGroup(WGPURenderBundleEncoder renderBundleEncoder, WGPUStringView groupLabel) {
  UL__UNUSED(groupLabel);
  refuse(renderBundleEncoder, "wgpuRenderBundleEncoderPushDebugGroup");
}

UL__WG_EXPORT void wgpuRenderBundleEncoderRelease(WGPURenderBundleEncoder renderBundleEncoder) {
  refuse(renderBundleEncoder, "wgpuRenderBundleEncoderRelease");
}

UL__WG_EXPORT void wgpuRenderBundleEncoderSetBindGroup(WGPURenderBundleEncoder renderBundleEncoder, uint32_t groupIndex, WGPUBindGroup group, size_t dynamicOffsetCount, const uint32_t *dynamicOffsets) {
  UL__UNUSED(groupIndex);
  UL__UNUSED(group);
  UL__UNUSED(dynamicOffsetCount);
  UL__UNUSED(dynamicOffsets);
  refuse(renderBundleEncoder, "wgpuRenderBundleEncoderSetBindGroup");
}

UL__WG_EXPORT void wgpuRenderBundleEncoderSetImmediateData(WGPURenderBundleEncoder renderBundleEncoder, uint32_t offset, const void *data, size_t size) {
  UL__UNUSED(offset);
  UL__UNUSED(data);
  UL__UNUSED(size);
  refuse(renderBundleEncoder, "wgpuRenderBundleEncoderSetImmediateData");
}

UL__WG_EXPORT void wgpuRenderBundleEncoderSetIndexBuffer(WGPURenderBundleEncoder renderBundleEncoder, WGPUBuffer buffer, WGPUIndexFormat format, uint64_t offset, uint64_t size) {
  UL__UNUSED(buffer);
  UL__UNUSED(format);
  UL__UNUSED(offset);
  UL__UNUSED(size);
  refuse(renderBundleEncoder, "wgpuRenderBundleEncoderSetIndexBuffer");
}

UL__WG_EXPORT void wgpuRenderBundleEncoderSetLabel(WGPURenderBundleEncoder renderBundleEncoder, WGPUStringView label) {
  UL__UNUSED(label);
  refuse(renderBundleEncoder, "wgpuRenderBundleEncoderSetLabel");
}

UL__WG_EXPORT void wgpuRenderBundleEncoderSetPipeline(WGPURenderBundleEncoder renderBundleEncoder, WGPURenderPipeline pipeline) {
  UL__UNUSED(pipeline);
  refuse(renderBundleEncoder, "wgpuRenderBundleEncoderSetPipeline");
}

UL__WG_EXPORT void wgpuRenderBundleEncoderSetVertexBuffer(WGPURenderBundleEncoder renderBundleEncoder, uint32_t slot, WGPUBuffer buffer, uint64_t offset, uint64_t size) {
  UL__UNUSED(slot);
  UL__UNUSED(buffer);
  UL__UNUSED(offset);
  UL__UNUSED(size);
  refuse(renderBundleEncoder, "wgpuRenderBundleEncoderSetVertexBuffer");
}

UL__WG_EXPORT void wgpuRenderBundleRelease(WGPURenderBundle renderBundle) {
  refuse(renderBundle, "wgpuRenderBundleRelease");
}

UL__WG_EXPORT void wgpuRenderBundleSetLabel(WGPURenderBundle renderBundle, WGPUStringView label) {
  UL__UNUSED(label);
  refuse(renderBundle, "wgpuRenderBundleSetLabel");
}

UL__WG_EXPORT void wgpuRenderPassEncoderAddRef(WGPURenderPassEncoder renderPassEncoder) {
  refuse(renderPassEncoder, "wgpuRenderPassEncoderAddRef");
}

UL__WG_EXPORT void wgpuRenderPassEncoderBeginOcclusionQuery(WGPURenderPassEncoder renderPassEncoder, uint32_t queryIndex) {
  UL__UNUSED(queryIndex);
  refuse(renderPassEncoder, "wgpuRenderPassEncoderBeginOcclusionQuery");
}

UL__WG_EXPORT void wgpuRenderPassEncoderDraw(WGPURenderPassEncoder renderPassEncoder, uint32_t vertexCount, uint32_t instanceCount, uint32_t firstVertex, uint32_t firstInstance) {
  UL__UNUSED(vertexCount);
  UL__UNUSED(instanceCount);
  UL__UNUSED(firstVertex);
  UL__UNUSED(firstInstance);
  refuse(renderPassEncoder, "wgpuRenderPassEncoderDraw");
}

UL__WG_EXPORT void wgpuRenderPassEncoderDrawIndexed(WGPURenderPassEncoder renderPassEncoder, uint32_t indexCount, uint32_t instanceCount, uint32_t firstIndex, int32_t baseVertex, uint32_t firstInstance) {
  UL__UNUSED(indexCount);
  UL__UNUSED(instanceCount);
  UL__UNUSED(firstIndex);
  UL__UNUSED(baseVertex);
  UL__UNUSED(firstInstance);
  refuse(renderPassEncoder, "wgpuRenderPassEncoderDrawIndexed");
}

UL__WG_EXPORT void wgpuRenderPassEncoderDrawIndexedIndirect(WGPURenderPassEncoder renderPassEncoder, WGPUBuffer indirectBuffer, uint64_t indirectOffset) {
  UL__UNUSED(indirectBuffer);
  UL__UNUSED(indirectOffset);
  refuse(renderPassEncoder, "wgpuRenderPassEncoderDrawIndexedIndirect");
}

UL__WG_EXPORT void wgpuRenderPassEncoderDrawIndirect(WGPURenderPassEncoder renderPassEncoder, WGPUBuffer indirectBuffer, uint64_t indirectOffset) {
  UL__UNUSED(indirectBuffer);
  UL__UNUSED(indirectOffset);
  refuse(renderPassEncoder, "wgpuRenderPassEncoderDrawIndirect");
}

UL__WG_EXPORT void wgpuRenderPassEncoderEnd(WGPURenderPassEncoder renderPassEncoder) {
  refuse(renderPassEncoder, "wgpuRenderPassEncoderEnd");
}

UL__WG_EXPORT void wgpuRenderPassEncoderEndOcclusionQuery(WGPURenderPassEncoder renderPassEncoder) {
  refuse(renderPassEncoder, "wgpuRenderPassEncoderEndOcclusionQuery");
}

UL__WG_EXPORT void wgpuRenderPassEncoderExecuteBundles(WGPURenderPassEncoder renderPassEncoder, size_t bundleCount, const WGPURenderBundle *bundles) {
  UL__UNUSED(bundleCount);
  UL__UNUSED(bundles);
  refuse(renderPassEncoder, "wgpuRenderPassEncoderExecuteBundles");
}

UL__WG_EXPORT void wgpuRenderPassEncoderInsertDebugMarker(WGPURenderPassEncoder renderPassEncoder, WGPUStringView markerLabel) {
  UL__UNUSED(markerLabel);
  refuse(renderPassEncoder, "wgpuRenderPassEncoderInsertDebugMarker");
}

UL__WG_EXPORT void wgpuRenderPassEncoderMultiDrawIndexedIndirect(WGPURenderPassEncoder renderPassEncoder, WGPUBuffer indirectBuffer, uint64_t indirectOffset, uint32_t maxDrawCount, WGPUBuffer drawCountBuffer, uint64_t drawCountBufferOffset) {
  UL__UNUSED(indirectBuffer);
  UL__UNUSED(indirectOffset);
  UL__UNUSED(maxDrawCount);
  UL__UNUSED(drawCountBuffer);
  UL__UNUSED(drawCountBufferOffset);
  refuse(renderPassEncoder, "wgpuRenderPassEncoderMultiDrawIndexedIndirect");
}

UL__WG_EXPORT void wgpuRenderPassEncoderMultiDrawIndirect(WGPURenderPassEncoder renderPassEncoder, WGPUBuffer indirectBuffer, uint64_t indirectOffset, uint32_t maxDrawCount, WGPUBuffer drawCountBuffer, uint64_t drawCountBufferOffset) {
  UL__UNUSED(indirectBuffer);
  UL__UNUSED(indirectOffset);
  UL__UNUSED(maxDrawCount);
  UL__UNUSED(drawCountBuffer);
  UL__UNUSED(drawCountBufferOffset);
  refuse(renderPassEncoder, "wgpuRenderPassEncoderMultiDrawIndirect");
}

UL__WG_EXPORT void wgpuRenderPassEncoderPixelLocalStorageBarrier(WGPURenderPassEncoder renderPassEncoder) {
  refuse(renderPassEncoder, "wgpuRenderPassEncoderPixelLocalStorageBarrier");
}

UL__WG_EXPORT void wgpuRenderPassEncoderPopDebugGroup(WGPURenderPassEncoder renderPassEncoder) {
  refuse(renderPassEncoder, "wgpuRenderPassEncoderPopDebugGroup");
}

UL__WG_EXPORT void wgpuRenderPassEncoderPushDebugGroup(WGPURenderPassEncoder renderPassEncoder, WGPUStringView groupLabel) {
  UL__UNUSED(groupLabel);
  refuse(renderPassEncoder, "wgpuRenderPassEncoderPushDebugGroup");
}

UL__WG_EXPORT void wgpuRenderPassEncoderRelease(WGPURenderPassEncoder renderPassEncoder) {
  refuse(renderPassEncoder, "wgpuRenderPassEncoderRelease");
}

UL__WG_EXPORT void wgpuRenderPassEncoderSetBindGroup(WGPURenderPassEncoder renderPassEncoder, uint32_t groupIndex, WGPUBindGroup group, size_t dynamicOffsetCount, const uint32_t *dynamicOffsets) {
  UL__UNUSED(groupIndex);
  UL__UNUSED(group);
  UL__UNUSED(dynamicOffsetCount);
  UL__UNUSED(dynamicOffsets);
  refuse(renderPassEncoder, "wgpuRenderPassEncoderSetBindGroup");
}

UL__WG_EXPORT void wgpuRenderPassEncoderSetBlendConstant(WGPURenderPassEncoder renderPassEncoder, const WGPUColor *color) {
  UL__UNUSED(color);
  refuse(renderPassEncoder, "wgpuRenderPassEncoderSetBlendConstant");
}

UL__WG_EXPORT void wgpuRenderPassEncoderSetImmediateData(WGPURenderPassEncoder renderPassEncoder, uint32_t offset, const void *data, size_t size) {
  UL__UNUSED(offset);
  UL__UNUSED(data);
  UL__UNUSED(size);
  refuse(renderPassEncoder, "wgpuRenderPassEncoderSetImmediateData");
}

UL__WG_EXPORT void wgpuRenderPassEncoderSetIndexBuffer(WGPURenderPassEncoder renderPassEncoder, WGPUBuffer buffer, WGPUIndexFormat format, uint64_t offset, uint64_t size) {
  UL__UNUSED(buffer);
  UL__UNUSED(format);
  UL__UNUSED(offset);
  UL__UNUSED(size);
  refuse(renderPassEncoder, "wgpuRenderPassEncoderSetIndexBuffer");
}

UL__WG_EXPORT void wgpuRenderPassEncoderSetLabel(WGPURenderPassEncoder renderPassEncoder, WGPUStringView label) {
  UL__UNUSED(label);
  refuse(renderPassEncoder, "wgpuRenderPassEncoderSetLabel");
}

UL__WG_EXPORT void wgpuRenderPassEncoderSetPipeline(WGPURenderPassEncoder renderPassEncoder, WGPURenderPipeline pipeline) {
  UL__UNUSED(pipeline);
  refuse(renderPassEncoder, "wgpuRenderPassEncoderSetPipeline");
}

UL__WG_EXPORT void wgpuRenderPassEncoderSetScissorRect(WGPURenderPassEncoder renderPassEncoder, uint32_t x, uint32_t y, uint32_t width, uint32_t height) {
  UL__UNUSED(x);
  UL__UNUSED(y);
  UL__UNUSED(width);
  UL__UNUSED(height);
  refuse(renderPassEncoder, "wgpuRenderPassEncoderSetScissorRect");
}

UL__WG_EXPORT void wgpuRenderPassEncoderSetStencilReference(WGPURenderPassEncoder renderPassEncoder, uint32_t reference) {
  UL__UNUSED(reference);
  refuse(renderPassEncoder, "wgpuRenderPassEncoderSetStencilReference");
}

UL__WG_EXPORT void wgpuRenderPassEncoderSetVertexBuffer(WGPURenderPassEncoder renderPassEncoder, uint32_t slot, WGPUBuffer buffer, uint64_t offset, uint64_t size) {
  UL__UNUSED(slot);
  UL__UNUSED(buffer);
  UL__UNUSED(offset);
  UL__UNUSED(size);
  refuse(renderPassEncoder, "wgpuRenderPassEncoderSetVertexBuffer");
}

UL__WG_EXPORT void wgpuRenderPassEncoderSetViewport(WGPURenderPassEncoder renderPassEncoder, float x, float y, float width, float height, float minDepth, float maxDepth) {
  UL__UNUSED(x);
  UL__UNUSED(y);
  UL__UNUSED(width);
  UL__UNUSED(height);
  UL__UNUSED(minDepth);
  UL__UNUSED(maxDepth);
  refuse(renderPassEncoder, "wgpuRenderPassEncoderSetViewport");
}

UL__WG_EXPORT void wgpuRenderPassEncoderWriteTimestamp(WGPURenderPassEncoder renderPassEncoder, WGPUQuerySet querySet, uint32_t queryIndex) {
  UL__UNUSED(querySet);
  UL__UNUSED(queryIndex);
  refuse(renderPassEncoder, "wgpuRenderPassEncoderWriteTimestamp");
}

UL__WG_EXPORT void wgpuRenderPipelineAddRef(WGPURenderPipeline renderPipeline) {
  refuse(renderPipeline, "wgpuRenderPipelineAddRef");
}

UL__WG_EXPORT WGPUBindGroupLayout wgpuRenderPipelineGetBindGroupLayout(WGPURenderPipeline renderPipeline, uint32_t groupIndex) {
  UL__UNUSED(groupIndex);
  refuse(renderPipeline, "wgpuRenderPipelineGetBindGroupLayout");
  return NULL;
}

UL__WG_EXPORT void wgpuRenderPipelineRelease(WGPURenderPipeline renderPipeline) {
  refuse(renderPipeline, "wgpuRenderPipelineRelease");
}

UL__WG_EXPORT void wgpuRenderPipelineSetLabel(WGPURenderPipeline renderPipeline, WGPUStringView label) {
  UL__UNUSED(label);
  refuse(renderPipeline, "wgpuRenderPipelineSetLabel");
}

UL__WG_EXPORT void wgpuSharedBufferMemoryAddRef(WGPUSharedBufferMemory sharedBufferMemory) {
  refuse(sharedBufferMemory, "wgpuSharedBufferMemoryAddRef");
}

UL__WG_EXPORT WGPUStatus wgpuSharedBufferMemoryBeginAccess(WGPUSharedBufferMemory sharedBufferMemory, WGPUBuffer buffer, const WGPUSharedBufferMemoryBeginAccessDescriptor *descriptor) {
  UL__UNUSED(buffer);
  UL__UNUSED(descriptor);
  refuse(sharedBufferMemory, "wgpuSharedBufferMemoryBeginAccess");
  return WGPUStatus_Error;
}

UL__WG_EXPORT WGPUBuffer wgpuSharedBufferMemoryCreateBuffer(WGPUSharedBufferMemory sharedBufferMemory, const WGPUBufferDescriptor *descriptor) {
  UL__UNUSED(descriptor);
  refuse(sharedBufferMemory, "wgpuSharedBufferMemoryCreateBuffer");
  return NULL;
}

UL__WG_EXPORT WGPUStatus wgpuSharedBufferMemoryEndAccess(WGPUSharedBufferMemory sharedBufferMemory, WGPUBuffer buffer, WGPUSharedBufferMemoryEndAccessState *descriptor) {
  UL__UNUSED(buffer);
  UL__UNUSED(descriptor);
  refuse(sharedBufferMemory, "wgpuSharedBufferMemoryEndAccess");
  return WGPUStatus_Error;
}

UL__WG_EXPORT void wgpuSharedBufferMemoryEndAccessStateFreeMembers(WGPUSharedBufferMemoryEndAccessState sharedBufferMemoryEndAccessState) {
  /* unlost never hands one out: nothing to free. */
  UL__UNUSED(sharedBufferMemoryEndAccessState);
}

UL__WG_EXPORT WGPUStatus wgpuSharedBufferMemoryGetProperties(WGPUSharedBufferMemory sharedBufferMemory, WGPUSharedBufferMemoryProperties *properties) {
  UL__UNUSED(properties);
  refuse(sharedBufferMemory, "wgpuSharedBufferMemoryGetProperties");
  return WGPUStatus_Error;
}

UL__WG_EXPORT WGPUBool wgpuSharedBufferMemoryIsDeviceLost(WGPUSharedBufferMemory sharedBufferMemory) {
  refuse(sharedBufferMemory, "wgpuSharedBufferMemoryIsDeviceLost");
  return 0;
}

UL__WG_EXPORT void wgpuSharedBufferMemoryRelease(WGPUSharedBufferMemory sharedBufferMemory) {
  refuse(sharedBufferMemory, "wgpuSharedBufferMemoryRelease");
}

UL__WG_EXPORT void wgpuSharedBufferMemorySetLabel(WGPUSharedBufferMemory sharedBufferMemory, WGPUStringView label) {
  UL__UNUSED(label);
  refuse(sharedBufferMemory, "wgpuSharedBufferMemorySetLabel");
}

UL__WG_EXPORT void wgpuSharedFenceAddRef(WGPUSharedFence sharedFence) {
  refuse(sharedFence, "wgpuSharedFenceAddRef");
}

UL__WG_EXPORT void wgpuSharedFenceExportInfo(WGPUSharedFence sharedFence, WGPUSharedFenceExportInfo *info) {
  UL__UNUSED(info);
  refuse(sharedFence, "wgpuSharedFenceExportInfo");
}

UL__WG_EXPORT void wgpuSharedFenceRelease(WGPUSharedFence sharedFence) {
  refuse(sharedFence, "wgpuSharedFenceRelease");
}

UL__WG_EXPORT void wgpuSharedTextureMemoryAddRef(WGPUSharedTextureMemory sharedTextureMemory) {
  refuse(sharedTextureMemory, "wgpuSharedTextureMemoryAddRef");
}

UL__WG_EXPORT WGPUStatus wgpuSharedTextureMemoryBeginAccess(WGPUSharedTextureMemory sharedTextureMemory, WGPUTexture texture, const WGPUSharedTextureMemoryBeginAccessDescriptor *descriptor) {
  UL__UNUSED(texture);
  UL__UNUSED(descriptor);
  refuse(sharedTextureMemory, "wgpuSharedTextureMemoryBeginAccess");
  return WGPUStatus_Error;
}

UL__WG_EXPORT WGPUTexture wgpuSharedTextureMemoryCreateTexture(WGPUSharedTextureMemory sharedTextureMemory, const WGPUTextureDescriptor *descriptor) {
  UL__UNUSED(descriptor);
  refuse(sharedTextureMemory, "wgpuSharedTextureMemoryCreateTexture");
  return NULL;
}

UL__WG_EXPORT WGPUStatus wgpuSharedTextureMemoryEndAccess(WGPUSharedTextureMemory sharedTextureMemory, WGPUTexture texture, WGPUSharedTextureMemoryEndAccessState *descriptor) {
  UL__UNUSED(texture);
  UL__UNUSED(descriptor);
  refuse(sharedTextureMemory, "wgpuSharedTextureMemoryEndAccess");
  return WGPUStatus_Error;
}

UL__WG_EXPORT void wgpuSharedTextureMemoryEndAccessStateFreeMembers(WGPUSharedTextureMemoryEndAccessState sharedTextureMemoryEndAccessState) {
  /* unlost never hands one out: nothing to free. */
  UL__UNUSED(sharedTextureMemoryEndAccessState);
}

UL__WG_EXPORT WGPUStatus wgpuSharedTextureMemoryGetProperties(WGPUSharedTextureMemory sharedTextureMemory, WGPUSharedTextureMemoryProperties *properties) {
  UL__UNUSED(properties);
  refuse(sharedTextureMemory, "wgpuSharedTextureMemoryGetProperties");
  return WGPUStatus_Error;
}

UL__WG_EXPORT WGPUBool wgpuSharedTextureMemoryIsDeviceLost(WGPUSharedTextureMemory sharedTextureMemory) {
  refuse(sharedTextureMemory, "wgpuSharedTextureMemoryIsDeviceLost");
  return 0;
}

UL__WG_EXPORT void wgpuSharedTextureMemoryRelease(WGPUSharedTextureMemory sharedTextureMemory) {
  refuse(sharedTextureMemory, "wgpuSharedTextureMemoryRelease");
}

UL__WG_EXPORT void wgpuSharedTextureMemorySetLabel(WGPUSharedTextureMemory sharedTextureMemory, WGPUStringView label) {
  UL__UNUSED(label);
  refuse(sharedTextureMemory, "wgpuSharedTextureMemorySetLabel");
}

UL__WG_EXPORT void wgpuSurfaceAddRef(WGPUSurface surface) {
  refuse(surface, "wgpuSurfaceAddRef");
}

UL__WG_EXPORT void wgpuSurfaceCapabilitiesFreeMembers(WGPUSurfaceCapabilities surfaceCapabilities) {
  /* unlost never hands one out: nothing to free. */
  UL__UNUSED(surfaceCapabilities);
}

UL__WG_EXPORT void wgpuSurfaceConfigure(WGPUSurface surface, const WGPUSurfaceConfiguration *config) {
  UL__UNUSED(config);
  refuse(surface, "wgpuSurfaceConfigure");
}

UL__WG_EXPORT WGPUStatus wgpuSurfaceGetCapabilities(WGPUSurface surface, WGPUAdapter adapter, WGPUSurfaceCapabilities *capabilities) {
  UL__UNUSED(adapter);
  UL__UNUSED(capabilities);
  refuse(surface, "wgpuSurfaceGetCapabilities");
  return WGPUStatus_Error;
}

UL__WG_EXPORT void wgpuSurfaceGetCurrentTexture(WGPUSurface surface, WGPUSurfaceTexture *surfaceTexture) {
  UL__UNUSED(surfaceTexture);
  refuse(surface, "wgpuSurfaceGetCurrentTexture");
}

UL__WG_EXPORT void wgpuSurfacePresent(WGPUSurface surface) {
  refuse(surface, "wgpuSurfacePresent");
}

UL__WG_EXPORT void wgpuSurfaceRelease(WGPUSurface surface) {
  refuse(surface, "wgpuSurfaceRelease");
}

UL__WG_EXPORT void wgpuSurfaceSetLabel(WGPUSurface surface, WGPUStringView label) {
  UL__UNUSED(label);
  refuse(surface, "wgpuSurfaceSetLabel");
}

UL__WG_EXPORT void wgpuSurfaceUnconfigure(WGPUSurface surface) {
  refuse(surface, "wgpuSurfaceUnconfigure");
}
