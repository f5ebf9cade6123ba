/* Checkpoints: the state a replay starts from, committed as a transaction.
 *
 * A checkpoint reads the dirty LOG objects into fresh host memory and,
 * once every one is read and no loss is pending, commits them together
 * with emptying the log. The reads are batched: the buffers that fit in
 * one staging buffer are copied by one submission and read by one map.
 *
 * A checkpoint is resumable. Each copy is taken at a place in the log (the
 * entries before it had run) and kept while the object provably did not
 * change since: no entry after that place may touch it (ul__oplog_
 * may_touch_since). A loss does not throw the copies away: the recovery's
 * replay brings the device back to the same place, and the next attempt
 * reads only what is missing. What commits is still one point in the
 * queue: every copy holds the object's contents as of the log's end. After
 * a loss the batches get smaller (halved down to one object), so that an
 * attempt can finish something between two losses. */
#include "recover/recover.h"
#include "exec/oplog.h"
#include "exec/read.h"
#include "core/transfer.h"

#define UL__CHECKPOINT_TIMEOUT_NS 60000000000ull
/* A batch never holds more than this (the reused read buffer's size). */
#define UL__CHECKPOINT_BATCH_BYTES (64ull << 20)

typedef struct kept_copy {
  ul__obj *o;       /* compared, never read: the object may be gone */
  ul__obj_kind kind;
  uint32_t id;
  uint32_t at;      /* the log's length when it was read */
  uint8_t *data;
} kept_copy;

/* What an asynchronous checkpoint takes of one object it looks at. */
typedef enum pend_how {
  PEND_NONE = 0, /* nothing (not changed in a way a checkpoint keeps) */
  PEND_COPY,     /* copied by the GPU into the staging buffer, at `off` */
  PEND_MAPPED,   /* a MAP_READ buffer: read at the commit, unless it changed since */
  PEND_PROV,     /* host-written: where its bytes came from (`prov`) */
  PEND_SHADOW,   /* a host copy: `data` */
  PEND_TAKEN,    /* a MAP_READ buffer's contents, taken at the start: `data` */
} pend_how;

typedef struct pend {
  ul__obj *o; /* compared, never read: the object may be gone */
  uint32_t id;
  pend_how how;
  uint64_t off;
  uint8_t *data;
  ul__prov prov;
} pend;

/* The asynchronous checkpoint under way: copies recorded into the queue
 * at position `at` of the log, committed once their map ends, while the
 * program goes on. */
typedef struct ckpt_async {
  bool on;
  uint32_t at;        /* the log's length when the copies were submitted */
  uint64_t mark;      /* ul__oplog_mark then */
  uint64_t epoch;
  uint64_t t0;
  ul__cb *map;        /* the staging buffer's map, or (nothing to copy) the work done */
  WGPUFuture future;
  uint64_t total;     /* bytes copied into the staging buffer (0: `map` is the work done) */
  pend *p;
  uint32_t n;
  bool all;           /* every object was listed (ul__obj_noted_take) */
  uint32_t *cand;     /* the noted list taken: given back if nothing commits */
  uint32_t nc;
  WGPUBuffer st;      /* its staging buffer, kept for the next one */
  uint64_t st_size, st_epoch;
} ckpt_async;

typedef struct ul__ckpt {
  kept_copy *c;
  uint32_t n, cap;
  uint32_t batch;   /* most objects per batch in the next attempt (0: any) */
  uint64_t epoch_seen;
  ckpt_async a;
  uint64_t async_looks; /* asynchronous starts that looked at the changed objects */
} ul__ckpt;

static void async_drop(ul_device *d, ul__ckpt *k, bool give_back);

/* The LOG buffers and textures changed since the last checkpoint. */
static bool takes_part(const ul__obj *o) {
  if (!o || o->pending || o->destroyed || o->state != UL__OBJ_VALID) return false;
  if (o->kind == UL__OBJ_TEXTURE) return o->u.tex.restore == UL_RESTORE_LOG && o->u.tex.dirty && o->u.tex.fmt.copyable;
  if (o->kind != UL__OBJ_BUFFER) return false;
  const ul__buffer_data *b = &o->u.buf;
  /* A host-written buffer is not read back: its extents are the copy.
   * MAP_WRITE buffers keep a host copy of their own; MAP_READ ones take
   * part (copies write them) and are read by a map of their own. */
  return b->restore == UL_RESTORE_LOG && b->dirty && !b->host_only && !(b->usage & UL_BUFFER_MAP_WRITE);
}

static bool map_read(const ul__obj *o) { return o->kind == UL__OBJ_BUFFER && (o->u.buf.usage & UL_BUFFER_MAP_READ); }

/* A MAP_READ buffer cannot be copied from: its contents are read by a map
 * of the buffer itself, or from the program's mapping when that covers it
 * all. A map of the program's still on its way, or one of a part, leaves
 * the checkpoint without it (nothing commits; the next try reads it). */
