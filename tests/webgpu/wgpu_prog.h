/* Shared helpers of the programs written on webgpu.h alone (issue 27).
 *
 * Each program is one main() that only calls standard webgpu.h entry points
 * (declared by wgpu/wgpu_api.h, the pinned implementation's header revision)
 * and the C library: no unlost.h, nothing Dawn-specific. The same source is
 * built three ways -- linked to the implementation, linked to
 * libunlost-webgpu, and linked to the implementation but run with
 * libunlost-webgpu in LD_PRELOAD -- so nothing here may assume which library
 * answers.
 *
 * The contract of every program, which the chaos harness relies on:
 *   - the same sequence of WebGPU calls on every run (the one exception is a
 *     ProcessEvents loop, which usually turns once; see wp_process_until);
 *   - stdout carries `digest <16 hex>` (FNV-1a over every result read back,
 *     never timestamps) and `ok <name>` when every check passed;
 *   - exit 0 when every check passed, 1 on a wrong result, an uncaptured
 *     error or a device loss (other than the program's own destroy at the
 *     end), 2 on a usage error, 77 when there is no adapter (or no feature
 *     the program needs);
 *   - `--repeat N` runs the whole workload N times on one device, and
 *     WGPU_PROG_SCALE (default 1) multiplies its size.
 * Everything here is static inline so that each program compiles with
 * -Werror whatever subset it uses. */
#ifndef WGPU_PROG_H
#define WGPU_PROG_H

#include "wgpu/wgpu_api.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__SANITIZE_ADDRESS__)
#include <dlfcn.h>
/* Under LeakSanitizer: the CPU Vulkan driver leaks an allocation of its own
 * (128 bytes, from the decode's shaders) that shows up from an "<unknown
 * module>" once Dawn unloads the driver, with no unlost in the process at
 * all (seen with Mesa 25.0.7's lavapipe). Kept resident, as tests/ul_test.h
 * keeps it, what it never freed stays reachable. */
__attribute__((constructor)) static void wp_pin_cpu_driver(void) {
  dlopen("libvulkan_lvp.so", RTLD_NOW | RTLD_NODELETE | RTLD_LOCAL);
}
#endif

#define WP_SKIP 77
#define WP_USAGE 2
#define WP_FAIL 1

/* A wait longer than this is a hang, reported as a failure rather than left
 * to CTest's timeout, so that a harness sees which wait it was. */
#define WP_WAIT_NS (60ull * 1000000000ull)

#define WP_STR(s) ((WGPUStringView){(s), WGPU_STRLEN})
#define WP_COUNT(a) (sizeof(a) / sizeof((a)[0]))

typedef struct wp_ctx {
  const char *name;
  unsigned repeat;
  unsigned scale;
  WGPUInstance instance;
  WGPUAdapter adapter;
  WGPUDevice device;
  WGPUQueue queue;
  WGPULimits adapter_limits;
  WGPULimits limits; /* the device's, after it was created */
  /* Chained to the device descriptor by wp_open_device (NULL: nothing). */
  WGPUChainedStruct *device_chain;
  /* Written by callbacks that may run on another thread. */
  atomic_int errors;
  atomic_int lost;
  atomic_bool closing;
  uint64_t digest;
  bool workload_done;
} wp_ctx;

/* Allocations of the host side; a program has nothing to do without them. */
static inline void *wp_alloc(size_t size) {
  void *p = calloc(1, size ? size : 1);
  if (!p) {
    fprintf(stderr, "out of host memory (%zu bytes)\n", size);
    exit(WP_FAIL);
  }
  return p;
}

/* ---- text ---------------------------------------------------------------- */

static inline int wp_sv_len(WGPUStringView s) {
  if (!s.data) return 0;
  size_t n = s.length == WGPU_STRLEN ? strlen(s.data) : s.length;
  return n > 4096 ? 4096 : (int)n;
}

/* ---- digest and checks --------------------------------------------------- */

/* FNV-1a, 64 bits: over bytes read back from the device, in reading order. */
static inline void wp_digest(wp_ctx *c, const void *data, size_t size) {
  const unsigned char *p = data;
  uint64_t h = c->digest;
  for (size_t i = 0; i < size; i++) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  c->digest = h;
}

static inline bool wp_check_u32(const char *what, const uint32_t *got, const uint32_t *want, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (got[i] != want[i]) {
      printf("mismatch in %s at index %zu: got %u (0x%08x), want %u (0x%08x)\n", what, i, got[i], got[i],
             want[i], want[i]);
      return false;
    }
  return true;
}

