// ctest-labels: full
/* The long form: every fault kind at every call index, pairs of losses
 * densely (the second at every other call of the recovery that follows the
 * first), and longer storms with the health monitor on and off. */
#include "internal.h"
#include "ul_test.h"
#include "chaos_cli.h"

static void test_every_fault_every_call(void) {
  chaos_check_points("loss", 1);
  chaos_check_points("oom", 1);
  chaos_check_points("validation", 1);
  chaos_check_points("request", 1);
}

static void test_pairs(void) { chaos_check_pairs("--pairs --stride 3 --pair-stride 2", 1000); }

static void test_storms(void) {
  const char *runs[] = {"--storm 30 --seed 1", "--storm 30 --seed 2 --no-health"};
  for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
    chaos_run r;
    chaos_cli(&r, runs[i]);
    ASSERT_EQ(chaos_num(&r, "runs_wrong"), 0);
    ASSERT_EQ(chaos_num(&r, "runs_hung"), 0);
    ASSERT_EQ(chaos_num(&r, "leaked_objects"), 0);
    ASSERT_GE(chaos_num(&r, "losses_forced"), 1);
    ASSERT_EQ(r.exit_code, 0);
  }
}

int main(void) {
  ul_test_watchdog(3000);
  RUN_TEST(test_every_fault_every_call);
  RUN_TEST(test_pairs);
  RUN_TEST(test_storms);
  TEST_MAIN_END();
}
