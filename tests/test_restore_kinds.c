/* Restore policies of mappable buffers, mappings across a loss, LOST
 * objects refused, and no fixed cap on CALLBACK buffers: each on the real
 * implementation, expected values written by the test itself. */
#include "internal.h"
#include "ul_test.h"

#include <fcntl.h>
#include <sys/stat.h>

static const char *copy_wgsl =
    "@group(0) @binding(0) var<storage, read> src: array<u32>;\n"
    "@group(0) @binding(1) var<storage, read_write> dst: array<u32>;\n"
    "@compute @workgroup_size(64)\n"
    "fn main(@builtin(global_invocation_id) id: vec3u) {\n"
    "  if (id.x < arrayLength(&dst)) { dst[id.x] = src[id.x] + 1u; }\n"
    "}\n";

typedef struct rig {
  ul_env *env;
  ul_device *dev;
} rig;

static ul_status rig_open(rig *r) {
  memset(r, 0, sizeof *r);
  ul_device_desc dd = {.label = "kinds"};
  dd.recovery.backoff_initial_ms = 1;
  dd.recovery.backoff_max_ms = 2;
  ul_status s = ul_env_create(NULL, &r->env);
  if (!s) s = ul_device_create(r->env, &dd, &r->dev);
  return s;
}

static void rig_close(rig *r) {
  ul_memory_stats st = {0};
  ul_device_memory_stats(r->dev, &st);
  EXPECT_EQ(st.live_objects, 0);
  EXPECT_EQ(ul_device_destroy(r->dev), UL_OK);
  EXPECT_EQ(ul_env_destroy(r->env), UL_OK);
}

/* Reads a MAP_WRITE|COPY_SRC buffer through a copy into a plain one. */
static ul_status read_mappable(rig *r, ul_buffer src, uint32_t *out, uint64_t size) {
  ul_buffer tmp;
  ul_cmd *c = NULL;
  ul_status s = ul_buffer_create(r->dev, &(ul_buffer_desc){.label = "tmp", .size = size, .restore = UL_RESTORE_NONE}, &tmp);
  if (s) return s;
  s = ul_cmd_create(r->dev, "copy", &c);
  if (!s) s = ul_cmd_copy_buffer(c, src, 0, tmp, 0, size);
  if (!s) s = ul_cmd_submit(r->dev, c, NULL);
  if (!s) s = ul_buffer_read(r->dev, tmp, 0, out, size, 0);
  ul_cmd_destroy(c);
  ul_buffer_destroy(r->dev, tmp);
  return s;
}

/* SHADOW + MAP_WRITE comes back after a loss; a sub-range unmap changes
 * exactly its range of the host copy. */
static void test_shadow_map_write_restores(void) {
  rig r;
  ASSERT_OK(rig_open(&r));
  ul_buffer b;
  ASSERT_OK(ul_buffer_create(r.dev, &(ul_buffer_desc){.label = "upload", .size = 64,
      .usage = UL_BUFFER_MAP_WRITE | UL_BUFFER_COPY_SRC, .restore = UL_RESTORE_SHADOW}, &b));
  void *p;
  ASSERT_OK(ul_buffer_map(r.dev, b, UL_MAP_WRITE, 0, 64, 0, &p));
  memset(p, 0xab, 64);
  ASSERT_OK(ul_buffer_unmap(r.dev, b));
  ASSERT_OK(ul_buffer_map(r.dev, b, UL_MAP_WRITE, 16, 16, 0, &p));
  memset(p, 0x11, 16);
  ASSERT_OK(ul_buffer_unmap(r.dev, b));
  uint32_t want[16], got[16];
  memset(want, 0xab, sizeof want);
  memset((uint8_t *)want + 16, 0x11, 16);
  ASSERT_OK(read_mappable(&r, b, got, 64));
  ASSERT_EQ(memcmp(got, want, 64), 0);
  ASSERT_OK(ul_device_force_loss(r.dev, "test"));
  memset(got, 0, sizeof got);
  ASSERT_OK(read_mappable(&r, b, got, 64));
  ASSERT_EQ(memcmp(got, want, 64), 0);
  ASSERT_OK(ul_buffer_destroy(r.dev, b));
  /* The default policy (LOG) keeps a MAP_WRITE buffer's contents too. */
  ASSERT_OK(ul_buffer_create(r.dev, &(ul_buffer_desc){.label = "upload-log", .size = 64,
      .usage = UL_BUFFER_MAP_WRITE | UL_BUFFER_COPY_SRC}, &b));
  ASSERT_OK(ul_buffer_map(r.dev, b, UL_MAP_WRITE, 0, 64, 0, &p));
  memset(p, 0xcd, 64);
  ASSERT_OK(ul_buffer_unmap(r.dev, b));
  memset(want, 0xcd, sizeof want);
  ASSERT_OK(ul_device_force_loss(r.dev, "test"));
  ASSERT_OK(read_mappable(&r, b, got, 64));
  ASSERT_EQ(memcmp(got, want, 64), 0);
  ASSERT_OK(ul_buffer_destroy(r.dev, b));
  rig_close(&r);
}

/* A mapping made before a loss outlives it: the pointer stays valid, and
 * at unmap what was written through it reaches the rebuilt buffer (SHADOW,
 * LOG and NONE alike); a MAP_READ mapping keeps the data it showed. */