static ul_status read_mapped(ul_device *d, ul__obj *o, uint8_t *dst) {
  const ul__wgpu *w = d->wgpu;
  ul__buffer_data *b = &o->u.buf;
  const char *label = o->label ? o->label : "";
  if (b->read_copy_valid && b->read_copy && b->read_copy_epoch == d->epoch) {
    /* What the program's last map of it all showed, unchanged since. */
    memcpy(dst, b->read_copy, (size_t)b->size);
    return UL_OK;
  }
  if (b->mapped) {
    if (b->map_ptr && b->map_offset == 0 && b->map_size >= b->size) {
      memcpy(dst, b->map_ptr, (size_t)b->size);
      return UL_OK;
    }
    return ul__fail(UL_ERR_BUSY, "checkpoint: MAP_READ buffer '%s' is mapped in part; it is read once unmapped", label);
  }
  /* A map started on a device lost since is on no native buffer of now:
   * its thread starts it again after the recovery (under the device's
   * lock, so not while this one maps the buffer). */
  if (b->map_started && b->map_epoch == d->epoch) {
    /* The program's map of it all, started on this device: its end is
     * waited for (the work before it runs to its end anyway) and the
     * mapping read; the map stays the program's. Another thread's map
     * otherwise keeps a small log from ever emptying. */
    if (b->map_cb && b->map_cb_off == 0 && b->map_cb_size >= b->size && o->native &&
        !ul__env_wait(d->env, d->instance, b->map_future, &b->map_cb->done, UL__CHECKPOINT_TIMEOUT_NS)) {
      if (ul__device_loss_pending(d) || ul__map_says_lost(d, b->map_cb))
        return ul__fail(UL_ERR_DEVICE_LOST, "checkpoint: device lost");
      const uint8_t *p = b->map_cb->status == WGPUMapAsyncStatus_Success
                             ? w->BufferGetConstMappedRange(o->native, 0, b->map_cb_size)
                             : NULL;
      if (p) {
        memcpy(dst, p, (size_t)b->size);
        return UL_OK;
      }
    }
    return ul__fail(UL_ERR_BUSY, "checkpoint: MAP_READ buffer '%s' has a map on its way; it is read once that ended",
                    label);
  }
  if (!o->native) return ul__fail(UL_ERR_DEVICE_LOST, "checkpoint: buffer '%s' has no native buffer", label);
  size_t whole = (size_t)((b->size + 3) & ~3ull);
  ul_status s = ul__wait_map(d, o->native, WGPUMapMode_Read, 0, whole, UL__CHECKPOINT_TIMEOUT_NS);
  if (!s && ul__device_loss_pending(d)) {
    w->BufferUnmap(o->native);
    return ul__fail(UL_ERR_DEVICE_LOST, "checkpoint: device lost");
  }
  if (s) return s;
  const uint8_t *p = w->BufferGetConstMappedRange(o->native, 0, whole);
  if (p) memcpy(dst, p, (size_t)b->size);
  w->BufferUnmap(o->native);
  return p ? UL_OK : ul__fail(UL_ERR_INTERNAL, "checkpoint: '%s': mapped range unavailable", label);
}

static uint64_t snapshot_bytes(const ul__obj *o) {
  return o->kind == UL__OBJ_TEXTURE ? ul__texture_all_bytes(o) : o->u.buf.size;
}

static ul__ckpt *ckpt_of(ul_device *d, bool create) {
  void **slot = ul__oplog_checkpoint_slot(d);
  if (!*slot && create) *slot = calloc(1, sizeof(ul__ckpt));
  return *slot;
}

void ul__checkpoint_forget(ul_device *d) {
  if (!d->res || !d->res->log) return;
  void **slot = ul__oplog_checkpoint_slot(d);
  ul__ckpt *k = *slot;
  if (!k) return;
  async_drop(d, k, true);
  if (k->a.st) {
    d->wgpu->BufferDestroy(k->a.st);
    d->wgpu->BufferRelease(k->a.st);
  }
  for (uint32_t i = 0; i < k->n; i++) free(k->c[i].data);
  free(k->c);
  free(k);
  *slot = NULL;
}

/* The kept copy of `o` that still holds its contents as of the log's end,
 * or NULL. */
static kept_copy *kept_for(ul__ckpt *k, const ul__obj *o) {
  for (uint32_t i = 0; i < k->n; i++)
    if (k->c[i].o == o && k->c[i].id == o->id) return &k->c[i];
  return NULL;
}

/* Drops the copies that no longer count: their object is gone or no longer
 * takes part, or an entry logged after the copy may have changed it. */
static void drop_stale(ul_device *d, ul__ckpt *k) {
  uint32_t w = 0;
  for (uint32_t i = 0; i < k->n; i++) {
    kept_copy *c = &k->c[i];
    ul__obj *o = ul__obj_find(d, c->id, c->kind);
    bool keep = o == c->o && takes_part(o) && !ul__oplog_may_touch_since(d, c->at, o);
    if (keep) k->c[w++] = *c;
    else free(c->data);
  }
  k->n = w;
}

