/* Staging buffers kept by the device, so that large uploads and reads do
 * not allocate (and pin) fresh host-visible memory every time: a ring of
 * write buffers, each mapped again while the next ones are being filled,
 * and one read buffer reused by every read that fits it. */
#include "core/transfer.h"
#include "core/prefill.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- filling a mapped chunk with several threads ----
 * Host memory and the page cache feed PCIe faster than one core copies, so
 * large chunks are split over a few threads. */
#define UL__FILL_THREADS_MAX 16
#define UL__FILL_MIN_PER_THREAD (4ull << 20)

typedef struct fill_job {
  const ul__fill *src;
  uint8_t *dst;
  uint64_t src_offset, n;
  ul_status status;
  char why[128];
} fill_job;

static void fill_range(fill_job *j) {
  const ul__fill *f = j->src;
  if (f->data) {
    memcpy(j->dst, (const uint8_t *)f->data + j->src_offset, (size_t)j->n);
    return;
  }
  for (uint64_t got = 0; got < j->n;) {
    ssize_t r = pread(f->fd, j->dst + got, (size_t)(j->n - got), (off_t)(f->file_offset + j->src_offset + got));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      j->status = UL_ERR_IO;
      snprintf(j->why, sizeof j->why, "%s", r < 0 ? strerror(errno) : "the file is shorter than expected");
      return;
    }
    got += (uint64_t)r;
  }
}

static void *fill_thread(void *arg) {
  fill_range(arg);
  return NULL;
}

/* Threads: $UNLOST_FILL_THREADS (1..16), else the online CPUs, at most 16. */
static int fill_threads(void) {
  static int n;
  if (!n) {
    long c = (long)ul__opt_number(UL__OPT_FILL_THREADS);
    if (!c) c = UL__MIN(sysconf(_SC_NPROCESSORS_ONLN), 16);
    n = c < 1 ? 1 : c > UL__FILL_THREADS_MAX ? UL__FILL_THREADS_MAX : (int)c;
  }
  return n;
}

/* A chunk being filled: its parts on threads of their own, so that the
 * caller can make the implementation's calls meanwhile (fill_start, then
 * fill_finish). */
typedef struct fill_run {
  int t;
  fill_job jobs[UL__FILL_THREADS_MAX];
  pthread_t th[UL__FILL_THREADS_MAX];
  bool started[UL__FILL_THREADS_MAX];
} fill_run;

static void fill_start(fill_run *f, const ul__fill *src, uint64_t src_offset, uint8_t *dst, uint64_t n) {
  int t = fill_threads();
  while (t > 1 && n / (uint64_t)t < UL__FILL_MIN_PER_THREAD) t--;
  f->t = t;
  uint64_t per = (n / (uint64_t)t + 4095) & ~4095ull;
  for (int i = 0; i < t; i++) {
    uint64_t a = (uint64_t)i * per, b = UL__MIN(n, a + per);
    f->jobs[i] = (fill_job){src, dst + a, src_offset + a, b > a ? b - a : 0, UL_OK, ""};
    /* One part alone is done here, at fill_finish. */
    f->started[i] = t > 1 && pthread_create(&f->th[i], NULL, fill_thread, &f->jobs[i]) == 0;
  }
}

/* Joins the parts; the first that failed, or NULL. */
static const fill_job *fill_wait(fill_run *f) {
  for (int i = 0; i < f->t; i++) {
    if (f->started[i]) pthread_join(f->th[i], NULL);
    else fill_range(&f->jobs[i]);
  }
  for (int i = 0; i < f->t; i++)
    if (f->jobs[i].status) return &f->jobs[i];
  return NULL;
}

static ul_status fill_finish(fill_run *f) {
  const fill_job *bad = fill_wait(f);
  return bad ? ul__fail(bad->status, "read the source: %s", bad->why) : UL_OK;
}

#define UL__UP_SLOTS 4
/* Chunk size for an upload of `size` bytes: an eighth of it, a power of two
 * from 16 to 128 MiB (on an H200, 1 GiB restores at 13-18 GB/s in 16-64 MiB
 * chunks and at 28-29 GB/s in 128 MiB ones: docs/bench/h200/restore-sweep.txt
 * in git at 1368c02),
 * or $UNLOST_STAGING_CHUNK_MB (1..256). Slots above 32 MiB are given back at
 * the next checkpoint or rebuild (ul__staging_trim), so that back-to-back
 * large uploads reuse them but they do not stay pinned for long. */
