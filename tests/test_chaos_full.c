// ctest-labels: full
/* The long form: every fault kind at every call index. */
#include "internal.h"
#include "ul_test.h"

static long json_num(const char *json, const char *key) {
  char k[64];
  snprintf(k, sizeof k, "\"%s\":", key);
  const char *p = strstr(json, k);
  return p ? strtol(p + strlen(k), NULL, 10) : -1;
}

static void check(const char *fault) {
  char out[256], cmd[1024], json[4096] = "";
  snprintf(out, sizeof out, "/tmp/unlost-test-chaos-full-%s-%d.json", fault, (int)getpid());
  snprintf(cmd, sizeof cmd, "UNLOST_LOG=none %s/unlost chaos --every-call --fault %s --json %s > /dev/null",
           UL_BINARY_DIR, fault, out);
  (void)!system(cmd);
  FILE *f = fopen(out, "r");
  if (f) {
    json[fread(json, 1, sizeof json - 1, f)] = '\0';
    fclose(f);
  }
  unlink(out);
  printf("  %s: %s", fault, json);
  ASSERT_GE(json_num(json, "calls"), 200);
  ASSERT_EQ(json_num(json, "points_tested"), json_num(json, "calls"));
  ASSERT_EQ(json_num(json, "points_passed"), json_num(json, "points_tested"));
  ASSERT_EQ(json_num(json, "leaked_objects"), 0);
}

static void test_every_fault_every_call(void) {
  check("loss");
  check("oom");
  check("validation");
  check("request");
}

int main(void) {
  ul_test_watchdog(1800);
  RUN_TEST(test_every_fault_every_call);
  TEST_MAIN_END();
}
