/* Internal to unlost: our declarations of webgpu.h for the pinned
 * implementation's header revision (Dawn df73f16, 2025; docs/webgpu-abi.md),
 * used by the engine, by the webgpu.h front door (src/webgpu/) and by the
 * tests written on webgpu.h alone.
 *
 * How this file was made: a script of ours read Dawn's interface description
 * (src/dawn/dawn.json at df73f16: names, enum values, member lists) and
 * wrote the types below with the build tags the pinned build enables
 * (compat, dawn, native, deprecated) and Dawn's value prefixes
 * (docs/webgpu-abi.md 1.1). tests/test_abi.c checks every struct that the
 * implementation's debug info holds (UL__WGPU_ABI_STRUCTS) member by member;
 * the others rest on the description alone. Enums are typedefs of uint32_t
 * (each has a 32-bit Force32 member upstream), flags of uint64_t.
 * The entry points themselves are listed in wgpu/wgpu_api.h. */
#ifndef UL_WGPU_H
#define UL_WGPU_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

typedef struct WGPUChainedStruct {
  struct WGPUChainedStruct *next;
  uint32_t sType;
} WGPUChainedStruct;

typedef uint32_t WGPUBool;
typedef uint64_t WGPUFlags;

typedef struct WGPUAdapterImpl *WGPUAdapter;
typedef struct WGPUBindGroupImpl *WGPUBindGroup;
typedef struct WGPUBindGroupLayoutImpl *WGPUBindGroupLayout;
typedef struct WGPUBufferImpl *WGPUBuffer;
typedef struct WGPUCommandBufferImpl *WGPUCommandBuffer;
typedef struct WGPUCommandEncoderImpl *WGPUCommandEncoder;
typedef struct WGPUComputePassEncoderImpl *WGPUComputePassEncoder;
typedef struct WGPUComputePipelineImpl *WGPUComputePipeline;
typedef struct WGPUDeviceImpl *WGPUDevice;
typedef struct WGPUExternalTextureImpl *WGPUExternalTexture;
typedef struct WGPUInstanceImpl *WGPUInstance;
typedef struct WGPUPipelineLayoutImpl *WGPUPipelineLayout;
typedef struct WGPUQuerySetImpl *WGPUQuerySet;
typedef struct WGPUQueueImpl *WGPUQueue;
typedef struct WGPURenderBundleImpl *WGPURenderBundle;
typedef struct WGPURenderBundleEncoderImpl *WGPURenderBundleEncoder;
typedef struct WGPURenderPassEncoderImpl *WGPURenderPassEncoder;
typedef struct WGPURenderPipelineImpl *WGPURenderPipeline;
typedef struct WGPUSamplerImpl *WGPUSampler;
typedef struct WGPUShaderModuleImpl *WGPUShaderModule;
typedef struct WGPUSharedBufferMemoryImpl *WGPUSharedBufferMemory;
typedef struct WGPUSharedFenceImpl *WGPUSharedFence;
typedef struct WGPUSharedTextureMemoryImpl *WGPUSharedTextureMemory;
typedef struct WGPUSurfaceImpl *WGPUSurface;
typedef struct WGPUTextureImpl *WGPUTexture;
typedef struct WGPUTextureViewImpl *WGPUTextureView;

#define WGPU_WHOLE_SIZE (UINT64_MAX)
#define WGPU_WHOLE_MAP_SIZE (SIZE_MAX)
#define WGPU_COPY_STRIDE_UNDEFINED (UINT32_MAX)
#define WGPU_LIMIT_U32_UNDEFINED (UINT32_MAX)
#define WGPU_LIMIT_U64_UNDEFINED (UINT64_MAX)
#define WGPU_ARRAY_LAYER_COUNT_UNDEFINED (UINT32_MAX)
#define WGPU_MIP_LEVEL_COUNT_UNDEFINED (UINT32_MAX)
#define WGPU_DEPTH_CLEAR_VALUE_UNDEFINED (NAN)
#define WGPU_DEPTH_SLICE_UNDEFINED (UINT32_MAX)
#define WGPU_QUERY_SET_INDEX_UNDEFINED (UINT32_MAX)
#define WGPU_STRLEN (SIZE_MAX)

