/* Resources on the real implementation (src/res/, through src/api/):
 * create, use, destroy and misuse of every object kind, each answered by a
 * status; each test leaves no object behind (RUN_TEST_NO_LEAKS). Command
 * lists and reads are test_exec.c. */
#include "chaos/chaos.h"
#include "core/core.h"
#include "res/obj.h"
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
  ul_env_desc ed = {.chaos = "seed=1"}; /* counts calls; injects nothing */
  if (ul_env_create(&ed, &env) || ul_device_create(env, &(ul_device_desc){.label = "res"}, &dev)) {
    fprintf(stderr, "setup: %s\n", ul_last_error());
    exit(1);
  }
}

static void test_buffer_roundtrip(void) {
  uint32_t in[256], out[256];
  for (int i = 0; i < 256; i++) in[i] = (uint32_t)i * 7u;
  ul_buffer b;
  ASSERT_OK(ul_buffer_create(dev, &(ul_buffer_desc){.label = "rt", .size = sizeof in}, &b));
  ASSERT_NE(b.id, 0);
  ASSERT_OK(ul_buffer_write(dev, b, 0, in, sizeof in));
  ASSERT_OK(ul_buffer_read(dev, b, 0, out, sizeof out, 0));
  ASSERT_EQ(memcmp(in, out, sizeof in), 0);
  /* partial read at an offset */
  ASSERT_OK(ul_buffer_read(dev, b, 16, out, 16, 0));
  ASSERT_EQ(out[0], in[4]);
  uint64_t size = 0;
  ASSERT_OK(ul_buffer_size(dev, b, &size));
  ASSERT_EQ(size, sizeof in);
  ASSERT_OK(ul_buffer_destroy(dev, b));
}

static void test_large_write_uses_staging(void) {
  const uint64_t n = 3u << 20; /* above the queue-write threshold */
  uint8_t *in = malloc(n), *out = malloc(n);
  ASSERT_TRUE(in && out);
  for (uint64_t i = 0; i < n; i++) in[i] = (uint8_t)(i * 31 + 7);
  ul_buffer b;
  ASSERT_OK(ul_buffer_create(dev, &(ul_buffer_desc){.label = "big", .size = n}, &b));
  ASSERT_OK(ul_buffer_write(dev, b, 0, in, n));
  ASSERT_OK(ul_buffer_read(dev, b, 0, out, n, 0));
  ASSERT_EQ(memcmp(in, out, n), 0);
  ASSERT_OK(ul_buffer_destroy(dev, b));
  free(in);
  free(out);
}

static void test_stale_and_double_destroy(void) {
  ul_buffer b;
  ASSERT_OK(ul_buffer_create(dev, &(ul_buffer_desc){.size = 64}, &b));
  ASSERT_OK(ul_buffer_destroy(dev, b));
  ASSERT_STATUS(ul_buffer_destroy(dev, b), UL_ERR_INVALID_HANDLE);
  ASSERT_CONTAINS(ul_last_error(), "stale");
  uint32_t x[16] = {0};
  ASSERT_STATUS(ul_buffer_write(dev, b, 0, x, sizeof x), UL_ERR_INVALID_HANDLE);
  ASSERT_STATUS(ul_buffer_read(dev, b, 0, x, sizeof x, 0), UL_ERR_INVALID_HANDLE);
  /* A new buffer in the same slot does not revive the old handle. */
  ul_buffer b2;
  ASSERT_OK(ul_buffer_create(dev, &(ul_buffer_desc){.size = 64}, &b2));
  ASSERT_NE(b2.id, b.id);
  ASSERT_STATUS(ul_buffer_write(dev, b, 0, x, sizeof x), UL_ERR_INVALID_HANDLE);
  ASSERT_OK(ul_buffer_destroy(dev, b2));
  /* zero handle: destroy is a no-op, use is an error */
  ASSERT_OK(ul_buffer_destroy(dev, (ul_buffer){0}));
  ASSERT_STATUS(ul_buffer_write(dev, (ul_buffer){0}, 0, x, 4), UL_ERR_INVALID_HANDLE);
  /* a made-up handle */
  ASSERT_STATUS(ul_buffer_write(dev, (ul_buffer){0x0fffffffu}, 0, x, 4), UL_ERR_INVALID_HANDLE);
}

