// ctest-labels: webgpu
/* `unlost chaos --workload webgpu-NAME` end to end: each program of
 * tests/webgpu (webgpu.h alone, linked to libunlost-webgpu) run by the CLI
 * as a child, with a loss at call indices spread over its clean run (the
 * stride chosen from its call count), a few pairs (a second loss inside the
 * recovery of the first), a short storm, and the control: the same losses
 * with the layer's recovery off must fail the program, which shows the
 * harness sees them. The exhaustive form is test_chaos_webgpu_full.c, which
 * includes this file for its helpers (CHAOS_WEBGPU_HELPERS_ONLY). */
#include "ul_test.h"

#include <stdbool.h>
#include <sys/stat.h>
#include <sys/wait.h>

static const char *const programs[] = {"asyncpipe", "dynoffset", "mapread", "matmul",
                                       "reduce",    "stencil",   "texture", "timestamps"};
#define NPROGRAMS (sizeof programs / sizeof programs[0])

typedef struct cw_run {
  int exit_code;
  char *json; /* the whole summary (NULL when none was written) */
} cw_run;

/* The first "key": number of the JSON (the totals come before the
 * per-program objects); -1 when absent. */
static long cw_num(const cw_run *r, const char *key) {
  char k[80];
  snprintf(k, sizeof k, "\"%s\":", key);
  const char *p = r->json ? strstr(r->json, k) : NULL;
  return p ? strtol(p + strlen(k), NULL, 10) : -1;
}

/* Runs `unlost chaos ARGS --json FILE` and keeps its exit status and JSON.
 * The programs run with LeakSanitizer off (webgpu.cmake says why); the
 * harness counts the layer's leaked devices itself. */
static void cw_cli(cw_run *r, const char *args) {
#ifndef UL_HAVE_JANSSON_CLI
  (void)r;
  printf("skipped: `unlost chaos %s --json` needs a CLI built with jansson\n", args);
  exit(77);
#endif
  static int seq;
  char out[256], cmd[1024];
  snprintf(out, sizeof out, "/tmp/unlost-test-chaos-webgpu-%d-%d.json", (int)getpid(), ++seq);
  snprintf(cmd, sizeof cmd,
           "ASAN_OPTIONS=detect_leaks=0 UNLOST_LOG=none %s/unlost chaos %s --json %s"
           " > /tmp/unlost-test-chaos-webgpu-%d.log",
           UL_BINARY_DIR, args, out, (int)getpid());
  int rc = system(cmd);
  r->exit_code = rc == -1 ? -1 : WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
  r->json = NULL;
  if (r->exit_code == 77) {
    printf("skipped: no adapter\n");
    exit(77);
  }
  FILE *f = fopen(out, "r");
  if (f) {
    size_t cap = 1 << 20;
    r->json = calloc(1, cap);
    if (r->json) r->json[fread(r->json, 1, cap - 1, f)] = '\0';
    fclose(f);
  }
  unlink(out);
  /* The summary lines, for a reader of the test's output. */
  char log[128], line[1024];
  snprintf(log, sizeof log, "/tmp/unlost-test-chaos-webgpu-%d.log", (int)getpid());
  printf("  chaos %s (exit %d)\n", args, r->exit_code);
  FILE *l = fopen(log, "r");
  if (l) {
    while (fgets(line, sizeof line, l)) printf("    %s", line);
    fclose(l);
  }
  unlink(log);
  fflush(stdout);
}

static void cw_free(cw_run *r) {
  free(r->json);
  r->json = NULL;
}

/* 77 (skip) when the programs were not built or no adapter is found. */
static bool cw_available(void) {
  struct stat st;
  char path[512];
  snprintf(path, sizeof path, "%s/tests/webgpu/wgpu_matmul_linked", UL_BINARY_DIR);
  if (stat(path, &st)) {
    printf("skipped: %s was not built\n", path);
    return false;
  }
  return true;
}

/* Loss points: every applicable point passed, with the counts honest. */
static void cw_check_points(const char *name, const char *extra) {
  char args[512];
  snprintf(args, sizeof args, "--workload webgpu-%s %s", name, extra);
  cw_run r;
  cw_cli(&r, args);
  long calls = cw_num(&r, "calls"), stride = cw_num(&r, "stride"), tested = cw_num(&r, "points_tested");
  long applicable = cw_num(&r, "points_applicable");
  EXPECT_TRUE(r.json != NULL);
  ASSERT_GE(calls, 20);
  ASSERT_GE(stride, 1);
  ASSERT_EQ(tested, (calls + stride - 1) / stride);
  /* A loss before the device exists, or after the program destroyed it,
   * has nothing to hit; every other call can meet one. */
  ASSERT_GE(applicable, tested / 2);
  ASSERT_EQ(cw_num(&r, "points_passed"), applicable);
  ASSERT_EQ(cw_num(&r, "points_wrong"), 0);
  ASSERT_EQ(cw_num(&r, "points_hung"), 0);
  ASSERT_EQ(cw_num(&r, "points_crashed"), 0);
  ASSERT_EQ(cw_num(&r, "leaked_devices"), 0);
  ASSERT_EQ(cw_num(&r, "failed_devices"), 0);
  ASSERT_GE(cw_num(&r, "injected"), applicable);
  ASSERT_GE(cw_num(&r, "recoveries"), 1);
  ASSERT_EQ(r.exit_code, 0);
  cw_free(&r);
}

