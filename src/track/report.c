/* Reports: the leak report in text and JSON, and writing the JSON to a file
 * atomically.
 *
 * A report copies what it needs under the lock (the largest live objects,
 * the sites, the labels) and formats after unlocking, so symbolizing
 * backtraces and building strings never block allocations. The JSON object:
 *
 *   {"live_objects", "live_bytes", "peak_objects", "peak_bytes", "created",
 *    "destroyed", "created_bytes", "destroyed_bytes", "budget_bytes",
 *    "reserved_bytes", "estimated_bytes", "budget_refusals", "misuse",
 *    "by_kind": {"buffer": {"live_objects", "live_bytes", "peak_objects",
 *                           "peak_bytes", "created", "destroyed"}, ...},
 *    "live": [{"kind", "label", "size", "size_estimated", "site", "file",
 *              "line", "function", "age_ms", "owner", "backtrace": [...]}],
 *    "live_omitted", "live_omitted_bytes",
 *    "by_site": [{"site", "file", "line", "function", "kind", "label",
 *                 "live_objects", "live_bytes", "peak_objects", "peak_bytes",
 *                 "created", "destroyed", "churning"}],
 *    "churn": [{"site", "function", "kind", "label", "creates", "destroys",
 *               "short_lived", "max_in_window", "window_ms",
 *               "avg_lifetime_ms", "reason", "hint"}],
 *    "by_label": [{"label", "live_objects", "live_bytes", "peak_objects",
 *                  "peak_bytes", "created", "destroyed"}],
 *    "timeline": {"now_ms", "capacity", "records", "dropped", "interval_ms",
 *                 "min_event_bytes", "off", "kinds": ["buffer", ...],
 *                 "samples": [[t_ms, live_bytes, live_objects, bytes per
 *                              kind...]],
 *                 "events": [{"t_ms", "type", "kind", "bytes", "ms",
 *                             "number", "phases", "text"}]},
 *    ...the device's members (losses, device) when it adds them}
 *
 * Times on the timeline are ms since the tracker was created.
 *
 * "live" lists at most report_max_live objects, largest first; "label" is
 * null for unlabeled objects; "site" is "basename:line". */
#include "track_int.h"

#include <errno.h>
#include <execinfo.h>
#include <unistd.h>

typedef struct snap_obj {
  uint64_t size, owner, age_ns;
  ul__track_site site;
  char *label; /* malloc'd copy */
  uint8_t kind, estimated, nframes;
  void **frames; /* into snap.frames */
} snap_obj;

typedef struct snap {
  ul__track_stats stats;
  ul__track_cfg cfg;
  snap_obj *objs;
  size_t nobjs;
  uint64_t omitted, omitted_bytes;
  void **frames;
  ul__track_site_ent *sites;
  size_t nsites;
  ul__track_label_ent *labels; /* label strings are the tracker's: they live
                                  as long as it does */
  size_t nlabels;
  ul__tl_rec *tl; /* the timeline, oldest first */
  size_t ntl;
  uint64_t tl_dropped, tl_t0, now;
  ul__tl cfg_tl; /* the ring's settings (recs NULL) */
} snap;

typedef struct live_key {
  uint64_t size, created;
  uint32_t slot;
} live_key;

static int live_key_cmp(const void *a, const void *b) {
  const live_key *x = a, *y = b;
  if (x->size != y->size) return x->size > y->size ? -1 : 1;
  if (x->created != y->created) return x->created < y->created ? -1 : 1;
  return x->slot < y->slot ? -1 : x->slot > y->slot;
}

static void snap_free(snap *s) {
  for (size_t i = 0; i < s->nobjs; i++) free(s->objs[i].label);
  free(s->objs);
  free(s->frames);
  free(s->sites);
  free(s->labels);
  free(s->tl);
  memset(s, 0, sizeof *s);
}

