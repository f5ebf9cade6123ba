/* Devices of the webgpu.h front door: the engine's device behind each,
 * error scopes and the uncaptured-error callback (the program hears its
 * own errors, never those of a recovery), the lost callback (only when
 * unlost gives up or the program destroyed the device), and the device's
 * getters. */
#include "webgpu/wg.h"

#include <stdarg.h>

/* ---- errors ---- */

static bool filter_takes(uint32_t filter, uint32_t type) {
  return (filter == WGPUErrorFilter_Validation && type == WGPUErrorType_Validation) ||
         (filter == WGPUErrorFilter_OutOfMemory && type == WGPUErrorType_OutOfMemory) ||
         (filter == WGPUErrorFilter_Internal && type == WGPUErrorType_Internal);
}

_Thread_local ul__wg_capture *ul__wg_capturing;

void ul__wg_error(ul__wg_device *dv, uint32_t type, const char *fmt, ...) {
  if (!dv || atomic_load(&dv->lost)) return;
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  ul__wg_capture *cap = ul__wg_capturing;
  if (cap && cap->dv == dv) {
    /* An asynchronous create: its errors are its future's. */
    if (!cap->type) {
      cap->type = type;
      snprintf(cap->msg, sizeof cap->msg, "%s", msg);
    }
    return;
  }
  pthread_mutex_lock(&dv->mu);
  for (uint32_t i = dv->nscopes; i-- > 0;) {
    ul__wg_scope *sc = &dv->scopes[i];
    if (!filter_takes(sc->filter, type)) continue;
    if (sc->type == WGPUErrorType_NoError) {
      sc->type = type;
      sc->message = ul__strdup(msg);
    }
    pthread_mutex_unlock(&dv->mu);
    return;
  }
  WGPUUncapturedErrorCallbackInfo cb = dv->error_cb;
  pthread_mutex_unlock(&dv->mu);
  ul__log(UL__LOG_INFO, "uncaptured %s error: %s",
          type == WGPUErrorType_Validation ? "validation" : type == WGPUErrorType_OutOfMemory ? "out-of-memory" : "internal",
          msg);
  if (cb.callback) {
    WGPUDevice handle = (WGPUDevice)dv;
    cb.callback(&handle, type, (WGPUStringView){msg, strlen(msg)}, cb.userdata1, cb.userdata2);
  }
}

void ul__wg_report(ul__wg_device *dv, ul_status s, const char *what) {
  if (!s || !dv) return;
  char msg[1024];
  snprintf(msg, sizeof msg, "%s", ul_last_error());
  /* The engine gave up on the call because the device was lost again
   * before each try could complete (a loss still pending says so; contents
   * a loss took come back after a recovery that succeeded). webgpu.h has
   * no status for "not done": going on would leave the program with
   * objects and results that silently lack this call, so the device is
   * lost for good instead, and the message says why. */
  if (s == UL_ERR_DEVICE_LOST && ul__engine_loss_pending(dv->ud)) {
    char why[1200];
    snprintf(why, sizeof why, "%s: lost again before each try of it could complete: %s", what, msg);
    ul__wg_device_lose(dv, WGPUDeviceLostReason_Unknown, why);
    return;
  }
  switch (s) {
  case UL_ERR_DEVICE_FAILED: ul__wg_device_lose(dv, WGPUDeviceLostReason_Unknown, msg); return;
  case UL_ERR_LOG_FULL: {
    /* Losses came too densely for a checkpoint to commit, and the log is
     * at its bound: the call was not made. As above, webgpu.h has no
     * status for it, and going on would leave results without it. */
    char why[1200];
    snprintf(why, sizeof why, "%s: not made, the operation log is full: %s", what, msg);
    ul__wg_device_lose(dv, WGPUDeviceLostReason_Unknown, why);
    return;
  }
  case UL_ERR_OUT_OF_MEMORY: ul__wg_error(dv, WGPUErrorType_OutOfMemory, "%s: %s", what, msg); return;
  case UL_ERR_VALIDATION:
  case UL_ERR_SHADER_COMPILE:
  case UL_ERR_INVALID_HANDLE:
  case UL_ERR_INVALID_ARGUMENT:
  case UL_ERR_UNSUPPORTED:
  case UL_ERR_WRONG_STATE:
  case UL_ERR_FORMAT: ul__wg_error(dv, WGPUErrorType_Validation, "%s: %s", what, msg); return;
  default:
    /* Contents a loss took (UL_ERR_DEVICE_LOST names them), timeouts,
     * I/O of a source file: the device's fault, not the program's. */
    ul__wg_error(dv, WGPUErrorType_Internal, "%s: %s", what, msg);
    return;
  }
}