static void test_mapping_survives_a_loss(void) {
  rig r;
  ASSERT_OK(rig_open(&r));
  static const ul_restore policies[] = {UL_RESTORE_SHADOW, UL_RESTORE_LOG, UL_RESTORE_NONE};
  for (size_t k = 0; k < sizeof policies / sizeof policies[0]; k++) {
    ul_buffer b;
    ASSERT_OK(ul_buffer_create(r.dev, &(ul_buffer_desc){.label = "staging", .size = 256,
        .usage = UL_BUFFER_MAP_WRITE | UL_BUFFER_COPY_SRC, .restore = policies[k]}, &b));
    uint32_t *p;
    ASSERT_OK(ul_buffer_map(r.dev, b, UL_MAP_WRITE, 0, 256, 0, (void **)&p));
    for (uint32_t i = 0; i < 64; i++) p[i] = i + 1;
    ASSERT_OK(ul_buffer_unmap(r.dev, b));
    /* A sub-range mapped across two losses. */
    ASSERT_OK(ul_buffer_map(r.dev, b, UL_MAP_WRITE, 64, 64, 0, (void **)&p));
    ASSERT_OK(ul_device_force_loss(r.dev, "test: lost while mapped"));
    /* Already lost: nothing more is forced until it is recovered from. */
    ASSERT_STATUS(ul_device_force_loss(r.dev, "test: lost twice"), UL_ERR_BUSY);
    ASSERT_OK(ul_device_recover(r.dev));
    ASSERT_OK(ul_device_force_loss(r.dev, "test: lost again while mapped"));
    for (uint32_t i = 0; i < 16; i++) p[i] = 1000u + i;
    ASSERT_OK(ul_buffer_unmap(r.dev, b));
    uint32_t got[64];
    ASSERT_OK(read_mappable(&r, b, got, 256));
    for (uint32_t i = 0; i < 64; i++) {
      /* NONE: what the mapping wrote, zeros elsewhere (its policy). */
      uint32_t want = i >= 16 && i < 32 ? 1000u + (i - 16) : policies[k] == UL_RESTORE_NONE ? 0 : i + 1;
      ASSERT_EQ(got[i], want);
    }
    /* Mapped again, it works as before. */
    ASSERT_OK(ul_buffer_map(r.dev, b, UL_MAP_WRITE, 0, 256, 0, (void **)&p));
    for (uint32_t i = 0; i < 64; i++) p[i] = i * 3u + 5u;
    ASSERT_OK(ul_buffer_unmap(r.dev, b));
    ASSERT_OK(read_mappable(&r, b, got, 256));
    for (uint32_t i = 0; i < 64; i++) ASSERT_EQ(got[i], i * 3u + 5u);
    /* Destroyed while a kept mapping is held: released with it. */
    ASSERT_OK(ul_buffer_map(r.dev, b, UL_MAP_WRITE, 0, 256, 0, (void **)&p));
    ASSERT_OK(ul_device_force_loss(r.dev, "test"));
    ASSERT_OK(ul_buffer_destroy(r.dev, b));
  }
  /* MAP_READ: filled by a copy, mapped, lost: the mapping still shows the
   * data; mapped again after the loss, the replayed copy filled it. */
  ul_buffer src, rb;
  uint32_t v[64];
  for (uint32_t i = 0; i < 64; i++) v[i] = i * 77u + 3u;
  ASSERT_OK(ul_buffer_create(r.dev, &(ul_buffer_desc){.label = "src", .size = 256, .initial_data = v}, &src));
  ASSERT_OK(ul_buffer_create(r.dev, &(ul_buffer_desc){.label = "readback", .size = 256,
      .usage = UL_BUFFER_MAP_READ | UL_BUFFER_COPY_DST}, &rb));
  ul_cmd *c;
  ASSERT_OK(ul_cmd_create(r.dev, "copy", &c));
  ASSERT_OK(ul_cmd_copy_buffer(c, src, 0, rb, 0, 256));
  ASSERT_OK(ul_cmd_submit(r.dev, c, NULL));
  const uint32_t *q;
  ASSERT_OK(ul_buffer_map(r.dev, rb, UL_MAP_READ, 0, 256, 0, (void **)&q));
  ASSERT_OK(ul_device_force_loss(r.dev, "test: lost while mapped for reading"));
  for (uint32_t i = 0; i < 64; i++) ASSERT_EQ(q[i], v[i]);
  ASSERT_OK(ul_buffer_unmap(r.dev, rb));
  ASSERT_OK(ul_buffer_map(r.dev, rb, UL_MAP_READ, 0, 256, 0, (void **)&q));
  for (uint32_t i = 0; i < 64; i++) ASSERT_EQ(q[i], v[i]);
  ASSERT_OK(ul_buffer_unmap(r.dev, rb));
  ul_cmd_destroy(c);
  ASSERT_OK(ul_buffer_destroy(r.dev, rb));
  ASSERT_OK(ul_buffer_destroy(r.dev, src));
  rig_close(&r);
}

/* A MAP_READ buffer that a copy filled keeps its contents across a
 * checkpoint and a loss: the checkpoint empties the log that held the
 * copy, so it reads the buffer itself (by a map of its own, or from the
 * program's mapping of all of it), and the rebuild writes that back. On
 * the code before, the map after the loss showed zeros with UL_OK. */
