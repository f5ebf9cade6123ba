/* Internal to unlost: the proc table, the one seam through which every
 * WebGPU call passes. Filled by dlopen/dlsym (procs.c); the chaos layer
 * (src/chaos/) can wrap it. */
#ifndef UL_WGPU_PROCS_H
#define UL_WGPU_PROCS_H

#include "internal.h"
#include "wgpu/wgpu.h"

/* The webgpu.h revision these declarations are of (src/wgpu/webgpu.api),
 * and the one after it that programs and implementations built today speak.
 * Their structs and enums differ (the instance descriptor, texture formats,
 * features, sTypes: docs/webgpu.md, "Header revisions"): neither side may
 * be read with the other's layout. */
#define UL__WGPU_REVISION_PINNED "Dawn's webgpu.h of June 2025 (df73f16)"
#define UL__WGPU_REVISION_STABLE "the stable webgpu.h (webgpu-native/webgpu-headers, September 2025 on)"
#if UL_WGPU_STABLE
#define UL__WGPU_REVISION UL__WGPU_REVISION_STABLE
#define UL__WGPU_REVISION_OTHER UL__WGPU_REVISION_PINNED
#else
#define UL__WGPU_REVISION UL__WGPU_REVISION_PINNED
#define UL__WGPU_REVISION_OTHER UL__WGPU_REVISION_STABLE
#endif

/* X(required, kind, Ret, Name, (params), (args)): every entry point of the
 * implementation (the lists of wgpu/wgpu_api.h: both revisions' and Dawn's
 * extensions over their common types, then the pinned or the stable
 * revision's own); kind is V for functions
 * returning void, R otherwise; the symbol is "wgpu" #Name. Those the
 * engine cannot work without are required; the others may be NULL (an
 * implementation that lacks them). wgpuCreateInstance comes first: a
 * library without it is named as no implementation at all. */