typedef uint32_t WGPUWGSLLanguageFeatureName;
enum {
  WGPUWGSLLanguageFeatureName_ReadonlyAndReadwriteStorageTextures = 0x00000001,
  WGPUWGSLLanguageFeatureName_Packed4x8IntegerDotProduct = 0x00000002,
  WGPUWGSLLanguageFeatureName_UnrestrictedPointerParameters = 0x00000003,
  WGPUWGSLLanguageFeatureName_PointerCompositeAccess = 0x00000004,
  WGPUWGSLLanguageFeatureName_SizedBindingArray = 0x00000005,
  WGPUWGSLLanguageFeatureName_TexelBuffers = 0x00000006,
  WGPUWGSLLanguageFeatureName_ChromiumTestingUnimplemented = 0x00050000,
  WGPUWGSLLanguageFeatureName_ChromiumTestingUnsafeExperimental = 0x00050001,
  WGPUWGSLLanguageFeatureName_ChromiumTestingExperimental = 0x00050002,
  WGPUWGSLLanguageFeatureName_ChromiumTestingShippedWithKillswitch = 0x00050003,
  WGPUWGSLLanguageFeatureName_ChromiumTestingShipped = 0x00050004
};
typedef uint32_t WGPUAdapterType;
enum {
  WGPUAdapterType_DiscreteGPU = 0x00000001,
  WGPUAdapterType_IntegratedGPU = 0x00000002,
  WGPUAdapterType_CPU = 0x00000003,
  WGPUAdapterType_Unknown = 0x00000004
};
typedef uint32_t WGPUAddressMode;
enum {
  WGPUAddressMode_Undefined = 0x00000000,
  WGPUAddressMode_ClampToEdge = 0x00000001,
  WGPUAddressMode_Repeat = 0x00000002,
  WGPUAddressMode_MirrorRepeat = 0x00000003
};
typedef uint32_t WGPUAlphaMode;
enum {
  WGPUAlphaMode_Opaque = 0x00000001,
  WGPUAlphaMode_Premultiplied = 0x00000002,
  WGPUAlphaMode_Unpremultiplied = 0x00000003
};
typedef uint32_t WGPUBackendType;
enum {
  WGPUBackendType_Undefined = 0x00000000,
  WGPUBackendType_Null = 0x00000001,
  WGPUBackendType_WebGPU = 0x00000002,
  WGPUBackendType_D3D11 = 0x00000003,
  WGPUBackendType_D3D12 = 0x00000004,
  WGPUBackendType_Metal = 0x00000005,
  WGPUBackendType_Vulkan = 0x00000006,
  WGPUBackendType_OpenGL = 0x00000007,
  WGPUBackendType_OpenGLES = 0x00000008
};
typedef uint32_t WGPUBlendFactor;
enum {
  WGPUBlendFactor_Undefined = 0x00000000,
  WGPUBlendFactor_Zero = 0x00000001,
  WGPUBlendFactor_One = 0x00000002,
  WGPUBlendFactor_Src = 0x00000003,
  WGPUBlendFactor_OneMinusSrc = 0x00000004,
  WGPUBlendFactor_SrcAlpha = 0x00000005,
  WGPUBlendFactor_OneMinusSrcAlpha = 0x00000006,
  WGPUBlendFactor_Dst = 0x00000007,
  WGPUBlendFactor_OneMinusDst = 0x00000008,
  WGPUBlendFactor_DstAlpha = 0x00000009,
  WGPUBlendFactor_OneMinusDstAlpha = 0x0000000A,
  WGPUBlendFactor_SrcAlphaSaturated = 0x0000000B,
  WGPUBlendFactor_Constant = 0x0000000C,
  WGPUBlendFactor_OneMinusConstant = 0x0000000D,
  WGPUBlendFactor_Src1 = 0x0000000E,
  WGPUBlendFactor_OneMinusSrc1 = 0x0000000F,
  WGPUBlendFactor_Src1Alpha = 0x00000010,
  WGPUBlendFactor_OneMinusSrc1Alpha = 0x00000011
};
typedef uint32_t WGPUBlendOperation;
enum {
  WGPUBlendOperation_Undefined = 0x00000000,
  WGPUBlendOperation_Add = 0x00000001,
  WGPUBlendOperation_Subtract = 0x00000002,
  WGPUBlendOperation_ReverseSubtract = 0x00000003,
  WGPUBlendOperation_Min = 0x00000004,
  WGPUBlendOperation_Max = 0x00000005
};
typedef uint32_t WGPUBufferBindingType;
enum {
  WGPUBufferBindingType_BindingNotUsed = 0x00000000,
  WGPUBufferBindingType_Undefined = 0x00000001,
  WGPUBufferBindingType_Uniform = 0x00000002,
  WGPUBufferBindingType_Storage = 0x00000003,
  WGPUBufferBindingType_ReadOnlyStorage = 0x00000004
};
typedef uint32_t WGPUBufferMapState;
enum {
  WGPUBufferMapState_Unmapped = 0x00000001,
  WGPUBufferMapState_Pending = 0x00000002,
  WGPUBufferMapState_Mapped = 0x00000003
};
typedef uint32_t WGPUCallbackMode;
enum {
  WGPUCallbackMode_WaitAnyOnly = 0x00000001,
  WGPUCallbackMode_AllowProcessEvents = 0x00000002,
  WGPUCallbackMode_AllowSpontaneous = 0x00000003
};
typedef uint32_t WGPUCompareFunction;
enum {
  WGPUCompareFunction_Undefined = 0x00000000,
  WGPUCompareFunction_Never = 0x00000001,
  WGPUCompareFunction_Less = 0x00000002,
  WGPUCompareFunction_Equal = 0x00000003,
  WGPUCompareFunction_LessEqual = 0x00000004,
  WGPUCompareFunction_Greater = 0x00000005,
  WGPUCompareFunction_NotEqual = 0x00000006,
  WGPUCompareFunction_GreaterEqual = 0x00000007,
  WGPUCompareFunction_Always = 0x00000008
};
typedef uint32_t WGPUCompilationInfoRequestStatus;
enum {
  WGPUCompilationInfoRequestStatus_Success = 0x00000001,
  WGPUCompilationInfoRequestStatus_CallbackCancelled = 0x00000002
};
typedef uint32_t WGPUCompilationMessageType;
enum {
  WGPUCompilationMessageType_Error = 0x00000001,
  WGPUCompilationMessageType_Warning = 0x00000002,
  WGPUCompilationMessageType_Info = 0x00000003
};
typedef uint32_t WGPUCompositeAlphaMode;
enum {
  WGPUCompositeAlphaMode_Auto = 0x00000000,
  WGPUCompositeAlphaMode_Opaque = 0x00000001,
  WGPUCompositeAlphaMode_Premultiplied = 0x00000002,
  WGPUCompositeAlphaMode_Unpremultiplied = 0x00000003,
  WGPUCompositeAlphaMode_Inherit = 0x00000004
};
typedef uint32_t WGPUCreatePipelineAsyncStatus;
enum {
  WGPUCreatePipelineAsyncStatus_Success = 0x00000001,
  WGPUCreatePipelineAsyncStatus_CallbackCancelled = 0x00000002,
  WGPUCreatePipelineAsyncStatus_ValidationError = 0x00000003,
  WGPUCreatePipelineAsyncStatus_InternalError = 0x00000004
};
typedef uint32_t WGPUCullMode;
enum {
  WGPUCullMode_Undefined = 0x00000000,
  WGPUCullMode_None = 0x00000001,
  WGPUCullMode_Front = 0x00000002,
  WGPUCullMode_Back = 0x00000003
};
typedef uint32_t WGPUDeviceLostReason;
enum {
  WGPUDeviceLostReason_Unknown = 0x00000001,
  WGPUDeviceLostReason_Destroyed = 0x00000002,
  WGPUDeviceLostReason_CallbackCancelled = 0x00000003,
  WGPUDeviceLostReason_FailedCreation = 0x00000004
};
typedef uint32_t WGPUErrorFilter;
enum {
  WGPUErrorFilter_Validation = 0x00000001,
  WGPUErrorFilter_OutOfMemory = 0x00000002,
  WGPUErrorFilter_Internal = 0x00000003
};
typedef uint32_t WGPUErrorType;
enum {
  WGPUErrorType_NoError = 0x00000001,
  WGPUErrorType_Validation = 0x00000002,
  WGPUErrorType_OutOfMemory = 0x00000003,
  WGPUErrorType_Internal = 0x00000004,
  WGPUErrorType_Unknown = 0x00000005
};
typedef uint32_t WGPUExternalTextureRotation;
enum {
  WGPUExternalTextureRotation_Rotate0Degrees = 0x00000001,
  WGPUExternalTextureRotation_Rotate90Degrees = 0x00000002,
  WGPUExternalTextureRotation_Rotate180Degrees = 0x00000003,
  WGPUExternalTextureRotation_Rotate270Degrees = 0x00000004
};
typedef uint32_t WGPUFeatureLevel;
enum {
  WGPUFeatureLevel_Undefined = 0x00000000,
  WGPUFeatureLevel_Compatibility = 0x00000001,
  WGPUFeatureLevel_Core = 0x00000002
};
typedef uint32_t WGPUFeatureName;
enum {
  WGPUFeatureName_DepthClipControl = 0x00000001,
  WGPUFeatureName_Depth32FloatStencil8 = 0x00000002,
  WGPUFeatureName_TimestampQuery = 0x00000003,
  WGPUFeatureName_TextureCompressionBC = 0x00000004,
  WGPUFeatureName_TextureCompressionBCSliced3D = 0x00000005,
  WGPUFeatureName_TextureCompressionETC2 = 0x00000006,
  WGPUFeatureName_TextureCompressionASTC = 0x00000007,
  WGPUFeatureName_TextureCompressionASTCSliced3D = 0x00000008,
  WGPUFeatureName_IndirectFirstInstance = 0x00000009,
  WGPUFeatureName_ShaderF16 = 0x0000000A,
  WGPUFeatureName_RG11B10UfloatRenderable = 0x0000000B,
  WGPUFeatureName_BGRA8UnormStorage = 0x0000000C,
  WGPUFeatureName_Float32Filterable = 0x0000000D,
  WGPUFeatureName_Float32Blendable = 0x0000000E,
  WGPUFeatureName_ClipDistances = 0x0000000F,
  WGPUFeatureName_DualSourceBlending = 0x00000010,
  WGPUFeatureName_Subgroups = 0x00000011,
  WGPUFeatureName_CoreFeaturesAndLimits = 0x00000012,
  WGPUFeatureName_DawnInternalUsages = 0x00050000,
  WGPUFeatureName_DawnMultiPlanarFormats = 0x00050001,
  WGPUFeatureName_DawnNative = 0x00050002,
  WGPUFeatureName_ChromiumExperimentalTimestampQueryInsidePasses = 0x00050003,
  WGPUFeatureName_ImplicitDeviceSynchronization = 0x00050004,
  WGPUFeatureName_TransientAttachments = 0x00050006,
  WGPUFeatureName_MSAARenderToSingleSampled = 0x00050007,
  WGPUFeatureName_D3D11MultithreadProtected = 0x00050008,
  WGPUFeatureName_ANGLETextureSharing = 0x00050009,
  WGPUFeatureName_PixelLocalStorageCoherent = 0x0005000A,
  WGPUFeatureName_PixelLocalStorageNonCoherent = 0x0005000B,
  WGPUFeatureName_Unorm16TextureFormats = 0x0005000C,
  WGPUFeatureName_Snorm16TextureFormats = 0x0005000D,
  WGPUFeatureName_MultiPlanarFormatExtendedUsages = 0x0005000E,
  WGPUFeatureName_MultiPlanarFormatP010 = 0x0005000F,
  WGPUFeatureName_HostMappedPointer = 0x00050010,
  WGPUFeatureName_MultiPlanarRenderTargets = 0x00050011,
  WGPUFeatureName_MultiPlanarFormatNv12a = 0x00050012,
  WGPUFeatureName_FramebufferFetch = 0x00050013,
  WGPUFeatureName_BufferMapExtendedUsages = 0x00050014,
  WGPUFeatureName_AdapterPropertiesMemoryHeaps = 0x00050015,
  WGPUFeatureName_AdapterPropertiesD3D = 0x00050016,
  WGPUFeatureName_AdapterPropertiesVk = 0x00050017,
  WGPUFeatureName_R8UnormStorage = 0x00050018,
  WGPUFeatureName_DawnFormatCapabilities = 0x00050019,
  WGPUFeatureName_DawnDrmFormatCapabilities = 0x0005001A,
  WGPUFeatureName_Norm16TextureFormats = 0x0005001B,
  WGPUFeatureName_MultiPlanarFormatNv16 = 0x0005001C,
  WGPUFeatureName_MultiPlanarFormatNv24 = 0x0005001D,
  WGPUFeatureName_MultiPlanarFormatP210 = 0x0005001E,
  WGPUFeatureName_MultiPlanarFormatP410 = 0x0005001F,
  WGPUFeatureName_SharedTextureMemoryVkDedicatedAllocation = 0x00050020,
  WGPUFeatureName_SharedTextureMemoryAHardwareBuffer = 0x00050021,
  WGPUFeatureName_SharedTextureMemoryDmaBuf = 0x00050022,
  WGPUFeatureName_SharedTextureMemoryOpaqueFD = 0x00050023,
  WGPUFeatureName_SharedTextureMemoryZirconHandle = 0x00050024,
  WGPUFeatureName_SharedTextureMemoryDXGISharedHandle = 0x00050025,
  WGPUFeatureName_SharedTextureMemoryD3D11Texture2D = 0x00050026,
  WGPUFeatureName_SharedTextureMemoryIOSurface = 0x00050027,
  WGPUFeatureName_SharedTextureMemoryEGLImage = 0x00050028,
  WGPUFeatureName_SharedFenceVkSemaphoreOpaqueFD = 0x00050029,
  WGPUFeatureName_SharedFenceSyncFD = 0x0005002A,
  WGPUFeatureName_SharedFenceVkSemaphoreZirconHandle = 0x0005002B,
  WGPUFeatureName_SharedFenceDXGISharedHandle = 0x0005002C,
  WGPUFeatureName_SharedFenceMTLSharedEvent = 0x0005002D,
  WGPUFeatureName_SharedBufferMemoryD3D12Resource = 0x0005002E,
  WGPUFeatureName_StaticSamplers = 0x0005002F,
  WGPUFeatureName_YCbCrVulkanSamplers = 0x00050030,
  WGPUFeatureName_ShaderModuleCompilationOptions = 0x00050031,
  WGPUFeatureName_DawnLoadResolveTexture = 0x00050032,
  WGPUFeatureName_DawnPartialLoadResolveTexture = 0x00050033,
  WGPUFeatureName_MultiDrawIndirect = 0x00050034,
  WGPUFeatureName_DawnTexelCopyBufferRowAlignment = 0x00050035,
  WGPUFeatureName_FlexibleTextureViews = 0x00050036,
  WGPUFeatureName_ChromiumExperimentalSubgroupMatrix = 0x00050037,
  WGPUFeatureName_SharedFenceEGLSync = 0x00050038,
  WGPUFeatureName_DawnDeviceAllocatorControl = 0x00050039,
  WGPUFeatureName_TextureFormatsTier1 = 0x0005003A
};
typedef uint32_t WGPUFilterMode;
enum {
  WGPUFilterMode_Undefined = 0x00000000,
  WGPUFilterMode_Nearest = 0x00000001,
  WGPUFilterMode_Linear = 0x00000002
};
typedef uint32_t WGPUFrontFace;
enum {
  WGPUFrontFace_Undefined = 0x00000000,
  WGPUFrontFace_CCW = 0x00000001,
  WGPUFrontFace_CW = 0x00000002
};
typedef uint32_t WGPUIndexFormat;
enum {
  WGPUIndexFormat_Undefined = 0x00000000,
  WGPUIndexFormat_Uint16 = 0x00000001,
  WGPUIndexFormat_Uint32 = 0x00000002
};
typedef uint32_t WGPULoadOp;
enum {
  WGPULoadOp_Undefined = 0x00000000,
  WGPULoadOp_Load = 0x00000001,
  WGPULoadOp_Clear = 0x00000002,
  WGPULoadOp_ExpandResolveTexture = 0x00050003
};
typedef uint32_t WGPULoggingType;
enum {
  WGPULoggingType_Verbose = 0x00000001,
  WGPULoggingType_Info = 0x00000002,
  WGPULoggingType_Warning = 0x00000003,
  WGPULoggingType_Error = 0x00000004
};
typedef uint32_t WGPUMapAsyncStatus;
enum {
  WGPUMapAsyncStatus_Success = 0x00000001,
  WGPUMapAsyncStatus_CallbackCancelled = 0x00000002,
  WGPUMapAsyncStatus_Error = 0x00000003,
  WGPUMapAsyncStatus_Aborted = 0x00000004
};
typedef uint32_t WGPUMipmapFilterMode;
enum {
  WGPUMipmapFilterMode_Undefined = 0x00000000,
  WGPUMipmapFilterMode_Nearest = 0x00000001,
  WGPUMipmapFilterMode_Linear = 0x00000002
};
typedef uint32_t WGPUOptionalBool;
enum {
  WGPUOptionalBool_False = 0x00000000,
  WGPUOptionalBool_True = 0x00000001,
  WGPUOptionalBool_Undefined = 0x00000002
};
typedef uint32_t WGPUPopErrorScopeStatus;
enum {
  WGPUPopErrorScopeStatus_Success = 0x00000001,
  WGPUPopErrorScopeStatus_CallbackCancelled = 0x00000002,
  WGPUPopErrorScopeStatus_Error = 0x00000003
};
typedef uint32_t WGPUPowerPreference;
enum {
  WGPUPowerPreference_Undefined = 0x00000000,
  WGPUPowerPreference_LowPower = 0x00000001,
  WGPUPowerPreference_HighPerformance = 0x00000002
};
typedef uint32_t WGPUPresentMode;
enum {
  WGPUPresentMode_Undefined = 0x00000000,
  WGPUPresentMode_Fifo = 0x00000001,
  WGPUPresentMode_FifoRelaxed = 0x00000002,
  WGPUPresentMode_Immediate = 0x00000003,
  WGPUPresentMode_Mailbox = 0x00000004
};
typedef uint32_t WGPUPrimitiveTopology;
enum {
  WGPUPrimitiveTopology_Undefined = 0x00000000,
  WGPUPrimitiveTopology_PointList = 0x00000001,
  WGPUPrimitiveTopology_LineList = 0x00000002,
  WGPUPrimitiveTopology_LineStrip = 0x00000003,
  WGPUPrimitiveTopology_TriangleList = 0x00000004,
  WGPUPrimitiveTopology_TriangleStrip = 0x00000005
};
typedef uint32_t WGPUQueryType;
enum {
  WGPUQueryType_Occlusion = 0x00000001,
  WGPUQueryType_Timestamp = 0x00000002
};
typedef uint32_t WGPUQueueWorkDoneStatus;
enum {
  WGPUQueueWorkDoneStatus_Success = 0x00000001,
  WGPUQueueWorkDoneStatus_CallbackCancelled = 0x00000002,
  WGPUQueueWorkDoneStatus_Error = 0x00000003
};
typedef uint32_t WGPURequestAdapterStatus;
enum {
  WGPURequestAdapterStatus_Success = 0x00000001,
  WGPURequestAdapterStatus_CallbackCancelled = 0x00000002,
  WGPURequestAdapterStatus_Unavailable = 0x00000003,
  WGPURequestAdapterStatus_Error = 0x00000004
};
typedef uint32_t WGPURequestDeviceStatus;
enum {
  WGPURequestDeviceStatus_Success = 0x00000001,
  WGPURequestDeviceStatus_CallbackCancelled = 0x00000002,
  WGPURequestDeviceStatus_Error = 0x00000003
};
typedef uint32_t WGPUSType;
enum {
  WGPUSType_ShaderSourceSPIRV = 0x00000001,
  WGPUSType_ShaderSourceWGSL = 0x00000002,
  WGPUSType_RenderPassMaxDrawCount = 0x00000003,
  WGPUSType_SurfaceSourceMetalLayer = 0x00000004,
  WGPUSType_SurfaceSourceWindowsHWND = 0x00000005,
  WGPUSType_SurfaceSourceXlibWindow = 0x00000006,
  WGPUSType_SurfaceSourceWaylandSurface = 0x00000007,
  WGPUSType_SurfaceSourceAndroidNativeWindow = 0x00000008,
  WGPUSType_SurfaceSourceXCBWindow = 0x00000009,
  WGPUSType_CompatibilityModeLimits = 0x00020000,
  WGPUSType_TextureBindingViewDimensionDescriptor = 0x00020001,
  WGPUSType_SurfaceDescriptorFromWindowsCoreWindow = 0x00050000,
  WGPUSType_ExternalTextureBindingEntry = 0x00050001,
  WGPUSType_ExternalTextureBindingLayout = 0x00050002,
  WGPUSType_SurfaceDescriptorFromWindowsUWPSwapChainPanel = 0x00050003,
  WGPUSType_DawnTextureInternalUsageDescriptor = 0x00050004,
  WGPUSType_DawnEncoderInternalUsageDescriptor = 0x00050005,
  WGPUSType_DawnInstanceDescriptor = 0x00050006,
  WGPUSType_DawnCacheDeviceDescriptor = 0x00050007,
  WGPUSType_DawnAdapterPropertiesPowerPreference = 0x00050008,
  WGPUSType_DawnBufferDescriptorErrorInfoFromWireClient = 0x00050009,
  WGPUSType_DawnTogglesDescriptor = 0x0005000A,
  WGPUSType_DawnShaderModuleSPIRVOptionsDescriptor = 0x0005000B,
  WGPUSType_RequestAdapterOptionsLUID = 0x0005000C,
  WGPUSType_RequestAdapterOptionsGetGLProc = 0x0005000D,
  WGPUSType_RequestAdapterOptionsD3D11Device = 0x0005000E,
  WGPUSType_DawnRenderPassColorAttachmentRenderToSingleSampled = 0x0005000F,
  WGPUSType_RenderPassPixelLocalStorage = 0x00050010,
  WGPUSType_PipelineLayoutPixelLocalStorage = 0x00050011,
  WGPUSType_BufferHostMappedPointer = 0x00050012,
  WGPUSType_AdapterPropertiesMemoryHeaps = 0x00050013,
  WGPUSType_AdapterPropertiesD3D = 0x00050014,
  WGPUSType_AdapterPropertiesVk = 0x00050015,
  WGPUSType_DawnWireWGSLControl = 0x00050016,
  WGPUSType_DawnWGSLBlocklist = 0x00050017,
  WGPUSType_DawnDrmFormatCapabilities = 0x00050018,
  WGPUSType_ShaderModuleCompilationOptions = 0x00050019,
  WGPUSType_ColorTargetStateExpandResolveTextureDawn = 0x0005001A,
  WGPUSType_RenderPassDescriptorExpandResolveRect = 0x0005001B,
  WGPUSType_SharedTextureMemoryVkDedicatedAllocationDescriptor = 0x0005001C,
  WGPUSType_SharedTextureMemoryAHardwareBufferDescriptor = 0x0005001D,
  WGPUSType_SharedTextureMemoryDmaBufDescriptor = 0x0005001E,
  WGPUSType_SharedTextureMemoryOpaqueFDDescriptor = 0x0005001F,
  WGPUSType_SharedTextureMemoryZirconHandleDescriptor = 0x00050020,
  WGPUSType_SharedTextureMemoryDXGISharedHandleDescriptor = 0x00050021,
  WGPUSType_SharedTextureMemoryD3D11Texture2DDescriptor = 0x00050022,
  WGPUSType_SharedTextureMemoryIOSurfaceDescriptor = 0x00050023,
  WGPUSType_SharedTextureMemoryEGLImageDescriptor = 0x00050024,
  WGPUSType_SharedTextureMemoryInitializedBeginState = 0x00050025,
  WGPUSType_SharedTextureMemoryInitializedEndState = 0x00050026,
  WGPUSType_SharedTextureMemoryVkImageLayoutBeginState = 0x00050027,
  WGPUSType_SharedTextureMemoryVkImageLayoutEndState = 0x00050028,
  WGPUSType_SharedTextureMemoryD3DSwapchainBeginState = 0x00050029,
  WGPUSType_SharedFenceVkSemaphoreOpaqueFDDescriptor = 0x0005002A,
  WGPUSType_SharedFenceVkSemaphoreOpaqueFDExportInfo = 0x0005002B,
  WGPUSType_SharedFenceSyncFDDescriptor = 0x0005002C,
  WGPUSType_SharedFenceSyncFDExportInfo = 0x0005002D,
  WGPUSType_SharedFenceVkSemaphoreZirconHandleDescriptor = 0x0005002E,
  WGPUSType_SharedFenceVkSemaphoreZirconHandleExportInfo = 0x0005002F,
  WGPUSType_SharedFenceDXGISharedHandleDescriptor = 0x00050030,
  WGPUSType_SharedFenceDXGISharedHandleExportInfo = 0x00050031,
  WGPUSType_SharedFenceMTLSharedEventDescriptor = 0x00050032,
  WGPUSType_SharedFenceMTLSharedEventExportInfo = 0x00050033,
  WGPUSType_SharedBufferMemoryD3D12ResourceDescriptor = 0x00050034,
  WGPUSType_StaticSamplerBindingLayout = 0x00050035,
  WGPUSType_YCbCrVkDescriptor = 0x00050036,
  WGPUSType_SharedTextureMemoryAHardwareBufferProperties = 0x00050037,
  WGPUSType_AHardwareBufferProperties = 0x00050038,
  WGPUSType_DawnTexelCopyBufferRowAlignmentLimits = 0x0005003A,
  WGPUSType_AdapterPropertiesSubgroupMatrixConfigs = 0x0005003B,
  WGPUSType_SharedFenceEGLSyncDescriptor = 0x0005003C,
  WGPUSType_SharedFenceEGLSyncExportInfo = 0x0005003D,
  WGPUSType_DawnInjectedInvalidSType = 0x0005003E,
  WGPUSType_DawnCompilationMessageUtf16 = 0x0005003F,
  WGPUSType_DawnFakeBufferOOMForTesting = 0x00050040,
  WGPUSType_SurfaceDescriptorFromWindowsWinUISwapChainPanel = 0x00050041,
  WGPUSType_DawnDeviceAllocatorControl = 0x00050042,
  WGPUSType_DawnHostMappedPointerLimits = 0x00050043,
  WGPUSType_RenderPassDescriptorResolveRect = 0x00050044,
  WGPUSType_RequestAdapterWebGPUBackendOptions = 0x00050045,
  WGPUSType_DawnFakeDeviceInitializeErrorForTesting = 0x00050046
};
typedef uint32_t WGPUSamplerBindingType;
enum {
  WGPUSamplerBindingType_BindingNotUsed = 0x00000000,
  WGPUSamplerBindingType_Undefined = 0x00000001,
  WGPUSamplerBindingType_Filtering = 0x00000002,
  WGPUSamplerBindingType_NonFiltering = 0x00000003,
  WGPUSamplerBindingType_Comparison = 0x00000004
};
typedef uint32_t WGPUSharedFenceType;
enum {
  WGPUSharedFenceType_VkSemaphoreOpaqueFD = 0x00000001,
  WGPUSharedFenceType_SyncFD = 0x00000002,
  WGPUSharedFenceType_VkSemaphoreZirconHandle = 0x00000003,
  WGPUSharedFenceType_DXGISharedHandle = 0x00000004,
  WGPUSharedFenceType_MTLSharedEvent = 0x00000005,
  WGPUSharedFenceType_EGLSync = 0x00000006
};
typedef uint32_t WGPUStatus;
enum {
  WGPUStatus_Success = 0x00000001,
  WGPUStatus_Error = 0x00000002
};
typedef uint32_t WGPUStencilOperation;
enum {
  WGPUStencilOperation_Undefined = 0x00000000,
  WGPUStencilOperation_Keep = 0x00000001,
  WGPUStencilOperation_Zero = 0x00000002,
  WGPUStencilOperation_Replace = 0x00000003,
  WGPUStencilOperation_Invert = 0x00000004,
  WGPUStencilOperation_IncrementClamp = 0x00000005,
  WGPUStencilOperation_DecrementClamp = 0x00000006,
  WGPUStencilOperation_IncrementWrap = 0x00000007,
  WGPUStencilOperation_DecrementWrap = 0x00000008
};
typedef uint32_t WGPUStorageTextureAccess;
enum {
  WGPUStorageTextureAccess_BindingNotUsed = 0x00000000,
  WGPUStorageTextureAccess_Undefined = 0x00000001,
  WGPUStorageTextureAccess_WriteOnly = 0x00000002,
  WGPUStorageTextureAccess_ReadOnly = 0x00000003,
  WGPUStorageTextureAccess_ReadWrite = 0x00000004
};
typedef uint32_t WGPUStoreOp;
enum {
  WGPUStoreOp_Undefined = 0x00000000,
  WGPUStoreOp_Store = 0x00000001,
  WGPUStoreOp_Discard = 0x00000002
};
typedef uint32_t WGPUSubgroupMatrixComponentType;
enum {
  WGPUSubgroupMatrixComponentType_F32 = 0x00000001,
  WGPUSubgroupMatrixComponentType_F16 = 0x00000002,
  WGPUSubgroupMatrixComponentType_U32 = 0x00000003,
  WGPUSubgroupMatrixComponentType_I32 = 0x00000004
};
typedef uint32_t WGPUSurfaceGetCurrentTextureStatus;
enum {
  WGPUSurfaceGetCurrentTextureStatus_SuccessOptimal = 0x00000001,
  WGPUSurfaceGetCurrentTextureStatus_SuccessSuboptimal = 0x00000002,
  WGPUSurfaceGetCurrentTextureStatus_Timeout = 0x00000003,
  WGPUSurfaceGetCurrentTextureStatus_Outdated = 0x00000004,
  WGPUSurfaceGetCurrentTextureStatus_Lost = 0x00000005,
  WGPUSurfaceGetCurrentTextureStatus_Error = 0x00000006
};
typedef uint32_t WGPUTextureAspect;
enum {
  WGPUTextureAspect_Undefined = 0x00000000,
  WGPUTextureAspect_All = 0x00000001,
  WGPUTextureAspect_StencilOnly = 0x00000002,
  WGPUTextureAspect_DepthOnly = 0x00000003,
  WGPUTextureAspect_Plane0Only = 0x00050000,
  WGPUTextureAspect_Plane1Only = 0x00050001,
  WGPUTextureAspect_Plane2Only = 0x00050002
};
typedef uint32_t WGPUTextureDimension;
enum {
  WGPUTextureDimension_Undefined = 0x00000000,
  WGPUTextureDimension_1D = 0x00000001,
  WGPUTextureDimension_2D = 0x00000002,
  WGPUTextureDimension_3D = 0x00000003
};
typedef uint32_t WGPUTextureFormat;
enum {
  WGPUTextureFormat_Undefined = 0x00000000,
  WGPUTextureFormat_R8Unorm = 0x00000001,
  WGPUTextureFormat_R8Snorm = 0x00000002,
  WGPUTextureFormat_R8Uint = 0x00000003,
  WGPUTextureFormat_R8Sint = 0x00000004,
  WGPUTextureFormat_R16Uint = 0x00000005,
  WGPUTextureFormat_R16Sint = 0x00000006,
  WGPUTextureFormat_R16Float = 0x00000007,
  WGPUTextureFormat_RG8Unorm = 0x00000008,
  WGPUTextureFormat_RG8Snorm = 0x00000009,
  WGPUTextureFormat_RG8Uint = 0x0000000A,
  WGPUTextureFormat_RG8Sint = 0x0000000B,
  WGPUTextureFormat_R32Float = 0x0000000C,
  WGPUTextureFormat_R32Uint = 0x0000000D,
  WGPUTextureFormat_R32Sint = 0x0000000E,
  WGPUTextureFormat_RG16Uint = 0x0000000F,
  WGPUTextureFormat_RG16Sint = 0x00000010,
  WGPUTextureFormat_RG16Float = 0x00000011,
  WGPUTextureFormat_RGBA8Unorm = 0x00000012,
  WGPUTextureFormat_RGBA8UnormSrgb = 0x00000013,
  WGPUTextureFormat_RGBA8Snorm = 0x00000014,
  WGPUTextureFormat_RGBA8Uint = 0x00000015,
  WGPUTextureFormat_RGBA8Sint = 0x00000016,
  WGPUTextureFormat_BGRA8Unorm = 0x00000017,
  WGPUTextureFormat_BGRA8UnormSrgb = 0x00000018,
  WGPUTextureFormat_RGB10A2Uint = 0x00000019,
  WGPUTextureFormat_RGB10A2Unorm = 0x0000001A,
  WGPUTextureFormat_RG11B10Ufloat = 0x0000001B,
  WGPUTextureFormat_RGB9E5Ufloat = 0x0000001C,
  WGPUTextureFormat_RG32Float = 0x0000001D,
  WGPUTextureFormat_RG32Uint = 0x0000001E,
  WGPUTextureFormat_RG32Sint = 0x0000001F,
  WGPUTextureFormat_RGBA16Uint = 0x00000020,
  WGPUTextureFormat_RGBA16Sint = 0x00000021,
  WGPUTextureFormat_RGBA16Float = 0x00000022,
  WGPUTextureFormat_RGBA32Float = 0x00000023,
  WGPUTextureFormat_RGBA32Uint = 0x00000024,
  WGPUTextureFormat_RGBA32Sint = 0x00000025,
  WGPUTextureFormat_Stencil8 = 0x00000026,
  WGPUTextureFormat_Depth16Unorm = 0x00000027,
  WGPUTextureFormat_Depth24Plus = 0x00000028,
  WGPUTextureFormat_Depth24PlusStencil8 = 0x00000029,
  WGPUTextureFormat_Depth32Float = 0x0000002A,
  WGPUTextureFormat_Depth32FloatStencil8 = 0x0000002B,
  WGPUTextureFormat_BC1RGBAUnorm = 0x0000002C,
  WGPUTextureFormat_BC1RGBAUnormSrgb = 0x0000002D,
  WGPUTextureFormat_BC2RGBAUnorm = 0x0000002E,
  WGPUTextureFormat_BC2RGBAUnormSrgb = 0x0000002F,
  WGPUTextureFormat_BC3RGBAUnorm = 0x00000030,
  WGPUTextureFormat_BC3RGBAUnormSrgb = 0x00000031,
  WGPUTextureFormat_BC4RUnorm = 0x00000032,
  WGPUTextureFormat_BC4RSnorm = 0x00000033,
  WGPUTextureFormat_BC5RGUnorm = 0x00000034,
  WGPUTextureFormat_BC5RGSnorm = 0x00000035,
  WGPUTextureFormat_BC6HRGBUfloat = 0x00000036,
  WGPUTextureFormat_BC6HRGBFloat = 0x00000037,
  WGPUTextureFormat_BC7RGBAUnorm = 0x00000038,
  WGPUTextureFormat_BC7RGBAUnormSrgb = 0x00000039,
  WGPUTextureFormat_ETC2RGB8Unorm = 0x0000003A,
  WGPUTextureFormat_ETC2RGB8UnormSrgb = 0x0000003B,
  WGPUTextureFormat_ETC2RGB8A1Unorm = 0x0000003C,
  WGPUTextureFormat_ETC2RGB8A1UnormSrgb = 0x0000003D,
  WGPUTextureFormat_ETC2RGBA8Unorm = 0x0000003E,
  WGPUTextureFormat_ETC2RGBA8UnormSrgb = 0x0000003F,
  WGPUTextureFormat_EACR11Unorm = 0x00000040,
  WGPUTextureFormat_EACR11Snorm = 0x00000041,
  WGPUTextureFormat_EACRG11Unorm = 0x00000042,
  WGPUTextureFormat_EACRG11Snorm = 0x00000043,
  WGPUTextureFormat_ASTC4x4Unorm = 0x00000044,
  WGPUTextureFormat_ASTC4x4UnormSrgb = 0x00000045,
  WGPUTextureFormat_ASTC5x4Unorm = 0x00000046,
  WGPUTextureFormat_ASTC5x4UnormSrgb = 0x00000047,
  WGPUTextureFormat_ASTC5x5Unorm = 0x00000048,
  WGPUTextureFormat_ASTC5x5UnormSrgb = 0x00000049,
  WGPUTextureFormat_ASTC6x5Unorm = 0x0000004A,
  WGPUTextureFormat_ASTC6x5UnormSrgb = 0x0000004B,
  WGPUTextureFormat_ASTC6x6Unorm = 0x0000004C,
  WGPUTextureFormat_ASTC6x6UnormSrgb = 0x0000004D,
  WGPUTextureFormat_ASTC8x5Unorm = 0x0000004E,
  WGPUTextureFormat_ASTC8x5UnormSrgb = 0x0000004F,
  WGPUTextureFormat_ASTC8x6Unorm = 0x00000050,
  WGPUTextureFormat_ASTC8x6UnormSrgb = 0x00000051,
  WGPUTextureFormat_ASTC8x8Unorm = 0x00000052,
  WGPUTextureFormat_ASTC8x8UnormSrgb = 0x00000053,
  WGPUTextureFormat_ASTC10x5Unorm = 0x00000054,
  WGPUTextureFormat_ASTC10x5UnormSrgb = 0x00000055,
  WGPUTextureFormat_ASTC10x6Unorm = 0x00000056,
  WGPUTextureFormat_ASTC10x6UnormSrgb = 0x00000057,
  WGPUTextureFormat_ASTC10x8Unorm = 0x00000058,
  WGPUTextureFormat_ASTC10x8UnormSrgb = 0x00000059,
  WGPUTextureFormat_ASTC10x10Unorm = 0x0000005A,
  WGPUTextureFormat_ASTC10x10UnormSrgb = 0x0000005B,
  WGPUTextureFormat_ASTC12x10Unorm = 0x0000005C,
  WGPUTextureFormat_ASTC12x10UnormSrgb = 0x0000005D,
  WGPUTextureFormat_ASTC12x12Unorm = 0x0000005E,
  WGPUTextureFormat_ASTC12x12UnormSrgb = 0x0000005F,
  WGPUTextureFormat_R16Unorm = 0x00050000,
  WGPUTextureFormat_RG16Unorm = 0x00050001,
  WGPUTextureFormat_RGBA16Unorm = 0x00050002,
  WGPUTextureFormat_R16Snorm = 0x00050003,
  WGPUTextureFormat_RG16Snorm = 0x00050004,
  WGPUTextureFormat_RGBA16Snorm = 0x00050005,
  WGPUTextureFormat_R8BG8Biplanar420Unorm = 0x00050006,
  WGPUTextureFormat_R10X6BG10X6Biplanar420Unorm = 0x00050007,
  WGPUTextureFormat_R8BG8A8Triplanar420Unorm = 0x00050008,
  WGPUTextureFormat_R8BG8Biplanar422Unorm = 0x00050009,
  WGPUTextureFormat_R8BG8Biplanar444Unorm = 0x0005000A,
  WGPUTextureFormat_R10X6BG10X6Biplanar422Unorm = 0x0005000B,
  WGPUTextureFormat_R10X6BG10X6Biplanar444Unorm = 0x0005000C,
  WGPUTextureFormat_External = 0x0005000D
};
typedef uint32_t WGPUTextureSampleType;
enum {
  WGPUTextureSampleType_BindingNotUsed = 0x00000000,
  WGPUTextureSampleType_Undefined = 0x00000001,
  WGPUTextureSampleType_Float = 0x00000002,
  WGPUTextureSampleType_UnfilterableFloat = 0x00000003,
  WGPUTextureSampleType_Depth = 0x00000004,
  WGPUTextureSampleType_Sint = 0x00000005,
  WGPUTextureSampleType_Uint = 0x00000006
};
typedef uint32_t WGPUTextureViewDimension;
enum {
  WGPUTextureViewDimension_Undefined = 0x00000000,
  WGPUTextureViewDimension_1D = 0x00000001,
  WGPUTextureViewDimension_2D = 0x00000002,
  WGPUTextureViewDimension_2DArray = 0x00000003,
  WGPUTextureViewDimension_Cube = 0x00000004,
  WGPUTextureViewDimension_CubeArray = 0x00000005,
  WGPUTextureViewDimension_3D = 0x00000006
};
typedef uint32_t WGPUVertexFormat;
enum {
  WGPUVertexFormat_Uint8 = 0x00000001,
  WGPUVertexFormat_Uint8x2 = 0x00000002,
  WGPUVertexFormat_Uint8x4 = 0x00000003,
  WGPUVertexFormat_Sint8 = 0x00000004,
  WGPUVertexFormat_Sint8x2 = 0x00000005,
  WGPUVertexFormat_Sint8x4 = 0x00000006,
  WGPUVertexFormat_Unorm8 = 0x00000007,
  WGPUVertexFormat_Unorm8x2 = 0x00000008,
  WGPUVertexFormat_Unorm8x4 = 0x00000009,
  WGPUVertexFormat_Snorm8 = 0x0000000A,
  WGPUVertexFormat_Snorm8x2 = 0x0000000B,
  WGPUVertexFormat_Snorm8x4 = 0x0000000C,
  WGPUVertexFormat_Uint16 = 0x0000000D,
  WGPUVertexFormat_Uint16x2 = 0x0000000E,
  WGPUVertexFormat_Uint16x4 = 0x0000000F,
  WGPUVertexFormat_Sint16 = 0x00000010,
  WGPUVertexFormat_Sint16x2 = 0x00000011,
  WGPUVertexFormat_Sint16x4 = 0x00000012,
  WGPUVertexFormat_Unorm16 = 0x00000013,
  WGPUVertexFormat_Unorm16x2 = 0x00000014,
  WGPUVertexFormat_Unorm16x4 = 0x00000015,
  WGPUVertexFormat_Snorm16 = 0x00000016,
  WGPUVertexFormat_Snorm16x2 = 0x00000017,
  WGPUVertexFormat_Snorm16x4 = 0x00000018,
  WGPUVertexFormat_Float16 = 0x00000019,
  WGPUVertexFormat_Float16x2 = 0x0000001A,
  WGPUVertexFormat_Float16x4 = 0x0000001B,
  WGPUVertexFormat_Float32 = 0x0000001C,
  WGPUVertexFormat_Float32x2 = 0x0000001D,
  WGPUVertexFormat_Float32x3 = 0x0000001E,
  WGPUVertexFormat_Float32x4 = 0x0000001F,
  WGPUVertexFormat_Uint32 = 0x00000020,
  WGPUVertexFormat_Uint32x2 = 0x00000021,
  WGPUVertexFormat_Uint32x3 = 0x00000022,
  WGPUVertexFormat_Uint32x4 = 0x00000023,
  WGPUVertexFormat_Sint32 = 0x00000024,
  WGPUVertexFormat_Sint32x2 = 0x00000025,
  WGPUVertexFormat_Sint32x3 = 0x00000026,
  WGPUVertexFormat_Sint32x4 = 0x00000027,
  WGPUVertexFormat_Unorm10_10_10_2 = 0x00000028,
  WGPUVertexFormat_Unorm8x4BGRA = 0x00000029
};
typedef uint32_t WGPUVertexStepMode;
enum {
  WGPUVertexStepMode_Undefined = 0x00000000,
  WGPUVertexStepMode_Vertex = 0x00000001,
  WGPUVertexStepMode_Instance = 0x00000002
};
typedef uint32_t WGPUWaitStatus;
enum {
  WGPUWaitStatus_Success = 0x00000001,
  WGPUWaitStatus_TimedOut = 0x00000002,
  WGPUWaitStatus_Error = 0x00000003
};