static void test_wrong_kind_and_wrong_device(void) {
  ul_buffer b;
  ASSERT_OK(ul_buffer_create(dev, &(ul_buffer_desc){.size = 64}, &b));
  /* the same id used as another kind */
  ASSERT_STATUS(ul_shader_destroy(dev, (ul_shader){b.id}), UL_ERR_INVALID_HANDLE);
  ASSERT_CONTAINS(ul_last_error(), "is a buffer");
  ul_device *other;
  ASSERT_OK(ul_device_create(env, NULL, &other));
  uint32_t x = 0;
  ASSERT_STATUS(ul_buffer_write(other, b, 0, &x, 4), UL_ERR_INVALID_HANDLE);
  ASSERT_CONTAINS(ul_last_error(), "another device");
  ASSERT_OK(ul_device_destroy(other));
  ASSERT_OK(ul_buffer_destroy(dev, b));
}

static void test_bad_descriptors(void) {
  ul_buffer b;
  ASSERT_STATUS(ul_buffer_create(dev, &(ul_buffer_desc){.size = 0}, &b), UL_ERR_INVALID_ARGUMENT);
  ASSERT_EQ(b.id, 0);
  ASSERT_STATUS(ul_buffer_create(dev, &(ul_buffer_desc){.size = 6}, &b), UL_ERR_INVALID_ARGUMENT);
  ASSERT_STATUS(ul_buffer_create(dev, &(ul_buffer_desc){.size = 64, .usage = 0x8000}, &b),
                UL_ERR_INVALID_ARGUMENT);
  ASSERT_STATUS(ul_buffer_create(dev, &(ul_buffer_desc){.size = 64, .restore = UL_RESTORE_SOURCE}, &b),
                UL_ERR_INVALID_ARGUMENT);
  ASSERT_STATUS(ul_buffer_create(dev, &(ul_buffer_desc){.size = 64, .restore = (ul_restore)77}, &b),
                UL_ERR_INVALID_ARGUMENT);
  ASSERT_STATUS(ul_buffer_create(dev, &(ul_buffer_desc){.size = 64, .restore = UL_RESTORE_SOURCE,
                                                        .source_path = "/nonexistent/w.bin"}, &b),
                UL_ERR_IO);
  ASSERT_STATUS(ul_buffer_create(dev, &(ul_buffer_desc){.size = 1ull << 40}, &b), UL_ERR_INVALID_ARGUMENT);
  ASSERT_STATUS(ul_buffer_create(dev, NULL, &b), UL_ERR_INVALID_ARGUMENT);
  ul_memory_stats st;
  ASSERT_OK(ul_device_memory_stats(dev, &st));
  ASSERT_EQ(st.live_objects, 0);
}

static void test_out_of_range(void) {
  ul_buffer b;
  uint32_t x[4] = {0};
  ASSERT_OK(ul_buffer_create(dev, &(ul_buffer_desc){.size = 16}, &b));
  ASSERT_STATUS(ul_buffer_write(dev, b, 8, x, 16), UL_ERR_INVALID_ARGUMENT);
  ASSERT_STATUS(ul_buffer_write(dev, b, 2, x, 4), UL_ERR_INVALID_ARGUMENT);
  ASSERT_STATUS(ul_buffer_read(dev, b, 0, x, 20, 0), UL_ERR_INVALID_ARGUMENT);
  ASSERT_STATUS(ul_buffer_read(dev, b, UINT64_MAX - 3, x, 8, 0), UL_ERR_INVALID_ARGUMENT);
  ASSERT_OK(ul_buffer_destroy(dev, b));
}

