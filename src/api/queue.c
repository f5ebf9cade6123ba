/* The public waits for submitted work: ul_device_wait, ul_device_wait_idle. */
#include "engine/engine.h"
#include "exec/oplog.h"

ul_status ul_device_wait(ul_device *d, uint64_t serial, uint32_t timeout_ms) {
  if (!d) return ul__fail(UL_ERR_INVALID_ARGUMENT, "wait: device is NULL");
  ul_status s = ul__engine_enter_ex(d, false);
  if (s) return ul__wrap(s, "wait");
  if (serial > d->submit_serial) {
    s = ul__fail(UL_ERR_INVALID_ARGUMENT, "wait: serial %llu was never submitted",
                 (unsigned long long)serial);
  } else if (serial == 0 || serial > d->done_serial) {
    uint64_t tmo = timeout_ms ? (uint64_t)timeout_ms * 1000000ull : 30000000000ull;
    /* After a loss the work is replayed on the new device; wait for that. */
    ul__retry rt = UL__RETRY_LOSSES;
    do {
      s = ul__queue_wait_idle(d, tmo);
    } while (ul__retry_again(d, &s, &rt));
  }
  ul__engine_unlock(d);
  return s ? ul__wrap(s, "wait") : UL_OK;
}

ul_status ul_device_wait_idle(ul_device *d, uint32_t timeout_ms) {
  return ul_device_wait(d, 0, timeout_ms);
}

