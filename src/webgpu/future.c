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

static ul__wg_future *future_new(ul__wg_instance *in, ul__wg_future_kind kind, uint32_t mode, void *callback,
                                 void *u1, void *u2, bool held) {
  ul__wg_future *f = calloc(1, sizeof *f);
  if (!f) return NULL;
  f->kind = kind;
  f->mode = mode >= WGPUCallbackMode_WaitAnyOnly && mode <= WGPUCallbackMode_AllowSpontaneous
                ? mode
                : WGPUCallbackMode_AllowSpontaneous;
  f->callback = callback;
  f->u1 = u1;
  f->u2 = u2;
  f->moving = held;
  f->holds = held ? 1 : 0;
  pthread_mutex_lock(&in->mu);
  f->id = in->next_future++;
  f->next = in->futures;
  in->futures = f;
  pthread_mutex_unlock(&in->mu);
  return f;
}

ul__wg_future *ul__wg_future_new(ul__wg_instance *in, ul__wg_future_kind kind, uint32_t mode, void *callback,
                                 void *u1, void *u2) {
  return future_new(in, kind, mode, callback, u1, u2, false);
}

ul__wg_future *ul__wg_future_new_held(ul__wg_instance *in, ul__wg_future_kind kind, uint32_t mode, void *callback,
                                      void *u1, void *u2) {
  return future_new(in, kind, mode, callback, u1, u2, true);
}

ul__wg_future *ul__wg_future_for(const void *handle, ul__wg_kind kind, const char *what, ul__wg_future_kind fk,
                                 bool held, uint32_t mode, void *callback, void *u1, void *u2, void **obj) {
  void *o = ul__wg_check(handle, kind, what);
  *obj = o;
  if (!o) return NULL;
  ul__wg_instance *in = kind == UL__WG_INSTANCE  ? o
                        : kind == UL__WG_ADAPTER ? ((ul__wg_adapter *)o)->instance
                        : kind == UL__WG_DEVICE  ? ((ul__wg_device *)o)->instance
                                                 : ((ul__wg_obj *)o)->dev->instance;
  return future_new(in, fk, mode, callback, u1, u2, held);
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
 * its callback: the map becomes the buffer's state then). Under in->mu:
 * the device is returned, for the caller to let go of with no lock held
 * (its last reference frees it, which takes in->mu). */
static ul__wg_device *drop_native(ul__wg_future *f) {
  ul__ask_clear(&f->ask);
  ul__wg_device *dv = f->dev;
  f->dev = NULL;
  return dv;
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

/* Takes f's callback for this thread (under in->mu): false when it is not
 * ready, or another thread has it or ran it. */
static bool take(ul__wg_future *f) {
  if (!f->ready || f->fired || f->firing) return false;
  f->firing = true;
  return true;
}

/* Runs a callback this thread took, no lock held; then frees f, unless a
 * thread holds it (the last to let go frees it). */
static void run_taken(ul__wg_instance *in, ul__wg_future *f) {
  if (f->kind == UL__WGF_MAP) ul__wg_map_told(f);
  if (f->callback) call(f);
  pthread_mutex_lock(&in->mu);
  f->fired = true;
  bool free_now = f->holds == 0;
  pthread_mutex_unlock(&in->mu);
  if (!free_now) return;
  let_go_target(f);
  pthread_mutex_lock(&in->mu);
  unlink_free(in, f);
  pthread_mutex_unlock(&in->mu);
}

/* Drops a hold on f (`mover`: the one of the thread that moved it on).
 * What a resolved future held natively goes once nobody moves it on; a
 * ready AllowSpontaneous callback runs now; the last hold of a future
 * whose callback ran frees it. */
static void release(ul__wg_instance *in, ul__wg_future *f, bool mover) {
  pthread_mutex_lock(&in->mu);
  if (mover) f->moving = false;
  f->holds--;
  ul__wg_device *dv = f->ready && !f->moving ? drop_native(f) : NULL;
  bool gone = f->fired && f->holds == 0;
  bool now = !gone && f->mode == WGPUCallbackMode_AllowSpontaneous && take(f);
  pthread_mutex_unlock(&in->mu);
  if (dv) ul__wg_unhold(dv);
  if (gone) {
    let_go_target(f);
    pthread_mutex_lock(&in->mu);
    unlink_free(in, f);
    pthread_mutex_unlock(&in->mu);
  } else if (now) {
    run_taken(in, f);
  }
}

void ul__wg_future_let_go(ul__wg_instance *in, ul__wg_future *f) { release(in, f, true); }

void ul__wg_future_unhold(ul__wg_instance *in, ul__wg_future *f) { release(in, f, false); }

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
  /* The native part of a future being moved on is its mover's until it
   * lets go (release). */
  ul__wg_device *dv = f->moving ? NULL : drop_native(f);
  f->ready = true;
  bool now = f->mode == WGPUCallbackMode_AllowSpontaneous && take(f);
  pthread_mutex_unlock(&in->mu);
  if (dv) ul__wg_unhold(dv);
  if (now) run_taken(in, f);
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
    if (dv && !atomic_load(&dv->lost) && ul__engine_loss_pending(dv->ud) && ul__wg_enter(dv, "wait"))
      ul__wg_leave(dv);
    return f->ready;
  }
  default: return f->ready;
  }
}

