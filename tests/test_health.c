// ctest-labels: threads
/* The health monitor: breaker transitions under a fake clock, the window, late
 * attribution, the watchdog, the histogram's error bound, and the metrics
 * exposition checked by a strict Prometheus parser. */
#include "health/health.h"

#include "prom_parse.h"
#include "ul_test.h"

#include <math.h>
#include <pthread.h>

#define MS 1000000ull
#define SEC 1000000000ull

/* ---- fixtures ---------------------------------------------------------------- */

static uint64_t fake_clock(void *user) { return *(const uint64_t *)user; }

#define MAX_EVENTS 64
static struct {
  ul__health_event ev[MAX_EVENTS];
  int n;
  int evicts;
  ul__health *reenter; /* the listener calls back into this monitor */
} seen;

static void on_event(void *user, const ul__health_event *ev) {
  UL__UNUSED(user);
  if (seen.n < MAX_EVENTS) seen.ev[seen.n++] = *ev;
  if (seen.reenter) { /* would deadlock if the listener ran under the lock */
    ul__health_snapshot snap;
    ul__health_snapshot_get(seen.reenter, UL__HEALTH_NOW, &snap);
    (void)ul__health_allow(seen.reenter, UL__HEALTH_NOW);
  }
}

static void on_evict(void *user) {
  UL__UNUSED(user);
  seen.evicts++;
}

static uint64_t now_ns;

/* Defaults, a fake clock at 0, no jitter, the recording listener. */
static ul__health_config test_config(void) {
  ul__health_config c;
  memset(&c, 0, sizeof c);
  now_ns = 0;
  c.clock = fake_clock;
  c.clock_user = &now_ns;
  c.listener = on_event;
  c.evict = on_evict;
  c.jitter = -1;
  memset(&seen, 0, sizeof seen);
  return c;
}

static ul__health_state state_at(ul__health *h, uint64_t t) { return ul__health_state_now(h, t); }

static void record_n(ul__health *h, int n, ul__health_outcome o, uint64_t latency, uint64_t t) {
  for (int i = 0; i < n; i++)
    (void)ul__health_record(h, UL__HEALTH_OP_SUBMIT, 0, o, latency, t, NULL);
}

/* Trips a fresh monitor with consecutive losses at t. */
static void trip_by_losses(ul__health *h, uint64_t t) {
  record_n(h, 3, UL__HEALTH_LOSS, 0, t);
}

/* ---- histogram ------------------------------------------------------------------ */

static uint64_t rng_state = 12345;
static uint64_t rng_next(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}
static double rng_unit(void) { return (double)(rng_next() >> 11) * 0x1.0p-53; }

