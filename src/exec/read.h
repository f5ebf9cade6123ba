/* Internal to unlost: asynchronous reads (src/exec/read.c). */
#ifndef UL_EXEC_READ_H
#define UL_EXEC_READ_H

#include "res/obj.h"

/* Waits for every read in flight and copies its data out, so that it no
 * longer needs the operation log (a checkpoint, under d->mu).
 * UL_ERR_DEVICE_LOST when a read was caught by a loss. */
ul_status ul__reads_settle(ul_device *d, uint64_t timeout_ns);
/* Starts read `id` again at its place in the replay, unless it is settled
 * or delivered (under d->mu). */
ul_status ul__read_replay(ul_device *d, uint64_t id);
/* Frees the asynchronous reads still queued, without their callbacks
 * (device destroy). */
void ul__queue_free_reads(ul_device *d);

#endif
