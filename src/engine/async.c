/* Answers asked of the native device through a callback, for a door's
 * futures: the end of the work submitted so far (work done), a buffer's
 * mapping, a shader's compilation messages. Each ask belongs to the epoch of the device it was asked of:
 * one a loss came before is asked again on the recovered device, as
 * recovery work. */
#include "engine/engine.h"
#include "chaos/chaos.h"
#include "core/transfer.h"
#include "recover/recover.h"

void ul__recovery_work(ul_device *d, bool on) {
  if (d->env->chaos) ul__chaos_recovering(d->env->chaos, on);
}

/* The implementation's events are pumped at most once per
 * UL__PUMP_NS, however fast a program polls: a poll loop costs the
 * implementation nothing, and a fault schedule that counts calls counts
 * time spent polling as little. */
#define UL__PUMP_NS 250000ull
static _Atomic uint64_t g_last_pump;

void ul__pump_every(ul_env *env, WGPUInstance inst, uint64_t min_ns) {
  uint64_t now = ul__now_ns(), last = atomic_load(&g_last_pump);
  if (now - last < min_ns || !atomic_compare_exchange_strong(&g_last_pump, &last, now)) return;
  env->wgpu->InstanceProcessEvents(inst);
}

void ul__pump(ul_env *env, WGPUInstance inst) { ul__pump_every(env, inst, UL__PUMP_NS); }

void ul__ask_clear(ul__ask *a) {
  if (a->cb) ul__cb_unref(a->cb);
  a->cb = NULL;
}

/* Waits up to wait_ns for the answer to `a` (0: the implementation's
 * events processed, no wait); whether it came. */
static bool ask_wait(ul_device *d, ul__ask *a, uint64_t wait_ns) {
  if (wait_ns) {
    ul__saved_error keep;
    ul__error_save(&keep);
    ul__env_wait(d->env, d->instance, a->native, &a->cb->done, wait_ns);
    ul__error_restore(&keep);
  } else {
    ul__pump(d->env, d->instance);
  }
  return atomic_load(&a->cb->done);
}

/* Whether the device asked on epoch `epoch` is gone: another epoch, or a
 * loss not recovered from yet. Under d->mu. */
static bool epoch_moved(ul_device *d, uint64_t epoch) { return epoch != d->epoch || ul__device_loss_pending(d); }
static bool ask_moved(ul_device *d, const ul__ask *a) { return epoch_moved(d, a->epoch); }

/* A work-done asked again after a loss: one native ask per epoch answers
 * every pending work-done of the device (each was asked before the loss,
 * so all its work is in the replay, which comes before the ask). Recovery
 * work, not the program's: its calls are not counted as the program's (a
 * fault schedule), and its entry is no progress (the stall bound). Under
 * d->mu. */
static ul__cb *reask_work_done(ul_device *d, ul__work_redo *redo, WGPUFuture *native) {
  if (!redo->cb || redo->epoch != d->epoch) {
    ul__cb *cb = ul__cb_new();
    if (!cb) return NULL;
    WGPUQueueWorkDoneCallbackInfo ci = {NULL, WGPUCallbackMode_AllowProcessEvents, ul__cb_on_status, cb, NULL};
    ul__recovery_work(d, true);
    WGPUFuture nf = d->wgpu->QueueOnSubmittedWorkDone(d->queue, ci);
    ul__recovery_work(d, false);
    if (redo->cb) ul__cb_unref(redo->cb);
    redo->cb = cb; /* the redo's reference (the callback has the other) */
    redo->native = nf;
    redo->epoch = d->epoch;
  }
  atomic_fetch_add(&redo->cb->refs, 1); /* the ask's */
  *native = redo->native;
  return redo->cb;
}

void ul__work_redo_clear(ul__work_redo *redo) {
  if (redo->cb) ul__cb_unref(redo->cb);
  redo->cb = NULL;
}

