/* Internal to unlost's tests: typed assertions that print both values, a
 * watchdog that turns a hang into a failure, and helpers to open the real
 * implementation on the CPU adapter. */
#ifndef UL_TEST_H
#define UL_TEST_H

#include <dlfcn.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int ul_test_failures;
static const char *ul_test_current = "";

#define UL__FAIL_AT(...)                                                        \
  do {                                                                          \
    fprintf(stderr, "%s:%d: %s: ", __FILE__, __LINE__, ul_test_current);       \
    fprintf(stderr, __VA_ARGS__);                                               \
    fputc('\n', stderr);                                                        \
    ul_test_failures++;                                                         \
  } while (0)

#define ASSERT_TRUE(c)                                                          \
  do { if (!(c)) { UL__FAIL_AT("ASSERT_TRUE(%s) failed", #c); return; } } while (0)
#define EXPECT_TRUE(c)                                                          \
  do { if (!(c)) UL__FAIL_AT("EXPECT_TRUE(%s) failed", #c); } while (0)

#define UL__CMP(kind, a, op, b, fmt, T, ret)                                    \
  do {                                                                          \
    T ul__a = (T)(a), ul__b = (T)(b);                                           \
    if (!(ul__a op ul__b)) {                                                    \
      UL__FAIL_AT(kind "(%s, %s): " fmt " vs " fmt, #a, #b, ul__a, ul__b);      \
      ret;                                                                      \
    }                                                                           \
  } while (0)

#define ASSERT_EQ(a, b)  UL__CMP("ASSERT_EQ", a, ==, b, "%" PRId64, int64_t, return)
#define ASSERT_NE(a, b)  UL__CMP("ASSERT_NE", a, !=, b, "%" PRId64, int64_t, return)
#define ASSERT_LT(a, b)  UL__CMP("ASSERT_LT", a, <, b, "%" PRId64, int64_t, return)
#define ASSERT_LE(a, b)  UL__CMP("ASSERT_LE", a, <=, b, "%" PRId64, int64_t, return)
#define ASSERT_GT(a, b)  UL__CMP("ASSERT_GT", a, >, b, "%" PRId64, int64_t, return)
#define ASSERT_GE(a, b)  UL__CMP("ASSERT_GE", a, >=, b, "%" PRId64, int64_t, return)
#define EXPECT_EQ(a, b)  UL__CMP("EXPECT_EQ", a, ==, b, "%" PRId64, int64_t, (void)0)
#define ASSERT_EQ_U(a, b) UL__CMP("ASSERT_EQ", a, ==, b, "%" PRIu64, uint64_t, return)
#define ASSERT_EQ_F(a, b, tol)                                                  \
  do {                                                                          \
    double ul__a = (double)(a), ul__b = (double)(b);                            \
    if (!(ul__a - ul__b <= (tol) && ul__b - ul__a <= (tol))) {                  \
      UL__FAIL_AT("ASSERT_EQ_F(%s, %s): %.9g vs %.9g (tol %g)", #a, #b,         \
                  ul__a, ul__b, (double)(tol));                                 \
      return;                                                                   \
    }                                                                           \
  } while (0)
#define ASSERT_STR_EQ(a, b)                                                     \
  do {                                                                          \
    const char *ul__a = (a), *ul__b = (b);                                      \
    if (!ul__a || !ul__b || strcmp(ul__a, ul__b) != 0) {                        \
      UL__FAIL_AT("ASSERT_STR_EQ(%s, %s): \"%s\" vs \"%s\"", #a, #b,            \
                  ul__a ? ul__a : "(null)", ul__b ? ul__b : "(null)");          \
      return;                                                                   \
    }                                                                           \
  } while (0)
#define ASSERT_CONTAINS(hay, needle)                                            \
  do {                                                                          \
    const char *ul__h = (hay), *ul__n = (needle);                               \
    if (!ul__h || !strstr(ul__h, ul__n)) {                                      \
      UL__FAIL_AT("ASSERT_CONTAINS(%s, %s): \"%s\" lacks \"%s\"", #hay, #needle,\
                  ul__h ? ul__h : "(null)", ul__n);                             \
      return;                                                                   \
    }                                                                           \
  } while (0)
/* Compares two ul_status values and prints their names. */
#define ASSERT_STATUS(got, want)                                                \
  do {                                                                          \
    ul_status ul__g = (got), ul__w = (want);                                    \
    if (ul__g != ul__w) {                                                       \
      UL__FAIL_AT("ASSERT_STATUS(%s): got %s, want %s (last error: %s)", #got,  \
                  ul_status_name(ul__g), ul_status_name(ul__w), ul_last_error());\
      return;                                                                   \
    }                                                                           \
  } while (0)
#define ASSERT_OK(got) ASSERT_STATUS(got, UL_OK)

static void ul_test_on_alarm(int sig) {
  (void)sig;
  static const char msg[] = "\nFAIL: watchdog expired: the test hung\n";
  ssize_t w = write(2, msg, sizeof msg - 1);
  (void)w;
  _exit(124);
}

/* Fails the whole test binary if it runs longer than `seconds` (three
 * times that under a sanitizer, where every call costs several times more;
 * CMakeLists.txt gives CTest's timeouts the same factor). */
static inline void ul_test_watchdog(unsigned seconds) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  seconds *= 3;
#endif
  signal(SIGALRM, ul_test_on_alarm);
  alarm(seconds);
}

/* Dawn unloads the Vulkan driver when its instance goes away; allocations
 * the driver (lavapipe/LLVM) never freed then show up in LeakSanitizer as
 * leaks from an "<unknown module>" that no suppression can name. Keeping the
 * driver resident for the whole test makes them reachable, as they are in a
 * program that keeps its instance. */
__attribute__((constructor)) static void ul_test_pin_cpu_driver(void) {
  static const char *const names[] = {"libvulkan_lvp.so", "/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (dlopen(names[i], RTLD_NOW | RTLD_NODELETE | RTLD_LOCAL)) break;
}

/* UL_TEST_ONLY=TEXT in the environment runs only the tests whose name
 * contains TEXT (by hand, while working on one). */
#define RUN_TEST(fn)                                                            \
  do {                                                                          \
    const char *ul__only = getenv("UL_TEST_ONLY");                              \
    if (ul__only && !strstr(#fn, ul__only)) break;                              \
    int ul__before = ul_test_failures;                                          \
    ul_test_current = #fn;                                                      \
    fn();                                                                       \
    printf("%s %s\n", ul_test_failures == ul__before ? "ok  " : "FAIL", #fn);   \
    fflush(stdout);                                                             \
  } while (0)

/* RUN_TEST, then a leak check of the test's own: it must leave no more
 * live objects on `dev` than it found (libuv's MAKE_VALGRIND_HAPPY). */
#define RUN_TEST_NO_LEAKS(dev, fn)                                              \
  do {                                                                          \
    ul_memory_stats ul__st0 = {0}, ul__st1 = {0};                               \
    ul_device_memory_stats((dev), &ul__st0);                                    \
    RUN_TEST(fn);                                                               \
    ul_device_memory_stats((dev), &ul__st1);                                    \
    if (ul__st1.live_objects > ul__st0.live_objects) {                          \
      ul_test_current = #fn;                                                    \
      UL__FAIL_AT("left %llu live object(s) behind",                            \
                  (unsigned long long)(ul__st1.live_objects - ul__st0.live_objects)); \
    }                                                                           \
  } while (0)

/* In main: a failed call is a failure, and main goes on. */
#define ASSERT_OK_MAIN(call)                                                    \
  do {                                                                          \
    ul_status ul__s = (call);                                                   \
    if (ul__s) UL__FAIL_AT("%s: %s: %s", #call, ul_status_name(ul__s), ul_last_error()); \
  } while (0)

#define TEST_MAIN_END()                                                         \
  do {                                                                          \
    if (ul_test_failures) {                                                     \
      printf("%d failure(s)\n", ul_test_failures);                              \
      return 1;                                                                 \
    }                                                                           \
    return 0;                                                                   \
  } while (0)

#endif
