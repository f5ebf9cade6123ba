/* Pipelines made asynchronously on webgpu.h alone. One module holds two
 * entry points; its compilation info must hold no error. A module with a
 * type error, made inside a validation error scope (so the error is the
 * scope's, not uncaptured), must report an error message on the right line
 * and its scope must pop a validation error. Both pipelines come from
 * CreateComputePipelineAsync, requested together and waited for through
 * their futures: "scale" with an explicit pipeline layout, "mix" with layout
 * "auto" and its bind group layout from GetBindGroupLayout. Both results are
 * checked against the CPU. */
#include "wgpu_prog.h"

#define N 4096
#define BAD_LINE 3 /* where bad_wgsl's error is */

static const char *good_wgsl = "@group(0) @binding(0) var<storage, read> x: array<u32>;\n"
                               "@group(0) @binding(1) var<storage, read_write> y: array<u32>;\n"
                               "@group(0) @binding(2) var<uniform> k: vec4u;\n"
                               "@group(0) @binding(3) var<storage, read> y_in: array<u32>;\n"
                               "@group(0) @binding(4) var<storage, read_write> z: array<u32>;\n"
                               "@compute @workgroup_size(64)\n"
                               "fn scale(@builtin(global_invocation_id) g: vec3u) {\n"
                               "  if (g.x < arrayLength(&y)) { y[g.x] = x[g.x] * k.x + k.y; }\n"
                               "}\n"
                               "@compute @workgroup_size(64)\n"
                               "fn mix(@builtin(global_invocation_id) g: vec3u) {\n"
                               "  if (g.x < arrayLength(&z)) { z[g.x] = y_in[g.x] ^ (g.x * 2654435761u); }\n"
                               "}\n";

static const char *bad_wgsl = "@compute @workgroup_size(1)\n"
                              "fn main() {\n"
                              "  let v: u32 = vec2f(1.0, 2.0);\n"
                              "}\n";

typedef struct compilation {
  atomic_bool done;
  uint32_t status;
  size_t errors;
  uint64_t first_error_line;
  char first_error[256];
} compilation;

/* The messages live only as long as the callback: what is needed is copied. */
static void on_compilation_info(WGPUCompilationInfoRequestStatus status, const WGPUCompilationInfo *info,
                                void *userdata1, void *userdata2) {
  (void)userdata2;
  compilation *out = userdata1;
  out->status = status;
  for (size_t i = 0; info && i < info->messageCount; i++) {
    const WGPUCompilationMessage *m = &info->messages[i];
    if (m->type != WGPUCompilationMessageType_Error) continue;
    if (out->errors++ == 0) {
      out->first_error_line = m->lineNum;
      snprintf(out->first_error, sizeof out->first_error, "%.*s", wp_sv_len(m->message), m->message.data);
    }
  }
  atomic_store(&out->done, true);
}

static void on_pipeline(WGPUCreatePipelineAsyncStatus status, WGPUComputePipeline pipeline,
                        WGPUStringView message, void *userdata1, void *userdata2) {
  (void)userdata2;
  wp_request_note(userdata1, status, pipeline, message);
}

typedef struct scope {
  atomic_bool done;
  uint32_t status;
  WGPUErrorType type;
} scope;

static void on_pop(WGPUPopErrorScopeStatus status, WGPUErrorType type, WGPUStringView message,
                   void *userdata1, void *userdata2) {
  (void)message;
  (void)userdata2;
  scope *s = userdata1;
  s->status = status;
  s->type = type;
  atomic_store(&s->done, true);
}

/* Waits for a module's compilation info into a heap record (left allocated
 * if the callback never came, as wp_request is). */
static compilation *compilation_info(wp_ctx *c, WGPUShaderModule module, const char *what) {
  compilation *info = wp_alloc(sizeof *info);
  WGPUCompilationInfoCallbackInfo cb = {
      .mode = WGPUCallbackMode_WaitAnyOnly, .callback = on_compilation_info, .userdata1 = info};
  if (!wp_wait(c, wgpuShaderModuleGetCompilationInfo(module, cb), what) ||
      info->status != WGPUCompilationInfoRequestStatus_Success) {
    fprintf(stderr, "asyncpipe: no %s (status %u)\n", what, info->status);
    if (atomic_load(&info->done)) free(info);
    return NULL;
  }
  return info;
}

