/* Hostile option values for every command of the CLI: each is a usage error
 * (exit 2) with a message naming the option, never a silent default, a
 * wrapped-around number, an endless loop or a run that tests nothing. */
#include "internal.h"
#include "ul_test.h"

#include "llm/gen.h"
#include "llm/model.h"
#include "llm/tokenizer.h"

#include <sys/stat.h>
#include <sys/wait.h>

/* Runs `unlost ARGS` with a 60 s limit; its exit status and stderr. */
static int cli(const char *args, char *err, size_t cap) {
  char path[128], cmd[4096];
  snprintf(path, sizeof path, "/tmp/unlost-test-cli-%d.err", (int)getpid());
  snprintf(cmd, sizeof cmd, "ASAN_OPTIONS=detect_leaks=0 timeout 60 %s/unlost %s > /dev/null 2> %s < /dev/null",
           UL_BINARY_DIR, args, path);
  int rc = system(cmd);
  err[0] = '\0';
  FILE *f = fopen(path, "r");
  if (f) {
    err[fread(err, 1, cap - 1, f)] = '\0';
    fclose(f);
  }
  unlink(path);
  return rc == -1 ? -1 : WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
}

static void expect_usage_error(const char *args, const char *names) {
  char err[4096];
  int rc = cli(args, err, sizeof err);
  printf("  unlost %s -> %d: %s", args, rc, err);
  EXPECT_EQ(rc, 2);
  EXPECT_TRUE(strstr(err, names) != NULL);
}

static void test_numbers_are_strict(void) {
  expect_usage_error("chaos --at 9223372036854775807", "--at");
  expect_usage_error("chaos --at abc", "--at");
  expect_usage_error("chaos --at 1e30", "--at");
  expect_usage_error("chaos --at 100000", "--at 100000");
  expect_usage_error("chaos --stride ''", "--stride");
  expect_usage_error("chaos --seed ' -1' --storm 1", "--seed");
  expect_usage_error("chaos --storm nan", "--storm");
  const char *bytes[] = {"-5000", "nan", "-inf", "1e19", "1Gxyz", "''", "100T"};
  for (size_t i = 0; i < sizeof bytes / sizeof bytes[0]; i++) {
    char a[128];
    snprintf(a, sizeof a, "bench recovery --bytes %s", bytes[i]);
    expect_usage_error(a, "--bytes");
  }
  expect_usage_error("bench track --byte 4096", "--byte");
  expect_usage_error("bench track --buffers 4294967297", "--buffers");
  expect_usage_error("bench overhead --reps 0", "--reps");
  expect_usage_error("bench recovery --reps 17", "--reps"); /* it keeps at most 16 */
  const char *run[] = {"--temperature ''", "--seed ''", "--seed ' -1'", "--topp -1", "--topp 0", "--topp 2",
                       "--topp 1e30", "--steps 0", "--checkpoint-every x"};
  for (size_t i = 0; i < sizeof run / sizeof run[0]; i++) {
    char a[160];
    snprintf(a, sizeof a, "run --model m --tokenizer t %s", run[i]);
    const char *opt = strchr(run[i], ' ');
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)(opt - run[i]), run[i]);
    expect_usage_error(a, name);
  }
}

/* One parser for every command (issue 40): --opt=value as --opt value, an
 * unknown option named, and --json [FILE] the same everywhere: to FILE
 * when one follows (either form), to stdout when none does. */
static bool json_object_with(const char *path, const char *key) {
  char text[8192] = "";
  FILE *f = fopen(path, "r");
  if (!f) return false;
  text[fread(text, 1, sizeof text - 1, f)] = '\0';
  fclose(f);
  return text[0] == '{' && strstr(text, key) != NULL;
}

static void test_option_forms(void) {
  expect_usage_error("demo --steps=0", "--steps");
  expect_usage_error("serve --interval-ms=abc", "--interval-ms");
  expect_usage_error("chaos --bogus", "'--bogus'");
  expect_usage_error("doctor --lib", "--lib needs a value");
  expect_usage_error("bench track --buffers=0", "--buffers");
  expect_usage_error("report a.json b.json", "b.json");
  char err[4096], path[128], args[300];
  snprintf(path, sizeof path, "/tmp/unlost-test-cli-json-%d.json", (int)getpid());
  const char *forms[] = {"doctor --json=%s", "doctor --json %s", "bench track --buffers=50 --json %s",
                         "bench --json=%s track --buffers 50"};
  for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
    unlink(path);
    snprintf(args, sizeof args, forms[i], path);
    int rc = cli(args, err, sizeof err);
    printf("  unlost %s -> %d\n", args, rc);
    EXPECT_EQ(rc, 0);
    EXPECT_TRUE(json_object_with(path, i < 2 ? "\"verdict\"" : "\"bench\":\"track\""));
  }
  /* No FILE: stdout. */
  snprintf(args, sizeof args, "ASAN_OPTIONS=detect_leaks=0 timeout 60 %s/unlost doctor --json > %s 2>/dev/null",
           UL_BINARY_DIR, path);
  EXPECT_EQ(system(args), 0);
  EXPECT_TRUE(json_object_with(path, "\"verdict\""));
  unlink(path);
}

/* Fault specs: no negative or empty indices, and a long schedule is taken
 * whole or refused, never cut. */
