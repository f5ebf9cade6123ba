/* Listening for the errors of one call or a run of calls (a create, a
 * rebuild), so that they come back synchronously as a status with the
 * implementation's message. No WebGPU error scope: Dawn reports an error
 * with no scope open to the uncaptured-error callback during the call that
 * made it, and the callback counts it (loss.c); a scope's push and pop
 * would cost more than the rest of a create. */
#include "core/core.h"
#include "chaos/chaos.h"

void ul__scope_push(ul_device *d) {
  d->scope_mark = atomic_load(&d->uncaptured_errors);
  atomic_store(&d->in_scope, true);
  ul__chaos_listening(d->env->chaos, true);
}

ul_status ul__scope_pop(ul_device *d, const char *what) {
  ul__chaos_listening(d->env->chaos, false);
  atomic_store(&d->in_scope, false);
  uint32_t type = 0;
  char msg[sizeof d->uncaptured_message];
  if (!ul__device_uncaptured_since_typed(d, d->scope_mark, msg, sizeof msg, &type)) return UL_OK;
  ul_status st = type == WGPUErrorType_OutOfMemory ? UL_ERR_OUT_OF_MEMORY
                 : type == WGPUErrorType_Validation ? UL_ERR_VALIDATION
                                                    : UL_ERR_INTERNAL;
  return ul__fail(st, "%s%s%s", what ? what : "", what ? ": " : "", msg);
}