ul_status ul__work_done_advance(ul_device *d, ul__ask *a, ul__work_redo *redo, uint64_t wait_ns, bool *done) {
  *done = false;
  if (!a->started) {
    bool reask = a->asked;
    ul_status s = reask ? ul__engine_enter_quiet(d) : ul__engine_enter_ex(d, false);
    if (s) return s;
    ul__ask_clear(a);
    if (reask) {
      a->cb = reask_work_done(d, redo, &a->native);
    } else if ((a->cb = ul__cb_new())) {
      WGPUQueueWorkDoneCallbackInfo ci = {NULL, WGPUCallbackMode_AllowProcessEvents, ul__cb_on_status, a->cb, NULL};
      a->native = d->wgpu->QueueOnSubmittedWorkDone(d->queue, ci);
    }
    if (!a->cb) {
      ul__device_unlock(d);
      return UL_ERR_OUT_OF_MEMORY;
    }
    a->epoch = d->epoch;
    a->started = true;
    a->asked = true;
    ul__device_unlock(d);
  }
  if (!atomic_load(&a->cb->done)) {
    /* Asked of a device that was lost since: its answer may never come
     * (the lost device's events can go with it: ggml under loss-every=40
     * waited for one for good). Asked again on the recovered device. */
    ul__device_lock(d);
    bool moved = ask_moved(d, a);
    ul__device_unlock(d);
    if (moved) {
      a->started = false;
      return UL_OK;
    }
    if (!ask_wait(d, a, wait_ns)) return UL_OK;
  }
  /* Done on the device it was asked of, with that device still there
   * (a completion seen after a loss is not proof that the work ran). */
  ul__device_lock(d);
  bool again = ask_moved(d, a);
  /* The caller's callback hears that work got through (the stall bound). */
  if (!again) ul__device_progress(d);
  ul__device_unlock(d);
  if (again) a->started = false;
  else *done = true;
  return UL_OK;
}

void ul__map_advance(ul_device *d, uint32_t id, ul__ask *a, uint64_t mode, size_t offset, size_t size,
                     uint64_t wait_ns, ul__map_outcome *m) {
  m->step = UL__MAP_PENDING;
  m->s = UL_OK;
  m->status = WGPUMapAsyncStatus_Success;
  m->ptr = NULL;
  m->message[0] = 0;
  if (!a->started) {
    /* On the current device: a loss recorded meanwhile is recovered from
     * first (the replay refills the buffer). Asked again after a loss, it
     * is recovery work: no program call (ul__device_enter_quiet), and its
     * calls are not counted as the program's. */
    bool reask = a->asked;
    ul_status s = reask ? ul__engine_enter_quiet(d) : ul__engine_enter_ex(d, false);
    if (s) {
      m->step = UL__MAP_REFUSED;
      m->s = s;
      return;
    }
    ul__obj *o = ul__obj_find(d, id, UL__OBJ_BUFFER);
    if (o && ul__obj_contents(d, o) == UL_ERR_DEVICE_LOST) {
      /* Lost while its contents were put back: started again after the
       * recovery, at the next advance. */
      ul__device_unlock(d);
      return;
    }
    if (!o || o->state == UL__OBJ_LOST) {
      snprintf(m->message, sizeof m->message, "map of buffer '%s': its contents were lost in a device loss%s",
               o && o->label ? o->label : "", o ? ul__obj_lost_why(o) : "");
      ul__device_unlock(d);
      m->step = UL__MAP_LOST;
      return;
    }
    ul__ask_clear(a);
    if (reask) ul__recovery_work(d, true);
    a->native = ul__map_start(d, o->native, mode, offset, size, WGPUCallbackMode_AllowProcessEvents, &a->cb);
    if (reask) ul__recovery_work(d, false);
    a->epoch = d->epoch;
    a->started = true;
    a->asked = true;
    ul__buffer_map_note(d, o, a->cb, a->native, offset, size);
    ul__device_unlock(d);
    if (!a->cb) {
      m->step = UL__MAP_FAILED;
      m->status = WGPUMapAsyncStatus_Error;
      snprintf(m->message, sizeof m->message, "out of host memory");
      return;
    }
    /* Just asked: with no time to wait, its answer cannot be there yet
     * (a pump here would cost a ProcessEvents for nothing). */
    if (!wait_ns) return;
  }
  if (!atomic_load(&a->cb->done)) {
    /* Started on a device that was lost since: its answer may never come
     * (see ul__work_done_advance); started again after the recovery. */
    ul__device_lock(d);
    bool moved = ask_moved(d, a);
    if (moved) {
      ul__buffer_map_forget(ul__obj_find(d, id, UL__OBJ_BUFFER));
      a->started = false;
    }
    ul__device_unlock(d);
    if (moved || !ask_wait(d, a, wait_ns)) return;
  }
  ul__device_lock(d);
  ul__obj *o = ul__obj_find(d, id, UL__OBJ_BUFFER);
  ul__buffer_map_forget(o); /* ended (or made again below) */
  bool again = !o || ask_moved(d, a);
  if (!again && a->cb->status != WGPUMapAsyncStatus_Success && ul__map_says_lost(d, a->cb)) again = true;
  if (again) {
    /* Lost (or recovered by another thread) meanwhile: nothing of this map
     * counts; the next advance recovers and maps the rebuilt buffer. */
    if (o && o->native && a->epoch == d->epoch && a->cb->status == WGPUMapAsyncStatus_Success)
      d->wgpu->BufferUnmap(o->native);
    a->started = false;
    ul__device_unlock(d);
    return;
  }
  if (a->cb->status != WGPUMapAsyncStatus_Success) {
    snprintf(m->message, sizeof m->message, "%s", a->cb->message);
    m->status = a->cb->status;
    ul__device_unlock(d);
    m->step = UL__MAP_FAILED;
    return;
  }
  void *p = mode == WGPUMapMode_Read ? (void *)(uintptr_t)d->wgpu->BufferGetConstMappedRange(o->native, offset, size)
                                     : d->wgpu->BufferGetMappedRange(o->native, offset, size);
  if (p || !size) {
    /* A read delivered: the device makes progress (the stall bound). */
    ul__device_progress(d);
    o->u.buf.mapped = true;
    o->u.buf.map_ptr = p;
    o->u.buf.map_offset = offset;
    o->u.buf.map_size = size;
    o->u.buf.map_mode = (uint32_t)mode;
  } else {
    d->wgpu->BufferUnmap(o->native);
  }
  ul__device_unlock(d);
  m->step = UL__MAP_MAPPED;
  m->ptr = p;
}

