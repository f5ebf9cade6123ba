/* Internal to unlost: what the public calls of src/api/ share. */
#ifndef UL_API_API_H
#define UL_API_API_H

#include "recover/recover.h"

/* Finishes a create whose descriptor was copied into `o` (pending): the
 * native object with retries, the tracker's record; frees `o` on failure
 * (src/api/pipeline.c). Under d->mu. */
ul_status ul__obj_finish(ul_device *d, ul__obj *o, uint32_t *out);

/* The checkpoint under the retry policy (src/api/checkpoint.c). */
/* The same, recovering from a loss and trying again (at most
 * UL__MAX_RETRIES_PER_CALL times): the public checkpoint. */
ul_status ul__checkpoint_retry(ul_device *d);
/* Makes room in the operation log for an entry of `bytes`: checkpoints
 * first when the entry would take the log past its bounds, so that the
 * bound holds on every path that grows the log. UL_OK without a
 * checkpoint during a recovery (nothing is logged then). */
ul_status ul__checkpoint_make_room(ul_device *d, uint64_t bytes);

#endif