/* Bit for bit: the programs choose values whose f32 arithmetic is exact. */
static inline bool wp_check_f32(const char *what, const float *got, const float *want, size_t n) {
  for (size_t i = 0; i < n; i++) {
    uint32_t g, w;
    memcpy(&g, &got[i], 4);
    memcpy(&w, &want[i], 4);
    if (g != w) {
      printf("mismatch in %s at index %zu: got %.9g (0x%08x), want %.9g (0x%08x)\n", what, i, (double)got[i],
             g, (double)want[i], w);
      return false;
    }
  }
  return true;
}

/* xorshift32: the inputs are the same on every run and every machine. */
static inline uint32_t wp_rand(uint32_t *state) {
  uint32_t x = *state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return *state = x;
}

/* ---- callbacks and waits ------------------------------------------------- */

static inline void wp_on_uncaptured_error(const WGPUDevice *device, WGPUErrorType type,
                                          WGPUStringView message, void *userdata1, void *userdata2) {
  (void)device;
  (void)userdata2;
  wp_ctx *c = userdata1;
  atomic_fetch_add(&c->errors, 1);
  fprintf(stderr, "%s: uncaptured error (type %u): %.*s\n", c->name, type, wp_sv_len(message), message.data);
}

static inline void wp_on_device_lost(const WGPUDevice *device, WGPUDeviceLostReason reason,
                                     WGPUStringView message, void *userdata1, void *userdata2) {
  (void)device;
  (void)userdata2;
  wp_ctx *c = userdata1;
  /* At the end the program destroys the device itself (Destroyed), and
   * releasing the instance cancels what is still pending. */
  if (atomic_load(&c->closing) &&
      (reason == WGPUDeviceLostReason_Destroyed || reason == WGPUDeviceLostReason_CallbackCancelled))
    return;
  atomic_fetch_add(&c->lost, 1);
  fprintf(stderr, "%s: device lost (reason %u): %.*s\n", c->name, reason, wp_sv_len(message), message.data);
}

static inline const char *wp_wait_status_name(WGPUWaitStatus s) {
  switch (s) {
  case WGPUWaitStatus_Success: return "success";
  case WGPUWaitStatus_TimedOut: return "timed out";
  case WGPUWaitStatus_Error: return "error";
  default: return "unknown status";
  }
}

/* Waits for one future; false (said on stderr) when it did not complete. */
static inline bool wp_wait(wp_ctx *c, WGPUFuture f, const char *what) {
  WGPUFutureWaitInfo info = {.future = f, .completed = 0};
  WGPUWaitStatus s = wgpuInstanceWaitAny(c->instance, 1, &info, WP_WAIT_NS);
  if (s != WGPUWaitStatus_Success || !info.completed) {
    fprintf(stderr, "%s: waiting for %s: %s\n", c->name, what, wp_wait_status_name(s));
    return false;
  }
  return true;
}

/* Waits for every future: one WaitAny each, in order, then one WaitAny over
 * all of them with no timeout, which must find every one completed. Waiting
 * for "any" in a loop would make the number of calls depend on timing. */
static inline bool wp_wait_all(wp_ctx *c, const WGPUFuture *fs, size_t n, const char *what) {
  WGPUFutureWaitInfo infos[16];
  if (n > WP_COUNT(infos)) {
    fprintf(stderr, "%s: %s: %zu futures, wp_wait_all takes at most %zu\n", c->name, what, n,
            WP_COUNT(infos));
    return false;
  }
  for (size_t i = 0; i < n; i++)
    if (!wp_wait(c, fs[i], what)) return false;
  for (size_t i = 0; i < n; i++) infos[i] = (WGPUFutureWaitInfo){.future = fs[i], .completed = 0};
  WGPUWaitStatus s = wgpuInstanceWaitAny(c->instance, n, infos, 0);
  for (size_t i = 0; i < n; i++)
    if (s != WGPUWaitStatus_Success || !infos[i].completed) {
      fprintf(stderr, "%s: %s: future %zu of %zu not seen completed (%s)\n", c->name, what, i, n,
              wp_wait_status_name(s));
      return false;
    }
  return true;
}

static inline double wp_now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Calls ProcessEvents until *flag is set. The programs first wait for the
 * work the event depends on, so the loop usually turns once; the sleep only
 * matters when the event lags behind that work. */