ul_status ul__map_end(ul_device *d, uint32_t id, bool device_gone) {
  ul_status s = UL_OK;
  if (!device_gone && !ul__engine_enter_ex(d, false)) {
    ul__obj *o = ul__obj_find(d, id, UL__OBJ_BUFFER);
    if (o && o->u.buf.mapped) s = ul__buffer_unmap(d, id);
    else if (o && o->native) d->wgpu->BufferUnmap(o->native); /* a native map still on its way */
    ul__buffer_map_forget(o);
    ul__device_unlock(d);
    return s;
  }
  /* The device is gone for the caller: the mapping ends with its buffer. */
  ul__saved_error keep;
  ul__error_save(&keep);
  ul__device_lock(d);
  ul__obj *o = ul__obj_find(d, id, UL__OBJ_BUFFER);
  if (o && o->native && !o->u.buf.map_old) d->wgpu->BufferUnmap(o->native);
  ul__buffer_map_forget(o);
  if (o && o->u.buf.mapped) {
    ul__buffer_drop_kept_map(d, o);
    o->u.buf.mapped = false;
    o->u.buf.map_ptr = NULL;
  }
  ul__device_unlock(d);
  ul__error_restore(&keep);
  return UL_OK;
}

ul_status ul__shader_info_ask(ul_device *d, uint32_t id, const char *wgsl, size_t len,
                              WGPUCompilationInfoCallbackInfo ci, ul__native_ask *q, bool *asked) {
  *asked = false;
  const ul__wgpu *w = d->wgpu;
  /* The device made usable first (a recorded loss recovered from), so the
   * messages come from a native device that works. */
  ul_status s = ul__engine_enter_ex(d, false);
  if (s) return s;
  q->epoch = d->epoch;
  ul__obj *o = id ? ul__obj_find(d, id, UL__OBJ_SHADER) : NULL;
  WGPUShaderModule m = o ? o->native : NULL;
  bool own = false;
  if (!m && wgsl && d->device) {
    /* A module that did not compile keeps no native one: compiled again
     * here, only for its messages. */
    WGPUShaderSourceWGSL src = {{NULL, WGPUSType_ShaderSourceWGSL}, {wgsl, len}};
    WGPUShaderModuleDescriptor sd = {(WGPUChainedStruct *)&src, {NULL, 0}};
    uint64_t mark = atomic_load(&d->uncaptured_errors);
    m = w->DeviceCreateShaderModule(d->device, &sd);
    char ignored[16];
    ul__device_uncaptured_since(d, mark, ignored, sizeof ignored); /* the caller's scope hears it once, at create */
    own = true;
  }
  q->native = (WGPUFuture){0};
  if (m) q->native = w->ShaderModuleGetCompilationInfo(m, ci);
  q->instance = d->instance;
  if (own && m) w->ShaderModuleRelease(m);
  ul__device_unlock(d);
  *asked = m != NULL;
  return UL_OK;
}

ul_status ul__native_ask_wait(ul_device *d, const ul__native_ask *q, _Atomic bool *done, uint64_t timeout_ns) {
  ul__saved_error keep;
  ul__error_save(&keep);
  ul_status s = ul__env_wait(d->env, q->instance, q->native, done, timeout_ns);
  ul__error_restore(&keep);
  return s;
}

bool ul__native_ask_moved(ul_device *d, const ul__native_ask *q) {
  ul__device_lock(d);
  bool moved = epoch_moved(d, q->epoch);
  ul__device_unlock(d);
  return moved;
}
