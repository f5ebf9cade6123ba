/* unlost bench recovery: loss to first dispatch after restore, against the
 * same rebuild through raw webgpu.h with queue writes, in the same run. */
#include "bench_internal.h"
#include "cli.h"
#include "core/adapter.h"
#include "res/obj.h"

#include <dlfcn.h>
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

/* The host-to-device limit through WebGPU: copies from a filled, unmapped
 * MAP_WRITE staging buffer into the device buffer (what a restore does
 * after its memcpy), `bytes` in all, in GB/s. */
static ul_status staging_limit(ul_device *dev, WGPUBuffer dst, uint64_t bytes, double *gbps) {
  const ul__wgpu *w = dev->wgpu;
  uint64_t chunk = UL__MIN(bytes, 256ull << 20);
  WGPUBufferDescriptor bd = {0};
  bd.usage = WGPUBufferUsage_MapWrite | WGPUBufferUsage_CopySrc;
  bd.size = chunk;
  bd.mappedAtCreation = 1;
  WGPUBuffer st = w->DeviceCreateBuffer(dev->device, &bd);
  if (!st) return ul__fail(UL_ERR_OUT_OF_MEMORY, "staging buffer");
  void *m = w->BufferGetMappedRange(st, 0, (size_t)chunk);
  if (m) memset(m, 0x5a, (size_t)chunk);
  w->BufferUnmap(st);
  ul_status s = ul__queue_wait_idle(dev, 60000000000ull);
  uint64_t t0 = ul__now_ns();
  for (uint64_t off = 0; off < bytes && !s; off += chunk)
    s = ul__copy_submit(dev, st, 0, dst, off, UL__MIN(chunk, bytes - off));
  if (!s) s = ul__queue_wait_idle(dev, 60000000000ull);
  *gbps = (double)bytes / (double)(ul__now_ns() - t0);
  w->BufferDestroy(st);
  w->BufferRelease(st);
  return s;
}

/* The limit as CUDA sees it, when the machine has an NVIDIA driver: a
 * pinned host buffer copied to device memory (cuMemcpyHtoD), in GB/s; 0
 * when there is no libcuda or a call fails. Loaded at run time: nothing
 * links against CUDA. */
static double cuda_pinned_limit(uint64_t bytes) {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) return 0;
  typedef int (*init_fn)(unsigned);
  typedef int (*dev_get_fn)(int *, int);
  typedef int (*ctx_create_fn)(void **, unsigned, int);
  typedef int (*ctx_destroy_fn)(void *);
  typedef int (*mem_alloc_fn)(unsigned long long *, size_t);
  typedef int (*mem_free_fn)(unsigned long long);
  typedef int (*host_alloc_fn)(void **, size_t, unsigned);
  typedef int (*host_free_fn)(void *);
  typedef int (*htod_fn)(unsigned long long, const void *, size_t);
  typedef int (*sync_fn)(void);
  init_fn cu_init = (init_fn)dlsym(lib, "cuInit");
  dev_get_fn dev_get = (dev_get_fn)dlsym(lib, "cuDeviceGet");
  ctx_create_fn ctx_create = (ctx_create_fn)dlsym(lib, "cuCtxCreate_v2");
  ctx_destroy_fn ctx_destroy = (ctx_destroy_fn)dlsym(lib, "cuCtxDestroy_v2");
  mem_alloc_fn mem_alloc = (mem_alloc_fn)dlsym(lib, "cuMemAlloc_v2");
  mem_free_fn mem_free = (mem_free_fn)dlsym(lib, "cuMemFree_v2");
  host_alloc_fn host_alloc = (host_alloc_fn)dlsym(lib, "cuMemHostAlloc");
  host_free_fn host_free = (host_free_fn)dlsym(lib, "cuMemFreeHost");
  htod_fn htod = (htod_fn)dlsym(lib, "cuMemcpyHtoD_v2");
  sync_fn sync = (sync_fn)dlsym(lib, "cuCtxSynchronize");
  double gbps = 0;
  void *ctx = NULL, *host = NULL;
  unsigned long long dptr = 0;
  int cu_dev = 0;
  size_t n = (size_t)UL__MIN(bytes, 1ull << 30);
  if (cu_init && dev_get && ctx_create && ctx_destroy && mem_alloc && mem_free && host_alloc && host_free && htod &&
      sync && !cu_init(0) && !dev_get(&cu_dev, 0) && !ctx_create(&ctx, 0, cu_dev)) {
    if (!mem_alloc(&dptr, n) && !host_alloc(&host, n, 0)) {
      memset(host, 1, n);
      double best = 0;
      for (int r = 0; r < 5; r++) { /* the best of five: a limit */
        uint64_t t0 = ul__now_ns();
        if (htod(dptr, host, n) || sync()) break;
        double g = (double)n / (double)(ul__now_ns() - t0);
        if (g > best) best = g;
      }
      gbps = best;
    }
    if (host) host_free(host);
    if (dptr) mem_free(dptr);
    ctx_destroy(ctx);
  }
  dlclose(lib);
  return gbps;
}