static inline bool wp_process_until(wp_ctx *c, atomic_bool *flag, const char *what) {
  double deadline = wp_now_s() + (double)WP_WAIT_NS * 1e-9;
  for (;;) {
    wgpuInstanceProcessEvents(c->instance);
    if (atomic_load(flag)) return true;
    if (wp_now_s() > deadline) {
      fprintf(stderr, "%s: %s: no callback from ProcessEvents\n", c->name, what);
      return false;
    }
    nanosleep(&(struct timespec){0, 200000}, NULL);
  }
}

typedef struct wp_request {
  atomic_bool done;
  uint32_t status;
  void *object;
  char message[512];
} wp_request;

/* Requests live on the heap: when a wait fails, the callback may still come
 * later (at the latest when the instance is released, which cancels it), so
 * a request whose callback has not run is left allocated, never freed. */
static inline wp_request *wp_request_new(void) { return wp_alloc(sizeof(wp_request)); }

static inline void wp_request_free(wp_request *r) {
  if (r && atomic_load(&r->done)) free(r);
}

static inline void wp_request_note(wp_request *r, uint32_t status, void *object, WGPUStringView message) {
  r->status = status;
  r->object = object;
  snprintf(r->message, sizeof r->message, "%.*s", wp_sv_len(message), message.data ? message.data : "");
  atomic_store(&r->done, true);
}

static inline void wp_on_adapter(WGPURequestAdapterStatus status, WGPUAdapter adapter, WGPUStringView message,
                                 void *userdata1, void *userdata2) {
  (void)userdata2;
  wp_request_note(userdata1, status, adapter, message);
}

static inline void wp_on_device(WGPURequestDeviceStatus status, WGPUDevice device, WGPUStringView message,
                                void *userdata1, void *userdata2) {
  (void)userdata2;
  wp_request_note(userdata1, status, device, message);
}

static inline void wp_on_map(WGPUMapAsyncStatus status, WGPUStringView message, void *userdata1,
                             void *userdata2) {
  (void)userdata2;
  wp_request_note(userdata1, status, NULL, message);
}

static inline void wp_on_work_done(WGPUQueueWorkDoneStatus status, WGPUStringView message, void *userdata1,
                                   void *userdata2) {
  (void)userdata2;
  wp_request_note(userdata1, status, NULL, message);
}

/* ---- setup and teardown -------------------------------------------------- */

static inline void wp_usage(const char *prog) {
  fprintf(stderr,
          "usage: %s [--repeat N]\n"
          "  --repeat N   run the whole workload N times on one device (default 1)\n"
          "  WGPU_PROG_SCALE=K in the environment multiplies the problem size (default 1)\n",
          prog);
}

static inline bool wp_parse_count(const char *s, unsigned max, unsigned *out) {
  char *end;
  if (!s || !*s) return false;
  unsigned long v = strtoul(s, &end, 10);
  if (*end || v < 1 || v > max) return false;
  *out = (unsigned)v;
  return true;
}

/* Reads the arguments, creates the instance (with timed WaitAny, which this
 * header revision enables through its capabilities) and requests an
 * adapter. 0 to go on, otherwise the exit code (after wp_end). */
