/* API misuse a hostile or careless program commits, on the real
 * implementation: each gets a status and a message, never a crash, a hang
 * or UL_OK with nothing done. Run under ASan+UBSan by `make sanitize`. */
#include "internal.h"
#include "ul_test.h"

#include <math.h>

static const char *add_wgsl =
    "@group(0) @binding(0) var<storage, read_write> v: array<u32>;\n"
    "@compute @workgroup_size(64)\n"
    "fn main(@builtin(global_invocation_id) id: vec3u) {\n"
    "  if (id.x < arrayLength(&v)) { v[id.x] = v[id.x] + 1u; }\n"
    "}\n";

typedef struct rig {
  ul_env *env;
  ul_device *dev;
  ul_buffer buf;
  ul_shader sh;
  ul_compute_pipeline pipe;
  ul_bind_group bg;
} rig;

static ul_status rig_open(rig *r) {
  memset(r, 0, sizeof *r);
  ul_status s = ul_env_create(NULL, &r->env);
  if (!s) s = ul_device_create(r->env, &(ul_device_desc){.label = "misuse"}, &r->dev);
  uint32_t zeros[256] = {0};
  if (!s) s = ul_buffer_create(r->dev, &(ul_buffer_desc){.label = "v", .size = 1024, .initial_data = zeros}, &r->buf);
  if (!s) s = ul_shader_create(r->dev, &(ul_shader_desc){.label = "add", .wgsl = add_wgsl}, &r->sh);
  if (!s) s = ul_compute_pipeline_create(r->dev, &(ul_compute_pipeline_desc){.label = "add", .shader = r->sh}, &r->pipe);
  if (!s) s = ul_bind_group_create(r->dev, &(ul_bind_group_desc){.label = "add", .pipeline = r->pipe, .entry_count = 1,
                                   .entries = {{.binding = 0, .buffer = r->buf}}}, &r->bg);
  return s;
}

static void rig_close(rig *r) {
  ul_bind_group_destroy(r->dev, r->bg);
  ul_compute_pipeline_destroy(r->dev, r->pipe);
  ul_shader_destroy(r->dev, r->sh);
  ul_buffer_destroy(r->dev, r->buf);
  EXPECT_EQ(ul_device_destroy(r->dev), UL_OK);
  EXPECT_EQ(ul_env_destroy(r->env), UL_OK);
}

static int read_calls, read_failed;
static void on_read(ul_device *d, ul_status s, void *dst, void *user) {
  (void)d;
  (void)dst;
  (void)user;
  read_calls++;
  if (s) {
    read_failed++;
    EXPECT_EQ(s, UL_ERR_WRONG_STATE);
  }
}

/* A read still queued at ul_device_destroy is answered during the destroy
 * (its data if it had arrived, else UL_ERR_WRONG_STATE), never left
 * pending, and nothing touches its record after (the implementation's
 * last callbacks run at ul_env_destroy). */
static void test_pending_read_at_destroy(void) {
  for (int order = 0; order < 2; order++) {
    rig r;
    ASSERT_OK(rig_open(&r));
    static uint32_t dst[4][256];
    read_calls = read_failed = 0;
    for (int k = 0; k < 4; k++) ASSERT_OK(ul_buffer_read_async(r.dev, r.buf, 0, dst[k], 1024, on_read, NULL));
    if (order) ASSERT_OK(ul_device_force_loss(r.dev, "test: lost with reads pending"));
    ul_bind_group_destroy(r.dev, r.bg);
    ul_compute_pipeline_destroy(r.dev, r.pipe);
    ul_shader_destroy(r.dev, r.sh);
    ul_buffer_destroy(r.dev, r.buf);
    EXPECT_EQ(ul_device_destroy(r.dev), UL_OK);
    ASSERT_EQ(read_calls, 4);
    EXPECT_EQ(ul_env_destroy(r.env), UL_OK);
    ASSERT_EQ(read_calls, 4);
    if (order) ASSERT_EQ(read_failed, 4); /* lost: none had arrived */
  }
}

/* Work WebGPU would reject is refused with UL_ERR_VALIDATION (or
 * UL_ERR_INVALID_ARGUMENT at record) and a message naming the command,
 * never UL_OK with the whole submission silently dropped. */
static void expect_refused(rig *r, ul_cmd *c, const char *name) {
  ul_status s = ul_cmd_submit(r->dev, c, NULL);
  printf("  %s: %s: %s\n", name, ul_status_name(s), ul_last_error());
  EXPECT_TRUE(s == UL_ERR_VALIDATION || s == UL_ERR_INVALID_ARGUMENT);
  EXPECT_TRUE(strlen(ul_last_error()) > 0);
}

