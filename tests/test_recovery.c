// ctest-labels: threads
/* Transparent recovery on the real implementation: after a forced loss,
 * handles work again with their contents by policy, unfinished work is
 * replayed, and callers in flight get correct results. */
#include "chaos/chaos.h"
#include "core/core.h"
#include "res/obj.h"
#include "ul_test.h"

static const char *inc_wgsl =
    "@group(0) @binding(0) var<storage, read_write> data: array<u32>;\n"
    "@group(0) @binding(1) var<storage, read> addend: array<u32>;\n"
    "@compute @workgroup_size(64)\n"
    "fn main(@builtin(global_invocation_id) id: vec3u) {\n"
    "  if (id.x < arrayLength(&data)) { data[id.x] = data[id.x] * 3u + addend[id.x]; }\n"
    "}\n";

enum { N = 1024 };

typedef struct rig {
  ul_env *env;
  ul_device *dev;
  ul_buffer data, addend;
  ul_shader sh;
  ul_compute_pipeline p;
  ul_bind_group bg;
  ul_cmd *cmd;
} rig;

static uint32_t addend_host[N];
/* The env's pipeline store serves the CPU adapter too (by default that one
 * has Mesa's disk cache instead). */
static bool rig_blobs_on_cpu;
/* The device's listener, when a test sets one. */
static ul_listener_fn rig_listener;
static void *rig_listener_user;

static ul_status rig_open(rig *r, const char *chaos, ul_restore data_policy) {
  memset(r, 0, sizeof *r);
  for (uint32_t i = 0; i < N; i++) addend_host[i] = i ^ 0x5a5a;
  uint32_t init[N];
  for (uint32_t i = 0; i < N; i++) init[i] = i;
  ul_device_desc dd = {.label = "recovery"};
  dd.recovery.backoff_initial_ms = 1;
  dd.recovery.backoff_max_ms = 2;
  dd.listener = rig_listener;
  dd.listener_user = rig_listener_user;
  ul_status s = ul_env_create(&(ul_env_desc){.chaos = chaos}, &r->env);
  if (!s) r->env->blobs_on_cpu = rig_blobs_on_cpu;
  if (!s) s = ul_device_create(r->env, &dd, &r->dev);
  if (!s) s = ul_buffer_create(r->dev, &(ul_buffer_desc){.label = "data", .size = sizeof init,
                                                          .restore = data_policy, .initial_data = init}, &r->data);
  if (!s) s = ul_buffer_create(r->dev, &(ul_buffer_desc){.label = "addend", .size = sizeof addend_host,
                                                          .restore = UL_RESTORE_SOURCE, .source_data = addend_host},
                               &r->addend);
  if (!s) s = ul_shader_create(r->dev, &(ul_shader_desc){.wgsl = inc_wgsl}, &r->sh);
  if (!s) s = ul_compute_pipeline_create(r->dev, &(ul_compute_pipeline_desc){.shader = r->sh}, &r->p);
  if (!s) s = ul_bind_group_create(r->dev, &(ul_bind_group_desc){.pipeline = r->p, .entry_count = 2,
      .entries = {{.binding = 0, .buffer = r->data}, {.binding = 1, .buffer = r->addend}}}, &r->bg);
  if (!s) s = ul_cmd_create(r->dev, "inc", &r->cmd);
  if (!s) s = ul_cmd_dispatch(r->cmd, r->p, &r->bg, 1, N / 64, 1, 1);
  return s;
}

static void rig_close(rig *r) {
  ul_cmd_destroy(r->cmd);
  ul_bind_group_destroy(r->dev, r->bg);
  ul_compute_pipeline_destroy(r->dev, r->p);
  ul_shader_destroy(r->dev, r->sh);
  ul_buffer_destroy(r->dev, r->addend);
  ul_buffer_destroy(r->dev, r->data);
  ul_memory_stats st = {0};
  ul_device_memory_stats(r->dev, &st);
  EXPECT_EQ(st.live_objects, 0);
  EXPECT_EQ(ul_device_destroy(r->dev), UL_OK);
  EXPECT_EQ(ul_env_destroy(r->env), UL_OK);
}