/* The bad module: its error must show in the compilation info and in the
 * error scope around it, and nowhere else. */
static bool check_bad_module(wp_ctx *c) {
  wgpuDevicePushErrorScope(c->device, WGPUErrorFilter_Validation);
  WGPUShaderModule bad = wp_shader(c, "bad", bad_wgsl);
  compilation *info = compilation_info(c, bad, "the bad module's compilation info");
  scope *pop = wp_alloc(sizeof *pop);
  WGPUPopErrorScopeCallbackInfo pcb = {
      .mode = WGPUCallbackMode_WaitAnyOnly, .callback = on_pop, .userdata1 = pop};
  bool popped = wp_wait(c, wgpuDevicePopErrorScope(c->device, pcb), "the error scope");
  wgpuShaderModuleRelease(bad);
  bool ok = info && popped;
  if (ok && (info->errors == 0 || info->first_error_line != BAD_LINE)) {
    printf("the bad module: %zu error message(s), the first on line %llu (want line %d): %s\n", info->errors,
           (unsigned long long)info->first_error_line, BAD_LINE, info->first_error);
    ok = false;
  }
  if (ok && (pop->status != WGPUPopErrorScopeStatus_Success || pop->type != WGPUErrorType_Validation)) {
    printf("the bad module's error scope: status %u, type %u (want a validation error)\n", pop->status,
           pop->type);
    ok = false;
  }
  if (ok)
    fprintf(stderr, "asyncpipe: the bad module, as expected: line %llu: %s\n",
            (unsigned long long)info->first_error_line, info->first_error);
  if (atomic_load(&pop->done)) free(pop); /* else left allocated, as wp_request is */
  free(info);
  return ok;
}

