/* One bind group used by several pipelines and several dispatches of one
 * command buffer, through the webgpu.h front door: what each dispatch
 * writes is decided by its own pipeline's shader, and the layer looks at a
 * bind group once a submit where the same pipeline and group repeat
 * (src/exec/commands.c, seen_groups). A shortcut keyed on the group alone
 * would take the first pipeline's answer for every later one.
 *
 * The two pipelines share one explicit layout (two read_write storage
 * bindings): `fwd` reads a and writes b, `back` reads b and writes a. One
 * command buffer runs fwd, back, fwd, back ... (ROUNDS pairs) on one group;
 * then a checkpoint (which copies only what the submits marked written)
 * and a forced loss; a and b are read back and compared with the CPU's
 * result. With a missed mark, the checkpoint keeps a's (or b's) old
 * contents and the loss brings those back: a wrong result, not an error.
 * Then the same with two groups alternating and a third pipeline that
 * writes nothing, so that a group's earlier pipeline was one that wrote
 * nothing. */
#include "wgpu_layer.h"

#define N 256u
#define ROUNDS 5

static const char *fwd_wgsl =
    "@group(0) @binding(0) var<storage, read_write> a: array<u32>;\n"
    "@group(0) @binding(1) var<storage, read_write> b: array<u32>;\n"
    "@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) {\n"
    "  if (g.x < arrayLength(&b)) { b[g.x] = a[g.x] * 3u + 1u; }\n"
    "}\n";
static const char *back_wgsl =
    "@group(0) @binding(0) var<storage, read_write> a: array<u32>;\n"
    "@group(0) @binding(1) var<storage, read_write> b: array<u32>;\n"
    "@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) {\n"
    "  if (g.x < arrayLength(&a)) { a[g.x] = b[g.x] + 7u; }\n"
    "}\n";
/* Reads both, writes neither (its result is never used). */
static const char *none_wgsl =
    "@group(0) @binding(0) var<storage, read_write> a: array<u32>;\n"
    "@group(0) @binding(1) var<storage, read_write> b: array<u32>;\n"
    "@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) {\n"
    "  var s = 0u;\n"
    "  if (g.x < arrayLength(&a)) { s = a[g.x] + b[g.x]; }\n"
    "  _ = s;\n"
    "}\n";

static wp_ctx ctx;

static void fwd_cpu(const uint32_t *a, uint32_t *b) {
  for (uint32_t i = 0; i < N; i++) b[i] = a[i] * 3u + 1u;
}
static void back_cpu(uint32_t *a, const uint32_t *b) {
  for (uint32_t i = 0; i < N; i++) a[i] = b[i] + 7u;
}

static WGPUBindGroup group(WGPUBindGroupLayout l, WGPUBuffer a, WGPUBuffer b, const char *label) {
  WGPUBindGroupEntry e[2] = {wp_bind_buffer(0, a, 0, N * 4), wp_bind_buffer(1, b, 0, N * 4)};
  return wp_bind_group(&ctx, label, l, e, 2);
}

/* sequence: for each dispatch, the pipeline (0 fwd, 1 back, 2 none) and
 * the group index. */
static bool run_case(const char *name, WGPUComputePipeline *pipes, WGPUBindGroup *groups, const int (*seq)[2],
                     int n, WGPUBuffer *bufs, uint32_t (*cpu)[N]) {
  WGPUCommandEncoder enc = wp_encoder(&ctx, name);
  WGPUComputePassDescriptor pd = {.label = WP_STR("pass")};
  WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(enc, &pd);
  for (int i = 0; i < n; i++) {
    wgpuComputePassEncoderSetPipeline(pass, pipes[seq[i][0]]);
    wgpuComputePassEncoderSetBindGroup(pass, 0, groups[seq[i][1]], 0, NULL);
    wgpuComputePassEncoderDispatchWorkgroups(pass, N / 64, 1, 1);
    uint32_t *a = cpu[2 * seq[i][1]], *b = cpu[2 * seq[i][1] + 1];
    if (seq[i][0] == 0) fwd_cpu(a, b);
    else if (seq[i][0] == 1) back_cpu(a, b);
  }
  wgpuComputePassEncoderEnd(pass);
  wgpuComputePassEncoderRelease(pass);
  wp_submit(&ctx, enc);
  /* The checkpoint copies what the submit marked written; the loss brings
   * back what the checkpoint kept. */
  if (ul_device_checkpoint(ul_wgpu_device(ctx.device)) != UL_OK) {
    printf("FAIL %s: checkpoint: %s\n", name, ul_last_error());
    return false;
  }
  wgpuDeviceForceLoss(ctx.device, WGPUDeviceLostReason_Unknown, WP_STR("sharedgroup_webgpu: a forced loss"));
  bool ok = true;
  uint32_t got[N];
  for (int k = 0; k < 4 && bufs[k]; k++) {
    char what[96];
    snprintf(what, sizeof what, "%s, buffer %c%d after a checkpoint and a loss", name, k % 2 ? 'b' : 'a', k / 2);
    ok = wp_read_buffer(&ctx, bufs[k], 0, N * 4, got) && wp_check_u32(what, got, cpu[k], N) && ok;
  }
  return ok;
}