static void expected_after(int steps, uint32_t *out) {
  for (uint32_t i = 0; i < N; i++) {
    uint32_t v = i;
    for (int k = 0; k < steps; k++) v = v * 3u + addend_host[i];
    out[i] = v;
  }
}

static void test_log_state_replayed(void) {
  rig r;
  ASSERT_OK(rig_open(&r, NULL, UL_RESTORE_LOG));
  uint32_t got[N], want[N];
  for (int step = 1; step <= 6; step++) {
    ASSERT_OK(ul_cmd_submit(r.dev, r.cmd, NULL));
    if (step == 2) ASSERT_OK(ul_device_checkpoint(r.dev));
    if (step == 4) ASSERT_OK(ul_device_force_loss(r.dev, "test: loss after step 4"));
  }
  /* an in-flight read at the loss: the data is what it would have been */
  ASSERT_OK(ul_buffer_read(r.dev, r.data, 0, got, sizeof got, 0));
  expected_after(6, want);
  ASSERT_EQ(memcmp(got, want, sizeof got), 0);
  ASSERT_EQ(ul_device_epoch(r.dev), 2);
  rig_close(&r);
}

static void test_loss_before_read_completes(void) {
  rig r;
  ASSERT_OK(rig_open(&r, NULL, UL_RESTORE_LOG));
  ASSERT_OK(ul_cmd_submit(r.dev, r.cmd, NULL));
  ASSERT_OK(ul_cmd_submit(r.dev, r.cmd, NULL));
  /* lose the device right after the submissions, before anyone waited */
  ASSERT_OK(ul_device_force_loss(r.dev, "test"));
  uint32_t got[N], want[N];
  ASSERT_OK(ul_device_wait_idle(r.dev, 0));
  ASSERT_OK(ul_buffer_read(r.dev, r.data, 0, got, sizeof got, 0));
  expected_after(2, want);
  ASSERT_EQ(memcmp(got, want, sizeof got), 0);
  rig_close(&r);
}

static void test_none_policy_is_zero_after_checkpoint(void) {
  rig r;
  ASSERT_OK(rig_open(&r, NULL, UL_RESTORE_NONE));
  ASSERT_OK(ul_cmd_submit(r.dev, r.cmd, NULL));
  ASSERT_OK(ul_device_checkpoint(r.dev));
  ASSERT_OK(ul_device_force_loss(r.dev, "test"));
  uint32_t got[N];
  ASSERT_OK(ul_buffer_read(r.dev, r.data, 0, got, sizeof got, 0));
  for (int i = 0; i < N; i++) ASSERT_EQ(got[i], 0);
  rig_close(&r);
}

