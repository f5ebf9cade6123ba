/* Bounded input through the webgpu.h front door (issue 36): chained structs
 * that form a cycle and strings with an explicit length and a NUL inside
 * must get the implementation's answer, and a program that never releases
 * its instance still gets its chaos report.
 *
 * A program on webgpu.h alone, built twice: linked to the implementation
 * (webgpu_bounds_direct) and linked to libunlost-webgpu (webgpu_bounds).
 * Each case prints a transcript of what the calls answered (statuses,
 * whether an error scope caught a Validation error, whether an object came
 * back), nothing that names which library answered: bounds_webgpu.sh runs a
 * case on both and compares. Messages go to stderr (their words differ).
 *
 *   bounds_webgpu CASE     one case; exit 0 when it ran, 77 with no adapter
 *   bounds_webgpu --list   the cases of the comparison
 * Cases outside the comparison:
 *   instance               wgpuCreateInstance alone: "instance ok|null"
 *   noexit                 a checked workload, then exit without releasing
 *                          anything (the chaos report at exit) */
#include "wgpu_prog.h"

#include <unistd.h>

/* The restore policy's sType (include/unlost_webgpu.h), written out: this
 * program also runs on the implementation alone. */
#define B_STYPE_RESTORE 0x554C0001u

static wp_ctx g_c;

/* ---- outcomes ---------------------------------------------------------- */

static const char *scope_name(uint32_t t) {
  switch (t) {
  case WGPUErrorType_NoError: return "none";
  case WGPUErrorType_Validation: return "validation";
  case WGPUErrorType_OutOfMemory: return "oom";
  case WGPUErrorType_Internal: return "internal";
  default: return "unknown";
  }
}

static void on_pop(WGPUPopErrorScopeStatus status, WGPUErrorType type, WGPUStringView message, void *u1,
                   void *u2) {
  (void)u2;
  wp_request_note(u1, status == WGPUPopErrorScopeStatus_Success ? type : 0xffffu, NULL, message);
}

/* Pops the Validation scope pushed before the calls: what it caught. */
static const char *scope_pop(void) {
  wp_request *r = wp_request_new();
  WGPUPopErrorScopeCallbackInfo ci = {.mode = WGPUCallbackMode_WaitAnyOnly, .callback = on_pop, .userdata1 = r};
  if (!wp_wait(&g_c, wgpuDevicePopErrorScope(g_c.device, ci), "an error scope")) return "pop-hung";
  const char *n = r->status == 0xffffu ? "pop-failed" : scope_name(r->status);
  if (r->status == WGPUErrorType_Validation) fprintf(stderr, "  (validation: %s)\n", r->message);
  wp_request_free(r);
  return n;
}

static void scope_push(void) { wgpuDevicePushErrorScope(g_c.device, WGPUErrorFilter_Validation); }

static void on_pipeline(WGPUCreatePipelineAsyncStatus status, WGPUComputePipeline pipeline, WGPUStringView message,
                        void *u1, void *u2) {
  (void)u2;
  wp_request_note(u1, status, pipeline, message);
}

/* ---- chains -------------------------------------------------------------- */

static WGPUInstanceDescriptor instance_desc(void) {
  WGPUInstanceDescriptor d = {0};
  d.capabilities.timedWaitAnyEnable = 1;
  return d;
}

/* Dawn's toggles descriptor pointing at itself (no toggles). */
static WGPUDawnTogglesDescriptor self_toggles(void) {
  WGPUDawnTogglesDescriptor t = {.chain = {.sType = WGPUSType_DawnTogglesDescriptor}};
  return t;
}

static int case_instance_cycle(void) {
  WGPUDawnTogglesDescriptor t = self_toggles();
  t.chain.next = &t.chain;
  WGPUInstanceDescriptor d = instance_desc();
  d.nextInChain = &t.chain;
  WGPUInstance in = wgpuCreateInstance(&d);
  printf("instance with a cycle: %s\n", in ? "made" : "null");
  if (in) wgpuInstanceRelease(in);
  return 0;
}

