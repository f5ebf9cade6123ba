/* Internal to unlost: the health monitor of one device — a sliding window of
 * outcomes and latencies, a log-bucket latency histogram, and a breaker that
 * moves the device between HEALTHY, DEGRADED, BROKEN and HALF_OPEN. Pure
 * logic: it never calls WebGPU; the device layer feeds it outcomes.
 *
 * Files: window.c (time-bucket window), histogram.c (log-bucket histogram),
 * breaker.c (the monitor, its state machine and its lock), metrics.c
 * (Prometheus text 0.0.4 and JSON).
 *
 * Threads: every ul__health_* call on a monitor may come from any thread. Each
 * monitor has one mutex, a leaf lock (nothing else is locked while it is
 * held). The listener and the evict callback run after that mutex is
 * released, so they may call back into the monitor. */
#ifndef UL_HEALTH_H
#define UL_HEALTH_H

#include "internal.h"

/* ---- outcomes and operations --------------------------------------------- */

/* X(name, text). How each counts:
 *   OK            success; breaks a run of consecutive losses.
 *   VALIDATION    a program bug: counted in totals, never against health.
 *   OUT_OF_MEMORY memory pressure: first asks the owner to evict its pools
 *                 (UL__HEALTH_ACTION_EVICT); counted only when it recurs
 *                 before a success. A counted OOM makes the device DEGRADED.
 *   INTERNAL, LOSS, TIMEOUT  device faults (the fault rate's numerator);
 *                 LOSS and TIMEOUT also extend the run of consecutive losses. */
#define UL__HEALTH_OUTCOME_MAP(X) \
  X(OK, "ok")                     \
  X(VALIDATION, "validation")     \
  X(OUT_OF_MEMORY, "out_of_memory") \
  X(INTERNAL, "internal")         \
  X(LOSS, "loss")                 \
  X(TIMEOUT, "timeout")

typedef enum ul__health_outcome {
#define UL__HEALTH_OUTCOME_ENUM(name, text) UL__HEALTH_##name,
  UL__HEALTH_OUTCOME_MAP(UL__HEALTH_OUTCOME_ENUM)
#undef UL__HEALTH_OUTCOME_ENUM
  UL__HEALTH_OUTCOME_COUNT
} ul__health_outcome;

#define UL__HEALTH_OP_MAP(X) \
  X(SUBMIT, "submit")        \
  X(READ, "read")            \
  X(WRITE, "write")

typedef enum ul__health_op {
#define UL__HEALTH_OP_ENUM(name, text) UL__HEALTH_OP_##name,
  UL__HEALTH_OP_MAP(UL__HEALTH_OP_ENUM)
#undef UL__HEALTH_OP_ENUM
  UL__HEALTH_OP_COUNT
} ul__health_op;

/* Values are what unlost_device_state reports (HALF_OPEN reports as BROKEN
 * there; unlost_breaker_state tells them apart). */
#define UL__HEALTH_STATE_MAP(X) \
  X(HEALTHY, 0, "HEALTHY")      \
  X(DEGRADED, 1, "DEGRADED")    \
  X(BROKEN, 2, "BROKEN")        \
  X(HALF_OPEN, 3, "HALF_OPEN")

typedef enum ul__health_state {
#define UL__HEALTH_STATE_ENUM(name, value, text) UL__HEALTH_##name = value,
  UL__HEALTH_STATE_MAP(UL__HEALTH_STATE_ENUM)
#undef UL__HEALTH_STATE_ENUM
  UL__HEALTH_STATE_COUNT
} ul__health_state;

/* Static text; "?" for a value outside the list. */
const char *ul__health_outcome_name(ul__health_outcome o);
const char *ul__health_op_name(ul__health_op op);
const char *ul__health_state_name(ul__health_state s);
/* "closed" (HEALTHY, DEGRADED), "open" (BROKEN), "half_open". */
const char *ul__health_breaker_name(ul__health_state s);
/* 0 closed, 1 open, 2 half_open (resilience4j's numbering). */
int ul__health_breaker_code(ul__health_state s);

/* Flags for begin/record. */
enum {
  /* First use of a pipeline (the call compiles it): counted as an outcome,
   * kept out of latency, slow-call and histogram data. */
  UL__HEALTH_FIRST_USE = 1u << 0,
};

/* Actions a record asks of its caller (also delivered to the evict callback). */
enum {
  UL__HEALTH_ACTION_EVICT = 1u << 0, /* evict pools and retry: OOM not yet counted */
};

