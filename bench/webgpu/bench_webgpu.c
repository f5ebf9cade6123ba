/* unlost bench webgpu: a program written on webgpu.h run the same way
 * through the implementation itself and through libunlost-webgpu, in one
 * process, repetitions interleaved:
 *   dispatch  frames of small dispatches, each changing the bind group
 *             (the front door's recording and encode against raw Dawn);
 *   ggml      ggml's pattern: per dispatch a new bind group (through
 *             GetBindGroupLayout) and a WriteBuffer of its uniform, a few
 *             dispatches per submit, recovery on (every write and submit
 *             logged, checkpoints as the log fills): the log's memory and
 *             the checkpoints are reported;
 *   upload    a 4 KiB WriteBuffer from the heap into a buffer the GPU never
 *             wrote (host-written: the front door decides where its bytes
 *             came from, res/provenance.c), with 20,000 live objects (half
 *             buffers, half bind groups on them) made first: per write;
 *   decode    a real workload (issue 38): the built-in model's greedy decode
 *             (tests/webgpu/decode_core.h, the code of the chaos workload
 *             webgpu-decode), one submit and one map per token, recovery
 *             on: tokens per second both ways, and the tokens, which must
 *             be the CPU reference's both ways (else the bench fails).
 * Medians of per-repetition ratios with their interquartile range; JSON
 * with --json. Built apart from the CLI (it is linked to the front door);
 * `unlost bench webgpu` runs it. */
#include "webgpu/wg.h"

#include "decode_core.h"
#include "llm/gen.h"
#include "cli.h"
#include "sampler.h"

#include <dlfcn.h>
#include <math.h>
#include <time.h>

/* The two ways: a table of every entry point, from the implementation's
 * own symbols (dlsym) or the front door's. */
typedef dc_api api;

static bool api_raw(api *a, char *why, size_t cap) {
  const char *path = ul__wgpu_default_path();
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    snprintf(why, cap, "dlopen %s: %s", path, dlerror());
    return false;
  }
#define UL__API_SYM(Ret, Name, params, args)                 \
  {                                                           \
    void *s = dlsym(h, "wgpu" #Name);                         \
    memcpy(&a->Name, &s, sizeof s);                           \
  }
  UL__WGPU_API(UL__API_SYM)
#undef UL__API_SYM
  return a->CreateInstance != NULL;
}

/* The front door's: the entry points this program is linked to. */
static void api_layer(api *a) { dc_api_linked(a); }

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* ---- one device through one table ---- */
typedef struct rig {
  const api *a;
  WGPUInstance inst;
  WGPUAdapter adapter;
  WGPUDevice dev;
  WGPUQueue q;
  WGPUShaderModule sm;
  WGPUComputePipeline pipe;
  WGPUBindGroupLayout bgl;
  WGPUBuffer buf[8];
  WGPUBuffer params[16];
  WGPUBindGroup bg[8];
  WGPUBuffer *crowd; /* the live objects of `upload` */
  WGPUBindGroup *crowd_bg;
  int ncrowd;
  WGPUBuffer up;
} rig;

static const char *k_wgsl =
    "struct P { add: u32, n: u32 }\n"
    "@group(0) @binding(0) var<storage, read_write> v: array<u32>;\n"
    "@group(0) @binding(1) var<uniform> p: P;\n"
    "@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3u) {\n"
    "  if (id.x < p.n) { v[id.x] = v[id.x] + p.add; }\n"
    "}\n";

typedef struct req {
  uint32_t status;
  void *obj;
} req;
static void on_adapter(WGPURequestAdapterStatus s, WGPUAdapter a, WGPUStringView m, void *u1, void *u2) {
  (void)m, (void)u2;
  *(req *)u1 = (req){s, a};
}
static void on_device(WGPURequestDeviceStatus s, WGPUDevice d, WGPUStringView m, void *u1, void *u2) {
  (void)m, (void)u2;
  *(req *)u1 = (req){s, d};
}
static void on_done(WGPUQueueWorkDoneStatus s, WGPUStringView m, void *u1, void *u2) {
  (void)s, (void)m, (void)u2;
  *(int *)u1 = 1;
}

/* Every error either way makes the run worthless: counted, and the bench
 * fails. */
static _Atomic int g_errors;
static void on_error(WGPUDevice const *d, WGPUErrorType type, WGPUStringView m, void *u1, void *u2) {
  (void)d, (void)u2;
  if (atomic_fetch_add(&g_errors, 1) < 3)
    fprintf(stderr, "unlost bench webgpu: %s: error %u: %.*s\n", (const char *)u1, type,
            m.data ? (int)(m.length == WGPU_STRLEN ? strlen(m.data) : m.length) : 0, m.data ? m.data : "");
}

