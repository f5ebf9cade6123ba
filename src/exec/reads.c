/* Asynchronous reads. A read is an entry of the operation log: the copy is
 * submitted at once, after the work already submitted, and the staging
 * buffer's map requested; ul_device_poll delivers reads in the order they
 * were issued. A read caught by a loss is started again by the replay at
 * its place in the queue, so it gets the contents it would have had
 * without the loss. A checkpoint settles every read in flight first (its
 * data copied out), so a read the log no longer holds never needs one. */
#include "exec/oplog.h"
#include "exec/read.h"

typedef struct ul__read {
  struct ul__read *next;
  uint64_t id;               /* the log's name for it */
  ul__cb *map;         /* the staging buffer's map (our reference) */
  WGPUFuture future;         /* of the map */
  bool unlogged;             /* issued by a restore callback: not replayed */
  WGPUBuffer staging;        /* NULL: nothing in flight */
  uint64_t epoch;            /* of `staging` */
  uint32_t buffer;
  uint64_t offset, size;
  bool settled;              /* dst holds the data (or status an error): deliver as it is */
  uint64_t deadline_ns;      /* answered by then, with an error if need be */
  uint64_t losses_at_issue;  /* the device's losses when it was issued */
  ul_status status;
  void *dst;
  ul_read_fn done;
  void *user;
  char message[256];
} ul__read;

typedef struct ul__reads {
  ul__read *head, *tail;     /* in issue order */
  uint64_t next_id;
} ul__reads;

static ul__reads *reads_of(ul_device *d, bool create) {
  if (!d->res->reads && create) d->res->reads = calloc(1, sizeof(ul__reads));
  return d->res->reads;
}

static uint64_t losses_of(ul_device *d) {
  ul__lost_lock(); /* the count is written under it */
  uint64_t n = d->losses_total;
  ul__lost_unlock();
  return n;
}

static void drop_staging(ul_device *d, ul__read *r) {
  if (r->staging) {
    d->wgpu->BufferDestroy(r->staging); /* a pending map resolves as aborted */
    d->wgpu->BufferRelease(r->staging);
    r->staging = NULL;
  }
  ul__cb_unref(r->map);
  r->map = NULL;
}

/* Submits the copy into a new staging buffer and asks for its map, on the
 * current device (under mu). */
static ul_status read_start(ul_device *d, ul__read *r) {
  const ul__wgpu *w = d->wgpu;
  drop_staging(d, r);
  ul__obj *o = ul__obj_find(d, r->buffer, UL__OBJ_BUFFER);
  ul_status sc = o ? ul__obj_contents(d, o) : UL_OK; /* made and filled first, if a rebuild left them */
  if (sc) return sc;
  if (!o || !o->native) return ul__fail(UL_ERR_INVALID_HANDLE, "read async: the buffer is gone");
  uint64_t asize = (r->size + 3) & ~3ull;
  WGPUBufferDescriptor bd = {0};
  bd.label = ul__sv("unlost async read");
  bd.usage = WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst;
  bd.size = asize;
  r->staging = w->DeviceCreateBuffer(d->device, &bd);
  if (!r->staging) return ul__fail(UL_ERR_OUT_OF_MEMORY, "read async: no staging buffer");
  ul_status s = ul__copy_submit(d, o->native, r->offset, r->staging, 0, asize);
  if (s) return s;
  r->epoch = d->epoch;
  r->future = ul__map_start(d, r->staging, WGPUMapMode_Read, 0, (size_t)asize,
                            WGPUCallbackMode_AllowProcessEvents, &r->map);
  if (!r->map) return ul__fail(UL_ERR_OUT_OF_MEMORY, "read async: out of host memory");
  return UL_OK;
}

