/* The report page: one self-contained HTML file made from a JSON report
 * (ul_device_report): memory over time stacked by kind or by label, every
 * timeline event on the same axis with a tooltip, the loss forensics, the
 * live objects with their sites, the top sites and the churning ones, and
 * what grew since an older report. No network: the SVG is drawn here and
 * the little script (switching the stacking, tooltips) is written here.
 *
 * Every event mark carries its type as data-event ("loss", "recovery",
 * "checkpoint", "health", "move", ...); loss marks also carry data-number,
 * data-label (the submission in flight, else the last finished) and
 * data-in-flight (how many were in flight); every stacked series carries
 * data-series="kind" or "label" and data-name. The script sets
 * data-script="ok" on <body> when it ran to its end and data-script-error
 * when anything threw, so a headless browser can tell. */
#include "page.h"

#include <math.h>
#include <string.h>

void page_fmt_bytes(char *buf, size_t n, double b) {
  const char *u[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int i = 0;
  while (fabs(b) >= 1024 && i < 4) {
    b /= 1024;
    i++;
  }
  if (i == 0) snprintf(buf, n, "%.0f B", b);
  else snprintf(buf, n, "%.1f %s", b, u[i]);
}


#ifdef UL_HAVE_JANSSON

/* ---- small helpers ---- */

static void esc(FILE *f, const char *s) {
  for (; s && *s; s++) {
    switch (*s) {
    case '<': fputs("&lt;", f); break;
    case '>': fputs("&gt;", f); break;
    case '&': fputs("&amp;", f); break;
    case '"': fputs("&quot;", f); break;
    case '\'': fputs("&#39;", f); break;
    default:
      if ((unsigned char)*s < 0x20) fputc(' ', f);
      else fputc(*s, f);
    }
  }
}

static const char *str(json_t *o, const char *key) {
  const char *s = json_string_value(json_object_get(o, key));
  return s ? s : "";
}

static double num(json_t *o, const char *key) {
  json_t *v = json_object_get(o, key);
  return json_is_number(v) ? json_number_value(v) : 0.0;
}

static const char *const g_colors[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948",
                                       "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac", "#86bcb6", "#d37295"};
#define NCOLORS (sizeof g_colors / sizeof g_colors[0])

/* ---- the chart ---- */

enum { W = 1180, H = 300, PADL = 86, PADR = 20, PADT = 10, LANE = 22, MAX_LABELS = 10 };

typedef struct chart {
  double t_max, y_max;
  size_t nsamples;
  json_t *samples, *events;
} chart;

static double cx(const chart *c, double t) { return PADL + (c->t_max > 0 ? t / c->t_max : 0) * (W - PADL - PADR); }
static double cy(const chart *c, double v) { return PADT + H - (c->y_max > 0 ? v / c->y_max : 0) * H; }

/* One stacked band between the cumulative values lo[] and hi[] at the
 * sample times, as a step path (a value holds until the next sample). */
static void band(FILE *f, const chart *c, const double *t, const double *lo, const double *hi, size_t n,
                 const char *series, const char *name, const char *color, double peak) {
  char pk[32];
  page_fmt_bytes(pk, sizeof pk, peak);
  fprintf(f, "<path class=\"band\" data-series=\"%s\" data-name=\"", series);
  esc(f, name);
  fprintf(f, "\" fill=\"%s\" d=\"M%.1f %.1f", color, cx(c, t[0]), cy(c, hi[0]));
  for (size_t i = 1; i < n; i++) fprintf(f, "H%.1fV%.1f", cx(c, t[i]), cy(c, hi[i]));
  fprintf(f, "H%.1fV%.1f", cx(c, c->t_max), cy(c, lo[n - 1]));
  for (size_t i = n; i-- > 1;) fprintf(f, "H%.1fV%.1f", cx(c, t[i]), cy(c, lo[i - 1]));
  fprintf(f, "H%.1fZ\"><title>", cx(c, t[0]));
  esc(f, name);
  fprintf(f, ": peak %s</title></path>\n", pk);
}

static void axes(FILE *f, const chart *c) {
  char b[32];
  for (int i = 0; i <= 4; i++) {
    double v = c->y_max * i / 4;
    page_fmt_bytes(b, sizeof b, v);
    fprintf(f, "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>", PADL, W - PADR, cy(c, v),
            cy(c, v));
    fprintf(f, "<text class=\"ax\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", PADL - 6, cy(c, v) + 4, b);
  }
  for (int i = 0; i <= 10; i++) {
    double t = c->t_max * i / 10;
    fprintf(f, "<text class=\"ax\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%.0f ms</text>\n", cx(c, t),
            PADT + H + 14, t);
  }
}

/* Samples: [t_ms, live_bytes, live_objects, bytes per kind...]. */
static double sample_at(json_t *s, size_t k) { return json_number_value(json_array_get(s, k)); }

/* A series for every kind the report counted objects of (zero-byte kinds,
 * pipelines say, are flat but there). */
static bool kind_used(json_t *root, const char *kind) {
  return num(json_object_get(json_object_get(root, "by_kind"), kind), "created") > 0;
}

static void chart_by_kind(FILE *f, const chart *c, json_t *kinds, json_t *root) {
  size_t nk = json_array_size(kinds), n = c->nsamples;
  double *t = calloc(n, sizeof *t), *lo = calloc(n, sizeof *lo), *hi = calloc(n, sizeof *hi);
  if (!t || !lo || !hi) goto out;
  for (size_t i = 0; i < n; i++) t[i] = sample_at(json_array_get(c->samples, i), 0);
  for (size_t k = 0; k < nk; k++) {
    double peak = 0;
    for (size_t i = 0; i < n; i++) {
      double v = sample_at(json_array_get(c->samples, i), 3 + k);
      hi[i] = lo[i] + v;
      if (v > peak) peak = v;
    }
    const char *name = json_string_value(json_array_get(kinds, k));
    if (peak > 0 || kind_used(root, name)) band(f, c, t, lo, hi, n, "kind", name, g_colors[k % NCOLORS], peak);
    memcpy(lo, hi, n * sizeof *lo);
  }
out:
  free(t);
  free(lo);
  free(hi);
}

/* By label: the labels of objects large enough to be timeline events,
 * followed through their creates and destroys; what the samples count
 * beyond them is "smaller objects". */
static void chart_by_label(FILE *f, const chart *c) {
  const char *names[MAX_LABELS];
  double peak[MAX_LABELS] = {0};
  size_t nl = 0, n = c->nsamples, ne = json_array_size(c->events);
  for (size_t e = 0; e < ne; e++) {
    json_t *ev = json_array_get(c->events, e);
    if (strcmp(str(ev, "type"), "create")) continue;
    const char *l = json_string_value(json_object_get(ev, "text"));
    if (!l) l = "(unlabeled)";
    bool seen = false;
    for (size_t i = 0; i < nl; i++) seen |= !strcmp(names[i], l);
    if (!seen && nl < MAX_LABELS - 1) names[nl++] = l;
  }
  double *t = calloc(n, sizeof *t), *lo = calloc(n, sizeof *lo), *hi = calloc(n, sizeof *hi);
  double *val = calloc((nl + 1) * (n ? n : 1), sizeof *val);
  if (!t || !lo || !hi || !val) goto out;
  double live[MAX_LABELS] = {0};
  size_t e = 0;
  for (size_t i = 0; i < n; i++) {
    json_t *s = json_array_get(c->samples, i);
    t[i] = sample_at(s, 0);
    for (; e < ne && num(json_array_get(c->events, e), "t_ms") <= t[i]; e++) {
      json_t *ev = json_array_get(c->events, e);
      const char *type = str(ev, "type");
      int sign = !strcmp(type, "create") ? 1 : !strcmp(type, "destroy") ? -1 : 0;
      if (!sign) continue;
      const char *l = json_string_value(json_object_get(ev, "text"));
      if (!l) l = "(unlabeled)";
      for (size_t k = 0; k < nl; k++)
        if (!strcmp(names[k], l)) live[k] = fmax(0, live[k] + sign * num(ev, "bytes"));
    }
    double sum = 0;
    for (size_t k = 0; k < nl; k++) {
      val[k * n + i] = live[k];
      sum += live[k];
      if (live[k] > peak[k]) peak[k] = live[k];
    }
    val[nl * n + i] = fmax(0, sample_at(s, 1) - sum);
  }
  for (size_t k = 0; k <= nl; k++) {
    double pk = 0;
    for (size_t i = 0; i < n; i++) {
      hi[i] = lo[i] + val[k * n + i];
      pk = fmax(pk, val[k * n + i]);
    }
    if (pk > 0) band(f, c, t, lo, hi, n, "label", k < nl ? names[k] : "smaller objects", g_colors[k % NCOLORS], pk);
    memcpy(lo, hi, n * sizeof *lo);
  }
out:
  free(t);
  free(lo);
  free(hi);
  free(val);
}

/* The loss of number `n` in "losses", or NULL. */
static json_t *loss_of(json_t *root, double n) {
  json_t *losses = json_object_get(root, "losses");
  for (size_t i = 0; i < json_array_size(losses); i++)
    if (num(json_array_get(losses, i), "number") == n) return json_array_get(losses, i);
  return NULL;
}

static const char *loss_label(json_t *loss) {
  json_t *l = json_array_get(json_object_get(loss, "in_flight_list"), 0);
  if (!l) l = json_array_get(json_object_get(loss, "finished_list"), 0);
  const char *s = l ? json_string_value(json_object_get(l, "label")) : NULL;
  return s ? s : "";
}

static int lane_of(const char *type) {
  if (!strcmp(type, "create") || !strcmp(type, "destroy")) return 3;
  if (!strcmp(type, "checkpoint")) return 2;
  if (!strcmp(type, "health") || !strcmp(type, "budget") || !strcmp(type, "churn")) return 1;
  return 0; /* loss, recovering, retry, recovery, failed, move */
}

static const char *mark_color(const char *type) {
  if (!strcmp(type, "loss") || !strcmp(type, "failed")) return "#d62728";
  if (!strcmp(type, "recovery")) return "#2ca02c";
  if (!strcmp(type, "move")) return "#9467bd";
  if (!strcmp(type, "checkpoint")) return "#1f77b4";
  if (!strcmp(type, "health") || !strcmp(type, "budget") || !strcmp(type, "churn")) return "#ff7f0e";
  if (!strcmp(type, "create")) return "#7f7f7f";
  return "#bbbbbb";
}

static void marks(FILE *f, const chart *c, json_t *root) {
  static const char *lanes[] = {"losses", "health", "checkpoints", "objects"};
  double top = PADT + H + 24;
  for (int l = 0; l < 4; l++)
    fprintf(f, "<text class=\"ax\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", PADL - 6,
            top + l * LANE + 14, lanes[l]);
  size_t ne = json_array_size(c->events);
  for (size_t e = 0; e < ne; e++) {
    json_t *ev = json_array_get(c->events, e);
    const char *type = str(ev, "type");
    double t = num(ev, "t_ms"), x = cx(c, t);
    int lane = lane_of(type);
    char tip[1024], b[32];
    int len = snprintf(tip, sizeof tip, "%s at %.1f ms", type, t);
    if (num(ev, "bytes") > 0) {
      page_fmt_bytes(b, sizeof b, num(ev, "bytes"));
      len += snprintf(tip + len, sizeof tip - (size_t)len, ", %s", b);
    }
    if (json_object_get(ev, "kind"))
      len += snprintf(tip + len, sizeof tip - (size_t)len, ", %s", str(ev, "kind"));
    if (num(ev, "ms") > 0) len += snprintf(tip + len, sizeof tip - (size_t)len, ", %.1f ms", num(ev, "ms"));
    json_t *ph = json_object_get(ev, "phases");
    if (ph)
      len += snprintf(tip + len, sizeof tip - (size_t)len,
                      " (device %.1f, objects %.1f, contents %.1f, callbacks %.1f, replay %.1f ms)",
                      num(ph, "device_ms"), num(ph, "objects_ms"), num(ph, "contents_ms"), num(ph, "callbacks_ms"),
                      num(ph, "replay_ms"));
    const char *text = str(ev, "text");
    if (*text && len < (int)sizeof tip) len += snprintf(tip + len, sizeof tip - (size_t)len, ": %s", text);
    fputs("<g class=\"mark\" data-event=\"", f);
    esc(f, type);
    fputs("\"", f);
    json_t *loss = !strcmp(type, "loss") ? loss_of(root, num(ev, "number")) : NULL;
    if (!strcmp(type, "loss")) {
      fprintf(f, " data-number=\"%.0f\" data-in-flight=\"%.0f\" data-label=\"", num(ev, "number"),
              loss ? num(loss, "in_flight") : 0);
      esc(f, loss ? loss_label(loss) : "");
      fputs("\"", f);
    }
    fputs(" data-tip=\"", f);
    esc(f, tip);
    fputs("\">", f);
    if (lane == 0 || lane == 2)
      fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%.1f\" stroke=\"%s\" stroke-dasharray=\"%s\"/>", x, x,
              PADT, top + lane * LANE + 4, mark_color(type), lane == 0 ? "none" : "3 3");
    fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"7\" height=\"14\" fill=\"%s\"/><title>", x - 3.5,
            top + lane * LANE + 4, mark_color(type));
    esc(f, tip);
    fputs("</title></g>\n", f);
  }
}

