/* Internal to unlost: the subset of webgpu.h that unlost calls, declared by
 * us and checked against the loaded implementation's debug info by
 * tests/test_abi.c (every struct here is listed in UL__WGPU_ABI_STRUCTS).
 *
 * Layouts follow the Dawn build pinned in third_party/dawn (the standard
 * webgpu.h of 2025: WGPUStringView labels, two-userdata callbacks, 64-bit
 * flag types). Enum values are those of the standard header; see
 * notes in docs/webgpu-abi.md for how each was checked. */
#ifndef UL_WGPU_H
#define UL_WGPU_H

#include <stddef.h>
#include <stdint.h>

typedef uint32_t WGPUBool;
typedef uint64_t WGPUFlags;

typedef struct WGPUInstanceImpl *WGPUInstance;
typedef struct WGPUAdapterImpl *WGPUAdapter;
typedef struct WGPUDeviceImpl *WGPUDevice;
typedef struct WGPUQueueImpl *WGPUQueue;
typedef struct WGPUBufferImpl *WGPUBuffer;
typedef struct WGPUTextureImpl *WGPUTexture;
typedef struct WGPUTextureViewImpl *WGPUTextureView;
typedef struct WGPUSamplerImpl *WGPUSampler;
typedef struct WGPUShaderModuleImpl *WGPUShaderModule;
typedef struct WGPUBindGroupLayoutImpl *WGPUBindGroupLayout;
typedef struct WGPUBindGroupImpl *WGPUBindGroup;
typedef struct WGPUPipelineLayoutImpl *WGPUPipelineLayout;
typedef struct WGPUComputePipelineImpl *WGPUComputePipeline;
typedef struct WGPUCommandEncoderImpl *WGPUCommandEncoder;
typedef struct WGPUCommandBufferImpl *WGPUCommandBuffer;
typedef struct WGPUComputePassEncoderImpl *WGPUComputePassEncoder;
typedef struct WGPUSurfaceImpl *WGPUSurface;
typedef struct WGPUQuerySetImpl *WGPUQuerySet;

#define WGPU_STRLEN SIZE_MAX
#define WGPU_WHOLE_SIZE UINT64_MAX
#define WGPU_WHOLE_MAP_SIZE SIZE_MAX
#define WGPU_LIMIT_U32_UNDEFINED UINT32_MAX
#define WGPU_LIMIT_U64_UNDEFINED UINT64_MAX
#define WGPU_MIP_LEVEL_COUNT_UNDEFINED UINT32_MAX
#define WGPU_ARRAY_LAYER_COUNT_UNDEFINED UINT32_MAX
#define WGPU_COPY_STRIDE_UNDEFINED UINT32_MAX

/* ---- enums (values of the standard webgpu.h) ---- */
enum {
  WGPUSType_ShaderSourceSPIRV = 1,
  WGPUSType_ShaderSourceWGSL = 2,
};
enum {
  WGPUBackendType_Undefined = 0, WGPUBackendType_Null = 1, WGPUBackendType_WebGPU = 2,
  WGPUBackendType_D3D11 = 3, WGPUBackendType_D3D12 = 4, WGPUBackendType_Metal = 5,
  WGPUBackendType_Vulkan = 6, WGPUBackendType_OpenGL = 7, WGPUBackendType_OpenGLES = 8,
};
enum {
  WGPUAdapterType_DiscreteGPU = 1, WGPUAdapterType_IntegratedGPU = 2,
  WGPUAdapterType_CPU = 3, WGPUAdapterType_Unknown = 4,
};
enum { WGPUPowerPreference_Undefined = 0, WGPUPowerPreference_LowPower = 1,
       WGPUPowerPreference_HighPerformance = 2 };
enum { WGPUFeatureLevel_Undefined = 0, WGPUFeatureLevel_Compatibility = 1,
       WGPUFeatureLevel_Core = 2 };
enum { WGPUCallbackMode_WaitAnyOnly = 1, WGPUCallbackMode_AllowProcessEvents = 2,
       WGPUCallbackMode_AllowSpontaneous = 3 };
enum { WGPURequestAdapterStatus_Success = 1, WGPURequestAdapterStatus_CallbackCancelled = 2,
       WGPURequestAdapterStatus_Unavailable = 3, WGPURequestAdapterStatus_Error = 4 };
enum { WGPURequestDeviceStatus_Success = 1, WGPURequestDeviceStatus_CallbackCancelled = 2,
       WGPURequestDeviceStatus_Error = 3 };
enum { WGPUDeviceLostReason_Unknown = 1, WGPUDeviceLostReason_Destroyed = 2,
       WGPUDeviceLostReason_CallbackCancelled = 3, WGPUDeviceLostReason_FailedCreation = 4 };
enum { WGPUErrorType_NoError = 1, WGPUErrorType_Validation = 2, WGPUErrorType_OutOfMemory = 3,
       WGPUErrorType_Internal = 4, WGPUErrorType_Unknown = 5 };