#define UL__KEEP_CHUNK (32ull << 20)
static uint64_t up_chunk(uint64_t size) {
  static long forced = -1;
  if (forced < 0) {
    forced = (long)ul__opt_number(UL__OPT_STAGING_CHUNK_MB);
  }
  if (forced) return (uint64_t)forced << 20;
  uint64_t c = 16ull << 20;
  while (c < (128ull << 20) && c * 8 < size) c <<= 1;
  return c;
}
#define UL__DOWN_MAX (64ull << 20)
/* Uploads from this size on say where their time went (UNLOST_LOG=info). */
#define UL__LOG_UPLOAD_BYTES (64ull << 20)

typedef struct up_slot {
  WGPUBuffer buf;
  uint64_t size;
  bool mapped;        /* mapped for writing now */
  ul__cb *pending; /* a map requested after its last copy */
  WGPUFuture future;
} up_slot;

/* The first slots of an upload from a file filled ahead, on a thread of
 * its own, while the caller goes on (the rebuild makes the objects
 * meanwhile: ul__staging_ahead). Slot i holds chunk i of the range. Only
 * that thread touches the mapped memory until it is joined (ahead_stop),
 * and every use or release of the slots joins it first. */
typedef struct ahead {
  bool on;
  pthread_t th;
  ul__fill src;         /* its own descriptor */
  struct stat id;       /* the file as it was opened */
  uint64_t size, chunk; /* the range and the chunk it was cut in */
  int first;            /* the ring's next slot when it began: chunk i is in slot first+i */
  int chunks;           /* slots being filled */
  int filled;           /* ... of which filled without an error (the thread's, read after the join) */
  uint8_t *dst[UL__UP_SLOTS];
} ahead;

struct ul__staging {
  uint64_t epoch;
  up_slot up[UL__UP_SLOTS];
  int next;
  WGPUBuffer down;
  uint64_t down_size;
  ahead ahead;
};

static void slot_release(ul_device *d, up_slot *s) {
  if (!s->buf) return;
  d->wgpu->BufferDestroy(s->buf); /* aborts a pending map; its callback keeps its reference */
  ul__cb_unref(s->pending);
  s->pending = NULL;
  d->wgpu->BufferRelease(s->buf);
  memset(s, 0, sizeof *s);
}

/* Joins the thread filling ahead, if any; how many slots it filled. */
static int ahead_stop(ul__staging *st) {
  ahead *a = &st->ahead;
  if (!a->on) return 0;
  pthread_join(a->th, NULL);
  close(a->src.fd);
  int filled = a->filled;
  memset(a, 0, sizeof *a);
  return filled;
}

/* ... one whose upload never came (a restore that failed its checks, a
 * rebuild that ended early), counted as dropped like one of another
 * range. */
static void ahead_drop(ul_device *d, ul__staging *st) {
  d->staging_ahead_dropped += st->ahead.on;
  ahead_stop(st);
}

void ul__staging_trim(ul_device *d) {
  ul__staging *st = d->staging;
  if (!st || st->epoch != d->epoch) return;
  ahead_drop(d, st);
  for (int i = 0; i < UL__UP_SLOTS; i++)
    if (st->up[i].size > UL__KEEP_CHUNK) slot_release(d, &st->up[i]);
}

void ul__staging_release(ul_device *d) {
  ul__staging *st = d->staging;
  if (!st) return;
  ahead_drop(d, st); /* before the memory it writes is unmapped */
  for (int i = 0; i < UL__UP_SLOTS; i++) slot_release(d, &st->up[i]);
  if (st->down) {
    d->wgpu->BufferDestroy(st->down);
    d->wgpu->BufferRelease(st->down);
  }
  free(st);
  d->staging = NULL;
}

/* A new staging buffer of `size` for `slot`, mapped for writing. */
static bool slot_make(ul_device *d, up_slot *slot, uint64_t size) {
  WGPUBufferDescriptor bd = {0};
  bd.label = ul__sv("unlost staging");
  bd.usage = WGPUBufferUsage_MapWrite | WGPUBufferUsage_CopySrc;
  bd.size = size;
  bd.mappedAtCreation = 1;
  slot->buf = d->wgpu->DeviceCreateBuffer(d->device, &bd);
  if (!slot->buf) return false;
  slot->size = size;
  slot->mapped = true;
  return true;
}

