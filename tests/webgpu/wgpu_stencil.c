/* A ping-pong integer stencil on webgpu.h alone: a 128x96 grid of u32 on a
 * torus, two storage buffers, one dispatch per step for 60 steps (times
 * WGPU_PROG_SCALE). Before each step's submit the step number goes into a
 * uniform by WriteBuffer, and the kernel uses it, so a stale or lost write
 * shows in the result. Halfway, the state is copied into a MAP_READ buffer
 * and mapped while the next steps are already queued; it and the final
 * state are checked against the CPU running the same steps. */
#include "wgpu_prog.h"

#define WIDTH 128
#define HEIGHT 96
#define CELLS (WIDTH * HEIGHT)
#define LAG 8 /* steps submitted while the halfway map is pending */

static const char *stencil_wgsl =
    "struct Step { step: u32, width: u32, height: u32, pad: u32 }\n"
    "@group(0) @binding(0) var<storage, read> src: array<u32>;\n"
    "@group(0) @binding(1) var<storage, read_write> dst: array<u32>;\n"
    "@group(0) @binding(2) var<uniform> p: Step;\n"
    "@compute @workgroup_size(8, 8)\n"
    "fn main(@builtin(global_invocation_id) g: vec3u) {\n"
    "  let w = p.width;\n"
    "  let h = p.height;\n"
    "  if (g.x >= w || g.y >= h) { return; }\n"
    "  let left = (g.x + w - 1u) % w;\n"
    "  let right = (g.x + 1u) % w;\n"
    "  let up = (g.y + h - 1u) % h;\n"
    "  let down = (g.y + 1u) % h;\n"
    "  let sum = src[g.y * w + g.x] * 3u + src[g.y * w + left] + src[g.y * w + right]\n"
    "          + src[up * w + g.x] + src[down * w + g.x];\n"
    "  dst[g.y * w + g.x] = (sum + p.step * (g.x ^ g.y)) & 0xffffu;\n"
    "}\n";

static void cpu_step(const uint32_t *src, uint32_t *dst, uint32_t step) {
  for (uint32_t y = 0; y < HEIGHT; y++)
    for (uint32_t x = 0; x < WIDTH; x++) {
      uint32_t left = (x + WIDTH - 1) % WIDTH, right = (x + 1) % WIDTH;
      uint32_t up = (y + HEIGHT - 1) % HEIGHT, down = (y + 1) % HEIGHT;
      uint32_t sum = src[y * WIDTH + x] * 3u + src[y * WIDTH + left] + src[y * WIDTH + right] +
                     src[up * WIDTH + x] + src[down * WIDTH + x];
      dst[y * WIDTH + x] = (sum + step * (x ^ y)) & 0xffffu;
    }
}

