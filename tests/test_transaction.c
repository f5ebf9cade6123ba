// ctest-labels: threads
/* Recovery is never silently wrong. One test per way it was seen to be
 * wrong: a loss during a checkpoint, repeated losses over a long stencil, a
 * second loss during recovery, reads in flight at a loss, a checkpoint from
 * a restore callback, a read that timed out, the lock held across recovery's
 * sleeps, the log's bound on writes, and work whose logging failed. Each
 * compares with the same computation done on the CPU. */
#include "chaos/chaos.h"
#include "core/core.h"
#include "exec/oplog.h"
#include "recover/recover.h"
#include "ul_test.h"

#include <pthread.h>
#include <time.h>

static const char *step_wgsl =
    "struct P { step: u32, iters: u32, pad0: u32, pad1: u32 }\n"
    "@group(0) @binding(0) var<storage, read> src: array<u32>;\n"
    "@group(0) @binding(1) var<storage, read_write> dst: array<u32>;\n"
    "@group(0) @binding(2) var<uniform> p: P;\n"
    "@group(0) @binding(3) var<storage, read> k: array<u32>;\n"
    "@compute @workgroup_size(64)\n"
    "fn main(@builtin(global_invocation_id) id: vec3u) {\n"
    "  let n = arrayLength(&dst);\n"
    "  let i = id.x;\n"
    "  if (i >= n) { return; }\n"
    "  var acc = src[(i + n - 1u) % n] + 3u * src[i] + src[(i + 1u) % n] + p.step + k[i];\n"
    "  for (var j = 0u; j < p.iters; j++) { acc = acc * 1664525u + 1013904223u; }\n"
    "  dst[i] = acc;\n"
    "}\n";

enum { N = 256 };

/* Fault sweeps are strided this much more under a sanitizer (TSan runs
 * the whole of this file in minutes only so). */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
enum { SWEEP = 16 };
#else
enum { SWEEP = 1 };
#endif

static uint32_t kconst[N];

__attribute__((constructor)) static void kconst_init(void) {
  for (uint32_t i = 0; i < N; i++) kconst[i] = i * 2246822519u + 7u;
}

/* The kernel on the CPU. */
static void cpu_step(const uint32_t *src, uint32_t *dst, uint32_t step, uint32_t iters) {
  for (uint32_t i = 0; i < N; i++) {
    uint32_t acc = src[(i + N - 1) % N] + 3u * src[i] + src[(i + 1) % N] + step + kconst[i];
    for (uint32_t j = 0; j < iters; j++) acc = acc * 1664525u + 1013904223u;
    dst[i] = acc;
  }
}

/* Two buffers that ping-pong (LOG unless told), a uniform written each step
 * (SHADOW), constants from a file (SOURCE). */
typedef struct pp {
  ul_env *env;
  ul_device *dev;
  ul_buffer a, b, params, k;
  ul_shader sh;
  ul_compute_pipeline pipe;
  ul_bind_group ab, ba;
  ul_cmd *fwd, *back;
  char path[64];
} pp;

/* How the uniform is restored: SHADOW, or LOG (then host-written: where
 * its bytes came from). */
static ul_restore g_params_restore = UL_RESTORE_SHADOW;

static ul_status pp_open(pp *t, ul_env *env, const char *chaos, bool health) {
  memset(t, 0, sizeof *t);
  snprintf(t->path, sizeof t->path, "/tmp/unlost-test-tx-%d.bin", (int)getpid());
  FILE *f = fopen(t->path, "wb");
  if (!f || fwrite(kconst, sizeof kconst, 1, f) != 1) return UL_ERR_IO;
  fclose(f);
  uint32_t a0[N];
  for (uint32_t i = 0; i < N; i++) a0[i] = i + 1;
  ul_device_desc dd = {.label = "tx"};
  dd.recovery.backoff_initial_ms = 1;
  dd.recovery.backoff_max_ms = 2;
  dd.health.disabled = !health;
  ul_status s = UL_OK;
  if (env) t->env = env;
  else s = ul_env_create(&(ul_env_desc){.chaos = chaos}, &t->env);
  if (!s) s = ul_device_create(t->env, &dd, &t->dev);
  if (!s) s = ul_buffer_create(t->dev, &(ul_buffer_desc){.label = "a", .size = N * 4, .initial_data = a0}, &t->a);
  if (!s) s = ul_buffer_create(t->dev, &(ul_buffer_desc){.label = "b", .size = N * 4}, &t->b);
  if (!s) s = ul_buffer_create(t->dev, &(ul_buffer_desc){.label = "params", .size = 16,
      .usage = UL_BUFFER_UNIFORM | UL_BUFFER_COPY_DST, .restore = g_params_restore}, &t->params);
  if (!s) s = ul_buffer_create(t->dev, &(ul_buffer_desc){.label = "k", .size = N * 4,
      .restore = UL_RESTORE_SOURCE, .source_path = t->path}, &t->k);
  if (!s) s = ul_shader_create(t->dev, &(ul_shader_desc){.wgsl = step_wgsl}, &t->sh);
  if (!s) s = ul_compute_pipeline_create(t->dev, &(ul_compute_pipeline_desc){.shader = t->sh}, &t->pipe);
  if (!s) s = ul_bind_group_create(t->dev, &(ul_bind_group_desc){.pipeline = t->pipe, .entry_count = 4,
      .entries = {{.binding = 0, .buffer = t->a}, {.binding = 1, .buffer = t->b},
                  {.binding = 2, .buffer = t->params}, {.binding = 3, .buffer = t->k}}}, &t->ab);
  if (!s) s = ul_bind_group_create(t->dev, &(ul_bind_group_desc){.pipeline = t->pipe, .entry_count = 4,
      .entries = {{.binding = 0, .buffer = t->b}, {.binding = 1, .buffer = t->a},
                  {.binding = 2, .buffer = t->params}, {.binding = 3, .buffer = t->k}}}, &t->ba);
  if (!s) s = ul_cmd_create(t->dev, "fwd", &t->fwd);
  if (!s) s = ul_cmd_dispatch(t->fwd, t->pipe, &t->ab, 1, N / 64, 1, 1);
  if (!s) s = ul_cmd_create(t->dev, "back", &t->back);
  if (!s) s = ul_cmd_dispatch(t->back, t->pipe, &t->ba, 1, N / 64, 1, 1);
  return s;
}

