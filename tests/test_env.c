/* ul_env and device creation: every init failure step returns a status,
 * holds nothing, and releases without deadlock (the watchdog fails a hang). */
#include "internal.h"
#include "ul_test.h"

#include <fcntl.h>

static void test_missing_library_names_path(void) {
  ul_env_desc d = {.webgpu_lib = "/nonexistent/libx.so"};
  ul_env *env = (ul_env *)1;
  ASSERT_STATUS(ul_env_create(&d, &env), UL_ERR_NO_IMPLEMENTATION);
  ASSERT_TRUE(env == NULL);
  ASSERT_CONTAINS(ul_last_error(), "/nonexistent/libx.so");
  ASSERT_OK(ul_env_destroy(env)); /* NULL: returns at once */
}

static void test_env_variable_names_library(void) {
  setenv("UNLOST_WEBGPU_LIB", "/nonexistent/from-env.so", 1);
  ul_env *env = NULL;
  ul_status s = ul_env_create(NULL, &env);
  unsetenv("UNLOST_WEBGPU_LIB");
  ASSERT_STATUS(s, UL_ERR_NO_IMPLEMENTATION);
  ASSERT_CONTAINS(ul_last_error(), "/nonexistent/from-env.so");
}

static void test_missing_symbol(void) {
  ul_env_desc d = {.webgpu_lib = "libm.so.6"};
  ul_env *env = NULL;
  ASSERT_STATUS(ul_env_create(&d, &env), UL_ERR_NO_IMPLEMENTATION);
  ASSERT_CONTAINS(ul_last_error(), "missing symbol wgpuCreateInstance");
}

static void test_wrong_architecture(void) {
  /* An ELF header for a 64-bit AArch64 shared object: dlopen refuses it. */
  char path[] = "/tmp/unlost-wrong-arch-XXXXXX";
  int fd = mkstemp(path);
  ASSERT_TRUE(fd >= 0);
  unsigned char elf[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0};
  elf[16] = 3;    /* ET_DYN */
  elf[18] = 183;  /* EM_AARCH64 */
  elf[20] = 1;    /* EV_CURRENT */
  elf[52] = 64;   /* e_ehsize */
  ASSERT_EQ(write(fd, elf, sizeof elf), (ssize_t)sizeof elf);
  close(fd);
  ul_env_desc d = {.webgpu_lib = path};
  ul_env *env = NULL;
  ul_status s = ul_env_create(&d, &env);
  unlink(path);
  ASSERT_STATUS(s, UL_ERR_NO_IMPLEMENTATION);
  ASSERT_CONTAINS(ul_last_error(), path);
}

static void test_bad_chaos_schedule(void) {
  ul_env_desc d = {.chaos = "loss@zero"};
  ul_env *env = NULL;
  ASSERT_STATUS(ul_env_create(&d, &env), UL_ERR_INVALID_ARGUMENT);
  ASSERT_TRUE(env == NULL);
  ASSERT_CONTAINS(ul_last_error(), "chaos");
}

static void test_env_info(void) {
  ul_env *env = NULL;
  ASSERT_OK(ul_env_create(NULL, &env));
  ul_env_info info;
  ASSERT_OK(ul_env_info_get(env, &info));
  ASSERT_CONTAINS(info.implementation, "libwebgpu_wrapper.so");
  ASSERT_TRUE(info.force_loss);
  ASSERT_TRUE(info.inject_error);
  ASSERT_OK(ul_env_destroy(env));
}

/* The public fault-injection calls: refused without a schedule; a bad spec
 * keeps the old one; arming zeroes the counters; a loss scheduled at a call
 * is injected there, counted, and recovered from (ul_device_recoveries
 * counts it once); the same result on a fresh arm. */