#define UL__WGPU_PROCS_COMMON(X) \
  X(1, R, WGPUInstance, CreateInstance, (const WGPUInstanceDescriptor *descriptor), (descriptor)) \
  X(0, V, void, AdapterAddRef, (WGPUAdapter adapter), (adapter)) \
  X(0, R, WGPUDevice, AdapterCreateDevice, (WGPUAdapter adapter, const WGPUDeviceDescriptor *descriptor), (adapter, descriptor)) \
  X(0, V, void, AdapterGetFeatures, (WGPUAdapter adapter, WGPUSupportedFeatures *features), (adapter, features)) \
  X(1, R, WGPUStatus, AdapterGetInfo, (WGPUAdapter adapter, WGPUAdapterInfo *info), (adapter, info)) \
  X(0, R, WGPUInstance, AdapterGetInstance, (WGPUAdapter adapter), (adapter)) \
  X(1, R, WGPUStatus, AdapterGetLimits, (WGPUAdapter adapter, WGPULimits *limits), (adapter, limits)) \
  X(0, R, WGPUBool, AdapterHasFeature, (WGPUAdapter adapter, WGPUFeatureName feature), (adapter, feature)) \
  X(1, V, void, AdapterInfoFreeMembers, (WGPUAdapterInfo adapterInfo), (adapterInfo)) \
  X(1, V, void, AdapterRelease, (WGPUAdapter adapter), (adapter)) \
  X(1, R, WGPUFuture, AdapterRequestDevice, (WGPUAdapter adapter, const WGPUDeviceDescriptor *descriptor, WGPURequestDeviceCallbackInfo callbackInfo), (adapter, descriptor, callbackInfo)) \
  X(0, V, void, BindGroupAddRef, (WGPUBindGroup bindGroup), (bindGroup)) \
  X(0, V, void, BindGroupLayoutAddRef, (WGPUBindGroupLayout bindGroupLayout), (bindGroupLayout)) \
  X(1, V, void, BindGroupLayoutRelease, (WGPUBindGroupLayout bindGroupLayout), (bindGroupLayout)) \
  X(0, V, void, BindGroupLayoutSetLabel, (WGPUBindGroupLayout bindGroupLayout, WGPUStringView label), (bindGroupLayout, label)) \
  X(1, V, void, BindGroupRelease, (WGPUBindGroup bindGroup), (bindGroup)) \
  X(0, V, void, BindGroupSetLabel, (WGPUBindGroup bindGroup, WGPUStringView label), (bindGroup, label)) \
  X(0, V, void, BufferAddRef, (WGPUBuffer buffer), (buffer)) \
  X(1, V, void, BufferDestroy, (WGPUBuffer buffer), (buffer)) \
  X(1, R, const void *, BufferGetConstMappedRange, (WGPUBuffer buffer, size_t offset, size_t size), (buffer, offset, size)) \
  X(1, R, WGPUBufferMapState, BufferGetMapState, (WGPUBuffer buffer), (buffer)) \
  X(1, R, void *, BufferGetMappedRange, (WGPUBuffer buffer, size_t offset, size_t size), (buffer, offset, size)) \
  X(0, R, uint64_t, BufferGetSize, (WGPUBuffer buffer), (buffer)) \
  X(0, R, WGPUBufferUsage, BufferGetUsage, (WGPUBuffer buffer), (buffer)) \
  X(1, R, WGPUFuture, BufferMapAsync, (WGPUBuffer buffer, WGPUMapMode mode, size_t offset, size_t size, WGPUBufferMapCallbackInfo callbackInfo), (buffer, mode, offset, size, callbackInfo)) \
  X(0, R, WGPUStatus, BufferReadMappedRange, (WGPUBuffer buffer, size_t offset, void *data, size_t size), (buffer, offset, data, size)) \
  X(1, V, void, BufferRelease, (WGPUBuffer buffer), (buffer)) \
  X(0, V, void, BufferSetLabel, (WGPUBuffer buffer, WGPUStringView label), (buffer, label)) \
  X(1, V, void, BufferUnmap, (WGPUBuffer buffer), (buffer)) \
  X(0, R, WGPUStatus, BufferWriteMappedRange, (WGPUBuffer buffer, size_t offset, const void *data, size_t size), (buffer, offset, data, size)) \
  X(0, V, void, CommandBufferAddRef, (WGPUCommandBuffer commandBuffer), (commandBuffer)) \
  X(1, V, void, CommandBufferRelease, (WGPUCommandBuffer commandBuffer), (commandBuffer)) \
  X(0, V, void, CommandBufferSetLabel, (WGPUCommandBuffer commandBuffer, WGPUStringView label), (commandBuffer, label)) \
  X(0, V, void, CommandEncoderAddRef, (WGPUCommandEncoder commandEncoder), (commandEncoder)) \
  X(1, R, WGPUComputePassEncoder, CommandEncoderBeginComputePass, (WGPUCommandEncoder commandEncoder, const WGPUComputePassDescriptor *descriptor), (commandEncoder, descriptor)) \
  X(0, R, WGPURenderPassEncoder, CommandEncoderBeginRenderPass, (WGPUCommandEncoder commandEncoder, const WGPURenderPassDescriptor *descriptor), (commandEncoder, descriptor)) \
  X(1, V, void, CommandEncoderClearBuffer, (WGPUCommandEncoder commandEncoder, WGPUBuffer buffer, uint64_t offset, uint64_t size), (commandEncoder, buffer, offset, size)) \
  X(1, V, void, CommandEncoderCopyBufferToBuffer, (WGPUCommandEncoder commandEncoder, WGPUBuffer source, uint64_t sourceOffset, WGPUBuffer destination, uint64_t destinationOffset, uint64_t size), (commandEncoder, source, sourceOffset, destination, destinationOffset, size)) \
  X(1, V, void, CommandEncoderCopyBufferToTexture, (WGPUCommandEncoder commandEncoder, const WGPUTexelCopyBufferInfo *source, const WGPUTexelCopyTextureInfo *destination, const WGPUExtent3D *copySize), (commandEncoder, source, destination, copySize)) \
  X(1, V, void, CommandEncoderCopyTextureToBuffer, (WGPUCommandEncoder commandEncoder, const WGPUTexelCopyTextureInfo *source, const WGPUTexelCopyBufferInfo *destination, const WGPUExtent3D *copySize), (commandEncoder, source, destination, copySize)) \
  X(0, V, void, CommandEncoderCopyTextureToTexture, (WGPUCommandEncoder commandEncoder, const WGPUTexelCopyTextureInfo *source, const WGPUTexelCopyTextureInfo *destination, const WGPUExtent3D *copySize), (commandEncoder, source, destination, copySize)) \
  X(1, R, WGPUCommandBuffer, CommandEncoderFinish, (WGPUCommandEncoder commandEncoder, const WGPUCommandBufferDescriptor *descriptor), (commandEncoder, descriptor)) \
  X(0, V, void, CommandEncoderInjectValidationError, (WGPUCommandEncoder commandEncoder, WGPUStringView message), (commandEncoder, message)) \
  X(0, V, void, CommandEncoderInsertDebugMarker, (WGPUCommandEncoder commandEncoder, WGPUStringView markerLabel), (commandEncoder, markerLabel)) \
  X(0, V, void, CommandEncoderPopDebugGroup, (WGPUCommandEncoder commandEncoder), (commandEncoder)) \
  X(0, V, void, CommandEncoderPushDebugGroup, (WGPUCommandEncoder commandEncoder, WGPUStringView groupLabel), (commandEncoder, groupLabel)) \
  X(1, V, void, CommandEncoderRelease, (WGPUCommandEncoder commandEncoder), (commandEncoder)) \
  X(0, V, void, CommandEncoderResolveQuerySet, (WGPUCommandEncoder commandEncoder, WGPUQuerySet querySet, uint32_t firstQuery, uint32_t queryCount, WGPUBuffer destination, uint64_t destinationOffset), (commandEncoder, querySet, firstQuery, queryCount, destination, destinationOffset)) \
  X(0, V, void, CommandEncoderSetLabel, (WGPUCommandEncoder commandEncoder, WGPUStringView label), (commandEncoder, label)) \
  X(0, V, void, CommandEncoderWriteBuffer, (WGPUCommandEncoder commandEncoder, WGPUBuffer buffer, uint64_t bufferOffset, const uint8_t *data, uint64_t size), (commandEncoder, buffer, bufferOffset, data, size)) \
  X(0, V, void, CommandEncoderWriteTimestamp, (WGPUCommandEncoder commandEncoder, WGPUQuerySet querySet, uint32_t queryIndex), (commandEncoder, querySet, queryIndex)) \
  X(0, V, void, ComputePassEncoderAddRef, (WGPUComputePassEncoder computePassEncoder), (computePassEncoder)) \
  X(1, V, void, ComputePassEncoderDispatchWorkgroups, (WGPUComputePassEncoder computePassEncoder, uint32_t workgroupCountX, uint32_t workgroupCountY, uint32_t workgroupCountZ), (computePassEncoder, workgroupCountX, workgroupCountY, workgroupCountZ)) \
  X(1, V, void, ComputePassEncoderDispatchWorkgroupsIndirect, (WGPUComputePassEncoder computePassEncoder, WGPUBuffer indirectBuffer, uint64_t indirectOffset), (computePassEncoder, indirectBuffer, indirectOffset)) \
  X(1, V, void, ComputePassEncoderEnd, (WGPUComputePassEncoder computePassEncoder), (computePassEncoder)) \
  X(0, V, void, ComputePassEncoderInsertDebugMarker, (WGPUComputePassEncoder computePassEncoder, WGPUStringView markerLabel), (computePassEncoder, markerLabel)) \
  X(0, V, void, ComputePassEncoderPopDebugGroup, (WGPUComputePassEncoder computePassEncoder), (computePassEncoder)) \
  X(0, V, void, ComputePassEncoderPushDebugGroup, (WGPUComputePassEncoder computePassEncoder, WGPUStringView groupLabel), (computePassEncoder, groupLabel)) \
  X(1, V, void, ComputePassEncoderRelease, (WGPUComputePassEncoder computePassEncoder), (computePassEncoder)) \
  X(1, V, void, ComputePassEncoderSetBindGroup, (WGPUComputePassEncoder computePassEncoder, uint32_t groupIndex, WGPUBindGroup group, size_t dynamicOffsetCount, const uint32_t *dynamicOffsets), (computePassEncoder, groupIndex, group, dynamicOffsetCount, dynamicOffsets)) \
  X(0, V, void, ComputePassEncoderSetImmediateData, (WGPUComputePassEncoder computePassEncoder, uint32_t offset, const void *data, size_t size), (computePassEncoder, offset, data, size)) \
  X(0, V, void, ComputePassEncoderSetLabel, (WGPUComputePassEncoder computePassEncoder, WGPUStringView label), (computePassEncoder, label)) \
  X(1, V, void, ComputePassEncoderSetPipeline, (WGPUComputePassEncoder computePassEncoder, WGPUComputePipeline pipeline), (computePassEncoder, pipeline)) \
  X(0, V, void, ComputePassEncoderWriteTimestamp, (WGPUComputePassEncoder computePassEncoder, WGPUQuerySet querySet, uint32_t queryIndex), (computePassEncoder, querySet, queryIndex)) \
  X(0, V, void, ComputePipelineAddRef, (WGPUComputePipeline computePipeline), (computePipeline)) \
  X(1, R, WGPUBindGroupLayout, ComputePipelineGetBindGroupLayout, (WGPUComputePipeline computePipeline, uint32_t groupIndex), (computePipeline, groupIndex)) \
  X(1, V, void, ComputePipelineRelease, (WGPUComputePipeline computePipeline), (computePipeline)) \
  X(0, V, void, ComputePipelineSetLabel, (WGPUComputePipeline computePipeline, WGPUStringView label), (computePipeline, label)) \
  X(0, V, void, DeviceAddRef, (WGPUDevice device), (device)) \
  X(1, R, WGPUBindGroup, DeviceCreateBindGroup, (WGPUDevice device, const WGPUBindGroupDescriptor *descriptor), (device, descriptor)) \
  X(1, R, WGPUBindGroupLayout, DeviceCreateBindGroupLayout, (WGPUDevice device, const WGPUBindGroupLayoutDescriptor *descriptor), (device, descriptor)) \
  X(1, R, WGPUBuffer, DeviceCreateBuffer, (WGPUDevice device, const WGPUBufferDescriptor *descriptor), (device, descriptor)) \
  X(1, R, WGPUCommandEncoder, DeviceCreateCommandEncoder, (WGPUDevice device, const WGPUCommandEncoderDescriptor *descriptor), (device, descriptor)) \
  X(1, R, WGPUComputePipeline, DeviceCreateComputePipeline, (WGPUDevice device, const WGPUComputePipelineDescriptor *descriptor), (device, descriptor)) \
  X(0, R, WGPUFuture, DeviceCreateComputePipelineAsync, (WGPUDevice device, const WGPUComputePipelineDescriptor *descriptor, WGPUCreateComputePipelineAsyncCallbackInfo callbackInfo), (device, descriptor, callbackInfo)) \
  X(0, R, WGPUBuffer, DeviceCreateErrorBuffer, (WGPUDevice device, const WGPUBufferDescriptor *descriptor), (device, descriptor)) \
  X(0, R, WGPUExternalTexture, DeviceCreateErrorExternalTexture, (WGPUDevice device), (device)) \
  X(0, R, WGPUShaderModule, DeviceCreateErrorShaderModule, (WGPUDevice device, const WGPUShaderModuleDescriptor *descriptor, WGPUStringView errorMessage), (device, descriptor, errorMessage)) \
  X(0, R, WGPUTexture, DeviceCreateErrorTexture, (WGPUDevice device, const WGPUTextureDescriptor *descriptor), (device, descriptor)) \
  X(1, R, WGPUPipelineLayout, DeviceCreatePipelineLayout, (WGPUDevice device, const WGPUPipelineLayoutDescriptor *descriptor), (device, descriptor)) \
  X(0, R, WGPUQuerySet, DeviceCreateQuerySet, (WGPUDevice device, const WGPUQuerySetDescriptor *descriptor), (device, descriptor)) \
  X(0, R, WGPURenderBundleEncoder, DeviceCreateRenderBundleEncoder, (WGPUDevice device, const WGPURenderBundleEncoderDescriptor *descriptor), (device, descriptor)) \
  X(0, R, WGPURenderPipeline, DeviceCreateRenderPipeline, (WGPUDevice device, const WGPURenderPipelineDescriptor *descriptor), (device, descriptor)) \
  X(0, R, WGPUFuture, DeviceCreateRenderPipelineAsync, (WGPUDevice device, const WGPURenderPipelineDescriptor *descriptor, WGPUCreateRenderPipelineAsyncCallbackInfo callbackInfo), (device, descriptor, callbackInfo)) \
  X(1, R, WGPUSampler, DeviceCreateSampler, (WGPUDevice device, const WGPUSamplerDescriptor *descriptor), (device, descriptor)) \
  X(1, R, WGPUShaderModule, DeviceCreateShaderModule, (WGPUDevice device, const WGPUShaderModuleDescriptor *descriptor), (device, descriptor)) \
  X(1, R, WGPUTexture, DeviceCreateTexture, (WGPUDevice device, const WGPUTextureDescriptor *descriptor), (device, descriptor)) \
  X(1, V, void, DeviceDestroy, (WGPUDevice device), (device)) \
  X(0, V, void, DeviceForceLoss, (WGPUDevice device, WGPUDeviceLostReason type, WGPUStringView message), (device, type, message)) \
  X(0, R, WGPUAdapter, DeviceGetAdapter, (WGPUDevice device), (device)) \
  X(0, R, WGPUStatus, DeviceGetAdapterInfo, (WGPUDevice device, WGPUAdapterInfo *adapterInfo), (device, adapterInfo)) \
  X(0, V, void, DeviceGetFeatures, (WGPUDevice device, WGPUSupportedFeatures *features), (device, features)) \
  X(1, R, WGPUStatus, DeviceGetLimits, (WGPUDevice device, WGPULimits *limits), (device, limits)) \
  X(0, R, WGPUFuture, DeviceGetLostFuture, (WGPUDevice device), (device)) \
  X(1, R, WGPUQueue, DeviceGetQueue, (WGPUDevice device), (device)) \
  X(0, R, WGPUBool, DeviceHasFeature, (WGPUDevice device, WGPUFeatureName feature), (device, feature)) \
  X(0, V, void, DeviceInjectError, (WGPUDevice device, WGPUErrorType type, WGPUStringView message), (device, type, message)) \
  X(1, R, WGPUFuture, DevicePopErrorScope, (WGPUDevice device, WGPUPopErrorScopeCallbackInfo callbackInfo), (device, callbackInfo)) \
  X(1, V, void, DevicePushErrorScope, (WGPUDevice device, WGPUErrorFilter filter), (device, filter)) \
  X(1, V, void, DeviceRelease, (WGPUDevice device), (device)) \
  X(0, V, void, DeviceSetLabel, (WGPUDevice device, WGPUStringView label), (device, label)) \
  X(0, V, void, DeviceTick, (WGPUDevice device), (device)) \
  X(0, V, void, DeviceValidateTextureDescriptor, (WGPUDevice device, const WGPUTextureDescriptor *descriptor), (device, descriptor)) \
  X(0, V, void, ExternalTextureAddRef, (WGPUExternalTexture externalTexture), (externalTexture)) \
  X(0, V, void, ExternalTextureDestroy, (WGPUExternalTexture externalTexture), (externalTexture)) \
  X(0, V, void, ExternalTextureExpire, (WGPUExternalTexture externalTexture), (externalTexture)) \
  X(0, V, void, ExternalTextureRefresh, (WGPUExternalTexture externalTexture), (externalTexture)) \
  X(0, V, void, ExternalTextureRelease, (WGPUExternalTexture externalTexture), (externalTexture)) \
  X(0, V, void, ExternalTextureSetLabel, (WGPUExternalTexture externalTexture, WGPUStringView label), (externalTexture, label)) \
  X(0, R, WGPUProc, GetProcAddress, (WGPUStringView procName), (procName)) \
  X(0, V, void, InstanceAddRef, (WGPUInstance instance), (instance)) \
  X(0, R, WGPUSurface, InstanceCreateSurface, (WGPUInstance instance, const WGPUSurfaceDescriptor *descriptor), (instance, descriptor)) \
  X(0, R, WGPUBool, InstanceHasWGSLLanguageFeature, (WGPUInstance instance, WGPUWGSLLanguageFeatureName feature), (instance, feature)) \
  X(1, V, void, InstanceProcessEvents, (WGPUInstance instance), (instance)) \
  X(1, V, void, InstanceRelease, (WGPUInstance instance), (instance)) \
  X(1, R, WGPUFuture, InstanceRequestAdapter, (WGPUInstance instance, const WGPURequestAdapterOptions *options, WGPURequestAdapterCallbackInfo callbackInfo), (instance, options, callbackInfo)) \
  X(1, R, WGPUWaitStatus, InstanceWaitAny, (WGPUInstance instance, size_t futureCount, WGPUFutureWaitInfo *futures, uint64_t timeoutNS), (instance, futureCount, futures, timeoutNS)) \
  X(0, V, void, PipelineLayoutAddRef, (WGPUPipelineLayout pipelineLayout), (pipelineLayout)) \
  X(1, V, void, PipelineLayoutRelease, (WGPUPipelineLayout pipelineLayout), (pipelineLayout)) \
  X(0, V, void, PipelineLayoutSetLabel, (WGPUPipelineLayout pipelineLayout, WGPUStringView label), (pipelineLayout, label)) \
  X(0, V, void, QuerySetAddRef, (WGPUQuerySet querySet), (querySet)) \
  X(0, V, void, QuerySetDestroy, (WGPUQuerySet querySet), (querySet)) \
  X(0, R, uint32_t, QuerySetGetCount, (WGPUQuerySet querySet), (querySet)) \
  X(0, R, WGPUQueryType, QuerySetGetType, (WGPUQuerySet querySet), (querySet)) \
  X(0, V, void, QuerySetRelease, (WGPUQuerySet querySet), (querySet)) \
  X(0, V, void, QuerySetSetLabel, (WGPUQuerySet querySet, WGPUStringView label), (querySet, label)) \
  X(0, V, void, QueueAddRef, (WGPUQueue queue), (queue)) \
  X(1, R, WGPUFuture, QueueOnSubmittedWorkDone, (WGPUQueue queue, WGPUQueueWorkDoneCallbackInfo callbackInfo), (queue, callbackInfo)) \
  X(1, V, void, QueueRelease, (WGPUQueue queue), (queue)) \
  X(0, V, void, QueueSetLabel, (WGPUQueue queue, WGPUStringView label), (queue, label)) \
  X(1, V, void, QueueSubmit, (WGPUQueue queue, size_t commandCount, const WGPUCommandBuffer *commands), (queue, commandCount, commands)) \
  X(1, V, void, QueueWriteBuffer, (WGPUQueue queue, WGPUBuffer buffer, uint64_t bufferOffset, const void *data, size_t size), (queue, buffer, bufferOffset, data, size)) \
  X(1, V, void, QueueWriteTexture, (WGPUQueue queue, const WGPUTexelCopyTextureInfo *destination, const void *data, size_t dataSize, const WGPUTexelCopyBufferLayout *dataLayout, const WGPUExtent3D *writeSize), (queue, destination, data, dataSize, dataLayout, writeSize)) \
  X(0, V, void, RenderBundleAddRef, (WGPURenderBundle renderBundle), (renderBundle)) \
  X(0, V, void, RenderBundleEncoderAddRef, (WGPURenderBundleEncoder renderBundleEncoder), (renderBundleEncoder)) \
  X(0, V, void, RenderBundleEncoderDraw, (WGPURenderBundleEncoder renderBundleEncoder, uint32_t vertexCount, uint32_t instanceCount, uint32_t firstVertex, uint32_t firstInstance), (renderBundleEncoder, vertexCount, instanceCount, firstVertex, firstInstance)) \
  X(0, V, void, RenderBundleEncoderDrawIndexed, (WGPURenderBundleEncoder renderBundleEncoder, uint32_t indexCount, uint32_t instanceCount, uint32_t firstIndex, int32_t baseVertex, uint32_t firstInstance), (renderBundleEncoder, indexCount, instanceCount, firstIndex, baseVertex, firstInstance)) \
  X(0, V, void, RenderBundleEncoderDrawIndexedIndirect, (WGPURenderBundleEncoder renderBundleEncoder, WGPUBuffer indirectBuffer, uint64_t indirectOffset), (renderBundleEncoder, indirectBuffer, indirectOffset)) \
  X(0, V, void, RenderBundleEncoderDrawIndirect, (WGPURenderBundleEncoder renderBundleEncoder, WGPUBuffer indirectBuffer, uint64_t indirectOffset), (renderBundleEncoder, indirectBuffer, indirectOffset)) \
  X(0, R, WGPURenderBundle, RenderBundleEncoderFinish, (WGPURenderBundleEncoder renderBundleEncoder, const WGPURenderBundleDescriptor *descriptor), (renderBundleEncoder, descriptor)) \
  X(0, V, void, RenderBundleEncoderInsertDebugMarker, (WGPURenderBundleEncoder renderBundleEncoder, WGPUStringView markerLabel), (renderBundleEncoder, markerLabel)) \
  X(0, V, void, RenderBundleEncoderPopDebugGroup, (WGPURenderBundleEncoder renderBundleEncoder), (renderBundleEncoder)) \
  X(0, V, void, RenderBundleEncoderPushDebugGroup, (WGPURenderBundleEncoder renderBundleEncoder, WGPUStringView groupLabel), (renderBundleEncoder, groupLabel)) \
  X(0, V, void, RenderBundleEncoderRelease, (WGPURenderBundleEncoder renderBundleEncoder), (renderBundleEncoder)) \
  X(0, V, void, RenderBundleEncoderSetBindGroup, (WGPURenderBundleEncoder renderBundleEncoder, uint32_t groupIndex, WGPUBindGroup group, size_t dynamicOffsetCount, const uint32_t *dynamicOffsets), (renderBundleEncoder, groupIndex, group, dynamicOffsetCount, dynamicOffsets)) \
  X(0, V, void, RenderBundleEncoderSetImmediateData, (WGPURenderBundleEncoder renderBundleEncoder, uint32_t offset, const void *data, size_t size), (renderBundleEncoder, offset, data, size)) \
  X(0, V, void, RenderBundleEncoderSetIndexBuffer, (WGPURenderBundleEncoder renderBundleEncoder, WGPUBuffer buffer, WGPUIndexFormat format, uint64_t offset, uint64_t size), (renderBundleEncoder, buffer, format, offset, size)) \
  X(0, V, void, RenderBundleEncoderSetLabel, (WGPURenderBundleEncoder renderBundleEncoder, WGPUStringView label), (renderBundleEncoder, label)) \
  X(0, V, void, RenderBundleEncoderSetPipeline, (WGPURenderBundleEncoder renderBundleEncoder, WGPURenderPipeline pipeline), (renderBundleEncoder, pipeline)) \
  X(0, V, void, RenderBundleEncoderSetVertexBuffer, (WGPURenderBundleEncoder renderBundleEncoder, uint32_t slot, WGPUBuffer buffer, uint64_t offset, uint64_t size), (renderBundleEncoder, slot, buffer, offset, size)) \
  X(0, V, void, RenderBundleRelease, (WGPURenderBundle renderBundle), (renderBundle)) \
  X(0, V, void, RenderBundleSetLabel, (WGPURenderBundle renderBundle, WGPUStringView label), (renderBundle, label)) \
  X(0, V, void, RenderPassEncoderAddRef, (WGPURenderPassEncoder renderPassEncoder), (renderPassEncoder)) \
  X(0, V, void, RenderPassEncoderBeginOcclusionQuery, (WGPURenderPassEncoder renderPassEncoder, uint32_t queryIndex), (renderPassEncoder, queryIndex)) \
  X(0, V, void, RenderPassEncoderDraw, (WGPURenderPassEncoder renderPassEncoder, uint32_t vertexCount, uint32_t instanceCount, uint32_t firstVertex, uint32_t firstInstance), (renderPassEncoder, vertexCount, instanceCount, firstVertex, firstInstance)) \
  X(0, V, void, RenderPassEncoderDrawIndexed, (WGPURenderPassEncoder renderPassEncoder, uint32_t indexCount, uint32_t instanceCount, uint32_t firstIndex, int32_t baseVertex, uint32_t firstInstance), (renderPassEncoder, indexCount, instanceCount, firstIndex, baseVertex, firstInstance)) \
  X(0, V, void, RenderPassEncoderDrawIndexedIndirect, (WGPURenderPassEncoder renderPassEncoder, WGPUBuffer indirectBuffer, uint64_t indirectOffset), (renderPassEncoder, indirectBuffer, indirectOffset)) \
  X(0, V, void, RenderPassEncoderDrawIndirect, (WGPURenderPassEncoder renderPassEncoder, WGPUBuffer indirectBuffer, uint64_t indirectOffset), (renderPassEncoder, indirectBuffer, indirectOffset)) \
  X(0, V, void, RenderPassEncoderEnd, (WGPURenderPassEncoder renderPassEncoder), (renderPassEncoder)) \
  X(0, V, void, RenderPassEncoderEndOcclusionQuery, (WGPURenderPassEncoder renderPassEncoder), (renderPassEncoder)) \
  X(0, V, void, RenderPassEncoderExecuteBundles, (WGPURenderPassEncoder renderPassEncoder, size_t bundleCount, const WGPURenderBundle *bundles), (renderPassEncoder, bundleCount, bundles)) \
  X(0, V, void, RenderPassEncoderInsertDebugMarker, (WGPURenderPassEncoder renderPassEncoder, WGPUStringView markerLabel), (renderPassEncoder, markerLabel)) \
  X(0, V, void, RenderPassEncoderMultiDrawIndexedIndirect, (WGPURenderPassEncoder renderPassEncoder, WGPUBuffer indirectBuffer, uint64_t indirectOffset, uint32_t maxDrawCount, WGPUBuffer drawCountBuffer, uint64_t drawCountBufferOffset), (renderPassEncoder, indirectBuffer, indirectOffset, maxDrawCount, drawCountBuffer, drawCountBufferOffset)) \
  X(0, V, void, RenderPassEncoderMultiDrawIndirect, (WGPURenderPassEncoder renderPassEncoder, WGPUBuffer indirectBuffer, uint64_t indirectOffset, uint32_t maxDrawCount, WGPUBuffer drawCountBuffer, uint64_t drawCountBufferOffset), (renderPassEncoder, indirectBuffer, indirectOffset, maxDrawCount, drawCountBuffer, drawCountBufferOffset)) \
  X(0, V, void, RenderPassEncoderPixelLocalStorageBarrier, (WGPURenderPassEncoder renderPassEncoder), (renderPassEncoder)) \
  X(0, V, void, RenderPassEncoderPopDebugGroup, (WGPURenderPassEncoder renderPassEncoder), (renderPassEncoder)) \
  X(0, V, void, RenderPassEncoderPushDebugGroup, (WGPURenderPassEncoder renderPassEncoder, WGPUStringView groupLabel), (renderPassEncoder, groupLabel)) \
  X(0, V, void, RenderPassEncoderRelease, (WGPURenderPassEncoder renderPassEncoder), (renderPassEncoder)) \
  X(0, V, void, RenderPassEncoderSetBindGroup, (WGPURenderPassEncoder renderPassEncoder, uint32_t groupIndex, WGPUBindGroup group, size_t dynamicOffsetCount, const uint32_t *dynamicOffsets), (renderPassEncoder, groupIndex, group, dynamicOffsetCount, dynamicOffsets)) \
  X(0, V, void, RenderPassEncoderSetBlendConstant, (WGPURenderPassEncoder renderPassEncoder, const WGPUColor *color), (renderPassEncoder, color)) \
  X(0, V, void, RenderPassEncoderSetImmediateData, (WGPURenderPassEncoder renderPassEncoder, uint32_t offset, const void *data, size_t size), (renderPassEncoder, offset, data, size)) \
  X(0, V, void, RenderPassEncoderSetIndexBuffer, (WGPURenderPassEncoder renderPassEncoder, WGPUBuffer buffer, WGPUIndexFormat format, uint64_t offset, uint64_t size), (renderPassEncoder, buffer, format, offset, size)) \
  X(0, V, void, RenderPassEncoderSetLabel, (WGPURenderPassEncoder renderPassEncoder, WGPUStringView label), (renderPassEncoder, label)) \
  X(0, V, void, RenderPassEncoderSetPipeline, (WGPURenderPassEncoder renderPassEncoder, WGPURenderPipeline pipeline), (renderPassEncoder, pipeline)) \
  X(0, V, void, RenderPassEncoderSetScissorRect, (WGPURenderPassEncoder renderPassEncoder, uint32_t x, uint32_t y, uint32_t width, uint32_t height), (renderPassEncoder, x, y, width, height)) \
  X(0, V, void, RenderPassEncoderSetStencilReference, (WGPURenderPassEncoder renderPassEncoder, uint32_t reference), (renderPassEncoder, reference)) \
  X(0, V, void, RenderPassEncoderSetVertexBuffer, (WGPURenderPassEncoder renderPassEncoder, uint32_t slot, WGPUBuffer buffer, uint64_t offset, uint64_t size), (renderPassEncoder, slot, buffer, offset, size)) \
  X(0, V, void, RenderPassEncoderSetViewport, (WGPURenderPassEncoder renderPassEncoder, float x, float y, float width, float height, float minDepth, float maxDepth), (renderPassEncoder, x, y, width, height, minDepth, maxDepth)) \
  X(0, V, void, RenderPassEncoderWriteTimestamp, (WGPURenderPassEncoder renderPassEncoder, WGPUQuerySet querySet, uint32_t queryIndex), (renderPassEncoder, querySet, queryIndex)) \
  X(0, V, void, RenderPipelineAddRef, (WGPURenderPipeline renderPipeline), (renderPipeline)) \
  X(0, R, WGPUBindGroupLayout, RenderPipelineGetBindGroupLayout, (WGPURenderPipeline renderPipeline, uint32_t groupIndex), (renderPipeline, groupIndex)) \
  X(0, V, void, RenderPipelineRelease, (WGPURenderPipeline renderPipeline), (renderPipeline)) \
  X(0, V, void, RenderPipelineSetLabel, (WGPURenderPipeline renderPipeline, WGPUStringView label), (renderPipeline, label)) \
  X(0, V, void, SamplerAddRef, (WGPUSampler sampler), (sampler)) \
  X(1, V, void, SamplerRelease, (WGPUSampler sampler), (sampler)) \
  X(0, V, void, SamplerSetLabel, (WGPUSampler sampler, WGPUStringView label), (sampler, label)) \
  X(0, V, void, ShaderModuleAddRef, (WGPUShaderModule shaderModule), (shaderModule)) \
  X(0, R, WGPUFuture, ShaderModuleGetCompilationInfo, (WGPUShaderModule shaderModule, WGPUCompilationInfoCallbackInfo callbackInfo), (shaderModule, callbackInfo)) \
  X(1, V, void, ShaderModuleRelease, (WGPUShaderModule shaderModule), (shaderModule)) \
  X(0, V, void, ShaderModuleSetLabel, (WGPUShaderModule shaderModule, WGPUStringView label), (shaderModule, label)) \
  X(0, V, void, SupportedFeaturesFreeMembers, (WGPUSupportedFeatures supportedFeatures), (supportedFeatures)) \
  X(0, V, void, SupportedWGSLLanguageFeaturesFreeMembers, (WGPUSupportedWGSLLanguageFeatures supportedWGSLLanguageFeatures), (supportedWGSLLanguageFeatures)) \
  X(0, V, void, SurfaceAddRef, (WGPUSurface surface), (surface)) \
  X(0, V, void, SurfaceCapabilitiesFreeMembers, (WGPUSurfaceCapabilities surfaceCapabilities), (surfaceCapabilities)) \
  X(0, V, void, SurfaceConfigure, (WGPUSurface surface, const WGPUSurfaceConfiguration *config), (surface, config)) \
  X(0, R, WGPUStatus, SurfaceGetCapabilities, (WGPUSurface surface, WGPUAdapter adapter, WGPUSurfaceCapabilities *capabilities), (surface, adapter, capabilities)) \
  X(0, V, void, SurfaceGetCurrentTexture, (WGPUSurface surface, WGPUSurfaceTexture *surfaceTexture), (surface, surfaceTexture)) \
  X(0, V, void, SurfaceRelease, (WGPUSurface surface), (surface)) \
  X(0, V, void, SurfaceSetLabel, (WGPUSurface surface, WGPUStringView label), (surface, label)) \
  X(0, V, void, SurfaceUnconfigure, (WGPUSurface surface), (surface)) \
  X(0, V, void, TextureAddRef, (WGPUTexture texture), (texture)) \
  X(0, R, WGPUTextureView, TextureCreateErrorView, (WGPUTexture texture, const WGPUTextureViewDescriptor *descriptor), (texture, descriptor)) \
  X(1, R, WGPUTextureView, TextureCreateView, (WGPUTexture texture, const WGPUTextureViewDescriptor *descriptor), (texture, descriptor)) \
  X(1, V, void, TextureDestroy, (WGPUTexture texture), (texture)) \
  X(0, R, uint32_t, TextureGetDepthOrArrayLayers, (WGPUTexture texture), (texture)) \
  X(0, R, WGPUTextureDimension, TextureGetDimension, (WGPUTexture texture), (texture)) \
  X(0, R, WGPUTextureFormat, TextureGetFormat, (WGPUTexture texture), (texture)) \
  X(0, R, uint32_t, TextureGetHeight, (WGPUTexture texture), (texture)) \
  X(0, R, uint32_t, TextureGetMipLevelCount, (WGPUTexture texture), (texture)) \
  X(0, R, uint32_t, TextureGetSampleCount, (WGPUTexture texture), (texture)) \
  X(0, R, WGPUTextureUsage, TextureGetUsage, (WGPUTexture texture), (texture)) \
  X(0, R, uint32_t, TextureGetWidth, (WGPUTexture texture), (texture)) \
  X(1, V, void, TextureRelease, (WGPUTexture texture), (texture)) \
  X(0, V, void, TextureSetLabel, (WGPUTexture texture, WGPUStringView label), (texture, label)) \
  X(0, V, void, TextureViewAddRef, (WGPUTextureView textureView), (textureView)) \
  X(1, V, void, TextureViewRelease, (WGPUTextureView textureView), (textureView)) \
  X(0, V, void, TextureViewSetLabel, (WGPUTextureView textureView, WGPUStringView label), (textureView, label))