typedef WGPUFlags WGPUBufferUsage;
#define WGPUBufferUsage_None 0x0ull
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
typedef WGPUFlags WGPUColorWriteMask;
#define WGPUColorWriteMask_None 0x0ull
#define WGPUColorWriteMask_Red 0x1ull
#define WGPUColorWriteMask_Green 0x2ull
#define WGPUColorWriteMask_Blue 0x4ull
#define WGPUColorWriteMask_Alpha 0x8ull
#define WGPUColorWriteMask_All 0xfull
typedef WGPUFlags WGPUHeapProperty;
#define WGPUHeapProperty_None 0x0ull
#define WGPUHeapProperty_DeviceLocal 0x1ull
#define WGPUHeapProperty_HostVisible 0x2ull
#define WGPUHeapProperty_HostCoherent 0x4ull
#define WGPUHeapProperty_HostUncached 0x8ull
#define WGPUHeapProperty_HostCached 0x10ull
typedef WGPUFlags WGPUMapMode;
#define WGPUMapMode_None 0x0ull
#define WGPUMapMode_Read 0x1ull
#define WGPUMapMode_Write 0x2ull
typedef WGPUFlags WGPUShaderStage;
#define WGPUShaderStage_None 0x0ull
#define WGPUShaderStage_Vertex 0x1ull
#define WGPUShaderStage_Fragment 0x2ull
#define WGPUShaderStage_Compute 0x4ull
typedef WGPUFlags WGPUTextureUsage;
#define WGPUTextureUsage_None 0x0ull
#define WGPUTextureUsage_CopySrc 0x1ull
#define WGPUTextureUsage_CopyDst 0x2ull
#define WGPUTextureUsage_TextureBinding 0x4ull
#define WGPUTextureUsage_StorageBinding 0x8ull
#define WGPUTextureUsage_RenderAttachment 0x10ull
#define WGPUTextureUsage_TransientAttachment 0x20ull
#define WGPUTextureUsage_StorageAttachment 0x40ull