static int case_adapter_cycle(void) {
  WGPUDawnTogglesDescriptor t = self_toggles();
  t.chain.next = &t.chain;
  WGPURequestAdapterOptions o = {.featureLevel = WGPUFeatureLevel_Core, .nextInChain = &t.chain};
  wp_request *r = wp_request_new();
  WGPURequestAdapterCallbackInfo cb = {.mode = WGPUCallbackMode_WaitAnyOnly, .callback = wp_on_adapter, .userdata1 = r};
  if (!wp_wait(&g_c, wgpuInstanceRequestAdapter(g_c.instance, &o, cb), "the adapter")) {
    printf("adapter with a cycle: no callback\n");
    return 0;
  }
  fprintf(stderr, "  (adapter: %s)\n", r->message);
  printf("adapter with a cycle: status %u, adapter %s\n", r->status, r->object ? "made" : "null");
  if (r->object) wgpuAdapterRelease(r->object);
  wp_request_free(r);
  return 0;
}

/* Requests a device with `chain`, in `mode`. */
static void request_device(const char *what, WGPUChainedStruct *chain, WGPUCallbackMode mode) {
  WGPUDeviceDescriptor d = {.nextInChain = chain, .label = WP_STR(what)};
  wp_request *r = wp_request_new();
  WGPURequestDeviceCallbackInfo cb = {.mode = mode, .callback = wp_on_device, .userdata1 = r};
  WGPUFuture f = wgpuAdapterRequestDevice(g_c.adapter, &d, cb);
  bool ok = mode == WGPUCallbackMode_WaitAnyOnly ? wp_wait(&g_c, f, what)
                                                   : wp_process_until(&g_c, &r->done, what);
  if (!ok) {
    printf("%s: no callback\n", what);
    return;
  }
  fprintf(stderr, "  (%s: %s)\n", what, r->message);
  printf("%s: status %u, device %s\n", what, r->status, r->object ? "made" : "null");
  if (r->object) wgpuDeviceRelease(r->object);
  wp_request_free(r);
}

/* Each request needs an adapter of its own: the first device consumes it. */
static bool fresh_adapter(void) {
  if (g_c.adapter) wgpuAdapterRelease(g_c.adapter);
  g_c.adapter = NULL;
  wp_request *r = wp_request_new();
  WGPURequestAdapterOptions o = {.featureLevel = WGPUFeatureLevel_Core};
  WGPURequestAdapterCallbackInfo cb = {.mode = WGPUCallbackMode_WaitAnyOnly, .callback = wp_on_adapter, .userdata1 = r};
  if (!wp_wait(&g_c, wgpuInstanceRequestAdapter(g_c.instance, &o, cb), "the adapter")) return false;
  g_c.adapter = r->object;
  wp_request_free(r);
  return g_c.adapter != NULL;
}

static int case_device_cycle(void) {
  /* One struct pointing at itself. */
  WGPUDawnTogglesDescriptor t = self_toggles();
  t.chain.next = &t.chain;
  request_device("device, a toggles struct chained to itself", &t.chain, WGPUCallbackMode_WaitAnyOnly);
  if (!fresh_adapter()) return WP_FAIL;
  request_device("device, the same in AllowProcessEvents", &t.chain, WGPUCallbackMode_AllowProcessEvents);
  /* Two structs, the second pointing back at the first. */
  WGPUDawnTogglesDescriptor a = self_toggles();
  WGPUDawnCacheDeviceDescriptor b = {.chain = {.sType = WGPUSType_DawnCacheDeviceDescriptor}};
  a.chain.next = &b.chain;
  b.chain.next = &a.chain;
  if (!fresh_adapter()) return WP_FAIL;
  request_device("device, a cycle of two structs", &a.chain, WGPUCallbackMode_WaitAnyOnly);
  /* The same struct twice in a row, with no cycle: toggles A, toggles B. */
  WGPUDawnTogglesDescriptor c = self_toggles(), e = self_toggles();
  c.chain.next = &e.chain;
  if (!fresh_adapter()) return WP_FAIL;
  request_device("device, two toggles structs", &c.chain, WGPUCallbackMode_WaitAnyOnly);
  return 0;
}