/* The pinned revision's own (or declared otherwise in the stable one). */
#define UL__WGPU_PROCS_PINNED(X) \
  X(0, R, WGPUStatus, AdapterGetFormatCapabilities, (WGPUAdapter adapter, WGPUTextureFormat format, WGPUDawnFormatCapabilities *capabilities), (adapter, format, capabilities)) \
  X(0, V, void, AdapterPropertiesMemoryHeapsFreeMembers, (WGPUAdapterPropertiesMemoryHeaps adapterPropertiesMemoryHeaps), (adapterPropertiesMemoryHeaps)) \
  X(0, V, void, AdapterPropertiesSubgroupMatrixConfigsFreeMembers, (WGPUAdapterPropertiesSubgroupMatrixConfigs adapterPropertiesSubgroupMatrixConfigs), (adapterPropertiesSubgroupMatrixConfigs)) \
  X(0, V, void, DawnDrmFormatCapabilitiesFreeMembers, (WGPUDawnDrmFormatCapabilities dawnDrmFormatCapabilities), (dawnDrmFormatCapabilities)) \
  X(0, R, WGPUExternalTexture, DeviceCreateExternalTexture, (WGPUDevice device, const WGPUExternalTextureDescriptor *externalTextureDescriptor), (device, externalTextureDescriptor)) \
  X(0, R, WGPUStatus, DeviceGetAHardwareBufferProperties, (WGPUDevice device, void *handle, WGPUAHardwareBufferProperties *properties), (device, handle, properties)) \
  X(0, R, WGPUSharedBufferMemory, DeviceImportSharedBufferMemory, (WGPUDevice device, const WGPUSharedBufferMemoryDescriptor *descriptor), (device, descriptor)) \
  X(0, R, WGPUSharedFence, DeviceImportSharedFence, (WGPUDevice device, const WGPUSharedFenceDescriptor *descriptor), (device, descriptor)) \
  X(0, R, WGPUSharedTextureMemory, DeviceImportSharedTextureMemory, (WGPUDevice device, const WGPUSharedTextureMemoryDescriptor *descriptor), (device, descriptor)) \
  X(0, V, void, DeviceSetLoggingCallback, (WGPUDevice device, WGPULoggingCallbackInfo callbackInfo), (device, callbackInfo)) \
  X(0, R, WGPUStatus, GetInstanceCapabilities, (WGPUInstanceCapabilities *capabilities), (capabilities)) \
  X(0, R, WGPUStatus, InstanceGetWGSLLanguageFeatures, (WGPUInstance instance, WGPUSupportedWGSLLanguageFeatures *features), (instance, features)) \
  X(0, V, void, QueueCopyExternalTextureForBrowser, (WGPUQueue queue, const WGPUImageCopyExternalTexture *source, const WGPUTexelCopyTextureInfo *destination, const WGPUExtent3D *copySize, const WGPUCopyTextureForBrowserOptions *options), (queue, source, destination, copySize, options)) \
  X(0, V, void, QueueCopyTextureForBrowser, (WGPUQueue queue, const WGPUTexelCopyTextureInfo *source, const WGPUTexelCopyTextureInfo *destination, const WGPUExtent3D *copySize, const WGPUCopyTextureForBrowserOptions *options), (queue, source, destination, copySize, options)) \
  X(0, V, void, SharedBufferMemoryAddRef, (WGPUSharedBufferMemory sharedBufferMemory), (sharedBufferMemory)) \
  X(0, R, WGPUStatus, SharedBufferMemoryBeginAccess, (WGPUSharedBufferMemory sharedBufferMemory, WGPUBuffer buffer, const WGPUSharedBufferMemoryBeginAccessDescriptor *descriptor), (sharedBufferMemory, buffer, descriptor)) \
  X(0, R, WGPUBuffer, SharedBufferMemoryCreateBuffer, (WGPUSharedBufferMemory sharedBufferMemory, const WGPUBufferDescriptor *descriptor), (sharedBufferMemory, descriptor)) \
  X(0, R, WGPUStatus, SharedBufferMemoryEndAccess, (WGPUSharedBufferMemory sharedBufferMemory, WGPUBuffer buffer, WGPUSharedBufferMemoryEndAccessState *descriptor), (sharedBufferMemory, buffer, descriptor)) \
  X(0, V, void, SharedBufferMemoryEndAccessStateFreeMembers, (WGPUSharedBufferMemoryEndAccessState sharedBufferMemoryEndAccessState), (sharedBufferMemoryEndAccessState)) \
  X(0, R, WGPUStatus, SharedBufferMemoryGetProperties, (WGPUSharedBufferMemory sharedBufferMemory, WGPUSharedBufferMemoryProperties *properties), (sharedBufferMemory, properties)) \
  X(0, R, WGPUBool, SharedBufferMemoryIsDeviceLost, (WGPUSharedBufferMemory sharedBufferMemory), (sharedBufferMemory)) \
  X(0, V, void, SharedBufferMemoryRelease, (WGPUSharedBufferMemory sharedBufferMemory), (sharedBufferMemory)) \
  X(0, V, void, SharedBufferMemorySetLabel, (WGPUSharedBufferMemory sharedBufferMemory, WGPUStringView label), (sharedBufferMemory, label)) \
  X(0, V, void, SharedFenceAddRef, (WGPUSharedFence sharedFence), (sharedFence)) \
  X(0, V, void, SharedFenceExportInfo, (WGPUSharedFence sharedFence, WGPUSharedFenceExportInfo *info), (sharedFence, info)) \
  X(0, V, void, SharedFenceRelease, (WGPUSharedFence sharedFence), (sharedFence)) \
  X(0, V, void, SharedTextureMemoryAddRef, (WGPUSharedTextureMemory sharedTextureMemory), (sharedTextureMemory)) \
  X(0, R, WGPUStatus, SharedTextureMemoryBeginAccess, (WGPUSharedTextureMemory sharedTextureMemory, WGPUTexture texture, const WGPUSharedTextureMemoryBeginAccessDescriptor *descriptor), (sharedTextureMemory, texture, descriptor)) \
  X(0, R, WGPUTexture, SharedTextureMemoryCreateTexture, (WGPUSharedTextureMemory sharedTextureMemory, const WGPUTextureDescriptor *descriptor), (sharedTextureMemory, descriptor)) \
  X(0, R, WGPUStatus, SharedTextureMemoryEndAccess, (WGPUSharedTextureMemory sharedTextureMemory, WGPUTexture texture, WGPUSharedTextureMemoryEndAccessState *descriptor), (sharedTextureMemory, texture, descriptor)) \
  X(0, V, void, SharedTextureMemoryEndAccessStateFreeMembers, (WGPUSharedTextureMemoryEndAccessState sharedTextureMemoryEndAccessState), (sharedTextureMemoryEndAccessState)) \
  X(0, R, WGPUStatus, SharedTextureMemoryGetProperties, (WGPUSharedTextureMemory sharedTextureMemory, WGPUSharedTextureMemoryProperties *properties), (sharedTextureMemory, properties)) \
  X(0, R, WGPUBool, SharedTextureMemoryIsDeviceLost, (WGPUSharedTextureMemory sharedTextureMemory), (sharedTextureMemory)) \
  X(0, V, void, SharedTextureMemoryRelease, (WGPUSharedTextureMemory sharedTextureMemory), (sharedTextureMemory)) \
  X(0, V, void, SharedTextureMemorySetLabel, (WGPUSharedTextureMemory sharedTextureMemory, WGPUStringView label), (sharedTextureMemory, label)) \
  X(0, V, void, SurfacePresent, (WGPUSurface surface), (surface))