static void lose(ul__wg_device *dv, uint32_t reason, const char *message, void *handle);

void ul__wg_device_lose(ul__wg_device *dv, uint32_t reason, const char *message) { lose(dv, reason, message, dv); }

/* `handle` is what the lost callback gets as the device (NULL at the last
 * release, as the implementation does). */
static void lose(ul__wg_device *dv, uint32_t reason, const char *message, void *handle) {
  if (atomic_exchange(&dv->lost, true)) return;
  dv->lost_reason = reason;
  /* A destroy the program asked for (wgpuDeviceDestroy, the last release)
   * is no loss: its lost callback says Destroyed, as the implementation's
   * would, and the log says so only at debug. */
  if (reason == WGPUDeviceLostReason_Destroyed) ul__log(UL__LOG_DEBUG, "webgpu.h device destroyed: %s", message);
  else ul__log(UL__LOG_WARN, "webgpu.h device lost for good (unlost gave up): %s", message);
  ul__wg_instance *in = dv->instance;
  ul__wg_futures_fail_device(in, dv, message);
  pthread_mutex_lock(&in->mu);
  ul__wg_future *f = NULL;
  for (ul__wg_future *x = in->futures; x; x = x->next)
    if (x->id == dv->lost_future) f = x;
  pthread_mutex_unlock(&in->mu);
  if (f) ul__wg_future_resolve(in, f, reason, reason, handle, message);
}

bool ul__wg_enter(ul__wg_device *dv, const char *what) {
  if (atomic_load(&dv->lost)) return false;
  ul_status s = ul__engine_enter(dv->ud);
  if (!s) return true;
  ul__wg_report(dv, s, what);
  return false;
}

void ul__wg_leave(ul__wg_device *dv) {
  ul__engine_unlock(dv->ud);
  ul__wg_logs_deliver();
}

/* ---- the end of a device ---- */

void ul__wg_device_free(ul__wg_device *dv) {
  ul__wg_instance *in = dv->instance;
  /* The last release destroys the device, as the implementation's does:
   * its lost callback says Destroyed (unless it was lost before). The
   * callback gets no handle: the device is going. */
  if (!atomic_load(&dv->lost)) {
    atomic_store(&dv->h.destroyed, true);
    lose(dv, WGPUDeviceLostReason_Destroyed, "Device was destroyed.", NULL);
  }
  pthread_mutex_lock(&in->mu);
  for (ul__wg_future *x = in->futures; x; x = x->next)
    if (x->kind == UL__WGF_LOST && x->object == dv) x->object = NULL;
  pthread_mutex_unlock(&in->mu);
  if (dv->queue) ul__wg_unhold(dv->queue);
  ul__work_redo_clear(&dv->redo);
  ul__wg_logging_end(dv);
  if (dv->ud) {
    bool failed = atomic_load(&dv->lost) && dv->lost_reason != WGPUDeviceLostReason_Destroyed;
    uint64_t recovery_ns;
    uint64_t recoveries = ul__device_recoveries_ns(dv->ud, &recovery_ns);
    ul__wg_device_gone(dv, recoveries, recovery_ns, failed);
    ul_status s = ul__device_destroy(dv->ud);
    if (s && s != UL_ERR_BUSY) ul__log(UL__LOG_WARN, "webgpu.h device: %s", ul_last_error());
    if (s == UL_ERR_BUSY) ul__wg_count_leaked();
  }
  pthread_mutex_lock(&dv->mu);
  for (uint32_t i = 0; i < dv->nscopes; i++) free(dv->scopes[i].message);
  free(dv->scopes);
  pthread_mutex_unlock(&dv->mu);
  pthread_mutex_destroy(&dv->mu);
  free(dv->features);
  ul__wg_adapter *a = dv->adapter;
  ul__wg_quarantine(dv);
  if (a) ul__wg_unhold(a);
  if (in) ul__wg_unhold(in);
}

/* ---- the entry points ---- */

UL__WG_EXPORT void wgpuDeviceDestroy(WGPUDevice device) {
  ul__wg_device *dv = ul__wg_check(device, UL__WG_DEVICE, "wgpuDeviceDestroy");
  if (!dv || atomic_exchange(&dv->h.destroyed, true)) return;
  /* The program ends its device: the native one goes (its loss says
   * "destroyed", which the engine never recovers), and the program hears
   * of it as of a loss with the reason Destroyed. */
  ul__device_destroy_native(dv->ud);
  ul__wg_device_lose(dv, WGPUDeviceLostReason_Destroyed, "the device was destroyed by the program");
}

