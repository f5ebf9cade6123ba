/* Execution on the real implementation (src/exec/, through src/api/):
 * command lists -- dispatch, indirect dispatch, copy, clear, handles that
 * die between recording and submit -- and asynchronous reads, in order and
 * across a loss. Each test leaves no object behind (RUN_TEST_NO_LEAKS). */
#include "unlost.h"
#include "ul_test.h"

static ul_env *env;
static ul_device *dev;

static const char *double_wgsl =
    "@group(0) @binding(0) var<storage, read_write> data: array<u32>;\n"
    "@compute @workgroup_size(64)\n"
    "fn main(@builtin(global_invocation_id) id: vec3u) {\n"
    "  if (id.x < arrayLength(&data)) { data[id.x] = data[id.x] * 2u + 1u; }\n"
    "}\n";

static void setup(void) {
  if (ul_env_create(NULL, &env) || ul_device_create(env, &(ul_device_desc){.label = "exec"}, &dev)) {
    fprintf(stderr, "setup: %s\n", ul_last_error());
    exit(1);
  }
}

static void test_dispatch_and_indirect(void) {
  enum { N = 256 };
  uint32_t in[N], out[N];
  for (int i = 0; i < N; i++) in[i] = (uint32_t)i;
  ul_buffer b, args;
  ul_shader sh;
  ul_compute_pipeline p;
  ul_bind_group bg;
  ASSERT_OK(ul_buffer_create(dev, &(ul_buffer_desc){.label = "data", .size = sizeof in, .initial_data = in}, &b));
  uint32_t groups[3] = {N / 64, 1, 1};
  ASSERT_OK(ul_buffer_create(dev, &(ul_buffer_desc){.label = "args", .size = sizeof groups,
                                                    .usage = UL_BUFFER_INDIRECT | UL_BUFFER_STORAGE,
                                                    .initial_data = groups}, &args));
  ASSERT_OK(ul_shader_create(dev, &(ul_shader_desc){.label = "double", .wgsl = double_wgsl}, &sh));
  ASSERT_OK(ul_compute_pipeline_create(dev, &(ul_compute_pipeline_desc){.label = "double", .shader = sh}, &p));
  ASSERT_OK(ul_bind_group_create(dev, &(ul_bind_group_desc){.pipeline = p, .entry_count = 1,
                                                             .entries = {{.binding = 0, .buffer = b}}}, &bg));
  ul_cmd *c;
  ASSERT_OK(ul_cmd_create(dev, "twice", &c));
  ASSERT_OK(ul_cmd_dispatch(c, p, &bg, 1, N / 64, 1, 1));
  ASSERT_OK(ul_cmd_dispatch_indirect(c, p, &bg, 1, args, 0));
  uint64_t serial = 0;
  ASSERT_OK(ul_cmd_submit(dev, c, &serial));
  ASSERT_GT(serial, 0);
  ASSERT_OK(ul_device_wait(dev, serial, 0));
  ASSERT_OK(ul_buffer_read(dev, b, 0, out, sizeof out, 0));
  for (int i = 0; i < N; i++) ASSERT_EQ(out[i], (in[i] * 2 + 1) * 2 + 1);
  /* copy + clear */
  ul_buffer b2;
  ASSERT_OK(ul_buffer_create(dev, &(ul_buffer_desc){.size = sizeof in}, &b2));
  ul_cmd_reset(c);
  ASSERT_OK(ul_cmd_copy_buffer(c, b, 0, b2, 0, sizeof in));
  ASSERT_OK(ul_cmd_clear_buffer(c, b, 0, sizeof in));
  ASSERT_OK(ul_cmd_submit(dev, c, NULL));
  ASSERT_OK(ul_buffer_read(dev, b2, 0, in, sizeof in, 0));
  ASSERT_EQ(in[5], out[5]);
  ASSERT_OK(ul_buffer_read(dev, b, 0, out, sizeof out, 0));
  ASSERT_EQ(out[5], 0);
  /* a bind group that refers to a destroyed buffer is reported at use */
  ul_cmd_reset(c);
  ASSERT_OK(ul_cmd_dispatch(c, p, &bg, 1, 1, 1, 1));
  ASSERT_OK(ul_buffer_destroy(dev, b));
  ASSERT_STATUS(ul_cmd_submit(dev, c, NULL), UL_ERR_INVALID_HANDLE);
  ASSERT_CONTAINS(ul_last_error(), "destroyed buffer");
  /* recording with a dead handle is refused at once */
  ASSERT_OK(ul_bind_group_destroy(dev, bg));
  ASSERT_STATUS(ul_cmd_dispatch(c, p, &bg, 1, 1, 1, 1), UL_ERR_INVALID_HANDLE);
  ul_cmd_destroy(c);
  ASSERT_OK(ul_compute_pipeline_destroy(dev, p));
  ASSERT_OK(ul_shader_destroy(dev, sh));
  ASSERT_OK(ul_buffer_destroy(dev, b2));
  ASSERT_OK(ul_buffer_destroy(dev, args));
}

static int reads_done;
static void on_read(ul_device *d, ul_status s, void *dst, void *user) {
  (void)d;
  (void)user;
  if (s == UL_OK && ((uint32_t *)dst)[1] == 42) reads_done++;
}

static void test_async_read(void) {
  uint32_t v[4] = {0, 42, 0, 0}, out[4] = {0};
  ul_buffer b;
  ASSERT_OK(ul_buffer_create(dev, &(ul_buffer_desc){.size = sizeof v, .initial_data = v}, &b));
  ASSERT_OK(ul_buffer_read_async(dev, b, 0, out, sizeof out, on_read, NULL));
  int delivered = 0;
  for (int i = 0; i < 1000 && !delivered; i++) {
    delivered = ul_device_poll(dev);
    if (!delivered) usleep(1000);
  }
  ASSERT_EQ(delivered, 1);
  ASSERT_EQ(reads_done, 1);
  /* a read in flight at a loss is delivered with the restored contents */
  ASSERT_OK(ul_buffer_read_async(dev, b, 0, out, sizeof out, on_read, NULL));
  ASSERT_OK(ul_device_force_loss(dev, "test: loss with a read in flight"));
  delivered = 0;
  for (int i = 0; i < 1000 && !delivered; i++) {
    delivered = ul_device_poll(dev);
    if (!delivered) usleep(1000);
  }
  ASSERT_EQ(delivered, 1);
  ASSERT_EQ(reads_done, 2);
  ASSERT_STATUS(ul_buffer_read_async(dev, b, 4, out, sizeof out, on_read, NULL), UL_ERR_INVALID_ARGUMENT);
  ASSERT_OK(ul_buffer_destroy(dev, b));
}

int main(void) {
  ul_test_watchdog(240);
  setup();
  RUN_TEST_NO_LEAKS(dev, test_dispatch_and_indirect);
  RUN_TEST_NO_LEAKS(dev, test_async_read);
  ASSERT_OK_MAIN(ul_device_destroy(dev));
  ASSERT_OK_MAIN(ul_env_destroy(env));
  TEST_MAIN_END();
}
