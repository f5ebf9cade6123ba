/* unlost bench overhead: the same work through raw webgpu.h (the proc
 * table, no unlost) and through unlost, interleaved in one run. */
#include "cli.h"
#include "core/core.h"
#include "res/obj.h"

static const char *small_wgsl =
    "@group(0) @binding(0) var<storage, read_write> v: array<u32>;\n"
    "@compute @workgroup_size(64)\n"
    "fn main(@builtin(global_invocation_id) id: vec3u) {\n"
    "  if (id.x < arrayLength(&v)) { v[id.x] = v[id.x] + 1u; }\n"
    "}\n";

#define K 8 /* distinct bind groups: every dispatch changes the bind group */

typedef struct raw_rig {
  WGPUShaderModule sm;
  WGPUComputePipeline p;
  WGPUBindGroupLayout bgl;
  WGPUBuffer buf[K];
  WGPUBindGroup bg[K];
} raw_rig;

static void raw_open(ul_device *d, raw_rig *r) {
  const ul__wgpu *w = d->wgpu;
  WGPUShaderSourceWGSL src = {{NULL, WGPUSType_ShaderSourceWGSL}, ul__sv(small_wgsl)};
  WGPUShaderModuleDescriptor smd = {(WGPUChainedStruct *)&src, ul__sv("raw")};
  r->sm = w->DeviceCreateShaderModule(d->device, &smd);
  WGPUComputePipelineDescriptor cpd = {0};
  cpd.compute.module = r->sm;
  cpd.compute.entryPoint = ul__sv("main");
  r->p = w->DeviceCreateComputePipeline(d->device, &cpd);
  r->bgl = w->ComputePipelineGetBindGroupLayout(r->p, 0);
  for (int i = 0; i < K; i++) {
    WGPUBufferDescriptor bd = {0};
    bd.usage = WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc | WGPUBufferUsage_CopyDst;
    bd.size = 256;
    r->buf[i] = w->DeviceCreateBuffer(d->device, &bd);
    WGPUBindGroupEntry e = {0};
    e.buffer = r->buf[i];
    e.size = WGPU_WHOLE_SIZE;
    WGPUBindGroupDescriptor gd = {NULL, ul__sv(NULL), r->bgl, 1, &e};
    r->bg[i] = w->DeviceCreateBindGroup(d->device, &gd);
  }
}

static void raw_close(ul_device *d, raw_rig *r) {
  const ul__wgpu *w = d->wgpu;
  for (int i = 0; i < K; i++) {
    w->BindGroupRelease(r->bg[i]);
    w->BufferDestroy(r->buf[i]);
    w->BufferRelease(r->buf[i]);
  }
  w->BindGroupLayoutRelease(r->bgl);
  w->ComputePipelineRelease(r->p);
  w->ShaderModuleRelease(r->sm);
}

