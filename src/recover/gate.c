/* Recovery: the gate every call passes (ul__device_enter), which processes
 * a recorded loss, and the attempts -- a new adapter and device with
 * bounded retries and exponential back-off with jitter, then the fallback
 * adapter, then FAILED -- each followed by the rebuild (rebuild.c). Runs on
 * the next call into the device or on ul_device_recover(), never inside a
 * WebGPU callback. Moves between adapters for health use the same
 * attempts (ul__device_move_locked). */
#include "chaos/chaos.h"
#include "health/health.h"
#include "recover/recover.h"

#include <errno.h>
#include <math.h>
#include <time.h>

static uint64_t backoff_ns(ul_device *d, uint32_t attempt) {
  const ul_recovery_config *rc = &d->desc.recovery;
  double initial = rc->backoff_initial_ms ? rc->backoff_initial_ms : 50;
  double maxms = rc->backoff_max_ms ? rc->backoff_max_ms : 2000;
  double jitter = rc->jitter == 0 ? 0.2 : (rc->jitter < 0 ? 0 : rc->jitter);
  if (jitter > 1) jitter = 1;
  double ms = initial * ldexp(1.0, (int)UL__MIN(attempt - 1, 30u));
  if (ms > maxms) ms = maxms;
  double u = (double)(ul__splitmix64(&d->rng) >> 11) / 9007199254740992.0; /* [0,1) */
  ms *= 1.0 + jitter * (2.0 * u - 1.0);
  return (uint64_t)(ms * 1e6);
}

/* Tries to replace the lost native device: on the preferred adapter with
 * retries, then on the fallback adapter. Under d->mu. */
typedef enum ul__target {
  UL__TO_ANY = 0,   /* after a loss: the preferred adapter with retries, then the fallback */
  UL__TO_PRIMARY,   /* move back from the fallback: one try, no change on failure */
  UL__TO_FALLBACK,  /* move off a BROKEN GPU: one try, no change on failure */
} ul__target;

static ul_status recover_attempts(ul_device *d, ul__target target);

/* ---- time spent recovering ----
 * A device may be lost seldom enough that calls get through between losses
 * (so the stall bound below never trips) and still spend most of its time
 * being rebuilt: each recovery that waits ~70 ms for a new device, losses
 * every few ms of work. Over a window of UNLOST_REBUILD_WINDOW_MS (default
 * 30 s) ending at a loss, more than half of it spent in recoveries gives up
 * as a stall does (give_up). Not shorter by default: on the CPU adapter a
 * client lost every 20 calls spends ~78% of its time recovering (44 ms a
 * recovery) and still ends, complete, in 11 s; what this bounds is a run
 * that would go on so for ever. The window is UL__REBUILD_BUCKETS buckets;
 * a recovery's time is credited to the bucket of its end. */
#define UL__REBUILD_BUCKETS 20

static uint64_t rebuild_window_ns(void) { return ul__opt_number(UL__OPT_REBUILD_WINDOW_MS) * 1000000ull; }

static void rebuild_note(ul_device *d, uint64_t t0, uint64_t t1) {
  uint64_t w = rebuild_window_ns() / UL__REBUILD_BUCKETS;
  if (!w) return;
  uint64_t idx = t1 / w;
  uint32_t slot = (uint32_t)(idx % UL__REBUILD_BUCKETS);
  if (d->rebuild_busy_at[slot] != idx) {
    d->rebuild_busy_at[slot] = idx;
    d->rebuild_busy_ns[slot] = 0;
  }
  d->rebuild_busy_ns[slot] += t1 - t0;
}

/* Time spent recovering in the window that ends now; 0 while the window
 * has not run its whole length since the origin. */
static uint64_t rebuild_busy(ul_device *d, uint64_t now, uint64_t *window) {
  *window = rebuild_window_ns();
  uint64_t w = *window / UL__REBUILD_BUCKETS;
  if (!w) return 0;
  if (!d->rebuild_origin_ns) d->rebuild_origin_ns = now;
  if (now - d->rebuild_origin_ns < *window) return 0;
  uint64_t idx = now / w, busy = 0;
  for (uint32_t i = 0; i < UL__REBUILD_BUCKETS; i++)
    if (d->rebuild_busy_at[i] + UL__REBUILD_BUCKETS > idx && d->rebuild_busy_at[i] <= idx) busy += d->rebuild_busy_ns[i];
  return busy;
}

