/* Restore on demand: after a rebuild, a buffer's contents come back at its
 * first use (a read, a submission that binds it, a write), or streamed
 * behind the submissions, or before a checkpoint; never stale bytes, and
 * a second loss while they come back only means another recovery. The
 * expected bytes are the file's, read by the test itself, and a CPU
 * computation of what the kernel writes. On the CPU adapter, without the
 * standby (whose buffers filled ahead would come back with the device). */
#include "internal.h"
#include "core/core.h"
#include "ul_test.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#define PIECES 4
#define WORDS 65536u                     /* per piece: 256 KiB */
#define PIECE_BYTES (WORDS * 4u)
#define FILE_BYTES (PIECES * PIECE_BYTES + 4096u)

static uint8_t *g_file;
static char g_dir[64], g_path[128];

static const char *plus_one_wgsl =
    "@group(0) @binding(0) var<storage, read> src: array<u32>;\n"
    "@group(0) @binding(1) var<storage, read_write> dst: array<u32>;\n"
    "@compute @workgroup_size(64)\n"
    "fn main(@builtin(global_invocation_id) id: vec3u) {\n"
    "  dst[id.x] = src[id.x] + 1u;\n"
    "}\n";

/* The same, added to what dst holds: each dispatch changes it. */
static const char *accumulate_wgsl =
    "@group(0) @binding(0) var<storage, read> src: array<u32>;\n"
    "@group(0) @binding(1) var<storage, read_write> dst: array<u32>;\n"
    "@compute @workgroup_size(64)\n"
    "fn main(@builtin(global_invocation_id) id: vec3u) {\n"
    "  dst[id.x] = dst[id.x] + src[id.x] + 1u;\n"
    "}\n";

