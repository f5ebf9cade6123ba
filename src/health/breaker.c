/* The health monitor of one device: outcomes attributed by serial, the
 * window's rates, and the breaker (resilience4j's CLOSED/OPEN/HALF_OPEN, with
 * CLOSED split into HEALTHY and DEGRADED) whose open wait grows with repeated
 * trips, as Envoy's ejection time does.
 *
 * Lock: `mu` is a leaf lock. Transitions and the evict request are collected
 * in a ul__health_out while it is held and delivered after it is released. */
#include "health/health.h"

#include <math.h>

#define UL__HEALTH_MAX_EVENTS 4

typedef struct ul__health_pending {
  uint64_t serial;
  uint64_t t0_ns, deadline_ns;
  uint32_t phase;
  uint8_t op, flags, used;
} ul__health_pending;

struct ul__health {
  pthread_mutex_t mu;
  ul__health_config cfg;
  ul__health_window win;

  ul__health_state state;
  uint64_t state_since_ns, last_ns;
  uint32_t phase; /* bumped on trip, half-open and close: outcomes of older submissions are stale */
  uint32_t trips;
  uint64_t trips_total;
  uint64_t open_until_ns, decay_mark_ns;
  uint32_t consecutive_losses;
  uint32_t probes_granted, probes_ok;
  uint64_t probe_grant_ns;
  bool evict_requested, memory_high;
  uint64_t memory_used, memory_budget;
  uint64_t totals[UL__HEALTH_OUTCOME_COUNT], total_calls;
  ul__prom_hist seconds[UL__HEALTH_OP_COUNT];
  uint64_t rng, seq;
  char reason[112];

  ul__health_pending *pending; /* open addressing, linear probing */
  size_t pending_mask, pending_count;
  /* ul__health_allow's shortcut: after an evaluation that changed nothing,
   * another one changes nothing either until the window's next bucket
   * starts or the trip level's next decay is due (quiet_until), unless the
   * monitor was taken since (locks counts every taking: each could have
   * added an outcome). */
  uint64_t locks, quiet_lock, quiet_until;
};

typedef struct ul__health_out {
  ul__health_event ev[UL__HEALTH_MAX_EVENTS];
  size_t n;
  bool evict;
} ul__health_out;

/* ---- names ----------------------------------------------------------------- */

const char *ul__health_outcome_name(ul__health_outcome o) {
  switch (o) {
#define UL__NAME(name, text) case UL__HEALTH_##name: return text;
    UL__HEALTH_OUTCOME_MAP(UL__NAME)
#undef UL__NAME
  default: return "?";
  }
}

const char *ul__health_op_name(ul__health_op op) {
  switch (op) {
#define UL__NAME(name, text) case UL__HEALTH_OP_##name: return text;
    UL__HEALTH_OP_MAP(UL__NAME)
#undef UL__NAME
  default: return "?";
  }
}

const char *ul__health_state_name(ul__health_state s) {
  switch (s) {
#define UL__NAME(name, value, text) case UL__HEALTH_##name: return text;
    UL__HEALTH_STATE_MAP(UL__NAME)
#undef UL__NAME
  default: return "?";
  }
}

int ul__health_breaker_code(ul__health_state s) {
  return s == UL__HEALTH_BROKEN ? 1 : s == UL__HEALTH_HALF_OPEN ? 2 : 0;
}

const char *ul__health_breaker_name(ul__health_state s) {
  static const char *const names[] = {"closed", "open", "half_open"};
  return names[ul__health_breaker_code(s)];
}

/* ---- configuration --------------------------------------------------------- */