/* A fresh window from now (after a move to another adapter). */
static void rebuild_reset(ul_device *d) {
  memset(d->rebuild_busy_ns, 0, sizeof d->rebuild_busy_ns);
  memset(d->rebuild_busy_at, 0, sizeof d->rebuild_busy_at);
  d->rebuild_origin_ns = ul__now_ns();
}

/* Recovery may drop d->mu while a restore callback runs; meanwhile other
 * callers wait in ul__device_enter until it is over. */
static ul_status recover_locked(ul_device *d, ul__target target) {
  d->recovering = true;
  d->recovering_thread = pthread_self();
  if (d->env->chaos) ul__chaos_recovering(d->env->chaos, true);
  uint64_t t0 = ul__now_ns();
  ul_status s = recover_attempts(d, target);
  uint64_t t1 = ul__now_ns();
  rebuild_note(d, t0, t1);
  if (!s && target == UL__TO_ANY) ul__device_health_recovered(d, (double)(t1 - t0) / 1e9);

  d->recovering = false;
  if (d->env->chaos) ul__chaos_recovering(d->env->chaos, false);
  pthread_cond_broadcast(&d->recovered);
  return s;
}

void ul__timeline_note(ul_device *d, uint64_t t, const ul__tl_event *ev) {
  if (d->res) ul__track_note(d->res->tracker, t, ev);
}