/* ul__health_allow's answer. */
typedef enum ul__health_decision {
  UL__HEALTH_ALLOW = 0,  /* closed: go ahead */
  UL__HEALTH_PROBE = 1,  /* half-open: go ahead, this call is a probe */
  UL__HEALTH_REJECT = 2, /* open: fail fast (UL_ERR_BREAKER_OPEN) or use the fallback */
} ul__health_decision;

/* ---- log-bucket latency histogram (histogram.c) --------------------------
 * Bucket 0 holds the value 0; bucket i >= 1 holds [2^((i-1)/8), 2^(i/8)) ns.
 * A percentile is the nearest-rank value's bucket, reported as its geometric
 * midpoint, clamped to the exact min and max seen. For any value below
 * UL__HIST_MAX_NS the reported percentile is within 2^(1/16) - 1 = 4.43 %
 * (UL__HIST_REL_ERROR) of the exact nearest-rank percentile. Values at or
 * above UL__HIST_MAX_NS (2^40 ns, about 18 minutes) share the last bucket. */
#define UL__HIST_SUB 8 /* buckets per doubling */
#define UL__HIST_OCTAVES 40
#define UL__HIST_BUCKETS (1 + UL__HIST_SUB * UL__HIST_OCTAVES)
#define UL__HIST_MAX_NS (1ull << UL__HIST_OCTAVES)
#define UL__HIST_REL_ERROR 0.0443 /* 2^(1/16) - 1 = 0.04427... */

typedef struct ul__health_hist {
  uint64_t count;
  uint64_t min_ns, max_ns; /* exact; min is UINT64_MAX when empty */
  double sum_ns;
  uint32_t buckets[UL__HIST_BUCKETS];
} ul__health_hist;

void ul__health_hist_clear(ul__health_hist *hist);
void ul__health_hist_add(ul__health_hist *hist, uint64_t ns);
void ul__health_hist_merge(ul__health_hist *into, const ul__health_hist *from);
/* Bucket index of a value, and a bucket's bounds [lo, hi) in ns (reals). */
size_t ul__health_hist_index(uint64_t ns);
void ul__health_hist_bounds(size_t index, double *lo, double *hi);
/* Nearest-rank percentile, q in (0, 1]; 0 when empty. */
uint64_t ul__health_hist_percentile(const ul__health_hist *hist, double q);

/* Fixed-bound histogram in seconds, as Prometheus wants it. counts[i] is the
 * number of values <= le[i] and > le[i-1] (not cumulative); counts[n_le] the
 * number above the last bound (the +Inf bucket's own share). */
#define UL__PROM_MAX_LE 24
typedef struct ul__prom_hist {
  size_t n_le;
  double le[UL__PROM_MAX_LE];
  uint64_t counts[UL__PROM_MAX_LE + 1];
  double sum; /* seconds */
  uint64_t count;
} ul__prom_hist;

/* Empties `hist` and sets its bounds: `le` ascending, at most UL__PROM_MAX_LE;
 * le == NULL (or n == 0) takes the default latency bounds (100 us .. 10 s).
 * UL_ERR_INVALID_ARGUMENT for too many or unsorted bounds. */
ul_status ul__prom_hist_init(ul__prom_hist *hist, const double *le, size_t n);
void ul__prom_hist_observe(ul__prom_hist *hist, double seconds);

/* ---- sliding time-bucket window (window.c) -------------------------------
 * bucket_count buckets of bucket_ns each; a bucket older than the window
 * rolls off as time moves forward. Time only moves forward: an event older
 * than the window is dropped, one in an earlier live bucket lands there. */
typedef struct ul__health_wbucket {
  uint64_t epoch; /* t / bucket_ns + 1; 0 = empty */
  uint32_t outcomes[UL__HEALTH_OUTCOME_COUNT];
  uint32_t slow;  /* calls slower than the slow threshold */
  uint32_t timed; /* calls with a latency (not first use) */
  ul__health_hist lat[UL__HEALTH_OP_COUNT];
} ul__health_wbucket;

typedef struct ul__health_window {
  uint32_t bucket_count;
  uint64_t bucket_ns;
  ul__health_wbucket *buckets; /* owned */
} ul__health_window;

typedef struct ul__health_window_sum {
  uint64_t outcomes[UL__HEALTH_OUTCOME_COUNT];
  uint64_t slow, timed;
  uint64_t calls;  /* outcomes that count: all but VALIDATION */
  uint64_t faults; /* INTERNAL + LOSS + TIMEOUT */
} ul__health_window_sum;

ul_status ul__health_window_init(ul__health_window *w, uint32_t bucket_count, uint64_t bucket_ns);
void ul__health_window_free(ul__health_window *w);
void ul__health_window_clear(ul__health_window *w);
/* latency_ns is used only when `timed`; slow says latency > slow threshold. */
void ul__health_window_add(ul__health_window *w, uint64_t t_ns, ul__health_op op,
                           ul__health_outcome o, bool timed, uint64_t latency_ns, bool slow);
