/* Submissions and their serials, waiting for the queue, maps and their
 * waits: the byte and work movement below every object kind. */
#include "core/transfer.h"

/* ---- submissions and the queue ---- */
uint64_t ul__queue_submit(ul_device *d, WGPUCommandBuffer cb) {
  d->wgpu->QueueSubmit(d->queue, 1, &cb);
  return ++d->submit_serial;
}

/* One copy, buffer to buffer or texture to buffer. */
typedef struct copy_args {
  WGPUBuffer src, dst;
  uint64_t src_offset, dst_offset, size;
  const WGPUTexelCopyTextureInfo *tex; /* set: a texture-to-buffer copy */
  const WGPUTexelCopyBufferInfo *tex_dst;
  const WGPUExtent3D *extent;
} copy_args;

/* The one encode-copy-submit sequence: a fresh encoder, the copies (n of
 * them, the i-th at a[i]), finish, submit (counted), release. */
static ul_status encode_copies_submit(ul_device *d, const copy_args *a, uint32_t n) {
  const ul__wgpu *w = d->wgpu;
  WGPUCommandEncoder e = w->DeviceCreateCommandEncoder(d->device, NULL);
  if (!e) return ul__fail(UL_ERR_OUT_OF_MEMORY, "copy: no command encoder");
  for (uint32_t i = 0; i < n; i++) {
    if (a[i].tex) w->CommandEncoderCopyTextureToBuffer(e, a[i].tex, a[i].tex_dst, a[i].extent);
    else w->CommandEncoderCopyBufferToBuffer(e, a[i].src, a[i].src_offset, a[i].dst, a[i].dst_offset, a[i].size);
  }
  WGPUCommandBuffer cb = w->CommandEncoderFinish(e, NULL);
  w->CommandEncoderRelease(e);
  if (!cb) return ul__fail(UL_ERR_OUT_OF_MEMORY, "copy: no command buffer");
  ul__queue_submit(d, cb);
  w->CommandBufferRelease(cb);
  return UL_OK;
}

ul_status ul__copy_submit(ul_device *d, WGPUBuffer src, uint64_t src_offset, WGPUBuffer dst,
                          uint64_t dst_offset, uint64_t size) {
  copy_args a = {.src = src, .dst = dst, .src_offset = src_offset, .dst_offset = dst_offset, .size = size};
  return encode_copies_submit(d, &a, 1);
}

ul_status ul__copies_submit(ul_device *d, const WGPUBuffer *srcs, uint32_t n, uint64_t size, WGPUBuffer dst,
                            uint64_t dst_offset) {
  copy_args a[8];
  if (n > UL__COUNT_OF(a)) return ul__fail(UL_ERR_INTERNAL, "copy: %u copies in one submission, at most 8", n);
  for (uint32_t i = 0; i < n; i++)
    a[i] = (copy_args){.src = srcs[i], .dst = dst, .dst_offset = dst_offset + (uint64_t)i * size, .size = size};
  return encode_copies_submit(d, a, n);
}

ul_status ul__copy_texture_submit(ul_device *d, const WGPUTexelCopyTextureInfo *src,
                                  const WGPUTexelCopyBufferInfo *dst, const WGPUExtent3D *extent) {
  copy_args a = {.tex = src, .tex_dst = dst, .extent = extent};
  return encode_copies_submit(d, &a, 1);
}

ul_status ul__queue_work_done_wait(const ul__wgpu *w, ul_env *env, WGPUInstance inst, WGPUQueue q,
                                   uint64_t timeout_ns, uint32_t *status) {
  ul__cb *c = ul__cb_new();
  if (!c) return ul__fail(UL_ERR_OUT_OF_MEMORY, "wait: out of host memory");
  WGPUQueueWorkDoneCallbackInfo cb = {.mode = WGPUCallbackMode_WaitAnyOnly, .callback = ul__cb_on_status, .userdata1 = c};
  WGPUFuture f = w->QueueOnSubmittedWorkDone(q, cb);
  ul_status s = ul__env_wait_with(env, w, inst, f, &c->done, timeout_ns);
  if (!s) *status = c->status;
  ul__cb_unref(c); /* on a timeout the callback frees it when it fires */
  return s;
}

ul_status ul__queue_wait_idle(ul_device *d, uint64_t timeout_ns) {
  uint64_t target = d->submit_serial;
  uint32_t status = 0;
  ul_status s = ul__queue_work_done_wait(d->wgpu, d->env, d->instance, d->queue, timeout_ns, &status);
  if (s) return s;
  /* Completion reported after the loss is not proof of execution. */
  if (ul__device_loss_pending(d)) s = ul__fail(UL_ERR_DEVICE_LOST, "the device was lost");
  else if (status != WGPUQueueWorkDoneStatus_Success) s = ul__fail(UL_ERR_INTERNAL, "queue work done: status %u", status);
  else {
    d->done_serial = UL__MAX(d->done_serial, target);
    ul__flight_done_upto(d, target, ul__now_ns());
  }
  return s;
}

/* ---- waiting for maps ---- */
WGPUFuture ul__map_start(ul_device *d, WGPUBuffer b, uint64_t mode, size_t off, size_t size,
                         uint32_t callback_mode, ul__cb **out) {
  WGPUFuture none = {0};
  ul__cb *m = *out = ul__cb_new();
  if (!m) return none;
  WGPUBufferMapCallbackInfo cb = {0};
  cb.mode = callback_mode;
  cb.callback = ul__cb_on_status;
  cb.userdata1 = m;
  return d->wgpu->BufferMapAsync(b, mode, off, size, cb);
}

bool ul__map_says_lost(ul_device *d, const ul__cb *m) {
  if (ul__device_loss_pending(d)) return true;
  if (!m || !strstr(m->message, "lost")) return false;
  ul__device_note_loss(d, m->message);
  return true;
}

ul_status ul__wait_map(ul_device *d, WGPUBuffer b, uint64_t mode, size_t off, size_t size,
                       uint64_t tmo) {
  ul__cb *m;
  WGPUFuture f = ul__map_start(d, b, mode, off, size, WGPUCallbackMode_WaitAnyOnly, &m);
  if (!m) return ul__fail(UL_ERR_OUT_OF_MEMORY, "map: out of host memory");
  ul_status s = ul__env_wait(d->env, d->instance, f, &m->done, tmo);
  if (!s && m->status != WGPUMapAsyncStatus_Success)
    s = ul__map_says_lost(d, m) ? ul__fail(UL_ERR_DEVICE_LOST, "map: %s", m->message)
                                : ul__fail(UL_ERR_VALIDATION, "map: %s", m->message);
  ul__cb_unref(m);
  return s;
}