static void wait_idle(rig *r) {
  int done = 0;
  WGPUQueueWorkDoneCallbackInfo cb = {NULL, WGPUCallbackMode_WaitAnyOnly, on_done, &done, NULL};
  WGPUFutureWaitInfo w = {r->a->QueueOnSubmittedWorkDone(r->q, cb), 0};
  r->a->InstanceWaitAny(r->inst, 1, &w, UINT64_MAX);
}

static bool rig_open(rig *r, const api *a, char *why, size_t cap) {
  memset(r, 0, sizeof *r);
  r->a = a;
  WGPUInstanceDescriptor id = {0};
  id.capabilities.timedWaitAnyEnable = 1;
  if (!(r->inst = a->CreateInstance(&id))) return snprintf(why, cap, "no instance"), false;
  req q = {0, NULL};
  WGPURequestAdapterCallbackInfo acb = {NULL, WGPUCallbackMode_WaitAnyOnly, on_adapter, &q, NULL};
  WGPUFutureWaitInfo w = {a->InstanceRequestAdapter(r->inst, NULL, acb), 0};
  a->InstanceWaitAny(r->inst, 1, &w, UINT64_MAX);
  if (!(r->adapter = q.obj)) return snprintf(why, cap, "no adapter"), false;
  WGPUDeviceDescriptor dd = {0};
  dd.uncapturedErrorCallbackInfo.callback = on_error;
  dd.uncapturedErrorCallbackInfo.userdata1 = a->DeviceGetLostFuture == wgpuDeviceGetLostFuture ? "unlost-webgpu" : "raw";
  q = (req){0, NULL};
  WGPURequestDeviceCallbackInfo dcb = {NULL, WGPUCallbackMode_WaitAnyOnly, on_device, &q, NULL};
  w = (WGPUFutureWaitInfo){a->AdapterRequestDevice(r->adapter, &dd, dcb), 0};
  a->InstanceWaitAny(r->inst, 1, &w, UINT64_MAX);
  if (!(r->dev = q.obj)) return snprintf(why, cap, "no device"), false;
  r->q = a->DeviceGetQueue(r->dev);
  WGPUShaderSourceWGSL src = {{NULL, WGPUSType_ShaderSourceWGSL}, {k_wgsl, WGPU_STRLEN}};
  WGPUShaderModuleDescriptor smd = {&src.chain, {NULL, 0}};
  r->sm = a->DeviceCreateShaderModule(r->dev, &smd);
  WGPUComputePipelineDescriptor cpd = {0};
  cpd.compute.module = r->sm;
  cpd.compute.entryPoint = (WGPUStringView){"main", WGPU_STRLEN};
  r->pipe = a->DeviceCreateComputePipeline(r->dev, &cpd);
  r->bgl = a->ComputePipelineGetBindGroupLayout(r->pipe, 0);
  for (int i = 0; i < 16; i++) {
    WGPUBufferDescriptor bd = {0};
    bd.usage = WGPUBufferUsage_Uniform | WGPUBufferUsage_CopyDst;
    bd.size = 16;
    r->params[i] = a->DeviceCreateBuffer(r->dev, &bd);
  }
  uint32_t p[4] = {1, 64, 0, 0};
  a->QueueWriteBuffer(r->q, r->params[0], 0, p, sizeof p);
  for (int i = 0; i < 8; i++) {
    WGPUBufferDescriptor bd = {0};
    bd.usage = WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc | WGPUBufferUsage_CopyDst;
    bd.size = 256;
    r->buf[i] = a->DeviceCreateBuffer(r->dev, &bd);
    WGPUBindGroupEntry e[2] = {{NULL, 0, r->buf[i], 0, WGPU_WHOLE_SIZE, NULL, NULL},
                               {NULL, 1, r->params[0], 0, 16, NULL, NULL}};
    WGPUBindGroupDescriptor gd = {NULL, {NULL, 0}, r->bgl, 2, e};
    r->bg[i] = a->DeviceCreateBindGroup(r->dev, &gd);
  }
  wait_idle(r);
  return true;
}

static void rig_close(rig *r) {
  const api *a = r->a;
  for (int i = 0; i < r->ncrowd; i++) {
    a->BindGroupRelease(r->crowd_bg[i]);
    a->BufferRelease(r->crowd[i]);
  }
  free(r->crowd);
  free(r->crowd_bg);
  if (r->up) a->BufferRelease(r->up);
  for (int i = 0; i < 8; i++) {
    if (r->bg[i]) a->BindGroupRelease(r->bg[i]);
    if (r->buf[i]) a->BufferRelease(r->buf[i]);
  }
  for (int i = 0; i < 16; i++)
    if (r->params[i]) a->BufferRelease(r->params[i]);
  if (r->bgl) a->BindGroupLayoutRelease(r->bgl);
  if (r->pipe) a->ComputePipelineRelease(r->pipe);
  if (r->sm) a->ShaderModuleRelease(r->sm);
  if (r->q) a->QueueRelease(r->q);
  if (r->dev) {
    a->DeviceDestroy(r->dev);
    a->DeviceRelease(r->dev);
  }
  if (r->adapter) a->AdapterRelease(r->adapter);
  if (r->inst) a->InstanceRelease(r->inst);
}