static ul_status snap_take(ul__tracker *tr, snap *s) {
  memset(s, 0, sizeof *s);
  uint64_t now = tr->cfg.now_ns(tr->cfg.clock_user);
  ul__track_lock(&tr->mu);
  s->stats = tr->stats;
  s->cfg = tr->cfg;
  size_t nlive = (size_t)tr->stats.total.live_objects;
  size_t keep = UL__MIN(nlive, (size_t)tr->cfg.report_max_live);
  size_t depth = tr->cfg.backtraces ? tr->cfg.backtrace_depth : 0;
  live_key *keys = malloc((nlive ? nlive : 1) * sizeof *keys);
  s->objs = calloc(keep ? keep : 1, sizeof *s->objs);
  s->frames = depth ? malloc((keep ? keep : 1) * depth * sizeof *s->frames) : NULL;
  s->sites = malloc((tr->nsites ? tr->nsites : 1) * sizeof *s->sites);
  s->labels = malloc(tr->nlabels * sizeof *s->labels);
  bool ok = keys && s->objs && (!depth || s->frames) && s->sites && s->labels;
  if (ok) {
    size_t k = 0;
    for (uint32_t i = 0; i < tr->nrecs && k < nlive; i++) {
      if (!tr->recs[i].live) continue;
      keys[k].size = tr->recs[i].size;
      keys[k].created = tr->recs[i].created_ns;
      keys[k].slot = i;
      k++;
    }
    qsort(keys, k, sizeof *keys, live_key_cmp);
    for (size_t j = 0; j < keep; j++) {
      const ul__track_rec *r = &tr->recs[keys[j].slot];
      snap_obj *o = &s->objs[j];
      o->size = r->size;
      o->owner = r->owner;
      o->age_ns = now > r->created_ns ? now - r->created_ns : 0;
      o->site = tr->sites[r->site].site;
      o->kind = r->kind;
      o->estimated = r->estimated;
      const char *label = ul__track_rec_label(r);
      if (label && !(o->label = ul__strdup(label))) ok = false;
      s->nobjs = j + 1;
      if (depth) {
        o->frames = &s->frames[j * depth];
        o->nframes = r->nframes;
        memcpy(o->frames, &tr->frames[(size_t)keys[j].slot * depth],
               r->nframes * sizeof *o->frames);
      }
    }
    for (size_t j = keep; j < k; j++) {
      s->omitted++;
      s->omitted_bytes += keys[j].size;
    }
    if (tr->nsites) memcpy(s->sites, tr->sites, tr->nsites * sizeof *s->sites);
    s->nsites = tr->nsites;
    memcpy(s->labels, tr->labels, tr->nlabels * sizeof *s->labels);
    s->nlabels = tr->nlabels;
    ul__tl_copy(tr, &s->tl, &s->ntl, &s->tl_dropped);
    s->tl_t0 = tr->tl.t0_ns;
    s->cfg_tl = tr->tl;
    s->cfg_tl.recs = NULL;
    s->now = now;
  }
  ul__track_unlock(&tr->mu);
  free(keys);
  if (!ok) {
    snap_free(s);
    return ul__fail(UL_ERR_OUT_OF_MEMORY, "allocation report: out of host memory");
  }
  return UL_OK;
}

/* Most live bytes first, then most created. */
static int agg_cmp(const ul__track_agg *x, const ul__track_agg *y) {
  if (x->live_bytes != y->live_bytes) return x->live_bytes > y->live_bytes ? -1 : 1;
  if (x->created != y->created) return x->created > y->created ? -1 : 1;
  return 0;
}

static int site_cmp(const void *a, const void *b) {
  return agg_cmp(&((const ul__track_site_ent *)a)->agg, &((const ul__track_site_ent *)b)->agg);
}

static int label_cmp(const void *a, const void *b) {
  return agg_cmp(&((const ul__track_label_ent *)a)->agg, &((const ul__track_label_ent *)b)->agg);
}

static const char *site_label(const snap *s, const ul__track_site_ent *e) {
  return e->last_label < s->nlabels ? s->labels[e->last_label].label : NULL;
}

/* ---- text ---- */

/* The start of a report: the arguments checked, the snapshot taken and its
 * sites sorted. */
static ul_status report_begin(ul__tracker *tr, char **out, const char *what, snap *s) {
  if (out) *out = NULL;
  if (!tr || !out) return ul__fail(UL_ERR_INVALID_ARGUMENT, "%s: NULL argument", what);
  ul_status st = snap_take(tr, s);
  if (st == UL_OK) qsort(s->sites, s->nsites, sizeof *s->sites, site_cmp);
  return st;
}

