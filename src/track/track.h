/* Internal to unlost: the allocation tracker ("every byte is accounted").
 *
 * One tracker per device. The resource layer calls it on every create and
 * destroy; the tracker never calls WebGPU. It records each live object (kind,
 * size, label, call site, age, optional backtrace, owner key), keeps live,
 * peak and total aggregates per kind, per label and per call site, refuses
 * allocations over an optional budget before the driver is asked, detects
 * churn (objects created and destroyed over and over at one call site), and
 * writes leak reports in text and JSON.
 *
 * Threads: every function may be called from any thread. The tracker's mutex
 * is a leaf lock: while it is held the tracker calls nothing outside itself
 * (not the clock, not the log, not a user callback), so it may be taken while
 * any other unlost lock is held.
 *
 * Typical use by the resource layer:
 *
 *   ul__track_desc d = {UL__TRACK_BUFFER, size, false, label, site, handle_id};
 *   if ((st = ul__track_reserve(tr, &d)) != UL_OK) return st;   // budget
 *   native = wgpuDeviceCreateBuffer(...);
 *   if (!native) { ul__track_unreserve(tr, d.size); return ...; }
 *   d.reserved = true;
 *   if ((st = ul__track_alloc(tr, &d, &rec)) != UL_OK) { ...release native... }
 *   ...
 *   ul__track_free(tr, rec);                                     // on destroy
 */
#ifndef UL_TRACK_H
#define UL_TRACK_H

#include "internal.h"
#include "timeline.h"

/* X(NAME, "text"): the kinds of object the tracker records. */
#define UL__TRACK_KIND_MAP(X)                     \
  X(BUFFER, "buffer")                             \
  X(TEXTURE, "texture")                           \
  X(TEXTURE_VIEW, "texture view")                 \
  X(SAMPLER, "sampler")                           \
  X(SHADER_MODULE, "shader module")               \
  X(BIND_GROUP_LAYOUT, "bind group layout")       \
  X(PIPELINE_LAYOUT, "pipeline layout")           \
  X(COMPUTE_PIPELINE, "compute pipeline")         \
  X(BIND_GROUP, "bind group")                     \
  X(COMMAND_LIST, "command list")                 \
  X(QUERY_SET, "query set")                       \
  X(OTHER, "other")

typedef enum ul__track_kind {
#define UL__TRACK_KIND_ENUM(name, text) UL__TRACK_##name,
  UL__TRACK_KIND_MAP(UL__TRACK_KIND_ENUM)
#undef UL__TRACK_KIND_ENUM
  UL__TRACK_KIND_COUNT
} ul__track_kind;

/* "buffer", "texture view", ...; "unknown" outside the list. Static text. */
const char *ul__track_kind_name(ul__track_kind kind);

/* Where an object was created. file and function are borrowed pointers to
 * static strings (__FILE__, __func__) and are stored, never copied; either
 * may be NULL (reported as "?"). */
typedef struct ul__track_site {
  const char *file;
  int line;
  const char *function;
} ul__track_site;

#define UL__TRACK_HERE ((ul__track_site){__FILE__, __LINE__, __func__})

typedef struct ul__track_config {
  /* Clock in nanoseconds; NULL means ul__now_coarse_ns() (CLOCK_MONOTONIC
   * at ms precision). Called without the tracker's lock held. */
  uint64_t (*now_ns)(void *user);
  void *clock_user;
  /* Budget in bytes for all live (and reserved) objects; 0 means none. */
  uint64_t budget_bytes;
  /* A call site churns when more than churn_count (0 means 32) of its
   * objects, each destroyed within churn_window_ns (0 means 1 s) of its
   * creation, are destroyed within one window; or when more than churn_count
   * of its objects were destroyed and they lived less than
   * churn_min_avg_lifetime_ns on average (0 means 10 ms; 1 turns this rule
   * off). Windows are measured in 16 buckets, so to 1/16 of a window. */
  uint32_t churn_count;
  uint64_t churn_window_ns;
  uint64_t churn_min_avg_lifetime_ns;
  /* Capture a backtrace per object (glibc backtrace(); symbolized only when
   * a report is written). Costs about a microsecond per allocation. */
  bool backtraces;
  /* Frames kept per object; 0 means 16, at most 64. */
  uint32_t backtrace_depth;
  /* Live objects listed in a report, largest first; 0 means 1000. The rest
   * are counted as "live_omitted". */
  uint32_t report_max_live;
  /* The timeline (timeline.h): its ring in bytes (0 means 2 MiB; at least
   * one record of 256 bytes), the smallest object whose create and destroy
   * are events (0 means 64 KiB), the shortest time between two samples of
   * live bytes (0 means 1 ms), and whether it is off. */
  uint64_t timeline_bytes;
  uint64_t timeline_min_bytes;
  uint64_t timeline_interval_ns;
  bool timeline_off;
} ul__track_config;

