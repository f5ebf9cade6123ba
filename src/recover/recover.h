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
/* The same, recovering from a loss and trying again (at most
 * UL__MAX_RETRIES_PER_CALL times): the public checkpoint. */
ul_status ul__checkpoint_retry(ul_device *d);
/* Makes room in the operation log for an entry of `bytes`: checkpoints
 * first when the entry would take the log past its bounds, so that the
 * bound holds on every path that grows the log. UL_OK without a
 * checkpoint during a recovery (nothing is logged then). */
ul_status ul__checkpoint_make_room(ul_device *d, uint64_t bytes);

/* A submission that never finished (declare_hung): dropped from the log,
 * what it may write made LOST, the loss recorded without waiting for the
 * queue, and recovery onto a new device. */
ul_status ul__recover_declare_hung(ul_device *d, uint64_t serial, const char *message);

#endif