void ul__health_window_totals(const ul__health_window *w, uint64_t now_ns, ul__health_window_sum *out);
/* Latency histogram of one operation over the live buckets. */
void ul__health_window_hist(const ul__health_window *w, uint64_t now_ns, ul__health_op op,
                            ul__health_hist *out);

/* ---- the monitor (breaker.c) -------------------------------------------- */

typedef uint64_t (*ul__health_clock_fn)(void *user);

/* A time argument of UL__HEALTH_NOW reads the monitor's clock. */
#define UL__HEALTH_NOW UINT64_MAX

typedef struct ul__health_event {
  uint64_t seq; /* per monitor, from 1: orders events delivered on several threads */
  ul__health_state from, to;
  uint64_t t_ns;
  uint32_t trips;     /* trip level after the transition */
  uint64_t wait_ns;   /* on entering BROKEN: the open wait before probing */
  char reason[112];
} ul__health_event;

/* Called after the monitor's lock is released; may call into the monitor. */
typedef void (*ul__health_listener_fn)(void *user, const ul__health_event *ev);
/* Asked once per memory-pressure episode to evict pools (outside the lock). */
typedef void (*ul__health_evict_fn)(void *user);

/* Zero fields take the defaults written next to them. */
typedef struct ul__health_config {
  uint32_t window_buckets;      /* 10 */
  uint64_t bucket_ns;           /* 1 s: a 10 s window */
  uint32_t min_calls;           /* 20: rates count once the window has this many */
  uint64_t slow_ns;             /* 200 ms: a call slower than this is slow */
  double slow_enter;            /* 0.05: > 5 % slow (P95 above slow_ns) -> DEGRADED */
  double slow_exit;             /* 0.025: <= 2.5 % slow to leave DEGRADED */
  double fault_degraded_enter;  /* 0.05: fault rate >= 5 % -> DEGRADED */
  double fault_degraded_exit;   /* 0.01: <= 1 % to leave DEGRADED */
  double fault_broken;          /* 0.5: fault rate >= 50 % -> BROKEN */
  uint32_t consecutive_losses;  /* 3: this many LOSS/TIMEOUT in a row -> BROKEN */
  double memory_enter;          /* 0.9 of the budget -> DEGRADED */
  double memory_exit;           /* 0.8 of the budget to leave it */
  uint64_t open_wait_ns;        /* 1 s: first open wait; doubles per repeated trip */
  uint64_t open_wait_max_ns;    /* 60 s: cap of the open wait */
  double jitter;                /* 0.2: wait x [1 - jitter, 1 + jitter), then capped; <0 = none */
  uint32_t probes;              /* 3: successful probes to close */
  uint64_t trip_decay_ns;       /* 60 s closed lowers the trip level by one */
  uint64_t deadline_ns;         /* 2 s: a submission pending longer is overdue */
  uint32_t max_pending;         /* 4096 unfinished serials */
  uint64_t seed;                /* jitter PRNG seed; 0 = a fixed default */
  ul__health_clock_fn clock;    /* NULL = ul__now_ns */
  void *clock_user;
  ul__health_listener_fn listener; /* may be NULL */
  void *listener_user;
  ul__health_evict_fn evict;    /* may be NULL: then only the action flag asks */
  void *evict_user;
} ul__health_config;

typedef struct ul__health ul__health;

typedef struct ul__health_latency {
  uint64_t count; /* timed calls in the window */
  uint64_t p50_ns, p95_ns, p99_ns, max_ns;
} ul__health_latency;

typedef struct ul__health_snapshot {
  ul__health_state state;
  uint64_t now_ns;
  uint64_t state_since_ns, time_in_state_ns;
  uint32_t trips;            /* trip level: sets the open wait; decays */
  uint64_t trips_total;      /* every trip to BROKEN, ever */
  uint64_t open_until_ns;    /* BROKEN: when probing may start */
  uint32_t consecutive_losses;
  ul__health_window_sum window;
  double fault_rate, slow_rate; /* over window.calls / window.timed; 0 if none */
  ul__health_latency latency[UL__HEALTH_OP_COUNT]; /* over the window */
  uint64_t totals[UL__HEALTH_OUTCOME_COUNT];       /* since creation */
  uint64_t total_calls;
  uint64_t pending;
  uint64_t memory_used, memory_budget;
  ul__prom_hist seconds[UL__HEALTH_OP_COUNT]; /* since creation, default bounds */
  char reason[112];          /* reason of the last transition */
} ul__health_snapshot;