typedef struct WGPUAHardwareBufferProperties WGPUAHardwareBufferProperties;
typedef struct WGPUAdapterInfo WGPUAdapterInfo;
typedef struct WGPUAdapterPropertiesD3D WGPUAdapterPropertiesD3D;
typedef struct WGPUAdapterPropertiesMemoryHeaps WGPUAdapterPropertiesMemoryHeaps;
typedef struct WGPUAdapterPropertiesSubgroupMatrixConfigs WGPUAdapterPropertiesSubgroupMatrixConfigs;
typedef struct WGPUAdapterPropertiesVk WGPUAdapterPropertiesVk;
typedef struct WGPUBindGroupDescriptor WGPUBindGroupDescriptor;
typedef struct WGPUBindGroupEntry WGPUBindGroupEntry;
typedef struct WGPUBindGroupLayoutDescriptor WGPUBindGroupLayoutDescriptor;
typedef struct WGPUBindGroupLayoutEntry WGPUBindGroupLayoutEntry;
typedef struct WGPUBlendComponent WGPUBlendComponent;
typedef struct WGPUBlendState WGPUBlendState;
typedef struct WGPUBufferBindingLayout WGPUBufferBindingLayout;
typedef struct WGPUBufferDescriptor WGPUBufferDescriptor;
typedef struct WGPUBufferHostMappedPointer WGPUBufferHostMappedPointer;
typedef struct WGPUBufferMapCallbackInfo WGPUBufferMapCallbackInfo;
typedef struct WGPUColor WGPUColor;
typedef struct WGPUColorTargetState WGPUColorTargetState;
typedef struct WGPUColorTargetStateExpandResolveTextureDawn WGPUColorTargetStateExpandResolveTextureDawn;
typedef struct WGPUCommandBufferDescriptor WGPUCommandBufferDescriptor;
typedef struct WGPUCommandEncoderDescriptor WGPUCommandEncoderDescriptor;
typedef struct WGPUCompatibilityModeLimits WGPUCompatibilityModeLimits;
typedef struct WGPUCompilationInfo WGPUCompilationInfo;
typedef struct WGPUCompilationInfoCallbackInfo WGPUCompilationInfoCallbackInfo;
typedef struct WGPUCompilationMessage WGPUCompilationMessage;
typedef struct WGPUComputePassDescriptor WGPUComputePassDescriptor;
typedef struct WGPUComputePipelineDescriptor WGPUComputePipelineDescriptor;
typedef struct WGPUComputeState WGPUComputeState;
typedef struct WGPUConstantEntry WGPUConstantEntry;
typedef struct WGPUCopyTextureForBrowserOptions WGPUCopyTextureForBrowserOptions;
typedef struct WGPUCreateComputePipelineAsyncCallbackInfo WGPUCreateComputePipelineAsyncCallbackInfo;
typedef struct WGPUCreateRenderPipelineAsyncCallbackInfo WGPUCreateRenderPipelineAsyncCallbackInfo;
typedef struct WGPUDawnWGSLBlocklist WGPUDawnWGSLBlocklist;
typedef struct WGPUDawnAdapterPropertiesPowerPreference WGPUDawnAdapterPropertiesPowerPreference;
typedef struct WGPUDawnBufferDescriptorErrorInfoFromWireClient WGPUDawnBufferDescriptorErrorInfoFromWireClient;
typedef struct WGPUDawnCacheDeviceDescriptor WGPUDawnCacheDeviceDescriptor;
typedef struct WGPUDawnCompilationMessageUtf16 WGPUDawnCompilationMessageUtf16;
typedef struct WGPUDawnDeviceAllocatorControl WGPUDawnDeviceAllocatorControl;
typedef struct WGPUDawnDrmFormatCapabilities WGPUDawnDrmFormatCapabilities;
typedef struct WGPUDawnDrmFormatProperties WGPUDawnDrmFormatProperties;
typedef struct WGPUDawnEncoderInternalUsageDescriptor WGPUDawnEncoderInternalUsageDescriptor;
typedef struct WGPUDawnFakeBufferOOMForTesting WGPUDawnFakeBufferOOMForTesting;
typedef struct WGPUDawnFakeDeviceInitializeErrorForTesting WGPUDawnFakeDeviceInitializeErrorForTesting;
typedef struct WGPUDawnFormatCapabilities WGPUDawnFormatCapabilities;
typedef struct WGPUDawnHostMappedPointerLimits WGPUDawnHostMappedPointerLimits;
typedef struct WGPUDawnInjectedInvalidSType WGPUDawnInjectedInvalidSType;
typedef struct WGPUDawnRenderPassColorAttachmentRenderToSingleSampled WGPUDawnRenderPassColorAttachmentRenderToSingleSampled;
typedef struct WGPUDawnShaderModuleSPIRVOptionsDescriptor WGPUDawnShaderModuleSPIRVOptionsDescriptor;
typedef struct WGPUDawnTexelCopyBufferRowAlignmentLimits WGPUDawnTexelCopyBufferRowAlignmentLimits;
typedef struct WGPUDawnTextureInternalUsageDescriptor WGPUDawnTextureInternalUsageDescriptor;
typedef struct WGPUDawnTogglesDescriptor WGPUDawnTogglesDescriptor;
typedef struct WGPUDawnWireWGSLControl WGPUDawnWireWGSLControl;
typedef struct WGPUDepthStencilState WGPUDepthStencilState;
typedef struct WGPUDeviceDescriptor WGPUDeviceDescriptor;
typedef struct WGPUDeviceLostCallbackInfo WGPUDeviceLostCallbackInfo;
typedef struct WGPUExtent2D WGPUExtent2D;
typedef struct WGPUExtent3D WGPUExtent3D;
typedef struct WGPUExternalTextureBindingEntry WGPUExternalTextureBindingEntry;
typedef struct WGPUExternalTextureBindingLayout WGPUExternalTextureBindingLayout;
typedef struct WGPUExternalTextureDescriptor WGPUExternalTextureDescriptor;
typedef struct WGPUFragmentState WGPUFragmentState;
typedef struct WGPUFuture WGPUFuture;
typedef struct WGPUFutureWaitInfo WGPUFutureWaitInfo;
typedef struct WGPUImageCopyExternalTexture WGPUImageCopyExternalTexture;
typedef struct WGPUInstanceCapabilities WGPUInstanceCapabilities;
typedef struct WGPUInstanceDescriptor WGPUInstanceDescriptor;
typedef struct WGPULimits WGPULimits;
typedef struct WGPULoggingCallbackInfo WGPULoggingCallbackInfo;
typedef struct WGPUMemoryHeapInfo WGPUMemoryHeapInfo;
typedef struct WGPUMultisampleState WGPUMultisampleState;
typedef struct WGPUOrigin2D WGPUOrigin2D;
typedef struct WGPUOrigin3D WGPUOrigin3D;
typedef struct WGPUPassTimestampWrites WGPUPassTimestampWrites;
typedef struct WGPUPipelineLayoutDescriptor WGPUPipelineLayoutDescriptor;
typedef struct WGPUPipelineLayoutPixelLocalStorage WGPUPipelineLayoutPixelLocalStorage;
typedef struct WGPUPipelineLayoutStorageAttachment WGPUPipelineLayoutStorageAttachment;
typedef struct WGPUPopErrorScopeCallbackInfo WGPUPopErrorScopeCallbackInfo;
typedef struct WGPUPrimitiveState WGPUPrimitiveState;
typedef struct WGPUQuerySetDescriptor WGPUQuerySetDescriptor;
typedef struct WGPUQueueDescriptor WGPUQueueDescriptor;
typedef struct WGPUQueueWorkDoneCallbackInfo WGPUQueueWorkDoneCallbackInfo;
typedef struct WGPURenderBundleDescriptor WGPURenderBundleDescriptor;
typedef struct WGPURenderBundleEncoderDescriptor WGPURenderBundleEncoderDescriptor;
typedef struct WGPURenderPassColorAttachment WGPURenderPassColorAttachment;
typedef struct WGPURenderPassDepthStencilAttachment WGPURenderPassDepthStencilAttachment;
typedef struct WGPURenderPassDescriptor WGPURenderPassDescriptor;
typedef struct WGPURenderPassDescriptorExpandResolveRect WGPURenderPassDescriptorExpandResolveRect;
typedef struct WGPURenderPassDescriptorResolveRect WGPURenderPassDescriptorResolveRect;
typedef struct WGPURenderPassMaxDrawCount WGPURenderPassMaxDrawCount;
typedef struct WGPURenderPassPixelLocalStorage WGPURenderPassPixelLocalStorage;
typedef struct WGPURenderPassStorageAttachment WGPURenderPassStorageAttachment;
typedef struct WGPURenderPipelineDescriptor WGPURenderPipelineDescriptor;
typedef struct WGPURequestAdapterWebGPUBackendOptions WGPURequestAdapterWebGPUBackendOptions;
typedef struct WGPURequestAdapterCallbackInfo WGPURequestAdapterCallbackInfo;
typedef struct WGPURequestAdapterOptions WGPURequestAdapterOptions;
typedef struct WGPURequestDeviceCallbackInfo WGPURequestDeviceCallbackInfo;
typedef struct WGPUSamplerBindingLayout WGPUSamplerBindingLayout;
typedef struct WGPUSamplerDescriptor WGPUSamplerDescriptor;
typedef struct WGPUShaderModuleCompilationOptions WGPUShaderModuleCompilationOptions;
typedef struct WGPUShaderModuleDescriptor WGPUShaderModuleDescriptor;
typedef struct WGPUShaderSourceSPIRV WGPUShaderSourceSPIRV;
typedef struct WGPUShaderSourceWGSL WGPUShaderSourceWGSL;
typedef struct WGPUSharedBufferMemoryBeginAccessDescriptor WGPUSharedBufferMemoryBeginAccessDescriptor;
typedef struct WGPUSharedBufferMemoryDescriptor WGPUSharedBufferMemoryDescriptor;
typedef struct WGPUSharedBufferMemoryEndAccessState WGPUSharedBufferMemoryEndAccessState;
typedef struct WGPUSharedBufferMemoryProperties WGPUSharedBufferMemoryProperties;
typedef struct WGPUSharedFenceDXGISharedHandleDescriptor WGPUSharedFenceDXGISharedHandleDescriptor;
typedef struct WGPUSharedFenceDXGISharedHandleExportInfo WGPUSharedFenceDXGISharedHandleExportInfo;
typedef struct WGPUSharedFenceEGLSyncDescriptor WGPUSharedFenceEGLSyncDescriptor;
typedef struct WGPUSharedFenceEGLSyncExportInfo WGPUSharedFenceEGLSyncExportInfo;
typedef struct WGPUSharedFenceMTLSharedEventDescriptor WGPUSharedFenceMTLSharedEventDescriptor;
typedef struct WGPUSharedFenceMTLSharedEventExportInfo WGPUSharedFenceMTLSharedEventExportInfo;
typedef struct WGPUSharedFenceDescriptor WGPUSharedFenceDescriptor;
typedef struct WGPUSharedFenceExportInfo WGPUSharedFenceExportInfo;
typedef struct WGPUSharedFenceSyncFDDescriptor WGPUSharedFenceSyncFDDescriptor;
typedef struct WGPUSharedFenceSyncFDExportInfo WGPUSharedFenceSyncFDExportInfo;
typedef struct WGPUSharedFenceVkSemaphoreOpaqueFDDescriptor WGPUSharedFenceVkSemaphoreOpaqueFDDescriptor;
typedef struct WGPUSharedFenceVkSemaphoreOpaqueFDExportInfo WGPUSharedFenceVkSemaphoreOpaqueFDExportInfo;
typedef struct WGPUSharedFenceVkSemaphoreZirconHandleDescriptor WGPUSharedFenceVkSemaphoreZirconHandleDescriptor;
typedef struct WGPUSharedFenceVkSemaphoreZirconHandleExportInfo WGPUSharedFenceVkSemaphoreZirconHandleExportInfo;
typedef struct WGPUSharedTextureMemoryD3DSwapchainBeginState WGPUSharedTextureMemoryD3DSwapchainBeginState;
typedef struct WGPUSharedTextureMemoryDXGISharedHandleDescriptor WGPUSharedTextureMemoryDXGISharedHandleDescriptor;
typedef struct WGPUSharedTextureMemoryEGLImageDescriptor WGPUSharedTextureMemoryEGLImageDescriptor;
typedef struct WGPUSharedTextureMemoryIOSurfaceDescriptor WGPUSharedTextureMemoryIOSurfaceDescriptor;
typedef struct WGPUSharedTextureMemoryAHardwareBufferDescriptor WGPUSharedTextureMemoryAHardwareBufferDescriptor;
typedef struct WGPUSharedTextureMemoryAHardwareBufferProperties WGPUSharedTextureMemoryAHardwareBufferProperties;
typedef struct WGPUSharedTextureMemoryBeginAccessDescriptor WGPUSharedTextureMemoryBeginAccessDescriptor;
typedef struct WGPUSharedTextureMemoryDescriptor WGPUSharedTextureMemoryDescriptor;
typedef struct WGPUSharedTextureMemoryDmaBufDescriptor WGPUSharedTextureMemoryDmaBufDescriptor;
typedef struct WGPUSharedTextureMemoryDmaBufPlane WGPUSharedTextureMemoryDmaBufPlane;
typedef struct WGPUSharedTextureMemoryEndAccessState WGPUSharedTextureMemoryEndAccessState;
typedef struct WGPUSharedTextureMemoryOpaqueFDDescriptor WGPUSharedTextureMemoryOpaqueFDDescriptor;
typedef struct WGPUSharedTextureMemoryProperties WGPUSharedTextureMemoryProperties;
typedef struct WGPUSharedTextureMemoryVkDedicatedAllocationDescriptor WGPUSharedTextureMemoryVkDedicatedAllocationDescriptor;
typedef struct WGPUSharedTextureMemoryVkImageLayoutBeginState WGPUSharedTextureMemoryVkImageLayoutBeginState;
typedef struct WGPUSharedTextureMemoryVkImageLayoutEndState WGPUSharedTextureMemoryVkImageLayoutEndState;
typedef struct WGPUSharedTextureMemoryZirconHandleDescriptor WGPUSharedTextureMemoryZirconHandleDescriptor;
typedef struct WGPUStaticSamplerBindingLayout WGPUStaticSamplerBindingLayout;
typedef struct WGPUStencilFaceState WGPUStencilFaceState;
typedef struct WGPUStorageTextureBindingLayout WGPUStorageTextureBindingLayout;
typedef struct WGPUStringView WGPUStringView;
typedef struct WGPUSubgroupMatrixConfig WGPUSubgroupMatrixConfig;
typedef struct WGPUSupportedWGSLLanguageFeatures WGPUSupportedWGSLLanguageFeatures;
typedef struct WGPUSupportedFeatures WGPUSupportedFeatures;
typedef struct WGPUSurfaceCapabilities WGPUSurfaceCapabilities;
typedef struct WGPUSurfaceConfiguration WGPUSurfaceConfiguration;
typedef struct WGPUSurfaceDescriptor WGPUSurfaceDescriptor;
typedef struct WGPUSurfaceDescriptorFromWindowsUWPSwapChainPanel WGPUSurfaceDescriptorFromWindowsUWPSwapChainPanel;
typedef struct WGPUSurfaceDescriptorFromWindowsWinUISwapChainPanel WGPUSurfaceDescriptorFromWindowsWinUISwapChainPanel;
typedef struct WGPUSurfaceDescriptorFromWindowsCoreWindow WGPUSurfaceDescriptorFromWindowsCoreWindow;
typedef struct WGPUSurfaceSourceXCBWindow WGPUSurfaceSourceXCBWindow;
typedef struct WGPUSurfaceSourceAndroidNativeWindow WGPUSurfaceSourceAndroidNativeWindow;
typedef struct WGPUSurfaceSourceMetalLayer WGPUSurfaceSourceMetalLayer;
typedef struct WGPUSurfaceSourceWaylandSurface WGPUSurfaceSourceWaylandSurface;
typedef struct WGPUSurfaceSourceWindowsHWND WGPUSurfaceSourceWindowsHWND;
typedef struct WGPUSurfaceSourceXlibWindow WGPUSurfaceSourceXlibWindow;
typedef struct WGPUSurfaceTexture WGPUSurfaceTexture;
typedef struct WGPUTexelCopyBufferInfo WGPUTexelCopyBufferInfo;
typedef struct WGPUTexelCopyBufferLayout WGPUTexelCopyBufferLayout;
typedef struct WGPUTexelCopyTextureInfo WGPUTexelCopyTextureInfo;
typedef struct WGPUTextureBindingLayout WGPUTextureBindingLayout;
typedef struct WGPUTextureBindingViewDimensionDescriptor WGPUTextureBindingViewDimensionDescriptor;
typedef struct WGPUTextureDescriptor WGPUTextureDescriptor;
typedef struct WGPUTextureViewDescriptor WGPUTextureViewDescriptor;
typedef struct WGPUUncapturedErrorCallbackInfo WGPUUncapturedErrorCallbackInfo;
typedef struct WGPUVertexAttribute WGPUVertexAttribute;
typedef struct WGPUVertexBufferLayout WGPUVertexBufferLayout;
typedef struct WGPUVertexState WGPUVertexState;
typedef struct WGPUYCbCrVkDescriptor WGPUYCbCrVkDescriptor;
typedef WGPURenderPassMaxDrawCount WGPURenderPassDescriptorMaxDrawCount;
typedef WGPUShaderSourceSPIRV WGPUShaderModuleSPIRVDescriptor;
typedef WGPUShaderSourceWGSL WGPUShaderModuleWGSLDescriptor;
typedef WGPUSurfaceSourceAndroidNativeWindow WGPUSurfaceDescriptorFromAndroidNativeWindow;
typedef WGPUSurfaceSourceMetalLayer WGPUSurfaceDescriptorFromMetalLayer;
typedef WGPUSurfaceSourceWaylandSurface WGPUSurfaceDescriptorFromWaylandSurface;
typedef WGPUSurfaceSourceWindowsHWND WGPUSurfaceDescriptorFromWindowsHWND;
typedef WGPUSurfaceSourceXCBWindow WGPUSurfaceDescriptorFromXcbWindow;
typedef WGPUSurfaceSourceXlibWindow WGPUSurfaceDescriptorFromXlibWindow;

