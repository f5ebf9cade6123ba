/* A program that reads its results back at every step through the
 * webgpu.h door, as a decode does (issue 38): a WriteBuffer of the step's
 * uniform, one command buffer (a dispatch that updates a GPU-written
 * buffer, then a copy of it into a MAP_READ buffer), another small write,
 * the submit, a map waited for, the bytes checked against the CPU, an
 * unmap. The command buffer is
 * encoded at its Finish, ahead of the submit; that encode must not count
 * the readback as changed, or every asynchronous checkpoint finds it changed
 * after its place and gives up, and a new one (a copy of every changed
 * buffer and a map) starts at the next step, for good: the steps must let
 * asynchronous checkpoints commit. Then a forced loss: the next steps still
 * equal the CPU's. */
#include "wgpu_layer.h"

#include "exec/oplog.h"

#define N 1024u   /* u32 words */
#define STEPS 600u

static const char *k_wgsl =
    "struct U { k: u32 }\n"
    "@group(0) @binding(0) var<uniform> u: U;\n"
    "@group(0) @binding(1) var<storage, read_write> acc: array<u32>;\n"
    "@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) {\n"
    "  if (g.x < arrayLength(&acc)) { acc[g.x] = acc[g.x] * 3u + u.k + g.x; }\n"
    "}\n";

static wp_ctx ctx;

static bool workload(wp_ctx *c) {
  WGPUShaderModule m = wp_shader(c, "readback", k_wgsl);
  WGPUComputePipeline pipe = wp_pipeline(c, "readback", m, "main", NULL);
  wgpuShaderModuleRelease(m);
  WGPUBuffer ub = wp_buffer(c, "u", WGPUBufferUsage_Uniform | WGPUBufferUsage_CopyDst, 16);
  WGPUBuffer acc = wp_buffer(c, "acc", WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc, N * 4);
  WGPUBuffer rb = wp_buffer(c, "acc.readback", WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst, N * 4);
  WGPUBuffer side = wp_buffer(c, "side", WGPUBufferUsage_Storage | WGPUBufferUsage_CopyDst, 16);
  WGPUBindGroupLayout bgl = wgpuComputePipelineGetBindGroupLayout(pipe, 0);
  WGPUBindGroupEntry e[2] = {wp_bind_buffer(0, ub, 0, 16), wp_bind_buffer(1, acc, 0, N * 4)};
  WGPUBindGroup group = wp_bind_group(c, "readback", bgl, e, 2);
  ul_device *ud = ul_wgpu_device(c->device);
  uint32_t *want = wp_alloc(N * 4), *got = wp_alloc(N * 4);
  memset(want, 0, N * 4); /* a new buffer reads zero */
  uint64_t commits_before_loss = 0;
  bool ok = true;
  for (uint32_t k = 1; k <= STEPS && ok; k++) {
    uint32_t uv[4] = {k, 0, 0, 0};
    wgpuQueueWriteBuffer(c->queue, ub, 0, uv, sizeof uv);
    WGPUCommandEncoder enc = wp_encoder(c, "step");
    wp_dispatch(enc, pipe, group, N / 64, 1, 1);
    wgpuCommandEncoderCopyBufferToBuffer(enc, acc, 0, rb, 0, N * 4);
    WGPUCommandBuffer cmd = wgpuCommandEncoderFinish(enc, NULL);
    /* A write between the Finish and the submit: a checkpoint may start
     * there, with the readback's submission encoded but not yet made. */
    wgpuQueueWriteBuffer(c->queue, side, 0, uv, sizeof uv);
    wgpuQueueSubmit(c->queue, 1, &cmd);
    wgpuCommandBufferRelease(cmd);
    wgpuCommandEncoderRelease(enc);
    for (uint32_t i = 0; i < N; i++) want[i] = want[i] * 3u + k + i;
    ok = wp_map_read(c, rb, 0, N * 4, got);
    if (ok && memcmp(got, want, N * 4)) {
      uint32_t i = 0;
      while (got[i] == want[i]) i++;
      printf("FAIL step %u: word %u is %u, the CPU's %u\n", k, i, got[i], want[i]);
      ok = false;
    }
    if (k == STEPS / 2) {
      commits_before_loss = ul__oplog_checkpoints_async(ud);
      wgpuDeviceForceLoss(c->device, WGPUDeviceLostReason_Unknown, WP_STR("readback_webgpu: a forced loss"));
    }
  }
  uint64_t commits = ul__oplog_checkpoints_async(ud);
  printf("%u steps read back: %llu asynchronous checkpoints committed before the loss at step %u, %llu in all\n",
         STEPS, (unsigned long long)commits_before_loss, STEPS / 2, (unsigned long long)commits);
  /* Each step logs three entries; an asynchronous checkpoint starts from
   * a quarter of the log's 1,024: one about every hundred steps commits
   * (before, the first one did and then none). */
  if (ok && (commits_before_loss < 1 || commits < 3)) {
    printf("FAIL %llu asynchronous checkpoints committed in %u steps (at least 3 expected, 1 before the loss)\n",
           (unsigned long long)commits, STEPS);
    ok = false;
  }
  free(want);
  free(got);
  wgpuBindGroupRelease(group);
  wgpuBindGroupLayoutRelease(bgl);
  wgpuBufferRelease(side);
  wgpuBufferRelease(rb);
  wgpuBufferRelease(acc);
  wgpuBufferRelease(ub);
  wgpuComputePipelineRelease(pipe);
  return ok;
}

int main(int argc, char **argv) {
  int rc = wp_start(&ctx, "readback", argc, argv);
  if (rc) return wp_end(&ctx, rc);
  return wp_layer_main(&ctx, workload);
}
