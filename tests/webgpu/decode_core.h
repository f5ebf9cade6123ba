/* The built-in model's greedy decode written on webgpu.h alone (issue 38),
 * through a table of entry points, so that one text serves two programs:
 * tests/webgpu/wgpu_decode.c (the table is the entry points it is linked
 * to: Dawn, or libunlost-webgpu) and bench/webgpu/bench_webgpu.c (Dawn's
 * own symbols and the front door's, side by side in one process).
 *
 * The model is tools/llm's (llm_default_open); the kernels are its WGSL
 * (tools/llm/kernels.c, the same 2 + 5 * n_layers dispatches per token as
 * tools/llm/gpu.c, which runs them through unlost.h instead). Per token:
 * a 16-byte WriteBuffer of {pos, token}, one command buffer (one compute
 * pass with every dispatch, then a copy of the logits into a MAP_READ
 * buffer), one submit, a MapAsync waited for with WaitAny, the logits
 * copied out, Unmap, and the argmax on the host. Weights come from the
 * mapped model file through WriteBuffer. Nothing here calls unlost.h: the
 * llm headers are included for the model's types and tools/llm's host half
 * (the file, the CPU reference), whose errors it reports through the
 * unlost library the program is linked to.
 *
 * Everything is static inline (each program compiles it with -Werror). */
#ifndef WGPU_DECODE_CORE_H
#define WGPU_DECODE_CORE_H

#include "wgpu/wgpu_api.h"

#include "llm/cpu.h"
#include "llm/gpu.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every entry point of the pinned header revision. */
typedef struct dc_api {
#define DC_API_MEMBER(Ret, Name, params, args) Ret(*Name) params;
  UL__WGPU_API(DC_API_MEMBER)
#undef DC_API_MEMBER
} dc_api;

/* The table of the entry points this program is linked to. */
static inline void dc_api_linked(dc_api *a) {
#define DC_API_OWN(Ret, Name, params, args) a->Name = wgpu##Name;
  UL__WGPU_API(DC_API_OWN)
#undef DC_API_OWN
}

#define DC_STR(s) ((WGPUStringView){(s), WGPU_STRLEN})
/* A map that takes longer is a hang, reported rather than waited out. */
#define DC_WAIT_NS (60ull * 1000000000ull)
#define DC_BOS 1

enum { DC_EMBED, DC_QKV, DC_ATTN, DC_WO, DC_W13, DC_W2, DC_CLS, DC_KERNELS };

typedef struct dc_layer {
  WGPUBuffer rms_att, wq, wk, wv, wo, rms_ffn, w1, w2, w3;
  WGPUBindGroup group[5]; /* qkv, attn, wo, w13, w2 */
} dc_layer;

typedef struct dc_decoder {
  const dc_api *a;
  WGPUInstance inst;
  WGPUDevice dev;
  WGPUQueue queue;
  const llm_model *m;
  llm_config cfg;
  uint64_t kv_stride; /* floats per K (or V) region of a layer */
  WGPUShaderModule shader[DC_KERNELS];
  WGPUComputePipeline pipe[DC_KERNELS];
  WGPUBuffer emb, rms_final, wcls, rope, state, x, xb, q, hb, att, logits, kv, readback;
  dc_layer *layers;
  WGPUBindGroup embed_bg, cls_bg;
  float *host_logits; /* [vocab] */
  char why[256];      /* what failed */
} dc_decoder;

static inline bool dc_fail(dc_decoder *d, const char *what) {
  snprintf(d->why, sizeof d->why, "%s", what);
  return false;
}

static inline WGPUBuffer dc_buffer(dc_decoder *d, const char *label, WGPUBufferUsage usage, uint64_t size) {
  WGPUBufferDescriptor bd = {.label = DC_STR(label), .usage = usage, .size = size};
  return d->a->DeviceCreateBuffer(d->dev, &bd);
}

/* A weight tensor (layer `layer` of a per-layer one) written from the mapped
 * model file. */