/* Asks for a staging slot's map again, right after its copy was submitted:
 * it completes when the copy has, while the next slots are being filled. */
static ul_status slot_map_again(ul_device *d, up_slot *slot) {
  slot->future = ul__map_start(d, slot->buf, WGPUMapMode_Write, 0, (size_t)slot->size, WGPUCallbackMode_WaitAnyOnly,
                               &slot->pending);
  if (slot->pending) return UL_OK;
  slot_release(d, slot);
  return ul__fail(UL_ERR_OUT_OF_MEMORY, "upload: out of host memory");
}

/* The device's staging state for the current epoch (buffers of an older
 * device are dropped). */
static ul_status staging(ul_device *d, ul__staging **out) {
  ul__staging *st = d->staging;
  if (st && st->epoch != d->epoch) {
    ul__staging_release(d);
    st = NULL;
  }
  if (!st) {
    st = calloc(1, sizeof *st);
    if (!st) return ul__fail(UL_ERR_OUT_OF_MEMORY, "staging: out of host memory");
    st->epoch = d->epoch;
    d->staging = st;
  }
  *out = st;
  return UL_OK;
}

static void *ahead_thread(void *arg) {
  ahead *a = arg;
  for (int i = 0; i < a->chunks; i++) {
    uint64_t off = (uint64_t)i * a->chunk;
    fill_run run;
    fill_start(&run, &a->src, off, a->dst[i], UL__MIN(a->chunk, a->size - off));
    if (fill_wait(&run)) break; /* the upload reads that chunk itself, and says why it failed */
    a->filled = i + 1;
  }
  return NULL;
}

bool ul__staging_ahead(ul_device *d, int fd, uint64_t file_offset, uint64_t size) {
  ul__staging *st = NULL;
  /* Not by default on the CPU adapter: there the staging memory is fresh
   * host memory, slow to make (on lavapipe, 4 buffers of 32 MiB took
   * 35-40 ms, and the restore waits for its copies anyway). */
  uint64_t mode = ul__opt_number(UL__OPT_FILL_AHEAD);
  if (!mode || (mode == 2 && d->info.type == UL_ADAPTER_CPU) || staging(d, &st) != UL_OK) {
    close(fd);
    return false;
  }
  ahead_stop(st); /* one at a time */
  ahead *a = &st->ahead;
  a->chunk = up_chunk(size);
  a->size = size;
  a->src = (ul__fill){NULL, fd, file_offset};
  a->first = st->next;
  int want = fstat(fd, &a->id) == 0 ? (int)UL__MIN((size + a->chunk - 1) / a->chunk, (uint64_t)UL__UP_SLOTS) : 0;
  for (int i = 0; i < want; i++) {
    up_slot *slot = &st->up[(a->first + i) % UL__UP_SLOTS];
    if (slot->buf && (slot->size != a->chunk || !slot->mapped)) break; /* in use: the upload does it */
    if (!slot->buf && !slot_make(d, slot, a->chunk)) break;
    a->dst[i] = d->wgpu->BufferGetMappedRange(slot->buf, 0, (size_t)a->chunk);
    if (!a->dst[i]) break;
    a->chunks = i + 1;
  }
  if (!a->chunks || pthread_create(&a->th, NULL, ahead_thread, a) != 0) {
    close(fd);
    memset(a, 0, sizeof *a);
    return false;
  }
  a->on = true;
  return true;
}

/* Joins the fill ahead; how many of this upload's first chunks it holds
 * (0 when it was of another range, or of the file as it was then). */
static int ahead_claim(ul_device *d, ul__staging *st, const ul__fill *src, uint64_t size) {
  ahead *a = &st->ahead;
  if (!a->on) return 0;
  struct stat now;
  bool same = !src->data && src->file_offset == a->src.file_offset && size == a->size && st->next == a->first &&
              fstat(src->fd, &now) == 0 && now.st_dev == a->id.st_dev && now.st_ino == a->id.st_ino &&
              now.st_size == a->id.st_size && ul__stat_mtime_ns(&now) == ul__stat_mtime_ns(&a->id);
  d->staging_ahead_dropped += !same;
  int filled = ahead_stop(st);
  return same ? filled : 0;
}

