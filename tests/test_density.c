/* The density sweep of `unlost chaos --density`, strided: each workload
 * (basic, zoo, the demo model's decode step, four threads on one device)
 * under loss-every=N for N = 200, 161, 122, 83, 44, 5. Every run ends --
 * with the clean output, or with an error status and every asynchronous
 * read answered; none is wrong, hung or leaking -- and every workload has a
 * density cliff in the range. The whole range is test_density_full. */
#include "internal.h"
#include "ul_test.h"
#include "chaos_cli.h"

static void test_density_strided(void) {
  chaos_run r;
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  chaos_cli(&r, "--density --stride 39 --steps 100 --hung-after 240");
#else
  chaos_cli(&r, "--density --stride 39 --hung-after 60");
#endif
  ASSERT_EQ(chaos_num(&r, "runs"), 4 * 6);
  ASSERT_EQ(chaos_num(&r, "wrong"), 0);
  ASSERT_EQ(chaos_num(&r, "hung"), 0);
  ASSERT_EQ(chaos_num(&r, "unanswered_reads"), 0);
  ASSERT_EQ(chaos_num(&r, "leaked_objects"), 0);
  static const char *const w[] = {"basic", "zoo", "decode", "threads"};
  for (int i = 0; i < 4; i++) {
    ASSERT_EQ(chaos_wl_num(&r, w[i], "runs"), 6);
    ASSERT_EQ(chaos_wl_num(&r, w[i], "wrong"), 0);
    ASSERT_EQ(chaos_wl_num(&r, w[i], "hung"), 0);
    ASSERT_EQ(chaos_wl_num(&r, w[i], "unanswered_reads"), 0);
    /* Complete at the sparsest N at least; never below the range. */
    long cliff = chaos_wl_num(&r, w[i], "cliff");
    ASSERT_GE(cliff, 5);
    ASSERT_LE(cliff, 200);
    /* Every run met losses (the sparsest, loss-every=200, too). */
    ASSERT_GE(chaos_wl_num(&r, w[i], "injected"), 6);
    ASSERT_GE(chaos_wl_num(&r, w[i], "recoveries"), 5);
  }
  /* Where the cliffs are on the CPU adapter over every N (test_density_
   * full): basic 16, zoo 45, decode 91, threads 13. Before checkpoints
   * made progress, zoo's and the threads' were at 161 here (a checkpoint
   * had to read every dirty buffer between two losses). */
  ASSERT_LE(chaos_wl_num(&r, "basic", "cliff"), 44);
  ASSERT_LE(chaos_wl_num(&r, "zoo", "cliff"), 83);
  ASSERT_LE(chaos_wl_num(&r, "decode", "cliff"), 122);
  ASSERT_LE(chaos_wl_num(&r, "threads", "cliff"), 44);
  /* The threaded workload's reads were issued (and all answered). */
  ASSERT_GE(chaos_wl_num(&r, "threads", "reads_issued"), 16);
  ASSERT_EQ(r.exit_code, 0);
}

int main(void) {
  ul_test_watchdog(1200);
  RUN_TEST(test_density_strided);
  TEST_MAIN_END();
}
