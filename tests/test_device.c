// ctest-labels: threads
/* Device lifecycle on the real implementation: forced losses, recovery with
 * back-off, fallback, FAILED with its hook, and concurrent callers. */
#include "chaos/chaos.h"
#include "core/core.h"
#include "ul_test.h"

typedef struct recorder {
  pthread_mutex_t mu;
  ul_event_kind kinds[64];
  ul_device_state states[64];
  double delays[64];
  uint64_t epochs[64];
  int n;
  int failed_calls;
  char failed_why[512];
} recorder;

static void on_event(ul_device *d, const ul_event *e, void *user) {
  recorder *r = user;
  /* Listeners run with no unlost lock held: calling back in must work. */
  (void)ul_device_get_state(d);
  (void)ul_device_epoch(d);
  pthread_mutex_lock(&r->mu);
  if (r->n < 64) {
    r->kinds[r->n] = e->kind;
    r->states[r->n] = e->state;
    r->delays[r->n] = e->delay_ms;
    r->epochs[r->n] = e->epoch;
    r->n++;
  }
  pthread_mutex_unlock(&r->mu);
}

static void on_failed(ul_device *d, const char *why, void *user) {
  (void)d;
  recorder *r = user;
  pthread_mutex_lock(&r->mu);
  r->failed_calls++;
  snprintf(r->failed_why, sizeof r->failed_why, "%s", why);
  pthread_mutex_unlock(&r->mu);
}

static ul_device_desc desc_for(recorder *r) {
  memset(r, 0, sizeof *r);
  pthread_mutex_init(&r->mu, NULL);
  ul_device_desc dd = {0};
  dd.label = "test";
  dd.listener = on_event;
  dd.listener_user = r;
  dd.on_failed = on_failed;
  dd.on_failed_user = r;
  dd.recovery.backoff_initial_ms = 5;
  dd.recovery.backoff_max_ms = 40;
  dd.recovery.jitter_seed = 42;
  /* These tests are about the lifecycle; the health monitor (which would
   * move a device that keeps losing to the fallback) has its own tests. */
  dd.health.disabled = true;
  return dd;
}

static void test_loss_then_recover(void) {
  ul_env *env = NULL;
  ASSERT_OK(ul_env_create(NULL, &env));
  recorder r;
  ul_device_desc dd = desc_for(&r);
  ul_device *dev = NULL;
  ASSERT_OK(ul_device_create(env, &dd, &dev));
  ASSERT_EQ(ul_device_get_state(dev), UL_DEVICE_READY);
  ASSERT_EQ(ul_device_epoch(dev), 1);

  ASSERT_OK(ul_device_force_loss(dev, "test: forced"));
  ASSERT_EQ(ul_device_get_state(dev), UL_DEVICE_LOST);
  ASSERT_EQ(r.n, 0); /* the lost callback only records */

  ASSERT_OK(ul_device_recover(dev));
  ASSERT_EQ(ul_device_get_state(dev), UL_DEVICE_READY);
  ASSERT_EQ(ul_device_epoch(dev), 2);
  ASSERT_EQ(r.n, 3);
  ASSERT_EQ(r.kinds[0], UL_EVENT_LOST);
  ASSERT_EQ(r.states[0], UL_DEVICE_LOST);
  ASSERT_EQ(r.kinds[1], UL_EVENT_RECOVERING);
  ASSERT_EQ(r.states[1], UL_DEVICE_RECOVERING);
  ASSERT_EQ(r.kinds[2], UL_EVENT_RECOVERED);
  ASSERT_EQ(r.states[2], UL_DEVICE_READY);
  ASSERT_EQ(r.epochs[2], 2);

  /* A second loss: a new epoch again. */
  ASSERT_OK(ul_device_force_loss(dev, "again"));
  ASSERT_OK(ul_device_recover(dev));
  ASSERT_EQ(ul_device_epoch(dev), 3);
  ASSERT_OK(ul_device_destroy(dev));
  ASSERT_OK(ul_env_destroy(env));
}

