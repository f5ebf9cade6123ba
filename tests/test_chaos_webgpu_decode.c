// ctest-labels: webgpu
/* A real workload through the front door under losses (issue 38): the
 * built-in model's greedy decode written on webgpu.h alone
 * (tests/webgpu/wgpu_decode.c, 48 tokens, one submit and one map each) run
 * by `unlost chaos` through libunlost-webgpu with a loss at about 16 call
 * indices spread over its ~4,300 calls, then a few pairs (a second loss
 * inside the recovery of the first) and a 4-second storm. Each run checks
 * its own tokens and logits against the CPU reference (exit 1 otherwise),
 * and the harness compares its digest (every logit read back, and the
 * tokens) with the clean run's, which is first checked against the same
 * program run directly on Dawn, with no unlost in the process. The control
 * (the same losses with UNLOST_RECOVERY=0) must fail the program. About
 * 40 s on two cores. */
#define CHAOS_WEBGPU_HELPERS_ONLY
#include "test_chaos_webgpu.c"

/* The digest program `prog` of tests/webgpu prints (0 when it did not
 * run or did not pass). */
static unsigned long long digest_of(const char *prog) {
  char cmd[512], line[4096];
  snprintf(cmd, sizeof cmd, "UNLOST_LOG=none %s/tests/webgpu/%s 2>/dev/null", UL_BINARY_DIR, prog);
  FILE *p = popen(cmd, "r");
  if (!p) return 0;
  unsigned long long d = 0;
  bool ok = false;
  while (fgets(line, sizeof line, p)) {
    if (!strncmp(line, "digest ", 7)) d = strtoull(line + 7, NULL, 16);
    if (!strcmp(line, "ok decode\n")) ok = true;
  }
  int rc = pclose(p);
  if (rc == -1 || !WIFEXITED(rc)) return 0;
  if (WEXITSTATUS(rc) == 77) {
    printf("skipped: no adapter\n");
    exit(77);
  }
  printf("  %s: exit %d, digest %016llx\n", prog, WEXITSTATUS(rc), d);
  return WEXITSTATUS(rc) == 0 && ok ? d : 0;
}

/* The clean reference: the layer's fault-free run gives the bits of the
 * program run directly on Dawn. */
static void test_clean_equals_direct(void) {
  unsigned long long direct = digest_of("wgpu_decode"), linked = digest_of("wgpu_decode_linked");
  ASSERT_TRUE(direct != 0);
  ASSERT_EQ(linked, direct);
}

/* Every point: the clean run's digest, tokens equal to the CPU's, a
 * recovery at each. */
static void test_points(void) { cw_check_points("decode", "--points 16 --jobs 2 --timeout 60"); }

static void test_pairs(void) { cw_check_pairs("decode", "--points 2 --pair-points 3 --jobs 2 --timeout 60"); }
/* Dense schedules of their own seeds (a loss every quarter to three
 * quarters of a run, or random ones that also land inside recoveries). */
static void test_storm(void) { cw_check_storm("decode", "--storm 4 --seed 3 --repeat 1 --jobs 2 --timeout 60"); }
static void test_control(void) { cw_check_control("decode", "--points 6 --jobs 2 --timeout 60"); }

int main(void) {
  ul_test_watchdog(600);
  if (!cw_available()) return 77;
  RUN_TEST(test_clean_equals_direct);
  RUN_TEST(test_points);
  RUN_TEST(test_pairs);
  RUN_TEST(test_storm);
  RUN_TEST(test_control);
  TEST_MAIN_END();
}
