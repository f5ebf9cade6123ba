/* Teardown after any recovery history (issue 36, observation 13): a
 * program on webgpu.h alone that works under a fault schedule (the test
 * sets UNLOST_CHAOS: losses, recoveries that fail, a device that ends
 * BROKEN or lost for good), then ends one of two ways:
 *
 *   teardown_webgpu release [expect-lost]
 *       releases everything it holds, the device before its objects (as a
 *       C++ wrapper's destructors may), with a map still pending;
 *   teardown_webgpu exit [expect-lost]
 *       releases nothing and returns from main.
 *
 * Under ASan a double free, a use after free or a crash at exit fails it.
 * Every result read back with success must equal the CPU's; `expect-lost`
 * also asks that the device was lost for good on the way (the schedule
 * made recovery give up), so that the teardown after it is what ran.
 * Named teardown_webgpu.c, not wgpu_*.c: it is not one of the chaos
 * harness's programs (its calls depend on when the device gives up). */
#include "wgpu_prog.h"

#define STEPS 40
#define KEPT 24 /* buffers and bind groups kept alive at once */
#define N 256   /* u32 per buffer */

static const char *add_wgsl =
    "@group(0) @binding(0) var<storage, read> a: array<u32>;\n"
    "@group(0) @binding(1) var<storage, read_write> b: array<u32>;\n"
    "@compute @workgroup_size(64)\n"
    "fn main(@builtin(global_invocation_id) g: vec3u) {\n"
    "  if (g.x < arrayLength(&b)) { b[g.x] = a[g.x] * 3u + 1u; }\n"
    "}\n";

static void on_pending_map(WGPUMapAsyncStatus status, WGPUStringView message, void *u1, void *u2) {
  (void)status;
  (void)message;
  (void)u1;
  (void)u2;
}

int main(int argc, char **argv) {
  if (argc < 2 || (strcmp(argv[1], "release") && strcmp(argv[1], "exit"))) {
    fprintf(stderr, "usage: %s release|exit [expect-lost]\n", argv[0]);
    return WP_USAGE;
  }
  bool release = !strcmp(argv[1], "release");
  bool expect_lost = argc > 2 && !strcmp(argv[2], "expect-lost");
  wp_ctx c;
  int rc = wp_start(&c, "teardown", 1, argv);
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

  WGPUBuffer in[KEPT] = {0}, out[KEPT] = {0};
  WGPUBindGroup group[KEPT] = {0};
  uint32_t data[N], want[N], got[N];
  uint32_t seed = 12345;
  int wrong = 0, read_ok = 0, read_failed = 0, steps = 0;
  for (int s = 0; s < STEPS; s++, steps++) {
    int k = s % KEPT;
    /* The oldest of the kept objects goes; new ones take its place. */
    if (group[k]) wgpuBindGroupRelease(group[k]);
    if (in[k]) wgpuBufferRelease(in[k]);
    if (out[k]) wgpuBufferRelease(out[k]);
    for (int i = 0; i < N; i++) {
      data[i] = wp_rand(&seed);
      want[i] = data[i] * 3u + 1u;
    }
    in[k] = wp_buffer_from(&c, "in", WGPUBufferUsage_Storage, data, sizeof data);
    out[k] = wp_buffer(&c, "out", WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc, sizeof data);
    WGPUBindGroupEntry be[2] = {wp_bind_buffer(0, in[k], 0, WGPU_WHOLE_SIZE),
                                wp_bind_buffer(1, out[k], 0, WGPU_WHOLE_SIZE)};
    group[k] = wp_bind_group(&c, "add", bgl, be, 2);
    WGPUCommandEncoder enc = wp_encoder(&c, "add");
    wp_dispatch(enc, pipeline, group[k], N / 64, 1, 1);
    wp_submit(&c, enc);
    if (wp_read_buffer(&c, out[k], 0, sizeof got, got)) {
      read_ok++;
      if (memcmp(got, want, sizeof got)) {
        wrong++;
        fprintf(stderr, "teardown: step %d: wrong result read with success\n", s);
      }
    } else {
      read_failed++;
    }
    /* Lost for good: a few more calls into the lost device, then stop. */
    if (atomic_load(&c.lost) && s + 1 < STEPS) s = s < STEPS - 4 ? STEPS - 4 : s;
  }
  printf("teardown: %d steps, %d reads ok, %d failed, %d wrong, device %s\n", steps, read_ok, read_failed, wrong,
         atomic_load(&c.lost) ? "lost for good" : "working");
  fflush(stdout);
  if (wrong) rc = WP_FAIL;
  if (expect_lost && !atomic_load(&c.lost)) {
    printf("FAIL teardown: the schedule did not make the device give up\n");
    rc = WP_FAIL;
  }
  if (!release) {
    /* Nothing released: the process ends with the device, its objects,
     * the instance and whatever the layer still runs. */
    printf("%s teardown (exit)\n", rc ? "FAIL" : "ok");
    return rc;
  }
  /* A map still pending when everything goes. */
  WGPUBuffer staging = wp_buffer(&c, "pending", WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst, 64);
  WGPUBufferMapCallbackInfo mcb = {.mode = WGPUCallbackMode_AllowProcessEvents, .callback = on_pending_map};
  wgpuBufferMapAsync(staging, WGPUMapMode_Read, 0, 64, mcb);
  atomic_store(&c.closing, true);
  /* The device, queue, adapter and instance first, then the objects. */
  wgpuQueueRelease(c.queue);
  wgpuDeviceRelease(c.device);
  wgpuAdapterRelease(c.adapter);
  wgpuInstanceRelease(c.instance);
  wgpuBufferRelease(staging);
  for (int k = 0; k < KEPT; k++) {
    if (group[k]) wgpuBindGroupRelease(group[k]);
    if (in[k]) wgpuBufferRelease(in[k]);
    if (out[k]) wgpuBufferRelease(out[k]);
  }
  wgpuComputePipelineRelease(pipeline);
  wgpuPipelineLayoutRelease(layout);
  wgpuBindGroupLayoutRelease(bgl);
  wgpuShaderModuleRelease(module);
  printf("%s teardown (release)\n", rc ? "FAIL" : "ok");
  return rc;
}