static inline WGPUBuffer dc_weight(dc_decoder *d, llm_tensor_id id, int32_t layer, uint64_t floats,
                                   const char *label) {
  const float *src = llm_model_tensor(d->m, id, layer, NULL);
  if (!src) return NULL;
  WGPUBuffer b = dc_buffer(d, label, WGPUBufferUsage_Storage | WGPUBufferUsage_CopyDst, floats * 4);
  d->a->QueueWriteBuffer(d->queue, b, 0, src, (size_t)(floats * 4));
  return b;
}

static inline bool dc_pipeline(dc_decoder *d, int k, const char *label, const char *wgsl,
                               const WGPUConstantEntry *c, size_t nc) {
  WGPUShaderSourceWGSL src = {.chain = {.sType = WGPUSType_ShaderSourceWGSL}, .code = DC_STR(wgsl)};
  WGPUShaderModuleDescriptor smd = {.nextInChain = &src.chain, .label = DC_STR(label)};
  d->shader[k] = d->a->DeviceCreateShaderModule(d->dev, &smd);
  WGPUComputePipelineDescriptor pd = {
      .label = DC_STR(label),
      .compute = {.module = d->shader[k], .entryPoint = DC_STR("main"), .constantCount = nc, .constants = c}};
  d->pipe[k] = d->a->DeviceCreateComputePipeline(d->dev, &pd);
  return d->shader[k] && d->pipe[k];
}

#define DC_CONST(k, v) ((WGPUConstantEntry){.key = DC_STR(k), .value = (double)(v)})
#define DC_BIND(b, buf) ((WGPUBindGroupEntry){.binding = (b), .buffer = (buf), .offset = 0, .size = WGPU_WHOLE_SIZE})

/* A bind group of pipeline k's layout ("auto": from the shader). */
static inline WGPUBindGroup dc_group(dc_decoder *d, int k, const char *label, const WGPUBindGroupEntry *e,
                                     size_t n) {
  WGPUBindGroupLayout l = d->a->ComputePipelineGetBindGroupLayout(d->pipe[k], 0);
  WGPUBindGroupDescriptor gd = {.label = DC_STR(label), .layout = l, .entryCount = n, .entries = e};
  WGPUBindGroup g = d->a->DeviceCreateBindGroup(d->dev, &gd);
  d->a->BindGroupLayoutRelease(l);
  return g;
}

/* Uploads the model and builds the pipelines and bind groups on `dev`
 * (whose queue is `queue`; the instance must have timed WaitAny). On
 * failure d->why says what (dc_close still releases what was made). */
