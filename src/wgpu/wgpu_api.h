/* Internal to unlost: every entry point the pinned implementation exports
 * (253 wgpu* functions of Dawn's header revision df73f16), as one list:
 * X(Ret, Name, (params), (args)), the symbol being "wgpu" #Name. The
 * webgpu.h front door (src/webgpu/) defines each of them -- recovered,
 * forwarded or refused (docs/webgpu.md) -- so that no call of a program
 * resolves to the implementation with one of the layer's objects. Made by
 * the same script as wgpu/wgpu.h, from the implementation's symbol table
 * (`nm -D`) and Dawn's interface description; tests/test_abi.c checks the
 * list against the symbol table. */
#ifndef UL_WGPU_API_H
#define UL_WGPU_API_H

#include "wgpu/wgpu.h"

#define UL__WGPU_API(X) \
  X(void, AdapterAddRef, (WGPUAdapter adapter), (adapter)) \
  X(WGPUDevice, AdapterCreateDevice, (WGPUAdapter adapter, const WGPUDeviceDescriptor *descriptor), (adapter, descriptor)) \
  X(void, AdapterGetFeatures, (WGPUAdapter adapter, WGPUSupportedFeatures *features), (adapter, features)) \
  X(WGPUStatus, AdapterGetFormatCapabilities, (WGPUAdapter adapter, WGPUTextureFormat format, WGPUDawnFormatCapabilities *capabilities), (adapter, format, capabilities)) \
  X(WGPUStatus, AdapterGetInfo, (WGPUAdapter adapter, WGPUAdapterInfo *info), (adapter, info)) \
  X(WGPUInstance, AdapterGetInstance, (WGPUAdapter adapter), (adapter)) \
  X(WGPUStatus, AdapterGetLimits, (WGPUAdapter adapter, WGPULimits *limits), (adapter, limits)) \
  X(WGPUBool, AdapterHasFeature, (WGPUAdapter adapter, WGPUFeatureName feature), (adapter, feature)) \
  X(void, AdapterInfoFreeMembers, (WGPUAdapterInfo adapterInfo), (adapterInfo)) \
  X(void, AdapterPropertiesMemoryHeapsFreeMembers, (WGPUAdapterPropertiesMemoryHeaps adapterPropertiesMemoryHeaps), (adapterPropertiesMemoryHeaps)) \
  X(void, AdapterPropertiesSubgroupMatrixConfigsFreeMembers, (WGPUAdapterPropertiesSubgroupMatrixConfigs adapterPropertiesSubgroupMatrixConfigs), (adapterPropertiesSubgroupMatrixConfigs)) \
  X(void, AdapterRelease, (WGPUAdapter adapter), (adapter)) \
  X(WGPUFuture, AdapterRequestDevice, (WGPUAdapter adapter, const WGPUDeviceDescriptor *descriptor, WGPURequestDeviceCallbackInfo callbackInfo), (adapter, descriptor, callbackInfo)) \
  X(void, BindGroupAddRef, (WGPUBindGroup bindGroup), (bindGroup)) \
  X(void, BindGroupLayoutAddRef, (WGPUBindGroupLayout bindGroupLayout), (bindGroupLayout)) \
  X(void, BindGroupLayoutRelease, (WGPUBindGroupLayout bindGroupLayout), (bindGroupLayout)) \
  X(void, BindGroupLayoutSetLabel, (WGPUBindGroupLayout bindGroupLayout, WGPUStringView label), (bindGroupLayout, label)) \
  X(void, BindGroupRelease, (WGPUBindGroup bindGroup), (bindGroup)) \
  X(void, BindGroupSetLabel, (WGPUBindGroup bindGroup, WGPUStringView label), (bindGroup, label)) \
  X(void, BufferAddRef, (WGPUBuffer buffer), (buffer)) \
  X(void, BufferDestroy, (WGPUBuffer buffer), (buffer)) \
  X(const void *, BufferGetConstMappedRange, (WGPUBuffer buffer, size_t offset, size_t size), (buffer, offset, size)) \
  X(WGPUBufferMapState, BufferGetMapState, (WGPUBuffer buffer), (buffer)) \
  X(void *, BufferGetMappedRange, (WGPUBuffer buffer, size_t offset, size_t size), (buffer, offset, size)) \
  X(uint64_t, BufferGetSize, (WGPUBuffer buffer), (buffer)) \
  X(WGPUBufferUsage, BufferGetUsage, (WGPUBuffer buffer), (buffer)) \
  X(WGPUFuture, BufferMapAsync, (WGPUBuffer buffer, WGPUMapMode mode, size_t offset, size_t size, WGPUBufferMapCallbackInfo callbackInfo), (buffer, mode, offset, size, callbackInfo)) \
  X(WGPUStatus, BufferReadMappedRange, (WGPUBuffer buffer, size_t offset, void *data, size_t size), (buffer, offset, data, size)) \
  X(void, BufferRelease, (WGPUBuffer buffer), (buffer)) \
  X(void, BufferSetLabel, (WGPUBuffer buffer, WGPUStringView label), (buffer, label)) \
  X(void, BufferUnmap, (WGPUBuffer buffer), (buffer)) \
  X(WGPUStatus, BufferWriteMappedRange, (WGPUBuffer buffer, size_t offset, const void *data, size_t size), (buffer, offset, data, size)) \
  X(void, CommandBufferAddRef, (WGPUCommandBuffer commandBuffer), (commandBuffer)) \
  X(void, CommandBufferRelease, (WGPUCommandBuffer commandBuffer), (commandBuffer)) \
  X(void, CommandBufferSetLabel, (WGPUCommandBuffer commandBuffer, WGPUStringView label), (commandBuffer, label)) \
  X(void, CommandEncoderAddRef, (WGPUCommandEncoder commandEncoder), (commandEncoder)) \
  X(WGPUComputePassEncoder, CommandEncoderBeginComputePass, (WGPUCommandEncoder commandEncoder, const WGPUComputePassDescriptor *descriptor), (commandEncoder, descriptor)) \
  X(WGPURenderPassEncoder, CommandEncoderBeginRenderPass, (WGPUCommandEncoder commandEncoder, const WGPURenderPassDescriptor *descriptor), (commandEncoder, descriptor)) \
  X(void, CommandEncoderClearBuffer, (WGPUCommandEncoder commandEncoder, WGPUBuffer buffer, uint64_t offset, uint64_t size), (commandEncoder, buffer, offset, size)) \
  X(void, CommandEncoderCopyBufferToBuffer, (WGPUCommandEncoder commandEncoder, WGPUBuffer source, uint64_t sourceOffset, WGPUBuffer destination, uint64_t destinationOffset, uint64_t size), (commandEncoder, source, sourceOffset, destination, destinationOffset, size)) \
  X(void, CommandEncoderCopyBufferToTexture, (WGPUCommandEncoder commandEncoder, const WGPUTexelCopyBufferInfo *source, const WGPUTexelCopyTextureInfo *destination, const WGPUExtent3D *copySize), (commandEncoder, source, destination, copySize)) \
  X(void, CommandEncoderCopyTextureToBuffer, (WGPUCommandEncoder commandEncoder, const WGPUTexelCopyTextureInfo *source, const WGPUTexelCopyBufferInfo *destination, const WGPUExtent3D *copySize), (commandEncoder, source, destination, copySize)) \
  X(void, CommandEncoderCopyTextureToTexture, (WGPUCommandEncoder commandEncoder, const WGPUTexelCopyTextureInfo *source, const WGPUTexelCopyTextureInfo *destination, const WGPUExtent3D *copySize), (commandEncoder, source, destination, copySize)) \
  X(WGPUCommandBuffer, CommandEncoderFinish, (WGPUCommandEncoder commandEncoder, const WGPUCommandBufferDescriptor *descriptor), (commandEncoder, descriptor)) \
  X(void, CommandEncoderInjectValidationError, (WGPUCommandEncoder commandEncoder, WGPUStringView message), (commandEncoder, message)) \
  X(void, CommandEncoderInsertDebugMarker, (WGPUCommandEncoder commandEncoder, WGPUStringView markerLabel), (commandEncoder, markerLabel)) \
  X(void, CommandEncoderPopDebugGroup, (WGPUCommandEncoder commandEncoder), (commandEncoder)) \
  X(void, CommandEncoderPushDebugGroup, (WGPUCommandEncoder commandEncoder, WGPUStringView groupLabel), (commandEncoder, groupLabel)) \
  X(void, CommandEncoderRelease, (WGPUCommandEncoder commandEncoder), (commandEncoder)) \
  X(void, CommandEncoderResolveQuerySet, (WGPUCommandEncoder commandEncoder, WGPUQuerySet querySet, uint32_t firstQuery, uint32_t queryCount, WGPUBuffer destination, uint64_t destinationOffset), (commandEncoder, querySet, firstQuery, queryCount, destination, destinationOffset)) \
  X(void, CommandEncoderSetLabel, (WGPUCommandEncoder commandEncoder, WGPUStringView label), (commandEncoder, label)) \
  X(void, CommandEncoderWriteBuffer, (WGPUCommandEncoder commandEncoder, WGPUBuffer buffer, uint64_t bufferOffset, const uint8_t *data, uint64_t size), (commandEncoder, buffer, bufferOffset, data, size)) \
  X(void, CommandEncoderWriteTimestamp, (WGPUCommandEncoder commandEncoder, WGPUQuerySet querySet, uint32_t queryIndex), (commandEncoder, querySet, queryIndex)) \
  X(void, ComputePassEncoderAddRef, (WGPUComputePassEncoder computePassEncoder), (computePassEncoder)) \
  X(void, ComputePassEncoderDispatchWorkgroups, (WGPUComputePassEncoder computePassEncoder, uint32_t workgroupCountX, uint32_t workgroupCountY, uint32_t workgroupCountZ), (computePassEncoder, workgroupCountX, workgroupCountY, workgroupCountZ)) \
  X(void, ComputePassEncoderDispatchWorkgroupsIndirect, (WGPUComputePassEncoder computePassEncoder, WGPUBuffer indirectBuffer, uint64_t indirectOffset), (computePassEncoder, indirectBuffer, indirectOffset)) \
  X(void, ComputePassEncoderEnd, (WGPUComputePassEncoder computePassEncoder), (computePassEncoder)) \
  X(void, ComputePassEncoderInsertDebugMarker, (WGPUComputePassEncoder computePassEncoder, WGPUStringView markerLabel), (computePassEncoder, markerLabel)) \
  X(void, ComputePassEncoderPopDebugGroup, (WGPUComputePassEncoder computePassEncoder), (computePassEncoder)) \
  X(void, ComputePassEncoderPushDebugGroup, (WGPUComputePassEncoder computePassEncoder, WGPUStringView groupLabel), (computePassEncoder, groupLabel)) \
  X(void, ComputePassEncoderRelease, (WGPUComputePassEncoder computePassEncoder), (computePassEncoder)) \
  X(void, ComputePassEncoderSetBindGroup, (WGPUComputePassEncoder computePassEncoder, uint32_t groupIndex, WGPUBindGroup group, size_t dynamicOffsetCount, const uint32_t *dynamicOffsets), (computePassEncoder, groupIndex, group, dynamicOffsetCount, dynamicOffsets)) \
  X(void, ComputePassEncoderSetImmediateData, (WGPUComputePassEncoder computePassEncoder, uint32_t offset, const void *data, size_t size), (computePassEncoder, offset, data, size)) \
  X(void, ComputePassEncoderSetLabel, (WGPUComputePassEncoder computePassEncoder, WGPUStringView label), (computePassEncoder, label)) \
  X(void, ComputePassEncoderSetPipeline, (WGPUComputePassEncoder computePassEncoder, WGPUComputePipeline pipeline), (computePassEncoder, pipeline)) \
  X(void, ComputePassEncoderWriteTimestamp, (WGPUComputePassEncoder computePassEncoder, WGPUQuerySet querySet, uint32_t queryIndex), (computePassEncoder, querySet, queryIndex)) \
  X(void, ComputePipelineAddRef, (WGPUComputePipeline computePipeline), (computePipeline)) \
  X(WGPUBindGroupLayout, ComputePipelineGetBindGroupLayout, (WGPUComputePipeline computePipeline, uint32_t groupIndex), (computePipeline, groupIndex)) \
  X(void, ComputePipelineRelease, (WGPUComputePipeline computePipeline), (computePipeline)) \
  X(void, ComputePipelineSetLabel, (WGPUComputePipeline computePipeline, WGPUStringView label), (computePipeline, label)) \
  X(WGPUInstance, CreateInstance, (const WGPUInstanceDescriptor *descriptor), (descriptor)) \
  X(void, DawnDrmFormatCapabilitiesFreeMembers, (WGPUDawnDrmFormatCapabilities dawnDrmFormatCapabilities), (dawnDrmFormatCapabilities)) \
  X(void, DeviceAddRef, (WGPUDevice device), (device)) \
  X(WGPUBindGroup, DeviceCreateBindGroup, (WGPUDevice device, const WGPUBindGroupDescriptor *descriptor), (device, descriptor)) \
  X(WGPUBindGroupLayout, DeviceCreateBindGroupLayout, (WGPUDevice device, const WGPUBindGroupLayoutDescriptor *descriptor), (device, descriptor)) \
  X(WGPUBuffer, DeviceCreateBuffer, (WGPUDevice device, const WGPUBufferDescriptor *descriptor), (device, descriptor)) \
  X(WGPUCommandEncoder, DeviceCreateCommandEncoder, (WGPUDevice device, const WGPUCommandEncoderDescriptor *descriptor), (device, descriptor)) \
  X(WGPUComputePipeline, DeviceCreateComputePipeline, (WGPUDevice device, const WGPUComputePipelineDescriptor *descriptor), (device, descriptor)) \
  X(WGPUFuture, DeviceCreateComputePipelineAsync, (WGPUDevice device, const WGPUComputePipelineDescriptor *descriptor, WGPUCreateComputePipelineAsyncCallbackInfo callbackInfo), (device, descriptor, callbackInfo)) \
  X(WGPUBuffer, DeviceCreateErrorBuffer, (WGPUDevice device, const WGPUBufferDescriptor *descriptor), (device, descriptor)) \
  X(WGPUExternalTexture, DeviceCreateErrorExternalTexture, (WGPUDevice device), (device)) \
  X(WGPUShaderModule, DeviceCreateErrorShaderModule, (WGPUDevice device, const WGPUShaderModuleDescriptor *descriptor, WGPUStringView errorMessage), (device, descriptor, errorMessage)) \
  X(WGPUTexture, DeviceCreateErrorTexture, (WGPUDevice device, const WGPUTextureDescriptor *descriptor), (device, descriptor)) \
  X(WGPUExternalTexture, DeviceCreateExternalTexture, (WGPUDevice device, const WGPUExternalTextureDescriptor *externalTextureDescriptor), (device, externalTextureDescriptor)) \
  X(WGPUPipelineLayout, DeviceCreatePipelineLayout, (WGPUDevice device, const WGPUPipelineLayoutDescriptor *descriptor), (device, descriptor)) \
  X(WGPUQuerySet, DeviceCreateQuerySet, (WGPUDevice device, const WGPUQuerySetDescriptor *descriptor), (device, descriptor)) \
  X(WGPURenderBundleEncoder, DeviceCreateRenderBundleEncoder, (WGPUDevice device, const WGPURenderBundleEncoderDescriptor *descriptor), (device, descriptor)) \
  X(WGPURenderPipeline, DeviceCreateRenderPipeline, (WGPUDevice device, const WGPURenderPipelineDescriptor *descriptor), (device, descriptor)) \
  X(WGPUFuture, DeviceCreateRenderPipelineAsync, (WGPUDevice device, const WGPURenderPipelineDescriptor *descriptor, WGPUCreateRenderPipelineAsyncCallbackInfo callbackInfo), (device, descriptor, callbackInfo)) \
  X(WGPUSampler, DeviceCreateSampler, (WGPUDevice device, const WGPUSamplerDescriptor *descriptor), (device, descriptor)) \
  X(WGPUShaderModule, DeviceCreateShaderModule, (WGPUDevice device, const WGPUShaderModuleDescriptor *descriptor), (device, descriptor)) \
  X(WGPUTexture, DeviceCreateTexture, (WGPUDevice device, const WGPUTextureDescriptor *descriptor), (device, descriptor)) \
  X(void, DeviceDestroy, (WGPUDevice device), (device)) \
  X(void, DeviceForceLoss, (WGPUDevice device, WGPUDeviceLostReason type, WGPUStringView message), (device, type, message)) \
  X(WGPUStatus, DeviceGetAHardwareBufferProperties, (WGPUDevice device, void *handle, WGPUAHardwareBufferProperties *properties), (device, handle, properties)) \
  X(WGPUAdapter, DeviceGetAdapter, (WGPUDevice device), (device)) \
  X(WGPUStatus, DeviceGetAdapterInfo, (WGPUDevice device, WGPUAdapterInfo *adapterInfo), (device, adapterInfo)) \
  X(void, DeviceGetFeatures, (WGPUDevice device, WGPUSupportedFeatures *features), (device, features)) \
  X(WGPUStatus, DeviceGetLimits, (WGPUDevice device, WGPULimits *limits), (device, limits)) \
  X(WGPUFuture, DeviceGetLostFuture, (WGPUDevice device), (device)) \
  X(WGPUQueue, DeviceGetQueue, (WGPUDevice device), (device)) \
  X(WGPUBool, DeviceHasFeature, (WGPUDevice device, WGPUFeatureName feature), (device, feature)) \
  X(WGPUSharedBufferMemory, DeviceImportSharedBufferMemory, (WGPUDevice device, const WGPUSharedBufferMemoryDescriptor *descriptor), (device, descriptor)) \
  X(WGPUSharedFence, DeviceImportSharedFence, (WGPUDevice device, const WGPUSharedFenceDescriptor *descriptor), (device, descriptor)) \
  X(WGPUSharedTextureMemory, DeviceImportSharedTextureMemory, (WGPUDevice device, const WGPUSharedTextureMemoryDescriptor *descriptor), (device, descriptor)) \
  X(void, DeviceInjectError, (WGPUDevice device, WGPUErrorType type, WGPUStringView message), (device, type, message)) \
  X(WGPUFuture, DevicePopErrorScope, (WGPUDevice device, WGPUPopErrorScopeCallbackInfo callbackInfo), (device, callbackInfo)) \
  X(void, DevicePushErrorScope, (WGPUDevice device, WGPUErrorFilter filter), (device, filter)) \
  X(void, DeviceRelease, (WGPUDevice device), (device)) \
  X(void, DeviceSetLabel, (WGPUDevice device, WGPUStringView label), (device, label)) \
  X(void, DeviceSetLoggingCallback, (WGPUDevice device, WGPULoggingCallbackInfo callbackInfo), (device, callbackInfo)) \
  X(void, DeviceTick, (WGPUDevice device), (device)) \
  X(void, DeviceValidateTextureDescriptor, (WGPUDevice device, const WGPUTextureDescriptor *descriptor), (device, descriptor)) \
  X(void, ExternalTextureAddRef, (WGPUExternalTexture externalTexture), (externalTexture)) \
  X(void, ExternalTextureDestroy, (WGPUExternalTexture externalTexture), (externalTexture)) \
  X(void, ExternalTextureExpire, (WGPUExternalTexture externalTexture), (externalTexture)) \
  X(void, ExternalTextureRefresh, (WGPUExternalTexture externalTexture), (externalTexture)) \
  X(void, ExternalTextureRelease, (WGPUExternalTexture externalTexture), (externalTexture)) \
  X(void, ExternalTextureSetLabel, (WGPUExternalTexture externalTexture, WGPUStringView label), (externalTexture, label)) \
  X(WGPUStatus, GetInstanceCapabilities, (WGPUInstanceCapabilities *capabilities), (capabilities)) \
  X(WGPUProc, GetProcAddress, (WGPUStringView procName), (procName)) \
  X(void, InstanceAddRef, (WGPUInstance instance), (instance)) \
  X(WGPUSurface, InstanceCreateSurface, (WGPUInstance instance, const WGPUSurfaceDescriptor *descriptor), (instance, descriptor)) \
  X(WGPUStatus, InstanceGetWGSLLanguageFeatures, (WGPUInstance instance, WGPUSupportedWGSLLanguageFeatures *features), (instance, features)) \
  X(WGPUBool, InstanceHasWGSLLanguageFeature, (WGPUInstance instance, WGPUWGSLLanguageFeatureName feature), (instance, feature)) \
  X(void, InstanceProcessEvents, (WGPUInstance instance), (instance)) \
  X(void, InstanceRelease, (WGPUInstance instance), (instance)) \
  X(WGPUFuture, InstanceRequestAdapter, (WGPUInstance instance, const WGPURequestAdapterOptions *options, WGPURequestAdapterCallbackInfo callbackInfo), (instance, options, callbackInfo)) \
  X(WGPUWaitStatus, InstanceWaitAny, (WGPUInstance instance, size_t futureCount, WGPUFutureWaitInfo *futures, uint64_t timeoutNS), (instance, futureCount, futures, timeoutNS)) \
  X(void, PipelineLayoutAddRef, (WGPUPipelineLayout pipelineLayout), (pipelineLayout)) \
  X(void, PipelineLayoutRelease, (WGPUPipelineLayout pipelineLayout), (pipelineLayout)) \
  X(void, PipelineLayoutSetLabel, (WGPUPipelineLayout pipelineLayout, WGPUStringView label), (pipelineLayout, label)) \
  X(void, QuerySetAddRef, (WGPUQuerySet querySet), (querySet)) \
  X(void, QuerySetDestroy, (WGPUQuerySet querySet), (querySet)) \
  X(uint32_t, QuerySetGetCount, (WGPUQuerySet querySet), (querySet)) \
  X(WGPUQueryType, QuerySetGetType, (WGPUQuerySet querySet), (querySet)) \
  X(void, QuerySetRelease, (WGPUQuerySet querySet), (querySet)) \
  X(void, QuerySetSetLabel, (WGPUQuerySet querySet, WGPUStringView label), (querySet, label)) \
  X(void, QueueAddRef, (WGPUQueue queue), (queue)) \
  X(void, QueueCopyExternalTextureForBrowser, (WGPUQueue queue, const WGPUImageCopyExternalTexture *source, const WGPUTexelCopyTextureInfo *destination, const WGPUExtent3D *copySize, const WGPUCopyTextureForBrowserOptions *options), (queue, source, destination, copySize, options)) \
  X(void, QueueCopyTextureForBrowser, (WGPUQueue queue, const WGPUTexelCopyTextureInfo *source, const WGPUTexelCopyTextureInfo *destination, const WGPUExtent3D *copySize, const WGPUCopyTextureForBrowserOptions *options), (queue, source, destination, copySize, options)) \
  X(WGPUFuture, QueueOnSubmittedWorkDone, (WGPUQueue queue, WGPUQueueWorkDoneCallbackInfo callbackInfo), (queue, callbackInfo)) \
  X(void, QueueRelease, (WGPUQueue queue), (queue)) \
  X(void, QueueSetLabel, (WGPUQueue queue, WGPUStringView label), (queue, label)) \
  X(void, QueueSubmit, (WGPUQueue queue, size_t commandCount, const WGPUCommandBuffer *commands), (queue, commandCount, commands)) \
  X(void, QueueWriteBuffer, (WGPUQueue queue, WGPUBuffer buffer, uint64_t bufferOffset, const void *data, size_t size), (queue, buffer, bufferOffset, data, size)) \
  X(void, QueueWriteTexture, (WGPUQueue queue, const WGPUTexelCopyTextureInfo *destination, const void *data, size_t dataSize, const WGPUTexelCopyBufferLayout *dataLayout, const WGPUExtent3D *writeSize), (queue, destination, data, dataSize, dataLayout, writeSize)) \
  X(void, RenderBundleAddRef, (WGPURenderBundle renderBundle), (renderBundle)) \
  X(void, RenderBundleEncoderAddRef, (WGPURenderBundleEncoder renderBundleEncoder), (renderBundleEncoder)) \
  X(void, RenderBundleEncoderDraw, (WGPURenderBundleEncoder renderBundleEncoder, uint32_t vertexCount, uint32_t instanceCount, uint32_t firstVertex, uint32_t firstInstance), (renderBundleEncoder, vertexCount, instanceCount, firstVertex, firstInstance)) \
  X(void, RenderBundleEncoderDrawIndexed, (WGPURenderBundleEncoder renderBundleEncoder, uint32_t indexCount, uint32_t instanceCount, uint32_t firstIndex, int32_t baseVertex, uint32_t firstInstance), (renderBundleEncoder, indexCount, instanceCount, firstIndex, baseVertex, firstInstance)) \
  X(void, RenderBundleEncoderDrawIndexedIndirect, (WGPURenderBundleEncoder renderBundleEncoder, WGPUBuffer indirectBuffer, uint64_t indirectOffset), (renderBundleEncoder, indirectBuffer, indirectOffset)) \
  X(void, RenderBundleEncoderDrawIndirect, (WGPURenderBundleEncoder renderBundleEncoder, WGPUBuffer indirectBuffer, uint64_t indirectOffset), (renderBundleEncoder, indirectBuffer, indirectOffset)) \
  X(WGPURenderBundle, RenderBundleEncoderFinish, (WGPURenderBundleEncoder renderBundleEncoder, const WGPURenderBundleDescriptor *descriptor), (renderBundleEncoder, descriptor)) \
  X(void, RenderBundleEncoderInsertDebugMarker, (WGPURenderBundleEncoder renderBundleEncoder, WGPUStringView markerLabel), (renderBundleEncoder, markerLabel)) \
  X(void, RenderBundleEncoderPopDebugGroup, (WGPURenderBundleEncoder renderBundleEncoder), (renderBundleEncoder)) \
  X(void, RenderBundleEncoderPushDebugGroup, (WGPURenderBundleEncoder renderBundleEncoder, WGPUStringView groupLabel), (renderBundleEncoder, groupLabel)) \
  X(void, RenderBundleEncoderRelease, (WGPURenderBundleEncoder renderBundleEncoder), (renderBundleEncoder)) \
  X(void, RenderBundleEncoderSetBindGroup, (WGPURenderBundleEncoder renderBundleEncoder, uint32_t groupIndex, WGPUBindGroup group, size_t dynamicOffsetCount, const uint32_t *dynamicOffsets), (renderBundleEncoder, groupIndex, group, dynamicOffsetCount, dynamicOffsets)) \
  X(void, RenderBundleEncoderSetImmediateData, (WGPURenderBundleEncoder renderBundleEncoder, uint32_t offset, const void *data, size_t size), (renderBundleEncoder, offset, data, size)) \
  X(void, RenderBundleEncoderSetIndexBuffer, (WGPURenderBundleEncoder renderBundleEncoder, WGPUBuffer buffer, WGPUIndexFormat format, uint64_t offset, uint64_t size), (renderBundleEncoder, buffer, format, offset, size)) \
  X(void, RenderBundleEncoderSetLabel, (WGPURenderBundleEncoder renderBundleEncoder, WGPUStringView label), (renderBundleEncoder, label)) \
  X(void, RenderBundleEncoderSetPipeline, (WGPURenderBundleEncoder renderBundleEncoder, WGPURenderPipeline pipeline), (renderBundleEncoder, pipeline)) \
  X(void, RenderBundleEncoderSetVertexBuffer, (WGPURenderBundleEncoder renderBundleEncoder, uint32_t slot, WGPUBuffer buffer, uint64_t offset, uint64_t size), (renderBundleEncoder, slot, buffer, offset, size)) \
  X(void, RenderBundleRelease, (WGPURenderBundle renderBundle), (renderBundle)) \
  X(void, RenderBundleSetLabel, (WGPURenderBundle renderBundle, WGPUStringView label), (renderBundle, label)) \
  X(void, RenderPassEncoderAddRef, (WGPURenderPassEncoder renderPassEncoder), (renderPassEncoder)) \
  X(void, RenderPassEncoderBeginOcclusionQuery, (WGPURenderPassEncoder renderPassEncoder, uint32_t queryIndex), (renderPassEncoder, queryIndex)) \
  X(void, RenderPassEncoderDraw, (WGPURenderPassEncoder renderPassEncoder, uint32_t vertexCount, uint32_t instanceCount, uint32_t firstVertex, uint32_t firstInstance), (renderPassEncoder, vertexCount, instanceCount, firstVertex, firstInstance)) \
  X(void, RenderPassEncoderDrawIndexed, (WGPURenderPassEncoder renderPassEncoder, uint32_t indexCount, uint32_t instanceCount, uint32_t firstIndex, int32_t baseVertex, uint32_t firstInstance), (renderPassEncoder, indexCount, instanceCount, firstIndex, baseVertex, firstInstance)) \
  X(void, RenderPassEncoderDrawIndexedIndirect, (WGPURenderPassEncoder renderPassEncoder, WGPUBuffer indirectBuffer, uint64_t indirectOffset), (renderPassEncoder, indirectBuffer, indirectOffset)) \
  X(void, RenderPassEncoderDrawIndirect, (WGPURenderPassEncoder renderPassEncoder, WGPUBuffer indirectBuffer, uint64_t indirectOffset), (renderPassEncoder, indirectBuffer, indirectOffset)) \
  X(void, RenderPassEncoderEnd, (WGPURenderPassEncoder renderPassEncoder), (renderPassEncoder)) \
  X(void, RenderPassEncoderEndOcclusionQuery, (WGPURenderPassEncoder renderPassEncoder), (renderPassEncoder)) \
  X(void, RenderPassEncoderExecuteBundles, (WGPURenderPassEncoder renderPassEncoder, size_t bundleCount, const WGPURenderBundle *bundles), (renderPassEncoder, bundleCount, bundles)) \
  X(void, RenderPassEncoderInsertDebugMarker, (WGPURenderPassEncoder renderPassEncoder, WGPUStringView markerLabel), (renderPassEncoder, markerLabel)) \
  X(void, RenderPassEncoderMultiDrawIndexedIndirect, (WGPURenderPassEncoder renderPassEncoder, WGPUBuffer indirectBuffer, uint64_t indirectOffset, uint32_t maxDrawCount, WGPUBuffer drawCountBuffer, uint64_t drawCountBufferOffset), (renderPassEncoder, indirectBuffer, indirectOffset, maxDrawCount, drawCountBuffer, drawCountBufferOffset)) \
  X(void, RenderPassEncoderMultiDrawIndirect, (WGPURenderPassEncoder renderPassEncoder, WGPUBuffer indirectBuffer, uint64_t indirectOffset, uint32_t maxDrawCount, WGPUBuffer drawCountBuffer, uint64_t drawCountBufferOffset), (renderPassEncoder, indirectBuffer, indirectOffset, maxDrawCount, drawCountBuffer, drawCountBufferOffset)) \
  X(void, RenderPassEncoderPixelLocalStorageBarrier, (WGPURenderPassEncoder renderPassEncoder), (renderPassEncoder)) \
  X(void, RenderPassEncoderPopDebugGroup, (WGPURenderPassEncoder renderPassEncoder), (renderPassEncoder)) \
  X(void, RenderPassEncoderPushDebugGroup, (WGPURenderPassEncoder renderPassEncoder, WGPUStringView groupLabel), (renderPassEncoder, groupLabel)) \
  X(void, RenderPassEncoderRelease, (WGPURenderPassEncoder renderPassEncoder), (renderPassEncoder)) \
  X(void, RenderPassEncoderSetBindGroup, (WGPURenderPassEncoder renderPassEncoder, uint32_t groupIndex, WGPUBindGroup group, size_t dynamicOffsetCount, const uint32_t *dynamicOffsets), (renderPassEncoder, groupIndex, group, dynamicOffsetCount, dynamicOffsets)) \
  X(void, RenderPassEncoderSetBlendConstant, (WGPURenderPassEncoder renderPassEncoder, const WGPUColor *color), (renderPassEncoder, color)) \
  X(void, RenderPassEncoderSetImmediateData, (WGPURenderPassEncoder renderPassEncoder, uint32_t offset, const void *data, size_t size), (renderPassEncoder, offset, data, size)) \
  X(void, RenderPassEncoderSetIndexBuffer, (WGPURenderPassEncoder renderPassEncoder, WGPUBuffer buffer, WGPUIndexFormat format, uint64_t offset, uint64_t size), (renderPassEncoder, buffer, format, offset, size)) \
  X(void, RenderPassEncoderSetLabel, (WGPURenderPassEncoder renderPassEncoder, WGPUStringView label), (renderPassEncoder, label)) \
  X(void, RenderPassEncoderSetPipeline, (WGPURenderPassEncoder renderPassEncoder, WGPURenderPipeline pipeline), (renderPassEncoder, pipeline)) \
  X(void, RenderPassEncoderSetScissorRect, (WGPURenderPassEncoder renderPassEncoder, uint32_t x, uint32_t y, uint32_t width, uint32_t height), (renderPassEncoder, x, y, width, height)) \
  X(void, RenderPassEncoderSetStencilReference, (WGPURenderPassEncoder renderPassEncoder, uint32_t reference), (renderPassEncoder, reference)) \
  X(void, RenderPassEncoderSetVertexBuffer, (WGPURenderPassEncoder renderPassEncoder, uint32_t slot, WGPUBuffer buffer, uint64_t offset, uint64_t size), (renderPassEncoder, slot, buffer, offset, size)) \
  X(void, RenderPassEncoderSetViewport, (WGPURenderPassEncoder renderPassEncoder, float x, float y, float width, float height, float minDepth, float maxDepth), (renderPassEncoder, x, y, width, height, minDepth, maxDepth)) \
  X(void, RenderPassEncoderWriteTimestamp, (WGPURenderPassEncoder renderPassEncoder, WGPUQuerySet querySet, uint32_t queryIndex), (renderPassEncoder, querySet, queryIndex)) \
  X(void, RenderPipelineAddRef, (WGPURenderPipeline renderPipeline), (renderPipeline)) \
  X(WGPUBindGroupLayout, RenderPipelineGetBindGroupLayout, (WGPURenderPipeline renderPipeline, uint32_t groupIndex), (renderPipeline, groupIndex)) \
  X(void, RenderPipelineRelease, (WGPURenderPipeline renderPipeline), (renderPipeline)) \
  X(void, RenderPipelineSetLabel, (WGPURenderPipeline renderPipeline, WGPUStringView label), (renderPipeline, label)) \
  X(void, SamplerAddRef, (WGPUSampler sampler), (sampler)) \
  X(void, SamplerRelease, (WGPUSampler sampler), (sampler)) \
  X(void, SamplerSetLabel, (WGPUSampler sampler, WGPUStringView label), (sampler, label)) \
  X(void, ShaderModuleAddRef, (WGPUShaderModule shaderModule), (shaderModule)) \
  X(WGPUFuture, ShaderModuleGetCompilationInfo, (WGPUShaderModule shaderModule, WGPUCompilationInfoCallbackInfo callbackInfo), (shaderModule, callbackInfo)) \
  X(void, ShaderModuleRelease, (WGPUShaderModule shaderModule), (shaderModule)) \
  X(void, ShaderModuleSetLabel, (WGPUShaderModule shaderModule, WGPUStringView label), (shaderModule, label)) \
  X(void, SharedBufferMemoryAddRef, (WGPUSharedBufferMemory sharedBufferMemory), (sharedBufferMemory)) \
  X(WGPUStatus, SharedBufferMemoryBeginAccess, (WGPUSharedBufferMemory sharedBufferMemory, WGPUBuffer buffer, const WGPUSharedBufferMemoryBeginAccessDescriptor *descriptor), (sharedBufferMemory, buffer, descriptor)) \
  X(WGPUBuffer, SharedBufferMemoryCreateBuffer, (WGPUSharedBufferMemory sharedBufferMemory, const WGPUBufferDescriptor *descriptor), (sharedBufferMemory, descriptor)) \
  X(WGPUStatus, SharedBufferMemoryEndAccess, (WGPUSharedBufferMemory sharedBufferMemory, WGPUBuffer buffer, WGPUSharedBufferMemoryEndAccessState *descriptor), (sharedBufferMemory, buffer, descriptor)) \
  X(void, SharedBufferMemoryEndAccessStateFreeMembers, (WGPUSharedBufferMemoryEndAccessState sharedBufferMemoryEndAccessState), (sharedBufferMemoryEndAccessState)) \
  X(WGPUStatus, SharedBufferMemoryGetProperties, (WGPUSharedBufferMemory sharedBufferMemory, WGPUSharedBufferMemoryProperties *properties), (sharedBufferMemory, properties)) \
  X(WGPUBool, SharedBufferMemoryIsDeviceLost, (WGPUSharedBufferMemory sharedBufferMemory), (sharedBufferMemory)) \
  X(void, SharedBufferMemoryRelease, (WGPUSharedBufferMemory sharedBufferMemory), (sharedBufferMemory)) \
  X(void, SharedBufferMemorySetLabel, (WGPUSharedBufferMemory sharedBufferMemory, WGPUStringView label), (sharedBufferMemory, label)) \
  X(void, SharedFenceAddRef, (WGPUSharedFence sharedFence), (sharedFence)) \
  X(void, SharedFenceExportInfo, (WGPUSharedFence sharedFence, WGPUSharedFenceExportInfo *info), (sharedFence, info)) \
  X(void, SharedFenceRelease, (WGPUSharedFence sharedFence), (sharedFence)) \
  X(void, SharedTextureMemoryAddRef, (WGPUSharedTextureMemory sharedTextureMemory), (sharedTextureMemory)) \
  X(WGPUStatus, SharedTextureMemoryBeginAccess, (WGPUSharedTextureMemory sharedTextureMemory, WGPUTexture texture, const WGPUSharedTextureMemoryBeginAccessDescriptor *descriptor), (sharedTextureMemory, texture, descriptor)) \
  X(WGPUTexture, SharedTextureMemoryCreateTexture, (WGPUSharedTextureMemory sharedTextureMemory, const WGPUTextureDescriptor *descriptor), (sharedTextureMemory, descriptor)) \
  X(WGPUStatus, SharedTextureMemoryEndAccess, (WGPUSharedTextureMemory sharedTextureMemory, WGPUTexture texture, WGPUSharedTextureMemoryEndAccessState *descriptor), (sharedTextureMemory, texture, descriptor)) \
  X(void, SharedTextureMemoryEndAccessStateFreeMembers, (WGPUSharedTextureMemoryEndAccessState sharedTextureMemoryEndAccessState), (sharedTextureMemoryEndAccessState)) \
  X(WGPUStatus, SharedTextureMemoryGetProperties, (WGPUSharedTextureMemory sharedTextureMemory, WGPUSharedTextureMemoryProperties *properties), (sharedTextureMemory, properties)) \
  X(WGPUBool, SharedTextureMemoryIsDeviceLost, (WGPUSharedTextureMemory sharedTextureMemory), (sharedTextureMemory)) \
  X(void, SharedTextureMemoryRelease, (WGPUSharedTextureMemory sharedTextureMemory), (sharedTextureMemory)) \
  X(void, SharedTextureMemorySetLabel, (WGPUSharedTextureMemory sharedTextureMemory, WGPUStringView label), (sharedTextureMemory, label)) \
  X(void, SupportedFeaturesFreeMembers, (WGPUSupportedFeatures supportedFeatures), (supportedFeatures)) \
  X(void, SupportedWGSLLanguageFeaturesFreeMembers, (WGPUSupportedWGSLLanguageFeatures supportedWGSLLanguageFeatures), (supportedWGSLLanguageFeatures)) \
  X(void, SurfaceAddRef, (WGPUSurface surface), (surface)) \
  X(void, SurfaceCapabilitiesFreeMembers, (WGPUSurfaceCapabilities surfaceCapabilities), (surfaceCapabilities)) \
  X(void, SurfaceConfigure, (WGPUSurface surface, const WGPUSurfaceConfiguration *config), (surface, config)) \
  X(WGPUStatus, SurfaceGetCapabilities, (WGPUSurface surface, WGPUAdapter adapter, WGPUSurfaceCapabilities *capabilities), (surface, adapter, capabilities)) \
  X(void, SurfaceGetCurrentTexture, (WGPUSurface surface, WGPUSurfaceTexture *surfaceTexture), (surface, surfaceTexture)) \
  X(void, SurfacePresent, (WGPUSurface surface), (surface)) \
  X(void, SurfaceRelease, (WGPUSurface surface), (surface)) \
  X(void, SurfaceSetLabel, (WGPUSurface surface, WGPUStringView label), (surface, label)) \
  X(void, SurfaceUnconfigure, (WGPUSurface surface), (surface)) \
  X(void, TextureAddRef, (WGPUTexture texture), (texture)) \
  X(WGPUTextureView, TextureCreateErrorView, (WGPUTexture texture, const WGPUTextureViewDescriptor *descriptor), (texture, descriptor)) \
  X(WGPUTextureView, TextureCreateView, (WGPUTexture texture, const WGPUTextureViewDescriptor *descriptor), (texture, descriptor)) \
  X(void, TextureDestroy, (WGPUTexture texture), (texture)) \
  X(uint32_t, TextureGetDepthOrArrayLayers, (WGPUTexture texture), (texture)) \
  X(WGPUTextureDimension, TextureGetDimension, (WGPUTexture texture), (texture)) \
  X(WGPUTextureFormat, TextureGetFormat, (WGPUTexture texture), (texture)) \
  X(uint32_t, TextureGetHeight, (WGPUTexture texture), (texture)) \
  X(uint32_t, TextureGetMipLevelCount, (WGPUTexture texture), (texture)) \
  X(uint32_t, TextureGetSampleCount, (WGPUTexture texture), (texture)) \
  X(WGPUTextureUsage, TextureGetUsage, (WGPUTexture texture), (texture)) \
  X(uint32_t, TextureGetWidth, (WGPUTexture texture), (texture)) \
  X(void, TextureRelease, (WGPUTexture texture), (texture)) \
  X(void, TextureSetLabel, (WGPUTexture texture, WGPUStringView label), (texture, label)) \
  X(void, TextureViewAddRef, (WGPUTextureView textureView), (textureView)) \
  X(void, TextureViewRelease, (WGPUTextureView textureView), (textureView)) \
  X(void, TextureViewSetLabel, (WGPUTextureView textureView, WGPUStringView label), (textureView, label))

/* The prototypes, for the front door's definitions and for programs written
 * on webgpu.h alone (tests/webgpu/). */
#define UL__WGPU_PROTOTYPE(Ret, Name, params, args) Ret wgpu##Name params;
UL__WGPU_API(UL__WGPU_PROTOTYPE)
#undef UL__WGPU_PROTOTYPE

#endif
