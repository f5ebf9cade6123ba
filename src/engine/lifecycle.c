/* A device's life for both doors: create (a native device, then the
 * registry, the log and the health monitor on it), destroy, the count of
 * its recoveries, a forced loss, the caller's end of its native device,
 * its limits; the native adapter a first device gets. They drive
 * core (the native device), res (the registry) and recover (the gate and
 * the moves). */
#include "engine/engine.h"
#include "chaos/chaos.h"
#include "core/adapter.h"
#include "exec/oplog.h"
#include "exec/read.h"
#include "recover/recover.h"
#include "res/res.h"

/* The health monitor's settings, each in a range that makes sense (zero
 * fields take their defaults): a NaN rate or a day-long window is a
 * mistake, not a configuration. */
static ul_status validate_health(const ul_health_config *h) {
  const uint32_t day_ms = 86400000u;
  if ((unsigned)h->on_broken > UL_BROKEN_FAIL_FAST)
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "on_broken %d is not a ul_broken_policy", (int)h->on_broken);
  if (!(h->fault_rate_broken >= 0.0f && h->fault_rate_broken <= 1.0f))
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "fault_rate_broken %g is not in [0, 1]", (double)h->fault_rate_broken);
  if (h->window_ms > day_ms || h->slow_ms > day_ms || h->open_wait_ms > day_ms || h->open_wait_max_ms > day_ms ||
      h->submit_deadline_ms > day_ms)
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "a time is longer than a day (window %u, slow %u, open wait %u..%u, "
                    "submit deadline %u ms)", h->window_ms, h->slow_ms, h->open_wait_ms, h->open_wait_max_ms,
                    h->submit_deadline_ms);
  if (h->window_ms && h->window_ms < 10)
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "window_ms %u is below 10 (10 buckets of at least 1 ms)", h->window_ms);
  if (h->open_wait_ms && h->open_wait_max_ms && h->open_wait_max_ms < h->open_wait_ms)
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "open_wait_max_ms %u is below open_wait_ms %u", h->open_wait_max_ms,
                    h->open_wait_ms);
  if (h->consecutive_losses > 1000000 || h->probes > 1000000 || h->min_calls > 100000000)
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "consecutive_losses %u, probes %u or min_calls %u is absurdly large",
                    h->consecutive_losses, h->probes, h->min_calls);
  return UL_OK;
}

ul_status ul__device_create_req(ul_env *env, const ul_device_desc *desc, const ul__device_req *req, ul_device **out,
                                const ul_site *site) {
  if (!out) return ul__fail(UL_ERR_INVALID_ARGUMENT, "create device: out is NULL");
  *out = NULL;
  if (!env) return ul__fail(UL_ERR_INVALID_ARGUMENT, "create device: env is NULL");
  ul_device_desc zero = {0};
  if (!desc) desc = &zero;
  if ((unsigned)desc->power > UL_POWER_FALLBACK_ONLY)
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "create device: power preference %d is not a ul_power_preference",
                    (int)desc->power);
  if (desc->recovery.jitter > 1.0f || desc->recovery.jitter != desc->recovery.jitter)
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "create device: recovery.jitter must be at most 1");
  ul_status hs = validate_health(&desc->health);
  if (hs) return ul__wrap(hs, "create device: health");
  ul_device *d = calloc(1, sizeof *d);
  if (!d) return ul__fail(UL_ERR_OUT_OF_MEMORY, "create device: out of host memory");
  d->env = env;
  d->wgpu = env->wgpu;
  d->desc = *desc;
  d->label = ul__strdup(desc->label ? desc->label : "device");
  if (!d->label) {
    free(d);
    return ul__fail(UL_ERR_OUT_OF_MEMORY, "create device: out of host memory");
  }
  d->desc.label = d->label;
  if (req && (!(d->req = malloc(sizeof *d->req)) || !ul__device_req_copy(d->req, req))) {
    free(d->req);
    free(d->label);
    free(d);
    return ul__fail(UL_ERR_OUT_OF_MEMORY, "create device: out of host memory");
  }
  if (site) d->site = *site;
  d->recovery_wait_ms = 30000;
  d->rng = desc->recovery.jitter_seed ? desc->recovery.jitter_seed : ul__now_ns();
  pthread_mutex_init(&d->mu, NULL);
  pthread_cond_init(&d->recovered, NULL);

  ul__native n;
  bool only_fallback = desc->power == UL_POWER_FALLBACK_ONLY;
  ul_status s = ul__native_build(d, only_fallback, 1, &n);
  if (s && !only_fallback && !desc->recovery.no_fallback) {
    char first[512];
    snprintf(first, sizeof first, "%s", ul_last_error());
    ul_status first_s = s;
    s = ul__native_build(d, true, 1, &n);
    /* Report the preferred adapter's status unless it was a plain refusal. */
    if (s) s = ul__wrap(first_s == UL_ERR_NO_ADAPTER ? s : first_s,
                        "preferred adapter: %s; fallback adapter", first);
  }
  if (s) {
    pthread_mutex_destroy(&d->mu);
    ul__device_req_free(d->req);
    free(d->req);
    free(d->label);
    free(d);
    return ul__wrap(s, "create device '%s'", desc->label ? desc->label : "device");
  }
  d->epoch_seq = 1;
  ul__native_adopt(d, &n, 1);
  atomic_store(&d->state, n.info.is_fallback && !only_fallback ? UL_DEVICE_FALLBACK
                                                               : UL_DEVICE_READY);
  pthread_mutex_init(&d->hev_mu, NULL);
  s = ul__res_create(d);
  if (!s && (s = ul__oplog_create(d))) ul__res_destroy(d);
  if (!s && (s = ul__device_health_init(d))) {
    ul__oplog_destroy(d);
    ul__res_destroy(d);
  }
  if (!s && (s = ul__standby_init(d))) {
    ul__device_health_fini(d);
    ul__oplog_destroy(d);
    ul__res_destroy(d);
  }
  if (s) {
    pthread_mutex_destroy(&d->hev_mu);
    ul__native_release(d, &n);
    pthread_mutex_destroy(&d->mu);
    ul__device_req_free(d->req);
    free(d->req);
    free(d->label);
    free(d);
    return ul__wrap(s, "create device");
  }
  pthread_mutex_lock(&env->mu);
  env->device_count++;
  pthread_mutex_unlock(&env->mu);
  ul__standby_start(d); /* asked for now, for the first loss */
  *out = d;
  return UL_OK;
}

