/* wgpuDeviceSetLoggingCallback through the layer: the implementation's log
 * messages reach the program's callback, from every native device its
 * device gets across recoveries (the engine sets the callback on each,
 * ul__device_set_logging).
 *
 * The implementation calls back on any thread, inside any of its calls,
 * and so with a device's lock held (a pipeline compiled under it, a
 * rebuild): the program's callback never runs then. A message is queued
 * and delivered once the thread holds no unlost lock (at once when it
 * holds none, else when the door's call leaves the engine, ul__wg_leave).
 * A native device may outlive the door's device (a lost one torn down in
 * the background), so the implementation gets no pointer to it: a slot
 * number and its generation, looked up under log_mu; a message whose slot
 * was given up since is dropped. */
#include "webgpu/wg.h"

#if !UL_WGPU_STABLE /* Dawn's logging callback: not in the stable header */

typedef struct log_slot {
  uint64_t gen; /* odd while the slot is in use */
  WGPULoggingCallbackInfo cb;
} log_slot;

typedef struct log_msg {
  struct log_msg *next;
  uint32_t slot;
  uint64_t gen;
  WGPULoggingType type;
  size_t len;
  char text[];
} log_msg;

static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
static log_slot *slots;
static uint32_t nslots;
static log_msg *pending, **pending_tail = &pending;
static _Atomic bool any_pending;

static void on_native_log(WGPULoggingType type, WGPUStringView message, void *u1, void *u2) {
  size_t n = message.data ? (message.length == WGPU_STRLEN ? strlen(message.data) : message.length) : 0;
  log_msg *m = malloc(sizeof *m + n + 1);
  if (!m) return; /* a log message is not worth more */
  m->next = NULL;
  m->slot = (uint32_t)(uintptr_t)u1;
  m->gen = (uint64_t)(uintptr_t)u2;
  m->type = type;
  m->len = n;
  if (n) memcpy(m->text, message.data, n);
  m->text[n] = 0;
  pthread_mutex_lock(&log_mu);
  *pending_tail = m;
  pending_tail = &m->next;
  atomic_store(&any_pending, true);
  pthread_mutex_unlock(&log_mu);
  ul__wg_logs_deliver();
}

void ul__wg_logs_deliver(void) {
  if (!atomic_load(&any_pending) || ul__log_depth() || ul__wg_in_native) return;
  pthread_mutex_lock(&log_mu);
  log_msg *list = pending;
  pending = NULL;
  pending_tail = &pending;
  atomic_store(&any_pending, false);
  pthread_mutex_unlock(&log_mu);
  while (list) {
    log_msg *m = list;
    list = m->next;
    WGPULoggingCallbackInfo cb = {0};
    pthread_mutex_lock(&log_mu);
    if (m->slot < nslots && slots[m->slot].gen == m->gen) cb = slots[m->slot].cb;
    pthread_mutex_unlock(&log_mu);
    if (cb.callback) cb.callback(m->type, (WGPUStringView){m->text, m->len}, cb.userdata1, cb.userdata2);
    free(m);
  }
}

UL__WG_EXPORT void wgpuDeviceSetLoggingCallback(WGPUDevice device, WGPULoggingCallbackInfo callbackInfo) {
  ul__wg_device *dv = ul__wg_check(device, UL__WG_DEVICE, "wgpuDeviceSetLoggingCallback");
  if (!dv) return;
  if (callbackInfo.nextInChain) {
    ul__wg_error(dv, WGPUErrorType_Validation, "wgpuDeviceSetLoggingCallback: chained sType 0x%x is not kept",
                 callbackInfo.nextInChain->sType);
    return;
  }
  pthread_mutex_lock(&log_mu);
  uint32_t k = dv->log_slot;
  if (!k) { /* slot 0 is never used: 0 means none */
    for (k = 1; k < nslots && slots[k].gen % 2; k++) {
    }
    if (k >= nslots) {
      uint32_t cap = nslots ? nslots * 2 : 8;
      log_slot *p = realloc(slots, sizeof *p * cap);
      if (!p) {
        pthread_mutex_unlock(&log_mu);
        ul__wg_error(dv, WGPUErrorType_Internal, "wgpuDeviceSetLoggingCallback: out of host memory");
        return;
      }
      memset(p + nslots, 0, sizeof *p * (cap - nslots));
      slots = p;
      nslots = cap;
    }
    slots[k].gen++; /* odd: in use */
    dv->log_slot = k;
  }
  slots[k].cb = callbackInfo;
  uint64_t gen = slots[k].gen;
  pthread_mutex_unlock(&log_mu);
  WGPULoggingCallbackInfo native = {0};
  native.callback = on_native_log;
  native.userdata1 = (void *)(uintptr_t)k;
  native.userdata2 = (void *)(uintptr_t)gen;
  ul__device_set_logging(dv->ud, callbackInfo.callback ? native : (WGPULoggingCallbackInfo){0});
}

void ul__wg_logging_end(ul__wg_device *dv) {
  if (!dv->log_slot) return;
  if (dv->ud) ul__device_set_logging(dv->ud, (WGPULoggingCallbackInfo){0});
  pthread_mutex_lock(&log_mu);
  slots[dv->log_slot].gen++; /* even: free; its messages are dropped */
  slots[dv->log_slot].cb = (WGPULoggingCallbackInfo){0};
  pthread_mutex_unlock(&log_mu);
  dv->log_slot = 0;
}

#else
void ul__wg_logs_deliver(void) {}
void ul__wg_logging_end(ul__wg_device *dv) { UL__UNUSED(dv); }
#endif
