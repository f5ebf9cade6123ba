/* Internal to unlost: moving bytes and work to and from a native device,
 * below every object kind -- submissions and their serials, waiting for
 * the queue, maps and their waits (transfer.c), and reused staging buffers
 * for large uploads and reads (staging.c). Names no unlost object: it takes
 * native buffers. Under d->mu. */
#ifndef UL_CORE_TRANSFER_H
#define UL_CORE_TRANSFER_H

#include "core/core.h"

/* ---- submissions, queue, maps (transfer.c) ---- */
/* Submits one command buffer and counts the serial. */
uint64_t ul__queue_submit(ul_device *d, WGPUCommandBuffer cb);
/* Encodes one copy (buffer to buffer, texture to buffer) and submits it. */
ul_status ul__copy_submit(ul_device *d, WGPUBuffer src, uint64_t src_offset, WGPUBuffer dst,
                          uint64_t dst_offset, uint64_t size);
/* Copies whole buffers[i] (each `size` bytes, from offset 0) to dst at
 * dst_offset + i * size, in one command buffer and one submission. */
ul_status ul__copies_submit(ul_device *d, const WGPUBuffer *srcs, uint32_t n, uint64_t size, WGPUBuffer dst,
                            uint64_t dst_offset);
ul_status ul__copy_texture_submit(ul_device *d, const WGPUTexelCopyTextureInfo *src,
                                  const WGPUTexelCopyBufferInfo *dst, const WGPUExtent3D *extent);
/* Waits until the queue finished everything submitted so far. */
ul_status ul__queue_wait_idle(ul_device *d, uint64_t timeout_ns);
/* The wait under it, for any queue through table `w`: the queue's work
 * submitted so far done, its callback's status in *status. */
ul_status ul__queue_work_done_wait(const ul__wgpu *w, ul_env *env, WGPUInstance inst, WGPUQueue q,
                                   uint64_t timeout_ns, uint32_t *status);
/* Starts a map of `b` whose outcome lands in a new record (*out, the
 * caller's reference); `mode` of callback delivery as WebGPU's. */
WGPUFuture ul__map_start(ul_device *d, WGPUBuffer b, uint64_t mode, size_t off, size_t size,
                         uint32_t callback_mode, ul__cb **out);
/* Whether a failed map or wait means the device was lost: a loss is
 * pending, or the implementation says so in its message. Records the loss
 * in the second case (losses that arrive as errors are losses). */
bool ul__map_says_lost(ul_device *d, const ul__cb *m);
/* Waits for a map started with WaitAnyOnly. */
ul_status ul__wait_map(ul_device *d, WGPUBuffer b, uint64_t mode, size_t off, size_t size,
                       uint64_t timeout_ns);

/* ---- staging (staging.c) ---- */
typedef struct ul__staging ul__staging;

/* Where an upload's bytes come from: memory, or a range of an open file
 * (read straight into the mapped staging memory: no host copy). */
typedef struct ul__fill {
  const void *data;       /* NULL: the file */
  int fd;
  uint64_t file_offset;
} ul__fill;

/* Copies `size` bytes to dst+offset through mapped staging buffers, in
 * chunks, several in flight. Under d->mu. */
ul_status ul__staging_upload(ul_device *d, WGPUBuffer dst, uint64_t offset, const void *data,
                             uint64_t size);
ul_status ul__staging_upload_from(ul_device *d, WGPUBuffer dst, uint64_t offset, const ul__fill *src,
                                  uint64_t size);
/* Begins filling the staging ring with the first chunks of an upload of
 * `size` bytes from fd at file_offset, on a thread of its own, so that the
 * caller can go on (a rebuild makes its objects meanwhile). Takes fd (closed
 * when done). The next ul__staging_upload_from of the same range of the
 * same file, unchanged, only copies those chunks; any other upload, a trim
 * or a release first waits for it. Best effort: false when it began
 * nothing ($UNLOST_FILL_AHEAD, no staging buffer). Under d->mu. */
bool ul__staging_ahead(ul_device *d, int fd, uint64_t file_offset, uint64_t size);
/* A MapRead|CopyDst buffer of at least `size` bytes: the device's reused
 * one, or (*temporary) a new one the caller releases. Under d->mu. */
ul_status ul__staging_read_buffer(ul_device *d, uint64_t size, WGPUBuffer *out, bool *temporary);
/* Drops the reused read buffer `b` (one whose map is still pending after a
 * wait timed out), so that the next read gets a fresh one. */
void ul__staging_drop_read(ul_device *d, WGPUBuffer b);
/* Gives back the large staging buffers (checkpoints, after a rebuild). */
void ul__staging_trim(ul_device *d);
/* Releases the staging buffers (device destroy, rebuild). */
void ul__staging_release(ul_device *d);

#endif
