/* Buffers below the engine (src/engine/buffers.c): the native buffer,
 * upload and download, and the restore after a loss by policy. */
#include "core/prefill.h"
#include "core/transfer.h"
#include "res/obj.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Writes up to this size go through wgpuQueueWriteBuffer; larger ones
 * through a mapped staging buffer in chunks of UL__STAGING_CHUNK. */
#define UL__STAGING_THRESHOLD (1ull << 20)

static const char *const restore_names[] = {
#define UL__RESTORE_NAME(name, text) text,
    UL_RESTORE_MAP(UL__RESTORE_NAME)
#undef UL__RESTORE_NAME
};
const char *ul_restore_name(ul_restore r) {
  return (unsigned)r < UL__COUNT_OF(restore_names) ? restore_names[r] : "unknown";
}

bool ul__buffer_filled_at_creation(const ul__buffer_data *b) {
  return (b->usage & UL_BUFFER_MAP_WRITE) && b->shadow;
}

/* The buffer a standby made and filled for `o`, when it is of this
 * descriptor and this file: taken as o's native buffer. */
static bool take_prefilled(ul_device *d, ul__obj *o, const WGPUBufferDescriptor *bd) {
  ul__prefill *p = ul__prefill_take(d, o->id);
  if (!p) return false;
  const ul__buffer_data *b = &o->u.buf;
  bool same = p->src.usage == bd->usage && p->src.size == bd->size && !bd->mappedAtCreation && b->source_path &&
              !strcmp(p->src.path, b->source_path) && p->src.offset == b->source_offset &&
              p->src.file_size == b->source_file_size && p->src.mtime_ns == b->source_mtime_ns;
  if (same) {
    o->native = p->buffer;
    p->buffer = NULL;
    ul__prefill_handed_over();
    o->u.buf.prefilled = true;
    o->u.buf.prefill_hash = p->hash;
    d->prefill_taken++;
  }
  ul__prefill_free(&d->env->lib.procs, p);
  return same;
}

ul_status ul__buffer_create_native(ul_device *d, ul__obj *o) {
  WGPUBufferDescriptor bd = {0};
  bd.label = ul__sv(o->label);
  bd.usage = o->u.buf.wgpu_usage;
  bd.size = o->u.buf.size;
  bool fill = ul__buffer_filled_at_creation(&o->u.buf);
  bd.mappedAtCreation = fill;
  o->u.buf.prefilled = false;
  o->u.buf.on_backing = false;
  if (d->prefills && take_prefilled(d, o, &bd)) return UL_OK;
  if (ul__backing_wanted(d, o, &bd) && ul__backing_create_native(d, o, &bd)) return UL_OK;
  o->native = d->wgpu->DeviceCreateBuffer(d->device, &bd);
  if (fill && o->native) {
    void *p = d->wgpu->BufferGetMappedRange(o->native, 0, (size_t)o->u.buf.size);
    /* The contents at the last checkpoint: the log replays the mappings
     * since (the host copy is already past them). */
    const uint8_t *from = o->u.buf.checkpoint ? o->u.buf.checkpoint : o->u.buf.shadow;
    if (p) memcpy(p, from, (size_t)o->u.buf.size);
    d->wgpu->BufferUnmap(o->native);
    if (!p) return ul__fail(UL_ERR_INTERNAL, "buffer '%s': no mapped range at creation", o->label ? o->label : "");
  }
  return UL_OK;
}

/* ---- upload and download ---- */
/* MAP_WRITE buffers take no queue writes: a mapping, which resolves once
 * the work already submitted that uses the buffer is done (so a replayed
 * write lands at its place in the queue). */
static ul_status upload_by_map(ul_device *d, ul__obj *o, uint64_t offset, const void *data, uint64_t size) {
  const ul__wgpu *w = d->wgpu;
  ul_status s = ul__wait_map(d, o->native, WGPUMapMode_Write, (size_t)offset, (size_t)size, UL__DEFAULT_TIMEOUT_NS);
  if (s) return s;
  void *p = w->BufferGetMappedRange(o->native, (size_t)offset, (size_t)size);
  if (p) memcpy(p, data, (size_t)size);
  w->BufferUnmap(o->native);
  return p ? UL_OK : ul__fail(UL_ERR_INTERNAL, "buffer '%s': no mapped range", o->label ? o->label : "");
}