static inline int wp_start(wp_ctx *c, const char *name, int argc, char **argv) {
  memset(c, 0, sizeof *c);
  atomic_init(&c->errors, 0);
  atomic_init(&c->lost, 0);
  atomic_init(&c->closing, false);
  c->name = name;
  c->repeat = 1;
  c->scale = 1;
  c->digest = 0xcbf29ce484222325ull;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--repeat") && i + 1 < argc && wp_parse_count(argv[i + 1], 1000000, &c->repeat)) {
      i++;
    } else {
      wp_usage(argv[0]);
      return WP_USAGE;
    }
  }
  const char *scale = getenv("WGPU_PROG_SCALE");
  if (scale && *scale && !wp_parse_count(scale, 64, &c->scale)) {
    fprintf(stderr, "%s: WGPU_PROG_SCALE must be a whole number from 1 to 64, not \"%s\"\n", name, scale);
    return WP_USAGE;
  }

  WGPUInstanceDescriptor idesc = {0};
  idesc.capabilities.timedWaitAnyEnable = 1;
  c->instance = wgpuCreateInstance(&idesc);
  if (!c->instance) {
    fprintf(stderr, "%s: wgpuCreateInstance failed\n", name);
    return WP_FAIL;
  }
  wp_request *r = wp_request_new();
  WGPURequestAdapterOptions opt = {.featureLevel = WGPUFeatureLevel_Core};
  WGPURequestAdapterCallbackInfo cb = {
      .mode = WGPUCallbackMode_WaitAnyOnly, .callback = wp_on_adapter, .userdata1 = r};
  if (!wp_wait(c, wgpuInstanceRequestAdapter(c->instance, &opt, cb), "the adapter")) {
    wp_request_free(r);
    return WP_FAIL;
  }
  c->adapter = r->object;
  if (r->status != WGPURequestAdapterStatus_Success || !c->adapter) {
    fprintf(stderr, "%s: skipped: no adapter (status %u): %s\n", name, r->status, r->message);
    wp_request_free(r);
    return WP_SKIP; /* wp_end releases an adapter that came with a failure */
  }
  wp_request_free(r);

  WGPUAdapterInfo info = {0};
  if (wgpuAdapterGetInfo(c->adapter, &info) != WGPUStatus_Success) {
    fprintf(stderr, "%s: wgpuAdapterGetInfo failed\n", name);
    return WP_FAIL;
  }
  WGPUBackendType backend = info.backendType;
  fprintf(stderr, "%s: adapter \"%.*s\" (%.*s), backend %u, type %u\n", name, wp_sv_len(info.device),
          info.device.data, wp_sv_len(info.description), info.description.data, backend, info.adapterType);
  wgpuAdapterInfoFreeMembers(info);
  /* Dawn hands out its Null backend when no real one works: it computes
   * nothing, so there is nothing to check. */
  if (backend == WGPUBackendType_Null) {
    fprintf(stderr, "%s: skipped: only the Null backend is available\n", name);
    return WP_SKIP;
  }
  c->adapter_limits = (WGPULimits){0};
  if (wgpuAdapterGetLimits(c->adapter, &c->adapter_limits) != WGPUStatus_Success) {
    fprintf(stderr, "%s: wgpuAdapterGetLimits failed\n", name);
    return WP_FAIL;
  }
  return 0;
}

/* Every limit "undefined" (the default), for a program to raise the few it
 * needs. */
static inline WGPULimits wp_limits_undefined(void) {
  WGPULimits l;
  memset(&l, 0xff, sizeof l); /* all ones: WGPU_LIMIT_U32/U64_UNDEFINED */
  l.nextInChain = NULL;
  return l;
}

/* Requests the device with the features (77 when the adapter lacks one) and
 * limits (NULL: defaults) the program needs, and the two callbacks every
 * program has. */
static inline int wp_open_device(wp_ctx *c, const WGPUFeatureName *features, size_t feature_count,
                                 const WGPULimits *limits) {
  for (size_t i = 0; i < feature_count; i++)
    if (!wgpuAdapterHasFeature(c->adapter, features[i])) {
      fprintf(stderr, "%s: skipped: the adapter lacks feature 0x%x\n", c->name, features[i]);
      return WP_SKIP;
    }
  WGPUDeviceDescriptor desc = {0};
  desc.nextInChain = c->device_chain;
  desc.label = WP_STR(c->name);
  desc.requiredFeatureCount = feature_count;
  desc.requiredFeatures = features;
  desc.requiredLimits = limits;
  desc.defaultQueue.label = WP_STR("queue");
  desc.deviceLostCallbackInfo = (WGPUDeviceLostCallbackInfo){
      .mode = WGPUCallbackMode_AllowSpontaneous, .callback = wp_on_device_lost, .userdata1 = c};
  desc.uncapturedErrorCallbackInfo =
      (WGPUUncapturedErrorCallbackInfo){.callback = wp_on_uncaptured_error, .userdata1 = c};
  wp_request *r = wp_request_new();
  WGPURequestDeviceCallbackInfo cb = {
      .mode = WGPUCallbackMode_WaitAnyOnly, .callback = wp_on_device, .userdata1 = r};
  if (!wp_wait(c, wgpuAdapterRequestDevice(c->adapter, &desc, cb), "the device")) {
    wp_request_free(r);
    return WP_FAIL;
  }
  if (r->status != WGPURequestDeviceStatus_Success || !r->object) {
    fprintf(stderr, "%s: no device (status %u): %s\n", c->name, r->status, r->message);
    if (r->object) wgpuDeviceRelease(r->object);
    wp_request_free(r);
    return WP_FAIL;
  }
  c->device = r->object;
  wp_request_free(r);
  c->queue = wgpuDeviceGetQueue(c->device);
  c->limits = (WGPULimits){0};
  if (wgpuDeviceGetLimits(c->device, &c->limits) != WGPUStatus_Success) {
    fprintf(stderr, "%s: wgpuDeviceGetLimits failed\n", c->name);
    return WP_FAIL;
  }
  return 0;
}