enum { PH_LOSS, PH_ADAPTER, PH_DEVICE, PH_OBJECTS, PH_CONTENTS, PH_CALLBACKS, PH_REPLAY, PH_RELEASE, PH_OTHER,
       PH_FIRST, PH_COUNT };
static const char *const g_phase_names[PH_COUNT] = {"loss",   "adapter", "device",  "objects", "contents",
                                                    "callbacks", "replay", "release", "other", "first_dispatch"};

/* Restore on demand: the same bytes as 16 SOURCE buffers of the file, and a
 * dispatch that reads the first; loss (of the standby too where there is
 * one: a whole-GPU reset) to that dispatch done, with the rest left for
 * later; then to every piece back. `eager`: with UNLOST_RESTORE_EAGER set,
 * every piece back before the recovery returns. Medians into out[7]:
 * first use, all back, objects still to put back at the first use, and
 * the first use's parts: the loss, the recovery (a device the health
 * monitor calls broken after the benchmark's dense losses may try the
 * fallback first), the submission and its wait. */
#define FIRST_USE_PIECES 16
static ul_status first_use_bench(ul_device *dev, const char *path, uint64_t bytes, ul_shader sh, int reps, bool eager,
                                 double out[6]) {
  ul_buffer piece[FIRST_USE_PIECES] = {{0}};
  ul_compute_pipeline p = {0};
  ul_bind_group bg = {0};
  ul_cmd *cmd = NULL;
  double first[16], all[16], pend[16], part[3][16];
  uint64_t each = (bytes / FIRST_USE_PIECES) & ~255ull;
  ul_status s = each ? UL_OK : ul__fail(UL_ERR_INVALID_ARGUMENT, "first use: too few bytes");
  for (int i = 0; i < FIRST_USE_PIECES && !s; i++)
    s = ul_buffer_create(dev, &(ul_buffer_desc){.label = "piece", .size = each, .restore = UL_RESTORE_SOURCE,
                                                .source_path = path, .source_offset = (uint64_t)i * each},
                         &piece[i]);
  if (!s) s = ul_compute_pipeline_create(dev, &(ul_compute_pipeline_desc){.shader = sh}, &p);
  if (!s) s = ul_bind_group_create(dev, &(ul_bind_group_desc){.pipeline = p, .entry_count = 1,
      .entries = {{.binding = 0, .buffer = piece[0], .size = each}}}, &bg);
  if (!s) s = ul_cmd_create(dev, "touch piece 0", &cmd);
  if (!s) s = ul_cmd_dispatch(cmd, p, &bg, 1, 1, 1, 1);
  if (!s) s = ul_cmd_submit(dev, cmd, NULL);
  if (!s) s = ul_device_wait_idle(dev, 60000);
  /* From a checkpoint: nothing replayed but the one dispatch (the log
   * would otherwise still name the single buffer, made and filled again). */
  if (!s) s = ul_device_checkpoint(dev);
  if (eager) setenv("UNLOST_RESTORE_EAGER", "1", 1);
  int n = 0;
  for (int r = 0; r < reps && !s; r++) {
    if (ul__standby_wait_ready(dev, 20000000000ull)) ul__standby_lose(dev);
    uint64_t t0 = ul__now_ns();
    s = ul_device_force_loss(dev, "bench first use");
    uint64_t t1 = ul__now_ns();
    if (!s) s = ul_device_recover(dev);
    uint64_t t2 = ul__now_ns();
    if (!s) s = ul_cmd_submit(dev, cmd, NULL);
    if (!s) s = ul_device_wait_idle(dev, 60000);
    first[n] = ms_since(t0);
    ul__device_lock(dev);
    part[0][n] = (double)(t1 - t0) / 1e6;
    part[1][n] = (double)(t2 - t1) / 1e6;
    part[2][n] = first[n] - (double)(t2 - t0) / 1e6;
    pend[n] = (double)dev->restore_pending;
    if (!s) s = ul__restore_all(dev);
    ul__device_unlock(dev);
    if (!s) s = ul_device_wait_idle(dev, 60000);
    all[n++] = ms_since(t0);
    if (!s) s = ul_device_checkpoint(dev);
  }
  if (eager) unsetenv("UNLOST_RESTORE_EAGER");
  if (!s) {
    bench_sort(first, n);
    bench_sort(all, n);
    bench_sort(pend, n);
    out[0] = bench_quantile(first, n, 0.5);
    out[1] = bench_quantile(all, n, 0.5);
    out[2] = bench_quantile(pend, n, 0.5);
    for (int k = 0; k < 3; k++) {
      bench_sort(part[k], n);
      out[3 + k] = bench_quantile(part[k], n, 0.5);
    }
  }
  ul_cmd_destroy(cmd);
  ul_bind_group_destroy(dev, bg);
  ul_compute_pipeline_destroy(dev, p);
  for (int i = 0; i < FIRST_USE_PIECES; i++) ul_buffer_destroy(dev, piece[i]);
  return s;
}

