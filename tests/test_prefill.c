// ctest-labels: threads
/* SOURCE buffers made and filled ahead on the standby device: the
 * recovery that begins on the standby takes each as the object's native
 * buffer and copies nothing, and the contents are the file's bytes (read
 * by the test itself); a file changed since is still caught (the buffer is
 * LOST, never the old bytes returned as OK); a buffer made ahead for an
 * object since destroyed is not taken by the object that reuses its
 * handle; none is left behind. On the CPU adapter, with UNLOST_STANDBY=1. */
#include "internal.h"
#include "chaos/chaos.h"
#include "core/prefill.h"
#include "ul_test.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#define FILE_BYTES (8u << 20)
#define OFFSET 4100u              /* not on a page boundary */
#define SIZE ((3u << 20) + 1028u) /* not a whole number of pages */
#define OFFSET2 (4u << 20)

static uint8_t *g_file;
static char g_dir[64], g_path[128];

static void write_all(const uint8_t *bytes) {
  int fd = open(g_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ASSERT_TRUE(fd >= 0);
  ASSERT_EQ(write(fd, bytes, FILE_BYTES), (ssize_t)FILE_BYTES);
  close(fd);
}

static void make_file(void) {
  snprintf(g_dir, sizeof g_dir, "/tmp/unlost-prefill-XXXXXX");
  ASSERT_TRUE(mkdtemp(g_dir) != NULL);
  snprintf(g_path, sizeof g_path, "%s/weights.bin", g_dir);
  g_file = malloc(FILE_BYTES);
  ASSERT_TRUE(g_file != NULL);
  uint64_t x = 0x9e3779b97f4a7c15ull;
  for (size_t i = 0; i < FILE_BYTES; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    g_file[i] = (uint8_t)x;
  }
  write_all(g_file);
}

typedef struct rig {
  ul_env *env;
  ul_device *dev;
  ul_buffer w;
  ul_buffer other; /* rig_add_other: holds init */
  uint32_t init[64];
} rig;

static ul_status make_weights(rig *r, uint64_t offset, ul_buffer *out) {
  return ul_buffer_create(r->dev, &(ul_buffer_desc){.label = "weights", .size = SIZE,
      .restore = UL_RESTORE_SOURCE, .source_path = g_path, .source_offset = offset}, out);
}

static void rig_open_chaos(rig *r, const char *chaos) {
  memset(r, 0, sizeof *r);
  ul_device_desc dd = {.label = "prefill"};
  dd.recovery.backoff_initial_ms = 1;
  dd.recovery.backoff_max_ms = 2;
  ASSERT_OK(ul_env_create(&(ul_env_desc){.chaos = chaos}, &r->env));
  ASSERT_OK(ul_device_create(r->env, &dd, &r->dev));
  ASSERT_OK(make_weights(r, OFFSET, &r->w));
}

static void rig_open(rig *r) { rig_open_chaos(r, NULL); }

/* Another buffer, so that the rebuild makes calls of its own. */
static void rig_add_other(rig *r) {
  for (int i = 0; i < 64; i++) r->init[i] = (uint32_t)i * 7u + 1u;
  ASSERT_OK(ul_buffer_create(r->dev, &(ul_buffer_desc){.label = "other", .size = sizeof r->init,
      .initial_data = r->init}, &r->other));
}

/* The buffer holds the file's bytes [offset, offset + SIZE). */
static void expect_contents(rig *r, ul_buffer b, uint64_t offset) {
  uint8_t *got = malloc(SIZE);
  ASSERT_TRUE(got != NULL);
  memset(got, 0xee, SIZE);
  ASSERT_OK(ul_buffer_read(r->dev, b, 0, got, SIZE, 0));
  EXPECT_EQ(memcmp(got, g_file + offset, SIZE), 0);
  free(got);
}

/* A standby built after the buffer was registered, made ahead for it. */
static void ready_with_prefill(rig *r) {
  ASSERT_TRUE(ul__standby_wait_ready(r->dev, 20000000000ull));
  ul__standby_counts c;
  ul__standby_get_counts(r->dev, &c);
  if (c.ready_bytes == 0) { /* the first standby may have been built before the buffer */
    ASSERT_OK(ul_device_force_loss(r->dev, "test: a standby that sees the buffer"));
    expect_contents(r, r->w, OFFSET);
    ASSERT_TRUE(ul__standby_wait_ready(r->dev, 20000000000ull));
    ul__standby_get_counts(r->dev, &c);
  }
  ASSERT_EQ(c.ready_bytes, SIZE);
}

/* The device's unlost_standby_prefill_bytes, from its metrics text. */
static uint64_t metric_prefill_bytes(rig *r) {
  char *text = NULL;
  uint64_t n = UINT64_MAX;
  if (ul_metrics(&r->dev, 1, UL_METRICS_PROMETHEUS, &text)) return n;
  const char *p = strstr(text, "\nunlost_standby_prefill_bytes{");
  if (p && (p = strchr(p + 1, '}'))) n = strtoull(p + 1, NULL, 10);
  ul_free(text);
  return n;
}

static void rig_close(rig *r) {
  EXPECT_EQ(ul_device_destroy(r->dev), UL_OK);
  EXPECT_EQ(ul_env_destroy(r->env), UL_OK);
  EXPECT_EQ(ul__prefills_live(), 0);
}

/* Taken by the recovery: no restore copy, the file's bytes; with the
 * standby lost too (a reset of the whole GPU), restored through staging. */
static void test_taken_by_the_recovery(void) {
  rig r;
  rig_open(&r);
  expect_contents(&r, r.w, OFFSET);
  ready_with_prefill(&r);
  EXPECT_EQ(metric_prefill_bytes(&r), SIZE);
  uint64_t taken = r.dev->prefill_taken, used = r.dev->prefill_used;
  ASSERT_OK(ul_device_force_loss(r.dev, "test: taken"));
  expect_contents(&r, r.w, OFFSET);
  EXPECT_EQ(r.dev->prefill_taken, taken + 1);
  EXPECT_EQ(r.dev->prefill_used, used + 1);
  ready_with_prefill(&r);
  ASSERT_OK(ul__standby_lose(r.dev));
  ASSERT_OK(ul_device_force_loss(r.dev, "test: the standby is lost as well"));
  expect_contents(&r, r.w, OFFSET);
  EXPECT_EQ(r.dev->prefill_used, used + 1);
  ASSERT_OK(ul_buffer_destroy(r.dev, r.w));
  rig_close(&r);
}

/* The file rewritten in place after the standby filled the buffer, size
 * and times kept: the buffer is LOST, as without a standby. */
static void test_changed_file_is_still_caught(void) {
  rig r;
  rig_open(&r);
  ready_with_prefill(&r);
  struct stat st;
  ASSERT_EQ(stat(g_path, &st), 0);
  uint8_t *zero = calloc(1, FILE_BYTES);
  ASSERT_TRUE(zero != NULL);
  write_all(zero);
  struct timespec times[2] = {st.st_atim, st.st_mtim};
  ASSERT_EQ(utimensat(AT_FDCWD, g_path, times, 0), 0);
  ASSERT_OK(ul_device_force_loss(r.dev, "test: after a rewrite"));
  uint8_t *got = malloc(SIZE);
  ASSERT_TRUE(got != NULL);
  ASSERT_STATUS(ul_buffer_read(r.dev, r.w, 0, got, SIZE, 0), UL_ERR_DEVICE_LOST);
  EXPECT_TRUE(strstr(ul_last_error(), "changed") != NULL);
  EXPECT_EQ(r.dev->prefill_used, 0);
  write_all(g_file);
  free(got);
  free(zero);
  ASSERT_OK(ul_buffer_destroy(r.dev, r.w));
  rig_close(&r);
}

/* Destroyed after the standby filled it: the buffer made in its place, of
 * another range of the same file, gets its own bytes, and the one made
 * ahead goes (handles carry a generation; the file range is checked too). */
static void test_destroyed_one_is_not_taken(void) {
  rig r;
  rig_open(&r);
  ready_with_prefill(&r);
  ASSERT_OK(ul_buffer_destroy(r.dev, r.w));
  ul_buffer w2;
  /* No budget for the new one: the standby's fill neither makes it nor
   * drops the one it holds, which the rebuild must then refuse. */
  setenv("UNLOST_STANDBY_PREFILL_MB", "0", 1);
  ASSERT_OK(make_weights(&r, OFFSET2, &w2));
  ASSERT_TRUE(ul__standby_wait_ready(r.dev, 20000000000ull));
  unsetenv("UNLOST_STANDBY_PREFILL_MB");
  ul__standby_counts c;
  ul__standby_get_counts(r.dev, &c);
  EXPECT_EQ(c.ready_bytes, SIZE); /* the destroyed one's */
  ASSERT_OK(ul_device_force_loss(r.dev, "test: another buffer in the slot"));
  expect_contents(&r, w2, OFFSET2);
  EXPECT_EQ(r.dev->prefill_used, 0);
  ASSERT_OK(ul_buffer_destroy(r.dev, w2));
  rig_close(&r);
}

/* A loss, then a second one at call j of the recovery that follows
 * (count-recovery): recovers until the device answers, then checks the
 * weights and the other buffer (rig_add_other). Whether the schedule
 * injected goes to *hit; false when the device did not come back. */
static bool lose_twice(rig *r, uint64_t j, bool *hit) {
  char spec[64];
  snprintf(spec, sizeof spec, "count-recovery=1,loss@%llu", (unsigned long long)j);
  ul_status s = ul_device_force_loss(r->dev, "test: first loss");
  if (!s) s = ul__chaos_reschedule(r->env->chaos, spec);
  ul__chaos_reset_counters(r->env->chaos);
  if (!s) s = ul_device_recover(r->dev);
  *hit = ul__chaos_injected(r->env->chaos) > 0;
  ul__chaos_reschedule(r->env->chaos, "seed=1");
  if (!s) s = ul_device_recover(r->dev); /* a loss left for the next call */
  if (s || ul_device_get_state(r->dev) != UL_DEVICE_READY) {
    printf("  second loss at recovery call %llu: %s: %s\n", (unsigned long long)j, ul_status_name(s), ul_last_error());
    return false;
  }
  expect_contents(r, r->w, OFFSET);
  uint32_t got[64];
  EXPECT_EQ(ul_buffer_read(r->dev, r->other, 0, got, sizeof got, 0), UL_OK);
  EXPECT_EQ(memcmp(got, r->init, sizeof got), 0);
  return true;
}

/* A second loss at each call of a recovery that took a buffer made ahead:
 * the next attempt builds a new device and restores the buffer from its
 * file; every point ends with the file's bytes and a ready device. */
static void test_second_loss_after_taking_one(void) {
  rig r;
  rig_open_chaos(&r, "seed=1");
  rig_add_other(&r);
  int injected = 0, took = 0, errors = 0;
  for (uint64_t j = 1; j <= 16; j++) {
    ready_with_prefill(&r);
    uint64_t taken = r.dev->prefill_taken;
    bool hit;
    errors += !lose_twice(&r, j, &hit);
    injected += hit;
    took += hit && r.dev->prefill_taken > taken;
  }
  printf("  %d of 16 points injected, %d after a buffer made ahead was taken\n", injected, took);
  EXPECT_TRUE((injected) >= (4));
  EXPECT_TRUE((took) >= (1)); /* a second loss came after a buffer made ahead was taken */
  EXPECT_EQ(errors, 0);
  ASSERT_OK(ul_buffer_destroy(r.dev, r.other));
  ASSERT_OK(ul_buffer_destroy(r.dev, r.w));
  rig_close(&r);
}

/* A buffer created after the standby was built (a program's weights come
 * after its device): filled on that standby, without waiting for a loss
 * and the standby after it. */
static void test_late_buffer_is_filled_on_the_ready_standby(void) {
  rig r;
  memset(&r, 0, sizeof r);
  ASSERT_OK(ul_env_create(NULL, &r.env));
  ASSERT_OK(ul_device_create(r.env, &(ul_device_desc){.label = "late"}, &r.dev));
  ASSERT_TRUE(ul__standby_wait_ready(r.dev, 20000000000ull));
  ul__standby_counts c;
  ul__standby_get_counts(r.dev, &c);
  EXPECT_EQ(c.ready_bytes, 0);
  ASSERT_OK(make_weights(&r, OFFSET, &r.w));
  ASSERT_TRUE(ul__standby_wait_ready(r.dev, 20000000000ull));
  ul__standby_get_counts(r.dev, &c);
  EXPECT_EQ(c.ready_bytes, SIZE);
  EXPECT_EQ(c.built, 1); /* the same standby */
  ASSERT_OK(ul_device_force_loss(r.dev, "test: the first loss"));
  expect_contents(&r, r.w, OFFSET);
  EXPECT_EQ(r.dev->prefill_taken, 1);
  EXPECT_EQ(r.dev->prefill_used, 1);
  /* Destroyed while held ahead: the next fill drops it. */
  ASSERT_TRUE(ul__standby_wait_ready(r.dev, 20000000000ull));
  ASSERT_OK(ul_buffer_destroy(r.dev, r.w));
  ul_buffer small;
  ASSERT_OK(ul_buffer_create(r.dev, &(ul_buffer_desc){.label = "after", .size = SIZE, .restore = UL_RESTORE_SOURCE,
      .source_path = g_path, .source_offset = OFFSET2}, &small));
  ASSERT_TRUE(ul__standby_wait_ready(r.dev, 20000000000ull));
  ul__standby_get_counts(r.dev, &c);
  EXPECT_EQ(c.ready_bytes, SIZE);
  ASSERT_OK(ul_device_force_loss(r.dev, "test: the second loss"));
  expect_contents(&r, small, OFFSET2);
  EXPECT_EQ(r.dev->prefill_used, 2);
  ASSERT_OK(ul_buffer_destroy(r.dev, small));
  rig_close(&r);
}

/* The default mode on the CPU adapter: no standby for a device without
 * large SOURCE buffers, one as soon as they reach 64 MiB, which the first
 * loss then takes. */
static void test_cpu_adapter_gets_one_for_large_sources(void) {
  unsetenv("UNLOST_STANDBY");
  const uint64_t big = (64u << 20) + 4096u;
  char path[160];
  snprintf(path, sizeof path, "%s/large.bin", g_dir);
  uint8_t *bytes = malloc(big);
  ASSERT_TRUE(bytes != NULL);
  uint64_t x = 0x2545f4914f6cdd1dull;
  for (uint64_t i = 0; i < big / 8; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    memcpy(bytes + i * 8, &x, 8);
  }
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ASSERT_TRUE(fd >= 0);
  ASSERT_EQ(write(fd, bytes, big), (ssize_t)big);
  close(fd);
  rig r;
  rig_open(&r); /* a 3 MiB SOURCE buffer: not enough */
  ul__standby_counts c;
  EXPECT_TRUE(!ul__standby_wait_ready(r.dev, 200000000ull));
  ul__standby_get_counts(r.dev, &c);
  EXPECT_EQ(c.built + c.failed + c.pending, 0);
  ul_buffer large;
  ASSERT_OK(ul_buffer_create(r.dev, &(ul_buffer_desc){.label = "large", .size = big, .restore = UL_RESTORE_SOURCE,
      .source_path = path}, &large));
  ASSERT_TRUE(ul__standby_wait_ready(r.dev, 60000000000ull));
  ul__standby_get_counts(r.dev, &c);
  EXPECT_EQ(c.built, 1);
  EXPECT_EQ(c.ready_bytes, big + SIZE);
  ASSERT_OK(ul_device_force_loss(r.dev, "test: a loss on the CPU adapter"));
  uint8_t *got = malloc(big);
  ASSERT_TRUE(got != NULL);
  ASSERT_OK(ul_buffer_read(r.dev, large, 0, got, big, 0));
  EXPECT_EQ(memcmp(got, bytes, big), 0);
  expect_contents(&r, r.w, OFFSET);
  EXPECT_EQ(r.dev->prefill_used, 2);
  ASSERT_OK(ul_buffer_destroy(r.dev, large));
  ASSERT_OK(ul_buffer_destroy(r.dev, r.w));
  rig_close(&r);
  free(got);
  free(bytes);
  unlink(path);
  setenv("UNLOST_STANDBY", "1", 1);
}

/* UNLOST_STANDBY_PREFILL_MB=0: none made ahead. */
static void test_budget_zero_makes_none(void) {
  setenv("UNLOST_STANDBY_PREFILL_MB", "0", 1);
  rig r;
  rig_open(&r);
  ASSERT_OK(ul_device_force_loss(r.dev, "test: no budget"));
  ASSERT_TRUE(ul__standby_wait_ready(r.dev, 20000000000ull));
  ul__standby_counts c;
  ul__standby_get_counts(r.dev, &c);
  EXPECT_EQ(c.ready_bytes, 0);
  EXPECT_EQ(c.prefilled, 0);
  EXPECT_EQ(metric_prefill_bytes(&r), 0);
  expect_contents(&r, r.w, OFFSET);
  ASSERT_OK(ul_buffer_destroy(r.dev, r.w));
  rig_close(&r);
  unsetenv("UNLOST_STANDBY_PREFILL_MB");
}

/* Without a standby, the recovery reads the first large SOURCE buffer's
 * file into staging while it makes the objects (UNLOST_FILL_AHEAD): the
 * buffer gets the file's bytes, a second SOURCE buffer (the same range of
 * another file) its own through the upload as before, and the restore's
 * checks still stand: a file rewritten in place (size and times kept) is
 * caught after its bytes were read ahead, and those bytes are not the
 * other file's; one with a new time is not read ahead at all. Not on
 * the CPU adapter by default (UNLOST_FILL_AHEAD=2): 1 here. */
static void test_read_ahead_while_the_objects_are_made(void) {
  setenv("UNLOST_STANDBY", "0", 1);
  char path2[160];
  snprintf(path2, sizeof path2, "%s/other.bin", g_dir);
  uint8_t *file2 = malloc(FILE_BYTES), *zero = calloc(1, FILE_BYTES), *got = malloc(SIZE);
  ASSERT_TRUE(file2 != NULL && zero != NULL && got != NULL);
  for (size_t i = 0; i < FILE_BYTES; i++) file2[i] = (uint8_t)(g_file[i] ^ 0x5a);
  int fd = open(path2, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ASSERT_TRUE(fd >= 0);
  ASSERT_EQ(write(fd, file2, FILE_BYTES), (ssize_t)FILE_BYTES);
  close(fd);
  rig r;
  rig_open(&r);
  ul_buffer w2;
  ASSERT_OK(ul_buffer_create(r.dev, &(ul_buffer_desc){.label = "other weights", .size = SIZE,
      .restore = UL_RESTORE_SOURCE, .source_path = path2, .source_offset = OFFSET}, &w2));
  ASSERT_OK(ul_device_force_loss(r.dev, "test: the default on the CPU adapter"));
  expect_contents(&r, r.w, OFFSET);
  EXPECT_EQ(r.dev->staging_ahead_bytes, 0);
  setenv("UNLOST_FILL_AHEAD", "1", 1);
  ASSERT_OK(ul_device_force_loss(r.dev, "test: read ahead"));
  expect_contents(&r, r.w, OFFSET);
  ASSERT_OK(ul_buffer_read(r.dev, w2, 0, got, SIZE, 0));
  EXPECT_EQ(memcmp(got, file2 + OFFSET, SIZE), 0);
  EXPECT_EQ(r.dev->staging_ahead_bytes, SIZE); /* the first one's */
  setenv("UNLOST_FILL_AHEAD", "0", 1);
  ASSERT_OK(ul_device_force_loss(r.dev, "test: not read ahead"));
  expect_contents(&r, r.w, OFFSET);
  EXPECT_EQ(r.dev->staging_ahead_bytes, SIZE);
  setenv("UNLOST_FILL_AHEAD", "1", 1);
  struct stat st;
  ASSERT_EQ(stat(g_path, &st), 0);
  write_all(zero);
  struct timespec times[2] = {st.st_atim, st.st_mtim};
  ASSERT_EQ(utimensat(AT_FDCWD, g_path, times, 0), 0);
  uint64_t dropped = r.dev->staging_ahead_dropped;
  ASSERT_OK(ul_device_force_loss(r.dev, "test: rewritten in place"));
  ASSERT_STATUS(ul_buffer_read(r.dev, r.w, 0, got, SIZE, 0), UL_ERR_DEVICE_LOST);
  EXPECT_TRUE(strstr(ul_last_error(), "changed") != NULL);
  memset(got, 0xee, SIZE);
  ASSERT_OK(ul_buffer_read(r.dev, w2, 0, got, SIZE, 0));
  EXPECT_EQ(memcmp(got, file2 + OFFSET, SIZE), 0);    /* not the bytes read ahead */
  EXPECT_EQ(r.dev->staging_ahead_bytes, SIZE);          /* nothing of them uploaded */
  EXPECT_EQ(r.dev->staging_ahead_dropped, dropped + 1); /* read ahead, then not taken */
  write_all(g_file); /* a new modification time */
  ASSERT_OK(ul_device_force_loss(r.dev, "test: rewritten"));
  EXPECT_EQ(r.dev->staging_ahead_dropped, dropped + 1); /* not begun */
  ASSERT_OK(ul_buffer_read(r.dev, w2, 0, got, SIZE, 0));
  EXPECT_EQ(memcmp(got, file2 + OFFSET, SIZE), 0);
  EXPECT_EQ(r.dev->staging_ahead_bytes, 2 * SIZE); /* the other file's, the first large one now */
  free(file2);
  free(zero);
  free(got);
  ASSERT_OK(ul_buffer_destroy(r.dev, w2));
  ASSERT_OK(ul_buffer_destroy(r.dev, r.w));
  rig_close(&r);
  unlink(path2);
  unsetenv("UNLOST_FILL_AHEAD");
  setenv("UNLOST_STANDBY", "1", 1);
}

/* A second loss at each call of a recovery that reads ahead: the attempt
 * that fails lets go of the fill still running (its threads write mapped
 * memory the next attempt releases), and every point ends with the file's
 * bytes and a ready device. */
static void test_second_loss_while_reading_ahead(void) {
  setenv("UNLOST_STANDBY", "0", 1);
  setenv("UNLOST_FILL_AHEAD", "1", 1);
  rig r;
  rig_open_chaos(&r, "seed=1");
  rig_add_other(&r);
  int injected = 0, dropped = 0, errors = 0;
  for (uint64_t j = 1; j <= 24; j++) {
    uint64_t was_dropped = r.dev->staging_ahead_dropped;
    bool hit;
    errors += !lose_twice(&r, j, &hit);
    injected += hit;
    dropped += r.dev->staging_ahead_dropped > was_dropped;
  }
  printf("  %d of 24 points injected, %d while a fill ahead ran\n", injected, dropped);
  EXPECT_TRUE(injected >= 8);
  EXPECT_TRUE(dropped >= 1); /* a loss came while the file was being read ahead */
  EXPECT_EQ(errors, 0);
  ASSERT_OK(ul_buffer_destroy(r.dev, r.other));
  ASSERT_OK(ul_buffer_destroy(r.dev, r.w));
  rig_close(&r);
  unsetenv("UNLOST_FILL_AHEAD");
  setenv("UNLOST_STANDBY", "1", 1);
}

/* The whole staging chunks read ahead go to the buffer in one submission
 * (ul__copies_submit), the rest chunk by chunk: a buffer of two whole
 * chunks of 16 MiB and a part gets the file's bytes after a loss, and after
 * a second loss at each of the first calls of the recovery. In the
 * implementation's memory (UNLOST_HOST_BACKING=0): buffers over kept host
 * pages take the file straight into their pages instead. */
#define BIG ((40u << 20) + 1028u)
static int big_ok(ul_device *dev, ul_buffer b, const uint8_t *want, uint8_t *got) {
  memset(got, 0xee, BIG);
  return ul_buffer_read(dev, b, 0, got, BIG, 0) == UL_OK && memcmp(got, want, BIG) == 0;
}

static void test_chunks_read_ahead_go_in_one_submission(void) {
  char path[160];
  snprintf(path, sizeof path, "%s/big.bin", g_dir);
  uint8_t *file = malloc(BIG + OFFSET), *got = malloc(BIG);
  ASSERT_TRUE(file != NULL && got != NULL);
  uint64_t x = 0x2545f4914f6cdd1dull;
  for (size_t i = 0; i < BIG + OFFSET; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    file[i] = (uint8_t)x;
  }
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ASSERT_TRUE(fd >= 0);
  ASSERT_EQ(write(fd, file, BIG + OFFSET), (ssize_t)(BIG + OFFSET));
  close(fd);
  setenv("UNLOST_STANDBY", "0", 1);
  setenv("UNLOST_FILL_AHEAD", "1", 1);
  setenv("UNLOST_HOST_BACKING", "0", 1);
  rig r;
  memset(&r, 0, sizeof r);
  ul_device_desc dd = {.label = "read ahead"};
  dd.recovery.backoff_initial_ms = 1;
  dd.recovery.backoff_max_ms = 2;
  ASSERT_OK(ul_env_create(&(ul_env_desc){.chaos = "seed=1"}, &r.env));
  ASSERT_OK(ul_device_create(r.env, &dd, &r.dev));
  ul_buffer b;
  ASSERT_OK(ul_buffer_create(r.dev, &(ul_buffer_desc){.label = "big", .size = BIG, .restore = UL_RESTORE_SOURCE,
      .source_path = path, .source_offset = OFFSET}, &b));
  EXPECT_TRUE(big_ok(r.dev, b, file + OFFSET, got));
  uint64_t ahead = r.dev->staging_ahead_bytes;
  ASSERT_OK(ul_device_force_loss(r.dev, "test: read ahead"));
  EXPECT_TRUE(big_ok(r.dev, b, file + OFFSET, got));
  EXPECT_TRUE(r.dev->staging_ahead_bytes - ahead >= (32u << 20)); /* the two whole chunks, at least */
  int injected = 0, wrong = 0;
  for (uint64_t j = 1; j <= 12; j++) {
    char spec[64];
    snprintf(spec, sizeof spec, "count-recovery=1,loss@%llu", (unsigned long long)j);
    ul_status s = ul_device_force_loss(r.dev, "test: first loss");
    if (!s) s = ul__chaos_reschedule(r.env->chaos, spec);
    ul__chaos_reset_counters(r.env->chaos);
    if (!s) s = ul_device_recover(r.dev);
    injected += ul__chaos_injected(r.env->chaos) > 0;
    ul__chaos_reschedule(r.env->chaos, "seed=1");
    if (!s) s = ul_device_recover(r.dev);
    if (s || !big_ok(r.dev, b, file + OFFSET, got)) {
      wrong++;
      printf("  second loss at recovery call %llu: %s: %s\n", (unsigned long long)j, ul_status_name(s),
             ul_last_error());
    }
  }
  printf("  %d of 12 points injected\n", injected);
  EXPECT_EQ(wrong, 0);
  EXPECT_TRUE(injected >= 4);
  ASSERT_OK(ul_buffer_destroy(r.dev, b));
  ASSERT_OK(ul_device_destroy(r.dev));
  ul_env_destroy(r.env);
  unlink(path);
  free(file);
  free(got);
  unsetenv("UNLOST_HOST_BACKING");
  unsetenv("UNLOST_FILL_AHEAD");
  setenv("UNLOST_STANDBY", "1", 1);
}

int main(void) {
  setenv("UNLOST_STANDBY", "1", 1); /* the CPU adapter gets one too */
  make_file();
  RUN_TEST(test_taken_by_the_recovery);
  RUN_TEST(test_changed_file_is_still_caught);
  RUN_TEST(test_destroyed_one_is_not_taken);
  RUN_TEST(test_second_loss_after_taking_one);
  RUN_TEST(test_budget_zero_makes_none);
  RUN_TEST(test_late_buffer_is_filled_on_the_ready_standby);
  RUN_TEST(test_cpu_adapter_gets_one_for_large_sources);
  RUN_TEST(test_read_ahead_while_the_objects_are_made);
  RUN_TEST(test_second_loss_while_reading_ahead);
  RUN_TEST(test_chunks_read_ahead_go_in_one_submission);
  unlink(g_path);
  rmdir(g_dir);
  free(g_file);
  TEST_MAIN_END();
}