/* Pairs: the second loss inside the recovery of the first. */
static void cw_check_pairs(const char *name, const char *extra) {
  char args[512];
  snprintf(args, sizeof args, "--workload webgpu-%s --pairs %s", name, extra);
  cw_run r;
  cw_cli(&r, args);
  long applicable = cw_num(&r, "points_applicable");
  ASSERT_GE(applicable, 1);
  ASSERT_EQ(cw_num(&r, "points_passed"), applicable);
  ASSERT_EQ(cw_num(&r, "points_wrong"), 0);
  ASSERT_EQ(cw_num(&r, "points_hung"), 0);
  ASSERT_EQ(cw_num(&r, "points_crashed"), 0);
  ASSERT_EQ(cw_num(&r, "leaked_devices"), 0);
  /* Two losses a point, and a recovery at least at every point that
   * needed one (a loss after the program's last use of its device needs
   * none: the harness counts those apart). */
  ASSERT_GE(cw_num(&r, "injected"), 2 * applicable);
  ASSERT_GE(cw_num(&r, "recoveries"), applicable - cw_num(&r, "points_passed_unrecovered"));
  ASSERT_EQ(r.exit_code, 0);
  cw_free(&r);
}

static void cw_check_storm(const char *name, const char *extra) {
  char args[512];
  snprintf(args, sizeof args, "--workload webgpu-%s %s", name, extra);
  cw_run r;
  cw_cli(&r, args);
  ASSERT_GE(cw_num(&r, "runs_ok"), 1);
  ASSERT_GE(cw_num(&r, "injected"), 1);
  ASSERT_GE(cw_num(&r, "recoveries"), 1);
  ASSERT_EQ(cw_num(&r, "runs_wrong"), 0);
  ASSERT_EQ(cw_num(&r, "runs_hung"), 0);
  ASSERT_EQ(cw_num(&r, "runs_crashed"), 0);
  ASSERT_EQ(cw_num(&r, "leaked_devices"), 0);
  ASSERT_EQ(r.exit_code, 0);
  cw_free(&r);
}

/* The control: the same losses with recovery off must be seen to fail. */
static void cw_check_control(const char *name, const char *extra) {
  char args[512];
  snprintf(args, sizeof args, "--workload webgpu-%s --control %s", name, extra);
  cw_run r;
  cw_cli(&r, args);
  ASSERT_GE(cw_num(&r, "injected"), 1);
  ASSERT_TRUE(cw_num(&r, "points_wrong") > 0 || cw_num(&r, "points_failed") > 0);
  ASSERT_GE(cw_num(&r, "failed_devices"), 1);
  ASSERT_EQ(cw_num(&r, "points_hung"), 0);
  ASSERT_EQ(cw_num(&r, "points_crashed"), 0);
  ASSERT_EQ(r.exit_code, 1);
  cw_free(&r);
}

#ifndef CHAOS_WEBGPU_HELPERS_ONLY
/* About 2 minutes in all on two cores: a program's run takes 0.1-0.4 s. */
static const char *current;

static void test_points_strided(void) { cw_check_points(current, "--points 32 --jobs 2 --timeout 60"); }
static void test_pairs_strided(void) { cw_check_pairs(current, "--points 3 --pair-points 4 --jobs 2 --timeout 60"); }
static void test_storm(void) { cw_check_storm(current, "--storm 3 --seed 5 --repeat 2 --jobs 2 --timeout 60"); }
static void test_control(void) { cw_check_control(current, "--points 6 --jobs 2 --timeout 60"); }

/* The harness's options: a bad one is a usage error, before any run. */
static void test_usage(void) {
  cw_run r;
  cw_cli(&r, "--workload webgpu-nonesuch");
  ASSERT_EQ(r.exit_code, 2);
  cw_free(&r);
  cw_cli(&r, "--workload webgpu-matmul --spec loss@zz");
  ASSERT_EQ(r.exit_code, 2);
  cw_free(&r);
  cw_cli(&r, "--workload webgpu-matmul --pairs --control");
  ASSERT_EQ(r.exit_code, 2);
  cw_free(&r);
}

int main(void) {
  ul_test_watchdog(900);
  if (!cw_available()) return 77;
  RUN_TEST(test_usage);
  for (size_t i = 0; i < NPROGRAMS; i++) {
    current = programs[i];
    printf("webgpu-%s\n", current);
    RUN_TEST(test_points_strided);
    RUN_TEST(test_pairs_strided);
    RUN_TEST(test_storm);
    RUN_TEST(test_control);
  }
  TEST_MAIN_END();
}
#endif