/* Prints the digest and the verdict, destroys the device and releases every
 * object wp_start/wp_open_device made. `rc` is what the program found so
 * far (0, or an exit code); returns the exit code. */
static inline int wp_end(wp_ctx *c, int rc) {
  if (c->workload_done) printf("digest %016llx\n", (unsigned long long)c->digest);
  int errors = atomic_load(&c->errors), lost = atomic_load(&c->lost);
  if (rc == 0 && (errors || lost)) {
    printf("FAIL %s: %d uncaptured error(s), %d device loss(es)\n", c->name, errors, lost);
    rc = WP_FAIL;
  }
  if (rc == 0)
    printf("ok %s\n", c->name);
  else if (rc == WP_FAIL && c->workload_done && !errors && !lost)
    printf("FAIL %s: wrong results\n", c->name);
  fflush(stdout);
  atomic_store(&c->closing, true);
  if (c->device) wgpuDeviceDestroy(c->device);
  if (c->queue) wgpuQueueRelease(c->queue);
  if (c->device) wgpuDeviceRelease(c->device);
  if (c->adapter) wgpuAdapterRelease(c->adapter);
  if (c->instance) wgpuInstanceRelease(c->instance);
  /* A loss the callback reported during teardown, before closing began. */
  if (rc == 0 && atomic_load(&c->lost)) rc = WP_FAIL;
  return rc;
}

/* The whole program but its workload: `run` does one repetition and returns
 * false on a wrong result (said on stdout). */
static inline int wp_main(wp_ctx *c, bool (*run)(wp_ctx *c)) {
  bool ok = true;
  for (unsigned i = 0; i < c->repeat && ok; i++) {
    ok = run(c);
    /* An error or a loss makes every later result meaningless. */
    if (atomic_load(&c->errors) || atomic_load(&c->lost)) break;
  }
  c->workload_done = true;
  return wp_end(c, ok ? 0 : WP_FAIL);
}

/* ---- objects ------------------------------------------------------------- */

static inline WGPUBuffer wp_buffer(wp_ctx *c, const char *label, WGPUBufferUsage usage, uint64_t size) {
  WGPUBufferDescriptor d = {.label = WP_STR(label), .usage = usage, .size = size};
  return wgpuDeviceCreateBuffer(c->device, &d);
}

/* A buffer with contents, written through the queue. */
static inline WGPUBuffer wp_buffer_from(wp_ctx *c, const char *label, WGPUBufferUsage usage, const void *data,
                                        uint64_t size) {
  WGPUBuffer b = wp_buffer(c, label, usage | WGPUBufferUsage_CopyDst, size);
  wgpuQueueWriteBuffer(c->queue, b, 0, data, (size_t)size);
  return b;
}

static inline WGPUShaderModule wp_shader(wp_ctx *c, const char *label, const char *wgsl) {
  WGPUShaderSourceWGSL src = {.chain = {.sType = WGPUSType_ShaderSourceWGSL}, .code = WP_STR(wgsl)};
  WGPUShaderModuleDescriptor d = {.nextInChain = &src.chain, .label = WP_STR(label)};
  return wgpuDeviceCreateShaderModule(c->device, &d);
}

/* layout NULL: "auto", the pipeline's bind group layouts come from the
 * shader (wgpuComputePipelineGetBindGroupLayout). */
static inline WGPUComputePipeline wp_pipeline(wp_ctx *c, const char *label, WGPUShaderModule module,
                                              const char *entry, WGPUPipelineLayout layout) {
  WGPUComputePipelineDescriptor d = {
      .label = WP_STR(label), .layout = layout, .compute = {.module = module, .entryPoint = WP_STR(entry)}};
  return wgpuDeviceCreateComputePipeline(c->device, &d);
}

static inline WGPUBindGroupLayoutEntry wp_layout_buffer(uint32_t binding, WGPUBufferBindingType type,
                                                        bool dynamic_offset, uint64_t min_size) {
  return (WGPUBindGroupLayoutEntry){
      .binding = binding,
      .visibility = WGPUShaderStage_Compute,
      .buffer = {.type = type, .hasDynamicOffset = dynamic_offset, .minBindingSize = min_size}};
}

