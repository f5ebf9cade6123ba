/* Internal to unlost: what the public calls of src/api/ share. */
#ifndef UL_API_API_H
#define UL_API_API_H

#include "recover/recover.h"

/* Finishes a create whose descriptor was copied into `o` (pending): the
 * native object with retries, the tracker's record; frees `o` on failure
 * (src/api/pipeline.c). Under d->mu. */
ul_status ul__obj_finish(ul_device *d, ul__obj *o, uint32_t *out);

#endif