static void test_chaos_arm_and_counts(void) {
  ul_env *plain = NULL;
  ASSERT_OK(ul_env_create(&(ul_env_desc){.chaos = NULL}, &plain));
  uint64_t calls = 7, injected = 7;
  if (!getenv("UNLOST_CHAOS")) {
    ASSERT_STATUS(ul_env_chaos_arm(plain, "loss@1"), UL_ERR_WRONG_STATE);
    ASSERT_STATUS(ul_env_chaos_counts(plain, &calls, &injected), UL_ERR_WRONG_STATE);
  }
  ASSERT_OK(ul_env_destroy(plain));
  ASSERT_STATUS(ul_env_chaos_arm(NULL, "seed=1"), UL_ERR_INVALID_ARGUMENT);

  ul_env *env = NULL;
  ASSERT_OK(ul_env_create(&(ul_env_desc){.chaos = "seed=1"}, &env));
  ASSERT_STATUS(ul_env_chaos_arm(env, "loss@zero"), UL_ERR_INVALID_ARGUMENT);
  ASSERT_CONTAINS(ul_last_error(), "zero");
  /* The example of ul_env_desc.chaos in unlost.h is a schedule that parses
   * (it once named a fault kind the grammar does not have). */
  ASSERT_OK(ul_env_chaos_arm(env, "loss@12,loss-every=200,seed=3"));
  ASSERT_STATUS(ul_env_chaos_arm(env, "loss@12,oom-every=5,seed=3"), UL_ERR_INVALID_ARGUMENT);
  for (int round = 0; round < 2; round++) {
    ul_device *d = NULL;
    ASSERT_OK(ul_device_create(env, &(ul_device_desc){.label = "armed"}, &d));
    ASSERT_OK(ul_env_chaos_arm(env, "loss@3"));
    ASSERT_OK(ul_env_chaos_counts(env, &calls, &injected));
    ASSERT_EQ(calls, 0);
    ASSERT_EQ(injected, 0);
    ASSERT_EQ(ul_device_recoveries(d), 0);
    uint32_t v[64] = {0}, got[64];
    for (uint32_t i = 0; i < 64; i++) v[i] = i * 7u + (uint32_t)round;
    ul_buffer b;
    ASSERT_OK(ul_buffer_create(d, &(ul_buffer_desc){.label = "b", .size = sizeof v, .initial_data = v}, &b));
    for (int k = 0; k < 4; k++) ASSERT_OK(ul_buffer_read(d, b, 0, got, sizeof got, 0));
    ASSERT_EQ(memcmp(got, v, sizeof v), 0);
    ASSERT_OK(ul_env_chaos_counts(env, &calls, NULL));
    ASSERT_OK(ul_env_chaos_counts(env, NULL, &injected));
    EXPECT_TRUE(calls >= 3);
    ASSERT_EQ(injected, 1);
    ASSERT_EQ(ul_device_recoveries(d), 1);
    ASSERT_OK(ul_buffer_destroy(d, b));
    ASSERT_OK(ul_env_chaos_arm(env, "seed=1"));
    ASSERT_OK(ul_device_destroy(d));
  }
  ASSERT_EQ(ul_device_recoveries(NULL), 0);
  ASSERT_OK(ul_env_destroy(env));
}

static void test_adapter_request_fails(void) {
  /* Every adapter request fails, the fallback's too: no device, nothing held,
   * and destroying the env afterwards does not hang. */
  ul_env_desc ed = {.chaos = "adapter-fail=all"};
  ul_env *env = NULL;
  ASSERT_OK(ul_env_create(&ed, &env));
  ul_device *dev = (ul_device *)1;
  ul_device_desc dd = {.recovery.request_timeout_ms = 3000};
  ASSERT_STATUS(ul_device_create(env, &dd, &dev), UL_ERR_NO_ADAPTER);
  ASSERT_TRUE(dev == NULL);
  ASSERT_CONTAINS(ul_last_error(), "adapter");
  ASSERT_OK(ul_device_destroy(dev));
  ASSERT_OK(ul_env_destroy(env));
}

static void test_gpu_fails_fallback_works(void) {
  ul_env_desc ed = {.chaos = "gpu-fail=all"};
  ul_env *env = NULL;
  ASSERT_OK(ul_env_create(&ed, &env));
  ul_device *dev = NULL;
  ASSERT_OK(ul_device_create(env, NULL, &dev));
  ASSERT_EQ(ul_device_get_state(dev), UL_DEVICE_FALLBACK);
  ul_adapter_info ai;
  ASSERT_OK(ul_device_adapter_info(dev, &ai));
  ASSERT_TRUE(ai.is_fallback);
  ASSERT_OK(ul_device_destroy(dev));
  ASSERT_OK(ul_env_destroy(env));
}

static void test_gpu_fails_no_fallback(void) {
  ul_env_desc ed = {.chaos = "gpu-fail=all"};
  ul_env *env = NULL;
  ASSERT_OK(ul_env_create(&ed, &env));
  ul_device *dev = NULL;
  ul_device_desc dd = {.recovery.no_fallback = true};
  ASSERT_STATUS(ul_device_create(env, &dd, &dev), UL_ERR_NO_ADAPTER);
  ASSERT_TRUE(dev == NULL);
  ASSERT_OK(ul_env_destroy(env));
}

