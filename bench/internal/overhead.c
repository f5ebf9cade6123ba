/* unlost bench overhead: the same work through raw webgpu.h (the proc
 * table, no unlost) and through unlost, interleaved in one run. */
#include "bench_internal.h"
#include "cli.h"
#include "core/core.h"
#include "exec/cmd.h"
#include "llm/gen.h"
#include "llm/cpu.h"
#include "llm/gpu.h"
#include "res/obj.h"

#include <fcntl.h>
#include <unistd.h>

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


/* ---- (b) the demo's decode step ------------------------------------------
 * unlost: llm_gpu_forward (write the token state, submit the recorded
 * list, read the logits back; a checkpoint every 32 tokens for the LOG KV
 * cache). Raw: the same step on the same native objects through the proc
 * table — a queue write, the same dispatches encoded directly, a copy into
 * a mappable buffer and a map. */
typedef struct raw_step {
  WGPUBuffer state, logits, staging;
  uint32_t n;
  WGPUComputePipeline *pipe;
  WGPUBindGroup *group;
  uint32_t *x, *y, *z;
  uint64_t logits_bytes;
} raw_step;

static ul_status raw_step_open(ul_device *d, llm_gpu *g, raw_step *r) {
  ul_buffer st, lg;
  ul_cmd *cmd;
  int32_t vocab;
  llm_gpu_parts(g, &st, &cmd, &lg, &vocab);
  memset(r, 0, sizeof *r);
  ul__device_lock(d);
  ul__obj *o;
  ul_status s = ul__obj_get(d, st.id, UL__OBJ_BUFFER, "bench", &o);
  if (!s) r->state = o->native;
  if (!s) s = ul__obj_get(d, lg.id, UL__OBJ_BUFFER, "bench", &o);
  if (!s) r->logits = o->native;
  r->n = cmd->count;
  r->pipe = calloc(r->n, sizeof *r->pipe);
  r->group = calloc(r->n, sizeof *r->group);
  r->x = calloc(r->n, sizeof *r->x);
  r->y = calloc(r->n, sizeof *r->y);
  r->z = calloc(r->n, sizeof *r->z);
  if (!r->pipe || !r->group || !r->x || !r->y || !r->z) s = ul__fail(UL_ERR_OUT_OF_MEMORY, "bench");
  for (uint32_t i = 0; i < r->n && !s; i++) {
    const ul__op *op = &cmd->ops[i];
    if (op->kind != UL__OP_DISPATCH || op->group_count != 1) {
      s = ul__fail(UL_ERR_UNSUPPORTED, "bench: the decode list has an op other than a one-group dispatch");
      break;
    }
    if (!(s = ul__obj_get(d, op->pipeline, UL__OBJ_PIPELINE, "bench", &o))) r->pipe[i] = o->native;
    if (!s && !(s = ul__obj_get(d, op->groups[0], UL__OBJ_BIND_GROUP, "bench", &o))) r->group[i] = o->native;
    r->x[i] = op->x;
    r->y[i] = op->y;
    r->z[i] = op->z;
  }
  r->logits_bytes = (uint64_t)vocab * 4;
  if (!s) {
    WGPUBufferDescriptor bd = {0};
    bd.usage = WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst;
    bd.size = r->logits_bytes;
    r->staging = d->wgpu->DeviceCreateBuffer(d->device, &bd);
  }
  ul__device_unlock(d);
  return s;
}

static void raw_step_close(ul_device *d, raw_step *r) {
  if (r->staging) {
    d->wgpu->BufferDestroy(r->staging);
    d->wgpu->BufferRelease(r->staging);
  }
  free(r->pipe);
  free(r->group);
  free(r->x);
  free(r->y);
  free(r->z);
}

static double g_raw_wait_ms; /* time the last raw_decode spent waiting for the GPU */