ul_status ul__track_report_text(ul__tracker *tr, char **out) {
  snap s;
  ul_status st = report_begin(tr, out, "text report", &s);
  if (st != UL_OK) return st;

  ul__track_sb sb = {0};
  char a[32], b[32], c[32];
  const ul__track_agg *t = &s.stats.total;
  ul__track_fmt_bytes(a, sizeof a, t->live_bytes);
  ul__track_fmt_bytes(b, sizeof b, t->peak_bytes);
  ul__track_sb_printf(&sb,
                      "unlost allocations: %llu live objects, %s (peak %llu objects, "
                      "%s); %llu created, %llu destroyed",
                      (unsigned long long)t->live_objects, a,
                      (unsigned long long)t->peak_objects, b,
                      (unsigned long long)t->created, (unsigned long long)t->destroyed);
  if (s.stats.budget_bytes) {
    ul__track_fmt_bytes(c, sizeof c, s.stats.budget_bytes);
    ul__track_sb_printf(&sb, "; budget %s, %llu refused", c,
                        (unsigned long long)s.stats.budget_refusals);
  }
  ul__track_sb_puts(&sb, "\n");

  for (size_t i = 0; i < s.nobjs; i++) {
    const snap_obj *o = &s.objs[i];
    ul__track_sb_printf(&sb, "UNFREED %s ", ul__track_kind_name((ul__track_kind)o->kind));
    if (o->label) {
      ul__track_sb_puts(&sb, "'");
      ul__track_sb_text_str(&sb, o->label);
      ul__track_sb_puts(&sb, "' ");
    }
    ul__track_fmt_bytes(a, sizeof a, o->size);
    ul__track_fmt_duration(b, sizeof b, o->age_ns);
    ul__track_sb_printf(&sb, "%s%s created at ", a, o->estimated ? " (estimated)" : "");
    ul__track_sb_text_str(&sb, ul__track_basename(o->site.file));
    ul__track_sb_printf(&sb, ":%d", o->site.line);
    if (o->site.function) {
      ul__track_sb_puts(&sb, " in ");
      ul__track_sb_text_str(&sb, o->site.function);
    }
    ul__track_sb_printf(&sb, ", %s ago\n", b);
    if (o->nframes) {
      char **sym = backtrace_symbols(o->frames, o->nframes);
      for (int f = 0; f < o->nframes; f++) {
        ul__track_sb_puts(&sb, "    ");
        if (sym)
          ul__track_sb_text_str(&sb, sym[f]);
        else
          ul__track_sb_printf(&sb, "%p", o->frames[f]);
        ul__track_sb_puts(&sb, "\n");
      }
      free(sym);
    }
  }
  if (s.omitted) {
    ul__track_fmt_bytes(a, sizeof a, s.omitted_bytes);
    ul__track_sb_printf(&sb, "... and %llu more live objects, %s\n",
                        (unsigned long long)s.omitted, a);
  }
  for (size_t i = 0; i < s.nsites; i++) {
    if (s.sites[i].churn.reason == UL__TRACK_CHURN_NONE) continue;
    ul__track_sb_puts(&sb, "CHURN ");
    ul__track_churn_hint(&sb, &s.cfg, &s.sites[i], site_label(&s, &s.sites[i]));
    ul__track_sb_puts(&sb, "\n");
  }
  if (s.stats.misuse)
    ul__track_sb_printf(&sb, "MISUSE %llu frees of stale, freed or unknown records\n",
                        (unsigned long long)s.stats.misuse);
  snap_free(&s);
  *out = ul__track_sb_take(&sb);
  if (!*out) return ul__fail(UL_ERR_OUT_OF_MEMORY, "text report: out of host memory");
  return UL_OK;
}

/* ---- JSON ---- */

static void json_agg(ul__track_sb *sb, const ul__track_agg *g) {
  ul__track_sb_printf(sb,
                      "\"live_objects\":%llu,\"live_bytes\":%llu,\"peak_objects\":%llu,"
                      "\"peak_bytes\":%llu,\"created\":%llu,\"destroyed\":%llu",
                      (unsigned long long)g->live_objects, (unsigned long long)g->live_bytes,
                      (unsigned long long)g->peak_objects, (unsigned long long)g->peak_bytes,
                      (unsigned long long)g->created, (unsigned long long)g->destroyed);
}

static void json_site(ul__track_sb *sb, const ul__track_site *site) {
  ul__track_sb_puts(sb, "\"site\":");
  ul__track_sb_putn(sb, "\"", 1);
  ul__track_sb_text_str(sb, ul__track_basename(site->file));
  ul__track_sb_printf(sb, ":%d\",\"file\":", site->line);
  ul__track_sb_json_str(sb, site->file);
  ul__track_sb_printf(sb, ",\"line\":%d,\"function\":", site->line);
  ul__track_sb_json_str(sb, site->function);
}

