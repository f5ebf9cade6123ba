/* Health and accounting numbers as Prometheus text format 0.0.4 and as JSON.
 * Each family is written once (HELP, TYPE, then one series per device), since
 * the format wants a family's samples together. */
#include "health/health.h"

#include <inttypes.h>
#include <math.h>
#include <stddef.h>

/* ---- a growing string -------------------------------------------------------- */

typedef struct ul__sb {
  char *p;
  size_t len, cap;
  bool oom;
} ul__sb;

static void ul__sb_put(ul__sb *b, const char *s, size_t n) {
  if (b->oom) return;
  if (b->len + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    while (b->len + n + 1 > cap) cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
      b->oom = true;
      return;
    }
    b->p = p;
    b->cap = cap;
  }
  memcpy(b->p + b->len, s, n);
  b->len += n;
  b->p[b->len] = '\0';
}

static void ul__sb_puts(ul__sb *b, const char *s) { ul__sb_put(b, s, strlen(s)); }

static void ul__sb_printf(ul__sb *b, const char *fmt, ...) UL__PRINTF(2, 3);
static void ul__sb_printf(ul__sb *b, const char *fmt, ...) {
  char tmp[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  ul__sb_put(b, tmp, UL__MIN((size_t)n, sizeof tmp - 1));
}

/* The shortest text that reads back as the same double; +Inf, -Inf, NaN as
 * Prometheus spells them. */
static void ul__fmt_double(char out[32], double v) {
  if (isnan(v)) {
    snprintf(out, 32, "NaN");
    return;
  }
  if (isinf(v)) {
    snprintf(out, 32, v > 0 ? "+Inf" : "-Inf");
    return;
  }
  if (v == floor(v) && fabs(v) < 1e15) { /* whole numbers: "10", not "1e+01" */
    snprintf(out, 32, "%.0f", v);
    return;
  }
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(out, 32, "%.*g", prec, v);
    if (strtod(out, NULL) == v) return;
  }
}

static void ul__sb_double(ul__sb *b, double v) {
  char tmp[32];
  ul__fmt_double(tmp, v);
  ul__sb_puts(b, tmp);
}

static ul_status ul__sb_finish(ul__sb *b, const char *what, char **out, size_t *len) {
  if (!b->oom && !b->p) ul__sb_put(b, "", 0);
  if (b->oom) {
    free(b->p);
    return ul__fail(UL_ERR_OUT_OF_MEMORY, "%s: output of %zu bytes", what, b->len);
  }
  *out = b->p;
  if (len) *len = b->len;
  return UL_OK;
}

/* The start of a rendering: the arguments checked, and `empty`, the
 * histogram of a device that has none. */
static ul_status ul__metrics_check(const ul__metrics_device *devs, size_t n, char **out, const char *what,
                                   ul__prom_hist *empty) {
  (void)ul__prom_hist_init(empty, NULL, 0);
  if (!out || (n && !devs)) return ul__fail(UL_ERR_INVALID_ARGUMENT, "%s: NULL argument", what);
  *out = NULL;
  for (size_t i = 0; i < n; i++)
    if (!devs[i].device)
      return ul__fail(UL_ERR_INVALID_ARGUMENT, "%s: device %zu has no name", what, i);
  return UL_OK;
}

/* ---- Prometheus ----------------------------------------------------------------- */

static void sb_put(void *ctx, const char *p, size_t n) { ul__sb_put(ctx, p, n); }

/* Label values: valid UTF-8 with backslash, double quote and newline escaped. */
static void ul__prom_label_value(ul__sb *b, const char *v) {
  ul__sb_put(b, "\"", 1);
  ul__escape(v, UL__ESCAPE_PROM, sb_put, b);
  ul__sb_put(b, "\"", 1);
}

