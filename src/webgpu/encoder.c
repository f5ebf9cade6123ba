/* Command encoders, compute passes and command buffers of the webgpu.h
 * front door. An encoder records into the engine's replayable commands
 * (ul__op), holding every object they name; Finish encodes them on the
 * current native device at once, so that the implementation's validation
 * speaks where the program expects it (at Finish). A command buffer whose
 * device was lost before its submit is encoded again from its commands on
 * the recovered one; once submitted, its commands are in the operation
 * log, and a loss replays them. */
#include "webgpu/wg.h"

#include <stdarg.h>

/* The command lists of freed encoders and command buffers are kept for
 * the next encoders (a program that encodes each step's work in a new
 * encoder then allocates none: through malloc and realloc, the list of a
 * decode step's 70 commands cost more than the step's own recording), up
 * to UL__OPS_SPARE lists of at most UL__OPS_KEPT commands. */
#define UL__OPS_SPARE 16
#define UL__OPS_KEPT 256
static pthread_mutex_t g_ops_mu = PTHREAD_MUTEX_INITIALIZER;
static ul__op *g_ops[UL__OPS_SPARE];
static uint32_t g_ops_cap[UL__OPS_SPARE];
static uint32_t g_nops;

static void ops_free(ul__op *ops, uint32_t cap) {
  if (ops && UL__WG_REUSE && cap <= UL__OPS_KEPT) {
    pthread_mutex_lock(&g_ops_mu);
    if (g_nops < UL__OPS_SPARE) {
      g_ops[g_nops] = ops;
      g_ops_cap[g_nops++] = cap;
      ops = NULL;
    }
    pthread_mutex_unlock(&g_ops_mu);
  }
  free(ops);
}

/* A kept list for an encoder that has none yet, if one is kept. */
static void ops_reuse(ul__wg_encoder *e) {
  if (!UL__WG_REUSE) return;
  pthread_mutex_lock(&g_ops_mu);
  if (g_nops > 0) {
    e->ops = g_ops[--g_nops];
    e->cap = g_ops_cap[g_nops];
  }
  pthread_mutex_unlock(&g_ops_mu);
}

void ul__wg_encoder_free(ul__wg_encoder *e) {
  ops_free(e->ops, e->cap);
  free(e->label);
  free(e->error);
  ul__wg_holds_clear(&e->holds);
}

void ul__wg_cmdbuf_free(ul__wg_cmdbuf *c) {
  ul__ops_prepared_release(c->h.dev->ud, &c->prep);
  ops_free(c->ops, c->cap);
  free(c->label);
  free(c->error);
  ul__wg_holds_clear(&c->holds);
}

/* The first misuse on an encoder makes it invalid: its Finish reports it
 * (WebGPU's rule: encoder errors surface at Finish). */
