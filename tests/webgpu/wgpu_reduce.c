/* A reduction with atomics on webgpu.h alone: about a million u32 values
 * (1 Mi times WGPU_PROG_SCALE) go into 256 buckets by their top byte. Each
 * workgroup counts its share and sums its low halves with atomics in
 * workgroup memory, then adds them into the global histogram with atomics
 * in storage; a second kernel adds the 256 buckets up by a tree in
 * workgroup memory. The histogram is cleared with ClearBuffer before each
 * run; the device asks for the binding size the input needs (requiredLimits).
 * Every bucket and both totals are checked against the CPU: integer sums
 * wrap the same way on both sides, so the order of the atomics is free. */
#include "wgpu_prog.h"

#define BUCKETS 256
#define ITEMS 16 /* values per invocation */
#define GROUP 256

static const char *histogram_wgsl =
    "struct Params { n: u32, pad0: u32, pad1: u32, pad2: u32 }\n"
    "@group(0) @binding(0) var<storage, read> values: array<u32>;\n"
    "@group(0) @binding(1) var<storage, read_write> counts: array<atomic<u32>, 256>;\n"
    "@group(0) @binding(2) var<storage, read_write> sums: array<atomic<u32>, 256>;\n"
    "@group(0) @binding(3) var<uniform> params: Params;\n"
    "var<workgroup> local_counts: array<atomic<u32>, 256>;\n"
    "var<workgroup> local_sums: array<atomic<u32>, 256>;\n"
    "@compute @workgroup_size(256)\n"
    "fn main(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_index) lid: u32) {\n"
    "  let base = wid.x * 256u * 16u;\n"
    "  for (var j = 0u; j < 16u; j++) {\n"
    "    let i = base + j * 256u + lid;\n"
    "    if (i < params.n) {\n"
    "      let v = values[i];\n"
    "      atomicAdd(&local_counts[v >> 24u], 1u);\n"
    "      atomicAdd(&local_sums[v >> 24u], v & 0xffffu);\n"
    "    }\n"
    "  }\n"
    "  workgroupBarrier();\n"
    "  atomicAdd(&counts[lid], atomicLoad(&local_counts[lid]));\n"
    "  atomicAdd(&sums[lid], atomicLoad(&local_sums[lid]));\n"
    "}\n";

static const char *total_wgsl = "@group(0) @binding(0) var<storage, read> hist: array<u32, 512>;\n"
                                "@group(0) @binding(1) var<storage, read_write> total: array<u32, 2>;\n"
                                "var<workgroup> sc: array<u32, 256>;\n"
                                "var<workgroup> ss: array<u32, 256>;\n"
                                "@compute @workgroup_size(256)\n"
                                "fn main(@builtin(local_invocation_index) lid: u32) {\n"
                                "  sc[lid] = hist[lid];\n"
                                "  ss[lid] = hist[256u + lid];\n"
                                "  workgroupBarrier();\n"
                                "  for (var s = 128u; s > 0u; s >>= 1u) {\n"
                                "    if (lid < s) {\n"
                                "      sc[lid] += sc[lid + s];\n"
                                "      ss[lid] += ss[lid + s];\n"
                                "    }\n"
                                "    workgroupBarrier();\n"
                                "  }\n"
                                "  if (lid == 0u) {\n"
                                "    total[0] = sc[0];\n"
                                "    total[1] = ss[0];\n"
                                "  }\n"
                                "}\n";

static uint32_t value_count(const wp_ctx *c) { return (1u << 20) * c->scale; }