/* What the resource layer knows about an object it creates. */
typedef struct ul__track_desc {
  ul__track_kind kind;
  uint64_t size;          /* bytes */
  bool size_estimated;    /* true for textures: size computed, not allocated */
  const char *label;      /* borrowed, copied; NULL for none; cut at 1023 B */
  ul__track_site site;
  uint64_t owner;         /* opaque key of the resource layer (handle id) */
  /* ul__track_reserve succeeded for this size: alloc turns the reservation
   * into a live object instead of adding to the reservation. */
  bool reserved;
} ul__track_desc;

/* Counts of one group of objects (all, a kind, a label or a call site). */
typedef struct ul__track_agg {
  uint64_t live_objects, live_bytes;
  uint64_t peak_objects, peak_bytes; /* highest live values seen */
  uint64_t created, destroyed;
  uint64_t created_bytes, destroyed_bytes;
} ul__track_agg;

/* Totals for the public API to copy out. */
typedef struct ul__track_stats {
  ul__track_agg total;
  ul__track_agg by_kind[UL__TRACK_KIND_COUNT];
  uint64_t budget_bytes;      /* 0: none */
  uint64_t reserved_bytes;    /* reserved, not yet allocated or unreserved */
  uint64_t estimated_bytes;   /* part of total.live_bytes that is estimated */
  uint64_t budget_refusals;   /* ul__track_reserve calls refused */
  uint64_t misuse;            /* frees of a zero-generation, stale or freed id */
  uint64_t churning_sites;    /* call sites found churning so far */
} ul__track_stats;

/* ---- a string builder for reports (fmt.c), also used by the layers
 * above for their parts of the report ---- */
typedef struct ul__track_sb {
  char *p;
  size_t len, cap;
  bool oom;
} ul__track_sb;

void ul__track_sb_puts(ul__track_sb *sb, const char *s);
void ul__track_sb_putn(ul__track_sb *sb, const char *s, size_t n);
void ul__track_sb_printf(ul__track_sb *sb, const char *fmt, ...) UL__PRINTF(2, 3);
/* s as a JSON string with its quotes, or null for NULL. Control characters
 * and invalid UTF-8 bytes become \u escapes (U+FFFD for invalid bytes). */
void ul__track_sb_json_str(ul__track_sb *sb, const char *s);
/* s for a text line: the same escapes without the quotes, so that a label
 * cannot break or forge a report line. */
void ul__track_sb_text_str(ul__track_sb *sb, const char *s);
/* Hands the text over (never NULL unless sb->oom) and resets sb. */
char *ul__track_sb_take(ul__track_sb *sb);
void ul__track_sb_free(ul__track_sb *sb);

typedef struct ul__tracker ul__tracker;

/* Creates a tracker; cfg may be NULL (all defaults). *out is set to NULL on
 * failure. UL_ERR_INVALID_ARGUMENT, UL_ERR_OUT_OF_MEMORY. */
ul_status ul__track_create(const ul__track_config *cfg, ul__tracker **out);
/* Frees the tracker and every record; reports nothing (write the report
 * first). NULL is a no-op. No other call may be in flight. */
void ul__track_destroy(ul__tracker *tr);

/* Sets the budget (0: none). Objects already live are kept. */
void ul__track_set_budget(ul__tracker *tr, uint64_t bytes);

