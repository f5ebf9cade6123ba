/* Error scopes around WebGPU calls, so that creation reports its errors
 * synchronously as a status with the implementation's message. */
#include "core/core.h"

static void on_pop(uint32_t status, uint32_t type, WGPUStringView message, void *u1, void *u2) {
  UL__UNUSED(u2);
  ul__cb_finish(u1, status, type, NULL, message);
}

void ul__scope_push(ul_device *d) {
  d->scope_mark = atomic_load(&d->uncaptured_errors);
  atomic_store(&d->in_scope, true);
  d->wgpu->DevicePushErrorScope(d->device, WGPUErrorFilter_OutOfMemory);
}

static ul_status scope_status(uint32_t type) {
  return type == WGPUErrorType_OutOfMemory ? UL_ERR_OUT_OF_MEMORY
         : type == WGPUErrorType_Validation ? UL_ERR_VALIDATION
                                            : UL_ERR_INTERNAL;
}

ul_status ul__scope_pop(ul_device *d, const char *what) {
  const ul__wgpu *w = d->wgpu;
  const char *sep = what ? ": " : "";
  if (!what) what = "";
  ul_status result = UL_OK;
  ul__cb *p = ul__cb_new();
  WGPUPopErrorScopeCallbackInfo cb = {0};
  /* Spontaneous: Dawn answers a pop inside the call, so the usual case
   * needs no wait at all (the record is reference-counted either way). */
  cb.mode = WGPUCallbackMode_AllowSpontaneous;
  cb.callback = on_pop;
  cb.userdata1 = p;
  if (!p) {
    /* Still pop, so the scope stack stays balanced; the answer is lost
     * (into a record no one frees: its references never run out). */
    static ul__cb sink = {.refs = 1 << 30};
    cb.userdata1 = &sink;
    result = ul__fail(UL_ERR_OUT_OF_MEMORY, "%s%sout of host memory", what, sep);
  }
  WGPUFuture f = w->DevicePopErrorScope(d->device, cb);
  if (p) {
    ul_status s = atomic_load(&p->done) ? UL_OK
                                        : ul__env_wait(d->env, d->instance, f, &p->done, 10000000000ull);
    if (s) {
      /* The callback may still fire (at the latest at instance release):
       * it frees the record then. */
      if (!result) result = ul__wrap(s, "%s%serror scope", what, sep);
    } else if (p->status == WGPUPopErrorScopeStatus_Success && p->type != WGPUErrorType_NoError) {
      /* Keep the message on one line. */
      for (char *c = p->message; *c; c++)
        if (*c == '\n' || *c == '\r') *c = ' ';
      ul_status st = scope_status(p->type);
      result = ul__fail(st, "%s%s%s", what, sep, p->message);
      ul__device_health_error(d, st, false);
    }
    ul__cb_unref(p);
  }
  atomic_store(&d->in_scope, false);
  /* A validation or internal error of the call in the scope (the callback
   * counted it for health already, as the call's own). */
  uint32_t type = 0;
  char msg[sizeof d->uncaptured_message];
  if (ul__device_uncaptured_since_typed(d, d->scope_mark, msg, sizeof msg, &type) && !result)
    result = ul__fail(scope_status(type), "%s%s%s", what, sep, msg);
  return result;
}