static void test_map_and_destroy_while_mapped(void) {
  ul_buffer b;
  ASSERT_OK(ul_buffer_create(dev, &(ul_buffer_desc){.size = 64, .usage = UL_BUFFER_MAP_WRITE | UL_BUFFER_COPY_SRC}, &b));
  void *p = NULL;
  ASSERT_OK(ul_buffer_map(dev, b, UL_MAP_WRITE, 0, 64, 0, &p));
  ASSERT_TRUE(p != NULL);
  memset(p, 0xab, 64);
  ASSERT_STATUS(ul_buffer_map(dev, b, UL_MAP_WRITE, 0, 64, 0, &p), UL_ERR_WRONG_STATE);
  ASSERT_OK(ul_buffer_unmap(dev, b));
  ASSERT_STATUS(ul_buffer_unmap(dev, b), UL_ERR_WRONG_STATE);
  ASSERT_STATUS(ul_buffer_map(dev, b, UL_MAP_READ, 0, 64, 0, &p), UL_ERR_INVALID_ARGUMENT);
  ASSERT_OK(ul_buffer_map(dev, b, UL_MAP_WRITE, 0, 64, 0, &p));
  /* destroy while mapped: unmapped, the handle is dead */
  ASSERT_OK(ul_buffer_destroy(dev, b));
  ASSERT_STATUS(ul_buffer_unmap(dev, b), UL_ERR_INVALID_HANDLE);
  ASSERT_STATUS(ul_buffer_map(dev, b, UL_MAP_WRITE, 0, 64, 0, &p), UL_ERR_INVALID_HANDLE);
}

static void test_explicit_layouts(void) {
  ul_bind_group_layout bgl;
  ul_pipeline_layout pl;
  ul_shader sh;
  ul_compute_pipeline p;
  ul_buffer b;
  ul_bind_group bg;
  ASSERT_OK(ul_bind_group_layout_create(dev, &(ul_bind_group_layout_desc){
      .label = "bgl", .entry_count = 1, .entries = {{.binding = 0, .type = UL_BINDING_STORAGE}}}, &bgl));
  ASSERT_OK(ul_pipeline_layout_create(dev, &(ul_pipeline_layout_desc){.group_count = 1, .groups = {bgl}}, &pl));
  ASSERT_OK(ul_shader_create(dev, &(ul_shader_desc){.wgsl = double_wgsl}, &sh));
  ASSERT_OK(ul_compute_pipeline_create(dev, &(ul_compute_pipeline_desc){.shader = sh, .layout = pl}, &p));
  uint32_t v[64] = {[3] = 20};
  ASSERT_OK(ul_buffer_create(dev, &(ul_buffer_desc){.size = sizeof v, .initial_data = v}, &b));
  ASSERT_OK(ul_bind_group_create(dev, &(ul_bind_group_desc){.layout = bgl, .entry_count = 1,
                                                             .entries = {{.binding = 0, .buffer = b}}}, &bg));
  ul_cmd *c;
  ASSERT_OK(ul_cmd_create(dev, NULL, &c));
  ASSERT_OK(ul_cmd_dispatch(c, p, &bg, 1, 1, 1, 1));
  ASSERT_OK(ul_cmd_submit(dev, c, NULL));
  ASSERT_OK(ul_buffer_read(dev, b, 0, v, sizeof v, 0));
  ASSERT_EQ(v[3], 41);
  /* a bind group entry naming no resource is refused */
  ul_bind_group bad;
  ASSERT_STATUS(ul_bind_group_create(dev, &(ul_bind_group_desc){.layout = bgl, .entry_count = 1,
      .entries = {{.binding = 0}}}, &bad), UL_ERR_INVALID_ARGUMENT);
  ASSERT_EQ(bad.id, 0);
  /* a bind group that does not match its layout: the implementation's validation */
  ASSERT_STATUS(ul_bind_group_create(dev, &(ul_bind_group_desc){.layout = bgl, .entry_count = 1,
      .entries = {{.binding = 5, .buffer = b}}}, &bad), UL_ERR_VALIDATION);
  ul_cmd_destroy(c);
  ASSERT_OK(ul_bind_group_destroy(dev, bg));
  ASSERT_OK(ul_compute_pipeline_destroy(dev, p));
  ASSERT_OK(ul_pipeline_layout_destroy(dev, pl));
  ASSERT_OK(ul_bind_group_layout_destroy(dev, bgl));
  ASSERT_OK(ul_shader_destroy(dev, sh));
  ASSERT_OK(ul_buffer_destroy(dev, b));
}