/* Checks d->size against the budget and, when it fits, reserves it until
 * ul__track_alloc (with d->reserved) or ul__track_unreserve. Without a budget
 * it reserves and succeeds. UL_ERR_OUT_OF_MEMORY with a message such as
 * "budget 64.0 MiB exceeded: live 60.0 MiB + requested 8.0 MiB for buffer
 * 'weights' at file.c:12"; UL_ERR_INVALID_ARGUMENT. */
ul_status ul__track_reserve(ul__tracker *tr, const ul__track_desc *d);
/* Returns a reservation whose object was not created. */
void ul__track_unreserve(ul__tracker *tr, uint64_t bytes);

/* Records a live object; *out_id gets its record id (never 0), or 0 on
 * failure. Does not check the budget (ul__track_reserve does).
 * UL_ERR_OUT_OF_MEMORY (host memory), UL_ERR_INVALID_ARGUMENT. */
ul_status ul__track_alloc(ul__tracker *tr, const ul__track_desc *d,
                          uint64_t *out_id);
/* Forgets a live object. id 0 is a no-op (UL_OK). A stale, freed or foreign
 * id is counted as misuse, logged, and answered UL_ERR_INVALID_HANDLE. */
ul_status ul__track_free(ul__tracker *tr, uint64_t id);
/* Replaces the label of a live object (NULL: none). UL_ERR_INVALID_HANDLE,
 * UL_ERR_OUT_OF_MEMORY. */
ul_status ul__track_set_label(ul__tracker *tr, uint64_t id, const char *label);
/* True when id names a live record. */
bool ul__track_is_live(ul__tracker *tr, uint64_t id);

/* Writes an event of another layer (a loss, a recovery, a checkpoint, a
 * health transition, a move) into the timeline, on the tracker's clock
 * (`now` 0: now; the layers above pass 0, so that the ring stays in time
 * order). */
void ul__track_note(ul__tracker *tr, uint64_t now, const struct ul__tl_event *ev);

/* Copies the totals. */
void ul__track_get_stats(ul__tracker *tr, ul__track_stats *out);

/* One group of ul__track_groups. Strings point into the same allocation as
 * the array; label is NULL for unlabeled objects. For BY_SITE, kind and label
 * are those of the site's last object; for BY_LABEL, site is zero and kind
 * is UL__TRACK_OTHER. Sites are told apart by their file and function
 * pointers, line and kind. */
typedef struct ul__track_group {
  ul__track_site site;
  ul__track_kind kind;
  const char *label;
  ul__track_agg agg;
  bool churning;
} ul__track_group;

typedef enum ul__track_group_by {
  UL__TRACK_BY_SITE,
  UL__TRACK_BY_LABEL,
} ul__track_group_by;

/* Every group seen so far (groups with nothing live are kept), largest live
 * bytes first. *out is one malloc'd block: free it with free(). Labels beyond
 * the 4096th distinct one are counted under the label "(other labels)".
 * UL_ERR_OUT_OF_MEMORY, UL_ERR_INVALID_ARGUMENT. */
ul_status ul__track_groups(ul__tracker *tr, ul__track_group_by by,
                           ul__track_group **out, size_t *count);

/* Leak report as text, one line per live object, like
 * "UNFREED buffer 'weights' 4.0 MiB created at model.c:88 in load_model, 3.2 s ago",
 * then churn warnings. *out is malloc'd; the caller frees it with free(). */
ul_status ul__track_report_text(ul__tracker *tr, char **out);
/* The same report as one JSON object (see docs in report.c). *out is
 * malloc'd; the caller frees it with free(). */
ul_status ul__track_report_json(ul__tracker *tr, char **out);
/* Writes the JSON report to path atomically (a temporary file in the same
 * folder, then rename), e.g. for UNLOST_REPORT=path.json. UL_ERR_IO. */
ul_status ul__track_write_json(ul__tracker *tr, const char *path);
/* The same with `extra` (NULL or members of one JSON object, without the
 * braces, e.g. "\"losses\":[...]") added to the report's object. */
ul_status ul__track_report_json_ex(ul__tracker *tr, const char *extra, char **out);
ul_status ul__track_write_json_ex(ul__tracker *tr, const char *extra, const char *path);

#endif