static void test_map_read_survives_a_checkpoint(void) {
  rig r;
  ASSERT_OK(rig_open(&r));
  uint32_t v[64], w[64];
  for (uint32_t i = 0; i < 64; i++) v[i] = i * 77u + 3u, w[i] = i * 13u + 1000u;
  ul_buffer src, src2, rb;
  ASSERT_OK(ul_buffer_create(r.dev, &(ul_buffer_desc){.label = "src", .size = 256, .initial_data = v}, &src));
  ASSERT_OK(ul_buffer_create(r.dev, &(ul_buffer_desc){.label = "src2", .size = 256, .initial_data = w}, &src2));
  ASSERT_OK(ul_buffer_create(r.dev, &(ul_buffer_desc){.label = "readback", .size = 256,
      .usage = UL_BUFFER_MAP_READ | UL_BUFFER_COPY_DST}, &rb));
  ul_cmd *c, *c2;
  ASSERT_OK(ul_cmd_create(r.dev, "copy", &c));
  ASSERT_OK(ul_cmd_copy_buffer(c, src, 0, rb, 0, 256));
  ASSERT_OK(ul_cmd_create(r.dev, "copy half", &c2));
  ASSERT_OK(ul_cmd_copy_buffer(c2, src2, 0, rb, 128, 128));
  const uint32_t *q;
  /* 1. Read by the checkpoint's own map; a copy after it is replayed. */
  ASSERT_OK(ul_cmd_submit(r.dev, c, NULL));
  ASSERT_OK(ul_device_checkpoint(r.dev));
  ASSERT_OK(ul_cmd_submit(r.dev, c2, NULL));
  ASSERT_OK(ul_device_force_loss(r.dev, "test: lost after the checkpoint"));
  ASSERT_OK(ul_buffer_map(r.dev, rb, UL_MAP_READ, 0, 256, 0, (void **)&q));
  for (uint32_t i = 0; i < 64; i++) ASSERT_EQ(q[i], i < 32 ? v[i] : w[i - 32]);
  ASSERT_OK(ul_buffer_unmap(r.dev, rb));
  /* 2. Read from the program's mapping of the whole buffer. */
  ASSERT_OK(ul_cmd_submit(r.dev, c, NULL));
  ASSERT_OK(ul_buffer_map(r.dev, rb, UL_MAP_READ, 0, 256, 0, (void **)&q));
  ASSERT_OK(ul_device_checkpoint(r.dev));
  ASSERT_OK(ul_buffer_unmap(r.dev, rb));
  ASSERT_OK(ul_device_force_loss(r.dev, "test: lost after a checkpoint while mapped"));
  ASSERT_OK(ul_buffer_map(r.dev, rb, UL_MAP_READ, 0, 256, 0, (void **)&q));
  for (uint32_t i = 0; i < 64; i++) ASSERT_EQ(q[i], v[i]);
  ASSERT_OK(ul_buffer_unmap(r.dev, rb));
  /* 3. Mapped in part: the checkpoint cannot read it and commits nothing
   * (an honest status); once unmapped it commits, and the loss after it
   * brings the contents back. */
  ASSERT_OK(ul_cmd_submit(r.dev, c2, NULL));
  ASSERT_OK(ul_buffer_map(r.dev, rb, UL_MAP_READ, 0, 128, 0, (void **)&q));
  ul_status s = ul_device_checkpoint(r.dev);
  ASSERT_TRUE(s != UL_OK);
  ASSERT_OK(ul_buffer_unmap(r.dev, rb));
  ASSERT_OK(ul_device_checkpoint(r.dev));
  ASSERT_OK(ul_device_force_loss(r.dev, "test: lost after the checkpoint that waited"));
  ASSERT_OK(ul_buffer_map(r.dev, rb, UL_MAP_READ, 0, 256, 0, (void **)&q));
  for (uint32_t i = 0; i < 64; i++) ASSERT_EQ(q[i], i < 32 ? v[i] : w[i - 32]);
  ASSERT_OK(ul_buffer_unmap(r.dev, rb));
  ul_cmd_destroy(c);
  ul_cmd_destroy(c2);
  ASSERT_OK(ul_buffer_destroy(r.dev, rb));
  ASSERT_OK(ul_buffer_destroy(r.dev, src2));
  ASSERT_OK(ul_buffer_destroy(r.dev, src));
  rig_close(&r);
}

/* A mapping is a write at its place in the queue: a copy submitted before
 * the second mapping must see the first one's data after a loss too (the
 * host copy alone would give every replayed copy the newest contents). */