static bool run(wp_ctx *c) {
  const uint32_t n = value_count(c);
  const uint64_t bytes = (uint64_t)n * 4;
  uint32_t *values = wp_alloc(bytes);
  uint32_t want_hist[2 * BUCKETS] = {0}, got_hist[2 * BUCKETS], want_total[2] = {0}, got_total[2];
  uint32_t seed = 0x2545f491u;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t v = wp_rand(&seed);
    values[i] = v;
    want_hist[v >> 24]++;
    want_hist[BUCKETS + (v >> 24)] += v & 0xffffu;
  }
  for (int b = 0; b < BUCKETS; b++) {
    want_total[0] += want_hist[b];
    want_total[1] += want_hist[BUCKETS + b];
  }

  WGPUBuffer buf_values = wp_buffer_from(c, "values", WGPUBufferUsage_Storage, values, bytes);
  WGPUBuffer buf_hist =
      wp_buffer(c, "histogram", WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc | WGPUBufferUsage_CopyDst,
                sizeof want_hist);
  WGPUBuffer buf_total =
      wp_buffer(c, "total", WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc, sizeof want_total);
  const uint32_t params[4] = {n, 0, 0, 0};
  WGPUBuffer buf_params = wp_buffer_from(c, "params", WGPUBufferUsage_Uniform, params, sizeof params);

  /* Layout "auto" for both: the bind group layouts come from the shaders. */
  WGPUShaderModule mod_hist = wp_shader(c, "histogram", histogram_wgsl);
  WGPUShaderModule mod_total = wp_shader(c, "total", total_wgsl);
  WGPUComputePipeline pipe_hist = wp_pipeline(c, "histogram", mod_hist, "main", NULL);
  WGPUComputePipeline pipe_total = wp_pipeline(c, "total", mod_total, "main", NULL);
  WGPUBindGroupLayout bgl_hist = wgpuComputePipelineGetBindGroupLayout(pipe_hist, 0);
  WGPUBindGroupLayout bgl_total = wgpuComputePipelineGetBindGroupLayout(pipe_total, 0);
  /* Counts and sums are the two halves of one buffer. */
  WGPUBindGroupEntry he[4] = {
      wp_bind_buffer(0, buf_values, 0, WGPU_WHOLE_SIZE),
      wp_bind_buffer(1, buf_hist, 0, BUCKETS * 4),
      wp_bind_buffer(2, buf_hist, BUCKETS * 4, BUCKETS * 4),
      wp_bind_buffer(3, buf_params, 0, sizeof params),
  };
  WGPUBindGroup group_hist = wp_bind_group(c, "histogram", bgl_hist, he, 4);
  WGPUBindGroupEntry te[2] = {
      wp_bind_buffer(0, buf_hist, 0, WGPU_WHOLE_SIZE),
      wp_bind_buffer(1, buf_total, 0, WGPU_WHOLE_SIZE),
  };
  WGPUBindGroup group_total = wp_bind_group(c, "total", bgl_total, te, 2);

  WGPUCommandEncoder enc = wp_encoder(c, "reduce");
  wgpuCommandEncoderClearBuffer(enc, buf_hist, 0, WGPU_WHOLE_SIZE);
  wp_dispatch(enc, pipe_hist, group_hist, (n + GROUP * ITEMS - 1) / (GROUP * ITEMS), 1, 1);
  wp_dispatch(enc, pipe_total, group_total, 1, 1, 1);
  wp_submit(c, enc);
  bool ok = wp_read_buffer(c, buf_hist, 0, sizeof got_hist, got_hist) &&
            wp_read_buffer(c, buf_total, 0, sizeof got_total, got_total) &&
            wp_check_u32("bucket counts", got_hist, want_hist, BUCKETS) &&
            wp_check_u32("bucket sums", got_hist + BUCKETS, want_hist + BUCKETS, BUCKETS) &&
            wp_check_u32("totals", got_total, want_total, 2);

  wgpuBindGroupRelease(group_total);
  wgpuBindGroupRelease(group_hist);
  wgpuBindGroupLayoutRelease(bgl_total);
  wgpuBindGroupLayoutRelease(bgl_hist);
  wgpuComputePipelineRelease(pipe_total);
  wgpuComputePipelineRelease(pipe_hist);
  wgpuShaderModuleRelease(mod_total);
  wgpuShaderModuleRelease(mod_hist);
  wgpuBufferRelease(buf_params);
  wgpuBufferRelease(buf_total);
  wgpuBufferRelease(buf_hist);
  wgpuBufferRelease(buf_values);
  free(values);
  return ok;
}

int main(int argc, char **argv) {
  wp_ctx c;
  int rc = wp_start(&c, "reduce", argc, argv);
  if (rc) return wp_end(&c, rc);
  /* The input is one binding: ask for what it needs, at least the defaults
   * (128 MiB bound, 256 MiB in one buffer), as a program does whose data
   * outgrows them. */
  uint64_t bytes = (uint64_t)value_count(&c) * 4;
  WGPULimits want = wp_limits_undefined();
  want.maxStorageBufferBindingSize = bytes > (128ull << 20) ? bytes : (128ull << 20);
  want.maxBufferSize = bytes > (256ull << 20) ? bytes : (256ull << 20);
  if (want.maxStorageBufferBindingSize > c.adapter_limits.maxStorageBufferBindingSize ||
      want.maxBufferSize > c.adapter_limits.maxBufferSize) {
    fprintf(stderr, "reduce: skipped: %llu bytes in one binding exceed the adapter's limits\n",
            (unsigned long long)bytes);
    return wp_end(&c, WP_SKIP);
  }
  rc = wp_open_device(&c, NULL, 0, &want);
  if (rc) return wp_end(&c, rc);
  return wp_main(&c, run);
}