static void test_hist_index_bounds(void) {
  for (int i = 0; i < 200000; i++) {
    uint64_t v = i < 2000 ? (uint64_t)i : (rng_next() >> (24 + rng_next() % 40));
    if (v >= UL__HIST_MAX_NS) continue;
    size_t k = ul__health_hist_index(v);
    double lo, hi;
    ul__health_hist_bounds(k, &lo, &hi);
    if (!((double)v >= lo && (double)v < hi)) {
      UL__FAIL_AT("value %llu in bucket %zu [%.3f, %.3f)", (unsigned long long)v, k, lo, hi);
      return;
    }
    ASSERT_TRUE(hi / lo <= 1.0905077326652578 || k == 0);
  }
  ASSERT_EQ(ul__health_hist_index(UL__HIST_MAX_NS * 4), UL__HIST_BUCKETS - 1);
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* The stated bound: within 2^(1/16) - 1 of the exact nearest-rank value
 * (plus 0.5 ns of rounding to whole nanoseconds). */
static void test_hist_percentile_accuracy(void) {
  enum { N = 20000 };
  static uint64_t v[N];
  static const double qs[] = {0.01, 0.25, 0.5, 0.9, 0.95, 0.99, 0.999, 1.0};
  ASSERT_TRUE(UL__HIST_REL_ERROR >= pow(2.0, 1.0 / 16) - 1);
  ASSERT_TRUE(UL__HIST_REL_ERROR < pow(2.0, 1.0 / 16) - 1 + 1e-4);
  double worst = 0;
  for (int dist = 0; dist < 4; dist++) {
    ul__health_hist h;
    ul__health_hist_clear(&h);
    for (int i = 0; i < N; i++) {
      double x;
      switch (dist) {
      case 0: x = 1e3 + rng_unit() * 1e9; break;                 /* uniform 1 us .. 1 s */
      case 1: x = exp(log(1e4) + rng_unit() * log(1e6)); break;  /* log-uniform 10 us .. 10 s */
      case 2: x = -log(1.0 - rng_unit()) * 5e6 + 1; break;       /* exponential, mean 5 ms */
      default: x = (i % 10 ? 2e6 : 3e8) * (0.9 + 0.2 * rng_unit()); /* bimodal */
      }
      v[i] = (uint64_t)x;
      ul__health_hist_add(&h, v[i]);
    }
    qsort(v, N, sizeof v[0], cmp_u64);
    ASSERT_EQ_U(h.count, N);
    ASSERT_EQ_U(h.min_ns, v[0]);
    ASSERT_EQ_U(h.max_ns, v[N - 1]);
    for (size_t k = 0; k < UL__COUNT_OF(qs); k++) {
      size_t rank = (size_t)ceil(qs[k] * N);
      uint64_t exact = v[rank - 1];
      uint64_t est = ul__health_hist_percentile(&h, qs[k]);
      double rel = fabs((double)est - (double)exact) / (double)exact;
      if (rel > worst) worst = rel;
      if (rel > UL__HIST_REL_ERROR + 0.5 / (double)exact) {
        UL__FAIL_AT("dist %d q %.3f: exact %llu estimate %llu (%.3f%%)", dist, qs[k],
                    (unsigned long long)exact, (unsigned long long)est, 100 * rel);
        return;
      }
    }
  }
  printf("     worst percentile error %.3f%% (bound %.2f%%)\n", 100 * worst, 100 * UL__HIST_REL_ERROR);
  /* Merging two halves equals adding everything to one. */
  ul__health_hist a, b, all;
  ul__health_hist_clear(&a);
  ul__health_hist_clear(&b);
  ul__health_hist_clear(&all);
  for (int i = 0; i < 1000; i++) {
    uint64_t x = rng_next() % (10 * SEC);
    ul__health_hist_add(i % 2 ? &a : &b, x);
    ul__health_hist_add(&all, x);
  }
  ul__health_hist_merge(&a, &b);
  ASSERT_TRUE(memcmp(a.buckets, all.buckets, sizeof a.buckets) == 0);
  ASSERT_EQ_U(ul__health_hist_percentile(&a, 0.95), ul__health_hist_percentile(&all, 0.95));
  ul__health_hist empty;
  ul__health_hist_clear(&empty);
  ASSERT_EQ_U(ul__health_hist_percentile(&empty, 0.5), 0);
}

static void test_prom_hist(void) {
  ul__prom_hist h;
  const double bad[] = {0.1, 0.1};
  ASSERT_STATUS(ul__prom_hist_init(&h, bad, 2), UL_ERR_INVALID_ARGUMENT);
  const double le[] = {0.5, 1, 2};
  ASSERT_OK(ul__prom_hist_init(&h, le, 3));
  ul__prom_hist_observe(&h, 0.5); /* le is inclusive */
  ul__prom_hist_observe(&h, 0.7);
  ul__prom_hist_observe(&h, 9);
  ASSERT_EQ_U(h.counts[0], 1);
  ASSERT_EQ_U(h.counts[1], 1);
  ASSERT_EQ_U(h.counts[2], 0);
  ASSERT_EQ_U(h.counts[3], 1);
  ASSERT_EQ_U(h.count, 3);
}

/* ---- window --------------------------------------------------------------------- */

static void test_window_expiry(void) {
  ul__health_window w;
  ASSERT_OK(ul__health_window_init(&w, 10, SEC));
  ul__health_window_sum s;
  ul__health_window_add(&w, 0, UL__HEALTH_OP_SUBMIT, UL__HEALTH_INTERNAL, false, 0, false);
  ul__health_window_add(&w, 500 * MS, UL__HEALTH_OP_SUBMIT, UL__HEALTH_OK, true, 300 * MS, true);
  ul__health_window_add(&w, 5 * SEC, UL__HEALTH_OP_SUBMIT, UL__HEALTH_OK, true, MS, false);
  ul__health_window_add(&w, 5 * SEC, UL__HEALTH_OP_READ, UL__HEALTH_VALIDATION, false, 0, false);
  ul__health_window_totals(&w, 9 * SEC + 999 * MS, &s);
  ASSERT_EQ_U(s.calls, 3);
  ASSERT_EQ_U(s.faults, 1);
  ASSERT_EQ_U(s.slow, 1);
  ASSERT_EQ_U(s.timed, 2);
  ASSERT_EQ_U(s.outcomes[UL__HEALTH_VALIDATION], 1);
  /* At 10 s the first second's bucket has rolled off. */
  ul__health_window_totals(&w, 10 * SEC, &s);
  ASSERT_EQ_U(s.calls, 1);
  ASSERT_EQ_U(s.faults, 0);
  ASSERT_EQ_U(s.slow, 0);
  ul__health_hist hist;
  ul__health_window_hist(&w, 10 * SEC, UL__HEALTH_OP_SUBMIT, &hist);
  ASSERT_EQ_U(hist.count, 1);
  /* The slot of second 0 is reused by second 10; an event for second 0 is now dropped. */
  ul__health_window_add(&w, 10 * SEC, UL__HEALTH_OP_SUBMIT, UL__HEALTH_LOSS, false, 0, false);
  ul__health_window_add(&w, 1, UL__HEALTH_OP_SUBMIT, UL__HEALTH_LOSS, false, 0, false);
  ul__health_window_totals(&w, 10 * SEC, &s);
  ASSERT_EQ_U(s.outcomes[UL__HEALTH_LOSS], 1);
  ul__health_window_totals(&w, 16 * SEC, &s);
  ASSERT_EQ_U(s.calls, 1);
  ul__health_window_totals(&w, 100 * SEC, &s);
  ASSERT_EQ_U(s.calls, 0);
  ul__health_window_free(&w);
  ASSERT_STATUS(ul__health_window_init(&w, 0, SEC), UL_ERR_INVALID_ARGUMENT);
}

/* ---- breaker ---------------------------------------------------------------------- */

static void test_config_checked(void) {
  ul__health_config c = test_config();
  ul__health *h = NULL;
  c.slow_exit = 0.1; /* above slow_enter's 0.05 */
  ASSERT_STATUS(ul__health_create(&c, &h), UL_ERR_INVALID_ARGUMENT);
  ASSERT_TRUE(h == NULL);
  c = test_config();
  c.fault_broken = 1.5;
  ASSERT_STATUS(ul__health_create(&c, &h), UL_ERR_INVALID_ARGUMENT);
  c = test_config();
  c.open_wait_ns = 10 * SEC;
  c.open_wait_max_ns = SEC;
  ASSERT_STATUS(ul__health_create(&c, &h), UL_ERR_INVALID_ARGUMENT);
  ASSERT_OK(ul__health_create(NULL, &h)); /* all defaults, real clock */
  ASSERT_EQ(ul__health_state_now(h, UL__HEALTH_NOW), UL__HEALTH_HEALTHY);
  ul__health_destroy(h);
  ul__health_destroy(NULL);
}

static void test_validation_never_counts(void) {
  ul__health_config c = test_config();
  ul__health *h;
  ASSERT_OK(ul__health_create(&c, &h));
  record_n(h, 1000, UL__HEALTH_VALIDATION, 0, 0);
  ASSERT_EQ(state_at(h, 0), UL__HEALTH_HEALTHY);
  ul__health_snapshot s;
  ul__health_snapshot_get(h, 0, &s);
  ASSERT_EQ_U(s.window.calls, 0);
  ASSERT_EQ_U(s.totals[UL__HEALTH_VALIDATION], 1000);
  ASSERT_EQ_U(s.total_calls, 1000);
  /* Also not in the middle of losses: a validation error neither extends nor breaks the run. */
  record_n(h, 2, UL__HEALTH_LOSS, 0, 0);
  record_n(h, 5, UL__HEALTH_VALIDATION, 0, 0);
  ASSERT_EQ(state_at(h, 0), UL__HEALTH_HEALTHY);
  ASSERT_EQ(seen.n, 0);
  ul__health_destroy(h);
}

static void test_min_calls(void) {
  ul__health_config c = test_config();
  ul__health *h;
  ASSERT_OK(ul__health_create(&c, &h)); /* min_calls 20 */
  record_n(h, 19, UL__HEALTH_INTERNAL, 0, 0);
  ASSERT_EQ(state_at(h, 0), UL__HEALTH_HEALTHY); /* 100 % faults, but only 19 calls */
  record_n(h, 1, UL__HEALTH_INTERNAL, 0, 0);
  ASSERT_EQ(state_at(h, 0), UL__HEALTH_BROKEN);
  ASSERT_EQ(seen.n, 1);
  ASSERT_CONTAINS(seen.ev[0].reason, "fault rate 100.0% (20 of 20 calls)");
  ul__health_destroy(h);
}

static void test_slow_degrades_with_hysteresis(void) {
  ul__health_config c = test_config();
  ul__health *h;
  ASSERT_OK(ul__health_create(&c, &h)); /* slow: > 200 ms; enter > 5 %, exit <= 2.5 % */
  record_n(h, 19, UL__HEALTH_OK, 10 * MS, 0);
  record_n(h, 1, UL__HEALTH_OK, 250 * MS, 0);
  ASSERT_EQ(state_at(h, 0), UL__HEALTH_HEALTHY); /* 1 of 20 = 5 %: not more than 5 % */
  record_n(h, 1, UL__HEALTH_OK, 250 * MS, 0);
  ASSERT_EQ(state_at(h, 0), UL__HEALTH_DEGRADED); /* 2 of 21 */
  ASSERT_EQ(seen.ev[0].from, UL__HEALTH_HEALTHY);
  ASSERT_EQ(seen.ev[0].to, UL__HEALTH_DEGRADED);
  ASSERT_CONTAINS(seen.ev[0].reason, "slow calls");
  /* Slow but correct is never BROKEN. */
  record_n(h, 500, UL__HEALTH_OK, 900 * MS, 0);
  ASSERT_EQ(state_at(h, 0), UL__HEALTH_DEGRADED);
  ul__health_snapshot s;
  ul__health_snapshot_get(h, 0, &s);
  ASSERT_TRUE(s.latency[UL__HEALTH_OP_SUBMIT].p95_ns > 850 * MS);
  ASSERT_TRUE(s.latency[UL__HEALTH_OP_SUBMIT].p95_ns < 950 * MS);
  /* A new window (10 s later): below enter but above exit stays DEGRADED. */
  now_ns = 20 * SEC;
  record_n(h, 2, UL__HEALTH_OK, 300 * MS, now_ns);
  record_n(h, 77, UL__HEALTH_OK, MS, now_ns);
  ASSERT_EQ(state_at(h, now_ns), UL__HEALTH_DEGRADED); /* 2 of 79 = 2.53 % */
  record_n(h, 1, UL__HEALTH_OK, MS, now_ns);
  ASSERT_EQ(state_at(h, now_ns), UL__HEALTH_HEALTHY); /* 2 of 80 = 2.5 % */
  ASSERT_EQ(seen.n, 2);
  ASSERT_EQ(seen.ev[1].to, UL__HEALTH_HEALTHY);
  ul__health_destroy(h);
}

static void test_fault_rate_trips(void) {
  ul__health_config c = test_config();
  ul__health *h;
  ASSERT_OK(ul__health_create(&c, &h));
  record_n(h, 20, UL__HEALTH_OK, MS, 0);
  record_n(h, 1, UL__HEALTH_INTERNAL, 0, 0);
  ASSERT_EQ(state_at(h, 0), UL__HEALTH_HEALTHY); /* 1 of 21 < 5 % */
  record_n(h, 1, UL__HEALTH_TIMEOUT, 0, 0);
  ASSERT_EQ(state_at(h, 0), UL__HEALTH_DEGRADED); /* 2 of 22 >= 5 % */
  for (int i = 0; i < 17; i++) {
    record_n(h, 1, UL__HEALTH_INTERNAL, 0, 0);
    ASSERT_EQ(state_at(h, 0), UL__HEALTH_DEGRADED);
  }
  record_n(h, 1, UL__HEALTH_INTERNAL, 0, 0); /* 20 of 40 = 50 % */
  ASSERT_EQ(state_at(h, 0), UL__HEALTH_BROKEN);
  ASSERT_EQ(seen.n, 2);
  ASSERT_EQ(seen.ev[1].from, UL__HEALTH_DEGRADED);
  ASSERT_EQ(seen.ev[1].to, UL__HEALTH_BROKEN);
  ASSERT_EQ(ul__health_allow(h, 0), UL__HEALTH_REJECT);
  ul__health_destroy(h);
}

static void test_consecutive_losses(void) {
  ul__health_config c = test_config();
  ul__health *h;
  ASSERT_OK(ul__health_create(&c, &h));
  record_n(h, 2, UL__HEALTH_LOSS, 0, 0);
  record_n(h, 1, UL__HEALTH_OK, MS, 0);
  record_n(h, 1, UL__HEALTH_LOSS, 0, 0);
  record_n(h, 1, UL__HEALTH_TIMEOUT, 0, 0);
  ASSERT_EQ(state_at(h, 0), UL__HEALTH_HEALTHY); /* the OK broke the run (5 calls < min) */
  record_n(h, 1, UL__HEALTH_LOSS, 0, 0);
  ASSERT_EQ(state_at(h, 0), UL__HEALTH_BROKEN);
  ASSERT_CONTAINS(seen.ev[0].reason, "3 consecutive");
  ASSERT_EQ(seen.ev[0].wait_ns, SEC);
  ASSERT_EQ(seen.ev[0].trips, 1);
  ul__health_destroy(h);
}

/* BROKEN -> HALF_OPEN -> (probe fails) BROKEN with doubling waits up to the cap
 * -> HALF_OPEN -> (probes succeed) HEALTHY. */
static void test_half_open_cycle(void) {
  ul__health_config c = test_config();
  c.open_wait_ns = SEC;
  c.open_wait_max_ns = 5 * SEC;
  c.probes = 2;
  ul__health *h;
  ASSERT_OK(ul__health_create(&c, &h));
  trip_by_losses(h, 0);
  ASSERT_EQ(state_at(h, 0), UL__HEALTH_BROKEN);
  uint64_t t = 0, want_wait = SEC;
  const uint64_t waits[] = {SEC, 2 * SEC, 4 * SEC, 5 * SEC, 5 * SEC};
  for (size_t k = 0; k < UL__COUNT_OF(waits); k++) {
    ASSERT_EQ(seen.ev[seen.n - 1].to, UL__HEALTH_BROKEN);
    ASSERT_EQ_U(seen.ev[seen.n - 1].wait_ns, waits[k]);
    ASSERT_EQ(seen.ev[seen.n - 1].trips, k + 1);
    want_wait = waits[k];
    ASSERT_EQ(ul__health_allow(h, t + want_wait - 1), UL__HEALTH_REJECT);
    t += want_wait;
    ASSERT_EQ(ul__health_allow(h, t), UL__HEALTH_PROBE);
    ASSERT_EQ(state_at(h, t), UL__HEALTH_HALF_OPEN);
    ASSERT_EQ(seen.ev[seen.n - 1].from, UL__HEALTH_BROKEN);
    ASSERT_EQ(seen.ev[seen.n - 1].to, UL__HEALTH_HALF_OPEN);
    ASSERT_EQ(ul__health_allow(h, t), UL__HEALTH_PROBE);
    ASSERT_EQ(ul__health_allow(h, t), UL__HEALTH_REJECT); /* only 2 probes */
    ASSERT_OK(ul__health_record(h, UL__HEALTH_OP_SUBMIT, 0, UL__HEALTH_INTERNAL, 0, t, NULL));
    ASSERT_EQ(state_at(h, t), UL__HEALTH_BROKEN);
    ASSERT_CONTAINS(seen.ev[seen.n - 1].reason, "probe failed: internal");
  }
  ul__health_snapshot s;
  ul__health_snapshot_get(h, t, &s);
  ASSERT_EQ(s.trips, 6);
  ASSERT_EQ_U(s.open_until_ns, t + 5 * SEC);
  t += 5 * SEC;
  ASSERT_EQ(ul__health_allow(h, t), UL__HEALTH_PROBE);
  ASSERT_OK(ul__health_record(h, UL__HEALTH_OP_SUBMIT, 0, UL__HEALTH_OK, MS, t, NULL));
  ASSERT_EQ(state_at(h, t), UL__HEALTH_HALF_OPEN); /* 1 of 2 */
  ASSERT_OK(ul__health_record(h, UL__HEALTH_OP_SUBMIT, 0, UL__HEALTH_VALIDATION, MS, t, NULL));
  ASSERT_EQ(state_at(h, t), UL__HEALTH_HALF_OPEN); /* a program bug proves nothing */
  ASSERT_OK(ul__health_record(h, UL__HEALTH_OP_SUBMIT, 0, UL__HEALTH_OK, MS, t, NULL));
  ASSERT_EQ(state_at(h, t), UL__HEALTH_HEALTHY);
  ASSERT_EQ(seen.ev[seen.n - 1].from, UL__HEALTH_HALF_OPEN);
  ASSERT_EQ(ul__health_allow(h, t), UL__HEALTH_ALLOW);
  ul__health_snapshot_get(h, t, &s);
  ASSERT_EQ_U(s.window.calls, 0); /* the window starts afresh on close */
  ASSERT_EQ_U(s.trips_total, 6);
  /* Events came in order. */
  for (int i = 1; i < seen.n; i++) ASSERT_EQ_U(seen.ev[i].seq, seen.ev[i - 1].seq + 1);
  ul__health_destroy(h);
}

static void test_trip_decay(void) {
  ul__health_config c = test_config();
  c.open_wait_ns = SEC;
  c.open_wait_max_ns = 100 * SEC;
  c.probes = 1;
  c.trip_decay_ns = 60 * SEC;
  ul__health *h;
  ASSERT_OK(ul__health_create(&c, &h));
  uint64_t t = 0;
  trip_by_losses(h, t); /* trip 1: 1 s */
  t += SEC;
  ASSERT_EQ(ul__health_allow(h, t), UL__HEALTH_PROBE);
  record_n(h, 1, UL__HEALTH_LOSS, 0, t); /* trip 2: 2 s */
  t += 2 * SEC;
  ASSERT_EQ(ul__health_allow(h, t), UL__HEALTH_PROBE);
  record_n(h, 1, UL__HEALTH_LOSS, 0, t); /* trip 3: 4 s */
  t += 4 * SEC;
  ASSERT_EQ(ul__health_allow(h, t), UL__HEALTH_PROBE);
  record_n(h, 1, UL__HEALTH_OK, MS, t);
  ASSERT_EQ(state_at(h, t), UL__HEALTH_HEALTHY);
  ul__health_snapshot s;
  ul__health_snapshot_get(h, t + 59 * SEC, &s);
  ASSERT_EQ(s.trips, 3);
  ul__health_snapshot_get(h, t + 60 * SEC, &s);
  ASSERT_EQ(s.trips, 2);
  t += 60 * SEC;
  /* The next trip waits as trip 3 does: 4 s. */
  trip_by_losses(h, t);
  ASSERT_EQ_U(seen.ev[seen.n - 1].wait_ns, 4 * SEC);
  t += 4 * SEC;
  ASSERT_EQ(ul__health_allow(h, t), UL__HEALTH_PROBE);
  record_n(h, 1, UL__HEALTH_OK, MS, t);
  ul__health_snapshot_get(h, t + 10 * 60 * SEC, &s);
  ASSERT_EQ(s.trips, 0);
  ASSERT_EQ_U(s.trips_total, 4);
  ul__health_destroy(h);
}

static void test_jitter_seeded(void) {
  uint64_t waits[2][6];
  for (int run = 0; run < 2; run++) {
    ul__health_config c = test_config();
    c.jitter = 0.2;
    c.seed = 42;
    c.probes = 1;
    c.open_wait_max_ns = 20 * SEC;
    ul__health *h;
    ASSERT_OK(ul__health_create(&c, &h));
    uint64_t t = 0;
    trip_by_losses(h, t);
    for (int k = 0; k < 6; k++) {
      const ul__health_event *ev = &seen.ev[seen.n - 1];
      ASSERT_EQ(ev->to, UL__HEALTH_BROKEN);
      waits[run][k] = ev->wait_ns;
      double nominal = fmin(ldexp(1.0, k) * (double)SEC, 20.0 * SEC);
      ASSERT_TRUE((double)ev->wait_ns >= 0.8 * nominal - 1);
      ASSERT_TRUE((double)ev->wait_ns <= fmin(1.2 * nominal, 20.0 * SEC));
      t += ev->wait_ns;
      ASSERT_EQ(ul__health_allow(h, t), UL__HEALTH_PROBE);
      record_n(h, 1, UL__HEALTH_LOSS, 0, t);
    }
    ul__health_destroy(h);
  }
  for (int k = 0; k < 6; k++) ASSERT_EQ_U(waits[0][k], waits[1][k]);
  ASSERT_TRUE(waits[0][0] != SEC || waits[0][1] != 2 * SEC); /* jitter did something */
}

static void test_probe_regranted_after_deadline(void) {
  ul__health_config c = test_config();
  c.probes = 1;
  ul__health *h;
  ASSERT_OK(ul__health_create(&c, &h));
  trip_by_losses(h, 0);
  ASSERT_EQ(ul__health_allow(h, SEC), UL__HEALTH_PROBE);
  ASSERT_EQ(ul__health_allow(h, SEC + MS), UL__HEALTH_REJECT);
  /* The probe never reports back: after the deadline (2 s) another may go. */
  ASSERT_EQ(ul__health_allow(h, 3 * SEC), UL__HEALTH_PROBE);
  ul__health_destroy(h);
}

static void test_late_attribution(void) {
  ul__health_config c = test_config();
  c.max_pending = 4;
  ul__health *h;
  ASSERT_OK(ul__health_create(&c, &h));
  ASSERT_OK(ul__health_begin(h, 7, UL__HEALTH_OP_SUBMIT, 0, 0, 0));
  ASSERT_OK(ul__health_begin(h, 8, UL__HEALTH_OP_SUBMIT, 0, 0, 10 * MS));
  ASSERT_OK(ul__health_begin(h, 9, UL__HEALTH_OP_READ, 0, 0, 20 * MS));
  ASSERT_STATUS(ul__health_begin(h, 8, UL__HEALTH_OP_SUBMIT, 0, 0, 30 * MS), UL_ERR_INVALID_ARGUMENT);
  ASSERT_OK(ul__health_begin(h, 10, UL__HEALTH_OP_SUBMIT, 0, 0, 30 * MS));
  ASSERT_STATUS(ul__health_begin(h, 11, UL__HEALTH_OP_SUBMIT, 0, 0, 30 * MS), UL_ERR_BUSY);
  /* Out of order: 9 first, then 7 (latency 500 ms: slow), then 8. */
  ASSERT_OK(ul__health_end(h, 9, UL__HEALTH_OK, 120 * MS, NULL));
  ASSERT_OK(ul__health_end(h, 7, UL__HEALTH_OK, 500 * MS, NULL));
  ASSERT_OK(ul__health_end(h, 8, UL__HEALTH_INTERNAL, 510 * MS, NULL));
  ASSERT_STATUS(ul__health_end(h, 8, UL__HEALTH_OK, 520 * MS, NULL), UL_ERR_INVALID_ARGUMENT);
  ASSERT_STATUS(ul__health_end(h, 99, UL__HEALTH_OK, 520 * MS, NULL), UL_ERR_INVALID_ARGUMENT);
  ul__health_snapshot s;
  ul__health_snapshot_get(h, SEC, &s);
  ASSERT_EQ_U(s.pending, 1);
  ASSERT_EQ_U(s.window.calls, 3);
  ASSERT_EQ_U(s.window.faults, 1);
  ASSERT_EQ_U(s.window.slow, 1);
  ASSERT_EQ_U(s.latency[UL__HEALTH_OP_READ].count, 1);
  ASSERT_EQ_F(s.latency[UL__HEALTH_OP_READ].p50_ns, 100 * MS, 100 * MS * UL__HIST_REL_ERROR);
  ASSERT_EQ_U(s.latency[UL__HEALTH_OP_SUBMIT].count, 1);
  ASSERT_EQ_U(s.latency[UL__HEALTH_OP_SUBMIT].max_ns, 500 * MS);
  ASSERT_EQ_U(s.seconds[UL__HEALTH_OP_SUBMIT].count, 1);
  ASSERT_EQ_F(s.seconds[UL__HEALTH_OP_SUBMIT].sum, 0.5, 1e-9);
  /* The table has room again, and a freed serial may be reused. */
  ASSERT_OK(ul__health_begin(h, 8, UL__HEALTH_OP_SUBMIT, 0, 0, SEC));
  ASSERT_EQ(ul__health_drop_pending(h), 2);
  ASSERT_STATUS(ul__health_end(h, 10, UL__HEALTH_OK, SEC, NULL), UL_ERR_INVALID_ARGUMENT);
  ul__health_destroy(h);
}

/* Many serials through a small table exercise the probe chains and deletion. */
static void test_pending_table_churn(void) {
  ul__health_config c = test_config();
  c.max_pending = 64;
  ul__health *h;
  ASSERT_OK(ul__health_create(&c, &h));
  uint64_t live[64];
  int n = 0;
  uint64_t next = 1;
  for (int step = 0; step < 20000; step++) {
    if (n < 64 && (n == 0 || rng_next() % 2)) {
      uint64_t serial = next++ * 977; /* spread */
      ASSERT_OK(ul__health_begin(h, serial, UL__HEALTH_OP_SUBMIT, 0, 1000 * SEC, 0));
      live[n++] = serial;
    } else {
      int k = (int)(rng_next() % (uint64_t)n);
      ASSERT_OK(ul__health_end(h, live[k], UL__HEALTH_OK, MS, NULL));
      live[k] = live[--n];
    }
  }
  ul__health_snapshot s;
  ul__health_snapshot_get(h, MS, &s);
  ASSERT_EQ_U(s.pending, (uint64_t)n);
  for (int k = 0; k < n; k++) ASSERT_OK(ul__health_end(h, live[k], UL__HEALTH_OK, MS, NULL));
  ul__health_destroy(h);
}

static void test_first_use_excluded(void) {
  ul__health_config c = test_config();
  ul__health *h;
  ASSERT_OK(ul__health_create(&c, &h));
  for (int i = 0; i < 50; i++)
    ASSERT_OK(ul__health_record(h, UL__HEALTH_OP_SUBMIT, UL__HEALTH_FIRST_USE, UL__HEALTH_OK,
                                5 * SEC, 0, NULL));
  ASSERT_OK(ul__health_begin(h, 1, UL__HEALTH_OP_SUBMIT, UL__HEALTH_FIRST_USE, 10 * SEC, 0));
  ASSERT_OK(ul__health_end(h, 1, UL__HEALTH_OK, 3 * SEC, NULL));
  ASSERT_EQ(state_at(h, 3 * SEC), UL__HEALTH_HEALTHY);
  ul__health_snapshot s;
  ul__health_snapshot_get(h, 3 * SEC, &s);
  ASSERT_EQ_U(s.window.calls, 51);
  ASSERT_EQ_U(s.window.timed, 0);
  ASSERT_EQ_U(s.window.slow, 0);
  ASSERT_EQ_U(s.latency[UL__HEALTH_OP_SUBMIT].count, 0);
  ASSERT_EQ_U(s.seconds[UL__HEALTH_OP_SUBMIT].count, 0);
  ASSERT_EQ_U(s.totals[UL__HEALTH_OK], 51);
  ul__health_destroy(h);
}

static void test_watchdog_overdue(void) {
  ul__health_config c = test_config();
  ul__health *h;
  ASSERT_OK(ul__health_create(&c, &h)); /* deadline 2 s */
  ASSERT_OK(ul__health_begin(h, 1, UL__HEALTH_OP_SUBMIT, 0, 0, 0));
  ASSERT_OK(ul__health_begin(h, 2, UL__HEALTH_OP_SUBMIT, 0, 0, 100 * MS));
  ASSERT_OK(ul__health_begin(h, 3, UL__HEALTH_OP_READ, 0, 500 * MS, 200 * MS)); /* due 700 ms */
  ASSERT_OK(ul__health_begin(h, 4, UL__HEALTH_OP_SUBMIT, 0, 0, 300 * MS));
  uint64_t out[8];
  size_t n = 99;
  ASSERT_OK(ul__health_overdue(h, 699 * MS, out, 8, &n));
  ASSERT_EQ(n, 0);
  ASSERT_OK(ul__health_overdue(h, 700 * MS, out, 8, &n));
  ASSERT_EQ(n, 1);
  ASSERT_EQ_U(out[0], 3);
  ASSERT_EQ(state_at(h, 700 * MS), UL__HEALTH_HEALTHY);
  /* At 2.2 s serials 1 and 2 are due; cap 1 reports the older first. */
  ASSERT_OK(ul__health_overdue(h, 2200 * MS, out, 1, &n));
  ASSERT_EQ(n, 1);
  ASSERT_EQ_U(out[0], 1);
  ASSERT_OK(ul__health_overdue(h, 2200 * MS, out, 8, &n));
  ASSERT_EQ(n, 1);
  ASSERT_EQ_U(out[0], 2);
  ASSERT_EQ(state_at(h, 2200 * MS), UL__HEALTH_BROKEN); /* three TIMEOUTs in a row */
  ASSERT_CONTAINS(seen.ev[0].reason, "consecutive");
  ul__health_snapshot s;
  ul__health_snapshot_get(h, 2200 * MS, &s);
  ASSERT_EQ_U(s.totals[UL__HEALTH_TIMEOUT], 3);
  ASSERT_EQ_U(s.pending, 1);
  /* A reported serial that finishes after all is no longer pending. */
  ASSERT_STATUS(ul__health_end(h, 1, UL__HEALTH_OK, 2300 * MS, NULL), UL_ERR_INVALID_ARGUMENT);
  /* Serial 4 was submitted before the trip: its late outcome is no probe. */
  ASSERT_EQ(ul__health_allow(h, 3300 * MS), UL__HEALTH_PROBE);
  ASSERT_OK(ul__health_end(h, 4, UL__HEALTH_OK, 3300 * MS, NULL));
  ul__health_snapshot_get(h, 3300 * MS, &s);
  ASSERT_EQ(s.state, UL__HEALTH_HALF_OPEN);
  ASSERT_EQ_U(s.totals[UL__HEALTH_OK], 1);
  ul__health_destroy(h);
}

static void test_oom_evicts_first(void) {
  ul__health_config c = test_config();
  ul__health *h;
  ASSERT_OK(ul__health_create(&c, &h));
  unsigned actions = 0;
  ASSERT_OK(ul__health_record(h, UL__HEALTH_OP_WRITE, 0, UL__HEALTH_OUT_OF_MEMORY, 0, 0, &actions));
  ASSERT_EQ(actions, UL__HEALTH_ACTION_EVICT);
  ASSERT_EQ(seen.evicts, 1);
  ASSERT_EQ(state_at(h, 0), UL__HEALTH_HEALTHY); /* not counted yet */
  ul__health_snapshot s;
  ul__health_snapshot_get(h, 0, &s);
  ASSERT_EQ_U(s.window.outcomes[UL__HEALTH_OUT_OF_MEMORY], 0);
  ASSERT_EQ_U(s.totals[UL__HEALTH_OUT_OF_MEMORY], 1);
  /* Eviction helped: a success, then a new episode asks again. */
  ASSERT_OK(ul__health_record(h, UL__HEALTH_OP_WRITE, 0, UL__HEALTH_OK, MS, 0, &actions));
  ASSERT_EQ(actions, 0);
  ASSERT_OK(ul__health_record(h, UL__HEALTH_OP_WRITE, 0, UL__HEALTH_OUT_OF_MEMORY, 0, 0, &actions));
  ASSERT_EQ(actions, UL__HEALTH_ACTION_EVICT);
  ASSERT_EQ(seen.evicts, 2);
  /* Eviction did not help: now it counts, as memory pressure (DEGRADED, not BROKEN). */
  ASSERT_OK(ul__health_record(h, UL__HEALTH_OP_WRITE, 0, UL__HEALTH_OUT_OF_MEMORY, 0, 0, &actions));
  ASSERT_EQ(actions, 0);
  ASSERT_EQ(seen.evicts, 2);
  ASSERT_EQ(state_at(h, 0), UL__HEALTH_DEGRADED);
  ASSERT_CONTAINS(seen.ev[0].reason, "out of memory");
  record_n(h, 100, UL__HEALTH_OUT_OF_MEMORY, 0, 0);
  ASSERT_EQ(state_at(h, 0), UL__HEALTH_DEGRADED);
  ASSERT_EQ(state_at(h, 10 * SEC), UL__HEALTH_HEALTHY); /* the window forgot */
  ul__health_destroy(h);
}

static void test_memory_pressure_hysteresis(void) {
  ul__health_config c = test_config();
  ul__health *h;
  ASSERT_OK(ul__health_create(&c, &h));
  ul__health_memory(h, 89, 100, 0);
  ASSERT_EQ(state_at(h, 0), UL__HEALTH_HEALTHY);
  ul__health_memory(h, 90, 100, 0);
  ASSERT_EQ(state_at(h, 0), UL__HEALTH_DEGRADED);
  ul__health_memory(h, 81, 100, 0);
  ASSERT_EQ(state_at(h, 0), UL__HEALTH_DEGRADED);
  ul__health_memory(h, 79, 100, 0);
  ASSERT_EQ(state_at(h, 0), UL__HEALTH_HEALTHY);
  ul__health_memory(h, 1000, 0, 0); /* no budget: no pressure */
  ASSERT_EQ(state_at(h, 0), UL__HEALTH_HEALTHY);
  ASSERT_EQ(seen.n, 2);
  ul__health_destroy(h);
}

static void test_window_expiry_heals(void) {
  ul__health_config c = test_config();
  ul__health *h;
  ASSERT_OK(ul__health_create(&c, &h));
  record_n(h, 18, UL__HEALTH_OK, MS, 0);
  record_n(h, 2, UL__HEALTH_INTERNAL, 0, 0);
  ASSERT_EQ(state_at(h, 0), UL__HEALTH_DEGRADED); /* 10 % faults */
  ASSERT_EQ(state_at(h, 9 * SEC), UL__HEALTH_DEGRADED);
  ASSERT_EQ(state_at(h, 10 * SEC), UL__HEALTH_HEALTHY); /* the faults rolled off */
  /* Faults spread over 10 s only count while their buckets live. */
  for (uint64_t sec = 20; sec < 40; sec++) {
    record_n(h, 19, UL__HEALTH_OK, MS, sec * SEC);
    record_n(h, 1, UL__HEALTH_INTERNAL, 0, sec * SEC); /* 5 % -> DEGRADED once 20 calls */
  }
  ASSERT_EQ(state_at(h, 39 * SEC), UL__HEALTH_DEGRADED);
  ASSERT_EQ(state_at(h, 48 * SEC), UL__HEALTH_DEGRADED); /* second 39: 5 % > 1 % exit */
  ASSERT_EQ(state_at(h, 49 * SEC), UL__HEALTH_HEALTHY);
  ul__health_destroy(h);
}

/* ul__health_allow alone (a call's entry asks nothing else) sees the window
 * move on: it skips the evaluation only while nothing can have changed,
 * never past the window's next bucket. The state is read from the
 * listener, not from ul__health_state_now, which evaluates by itself. */
static void test_allow_alone_sees_the_window_move(void) {
  ul__health_config c = test_config();
  ul__health *h;
  ASSERT_OK(ul__health_create(&c, &h));
  record_n(h, 18, UL__HEALTH_OK, MS, 0);
  record_n(h, 2, UL__HEALTH_INTERNAL, 0, 0);
  ASSERT_EQ(seen.n, 1);
  ASSERT_EQ(seen.ev[0].to, UL__HEALTH_DEGRADED);
  /* Many entries in between, as a program's calls make. */
  for (uint64_t t = 0; t < 10 * SEC; t += 7 * MS) ASSERT_EQ(ul__health_allow(h, t), UL__HEALTH_ALLOW);
  ASSERT_EQ(seen.n, 1); /* the faults still count until their bucket leaves the window */
  ASSERT_EQ(ul__health_allow(h, 10 * SEC), UL__HEALTH_ALLOW);
  ASSERT_EQ(seen.n, 2);
  ASSERT_EQ(seen.ev[1].to, UL__HEALTH_HEALTHY);
  /* And an outcome between two entries is seen by the next one. */
  record_n(h, 3, UL__HEALTH_LOSS, 0, 11 * SEC);
  ASSERT_EQ(ul__health_allow(h, 11 * SEC), UL__HEALTH_REJECT);
  ul__health_destroy(h);
}

static void test_manual_trip_and_clock(void) {
  ul__health_config c = test_config();
  ul__health *h;
  ASSERT_OK(ul__health_create(&c, &h));
  now_ns = 5 * SEC;
  ASSERT_EQ_U(ul__health_now(h), 5 * SEC);
  ul__health_trip(h, "declared hung", UL__HEALTH_NOW);
  ul__health_snapshot s;
  ul__health_snapshot_get(h, UL__HEALTH_NOW, &s);
  ASSERT_EQ(s.state, UL__HEALTH_BROKEN);
  ASSERT_STR_EQ(s.reason, "declared hung");
  ASSERT_EQ_U(s.state_since_ns, 5 * SEC);
  now_ns = 5 * SEC + 500 * MS;
  ul__health_snapshot_get(h, UL__HEALTH_NOW, &s);
  ASSERT_EQ_U(s.time_in_state_ns, 500 * MS);
  ASSERT_EQ(ul__health_allow(h, UL__HEALTH_NOW), UL__HEALTH_REJECT);
  now_ns = 6 * SEC;
  ul__health_tick(h, UL__HEALTH_NOW);
  ASSERT_EQ(state_at(h, UL__HEALTH_NOW), UL__HEALTH_HALF_OPEN);
  ul__health_destroy(h);
}

static void test_listener_outside_lock(void) {
  ul_test_watchdog(120);
  ul__health_config c = test_config();
  ul__health *h;
  ASSERT_OK(ul__health_create(&c, &h));
  seen.reenter = h;
  trip_by_losses(h, 0);
  ASSERT_EQ(ul__health_allow(h, 2 * SEC), UL__HEALTH_PROBE);
  ASSERT_TRUE(seen.n >= 2);
  seen.reenter = NULL;
  ul__health_destroy(h);
}

/* ---- threads ------------------------------------------------------------------------ */

enum { THREADS = 4, PER_THREAD = 20000 };

typedef struct worker {
  ul__health *h;
  int id;
} worker;

static void *worker_main(void *arg) {
  worker *w = arg;
  for (int i = 0; i < PER_THREAD; i++) {
    uint64_t serial = (uint64_t)w->id << 32 | (uint64_t)i;
    if (i % 2) {
      (void)ul__health_begin(w->h, serial, UL__HEALTH_OP_SUBMIT, 0, 0, UL__HEALTH_NOW);
      (void)ul__health_end(w->h, serial, i % 7 ? UL__HEALTH_OK : UL__HEALTH_VALIDATION,
                           UL__HEALTH_NOW, NULL);
    } else {
      (void)ul__health_record(w->h, UL__HEALTH_OP_READ, 0, UL__HEALTH_OK, 1000, UL__HEALTH_NOW, NULL);
    }
    if (i % 1000 == 0) {
      ul__health_snapshot s;
      ul__health_snapshot_get(w->h, UL__HEALTH_NOW, &s);
      (void)ul__health_allow(w->h, UL__HEALTH_NOW);
    }
  }
  return NULL;
}

static void test_threads(void) {
  ul__health_config c = test_config();
  c.clock = NULL; /* the real clock */
  ul__health *h;
  ASSERT_OK(ul__health_create(&c, &h));
  pthread_t th[THREADS];
  worker w[THREADS];
  for (int i = 0; i < THREADS; i++) {
    w[i] = (worker){h, i};
    ASSERT_EQ(pthread_create(&th[i], NULL, worker_main, &w[i]), 0);
  }
  for (int i = 0; i < THREADS; i++) pthread_join(th[i], NULL);
  ul__health_snapshot s;
  ul__health_snapshot_get(h, UL__HEALTH_NOW, &s);
  ASSERT_EQ_U(s.total_calls, (uint64_t)THREADS * PER_THREAD);
  ASSERT_EQ_U(s.pending, 0);
  ASSERT_EQ(s.state, UL__HEALTH_HEALTHY);
  ul__health_destroy(h);
}

/* ---- metrics ------------------------------------------------------------------------ */

/* A small JSON validator: the value grammar of RFC 8259. */
static const char *json_value(const char *p, int depth);
static const char *json_ws(const char *p) {
  while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r') p++;
  return p;
}
static const char *json_string(const char *p) {
  if (*p++ != '"') return NULL;
  while (*p != '"') {
    if ((unsigned char)*p < 0x20) return NULL;
    if (*p == '\\') {
      p++;
      if (*p == 'u') {
        for (int i = 1; i <= 4; i++)
          if (!isxdigit((unsigned char)p[i])) return NULL;
        p += 4;
      } else if (!strchr("\"\\/bfnrt", *p)) {
        return NULL;
      }
    }
    p++;
  }
  return p + 1;
}
static const char *json_value(const char *p, int depth) {
  if (depth > 32) return NULL;
  p = json_ws(p);
  if (*p == '{' || *p == '[') {
    char close = *p == '{' ? '}' : ']';
    bool obj = *p == '{';
    p = json_ws(p + 1);
    if (*p == close) return p + 1;
    for (;;) {
      if (obj) {
        p = json_string(json_ws(p));
        if (!p) return NULL;
        p = json_ws(p);
        if (*p++ != ':') return NULL;
      }
      p = json_value(p, depth + 1);
      if (!p) return NULL;
      p = json_ws(p);
      if (*p == close) return p + 1;
      if (*p++ != ',') return NULL;
    }
  }
  if (*p == '"') return json_string(p);
  if (!strncmp(p, "true", 4) || !strncmp(p, "null", 4)) return p + 4;
  if (!strncmp(p, "false", 5)) return p + 5;
  const char *s = p;
  if (*p == '-') p++;
  if (!isdigit((unsigned char)*p)) return NULL;
  while (isdigit((unsigned char)*p) || strchr(".eE+-", *p)) p++;
  char *end;
  (void)strtod(s, &end);
  return end == p ? p : NULL;
}

static void fill_device(ul__health *h, ul__health_snapshot *snap) {
  for (int i = 0; i < 200; i++)
    (void)ul__health_record(h, UL__HEALTH_OP_SUBMIT, 0, UL__HEALTH_OK,
                            (uint64_t)(50000 + (rng_next() % 150000000)) /* below slow */, 0, NULL);
  record_n(h, 3, UL__HEALTH_VALIDATION, 0, 0);
  ul__health_snapshot_get(h, 0, snap);
}

static void test_prometheus_exposition(void) {
  ul__health_config c = test_config();
  ul__health *h0, *h1;
  ASSERT_OK(ul__health_create(&c, &h0));
  ASSERT_OK(ul__health_create(&c, &h1));
  ul__health_snapshot s0, s1;
  fill_device(h0, &s0);
  trip_by_losses(h1, 0);
  ul__health_snapshot_get(h1, 0, &s1);
  ul__prom_hist rec;
  ASSERT_OK(ul__prom_hist_init(&rec, NULL, 0));
  ul__prom_hist_observe(&rec, 0.8);
  ul__prom_hist_observe(&rec, 3.0);
  ul__prom_hist_observe(&rec, 30.0);
  ul__metrics_device devs[2] = {
      {.device = "gpu0", .health = &s0, .losses_total = 2, .recoveries_total = 2,
       .recovery_seconds = &rec, .live_objects = 12, .live_bytes = 1u << 20},
      {.device = "odd \"name\\\n", .health = &s1, .losses_total = 3},
  };
  char *text = NULL;
  size_t len = 0;
  ASSERT_OK(ul__metrics_prometheus(devs, 2, &text, &len));
  ASSERT_EQ(len, strlen(text));
  prom_doc doc;
  char err[256];
  if (prom_parse(text, &doc, err, sizeof err) != 0) {
    UL__FAIL_AT("exposition rejected: %s\n%s", err, text);
    free(text);
    return;
  }
  static const char *const families[][2] = {
      {"unlost_device_state", "gauge"},        {"unlost_breaker_state", "gauge"},
      {"unlost_device_losses_total", "counter"}, {"unlost_recoveries_total", "counter"},
      {"unlost_recovery_seconds", "histogram"}, {"unlost_live_objects", "gauge"},
      {"unlost_live_bytes", "gauge"},          {"unlost_submit_seconds", "histogram"},
      {"unlost_read_seconds", "histogram"},    {"unlost_calls_total", "counter"},
  };
  for (size_t i = 0; i < UL__COUNT_OF(families); i++) {
    const prom_family *f = prom_family_get(&doc, families[i][0]);
    ASSERT_TRUE(f != NULL);
    ASSERT_TRUE(f->has_help && f->has_type);
    ASSERT_STR_EQ(f->type, families[i][1]);
  }
  double v = -1;
  ASSERT_TRUE(prom_get(&doc, "unlost_device_state", "device=gpu0", &v));
  ASSERT_EQ_F(v, 0, 0);
  ASSERT_TRUE(prom_get(&doc, "unlost_device_state", "device=odd \"name\\\n", &v));
  ASSERT_EQ_F(v, 2, 0);
  ASSERT_TRUE(prom_get(&doc, "unlost_breaker_state", "device=odd \"name\\\n", &v));
  ASSERT_EQ_F(v, 1, 0);
  ASSERT_TRUE(prom_get(&doc, "unlost_device_losses_total", "device=gpu0", &v));
  ASSERT_EQ_F(v, 2, 0);
  ASSERT_TRUE(prom_get(&doc, "unlost_live_bytes", "device=gpu0", &v));
  ASSERT_EQ_F(v, 1 << 20, 0);
  ASSERT_TRUE(prom_get(&doc, "unlost_recovery_seconds_bucket", "device=gpu0,le=1", &v));
  ASSERT_EQ_F(v, 1, 0);
  ASSERT_TRUE(prom_get(&doc, "unlost_recovery_seconds_bucket", "device=gpu0,le=+Inf", &v));
  ASSERT_EQ_F(v, 3, 0);
  ASSERT_TRUE(prom_get(&doc, "unlost_recovery_seconds_sum", "device=gpu0", &v));
  ASSERT_EQ_F(v, 33.8, 1e-9);
  ASSERT_TRUE(prom_get(&doc, "unlost_submit_seconds_count", "device=gpu0", &v));
  ASSERT_EQ_F(v, 200, 0);
  ASSERT_TRUE(prom_get(&doc, "unlost_submit_seconds_bucket", "device=gpu0,le=0.0001", &v));
  ASSERT_TRUE(prom_get(&doc, "unlost_calls_total", "device=gpu0,outcome=validation", &v));
  ASSERT_EQ_F(v, 3, 0);
  ASSERT_TRUE(prom_get(&doc, "unlost_window_latency_seconds", "device=gpu0,op=submit,quantile=0.95", &v));
  ASSERT_EQ_F(v, (double)s0.latency[UL__HEALTH_OP_SUBMIT].p95_ns * 1e-9, 1e-12);
  ASSERT_CONTAINS(text, "unlost_device_state{device=\"gpu0\"} 0\n");
  ASSERT_CONTAINS(text, "{device=\"odd \\\"name\\\\\\n\"}");
  prom_free(&doc);
  free(text);

  char *json = NULL;
  ASSERT_OK(ul__metrics_json(devs, 2, &json, &len));
  const char *end = json_value(json, 0);
  if (!end || *json_ws(end) != '\0') {
    UL__FAIL_AT("invalid JSON near: %.60s", end ? end : "(parse error)");
    free(json);
    return;
  }
  ASSERT_CONTAINS(json, "\"device\":\"odd \\\"name\\\\\\n\"");
  ASSERT_CONTAINS(json, "\"state\":\"BROKEN\"");
  ASSERT_CONTAINS(json, "\"breaker\":\"open\"");
  ASSERT_CONTAINS(json, "{\"le\":\"+Inf\",\"count\":3}");
  free(json);

  /* No devices, and a device without health: still valid. */
  ASSERT_OK(ul__metrics_prometheus(NULL, 0, &text, &len));
  ASSERT_TRUE(prom_parse(text, &doc, err, sizeof err) == 0);
  prom_free(&doc);
  free(text);
  ul__metrics_device bare = {.device = "cpu"};
  ASSERT_OK(ul__metrics_prometheus(&bare, 1, &text, &len));
  ASSERT_TRUE(prom_parse(text, &doc, err, sizeof err) == 0);
  ASSERT_TRUE(prom_find(&doc, "unlost_device_state", "device=cpu") == NULL);
  prom_free(&doc);
  free(text);
  ASSERT_OK(ul__metrics_json(&bare, 1, &json, &len));
  ASSERT_CONTAINS(json, "\"health\":null");
  free(json);
  ul__metrics_device unnamed = {.device = NULL};
  ASSERT_STATUS(ul__metrics_prometheus(&unnamed, 1, &text, &len), UL_ERR_INVALID_ARGUMENT);
  ul__health_destroy(h0);
  ul__health_destroy(h1);
}

/* The checker must catch what it claims to check. */
static void test_prom_parser_rejects(void) {
  static const char *const good =
      "# HELP a_total A counter.\n# TYPE a_total counter\na_total{x=\"1\"} 3\n"
      "# TYPE h histogram\nh_bucket{le=\"0.1\"} 1\nh_bucket{le=\"+Inf\"} 2\nh_sum 0.3\nh_count 2\n";
  static const char *const bad[] = {
      "a 1",                                           /* no final newline */
      "1a 1\n",                                        /* metric name */
      "a{1x=\"v\"} 1\n",                               /* label name */
      "a{__x=\"v\"} 1\n",                              /* reserved label */
      "a{x=v} 1\n",                                    /* unquoted value */
      "a{x=\"\\t\"} 1\n",                              /* bad escape */
      "a{x=\"v\",} 1\n",                               /* trailing comma */
      "a{x=\"v\",x=\"w\"} 1\n",                        /* repeated label */
      "a 1x\n",                                        /* value */
      "a 0x10\n",                                      /* hex value */
      "a  1\n",                                        /* two spaces */
      "a 1\na 2\n",                                    /* duplicate series */
      "a 1\nb 1\na{x=\"1\"} 1\n",                      /* family not contiguous */
      "# TYPE a counter\n# TYPE a counter\na 1\n",     /* second TYPE */
      "# HELP a x\n# HELP a y\na 1\n",                 /* second HELP */
      "a 1\n# TYPE a gauge\n",                         /* TYPE after samples */
      "# TYPE a countr\na 1\n",                        /* unknown type */
      "# TYPE a counter\na -1\n",                      /* negative counter */
      "# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\nh_sum 1\nh_count 1\n",
      "# TYPE h histogram\nh_bucket{le=\"2\"} 1\nh_bucket{le=\"1\"} 1\nh_bucket{le=\"+Inf\"} 1\nh_sum 1\nh_count 1\n",
      "# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_sum 1\nh_count 1\n",                 /* no +Inf */
      "# TYPE h histogram\nh_bucket{le=\"+Inf\"} 2\nh_sum 1\nh_count 3\n",            /* +Inf != count */
      "# TYPE h histogram\nh_bucket{le=\"+Inf\"} 2\nh_count 2\n",                     /* no sum */
      "# TYPE h histogram\nh_bucket 2\nh_sum 1\nh_count 2\n",                         /* no le */
      "# TYPE h histogram\nh_bucket{le=\"+Inf\"} 2\nh_sum 1\nh_count 2\nh 1\n",       /* stray */
      "a 1\r\n",                                                                       /* CR */
  };
  prom_doc doc;
  char err[256];
  if (prom_parse(good, &doc, err, sizeof err) != 0) {
    UL__FAIL_AT("good text rejected: %s", err);
    return;
  }
  prom_free(&doc);
  for (size_t i = 0; i < UL__COUNT_OF(bad); i++) {
    if (prom_parse(bad[i], &doc, err, sizeof err) == 0) {
      prom_free(&doc);
      UL__FAIL_AT("accepted bad text %zu: %s", i, bad[i]);
      return;
    }
  }
  ASSERT_TRUE(prom_valid_metric_name("unlost_device_state"));
  ASSERT_TRUE(!prom_valid_metric_name("unlost-state"));
}

int main(void) {
  ul_test_watchdog(240);
  RUN_TEST(test_hist_index_bounds);
  RUN_TEST(test_hist_percentile_accuracy);
  RUN_TEST(test_prom_hist);
  RUN_TEST(test_window_expiry);
  RUN_TEST(test_config_checked);
  RUN_TEST(test_validation_never_counts);
  RUN_TEST(test_min_calls);
  RUN_TEST(test_slow_degrades_with_hysteresis);
  RUN_TEST(test_fault_rate_trips);
  RUN_TEST(test_consecutive_losses);
  RUN_TEST(test_half_open_cycle);
  RUN_TEST(test_trip_decay);
  RUN_TEST(test_jitter_seeded);
  RUN_TEST(test_probe_regranted_after_deadline);
  RUN_TEST(test_late_attribution);
  RUN_TEST(test_pending_table_churn);
  RUN_TEST(test_first_use_excluded);
  RUN_TEST(test_watchdog_overdue);
  RUN_TEST(test_oom_evicts_first);
  RUN_TEST(test_memory_pressure_hysteresis);
  RUN_TEST(test_window_expiry_heals);
  RUN_TEST(test_allow_alone_sees_the_window_move);
  RUN_TEST(test_manual_trip_and_clock);
  RUN_TEST(test_listener_outside_lock);
  RUN_TEST(test_threads);
  RUN_TEST(test_prometheus_exposition);
  RUN_TEST(test_prom_parser_rejects);
  TEST_MAIN_END();
}
