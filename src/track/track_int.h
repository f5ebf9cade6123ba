/* Internal to src/track/: the tracker's state, shared by track.c (records,
 * aggregates, budget), churn.c, fmt.c and report.c. */
#ifndef UL_TRACK_INT_H
#define UL_TRACK_INT_H

#include "track.h"
#include "timeline.h"

#define UL__TRACK_LABEL_INLINE 24   /* labels shorter than this need no malloc */
#define UL__TRACK_LABEL_MAX 1023    /* longer labels are cut */
#define UL__TRACK_MAX_LABELS 4096   /* distinct label groups kept */
#define UL__TRACK_MAX_FRAMES 64
#define UL__TRACK_CHURN_BUCKETS 16
#define UL__TRACK_NONE UINT32_MAX

/* Label groups 0 and 1 always exist. */
#define UL__TRACK_LABEL_UNLABELED 0u
#define UL__TRACK_LABEL_OTHER 1u

/* One slot of the record array. A record id is (gen << 32) | (slot + 1), so
 * 0 is never an id and a freed slot's old ids stop matching. */
typedef struct ul__track_rec {
  uint64_t size;
  uint64_t owner;
  uint64_t created_ns;
  char *label_heap; /* the label when it does not fit label_inline */
  uint32_t gen;
  uint32_t next_free; /* free-list link while the slot is free */
  uint32_t site;      /* index into tr->sites */
  uint32_t label_group;
  uint8_t kind;
  uint8_t estimated;
  uint8_t live;
  uint8_t nframes;
  uint8_t has_label;
  char label_inline[UL__TRACK_LABEL_INLINE];
} ul__track_rec;

/* The record's label, NULL for none. Inline labels are found through the
 * record, never through a stored pointer: the record array moves. */
static inline const char *ul__track_rec_label(const ul__track_rec *r) {
  if (!r->has_label) return NULL;
  return r->label_heap ? r->label_heap : r->label_inline;
}

typedef enum ul__track_churn_reason {
  UL__TRACK_CHURN_NONE = 0,
  UL__TRACK_CHURN_WINDOW = 1,   /* too many short lives within one window */
  UL__TRACK_CHURN_LIFETIME = 2, /* short average lifetime */
} ul__track_churn_reason;

/* Sliding-window churn counter of one call site (churn.c). */
typedef struct ul__track_churn {
  uint64_t bucket_no; /* number of the newest bucket (time / bucket width) */
  uint32_t buckets[UL__TRACK_CHURN_BUCKETS];
  uint32_t in_window;     /* short lives ended within the current window */
  uint32_t max_in_window; /* highest in_window seen */
  uint64_t short_lived;   /* objects destroyed within a window of creation */
  uint64_t lifetime_sum_ns;
  uint8_t reason; /* ul__track_churn_reason; sticky once set */
} ul__track_churn;

typedef struct ul__track_site_ent {
  ul__track_site site;
  uint8_t kind;
  uint32_t last_label; /* label group of the newest object */
  ul__track_agg agg;
  ul__track_churn churn;
} ul__track_site_ent;

typedef struct ul__track_label_ent {
  char *label; /* owned; NULL for the unlabeled group; never moves */
  uint64_t hash;
  ul__track_agg agg;
} ul__track_label_ent;

/* Open-addressed index: slots hold entry index + 1, 0 is empty. */
typedef struct ul__track_index {
  uint32_t *slots;
  uint32_t cap; /* power of two */
} ul__track_index;

/* One record of the timeline ring (256 bytes). */
#define UL__TL_TEXT 96
typedef struct ul__tl_rec {
  uint64_t t_ns;
  uint8_t type, kind;
  uint64_t bytes, dur_ns, number;
  uint32_t phase_us[5];                    /* RECOVERY: ul__tl_phases in us */
  uint64_t kind_bytes[UL__TRACK_KIND_COUNT]; /* SAMPLE: live bytes per kind */
  char text[UL__TL_TEXT];
} ul__tl_rec;
_Static_assert(sizeof(ul__tl_rec) == 256, "a timeline record is 256 bytes (the ring is sized in them)");

typedef struct ul__tl {
  ul__tl_rec *recs; /* allocated at the first record */
  uint32_t cap;     /* records */
  uint64_t head;    /* records ever written; the newest is (head-1) % cap */
  uint64_t interval_ns, min_bytes;
  uint64_t last_sample_ns;
  uint64_t t0_ns;   /* the tracker's creation */
  bool off, dirty, failed;
} ul__tl;