static void test_mapping_writes_keep_their_place(void) {
  rig r;
  ASSERT_OK(rig_open(&r));
  static const ul_restore policies[] = {UL_RESTORE_SHADOW, UL_RESTORE_LOG};
  for (size_t k = 0; k < 2; k++) {
    ul_buffer up, x, y;
    ASSERT_OK(ul_buffer_create(r.dev, &(ul_buffer_desc){.label = "up", .size = 256,
        .usage = UL_BUFFER_MAP_WRITE | UL_BUFFER_COPY_SRC, .restore = policies[k]}, &up));
    ASSERT_OK(ul_buffer_create(r.dev, &(ul_buffer_desc){.label = "x", .size = 256}, &x));
    ASSERT_OK(ul_buffer_create(r.dev, &(ul_buffer_desc){.label = "y", .size = 256}, &y));
    ul_cmd *cx, *cy;
    ASSERT_OK(ul_cmd_create(r.dev, "to x", &cx));
    ASSERT_OK(ul_cmd_copy_buffer(cx, up, 0, x, 0, 256));
    ASSERT_OK(ul_cmd_create(r.dev, "to y", &cy));
    ASSERT_OK(ul_cmd_copy_buffer(cy, up, 0, y, 0, 256));
    uint32_t *p;
    ASSERT_OK(ul_buffer_map(r.dev, up, UL_MAP_WRITE, 0, 256, 0, (void **)&p));
    for (uint32_t i = 0; i < 64; i++) p[i] = 100u + i;
    ASSERT_OK(ul_buffer_unmap(r.dev, up));
    ASSERT_OK(ul_cmd_submit(r.dev, cx, NULL));
    ASSERT_OK(ul_device_checkpoint(r.dev)); /* the first mapping is in the checkpoint... */
    ASSERT_OK(ul_buffer_map(r.dev, up, UL_MAP_WRITE, 0, 128, 0, (void **)&p));
    for (uint32_t i = 0; i < 32; i++) p[i] = 500u + i;
    ASSERT_OK(ul_buffer_unmap(r.dev, up));
    ASSERT_OK(ul_cmd_submit(r.dev, cy, NULL));
    ASSERT_OK(ul_buffer_map(r.dev, up, UL_MAP_WRITE, 0, 256, 0, (void **)&p));
    for (uint32_t i = 0; i < 64; i++) p[i] = 900u + i;
    ASSERT_OK(ul_buffer_unmap(r.dev, up));
    /* ...the second and third are logged; x is in the checkpoint. */
    ASSERT_OK(ul_cmd_submit(r.dev, cx, NULL));
    ASSERT_OK(ul_device_force_loss(r.dev, "test"));
    uint32_t gx[64], gy[64];
    ASSERT_OK(ul_buffer_read(r.dev, x, 0, gx, sizeof gx, 0));
    ASSERT_OK(ul_buffer_read(r.dev, y, 0, gy, sizeof gy, 0));
    for (uint32_t i = 0; i < 64; i++) {
      ASSERT_EQ(gy[i], i < 32 ? 500u + i : 100u + i);
      ASSERT_EQ(gx[i], 900u + i);
    }
    ul_cmd_destroy(cx);
    ul_cmd_destroy(cy);
    ASSERT_OK(ul_buffer_destroy(r.dev, y));
    ASSERT_OK(ul_buffer_destroy(r.dev, x));
    ASSERT_OK(ul_buffer_destroy(r.dev, up));
  }
  rig_close(&r);
}

static void write_file(const char *path, const uint32_t *v, size_t n) {
  FILE *f = fopen(path, "wb");
  ASSERT_TRUE(f != NULL);
  ASSERT_EQ(fwrite(v, 4, n, f), n);
  fclose(f);
}

/* SOURCE files: the path is made absolute at create (a chdir changes
 * nothing); a file that changed since (same size, new contents) loses
 * that buffer only, and the work replayed from it: their use is
 * UL_ERR_DEVICE_LOST naming them, every other object comes back. */
static void test_source_file_changed_loses_only_its_buffer(void) {
  rig r;
  ASSERT_OK(rig_open(&r));
  char dir[] = "/tmp/unlost-kinds-XXXXXX", old_cwd[1024], path[1100];
  ASSERT_TRUE(mkdtemp(dir) != NULL);
  ASSERT_TRUE(getcwd(old_cwd, sizeof old_cwd) != NULL);
  uint32_t v[64], w[64], got[64];
  for (uint32_t i = 0; i < 64; i++) {
    v[i] = i * 3u + 1u;
    w[i] = 0;
  }
  snprintf(path, sizeof path, "%s/weights.bin", dir);
  write_file(path, v, 64);
  ASSERT_EQ(chdir(dir), 0);
  ul_buffer src, other, derived, keep;
  ASSERT_OK(ul_buffer_create(r.dev, &(ul_buffer_desc){.label = "weights", .size = 256,
      .restore = UL_RESTORE_SOURCE, .source_path = "weights.bin"}, &src));
  ASSERT_EQ(chdir(old_cwd), 0);
  /* Another directory's file of the same name must not be read. */
  ASSERT_OK(ul_buffer_create(r.dev, &(ul_buffer_desc){.label = "other", .size = 256, .initial_data = v}, &other));
  ASSERT_OK(ul_buffer_create(r.dev, &(ul_buffer_desc){.label = "derived", .size = 256}, &derived));
  ASSERT_OK(ul_buffer_create(r.dev, &(ul_buffer_desc){.label = "keep", .size = 256}, &keep));
  ASSERT_OK(ul_device_force_loss(r.dev, "test: after a chdir"));
  ASSERT_OK(ul_buffer_read(r.dev, src, 0, got, sizeof got, 0));
  ASSERT_EQ(memcmp(got, v, sizeof v), 0);
  /* derived <- weights; keep <- other: replayed after the next loss. */
  ASSERT_OK(ul_device_checkpoint(r.dev));
  ul_cmd *c;
  ASSERT_OK(ul_cmd_create(r.dev, "copies", &c));
  ASSERT_OK(ul_cmd_copy_buffer(c, src, 0, derived, 0, 256));
  ASSERT_OK(ul_cmd_copy_buffer(c, other, 0, keep, 0, 256));
  ASSERT_OK(ul_cmd_submit(r.dev, c, NULL));
  /* Rewritten in place: same size, other contents, a later time. */
  sleep(1);
  write_file(path, w, 64);
  ASSERT_OK(ul_device_force_loss(r.dev, "test: after the file changed"));
  ASSERT_STATUS(ul_buffer_read(r.dev, src, 0, got, sizeof got, 0), UL_ERR_DEVICE_LOST);
  EXPECT_TRUE(strstr(ul_last_error(), "weights") != NULL);
  ASSERT_STATUS(ul_buffer_read(r.dev, derived, 0, got, sizeof got, 0), UL_ERR_DEVICE_LOST);
  EXPECT_TRUE(strstr(ul_last_error(), "derived") != NULL);
  ASSERT_OK(ul_buffer_read(r.dev, keep, 0, got, sizeof got, 0));
  ASSERT_EQ(memcmp(got, v, sizeof v), 0);
  ASSERT_OK(ul_buffer_read(r.dev, other, 0, got, sizeof got, 0));
  ASSERT_EQ(memcmp(got, v, sizeof v), 0);
  ul_device_state st = ul_device_get_state(r.dev);
  EXPECT_TRUE(st == UL_DEVICE_READY || st == UL_DEVICE_FALLBACK);
  ul_cmd_destroy(c);
  ASSERT_OK(ul_buffer_destroy(r.dev, keep));
  ASSERT_OK(ul_buffer_destroy(r.dev, derived));
  ASSERT_OK(ul_buffer_destroy(r.dev, other));
  ASSERT_OK(ul_buffer_destroy(r.dev, src));
  unlink(path);
  rmdir(dir);
  rig_close(&r);
}

