/* The ggml pattern on webgpu.h alone: 200 dispatches (times
 * WGPU_PROG_SCALE), each with its own parameters written by WriteBuffer
 * into a slot of one uniform ring buffer, bound through a dynamic offset
 * (aligned to the device's minUniformBufferOffsetAlignment), and with a
 * bind group made for that dispatch alone, binding half of one buffer as
 * input and the same half of the other as output. Eight dispatches share a
 * compute pass and a submit; the bind groups are released after it. Both
 * buffers are checked against the CPU at the end. */
#include "wgpu_prog.h"

#define HALF 2048 /* u32 per half: 8 KiB, a multiple of any storage offset alignment */
#define BATCH 8   /* dispatches per submit */
#define SLOTS (2 * BATCH)

static const char *dynoffset_wgsl = "struct Params { mul: u32, add: u32, pad0: u32, pad1: u32 }\n"
                                    "@group(0) @binding(0) var<uniform> p: Params;\n"
                                    "@group(1) @binding(0) var<storage, read> src: array<u32>;\n"
                                    "@group(1) @binding(1) var<storage, read_write> dst: array<u32>;\n"
                                    "@compute @workgroup_size(64)\n"
                                    "fn main(@builtin(global_invocation_id) g: vec3u) {\n"
                                    "  let i = g.x;\n"
                                    "  if (i >= arrayLength(&dst)) { return; }\n"
                                    "  dst[i] = src[i] * p.mul + (p.add ^ i);\n"
                                    "}\n";

/* Dispatch d reads buffer d % 2 and writes the other, in half (d / 2) % 2. */
static void params_of(uint32_t d, uint32_t out[4]) {
  out[0] = 1 + d % 7;
  out[1] = d * 2654435761u;
  out[2] = 0;
  out[3] = 0;
}