static ul_status recover_attempts(ul_device *d, ul__target target) {
  ul_device_state before = (ul_device_state)atomic_load(&d->state);
  atomic_store(&d->state, UL_DEVICE_RECOVERING);
  ul__device_emit(d, UL_EVENT_RECOVERING, 0, 0,
                  target == UL__TO_ANY ? d->lost_message
                  : target == UL__TO_PRIMARY ? "moving back to the preferred adapter"
                                             : "moving to the fallback adapter");
  const ul_recovery_config *rc = &d->desc.recovery;
  uint32_t retries = rc->max_retries == UL_RECOVERY_NO_RETRY ? 0
                     : rc->max_retries ? rc->max_retries : 5;
  bool only_fallback = d->desc.power == UL_POWER_FALLBACK_ONLY;
  ul__native old;
  ul__native_current(d, &old);
  char why[512] = "";
  ul_status s = UL_ERR_NO_ADAPTER;

  for (int phase = 0; phase < 2; phase++) {
    bool fallback = phase == 1 || only_fallback;
    if (target == UL__TO_PRIMARY && phase == 1) break;
    if (target == UL__TO_FALLBACK && phase == 0) continue;
    if (target == UL__TO_ANY && phase == 1 && (only_fallback || rc->no_fallback)) break;
    uint32_t attempts = target == UL__TO_ANY && phase == 0 ? retries + 1 : 1;
    for (uint32_t a = 1; a <= attempts; a++) {
      ul__native n;
      /* Every attempt gets a fresh epoch, so objects rebuilt on a device
       * that was lost again mid-rebuild are never taken for current. */
      uint64_t epoch = ++d->epoch_seq;
      uint64_t tb = ul__now_ns();
      /* No lock across the request: other callers wait on `recovered` for
       * at most their recovery wait, and state, health and metrics answer. */
      pthread_mutex_unlock(&d->mu);
      /* The first attempt after a loss begins on the standby device when
       * there is one that was not lost as well. */
      bool standby = target == UL__TO_ANY && !fallback && a == 1 && ul__standby_take(d, epoch, &n);
      s = standby ? UL_OK : ul__native_build(d, fallback, epoch, &n);
      pthread_mutex_lock(&d->mu);
      memset(&d->phases, 0, sizeof d->phases);
      d->phases.device = ul__now_ns() - tb;
      d->phases.adapter = standby ? 0 : n.adapter_ns;
      ul__log(UL__LOG_INFO, "recovery of '%s': %s %.1f ms (%s)", d->label,
              standby ? "the standby device" : "new adapter and device", (double)(ul__now_ns() - tb) / 1e6,
              s ? "failed" : "ok");
      if (!s) {
        /* Swap in the new device, then rebuild every live object on it. */
        ul__native_adopt(d, &n, epoch);
        s = ul__recover_rebuild(d);
        if (!s && !atomic_load(&d->lost)) {
          /* The lost device's teardown is not waited for. */
          uint64_t tr = ul__now_ns();
          ul__checkpoint_device_gone(d);
          ul__native_release_async(d, &old);
          d->phases.release = ul__now_ns() - tr;
          /* For the next loss; once the contents left for their first use
           * are back, when there are any (ul__obj_contents starts it). */
          if (d->restore_pending) d->standby_after_restore = true;
          else ul__standby_start(d);
          ul__device_count_recovery(d);
          ul_device_state st = fallback && !only_fallback ? UL_DEVICE_FALLBACK : UL_DEVICE_READY;
          atomic_store(&d->state, st);
          ul__device_emit(d, st == UL_DEVICE_FALLBACK ? UL_EVENT_FALLBACK : UL_EVENT_RECOVERED,
                          a, 0, d->info.name);
          uint64_t now = ul__now_ns();
          char text[160];
          if (target == UL__TO_ANY) {
            snprintf(text, sizeof text, "on %s, attempt %u", d->info.name, a);
            ul__timeline_note(d, 0, &(ul__tl_event){.type = UL__TL_RECOVERY, .text = text,
                                                      .dur_ns = now - d->lost_at_ns, .phases = d->phases});
          }
          if (target != UL__TO_ANY || st == UL_DEVICE_FALLBACK) {
            snprintf(text, sizeof text, "to the %s adapter %s", fallback ? "fallback" : "preferred", d->info.name);
            ul__timeline_note(d, 0, &(ul__tl_event){.type = UL__TL_MOVE, .text = text, .phases = d->phases});
          }
          return UL_OK;
        }
        /* Lost again while rebuilding: drop the new device and try again;
         * the next attempt rebuilds whatever is not of its epoch. */
        if (!s) s = ul__fail(UL_ERR_DEVICE_LOST, "lost again during rebuild");
        snprintf(why, sizeof why, "%s", ul_last_error());
        ul__native_release(d, &n);
        if (target != UL__TO_ANY) {
          /* The old device still works: bring its objects back to it,
           * under a fresh epoch (some were rebuilt on the dropped one). */
          ul__native_adopt(d, &old, ++d->epoch_seq);
          if (ul__recover_rebuild(d) && !atomic_load(&d->lost)) {
            /* The old device works but its objects could not be brought
             * back: recover it like a loss at the next call. */
            ul__device_set_lost(d, "a failed move left objects unbuilt");
          }
        } else {
          ul__native_adopt(d, &old, epoch);
        }
      } else {
        snprintf(why, sizeof why, "%s", ul_last_error());
      }
      if (a < attempts) {
        uint64_t delay = backoff_ns(d, a);
        ul__device_emit(d, UL_EVENT_RETRY, a, (double)delay / 1e6, why);
        ul__timeline_note(d, 0, &(ul__tl_event){.type = UL__TL_RETRY, .text = why});
        pthread_mutex_unlock(&d->mu);
        ul__sleep_ns(delay);
        pthread_mutex_lock(&d->mu);
      }
    }
  }
  if (target != UL__TO_ANY) {
    /* A failed move leaves the device where it was. */
    atomic_store(&d->state, atomic_load(&d->lost) ? UL_DEVICE_LOST : before);
    return ul__fail(s ? s : UL_ERR_NO_ADAPTER, "move to the %s adapter: %s",
                    target == UL__TO_PRIMARY ? "preferred" : "fallback", why);
  }
  atomic_store(&d->state, UL_DEVICE_FAILED);
  ul__device_emit(d, UL_EVENT_FAILED, retries + 1, 0, why);
  ul__timeline_note(d, 0, &(ul__tl_event){.type = UL__TL_FAILED, .text = why});
  return ul__fail(UL_ERR_DEVICE_FAILED, "device '%s' could not be recovered: %s", d->label, why);
}

/* Recovery after recovery, and no call got through in between (the device
 * is lost faster than work can finish), or more than half of the window
 * spent recovering: recovering again would go on for ever, or nearly so.
 * The health monitor trips (BROKEN). The work moves to the fallback adapter
 * once, when the health monitor is on and its policy is to move; otherwise,
 * or when either rule gives up there too, the device ends FAILED. Under
 * d->mu. */