static void pp_close(pp *t, bool own_env) {
  ul_cmd_destroy(t->fwd);
  ul_cmd_destroy(t->back);
  ul_bind_group_destroy(t->dev, t->ab);
  ul_bind_group_destroy(t->dev, t->ba);
  ul_compute_pipeline_destroy(t->dev, t->pipe);
  ul_shader_destroy(t->dev, t->sh);
  ul_buffer_destroy(t->dev, t->a);
  ul_buffer_destroy(t->dev, t->b);
  ul_buffer_destroy(t->dev, t->params);
  ul_buffer_destroy(t->dev, t->k);
  ul_memory_stats st = {0};
  ul_device_memory_stats(t->dev, &st);
  EXPECT_EQ(st.live_objects, 0);
  EXPECT_EQ(ul_device_destroy(t->dev), UL_OK);
  if (own_env) EXPECT_EQ(ul_env_destroy(t->env), UL_OK);
  unlink(t->path);
}

/* Step `step` (1-based): odd steps a -> b, even b -> a. */
static ul_status pp_step(pp *t, uint32_t step, uint32_t iters) {
  uint32_t p[4] = {step, iters, 0, 0};
  ul_status s = ul_buffer_write(t->dev, t->params, 0, p, sizeof p);
  if (!s) s = ul_cmd_submit(t->dev, step % 2 ? t->fwd : t->back, NULL);
  return s;
}

/* The CPU's a and b after `steps`. */
static void cpu_run(uint32_t steps, uint32_t iters, uint32_t *a, uint32_t *b) {
  for (uint32_t i = 0; i < N; i++) {
    a[i] = i + 1;
    b[i] = 0;
  }
  for (uint32_t s = 1; s <= steps; s++) {
    if (s % 2) cpu_step(a, b, s, iters);
    else cpu_step(b, a, s, iters);
  }
}

static ul_status read_both(pp *t, uint32_t *a, uint32_t *b) {
  ul_status s = ul_buffer_read(t->dev, t->a, 0, a, N * 4, 0);
  if (!s) s = ul_buffer_read(t->dev, t->b, 0, b, N * 4, 0);
  return s;
}

/* Both buffers equal the CPU's after `steps`. */
static void expect_cpu(pp *t, uint32_t steps, uint32_t iters) {
  uint32_t wa[N], wb[N], ga[N], gb[N];
  cpu_run(steps, iters, wa, wb);
  ASSERT_OK(read_both(t, ga, gb));
  ASSERT_EQ(memcmp(ga, wa, sizeof ga), 0);
  ASSERT_EQ(memcmp(gb, wb, sizeof gb), 0);
}

/* 1. A loss at every call of: checkpoint, three steps, checkpoint, one
 * step, read. An interrupted checkpoint must leave the last committed one
 * and the whole log, or the replay applies work twice. */
static void test_loss_at_every_call_of_checkpoints(void) {
  ul_env *env;
  ASSERT_OK(ul_env_create(&(ul_env_desc){.chaos = "seed=1"}, &env));
  int wrong = 0, applicable = 0, errors = 0;
  uint32_t wa[N], wb[N], ga[N], gb[N];
  cpu_run(5, 0, wa, wb);
  uint64_t calls = 0;
  for (uint64_t at = 0; at == 0 || at <= calls; at++) {
    pp t;
    if (pp_open(&t, env, NULL, false)) {
      ul_env_destroy(env);
      ASSERT_OK(UL_ERR_INTERNAL);
    }
    char spec[64];
    snprintf(spec, sizeof spec, at ? "loss@%llu" : "seed=1", (unsigned long long)at);
    ASSERT_OK(pp_step(&t, 1, 0));
    ASSERT_OK(ul__chaos_reschedule(env->chaos, spec));
    ul__chaos_reset_counters(env->chaos);
    ul_status s = ul_device_checkpoint(t.dev);
    for (uint32_t k = 2; k <= 4 && !s; k++) s = pp_step(&t, k, 0);
    if (!s) s = ul_device_checkpoint(t.dev);
    if (!s) s = pp_step(&t, 5, 0);
    if (!s) s = read_both(&t, ga, gb);
    if (!s) s = ul_device_recover(t.dev);
    uint64_t injected = ul__chaos_injected(env->chaos);
    if (at == 0) calls = ul__chaos_calls(env->chaos);
    ASSERT_OK(ul__chaos_reschedule(env->chaos, "seed=1"));
    if (injected) applicable++;
    if (s) errors++;
    else if (memcmp(ga, wa, sizeof ga) || memcmp(gb, wb, sizeof gb)) {
      if (!wrong) printf("  first wrong at %llu: a[0] %u (want %u), b[0] %u (want %u)\n", (unsigned long long)at, ga[0], wa[0], gb[0], wb[0]);
      wrong++;
    }
    pp_close(&t, false);
  }
  printf("  %llu calls, %d points with a loss, %d wrong, %d errors\n", (unsigned long long)calls, applicable,
         wrong, errors);
  ASSERT_OK(ul_env_destroy(env));
  ASSERT_GE(calls, 40);
  ASSERT_GE(applicable, (int)calls - 2);
  ASSERT_EQ(wrong, 0);
  ASSERT_EQ(errors, 0);
}

/* Reads of 4 words every 25 steps, delivered by poll. */
typedef struct hist {
  uint32_t data[16][4];
  int order[16];
  int delivered;
  ul_status status;
} hist;

static void on_hist(ul_device *d, ul_status s, void *dst, void *user) {
  (void)d;
  hist *h = user;
  if (s && !h->status) h->status = s;
  h->order[h->delivered++] = (int)(((uint32_t(*)[4])dst) - h->data);
}

/* 2. A long stencil with a loss every 37 (and every 100) calls, explicit
 * checkpoints every 100 steps, and a per-step history, with the health
 * monitor off and on: final state and history equal the CPU's. */