static void test_wgsl_error_with_line(void) {
  ul_shader sh;
  const char *bad = "@compute @workgroup_size(1)\nfn main() {\n  let y = x + 1;\n}\n";
  ASSERT_STATUS(ul_shader_create(dev, &(ul_shader_desc){.label = "broken", .wgsl = bad}, &sh),
                UL_ERR_SHADER_COMPILE);
  ASSERT_EQ(sh.id, 0);
  ASSERT_CONTAINS(ul_last_error(), "broken");
  ASSERT_CONTAINS(ul_last_error(), "3:11");
  ASSERT_CONTAINS(ul_last_error(), "unresolved");
  /* a pipeline with a missing entry point */
  ASSERT_OK(ul_shader_create(dev, &(ul_shader_desc){.wgsl = double_wgsl}, &sh));
  ul_compute_pipeline p;
  ASSERT_STATUS(ul_compute_pipeline_create(dev, &(ul_compute_pipeline_desc){.shader = sh, .entry = "nope"}, &p),
                UL_ERR_VALIDATION);
  ASSERT_OK(ul_shader_destroy(dev, sh));
}

static void test_textures_and_views(void) {
  ul_texture t;
  ASSERT_OK(ul_texture_create(dev, &(ul_texture_desc){.label = "img", .width = 8, .height = 4,
                                                      .format = UL_FORMAT_RGBA8_UNORM}, &t));
  uint8_t px[8 * 4 * 4], back[8 * 4 * 4];
  for (size_t i = 0; i < sizeof px; i++) px[i] = (uint8_t)i;
  ASSERT_OK(ul_texture_write(dev, t, 0, 0, 0, 8, 4, 1, px, sizeof px, 0));
  ASSERT_OK(ul_texture_read(dev, t, 0, 0, 0, 8, 4, 1, back, sizeof back, 0));
  ASSERT_EQ(memcmp(px, back, sizeof px), 0);
  ASSERT_STATUS(ul_texture_write(dev, t, 4, 0, 0, 8, 4, 1, px, sizeof px, 0), UL_ERR_INVALID_ARGUMENT);
  ul_texture_view v;
  ul_sampler smp;
  ASSERT_OK(ul_texture_view_create(dev, &(ul_texture_view_desc){.label = "v", .texture = t}, &v));
  ASSERT_OK(ul_sampler_create(dev, &(ul_sampler_desc){.linear = false}, &smp));
  /* copies through a buffer */
  ul_buffer b;
  ASSERT_OK(ul_buffer_create(dev, &(ul_buffer_desc){.size = 256 * 4}, &b));
  ul_cmd *c;
  ASSERT_OK(ul_cmd_create(dev, NULL, &c));
  ASSERT_OK(ul_cmd_copy_texture_to_buffer(c, t, 8, 4, 1, b, 0, 256));
  ASSERT_OK(ul_cmd_submit(dev, c, NULL));
  uint8_t row1[32];
  ASSERT_OK(ul_buffer_read(dev, b, 256, row1, 32, 0));
  ASSERT_EQ(memcmp(row1, px + 32, 32), 0);
  ul_cmd_reset(c);
  ASSERT_OK(ul_cmd_copy_buffer_to_texture(c, b, 0, 256, t, 8, 4, 1));
  ASSERT_OK(ul_cmd_submit(dev, c, NULL));
  ul_cmd_destroy(c);
  /* destroying the texture invalidates its view */
  ASSERT_OK(ul_texture_destroy(dev, t));
  ASSERT_STATUS(ul_texture_view_destroy(dev, v), UL_ERR_INVALID_HANDLE);
  ASSERT_STATUS(ul_texture_view_create(dev, &(ul_texture_view_desc){.texture = t}, &v), UL_ERR_INVALID_HANDLE);
  ASSERT_STATUS(ul_texture_create(dev, &(ul_texture_desc){.width = 0}, &t), UL_ERR_INVALID_ARGUMENT);
  ASSERT_STATUS(ul_texture_create(dev, &(ul_texture_desc){.width = 4, .format = (ul_format)99}, &t),
                UL_ERR_INVALID_ARGUMENT);
  ASSERT_OK(ul_sampler_destroy(dev, smp));
  ASSERT_OK(ul_buffer_destroy(dev, b));
}