ul_status ul__buffer_upload(ul_device *d, ul__obj *o, uint64_t offset, const void *data,
                            uint64_t size) {
  const ul__wgpu *w = d->wgpu;
  if (o->u.buf.usage & UL_BUFFER_MAP_WRITE) return upload_by_map(d, o, offset, data, size);
  if (size <= UL__STAGING_THRESHOLD) {
    w->QueueWriteBuffer(d->queue, o->native, offset, data, (size_t)size);
    return UL_OK;
  }
  /* Large: the device's reused staging buffers, several in flight. */
  return ul__staging_upload(d, o->native, offset, data, size);
}

ul_status ul__buffer_download(ul_device *d, ul__obj *o, uint64_t offset, void *dst,
                              uint64_t size, uint64_t tmo) {
  const ul__wgpu *w = d->wgpu;
  uint64_t asize = (size + 3) & ~3ull;
  WGPUBuffer st;
  bool temporary;
  ul_status s0 = ul__staging_read_buffer(d, asize, &st, &temporary);
  if (s0) return s0;
  ul_status s = ul__copy_submit(d, o->native, offset, st, 0, asize);
  if (!s) s = ul__wait_map(d, st, WGPUMapMode_Read, 0, (size_t)asize, tmo);
  /* A completion seen after the loss is not proof that the work ran:
   * nothing reaches dst unless the device was still there. */
  if (!s && ul__device_loss_pending(d)) {
    w->BufferUnmap(st);
    s = ul__fail(UL_ERR_DEVICE_LOST, "read: device lost");
  } else if (!s) {
    const void *p = w->BufferGetConstMappedRange(st, 0, (size_t)asize);
    if (p) memcpy(dst, p, (size_t)size);
    else s = ul__fail(UL_ERR_INTERNAL, "read: mapped range unavailable");
    w->BufferUnmap(st);
  } else if (!temporary) {
    /* Timed out (or refused) with the map still pending: never leave the
     * shared read buffer unusable for the reads that follow. */
    ul__staging_drop_read(d, st);
  }
  if (temporary) {
    w->BufferDestroy(st);
    w->BufferRelease(st);
  }
  return s;
}

/* ---- restore ---- */

/* A large SOURCE's content hash (UL__SOURCE_SAMPLES blocks, prefill.h). */
static ul_status source_sample_hash(int fd, const ul__buffer_data *b, uint64_t *out) {
  return ul__source_hash_fd(fd, b->source_offset, b->size, out) ? ul__fail(UL_ERR_IO, "source '%s': short read",
                                                                          b->source_path)
                                                                : UL_OK;
}

/* The first read of a source records its hash; every later one must
 * match it, or the file is not what the buffer was made from. */
static ul_status source_check(ul__buffer_data *b, uint64_t h) {
  if (!b->source_hashed) {
    b->source_hash = h;
    b->source_hashed = true;
    return UL_OK;
  }
  if (h == b->source_hash) return UL_OK;
  return ul__fail(UL_ERR_IO,
                  "source '%s' changed since the buffer was created (same size and modification time, other "
                  "contents): its contents would not be the buffer's",
                  b->source_path);
}
/* The buffer's source file, opened, when it is still the size and the
 * modification time it had at the create. */