static bool workload(wp_ctx *c) {
  (void)c;
  WGPUBindGroupLayoutEntry le[2] = {wp_layout_buffer(0, WGPUBufferBindingType_Storage, false, 0),
                                    wp_layout_buffer(1, WGPUBufferBindingType_Storage, false, 0)};
  WGPUBindGroupLayoutDescriptor ld = {.label = WP_STR("shared"), .entryCount = 2, .entries = le};
  WGPUBindGroupLayout l = wgpuDeviceCreateBindGroupLayout(ctx.device, &ld);
  WGPUPipelineLayoutDescriptor pld = {.label = WP_STR("shared"), .bindGroupLayoutCount = 1, .bindGroupLayouts = &l};
  WGPUPipelineLayout pl = wgpuDeviceCreatePipelineLayout(ctx.device, &pld);
  const char *src[3] = {fwd_wgsl, back_wgsl, none_wgsl};
  const char *names[3] = {"fwd", "back", "none"};
  WGPUComputePipeline pipes[3];
  for (int i = 0; i < 3; i++) {
    WGPUShaderModule m = wp_shader(&ctx, names[i], src[i]);
    pipes[i] = wp_pipeline(&ctx, names[i], m, "main", pl);
    wgpuShaderModuleRelease(m);
  }
  static uint32_t cpu[4][N];
  for (uint32_t k = 0; k < 4; k++)
    for (uint32_t i = 0; i < N; i++) cpu[k][i] = i * 2654435761u + k;
  WGPUBuffer bufs[4];
  for (int k = 0; k < 4; k++)
    bufs[k] = wp_buffer_from(&ctx, k % 2 ? "b" : "a", WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc, cpu[k],
                             N * 4);
  WGPUBindGroup groups[2] = {group(l, bufs[0], bufs[1], "g0"), group(l, bufs[2], bufs[3], "g1")};
  /* One group, fwd and back alternating. */
  int seq1[2 * ROUNDS][2];
  for (int i = 0; i < 2 * ROUNDS; i++) seq1[i][0] = i % 2, seq1[i][1] = 0;
  WGPUBuffer one[4] = {bufs[0], bufs[1], NULL, NULL};
  bool ok = run_case("one group, fwd and back alternating", pipes, groups, seq1, 2 * ROUNDS, one, cpu);
  /* Two groups alternating; each group's first use is by `none`, which
   * writes nothing, then fwd, then back. */
  static const int seq2[][2] = {{2, 0}, {2, 1}, {0, 0}, {0, 1}, {2, 0}, {1, 0}, {1, 1}, {0, 0}, {2, 1}, {0, 1}};
  ok = run_case("two groups, a pipeline that writes nothing first", pipes, groups, seq2,
                (int)(sizeof seq2 / sizeof seq2[0]), bufs, cpu) &&
       ok;
  for (int k = 0; k < 2; k++) wgpuBindGroupRelease(groups[k]);
  for (int k = 0; k < 4; k++) wgpuBufferRelease(bufs[k]);
  for (int i = 0; i < 3; i++) wgpuComputePipelineRelease(pipes[i]);
  wgpuPipelineLayoutRelease(pl);
  wgpuBindGroupLayoutRelease(l);
  if (ok) printf("ok sharedgroup\n");
  return ok;
}

int main(int argc, char **argv) {
  int rc = wp_start(&ctx, "sharedgroup", argc, argv);
  if (rc) return wp_end(&ctx, rc);
  return wp_layer_main(&ctx, workload);
}