/* A rewrite that keeps the size and the modification time (cp -p, touch
 * -r, a restored backup) is caught by the content hash: small sources are
 * hashed whole, large ones (over 1 MiB: the staged path) by sampled
 * blocks. The buffer is LOST naming the file; the device lives on. */
static void test_source_rewrite_keeping_size_and_time_is_caught(void) {
  rig r;
  ASSERT_OK(rig_open(&r));
  char dir[] = "/tmp/unlost-kinds-XXXXXX", path[2][1100];
  ASSERT_TRUE(mkdtemp(dir) != NULL);
  const size_t sizes[2] = {256, 3u << 20}; /* 3 MiB: above the staging threshold */
  uint32_t *v = malloc(sizes[1]), *got = malloc(sizes[1]);
  ASSERT_TRUE(v && got);
  for (size_t i = 0; i < sizes[1] / 4; i++) v[i] = (uint32_t)(i * 2654435761u) | 1u;
  ul_buffer src[2];
  struct stat st[2];
  for (int k = 0; k < 2; k++) {
    snprintf(path[k], sizeof path[k], "%s/w%d.bin", dir, k);
    write_file(path[k], v, sizes[k] / 4);
    ASSERT_EQ(stat(path[k], &st[k]), 0);
    ASSERT_OK(ul_buffer_create(r.dev, &(ul_buffer_desc){.label = k ? "large" : "small", .size = sizes[k],
        .restore = UL_RESTORE_SOURCE, .source_path = path[k]}, &src[k]));
  }
  ul_buffer other;
  ASSERT_OK(ul_buffer_create(r.dev, &(ul_buffer_desc){.label = "other", .size = 256, .initial_data = v}, &other));
  /* Zeroed (the weights of a model wiped in place), then the old times put back. */
  memset(got, 0, sizes[1]);
  for (int k = 0; k < 2; k++) {
    write_file(path[k], got, sizes[k] / 4);
    struct timespec times[2] = {st[k].st_atim, st[k].st_mtim};
    ASSERT_EQ(utimensat(AT_FDCWD, path[k], times, 0), 0);
  }
  ASSERT_OK(ul_device_force_loss(r.dev, "test: after a rewrite that kept size and time"));
  for (int k = 0; k < 2; k++) {
    ASSERT_STATUS(ul_buffer_read(r.dev, src[k], 0, got, sizes[k], 0), UL_ERR_DEVICE_LOST);
    EXPECT_TRUE(strstr(ul_last_error(), path[k]) != NULL);
  }
  ASSERT_OK(ul_buffer_read(r.dev, other, 0, got, 256, 0));
  ASSERT_EQ(memcmp(got, v, 256), 0);
  ul_device_state ds = ul_device_get_state(r.dev);
  EXPECT_TRUE(ds == UL_DEVICE_READY || ds == UL_DEVICE_FALLBACK);
  ASSERT_OK(ul_buffer_destroy(r.dev, other));
  for (int k = 0; k < 2; k++) {
    ASSERT_OK(ul_buffer_destroy(r.dev, src[k]));
    unlink(path[k]);
  }
  rmdir(dir);
  free(v);
  free(got);
  rig_close(&r);
}

static ul_status failing_refill(ul_device *d, ul_buffer b, void *user) {
  (void)d;
  (void)b;
  (void)user;
  return UL_ERR_IO;
}

/* A buffer whose CALLBACK failed is LOST: binding it, copying from it and
 * reading it are refused with UL_ERR_DEVICE_LOST before anything runs. */