static ul_status source_open(const ul__buffer_data *b, int *out) {
  /* Non-blocking: a FIFO put in the file's place must not hang recovery. */
  int fd = open(b->source_path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return ul__fail(UL_ERR_IO, "source '%s': %s", b->source_path, strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return ul__fail(UL_ERR_IO, "source '%s' is not a regular file", b->source_path);
  }
  int64_t mtime = ul__stat_mtime_ns(&st);
  if ((uint64_t)st.st_size != b->source_file_size || mtime != b->source_mtime_ns) {
    close(fd);
    return ul__fail(UL_ERR_IO,
                    "source '%s' changed since the buffer was created (%llu bytes then, %llu now%s): its "
                    "contents would not be the buffer's",
                    b->source_path, (unsigned long long)b->source_file_size, (unsigned long long)st.st_size,
                    mtime != b->source_mtime_ns ? ", modified since" : "");
  }
  *out = fd;
  return UL_OK;
}

/* A whole buffer's contents put back. On the CPU adapter, one queue write
 * of them all (up to UL__WHOLE_WRITE_MAX): a buffer new on its device and
 * first written in part is cleared whole by the implementation first, a
 * pass over memory that the staging path's chunks pay there (on a GPU it
 * is a fraction of a millisecond). Elsewhere the staging path. */
#define UL__WHOLE_WRITE_MAX (1ull << 30)
static ul_status restore_bytes(ul_device *d, ul__obj *o, const void *data) {
  uint64_t size = o->u.buf.size;
  if (ul__backing_write(o, 0, data, size)) return UL_OK; /* in place, before any use */
  if (d->info.type != UL_ADAPTER_CPU || size > UL__WHOLE_WRITE_MAX || size <= UL__STAGING_THRESHOLD ||
      (o->u.buf.usage & UL_BUFFER_MAP_WRITE))
    return ul__buffer_upload(d, o, 0, data, size);
  d->wgpu->QueueWriteBuffer(d->queue, o->native, 0, data, (size_t)size);
  return UL_OK;
}

/* On the CPU adapter a file's bytes go from its pages, mapped, to the
 * queue's write (which copies them at the call): reading them into memory
 * first was the larger part of the restore there. The mapping stays for
 * the next restore while the file is the same one (checked as every
 * restore checks it, before this). */
static ul_status upload_mapped(ul_device *d, ul__obj *o, int fd) {
  ul__buffer_data *b = &o->u.buf;
  long page = sysconf(_SC_PAGESIZE);
  uint64_t lead = b->source_offset % (uint64_t)(page > 0 ? page : 4096);
  struct stat st;
  if (fstat(fd, &st) != 0) return ul__fail(UL_ERR_IO, "source '%s': %s", b->source_path, strerror(errno));
  if (b->source_map && (b->source_map_dev != (uint64_t)st.st_dev || b->source_map_ino != (uint64_t)st.st_ino)) {
    munmap(b->source_map, b->source_map_len);
    b->source_map = NULL;
  }
  if (!b->source_map) {
    size_t len = (size_t)(b->size + lead);
    void *m = mmap(NULL, len, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, (off_t)(b->source_offset - lead));
    if (m == MAP_FAILED) return ul__fail(UL_ERR_IO, "source '%s': mmap: %s", b->source_path, strerror(errno));
    b->source_map = m;
    b->source_map_len = len;
    b->source_map_dev = (uint64_t)st.st_dev;
    b->source_map_ino = (uint64_t)st.st_ino;
  }
  return restore_bytes(d, o, (const uint8_t *)b->source_map + lead);
}

/* A file's range read straight into the pages the buffer lives in (its
 * native buffer has no work yet: ul__backing_write's rule). */
static ul_status read_into_pages(int fd, const ul__buffer_data *b, uint8_t *to) {
  posix_fadvise(fd, (off_t)b->source_offset, (off_t)b->size, POSIX_FADV_SEQUENTIAL);
  for (uint64_t got = 0; got < b->size;) {
    ssize_t r = pread(fd, to + got, (size_t)(b->size - got), (off_t)(b->source_offset + got));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return ul__fail(UL_ERR_IO, "source '%s': %s", b->source_path, r ? strerror(errno) : "short read");
    got += (uint64_t)r;
  }
  return UL_OK;
}

static ul_status upload_file_range(ul_device *d, ul__obj *o) {
  ul__buffer_data *b = &o->u.buf;
  bool prefilled = b->prefilled;
  b->prefilled = false;
  int fd;
  ul_status s = source_open(b, &fd);
  if (s) return s;
  uint64_t h = 0;
  if (b->size <= UL__STAGING_THRESHOLD) {
    /* Small: one read into a bounce buffer and a queue write; the hash
     * covers every byte uploaded. */
    void *tmp = malloc((size_t)b->size);
    if (!tmp) {
      close(fd);
      return ul__fail(UL_ERR_OUT_OF_MEMORY, "source '%s': out of host memory", b->source_path);
    }
    ssize_t r = pread(fd, tmp, (size_t)b->size, (off_t)b->source_offset);
    if (r != (ssize_t)b->size) s = ul__fail(UL_ERR_IO, "source '%s': short read", b->source_path);
    else if (!(s = source_check(b, ul__hash64(0, tmp, (size_t)b->size)))) s = ul__buffer_upload(d, o, 0, tmp, b->size);
    free(tmp);
  } else if (!(s = source_sample_hash(fd, b, &h)) && !(s = source_check(b, h))) {
    /* Large: read straight into the mapped staging memory. The hash
     * samples it (UL__SOURCE_SAMPLES blocks): cheap next to the upload,
     * and it catches a rewrite that kept the size and the time. */
    if (prefilled && b->prefill_hash == h) {
      d->prefill_used++; /* filled ahead from these bytes: nothing to copy */
    } else if (ul__backing_pages(o)) {
      s = read_into_pages(fd, b, ul__backing_pages(o));
    } else if (d->info.type == UL_ADAPTER_CPU && b->size <= UL__WHOLE_WRITE_MAX &&
               ul__opt_number(UL__OPT_FILL_AHEAD) != 1) { /* 1: read ahead into staging, asked for */
      s = upload_mapped(d, o, fd);
    } else {
      posix_fadvise(fd, (off_t)b->source_offset, (off_t)b->size, POSIX_FADV_SEQUENTIAL);
      ul__fill f = {NULL, fd, b->source_offset};
      s = ul__staging_upload_from(d, o->native, 0, &f, b->size);
    }
  }
  close(fd);
  return s ? ul__wrap(s, "restore '%s' from '%s'", o->label ? o->label : "", b->source_path) : UL_OK;
}

int ul__buffer_restore_ahead(ul_device *d, ul__obj *o) {
  const ul__buffer_data *b = &o->u.buf;
  if ((b->usage & (UL_BUFFER_MAP_READ | UL_BUFFER_MAP_WRITE)) || b->size <= UL__STAGING_THRESHOLD) return 0;
  if (b->restore == UL_RESTORE_SHADOW || b->restore == UL_RESTORE_LOG) return b->checkpoint ? -1 : 0;
  if (b->restore != UL_RESTORE_SOURCE) return 0;
  if (b->source_data) return -1;
  for (const ul__prefill *p = d->prefills; p; p = p->next)
    if (p->src.id == o->id) return 0; /* made and filled on the standby already */
  int fd;
  ul__saved_error keep; /* a file that changed is the restore's to report */
  ul__error_save(&keep);
  bool open = source_open(b, &fd) == UL_OK;
  ul__error_restore(&keep);
  if (!open) return 0; /* its restore fails before it uploads */
  posix_fadvise(fd, (off_t)b->source_offset, (off_t)b->size, POSIX_FADV_SEQUENTIAL);
  return ul__staging_ahead(d, fd, b->source_offset, b->size) ? 1 : -1;
}

ul_status ul__buffer_restore(ul_device *d, ul__obj *o) {
  ul__buffer_data *b = &o->u.buf;
  if (b->usage & (UL_BUFFER_MAP_READ | UL_BUFFER_MAP_WRITE)) {
    /* MAP_WRITE + SHADOW: filled from the host copy at creation. */
    if (b->shadow && (b->wgpu_usage & WGPUBufferUsage_CopyDst))
      return ul__buffer_upload(d, o, 0, b->shadow, b->size);
    /* MAP_READ: what its last checkpoint read (the log replays the rest). */
    if (b->checkpoint && (b->usage & UL_BUFFER_MAP_READ) && (b->wgpu_usage & WGPUBufferUsage_CopyDst))
      return ul__buffer_upload(d, o, 0, b->checkpoint, b->size);
    return UL_OK;
  }
  switch (b->restore) {
  case UL_RESTORE_NONE: return UL_OK; /* new buffers are zero-filled */
  case UL_RESTORE_SOURCE:
    if (b->source_data) return restore_bytes(d, o, b->source_data);
    return upload_file_range(d, o);
  case UL_RESTORE_SHADOW: /* the host copy at the last checkpoint; the log replays the rest */
  case UL_RESTORE_LOG:
    if (b->checkpoint) return restore_bytes(d, o, b->checkpoint);
    /* Host-written (chosen from use): where its bytes came from. */
    if (b->prov_ckpt.n) return ul__prov_restore(d, o, &b->prov_ckpt);
    return UL_OK;
  case UL_RESTORE_CALLBACK: return UL_OK; /* the callback runs after the rebuild */
  }
  return UL_OK;
}

void ul__buffer_map_note(ul_device *d, ul__obj *o, struct ul__cb *cb, WGPUFuture native, size_t off, size_t size) {
  ul__buffer_map_forget(o);
  if (!cb) return;
  atomic_fetch_add(&cb->refs, 1);
  o->u.buf.map_started = true;
  o->u.buf.map_cb = cb;
  o->u.buf.map_future = native;
  o->u.buf.map_epoch = d->epoch;
  o->u.buf.map_cb_off = off;
  o->u.buf.map_cb_size = size;
}

void ul__buffer_map_forget(ul__obj *o) {
  if (!o) return;
  o->u.buf.map_started = false;
  if (o->u.buf.map_cb) ul__cb_unref(o->u.buf.map_cb);
  o->u.buf.map_cb = NULL;
}