ul_status ul__read_begin(ul_device *d, ul_buffer buf, uint64_t offset, void *dst, uint64_t size,
                         ul_read_fn done, void *user, ul__read **out, bool *logged) {
  *out = NULL;
  *logged = false;
  ul__reads *rs;
  ul__read *r;
  if (!(rs = reads_of(d, true)) || !(r = calloc(1, sizeof *r)))
    return ul__fail(UL_ERR_OUT_OF_MEMORY, "read async: out of host memory");
  r->id = ++rs->next_id;
  r->deadline_ns = ul__now_ns() + ul__opt_number(UL__OPT_READ_DEADLINE_MS) * 1000000ull;
  r->losses_at_issue = losses_of(d);
  r->buffer = buf.id;
  r->offset = offset;
  r->size = size;
  r->dst = dst;
  r->done = done;
  r->user = user;
  /* Logged and queued first: a loss from here on is replayed, and the
   * replay starts this read again at its place. */
  ul_status s = ul__oplog_read(d, r->id, logged);
  if (s) {
    free(r);
    return s;
  }
  if (*logged) ul__oplog_name(d, ul__obj_find(d, buf.id, UL__OBJ_BUFFER)); /* the replay reads it again */
  r->unlogged = !*logged;
  if (rs->tail) rs->tail->next = r;
  else rs->head = r;
  rs->tail = r;
  *out = r;
  s = read_start(d, r);
  if (!s && ul__device_loss_pending(d)) s = ul__fail(UL_ERR_DEVICE_LOST, "read async: device lost");
  return s;
}

void ul__read_abandon(ul_device *d, ul__read *r) {
  /* Not started: out of the queue (its log entry finds nothing to do). */
  ul__reads *rs = reads_of(d, false);
  if (!r || !rs) return;
  ul__read **pp = &rs->head, *prev = NULL;
  while (*pp && *pp != r) {
    prev = *pp;
    pp = &(*pp)->next;
  }
  if (!*pp) return;
  *pp = r->next;
  if (rs->tail == r) rs->tail = prev;
  drop_staging(d, r);
  free(r);
}

/* Copies a mapped read out (under mu): true when it is finished, with or
 * without an error; false when it waits for a replay after a loss. */
static bool read_collect(ul_device *d, ul__read *r) {
  if (r->settled) return true;
  if (r->unlogged && r->epoch != d->epoch) {
    /* A restore callback's read: the callback runs again, the read does not. */
    r->status = ul__fail(UL_ERR_DEVICE_LOST, "read async: issued during a recovery that was lost again");
    snprintf(r->message, sizeof r->message, "%s", ul_last_error());
    drop_staging(d, r);
    r->settled = true;
    return true;
  }
  if (!r->staging || r->epoch != d->epoch || !r->map || !atomic_load(&r->map->done)) return false;
  if (r->map->status != WGPUMapAsyncStatus_Success) {
    if (ul__map_says_lost(d, r->map)) return false; /* the replay starts it again */
    r->status = ul__fail(UL_ERR_INTERNAL, "read async: map failed: %s", r->map->message);
    snprintf(r->message, sizeof r->message, "%s", ul_last_error());
    drop_staging(d, r);
    r->settled = true;
    return true;
  }
  /* A map completed after the loss is not proof that the copy ran. */
  if (ul__device_loss_pending(d)) return false;
  const void *p = d->wgpu->BufferGetConstMappedRange(r->staging, 0, (size_t)((r->size + 3) & ~3ull));
  if (p) memcpy(r->dst, p, (size_t)r->size);
  r->status = p ? UL_OK : ul__fail(UL_ERR_INTERNAL, "read async: mapped range unavailable");
  if (r->status) snprintf(r->message, sizeof r->message, "%s", ul_last_error());
  d->wgpu->BufferUnmap(r->staging);
  drop_staging(d, r);
  r->settled = true;
  return true;
}

ul_status ul__reads_settle(ul_device *d, uint64_t timeout_ns) {
  ul__reads *rs = reads_of(d, false);
  if (!rs) return UL_OK;
  for (ul__read *r = rs->head; r; r = r->next) {
    if (r->settled) continue;
    if (!r->staging || r->epoch != d->epoch || !r->map)
      return ul__fail(UL_ERR_DEVICE_LOST, "read async: caught by a loss");
    ul_status s = ul__env_wait(d->env, d->instance, r->future, &r->map->done, timeout_ns);
    if (s) return ul__wrap(s, "settle an asynchronous read");
    if (!read_collect(d, r)) return ul__fail(UL_ERR_DEVICE_LOST, "read async: device lost");
  }
  return UL_OK;
}

