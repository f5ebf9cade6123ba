/* What objects cost in host memory, on webgpu.h alone: N storage buffers
 * and N bind groups (one per buffer, as ggml makes one per dispatch), made,
 * used once, then released. Prints, as one JSON line, the heap in use
 * (mallinfo2's uordblks) before, with them alive, and after their release
 * once the queue is idle: the same program linked to the implementation and
 * to libunlost-webgpu gives what the layer adds per object and what it
 * keeps after the objects are gone (objmem_webgpu.sh compares the two).
 *   objmem_webgpu [N] [--unused]   (default 5000; --unused: no dispatch) */
#include "wgpu_prog.h"

#include <malloc.h>

static size_t heap_in_use(void) {
  struct mallinfo2 mi = mallinfo2();
  return mi.uordblks + mi.hblkhd;
}

static bool idle(wp_ctx *c) {
  wp_request *r = wp_request_new();
  WGPUQueueWorkDoneCallbackInfo cb = {
      .mode = WGPUCallbackMode_WaitAnyOnly, .callback = wp_on_work_done, .userdata1 = r};
  bool ok = wp_wait(c, wgpuQueueOnSubmittedWorkDone(c->queue, cb), "the queue") &&
            r->status == WGPUQueueWorkDoneStatus_Success;
  wp_request_free(r);
  return ok;
}

int main(int argc, char **argv) {
  unsigned n = 5000;
  bool use = true;
  if (argc > 1 && !strcmp(argv[argc - 1], "--unused")) {
    use = false;
    argc--;
  }
  if (argc > 1 && !wp_parse_count(argv[1], 1000000, &n)) {
    fprintf(stderr, "usage: %s [N] [--unused]\n", argv[0]);
    return WP_USAGE;
  }
  wp_ctx c;
  char *no_args[] = {argv[0], NULL};
  int rc = wp_start(&c, "objmem", 1, no_args);
  if (rc || (rc = wp_open_device(&c, NULL, 0, NULL))) return wp_end(&c, rc);
  WGPUShaderModule sm = wp_shader(&c, "objmem",
                                  "@group(0) @binding(0) var<storage, read_write> x: array<u32>;\n"
                                  "@compute @workgroup_size(1) fn main() { x[0] = x[0] + 1u; }\n");
  WGPUComputePipeline pipe = wp_pipeline(&c, "objmem", sm, "main", NULL);
  WGPUBindGroupLayout bgl = wgpuComputePipelineGetBindGroupLayout(pipe, 0);
  WGPUBuffer *bufs = wp_alloc(sizeof *bufs * n);
  WGPUBindGroup *groups = wp_alloc(sizeof *groups * n);
  if (!idle(&c)) return wp_end(&c, WP_FAIL);
  size_t before = heap_in_use();
  for (unsigned i = 0; i < n; i++) {
    bufs[i] = wp_buffer(&c, "objmem.buffer", WGPUBufferUsage_Storage | WGPUBufferUsage_CopyDst, 256);
    WGPUBindGroupEntry e = wp_bind_buffer(0, bufs[i], 0, 256);
    WGPUBindGroupDescriptor d = {.label = WP_STR("objmem.group"), .layout = bgl, .entryCount = 1, .entries = &e};
    groups[i] = wgpuDeviceCreateBindGroup(c.device, &d);
  }
  size_t alive = heap_in_use();
  /* Used once: a dispatch over each, in one submission. */
  for (unsigned i = 0; i < n && !use; i++) wgpuBindGroupRelease(groups[i]), groups[i] = NULL;
  WGPUCommandEncoder enc = wgpuDeviceCreateCommandEncoder(c.device, NULL);
  WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(enc, NULL);
  wgpuComputePassEncoderSetPipeline(pass, pipe);
  for (unsigned i = 0; i < n && use; i++) {
    wgpuComputePassEncoderSetBindGroup(pass, 0, groups[i], 0, NULL);
    wgpuComputePassEncoderDispatchWorkgroups(pass, 1, 1, 1);
  }
  wgpuComputePassEncoderEnd(pass);
  wgpuComputePassEncoderRelease(pass);
  WGPUCommandBuffer cmd = wgpuCommandEncoderFinish(enc, NULL);
  wgpuQueueSubmit(c.queue, 1, &cmd);
  wgpuCommandBufferRelease(cmd);
  wgpuCommandEncoderRelease(enc);
  if (!idle(&c)) return wp_end(&c, WP_FAIL);
  for (unsigned i = 0; i < n; i++) {
    if (groups[i]) wgpuBindGroupRelease(groups[i]);
    wgpuBufferRelease(bufs[i]);
  }
  if (!idle(&c)) return wp_end(&c, WP_FAIL);
  /* An empty submission and a wait: what is freed once the queue moves on. */
  if (getenv("OBJMEM_TICK")) {
    WGPUCommandEncoder e2 = wgpuDeviceCreateCommandEncoder(c.device, NULL);
    WGPUCommandBuffer cb2 = wgpuCommandEncoderFinish(e2, NULL);
    wgpuQueueSubmit(c.queue, 1, &cb2);
    wgpuCommandBufferRelease(cb2);
    wgpuCommandEncoderRelease(e2);
    if (!idle(&c)) return wp_end(&c, WP_FAIL);
  }
  wgpuInstanceProcessEvents(c.instance);
  malloc_trim(0);
  size_t after = heap_in_use();
  printf("{\"objects\": %u, \"before\": %zu, \"alive\": %zu, \"after\": %zu, \"per_pair\": %.1f, \"kept\": %lld}\n", n,
         before, alive, after, (double)(alive - before) / n, (long long)after - (long long)before);
  free(bufs);
  free(groups);
  wgpuBindGroupLayoutRelease(bgl);
  wgpuComputePipelineRelease(pipe);
  wgpuShaderModuleRelease(sm);
  c.workload_done = false;
  return wp_end(&c, 0);
}
