/* Rebuild after a loss: objects in dependency order, contents by policy,
 * the program's restore callbacks, then the replay of the operation log.
 * Starts from the last committed checkpoint every time, so a loss at any
 * point of it only means another attempt. */
#include "recover/recover.h"
#include "exec/oplog.h"
#include "core/transfer.h"

typedef struct restore_call {
  ul_restore_fn fn;
  void *user;
  uint32_t id;
} restore_call;

static ul_status run_restore_callbacks(ul_device *d);
static ul_status rebuild(ul_device *d);

ul_status ul__recover_rebuild(ul_device *d) {
  ul_status s = rebuild(d);
  /* An attempt that failed drops its device next, and the staging memory
   * with it: a fill ahead still writing there is stopped first. */
  if (s) ul__staging_release(d);
  return s;
}

static ul_status rebuild(ul_device *d) {
  ul__res *r = d->res;
  ul_status s = UL_OK;
  r->rebuilding = true;
  uint64_t t0 = ul__now_ns();
  ul__staging_release(d); /* those belonged to the lost device */
  /* The first buffer whose restore goes through staging, when it is a
   * file's, is read into it while the objects are made (a later upload of
   * anything else would only wait for that and overwrite it). */
  for (uint32_t i = 1; i < r->next_unused && i < r->cap; i++) {
    ul__obj *o = r->slots[i];
    if (o && o->kind == UL__OBJ_BUFFER && !o->pending && o->epoch != d->epoch && ul__buffer_restore_ahead(d, o)) break;
  }
  /* 1. Recreate every object not of this epoch, in dependency order
   * (objects the program destroyed but the log still names included),
   * while listening for their errors once (ul__scope_push/pop): these
   * descriptors were all valid once. */
  ul__scope_push(d);
  const bool lazy = !ul__opt_flag(UL__OPT_REBUILD_EAGER);
  const bool on_demand = !ul__opt_flag(UL__OPT_RESTORE_EAGER);
  /* Buffers are made at their first use too (with their contents), unless
   * the standby filled some ahead: those are taken now. */
  const bool lazy_buffers = on_demand && !d->prefills;
  d->restore_pending = d->restore_pending_bytes = 0;
  for (uint32_t i = 1; i < r->next_unused && i < r->cap; i++)
    if (r->slots[i]) r->slots[i]->unrestored = false;
  uint64_t kind_ns[UL__OBJ_KIND_COUNT] = {0};
  for (int k = 0; k < UL__OBJ_KIND_COUNT && !s; k++) {
    uint64_t tk = ul__now_ns();
    for (uint32_t i = 1; i < r->next_unused && i < r->cap && !s; i++) {
      ul__obj *o = r->slots[i];
      if (!o || (int)o->kind != k || o->pending || o->epoch == d->epoch) continue;
      ul__obj_release_native(d, o);
      if (lazy_buffers && o->kind == UL__OBJ_BUFFER && !o->destroyed && o->state != UL__OBJ_LOST &&
          !(o->u.buf.usage & (UL_BUFFER_MAP_READ | UL_BUFFER_MAP_WRITE)) && !o->u.buf.mapped) {
        /* Made and filled at its first use (ul__obj_contents), or when a
         * lookup needs it (a bind group made from it). */
        o->unbuilt = false;
        o->unrestored = true;
        o->epoch = d->epoch;
        d->restore_pending++;
        d->restore_pending_bytes += ul__obj_contents_bytes(o);
        continue;
      }
      if (lazy && ul__obj_kind_deferrable(o->kind)) {
        /* Made at its first use on this device (ul__obj_realize): the
         * replay and the next submissions build what they name. */
        o->unbuilt = true;
        o->epoch = d->epoch;
        continue;
      }
      o->unbuilt = false;
      s = ul__obj_create_native_unscoped(d, o);
      if (!s && !o->native) s = ul__fail(UL_ERR_INTERNAL, "%s '%s': no object", ul__obj_kind_name(o->kind),
                                         o->label ? o->label : "");
      if (!s) o->epoch = d->epoch;
    }
    kind_ns[k] = ul__now_ns() - tk;
  }
  int slowest = 0; /* the kind that took longest, for the log */
  for (int k = 1; k < UL__OBJ_KIND_COUNT; k++)
    if (kind_ns[k] > kind_ns[slowest]) slowest = k;
  ul_status sp = ul__scope_pop(d, "rebuild");
  /* Buffers made ahead on the standby that no object took go now. */
  ul__prefills_drop(d);
  if (!s) s = sp;
  if (!s && ul__device_loss_pending(d)) s = ul__fail(UL_ERR_DEVICE_LOST, "lost during rebuild");
  if (s) {
    r->rebuilding = false;
    return ul__wrap(s, "rebuild");
  }
  uint64_t t1 = ul__now_ns();
  /* 2. Restore contents by policy: at their first use (the replay's, the
   * next submissions'), or streamed behind those, or all now. */
  for (uint32_t i = 1; i < r->next_unused && i < r->cap && !s; i++) {
    ul__obj *o = r->slots[i];
    if (!o || o->pending || !o->native) continue;
    if (on_demand && (o->kind == UL__OBJ_BUFFER || o->kind == UL__OBJ_TEXTURE) && o->state != UL__OBJ_LOST) {
      o->unrestored = true;
      d->restore_pending++;
      d->restore_pending_bytes += ul__obj_contents_bytes(o);
      atomic_store(&d->restore_pending_gauge, d->restore_pending_bytes);
      continue;
    }
    if (o->kind == UL__OBJ_BUFFER) s = ul__buffer_restore(d, o);
    else if (o->kind == UL__OBJ_TEXTURE) s = ul__texture_restore(d, o);
    if (s && s != UL_ERR_DEVICE_LOST && o->kind == UL__OBJ_BUFFER && (o->u.buf.source_path || o->u.buf.prov_ckpt.n)) {
      /* A source file that went or changed -- the SOURCE's, or one whose
       * bytes the program wrote -- loses this buffer only: it is LOST (its
       * use says so), and the work replayed from it too. */
      ul__obj_mark_lost(o, ul_last_error());
      s = UL_OK;
      continue;
    }
    if (s) s = ul__wrap(s, "restore %s '%s'", ul__obj_kind_name(o->kind), o->label ? o->label : "");
  }
  uint64_t t2 = ul__now_ns();
  /* 3. The program refills CALLBACK buffers. */
  if (!s) s = run_restore_callbacks(d);
  uint64_t t3 = ul__now_ns();
  /* 4. Replay the work since the last checkpoint. */
  if (!s) s = ul__oplog_replay(d);
  uint64_t t4 = ul__now_ns();
  d->phases.objects = t1 - t0;
  d->phases.contents = t2 - t1;
  d->phases.callbacks = t3 - t2;
  d->phases.replay = t4 - t3;
  ul__log(UL__LOG_INFO,
          "rebuild of '%s': objects %.1f ms (%ss %.1f ms), contents %.1f ms, callbacks %.1f ms, replay %.1f ms",
          d->label, (double)(t1 - t0) / 1e6, ul__obj_kind_name((ul__obj_kind)slowest),
          (double)kind_ns[slowest] / 1e6, (double)(t2 - t1) / 1e6, (double)(t3 - t2) / 1e6,
          (double)(t4 - t3) / 1e6);
  r->rebuilding = false;
  for (uint32_t i = 1; i < r->next_unused && i < r->cap; i++)
    if (r->slots[i] && r->slots[i]->destroyed) ul__obj_release_native(d, r->slots[i]);
  if (!s && ul__device_loss_pending(d)) s = ul__fail(UL_ERR_DEVICE_LOST, "lost again during rebuild");
  if (!s) r->rebuilds++;
  /* The staging memory stays while contents are still to put back (its
   * ring, and what was read ahead into it); the last of them trims it. */
  if (s || !d->restore_pending) ul__staging_trim(d);
  return s;
}