static inline bool dc_open(dc_decoder *d, const dc_api *a, WGPUInstance inst, WGPUDevice dev, WGPUQueue queue,
                           const llm_model *m) {
  memset(d, 0, sizeof *d);
  d->a = a;
  d->inst = inst;
  d->dev = dev;
  d->queue = queue;
  d->m = m;
  d->cfg = m->cfg;
  const llm_config *c = &d->cfg;
  const uint64_t D = (uint64_t)c->dim, H = (uint64_t)c->hidden_dim, KV = (uint64_t)c->kv_dim,
                 S = (uint64_t)c->seq_len, V = (uint64_t)c->vocab_size, L = (uint64_t)c->n_layers,
                 HS = (uint64_t)c->head_size;
  if ((c->head_size & 1) || c->n_heads % c->n_kv_heads) return dc_fail(d, "unsupported model shape");
  WGPULimits lim = {0};
  if (a->DeviceGetLimits(dev, &lim) != WGPUStatus_Success) return dc_fail(d, "DeviceGetLimits failed");
  uint64_t align = lim.minStorageBufferOffsetAlignment ? lim.minStorageBufferOffsetAlignment : 256;
  d->kv_stride = ((S * KV * 4 + align - 1) / align * align) / 4;
  uint64_t biggest = V * D > H * D ? V * D : H * D;
  if (biggest * 4 > lim.maxStorageBufferBindingSize || 2 * d->kv_stride * 4 > lim.maxStorageBufferBindingSize)
    return dc_fail(d, "a tensor exceeds maxStorageBufferBindingSize");
  d->layers = calloc((size_t)L, sizeof *d->layers);
  d->host_logits = calloc((size_t)V, sizeof(float));
  float *rope = calloc((size_t)(S * HS), sizeof(float));
  if (!d->layers || !d->host_logits || !rope) {
    free(rope);
    return dc_fail(d, "out of host memory");
  }
  /* RoPE's (cos, sin) per position and pair, from the CPU's own formula
   * (llm/cpu.h), so both rotate by the same angles. */
  for (uint64_t p = 0; p < S; p++)
    for (uint64_t j = 0; j < HS / 2; j++) {
      float freq = 1.0f / powf(10000.0f, (float)(2 * j) / (float)c->head_size);
      float val = (float)p * freq;
      rope[(p * (HS / 2) + j) * 2] = cosf(val);
      rope[(p * (HS / 2) + j) * 2 + 1] = sinf(val);
    }

  const uint32_t qkv_rows = (uint32_t)(D + 2 * KV);
  WGPUConstantEntry ce[6];
  bool ok = true;
  ce[0] = DC_CONST("DIM", D);
  ok = ok && dc_pipeline(d, DC_EMBED, "decode.embed", llm_wgsl_embed, ce, 1);
  ce[0] = DC_CONST("ROWS", qkv_rows), ce[1] = DC_CONST("COLS", D), ce[2] = DC_CONST("KVD", KV);
  ce[3] = DC_CONST("HS", HS), ce[4] = DC_CONST("KVSTRIDE", d->kv_stride);
  ok = ok && dc_pipeline(d, DC_QKV, "decode.qkv", llm_wgsl_qkv, ce, 5);
  ce[0] = DC_CONST("HS", HS), ce[1] = DC_CONST("KVD", KV), ce[2] = DC_CONST("GROUP", c->n_heads / c->n_kv_heads);
  ce[3] = DC_CONST("SEQ", S), ce[4] = DC_CONST("KVSTRIDE", d->kv_stride);
  ce[5] = DC_CONST("SCALE", 1.0f / sqrtf((float)c->head_size));
  ok = ok && dc_pipeline(d, DC_ATTN, "decode.attn", llm_wgsl_attn, ce, 6);
  ce[0] = DC_CONST("ROWS", D), ce[1] = DC_CONST("COLS", D);
  ok = ok && dc_pipeline(d, DC_WO, "decode.wo", llm_wgsl_matvec_res, ce, 2);
  ce[0] = DC_CONST("ROWS", H), ce[1] = DC_CONST("COLS", D);
  ok = ok && dc_pipeline(d, DC_W13, "decode.w13", llm_wgsl_w13, ce, 2);
  ce[0] = DC_CONST("ROWS", D), ce[1] = DC_CONST("COLS", H);
  ok = ok && dc_pipeline(d, DC_W2, "decode.w2", llm_wgsl_matvec_res, ce, 2);
  ce[0] = DC_CONST("ROWS", V), ce[1] = DC_CONST("COLS", D);
  ok = ok && dc_pipeline(d, DC_CLS, "decode.cls", llm_wgsl_cls, ce, 2);
  if (!ok) {
    free(rope);
    return dc_fail(d, "a shader or pipeline was not made");
  }

  d->emb = dc_weight(d, LLM_TOKEN_EMBEDDING, 0, V * D, "token_embedding");
  d->rms_final = dc_weight(d, LLM_RMS_FINAL, 0, D, "rms_final");
  d->wcls = dc_weight(d, LLM_WCLS, 0, V * D, "wcls");
  for (uint64_t l = 0; l < L; l++) {
    dc_layer *b = &d->layers[l];
    int32_t li = (int32_t)l;
    b->rms_att = dc_weight(d, LLM_RMS_ATT, li, D, "rms_att");
    b->wq = dc_weight(d, LLM_WQ, li, D * D, "wq");
    b->wk = dc_weight(d, LLM_WK, li, KV * D, "wk");
    b->wv = dc_weight(d, LLM_WV, li, KV * D, "wv");
    b->wo = dc_weight(d, LLM_WO, li, D * D, "wo");
    b->rms_ffn = dc_weight(d, LLM_RMS_FFN, li, D, "rms_ffn");
    b->w1 = dc_weight(d, LLM_W1, li, H * D, "w1");
    b->w2 = dc_weight(d, LLM_W2, li, D * H, "w2");
    b->w3 = dc_weight(d, LLM_W3, li, H * D, "w3");
    ok = ok && b->rms_att && b->wq && b->wk && b->wv && b->wo && b->rms_ffn && b->w1 && b->w2 && b->w3;
  }
  const WGPUBufferUsage st = WGPUBufferUsage_Storage;
  d->rope = dc_buffer(d, "rope", st | WGPUBufferUsage_CopyDst, S * HS * 4);
  if (d->rope) a->QueueWriteBuffer(queue, d->rope, 0, rope, (size_t)(S * HS * 4));
  free(rope);
  d->state = dc_buffer(d, "state", WGPUBufferUsage_Uniform | WGPUBufferUsage_CopyDst, 16);
  d->x = dc_buffer(d, "x", st, D * 4);
  d->xb = dc_buffer(d, "xb", st, D * 4);
  d->q = dc_buffer(d, "q", st, D * 4);
  d->hb = dc_buffer(d, "hb", st, H * 4);
  d->att = dc_buffer(d, "att", st, (uint64_t)c->n_heads * S * 4);
  d->logits = dc_buffer(d, "logits", st | WGPUBufferUsage_CopySrc, V * 4);
  d->kv = dc_buffer(d, "kv_cache", st, L * 2 * d->kv_stride * 4);
  d->readback = dc_buffer(d, "logits.readback", WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst, V * 4);
  ok = ok && d->emb && d->rms_final && d->wcls && d->rope && d->state && d->x && d->xb && d->q && d->hb &&
       d->att && d->logits && d->kv && d->readback;
  if (!ok) return dc_fail(d, "a buffer was not made");

  WGPUBindGroupEntry e[9];
  e[0] = DC_BIND(0, d->state), e[1] = DC_BIND(1, d->emb), e[2] = DC_BIND(2, d->x);
  d->embed_bg = dc_group(d, DC_EMBED, "decode.embed", e, 3);
  const uint64_t region = d->kv_stride * 4;
  for (uint64_t l = 0; l < L; l++) {
    dc_layer *b = &d->layers[l];
    WGPUBindGroupEntry kvl = {.binding = 7, .buffer = d->kv, .offset = l * 2 * region, .size = 2 * region};
    e[0] = DC_BIND(0, d->state), e[1] = DC_BIND(1, d->x), e[2] = DC_BIND(2, b->rms_att), e[3] = DC_BIND(3, b->wq);
    e[4] = DC_BIND(4, b->wk), e[5] = DC_BIND(5, b->wv), e[6] = DC_BIND(6, d->q), e[7] = kvl;
    e[8] = DC_BIND(8, d->rope);
    b->group[0] = dc_group(d, DC_QKV, "decode.qkv", e, 9);
    kvl.binding = 2;
    e[0] = DC_BIND(0, d->state), e[1] = DC_BIND(1, d->q), e[2] = kvl, e[3] = DC_BIND(3, d->att);
    e[4] = DC_BIND(4, d->xb);
    b->group[1] = dc_group(d, DC_ATTN, "decode.attn", e, 5);
    e[0] = DC_BIND(0, d->xb), e[1] = DC_BIND(1, b->wo), e[2] = DC_BIND(2, d->x);
    b->group[2] = dc_group(d, DC_WO, "decode.wo", e, 3);
    e[0] = DC_BIND(0, d->x), e[1] = DC_BIND(1, b->rms_ffn), e[2] = DC_BIND(2, b->w1), e[3] = DC_BIND(3, b->w3);
    e[4] = DC_BIND(4, d->hb);
    b->group[3] = dc_group(d, DC_W13, "decode.w13", e, 5);
    e[0] = DC_BIND(0, d->hb), e[1] = DC_BIND(1, b->w2), e[2] = DC_BIND(2, d->x);
    b->group[4] = dc_group(d, DC_W2, "decode.w2", e, 3);
    for (int k = 0; k < 5; k++) ok = ok && b->group[k];
  }
  e[0] = DC_BIND(0, d->x), e[1] = DC_BIND(1, d->rms_final), e[2] = DC_BIND(2, d->wcls), e[3] = DC_BIND(3, d->logits);
  d->cls_bg = dc_group(d, DC_CLS, "decode.cls", e, 4);
  if (!ok || !d->embed_bg || !d->cls_bg) return dc_fail(d, "a bind group was not made");
  if ((V + 7) / 8 > lim.maxComputeWorkgroupsPerDimension) return dc_fail(d, "vocabulary too large");
  return true;
}

