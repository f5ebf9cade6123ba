/* Error scopes around WebGPU calls, so that creation reports its errors
 * synchronously as a status with the implementation's message. */
#include "core/core.h"

static void on_pop(uint32_t status, uint32_t type, WGPUStringView message, void *u1, void *u2) {
  UL__UNUSED(u2);
  ul__cb_finish(u1, status, type, NULL, message);
}

void ul__scope_push(ul_device *d) {
  const ul__wgpu *w = d->wgpu;
  w->DevicePushErrorScope(d->device, WGPUErrorFilter_Validation);
  w->DevicePushErrorScope(d->device, WGPUErrorFilter_OutOfMemory);
  w->DevicePushErrorScope(d->device, WGPUErrorFilter_Internal);
}

ul_status ul__scope_pop(ul_device *d, const char *what) {
  const ul__wgpu *w = d->wgpu;
  ul_status result = UL_OK;
  ul__cb *p[3];
  WGPUFuture f[3];
  /* Pop all three first: the answers come together. */
  for (int i = 0; i < 3; i++) {
    p[i] = ul__cb_new();
    WGPUPopErrorScopeCallbackInfo cb = {0};
    cb.mode = WGPUCallbackMode_WaitAnyOnly;
    cb.callback = on_pop;
    cb.userdata1 = p[i];
    if (!p[i]) {
      /* Still pop, so the scope stack stays balanced; the answer is lost
       * (into a record no one frees: its references never run out). */
      static ul__cb sink = {.refs = 1 << 30};
      cb.userdata1 = &sink;
      result = ul__fail(UL_ERR_OUT_OF_MEMORY, "%s: out of host memory", what);
    }
    f[i] = w->DevicePopErrorScope(d->device, cb);
  }
  for (int i = 0; i < 3; i++) {
    if (!p[i]) continue;
    ul_status s = ul__env_wait(d->env, d->instance, f[i], &p[i]->done, 10000000000ull);
    if (s) {
      /* The callback may still fire (at the latest at instance release):
       * it frees the record then. */
      ul__cb_unref(p[i]);
      if (!result) result = ul__wrap(s, "%s: error scope", what);
      continue;
    }
    if (!result && p[i]->status == WGPUPopErrorScopeStatus_Success && p[i]->type != WGPUErrorType_NoError) {
      ul_status st = p[i]->type == WGPUErrorType_OutOfMemory ? UL_ERR_OUT_OF_MEMORY
                     : p[i]->type == WGPUErrorType_Validation ? UL_ERR_VALIDATION
                                                               : UL_ERR_INTERNAL;
      /* Keep the message on one line. */
      for (char *c = p[i]->message; *c; c++)
        if (*c == '\n' || *c == '\r') *c = ' ';
      result = ul__fail(st, "%s: %s", what, p[i]->message);
      ul__device_health_error(d, st, false);
    }
    ul__cb_unref(p[i]);
  }
  return result;
}