static void test_lost_objects_are_refused(void) {
  rig r;
  ASSERT_OK(rig_open(&r));
  uint32_t init[64];
  for (uint32_t i = 0; i < 64; i++) init[i] = i;
  ul_buffer src, dst;
  ul_shader sh;
  ul_compute_pipeline pipe;
  ul_bind_group bg;
  ul_cmd *c, *cp;
  ASSERT_OK(ul_buffer_create(r.dev, &(ul_buffer_desc){.label = "kv", .size = sizeof init,
      .restore = UL_RESTORE_CALLBACK, .restore_fn = failing_refill, .initial_data = init}, &src));
  ASSERT_OK(ul_buffer_create(r.dev, &(ul_buffer_desc){.label = "out", .size = sizeof init}, &dst));
  ASSERT_OK(ul_shader_create(r.dev, &(ul_shader_desc){.wgsl = copy_wgsl}, &sh));
  ASSERT_OK(ul_compute_pipeline_create(r.dev, &(ul_compute_pipeline_desc){.shader = sh}, &pipe));
  ASSERT_OK(ul_bind_group_create(r.dev, &(ul_bind_group_desc){.pipeline = pipe, .entry_count = 2,
      .entries = {{.binding = 0, .buffer = src}, {.binding = 1, .buffer = dst}}}, &bg));
  ASSERT_OK(ul_cmd_create(r.dev, "use", &c));
  ASSERT_OK(ul_cmd_dispatch(c, pipe, &bg, 1, 1, 1, 1));
  ASSERT_OK(ul_cmd_create(r.dev, "copy", &cp));
  ASSERT_OK(ul_cmd_copy_buffer(cp, src, 0, dst, 0, sizeof init));
  ASSERT_OK(ul_cmd_submit(r.dev, c, NULL));
  ASSERT_OK(ul_device_checkpoint(r.dev));
  ASSERT_OK(ul_device_force_loss(r.dev, "test"));
  ASSERT_STATUS(ul_cmd_submit(r.dev, c, NULL), UL_ERR_DEVICE_LOST);
  EXPECT_TRUE(strstr(ul_last_error(), "kv") != NULL);
  ASSERT_STATUS(ul_cmd_submit(r.dev, cp, NULL), UL_ERR_DEVICE_LOST);
  uint32_t got[64];
  ASSERT_STATUS(ul_buffer_read(r.dev, src, 0, got, sizeof got, 0), UL_ERR_DEVICE_LOST);
  ul_cmd_destroy(cp);
  ul_cmd_destroy(c);
  ASSERT_OK(ul_bind_group_destroy(r.dev, bg));
  ASSERT_OK(ul_compute_pipeline_destroy(r.dev, pipe));
  ASSERT_OK(ul_shader_destroy(r.dev, sh));
  ASSERT_OK(ul_buffer_destroy(r.dev, dst));
  ASSERT_OK(ul_buffer_destroy(r.dev, src));
  rig_close(&r);
}

static int refills;
static ul_status counting_refill(ul_device *d, ul_buffer b, void *user) {
  uint32_t v[4] = {(uint32_t)(uintptr_t)user, 1, 2, 3};
  refills++;
  return ul_buffer_write(d, b, 0, v, sizeof v);
}

/* More CALLBACK buffers than any fixed table: all refilled after a loss. */
static void test_many_callback_buffers(void) {
  rig r;
  ASSERT_OK(rig_open(&r));
  enum { K = 100 };
  static ul_buffer bufs[K];
  for (uintptr_t i = 0; i < K; i++) {
    ASSERT_OK(ul_buffer_create(r.dev, &(ul_buffer_desc){.size = 16, .restore = UL_RESTORE_CALLBACK,
        .restore_fn = counting_refill, .restore_user = (void *)i}, &bufs[i]));
    ASSERT_OK(counting_refill(r.dev, bufs[i], (void *)i));
  }
  refills = 0;
  ASSERT_OK(ul_device_force_loss(r.dev, "test"));
  uint32_t got[4];
  ASSERT_OK(ul_buffer_read(r.dev, bufs[K - 1], 0, got, sizeof got, 0));
  ASSERT_EQ(refills, K);
  for (uintptr_t i = 0; i < K; i++) {
    ASSERT_OK(ul_buffer_read(r.dev, bufs[i], 0, got, sizeof got, 0));
    ASSERT_EQ(got[0], i);
  }
  for (int i = 0; i < K; i++) ASSERT_OK(ul_buffer_destroy(r.dev, bufs[i]));
  rig_close(&r);
}

/* Objects outlive what they were built from: a pipeline whose shader was
 * destroyed, a bind group whose auto-layout pipeline was destroyed, a bind
 * group whose buffer was destroyed and checkpointed away all come back
 * after a loss; the program's handles to the destroyed ones stay stale. */
