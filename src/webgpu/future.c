/* Futures of the webgpu.h front door, and every way to wait for them:
 * WaitAny, ProcessEvents, and the three callback modes. A future's outcome
 * is the layer's, not a native device's: a map or a work-done caught by a
 * loss is started again on the recovered device (after the replay) and
 * answers with what it would have had at its place in the queue. Callbacks
 * run with no lock held: WaitAnyOnly ones in WaitAny, AllowProcessEvents
 * ones in ProcessEvents and WaitAny, AllowSpontaneous ones as soon as the
 * outcome is known (on the thread that learns it). A future is freed once
 * its callback ran; an id below the next one that is not found is a
 * future that completed. */
#include "webgpu/wg.h"

WGPUFuture ul__wg_future_id(const ul__wg_future *f) { return (WGPUFuture){f ? f->id : 0}; }

ul__wg_future *ul__wg_future_new(ul__wg_instance *in, ul__wg_future_kind kind, uint32_t mode, void *callback,
                                 void *u1, void *u2) {
  ul__wg_future *f = calloc(1, sizeof *f);
  if (!f) return NULL;
  f->kind = kind;
  f->mode = mode >= WGPUCallbackMode_WaitAnyOnly && mode <= WGPUCallbackMode_AllowSpontaneous
                ? mode
                : WGPUCallbackMode_AllowSpontaneous;
  f->callback = callback;
  f->u1 = u1;
  f->u2 = u2;
  pthread_mutex_lock(&in->mu);
  f->id = in->next_future++;
  f->next = in->futures;
  in->futures = f;
  pthread_mutex_unlock(&in->mu);
  return f;
}

/* Unlinks and frees `f` (under in->mu). */
static void unlink_free(ul__wg_instance *in, ul__wg_future *f) {
  for (ul__wg_future **pp = &in->futures; *pp; pp = &(*pp)->next) {
    if (*pp != f) continue;
    *pp = f->next;
    break;
  }
  free(f->message);
  for (size_t i = 0; i < f->info.messageCount; i++) free((void *)f->info.messages[i].message.data);
  free((void *)f->info.messages);
  free(f);
}

/* What a pending future holds goes with its outcome (a map's buffer with
 * its callback: the map becomes the buffer's state then). */
static void let_go(ul__wg_future *f) {
  if (f->cb) {
    ul__cb_unref(f->cb);
    f->cb = NULL;
  }
  if (f->dev) {
    ul__wg_unhold(f->dev);
    f->dev = NULL;
  }
}

static void let_go_target(ul__wg_future *f) {
  if (f->target) {
    ul__wg_unhold(f->target);
    f->target = NULL;
  }
}

static void call(ul__wg_future *f) {
  WGPUStringView msg = {f->message ? f->message : "", f->message ? strlen(f->message) : 0};
  switch (f->kind) {
  case UL__WGF_ADAPTER:
    ((WGPURequestAdapterCallback)f->callback)(f->status, f->object, msg, f->u1, f->u2);
    break;
  case UL__WGF_DEVICE: ((WGPURequestDeviceCallback)f->callback)(f->status, f->object, msg, f->u1, f->u2); break;
  case UL__WGF_MAP: ((WGPUBufferMapCallback)f->callback)(f->status, msg, f->u1, f->u2); break;
  case UL__WGF_WORK_DONE: ((WGPUQueueWorkDoneCallback)f->callback)(f->status, msg, f->u1, f->u2); break;
  case UL__WGF_POP_SCOPE:
    ((WGPUPopErrorScopeCallback)f->callback)(f->status, f->type, msg, f->u1, f->u2);
    break;
  case UL__WGF_COMPILATION_INFO:
    ((WGPUCompilationInfoCallback)f->callback)(f->status, &f->info, f->u1, f->u2);
    break;
  case UL__WGF_PIPELINE:
    ((WGPUCreateComputePipelineAsyncCallback)f->callback)(f->status, f->object, msg, f->u1, f->u2);
    break;
  case UL__WGF_LOST: {
    WGPUDevice dev = f->object;
    ((WGPUDeviceLostCallback)f->callback)(&dev, f->type, msg, f->u1, f->u2);
    break;
  }
  }
}

/* Runs f's callback once, on this thread, no lock held; then frees it.
 * False when another thread has it, or it is not ready. */
static bool fire(ul__wg_instance *in, ul__wg_future *f) {
  pthread_mutex_lock(&in->mu);
  if (!f->ready || f->fired || f->firing) {
    pthread_mutex_unlock(&in->mu);
    return false;
  }
  f->firing = true;
  pthread_mutex_unlock(&in->mu);
  if (f->kind == UL__WGF_MAP) ul__wg_map_told(f);
  if (f->callback) call(f);
  let_go_target(f);
  pthread_mutex_lock(&in->mu);
  f->fired = true;
  unlink_free(in, f);
  pthread_mutex_unlock(&in->mu);
  return true;
}

