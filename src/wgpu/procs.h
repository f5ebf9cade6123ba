/* Internal to unlost: the proc table, the one seam through which every
 * WebGPU call passes. Filled by dlopen/dlsym (procs.c); the chaos layer
 * (src/chaos/) can wrap it. */
#ifndef UL_WGPU_PROCS_H
#define UL_WGPU_PROCS_H

#include "internal.h"
#include "wgpu/wgpu.h"

/* X(required, kind, Ret, Name, (params), (args)): kind is V for functions
 * returning void, R otherwise; the symbol is "wgpu" #Name. */
#define UL__WGPU_PROCS(X)                                                            \
  X(1, R, WGPUInstance, CreateInstance, (const WGPUInstanceDescriptor *d), (d))         \
  X(1, V, void, InstanceRelease, (WGPUInstance i), (i))                                 \
  X(1, R, WGPUFuture, InstanceRequestAdapter,                                           \
    (WGPUInstance i, const WGPURequestAdapterOptions *o, WGPURequestAdapterCallbackInfo c), (i, o, c)) \
  X(1, R, uint32_t, InstanceWaitAny,                                                    \
    (WGPUInstance i, size_t n, WGPUFutureWaitInfo *f, uint64_t t), (i, n, f, t))     \
  X(1, V, void, InstanceProcessEvents, (WGPUInstance i), (i))                           \
  X(1, R, WGPUFuture, AdapterRequestDevice,                                             \
    (WGPUAdapter a, const WGPUDeviceDescriptor *d, WGPURequestDeviceCallbackInfo c), (a, d, c)) \
  X(1, R, uint32_t, AdapterGetInfo, (WGPUAdapter a, WGPUAdapterInfo *i), (a, i))        \
  X(1, R, uint32_t, AdapterGetLimits, (WGPUAdapter a, WGPULimits *l), (a, l))           \
  X(1, V, void, AdapterInfoFreeMembers, (WGPUAdapterInfo i), (i))                       \
  X(1, V, void, AdapterRelease, (WGPUAdapter a), (a))                                   \
  X(1, R, uint32_t, DeviceGetLimits, (WGPUDevice d, WGPULimits *l), (d, l))             \
  X(1, R, WGPUQueue, DeviceGetQueue, (WGPUDevice d), (d))                               \
  X(1, V, void, DeviceDestroy, (WGPUDevice d), (d))                                     \
  X(1, V, void, DeviceRelease, (WGPUDevice d), (d))                                     \
  X(1, V, void, DevicePushErrorScope, (WGPUDevice d, uint32_t f), (d, f))               \
  X(1, R, WGPUFuture, DevicePopErrorScope, (WGPUDevice d, WGPUPopErrorScopeCallbackInfo c), (d, c)) \
  X(1, R, WGPUBuffer, DeviceCreateBuffer, (WGPUDevice d, const WGPUBufferDescriptor *x), (d, x)) \
  X(1, R, WGPUTexture, DeviceCreateTexture, (WGPUDevice d, const WGPUTextureDescriptor *x), (d, x)) \
  X(1, R, WGPUSampler, DeviceCreateSampler, (WGPUDevice d, const WGPUSamplerDescriptor *x), (d, x)) \
  X(1, R, WGPUShaderModule, DeviceCreateShaderModule,                                   \
    (WGPUDevice d, const WGPUShaderModuleDescriptor *x), (d, x))                     \
  X(1, R, WGPUBindGroupLayout, DeviceCreateBindGroupLayout,                             \
    (WGPUDevice d, const WGPUBindGroupLayoutDescriptor *x), (d, x))                  \
  X(1, R, WGPUPipelineLayout, DeviceCreatePipelineLayout,                               \
    (WGPUDevice d, const WGPUPipelineLayoutDescriptor *x), (d, x))                   \
  X(1, R, WGPUComputePipeline, DeviceCreateComputePipeline,                             \
    (WGPUDevice d, const WGPUComputePipelineDescriptor *x), (d, x))                  \
  X(1, R, WGPUBindGroup, DeviceCreateBindGroup, (WGPUDevice d, const WGPUBindGroupDescriptor *x), (d, x)) \
  X(1, R, WGPUCommandEncoder, DeviceCreateCommandEncoder,                               \
    (WGPUDevice d, const WGPUCommandEncoderDescriptor *x), (d, x))                   \
  X(1, R, WGPUBindGroupLayout, ComputePipelineGetBindGroupLayout,                       \
    (WGPUComputePipeline p, uint32_t i), (p, i))                                     \
  X(1, R, WGPUTextureView, TextureCreateView, (WGPUTexture t, const WGPUTextureViewDescriptor *x), (t, x)) \
  X(1, R, WGPUFuture, BufferMapAsync,                                                   \
    (WGPUBuffer b, WGPUFlags m, size_t o, size_t s, WGPUBufferMapCallbackInfo c), (b, m, o, s, c)) \
  X(1, R, void *, BufferGetMappedRange, (WGPUBuffer b, size_t o, size_t s), (b, o, s))  \
  X(1, R, const void *, BufferGetConstMappedRange, (WGPUBuffer b, size_t o, size_t s), (b, o, s)) \
  X(1, R, uint32_t, BufferGetMapState, (WGPUBuffer b), (b))                             \
  X(1, V, void, BufferUnmap, (WGPUBuffer b), (b))                                       \
  X(1, V, void, BufferDestroy, (WGPUBuffer b), (b))                                     \
  X(1, V, void, BufferRelease, (WGPUBuffer b), (b))                                     \
  X(1, V, void, TextureDestroy, (WGPUTexture t), (t))                                   \
  X(1, V, void, TextureRelease, (WGPUTexture t), (t))                                   \
  X(1, V, void, TextureViewRelease, (WGPUTextureView v), (v))                           \
  X(1, V, void, SamplerRelease, (WGPUSampler s), (s))                                   \
  X(1, V, void, ShaderModuleRelease, (WGPUShaderModule s), (s))                         \
  X(1, V, void, BindGroupLayoutRelease, (WGPUBindGroupLayout l), (l))                   \
  X(1, V, void, PipelineLayoutRelease, (WGPUPipelineLayout l), (l))                     \
  X(1, V, void, ComputePipelineRelease, (WGPUComputePipeline p), (p))                   \
  X(1, V, void, BindGroupRelease, (WGPUBindGroup g), (g))                               \
  X(1, V, void, CommandEncoderRelease, (WGPUCommandEncoder e), (e))                     \
  X(1, V, void, CommandBufferRelease, (WGPUCommandBuffer c), (c))                       \
  X(1, V, void, ComputePassEncoderRelease, (WGPUComputePassEncoder p), (p))             \
  X(1, V, void, QueueRelease, (WGPUQueue q), (q))                                       \
  X(1, R, WGPUComputePassEncoder, CommandEncoderBeginComputePass,                       \
    (WGPUCommandEncoder e, const WGPUComputePassDescriptor *x), (e, x))              \
  X(1, V, void, ComputePassEncoderSetPipeline, (WGPUComputePassEncoder p, WGPUComputePipeline c), (p, c)) \
  X(1, V, void, ComputePassEncoderSetBindGroup,                                         \
    (WGPUComputePassEncoder p, uint32_t i, WGPUBindGroup g, size_t n, const uint32_t *o), (p, i, g, n, o)) \
  X(1, V, void, ComputePassEncoderDispatchWorkgroups,                                   \
    (WGPUComputePassEncoder p, uint32_t x, uint32_t y, uint32_t z), (p, x, y, z))    \
  X(1, V, void, ComputePassEncoderDispatchWorkgroupsIndirect,                           \
    (WGPUComputePassEncoder p, WGPUBuffer b, uint64_t o), (p, b, o))                 \
  X(1, V, void, ComputePassEncoderEnd, (WGPUComputePassEncoder p), (p))                 \
  X(1, V, void, CommandEncoderCopyBufferToBuffer,                                       \
    (WGPUCommandEncoder e, WGPUBuffer s, uint64_t so, WGPUBuffer d, uint64_t dof, uint64_t n), \
    (e, s, so, d, dof, n))                                                           \
  X(1, V, void, CommandEncoderCopyBufferToTexture,                                      \
    (WGPUCommandEncoder e, const WGPUTexelCopyBufferInfo *s, const WGPUTexelCopyTextureInfo *d, \
     const WGPUExtent3D *x), (e, s, d, x))                                           \
  X(1, V, void, CommandEncoderCopyTextureToBuffer,                                      \
    (WGPUCommandEncoder e, const WGPUTexelCopyTextureInfo *s, const WGPUTexelCopyBufferInfo *d, \
     const WGPUExtent3D *x), (e, s, d, x))                                           \
  X(1, V, void, CommandEncoderClearBuffer,                                              \
    (WGPUCommandEncoder e, WGPUBuffer b, uint64_t o, uint64_t n), (e, b, o, n))      \
  X(1, R, WGPUCommandBuffer, CommandEncoderFinish,                                      \
    (WGPUCommandEncoder e, const WGPUCommandBufferDescriptor *x), (e, x))            \
  X(1, V, void, QueueSubmit, (WGPUQueue q, size_t n, const WGPUCommandBuffer *c), (q, n, c)) \
  X(1, V, void, QueueWriteBuffer,                                                       \
    (WGPUQueue q, WGPUBuffer b, uint64_t o, const void *p, size_t n), (q, b, o, p, n)) \
  X(1, V, void, QueueWriteTexture,                                                      \
    (WGPUQueue q, const WGPUTexelCopyTextureInfo *d, const void *p, size_t n,        \
     const WGPUTexelCopyBufferLayout *l, const WGPUExtent3D *x), (q, d, p, n, l, x)) \
  X(1, R, WGPUFuture, QueueOnSubmittedWorkDone, (WGPUQueue q, WGPUQueueWorkDoneCallbackInfo c), (q, c)) \
  X(0, V, void, DeviceForceLoss, (WGPUDevice d, uint32_t r, WGPUStringView m), (d, r, m)) \
  X(0, V, void, DeviceInjectError, (WGPUDevice d, uint32_t t, WGPUStringView m), (d, t, m)) \
  X(0, V, void, DeviceTick, (WGPUDevice d), (d))                                         \
  X(0, R, uint32_t, AdapterHasFeature, (WGPUAdapter a, uint32_t f), (a, f))

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

/* Helpers for WGPUStringView. */
static inline WGPUStringView ul__sv(const char *s) {
  WGPUStringView v = {s, s ? WGPU_STRLEN : 0};
  return v;
}
/* Copies a string view into buf (always NUL-terminated). */
void ul__sv_copy(WGPUStringView v, char *buf, size_t cap);

#endif
