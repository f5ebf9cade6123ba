/* Allocation records and aggregates: the tracker's lifecycle, alloc/free,
 * the budget, and the per-kind, per-site and per-label counts.
 *
 * Records live in a slot array with a free list, so alloc and free are O(1);
 * call sites and labels are interned in open-addressed tables and never
 * removed (a program has finitely many call sites; labels are capped). The
 * hot path allocates only for labels of UL__TRACK_LABEL_INLINE bytes or more,
 * and does that, the clock, and the backtrace before taking the lock. */
#include "track_int.h"

#include <execinfo.h>
#include <sched.h>
#ifdef __linux__
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

static const char *const kind_names[] = {
#define UL__TRACK_KIND_TEXT(name, text) text,
    UL__TRACK_KIND_MAP(UL__TRACK_KIND_TEXT)
#undef UL__TRACK_KIND_TEXT
};

const char *ul__track_kind_name(ul__track_kind kind) {
  if ((unsigned)kind >= UL__TRACK_KIND_COUNT) return "unknown";
  return kind_names[kind];
}

/* Coarse: two reads per create and destroy, at ms precision (ages, churn
 * windows, timeline samples); a precise read costs 25-30 ns more each on
 * the machines measured (docs/BENCHMARKS.md). */
static uint64_t default_clock(void *user) {
  UL__UNUSED(user);
  return ul__now_coarse_ns();
}