typedef void (*WGPUCallback)(void * userdata);
typedef size_t (*WGPUDawnLoadCacheDataFunction)(const void * key, size_t keySize, void * value, size_t valueSize, void * userdata);
typedef void (*WGPUDawnStoreCacheDataFunction)(const void * key, size_t keySize, const void * value, size_t valueSize, void * userdata);
typedef void (*WGPUProc)(void);
typedef void (*WGPUBufferMapCallback)(WGPUMapAsyncStatus status, WGPUStringView message, void *userdata1, void *userdata2);
typedef void (*WGPUCompilationInfoCallback)(WGPUCompilationInfoRequestStatus status, const WGPUCompilationInfo * compilationInfo, void *userdata1, void *userdata2);
typedef void (*WGPUCreateComputePipelineAsyncCallback)(WGPUCreatePipelineAsyncStatus status, WGPUComputePipeline pipeline, WGPUStringView message, void *userdata1, void *userdata2);
typedef void (*WGPUCreateRenderPipelineAsyncCallback)(WGPUCreatePipelineAsyncStatus status, WGPURenderPipeline pipeline, WGPUStringView message, void *userdata1, void *userdata2);
typedef void (*WGPUDeviceLostCallback)(const WGPUDevice * device, WGPUDeviceLostReason reason, WGPUStringView message, void *userdata1, void *userdata2);
typedef void (*WGPULoggingCallback)(WGPULoggingType type, WGPUStringView message, void *userdata1, void *userdata2);
typedef void (*WGPUPopErrorScopeCallback)(WGPUPopErrorScopeStatus status, WGPUErrorType type, WGPUStringView message, void *userdata1, void *userdata2);
typedef void (*WGPUQueueWorkDoneCallback)(WGPUQueueWorkDoneStatus status, WGPUStringView message, void *userdata1, void *userdata2);
typedef void (*WGPURequestAdapterCallback)(WGPURequestAdapterStatus status, WGPUAdapter adapter, WGPUStringView message, void *userdata1, void *userdata2);
typedef void (*WGPURequestDeviceCallback)(WGPURequestDeviceStatus status, WGPUDevice device, WGPUStringView message, void *userdata1, void *userdata2);
typedef void (*WGPUUncapturedErrorCallback)(const WGPUDevice * device, WGPUErrorType type, WGPUStringView message, void *userdata1, void *userdata2);

