/* Submission serials, waiting for the queue, asynchronous reads. */
#include "exec/oplog.h"

uint64_t ul__queue_submit(ul_device *d, WGPUCommandBuffer cb) {
  d->wgpu->QueueSubmit(d->queue, 1, &cb);
  return ++d->res->submit_serial;
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
    for (int attempt = 0;; attempt++) {
      s = ul__queue_wait_idle(d, tmo);
      if (s != UL_ERR_DEVICE_LOST || attempt >= UL__MAX_RETRIES_PER_CALL) break;
      /* The work is replayed on the new device; wait for that. */
      if ((s = ul__device_recover_locked(d))) break;
    }
  }
  ul__device_unlock(d);
  return s ? ul__wrap(s, "wait") : UL_OK;
}

ul_status ul_device_wait_idle(ul_device *d, uint32_t timeout_ms) {
  return ul_device_wait(d, 0, timeout_ms);
}

/* Asynchronous reads: the copy is submitted and the staging buffer's map
 * requested at once; ul_device_poll delivers what has arrived. A read
 * caught by a loss is done again, after recovery, from the restored
 * contents. */
typedef struct ul__read {
  struct ul__read *next;
  _Atomic bool mapped;
  uint32_t map_status;
  WGPUBuffer staging;        /* NULL: nothing in flight (read again) */
  uint64_t epoch;
  uint32_t buffer;
  uint64_t offset, size;
  ul_status status;
  void *dst;
  ul_read_fn done;
  void *user;
  char message[256];
} ul__read;

static void on_read_mapped(uint32_t status, WGPUStringView message, void *u1, void *u2) {
  UL__UNUSED(message);
  UL__UNUSED(u2);
  ul__read *r = u1;
  r->map_status = status;
  atomic_store(&r->mapped, true);
}

/* Submits the copy into a staging buffer and asks for its map (under mu). */
static ul_status read_start(ul_device *d, ul__read *r) {
  const ul__wgpu *w = d->wgpu;
  ul__obj *o;
  ul_status s = ul__obj_get(d, r->buffer, UL__OBJ_BUFFER, "read async", &o);
  if (s) return s;
  uint64_t asize = (r->size + 3) & ~3ull;
  WGPUBufferDescriptor bd = {0};
  bd.usage = WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst;
  bd.size = asize;
  r->staging = w->DeviceCreateBuffer(d->device, &bd);
  if (!r->staging) return ul__fail(UL_ERR_OUT_OF_MEMORY, "read async: no staging buffer");
  WGPUCommandEncoder e = w->DeviceCreateCommandEncoder(d->device, NULL);
  w->CommandEncoderCopyBufferToBuffer(e, o->native, r->offset, r->staging, 0, asize);
  WGPUCommandBuffer cb = w->CommandEncoderFinish(e, NULL);
  ul__queue_submit(d, cb);
  w->CommandBufferRelease(cb);
  w->CommandEncoderRelease(e);
  r->epoch = d->epoch;
  atomic_store(&r->mapped, false);
  WGPUBufferMapCallbackInfo mc = {0};
  mc.mode = WGPUCallbackMode_AllowProcessEvents;
  mc.callback = on_read_mapped;
  mc.userdata1 = r;
  w->BufferMapAsync(r->staging, WGPUMapMode_Read, 0, (size_t)asize, mc);
  return UL_OK;
}

static void read_drop_staging(ul_device *d, ul__read *r) {
  if (!r->staging) return;
  d->wgpu->BufferDestroy(r->staging); /* a pending map resolves as aborted */
  d->wgpu->BufferRelease(r->staging);
  r->staging = NULL;
}

