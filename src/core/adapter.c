/* Adapter and device requests: one attempt each, bounded by a timeout, with
 * the failure as a status. Used by device creation and by recovery. */
#include "core/adapter.h"

/* A request's record (ul__cb): when a wait times out the callback may
 * still fire later (at the latest when the instance is released) and hand
 * over an adapter or device, so an abandoned request keeps its record on a
 * list, reaped once its callback came, releasing what it got. */
static void on_adapter(uint32_t status, WGPUAdapter adapter, WGPUStringView message,
                       void *u1, void *u2) {
  UL__UNUSED(u2);
  ul__cb_finish(u1, status, 0, adapter, message);
}

static void on_device(uint32_t status, WGPUDevice device, WGPUStringView message,
                      void *u1, void *u2) {
  UL__UNUSED(u2);
  ul__cb_finish(u1, status, 1, device, message);
}

static pthread_mutex_t g_orphan_mu = PTHREAD_MUTEX_INITIALIZER;
static ul__cb *g_orphans;

/* Frees requests whose callbacks have fired, releasing what they got. */
void ul__adapter_reap_orphans(const ul__wgpu *w) {
  pthread_mutex_lock(&g_orphan_mu);
  ul__cb **pp = &g_orphans;
  while (*pp) {
    ul__cb *r = *pp;
    if (atomic_load(&r->done)) {
      *pp = r->next;
      if (r->object && r->type == 0) w->AdapterRelease(r->object);
      if (r->object && r->type == 1) w->DeviceRelease(r->object);
      ul__cb_unref(r);
    } else {
      pp = &r->next;
    }
  }
  pthread_mutex_unlock(&g_orphan_mu);
}

static void abandon(ul__cb *r) {
  pthread_mutex_lock(&g_orphan_mu);
  r->next = g_orphans;
  g_orphans = r;
  pthread_mutex_unlock(&g_orphan_mu);
}

ul_status ul__request_adapter(ul_env *env, WGPUInstance inst, uint32_t power, bool fallback,
                              uint64_t timeout_ns, WGPUAdapter *out) {
  return ul__request_adapter_with(env, env->wgpu, inst, power, fallback, timeout_ns, out);
}

ul_status ul__request_adapter_with(ul_env *env, const ul__wgpu *w, WGPUInstance inst, uint32_t power,
                                   bool fallback, uint64_t timeout_ns, WGPUAdapter *out) {
  *out = NULL;
  ul__cb *r = ul__cb_new();
  if (!r) return ul__fail(UL_ERR_OUT_OF_MEMORY, "request adapter: out of host memory");
  WGPURequestAdapterOptions opt = {0};
  opt.featureLevel = WGPUFeatureLevel_Core;
  opt.powerPreference = power;
  opt.forceFallbackAdapter = fallback;
  WGPURequestAdapterCallbackInfo cb = {.mode = WGPUCallbackMode_WaitAnyOnly, .callback = on_adapter, .userdata1 = r};
  WGPUFuture f = w->InstanceRequestAdapter(inst, &opt, cb);
  ul_status s = ul__env_wait_with(env, w, inst, f, &r->done, timeout_ns);
  if (s) {
    abandon(r);
    return ul__wrap(s, "request %s adapter", fallback ? "fallback" : "an");
  }
  WGPUAdapter adapter = r->object;
  if (r->status != WGPURequestAdapterStatus_Success || !adapter) {
    if (adapter) w->AdapterRelease(adapter);
    s = ul__fail(UL_ERR_NO_ADAPTER, "request %s adapter: %s (status %u)",
                 fallback ? "fallback" : "an", r->message[0] ? r->message : "none available",
                 r->status);
    ul__cb_unref(r);
    return s;
  }
  *out = adapter;
  ul__cb_unref(r);
  return UL_OK;
}

ul_status ul__request_device(ul_env *env, WGPUInstance inst, WGPUAdapter adapter,
                             const WGPUDeviceDescriptor *desc, uint64_t timeout_ns,
                             WGPUDevice *out) {
  return ul__request_device_with(env, env->wgpu, inst, adapter, desc, timeout_ns, out);
}

ul_status ul__request_device_with(ul_env *env, const ul__wgpu *w, WGPUInstance inst, WGPUAdapter adapter,
                                  const WGPUDeviceDescriptor *desc, uint64_t timeout_ns, WGPUDevice *out) {
  *out = NULL;
  ul__cb *r = ul__cb_new();
  if (!r) return ul__fail(UL_ERR_OUT_OF_MEMORY, "request device: out of host memory");
  WGPURequestDeviceCallbackInfo cb = {.mode = WGPUCallbackMode_WaitAnyOnly, .callback = on_device, .userdata1 = r};
  WGPUFuture f = w->AdapterRequestDevice(adapter, desc, cb);
  ul_status s = ul__env_wait_with(env, w, inst, f, &r->done, timeout_ns);
  if (s) {
    abandon(r);
    return ul__wrap(s, "request device");
  }
  WGPUDevice device = r->object;
  if (r->status != WGPURequestDeviceStatus_Success || !device) {
    if (device) w->DeviceRelease(device);
    s = ul__fail(UL_ERR_NO_ADAPTER, "request device: %s (status %u)",
                 r->message[0] ? r->message : "refused", r->status);
    ul__cb_unref(r);
    return s;
  }
  *out = device;
  ul__cb_unref(r);
  return UL_OK;
}