static void long_stencil(const char *chaos, bool health) {
  pp t;
  ASSERT_OK(pp_open(&t, NULL, chaos, health));
  const uint32_t steps = 250;
  hist h;
  memset(&h, 0, sizeof h);
  int nreads = 0;
  uint32_t want_hist[16][4];
  uint32_t ca[N], cb[N];
  for (uint32_t i = 0; i < N; i++) {
    ca[i] = i + 1;
    cb[i] = 0;
  }
  for (uint32_t s = 1; s <= steps; s++) {
    ASSERT_OK(pp_step(&t, s, 0));
    if (s % 2) cpu_step(ca, cb, s, 0);
    else cpu_step(cb, ca, s, 0);
    if (s % 25 == 0) {
      ASSERT_OK(ul_buffer_read_async(t.dev, s % 2 ? t.b : t.a, 0, h.data[nreads], 16, on_hist, &h));
      memcpy(want_hist[nreads], s % 2 ? cb : ca, 16);
      nreads++;
    }
    if (s % 100 == 0) ASSERT_OK(ul_device_checkpoint(t.dev));
    if (s % 60 == 0) ul_device_poll(t.dev);
  }
  for (int spin = 0; h.delivered < nreads && spin < 1000; spin++) {
    ul_device_poll(t.dev);
    if (h.delivered < nreads) ASSERT_OK(ul_device_wait_idle(t.dev, 0));
  }
  uint32_t ga[N], gb[N];
  ASSERT_OK(read_both(&t, ga, gb));
  ul_memory_stats st;
  ASSERT_OK(ul_device_memory_stats(t.dev, &st));
  uint64_t injected = ul__chaos_injected(t.env->chaos);
  printf("  %s, health %s: %llu losses injected, %d reads delivered\n", chaos, health ? "on" : "off",
         (unsigned long long)injected, h.delivered);
  ASSERT_GE(injected, 10);
  ASSERT_OK(h.status);
  ASSERT_EQ(h.delivered, nreads);
  for (int i = 0; i < nreads; i++) {
    ASSERT_EQ(h.order[i], i); /* issue order */
    ASSERT_EQ(memcmp(h.data[i], want_hist[i], 16), 0);
  }
  ASSERT_EQ(memcmp(ga, ca, sizeof ga), 0);
  ASSERT_EQ(memcmp(gb, cb, sizeof gb), 0);
  pp_close(&t, true);
}

static void test_long_stencil_with_repeated_losses(void) {
  long_stencil("loss-every=37", false);
  long_stencil("loss-every=37", true);
  long_stencil("loss-every=100", false);
  long_stencil("loss-every=100", true);
}

/* 3. A second loss at every call of the recovery that follows a first: the
 * device ends READY (or recovering again) with correct data, never READY
 * with a lost native device. */
static void test_second_loss_during_recovery_is_kept(void) {
  ul_env *env;
  ASSERT_OK(ul_env_create(&(ul_env_desc){.chaos = "seed=1"}, &env));
  uint32_t wa[N], wb[N], ga[N], gb[N];
  cpu_run(2, 0, wa, wb);
  int injected_points = 0, wrong = 0, errors = 0;
  for (uint64_t j = 1; j <= 60; j++) {
    pp t;
    ASSERT_OK(pp_open(&t, env, NULL, false));
    ASSERT_OK(pp_step(&t, 1, 0));
    ASSERT_OK(ul_device_force_loss(t.dev, "test: first loss"));
    char spec[64];
    snprintf(spec, sizeof spec, "count-recovery=1,loss@%llu", (unsigned long long)j);
    ASSERT_OK(ul__chaos_reschedule(env->chaos, spec));
    ul__chaos_reset_counters(env->chaos);
    ul_status s = pp_step(&t, 2, 0);
    if (ul__chaos_injected(env->chaos)) injected_points++;
    ul__chaos_reschedule(env->chaos, "seed=1");
    if (!s) s = read_both(&t, ga, gb);
    if (!s && (memcmp(ga, wa, sizeof ga) || memcmp(gb, wb, sizeof gb))) wrong++;
    if (!s) s = ul_device_recover(t.dev);
    if (!s && ul_device_get_state(t.dev) != UL_DEVICE_READY) s = UL_ERR_INTERNAL;
    if (s) {
      if (!errors) printf("  second loss at recovery call %llu: %s: %s\n", (unsigned long long)j, ul_status_name(s), ul_last_error());
      errors++;
    }
    pp_close(&t, false);
  }
  ASSERT_OK(ul_env_destroy(env));
  ASSERT_GE(injected_points, 30);
  ASSERT_EQ(wrong, 0);
  ASSERT_EQ(errors, 0);
}

/* 4. Reads in flight at a loss come back with the data of their place in
 * the queue, in issue order. */
static void test_reads_in_flight_keep_their_place(void) {
  pp t;
  ASSERT_OK(pp_open(&t, NULL, NULL, false));
  hist h;
  memset(&h, 0, sizeof h);
  uint32_t want[3][4], ca[N], cb[N];
  for (uint32_t i = 0; i < N; i++) {
    ca[i] = i + 1;
    cb[i] = 0;
  }
  int n = 0;
  for (uint32_t s = 1; s <= 76; s++) {
    ASSERT_OK(pp_step(&t, s, 0));
    if (s % 2) cpu_step(ca, cb, s, 0);
    else cpu_step(cb, ca, s, 0);
    if (s % 25 == 0) {
      ASSERT_OK(ul_buffer_read_async(t.dev, s % 2 ? t.b : t.a, 0, h.data[n], 16, on_hist, &h));
      memcpy(want[n++], s % 2 ? cb : ca, 16);
    }
  }
  ASSERT_OK(ul_device_force_loss(t.dev, "test: reads in flight"));
  for (int spin = 0; h.delivered < n && spin < 1000; spin++) {
    ul_device_poll(t.dev);
    if (h.delivered < n) ASSERT_OK(ul_device_wait_idle(t.dev, 0));
  }
  ASSERT_EQ(h.delivered, n);
  ASSERT_OK(h.status);
  for (int i = 0; i < n; i++) {
    ASSERT_EQ(h.order[i], i);
    ASSERT_EQ(memcmp(h.data[i], want[i], 16), 0);
  }
  pp_close(&t, true);
}

/* 5. A restore callback cannot checkpoint (it would empty the log before
 * the replay): UL_ERR_WRONG_STATE, and the LOG work comes back. */