static ul_status keep(ul__ckpt *k, ul__obj *o, uint32_t at, uint8_t *data) {
  kept_copy *grown = ul__grow(k->c, k->n, &k->cap, sizeof *k->c, 16);
  if (!grown) return ul__fail(UL_ERR_OUT_OF_MEMORY, "checkpoint: out of host memory");
  k->c = grown;
  k->c[k->n++] = (kept_copy){o, o->kind, o->id, at, data};
  return UL_OK;
}

/* Reads buffers objs[0..n) (their sizes add up to at most the batch bound)
 * into dst[i] by one submission of n copies into one staging buffer and
 * one map of it. Nothing reaches dst unless the device was there all
 * along. */
static ul_status download_batch(ul_device *d, ul__obj **objs, uint32_t n, uint8_t **dst) {
  const ul__wgpu *w = d->wgpu;
  uint64_t total = 0;
  for (uint32_t i = 0; i < n; i++) total += (objs[i]->u.buf.size + 3) & ~3ull;
  WGPUBuffer st;
  bool temporary;
  ul_status s = ul__staging_read_buffer(d, total, &st, &temporary);
  if (s) return s;
  WGPUCommandEncoder e = w->DeviceCreateCommandEncoder(d->device, NULL);
  if (!e) {
    s = ul__fail(UL_ERR_OUT_OF_MEMORY, "checkpoint: no command encoder");
    goto out;
  }
  uint64_t off = 0;
  for (uint32_t i = 0; i < n; i++) {
    uint64_t sz = (objs[i]->u.buf.size + 3) & ~3ull;
    w->CommandEncoderCopyBufferToBuffer(e, objs[i]->native, 0, st, off, sz);
    off += sz;
  }
  WGPUCommandBuffer cb = w->CommandEncoderFinish(e, NULL);
  w->CommandEncoderRelease(e);
  if (!cb) {
    s = ul__fail(UL_ERR_OUT_OF_MEMORY, "checkpoint: no command buffer");
    goto out;
  }
  ul__queue_submit(d, cb);
  w->CommandBufferRelease(cb);
  if (ul__device_loss_pending(d)) {
    s = ul__fail(UL_ERR_DEVICE_LOST, "checkpoint: device lost");
    goto out;
  }
  s = ul__wait_map(d, st, WGPUMapMode_Read, 0, (size_t)total, UL__CHECKPOINT_TIMEOUT_NS);
  /* A completion seen after the loss is not proof that the copies ran. */
  if (!s && ul__device_loss_pending(d)) {
    w->BufferUnmap(st);
    s = ul__fail(UL_ERR_DEVICE_LOST, "checkpoint: device lost");
  } else if (!s) {
    const uint8_t *p = w->BufferGetConstMappedRange(st, 0, (size_t)total);
    off = 0;
    for (uint32_t i = 0; p && i < n; i++) {
      memcpy(dst[i], p + off, (size_t)objs[i]->u.buf.size);
      off += (objs[i]->u.buf.size + 3) & ~3ull;
    }
    if (!p) s = ul__fail(UL_ERR_INTERNAL, "checkpoint: mapped range unavailable");
    w->BufferUnmap(st);
  }
out:
  if (s && !temporary) ul__staging_drop_read(d, st); /* its map may still be pending */
  if (temporary) {
    w->BufferDestroy(st);
    w->BufferRelease(st);
  }
  return s;
}

/* Reads what the checkpoint still misses, batch by batch; each batch read
 * is kept at once (progress). */
static ul_status read_missing(ul_device *d, ul__ckpt *k, const uint32_t *cand, uint32_t nc, bool *progress) {
  const uint32_t at = ul__oplog_count(d);
  ul__obj *objs[256];
  uint8_t *dst[256];
  uint32_t limit = k->batch ? k->batch : UL__COUNT_OF(objs);
  ul_status s = UL_OK;
  uint32_t i = 0;
  while (!s) {
    /* The next batch: buffers that fit together (one that is larger than
     * the bound goes alone, through a buffer of its own). */
    uint32_t n = 0;
    uint64_t bytes = 0;
    for (; i < nc && n < limit; i++) {
      ul__obj *o = ul__obj_find_any(d, cand[i]);
      if (!takes_part(o) || o->kind != UL__OBJ_BUFFER || map_read(o) || kept_for(k, o)) continue;
      uint64_t sz = (o->u.buf.size + 3) & ~3ull;
      if (n && bytes + sz > UL__CHECKPOINT_BATCH_BYTES) break;
      objs[n++] = o;
      bytes += sz;
    }
    if (!n) break;
    uint32_t got = 0;
    for (; got < n; got++)
      if (!(dst[got] = malloc((size_t)objs[got]->u.buf.size))) break;
    if (got < n) {
      s = ul__fail(UL_ERR_OUT_OF_MEMORY, "checkpoint '%s': no host memory for %llu bytes",
                   objs[got]->label ? objs[got]->label : "", (unsigned long long)objs[got]->u.buf.size);
    } else {
      s = download_batch(d, objs, n, dst);
      if (s && n == 1) s = ul__wrap(s, "checkpoint '%s'", objs[0]->label ? objs[0]->label : "");
      else if (s) s = ul__wrap(s, "checkpoint of %u buffers ('%s' first)", n, objs[0]->label ? objs[0]->label : "");
    }
    for (uint32_t j = 0; j < got; j++) {
      if (!s && !(s = keep(k, objs[j], at, dst[j]))) {
        *progress = true;
        continue;
      }
      free(dst[j]);
    }
  }
  /* MAP_READ buffers (each by a map of its own) and textures, one at a
   * time. */
  for (uint32_t t = 0; !s && t < nc; t++) {
    ul__obj *o = ul__obj_find_any(d, cand[t]);
    if (!takes_part(o) || (o->kind != UL__OBJ_TEXTURE && !map_read(o)) || kept_for(k, o)) continue;
    uint64_t bytes = snapshot_bytes(o);
    uint8_t *data = malloc(bytes ? (size_t)bytes : 1);
    if (!data)
      return ul__fail(UL_ERR_OUT_OF_MEMORY, "checkpoint '%s': no host memory for %llu bytes",
                      o->label ? o->label : "", (unsigned long long)bytes);
    s = o->kind == UL__OBJ_TEXTURE ? ul__texture_download_all(d, o, data, UL__CHECKPOINT_TIMEOUT_NS)
                                   : read_mapped(d, o, data);
    if (!s && ul__device_loss_pending(d)) s = ul__fail(UL_ERR_DEVICE_LOST, "checkpoint: device lost");
    if (!s) s = keep(k, o, at, data);
    if (s) {
      free(data);
      s = ul__wrap(s, "checkpoint '%s'", o->label ? o->label : "");
    } else {
      *progress = true;
    }
  }
  return s;
}

