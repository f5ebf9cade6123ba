/* Buffers over host memory that outlives their device, on the CPU adapter.
 *
 * There a buffer's "device memory" is host memory that the implementation
 * allocates anew on each device, and a restore pays for it: every page of
 * a fresh 256 MiB buffer faults when the restore's copy first writes it
 * (about 150 ms on the 2-core machine, most of a recovery). A large buffer
 * of an unlost.h device therefore lives in pages unlost maps itself and
 * hands to each device it makes the buffer on (Dawn's buffers over host
 * memory): after a loss the new device's buffer is made over the same
 * pages, already faulted in, and its contents are written there by the
 * host, in place (ul__backing_write).
 *
 * What makes writing in place safe: every earlier buffer made over the
 * pages belongs to a device whose lost callback has run (Dawn runs it once
 * the device's queue has drained, so nothing of it runs any more), and the
 * new buffer has no work yet (its contents come back before its first
 * use). When the device of the last buffer made over them may still run
 * (moved away from without a loss, or declared hung by unlost), the buffer
 * gets new pages instead.
 *
 * Lifetime: Dawn calls a buffer's dispose callback when it no longer uses
 * the pages, which in this Dawn is when the buffer's device is released,
 * not when the buffer is. The pages are unmapped when the object is gone
 * and every buffer made over them was disposed; in between, the object's
 * end gives the physical pages back (MADV_DONTNEED) once the work already
 * submitted on the device is done. A buffer the implementation refused
 * (made on a device already lost) is never disposed of: its device's
 * release drops its reference. */
#include "res/obj.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct ul__backing {
  _Atomic int refs; /* the object's, one per buffer made over it not yet disposed, one per discard waiting */
  void *mem;
  size_t len;
  /* The device of the newest buffer made over it (a reference). */
  struct ul__native_ctx *last;
  /* A discard waits for the work before it (on_work_done): the pages are
   * not made a buffer again, whose contents it would wipe. */
  _Atomic int discarding;
  bool used; /* a buffer was made over it since its last discard */
};

_Atomic uint64_t ul__backing_live_bytes; /* mapped now, every device */

static void backing_unref(ul__backing *b) {
  if (atomic_fetch_sub(&b->refs, 1) != 1) return;
  munmap(b->mem, b->len);
  atomic_fetch_sub(&ul__backing_live_bytes, (uint64_t)b->len);
  ul__native_ctx_unref(b->last);
  free(b);
}

/* One buffer made over the pages: its reference on them goes when Dawn
 * disposes of the buffer, or when its device is released, whichever comes
 * first. Dawn disposes of a buffer through its device's queue (when the
 * work before its end is done, at a loss, or at the device's destruction),
 * so none comes after the device's last release; a buffer it made as an
 * error (on a device already lost, or memory it could not import) is
 * never disposed of. The release hook frees the record. */
typedef struct import_ref {
  ul__backing *b;
  _Atomic bool settled;
} import_ref;

static void import_settle(void *user) {
  import_ref *t = user;
  ul__backing *b = t->b; /* t may be freed once settled (import_gone) */
  if (!atomic_exchange(&t->settled, true)) backing_unref(b);
}

/* Disposed of already: nothing refers to the record any more. */
static bool import_gone(void *user) {
  import_ref *t = user;
  if (!atomic_load(&t->settled)) return false;
  free(t);
  return true;
}

static void import_device_released(void *user) {
  import_settle(user);
  free(user);
}

static ul__backing *backing_new(size_t len) {
  ul__backing *b = calloc(1, sizeof *b);
  if (!b) return NULL;
  b->mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (b->mem == MAP_FAILED) {
    free(b);
    return NULL;
  }
  /* Faults by 2 MiB where the kernel gives huge pages on request. */
  if (len >= (2u << 20)) (void)madvise(b->mem, len, MADV_HUGEPAGE);
  b->len = len;
  atomic_store(&b->refs, 1);
  atomic_fetch_add(&ul__backing_live_bytes, (uint64_t)len);
  return b;
}

/* Its contents are all written by the restore that follows its making
 * (ul__buffer_restore before any use): reused pages need no zeroing. */
static bool restored_whole(const ul__buffer_data *b) {
  if (b->restore == UL_RESTORE_SOURCE) return true;
  return (b->restore == UL_RESTORE_SHADOW || b->restore == UL_RESTORE_LOG) && b->checkpoint;
}

/* This Dawn disposes of a buffer over host memory only when its device
 * goes, so each one made keeps a record (and a reference on its pages)
 * until then: past this many on one device, the implementation's memory
 * (a device that makes and ends large buffers for hours stays bounded). */
uint32_t ul__backing_records_max = 4096;

bool ul__backing_wanted(const ul_device *d, const ul__obj *o, const WGPUBufferDescriptor *bd) {
  long page = sysconf(_SC_PAGESIZE);
  return d->host_mapped && ul__native_ctx_hook_count(d->native_ctx) < ul__backing_records_max &&
         !bd->mappedAtCreation && bd->size > UL__BACKING_MIN && page > 0 &&
         bd->size % (uint64_t)page == 0 && bd->size <= d->limits.maxBufferSize && bd->size <= SIZE_MAX &&
         !(o->u.buf.usage & (UL_BUFFER_MAP_READ | UL_BUFFER_MAP_WRITE));
}

/* Pages of an ended buffer, given back and of this size, when there are
 * any: the addresses the implementation still holds, used again (the
 * buffer over them ended, its work is done, nothing reads them). */
static ul__backing *take_spare(ul_device *d, size_t len) {
  ul__res *r = d->res;
  for (uint32_t i = 0; i < r->spare_n; i++) {
    ul__backing *b = r->spare[i];
    if (b->len != len || b->used || atomic_load(&b->discarding)) continue;
    r->spare[i] = r->spare[--r->spare_n];
    return b;
  }
  return NULL;
}