static bool run(wp_ctx *c) {
  const uint32_t steps = 60 * c->scale, half = steps / 2;
  uint32_t *cpu[2] = {wp_alloc(CELLS * 4), wp_alloc(CELLS * 4)};
  uint32_t *want_half = wp_alloc(CELLS * 4), *got = wp_alloc(CELLS * 4);
  uint32_t seed = 0x85ebca6bu;
  for (uint32_t i = 0; i < CELLS; i++) cpu[0][i] = wp_rand(&seed) & 0xffffu;

  WGPUBufferUsage usage = WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc;
  WGPUBuffer grid[2] = {wp_buffer_from(c, "grid 0", usage, cpu[0], CELLS * 4),
                        wp_buffer(c, "grid 1", usage, CELLS * 4)};
  WGPUBuffer step_buf = wp_buffer(c, "step", WGPUBufferUsage_Uniform | WGPUBufferUsage_CopyDst, 16);
  WGPUBuffer halfway = wp_buffer(c, "halfway", WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst, CELLS * 4);
  WGPUShaderModule module = wp_shader(c, "stencil", stencil_wgsl);
  WGPUComputePipeline pipeline = wp_pipeline(c, "stencil", module, "main", NULL);
  WGPUBindGroupLayout bgl = wgpuComputePipelineGetBindGroupLayout(pipeline, 0);
  WGPUBindGroup groups[2];
  for (int i = 0; i < 2; i++) {
    WGPUBindGroupEntry e[3] = {
        wp_bind_buffer(0, grid[i], 0, WGPU_WHOLE_SIZE),
        wp_bind_buffer(1, grid[1 - i], 0, WGPU_WHOLE_SIZE),
        wp_bind_buffer(2, step_buf, 0, 16),
    };
    groups[i] = wp_bind_group(c, i ? "grid 1 to 0" : "grid 0 to 1", bgl, e, 3);
  }

  /* Step s reads grid[s % 2] and writes grid[(s + 1) % 2]; so does the CPU. */
  bool ok = true;
  wp_request *map = wp_request_new();
  WGPUFuture map_future = {0};
  for (uint32_t s = 0; s < steps; s++) {
    const uint32_t p[4] = {s, WIDTH, HEIGHT, 0};
    wgpuQueueWriteBuffer(c->queue, step_buf, 0, p, sizeof p);
    WGPUCommandEncoder enc = wp_encoder(c, "step");
    wp_dispatch(enc, pipeline, groups[s % 2], WIDTH / 8, HEIGHT / 8, 1);
    if (s == half) wgpuCommandEncoderCopyBufferToBuffer(enc, grid[(s + 1) % 2], 0, halfway, 0, CELLS * 4);
    wp_submit(c, enc);
    cpu_step(cpu[s % 2], cpu[(s + 1) % 2], s);
    if (s == half) {
      memcpy(want_half, cpu[(s + 1) % 2], CELLS * 4);
      WGPUBufferMapCallbackInfo cb = {
          .mode = WGPUCallbackMode_WaitAnyOnly, .callback = wp_on_map, .userdata1 = map};
      map_future = wgpuBufferMapAsync(halfway, WGPUMapMode_Read, 0, CELLS * 4, cb);
    }
    /* The map resolves while later steps are queued behind it. */
    if (s == half + LAG || (s + 1 == steps && s < half + LAG)) {
      ok = wp_wait(c, map_future, "the halfway map") && map->status == WGPUMapAsyncStatus_Success;
      if (!ok) {
        fprintf(stderr, "stencil: halfway map failed (status %u): %s\n", map->status, map->message);
        break;
      }
      const void *mapped = wgpuBufferGetConstMappedRange(halfway, 0, CELLS * 4);
      ok = mapped != NULL;
      if (ok) {
        memcpy(got, mapped, CELLS * 4);
        wp_digest(c, got, CELLS * 4);
        ok = wp_check_u32("the halfway state", got, want_half, CELLS);
      }
      wgpuBufferUnmap(halfway);
      if (!ok) break;
    }
  }
  if (ok)
    ok = wp_read_buffer(c, grid[steps % 2], 0, CELLS * 4, got) &&
         wp_check_u32("the final state", got, cpu[steps % 2], CELLS);

  wp_request_free(map);
  wgpuBindGroupRelease(groups[1]);
  wgpuBindGroupRelease(groups[0]);
  wgpuBindGroupLayoutRelease(bgl);
  wgpuComputePipelineRelease(pipeline);
  wgpuShaderModuleRelease(module);
  wgpuBufferRelease(halfway);
  wgpuBufferRelease(step_buf);
  wgpuBufferRelease(grid[1]);
  wgpuBufferRelease(grid[0]);
  free(got);
  free(want_half);
  free(cpu[1]);
  free(cpu[0]);
  return ok;
}

int main(int argc, char **argv) {
  wp_ctx c;
  int rc = wp_start(&c, "stencil", argc, argv);
  if (!rc) rc = wp_open_device(&c, NULL, 0, NULL);
  if (rc) return wp_end(&c, rc);
  return wp_main(&c, run);
}