ul_status ul__staging_upload(ul_device *d, WGPUBuffer dst, uint64_t offset, const void *data,
                             uint64_t size) {
  ul__fill f = {data, -1, 0};
  return ul__staging_upload_from(d, dst, offset, &f, size);
}

ul_status ul__staging_upload_from(ul_device *d, WGPUBuffer dst, uint64_t offset, const ul__fill *src,
                                  uint64_t size) {
  const ul__wgpu *w = d->wgpu;
  ul__staging *st = NULL;
  ul_status s = staging(d, &st);
  if (s) return s;
  const uint64_t chunk = up_chunk(size);
  /* Where a large upload's time goes, for UNLOST_LOG=info. */
  uint64_t t_start = ul__now_ns(), t_create = 0, t_wait = 0, t_fill = 0, t_submit = 0, t_unmap = 0, t_copy = 0, t0;
  const int ready = ahead_claim(d, st, src, size); /* its first chunks, filled already */
  uint64_t t_ahead = ul__now_ns() - t_start, ahead_bytes = 0;
  unsigned created = 0;
  uint64_t done = 0;
  /* The whole chunks filled ahead go in one submission: on a device just
   * made, each submission cost 1-2 ms on the H200, and a first use waits
   * for them. */
  WGPUBuffer batch[UL__UP_SLOTS];
  uint32_t nb = 0;
  while ((int)nb < ready && (uint64_t)(nb + 1) * chunk <= size) {
    up_slot *slot = &st->up[(st->next + nb) % UL__UP_SLOTS];
    if (!slot->buf || slot->size != chunk || !slot->mapped) break;
    batch[nb++] = slot->buf;
  }
  if (nb > 1) {
    t0 = ul__now_ns();
    for (uint32_t i = 0; i < nb; i++) {
      up_slot *slot = &st->up[(st->next + i) % UL__UP_SLOTS];
      w->BufferUnmap(slot->buf);
      slot->mapped = false;
    }
    if ((s = ul__copies_submit(d, batch, nb, chunk, dst, offset))) return s;
    for (uint32_t i = 0; i < nb; i++) {
      up_slot *slot = &st->up[st->next];
      st->next = (st->next + 1) % UL__UP_SLOTS;
      if ((s = slot_map_again(d, slot))) return s;
    }
    done = ahead_bytes = (uint64_t)nb * chunk;
    t_submit += ul__now_ns() - t0;
    t_copy += ul__now_ns() - t0;
  }
  while (done < size) {
    uint64_t n = UL__MIN(chunk, size - done);
    up_slot *slot = &st->up[st->next];
    st->next = (st->next + 1) % UL__UP_SLOTS;
    if (done / chunk < (uint64_t)ready && slot->buf && slot->size == chunk && slot->mapped) {
      ahead_bytes += n; /* mapped and filled: only the copy is left */
    } else {
      if (slot->buf && slot->size != chunk) slot_release(d, slot);
      if (!slot->buf) {
        t0 = ul__now_ns();
        bool made = slot_make(d, slot, chunk);
        t_create += ul__now_ns() - t0;
        created += made;
        if (!made) return ul__fail(UL_ERR_OUT_OF_MEMORY, "upload: no staging buffer");
      } else if (!slot->mapped) {
        /* Its last copy must be done before it is written again. */
        t0 = ul__now_ns();
        s = ul__env_wait(d->env, d->instance, slot->future, &slot->pending->done, 60000000000ull);
        t_wait += ul__now_ns() - t0;
        if (s) {
          slot_release(d, slot); /* never left with a map pending */
          return ul__wrap(s, "upload: staging map");
        }
        if (slot->pending->status != WGPUMapAsyncStatus_Success) {
          bool lost = ul__map_says_lost(d, slot->pending);
          uint32_t ms = slot->pending->status;
          slot_release(d, slot);
          return lost ? ul__fail(UL_ERR_DEVICE_LOST, "upload: device lost")
                      : ul__fail(UL_ERR_INTERNAL, "upload: staging map failed (%u)", ms);
        }
        ul__cb_unref(slot->pending);
        slot->pending = NULL;
        slot->mapped = true;
      }
      void *p = w->BufferGetMappedRange(slot->buf, 0, (size_t)n);
      if (!p) {
        slot_release(d, slot);
        return ul__device_loss_pending(d) ? ul__fail(UL_ERR_DEVICE_LOST, "upload: device lost")
                                          : ul__fail(UL_ERR_INTERNAL, "upload: staging buffer not mapped");
      }
      t0 = ul__now_ns();
      fill_run run;
      fill_start(&run, src, done, p, n);
      /* While the threads fill this one, the next slot a new device has not
       * made yet is made (on the H200, 3 ms for each of 128 MiB). */
      up_slot *next = &st->up[st->next];
      if (done + n < size && !next->buf) {
        uint64_t tc = ul__now_ns();
        created += slot_make(d, next, chunk);
        t_create += ul__now_ns() - tc;
      }
      s = fill_finish(&run);
      t_fill += ul__now_ns() - t0;
    }
    t0 = ul__now_ns();
    w->BufferUnmap(slot->buf);
    slot->mapped = false;
    t_unmap += ul__now_ns() - t0;
    if (s) return s;
    uint64_t tc = ul__now_ns();
    if ((s = ul__copy_submit(d, slot->buf, 0, dst, offset + done, n))) return s;
    t_copy += ul__now_ns() - tc;
    s = slot_map_again(d, slot);
    t_submit += ul__now_ns() - t0;
    if (s) return s;
    done += n;
  }
  d->staging_ahead_bytes += ahead_bytes;
  if (size >= UL__LOG_UPLOAD_BYTES)
    ul__log(UL__LOG_INFO,
            "upload of %.1f MiB in %.1f ms: %.1f MiB filled ahead (%.1f ms waiting for it), %u staging buffer(s) "
            "of %llu MiB made in %.1f ms, filled at %.1f GB/s (%.1f ms), %.1f ms waiting for copies, %.1f ms to "
            "unmap, copy and map again (unmap %.1f, copy %.1f)",
            (double)size / 1048576.0, (double)(ul__now_ns() - t_start) / 1e6, (double)ahead_bytes / 1048576.0,
            (double)t_ahead / 1e6, created, (unsigned long long)(chunk >> 20), (double)t_create / 1e6,
            t_fill ? (double)(size - ahead_bytes) / (double)t_fill : 0.0, (double)t_fill / 1e6,
            (double)t_wait / 1e6, (double)t_submit / 1e6, (double)t_unmap / 1e6,
            (double)t_copy / 1e6);
  return UL_OK;
}

