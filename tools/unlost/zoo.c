/* The "zoo" workload: every object kind and restore policy the API accepts
 * in one program, so that a fault anywhere in it tests the recovery of
 * each. Integer arithmetic and exact texel values only, so a replayed run
 * is bit-identical to a clean one; zoo_expected computes the same on the
 * CPU from the shaders' text, without unlost.
 *
 * What it holds:
 *   buffers   SOURCE from memory and from a file, LOG, NONE (scratch
 *             rewritten in the submission that reads it), SHADOW, CALLBACK,
 *             INDIRECT (written by a kernel, read by an indirect dispatch),
 *             MAP_READ (mapped after the copy that fills it), MAP_WRITE +
 *             SHADOW (mapped whole and by sub-range), a ring of uniforms, a
 *             pool's buffers
 *   textures  LOG with 2 layers and 2 mip levels (level 0 from host writes
 *             and buffer copies, level 1 from storage writes of a kernel),
 *             NONE (filled by a copy, read back by a copy and by a read),
 *             SHADOW RGBA8 read through a sampler
 *   others    views of a level and of a layer, a sampler, override
 *             constants, an explicit bind group layout and pipeline layout
 *             destroyed after their pipeline and bind group were made, a
 *             shader destroyed after its pipelines, an auto-layout pipeline
 *             destroyed after its bind group, two checkpoints, asynchronous
 *             reads */
#include "workload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N 256      /* u32 elements per buffer; 16 x 16 texels */
#define W 16       /* texture width and height */
#define STEPS 8
#define ROW_WORDS 64 /* 256-byte rows for buffer <-> texture copies */
#define FILE_OFFSET 64

static const char *compute_wgsl =
    "struct P { step: u32, scale: u32, pad0: u32, pad1: u32 }\n"
    "@group(0) @binding(0) var<storage, read> wmem: array<u32>;\n"
    "@group(0) @binding(1) var<storage, read> wfile: array<u32>;\n"
    "@group(0) @binding(2) var<uniform> p: P;\n"
    "@group(0) @binding(3) var<storage, read_write> state: array<u32>;\n"
    "@group(0) @binding(4) var<storage, read> cache: array<u32>;\n"
    "@group(0) @binding(5) var<storage, read_write> scratch: array<u32>;\n"
    "@group(0) @binding(6) var<storage, read> shp: array<u32>;\n"
    "@group(0) @binding(7) var<storage, read_write> args: array<u32>;\n"
    "@compute @workgroup_size(64)\n"
    "fn mix(@builtin(global_invocation_id) id: vec3u) {\n"
    "  let i = id.x;\n"
    "  if (i >= 256u) { return; }\n"
    "  let s = (wmem[i] ^ wfile[(i + p.step) % 256u]) + cache[i] * p.scale + shp[i % 16u];\n"
    "  scratch[i] = s;\n"
    "  state[i] = state[i] * 3u + s + p.step;\n"
    "  if (i == 0u) { args[0] = 1u + p.step % 4u; args[1] = 1u; args[2] = 1u; }\n"
    "}\n"
    "@group(0) @binding(0) var<storage, read> tstate: array<u32>;\n"
    "@group(0) @binding(1) var<storage, read> tscratch: array<u32>;\n"
    "@group(0) @binding(2) var<storage, read> upd: array<u32>;\n"
    "@group(0) @binding(3) var<storage, read_write> acc: array<u32>;\n"
    "@compute @workgroup_size(64)\n"
    "fn tail(@builtin(global_invocation_id) id: vec3u) {\n"
    "  let i = id.x;\n"
    "  if (i >= 256u) { return; }\n"
    "  acc[i] = acc[i] + (tstate[i] ^ tscratch[i]) + upd[i];\n"
    "}\n"
    "@group(0) @binding(0) var<storage, read> pstate: array<u32>;\n"
    "@group(0) @binding(1) var<storage, read_write> rows: array<u32>;\n"
    "@compute @workgroup_size(16, 16)\n"
    "fn pack(@builtin(global_invocation_id) id: vec3u) {\n"
    "  rows[id.y * 64u + id.x] = pstate[id.y * 16u + id.x] + 4096u;\n"
    "}\n";