static void test_budget_refused_before_driver(void) {
  ASSERT_OK(ul_device_set_budget(dev, 1 << 20));
  uint64_t calls_before = ul__chaos_calls(env->chaos);
  ul_buffer b;
  ASSERT_STATUS(ul_buffer_create(dev, &(ul_buffer_desc){.label = "too big", .size = 2 << 20}, &b),
                UL_ERR_OUT_OF_MEMORY);
  ASSERT_CONTAINS(ul_last_error(), "budget");
  ASSERT_CONTAINS(ul_last_error(), "too big");
  /* not a single WebGPU call was made for the refused buffer */
  ASSERT_EQ(ul__chaos_calls(env->chaos), calls_before);
  ASSERT_OK(ul_buffer_create(dev, &(ul_buffer_desc){.size = 512 << 10}, &b));
  ASSERT_OK(ul_buffer_destroy(dev, b));
  ASSERT_OK(ul_device_set_budget(dev, 0));
}

static void test_report_and_stats(void) {
  ul_buffer a, b;
  ASSERT_OK(ul_buffer_create(dev, &(ul_buffer_desc){.label = "kept-a", .size = 4096}, &a));
  ASSERT_OK(ul_buffer_create(dev, &(ul_buffer_desc){.label = "kept-b", .size = 8192}, &b));
  ul_memory_stats st;
  ASSERT_OK(ul_device_memory_stats(dev, &st));
  ASSERT_EQ(st.live_objects, 2);
  ASSERT_EQ(st.live_bytes, 4096 + 8192);
  char *json = NULL;
  ASSERT_OK(ul_device_report(dev, UL_REPORT_JSON, &json));
  ASSERT_CONTAINS(json, "\"label\":\"kept-a\"");
  ASSERT_CONTAINS(json, "test_res.c:");
  free(json);
  ASSERT_OK(ul_buffer_destroy(dev, a));
  ASSERT_OK(ul_buffer_destroy(dev, b));
}

static void test_destroy_device_reports_leaks(void) {
  ul_device *d2;
  ASSERT_OK(ul_device_create(env, NULL, &d2));
  ul_buffer b;
  ASSERT_OK(ul_buffer_create(d2, &(ul_buffer_desc){.label = "forgotten", .size = 64}, &b));
  ASSERT_STATUS(ul_device_destroy(d2), UL_ERR_BUSY);
  ASSERT_CONTAINS(ul_last_error(), "1 live object");
}