/* ---- tables ---- */

static void th(FILE *f, const char *const *cols) {
  fputs("<tr>", f);
  for (; *cols; cols++) fprintf(f, "<th>%s</th>", *cols);
  fputs("</tr>\n", f);
}

static void td_s(FILE *f, const char *s) {
  fputs("<td>", f);
  esc(f, s);
  fputs("</td>", f);
}

static void td_b(FILE *f, double b) {
  char s[32];
  page_fmt_bytes(s, sizeof s, b);
  fprintf(f, "<td class=\"n\">%s</td>", s);
}

static void sub_rows(FILE *f, json_t *list, const char *what) {
  for (size_t i = 0; i < json_array_size(list); i++) {
    json_t *s = json_array_get(list, i);
    fprintf(f, "<tr class=\"%s\"><td>%s</td><td class=\"n\">%.0f</td>", what, what, num(s, "serial"));
    td_s(f, str(s, "label"));
    td_s(f, str(s, "site"));
    td_s(f, str(s, "pipelines"));
    fprintf(f, "<td class=\"n\">%.2f ms</td></tr>\n", num(s, "ms"));
  }
}

static void forensics(FILE *f, json_t *root) {
  json_t *losses = json_object_get(root, "losses");
  fprintf(f, "<h2>Losses: what was running</h2>\n");
  if (!json_array_size(losses)) {
    fputs("<p>No device loss.</p>\n", f);
    return;
  }
  for (size_t i = 0; i < json_array_size(losses); i++) {
    json_t *l = json_array_get(losses, i);
    fprintf(f, "<div class=\"loss\" data-loss=\"%.0f\"><h3>Loss %.0f (epoch %.0f): ", num(l, "number"),
            num(l, "number"), num(l, "epoch"));
    esc(f, str(l, "summary"));
    fputs("</h3>\n<p class=\"msg\">", f);
    esc(f, str(l, "message"));
    fputs("</p>\n<table>", f);
    static const char *cols[] = {"", "serial", "command list", "created at", "pipelines", "time", NULL};
    th(f, cols);
    sub_rows(f, json_object_get(l, "in_flight_list"), "in flight");
    sub_rows(f, json_object_get(l, "finished_list"), "finished");
    fputs("</table></div>\n", f);
  }
}