/* Snapshot of the pending futures that need moving on (their ids), and
 * whether a map or work-done among them may call back spontaneously. */
static uint32_t pending_ids(ul__wg_instance *in, uint64_t *ids, uint32_t cap, bool *spontaneous) {
  uint32_t n = 0;
  *spontaneous = false;
  pthread_mutex_lock(&in->mu);
  for (ul__wg_future *f = in->futures; f && n < cap; f = f->next)
    if (!f->ready && (f->kind == UL__WGF_MAP || f->kind == UL__WGF_WORK_DONE || f->kind == UL__WGF_LOST)) {
      ids[n++] = f->id;
      if (f->kind != UL__WGF_LOST && f->mode == WGPUCallbackMode_AllowSpontaneous) *spontaneous = true;
    }
  pthread_mutex_unlock(&in->mu);
  return n;
}

/* How often a submission pumps the implementation's events when no map or
 * work-done of the program may call back spontaneously: its own done
 * callbacks (the health monitor's, loss forensics') are seen at the
 * program's next wait, or by the monitor before it calls one overdue;
 * a pump at every submission cost a GPU decode a ProcessEvents a token. */
#define UL__WG_PUMP_IDLE_NS 4000000ull

static ul__wg_future *find(ul__wg_instance *in, uint64_t id) {
  for (ul__wg_future *f = in->futures; f; f = f->next)
    if (f->id == id) return f;
  return NULL;
}

/* Futures are moved on by one thread at a time each (`moving`); a thread
 * that uses a future outside in->mu holds it (`holds`: it is not freed
 * meanwhile); callbacks are taken under in->mu (`firing`) and run apart
 * from both. */
static void advance_id(ul__wg_instance *in, uint64_t id, uint64_t wait_ns) {
  pthread_mutex_lock(&in->mu);
  ul__wg_future *f = find(in, id);
  bool go = f && !f->ready && !f->moving;
  if (go) {
    f->moving = true;
    f->holds++;
  }
  pthread_mutex_unlock(&in->mu);
  if (!go) return;
  advance(in, f, wait_ns);
  release(in, f, true);
}

void ul__wg_progress(ul__wg_instance *in, bool spontaneous_only) {
  uint64_t ids[256];
  bool spontaneous;
  uint32_t n = pending_ids(in, ids, UL__COUNT_OF(ids), &spontaneous);
  if (spontaneous_only && !spontaneous) ul__pump_every(in->env, in->env->instance, UL__WG_PUMP_IDLE_NS);
  else ul__pump(in->env, in->env->instance);
  for (uint32_t i = 0; i < n; i++) advance_id(in, ids[i], 0);
  /* The ready ones this call may run. */
  for (;;) {
    ul__wg_future *pick = NULL;
    pthread_mutex_lock(&in->mu);
    for (ul__wg_future *f = in->futures; f && !pick; f = f->next) {
      if (f->mode == WGPUCallbackMode_AllowSpontaneous ||
          (!spontaneous_only && f->mode == WGPUCallbackMode_AllowProcessEvents))
        if (take(f)) pick = f;
    }
    pthread_mutex_unlock(&in->mu);
    if (!pick) break;
    run_taken(in, pick);
  }
}

UL__WG_EXPORT void wgpuInstanceProcessEvents(WGPUInstance instance) {
  ul__wg_instance *in = ul__wg_check(instance, UL__WG_INSTANCE, "wgpuInstanceProcessEvents");
  if (in) ul__wg_progress(in, false);
}

/* The implementation's answers, which a program may rely on: a timed wait
 * is an Error on an instance made without timedWaitAnyEnable, or over more
 * than its timedWaitAnyMaxCount futures; an empty list is a Success; a
 * future that is not pending (its callback ran or is running, on this
 * thread or another, or an id never handed out, 0 included) is completed
 * at once, and the others are then not looked at. Otherwise every waited
 * future found ready has its callback run here and is completed. No lock
 * is held across a callback, and no wait is made for another thread's. */
typedef enum { UL__WG_W_PENDING, UL__WG_W_READY, UL__WG_W_DONE } ul__wg_wstate;

static ul__wg_wstate wait_state(ul__wg_instance *in, uint64_t id) {
  pthread_mutex_lock(&in->mu);
  ul__wg_future *f = find(in, id);
  ul__wg_wstate st = !f || f->fired || f->firing ? UL__WG_W_DONE : f->ready ? UL__WG_W_READY : UL__WG_W_PENDING;
  pthread_mutex_unlock(&in->mu);
  return st;
}

/* Runs the callbacks of the waited futures found ready: true when any was
 * completed (by this thread or, meanwhile, another: an AllowSpontaneous
 * one as it was moved on). */