static const char *k_wgsl = "@group(0) @binding(0) var<storage, read_write> data: array<u32>;\n"
                            "override k: u32 = 1u;\n"
                            "@compute @workgroup_size(64)\n"
                            "fn main(@builtin(global_invocation_id) id: vec3u) {\n"
                            "  if (id.x < arrayLength(&data)) { data[id.x] = data[id.x] * 3u + k; }\n"
                            "}\n";

static int case_resource_cycle(void) {
  WGPUShaderSourceWGSL src = {.chain = {.sType = WGPUSType_ShaderSourceWGSL}, .code = WP_STR(k_wgsl)};
  src.chain.next = &src.chain;
  WGPUShaderModuleDescriptor sd = {.nextInChain = &src.chain};
  scope_push();
  WGPUShaderModule sh = wgpuDeviceCreateShaderModule(g_c.device, &sd);
  printf("shader module, its source chained to itself: %s\n", scope_pop());
  if (sh) wgpuShaderModuleRelease(sh);

  /* The restore policy chained to itself (the implementation does not know
   * the sType; the layer takes one). */
  WGPUChainedStruct rs = {.sType = (WGPUSType)B_STYPE_RESTORE};
  rs.next = &rs;
  WGPUBufferDescriptor bd = {.nextInChain = &rs, .usage = WGPUBufferUsage_Storage, .size = 256};
  scope_push();
  WGPUBuffer b = wgpuDeviceCreateBuffer(g_c.device, &bd);
  printf("buffer, a chained struct pointing at itself: %s\n", scope_pop());
  if (b) wgpuBufferRelease(b);
  return 0;
}

/* ---- strings with an explicit length ------------------------------------ */

/* A view of `n` bytes of `s` (NULs included). */
static WGPUStringView sv_n(const char *s, size_t n) { return (WGPUStringView){s, n}; }

static WGPUComputePipeline pipeline_with(WGPUShaderModule sh, WGPUStringView entry, const WGPUConstantEntry *c,
                                         size_t nc, WGPUStringView label) {
  WGPUComputePipelineDescriptor pd = {
      .label = label, .compute = {.module = sh, .entryPoint = entry, .constantCount = nc, .constants = c}};
  return wgpuDeviceCreateComputePipeline(g_c.device, &pd);
}

static void async_pipeline(const char *what, WGPUShaderModule sh, WGPUStringView entry, const WGPUConstantEntry *c,
                           size_t nc) {
  WGPUComputePipelineDescriptor pd = {.compute = {.module = sh, .entryPoint = entry, .constantCount = nc, .constants = c}};
  wp_request *r = wp_request_new();
  WGPUCreateComputePipelineAsyncCallbackInfo ci = {.mode = WGPUCallbackMode_WaitAnyOnly, .callback = on_pipeline,
                                                   .userdata1 = r};
  if (!wp_wait(&g_c, wgpuDeviceCreateComputePipelineAsync(g_c.device, &pd, ci), what)) {
    printf("%s (async): no callback\n", what);
    return;
  }
  if (r->status != WGPUCreatePipelineAsyncStatus_Success) fprintf(stderr, "  (%s: %s)\n", what, r->message);
  printf("%s (async): status %u, pipeline %s\n", what, r->status, r->object ? "made" : "null");
  if (r->object) wgpuComputePipelineRelease(r->object);
  wp_request_free(r);
}

static WGPUShaderModule shader_n(const char *code, size_t n, WGPUStringView label) {
  WGPUShaderSourceWGSL src = {.chain = {.sType = WGPUSType_ShaderSourceWGSL}, .code = sv_n(code, n)};
  WGPUShaderModuleDescriptor sd = {.nextInChain = &src.chain, .label = label};
  return wgpuDeviceCreateShaderModule(g_c.device, &sd);
}