enum { WGPUErrorFilter_Validation = 1, WGPUErrorFilter_OutOfMemory = 2,
       WGPUErrorFilter_Internal = 3 };
enum { WGPUMapAsyncStatus_Success = 1, WGPUMapAsyncStatus_CallbackCancelled = 2,
       WGPUMapAsyncStatus_Error = 3, WGPUMapAsyncStatus_Aborted = 4 };
enum { WGPUPopErrorScopeStatus_Success = 1, WGPUPopErrorScopeStatus_CallbackCancelled = 2,
       WGPUPopErrorScopeStatus_Error = 3 };
enum { WGPUQueueWorkDoneStatus_Success = 1, WGPUQueueWorkDoneStatus_CallbackCancelled = 2,
       WGPUQueueWorkDoneStatus_Error = 3 };
enum { WGPUWaitStatus_Success = 1, WGPUWaitStatus_TimedOut = 2, WGPUWaitStatus_Error = 3 };
enum { WGPUCompilationInfoRequestStatus_Success = 1,
       WGPUCompilationInfoRequestStatus_CallbackCancelled = 2 };
enum { WGPUCompilationMessageType_Error = 1, WGPUCompilationMessageType_Warning = 2,
       WGPUCompilationMessageType_Info = 3 };
enum { WGPUStatus_Success = 1, WGPUStatus_Error = 2 };
enum { WGPUBufferBindingType_BindingNotUsed = 0, WGPUBufferBindingType_Undefined = 1,
       WGPUBufferBindingType_Uniform = 2, WGPUBufferBindingType_Storage = 3,
       WGPUBufferBindingType_ReadOnlyStorage = 4 };
enum { WGPUSamplerBindingType_BindingNotUsed = 0, WGPUSamplerBindingType_Undefined = 1,
       WGPUSamplerBindingType_Filtering = 2, WGPUSamplerBindingType_NonFiltering = 3,
       WGPUSamplerBindingType_Comparison = 4 };
enum { WGPUTextureSampleType_BindingNotUsed = 0, WGPUTextureSampleType_Undefined = 1,
       WGPUTextureSampleType_Float = 2, WGPUTextureSampleType_UnfilterableFloat = 3,
       WGPUTextureSampleType_Depth = 4, WGPUTextureSampleType_Sint = 5,
       WGPUTextureSampleType_Uint = 6 };
enum { WGPUStorageTextureAccess_BindingNotUsed = 0, WGPUStorageTextureAccess_Undefined = 1,
       WGPUStorageTextureAccess_WriteOnly = 2, WGPUStorageTextureAccess_ReadOnly = 3,
       WGPUStorageTextureAccess_ReadWrite = 4 };
enum { WGPUTextureDimension_Undefined = 0, WGPUTextureDimension_1D = 1,
       WGPUTextureDimension_2D = 2, WGPUTextureDimension_3D = 3 };
enum { WGPUTextureViewDimension_Undefined = 0, WGPUTextureViewDimension_1D = 1,
       WGPUTextureViewDimension_2D = 2, WGPUTextureViewDimension_2DArray = 3,
       WGPUTextureViewDimension_Cube = 4, WGPUTextureViewDimension_CubeArray = 5,
       WGPUTextureViewDimension_3D = 6 };
enum { WGPUTextureAspect_Undefined = 0, WGPUTextureAspect_All = 1 };
enum { WGPUAddressMode_Undefined = 0, WGPUAddressMode_ClampToEdge = 1,
       WGPUAddressMode_Repeat = 2, WGPUAddressMode_MirrorRepeat = 3 };
enum { WGPUFilterMode_Undefined = 0, WGPUFilterMode_Nearest = 1, WGPUFilterMode_Linear = 2 };
enum { WGPUMipmapFilterMode_Undefined = 0, WGPUMipmapFilterMode_Nearest = 1,
       WGPUMipmapFilterMode_Linear = 2 };
enum { WGPUCompareFunction_Undefined = 0 };
enum { WGPUBufferMapState_Unmapped = 1, WGPUBufferMapState_Pending = 2,
       WGPUBufferMapState_Mapped = 3 };

#define WGPUBufferUsage_MapRead 0x1ull
#define WGPUBufferUsage_MapWrite 0x2ull
#define WGPUBufferUsage_CopySrc 0x4ull
#define WGPUBufferUsage_CopyDst 0x8ull
#define WGPUBufferUsage_Index 0x10ull
#define WGPUBufferUsage_Vertex 0x20ull
#define WGPUBufferUsage_Uniform 0x40ull
#define WGPUBufferUsage_Storage 0x80ull
#define WGPUBufferUsage_Indirect 0x100ull
#define WGPUBufferUsage_QueryResolve 0x200ull
#define WGPUTextureUsage_CopySrc 0x1ull
#define WGPUTextureUsage_CopyDst 0x2ull
#define WGPUTextureUsage_TextureBinding 0x4ull
#define WGPUTextureUsage_StorageBinding 0x8ull
#define WGPUTextureUsage_RenderAttachment 0x10ull
#define WGPUShaderStage_Vertex 0x1ull
#define WGPUShaderStage_Fragment 0x2ull
#define WGPUShaderStage_Compute 0x4ull
#define WGPUMapMode_Read 0x1ull
#define WGPUMapMode_Write 0x2ull