UL__WG_EXPORT WGPUQueue wgpuDeviceGetQueue(WGPUDevice device) {
  ul__wg_device *dv = ul__wg_check(device, UL__WG_DEVICE, "wgpuDeviceGetQueue");
  if (!dv) return NULL;
  ul__wg_addref(dv->queue);
  return (WGPUQueue)dv->queue;
}

UL__WG_EXPORT WGPUStatus wgpuDeviceGetLimits(WGPUDevice device, WGPULimits *limits) {
  ul__wg_device *dv = ul__wg_check(device, UL__WG_DEVICE, "wgpuDeviceGetLimits");
  if (!dv || !limits) return WGPUStatus_Error;
  WGPUChainedStruct *chain = limits->nextInChain;
  *limits = dv->limits;
  limits->nextInChain = chain;
  return WGPUStatus_Success;
}

UL__WG_EXPORT WGPUBool wgpuDeviceHasFeature(WGPUDevice device, WGPUFeatureName feature) {
  ul__wg_device *dv = ul__wg_check(device, UL__WG_DEVICE, "wgpuDeviceHasFeature");
  for (uint32_t i = 0; dv && i < dv->features_count; i++)
    if (dv->features[i] == feature) return 1;
  return 0;
}

UL__WG_EXPORT void wgpuDeviceGetFeatures(WGPUDevice device, WGPUSupportedFeatures *features) {
  ul__wg_device *dv = ul__wg_check(device, UL__WG_DEVICE, "wgpuDeviceGetFeatures");
  if (!features) return;
  features->featureCount = 0;
  features->features = NULL;
  if (dv && (features->features = ul__memdup(dv->features, sizeof *dv->features * dv->features_count)))
    features->featureCount = dv->features_count;
}

UL__WG_EXPORT WGPUAdapter wgpuDeviceGetAdapter(WGPUDevice device) {
  ul__wg_device *dv = ul__wg_check(device, UL__WG_DEVICE, "wgpuDeviceGetAdapter");
  if (!dv) return NULL;
  ul__wg_addref(dv->adapter);
  return (WGPUAdapter)dv->adapter;
}

/* Copies a string view into malloc'd memory (NULL data: empty). */
static WGPUStringView sv_dup(WGPUStringView v) {
  size_t n = !v.data ? 0 : v.length == WGPU_STRLEN ? strlen(v.data) : v.length;
  char *p = malloc(n + 1);
  if (!p) return (WGPUStringView){NULL, 0};
  if (n) memcpy(p, v.data, n);
  p[n] = 0;
  return (WGPUStringView){p, n};
}

WGPUStatus ul__wg_info_copy(const ul__wgpu *w, WGPUAdapter native, WGPUAdapterInfo *info);
WGPUStatus ul__wg_info_copy(const ul__wgpu *w, WGPUAdapter native, WGPUAdapterInfo *info) {
  WGPUChainedStruct *chain = info->nextInChain;
  WGPUAdapterInfo raw;
  memset(&raw, 0, sizeof raw);
  if (!native || w->AdapterGetInfo(native, &raw) != WGPUStatus_Success) return WGPUStatus_Error;
  *info = raw;
  info->nextInChain = chain;
  info->vendor = sv_dup(raw.vendor);
  info->architecture = sv_dup(raw.architecture);
  info->device = sv_dup(raw.device);
  info->description = sv_dup(raw.description);
  w->AdapterInfoFreeMembers(raw);
  return WGPUStatus_Success;
}

UL__WG_EXPORT WGPUStatus wgpuDeviceGetAdapterInfo(WGPUDevice device, WGPUAdapterInfo *info) {
  ul__wg_device *dv = ul__wg_check(device, UL__WG_DEVICE, "wgpuDeviceGetAdapterInfo");
  if (!dv || !info) return WGPUStatus_Error;
  ul_device *d = dv->ud;
  ul__engine_lock(d);
  WGPUStatus st = ul__wg_info_copy(&d->env->lib.procs, d->adapter, info);
  ul__engine_unlock(d);
  return st;
}

UL__WG_EXPORT void wgpuAdapterInfoFreeMembers(WGPUAdapterInfo info) {
  free((void *)info.vendor.data);
  free((void *)info.architecture.data);
  free((void *)info.device.data);
  free((void *)info.description.data);
}

UL__WG_EXPORT void wgpuSupportedFeaturesFreeMembers(WGPUSupportedFeatures features) {
  free((void *)features.features);
}

