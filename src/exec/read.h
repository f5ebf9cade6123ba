/* Internal to unlost: asynchronous reads (src/exec/reads.c). */
#ifndef UL_EXEC_READ_H
#define UL_EXEC_READ_H

#include "res/obj.h"

/* Waits for every read in flight and copies its data out, so that it no
 * longer needs the operation log (a checkpoint, under d->mu).
 * UL_ERR_DEVICE_LOST when a read was caught by a loss. */
ul_status ul__reads_settle(ul_device *d, uint64_t timeout_ns);
/* Whether read `id` has its data (or is delivered): collects it when its
 * map ended; waits for nothing (under d->mu). */
bool ul__read_collect_id(ul_device *d, uint64_t id);
/* Reads queued whose data has not arrived yet (under d->mu). */
uint32_t ul__reads_unsettled(ul_device *d);
/* Starts read `id` again at its place in the replay, unless it is settled
 * or delivered (under d->mu). */
ul_status ul__read_replay(ul_device *d, uint64_t id);
/* Frees the asynchronous reads still queued, without their callbacks
 * (device destroy). */
void ul__queue_free_reads(ul_device *d);

/* For the public calls (src/api/read.c), under d->mu: queues, logs and
 * starts a read of `buf` (*out: the read, even when starting it failed;
 * *logged: whether a replay starts it again); takes the read back out
 * when it could not start; takes the finished reads off the queue, oldest
 * first. Without a lock: runs their callbacks and frees them (a failed
 * read's status is the thread's error in its callback). */
typedef struct ul__read ul__read;
ul_status ul__read_begin(ul_device *d, ul_buffer buf, uint64_t offset, void *dst, uint64_t size,
                         ul_read_fn done, void *user, ul__read **out, bool *logged);
void ul__read_abandon(ul_device *d, ul__read *r);
ul__read *ul__reads_take_ready(ul_device *d);
int ul__reads_deliver(ul_device *d, ul__read *ready);
/* Whether a read of the list got its data (a call got through). */
bool ul__reads_any_ok(const ul__read *list);
/* Every read no answer came for yet is answered with `s` and "read async:
 * <why>" (under d->mu): a device that failed for good, or destroyed. */
void ul__reads_fail_all(ul_device *d, ul_status s, const char *why);
/* Takes every queued read off the queue, answered or not (destroy: after
 * ul__reads_fail_all, each one is answered). */
ul__read *ul__reads_take_all(ul_device *d);

#endif