static void test_shadow_and_source_file(void) {
  rig r;
  ASSERT_OK(rig_open(&r, NULL, UL_RESTORE_LOG));
  /* a SOURCE buffer restored from a file range */
  char path[] = "/tmp/unlost-src-XXXXXX";
  int fd = mkstemp(path);
  ASSERT_TRUE(fd >= 0);
  uint32_t file[N + 16];
  for (uint32_t i = 0; i < N + 16; i++) file[i] = i * 977u;
  ASSERT_EQ(write(fd, file, sizeof file), (ssize_t)sizeof file);
  close(fd);
  ul_buffer src, sh;
  ASSERT_OK(ul_buffer_create(r.dev, &(ul_buffer_desc){.label = "weights", .size = N * 4,
      .restore = UL_RESTORE_SOURCE, .source_path = path, .source_offset = 64}, &src));
  uint32_t v[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  ASSERT_OK(ul_buffer_create(r.dev, &(ul_buffer_desc){.label = "params", .size = sizeof v,
      .restore = UL_RESTORE_SHADOW, .initial_data = v}, &sh));
  v[3] = 40;
  ASSERT_OK(ul_buffer_write(r.dev, sh, 0, v, sizeof v));
  ASSERT_STATUS(ul_buffer_write(r.dev, src, 0, v, sizeof v), UL_ERR_WRONG_STATE);
  ASSERT_OK(ul_device_force_loss(r.dev, "test"));
  uint32_t got[N];
  ASSERT_OK(ul_buffer_read(r.dev, src, 0, got, N * 4, 0));
  for (uint32_t i = 0; i < N; i++) ASSERT_EQ(got[i], file[i + 16]);
  ASSERT_OK(ul_buffer_read(r.dev, sh, 0, got, sizeof v, 0));
  ASSERT_EQ(got[3], 40);
  ASSERT_EQ(got[7], 8);
  unlink(path);
  ASSERT_OK(ul_buffer_destroy(r.dev, src));
  ASSERT_OK(ul_buffer_destroy(r.dev, sh));
  rig_close(&r);
}

static int refills;
static ul_status refill(ul_device *d, ul_buffer b, void *user) {
  (void)user;
  refills++;
  uint32_t v[16];
  for (int i = 0; i < 16; i++) v[i] = 100u + (uint32_t)i;
  return ul_buffer_write(d, b, 0, v, sizeof v);
}

static ul_status refuse(ul_device *d, ul_buffer b, void *user) {
  (void)d;
  (void)b;
  (void)user;
  return UL_ERR_IO;
}

static void test_callback_refill_and_refusal(void) {
  rig r;
  ASSERT_OK(rig_open(&r, NULL, UL_RESTORE_LOG));
  ul_buffer cb, gone;
  ASSERT_OK(ul_buffer_create(r.dev, &(ul_buffer_desc){.label = "kv", .size = 64,
      .restore = UL_RESTORE_CALLBACK, .restore_fn = refill}, &cb));
  ASSERT_OK(ul_buffer_create(r.dev, &(ul_buffer_desc){.label = "unrecoverable", .size = 64,
      .restore = UL_RESTORE_CALLBACK, .restore_fn = refuse}, &gone));
  refills = 0;
  ASSERT_OK(ul_device_force_loss(r.dev, "test"));
  ASSERT_OK(ul_device_recover(r.dev));
  ASSERT_EQ(refills, 1);
  uint32_t got[16];
  ASSERT_OK(ul_buffer_read(r.dev, cb, 0, got, sizeof got, 0));
  ASSERT_EQ(got[5], 105);
  /* where no policy restores the data, use fails and names the object */
  ASSERT_STATUS(ul_buffer_read(r.dev, gone, 0, got, sizeof got, 0), UL_ERR_DEVICE_LOST);
  ASSERT_CONTAINS(ul_last_error(), "unrecoverable");
  ASSERT_OK(ul_buffer_destroy(r.dev, cb));
  ASSERT_OK(ul_buffer_destroy(r.dev, gone));
  rig_close(&r);
}

/* After a recovery, shaders, pipelines and bind groups are made again at
 * their first use. A shader made again by one use and then destroyed by
 * the program (its native module released; the pipeline built from it
 * keeps it) is made once more when that pipeline is: on the code before,
 * the pipeline was made from the released module and the implementation
 * crashed (SIGSEGV in its validation; the density sweep's decode run). */
static void test_lazy_parent_destroyed_before_its_child_is_made(void) {
  rig r;
  ASSERT_OK(rig_open(&r, NULL, UL_RESTORE_LOG));
  ASSERT_OK(ul_cmd_submit(r.dev, r.cmd, NULL));
  ASSERT_OK(ul_device_checkpoint(r.dev)); /* nothing to replay: nothing made by the recovery */
  ASSERT_OK(ul_device_force_loss(r.dev, "test"));
  ul_compute_pipeline p2;
  ASSERT_OK(ul_compute_pipeline_create(r.dev, &(ul_compute_pipeline_desc){.shader = r.sh}, &p2));
  ASSERT_OK(ul_compute_pipeline_destroy(r.dev, p2));
  ASSERT_OK(ul_shader_destroy(r.dev, r.sh));
  ASSERT_OK(ul_cmd_submit(r.dev, r.cmd, NULL));
  uint32_t got[N], want[N];
  ASSERT_OK(ul_buffer_read(r.dev, r.data, 0, got, sizeof got, 0));
  expected_after(2, want);
  for (uint32_t i = 0; i < N; i++) ASSERT_EQ(got[i], want[i]);
  rig_close(&r);
}

static void test_destroyed_object_still_replayed(void) {
  rig r;
  ASSERT_OK(rig_open(&r, NULL, UL_RESTORE_LOG));
  /* a temporary addend used by one logged submission, then destroyed */
  uint32_t ones[N];
  for (int i = 0; i < N; i++) ones[i] = 1;
  ul_buffer tmp;
  ul_bind_group bg2;
  ASSERT_OK(ul_buffer_create(r.dev, &(ul_buffer_desc){.label = "tmp", .size = sizeof ones, .initial_data = ones}, &tmp));
  ASSERT_OK(ul_bind_group_create(r.dev, &(ul_bind_group_desc){.pipeline = r.p, .entry_count = 2,
      .entries = {{.binding = 0, .buffer = r.data}, {.binding = 1, .buffer = tmp}}}, &bg2));
  ul_cmd *c;
  ASSERT_OK(ul_cmd_create(r.dev, "tmp", &c));
  ASSERT_OK(ul_cmd_dispatch(c, r.p, &bg2, 1, N / 64, 1, 1));
  ASSERT_OK(ul_cmd_submit(r.dev, c, NULL));
  ul_cmd_destroy(c);
  ASSERT_OK(ul_bind_group_destroy(r.dev, bg2));
  ASSERT_OK(ul_buffer_destroy(r.dev, tmp));
  ASSERT_STATUS(ul_buffer_write(r.dev, tmp, 0, ones, 4), UL_ERR_INVALID_HANDLE);
  ASSERT_OK(ul_cmd_submit(r.dev, r.cmd, NULL));
  ASSERT_OK(ul_device_force_loss(r.dev, "test"));
  uint32_t got[N];
  ASSERT_OK(ul_buffer_read(r.dev, r.data, 0, got, sizeof got, 0));
  for (uint32_t i = 0; i < N; i++) ASSERT_EQ(got[i], (i * 3u + 1u) * 3u + addend_host[i]);
  rig_close(&r);
}

/* A destroyed object is kept for the replay only when an entry of the log
 * names it (a write to it, here) or a kept object is built from it; one
 * the log never named is freed at its destroy, whatever else the log holds
 * (it kept every destroyed buffer until the next checkpoint: issue 36's
 * objects left after their release). */
static void test_only_what_the_log_names_is_kept(void) {
  rig r;
  ASSERT_OK(rig_open(&r, NULL, UL_RESTORE_LOG));
  ASSERT_OK(ul_cmd_submit(r.dev, r.cmd, NULL)); /* the log holds something */
  uint64_t kept0 = r.dev->res->deferred;
  uint32_t ones[N];
  for (int i = 0; i < N; i++) ones[i] = 1;
  ul_buffer unnamed, named;
  ASSERT_OK(ul_buffer_create(r.dev, &(ul_buffer_desc){.label = "unnamed", .size = sizeof ones}, &unnamed));
  ASSERT_OK(ul_buffer_destroy(r.dev, unnamed));
  ASSERT_EQ(r.dev->res->deferred, kept0);
  ASSERT_OK(ul_buffer_create(r.dev, &(ul_buffer_desc){.label = "named", .size = sizeof ones}, &named));
  ASSERT_OK(ul_buffer_write(r.dev, named, 0, ones, sizeof ones));
  ASSERT_OK(ul_buffer_destroy(r.dev, named));
  ASSERT_EQ(r.dev->res->deferred, kept0 + 1);
  /* The replay still finds what it needs. */
  ASSERT_OK(ul_device_force_loss(r.dev, "test"));
  uint32_t got[N], want[N];
  ASSERT_OK(ul_buffer_read(r.dev, r.data, 0, got, sizeof got, 0));
  expected_after(1, want);
  ASSERT_EQ(memcmp(got, want, sizeof got), 0);
  ASSERT_OK(ul_device_checkpoint(r.dev));
  ASSERT_EQ(r.dev->res->deferred, 0);
  rig_close(&r);
}

static void test_log_memory_is_bounded(void) {
  setenv("UNLOST_LOG_MAX_MB", "1", 1);
  rig r;
  ul_status s = rig_open(&r, NULL, UL_RESTORE_LOG);
  unsetenv("UNLOST_LOG_MAX_MB");
  ASSERT_OK(s);
  static uint32_t big[64 << 10]; /* 256 KiB per write */
  ul_memory_stats st;
  uint64_t max_log = 0;
  for (int i = 0; i < 12; i++) {
    big[0] = (uint32_t)i;
    ASSERT_OK(ul_buffer_write(r.dev, r.data, 0, big, N * 4));
    ASSERT_OK(ul_cmd_submit(r.dev, r.cmd, NULL));
    ASSERT_OK(ul_device_memory_stats(r.dev, &st));
    if (st.log_bytes > max_log) max_log = st.log_bytes;
  }
  ASSERT_LE(max_log, (1u << 20) + 64 * 1024);
  ASSERT_OK(ul_device_checkpoint(r.dev));
  ASSERT_OK(ul_device_memory_stats(r.dev, &st));
  ASSERT_EQ(st.log_bytes, 0);
  rig_close(&r);
}

static void test_gpu_never_returns_work_moves_to_fallback(void) {
  rig r;
  ASSERT_OK(rig_open(&r, "seed=1", UL_RESTORE_LOG));
  ASSERT_OK(ul_cmd_submit(r.dev, r.cmd, NULL));
  ASSERT_OK(ul__chaos_reschedule(r.env->chaos, "gpu-fail=all"));
  ASSERT_OK(ul_device_force_loss(r.dev, "test: the GPU is gone"));
  ASSERT_OK(ul_cmd_submit(r.dev, r.cmd, NULL));
  ASSERT_EQ(ul_device_get_state(r.dev), UL_DEVICE_FALLBACK);
  uint32_t got[N], want[N];
  ASSERT_OK(ul_buffer_read(r.dev, r.data, 0, got, sizeof got, 0));
  expected_after(2, want);
  ASSERT_EQ(memcmp(got, want, sizeof got), 0);
  rig_close(&r);
}

typedef struct worker {
  rig *r;
  int errors;
  int rounds;
} worker;

static void *submitter(void *arg) {
  worker *w = arg;
  for (int i = 0; i < w->rounds; i++) {
    uint32_t x[4];
    if (ul_cmd_submit(w->r->dev, w->r->cmd, NULL)) w->errors++;
    if (ul_buffer_read(w->r->dev, w->r->data, 0, x, sizeof x, 0)) w->errors++;
  }
  return NULL;
}

static void test_calls_during_recovery_wait_and_proceed(void) {
  rig r;
  ASSERT_OK(rig_open(&r, NULL, UL_RESTORE_LOG));
  /* A worker submits and reads while this thread loses the device. */
  worker w[1] = {{&r, 0, 10}};
  pthread_t t[1];
  pthread_create(&t[0], NULL, submitter, &w[0]);
  int forced = 0;
  for (int i = 0; i < 3; i++) {
    /* UL_ERR_BUSY while the last one is not recovered from: nothing forced. */
    ul_status fs = ul_device_force_loss(r.dev, "concurrent");
    ASSERT_TRUE(fs == UL_OK || fs == UL_ERR_BUSY);
    forced += fs == UL_OK;
    ul__sleep_ns(3000000);
  }
  ASSERT_GE(forced, 1);
  pthread_join(t[0], NULL);
  ASSERT_EQ(w[0].errors, 0);
  uint32_t got[N], want[N];
  ASSERT_OK(ul_buffer_read(r.dev, r.data, 0, got, sizeof got, 0));
  expected_after(10, want);
  ASSERT_EQ(memcmp(got, want, sizeof got), 0);
  rig_close(&r);
}

/* The store Dawn keeps compiled pipelines in: a miss is 0, a hit gives the
 * size first and the bytes when they fit, a store past the limit is
 * dropped and the one it would have replaced stays. */
static void test_pipeline_store_semantics(void) {
  ul__blob_cache *c = ul__blob_cache_new(64);
  ASSERT_TRUE(c != NULL);
  WGPUDawnCacheDeviceDescriptor desc;
  ul__blob_cache_chain(c, &desc, NULL);
  ASSERT_EQ(desc.chain.sType, WGPUSType_DawnCacheDeviceDescriptor);
  char out[64];
  ASSERT_EQ(desc.loadDataFunction("k1", 2, NULL, 0, c), 0);
  desc.storeDataFunction("k1", 2, "value-one", 9, c);
  ASSERT_EQ(desc.loadDataFunction("k1", 2, NULL, 0, c), 9);
  ASSERT_EQ(desc.loadDataFunction("k1", 2, out, 4, c), 9); /* too small: the size, no bytes */
  memset(out, 0, sizeof out);
  ASSERT_EQ(desc.loadDataFunction("k1", 2, out, sizeof out, c), 9);
  ASSERT_EQ(memcmp(out, "value-one", 9), 0);
  ASSERT_EQ(desc.loadDataFunction("k2", 2, NULL, 0, c), 0); /* another key */
  desc.storeDataFunction("k1", 2, "v1", 2, c); /* replaced */
  ASSERT_EQ(desc.loadDataFunction("k1", 2, out, sizeof out, c), 2);
  char big[80] = {0};
  desc.storeDataFunction("k3", 2, big, sizeof big, c); /* past 64 bytes: dropped */
  ASSERT_EQ(desc.loadDataFunction("k3", 2, NULL, 0, c), 0);
  ul__blob_stats st;
  ul__blob_cache_stats(c, &st);
  ASSERT_EQ(st.stores, 2);
  ASSERT_EQ(st.dropped, 1);
  ASSERT_EQ(st.hits, 2);
  ASSERT_EQ(st.bytes, 4);
  ul__blob_cache_free(c);
  ASSERT_TRUE(ul__blob_cache_new(0) == NULL);
}

/* A device rebuilt after a loss finds its pipelines in the env's store
 * (compiled once, on the first device), and computes the same; with the
 * store turned off (UNLOST_PIPELINE_CACHE_MB=0) it compiles again and
 * computes the same too. */
static void test_pipelines_found_after_loss(void) {
  rig_blobs_on_cpu = true;
  for (int off = 0; off < 2; off++) {
    if (off) setenv("UNLOST_PIPELINE_CACHE_MB", "0", 1);
    rig r;
    ASSERT_OK(rig_open(&r, NULL, UL_RESTORE_LOG));
    ul__blob_stats before, after;
    ul__blob_cache_stats(r.env->blobs, &before);
    ASSERT_OK(ul_cmd_submit(r.dev, r.cmd, NULL));
    ASSERT_OK(ul_device_force_loss(r.dev, "test: pipelines from the store"));
    ASSERT_OK(ul_cmd_submit(r.dev, r.cmd, NULL));
    uint32_t got[N], want[N];
    ASSERT_OK(ul_buffer_read(r.dev, r.data, 0, got, sizeof got, 0));
    expected_after(2, want);
    ASSERT_EQ(memcmp(got, want, sizeof got), 0);
    ASSERT_EQ(ul_device_epoch(r.dev), 2);
    ul__blob_cache_stats(r.env->blobs, &after);
    if (off) {
      ASSERT_TRUE(r.env->blobs == NULL);
    } else {
      ASSERT_TRUE(before.stores > 0); /* the first device's pipeline went in */
      ASSERT_TRUE(after.hits > before.hits); /* the rebuilt one came out */
      ASSERT_TRUE(after.bytes > 0 && after.bytes <= after.cap);
    }
    rig_close(&r);
    unsetenv("UNLOST_PIPELINE_CACHE_MB");
  }
  /* By default the CPU adapter's devices do not use it. */
  rig_blobs_on_cpu = false;
  rig r;
  ASSERT_OK(rig_open(&r, NULL, UL_RESTORE_LOG));
  ul__blob_stats st;
  ul__blob_cache_stats(r.env->blobs, &st);
  ASSERT_EQ(st.stores, 0);
  ASSERT_EQ(st.misses, 0);
  rig_close(&r);
}


/* ---- the standby device ---- */
static void count_retries(ul_device *d, const ul_event *ev, void *user) {
  (void)d;
  if (ev->kind == UL_EVENT_RETRY) ++*(int *)user;
}

/* One step, a loss, one more step: the data is the CPU's after `steps`. */
static bool step_loss_step(rig *r, int steps, const char *why) {
  uint32_t got[N], want[N];
  EXPECT_EQ(ul_cmd_submit(r->dev, r->cmd, NULL), UL_OK);
  EXPECT_EQ(ul_device_force_loss(r->dev, why), UL_OK);
  EXPECT_EQ(ul_cmd_submit(r->dev, r->cmd, NULL), UL_OK);
  EXPECT_EQ(ul_buffer_read(r->dev, r->data, 0, got, sizeof got, 0), UL_OK);
  expected_after(steps, want);
  return memcmp(got, want, sizeof got) == 0;
}

static void test_standby_begins_the_recovery(void) {
  setenv("UNLOST_STANDBY", "1", 1); /* the CPU adapter gets one too */
  int retries = 0;
  rig_listener = count_retries;
  rig_listener_user = &retries;
  rig r;
  ASSERT_OK(rig_open(&r, NULL, UL_RESTORE_LOG));
  ul__standby_counts c;
  /* 1. A loss of this device only: the recovery begins on the standby,
   * asks for no new device, and the results are the CPU's. */
  ASSERT_TRUE(ul__standby_wait_ready(r.dev, 10000000000ull));
  ASSERT_TRUE(step_loss_step(&r, 2, "test: the standby takes over"));
  ul__standby_get_counts(r.dev, &c);
  ASSERT_EQ(c.used, 1);
  ASSERT_EQ(c.dead, 0);
  ASSERT_EQ(ul_device_epoch(r.dev), 2);
  EXPECT_TRUE(r.dev->phases.adapter == 0);
  /* 2. The next standby is asked for after the recovery. A reset of the
   * whole GPU takes it too: the recovery sees it lost before using it,
   * builds a new device in one attempt, and the results are the CPU's. */
  ASSERT_TRUE(ul__standby_wait_ready(r.dev, 10000000000ull));
  ul__standby_get_counts(r.dev, &c);
  ASSERT_EQ(c.built, 2);
  ASSERT_OK(ul__standby_lose(r.dev));
  ASSERT_TRUE(step_loss_step(&r, 4, "test: the standby is lost as well"));
  ul__standby_get_counts(r.dev, &c);
  ASSERT_EQ(c.used, 1);
  ASSERT_EQ(c.dead, 1);
  ASSERT_EQ(retries, 0); /* the lost standby cost no attempt */
  ASSERT_EQ(ul_device_recoveries(r.dev), 2);
  rig_close(&r); /* with a standby being built: destroy waits for it */
  rig_listener = NULL;
  rig_listener_user = NULL;
  /* 3. By default the CPU adapter gets none. */
  unsetenv("UNLOST_STANDBY");
  ASSERT_OK(rig_open(&r, NULL, UL_RESTORE_LOG));
  ul__standby_get_counts(r.dev, &c);
  ASSERT_EQ(c.mode, 2);
  ASSERT_EQ(c.built + c.failed, 0);
  ASSERT_OK(ul_device_force_loss(r.dev, "test: no standby"));
  ASSERT_OK(ul_cmd_submit(r.dev, r.cmd, NULL));
  ul__standby_get_counts(r.dev, &c);
  ASSERT_EQ(c.used + c.built + c.failed, 0);
  rig_close(&r);
}

/* A destroy that gives up waiting for a standby build leaves it running,
 * and that build reads the device until it ends: the device's memory
 * outlives the destroy until then. Before, the destroy freed it and the
 * build read freed memory (ASan: heap-use-after-free in standby_main; a
 * plain build crashed on the memory reused below). */
static ul_env *g_left_env; /* kept: an env with an abandoned build stays */
static void test_standby_left_by_destroy(void) {
  setenv("UNLOST_STANDBY", "1", 1);
  /* The close waits the release deadline (2 s at this submit deadline)
   * plus two request timeouts (0.5 s each); the standby's build takes 5 s. */
  ASSERT_OK(ul_env_create(&(ul_env_desc){.chaos = "standby-delay=5000"}, &g_left_env));
  ul_device_desc dd = {.label = "left"};
  dd.recovery.request_timeout_ms = 500;
  dd.health.submit_deadline_ms = 1000;
  ul_device *d = NULL;
  ASSERT_OK(ul_device_create(g_left_env, &dd, &d));
  uint64_t t0 = ul__now_ns();
  ASSERT_OK(ul_device_destroy(d));
  double waited = (double)(ul__now_ns() - t0) / 1e9;
  unsetenv("UNLOST_STANDBY");
  printf("destroy waited %.2f s\n", waited);
  ASSERT_TRUE(waited > 2.5 && waited < 4.9); /* it gave up on the build */
  ASSERT_EQ(atomic_load(&g_left_env->abandoned_devices), 1);
  /* What a destroy freed is reused at once: the build must not read it. */
  void *reuse = malloc(sizeof(ul_device));
  ASSERT_TRUE(reuse != NULL);
  memset(reuse, 0xa5, sizeof(ul_device));
  ul__sleep_ns(4000000000ull); /* the build ends (5 s after the create) */
  free(reuse);
  ASSERT_OK(ul_env_destroy(g_left_env)); /* kept loaded: the build was abandoned */
}

/* A build that finds no fallback adapter and no CPU driver ends its
 * build: a build left counted made every later teardown wait its whole
 * deadline (4 s each on an H200 without lavapipe). */
static void test_failed_fallback_build_ends(void) {
  ul_env *env = NULL;
  ASSERT_OK(ul_env_create(NULL, &env));
  pthread_mutex_lock(&env->mu);
  env->cpu_instance_tried = true; /* as on a machine without lavapipe */
  pthread_mutex_unlock(&env->mu);
  ul_device *d = NULL;
  ul_status s = ul_device_create(env, &(ul_device_desc){.label = "nofallback", .power = UL_POWER_FALLBACK_ONLY}, &d);
  if (s == UL_OK) { /* the implementation has a fallback adapter of its own */
    ul_device_destroy(d);
  } else {
    EXPECT_EQ(s, UL_ERR_NO_ADAPTER);
  }
  pthread_mutex_lock(&env->rel_mu);
  unsigned building = env->building;
  pthread_mutex_unlock(&env->rel_mu);
  ASSERT_EQ(building, 0);
  ASSERT_OK(ul_env_destroy(env));
}

int main(void) {
  ul_test_watchdog(300);
  RUN_TEST(test_pipeline_store_semantics);
  RUN_TEST(test_pipelines_found_after_loss);
  RUN_TEST(test_standby_begins_the_recovery);
  RUN_TEST(test_failed_fallback_build_ends);
  RUN_TEST(test_log_state_replayed);
  RUN_TEST(test_loss_before_read_completes);
  RUN_TEST(test_none_policy_is_zero_after_checkpoint);
  RUN_TEST(test_shadow_and_source_file);
  RUN_TEST(test_callback_refill_and_refusal);
  RUN_TEST(test_destroyed_object_still_replayed);
  RUN_TEST(test_only_what_the_log_names_is_kept);
  RUN_TEST(test_lazy_parent_destroyed_before_its_child_is_made);
  RUN_TEST(test_log_memory_is_bounded);
  RUN_TEST(test_gpu_never_returns_work_moves_to_fallback);
  RUN_TEST(test_calls_during_recovery_wait_and_proceed);
#if !defined(__SANITIZE_THREAD__)
  /* Under TSan the build it abandons is still inside the implementation
   * when the process exits, which TSan reports (a race with libvulkan's
   * teardown at exit: issue 36's open exit-time problem); ASan runs it. */
  RUN_TEST(test_standby_left_by_destroy);
#else
  (void)test_standby_left_by_destroy;
#endif
  TEST_MAIN_END();
}