/* ---- structs (each listed in UL__WGPU_ABI_STRUCTS below) ---- */
typedef struct WGPUStringView {
  const char *data;
  size_t length;
} WGPUStringView;

typedef struct WGPUChainedStruct {
  struct WGPUChainedStruct *next;
  uint32_t sType;
} WGPUChainedStruct;

typedef struct WGPUInstanceCapabilities {
  WGPUChainedStruct *nextInChain;
  WGPUBool timedWaitAnyEnable;
  size_t timedWaitAnyMaxCount;
} WGPUInstanceCapabilities;

typedef struct WGPUInstanceDescriptor {
  WGPUChainedStruct *nextInChain;
  WGPUInstanceCapabilities capabilities;
} WGPUInstanceDescriptor;

typedef struct WGPURequestAdapterOptions {
  WGPUChainedStruct *nextInChain;
  uint32_t featureLevel;
  uint32_t powerPreference;
  WGPUBool forceFallbackAdapter;
  uint32_t backendType;
  WGPUSurface compatibleSurface;
} WGPURequestAdapterOptions;

typedef struct WGPUFuture {
  uint64_t id;
} WGPUFuture;

typedef struct WGPUFutureWaitInfo {
  WGPUFuture future;
  WGPUBool completed;
} WGPUFutureWaitInfo;

typedef void (*WGPURequestAdapterCallback)(uint32_t status, WGPUAdapter adapter,
                                           WGPUStringView message, void *u1, void *u2);
typedef void (*WGPURequestDeviceCallback)(uint32_t status, WGPUDevice device,
                                          WGPUStringView message, void *u1, void *u2);
typedef void (*WGPUDeviceLostCallback)(WGPUDevice const *device, uint32_t reason,
                                       WGPUStringView message, void *u1, void *u2);
typedef void (*WGPUUncapturedErrorCallback)(WGPUDevice const *device, uint32_t type,
                                            WGPUStringView message, void *u1, void *u2);
typedef void (*WGPUPopErrorScopeCallback)(uint32_t status, uint32_t type,
                                          WGPUStringView message, void *u1, void *u2);
typedef void (*WGPUBufferMapCallback)(uint32_t status, WGPUStringView message,
                                      void *u1, void *u2);
typedef void (*WGPUQueueWorkDoneCallback)(uint32_t status, WGPUStringView message,
                                          void *u1, void *u2);

/* The callback-info structs share one shape; the ABI test checks each. */
#define UL__WGPU_CALLBACK_INFO(Name, Fn)                                        \
  typedef struct Name {                                                         \
    WGPUChainedStruct *nextInChain;                                             \
    uint32_t mode;                                                              \
    Fn callback;                                                                \
    void *userdata1;                                                            \
    void *userdata2;                                                            \
  } Name;
UL__WGPU_CALLBACK_INFO(WGPURequestAdapterCallbackInfo, WGPURequestAdapterCallback)
UL__WGPU_CALLBACK_INFO(WGPURequestDeviceCallbackInfo, WGPURequestDeviceCallback)
UL__WGPU_CALLBACK_INFO(WGPUDeviceLostCallbackInfo, WGPUDeviceLostCallback)
UL__WGPU_CALLBACK_INFO(WGPUPopErrorScopeCallbackInfo, WGPUPopErrorScopeCallback)
UL__WGPU_CALLBACK_INFO(WGPUBufferMapCallbackInfo, WGPUBufferMapCallback)
UL__WGPU_CALLBACK_INFO(WGPUQueueWorkDoneCallbackInfo, WGPUQueueWorkDoneCallback)

typedef struct WGPUUncapturedErrorCallbackInfo {
  WGPUChainedStruct *nextInChain;
  WGPUUncapturedErrorCallback callback;
  void *userdata1;
  void *userdata2;
} WGPUUncapturedErrorCallbackInfo;

typedef struct WGPUAdapterInfo {
  WGPUChainedStruct *nextInChain;
  WGPUStringView vendor;
  WGPUStringView architecture;
  WGPUStringView device;
  WGPUStringView description;
  uint32_t backendType;
  uint32_t adapterType;
  uint32_t vendorID;
  uint32_t deviceID;
  uint32_t subgroupMinSize;
  uint32_t subgroupMaxSize;
} WGPUAdapterInfo;