/* CALLBACK buffers are refilled by the program before the replay, with
 * d->mu dropped around each call (other callers wait for the recovery to
 * end; the recovering thread's own calls go through). Their writes are not
 * logged: the callback can make them again at the next loss. */
static ul_status run_restore_callbacks(ul_device *d) {
  ul__res *r = d->res;
  uint32_t n = 0;
  for (uint32_t i = 1; i < r->next_unused && i < r->cap; i++) {
    ul__obj *o = r->slots[i];
    n += o && o->kind == UL__OBJ_BUFFER && !o->pending && !o->destroyed &&
         o->u.buf.restore == UL_RESTORE_CALLBACK && o->u.buf.restore_fn;
  }
  if (!n) return UL_OK;
  /* Taken first: a callback may create or destroy buffers. */
  restore_call *calls = malloc(sizeof *calls * n);
  if (!calls) return ul__fail(UL_ERR_OUT_OF_MEMORY, "restore callbacks: out of host memory");
  n = 0;
  for (uint32_t i = 1; i < r->next_unused && i < r->cap; i++) {
    ul__obj *o = r->slots[i];
    if (!o || o->kind != UL__OBJ_BUFFER || o->pending || o->destroyed) continue;
    if (o->u.buf.restore != UL_RESTORE_CALLBACK || !o->u.buf.restore_fn) continue;
    calls[n++] = (restore_call){o->u.buf.restore_fn, o->u.buf.restore_user, o->id};
  }
  ul_status result = UL_OK;
  for (uint32_t i = 0; i < n && !result; i++) {
    r->restoring = true;
    pthread_mutex_unlock(&d->mu);
    ul_status s = calls[i].fn(d, (ul_buffer){calls[i].id}, calls[i].user);
    pthread_mutex_lock(&d->mu);
    r->restoring = false;
    if (ul__device_loss_pending(d)) {
      result = ul__fail(UL_ERR_DEVICE_LOST, "lost during a restore callback");
      break;
    }
    if (s) {
      ul__obj *o = ul__obj_find(d, calls[i].id, UL__OBJ_BUFFER);
      if (o && !o->destroyed) {
        char why[96];
        snprintf(why, sizeof why, "its restore callback failed (%s)", ul_status_name(s));
        ul__obj_mark_lost(o, why);
      }
    }
  }
  free(calls);
  return result;
}


ul_status ul__recover_declare_hung(ul_device *d, uint64_t serial, const char *message) {
  /* The overdue work is not replayed (it would hang the next device as
   * well): it leaves the log, and what it may write is LOST. */
  char why[192];
  snprintf(why, sizeof why, "submission %llu never finished (the device was declared hung); what it wrote is unknown",
           (unsigned long long)serial);
  ul__oplog_drop_submission(d, serial, why);
  /* The loss is recorded here rather than by wgpuDeviceForceLoss, which
   * waits for the queue that never drains; the hung device is released on
   * a thread of its own with a deadline (native_release). */
  ul__device_note_loss(d, message);
  d->hung = true; /* its teardown will not end: nothing waits for it */
  return ul__device_recover_locked(d);
}