static void test_buffer_pool_reuses(void) {
  ul_buffer_pool *pool;
  ASSERT_OK(ul_buffer_pool_create(dev, &(ul_buffer_pool_desc){.label = "scratch", .restore = UL_RESTORE_NONE}, &pool));
  ul_buffer a, b, c;
  ASSERT_OK(ul_buffer_pool_acquire(pool, 1000, &a));
  uint64_t size;
  ASSERT_OK(ul_buffer_size(dev, a, &size));
  ASSERT_EQ(size, 1024); /* its class */
  ASSERT_OK(ul_buffer_pool_release(pool, a));
  ASSERT_OK(ul_buffer_pool_acquire(pool, 900, &b));
  ASSERT_EQ(b.id, a.id); /* the same buffer again: no create */
  ASSERT_OK(ul_buffer_pool_acquire(pool, 900, &c));
  ASSERT_NE(c.id, b.id);
  ASSERT_STATUS(ul_buffer_pool_release(pool, (ul_buffer){12345}), UL_ERR_INVALID_HANDLE);
  ASSERT_OK(ul_buffer_pool_release(pool, b));
  ASSERT_EQ(ul_buffer_pool_trim(pool), 1024);
  ASSERT_STATUS(ul_buffer_size(dev, b, &size), UL_ERR_INVALID_HANDLE);
  ul_memory_stats st;
  ASSERT_OK(ul_device_memory_stats(dev, &st));
  ASSERT_EQ(st.live_objects, 1);
  ul_buffer_pool_destroy(pool); /* destroys c too */
  ASSERT_OK(ul_device_memory_stats(dev, &st));
  ASSERT_EQ(st.live_objects, 0);
}

static void test_ring_wraps(void) {
  ul_ring *ring;
  ASSERT_STATUS(ul_ring_create(dev, &(ul_ring_desc){.size = 1000}, &ring), UL_ERR_INVALID_ARGUMENT);
  ASSERT_OK(ul_ring_create(dev, &(ul_ring_desc){.label = "uniforms", .size = 1024}, &ring));
  ul_buffer b;
  uint64_t off[6];
  uint32_t v[4];
  for (int i = 0; i < 6; i++) {
    v[0] = (uint32_t)i;
    ASSERT_OK(ul_ring_push(ring, v, sizeof v, &b, &off[i]));
  }
  ASSERT_EQ(off[0], 0);
  ASSERT_EQ(off[1], 256);
  ASSERT_EQ(off[3], 768);
  ASSERT_EQ(off[4], 0); /* wrapped */
  uint32_t got[4];
  ASSERT_OK(ul_buffer_read(dev, b, 256, got, sizeof got, 0));
  ASSERT_EQ(got[0], 5); /* slice 1 now holds push 5 */
  ASSERT_STATUS(ul_ring_push(ring, got, 2048, &b, &off[0]), UL_ERR_INVALID_ARGUMENT);
  ul_ring_destroy(ring);
}

/* On its own device: the env's faults go to its newest device. */
static void test_out_of_memory_empties_pools(void) {
  ul_device *od = NULL;
  ASSERT_OK(ul_device_create(env, &(ul_device_desc){.label = "oom"}, &od));
  ul_buffer_pool *pool;
  ASSERT_OK(ul_buffer_pool_create(od, &(ul_buffer_pool_desc){.label = "evictable", .restore = UL_RESTORE_NONE}, &pool));
  ul_buffer a, b;
  ASSERT_OK(ul_buffer_pool_acquire(pool, 4096, &a));
  ASSERT_OK(ul_buffer_pool_release(pool, a)); /* kept free in the pool */
  ul_memory_stats st;
  uint64_t before = 0;
  /* The device reports out-of-memory for the next create (injected); the
   * create is tried again and works, and the monitor asks for eviction.
   * The create's WebGPU call is found by trying the next few call indices
   * (which one it is depends on what the device did before). */
  ul_buffer other = {0};
  uint64_t injected = 0;
  for (int k = 1; k <= 12 && !injected; k++) {
    if (other.id) ASSERT_OK(ul_buffer_destroy(od, other));
    ASSERT_OK(ul_device_memory_stats(od, &st));
    before = st.live_objects;
    char spec[64];
    uint64_t inj0 = ul__chaos_injected(env->chaos);
    snprintf(spec, sizeof spec, "oom@%llu", (unsigned long long)ul__chaos_calls(env->chaos) + (uint64_t)k);
    ASSERT_OK(ul__chaos_reschedule(env->chaos, spec));
    ASSERT_OK(ul_buffer_create(od, &(ul_buffer_desc){.label = "after oom", .size = 64}, &other));
    injected = ul__chaos_injected(env->chaos) - inj0;
  }
  ASSERT_EQ(injected, 1);
  ASSERT_OK(ul__chaos_reschedule(env->chaos, "seed=1"));
  /* The pool's next acquire first empties its free list. */
  ASSERT_OK(ul_buffer_pool_acquire(pool, 65536, &b));
  ASSERT_OK(ul_device_memory_stats(od, &st));
  ASSERT_EQ(st.live_objects, before + 1); /* `a` went, `other` and `b` came */
  ASSERT_OK(ul_buffer_destroy(od, other));
  ul_buffer_pool_destroy(pool);
  ASSERT_OK(ul_device_destroy(od));
}

