/* The device's health monitor: what feeds it (submissions, reads, errors,
 * losses), what it decides at each call (fail fast, move to the fallback,
 * probe the GPU), and the metrics it exposes. The monitor itself is
 * src/health/; this file is the device's side. */
#include "core/core.h"
#include "health/health.h"
#include "recover/recover.h"
#include "res/obj.h"

static const double recovery_bounds[] = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30};

/* Called by the monitor after its lock is released, on whatever thread fed
 * it: queued here, delivered by the next ul__device_unlock. */
static void on_health_event(void *user, const ul__health_event *ev) {
  ul_device *d = user;
  pthread_mutex_lock(&d->hev_mu);
  if (d->hev_count < UL__MAX_PENDING_EVENTS) {
    d->hev_state[d->hev_count] = (ul_health_state)ev->to;
    snprintf(d->hev_reason[d->hev_count], sizeof d->hev_reason[0], "%s", ev->reason);
    d->hev_count++;
  }
  pthread_mutex_unlock(&d->hev_mu);
}

static void on_evict(void *user) {
  ul_device *d = user;
  atomic_fetch_add(&d->evict_generation, 1);
}

ul_status ul__device_health_init(ul_device *d) {
  ul__prom_hist *rh = calloc(1, sizeof *rh);
  if (!rh) return ul__fail(UL_ERR_OUT_OF_MEMORY, "health: out of host memory");
  ul_status s = ul__prom_hist_init(rh, recovery_bounds, UL__COUNT_OF(recovery_bounds));
  if (s) {
    free(rh);
    return s;
  }
  d->recovery_hist = rh;
  const ul_health_config *hc = &d->desc.health;
  if (hc->disabled) return UL_OK;
  ul__health_config c = {0};
  c.bucket_ns = (hc->window_ms ? hc->window_ms : 10000) * 100000ull; /* 10 buckets */
  c.window_buckets = 10;
  c.min_calls = hc->min_calls ? hc->min_calls : 20;
  c.slow_ns = (uint64_t)(hc->slow_ms ? hc->slow_ms : 200) * 1000000ull;
  c.slow_enter = 0.05;
  c.slow_exit = 0.025;
  c.fault_degraded_enter = 0.05;
  c.fault_degraded_exit = 0.01;
  c.fault_broken = hc->fault_rate_broken > 0 ? hc->fault_rate_broken : 0.5;
  c.consecutive_losses = hc->consecutive_losses ? hc->consecutive_losses : 3;
  c.memory_enter = 0.9;
  c.memory_exit = 0.8;
  c.open_wait_ns = (uint64_t)(hc->open_wait_ms ? hc->open_wait_ms : 1000) * 1000000ull;
  c.open_wait_max_ns = (uint64_t)(hc->open_wait_max_ms ? hc->open_wait_max_ms : 60000) * 1000000ull;
  if (c.open_wait_max_ns < c.open_wait_ns) c.open_wait_max_ns = c.open_wait_ns;
  c.jitter = 0.2;
  c.probes = hc->probes ? hc->probes : 3;
  c.trip_decay_ns = 60000000000ull;
  c.deadline_ns = (uint64_t)(hc->submit_deadline_ms ? hc->submit_deadline_ms : 2000) * 1000000ull;
  c.max_pending = 4096;
  c.seed = hc->seed;
  c.listener = on_health_event;
  c.listener_user = d;
  c.evict = on_evict;
  c.evict_user = d;
  s = ul__health_create(&c, &d->health);
  if (s) {
    free(d->recovery_hist);
    d->recovery_hist = NULL;
    return ul__wrap(s, "health monitor");
  }
  return UL_OK;
}

void ul__device_health_fini(ul_device *d) {
  ul__health_destroy(d->health);
  d->health = NULL;
  free(d->recovery_hist);
  d->recovery_hist = NULL;
}

void ul__device_health_loss(ul_device *d) {
  if (!d->health) return;
  /* Submissions in flight at the loss are replayed under new serials. */
  ul__health_drop_pending(d->health);
  ul__health_record(d->health, UL__HEALTH_OP_SUBMIT, 0, UL__HEALTH_LOSS, 0, UL__HEALTH_NOW, NULL);
}

void ul__device_health_recovered(ul_device *d, double seconds) {
  /* Under the loss-record lock, which metrics read them under: metrics
   * never wait for the device lock, so never for a recovery. */
  ul__lost_lock();
  if (d->recovery_hist) ul__prom_hist_observe(d->recovery_hist, seconds);
  ul__lost_unlock();
}

