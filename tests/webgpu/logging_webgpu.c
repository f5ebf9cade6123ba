/* wgpuDeviceSetLoggingCallback through the layer (issue 40: it was refused
 * with a validation error). The device asks Dawn for its dump_shaders
 * toggle, which logs every shader it compiles at info level: a known
 * source of log messages. Checked:
 *   - messages reach the program's callback, with its userdata;
 *   - after a forced loss, the recovered device's messages (the rebuild
 *     compiles the pipeline again) still do: the callback follows the
 *     program's device across native devices;
 *   - the callback never runs under an unlost lock: it makes and releases
 *     a buffer on the same device (an engine call, which would wait for
 *     ever on a lock its own thread holds);
 *   - a NULL callback stops them; messages after the device's release go
 *     nowhere (no call into freed memory: ASan's runs).
 * Through the layer only (a forced loss directly loses the device for
 * good). */
#include "wgpu_layer.h"

static wp_ctx ctx;
static atomic_int messages, wrong_userdata, inner_buffers;

static void on_log(WGPULoggingType type, WGPUStringView message, void *u1, void *u2) {
  (void)type, (void)message;
  if (u1 != &ctx || u2 != &messages) atomic_fetch_add(&wrong_userdata, 1);
  atomic_fetch_add(&messages, 1);
  WGPUBuffer b = wp_buffer(&ctx, "made in the log callback", WGPUBufferUsage_Storage, 256);
  if (b) {
    atomic_fetch_add(&inner_buffers, 1);
    wgpuBufferRelease(b);
  }
}

static const char *k_wgsl =
    "@group(0) @binding(0) var<storage, read_write> out: array<u32>;\n"
    "@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) {\n"
    "  if (g.x < arrayLength(&out)) { out[g.x] = g.x * 7u + 3u; }\n"
    "}\n";

/* Makes a pipeline, runs it over 256 words and checks them. */
static bool run_once(wp_ctx *c, const char *label) {
  WGPUShaderModule sm = wp_shader(c, label, k_wgsl);
  WGPUComputePipeline p = wp_pipeline(c, label, sm, "main", NULL);
  WGPUBuffer out = wp_buffer(c, "out", WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc, 1024);
  WGPUBindGroupLayout l = wgpuComputePipelineGetBindGroupLayout(p, 0);
  WGPUBindGroupEntry e = wp_bind_buffer(0, out, 0, 1024);
  WGPUBindGroup g = wp_bind_group(c, "group", l, &e, 1);
  WGPUCommandEncoder enc = wp_encoder(c, label);
  wp_dispatch(enc, p, g, 4, 1, 1);
  wp_submit(c, enc);
  uint32_t got[256], want[256];
  for (uint32_t i = 0; i < 256; i++) want[i] = i * 7u + 3u;
  bool ok = wp_read_buffer(c, out, 0, sizeof got, got) && wp_check_u32(label, got, want, 256);
  wgpuBindGroupRelease(g);
  wgpuBindGroupLayoutRelease(l);
  wgpuBufferRelease(out);
  wgpuComputePipelineRelease(p);
  wgpuShaderModuleRelease(sm);
  return ok;
}

static bool workload(wp_ctx *c) {
  wgpuDeviceSetLoggingCallback(c->device, (WGPULoggingCallbackInfo){.callback = on_log, .userdata1 = c,
                                                                     .userdata2 = &messages});
  bool ok = run_once(c, "first");
  int first = atomic_load(&messages);
  printf("%d log messages from the first pipeline\n", first);
  if (first < 1) {
    printf("FAIL the implementation's messages did not reach the callback\n");
    ok = false;
  }
  wgpuDeviceForceLoss(c->device, WGPUDeviceLostReason_Unknown, WP_STR("logging_webgpu: a forced loss"));
  ok &= run_once(c, "after the loss");
  int second = atomic_load(&messages);
  printf("%d log messages after a forced loss and its recovery\n", second - first);
  if (second <= first) {
    printf("FAIL no messages from the recovered device's native device\n");
    ok = false;
  }
  wgpuDeviceSetLoggingCallback(c->device, (WGPULoggingCallbackInfo){0});
  ok &= run_once(c, "no callback");
  if (atomic_load(&messages) != second) {
    printf("FAIL %d messages after the callback was cleared\n", atomic_load(&messages) - second);
    ok = false;
  }
  if (atomic_load(&wrong_userdata) || atomic_load(&inner_buffers) != second) {
    printf("FAIL %d calls with the wrong userdata; %d of %d buffers made from inside the callback\n",
           atomic_load(&wrong_userdata), atomic_load(&inner_buffers), second);
    ok = false;
  }
  return ok;
}

int main(int argc, char **argv) {
  int rc = wp_start(&ctx, "logging", argc, argv);
  if (rc) return wp_end(&ctx, rc);
  const char *toggles[] = {"dump_shaders"};
  WGPUDawnTogglesDescriptor t = {.chain = {.sType = WGPUSType_DawnTogglesDescriptor},
                                 .enabledToggleCount = 1,
                                 .enabledToggles = toggles};
  ctx.device_chain = &t.chain;
  return wp_layer_main(&ctx, workload);
}