static void ul__health_defaults(ul__health_config *c) {
#define UL__DEF(field, value) \
  if (!(c->field > 0)) c->field = value
  UL__DEF(window_buckets, 10);
  UL__DEF(bucket_ns, 1000000000ull);
  UL__DEF(min_calls, 20);
  UL__DEF(slow_ns, 200000000ull);
  UL__DEF(slow_enter, 0.05);
  UL__DEF(slow_exit, 0.025);
  UL__DEF(fault_degraded_enter, 0.05);
  UL__DEF(fault_degraded_exit, 0.01);
  UL__DEF(fault_broken, 0.5);
  UL__DEF(consecutive_losses, 3);
  UL__DEF(memory_enter, 0.9);
  UL__DEF(memory_exit, 0.8);
  UL__DEF(open_wait_ns, 1000000000ull);
  UL__DEF(open_wait_max_ns, 60000000000ull);
  UL__DEF(probes, 3);
  UL__DEF(trip_decay_ns, 60000000000ull);
  UL__DEF(deadline_ns, 2000000000ull);
  UL__DEF(max_pending, 4096);
  UL__DEF(seed, 0x756e6c6f73742121ull);
#undef UL__DEF
  if (c->jitter == 0.0) c->jitter = 0.2;
  if (c->jitter < 0.0) c->jitter = 0.0;
}

static ul_status ul__health_check(const ul__health_config *c) {
  const struct {
    const char *name;
    double v;
  } rates[] = {
      {"slow_enter", c->slow_enter},     {"slow_exit", c->slow_exit},
      {"fault_degraded_enter", c->fault_degraded_enter},
      {"fault_degraded_exit", c->fault_degraded_exit},
      {"fault_broken", c->fault_broken}, {"memory_enter", c->memory_enter},
      {"memory_exit", c->memory_exit},
  };
  for (size_t i = 0; i < UL__COUNT_OF(rates); i++)
    if (!(rates[i].v > 0.0 && rates[i].v <= 1.0))
      return ul__fail(UL_ERR_INVALID_ARGUMENT, "health config: %s = %g is not in (0, 1]",
                      rates[i].name, rates[i].v);
  if (c->slow_exit > c->slow_enter || c->fault_degraded_exit > c->fault_degraded_enter ||
      c->memory_exit > c->memory_enter)
    return ul__fail(UL_ERR_INVALID_ARGUMENT,
                    "health config: an exit threshold is above its enter threshold");
  if (c->fault_degraded_enter > c->fault_broken)
    return ul__fail(UL_ERR_INVALID_ARGUMENT,
                    "health config: fault_degraded_enter %g above fault_broken %g",
                    c->fault_degraded_enter, c->fault_broken);
  if (c->open_wait_max_ns < c->open_wait_ns)
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "health config: open_wait_max_ns below open_wait_ns");
  if (!(c->jitter < 1.0))
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "health config: jitter %g is not below 1", c->jitter);
  if (c->max_pending > (1u << 24))
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "health config: max_pending %u above 2^24",
                    c->max_pending);
  return UL_OK;
}

static uint64_t ul__sys_clock(void *user) {
  UL__UNUSED(user);
  return ul__now_ns();
}

ul_status ul__health_create(const ul__health_config *cfg, ul__health **out) {
  if (!out) return ul__fail(UL_ERR_INVALID_ARGUMENT, "health create: out is NULL");
  ul__health_config c;
  if (cfg)
    c = *cfg;
  else
    memset(&c, 0, sizeof c);
  ul__health_defaults(&c);
  ul_status s = ul__health_check(&c);
  if (s) return s;
  if (!c.clock) c.clock = ul__sys_clock;

  ul__health *h = calloc(1, sizeof *h);
  if (!h) return ul__fail(UL_ERR_OUT_OF_MEMORY, "health create");
  h->cfg = c;
  size_t cap = 16;
  while (cap < 2 * (size_t)c.max_pending) cap <<= 1;
  h->pending = calloc(cap, sizeof *h->pending);
  if (!h->pending) {
    free(h);
    return ul__fail(UL_ERR_OUT_OF_MEMORY, "health create: %zu pending slots", cap);
  }
  h->pending_mask = cap - 1;
  s = ul__health_window_init(&h->win, c.window_buckets, c.bucket_ns);
  if (s) {
    free(h->pending);
    free(h);
    return ul__wrap(s, "health create");
  }
  if (pthread_mutex_init(&h->mu, NULL) != 0) {
    ul__health_window_free(&h->win);
    free(h->pending);
    free(h);
    return ul__fail(UL_ERR_INTERNAL, "health create: mutex");
  }
  for (size_t op = 0; op < UL__HEALTH_OP_COUNT; op++)
    (void)ul__prom_hist_init(&h->seconds[op], NULL, 0);
  uint64_t now = c.clock(c.clock_user);
  h->state = UL__HEALTH_HEALTHY;
  h->state_since_ns = h->last_ns = h->decay_mark_ns = now;
  h->rng = c.seed;
  snprintf(h->reason, sizeof h->reason, "created");
  *out = h;
  return UL_OK;
}