static void test_lists_webgpu_rejects_are_refused(void) {
  rig r;
  ASSERT_OK(rig_open(&r));
  ul_buffer plain;
  ASSERT_OK(ul_buffer_create(r.dev, &(ul_buffer_desc){.label = "not-indirect", .size = 16}, &plain));
  for (int k = 0; k < 4; k++) {
    ul_cmd *c;
    ASSERT_OK(ul_cmd_create(r.dev, "bad", &c));
    ASSERT_OK(ul_cmd_dispatch(c, r.pipe, &r.bg, 1, 4, 1, 1));
    ul_status rec = UL_OK;
    const char *name = "";
    switch (k) {
    case 0:
      name = "overlapping copy within one buffer";
      rec = ul_cmd_copy_buffer(c, r.buf, 0, r.buf, 4, 64);
      break;
    case 1:
      name = "clear past the end";
      rec = ul_cmd_clear_buffer(c, r.buf, 1020, 8);
      break;
    case 2:
      name = "dispatch of 70000 workgroups";
      rec = ul_cmd_dispatch(c, r.pipe, &r.bg, 1, 70000, 1, 1);
      break;
    case 3:
      name = "indirect dispatch from a buffer without INDIRECT";
      rec = ul_cmd_dispatch_indirect(c, r.pipe, &r.bg, 1, plain, 0);
      break;
    }
    if (rec) {
      printf("  %s: refused at record: %s: %s\n", name, ul_status_name(rec), ul_last_error());
      EXPECT_TRUE(rec == UL_ERR_INVALID_ARGUMENT || rec == UL_ERR_VALIDATION);
    } else {
      expect_refused(&r, c, name);
    }
    ul_cmd_destroy(c);
  }
  /* A rule unlost does not check itself: a bind group of another
   * pipeline's automatic layout. The implementation rejects it during the
   * encode; the submission is refused with its message, and nothing runs. */
  {
    ul_compute_pipeline other;
    ul_bind_group other_bg;
    ASSERT_OK(ul_compute_pipeline_create(r.dev, &(ul_compute_pipeline_desc){.label = "other", .shader = r.sh}, &other));
    ASSERT_OK(ul_bind_group_create(r.dev, &(ul_bind_group_desc){.label = "other's", .pipeline = other, .entry_count = 1,
        .entries = {{.binding = 0, .buffer = r.buf}}}, &other_bg));
    ul_cmd *c;
    ASSERT_OK(ul_cmd_create(r.dev, "mismatched", &c));
    ASSERT_OK(ul_cmd_dispatch(c, r.pipe, &r.bg, 1, 4, 1, 1));
    ASSERT_OK(ul_cmd_dispatch(c, r.pipe, &other_bg, 1, 4, 1, 1));
    expect_refused(&r, c, "bind group of another pipeline's layout");
    EXPECT_TRUE(strstr(ul_last_error(), "rejected") != NULL);
    ul_cmd_destroy(c);
    ASSERT_OK(ul_bind_group_destroy(r.dev, other_bg));
    ASSERT_OK(ul_compute_pipeline_destroy(r.dev, other));
  }
  /* The device still works, and nothing of the refused lists ran. */
  ul_cmd *c;
  ASSERT_OK(ul_cmd_create(r.dev, "good", &c));
  ASSERT_OK(ul_cmd_dispatch(c, r.pipe, &r.bg, 1, 4, 1, 1));
  ASSERT_OK(ul_cmd_submit(r.dev, c, NULL));
  uint32_t got[256];
  ASSERT_OK(ul_buffer_read(r.dev, r.buf, 0, got, sizeof got, 0));
  for (int i = 0; i < 256; i++) ASSERT_EQ(got[i], 1);
  ul_cmd_destroy(c);
  ASSERT_OK(ul_buffer_destroy(r.dev, plain));
  rig_close(&r);
}

/* Whether `s` is well-formed UTF-8 (RFC 3629), written from the RFC. */
static bool utf8_ok(const unsigned char *s) {
  while (*s) {
    int n = *s < 0x80 ? 1 : (*s & 0xE0) == 0xC0 && *s >= 0xC2 ? 2 : (*s & 0xF0) == 0xE0 ? 3
            : (*s & 0xF8) == 0xF0 && *s <= 0xF4 ? 4 : 0;
    if (!n) return false;
    for (int k = 1; k < n; k++)
      if ((s[k] & 0xC0) != 0x80) return false;
    s += n;
  }
  return true;
}

/* A device label with invalid UTF-8, quotes, a newline and 600 bytes:
 * both metrics formats stay valid UTF-8, quote it escaped, and every
 * Prometheus series carries the same whole label. */