static void write_file(const uint8_t *bytes) {
  int fd = open(g_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ASSERT_TRUE(fd >= 0);
  ASSERT_EQ(write(fd, bytes, FILE_BYTES), (ssize_t)FILE_BYTES);
  close(fd);
}

typedef struct rig {
  ul_env *env;
  ul_device *dev;
  ul_buffer piece[PIECES]; /* SOURCE: the file's bytes at i * PIECE_BYTES + 4096 */
  ul_buffer out;           /* LOG: written by the kernel from piece 0 */
  ul_buffer shadow;        /* SHADOW: the host's copy */
  uint32_t shadow_words[256];
  ul_shader sh;
  ul_compute_pipeline p;
  ul_bind_group bg;
  ul_cmd *cmd;
  uint32_t runs; /* dispatches that accumulated into out (accumulate) */
  bool accumulate;
} rig;

static uint64_t piece_offset(int i) { return (uint64_t)i * PIECE_BYTES + 4096u; }

static void rig_open_kernel(rig *r, const char *chaos, bool accumulate) {
  memset(r, 0, sizeof *r);
  r->accumulate = accumulate;
  ul_device_desc dd = {.label = "on-demand"};
  dd.recovery.backoff_initial_ms = 1;
  dd.recovery.backoff_max_ms = 2;
  ASSERT_OK(ul_env_create(&(ul_env_desc){.chaos = chaos}, &r->env));
  ASSERT_OK(ul_device_create(r->env, &dd, &r->dev));
  for (int i = 0; i < PIECES; i++)
    ASSERT_OK(ul_buffer_create(r->dev, &(ul_buffer_desc){.label = "piece", .size = PIECE_BYTES,
        .restore = UL_RESTORE_SOURCE, .source_path = g_path, .source_offset = piece_offset(i)}, &r->piece[i]));
  ASSERT_OK(ul_buffer_create(r->dev, &(ul_buffer_desc){.label = "out", .size = PIECE_BYTES,
      .restore = UL_RESTORE_LOG}, &r->out));
  for (int i = 0; i < 256; i++) r->shadow_words[i] = 0xc0de0000u + (uint32_t)i;
  ASSERT_OK(ul_buffer_create(r->dev, &(ul_buffer_desc){.label = "shadow", .size = sizeof r->shadow_words,
      .restore = UL_RESTORE_SHADOW, .initial_data = r->shadow_words}, &r->shadow));
  ASSERT_OK(ul_shader_create(r->dev, &(ul_shader_desc){.label = "plus one", .wgsl = accumulate ? accumulate_wgsl : plus_one_wgsl},
                             &r->sh));
  ASSERT_OK(ul_compute_pipeline_create(r->dev, &(ul_compute_pipeline_desc){.shader = r->sh}, &r->p));
  ASSERT_OK(ul_bind_group_create(r->dev, &(ul_bind_group_desc){.pipeline = r->p, .entry_count = 2,
      .entries = {{.binding = 0, .buffer = r->piece[0]}, {.binding = 1, .buffer = r->out}}}, &r->bg));
  ASSERT_OK(ul_cmd_create(r->dev, "plus one", &r->cmd));
  ASSERT_OK(ul_cmd_dispatch(r->cmd, r->p, &r->bg, 1, WORDS / 64, 1, 1));
}

static void rig_open(rig *r, const char *chaos) { rig_open_kernel(r, chaos, false); }

static void rig_close(rig *r) {
  ul_cmd_destroy(r->cmd);
  ASSERT_OK(ul_bind_group_destroy(r->dev, r->bg));
  ASSERT_OK(ul_compute_pipeline_destroy(r->dev, r->p));
  ASSERT_OK(ul_shader_destroy(r->dev, r->sh));
  for (int i = 0; i < PIECES; i++) ASSERT_OK(ul_buffer_destroy(r->dev, r->piece[i]));
  ASSERT_OK(ul_buffer_destroy(r->dev, r->out));
  ASSERT_OK(ul_buffer_destroy(r->dev, r->shadow));
  ASSERT_OK(ul_device_destroy(r->dev));
  ul_env_destroy(r->env);
}

/* Piece i holds the file's bytes. */
static int piece_ok(rig *r, int i) {
  static uint8_t got[PIECE_BYTES];
  memset(got, 0xee, sizeof got);
  ul_status s = ul_buffer_read(r->dev, r->piece[i], 0, got, sizeof got, 0);
  return !s && !memcmp(got, g_file + piece_offset(i), sizeof got);
}

/* `out` holds piece 0's words plus one (the CPU's sum), times the runs
 * when they accumulate. */
static int out_ok(rig *r) {
  static uint32_t got[WORDS], want[WORDS];
  memcpy(want, g_file + piece_offset(0), sizeof want);
  uint32_t times = r->accumulate ? r->runs : 1;
  for (uint32_t i = 0; i < WORDS; i++) want[i] = (want[i] + 1u) * times;
  memset(got, 0xee, sizeof got);
  ul_status s = ul_buffer_read(r->dev, r->out, 0, got, sizeof got, 0);
  return !s && !memcmp(got, want, sizeof got);
}

static int shadow_ok(rig *r) {
  uint32_t got[256];
  ul_status s = ul_buffer_read(r->dev, r->shadow, 0, got, sizeof got, 0);
  return !s && !memcmp(got, r->shadow_words, sizeof got);
}

static uint64_t pending(rig *r) {
  ul__device_lock(r->dev);
  uint64_t n = r->dev->restore_pending;
  ul__device_unlock(r->dev);
  return n;
}

/* 1. A use puts back what it uses, and only that: a read one buffer, a
 * submission the buffers its bind group names; a checkpoint the rest. */
static void test_first_use_puts_back_only_what_it_uses(void) {
  setenv("UNLOST_RESTORE_STREAM_MB", "0", 1);
  rig r;
  rig_open_kernel(&r, NULL, true);
  ASSERT_OK(ul_cmd_submit(r.dev, r.cmd, NULL));
  r.runs++;
  ASSERT_OK(ul_device_checkpoint(r.dev));
  ASSERT_OK(ul_device_force_loss(r.dev, "test"));
  ASSERT_OK(ul_device_recover(r.dev));
  /* every piece, out and shadow wait for their first use */
  ASSERT_EQ(pending(&r), PIECES + 2);
  uint64_t at_use = r.dev->restored_at_use;
  EXPECT_TRUE(piece_ok(&r, 2));
  EXPECT_EQ(pending(&r), PIECES + 1);
  EXPECT_EQ(r.dev->restored_at_use, at_use + 1);
  /* the kernel reads piece 0 and adds to out: both back before it runs
   * (out's checkpoint, then this run on top: not the checkpoint alone) */
  ASSERT_OK(ul_cmd_submit(r.dev, r.cmd, NULL));
  r.runs++;
  EXPECT_EQ(pending(&r), PIECES - 1);
  EXPECT_TRUE(out_ok(&r));
  EXPECT_EQ(pending(&r), PIECES - 1);
  /* a checkpoint puts back the rest first */
  ASSERT_OK(ul_device_checkpoint(r.dev));
  EXPECT_EQ(pending(&r), 0);
  EXPECT_TRUE(r.dev->restored_flushed >= 3);
  for (int i = 0; i < PIECES; i++) EXPECT_TRUE(piece_ok(&r, i));
  EXPECT_TRUE(shadow_ok(&r));
  EXPECT_TRUE(out_ok(&r));
  /* and after another loss, from that checkpoint */
  ASSERT_OK(ul_device_force_loss(r.dev, "test: again"));
  ASSERT_OK(ul_cmd_submit(r.dev, r.cmd, NULL));
  r.runs++;
  EXPECT_TRUE(out_ok(&r));
  rig_close(&r);
  unsetenv("UNLOST_RESTORE_STREAM_MB");
}

/* 2. The rest streams behind the submissions, an object (at least) per
 * submission with a budget of 1 MiB... and each one's bytes are right. */
static void test_rest_streams_behind_the_submissions(void) {
  setenv("UNLOST_RESTORE_STREAM_MB", "0", 1);
  rig r;
  rig_open(&r, NULL);
  ASSERT_OK(ul_cmd_submit(r.dev, r.cmd, NULL));
  ASSERT_OK(ul_device_force_loss(r.dev, "test"));
  ASSERT_OK(ul_device_recover(r.dev));
  /* the replay of the logged dispatch put back piece 0 and out */
  ASSERT_EQ(pending(&r), PIECES);
  setenv("UNLOST_RESTORE_STREAM_MB", "1", 1); /* 4 pieces of 256 KiB: all of them */
  uint64_t streamed = r.dev->restored_streamed;
  ASSERT_OK(ul_cmd_submit(r.dev, r.cmd, NULL));
  EXPECT_EQ(pending(&r), 0);
  EXPECT_EQ(r.dev->restored_streamed, streamed + PIECES);
  for (int i = 0; i < PIECES; i++) EXPECT_TRUE(piece_ok(&r, i));
  EXPECT_TRUE(shadow_ok(&r));
  EXPECT_TRUE(out_ok(&r));
  /* A submission that needed contents of its own streams nothing behind
   * it (its result first); the next one does. */
  ASSERT_OK(ul_device_checkpoint(r.dev));
  ASSERT_OK(ul_device_force_loss(r.dev, "test: again"));
  ASSERT_OK(ul_device_recover(r.dev));
  ASSERT_EQ(pending(&r), PIECES + 2);
  ASSERT_OK(ul_cmd_submit(r.dev, r.cmd, NULL));
  EXPECT_EQ(pending(&r), PIECES);
  ASSERT_OK(ul_cmd_submit(r.dev, r.cmd, NULL));
  EXPECT_EQ(pending(&r), 0);
  for (int i = 0; i < PIECES; i++) EXPECT_TRUE(piece_ok(&r, i));
  EXPECT_TRUE(out_ok(&r));
  rig_close(&r);
  unsetenv("UNLOST_RESTORE_STREAM_MB");
}

/* 3. The file changed while buffers wait for their first use: those
 * uses say the buffers are lost, and never return the new (or any stale)
 * bytes as their contents; those put back before the change keep theirs. */
static void test_source_changed_before_the_first_use(void) {
  setenv("UNLOST_RESTORE_STREAM_MB", "0", 1);
  rig r;
  rig_open(&r, NULL);
  ASSERT_OK(ul_device_force_loss(r.dev, "test"));
  ASSERT_OK(ul_device_recover(r.dev));
  ASSERT_EQ(pending(&r), PIECES + 2);
  EXPECT_TRUE(piece_ok(&r, 0));
  EXPECT_TRUE(piece_ok(&r, 1));
  uint8_t *changed = malloc(FILE_BYTES);
  ASSERT_TRUE(changed != NULL);
  memcpy(changed, g_file, FILE_BYTES);
  for (uint32_t i = 0; i < PIECE_BYTES; i++) changed[piece_offset(3) + i] ^= 0xa5;
  write_file(changed);
  static uint8_t got[PIECE_BYTES];
  for (int i = 2; i < PIECES; i++) {
    memset(got, 0, sizeof got);
    ASSERT_STATUS(ul_buffer_read(r.dev, r.piece[i], 0, got, sizeof got, 0), UL_ERR_DEVICE_LOST);
    EXPECT_TRUE(strstr(ul_last_error(), "changed") != NULL);
    EXPECT_TRUE(memcmp(got, changed + piece_offset(i), sizeof got) != 0);
  }
  EXPECT_TRUE(piece_ok(&r, 0));
  EXPECT_TRUE(piece_ok(&r, 1));
  EXPECT_TRUE(shadow_ok(&r));
  write_file(g_file);
  free(changed);
  rig_close(&r);
  unsetenv("UNLOST_RESTORE_STREAM_MB");
}

/* 4. A destroy of a buffer still waiting puts nothing back. */
static void test_destroy_puts_nothing_back(void) {
  setenv("UNLOST_RESTORE_STREAM_MB", "0", 1);
  rig r;
  rig_open(&r, NULL);
  ASSERT_OK(ul_device_force_loss(r.dev, "test"));
  ASSERT_OK(ul_device_recover(r.dev));
  uint64_t done = atomic_load(&r.dev->restored_total), before = pending(&r);
  ul_buffer extra = r.piece[3];
  ASSERT_OK(ul_buffer_destroy(r.dev, extra));
  EXPECT_EQ(pending(&r), before - 1);
  EXPECT_EQ(atomic_load(&r.dev->restored_total), done);
  ASSERT_OK(ul_buffer_create(r.dev, &(ul_buffer_desc){.label = "piece", .size = PIECE_BYTES,
      .restore = UL_RESTORE_SOURCE, .source_path = g_path, .source_offset = piece_offset(3)}, &r.piece[3]));
  EXPECT_TRUE(piece_ok(&r, 3));
  rig_close(&r);
  unsetenv("UNLOST_RESTORE_STREAM_MB");
}

/* 5. A second loss at every call of the uses that put contents back (the
 * faults counted inside recovery work, count-recovery=1): each point ends
 * with every buffer's bytes right, and some of the losses interrupted a
 * restore on demand. */
static void test_second_loss_at_every_call_of_the_restores(void) {
  setenv("UNLOST_RESTORE_STREAM_MB", "0", 1);
  rig r;
  rig_open(&r, "seed=1");
  ASSERT_OK(ul_cmd_submit(r.dev, r.cmd, NULL));
  ASSERT_OK(ul_device_checkpoint(r.dev));
  int points = 0, interrupted_points = 0;
  uint64_t injected = 0;
  for (int k = 1; k <= 60; k++) {
    ASSERT_OK(ul_env_chaos_arm(r.env, "seed=1"));
    ASSERT_OK(ul_device_force_loss(r.dev, "test: first loss"));
    ASSERT_OK(ul_device_recover(r.dev));
    ASSERT_EQ(pending(&r), PIECES + 2);
    uint64_t cut = atomic_load(&r.dev->restore_interrupted_total);
    char spec[64];
    snprintf(spec, sizeof spec, "loss@%d,count-recovery=1", k);
    ASSERT_OK(ul_env_chaos_arm(r.env, spec));
    /* the uses: a read, a submission, a checkpoint (the rest) */
    int ok = piece_ok(&r, 2);
    ok &= ul_cmd_submit(r.dev, r.cmd, NULL) == UL_OK;
    ok &= ul_device_checkpoint(r.dev) == UL_OK;
    uint64_t inj = 0;
    ul_env_chaos_counts(r.env, NULL, &inj);
    ASSERT_OK(ul_env_chaos_arm(r.env, "seed=1"));
    for (int i = 0; i < PIECES; i++) ok &= piece_ok(&r, i);
    ok &= out_ok(&r) && shadow_ok(&r);
    EXPECT_TRUE(ok);
    if (!ok) printf("  point %d wrong: %s\n", k, ul_last_error());
    points++;
    injected += inj;
    interrupted_points += atomic_load(&r.dev->restore_interrupted_total) > cut ? 1 : 0;
  }
  printf("  %d points, %llu losses injected, %d of them interrupted a restore on demand\n", points,
         (unsigned long long)injected, interrupted_points);
  EXPECT_TRUE(injected >= 10);
  EXPECT_TRUE(interrupted_points >= 3);
  rig_close(&r);
  unsetenv("UNLOST_RESTORE_STREAM_MB");
}

static void make_file(void) {
  snprintf(g_dir, sizeof g_dir, "/tmp/unlost-ondemand-XXXXXX");
  ASSERT_TRUE(mkdtemp(g_dir) != NULL);
  snprintf(g_path, sizeof g_path, "%s/weights.bin", g_dir);
  g_file = malloc(FILE_BYTES);
  ASSERT_TRUE(g_file != NULL);
  uint64_t x = 0x2545f4914f6cdd1dull;
  for (size_t i = 0; i < FILE_BYTES; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    g_file[i] = (uint8_t)x;
  }
  write_file(g_file);
}

int main(void) {
  setenv("UNLOST_STANDBY", "0", 1);
  unsetenv("UNLOST_RESTORE_EAGER");
  make_file();
  RUN_TEST(test_first_use_puts_back_only_what_it_uses);
  RUN_TEST(test_rest_streams_behind_the_submissions);
  RUN_TEST(test_source_changed_before_the_first_use);
  RUN_TEST(test_destroy_puts_nothing_back);
  RUN_TEST(test_second_loss_at_every_call_of_the_restores);
  unlink(g_path);
  rmdir(g_dir);
  free(g_file);
  TEST_MAIN_END();
}