static const char *texture_wgsl =
    "override layer: u32 = 0u;\n"
    "@group(0) @binding(0) var<storage, read> dstate: array<u32>;\n"
    "@group(0) @binding(1) var<storage, read> dshp: array<u32>;\n"
    "@group(0) @binding(2) var level1: texture_storage_2d<r32uint, write>;\n"
    "@compute @workgroup_size(8, 8)\n"
    "fn down(@builtin(global_invocation_id) id: vec3u) {\n"
    "  let v = dstate[(id.y * 8u + id.x) * 2u + layer] * (layer + 1u) + dshp[0];\n"
    "  textureStore(level1, vec2u(id.xy), vec4u(v, 0u, 0u, 0u));\n"
    "}\n"
    "@group(0) @binding(0) var tin: texture_2d_array<u32>;\n"
    "@group(0) @binding(1) var<storage, read_write> gbuf: array<u32>;\n"
    "@compute @workgroup_size(64)\n"
    "fn gather(@builtin(global_invocation_id) id: vec3u) {\n"
    "  let i = id.x;\n"
    "  if (i >= 256u) { return; }\n"
    "  let c = vec2u(i % 16u, i / 16u);\n"
    "  let v = textureLoad(tin, c, 0u, 0u).x + textureLoad(tin, c, 1u, 0u).x * 3u +\n"
    "          textureLoad(tin, c / 2u, i % 2u, 1u).x * 5u;\n"
    "  gbuf[i] = gbuf[i] * 7u + v;\n"
    "}\n"
    "@group(0) @binding(0) var tsh: texture_2d<f32>;\n"
    "@group(0) @binding(1) var smp: sampler;\n"
    "@group(0) @binding(2) var<storage, read_write> sbuf: array<u32>;\n"
    "@compute @workgroup_size(64)\n"
    "fn sample(@builtin(global_invocation_id) id: vec3u) {\n"
    "  let i = id.x;\n"
    "  if (i >= 256u) { return; }\n"
    "  let uv = (vec2f(f32(i % 16u), f32(i / 16u)) + 0.5) / 16.0;\n"
    "  let c = vec4u(round(textureSampleLevel(tsh, smp, uv, 0.0) * 255.0));\n"
    "  sbuf[i] = sbuf[i] * 3u + (c.x | (c.y << 8u) | (c.z << 16u) | (c.w << 24u));\n"
    "}\n";

/* ---- the program's data, shared by the workload and its CPU reference ---- */
static uint32_t wmem_at(uint32_t i) { return i * 2246822519u + 3u; }
static uint32_t wfile_at(uint32_t i) { return (i * 3266489917u) ^ 0x5bd1e995u; }
static uint32_t cache_at(uint32_t i) { return (i * 2654435761u) ^ 0xdeadbeefu; }
static uint32_t shp_at(uint32_t step, uint32_t k) { return step * 31u + k * 7u; }
static uint32_t scale_of(uint32_t step) { return 2u + step % 3u; }
/* MAP_WRITE buffer: i*5 at creation; step 2 maps it whole, step 6 maps
 * words 64..127 only. */
static bool up_written(uint32_t step, uint32_t i) { return step == 2 || (step == 6 && i >= 64 && i < 128); }
static uint32_t up_value(uint32_t step, uint32_t i) { return i * step + 11u; }
/* LOG texture, layer 1 of level 0: written at creation; rows 0..7 again at step 3. */
static uint32_t tin1_at(uint32_t step, uint32_t x, uint32_t y) {
  return step >= 3 && y < 8 ? x * y + 1000u : (x + 16u * y) * 13u + 7u;
}
/* SHADOW RGBA8 texture: written at creation; row 3 again at step 5. */
static void tsh_texel(uint32_t step, uint32_t x, uint32_t y, uint8_t c[4]) {
  if (step >= 5 && y == 3) {
    c[0] = c[1] = c[2] = c[3] = (uint8_t)(x * 11u + 5u);
    return;
  }
  c[0] = (uint8_t)(x * 16u + y);
  c[1] = (uint8_t)(x * 3u + y * 5u);
  c[2] = (uint8_t)((x ^ y) * 7u);
  c[3] = (uint8_t)(255u - x);
}
static bool async_after(uint32_t step) { return step == 3 || step == 7; }
#define ASYNC_WORDS 64
#define ASYNC_READS 2

typedef struct out_buf {
  uint8_t *p;
  size_t n, cap;
  bool overflow;
} out_buf;

static void put(out_buf *o, const void *data, size_t size) {
  if (o->n + size > o->cap) {
    o->overflow = true;
    return;
  }
  memcpy(o->p + o->n, data, size);
  o->n += size;
}

