/* The public device calls: create and destroy (their bodies are
 * src/engine/lifecycle.c), state, epoch, recover, info, limits, force loss,
 * memory statistics, checkpoint. */
#include "engine/engine.h"
#include "core/adapter.h"
#include "exec/oplog.h"

ul_status ul_device_create_at(ul_env *env, const ul_device_desc *desc, ul_device **out,
                              const ul_site *site) {
  return ul__device_create_req(env, desc, NULL, out, site);
}

ul_status ul_device_destroy(ul_device *d) {
  if (!d) return UL_OK;
  return ul__device_destroy(d);
}

ul_device_state ul_device_get_state(ul_device *d) {
  if (!d) return UL_DEVICE_FAILED;
  int st = atomic_load(&d->state);
  if ((st == UL_DEVICE_READY || st == UL_DEVICE_FALLBACK) && atomic_load(&d->lost))
    return UL_DEVICE_LOST;
  return (ul_device_state)st;
}

uint64_t ul_device_epoch(ul_device *d) {
  if (!d) return 0;
  ul__lost_lock();
  uint64_t e = d->epoch;
  ul__lost_unlock();
  return e;
}

uint64_t ul_device_recoveries(ul_device *d) { return ul__device_recoveries(d); }

ul_status ul_device_recover(ul_device *d) {
  if (!d) return ul__fail(UL_ERR_INVALID_ARGUMENT, "recover: device is NULL");
  bool was_on_fallback = atomic_load(&d->state) == UL_DEVICE_FALLBACK && !atomic_load(&d->lost);
  ul_status s = ul__engine_enter(d);
  if (s) return s;
  if (was_on_fallback && d->on_fallback && d->desc.power != UL_POWER_FALLBACK_ONLY) {
    /* Try the preferred adapter once; stay on the fallback if it fails. */
    s = ul__device_move_locked(d, false);
    if (s) ul__log(UL__LOG_INFO, "%s", ul_last_error());
    s = UL_OK;
  }
  ul__engine_unlock(d);
  return s;
}

ul_status ul_device_adapter_info(ul_device *d, ul_adapter_info *out) {
  if (!d || !out) return ul__fail(UL_ERR_INVALID_ARGUMENT, "adapter info: NULL argument");
  ul__engine_lock(d);
  *out = d->info;
  ul__engine_unlock(d);
  return UL_OK;
}

ul_status ul_device_limits(ul_device *d, ul_limits *out) {
  if (!d || !out) return ul__fail(UL_ERR_INVALID_ARGUMENT, "limits: NULL argument");
  ul__engine_lock(d);
  ul__limits_from_wgpu(&d->limits, out);
  ul__engine_unlock(d);
  return UL_OK;
}

ul_status ul_device_force_loss(ul_device *d, const char *message) {
  if (!d) return ul__fail(UL_ERR_INVALID_ARGUMENT, "force loss: device is NULL");
  return ul__device_force_loss(d, message);
}

void ul_device_set_recovery_wait(ul_device *d, uint32_t ms) {
  if (!d) return;
  ul__engine_lock(d);
  d->recovery_wait_ms = ms;
  ul__engine_unlock(d);
}

ul_status ul_device_memory_stats(ul_device *d, ul_memory_stats *out) {
  if (!d || !out) return ul__fail(UL_ERR_INVALID_ARGUMENT, "memory stats: NULL argument");
  ul__engine_lock(d);
  ul__track_stats st;
  ul__track_get_stats(d->res->tracker, &st);
  memset(out, 0, sizeof *out);
  out->live_objects = st.total.live_objects;
  out->live_bytes = st.total.live_bytes;
  out->peak_objects = st.total.peak_objects;
  out->peak_bytes = st.total.peak_bytes;
  out->created = st.total.created;
  out->destroyed = st.total.destroyed;
  out->budget_bytes = st.budget_bytes;
  out->churning_sites = st.churning_sites;
  out->log_bytes = ul__oplog_bytes(d);
  ul__engine_unlock(d);
  return UL_OK;
}

ul_status ul_device_checkpoint(ul_device *d) {
  if (!d) return ul__fail(UL_ERR_INVALID_ARGUMENT, "checkpoint: device is NULL");
  ul_status s = ul__engine_enter(d);
  if (s) return ul__wrap(s, "checkpoint");
  s = ul__checkpoint_retry(d);
  ul__engine_unlock(d);
  return s;
}
