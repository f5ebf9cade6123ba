/* The resource registry of a device: setup, teardown with the leak report,
 * rebuild after a loss, and the accounting API. */
#include "exec/oplog.h"
#include "exec/staging.h"
#include "res/obj.h"


ul_status ul__res_create(ul_device *d) {
  ul__res *r = calloc(1, sizeof *r);
  if (!r) return ul__fail(UL_ERR_OUT_OF_MEMORY, "resource registry: out of host memory");
  r->tag = ul__res_new_tag();
  ul__track_config tc = {0};
  tc.budget_bytes = d->desc.budget_bytes;
  tc.backtraces = d->desc.track_backtraces || getenv("UNLOST_BACKTRACES") != NULL;
  ul_status s = ul__track_create(&tc, &r->tracker);
  if (s) {
    free(r);
    return s;
  }
  d->res = r;
  if ((s = ul__oplog_create(d))) {
    ul__track_destroy(r->tracker);
    free(r);
    d->res = NULL;
  }
  return s;
}

ul_status ul__res_destroy(ul_device *d) {
  ul__res *r = d->res;
  if (!r) return UL_OK;
  uint64_t live = 0;
  for (int k = 0; k < UL__OBJ_KIND_COUNT; k++) live += r->live[k];
  /* The final report, with every live object as a leak. */
  const char *path = getenv("UNLOST_REPORT");
  if (path && *path && ul__track_write_json(r->tracker, path))
    ul__log(UL__LOG_WARN, "write report to '%s': %s", path, ul_last_error());
  if (live) {
    char *text = NULL;
    if (!ul__track_report_text(r->tracker, &text) && text)
      ul__log(UL__LOG_WARN, "device '%s' destroyed with %llu live object(s):\n%s", d->label,
              (unsigned long long)live, text);
    free(text);
  }
  /* Release in reverse dependency order. */
  for (int k = UL__OBJ_KIND_COUNT - 1; k >= 0; k--) {
    for (uint32_t i = 1; i < r->next_unused && i < r->cap; i++) {
      ul__obj *o = r->slots[i];
      if (o && (int)o->kind == k) {
        ul__obj_release_native(d, o);
        ul__obj_free(d, o);
      }
    }
  }
  ul__queue_free_reads(d);
  ul__staging_release(d);
  ul__oplog_destroy(d);
  ul__track_destroy(r->tracker);
  free(r->slots);
  free(r->gens);
  free(r->freeq);
  free(r);
  d->res = NULL;
  if (live)
    return ul__fail(UL_ERR_BUSY, "device '%s' was destroyed with %llu live object(s) (released; see the report)",
                    d->label, (unsigned long long)live);
  return UL_OK;
}

typedef struct restore_call {
  ul_restore_fn fn;
  void *user;
  uint32_t id;
} restore_call;

static ul_status run_restore_callbacks(ul_device *d);

ul_status ul__res_rebuild(ul_device *d, uint64_t old_epoch) {
  UL__UNUSED(old_epoch);
  ul__res *r = d->res;
  ul_status s = UL_OK;
  r->rebuilding = true;
  uint64_t t0 = ul__now_ns();
  ul__staging_release(d); /* those belonged to the lost device */
  /* 1. Recreate every object not of this epoch, in dependency order
   * (objects the program destroyed but the log still names included),
   * inside one set of error scopes: these descriptors were all valid once. */
  ul__scope_push(d);
  for (int k = 0; k < UL__OBJ_KIND_COUNT && !s; k++) {
    for (uint32_t i = 1; i < r->next_unused && i < r->cap && !s; i++) {
      ul__obj *o = r->slots[i];
      if (!o || (int)o->kind != k || o->pending || o->epoch == d->epoch) continue;
      ul__obj_release_native(d, o);
      s = ul__obj_create_native_unscoped(d, o);
      if (!s && !o->native) s = ul__fail(UL_ERR_INTERNAL, "%s '%s': no object", ul__obj_kind_name(o->kind),
                                         o->label ? o->label : "");
      if (!s) o->epoch = d->epoch;
    }
  }
  ul_status sp = ul__scope_pop(d, "rebuild");
  if (!s) s = sp;
  if (!s && ul__device_loss_pending(d)) s = ul__fail(UL_ERR_DEVICE_LOST, "lost during rebuild");
  if (s) {
    r->rebuilding = false;
    return ul__wrap(s, "rebuild");
  }
  uint64_t t1 = ul__now_ns();
  /* 2. Restore contents by policy. */
  for (uint32_t i = 1; i < r->next_unused && i < r->cap && !s; i++) {
    ul__obj *o = r->slots[i];
    if (!o || o->pending || !o->native) continue;
    if (o->kind == UL__OBJ_BUFFER) s = ul__buffer_restore(d, o);
    else if (o->kind == UL__OBJ_TEXTURE) s = ul__texture_restore(d, o);
    if (s) s = ul__wrap(s, "restore %s '%s'", ul__obj_kind_name(o->kind), o->label ? o->label : "");
  }
  uint64_t t2 = ul__now_ns();
  /* 3. The program refills CALLBACK buffers. */
  if (!s) s = run_restore_callbacks(d);
  uint64_t t3 = ul__now_ns();
  /* 4. Replay the work since the last checkpoint. */
  if (!s) s = ul__oplog_replay(d);
  ul__log(UL__LOG_INFO, "rebuild of '%s': objects %.1f ms, contents %.1f ms, callbacks %.1f ms, replay %.1f ms",
          d->label, (double)(t1 - t0) / 1e6, (double)(t2 - t1) / 1e6, (double)(t3 - t2) / 1e6,
          (double)(ul__now_ns() - t3) / 1e6);
  r->rebuilding = false;
  for (uint32_t i = 1; i < r->next_unused && i < r->cap; i++)
    if (r->slots[i] && r->slots[i]->destroyed) ul__obj_release_native(d, r->slots[i]);
  if (!s && ul__device_loss_pending(d)) s = ul__fail(UL_ERR_DEVICE_LOST, "lost again during rebuild");
  if (!s) r->rebuilds++;
  ul__staging_trim(d);
  return s;
}