static void fail(ul__wg_encoder *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(ul__wg_encoder *e, const char *fmt, ...) {
  if (e->error) return;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  e->error = ul__strdup(msg);
  if (!e->error) e->error = ul__strdup("out of host memory");
}

static void push(ul__wg_encoder *e, const ul__op *op) {
  if (e->error) return;
  if (!e->ops) ops_reuse(e); /* count is 0 then */
  if (e->count == e->cap) {
    uint32_t ncap = e->cap ? e->cap * 2 : 16;
    ul__op *n = realloc(e->ops, sizeof *n * ncap);
    if (!n) {
      fail(e, "out of host memory");
      return;
    }
    e->ops = n;
    e->cap = ncap;
  }
  e->ops[e->count++] = *op;
}

/* An object an op names: live, valid, held by the encoder; its engine id
 * (0 and the encoder failed otherwise). */
static uint32_t use(ul__wg_encoder *e, const void *h, ul__wg_kind kind, const char *what) {
  if (!h) {
    fail(e, "%s: a NULL %s", what, ul__wg_kind_name(kind));
    return 0;
  }
  ul__wg_obj *o = ul__wg_peek(h, kind);
  if (!o) {
    fail(e, "%s: the %s was released or is not one", what, ul__wg_kind_name(kind));
    return 0;
  }
  if (!o->id) {
    fail(e, "%s: the %s is an invalid object", what, ul__wg_kind_name(kind));
    return 0;
  }
  if (atomic_load(&o->destroyed)) {
    fail(e, "%s: the %s is destroyed", what, ul__wg_kind_name(kind));
    return 0;
  }
  if (!ul__wg_holds_add(&e->holds, o)) fail(e, "out of host memory");
  return o->id;
}

/* The encoder, when it may record now (no pass open on it). */
static ul__wg_encoder *recording(WGPUCommandEncoder encoder, const char *what) {
  ul__wg_encoder *e = ul__wg_check(encoder, UL__WG_ENCODER, what);
  if (!e) return NULL;
  if (e->finished) {
    ul__wg_error(e->h.dev, WGPUErrorType_Validation, "%s: the encoder is finished", what);
    return NULL;
  }
  if (e->pass) fail(e, "%s: a compute pass is open on the encoder", what);
  return e;
}

UL__WG_EXPORT WGPUCommandEncoder wgpuDeviceCreateCommandEncoder(WGPUDevice device,
                                                               const WGPUCommandEncoderDescriptor *descriptor) {
  ul__wg_device *dv = ul__wg_check(device, UL__WG_DEVICE, "wgpuDeviceCreateCommandEncoder");
  if (!dv) return NULL;
  ul__wg_encoder *e = ul__wg_new(UL__WG_ENCODER, sizeof *e, dv);
  if (!e) return NULL;
  const ul_site *site = ul__wg_site(__builtin_return_address(0));
  e->site = *site;
  if (descriptor && descriptor->label.data) {
    char label[128];
    e->label = ul__strdup(ul__wg_label(descriptor->label, label, sizeof label));
  }
  if (descriptor && descriptor->nextInChain) fail(e, "chained sType 0x%x is not kept", descriptor->nextInChain->sType);
  return (WGPUCommandEncoder)e;
}

UL__WG_EXPORT void wgpuCommandEncoderSetLabel(WGPUCommandEncoder encoder, WGPUStringView label) {
  ul__wg_encoder *e = ul__wg_check(encoder, UL__WG_ENCODER, "wgpuCommandEncoderSetLabel");
  if (!e) return;
  char buf[128];
  free(e->label);
  e->label = ul__strdup(ul__wg_label(label, buf, sizeof buf));
}

UL__WG_EXPORT void wgpuCommandEncoderCopyBufferToBuffer(WGPUCommandEncoder encoder, WGPUBuffer source,
                                                       uint64_t sourceOffset, WGPUBuffer destination,
                                                       uint64_t destinationOffset, uint64_t size) {
  const char *what = "wgpuCommandEncoderCopyBufferToBuffer";
  ul__wg_encoder *e = recording(encoder, what);
  if (!e) return;
  ul__op op = {.kind = UL__OP_COPY_BUFFER};
  op.buf_a = use(e, source, UL__WG_BUFFER, what);
  op.buf_b = use(e, destination, UL__WG_BUFFER, what);
  op.off_a = sourceOffset;
  op.off_b = destinationOffset;
  op.size = size;
  const ul__wg_buffer *sb = ul__wg_peek(source, UL__WG_BUFFER), *db = ul__wg_peek(destination, UL__WG_BUFFER);
  if (size == WGPU_WHOLE_SIZE) op.size = sb && sourceOffset <= sb->size ? sb->size - sourceOffset : 0;
  /* The program's sizes (a 0-byte buffer is 4 in the engine). */
  if (sb && db && (sourceOffset > sb->size || op.size > sb->size - sourceOffset || destinationOffset > db->size ||
                   op.size > db->size - destinationOffset || sourceOffset % 4 || destinationOffset % 4 || op.size % 4))
    fail(e, "%s: the range %llu + %llu of the source (%llu bytes) or %llu + %llu of the destination (%llu bytes) is "
         "outside it or not aligned to 4", what, (unsigned long long)sourceOffset, (unsigned long long)op.size,
         (unsigned long long)sb->size, (unsigned long long)destinationOffset, (unsigned long long)op.size,
         (unsigned long long)db->size);
  push(e, &op);
}

UL__WG_EXPORT void wgpuCommandEncoderClearBuffer(WGPUCommandEncoder encoder, WGPUBuffer buffer, uint64_t offset,
                                                uint64_t size) {
  const char *what = "wgpuCommandEncoderClearBuffer";
  ul__wg_encoder *e = recording(encoder, what);
  if (!e) return;
  ul__op op = {.kind = UL__OP_CLEAR_BUFFER};
  op.buf_b = use(e, buffer, UL__WG_BUFFER, what);
  op.off_b = offset;
  const ul__wg_buffer *b = ul__wg_peek(buffer, UL__WG_BUFFER);
  op.size = size == WGPU_WHOLE_SIZE ? (b && offset <= b->size ? b->size - offset : 0) : size;
  if (b && (offset > b->size || op.size > b->size - offset || offset % 4 || op.size % 4))
    fail(e, "%s: the range %llu + %llu is outside the buffer of %llu bytes or not aligned to 4", what,
         (unsigned long long)offset, (unsigned long long)op.size, (unsigned long long)b->size);
  if (op.size) push(e, &op); /* a clear of nothing is nothing (0 means the end to the engine) */
}

static void texture_side(ul__wg_encoder *e, const WGPUTexelCopyTextureInfo *t, const char *what, uint32_t *id,
                         uint32_t *mip, uint32_t origin[3], uint32_t *aspect) {
  if (!t) {
    fail(e, "%s: a NULL texture copy info", what);
    return;
  }
  *id = use(e, t->texture, UL__WG_TEXTURE, what);
  *mip = t->mipLevel;
  origin[0] = t->origin.x;
  origin[1] = t->origin.y;
  origin[2] = t->origin.z;
  *aspect = t->aspect;
}

/* The buffer side of a copy: its id, offset and layout into op. */
static void buffer_side(ul__wg_encoder *e, const WGPUTexelCopyBufferInfo *b, const char *what, uint32_t *id,
                        uint64_t *offset, ul__op *op) {
  *id = use(e, b->buffer, UL__WG_BUFFER, what);
  *offset = b->layout.offset;
  op->bytes_per_row = b->layout.bytesPerRow;
  op->rows_per_image = b->layout.rowsPerImage;
}

/* The three copies with a texture side: `buf` is the copy's buffer (the
 * source or the destination, as `kind` says; NULL for texture to texture),
 * `tex` its first texture and `tex_b` the second (texture to texture). */
static void texel_copy(WGPUCommandEncoder encoder, const char *what, ul__op_kind kind,
                       const WGPUTexelCopyBufferInfo *buf, const WGPUTexelCopyTextureInfo *tex,
                       const WGPUTexelCopyTextureInfo *tex_b, const WGPUExtent3D *size) {
  ul__wg_encoder *e = recording(encoder, what);
  if (!e) return;
  if (!size || (kind != UL__OP_COPY_TEXTURE_TO_TEXTURE && !buf)) {
    fail(e, "%s: a NULL argument", what);
    return;
  }
  ul__op op = {.kind = kind, .x = size->width, .y = size->height, .z = size->depthOrArrayLayers};
  if (kind == UL__OP_COPY_BUFFER_TO_TEXTURE) buffer_side(e, buf, what, &op.buf_a, &op.off_a, &op);
  texture_side(e, tex, what, &op.texture, &op.mip_a, op.origin_a, &op.aspect_a);
  if (kind == UL__OP_COPY_TEXTURE_TO_TEXTURE)
    texture_side(e, tex_b, what, &op.texture_b, &op.mip_b, op.origin_b, &op.aspect_b);
  if (kind == UL__OP_COPY_TEXTURE_TO_BUFFER) buffer_side(e, buf, what, &op.buf_b, &op.off_b, &op);
  push(e, &op);
}

UL__WG_EXPORT void wgpuCommandEncoderCopyBufferToTexture(WGPUCommandEncoder encoder,
                                                        const WGPUTexelCopyBufferInfo *source,
                                                        const WGPUTexelCopyTextureInfo *destination,
                                                        const WGPUExtent3D *copySize) {
  texel_copy(encoder, "wgpuCommandEncoderCopyBufferToTexture", UL__OP_COPY_BUFFER_TO_TEXTURE, source, destination,
             NULL, copySize);
}

UL__WG_EXPORT void wgpuCommandEncoderCopyTextureToBuffer(WGPUCommandEncoder encoder,
                                                        const WGPUTexelCopyTextureInfo *source,
                                                        const WGPUTexelCopyBufferInfo *destination,
                                                        const WGPUExtent3D *copySize) {
  texel_copy(encoder, "wgpuCommandEncoderCopyTextureToBuffer", UL__OP_COPY_TEXTURE_TO_BUFFER, destination, source,
             NULL, copySize);
}

UL__WG_EXPORT void wgpuCommandEncoderCopyTextureToTexture(WGPUCommandEncoder encoder,
                                                         const WGPUTexelCopyTextureInfo *source,
                                                         const WGPUTexelCopyTextureInfo *destination,
                                                         const WGPUExtent3D *copySize) {
  texel_copy(encoder, "wgpuCommandEncoderCopyTextureToTexture", UL__OP_COPY_TEXTURE_TO_TEXTURE, NULL, source,
             destination, copySize);
}

UL__WG_EXPORT void wgpuCommandEncoderResolveQuerySet(WGPUCommandEncoder encoder, WGPUQuerySet querySet,
                                                    uint32_t firstQuery, uint32_t queryCount, WGPUBuffer destination,
                                                    uint64_t destinationOffset) {
  const char *what = "wgpuCommandEncoderResolveQuerySet";
  ul__wg_encoder *e = recording(encoder, what);
  if (!e) return;
  ul__op op = {.kind = UL__OP_RESOLVE_QUERY_SET};
  op.query_set = use(e, querySet, UL__WG_QUERY_SET, what);
  op.query_first = firstQuery;
  op.query_count = queryCount;
  op.buf_b = use(e, destination, UL__WG_BUFFER, what);
  op.off_b = destinationOffset;
  push(e, &op);
}

UL__WG_EXPORT void wgpuCommandEncoderWriteTimestamp(WGPUCommandEncoder encoder, WGPUQuerySet querySet,
                                                   uint32_t queryIndex) {
  const char *what = "wgpuCommandEncoderWriteTimestamp";
  ul__wg_encoder *e = recording(encoder, what);
  if (!e) return;
  ul__op op = {.kind = UL__OP_WRITE_TIMESTAMP};
  op.query_set = use(e, querySet, UL__WG_QUERY_SET, what);
  op.query_first = queryIndex;
  push(e, &op);
}

UL__WG_EXPORT void wgpuCommandEncoderInsertDebugMarker(WGPUCommandEncoder encoder, WGPUStringView markerLabel) {
  UL__UNUSED(markerLabel);
  recording(encoder, "wgpuCommandEncoderInsertDebugMarker"); /* markers are not kept */
}

UL__WG_EXPORT void wgpuCommandEncoderPushDebugGroup(WGPUCommandEncoder encoder, WGPUStringView groupLabel) {
  UL__UNUSED(groupLabel);
  recording(encoder, "wgpuCommandEncoderPushDebugGroup");
}

UL__WG_EXPORT void wgpuCommandEncoderPopDebugGroup(WGPUCommandEncoder encoder) {
  recording(encoder, "wgpuCommandEncoderPopDebugGroup");
}

UL__WG_EXPORT void wgpuCommandEncoderInjectValidationError(WGPUCommandEncoder encoder, WGPUStringView message) {
  ul__wg_encoder *e = ul__wg_check(encoder, UL__WG_ENCODER, "wgpuCommandEncoderInjectValidationError");
  if (!e) return;
  char msg[256];
  ul__sv_copy(message, msg, sizeof msg);
  fail(e, "%s", msg);
}

UL__WG_EXPORT void wgpuCommandEncoderWriteBuffer(WGPUCommandEncoder encoder, WGPUBuffer buffer, uint64_t bufferOffset,
                                                uint8_t const *data, uint64_t size) {
  UL__UNUSED(buffer), UL__UNUSED(bufferOffset), UL__UNUSED(data), UL__UNUSED(size);
  ul__wg_encoder *e = recording(encoder, "wgpuCommandEncoderWriteBuffer");
  if (e) fail(e, "wgpuCommandEncoderWriteBuffer is not supported by unlost (use wgpuQueueWriteBuffer)");
}

UL__WG_EXPORT WGPURenderPassEncoder wgpuCommandEncoderBeginRenderPass(WGPUCommandEncoder encoder,
                                                                     const WGPURenderPassDescriptor *descriptor) {
  UL__UNUSED(descriptor);
  ul__wg_encoder *e = recording(encoder, "wgpuCommandEncoderBeginRenderPass");
  if (e) fail(e, "render passes are not supported by unlost (a compute library)");
  return NULL;
}

/* ---- compute passes ---- */

UL__WG_EXPORT WGPUComputePassEncoder wgpuCommandEncoderBeginComputePass(WGPUCommandEncoder encoder,
                                                                       const WGPUComputePassDescriptor *descriptor) {
  const char *what = "wgpuCommandEncoderBeginComputePass";
  ul__wg_encoder *e = recording(encoder, what);
  if (!e) return NULL;
  ul__wg_pass *p = ul__wg_new(UL__WG_PASS, sizeof *p, e->h.dev);
  if (!p) {
    fail(e, "out of host memory");
    return NULL;
  }
  p->encoder = e;
  ul__wg_hold(e);
  ul__op op = {.kind = UL__OP_PASS_BEGIN};
  if (descriptor && descriptor->nextInChain) fail(e, "%s: chained sType 0x%x is not kept", what, descriptor->nextInChain->sType);
  if (descriptor && descriptor->timestampWrites) {
    const WGPUPassTimestampWrites *tw = descriptor->timestampWrites;
    if (tw->nextInChain) fail(e, "%s: chained sType 0x%x on the timestamp writes is not kept", what, tw->nextInChain->sType);
    op.query_set = use(e, tw->querySet, UL__WG_QUERY_SET, what);
    op.query_first = tw->beginningOfPassWriteIndex;
    op.query_count = tw->endOfPassWriteIndex;
  }
  if (!e->pass) {
    push(e, &op);
    e->pass = p;
  } else {
    p->ended = true; /* a second pass while one is open: already failed above */
  }
  return (WGPUComputePassEncoder)p;
}

/* The pass, when it may record (open, on an encoder that records). */
static ul__wg_pass *pass_recording(WGPUComputePassEncoder pass, const char *what) {
  ul__wg_pass *p = ul__wg_check(pass, UL__WG_PASS, what);
  if (!p) return NULL;
  if (p->ended || p->encoder->pass != p) {
    fail(p->encoder, "%s: the compute pass has ended", what);
    return NULL;
  }
  return p;
}

UL__WG_EXPORT void wgpuComputePassEncoderSetPipeline(WGPUComputePassEncoder pass, WGPUComputePipeline pipeline) {
  const char *what = "wgpuComputePassEncoderSetPipeline";
  ul__wg_pass *p = pass_recording(pass, what);
  if (p) p->pipeline = use(p->encoder, pipeline, UL__WG_PIPELINE, what);
}

UL__WG_EXPORT void wgpuComputePassEncoderSetBindGroup(WGPUComputePassEncoder pass, uint32_t groupIndex,
                                                     WGPUBindGroup group, size_t dynamicOffsetCount,
                                                     const uint32_t *dynamicOffsets) {
  const char *what = "wgpuComputePassEncoderSetBindGroup";
  ul__wg_pass *p = pass_recording(pass, what);
  if (!p) return;
  if (groupIndex >= UL_MAX_BIND_GROUPS) {
    fail(p->encoder, "%s: group %u (at most %d groups)", what, groupIndex, UL_MAX_BIND_GROUPS);
    return;
  }
  if (dynamicOffsetCount > UL__MAX_DYNAMIC_OFFSETS || (dynamicOffsetCount && !dynamicOffsets)) {
    fail(p->encoder, "%s: %zu dynamic offsets (at most %d)", what, dynamicOffsetCount, UL__MAX_DYNAMIC_OFFSETS);
    return;
  }
  p->groups[groupIndex] = group ? use(p->encoder, group, UL__WG_BIND_GROUP, what) : 0;
  p->dyn_count[groupIndex] = (uint8_t)dynamicOffsetCount;
  if (dynamicOffsetCount) memcpy(p->dyn[groupIndex], dynamicOffsets, sizeof *dynamicOffsets * dynamicOffsetCount);
}

/* A dispatch with the pass's state as it is now. */
static void dispatch(ul__wg_pass *p, ul__op *op, const char *what) {
  ul__wg_encoder *e = p->encoder;
  if (!p->pipeline) {
    fail(e, "%s: no pipeline is set", what);
    return;
  }
  op->pipeline = p->pipeline;
  uint32_t n = 0, at = 0;
  for (uint32_t g = 0; g < UL_MAX_BIND_GROUPS; g++) {
    if (!p->groups[g]) continue;
    n = g + 1;
  }
  for (uint32_t g = 0; g < n; g++) {
    op->groups[g] = p->groups[g];
    op->dyn_count[g] = p->groups[g] ? p->dyn_count[g] : 0;
    if (at + op->dyn_count[g] > UL__MAX_DYNAMIC_OFFSETS) {
      fail(e, "%s: more than %d dynamic offsets", what, UL__MAX_DYNAMIC_OFFSETS);
      return;
    }
    memcpy(&op->dyn[at], p->dyn[g], sizeof(uint32_t) * op->dyn_count[g]);
    at += op->dyn_count[g];
  }
  op->group_count = n;
  push(e, op);
}

UL__WG_EXPORT void wgpuComputePassEncoderDispatchWorkgroups(WGPUComputePassEncoder pass, uint32_t workgroupCountX,
                                                           uint32_t workgroupCountY, uint32_t workgroupCountZ) {
  const char *what = "wgpuComputePassEncoderDispatchWorkgroups";
  ul__wg_pass *p = pass_recording(pass, what);
  if (!p) return;
  ul__op op = {.kind = UL__OP_DISPATCH, .x = workgroupCountX, .y = workgroupCountY, .z = workgroupCountZ};
  dispatch(p, &op, what);
}

UL__WG_EXPORT void wgpuComputePassEncoderDispatchWorkgroupsIndirect(WGPUComputePassEncoder pass,
                                                                   WGPUBuffer indirectBuffer, uint64_t indirectOffset) {
  const char *what = "wgpuComputePassEncoderDispatchWorkgroupsIndirect";
  ul__wg_pass *p = pass_recording(pass, what);
  if (!p) return;
  ul__op op = {.kind = UL__OP_DISPATCH_INDIRECT, .off_a = indirectOffset};
  op.buf_a = use(p->encoder, indirectBuffer, UL__WG_BUFFER, what);
  dispatch(p, &op, what);
}

UL__WG_EXPORT void wgpuComputePassEncoderWriteTimestamp(WGPUComputePassEncoder pass, WGPUQuerySet querySet,
                                                       uint32_t queryIndex) {
  const char *what = "wgpuComputePassEncoderWriteTimestamp";
  ul__wg_pass *p = pass_recording(pass, what);
  if (!p) return;
  ul__op op = {.kind = UL__OP_WRITE_TIMESTAMP};
  op.query_set = use(p->encoder, querySet, UL__WG_QUERY_SET, what);
  op.query_first = queryIndex;
  push(p->encoder, &op);
}

UL__WG_EXPORT void wgpuComputePassEncoderSetImmediateData(WGPUComputePassEncoder pass, uint32_t offset,
                                                         const void *data, size_t size) {
  UL__UNUSED(offset), UL__UNUSED(data), UL__UNUSED(size);
  ul__wg_pass *p = pass_recording(pass, "wgpuComputePassEncoderSetImmediateData");
  if (p) fail(p->encoder, "immediate data is not supported by unlost (use a uniform buffer)");
}

#if UL_WGPU_STABLE /* the stable header's name for it */
UL__WG_EXPORT void wgpuComputePassEncoderSetImmediates(WGPUComputePassEncoder pass, uint32_t offset, const void *data,
                                                      size_t size) {
  UL__UNUSED(offset), UL__UNUSED(data), UL__UNUSED(size);
  ul__wg_pass *p = pass_recording(pass, "wgpuComputePassEncoderSetImmediates");
  if (p) fail(p->encoder, "immediates are not supported by unlost (use a uniform buffer)");
}
#endif

UL__WG_EXPORT void wgpuComputePassEncoderInsertDebugMarker(WGPUComputePassEncoder pass, WGPUStringView markerLabel) {
  UL__UNUSED(markerLabel);
  pass_recording(pass, "wgpuComputePassEncoderInsertDebugMarker");
}

UL__WG_EXPORT void wgpuComputePassEncoderPushDebugGroup(WGPUComputePassEncoder pass, WGPUStringView groupLabel) {
  UL__UNUSED(groupLabel);
  pass_recording(pass, "wgpuComputePassEncoderPushDebugGroup");
}

UL__WG_EXPORT void wgpuComputePassEncoderPopDebugGroup(WGPUComputePassEncoder pass) {
  pass_recording(pass, "wgpuComputePassEncoderPopDebugGroup");
}

UL__WG_EXPORT void wgpuComputePassEncoderEnd(WGPUComputePassEncoder pass) {
  ul__wg_pass *p = pass_recording(pass, "wgpuComputePassEncoderEnd");
  if (!p) return;
  ul__op op = {.kind = UL__OP_PASS_END};
  push(p->encoder, &op);
  p->ended = true;
  p->encoder->pass = NULL;
}

/* ---- finish ---- */

UL__WG_EXPORT WGPUCommandBuffer wgpuCommandEncoderFinish(WGPUCommandEncoder encoder,
                                                        const WGPUCommandBufferDescriptor *descriptor) {
  const char *what = "wgpuCommandEncoderFinish";
  ul__wg_encoder *e = ul__wg_check(encoder, UL__WG_ENCODER, what);
  if (!e) return NULL;
  ul__wg_device *dv = e->h.dev;
  ul__wg_cmdbuf *c = ul__wg_new(UL__WG_CMDBUF, sizeof *c, dv);
  if (!c) return NULL;
  if (e->finished) {
    ul__wg_error(dv, WGPUErrorType_Validation, "%s: the encoder is already finished", what);
    c->error = ul__strdup("finished twice");
    return (WGPUCommandBuffer)c;
  }
  e->finished = true;
  if (e->pass) fail(e, "a compute pass is still open");
  c->site = e->site;
  if (descriptor && descriptor->label.data) {
    char label[128];
    c->label = ul__strdup(ul__wg_label(descriptor->label, label, sizeof label));
  } else if (e->label) {
    c->label = ul__strdup(e->label);
  }
  /* The commands and what they hold move to the command buffer. */
  c->ops = e->ops;
  c->count = e->count;
  c->cap = e->cap;
  ul__wg_holds_move(&c->holds, &e->holds);
  e->ops = NULL;
  e->count = e->cap = 0;
  if (e->error) {
    c->error = ul__strdup(e->error);
    ul__wg_error(dv, WGPUErrorType_Validation, "%s: %s", what, e->error);
    return (WGPUCommandBuffer)c;
  }
  if (!ul__wg_enter(dv, what)) return (WGPUCommandBuffer)c; /* lost to the program: an inert buffer */
  ul_status s = ul__ops_prepare(dv->ud, c->ops, c->count, c->label, &c->prep);
  char why[512] = "";
  if (s) snprintf(why, sizeof why, "%s", ul_last_error());
  ul__wg_leave(dv);
  if (s) {
    c->error = ul__strdup(why);
    c->error_type = s == UL_ERR_DEVICE_LOST ? WGPUErrorType_Internal : WGPUErrorType_Validation;
    ul__wg_report(dv, s, what);
  }
  return (WGPUCommandBuffer)c;
}