static void recoveries(FILE *f, json_t *events) {
  fputs("<h2>Recoveries</h2>\n<table>", f);
  static const char *cols[] = {"at", "loss to recovered", "device", "objects", "contents", "callbacks",
                               "replay", "", NULL};
  th(f, cols);
  int n = 0;
  for (size_t e = 0; e < json_array_size(events); e++) {
    json_t *ev = json_array_get(events, e);
    if (strcmp(str(ev, "type"), "recovery")) continue;
    json_t *ph = json_object_get(ev, "phases");
    fprintf(f,
            "<tr><td class=\"n\">%.1f ms</td><td class=\"n\">%.1f ms</td><td class=\"n\">%.1f</td>"
            "<td class=\"n\">%.1f</td><td class=\"n\">%.1f</td><td class=\"n\">%.1f</td><td class=\"n\">%.1f</td>",
            num(ev, "t_ms"), num(ev, "ms"), num(ph, "device_ms"), num(ph, "objects_ms"), num(ph, "contents_ms"),
            num(ph, "callbacks_ms"), num(ph, "replay_ms"));
    td_s(f, str(ev, "text"));
    fputs("</tr>\n", f);
    n++;
  }
  fputs("</table>\n", f);
  if (!n) fputs("<p>None.</p>\n", f);
}