static ul_status cb_status;
static ul_status refill_and_checkpoint(ul_device *d, ul_buffer b, void *user) {
  (void)user;
  uint32_t z[4] = {0};
  ul_status s = ul_buffer_write(d, b, 0, z, sizeof z);
  cb_status = ul_device_checkpoint(d);
  return s;
}

static void test_checkpoint_in_restore_callback_is_refused(void) {
  pp t;
  ASSERT_OK(pp_open(&t, NULL, NULL, false));
  ul_buffer cbb;
  ASSERT_OK(ul_buffer_create(t.dev, &(ul_buffer_desc){.label = "cb", .size = 16, .restore = UL_RESTORE_CALLBACK,
      .restore_fn = refill_and_checkpoint}, &cbb));
  for (uint32_t s = 1; s <= 3; s++) ASSERT_OK(pp_step(&t, s, 0));
  ASSERT_OK(ul_device_force_loss(t.dev, "test"));
  cb_status = UL_OK;
  expect_cpu(&t, 3, 0);
  ASSERT_STATUS(cb_status, UL_ERR_WRONG_STATE);
  ASSERT_OK(ul_buffer_destroy(t.dev, cbb));
  pp_close(&t, true);
}

/* 6. A read that times out leaves nothing unusable: the next reads work. */
static void test_timed_out_read_leaves_staging_usable(void) {
  pp t;
  ASSERT_OK(pp_open(&t, NULL, NULL, false));
  ASSERT_OK(pp_step(&t, 1, 200000)); /* a slow kernel */
  uint32_t g[N];
  ul_status s = ul_buffer_read(t.dev, t.b, 0, g, N * 4, 1);
  ASSERT_STATUS(s, UL_ERR_TIMEOUT);
  expect_cpu(&t, 1, 200000);
  expect_cpu(&t, 1, 200000);
  pp_close(&t, true);
}

/* 7. Recovery does not hold the device lock across its sleeps: another
 * caller gets its answer within its recovery wait. */
typedef struct racer {
  pp *t;
  double ms;
  ul_status s;
} racer;

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void *recover_thread(void *arg) {
  racer *r = arg;
  r->s = ul_device_recover(r->t->dev);
  return NULL;
}

static void test_recovery_sleeps_without_the_lock(void) {
  pp t;
  ASSERT_OK(pp_open(&t, NULL, "seed=1", false));
  /* Back-off of 300 ms and more between failed requests. */
  t.dev->desc.recovery.backoff_initial_ms = 300;
  t.dev->desc.recovery.backoff_max_ms = 300;
  t.dev->desc.recovery.jitter = -1;
  ASSERT_OK(ul__chaos_reschedule(t.env->chaos, "gpu-fail=3"));
  ASSERT_OK(ul_device_force_loss(t.dev, "test"));
  ul_device_set_recovery_wait(t.dev, 200);
  racer rec = {&t, 0, UL_OK};
  pthread_t th;
  ASSERT_EQ(pthread_create(&th, NULL, recover_thread, &rec), 0);
  /* Until the other thread recovers; then it is in its first back-off. */
  for (int i = 0; i < 2000 && ul_device_get_state(t.dev) != UL_DEVICE_RECOVERING; i++) usleep(1000);
  usleep(20000);
  double t0 = now_ms();
  ul_device_state st = ul_device_get_state(t.dev);
  uint32_t p[4] = {1, 0, 0, 0};
  ul_status s = ul_buffer_write(t.dev, t.params, 0, p, sizeof p);
  double ms = now_ms() - t0;
  pthread_join(th, NULL);
  printf("  other caller answered in %.0f ms (%s); recovery %s\n", ms, ul_status_name(s), ul_status_name(rec.s));
  EXPECT_TRUE(st == UL_DEVICE_RECOVERING);
  ASSERT_STATUS(s, UL_ERR_TIMEOUT);
  ASSERT_LT(ms, 600);
  ASSERT_OK(rec.s);
  ASSERT_OK(ul_device_recover(t.dev));
  pp_close(&t, true);
}

/* 7b. Metrics answer while a recovery holds the device lock to rebuild (here
 * restoring 192 MiB): no call of ul_metrics waits for the rebuild. */
static void *recover_big(void *arg) {
  racer *r = arg;
  double t0 = now_ms();
  r->s = ul_device_recover(r->t->dev);
  r->ms = now_ms() - t0;
  return NULL;
}

static void test_metrics_do_not_wait_for_recovery(void) {
  /* The contents put back inside the recovery, so that it holds the lock
   * long (by default they wait for their first use), and into fresh
   * memory: buffers that kept their pages across the loss would come back
   * too fast to hold it. */
  setenv("UNLOST_RESTORE_EAGER", "1", 1);
  setenv("UNLOST_HOST_BACKING", "0", 1);
  pp t;
  ASSERT_OK(pp_open(&t, NULL, NULL, false));
  static uint8_t weights[192u << 20];
  memset(weights, 0x5a, sizeof weights);
  ul_buffer big;
  ASSERT_OK(ul_buffer_create(t.dev, &(ul_buffer_desc){.label = "weights", .size = sizeof weights,
      .restore = UL_RESTORE_SOURCE, .source_data = weights}, &big));
  ASSERT_OK(ul_device_force_loss(t.dev, "test"));
  racer rec = {&t, 0, UL_OK};
  pthread_t th;
  ASSERT_EQ(pthread_create(&th, NULL, recover_big, &rec), 0);
  double worst = 0;
  int calls = 0;
  while (ul_device_get_state(t.dev) != UL_DEVICE_READY || calls == 0) {
    char *text = NULL;
    double t0 = now_ms();
    ul_status s = ul_metrics(&t.dev, 1, UL_METRICS_PROMETHEUS, &text);
    double ms = now_ms() - t0;
    free(text);
    ASSERT_OK(s);
    if (ms > worst) worst = ms;
    calls++;
    usleep(1000);
  }
  pthread_join(th, NULL);
  printf("  recovery %.0f ms; %d metrics calls meanwhile, the slowest %.1f ms\n", rec.ms, calls, worst);
  ASSERT_OK(rec.s);
  ASSERT_GT(rec.ms, 100);
  ASSERT_LT(worst, rec.ms / 3);
  ASSERT_OK(ul_buffer_destroy(t.dev, big));
  pp_close(&t, true);
  unsetenv("UNLOST_RESTORE_EAGER");
  unsetenv("UNLOST_HOST_BACKING");
}

