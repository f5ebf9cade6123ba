// ctest-labels: webgpu
/* `unlost chaos --workload webgpu-gen --programs N` end to end (issue 36):
 * generated webgpu.h programs (tests/webgpu/wgpu_gen.c), each run directly
 * on the implementation (the reference digest, itself checked against a
 * CPU evaluation of every kernel), clean through libunlost-webgpu, then
 * under random loss schedules. Every point must give the direct run's bytes
 * or an error that names the loss; none may be wrong, hung or crashed, and
 * losses must really have been injected. The control turns recovery off:
 * the same kind of schedules must then fail the programs. The long form is
 * test_chaos_webgpu_gen_full.c (CHAOS_WEBGPU_GEN_ARGS). */
#pragma GCC diagnostic ignored "-Wunused-function" /* test_chaos_webgpu.c's point checks */
#define CHAOS_WEBGPU_HELPERS_ONLY
#include "test_chaos_webgpu.c"

#ifndef CHAOS_WEBGPU_GEN_PROGRAMS
/* About a minute on the 2-core machine: 6 programs, 4 schedules each, a
 * program's run 0.5-2 s. The seeds stride: each default run of the suite
 * takes the same ones, the full entry takes 150 from another start. */
#define CHAOS_WEBGPU_GEN_PROGRAMS 6
#define CHAOS_WEBGPU_GEN_ARGS "--seed 101 --schedules 4 --jobs 2 --timeout 60"
#define CHAOS_WEBGPU_GEN_CONTROL "--programs 2 --seed 7 --schedules 3 --jobs 2 --timeout 60"
#define CHAOS_WEBGPU_GEN_WATCHDOG 600
#endif

static bool gen_available(void) {
  struct stat st;
  char path[512];
  snprintf(path, sizeof path, "%s/tests/webgpu/wgpu_gen_linked", UL_BINARY_DIR);
  if (stat(path, &st)) {
    printf("skipped: %s was not built\n", path);
    return false;
  }
  return true;
}

static void test_generated(void) {
  char args[512];
  snprintf(args, sizeof args, "--workload webgpu-gen --programs %d %s", CHAOS_WEBGPU_GEN_PROGRAMS,
           CHAOS_WEBGPU_GEN_ARGS);
  cw_run r;
  cw_cli(&r, args);
  EXPECT_TRUE(r.json != NULL);
  long points = cw_num(&r, "points"), schedules = cw_num(&r, "schedules");
  ASSERT_EQ(cw_num(&r, "programs"), CHAOS_WEBGPU_GEN_PROGRAMS);
  ASSERT_GE(schedules, 1);
  ASSERT_EQ(cw_num(&r, "direct_failed"), 0);
  ASSERT_EQ(points, CHAOS_WEBGPU_GEN_PROGRAMS * schedules);
  ASSERT_EQ(cw_num(&r, "wrong"), 0);
  ASSERT_EQ(cw_num(&r, "hung"), 0);
  long crashed = cw_num(&r, "crashed");
  /* None tolerated: the rare crashes of issue 36 (a finished command
   * buffer of a lost device released beside that device's background
   * destroy) are fixed; webgpu_cmdbuf_loss shows them on the old code. */
  ASSERT_EQ(crashed, 0);
  ASSERT_EQ(cw_num(&r, "leaked_devices"), 0);
  ASSERT_EQ(cw_num(&r, "passed") + cw_num(&r, "errors") + crashed, points);
  /* Not vacuous: most points met a loss (a random rate may meet none),
   * and the layer recovered. */
  ASSERT_GE(cw_num(&r, "points_injected"), points / 2);
  ASSERT_GE(cw_num(&r, "injected"), cw_num(&r, "points_injected"));
  ASSERT_GE(cw_num(&r, "recoveries"), 1);
  ASSERT_GE(cw_num(&r, "passed"), 1);
  ASSERT_EQ(r.exit_code, crashed ? 1 : 0);
  cw_free(&r);
}

/* Recovery off: the injected losses must fail the programs, each as an
 * error that names the loss. */
static void test_control(void) {
  cw_run r;
  cw_cli(&r, "--workload webgpu-gen --control " CHAOS_WEBGPU_GEN_CONTROL);
  ASSERT_GE(cw_num(&r, "points_injected"), 1);
  /* A loss after the program's last use of its device (in its teardown)
   * fails nothing, even with recovery off: most must fail. */
  ASSERT_GE(cw_num(&r, "errors") + cw_num(&r, "wrong"), 1);
  ASSERT_GE(cw_num(&r, "errors") + cw_num(&r, "wrong"), (cw_num(&r, "points_injected") + 1) / 2);
  ASSERT_GE(cw_num(&r, "failed_devices"), 1);
  ASSERT_EQ(cw_num(&r, "hung"), 0);
  ASSERT_EQ(cw_num(&r, "crashed"), 0);
  ASSERT_EQ(r.exit_code, 1);
  cw_free(&r);
}

static void test_usage(void) {
  cw_run r;
  cw_cli(&r, "--workload webgpu-gen --programs 2 --pairs");
  ASSERT_EQ(r.exit_code, 2);
  cw_free(&r);
  cw_cli(&r, "--workload webgpu-gen --programs 0");
  ASSERT_EQ(r.exit_code, 2);
  cw_free(&r);
}

int main(void) {
  ul_test_watchdog(CHAOS_WEBGPU_GEN_WATCHDOG);
  if (!gen_available()) return 77;
  RUN_TEST(test_usage);
  RUN_TEST(test_generated);
  RUN_TEST(test_control);
  TEST_MAIN_END();
}
