/* Internal to unlost: the resource registry of a device (src/res/). */
#ifndef UL_RES_H
#define UL_RES_H

#include "core/core.h"

/* Sets up the registry of a new device (under no lock). */
ul_status ul__res_create(ul_device *d);
/* Destroys every live object, reporting each as a leak; UL_ERR_BUSY when
 * there were any. Frees the registry. Under d->mu. */
ul_status ul__res_destroy(ul_device *d);

#endif