/* 8. The log's bound holds for writes without submissions. */
static void test_log_bound_holds_for_writes(void) {
  setenv("UNLOST_LOG_MAX_MB", "1", 1);
  pp t;
  ul_status s = pp_open(&t, NULL, NULL, false);
  unsetenv("UNLOST_LOG_MAX_MB");
  ASSERT_OK(s);
  ul_buffer big;
  ASSERT_OK(ul_buffer_create(t.dev, &(ul_buffer_desc){.label = "big", .size = 256 << 10}, &big));
  static uint32_t data[64 << 10], got[64 << 10];
  uint64_t max_log = 0;
  for (uint32_t i = 0; i < 40; i++) {
    for (uint32_t k = 0; k < 64 << 10; k++) data[k] = k * 31u + i;
    ASSERT_OK(ul_buffer_write(t.dev, big, 0, data, sizeof data));
    ul_memory_stats st;
    ASSERT_OK(ul_device_memory_stats(t.dev, &st));
    if (st.log_bytes > max_log) max_log = st.log_bytes;
  }
  printf("  40 writes of 256 KiB: the log held at most %llu bytes\n", (unsigned long long)max_log);
  ASSERT_LE(max_log, (1u << 20) + 4096);
  ASSERT_OK(ul_device_force_loss(t.dev, "test"));
  ASSERT_OK(ul_buffer_read(t.dev, big, 0, got, sizeof got, 0));
  ASSERT_EQ(memcmp(got, data, sizeof got), 0);
  ASSERT_OK(ul_buffer_destroy(t.dev, big));
  pp_close(&t, true);
}

/* 9. Work whose logging fails is not submitted, and the call says so. */
static void test_unlogged_work_is_not_submitted(void) {
  pp t;
  ASSERT_OK(pp_open(&t, NULL, NULL, false));
  ASSERT_OK(pp_step(&t, 1, 0));
  uint32_t p[4] = {2, 0, 0, 0};
  ASSERT_OK(ul_buffer_write(t.dev, t.params, 0, p, sizeof p));
  uint64_t before = ul__malloc_failures();
  ul__malloc_fail_after(0, true);
  ul_status s = ul_cmd_submit(t.dev, t.back, NULL);
  ul__malloc_fail_after(-1, false);
  ASSERT_GT(ul__malloc_failures(), before);
  ASSERT_STATUS(s, UL_ERR_OUT_OF_MEMORY);
  /* Nothing ran: both are as after step 1; so they stay after a loss. */
  expect_cpu(&t, 1, 0);
  ASSERT_OK(ul_device_force_loss(t.dev, "test"));
  expect_cpu(&t, 1, 0);
  /* And a write whose logging fails changes nothing either. */
  uint32_t ones[N];
  for (uint32_t i = 0; i < N; i++) ones[i] = 1;
  ul__malloc_fail_after(0, false);
  ASSERT_STATUS(ul_buffer_write(t.dev, t.a, 0, ones, sizeof ones), UL_ERR_OUT_OF_MEMORY);
  expect_cpu(&t, 1, 0);
  pp_close(&t, true);
}

/* 10. A host allocation that fails at every point of a workload, once and
 * from then on (SQLite's test_malloc.c): the call that meets it says
 * UL_ERR_OUT_OF_MEMORY, and what the calls before it did is what the CPU
 * computes -- at once and after a loss -- and the work goes on from there.
 * The sweep ends at the first point past the workload's last allocation. */
static void test_host_allocation_fails_at_every_point(void) {
  int points = 0;
  for (int continuous = 0; continuous < 2; continuous++) {
    for (long n = 0; n < 10000; n++) {
      pp t;
      ASSERT_OK(pp_open(&t, NULL, NULL, false));
      uint64_t f0 = ul__malloc_failures();
      ul__malloc_fail_after(n, continuous);
      ul_status s = UL_OK;
      uint32_t done = 0;
      for (uint32_t step = 1; step <= 6 && !s; step++) {
        if (step == 4) s = ul_device_checkpoint(t.dev);
        if (!s) s = pp_step(&t, step, 0);
        if (!s) done = step;
      }
      ul__malloc_fail_after(-1, false);
      bool failed = ul__malloc_failures() > f0;
      if (!failed) {
        ASSERT_OK(s);
        expect_cpu(&t, 6, 0);
        pp_close(&t, true);
        break;
      }
      points++;
      if (s != UL_ERR_OUT_OF_MEMORY)
        UL__FAIL_AT("allocation %ld (%s): %s, want UL_ERR_OUT_OF_MEMORY", n, continuous ? "from then on" : "once",
                    ul_status_name(s));
      expect_cpu(&t, done, 0);
      ASSERT_OK(ul_device_force_loss(t.dev, "test: after a failed allocation"));
      expect_cpu(&t, done, 0);
      for (uint32_t step = done + 1; step <= 6; step++) ASSERT_OK(pp_step(&t, step, 0));
      expect_cpu(&t, 6, 0);
      pp_close(&t, true);
    }
  }
  printf("  %d failing allocation points, each refused with UL_ERR_OUT_OF_MEMORY and nothing lost\n", points);
  ASSERT_GT(points, 4);
}

/* 12. Checkpoints that do not stall the queue (UNLOST_CHECKPOINT_ASYNC, on
 * by default): ASYNC_STEPS steps and no explicit checkpoint, so that the
 * log's quarter starts them and they commit while the steps go on, with a
 * read every 24 steps in flight across them; a loss at every 197th (191st)
 * call, and pairs of losses. One run; 0 when its data and
 * every read equal the CPU's, 1 when wrong, 2 on an error. */
enum { ASYNC_STEPS = 560 };

typedef struct async_out {
  uint64_t calls, injected, checkpoints, async_checkpoints;
} async_out;

/* The points of a fault sweep: counted, the first wrong one named. */
typedef struct tally {
  int points, applicable, wrong, errors;
  uint64_t injected;
} tally;