/* The same program on the CPU. */
static size_t zoo_expected(uint8_t *dst, size_t cap) {
  static uint32_t state[N], scratch[N], acc[N], upd[N], up[N], rows[W * ROW_WORDS], tnback[W * ROW_WORDS];
  static uint32_t tin0[2][W][W], tin1[2][W / 2][W / 2], gbuf[N], sbuf[N], tmp[N];
  out_buf o = {dst, 0, cap, false};
  memset(scratch, 0, sizeof scratch);
  memset(acc, 0, sizeof acc);
  memset(rows, 0, sizeof rows);
  memset(tnback, 0, sizeof tnback);
  memset(tin1, 0, sizeof tin1);
  memset(gbuf, 0, sizeof gbuf);
  memset(sbuf, 0, sizeof sbuf);
  for (uint32_t i = 0; i < N; i++) {
    state[i] = i + 1u;
    up[i] = i * 5u;
  }
  uint32_t reads[ASYNC_READS][ASYNC_WORDS];
  int nreads = 0;
  for (uint32_t step = 1; step <= STEPS; step++) {
    uint32_t args0 = 0;
    for (uint32_t i = 0; i < N; i++)
      if (up_written(step, i)) up[i] = up_value(step, i);
    memcpy(upd, up, sizeof upd);
    for (uint32_t i = 0; i < N; i++) {
      uint32_t s = (wmem_at(i) ^ wfile_at((i + step) % N)) + cache_at(i) * scale_of(step) + shp_at(step, i % 16);
      scratch[i] = s;
      state[i] = state[i] * 3u + s + step;
    }
    args0 = 1u + step % 4u;
    for (uint32_t i = 0; i < N && i < 64u * args0; i++) acc[i] += (state[i] ^ scratch[i]) + upd[i];
    for (uint32_t y = 0; y < W; y++)
      for (uint32_t x = 0; x < W; x++) rows[y * ROW_WORDS + x] = state[y * W + x] + 4096u;
    for (uint32_t y = 0; y < W; y++)
      for (uint32_t x = 0; x < W; x++) {
        tin0[0][y][x] = rows[y * ROW_WORDS + x];
        tin0[1][y][x] = tin1_at(step, x, y);
        tnback[y * ROW_WORDS + x] = rows[y * ROW_WORDS + x]; /* through the NONE texture */
      }
    for (uint32_t l = 0; l < 2; l++)
      for (uint32_t y = 0; y < W / 2; y++)
        for (uint32_t x = 0; x < W / 2; x++)
          tin1[l][y][x] = state[(y * 8u + x) * 2u + l] * (l + 1u) + shp_at(step, 0);
    for (uint32_t i = 0; i < N; i++) {
      uint32_t x = i % W, y = i / W;
      gbuf[i] = gbuf[i] * 7u + tin0[0][y][x] + tin0[1][y][x] * 3u + tin1[i % 2][y / 2][x / 2] * 5u;
      uint8_t c[4];
      tsh_texel(step, x, y, c);
      uint32_t packed = (uint32_t)c[0] | (uint32_t)c[1] << 8 | (uint32_t)c[2] << 16 | (uint32_t)c[3] << 24;
      sbuf[i] = sbuf[i] * 3u + packed;
    }
    put(&o, state, 16 * 4); /* the MAP_READ copy */
    if (step % 2 == 0) {
      put(&o, rows, W * 4); /* the NONE texture, rows 0 and 1 */
      put(&o, rows + ROW_WORDS, W * 4);
      put(&o, scratch, 16 * 4);
    }
    if (async_after(step)) memcpy(reads[nreads++], acc, sizeof reads[0]);
    if (step == 5) {
      memset(tmp, 0, sizeof tmp);
      memcpy(tmp, state, 512);
      put(&o, tmp, sizeof tmp);
    }
  }
  put(&o, reads, sizeof reads);
  put(&o, state, sizeof state);
  put(&o, acc, sizeof acc);
  put(&o, gbuf, sizeof gbuf);
  put(&o, sbuf, sizeof sbuf);
  put(&o, tnback, N * 4);
  put(&o, upd, sizeof upd);
  put(&o, tin0, sizeof tin0);
  for (uint32_t y = 0; y < W; y++)
    for (uint32_t x = 0; x < W; x++) {
      uint8_t c[4];
      tsh_texel(STEPS, x, y, c);
      put(&o, c, 4);
    }
  return o.overflow ? 0 : o.n;
}

/* ---- the workload on unlost ---- */
static ul_status refill_cache(ul_device *dev, ul_buffer buf, void *user) {
  (void)user;
  uint32_t v[N];
  for (uint32_t i = 0; i < N; i++) v[i] = cache_at(i);
  return ul_buffer_write(dev, buf, 0, v, sizeof v);
}

typedef struct zoo_sink {
  uint32_t data[ASYNC_READS][ASYNC_WORDS];
  int delivered;
  int order[ASYNC_READS];
  ul_status status;
} zoo_sink;

static void on_async(ul_device *dev, ul_status status, void *dst, void *user) {
  (void)dev;
  zoo_sink *k = user;
  if (status && !k->status) k->status = status;
  if (k->delivered < ASYNC_READS) k->order[k->delivered++] = (int)(((uint32_t(*)[ASYNC_WORDS])dst) - k->data);
}

