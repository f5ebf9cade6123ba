/* Loss forensics: the submissions of command lists with their labels,
 * sites and pipelines, and at each loss of the current native device, the
 * ones not known to be finished (the work that was running or queued) and
 * the last ones that finished. All under the loss-record lock, which the
 * lost callback and the submit-done callback hold on any thread. */
#include "core/core.h"
#include "track/track.h"

static const char *base_name(const char *file) {
  if (!file) return "?";
  const char *s = strrchr(file, '/');
  return s ? s + 1 : file;
}

void ul__flight_begin(ul_device *d, uint64_t serial, const char *label, const char *file, int line,
                      const char *pipelines) {
  uint64_t now = ul__now_ns();
  ul__lost_lock();
  ul__flight *f = &d->flights[d->flights_head++ % UL__FLIGHTS];
  f->serial = serial;
  f->submitted_ns = now;
  f->done_ns = 0;
  f->file = file;
  f->line = line;
  snprintf(f->label, sizeof f->label, "%s", label ? label : "");
  snprintf(f->pipelines, sizeof f->pipelines, "%s", pipelines ? pipelines : "");
  ul__lost_unlock();
}

void ul__flight_done_through_locked(ul_device *d, uint64_t serial, uint64_t now) {
  for (int i = 0; i < UL__FLIGHTS; i++) {
    ul__flight *f = &d->flights[i];
    if (f->serial && f->serial <= serial && !f->done_ns)
      f->done_ns = now > f->submitted_ns ? now : f->submitted_ns + 1;
  }
}

void ul__flight_done_upto(ul_device *d, uint64_t serial, uint64_t now) {
  ul__lost_lock();
  ul__flight_done_through_locked(d, serial, now);
  ul__lost_unlock();
}

static void info_of(const ul__flight *f, uint64_t until, ul_submission_info *o) {
  memset(o, 0, sizeof *o);
  o->serial = f->serial;
  snprintf(o->label, sizeof o->label, "%s", f->label);
  o->file = f->file;
  o->line = f->line;
  snprintf(o->pipelines, sizeof o->pipelines, "%s", f->pipelines);
  o->ms = until > f->submitted_ns ? (double)(until - f->submitted_ns) / 1e6 : 0.0;
}

void ul__forensics_loss_locked(ul_device *d, uint64_t epoch, uint32_t reason, uint64_t at_ns,
                               const char *message) {
  if (d->loss_forced && d->losses && d->losses_noted) {
    /* Noted when it was asked for; the implementation's words now. */
    d->loss_forced = false;
    ul_loss_info *li = &d->losses[(d->losses_noted - 1) % UL__LOSSES_KEPT];
    li->reason = reason;
    snprintf(li->message, sizeof li->message, "%s", message ? message : "");
    return;
  }
  if (!d->losses) {
    d->losses = calloc(UL__LOSSES_KEPT, sizeof *d->losses);
    if (!d->losses) return; /* forensics are not worth failing a recovery for */
  }
  ul_loss_info *li = &d->losses[d->losses_noted % UL__LOSSES_KEPT];
  memset(li, 0, sizeof *li);
  li->number = ++d->losses_noted;
  li->epoch = epoch;
  li->at_ns = at_ns;
  li->reason = reason;
  snprintf(li->message, sizeof li->message, "%s", message ? message : "");
  /* Oldest first: the ring from its oldest slot. */
  uint64_t n = d->flights_head < UL__FLIGHTS ? d->flights_head : UL__FLIGHTS;
  for (uint64_t k = d->flights_head - n; k < d->flights_head; k++) {
    ul__flight *f = &d->flights[k % UL__FLIGHTS];
    if (!f->serial || f->done_ns) continue;
    li->in_flight++;
    if (li->in_flight_listed < UL_LOSS_SUBMISSIONS) info_of(f, at_ns, &li->in_flight_list[li->in_flight_listed++]);
    f->done_ns = UINT64_MAX; /* gone with its device; replayed, not resubmitted */
  }
  for (uint64_t k = d->flights_head; k-- > d->flights_head - n && li->finished_listed < UL_LOSS_SUBMISSIONS;) {
    const ul__flight *f = &d->flights[k % UL__FLIGHTS];
    if (!f->serial || !f->done_ns || f->done_ns == UINT64_MAX) continue;
    info_of(f, f->done_ns, &li->finished_list[li->finished_listed++]);
  }
}

void ul__forensics_loss_forced(ul_device *d, const char *message) {
  ul__lost_lock();
  ul__forensics_loss_locked(d, d->epoch, WGPUDeviceLostReason_Unknown, ul__now_ns(),
                            message ? message : "unlost: forced loss");
  d->loss_forced = d->losses != NULL;
  ul__lost_unlock();
}