typedef struct WGPULimits {
  WGPUChainedStruct *nextInChain;
  uint32_t maxTextureDimension1D;
  uint32_t maxTextureDimension2D;
  uint32_t maxTextureDimension3D;
  uint32_t maxTextureArrayLayers;
  uint32_t maxBindGroups;
  uint32_t maxBindGroupsPlusVertexBuffers;
  uint32_t maxBindingsPerBindGroup;
  uint32_t maxDynamicUniformBuffersPerPipelineLayout;
  uint32_t maxDynamicStorageBuffersPerPipelineLayout;
  uint32_t maxSampledTexturesPerShaderStage;
  uint32_t maxSamplersPerShaderStage;
  uint32_t maxStorageBuffersPerShaderStage;
  uint32_t maxStorageTexturesPerShaderStage;
  uint32_t maxUniformBuffersPerShaderStage;
  uint64_t maxUniformBufferBindingSize;
  uint64_t maxStorageBufferBindingSize;
  uint32_t minUniformBufferOffsetAlignment;
  uint32_t minStorageBufferOffsetAlignment;
  uint32_t maxVertexBuffers;
  uint64_t maxBufferSize;
  uint32_t maxVertexAttributes;
  uint32_t maxVertexBufferArrayStride;
  uint32_t maxInterStageShaderVariables;
  uint32_t maxColorAttachments;
  uint32_t maxColorAttachmentBytesPerSample;
  uint32_t maxComputeWorkgroupStorageSize;
  uint32_t maxComputeInvocationsPerWorkgroup;
  uint32_t maxComputeWorkgroupSizeX;
  uint32_t maxComputeWorkgroupSizeY;
  uint32_t maxComputeWorkgroupSizeZ;
  uint32_t maxComputeWorkgroupsPerDimension;
  uint32_t maxImmediateSize;
} WGPULimits;

typedef struct WGPUQueueDescriptor {
  WGPUChainedStruct *nextInChain;
  WGPUStringView label;
} WGPUQueueDescriptor;

typedef struct WGPUDeviceDescriptor {
  WGPUChainedStruct *nextInChain;
  WGPUStringView label;
  size_t requiredFeatureCount;
  const uint32_t *requiredFeatures;
  const WGPULimits *requiredLimits;
  WGPUQueueDescriptor defaultQueue;
  WGPUDeviceLostCallbackInfo deviceLostCallbackInfo;
  WGPUUncapturedErrorCallbackInfo uncapturedErrorCallbackInfo;
} WGPUDeviceDescriptor;

typedef struct WGPUBufferDescriptor {
  WGPUChainedStruct *nextInChain;
  WGPUStringView label;
  WGPUFlags usage;
  uint64_t size;
  WGPUBool mappedAtCreation;
} WGPUBufferDescriptor;

typedef struct WGPUExtent3D {
  uint32_t width;
  uint32_t height;
  uint32_t depthOrArrayLayers;
} WGPUExtent3D;

typedef struct WGPUOrigin3D {
  uint32_t x;
  uint32_t y;
  uint32_t z;
} WGPUOrigin3D;

typedef struct WGPUTextureDescriptor {
  WGPUChainedStruct *nextInChain;
  WGPUStringView label;
  WGPUFlags usage;
  uint32_t dimension;
  WGPUExtent3D size;
  uint32_t format;
  uint32_t mipLevelCount;
  uint32_t sampleCount;
  size_t viewFormatCount;
  const uint32_t *viewFormats;
} WGPUTextureDescriptor;

typedef struct WGPUTextureViewDescriptor {
  WGPUChainedStruct *nextInChain;
  WGPUStringView label;
  uint32_t format;
  uint32_t dimension;
  uint32_t baseMipLevel;
  uint32_t mipLevelCount;
  uint32_t baseArrayLayer;
  uint32_t arrayLayerCount;
  uint32_t aspect;
  WGPUFlags usage;
} WGPUTextureViewDescriptor;

typedef struct WGPUSamplerDescriptor {
  WGPUChainedStruct *nextInChain;
  WGPUStringView label;
  uint32_t addressModeU;
  uint32_t addressModeV;
  uint32_t addressModeW;
  uint32_t magFilter;
  uint32_t minFilter;
  uint32_t mipmapFilter;
  float lodMinClamp;
  float lodMaxClamp;
  uint32_t compare;
  uint16_t maxAnisotropy;
} WGPUSamplerDescriptor;

typedef struct WGPUShaderModuleDescriptor {
  WGPUChainedStruct *nextInChain;
  WGPUStringView label;
} WGPUShaderModuleDescriptor;

/* Not in the implementation's debug info (its wrapper never names it); the
 * standard layout is a chained struct followed by the code. */
typedef struct WGPUShaderSourceWGSL {
  WGPUChainedStruct chain;
  WGPUStringView code;
} WGPUShaderSourceWGSL;

/* Dawn's extension (not in the implementation's debug info; the layout of
 * its dawn.json, measured to work: see docs/webgpu-abi.md). Other
 * implementations ignore an sType they do not know... or reject it, so it
 * is chained only when the loaded library is Dawn. */
#define WGPUSType_DawnTogglesDescriptor 0x0005000Au
/* Dawn's feature values, measured on the pinned build: a device request
 * naming a value it does not know says "Value N is invalid", one it knows
 * but the adapter lacks names the feature. */
#define WGPUFeatureName_ImplicitDeviceSynchronization 0x00050004u