/* The weights file: wfile_at after FILE_OFFSET bytes of padding. */
static ul_status write_weights_file(char *path, size_t cap) {
  const char *dir = getenv("TMPDIR");
  snprintf(path, cap, "%s/unlost-zoo-XXXXXX", dir && *dir ? dir : "/tmp");
  int fd = mkstemp(path);
  if (fd < 0) return UL_ERR_IO;
  uint8_t pad[FILE_OFFSET];
  memset(pad, 0x77, sizeof pad);
  uint32_t v[N];
  for (uint32_t i = 0; i < N; i++) v[i] = wfile_at(i);
  bool ok = write(fd, pad, sizeof pad) == (ssize_t)sizeof pad && write(fd, v, sizeof v) == (ssize_t)sizeof v;
  close(fd);
  if (!ok) {
    unlink(path);
    return UL_ERR_IO;
  }
  return UL_OK;
}

#define TRY(call)                                                                   \
  do {                                                                              \
    if ((s = (call)) != UL_OK) goto done;                                           \
  } while (0)

/* Writes through a mapping of `up` the words that step `step` changes. */
static ul_status map_upload(ul_device *dev, ul_buffer up, uint32_t step) {
  uint64_t first = step == 2 ? 0 : 64, count = step == 2 ? N : 64;
  uint32_t *p;
  ul_status s = ul_buffer_map(dev, up, UL_MAP_WRITE, first * 4, count * 4, 0, (void **)&p);
  if (s) return s;
  for (uint64_t k = 0; k < count; k++) p[k] = up_value(step, (uint32_t)(first + k));
  return ul_buffer_unmap(dev, up);
}

