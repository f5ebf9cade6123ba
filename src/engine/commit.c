/* Checkpoints for both doors: the transaction (src/recover/snapshot.c)
 * under its retry policy, and making room in the operation log before a
 * call logs more (a checkpoint when the log nears its bound; a refusal,
 * UL_ERR_LOG_FULL, when it is at its bound and no checkpoint could commit). */
#include "engine/engine.h"
#include "exec/oplog.h"

/* A checkpoint is resumable, so it goes on through losses as long as its
 * attempts get somewhere: it gives up after UL__MAX_RETRIES_PER_CALL
 * recoveries in a row that read nothing new, or UL__CHECKPOINT_MAX_RECOVERIES
 * in all. */
#define UL__CHECKPOINT_MAX_RECOVERIES 64

ul_status ul__checkpoint_retry(ul_device *d) {
  ul_status s;
  int fruitless = 0, recoveries = 0;
  for (;;) {
    bool progress = false;
    s = ul__checkpoint_attempt(d, &progress);
    if (s != UL_ERR_DEVICE_LOST) break;
    fruitless = progress ? 0 : fruitless + 1;
    if (progress) ul__device_progress(d); /* copies kept: work got through */
    if (fruitless > UL__MAX_RETRIES_PER_CALL || recoveries >= UL__CHECKPOINT_MAX_RECOVERIES) {
      s = ul__wrap(s, "gave up after %d recoveries in this call (%d in a row without reading anything new)",
                   recoveries, fruitless - 1);
      break;
    }
    recoveries++;
    ul_status rs = ul__device_recover_locked(d);
    if (rs) {
      s = rs;
      break;
    }
  }
  if (!s) {
    ul__device_progress(d);
    d->log_soft_tried = d->log_async_tried = 0;
  }
  return s;
}

/* The log is checkpointed ahead of its bound, from three quarters of it on
 * (again each further sixteenth while checkpoints fail), so that a failed
 * checkpoint still leaves room; at the bound a call that would grow the
 * log is refused with UL_ERR_LOG_FULL unless a checkpoint commits. */
/* Sixteenths of the log's bound reached, by entries or bytes, whichever
 * more. */
static uint32_t log_level(ul_device *d, ul__oplog_fill *f) {
  ul__oplog_usage(d, f);
  uint64_t eb = (uint64_t)f->entries * 16, bb = f->bytes * 16;
  return (uint32_t)UL__MAX(f->max_entries ? eb / f->max_entries : 0, f->max_bytes ? bb / f->max_bytes : 0);
}

/* The asynchronous checkpoint (src/recover/snapshot.c) starts from a
 * quarter of the bound and commits when its copies have arrived, which
 * makes room without stalling the queue; the synchronous one below is for
 * when it could not keep up (or could not run: textures changed). */
#define UL__LOG_ASYNC_LEVEL 4
#define UL__LOG_SYNC_LEVEL 12

static void checkpoint_async(ul_device *d, uint32_t level) {
  if (ul__checkpoint_async_pending(d)) {
    if (!ul__checkpoint_async_settle(d, 0)) {
      ul__pump(d->env, d->instance); /* its map ends only when events are processed */
      if (!ul__checkpoint_async_settle(d, 0)) return;
    }
    ul__device_progress(d);
    d->log_soft_tried = d->log_async_tried = 0;
    return;
  }
  if (level < d->log_async_tried) d->log_async_tried = 0; /* the log shrank: a checkpoint committed */
  if (level < UL__LOG_ASYNC_LEVEL || level <= d->log_async_tried || ul__device_loss_pending(d)) return;
  ul__saved_error keep;
  ul__error_save(&keep);
  ul_status s = ul__checkpoint_async_start(d);
  if (s) ul__log(UL__LOG_DEBUG, "device '%s': no asynchronous checkpoint: %s", d->label, ul_last_error());
  ul__error_restore(&keep);
  /* Declined or failed: again once the log has grown by a sixteenth (a
   * start looks at every changed object). */
  if (!ul__checkpoint_async_pending(d)) d->log_async_tried = level;
}

ul_status ul__checkpoint_make_room(ul_device *d, uint64_t bytes) {
  if (d->recovering || d->res->rebuilding) return UL_OK;
  ul__oplog_fill f;
  uint32_t level = log_level(d, &f);
  if (!d->no_async_checkpoints) {
    checkpoint_async(d, level);
    level = log_level(d, &f);
  }
  bool hard = ul__oplog_would_exceed(d, bytes);
  if (!hard && (level < UL__LOG_SYNC_LEVEL || level <= d->log_soft_tried)) return UL_OK;
  /* The one under way, waited for: it may make room enough. */
  if (ul__checkpoint_async_pending(d) && ul__checkpoint_async_settle(d, 2000000000ull)) {
    ul__device_progress(d);
    d->log_soft_tried = d->log_async_tried = 0;
    level = log_level(d, &f);
    hard = ul__oplog_would_exceed(d, bytes);
    if (!hard && level < UL__LOG_SYNC_LEVEL) return UL_OK;
  }
  ul_status s = ul__checkpoint_retry(d);
  if (!s) return UL_OK;
  d->log_soft_tried = level;
  if (!hard) {
    /* Room is left: the call goes on. A device that gave up ends it. */
    if (s == UL_ERR_DEVICE_FAILED) return ul__wrap(s, "make room in the operation log");
    ul__log(UL__LOG_INFO, "device '%s': the operation log is at %u/16 of its bound and a checkpoint failed: %s",
            d->label, level, ul_last_error());
    return UL_OK;
  }
  /* Lost, timed out, or an object it must read is mapped by the program
   * (UL_ERR_BUSY): nothing was lost, the log is full. */
  if (s == UL_ERR_DEVICE_LOST || s == UL_ERR_TIMEOUT || s == UL_ERR_BUSY) {
    char why[512];
    snprintf(why, sizeof why, "%s", ul_last_error());
    return ul__fail(UL_ERR_LOG_FULL,
                    "the operation log is full (%u entries, %.1f MiB; its bound: %u entries, %.0f MiB) and no "
                    "checkpoint could commit to empty it (%s); nothing was lost and this call did nothing: call "
                    "again once the device is stable",
                    f.entries, (double)f.bytes / 1048576.0, f.max_entries, (double)f.max_bytes / 1048576.0, why);
  }
  return ul__wrap(s, "make room in the operation log");
}