static bool complete_ready(ul__wg_instance *in, size_t count, WGPUFutureWaitInfo *futures) {
  bool any = false;
  for (size_t i = 0; i < count; i++) {
    uint64_t id = futures[i].future.id;
    pthread_mutex_lock(&in->mu);
    ul__wg_future *f = find(in, id);
    bool pending = f && !f->fired && !f->firing && !f->ready;
    bool mine = f && take(f);
    pthread_mutex_unlock(&in->mu);
    if (pending) continue;
    if (mine) run_taken(in, f);
    futures[i].completed = 1;
    any = true;
  }
  return any;
}

UL__WG_EXPORT WGPUWaitStatus wgpuInstanceWaitAny(WGPUInstance instance, size_t count, WGPUFutureWaitInfo *futures,
                                                 uint64_t timeoutNS) {
  ul__wg_instance *in = ul__wg_check(instance, UL__WG_INSTANCE, "wgpuInstanceWaitAny");
  if (!in || (count && !futures)) return WGPUWaitStatus_Error;
  if (timeoutNS > 0 && (!in->timed || count > in->timed_max)) {
    ul__log(UL__LOG_ERROR, "wgpuInstanceWaitAny: %s", !in->timed ? "timed waits were not enabled "
            "(timedWaitAnyEnable) on this instance" : "more futures than a timed wait takes (timedWaitAnyMaxCount)");
    return WGPUWaitStatus_Error;
  }
  if (!count) return WGPUWaitStatus_Success;
  bool any = false;
  for (size_t i = 0; i < count; i++)
    if (wait_state(in, futures[i].future.id) == UL__WG_W_DONE) {
      futures[i].completed = 1;
      any = true;
    }
  if (any) return WGPUWaitStatus_Success;
  uint64_t start = ul__now_ns();
  for (bool first = true;; first = false) {
    /* Every waited future is looked at (the implementation's events
     * processed first, so that all whose native work is done are seen
     * done together, as the implementation sees its own). One alone, in a
     * wait that may wait, needs no such pass: the wait below asks and
     * waits for it, and its native wait processes its events (the passes
     * cost a GPU decode two ProcessEvents a token). */
    bool alone = count == 1 && timeoutNS > 0;
    if (!alone) in->env->wgpu->InstanceProcessEvents(in->env->instance);
    if (!alone || !first)
      for (size_t i = 0; i < count; i++) advance_id(in, futures[i].future.id, 0);
    if (complete_ready(in, count, futures)) return WGPUWaitStatus_Success;
    uint64_t waited = ul__now_ns() - start;
    if (timeoutNS == 0 || waited >= timeoutNS) return WGPUWaitStatus_TimedOut;
    /* The first pending one waits a slice for its native future (losses
     * are looked at between slices). One another thread moves on (or
     * whose callback runs elsewhere) is looked at again after a short
     * sleep. */
    uint64_t slice = UL__MIN(timeoutNS - waited, 20000000ull);
    bool waited_one = false, moved = false;
    for (size_t i = 0; i < count; i++) {
      if (wait_state(in, futures[i].future.id) != UL__WG_W_PENDING) continue;
      uint64_t t0 = ul__now_ns();
      advance_id(in, futures[i].future.id, slice);
      waited_one = ul__now_ns() - t0 >= slice / 2;
      /* Its answer came within the slice: looked at again at once (a
       * sleep here cost every map a fifth of a millisecond). */
      moved = wait_state(in, futures[i].future.id) != UL__WG_W_PENDING;
      break;
    }
    if (!waited_one && !moved) ul__sleep_ns(UL__MIN(slice, 200000ull));
  }
}

void ul__wg_futures_fail_device(ul__wg_instance *in, ul__wg_device *dv, const char *why) {
  for (;;) {
    ul__wg_future *pick = NULL;
    pthread_mutex_lock(&in->mu);
    for (ul__wg_future *f = in->futures; f && !pick; f = f->next)
      if (!f->ready && f->dev == dv && (f->kind == UL__WGF_MAP || f->kind == UL__WGF_WORK_DONE)) pick = f;
    if (pick) pick->holds++; /* not freed under this thread */
    pthread_mutex_unlock(&in->mu);
    if (!pick) break;
    if (pick->kind == UL__WGF_MAP) {
      ul__wg_buffer *b = (ul__wg_buffer *)pick->target;
      pthread_mutex_lock(ul__wg_buffer_mu(b));
      if (b->pending == pick->id) {
        ul__wg_set_map_state(b, UL__WG_UNMAPPED);
        b->pending = 0;
      }
      pthread_mutex_unlock(ul__wg_buffer_mu(b));
      ul__wg_future_resolve(in, pick, WGPUMapAsyncStatus_Aborted, 0, NULL, why);
    } else {
      /* The implementation answers a lost device's work-done with success. */
      ul__wg_future_resolve(in, pick, WGPUQueueWorkDoneStatus_Success, 0, NULL, "");
    }
    release(in, pick, false);
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
      ul__wg_device *dv = drop_native(f);
      if (dv) ul__wg_unhold(dv);
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