static void tally_add(tally *t, const char *spec, int r, uint64_t injected) {
  t->points++;
  t->applicable += injected > 0;
  t->injected += injected;
  if (r == 1 && !t->wrong) printf("  first wrong at %s\n", spec);
  t->wrong += r == 1;
  t->errors += r == 2;
}

static int async_run(ul_env *env, const char *spec, async_out *out) {
  pp t;
  if (pp_open(&t, env, NULL, false)) return 2;
  ul__chaos_reschedule(env->chaos, spec);
  ul__chaos_reset_counters(env->chaos);
  hist h;
  memset(&h, 0, sizeof h);
  uint32_t want[16][4], ca[N], cb[N], ga[N], gb[N];
  for (uint32_t i = 0; i < N; i++) {
    ca[i] = i + 1;
    cb[i] = 0;
  }
  int nreads = 0;
  ul_status s = UL_OK;
  for (uint32_t k = 1; k <= ASYNC_STEPS && !s; k++) {
    s = pp_step(&t, k, 0);
    if (k % 2) cpu_step(ca, cb, k, 0);
    else cpu_step(cb, ca, k, 0);
    if (!s && k % 24 == 0 && nreads < 16) {
      s = ul_buffer_read_async(t.dev, k % 2 ? t.b : t.a, 0, h.data[nreads], 16, on_hist, &h);
      memcpy(want[nreads++], k % 2 ? cb : ca, 16);
    }
    if (!s && k % 10 == 0) ul_device_poll(t.dev);
    /* The queue never lags far behind (lavapipe on a busy machine can run
     * hundreds of submissions late): each checkpoint's copies arrive
     * before the log reaches the bound where a checkpoint waits. */
    if (!s && k % 64 == 0) s = ul_device_wait_idle(t.dev, 0);
  }
  for (int spin = 0; !s && h.delivered < nreads && spin < 1000; spin++) {
    ul_device_poll(t.dev);
    if (h.delivered < nreads) s = ul_device_wait_idle(t.dev, 0);
  }
  /* A checkpoint that waits, then a loss: what it commits must hold
   * everything, also what changed after an asynchronous one's place and
   * not since. */
  if (!s) s = ul_device_checkpoint(t.dev);
  if (!s) {
    ul_status f = ul_device_force_loss(t.dev, "test: after the last checkpoint");
    if (f != UL_ERR_BUSY) s = f; /* busy: an injected loss is there already */
  }
  if (!s) s = read_both(&t, ga, gb);
  out->calls = ul__chaos_calls(env->chaos);
  out->injected = ul__chaos_injected(env->chaos);
  out->checkpoints = ul__oplog_checkpoints(t.dev);
  out->async_checkpoints = ul__oplog_checkpoints_async(t.dev);
  ul__chaos_reschedule(env->chaos, "seed=1");
  int r = 0;
  if (s || h.status || h.delivered != nreads) {
    r = 2;
  } else {
    if (memcmp(ga, ca, sizeof ga) || memcmp(gb, cb, sizeof gb)) r = 1;
    for (int i = 0; i < nreads; i++)
      if (h.order[i] != i || memcmp(h.data[i], want[i], 16)) r = 1;
  }
  if (r == 2 && !s) s = h.status ? h.status : UL_ERR_INTERNAL;
  if (r == 2) printf("  %s: %s: %s\n", spec, ul_status_name(s), ul_last_error());
  pp_close(&t, false);
  return r;
}

static void async_sweep(ul_restore params, uint64_t stride) {
  g_params_restore = params;
  ul_env *env;
  ASSERT_OK(ul_env_create(&(ul_env_desc){.chaos = "seed=1"}, &env));
  async_out o0;
  ASSERT_EQ(async_run(env, "seed=1", &o0), 0);
  /* Fault-free: asynchronous checkpoints committed, none waited. */
  printf("  uniform %s: %llu calls, %llu checkpoints (%llu asynchronous)\n", params == UL_RESTORE_SHADOW ? "SHADOW" : "LOG",
         (unsigned long long)o0.calls, (unsigned long long)o0.checkpoints, (unsigned long long)o0.async_checkpoints);
  ASSERT_GE(o0.async_checkpoints, 2);
  ASSERT_EQ(o0.checkpoints, o0.async_checkpoints + 1); /* and the explicit one */
  tally t = {0};
  for (uint64_t at = 1 + (uint64_t)params % stride; at <= o0.calls; at += stride) {
    char spec[64];
    snprintf(spec, sizeof spec, "loss@%llu", (unsigned long long)at);
    async_out o;
    int r = async_run(env, spec, &o);
    tally_add(&t, spec, r, o.injected);
  }
  /* Two losses: the second at every 6th call after the first. */
  for (uint64_t at = o0.calls / 3, n = 0; n < (12 + SWEEP - 1) / SWEEP && at + 40 < o0.calls; at += stride / SWEEP, n++) {
    for (uint64_t j = 1; j <= 30; j += 6) {
      char spec[64];
      snprintf(spec, sizeof spec, "loss@%llu,loss@%llu", (unsigned long long)at, (unsigned long long)(at + j));
      async_out o;
      int r = async_run(env, spec, &o);
      tally_add(&t, spec, r, o.injected);
    }
  }
  printf("  %d points (%d with a loss, %llu injected), %d wrong, %d errors\n", t.points, t.applicable,
         (unsigned long long)t.injected, t.wrong, t.errors);
  ASSERT_OK(ul_env_destroy(env));
  g_params_restore = UL_RESTORE_SHADOW;
  ASSERT_GE(t.applicable, t.points * 9 / 10);
  ASSERT_EQ(t.wrong, 0);
  ASSERT_EQ(t.errors, 0);
}

/* 13. What changed after an asynchronous checkpoint's place stays to be
 * checkpointed: steps until one is under way, one more step (b changes
 * after its place), its commit, then a checkpoint that waits and a loss.
 * b must come back as the CPU has it, not as of the place; and a loss at
 * every 7th call of the same (every 112th under a sanitizer). */