static int case_strings(void) {
  const WGPUStringView none = {NULL, WGPU_STRLEN};
  size_t n = strlen(k_wgsl);
  /* The module's source, then a NUL and text that is not WGSL. */
  static const char tail[] = "this is not WGSL";
  char *code = wp_alloc(n + 1 + sizeof tail);
  memcpy(code, k_wgsl, n);
  memcpy(code + n + 1, tail, sizeof tail);
  scope_push();
  WGPUShaderModule bad = shader_n(code, n + sizeof tail, none);
  printf("WGSL with a NUL inside: %s\n", scope_pop());
  scope_push();
  WGPUComputePipeline p = pipeline_with(bad, WP_STR("main"), NULL, 0, none);
  printf("pipeline of that module: %s\n", scope_pop());
  if (p) wgpuComputePipelineRelease(p);
  async_pipeline("pipeline of that module", bad, WP_STR("main"), NULL, 0);
  if (bad) wgpuShaderModuleRelease(bad);

  /* The same source exactly (its length, no NUL): it compiles. */
  scope_push();
  WGPUShaderModule sh = shader_n(k_wgsl, n, none);
  printf("WGSL of an explicit length: %s\n", scope_pop());

  static const char entry[] = "main\0zz";
  scope_push();
  p = pipeline_with(sh, sv_n(entry, sizeof entry - 1), NULL, 0, none);
  printf("entry point with a NUL inside: %s\n", scope_pop());
  if (p) wgpuComputePipelineRelease(p);
  async_pipeline("entry point with a NUL inside", sh, sv_n(entry, sizeof entry - 1), NULL, 0);
  scope_push();
  p = pipeline_with(sh, sv_n(entry, 4), NULL, 0, none);
  printf("entry point of an explicit length: %s\n", scope_pop());
  if (p) wgpuComputePipelineRelease(p);

  static const char key[] = "k\0zz";
  WGPUConstantEntry c = {.key = sv_n(key, sizeof key - 1), .value = 2};
  scope_push();
  p = pipeline_with(sh, WP_STR("main"), &c, 1, none);
  printf("constant key with a NUL inside: %s\n", scope_pop());
  if (p) wgpuComputePipelineRelease(p);
  async_pipeline("constant key with a NUL inside", sh, WP_STR("main"), &c, 1);
  c.key = sv_n(key, 1);
  scope_push();
  p = pipeline_with(sh, WP_STR("main"), &c, 1, none);
  printf("constant key of an explicit length: %s\n", scope_pop());
  if (p) wgpuComputePipelineRelease(p);

  static const char proc[] = "wgpuCreateInstance\0x";
  printf("proc name with a NUL inside: %s\n", wgpuGetProcAddress(sv_n(proc, sizeof proc - 1)) ? "found" : "null");
  printf("proc name of an explicit length: %s\n", wgpuGetProcAddress(sv_n(proc, sizeof proc - 3)) ? "found" : "null");

  /* Labels take any bytes. */
  static const char label[] = "la\0bel";
  scope_push();
  WGPUShaderModule l = shader_n(k_wgsl, n, sv_n(label, sizeof label - 1));
  p = pipeline_with(l, WP_STR("main"), NULL, 0, sv_n(label, sizeof label - 1));
  WGPUBufferDescriptor bd = {.label = sv_n(label, sizeof label - 1), .usage = WGPUBufferUsage_Storage, .size = 256};
  WGPUBuffer b = wgpuDeviceCreateBuffer(g_c.device, &bd);
  printf("labels with a NUL inside: %s\n", scope_pop());
  if (b) wgpuBufferRelease(b);
  if (p) wgpuComputePipelineRelease(p);
  if (l) wgpuShaderModuleRelease(l);
  if (sh) wgpuShaderModuleRelease(sh);
  free(code);
  return 0;
}