static void live_table(FILE *f, json_t *root) {
  json_t *live = json_object_get(root, "live");
  fprintf(f, "<h2>Live objects (%.0f, %.0f omitted)</h2>\n<table>", num(root, "live_objects"),
          num(root, "live_omitted"));
  static const char *cols[] = {"kind", "label", "size", "created at", "function", "age", NULL};
  th(f, cols);
  for (size_t i = 0; i < json_array_size(live); i++) {
    json_t *o = json_array_get(live, i);
    fputs("<tr>", f);
    td_s(f, str(o, "kind"));
    td_s(f, str(o, "label"));
    td_b(f, num(o, "size"));
    td_s(f, str(o, "site"));
    td_s(f, str(o, "function"));
    fprintf(f, "<td class=\"n\">%.0f ms</td></tr>\n", num(o, "age_ms"));
    json_t *bt = json_object_get(o, "backtrace");
    if (json_array_size(bt)) {
      fputs("<tr><td></td><td colspan=\"5\"><details><summary>backtrace</summary><pre>", f);
      for (size_t k = 0; k < json_array_size(bt); k++) {
        esc(f, json_string_value(json_array_get(bt, k)));
        fputc('\n', f);
      }
      fputs("</pre></details></td></tr>\n", f);
    }
  }
  fputs("</table>\n", f);
}