int bench_recovery(int argc, char **argv, bool json) {
  uint64_t bytes = 256ull << 20;
  int reps = 5;
  /* At most 64 GiB: the weights file is written to /tmp first. */
  const cli_opt opts[] = {{"bytes", CLI_SIZE, &bytes, .lo = 4096, .hi = 64ull << 30},
                          {"reps", CLI_INT, &reps, .lo = 1, .hi = 16},
                          {0}};
  int prc = cli_parse("bench recovery", argc, argv, opts, CLI_NO_OPERANDS, bench_sub_usage, NULL);
  if (prc) return prc == 1 ? 0 : 2;
  bytes = (bytes + 3) & ~3ull;
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
  double rec[16], naive[16], restore_gbps[16], upload_gbps[16], qw_gbps[16], limit_gbps[16], phase[PH_COUNT][16];
  double lost_rec[16], lost_device[16], lost_restore_gbps[16];
  uint64_t ahead_bytes = 0; /* read into staging while the objects were made, over the timed recoveries */
  int lost_reps = 0;
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
    /* unlost: loss -> first dispatch done on the rebuilt device, in
     * phases: the loss itself (the implementation drains its queue), the
     * recovery as unlost times it (adapter, device, objects and pipeline
     * compilation, contents, callbacks, replay, and the rest: loss
     * handling, events), then the first dispatch and its wait. */
    /* The standby built first: a program's losses come later than this
     * benchmark's, which follow each other at once. */
    ul__standby_wait_ready(dev, 20000000000ull);
    ul__device_lock(dev);
    uint64_t ahead0 = dev->staging_ahead_bytes;
    ul__device_unlock(dev);
    uint64_t t0 = ul__now_ns();
    s = ul_device_force_loss(dev, "bench");
    uint64_t t1 = ul__now_ns();
    if (!s) s = ul_device_recover(dev);
    uint64_t t2 = ul__now_ns();
    if (!s) s = ul_cmd_submit(dev, cmd, NULL);
    if (!s) s = ul_device_wait_idle(dev, 60000);
    rec[r] = ms_since(t0);
    ul__device_lock(dev);
    ul__tl_phases ph = dev->phases;
    uint64_t ahead = dev->staging_ahead_bytes - ahead0;
    ul__device_unlock(dev);
    ahead_bytes += ahead;
    phase[PH_LOSS][r] = (double)(t1 - t0) / 1e6;
    phase[PH_ADAPTER][r] = (double)ph.adapter / 1e6;
    phase[PH_DEVICE][r] = (double)(ph.device - UL__MIN(ph.adapter, ph.device)) / 1e6;
    phase[PH_OBJECTS][r] = (double)ph.objects / 1e6;
    phase[PH_CONTENTS][r] = (double)ph.contents / 1e6;
    phase[PH_CALLBACKS][r] = (double)ph.callbacks / 1e6;
    phase[PH_REPLAY][r] = (double)ph.replay / 1e6;
    phase[PH_RELEASE][r] = (double)ph.release / 1e6;
    double timed = (double)(ph.device + ph.objects + ph.contents + ph.callbacks + ph.replay + ph.release) / 1e6;
    phase[PH_OTHER][r] = (double)(t2 - t1) / 1e6 - timed;
    phase[PH_FIRST][r] = ms_since(t2);
    /* The restore as the recovery does it: from the start of the contents
     * phase (and the replay's, where contents come back at their first
     * use) until the first dispatch is done, which waits for the
     * restore's copies still in flight; from the start of the objects
     * phase when bytes were read ahead while the objects were made (the
     * buffers' creation is then in it too). */
    restore_gbps[r] = (double)bytes / ((phase[PH_CONTENTS][r] + phase[PH_REPLAY][r] + (ahead ? phase[PH_OBJECTS][r] : 0)) * 1e6 +
                                       (double)(ul__now_ns() - t2));
    /* Each repetition's phases, for UNLOST_LOG=info (the JSON has medians). */
    ul__log(UL__LOG_INFO, "bench recovery: repetition %d: %.1f ms: loss %.1f, device %.1f, objects %.1f, contents %.1f, "
            "first dispatch %.1f ms; %.0f MiB read ahead", r, rec[r], phase[PH_LOSS][r], phase[PH_DEVICE][r],
            phase[PH_OBJECTS][r], phase[PH_CONTENTS][r], phase[PH_FIRST][r], (double)ahead / 1048576.0);
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
        upload_gbps[r] = (double)bytes / (double)(ul__now_ns() - t0);
        t0 = ul__now_ns();
        dev->wgpu->QueueWriteBuffer(dev->queue, o->native, 0, map, (size_t)bytes);
        if (!s) s = ul__queue_wait_idle(dev, 60000000000ull);
        qw_gbps[r] = (double)bytes / (double)(ul__now_ns() - t0);
        if (!s) s = staging_limit(dev, o->native, bytes, &limit_gbps[r]);
      }
      ul__device_unlock(dev);
    }
    /* Once more with the standby device lost as well, as a reset of the
     * whole GPU takes every device: the recovery builds a new one. */
    if (!s && ul__standby_wait_ready(dev, 20000000000ull) && !ul__standby_lose(dev)) {
      t0 = ul__now_ns();
      s = ul_device_force_loss(dev, "bench");
      if (!s) s = ul_device_recover(dev);
      uint64_t tr = ul__now_ns();
      if (!s) s = ul_cmd_submit(dev, cmd, NULL);
      if (!s) s = ul_device_wait_idle(dev, 60000);
      lost_rec[lost_reps] = ms_since(t0);
      ul__device_lock(dev);
      /* Nothing made ahead survived: the bytes cross the bus now. */
      bool read_ahead = dev->staging_ahead_bytes > ahead0 + ahead;
      lost_restore_gbps[lost_reps] =
          (double)bytes / ((double)dev->phases.contents + (double)dev->phases.replay +
                           (read_ahead ? (double)dev->phases.objects : 0) + (double)(ul__now_ns() - tr));
      lost_device[lost_reps++] = (double)dev->phases.device / 1e6;
      ul__device_unlock(dev);
    }
  }
  /* Restore on demand, on the same device, the single buffer gone first. */
  double fu[6] = {0}, fu_eager[6] = {0};
  if (!s) {
    ul_bind_group_destroy(dev, bg);
    ul_buffer_destroy(dev, w);
    bg = (ul_bind_group){0};
    w = (ul_buffer){0};
    s = first_use_bench(dev, path, bytes, sh, reps, false, fu);
    if (!s) s = first_use_bench(dev, path, bytes, sh, reps, true, fu_eager);
  }
  int rc = 0;
  if (s) {
    fprintf(stderr, "unlost bench recovery: %s: %s\n", ul_status_name(s), ul_last_error());
    rc = 1;
  } else {
    ul_adapter_info ai;
    ul_device_adapter_info(dev, &ai);
    /* medians of the repetitions */
    bench_sort(rec, reps);
    bench_sort(naive, reps);
    bench_sort(restore_gbps, reps);
    bench_sort(upload_gbps, reps);
    bench_sort(qw_gbps, reps);
    bench_sort(limit_gbps, reps);
    for (int k = 0; k < PH_COUNT; k++) bench_sort(phase[k], reps);
    bench_sort(lost_rec, lost_reps);
    bench_sort(lost_device, lost_reps);
    bench_sort(lost_restore_gbps, lost_reps);
    ul__standby_counts sc;
    ul__standby_get_counts(dev, &sc);
    double cuda = cuda_pinned_limit(bytes);
    double m_rec = bench_quantile(rec, reps, 0.5), m_naive = bench_quantile(naive, reps, 0.5);
    double m_restore = bench_quantile(restore_gbps, reps, 0.5), m_qw = bench_quantile(qw_gbps, reps, 0.5);
    double m_upload = bench_quantile(upload_gbps, reps, 0.5);
    double m_staging = bench_quantile(limit_gbps, reps, 0.5);
    /* The limit: CUDA's pinned copy where there is one, else WebGPU's own
     * staging copy. */
    double limit = cuda > 0 ? cuda : m_staging;
    /* Which way the weights came back in the recoveries timed. */
    ul__device_lock(dev);
    uint64_t taken = dev->prefill_taken, used = dev->prefill_used;
    ul__device_unlock(dev);
    const char *path_name = used          ? "filled ahead on the standby"
                            : ahead_bytes ? "staging, read ahead while the objects were made"
                                          : "staging";
    if (json) {
#ifdef UL_HAVE_JANSSON
      json_t *doc = json_pack("{s:s,s:s,s:I,s:i}", "bench", "recovery", "adapter", ai.name, "bytes",
                              (json_int_t)bytes, "repetitions", reps);
      bool ok = cli_json_reals(doc, 1, "recovery_ms", m_rec, "recovery_ms_min", rec[0], "recovery_ms_max",
                               rec[reps - 1], "naive_recovery_ms", m_naive, NULL);
      ok &= cli_json_reals(doc, 3, "ratio", m_rec / m_naive, NULL);
      ok &= cli_json_reals(doc, 2, "restore_gbps", m_restore, NULL);
      ok &= cli_json_set(doc, "restore_path", json_string(path_name));
      ok &= cli_json_reals(doc, 2, "upload_gbps", m_upload, "queue_write_gbps", m_qw, "limit_gbps", limit, NULL);
      ok &= cli_json_set(doc, "limit_source", json_string(cuda > 0 ? "cuda pinned copy" : "webgpu staging copy"));
      ok &= cli_json_reals(doc, 2, "staging_copy_gbps", m_staging, "cuda_pinned_gbps", cuda, NULL);
      ok &= cli_json_reals(doc, 3, "restore_of_limit", limit > 0 ? m_restore / limit : 0, NULL);
      json_t *phases = json_object();
      for (int k = 0; k < PH_COUNT; k++) {
        char key[64];
        snprintf(key, sizeof key, "%s_ms", g_phase_names[k]);
        ok &= phases && cli_json_set(phases, key, cli_json_real(bench_quantile(phase[k], reps, 0.5), 2));
      }
      ok &= cli_json_set(doc, "phases", phases);
      ok &= cli_json_set(doc, "prefill_taken", json_integer((json_int_t)taken));
      ok &= cli_json_set(doc, "prefill_used", json_integer((json_int_t)used));
      ok &= cli_json_reals(doc, 1, "read_ahead_mib", (double)ahead_bytes / reps / 1048576.0, NULL);
      json_t *sb = json_pack("{s:i,s:I,s:I,s:I,s:I,s:I,s:I}", "mode", sc.mode, "built", (json_int_t)sc.built, "used",
                             (json_int_t)sc.used, "dead", (json_int_t)sc.dead, "failed", (json_int_t)sc.failed,
                             "prefilled", (json_int_t)sc.prefilled, "prefilled_bytes", (json_int_t)sc.prefilled_bytes);
      if (lost_reps) {
        ok &= cli_json_reals(sb, 1, "recovery_ms_standby_lost", bench_quantile(lost_rec, lost_reps, 0.5),
                             "recovery_ms_standby_lost_min", lost_rec[0], "recovery_ms_standby_lost_max",
                             lost_rec[lost_reps - 1], NULL);
        ok &= cli_json_reals(sb, 2, "device_ms_standby_lost", bench_quantile(lost_device, lost_reps, 0.5),
                             "restore_gbps_standby_lost", bench_quantile(lost_restore_gbps, lost_reps, 0.5), NULL);
      }
      ok &= cli_json_set(doc, "standby", sb);
      ok &= cli_json_reals(doc, 1, "first_use_ms", fu[0], "first_use_all_ms", fu[1], NULL);
      ok &= cli_json_reals(doc, 0, "first_use_pending", fu[2], NULL);
      ok &= cli_json_set(doc, "first_use_pieces", json_integer(FIRST_USE_PIECES));
      ok &= cli_json_reals(doc, 1, "first_use_eager_ms", fu_eager[0], "first_use_eager_all_ms", fu_eager[1], NULL);
      json_t *fp = json_object();
      ok &= cli_json_reals(fp, 2, "loss_ms", fu[3], "recover_ms", fu[4], "dispatch_ms", fu[5], NULL);
      ok &= cli_json_set(doc, "first_use_phases", fp);
      if (!ok || !cli_json_write("unlost bench recovery", "-", doc)) rc = 1;
#else
      (void)taken; /* (bench refuses --json without jansson) */
#endif
    } else {
      printf("adapter            %s\n", ai.name);
      printf("bytes              %llu\n", (unsigned long long)bytes);
      printf("unlost recovery    %.1f ms (loss to first dispatch after restore; median of %d, %.1f..%.1f)\n",
             m_rec, reps, rec[0], rec[reps - 1]);
      printf("  phases (ms)     ");
      for (int k = 0; k < PH_COUNT; k++) printf(" %s %.1f", g_phase_names[k], bench_quantile(phase[k], reps, 0.5));
      printf("\n");
      printf("standby device     mode %d: built %llu, used %llu, found lost %llu, no standby %llu\n", sc.mode,
             (unsigned long long)sc.built, (unsigned long long)sc.used, (unsigned long long)sc.dead,
             (unsigned long long)sc.failed);
      if (lost_reps)
        printf("  standby lost too %.1f ms (median of %d, %.1f..%.1f; device %.1f ms)\n",
               bench_quantile(lost_rec, lost_reps, 0.5), lost_reps, lost_rec[0], lost_rec[lost_reps - 1],
               bench_quantile(lost_device, lost_reps, 0.5));
      printf("first use          %.1f ms (loss to a dispatch on 1/%d of the bytes done, %.0f pieces still to put "
             "back; all back %.1f ms); all at the recovery: %.1f ms, all back %.1f ms\n",
             fu[0], FIRST_USE_PIECES, fu[2], fu[1], fu_eager[0], fu_eager[1]);
      printf("naive rebuild      %.1f ms (raw webgpu.h, queue write)\n", m_naive);
      printf("restore            %.2f GB/s (contents, or objects when read ahead, to the first dispatch done; %s), "
             "%.0f%% of the limit\n",
             m_restore, path_name, limit > 0 ? 100 * m_restore / limit : 0);
      printf("staging upload     %.2f GB/s (mapped staging chunks, from memory)\n", m_upload);
      printf("queue write        %.2f GB/s\n", m_qw);
      printf("limit              %.2f GB/s (%s; staging copy %.2f GB/s)\n", limit,
             cuda > 0 ? "CUDA pinned copy" : "WebGPU staging copy", m_staging);
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