ul_status workload_zoo(ul_device *dev, workload_result *out) {
  static uint32_t wmem[N];
  uint32_t init[N];
  ul_status s = UL_OK;
  char path[512] = "";
  ul_buffer wm = {0}, wf = {0}, state = {0}, cache = {0}, scratch = {0}, shp = {0}, args = {0}, upd = {0},
            up = {0}, rows = {0}, tnback = {0}, gbuf = {0}, sbuf = {0}, rb = {0}, acc = {0}, tmp = {0},
            ringbuf = {0};
  ul_texture tin = {0}, tnone = {0}, tsh = {0};
  ul_texture_view v_tin = {0}, v_l1[2] = {{0}}, v_tsh = {0}, v_probe = {0};
  ul_sampler smp = {0};
  ul_shader s_comp = {0}, s_tex = {0};
  ul_bind_group_layout bgl = {0};
  ul_pipeline_layout pl = {0};
  ul_compute_pipeline p_mix = {0}, p_tail = {0}, p_pack = {0}, p_down[2] = {{0}}, p_gather = {0},
                      p_sample = {0}, p_probe = {0};
  ul_bind_group b_mix[4] = {{0}}, b_tail = {0}, b_pack = {0}, b_down[2] = {{0}}, b_gather = {0},
                b_sample = {0}, b_probe = {0};
  ul_buffer_pool *pool = NULL;
  ul_ring *ring = NULL;
  ul_cmd *cmd = NULL, *cmd_tmp = NULL;
  static zoo_sink sink;
  int nasync = 0;
  memset(&sink, 0, sizeof sink);
  memset(out, 0, sizeof *out);
  out->expected_size = zoo_expected(out->expected, sizeof out->expected);
  out_buf o = {out->output, 0, sizeof out->output, false};
  for (uint32_t i = 0; i < N; i++) wmem[i] = wmem_at(i);

  TRY(write_weights_file(path, sizeof path));
  /* Buffers, one per policy. */
  TRY(ul_buffer_create(dev, &(ul_buffer_desc){.label = "wmem", .size = N * 4, .restore = UL_RESTORE_SOURCE,
      .source_data = wmem, .usage = UL_BUFFER_STORAGE}, &wm));
  TRY(ul_buffer_create(dev, &(ul_buffer_desc){.label = "wfile", .size = N * 4, .restore = UL_RESTORE_SOURCE,
      .source_path = path, .source_offset = FILE_OFFSET, .usage = UL_BUFFER_STORAGE}, &wf));
  for (uint32_t i = 0; i < N; i++) init[i] = i + 1u;
  TRY(ul_buffer_create(dev, &(ul_buffer_desc){.label = "state", .size = N * 4, .initial_data = init}, &state));
  TRY(ul_buffer_create(dev, &(ul_buffer_desc){.label = "cache", .size = N * 4, .restore = UL_RESTORE_CALLBACK,
      .restore_fn = refill_cache}, &cache));
  TRY(refill_cache(dev, cache, NULL));
  TRY(ul_buffer_create(dev, &(ul_buffer_desc){.label = "scratch", .size = N * 4, .restore = UL_RESTORE_NONE}, &scratch));
  TRY(ul_buffer_create(dev, &(ul_buffer_desc){.label = "shp", .size = 64, .restore = UL_RESTORE_SHADOW}, &shp));
  uint32_t args0[4] = {1, 1, 1, 0};
  TRY(ul_buffer_create(dev, &(ul_buffer_desc){.label = "args", .size = 16,
      .usage = UL_BUFFER_STORAGE | UL_BUFFER_INDIRECT, .initial_data = args0}, &args));
  TRY(ul_buffer_create(dev, &(ul_buffer_desc){.label = "upd", .size = N * 4}, &upd));
  for (uint32_t i = 0; i < N; i++) init[i] = i * 5u;
  TRY(ul_buffer_create(dev, &(ul_buffer_desc){.label = "up", .size = N * 4, .restore = UL_RESTORE_SHADOW,
      .usage = UL_BUFFER_MAP_WRITE | UL_BUFFER_COPY_SRC, .initial_data = init}, &up));
  TRY(ul_buffer_create(dev, &(ul_buffer_desc){.label = "rows", .size = W * ROW_WORDS * 4}, &rows));
  TRY(ul_buffer_create(dev, &(ul_buffer_desc){.label = "tnback", .size = W * ROW_WORDS * 4}, &tnback));
  TRY(ul_buffer_create(dev, &(ul_buffer_desc){.label = "gbuf", .size = N * 4}, &gbuf));
  TRY(ul_buffer_create(dev, &(ul_buffer_desc){.label = "sbuf", .size = N * 4}, &sbuf));
  TRY(ul_buffer_create(dev, &(ul_buffer_desc){.label = "readback", .size = N * 4,
      .usage = UL_BUFFER_MAP_READ | UL_BUFFER_COPY_DST}, &rb));
  TRY(ul_buffer_pool_create(dev, &(ul_buffer_pool_desc){.label = "zoo-pool"}, &pool));
  TRY(ul_buffer_pool_acquire(pool, N * 4, &acc));
  memset(init, 0, sizeof init);
  TRY(ul_buffer_write(dev, acc, 0, init, N * 4)); /* a pool's buffer holds anything */
  TRY(ul_ring_create(dev, &(ul_ring_desc){.label = "zoo-ring", .size = 4 * 256}, &ring));

  /* Textures, one per policy. */
  TRY(ul_texture_create(dev, &(ul_texture_desc){.label = "tin", .width = W, .height = W, .depth = 2,
      .format = UL_FORMAT_R32_UINT, .mip_levels = 2}, &tin));
  TRY(ul_texture_create(dev, &(ul_texture_desc){.label = "tnone", .width = W, .height = W,
      .format = UL_FORMAT_R32_UINT, .restore = UL_RESTORE_NONE}, &tnone));
  TRY(ul_texture_create(dev, &(ul_texture_desc){.label = "tsh", .width = W, .height = W,
      .format = UL_FORMAT_RGBA8_UNORM, .restore = UL_RESTORE_SHADOW,
      .usage = UL_TEXTURE_SAMPLED | UL_TEXTURE_COPY_DST}, &tsh));
  {
    uint32_t t1[W * W];
    uint8_t c[W * W * 4];
    for (uint32_t y = 0; y < W; y++)
      for (uint32_t x = 0; x < W; x++) {
        t1[y * W + x] = tin1_at(0, x, y);
        tsh_texel(0, x, y, c + (y * W + x) * 4);
      }
    TRY(ul_texture_write(dev, tin, 0, 0, 1, W, W, 1, t1, sizeof t1, 0));
    TRY(ul_texture_write(dev, tsh, 0, 0, 0, W, W, 1, c, sizeof c, 0));
  }
  TRY(ul_texture_view_create(dev, &(ul_texture_view_desc){.label = "tin-level0", .texture = tin, .mip_count = 0},
      &v_tin));
  for (uint32_t l = 0; l < 2; l++)
    TRY(ul_texture_view_create(dev, &(ul_texture_view_desc){.label = "tin-level1", .texture = tin, .base_mip = 1,
        .mip_count = 1, .base_layer = l, .layer_count = 1}, &v_l1[l]));
  TRY(ul_texture_view_create(dev, &(ul_texture_view_desc){.label = "tsh", .texture = tsh}, &v_tsh));
  TRY(ul_texture_view_create(dev, &(ul_texture_view_desc){.label = "probe", .texture = tsh}, &v_probe));
  TRY(ul_sampler_create(dev, &(ul_sampler_desc){.label = "nearest"}, &smp));

  /* Pipelines. The compute shader goes once its pipelines are made. */
  TRY(ul_shader_create(dev, &(ul_shader_desc){.label = "zoo-compute", .wgsl = compute_wgsl}, &s_comp));
  TRY(ul_compute_pipeline_create(dev, &(ul_compute_pipeline_desc){.label = "mix", .shader = s_comp, .entry = "mix"},
      &p_mix));
  TRY(ul_compute_pipeline_create(dev, &(ul_compute_pipeline_desc){.label = "tail", .shader = s_comp,
      .entry = "tail"}, &p_tail));
  TRY(ul_compute_pipeline_create(dev, &(ul_compute_pipeline_desc){.label = "pack", .shader = s_comp,
      .entry = "pack"}, &p_pack));
  TRY(ul_shader_destroy(dev, s_comp));
  s_comp = (ul_shader){0};
  TRY(ul_shader_create(dev, &(ul_shader_desc){.label = "zoo-texture", .wgsl = texture_wgsl}, &s_tex));
  for (uint32_t l = 0; l < 2; l++)
    TRY(ul_compute_pipeline_create(dev, &(ul_compute_pipeline_desc){.label = "down", .shader = s_tex,
        .entry = "down", .constant_count = 1, .constants = {{"layer", (double)l}}}, &p_down[l]));
  TRY(ul_compute_pipeline_create(dev, &(ul_compute_pipeline_desc){.label = "gather", .shader = s_tex,
      .entry = "gather"}, &p_gather));
  /* An explicit layout, destroyed once its pipeline and bind group exist. */
  TRY(ul_bind_group_layout_create(dev, &(ul_bind_group_layout_desc){.label = "sample", .entry_count = 3,
      .entries = {{.binding = 0, .type = UL_BINDING_TEXTURE}, {.binding = 1, .type = UL_BINDING_SAMPLER},
                  {.binding = 2, .type = UL_BINDING_STORAGE}}}, &bgl));
  TRY(ul_pipeline_layout_create(dev, &(ul_pipeline_layout_desc){.label = "sample", .group_count = 1,
      .groups = {bgl}}, &pl));
  TRY(ul_compute_pipeline_create(dev, &(ul_compute_pipeline_desc){.label = "sample", .shader = s_tex,
      .entry = "sample", .layout = pl}, &p_sample));
  TRY(ul_bind_group_create(dev, &(ul_bind_group_desc){.label = "sample", .layout = bgl, .entry_count = 3,
      .entries = {{.binding = 0, .view = v_tsh}, {.binding = 1, .sampler = smp}, {.binding = 2, .buffer = sbuf}}},
      &b_sample));
  TRY(ul_pipeline_layout_destroy(dev, pl));
  pl = (ul_pipeline_layout){0};
  TRY(ul_bind_group_layout_destroy(dev, bgl));
  bgl = (ul_bind_group_layout){0};
  /* An auto-layout pipeline destroyed after its bind group, which lives on. */
  TRY(ul_compute_pipeline_create(dev, &(ul_compute_pipeline_desc){.label = "probe", .shader = s_tex,
      .entry = "sample"}, &p_probe));
  TRY(ul_bind_group_create(dev, &(ul_bind_group_desc){.label = "probe", .pipeline = p_probe, .entry_count = 3,
      .entries = {{.binding = 0, .view = v_probe}, {.binding = 1, .sampler = smp}, {.binding = 2, .buffer = sbuf}}},
      &b_probe));
  TRY(ul_compute_pipeline_destroy(dev, p_probe));
  p_probe = (ul_compute_pipeline){0};

  TRY(ul_bind_group_create(dev, &(ul_bind_group_desc){.label = "tail", .pipeline = p_tail, .entry_count = 4,
      .entries = {{.binding = 0, .buffer = state}, {.binding = 1, .buffer = scratch}, {.binding = 2, .buffer = upd},
                  {.binding = 3, .buffer = acc}}}, &b_tail));
  TRY(ul_bind_group_create(dev, &(ul_bind_group_desc){.label = "pack", .pipeline = p_pack, .entry_count = 2,
      .entries = {{.binding = 0, .buffer = state}, {.binding = 1, .buffer = rows}}}, &b_pack));
  for (uint32_t l = 0; l < 2; l++)
    TRY(ul_bind_group_create(dev, &(ul_bind_group_desc){.label = "down", .pipeline = p_down[l], .entry_count = 3,
        .entries = {{.binding = 0, .buffer = state}, {.binding = 1, .buffer = shp}, {.binding = 2, .view = v_l1[l]}}},
        &b_down[l]));
  TRY(ul_bind_group_create(dev, &(ul_bind_group_desc){.label = "gather", .pipeline = p_gather, .entry_count = 2,
      .entries = {{.binding = 0, .view = v_tin}, {.binding = 1, .buffer = gbuf}}}, &b_gather));
  TRY(ul_cmd_create(dev, "zoo-step", &cmd));
  TRY(ul_cmd_create(dev, "zoo-tmp", &cmd_tmp));

  for (uint32_t step = 1; step <= STEPS; step++) {
    uint32_t sh[16];
    for (uint32_t k = 0; k < 16; k++) sh[k] = shp_at(step, k);
    TRY(ul_buffer_write(dev, shp, 0, sh, sizeof sh));
    uint32_t pu[4] = {step, scale_of(step), 0, 0};
    uint64_t off;
    TRY(ul_ring_push(ring, pu, sizeof pu, &ringbuf, &off));
    uint32_t slot = (uint32_t)(off / 256);
    if (!b_mix[slot].id)
      TRY(ul_bind_group_create(dev, &(ul_bind_group_desc){.label = "mix", .pipeline = p_mix, .entry_count = 8,
          .entries = {{.binding = 0, .buffer = wm}, {.binding = 1, .buffer = wf},
                      {.binding = 2, .buffer = ringbuf, .offset = off, .size = 16}, {.binding = 3, .buffer = state},
                      {.binding = 4, .buffer = cache}, {.binding = 5, .buffer = scratch}, {.binding = 6, .buffer = shp},
                      {.binding = 7, .buffer = args}}}, &b_mix[slot]));
    if (step == 2 || step == 6) TRY(map_upload(dev, up, step));
    if (step == 3) {
      uint32_t t1[W * 8];
      for (uint32_t y = 0; y < 8; y++)
        for (uint32_t x = 0; x < W; x++) t1[y * W + x] = tin1_at(step, x, y);
      TRY(ul_texture_write(dev, tin, 0, 0, 1, W, 8, 1, t1, sizeof t1, 0));
    }
    if (step == 5) {
      uint8_t c[W * 4];
      for (uint32_t x = 0; x < W; x++) tsh_texel(step, x, 3, c + x * 4);
      TRY(ul_texture_write(dev, tsh, 0, 3, 0, W, 1, 1, c, sizeof c, 0));
    }
    ul_cmd_reset(cmd);
    TRY(ul_cmd_copy_buffer(cmd, up, 0, upd, 0, N * 4));
    TRY(ul_cmd_dispatch(cmd, p_mix, &b_mix[slot], 1, N / 64, 1, 1));
    TRY(ul_cmd_dispatch_indirect(cmd, p_tail, &b_tail, 1, args, 0));
    TRY(ul_cmd_dispatch(cmd, p_pack, &b_pack, 1, 1, 1, 1));
    TRY(ul_cmd_copy_buffer_to_texture(cmd, rows, 0, ROW_WORDS * 4, tin, W, W, 1));
    TRY(ul_cmd_copy_buffer_to_texture(cmd, rows, 0, ROW_WORDS * 4, tnone, W, W, 1));
    TRY(ul_cmd_copy_texture_to_buffer(cmd, tnone, W, W, 1, tnback, 0, ROW_WORDS * 4));
    for (uint32_t l = 0; l < 2; l++) TRY(ul_cmd_dispatch(cmd, p_down[l], &b_down[l], 1, 1, 1, 1));
    TRY(ul_cmd_dispatch(cmd, p_gather, &b_gather, 1, N / 64, 1, 1));
    TRY(ul_cmd_dispatch(cmd, p_sample, &b_sample, 1, N / 64, 1, 1));
    TRY(ul_cmd_copy_buffer(cmd, state, 0, rb, 0, N * 4));
    TRY(ul_cmd_submit(dev, cmd, NULL));
    /* MAP_READ: mapped after the copy that fills it. */
    const uint32_t *q;
    TRY(ul_buffer_map(dev, rb, UL_MAP_READ, 0, 64, 0, (void **)&q));
    put(&o, q, 64);
    TRY(ul_buffer_unmap(dev, rb));
    if (step % 2 == 0) {
      /* NONE objects, read in the step that filled them. */
      uint32_t t[W * 2], sc[16];
      TRY(ul_texture_read(dev, tnone, 0, 0, 0, W, 2, 1, t, sizeof t, 0));
      put(&o, t, sizeof t);
      TRY(ul_buffer_read(dev, scratch, 0, sc, sizeof sc, 0));
      put(&o, sc, sizeof sc);
    }
    if (async_after(step)) {
      TRY(ul_buffer_read_async(dev, acc, 0, sink.data[nasync], ASYNC_WORDS * 4, on_async, &sink));
      nasync++;
    }
    if (step == 5) {
      /* A pool's buffer for one step: cleared, filled by a copy, read, given back. */
      uint32_t t[N];
      TRY(ul_buffer_pool_acquire(pool, N * 4, &tmp));
      ul_cmd_reset(cmd_tmp);
      TRY(ul_cmd_clear_buffer(cmd_tmp, tmp, 0, 0));
      TRY(ul_cmd_copy_buffer(cmd_tmp, state, 0, tmp, 0, 512));
      TRY(ul_cmd_submit(dev, cmd_tmp, NULL));
      TRY(ul_buffer_read(dev, tmp, 0, t, sizeof t, 0));
      put(&o, t, sizeof t);
      TRY(ul_buffer_pool_release(pool, tmp));
      tmp = (ul_buffer){0};
    }
    if (step == 4 || step == 6) TRY(ul_device_checkpoint(dev));
  }
  TRY(workload_deliver_reads(dev, &sink.delivered, nasync, &sink.status));
  for (int k = 0; k < nasync; k++) put(&o, sink.data[sink.order[k]], ASYNC_WORDS * 4);
  {
    static uint32_t b[W * ROW_WORDS];
    const ul_buffer finals[] = {state, acc, gbuf, sbuf, tnback, upd};
    for (size_t k = 0; k < sizeof finals / sizeof finals[0]; k++) {
      TRY(ul_buffer_read(dev, finals[k], 0, b, N * 4, 0));
      put(&o, b, N * 4);
    }
    TRY(ul_texture_read(dev, tin, 0, 0, 0, W, W, 2, b, W * W * 2 * 4, 0));
    put(&o, b, W * W * 2 * 4);
    TRY(ul_texture_read(dev, tsh, 0, 0, 0, W, W, 1, b, W * W * 4, 0));
    put(&o, b, W * W * 4);
  }
  if (o.overflow) {
    s = UL_ERR_INTERNAL;
    goto done;
  }
  out->output_size = o.n;
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < o.n; i++) h = (h ^ out->output[i]) * 1099511628211ull;
  out->hash = h;
