// ctest-labels: full webgpu
/* The long form of test_chaos_webgpu (make test-full): for every program of
 * tests/webgpu, a loss at every call index of its clean run; pairs, the
 * second loss at about 10 calls of the recovery after each of about 15
 * first losses (every i with every j would be some 300,000 runs for the
 * stencil alone: its recoveries make hundreds of calls); a 15-second storm;
 * and the control at 30 points. About 25 minutes on two cores with 30 x 12
 * pairs and 50 control points; cut so that CI's 90 minutes also hold the
 * density sweep of every N (test_density_full). */
#define CHAOS_WEBGPU_HELPERS_ONLY
#include "test_chaos_webgpu.c"

static const char *current;

static void test_every_call(void) { cw_check_points(current, "--every-call --jobs 3 --timeout 120"); }
static void test_pairs(void) { cw_check_pairs(current, "--points 15 --pair-points 10 --jobs 3 --timeout 120"); }
static void test_storm(void) { cw_check_storm(current, "--storm 15 --seed 2 --repeat 4 --jobs 3 --timeout 120"); }
static void test_control(void) { cw_check_control(current, "--points 30 --jobs 3 --timeout 120"); }

int main(void) {
  ul_test_watchdog(3500);
  if (!cw_available()) return 77;
  for (size_t i = 0; i < NPROGRAMS; i++) {
    current = programs[i];
    printf("webgpu-%s\n", current);
    RUN_TEST(test_every_call);
    RUN_TEST(test_pairs);
    RUN_TEST(test_storm);
    RUN_TEST(test_control);
  }
  TEST_MAIN_END();
}