/* CALLBACK buffers are refilled by the program before the replay, with
 * d->mu dropped around each call (other callers wait for the recovery to
 * end; the recovering thread's own calls go through). Their writes are not
 * logged: the callback can make them again at the next loss. */
static ul_status run_restore_callbacks(ul_device *d) {
  ul__res *r = d->res;
  restore_call calls[64];
  int n = 0;
  for (uint32_t i = 1; i < r->next_unused && i < r->cap; i++) {
    ul__obj *o = r->slots[i];
    if (!o || o->kind != UL__OBJ_BUFFER || o->pending || o->destroyed) continue;
    if (o->u.buf.restore != UL_RESTORE_CALLBACK || !o->u.buf.restore_fn) continue;
    if (n == 64) return ul__fail(UL_ERR_UNSUPPORTED, "more than 64 CALLBACK buffers");
    calls[n++] = (restore_call){o->u.buf.restore_fn, o->u.buf.restore_user, o->id};
  }
  for (int i = 0; i < n; i++) {
    r->restoring = true;
    pthread_mutex_unlock(&d->mu);
    ul_status s = calls[i].fn(d, (ul_buffer){calls[i].id}, calls[i].user);
    pthread_mutex_lock(&d->mu);
    r->restoring = false;
    if (ul__device_loss_pending(d)) return ul__fail(UL_ERR_DEVICE_LOST, "lost during a restore callback");
    if (s) {
      ul__obj *o;
      if (!ul__obj_get(d, calls[i].id, UL__OBJ_BUFFER, "restore callback", &o)) {
        o->state = UL__OBJ_LOST;
        ul__log(UL__LOG_WARN, "restore callback of buffer '%s' failed (%s): the buffer is LOST",
                o->label ? o->label : "", ul_status_name(s));
      }
    }
  }
  return UL_OK;
}

ul_status ul_device_memory_stats(ul_device *d, ul_memory_stats *out) {
  if (!d || !out) return ul__fail(UL_ERR_INVALID_ARGUMENT, "memory stats: NULL argument");
  ul__device_lock(d);
  ul__track_stats st;
  ul__track_get_stats(d->res->tracker, &st);
  memset(out, 0, sizeof *out);
  out->live_objects = st.total.live_objects;
  out->live_bytes = st.total.live_bytes;
  out->peak_objects = st.total.peak_objects;
  out->peak_bytes = st.total.peak_bytes;
  out->created = st.total.created;
  out->destroyed = st.total.destroyed;
  out->budget_bytes = st.budget_bytes;
  out->churning_sites = st.churning_sites;
  out->log_bytes = ul__oplog_bytes(d);
  ul__device_unlock(d);
  return UL_OK;
}

ul_status ul_device_report(ul_device *d, ul_report_format format, char **out) {
  if (!d || !out) return ul__fail(UL_ERR_INVALID_ARGUMENT, "report: NULL argument");
  *out = NULL;
  ul__device_lock(d);
  ul_status s = format == UL_REPORT_JSON ? ul__track_report_json(d->res->tracker, out)
                                         : ul__track_report_text(d->res->tracker, out);
  ul__device_unlock(d);
  return s;
}

ul_status ul_device_report_write(ul_device *d, const char *path) {
  if (!d || !path) return ul__fail(UL_ERR_INVALID_ARGUMENT, "report: NULL argument");
  ul__device_lock(d);
  ul_status s = ul__track_write_json(d->res->tracker, path);
  ul__device_unlock(d);
  return s;
}

ul_status ul_device_set_budget(ul_device *d, uint64_t bytes) {
  if (!d) return ul__fail(UL_ERR_INVALID_ARGUMENT, "set budget: device is NULL");
  ul__device_lock(d);
  ul__track_set_budget(d->res->tracker, bytes);
  ul__device_unlock(d);
  return UL_OK;
}

ul_status ul_device_checkpoint(ul_device *d) {
  if (!d) return ul__fail(UL_ERR_INVALID_ARGUMENT, "checkpoint: device is NULL");
  ul_status s = ul__device_enter(d);
  if (s) return ul__wrap(s, "checkpoint");
  for (int attempt = 0;; attempt++) {
    s = ul__oplog_checkpoint(d);
    if (s != UL_ERR_DEVICE_LOST || attempt >= UL__MAX_RETRIES_PER_CALL) break;
    if ((s = ul__device_recover_locked(d))) break;
  }
  ul__device_unlock(d);
  return s;
}