/* n dispatches in frames of `per` (one pass each), each changing the bind
 * group; waits for the queue. */
static double dispatch_frames(rig *r, int n, int per) {
  const api *a = r->a;
  double t0 = now_ms();
  for (int done = 0; done < n;) {
    WGPUCommandEncoder e = a->DeviceCreateCommandEncoder(r->dev, NULL);
    WGPUComputePassEncoder pass = a->CommandEncoderBeginComputePass(e, NULL);
    a->ComputePassEncoderSetPipeline(pass, r->pipe);
    for (int i = 0; i < per && done < n; i++, done++) {
      a->ComputePassEncoderSetBindGroup(pass, 0, r->bg[done % 8], 0, NULL);
      a->ComputePassEncoderDispatchWorkgroups(pass, 1, 1, 1);
    }
    a->ComputePassEncoderEnd(pass);
    a->ComputePassEncoderRelease(pass);
    WGPUCommandBuffer cb = a->CommandEncoderFinish(e, NULL);
    a->QueueSubmit(r->q, 1, &cb);
    a->CommandBufferRelease(cb);
    a->CommandEncoderRelease(e);
  }
  wait_idle(r);
  return now_ms() - t0;
}

/* ggml's pattern: n dispatches, `per` per submit, each with a new bind
 * group and a WriteBuffer of its uniform. */
static double ggml_pattern(rig *r, int n, int per) {
  const api *a = r->a;
  double t0 = now_ms();
  WGPUBindGroup groups[64];
  for (int done = 0; done < n;) {
    int k = 0;
    WGPUCommandEncoder e = a->DeviceCreateCommandEncoder(r->dev, NULL);
    for (; k < per && done + k < n; k++) {
      int i = done + k;
      uint32_t p[4] = {(uint32_t)(i & 7) + 1, 64, 0, 0};
      WGPUBuffer params = r->params[i % 16];
      a->QueueWriteBuffer(r->q, params, 0, p, sizeof p);
      WGPUBindGroupLayout l = a->ComputePipelineGetBindGroupLayout(r->pipe, 0);
      WGPUBindGroupEntry ge[2] = {{NULL, 0, r->buf[i % 8], 0, WGPU_WHOLE_SIZE, NULL, NULL},
                                  {NULL, 1, params, 0, 16, NULL, NULL}};
      WGPUBindGroupDescriptor gd = {NULL, {NULL, 0}, l, 2, ge};
      groups[k] = a->DeviceCreateBindGroup(r->dev, &gd);
      a->BindGroupLayoutRelease(l);
    }
    WGPUComputePassEncoder pass = a->CommandEncoderBeginComputePass(e, NULL);
    for (int i = 0; i < k; i++) {
      a->ComputePassEncoderSetPipeline(pass, r->pipe);
      a->ComputePassEncoderSetBindGroup(pass, 0, groups[i], 0, NULL);
      a->ComputePassEncoderDispatchWorkgroups(pass, 1, 1, 1);
    }
    a->ComputePassEncoderEnd(pass);
    a->ComputePassEncoderRelease(pass);
    WGPUCommandBuffer cb = a->CommandEncoderFinish(e, NULL);
    a->QueueSubmit(r->q, 1, &cb);
    a->CommandBufferRelease(cb);
    a->CommandEncoderRelease(e);
    for (int i = 0; i < k; i++) a->BindGroupRelease(groups[i]);
    done += k;
  }
  wait_idle(r);
  return now_ms() - t0;
}

/* n live objects, half buffers and half bind groups on them, and the
 * buffer `upload` writes (never used by the GPU). */
static bool crowd_make(rig *r, int n) {
  const api *a = r->a;
  int half = n / 2;
  if (!(r->crowd = calloc((size_t)half + 1, sizeof *r->crowd)) ||
      !(r->crowd_bg = calloc((size_t)half + 1, sizeof *r->crowd_bg)))
    return false;
  for (; r->ncrowd < half; r->ncrowd++) {
    WGPUBufferDescriptor bd = {0};
    bd.usage = WGPUBufferUsage_Storage | WGPUBufferUsage_CopyDst;
    bd.size = 256;
    WGPUBuffer b = a->DeviceCreateBuffer(r->dev, &bd);
    WGPUBindGroupEntry e[2] = {{NULL, 0, b, 0, WGPU_WHOLE_SIZE, NULL, NULL},
                               {NULL, 1, r->params[0], 0, 16, NULL, NULL}};
    WGPUBindGroupDescriptor gd = {NULL, {NULL, 0}, r->bgl, 2, e};
    r->crowd[r->ncrowd] = b;
    r->crowd_bg[r->ncrowd] = a->DeviceCreateBindGroup(r->dev, &gd);
  }
  WGPUBufferDescriptor bd = {0};
  bd.usage = WGPUBufferUsage_Storage | WGPUBufferUsage_CopyDst;
  bd.size = 4096;
  r->up = a->DeviceCreateBuffer(r->dev, &bd);
  wait_idle(r);
  return r->up != NULL;
}