void ul__staging_drop_read(ul_device *d, WGPUBuffer b) {
  ul__staging *st = d->staging;
  if (!st || st->down != b || !b) return;
  d->wgpu->BufferDestroy(st->down); /* aborts the pending map */
  d->wgpu->BufferRelease(st->down);
  st->down = NULL;
  st->down_size = 0;
}

ul_status ul__staging_read_buffer(ul_device *d, uint64_t size, WGPUBuffer *out, bool *temporary) {
  *out = NULL;
  *temporary = false;
  WGPUBufferDescriptor bd = {0};
  bd.label = ul__sv("unlost readback");
  bd.usage = WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst;
  if (size > UL__DOWN_MAX) {
    bd.size = size;
    *out = d->wgpu->DeviceCreateBuffer(d->device, &bd);
    *temporary = true;
    return *out ? UL_OK : ul__fail(UL_ERR_OUT_OF_MEMORY, "read: no staging buffer");
  }
  ul__staging *st = NULL;
  ul_status s = staging(d, &st);
  if (s) return s;
  if (!st->down || st->down_size < size) {
    if (st->down) {
      d->wgpu->BufferDestroy(st->down);
      d->wgpu->BufferRelease(st->down);
    }
    uint64_t sz = 4096;
    while (sz < size) sz <<= 1;
    bd.size = sz;
    st->down = d->wgpu->DeviceCreateBuffer(d->device, &bd);
    st->down_size = st->down ? sz : 0;
    if (!st->down) return ul__fail(UL_ERR_OUT_OF_MEMORY, "read: no staging buffer");
  }
  *out = st->down;
  return UL_OK;
}
