/* unlost bench recovery: loss to first dispatch after restore, against the
 * same rebuild through raw webgpu.h with queue writes, in the same run. */
#include "bench_internal.h"
#include "cli.h"
#include "core/adapter.h"
#include "res/obj.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

static const char *touch_wgsl =
    "@group(0) @binding(0) var<storage, read_write> w: array<u32>;\n"
    "@compute @workgroup_size(64)\n"
    "fn main(@builtin(global_invocation_id) id: vec3u) {\n"
    "  let i = id.x * 4099u % arrayLength(&w);\n"
    "  w[i] = w[i] + 1u;\n"
    "}\n";

static double ms_since(uint64_t t0) { return (double)(ul__now_ns() - t0) / 1e6; }

static ul_status make_file(const char *path, uint64_t bytes) {
  int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) return ul__fail(UL_ERR_IO, "create %s", path);
  uint32_t chunk[1 << 14];
  uint64_t x = 88172645463325252ull;
  for (uint64_t done = 0; done < bytes;) {
    for (size_t i = 0; i < UL__COUNT_OF(chunk); i++) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      chunk[i] = (uint32_t)x;
    }
    size_t n = (size_t)UL__MIN((uint64_t)sizeof chunk, bytes - done);
    if (write(fd, chunk, n) != (ssize_t)n) {
      close(fd);
      return ul__fail(UL_ERR_IO, "write %s", path);
    }
    done += n;
  }
  close(fd);
  return UL_OK;
}

/* The naive rebuild a program would do by hand: new adapter and device,
 * buffer filled with one queue write from the mapped file, shader,
 * pipeline, bind group, one dispatch, wait. */
static ul_status naive_rebuild(ul_env *env, const void *data, uint64_t bytes, double *ms) {
  const ul__wgpu *w = env->wgpu;
  uint64_t t0 = ul__now_ns();
  WGPUAdapter a = NULL;
  WGPUDevice dv = NULL;
  ul_status s = ul__request_adapter(env, env->instance, WGPUPowerPreference_HighPerformance, false,
                                    10000000000ull, &a);
  WGPULimits al, req;
  if (!s) {
    memset(&al, 0, sizeof al);
    w->AdapterGetLimits(a, &al);
    ul_limits want = {.max_buffer_size = UL_LIMIT_ADAPTER, .max_storage_buffer_binding_size = UL_LIMIT_ADAPTER};
    s = ul__limits_required(&want, &al, &req);
  }
  if (!s) {
    WGPUDeviceDescriptor dd = {0};
    dd.requiredLimits = &req;
    s = ul__request_device(env, env->instance, a, &dd, 10000000000ull, &dv);
  }
  if (s) {
    if (a) w->AdapterRelease(a);
    return s;
  }
  WGPUQueue q = w->DeviceGetQueue(dv);
  WGPUBufferDescriptor bd = {0};
  bd.usage = WGPUBufferUsage_Storage | WGPUBufferUsage_CopyDst;
  bd.size = bytes;
  WGPUBuffer b = w->DeviceCreateBuffer(dv, &bd);
  w->QueueWriteBuffer(q, b, 0, data, (size_t)bytes);
  WGPUShaderSourceWGSL src = {{NULL, WGPUSType_ShaderSourceWGSL}, ul__sv(touch_wgsl)};
  WGPUShaderModuleDescriptor smd = {(WGPUChainedStruct *)&src, ul__sv("touch")};
  WGPUShaderModule sm = w->DeviceCreateShaderModule(dv, &smd);
  WGPUComputePipelineDescriptor cpd = {0};
  cpd.compute.module = sm;
  cpd.compute.entryPoint = ul__sv("main");
  WGPUComputePipeline p = w->DeviceCreateComputePipeline(dv, &cpd);
  WGPUBindGroupLayout bgl = w->ComputePipelineGetBindGroupLayout(p, 0);
  WGPUBindGroupEntry e = {0};
  e.buffer = b;
  e.size = UL__MIN(bytes, req.maxStorageBufferBindingSize) & ~255ull;
  WGPUBindGroupDescriptor bgd = {NULL, ul__sv(NULL), bgl, 1, &e};
  WGPUBindGroup bg = w->DeviceCreateBindGroup(dv, &bgd);
  WGPUCommandEncoder enc = w->DeviceCreateCommandEncoder(dv, NULL);
  WGPUComputePassEncoder pass = w->CommandEncoderBeginComputePass(enc, NULL);
  w->ComputePassEncoderSetPipeline(pass, p);
  w->ComputePassEncoderSetBindGroup(pass, 0, bg, 0, NULL);
  w->ComputePassEncoderDispatchWorkgroups(pass, 1, 1, 1);
  w->ComputePassEncoderEnd(pass);
  WGPUCommandBuffer cb = w->CommandEncoderFinish(enc, NULL);
  w->QueueSubmit(q, 1, &cb);
  /* wait for the queue through a 4-byte readback */
  WGPUBufferDescriptor rd = {0};
  rd.usage = WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst;
  rd.size = 4;
  WGPUBuffer rb = w->DeviceCreateBuffer(dv, &rd);
  WGPUCommandEncoder enc2 = w->DeviceCreateCommandEncoder(dv, NULL);
  w->CommandEncoderCopyBufferToBuffer(enc2, b, 0, rb, 0, 4);
  WGPUCommandBuffer cb2 = w->CommandEncoderFinish(enc2, NULL);
  w->QueueSubmit(q, 1, &cb2);
  ul_device tmp = {0};
  tmp.env = env;
  tmp.wgpu = w;
  tmp.instance = env->instance;
  s = ul__wait_map(&tmp, rb, WGPUMapMode_Read, 0, 4, 60000000000ull);
  *ms = ms_since(t0);
  w->CommandBufferRelease(cb2);
  w->CommandEncoderRelease(enc2);
  w->BufferRelease(rb);
  w->CommandBufferRelease(cb);
  w->ComputePassEncoderRelease(pass);
  w->CommandEncoderRelease(enc);
  w->BindGroupRelease(bg);
  w->BindGroupLayoutRelease(bgl);
  w->ComputePipelineRelease(p);
  w->ShaderModuleRelease(sm);
  w->BufferDestroy(b);
  w->BufferRelease(b);
  w->QueueRelease(q);
  w->DeviceDestroy(dv);
  w->DeviceRelease(dv);
  w->AdapterRelease(a);
  return s;
}