/* The stable revision's own (or declared otherwise there): none required. */
#define UL__WGPU_PROCS_STABLE(X) \
  X(0, V, void, ComputePassEncoderSetImmediates, (WGPUComputePassEncoder computePassEncoder, uint32_t offset, const void *data, size_t size), (computePassEncoder, offset, data, size)) \
  X(0, V, void, GetInstanceFeatures, (WGPUSupportedInstanceFeatures *features), (features)) \
  X(0, R, WGPUStatus, GetInstanceLimits, (WGPUInstanceLimits *limits), (limits)) \
  X(0, R, WGPUBool, HasInstanceFeature, (WGPUInstanceFeatureName feature), (feature)) \
  X(0, V, void, InstanceGetWGSLLanguageFeatures, (WGPUInstance instance, WGPUSupportedWGSLLanguageFeatures *features), (instance, features)) \
  X(0, V, void, RenderBundleEncoderSetImmediates, (WGPURenderBundleEncoder renderBundleEncoder, uint32_t offset, const void *data, size_t size), (renderBundleEncoder, offset, data, size)) \
  X(0, V, void, RenderPassEncoderSetImmediates, (WGPURenderPassEncoder renderPassEncoder, uint32_t offset, const void *data, size_t size), (renderPassEncoder, offset, data, size)) \
  X(0, V, void, SupportedInstanceFeaturesFreeMembers, (WGPUSupportedInstanceFeatures supportedInstanceFeatures), (supportedInstanceFeatures)) \
  X(0, R, WGPUStatus, SurfacePresent, (WGPUSurface surface), (surface)) \
  X(0, R, WGPUTextureViewDimension, TextureGetTextureBindingViewDimension, (WGPUTexture texture), (texture))