bool ul__read_collect_id(ul_device *d, uint64_t id) {
  ul__reads *rs = reads_of(d, false);
  for (ul__read *r = rs ? rs->head : NULL; r; r = r->next)
    if (r->id == id) return read_collect(d, r);
  return true;
}

uint32_t ul__reads_unsettled(ul_device *d) {
  ul__reads *rs = reads_of(d, false);
  uint32_t n = 0;
  for (ul__read *r = rs ? rs->head : NULL; r; r = r->next) n += !r->settled;
  return n;
}

ul_status ul__read_replay(ul_device *d, uint64_t id) {
  ul__reads *rs = reads_of(d, false);
  for (ul__read *r = rs ? rs->head : NULL; r; r = r->next)
    if (r->id == id) return r->settled ? UL_OK : read_start(d, r);
  return UL_OK; /* delivered already */
}

/* Answers a read that has not arrived with `s` and the message. */
static void read_answer(ul_device *d, ul__read *r, ul_status s, const char *fmt, ...) UL__PRINTF(4, 5);
static void read_answer(ul_device *d, ul__read *r, ul_status s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->message, sizeof r->message, fmt, ap);
  va_end(ap);
  r->status = s;
  drop_staging(d, r);
  r->settled = true;
}

/* A read past its deadline is answered now: the loss that kept it, or a
 * timeout when there was none. */
static void read_expire(ul_device *d, ul__read *r) {
  double ms = (double)ul__opt_number(UL__OPT_READ_DEADLINE_MS);
  uint64_t losses = losses_of(d) - r->losses_at_issue;
  if (losses)
    read_answer(d, r, UL_ERR_DEVICE_LOST,
                "read async: not delivered within its deadline of %.0f ms (UNLOST_READ_DEADLINE_MS): the device "
                "was lost %llu time(s) since the read was issued, and each time before its data arrived",
                ms, (unsigned long long)losses);
  else
    read_answer(d, r, UL_ERR_TIMEOUT,
                "read async: not delivered within its deadline of %.0f ms (UNLOST_READ_DEADLINE_MS): the work "
                "before it did not finish", ms);
}

void ul__reads_fail_all(ul_device *d, ul_status s, const char *why) {
  ul__reads *rs = reads_of(d, false);
  for (ul__read *r = rs ? rs->head : NULL; r; r = r->next)
    if (!r->settled) read_answer(d, r, s, "read async: %s", why);
}

ul__read *ul__reads_take_all(ul_device *d) {
  ul__reads *rs = reads_of(d, false);
  if (!rs) return NULL;
  ul__read *all = rs->head;
  rs->head = rs->tail = NULL;
  return all;
}

ul__read *ul__reads_take_ready(ul_device *d) {
  ul__reads *rs = reads_of(d, false);
  /* Only the oldest reads that are finished: delivery keeps issue order. */
  ul__read *ready = NULL, **tail = &ready;
  uint64_t now = ul__now_ns();
  while (rs && rs->head) {
    if (!read_collect(d, rs->head)) {
      if (now < rs->head->deadline_ns) break;
      read_expire(d, rs->head);
    }
    ul__read *r = rs->head;
    rs->head = r->next;
    if (!rs->head) rs->tail = NULL;
    r->next = NULL;
    *tail = r;
    tail = &r->next;
  }
  return ready;
}

bool ul__reads_any_ok(const ul__read *list) {
  for (; list; list = list->next)
    if (!list->status) return true;
  return false;
}

int ul__reads_deliver(ul_device *d, ul__read *ready) {
  int count = 0;
  while (ready) {
    ul__read *n = ready->next;
    if (ready->status) ul__fail(ready->status, "%s", ready->message);
    ready->done(d, ready->status, ready->dst, ready->user);
    free(ready);
    ready = n;
    count++;
  }
  return count;
}

void ul__queue_free_reads(ul_device *d) {
  ul__reads *rs = reads_of(d, false);
  if (!rs) return;
  ul__read *r = rs->head;
  while (r) {
    ul__read *n = r->next;
    drop_staging(d, r);
    free(r);
    r = n;
  }
  free(rs);
  d->res->reads = NULL;
}