struct WGPUYCbCrVkDescriptor {
  WGPUChainedStruct chain;
  uint32_t vkFormat;
  uint32_t vkYCbCrModel;
  uint32_t vkYCbCrRange;
  uint32_t vkComponentSwizzleRed;
  uint32_t vkComponentSwizzleGreen;
  uint32_t vkComponentSwizzleBlue;
  uint32_t vkComponentSwizzleAlpha;
  uint32_t vkXChromaOffset;
  uint32_t vkYChromaOffset;
  WGPUFilterMode vkChromaFilter;
  WGPUBool forceExplicitReconstruction;
  uint64_t externalFormat;
};
struct WGPUAHardwareBufferProperties {
  WGPUYCbCrVkDescriptor yCbCrInfo;
};
struct WGPUStringView {
  const char *data;
  size_t length;
};
struct WGPUAdapterInfo {
  WGPUChainedStruct *nextInChain;
  WGPUStringView vendor;
  WGPUStringView architecture;
  WGPUStringView device;
  WGPUStringView description;
  WGPUBackendType backendType;
  WGPUAdapterType adapterType;
  uint32_t vendorID;
  uint32_t deviceID;
  uint32_t subgroupMinSize;
  uint32_t subgroupMaxSize;
};
struct WGPUAdapterPropertiesD3D {
  WGPUChainedStruct chain;
  uint32_t shaderModel;
};
struct WGPUAdapterPropertiesMemoryHeaps {
  WGPUChainedStruct chain;
  size_t heapCount;
  const WGPUMemoryHeapInfo *heapInfo;
};
struct WGPUAdapterPropertiesSubgroupMatrixConfigs {
  WGPUChainedStruct chain;
  size_t configCount;
  const WGPUSubgroupMatrixConfig *configs;
};
struct WGPUAdapterPropertiesVk {
  WGPUChainedStruct chain;
  uint32_t driverVersion;
};
struct WGPUBindGroupDescriptor {
  WGPUChainedStruct *nextInChain;
  WGPUStringView label;
  WGPUBindGroupLayout layout;
  size_t entryCount;
  const WGPUBindGroupEntry *entries;
};
struct WGPUBindGroupEntry {
  WGPUChainedStruct *nextInChain;
  uint32_t binding;
  WGPUBuffer buffer;
  uint64_t offset;
  uint64_t size;
  WGPUSampler sampler;
  WGPUTextureView textureView;
};
struct WGPUBindGroupLayoutDescriptor {
  WGPUChainedStruct *nextInChain;
  WGPUStringView label;
  size_t entryCount;
  const WGPUBindGroupLayoutEntry *entries;
};
struct WGPUBufferBindingLayout {
  WGPUChainedStruct *nextInChain;
  WGPUBufferBindingType type;
  WGPUBool hasDynamicOffset;
  uint64_t minBindingSize;
};
struct WGPUSamplerBindingLayout {
  WGPUChainedStruct *nextInChain;
  WGPUSamplerBindingType type;
};
struct WGPUTextureBindingLayout {
  WGPUChainedStruct *nextInChain;
  WGPUTextureSampleType sampleType;
  WGPUTextureViewDimension viewDimension;
  WGPUBool multisampled;
};
struct WGPUStorageTextureBindingLayout {
  WGPUChainedStruct *nextInChain;
  WGPUStorageTextureAccess access;
  WGPUTextureFormat format;
  WGPUTextureViewDimension viewDimension;
};
struct WGPUBindGroupLayoutEntry {
  WGPUChainedStruct *nextInChain;
  uint32_t binding;
  WGPUShaderStage visibility;
  uint32_t bindingArraySize;
  WGPUBufferBindingLayout buffer;
  WGPUSamplerBindingLayout sampler;
  WGPUTextureBindingLayout texture;
  WGPUStorageTextureBindingLayout storageTexture;
};
struct WGPUBlendComponent {
  WGPUBlendOperation operation;
  WGPUBlendFactor srcFactor;
  WGPUBlendFactor dstFactor;
};
struct WGPUBlendState {
  WGPUBlendComponent color;
  WGPUBlendComponent alpha;
};
struct WGPUBufferDescriptor {
  WGPUChainedStruct *nextInChain;
  WGPUStringView label;
  WGPUBufferUsage usage;
  uint64_t size;
  WGPUBool mappedAtCreation;
};
struct WGPUBufferHostMappedPointer {
  WGPUChainedStruct chain;
  void *pointer;
  WGPUCallback disposeCallback;
  void *userdata;
};
struct WGPUBufferMapCallbackInfo {
  WGPUChainedStruct *nextInChain;
  WGPUCallbackMode mode;
  WGPUBufferMapCallback callback;
  void *userdata1;
  void *userdata2;
};
struct WGPUColor {
  double r;
  double g;
  double b;
  double a;
};
struct WGPUColorTargetState {
  WGPUChainedStruct *nextInChain;
  WGPUTextureFormat format;
  const WGPUBlendState *blend;
  WGPUColorWriteMask writeMask;
};
struct WGPUColorTargetStateExpandResolveTextureDawn {
  WGPUChainedStruct chain;
  WGPUBool enabled;
};
struct WGPUCommandBufferDescriptor {
  WGPUChainedStruct *nextInChain;
  WGPUStringView label;
};
struct WGPUCommandEncoderDescriptor {
  WGPUChainedStruct *nextInChain;
  WGPUStringView label;
};
struct WGPUCompatibilityModeLimits {
  WGPUChainedStruct chain;
  uint32_t maxStorageBuffersInVertexStage;
  uint32_t maxStorageTexturesInVertexStage;
  uint32_t maxStorageBuffersInFragmentStage;
  uint32_t maxStorageTexturesInFragmentStage;
};
struct WGPUCompilationInfo {
  WGPUChainedStruct *nextInChain;
  size_t messageCount;
  const WGPUCompilationMessage *messages;
};
struct WGPUCompilationInfoCallbackInfo {
  WGPUChainedStruct *nextInChain;
  WGPUCallbackMode mode;
  WGPUCompilationInfoCallback callback;
  void *userdata1;
  void *userdata2;
};
struct WGPUCompilationMessage {
  WGPUChainedStruct *nextInChain;
  WGPUStringView message;
  WGPUCompilationMessageType type;
  uint64_t lineNum;
  uint64_t linePos;
  uint64_t offset;
  uint64_t length;
};
struct WGPUComputePassDescriptor {
  WGPUChainedStruct *nextInChain;
  WGPUStringView label;
  const WGPUPassTimestampWrites *timestampWrites;
};
struct WGPUComputeState {
  WGPUChainedStruct *nextInChain;
  WGPUShaderModule module;
  WGPUStringView entryPoint;
  size_t constantCount;
  const WGPUConstantEntry *constants;
};
struct WGPUComputePipelineDescriptor {
  WGPUChainedStruct *nextInChain;
  WGPUStringView label;
  WGPUPipelineLayout layout;
  WGPUComputeState compute;
};
struct WGPUConstantEntry {
  WGPUChainedStruct *nextInChain;
  WGPUStringView key;
  double value;
};
struct WGPUCopyTextureForBrowserOptions {
  WGPUChainedStruct *nextInChain;
  WGPUBool flipY;
  WGPUBool needsColorSpaceConversion;
  WGPUAlphaMode srcAlphaMode;
  const float *srcTransferFunctionParameters;
  const float *conversionMatrix;
  const float *dstTransferFunctionParameters;
  WGPUAlphaMode dstAlphaMode;
  WGPUBool internalUsage;
};
struct WGPUCreateComputePipelineAsyncCallbackInfo {
  WGPUChainedStruct *nextInChain;
  WGPUCallbackMode mode;
  WGPUCreateComputePipelineAsyncCallback callback;
  void *userdata1;
  void *userdata2;
};
struct WGPUCreateRenderPipelineAsyncCallbackInfo {
  WGPUChainedStruct *nextInChain;
  WGPUCallbackMode mode;
  WGPUCreateRenderPipelineAsyncCallback callback;
  void *userdata1;
  void *userdata2;
};
struct WGPUDawnWGSLBlocklist {
  WGPUChainedStruct chain;
  size_t blocklistedFeatureCount;
  const char *const *blocklistedFeatures;
};
struct WGPUDawnAdapterPropertiesPowerPreference {
  WGPUChainedStruct chain;
  WGPUPowerPreference powerPreference;
};
struct WGPUDawnBufferDescriptorErrorInfoFromWireClient {
  WGPUChainedStruct chain;
  WGPUBool outOfMemory;
};
struct WGPUDawnCacheDeviceDescriptor {
  WGPUChainedStruct chain;
  WGPUStringView isolationKey;
  WGPUDawnLoadCacheDataFunction loadDataFunction;
  WGPUDawnStoreCacheDataFunction storeDataFunction;
  void *functionUserdata;
};
struct WGPUDawnCompilationMessageUtf16 {
  WGPUChainedStruct chain;
  uint64_t linePos;
  uint64_t offset;
  uint64_t length;
};
struct WGPUDawnDeviceAllocatorControl {
  WGPUChainedStruct chain;
  size_t allocatorHeapBlockSize;
};
struct WGPUDawnDrmFormatCapabilities {
  WGPUChainedStruct chain;
  size_t propertiesCount;
  const WGPUDawnDrmFormatProperties *properties;
};
struct WGPUDawnDrmFormatProperties {
  uint64_t modifier;
  uint32_t modifierPlaneCount;
};
struct WGPUDawnEncoderInternalUsageDescriptor {
  WGPUChainedStruct chain;
  WGPUBool useInternalUsages;
};
struct WGPUDawnFakeBufferOOMForTesting {
  WGPUChainedStruct chain;
  WGPUBool fakeOOMAtWireClientMap;
  WGPUBool fakeOOMAtNativeMap;
  WGPUBool fakeOOMAtDevice;
};
struct WGPUDawnFakeDeviceInitializeErrorForTesting {
  WGPUChainedStruct chain;
};
struct WGPUDawnFormatCapabilities {
  WGPUChainedStruct *nextInChain;
};
struct WGPUDawnHostMappedPointerLimits {
  WGPUChainedStruct chain;
  uint32_t hostMappedPointerAlignment;
};
struct WGPUDawnInjectedInvalidSType {
  WGPUChainedStruct chain;
  WGPUSType invalidSType;
};
struct WGPUDawnRenderPassColorAttachmentRenderToSingleSampled {
  WGPUChainedStruct chain;
  uint32_t implicitSampleCount;
};
struct WGPUDawnShaderModuleSPIRVOptionsDescriptor {
  WGPUChainedStruct chain;
  WGPUBool allowNonUniformDerivatives;
};
struct WGPUDawnTexelCopyBufferRowAlignmentLimits {
  WGPUChainedStruct chain;
  uint32_t minTexelCopyBufferRowAlignment;
};
struct WGPUDawnTextureInternalUsageDescriptor {
  WGPUChainedStruct chain;
  WGPUTextureUsage internalUsage;
};
struct WGPUDawnTogglesDescriptor {
  WGPUChainedStruct chain;
  size_t enabledToggleCount;
  const char *const *enabledToggles;
  size_t disabledToggleCount;
  const char *const *disabledToggles;
};
struct WGPUDawnWireWGSLControl {
  WGPUChainedStruct chain;
  WGPUBool enableExperimental;
  WGPUBool enableUnsafe;
  WGPUBool enableTesting;
};
struct WGPUStencilFaceState {
  WGPUCompareFunction compare;
  WGPUStencilOperation failOp;
  WGPUStencilOperation depthFailOp;
  WGPUStencilOperation passOp;
};
struct WGPUDepthStencilState {
  WGPUChainedStruct *nextInChain;
  WGPUTextureFormat format;
  WGPUOptionalBool depthWriteEnabled;
  WGPUCompareFunction depthCompare;
  WGPUStencilFaceState stencilFront;
  WGPUStencilFaceState stencilBack;
  uint32_t stencilReadMask;
  uint32_t stencilWriteMask;
  int32_t depthBias;
  float depthBiasSlopeScale;
  float depthBiasClamp;
};
struct WGPUQueueDescriptor {
  WGPUChainedStruct *nextInChain;
  WGPUStringView label;
};
struct WGPUDeviceLostCallbackInfo {
  WGPUChainedStruct *nextInChain;
  WGPUCallbackMode mode;
  WGPUDeviceLostCallback callback;
  void *userdata1;
  void *userdata2;
};
struct WGPUUncapturedErrorCallbackInfo {
  WGPUChainedStruct *nextInChain;
  WGPUUncapturedErrorCallback callback;
  void *userdata1;
  void *userdata2;
};
struct WGPUDeviceDescriptor {
  WGPUChainedStruct *nextInChain;
  WGPUStringView label;
  size_t requiredFeatureCount;
  const WGPUFeatureName *requiredFeatures;
  const WGPULimits *requiredLimits;
  WGPUQueueDescriptor defaultQueue;
  WGPUDeviceLostCallbackInfo deviceLostCallbackInfo;
  WGPUUncapturedErrorCallbackInfo uncapturedErrorCallbackInfo;
};
struct WGPUExtent2D {
  uint32_t width;
  uint32_t height;
};
struct WGPUExtent3D {
  uint32_t width;
  uint32_t height;
  uint32_t depthOrArrayLayers;
};
struct WGPUExternalTextureBindingEntry {
  WGPUChainedStruct chain;
  WGPUExternalTexture externalTexture;
};
struct WGPUExternalTextureBindingLayout {
  WGPUChainedStruct chain;
};
struct WGPUOrigin2D {
  uint32_t x;
  uint32_t y;
};
struct WGPUExternalTextureDescriptor {
  WGPUChainedStruct *nextInChain;
  WGPUStringView label;
  WGPUTextureView plane0;
  WGPUTextureView plane1;
  WGPUOrigin2D cropOrigin;
  WGPUExtent2D cropSize;
  WGPUExtent2D apparentSize;
  WGPUBool doYuvToRgbConversionOnly;
  const float *yuvToRgbConversionMatrix;
  const float *srcTransferFunctionParameters;
  const float *dstTransferFunctionParameters;
  const float *gamutConversionMatrix;
  WGPUBool mirrored;
  WGPUExternalTextureRotation rotation;
};
struct WGPUFragmentState {
  WGPUChainedStruct *nextInChain;
  WGPUShaderModule module;
  WGPUStringView entryPoint;
  size_t constantCount;
  const WGPUConstantEntry *constants;
  size_t targetCount;
  const WGPUColorTargetState *targets;
};
struct WGPUFuture {
  uint64_t id;
};
struct WGPUFutureWaitInfo {
  WGPUFuture future;
  WGPUBool completed;
};
struct WGPUOrigin3D {
  uint32_t x;
  uint32_t y;
  uint32_t z;
};
struct WGPUImageCopyExternalTexture {
  WGPUChainedStruct *nextInChain;
  WGPUExternalTexture externalTexture;
  WGPUOrigin3D origin;
  WGPUExtent2D naturalSize;
};
struct WGPUInstanceCapabilities {
  WGPUChainedStruct *nextInChain;
  WGPUBool timedWaitAnyEnable;
  size_t timedWaitAnyMaxCount;
};
struct WGPUInstanceDescriptor {
  WGPUChainedStruct *nextInChain;
  WGPUInstanceCapabilities capabilities;
};
struct WGPULimits {
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
};
struct WGPULoggingCallbackInfo {
  WGPUChainedStruct *nextInChain;
  WGPULoggingCallback callback;
  void *userdata1;
  void *userdata2;
};
struct WGPUMemoryHeapInfo {
  WGPUHeapProperty properties;
  uint64_t size;
};
struct WGPUMultisampleState {
  WGPUChainedStruct *nextInChain;
  uint32_t count;
  uint32_t mask;
  WGPUBool alphaToCoverageEnabled;
};
struct WGPUPassTimestampWrites {
  WGPUChainedStruct *nextInChain;
  WGPUQuerySet querySet;
  uint32_t beginningOfPassWriteIndex;
  uint32_t endOfPassWriteIndex;
};
struct WGPUPipelineLayoutDescriptor {
  WGPUChainedStruct *nextInChain;
  WGPUStringView label;
  size_t bindGroupLayoutCount;
  const WGPUBindGroupLayout *bindGroupLayouts;
  uint32_t immediateSize;
};
struct WGPUPipelineLayoutPixelLocalStorage {
  WGPUChainedStruct chain;
  uint64_t totalPixelLocalStorageSize;
  size_t storageAttachmentCount;
  const WGPUPipelineLayoutStorageAttachment *storageAttachments;
};
struct WGPUPipelineLayoutStorageAttachment {
  WGPUChainedStruct *nextInChain;
  uint64_t offset;
  WGPUTextureFormat format;
};
struct WGPUPopErrorScopeCallbackInfo {
  WGPUChainedStruct *nextInChain;
  WGPUCallbackMode mode;
  WGPUPopErrorScopeCallback callback;
  void *userdata1;
  void *userdata2;
};
struct WGPUPrimitiveState {
  WGPUChainedStruct *nextInChain;
  WGPUPrimitiveTopology topology;
  WGPUIndexFormat stripIndexFormat;
  WGPUFrontFace frontFace;
  WGPUCullMode cullMode;
  WGPUBool unclippedDepth;
};
struct WGPUQuerySetDescriptor {
  WGPUChainedStruct *nextInChain;
  WGPUStringView label;
  WGPUQueryType type;
  uint32_t count;
};
struct WGPUQueueWorkDoneCallbackInfo {
  WGPUChainedStruct *nextInChain;
  WGPUCallbackMode mode;
  WGPUQueueWorkDoneCallback callback;
  void *userdata1;
  void *userdata2;
};
struct WGPURenderBundleDescriptor {
  WGPUChainedStruct *nextInChain;
  WGPUStringView label;
};
struct WGPURenderBundleEncoderDescriptor {
  WGPUChainedStruct *nextInChain;
  WGPUStringView label;
  size_t colorFormatCount;
  const WGPUTextureFormat *colorFormats;
  WGPUTextureFormat depthStencilFormat;
  uint32_t sampleCount;
  WGPUBool depthReadOnly;
  WGPUBool stencilReadOnly;
};
struct WGPURenderPassColorAttachment {
  WGPUChainedStruct *nextInChain;
  WGPUTextureView view;
  uint32_t depthSlice;
  WGPUTextureView resolveTarget;
  WGPULoadOp loadOp;
  WGPUStoreOp storeOp;
  WGPUColor clearValue;
};
struct WGPURenderPassDepthStencilAttachment {
  WGPUChainedStruct *nextInChain;
  WGPUTextureView view;
  WGPULoadOp depthLoadOp;
  WGPUStoreOp depthStoreOp;
  float depthClearValue;
  WGPUBool depthReadOnly;
  WGPULoadOp stencilLoadOp;
  WGPUStoreOp stencilStoreOp;
  uint32_t stencilClearValue;
  WGPUBool stencilReadOnly;
};
struct WGPURenderPassDescriptor {
  WGPUChainedStruct *nextInChain;
  WGPUStringView label;
  size_t colorAttachmentCount;
  const WGPURenderPassColorAttachment *colorAttachments;
  const WGPURenderPassDepthStencilAttachment *depthStencilAttachment;
  WGPUQuerySet occlusionQuerySet;
  const WGPUPassTimestampWrites *timestampWrites;
};
struct WGPURenderPassDescriptorExpandResolveRect {
  WGPUChainedStruct chain;
  uint32_t x;
  uint32_t y;
  uint32_t width;
  uint32_t height;
};
struct WGPURenderPassDescriptorResolveRect {
  WGPUChainedStruct chain;
  uint32_t colorOffsetX;
  uint32_t colorOffsetY;
  uint32_t resolveOffsetX;
  uint32_t resolveOffsetY;
  uint32_t width;
  uint32_t height;
};
struct WGPURenderPassMaxDrawCount {
  WGPUChainedStruct chain;
  uint64_t maxDrawCount;
};
struct WGPURenderPassPixelLocalStorage {
  WGPUChainedStruct chain;
  uint64_t totalPixelLocalStorageSize;
  size_t storageAttachmentCount;
  const WGPURenderPassStorageAttachment *storageAttachments;
};
struct WGPURenderPassStorageAttachment {
  WGPUChainedStruct *nextInChain;
  uint64_t offset;
  WGPUTextureView storage;
  WGPULoadOp loadOp;
  WGPUStoreOp storeOp;
  WGPUColor clearValue;
};
struct WGPUVertexState {
  WGPUChainedStruct *nextInChain;
  WGPUShaderModule module;
  WGPUStringView entryPoint;
  size_t constantCount;
  const WGPUConstantEntry *constants;
  size_t bufferCount;
  const WGPUVertexBufferLayout *buffers;
};
struct WGPURenderPipelineDescriptor {
  WGPUChainedStruct *nextInChain;
  WGPUStringView label;
  WGPUPipelineLayout layout;
  WGPUVertexState vertex;
  WGPUPrimitiveState primitive;
  const WGPUDepthStencilState *depthStencil;
  WGPUMultisampleState multisample;
  const WGPUFragmentState *fragment;
};
struct WGPURequestAdapterWebGPUBackendOptions {
  WGPUChainedStruct chain;
};
struct WGPURequestAdapterCallbackInfo {
  WGPUChainedStruct *nextInChain;
  WGPUCallbackMode mode;
  WGPURequestAdapterCallback callback;
  void *userdata1;
  void *userdata2;
};
struct WGPURequestAdapterOptions {
  WGPUChainedStruct *nextInChain;
  WGPUFeatureLevel featureLevel;
  WGPUPowerPreference powerPreference;
  WGPUBool forceFallbackAdapter;
  WGPUBackendType backendType;
  WGPUSurface compatibleSurface;
};
struct WGPURequestDeviceCallbackInfo {
  WGPUChainedStruct *nextInChain;
  WGPUCallbackMode mode;
  WGPURequestDeviceCallback callback;
  void *userdata1;
  void *userdata2;
};
struct WGPUSamplerDescriptor {
  WGPUChainedStruct *nextInChain;
  WGPUStringView label;
  WGPUAddressMode addressModeU;
  WGPUAddressMode addressModeV;
  WGPUAddressMode addressModeW;
  WGPUFilterMode magFilter;
  WGPUFilterMode minFilter;
  WGPUMipmapFilterMode mipmapFilter;
  float lodMinClamp;
  float lodMaxClamp;
  WGPUCompareFunction compare;
  uint16_t maxAnisotropy;
};
struct WGPUShaderModuleCompilationOptions {
  WGPUChainedStruct chain;
  WGPUBool strictMath;
};
struct WGPUShaderModuleDescriptor {
  WGPUChainedStruct *nextInChain;
  WGPUStringView label;
};
struct WGPUShaderSourceSPIRV {
  WGPUChainedStruct chain;
  uint32_t codeSize;
  const uint32_t *code;
};
struct WGPUShaderSourceWGSL {
  WGPUChainedStruct chain;
  WGPUStringView code;
};
struct WGPUSharedBufferMemoryBeginAccessDescriptor {
  WGPUChainedStruct *nextInChain;
  WGPUBool initialized;
  size_t fenceCount;
  const WGPUSharedFence *fences;
  const uint64_t *signaledValues;
};
struct WGPUSharedBufferMemoryDescriptor {
  WGPUChainedStruct *nextInChain;
  WGPUStringView label;
};
struct WGPUSharedBufferMemoryEndAccessState {
  WGPUChainedStruct *nextInChain;
  WGPUBool initialized;
  size_t fenceCount;
  const WGPUSharedFence *fences;
  const uint64_t *signaledValues;
};
struct WGPUSharedBufferMemoryProperties {
  WGPUChainedStruct *nextInChain;
  WGPUBufferUsage usage;
  uint64_t size;
};
struct WGPUSharedFenceDXGISharedHandleDescriptor {
  WGPUChainedStruct chain;
  void *handle;
};
struct WGPUSharedFenceDXGISharedHandleExportInfo {
  WGPUChainedStruct chain;
  void *handle;
};
struct WGPUSharedFenceEGLSyncDescriptor {
  WGPUChainedStruct chain;
  void *sync;
};
struct WGPUSharedFenceEGLSyncExportInfo {
  WGPUChainedStruct chain;
  void *sync;
};
struct WGPUSharedFenceMTLSharedEventDescriptor {
  WGPUChainedStruct chain;
  void *sharedEvent;
};
struct WGPUSharedFenceMTLSharedEventExportInfo {
  WGPUChainedStruct chain;
  void *sharedEvent;
};
struct WGPUSharedFenceDescriptor {
  WGPUChainedStruct *nextInChain;
  WGPUStringView label;
};
struct WGPUSharedFenceExportInfo {
  WGPUChainedStruct *nextInChain;
  WGPUSharedFenceType type;
};
struct WGPUSharedFenceSyncFDDescriptor {
  WGPUChainedStruct chain;
  int handle;
};
struct WGPUSharedFenceSyncFDExportInfo {
  WGPUChainedStruct chain;
  int handle;
};
struct WGPUSharedFenceVkSemaphoreOpaqueFDDescriptor {
  WGPUChainedStruct chain;
  int handle;
};
struct WGPUSharedFenceVkSemaphoreOpaqueFDExportInfo {
  WGPUChainedStruct chain;
  int handle;
};
struct WGPUSharedFenceVkSemaphoreZirconHandleDescriptor {
  WGPUChainedStruct chain;
  uint32_t handle;
};
struct WGPUSharedFenceVkSemaphoreZirconHandleExportInfo {
  WGPUChainedStruct chain;
  uint32_t handle;
};
struct WGPUSharedTextureMemoryD3DSwapchainBeginState {
  WGPUChainedStruct chain;
  WGPUBool isSwapchain;
};
struct WGPUSharedTextureMemoryDXGISharedHandleDescriptor {
  WGPUChainedStruct chain;
  void *handle;
  WGPUBool useKeyedMutex;
};
struct WGPUSharedTextureMemoryEGLImageDescriptor {
  WGPUChainedStruct chain;
  void *image;
};
struct WGPUSharedTextureMemoryIOSurfaceDescriptor {
  WGPUChainedStruct chain;
  void *ioSurface;
  WGPUBool allowStorageBinding;
};
struct WGPUSharedTextureMemoryAHardwareBufferDescriptor {
  WGPUChainedStruct chain;
  void *handle;
  WGPUBool useExternalFormat;
};
struct WGPUSharedTextureMemoryAHardwareBufferProperties {
  WGPUChainedStruct chain;
  WGPUYCbCrVkDescriptor yCbCrInfo;
};
struct WGPUSharedTextureMemoryBeginAccessDescriptor {
  WGPUChainedStruct *nextInChain;
  WGPUBool concurrentRead;
  WGPUBool initialized;
  size_t fenceCount;
  const WGPUSharedFence *fences;
  const uint64_t *signaledValues;
};
struct WGPUSharedTextureMemoryDescriptor {
  WGPUChainedStruct *nextInChain;
  WGPUStringView label;
};
struct WGPUSharedTextureMemoryDmaBufDescriptor {
  WGPUChainedStruct chain;
  WGPUExtent3D size;
  uint32_t drmFormat;
  uint64_t drmModifier;
  size_t planeCount;
  const WGPUSharedTextureMemoryDmaBufPlane *planes;
};
struct WGPUSharedTextureMemoryDmaBufPlane {
  int fd;
  uint64_t offset;
  uint32_t stride;
};
struct WGPUSharedTextureMemoryEndAccessState {
  WGPUChainedStruct *nextInChain;
  WGPUBool initialized;
  size_t fenceCount;
  const WGPUSharedFence *fences;
  const uint64_t *signaledValues;
};
struct WGPUSharedTextureMemoryOpaqueFDDescriptor {
  WGPUChainedStruct chain;
  const void *vkImageCreateInfo;
  int memoryFD;
  uint32_t memoryTypeIndex;
  uint64_t allocationSize;
  WGPUBool dedicatedAllocation;
};
struct WGPUSharedTextureMemoryProperties {
  WGPUChainedStruct *nextInChain;
  WGPUTextureUsage usage;
  WGPUExtent3D size;
  WGPUTextureFormat format;
};
struct WGPUSharedTextureMemoryVkDedicatedAllocationDescriptor {
  WGPUChainedStruct chain;
  WGPUBool dedicatedAllocation;
};
struct WGPUSharedTextureMemoryVkImageLayoutBeginState {
  WGPUChainedStruct chain;
  int32_t oldLayout;
  int32_t newLayout;
};
struct WGPUSharedTextureMemoryVkImageLayoutEndState {
  WGPUChainedStruct chain;
  int32_t oldLayout;
  int32_t newLayout;
};
struct WGPUSharedTextureMemoryZirconHandleDescriptor {
  WGPUChainedStruct chain;
  uint32_t memoryFD;
  uint64_t allocationSize;
};
struct WGPUStaticSamplerBindingLayout {
  WGPUChainedStruct chain;
  WGPUSampler sampler;
  uint32_t sampledTextureBinding;
};
struct WGPUSubgroupMatrixConfig {
  WGPUSubgroupMatrixComponentType componentType;
  WGPUSubgroupMatrixComponentType resultComponentType;
  uint32_t M;
  uint32_t N;
  uint32_t K;
};
struct WGPUSupportedWGSLLanguageFeatures {
  size_t featureCount;
  const WGPUWGSLLanguageFeatureName *features;
};
struct WGPUSupportedFeatures {
  size_t featureCount;
  const WGPUFeatureName *features;
};
struct WGPUSurfaceCapabilities {
  WGPUChainedStruct *nextInChain;
  WGPUTextureUsage usages;
  size_t formatCount;
  const WGPUTextureFormat *formats;
  size_t presentModeCount;
  const WGPUPresentMode *presentModes;
  size_t alphaModeCount;
  const WGPUCompositeAlphaMode *alphaModes;
};
struct WGPUSurfaceConfiguration {
  WGPUChainedStruct *nextInChain;
  WGPUDevice device;
  WGPUTextureFormat format;
  WGPUTextureUsage usage;
  uint32_t width;
  uint32_t height;
  size_t viewFormatCount;
  const WGPUTextureFormat *viewFormats;
  WGPUCompositeAlphaMode alphaMode;
  WGPUPresentMode presentMode;
};
struct WGPUSurfaceDescriptor {
  WGPUChainedStruct *nextInChain;
  WGPUStringView label;
};
struct WGPUSurfaceDescriptorFromWindowsUWPSwapChainPanel {
  WGPUChainedStruct chain;
  void *swapChainPanel;
};
struct WGPUSurfaceDescriptorFromWindowsWinUISwapChainPanel {
  WGPUChainedStruct chain;
  void *swapChainPanel;
};
struct WGPUSurfaceDescriptorFromWindowsCoreWindow {
  WGPUChainedStruct chain;
  void *coreWindow;
};
struct WGPUSurfaceSourceXCBWindow {
  WGPUChainedStruct chain;
  void *connection;
  uint32_t window;
};
struct WGPUSurfaceSourceAndroidNativeWindow {
  WGPUChainedStruct chain;
  void *window;
};
struct WGPUSurfaceSourceMetalLayer {
  WGPUChainedStruct chain;
  void *layer;
};
struct WGPUSurfaceSourceWaylandSurface {
  WGPUChainedStruct chain;
  void *display;
  void *surface;
};
struct WGPUSurfaceSourceWindowsHWND {
  WGPUChainedStruct chain;
  void *hinstance;
  void *hwnd;
};
struct WGPUSurfaceSourceXlibWindow {
  WGPUChainedStruct chain;
  void *display;
  uint64_t window;
};
struct WGPUSurfaceTexture {
  WGPUChainedStruct *nextInChain;
  WGPUTexture texture;
  WGPUSurfaceGetCurrentTextureStatus status;
};
struct WGPUTexelCopyBufferLayout {
  uint64_t offset;
  uint32_t bytesPerRow;
  uint32_t rowsPerImage;
};
struct WGPUTexelCopyBufferInfo {
  WGPUTexelCopyBufferLayout layout;
  WGPUBuffer buffer;
};
struct WGPUTexelCopyTextureInfo {
  WGPUTexture texture;
  uint32_t mipLevel;
  WGPUOrigin3D origin;
  WGPUTextureAspect aspect;
};
struct WGPUTextureBindingViewDimensionDescriptor {
  WGPUChainedStruct chain;
  WGPUTextureViewDimension textureBindingViewDimension;
};
struct WGPUTextureDescriptor {
  WGPUChainedStruct *nextInChain;
  WGPUStringView label;
  WGPUTextureUsage usage;
  WGPUTextureDimension dimension;
  WGPUExtent3D size;
  WGPUTextureFormat format;
  uint32_t mipLevelCount;
  uint32_t sampleCount;
  size_t viewFormatCount;
  const WGPUTextureFormat *viewFormats;
};
struct WGPUTextureViewDescriptor {
  WGPUChainedStruct *nextInChain;
  WGPUStringView label;
  WGPUTextureFormat format;
  WGPUTextureViewDimension dimension;
  uint32_t baseMipLevel;
  uint32_t mipLevelCount;
  uint32_t baseArrayLayer;
  uint32_t arrayLayerCount;
  WGPUTextureAspect aspect;
  WGPUTextureUsage usage;
};
struct WGPUVertexAttribute {
  WGPUChainedStruct *nextInChain;
  WGPUVertexFormat format;
  uint64_t offset;
  uint32_t shaderLocation;
};
struct WGPUVertexBufferLayout {
  WGPUChainedStruct *nextInChain;
  WGPUVertexStepMode stepMode;
  uint64_t arrayStride;
  size_t attributeCount;
  const WGPUVertexAttribute *attributes;
};