static void test_fault_specs_are_strict(void) {
  expect_usage_error("chaos --spec 'loss@ -1'", "");
  expect_usage_error("chaos --spec 'loss@'", "");
  char err[4096];
  /* 65 points: more than a schedule holds, refused. */
  char spec[2048] = "";
  for (int i = 1; i <= 65; i++) snprintf(spec + strlen(spec), sizeof spec - strlen(spec), "%sloss@%d", i > 1 ? "," : "", 1000 + i);
  char args[2200];
  snprintf(args, sizeof args, "chaos --spec '%s'", spec);
  int rc = cli(args, err, sizeof err);
  printf("  65-point spec -> %d: %.300s\n", rc, err);
  EXPECT_TRUE(rc != 0);
  /* A long valid schedule (over 160 characters) is run as given: its last
   * point, a loss at call 50, is injected. */
  snprintf(args, sizeof args,
           "chaos --spec 'seed=123456789012345678,loss-rate=0.000000000000000000000000000000000000000000000001,"
           "gpu-fail=0,adapter-fail=0,device-fail=0,recovery-fail=0,count-recovery=0,loss-every=0,loss@50'");
  rc = cli(args, err, sizeof err);
  EXPECT_EQ(rc, 0);
}

/* A FIFO (or any special file) given as the model or the tokenizer is
 * refused at once: opening it must not wait for a writer. */
static void test_special_files_are_refused(void) {
  char fifo[64];
  snprintf(fifo, sizeof fifo, "/tmp/unlost-test-fifo-%d", (int)getpid());
  unlink(fifo);
  ASSERT_EQ(mkfifo(fifo, 0600), 0);
  llm_model *m = NULL;
  llm_tokenizer *t = NULL;
  ASSERT_STATUS(llm_model_open(fifo, &m), UL_ERR_IO);
  EXPECT_TRUE(strstr(ul_last_error(), "regular file") != NULL);
  ASSERT_STATUS(llm_tokenizer_open(fifo, 32000, &t), UL_ERR_IO);
  EXPECT_TRUE(strstr(ul_last_error(), "regular file") != NULL);
  char args[200], err[4096];
  snprintf(args, sizeof args, "run --model %s --tokenizer %s", fifo, fifo);
  EXPECT_EQ(cli(args, err, sizeof err), 1);
  EXPECT_TRUE(strstr(err, "regular file") != NULL);
  unlink(fifo);
}

/* `run` under faults compares its text with a run without them and says
 * so; a difference is exit 1 (shown with the hidden --tamper-position, which
 * changes one token of the faulted run); the loss statistics add up. */
static void test_run_compares_under_faults(void) {
  char mp[4096], tp[4096];
  ASSERT_OK(llm_gen_ensure(NULL, LLM_DEFAULT_SEED, mp, tp, sizeof mp));
  char args[9000], err[8192];
  snprintf(args, sizeof args, "run --model %s --tokenizer %s --steps 40 --temperature 0 --seed 1 "
           "--checkpoint-every 1 --chaos loss-every=300", mp, tp);
  int rc = cli(args, err, sizeof err);
  printf("  run under loss-every=300 -> %d: %s", rc, strstr(err, "unlost run: 40") ? strstr(err, "unlost run: 40") : err);
  EXPECT_EQ(rc, 0);
  EXPECT_TRUE(strstr(err, "equals the run without --chaos") != NULL);
  const char *st = strstr(err, "device loss");
  int losses = -1, recovered = -2;
  if (st) {
    while (st > err && st[-1] != ' ') st--;
    while (st > err && st[-1] == ' ') st--;
    while (st > err && st[-1] != ' ') st--;
    sscanf(st, "%d device loss%*[es], %d recovered", &losses, &recovered);
  }
  EXPECT_TRUE(losses >= 1);
  EXPECT_EQ(losses, recovered);
  snprintf(args, sizeof args, "run --model %s --tokenizer %s --steps 40 --temperature 0 --seed 1 "
           "--checkpoint-every 1 --chaos loss-every=300 --tamper-position 5", mp, tp);
  rc = cli(args, err, sizeof err);
  EXPECT_EQ(rc, 1);
  EXPECT_TRUE(strstr(err, "differs from the run without it from position 5") != NULL);
}

/* A model whose layout is valid but far larger than the memory (a 275 GB
 * sparse file): refused before the upload, with the sizes named, instead
 * of running until the kernel's OOM killer ends it. */
static void test_model_larger_than_memory_is_refused(void) {
  char mp[4096], tp[4096];
  ASSERT_OK(llm_gen_ensure(NULL, LLM_DEFAULT_SEED, mp, tp, sizeof mp));
  int32_t header[7] = {2048, 8192, 1024, 16, 16, LLM_GEN_VOCAB, 256};
  llm_layout lay;
  ASSERT_OK(llm_layout_compute(header, UINT64_MAX / 4, &lay));
  char path[128];
  snprintf(path, sizeof path, "/tmp/unlost-test-huge-%d.bin", (int)getpid());
  FILE *f = fopen(path, "wb");
  ASSERT_TRUE(f != NULL);
  ASSERT_EQ(fwrite(header, 4, 7, f), 7);
  fclose(f);
  if (truncate(path, (off_t)lay.total_bytes) != 0) {
    printf("  skip: no sparse file of %llu bytes here\n", (unsigned long long)lay.total_bytes);
    unlink(path);
    return;
  }
  char args[9000], err[8192];
  snprintf(args, sizeof args, "run --model %s --tokenizer %s --steps 4", path, tp);
  int rc = cli(args, err, sizeof err);
  printf("  %.1f GB model -> %d: %s", (double)lay.total_bytes / 1e9, rc, err);
  EXPECT_EQ(rc, 1);
  EXPECT_TRUE(strstr(err, "GiB available") != NULL);
  unlink(path);
}

int main(void) {
  ul_test_watchdog(600);
  RUN_TEST(test_numbers_are_strict);
  RUN_TEST(test_fault_specs_are_strict);
  RUN_TEST(test_option_forms);
  RUN_TEST(test_special_files_are_refused);
  RUN_TEST(test_run_compares_under_faults);
  RUN_TEST(test_model_larger_than_memory_is_refused);
  TEST_MAIN_END();
}