/* The list of objects changed since the last checkpoint, taken when no
 * object was ever noted one by one: every object was noted at once (as
 * when growing the list failed), then settled. The list was never
 * allocated; reading it copied from NULL (UBSan's nonnull check; the
 * fuzzer found it through a checkpoint). */
static void test_noted_list_never_allocated(void) {
  ul_device *d = NULL;
  ASSERT_OK(ul_device_create(env, &(ul_device_desc){.label = "new"}, &d));
  ul__obj_note_ids(d, NULL, 0, true, false);
  ASSERT_TRUE(ul__obj_noted_all(d));
  ul__obj_noted_settle(d);
  uint32_t *ids = NULL, n = 99;
  ASSERT_TRUE(ul__obj_noted(d, &ids, &n));
  ASSERT_EQ(n, 0);
  free(ids);
  ASSERT_OK(ul_device_checkpoint(d));
  ul_device_destroy(d);
}

int main(void) {
  ul_test_watchdog(240);
  setup();
  RUN_TEST_NO_LEAKS(dev, test_buffer_roundtrip);
  RUN_TEST_NO_LEAKS(dev, test_large_write_uses_staging);
  RUN_TEST_NO_LEAKS(dev, test_stale_and_double_destroy);
  RUN_TEST_NO_LEAKS(dev, test_wrong_kind_and_wrong_device);
  RUN_TEST_NO_LEAKS(dev, test_bad_descriptors);
  RUN_TEST_NO_LEAKS(dev, test_out_of_range);
  RUN_TEST_NO_LEAKS(dev, test_map_and_destroy_while_mapped);
  RUN_TEST_NO_LEAKS(dev, test_explicit_layouts);
  RUN_TEST_NO_LEAKS(dev, test_wgsl_error_with_line);
  RUN_TEST_NO_LEAKS(dev, test_textures_and_views);
  RUN_TEST_NO_LEAKS(dev, test_budget_refused_before_driver);
  RUN_TEST_NO_LEAKS(dev, test_report_and_stats);
  RUN_TEST_NO_LEAKS(dev, test_destroy_device_reports_leaks);
  RUN_TEST_NO_LEAKS(dev, test_buffer_pool_reuses);
  RUN_TEST_NO_LEAKS(dev, test_ring_wraps);
  RUN_TEST_NO_LEAKS(dev, test_out_of_memory_empties_pools);
  RUN_TEST(test_noted_list_never_allocated);
  ul_memory_stats st;
  ul_device_memory_stats(dev, &st);
  if (st.live_objects) {
    char *text = NULL;
    ul_device_report(dev, UL_REPORT_TEXT, &text);
    printf("FAIL: %llu objects leaked by the tests\n%s\n", (unsigned long long)st.live_objects, text);
    free(text);
    ul_test_failures++;
  }
  ul_device_destroy(dev);
  ul_env_destroy(env);
  TEST_MAIN_END();
}
