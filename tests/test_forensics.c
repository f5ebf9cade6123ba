/* Loss forensics and the timeline on the real implementation: a loss
 * during a long dispatch names the submission in flight (its list's label
 * and site, its pipelines, its age), through ul_device_last_loss, the
 * report and the metrics; the work still comes out right (replayed). */
#include "unlost.h"
#include "ul_test.h"

#include <time.h>

static const char *spin_wgsl =
    "@group(0) @binding(0) var<storage, read_write> data: array<u32>;\n"
    "@compute @workgroup_size(1)\n"
    "fn main() {\n"
    "  var x = data[0];\n"
    "  let n = data[1];\n"
    "  for (var i = 0u; i < n; i++) { x = x * 1664525u + 1013904223u; }\n"
    "  data[0] = x;\n"
    "}\n";

/* The same on the CPU: the independent result. */
static uint32_t spin_cpu(uint32_t x, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) x = x * 1664525u + 1013904223u;
  return x;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void nap_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

typedef struct rig {
  ul_env *env;
  ul_device *dev;
  ul_buffer state;
  ul_shader sh;
  ul_compute_pipeline p;
  ul_bind_group bg;
  ul_cmd *cmd;
  int cmd_line;
} rig;

static ul_status rig_open(rig *r, uint32_t seed, uint32_t n) {
  memset(r, 0, sizeof *r);
  uint32_t init[2] = {seed, n};
  ul_status s = ul_env_create(NULL, &r->env);
  if (!s) s = ul_device_create(r->env, &(ul_device_desc){.label = "forensics"}, &r->dev);
  if (!s) s = ul_buffer_create(r->dev, &(ul_buffer_desc){.label = "state", .size = sizeof init, .initial_data = init},
                               &r->state);
  if (!s) s = ul_shader_create(r->dev, &(ul_shader_desc){.label = "spin", .wgsl = spin_wgsl}, &r->sh);
  if (!s) s = ul_compute_pipeline_create(r->dev, &(ul_compute_pipeline_desc){.label = "spin", .shader = r->sh}, &r->p);
  if (!s) s = ul_bind_group_create(r->dev, &(ul_bind_group_desc){.pipeline = r->p, .entry_count = 1,
      .entries = {{.binding = 0, .buffer = r->state}}}, &r->bg);
  r->cmd_line = __LINE__ + 1;
  if (!s) s = ul_cmd_create(r->dev, "long-work", &r->cmd);
  if (!s) s = ul_cmd_dispatch(r->cmd, r->p, &r->bg, 1, 1, 1, 1);
  return s;
}

static void rig_close(rig *r) {
  ul_cmd_destroy(r->cmd);
  ul_bind_group_destroy(r->dev, r->bg);
  ul_compute_pipeline_destroy(r->dev, r->p);
  ul_shader_destroy(r->dev, r->sh);
  ul_buffer_destroy(r->dev, r->state);
  ASSERT_OK(ul_device_destroy(r->dev));
  ASSERT_OK(ul_env_destroy(r->env));
}

static void test_no_loss_no_forensics(void) {
  rig r;
  ASSERT_OK(rig_open(&r, 1, 10));
  ul_loss_info li;
  memset(&li, 0xab, sizeof li);
  ASSERT_OK(ul_device_last_loss(r.dev, &li));
  ASSERT_EQ_U(li.number, 0);
  ASSERT_EQ_U(li.in_flight, 0);
  ASSERT_STATUS(ul_device_last_loss(NULL, &li), UL_ERR_INVALID_ARGUMENT);
  ASSERT_STATUS(ul_device_last_loss(r.dev, NULL), UL_ERR_INVALID_ARGUMENT);
  rig_close(&r);
}