void ul__device_health_read(ul_device *d, ul_status s, uint64_t latency_ns) {
  if (!d->health) return;
  ul__health_outcome o = !s ? UL__HEALTH_OK
                         : s == UL_ERR_TIMEOUT ? UL__HEALTH_TIMEOUT
                         : s == UL_ERR_DEVICE_LOST ? UL__HEALTH_LOSS
                                                   : UL__HEALTH_INTERNAL;
  if (s == UL_ERR_INVALID_ARGUMENT || s == UL_ERR_INVALID_HANDLE) return; /* misuse */
  ul__health_record(d->health, UL__HEALTH_OP_READ, 0, o, latency_ns, UL__HEALTH_NOW, NULL);
}

/* A followed submission finished, as far as the implementation says.
 * After a loss that is no proof that it ran: such serials were dropped at
 * the loss.
 *
 * One submission is followed at a time: asking the implementation for the
 * end of every submission cost a tracked event each (created at the
 * submit, then looked at and called back by every pass over the
 * implementation's events: over a hundred in flight in ggml's pattern on
 * a GPU). The queue runs in order, so the end of the followed one is the
 * end of every submission before it: those it covers are counted as
 * finished then (an outcome without a latency of its own), and the
 * submissions made while it was in flight are covered by the next one
 * followed: at the next submit, or at the next call's entry. */
typedef struct done_rec {
  struct ul__native_ctx *ctx;
  uint64_t serial;
  uint64_t epoch;  /* of the device it was asked of */
  uint32_t covers; /* earlier submissions it covers, not followed themselves */
  bool followed;   /* the monitor follows it */
} done_rec;

static void on_submit_done(uint32_t status, WGPUStringView message, void *u1, void *u2) {
  UL__UNUSED(message);
  UL__UNUSED(u2);
  done_rec *r = u1;
  uint64_t now = ul__now_ns();
  ul__lost_lock();
  uint64_t epoch;
  ul_device *d = ul__native_ctx_owner(r->ctx, &epoch);
  /* Completion seen after a loss is not proof the work ran. */
  if (d && epoch == d->epoch && r->epoch == epoch && !ul__device_loss_pending(d)) {
    bool ok = status == WGPUQueueWorkDoneStatus_Success;
    if (ok) ul__flight_done_through_locked(d, r->serial, now);
    if (d->health && r->followed)
      ul__health_end(d->health, r->serial, ok ? UL__HEALTH_OK : UL__HEALTH_INTERNAL, UL__HEALTH_NOW, NULL);
    if (d->health && ok)
      for (uint32_t i = 0; i < r->covers; i++)
        ul__health_record(d->health, UL__HEALTH_OP_SUBMIT, UL__HEALTH_FIRST_USE, UL__HEALTH_OK, 0, UL__HEALTH_NOW,
                          NULL);
    atomic_store(&d->wd_armed, false);
  }
  ul__lost_unlock();
  ul__native_ctx_unref(r->ctx);
  free(r);
}

/* Asks for the end of `serial`, which covers `covers` earlier ones; timed
 * (its latency measured from now) when it was just submitted. Under the
 * device lock. */
static void follow(ul_device *d, uint64_t serial, uint32_t covers, bool timed, bool first_use) {
  done_rec *r = malloc(sizeof *r);
  if (!r) return; /* not followed: covered by the next one */
  unsigned flags = !timed || first_use ? UL__HEALTH_FIRST_USE : 0;
  r->followed = d->health && !ul__health_begin(d->health, serial, UL__HEALTH_OP_SUBMIT, flags, 0, UL__HEALTH_NOW);
  r->ctx = ul__native_ctx_ref(d);
  r->serial = serial;
  r->epoch = d->epoch;
  r->covers = covers;
  if (r->followed) atomic_store(&d->last_submit_serial, serial);
  d->wd_uncovered = 0;
  atomic_store(&d->wd_armed, true);
  WGPUQueueWorkDoneCallbackInfo cb = {0};
  cb.mode = WGPUCallbackMode_AllowSpontaneous;
  cb.callback = on_submit_done;
  cb.userdata1 = r;
  d->wgpu->QueueOnSubmittedWorkDone(d->queue, cb);
}

/* What is followed belongs to one native device: after a loss or a move,
 * nothing is (the old device's answer, if it comes, is of another epoch). */
static bool following(ul_device *d) {
  if (d->wd_epoch != d->epoch) {
    d->wd_epoch = d->epoch;
    d->wd_uncovered = 0;
    atomic_store(&d->wd_armed, false);
  }
  return atomic_load(&d->wd_armed);
}

