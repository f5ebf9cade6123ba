/* The public asynchronous reads: ul_buffer_read_async (check, enter,
 * begin, recover on a loss: the replay starts a logged read again) and
 * ul_device_poll (collect under the lock, deliver without it). The reads'
 * engine is src/exec/reads.c. */
#include "engine/engine.h"
#include "exec/read.h"

ul_status ul_buffer_read_async(ul_device *d, ul_buffer buf, uint64_t offset, void *dst,
                               uint64_t size, ul_read_fn done, void *user) {
  if (!d || !done || (!dst && size)) return ul__fail(UL_ERR_INVALID_ARGUMENT, "read async: NULL argument");
  ul_status s = ul__engine_enter(d);
  if (s) return ul__wrap(s, "read async");
  ul__obj *o;
  if ((s = ul__obj_get(d, buf.id, UL__OBJ_BUFFER, "read async", &o))) goto out;
  if (offset % 4 || size % 4 || offset > o->u.buf.size || size > o->u.buf.size - offset || !size) {
    s = ul__fail(UL_ERR_INVALID_ARGUMENT, "read async: range %llu+%llu outside buffer '%s' of %llu bytes (multiples of 4)",
                 (unsigned long long)offset, (unsigned long long)size, o->label ? o->label : "",
                 (unsigned long long)o->u.buf.size);
    goto out;
  }
  if (o->u.buf.usage & (UL_BUFFER_MAP_READ | UL_BUFFER_MAP_WRITE)) {
    s = ul__fail(UL_ERR_INVALID_ARGUMENT, "read async: use ul_buffer_map for mappable buffers");
    goto out;
  }
  if (o->state == UL__OBJ_LOST) {
    s = ul__fail(UL_ERR_DEVICE_LOST, "read async: buffer '%s' lost its contents in a device loss%s",
                 o->label ? o->label : "", ul__obj_lost_why(o));
    goto out;
  }
  /* The read is an entry of the log: room first, as for every entry. */
  if ((s = ul__checkpoint_make_room(d, 0))) goto out;
  if ((s = ul__obj_get(d, buf.id, UL__OBJ_BUFFER, "read async", &o))) goto out;
  ul__read *r;
  bool logged;
  s = ul__read_begin(d, buf, offset, dst, size, done, user, &r, &logged);
  /* A logged read is started again by the replay of a recovery. */
  ul__retry rt = UL__RETRY_LOSSES;
  while (r && logged && ul__retry_again(d, &s, &rt))
    if (ul__engine_loss_pending(d)) s = ul__fail(UL_ERR_DEVICE_LOST, "read async: device lost");
  if (s) ul__read_abandon(d, r);
out:
  ul__engine_unlock(d);
  return s;
}

int ul_device_poll(ul_device *d) {
  if (!d) return 0;
  ul_status s = ul__engine_enter_ex(d, false);
  if (s == UL_ERR_DEVICE_FAILED) {
    /* No recovery comes: the reads still waiting are answered now. */
    char why[400];
    snprintf(why, sizeof why, "not delivered: %s", ul_last_error());
    ul__engine_lock(d);
    ul__reads_fail_all(d, UL_ERR_DEVICE_FAILED, why);
  } else if (s) {
    return 0; /* another thread still recovers it: a later poll delivers */
  } else if (d->device) {
    d->wgpu->InstanceProcessEvents(d->instance);
  }
  ul__read *ready = ul__reads_take_ready(d);
  if (ul__reads_any_ok(ready)) ul__device_progress(d);
  ul__engine_unlock(d);
  return ul__reads_deliver(d, ready);
}