static void test_loss_during_a_long_dispatch_names_it(void) {
  const uint32_t seed = 12345, calib = 200000;
  rig r;
  ASSERT_OK(rig_open(&r, seed, calib));
  /* How long one iteration takes here; the long dispatch is ~400 ms. */
  double t0 = now_ms();
  ASSERT_OK(ul_cmd_submit(r.dev, r.cmd, NULL));
  ASSERT_OK(ul_device_wait_idle(r.dev, 0));
  double per = (now_ms() - t0) / calib;
  double want = 400.0 / (per > 0 ? per : 1e-6);
  uint32_t n = want > 2e9 ? 2000000000u : want < 1e6 ? 1000000u : (uint32_t)want;
  ASSERT_OK(ul_buffer_write(r.dev, r.state, 4, &n, 4));
  uint64_t serial = 0;
  ASSERT_OK(ul_cmd_submit(r.dev, r.cmd, &serial));
  nap_ms(60);
  ASSERT_OK(ul_device_force_loss(r.dev, "test: loss during a long dispatch"));
  /* The call that sees the loss recovers, and the work is replayed. */
  uint32_t got[2];
  ASSERT_OK(ul_buffer_read(r.dev, r.state, 0, got, sizeof got, 0));
  uint32_t want0 = spin_cpu(spin_cpu(seed, calib), n);
  ASSERT_EQ_U(got[0], want0);
  ASSERT_EQ_U(got[1], n);

  ul_loss_info li;
  ASSERT_OK(ul_device_last_loss(r.dev, &li));
  ASSERT_EQ_U(li.number, 1);
  ASSERT_CONTAINS(li.message, "test: loss during a long dispatch");
  ASSERT_GE(li.in_flight, 1);
  ASSERT_GE(li.in_flight_listed, 1);
  const ul_submission_info *s = &li.in_flight_list[0];
  ASSERT_EQ_U(s->serial, serial);
  ASSERT_STR_EQ(s->label, "long-work");
  ASSERT_STR_EQ(s->pipelines, "spin");
  ASSERT_TRUE(s->file != NULL);
  ASSERT_CONTAINS(s->file, "test_forensics.c");
  ASSERT_EQ(s->line, r.cmd_line);
  ASSERT_GE(s->ms, 50.0);
  ASSERT_LT(s->ms, 60000.0);
  /* The calibration run finished before. */
  ASSERT_GE(li.finished_listed, 1);
  ASSERT_STR_EQ(li.finished_list[0].label, "long-work");
  ASSERT_LT(li.finished_list[0].serial, serial);

  /* The report: the loss with its submission, and the timeline's marks. */
  char *json = NULL;
  ASSERT_OK(ul_device_report(r.dev, UL_REPORT_JSON, &json));
  ASSERT_CONTAINS(json, "\"losses_total\":1");
  ASSERT_CONTAINS(json, "\"in_flight_list\":[{\"serial\":");
  ASSERT_CONTAINS(json, "\"label\":\"long-work\"");
  ASSERT_CONTAINS(json, "\"type\":\"loss\",\"number\":1,\"text\":\"while 'long-work' (test_forensics.c:");
  ASSERT_CONTAINS(json, "\"type\":\"recovery\"");
  ASSERT_CONTAINS(json, "\"phases\":{\"device_ms\":");
  ul_free(json);

  /* The metrics: one in flight, for at least the nap. */
  char *m = NULL;
  ASSERT_OK(ul_metrics(&r.dev, 1, UL_METRICS_PROMETHEUS, &m));
  ASSERT_CONTAINS(m, "unlost_last_loss_in_flight_submissions{device=\"forensics\"} 1\n");
  const char *k = "unlost_last_loss_oldest_in_flight_seconds{device=\"forensics\"} ";
  const char *at = strstr(m, k);
  ASSERT_TRUE(at != NULL);
  ASSERT_GE(strtod(at + strlen(k), NULL), 0.05);
  ul_free(m);
  rig_close(&r);
}

/* Whether s is valid UTF-8 (no character cut short). */
static bool utf8_ok(const char *s) {
  for (const unsigned char *p = (const unsigned char *)s; *p;) {
    int n = *p < 0x80 ? 0 : (*p & 0xE0) == 0xC0 ? 1 : (*p & 0xF0) == 0xE0 ? 2 : (*p & 0xF8) == 0xF0 ? 3 : -1;
    if (n < 0) return false;
    p++;
    for (int i = 0; i < n; i++, p++)
      if ((*p & 0xC0) != 0x80) return false;
  }
  return true;
}

/* A submission's pipelines are listed by label, as many as fit in
 * ul_submission_info.pipelines, cut where a character ends: the first label
 * (60 bytes) whole, then 64 of the second's 120 (60 two-byte characters;
 * 65 would split one). */
