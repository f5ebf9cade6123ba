/* Churn: a call site that creates and destroys objects over and over (a
 * uniform buffer per frame, a bind group per dispatch) instead of reusing
 * them. Each site counts the "short lives" (objects destroyed within one
 * window of their creation) that ended in the last window, in
 * UL__TRACK_CHURN_BUCKETS buckets, so each free costs O(1) and no timestamps
 * are stored per object beyond its creation time. A site is also churning
 * when its objects live less than a threshold on average. Once churning, a
 * site stays so (the report is about what happened). */
#include "track_int.h"

bool ul__track_churn_on_free(const ul__track_cfg *cfg, ul__track_churn *c,
                             uint64_t destroyed, uint64_t created_ns,
                             uint64_t now_ns) {
  bool was = c->reason != UL__TRACK_CHURN_NONE;
  /* The clock is read before the lock, so a racing thread may bring an
   * earlier time than the creation or the newest bucket: count it as now. */
  uint64_t life = now_ns > created_ns ? now_ns - created_ns : 0;
  c->lifetime_sum_ns =
      c->lifetime_sum_ns + life < life ? UINT64_MAX : c->lifetime_sum_ns + life;
  if (life <= cfg->churn_window_ns) {
    c->short_lived++;
    uint64_t bno = now_ns / cfg->churn_bucket_ns;
    if (bno > c->bucket_no) {
      uint64_t steps = UL__MIN(bno - c->bucket_no, (uint64_t)UL__TRACK_CHURN_BUCKETS);
      for (uint64_t i = 1; i <= steps; i++) {
        uint32_t *b = &c->buckets[(c->bucket_no + i) % UL__TRACK_CHURN_BUCKETS];
        c->in_window -= *b;
        *b = 0;
      }
      c->bucket_no = bno;
    }
    c->buckets[c->bucket_no % UL__TRACK_CHURN_BUCKETS]++;
    c->in_window++;
    if (c->in_window > c->max_in_window) c->max_in_window = c->in_window;
    if (!was && c->in_window > cfg->churn_count) c->reason = UL__TRACK_CHURN_WINDOW;
  }
  if (c->reason == UL__TRACK_CHURN_NONE && destroyed > cfg->churn_count &&
      ul__track_churn_avg_lifetime(c, destroyed) < cfg->churn_min_avg_lifetime_ns)
    c->reason = UL__TRACK_CHURN_LIFETIME;
  return !was && c->reason != UL__TRACK_CHURN_NONE;
}

uint64_t ul__track_churn_avg_lifetime(const ul__track_churn *c,
                                      uint64_t destroyed) {
  return destroyed ? c->lifetime_sum_ns / destroyed : 0;
}

static const char *advice(ul__track_kind kind) {
  switch (kind) {
  case UL__TRACK_BUFFER: return "reuse it, or use ul_ring / ul_buffer_pool";
  case UL__TRACK_TEXTURE:
  case UL__TRACK_TEXTURE_VIEW: return "reuse it, or keep a pool of them";
  case UL__TRACK_COMMAND_LIST: return "record it once and submit it again";
  case UL__TRACK_OTHER: return "reuse it";
  default: return "create it once and reuse it";
  }
}

void ul__track_churn_hint(ul__track_sb *sb, const ul__track_cfg *cfg,
                          const ul__track_site_ent *s, const char *label) {
  const char *kind = ul__track_kind_name((ul__track_kind)s->kind);
  const char *file = ul__track_basename(s->site.file);
  char d[32];
  if (s->churn.reason == UL__TRACK_CHURN_WINDOW) {
    ul__track_fmt_duration(d, sizeof d, cfg->churn_window_ns);
    ul__track_sb_printf(sb, "%s created and destroyed %u times in %s at ", kind,
                        s->churn.max_in_window, d);
  } else {
    ul__track_sb_printf(sb, "%s created and destroyed %llu times at ", kind,
                        (unsigned long long)s->agg.destroyed);
  }
  ul__track_sb_text_str(sb, file);
  ul__track_sb_printf(sb, ":%d", s->site.line);
  if (label) {
    ul__track_sb_puts(sb, " (");
    ul__track_sb_text_str(sb, label);
    ul__track_sb_puts(sb, ")");
  }
  if (s->churn.reason == UL__TRACK_CHURN_LIFETIME) {
    ul__track_fmt_duration(d, sizeof d,
                           ul__track_churn_avg_lifetime(&s->churn, s->agg.destroyed));
    ul__track_sb_printf(sb, ", living %s on average", d);
  }
  ul__track_sb_printf(sb, "; %s", advice((ul__track_kind)s->kind));
}