/* Keyed by the enum (NULL is a macro, so this one is not an X-macro). */
static const char *const backend_names[] = {
    [UL_BACKEND_UNDEFINED] = "undefined", [UL_BACKEND_NULL] = "null",     [UL_BACKEND_WEBGPU] = "webgpu",
    [UL_BACKEND_D3D11] = "d3d11",         [UL_BACKEND_D3D12] = "d3d12",   [UL_BACKEND_METAL] = "metal",
    [UL_BACKEND_VULKAN] = "vulkan",       [UL_BACKEND_OPENGL] = "opengl", [UL_BACKEND_OPENGLES] = "opengles"};

const char *ul_backend_name(ul_backend b) {
  return (unsigned)b < UL__COUNT_OF(backend_names) ? backend_names[b] : "unknown";
}

const char *ul_adapter_type_name(ul_adapter_type t) {
  switch (t) {
  case UL_ADAPTER_DISCRETE_GPU: return "discrete-gpu";
  case UL_ADAPTER_INTEGRATED_GPU: return "integrated-gpu";
  case UL_ADAPTER_CPU: return "cpu";
  default: return "unknown";
  }
}

ul_status ul__adapter_describe(ul_env *env, WGPUAdapter a, ul_adapter_info *out) {
  return ul__adapter_describe_with(env->wgpu, a, out);
}

ul_status ul__adapter_describe_with(const ul__wgpu *w, WGPUAdapter a, ul_adapter_info *out) {
  memset(out, 0, sizeof *out);
  WGPUAdapterInfo info;
  memset(&info, 0, sizeof info);
  if (w->AdapterGetInfo(a, &info) != WGPUStatus_Success)
    return ul__fail(UL_ERR_INTERNAL, "adapter info: wgpuAdapterGetInfo failed");
  ul__sv_copy(info.device, out->name, sizeof out->name);
  ul__sv_copy(info.vendor, out->vendor, sizeof out->vendor);
  ul__sv_copy(info.architecture, out->architecture, sizeof out->architecture);
  ul__sv_copy(info.description, out->driver, sizeof out->driver);
  out->backend = info.backendType <= WGPUBackendType_OpenGLES ? (ul_backend)info.backendType
                                                              : UL_BACKEND_UNDEFINED;
  switch (info.adapterType) {
  case WGPUAdapterType_DiscreteGPU: out->type = UL_ADAPTER_DISCRETE_GPU; break;
  case WGPUAdapterType_IntegratedGPU: out->type = UL_ADAPTER_INTEGRATED_GPU; break;
  case WGPUAdapterType_CPU: out->type = UL_ADAPTER_CPU; break;
  default: out->type = UL_ADAPTER_UNKNOWN; break;
  }
  out->vendor_id = info.vendorID;
  out->device_id = info.deviceID;
  w->AdapterInfoFreeMembers(info);
  return UL_OK;
}

/* ul_limits field <-> WGPULimits field; `lower` marks limits where smaller
 * is better (alignments), which are reported but never requested. */
#define UL__LIMITS(X)                                                        \
  X(max_buffer_size, maxBufferSize, 0)                                       \
  X(max_storage_buffer_binding_size, maxStorageBufferBindingSize, 0)         \
  X(max_uniform_buffer_binding_size, maxUniformBufferBindingSize, 0)         \
  X(max_compute_workgroup_storage_size, maxComputeWorkgroupStorageSize, 0)   \
  X(max_compute_invocations_per_workgroup, maxComputeInvocationsPerWorkgroup, 0) \
  X(max_compute_workgroup_size_x, maxComputeWorkgroupSizeX, 0)               \
  X(max_compute_workgroup_size_y, maxComputeWorkgroupSizeY, 0)               \
  X(max_compute_workgroup_size_z, maxComputeWorkgroupSizeZ, 0)               \
  X(max_compute_workgroups_per_dimension, maxComputeWorkgroupsPerDimension, 0) \
  X(max_storage_buffers_per_shader_stage, maxStorageBuffersPerShaderStage, 0) \
  X(max_bind_groups, maxBindGroups, 0)                                       \
  X(max_bindings_per_bind_group, maxBindingsPerBindGroup, 0)                 \
  X(max_texture_dimension_2d, maxTextureDimension2D, 0)                      \
  X(min_storage_buffer_offset_alignment, minStorageBufferOffsetAlignment, 1) \
  X(min_uniform_buffer_offset_alignment, minUniformBufferOffsetAlignment, 1)

void ul__limits_from_wgpu(const WGPULimits *w, ul_limits *out) {
#define UL__FROM(ul, wg, lower) out->ul = w->wg;
  UL__LIMITS(UL__FROM)
#undef UL__FROM
}

ul_status ul__limits_required(const ul_limits *want, const WGPULimits *adapter,
                              WGPULimits *out) {
  /* All ones is "undefined" for both 32- and 64-bit limits. */
  memset(out, 0xff, sizeof *out);
  out->nextInChain = NULL;
#define UL__REQ(ul, wg, lower)                                                        \
  if (!lower && want->ul) {                                                           \
    uint64_t v = want->ul == UL_LIMIT_ADAPTER ? (uint64_t)adapter->wg : want->ul;     \
    if (v > (uint64_t)adapter->wg)                                                    \
      return ul__fail(UL_ERR_UNSUPPORTED, "limit " #ul " = %llu exceeds the adapter's %llu", \
                      (unsigned long long)v, (unsigned long long)adapter->wg);        \
    out->wg = (__typeof__(out->wg))v;                                                 \
  }
  UL__LIMITS(UL__REQ)
#undef UL__REQ
  return UL_OK;
}