void ul__wg_future_resolve(ul__wg_instance *in, ul__wg_future *f, uint32_t status, uint32_t type, void *object,
                           const char *message) {
  pthread_mutex_lock(&in->mu);
  if (f->ready) {
    pthread_mutex_unlock(&in->mu);
    return;
  }
  f->status = status;
  f->type = type;
  f->object = object;
  free(f->message);
  f->message = message && *message ? ul__strdup(message) : NULL;
  let_go(f);
  f->ready = true;
  bool now = f->mode == WGPUCallbackMode_AllowSpontaneous;
  pthread_mutex_unlock(&in->mu);
  if (now) fire(in, f);
}

/* Moves a pending future on (without waiting when wait_ns is 0). */
static bool advance(ul__wg_instance *in, ul__wg_future *f, uint64_t wait_ns) {
  switch (f->kind) {
  case UL__WGF_MAP: return ul__wg_map_advance(in, f, wait_ns);
  case UL__WGF_WORK_DONE: return ul__wg_work_done_advance(in, f, wait_ns);
  case UL__WGF_LOST: {
    /* A loss not yet processed is processed now: it ends in a recovery,
     * or in the device lost to the program (which resolves this). */
    ul__wg_device *dv = f->object;
    if (dv && !atomic_load(&dv->lost) && ul__device_loss_pending(dv->ud) && ul__wg_enter(dv, "wait"))
      ul__wg_leave(dv);
    return f->ready;
  }
  default: return f->ready;
  }
}

/* Snapshot of the pending futures that need moving on (their ids). */
static uint32_t pending_ids(ul__wg_instance *in, uint64_t *ids, uint32_t cap) {
  uint32_t n = 0;
  pthread_mutex_lock(&in->mu);
  for (ul__wg_future *f = in->futures; f && n < cap; f = f->next)
    if (!f->ready && (f->kind == UL__WGF_MAP || f->kind == UL__WGF_WORK_DONE || f->kind == UL__WGF_LOST))
      ids[n++] = f->id;
  pthread_mutex_unlock(&in->mu);
  return n;
}

static ul__wg_future *find(ul__wg_instance *in, uint64_t id) {
  for (ul__wg_future *f = in->futures; f; f = f->next)
    if (f->id == id) return f;
  return NULL;
}

/* Futures are driven by one thread at a time each: `firing` marks the
 * callback; `advancing` would be its twin for the native part, which the
 * advance functions keep safe by taking the device's lock. */
static void advance_id(ul__wg_instance *in, uint64_t id, uint64_t wait_ns) {
  pthread_mutex_lock(&in->mu);
  ul__wg_future *f = find(in, id);
  bool go = f && !f->ready && !f->firing;
  if (go) f->firing = true; /* keeps it from being freed while advanced */
  pthread_mutex_unlock(&in->mu);
  if (!go) return;
  advance(in, f, wait_ns);
  pthread_mutex_lock(&in->mu);
  f->firing = false;
  bool now = f->ready && f->mode == WGPUCallbackMode_AllowSpontaneous;
  pthread_mutex_unlock(&in->mu);
  if (now) fire(in, f);
}

/* The implementation's events are pumped at most once per
 * UL__WG_PUMP_NS, however fast a program polls: a poll loop costs the
 * implementation nothing, and a fault schedule that counts calls counts
 * time spent polling as little. */
#define UL__WG_PUMP_NS 250000ull
static _Atomic uint64_t g_last_pump;

void ul__wg_pump(ul_env *env, WGPUInstance inst) {
  uint64_t now = ul__now_ns(), last = atomic_load(&g_last_pump);
  if (now - last < UL__WG_PUMP_NS || !atomic_compare_exchange_strong(&g_last_pump, &last, now)) return;
  env->wgpu->InstanceProcessEvents(inst);
}

void ul__wg_progress(ul__wg_instance *in, bool spontaneous_only) {
  ul__wg_pump(in->env, in->env->instance);
  uint64_t ids[256];
  uint32_t n = pending_ids(in, ids, UL__COUNT_OF(ids));
  for (uint32_t i = 0; i < n; i++) advance_id(in, ids[i], 0);
  /* The ready ones this call may run. */
  for (;;) {
    ul__wg_future *pick = NULL;
    pthread_mutex_lock(&in->mu);
    for (ul__wg_future *f = in->futures; f && !pick; f = f->next) {
      if (!f->ready || f->fired || f->firing) continue;
      if (f->mode == WGPUCallbackMode_AllowSpontaneous ||
          (!spontaneous_only && f->mode == WGPUCallbackMode_AllowProcessEvents))
        pick = f;
    }
    pthread_mutex_unlock(&in->mu);
    if (!pick || !fire(in, pick)) break;
  }
}

