/* The examples, run as a user would: compute prints the right numbers;
 * leak's report names the leaked objects and the churning call site.
 * Under ASan the children run without LeakSanitizer: Dawn unloads the CPU
 * Vulkan driver at exit, and what the driver never freed is reported from
 * an unnamed module (the in-process tests keep the driver loaded instead,
 * see ul_test.h); unlost's own accounting is what these tests check. */
#include "internal.h"
#include "ul_test.h"

static char *slurp(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return NULL;
  static char buf[1 << 16];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = '\0';
  fclose(f);
  return buf;
}

static void test_compute(void) {
  char cmd[512];
  snprintf(cmd, sizeof cmd, "ASAN_OPTIONS=detect_leaks=0 UNLOST_LOG=none %s/examples/compute > /tmp/unlost-compute-%d.txt",
           UL_BINARY_DIR, (int)getpid());
  ASSERT_EQ(system(cmd), 0);
  snprintf(cmd, sizeof cmd, "/tmp/unlost-compute-%d.txt", (int)getpid());
  ASSERT_CONTAINS(slurp(cmd), "out[0..3] = 1 3 5 7");
  unlink(cmd);
}

static void test_leak_report(void) {
  char path[128], cmd[512];
  snprintf(path, sizeof path, "/tmp/unlost-leak-%d.json", (int)getpid());
  snprintf(cmd, sizeof cmd, "ASAN_OPTIONS=detect_leaks=0 UNLOST_LOG=none UNLOST_REPORT=%s %s/examples/leak > /dev/null", path,
           UL_BINARY_DIR);
  ASSERT_EQ(system(cmd), 0);
  const char *j = slurp(path);
  ASSERT_TRUE(j != NULL);
  ASSERT_CONTAINS(j, "\"live_objects\":4");
  const char *labels[] = {"weights", "scratch", "output", "atlas"};
  for (int i = 0; i < 4; i++) {
    char want[64];
    snprintf(want, sizeof want, "\"label\":\"%s\"", labels[i]);
    const char *at = strstr(j, want);
    ASSERT_TRUE(at != NULL);
    /* each live object carries its size and file:line site */
    const char *end = strchr(at, '}');
    const char *size = strstr(at, "\"size\":");
    const char *site = strstr(at, "\"site\":\"leak.c:");
    ASSERT_TRUE(size && size < end);
    ASSERT_TRUE(site && site < end);
  }
  const char *churn = strstr(j, "\"churn\":[{");
  ASSERT_TRUE(churn != NULL);
  ASSERT_CONTAINS(churn, "\"site\":\"leak.c:");
  ASSERT_CONTAINS(churn, "per-frame uniforms");
  unlink(path);
}

int main(void) {
  ul_test_watchdog(120);
  RUN_TEST(test_compute);
  RUN_TEST(test_leak_report);
  TEST_MAIN_END();
}