static void device_free(ul_device *d) {
  ul__device_req_free(d->req);
  free(d->req);
  free(d->label);
  free(d->losses);
  free(d);
}

ul_status ul__device_destroy(ul_device *d) {
  ul__standby_close(d); /* before the lock: it may wait for a build */
  ul__device_lock(d);
  d->destroying = true;
  /* Every read still queued is answered first, with no lock held: with
   * its data when it had arrived, else UL_ERR_WRONG_STATE. */
  ul__reads_fail_all(d, UL_ERR_WRONG_STATE, "the device was destroyed before the read was delivered");
  ul__read *left = ul__reads_take_all(d);
  if (left) {
    ul__device_unlock(d);
    ul__reads_deliver(d, left);
    ul__device_lock(d);
  }
  /* Then the log, then the objects, reported as leaks: UL_ERR_BUSY when
   * there were any. */
  ul__queue_free_reads(d);
  ul__checkpoint_forget(d);
  ul__oplog_destroy(d);
  ul_status s = ul__res_destroy(d);
  ul__prefills_drop(d);
  ul__native cur;
  ul__native_current(d, &cur);
  /* Only this device stops being the fault target: another one that is
   * the target stays so. */
  if (d->env->chaos) ul__chaos_forget_device(d->env->chaos, cur.device);
  /* Lost devices of earlier recoveries first (one that never ends is
   * counted abandoned and logged; it is not this device's failure). */
  ul__native_releases_wait(d);
  unsigned abandoned = atomic_load(&d->env->abandoned_devices);
  ul__native_release(d, &cur);
  ul__device_release_kept(d);
  if (atomic_load(&d->env->abandoned_devices) != abandoned && !s)
    s = ul__fail(UL_ERR_TIMEOUT, "destroy device '%s': the implementation did not release it within %.1f s "
                 "(work that never ends, e.g. an endless loop in a kernel); it was abandoned", d->label,
                 (double)ul__device_release_deadline_ns(d) / 1e9);
  d->pending_count = 0;
  ul__device_health_fini(d);
  pthread_mutex_destroy(&d->hev_mu);
  pthread_mutex_unlock(&d->mu);
  ul__log_release(); /* the hold of ul__device_lock above */
  pthread_mutex_lock(&d->env->mu);
  d->env->device_count--;
  pthread_mutex_unlock(&d->env->mu);
  ul__adapter_reap_orphans(d->wgpu);
  pthread_cond_destroy(&d->recovered);
  pthread_mutex_destroy(&d->mu);
  ul__standby_free_device(d, device_free);
  return s;
}

