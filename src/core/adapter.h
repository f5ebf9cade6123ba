/* Internal to unlost: adapter and device requests (src/core/adapter.c). */
#ifndef UL_CORE_ADAPTER_H
#define UL_CORE_ADAPTER_H

#include "core/core.h"

/* One adapter request. UL_ERR_NO_ADAPTER when refused, UL_ERR_TIMEOUT.
 * Through env->wgpu; the _with forms through `w` (a standby device is
 * built through the implementation's own table, so that fault schedules
 * count the same calls whenever it is built). */
ul_status ul__request_adapter(ul_env *env, WGPUInstance inst, uint32_t power, bool fallback,
                              uint64_t timeout_ns, WGPUAdapter *out);
ul_status ul__request_adapter_with(ul_env *env, const ul__wgpu *w, WGPUInstance inst, uint32_t power,
                                   bool fallback, uint64_t timeout_ns, WGPUAdapter *out);
/* One device request. UL_ERR_NO_ADAPTER when refused, UL_ERR_TIMEOUT. */
ul_status ul__request_device(ul_env *env, WGPUInstance inst, WGPUAdapter adapter,
                             const WGPUDeviceDescriptor *desc, uint64_t timeout_ns,
                             WGPUDevice *out);
ul_status ul__request_device_with(ul_env *env, const ul__wgpu *w, WGPUInstance inst, WGPUAdapter adapter,
                                  const WGPUDeviceDescriptor *desc, uint64_t timeout_ns, WGPUDevice *out);
ul_status ul__adapter_describe(ul_env *env, WGPUAdapter a, ul_adapter_info *out);
ul_status ul__adapter_describe_with(const ul__wgpu *w, WGPUAdapter a, ul_adapter_info *out);
void ul__limits_from_wgpu(const WGPULimits *w, ul_limits *out);
/* The WGPULimits to request for `want`, checked against the adapter's. */
ul_status ul__limits_required(const ul_limits *want, const WGPULimits *adapter, WGPULimits *out);
/* Frees abandoned (timed-out) requests whose callbacks have fired. */
void ul__adapter_reap_orphans(const ul__wgpu *w);

#endif