void ul__track_lock_slow(_Atomic int *w) {
  /* A holder leaves soon (nothing blocks under this lock): spin a little. */
  for (int i = 0; i < 64; i++) {
    int free_ = 0;
    if (atomic_load_explicit(w, memory_order_relaxed) == 0 &&
        atomic_compare_exchange_weak_explicit(w, &free_, 1, memory_order_acquire, memory_order_relaxed))
      return;
  }
  /* Marked contended, so that the unlock wakes a waiter. */
  while (atomic_exchange_explicit(w, 2, memory_order_acquire) != 0) {
#ifdef __linux__
    syscall(SYS_futex, (int *)w, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
#else
    sched_yield();
#endif
  }
}

void ul__track_unlock_wake(_Atomic int *w) {
#ifdef __linux__
  syscall(SYS_futex, (int *)w, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
#else
  (void)w;
#endif
}

/* The tracker's clock: the default one read here, without two calls. */
static inline uint64_t tr_now(const ul__tracker *tr) {
  if (tr->cfg.now_ns != default_clock) return tr->cfg.now_ns(tr->cfg.clock_user);
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &t);
  return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static uint64_t mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}

static uint64_t site_hash(const ul__track_site *s, unsigned kind) {
  uint64_t h = mix64((uint64_t)(uintptr_t)s->file);
  h = mix64(h ^ (uint64_t)(uintptr_t)s->function);
  return mix64(h ^ ((uint64_t)(uint32_t)s->line << 8) ^ kind);
}

static uint64_t label_hash(const char *s, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
  for (size_t i = 0; i < n; i++) {
    h ^= (unsigned char)s[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

/* ---- aggregates ---- */

static void agg_add(ul__track_agg *a, uint64_t size) {
  a->live_objects++;
  a->live_bytes += size;
  a->created++;
  a->created_bytes += size;
  if (a->live_objects > a->peak_objects) a->peak_objects = a->live_objects;
  if (a->live_bytes > a->peak_bytes) a->peak_bytes = a->live_bytes;
}

static void agg_sub(ul__track_agg *a, uint64_t size) {
  a->live_objects--;
  a->live_bytes -= size;
  a->destroyed++;
  a->destroyed_bytes += size;
}

/* ---- open-addressed indexes (entry index + 1 per slot) ---- */

static bool index_grow(ul__track_index *ix, uint32_t nentries,
                       uint64_t (*hash_of)(const ul__tracker *, uint32_t),
                       const ul__tracker *tr) {
  uint32_t ncap = ix->cap ? ix->cap * 2 : 64;
  uint32_t *slots = calloc(ncap, sizeof *slots);
  if (!slots) return false;
  for (uint32_t e = 0; e < nentries; e++) {
    uint64_t h = hash_of(tr, e);
    if (h == 0) continue; /* entries kept out of the index */
    uint32_t i = (uint32_t)h & (ncap - 1);
    while (slots[i]) i = (i + 1) & (ncap - 1);
    slots[i] = e + 1;
  }
  free(ix->slots);
  ix->slots = slots;
  ix->cap = ncap;
  return true;
}

static uint64_t site_hash_of(const ul__tracker *tr, uint32_t e) {
  uint64_t h = site_hash(&tr->sites[e].site, tr->sites[e].kind);
  return h ? h : 1;
}

static uint64_t label_hash_of(const ul__tracker *tr, uint32_t e) {
  if (e == UL__TRACK_LABEL_UNLABELED || e == UL__TRACK_LABEL_OTHER) return 0;
  return tr->labels[e].hash ? tr->labels[e].hash : 1;
}

static uint32_t site_intern_slow(ul__tracker *tr, const ul__track_site *s, unsigned kind);
static uint32_t site_intern(ul__tracker *tr, const ul__track_site *s,
                            unsigned kind) {
  if (tr->last_site != UL__TRACK_NONE) {
    const ul__track_site_ent *e = &tr->sites[tr->last_site];
    if (e->site.file == s->file && e->site.line == s->line && e->site.function == s->function &&
        e->kind == kind)
      return tr->last_site;
  }
  uint32_t v = site_intern_slow(tr, s, kind);
  if (v != UL__TRACK_NONE) tr->last_site = v;
  return v;
}

static uint32_t site_intern_slow(ul__tracker *tr, const ul__track_site *s, unsigned kind) {
  if ((uint64_t)(tr->nsites + 1) * 2 > tr->site_index.cap &&
      !index_grow(&tr->site_index, tr->nsites, site_hash_of, tr))
    return UL__TRACK_NONE;
  uint64_t h = site_hash(s, kind);
  uint32_t mask = tr->site_index.cap - 1;
  uint32_t i = (uint32_t)(h ? h : 1) & mask;
  for (;; i = (i + 1) & mask) {
    uint32_t v = tr->site_index.slots[i];
    if (!v) break;
    const ul__track_site_ent *e = &tr->sites[v - 1];
    if (e->site.file == s->file && e->site.line == s->line &&
        e->site.function == s->function && e->kind == kind)
      return v - 1;
  }
  ul__track_site_ent *grown = ul__grow(tr->sites, tr->nsites, &tr->sites_cap, sizeof *tr->sites, 64);
  if (!grown) return UL__TRACK_NONE;
  tr->sites = grown;
  uint32_t e = tr->nsites++;
  memset(&tr->sites[e], 0, sizeof tr->sites[e]);
  tr->sites[e].site = *s;
  tr->sites[e].kind = (uint8_t)kind;
  tr->site_index.slots[i] = e + 1;
  return e;
}

static uint32_t label_add_entry(ul__tracker *tr, char *owned, uint64_t h) {
  ul__track_label_ent *grown = ul__grow(tr->labels, tr->nlabels, &tr->labels_cap, sizeof *tr->labels, 64);
  if (!grown) return UL__TRACK_NONE;
  tr->labels = grown;
  uint32_t e = tr->nlabels++;
  memset(&tr->labels[e], 0, sizeof tr->labels[e]);
  tr->labels[e].label = owned;
  tr->labels[e].hash = h;
  return e;
}

/* Never fails: without room or memory the object counts under "(other
 * labels)". Allocates the group's string, under the lock, only the first
 * time a label is seen. */
static uint32_t label_intern_slow(ul__tracker *tr, const char *label, size_t n, uint64_t h);
static uint32_t label_intern(ul__tracker *tr, const char *label, size_t n) {
  if (!label) return UL__TRACK_LABEL_UNLABELED;
  uint32_t last = tr->last_label;
  /* The length first: memcmp may read all n bytes of the kept label. */
  if (last != UL__TRACK_NONE && n == tr->last_label_len && !memcmp(tr->labels[last].label, label, n))
    return last;
  uint32_t v = label_intern_slow(tr, label, n, label_hash(label, n));
  bool kept = v != UL__TRACK_LABEL_OTHER && tr->labels[v].label;
  tr->last_label = kept ? v : UL__TRACK_NONE;
  tr->last_label_len = n;
  return v;
}

static uint32_t label_intern_slow(ul__tracker *tr, const char *label, size_t n, uint64_t h) {
  if (!h) h = 1;
  if (tr->label_index.cap) {
    uint32_t mask = tr->label_index.cap - 1;
    for (uint32_t i = (uint32_t)h & mask;; i = (i + 1) & mask) {
      uint32_t v = tr->label_index.slots[i];
      if (!v) break;
      const ul__track_label_ent *e = &tr->labels[v - 1];
      if (e->hash == h && strncmp(e->label, label, n) == 0 &&
          e->label[n] == '\0')
        return v - 1;
    }
  }
  if (tr->nlabels >= UL__TRACK_MAX_LABELS) return UL__TRACK_LABEL_OTHER;
  if ((uint64_t)(tr->nlabels + 1) * 2 > tr->label_index.cap &&
      !index_grow(&tr->label_index, tr->nlabels, label_hash_of, tr))
    return UL__TRACK_LABEL_OTHER;
  char *copy = malloc(n + 1);
  if (!copy) return UL__TRACK_LABEL_OTHER;
  memcpy(copy, label, n);
  copy[n] = '\0';
  uint32_t e = label_add_entry(tr, copy, h);
  if (e == UL__TRACK_NONE) {
    free(copy);
    return UL__TRACK_LABEL_OTHER;
  }
  uint32_t mask = tr->label_index.cap - 1;
  uint32_t i = (uint32_t)h & mask;
  while (tr->label_index.slots[i]) i = (i + 1) & mask;
  tr->label_index.slots[i] = e + 1;
  return e;
}

/* ---- lifecycle ---- */

ul_status ul__track_create(const ul__track_config *cfg, ul__tracker **out) {
  if (!out) return ul__fail(UL_ERR_INVALID_ARGUMENT, "create tracker: out is NULL");
  *out = NULL;
  ul__track_config c = {0};
  if (cfg) c = *cfg;
  ul__tracker *tr = calloc(1, sizeof *tr);
  if (!tr) return ul__fail(UL_ERR_OUT_OF_MEMORY, "create tracker: out of host memory");
  tr->cfg.now_ns = c.now_ns ? c.now_ns : default_clock;
  tr->last_site = tr->last_label = UL__TRACK_NONE;
  tr->cfg.clock_user = c.clock_user;
  tr->cfg.churn_count = c.churn_count ? c.churn_count : 32;
  tr->cfg.churn_window_ns = c.churn_window_ns ? c.churn_window_ns : 1000000000ull;
  tr->cfg.churn_bucket_ns = tr->cfg.churn_window_ns / UL__TRACK_CHURN_BUCKETS;
  if (!tr->cfg.churn_bucket_ns) tr->cfg.churn_bucket_ns = 1;
  tr->cfg.churn_min_avg_lifetime_ns =
      c.churn_min_avg_lifetime_ns ? c.churn_min_avg_lifetime_ns : 10000000ull;
  tr->cfg.backtraces = c.backtraces;
  tr->cfg.backtrace_depth = c.backtrace_depth ? c.backtrace_depth : 16;
  if (tr->cfg.backtrace_depth > UL__TRACK_MAX_FRAMES)
    tr->cfg.backtrace_depth = UL__TRACK_MAX_FRAMES;
  tr->cfg.report_max_live = c.report_max_live ? c.report_max_live : 1000;
  tr->stats.budget_bytes = c.budget_bytes;
  tr->free_head = UL__TRACK_NONE;
  uint64_t tl_bytes = c.timeline_bytes ? c.timeline_bytes : 2u << 20;
  tr->tl.cap = tl_bytes / sizeof(ul__tl_rec) > 1u << 24 ? 1u << 24 : (uint32_t)(tl_bytes / sizeof(ul__tl_rec));
  if (!tr->tl.cap) tr->tl.cap = 1;
  tr->tl.min_bytes = c.timeline_min_bytes ? c.timeline_min_bytes : 64u << 10;
  tr->tl.interval_ns = c.timeline_interval_ns ? c.timeline_interval_ns : 1000000ull;
  tr->tl.off = c.timeline_off;
  tr->tl.t0_ns = tr_now(tr);

  char *other = ul__strdup("(other labels)");
  if (!other || label_add_entry(tr, NULL, 0) != UL__TRACK_LABEL_UNLABELED ||
      label_add_entry(tr, other, 0) != UL__TRACK_LABEL_OTHER) {
    free(other);
    free(tr->labels);
    free(tr);
    return ul__fail(UL_ERR_OUT_OF_MEMORY, "create tracker: out of host memory");
  }
  atomic_init(&tr->mu, 0);
  *out = tr;
  return UL_OK;
}

void ul__track_destroy(ul__tracker *tr) {
  if (!tr) return;
  free(tr->tl.recs);
  for (uint32_t i = 0; i < tr->nrecs; i++) {
    ul__track_rec *r = &tr->recs[i];
    if (r->live) free(r->label_heap);
  }
  for (uint32_t i = 0; i < tr->nlabels; i++) free(tr->labels[i].label);
  free(tr->labels);
  free(tr->label_index.slots);
  free(tr->sites);
  free(tr->site_index.slots);
  free(tr->frames);
  free(tr->recs);
  free(tr);
}

void ul__track_set_budget(ul__tracker *tr, uint64_t bytes) {
  if (!tr) return;
  ul__track_lock(&tr->mu);
  tr->stats.budget_bytes = bytes;
  ul__track_unlock(&tr->mu);
}

/* ---- the timeline's events from other layers ---- */

void ul__track_note(ul__tracker *tr, uint64_t now, const ul__tl_event *ev) {
  if (!tr || !ev) return;
  if (!now) now = tr_now(tr);
  ul__track_lock(&tr->mu);
  ul__tl_push(tr, now, ev);
  ul__track_unlock(&tr->mu);
}

/* ---- budget ---- */

ul_status ul__track_reserve(ul__tracker *tr, const ul__track_desc *d) {
  if (!tr || !d)
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "reserve: tracker or descriptor is NULL");
  ul__track_lock(&tr->mu);
  uint64_t budget = tr->stats.budget_bytes;
  uint64_t live = tr->stats.total.live_bytes;
  uint64_t reserved = tr->stats.reserved_bytes;
  bool fits = budget == 0 ||
              (d->size <= budget && reserved <= budget - d->size &&
               live <= budget - d->size - reserved);
  if (fits) {
    tr->stats.reserved_bytes =
        reserved + d->size < reserved ? UINT64_MAX : reserved + d->size;
  } else {
    tr->stats.budget_refusals++;
  }
  ul__track_unlock(&tr->mu);
  if (fits) return UL_OK;
  /* The clock is read without the lock (see ul__track_config). */
  ul__track_note(tr, 0, &(ul__tl_event){.type = UL__TL_BUDGET, .kind = (uint8_t)d->kind, .bytes = d->size,
                                        .text = d->label});

  char b[32], l[32], r[32], q[32], res[48] = "";
  ul__track_fmt_bytes(b, sizeof b, budget);
  ul__track_fmt_bytes(l, sizeof l, live);
  ul__track_fmt_bytes(q, sizeof q, d->size);
  if (reserved) {
    ul__track_fmt_bytes(r, sizeof r, reserved);
    snprintf(res, sizeof res, " + reserved %s", r);
  }
  ul__track_sb what = {0};
  ul__track_sb_puts(&what, ul__track_kind_name(d->kind));
  if (d->label) {
    ul__track_sb_puts(&what, " '");
    ul__track_sb_text_str(&what, d->label);
    ul__track_sb_puts(&what, "'");
  }
  ul_status st = ul__fail(
      UL_ERR_OUT_OF_MEMORY, "budget %s exceeded: live %s%s + requested %s for %s at %s:%d",
      b, l, res, q, what.oom || !what.p ? ul__track_kind_name(d->kind) : what.p,
      ul__track_basename(d->site.file), d->site.line);
  ul__track_sb_free(&what);
  return st;
}

void ul__track_unreserve(ul__tracker *tr, uint64_t bytes) {
  if (!tr) return;
  ul__track_lock(&tr->mu);
  tr->stats.reserved_bytes -= UL__MIN(bytes, tr->stats.reserved_bytes);
  ul__track_unlock(&tr->mu);
}

/* ---- records ---- */

/* Pops a free slot, growing the arrays when none is left. */
static uint32_t slot_take(ul__tracker *tr) {
  if (tr->free_head != UL__TRACK_NONE) {
    uint32_t s = tr->free_head;
    tr->free_head = tr->recs[s].next_free;
    return s;
  }
  if (tr->nrecs == tr->cap) {
    if (tr->cap >= UINT32_MAX / 2) return UL__TRACK_NONE;
    uint32_t ncap = tr->cap ? tr->cap * 2 : 256;
    ul__track_rec *n = realloc(tr->recs, (size_t)ncap * sizeof *n);
    if (!n) return UL__TRACK_NONE;
    tr->recs = n;
    if (tr->cfg.backtraces) {
      void **f = realloc(tr->frames,
                         (size_t)ncap * tr->cfg.backtrace_depth * sizeof *f);
      if (!f) return UL__TRACK_NONE; /* recs stays larger; cap unchanged */
      tr->frames = f;
    }
    tr->cap = ncap;
  }
  uint32_t s = tr->nrecs++;
  tr->recs[s].gen = 1;
  return s;
}

static void slot_give_back(ul__tracker *tr, uint32_t s) {
  ul__track_rec *r = &tr->recs[s];
  r->live = 0;
  r->label_heap = NULL;
  r->has_label = 0;
  if (++r->gen == 0) r->gen = 1;
  r->next_free = tr->free_head;
  tr->free_head = s;
}

/* heap is the label's malloc'd copy when ln >= UL__TRACK_LABEL_INLINE. */
static void rec_set_label(ul__track_rec *r, const char *label, size_t ln, char *heap) {
  r->has_label = label != NULL;
  r->label_heap = heap;
  if (label && !heap) {
    memcpy(r->label_inline, label, ln);
    r->label_inline[ln] = '\0';
  }
}

static bool id_slot(const ul__tracker *tr, uint64_t id, uint32_t *slot) {
  uint64_t s = (id & 0xffffffffull);
  if (s == 0 || s > tr->nrecs) return false;
  const ul__track_rec *r = &tr->recs[s - 1];
  if (!r->live || r->gen != (uint32_t)(id >> 32)) return false;
  *slot = (uint32_t)(s - 1);
  return true;
}

ul_status ul__track_alloc(ul__tracker *tr, const ul__track_desc *d,
                          uint64_t *out_id) {
  if (out_id) *out_id = 0;
  if (!tr || !d || !out_id)
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "track alloc: NULL argument");
  if ((unsigned)d->kind >= UL__TRACK_KIND_COUNT)
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "track alloc: unknown kind %d",
                    (int)d->kind);

  size_t ln = d->label ? strnlen(d->label, UL__TRACK_LABEL_MAX) : 0;
  char *heap_label = NULL;
  if (d->label && ln >= UL__TRACK_LABEL_INLINE) {
    heap_label = malloc(ln + 1);
    if (!heap_label)
      return ul__fail(UL_ERR_OUT_OF_MEMORY, "track %s: out of host memory",
                      ul__track_kind_name(d->kind));
    memcpy(heap_label, d->label, ln);
    heap_label[ln] = '\0';
  }
  void *frames[UL__TRACK_MAX_FRAMES + 1];
  int nframes = 0;
  if (tr->cfg.backtraces) {
    nframes = backtrace(frames, (int)tr->cfg.backtrace_depth + 1) - 1;
    if (nframes < 0) nframes = 0;
  }
  uint64_t now = tr_now(tr);

  ul__track_lock(&tr->mu);
  uint32_t site = site_intern(tr, &d->site, (unsigned)d->kind);
  uint32_t slot = site == UL__TRACK_NONE ? UL__TRACK_NONE : slot_take(tr);
  if (slot == UL__TRACK_NONE) {
    ul__track_unlock(&tr->mu);
    free(heap_label);
    return ul__fail(UL_ERR_OUT_OF_MEMORY, "track %s: out of host memory",
                    ul__track_kind_name(d->kind));
  }
  uint32_t lg = label_intern(tr, d->label, ln);
  ul__track_rec *r = &tr->recs[slot];
  r->size = d->size;
  r->owner = d->owner;
  r->created_ns = now;
  rec_set_label(r, d->label, ln, heap_label);
  r->site = site;
  r->label_group = lg;
  r->kind = (uint8_t)d->kind;
  r->estimated = d->size_estimated;
  r->live = 1;
  r->nframes = (uint8_t)nframes;
  if (nframes)
    memcpy(&tr->frames[(size_t)slot * tr->cfg.backtrace_depth], frames + 1,
           (size_t)nframes * sizeof frames[0]);

  agg_add(&tr->stats.total, d->size);
  agg_add(&tr->stats.by_kind[d->kind], d->size);
  agg_add(&tr->sites[site].agg, d->size);
  tr->sites[site].last_label = lg;
  agg_add(&tr->labels[lg].agg, d->size);
  if (d->size_estimated) tr->stats.estimated_bytes += d->size;
  if (d->reserved)
    tr->stats.reserved_bytes -= UL__MIN(d->size, tr->stats.reserved_bytes);
  *out_id = ((uint64_t)r->gen << 32) | (uint64_t)(slot + 1);
  if (d->size >= tr->tl.min_bytes)
    ul__tl_push(tr, now, &(ul__tl_event){.type = UL__TL_CREATE, .kind = (uint8_t)d->kind, .bytes = d->size,
                                         .text = d->label});
  else if (d->size)
    ul__tl_changed(tr, now);
  ul__track_unlock(&tr->mu);
  return UL_OK;
}

ul_status ul__track_free(ul__tracker *tr, uint64_t id) {
  if (!tr) return ul__fail(UL_ERR_INVALID_ARGUMENT, "track free: tracker is NULL");
  if (id == 0) return UL_OK;
  uint64_t now = tr_now(tr);

  ul__track_lock(&tr->mu);
  uint32_t slot;
  if (!id_slot(tr, id, &slot)) {
    tr->stats.misuse++;
    ul__track_unlock(&tr->mu);
    ul__log(UL__LOG_WARN, "free of a stale, freed or unknown allocation record "
            "(id %#llx); ignored", (unsigned long long)id);
    return ul__fail(UL_ERR_INVALID_HANDLE,
                    "free allocation record %#llx: stale, freed or unknown",
                    (unsigned long long)id);
  }
  ul__track_rec *r = &tr->recs[slot];
  char *heap_label = r->label_heap;
  ul__track_site_ent *s = &tr->sites[r->site];
  agg_sub(&tr->stats.total, r->size);
  agg_sub(&tr->stats.by_kind[r->kind], r->size);
  agg_sub(&s->agg, r->size);
  agg_sub(&tr->labels[r->label_group].agg, r->size);
  if (r->estimated) tr->stats.estimated_bytes -= r->size;
  if (r->size >= tr->tl.min_bytes)
    ul__tl_push(tr, now, &(ul__tl_event){.type = UL__TL_DESTROY, .kind = r->kind, .bytes = r->size,
                                         .text = ul__track_rec_label(r)});
  else if (r->size)
    ul__tl_changed(tr, now);
  bool churn_now = ul__track_churn_on_free(&tr->cfg, &s->churn, s->agg.destroyed,
                                           r->created_ns, now);
  ul__track_site_ent churned;
  const char *churned_label = NULL;
  const ul__log_level lvl = r->kind == UL__TRACK_BIND_GROUP ? UL__LOG_INFO : UL__LOG_WARN;
  if (churn_now) {
    tr->stats.churning_sites++;
    churned = *s;
    churned_label = tr->labels[s->last_label].label; /* never freed before destroy */
    char where[UL__TL_TEXT];
    snprintf(where, sizeof where, "%s:%d%s%s", ul__track_basename(s->site.file), s->site.line,
             churned_label ? " " : "", churned_label ? churned_label : "");
    ul__tl_push(tr, now, &(ul__tl_event){.type = UL__TL_CHURN, .kind = r->kind, .text = where});
  }
  slot_give_back(tr, slot);
  ul__track_unlock(&tr->mu);

  free(heap_label);
  /* A bind group per dispatch is WebGPU's design for a program whose
   * buffers change from one dispatch to the next (ggml's backend does it):
   * counted and reported (churning_sites, the report's "churn"), told at
   * info level (lvl). Other kinds churning cost memory and time: a warning. */
  if (churn_now && ul__log_enabled(lvl)) {
    ul__track_sb sb = {0};
    ul__track_churn_hint(&sb, &tr->cfg, &churned, churned_label);
    if (!sb.oom && sb.p) ul__log(lvl, "churn: %s", sb.p);
    ul__track_sb_free(&sb);
  }
  return UL_OK;
}

ul_status ul__track_set_label(ul__tracker *tr, uint64_t id, const char *label) {
  if (!tr) return ul__fail(UL_ERR_INVALID_ARGUMENT, "set label: tracker is NULL");
  size_t ln = label ? strnlen(label, UL__TRACK_LABEL_MAX) : 0;
  char *heap_label = NULL;
  if (label && ln >= UL__TRACK_LABEL_INLINE) {
    heap_label = malloc(ln + 1);
    if (!heap_label) return ul__fail(UL_ERR_OUT_OF_MEMORY, "set label: out of host memory");
    memcpy(heap_label, label, ln);
    heap_label[ln] = '\0';
  }
  ul__track_lock(&tr->mu);
  uint32_t slot;
  if (!id_slot(tr, id, &slot)) {
    ul__track_unlock(&tr->mu);
    free(heap_label);
    return ul__fail(UL_ERR_INVALID_HANDLE,
                    "set label of allocation record %#llx: stale, freed or unknown",
                    (unsigned long long)id);
  }
  ul__track_rec *r = &tr->recs[slot];
  char *old = r->label_heap;
  /* Counted as destroyed under the old label and created under the new one,
   * so that live = created - destroyed holds for every label. */
  agg_sub(&tr->labels[r->label_group].agg, r->size);
  r->label_group = label_intern(tr, label, ln);
  agg_add(&tr->labels[r->label_group].agg, r->size);
  rec_set_label(r, label, ln, heap_label);
  ul__track_unlock(&tr->mu);
  free(old);
  return UL_OK;
}

bool ul__track_is_live(ul__tracker *tr, uint64_t id) {
  if (!tr) return false;
  ul__track_lock(&tr->mu);
  uint32_t slot;
  bool live = id_slot(tr, id, &slot);
  ul__track_unlock(&tr->mu);
  return live;
}

void ul__track_get_stats(ul__tracker *tr, ul__track_stats *out) {
  if (!out) return;
  if (!tr) {
    memset(out, 0, sizeof *out);
    return;
  }
  ul__track_lock(&tr->mu);
  *out = tr->stats;
  ul__track_unlock(&tr->mu);
}

/* ---- groups ---- */

static int group_cmp(const void *a, const void *b) {
  const ul__track_group *x = a, *y = b;
  if (x->agg.live_bytes != y->agg.live_bytes)
    return x->agg.live_bytes > y->agg.live_bytes ? -1 : 1;
  if (x->agg.created != y->agg.created)
    return x->agg.created > y->agg.created ? -1 : 1;
  return 0;
}

ul_status ul__track_groups(ul__tracker *tr, ul__track_group_by by,
                           ul__track_group **out, size_t *count) {
  if (out) *out = NULL;
  if (count) *count = 0;
  if (!tr || !out || !count ||
      (by != UL__TRACK_BY_SITE && by != UL__TRACK_BY_LABEL))
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "track groups: invalid argument");
  ul__track_lock(&tr->mu);
  size_t n = 0;
  size_t strbytes = 0;
  if (by == UL__TRACK_BY_SITE) {
    n = tr->nsites;
    for (uint32_t i = 0; i < tr->nsites; i++) {
      const char *l = tr->labels[tr->sites[i].last_label].label;
      if (l) strbytes += strlen(l) + 1;
    }
  } else {
    for (uint32_t i = 0; i < tr->nlabels; i++) {
      if (!tr->labels[i].agg.created) continue;
      n++;
      if (tr->labels[i].label) strbytes += strlen(tr->labels[i].label) + 1;
    }
  }
  ul__track_group *g = malloc(n * sizeof *g + strbytes + 1);
  if (!g) {
    ul__track_unlock(&tr->mu);
    return ul__fail(UL_ERR_OUT_OF_MEMORY, "track groups: out of host memory");
  }
  char *str = (char *)(g + n);
  size_t k = 0;
  uint32_t total = by == UL__TRACK_BY_SITE ? tr->nsites : tr->nlabels;
  for (uint32_t i = 0; i < total; i++) {
    const char *l;
    ul__track_group *e = &g[k];
    memset(e, 0, sizeof *e);
    if (by == UL__TRACK_BY_SITE) {
      const ul__track_site_ent *s = &tr->sites[i];
      e->site = s->site;
      e->kind = (ul__track_kind)s->kind;
      e->agg = s->agg;
      e->churning = s->churn.reason != UL__TRACK_CHURN_NONE;
      l = tr->labels[s->last_label].label;
    } else {
      if (!tr->labels[i].agg.created) continue;
      e->kind = UL__TRACK_OTHER;
      e->agg = tr->labels[i].agg;
      l = tr->labels[i].label;
    }
    if (l) {
      size_t len = strlen(l) + 1;
      memcpy(str, l, len);
      e->label = str;
      str += len;
    }
    k++;
  }
  ul__track_unlock(&tr->mu);
  qsort(g, n, sizeof *g, group_cmp);
  *out = g;
  *count = n;
  return UL_OK;
}