int bench_recovery(int argc, char **argv, bool json) {
  uint64_t bytes = 256ull << 20;
  int reps = 3;
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--json")) continue;
    if (!strcmp(argv[i], "--bytes") && i + 1 < argc) {
      /* At most 64 GiB: the weights file is written to /tmp first. */
      if (!cli_size("bench recovery", "--bytes", argv[++i], 4096, 64ull << 30, &bytes)) return 2;
      bytes = (bytes + 3) & ~3ull;
    } else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
      if (!cli_int("bench recovery", "--reps", argv[++i], 1, 1000, &reps)) return 2;
    } else {
      fprintf(stderr, "unlost bench recovery: unknown or incomplete option '%s'\n", argv[i]);
      return 2;
    }
  }
  char path[] = "/tmp/unlost-bench-weights-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) {
    perror("mkstemp");
    return 1;
  }
  close(fd);
  ul_env *env = NULL;
  ul_device *dev = NULL;
  ul_buffer w = {0};
  ul_shader sh = {0};
  ul_compute_pipeline p = {0};
  ul_bind_group bg = {0};
  ul_cmd *cmd = NULL;
  void *map = MAP_FAILED;
  double rec[16], naive[16], restore_gbps[16], qw_gbps[16];
  if (reps > 16) reps = 16;
  ul_status s = make_file(path, bytes);
  ul_device_desc dd = {.label = "bench-recovery"};
  dd.required_limits.max_buffer_size = UL_LIMIT_ADAPTER;
  dd.required_limits.max_storage_buffer_binding_size = UL_LIMIT_ADAPTER;
  if (!s) s = ul_env_create(NULL, &env);
  if (!s) s = ul_device_create(env, &dd, &dev);
  if (!s) s = ul_buffer_create(dev, &(ul_buffer_desc){.label = "weights", .size = bytes,
      .restore = UL_RESTORE_SOURCE, .source_path = path}, &w);
  if (!s) s = ul_shader_create(dev, &(ul_shader_desc){.label = "touch", .wgsl = touch_wgsl}, &sh);
  if (!s) s = ul_compute_pipeline_create(dev, &(ul_compute_pipeline_desc){.shader = sh}, &p);
  ul_limits lim = {0};
  if (!s) s = ul_device_limits(dev, &lim);
  /* The kernel touches a window no larger than a storage binding may be. */
  uint64_t window = UL__MIN(bytes, lim.max_storage_buffer_binding_size & ~255ull);
  if (!s) s = ul_bind_group_create(dev, &(ul_bind_group_desc){.pipeline = p, .entry_count = 1,
      .entries = {{.binding = 0, .buffer = w, .size = window}}}, &bg);
  if (!s) s = ul_cmd_create(dev, "touch", &cmd);
  if (!s) s = ul_cmd_dispatch(cmd, p, &bg, 1, 1, 1, 1);
  if (!s) {
    map = mmap(NULL, (size_t)bytes, PROT_READ, MAP_PRIVATE, open(path, O_RDONLY), 0);
    if (map == MAP_FAILED) s = ul__fail(UL_ERR_IO, "mmap");
  }
  for (int r = 0; r < reps && !s; r++) {
    /* unlost: loss -> first dispatch done on the rebuilt device */
    uint64_t t0 = ul__now_ns();
    s = ul_device_force_loss(dev, "bench");
    if (!s) s = ul_cmd_submit(dev, cmd, NULL);
    if (!s) s = ul_device_wait_idle(dev, 60000);
    rec[r] = ms_since(t0);
    if (!s) s = naive_rebuild(env, map, bytes, &naive[r]);
    /* the two upload paths alone, on the same device */
    if (!s) {
      ul__device_lock(dev);
      ul__obj *o;
      s = ul__obj_get(dev, w.id, UL__OBJ_BUFFER, "bench", &o);
      if (!s) {
        ul__queue_wait_idle(dev, 60000000000ull);
        t0 = ul__now_ns();
        s = ul__buffer_upload(dev, o, 0, map, bytes); /* staging chunks */
        if (!s) s = ul__queue_wait_idle(dev, 60000000000ull);
        restore_gbps[r] = (double)bytes / (double)(ul__now_ns() - t0);
        t0 = ul__now_ns();
        dev->wgpu->QueueWriteBuffer(dev->queue, o->native, 0, map, (size_t)bytes);
        if (!s) s = ul__queue_wait_idle(dev, 60000000000ull);
        qw_gbps[r] = (double)bytes / (double)(ul__now_ns() - t0);
      }
      ul__device_unlock(dev);
    }
  }
  int rc = 0;
  if (s) {
    fprintf(stderr, "unlost bench recovery: %s: %s\n", ul_status_name(s), ul_last_error());
    rc = 1;
  } else {
    ul_adapter_info ai;
    ul_device_adapter_info(dev, &ai);
    /* medians */
    bench_sort(rec, reps);
    bench_sort(naive, reps);
    bench_sort(restore_gbps, reps);
    bench_sort(qw_gbps, reps);
    int m = reps / 2;
    if (json) {
      printf("{\"bench\":\"recovery\",\"adapter\":");
      cli_json_string(stdout, ai.name);
      printf(",\"bytes\":%llu,\"repetitions\":%d,\"recovery_ms\":%.1f,\"naive_recovery_ms\":%.1f,"
             "\"ratio\":%.3f,\"restore_gbps\":%.2f,\"queue_write_gbps\":%.2f}\n",
             (unsigned long long)bytes, reps, rec[m], naive[m], rec[m] / naive[m], restore_gbps[m],
             qw_gbps[m]);
    } else {
      printf("adapter            %s\n", ai.name);
      printf("bytes              %llu\n", (unsigned long long)bytes);
      printf("unlost recovery    %.1f ms (loss to first dispatch after restore)\n", rec[m]);
      printf("naive rebuild      %.1f ms (raw webgpu.h, queue write)\n", naive[m]);
      printf("restore path       %.2f GB/s (mapped staging chunks)\n", restore_gbps[m]);
      printf("queue write        %.2f GB/s\n", qw_gbps[m]);
    }
  }
  if (map != MAP_FAILED) munmap(map, (size_t)bytes);
  ul_cmd_destroy(cmd);
  ul_bind_group_destroy(dev, bg);
  ul_compute_pipeline_destroy(dev, p);
  ul_shader_destroy(dev, sh);
  ul_buffer_destroy(dev, w);
  ul_device_destroy(dev);
  ul_env_destroy(env);
  unlink(path);
  return rc;
}