/* Every object a checkpoint must see was noted (ul__obj_note_changed):
 * checked against a look at every object in debug builds (the sanitizer
 * runs), where its cost does not matter. */
static ul_status check_noted(ul_device *d) {
#ifdef NDEBUG
  UL__UNUSED(d);
  return UL_OK;
#else
  ul__res *r = d->res;
  if (r->noted_all) return UL_OK;
  for (uint32_t i = 1; i < r->next_unused && i < r->cap; i++) {
    ul__obj *o = r->slots[i];
    if (!o || o->noted) continue;
    const ul__buffer_data *b = o->kind == UL__OBJ_BUFFER ? &o->u.buf : NULL;
    bool changed = (b && b->dirty) || (o->kind == UL__OBJ_TEXTURE && o->u.tex.dirty);
    if (!changed && b && !o->pending && (b->restore == UL_RESTORE_SHADOW || (b->usage & UL_BUFFER_MAP_WRITE)) &&
        b->checkpoint && b->shadow)
      changed = memcmp(b->checkpoint, b->shadow, (size_t)b->size) != 0;
    if (changed)
      return ul__fail(UL_ERR_INTERNAL, "checkpoint: %s '%s' changed without being noted", ul__obj_kind_name(o->kind),
                      o->label ? o->label : "");
  }
  return UL_OK;
#endif
}

