/* Submission: room in the log, the check or encode of the commands with
 * retries, the log, the submit; then the contents a rebuild left behind
 * the work. For a door that encodes ahead (webgpu.h's Finish), the encode
 * ahead, its release, and the submission made again until it gets
 * through. The commands' recording and encode are src/exec/commands.c. */
#include "engine/engine.h"
#include "exec/oplog.h"
#include "recover/recover.h"

/* Contents still to put back after a rebuild go behind a submission,
 * unless it needed some of its own (`restored`: restored_total when it
 * began): its result first, the first use after a recovery is not made to
 * wait for what it does not read. */
static void stream_behind(ul_device *d, uint64_t restored) {
  if (d->restore_pending && atomic_load(&d->restored_total) == restored)
    ul__restore_stream(d, ul__opt_number(UL__OPT_RESTORE_STREAM_MB) << 20);
}

ul_status ul__cmd_submit(ul_device *d, ul_cmd *c, uint64_t *serial) {
  if (serial) *serial = 0;
  const uint64_t restored = atomic_load(&d->restored_total);
  const char *what = c->label ? c->label : "";
  bool first_use = ul__cmd_first_use(d, c);
  /* Room in the log first (a checkpoint may recover): the encode below
   * must be of the device the work is submitted to. */
  ul_status s = ul__checkpoint_make_room(d, sizeof(ul__op) * c->count);
  if (s) return ul__wrap(s, "submit '%s'", what);
  WGPUCommandBuffer cb = NULL;
  ul__retry rt = UL__RETRY_SCOPES;
  do {
    s = ul__cmd_encode_list(d, c, &cb);
  } while (ul__retry_again(d, &s, &rt));
  if (!s) {
    /* Logged before it is submitted: a loss from here on is replayed. Work
     * that could not be logged is not submitted. */
    s = ul__oplog_submit(d, c->ops, c->count);
    if (!s) {
      /* Noted first: a loss during the submit names it. */
      ul__flight_begin(d, d->submit_serial + 1, c->label, c->site_file, c->site_line, ul__cmd_pipelines(d, c));
      uint64_t ser = ul__queue_submit(d, cb);
      ul__device_health_submitted(d, ser, first_use);
      if (serial) *serial = ser;
    }
    d->wgpu->CommandBufferRelease(cb);
  }
  if (!s) stream_behind(d, restored);
  return s ? ul__wrap(s, "submit '%s'", what) : UL_OK;
}

ul_status ul__ops_submit(ul_device *d, const ul__op *ops, uint32_t n, const char *label, const ul_site *site,
                         const ul__prepared *prepared, uint64_t *serial) {
  if (serial) *serial = 0;
  const uint64_t restored = atomic_load(&d->restored_total);
  const char *what = label ? label : "";
  bool first_use = ul__ops_first_use(d, ops, n);
  /* Room in the log first (a checkpoint may recover, and then what was
   * encoded ahead is of a lost device). */
  ul_status s = ul__checkpoint_make_room(d, sizeof(ul__op) * n);
  if (s) return ul__wrap(s, "submit '%s'", what);
  WGPUCommandBuffer cb = NULL;
  bool own = true, encoded = false;
  if (prepared && prepared->cb && prepared->epoch == d->epoch && !ul__device_loss_pending(d)) {
    /* Encoded at Finish on this very device, after the same check of every
     * handle: checked again only when an object was destroyed or lost
     * since (a rebuild, which leaves contents for their first use, moves
     * the epoch), then submitted as it is. */
    encoded = true;
    if (prepared->state_gen == ul__obj_state_gen(d) || !(s = ul__cmd_check(d, ops, n))) {
      cb = prepared->cb;
      own = false;
      ul__cmd_mark_written(d, ops, n);
    } else if (s == UL_ERR_DEVICE_LOST && ul__device_loss_pending(d)) {
      encoded = false; /* lost meanwhile: encoded again below, after the recovery */
      s = UL_OK;
    }
  }
  if (!encoded) {
    ul__retry rt = UL__RETRY_SCOPES;
    do {
      uint64_t errors = atomic_load(&d->uncaptured_errors);
      s = ul__cmd_encode(d, ops, n, label, true, &cb);
      char why[256];
      if (!s && !ul__device_loss_pending(d) && ul__device_uncaptured_since(d, errors, why, sizeof why))
        s = ul__fail(UL_ERR_VALIDATION, "the implementation rejected the commands: %s", why);
      if (!s && ul__device_loss_pending(d)) s = ul__fail(UL_ERR_DEVICE_LOST, "lost while encoding");
      if (s && cb) {
        d->wgpu->CommandBufferRelease(cb);
        cb = NULL;
      }
    } while (ul__retry_again(d, &s, &rt));
  }
  if (!s) {
    /* Logged before it is submitted: a loss from here on is replayed. */
    s = ul__oplog_submit(d, ops, n);
    if (!s) {
      char pipes[128];
      ul__ops_pipelines(d, ops, n, pipes, sizeof pipes);
      ul__flight_begin(d, d->submit_serial + 1, label, site ? site->file : NULL, site ? site->line : 0, pipes);
      uint64_t errors = atomic_load(&d->uncaptured_errors);
      uint64_t ser = ul__queue_submit(d, cb);
      char why[256];
      if (!ul__device_loss_pending(d) && ul__device_uncaptured_since(d, errors, why, sizeof why)) {
        /* Refused by the implementation (a buffer still mapped, say):
         * nothing ran, so nothing may come back with a replay. */
        ul__oplog_unsubmit(d);
        s = ul__fail(UL_ERR_VALIDATION, "the implementation refused the submission: %s", why);
      } else {
        ul__device_health_submitted(d, ser, first_use);
        if (serial) *serial = ser;
      }
    }
  }
  if (cb && own) d->wgpu->CommandBufferRelease(cb);
  if (!s) stream_behind(d, restored);
  return s ? ul__wrap(s, "submit '%s'", what) : UL_OK;
}

