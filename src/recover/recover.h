/* Internal to unlost: recovery (src/recover/). The one place that rebuilds
 * objects on a new native device, runs the program's restore callbacks,
 * replays the operation log, and commits checkpoints; it reads like
 * "Recovery" in DESIGN.md. Everything here runs under d->mu. */
#ifndef UL_RECOVER_H
#define UL_RECOVER_H

#include "res/obj.h"

/* Rebuilds every object not of epoch d->epoch on the current native device
 * in dependency order, restores contents from the last committed
 * checkpoint, runs the restore callbacks, and replays the log since that
 * checkpoint. UL_ERR_DEVICE_LOST when the device was lost meanwhile (the
 * next attempt starts again from the same committed state). */
ul_status ul__recover_rebuild(ul_device *d);

/* A checkpoint as a transaction: the dirty LOG buffers and the reads in
 * flight are read into fresh memory; only if no loss happened meanwhile
 * are the copies committed and the log truncated, in one step. A failed
 * checkpoint leaves the last committed one and the whole log untouched.
 * UL_ERR_WRONG_STATE during a recovery (from a restore callback). */
ul_status ul__checkpoint_locked(ul_device *d);
/* One attempt of it. A checkpoint is resumable: the copies an attempt
 * read are kept (across losses, and across calls while their objects
 * provably did not change since), so the next attempt reads only what is
 * missing; *progress says whether this one read or committed anything. */
ul_status ul__checkpoint_attempt(ul_device *d, bool *progress);
/* An asynchronous checkpoint (snapshot.c): its copies recorded into the
 * queue where it stands, committed once their map ends while the program
 * goes on submitting; what it commits is that place in the queue, and the
 * log's entries before it go. Start: UL_OK when started, or when there is
 * nothing to do or the synchronous checkpoint is left to do it (textures
 * changed, more than one staging buffer's worth); a status when it could
 * not start (nothing changed). */
ul_status ul__checkpoint_async_start(ul_device *d);
/* The one under way: committed when its map ended (waiting up to wait_ns
 * for it; 0: not at all). With wait_ns, it ends either way: true when it
 * committed, false when it was given up (a loss, a failure). */
bool ul__checkpoint_async_settle(ul_device *d, uint64_t wait_ns);
bool ul__checkpoint_async_pending(ul_device *d);
/* The device the checkpoint's copies were recorded on is about to be let
 * go (a recovery or a move swapped in another): the checkpoint under way
 * is given up and the staging buffer of that device released now, while
 * it is still this device's to release (never after the teardown of its
 * device began on another thread). */
void ul__checkpoint_device_gone(ul_device *d);
/* Drops the copies of a checkpoint under way (device destroy). */
void ul__checkpoint_forget(ul_device *d);
/* The epoch of the device the checkpoints' staging buffer was made on; 0:
 * none is held (for tests). */
uint64_t ul__checkpoint_staging_epoch(ul_device *d);
/* How many asynchronous starts looked at the changed objects (for tests). */
uint64_t ul__checkpoint_async_looks(ul_device *d);
/* Copies the checkpoint under way keeps now (for tests). */
uint32_t ul__checkpoint_kept(ul_device *d);

/* A submission that never finished (declare_hung): dropped from the log,
 * what it may write made LOST, the loss recorded without waiting for the
 * queue, and recovery onto a new device. */
ul_status ul__recover_declare_hung(ul_device *d, uint64_t serial, const char *message);

/* ---- the gate, the retry policy and the moves (gate.c) ----
 * The engine (src/engine/) and the doors through it pass the gate and run
 * their work under the retry policy; nothing below this layer calls either. */
/* Locks the device and makes it usable: processes a recorded loss and runs
 * recovery when needed. On failure the device is unlocked again and the
 * status says why (UL_ERR_DEVICE_FAILED, UL_ERR_TIMEOUT, ...). */
ul_status ul__device_enter(ul_device *d);
/* The same; gate=false skips the breaker (waiting for work already
 * submitted is always allowed: it is how probes finish). */
ul_status ul__device_enter_ex(ul_device *d, bool gate);
/* ul__device_enter_ex(d, false) for unlost's own recovery work (a pending
 * callback's re-ask after a loss): a recorded loss is processed, but the
 * entry is no program call: it neither counts as progress for the stall
 * bound nor starts the span the next call's progress is measured over. */