static void test_dependents_keep_their_parents(void) {
  rig r;
  ASSERT_OK(rig_open(&r));
  uint32_t init[64], got[64];
  for (uint32_t i = 0; i < 64; i++) init[i] = i * 7u;
  ul_buffer src, dst, gone;
  ul_shader sh, sh2;
  ul_compute_pipeline pipe, pipe2;
  ul_bind_group bg, bg2, bg3;
  ul_cmd *c;
  ASSERT_OK(ul_buffer_create(r.dev, &(ul_buffer_desc){.label = "src", .size = sizeof init, .initial_data = init}, &src));
  ASSERT_OK(ul_buffer_create(r.dev, &(ul_buffer_desc){.label = "dst", .size = sizeof init}, &dst));
  ASSERT_OK(ul_buffer_create(r.dev, &(ul_buffer_desc){.label = "gone", .size = sizeof init}, &gone));
  ASSERT_OK(ul_shader_create(r.dev, &(ul_shader_desc){.wgsl = copy_wgsl}, &sh));
  ASSERT_OK(ul_shader_create(r.dev, &(ul_shader_desc){.wgsl = copy_wgsl}, &sh2));
  ASSERT_OK(ul_compute_pipeline_create(r.dev, &(ul_compute_pipeline_desc){.shader = sh}, &pipe));
  ASSERT_OK(ul_compute_pipeline_create(r.dev, &(ul_compute_pipeline_desc){.shader = sh2}, &pipe2));
  ASSERT_OK(ul_bind_group_create(r.dev, &(ul_bind_group_desc){.pipeline = pipe, .entry_count = 2,
      .entries = {{.binding = 0, .buffer = src}, {.binding = 1, .buffer = dst}}}, &bg));
  ASSERT_OK(ul_bind_group_create(r.dev, &(ul_bind_group_desc){.pipeline = pipe2, .entry_count = 2,
      .entries = {{.binding = 0, .buffer = src}, {.binding = 1, .buffer = dst}}}, &bg2));
  ASSERT_OK(ul_bind_group_create(r.dev, &(ul_bind_group_desc){.pipeline = pipe, .entry_count = 2,
      .entries = {{.binding = 0, .buffer = src}, {.binding = 1, .buffer = gone}}}, &bg3));
  /* Destroyed while what was built from them lives. */
  ASSERT_OK(ul_shader_destroy(r.dev, sh));
  ASSERT_OK(ul_shader_destroy(r.dev, sh2));
  ASSERT_OK(ul_compute_pipeline_destroy(r.dev, pipe2));
  ASSERT_OK(ul_buffer_destroy(r.dev, gone));
  ASSERT_STATUS(ul_shader_destroy(r.dev, sh), UL_ERR_INVALID_HANDLE);
  ASSERT_OK(ul_cmd_create(r.dev, "copy", &c));
  ASSERT_OK(ul_cmd_dispatch(c, pipe, &bg, 1, 1, 1, 1));
  ASSERT_OK(ul_device_checkpoint(r.dev)); /* the log no longer names them */
  ASSERT_OK(ul_device_force_loss(r.dev, "test"));
  ASSERT_OK(ul_cmd_submit(r.dev, c, NULL));
  ASSERT_EQ(ul_device_get_state(r.dev), UL_DEVICE_READY);
  ASSERT_OK(ul_buffer_read(r.dev, dst, 0, got, sizeof got, 0));
  for (uint32_t i = 0; i < 64; i++) ASSERT_EQ(got[i], i * 7u + 1u);
  ul_memory_stats st;
  ASSERT_OK(ul_device_memory_stats(r.dev, &st));
  ASSERT_EQ(st.live_objects, 7); /* src, dst, pipe, bg, bg2, bg3 and the command list */
  ul_cmd_destroy(c);
  ASSERT_OK(ul_bind_group_destroy(r.dev, bg3));
  ASSERT_OK(ul_bind_group_destroy(r.dev, bg2));
  ASSERT_OK(ul_bind_group_destroy(r.dev, bg));
  ASSERT_OK(ul_compute_pipeline_destroy(r.dev, pipe));
  ASSERT_OK(ul_buffer_destroy(r.dev, dst));
  ASSERT_OK(ul_buffer_destroy(r.dev, src));
  rig_close(&r);
}

/* LOG textures come back: host writes from the log, GPU writes of every
 * mip level from the checkpoint (read back through a copy), layers
 * included. */
static void test_log_textures_restore(void) {
  rig r;
  ASSERT_OK(rig_open(&r));
  ul_texture t;
  ASSERT_OK(ul_texture_create(r.dev, &(ul_texture_desc){.label = "atlas", .width = 16, .height = 16, .depth = 2,
      .format = UL_FORMAT_R32_UINT}, &t));
  static uint32_t a[16 * 16 * 2], b[4 * 4], got[16 * 16 * 2];
  memset(a, 0x5a, sizeof a);
  for (uint32_t i = 0; i < 16; i++) b[i] = i + 100;
  ASSERT_OK(ul_texture_write(r.dev, t, 0, 0, 0, 16, 16, 2, a, sizeof a, 0));
  ASSERT_OK(ul_device_checkpoint(r.dev));
  ASSERT_OK(ul_texture_write(r.dev, t, 4, 4, 1, 4, 4, 1, b, sizeof b, 0));
  for (uint32_t y = 0; y < 4; y++) memcpy(&a[16 * 16 + (4 + y) * 16 + 4], &b[y * 4], 16);
  ASSERT_OK(ul_device_force_loss(r.dev, "test"));
  ASSERT_OK(ul_texture_read(r.dev, t, 0, 0, 0, 16, 16, 2, got, sizeof got, 0));
  ASSERT_EQ(memcmp(got, a, sizeof a), 0);
  ASSERT_OK(ul_texture_destroy(r.dev, t));
  /* SHADOW: level 0 from the host copy. */
  ASSERT_OK(ul_texture_create(r.dev, &(ul_texture_desc){.label = "shadowed", .width = 16, .height = 16, .depth = 2,
      .format = UL_FORMAT_R32_UINT, .restore = UL_RESTORE_SHADOW}, &t));
  ASSERT_OK(ul_texture_write(r.dev, t, 0, 0, 0, 16, 16, 2, a, sizeof a, 0));
  ASSERT_OK(ul_device_checkpoint(r.dev));
  ASSERT_OK(ul_device_force_loss(r.dev, "test"));
  memset(got, 0, sizeof got);
  ASSERT_OK(ul_texture_read(r.dev, t, 0, 0, 0, 16, 16, 2, got, sizeof got, 0));
  ASSERT_EQ(memcmp(got, a, sizeof a), 0);
  ASSERT_OK(ul_texture_destroy(r.dev, t));
  rig_close(&r);
}

