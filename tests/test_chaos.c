/* The chaos CLI end to end: a fault injected at every WebGPU call index of
 * the basic workload; every run must match the clean run, leak nothing,
 * and not hang (the watchdog fails a hang). */
#include "internal.h"
#include "ul_test.h"

static long json_num(const char *json, const char *key) {
  char k[64];
  snprintf(k, sizeof k, "\"%s\":", key);
  const char *p = strstr(json, k);
  return p ? strtol(p + strlen(k), NULL, 10) : -1;
}

static void run_chaos(const char *fault, int stride, long *tested, long *passed, long *calls,
                      long *leaked) {
  char out[256], cmd[1024], json[4096] = "";
  snprintf(out, sizeof out, "/tmp/unlost-test-chaos-%s-%d.json", fault, (int)getpid());
  snprintf(cmd, sizeof cmd, "UNLOST_LOG=none %s/unlost chaos --workload basic --every-call --stride %d "
           "--fault %s --json %s > /dev/null", UL_BINARY_DIR, stride, fault, out);
  int rc = system(cmd);
  FILE *f = fopen(out, "r");
  if (f) {
    size_t n = fread(json, 1, sizeof json - 1, f);
    json[n] = '\0';
    fclose(f);
  }
  unlink(out);
  printf("  %s (exit %d): %s", fault, rc, json);
  *tested = json_num(json, "points_tested");
  *passed = json_num(json, "points_passed");
  *calls = json_num(json, "calls");
  *leaked = json_num(json, "leaked_objects");
}

static void check(const char *fault, int stride) {
  long tested, passed, calls, leaked;
  run_chaos(fault, stride, &tested, &passed, &calls, &leaked);
  ASSERT_GE(calls, 200);
  ASSERT_EQ(tested, (calls + stride - 1) / stride);
  ASSERT_EQ(passed, tested);
  ASSERT_EQ(leaked, 0);
}

static void test_loss_at_every_call(void) { check("loss", 1); }
static void test_oom_at_every_third_call(void) { check("oom", 3); }
static void test_validation_at_every_third_call(void) { check("validation", 3); }
static void test_failed_request_at_every_third_call(void) { check("request", 3); }

int main(void) {
  ul_test_watchdog(600);
  RUN_TEST(test_loss_at_every_call);
  RUN_TEST(test_oom_at_every_third_call);
  RUN_TEST(test_validation_at_every_third_call);
  RUN_TEST(test_failed_request_at_every_third_call);
  TEST_MAIN_END();
}