static ul_status give_up(ul_device *d, const char *reason) {
  char why[256];
  snprintf(why, sizeof why, "%s", reason);
  /* The health monitor says so: BROKEN, whatever its window saw. */
  if (d->health) ul__health_trip(d->health, reason, UL__HEALTH_NOW);
  const ul_recovery_config *rc = &d->desc.recovery;
  bool can_move = d->health && d->desc.health.on_broken == UL_BROKEN_FALLBACK && !d->stall_moved &&
                  !d->on_fallback && d->desc.power != UL_POWER_FALLBACK_ONLY && !rc->no_fallback;
  if (can_move) {
    d->stall_moved = true;
    d->stalled_recoveries = 0;
    rebuild_reset(d);
    ul__log(UL__LOG_WARN, "device '%s': %s; moving the work to the fallback adapter", d->label, why);
    if (!recover_locked(d, UL__TO_FALLBACK)) {
      d->moved_for_health = true;
      return UL_OK;
    }
    snprintf(why + strlen(why), sizeof why - strlen(why), "; the move to the fallback failed");
  } else if (d->stall_moved) {
    snprintf(why + strlen(why), sizeof why - strlen(why), ", for the second time");
  }
  atomic_store(&d->state, UL_DEVICE_FAILED);
  ul__device_emit(d, UL_EVENT_FAILED, d->stalled_recoveries, 0, why);
  ul__timeline_note(d, 0, &(ul__tl_event){.type = UL__TL_FAILED, .text = why});
  ul__log(UL__LOG_WARN, "device '%s' gave up: %s", d->label, why);
  return ul__fail(UL_ERR_DEVICE_FAILED, "device '%s' gave up: %s", d->label, why);
}

/* Processes a recorded loss (under d->mu). */
static ul_status handle_loss_locked(ul_device *d) {
  uint32_t reason;
  char msg[256];
  ul__device_loss_info(d, &reason, msg, sizeof msg);
  atomic_store(&d->state, UL_DEVICE_LOST);
  ul__device_emit(d, UL_EVENT_LOST, 0, 0, msg);
  /* What was running: into the log line and the timeline. */
  ul_loss_info li;
  ul__forensics_last(d, &li);
  char line[400];
  ul__forensics_line(&li, line, sizeof line);
  /* The implementation's first line (Dawn adds where it noticed). */
  ul__log(UL__LOG_WARN, "device '%s' lost %s: %.*s", d->label, line, (int)strcspn(msg, "\r\n"), msg);
  ul__timeline_note(d, 0, &(ul__tl_event){.type = UL__TL_LOSS, .number = li.number, .text = line});
  if (reason == WGPUDeviceLostReason_Destroyed) {
    /* The program destroyed the native device itself: not recovered. */
    atomic_store(&d->state, UL_DEVICE_FAILED);
    ul__device_emit(d, UL_EVENT_FAILED, 0, 0, "the native device was destroyed by the program");
    return ul__fail(UL_ERR_DEVICE_FAILED,
                    "device '%s' was destroyed by the program (%s); not recovered", d->label, msg);
  }
  if (!ul__opt_number(UL__OPT_RECOVERY)) {
    /* Recovery switched off (UNLOST_RECOVERY=0): the loss is final. */
    atomic_store(&d->state, UL_DEVICE_FAILED);
    ul__device_emit(d, UL_EVENT_FAILED, 0, 0, "recovery is off (UNLOST_RECOVERY=0)");
    return ul__fail(UL_ERR_DEVICE_FAILED, "device '%s' was lost (%s) and recovery is off (UNLOST_RECOVERY=0)",
                    d->label, msg);
  }
  ul__device_health_loss(d);
  char why[256];
  if (d->stalled_recoveries >= UL__STALL_RECOVERIES) {
    snprintf(why, sizeof why,
             "%u recoveries in a row and no call got through in between (the device is lost again before work "
             "can finish)", d->stalled_recoveries);
    return give_up(d, why);
  }
  uint64_t window, busy = rebuild_busy(d, ul__now_ns(), &window);
  if (window && 2 * busy > window) {
    snprintf(why, sizeof why, "%.1f s of the last %.1f s spent recovering (more than half)", (double)busy / 1e9,
             (double)window / 1e9);
    return give_up(d, why);
  }
  /* Until a call gets through, a recovery bought nothing (ul__device_
   * progress sets the count back). */
  d->stalled_recoveries++;
  if (d->moved_for_health && d->on_fallback) {
    /* The breaker moved the work off the GPU: recover on the fallback
     * again; the breaker's probes decide when to go back. */
    if (!recover_locked(d, UL__TO_FALLBACK)) return UL_OK;
  }
  return recover_locked(d, UL__TO_ANY);
}