static double tl_ms(const snap *s, uint64_t t) {
  return t > s->tl_t0 ? (double)(t - s->tl_t0) / 1e6 : 0.0;
}

/* "timeline": samples as arrays [t_ms, live_bytes, live_objects, bytes of
 * each kind in "kinds" order], events as objects; the last sample is the
 * report's own moment. */
static void json_timeline(ul__track_sb *sb, const snap *s) {
  ul__track_sb_printf(sb,
                      ",\"timeline\":{\"now_ms\":%.3f,\"capacity\":%u,\"records\":%zu,\"dropped\":%llu,"
                      "\"interval_ms\":%.3f,\"min_event_bytes\":%llu,\"off\":%s,\"kinds\":[",
                      tl_ms(s, s->now), s->cfg_tl.cap, s->ntl, (unsigned long long)s->tl_dropped,
                      (double)s->cfg_tl.interval_ns / 1e6, (unsigned long long)s->cfg_tl.min_bytes,
                      s->cfg_tl.off ? "true" : "false");
  for (int k = 0; k < UL__TRACK_KIND_COUNT; k++)
    ul__track_sb_printf(sb, "%s\"%s\"", k ? "," : "", ul__track_kind_name((ul__track_kind)k));
  ul__track_sb_puts(sb, "],\"samples\":[");
  bool first = true;
  for (size_t i = 0; i <= s->ntl; i++) {
    const ul__tl_rec *r = i < s->ntl ? &s->tl[i] : NULL;
    if (r && r->type != UL__TL_SAMPLE) continue;
    uint64_t t = r ? r->t_ns : s->now;
    uint64_t bytes = r ? r->bytes : s->stats.total.live_bytes;
    uint64_t objs = r ? r->number : s->stats.total.live_objects;
    ul__track_sb_printf(sb, "%s[%.3f,%llu,%llu", first ? "" : ",", tl_ms(s, t), (unsigned long long)bytes,
                        (unsigned long long)objs);
    first = false;
    for (int k = 0; k < UL__TRACK_KIND_COUNT; k++)
      ul__track_sb_printf(sb, ",%llu",
                          (unsigned long long)(r ? r->kind_bytes[k] : s->stats.by_kind[k].live_bytes));
    ul__track_sb_puts(sb, "]");
  }
  ul__track_sb_puts(sb, "],\"events\":[");
  first = true;
  for (size_t i = 0; i < s->ntl; i++) {
    const ul__tl_rec *r = &s->tl[i];
    if (r->type == UL__TL_SAMPLE) continue;
    ul__track_sb_printf(sb, "%s{\"t_ms\":%.3f,\"type\":\"%s\"", first ? "" : ",", tl_ms(s, r->t_ns),
                        ul__tl_type_name((ul__tl_type)r->type));
    first = false;
    if (r->type == UL__TL_CREATE || r->type == UL__TL_DESTROY || r->type == UL__TL_BUDGET ||
        r->type == UL__TL_CHURN)
      ul__track_sb_printf(sb, ",\"kind\":\"%s\"", ul__track_kind_name((ul__track_kind)r->kind));
    if (r->bytes) ul__track_sb_printf(sb, ",\"bytes\":%llu", (unsigned long long)r->bytes);
    if (r->dur_ns) ul__track_sb_printf(sb, ",\"ms\":%.3f", (double)r->dur_ns / 1e6);
    if (r->number) ul__track_sb_printf(sb, ",\"number\":%llu", (unsigned long long)r->number);
    if (r->type == UL__TL_RECOVERY)
      ul__track_sb_printf(sb,
                          ",\"phases\":{\"device_ms\":%.3f,\"objects_ms\":%.3f,\"contents_ms\":%.3f,"
                          "\"callbacks_ms\":%.3f,\"replay_ms\":%.3f}",
                          r->phase_us[0] / 1e3, r->phase_us[1] / 1e3, r->phase_us[2] / 1e3,
                          r->phase_us[3] / 1e3, r->phase_us[4] / 1e3);
    ul__track_sb_puts(sb, ",\"text\":");
    ul__track_sb_json_str(sb, r->text[0] ? r->text : NULL);
    ul__track_sb_puts(sb, "}");
  }
  ul__track_sb_puts(sb, "]}");
}

ul_status ul__track_report_json(ul__tracker *tr, char **out) {
  return ul__track_report_json_ex(tr, NULL, out);
}