static bool run(wp_ctx *c) {
  const uint32_t dispatches = 200 * c->scale, align = c->limits.minUniformBufferOffsetAlignment;
  uint32_t *cpu[2] = {wp_alloc(2 * HALF * 4), wp_alloc(2 * HALF * 4)}, *got = wp_alloc(2 * HALF * 4);
  uint32_t seed = 0x165667b1u;
  for (int b = 0; b < 2; b++)
    for (uint32_t i = 0; i < 2 * HALF; i++) cpu[b][i] = wp_rand(&seed);

  WGPUBufferUsage usage = WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc;
  WGPUBuffer bufs[2] = {wp_buffer_from(c, "data 0", usage, cpu[0], 2 * HALF * 4),
                        wp_buffer_from(c, "data 1", usage, cpu[1], 2 * HALF * 4)};
  WGPUBuffer ring = wp_buffer(c, "parameter ring", WGPUBufferUsage_Uniform | WGPUBufferUsage_CopyDst,
                              (uint64_t)SLOTS * align);

  WGPUBindGroupLayoutEntry le0 = wp_layout_buffer(0, WGPUBufferBindingType_Uniform, true, 16);
  WGPUBindGroupLayoutEntry le1[2] = {
      wp_layout_buffer(0, WGPUBufferBindingType_ReadOnlyStorage, false, 0),
      wp_layout_buffer(1, WGPUBufferBindingType_Storage, false, 0),
  };
  WGPUBindGroupLayout bgls[2] = {
      wgpuDeviceCreateBindGroupLayout(
          c->device,
          &(WGPUBindGroupLayoutDescriptor){.label = WP_STR("parameters"), .entryCount = 1, .entries = &le0}),
      wgpuDeviceCreateBindGroupLayout(
          c->device,
          &(WGPUBindGroupLayoutDescriptor){.label = WP_STR("data"), .entryCount = 2, .entries = le1}),
  };
  WGPUPipelineLayout layout = wgpuDeviceCreatePipelineLayout(
      c->device, &(WGPUPipelineLayoutDescriptor){
                     .label = WP_STR("dynoffset"), .bindGroupLayoutCount = 2, .bindGroupLayouts = bgls});
  WGPUShaderModule module = wp_shader(c, "dynoffset", dynoffset_wgsl);
  WGPUComputePipeline pipeline = wp_pipeline(c, "dynoffset", module, "main", layout);
  WGPUBindGroupEntry ring_entry = wp_bind_buffer(0, ring, 0, 16);
  WGPUBindGroup ring_group = wp_bind_group(c, "parameter ring", bgls[0], &ring_entry, 1);

  for (uint32_t first = 0; first < dispatches; first += BATCH) {
    uint32_t count = dispatches - first < BATCH ? dispatches - first : BATCH;
    WGPUBindGroup groups[BATCH];
    WGPUCommandEncoder enc = wp_encoder(c, "batch");
    WGPUComputePassEncoder pass =
        wgpuCommandEncoderBeginComputePass(enc, &(WGPUComputePassDescriptor){.label = WP_STR("batch")});
    wgpuComputePassEncoderSetPipeline(pass, pipeline);
    for (uint32_t k = 0; k < count; k++) {
      uint32_t d = first + k, half = (d / 2) % 2, p[4];
      uint32_t offset = (d % SLOTS) * align;
      params_of(d, p);
      /* The slots of one batch differ, and the next batch's writes come
       * after this submit in queue order. */
      wgpuQueueWriteBuffer(c->queue, ring, offset, p, sizeof p);
      WGPUBindGroupEntry e[2] = {
          wp_bind_buffer(0, bufs[d % 2], (uint64_t)half * HALF * 4, HALF * 4),
          wp_bind_buffer(1, bufs[(d + 1) % 2], (uint64_t)half * HALF * 4, HALF * 4),
      };
      groups[k] = wp_bind_group(c, "dispatch", bgls[1], e, 2);
      wgpuComputePassEncoderSetBindGroup(pass, 0, ring_group, 1, &offset);
      wgpuComputePassEncoderSetBindGroup(pass, 1, groups[k], 0, NULL);
      wgpuComputePassEncoderDispatchWorkgroups(pass, HALF / 64, 1, 1);

      const uint32_t *src = cpu[d % 2] + half * HALF;
      uint32_t *dst = cpu[(d + 1) % 2] + half * HALF;
      for (uint32_t i = 0; i < HALF; i++) dst[i] = src[i] * p[0] + (p[1] ^ i);
    }
    wgpuComputePassEncoderEnd(pass);
    wgpuComputePassEncoderRelease(pass);
    wp_submit(c, enc);
    for (uint32_t k = 0; k < count; k++) wgpuBindGroupRelease(groups[k]);
  }
  bool ok =
      wp_read_buffer(c, bufs[0], 0, 2 * HALF * 4, got) && wp_check_u32("buffer 0", got, cpu[0], 2 * HALF) &&
      wp_read_buffer(c, bufs[1], 0, 2 * HALF * 4, got) && wp_check_u32("buffer 1", got, cpu[1], 2 * HALF);

  wgpuBindGroupRelease(ring_group);
  wgpuComputePipelineRelease(pipeline);
  wgpuShaderModuleRelease(module);
  wgpuPipelineLayoutRelease(layout);
  wgpuBindGroupLayoutRelease(bgls[1]);
  wgpuBindGroupLayoutRelease(bgls[0]);
  wgpuBufferRelease(ring);
  wgpuBufferRelease(bufs[1]);
  wgpuBufferRelease(bufs[0]);
  free(got);
  free(cpu[1]);
  free(cpu[0]);
  return ok;
}

int main(int argc, char **argv) {
  wp_ctx c;
  int rc = wp_start(&c, "dynoffset", argc, argv);
  if (!rc) rc = wp_open_device(&c, NULL, 0, NULL);
  if (rc) return wp_end(&c, rc);
  return wp_main(&c, run);
}