static void test_failed_recoveries_back_off(void) {
  ul_env *env = NULL;
  ASSERT_OK(ul_env_create(&(ul_env_desc){.chaos = "seed=1"}, &env));
  recorder r;
  ul_device_desc dd = desc_for(&r);
  dd.recovery.max_retries = 5;
  ul_device *dev = NULL;
  ASSERT_OK(ul_device_create(env, &dd, &dev));
  /* The next 3 requests for the GPU fail; the 4th works. */
  ASSERT_OK(ul__chaos_reschedule(env->chaos, "gpu-fail=3"));
  ASSERT_OK(ul_device_force_loss(dev, "test"));
  uint64_t t0 = ul__now_ns();
  ASSERT_OK(ul_device_recover(dev));
  double took_ms = (double)(ul__now_ns() - t0) / 1e6;
  ASSERT_EQ(ul_device_get_state(dev), UL_DEVICE_READY);
  ASSERT_EQ(r.n, 6); /* lost, recovering, retry x3, recovered */
  ASSERT_EQ(r.kinds[2], UL_EVENT_RETRY);
  ASSERT_EQ(r.kinds[3], UL_EVENT_RETRY);
  ASSERT_EQ(r.kinds[4], UL_EVENT_RETRY);
  ASSERT_EQ(r.kinds[5], UL_EVENT_RECOVERED);
  /* 5, 10, 20 ms with +-20 % jitter */
  ASSERT_TRUE(r.delays[2] >= 4.0 && r.delays[2] <= 6.0);
  ASSERT_TRUE(r.delays[3] >= 8.0 && r.delays[3] <= 12.0);
  ASSERT_TRUE(r.delays[4] >= 16.0 && r.delays[4] <= 24.0);
  ASSERT_TRUE(took_ms >= r.delays[2] + r.delays[3] + r.delays[4]);
  ASSERT_OK(ul_device_destroy(dev));
  ASSERT_OK(ul_env_destroy(env));
}

static void test_gpu_never_returns_fallback(void) {
  ul_env *env = NULL;
  ASSERT_OK(ul_env_create(&(ul_env_desc){.chaos = "seed=1"}, &env));
  recorder r;
  ul_device_desc dd = desc_for(&r);
  dd.recovery.max_retries = 2;
  ul_device *dev = NULL;
  ASSERT_OK(ul_device_create(env, &dd, &dev));
  ASSERT_OK(ul__chaos_reschedule(env->chaos, "gpu-fail=all"));
  ASSERT_OK(ul_device_force_loss(dev, "test"));
  ASSERT_OK(ul_device_recover(dev));
  ASSERT_EQ(ul_device_get_state(dev), UL_DEVICE_FALLBACK);
  ASSERT_EQ(r.kinds[r.n - 1], UL_EVENT_FALLBACK);
  ul_adapter_info ai;
  ASSERT_OK(ul_device_adapter_info(dev, &ai));
  ASSERT_EQ(ai.type, UL_ADAPTER_CPU);
  ASSERT_TRUE(ai.is_fallback);
  /* The GPU is back: recover() moves the device back to it. */
  ASSERT_OK(ul__chaos_reschedule(env->chaos, "seed=1"));
  ASSERT_OK(ul_device_recover(dev));
  ASSERT_EQ(ul_device_get_state(dev), UL_DEVICE_READY);
  ASSERT_OK(ul_device_destroy(dev));
  ASSERT_OK(ul_env_destroy(env));
}