ul_status ul__device_enter_quiet(ul_device *d);
/* True when another thread is recovering the device (under mu). */
bool ul__device_recovering_elsewhere(ul_device *d);
/* Processes a recorded loss now (recovery included), under d->mu. UL_OK
 * when the device works again. */
ul_status ul__device_recover_locked(ul_device *d);
/* Writes an event into the device's timeline (t 0: now). */
void ul__timeline_note(ul_device *d, uint64_t t, const ul__tl_event *ev);
/* ul__obj_contents for a call that holds nothing of the device yet: a loss
 * while the contents come back is recovered from and they come back again
 * (the call's retry bound). Under d->mu. */
ul_status ul__obj_use(ul_device *d, ul__obj *o);
/* Bound on recoveries inside one call before it gives up with the loss. */
#define UL__MAX_RETRIES_PER_CALL 4
/* An error scope's out-of-memory or validation error is tried once more:
 * out-of-memory may clear (memory was freed meanwhile), and an error that
 * did not come from the call (injected, or a stray one caught by its scope)
 * does not come back; a real one comes back and is reported. */
#define UL__RETRY_ONCE(s) ((s) == UL_ERR_OUT_OF_MEMORY || (s) == UL_ERR_VALIDATION)

/* The retry policy of a call, written once. After each try of the call's
 * work, with its status in *s:
 *
 *   ul__retry rt = UL__RETRY_SCOPES;   // or UL__RETRY_LOSSES
 *   do {
 *     s = ...one try...;
 *   } while (ul__retry_again(d, &s, &rt));
 *
 * a scope error that may be transient (UL__RETRY_ONCE) is tried once more
 * per call (UL__RETRY_SCOPES only); a loss is recovered from (under d->mu)
 * and tried again, up to UL__MAX_RETRIES_PER_CALL recoveries; anything else
 * ends the loop with *s as it is. A failed recovery ends it with the
 * recovery's status. rt.recoveries says whether the next try follows a
 * recovery (handles are looked up again then). */
typedef struct ul__retry {
  bool scopes;      /* retry UL__RETRY_ONCE statuses once */
  bool scope_used;  /* that retry was spent */
  int recoveries;   /* recoveries so far in this call */
} ul__retry;
#define UL__RETRY_SCOPES ((ul__retry){true, false, 0})
#define UL__RETRY_LOSSES ((ul__retry){false, false, 0})
/* A device that cannot make progress stops trying: after this many
 * recoveries in a row with no call getting through in between (every try
 * lost before it completed), the next loss moves the work to the fallback
 * adapter (health monitor on, on_broken FALLBACK, not there yet) or ends
 * the device FAILED; a second stall always ends it FAILED. A call got
 * through when its retry policy ended in UL_OK, when the next call entered
 * with no loss since it entered, when a read was delivered with its data,
 * when a checkpoint committed. */
#define UL__STALL_RECOVERIES 16
/* A call got through: the device makes progress (under d->mu). */
static inline void ul__device_progress(ul_device *d) { d->stalled_recoveries = 0; }
static inline bool ul__retry_again(ul_device *d, ul_status *s, ul__retry *rt) {
  if (*s == UL_OK) {
    ul__device_progress(d);
    return false;
  }
  if (rt->scopes && !rt->scope_used && UL__RETRY_ONCE(*s)) {
    rt->scope_used = true;
    return true;
  }
  if (*s != UL_ERR_DEVICE_LOST) return false;
  if (rt->recoveries >= UL__MAX_RETRIES_PER_CALL) {
    /* Not "data lost": say that the call was lost each time it was tried. */
    *s = ul__wrap(*s, "gave up after %d recoveries within this call (the device was lost again before each try "
                  "could complete)", rt->recoveries);
    return false;
  }
  rt->recoveries++;
  *s = ul__device_recover_locked(d);
  return *s == UL_OK;
}

/* Moves a working device to the fallback adapter or back to the preferred
 * one (one try; no change on failure). Under d->mu. A move is a recovery:
 * the new device starts from the last committed checkpoint and replays the
 * log since, exactly as after a loss (no checkpoint first: that would
 * change what comes back, e.g. of NONE buffers whose writers are logged). */
ul_status ul__device_move_locked(ul_device *d, bool to_fallback);

#endif
