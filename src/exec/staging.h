/* Internal to unlost: reused staging buffers (src/exec/staging.c). */
#ifndef UL_EXEC_STAGING_H
#define UL_EXEC_STAGING_H

#include "res/obj.h"

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