UL__WG_EXPORT void wgpuInstanceProcessEvents(WGPUInstance instance) {
  ul__wg_instance *in = ul__wg_check(instance, UL__WG_INSTANCE, "wgpuInstanceProcessEvents");
  if (in) ul__wg_progress(in, false);
}

UL__WG_EXPORT WGPUWaitStatus wgpuInstanceWaitAny(WGPUInstance instance, size_t count, WGPUFutureWaitInfo *futures,
                                                 uint64_t timeoutNS) {
  ul__wg_instance *in = ul__wg_check(instance, UL__WG_INSTANCE, "wgpuInstanceWaitAny");
  if (!in || (count && !futures)) return WGPUWaitStatus_Error;
  if (count > 64) return WGPUWaitStatus_Error;
  uint64_t start = ul__now_ns();
  for (bool polled = false;; polled = true) {
    bool any = false;
    for (size_t i = 0; i < count; i++) {
      uint64_t id = futures[i].future.id;
      pthread_mutex_lock(&in->mu);
      ul__wg_future *f = find(in, id);
      bool known = f || (id > 0 && id < in->next_future);
      bool ready = f ? f->ready : known;
      pthread_mutex_unlock(&in->mu);
      if (!known) return WGPUWaitStatus_Error;
      if (!ready) continue;
      if (f) fire(in, f);
      /* Another thread may be running its callback: it is complete once
       * that returns. */
      for (;;) {
        pthread_mutex_lock(&in->mu);
        bool busy = find(in, id) != NULL;
        pthread_mutex_unlock(&in->mu);
        if (!busy) break;
        ul__sleep_ns(20000);
      }
      futures[i].completed = 1;
      any = true;
    }
    if (any) return WGPUWaitStatus_Success;
    uint64_t waited = ul__now_ns() - start;
    /* A wait of 0 is a poll: each future is looked at once (its native
     * work may be done) before the answer is TimedOut. */
    if (timeoutNS == 0) {
      if (polled) return WGPUWaitStatus_TimedOut;
      for (size_t i = 0; i < count; i++) advance_id(in, futures[i].future.id, 0);
      continue;
    }
    if (waited >= timeoutNS) return WGPUWaitStatus_TimedOut;
    /* Move the waited ones on: the first waits a slice for its native
     * future (losses are looked at between slices), the others are only
     * looked at. */
    uint64_t slice = UL__MIN(timeoutNS - waited, 20000000ull);
    bool waited_one = false;
    for (size_t i = 0; i < count; i++) {
      advance_id(in, futures[i].future.id, waited_one ? 0 : slice);
      waited_one = true;
    }
    if (!waited_one) ul__sleep_ns(slice);
  }
}

void ul__wg_futures_fail_device(ul__wg_instance *in, ul__wg_device *dv, const char *why) {
  for (;;) {
    ul__wg_future *pick = NULL;
    pthread_mutex_lock(&in->mu);
    for (ul__wg_future *f = in->futures; f && !pick; f = f->next)
      if (!f->ready && f->dev == dv && (f->kind == UL__WGF_MAP || f->kind == UL__WGF_WORK_DONE)) pick = f;
    pthread_mutex_unlock(&in->mu);
    if (!pick) break;
    if (pick->kind == UL__WGF_MAP) {
      ul__wg_buffer *b = (ul__wg_buffer *)pick->target;
      pthread_mutex_lock(&b->mu);
      if (b->pending == pick->id) {
        b->map_state = UL__WG_UNMAPPED;
        b->pending = 0;
      }
      pthread_mutex_unlock(&b->mu);
      ul__wg_future_resolve(in, pick, WGPUMapAsyncStatus_Aborted, 0, NULL, why);
    } else {
      /* The implementation answers a lost device's work-done with success. */
      ul__wg_future_resolve(in, pick, WGPUQueueWorkDoneStatus_Success, 0, NULL, "");
    }
  }
}

void ul__wg_futures_free(ul__wg_instance *in) {
  /* Callbacks never run get CallbackCancelled (2 for every status enum
   * but the lost reason's, which has its own CallbackCancelled, 3). */
  for (;;) {
    pthread_mutex_lock(&in->mu);
    ul__wg_future *f = in->futures;
    if (f) in->futures = f->next;
    pthread_mutex_unlock(&in->mu);
    if (!f) break;
    if (!f->ready) {
      let_go(f);
      f->status = 2;
      f->type = WGPUDeviceLostReason_CallbackCancelled;
      free(f->message);
      f->message = ul__strdup("A valid external Instance reference no longer exists.");
      f->object = f->kind == UL__WGF_LOST ? f->object : NULL;
    }
    if (!f->fired && f->kind == UL__WGF_MAP) ul__wg_map_told(f);
    if (!f->fired && f->callback) call(f);
    let_go_target(f);
    f->next = NULL;
    free(f->message);
    for (size_t i = 0; i < f->info.messageCount; i++) free((void *)f->info.messages[i].message.data);
    free((void *)f->info.messages);
    free(f);
  }
}