static int later_run(ul_env *env, const char *spec, uint64_t *calls, uint64_t *injected, bool *saw) {
  pp t;
  if (pp_open(&t, env, NULL, false)) return 2;
  ul__chaos_reschedule(env->chaos, spec);
  ul__chaos_reset_counters(env->chaos);
  ul_status s = UL_OK;
  uint32_t k = 0;
  *saw = false;
  while (!s && k < 400 && !(*saw = ul__checkpoint_async_pending(t.dev))) s = pp_step(&t, ++k, 0);
  if (!s) s = pp_step(&t, ++k, 0);
  if (!s) s = ul_device_wait_idle(t.dev, 0);
  /* Its commit comes at the next call that logs (the map has ended). */
  uint32_t zero[4] = {0};
  ul_buffer scratch = {0};
  if (!s) s = ul_buffer_create(t.dev, &(ul_buffer_desc){.label = "scratch", .size = 16}, &scratch);
  if (!s) s = ul_buffer_write(t.dev, scratch, 0, zero, sizeof zero);
  if (!s) s = ul_device_checkpoint(t.dev);
  if (!s) {
    ul_status f = ul_device_force_loss(t.dev, "test: after the checkpoint");
    if (f != UL_ERR_BUSY) s = f; /* busy: an injected loss is there already */
  }
  uint32_t wa[N], wb[N], ga[N], gb[N];
  cpu_run(k, 0, wa, wb);
  if (!s) s = read_both(&t, ga, gb);
  *calls = ul__chaos_calls(env->chaos);
  *injected = ul__chaos_injected(env->chaos);
  ul__chaos_reschedule(env->chaos, "seed=1");
  int r = s ? 2 : memcmp(ga, wa, sizeof ga) || memcmp(gb, wb, sizeof gb) ? 1 : 0;
  if (r == 2) printf("  %s: %s: %s\n", spec, ul_status_name(s), ul_last_error());
  if (scratch.id) ul_buffer_destroy(t.dev, scratch);
  pp_close(&t, false);
  return r;
}

static void test_async_checkpoint_keeps_later_changes(void) {
  ul_env *env;
  ASSERT_OK(ul_env_create(&(ul_env_desc){.chaos = "seed=1"}, &env));
  uint64_t calls, injected;
  bool saw;
  ASSERT_EQ(later_run(env, "seed=1", &calls, &injected, &saw), 0);
  ASSERT_TRUE(saw);
  tally t = {0};
  for (uint64_t at = 1; at <= calls; at += 7 * SWEEP) {
    char spec[64];
    snprintf(spec, sizeof spec, "loss@%llu", (unsigned long long)at);
    int r = later_run(env, spec, &calls, &injected, &saw);
    tally_add(&t, spec, r, injected);
  }
  printf("  %d points (%d with a loss), %d wrong, %d errors\n", t.points, t.applicable, t.wrong, t.errors);
  ASSERT_OK(ul_env_destroy(env));
  ASSERT_GE(t.applicable, t.points * 9 / 10);
  ASSERT_EQ(t.wrong, 0);
  ASSERT_EQ(t.errors, 0);
}

/* 13b. A recovery lets go of everything the checkpoint under way holds of
 * the lost device before that device's teardown starts on a thread of its
 * own: its staging buffer, released later, raced with the teardown (TSan,
 * chaos --workload threads at loss-every=45). Right after the recovery no
 * staging buffer of an earlier device is held. */
static void test_recovery_drops_the_checkpoint_under_way(void) {
  ul_env *env;
  ASSERT_OK(ul_env_create(&(ul_env_desc){.chaos = "seed=1"}, &env));
  pp t;
  ASSERT_OK(pp_open(&t, env, NULL, false));
  uint32_t k = 0;
  bool saw = false;
  while (k < 400 && !(saw = ul__checkpoint_async_pending(t.dev))) ASSERT_OK(pp_step(&t, ++k, 0));
  ASSERT_TRUE(saw);
  uint64_t before = ul__checkpoint_staging_epoch(t.dev);
  ASSERT_TRUE(before != 0);
  ASSERT_OK(ul_device_force_loss(t.dev, "test: a checkpoint under way"));
  ASSERT_OK(ul_device_wait_idle(t.dev, 0));
  uint64_t after = ul__checkpoint_staging_epoch(t.dev);
  printf("  staging buffer of epoch %llu before the loss, %llu after its recovery (0: none)\n",
         (unsigned long long)before, (unsigned long long)after);
  ASSERT_TRUE(!ul__checkpoint_async_pending(t.dev));
  ASSERT_TRUE(after == 0 || after != before);
  uint32_t wa[N], wb[N], ga[N], gb[N];
  cpu_run(k, 0, wa, wb);
  ASSERT_OK(read_both(&t, ga, gb));
  ASSERT_TRUE(!memcmp(ga, wa, sizeof ga) && !memcmp(gb, wb, sizeof gb));
  pp_close(&t, false);
  ASSERT_OK(ul_env_destroy(env));
}

/* 13c. An asynchronous checkpoint that cannot start (its copies past one
 * staging buffer's worth: a GPU-written buffer of 65 MiB changed) is not
 * tried again at every call: once per sixteenth of the log's bound until a
 * checkpoint commits (before, each call from a quarter of the bound on
 * looked at every changed object again, and made the contents left for
 * their first use come back). The steps stay right. */
static void test_declined_async_checkpoint_waits_for_the_log(void) {
  pp t;
  ASSERT_OK(pp_open(&t, NULL, NULL, false));
  ul_buffer big = {0};
  ul_cmd *fill = NULL;
  ASSERT_OK(ul_buffer_create(t.dev, &(ul_buffer_desc){.label = "big", .size = 65u << 20}, &big));
  ASSERT_OK(ul_cmd_create(t.dev, "fill big", &fill));
  ASSERT_OK(ul_cmd_copy_buffer(fill, t.a, 0, big, 0, N * 4));
  ASSERT_OK(ul_cmd_submit(t.dev, fill, NULL));
  const uint32_t steps = 360;
  for (uint32_t k = 1; k <= steps; k++) ASSERT_OK(pp_step(&t, k, 0));
  uint64_t looks = ul__checkpoint_async_looks(t.dev);
  printf("  %u steps with 65 MiB changed: %llu asynchronous starts looked, %llu checkpoints\n", steps,
         (unsigned long long)looks, (unsigned long long)ul__oplog_checkpoints(t.dev));
  ASSERT_LE(looks, 16);
  uint32_t wa[N], wb[N], ga[N], gb[N];
  cpu_run(steps, 0, wa, wb);
  ASSERT_OK(read_both(&t, ga, gb));
  ASSERT_TRUE(!memcmp(ga, wa, sizeof ga) && !memcmp(gb, wb, sizeof gb));
  ul_cmd_destroy(fill);
  ul_buffer_destroy(t.dev, big);
  pp_close(&t, true);
}