static inline void dc_close(dc_decoder *d) {
  const dc_api *a = d->a;
  if (!a) return;
  for (int32_t l = 0; d->layers && l < d->cfg.n_layers; l++) {
    dc_layer *b = &d->layers[l];
    for (int k = 0; k < 5; k++)
      if (b->group[k]) a->BindGroupRelease(b->group[k]);
    WGPUBuffer bufs[] = {b->rms_att, b->wq, b->wk, b->wv, b->wo, b->rms_ffn, b->w1, b->w2, b->w3};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
      if (bufs[i]) a->BufferRelease(bufs[i]);
  }
  if (d->embed_bg) a->BindGroupRelease(d->embed_bg);
  if (d->cls_bg) a->BindGroupRelease(d->cls_bg);
  WGPUBuffer bufs[] = {d->emb, d->rms_final, d->wcls, d->rope, d->state, d->x, d->xb,
                       d->q, d->hb, d->att, d->logits, d->kv, d->readback};
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
    if (bufs[i]) a->BufferRelease(bufs[i]);
  for (int k = 0; k < DC_KERNELS; k++) {
    if (d->pipe[k]) a->ComputePipelineRelease(d->pipe[k]);
    if (d->shader[k]) a->ShaderModuleRelease(d->shader[k]);
  }
  free(d->layers);
  free(d->host_logits);
  memset(d, 0, sizeof *d);
}