static void test_failed_calls_hook(void) {
  ul_env *env = NULL;
  ASSERT_OK(ul_env_create(&(ul_env_desc){.chaos = "seed=1"}, &env));
  recorder r;
  ul_device_desc dd = desc_for(&r);
  dd.recovery.max_retries = 1;
  dd.recovery.no_fallback = true;
  ul_device *dev = NULL;
  ASSERT_OK(ul_device_create(env, &dd, &dev));
  ASSERT_OK(ul__chaos_reschedule(env->chaos, "adapter-fail=all"));
  ASSERT_OK(ul_device_force_loss(dev, "test"));
  ASSERT_STATUS(ul_device_recover(dev), UL_ERR_DEVICE_FAILED);
  ASSERT_EQ(ul_device_get_state(dev), UL_DEVICE_FAILED);
  ASSERT_EQ(r.failed_calls, 1);
  ASSERT_CONTAINS(r.failed_why, "adapter");
  ASSERT_EQ(r.kinds[r.n - 1], UL_EVENT_FAILED);
  /* FAILED is final. */
  ASSERT_STATUS(ul_device_recover(dev), UL_ERR_DEVICE_FAILED);
  ASSERT_TRUE(!ul_status_is_transient(UL_ERR_DEVICE_FAILED));
  ASSERT_OK(ul_device_destroy(dev));
  ASSERT_OK(ul_env_destroy(env));
}

static void test_destroyed_by_program_not_recovered(void) {
  ul_env *env = NULL;
  ASSERT_OK(ul_env_create(NULL, &env));
  recorder r;
  ul_device_desc dd = desc_for(&r);
  ul_device *dev = NULL;
  ASSERT_OK(ul_device_create(env, &dd, &dev));
  /* The program destroys the native device behind unlost's back. */
  dev->wgpu->DeviceDestroy(dev->device);
  ASSERT_EQ(ul_device_get_state(dev), UL_DEVICE_LOST);
  ASSERT_STATUS(ul_device_recover(dev), UL_ERR_DEVICE_FAILED);
  ASSERT_CONTAINS(ul_last_error(), "destroyed by the program");
  ASSERT_EQ(ul_device_epoch(dev), 1);
  ASSERT_OK(ul_device_destroy(dev));
  ASSERT_OK(ul_env_destroy(env));
}

typedef struct worker {
  ul_device *dev;
  int errors;
} worker;

static void *recover_loop(void *arg) {
  worker *w = arg;
  for (int i = 0; i < 20; i++) {
    if (ul_device_recover(w->dev)) w->errors++;
    (void)ul_device_get_state(w->dev);
  }
  return NULL;
}

static void test_concurrent_losses_and_recovery(void) {
  ul_env *env = NULL;
  ASSERT_OK(ul_env_create(NULL, &env));
  recorder r;
  ul_device_desc dd = desc_for(&r);
  ul_device *dev = NULL;
  ASSERT_OK(ul_device_create(env, &dd, &dev));
  pthread_t t[3];
  worker w[3];
  for (int i = 0; i < 3; i++) {
    w[i] = (worker){dev, 0};
    pthread_create(&t[i], NULL, recover_loop, &w[i]);
  }
  int forced = 0;
  for (int i = 0; i < 5; i++) {
    /* UL_ERR_BUSY while the last one is not recovered from: nothing forced. */
    ul_status fs = ul_device_force_loss(dev, "concurrent");
    ASSERT_TRUE(fs == UL_OK || fs == UL_ERR_BUSY);
    forced += fs == UL_OK;
    ul__sleep_ns(2000000);
  }
  ASSERT_GE(forced, 1);
  for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);
  ASSERT_OK(ul_device_recover(dev));
  ASSERT_EQ(ul_device_get_state(dev), UL_DEVICE_READY);
  for (int i = 0; i < 3; i++) ASSERT_EQ(w[i].errors, 0);
  ASSERT_GE(ul_device_epoch(dev), 2);
  ASSERT_OK(ul_device_destroy(dev));
  ASSERT_OK(ul_env_destroy(env));
}

int main(void) {
  ul_test_watchdog(240);
  RUN_TEST(test_loss_then_recover);
  RUN_TEST(test_failed_recoveries_back_off);
  RUN_TEST(test_gpu_never_returns_fallback);
  RUN_TEST(test_failed_calls_hook);
  RUN_TEST(test_destroyed_by_program_not_recovered);
  RUN_TEST(test_concurrent_losses_and_recovery);
  TEST_MAIN_END();
}