bool ul__backing_create_native(ul_device *d, ul__obj *o, const WGPUBufferDescriptor *bd) {
  ul__buffer_data *bu = &o->u.buf;
  ul__backing *b = bu->backing;
  bool fresh = false;
  if (b && ((b->last && !ul__native_ctx_drained(b->last)) || atomic_load(&b->discarding))) {
    /* A device that may still run (this one included) has a buffer over
     * these pages: new ones (the old go when that buffer is disposed). */
    bu->backing = NULL;
    backing_unref(b);
    b = NULL;
  }
  if (!b) {
    if (!(b = take_spare(d, (size_t)bd->size)) && !(b = backing_new((size_t)bd->size)))
      return false; /* the implementation's memory, then */
    bu->backing = b;
    fresh = true; /* zeros: new, or given back (MADV_DONTNEED) */
  }
  /* A new device's buffer is all zeros, as the implementation's would be,
   * unless the restore that follows writes every byte. */
  if (!fresh && !restored_whole(bu)) memset(b->mem, 0, b->len);
  /* The records of buffers disposed of already go: a device that makes
   * and ends buffers for hours keeps only those of the live ones. */
  ul__native_ctx_prune(d->native_ctx, import_device_released, import_gone);
  import_ref *t = malloc(sizeof *t);
  if (!t || !ul__native_ctx_on_release(d->native_ctx, import_device_released, t)) {
    free(t);
    return false;
  }
  t->b = b;
  atomic_store(&t->settled, false);
  atomic_fetch_add(&b->refs, 1); /* the buffer's, until Dawn disposes of it */
#if UL_WGPU_STABLE
  o->native = NULL; /* Dawn's buffers over host memory are not in the stable header */
#else
  WGPUBufferHostMappedPointer hm = {{NULL, WGPUSType_BufferHostMappedPointer}, b->mem, import_settle, t};
  WGPUBufferDescriptor with = *bd;
  hm.chain.next = with.nextInChain;
  with.nextInChain = &hm.chain;
  o->native = d->wgpu->DeviceCreateBuffer(d->device, &with);
#endif
  if (!o->native) import_settle(t); /* never the implementation's: no dispose */
  if (b->last != d->native_ctx) {
    ul__native_ctx_unref(b->last);
    b->last = ul__native_ctx_ref(d);
  }
  bu->on_backing = o->native != NULL;
  b->used = true;
  return true;
}

bool ul__backing_write(ul__obj *o, uint64_t offset, const void *data, uint64_t size) {
  ul__backing *b = o->u.buf.backing;
  if (!o->u.buf.on_backing || !b || offset + size > b->len) return false;
  memcpy((uint8_t *)b->mem + offset, data, (size_t)size);
  return true;
}

void *ul__backing_pages(ul__obj *o) {
  ul__backing *b = o->u.buf.backing;
  return o->u.buf.on_backing && b ? b->mem : NULL;
}

static void on_work_done(WGPUQueueWorkDoneStatus status, WGPUStringView message, void *u1, void *u2) {
  UL__UNUSED(status);
  UL__UNUSED(message);
  UL__UNUSED(u2);
  ul__backing *b = u1;
  /* The work submitted before the object's end is done (or will never
   * run): nothing reads or writes its pages any more. */
  (void)madvise(b->mem, b->len, MADV_DONTNEED);
  atomic_fetch_sub(&b->discarding, 1);
  backing_unref(b);
}

/* The physical pages go back once nothing can use them; the addresses
 * stay while a buffer over them is not disposed. */
static void discard(ul_device *d, ul__backing *b) {
  if (!b->used) return; /* discarded already, or never a buffer's */
  if (ul__native_ctx_drained(b->last)) { /* its device runs nothing any more */
    (void)madvise(b->mem, b->len, MADV_DONTNEED);
    b->used = false;
    return;
  }
  /* A device that may still run and is not the current one: left to the
   * buffer's disposal. */
  if (b->last != d->native_ctx || !d->queue) return;
  b->used = false;
  atomic_fetch_add(&b->refs, 1);
  atomic_fetch_add(&b->discarding, 1);
  WGPUQueueWorkDoneCallbackInfo cb = {0};
  cb.mode = WGPUCallbackMode_AllowSpontaneous;
  cb.callback = on_work_done;
  cb.userdata1 = b;
  /* The implementation's own table: no fault schedule counts this. */
  d->env->lib.procs.QueueOnSubmittedWorkDone(d->queue, cb);
}

void ul__backing_discard(ul_device *d, ul__obj *o) {
  if (o->u.buf.backing && !o->native) discard(d, o->u.buf.backing);
}

void ul__backing_let_go(ul_device *d, ul__obj *o) {
  ul__backing *b = o->u.buf.backing;
  if (!b) return;
  o->u.buf.backing = NULL;
  o->u.buf.on_backing = false;
  discard(d, b);
  ul__res *r = d->res;
  if (atomic_load(&b->refs) == 1) {
    backing_unref(b); /* nothing holds it: unmapped now */
    return;
  }
  /* The implementation holds buffers over it until their devices go: kept
   * for a buffer of the same size (the oldest spare goes). */
  if (r->spare_n == UL__COUNT_OF(r->spare)) {
    backing_unref(r->spare[0]);
    memmove(r->spare, r->spare + 1, sizeof r->spare[0] * (r->spare_n - 1));
    r->spare_n--;
  }
  r->spare[r->spare_n++] = b;
}

void ul__backing_spares_free(ul_device *d) {
  ul__res *r = d->res;
  while (r->spare_n) backing_unref(r->spare[--r->spare_n]);
}
