/* Internal to unlost: SOURCE buffers made and filled ahead on the standby
 * device (src/core/prefill.c). */
#ifndef UL_CORE_PREFILL_H
#define UL_CORE_PREFILL_H

#include "core/core.h"

/* A large SOURCE's content hash reads this many blocks of 4 KiB, spread
 * evenly from its first byte to its last. */
#define UL__SOURCE_SAMPLES 64
#define UL__SOURCE_BLOCK 4096
/* A file's modification time in ns, as a SOURCE buffer records it. */
struct stat;
int64_t ul__stat_mtime_ns(const struct stat *st);
/* The sample hash of [offset, offset+size) of `fd` (size >= one block). */
ul_status ul__source_hash_fd(int fd, uint64_t offset, uint64_t size, uint64_t *out);

/* A SOURCE buffer to make ahead: what its create asked for and where its
 * contents come from (ul__standby_source_add). */
typedef struct ul__prefill_src {
  uint32_t id;
  char *path, *label;
  uint64_t usage, size, offset, file_size;
  int64_t mtime_ns;
} ul__prefill_src;

/* A buffer made on a standby device with a SOURCE buffer's descriptor and
 * filled from its file, for the first rebuild on that device. */
typedef struct ul__prefill {
  struct ul__prefill *next;
  WGPUBuffer buffer;
  ul__prefill_src src; /* owns path and label */
  uint64_t hash;       /* the file's sample hash, the same before and after the fill */
} ul__prefill;

/* Makes and fills one on `device` through `w`, waiting for the queue;
 * stops (UL_ERR_BUSY) as soon as *stop is set. Takes src's strings. */
ul_status ul__prefill_make(const ul__wgpu *w, ul_env *env, WGPUInstance inst, WGPUDevice device, WGPUQueue q,
                           ul__prefill_src *src, const _Atomic bool *stop, ul__prefill **out);
void ul__prefill_free(const ul__wgpu *w, ul__prefill *p);
void ul__prefills_free(const ul__wgpu *w, ul__prefill **list);
void ul__prefill_src_clear(ul__prefill_src *src);
/* Buffers made ahead and not freed yet, the taken ones not counted (tests). */
int ul__prefills_live(void);
/* Its buffer became an object's native buffer (counted out of the above). */
void ul__prefill_handed_over(void);

#endif
