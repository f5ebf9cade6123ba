// ctest-labels: full
/* The density sweep over every N from 5 to 200 (make test-full), and
 * longer storms of the threaded workload with the health monitor on and
 * off. test_density runs the sweep strided. */
#include "internal.h"
#include "ul_test.h"
#include "chaos_cli.h"

/* Every N, a workload at a time. The threaded workload runs 4 threads of
 * 25 steps here (of 100 in test_density): at 100 its 20,900 recoveries
 * took most of the 30 minutes the whole sweep took on the 2-core CI-class
 * machine, which the CI's 90 minutes cannot hold with the rest. */
static void test_density_every_n(void) {
  static const char *const w[] = {"basic", "zoo", "decode", "threads"};
  for (int i = 0; i < 4; i++) {
    char args[160];
    snprintf(args, sizeof args, "--density --workload %s --steps %d --hung-after 120", w[i], i == 3 ? 25 : 100);
    chaos_run r;
    chaos_cli(&r, args);
    ASSERT_EQ(chaos_num(&r, "runs"), 196);
    ASSERT_EQ(chaos_num(&r, "wrong"), 0);
    ASSERT_EQ(chaos_num(&r, "hung"), 0);
    ASSERT_EQ(chaos_num(&r, "unanswered_reads"), 0);
    ASSERT_EQ(chaos_num(&r, "leaked_objects"), 0);
    ASSERT_EQ(chaos_wl_num(&r, w[i], "runs"), 196);
    ASSERT_GE(chaos_wl_num(&r, w[i], "cliff"), 5);
    ASSERT_EQ(r.exit_code, 0);
  }
}

static void test_threads_storms(void) {
  const char *runs[] = {"--workload threads --steps 100 --storm 30 --seed 3",
                        "--workload threads --steps 100 --storm 30 --seed 4 --no-health"};
  for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
    chaos_run r;
    chaos_cli(&r, runs[i]);
    ASSERT_GE(chaos_num(&r, "runs_ok"), 1);
    ASSERT_GE(chaos_num(&r, "losses_forced"), 1);
    ASSERT_EQ(chaos_num(&r, "runs_wrong"), 0);
    ASSERT_EQ(chaos_num(&r, "runs_hung"), 0);
    ASSERT_EQ(chaos_num(&r, "unanswered_reads"), 0);
    ASSERT_EQ(chaos_num(&r, "leaked_objects"), 0);
    ASSERT_EQ(r.exit_code, 0);
  }
}

int main(void) {
  ul_test_watchdog(3500);
  RUN_TEST(test_threads_storms);
  RUN_TEST(test_density_every_n);
  TEST_MAIN_END();
}