static const char *store_wgsl =
    "@group(0) @binding(0) var st: texture_storage_2d<r32uint, write>;\n"
    "@compute @workgroup_size(8, 8)\n"
    "fn main(@builtin(global_invocation_id) id: vec3u) {\n"
    "  textureStore(st, vec2i(id.xy), vec4u(id.x + id.y * 8u + 1000u, 0u, 0u, 0u));\n"
    "}\n";
static const char *load_wgsl =
    "@group(0) @binding(0) var tx: texture_2d<u32>;\n"
    "@group(0) @binding(1) var<storage, read_write> out: array<u32>;\n"
    "@compute @workgroup_size(8, 8)\n"
    "fn main(@builtin(global_invocation_id) id: vec3u) {\n"
    "  out[id.x + id.y * 8u] = textureLoad(tx, vec2i(id.xy), 0).x;\n"
    "}\n";

static void test_storage_texture_mip_restores(void) {
  rig r;
  ASSERT_OK(rig_open(&r));
  ul_texture t;
  ul_texture_view sv, rv;
  ul_shader s1, s2;
  ul_compute_pipeline p1, p2;
  ul_bind_group g1, g2;
  ul_buffer out;
  ul_cmd *store, *load;
  ASSERT_OK(ul_texture_create(r.dev, &(ul_texture_desc){.label = "mips", .width = 16, .height = 16,
      .format = UL_FORMAT_R32_UINT, .mip_levels = 2}, &t));
  ASSERT_OK(ul_texture_view_create(r.dev, &(ul_texture_view_desc){.texture = t, .base_mip = 1, .mip_count = 1}, &sv));
  ASSERT_OK(ul_texture_view_create(r.dev, &(ul_texture_view_desc){.texture = t, .base_mip = 1, .mip_count = 1}, &rv));
  ASSERT_OK(ul_buffer_create(r.dev, &(ul_buffer_desc){.label = "out", .size = 64 * 4, .restore = UL_RESTORE_NONE}, &out));
  ASSERT_OK(ul_shader_create(r.dev, &(ul_shader_desc){.wgsl = store_wgsl}, &s1));
  ASSERT_OK(ul_shader_create(r.dev, &(ul_shader_desc){.wgsl = load_wgsl}, &s2));
  ASSERT_OK(ul_compute_pipeline_create(r.dev, &(ul_compute_pipeline_desc){.shader = s1}, &p1));
  ASSERT_OK(ul_compute_pipeline_create(r.dev, &(ul_compute_pipeline_desc){.shader = s2}, &p2));
  ASSERT_OK(ul_bind_group_create(r.dev, &(ul_bind_group_desc){.pipeline = p1, .entry_count = 1,
      .entries = {{.binding = 0, .view = sv}}}, &g1));
  ASSERT_OK(ul_bind_group_create(r.dev, &(ul_bind_group_desc){.pipeline = p2, .entry_count = 2,
      .entries = {{.binding = 0, .view = rv}, {.binding = 1, .buffer = out}}}, &g2));
  ASSERT_OK(ul_cmd_create(r.dev, "store", &store));
  ASSERT_OK(ul_cmd_dispatch(store, p1, &g1, 1, 1, 1, 1));
  ASSERT_OK(ul_cmd_create(r.dev, "load", &load));
  ASSERT_OK(ul_cmd_dispatch(load, p2, &g2, 1, 1, 1, 1));
  ASSERT_OK(ul_cmd_submit(r.dev, store, NULL));
  ASSERT_OK(ul_device_checkpoint(r.dev)); /* level 1 lives only in the checkpoint now */
  ASSERT_OK(ul_device_force_loss(r.dev, "test"));
  ASSERT_OK(ul_cmd_submit(r.dev, load, NULL));
  uint32_t got[64];
  ASSERT_OK(ul_buffer_read(r.dev, out, 0, got, sizeof got, 0));
  for (uint32_t i = 0; i < 64; i++) ASSERT_EQ(got[i], (i % 8) + (i / 8) * 8u + 1000u);
  ul_cmd_destroy(load);
  ul_cmd_destroy(store);
  ASSERT_OK(ul_bind_group_destroy(r.dev, g2));
  ASSERT_OK(ul_bind_group_destroy(r.dev, g1));
  ASSERT_OK(ul_compute_pipeline_destroy(r.dev, p2));
  ASSERT_OK(ul_compute_pipeline_destroy(r.dev, p1));
  ASSERT_OK(ul_shader_destroy(r.dev, s2));
  ASSERT_OK(ul_shader_destroy(r.dev, s1));
  ASSERT_OK(ul_buffer_destroy(r.dev, out));
  ASSERT_OK(ul_texture_view_destroy(r.dev, rv));
  ASSERT_OK(ul_texture_view_destroy(r.dev, sv));
  ASSERT_OK(ul_texture_destroy(r.dev, t));
  rig_close(&r);
}

int main(void) {
  ul_test_watchdog(300);
  RUN_TEST(test_shadow_map_write_restores);
  RUN_TEST(test_mapping_survives_a_loss);
  RUN_TEST(test_mapping_writes_keep_their_place);
  RUN_TEST(test_map_read_survives_a_checkpoint);
  RUN_TEST(test_source_file_changed_loses_only_its_buffer);
  RUN_TEST(test_source_rewrite_keeping_size_and_time_is_caught);
  RUN_TEST(test_lost_objects_are_refused);
  RUN_TEST(test_many_callback_buffers);
  RUN_TEST(test_dependents_keep_their_parents);
  RUN_TEST(test_log_textures_restore);
  RUN_TEST(test_storage_texture_mip_restores);
  TEST_MAIN_END();
}
