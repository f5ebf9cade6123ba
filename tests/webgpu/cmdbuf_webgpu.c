/* A command buffer finished before a loss and submitted, or released,
 * after it (issue 36, observation 13). A recovery destroys the lost device
 * on a thread of its own; the finished command buffer was encoded on that
 * device, and the program's submit (which encodes it again on the new
 * device) or release lets go of the old encoding while that destroy may
 * be running. Dawn's destroy of a device frees what its command buffers
 * hold without regard to such a release: on the code before the fix, a
 * SIGSEGV in BindGroupBase::DestroyImpl or "double free or corruption",
 * in about 1 run in 10 of a generated program (WGPU_GEN_SEED=124
 * UNLOST_CHAOS=loss@147).
 *
 *   cmdbuf_webgpu [ROUNDS]
 *
 * Each round makes GROUPS bind groups (a destroy with work to do), records
 * one dispatch per group into a command buffer, finishes it, forces a loss
 * (wgpuDeviceForceLoss: the layer recovers at the next call), and then
 * submits the old command buffer (even rounds) or releases it unsubmitted
 * and records the work again (odd rounds). Every result read back must
 * equal the CPU's, and the process must end cleanly. */
#include "wgpu_prog.h"

#define GROUPS 96
#define N 64 /* u32 per buffer */

static const char *add_wgsl =
    "@group(0) @binding(0) var<storage, read> a: array<u32>;\n"
    "@group(0) @binding(1) var<storage, read_write> b: array<u32>;\n"
    "@compute @workgroup_size(64)\n"
    "fn main(@builtin(global_invocation_id) g: vec3u) {\n"
    "  if (g.x < arrayLength(&b)) { b[g.x] = b[g.x] + a[g.x] * 3u + 1u; }\n"
    "}\n";

static WGPUCommandBuffer record(WGPUDevice device, WGPUComputePipeline pipeline, WGPUBindGroup *groups) {
  WGPUCommandEncoderDescriptor ed = {.label = WP_STR("groups")};
  WGPUCommandEncoder enc = wgpuDeviceCreateCommandEncoder(device, &ed);
  WGPUComputePassDescriptor pd = {.label = WP_STR("pass")};
  WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(enc, &pd);
  wgpuComputePassEncoderSetPipeline(pass, pipeline);
  for (int g = 0; g < GROUPS; g++) {
    wgpuComputePassEncoderSetBindGroup(pass, 0, groups[g], 0, NULL);
    wgpuComputePassEncoderDispatchWorkgroups(pass, 1, 1, 1);
  }
  wgpuComputePassEncoderEnd(pass);
  wgpuComputePassEncoderRelease(pass);
  WGPUCommandBufferDescriptor cd = {.label = WP_STR("finished before the loss")};
  WGPUCommandBuffer cmd = wgpuCommandEncoderFinish(enc, &cd);
  wgpuCommandEncoderRelease(enc);
  return cmd;
}

int main(int argc, char **argv) {
  unsigned rounds = 24;
  if (argc > 2 || (argc == 2 && !wp_parse_count(argv[1], 100000, &rounds))) {
    fprintf(stderr, "usage: %s [ROUNDS]\n", argv[0]);
    return WP_USAGE;
  }
  wp_ctx c;
  char *args[] = {argv[0], NULL};
  int rc = wp_start(&c, "cmdbuf", 1, args);
  if (!rc) rc = wp_open_device(&c, NULL, 0, NULL);
  if (rc) return wp_end(&c, rc);

  WGPUShaderModule module = wp_shader(&c, "add", add_wgsl);
  WGPUBindGroupLayoutEntry le[2] = {wp_layout_buffer(0, WGPUBufferBindingType_ReadOnlyStorage, false, 0),
                                    wp_layout_buffer(1, WGPUBufferBindingType_Storage, false, 0)};
  WGPUBindGroupLayoutDescriptor bgld = {.label = WP_STR("add"), .entryCount = 2, .entries = le};
  WGPUBindGroupLayout bgl = wgpuDeviceCreateBindGroupLayout(c.device, &bgld);
  WGPUPipelineLayoutDescriptor pld = {.label = WP_STR("add"), .bindGroupLayoutCount = 1, .bindGroupLayouts = &bgl};
  WGPUPipelineLayout layout = wgpuDeviceCreatePipelineLayout(c.device, &pld);
  WGPUComputePipeline pipeline = wp_pipeline(&c, "add", module, "main", layout);

  uint32_t seed = 777;
  int wrong = 0, reads = 0, failed = 0;
  for (unsigned r = 0; r < rounds && !rc; r++) {
    uint32_t a[N], want[N], got[N];
    for (int i = 0; i < N; i++) {
      a[i] = wp_rand(&seed);
      want[i] = 0;
    }
    /* Every group reads `a` and adds into its own slice of one output,
     * GROUPS times over: the output is each word's sum. */
    WGPUBuffer in = wp_buffer_from(&c, "in", WGPUBufferUsage_Storage, a, sizeof a);
    WGPUBuffer out = wp_buffer(&c, "out", WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc, sizeof a);
    WGPUBindGroup groups[GROUPS];
    for (int g = 0; g < GROUPS; g++) {
      WGPUBindGroupEntry be[2] = {wp_bind_buffer(0, in, 0, WGPU_WHOLE_SIZE), wp_bind_buffer(1, out, 0, WGPU_WHOLE_SIZE)};
      groups[g] = wp_bind_group(&c, "add", bgl, be, 2);
      for (int i = 0; i < N; i++) want[i] += a[i] * 3u + 1u;
    }
    WGPUCommandBuffer cmd = record(c.device, pipeline, groups);
    wgpuDeviceForceLoss(c.device, WGPUDeviceLostReason_Unknown, WP_STR("cmdbuf: a loss after Finish"));
    if (r % 2) {
      /* Released unsubmitted after the loss; the work recorded again. */
      wgpuCommandBufferRelease(cmd);
      cmd = record(c.device, pipeline, groups);
    }
    wgpuQueueSubmit(c.queue, 1, &cmd);
    wgpuCommandBufferRelease(cmd);
    for (int g = 0; g < GROUPS; g++) wgpuBindGroupRelease(groups[g]);
    if (wp_read_buffer(&c, out, 0, sizeof got, got)) {
      reads++;
      if (memcmp(got, want, sizeof got)) {
        wrong++;
        fprintf(stderr, "cmdbuf: round %u: wrong result read with success\n", r);
      }
    } else {
      failed++;
    }
    wgpuBufferRelease(in);
    wgpuBufferRelease(out);
  }
  printf("cmdbuf: %u rounds, %d reads ok, %d failed, %d wrong\n", rounds, reads, failed, wrong);
  if (wrong || failed) rc = WP_FAIL;
  wgpuComputePipelineRelease(pipeline);
  wgpuPipelineLayoutRelease(layout);
  wgpuBindGroupLayoutRelease(bgl);
  wgpuShaderModuleRelease(module);
  return wp_end(&c, rc);
}