/* The structs the ABI test compares with the implementation's debug info
 * (every one it holds): X(struct) for the size, M(struct, member) for each
 * member's offset. */
#define UL__WGPU_ABI_STRUCTS(X, M) \
  X(WGPUChainedStruct) M(WGPUChainedStruct, next) M(WGPUChainedStruct, sType) \
  X(WGPUAdapterInfo) M(WGPUAdapterInfo, nextInChain) M(WGPUAdapterInfo, vendor) M(WGPUAdapterInfo, architecture) M(WGPUAdapterInfo, device) M(WGPUAdapterInfo, description) M(WGPUAdapterInfo, backendType) M(WGPUAdapterInfo, adapterType) M(WGPUAdapterInfo, vendorID) M(WGPUAdapterInfo, deviceID) M(WGPUAdapterInfo, subgroupMinSize) M(WGPUAdapterInfo, subgroupMaxSize) \
  X(WGPUBindGroupDescriptor) M(WGPUBindGroupDescriptor, nextInChain) M(WGPUBindGroupDescriptor, label) M(WGPUBindGroupDescriptor, layout) M(WGPUBindGroupDescriptor, entryCount) M(WGPUBindGroupDescriptor, entries) \
  X(WGPUBindGroupEntry) M(WGPUBindGroupEntry, nextInChain) M(WGPUBindGroupEntry, binding) M(WGPUBindGroupEntry, buffer) M(WGPUBindGroupEntry, offset) M(WGPUBindGroupEntry, size) M(WGPUBindGroupEntry, sampler) M(WGPUBindGroupEntry, textureView) \
  X(WGPUBindGroupLayoutDescriptor) M(WGPUBindGroupLayoutDescriptor, nextInChain) M(WGPUBindGroupLayoutDescriptor, label) M(WGPUBindGroupLayoutDescriptor, entryCount) M(WGPUBindGroupLayoutDescriptor, entries) \
  X(WGPUBindGroupLayoutEntry) M(WGPUBindGroupLayoutEntry, nextInChain) M(WGPUBindGroupLayoutEntry, binding) M(WGPUBindGroupLayoutEntry, visibility) M(WGPUBindGroupLayoutEntry, bindingArraySize) M(WGPUBindGroupLayoutEntry, buffer) M(WGPUBindGroupLayoutEntry, sampler) M(WGPUBindGroupLayoutEntry, texture) M(WGPUBindGroupLayoutEntry, storageTexture) \
  X(WGPUBlendComponent) M(WGPUBlendComponent, operation) M(WGPUBlendComponent, srcFactor) M(WGPUBlendComponent, dstFactor) \
  X(WGPUBlendState) M(WGPUBlendState, color) M(WGPUBlendState, alpha) \
  X(WGPUBufferBindingLayout) M(WGPUBufferBindingLayout, nextInChain) M(WGPUBufferBindingLayout, type) M(WGPUBufferBindingLayout, hasDynamicOffset) M(WGPUBufferBindingLayout, minBindingSize) \
  X(WGPUBufferDescriptor) M(WGPUBufferDescriptor, nextInChain) M(WGPUBufferDescriptor, label) M(WGPUBufferDescriptor, usage) M(WGPUBufferDescriptor, size) M(WGPUBufferDescriptor, mappedAtCreation) \
  X(WGPUBufferMapCallbackInfo) M(WGPUBufferMapCallbackInfo, nextInChain) M(WGPUBufferMapCallbackInfo, mode) M(WGPUBufferMapCallbackInfo, callback) M(WGPUBufferMapCallbackInfo, userdata1) M(WGPUBufferMapCallbackInfo, userdata2) \
  X(WGPUColor) M(WGPUColor, r) M(WGPUColor, g) M(WGPUColor, b) M(WGPUColor, a) \
  X(WGPUColorTargetState) M(WGPUColorTargetState, nextInChain) M(WGPUColorTargetState, format) M(WGPUColorTargetState, blend) M(WGPUColorTargetState, writeMask) \
  X(WGPUCommandBufferDescriptor) M(WGPUCommandBufferDescriptor, nextInChain) M(WGPUCommandBufferDescriptor, label) \
  X(WGPUCommandEncoderDescriptor) M(WGPUCommandEncoderDescriptor, nextInChain) M(WGPUCommandEncoderDescriptor, label) \
  X(WGPUCompilationInfoCallbackInfo) M(WGPUCompilationInfoCallbackInfo, nextInChain) M(WGPUCompilationInfoCallbackInfo, mode) M(WGPUCompilationInfoCallbackInfo, callback) M(WGPUCompilationInfoCallbackInfo, userdata1) M(WGPUCompilationInfoCallbackInfo, userdata2) \
  X(WGPUComputePassDescriptor) M(WGPUComputePassDescriptor, nextInChain) M(WGPUComputePassDescriptor, label) M(WGPUComputePassDescriptor, timestampWrites) \
  X(WGPUComputePipelineDescriptor) M(WGPUComputePipelineDescriptor, nextInChain) M(WGPUComputePipelineDescriptor, label) M(WGPUComputePipelineDescriptor, layout) M(WGPUComputePipelineDescriptor, compute) \
  X(WGPUComputeState) M(WGPUComputeState, nextInChain) M(WGPUComputeState, module) M(WGPUComputeState, entryPoint) M(WGPUComputeState, constantCount) M(WGPUComputeState, constants) \
  X(WGPUConstantEntry) M(WGPUConstantEntry, nextInChain) M(WGPUConstantEntry, key) M(WGPUConstantEntry, value) \
  X(WGPUCreateComputePipelineAsyncCallbackInfo) M(WGPUCreateComputePipelineAsyncCallbackInfo, nextInChain) M(WGPUCreateComputePipelineAsyncCallbackInfo, mode) M(WGPUCreateComputePipelineAsyncCallbackInfo, callback) M(WGPUCreateComputePipelineAsyncCallbackInfo, userdata1) M(WGPUCreateComputePipelineAsyncCallbackInfo, userdata2) \
  X(WGPUCreateRenderPipelineAsyncCallbackInfo) M(WGPUCreateRenderPipelineAsyncCallbackInfo, nextInChain) M(WGPUCreateRenderPipelineAsyncCallbackInfo, mode) M(WGPUCreateRenderPipelineAsyncCallbackInfo, callback) M(WGPUCreateRenderPipelineAsyncCallbackInfo, userdata1) M(WGPUCreateRenderPipelineAsyncCallbackInfo, userdata2) \
  X(WGPUDepthStencilState) M(WGPUDepthStencilState, nextInChain) M(WGPUDepthStencilState, format) M(WGPUDepthStencilState, depthWriteEnabled) M(WGPUDepthStencilState, depthCompare) M(WGPUDepthStencilState, stencilFront) M(WGPUDepthStencilState, stencilBack) M(WGPUDepthStencilState, stencilReadMask) M(WGPUDepthStencilState, stencilWriteMask) M(WGPUDepthStencilState, depthBias) M(WGPUDepthStencilState, depthBiasSlopeScale) M(WGPUDepthStencilState, depthBiasClamp) \
  X(WGPUDeviceDescriptor) M(WGPUDeviceDescriptor, nextInChain) M(WGPUDeviceDescriptor, label) M(WGPUDeviceDescriptor, requiredFeatureCount) M(WGPUDeviceDescriptor, requiredFeatures) M(WGPUDeviceDescriptor, requiredLimits) M(WGPUDeviceDescriptor, defaultQueue) M(WGPUDeviceDescriptor, deviceLostCallbackInfo) M(WGPUDeviceDescriptor, uncapturedErrorCallbackInfo) \
  X(WGPUDeviceLostCallbackInfo) M(WGPUDeviceLostCallbackInfo, nextInChain) M(WGPUDeviceLostCallbackInfo, mode) M(WGPUDeviceLostCallbackInfo, callback) M(WGPUDeviceLostCallbackInfo, userdata1) M(WGPUDeviceLostCallbackInfo, userdata2) \
  X(WGPUExtent3D) M(WGPUExtent3D, width) M(WGPUExtent3D, height) M(WGPUExtent3D, depthOrArrayLayers) \
  X(WGPUFragmentState) M(WGPUFragmentState, nextInChain) M(WGPUFragmentState, module) M(WGPUFragmentState, entryPoint) M(WGPUFragmentState, constantCount) M(WGPUFragmentState, constants) M(WGPUFragmentState, targetCount) M(WGPUFragmentState, targets) \
  X(WGPUFuture) M(WGPUFuture, id) \
  X(WGPUFutureWaitInfo) M(WGPUFutureWaitInfo, future) M(WGPUFutureWaitInfo, completed) \
  X(WGPUInstanceCapabilities) M(WGPUInstanceCapabilities, nextInChain) M(WGPUInstanceCapabilities, timedWaitAnyEnable) M(WGPUInstanceCapabilities, timedWaitAnyMaxCount) \
  X(WGPUInstanceDescriptor) M(WGPUInstanceDescriptor, nextInChain) M(WGPUInstanceDescriptor, capabilities) \
  X(WGPULimits) M(WGPULimits, nextInChain) M(WGPULimits, maxTextureDimension1D) M(WGPULimits, maxTextureDimension2D) M(WGPULimits, maxTextureDimension3D) M(WGPULimits, maxTextureArrayLayers) M(WGPULimits, maxBindGroups) M(WGPULimits, maxBindGroupsPlusVertexBuffers) M(WGPULimits, maxBindingsPerBindGroup) M(WGPULimits, maxDynamicUniformBuffersPerPipelineLayout) M(WGPULimits, maxDynamicStorageBuffersPerPipelineLayout) M(WGPULimits, maxSampledTexturesPerShaderStage) M(WGPULimits, maxSamplersPerShaderStage) M(WGPULimits, maxStorageBuffersPerShaderStage) M(WGPULimits, maxStorageTexturesPerShaderStage) M(WGPULimits, maxUniformBuffersPerShaderStage) M(WGPULimits, maxUniformBufferBindingSize) M(WGPULimits, maxStorageBufferBindingSize) M(WGPULimits, minUniformBufferOffsetAlignment) M(WGPULimits, minStorageBufferOffsetAlignment) M(WGPULimits, maxVertexBuffers) M(WGPULimits, maxBufferSize) M(WGPULimits, maxVertexAttributes) M(WGPULimits, maxVertexBufferArrayStride) M(WGPULimits, maxInterStageShaderVariables) M(WGPULimits, maxColorAttachments) M(WGPULimits, maxColorAttachmentBytesPerSample) M(WGPULimits, maxComputeWorkgroupStorageSize) M(WGPULimits, maxComputeInvocationsPerWorkgroup) M(WGPULimits, maxComputeWorkgroupSizeX) M(WGPULimits, maxComputeWorkgroupSizeY) M(WGPULimits, maxComputeWorkgroupSizeZ) M(WGPULimits, maxComputeWorkgroupsPerDimension) M(WGPULimits, maxImmediateSize) \
  X(WGPUMultisampleState) M(WGPUMultisampleState, nextInChain) M(WGPUMultisampleState, count) M(WGPUMultisampleState, mask) M(WGPUMultisampleState, alphaToCoverageEnabled) \
  X(WGPUOrigin3D) M(WGPUOrigin3D, x) M(WGPUOrigin3D, y) M(WGPUOrigin3D, z) \
  X(WGPUPassTimestampWrites) M(WGPUPassTimestampWrites, nextInChain) M(WGPUPassTimestampWrites, querySet) M(WGPUPassTimestampWrites, beginningOfPassWriteIndex) M(WGPUPassTimestampWrites, endOfPassWriteIndex) \
  X(WGPUPipelineLayoutDescriptor) M(WGPUPipelineLayoutDescriptor, nextInChain) M(WGPUPipelineLayoutDescriptor, label) M(WGPUPipelineLayoutDescriptor, bindGroupLayoutCount) M(WGPUPipelineLayoutDescriptor, bindGroupLayouts) M(WGPUPipelineLayoutDescriptor, immediateSize) \
  X(WGPUPopErrorScopeCallbackInfo) M(WGPUPopErrorScopeCallbackInfo, nextInChain) M(WGPUPopErrorScopeCallbackInfo, mode) M(WGPUPopErrorScopeCallbackInfo, callback) M(WGPUPopErrorScopeCallbackInfo, userdata1) M(WGPUPopErrorScopeCallbackInfo, userdata2) \
  X(WGPUPrimitiveState) M(WGPUPrimitiveState, nextInChain) M(WGPUPrimitiveState, topology) M(WGPUPrimitiveState, stripIndexFormat) M(WGPUPrimitiveState, frontFace) M(WGPUPrimitiveState, cullMode) M(WGPUPrimitiveState, unclippedDepth) \
  X(WGPUQuerySetDescriptor) M(WGPUQuerySetDescriptor, nextInChain) M(WGPUQuerySetDescriptor, label) M(WGPUQuerySetDescriptor, type) M(WGPUQuerySetDescriptor, count) \
  X(WGPUQueueDescriptor) M(WGPUQueueDescriptor, nextInChain) M(WGPUQueueDescriptor, label) \
  X(WGPUQueueWorkDoneCallbackInfo) M(WGPUQueueWorkDoneCallbackInfo, nextInChain) M(WGPUQueueWorkDoneCallbackInfo, mode) M(WGPUQueueWorkDoneCallbackInfo, callback) M(WGPUQueueWorkDoneCallbackInfo, userdata1) M(WGPUQueueWorkDoneCallbackInfo, userdata2) \
  X(WGPURenderBundleDescriptor) M(WGPURenderBundleDescriptor, nextInChain) M(WGPURenderBundleDescriptor, label) \
  X(WGPURenderBundleEncoderDescriptor) M(WGPURenderBundleEncoderDescriptor, nextInChain) M(WGPURenderBundleEncoderDescriptor, label) M(WGPURenderBundleEncoderDescriptor, colorFormatCount) M(WGPURenderBundleEncoderDescriptor, colorFormats) M(WGPURenderBundleEncoderDescriptor, depthStencilFormat) M(WGPURenderBundleEncoderDescriptor, sampleCount) M(WGPURenderBundleEncoderDescriptor, depthReadOnly) M(WGPURenderBundleEncoderDescriptor, stencilReadOnly) \
  X(WGPURenderPassColorAttachment) M(WGPURenderPassColorAttachment, nextInChain) M(WGPURenderPassColorAttachment, view) M(WGPURenderPassColorAttachment, depthSlice) M(WGPURenderPassColorAttachment, resolveTarget) M(WGPURenderPassColorAttachment, loadOp) M(WGPURenderPassColorAttachment, storeOp) M(WGPURenderPassColorAttachment, clearValue) \
  X(WGPURenderPassDepthStencilAttachment) M(WGPURenderPassDepthStencilAttachment, nextInChain) M(WGPURenderPassDepthStencilAttachment, view) M(WGPURenderPassDepthStencilAttachment, depthLoadOp) M(WGPURenderPassDepthStencilAttachment, depthStoreOp) M(WGPURenderPassDepthStencilAttachment, depthClearValue) M(WGPURenderPassDepthStencilAttachment, depthReadOnly) M(WGPURenderPassDepthStencilAttachment, stencilLoadOp) M(WGPURenderPassDepthStencilAttachment, stencilStoreOp) M(WGPURenderPassDepthStencilAttachment, stencilClearValue) M(WGPURenderPassDepthStencilAttachment, stencilReadOnly) \
  X(WGPURenderPassDescriptor) M(WGPURenderPassDescriptor, nextInChain) M(WGPURenderPassDescriptor, label) M(WGPURenderPassDescriptor, colorAttachmentCount) M(WGPURenderPassDescriptor, colorAttachments) M(WGPURenderPassDescriptor, depthStencilAttachment) M(WGPURenderPassDescriptor, occlusionQuerySet) M(WGPURenderPassDescriptor, timestampWrites) \
  X(WGPURenderPipelineDescriptor) M(WGPURenderPipelineDescriptor, nextInChain) M(WGPURenderPipelineDescriptor, label) M(WGPURenderPipelineDescriptor, layout) M(WGPURenderPipelineDescriptor, vertex) M(WGPURenderPipelineDescriptor, primitive) M(WGPURenderPipelineDescriptor, depthStencil) M(WGPURenderPipelineDescriptor, multisample) M(WGPURenderPipelineDescriptor, fragment) \
  X(WGPURequestAdapterCallbackInfo) M(WGPURequestAdapterCallbackInfo, nextInChain) M(WGPURequestAdapterCallbackInfo, mode) M(WGPURequestAdapterCallbackInfo, callback) M(WGPURequestAdapterCallbackInfo, userdata1) M(WGPURequestAdapterCallbackInfo, userdata2) \
  X(WGPURequestAdapterOptions) M(WGPURequestAdapterOptions, nextInChain) M(WGPURequestAdapterOptions, featureLevel) M(WGPURequestAdapterOptions, powerPreference) M(WGPURequestAdapterOptions, forceFallbackAdapter) M(WGPURequestAdapterOptions, backendType) M(WGPURequestAdapterOptions, compatibleSurface) \
  X(WGPURequestDeviceCallbackInfo) M(WGPURequestDeviceCallbackInfo, nextInChain) M(WGPURequestDeviceCallbackInfo, mode) M(WGPURequestDeviceCallbackInfo, callback) M(WGPURequestDeviceCallbackInfo, userdata1) M(WGPURequestDeviceCallbackInfo, userdata2) \
  X(WGPUSamplerBindingLayout) M(WGPUSamplerBindingLayout, nextInChain) M(WGPUSamplerBindingLayout, type) \
  X(WGPUSamplerDescriptor) M(WGPUSamplerDescriptor, nextInChain) M(WGPUSamplerDescriptor, label) M(WGPUSamplerDescriptor, addressModeU) M(WGPUSamplerDescriptor, addressModeV) M(WGPUSamplerDescriptor, addressModeW) M(WGPUSamplerDescriptor, magFilter) M(WGPUSamplerDescriptor, minFilter) M(WGPUSamplerDescriptor, mipmapFilter) M(WGPUSamplerDescriptor, lodMinClamp) M(WGPUSamplerDescriptor, lodMaxClamp) M(WGPUSamplerDescriptor, compare) M(WGPUSamplerDescriptor, maxAnisotropy) \
  X(WGPUShaderModuleDescriptor) M(WGPUShaderModuleDescriptor, nextInChain) M(WGPUShaderModuleDescriptor, label) \
  X(WGPUSharedBufferMemoryEndAccessState) M(WGPUSharedBufferMemoryEndAccessState, nextInChain) M(WGPUSharedBufferMemoryEndAccessState, initialized) M(WGPUSharedBufferMemoryEndAccessState, fenceCount) M(WGPUSharedBufferMemoryEndAccessState, fences) M(WGPUSharedBufferMemoryEndAccessState, signaledValues) \
  X(WGPUSharedTextureMemoryEndAccessState) M(WGPUSharedTextureMemoryEndAccessState, nextInChain) M(WGPUSharedTextureMemoryEndAccessState, initialized) M(WGPUSharedTextureMemoryEndAccessState, fenceCount) M(WGPUSharedTextureMemoryEndAccessState, fences) M(WGPUSharedTextureMemoryEndAccessState, signaledValues) \
  X(WGPUStencilFaceState) M(WGPUStencilFaceState, compare) M(WGPUStencilFaceState, failOp) M(WGPUStencilFaceState, depthFailOp) M(WGPUStencilFaceState, passOp) \
  X(WGPUStorageTextureBindingLayout) M(WGPUStorageTextureBindingLayout, nextInChain) M(WGPUStorageTextureBindingLayout, access) M(WGPUStorageTextureBindingLayout, format) M(WGPUStorageTextureBindingLayout, viewDimension) \
  X(WGPUStringView) M(WGPUStringView, data) M(WGPUStringView, length) \
  X(WGPUSupportedFeatures) M(WGPUSupportedFeatures, featureCount) M(WGPUSupportedFeatures, features) \
  X(WGPUSupportedWGSLLanguageFeatures) M(WGPUSupportedWGSLLanguageFeatures, featureCount) M(WGPUSupportedWGSLLanguageFeatures, features) \
  X(WGPUSurfaceCapabilities) M(WGPUSurfaceCapabilities, nextInChain) M(WGPUSurfaceCapabilities, usages) M(WGPUSurfaceCapabilities, formatCount) M(WGPUSurfaceCapabilities, formats) M(WGPUSurfaceCapabilities, presentModeCount) M(WGPUSurfaceCapabilities, presentModes) M(WGPUSurfaceCapabilities, alphaModeCount) M(WGPUSurfaceCapabilities, alphaModes) \
  X(WGPUSurfaceConfiguration) M(WGPUSurfaceConfiguration, nextInChain) M(WGPUSurfaceConfiguration, device) M(WGPUSurfaceConfiguration, format) M(WGPUSurfaceConfiguration, usage) M(WGPUSurfaceConfiguration, width) M(WGPUSurfaceConfiguration, height) M(WGPUSurfaceConfiguration, viewFormatCount) M(WGPUSurfaceConfiguration, viewFormats) M(WGPUSurfaceConfiguration, alphaMode) M(WGPUSurfaceConfiguration, presentMode) \
  X(WGPUSurfaceDescriptor) M(WGPUSurfaceDescriptor, nextInChain) M(WGPUSurfaceDescriptor, label) \
  X(WGPUSurfaceTexture) M(WGPUSurfaceTexture, nextInChain) M(WGPUSurfaceTexture, texture) M(WGPUSurfaceTexture, status) \
  X(WGPUTexelCopyBufferInfo) M(WGPUTexelCopyBufferInfo, layout) M(WGPUTexelCopyBufferInfo, buffer) \
  X(WGPUTexelCopyBufferLayout) M(WGPUTexelCopyBufferLayout, offset) M(WGPUTexelCopyBufferLayout, bytesPerRow) M(WGPUTexelCopyBufferLayout, rowsPerImage) \
  X(WGPUTexelCopyTextureInfo) M(WGPUTexelCopyTextureInfo, texture) M(WGPUTexelCopyTextureInfo, mipLevel) M(WGPUTexelCopyTextureInfo, origin) M(WGPUTexelCopyTextureInfo, aspect) \
  X(WGPUTextureBindingLayout) M(WGPUTextureBindingLayout, nextInChain) M(WGPUTextureBindingLayout, sampleType) M(WGPUTextureBindingLayout, viewDimension) M(WGPUTextureBindingLayout, multisampled) \
  X(WGPUTextureDescriptor) M(WGPUTextureDescriptor, nextInChain) M(WGPUTextureDescriptor, label) M(WGPUTextureDescriptor, usage) M(WGPUTextureDescriptor, dimension) M(WGPUTextureDescriptor, size) M(WGPUTextureDescriptor, format) M(WGPUTextureDescriptor, mipLevelCount) M(WGPUTextureDescriptor, sampleCount) M(WGPUTextureDescriptor, viewFormatCount) M(WGPUTextureDescriptor, viewFormats) \
  X(WGPUTextureViewDescriptor) M(WGPUTextureViewDescriptor, nextInChain) M(WGPUTextureViewDescriptor, label) M(WGPUTextureViewDescriptor, format) M(WGPUTextureViewDescriptor, dimension) M(WGPUTextureViewDescriptor, baseMipLevel) M(WGPUTextureViewDescriptor, mipLevelCount) M(WGPUTextureViewDescriptor, baseArrayLayer) M(WGPUTextureViewDescriptor, arrayLayerCount) M(WGPUTextureViewDescriptor, aspect) M(WGPUTextureViewDescriptor, usage) \
  X(WGPUUncapturedErrorCallbackInfo) M(WGPUUncapturedErrorCallbackInfo, nextInChain) M(WGPUUncapturedErrorCallbackInfo, callback) M(WGPUUncapturedErrorCallbackInfo, userdata1) M(WGPUUncapturedErrorCallbackInfo, userdata2) \
  X(WGPUVertexAttribute) M(WGPUVertexAttribute, nextInChain) M(WGPUVertexAttribute, format) M(WGPUVertexAttribute, offset) M(WGPUVertexAttribute, shaderLocation) \
  X(WGPUVertexBufferLayout) M(WGPUVertexBufferLayout, nextInChain) M(WGPUVertexBufferLayout, stepMode) M(WGPUVertexBufferLayout, arrayStride) M(WGPUVertexBufferLayout, attributeCount) M(WGPUVertexBufferLayout, attributes) \
  X(WGPUVertexState) M(WGPUVertexState, nextInChain) M(WGPUVertexState, module) M(WGPUVertexState, entryPoint) M(WGPUVertexState, constantCount) M(WGPUVertexState, constants) M(WGPUVertexState, bufferCount) M(WGPUVertexState, buffers)

#endif