void ul__health_destroy(ul__health *h) {
  if (!h) return;
  pthread_mutex_destroy(&h->mu);
  ul__health_window_free(&h->win);
  free(h->pending);
  free(h);
}

uint64_t ul__health_now(ul__health *h) { return h->cfg.clock(h->cfg.clock_user); }

/* ---- lock, time and delivery ---------------------------------------------- */

static uint64_t ul__health_lock(ul__health *h, uint64_t t_ns) {
  if (t_ns == UL__HEALTH_NOW) t_ns = h->cfg.clock(h->cfg.clock_user);
  pthread_mutex_lock(&h->mu);
  h->locks++;
  return t_ns;
}

/* Releases the lock, then runs the callbacks collected under it. */
static void ul__health_unlock(ul__health *h, const ul__health_out *o) {
  ul__health_listener_fn listener = h->cfg.listener;
  void *luser = h->cfg.listener_user;
  ul__health_evict_fn evict = h->cfg.evict;
  void *euser = h->cfg.evict_user;
  pthread_mutex_unlock(&h->mu);
  if (o->evict && evict) evict(euser);
  if (listener)
    for (size_t i = 0; i < o->n; i++) listener(luser, &o->ev[i]);
}

/* State logic never runs backwards: several threads may read the clock and
 * then take the lock in another order. */
static uint64_t ul__health_mono(ul__health *h, uint64_t t_ns) {
  if (t_ns > h->last_ns) h->last_ns = t_ns;
  return h->last_ns;
}

/* base x 2^(trips-1), jittered by [1 - j, 1 + j), capped. */
static uint64_t ul__health_open_wait(ul__health *h) {
  uint64_t base = h->cfg.open_wait_ns, cap = h->cfg.open_wait_max_ns;
  uint32_t shift = h->trips > 0 ? h->trips - 1 : 0;
  double wait = shift >= 63 ? (double)cap : ldexp((double)base, (int)shift);
  if (wait > (double)cap) wait = (double)cap;
  if (h->cfg.jitter > 0.0) {
    double u = (double)(ul__splitmix64(&h->rng) >> 11) * 0x1.0p-53;
    wait *= 1.0 + h->cfg.jitter * (2.0 * u - 1.0);
  }
  if (wait > (double)cap) wait = (double)cap;
  if (wait < 1.0) wait = 1.0;
  return (uint64_t)wait;
}

static void ul__health_go(ul__health *h, ul__health_out *o, ul__health_state to, uint64_t t,
                          const char *fmt, ...) UL__PRINTF(5, 6);
