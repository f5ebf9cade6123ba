/* Error scopes around WebGPU calls, so that creation reports its errors
 * synchronously as a status with the implementation's message. */
#include "core/core.h"

typedef struct ul__pop {
  _Atomic bool done;
  uint32_t status;
  uint32_t type;
  char message[1536];
} ul__pop;

static void on_pop(uint32_t status, uint32_t type, WGPUStringView message, void *u1, void *u2) {
  UL__UNUSED(u2);
  ul__pop *p = u1;
  p->status = status;
  p->type = type;
  ul__sv_copy(message, p->message, sizeof p->message);
  atomic_store(&p->done, true);
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
  ul__pop *p[3];
  WGPUFuture f[3];
  /* Pop all three first: the answers come together. */
  for (int i = 0; i < 3; i++) {
    p[i] = calloc(1, sizeof *p[i]);
    WGPUPopErrorScopeCallbackInfo cb = {0};
    cb.mode = WGPUCallbackMode_WaitAnyOnly;
    cb.callback = on_pop;
    cb.userdata1 = p[i];
    if (!p[i]) {
      /* Still pop, so the scope stack stays balanced; the answer is lost. */
      static ul__pop sink;
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
       * the record is leaked rather than freed under it. */
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
    free(p[i]);
  }
  return result;
}