static void sites_table(FILE *f, json_t *root) {
  json_t *sites = json_object_get(root, "by_site");
  fputs("<h2>Top sites by live bytes</h2>\n<table>", f);
  static const char *cols[] = {"site", "function", "kind", "label", "live", "peak", "created", "destroyed", NULL};
  th(f, cols);
  for (size_t i = 0; i < json_array_size(sites) && i < 20; i++) {
    json_t *s = json_array_get(sites, i);
    fputs(json_is_true(json_object_get(s, "churning")) ? "<tr class=\"churn\">" : "<tr>", f);
    td_s(f, str(s, "site"));
    td_s(f, str(s, "function"));
    td_s(f, str(s, "kind"));
    td_s(f, str(s, "label"));
    td_b(f, num(s, "live_bytes"));
    td_b(f, num(s, "peak_bytes"));
    fprintf(f, "<td class=\"n\">%.0f</td><td class=\"n\">%.0f</td></tr>\n", num(s, "created"), num(s, "destroyed"));
  }
  fputs("</table>\n", f);
  json_t *churn = json_object_get(root, "churn");
  fputs("<h2>Churning sites</h2>\n", f);
  if (!json_array_size(churn)) {
    fputs("<p>None.</p>\n", f);
    return;
  }
  fputs("<table>", f);
  static const char *ccols[] = {"site", "kind", "label", "creates", "avg lifetime", "hint", NULL};
  th(f, ccols);
  for (size_t i = 0; i < json_array_size(churn); i++) {
    json_t *s = json_array_get(churn, i);
    fputs("<tr>", f);
    td_s(f, str(s, "site"));
    td_s(f, str(s, "kind"));
    td_s(f, str(s, "label"));
    fprintf(f, "<td class=\"n\">%.0f</td><td class=\"n\">%.3f ms</td>", num(s, "creates"), num(s, "avg_lifetime_ms"));
    td_s(f, str(s, "hint"));
    fputs("</tr>\n", f);
  }
  fputs("</table>\n", f);
}

static void diff_table(FILE *f, json_t *root, json_t *older) {
  page_growth g[64];
  size_t n = page_diff(root, older, g, sizeof g / sizeof g[0]);
  fputs("<h2>Grown since the older report</h2>\n", f);
  if (!n) {
    fputs("<p>Nothing grew.</p>\n", f);
    return;
  }
  fputs("<table>", f);
  static const char *cols[] = {"what", "name", "before", "now", "grown by", NULL};
  th(f, cols);
  for (size_t i = 0; i < n; i++) {
    fprintf(f, "<tr class=\"grew\"><td>%s</td>", g[i].what);
    td_s(f, g[i].name);
    td_b(f, g[i].before);
    td_b(f, g[i].now);
    td_b(f, g[i].now - g[i].before);
    fputs("</tr>\n", f);
  }
  fputs("</table>\n", f);
}