static void ul__health_go(ul__health *h, ul__health_out *o, ul__health_state to, uint64_t t,
                          const char *fmt, ...) {
  ul__health_state from = h->state;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(h->reason, sizeof h->reason, fmt, ap);
  va_end(ap);
  uint64_t wait = 0;
  switch (to) {
  case UL__HEALTH_BROKEN:
    h->trips++;
    h->trips_total++;
    wait = ul__health_open_wait(h);
    h->open_until_ns = t + wait;
    h->phase++;
    break;
  case UL__HEALTH_HALF_OPEN:
    h->probes_granted = h->probes_ok = 0;
    h->probe_grant_ns = t;
    h->phase++;
    break;
  default:
    if (from == UL__HEALTH_HALF_OPEN || from == UL__HEALTH_BROKEN) {
      /* Closing: the faults that tripped it are history now (resilience4j
       * resets its window on every transition). */
      ul__health_window_clear(&h->win);
      h->consecutive_losses = 0;
      h->decay_mark_ns = t;
      h->phase++;
    }
    break;
  }
  h->state = to;
  h->state_since_ns = t;
  ul__log(to == UL__HEALTH_BROKEN ? UL__LOG_WARN : UL__LOG_INFO, "health: %s -> %s: %s",
          ul__health_state_name(from), ul__health_state_name(to), h->reason);
  if (o->n == UL__HEALTH_MAX_EVENTS) { /* keep the latest */
    memmove(&o->ev[0], &o->ev[1], sizeof o->ev[0] * (UL__HEALTH_MAX_EVENTS - 1));
    o->n--;
  }
  ul__health_event *ev = &o->ev[o->n++];
  ev->seq = ++h->seq;
  ev->from = from;
  ev->to = to;
  ev->t_ns = t;
  ev->trips = h->trips;
  ev->wait_ns = wait;
  snprintf(ev->reason, sizeof ev->reason, "%s", h->reason);
}

static double ul__rate(uint64_t part, uint64_t whole) {
  return whole ? (double)part / (double)whole : 0.0;
}

/* The rules that look at the window and the clock, for the closed states,
 * and the open wait for BROKEN. */
static void ul__health_evaluate(ul__health *h, ul__health_out *o, uint64_t t) {
  const ul__health_config *c = &h->cfg;
  if (h->state == UL__HEALTH_BROKEN) {
    if (t >= h->open_until_ns)
      ul__health_go(h, o, UL__HEALTH_HALF_OPEN, t, "open wait of trip %u over: probing",
                    h->trips);
    return;
  }
  if (h->state == UL__HEALTH_HALF_OPEN) {
    /* A granted probe that never reported is given again after a deadline. */
    if (h->probes_granted >= c->probes && t - h->probe_grant_ns >= c->deadline_ns)
      h->probes_granted = h->probes_ok;
    return;
  }
  /* Closed: the trip level decays one step per healthy period (Envoy). */
  while (h->trips > 0 && t - h->decay_mark_ns >= c->trip_decay_ns) {
    h->trips--;
    h->decay_mark_ns += c->trip_decay_ns;
  }
  if (h->trips == 0 && t - h->decay_mark_ns >= c->trip_decay_ns) h->decay_mark_ns = t;

  if (h->consecutive_losses >= c->consecutive_losses) {
    ul__health_go(h, o, UL__HEALTH_BROKEN, t, "%u consecutive losses or timeouts",
                  h->consecutive_losses);
    return;
  }
  ul__health_window_sum w;
  ul__health_window_totals(&h->win, t, &w);
  double fault = ul__rate(w.faults, w.calls), slow = ul__rate(w.slow, w.timed);
  if (w.calls >= c->min_calls && fault >= c->fault_broken) {
    ul__health_go(h, o, UL__HEALTH_BROKEN, t,
                  "fault rate %.1f%% (%llu of %llu calls) >= %.1f%%", 100.0 * fault,
                  (unsigned long long)w.faults, (unsigned long long)w.calls,
                  100.0 * c->fault_broken);
    return;
  }
  uint64_t oom = w.outcomes[UL__HEALTH_OUT_OF_MEMORY];
  if (h->state == UL__HEALTH_HEALTHY) {
    if (w.timed >= c->min_calls && slow > c->slow_enter)
      ul__health_go(h, o, UL__HEALTH_DEGRADED, t,
                    "slow calls %.1f%% (%llu of %llu slower than %llu ms) > %.1f%%",
                    100.0 * slow, (unsigned long long)w.slow, (unsigned long long)w.timed,
                    (unsigned long long)(c->slow_ns / 1000000), 100.0 * c->slow_enter);
    else if (w.calls >= c->min_calls && fault >= c->fault_degraded_enter)
      ul__health_go(h, o, UL__HEALTH_DEGRADED, t, "fault rate %.1f%% (%llu of %llu) >= %.1f%%",
                    100.0 * fault, (unsigned long long)w.faults, (unsigned long long)w.calls,
                    100.0 * c->fault_degraded_enter);
    else if (h->memory_high)
      ul__health_go(h, o, UL__HEALTH_DEGRADED, t, "memory %llu of budget %llu bytes",
                    (unsigned long long)h->memory_used, (unsigned long long)h->memory_budget);
    else if (oom > 0)
      ul__health_go(h, o, UL__HEALTH_DEGRADED, t,
                    "out of memory after eviction (%llu in window)", (unsigned long long)oom);
    return;
  }
  /* DEGRADED: leave only when every reason is below its exit threshold. */
  if ((w.timed == 0 || slow <= c->slow_exit) && (w.calls == 0 || fault <= c->fault_degraded_exit) &&
      !h->memory_high && oom == 0)
    ul__health_go(h, o, UL__HEALTH_HEALTHY, t,
                  "recovered: slow %.1f%%, faults %.1f%% over %llu calls", 100.0 * slow,
                  100.0 * fault, (unsigned long long)w.calls);
}