ul_status ul__track_report_json_ex(ul__tracker *tr, const char *extra, char **out) {
  snap s;
  ul_status st = report_begin(tr, out, "JSON report", &s);
  if (st != UL_OK) return st;

  ul__track_sb sb = {0};
  const ul__track_agg *t = &s.stats.total;
  ul__track_sb_printf(
      &sb,
      "{\"live_objects\":%llu,\"live_bytes\":%llu,\"peak_objects\":%llu,"
      "\"peak_bytes\":%llu,\"created\":%llu,\"destroyed\":%llu,"
      "\"created_bytes\":%llu,\"destroyed_bytes\":%llu,\"budget_bytes\":%llu,"
      "\"reserved_bytes\":%llu,\"estimated_bytes\":%llu,\"budget_refusals\":%llu,"
      "\"misuse\":%llu,\"by_kind\":{",
      (unsigned long long)t->live_objects, (unsigned long long)t->live_bytes,
      (unsigned long long)t->peak_objects, (unsigned long long)t->peak_bytes,
      (unsigned long long)t->created, (unsigned long long)t->destroyed,
      (unsigned long long)t->created_bytes, (unsigned long long)t->destroyed_bytes,
      (unsigned long long)s.stats.budget_bytes, (unsigned long long)s.stats.reserved_bytes,
      (unsigned long long)s.stats.estimated_bytes,
      (unsigned long long)s.stats.budget_refusals, (unsigned long long)s.stats.misuse);
  for (int k = 0; k < UL__TRACK_KIND_COUNT; k++) {
    ul__track_sb_printf(&sb, "%s\"%s\":{", k ? "," : "",
                        ul__track_kind_name((ul__track_kind)k));
    json_agg(&sb, &s.stats.by_kind[k]);
    ul__track_sb_puts(&sb, "}");
  }

  ul__track_sb_puts(&sb, "},\"live\":[");
  for (size_t i = 0; i < s.nobjs; i++) {
    const snap_obj *o = &s.objs[i];
    ul__track_sb_printf(&sb, "%s{\"kind\":\"%s\",\"label\":", i ? "," : "",
                        ul__track_kind_name((ul__track_kind)o->kind));
    ul__track_sb_json_str(&sb, o->label);
    ul__track_sb_printf(&sb, ",\"size\":%llu,\"size_estimated\":%s,",
                        (unsigned long long)o->size, o->estimated ? "true" : "false");
    json_site(&sb, &o->site);
    ul__track_sb_printf(&sb, ",\"age_ms\":%llu,\"owner\":%llu,\"backtrace\":[",
                        (unsigned long long)(o->age_ns / 1000000u),
                        (unsigned long long)o->owner);
    if (o->nframes) {
      char **sym = backtrace_symbols(o->frames, o->nframes);
      for (int f = 0; f < o->nframes; f++) {
        if (f) ul__track_sb_puts(&sb, ",");
        if (sym) {
          ul__track_sb_json_str(&sb, sym[f]);
        } else {
          ul__track_sb_printf(&sb, "\"%p\"", o->frames[f]);
        }
      }
      free(sym);
    }
    ul__track_sb_puts(&sb, "]}");
  }
  ul__track_sb_printf(&sb, "],\"live_omitted\":%llu,\"live_omitted_bytes\":%llu,\"by_site\":[",
                      (unsigned long long)s.omitted, (unsigned long long)s.omitted_bytes);
  for (size_t i = 0; i < s.nsites; i++) {
    const ul__track_site_ent *e = &s.sites[i];
    ul__track_sb_puts(&sb, i ? ",{" : "{");
    json_site(&sb, &e->site);
    ul__track_sb_printf(&sb, ",\"kind\":\"%s\",\"label\":",
                        ul__track_kind_name((ul__track_kind)e->kind));
    ul__track_sb_json_str(&sb, site_label(&s, e));
    ul__track_sb_puts(&sb, ",");
    json_agg(&sb, &e->agg);
    ul__track_sb_printf(&sb, ",\"churning\":%s}",
                        e->churn.reason != UL__TRACK_CHURN_NONE ? "true" : "false");
  }

  ul__track_sb_puts(&sb, "],\"churn\":[");
  bool first = true;
  for (size_t i = 0; i < s.nsites; i++) {
    const ul__track_site_ent *e = &s.sites[i];
    if (e->churn.reason == UL__TRACK_CHURN_NONE) continue;
    ul__track_sb_puts(&sb, first ? "{\"site\":\"" : ",{\"site\":\"");
    first = false;
    ul__track_sb_text_str(&sb, ul__track_basename(e->site.file));
    ul__track_sb_printf(&sb, ":%d\",\"function\":", e->site.line);
    ul__track_sb_json_str(&sb, e->site.function);
    ul__track_sb_printf(&sb, ",\"kind\":\"%s\",\"label\":",
                        ul__track_kind_name((ul__track_kind)e->kind));
    ul__track_sb_json_str(&sb, site_label(&s, e));
    uint64_t avg = ul__track_churn_avg_lifetime(&e->churn, e->agg.destroyed);
    ul__track_sb_printf(
        &sb,
        ",\"creates\":%llu,\"destroys\":%llu,\"short_lived\":%llu,"
        "\"max_in_window\":%u,\"window_ms\":%llu,\"avg_lifetime_ms\":%.3f,"
        "\"reason\":\"%s\",\"hint\":",
        (unsigned long long)e->agg.created, (unsigned long long)e->agg.destroyed,
        (unsigned long long)e->churn.short_lived, e->churn.max_in_window,
        (unsigned long long)(s.cfg.churn_window_ns / 1000000u), (double)avg / 1e6,
        e->churn.reason == UL__TRACK_CHURN_WINDOW ? "window" : "lifetime");
    ul__track_sb hint = {0};
    ul__track_churn_hint(&hint, &s.cfg, e, site_label(&s, e));
    if (hint.oom) sb.oom = true;
    ul__track_sb_json_str(&sb, hint.p ? hint.p : "");
    ul__track_sb_free(&hint);
    ul__track_sb_puts(&sb, "}");
  }
  ul__track_sb_puts(&sb, "],\"by_label\":[");
  /* Last: site_label() needs the labels in their original order. */
  qsort(s.labels, s.nlabels, sizeof *s.labels, label_cmp);
  first = true;
  for (size_t i = 0; i < s.nlabels; i++) {
    const ul__track_label_ent *l = &s.labels[i];
    if (!l->agg.created) continue;
    ul__track_sb_puts(&sb, first ? "{\"label\":" : ",{\"label\":");
    first = false;
    ul__track_sb_json_str(&sb, l->label);
    ul__track_sb_puts(&sb, ",");
    json_agg(&sb, &l->agg);
    ul__track_sb_puts(&sb, "}");
  }

  ul__track_sb_puts(&sb, "]");
  json_timeline(&sb, &s);
  if (extra && *extra) {
    ul__track_sb_puts(&sb, ",");
    ul__track_sb_puts(&sb, extra);
  }
  ul__track_sb_puts(&sb, "}\n");
  snap_free(&s);
  *out = ul__track_sb_take(&sb);
  if (!*out) return ul__fail(UL_ERR_OUT_OF_MEMORY, "JSON report: out of host memory");
  return UL_OK;
}

