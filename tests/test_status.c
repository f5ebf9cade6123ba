// ctest-labels: threads
/* Status codes, names and the per-thread error chain. */
#include "internal.h"
#include "ul_test.h"

static void test_names_cover_every_code(void) {
  ASSERT_STR_EQ(ul_status_name(UL_OK), "UL_OK");
  ASSERT_STR_EQ(ul_status_name(UL_ERR_DEVICE_LOST), "UL_ERR_DEVICE_LOST");
  ASSERT_STR_EQ(ul_status_name(UL_ERR_BREAKER_OPEN), "UL_ERR_BREAKER_OPEN");
  for (int s = 1; s < UL_STATUS_COUNT_; s++) {
    const char *n = ul_status_name((ul_status)s);
    ASSERT_TRUE(strncmp(n, "UL_ERR_", 7) == 0);
    ASSERT_TRUE(strcmp(n, "UL_ERR_UNKNOWN") != 0);
    ASSERT_TRUE(strlen(ul_status_text((ul_status)s)) > 3);
  }
  ASSERT_STR_EQ(ul_status_name((ul_status)999), "UL_ERR_UNKNOWN");
}

static void test_transient_kinds(void) {
  ASSERT_TRUE(ul_status_is_transient(UL_ERR_DEVICE_LOST));
  ASSERT_TRUE(ul_status_is_transient(UL_ERR_TIMEOUT));
  ASSERT_TRUE(ul_status_is_transient(UL_ERR_OUT_OF_MEMORY));
  ASSERT_TRUE(ul_status_is_transient(UL_ERR_BREAKER_OPEN));
  ASSERT_TRUE(!ul_status_is_transient(UL_ERR_VALIDATION));
  ASSERT_TRUE(!ul_status_is_transient(UL_ERR_INVALID_HANDLE));
  ASSERT_TRUE(!ul_status_is_transient(UL_ERR_DEVICE_FAILED));
  ASSERT_TRUE(!ul_status_is_transient(UL_OK));
}

static void test_chain_outermost_first(void) {
  ul__fail(UL_ERR_SHADER_COMPILE, "3:14: unresolved identifier 'x'");
  ul__wrap(UL_ERR_SHADER_COMPILE, "compile shader");
  ul__wrap(UL_ERR_SHADER_COMPILE, "create pipeline '%s'", "matmul");
  ASSERT_STR_EQ(ul_last_error(),
                "create pipeline 'matmul': compile shader: 3:14: unresolved identifier 'x'");
  ASSERT_STATUS(ul_last_status(), UL_ERR_SHADER_COMPILE);
  ul_clear_error();
  ASSERT_STR_EQ(ul_last_error(), "");
  ASSERT_STATUS(ul_last_status(), UL_OK);
}

/* A client layered on unlost (tools/llm) extends the library's chain with
 * the public ul_error_set / ul_error_wrap: a real library failure, then the
 * client's context, read as one line. */
static void test_clients_extend_the_chain(void) {
  ul_device *none = NULL;
  ul_limits lim;
  ASSERT_STATUS(ul_device_limits(none, &lim), UL_ERR_INVALID_ARGUMENT);
  char lib[512];
  snprintf(lib, sizeof lib, "%s", ul_last_error());
  ASSERT_TRUE(lib[0] != '\0');
  ASSERT_STATUS(ul_error_wrap(UL_ERR_INVALID_ARGUMENT, "llm gpu: layer %d", 3), UL_ERR_INVALID_ARGUMENT);
  char want[600];
  snprintf(want, sizeof want, "llm gpu: layer 3: %s", lib);
  ASSERT_STR_EQ(ul_last_error(), want);
  /* Once: the same context again is not repeated. */
  ul_error_wrap(UL_ERR_INVALID_ARGUMENT, "llm gpu: layer %d", 3);
  ASSERT_STR_EQ(ul_last_error(), want);
  ASSERT_STATUS(ul_error_set(UL_ERR_IO, "open model '%s': %s", "m.bin", "gone"), UL_ERR_IO);
  ASSERT_STR_EQ(ul_last_error(), "open model 'm.bin': gone");
  ASSERT_STATUS(ul_last_status(), UL_ERR_IO);
  ul_clear_error();
}

/* The public strict numbers: the same grammar as the settings and specs. */
static void test_public_number_parsers(void) {
  uint64_t u = 5;
  double f = 5;
  ASSERT_OK(ul_parse_u64("4096", 1, 1u << 20, &u));
  ASSERT_EQ(u, 4096);
  ASSERT_OK(ul_parse_size("64MiB", 1, UINT64_MAX, &u));
  ASSERT_EQ(u, 64ull << 20);
  ASSERT_STATUS(ul_parse_u64("64M", 1, UINT64_MAX, &u), UL_ERR_INVALID_ARGUMENT); /* no suffix here */
  ASSERT_EQ(u, 64ull << 20);                                                     /* untouched */
  ASSERT_STATUS(ul_parse_u64(" 1", 0, 10, &u), UL_ERR_INVALID_ARGUMENT);
  ASSERT_CONTAINS(ul_last_error(), "' 1'");
  ASSERT_STATUS(ul_parse_u64("11", 0, 10, &u), UL_ERR_INVALID_ARGUMENT);
  ASSERT_OK(ul_parse_f64("0.25", 0, 1, &f));
  ASSERT_TRUE(f == 0.25);
  ASSERT_STATUS(ul_parse_f64("nan", 0, 1, &f), UL_ERR_INVALID_ARGUMENT);
  ASSERT_STATUS(ul_parse_f64("", 0, 1, &f), UL_ERR_INVALID_ARGUMENT);
}

