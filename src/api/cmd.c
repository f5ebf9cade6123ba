/* ul_cmd_submit: check, enter, submit (src/engine/submit.c), leave. The
 * list's recording is src/exec/commands.c. */
#include "engine/engine.h"

ul_status ul_cmd_submit(ul_device *d, ul_cmd *c, uint64_t *serial) {
  if (serial) *serial = 0;
  if (!d || !c) return ul__fail(UL_ERR_INVALID_ARGUMENT, "submit: NULL argument");
  if (c->device != d) return ul__fail(UL_ERR_INVALID_ARGUMENT, "submit: the command list belongs to another device");
  ul_status s = ul__engine_enter(d);
  if (s) return ul__wrap(s, "submit");
  s = ul__cmd_submit(d, c, serial);
  ul__engine_unlock(d);
  return s;
}