#if UL_WGPU_STABLE
#define UL__WGPU_PROCS(X) UL__WGPU_PROCS_COMMON(X) UL__WGPU_PROCS_STABLE(X)
#else
#define UL__WGPU_PROCS(X) UL__WGPU_PROCS_COMMON(X) UL__WGPU_PROCS_PINNED(X)
#endif

typedef struct ul__wgpu {
#define UL__PROC_MEMBER(req, kind, Ret, Name, params, args) Ret(*Name) params;
  UL__WGPU_PROCS(UL__PROC_MEMBER)
#undef UL__PROC_MEMBER
} ul__wgpu;

/* A loaded implementation. */
typedef struct ul__wgpu_lib {
  void *handle;    /* dlopen handle */
  char *path;      /* the path that was opened (owned) */
  ul__wgpu procs;  /* as loaded; optional entries may be NULL */
} ul__wgpu_lib;

/* Opens `path` (NULL: UNLOST_WEBGPU_LIB, then the built-in default list) and
 * fills the table. Fails with UL_ERR_NO_IMPLEMENTATION naming the path and
 * what to do; on failure `lib` holds nothing. */
ul_status ul__wgpu_open(const char *path, ul__wgpu_lib *lib);
void ul__wgpu_close(ul__wgpu_lib *lib);
/* The path ul__wgpu_open would try first for NULL. */
const char *ul__wgpu_default_path(void);