ul_status ul_buffer_read_async(ul_device *d, ul_buffer buf, uint64_t offset, void *dst,
                               uint64_t size, ul_read_fn done, void *user) {
  if (!d || !done || (!dst && size)) return ul__fail(UL_ERR_INVALID_ARGUMENT, "read async: NULL argument");
  ul_status s = ul__device_enter(d);
  if (s) return ul__wrap(s, "read async");
  ul__obj *o;
  if ((s = ul__obj_get(d, buf.id, UL__OBJ_BUFFER, "read async", &o))) goto out;
  if (offset % 4 || size % 4 || offset > o->u.buf.size || size > o->u.buf.size - offset || !size) {
    s = ul__fail(UL_ERR_INVALID_ARGUMENT, "read async: range %llu+%llu outside buffer '%s' of %llu bytes (multiples of 4)",
                 (unsigned long long)offset, (unsigned long long)size, o->label ? o->label : "",
                 (unsigned long long)o->u.buf.size);
    goto out;
  }
  if (o->u.buf.usage & (UL_BUFFER_MAP_READ | UL_BUFFER_MAP_WRITE)) {
    s = ul__fail(UL_ERR_INVALID_ARGUMENT, "read async: use ul_buffer_map for mappable buffers");
    goto out;
  }
  ul__read *r = calloc(1, sizeof *r);
  if (!r) {
    s = ul__fail(UL_ERR_OUT_OF_MEMORY, "read async: out of host memory");
    goto out;
  }
  r->buffer = buf.id;
  r->offset = offset;
  r->size = size;
  r->dst = dst;
  r->done = done;
  r->user = user;
  if ((s = read_start(d, r))) {
    read_drop_staging(d, r);
    free(r);
    goto out;
  }
  r->next = d->res->reads;
  d->res->reads = r;
out:
  ul__device_unlock(d);
  return s;
}

int ul_device_poll(ul_device *d) {
  if (!d) return 0;
  if (ul__device_enter_ex(d, false)) return 0;
  if (d->device) d->wgpu->InstanceProcessEvents(d->instance);
  ul__read *ready = NULL, **pp = &d->res->reads;
  while (*pp) {
    ul__read *r = *pp;
    bool finished = false;
    if (r->staging && r->epoch == d->epoch && atomic_load(&r->mapped)) {
      if (r->map_status == WGPUMapAsyncStatus_Success && !ul__device_loss_pending(d)) {
        const void *p = d->wgpu->BufferGetConstMappedRange(r->staging, 0, (size_t)((r->size + 3) & ~3ull));
        if (p) memcpy(r->dst, p, (size_t)r->size);
        r->status = p ? UL_OK : UL_ERR_INTERNAL;
        d->wgpu->BufferUnmap(r->staging);
        finished = true;
      } else {
        read_drop_staging(d, r); /* lost or aborted: read again below */
      }
    }
    if (!finished && (!r->staging || r->epoch != d->epoch)) {
      /* Caught by a loss: read the restored (replayed) contents now. */
      read_drop_staging(d, r);
      ul__obj *o;
      r->status = ul__obj_get(d, r->buffer, UL__OBJ_BUFFER, "read async", &o);
      if (!r->status) r->status = ul__buffer_download(d, o, r->offset, r->dst, r->size, 30000000000ull);
      finished = true;
    }
    if (finished) {
      if (r->status) snprintf(r->message, sizeof r->message, "%s", ul_last_error());
      read_drop_staging(d, r);
      *pp = r->next;
      r->next = ready;
      ready = r;
    } else {
      pp = &r->next;
    }
  }
  ul__device_unlock(d);
  /* Oldest first, with no lock held. */
  ul__read *rev = NULL;
  while (ready) {
    ul__read *n = ready->next;
    ready->next = rev;
    rev = ready;
    ready = n;
  }
  int count = 0;
  while (rev) {
    ul__read *n = rev->next;
    if (rev->status) ul__fail(rev->status, "%s", rev->message);
    rev->done(d, rev->status, rev->dst, rev->user);
    free(rev);
    rev = n;
    count++;
  }
  return count;
}

void ul__queue_free_reads(ul_device *d) {
  ul__read *r = d->res->reads;
  while (r) {
    ul__read *n = r->next;
    read_drop_staging(d, r);
    free(r);
    r = n;
  }
  d->res->reads = NULL;
}