static void ul__prom_family(ul__sb *b, const char *name, const char *type, const char *help) {
  ul__sb_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* name{device="...",extra} value */
static void ul__prom_series(ul__sb *b, const char *name, const char *device, const char *extra_label,
                            const char *extra_value) {
  ul__sb_puts(b, name);
  ul__sb_puts(b, "{device=");
  ul__prom_label_value(b, device);
  if (extra_label) {
    ul__sb_printf(b, ",%s=", extra_label);
    ul__prom_label_value(b, extra_value);
  }
  ul__sb_puts(b, "} ");
}

static void ul__prom_u64(ul__sb *b, const char *name, const char *device, uint64_t v) {
  ul__prom_series(b, name, device, NULL, NULL);
  ul__sb_printf(b, "%" PRIu64 "\n", v);
}

static void ul__prom_hist_series(ul__sb *b, const char *name, const char *device,
                                 const ul__prom_hist *h) {
  char bucket[128], le[32];
  snprintf(bucket, sizeof bucket, "%s_bucket", name);
  uint64_t cum = 0;
  for (size_t i = 0; i < h->n_le; i++) {
    cum += h->counts[i];
    ul__fmt_double(le, h->le[i]);
    ul__prom_series(b, bucket, device, "le", le);
    ul__sb_printf(b, "%" PRIu64 "\n", cum);
  }
  cum += h->counts[h->n_le];
  ul__prom_series(b, bucket, device, "le", "+Inf");
  ul__sb_printf(b, "%" PRIu64 "\n", cum);
  ul__sb_printf(b, "%s_sum{device=", name);
  ul__prom_label_value(b, device);
  ul__sb_puts(b, "} ");
  ul__sb_double(b, h->sum);
  ul__sb_printf(b, "\n%s_count{device=", name);
  ul__prom_label_value(b, device);
  ul__sb_printf(b, "} %" PRIu64 "\n", cum);
}

static bool ul__any_health(const ul__metrics_device *devs, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (devs[i].health) return true;
  return false;
}

ul_status ul__metrics_prometheus(const ul__metrics_device *devs, size_t n, char **out, size_t *len) {
  ul__prom_hist empty;
  ul_status s = ul__metrics_check(devs, n, out, "prometheus metrics", &empty);
  if (s) return s;
  ul__sb b = {0};

  /* Which unlost answers: one series of value 1, its version a label. */
  ul__prom_family(&b, "unlost_build_info", "gauge", "The unlost library serving these metrics (value 1).");
  ul__sb_printf(&b, "unlost_build_info{version=\"%d.%d.%d\"} 1\n", UL_VERSION_MAJOR, UL_VERSION_MINOR,
                UL_VERSION_PATCH);

  if (ul__any_health(devs, n)) {
    ul__prom_family(&b, "unlost_device_state", "gauge",
                    "Health of the device: 0 HEALTHY, 1 DEGRADED, 2 BROKEN (also while probing).");
    for (size_t i = 0; i < n; i++)
      if (devs[i].health) {
        ul__health_state st = devs[i].health->state;
        ul__prom_u64(&b, "unlost_device_state", devs[i].device,
                     st == UL__HEALTH_HALF_OPEN ? UL__HEALTH_BROKEN : (uint64_t)st);
      }
    ul__prom_family(&b, "unlost_breaker_state", "gauge",
                    "Circuit breaker: 0 closed, 1 open (fails fast), 2 half-open (probing).");
    for (size_t i = 0; i < n; i++)
      if (devs[i].health)
        ul__prom_u64(&b, "unlost_breaker_state", devs[i].device,
                     (uint64_t)ul__health_breaker_code(devs[i].health->state));
    ul__prom_family(&b, "unlost_breaker_trips_total", "counter",
                    "Times the breaker opened (device BROKEN).");
    for (size_t i = 0; i < n; i++)
      if (devs[i].health)
        ul__prom_u64(&b, "unlost_breaker_trips_total", devs[i].device, devs[i].health->trips_total);
    ul__prom_family(&b, "unlost_calls_total", "counter", "Device calls by outcome.");
    for (size_t i = 0; i < n; i++)
      if (devs[i].health)
        for (size_t o = 0; o < UL__HEALTH_OUTCOME_COUNT; o++) {
          ul__prom_series(&b, "unlost_calls_total", devs[i].device, "outcome",
                          ul__health_outcome_name((ul__health_outcome)o));
          ul__sb_printf(&b, "%" PRIu64 "\n", devs[i].health->totals[o]);
        }
  }
  /* The devices' plain numbers: one family each, a series per device. */
  static const struct {
    const char *name, *type, *help;
    size_t at; /* offset of the uint64_t in ul__metrics_device */
  } plain[] = {
      {"unlost_device_losses_total", "counter", "Device losses seen.", offsetof(ul__metrics_device, losses_total)},
      {"unlost_recoveries_total", "counter", "Successful recoveries onto a new device.",
       offsetof(ul__metrics_device, recoveries_total)},
      {"unlost_standby_recoveries_total", "counter",
       "Recoveries that began on the standby device (no new device asked for).",
       offsetof(ul__metrics_device, standby_recoveries_total)},
      {"unlost_restored_on_demand_total", "counter",
       "Buffers and textures whose contents a recovery left for their first use, put back since (at that use, "
       "streamed behind the submissions, or before a checkpoint).",
       offsetof(ul__metrics_device, restored_total)},
      {"unlost_restore_interrupted_total", "counter", "Contents being put back on demand when the device was lost again.",
       offsetof(ul__metrics_device, restore_interrupted_total)},
      {"unlost_restore_pending_bytes", "gauge", "Bytes of contents a recovery left for their first use, not put back yet.",
       offsetof(ul__metrics_device, restore_pending_bytes)},
      {"unlost_standby_prefill_bytes", "gauge", "Device memory the standby holds as SOURCE buffers filled ahead.",
       offsetof(ul__metrics_device, standby_prefill_bytes)},
  };
  for (size_t f = 0; f < UL__COUNT_OF(plain); f++) {
    ul__prom_family(&b, plain[f].name, plain[f].type, plain[f].help);
    for (size_t i = 0; i < n; i++) {
      uint64_t v;
      memcpy(&v, (const char *)&devs[i] + plain[f].at, sizeof v);
      ul__prom_u64(&b, plain[f].name, devs[i].device, v);
    }
  }
  ul__prom_family(&b, "unlost_recovery_seconds", "histogram",
                  "Time from a loss to a working device.");
  for (size_t i = 0; i < n; i++)
    ul__prom_hist_series(&b, "unlost_recovery_seconds", devs[i].device,
                         devs[i].recovery_seconds ? devs[i].recovery_seconds : &empty);
  ul__prom_family(&b, "unlost_last_loss_in_flight_submissions", "gauge",
                  "Submissions not known finished at the last device loss.");
  for (size_t i = 0; i < n; i++)
    ul__prom_u64(&b, "unlost_last_loss_in_flight_submissions", devs[i].device, devs[i].last_loss_in_flight);
  ul__prom_family(&b, "unlost_last_loss_oldest_in_flight_seconds", "gauge",
                  "How long the oldest submission in flight at the last device loss had run.");
  for (size_t i = 0; i < n; i++) {
    ul__prom_series(&b, "unlost_last_loss_oldest_in_flight_seconds", devs[i].device, NULL, NULL);
    ul__sb_printf(&b, "%.6f\n", devs[i].last_loss_oldest_seconds);
  }
  ul__prom_family(&b, "unlost_live_objects", "gauge", "Live GPU objects tracked by unlost.");
  for (size_t i = 0; i < n; i++)
    ul__prom_u64(&b, "unlost_live_objects", devs[i].device, devs[i].live_objects);
  ul__prom_family(&b, "unlost_live_bytes", "gauge", "Bytes of live GPU objects.");
  for (size_t i = 0; i < n; i++)
    ul__prom_u64(&b, "unlost_live_bytes", devs[i].device, devs[i].live_bytes);

  if (ul__any_health(devs, n)) {
    for (size_t op = 0; op < UL__HEALTH_OP_COUNT; op++) {
      char name[64], help[128];
      snprintf(name, sizeof name, "unlost_%s_seconds", ul__health_op_name((ul__health_op)op));
      snprintf(help, sizeof help,
               "Latency of successful %s calls, first use (compile) excluded.",
               ul__health_op_name((ul__health_op)op));
      ul__prom_family(&b, name, "histogram", help);
      for (size_t i = 0; i < n; i++)
        if (devs[i].health) ul__prom_hist_series(&b, name, devs[i].device, &devs[i].health->seconds[op]);
    }
    ul__prom_family(&b, "unlost_window_latency_seconds", "gauge",
                    "Latency percentiles over the health window (log buckets, within 4.43%).");
    for (size_t i = 0; i < n; i++) {
      const ul__health_snapshot *h = devs[i].health;
      if (!h) continue;
      for (size_t op = 0; op < UL__HEALTH_OP_COUNT; op++) {
        const ul__health_latency *l = &h->latency[op];
        const struct {
          const char *q;
          uint64_t v;
        } qs[] = {{"0.5", l->p50_ns}, {"0.95", l->p95_ns}, {"0.99", l->p99_ns}};
        for (size_t k = 0; k < UL__COUNT_OF(qs); k++) {
          ul__sb_puts(&b, "unlost_window_latency_seconds{device=");
          ul__prom_label_value(&b, devs[i].device);
          ul__sb_printf(&b, ",op=\"%s\",quantile=\"%s\"} ", ul__health_op_name((ul__health_op)op),
                        qs[k].q);
          ul__sb_double(&b, (double)qs[k].v * 1e-9);
          ul__sb_puts(&b, "\n");
        }
      }
    }
  }
  return ul__sb_finish(&b, "prometheus metrics", out, len);
}

/* ---- JSON ------------------------------------------------------------------------- */

static void ul__json_str(ul__sb *b, const char *s) {
  ul__sb_put(b, "\"", 1);
  ul__escape(s, UL__ESCAPE_JSON, sb_put, b);
  ul__sb_put(b, "\"", 1);
}

/* JSON has no infinities or NaN: those become null. */
static void ul__json_num(ul__sb *b, double v) {
  if (!isfinite(v))
    ul__sb_puts(b, "null");
  else
    ul__sb_double(b, v);
}

static void ul__json_hist(ul__sb *b, const ul__prom_hist *h) {
  ul__sb_puts(b, "{\"buckets\":[");
  uint64_t cum = 0;
  for (size_t i = 0; i < h->n_le; i++) {
    cum += h->counts[i];
    ul__sb_puts(b, i ? ",{\"le\":" : "{\"le\":");
    ul__json_num(b, h->le[i]);
    ul__sb_printf(b, ",\"count\":%" PRIu64 "}", cum);
  }
  cum += h->counts[h->n_le];
  ul__sb_printf(b, "%s{\"le\":\"+Inf\",\"count\":%" PRIu64 "}],\"sum\":", h->n_le ? "," : "", cum);
  ul__json_num(b, h->sum);
  ul__sb_printf(b, ",\"count\":%" PRIu64 "}", cum);
}

static void ul__json_outcomes(ul__sb *b, const uint64_t *v) {
  ul__sb_puts(b, "{");
  for (size_t o = 0; o < UL__HEALTH_OUTCOME_COUNT; o++)
    ul__sb_printf(b, "%s\"%s\":%" PRIu64, o ? "," : "", ul__health_outcome_name((ul__health_outcome)o),
                  v[o]);
  ul__sb_puts(b, "}");
}

static void ul__json_health(ul__sb *b, const ul__health_snapshot *h) {
  ul__sb_printf(b, "{\"state\":\"%s\",\"state_code\":%d,\"breaker\":\"%s\",\"breaker_code\":%d,",
                ul__health_state_name(h->state), (int)h->state, ul__health_breaker_name(h->state),
                ul__health_breaker_code(h->state));
  ul__sb_puts(b, "\"time_in_state_s\":");
  ul__json_num(b, (double)h->time_in_state_ns * 1e-9);
  ul__sb_printf(b, ",\"trips\":%u,\"trips_total\":%" PRIu64 ",\"consecutive_losses\":%u,\"reason\":",
                h->trips, h->trips_total, h->consecutive_losses);
  ul__json_str(b, h->reason);
  if (h->state == UL__HEALTH_BROKEN) {
    ul__sb_puts(b, ",\"probe_in_s\":");
    ul__json_num(b, h->open_until_ns > h->now_ns ? (double)(h->open_until_ns - h->now_ns) * 1e-9 : 0.0);
  }
  const ul__health_window_sum *w = &h->window;
  ul__sb_printf(b,
                ",\"window\":{\"calls\":%" PRIu64 ",\"faults\":%" PRIu64 ",\"timed\":%" PRIu64
                ",\"slow\":%" PRIu64 ",\"fault_rate\":",
                w->calls, w->faults, w->timed, w->slow);
  ul__json_num(b, h->fault_rate);
  ul__sb_puts(b, ",\"slow_rate\":");
  ul__json_num(b, h->slow_rate);
  ul__sb_puts(b, ",\"outcomes\":");
  ul__json_outcomes(b, w->outcomes);
  ul__sb_puts(b, "},\"latency\":{");
  for (size_t op = 0; op < UL__HEALTH_OP_COUNT; op++) {
    const ul__health_latency *l = &h->latency[op];
    ul__sb_printf(b, "%s\"%s\":{\"count\":%" PRIu64 ",\"p50_s\":", op ? "," : "",
                  ul__health_op_name((ul__health_op)op), l->count);
    ul__json_num(b, (double)l->p50_ns * 1e-9);
    ul__sb_puts(b, ",\"p95_s\":");
    ul__json_num(b, (double)l->p95_ns * 1e-9);
    ul__sb_puts(b, ",\"p99_s\":");
    ul__json_num(b, (double)l->p99_ns * 1e-9);
    ul__sb_puts(b, ",\"max_s\":");
    ul__json_num(b, (double)l->max_ns * 1e-9);
    ul__sb_puts(b, "}");
  }
  ul__sb_puts(b, "},\"totals\":");
  ul__json_outcomes(b, h->totals);
  ul__sb_printf(b,
                ",\"total_calls\":%" PRIu64 ",\"pending\":%" PRIu64 ",\"memory_used\":%" PRIu64
                ",\"memory_budget\":%" PRIu64 ",\"seconds\":{",
                h->total_calls, h->pending, h->memory_used, h->memory_budget);
  for (size_t op = 0; op < UL__HEALTH_OP_COUNT; op++) {
    ul__sb_printf(b, "%s\"%s\":", op ? "," : "", ul__health_op_name((ul__health_op)op));
    ul__json_hist(b, &h->seconds[op]);
  }
  ul__sb_puts(b, "}}");
}

ul_status ul__metrics_json(const ul__metrics_device *devs, size_t n, char **out, size_t *len) {
  ul__prom_hist empty;
  ul_status s = ul__metrics_check(devs, n, out, "json metrics", &empty);
  if (s) return s;
  ul__sb b = {0};
  ul__sb_puts(&b, "{\"devices\":[");
  for (size_t i = 0; i < n; i++) {
    const ul__metrics_device *d = &devs[i];
    ul__sb_puts(&b, i ? ",{\"device\":" : "{\"device\":");
    ul__json_str(&b, d->device);
    ul__sb_printf(&b,
                  ",\"losses_total\":%" PRIu64 ",\"recoveries_total\":%" PRIu64
                  ",\"standby_recoveries_total\":%" PRIu64 ",\"standby_prefill_bytes\":%" PRIu64
                  ",\"restored_on_demand_total\":%" PRIu64 ",\"restore_interrupted_total\":%" PRIu64
                  ",\"restore_pending_bytes\":%" PRIu64
                  ",\"live_objects\":%" PRIu64 ",\"live_bytes\":%" PRIu64
                  ",\"last_loss_in_flight\":%" PRIu64 ",\"last_loss_oldest_in_flight_seconds\":%.6f"
                  ",\"recovery_seconds\":",
                  d->losses_total, d->recoveries_total, d->standby_recoveries_total, d->standby_prefill_bytes,
                  d->restored_total, d->restore_interrupted_total, d->restore_pending_bytes, d->live_objects, d->live_bytes, d->last_loss_in_flight,
                  d->last_loss_oldest_seconds);
    ul__json_hist(&b, d->recovery_seconds ? d->recovery_seconds : &empty);
    ul__sb_puts(&b, ",\"health\":");
    if (d->health)
      ul__json_health(&b, d->health);
    else
      ul__sb_puts(&b, "null");
    ul__sb_puts(&b, "}");
  }
  ul__sb_puts(&b, "]}\n");
  return ul__sb_finish(&b, "json metrics", out, len);
}
