/* The queue of the webgpu.h front door: Submit (each command buffer's
 * commands logged and submitted through the engine), WriteBuffer and
 * WriteTexture (recorded as the engine records every write), and
 * OnSubmittedWorkDone (a future that answers once the work submitted before
 * it has run: on a recovered device, after the replay). */
#include "webgpu/wg.h"

/* Why a command buffer cannot run now: a buffer it uses (directly or
 * through a bind group) is mapped or has a map pending. NULL: none. */
const char *ul__wg_cmdbuf_mapped(const ul__wg_cmdbuf *c) {
  if (!atomic_load(&c->h.dev->maps_out)) return NULL; /* no buffer of its device is */
  for (uint32_t i = 0; i < c->holds.count; i++) {
    const ul__wg_obj *o = c->holds.objs[i];
    const ul__wg_holds *inner = o->kind == UL__WG_BIND_GROUP ? &((const ul__wg_group *)o)->holds : NULL;
    for (uint32_t k = 0; k <= (inner ? inner->count : 0); k++) {
      const ul__wg_obj *x = k == 0 ? o : inner->objs[k - 1];
      if (x->kind != UL__WG_BUFFER) continue;
      ul__wg_buffer *b = (ul__wg_buffer *)x;
      pthread_mutex_lock(ul__wg_buffer_mu(b));
      bool mapped = b->map_state != UL__WG_UNMAPPED;
      pthread_mutex_unlock(ul__wg_buffer_mu(b));
      if (mapped) return "a buffer it uses is mapped or has a map pending";
    }
  }
  return NULL;
}

UL__WG_EXPORT void wgpuQueueSubmit(WGPUQueue queue, size_t commandCount, const WGPUCommandBuffer *commands) {
  const char *what = "wgpuQueueSubmit";
  ul__wg_queue *q = ul__wg_check(queue, UL__WG_QUEUE, what);
  if (!q) return;
  ul__wg_device *dv = q->h.dev;
  if (commandCount && !commands) {
    ul__wg_error(dv, WGPUErrorType_Validation, "%s: commands is NULL", what);
    return;
  }
  /* WebGPU's rules: one invalid command buffer and nothing is submitted. */
  for (size_t i = 0; i < commandCount; i++) {
    ul__wg_cmdbuf *c = ul__wg_check_on(dv, commands[i], UL__WG_CMDBUF, what);
    if (!c) return;
    const char *bad = c->error ? c->error : c->submitted ? "it was submitted already" : NULL;
    for (size_t j = 0; j < i && !bad; j++)
      if (commands[j] == commands[i]) bad = "it is given twice";
    if (!bad) bad = ul__wg_cmdbuf_mapped(c);
    if (bad) {
      if (!atomic_load(&dv->lost))
        ul__wg_error(dv, c->error && c->error_type ? c->error_type : WGPUErrorType_Validation,
                     "%s: command buffer %zu ('%s') is invalid: %s", what, i, c->label ? c->label : "", bad);
      return;
    }
  }
  if (!ul__wg_enter(dv, what)) return;
  ul_status s = UL_OK;
  for (size_t i = 0; i < commandCount && !s; i++) {
    ul__wg_cmdbuf *c = (ul__wg_cmdbuf *)commands[i];
    c->submitted = true;
    s = ul__ops_submit_through(dv->ud, c->ops, c->count, c->label, &c->site, &c->prep);
  }
  ul__wg_leave(dv);
  if (s) ul__wg_report(dv, s, what);
  /* Spontaneous callbacks get a chance at every submit, as the
   * implementation's do. */
  ul__wg_progress(dv->instance, true);
}

UL__WG_EXPORT void wgpuQueueWriteBuffer(WGPUQueue queue, WGPUBuffer buffer, uint64_t bufferOffset, const void *data,
                                       size_t size) {
  const char *what = "wgpuQueueWriteBuffer";
  ul__wg_queue *q = ul__wg_check(queue, UL__WG_QUEUE, what);
  if (!q) return;
  ul__wg_device *dv = q->h.dev;
  ul__wg_buffer *b = ul__wg_check_on(dv, buffer, UL__WG_BUFFER, what);
  if (!b || atomic_load(&dv->lost)) return;
  const char *bad = NULL;
  pthread_mutex_lock(ul__wg_buffer_mu(b));
  bool mapped = b->map_state != UL__WG_UNMAPPED;
  pthread_mutex_unlock(ul__wg_buffer_mu(b));
  if (!b->h.id || atomic_load(&b->h.destroyed)) bad = "the buffer is invalid or destroyed";
  else if (!(b->usage & WGPUBufferUsage_CopyDst)) bad = "the buffer lacks the CopyDst usage";
  else if (bufferOffset % 4 || size % 4) bad = "the offset and the size must be multiples of 4";
  else if (bufferOffset > b->size || size > b->size - bufferOffset) bad = "the range is outside the buffer";
  else if (mapped) bad = "the buffer is mapped or has a map pending";
  else if (size && !data) bad = "data is NULL";
  if (bad) {
    ul__wg_error(dv, WGPUErrorType_Validation, "%s: %s (offset %llu, size %zu, buffer of %llu bytes)", what, bad,
                 (unsigned long long)bufferOffset, size, (unsigned long long)b->size);
    return;
  }
  if (!size || !ul__wg_enter(dv, what)) return;
  ul_status s = ul__buffer_write(dv->ud, b->h.id, bufferOffset, data, size);
  ul__wg_leave(dv);
  if (s) ul__wg_report(dv, s, what);
}