static ul_status raw_decode(ul_device *d, raw_step *r, int32_t token, int32_t pos, float *logits) {
  const ul__wgpu *w = d->wgpu;
  uint32_t stv[4] = {(uint32_t)pos, (uint32_t)token, 0, 0};
  w->QueueWriteBuffer(d->queue, r->state, 0, stv, sizeof stv);
  WGPUCommandEncoder e = w->DeviceCreateCommandEncoder(d->device, NULL);
  WGPUComputePassEncoder pass = w->CommandEncoderBeginComputePass(e, NULL);
  for (uint32_t i = 0; i < r->n; i++) {
    w->ComputePassEncoderSetPipeline(pass, r->pipe[i]);
    w->ComputePassEncoderSetBindGroup(pass, 0, r->group[i], 0, NULL);
    w->ComputePassEncoderDispatchWorkgroups(pass, r->x[i], r->y[i], r->z[i]);
  }
  w->ComputePassEncoderEnd(pass);
  w->CommandEncoderCopyBufferToBuffer(e, r->logits, 0, r->staging, 0, r->logits_bytes);
  WGPUCommandBuffer cb = w->CommandEncoderFinish(e, NULL);
  w->QueueSubmit(d->queue, 1, &cb);
  w->CommandBufferRelease(cb);
  w->ComputePassEncoderRelease(pass);
  w->CommandEncoderRelease(e);
  uint64_t tw = ul__now_ns();
  ul_status s = ul__wait_map(d, r->staging, WGPUMapMode_Read, 0, (size_t)r->logits_bytes, 60000000000ull);
  g_raw_wait_ms = (double)(ul__now_ns() - tw) / 1e6;
  if (!s) {
    const void *p = w->BufferGetConstMappedRange(r->staging, 0, (size_t)r->logits_bytes);
    if (p) memcpy(logits, p, (size_t)r->logits_bytes);
    w->BufferUnmap(r->staging);
  }
  return s;
}

static ul_status bench_decode(ul_device *dev, int reps, double *raw_ms, double *ul_ms, double *ratio_spread) {
  llm_model *m = NULL;
  llm_tokenizer *t = NULL;
  llm_gpu *g = NULL;
  raw_step r;
  memset(&r, 0, sizeof r);
  ul_status s = llm_default_open(&m, &t);
  if (!s) s = llm_gpu_create(dev, m, NULL, &g);
  if (!s) s = raw_step_open(dev, g, &r);
  float *logits = s ? NULL : malloc((size_t)r.logits_bytes);
  if (!s && !logits) s = ul__fail(UL_ERR_OUT_OF_MEMORY, "bench");
  enum { STEPS = 96 };
  double tr[STEPS * 4], tu[STEPS * 4];
  int nr = 0, nu = 0;
  /* Each position runs through both paths (same results), in alternating
   * order; a later run at a position redoes it, as a restart would. */
  for (int rep = 0; rep < reps && !s; rep++) {
    for (int step = 0; step < 2 * STEPS && !s; step++) {
      int pos = step / 2;
      bool raw = (step + pos + rep) % 2 == 0;
      uint64_t t0 = ul__now_ns();
      if (raw) {
        ul__device_lock(dev);
        s = raw_decode(dev, &r, 1 + pos % 7, pos, logits);
        ul__device_unlock(dev);
      } else {
        const float *lg;
        s = llm_gpu_forward(g, 1 + pos % 7, pos, &lg);
      }
      double ms = (double)(ul__now_ns() - t0) / 1e6;
      if (pos < 4) continue; /* first steps: compiles, warm caches */
      if (raw && nr < STEPS * 4) tr[nr++] = ms;
      else if (!raw && nu < STEPS * 4) tu[nu++] = ms;
    }
  }
  if (!s && (nr == 0 || nu == 0)) s = ul__fail(UL_ERR_INTERNAL, "bench: no samples");
  if (!s) {
    bench_sort(tr, nr);
    bench_sort(tu, nu);
    *raw_ms = tr[nr / 2];
    *ul_ms = tu[nu / 2];
    ratio_spread[0] = tu[nu / 4] / tr[nr / 4];
    ratio_spread[1] = tu[3 * nu / 4] / tr[3 * nr / 4];
  }
  free(logits);
  if (r.pipe || r.staging) raw_step_close(dev, &r);
  llm_gpu_destroy(g);
  llm_tokenizer_free(t);
  llm_model_close(m);
  return s;
}