/* 14. A program that reads its results back every step (a copy into a
 * MAP_READ buffer, mapped whole and unmapped): the readback changes after
 * every checkpoint's place, and the checkpoint takes what the program's
 * last mapping showed instead of waiting for a map of its own, so the
 * asynchronous checkpoints still commit (before, none did: each was given
 * up and the checkpoint that waits took over). Every readback equals the
 * CPU's, with and without a loss at every 101st call. */
static int readback_run(ul_env *env, const char *spec, async_out *out) {
  pp t;
  if (pp_open(&t, env, NULL, false)) return 2;
  ul_buffer rb = {0};
  ul_cmd *copy_a = NULL, *copy_b = NULL;
  ul_status s = ul_buffer_create(t.dev, &(ul_buffer_desc){.label = "readback", .size = N * 4,
      .usage = UL_BUFFER_MAP_READ | UL_BUFFER_COPY_DST}, &rb);
  if (!s) s = ul_cmd_create(t.dev, "copy a", &copy_a);
  if (!s) s = ul_cmd_copy_buffer(copy_a, t.a, 0, rb, 0, N * 4);
  if (!s) s = ul_cmd_create(t.dev, "copy b", &copy_b);
  if (!s) s = ul_cmd_copy_buffer(copy_b, t.b, 0, rb, 0, N * 4);
  ul__chaos_reschedule(env->chaos, spec);
  ul__chaos_reset_counters(env->chaos);
  uint32_t ca[N], cb[N];
  for (uint32_t i = 0; i < N; i++) {
    ca[i] = i + 1;
    cb[i] = 0;
  }
  int r = 0;
  for (uint32_t k = 1; k <= 300 && !s && !r; k++) {
    s = pp_step(&t, k, 0);
    if (k % 2) cpu_step(ca, cb, k, 0);
    else cpu_step(cb, ca, k, 0);
    if (!s) s = ul_cmd_submit(t.dev, k % 2 ? copy_b : copy_a, NULL);
    void *p = NULL;
    if (!s) s = ul_buffer_map(t.dev, rb, UL_MAP_READ, 0, N * 4, 0, &p);
    if (!s && memcmp(p, k % 2 ? cb : ca, N * 4)) r = 1;
    if (!s) s = ul_buffer_unmap(t.dev, rb);
  }
  out->calls = ul__chaos_calls(env->chaos);
  out->injected = ul__chaos_injected(env->chaos);
  out->checkpoints = ul__oplog_checkpoints(t.dev);
  out->async_checkpoints = ul__oplog_checkpoints_async(t.dev);
  ul__chaos_reschedule(env->chaos, "seed=1");
  if (s) {
    printf("  %s: %s: %s\n", spec, ul_status_name(s), ul_last_error());
    r = 2;
  }
  ul_cmd_destroy(copy_a);
  ul_cmd_destroy(copy_b);
  if (rb.id) ul_buffer_destroy(t.dev, rb);
  pp_close(&t, false);
  return r;
}

static void test_async_checkpoints_commit_past_readbacks(void) {
  ul_env *env;
  ASSERT_OK(ul_env_create(&(ul_env_desc){.chaos = "seed=1"}, &env));
  async_out o0;
  ASSERT_EQ(readback_run(env, "seed=1", &o0), 0);
  printf("  %llu calls, %llu checkpoints (%llu asynchronous)\n", (unsigned long long)o0.calls,
         (unsigned long long)o0.checkpoints, (unsigned long long)o0.async_checkpoints);
  tally t = {0};
  for (uint64_t at = 7; at <= o0.calls; at += 101 * SWEEP) {
    char spec[64];
    snprintf(spec, sizeof spec, "loss@%llu", (unsigned long long)at);
    async_out o;
    int r = readback_run(env, spec, &o);
    tally_add(&t, spec, r, o.injected);
  }
  printf("  %d points (%d with a loss), %d wrong, %d errors\n", t.points, t.applicable, t.wrong, t.errors);
  ASSERT_OK(ul_env_destroy(env));
  ASSERT_GE(o0.async_checkpoints, 2);
  ASSERT_EQ(o0.checkpoints, o0.async_checkpoints);
  ASSERT_GE(t.applicable, t.points * 9 / 10);
  ASSERT_EQ(t.wrong, 0);
  ASSERT_EQ(t.errors, 0);
}

static void test_async_checkpoints_under_losses(void) {
  async_sweep(UL_RESTORE_SHADOW, 197 * SWEEP);
  async_sweep(UL_RESTORE_LOG, 191 * SWEEP);
}

int main(void) {
  ul_test_watchdog(600);
  RUN_TEST(test_async_checkpoint_keeps_later_changes);
  RUN_TEST(test_recovery_drops_the_checkpoint_under_way);
  RUN_TEST(test_declined_async_checkpoint_waits_for_the_log);
  RUN_TEST(test_async_checkpoints_under_losses);
  RUN_TEST(test_async_checkpoints_commit_past_readbacks);
  RUN_TEST(test_loss_at_every_call_of_checkpoints);
  RUN_TEST(test_host_allocation_fails_at_every_point);
  RUN_TEST(test_long_stencil_with_repeated_losses);
  RUN_TEST(test_second_loss_during_recovery_is_kept);
  RUN_TEST(test_reads_in_flight_keep_their_place);
  RUN_TEST(test_checkpoint_in_restore_callback_is_refused);
  RUN_TEST(test_timed_out_read_leaves_staging_usable);
  RUN_TEST(test_recovery_sleeps_without_the_lock);
  RUN_TEST(test_metrics_do_not_wait_for_recovery);
  RUN_TEST(test_log_bound_holds_for_writes);
  RUN_TEST(test_unlogged_work_is_not_submitted);
  TEST_MAIN_END();
}