UL__WG_EXPORT void wgpuQueueWriteTexture(WGPUQueue queue, const WGPUTexelCopyTextureInfo *destination,
                                        const void *data, size_t dataSize, const WGPUTexelCopyBufferLayout *dataLayout,
                                        const WGPUExtent3D *writeSize) {
  const char *what = "wgpuQueueWriteTexture";
  ul__wg_queue *q = ul__wg_check(queue, UL__WG_QUEUE, what);
  if (!q) return;
  ul__wg_device *dv = q->h.dev;
  if (!destination || !dataLayout || !writeSize || (dataSize && !data)) {
    ul__wg_error(dv, WGPUErrorType_Validation, "%s: a NULL argument", what);
    return;
  }
  ul__wg_texture *t = ul__wg_check_on(dv, destination->texture, UL__WG_TEXTURE, what);
  if (!t || atomic_load(&dv->lost)) return;
  if (!t->h.id || atomic_load(&t->h.destroyed)) {
    ul__wg_error(dv, WGPUErrorType_Validation, "%s: the texture is invalid or destroyed", what);
    return;
  }
  if (dataLayout->offset > dataSize) {
    ul__wg_error(dv, WGPUErrorType_Validation, "%s: the layout's offset %llu is past the %zu bytes of data", what,
                 (unsigned long long)dataLayout->offset, dataSize);
    return;
  }
  uint32_t region[UL__TR_WORDS] = {destination->origin.x, destination->origin.y, destination->origin.z,
                                   writeSize->width, writeSize->height, writeSize->depthOrArrayLayers,
                                   dataLayout->bytesPerRow, destination->mipLevel, dataLayout->rowsPerImage,
                                   destination->aspect};
  const uint8_t *bytes = (const uint8_t *)data + dataLayout->offset;
  uint64_t n = dataSize - dataLayout->offset;
  if (!ul__wg_enter(dv, what)) return;
  ul_status s = ul__texture_write(dv->ud, t->h.id, region, bytes, n, what);
  ul__wg_leave(dv);
  if (s) ul__wg_report(dv, s, what);
}

UL__WG_EXPORT WGPUFuture wgpuQueueOnSubmittedWorkDone(WGPUQueue queue, WGPUQueueWorkDoneCallbackInfo callbackInfo) {
  ul__wg_queue *q;
  ul__wg_future *f = UL__WG_FUTURE_FOR(queue, UL__WG_QUEUE, "wgpuQueueOnSubmittedWorkDone", UL__WGF_WORK_DONE, true,
                                       callbackInfo, &q);
  if (!f) return (WGPUFuture){0};
  ul__wg_device *dv = q->h.dev;
  ul__wg_instance *in = dv->instance;
  WGPUFuture id = ul__wg_future_id(f);
  if (atomic_load(&dv->lost)) {
    ul__wg_future_resolve(in, f, WGPUQueueWorkDoneStatus_Success, 0, NULL, "");
  } else {
    f->dev = dv;
    ul__wg_hold(dv);
    ul__wg_work_done_advance(in, f, 0);
  }
  ul__wg_future_let_go(in, f);
  return id;
}

bool ul__wg_work_done_advance(ul__wg_instance *in, ul__wg_future *f, uint64_t wait_ns) {
  ul__wg_device *dv = f->dev;
  if (!dv) return f->ready;
  bool done = false;
  ul_status s = !f->ask.started && atomic_load(&dv->lost)
                    ? UL_ERR_DEVICE_FAILED
                    : ul__work_done_advance(dv->ud, &f->ask, &dv->redo, wait_ns, &done);
  if (s == UL_ERR_OUT_OF_MEMORY) {
    ul__wg_future_resolve(in, f, WGPUQueueWorkDoneStatus_Error, 0, NULL, "out of host memory");
    return true;
  }
  if (s) ul__wg_report(dv, s, "wgpuQueueOnSubmittedWorkDone");
  if (!s && !done) return false;
  ul__wg_future_resolve(in, f, WGPUQueueWorkDoneStatus_Success, 0, NULL, "");
  return true;
}