/* n WriteBuffers of 4 KiB from src into the buffer the GPU never wrote:
 * the calls' time (the queue is waited for after). */
static double uploads(rig *r, const void *src, int n) {
  const api *a = r->a;
  double t0 = now_ms();
  for (int i = 0; i < n; i++) a->QueueWriteBuffer(r->q, r->up, 0, src, 4096);
  double t = now_ms() - t0;
  wait_idle(r);
  return t;
}

static int cmp_double(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return a < b ? -1 : a > b;
}

/* Quantile q of v[0..n) (sorted here). */
static double quantile(double *v, int n, double q) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  double pos = q * (n - 1);
  int i = (int)pos;
  return i + 1 < n ? v[i] + (v[i + 1] - v[i]) * (pos - i) : v[i];
}

typedef struct result {
  double raw_ms, layer_ms, ratio, ratio_p25, ratio_p75;
} result;

static result summarize(double *raw, double *layer, int reps) {
  double ratio[64], r2[64], l2[64];
  for (int i = 0; i < reps; i++) ratio[i] = layer[i] / raw[i];
  memcpy(r2, raw, sizeof *raw * reps);
  memcpy(l2, layer, sizeof *layer * reps);
  result s;
  s.raw_ms = quantile(r2, reps, 0.5);
  s.layer_ms = quantile(l2, reps, 0.5);
  s.ratio = quantile(ratio, reps, 0.5);
  s.ratio_p25 = quantile(ratio, reps, 0.25);
  s.ratio_p75 = quantile(ratio, reps, 0.75);
  return s;
}

/* ---- decode: the built-in model, tokens per second ---- */

typedef struct decode_result {
  int tokens;
  double raw_ms, layer_ms;            /* medians of a repetition's n tokens */
  double ratio, ratio_p25, ratio_p75; /* tokens/s through the layer over raw, per repetition */
  bool identical;                     /* every repetition's tokens the CPU's, both ways */
  uint64_t checkpoints, checkpoints_async;
  int32_t *want; /* the CPU's tokens */
} decode_result;

/* n tokens from BOS: the time in ms, or -1 on a failure (said). */
static double decode_timed(dc_decoder *d, int n, int32_t *tokens, const char *way) {
  double t0 = now_ms();
  bool ok = dc_decode(d, n, tokens, NULL, NULL);
  double t = now_ms() - t0;
  if (!ok) {
    fprintf(stderr, "unlost bench webgpu: decode, %s: %s\n", way, d->why);
    return -1;
  }
  return t;
}

/* The first position where got differs from want, or -1. */
static int first_diff(const int32_t *got, const int32_t *want, int n) {
  for (int i = 0; i < n; i++)
    if (got[i] != want[i]) return i;
  return -1;
}

/* Opens the built-in model and, on each rig, its decoder; the CPU's tokens
 * into want. */
static bool decode_open(llm_model **m, int n, int32_t *want, rig *const *rigs, dc_decoder *decs, int nrigs) {
  llm_tokenizer *tok = NULL;
  if (llm_default_open(m, &tok)) {
    fprintf(stderr, "unlost bench webgpu: decode: %s\n", ul_last_error());
    return false;
  }
  llm_tokenizer_free(tok);
  if (n > (*m)->cfg.seq_len) {
    fprintf(stderr, "unlost bench webgpu: --decode-tokens %d exceeds the model's %d positions\n", n,
            (*m)->cfg.seq_len);
    return false;
  }
  if (!dc_cpu_decode(*m, n, want, NULL)) {
    fprintf(stderr, "unlost bench webgpu: decode: the CPU reference failed: %s\n", ul_last_error());
    return false;
  }
  for (int k = 0; k < nrigs; k++)
    if (!dc_open(&decs[k], rigs[k]->a, rigs[k]->inst, rigs[k]->dev, rigs[k]->q, *m)) {
      fprintf(stderr, "unlost bench webgpu: decode: %s\n", decs[k].why);
      return false;
    }
  return true;
}

/* n tokens a repetition, raw and through the layer interleaved (which goes
 * first alternates). False when a decode failed. */