/* ---- outcomes ------------------------------------------------------------- */

static bool ul__is_fault(ul__health_outcome x) {
  return x == UL__HEALTH_INTERNAL || x == UL__HEALTH_LOSS || x == UL__HEALTH_TIMEOUT;
}

static void ul__health_apply(ul__health *h, ul__health_out *o, ul__health_op op, unsigned flags,
                             ul__health_outcome x, bool has_latency, uint64_t latency_ns,
                             uint64_t t_event, uint32_t phase, unsigned *actions) {
  uint64_t t = ul__health_mono(h, t_event);
  h->totals[x]++;
  h->total_calls++;
  if (x == UL__HEALTH_OUT_OF_MEMORY && !h->evict_requested) {
    /* Memory pressure: let the owner evict its pools before it counts. */
    h->evict_requested = true;
    o->evict = true;
    if (actions) *actions |= UL__HEALTH_ACTION_EVICT;
    ul__health_evaluate(h, o, t);
    return;
  }
  if (x == UL__HEALTH_OK) h->evict_requested = false;

  bool timed = has_latency && x == UL__HEALTH_OK && !(flags & UL__HEALTH_FIRST_USE);
  if (timed) ul__prom_hist_observe(&h->seconds[op], (double)latency_ns * 1e-9);
  if (phase != h->phase) {
    /* Submitted before the last trip, probe or close: history, not evidence. */
    ul__health_evaluate(h, o, t);
    return;
  }
  ul__health_window_add(&h->win, t_event, op, x, timed, latency_ns,
                        timed && latency_ns > h->cfg.slow_ns);
  if (x == UL__HEALTH_LOSS || x == UL__HEALTH_TIMEOUT)
    h->consecutive_losses++;
  else if (x == UL__HEALTH_OK)
    h->consecutive_losses = 0;

  if (h->state == UL__HEALTH_HALF_OPEN) {
    if (ul__is_fault(x)) {
      ul__health_go(h, o, UL__HEALTH_BROKEN, t, "probe failed: %s", ul__health_outcome_name(x));
    } else if (x == UL__HEALTH_OK) {
      if (++h->probes_ok >= h->cfg.probes)
        ul__health_go(h, o, UL__HEALTH_HEALTHY, t, "%u probes succeeded", h->probes_ok);
    } else if (h->probes_granted > h->probes_ok) {
      h->probes_granted--; /* proved nothing: the probe may be given again */
    }
  }
  ul__health_evaluate(h, o, t);
}

static bool ul__valid_outcome(ul__health_outcome x) {
  return (unsigned)x < UL__HEALTH_OUTCOME_COUNT;
}
static bool ul__valid_op(ul__health_op op) { return (unsigned)op < UL__HEALTH_OP_COUNT; }