/* ---- a program that never releases anything ------------------------------ */

/* data[i] = data[i] * 3 + 1 over 256 words, `rounds` times, each checked
 * against the CPU; then exit with everything still held. */
static int case_noexit(void) {
  enum { N = 256, ROUNDS = 6 };
  uint32_t want[N], got[N];
  for (uint32_t i = 0; i < N; i++) want[i] = i;
  WGPUShaderModule sh = wp_shader(&g_c, "noexit", k_wgsl);
  WGPUComputePipeline p = wp_pipeline(&g_c, "noexit", sh, "main", NULL);
  WGPUBindGroupLayout l = wgpuComputePipelineGetBindGroupLayout(p, 0);
  WGPUBuffer data = wp_buffer_from(&g_c, "data", WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc, want, sizeof want);
  WGPUBindGroupEntry e = wp_bind_buffer(0, data, 0, sizeof want);
  WGPUBindGroup g = wp_bind_group(&g_c, "noexit", l, &e, 1);
  for (int r = 0; r < ROUNDS; r++) {
    WGPUCommandEncoder enc = wp_encoder(&g_c, "noexit");
    wp_dispatch(enc, p, g, N / 64, 1, 1);
    wp_submit(&g_c, enc);
    for (uint32_t i = 0; i < N; i++) want[i] = want[i] * 3u + 1u;
    if (!wp_read_buffer(&g_c, data, 0, sizeof got, got) || !wp_check_u32("noexit", got, want, N)) return WP_FAIL;
  }
  if (atomic_load(&g_c.errors)) return WP_FAIL;
  printf("noexit: %d rounds checked\n", ROUNDS);
  fflush(stdout);
  /* exit(), not a return through wp_end: nothing is released. */
  exit(0);
}

/* ---- main ------------------------------------------------------------------- */

typedef struct bcase {
  const char *name;
  int (*run)(void);
  bool device; /* needs g_c.device */
} bcase;

static const bcase k_cases[] = {
    {"instance-cycle", case_instance_cycle, false}, {"adapter-cycle", case_adapter_cycle, false},
    {"device-cycle", case_device_cycle, false},     {"resource-cycle", case_resource_cycle, true},
    {"strings", case_strings, true},
};

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (argc != 2) {
    fprintf(stderr, "usage: %s CASE | --list | instance | noexit\n", argv[0]);
    return WP_USAGE;
  }
  if (!strcmp(argv[1], "--list")) {
    for (size_t i = 0; i < WP_COUNT(k_cases); i++) printf("%s\n", k_cases[i].name);
    return 0;
  }
  if (!strcmp(argv[1], "instance")) {
    WGPUInstanceDescriptor d = instance_desc();
    WGPUInstance in = wgpuCreateInstance(&d);
    printf("instance %s\n", in ? "ok" : "null");
    if (in) wgpuInstanceRelease(in);
    return 0;
  }
  const bcase *bc = NULL;
  for (size_t i = 0; i < WP_COUNT(k_cases); i++)
    if (!strcmp(argv[1], k_cases[i].name)) bc = &k_cases[i];
  bool noexit = !strcmp(argv[1], "noexit");
  if (!bc && !noexit) {
    fprintf(stderr, "%s: no case '%s'\n", argv[0], argv[1]);
    return WP_USAGE;
  }
  char *args[] = {argv[0], NULL};
  int rc = wp_start(&g_c, "bounds", 1, args);
  if (rc) return wp_end(&g_c, rc);
  if ((noexit || bc->device) && (rc = wp_open_device(&g_c, NULL, 0, NULL))) return wp_end(&g_c, rc);
  rc = noexit ? case_noexit() : bc->run();
  /* The errors the calls made were caught by scopes: any that escaped is
   * part of the transcript. */
  printf("uncaptured errors: %d\n", atomic_load(&g_c.errors));
  atomic_store(&g_c.errors, 0);
  return wp_end(&g_c, rc);
}
