/* Internal to unlost's tests: runs `unlost chaos` with arguments and reads
 * the numbers of its JSON summary. */
#ifndef UL_TEST_CHAOS_CLI_H
#define UL_TEST_CHAOS_CLI_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct chaos_run {
  int exit_code;
  char json[32768];
} chaos_run;

/* The number after "key": in the JSON (-1 when absent; null reads as 0). */
static long chaos_num(const chaos_run *r, const char *key) {
  char k[64];
  snprintf(k, sizeof k, "\"%s\":", key);
  const char *p = strstr(r->json, k);
  return p ? strtol(p + strlen(k), NULL, 10) : -1;
}

/* The same inside the object of workload `w` of a --density summary. */
static __attribute__((unused)) long chaos_wl_num(const chaos_run *r, const char *w, const char *key) {
  char k[96];
  snprintf(k, sizeof k, "{\"workload\":\"%s\",", w);
  const char *obj = strstr(r->json, k);
  if (!obj) return -1;
  snprintf(k, sizeof k, "\"%s\":", key);
  const char *p = strstr(obj, k), *end = strchr(obj, '}');
  if (!p || (end && p > end)) return -1;
  if (!strncmp(p + strlen(k), "null", 4)) return 0;
  return strtol(p + strlen(k), NULL, 10);
}

/* Runs `unlost chaos ARGS --json FILE` and keeps its exit status and JSON.
 * LeakSanitizer is off in the child: the CPU Vulkan driver's allocations
 * show up as leaks from an "<unknown module>" once Dawn unloads it (see
 * ul_test.h); ASan's and UBSan's errors still end the child. The chaos
 * run counts leaked unlost objects itself. */
static void chaos_cli(chaos_run *r, const char *args) {
#ifndef UL_HAVE_JANSSON_CLI
  (void)r;
  printf("skipped: `unlost chaos %s --json` needs a CLI built with jansson\n", args);
  exit(77);
#endif
  static int seq;
  char out[256], cmd[1200];
  snprintf(out, sizeof out, "/tmp/unlost-test-chaos-%d-%d.json", (int)getpid(), ++seq);
  snprintf(cmd, sizeof cmd, "ASAN_OPTIONS=detect_leaks=0 UNLOST_LOG=none %s/unlost chaos %s --json %s > /dev/null", UL_BINARY_DIR, args, out);
  int rc = system(cmd);
  r->exit_code = rc == -1 ? -1 : WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
  r->json[0] = '\0';
  FILE *f = fopen(out, "r");
  if (f) {
    r->json[fread(r->json, 1, sizeof r->json - 1, f)] = '\0';
    fclose(f);
  }
  unlink(out);
  printf("  chaos %s (exit %d): %s", args, r->exit_code, r->json);
  fflush(stdout);
}

/* `unlost chaos --workload W --every-call --stride K --fault F` (needs
 * ul_test.h): every applicable point passed, and the counts are honest. */
static inline void chaos_check_workload(const char *workload, const char *fault, int stride) {
  char args[256];
  snprintf(args, sizeof args, "--workload %s --every-call --stride %d --fault %s", workload, stride, fault);
  chaos_run r;
  chaos_cli(&r, args);
  long calls = chaos_num(&r, "calls"), applicable = chaos_num(&r, "points_applicable");
  ASSERT_GE(calls, 200);
  ASSERT_EQ(chaos_num(&r, "points_tested"), (calls + stride - 1) / stride);
  ASSERT_GE(applicable, 1);
  ASSERT_EQ(chaos_num(&r, "points_passed"), applicable);
  ASSERT_EQ(chaos_num(&r, "points_wrong"), 0);
  ASSERT_GE(chaos_num(&r, "injected"), applicable);
  if (!strcmp(fault, "loss") || !strcmp(fault, "request")) {
    /* Almost every call can meet a loss; each must end in a recovery. */
    ASSERT_GE(applicable, chaos_num(&r, "points_tested") * 9 / 10);
    ASSERT_GE(chaos_num(&r, "recoveries"), applicable);
  }
  if (!strcmp(fault, "request")) ASSERT_GE(chaos_num(&r, "injected"), 2 * applicable);
  ASSERT_EQ(chaos_num(&r, "leaked_objects"), 0);
  ASSERT_EQ(r.exit_code, 0);
}

static inline void chaos_check_points(const char *fault, int stride) { chaos_check_workload("basic", fault, stride); }

/* `unlost chaos --workload W --pairs ...`: every applicable pair passed. */
static inline void chaos_check_pairs(const char *args, long min_applicable) {
  chaos_run r;
  chaos_cli(&r, args);
  ASSERT_GE(chaos_num(&r, "points_applicable"), min_applicable);
  ASSERT_EQ(chaos_num(&r, "points_wrong"), 0);
  ASSERT_EQ(chaos_num(&r, "points_hung"), 0);
  ASSERT_EQ(chaos_num(&r, "points_passed"), chaos_num(&r, "points_applicable"));
  /* Two losses a point. */
  ASSERT_GE(chaos_num(&r, "injected"), 2 * chaos_num(&r, "points_applicable"));
  ASSERT_EQ(chaos_num(&r, "leaked_objects"), 0);
  ASSERT_EQ(r.exit_code, 0);
}

#endif
