/* Built-in workloads. Integer arithmetic only, so a replayed run is
 * bit-identical to a clean one. */
#include "workload.h"

#include <stdio.h>
#include <string.h>

#define N 256 /* u32 elements per buffer */
#define STEPS 8

static const char *step_wgsl =
    "struct Params { step: u32, scale: u32, pad0: u32, pad1: u32 }\n"
    "@group(0) @binding(0) var<storage, read> weights: array<u32>;\n"
    "@group(0) @binding(1) var<storage, read> params: Params;\n"
    "@group(0) @binding(2) var<storage, read_write> state: array<u32>;\n"
    "@group(0) @binding(3) var<storage, read> cache: array<u32>;\n"
    "@group(0) @binding(4) var<storage, read_write> out: array<u32>;\n"
    "@compute @workgroup_size(64)\n"
    "fn update(@builtin(global_invocation_id) id: vec3u) {\n"
    "  let i = id.x;\n"
    "  if (i >= arrayLength(&state)) { return; }\n"
    "  let j = (i + params.step) % arrayLength(&state);\n"
    "  state[i] = state[i] * params.scale + weights[i] + cache[j] + params.step;\n"
    "}\n"
    "@compute @workgroup_size(64)\n"
    "fn emit(@builtin(global_invocation_id) id: vec3u) {\n"
    "  let i = id.x;\n"
    "  if (i >= arrayLength(&out)) { return; }\n"
    "  out[i] = state[i] ^ (params.step * 7u);\n"
    "}\n";

static ul_status refill_cache(ul_device *dev, ul_buffer buf, void *user) {
  (void)user;
  uint32_t v[N];
  for (uint32_t i = 0; i < N; i++) v[i] = i * 2654435761u;
  return ul_buffer_write(dev, buf, 0, v, sizeof v);
}

static uint64_t fnv(const uint8_t *p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

#define TRY(call)                                                                   \
  do {                                                                              \
    if ((s = (call)) != UL_OK) goto done;                                           \
  } while (0)

ul_status workload_basic(ul_device *dev, workload_result *out) {
  static uint32_t weights[N];
  for (uint32_t i = 0; i < N; i++) weights[i] = i * 40503u + 17u;
  uint32_t state0[N];
  for (uint32_t i = 0; i < N; i++) state0[i] = i;
  ul_status s = UL_OK;
  ul_buffer w = {0}, params = {0}, state = {0}, cache = {0}, outb = {0};
  ul_shader sh = {0};
  ul_compute_pipeline pu = {0}, pe = {0};
  ul_bind_group bu = {0}, be = {0};
  ul_cmd *cmd = NULL;
  memset(out, 0, sizeof *out);

  TRY(ul_buffer_create(dev, &(ul_buffer_desc){.label = "weights", .size = sizeof weights,
      .restore = UL_RESTORE_SOURCE, .source_data = weights}, &w));
  TRY(ul_buffer_create(dev, &(ul_buffer_desc){.label = "params", .size = 16,
      .restore = UL_RESTORE_SHADOW}, &params));
  TRY(ul_buffer_create(dev, &(ul_buffer_desc){.label = "state", .size = sizeof state0,
      .restore = UL_RESTORE_LOG, .initial_data = state0}, &state));
  TRY(ul_buffer_create(dev, &(ul_buffer_desc){.label = "cache", .size = N * 4,
      .restore = UL_RESTORE_CALLBACK, .restore_fn = refill_cache}, &cache));
  TRY(refill_cache(dev, cache, NULL));
  TRY(ul_buffer_create(dev, &(ul_buffer_desc){.label = "out", .size = N * 4,
      .restore = UL_RESTORE_NONE}, &outb));
  TRY(ul_shader_create(dev, &(ul_shader_desc){.label = "basic", .wgsl = step_wgsl}, &sh));
  TRY(ul_compute_pipeline_create(dev, &(ul_compute_pipeline_desc){.label = "update", .shader = sh,
      .entry = "update"}, &pu));
  TRY(ul_compute_pipeline_create(dev, &(ul_compute_pipeline_desc){.label = "emit", .shader = sh,
      .entry = "emit"}, &pe));
  TRY(ul_bind_group_create(dev, &(ul_bind_group_desc){.label = "update", .pipeline = pu, .entry_count = 4,
      .entries = {{.binding = 0, .buffer = w}, {.binding = 1, .buffer = params},
                  {.binding = 2, .buffer = state}, {.binding = 3, .buffer = cache}}}, &bu));
  TRY(ul_bind_group_create(dev, &(ul_bind_group_desc){.label = "emit", .pipeline = pe, .entry_count = 3,
      .entries = {{.binding = 1, .buffer = params}, {.binding = 2, .buffer = state},
                  {.binding = 4, .buffer = outb}}}, &be));
  TRY(ul_cmd_create(dev, "step", &cmd));
  TRY(ul_cmd_dispatch(cmd, pu, &bu, 1, N / 64, 1, 1));
  TRY(ul_cmd_dispatch(cmd, pe, &be, 1, N / 64, 1, 1));

  size_t o = 0;
  for (uint32_t step = 1; step <= STEPS; step++) {
    uint32_t p[4] = {step, 3u + step % 2u, 0, 0};
    TRY(ul_buffer_write(dev, params, 0, p, sizeof p));
    uint64_t serial;
    TRY(ul_cmd_submit(dev, cmd, &serial));
    if (step % 3 == 0) {
      /* a read in the middle: its value is part of the output */
      uint32_t mid[16];
      TRY(ul_buffer_read(dev, state, 0, mid, sizeof mid, 0));
      memcpy(out->output + o, mid, sizeof mid);
      o += sizeof mid;
    }
    if (step == 4) TRY(ul_device_checkpoint(dev));
    if (step == 6) TRY(ul_device_wait(dev, serial, 0));
  }
  TRY(ul_buffer_read(dev, state, 0, out->output + o, N * 4, 0));
  o += N * 4;
  TRY(ul_buffer_read(dev, outb, 0, out->output + o, N * 4, 0));
  o += N * 4;
  out->output_size = o;
  out->hash = fnv(out->output, o);
done:
  ul_cmd_destroy(cmd);
  ul_bind_group_destroy(dev, be);
  ul_bind_group_destroy(dev, bu);
  ul_compute_pipeline_destroy(dev, pe);
  ul_compute_pipeline_destroy(dev, pu);
  ul_shader_destroy(dev, sh);
  ul_buffer_destroy(dev, outb);
  ul_buffer_destroy(dev, cache);
  ul_buffer_destroy(dev, state);
  ul_buffer_destroy(dev, params);
  ul_buffer_destroy(dev, w);
  return s;
}

workload_fn workload_find(const char *name) {
  if (!strcmp(name, "basic")) return workload_basic;
  return NULL;
}