ul_status ul__checkpoint_attempt(ul_device *d, bool *progress) {
  *progress = false;
  if (d->recovering || d->res->rebuilding)
    return ul__fail(UL_ERR_WRONG_STATE, "checkpoint: device '%s' is recovering (not from a restore callback)",
                    d->label);
  /* One under way ends first (committed, or given up and its noted list
   * given back): what follows sees every change since the last commit. */
  if (ul__checkpoint_async_settle(d, UL__CHECKPOINT_TIMEOUT_NS)) *progress = true;
  if (ul__device_loss_pending(d)) return ul__fail(UL_ERR_DEVICE_LOST, "checkpoint: device '%s' is lost", d->label);
  if (ul__oplog_empty(d)) {
    ul__checkpoint_forget(d);
    ul__staging_trim(d);
    return UL_OK;
  }
  /* Contents a rebuild left for their first use are put back first: a
   * checkpoint reads the natives and then lets the log go. */
  ul_status sc = ul__restore_all(d);
  if (sc) return ul__wrap(sc, "checkpoint");
  ul__ckpt *k = ckpt_of(d, true);
  uint32_t *cand, nc; /* what changed since the last checkpoint: all it looks at */
  if (!k || !ul__obj_noted(d, &cand, &nc)) return ul__fail(UL_ERR_OUT_OF_MEMORY, "checkpoint: out of host memory");
  ul_status s = check_noted(d);
  if (s) {
    free(cand);
    return s;
  }
  const uint64_t t0 = ul__now_ns();
  if (k->epoch_seen && k->epoch_seen != d->epoch && k->batch != 1) {
    /* Lost since the last attempt: smaller batches, so that one can end
     * between two losses. */
    uint32_t all = 0;
    for (uint32_t i = 0; i < nc; i++) all += takes_part(ul__obj_find_any(d, cand[i]));
    uint32_t cur = k->batch ? k->batch : all;
    k->batch = cur > 2 ? cur / 2 : 1;
  }
  k->epoch_seen = d->epoch;
  drop_stale(d, k);
  /* 1. Read what is missing into fresh memory: the committed copies stay
   * as they are. */
  s = read_missing(d, k, cand, nc, progress);
  /* 2. Reads in flight get their data now: the log will not hold them. */
  if (!s) {
    uint32_t before = ul__reads_unsettled(d);
    s = ul__reads_settle(d, UL__CHECKPOINT_TIMEOUT_NS);
    if (ul__reads_unsettled(d) < before) *progress = true;
  }
  /* 3. Commit only if no loss came since the copies were read. */
  if (!s && ul__device_loss_pending(d))
    s = ul__fail(UL_ERR_DEVICE_LOST, "device '%s' lost during the checkpoint", d->label);
  /* Every object that takes part has its copy, or nothing commits: the
   * log may only go once all of them are safe. */
  for (uint32_t i = 0; !s && i < nc; i++) {
    ul__obj *o = ul__obj_find_any(d, cand[i]);
    if (takes_part(o) && !kept_for(k, o))
      s = ul__fail(UL_ERR_INTERNAL, "checkpoint: '%s' was not read", o->label ? o->label : "");
  }
  if (s) {
    free(cand);
    return ul__wrap(s, "checkpoint (nothing committed; %u object(s) read so far are kept for the next try)", k->n);
  }
  uint64_t kept = 0;
  for (uint32_t i = 0; i < nc; i++) {
    ul__obj *o = ul__obj_find_any(d, cand[i]);
    if (!takes_part(o)) continue;
    kept_copy *c = kept_for(k, o);
    uint8_t **committed = o->kind == UL__OBJ_TEXTURE ? &o->u.tex.checkpoint : &o->u.buf.checkpoint;
    free(*committed);
    *committed = c->data;
    c->data = NULL;
    kept += snapshot_bytes(o);
    if (o->kind == UL__OBJ_TEXTURE) {
      o->u.tex.dirty = false;
    } else {
      o->u.buf.dirty = false;
      ul__prov_clear(&o->u.buf.prov_ckpt); /* read back: the copy is the restore now */
    }
  }
  /* Host-written buffers: where their bytes came from, as of now. A copy
   * that finds no memory leaves the buffer to be read back next time. */
  for (uint32_t i = 0; i < nc; i++) {
    ul__obj *o = ul__obj_find_any(d, cand[i]);
    if (!o || o->kind != UL__OBJ_BUFFER || o->pending || !o->u.buf.host_only || !o->u.buf.dirty) continue;
    if (ul__prov_copy(&o->u.buf.prov_ckpt, &o->u.buf.prov)) {
      o->u.buf.dirty = false;
    } else {
      o->u.buf.host_only = false;
      ul__prov_clear(&o->u.buf.prov);
    }
  }
  ul__checkpoint_forget(d);
  /* SHADOW buffers, and MAP_WRITE ones with a host copy: the host copy is
   * the checkpoint. */
  for (uint32_t i = 0; i < nc; i++) {
    ul__obj *o = ul__obj_find_any(d, cand[i]);
    if (o && o->kind == UL__OBJ_BUFFER && !o->pending &&
        (o->u.buf.restore == UL_RESTORE_SHADOW || (o->u.buf.usage & UL_BUFFER_MAP_WRITE)) &&
        o->u.buf.checkpoint && o->u.buf.shadow)
      memcpy(o->u.buf.checkpoint, o->u.buf.shadow, (size_t)o->u.buf.size);
  }
  free(cand);
  ul__obj_noted_settle(d);
  ul__oplog_truncate(d);
  ul__obj_free_deferred(d);
  ul__staging_trim(d);
  *progress = true;
  uint64_t t1 = ul__now_ns();
  ul__timeline_note(d, 0, &(ul__tl_event){.type = UL__TL_CHECKPOINT, .bytes = kept, .dur_ns = t1 - t0});
  return UL_OK;
}

uint32_t ul__checkpoint_kept(ul_device *d) {
  const ul__ckpt *k = d->res && d->res->log ? ckpt_of(d, false) : NULL;
  return k ? k->n : 0;
}

uint64_t ul__checkpoint_async_looks(ul_device *d) {
  const ul__ckpt *k = d->res && d->res->log ? ckpt_of(d, false) : NULL;
  return k ? k->async_looks : 0;
}

uint64_t ul__checkpoint_staging_epoch(ul_device *d) {
  const ul__ckpt *k = d->res && d->res->log ? ckpt_of(d, false) : NULL;
  return k && k->a.st ? k->a.st_epoch : 0;
}

ul_status ul__checkpoint_locked(ul_device *d) {
  bool progress;
  return ul__checkpoint_attempt(d, &progress);
}

/* ---- asynchronous checkpoints ----
 * A checkpoint that does not stall the queue. At its start (ul__checkpoint_
 * async_start) it takes the noted list, so that what changes from then on
 * is noted afresh, records one copy of every changed GPU-written buffer
 * into its staging buffer at the queue's current end, asks for the map,
 * and keeps what the host holds as of then (where host-written buffers'
 * bytes came from, host copies). The program goes on. Once the map has
 * ended, the commit (ul__checkpoint_async_settle) takes the copies as the
 * objects' checkpoints as of that place in the queue, and drops the log's
 * entries before it: those after it stay and are replayed from there. An
 * object changed after the place stays noted and dirty. A loss before the
 * commit gives everything up: the last committed checkpoint and the whole
 * log still hold, and the taken list is noted again. */