/* Dawn's store for what pipelines cost to build, kept by the embedder
 * (layout of dawn.json; measured on the pinned build: the load and store
 * functions are called with keys of a few hundred bytes). */
#define WGPUSType_DawnCacheDeviceDescriptor 0x00050007u
typedef size_t (*WGPUDawnLoadCacheDataFunction)(const void *key, size_t keySize, void *value, size_t valueSize,
                                                void *userdata);
typedef void (*WGPUDawnStoreCacheDataFunction)(const void *key, size_t keySize, const void *value,
                                               size_t valueSize, void *userdata);
typedef struct WGPUDawnCacheDeviceDescriptor {
  WGPUChainedStruct chain;
  WGPUStringView isolationKey;
  WGPUDawnLoadCacheDataFunction loadDataFunction;
  WGPUDawnStoreCacheDataFunction storeDataFunction;
  void *functionUserdata;
} WGPUDawnCacheDeviceDescriptor;
typedef struct WGPUDawnTogglesDescriptor {
  WGPUChainedStruct chain;
  size_t enabledToggleCount;
  const char *const *enabledToggles;
  size_t disabledToggleCount;
  const char *const *disabledToggles;
} WGPUDawnTogglesDescriptor;

typedef struct WGPUBufferBindingLayout {
  WGPUChainedStruct *nextInChain;
  uint32_t type;
  WGPUBool hasDynamicOffset;
  uint64_t minBindingSize;
} WGPUBufferBindingLayout;

typedef struct WGPUSamplerBindingLayout {
  WGPUChainedStruct *nextInChain;
  uint32_t type;
} WGPUSamplerBindingLayout;

typedef struct WGPUTextureBindingLayout {
  WGPUChainedStruct *nextInChain;
  uint32_t sampleType;
  uint32_t viewDimension;
  WGPUBool multisampled;
} WGPUTextureBindingLayout;

typedef struct WGPUStorageTextureBindingLayout {
  WGPUChainedStruct *nextInChain;
  uint32_t access;
  uint32_t format;
  uint32_t viewDimension;
} WGPUStorageTextureBindingLayout;

typedef struct WGPUBindGroupLayoutEntry {
  WGPUChainedStruct *nextInChain;
  uint32_t binding;
  WGPUFlags visibility;
  uint32_t bindingArraySize;
  WGPUBufferBindingLayout buffer;
  WGPUSamplerBindingLayout sampler;
  WGPUTextureBindingLayout texture;
  WGPUStorageTextureBindingLayout storageTexture;
} WGPUBindGroupLayoutEntry;

typedef struct WGPUBindGroupLayoutDescriptor {
  WGPUChainedStruct *nextInChain;
  WGPUStringView label;
  size_t entryCount;
  const WGPUBindGroupLayoutEntry *entries;
} WGPUBindGroupLayoutDescriptor;

typedef struct WGPUBindGroupEntry {
  WGPUChainedStruct *nextInChain;
  uint32_t binding;
  WGPUBuffer buffer;
  uint64_t offset;
  uint64_t size;
  WGPUSampler sampler;
  WGPUTextureView textureView;
} WGPUBindGroupEntry;

typedef struct WGPUBindGroupDescriptor {
  WGPUChainedStruct *nextInChain;
  WGPUStringView label;
  WGPUBindGroupLayout layout;
  size_t entryCount;
  const WGPUBindGroupEntry *entries;
} WGPUBindGroupDescriptor;

typedef struct WGPUPipelineLayoutDescriptor {
  WGPUChainedStruct *nextInChain;
  WGPUStringView label;
  size_t bindGroupLayoutCount;
  const WGPUBindGroupLayout *bindGroupLayouts;
  uint32_t immediateSize;
} WGPUPipelineLayoutDescriptor;

typedef struct WGPUConstantEntry {
  WGPUChainedStruct *nextInChain;
  WGPUStringView key;
  double value;
} WGPUConstantEntry;

typedef struct WGPUComputeState {
  WGPUChainedStruct *nextInChain;
  WGPUShaderModule module;
  WGPUStringView entryPoint;
  size_t constantCount;
  const WGPUConstantEntry *constants;
} WGPUComputeState;

typedef struct WGPUComputePipelineDescriptor {
  WGPUChainedStruct *nextInChain;
  WGPUStringView label;
  WGPUPipelineLayout layout;
  WGPUComputeState compute;
} WGPUComputePipelineDescriptor;

typedef struct WGPUCommandEncoderDescriptor {
  WGPUChainedStruct *nextInChain;
  WGPUStringView label;
} WGPUCommandEncoderDescriptor;

typedef struct WGPUCommandBufferDescriptor {
  WGPUChainedStruct *nextInChain;
  WGPUStringView label;
} WGPUCommandBufferDescriptor;

typedef struct WGPUComputePassDescriptor {
  WGPUChainedStruct *nextInChain;
  WGPUStringView label;
  const void *timestampWrites;
} WGPUComputePassDescriptor;

