/* What the native device's callbacks and the health monitor report, as the
 * device's own events: a late error's outcome into the monitor, and the
 * monitor's transitions into the device's events and timeline. Here, below
 * recovery, because the native device's callbacks (loss.c) report them;
 * the monitor's setup and its decisions are src/recover/vitals.c. */
#include "core/core.h"
#include "health/health.h"
#include "track/track.h"

const char *ul_health_state_name(ul_health_state s) { return ul__health_state_name((ul__health_state)s); }

void ul__device_health_events(ul_device *d) {
  ul_health_state st[UL__MAX_PENDING_EVENTS];
  char why[UL__MAX_PENDING_EVENTS][112];
  pthread_mutex_lock(&d->hev_mu);
  int n = d->hev_count;
  memcpy(st, d->hev_state, sizeof st[0] * (size_t)n);
  memcpy(why, d->hev_reason, sizeof why[0] * (size_t)n);
  d->hev_count = 0;
  pthread_mutex_unlock(&d->hev_mu);
  for (int i = 0; i < n; i++) {
    ul__device_emit(d, UL_EVENT_HEALTH, (uint32_t)st[i], 0, why[i]);
    char text[160];
    snprintf(text, sizeof text, "%s: %.140s", ul_health_state_name(st[i]), why[i]);
    if (d->tracker) ul__track_note(d->tracker, 0, &(ul__tl_event){.type = UL__TL_HEALTH, .text = text});
  }
}

void ul__device_health_error(ul_device *d, ul_status s, bool late) {
  if (!d->health) return;
  ul__health_outcome o = s == UL_ERR_OUT_OF_MEMORY ? UL__HEALTH_OUT_OF_MEMORY
                         : s == UL_ERR_VALIDATION || s == UL_ERR_SHADER_COMPILE ? UL__HEALTH_VALIDATION
                                                                                : UL__HEALTH_INTERNAL;
  /* An error that arrives late (submissions run without error scopes) is
   * the newest unfinished submission's outcome when there is one; else it
   * is counted on its own. */
  uint64_t serial = late ? atomic_load(&d->last_submit_serial) : 0;
  /* The monitor reports a serial that is no longer pending through the
   * thread's error, which must stay the caller's: keep it aside. */
  ul__saved_error keep;
  ul__error_save(&keep);
  bool attributed = serial && !ul__health_end(d->health, serial, o, UL__HEALTH_NOW, NULL);
  if (!attributed)
    ul__health_record(d->health, UL__HEALTH_OP_WRITE, UL__HEALTH_FIRST_USE, o, 0, UL__HEALTH_NOW, NULL);
  ul__error_restore(&keep);
}