static bool run(wp_ctx *c) {
  const uint32_t n = N * c->scale;
  uint32_t *x = wp_alloc(n * 4), *want_y = wp_alloc(n * 4), *want_z = wp_alloc(n * 4), *got = wp_alloc(n * 4);
  const uint32_t k[4] = {7, 12345, 0, 0};
  uint32_t seed = 0xd3a2646cu;
  for (uint32_t i = 0; i < n; i++) {
    x[i] = wp_rand(&seed);
    want_y[i] = x[i] * k[0] + k[1];
    want_z[i] = want_y[i] ^ (i * 2654435761u);
  }
  bool ok = check_bad_module(c);

  WGPUShaderModule module = wp_shader(c, "good", good_wgsl);
  compilation *info = compilation_info(c, module, "the good module's compilation info");
  if (info && info->errors) {
    printf("the good module: %zu error message(s): %s\n", info->errors, info->first_error);
    ok = false;
  }
  ok = ok && info;
  free(info);

  WGPUBindGroupLayoutEntry le[3] = {
      wp_layout_buffer(0, WGPUBufferBindingType_ReadOnlyStorage, false, 0),
      wp_layout_buffer(1, WGPUBufferBindingType_Storage, false, 0),
      wp_layout_buffer(2, WGPUBufferBindingType_Uniform, false, 16),
  };
  WGPUBindGroupLayout bgl_scale = wgpuDeviceCreateBindGroupLayout(
      c->device, &(WGPUBindGroupLayoutDescriptor){.label = WP_STR("scale"), .entryCount = 3, .entries = le});
  WGPUPipelineLayout layout = wgpuDeviceCreatePipelineLayout(
      c->device, &(WGPUPipelineLayoutDescriptor){
                     .label = WP_STR("scale"), .bindGroupLayoutCount = 1, .bindGroupLayouts = &bgl_scale});
  wp_request *req[2] = {wp_request_new(), wp_request_new()};
  const char *entries[2] = {"scale", "mix"};
  WGPUFuture fs[2];
  for (int i = 0; i < 2; i++) {
    WGPUComputePipelineDescriptor d = {.label = WP_STR(entries[i]),
                                       .layout = i == 0 ? layout : NULL,
                                       .compute = {.module = module, .entryPoint = WP_STR(entries[i])}};
    WGPUCreateComputePipelineAsyncCallbackInfo cb = {
        .mode = WGPUCallbackMode_WaitAnyOnly, .callback = on_pipeline, .userdata1 = req[i]};
    fs[i] = wgpuDeviceCreateComputePipelineAsync(c->device, &d, cb);
  }
  bool made = wp_wait_all(c, fs, 2, "the pipelines");
  WGPUComputePipeline pipes[2] = {NULL, NULL};
  for (int i = 0; i < 2; i++) {
    if (atomic_load(&req[i]->done)) pipes[i] = req[i]->object;
    if (made && (req[i]->status != WGPUCreatePipelineAsyncStatus_Success || !pipes[i])) {
      fprintf(stderr, "asyncpipe: pipeline %s (status %u): %s\n", entries[i], req[i]->status,
              req[i]->message);
      made = false;
    }
  }
  ok = ok && made;

  WGPUBuffer buf_x = wp_buffer_from(c, "x", WGPUBufferUsage_Storage, x, n * 4);
  WGPUBuffer buf_y = wp_buffer(c, "y", WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc, n * 4);
  WGPUBuffer buf_z = wp_buffer(c, "z", WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc, n * 4);
  WGPUBuffer buf_k = wp_buffer_from(c, "k", WGPUBufferUsage_Uniform, k, sizeof k);
  if (ok) {
    WGPUBindGroupLayout bgl_mix = wgpuComputePipelineGetBindGroupLayout(pipes[1], 0);
    WGPUBindGroupEntry se[3] = {wp_bind_buffer(0, buf_x, 0, WGPU_WHOLE_SIZE),
                                wp_bind_buffer(1, buf_y, 0, WGPU_WHOLE_SIZE),
                                wp_bind_buffer(2, buf_k, 0, sizeof k)};
    WGPUBindGroupEntry me[2] = {wp_bind_buffer(3, buf_y, 0, WGPU_WHOLE_SIZE),
                                wp_bind_buffer(4, buf_z, 0, WGPU_WHOLE_SIZE)};
    WGPUBindGroup group_scale = wp_bind_group(c, "scale", bgl_scale, se, 3);
    WGPUBindGroup group_mix = wp_bind_group(c, "mix", bgl_mix, me, 2);
    WGPUCommandEncoder enc = wp_encoder(c, "asyncpipe");
    wp_dispatch(enc, pipes[0], group_scale, (n + 63) / 64, 1, 1);
    wp_dispatch(enc, pipes[1], group_mix, (n + 63) / 64, 1, 1);
    wp_submit(c, enc);
    ok = wp_read_buffer(c, buf_y, 0, n * 4, got) && wp_check_u32("y (explicit layout)", got, want_y, n) &&
         wp_read_buffer(c, buf_z, 0, n * 4, got) && wp_check_u32("z (layout auto)", got, want_z, n);
    wgpuBindGroupRelease(group_mix);
    wgpuBindGroupRelease(group_scale);
    wgpuBindGroupLayoutRelease(bgl_mix);
  }

  wgpuBufferRelease(buf_k);
  wgpuBufferRelease(buf_z);
  wgpuBufferRelease(buf_y);
  wgpuBufferRelease(buf_x);
  for (int i = 0; i < 2; i++) {
    if (pipes[i]) wgpuComputePipelineRelease(pipes[i]);
    wp_request_free(req[i]);
  }
  wgpuPipelineLayoutRelease(layout);
  wgpuBindGroupLayoutRelease(bgl_scale);
  wgpuShaderModuleRelease(module);
  free(got);
  free(want_z);
  free(want_y);
  free(x);
  return ok;
}

int main(int argc, char **argv) {
  wp_ctx c;
  int rc = wp_start(&c, "asyncpipe", argc, argv);
  if (!rc) rc = wp_open_device(&c, NULL, 0, NULL);
  if (rc) return wp_end(&c, rc);
  return wp_main(&c, run);
}