ul_status ul__ops_submit_through(ul_device *d, const ul__op *ops, uint32_t n, const char *label, const ul_site *site,
                                 ul__prepared *p) {
  WGPUCommandBuffer cb = p ? p->cb : NULL;
  ul_status s = ul__ops_submit(d, ops, n, label, site, p, NULL);
  /* The engine gives up on a call after a few recoveries in a row; a
   * caller with no status to hear that from has the submission made again
   * on the device after the next recovery, until it goes through or the
   * device fails for good (the stall bound ends a device whose recoveries
   * never let a call through). Contents a loss took are another matter: no
   * loss is then pending, and the error stands. */
  for (int again = 0; s == UL_ERR_DEVICE_LOST && ul__device_loss_pending(d) && again < 16; again++) {
    if ((s = ul__device_recover_locked(d))) break;
    s = ul__ops_submit(d, ops, n, label, site, p, NULL);
  }
  if (cb) ul__native_cmdbuf_release(d, cb, p->device);
  if (p) memset(p, 0, sizeof *p);
  return s;
}

ul_status ul__ops_prepare(ul_device *d, const ul__op *ops, uint32_t n, const char *label, ul__prepared *p) {
  memset(p, 0, sizeof *p);
  uint64_t errors = atomic_load(&d->uncaptured_errors);
  WGPUCommandBuffer cb = NULL;
  ul_status s = ul__cmd_encode(d, ops, n, label, false, &cb);
  char why[512];
  if (!s && !ul__device_loss_pending(d) && ul__device_uncaptured_since(d, errors, why, sizeof why))
    s = ul__fail(UL_ERR_VALIDATION, "%s", why);
  if (!s && !ul__device_loss_pending(d)) {
    p->cb = cb;
    p->epoch = d->epoch;
    p->device = d->device;
    p->state_gen = ul__obj_state_gen(d); /* after the encode's check */
    cb = NULL;
  }
  if (cb) d->wgpu->CommandBufferRelease(cb);
  /* A loss meanwhile is not the caller's error: the submit encodes again. */
  if (s == UL_ERR_DEVICE_LOST && ul__device_loss_pending(d)) s = UL_OK;
  return s;
}

void ul__ops_prepared_release(ul_device *d, ul__prepared *p) {
  if (!p->cb) return;
  ul__device_lock(d);
  ul__native_cmdbuf_release(d, p->cb, p->device);
  ul__device_unlock(d);
  memset(p, 0, sizeof *p);
}