ul_status ul__device_recover_locked(ul_device *d) {
  /* Called again from inside a recovery (a restore callback's own calls):
   * no nested rebuild; the outer recovery sees the loss and tries again. */
  if (d->recovering) {
    if (atomic_load(&d->lost))
      return ul__fail(UL_ERR_DEVICE_LOST, "device '%s' was lost again during recovery", d->label);
    return UL_OK;
  }
  if (atomic_load(&d->state) == UL_DEVICE_FAILED)
    return ul__fail(UL_ERR_DEVICE_FAILED, "device '%s' has failed for good", d->label);
  if (!atomic_load(&d->lost) && atomic_load(&d->state) != UL_DEVICE_LOST) return UL_OK;
  ul_status s = handle_loss_locked(d);
  /* The call goes on on the new device, as if it entered it now: it got
   * through if the next call enters with no loss since. */
  if (!s) d->entry_epoch = d->epoch;
  return s;
}

bool ul__device_recovering_elsewhere(ul_device *d) {
  return d->recovering && !pthread_equal(d->recovering_thread, pthread_self());
}

ul_status ul__device_enter(ul_device *d) { return ul__device_enter_ex(d, true); }

/* `call`: the entry is a program's call (the stall bound's progress is
 * measured between calls); false for unlost's own recovery work. */
static ul_status enter(ul_device *d, bool gate, bool call) {
  pthread_mutex_lock(&d->mu);
  if (ul__device_recovering_elsewhere(d)) {
    struct timespec until = ul__deadline(CLOCK_REALTIME, (uint64_t)d->recovery_wait_ms * 1000000ull);
    while (ul__device_recovering_elsewhere(d)) {
      if (pthread_cond_timedwait(&d->recovered, &d->mu, &until) == ETIMEDOUT &&
          ul__device_recovering_elsewhere(d)) {
        ul__device_unlock(d);
        return ul__fail(UL_ERR_TIMEOUT, "device '%s' is still recovering after %u ms", d->label,
                        d->recovery_wait_ms);
      }
    }
  }
  if (atomic_load(&d->state) == UL_DEVICE_FAILED) {
    ul__device_unlock(d);
    return ul__fail(UL_ERR_DEVICE_FAILED, "device '%s' has failed for good", d->label);
  }
  if (d->recovering) {
    /* This thread is recovering (a restore callback calls in). */
    if (atomic_load(&d->lost)) {
      ul__device_unlock(d);
      return ul__fail(UL_ERR_DEVICE_LOST, "device '%s' was lost again during recovery", d->label);
    }
    return UL_OK;
  }
  bool was_lost = atomic_load(&d->lost) || atomic_load(&d->state) == UL_DEVICE_LOST;
  if (was_lost) {
    ul_status s = handle_loss_locked(d);
    if (s) {
      ul__device_unlock(d);
      return s;
    }
  }
  /* The call before this one got through: it ran from its entry to this
   * one without a loss on the way (a loss would have changed the epoch,
   * or be pending now). */
  if (call) {
    if (!was_lost && d->epoch == d->entry_epoch) ul__device_progress(d);
    d->entry_epoch = d->epoch;
  }
  if (atomic_load(&d->state) == UL_DEVICE_FAILED) {
    ul__device_unlock(d);
    return ul__fail(UL_ERR_DEVICE_FAILED, "device '%s' has failed for good", d->label);
  }
  if (d->wd_uncovered && !d->recovering) ul__device_follow_uncovered(d);
  if (gate && d->health && !d->recovering) {
    ul_status s = ul__device_health_gate(d);
    if (s) {
      ul__device_unlock(d);
      return s;
    }
  }
  return UL_OK;
}

ul_status ul__device_enter_ex(ul_device *d, bool gate) { return enter(d, gate, true); }

ul_status ul__device_enter_quiet(ul_device *d) { return enter(d, false, false); }

ul_status ul__device_move_locked(ul_device *d, bool to_fallback) {
  return recover_locked(d, to_fallback ? UL__TO_FALLBACK : UL__TO_PRIMARY);
}


ul_status ul__obj_use(ul_device *d, ul__obj *o) {
  ul_status s;
  ul__retry rt = UL__RETRY_LOSSES;
  do {
    s = ul__obj_contents(d, o);
  } while (ul__retry_again(d, &s, &rt));
  return s;
}