typedef struct dc_map {
  int done;
  WGPUMapAsyncStatus status;
} dc_map;

static inline void dc_on_map(WGPUMapAsyncStatus status, WGPUStringView message, void *userdata1,
                             void *userdata2) {
  (void)message, (void)userdata2;
  dc_map *r = userdata1;
  r->status = status;
  r->done = 1;
}

/* One token: `token` at position `pos` (positions fed in order; an earlier
 * one restarts the sequence there). The logits land in d->host_logits. */
static inline bool dc_step(dc_decoder *d, int32_t token, int32_t pos) {
  const dc_api *a = d->a;
  const llm_config *c = &d->cfg;
  const uint32_t D = (uint32_t)c->dim, H = (uint32_t)c->hidden_dim, V = (uint32_t)c->vocab_size;
  const uint32_t st[4] = {(uint32_t)pos, (uint32_t)token, 0, 0};
  a->QueueWriteBuffer(d->queue, d->state, 0, st, sizeof st);
  WGPUCommandEncoderDescriptor ed = {.label = DC_STR("decode.token")};
  WGPUCommandEncoder enc = a->DeviceCreateCommandEncoder(d->dev, &ed);
  WGPUComputePassDescriptor pd = {.label = DC_STR("decode.forward")};
  WGPUComputePassEncoder pass = a->CommandEncoderBeginComputePass(enc, &pd);
  a->ComputePassEncoderSetPipeline(pass, d->pipe[DC_EMBED]);
  a->ComputePassEncoderSetBindGroup(pass, 0, d->embed_bg, 0, NULL);
  a->ComputePassEncoderDispatchWorkgroups(pass, (D + 63) / 64, 1, 1);
  const uint32_t groups[5] = {(D + 2 * (uint32_t)c->kv_dim + 7) / 8, (uint32_t)c->n_heads, (D + 7) / 8,
                              (H + 7) / 8, (D + 7) / 8};
  const int kernel[5] = {DC_QKV, DC_ATTN, DC_WO, DC_W13, DC_W2};
  for (int32_t l = 0; l < c->n_layers; l++)
    for (int k = 0; k < 5; k++) {
      a->ComputePassEncoderSetPipeline(pass, d->pipe[kernel[k]]);
      a->ComputePassEncoderSetBindGroup(pass, 0, d->layers[l].group[k], 0, NULL);
      a->ComputePassEncoderDispatchWorkgroups(pass, groups[k], 1, 1);
    }
  a->ComputePassEncoderSetPipeline(pass, d->pipe[DC_CLS]);
  a->ComputePassEncoderSetBindGroup(pass, 0, d->cls_bg, 0, NULL);
  a->ComputePassEncoderDispatchWorkgroups(pass, (V + 7) / 8, 1, 1);
  a->ComputePassEncoderEnd(pass);
  a->ComputePassEncoderRelease(pass);
  a->CommandEncoderCopyBufferToBuffer(enc, d->logits, 0, d->readback, 0, (uint64_t)V * 4);
  WGPUCommandBufferDescriptor cd = {.label = DC_STR("decode.token")};
  WGPUCommandBuffer cmd = a->CommandEncoderFinish(enc, &cd);
  a->QueueSubmit(d->queue, 1, &cmd);
  a->CommandBufferRelease(cmd);
  a->CommandEncoderRelease(enc);

  dc_map r = {0, 0};
  WGPUBufferMapCallbackInfo cb = {.mode = WGPUCallbackMode_WaitAnyOnly, .callback = dc_on_map, .userdata1 = &r};
  WGPUFutureWaitInfo w = {.future = a->BufferMapAsync(d->readback, WGPUMapMode_Read, 0, (size_t)V * 4, cb)};
  WGPUWaitStatus ws = a->InstanceWaitAny(d->inst, 1, &w, DC_WAIT_NS);
  if (ws != WGPUWaitStatus_Success || !w.completed || !r.done) {
    snprintf(d->why, sizeof d->why, "position %d: the map of the logits did not complete (wait status %u)", pos,
             (unsigned)ws);
    return false;
  }
  if (r.status != WGPUMapAsyncStatus_Success) {
    snprintf(d->why, sizeof d->why, "position %d: the map of the logits failed (status %u)", pos,
             (unsigned)r.status);
    return false;
  }
  const void *p = a->BufferGetConstMappedRange(d->readback, 0, (size_t)V * 4);
  if (!p) {
    a->BufferUnmap(d->readback);
    snprintf(d->why, sizeof d->why, "position %d: GetConstMappedRange returned NULL", pos);
    return false;
  }
  memcpy(d->host_logits, p, (size_t)V * 4);
  a->BufferUnmap(d->readback);
  return true;
}