ul_status ul__health_record(ul__health *h, ul__health_op op, unsigned flags,
                            ul__health_outcome outcome, uint64_t latency_ns, uint64_t t_ns,
                            unsigned *actions) {
  if (actions) *actions = 0;
  if (!h || !ul__valid_op(op) || !ul__valid_outcome(outcome))
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "health record: bad monitor, op %d or outcome %d",
                    (int)op, (int)outcome);
  ul__health_out o = {.n = 0};
  t_ns = ul__health_lock(h, t_ns);
  ul__health_apply(h, &o, op, flags, outcome, true, latency_ns, t_ns, h->phase, actions);
  ul__health_unlock(h, &o);
  return UL_OK;
}

/* ---- pending serials -------------------------------------------------------- */

static size_t ul__slot_of(const ul__health *h, uint64_t serial) {
  uint64_t z = serial * 0x9e3779b97f4a7c15ull;
  return (size_t)(z ^ (z >> 29)) & h->pending_mask;
}

static ul__health_pending *ul__pending_find(ul__health *h, uint64_t serial) {
  for (size_t i = ul__slot_of(h, serial);; i = (i + 1) & h->pending_mask) {
    ul__health_pending *p = &h->pending[i];
    if (!p->used) return NULL;
    if (p->serial == serial) return p;
  }
}

/* Backward-shift deletion keeps every probe chain unbroken without tombstones. */
static void ul__pending_remove(ul__health *h, ul__health_pending *p) {
  size_t mask = h->pending_mask, hole = (size_t)(p - h->pending);
  for (size_t j = (hole + 1) & mask; h->pending[j].used; j = (j + 1) & mask) {
    size_t home = ul__slot_of(h, h->pending[j].serial);
    /* Move j into the hole unless its home lies cyclically in (hole, j]. */
    bool stays = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
    if (!stays) {
      h->pending[hole] = h->pending[j];
      hole = j;
    }
  }
  memset(&h->pending[hole], 0, sizeof h->pending[hole]);
  h->pending_count--;
}

ul_status ul__health_begin(ul__health *h, uint64_t serial, ul__health_op op, unsigned flags,
                           uint64_t deadline_ns, uint64_t t_ns) {
  if (!h || !ul__valid_op(op))
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "health begin: bad monitor or op %d", (int)op);
  ul__health_out o = {.n = 0};
  t_ns = ul__health_lock(h, t_ns);
  ul_status s = UL_OK;
  if (ul__pending_find(h, serial)) {
    s = ul__fail(UL_ERR_INVALID_ARGUMENT, "health begin: serial %llu is already pending",
                 (unsigned long long)serial);
  } else if (h->pending_count >= h->cfg.max_pending) {
    s = ul__fail(UL_ERR_BUSY, "health begin: %zu submissions unfinished (max_pending)",
                 h->pending_count);
  } else {
    size_t i = ul__slot_of(h, serial);
    while (h->pending[i].used) i = (i + 1) & h->pending_mask;
    uint64_t d = deadline_ns ? deadline_ns : h->cfg.deadline_ns;
    h->pending[i] = (ul__health_pending){
        .serial = serial,
        .t0_ns = t_ns,
        .deadline_ns = t_ns > UINT64_MAX - d ? UINT64_MAX : t_ns + d,
        .phase = h->phase,
        .op = (uint8_t)op,
        .flags = (uint8_t)flags,
        .used = 1,
    };
    h->pending_count++;
  }
  ul__health_unlock(h, &o);
  return s;
}