done:
  char err[512];
  snprintf(err, sizeof err, "%s", ul_last_error());
  if (nasync > sink.delivered) workload_deliver_reads(dev, &sink.delivered, nasync, &sink.status);
  out->reads_issued = (uint32_t)nasync;
  out->reads_answered = (uint32_t)sink.delivered;
  ul_cmd_destroy(cmd_tmp);
  ul_cmd_destroy(cmd);
  for (int k = 0; k < 4; k++) ul_bind_group_destroy(dev, b_mix[k]);
  ul_bind_group_destroy(dev, b_gather);
  for (int l = 0; l < 2; l++) ul_bind_group_destroy(dev, b_down[l]);
  ul_bind_group_destroy(dev, b_pack);
  ul_bind_group_destroy(dev, b_tail);
  ul_bind_group_destroy(dev, b_probe);
  ul_bind_group_destroy(dev, b_sample);
  ul_compute_pipeline_destroy(dev, p_probe);
  ul_compute_pipeline_destroy(dev, p_sample);
  ul_pipeline_layout_destroy(dev, pl);
  ul_bind_group_layout_destroy(dev, bgl);
  ul_compute_pipeline_destroy(dev, p_gather);
  for (int l = 0; l < 2; l++) ul_compute_pipeline_destroy(dev, p_down[l]);
  ul_shader_destroy(dev, s_tex);
  ul_compute_pipeline_destroy(dev, p_pack);
  ul_compute_pipeline_destroy(dev, p_tail);
  ul_compute_pipeline_destroy(dev, p_mix);
  ul_shader_destroy(dev, s_comp);
  ul_sampler_destroy(dev, smp);
  ul_texture_view_destroy(dev, v_probe);
  ul_texture_view_destroy(dev, v_tsh);
  for (int l = 0; l < 2; l++) ul_texture_view_destroy(dev, v_l1[l]);
  ul_texture_view_destroy(dev, v_tin);
  ul_texture_destroy(dev, tsh);
  ul_texture_destroy(dev, tnone);
  ul_texture_destroy(dev, tin);
  ul_ring_destroy(ring);
  ul_buffer_pool_destroy(pool); /* acc and tmp with it */
  ul_buffer_destroy(dev, rb);
  ul_buffer_destroy(dev, sbuf);
  ul_buffer_destroy(dev, gbuf);
  ul_buffer_destroy(dev, tnback);
  ul_buffer_destroy(dev, rows);
  ul_buffer_destroy(dev, up);
  ul_buffer_destroy(dev, upd);
  ul_buffer_destroy(dev, args);
  ul_buffer_destroy(dev, shp);
  ul_buffer_destroy(dev, scratch);
  ul_buffer_destroy(dev, cache);
  ul_buffer_destroy(dev, state);
  ul_buffer_destroy(dev, wf);
  ul_buffer_destroy(dev, wm);
  if (*path) unlink(path);
  return s ? ul_error_set(s, "%s", err) : UL_OK;
}