void ul__forensics_loss_forced_done(ul_device *d) {
  ul__lost_lock();
  if (d->loss_forced) {
    /* No loss came of it (the implementation ignored the request): the
     * snapshot is not a loss. */
    d->loss_forced = false;
    if (!atomic_load(&d->lost) && d->losses_noted) d->losses_noted--;
  }
  ul__lost_unlock();
}

void ul__forensics_last(ul_device *d, ul_loss_info *out) {
  memset(out, 0, sizeof *out);
  ul__lost_lock();
  if (d->losses && d->losses_noted) *out = d->losses[(d->losses_noted - 1) % UL__LOSSES_KEPT];
  ul__lost_unlock();
}

static void describe(const ul_submission_info *s, char *buf, size_t cap) {
  snprintf(buf, cap, "'%s' (%s:%d%s%s)", s->label[0] ? s->label : "unlabeled", base_name(s->file), s->line,
           s->pipelines[0] ? ", " : "", s->pipelines);
}

static void duration(double ms, char *buf, size_t cap) {
  if (ms < 1000) snprintf(buf, cap, "%.1f ms", ms);
  else snprintf(buf, cap, "%.2f s", ms / 1e3);
}

void ul__forensics_line(const ul_loss_info *li, char *buf, size_t cap) {
  char what[256], age[32];
  if (li->in_flight_listed) {
    const ul_submission_info *s = &li->in_flight_list[0];
    describe(s, what, sizeof what);
    duration(s->ms, age, sizeof age);
    if (li->in_flight > 1)
      snprintf(buf, cap, "while %s had run %s (%u submissions in flight)", what, age, li->in_flight);
    else
      snprintf(buf, cap, "while %s had run %s", what, age);
  } else if (li->finished_listed) {
    describe(&li->finished_list[0], what, sizeof what);
    snprintf(buf, cap, "with nothing in flight (last finished: %s, %.2f ms)", what, li->finished_list[0].ms);
  } else {
    snprintf(buf, cap, "with nothing in flight");
  }
}

static void json_sub(ul__track_sb *sb, const ul_submission_info *s, bool first) {
  ul__track_sb_printf(sb, "%s{\"serial\":%llu,\"label\":", first ? "" : ",", (unsigned long long)s->serial);
  ul__track_sb_json_str(sb, s->label[0] ? s->label : NULL);
  ul__track_sb_puts(sb, ",\"file\":");
  ul__track_sb_json_str(sb, s->file);
  ul__track_sb_printf(sb, ",\"site\":\"");
  ul__track_sb_text_str(sb, base_name(s->file));
  ul__track_sb_printf(sb, ":%d\",\"line\":%d,\"pipelines\":", s->line, s->line);
  ul__track_sb_json_str(sb, s->pipelines);
  ul__track_sb_printf(sb, ",\"ms\":%.3f}", s->ms);
}

char *ul__forensics_json(ul_device *d) {
  ul__track_sb sb = {0};
  ul__lost_lock();
  uint64_t n = d->losses ? (d->losses_noted < UL__LOSSES_KEPT ? d->losses_noted : UL__LOSSES_KEPT) : 0;
  ul_loss_info *copy = n ? malloc(n * sizeof *copy) : NULL;
  if (copy)
    for (uint64_t i = 0; i < n; i++) copy[i] = d->losses[(d->losses_noted - n + i) % UL__LOSSES_KEPT];
  uint64_t total = d->losses_noted;
  ul__lost_unlock();
  if (n && !copy) return NULL;
  ul__track_sb_printf(&sb, "\"losses_total\":%llu,\"losses\":[", (unsigned long long)total);
  for (uint64_t i = 0; i < n; i++) {
    const ul_loss_info *li = &copy[i];
    char line[512];
    ul__forensics_line(li, line, sizeof line);
    ul__track_sb_printf(&sb, "%s{\"number\":%llu,\"epoch\":%llu,\"reason\":%u,\"message\":", i ? "," : "",
                        (unsigned long long)li->number, (unsigned long long)li->epoch, li->reason);
    ul__track_sb_json_str(&sb, li->message);
    ul__track_sb_puts(&sb, ",\"summary\":");
    ul__track_sb_json_str(&sb, line);
    ul__track_sb_printf(&sb, ",\"in_flight\":%u,\"in_flight_list\":[", li->in_flight);
    for (uint32_t k = 0; k < li->in_flight_listed; k++) json_sub(&sb, &li->in_flight_list[k], !k);
    ul__track_sb_puts(&sb, "],\"finished_list\":[");
    for (uint32_t k = 0; k < li->finished_listed; k++) json_sub(&sb, &li->finished_list[k], !k);
    ul__track_sb_puts(&sb, "]}");
  }
  ul__track_sb_puts(&sb, "]");
  free(copy);
  return ul__track_sb_take(&sb);
}