/* The options table: every UNLOST_ variable the library's sources name is
 * in it; a number is read strictly (a bad or out-of-range value warns and
 * gives the default, keeping the thread's error); a flag is any text. */
static void test_options_table(void) {
  for (int o = 0; o < UL__OPT_COUNT; o++) {
    ASSERT_TRUE(ul__opt_name((ul__opt)o) != NULL);
    ASSERT_TRUE(!strncmp(ul__opt_name((ul__opt)o), "UNLOST_", 7));
    ASSERT_TRUE(ul__opt_what((ul__opt)o)[0] != '\0');
  }
  ASSERT_TRUE(ul__opt_name(UL__OPT_COUNT) == NULL);
  FILE *p = popen("grep -rhoE '\"UNLOST_[A-Z_]+\"' " UL_SOURCE_DIR "/src | sort -u", "r");
  ASSERT_TRUE(p != NULL);
  char line[128];
  int names = 0;
  while (fgets(line, sizeof line, p)) {
    char *name = line + (line[0] == '"');
    name[strcspn(name, "\"\n")] = '\0';
    bool found = false;
    for (int o = 0; o < UL__OPT_COUNT; o++) found |= !strcmp(ul__opt_name((ul__opt)o), name);
    if (!found) UL__FAIL_AT("%s is read in src/ but not in the options table (src/base/options.c)", name);
    names++;
  }
  pclose(p);
  EXPECT_TRUE(names >= UL__OPT_COUNT);
  ul__fail(UL_ERR_IO, "an earlier error");
  setenv("UNLOST_LOG_MAX_MB", "12x", 1);
  ASSERT_EQ(ul__opt_number(UL__OPT_LOG_MAX_MB), 64);
  ASSERT_STR_EQ(ul_last_error(), "an earlier error");
  ASSERT_STATUS(ul_last_status(), UL_ERR_IO);
  setenv("UNLOST_LOG_MAX_MB", "0", 1);
  ASSERT_EQ(ul__opt_number(UL__OPT_LOG_MAX_MB), 64);
  setenv("UNLOST_LOG_MAX_MB", "3", 1);
  ASSERT_EQ(ul__opt_number(UL__OPT_LOG_MAX_MB), 3); /* read where it applies: not cached */
  unsetenv("UNLOST_LOG_MAX_MB");
  ASSERT_EQ(ul__opt_number(UL__OPT_LOG_MAX_MB), 64);
  setenv("UNLOST_BACKTRACES", "1", 1);
  ASSERT_TRUE(ul__opt_flag(UL__OPT_BACKTRACES));
  setenv("UNLOST_BACKTRACES", "", 1);
  ASSERT_TRUE(!ul__opt_flag(UL__OPT_BACKTRACES));
  unsetenv("UNLOST_BACKTRACES");
  ul_clear_error();
}

static void test_chain_truncates_safely(void) {
  char big[4000];
  memset(big, 'a', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  ul__fail(UL_ERR_INTERNAL, "%s", big);
  for (int i = 0; i < 50; i++) ul__wrap(UL_ERR_INTERNAL, "layer %d", i);
  ASSERT_TRUE(strlen(ul_last_error()) < 2048);
  ASSERT_TRUE(strncmp(ul_last_error(), "layer 49: layer 48", 18) == 0);
}

static void *thread_error(void *arg) {
  UL__UNUSED(arg);
  ul__fail(UL_ERR_TIMEOUT, "other thread");
  return NULL;
}

static void test_errors_are_per_thread(void) {
  ul__fail(UL_ERR_IO, "main thread");
  pthread_t t;
  pthread_create(&t, NULL, thread_error, NULL);
  pthread_join(t, NULL);
  ASSERT_STR_EQ(ul_last_error(), "main thread");
  ASSERT_STATUS(ul_last_status(), UL_ERR_IO);
}

int main(void) {
  RUN_TEST(test_names_cover_every_code);
  RUN_TEST(test_transient_kinds);
  RUN_TEST(test_chain_outermost_first);
  RUN_TEST(test_chain_truncates_safely);
  RUN_TEST(test_clients_extend_the_chain);
  RUN_TEST(test_public_number_parsers);
  RUN_TEST(test_options_table);
  RUN_TEST(test_errors_are_per_thread);
  TEST_MAIN_END();
}