/* Greedy decode of n tokens from BOS: tokens[i] is the argmax of the
 * logits at position i. on_logits (may be NULL) sees each position's
 * logits. */
static inline bool dc_decode(dc_decoder *d, int32_t n, int32_t *tokens,
                             void (*on_logits)(void *user, int32_t pos, const float *logits), void *user) {
  int32_t token = DC_BOS;
  for (int32_t pos = 0; pos < n; pos++) {
    if (!dc_step(d, token, pos)) return false;
    if (on_logits) on_logits(user, pos, d->host_logits);
    token = tokens[pos] = llm_argmax(d->host_logits, d->cfg.vocab_size);
  }
  return true;
}

/* The same decode on the CPU reference (llm/cpu.h); logits (may be NULL)
 * receives n * vocab floats. */
static inline bool dc_cpu_decode(const llm_model *m, int32_t n, int32_t *tokens, float *logits) {
  llm_cpu *cpu = NULL;
  if (llm_cpu_create(m, &cpu) != UL_OK) return false;
  int32_t token = DC_BOS;
  bool ok = true;
  for (int32_t pos = 0; pos < n && ok; pos++) {
    const float *l = NULL;
    ok = llm_cpu_forward(cpu, token, pos, &l) == UL_OK;
    if (!ok) break;
    if (logits) memcpy(logits + (size_t)pos * (size_t)m->cfg.vocab_size, l, (size_t)m->cfg.vocab_size * 4);
    token = tokens[pos] = llm_argmax(l, m->cfg.vocab_size);
  }
  llm_cpu_destroy(cpu);
  return ok;
}

#endif