ul_status ul__track_write_json(ul__tracker *tr, const char *path) {
  return ul__track_write_json_ex(tr, NULL, path);
}

ul_status ul__track_write_json_ex(ul__tracker *tr, const char *extra, const char *path) {
  if (!tr || !path || !*path)
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "write allocation report: no path");
  char *json;
  ul_status st = ul__track_report_json_ex(tr, extra, &json);
  if (st != UL_OK) return ul__wrap(st, "write allocation report %s", path);
  size_t n = strlen(path) + 32;
  char *tmp = malloc(n);
  if (!tmp) {
    free(json);
    return ul__fail(UL_ERR_OUT_OF_MEMORY, "write allocation report %s: out of host memory",
                    path);
  }
  snprintf(tmp, n, "%s.tmp.%ld", path, (long)getpid());
  const char *step = "open";
  int err = 0;
  FILE *f = fopen(tmp, "w");
  if (!f) {
    err = errno;
  } else {
    size_t len = strlen(json);
    if (fwrite(json, 1, len, f) != len || fflush(f) != 0) {
      err = errno ? errno : EIO;
      step = "write";
    } else if (fsync(fileno(f)) != 0 && errno != EINVAL) {
      err = errno;
      step = "sync";
    }
    if (fclose(f) != 0 && !err) {
      err = errno;
      step = "close";
    }
    if (!err && rename(tmp, path) != 0) {
      err = errno;
      step = "rename";
    }
    if (err) unlink(tmp);
  }
  free(json);
  if (err) {
    st = ul__fail(UL_ERR_IO, "write allocation report %s: %s %s: %s", path, step, tmp,
                  strerror(err));
    free(tmp);
    return st;
  }
  free(tmp);
  return UL_OK;
}
