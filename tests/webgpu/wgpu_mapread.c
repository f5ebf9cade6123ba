/* Reads by MapAsync on webgpu.h alone, in every callback mode. Six rounds
 * (times WGPU_PROG_SCALE) of: fill the MAP_WRITE|COPY_SRC upload buffer
 * through MapAsync(Write) and GetMappedRange, copy it to the input, compute,
 * copy the result to one MAP_READ|COPY_DST buffer, MapAsync(Read),
 * GetConstMappedRange, check, Unmap. The read's map takes turns:
 *   0. WaitAnyOnly, waited for with WaitAny;
 *   1. AllowProcessEvents, after a WaitAny on an OnSubmittedWorkDone future,
 *      delivered by a ProcessEvents loop;
 *   2. AllowSpontaneous, together with an AllowSpontaneous OnSubmittedWorkDone,
 *      both futures waited for with WaitAny.
 * The coefficients come from a buffer mapped at creation. Each round's
 * result is checked against the CPU, and the map states on the way. */
#include "wgpu_prog.h"

static const char *mapread_wgsl = "@group(0) @binding(0) var<storage, read> input: array<u32>;\n"
                                  "@group(0) @binding(1) var<storage, read> coef: array<u32>;\n"
                                  "@group(0) @binding(2) var<storage, read_write> output: array<u32>;\n"
                                  "@group(0) @binding(3) var<uniform> params: vec4u;\n"
                                  "@compute @workgroup_size(64)\n"
                                  "fn main(@builtin(global_invocation_id) g: vec3u) {\n"
                                  "  let i = g.x;\n"
                                  "  if (i >= arrayLength(&output)) { return; }\n"
                                  "  output[i] = input[i] * coef[i] + (i ^ params.x);\n"
                                  "}\n";

static bool expect_map_state(WGPUBuffer b, WGPUBufferMapState want, const char *when) {
  WGPUBufferMapState got = wgpuBufferGetMapState(b);
  if (got != want) printf("map state %s: got %u, want %u\n", when, got, want);
  return got == want;
}

/* Maps `readback` for reading in the round's callback mode; true when it is
 * mapped. */
static bool map_for_reading(wp_ctx *c, WGPUBuffer readback, size_t size, unsigned mode) {
  wp_request *map = wp_request_new(), *done = mode ? wp_request_new() : NULL;
  bool ok = false;
  if (mode == 0) {
    WGPUBufferMapCallbackInfo cb = {
        .mode = WGPUCallbackMode_WaitAnyOnly, .callback = wp_on_map, .userdata1 = map};
    ok = wp_wait(c, wgpuBufferMapAsync(readback, WGPUMapMode_Read, 0, size, cb), "a WaitAnyOnly map");
  } else if (mode == 1) {
    WGPUBufferMapCallbackInfo cb = {
        .mode = WGPUCallbackMode_AllowProcessEvents, .callback = wp_on_map, .userdata1 = map};
    wgpuBufferMapAsync(readback, WGPUMapMode_Read, 0, size, cb);
    WGPUQueueWorkDoneCallbackInfo dcb = {
        .mode = WGPUCallbackMode_WaitAnyOnly, .callback = wp_on_work_done, .userdata1 = done};
    ok = wp_wait(c, wgpuQueueOnSubmittedWorkDone(c->queue, dcb), "the work done") &&
         done->status == WGPUQueueWorkDoneStatus_Success &&
         wp_process_until(c, &map->done, "an AllowProcessEvents map");
  } else {
    WGPUBufferMapCallbackInfo cb = {
        .mode = WGPUCallbackMode_AllowSpontaneous, .callback = wp_on_map, .userdata1 = map};
    WGPUQueueWorkDoneCallbackInfo dcb = {
        .mode = WGPUCallbackMode_AllowSpontaneous, .callback = wp_on_work_done, .userdata1 = done};
    WGPUFuture fs[2] = {wgpuBufferMapAsync(readback, WGPUMapMode_Read, 0, size, cb),
                        wgpuQueueOnSubmittedWorkDone(c->queue, dcb)};
    ok = wp_wait_all(c, fs, 2, "an AllowSpontaneous map and work done") && atomic_load(&map->done) &&
         atomic_load(&done->done) && done->status == WGPUQueueWorkDoneStatus_Success;
  }
  if (ok && map->status != WGPUMapAsyncStatus_Success) {
    fprintf(stderr, "mapread: map (mode %u) failed (status %u): %s\n", mode, map->status, map->message);
    ok = false;
  } else if (!ok) {
    fprintf(stderr, "mapread: map (mode %u) or work done did not complete (work done status %u)\n", mode,
            done ? done->status : 0);
  }
  wp_request_free(done);
  wp_request_free(map);
  return ok;
}