/* ---- what grew (also for the text of `unlost report --diff`) ---- */

static void grow_group(json_t *now, json_t *old, const char *what, const char *key, page_growth *g, size_t cap,
                       size_t *n) {
  for (size_t i = 0; i < json_array_size(now); i++) {
    json_t *a = json_array_get(now, i);
    const char *name = json_string_value(json_object_get(a, key));
    double before = 0;
    for (size_t k = 0; k < json_array_size(old); k++) {
      json_t *b = json_array_get(old, k);
      const char *bn = json_string_value(json_object_get(b, key));
      if ((name && bn && !strcmp(name, bn)) || (!name && !bn)) {
        before = num(b, "live_bytes");
        break;
      }
    }
    double v = num(a, "live_bytes");
    if (v > before && *n < cap) g[(*n)++] = (page_growth){what, name ? name : "(unlabeled)", before, v};
  }
}

size_t page_diff(json_t *now, json_t *old, page_growth *g, size_t cap) {
  size_t n = 0;
  json_t *kn = json_object_get(now, "by_kind"), *ko = json_object_get(old, "by_kind");
  const char *k;
  json_t *v;
  json_object_foreach(kn, k, v) {
    double before = num(json_object_get(ko, k), "live_bytes"), after = num(v, "live_bytes");
    if (after > before && n < cap) g[n++] = (page_growth){"kind", k, before, after};
  }
  grow_group(json_object_get(now, "by_label"), json_object_get(old, "by_label"), "label", "label", g, cap, &n);
  grow_group(json_object_get(now, "by_site"), json_object_get(old, "by_site"), "site", "site", g, cap, &n);
  return n;
}

/* ---- the page ---- */

static const char *g_style =
    "body{font:14px/1.4 system-ui,sans-serif;margin:16px;color:#222;max-width:1240px}"
    "h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:20px 0 6px}h3{font-size:14px;margin:10px 0 4px}"
    ".sum{color:#555}table{border-collapse:collapse;margin:4px 0}td,th{border-bottom:1px solid #ddd;"
    "padding:2px 8px;text-align:left;vertical-align:top}td.n{text-align:right;white-space:nowrap}"
    "tr.churn td,tr.grew td{background:#fff4e5}.msg{white-space:pre-wrap;color:#666;font-size:12px;margin:2px 0}"
    "svg text.ax{font-size:11px;fill:#555}svg line.grid{stroke:#eee}.mark{cursor:default}"
    ".band{stroke:#fff;stroke-width:.5}#tip{position:fixed;display:none;background:#222;color:#fff;"
    "padding:4px 8px;border-radius:3px;font-size:12px;max-width:560px;pointer-events:none}"
    ".legend span{display:inline-block;margin-right:12px}.legend i{display:inline-block;width:10px;height:10px;"
    "margin-right:4px}button{margin-right:6px}button.on{font-weight:bold}"
    "@media print{button,#tip{display:none}body{margin:0}[data-view=label]{display:none!important}}";

static const char *g_script =
    "window.onerror=function(m){document.body.setAttribute('data-script-error',String(m));};\n"
    "(function(){\n"
    "var tip=document.getElementById('tip');\n"
    "function show(v){document.querySelectorAll('[data-view]').forEach(function(g){"
    "g.style.display=g.getAttribute('data-view')===v?'':'none';});"
    "document.querySelectorAll('button[data-show]').forEach(function(b){"
    "b.className=b.getAttribute('data-show')===v?'on':'';});}\n"
    "document.querySelectorAll('button[data-show]').forEach(function(b){"
    "b.addEventListener('click',function(){show(b.getAttribute('data-show'));});});\n"
    "document.querySelectorAll('.mark').forEach(function(m){"
    "m.addEventListener('mousemove',function(e){tip.textContent=m.getAttribute('data-tip');"
    "tip.style.display='block';tip.style.left=(e.clientX+12)+'px';tip.style.top=(e.clientY+12)+'px';});"
    "m.addEventListener('mouseleave',function(){tip.style.display='none';});});\n"
    "show('kind');\n"
    "document.body.setAttribute('data-script','ok');\n"
    "})();\n";

