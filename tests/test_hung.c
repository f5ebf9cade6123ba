/* A dispatch that never ends (an endless loop in WGSL) is bounded
 * everywhere: reads time out, a device declared hung recovers onto a new
 * one with what the hung work writes LOST (never stale data), and destroy
 * returns instead of waiting for the queue forever. Its own process: the
 * CPU adapter's thread keeps running the loop until the process exits. */
#include "internal.h"
#include "ul_test.h"

#include <time.h>

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static const char *endless_wgsl =
    "@group(0) @binding(0) var<storage, read_write> v: array<u32>;\n"
    "@compute @workgroup_size(1) fn main() {\n"
    "  var i = 0u;\n"
    "  loop { i = i + v[0] + 1u; if (i == 0u && v[1] == 12345u) { break; } }\n"
    "  v[2] = i;\n"
    "}\n";

static void hung(bool declare) {
  ul_env *env;
  ul_device *dev;
  ASSERT_OK(ul_env_create(NULL, &env));
  ul_device_desc dd = {.label = declare ? "hung-declared" : "hung"};
  dd.health.declare_hung = declare;
  dd.health.submit_deadline_ms = 500;
  dd.recovery.backoff_initial_ms = 1;
  ASSERT_OK(ul_device_create(env, &dd, &dev));
  ul_buffer b, other;
  ul_shader sh;
  ul_compute_pipeline p;
  ul_bind_group bg;
  ul_cmd *c;
  uint32_t init[64] = {7, 8, 9};
  ASSERT_OK(ul_buffer_create(dev, &(ul_buffer_desc){.label = "looped", .size = 256}, &b));
  ASSERT_OK(ul_buffer_create(dev, &(ul_buffer_desc){.label = "other", .size = 256, .initial_data = init}, &other));
  ASSERT_OK(ul_shader_create(dev, &(ul_shader_desc){.label = "endless", .wgsl = endless_wgsl}, &sh));
  ASSERT_OK(ul_compute_pipeline_create(dev, &(ul_compute_pipeline_desc){.label = "endless", .shader = sh}, &p));
  ASSERT_OK(ul_bind_group_create(dev, &(ul_bind_group_desc){.pipeline = p, .entry_count = 1,
      .entries = {{.binding = 0, .buffer = b}}}, &bg));
  ASSERT_OK(ul_cmd_create(dev, "endless", &c));
  ASSERT_OK(ul_cmd_dispatch(c, p, &bg, 1, 1, 1, 1));
  ASSERT_OK(ul_cmd_submit(dev, c, NULL));
  uint32_t x[4];
  double t0 = now_s();
  ASSERT_STATUS(ul_buffer_read(dev, b, 0, x, sizeof x, 1000), UL_ERR_TIMEOUT);
  double dt = now_s() - t0;
  printf("  read: timed out after %.2f s\n", dt);
  EXPECT_TRUE(dt < 3.0);
  if (declare) {
    /* The next call finds the submission overdue: the device is declared
     * hung and recovers; the buffer the loop wrote is LOST, the other one
     * comes back. */
    t0 = now_s();
    ul_status s = ul_buffer_read(dev, b, 0, x, sizeof x, 1000);
    dt = now_s() - t0;
    printf("  read after the deadline: %s in %.2f s: %s\n", ul_status_name(s), dt, ul_last_error());
    EXPECT_EQ(s, UL_ERR_DEVICE_LOST);
    EXPECT_TRUE(strstr(ul_last_error(), "looped") != NULL);
    /* The hung device's teardown never ends: the recovery does not wait
     * for it (a release waited for would take its whole deadline, at
     * least 2 s). */
    EXPECT_TRUE(dt < 1.9);
    uint32_t y[64];
    ASSERT_OK(ul_buffer_read(dev, other, 0, y, sizeof y, 0));
    ASSERT_EQ(memcmp(y, init, sizeof y), 0);
  }
  ul_cmd_destroy(c);
  ul_bind_group_destroy(dev, bg);
  ul_compute_pipeline_destroy(dev, p);
  ul_shader_destroy(dev, sh);
  ul_buffer_destroy(dev, other);
  ul_buffer_destroy(dev, b);
  t0 = now_s();
  ul_status s = ul_device_destroy(dev);
  dt = now_s() - t0;
  printf("  destroy: %s in %.2f s\n", ul_status_name(s), dt);
  /* Without a declaration the hung device is this one: destroy says so. */
  if (!declare) EXPECT_EQ(s, UL_ERR_TIMEOUT);
  else EXPECT_EQ(s, UL_OK);
  EXPECT_TRUE(dt < 10.0);
  EXPECT_EQ(ul_env_destroy(env), UL_OK);
}

static void test_hung_dispatch(void) { hung(false); }
static void test_hung_dispatch_declared(void) { hung(true); }

int main(void) {
  ul_test_watchdog(120);
  RUN_TEST(test_hung_dispatch);
  RUN_TEST(test_hung_dispatch_declared);
  TEST_MAIN_END();
}