/* An instance descriptor asking for timed waits on up to `max` futures at
 * once (none when !timed), in the revision this build speaks: a capability
 * of the pinned one, a required feature and limit of the stable one. */
typedef struct ul__instance_req {
  WGPUInstanceDescriptor desc;
#if UL_WGPU_STABLE
  WGPUInstanceFeatureName feature;
  WGPUInstanceLimits limits;
#endif
} ul__instance_req;
static inline const WGPUInstanceDescriptor *ul__instance_req_init(ul__instance_req *r, bool timed, uint32_t max) {
  memset(r, 0, sizeof *r);
  if (!timed) return &r->desc;
#if UL_WGPU_STABLE
  r->feature = WGPUInstanceFeatureName_TimedWaitAny;
  r->limits.timedWaitAnyMaxCount = max;
  r->desc.requiredFeatureCount = 1;
  r->desc.requiredFeatures = &r->feature;
  r->desc.requiredLimits = &r->limits;
#else
  r->desc.capabilities.timedWaitAnyEnable = 1;
  r->desc.capabilities.timedWaitAnyMaxCount = max;
#endif
  return &r->desc;
}

/* Helpers for WGPUStringView. */
static inline WGPUStringView ul__sv(const char *s) {
  WGPUStringView v = {s, s ? WGPU_STRLEN : 0};
  return v;
}
/* Copies a string view into buf (always NUL-terminated). */
void ul__sv_copy(WGPUStringView v, char *buf, size_t cap);

#endif