static bool bench_decode(rig *rr, rig *rl, int n, int reps, decode_result *out) {
  memset(out, 0, sizeof *out);
  out->tokens = n;
  out->identical = true;
  llm_model *m = NULL;
  dc_decoder dec[2];
  memset(dec, 0, sizeof dec);
  rig *rigs[2] = {rr, rl};
  int32_t *got[2] = {calloc((size_t)n, sizeof(int32_t)), calloc((size_t)n, sizeof(int32_t))};
  out->want = calloc((size_t)n, sizeof(int32_t));
  bool ok = got[0] && got[1] && out->want && decode_open(&m, n, out->want, rigs, dec, 2);
  /* Warm both (pipelines compiled, the first positions' caches filled). */
  ok = ok && decode_timed(&dec[0], n < 8 ? n : 8, got[0], "raw") >= 0 &&
       decode_timed(&dec[1], n < 8 ? n : 8, got[1], "through unlost-webgpu") >= 0;
  ul_device *ud = ul_wgpu_device(rl->dev);
  uint64_t ck0 = ul__oplog_checkpoints(ud), cka0 = ul__oplog_checkpoints_async(ud);
  double tr[64], tl[64], ratio[64];
  for (int i = 0; i < reps && ok; i++) {
    if (i & 1) {
      tl[i] = decode_timed(&dec[1], n, got[1], "through unlost-webgpu");
      tr[i] = decode_timed(&dec[0], n, got[0], "raw");
    } else {
      tr[i] = decode_timed(&dec[0], n, got[0], "raw");
      tl[i] = decode_timed(&dec[1], n, got[1], "through unlost-webgpu");
    }
    ok = tr[i] >= 0 && tl[i] >= 0;
    for (int k = 0; k < 2 && ok; k++) {
      int at = first_diff(got[k], out->want, n);
      if (at >= 0) {
        fprintf(stderr, "unlost bench webgpu: decode, %s, repetition %d: token %d at position %d, the CPU's %d\n",
                k ? "through unlost-webgpu" : "raw", i, got[k][at], at, out->want[at]);
        out->identical = false;
      }
    }
    if (ok) ratio[i] = tr[i] / tl[i]; /* tokens/s through the layer over raw */
  }
  if (ok) {
    out->checkpoints = ul__oplog_checkpoints(ud) - ck0;
    out->checkpoints_async = ul__oplog_checkpoints_async(ud) - cka0;
    out->raw_ms = quantile(tr, reps, 0.5);
    out->layer_ms = quantile(tl, reps, 0.5);
    out->ratio = quantile(ratio, reps, 0.5);
    out->ratio_p25 = quantile(ratio, reps, 0.25);
    out->ratio_p75 = quantile(ratio, reps, 0.75);
  }
  dc_close(&dec[1]);
  dc_close(&dec[0]);
  llm_model_close(m);
  free(got[0]);
  free(got[1]);
  return ok;
}

static void usage(FILE *f) {
  fprintf(f, "usage: unlost bench webgpu [--json [FILE]] [--dispatches N (default 10000)] [--ggml N (default 2000)]\n"
             "                           [--uploads N (default 1024)] [--objects N (default 20000)]\n"
             "                           [--decode-tokens N (1..256, default 64)] [--decode-only]\n"
             "                           [--reps R (3..64, default 11)]\n"
             "       unlost-bench-webgpu --profile dispatch|ggml|upload|decode [--raw] [--reps R]\n"
             "                           [--sample FILE [--sample-hz N (100..20000, default 4999)]\n"
             "                           [--sample-timer process|threads]]: one pattern, one way (through the\n"
             "                           layer, or Dawn directly with --raw), for a profiler; --sample samples the\n"
             "                           repetitions' CPU time in-process (where there is no perf) into FILE, for\n"
             "                           bench/sample_report.py (bench/webgpu/sampler.h: the timers)\n");
}

