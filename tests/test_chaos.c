/* The chaos CLI end to end, strided: a fault injected at call indices of
 * the basic and zoo workloads, pairs of losses (the second inside the recovery of
 * the first), storms from another thread, and the harness's own test: with
 * nothing injected it must report failure. */
#include "internal.h"
#include "ul_test.h"
#include "chaos_cli.h"

/* Under a sanitizer each point costs several times more (on the 2-core
 * machine the ASan build's first six sweeps alone outran the watchdog):
 * there the loss and request sweeps take every SAN-th of the points the
 * plain build takes, which still reaches every part of the workloads (the
 * out-of-memory and validation ones, whose few applicable points a wider
 * stride could miss, stay as they are); the plain build and make test-full
 * keep the dense ones. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SAN 3
#else
#define SAN 1
#endif

static void check_pairs(const char *workload, int stride, int pair_stride, long min_applicable) {
  char args[160];
  snprintf(args, sizeof args, "--workload %s --pairs --stride %d --pair-stride %d", workload, stride * SAN,
           pair_stride);
  chaos_check_pairs(args, min_applicable / SAN);
}

static void test_loss_at_every_call(void) { chaos_check_points("loss", 1 * SAN); }
static void test_oom_at_every_third_call(void) { chaos_check_points("oom", 3); }
static void test_validation_at_every_third_call(void) { chaos_check_points("validation", 3); }
static void test_failed_request_at_every_third_call(void) { chaos_check_points("request", 3 * SAN); }

static void test_pairs_strided(void) { check_pairs("basic", 37, 7, 100); }

/* The zoo: every object kind and restore policy (tools/unlost/zoo.c). */
static void test_zoo_loss_strided(void) { chaos_check_workload("zoo", "loss", 13 * SAN); }
static void test_zoo_oom_strided(void) { chaos_check_workload("zoo", "oom", 13); }
static void test_zoo_validation_strided(void) { chaos_check_workload("zoo", "validation", 13); }
static void test_zoo_request_strided(void) { chaos_check_workload("zoo", "request", 29 * SAN); }
static void test_zoo_pairs_strided(void) { check_pairs("zoo", 101, 13, 100); }
static void test_zoo_storm(void) {
  chaos_run r;
  chaos_cli(&r, "--workload zoo --storm 5 --seed 13");
  ASSERT_GE(chaos_num(&r, "runs_ok"), 1);
  ASSERT_GE(chaos_num(&r, "losses_forced"), 1);
  ASSERT_EQ(chaos_num(&r, "runs_wrong"), 0);
  ASSERT_EQ(chaos_num(&r, "runs_hung"), 0);
  ASSERT_EQ(chaos_num(&r, "leaked_objects"), 0);
  ASSERT_EQ(r.exit_code, 0);
}

/* The same with a standby device on the CPU adapter (UNLOST_STANDBY=1):
 * the recoveries begin on it, faults still hit the device they use, and a
 * second loss inside such a recovery builds a new device. */
static void standby_on(bool on) {
  if (on) setenv("UNLOST_STANDBY", "1", 1);
  else unsetenv("UNLOST_STANDBY");
}
static void test_standby_loss_strided(void) {
  standby_on(true);
  chaos_run r;
  char args[96];
  snprintf(args, sizeof args, "--every-call --stride %d --fault loss", 3 * SAN);
  chaos_cli(&r, args);
  standby_on(false);
  long applicable = chaos_num(&r, "points_applicable");
  ASSERT_GE(applicable, 100 / SAN);
  ASSERT_EQ(chaos_num(&r, "points_passed"), applicable);
  ASSERT_EQ(chaos_num(&r, "points_wrong"), 0);
  /* Every recovery of a point began on the standby, built in the background. */
  ASSERT_GE(chaos_num(&r, "standby_recoveries"), applicable * 9 / 10);
  ASSERT_EQ(chaos_num(&r, "leaked_objects"), 0);
  ASSERT_EQ(r.exit_code, 0);
}
static void test_standby_pairs_strided(void) {
  standby_on(true);
  check_pairs("basic", 37, 7, 100);
  standby_on(false);
}
static void test_standby_zoo_strided(void) {
  standby_on(true);
  chaos_check_workload("zoo", "loss", 29 * SAN);
  standby_on(false);
}

static void storm(const char *args) {
  chaos_run r;
  chaos_cli(&r, args);
  ASSERT_GE(chaos_num(&r, "runs_ok"), 1);
  ASSERT_GE(chaos_num(&r, "losses_forced"), 1);
  ASSERT_GE(chaos_num(&r, "recoveries"), 1);
  ASSERT_EQ(chaos_num(&r, "runs_wrong"), 0);
  ASSERT_EQ(chaos_num(&r, "runs_hung"), 0);
  ASSERT_EQ(chaos_num(&r, "leaked_objects"), 0);
  ASSERT_EQ(r.exit_code, 0);
}

static void test_storm_health_on(void) { storm("--storm 5 --seed 11"); }
static void test_storm_health_off(void) { storm("--storm 5 --seed 12 --no-health"); }

/* The harness can fail: with injection switched off nothing is applicable,
 * and that is a failure, not a pass. */
static void test_harness_fails_without_injection(void) {
  chaos_run r;
  chaos_cli(&r, "--every-call --stride 5 --no-inject");
  ASSERT_EQ(chaos_num(&r, "points_applicable"), 0);
  ASSERT_EQ(chaos_num(&r, "points_passed"), 0);
  ASSERT_EQ(r.exit_code, 1);
  chaos_cli(&r, "--pairs --stride 97 --no-inject");
  ASSERT_EQ(chaos_num(&r, "points_passed"), 0);
  ASSERT_EQ(r.exit_code, 1);
  chaos_cli(&r, "--storm 1 --no-inject");
  ASSERT_EQ(chaos_num(&r, "losses_forced"), 0);
  ASSERT_EQ(r.exit_code, 1);
}

int main(void) {
  ul_test_watchdog(600);
  RUN_TEST(test_harness_fails_without_injection);
  RUN_TEST(test_loss_at_every_call);
  RUN_TEST(test_oom_at_every_third_call);
  RUN_TEST(test_validation_at_every_third_call);
  RUN_TEST(test_failed_request_at_every_third_call);
  RUN_TEST(test_pairs_strided);
  RUN_TEST(test_standby_loss_strided);
  RUN_TEST(test_standby_pairs_strided);
  RUN_TEST(test_standby_zoo_strided);
  RUN_TEST(test_zoo_loss_strided);
  RUN_TEST(test_zoo_oom_strided);
  RUN_TEST(test_zoo_validation_strided);
  RUN_TEST(test_zoo_request_strided);
  RUN_TEST(test_zoo_pairs_strided);
  RUN_TEST(test_zoo_storm);
  RUN_TEST(test_storm_health_on);
  RUN_TEST(test_storm_health_off);
  TEST_MAIN_END();
}
