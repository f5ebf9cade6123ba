/* Misuse of the webgpu.h front door (issue 27): NULL and released objects,
 * objects of the wrong kind or of another device, unknown and wrong sTypes,
 * out-of-range sizes and offsets, calls on a lost device, state misuse
 * (double map, double submit, ...) and the refused entry points. Each must
 * get the error the implementation would give, or a clear one -- a
 * Validation error in a pushed error scope wherever a device is known --
 * and never a crash (run under ASan+UBSan as well).
 *
 * A program on webgpu.h alone (wgpu/wgpu_api.h and the C library), linked
 * to the static layer. Each case runs in a child process of its own (this
 * executable again, with --case NAME), so that a crash or a sanitizer
 * report fails that case by name and the others still run. The expectations
 * are checked around each call by three error scopes (Validation,
 * OutOfMemory, Internal) and the uncaptured-error count:
 *   EXPECT(m, dev, accepted outcomes, statements...)
 * fails when what the scopes caught is not one of the accepted outcomes, or
 * an error escaped to the uncaptured-error callback.
 *
 *   webgpu_misuse                 every case (exit 0 when all pass)
 *   webgpu_misuse --list          the cases
 *   webgpu_misuse --case NAME     one case, in this process
 *   webgpu_misuse -v ...          every expectation, passed or not
 * Exit 77 when there is no adapter. */
#include "wgpu_prog.h"

#include <signal.h>
#include <stdarg.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define M_EXIT_FAIL 3 /* a case's checks failed (1 is what a sanitizer exits with) */
#define M_CASE_SECONDS 120
#define M_STYPE_UNKNOWN 0x7fff1234u

static bool g_verbose;
static char g_note[128]; /* said with each check: which entry of a table is tried */
#define NOTE(...) snprintf(g_note, sizeof g_note, __VA_ARGS__)

/* ---- the context of a case ------------------------------------------------ */

typedef struct mctx {
  wp_ctx w; /* instance, adapter, the case's device (w.device) and queue (w.queue) */
  const char *name;
  int checks, fails;
  atomic_int uncaptured; /* uncaptured errors on every device of the case */
  atomic_int lost;       /* lost callbacks heard (not counting teardown's) */
  atomic_int lost_reason;
  atomic_bool closing;
} mctx;

static void m_on_error(const WGPUDevice *device, WGPUErrorType type, WGPUStringView message, void *u1,
                       void *u2) {
  (void)device;
  (void)u2;
  mctx *m = u1;
  atomic_fetch_add(&m->uncaptured, 1);
  printf("    (uncaptured error, type %u: %.*s)\n", type, wp_sv_len(message), message.data);
}

static void m_on_lost(const WGPUDevice *device, WGPUDeviceLostReason reason, WGPUStringView message, void *u1,
                      void *u2) {
  (void)device;
  (void)u2;
  mctx *m = u1;
  if (atomic_load(&m->closing) && reason == WGPUDeviceLostReason_CallbackCancelled) return;
  atomic_fetch_add(&m->lost, 1);
  atomic_store(&m->lost_reason, (int)reason);
  if (g_verbose) printf("    (device lost, reason %u: %.*s)\n", reason, wp_sv_len(message), message.data);
}