ul_status ul__health_end(ul__health *h, uint64_t serial, ul__health_outcome outcome,
                         uint64_t t_ns, unsigned *actions) {
  if (actions) *actions = 0;
  if (!h || !ul__valid_outcome(outcome))
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "health end: bad monitor or outcome %d",
                    (int)outcome);
  ul__health_out o = {.n = 0};
  t_ns = ul__health_lock(h, t_ns);
  ul_status s = UL_OK;
  ul__health_pending *p = ul__pending_find(h, serial);
  if (!p) {
    s = ul__fail(UL_ERR_INVALID_ARGUMENT,
                 "health end: serial %llu is not pending (never begun, ended, or overdue)",
                 (unsigned long long)serial);
  } else {
    ul__health_pending e = *p;
    ul__pending_remove(h, p);
    uint64_t latency = t_ns > e.t0_ns ? t_ns - e.t0_ns : 0;
    ul__health_apply(h, &o, (ul__health_op)e.op, e.flags, outcome, true, latency, t_ns, e.phase,
                     actions);
  }
  ul__health_unlock(h, &o);
  return s;
}

ul_status ul__health_overdue(ul__health *h, uint64_t now_ns, uint64_t *out, size_t cap, size_t *n) {
  if (n) *n = 0;
  if (!h || !n || (cap && !out))
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "health overdue: NULL argument");
  ul__health_out o = {.n = 0};
  now_ns = ul__health_lock(h, now_ns);
  size_t got = 0;
  while (got < cap && h->pending_count > 0) {
    ul__health_pending *oldest = NULL;
    for (size_t i = 0; i <= h->pending_mask; i++) {
      ul__health_pending *p = &h->pending[i];
      if (p->used && p->deadline_ns <= now_ns && (!oldest || p->deadline_ns < oldest->deadline_ns))
        oldest = p;
    }
    if (!oldest) break;
    ul__health_pending e = *oldest;
    ul__pending_remove(h, oldest);
    out[got++] = e.serial;
    ul__health_apply(h, &o, (ul__health_op)e.op, e.flags, UL__HEALTH_TIMEOUT, false, 0, now_ns,
                     e.phase, NULL);
  }
  *n = got;
  ul__health_unlock(h, &o);
  return UL_OK;
}

size_t ul__health_drop_pending(ul__health *h) {
  if (!h) return 0;
  ul__health_out o = {.n = 0};
  (void)ul__health_lock(h, 0);
  size_t n = h->pending_count;
  memset(h->pending, 0, (h->pending_mask + 1) * sizeof *h->pending);
  h->pending_count = 0;
  ul__health_unlock(h, &o);
  return n;
}

/* ---- memory, time, decisions -------------------------------------------------- */

void ul__health_memory(ul__health *h, uint64_t used, uint64_t budget, uint64_t t_ns) {
  if (!h) return;
  ul__health_out o = {.n = 0};
  t_ns = ul__health_lock(h, t_ns);
  h->memory_used = used;
  h->memory_budget = budget;
  if (budget == 0)
    h->memory_high = false;
  else if ((double)used >= h->cfg.memory_enter * (double)budget)
    h->memory_high = true;
  else if ((double)used < h->cfg.memory_exit * (double)budget)
    h->memory_high = false;
  ul__health_evaluate(h, &o, ul__health_mono(h, t_ns));
  ul__health_unlock(h, &o);
}

ul__health_decision ul__health_allow(ul__health *h, uint64_t now_ns) {
  if (!h) return UL__HEALTH_REJECT;
  ul__health_out o = {.n = 0};
  now_ns = ul__health_lock(h, now_ns);
  uint64_t t = ul__health_mono(h, now_ns);
  bool closed = h->state == UL__HEALTH_HEALTHY || h->state == UL__HEALTH_DEGRADED;
  if (!closed || h->quiet_lock + 1 != h->locks || t >= h->quiet_until) {
    ul__health_evaluate(h, &o, t);
    closed = h->state == UL__HEALTH_HEALTHY || h->state == UL__HEALTH_DEGRADED;
    h->quiet_until = 0;
    if (closed && o.n == 0) {
      uint64_t bucket = h->win.bucket_ns, decay = h->decay_mark_ns + h->cfg.trip_decay_ns;
      uint64_t next = bucket && t / bucket < UINT64_MAX / bucket - 1 ? (t / bucket + 1) * bucket : 0;
      h->quiet_until = decay > t && decay < next ? decay : next;
    }
  }
  h->quiet_lock = h->locks;
  ul__health_decision d = UL__HEALTH_ALLOW;
  if (h->state == UL__HEALTH_BROKEN) {
    d = UL__HEALTH_REJECT;
  } else if (h->state == UL__HEALTH_HALF_OPEN) {
    if (h->probes_granted < h->cfg.probes) {
      h->probes_granted++;
      h->probe_grant_ns = t;
      d = UL__HEALTH_PROBE;
    } else {
      d = UL__HEALTH_REJECT;
    }
  }
  ul__health_unlock(h, &o);
  return d;
}

