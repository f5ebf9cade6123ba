/* SOURCE buffers made and filled ahead on the standby device: the
 * recovery that begins on the standby takes each as the buffer's native
 * buffer, with its contents, so that it neither creates it (22-27 ms for 1
 * GiB on an H200) nor copies into it (53 ms through staging at 19 GB/s).
 * The fill is the implementation's queue write, on the standby's thread,
 * off every caller's path. Measured before this, and not kept: buffers over
 * host memory (Dawn's HostMappedPointer) copy at the bus's speed, but the
 * first copy into a fresh buffer after a loss took 60 ms for 1 GiB, no
 * better than staging (docs/bench/HISTORY.md, 2026-12-02, later). */
#include "core/prefill.h"
#include "core/transfer.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

int64_t ul__stat_mtime_ns(const struct stat *st) {
  return (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

ul_status ul__source_hash_fd(int fd, uint64_t offset, uint64_t size, uint64_t *out) {
  unsigned char block[UL__SOURCE_BLOCK];
  uint64_t h = 0, span = size - UL__SOURCE_BLOCK;
  for (unsigned i = 0; i < UL__SOURCE_SAMPLES; i++) {
    uint64_t at = offset + (i == UL__SOURCE_SAMPLES - 1 ? span : span / (UL__SOURCE_SAMPLES - 1) * i);
    if (pread(fd, block, sizeof block, (off_t)at) != (ssize_t)sizeof block)
      return ul__fail(UL_ERR_IO, "short read");
    h = ul__hash64(h, block, sizeof block);
  }
  *out = h;
  return UL_OK;
}

void ul__prefill_src_clear(ul__prefill_src *src) {
  free(src->path);
  free(src->label);
  src->path = src->label = NULL;
}

static _Atomic int g_live;
int ul__prefills_live(void) { return atomic_load(&g_live); }
void ul__prefill_handed_over(void) { atomic_fetch_sub(&g_live, 1); }

void ul__prefill_free(const ul__wgpu *w, ul__prefill *p) {
  if (!p) return;
  if (p->buffer) {
    atomic_fetch_sub(&g_live, 1);
    w->BufferDestroy(p->buffer);
    w->BufferRelease(p->buffer);
  }
  ul__prefill_src_clear(&p->src);
  free(p);
}

void ul__prefills_free(const ul__wgpu *w, ul__prefill **list) {
  while (*list) {
    ul__prefill *p = *list;
    *list = p->next;
    ul__prefill_free(w, p);
  }
}

/* Waits for the queue's work so far. */
static ul_status queue_wait(const ul__wgpu *w, ul_env *env, WGPUInstance inst, WGPUQueue q) {
  uint32_t status = 0;
  ul_status s = ul__queue_work_done_wait(w, env, inst, q, 60000000000ull, &status);
  if (!s && status != WGPUQueueWorkDoneStatus_Success)
    s = ul__fail(UL_ERR_DEVICE_LOST, "prefill: queue status %u", status);
  return s;
}

#define UL__PREFILL_CHUNK (32ull << 20)
#define UL__PREFILL_CHUNKS_IN_FLIGHT 4

ul_status ul__prefill_make(const ul__wgpu *w, ul_env *env, WGPUInstance inst, WGPUDevice device, WGPUQueue q,
                           ul__prefill_src *src, const _Atomic bool *stop, ul__prefill **out) {
  *out = NULL;
  ul__prefill *p = calloc(1, sizeof *p);
  uint8_t *chunk = malloc((size_t)UL__MIN(src->size, UL__PREFILL_CHUNK));
  int fd = open(src->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  ul_status s = UL_OK;
  struct stat st;
  if (!p || !chunk) s = ul__fail(UL_ERR_OUT_OF_MEMORY, "prefill: out of host memory");
  else if (fd < 0) s = ul__fail(UL_ERR_IO, "prefill: %s: %s", src->path, strerror(errno));
  else if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size != src->file_size ||
           ul__stat_mtime_ns(&st) != src->mtime_ns)
    s = ul__fail(UL_ERR_IO, "prefill: %s changed since its buffer was created", src->path);
  else s = ul__source_hash_fd(fd, src->offset, src->size, &p->hash);
  if (!s) {
    WGPUBufferDescriptor bd = {0};
    bd.label = ul__sv(src->label);
    bd.usage = src->usage;
    bd.size = src->size;
    p->buffer = w->DeviceCreateBuffer(device, &bd);
    if (!p->buffer) s = ul__fail(UL_ERR_OUT_OF_MEMORY, "prefill: no buffer");
    else atomic_fetch_add(&g_live, 1);
  }
  for (uint64_t done = 0; !s && done < src->size;) {
    if (atomic_load(stop)) {
      s = ul__fail(UL_ERR_BUSY, "prefill: the standby is wanted");
      break;
    }
    uint64_t n = UL__MIN(UL__PREFILL_CHUNK, src->size - done), got = 0;
    while (got < n) {
      ssize_t r = pread(fd, chunk + got, (size_t)(n - got), (off_t)(src->offset + done + got));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) break;
      got += (uint64_t)r;
    }
    if (got < n) s = ul__fail(UL_ERR_IO, "prefill: short read of %s", src->path);
    else w->QueueWriteBuffer(q, p->buffer, done, chunk, (size_t)n); /* copied at the call */
    done += n;
    /* The implementation keeps each write's staging until its copy is
     * done: waited for every few chunks, so that it never holds the whole
     * buffer's size of it. */
    if (!s && (done / UL__PREFILL_CHUNK) % UL__PREFILL_CHUNKS_IN_FLIGHT == 0) s = queue_wait(w, env, inst, q);
  }
  if (!s) s = queue_wait(w, env, inst, q);
  /* The file the same at the end as at the start. */
  uint64_t after = 0;
  if (!s && !(s = ul__source_hash_fd(fd, src->offset, src->size, &after)) && after != p->hash)
    s = ul__fail(UL_ERR_IO, "prefill: %s changed during the fill", src->path);
  if (fd >= 0) close(fd);
  free(chunk);
  if (s) {
    if (p) {
      p->src = (ul__prefill_src){0};
      ul__prefill_free(w, p);
    }
    return s;
  }
  p->src = *src;
  memset(src, 0, sizeof *src);
  *out = p;
  return UL_OK;
}