static void test_hostile_label_in_metrics(void) {
  char label[700] = "bad \xff\xfe \"quoted\" \\ back\nslash ";
  while (strlen(label) < 600) strcat(label, "long-label-");
  ul_env *env;
  ul_device *dev;
  ASSERT_OK(ul_env_create(NULL, &env));
  ASSERT_OK(ul_device_create(env, &(ul_device_desc){.label = label}, &dev));
  char *prom = NULL, *json = NULL;
  ASSERT_OK(ul_metrics(&dev, 1, UL_METRICS_PROMETHEUS, &prom));
  ASSERT_OK(ul_metrics(&dev, 1, UL_METRICS_JSON, &json));
  EXPECT_TRUE(utf8_ok((const unsigned char *)prom));
  EXPECT_TRUE(utf8_ok((const unsigned char *)json));
  EXPECT_TRUE(strstr(json, "\\ufffd") != NULL);
  EXPECT_TRUE(strstr(json, "\\\"quoted\\\"") != NULL);
  /* Every device="..." value in the exposition is the same, and whole. */
  const char *first = NULL;
  size_t first_len = 0, series = 0;
  for (const char *p = strstr(prom, "device=\""); p; p = strstr(p + 1, "device=\"")) {
    const char *v = p + 8, *e = v;
    while (*e && !(*e == '"' && e[-1] != '\\')) e++;
    if (!first) first = v, first_len = (size_t)(e - v);
    else EXPECT_TRUE((size_t)(e - v) == first_len && !memcmp(v, first, first_len));
    series++;
  }
  EXPECT_TRUE(series > 5);
  EXPECT_TRUE(first_len > 600);
  EXPECT_TRUE(strchr(prom, '\xff') == NULL);
  ul_free(prom);
  ul_free(json);
  EXPECT_EQ(ul_device_destroy(dev), UL_OK);
  EXPECT_EQ(ul_env_destroy(env), UL_OK);
}

/* Enumerations and settings out of range are refused with a message. */
static void test_bad_formats_and_health_settings(void) {
  ul_env *env;
  ul_device *dev;
  ASSERT_OK(ul_env_create(NULL, &env));
  ASSERT_OK(ul_device_create(env, &(ul_device_desc){.label = "formats"}, &dev));
  char *out = (char *)1;
  ASSERT_STATUS(ul_metrics(&dev, 1, (ul_metrics_format)9, &out), UL_ERR_INVALID_ARGUMENT);
  EXPECT_TRUE(out == NULL && strstr(ul_last_error(), "format 9") != NULL);
  ASSERT_STATUS(ul_device_report(dev, (ul_report_format)9, &out), UL_ERR_INVALID_ARGUMENT);
  EXPECT_TRUE(out == NULL && strstr(ul_last_error(), "format 9") != NULL);
  /* A message says its context once ("write buffer: write buffer: ..." was seen). */
  ul_buffer b;
  uint32_t x[8] = {0};
  ASSERT_OK(ul_buffer_create(dev, &(ul_buffer_desc){.label = "small", .size = 16}, &b));
  ASSERT_STATUS(ul_buffer_write(dev, b, 8, x, 32), UL_ERR_INVALID_ARGUMENT);
  EXPECT_TRUE(strstr(ul_last_error(), "write buffer: write buffer") == NULL);
  ASSERT_STATUS(ul_buffer_read(dev, b, 8, x, 32, 0), UL_ERR_INVALID_ARGUMENT);
  EXPECT_TRUE(strstr(ul_last_error(), "read buffer: read buffer") == NULL);
  ASSERT_OK(ul_buffer_destroy(dev, b));
  EXPECT_EQ(ul_device_destroy(dev), UL_OK);
  ul_health_config bad[6];
  memset(bad, 0, sizeof bad);
  bad[0].on_broken = (ul_broken_policy)7;
  bad[1].fault_rate_broken = 1.5f;
  bad[2].fault_rate_broken = NAN;
  bad[3].window_ms = 5;
  bad[4].open_wait_ms = 5000, bad[4].open_wait_max_ms = 10;
  bad[5].submit_deadline_ms = 90000000;
  for (int i = 0; i < 6; i++) {
    ul_device *d = (ul_device *)1;
    ASSERT_STATUS(ul_device_create(env, &(ul_device_desc){.label = "bad", .health = bad[i]}, &d),
                  UL_ERR_INVALID_ARGUMENT);
    EXPECT_TRUE(d == NULL && strstr(ul_last_error(), "health") != NULL);
  }
  EXPECT_EQ(ul_env_destroy(env), UL_OK);
}

int main(void) {
  ul_test_watchdog(300);
  RUN_TEST(test_pending_read_at_destroy);
  RUN_TEST(test_lists_webgpu_rejects_are_refused);
  RUN_TEST(test_hostile_label_in_metrics);
  RUN_TEST(test_bad_formats_and_health_settings);
  TEST_MAIN_END();
}
