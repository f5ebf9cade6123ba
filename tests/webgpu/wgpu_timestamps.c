/* Timestamp queries on webgpu.h alone (skipped, 77, when the adapter lacks
 * TimestampQuery). Four compute passes (times WGPU_PROG_SCALE) in one
 * submit, each with timestampWrites at its beginning and end into one query
 * set; ResolveQuerySet into a QUERY_RESOLVE buffer, a copy into a MAP_READ
 * buffer, and a map. Every pass must end no earlier than it began. The
 * timestamps differ from run to run, so they stay out of the digest; the
 * data the passes computed is checked against the CPU and digested. */
#include "wgpu_prog.h"

#define N 65536

static const char *step_wgsl = "@group(0) @binding(0) var<storage, read_write> x: array<u32>;\n"
                               "@compute @workgroup_size(64)\n"
                               "fn main(@builtin(global_invocation_id) g: vec3u) {\n"
                               "  if (g.x < arrayLength(&x)) { x[g.x] = x[g.x] * 5u + 1u; }\n"
                               "}\n";

static bool run(wp_ctx *c) {
  const uint32_t passes = 4 * c->scale, queries = 2 * passes;
  const uint64_t stamp_bytes = (uint64_t)queries * 8;
  uint32_t *want = wp_alloc(N * 4), *got = wp_alloc(N * 4);
  uint64_t *stamps = wp_alloc((size_t)stamp_bytes);
  uint32_t seed = 0xb5297a4du;
  for (uint32_t i = 0; i < N; i++) want[i] = wp_rand(&seed);
  WGPUBuffer data = wp_buffer_from(c, "data", WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc, want, N * 4);
  for (uint32_t p = 0; p < passes; p++)
    for (uint32_t i = 0; i < N; i++) want[i] = want[i] * 5u + 1u;

  WGPUQuerySetDescriptor qd = {
      .label = WP_STR("timestamps"), .type = WGPUQueryType_Timestamp, .count = queries};
  WGPUQuerySet set = wgpuDeviceCreateQuerySet(c->device, &qd);
  WGPUBuffer resolved =
      wp_buffer(c, "resolved", WGPUBufferUsage_QueryResolve | WGPUBufferUsage_CopySrc, stamp_bytes);
  WGPUBuffer stamps_map =
      wp_buffer(c, "timestamps readback", WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst, stamp_bytes);
  WGPUShaderModule module = wp_shader(c, "step", step_wgsl);
  WGPUComputePipeline pipeline = wp_pipeline(c, "step", module, "main", NULL);
  WGPUBindGroupLayout bgl = wgpuComputePipelineGetBindGroupLayout(pipeline, 0);
  WGPUBindGroupEntry e = wp_bind_buffer(0, data, 0, WGPU_WHOLE_SIZE);
  WGPUBindGroup group = wp_bind_group(c, "step", bgl, &e, 1);

  WGPUCommandEncoder enc = wp_encoder(c, "timed passes");
  for (uint32_t p = 0; p < passes; p++) {
    WGPUPassTimestampWrites tw = {
        .querySet = set, .beginningOfPassWriteIndex = 2 * p, .endOfPassWriteIndex = 2 * p + 1};
    WGPUComputePassDescriptor pd = {.label = WP_STR("timed pass"), .timestampWrites = &tw};
    WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(enc, &pd);
    wgpuComputePassEncoderSetPipeline(pass, pipeline);
    wgpuComputePassEncoderSetBindGroup(pass, 0, group, 0, NULL);
    wgpuComputePassEncoderDispatchWorkgroups(pass, N / 64, 1, 1);
    wgpuComputePassEncoderEnd(pass);
    wgpuComputePassEncoderRelease(pass);
  }
  wgpuCommandEncoderResolveQuerySet(enc, set, 0, queries, resolved, 0);
  wgpuCommandEncoderCopyBufferToBuffer(enc, resolved, 0, stamps_map, 0, stamp_bytes);
  wp_submit(c, enc);

  bool ok = wp_map_read(c, stamps_map, 0, (size_t)stamp_bytes, stamps);
  for (uint32_t p = 0; ok && p < passes; p++) {
    if (stamps[2 * p + 1] < stamps[2 * p]) {
      printf("pass %u ends (%llu) before it begins (%llu)\n", p, (unsigned long long)stamps[2 * p + 1],
             (unsigned long long)stamps[2 * p]);
      ok = false;
    }
  }
  if (ok)
    fprintf(stderr, "timestamps: %u passes, the first %llu ns\n", passes,
            (unsigned long long)(stamps[1] - stamps[0]));
  ok = ok && wp_read_buffer(c, data, 0, N * 4, got) && wp_check_u32("the data", got, want, N);

  wgpuBindGroupRelease(group);
  wgpuBindGroupLayoutRelease(bgl);
  wgpuComputePipelineRelease(pipeline);
  wgpuShaderModuleRelease(module);
  wgpuBufferRelease(stamps_map);
  wgpuBufferRelease(resolved);
  wgpuQuerySetRelease(set);
  wgpuBufferRelease(data);
  free(stamps);
  free(got);
  free(want);
  return ok;
}

int main(int argc, char **argv) {
  wp_ctx c;
  int rc = wp_start(&c, "timestamps", argc, argv);
  static const WGPUFeatureName features[] = {WGPUFeatureName_TimestampQuery};
  if (!rc) rc = wp_open_device(&c, features, WP_COUNT(features), NULL);
  if (rc) return wp_end(&c, rc);
  return wp_main(&c, run);
}