static bool run(wp_ctx *c) {
  const uint32_t n = 16384 * c->scale, rounds = 6 * c->scale;
  const uint64_t bytes = (uint64_t)n * 4;
  uint32_t *coef = wp_alloc(bytes), *input = wp_alloc(bytes), *want = wp_alloc(bytes), *got = wp_alloc(bytes);
  uint32_t seed = 0x27d4eb2fu;
  for (uint32_t i = 0; i < n; i++) coef[i] = wp_rand(&seed) % 1000;

  WGPUBufferDescriptor cd = {.label = WP_STR("coefficients"),
                             .usage = WGPUBufferUsage_Storage,
                             .size = bytes,
                             .mappedAtCreation = 1};
  WGPUBuffer buf_coef = wgpuDeviceCreateBuffer(c->device, &cd);
  bool ok = expect_map_state(buf_coef, WGPUBufferMapState_Mapped, "mapped at creation");
  void *p = wgpuBufferGetMappedRange(buf_coef, 0, (size_t)bytes);
  if (p) memcpy(p, coef, (size_t)bytes);
  ok = ok && p != NULL;
  wgpuBufferUnmap(buf_coef);

  WGPUBuffer upload = wp_buffer(c, "upload", WGPUBufferUsage_MapWrite | WGPUBufferUsage_CopySrc, bytes);
  WGPUBuffer buf_in = wp_buffer(c, "input", WGPUBufferUsage_Storage | WGPUBufferUsage_CopyDst, bytes);
  WGPUBuffer buf_out = wp_buffer(c, "output", WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc, bytes);
  WGPUBuffer buf_round = wp_buffer(c, "round", WGPUBufferUsage_Uniform | WGPUBufferUsage_CopyDst, 16);
  WGPUBuffer readback = wp_buffer(c, "readback", WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst, bytes);
  WGPUShaderModule module = wp_shader(c, "mapread", mapread_wgsl);
  WGPUComputePipeline pipeline = wp_pipeline(c, "mapread", module, "main", NULL);
  WGPUBindGroupLayout bgl = wgpuComputePipelineGetBindGroupLayout(pipeline, 0);
  WGPUBindGroupEntry be[4] = {
      wp_bind_buffer(0, buf_in, 0, WGPU_WHOLE_SIZE),
      wp_bind_buffer(1, buf_coef, 0, WGPU_WHOLE_SIZE),
      wp_bind_buffer(2, buf_out, 0, WGPU_WHOLE_SIZE),
      wp_bind_buffer(3, buf_round, 0, 16),
  };
  WGPUBindGroup group = wp_bind_group(c, "mapread", bgl, be, 4);

  for (uint32_t r = 0; ok && r < rounds; r++) {
    for (uint32_t i = 0; i < n; i++) {
      input[i] = wp_rand(&seed);
      want[i] = input[i] * coef[i] + (i ^ r);
    }
    /* The input through the mappable upload buffer. */
    wp_request *wmap = wp_request_new();
    WGPUBufferMapCallbackInfo wcb = {
        .mode = WGPUCallbackMode_WaitAnyOnly, .callback = wp_on_map, .userdata1 = wmap};
    ok = wp_wait(c, wgpuBufferMapAsync(upload, WGPUMapMode_Write, 0, (size_t)bytes, wcb),
                 "a map for writing") &&
         wmap->status == WGPUMapAsyncStatus_Success;
    if (!ok)
      fprintf(stderr, "mapread: map for writing failed (status %u): %s\n", wmap->status, wmap->message);
    wp_request_free(wmap);
    if (!ok) break;
    p = wgpuBufferGetMappedRange(upload, 0, (size_t)bytes);
    if (p) memcpy(p, input, (size_t)bytes);
    wgpuBufferUnmap(upload);
    if (!p) {
      fprintf(stderr, "mapread: wgpuBufferGetMappedRange returned NULL\n");
      ok = false;
      break;
    }

    const uint32_t round[4] = {r, 0, 0, 0};
    wgpuQueueWriteBuffer(c->queue, buf_round, 0, round, sizeof round);
    WGPUCommandEncoder enc = wp_encoder(c, "round");
    wgpuCommandEncoderCopyBufferToBuffer(enc, upload, 0, buf_in, 0, bytes);
    wp_dispatch(enc, pipeline, group, (n + 63) / 64, 1, 1);
    wgpuCommandEncoderCopyBufferToBuffer(enc, buf_out, 0, readback, 0, bytes);
    wp_submit(c, enc);

    ok = map_for_reading(c, readback, (size_t)bytes, r % 3) &&
         expect_map_state(readback, WGPUBufferMapState_Mapped, "after the map's callback");
    if (!ok) break;
    const void *q = wgpuBufferGetConstMappedRange(readback, 0, (size_t)bytes);
    if (q) memcpy(got, q, (size_t)bytes);
    wgpuBufferUnmap(readback);
    ok = q != NULL && expect_map_state(readback, WGPUBufferMapState_Unmapped, "after Unmap");
    if (ok) {
      wp_digest(c, got, (size_t)bytes);
      ok = wp_check_u32("a round's result", got, want, n);
      if (!ok) printf("(round %u, callback mode %u)\n", r, r % 3);
    }
  }

  wgpuBindGroupRelease(group);
  wgpuBindGroupLayoutRelease(bgl);
  wgpuComputePipelineRelease(pipeline);
  wgpuShaderModuleRelease(module);
  wgpuBufferRelease(readback);
  wgpuBufferRelease(buf_round);
  wgpuBufferRelease(buf_out);
  wgpuBufferRelease(buf_in);
  wgpuBufferRelease(upload);
  wgpuBufferRelease(buf_coef);
  free(got);
  free(want);
  free(input);
  free(coef);
  return ok;
}

int main(int argc, char **argv) {
  wp_ctx c;
  int rc = wp_start(&c, "mapread", argc, argv);
  if (!rc) rc = wp_open_device(&c, NULL, 0, NULL);
  if (rc) return wp_end(&c, rc);
  return wp_main(&c, run);
}