void ul__device_health_submitted(ul_device *d, uint64_t serial, bool first_use) {
  d->wd_newest = serial;
  if (following(d)) {
    d->wd_uncovered++;
    return;
  }
  follow(d, serial, d->wd_uncovered, true, first_use);
}

void ul__device_follow_uncovered(ul_device *d) {
  if (following(d) || !d->wd_uncovered || ul__device_loss_pending(d)) return;
  /* The newest is followed from now: its latency is not known, only that
   * it and those before it end. */
  follow(d, d->wd_newest, d->wd_uncovered - 1, false, false);
}

ul_status ul__device_health_gate(ul_device *d) {
  uint64_t now = ul__now_ns();
  if (now - d->last_watchdog_ns > 50000000ull) {
    d->last_watchdog_ns = now;
    if (d->res) {
      ul__track_stats st;
      ul__track_get_stats(d->res->tracker, &st);
      ul__health_memory(d->health, st.total.live_bytes, st.budget_bytes, now);
    }
    /* Submissions' done callbacks run when the implementation's events
     * are processed, which a program that only submits may leave to later:
     * processed now (at most every 50 ms), before any is called overdue
     * (which takes it off the list). */
    d->wgpu->InstanceProcessEvents(d->instance);
    uint64_t overdue[8];
    size_t n = 0;
    ul__health_overdue(d->health, ul__now_ns(), overdue, UL__COUNT_OF(overdue), &n);
    if (n && d->desc.health.declare_hung && !ul__device_loss_pending(d) && d->wgpu->DeviceForceLoss) {
      char msg[128];
      snprintf(msg, sizeof msg, "unlost: submission %llu overdue; the device is declared hung",
               (unsigned long long)overdue[0]);
      ul__log(UL__LOG_WARN, "%s", msg);
      ul_status s = ul__recover_declare_hung(d, overdue[0], msg);
      if (s) return s;
    }
  }
  ul__health_decision dec = ul__health_allow(d->health, now);
  if (dec == UL__HEALTH_ALLOW) return UL_OK;
  if (d->desc.health.on_broken == UL_BROKEN_FAIL_FAST) {
    if (dec == UL__HEALTH_PROBE) return UL_OK;
    ul__health_snapshot snap;
    ul__health_snapshot_get(d->health, now, &snap);
    return ul__fail(UL_ERR_BREAKER_OPEN, "device '%s' is BROKEN (%s); probing in %.1f s", d->label,
                    snap.reason, snap.open_until_ns > now ? (double)(snap.open_until_ns - now) / 1e9 : 0.0);
  }
  if (dec == UL__HEALTH_REJECT) {
    if (!d->on_fallback && d->desc.power != UL_POWER_FALLBACK_ONLY) {
      if (ul__device_move_locked(d, true)) {
        ul__log(UL__LOG_WARN, "device '%s' is BROKEN and could not move to the fallback: %s", d->label,
                ul_last_error());
      } else {
        d->moved_for_health = true;
      }
    }
    return UL_OK;
  }
  /* PROBE: on the fallback because of the breaker, the probe is the move
   * back; its outcome decides. */
  if (d->moved_for_health && d->on_fallback) {
    ul_status s = ul__device_move_locked(d, false);
    ul__health_record(d->health, UL__HEALTH_OP_SUBMIT, UL__HEALTH_FIRST_USE, s ? UL__HEALTH_LOSS : UL__HEALTH_OK,
                      0, UL__HEALTH_NOW, NULL);
    if (!s) d->moved_for_health = false;
  }
  return UL_OK;
}