/* Creates a monitor in HEALTHY. `cfg` may be NULL (all defaults); it is
 * copied. UL_ERR_INVALID_ARGUMENT for inconsistent thresholds,
 * UL_ERR_OUT_OF_MEMORY. *out is set only on success. */
ul_status ul__health_create(const ul__health_config *cfg, ul__health **out);
/* Accepts NULL. No callback runs after it returns. */
void ul__health_destroy(ul__health *h);
/* The monitor's clock. */
uint64_t ul__health_now(ul__health *h);

/* A submission `serial` (unique among pending ones) started at t_ns;
 * deadline_ns 0 = config's. UL_ERR_INVALID_ARGUMENT for a serial already
 * pending or a bad op, UL_ERR_BUSY when max_pending are unfinished. */
ul_status ul__health_begin(ul__health *h, uint64_t serial, ul__health_op op,
                           unsigned flags, uint64_t deadline_ns, uint64_t t_ns);
/* Attributes the outcome of `serial`, latency t_ns - begin. *actions (may be
 * NULL) gets UL__HEALTH_ACTION_* bits. UL_ERR_INVALID_ARGUMENT when the serial
 * is not pending: never begun, already ended, or already reported overdue. */
ul_status ul__health_end(ul__health *h, uint64_t serial, ul__health_outcome outcome,
                         uint64_t t_ns, unsigned *actions);
/* A call whose outcome and latency are known at once. */
ul_status ul__health_record(ul__health *h, ul__health_op op, unsigned flags,
                            ul__health_outcome outcome, uint64_t latency_ns,
                            uint64_t t_ns, unsigned *actions);
/* Watchdog: removes up to `cap` pending serials whose deadline is <= now,
 * writes them to out[] (oldest deadline first), and records a TIMEOUT for
 * each. *n gets how many; the rest stay for the next call. */
ul_status ul__health_overdue(ul__health *h, uint64_t now_ns, uint64_t *out, size_t cap, size_t *n);
/* Forgets every pending serial without an outcome (after a rebuild replays
 * them under new serials). Returns how many. */
size_t ul__health_drop_pending(ul__health *h);
/* Memory in use against the budget (budget 0 = none). */
void ul__health_memory(ul__health *h, uint64_t used, uint64_t budget, uint64_t t_ns);
/* May a call go to the device now? PROBE counts as one of the half-open
 * probes; its outcome decides. Moves BROKEN to HALF_OPEN once the wait ends. */
ul__health_decision ul__health_allow(ul__health *h, uint64_t now_ns);
/* Re-evaluates time-driven rules (window expiry, open wait, trip decay). */
void ul__health_tick(ul__health *h, uint64_t now_ns);
/* Trips the breaker now (e.g. the device layer declared the device hung). */
void ul__health_trip(ul__health *h, const char *reason, uint64_t t_ns);
ul__health_state ul__health_state_now(ul__health *h, uint64_t now_ns);
void ul__health_snapshot_get(ul__health *h, uint64_t now_ns, ul__health_snapshot *out);

/* ---- metrics exposition (metrics.c) --------------------------------------- */

/* One device's numbers, filled by the device layer. Borrowed pointers. */
typedef struct ul__metrics_device {
  const char *device;                  /* label value, e.g. "gpu0"; required */
  const ul__health_snapshot *health;   /* NULL: health series are left out */
  uint64_t losses_total;
  uint64_t recoveries_total;
  uint64_t standby_recoveries_total;   /* recoveries that began on the standby device */
  uint64_t standby_prefill_bytes;      /* SOURCE buffers filled ahead on the standby now */
  uint64_t restored_total;             /* contents put back on demand after recoveries */
  uint64_t restore_interrupted_total;  /* ... tries a loss interrupted */
  uint64_t restore_pending_bytes;      /* bytes still to put back now */
  const ul__prom_hist *recovery_seconds; /* NULL: an empty histogram */
  uint64_t live_objects;
  uint64_t live_bytes;
  /* The last loss: submissions in flight, and the age of the oldest. */
  uint64_t last_loss_in_flight;
  double last_loss_oldest_seconds;
} ul__metrics_device;

/* Prometheus text format 0.0.4 for n devices: every family once, with HELP
 * and TYPE, one series per device. *out is malloc'd, NUL-terminated; the
 * caller frees it. UL_ERR_INVALID_ARGUMENT (no device name),
 * UL_ERR_OUT_OF_MEMORY. */
ul_status ul__metrics_prometheus(const ul__metrics_device *devs, size_t n, char **out, size_t *len);
/* The same data as one JSON object {"devices":[...]}. */
ul_status ul__metrics_json(const ul__metrics_device *devs, size_t n, char **out, size_t *len);

#endif