static void test_device_request_fails(void) {
  ul_env_desc ed = {.chaos = "device-fail=all"};
  ul_env *env = NULL;
  ASSERT_OK(ul_env_create(&ed, &env));
  ul_device *dev = NULL;
  ASSERT_STATUS(ul_device_create(env, NULL, &dev), UL_ERR_NO_ADAPTER);
  ASSERT_TRUE(dev == NULL);
  ASSERT_CONTAINS(ul_last_error(), "request device");
  ASSERT_OK(ul_env_destroy(env));
}

static void test_limit_above_adapter(void) {
  ul_env *env = NULL;
  ASSERT_OK(ul_env_create(NULL, &env));
  ul_device *dev = NULL;
  ul_device_desc dd = {0};
  dd.required_limits.max_buffer_size = 1ull << 50;
  ASSERT_STATUS(ul_device_create(env, &dd, &dev), UL_ERR_UNSUPPORTED);
  ASSERT_CONTAINS(ul_last_error(), "max_buffer_size");
  ASSERT_TRUE(dev == NULL);
  ASSERT_OK(ul_env_destroy(env));
}

static void test_limits_up_to_adapter(void) {
  ul_env *env = NULL;
  ASSERT_OK(ul_env_create(NULL, &env));
  ul_device *dev = NULL;
  ul_device_desc dd = {0};
  dd.required_limits.max_buffer_size = UL_LIMIT_ADAPTER;
  dd.required_limits.max_storage_buffer_binding_size = UL_LIMIT_ADAPTER;
  ASSERT_OK(ul_device_create(env, &dd, &dev));
  ul_limits lim;
  ASSERT_OK(ul_device_limits(dev, &lim));
  ASSERT_GE(lim.max_buffer_size, 256ull << 20);
  ASSERT_GE(lim.max_storage_buffer_binding_size, 128ull << 20);
  ul_adapter_info ai;
  ASSERT_OK(ul_device_adapter_info(dev, &ai));
  ASSERT_EQ(ai.backend, UL_BACKEND_VULKAN); /* never Dawn's Null backend */
  ASSERT_EQ(ai.type, UL_ADAPTER_CPU);
  ASSERT_EQ(ul_device_get_state(dev), UL_DEVICE_READY);
  ASSERT_EQ(ul_device_epoch(dev), 1);
  ASSERT_OK(ul_device_destroy(dev));
  ASSERT_OK(ul_env_destroy(env));
}

static void test_env_busy_with_devices(void) {
  ul_env *env = NULL;
  ASSERT_OK(ul_env_create(NULL, &env));
  ul_device *dev = NULL;
  ASSERT_OK(ul_device_create(env, NULL, &dev));
  ASSERT_STATUS(ul_env_destroy(env), UL_ERR_BUSY);
  ASSERT_OK(ul_device_destroy(dev));
  ASSERT_OK(ul_env_destroy(env));
}

static void test_bad_descriptor(void) {
  ul_env *env = NULL;
  ASSERT_OK(ul_env_create(NULL, &env));
  ul_device *dev = NULL;
  ul_device_desc dd = {.power = (ul_power_preference)42};
  ASSERT_STATUS(ul_device_create(env, &dd, &dev), UL_ERR_INVALID_ARGUMENT);
  ASSERT_STATUS(ul_device_create(NULL, NULL, &dev), UL_ERR_INVALID_ARGUMENT);
  ASSERT_STATUS(ul_device_create(env, NULL, NULL), UL_ERR_INVALID_ARGUMENT);
  ASSERT_OK(ul_env_destroy(env));
}

int main(void) {
  ul_test_watchdog(240);
  RUN_TEST(test_missing_library_names_path);
  RUN_TEST(test_env_variable_names_library);
  RUN_TEST(test_missing_symbol);
  RUN_TEST(test_wrong_architecture);
  RUN_TEST(test_bad_chaos_schedule);
  RUN_TEST(test_env_info);
  RUN_TEST(test_chaos_arm_and_counts);
  RUN_TEST(test_adapter_request_fails);
  RUN_TEST(test_gpu_fails_fallback_works);
  RUN_TEST(test_gpu_fails_no_fallback);
  RUN_TEST(test_device_request_fails);
  RUN_TEST(test_limit_above_adapter);
  RUN_TEST(test_limits_up_to_adapter);
  RUN_TEST(test_env_busy_with_devices);
  RUN_TEST(test_bad_descriptor);
  TEST_MAIN_END();
}