ul_status ul_device_health(ul_device *d, ul_health_snapshot *out) {
  if (!d || !out) return ul__fail(UL_ERR_INVALID_ARGUMENT, "health: NULL argument");
  memset(out, 0, sizeof *out);
  if (!d->health) return UL_OK; /* disabled: HEALTHY */
  ul__health_snapshot *s = malloc(sizeof *s);
  if (!s) return ul__fail(UL_ERR_OUT_OF_MEMORY, "health: out of host memory");
  uint64_t now = ul__health_now(d->health);
  ul__health_snapshot_get(d->health, now, s);
  out->state = (ul_health_state)s->state;
  out->time_in_state_s = (double)s->time_in_state_ns / 1e9;
  out->trips = s->trips;
  out->trips_total = s->trips_total;
  out->open_wait_left_s = s->open_until_ns > now ? (double)(s->open_until_ns - now) / 1e9 : 0;
  out->window_calls = s->window.calls;
  out->window_faults = s->window.faults;
  out->window_slow = s->window.slow;
  out->fault_rate = s->fault_rate;
  out->slow_rate = s->slow_rate;
  const ul__health_latency *ls = &s->latency[UL__HEALTH_OP_SUBMIT], *lr = &s->latency[UL__HEALTH_OP_READ];
  out->submit = (ul_latency){ls->count, ls->p50_ns / 1e6, ls->p95_ns / 1e6, ls->p99_ns / 1e6, ls->max_ns / 1e6};
  out->read = (ul_latency){lr->count, lr->p50_ns / 1e6, lr->p95_ns / 1e6, lr->p99_ns / 1e6, lr->max_ns / 1e6};
  out->ok = s->totals[UL__HEALTH_OK];
  out->validation = s->totals[UL__HEALTH_VALIDATION];
  out->out_of_memory = s->totals[UL__HEALTH_OUT_OF_MEMORY];
  out->internal = s->totals[UL__HEALTH_INTERNAL];
  out->losses = s->totals[UL__HEALTH_LOSS];
  out->timeouts = s->totals[UL__HEALTH_TIMEOUT];
  out->pending = s->pending;
  snprintf(out->reason, sizeof out->reason, "%s", s->reason);
  free(s);
  return UL_OK;
}

ul_status ul_metrics(ul_device *const *devs, size_t n, ul_metrics_format fmt, char **out) {
  if (!out || (n && !devs)) return ul__fail(UL_ERR_INVALID_ARGUMENT, "metrics: NULL argument");
  *out = NULL;
  if ((unsigned)fmt > UL_METRICS_JSON)
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "metrics: format %d is not a ul_metrics_format", (int)fmt);
  ul__metrics_device *md = calloc(n ? n : 1, sizeof *md);
  ul__health_snapshot *snaps = calloc(n ? n : 1, sizeof *snaps);
  /* Copies taken under each device's lock: a recovery on another thread
   * adds to the histogram while the text is formatted. */
  ul__prom_hist *hists = calloc(n ? n : 1, sizeof *hists);
  if (!md || !snaps || !hists) {
    free(md);
    free(snaps);
    free(hists);
    return ul__fail(UL_ERR_OUT_OF_MEMORY, "metrics: out of host memory");
  }
  for (size_t i = 0; i < n; i++) {
    ul_device *d = devs[i];
    if (!d) {
      free(md);
      free(snaps);
      free(hists);
      return ul__fail(UL_ERR_INVALID_ARGUMENT, "metrics: device %zu is NULL", i);
    }
    /* Without the device lock (a recovery holds it while it rebuilds): the
     * monitor and the tracker have locks of their own, and the loss and
     * recovery counts are copied under the loss-record lock. */
    md[i].device = d->label;
    if (d->health) {
      ul__health_snapshot_get(d->health, ul__health_now(d->health), &snaps[i]);
      md[i].health = &snaps[i];
    }
    ul__lost_lock();
    md[i].losses_total = d->losses_total;
    md[i].recoveries_total = d->recoveries_total;
    if (d->losses && d->losses_noted) {
      const ul_loss_info *li = &d->losses[(d->losses_noted - 1) % UL__LOSSES_KEPT];
      md[i].last_loss_in_flight = li->in_flight;
      md[i].last_loss_oldest_seconds = li->in_flight_listed ? li->in_flight_list[0].ms / 1e3 : 0;
    }
    if (d->recovery_hist) {
      hists[i] = *(const ul__prom_hist *)d->recovery_hist;
      md[i].recovery_seconds = &hists[i];
    }
    ul__lost_unlock();
    ul__standby_counts sc;
    ul__standby_get_counts(d, &sc);
    md[i].standby_recoveries_total = sc.used;
    md[i].standby_prefill_bytes = sc.ready_bytes;
    md[i].restored_total = atomic_load(&d->restored_total);
    md[i].restore_interrupted_total = atomic_load(&d->restore_interrupted_total);
    md[i].restore_pending_bytes = atomic_load(&d->restore_pending_gauge);
    if (d->res) {
      ul__track_stats st;
      ul__track_get_stats(d->res->tracker, &st);
      md[i].live_objects = st.total.live_objects;
      md[i].live_bytes = st.total.live_bytes;
    }
  }
  size_t len;
  ul_status s = fmt == UL_METRICS_JSON ? ul__metrics_json(md, n, out, &len)
                                       : ul__metrics_prometheus(md, n, out, &len);
  free(md);
  free(snaps);
  free(hists);
  return s;
}