int main(int argc, char **argv) {
  bool json = false, decode_only = false;
  int n = 10000, ng = 2000, nu = 1024, nobj = 20000, reps = 11, ndec = 64;
  const char *profile = NULL;
  bool profile_raw = false;
  const char *json_path = NULL;
  const char *sample_path = NULL;
  int sample_hz = 4999;
  bool sample_hz_given = false;
  const char *sample_timer = NULL;
  /* --json [FILE]: `unlost bench webgpu` has made stdout the file already. */
  const cli_opt opts[] = {CLI_O("json", CLI_JSON, &json_path),
                          {"dispatches", CLI_INT, &n, .lo = 1, .hi = 100000000},
                          {"ggml", CLI_INT, &ng, .lo = 1, .hi = 100000000},
                          {"reps", CLI_INT, &reps, .lo = 3, .hi = 64},
                          {"uploads", CLI_INT, &nu, .lo = 1, .hi = 100000000},
                          {"objects", CLI_INT, &nobj, .lo = 0, .hi = 100000000},
                          {"decode-tokens", CLI_INT, &ndec, .lo = 1, .hi = 256},
                          CLI_O("decode-only", CLI_FLAG, &decode_only),
                          CLI_O("profile", CLI_TEXT, &profile),
                          CLI_O("raw", CLI_FLAG, &profile_raw),
                          CLI_O("sample", CLI_TEXT, &sample_path),
                          {"sample-hz", CLI_INT, &sample_hz, .lo = 100, .hi = 20000, .given = &sample_hz_given},
                          CLI_O("sample-timer", CLI_TEXT, &sample_timer),
                          {0}};
  int prc = cli_parse("bench webgpu", argc, argv, opts, CLI_NO_OPERANDS, usage, NULL);
  if (prc) return prc == 1 ? 0 : 2;
  if ((sample_path || sample_hz_given || sample_timer) && !profile) {
    fprintf(stderr, "unlost bench webgpu: --sample%s is for --profile runs only\n",
            sample_path ? "" : sample_hz_given ? "-hz" : "-timer");
    return 2;
  }
  if ((sample_hz_given || sample_timer) && !sample_path) {
    fprintf(stderr, "unlost bench webgpu: --sample-%s needs --sample FILE\n", sample_hz_given ? "hz" : "timer");
    return 2;
  }
  if (sample_timer && strcmp(sample_timer, "process") && strcmp(sample_timer, "threads")) {
    fprintf(stderr, "unlost bench webgpu: --sample-timer: process or threads, not '%s'\n", sample_timer);
    return 2;
  }
  if (sample_timer) sampler_set_timer(strcmp(sample_timer, "threads") ? SAMPLER_PROCESS : SAMPLER_THREADS);
  if (json_path && strcmp(json_path, "-") && !freopen(json_path, "w", stdout)) {
    fprintf(stderr, "unlost bench webgpu: cannot write %s\n", json_path);
    return 1;
  }
  json = json_path != NULL;
  if (profile && strcmp(profile, "dispatch") && strcmp(profile, "ggml") && strcmp(profile, "upload") &&
      strcmp(profile, "decode")) {
    usage(stderr);
    return 2;
  }
  char why[512];
  api raw, layer;
  if (!api_raw(&raw, why, sizeof why)) {
    fprintf(stderr, "unlost bench webgpu: %s\n", why);
    return 1;
  }
  api_layer(&layer);
  if (profile) { /* one way, one pattern, nothing else in the process's profile */
    rig r;
    if (!rig_open(&r, profile_raw ? &raw : &layer, why, sizeof why)) {
      fprintf(stderr, "unlost bench webgpu: %s\n", why);
      return 1;
    }
    double t = 0;
    int rc = 0;
    if (!strcmp(profile, "decode")) {
      llm_model *m = NULL;
      dc_decoder dec;
      memset(&dec, 0, sizeof dec);
      int32_t *want = calloc((size_t)ndec, sizeof(int32_t)), *got = calloc((size_t)ndec, sizeof(int32_t));
      rig *rp = &r;
      bool ok = want && got && decode_open(&m, ndec, want, &rp, &dec, 1);
      bool sampling = ok && sample_path; /* the repetitions only */
      if (sampling && sampler_start(sample_path, sample_hz, why, sizeof why)) {
        fprintf(stderr, "unlost bench webgpu: --sample: %s\n", why);
        return 1;
      }
      for (int i = 0; i < reps && ok; i++) {
        double ti = decode_timed(&dec, ndec, got, profile_raw ? "raw" : "through unlost-webgpu");
        ok = ti >= 0 && first_diff(got, want, ndec) < 0;
        t += ti;
      }
      if (sampling && sampler_stop()) rc = 1;
      if (ok)
        printf("decode, %s: %d repetitions of %d tokens, %.3f ms each, %.1f tokens/s\n",
               profile_raw ? "raw" : "through unlost-webgpu", reps, ndec, t / reps, ndec * 1e3 * reps / t);
      else
        fprintf(stderr, "unlost bench webgpu: decode failed or its tokens are not the CPU's\n");
      rc = ok ? rc : 1;
      dc_close(&dec);
      llm_model_close(m);
      free(want);
      free(got);
    } else {
      uint8_t heap[4096];
      memset(heap, 7, sizeof heap);
      if (!strcmp(profile, "upload") && !crowd_make(&r, nobj)) {
        fprintf(stderr, "unlost bench webgpu: out of memory for %d objects\n", nobj);
        return 1;
      }
      if (sample_path && sampler_start(sample_path, sample_hz, why, sizeof why)) { /* the repetitions only */
        fprintf(stderr, "unlost bench webgpu: --sample: %s\n", why);
        return 1;
      }
      for (int i = 0; i < reps; i++)
        t += !strcmp(profile, "ggml")     ? ggml_pattern(&r, ng, 8)
             : !strcmp(profile, "upload") ? uploads(&r, heap, nu)
                                          : dispatch_frames(&r, n, 100);
      if (sample_path && sampler_stop()) rc = 1;
      printf("%s, %s: %d repetitions, %.3f ms each\n", profile, profile_raw ? "raw" : "through unlost-webgpu", reps,
             t / reps);
    }
    rig_close(&r);
    return rc || atomic_load(&g_errors) ? 1 : 0;
  }
  rig rr, rl;
  if (!rig_open(&rr, &raw, why, sizeof why) || !rig_open(&rl, &layer, why, sizeof why)) {
    fprintf(stderr, "unlost bench webgpu: %s\n", why);
    return 1;
  }
  ul_device *ud = ul_wgpu_device(rl.dev);
  WGPUAdapterInfo info = {0};
  raw.AdapterGetInfo(rr.adapter, &info);
  char adapter[160];
  size_t an = !info.device.data ? 0 : info.device.length == WGPU_STRLEN ? strlen(info.device.data) : info.device.length;
  snprintf(adapter, sizeof adapter, "%.*s", (int)UL__MIN(an, 150), info.device.data ? info.device.data : "");
  raw.AdapterInfoFreeMembers(info);
  result d = {0}, g = {0}, u = {0};
  uint64_t log_max = 0, checkpoints = 0, ucheckpoints = 0;
  if (!decode_only) {
    /* Warm both (pipelines compiled, caches filled), then interleave. */
    dispatch_frames(&rr, 200, 100);
    dispatch_frames(&rl, 200, 100);
    ggml_pattern(&rr, 64, 8);
    ggml_pattern(&rl, 64, 8);
    double dr[64], dl[64], gr[64], gl[64];
    ul_memory_stats ms;
    uint64_t ck0 = ul__oplog_checkpoints(ud);
    for (int i = 0; i < reps; i++) {
      bool flip = i & 1; /* alternate which goes first */
      if (flip) dl[i] = dispatch_frames(&rl, n, 100), dr[i] = dispatch_frames(&rr, n, 100);
      else dr[i] = dispatch_frames(&rr, n, 100), dl[i] = dispatch_frames(&rl, n, 100);
      if (flip) gl[i] = ggml_pattern(&rl, ng, 8), gr[i] = ggml_pattern(&rr, ng, 8);
      else gr[i] = ggml_pattern(&rr, ng, 8), gl[i] = ggml_pattern(&rl, ng, 8);
      if (!ul_device_memory_stats(ud, &ms) && ms.log_bytes > log_max) log_max = ms.log_bytes;
    }
    checkpoints = ul__oplog_checkpoints(ud) - ck0;
    d = summarize(dr, dl, reps);
    g = summarize(gr, gl, reps);
  }
  /* The decode before the live objects of the uploads: its own objects only. */
  decode_result dec;
  if (!bench_decode(&rr, &rl, ndec, reps, &dec)) {
    free(dec.want);
    return 1;
  }
  if (!decode_only) {
    /* The uploads, after the live objects are made (both ways). */
    double ur[64], ul[64];
    uint8_t *heap = malloc(4096);
    if (!heap || !crowd_make(&rr, nobj) || !crowd_make(&rl, nobj)) {
      fprintf(stderr, "unlost bench webgpu: out of memory for %d objects\n", nobj);
      return 1;
    }
    for (int i = 0; i < 4096; i++) heap[i] = (uint8_t)(i * 31 + 7);
    uploads(&rr, heap, 4);
    uploads(&rl, heap, 4);
    uint64_t uck0 = ul__oplog_checkpoints(ud);
    for (int i = 0; i < reps; i++) {
      if (i & 1) ul[i] = uploads(&rl, heap, nu), ur[i] = uploads(&rr, heap, nu);
      else ur[i] = uploads(&rr, heap, nu), ul[i] = uploads(&rl, heap, nu);
    }
    free(heap);
    ucheckpoints = ul__oplog_checkpoints(ud) - uck0;
    u = summarize(ur, ul, reps);
  }
  if (atomic_load(&g_errors)) {
    fprintf(stderr, "unlost bench webgpu: %d errors: the figures are not valid\n", atomic_load(&g_errors));
    return 1;
  }
  double u_raw_us = u.raw_ms * 1e3 / nu, u_layer_us = u.layer_ms * 1e3 / nu;
  double dec_raw_tps = ndec * 1e3 / dec.raw_ms, dec_layer_tps = ndec * 1e3 / dec.layer_ms;
  if (json) {
#ifdef UL_HAVE_JANSSON
    json_t *doc = json_pack("{s:s,s:s,s:i}", "bench", "webgpu", "adapter", adapter, "reps", reps);
    bool ok = doc != NULL;
    if (!decode_only) {
      json_t *jd = json_pack("{s:i,s:i}", "dispatches", n, "per_submit", 100);
      ok &= cli_json_reals(jd, 3, "raw_ms", d.raw_ms, "layer_ms", d.layer_ms, NULL);
      ok &= cli_json_reals(jd, 4, "ratio", d.ratio, "ratio_p25", d.ratio_p25, "ratio_p75", d.ratio_p75, "ratio_iqr",
                           d.ratio_p75 - d.ratio_p25, NULL);
      ok &= cli_json_set(doc, "dispatch", jd);
      json_t *jg = json_pack("{s:i,s:i}", "dispatches", ng, "per_submit", 8);
      ok &= cli_json_reals(jg, 3, "raw_ms", g.raw_ms, "layer_ms", g.layer_ms, NULL);
      ok &= cli_json_reals(jg, 4, "ratio", g.ratio, "ratio_p25", g.ratio_p25, "ratio_p75", g.ratio_p75, "ratio_iqr",
                           g.ratio_p75 - g.ratio_p25, NULL);
      ok &= cli_json_set(jg, "log_bytes_max", json_integer((json_int_t)log_max));
      ok &= cli_json_set(jg, "checkpoints", json_integer((json_int_t)checkpoints));
      ok &= cli_json_set(doc, "ggml", jg);
      json_t *ju = json_pack("{s:i,s:i,s:i}", "objects", nobj, "writes", nu, "bytes", 4096);
      ok &= cli_json_reals(ju, 3, "raw_us", u_raw_us, "layer_us", u_layer_us, NULL);
      ok &= cli_json_reals(ju, 4, "ratio", u.ratio, "ratio_p25", u.ratio_p25, "ratio_p75", u.ratio_p75, "ratio_iqr",
                           u.ratio_p75 - u.ratio_p25, NULL);
      ok &= cli_json_set(ju, "checkpoints", json_integer((json_int_t)ucheckpoints));
      ok &= cli_json_set(doc, "upload_4k_20k", ju);
    }
    /* ratio here: tokens/s through the layer over raw (1 is no cost; the
     * issue's bound is 0.97). */
    json_t *jt = json_pack("{s:i}", "tokens", ndec);
    ok &= cli_json_reals(jt, 3, "raw_ms", dec.raw_ms, "layer_ms", dec.layer_ms, NULL);
    ok &= cli_json_reals(jt, 2, "raw_tokens_per_s", dec_raw_tps, "layer_tokens_per_s", dec_layer_tps, NULL);
    ok &= cli_json_reals(jt, 4, "tps_ratio", dec.ratio, "tps_ratio_p25", dec.ratio_p25, "tps_ratio_p75",
                         dec.ratio_p75, "tps_ratio_iqr", dec.ratio_p75 - dec.ratio_p25, NULL);
    ok &= cli_json_set(jt, "tokens_identical", json_boolean(dec.identical));
    ok &= cli_json_set(jt, "checkpoints", json_integer((json_int_t)dec.checkpoints));
    ok &= cli_json_set(jt, "checkpoints_async", json_integer((json_int_t)dec.checkpoints_async));
    json_t *first = json_array();
    for (int i = 0; i < ndec && i < 16; i++) ok &= first && json_array_append_new(first, json_integer(dec.want[i])) == 0;
    ok &= cli_json_set(jt, "first_tokens", first);
    ok &= cli_json_set(doc, "decode", jt);
    if (!ok || !cli_json_write("unlost bench webgpu", "-", doc)) return 1;
#else
    fprintf(stderr, "unlost bench webgpu: --json: this build has no JSON writer (jansson)\n");
    return 2;
#endif
  } else {
    printf("adapter %s, %d repetitions interleaved\n", adapter, reps);
    if (!decode_only) {
      printf("dispatch: %d dispatches, 100 per submit: raw %.2f ms, through unlost-webgpu %.2f ms, ratio %.4f "
             "(IQR %.4f..%.4f)\n",
             n, d.raw_ms, d.layer_ms, d.ratio, d.ratio_p25, d.ratio_p75);
      printf("ggml: %d dispatches (a new bind group and a uniform write each), 8 per submit: raw %.2f ms, through "
             "unlost-webgpu %.2f ms, ratio %.4f (IQR %.4f..%.4f); log up to %llu bytes, %llu checkpoints\n",
             ng, g.raw_ms, g.layer_ms, g.ratio, g.ratio_p25, g.ratio_p75, (unsigned long long)log_max,
             (unsigned long long)checkpoints);
      printf("upload: a 4 KiB WriteBuffer from the heap into a buffer the GPU never wrote, %d live objects, %d writes "
             "a repetition: raw %.3f us, through unlost-webgpu %.3f us a write, ratio %.4f (IQR %.4f..%.4f); %llu "
             "checkpoints\n",
             nobj, nu, u_raw_us, u_layer_us, u.ratio, u.ratio_p25, u.ratio_p75, (unsigned long long)ucheckpoints);
    }
    printf("decode: the built-in model, %d tokens greedy from BOS, one submit and one map each: raw %.1f tokens/s, "
           "through unlost-webgpu %.1f tokens/s, tokens/s ratio %.4f (IQR %.4f..%.4f); tokens %s; %llu checkpoints "
           "(%llu asynchronous)\n",
           ndec, dec_raw_tps, dec_layer_tps, dec.ratio, dec.ratio_p25, dec.ratio_p75,
           dec.identical ? "identical both ways and the CPU's" : "NOT identical", (unsigned long long)dec.checkpoints,
           (unsigned long long)dec.checkpoints_async);
  }
  free(dec.want);
  rig_close(&rl);
  rig_close(&rr);
  return dec.identical ? 0 : 1;
}