uint64_t ul__device_recoveries_ns(ul_device *d, uint64_t *recovery_ns) {
  if (recovery_ns) *recovery_ns = 0;
  if (!d) return 0;
  ul__lost_lock(); /* both are written under it (and mu), together */
  uint64_t n = d->recoveries_total;
  if (recovery_ns) *recovery_ns = d->recovery_ns_total;
  ul__lost_unlock();
  return n;
}

uint64_t ul__device_recoveries(ul_device *d) {
  return ul__device_recoveries_ns(d, NULL);
}

ul_status ul__device_force_loss(ul_device *d, const char *message) {
  if (!d->env->lib.procs.DeviceForceLoss)
    return ul__fail(UL_ERR_UNSUPPORTED, "force loss: '%s' has no wgpuDeviceForceLoss",
                    d->env->lib.path);
  ul__device_lock(d);
  if (atomic_load(&d->state) == UL_DEVICE_FAILED) {
    ul__device_unlock(d);
    return ul__fail(UL_ERR_DEVICE_FAILED, "force loss: device '%s' has failed for good", d->label);
  }
  /* Already lost: a loss is recorded and not recovered from yet (pending,
   * or a recovery waits for its new native device). Forcing would do
   * nothing, so nothing is done, and the caller hears so. */
  if (!d->device || ul__device_loss_pending(d)) {
    bool rec = d->recovering;
    ul__device_unlock(d);
    return ul__fail(UL_ERR_BUSY, "force loss: device '%s' is already lost (%s); no loss was forced", d->label,
                    rec ? "a recovery is under way" : "the loss is not recovered from yet");
  }
  /* What is in flight now: the implementation finishes the queue before
   * it reports the loss, which would make every submission look done. */
  ul__forensics_loss_forced(d, message);
  d->env->lib.procs.DeviceForceLoss(d->device, WGPUDeviceLostReason_Unknown,
                                    ul__sv(message ? message : "unlost: forced loss"));
  ul__forensics_loss_forced_done(d);
  /* The implementation records the loss before it returns (its lost
   * callback); one it ignored (its device was lost a moment ago, and the
   * callback has not run yet) forced nothing. */
  bool lost = ul__device_loss_pending(d);
  ul__device_unlock(d);
  if (!lost)
    return ul__fail(UL_ERR_BUSY, "force loss: the implementation did not lose device '%s' (it was lost already); "
                    "no loss was forced", d->label);
  return UL_OK;
}

void ul__device_destroy_native(ul_device *d) {
  ul__device_lock(d);
  if (d->device) d->wgpu->DeviceDestroy(d->device);
  ul__device_unlock(d);
}

WGPULimits ul__device_limits_native(ul_device *d) {
  ul__device_lock(d);
  WGPULimits l = d->limits;
  ul__device_unlock(d);
  return l;
}

ul_status ul__adapter_for(ul_env *env, ul_power_preference power, WGPUAdapter *adapter, WGPUInstance *instance) {
  uint32_t wp = power == UL_POWER_LOW_POWER ? WGPUPowerPreference_LowPower : WGPUPowerPreference_HighPerformance;
  WGPUInstance ni = env->instance;
  ul_status s = ul__request_adapter(env, ni, wp, power == UL_POWER_FALLBACK_ONLY, 10000000000ull, adapter);
  if (s && power == UL_POWER_FALLBACK_ONLY && (ni = ul__env_cpu_instance(env)))
    s = ul__request_adapter(env, ni, wp, false, 10000000000ull, adapter);
  if (!s) {
    ul_adapter_info ai;
    if (!ul__adapter_describe(env, *adapter, &ai) && ai.backend == UL_BACKEND_NULL && !env->allow_null_backend)
      s = ul__fail(UL_ERR_NO_ADAPTER, "only Dawn's Null backend is available, which computes nothing");
  }
  *instance = ni;
  return s;
}

#if !UL_WGPU_STABLE
void ul__device_set_logging(ul_device *d, WGPULoggingCallbackInfo info) {
  ul__engine_lock(d);
  d->logging = info;
  if (d->device && d->wgpu->DeviceSetLoggingCallback) d->wgpu->DeviceSetLoggingCallback(d->device, info);
  ul__engine_unlock(d);
}
#endif