/* One frame of raw work: n dispatches, a bind group change before each. */
static ul_status raw_frame(ul_device *d, raw_rig *r, int n) {
  const ul__wgpu *w = d->wgpu;
  WGPUCommandEncoder e = w->DeviceCreateCommandEncoder(d->device, NULL);
  WGPUComputePassEncoder pass = w->CommandEncoderBeginComputePass(e, NULL);
  w->ComputePassEncoderSetPipeline(pass, r->p);
  for (int i = 0; i < n; i++) {
    w->ComputePassEncoderSetBindGroup(pass, 0, r->bg[i % K], 0, NULL);
    w->ComputePassEncoderDispatchWorkgroups(pass, 1, 1, 1);
  }
  w->ComputePassEncoderEnd(pass);
  WGPUCommandBuffer cb = w->CommandEncoderFinish(e, NULL);
  w->QueueSubmit(d->queue, 1, &cb);
  w->CommandBufferRelease(cb);
  w->ComputePassEncoderRelease(pass);
  w->CommandEncoderRelease(e);
  return ul__queue_wait_idle(d, 60000000000ull);
}

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int bench_overhead(int argc, char **argv, bool json);
int bench_overhead(int argc, char **argv, bool json) {
  int n = 10000, reps = 9;
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--dispatches") && i + 1 < argc) n = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
  }
  if (n < 1 || reps < 1 || reps > 64) {
    fprintf(stderr, "unlost bench overhead: bad --dispatches or --reps\n");
    return 2;
  }
  ul_env *env = NULL;
  ul_device *dev = NULL;
  ul_shader sh = {0};
  ul_compute_pipeline p = {0};
  ul_buffer buf[K] = {{0}};
  ul_bind_group bg[K] = {{0}};
  ul_cmd *cmd = NULL;
  raw_rig raw;
  memset(&raw, 0, sizeof raw);
  ul_status s = ul_env_create(NULL, &env);
  if (!s) s = ul_device_create(env, &(ul_device_desc){.label = "bench-overhead"}, &dev);
  if (!s) s = ul_shader_create(dev, &(ul_shader_desc){.wgsl = small_wgsl}, &sh);
  if (!s) s = ul_compute_pipeline_create(dev, &(ul_compute_pipeline_desc){.shader = sh}, &p);
  for (int i = 0; i < K && !s; i++) {
    s = ul_buffer_create(dev, &(ul_buffer_desc){.size = 256}, &buf[i]);
    if (!s) s = ul_bind_group_create(dev, &(ul_bind_group_desc){.pipeline = p, .entry_count = 1,
        .entries = {{.binding = 0, .buffer = buf[i]}}}, &bg[i]);
  }
  if (!s) s = ul_cmd_create(dev, "overhead", &cmd);
  uint64_t t0 = ul__now_ns();
  for (int i = 0; i < n && !s; i++) s = ul_cmd_dispatch(cmd, p, &bg[i % K], 1, 1, 1, 1);
  double record_ns = (double)(ul__now_ns() - t0) / n;
  double t_raw[64], t_ul[64], ratio[64];
  if (!s) {
    ul__device_lock(dev);
    raw_open(dev, &raw);
    ul__device_unlock(dev);
    /* warm both paths (pipeline compile, first use) */
    ul__device_lock(dev);
    s = raw_frame(dev, &raw, n);
    ul__device_unlock(dev);
    uint64_t serial;
    if (!s) s = ul_cmd_submit(dev, cmd, &serial);
    if (!s) s = ul_device_wait(dev, serial, 60000);
  }
  for (int r = 0; r < reps && !s; r++) {
    /* alternate which goes first */
    for (int k = 0; k < 2 && !s; k++) {
      bool do_raw = (k == 0) == (r % 2 == 0);
      t0 = ul__now_ns();
      if (do_raw) {
        ul__device_lock(dev);
        s = raw_frame(dev, &raw, n);
        ul__device_unlock(dev);
        t_raw[r] = (double)(ul__now_ns() - t0) / 1e6;
      } else {
        uint64_t serial;
        s = ul_cmd_submit(dev, cmd, &serial);
        if (!s) s = ul_device_wait(dev, serial, 60000);
        t_ul[r] = (double)(ul__now_ns() - t0) / 1e6;
      }
    }
    ratio[r] = t_ul[r] / t_raw[r];
  }
  int rc = 0;
  if (s) {
    fprintf(stderr, "unlost bench overhead: %s: %s\n", ul_status_name(s), ul_last_error());
    rc = 1;
  } else {
    ul_adapter_info ai;
    ul_device_adapter_info(dev, &ai);
    qsort(t_raw, (size_t)reps, sizeof(double), cmp_d);
    qsort(t_ul, (size_t)reps, sizeof(double), cmp_d);
    qsort(ratio, (size_t)reps, sizeof(double), cmp_d);
    int m = reps / 2;
    double med_ratio = t_ul[m] / t_raw[m];
    if (json) {
      printf("{\"bench\":\"overhead\",\"adapter\":");
      cli_json_string(stdout, ai.name);
      printf(",\"dispatches\":%d,\"repetitions\":%d,\"raw_dispatch_ms\":%.3f,\"unlost_dispatch_ms\":%.3f,"
             "\"ratio_dispatch\":%.4f,\"ratio_dispatch_min\":%.4f,\"ratio_dispatch_max\":%.4f,"
             "\"record_ns_per_dispatch\":%.1f}\n",
             n, reps, t_raw[m], t_ul[m], med_ratio, ratio[0], ratio[reps - 1], record_ns);
    } else {
      printf("adapter        %s\n", ai.name);
      printf("raw webgpu.h   %.3f ms per frame of %d dispatches (median of %d)\n", t_raw[m], n, reps);
      printf("unlost         %.3f ms (ratio %.4f; per-rep ratios %.4f..%.4f)\n", t_ul[m], med_ratio,
             ratio[0], ratio[reps - 1]);
      printf("recording      %.1f ns per dispatch (once; a list is reused)\n", record_ns);
    }
  }
  if (raw.p) {
    ul__device_lock(dev);
    raw_close(dev, &raw);
    ul__device_unlock(dev);
  }
  ul_cmd_destroy(cmd);
  for (int i = 0; i < K; i++) {
    ul_bind_group_destroy(dev, bg[i]);
    ul_buffer_destroy(dev, buf[i]);
  }
  ul_compute_pipeline_destroy(dev, p);
  ul_shader_destroy(dev, sh);
  ul_device_destroy(dev);
  ul_env_destroy(env);
  return rc;
}