int bench_overhead(int argc, char **argv, bool json) {
  int n = 10000, reps = 15;
  const cli_opt opts[] = {{"dispatches", CLI_INT, &n, .lo = 1, .hi = 100000000},
                          {"reps", CLI_INT, &reps, .lo = 3, .hi = 64},
                          {0}};
  int prc = cli_parse("bench overhead", argc, argv, opts, CLI_NO_OPERANDS, bench_sub_usage, NULL);
  if (prc) return prc == 1 ? 0 : 2;
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
  double dec_raw = 0, dec_ul = 0, dec_spread[2] = {0, 0};
  if (!s) s = bench_decode(dev, 3, &dec_raw, &dec_ul, dec_spread);
  int rc = 0;
  if (s) {
    fprintf(stderr, "unlost bench overhead: %s: %s\n", ul_status_name(s), ul_last_error());
    rc = 1;
  } else {
    ul_adapter_info ai;
    ul_device_adapter_info(dev, &ai);
    bench_sort(t_raw, reps);
    bench_sort(t_ul, reps);
    bench_sort(ratio, reps);
    /* Judged on the median of the per-repetition ratios (each raw frame
     * beside its unlost frame), with their interquartile range. */
    double med_raw = bench_quantile(t_raw, reps, 0.5), med_ul = bench_quantile(t_ul, reps, 0.5);
    double med_ratio = bench_quantile(ratio, reps, 0.5);
    double q1 = bench_quantile(ratio, reps, 0.25), q3 = bench_quantile(ratio, reps, 0.75);
    if (json) {
#ifdef UL_HAVE_JANSSON
      json_t *doc = json_pack("{s:s,s:s,s:i,s:i}", "bench", "overhead", "adapter", ai.name, "dispatches", n,
                              "repetitions", reps);
      bool ok = cli_json_reals(doc, 3, "raw_dispatch_ms", med_raw, "unlost_dispatch_ms", med_ul, NULL);
      ok &= cli_json_reals(doc, 4, "ratio_dispatch", med_ratio, "ratio_dispatch_q1", q1, "ratio_dispatch_q3", q3,
                           "ratio_dispatch_iqr", q3 - q1, "ratio_dispatch_min", ratio[0], "ratio_dispatch_max",
                           ratio[reps - 1], NULL);
      ok &= cli_json_reals(doc, 1, "record_ns_per_dispatch", record_ns, NULL);
      ok &= cli_json_reals(doc, 3, "raw_decode_ms", dec_raw, "unlost_decode_ms", dec_ul, NULL);
      ok &= cli_json_reals(doc, 4, "ratio_decode", dec_ul / dec_raw, "ratio_decode_q1", dec_spread[0],
                           "ratio_decode_q3", dec_spread[1], NULL);
      if (!ok || !cli_json_write("unlost bench overhead", "-", doc)) rc = 1;
#endif
    } else {
      printf("adapter        %s\n", ai.name);
      printf("raw webgpu.h   %.3f ms per frame of %d dispatches (median of %d)\n", med_raw, n, reps);
      printf("unlost         %.3f ms (median per-rep ratio %.4f, IQR %.4f..%.4f, range %.4f..%.4f)\n", med_ul,
             med_ratio, q1, q3, ratio[0], ratio[reps - 1]);
      printf("recording      %.1f ns per dispatch (once; a list is reused)\n", record_ns);
      printf("decode step    raw %.3f ms, unlost %.3f ms (ratio %.4f; quartile ratios %.4f, %.4f)\n", dec_raw,
             dec_ul, dec_ul / dec_raw, dec_spread[0], dec_spread[1]);
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

/* ---- unlost bench decode ---------------------------------------------------
 * Tokens per second of the main job's decode step, for the default model or
 * a stories15M-shaped one (dim 288, 6 layers, 6 heads, vocabulary 32000,
 * seq_len 256; generated weights), with the share of a step spent in
 * unlost (unlost step - raw step), in WebGPU calls (raw step - its wait) and
 * waiting on the GPU (the raw step's wait for its readback). */
static ul_status write_random_model(const char *path, const int32_t hdr[7]) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) return ul__fail(UL_ERR_IO, "create %s", path);
  int32_t d = hdr[0], h = hdr[1], L = hdr[2], nh = hdr[3], nkv = hdr[4], S = hdr[6];
  int32_t V = hdr[5] < 0 ? -hdr[5] : hdr[5]; /* negative: a separate classifier follows */
  int64_t kvd = (int64_t)d * nkv / nh, hs = d / nh;
  int64_t n = (int64_t)V * d + (int64_t)L * d + (int64_t)L * d * d + 2 * (int64_t)L * d * kvd +
              (int64_t)L * d * d + (int64_t)L * d + 3 * (int64_t)L * h * d + d + (int64_t)S * hs +
              (hdr[5] < 0 ? (int64_t)V * d : 0);
  ul_status s = write(fd, hdr, 28) == 28 ? UL_OK : ul__fail(UL_ERR_IO, "write %s", path);
  float buf[4096];
  uint64_t x = 0x9E3779B97F4A7C15ull;
  for (int64_t done = 0; done < n && !s;) {
    size_t k = (size_t)UL__MIN((int64_t)UL__COUNT_OF(buf), n - done);
    for (size_t i = 0; i < k; i++) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      buf[i] = ((float)(x >> 40) / 16777216.0f - 0.5f) * 0.1f; /* small: keeps activations finite */
    }
    if (write(fd, buf, k * 4) != (ssize_t)(k * 4)) s = ul__fail(UL_ERR_IO, "write %s", path);
    done += (int64_t)k;
  }
  close(fd);
  return s;
}

