/* Checkpoints for the public calls: the transaction (src/recover/checkpoint.c)
 * under the retry policy, and making room in the operation log before a
 * call logs more (a checkpoint when the log would grow past its bound). */
#include "api/api.h"
#include "exec/oplog.h"

ul_status ul__checkpoint_retry(ul_device *d) {
  ul_status s;
  ul__retry rt = UL__RETRY_LOSSES;
  do {
    s = ul__checkpoint_locked(d);
  } while (ul__retry_again(d, &s, &rt));
  return s;
}

ul_status ul__checkpoint_make_room(ul_device *d, uint64_t bytes) {
  if (d->recovering || d->res->rebuilding) return UL_OK;
  if (!ul__oplog_would_exceed(d, bytes)) return UL_OK;
  ul_status s = ul__checkpoint_retry(d);
  return s ? ul__wrap(s, "make room in the operation log") : UL_OK;
}