void ul__health_tick(ul__health *h, uint64_t now_ns) {
  if (!h) return;
  ul__health_out o = {.n = 0};
  now_ns = ul__health_lock(h, now_ns);
  ul__health_evaluate(h, &o, ul__health_mono(h, now_ns));
  ul__health_unlock(h, &o);
}

void ul__health_trip(ul__health *h, const char *reason, uint64_t t_ns) {
  if (!h) return;
  ul__health_out o = {.n = 0};
  t_ns = ul__health_lock(h, t_ns);
  uint64_t t = ul__health_mono(h, t_ns);
  if (h->state != UL__HEALTH_BROKEN)
    ul__health_go(h, &o, UL__HEALTH_BROKEN, t, "%s", reason ? reason : "tripped by the owner");
  ul__health_unlock(h, &o);
}

ul__health_state ul__health_state_now(ul__health *h, uint64_t now_ns) {
  if (!h) return UL__HEALTH_BROKEN;
  ul__health_out o = {.n = 0};
  now_ns = ul__health_lock(h, now_ns);
  ul__health_evaluate(h, &o, ul__health_mono(h, now_ns));
  ul__health_state s = h->state;
  ul__health_unlock(h, &o);
  return s;
}

void ul__health_snapshot_get(ul__health *h, uint64_t now_ns, ul__health_snapshot *out) {
  memset(out, 0, sizeof *out);
  if (!h) return;
  ul__health_out o = {.n = 0};
  now_ns = ul__health_lock(h, now_ns);
  uint64_t t = ul__health_mono(h, now_ns);
  ul__health_evaluate(h, &o, t);
  out->state = h->state;
  out->now_ns = t;
  out->state_since_ns = h->state_since_ns;
  out->time_in_state_ns = t - h->state_since_ns;
  out->trips = h->trips;
  out->trips_total = h->trips_total;
  out->open_until_ns = h->state == UL__HEALTH_BROKEN ? h->open_until_ns : 0;
  out->consecutive_losses = h->consecutive_losses;
  ul__health_window_totals(&h->win, t, &out->window);
  out->fault_rate = ul__rate(out->window.faults, out->window.calls);
  out->slow_rate = ul__rate(out->window.slow, out->window.timed);
  /* Each op's merged histogram is 1.3 KiB: one on the stack, reused. */
  ul__health_hist hist;
  for (size_t op = 0; op < UL__HEALTH_OP_COUNT; op++) {
    ul__health_window_hist(&h->win, t, (ul__health_op)op, &hist);
    ul__health_latency *l = &out->latency[op];
    l->count = hist.count;
    l->p50_ns = ul__health_hist_percentile(&hist, 0.50);
    l->p95_ns = ul__health_hist_percentile(&hist, 0.95);
    l->p99_ns = ul__health_hist_percentile(&hist, 0.99);
    l->max_ns = hist.max_ns;
    out->seconds[op] = h->seconds[op];
  }
  memcpy(out->totals, h->totals, sizeof out->totals);
  out->total_calls = h->total_calls;
  out->pending = h->pending_count;
  out->memory_used = h->memory_used;
  out->memory_budget = h->memory_budget;
  snprintf(out->reason, sizeof out->reason, "%s", h->reason);
  ul__health_unlock(h, &o);
}