static void legend(FILE *f, json_t *kinds, json_t *root) {
  fputs("<div class=\"legend\" data-view=\"kind\">", f);
  json_t *bk = json_object_get(root, "by_kind");
  for (size_t k = 0; k < json_array_size(kinds); k++) {
    const char *name = json_string_value(json_array_get(kinds, k));
    if (!kind_used(root, name)) continue;
    char b[32];
    page_fmt_bytes(b, sizeof b, num(json_object_get(bk, name), "peak_bytes"));
    fprintf(f, "<span><i style=\"background:%s\"></i>", g_colors[k % NCOLORS]);
    esc(f, name);
    fprintf(f, " (peak %s)</span>", b);
  }
  fputs("</div>\n", f);
}

int page_write(FILE *f, json_t *root, json_t *older, const char *title) {
  json_t *tl = json_object_get(root, "timeline");
  json_t *dev = json_object_get(root, "device");
  chart c = {0};
  c.samples = json_object_get(tl, "samples");
  c.events = json_object_get(tl, "events");
  c.nsamples = json_array_size(c.samples);
  c.t_max = num(tl, "now_ms");
  for (size_t i = 0; i < c.nsamples; i++) {
    json_t *s = json_array_get(c.samples, i);
    c.y_max = fmax(c.y_max, sample_at(s, 1));
    c.t_max = fmax(c.t_max, sample_at(s, 0));
  }
  if (c.y_max <= 0) c.y_max = 1;
  if (c.t_max <= 0) c.t_max = 1;
  char live[32], peak[32];
  page_fmt_bytes(live, sizeof live, num(root, "live_bytes"));
  page_fmt_bytes(peak, sizeof peak, num(root, "peak_bytes"));

  fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>", f);
  esc(f, title);
  fprintf(f, "</title>\n<style>%s</style></head>\n<body>\n<h1>", g_style);
  esc(f, title);
  fputs("</h1>\n<p class=\"sum\">device <b>", f);
  esc(f, str(dev, "label"));
  fputs("</b> on ", f);
  esc(f, str(dev, "adapter"));
  fputs(", ", f);
  esc(f, str(dev, "state"));
  fprintf(f,
          ", epoch %.0f &middot; live %s in %.0f objects, peak %s &middot; %.0f losses &middot; "
          "timeline %.0f records, %.0f dropped, %.1f ms</p>\n",
          num(dev, "epoch"), live, num(root, "live_objects"), peak, num(root, "losses_total"), num(tl, "records"),
          num(tl, "dropped"), c.t_max);
  if (num(tl, "dropped") > 0)
    fputs("<p class=\"sum\">The timeline's ring was full: its oldest records were dropped, so the start of "
          "the run is missing and the by-label view can undercount.</p>\n",
          f);
  fputs("<h2>Memory over time</h2>\n<p><button data-show=\"kind\" class=\"on\">by kind</button>"
        "<button data-show=\"label\">by label</button></p>\n",
        f);
  json_t *kinds = json_object_get(tl, "kinds");
  legend(f, kinds, root);
  fprintf(f, "<svg id=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n",
          W, PADT + H + 24 + 4 * LANE + 8, W, PADT + H + 24 + 4 * LANE + 8);
  axes(f, &c);
  if (c.nsamples) {
    fputs("<g data-view=\"kind\">\n", f);
    chart_by_kind(f, &c, kinds, root);
    fputs("</g>\n<g data-view=\"label\" style=\"display:none\">\n", f);
    chart_by_label(f, &c);
    fputs("</g>\n", f);
  }
  marks(f, &c, root);
  fputs("</svg>\n<div id=\"tip\"></div>\n", f);
  forensics(f, root);
  recoveries(f, c.events);
  if (older) diff_table(f, root, older);
  live_table(f, root);
  sites_table(f, root);
  fprintf(f, "<script>%s</script>\n</body></html>\n", g_script);
  return ferror(f) ? -1 : 0;
}

#endif /* UL_HAVE_JANSSON */