static inline WGPUBindGroupEntry wp_bind_buffer(uint32_t binding, WGPUBuffer buffer, uint64_t offset,
                                                uint64_t size) {
  return (WGPUBindGroupEntry){.binding = binding, .buffer = buffer, .offset = offset, .size = size};
}

static inline WGPUBindGroupEntry wp_bind_view(uint32_t binding, WGPUTextureView view) {
  return (WGPUBindGroupEntry){.binding = binding, .textureView = view};
}

static inline WGPUBindGroup wp_bind_group(wp_ctx *c, const char *label, WGPUBindGroupLayout layout,
                                          const WGPUBindGroupEntry *entries, size_t count) {
  WGPUBindGroupDescriptor d = {
      .label = WP_STR(label), .layout = layout, .entryCount = count, .entries = entries};
  return wgpuDeviceCreateBindGroup(c->device, &d);
}

static inline WGPUCommandEncoder wp_encoder(wp_ctx *c, const char *label) {
  WGPUCommandEncoderDescriptor d = {.label = WP_STR(label)};
  return wgpuDeviceCreateCommandEncoder(c->device, &d);
}

/* One compute pass with one pipeline, bind group 0 and one dispatch. */
static inline void wp_dispatch(WGPUCommandEncoder enc, WGPUComputePipeline pipeline, WGPUBindGroup group,
                               uint32_t x, uint32_t y, uint32_t z) {
  WGPUComputePassDescriptor d = {.label = WP_STR("pass")};
  WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(enc, &d);
  wgpuComputePassEncoderSetPipeline(pass, pipeline);
  wgpuComputePassEncoderSetBindGroup(pass, 0, group, 0, NULL);
  wgpuComputePassEncoderDispatchWorkgroups(pass, x, y, z);
  wgpuComputePassEncoderEnd(pass);
  wgpuComputePassEncoderRelease(pass);
}

/* Finishes and submits the encoder, and releases it and its command
 * buffer. */
static inline void wp_submit(wp_ctx *c, WGPUCommandEncoder enc) {
  WGPUCommandBufferDescriptor d = {.label = WP_STR("commands")};
  WGPUCommandBuffer cmd = wgpuCommandEncoderFinish(enc, &d);
  wgpuQueueSubmit(c->queue, 1, &cmd);
  wgpuCommandBufferRelease(cmd);
  wgpuCommandEncoderRelease(enc);
}

/* Maps a MAP_READ buffer (WaitAnyOnly, WaitAny), copies the range out and
 * unmaps it. */
static inline bool wp_map_read(wp_ctx *c, WGPUBuffer buffer, size_t offset, size_t size, void *out) {
  wp_request *r = wp_request_new();
  WGPUBufferMapCallbackInfo cb = {
      .mode = WGPUCallbackMode_WaitAnyOnly, .callback = wp_on_map, .userdata1 = r};
  bool mapped = wp_wait(c, wgpuBufferMapAsync(buffer, WGPUMapMode_Read, offset, size, cb), "a buffer map");
  if (mapped && r->status != WGPUMapAsyncStatus_Success) {
    fprintf(stderr, "%s: map for reading failed (status %u): %s\n", c->name, r->status, r->message);
    mapped = false;
  }
  wp_request_free(r);
  if (!mapped) return false;
  const void *p = wgpuBufferGetConstMappedRange(buffer, offset, size);
  if (!p) {
    fprintf(stderr, "%s: wgpuBufferGetConstMappedRange returned NULL\n", c->name);
    wgpuBufferUnmap(buffer);
    return false;
  }
  memcpy(out, p, size);
  wgpuBufferUnmap(buffer);
  return true;
}

/* Reads `size` bytes of `src` at `offset` (both multiples of 4) through a
 * staging buffer, and adds them to the digest. */
static inline bool wp_read_buffer(wp_ctx *c, WGPUBuffer src, uint64_t offset, uint64_t size, void *out) {
  WGPUBuffer staging = wp_buffer(c, "readback", WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst, size);
  WGPUCommandEncoder enc = wp_encoder(c, "readback");
  wgpuCommandEncoderCopyBufferToBuffer(enc, src, offset, staging, 0, size);
  wp_submit(c, enc);
  bool ok = wp_map_read(c, staging, 0, (size_t)size, out);
  wgpuBufferRelease(staging);
  if (ok) wp_digest(c, out, (size_t)size);
  return ok;
}

#endif