/* ---- timeline.c (called with tr->mu held; calls nothing outside) ---- */
struct ul__tracker;
/* Writes one event (a sample first when live bytes changed since the last). */
void ul__tl_push(struct ul__tracker *tr, uint64_t now, const ul__tl_event *ev);
/* After a create or destroy: a sample when the last is interval_ns old. */
void ul__tl_changed(struct ul__tracker *tr, uint64_t now);
/* The ring's records, oldest first, copied into *out (malloc'd; NULL with
 * *n 0 when empty); *dropped gets how many were overwritten. */
void ul__tl_copy(struct ul__tracker *tr, ul__tl_rec **out, size_t *n, uint64_t *dropped);

typedef struct ul__track_cfg {
  uint64_t (*now_ns)(void *user);
  void *clock_user;
  uint32_t churn_count;
  uint64_t churn_window_ns;
  uint64_t churn_bucket_ns;
  uint64_t churn_min_avg_lifetime_ns;
  bool backtraces;
  uint32_t backtrace_depth;
  uint32_t report_max_live;
} ul__track_cfg;

/* The tracker's lock: a futex word, 0 free, 1 held, 2 held with a waiter
 * (the classic three-state futex mutex). Uncontended, a lock and an unlock
 * are one atomic operation each; pthread_mutex_lock and unlock were 55 of
 * the 670 instructions of a create and destroy under callgrind, twice. */
void ul__track_lock_slow(_Atomic int *w);
void ul__track_unlock_wake(_Atomic int *w);
static inline void ul__track_lock(_Atomic int *w) {
  int free_ = 0;
  if (!atomic_compare_exchange_strong_explicit(w, &free_, 1, memory_order_acquire, memory_order_relaxed))
    ul__track_lock_slow(w);
}
static inline void ul__track_unlock(_Atomic int *w) {
  if (atomic_exchange_explicit(w, 0, memory_order_release) == 2) ul__track_unlock_wake(w);
}

struct ul__tracker {
  _Atomic int mu; /* leaf lock (ul__track_lock): nothing outside the tracker is called under it */
  ul__track_cfg cfg;

  ul__track_rec *recs;
  uint32_t nrecs; /* slots ever used */
  uint32_t cap;
  uint32_t free_head;
  void **frames; /* cap * backtrace_depth, when backtraces are on */

  ul__track_site_ent *sites;
  uint32_t nsites, sites_cap;
  ul__track_index site_index;

  ul__track_label_ent *labels;
  uint32_t nlabels, labels_cap;
  ul__track_index label_index;
  /* The site and the label group of the last alloc: a program creates
   * from a few places, often the same one many times in a row, and these
   * skip the hashes and the probes then (under mu). */
  uint32_t last_site, last_label; /* UL__TRACK_NONE: none yet */
  size_t last_label_len;

  ul__track_stats stats;
  ul__tl tl;
};

/* ---- churn.c (called with tr->mu held; calls nothing outside) ---- */
/* Accounts one destroyed object of site s; returns true when this made the
 * site churning for the first time. */
bool ul__track_churn_on_free(const ul__track_cfg *cfg, ul__track_churn *c,
                             uint64_t destroyed, uint64_t created_ns,
                             uint64_t now_ns);
/* Average lifetime in ns of the destroyed objects (0 when none). */
uint64_t ul__track_churn_avg_lifetime(const ul__track_churn *c,
                                      uint64_t destroyed);

/* ---- fmt.c (the string builder is in track.h) ---- */
/* "512 B", "4.0 KiB", "64.0 MiB", "1.5 GiB". */
void ul__track_fmt_bytes(char *buf, size_t n, uint64_t bytes);
/* "0.4 ms", "3.2 s", "5.0 min", "2.0 h". */
void ul__track_fmt_duration(char *buf, size_t n, uint64_t ns);
/* The part of a path after its last '/'; "?" for NULL. */
const char *ul__track_basename(const char *file);

/* The hint of a churning site:
 * "buffer created and destroyed 100 times in 1.0 s at frame.c:42 (uniforms);
 * reuse it, or use ul_ring / ul_buffer_pool". */
void ul__track_churn_hint(ul__track_sb *sb, const ul__track_cfg *cfg,
                          const ul__track_site_ent *s, const char *label);

#endif