static void pend_free(pend *p) {
  free(p->data);
  p->data = NULL;
  ul__prov_clear(&p->prov);
}

/* Ends the checkpoint under way without committing; with give_back, what
 * it took of the noted list is noted again. */
static void async_drop(ul_device *d, ul__ckpt *k, bool give_back) {
  ckpt_async *a = &k->a;
  if (!a->on) return;
  if (a->st) {
    bool same = a->st_epoch == d->epoch && !ul__device_loss_pending(d);
    if (a->total && a->map && atomic_load(&a->map->done) && a->map->status == WGPUMapAsyncStatus_Success && same) {
      d->wgpu->BufferUnmap(a->st);
    } else if (a->total && (!(a->map && atomic_load(&a->map->done)) || !same)) {
      /* A map still on its way resolves as aborted; a buffer of a lost
       * device is not used again. */
      d->wgpu->BufferDestroy(a->st);
      d->wgpu->BufferRelease(a->st);
      a->st = NULL;
      a->st_size = 0;
    }
  }
  if (a->map) ul__cb_unref(a->map);
  a->map = NULL;
  if (give_back && d->res) ul__obj_note_ids(d, a->cand, a->nc, a->all, false);
  for (uint32_t i = 0; i < a->n; i++) pend_free(&a->p[i]);
  free(a->p);
  free(a->cand);
  a->p = NULL;
  a->cand = NULL;
  a->n = a->nc = 0;
  a->on = false;
}

bool ul__checkpoint_async_pending(ul_device *d) {
  const ul__ckpt *k = d->res && d->res->log ? ckpt_of(d, false) : NULL;
  return k && k->a.on;
}

/* The staging buffer of at least `size` bytes, on the current device. */
static ul_status async_staging(ul_device *d, ckpt_async *a, uint64_t size) {
  const ul__wgpu *w = d->wgpu;
  if (a->st && (a->st_epoch != d->epoch || a->st_size < size)) {
    w->BufferDestroy(a->st);
    w->BufferRelease(a->st);
    a->st = NULL;
  }
  if (a->st) return UL_OK;
  uint64_t want = UL__MAX(size, 64u << 10);
  want = (want + 0xffff) & ~0xffffull;
  WGPUBufferDescriptor bd = {0};
  bd.label = ul__sv("unlost checkpoint staging");
  bd.usage = WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst;
  bd.size = want;
  if (!(a->st = w->DeviceCreateBuffer(d->device, &bd)))
    return ul__fail(UL_ERR_OUT_OF_MEMORY, "checkpoint: no staging buffer of %llu bytes", (unsigned long long)want);
  a->st_size = want;
  a->st_epoch = d->epoch;
  return UL_OK;
}

/* What to take of `o` at the start, as the synchronous commit would. */
static pend_how pend_kind(const ul__obj *o) {
  if (!o || o->kind != UL__OBJ_BUFFER || o->pending) return PEND_NONE;
  const ul__buffer_data *b = &o->u.buf;
  if (takes_part(o)) return map_read(o) ? PEND_MAPPED : PEND_COPY;
  if (b->host_only && b->dirty) return PEND_PROV;
  if ((b->restore == UL_RESTORE_SHADOW || (b->usage & UL_BUFFER_MAP_WRITE)) && b->checkpoint && b->shadow)
    return PEND_SHADOW;
  return PEND_NONE;
}