int bench_decode_cmd(int argc, char **argv, bool json) {
  const char *shape = "default";
  int steps = 128;
  const cli_opt opts[] = {CLI_O("shape", CLI_TEXT, &shape), {"steps", CLI_INT, &steps, .lo = 8, .hi = 256}, {0}};
  int prc = cli_parse("bench decode", argc, argv, opts, CLI_NO_OPERANDS, bench_sub_usage, NULL);
  if (prc) return prc == 1 ? 0 : 2;
  if (steps < 8 || steps > 256 || (strcmp(shape, "default") && strcmp(shape, "stories15M"))) {
    fprintf(stderr, "unlost bench decode: --shape default|stories15M, --steps 8..256\n");
    return 2;
  }
  char path[] = "/tmp/unlost-bench-model-XXXXXX";
  bool own_file = false;
  llm_model *m = NULL;
  llm_tokenizer *t = NULL;
  ul_status s = UL_OK;
  if (!strcmp(shape, "stories15M")) {
    int fd = mkstemp(path);
    if (fd < 0) s = ul__fail(UL_ERR_IO, "mkstemp");
    else close(fd);
    own_file = true;
    /* negative vocab: a separate classifier, as the default model has */
    const int32_t hdr[7] = {288, 768, 6, 6, 6, -32000, 256};
    if (!s) s = write_random_model(path, hdr);
    if (!s) s = llm_model_open(path, &m);
  } else {
    s = llm_default_open(&m, &t);
  }
  ul_env *env = NULL;
  ul_device *dev = NULL;
  llm_gpu *g = NULL;
  raw_step r;
  memset(&r, 0, sizeof r);
  ul_device_desc dd = {.label = "bench-decode"};
  dd.required_limits.max_buffer_size = UL_LIMIT_ADAPTER;
  dd.required_limits.max_storage_buffer_binding_size = UL_LIMIT_ADAPTER;
  if (!s) s = ul_env_create(NULL, &env);
  if (!s) s = ul_device_create(env, &dd, &dev);
  if (!s) s = llm_gpu_create(dev, m, NULL, &g);
  if (!s) s = raw_step_open(dev, g, &r);
  float *logits = s ? NULL : malloc((size_t)r.logits_bytes);
  double tu[256], tr[256], tw[256];
  int n = 0;
  uint64_t total0 = ul__now_ns();
  int32_t tok = 1;
  double unlost_total_ms = 0;
  for (int pos = 0; pos < steps && !s; pos++) {
    const float *lg = NULL;
    uint64_t t0 = ul__now_ns();
    s = llm_gpu_forward(g, tok, pos, &lg);
    double ms_u = (double)(ul__now_ns() - t0) / 1e6;
    unlost_total_ms += ms_u;
    if (s) break;
    int32_t next = llm_argmax(lg, m->cfg.vocab_size);
    /* the same step again, raw, on the same objects (it redoes position pos) */
    ul__device_lock(dev);
    t0 = ul__now_ns();
    s = raw_decode(dev, &r, tok, pos, logits);
    double ms_r = (double)(ul__now_ns() - t0) / 1e6;
    ul__device_unlock(dev);
    if (pos >= 4 && n < 256) {
      tu[n] = ms_u;
      tr[n] = ms_r;
      tw[n] = g_raw_wait_ms;
      n++;
    }
    tok = next;
  }
  (void)total0;
  int rc = 0;
  if (s || n == 0) {
    fprintf(stderr, "unlost bench decode: %s: %s\n", ul_status_name(s), ul_last_error());
    rc = 1;
  } else {
    ul_adapter_info ai;
    ul_device_adapter_info(dev, &ai);
    double su = 0, sr = 0, sw = 0;
    for (int i = 0; i < n; i++) {
      su += tu[i];
      sr += tr[i];
      sw += tw[i];
    }
    double mu = su / n, mr = sr / n, mw = sw / n;
    double unlost_share = mu > mr ? (mu - mr) / mu : 0;
    double wait_share = mw / mu, webgpu_share = (mr - mw) / mu;
    if (json) {
#ifdef UL_HAVE_JANSSON
      json_t *doc = json_pack("{s:s,s:s,s:s,s:i,s:i,s:i,s:i,s:i}", "bench", "decode", "adapter", ai.name, "shape",
                              shape, "dim", m->cfg.dim, "layers", m->cfg.n_layers, "heads", m->cfg.n_heads, "vocab",
                              m->cfg.vocab_size, "steps", steps);
      bool ok = cli_json_reals(doc, 1, "tokens_per_s", 1000.0 / mu, "raw_tokens_per_s", 1000.0 / mr, NULL);
      ok &= cli_json_reals(doc, 3, "step_ms", mu, "raw_step_ms", mr, NULL);
      ok &= cli_json_reals(doc, 4, "share_unlost", unlost_share, "share_webgpu", webgpu_share, "share_gpu_wait",
                           wait_share, NULL);
      if (!ok || !cli_json_write("unlost bench decode", "-", doc)) rc = 1;
#endif
    } else {
      printf("adapter     %s\n", ai.name);
      printf("model       %s (dim %d, %d layers, %d heads, vocabulary %d)\n", shape, m->cfg.dim,
             m->cfg.n_layers, m->cfg.n_heads, m->cfg.vocab_size);
      printf("decode      %.1f tokens/s through unlost (%.3f ms a step); raw %.1f tokens/s\n", 1000.0 / mu, mu,
             1000.0 / mr);
      printf("step time   unlost %.1f%%, WebGPU calls %.1f%%, waiting on the GPU %.1f%%\n", 100 * unlost_share,
             100 * webgpu_share, 100 * wait_share);
    }
  }
  free(logits);
  if (r.pipe || r.staging) raw_step_close(dev, &r);
  llm_gpu_destroy(g);
  ul_device_destroy(dev);
  ul_env_destroy(env);
  llm_tokenizer_free(t);
  llm_model_close(m);
  if (own_file) unlink(path);
  return rc;
}