UL__WG_EXPORT void wgpuDevicePushErrorScope(WGPUDevice device, WGPUErrorFilter filter) {
  ul__wg_device *dv = ul__wg_check(device, UL__WG_DEVICE, "wgpuDevicePushErrorScope");
  if (!dv) return;
  if (filter < WGPUErrorFilter_Validation || filter > WGPUErrorFilter_Internal) {
    ul__wg_error(dv, WGPUErrorType_Validation, "wgpuDevicePushErrorScope: filter %u is not a WGPUErrorFilter", filter);
    return;
  }
  pthread_mutex_lock(&dv->mu);
  if (dv->nscopes == dv->scopes_cap) {
    uint32_t ncap = dv->scopes_cap ? dv->scopes_cap * 2 : 16;
    ul__wg_scope *n = realloc(dv->scopes, sizeof *n * ncap);
    if (!n) {
      pthread_mutex_unlock(&dv->mu);
      ul__wg_error(dv, WGPUErrorType_OutOfMemory, "wgpuDevicePushErrorScope: out of host memory");
      return;
    }
    dv->scopes = n;
    dv->scopes_cap = ncap;
  }
  dv->scopes[dv->nscopes++] = (ul__wg_scope){filter, WGPUErrorType_NoError, NULL};
  pthread_mutex_unlock(&dv->mu);
}

UL__WG_EXPORT WGPUFuture wgpuDevicePopErrorScope(WGPUDevice device, WGPUPopErrorScopeCallbackInfo info) {
  ul__wg_device *dv;
  ul__wg_future *f = UL__WG_FUTURE_FOR(device, UL__WG_DEVICE, "wgpuDevicePopErrorScope", UL__WGF_POP_SCOPE, false, info,
                                       &dv);
  if (!f) return (WGPUFuture){0};
  uint32_t status = WGPUPopErrorScopeStatus_Success, type = WGPUErrorType_NoError;
  char *msg = NULL;
  const char *text = "";
  pthread_mutex_lock(&dv->mu);
  if (!dv->nscopes) {
    status = WGPUPopErrorScopeStatus_Error;
    text = "no error scope to pop";
  } else {
    ul__wg_scope sc = dv->scopes[--dv->nscopes];
    /* A device lost to the program has no errors to tell. */
    if (!atomic_load(&dv->lost)) type = sc.type;
    msg = sc.message;
    if (msg && type != WGPUErrorType_NoError) text = msg;
  }
  pthread_mutex_unlock(&dv->mu);
  WGPUFuture id = ul__wg_future_id(f);
  ul__wg_future_resolve(dv->instance, f, status, type, NULL, text);
  free(msg);
  return id;
}

UL__WG_EXPORT WGPUFuture wgpuDeviceGetLostFuture(WGPUDevice device) {
  ul__wg_device *dv = ul__wg_check(device, UL__WG_DEVICE, "wgpuDeviceGetLostFuture");
  return (WGPUFuture){dv ? dv->lost_future : 0};
}

UL__WG_EXPORT void wgpuDeviceTick(WGPUDevice device) {
  ul__wg_device *dv = ul__wg_check(device, UL__WG_DEVICE, "wgpuDeviceTick");
  if (dv) ul__wg_progress(dv->instance, false);
}

/* Drills: the program loses the native device through the implementation
 * (a recovery follows, as for any loss). */
UL__WG_EXPORT void wgpuDeviceForceLoss(WGPUDevice device, WGPUDeviceLostReason type, WGPUStringView message) {
  ul__wg_device *dv = ul__wg_check(device, UL__WG_DEVICE, "wgpuDeviceForceLoss");
  if (!dv || atomic_load(&dv->lost)) return;
  char msg[256];
  ul__sv_copy(message, msg, sizeof msg);
  UL__UNUSED(type);
  if (ul__device_force_loss(dv->ud, msg[0] ? msg : "forced by the program (wgpuDeviceForceLoss)"))
    ul__log(UL__LOG_INFO, "wgpuDeviceForceLoss: %s", ul_last_error());
}

UL__WG_EXPORT void wgpuDeviceInjectError(WGPUDevice device, WGPUErrorType type, WGPUStringView message) {
  ul__wg_device *dv = ul__wg_check(device, UL__WG_DEVICE, "wgpuDeviceInjectError");
  if (!dv) return;
  char msg[512];
  ul__sv_copy(message, msg, sizeof msg);
  if (type != WGPUErrorType_Validation && type != WGPUErrorType_OutOfMemory) {
    ul__wg_error(dv, WGPUErrorType_Validation, "Invalid injected error, must be Validation or OutOfMemory");
    return;
  }
  ul__wg_error(dv, type, "%s", msg);
}
