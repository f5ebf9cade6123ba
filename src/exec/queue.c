/* Submission serials, waiting for the queue, asynchronous reads. */
#include "exec/oplog.h"

uint64_t ul__queue_submit(ul_device *d, WGPUCommandBuffer cb) {
  d->wgpu->QueueSubmit(d->queue, 1, &cb);
  return ++d->res->submit_serial;
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
  uint64_t target = d->res->submit_serial;
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
  else d->res->done_serial = UL__MAX(d->res->done_serial, target);
  free(w);
  return s;
}

ul_status ul_device_wait(ul_device *d, uint64_t serial, uint32_t timeout_ms) {
  if (!d) return ul__fail(UL_ERR_INVALID_ARGUMENT, "wait: device is NULL");
  ul_status s = ul__device_enter_ex(d, false);
  if (s) return ul__wrap(s, "wait");
  if (serial > d->res->submit_serial) {
    s = ul__fail(UL_ERR_INVALID_ARGUMENT, "wait: serial %llu was never submitted",
                 (unsigned long long)serial);
  } else if (serial == 0 || serial > d->res->done_serial) {
    uint64_t tmo = timeout_ms ? (uint64_t)timeout_ms * 1000000ull : 30000000000ull;
    /* After a loss the work is replayed on the new device; wait for that. */
    ul__retry rt = UL__RETRY_LOSSES;
    do {
      s = ul__queue_wait_idle(d, tmo);
    } while (ul__retry_again(d, &s, &rt));
  }
  ul__device_unlock(d);
  return s ? ul__wrap(s, "wait") : UL_OK;
}

ul_status ul_device_wait_idle(ul_device *d, uint32_t timeout_ms) {
  return ul_device_wait(d, 0, timeout_ms);
}