static void check_at(mctx *m, bool ok, int line, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void check_at(mctx *m, bool ok, int line, const char *fmt, ...) {
  m->checks++;
  if (ok && !g_verbose) return;
  va_list ap;
  va_start(ap, fmt);
  printf("  %s line %d: %s%s", ok ? "ok  " : "FAIL", line, g_note, g_note[0] ? ": " : "");
  vprintf(fmt, ap);
  printf("\n");
  va_end(ap);
  if (!ok) m->fails++;
}
#define CHECK(m, cond, ...) check_at(m, (cond), __LINE__, __VA_ARGS__)

/* ---- error scopes ----------------------------------------------------------- */

/* What the three scopes caught: a mask of these (0: nothing). */
enum { E_VAL = 1, E_OOM = 2, E_INT = 4, E_POP_FAILED = 8 };
/* Accepted outcomes: a set of masks. */
#define A(mask) (1ull << (mask))
#define A_NONE A(0)
#define A_VAL A(E_VAL)
#define A_OOM A(E_OOM)
#define A_VAL_OR_NONE (A_VAL | A_NONE)
#define A_VAL_OR_OOM (A_VAL | A_OOM)

typedef struct pop_rec {
  atomic_bool done;
  uint32_t status, type;
  char message[512];
} pop_rec;

static void on_pop(WGPUPopErrorScopeStatus status, WGPUErrorType type, WGPUStringView message, void *u1,
                   void *u2) {
  (void)u2;
  pop_rec *r = u1;
  r->status = status;
  r->type = type;
  snprintf(r->message, sizeof r->message, "%.*s", wp_sv_len(message), message.data ? message.data : "");
  atomic_store(&r->done, true);
}

static void scopes_push(WGPUDevice d) {
  wgpuDevicePushErrorScope(d, WGPUErrorFilter_Internal);
  wgpuDevicePushErrorScope(d, WGPUErrorFilter_OutOfMemory);
  wgpuDevicePushErrorScope(d, WGPUErrorFilter_Validation);
}

/* Pops one scope; its error type (WGPUErrorType_NoError: none), or 0 when
 * the pop did not complete or failed (*message says which). */
static uint32_t scope_pop(mctx *m, WGPUDevice d, char *message, size_t cap) {
  pop_rec *r = calloc(1, sizeof *r); /* left allocated when the callback may still come */
  if (!r) exit(WP_FAIL);
  WGPUPopErrorScopeCallbackInfo ci = {.mode = WGPUCallbackMode_WaitAnyOnly, .callback = on_pop, .userdata1 = r};
  WGPUFuture f = wgpuDevicePopErrorScope(d, ci);
  WGPUFutureWaitInfo wi = {.future = f};
  WGPUWaitStatus ws = wgpuInstanceWaitAny(m->w.instance, 1, &wi, WP_WAIT_NS);
  if (ws != WGPUWaitStatus_Success || !wi.completed || !atomic_load(&r->done)) {
    snprintf(message, cap, "PopErrorScope did not complete (wait status %u)", ws);
    return 0;
  }
  uint32_t type = r->status == WGPUPopErrorScopeStatus_Success ? r->type : 0;
  if (!type) snprintf(message, cap, "PopErrorScope failed (status %u): %.200s", r->status, r->message);
  else if (type != WGPUErrorType_NoError && r->message[0] && !message[0]) snprintf(message, cap, "%s", r->message);
  free(r);
  return type;
}

static unsigned scopes_pop(mctx *m, WGPUDevice d, char *message, size_t cap) {
  unsigned got = 0;
  message[0] = 0;
  const uint32_t order[3] = {WGPUErrorType_Validation, WGPUErrorType_OutOfMemory, WGPUErrorType_Internal};
  for (int k = 0; k < 3; k++) {
    uint32_t t = scope_pop(m, d, message, cap);
    if (!t) got |= E_POP_FAILED;
    else if (t == WGPUErrorType_NoError) continue;
    else if (t != order[k]) got |= E_POP_FAILED; /* a scope caught what its filter does not take */
    else got |= t == WGPUErrorType_Validation ? E_VAL : t == WGPUErrorType_OutOfMemory ? E_OOM : E_INT;
  }
  return got;
}

static const char *outcome_name(unsigned got, char *buf, size_t cap) {
  if (!got) return "no error";
  snprintf(buf, cap, "%s%s%s%s", got & E_VAL ? "+validation" : "", got & E_OOM ? "+out-of-memory" : "",
           got & E_INT ? "+internal" : "", got & E_POP_FAILED ? "+pop-failed" : "");
  return buf + 1;
}

static const char *accepted_name(uint64_t acc, char *buf, size_t cap) {
  buf[0] = 0;
  for (unsigned o = 0; o < 16; o++) {
    if (!(acc & A(o))) continue;
    char one[64];
    size_t n = strlen(buf);
    snprintf(buf + n, cap - n, "%s%s", n ? " or " : "", outcome_name(o, one, sizeof one));
  }
  return buf;
}

static void expect_at(mctx *m, int line, const char *what, uint64_t accept, unsigned got, int escaped,
                      const char *message) {
  char a[160], g[64];
  bool ok = (accept & A(got)) && escaped == 0;
  check_at(m, ok, line, "%.200s -> %s%s%s (want %s)%s", what, outcome_name(got, g, sizeof g), message[0] ? ": " : "",
           message[0] ? message : "", accepted_name(accept, a, sizeof a),
           escaped ? " [an error escaped to the uncaptured-error callback]" : "");
}

/* Runs the statements between three pushed error scopes of `dev`. */
#define EXPECT(m, dev, accept, ...)                                                 \
  do {                                                                              \
    int u0_ = atomic_load(&(m)->uncaptured);                                        \
    scopes_push(dev);                                                               \
    __VA_ARGS__;                                                                    \
    char msg_[512];                                                                 \
    unsigned got_ = scopes_pop(m, dev, msg_, sizeof msg_);                          \
    int u1_ = atomic_load(&(m)->uncaptured);                                        \
    expect_at(m, __LINE__, #__VA_ARGS__, accept, got_, u1_ - u0_, msg_);            \
  } while (0)
#define EXPECT_VAL(m, dev, ...) EXPECT(m, dev, A_VAL, __VA_ARGS__)
#define EXPECT_NONE(m, dev, ...) EXPECT(m, dev, A_NONE, __VA_ARGS__)

/* ---- futures ------------------------------------------------------------------ */

typedef struct req {
  atomic_bool done;
  uint32_t status;
  void *object;
  int calls;
} req;

static req *req_new(void) {
  req *r = calloc(1, sizeof *r);
  if (!r) exit(WP_FAIL);
  return r;
}

static void on_map(WGPUMapAsyncStatus status, WGPUStringView message, void *u1, void *u2) {
  (void)u2;
  req *r = u1;
  r->status = status;
  r->calls++;
  if (g_verbose) printf("    (map: status %u: %.*s)\n", status, wp_sv_len(message), message.data);
  atomic_store(&r->done, true);
}

static void on_done(WGPUQueueWorkDoneStatus status, WGPUStringView message, void *u1, void *u2) {
  (void)u2;
  (void)message;
  req *r = u1;
  r->status = status;
  r->calls++;
  atomic_store(&r->done, true);
}

static void on_pipeline(WGPUCreatePipelineAsyncStatus status, WGPUComputePipeline pipeline, WGPUStringView message,
                        void *u1, void *u2) {
  (void)u2;
  req *r = u1;
  r->status = status;
  r->object = pipeline;
  r->calls++;
  if (g_verbose) printf("    (pipeline: status %u: %.*s)\n", status, wp_sv_len(message), message.data);
  atomic_store(&r->done, true);
}

static void on_info(WGPUCompilationInfoRequestStatus status, const WGPUCompilationInfo *info, void *u1, void *u2) {
  (void)u2;
  (void)info;
  req *r = u1;
  r->status = status;
  r->calls++;
  atomic_store(&r->done, true);
}

/* Waits for `f`; whether it completed (with its callback run once). A
 * future the call did not make (id 0) is "not completed". */
static bool m_wait(mctx *m, WGPUFuture f, req *r) {
  if (!f.id) return false;
  WGPUFutureWaitInfo wi = {.future = f};
  WGPUWaitStatus ws = wgpuInstanceWaitAny(m->w.instance, 1, &wi, WP_WAIT_NS);
  return ws == WGPUWaitStatus_Success && wi.completed && (!r || (atomic_load(&r->done) && r->calls == 1));
}

/* MapAsync, waited for: the status its callback got (0: no callback). */
static uint32_t map_wait(mctx *m, WGPUBuffer b, WGPUMapMode mode, size_t offset, size_t size) {
  req *r = req_new();
  WGPUBufferMapCallbackInfo ci = {.mode = WGPUCallbackMode_WaitAnyOnly, .callback = on_map, .userdata1 = r};
  bool done = m_wait(m, wgpuBufferMapAsync(b, mode, offset, size, ci), r);
  uint32_t s = done ? r->status : 0;
  if (done) free(r);
  return s;
}

/* ---- objects -------------------------------------------------------------------- */

static const char *k_wgsl = "@group(0) @binding(0) var<storage, read_write> data: array<u32>;\n"
                            "@compute @workgroup_size(64)\n"
                            "fn main(@builtin(global_invocation_id) id: vec3u) {\n"
                            "  if (id.x < arrayLength(&data)) { data[id.x] = data[id.x] * 3u + 1u; }\n"
                            "}\n";

static WGPUBuffer mk_buffer(WGPUDevice d, WGPUBufferUsage usage, uint64_t size) {
  WGPUBufferDescriptor bd = {.label = WP_STR("misuse"), .usage = usage, .size = size};
  return wgpuDeviceCreateBuffer(d, &bd);
}

static WGPUTexture mk_texture(WGPUDevice d, uint32_t w, uint32_t h, WGPUTextureFormat format, WGPUTextureUsage usage) {
  WGPUTextureDescriptor td = {.usage = usage,
                              .dimension = WGPUTextureDimension_2D,
                              .size = {w, h, 1},
                              .format = format,
                              .mipLevelCount = 1,
                              .sampleCount = 1};
  return wgpuDeviceCreateTexture(d, &td);
}

static WGPUShaderModule mk_shader(WGPUDevice d, const char *wgsl) {
  WGPUShaderSourceWGSL src = {.chain = {.sType = WGPUSType_ShaderSourceWGSL}, .code = WP_STR(wgsl)};
  WGPUShaderModuleDescriptor sd = {.nextInChain = &src.chain};
  return wgpuDeviceCreateShaderModule(d, &sd);
}

static WGPUBindGroupLayout mk_bgl(WGPUDevice d) {
  WGPUBindGroupLayoutEntry e = wp_layout_buffer(0, WGPUBufferBindingType_Storage, false, 0);
  WGPUBindGroupLayoutDescriptor ld = {.entryCount = 1, .entries = &e};
  return wgpuDeviceCreateBindGroupLayout(d, &ld);
}

/* A layout of a sampled texture (0) and a sampler (1). */
static WGPUBindGroupLayout mk_bgl_tex(WGPUDevice d) {
  WGPUBindGroupLayoutEntry e[2] = {
      {.binding = 0,
       .visibility = WGPUShaderStage_Compute,
       .texture = {.sampleType = WGPUTextureSampleType_Float, .viewDimension = WGPUTextureViewDimension_2D}},
      {.binding = 1, .visibility = WGPUShaderStage_Compute, .sampler = {.type = WGPUSamplerBindingType_Filtering}}};
  WGPUBindGroupLayoutDescriptor ld = {.entryCount = 2, .entries = e};
  return wgpuDeviceCreateBindGroupLayout(d, &ld);
}

static WGPUPipelineLayout mk_playout(WGPUDevice d, WGPUBindGroupLayout l) {
  WGPUPipelineLayoutDescriptor pd = {.bindGroupLayoutCount = 1, .bindGroupLayouts = &l};
  return wgpuDeviceCreatePipelineLayout(d, &pd);
}

static WGPUComputePipeline mk_pipeline(WGPUDevice d, WGPUShaderModule sh, WGPUPipelineLayout l) {
  WGPUComputePipelineDescriptor pd = {.layout = l, .compute = {.module = sh, .entryPoint = WP_STR("main")}};
  return wgpuDeviceCreateComputePipeline(d, &pd);
}

static WGPUBindGroup mk_group(WGPUDevice d, WGPUBindGroupLayout l, WGPUBuffer b, uint64_t size) {
  WGPUBindGroupEntry e = wp_bind_buffer(0, b, 0, size);
  WGPUBindGroupDescriptor gd = {.layout = l, .entryCount = 1, .entries = &e};
  return wgpuDeviceCreateBindGroup(d, &gd);
}

static WGPUBindGroup mk_group_tex(WGPUDevice d, WGPUBindGroupLayout l, WGPUTextureView v, WGPUSampler s) {
  WGPUBindGroupEntry e[2] = {{.binding = 0, .textureView = v}, {.binding = 1, .sampler = s}};
  WGPUBindGroupDescriptor gd = {.layout = l, .entryCount = 2, .entries = e};
  return wgpuDeviceCreateBindGroup(d, &gd);
}

static WGPUQuerySet mk_query_set(WGPUDevice d, uint32_t count) {
  WGPUQuerySetDescriptor qd = {.type = WGPUQueryType_Occlusion, .count = count};
  return wgpuDeviceCreateQuerySet(d, &qd);
}

/* Finishes `e`, submits what it gave (if anything), releases both. */
static void finish_submit(WGPUQueue q, WGPUCommandEncoder e) {
  WGPUCommandBuffer cb = wgpuCommandEncoderFinish(e, NULL);
  if (cb) {
    wgpuQueueSubmit(q, 1, &cb);
    wgpuCommandBufferRelease(cb);
  }
  wgpuCommandEncoderRelease(e);
}

/* An encoder with one pass: the pipeline, group 0 and a dispatch. */
static WGPUCommandEncoder enc_dispatch(WGPUDevice d, WGPUComputePipeline p, WGPUBindGroup g, uint32_t x) {
  WGPUCommandEncoder e = wgpuDeviceCreateCommandEncoder(d, NULL);
  WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(e, NULL);
  wgpuComputePassEncoderSetPipeline(pass, p);
  wgpuComputePassEncoderSetBindGroup(pass, 0, g, 0, NULL);
  wgpuComputePassEncoderDispatchWorkgroups(pass, x, 1, 1);
  wgpuComputePassEncoderEnd(pass);
  wgpuComputePassEncoderRelease(pass);
  return e;
}

/* The valid objects most cases misuse around. */
typedef struct kit {
  WGPUBuffer data;     /* STORAGE|COPY_SRC|COPY_DST, 256 bytes */
  WGPUBuffer readback; /* MAP_READ|COPY_DST, 256 bytes */
  WGPUShaderModule shader;
  WGPUBindGroupLayout bgl;
  WGPUPipelineLayout playout;
  WGPUComputePipeline pipeline;
  WGPUBindGroup group;
} kit;

static void kit_make(mctx *m, WGPUDevice d, kit *k) {
  EXPECT_NONE(m, d, k->data = mk_buffer(d, WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc | WGPUBufferUsage_CopyDst, 256);
              k->readback = mk_buffer(d, WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst, 256);
              k->shader = mk_shader(d, k_wgsl); k->bgl = mk_bgl(d); k->playout = mk_playout(d, k->bgl);
              k->pipeline = mk_pipeline(d, k->shader, k->playout); k->group = mk_group(d, k->bgl, k->data, 256));
}

static void kit_free(kit *k) {
  if (k->group) wgpuBindGroupRelease(k->group);
  if (k->pipeline) wgpuComputePipelineRelease(k->pipeline);
  if (k->playout) wgpuPipelineLayoutRelease(k->playout);
  if (k->bgl) wgpuBindGroupLayoutRelease(k->bgl);
  if (k->shader) wgpuShaderModuleRelease(k->shader);
  if (k->readback) wgpuBufferRelease(k->readback);
  if (k->data) wgpuBufferRelease(k->data);
  memset(k, 0, sizeof *k);
}

/* Reads `n` words of `src` through `k->readback`; false when the map
 * failed. */
static bool kit_read(mctx *m, WGPUDevice d, WGPUQueue q, kit *k, WGPUBuffer src, uint32_t *out, uint32_t n) {
  WGPUCommandEncoder e = wgpuDeviceCreateCommandEncoder(d, NULL);
  wgpuCommandEncoderCopyBufferToBuffer(e, src, 0, k->readback, 0, n * 4);
  finish_submit(q, e);
  uint32_t s = map_wait(m, k->readback, WGPUMapMode_Read, 0, n * 4);
  if (s != WGPUMapAsyncStatus_Success) return false;
  const void *p = wgpuBufferGetConstMappedRange(k->readback, 0, n * 4);
  if (p) memcpy(out, p, n * 4);
  wgpuBufferUnmap(k->readback);
  return p != NULL;
}

/* A known-good workload on fresh objects: 64 words through the kit's
 * shader, checked against the CPU. */
static bool workload(mctx *m, WGPUDevice d, WGPUQueue q, uint32_t seed) {
  kit k = {0};
  kit_make(m, d, &k);
  uint32_t in[64], want[64], got[64];
  for (uint32_t i = 0; i < 64; i++) {
    in[i] = wp_rand(&seed);
    want[i] = in[i] * 3u + 1u;
  }
  bool ok = false;
  EXPECT_NONE(m, d, wgpuQueueWriteBuffer(q, k.data, 0, in, sizeof in); finish_submit(q, enc_dispatch(d, k.pipeline, k.group, 1));
              ok = kit_read(m, d, q, &k, k.data, got, 64));
  ok = ok && wp_check_u32("workload", got, want, 64);
  kit_free(&k);
  return ok;
}

/* ---- setup of a case ------------------------------------------------------------ */

static WGPUDevice m_device(mctx *m, const char *label) {
  WGPUDeviceDescriptor desc = {0};
  desc.label = WP_STR(label);
  WGPUFeatureName ts = WGPUFeatureName_TimestampQuery; /* for the timestamp writes of a pass */
  if (wgpuAdapterHasFeature(m->w.adapter, ts)) {
    desc.requiredFeatureCount = 1;
    desc.requiredFeatures = &ts;
  }
  desc.deviceLostCallbackInfo = (WGPUDeviceLostCallbackInfo){
      .mode = WGPUCallbackMode_AllowSpontaneous, .callback = m_on_lost, .userdata1 = m};
  desc.uncapturedErrorCallbackInfo = (WGPUUncapturedErrorCallbackInfo){.callback = m_on_error, .userdata1 = m};
  wp_request *r = wp_request_new();
  WGPURequestDeviceCallbackInfo cb = {.mode = WGPUCallbackMode_WaitAnyOnly, .callback = wp_on_device, .userdata1 = r};
  if (!wp_wait(&m->w, wgpuAdapterRequestDevice(m->w.adapter, &desc, cb), "a device")) return NULL;
  WGPUDevice d = r->status == WGPURequestDeviceStatus_Success ? r->object : NULL;
  if (!d) printf("  no device (status %u): %s\n", r->status, r->message);
  wp_request_free(r);
  return d;
}

/* ---- the cases ------------------------------------------------------------------ */

static _Alignas(16) unsigned char g_garbage[64]; /* "a native pointer": 64 zero bytes */
static uint32_t g_data[1024];                     /* what writes read from */

/* NULL handles where no device is known: every call returns quietly, with
 * NULL, 0 or an error status, and nothing reaches any device. */
static void case_null_handles(mctx *m) {
  WGPUDevice d = m->w.device;
  WGPUBufferDescriptor bd = {.usage = WGPUBufferUsage_CopyDst, .size = 16};
  WGPUTextureDescriptor td = {.usage = WGPUTextureUsage_CopyDst, .dimension = WGPUTextureDimension_2D,
                              .size = {4, 4, 1}, .format = WGPUTextureFormat_RGBA8Unorm, .mipLevelCount = 1,
                              .sampleCount = 1};
  WGPUBindGroupLayoutDescriptor ld = {0};
  WGPUPipelineLayoutDescriptor pld = {0};
  WGPUComputePipelineDescriptor pd = {0};
  WGPUBindGroupDescriptor gd = {0};
  WGPUQuerySetDescriptor qd = {.type = WGPUQueryType_Occlusion, .count = 1};
  WGPUShaderSourceWGSL src = {.chain = {.sType = WGPUSType_ShaderSourceWGSL}, .code = WP_STR(k_wgsl)};
  WGPUShaderModuleDescriptor sd = {.nextInChain = &src.chain};
  WGPULimits lim = {0};
  WGPUAdapterInfo info = {0};
  req *r = req_new();
  WGPUBufferMapCallbackInfo mci = {.mode = WGPUCallbackMode_AllowSpontaneous, .callback = on_map, .userdata1 = r};
  WGPUQueueWorkDoneCallbackInfo dci = {.mode = WGPUCallbackMode_AllowSpontaneous, .callback = on_done, .userdata1 = r};
  WGPUCreateComputePipelineAsyncCallbackInfo pci = {.mode = WGPUCallbackMode_AllowSpontaneous,
                                                    .callback = on_pipeline, .userdata1 = r};
  WGPUCompilationInfoCallbackInfo ici = {.mode = WGPUCallbackMode_AllowSpontaneous, .callback = on_info,
                                         .userdata1 = r};
  WGPUPopErrorScopeCallbackInfo poi = {.mode = WGPUCallbackMode_AllowSpontaneous, .callback = on_pop,
                                       .userdata1 = calloc(1, sizeof(pop_rec))};
  WGPURequestDeviceCallbackInfo rdi = {.mode = WGPUCallbackMode_AllowSpontaneous, .callback = wp_on_device,
                                       .userdata1 = wp_request_new()};
  WGPURequestAdapterCallbackInfo rai = {.mode = WGPUCallbackMode_AllowSpontaneous, .callback = wp_on_adapter,
                                        .userdata1 = wp_request_new()};
  WGPUExtent3D ext = {1, 1, 1};
  WGPUTexelCopyBufferInfo cbi = {.layout = {.bytesPerRow = 256}};
  WGPUTexelCopyTextureInfo cti = {0};
  WGPUTexelCopyBufferLayout tl = {.bytesPerRow = 256};
  WGPUCommandBuffer none = NULL;
  EXPECT_NONE(m, d, {
    CHECK(m, !wgpuDeviceCreateBuffer(NULL, &bd), "CreateBuffer(NULL device) returns NULL");
    CHECK(m, !wgpuDeviceCreateTexture(NULL, &td), "CreateTexture(NULL device) returns NULL");
    CHECK(m, !wgpuDeviceCreateSampler(NULL, NULL), "CreateSampler(NULL device) returns NULL");
    CHECK(m, !wgpuDeviceCreateShaderModule(NULL, &sd), "CreateShaderModule(NULL device) returns NULL");
    CHECK(m, !wgpuDeviceCreateBindGroupLayout(NULL, &ld), "CreateBindGroupLayout(NULL device) returns NULL");
    CHECK(m, !wgpuDeviceCreatePipelineLayout(NULL, &pld), "CreatePipelineLayout(NULL device) returns NULL");
    CHECK(m, !wgpuDeviceCreateComputePipeline(NULL, &pd), "CreateComputePipeline(NULL device) returns NULL");
    CHECK(m, !wgpuDeviceCreateBindGroup(NULL, &gd), "CreateBindGroup(NULL device) returns NULL");
    CHECK(m, !wgpuDeviceCreateQuerySet(NULL, &qd), "CreateQuerySet(NULL device) returns NULL");
    CHECK(m, !wgpuDeviceCreateCommandEncoder(NULL, NULL), "CreateCommandEncoder(NULL device) returns NULL");
    CHECK(m, !wgpuDeviceCreateErrorBuffer(NULL, &bd), "CreateErrorBuffer(NULL device) returns NULL");
    wgpuDeviceCreateComputePipelineAsync(NULL, &pd, pci);
    CHECK(m, !wgpuDeviceGetQueue(NULL), "GetQueue(NULL) returns NULL");
    CHECK(m, !wgpuDeviceGetAdapter(NULL), "GetAdapter(NULL) returns NULL");
    CHECK(m, wgpuDeviceGetLimits(NULL, &lim) == WGPUStatus_Error, "GetLimits(NULL device) is an error");
    CHECK(m, !wgpuDeviceHasFeature(NULL, WGPUFeatureName_TimestampQuery), "HasFeature(NULL device) is false");
    wgpuDevicePushErrorScope(NULL, WGPUErrorFilter_Validation);
    wgpuDevicePopErrorScope(NULL, poi);
    wgpuDeviceGetLostFuture(NULL);
    wgpuDeviceSetLabel(NULL, WP_STR("x"));
    wgpuDeviceTick(NULL);
    wgpuDeviceForceLoss(NULL, WGPUDeviceLostReason_Unknown, WP_STR("x"));
    wgpuDeviceInjectError(NULL, WGPUErrorType_Validation, WP_STR("x"));
    wgpuDeviceDestroy(NULL);
    wgpuDeviceAddRef(NULL);
    wgpuDeviceRelease(NULL);
    wgpuBufferMapAsync(NULL, WGPUMapMode_Read, 0, 4, mci);
    CHECK(m, !wgpuBufferGetMappedRange(NULL, 0, 4), "GetMappedRange(NULL) returns NULL");
    CHECK(m, !wgpuBufferGetConstMappedRange(NULL, 0, 4), "GetConstMappedRange(NULL) returns NULL");
    CHECK(m, wgpuBufferWriteMappedRange(NULL, 0, g_data, 4) == WGPUStatus_Error, "WriteMappedRange(NULL) fails");
    CHECK(m, wgpuBufferReadMappedRange(NULL, 0, g_data, 4) == WGPUStatus_Error, "ReadMappedRange(NULL) fails");
    wgpuBufferUnmap(NULL);
    wgpuBufferDestroy(NULL);
    CHECK(m, wgpuBufferGetSize(NULL) == 0, "GetSize(NULL) is 0");
    CHECK(m, wgpuBufferGetUsage(NULL) == 0, "GetUsage(NULL) is 0");
    wgpuBufferGetMapState(NULL);
    wgpuBufferAddRef(NULL);
    wgpuBufferRelease(NULL);
    wgpuBufferSetLabel(NULL, WP_STR("x"));
    CHECK(m, !wgpuTextureCreateView(NULL, NULL), "CreateView(NULL) returns NULL");
    CHECK(m, wgpuTextureGetWidth(NULL) == 0, "GetWidth(NULL) is 0");
    wgpuTextureDestroy(NULL);
    wgpuTextureRelease(NULL);
    wgpuTextureViewRelease(NULL);
    wgpuSamplerRelease(NULL);
    wgpuShaderModuleGetCompilationInfo(NULL, ici);
    wgpuShaderModuleRelease(NULL);
    wgpuBindGroupLayoutRelease(NULL);
    wgpuPipelineLayoutRelease(NULL);
    CHECK(m, !wgpuComputePipelineGetBindGroupLayout(NULL, 0), "GetBindGroupLayout(NULL) returns NULL");
    wgpuComputePipelineRelease(NULL);
    wgpuBindGroupRelease(NULL);
    CHECK(m, wgpuQuerySetGetCount(NULL) == 0, "QuerySetGetCount(NULL) is 0");
    wgpuQuerySetDestroy(NULL);
    wgpuQuerySetRelease(NULL);
    CHECK(m, !wgpuCommandEncoderBeginComputePass(NULL, NULL), "BeginComputePass(NULL) returns NULL");
    wgpuCommandEncoderCopyBufferToBuffer(NULL, NULL, 0, NULL, 0, 4);
    wgpuCommandEncoderCopyBufferToTexture(NULL, &cbi, &cti, &ext);
    wgpuCommandEncoderCopyTextureToBuffer(NULL, &cti, &cbi, &ext);
    wgpuCommandEncoderCopyTextureToTexture(NULL, &cti, &cti, &ext);
    wgpuCommandEncoderClearBuffer(NULL, NULL, 0, 4);
    wgpuCommandEncoderResolveQuerySet(NULL, NULL, 0, 1, NULL, 0);
    wgpuCommandEncoderWriteTimestamp(NULL, NULL, 0);
    wgpuCommandEncoderPushDebugGroup(NULL, WP_STR("x"));
    wgpuCommandEncoderPopDebugGroup(NULL);
    wgpuCommandEncoderInsertDebugMarker(NULL, WP_STR("x"));
    CHECK(m, !wgpuCommandEncoderFinish(NULL, NULL), "Finish(NULL) returns NULL");
    wgpuCommandEncoderRelease(NULL);
    wgpuComputePassEncoderSetPipeline(NULL, NULL);
    wgpuComputePassEncoderSetBindGroup(NULL, 0, NULL, 0, NULL);
    wgpuComputePassEncoderDispatchWorkgroups(NULL, 1, 1, 1);
    wgpuComputePassEncoderDispatchWorkgroupsIndirect(NULL, NULL, 0);
    wgpuComputePassEncoderWriteTimestamp(NULL, NULL, 0);
    wgpuComputePassEncoderEnd(NULL);
    wgpuComputePassEncoderRelease(NULL);
    wgpuCommandBufferRelease(NULL);
    wgpuQueueSubmit(NULL, 0, NULL);
    wgpuQueueSubmit(NULL, 1, &none);
    wgpuQueueWriteBuffer(NULL, NULL, 0, g_data, 4);
    wgpuQueueWriteTexture(NULL, &cti, g_data, 4, &tl, &ext);
    wgpuQueueOnSubmittedWorkDone(NULL, dci);
    wgpuQueueRelease(NULL);
    wgpuInstanceProcessEvents(NULL);
    CHECK(m, wgpuInstanceWaitAny(NULL, 0, NULL, 0) == WGPUWaitStatus_Error, "WaitAny(NULL instance) is an error");
    wgpuInstanceRequestAdapter(NULL, NULL, rai);
    wgpuInstanceRelease(NULL);
    wgpuAdapterRequestDevice(NULL, NULL, rdi);
    CHECK(m, !wgpuAdapterCreateDevice(NULL, NULL), "AdapterCreateDevice(NULL) returns NULL");
    CHECK(m, wgpuAdapterGetLimits(NULL, &lim) == WGPUStatus_Error, "AdapterGetLimits(NULL) is an error");
    CHECK(m, wgpuAdapterGetInfo(NULL, &info) == WGPUStatus_Error, "AdapterGetInfo(NULL) is an error");
    CHECK(m, !wgpuAdapterHasFeature(NULL, WGPUFeatureName_TimestampQuery), "AdapterHasFeature(NULL) is false");
    wgpuAdapterRelease(NULL);
    CHECK(m, !wgpuGetProcAddress((WGPUStringView){NULL, 0}), "GetProcAddress(NULL name) returns NULL");
    CHECK(m, wgpuGetInstanceCapabilities(NULL) == WGPUStatus_Error, "GetInstanceCapabilities(NULL) is an error");
  });
  CHECK(m, atomic_load(&m->lost) == 0, "no device loss");
  /* The callbacks given with a NULL handle must not run later either. */
  wgpuInstanceProcessEvents(m->w.instance);
  CHECK(m, r->calls == 0, "no callback for a call on a NULL handle (got %d)", r->calls);
}

/* NULL descriptors (and NULL arrays inside them) where the device is known:
 * a Validation error for a descriptor WebGPU requires, and an error object
 * whose use is an error too; none where WebGPU allows NULL. */
static void case_null_descriptors(mctx *m) {
  WGPUDevice d = m->w.device;
  WGPUQueue q = m->w.queue;
  kit k = {0};
  kit_make(m, d, &k);
  WGPUBuffer b = NULL;
  EXPECT_VAL(m, d, b = wgpuDeviceCreateBuffer(d, NULL));
  CHECK(m, b != NULL, "CreateBuffer(NULL descriptor) gives an error buffer");
  EXPECT_VAL(m, d, wgpuQueueWriteBuffer(q, b, 0, g_data, 4));
  uint32_t ms = 0;
  EXPECT_VAL(m, d, ms = map_wait(m, b, WGPUMapMode_Read, 0, 4));
  CHECK(m, ms == WGPUMapAsyncStatus_Error, "MapAsync of an error buffer: status %u, want Error", ms);
  CHECK(m, !wgpuBufferGetMappedRange(b, 0, 4), "no mapped range of an error buffer");
  wgpuBufferRelease(b);

  WGPUTexture t = NULL;
  WGPUTextureView v = NULL;
  EXPECT_VAL(m, d, t = wgpuDeviceCreateTexture(d, NULL));
  CHECK(m, t != NULL, "CreateTexture(NULL descriptor) gives an error texture");
  EXPECT_VAL(m, d, v = wgpuTextureCreateView(t, NULL));
  if (v) wgpuTextureViewRelease(v);
  if (t) wgpuTextureRelease(t);

  WGPUSampler s = NULL;
  EXPECT_NONE(m, d, s = wgpuDeviceCreateSampler(d, NULL)); /* optional: the defaults */
  CHECK(m, s != NULL, "CreateSampler(NULL descriptor) gives a sampler");
  WGPUBindGroupLayout tl = NULL;
  WGPUTexture tex = NULL;
  WGPUTextureView tv = NULL;
  WGPUBindGroup tg = NULL;
  EXPECT_NONE(m, d, tl = mk_bgl_tex(d);
              tex = mk_texture(d, 4, 4, WGPUTextureFormat_RGBA8Unorm, WGPUTextureUsage_TextureBinding);
              tv = wgpuTextureCreateView(tex, NULL); tg = mk_group_tex(d, tl, tv, s));
  wgpuBindGroupRelease(tg);
  wgpuTextureViewRelease(tv);
  wgpuTextureRelease(tex);
  wgpuSamplerRelease(s);

  WGPUShaderModule sh = NULL;
  WGPUComputePipeline p = NULL;
  EXPECT_VAL(m, d, sh = wgpuDeviceCreateShaderModule(d, NULL));
  CHECK(m, sh != NULL, "CreateShaderModule(NULL descriptor) gives an error module");
  EXPECT_VAL(m, d, p = mk_pipeline(d, sh, k.playout));
  if (p) wgpuComputePipelineRelease(p);
  if (sh) wgpuShaderModuleRelease(sh);

  WGPUBindGroupLayout l = NULL;
  WGPUBindGroup g = NULL;
  EXPECT_VAL(m, d, l = wgpuDeviceCreateBindGroupLayout(d, NULL));
  CHECK(m, l != NULL, "CreateBindGroupLayout(NULL descriptor) gives an error layout");
  EXPECT_VAL(m, d, g = mk_group(d, l, k.data, 256));
  if (g) wgpuBindGroupRelease(g);
  if (l) wgpuBindGroupLayoutRelease(l);

  WGPUPipelineLayout pl = NULL;
  EXPECT_VAL(m, d, pl = wgpuDeviceCreatePipelineLayout(d, NULL));
  CHECK(m, pl != NULL, "CreatePipelineLayout(NULL descriptor) gives an error layout");
  EXPECT_VAL(m, d, p = mk_pipeline(d, k.shader, pl));
  if (p) wgpuComputePipelineRelease(p);
  if (pl) wgpuPipelineLayoutRelease(pl);

  EXPECT_VAL(m, d, p = wgpuDeviceCreateComputePipeline(d, NULL));
  CHECK(m, p != NULL, "CreateComputePipeline(NULL descriptor) gives an error pipeline");
  EXPECT_VAL(m, d, l = wgpuComputePipelineGetBindGroupLayout(p, 0));
  if (l) wgpuBindGroupLayoutRelease(l);
  EXPECT_VAL(m, d, finish_submit(q, enc_dispatch(d, p, k.group, 1)));
  if (p) wgpuComputePipelineRelease(p);

  req *r = req_new();
  WGPUCreateComputePipelineAsyncCallbackInfo pci = {.mode = WGPUCallbackMode_WaitAnyOnly, .callback = on_pipeline,
                                                    .userdata1 = r};
  bool done = false;
  EXPECT(m, d, A_VAL_OR_NONE, done = m_wait(m, wgpuDeviceCreateComputePipelineAsync(d, NULL, pci), r));
  CHECK(m, done && r->status == WGPUCreatePipelineAsyncStatus_ValidationError,
        "CreateComputePipelineAsync(NULL descriptor): done %d, status %u (want ValidationError)", done, r->status);

  EXPECT_VAL(m, d, g = wgpuDeviceCreateBindGroup(d, NULL));
  CHECK(m, g != NULL, "CreateBindGroup(NULL descriptor) gives an error group");
  EXPECT_VAL(m, d, finish_submit(q, enc_dispatch(d, k.pipeline, g, 1)));
  if (g) wgpuBindGroupRelease(g);

  WGPUQuerySet qs = NULL;
  EXPECT_VAL(m, d, qs = wgpuDeviceCreateQuerySet(d, NULL));
  CHECK(m, qs != NULL, "CreateQuerySet(NULL descriptor) gives an error query set");
  EXPECT_VAL(m, d, {
    WGPUCommandEncoder e = wgpuDeviceCreateCommandEncoder(d, NULL);
    wgpuCommandEncoderResolveQuerySet(e, qs, 0, 1, k.data, 0);
    finish_submit(q, e);
  });
  if (qs) wgpuQuerySetRelease(qs);

  /* Optional descriptors: encoder, pass, command buffer, view. */
  EXPECT_NONE(m, d, finish_submit(q, enc_dispatch(d, k.pipeline, k.group, 1)));

  /* NULL arrays and handles inside descriptors. */
  WGPUBindGroupLayoutDescriptor ld = {.entryCount = 1, .entries = NULL};
  EXPECT_VAL(m, d, l = wgpuDeviceCreateBindGroupLayout(d, &ld));
  if (l) wgpuBindGroupLayoutRelease(l);
  WGPUBindGroupDescriptor gd = {.layout = NULL, .entryCount = 0};
  EXPECT_VAL(m, d, g = wgpuDeviceCreateBindGroup(d, &gd)); /* the layout is NULL */
  if (g) wgpuBindGroupRelease(g);
  gd = (WGPUBindGroupDescriptor){.layout = k.bgl, .entryCount = 1, .entries = NULL};
  EXPECT_VAL(m, d, g = wgpuDeviceCreateBindGroup(d, &gd));
  if (g) wgpuBindGroupRelease(g);
  WGPUBindGroupEntry empty = {.binding = 0};
  gd = (WGPUBindGroupDescriptor){.layout = k.bgl, .entryCount = 1, .entries = &empty};
  EXPECT_VAL(m, d, g = wgpuDeviceCreateBindGroup(d, &gd)); /* an entry with no resource */
  if (g) wgpuBindGroupRelease(g);
  WGPUPipelineLayoutDescriptor pld = {.bindGroupLayoutCount = 1, .bindGroupLayouts = NULL};
  EXPECT_VAL(m, d, pl = wgpuDeviceCreatePipelineLayout(d, &pld));
  if (pl) wgpuPipelineLayoutRelease(pl);
  EXPECT_VAL(m, d, p = mk_pipeline(d, NULL, k.playout)); /* the module is NULL */
  if (p) wgpuComputePipelineRelease(p);
  WGPUTextureDescriptor td = {.usage = WGPUTextureUsage_CopyDst, .dimension = WGPUTextureDimension_2D,
                              .size = {4, 4, 1}, .format = WGPUTextureFormat_RGBA8Unorm, .mipLevelCount = 1,
                              .sampleCount = 1, .viewFormatCount = 1, .viewFormats = NULL};
  EXPECT_VAL(m, d, t = wgpuDeviceCreateTexture(d, &td));
  if (t) wgpuTextureRelease(t);

  /* NULL handles and pointers in calls on known objects. */
  EXPECT_VAL(m, d, wgpuQueueWriteBuffer(q, NULL, 0, g_data, 4));
  EXPECT_VAL(m, d, wgpuQueueWriteBuffer(q, k.data, 0, NULL, 4));
  EXPECT_NONE(m, d, wgpuQueueWriteBuffer(q, k.data, 0, NULL, 0));
  WGPUExtent3D ext = {1, 1, 1};
  WGPUTexelCopyBufferLayout tbl = {.bytesPerRow = 256, .rowsPerImage = 1};
  WGPUTexelCopyTextureInfo cti = {.texture = NULL};
  EXPECT_VAL(m, d, wgpuQueueWriteTexture(q, NULL, g_data, 4, &tbl, &ext));
  EXPECT_VAL(m, d, wgpuQueueWriteTexture(q, &cti, g_data, 4, &tbl, &ext)); /* the texture is NULL */
  EXPECT_VAL(m, d, wgpuQueueSubmit(q, 1, NULL));
  WGPUCommandBuffer none = NULL;
  EXPECT_VAL(m, d, wgpuQueueSubmit(q, 1, &none));
  EXPECT_NONE(m, d, wgpuQueueSubmit(q, 0, NULL));
  EXPECT_VAL(m, d, {
    WGPUCommandEncoder e = wgpuDeviceCreateCommandEncoder(d, NULL);
    wgpuCommandEncoderCopyBufferToBuffer(e, NULL, 0, k.data, 0, 4);
    finish_submit(q, e);
  });
  EXPECT_VAL(m, d, {
    WGPUCommandEncoder e = wgpuDeviceCreateCommandEncoder(d, NULL);
    wgpuCommandEncoderCopyBufferToTexture(e, NULL, &cti, &ext);
    finish_submit(q, e);
  });
  EXPECT_VAL(m, d, {
    WGPUCommandEncoder e = wgpuDeviceCreateCommandEncoder(d, NULL);
    wgpuCommandEncoderClearBuffer(e, NULL, 0, 4);
    finish_submit(q, e);
  });
  EXPECT_VAL(m, d, {
    WGPUCommandEncoder e = wgpuDeviceCreateCommandEncoder(d, NULL);
    WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(e, NULL);
    wgpuComputePassEncoderSetPipeline(pass, NULL);
    wgpuComputePassEncoderDispatchWorkgroups(pass, 1, 1, 1);
    wgpuComputePassEncoderEnd(pass);
    wgpuComputePassEncoderRelease(pass);
    finish_submit(q, e);
  });
  EXPECT_VAL(m, d, {
    WGPUCommandEncoder e = wgpuDeviceCreateCommandEncoder(d, NULL);
    WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(e, NULL);
    wgpuComputePassEncoderSetPipeline(pass, k.pipeline);
    wgpuComputePassEncoderSetBindGroup(pass, 0, k.group, 0, NULL);
    wgpuComputePassEncoderDispatchWorkgroupsIndirect(pass, NULL, 0);
    wgpuComputePassEncoderEnd(pass);
    wgpuComputePassEncoderRelease(pass);
    finish_submit(q, e);
  });
  EXPECT_VAL(m, d, {
    WGPUCommandEncoder e = wgpuDeviceCreateCommandEncoder(d, NULL);
    WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(e, NULL);
    wgpuComputePassEncoderSetBindGroup(pass, 0, k.group, 2, NULL);
    wgpuComputePassEncoderEnd(pass);
    wgpuComputePassEncoderRelease(pass);
    finish_submit(q, e);
  });
  WGPUPassTimestampWrites tw = {.querySet = NULL, .beginningOfPassWriteIndex = 0, .endOfPassWriteIndex = 1};
  WGPUComputePassDescriptor cpd = {.timestampWrites = &tw};
  EXPECT_VAL(m, d, {
    WGPUCommandEncoder e = wgpuDeviceCreateCommandEncoder(d, NULL);
    WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(e, &cpd);
    wgpuComputePassEncoderEnd(pass);
    wgpuComputePassEncoderRelease(pass);
    finish_submit(q, e);
  });
  EXPECT_VAL(m, d, {
    WGPUCommandEncoder e = wgpuDeviceCreateCommandEncoder(d, NULL);
    wgpuCommandEncoderResolveQuerySet(e, NULL, 0, 1, k.data, 0);
    finish_submit(q, e);
  });

  /* Getters and waits with NULL out-pointers. */
  EXPECT_NONE(m, d, {
    CHECK(m, wgpuDeviceGetLimits(d, NULL) == WGPUStatus_Error, "GetLimits(device, NULL) is an error");
    CHECK(m, wgpuDeviceGetAdapterInfo(d, NULL) == WGPUStatus_Error, "GetAdapterInfo(device, NULL) is an error");
    wgpuDeviceGetFeatures(d, NULL);
    CHECK(m, wgpuAdapterGetLimits(m->w.adapter, NULL) == WGPUStatus_Error, "AdapterGetLimits(adapter, NULL) fails");
    CHECK(m, wgpuAdapterGetInfo(m->w.adapter, NULL) == WGPUStatus_Error, "AdapterGetInfo(adapter, NULL) fails");
    CHECK(m, wgpuInstanceWaitAny(m->w.instance, 1, NULL, 0) == WGPUWaitStatus_Error,
          "WaitAny(count 1, NULL futures) is an error");
  });
  /* A NULL callback: the future still completes. */
  WGPUBufferMapCallbackInfo nocb = {.mode = WGPUCallbackMode_WaitAnyOnly, .callback = NULL};
  EXPECT_NONE(m, d, done = m_wait(m, wgpuBufferMapAsync(k.readback, WGPUMapMode_Read, 0, 4, nocb), NULL));
  CHECK(m, done, "a map with no callback completes");
  wgpuBufferUnmap(k.readback);
  WGPUPopErrorScopeCallbackInfo nopop = {.mode = WGPUCallbackMode_WaitAnyOnly, .callback = NULL};
  wgpuDevicePushErrorScope(d, WGPUErrorFilter_Validation);
  CHECK(m, m_wait(m, wgpuDevicePopErrorScope(d, nopop), NULL), "a pop with no callback completes");
  /* A WGSL source whose code is NULL: a module (empty), no crash. */
  WGPUShaderSourceWGSL nsrc = {.chain = {.sType = WGPUSType_ShaderSourceWGSL}, .code = {NULL, WGPU_STRLEN}};
  WGPUShaderModuleDescriptor nsd = {.nextInChain = &nsrc.chain};
  EXPECT(m, d, A_VAL_OR_NONE, sh = wgpuDeviceCreateShaderModule(d, &nsd));
  EXPECT_VAL(m, d, p = mk_pipeline(d, sh, k.playout)); /* no entry point "main" */
  if (p) wgpuComputePipelineRelease(p);
  if (sh) wgpuShaderModuleRelease(sh);
  /* A device requested with a NULL descriptor: the defaults. */
  wp_request *dr = wp_request_new();
  WGPURequestDeviceCallbackInfo dcb = {.mode = WGPUCallbackMode_WaitAnyOnly, .callback = wp_on_device, .userdata1 = dr};
  done = wp_wait(&m->w, wgpuAdapterRequestDevice(m->w.adapter, NULL, dcb), "a device (NULL descriptor)");
  CHECK(m, done && dr->status == WGPURequestDeviceStatus_Success && dr->object,
        "RequestDevice(NULL descriptor) gives a device (status %u)", dr->status);
  if (done && dr->object) {
    WGPUDevice d2 = dr->object;
    WGPUQueue q2 = wgpuDeviceGetQueue(d2);
    CHECK(m, workload(m, d2, q2, 7), "a device of a NULL descriptor computes right");
    wgpuQueueRelease(q2);
    wgpuDeviceRelease(d2);
  }
  wp_request_free(dr);
  CHECK(m, workload(m, d, q, 1), "the device still computes right");
  kit_free(&k);
}

/* A pipeline whose constantCount is 1 and constants NULL. */
static void case_null_constants(mctx *m) {
  WGPUDevice d = m->w.device;
  kit k = {0};
  kit_make(m, d, &k);
  WGPUComputePipelineDescriptor pd = {
      .layout = k.playout,
      .compute = {.module = k.shader, .entryPoint = WP_STR("main"), .constantCount = 1, .constants = NULL}};
  WGPUComputePipeline p = NULL;
  EXPECT_VAL(m, d, p = wgpuDeviceCreateComputePipeline(d, &pd));
  if (p) wgpuComputePipelineRelease(p);
  kit_free(&k);
}

/* Objects used after the program's last Release. Where the call names a
 * device through another argument (a queue, a device, an encoder), the
 * layer's promise (src/webgpu/wg.h: "a NULL, released or foreign one is the
 * API's own validation error") is a Validation error; where the released
 * handle is the only one, the call is ignored. Never a crash. */
static void case_released_objects(mctx *m) {
  WGPUDevice d = m->w.device;
  WGPUQueue q = m->w.queue;
  kit k = {0};
  kit_make(m, d, &k);

  /* buffer */
  WGPUBuffer b = mk_buffer(d, WGPUBufferUsage_Storage | WGPUBufferUsage_CopyDst | WGPUBufferUsage_CopySrc, 256);
  wgpuBufferRelease(b);
  EXPECT(m, d, A_VAL_OR_NONE, wgpuBufferGetSize(b); wgpuBufferGetMapState(b); wgpuBufferSetLabel(b, WP_STR("x")));
  EXPECT_VAL(m, d, wgpuQueueWriteBuffer(q, b, 0, g_data, 4));
  EXPECT_VAL(m, d, {
    WGPUCommandEncoder e = wgpuDeviceCreateCommandEncoder(d, NULL);
    wgpuCommandEncoderCopyBufferToBuffer(e, b, 0, k.data, 0, 4);
    finish_submit(q, e);
  });
  WGPUBindGroup g = NULL;
  EXPECT_VAL(m, d, g = mk_group(d, k.bgl, b, 256));
  if (g) wgpuBindGroupRelease(g);
  EXPECT(m, d, A_VAL_OR_NONE, {
    req *r = req_new();
    WGPUBufferMapCallbackInfo ci = {.mode = WGPUCallbackMode_AllowSpontaneous, .callback = on_map, .userdata1 = r};
    wgpuBufferMapAsync(b, WGPUMapMode_Read, 0, 4, ci);
    wgpuBufferUnmap(b);
    wgpuBufferDestroy(b);
    wgpuBufferRelease(b); /* a release too many */
  });

  /* texture and view */
  WGPUTexture t = mk_texture(d, 4, 4, WGPUTextureFormat_RGBA8Unorm,
                             WGPUTextureUsage_TextureBinding | WGPUTextureUsage_CopyDst);
  wgpuTextureRelease(t);
  WGPUTextureView v = NULL;
  EXPECT(m, d, A_VAL_OR_NONE, v = wgpuTextureCreateView(t, NULL); wgpuTextureGetWidth(t));
  if (v) wgpuTextureViewRelease(v);
  WGPUExtent3D ext = {1, 1, 1};
  WGPUTexelCopyBufferLayout tbl = {.bytesPerRow = 256, .rowsPerImage = 1};
  WGPUTexelCopyTextureInfo cti = {.texture = t};
  EXPECT_VAL(m, d, wgpuQueueWriteTexture(q, &cti, g_data, 4, &tbl, &ext));
  WGPUTexelCopyBufferInfo cbi = {.layout = tbl, .buffer = k.data};
  EXPECT_VAL(m, d, {
    WGPUCommandEncoder e = wgpuDeviceCreateCommandEncoder(d, NULL);
    wgpuCommandEncoderCopyBufferToTexture(e, &cbi, &cti, &ext);
    finish_submit(q, e);
  });
  WGPUBindGroupLayout tl = mk_bgl_tex(d);
  WGPUSampler s = wgpuDeviceCreateSampler(d, NULL);
  t = mk_texture(d, 4, 4, WGPUTextureFormat_RGBA8Unorm, WGPUTextureUsage_TextureBinding);
  v = wgpuTextureCreateView(t, NULL);
  wgpuTextureViewRelease(v);
  EXPECT_VAL(m, d, g = mk_group_tex(d, tl, v, s));
  if (g) wgpuBindGroupRelease(g);
  /* sampler */
  v = wgpuTextureCreateView(t, NULL);
  wgpuSamplerRelease(s);
  EXPECT_VAL(m, d, g = mk_group_tex(d, tl, v, s));
  if (g) wgpuBindGroupRelease(g);
  wgpuTextureViewRelease(v);
  wgpuTextureRelease(t);
  wgpuBindGroupLayoutRelease(tl);

  /* shader module, layouts, pipeline */
  WGPUShaderModule sh = mk_shader(d, k_wgsl);
  wgpuShaderModuleRelease(sh);
  WGPUComputePipeline p = NULL;
  EXPECT_VAL(m, d, p = mk_pipeline(d, sh, k.playout));
  if (p) wgpuComputePipelineRelease(p);
  req *r = req_new();
  WGPUCompilationInfoCallbackInfo ici = {.mode = WGPUCallbackMode_AllowSpontaneous, .callback = on_info, .userdata1 = r};
  EXPECT(m, d, A_VAL_OR_NONE, wgpuShaderModuleGetCompilationInfo(sh, ici));
  WGPUBindGroupLayout l = mk_bgl(d);
  wgpuBindGroupLayoutRelease(l);
  EXPECT_VAL(m, d, g = mk_group(d, l, k.data, 256));
  if (g) wgpuBindGroupRelease(g);
  WGPUPipelineLayout pl = NULL;
  EXPECT_VAL(m, d, pl = mk_playout(d, l));
  if (pl) wgpuPipelineLayoutRelease(pl);
  pl = mk_playout(d, k.bgl);
  wgpuPipelineLayoutRelease(pl);
  EXPECT_VAL(m, d, p = mk_pipeline(d, k.shader, pl));
  if (p) wgpuComputePipelineRelease(p);
  p = mk_pipeline(d, k.shader, k.playout);
  wgpuComputePipelineRelease(p);
  EXPECT_VAL(m, d, finish_submit(q, enc_dispatch(d, p, k.group, 1)));
  EXPECT(m, d, A_VAL_OR_NONE, l = wgpuComputePipelineGetBindGroupLayout(p, 0));
  if (l) wgpuBindGroupLayoutRelease(l);

  /* bind group */
  g = mk_group(d, k.bgl, k.data, 256);
  wgpuBindGroupRelease(g);
  EXPECT_VAL(m, d, finish_submit(q, enc_dispatch(d, k.pipeline, g, 1)));

  /* query set */
  WGPUQuerySet qs = mk_query_set(d, 2);
  wgpuQuerySetRelease(qs);
  EXPECT_VAL(m, d, {
    WGPUCommandEncoder e = wgpuDeviceCreateCommandEncoder(d, NULL);
    wgpuCommandEncoderResolveQuerySet(e, qs, 0, 1, k.data, 0);
    finish_submit(q, e);
  });
  EXPECT(m, d, A_VAL_OR_NONE, wgpuQuerySetGetCount(qs); wgpuQuerySetDestroy(qs));

  /* encoder */
  WGPUCommandEncoder e = wgpuDeviceCreateCommandEncoder(d, NULL);
  wgpuCommandEncoderRelease(e);
  WGPUCommandBuffer cb = NULL;
  WGPUComputePassEncoder pass = NULL;
  EXPECT(m, d, A_VAL_OR_NONE, {
    pass = wgpuCommandEncoderBeginComputePass(e, NULL);
    wgpuCommandEncoderCopyBufferToBuffer(e, k.data, 0, k.readback, 0, 4);
    wgpuCommandEncoderClearBuffer(e, k.data, 0, 4);
    cb = wgpuCommandEncoderFinish(e, NULL);
  });
  CHECK(m, !pass && !cb, "a released encoder gives no pass (%p) and no command buffer (%p)", (void *)pass,
        (void *)cb);
  if (pass) wgpuComputePassEncoderRelease(pass);
  if (cb) wgpuCommandBufferRelease(cb);

  /* pass: ended, released, used */
  e = wgpuDeviceCreateCommandEncoder(d, NULL);
  pass = wgpuCommandEncoderBeginComputePass(e, NULL);
  wgpuComputePassEncoderEnd(pass);
  wgpuComputePassEncoderRelease(pass);
  EXPECT(m, d, A_VAL_OR_NONE, {
    wgpuComputePassEncoderSetPipeline(pass, k.pipeline);
    wgpuComputePassEncoderDispatchWorkgroups(pass, 1, 1, 1);
    wgpuComputePassEncoderEnd(pass);
    wgpuComputePassEncoderRelease(pass);
    finish_submit(q, e);
  });
  /* pass released before End: the encoder is invalid at Finish */
  e = wgpuDeviceCreateCommandEncoder(d, NULL);
  pass = wgpuCommandEncoderBeginComputePass(e, NULL);
  wgpuComputePassEncoderRelease(pass);
  EXPECT_VAL(m, d, finish_submit(q, e));

  /* command buffer */
  e = enc_dispatch(d, k.pipeline, k.group, 1);
  cb = wgpuCommandEncoderFinish(e, NULL);
  wgpuCommandEncoderRelease(e);
  wgpuCommandBufferRelease(cb);
  EXPECT_VAL(m, d, wgpuQueueSubmit(q, 1, &cb));

  /* an object the program released while another holds it: its use is an
   * error, the holder still works */
  b = mk_buffer(d, WGPUBufferUsage_Storage | WGPUBufferUsage_CopyDst, 256);
  g = mk_group(d, k.bgl, b, 256);
  wgpuBufferRelease(b);
  EXPECT_VAL(m, d, wgpuQueueWriteBuffer(q, b, 0, g_data, 4));
  EXPECT_NONE(m, d, finish_submit(q, enc_dispatch(d, k.pipeline, g, 4)));
  wgpuBindGroupRelease(g);

  /* the queue, after its only reference is released */
  WGPUDevice d2 = m_device(m, "second");
  if (d2) {
    WGPUQueue q2 = wgpuDeviceGetQueue(d2);
    WGPUBuffer b2 = mk_buffer(d2, WGPUBufferUsage_CopyDst | WGPUBufferUsage_CopySrc, 16);
    wgpuQueueRelease(q2);
    EXPECT_VAL(m, d2, wgpuQueueWriteBuffer(q2, b2, 0, g_data, 4));
    EXPECT_VAL(m, d2, wgpuQueueSubmit(q2, 0, NULL));
    EXPECT(m, d2, A_VAL_OR_NONE, {
      req *wr = req_new();
      WGPUQueueWorkDoneCallbackInfo dci = {.mode = WGPUCallbackMode_AllowSpontaneous, .callback = on_done, .userdata1 = wr};
      wgpuQueueOnSubmittedWorkDone(q2, dci);
    });
    q2 = wgpuDeviceGetQueue(d2);
    CHECK(m, workload(m, d2, q2, 3), "the device of a released queue still computes right");
    wgpuQueueRelease(q2);
    wgpuBufferRelease(b2);
    wgpuDeviceRelease(d2);
  }
  CHECK(m, workload(m, d, q, 2), "the device still computes right");
  kit_free(&k);
}

/* A device used after its last Release (nothing else holds it). */
static void case_released_device(mctx *m) {
  WGPUDevice d2 = m_device(m, "released");
  if (!d2) {
    CHECK(m, false, "a second device");
    return;
  }
  wgpuDeviceRelease(d2);
  WGPUBufferDescriptor bd = {.usage = WGPUBufferUsage_CopyDst, .size = 16};
  EXPECT_NONE(m, m->w.device, {
    CHECK(m, !wgpuDeviceCreateBuffer(d2, &bd), "CreateBuffer on a released device returns NULL");
    CHECK(m, !wgpuDeviceGetQueue(d2), "GetQueue of a released device returns NULL");
    wgpuDevicePushErrorScope(d2, WGPUErrorFilter_Validation);
    wgpuDeviceDestroy(d2);
    wgpuDeviceRelease(d2);
  });
}

/* An adapter used after its last Release. */
static void case_released_adapter(mctx *m) {
  wp_request *r = wp_request_new();
  WGPURequestAdapterCallbackInfo cb = {.mode = WGPUCallbackMode_WaitAnyOnly, .callback = wp_on_adapter, .userdata1 = r};
  if (!wp_wait(&m->w, wgpuInstanceRequestAdapter(m->w.instance, NULL, cb), "an adapter") || !r->object) {
    CHECK(m, false, "a second adapter");
    return;
  }
  WGPUAdapter a = r->object;
  wgpuAdapterRelease(a);
  WGPULimits lim = {0};
  EXPECT_NONE(m, m->w.device, {
    CHECK(m, wgpuAdapterGetLimits(a, &lim) == WGPUStatus_Error, "GetLimits of a released adapter is an error");
    CHECK(m, !wgpuAdapterCreateDevice(a, NULL), "CreateDevice of a released adapter returns NULL");
    wgpuAdapterRelease(a);
  });
}

/* An instance used after its last Release. */
static void case_released_instance(mctx *m) {
  WGPUInstance in = wgpuCreateInstance(NULL);
  CHECK(m, in != NULL, "a second instance");
  if (!in) return;
  wgpuInstanceRelease(in);
  EXPECT_NONE(m, m->w.device, {
    wgpuInstanceProcessEvents(in);
    CHECK(m, wgpuInstanceWaitAny(in, 0, NULL, 0) == WGPUWaitStatus_Error, "WaitAny on a released instance fails");
    wgpuInstanceRelease(in);
  });
}

/* Handles of the wrong kind, a "native" pointer to 64 zero bytes, and the
 * objects of another device. */
static void case_wrong_kind(mctx *m) {
  WGPUDevice d = m->w.device;
  WGPUQueue q = m->w.queue;
  kit k = {0};
  kit_make(m, d, &k);
  WGPUTexture t = mk_texture(d, 4, 4, WGPUTextureFormat_RGBA8Unorm, WGPUTextureUsage_TextureBinding);
  WGPUTextureView v = wgpuTextureCreateView(t, NULL);
  WGPUTextureView bad_view = NULL;
  EXPECT_VAL(m, d, bad_view = wgpuTextureCreateView((WGPUTexture)(void *)k.data, NULL));
  if (bad_view) wgpuTextureViewRelease(bad_view);
  EXPECT_VAL(m, d, wgpuQueueWriteBuffer(q, (WGPUBuffer)(void *)t, 0, g_data, 4));
  EXPECT_VAL(m, d, CHECK(m, wgpuBufferGetSize((WGPUBuffer)(void *)t) == 0, "GetSize of a texture is 0"));
  WGPUBindGroup g = NULL;
  EXPECT_VAL(m, d, g = mk_group(d, k.bgl, (WGPUBuffer)(void *)v, 256));
  if (g) wgpuBindGroupRelease(g);
  EXPECT_VAL(m, d, g = mk_group(d, (WGPUBindGroupLayout)(void *)k.playout, k.data, 256));
  if (g) wgpuBindGroupRelease(g);
  EXPECT_VAL(m, d, finish_submit(q, enc_dispatch(d, (WGPUComputePipeline)(void *)k.group, k.group, 1)));
  EXPECT_VAL(m, d, finish_submit(q, enc_dispatch(d, k.pipeline, (WGPUBindGroup)(void *)k.pipeline, 1)));
  WGPUCommandEncoder e = wgpuDeviceCreateCommandEncoder(d, NULL);
  EXPECT_VAL(m, d, wgpuQueueSubmit(q, 1, (WGPUCommandBuffer *)&e));
  wgpuCommandEncoderRelease(e);
  EXPECT_VAL(m, d, CHECK(m, !wgpuDeviceCreateBuffer((WGPUDevice)(void *)q, &(WGPUBufferDescriptor){.usage = 8, .size = 4}),
                         "CreateBuffer on a queue returns NULL"));
  EXPECT(m, d, A_VAL_OR_NONE, wgpuQueueSubmit((WGPUQueue)(void *)d, 0, NULL));

  /* 64 zero bytes */
  void *x = g_garbage;
  EXPECT_NONE(m, d, {
    CHECK(m, wgpuBufferGetSize(x) == 0, "GetSize of garbage is 0");
    CHECK(m, !wgpuDeviceCreateBuffer(x, &(WGPUBufferDescriptor){.usage = 8, .size = 4}), "CreateBuffer on garbage is NULL");
    CHECK(m, !wgpuDeviceGetQueue(x), "GetQueue of garbage is NULL");
    CHECK(m, wgpuInstanceWaitAny(x, 0, NULL, 0) == WGPUWaitStatus_Error, "WaitAny on garbage is an error");
    wgpuDeviceDestroy(x);
    wgpuBufferUnmap(x);
    wgpuBufferRelease(x);
    wgpuTextureRelease(x);
    wgpuCommandEncoderRelease(x);
    wgpuComputePassEncoderEnd(x);
    wgpuRenderPassEncoderEnd(x);
    wgpuSurfacePresent(x);
  });
  EXPECT_VAL(m, d, wgpuQueueWriteBuffer(q, x, 0, g_data, 4));
  EXPECT_VAL(m, d, g = mk_group(d, k.bgl, x, 256));
  if (g) wgpuBindGroupRelease(g);
  EXPECT_VAL(m, d, finish_submit(q, enc_dispatch(d, x, k.group, 1)));
  EXPECT_VAL(m, d, wgpuQueueSubmit(q, 1, (WGPUCommandBuffer *)&x));
  EXPECT_VAL(m, d, {
    WGPUComputePipeline p = mk_pipeline(d, x, k.playout);
    if (p) wgpuComputePipelineRelease(p);
  });
  wgpuTextureViewRelease(v);
  wgpuTextureRelease(t);
  CHECK(m, workload(m, d, q, 4), "the device still computes right");
  kit_free(&k);
}

/* The objects of one device given to another. */
static void case_foreign_device(mctx *m) {
  WGPUDevice d = m->w.device, d2 = m_device(m, "foreign");
  WGPUQueue q = m->w.queue;
  if (!d2) {
    CHECK(m, false, "a second device");
    return;
  }
  WGPUQueue q2 = wgpuDeviceGetQueue(d2);
  kit k = {0}, k2 = {0};
  kit_make(m, d, &k);
  kit_make(m, d2, &k2);
  WGPUBindGroup g = NULL;
  EXPECT_VAL(m, d, g = mk_group(d, k.bgl, k2.data, 256));
  if (g) wgpuBindGroupRelease(g);
  EXPECT_VAL(m, d, g = mk_group(d, k2.bgl, k.data, 256));
  if (g) wgpuBindGroupRelease(g);
  EXPECT_VAL(m, d, wgpuQueueWriteBuffer(q, k2.data, 0, g_data, 16));
  WGPUComputePipeline p = NULL;
  EXPECT_VAL(m, d, p = mk_pipeline(d, k2.shader, k.playout));
  if (p) wgpuComputePipelineRelease(p);
  WGPUPipelineLayout pl = NULL;
  EXPECT_VAL(m, d, pl = mk_playout(d, k2.bgl));
  if (pl) wgpuPipelineLayoutRelease(pl);
  EXPECT_VAL(m, d, {
    WGPUCommandEncoder e = wgpuDeviceCreateCommandEncoder(d, NULL);
    wgpuCommandEncoderCopyBufferToBuffer(e, k2.data, 0, k.data, 0, 16);
    finish_submit(q, e);
  });
  EXPECT_VAL(m, d, finish_submit(q, enc_dispatch(d, k2.pipeline, k.group, 1)));
  EXPECT_VAL(m, d, finish_submit(q, enc_dispatch(d, k.pipeline, k2.group, 1)));
  /* a command buffer of d2 submitted to d's queue */
  WGPUCommandEncoder e2 = enc_dispatch(d2, k2.pipeline, k2.group, 1);
  WGPUCommandBuffer cb2 = wgpuCommandEncoderFinish(e2, NULL);
  EXPECT_VAL(m, d, wgpuQueueSubmit(q, 1, &cb2));
  wgpuCommandBufferRelease(cb2);
  wgpuCommandEncoderRelease(e2);
  CHECK(m, workload(m, d, q, 5), "the device still computes right");
  CHECK(m, workload(m, d2, q2, 6), "the other device still computes right");
  kit_free(&k2);
  wgpuQueueRelease(q2);
  wgpuDeviceRelease(d2);
  kit_free(&k);
}

/* An unknown sType (and known ones where they do not belong) chained on
 * every descriptor the layer accepts: a Validation error, an error object,
 * and its later use an error too. */
static void case_unknown_stypes(mctx *m) {
  WGPUDevice d = m->w.device;
  WGPUQueue q = m->w.queue;
  kit k = {0};
  kit_make(m, d, &k);
  WGPUChainedStruct unk = {.next = NULL, .sType = M_STYPE_UNKNOWN};
  WGPUChainedStruct wgsl_here = {.next = NULL, .sType = WGPUSType_ShaderSourceWGSL}; /* on a non-shader */

  /* buffer */
  for (int w = 0; w < 2; w++) {
    WGPUBufferDescriptor bd = {.nextInChain = w ? &wgsl_here : &unk,
                               .usage = WGPUBufferUsage_Storage | WGPUBufferUsage_CopyDst, .size = 256};
    WGPUBuffer b = NULL;
    EXPECT_VAL(m, d, b = wgpuDeviceCreateBuffer(d, &bd));
    CHECK(m, b != NULL, "a buffer with a chained sType 0x%x is an error object", bd.nextInChain->sType);
    EXPECT_VAL(m, d, wgpuQueueWriteBuffer(q, b, 0, g_data, 4));
    WGPUBindGroup g = NULL;
    EXPECT_VAL(m, d, g = mk_group(d, k.bgl, b, 256));
    if (g) wgpuBindGroupRelease(g);
    if (b) wgpuBufferRelease(b);
  }
  /* texture */
  WGPUTextureDescriptor td = {.nextInChain = &unk, .usage = WGPUTextureUsage_TextureBinding,
                              .dimension = WGPUTextureDimension_2D, .size = {4, 4, 1},
                              .format = WGPUTextureFormat_RGBA8Unorm, .mipLevelCount = 1, .sampleCount = 1};
  WGPUTexture t = NULL;
  WGPUTextureView v = NULL;
  EXPECT_VAL(m, d, t = wgpuDeviceCreateTexture(d, &td));
  CHECK(m, t != NULL, "a texture with an unknown sType is an error object");
  EXPECT_VAL(m, d, v = wgpuTextureCreateView(t, NULL));
  if (v) wgpuTextureViewRelease(v);
  if (t) wgpuTextureRelease(t);
  /* view, sampler: then used in a bind group */
  WGPUBindGroupLayout tl = mk_bgl_tex(d);
  t = mk_texture(d, 4, 4, WGPUTextureFormat_RGBA8Unorm, WGPUTextureUsage_TextureBinding);
  WGPUTextureViewDescriptor vd = {.nextInChain = &unk, .mipLevelCount = WGPU_MIP_LEVEL_COUNT_UNDEFINED,
                                  .arrayLayerCount = WGPU_ARRAY_LAYER_COUNT_UNDEFINED};
  WGPUSampler s_ok = wgpuDeviceCreateSampler(d, NULL);
  WGPUTextureView v_ok = wgpuTextureCreateView(t, NULL);
  WGPUBindGroup g = NULL;
  EXPECT_VAL(m, d, v = wgpuTextureCreateView(t, &vd));
  CHECK(m, v != NULL, "a view with an unknown sType is an error object");
  EXPECT_VAL(m, d, g = mk_group_tex(d, tl, v, s_ok));
  if (g) wgpuBindGroupRelease(g);
  if (v) wgpuTextureViewRelease(v);
  WGPUSamplerDescriptor smd = {.nextInChain = &unk, .lodMaxClamp = 32, .maxAnisotropy = 1};
  WGPUSampler s = NULL;
  EXPECT_VAL(m, d, s = wgpuDeviceCreateSampler(d, &smd));
  CHECK(m, s != NULL, "a sampler with an unknown sType is an error object");
  EXPECT_VAL(m, d, g = mk_group_tex(d, tl, v_ok, s));
  if (g) wgpuBindGroupRelease(g);
  if (s) wgpuSamplerRelease(s);
  wgpuTextureViewRelease(v_ok);
  wgpuSamplerRelease(s_ok);
  wgpuTextureRelease(t);
  wgpuBindGroupLayoutRelease(tl);
  /* shader module: WGSL then unknown, unknown then WGSL, SPIR-V */
  for (int w = 0; w < 3; w++) {
    WGPUShaderSourceWGSL src = {.chain = {.sType = WGPUSType_ShaderSourceWGSL}, .code = WP_STR(k_wgsl)};
    WGPUChainedStruct u2 = {.sType = w == 2 ? WGPUSType_ShaderSourceSPIRV : M_STYPE_UNKNOWN};
    WGPUShaderModuleDescriptor sd = {0};
    if (w == 0) src.chain.next = &u2, sd.nextInChain = &src.chain;
    else if (w == 1) u2.next = &src.chain, sd.nextInChain = &u2;
    else sd.nextInChain = &u2; /* a SPIR-V source with no code */
    WGPUShaderModule sh = NULL;
    EXPECT_VAL(m, d, sh = wgpuDeviceCreateShaderModule(d, &sd));
    CHECK(m, sh != NULL, "a shader module with chain %d is an error object", w);
    WGPUComputePipeline p = NULL;
    EXPECT_VAL(m, d, p = mk_pipeline(d, sh, k.playout));
    if (p) wgpuComputePipelineRelease(p);
    if (sh) {
      req *r = req_new();
      WGPUCompilationInfoCallbackInfo ici = {.mode = WGPUCallbackMode_WaitAnyOnly, .callback = on_info, .userdata1 = r};
      bool done = false;
      EXPECT_NONE(m, d, done = m_wait(m, wgpuShaderModuleGetCompilationInfo(sh, ici), r));
      CHECK(m, done, "the compilation info of an error module completes");
      wgpuShaderModuleRelease(sh);
    }
  }
  /* bind group layout: on the descriptor, an entry and each binding layout */
  for (int w = 0; w < 6; w++) {
    WGPUBindGroupLayoutEntry e = wp_layout_buffer(0, WGPUBufferBindingType_Storage, false, 0);
    WGPUBindGroupLayoutDescriptor ld = {.entryCount = 1, .entries = &e};
    switch (w) {
    case 0: ld.nextInChain = &unk; break;
    case 1: e.nextInChain = &unk; break;
    case 2: e.buffer.nextInChain = &unk; break;
    case 3: e.sampler.nextInChain = &unk; break;
    case 4: e.texture.nextInChain = &unk; break;
    default: e.storageTexture.nextInChain = &unk; break;
    }
    WGPUBindGroupLayout l = NULL;
    EXPECT_VAL(m, d, l = wgpuDeviceCreateBindGroupLayout(d, &ld));
    CHECK(m, l != NULL, "a bind group layout with an unknown sType (place %d) is an error object", w);
    EXPECT_VAL(m, d, g = mk_group(d, l, k.data, 256));
    if (g) wgpuBindGroupRelease(g);
    WGPUPipelineLayout pl = NULL;
    EXPECT_VAL(m, d, pl = mk_playout(d, l));
    if (pl) wgpuPipelineLayoutRelease(pl);
    if (l) wgpuBindGroupLayoutRelease(l);
  }
  /* pipeline layout */
  WGPUPipelineLayoutDescriptor pld = {.nextInChain = &unk, .bindGroupLayoutCount = 1, .bindGroupLayouts = &k.bgl};
  WGPUPipelineLayout pl = NULL;
  WGPUComputePipeline p = NULL;
  EXPECT_VAL(m, d, pl = wgpuDeviceCreatePipelineLayout(d, &pld));
  CHECK(m, pl != NULL, "a pipeline layout with an unknown sType is an error object");
  EXPECT_VAL(m, d, p = mk_pipeline(d, k.shader, pl));
  if (p) wgpuComputePipelineRelease(p);
  if (pl) wgpuPipelineLayoutRelease(pl);
  /* compute pipeline: descriptor, stage, constant */
  for (int w = 0; w < 3; w++) {
    WGPUConstantEntry c = {.nextInChain = &unk, .key = WP_STR("k"), .value = 1};
    WGPUComputePipelineDescriptor pd = {.layout = k.playout, .compute = {.module = k.shader, .entryPoint = WP_STR("main")}};
    if (w == 0) pd.nextInChain = &unk;
    else if (w == 1) pd.compute.nextInChain = &unk;
    else pd.compute.constantCount = 1, pd.compute.constants = &c;
    EXPECT_VAL(m, d, p = wgpuDeviceCreateComputePipeline(d, &pd));
    CHECK(m, p != NULL, "a pipeline with an unknown sType (place %d) is an error object", w);
    EXPECT_VAL(m, d, finish_submit(q, enc_dispatch(d, p, k.group, 1)));
    WGPUBindGroupLayout l = NULL;
    EXPECT_VAL(m, d, l = wgpuComputePipelineGetBindGroupLayout(p, 0));
    if (l) wgpuBindGroupLayoutRelease(l);
    if (p) wgpuComputePipelineRelease(p);
    req *r = req_new();
    WGPUCreateComputePipelineAsyncCallbackInfo pci = {.mode = WGPUCallbackMode_WaitAnyOnly, .callback = on_pipeline,
                                                      .userdata1 = r};
    bool done = false;
    EXPECT_NONE(m, d, done = m_wait(m, wgpuDeviceCreateComputePipelineAsync(d, &pd, pci), r));
    CHECK(m, done && r->status == WGPUCreatePipelineAsyncStatus_ValidationError,
          "an async pipeline with an unknown sType (place %d): status %u, want ValidationError", w, r->status);
    if (done && r->object) wgpuComputePipelineRelease(r->object);
  }
  /* bind group: descriptor, entry */
  for (int w = 0; w < 2; w++) {
    WGPUBindGroupEntry e = wp_bind_buffer(0, k.data, 0, 256);
    WGPUBindGroupDescriptor gd = {.layout = k.bgl, .entryCount = 1, .entries = &e};
    if (w == 0) gd.nextInChain = &unk;
    else e.nextInChain = &unk;
    EXPECT_VAL(m, d, g = wgpuDeviceCreateBindGroup(d, &gd));
    CHECK(m, g != NULL, "a bind group with an unknown sType (place %d) is an error object", w);
    EXPECT_VAL(m, d, finish_submit(q, enc_dispatch(d, k.pipeline, g, 1)));
    if (g) wgpuBindGroupRelease(g);
  }
  /* query set */
  WGPUQuerySetDescriptor qd = {.nextInChain = &unk, .type = WGPUQueryType_Occlusion, .count = 2};
  WGPUQuerySet qs = NULL;
  EXPECT_VAL(m, d, qs = wgpuDeviceCreateQuerySet(d, &qd));
  CHECK(m, qs != NULL, "a query set with an unknown sType is an error object");
  EXPECT_VAL(m, d, {
    WGPUCommandEncoder e = wgpuDeviceCreateCommandEncoder(d, NULL);
    wgpuCommandEncoderResolveQuerySet(e, qs, 0, 1, k.data, 0);
    finish_submit(q, e);
  });
  if (qs) wgpuQuerySetRelease(qs);
  /* command encoder: the error at its create or its Finish; its command
   * buffer an error at Submit */
  WGPUCommandEncoderDescriptor ed = {.nextInChain = &unk};
  WGPUCommandBuffer cb = NULL;
  EXPECT_VAL(m, d, {
    WGPUCommandEncoder e = wgpuDeviceCreateCommandEncoder(d, &ed);
    wgpuCommandEncoderClearBuffer(e, k.data, 0, 16);
    cb = wgpuCommandEncoderFinish(e, NULL);
    wgpuCommandEncoderRelease(e);
  });
  CHECK(m, cb != NULL, "an encoder with an unknown sType finishes into an error command buffer");
  EXPECT_VAL(m, d, wgpuQueueSubmit(q, 1, &cb));
  if (cb) wgpuCommandBufferRelease(cb);
  /* compute pass */
  WGPUComputePassDescriptor cpd = {.nextInChain = &unk};
  EXPECT_VAL(m, d, {
    WGPUCommandEncoder e = wgpuDeviceCreateCommandEncoder(d, NULL);
    WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(e, &cpd);
    wgpuComputePassEncoderSetPipeline(pass, k.pipeline);
    wgpuComputePassEncoderSetBindGroup(pass, 0, k.group, 0, NULL);
    wgpuComputePassEncoderDispatchWorkgroups(pass, 1, 1, 1);
    wgpuComputePassEncoderEnd(pass);
    wgpuComputePassEncoderRelease(pass);
    finish_submit(q, e);
  });
  /* the timestamp writes of a pass (a timestamp query set needs the feature) */
  if (wgpuDeviceHasFeature(d, WGPUFeatureName_TimestampQuery)) {
    WGPUQuerySetDescriptor tqd = {.type = WGPUQueryType_Timestamp, .count = 2};
    WGPUQuerySet tqs = wgpuDeviceCreateQuerySet(d, &tqd);
    WGPUPassTimestampWrites tw = {.nextInChain = &unk, .querySet = tqs, .beginningOfPassWriteIndex = 0,
                                  .endOfPassWriteIndex = 1};
    WGPUComputePassDescriptor tpd = {.timestampWrites = &tw};
    EXPECT_VAL(m, d, {
      WGPUCommandEncoder e = wgpuDeviceCreateCommandEncoder(d, NULL);
      WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(e, &tpd);
      wgpuComputePassEncoderEnd(pass);
      wgpuComputePassEncoderRelease(pass);
      finish_submit(q, e);
    });
    wgpuQuerySetRelease(tqs);
  } else if (g_verbose) {
    printf("  (no timestamp queries on this device: the chain of timestampWrites is not tried)\n");
  }
  CHECK(m, workload(m, d, q, 8), "the device still computes right");
  kit_free(&k);
}

/* Sizes and offsets out of range. */
static void case_out_of_range(mctx *m) {
  WGPUDevice d = m->w.device;
  WGPUQueue q = m->w.queue;
  kit k = {0};
  kit_make(m, d, &k);
  /* WriteBuffer (k.data is 256 bytes) */
  EXPECT_VAL(m, d, wgpuQueueWriteBuffer(q, k.data, 256, g_data, 4));
  EXPECT_VAL(m, d, wgpuQueueWriteBuffer(q, k.data, 252, g_data, 8));
  EXPECT_VAL(m, d, wgpuQueueWriteBuffer(q, k.data, 2, g_data, 4));
  EXPECT_VAL(m, d, wgpuQueueWriteBuffer(q, k.data, 0, g_data, 3));
  EXPECT_VAL(m, d, wgpuQueueWriteBuffer(q, k.data, UINT64_MAX - 3, g_data, 8));
  EXPECT_VAL(m, d, wgpuQueueWriteBuffer(q, k.data, 260, g_data, 0));
  EXPECT_NONE(m, d, wgpuQueueWriteBuffer(q, k.data, 256, g_data, 0));
  EXPECT_NONE(m, d, wgpuQueueWriteBuffer(q, k.data, 0, g_data, 256));

  /* MapAsync ranges (k.readback is 256 bytes) */
  struct {
    WGPUMapMode mode;
    size_t offset, size;
  } bad_maps[] = {{WGPUMapMode_Read, 0, 512}, {WGPUMapMode_Read, 4, 8},  {WGPUMapMode_Read, 0, 6},
                  {WGPUMapMode_Read, 264, 0}, {WGPUMapMode_Read, SIZE_MAX - 7, 16},
                  {WGPUMapMode_Read, 8, SIZE_MAX - 3}, {0, 0, 4}, {WGPUMapMode_Read | WGPUMapMode_Write, 0, 4},
                  {WGPUMapMode_Write, 0, 4}};
  for (size_t i = 0; i < WP_COUNT(bad_maps); i++) {
    NOTE("bad map %zu", i);
    uint32_t st = 0;
    EXPECT_VAL(m, d, st = map_wait(m, k.readback, bad_maps[i].mode, bad_maps[i].offset, bad_maps[i].size));
    CHECK(m, st == WGPUMapAsyncStatus_Error, "MapAsync(mode %llu, %zu, %zu): status %u, want Error",
          (unsigned long long)bad_maps[i].mode, bad_maps[i].offset, bad_maps[i].size, st);
    CHECK(m, wgpuBufferGetMapState(k.readback) == WGPUBufferMapState_Unmapped, "still unmapped");
  }
  g_note[0] = 0;
  uint32_t st = 0;
  EXPECT_NONE(m, d, st = map_wait(m, k.readback, WGPUMapMode_Read, 256, 0));
  CHECK(m, st == WGPUMapAsyncStatus_Success, "MapAsync of 0 bytes at the end: status %u", st);
  wgpuBufferUnmap(k.readback);

  /* GetMappedRange outside the mapping [64, 192) */
  EXPECT_NONE(m, d, st = map_wait(m, k.readback, WGPUMapMode_Read, 64, 128));
  CHECK(m, st == WGPUMapAsyncStatus_Success, "MapAsync(64, 128): status %u", st);
  struct {
    size_t offset, size;
    bool ok;
  } ranges[] = {{64, 128, true},  {72, 8, true},    {64, WGPU_WHOLE_MAP_SIZE, false} /* 256 - 64 bytes: past the mapping (Dawn) */,
                {192, WGPU_WHOLE_MAP_SIZE, false}, {0, 64, false},
                {56, 16, false},  {64, 132, false}, {192, 4, false},                {188, 8, false},
                {68, 4, false},   {64, 6, false},   {SIZE_MAX - 7, 16, false},      {200, WGPU_WHOLE_MAP_SIZE, false}};
  for (size_t i = 0; i < WP_COUNT(ranges); i++) {
    NOTE("range %zu (%zu, %zu)", i, ranges[i].offset, ranges[i].size);
    const void *p = NULL;
    EXPECT(m, d, A_VAL_OR_NONE, p = wgpuBufferGetConstMappedRange(k.readback, ranges[i].offset, ranges[i].size));
    CHECK(m, (p != NULL) == ranges[i].ok, "GetConstMappedRange(%zu, %zu) of the mapping [64, 192): %p", ranges[i].offset,
          ranges[i].size, p);
    if (p && ranges[i].size != WGPU_WHOLE_MAP_SIZE) {
      volatile const uint8_t *c = p;
      (void)c[ranges[i].size - 1]; /* the range is readable (ASan) */
    }
  }
  void *wp = NULL;
  EXPECT(m, d, A_VAL_OR_NONE, wp = wgpuBufferGetMappedRange(k.readback, 64, 8));
  CHECK(m, wp == NULL, "GetMappedRange (writable) of a mapping for reading is NULL");
  g_note[0] = 0;
  wgpuBufferUnmap(k.readback);
  CHECK(m, !wgpuBufferGetConstMappedRange(k.readback, 64, 8), "no range after Unmap");

  /* CopyBufferToBuffer: nothing when recorded, an error at Finish or Submit */
  WGPUBuffer other = mk_buffer(d, WGPUBufferUsage_CopySrc | WGPUBufferUsage_CopyDst, 256);
  struct {
    uint64_t so, dst_off, size;
  } copies[] = {{0, 0, 512}, {128, 0, 132}, {0, 200, 64}, {2, 0, 4}, {0, 0, 6}, {UINT64_MAX - 3, 0, 8},
                {0, UINT64_MAX - 3, 8}, {1024, 0, 0}, {0, 1024, 0}, {2, 0, 0}};
  for (size_t i = 0; i < WP_COUNT(copies); i++) {
    NOTE("copy %zu (%llu, %llu, %llu)", i, (unsigned long long)copies[i].so, (unsigned long long)copies[i].dst_off,
         (unsigned long long)copies[i].size);
    WGPUCommandEncoder e = NULL;
    EXPECT_NONE(m, d, e = wgpuDeviceCreateCommandEncoder(d, NULL);
                wgpuCommandEncoderCopyBufferToBuffer(e, k.data, copies[i].so, other, copies[i].dst_off, copies[i].size));
    EXPECT_VAL(m, d, finish_submit(q, e));
  }
  EXPECT_VAL(m, d, { /* source and destination the same */
    WGPUCommandEncoder e = wgpuDeviceCreateCommandEncoder(d, NULL);
    wgpuCommandEncoderCopyBufferToBuffer(e, k.data, 0, k.data, 128, 64);
    finish_submit(q, e);
  });
  struct {
    uint64_t offset, size;
  } clears[] = {{0, 512}, {2, 4}, {0, 6}, {512, WGPU_WHOLE_SIZE}, {260, 0}, {UINT64_MAX - 3, 8}};
  for (size_t i = 0; i < WP_COUNT(clears); i++) {
    NOTE("clear %zu (%llu, %llu)", i, (unsigned long long)clears[i].offset, (unsigned long long)clears[i].size);
    EXPECT_VAL(m, d, {
      WGPUCommandEncoder e = wgpuDeviceCreateCommandEncoder(d, NULL);
      wgpuCommandEncoderClearBuffer(e, k.data, clears[i].offset, clears[i].size);
      finish_submit(q, e);
    });
  }
  wgpuBufferRelease(other);
  g_note[0] = 0;

  /* zero-sized buffers */
  WGPUBuffer z = NULL, zm = NULL, zr = NULL;
  EXPECT_NONE(m, d, z = mk_buffer(d, WGPUBufferUsage_Storage | WGPUBufferUsage_CopyDst | WGPUBufferUsage_CopySrc, 0));
  CHECK(m, z && wgpuBufferGetSize(z) == 0, "a zero-sized buffer reports size 0");
  EXPECT_NONE(m, d, wgpuQueueWriteBuffer(q, z, 0, g_data, 0));
  EXPECT_VAL(m, d, wgpuQueueWriteBuffer(q, z, 0, g_data, 4));
  WGPUBindGroup g = NULL;
  EXPECT_VAL(m, d, g = mk_group(d, k.bgl, z, WGPU_WHOLE_SIZE)); /* a binding of 0 bytes */
  if (g) wgpuBindGroupRelease(g);
  EXPECT_NONE(m, d, {
    WGPUCommandEncoder e = wgpuDeviceCreateCommandEncoder(d, NULL);
    wgpuCommandEncoderCopyBufferToBuffer(e, z, 0, k.data, 0, 0);
    wgpuCommandEncoderClearBuffer(e, z, 0, WGPU_WHOLE_SIZE);
    finish_submit(q, e);
  });
  EXPECT_NONE(m, d, zr = mk_buffer(d, WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst, 0));
  EXPECT_NONE(m, d, st = map_wait(m, zr, WGPUMapMode_Read, 0, 0));
  CHECK(m, st == WGPUMapAsyncStatus_Success, "MapAsync of a zero-sized buffer: status %u", st);
  EXPECT_NONE(m, d, wgpuBufferGetConstMappedRange(zr, 0, 0); wgpuBufferUnmap(zr));
  WGPUBufferDescriptor zmd = {.usage = WGPUBufferUsage_CopySrc, .size = 0, .mappedAtCreation = true};
  EXPECT_NONE(m, d, zm = wgpuDeviceCreateBuffer(d, &zmd); wgpuBufferGetMappedRange(zm, 0, 0); wgpuBufferUnmap(zm));
  if (z) wgpuBufferRelease(z);
  if (zr) wgpuBufferRelease(zr);
  if (zm) wgpuBufferRelease(zm);

  /* huge sizes: an error object (validation or out-of-memory), whose use is
   * an error */
  const uint64_t huge[] = {1ull << 62, UINT64_MAX, UINT64_MAX - 1, (1ull << 40) + 4};
  for (size_t i = 0; i < WP_COUNT(huge); i++) {
    NOTE("size %llu", (unsigned long long)huge[i]);
    WGPUBuffer h = NULL;
    EXPECT(m, d, A_VAL_OR_OOM, h = mk_buffer(d, WGPUBufferUsage_Storage | WGPUBufferUsage_CopyDst, huge[i]));
    CHECK(m, h != NULL, "a buffer of %llu bytes is an error object", (unsigned long long)huge[i]);
    EXPECT_VAL(m, d, wgpuQueueWriteBuffer(q, h, 1ull << 30, g_data, 4));
    EXPECT_VAL(m, d, g = mk_group(d, k.bgl, h, 256));
    if (g) wgpuBindGroupRelease(g);
    if (h) wgpuBufferRelease(h);
  }

  /* textures */
  struct {
    uint32_t w, h, mips, samples;
    WGPUTextureFormat format;
    WGPUTextureUsage usage;
  } texs[] = {{0, 0, 1, 1, WGPUTextureFormat_RGBA8Unorm, WGPUTextureUsage_CopyDst},
              {0, 4, 1, 1, WGPUTextureFormat_RGBA8Unorm, WGPUTextureUsage_CopyDst},
              {65536, 4, 1, 1, WGPUTextureFormat_RGBA8Unorm, WGPUTextureUsage_CopyDst},
              {UINT32_MAX, UINT32_MAX, 1, 1, WGPUTextureFormat_RGBA8Unorm, WGPUTextureUsage_CopyDst},
              {4, 4, 0, 1, WGPUTextureFormat_RGBA8Unorm, WGPUTextureUsage_CopyDst},
              {4, 4, 4, 1, WGPUTextureFormat_RGBA8Unorm, WGPUTextureUsage_CopyDst},
              {4, 4, 1, 3, WGPUTextureFormat_RGBA8Unorm, WGPUTextureUsage_CopyDst},
              {4, 4, 1, 1, WGPUTextureFormat_Undefined, WGPUTextureUsage_CopyDst},
              {4, 4, 1, 1, (WGPUTextureFormat)0x7fffffff, WGPUTextureUsage_CopyDst},
              {4, 4, 1, 1, WGPUTextureFormat_RGBA8Unorm, 0},
              {4, 4, 1, 1, WGPUTextureFormat_RGBA8Unorm, 0x80000000ull}};
  for (size_t i = 0; i < WP_COUNT(texs); i++) {
    NOTE("texture %zu", i);
    WGPUTextureDescriptor td = {.usage = texs[i].usage, .dimension = WGPUTextureDimension_2D,
                                .size = {texs[i].w, texs[i].h, 1}, .format = texs[i].format,
                                .mipLevelCount = texs[i].mips, .sampleCount = texs[i].samples};
    WGPUTexture t = NULL;
    WGPUTextureView v = NULL;
    EXPECT_VAL(m, d, t = wgpuDeviceCreateTexture(d, &td));
    CHECK(m, t != NULL, "texture %zu (%ux%u, %u mips, %u samples, format 0x%x) is an error object", i, texs[i].w,
          texs[i].h, texs[i].mips, texs[i].samples, texs[i].format);
    EXPECT_VAL(m, d, v = wgpuTextureCreateView(t, NULL));
    if (v) wgpuTextureViewRelease(v);
    if (t) wgpuTextureRelease(t);
  }
  g_note[0] = 0;
  WGPUTexture t = mk_texture(d, 4, 4, WGPUTextureFormat_RGBA8Unorm, WGPUTextureUsage_CopyDst | WGPUTextureUsage_CopySrc);
  WGPUTextureViewDescriptor vd = {.baseMipLevel = 5, .mipLevelCount = 1, .arrayLayerCount = 1};
  WGPUTextureView v = NULL;
  EXPECT_VAL(m, d, v = wgpuTextureCreateView(t, &vd));
  if (v) wgpuTextureViewRelease(v);
  WGPUExtent3D ext = {4, 4, 1};
  WGPUTexelCopyTextureInfo cti = {.texture = t};
  struct {
    uint32_t x, w, h, bpr;
    size_t size;
  } writes[] = {{2, 4, 4, 16, 64}, {0, 4, 4, 16, 32}, {0, 4, 4, 8, 64}, {0, 8, 1, 32, 32}, {UINT32_MAX, 1, 1, 4, 4}};
  for (size_t i = 0; i < WP_COUNT(writes); i++) {
    NOTE("texture write %zu", i);
    WGPUTexelCopyBufferLayout tl = {.bytesPerRow = writes[i].bpr, .rowsPerImage = writes[i].h};
    WGPUExtent3D we = {writes[i].w, writes[i].h, 1};
    cti.origin.x = writes[i].x;
    EXPECT_VAL(m, d, wgpuQueueWriteTexture(q, &cti, g_data, writes[i].size, &tl, &we));
  }
  cti.origin.x = 0;
  g_note[0] = 0;
  WGPUTexelCopyBufferInfo cbi = {.layout = {.bytesPerRow = 16, .rowsPerImage = 4}, .buffer = k.data};
  EXPECT_VAL(m, d, { /* bytesPerRow not a multiple of 256 */
    WGPUCommandEncoder e = wgpuDeviceCreateCommandEncoder(d, NULL);
    wgpuCommandEncoderCopyTextureToBuffer(e, &cti, &cbi, &ext);
    finish_submit(q, e);
  });
  cbi.layout.bytesPerRow = 256;
  EXPECT_VAL(m, d, { /* 4 rows of 256 bytes do not fit in 256 */
    WGPUCommandEncoder e = wgpuDeviceCreateCommandEncoder(d, NULL);
    wgpuCommandEncoderCopyTextureToBuffer(e, &cti, &cbi, &ext);
    finish_submit(q, e);
  });
  wgpuTextureRelease(t);

  /* dispatches beyond the limits, indirect ones outside their buffer */
  uint32_t maxd = m->w.limits.maxComputeWorkgroupsPerDimension;
  EXPECT_VAL(m, d, finish_submit(q, enc_dispatch(d, k.pipeline, k.group, maxd + 1)));
  EXPECT_VAL(m, d, finish_submit(q, enc_dispatch(d, k.pipeline, k.group, UINT32_MAX)));
  EXPECT_NONE(m, d, finish_submit(q, enc_dispatch(d, k.pipeline, k.group, 0)));
  WGPUBuffer ind = NULL;
  EXPECT_NONE(m, d, ind = mk_buffer(d, WGPUBufferUsage_Indirect | WGPUBufferUsage_CopyDst, 16));
  const uint64_t ind_offsets[] = {8, 16, 2, UINT64_MAX - 3};
  for (size_t i = 0; i < WP_COUNT(ind_offsets); i++) {
    NOTE("indirect offset %llu", (unsigned long long)ind_offsets[i]);
    EXPECT_VAL(m, d, {
      WGPUCommandEncoder e = wgpuDeviceCreateCommandEncoder(d, NULL);
      WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(e, NULL);
      wgpuComputePassEncoderSetPipeline(pass, k.pipeline);
      wgpuComputePassEncoderSetBindGroup(pass, 0, k.group, 0, NULL);
      wgpuComputePassEncoderDispatchWorkgroupsIndirect(pass, ind, ind_offsets[i]);
      wgpuComputePassEncoderEnd(pass);
      wgpuComputePassEncoderRelease(pass);
      finish_submit(q, e);
    });
  }
  wgpuBufferRelease(ind);
  /* bind group indices and dynamic offsets */
  const uint32_t groups[] = {4, 31, UINT32_MAX};
  uint32_t dyn[16] = {0};
  for (size_t i = 0; i < WP_COUNT(groups); i++) {
    NOTE("group index %u", groups[i]);
    EXPECT_VAL(m, d, {
      WGPUCommandEncoder e = wgpuDeviceCreateCommandEncoder(d, NULL);
      WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(e, NULL);
      wgpuComputePassEncoderSetBindGroup(pass, groups[i], k.group, 0, NULL);
      wgpuComputePassEncoderEnd(pass);
      wgpuComputePassEncoderRelease(pass);
      finish_submit(q, e);
    });
  }
  const size_t dyn_counts[] = {1, 13, 16};
  for (size_t i = 0; i < WP_COUNT(dyn_counts); i++) {
    NOTE("%zu dynamic offsets", dyn_counts[i]);
    EXPECT_VAL(m, d, {
      WGPUCommandEncoder e = wgpuDeviceCreateCommandEncoder(d, NULL);
      WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(e, NULL);
      wgpuComputePassEncoderSetPipeline(pass, k.pipeline);
      wgpuComputePassEncoderSetBindGroup(pass, 0, k.group, dyn_counts[i], dyn);
      wgpuComputePassEncoderDispatchWorkgroups(pass, 1, 1, 1);
      wgpuComputePassEncoderEnd(pass);
      wgpuComputePassEncoderRelease(pass);
      finish_submit(q, e);
    });
  }
  /* query sets */
  WGPUQuerySet qs = NULL;
  EXPECT_VAL(m, d, qs = mk_query_set(d, 4097));
  if (qs) wgpuQuerySetRelease(qs);
  qs = mk_query_set(d, 2);
  const uint32_t q_first[] = {2, 0, UINT32_MAX}, q_count[] = {1, 3, 2};
  for (size_t i = 0; i < WP_COUNT(q_first); i++) {
    NOTE("resolve %u+%u", q_first[i], q_count[i]);
    EXPECT_VAL(m, d, {
      WGPUCommandEncoder e = wgpuDeviceCreateCommandEncoder(d, NULL);
      wgpuCommandEncoderResolveQuerySet(e, qs, q_first[i], q_count[i], k.data, 0);
      finish_submit(q, e);
    });
  }
  wgpuQuerySetRelease(qs);
  g_note[0] = 0;
  /* WaitAny with more futures than it takes */
  WGPUFutureWaitInfo many[65];
  memset(many, 0, sizeof many);
  EXPECT_NONE(m, d, wgpuInstanceWaitAny(m->w.instance, 65, many, 1000));
  CHECK(m, workload(m, d, q, 9), "the device still computes right");
  kit_free(&k);
}

/* A buffer mapped at creation whose size is beyond any limit. */
static void case_huge_mapped_at_creation(mctx *m) {
  WGPUDevice d = m->w.device;
  const uint64_t sizes[] = {1ull << 62, (1ull << 48) + 4, m->w.limits.maxBufferSize + 4};
  for (size_t i = 0; i < WP_COUNT(sizes); i++) {
    NOTE("size %llu", (unsigned long long)sizes[i]);
    WGPUBufferDescriptor bd = {.usage = WGPUBufferUsage_CopySrc, .size = sizes[i], .mappedAtCreation = true};
    WGPUBuffer b = NULL;
    EXPECT(m, d, A_VAL_OR_OOM, b = wgpuDeviceCreateBuffer(d, &bd));
    CHECK(m, b != NULL, "a buffer of %llu bytes mapped at creation is an error object", (unsigned long long)sizes[i]);
    EXPECT(m, d, A_VAL_OR_NONE, wgpuBufferGetMappedRange(b, 0, 4); wgpuBufferUnmap(b));
    if (b) wgpuBufferRelease(b);
  }
  g_note[0] = 0;
  CHECK(m, workload(m, d, m->w.queue, 10), "the device still computes right");
}

/* A texture of 2^28 mip levels: refused at once (Validation), as any
 * count above log2 of its size is; not after a walk over every level. */
static void case_texture_huge_mip_count(mctx *m) {
  WGPUDevice d = m->w.device;
  WGPUTextureDescriptor td = {.usage = WGPUTextureUsage_CopyDst, .dimension = WGPUTextureDimension_2D,
                              .size = {4, 4, 1}, .format = WGPUTextureFormat_RGBA8Unorm,
                              .mipLevelCount = 1u << 28, .sampleCount = 1};
  WGPUTexture t = NULL;
  double t0 = wp_now_s();
  EXPECT_VAL(m, d, t = wgpuDeviceCreateTexture(d, &td));
  double took = wp_now_s() - t0;
  CHECK(m, took < 1.0, "CreateTexture with 2^28 mip levels took %.2f s (want well under a second)", took);
  if (t) wgpuTextureRelease(t);
}

/* An invalid buffer mapped at creation still has its mapping (WebGPU: the
 * content timeline cannot know it is invalid; Dawn gives a host range), so
 * a program that fills it does not crash. */
static void case_error_buffer_mapped(mctx *m) {
  WGPUDevice d = m->w.device;
  WGPUBufferDescriptor bd = {.usage = WGPUBufferUsage_MapRead | WGPUBufferUsage_Storage, .size = 64,
                             .mappedAtCreation = true};
  WGPUBuffer b = NULL;
  void *p = NULL;
  EXPECT_VAL(m, d, b = wgpuDeviceCreateBuffer(d, &bd); p = wgpuBufferGetMappedRange(b, 0, 64));
  CHECK(m, p != NULL, "an invalid buffer mapped at creation has a mapped range (Dawn gives one)");
  if (p) memset(p, 0x5a, 64);
  EXPECT_VAL(m, d, wgpuQueueWriteBuffer(m->w.queue, b, 0, g_data, 4));
  EXPECT(m, d, A_VAL_OR_NONE, wgpuBufferUnmap(b));
  wgpuBufferRelease(b);
}

/* The program destroys its device: the lost callback (Destroyed), once; a
 * map pending at the loss is Aborted; then every kind of call returns
 * quietly: no error, no second callback. */
static void case_lost_destroyed(mctx *m) {
  WGPUDevice d = m->w.device;
  WGPUQueue q = m->w.queue;
  kit k = {0};
  kit_make(m, d, &k);
  WGPUTexture t0 = mk_texture(d, 4, 4, WGPUTextureFormat_RGBA8Unorm, WGPUTextureUsage_CopyDst | WGPUTextureUsage_TextureBinding);
  WGPUBuffer mapped = mk_buffer(d, WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst, 256);
  CHECK(m, map_wait(m, mapped, WGPUMapMode_Read, 0, 256) == WGPUMapAsyncStatus_Success, "a map before the loss");
  wgpuQueueWriteBuffer(q, k.data, 0, g_data, 256);
  finish_submit(q, enc_dispatch(d, k.pipeline, k.group, 4));
  WGPUCommandEncoder ce = wgpuDeviceCreateCommandEncoder(d, NULL);
  wgpuCommandEncoderCopyBufferToBuffer(ce, k.data, 0, k.readback, 0, 256);
  finish_submit(q, ce);
  req *pending = req_new();
  WGPUBufferMapCallbackInfo pci = {.mode = WGPUCallbackMode_WaitAnyOnly, .callback = on_map, .userdata1 = pending};
  WGPUFuture pf = wgpuBufferMapAsync(k.readback, WGPUMapMode_Read, 0, 256, pci);
  /* recorded before the loss, finished and submitted after it */
  WGPUCommandEncoder before = enc_dispatch(d, k.pipeline, k.group, 1);
  WGPUCommandBuffer cb_before = wgpuCommandEncoderFinish(enc_dispatch(d, k.pipeline, k.group, 1), NULL);
  int u0 = atomic_load(&m->uncaptured);

  wgpuDeviceDestroy(d);
  WGPUFuture lf = wgpuDeviceGetLostFuture(d);
  CHECK(m, m_wait(m, lf, NULL), "the lost future completes");
  CHECK(m, atomic_load(&m->lost) == 1 && atomic_load(&m->lost_reason) == WGPUDeviceLostReason_Destroyed,
        "the lost callback once with Destroyed (got %d, reason %d)", atomic_load(&m->lost),
        atomic_load(&m->lost_reason));
  bool done = m_wait(m, pf, pending);
  CHECK(m, done && pending->status == WGPUMapAsyncStatus_Aborted, "a map pending at the loss: done %d, status %u (want Aborted)",
        done, pending->status);

  EXPECT_NONE(m, d, {
    WGPUBuffer b = mk_buffer(d, WGPUBufferUsage_Storage | WGPUBufferUsage_CopyDst, 64);
    CHECK(m, b != NULL, "CreateBuffer on a lost device gives a buffer");
    WGPUBuffer bad = mk_buffer(d, 0, 64); /* invalid: quiet on a lost device */
    wgpuQueueWriteBuffer(q, b, 0, g_data, 64);
    wgpuQueueWriteBuffer(q, b, 2, g_data, 3);
    wgpuQueueWriteBuffer(q, bad, 0, g_data, 4);
    WGPUBufferDescriptor mbd = {.usage = WGPUBufferUsage_CopySrc, .size = 64, .mappedAtCreation = true};
    WGPUBuffer mb = wgpuDeviceCreateBuffer(d, &mbd);
    void *mp = wgpuBufferGetMappedRange(mb, 0, 64);
    CHECK(m, mp != NULL, "a buffer mapped at creation on a lost device has its mapping (WebGPU)");
    if (mp) memset(mp, 1, 64);
    wgpuBufferUnmap(mb);
    WGPUTexture t = mk_texture(d, 4, 4, WGPUTextureFormat_RGBA8Unorm, WGPUTextureUsage_TextureBinding);
    WGPUTextureView v = wgpuTextureCreateView(t, NULL);
    WGPUTextureView v0 = wgpuTextureCreateView(t0, NULL);
    WGPUSampler s = wgpuDeviceCreateSampler(d, NULL);
    WGPUShaderModule sh = mk_shader(d, k_wgsl);
    WGPUShaderModule bad_sh = mk_shader(d, "fn main( {");
    WGPUBindGroupLayout l = mk_bgl(d);
    WGPUPipelineLayout pl = mk_playout(d, l);
    WGPUComputePipeline p = mk_pipeline(d, sh, pl);
    WGPUComputePipeline bad_p = mk_pipeline(d, bad_sh, pl);
    WGPUBindGroupLayout pbl = wgpuComputePipelineGetBindGroupLayout(k.pipeline, 0);
    WGPUBindGroup g = mk_group(d, l, b, 64);
    WGPUQuerySet qs = mk_query_set(d, 2);
    CHECK(m, t && v && v0 && s && sh && bad_sh && l && pl && p && bad_p && g && qs,
          "every create on a lost device gives an object");
    WGPUCommandEncoder e = enc_dispatch(d, p, g, 1);
    wgpuCommandEncoderCopyBufferToBuffer(e, b, 0, k.data, 0, 64);
    wgpuCommandEncoderResolveQuerySet(e, qs, 0, 1, k.data, 0);
    finish_submit(q, e);
    finish_submit(q, enc_dispatch(d, k.pipeline, k.group, 1 << 20)); /* invalid: quiet */
    finish_submit(q, before);
    wgpuQueueSubmit(q, 1, &cb_before);
    WGPUExtent3D ext = {4, 4, 1};
    WGPUTexelCopyTextureInfo cti = {.texture = t0};
    WGPUTexelCopyBufferLayout tl = {.bytesPerRow = 16, .rowsPerImage = 4};
    wgpuQueueWriteTexture(q, &cti, g_data, 64, &tl, &ext);
    req *r1 = req_new(), *r2 = req_new(), *r3 = req_new(), *r4 = req_new();
    WGPUBufferMapCallbackInfo mci = {.mode = WGPUCallbackMode_WaitAnyOnly, .callback = on_map, .userdata1 = r1};
    bool d1 = m_wait(m, wgpuBufferMapAsync(k.readback, WGPUMapMode_Read, 0, 64, mci), r1);
    CHECK(m, d1 && r1->status == WGPUMapAsyncStatus_Aborted, "MapAsync on a lost device: done %d, status %u (want Aborted)",
          d1, r1->status);
    WGPUQueueWorkDoneCallbackInfo dci = {.mode = WGPUCallbackMode_WaitAnyOnly, .callback = on_done, .userdata1 = r2};
    bool d2 = m_wait(m, wgpuQueueOnSubmittedWorkDone(q, dci), r2);
    CHECK(m, d2 && r2->status == WGPUQueueWorkDoneStatus_Success,
          "OnSubmittedWorkDone on a lost device: done %d, status %u (want Success)", d2, r2->status);
    WGPUComputePipelineDescriptor pd = {.layout = pl, .compute = {.module = sh, .entryPoint = WP_STR("main")}};
    WGPUCreateComputePipelineAsyncCallbackInfo aci = {.mode = WGPUCallbackMode_WaitAnyOnly, .callback = on_pipeline,
                                                      .userdata1 = r3};
    bool d3 = m_wait(m, wgpuDeviceCreateComputePipelineAsync(d, &pd, aci), r3);
    CHECK(m, d3 && r3->status == WGPUCreatePipelineAsyncStatus_Success && r3->object,
          "CreateComputePipelineAsync on a lost device: done %d, status %u", d3, r3->status);
    if (r3->object) wgpuComputePipelineRelease(r3->object);
    WGPUCompilationInfoCallbackInfo ici = {.mode = WGPUCallbackMode_WaitAnyOnly, .callback = on_info, .userdata1 = r4};
    CHECK(m, m_wait(m, wgpuShaderModuleGetCompilationInfo(bad_sh, ici), r4), "compilation info on a lost device");
    WGPULimits lim = {0};
    CHECK(m, wgpuDeviceGetLimits(d, &lim) == WGPUStatus_Success, "GetLimits of a lost device");
    wgpuDeviceInjectError(d, WGPUErrorType_Validation, WP_STR("injected after the loss"));
    wgpuDeviceForceLoss(d, WGPUDeviceLostReason_Unknown, WP_STR("forced after the loss"));
    wgpuBufferUnmap(mapped);
    wgpuBufferDestroy(b);
    wgpuTextureDestroy(t);
    wgpuQuerySetDestroy(qs);
    wgpuDeviceDestroy(d);
    wgpuInstanceProcessEvents(m->w.instance);
    wgpuBindGroupLayoutRelease(pbl);
    wgpuQuerySetRelease(qs);
    wgpuBindGroupRelease(g);
    wgpuComputePipelineRelease(bad_p);
    wgpuComputePipelineRelease(p);
    wgpuPipelineLayoutRelease(pl);
    wgpuBindGroupLayoutRelease(l);
    wgpuShaderModuleRelease(bad_sh);
    wgpuShaderModuleRelease(sh);
    wgpuSamplerRelease(s);
    wgpuTextureViewRelease(v0);
    wgpuTextureViewRelease(v);
    wgpuTextureRelease(t);
    wgpuBufferRelease(mb);
    wgpuBufferRelease(bad);
    wgpuBufferRelease(b);
  });
  CHECK(m, atomic_load(&m->uncaptured) == u0, "no uncaptured error after the loss (%d)", atomic_load(&m->uncaptured) - u0);
  CHECK(m, atomic_load(&m->lost) == 1, "no second lost callback (%d in all)", atomic_load(&m->lost));
  wgpuCommandBufferRelease(cb_before);
  wgpuBufferRelease(mapped);
  wgpuTextureRelease(t0);
  kit_free(&k);
}

/* A loss unlost gives up on (recovery switched off): the program hears it
 * (the lost callback, not Destroyed), then every call is quiet. */
static void case_lost_final(mctx *m) {
  WGPUDevice d = m->w.device;
  WGPUQueue q = m->w.queue;
  kit k = {0};
  kit_make(m, d, &k);
  wgpuDeviceForceLoss(d, WGPUDeviceLostReason_Unknown, WP_STR("a final loss"));
  int u0 = atomic_load(&m->uncaptured);
  uint32_t st = 0;
  EXPECT_NONE(m, d, {
    wgpuQueueWriteBuffer(q, k.data, 0, g_data, 64);
    finish_submit(q, enc_dispatch(d, k.pipeline, k.group, 1));
    st = map_wait(m, k.readback, WGPUMapMode_Read, 0, 64);
    WGPUBuffer b = mk_buffer(d, WGPUBufferUsage_Storage, 64);
    wgpuBufferRelease(b);
  });
  CHECK(m, m_wait(m, wgpuDeviceGetLostFuture(d), NULL), "the lost future completes");
  CHECK(m, atomic_load(&m->lost) == 1 && atomic_load(&m->lost_reason) != WGPUDeviceLostReason_Destroyed,
        "the lost callback once, not Destroyed (got %d, reason %d)", atomic_load(&m->lost), atomic_load(&m->lost_reason));
  CHECK(m, st == WGPUMapAsyncStatus_Aborted, "MapAsync after a final loss: status %u (want Aborted)", st);
  CHECK(m, atomic_load(&m->uncaptured) == u0, "no uncaptured error after the loss");
  kit_free(&k);
}

/* A loss unlost recovers from (wgpuDeviceForceLoss): the program hears
 * nothing -- no lost callback, no error -- and the next work is right,
 * including a map in flight at the loss and one mapped at it. */
static void case_force_loss_recovered(mctx *m) {
  WGPUDevice d = m->w.device;
  WGPUQueue q = m->w.queue;
  kit k = {0};
  kit_make(m, d, &k);
  uint32_t in[64], want[64], got[64];
  uint32_t seed = 99;
  for (uint32_t i = 0; i < 64; i++) in[i] = wp_rand(&seed) % 100000;
  bool ok = false;
  EXPECT_NONE(m, d, wgpuQueueWriteBuffer(q, k.data, 0, in, sizeof in); finish_submit(q, enc_dispatch(d, k.pipeline, k.group, 1));
              ok = kit_read(m, d, q, &k, k.data, got, 64));
  for (uint32_t i = 0; i < 64; i++) want[i] = in[i] * 3u + 1u;
  CHECK(m, ok && wp_check_u32("before the loss", got, want, 64), "right before the loss");

  /* a loss, then work on the objects made before it */
  EXPECT_NONE(m, d, wgpuDeviceForceLoss(d, WGPUDeviceLostReason_Unknown, WP_STR("drill 1"));
              finish_submit(q, enc_dispatch(d, k.pipeline, k.group, 1)); ok = kit_read(m, d, q, &k, k.data, got, 64));
  for (uint32_t i = 0; i < 64; i++) want[i] = want[i] * 3u + 1u;
  CHECK(m, ok && wp_check_u32("after a loss", got, want, 64), "right after a loss");

  /* a loss with a map in flight */
  req *r = req_new();
  bool done = false;
  EXPECT_NONE(m, d, {
    finish_submit(q, enc_dispatch(d, k.pipeline, k.group, 1));
    WGPUCommandEncoder e = wgpuDeviceCreateCommandEncoder(d, NULL);
    wgpuCommandEncoderCopyBufferToBuffer(e, k.data, 0, k.readback, 0, 256);
    finish_submit(q, e);
    WGPUBufferMapCallbackInfo ci = {.mode = WGPUCallbackMode_WaitAnyOnly, .callback = on_map, .userdata1 = r};
    WGPUFuture f = wgpuBufferMapAsync(k.readback, WGPUMapMode_Read, 0, 256, ci);
    wgpuDeviceForceLoss(d, WGPUDeviceLostReason_Unknown, WP_STR("drill 2"));
    done = m_wait(m, f, r);
  });
  for (uint32_t i = 0; i < 64; i++) want[i] = want[i] * 3u + 1u;
  CHECK(m, done && r->status == WGPUMapAsyncStatus_Success, "a map in flight at a loss: done %d, status %u", done,
        r->status);
  const uint32_t *p = done ? wgpuBufferGetConstMappedRange(k.readback, 0, 256) : NULL;
  CHECK(m, p && wp_check_u32("a map in flight at a loss", p, want, 64), "the map in flight reads what it would have");

  /* a loss while mapped: the range stays readable until Unmap */
  EXPECT_NONE(m, d, {
    wgpuDeviceForceLoss(d, WGPUDeviceLostReason_Unknown, WP_STR("drill 3"));
    finish_submit(q, enc_dispatch(d, k.pipeline, k.group, 1));
    const uint32_t *p2 = wgpuBufferGetConstMappedRange(k.readback, 0, 256);
    if (p2) memcpy(got, p2, sizeof got);
    wgpuBufferUnmap(k.readback);
  });
  for (uint32_t i = 0; i < 64; i++) want[i] = want[i] * 3u + 1u;
  EXPECT_NONE(m, d, ok = kit_read(m, d, q, &k, k.data, got, 64));
  CHECK(m, ok && wp_check_u32("after a loss while mapped", got, want, 64), "right after a loss while mapped");

  /* a submit the implementation refuses (a buffer mapped while it is
   * used) did nothing, and a recovery must not replay it */
  WGPUBuffer rb = mk_buffer(d, WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst, 256);
  WGPUBuffer src7 = mk_buffer(d, WGPUBufferUsage_CopySrc | WGPUBufferUsage_CopyDst, 256);
  uint32_t sevens[64], zeros[64] = {0};
  for (int i = 0; i < 64; i++) sevens[i] = 7;
  wgpuQueueWriteBuffer(q, src7, 0, sevens, sizeof sevens);
  CHECK(m, map_wait(m, rb, WGPUMapMode_Read, 0, 256) == WGPUMapAsyncStatus_Success, "map");
  EXPECT_VAL(m, d, {
    WGPUCommandEncoder e = wgpuDeviceCreateCommandEncoder(d, NULL);
    wgpuCommandEncoderCopyBufferToBuffer(e, src7, 0, rb, 0, 256);
    finish_submit(q, e);
  });
  wgpuBufferUnmap(rb);
  bool same = map_wait(m, rb, WGPUMapMode_Read, 0, 256) == WGPUMapAsyncStatus_Success;
  const uint32_t *rp = same ? wgpuBufferGetConstMappedRange(rb, 0, 256) : NULL;
  CHECK(m, rp && wp_check_u32("a refused submit", rp, zeros, 64), "a refused submit changed nothing");
  wgpuBufferUnmap(rb);
  EXPECT_NONE(m, d, wgpuDeviceForceLoss(d, WGPUDeviceLostReason_Unknown, WP_STR("drill after a refused submit"));
              same = map_wait(m, rb, WGPUMapMode_Read, 0, 256) == WGPUMapAsyncStatus_Success);
  rp = same ? wgpuBufferGetConstMappedRange(rb, 0, 256) : NULL;
  CHECK(m, rp && wp_check_u32("after a loss", rp, zeros, 64),
        "a recovery does not replay a submit the implementation refused");
  wgpuBufferUnmap(rb);
  wgpuBufferRelease(src7);
  wgpuBufferRelease(rb);

  /* two losses in a row, then fresh work */
  EXPECT_NONE(m, d, wgpuDeviceForceLoss(d, WGPUDeviceLostReason_Unknown, WP_STR("drill 4"));
              wgpuDeviceForceLoss(d, WGPUDeviceLostReason_Unknown, WP_STR("drill 5")));
  CHECK(m, workload(m, d, q, 11), "fresh work after two losses is right");
  wgpuInstanceProcessEvents(m->w.instance);
  CHECK(m, atomic_load(&m->lost) == 0, "no lost callback for a loss unlost recovered from (%d)", atomic_load(&m->lost));
  CHECK(m, atomic_load(&m->uncaptured) == 0, "no uncaptured error (%d)", atomic_load(&m->uncaptured));
  kit_free(&k);
}

/* State misuse: double map, unmap of unmapped, double submit, Finish twice,
 * a pass left open, an encoder used after Finish, destroyed objects. */
static void case_state_misuse(mctx *m) {
  WGPUDevice d = m->w.device;
  WGPUQueue q = m->w.queue;
  kit k = {0};
  kit_make(m, d, &k);
  /* a map not yet waited for: pending, no range (Dawn: the state and the
   * range change when the callback is delivered, in WaitAny); twice, the
   * second time on a buffer mapped before and an idle queue */
  for (int round = 0; round < 2; round++) {
    NOTE("map round %d", round);
    req *r0 = req_new();
    WGPUBufferMapCallbackInfo c0 = {.mode = WGPUCallbackMode_WaitAnyOnly, .callback = on_map, .userdata1 = r0};
    WGPUFuture f0 = {0};
    WGPUBufferMapState st0 = 0;
    const void *p0 = NULL;
    EXPECT_NONE(m, d, f0 = wgpuBufferMapAsync(k.readback, WGPUMapMode_Read, 0, 256, c0);
                st0 = wgpuBufferGetMapState(k.readback); p0 = wgpuBufferGetConstMappedRange(k.readback, 0, 256));
    CHECK(m, st0 == WGPUBufferMapState_Pending, "the map state before the callback: %u (want Pending)", st0);
    CHECK(m, p0 == NULL, "no mapped range before the callback (got %p)", p0);
    bool done0 = m_wait(m, f0, r0);
    CHECK(m, done0 && r0->status == WGPUMapAsyncStatus_Success, "the map: done %d, status %u", done0, r0->status);
    CHECK(m, wgpuBufferGetConstMappedRange(k.readback, 0, 256) != NULL, "a mapped range after the callback");
    wgpuBufferUnmap(k.readback);
  }
  g_note[0] = 0;
  /* double map */
  req *r1 = req_new(), *r2 = req_new();
  WGPUBufferMapCallbackInfo c1 = {.mode = WGPUCallbackMode_WaitAnyOnly, .callback = on_map, .userdata1 = r1};
  WGPUBufferMapCallbackInfo c2 = {.mode = WGPUCallbackMode_WaitAnyOnly, .callback = on_map, .userdata1 = r2};
  WGPUFuture f1 = {0}, f2 = {0};
  EXPECT_VAL(m, d, f1 = wgpuBufferMapAsync(k.readback, WGPUMapMode_Read, 0, 256, c1);
             f2 = wgpuBufferMapAsync(k.readback, WGPUMapMode_Read, 0, 256, c2));
  bool done2 = m_wait(m, f2, r2), done1 = m_wait(m, f1, r1);
  CHECK(m, done2 && r2->status == WGPUMapAsyncStatus_Error, "the second map: done %d, status %u (want Error)", done2,
        r2->status);
  CHECK(m, done1 && r1->status == WGPUMapAsyncStatus_Success, "the first map: done %d, status %u (want Success)", done1,
        r1->status);
  CHECK(m, wgpuBufferGetMapState(k.readback) == WGPUBufferMapState_Mapped, "mapped");
  uint32_t st = 0;
  EXPECT_VAL(m, d, st = map_wait(m, k.readback, WGPUMapMode_Read, 0, 256));
  CHECK(m, st == WGPUMapAsyncStatus_Error, "a map of a mapped buffer: status %u (want Error)", st);
  /* a mapped buffer in a submit, a write into it */
  EXPECT_VAL(m, d, {
    WGPUCommandEncoder e = wgpuDeviceCreateCommandEncoder(d, NULL);
    wgpuCommandEncoderCopyBufferToBuffer(e, k.data, 0, k.readback, 0, 4);
    finish_submit(q, e);
  });
  WGPUBuffer mw = mk_buffer(d, WGPUBufferUsage_MapWrite | WGPUBufferUsage_CopySrc, 64);
  CHECK(m, map_wait(m, mw, WGPUMapMode_Write, 0, 64) == WGPUMapAsyncStatus_Success, "map for writing");
  EXPECT_VAL(m, d, {
    WGPUCommandEncoder e = wgpuDeviceCreateCommandEncoder(d, NULL);
    wgpuCommandEncoderCopyBufferToBuffer(e, mw, 0, k.data, 0, 4);
    finish_submit(q, e);
  });
  wgpuBufferUnmap(mw);
  wgpuBufferRelease(mw);
  /* unmap of unmapped, twice */
  EXPECT_NONE(m, d, wgpuBufferUnmap(k.readback); wgpuBufferUnmap(k.readback); wgpuBufferUnmap(k.data));
  CHECK(m, !wgpuBufferGetConstMappedRange(k.readback, 0, 4), "no range after Unmap");
  /* unmap or destroy while a map is pending: Aborted (with work queued
   * before the map, and with an idle queue, where the map can be done at
   * once but its callback is still to come) */
  for (int w = 0; w < 4; w++) {
    NOTE("%s, %s queue", w & 1 ? "Destroy" : "Unmap", w & 2 ? "an idle" : "a busy");
    WGPUBuffer b = (w & 1) ? mk_buffer(d, WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst, 64) : k.readback;
    req *r = req_new();
    WGPUBufferMapCallbackInfo ci = {.mode = WGPUCallbackMode_WaitAnyOnly, .callback = on_map, .userdata1 = r};
    WGPUFuture f = {0};
    EXPECT_NONE(m, d, {
      if (!(w & 2)) {
        WGPUCommandEncoder e = wgpuDeviceCreateCommandEncoder(d, NULL);
        wgpuCommandEncoderClearBuffer(e, k.data, 0, 256);
        finish_submit(q, e);
      }
      f = wgpuBufferMapAsync(b, WGPUMapMode_Read, 0, 64, ci);
      if (w & 1) wgpuBufferDestroy(b);
      else wgpuBufferUnmap(b);
    });
    bool done = m_wait(m, f, r);
    CHECK(m, done && r->status == WGPUMapAsyncStatus_Aborted, "while a map is pending: done %d, status %u (want Aborted)",
          done, r->status);
    CHECK(m, wgpuBufferGetMapState(b) == WGPUBufferMapState_Unmapped, "unmapped");
    CHECK(m, !wgpuBufferGetConstMappedRange(b, 0, 64), "no mapped range");
    if (w & 1) {
      /* a destroyed buffer: map, write, copy are errors; Destroy again is not */
      EXPECT_VAL(m, d, st = map_wait(m, b, WGPUMapMode_Read, 0, 64));
      CHECK(m, st == WGPUMapAsyncStatus_Error, "a map of a destroyed buffer: status %u (want Error)", st);
      EXPECT_VAL(m, d, {
        WGPUCommandEncoder e = wgpuDeviceCreateCommandEncoder(d, NULL);
        wgpuCommandEncoderCopyBufferToBuffer(e, k.data, 0, b, 0, 4);
        finish_submit(q, e);
      });
      EXPECT_NONE(m, d, wgpuBufferDestroy(b); wgpuBufferDestroy(b));
      wgpuBufferRelease(b);
    }
  }
  g_note[0] = 0;
  /* destroyed while mapped: the range is gone */
  WGPUBuffer dm = mk_buffer(d, WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst, 64);
  CHECK(m, map_wait(m, dm, WGPUMapMode_Read, 0, 64) == WGPUMapAsyncStatus_Success, "map");
  EXPECT_NONE(m, d, wgpuBufferDestroy(dm));
  CHECK(m, !wgpuBufferGetConstMappedRange(dm, 0, 4), "no range after Destroy");
  CHECK(m, wgpuBufferGetMapState(dm) == WGPUBufferMapState_Unmapped, "unmapped after Destroy");
  wgpuBufferRelease(dm);
  /* released while mapped */
  WGPUBuffer rm = mk_buffer(d, WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst, 64);
  CHECK(m, map_wait(m, rm, WGPUMapMode_Read, 0, 64) == WGPUMapAsyncStatus_Success, "map");
  EXPECT_NONE(m, d, wgpuBufferRelease(rm));
  /* a destroyed buffer in a command buffer recorded before its Destroy */
  WGPUBuffer db = mk_buffer(d, WGPUBufferUsage_CopySrc | WGPUBufferUsage_CopyDst, 64);
  WGPUCommandEncoder de = wgpuDeviceCreateCommandEncoder(d, NULL);
  wgpuCommandEncoderCopyBufferToBuffer(de, db, 0, k.data, 0, 64);
  WGPUCommandBuffer dcb = wgpuCommandEncoderFinish(de, NULL);
  wgpuBufferDestroy(db);
  EXPECT_VAL(m, d, wgpuQueueSubmit(q, 1, &dcb));
  EXPECT_VAL(m, d, wgpuQueueWriteBuffer(q, db, 0, g_data, 4));
  wgpuCommandBufferRelease(dcb);
  wgpuCommandEncoderRelease(de);
  wgpuBufferRelease(db);
  /* a destroyed texture */
  WGPUTexture t = mk_texture(d, 4, 4, WGPUTextureFormat_RGBA8Unorm, WGPUTextureUsage_CopyDst | WGPUTextureUsage_CopySrc);
  wgpuTextureDestroy(t);
  WGPUTextureView v = NULL;
  /* WebGPU (and Dawn) make views of a destroyed texture without an error:
   * its use in a submit is the error */
  EXPECT_NONE(m, d, v = wgpuTextureCreateView(t, NULL));
  CHECK(m, v != NULL, "a view of a destroyed texture");
  WGPUExtent3D ext = {4, 4, 1};
  WGPUTexelCopyTextureInfo cti = {.texture = t};
  WGPUTexelCopyBufferLayout tl = {.bytesPerRow = 16, .rowsPerImage = 4};
  EXPECT_VAL(m, d, wgpuQueueWriteTexture(q, &cti, g_data, 64, &tl, &ext));
  if (v) {
    WGPUBindGroupLayout tbl = mk_bgl_tex(d);
    WGPUSampler smp = wgpuDeviceCreateSampler(d, NULL);
    WGPUBindGroup tg = NULL;
    EXPECT(m, d, A_VAL_OR_NONE, tg = mk_group_tex(d, tbl, v, smp));
    if (tg) wgpuBindGroupRelease(tg);
    wgpuSamplerRelease(smp);
    wgpuBindGroupLayoutRelease(tbl);
    wgpuTextureViewRelease(v);
  }
  WGPUTexelCopyBufferInfo cbi = {.layout = {.bytesPerRow = 256, .rowsPerImage = 1}, .buffer = k.data};
  WGPUExtent3D one = {1, 1, 1};
  EXPECT_VAL(m, d, {
    WGPUCommandEncoder e = wgpuDeviceCreateCommandEncoder(d, NULL);
    wgpuCommandEncoderCopyTextureToBuffer(e, &cti, &cbi, &one);
    finish_submit(q, e);
  });
  EXPECT_NONE(m, d, wgpuTextureDestroy(t));
  wgpuTextureRelease(t);

  /* a command buffer submitted twice */
  WGPUCommandEncoder e = enc_dispatch(d, k.pipeline, k.group, 1);
  WGPUCommandBuffer cb = wgpuCommandEncoderFinish(e, NULL);
  EXPECT_NONE(m, d, wgpuQueueSubmit(q, 1, &cb));
  EXPECT_VAL(m, d, wgpuQueueSubmit(q, 1, &cb));
  WGPUCommandBuffer two[2] = {cb, cb};
  EXPECT_VAL(m, d, wgpuQueueSubmit(q, 2, two));
  wgpuCommandBufferRelease(cb);
  /* the same command buffer twice in one submit: refused, nothing runs */
  uint32_t in[64], got[64];
  for (uint32_t i = 0; i < 64; i++) in[i] = i;
  wgpuQueueWriteBuffer(q, k.data, 0, in, sizeof in);
  WGPUCommandEncoder twice = enc_dispatch(d, k.pipeline, k.group, 1);
  cb = wgpuCommandEncoderFinish(twice, NULL);
  wgpuCommandEncoderRelease(twice);
  two[0] = two[1] = cb;
  EXPECT_VAL(m, d, wgpuQueueSubmit(q, 2, two));
  wgpuCommandBufferRelease(cb);
  bool read_ok = false;
  EXPECT_NONE(m, d, read_ok = kit_read(m, d, q, &k, k.data, got, 64));
  CHECK(m, read_ok && wp_check_u32("a refused submit of one command buffer twice", got, in, 64),
        "a submit of one command buffer twice runs nothing");
  /* Finish twice; the encoder used after Finish */
  WGPUCommandBuffer cb2 = NULL;
  EXPECT_VAL(m, d, cb2 = wgpuCommandEncoderFinish(e, NULL));
  CHECK(m, cb2 != NULL, "a second Finish gives an error command buffer");
  EXPECT_VAL(m, d, wgpuQueueSubmit(q, 1, &cb2));
  if (cb2) wgpuCommandBufferRelease(cb2);
  EXPECT_VAL(m, d, wgpuCommandEncoderCopyBufferToBuffer(e, k.data, 0, k.readback, 0, 4));
  EXPECT_VAL(m, d, wgpuCommandEncoderClearBuffer(e, k.data, 0, 4));
  WGPUComputePassEncoder late = NULL;
  EXPECT_VAL(m, d, late = wgpuCommandEncoderBeginComputePass(e, NULL));
  EXPECT(m, d, A_VAL_OR_NONE, {
    wgpuComputePassEncoderSetPipeline(late, k.pipeline);
    wgpuComputePassEncoderDispatchWorkgroups(late, 1, 1, 1);
    wgpuComputePassEncoderEnd(late);
  });
  if (late) wgpuComputePassEncoderRelease(late);
  wgpuCommandEncoderRelease(e);
  /* a pass left open at Finish */
  EXPECT_VAL(m, d, {
    WGPUCommandEncoder oe = wgpuDeviceCreateCommandEncoder(d, NULL);
    WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(oe, NULL);
    wgpuComputePassEncoderSetPipeline(pass, k.pipeline);
    finish_submit(q, oe);
    wgpuComputePassEncoderDispatchWorkgroups(pass, 1, 1, 1); /* its encoder finished */
    wgpuComputePassEncoderEnd(pass);
    wgpuComputePassEncoderRelease(pass);
  });
  /* a pass used after End, ended twice; two passes open; the encoder used
   * while a pass is open */
  EXPECT_VAL(m, d, {
    WGPUCommandEncoder oe = wgpuDeviceCreateCommandEncoder(d, NULL);
    WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(oe, NULL);
    wgpuComputePassEncoderEnd(pass);
    wgpuComputePassEncoderSetPipeline(pass, k.pipeline);
    wgpuComputePassEncoderDispatchWorkgroups(pass, 1, 1, 1);
    wgpuComputePassEncoderRelease(pass);
    finish_submit(q, oe);
  });
  EXPECT_VAL(m, d, {
    WGPUCommandEncoder oe = wgpuDeviceCreateCommandEncoder(d, NULL);
    WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(oe, NULL);
    wgpuComputePassEncoderEnd(pass);
    wgpuComputePassEncoderEnd(pass);
    wgpuComputePassEncoderRelease(pass);
    finish_submit(q, oe);
  });
  EXPECT_VAL(m, d, {
    WGPUCommandEncoder oe = wgpuDeviceCreateCommandEncoder(d, NULL);
    WGPUComputePassEncoder p1 = wgpuCommandEncoderBeginComputePass(oe, NULL);
    WGPUComputePassEncoder p2 = wgpuCommandEncoderBeginComputePass(oe, NULL);
    wgpuComputePassEncoderEnd(p2);
    wgpuComputePassEncoderEnd(p1);
    if (p2) wgpuComputePassEncoderRelease(p2);
    wgpuComputePassEncoderRelease(p1);
    finish_submit(q, oe);
  });
  EXPECT_VAL(m, d, {
    WGPUCommandEncoder oe = wgpuDeviceCreateCommandEncoder(d, NULL);
    WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(oe, NULL);
    wgpuCommandEncoderClearBuffer(oe, k.data, 0, 4);
    wgpuComputePassEncoderEnd(pass);
    wgpuComputePassEncoderRelease(pass);
    finish_submit(q, oe);
  });
  /* the encoder released with a pass open; the pass used after */
  EXPECT(m, d, A_VAL_OR_NONE, {
    WGPUCommandEncoder oe = wgpuDeviceCreateCommandEncoder(d, NULL);
    WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(oe, NULL);
    wgpuCommandEncoderRelease(oe);
    wgpuComputePassEncoderSetPipeline(pass, k.pipeline);
    wgpuComputePassEncoderEnd(pass);
    wgpuComputePassEncoderRelease(pass);
  });
  /* error scopes: a pop with none pushed, an invalid filter */
  char msg[256];
  uint32_t type = scope_pop(m, d, msg, sizeof msg);
  CHECK(m, type == 0, "a pop with no scope pushed fails (got type %u)", type);
  /* an invalid filter: Dawn refuses the push (a validation error), the pop
   * then finds no scope; either way no crash and nothing left pushed */
  EXPECT(m, d, A_VAL_OR_NONE, wgpuDevicePushErrorScope(d, (WGPUErrorFilter)0x7fff));
  int u0 = atomic_load(&m->uncaptured);
  scope_pop(m, d, msg, sizeof msg);
  CHECK(m, scope_pop(m, d, msg, sizeof msg) == 0, "nothing left pushed after an invalid filter");
  if (atomic_load(&m->uncaptured) > u0) atomic_store(&m->uncaptured, u0); /* Dawn's push error, uncaptured */
  CHECK(m, workload(m, d, q, 12), "the device still computes right");
  CHECK(m, atomic_load(&m->lost) == 0 && atomic_load(&m->uncaptured) == 0, "no loss, no uncaptured error");
  kit_free(&k);
}

/* More error scopes than the layer keeps (64), and an async pipeline: the
 * program's scopes keep their errors. */
static void case_scope_overflow(mctx *m) {
  WGPUDevice d = m->w.device;
  kit k = {0};
  kit_make(m, d, &k);
  const int depth = 66;
  for (int i = 0; i < depth; i++) wgpuDevicePushErrorScope(d, WGPUErrorFilter_Validation);
  WGPUBuffer bad = mk_buffer(d, 0, 64); /* a validation error in the innermost scope */
  req *r = req_new();
  WGPUComputePipelineDescriptor pd = {.layout = k.playout, .compute = {.module = k.shader, .entryPoint = WP_STR("main")}};
  WGPUCreateComputePipelineAsyncCallbackInfo aci = {.mode = WGPUCallbackMode_WaitAnyOnly, .callback = on_pipeline,
                                                    .userdata1 = r};
  CHECK(m, m_wait(m, wgpuDeviceCreateComputePipelineAsync(d, &pd, aci), r) &&
               r->status == WGPUCreatePipelineAsyncStatus_Success,
        "an async pipeline under %d scopes", depth);
  if (r->object) wgpuComputePipelineRelease(r->object);
  char msg[256];
  uint32_t first = scope_pop(m, d, msg, sizeof msg);
  CHECK(m, first == WGPUErrorType_Validation, "the innermost of %d scopes keeps its error (got type %u)", depth, first);
  int fails = 0;
  for (int i = 1; i < depth; i++) fails += scope_pop(m, d, msg, sizeof msg) != WGPUErrorType_NoError;
  CHECK(m, fails == 0, "the other %d scopes pop empty (%d did not)", depth - 1, fails);
  CHECK(m, scope_pop(m, d, msg, sizeof msg) == 0, "one pop too many fails");
  wgpuBufferRelease(bad);
  kit_free(&k);
}

/* The refused entry points (render, surfaces, shared memory, ...): a
 * Validation error or NULL, never a crash. */
static void case_refused(mctx *m) {
  WGPUDevice d = m->w.device;
  WGPUQueue q = m->w.queue;
  kit k = {0};
  kit_make(m, d, &k);
  WGPURenderPipelineDescriptor rpd = {0};
  WGPURenderPipeline rp = NULL;
  EXPECT_VAL(m, d, rp = wgpuDeviceCreateRenderPipeline(d, &rpd));
  CHECK(m, rp == NULL, "CreateRenderPipeline gives NULL");
  EXPECT_VAL(m, d, rp = wgpuDeviceCreateRenderPipeline(d, NULL));
  req *r = req_new();
  WGPUCreateRenderPipelineAsyncCallbackInfo rci = {.mode = WGPUCallbackMode_WaitAnyOnly,
                                                   .callback = (WGPUCreateRenderPipelineAsyncCallback)(void (*)(void))on_pipeline,
                                                   .userdata1 = r};
  bool done = false;
  EXPECT(m, d, A_VAL_OR_NONE, done = m_wait(m, wgpuDeviceCreateRenderPipelineAsync(d, &rpd, rci), r));
  CHECK(m, done && r->status == WGPUCreatePipelineAsyncStatus_ValidationError,
        "CreateRenderPipelineAsync: done %d, status %u (want ValidationError)", done, r->status);
  WGPUCreateRenderPipelineAsyncCallbackInfo nocb = {.mode = WGPUCallbackMode_AllowSpontaneous};
  EXPECT(m, d, A_VAL_OR_NONE, wgpuDeviceCreateRenderPipelineAsync(d, &rpd, nocb));
  WGPURenderPassDescriptor rpass = {0};
  WGPURenderPassEncoder re = NULL;
  EXPECT_VAL(m, d, {
    WGPUCommandEncoder e = wgpuDeviceCreateCommandEncoder(d, NULL);
    re = wgpuCommandEncoderBeginRenderPass(e, &rpass);
    wgpuRenderPassEncoderSetPipeline(re, rp);
    wgpuRenderPassEncoderDraw(re, 3, 1, 0, 0);
    wgpuRenderPassEncoderEnd(re);
    wgpuRenderPassEncoderRelease(re);
    finish_submit(q, e);
  });
  CHECK(m, re == NULL, "BeginRenderPass gives NULL");
  WGPURenderBundleEncoderDescriptor rbd = {0};
  EXPECT_VAL(m, d, CHECK(m, !wgpuDeviceCreateRenderBundleEncoder(d, &rbd), "CreateRenderBundleEncoder gives NULL"));
  EXPECT_VAL(m, d, CHECK(m, !wgpuDeviceCreateExternalTexture(d, NULL), "CreateExternalTexture gives NULL"));
  EXPECT_VAL(m, d, CHECK(m, !wgpuDeviceImportSharedBufferMemory(d, NULL), "ImportSharedBufferMemory gives NULL"));
  EXPECT_VAL(m, d, CHECK(m, !wgpuDeviceImportSharedTextureMemory(d, NULL), "ImportSharedTextureMemory gives NULL"));
  EXPECT_VAL(m, d, CHECK(m, !wgpuDeviceImportSharedFence(d, NULL), "ImportSharedFence gives NULL"));
  WGPUExtent3D ext = {1, 1, 1};
  WGPUTexelCopyTextureInfo cti = {0};
  WGPUCopyTextureForBrowserOptions opts = {0};
  EXPECT_VAL(m, d, wgpuQueueCopyTextureForBrowser(q, &cti, &cti, &ext, &opts));
  EXPECT_VAL(m, d, {
    WGPUCommandEncoder e = wgpuDeviceCreateCommandEncoder(d, NULL);
    wgpuCommandEncoderWriteBuffer(e, k.data, 0, (const uint8_t *)g_data, 4);
    finish_submit(q, e);
  });
  EXPECT_VAL(m, d, {
    WGPUCommandEncoder e = wgpuDeviceCreateCommandEncoder(d, NULL);
    WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(e, NULL);
    wgpuComputePassEncoderSetImmediateData(pass, 0, g_data, 4);
    wgpuComputePassEncoderEnd(pass);
    wgpuComputePassEncoderRelease(pass);
    finish_submit(q, e);
  });
  WGPUSurfaceDescriptor sd = {0};
  EXPECT_NONE(m, d, {
    CHECK(m, !wgpuInstanceCreateSurface(m->w.instance, &sd), "CreateSurface gives NULL");
    CHECK(m, !wgpuInstanceCreateSurface(m->w.instance, NULL), "CreateSurface(NULL) gives NULL");
    wgpuSurfaceConfigure(NULL, NULL);
    wgpuSurfacePresent(NULL);
    wgpuSurfaceRelease(NULL);
    wgpuRenderPassEncoderDraw(NULL, 3, 1, 0, 0);
    wgpuRenderPassEncoderEnd(NULL);
    wgpuRenderBundleEncoderFinish(NULL, NULL);
    CHECK(m, !wgpuRenderPipelineGetBindGroupLayout(NULL, 0), "RenderPipelineGetBindGroupLayout(NULL) gives NULL");
    wgpuRenderPipelineRelease(NULL);
    wgpuExternalTextureRelease(NULL);
    wgpuSharedFenceRelease(NULL);
  });
  /* GetProcAddress hands out the layer's own entry points */
  CHECK(m, wgpuGetProcAddress(WP_STR("wgpuDeviceCreateBuffer")) == (WGPUProc)(void (*)(void))wgpuDeviceCreateBuffer,
        "GetProcAddress(wgpuDeviceCreateBuffer) is the layer's");
  CHECK(m, wgpuGetProcAddress(WP_STR("wgpuNoSuchThing")) == NULL, "GetProcAddress of an unknown name is NULL");
  CHECK(m, workload(m, d, q, 13), "the device still computes right");
  kit_free(&k);
}

/* ---- the runner ------------------------------------------------------------------ */

typedef struct mcase {
  const char *name;
  void (*run)(mctx *m);
  const char *env;   /* NAME=VALUE set in the case's process, or NULL */
  const char *known; /* the layer's bugs this case shows (reported, not fixed yet), for the summary */
} mcase;

static const mcase k_cases[] = {
    {"null_handles", case_null_handles, NULL, NULL},
    {"null_descriptors", case_null_descriptors, NULL,
     "a NULL handle inside a call on a known device is no error (object.c ul__wg_check reports only to the "
     "handle's own device)"},
    {"null_constants", case_null_constants, NULL, "NULL constants with constantCount 1: SIGSEGV at resource.c make_pipeline"},
    {"released_objects", case_released_objects, NULL,
     "a released handle inside a call on a known device is no error (object.c ul__wg_check; resource.c opt() callers)"},
    {"released_device", case_released_device, NULL, "heap-use-after-free: devices are freed, not quarantined (device.c)"},
    {"released_adapter", case_released_adapter, NULL, "heap-use-after-free: adapters are freed, not quarantined (instance.c)"},
    {"released_instance", case_released_instance, NULL, "heap-use-after-free: instances are freed, not quarantined (instance.c)"},
    {"wrong_kind", case_wrong_kind, NULL, "a garbage handle inside a call on a known device is no error (as null_descriptors)"},
    {"foreign_device", case_foreign_device, NULL, NULL},
    {"unknown_stypes", case_unknown_stypes, NULL,
     "an error bind group layout makes a pipeline layout with no error (resource.c); the chain of a pass's "
     "timestampWrites is dropped (encoder.c)"},
    {"out_of_range", case_out_of_range, NULL,
     "sizes >= 2^64-3 wrap to a 0-byte buffer (buffer.c); zero-sized copies/clears skip validation (encoder.c); "
     "a 0-byte buffer binds; texture usage 0 accepted; WGPU_WHOLE_MAP_SIZE measured from the mapping"},
    {"huge_mapped_at_creation", case_huge_mapped_at_creation, NULL,
     "ASan allocation-size-too-big: host copy allocated before the size is checked (buffer.c)"},
    {"texture_huge_mip_count", case_texture_huge_mip_count, NULL, "the engine walks every mip level before validating (engine/objects.c)"},
    {"error_buffer_mapped", case_error_buffer_mapped, NULL, "an invalid buffer mapped at creation has no mapping (buffer.c)"},
    {"lost_destroyed", case_lost_destroyed, NULL, "a buffer mapped at creation on a lost device has no mapping (buffer.c)"},
    {"lost_final", case_lost_final, "UNLOST_RECOVERY=0", NULL},
    {"force_loss_recovered", case_force_loss_recovered, NULL,
     "a submit the implementation refused is logged and replayed by the next recovery (engine/submit.c)"},
    {"state_misuse", case_state_misuse, NULL,
     "maps complete before their callback (Unmap then gets Success; buffer.c); a mapped buffer in a submit and one "
     "command buffer twice in a submit are no error (the latter runs twice: queue.c); a view of a destroyed "
     "texture is an error"},
    {"scope_overflow", case_scope_overflow, NULL,
     "async pipeline creation pops two of the program's scopes when 64 are pushed (resource.c)"},
    {"refused", case_refused, NULL, NULL},
};

/* One case in this process: 0 when every check passed, M_EXIT_FAIL when
 * one failed, 77 without an adapter. */
static int run_case(const mcase *c) {
  if (c->env) {
    char buf[128];
    snprintf(buf, sizeof buf, "%s", c->env);
    char *eq = strchr(buf, '=');
    if (eq) {
      *eq = 0;
      setenv(buf, eq + 1, 1);
    }
  }
  alarm(M_CASE_SECONDS); /* a hang is a failure of its own (SIGALRM) */
  mctx *m = calloc(1, sizeof *m);
  if (!m) return WP_FAIL;
  m->name = c->name;
  char *argv[] = {(char *)"webgpu_misuse", NULL};
  int rc = wp_start(&m->w, c->name, 1, argv);
  if (rc) {
    if (m->w.adapter) wgpuAdapterRelease(m->w.adapter);
    if (m->w.instance) wgpuInstanceRelease(m->w.instance);
    return rc;
  }
  m->w.device = m_device(m, c->name);
  if (!m->w.device) return WP_FAIL;
  m->w.queue = wgpuDeviceGetQueue(m->w.device);
  m->w.limits = (WGPULimits){0};
  wgpuDeviceGetLimits(m->w.device, &m->w.limits);
  c->run(m);
  atomic_store(&m->closing, true);
  wgpuQueueRelease(m->w.queue);
  wgpuDeviceRelease(m->w.device);
  wgpuAdapterRelease(m->w.adapter);
  wgpuInstanceRelease(m->w.instance);
  printf("%s: %d checks, %d failed\n", c->name, m->checks, m->fails);
  int fails = m->fails;
  free(m);
  return fails ? M_EXIT_FAIL : 0;
}

/* Every case, each in a child process (this executable with --case). */
static int run_all(const char *self, bool verbose) {
  int failed = 0, skipped = 0;
  char lines[WP_COUNT(k_cases)][160];
  for (size_t i = 0; i < WP_COUNT(k_cases); i++) {
    const char *name = k_cases[i].name;
    printf("== %s\n", name);
    fflush(stdout);
    char *argv[] = {(char *)self, (char *)"--case", (char *)name, verbose ? (char *)"-v" : NULL, NULL};
    pid_t pid;
    int err = posix_spawn(&pid, self, NULL, NULL, argv, environ);
    int status = 0;
    if (err || waitpid(pid, &status, 0) != pid) {
      snprintf(lines[i], sizeof lines[i], "FAIL  %-24s could not run (%s)", name, strerror(err));
      failed++;
      continue;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
      snprintf(lines[i], sizeof lines[i], "pass  %s", name);
    } else if (WIFEXITED(status) && WEXITSTATUS(status) == WP_SKIP) {
      snprintf(lines[i], sizeof lines[i], "skip  %s (no adapter)", name);
      skipped++;
    } else if (WIFEXITED(status) && WEXITSTATUS(status) == M_EXIT_FAIL) {
      snprintf(lines[i], sizeof lines[i], "FAIL  %-24s checks failed (above)", name);
      failed++;
    } else if (WIFEXITED(status)) {
      snprintf(lines[i], sizeof lines[i], "FAIL  %-24s exit %d (a sanitizer report or a setup failure, above)", name,
               WEXITSTATUS(status));
      failed++;
    } else {
      int sig = WTERMSIG(status);
      snprintf(lines[i], sizeof lines[i], "FAIL  %-24s killed by signal %d (%s)%s", name, sig, strsignal(sig),
               sig == SIGALRM ? ": a hang" : ": a crash");
      failed++;
    }
  }
  printf("\nwebgpu_misuse summary:\n");
  for (size_t i = 0; i < WP_COUNT(k_cases); i++) {
    printf("  %s\n", lines[i]);
    if (lines[i][0] == 'F' && k_cases[i].known) printf("        known layer bug: %s\n", k_cases[i].known);
  }
  printf("%d of %zu cases failed%s\n", failed, WP_COUNT(k_cases), skipped ? " (some skipped: no adapter)" : "");
  if (skipped == (int)WP_COUNT(k_cases)) return WP_SKIP;
  return failed ? WP_FAIL : 0;
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (!getenv("XDG_RUNTIME_DIR")) setenv("XDG_RUNTIME_DIR", "/tmp", 0);
  const char *one = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-v")) {
      g_verbose = true;
    } else if (!strcmp(argv[i], "--list")) {
      for (size_t k = 0; k < WP_COUNT(k_cases); k++) printf("%s\n", k_cases[k].name);
      return 0;
    } else if (!strcmp(argv[i], "--case") && i + 1 < argc) {
      one = argv[++i];
    } else {
      fprintf(stderr, "usage: %s [-v] [--list] [--case NAME]\n", argv[0]);
      return WP_USAGE;
    }
  }
  if (!one) return run_all("/proc/self/exe", g_verbose);
  for (size_t k = 0; k < WP_COUNT(k_cases); k++)
    if (!strcmp(k_cases[k].name, one)) return run_case(&k_cases[k]);
  fprintf(stderr, "%s: no case named %s (--list)\n", argv[0], one);
  return WP_USAGE;
}
