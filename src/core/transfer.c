/* Submissions and their serials, waiting for the queue, maps and their
 * waits: the byte and work movement below every object kind. */
#include "core/transfer.h"

/* ---- submissions and the queue ---- */
uint64_t ul__queue_submit(ul_device *d, WGPUCommandBuffer cb) {
  d->wgpu->QueueSubmit(d->queue, 1, &cb);
  return ++d->submit_serial;
}

ul_status ul__copy_submit(ul_device *d, WGPUBuffer src, uint64_t src_offset, WGPUBuffer dst,
                          uint64_t dst_offset, uint64_t size) {
  const ul__wgpu *w = d->wgpu;
  WGPUCommandEncoder e = w->DeviceCreateCommandEncoder(d->device, NULL);
  if (!e) return ul__fail(UL_ERR_OUT_OF_MEMORY, "copy: no command encoder");
  w->CommandEncoderCopyBufferToBuffer(e, src, src_offset, dst, dst_offset, size);
  WGPUCommandBuffer cb = w->CommandEncoderFinish(e, NULL);
  w->CommandEncoderRelease(e);
  if (!cb) return ul__fail(UL_ERR_OUT_OF_MEMORY, "copy: no command buffer");
  ul__queue_submit(d, cb);
  w->CommandBufferRelease(cb);
  return UL_OK;
}

typedef struct ul__done_wait {
  _Atomic bool done;
  uint32_t status;
} ul__done_wait;

static void on_done(uint32_t status, WGPUStringView message, void *u1, void *u2) {
  UL__UNUSED(message);
  UL__UNUSED(u2);
  ul__done_wait *w = u1;
  w->status = status;
  atomic_store(&w->done, true);
}

ul_status ul__queue_wait_idle(ul_device *d, uint64_t timeout_ns) {
  uint64_t target = d->submit_serial;
  ul__done_wait *w = calloc(1, sizeof *w);
  if (!w) return ul__fail(UL_ERR_OUT_OF_MEMORY, "wait: out of host memory");
  WGPUQueueWorkDoneCallbackInfo cb = {0};
  cb.mode = WGPUCallbackMode_WaitAnyOnly;
  cb.callback = on_done;
  cb.userdata1 = w;
  WGPUFuture f = d->wgpu->QueueOnSubmittedWorkDone(d->queue, cb);
  ul_status s = ul__env_wait(d->env, d->instance, f, &w->done, timeout_ns);
  if (s) return s; /* w stays with the callback */
  /* Completion reported after the loss is not proof of execution. */
  if (ul__device_loss_pending(d)) s = ul__fail(UL_ERR_DEVICE_LOST, "the device was lost");
  else if (w->status != WGPUQueueWorkDoneStatus_Success) s = ul__fail(UL_ERR_INTERNAL, "queue work done: status %u", w->status);
  else d->done_serial = UL__MAX(d->done_serial, target);
  free(w);
  return s;
}

/* ---- waiting for maps ---- */
ul__map_wait *ul__map_wait_new(void) {
  ul__map_wait *m = calloc(1, sizeof *m);
  if (m) atomic_store(&m->refs, 2);
  return m;
}

void ul__map_wait_unref(ul__map_wait *m) {
  if (m && atomic_fetch_sub(&m->refs, 1) == 1) free(m);
}

void ul__on_map(uint32_t status, WGPUStringView message, void *u1, void *u2) {
  UL__UNUSED(u2);
  ul__map_wait *m = u1;
  m->status = status;
  ul__sv_copy(message, m->message, sizeof m->message);
  atomic_store(&m->done, true);
  ul__map_wait_unref(m);
}

WGPUFuture ul__map_start(ul_device *d, WGPUBuffer b, uint64_t mode, size_t off, size_t size,
                         uint32_t callback_mode, ul__map_wait **out) {
  WGPUFuture none = {0};
  ul__map_wait *m = *out = ul__map_wait_new();
  if (!m) return none;
  WGPUBufferMapCallbackInfo cb = {0};
  cb.mode = callback_mode;
  cb.callback = ul__on_map;
  cb.userdata1 = m;
  return d->wgpu->BufferMapAsync(b, mode, off, size, cb);
}

bool ul__map_says_lost(ul_device *d, const ul__map_wait *m) {
  if (ul__device_loss_pending(d)) return true;
  if (!m || !strstr(m->message, "lost")) return false;
  ul__device_note_loss(d, m->message);
  return true;
}

ul_status ul__wait_map(ul_device *d, WGPUBuffer b, uint64_t mode, size_t off, size_t size,
                       uint64_t tmo) {
  ul__map_wait *m;
  WGPUFuture f = ul__map_start(d, b, mode, off, size, WGPUCallbackMode_WaitAnyOnly, &m);
  if (!m) return ul__fail(UL_ERR_OUT_OF_MEMORY, "map: out of host memory");
  ul_status s = ul__env_wait(d->env, d->instance, f, &m->done, tmo);
  if (!s && m->status != WGPUMapAsyncStatus_Success)
    s = ul__map_says_lost(d, m) ? ul__fail(UL_ERR_DEVICE_LOST, "map: %s", m->message)
                                : ul__fail(UL_ERR_VALIDATION, "map: %s", m->message);
  ul__map_wait_unref(m);
  return s;
}