ul_status ul__checkpoint_async_start(ul_device *d) {
  if (d->recovering || d->res->rebuilding || ul__device_loss_pending(d) || ul__oplog_empty(d)) return UL_OK;
  ul__ckpt *k = ckpt_of(d, true);
  if (!k) return ul__fail(UL_ERR_OUT_OF_MEMORY, "checkpoint: out of host memory");
  if (k->a.on) return UL_OK;
  k->async_looks++;
  ul_status s = ul__restore_all(d);
  if (s) return ul__wrap(s, "checkpoint");
  if ((s = check_noted(d))) return s;
  uint32_t *cand, nc;
  bool all;
  if (!ul__obj_noted(d, &cand, &nc)) return ul__fail(UL_ERR_OUT_OF_MEMORY, "checkpoint: out of host memory");
  /* Textures, and more than one staging buffer's worth, are left to the
   * synchronous checkpoint. */
  uint64_t total = 0;
  uint32_t n = 0;
  for (uint32_t i = 0; i < nc; i++) {
    ul__obj *o = ul__obj_find_any(d, cand[i]);
    if (o && o->kind == UL__OBJ_TEXTURE && takes_part(o)) total = UINT64_MAX;
    else if (pend_kind(o) == PEND_COPY) total += (o->u.buf.size + 3) & ~3ull;
    n += pend_kind(o) != PEND_NONE;
  }
  free(cand);
  if (total > UL__CHECKPOINT_BATCH_BYTES) return UL_OK;
  ckpt_async *a = &k->a;
  pend *p = calloc(n ? n : 1, sizeof *p);
  if (!p || (total && (s = async_staging(d, a, total)))) {
    free(p);
    return s ? s : ul__fail(UL_ERR_OUT_OF_MEMORY, "checkpoint: out of host memory");
  }
  if (!ul__obj_noted_take(d, &cand, &nc, &all)) {
    free(p);
    return ul__fail(UL_ERR_OUT_OF_MEMORY, "checkpoint: out of host memory");
  }
  *a = (ckpt_async){.on = true, .at = ul__oplog_count(d), .mark = ul__oplog_mark(d), .epoch = d->epoch,
                    .t0 = ul__now_ns(), .p = p, .all = all, .cand = cand, .nc = nc, .st = a->st,
                    .st_size = a->st_size, .st_epoch = a->st_epoch};
  const ul__wgpu *w = d->wgpu;
  WGPUCommandEncoder e = total ? w->DeviceCreateCommandEncoder(d->device, NULL) : NULL;
  if (total && !e) s = ul__fail(UL_ERR_OUT_OF_MEMORY, "checkpoint: no command encoder");
  for (uint32_t i = 0; !s && i < nc; i++) {
    ul__obj *o = ul__obj_find_any(d, cand[i]);
    pend_how how = pend_kind(o);
    if (how == PEND_NONE) continue;
    if (a->n >= n) { /* n was counted above from the same list: a change between would be a bug */
      s = ul__fail(UL_ERR_INTERNAL, "checkpoint: the changed objects changed while it started");
      break;
    }
    pend *q = &a->p[a->n++];
    *q = (pend){.o = o, .id = o->id, .how = how};
    const ul__buffer_data *b = &o->u.buf;
    if (how == PEND_COPY) {
      uint64_t sz = (b->size + 3) & ~3ull;
      w->CommandEncoderCopyBufferToBuffer(e, o->native, 0, a->st, a->total, sz);
      q->off = a->total;
      a->total += sz;
    } else if (how == PEND_PROV) {
      if (!ul__prov_copy(&q->prov, &b->prov)) s = ul__fail(UL_ERR_OUT_OF_MEMORY, "checkpoint: out of host memory");
    } else if (how == PEND_SHADOW) {
      if (!(q->data = malloc((size_t)b->size))) s = ul__fail(UL_ERR_OUT_OF_MEMORY, "checkpoint: out of host memory");
      else memcpy(q->data, b->shadow, (size_t)b->size);
    } else if (how == PEND_MAPPED && ((b->read_copy_valid && b->read_copy && b->read_copy_epoch == d->epoch) ||
                                      (b->mapped && b->map_ptr && b->map_offset == 0 && b->map_size >= b->size))) {
      /* Its contents as of now are at hand (a map of it all, or what the
       * last one showed): taken now, so that a change after the place
       * does not keep the commit back. */
      if (!(q->data = malloc(b->size ? (size_t)b->size : 1)))
        s = ul__fail(UL_ERR_OUT_OF_MEMORY, "checkpoint: out of host memory");
      else memcpy(q->data, b->read_copy_valid && b->read_copy_epoch == d->epoch ? b->read_copy : b->map_ptr, (size_t)b->size);
      q->how = PEND_TAKEN;
    }
  }
  if (!s && !e) {
    /* Nothing to copy: the end of the work before the place, so that
     * nothing it names leaves the log before it ran. */
    if (!(a->map = ul__cb_new())) {
      s = ul__fail(UL_ERR_OUT_OF_MEMORY, "checkpoint: out of host memory");
    } else {
      WGPUQueueWorkDoneCallbackInfo ci = {NULL, WGPUCallbackMode_AllowProcessEvents, ul__cb_on_status, a->map, NULL};
      a->future = w->QueueOnSubmittedWorkDone(d->queue, ci);
    }
  }
  if (e) {
    WGPUCommandBuffer cb = s ? NULL : w->CommandEncoderFinish(e, NULL);
    w->CommandEncoderRelease(e);
    if (!s && !cb) s = ul__fail(UL_ERR_OUT_OF_MEMORY, "checkpoint: no command buffer");
    if (!s) {
      ul__queue_submit(d, cb);
      w->CommandBufferRelease(cb);
      a->future = ul__map_start(d, a->st, WGPUMapMode_Read, 0, (size_t)a->total, WGPUCallbackMode_AllowProcessEvents,
                                &a->map);
      if (!a->map) s = ul__fail(UL_ERR_OUT_OF_MEMORY, "checkpoint: out of host memory");
    }
  }
  if (s) {
    async_drop(d, k, true);
    return ul__wrap(s, "start a checkpoint");
  }
  return UL_OK;
}

/* The commit: every check first, then the copies taken as the
 * checkpoint, the log's entries before `at` dropped. false: nothing
 * changed (and the checkpoint is to be given up). */