typedef struct WGPUTexelCopyBufferLayout {
  uint64_t offset;
  uint32_t bytesPerRow;
  uint32_t rowsPerImage;
} WGPUTexelCopyBufferLayout;

typedef struct WGPUTexelCopyBufferInfo {
  WGPUTexelCopyBufferLayout layout;
  WGPUBuffer buffer;
} WGPUTexelCopyBufferInfo;

typedef struct WGPUTexelCopyTextureInfo {
  WGPUTexture texture;
  uint32_t mipLevel;
  WGPUOrigin3D origin;
  uint32_t aspect;
} WGPUTexelCopyTextureInfo;

/* The structs the ABI test compares with the implementation's debug info:
 * X(struct) for the size, M(struct, member) for each member's offset. */
#define UL__WGPU_ABI_STRUCTS(X, M)                                                \
  X(WGPUStringView) M(WGPUStringView, data) M(WGPUStringView, length)             \
  X(WGPUChainedStruct) M(WGPUChainedStruct, next) M(WGPUChainedStruct, sType)     \
  X(WGPUInstanceCapabilities) M(WGPUInstanceCapabilities, nextInChain)            \
    M(WGPUInstanceCapabilities, timedWaitAnyEnable)                               \
    M(WGPUInstanceCapabilities, timedWaitAnyMaxCount)                             \
  X(WGPUInstanceDescriptor) M(WGPUInstanceDescriptor, nextInChain)                \
    M(WGPUInstanceDescriptor, capabilities)                                       \
  X(WGPURequestAdapterOptions) M(WGPURequestAdapterOptions, nextInChain)          \
    M(WGPURequestAdapterOptions, featureLevel)                                    \
    M(WGPURequestAdapterOptions, powerPreference)                                 \
    M(WGPURequestAdapterOptions, forceFallbackAdapter)                            \
    M(WGPURequestAdapterOptions, backendType)                                     \
    M(WGPURequestAdapterOptions, compatibleSurface)                               \
  X(WGPUFuture) M(WGPUFuture, id)                                                 \
  X(WGPUFutureWaitInfo) M(WGPUFutureWaitInfo, future) M(WGPUFutureWaitInfo, completed) \
  UL__WGPU_ABI_CB(X, M, WGPURequestAdapterCallbackInfo)                           \
  UL__WGPU_ABI_CB(X, M, WGPURequestDeviceCallbackInfo)                            \
  UL__WGPU_ABI_CB(X, M, WGPUDeviceLostCallbackInfo)                               \
  UL__WGPU_ABI_CB(X, M, WGPUPopErrorScopeCallbackInfo)                            \
  UL__WGPU_ABI_CB(X, M, WGPUBufferMapCallbackInfo)                                \
  UL__WGPU_ABI_CB(X, M, WGPUQueueWorkDoneCallbackInfo)                            \
  X(WGPUUncapturedErrorCallbackInfo) M(WGPUUncapturedErrorCallbackInfo, nextInChain) \
    M(WGPUUncapturedErrorCallbackInfo, callback)                                  \
    M(WGPUUncapturedErrorCallbackInfo, userdata1)                                 \
    M(WGPUUncapturedErrorCallbackInfo, userdata2)                                 \
  X(WGPUAdapterInfo) M(WGPUAdapterInfo, nextInChain) M(WGPUAdapterInfo, vendor)   \
    M(WGPUAdapterInfo, architecture) M(WGPUAdapterInfo, device)                   \
    M(WGPUAdapterInfo, description) M(WGPUAdapterInfo, backendType)               \
    M(WGPUAdapterInfo, adapterType) M(WGPUAdapterInfo, vendorID)                  \
    M(WGPUAdapterInfo, deviceID) M(WGPUAdapterInfo, subgroupMinSize)              \
    M(WGPUAdapterInfo, subgroupMaxSize)                                           \
  X(WGPULimits) M(WGPULimits, nextInChain) M(WGPULimits, maxTextureDimension1D)   \
    M(WGPULimits, maxTextureDimension2D) M(WGPULimits, maxTextureDimension3D)     \
    M(WGPULimits, maxTextureArrayLayers) M(WGPULimits, maxBindGroups)             \
    M(WGPULimits, maxBindGroupsPlusVertexBuffers) M(WGPULimits, maxBindingsPerBindGroup) \
    M(WGPULimits, maxDynamicUniformBuffersPerPipelineLayout)                      \
    M(WGPULimits, maxDynamicStorageBuffersPerPipelineLayout)                      \
    M(WGPULimits, maxSampledTexturesPerShaderStage)                               \
    M(WGPULimits, maxSamplersPerShaderStage) M(WGPULimits, maxStorageBuffersPerShaderStage) \
    M(WGPULimits, maxStorageTexturesPerShaderStage)                               \
    M(WGPULimits, maxUniformBuffersPerShaderStage)                                \
    M(WGPULimits, maxUniformBufferBindingSize) M(WGPULimits, maxStorageBufferBindingSize) \
    M(WGPULimits, minUniformBufferOffsetAlignment)                                \
    M(WGPULimits, minStorageBufferOffsetAlignment) M(WGPULimits, maxVertexBuffers) \
    M(WGPULimits, maxBufferSize) M(WGPULimits, maxVertexAttributes)               \
    M(WGPULimits, maxVertexBufferArrayStride) M(WGPULimits, maxInterStageShaderVariables) \
    M(WGPULimits, maxColorAttachments) M(WGPULimits, maxColorAttachmentBytesPerSample) \
    M(WGPULimits, maxComputeWorkgroupStorageSize)                                 \
    M(WGPULimits, maxComputeInvocationsPerWorkgroup)                              \
    M(WGPULimits, maxComputeWorkgroupSizeX) M(WGPULimits, maxComputeWorkgroupSizeY) \
    M(WGPULimits, maxComputeWorkgroupSizeZ)                                       \
    M(WGPULimits, maxComputeWorkgroupsPerDimension) M(WGPULimits, maxImmediateSize) \
  X(WGPUQueueDescriptor) M(WGPUQueueDescriptor, nextInChain) M(WGPUQueueDescriptor, label) \
  X(WGPUDeviceDescriptor) M(WGPUDeviceDescriptor, nextInChain)                    \
    M(WGPUDeviceDescriptor, label) M(WGPUDeviceDescriptor, requiredFeatureCount)  \
    M(WGPUDeviceDescriptor, requiredFeatures) M(WGPUDeviceDescriptor, requiredLimits) \
    M(WGPUDeviceDescriptor, defaultQueue)                                         \
    M(WGPUDeviceDescriptor, deviceLostCallbackInfo)                               \
    M(WGPUDeviceDescriptor, uncapturedErrorCallbackInfo)                          \
  X(WGPUBufferDescriptor) M(WGPUBufferDescriptor, nextInChain)                    \
    M(WGPUBufferDescriptor, label) M(WGPUBufferDescriptor, usage)                 \
    M(WGPUBufferDescriptor, size) M(WGPUBufferDescriptor, mappedAtCreation)       \
  X(WGPUExtent3D) M(WGPUExtent3D, width) M(WGPUExtent3D, height)                  \
    M(WGPUExtent3D, depthOrArrayLayers)                                           \
  X(WGPUOrigin3D) M(WGPUOrigin3D, x) M(WGPUOrigin3D, y) M(WGPUOrigin3D, z)        \
  X(WGPUTextureDescriptor) M(WGPUTextureDescriptor, nextInChain)                  \
    M(WGPUTextureDescriptor, label) M(WGPUTextureDescriptor, usage)               \
    M(WGPUTextureDescriptor, dimension) M(WGPUTextureDescriptor, size)            \
    M(WGPUTextureDescriptor, format) M(WGPUTextureDescriptor, mipLevelCount)      \
    M(WGPUTextureDescriptor, sampleCount) M(WGPUTextureDescriptor, viewFormatCount) \
    M(WGPUTextureDescriptor, viewFormats)                                         \
  X(WGPUTextureViewDescriptor) M(WGPUTextureViewDescriptor, nextInChain)          \
    M(WGPUTextureViewDescriptor, label) M(WGPUTextureViewDescriptor, format)      \
    M(WGPUTextureViewDescriptor, dimension) M(WGPUTextureViewDescriptor, baseMipLevel) \
    M(WGPUTextureViewDescriptor, mipLevelCount)                                   \
    M(WGPUTextureViewDescriptor, baseArrayLayer)                                  \
    M(WGPUTextureViewDescriptor, arrayLayerCount) M(WGPUTextureViewDescriptor, aspect) \
    M(WGPUTextureViewDescriptor, usage)                                           \
  X(WGPUSamplerDescriptor) M(WGPUSamplerDescriptor, nextInChain)                  \
    M(WGPUSamplerDescriptor, label) M(WGPUSamplerDescriptor, addressModeU)        \
    M(WGPUSamplerDescriptor, addressModeV) M(WGPUSamplerDescriptor, addressModeW) \
    M(WGPUSamplerDescriptor, magFilter) M(WGPUSamplerDescriptor, minFilter)       \
    M(WGPUSamplerDescriptor, mipmapFilter) M(WGPUSamplerDescriptor, lodMinClamp)  \
    M(WGPUSamplerDescriptor, lodMaxClamp) M(WGPUSamplerDescriptor, compare)       \
    M(WGPUSamplerDescriptor, maxAnisotropy)                                       \
  X(WGPUShaderModuleDescriptor) M(WGPUShaderModuleDescriptor, nextInChain)        \
    M(WGPUShaderModuleDescriptor, label)                                          \
  X(WGPUBufferBindingLayout) M(WGPUBufferBindingLayout, nextInChain)              \
    M(WGPUBufferBindingLayout, type) M(WGPUBufferBindingLayout, hasDynamicOffset) \
    M(WGPUBufferBindingLayout, minBindingSize)                                    \
  X(WGPUSamplerBindingLayout) M(WGPUSamplerBindingLayout, nextInChain)            \
    M(WGPUSamplerBindingLayout, type)                                             \
  X(WGPUTextureBindingLayout) M(WGPUTextureBindingLayout, nextInChain)            \
    M(WGPUTextureBindingLayout, sampleType) M(WGPUTextureBindingLayout, viewDimension) \
    M(WGPUTextureBindingLayout, multisampled)                                     \
  X(WGPUStorageTextureBindingLayout) M(WGPUStorageTextureBindingLayout, nextInChain) \
    M(WGPUStorageTextureBindingLayout, access) M(WGPUStorageTextureBindingLayout, format) \
    M(WGPUStorageTextureBindingLayout, viewDimension)                             \
  X(WGPUBindGroupLayoutEntry) M(WGPUBindGroupLayoutEntry, nextInChain)            \
    M(WGPUBindGroupLayoutEntry, binding) M(WGPUBindGroupLayoutEntry, visibility)  \
    M(WGPUBindGroupLayoutEntry, bindingArraySize) M(WGPUBindGroupLayoutEntry, buffer) \
    M(WGPUBindGroupLayoutEntry, sampler) M(WGPUBindGroupLayoutEntry, texture)     \
    M(WGPUBindGroupLayoutEntry, storageTexture)                                   \
  X(WGPUBindGroupLayoutDescriptor) M(WGPUBindGroupLayoutDescriptor, nextInChain)  \
    M(WGPUBindGroupLayoutDescriptor, label) M(WGPUBindGroupLayoutDescriptor, entryCount) \
    M(WGPUBindGroupLayoutDescriptor, entries)                                     \
  X(WGPUBindGroupEntry) M(WGPUBindGroupEntry, nextInChain)                        \
    M(WGPUBindGroupEntry, binding) M(WGPUBindGroupEntry, buffer)                  \
    M(WGPUBindGroupEntry, offset) M(WGPUBindGroupEntry, size)                     \
    M(WGPUBindGroupEntry, sampler) M(WGPUBindGroupEntry, textureView)             \
  X(WGPUBindGroupDescriptor) M(WGPUBindGroupDescriptor, nextInChain)              \
    M(WGPUBindGroupDescriptor, label) M(WGPUBindGroupDescriptor, layout)          \
    M(WGPUBindGroupDescriptor, entryCount) M(WGPUBindGroupDescriptor, entries)    \
  X(WGPUPipelineLayoutDescriptor) M(WGPUPipelineLayoutDescriptor, nextInChain)    \
    M(WGPUPipelineLayoutDescriptor, label)                                        \
    M(WGPUPipelineLayoutDescriptor, bindGroupLayoutCount)                         \
    M(WGPUPipelineLayoutDescriptor, bindGroupLayouts)                             \
    M(WGPUPipelineLayoutDescriptor, immediateSize)                                \
  X(WGPUConstantEntry) M(WGPUConstantEntry, nextInChain) M(WGPUConstantEntry, key) \
    M(WGPUConstantEntry, value)                                                   \
  X(WGPUComputeState) M(WGPUComputeState, nextInChain) M(WGPUComputeState, module) \
    M(WGPUComputeState, entryPoint) M(WGPUComputeState, constantCount)            \
    M(WGPUComputeState, constants)                                                \
  X(WGPUComputePipelineDescriptor) M(WGPUComputePipelineDescriptor, nextInChain)  \
    M(WGPUComputePipelineDescriptor, label) M(WGPUComputePipelineDescriptor, layout) \
    M(WGPUComputePipelineDescriptor, compute)                                     \
  X(WGPUCommandEncoderDescriptor) M(WGPUCommandEncoderDescriptor, nextInChain)    \
    M(WGPUCommandEncoderDescriptor, label)                                        \
  X(WGPUCommandBufferDescriptor) M(WGPUCommandBufferDescriptor, nextInChain)      \
    M(WGPUCommandBufferDescriptor, label)                                         \
  X(WGPUComputePassDescriptor) M(WGPUComputePassDescriptor, nextInChain)          \
    M(WGPUComputePassDescriptor, label) M(WGPUComputePassDescriptor, timestampWrites) \
  X(WGPUTexelCopyBufferLayout) M(WGPUTexelCopyBufferLayout, offset)               \
    M(WGPUTexelCopyBufferLayout, bytesPerRow) M(WGPUTexelCopyBufferLayout, rowsPerImage) \
  X(WGPUTexelCopyBufferInfo) M(WGPUTexelCopyBufferInfo, layout)                   \
    M(WGPUTexelCopyBufferInfo, buffer)                                            \
  X(WGPUTexelCopyTextureInfo) M(WGPUTexelCopyTextureInfo, texture)                \
    M(WGPUTexelCopyTextureInfo, mipLevel) M(WGPUTexelCopyTextureInfo, origin)     \
    M(WGPUTexelCopyTextureInfo, aspect)
#define UL__WGPU_ABI_CB(X, M, S)                                                  \
  X(S) M(S, nextInChain) M(S, mode) M(S, callback) M(S, userdata1) M(S, userdata2)

#endif