static void test_pipeline_list_cut_whole_characters(void) {
  rig r;
  ASSERT_OK(rig_open(&r, 1, 10));
  char l1[61], l2[121];
  memset(l1, 'a', 60);
  l1[60] = 0;
  for (int i = 0; i < 60; i++) memcpy(l2 + 2 * i, "\xc3\xa9", 2); /* U+00E9 */
  l2[120] = 0;
  ul_compute_pipeline p1, p2;
  ul_bind_group g1, g2;
  ul_cmd *c;
  ASSERT_OK(ul_compute_pipeline_create(r.dev, &(ul_compute_pipeline_desc){.label = l1, .shader = r.sh}, &p1));
  ASSERT_OK(ul_compute_pipeline_create(r.dev, &(ul_compute_pipeline_desc){.label = l2, .shader = r.sh}, &p2));
  ASSERT_OK(ul_bind_group_create(r.dev, &(ul_bind_group_desc){.pipeline = p1, .entry_count = 1,
      .entries = {{.binding = 0, .buffer = r.state}}}, &g1));
  ASSERT_OK(ul_bind_group_create(r.dev, &(ul_bind_group_desc){.pipeline = p2, .entry_count = 1,
      .entries = {{.binding = 0, .buffer = r.state}}}, &g2));
  ASSERT_OK(ul_cmd_create(r.dev, "two", &c));
  ASSERT_OK(ul_cmd_dispatch(c, p1, &g1, 1, 1, 1, 1));
  ASSERT_OK(ul_cmd_dispatch(c, p2, &g2, 1, 1, 1, 1));
  ASSERT_OK(ul_cmd_submit(r.dev, c, NULL));
  ASSERT_OK(ul_device_wait_idle(r.dev, 0));
  ASSERT_OK(ul_device_force_loss(r.dev, "test: after two pipelines"));
  uint32_t got[2];
  ASSERT_OK(ul_buffer_read(r.dev, r.state, 0, got, sizeof got, 0));
  ul_loss_info li;
  ASSERT_OK(ul_device_last_loss(r.dev, &li));
  ASSERT_GE(li.finished_listed, 1);
  const char *pl = li.finished_list[0].pipelines;
  printf("  listed: %zu bytes\n", strlen(pl));
  ASSERT_TRUE(utf8_ok(pl));
  ASSERT_EQ_U(strlen(pl), 60 + 2 + 64);
  ASSERT_TRUE(!strncmp(pl, l1, 60) && !strncmp(pl + 60, ", ", 2) && !strncmp(pl + 62, l2, 64));
  ul_cmd_destroy(c);
  ul_bind_group_destroy(r.dev, g1);
  ul_bind_group_destroy(r.dev, g2);
  ul_compute_pipeline_destroy(r.dev, p1);
  ul_compute_pipeline_destroy(r.dev, p2);
  rig_close(&r);
}

static void test_timeline_records_large_objects_and_checkpoints(void) {
  ul_env *env;
  ul_device *dev;
  ASSERT_OK(ul_env_create(NULL, &env));
  ASSERT_OK(ul_device_create(env, &(ul_device_desc){.label = "tl", .timeline_min_bytes = 4096}, &dev));
  ul_buffer small, big;
  ASSERT_OK(ul_buffer_create(dev, &(ul_buffer_desc){.label = "small", .size = 256}, &small));
  ASSERT_OK(ul_buffer_create(dev, &(ul_buffer_desc){.label = "big", .size = 8192}, &big));
  uint32_t v = 7;
  ASSERT_OK(ul_buffer_write(dev, big, 0, &v, 4));
  ASSERT_OK(ul_device_checkpoint(dev));
  ul_buffer_destroy(dev, big);
  char *json = NULL;
  ASSERT_OK(ul_device_report(dev, UL_REPORT_JSON, &json));
  ASSERT_CONTAINS(json, "\"type\":\"create\",\"kind\":\"buffer\",\"bytes\":8192,\"text\":\"big\"");
  ASSERT_CONTAINS(json, "\"type\":\"destroy\",\"kind\":\"buffer\",\"bytes\":8192,\"text\":\"big\"");
  ASSERT_CONTAINS(json, "\"type\":\"checkpoint\",\"bytes\":");
  ASSERT_TRUE(strstr(json, "\"text\":\"small\"}") == NULL); /* under the threshold: no event */
  ASSERT_CONTAINS(json, "\"samples\":[[");
  ul_free(json);
  ul_buffer_destroy(dev, small);
  ASSERT_OK(ul_device_destroy(dev));
  /* Off: no records at all. */
  ASSERT_OK(ul_device_create(env, &(ul_device_desc){.label = "off", .timeline_off = true}, &dev));
  ASSERT_OK(ul_buffer_create(dev, &(ul_buffer_desc){.label = "big", .size = 1 << 20}, &big));
  ASSERT_OK(ul_device_report(dev, UL_REPORT_JSON, &json));
  ASSERT_CONTAINS(json, "\"records\":0,");
  ASSERT_CONTAINS(json, "\"events\":[]");
  ul_free(json);
  ul_buffer_destroy(dev, big);
  ASSERT_OK(ul_device_destroy(dev));
  ASSERT_OK(ul_env_destroy(env));
}

int main(void) {
  ul_test_watchdog(240);
  RUN_TEST(test_no_loss_no_forensics);
  RUN_TEST(test_loss_during_a_long_dispatch_names_it);
  RUN_TEST(test_timeline_records_large_objects_and_checkpoints);
  RUN_TEST(test_pipeline_list_cut_whole_characters);
  TEST_MAIN_END();
}