static bool async_commit(ul_device *d, ul__ckpt *k) {
  ckpt_async *a = &k->a;
  const ul__wgpu *w = d->wgpu;
  if (a->epoch != d->epoch || ul__device_loss_pending(d)) return false;
  const uint32_t success = a->total ? (uint32_t)WGPUMapAsyncStatus_Success : (uint32_t)WGPUQueueWorkDoneStatus_Success;
  if (!a->map || a->map->status != success || ul__map_says_lost(d, a->map)) return false;
  if (!ul__oplog_reads_settled_before(d, a->at)) return false;
  /* Changed after the place: every object, when the list could not grow. */
  const bool all_after = ul__obj_noted_all(d);
  const uint8_t *mapped = a->total ? w->BufferGetConstMappedRange(a->st, 0, (size_t)a->total) : NULL;
  if (a->total && !mapped) return false;
  /* Everything that can fail first: the host copies of what the GPU copied
   * and of the MAP_READ buffers. */
  for (uint32_t i = 0; i < a->n; i++) {
    pend *q = &a->p[i];
    ul__obj *o = ul__obj_find_any(d, q->id);
    if (o != q->o) {
      q->how = PEND_NONE; /* gone: nothing to keep */
      continue;
    }
    if (q->how == PEND_COPY) {
      if (!(q->data = malloc(o->u.buf.size ? (size_t)o->u.buf.size : 1))) return false;
      memcpy(q->data, mapped + q->off, (size_t)o->u.buf.size);
    } else if (q->how == PEND_MAPPED) {
      /* Unchanged since the place, its contents now are those of then. */
      if (all_after || o->noted || !takes_part(o) || !(q->data = malloc((size_t)o->u.buf.size ? (size_t)o->u.buf.size : 1)))
        return false;
      if (read_mapped(d, o, q->data) || ul__device_loss_pending(d)) return false;
    }
  }
  uint64_t kept = 0;
  for (uint32_t i = 0; i < a->n; i++) {
    pend *q = &a->p[i];
    if (q->how == PEND_NONE) continue;
    ul__obj *o = q->o;
    ul__buffer_data *b = &o->u.buf;
    const bool after = all_after || o->noted;
    if (q->how == PEND_COPY || q->how == PEND_MAPPED || q->how == PEND_TAKEN) {
      free(b->checkpoint);
      b->checkpoint = q->data;
      q->data = NULL;
      ul__prov_clear(&b->prov_ckpt);
      kept += b->size;
    } else if (q->how == PEND_PROV) {
      ul__prov_clear(&b->prov_ckpt);
      b->prov_ckpt = q->prov;
      q->prov = (ul__prov){0};
    } else if (q->how == PEND_SHADOW) {
      memcpy(b->checkpoint, q->data, (size_t)b->size);
    }
    if (!after) b->dirty = false;
  }
  /* Objects the start left alone (being created, say) stay noted. */
  ul__obj_note_ids(d, a->cand, a->nc, false, true);
  /* Copies a synchronous attempt kept were taken at places that move now. */
  for (uint32_t i = 0; i < k->n; i++) free(k->c[i].data);
  k->n = 0;
  ul__oplog_truncate_before(d, a->at, a->mark);
  ul__obj_free_deferred(d);
  uint64_t t1 = ul__now_ns();
  ul__timeline_note(d, 0, &(ul__tl_event){.type = UL__TL_CHECKPOINT, .bytes = kept, .dur_ns = t1 - a->t0});
  return true;
}

void ul__checkpoint_device_gone(ul_device *d) {
  ul__ckpt *k = d->res && d->res->log ? ckpt_of(d, false) : NULL;
  if (!k) return;
  async_drop(d, k, true);
  if (k->a.st && k->a.st_epoch != d->epoch) {
    d->wgpu->BufferDestroy(k->a.st);
    d->wgpu->BufferRelease(k->a.st);
    k->a.st = NULL;
    k->a.st_size = 0;
  }
}

bool ul__checkpoint_async_settle(ul_device *d, uint64_t wait_ns) {
  ul__ckpt *k = d->res && d->res->log ? ckpt_of(d, false) : NULL;
  if (!k || !k->a.on) return false;
  ckpt_async *a = &k->a;
  if (a->epoch != d->epoch || ul__device_loss_pending(d)) {
    /* Lost since it started: its map ends only with the lost device. */
    async_drop(d, k, true);
    return false;
  }
  if (a->map && !atomic_load(&a->map->done)) {
    if (!wait_ns) return false;
    ul__saved_error keep;
    ul__error_save(&keep);
    ul_status s = ul__env_wait(d->env, d->instance, a->future, &a->map->done, wait_ns);
    ul__error_restore(&keep);
    if (s) {
      async_drop(d, k, true);
      return false;
    }
  }
  if (!ul__oplog_reads_settled_before(d, a->at)) {
    if (!wait_ns) return false; /* reads before the place still on their way: later */
    ul__saved_error keep;
    ul__error_save(&keep);
    ul__reads_settle(d, wait_ns); /* what it cannot settle, the commit finds */
    ul__error_restore(&keep);
  }
  bool ok = async_commit(d, k);
  async_drop(d, k, !ok);
  return ok;
}
