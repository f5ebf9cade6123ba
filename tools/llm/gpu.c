/* The GPU forward pass (see gpu.h). Only include/unlost.h is called. */
#include "llm/gpu.h"

#include <math.h>
#include <time.h>

enum { K_EMBED, K_QKV, K_ATTN, K_WO, K_W13, K_W2, K_CLS, K_COUNT };

typedef struct llm_layer_bufs {
  ul_buffer rms_att, wq, wk, wv, wo, rms_ffn, w1, w2, w3;
  ul_bind_group qkv, attn, wo_bg, w13, w2_bg;
} llm_layer_bufs;

struct llm_gpu {
  ul_device *dev;
  const llm_model *m;
  llm_gpu_opts opts;
  llm_config cfg;

  ul_shader sh[K_COUNT];
  ul_compute_pipeline pipe[K_COUNT];
  ul_buffer emb, rms_final, wcls; /* wcls == emb when shared */
  ul_buffer rope;                 /* [seq][head/2] (cos, sin) */
  float *rope_host;
  ul_buffer state;                /* {pos, token, 0, 0} */
  ul_buffer x, xb, q, hb, att, logits_buf;
  ul_buffer kv;                   /* [L][2][kv_stride] */
  uint64_t kv_stride;             /* floats per K (or V) region of a layer */
  llm_layer_bufs *layers;
  ul_bind_group embed_bg, cls_bg;
  ul_cmd *cmd;

  float *logits;
  int32_t *tokens;   /* [seq_len]: the token run at each position */
  int32_t next_pos;  /* positions [0, next_pos) have been run */
  int32_t kv_len;    /* positions whose work has been submitted */
  uint32_t cur_state[4];
  uint32_t since_ckpt;
  int refilling;
  bool refill_again;
  llm_gpu_stats st;
};

const char *llm_kv_policy_name(llm_kv_policy p) {
  switch (p) {
  case LLM_KV_LOG: return "log";
  case LLM_KV_CALLBACK: return "callback";
  }
  return "?";
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

#define TRY(call, ...)                                                \
  do {                                                                \
    if ((s = (call)) != UL_OK) {                                      \
      s = ul_error_wrap(s, __VA_ARGS__);                                   \
      goto fail;                                                      \
    }                                                                 \
  } while (0)

/* A weight buffer restored from the model file (no host copy). */
/* Each call site passes its own site, so the tracker attributes (and does
 * not take for churn) the many weight buffers of one model. */
#define weight_buffer(...) weight_buffer_at(__VA_ARGS__, UL_SITE)
static ul_status weight_buffer_at(llm_gpu *g, llm_tensor_id id, int32_t layer,
                                  uint64_t floats, const char *label, ul_buffer *out,
                                  const ul_site *site) {
  uint64_t off = 0;
  if (!llm_model_tensor(g->m, id, layer, &off))
    return ul_error_set(UL_ERR_INTERNAL, "tensor %s layer %d out of range", llm_tensor_name(id),
                    layer);
  char name[64];
  snprintf(name, sizeof name, "%s.%d", label, layer);
  return ul_buffer_create_at(g->dev, &(ul_buffer_desc){.label = name, .size = floats * 4,
                                                       .usage = UL_BUFFER_STORAGE,
                                                       .restore = UL_RESTORE_SOURCE,
                                                       .source_path = g->m->path,
                                                       .source_offset = off}, out, site);
}

static ul_status scratch(llm_gpu *g, const char *label, uint64_t floats, ul_buffer *out) {
  return ul_buffer_create(g->dev, &(ul_buffer_desc){.label = label, .size = floats * 4,
                                                    .restore = UL_RESTORE_NONE}, out);
}

/* CALLBACK policy: re-run every position whose work was submitted, in
 * order, then put the current step's state back. Called by unlost after a
 * rebuild, with no unlost lock held. */
static ul_status kv_refill(ul_device *dev, ul_buffer buffer, void *user) {
  (void)buffer;
  llm_gpu *g = user;
  if (g->refilling) {
    /* Lost again while refilling: the call that recovered returns into the
     * refill below, which starts over (no recursion). */
    g->refill_again = true;
    return UL_OK;
  }
  double t0 = now_ms();
  ul_status s = UL_OK;
  g->refilling = 1;
  int32_t n = g->kv_len;
  int rounds = 0;
  do {
    g->refill_again = false;
    for (int32_t p = 0; p < n && !s && !g->refill_again; p++) {
      uint32_t stv[4] = {(uint32_t)p, (uint32_t)g->tokens[p], 0, 0};
      s = ul_buffer_write(dev, g->state, 0, stv, sizeof stv);
      if (!s) s = ul_cmd_submit(dev, g->cmd, NULL);
      g->st.refill_tokens++;
    }
    if (!s && !g->refill_again)
      s = ul_buffer_write(dev, g->state, 0, g->cur_state, sizeof g->cur_state);
    /* Neither these writes nor these submissions are logged (they come
     * from a restore callback); the replay that follows runs only the work
     * logged since the last checkpoint, on top of this refill. */
  } while (!s && g->refill_again && ++rounds < 8);
  if (!s && g->refill_again)
    s = ul_error_set(UL_ERR_DEVICE_LOST, "re-prefill of %d positions: lost %d times while refilling", n, rounds);
  g->refilling = 0;
  g->st.refills++;
  g->st.last_refill_ms = now_ms() - t0;
  g->st.refill_ms_total += g->st.last_refill_ms;
  return s;
}

static ul_status make_pipeline(llm_gpu *g, int k, const char *label, const char *wgsl,
                               const ul_constant *c, uint32_t nc) {
  ul_status s = ul_shader_create(g->dev, &(ul_shader_desc){.label = label, .wgsl = wgsl}, &g->sh[k]);
  if (s) return s;
  ul_compute_pipeline_desc pd = {.label = label, .shader = g->sh[k], .constant_count = nc};
  for (uint32_t i = 0; i < nc; i++) pd.constants[i] = c[i];
  return ul_compute_pipeline_create(g->dev, &pd, &g->pipe[k]);
}

static ul_status bind(llm_gpu *g, int k, const char *label, const ul_bind_entry *e,
                      uint32_t n, ul_bind_group *out) {
  ul_bind_group_desc d = {.label = label, .pipeline = g->pipe[k], .entry_count = n};
  for (uint32_t i = 0; i < n; i++) d.entries[i] = e[i];
  return ul_bind_group_create(g->dev, &d, out);
}

#define BUF(b, B) {.binding = (b), .buffer = (B)}

/* MemAvailable of /proc/meminfo in bytes; false where it cannot be read. */
static bool host_available_bytes(uint64_t *out) {
  FILE *f = fopen("/proc/meminfo", "r");
  if (!f) return false;
  char line[256];
  bool ok = false;
  unsigned long long kb;
  while (!ok && fgets(line, sizeof line, f)) ok = sscanf(line, "MemAvailable: %llu kB", &kb) == 1;
  fclose(f);
  if (ok) *out = (uint64_t)kb * 1024;
  return ok;
}

ul_status llm_gpu_create(ul_device *dev, const llm_model *m, const llm_gpu_opts *opts,
                             llm_gpu **out) {
  if (out) *out = NULL;
  if (!dev || !m || !out) return ul_error_set(UL_ERR_INVALID_ARGUMENT, "llm gpu: NULL argument");
  ul_status s = UL_OK;
  llm_gpu *g = calloc(1, sizeof *g);
  if (!g) return ul_error_set(UL_ERR_OUT_OF_MEMORY, "llm gpu: out of host memory");
  g->dev = dev;
  g->m = m;
  g->cfg = m->cfg;
  if (opts) g->opts = *opts;
  if (!g->opts.checkpoint_every) g->opts.checkpoint_every = 32;
  const llm_config *c = &g->cfg;
  const uint64_t D = (uint64_t)c->dim, H = (uint64_t)c->hidden_dim, KV = (uint64_t)c->kv_dim,
                 S = (uint64_t)c->seq_len, V = (uint64_t)c->vocab_size, L = (uint64_t)c->n_layers,
                 HS = (uint64_t)c->head_size;
  if ((m->cfg.head_size & 1) || m->cfg.n_heads % m->cfg.n_kv_heads) {
    free(g);
    return ul_error_set(UL_ERR_UNSUPPORTED, "llm gpu: odd head_size %d or n_heads %% n_kv_heads != 0",
                    m->cfg.head_size);
  }
  ul_limits lim;
  if ((s = ul_device_limits(dev, &lim))) {
    free(g);
    return ul_error_wrap(s, "llm gpu");
  }
  uint64_t biggest = LLM_MAX(V * D, LLM_MAX(H * D, D * D));
  uint64_t align = lim.min_storage_buffer_offset_alignment ? lim.min_storage_buffer_offset_alignment : 256;
  g->kv_stride = ((S * KV * 4 + align - 1) / align * align) / 4;
  if (biggest * 4 > lim.max_storage_buffer_binding_size ||
      2 * g->kv_stride * 4 > lim.max_storage_buffer_binding_size) {
    free(g);
    return ul_error_set(UL_ERR_UNSUPPORTED,
                    "llm gpu: a tensor of %llu bytes exceeds maxStorageBufferBindingSize %llu "
                    "(create the device with required_limits = UL_LIMIT_ADAPTER)",
                    (unsigned long long)(biggest * 4),
                    (unsigned long long)lim.max_storage_buffer_binding_size);
  }
  /* Pre-flight: on the CPU adapter the device's memory is the host's, so a
   * model larger than the memory available now is refused here, before an
   * upload that would end in the kernel's OOM killer. (A GPU's own memory
   * is not visible through WebGPU; its buffers fail at create instead.) */
  ul_adapter_info ai;
  uint64_t need = m->layout.total_bytes + 2 * L * g->kv_stride * 4, avail = 0;
  if (!ul_device_adapter_info(dev, &ai) && ai.type == UL_ADAPTER_CPU && host_available_bytes(&avail) &&
      need > avail) {
    free(g);
    return ul_error_set(UL_ERR_OUT_OF_MEMORY,
                    "llm gpu: the model needs %.2f GiB of device memory (weights and KV cache); the CPU adapter's "
                    "memory is the host's, which has %.2f GiB available",
                    (double)need / 1073741824.0, (double)avail / 1073741824.0);
  }
  g->logits = calloc((size_t)V, sizeof(float));
  g->tokens = calloc((size_t)S, sizeof(int32_t));
  g->rope_host = calloc((size_t)(S * HS), sizeof(float));
  g->layers = calloc((size_t)L, sizeof *g->layers);
  if (!g->logits || !g->tokens || !g->rope_host || !g->layers) {
    s = ul_error_set(UL_ERR_OUT_OF_MEMORY, "llm gpu: out of host memory");
    goto fail;
  }
  /* The CPU's own RoPE values, so the GPU rotates by exactly the same angles. */
  for (uint64_t p = 0; p < S; p++)
    for (uint64_t j = 0; j < HS / 2; j++) {
      float freq = 1.0f / powf(10000.0f, (float)(2 * j) / (float)c->head_size);
      float val = (float)p * freq;
      g->rope_host[(p * (HS / 2) + j) * 2] = cosf(val);
      g->rope_host[(p * (HS / 2) + j) * 2 + 1] = sinf(val);
    }

  /* ---- pipelines ---- */
  const uint32_t qkv_rows = (uint32_t)(D + 2 * KV);
  TRY(make_pipeline(g, K_EMBED, "llm.embed", llm_wgsl_embed,
                    (ul_constant[]){{"DIM", (double)D}}, 1), "llm gpu: embed");
  TRY(make_pipeline(g, K_QKV, "llm.qkv", llm_wgsl_qkv,
                    (ul_constant[]){{"ROWS", qkv_rows}, {"COLS", (double)D}, {"KVD", (double)KV},
                                    {"HS", (double)HS}, {"KVSTRIDE", (double)g->kv_stride}}, 5),
      "llm gpu: qkv");
  TRY(make_pipeline(g, K_ATTN, "llm.attn", llm_wgsl_attn,
                    (ul_constant[]){{"HS", (double)HS}, {"KVD", (double)KV},
                                    {"GROUP", (double)(c->n_heads / c->n_kv_heads)},
                                    {"SEQ", (double)S}, {"KVSTRIDE", (double)g->kv_stride},
                                    {"SCALE", (double)(1.0f / sqrtf((float)c->head_size))}}, 6),
      "llm gpu: attention");
  TRY(make_pipeline(g, K_WO, "llm.wo", llm_wgsl_matvec_res,
                    (ul_constant[]){{"ROWS", (double)D}, {"COLS", (double)D}}, 2), "llm gpu: wo");
  TRY(make_pipeline(g, K_W13, "llm.w13", llm_wgsl_w13,
                    (ul_constant[]){{"ROWS", (double)H}, {"COLS", (double)D}}, 2), "llm gpu: w13");
  TRY(make_pipeline(g, K_W2, "llm.w2", llm_wgsl_matvec_res,
                    (ul_constant[]){{"ROWS", (double)D}, {"COLS", (double)H}}, 2), "llm gpu: w2");
  TRY(make_pipeline(g, K_CLS, "llm.cls", llm_wgsl_cls,
                    (ul_constant[]){{"ROWS", (double)V}, {"COLS", (double)D}}, 2), "llm gpu: cls");

  /* ---- buffers ---- */
  TRY(weight_buffer(g, LLM_TOKEN_EMBEDDING, 0, V * D, "token_embedding", &g->emb), "llm gpu");
  TRY(weight_buffer(g, LLM_RMS_FINAL, 0, D, "rms_final", &g->rms_final), "llm gpu");
  if (m->layout.t[LLM_WCLS].offset == m->layout.t[LLM_TOKEN_EMBEDDING].offset)
    g->wcls = g->emb;
  else
    TRY(weight_buffer(g, LLM_WCLS, 0, V * D, "wcls", &g->wcls), "llm gpu");
  for (int32_t l = 0; l < c->n_layers; l++) {
    llm_layer_bufs *b = &g->layers[l];
    TRY(weight_buffer(g, LLM_RMS_ATT, l, D, "rms_att", &b->rms_att), "llm gpu");
    TRY(weight_buffer(g, LLM_WQ, l, D * D, "wq", &b->wq), "llm gpu");
    TRY(weight_buffer(g, LLM_WK, l, KV * D, "wk", &b->wk), "llm gpu");
    TRY(weight_buffer(g, LLM_WV, l, KV * D, "wv", &b->wv), "llm gpu");
    TRY(weight_buffer(g, LLM_WO, l, D * D, "wo", &b->wo), "llm gpu");
    TRY(weight_buffer(g, LLM_RMS_FFN, l, D, "rms_ffn", &b->rms_ffn), "llm gpu");
    TRY(weight_buffer(g, LLM_W1, l, H * D, "w1", &b->w1), "llm gpu");
    TRY(weight_buffer(g, LLM_W2, l, D * H, "w2", &b->w2), "llm gpu");
    TRY(weight_buffer(g, LLM_W3, l, H * D, "w3", &b->w3), "llm gpu");
  }
  TRY(ul_buffer_create(dev, &(ul_buffer_desc){.label = "rope", .size = S * HS * 4,
                                              .usage = UL_BUFFER_STORAGE,
                                              .restore = UL_RESTORE_SOURCE,
                                              .source_data = g->rope_host}, &g->rope), "llm gpu");
  /* Per-step input. LOG with the LOG cache: the replay re-runs each logged
   * step with the value it had then. SHADOW with the CALLBACK cache: the
   * log is emptied after every token and the refill writes it itself. */
  TRY(ul_buffer_create(dev, &(ul_buffer_desc){
          .label = "state", .size = 16, .usage = UL_BUFFER_UNIFORM | UL_BUFFER_COPY_DST,
          .restore = g->opts.kv == LLM_KV_CALLBACK ? UL_RESTORE_SHADOW : UL_RESTORE_LOG},
          &g->state), "llm gpu");
  TRY(scratch(g, "x", D, &g->x), "llm gpu");
  TRY(scratch(g, "xb", D, &g->xb), "llm gpu");
  TRY(scratch(g, "q", D, &g->q), "llm gpu");
  TRY(scratch(g, "hb", H, &g->hb), "llm gpu");
  TRY(scratch(g, "att", (uint64_t)c->n_heads * S, &g->att), "llm gpu");
  TRY(scratch(g, "logits", V, &g->logits_buf), "llm gpu");
  if (g->opts.kv == LLM_KV_CALLBACK)
    TRY(ul_buffer_create(dev, &(ul_buffer_desc){.label = "kv_cache", .size = L * 2 * g->kv_stride * 4,
                                                .restore = UL_RESTORE_CALLBACK,
                                                .restore_fn = kv_refill, .restore_user = g},
                         &g->kv), "llm gpu");
  else
    TRY(ul_buffer_create(dev, &(ul_buffer_desc){.label = "kv_cache", .size = L * 2 * g->kv_stride * 4,
                                                .restore = UL_RESTORE_LOG}, &g->kv), "llm gpu");

  /* ---- bind groups and the one command list ---- */
  TRY(bind(g, K_EMBED, "llm.embed", (ul_bind_entry[]){BUF(0, g->state), BUF(1, g->emb), BUF(2, g->x)},
           3, &g->embed_bg), "llm gpu");
  TRY(ul_cmd_create(dev, "llm.token", &g->cmd), "llm gpu");
  TRY(ul_cmd_dispatch(g->cmd, g->pipe[K_EMBED], &g->embed_bg, 1, (uint32_t)((D + 63) / 64), 1, 1),
      "llm gpu");
  const uint64_t region = g->kv_stride * 4;
  for (int32_t l = 0; l < c->n_layers; l++) {
    llm_layer_bufs *b = &g->layers[l];
    ul_bind_entry kvl = {.binding = 7, .buffer = g->kv, .offset = (uint64_t)l * 2 * region,
                         .size = 2 * region};
    TRY(bind(g, K_QKV, "llm.qkv",
             (ul_bind_entry[]){BUF(0, g->state), BUF(1, g->x), BUF(2, b->rms_att), BUF(3, b->wq),
                               BUF(4, b->wk), BUF(5, b->wv), BUF(6, g->q), kvl, BUF(8, g->rope)},
             9, &b->qkv), "llm gpu");
    kvl.binding = 2;
    TRY(bind(g, K_ATTN, "llm.attn",
             (ul_bind_entry[]){BUF(0, g->state), BUF(1, g->q), kvl, BUF(3, g->att), BUF(4, g->xb)},
             5, &b->attn), "llm gpu");
    TRY(bind(g, K_WO, "llm.wo", (ul_bind_entry[]){BUF(0, g->xb), BUF(1, b->wo), BUF(2, g->x)}, 3,
             &b->wo_bg), "llm gpu");
    TRY(bind(g, K_W13, "llm.w13",
             (ul_bind_entry[]){BUF(0, g->x), BUF(1, b->rms_ffn), BUF(2, b->w1), BUF(3, b->w3),
                               BUF(4, g->hb)}, 5, &b->w13), "llm gpu");
    TRY(bind(g, K_W2, "llm.w2", (ul_bind_entry[]){BUF(0, g->hb), BUF(1, b->w2), BUF(2, g->x)}, 3,
             &b->w2_bg), "llm gpu");
    TRY(ul_cmd_dispatch(g->cmd, g->pipe[K_QKV], &b->qkv, 1, (qkv_rows + 7) / 8, 1, 1), "llm gpu");
    TRY(ul_cmd_dispatch(g->cmd, g->pipe[K_ATTN], &b->attn, 1, (uint32_t)c->n_heads, 1, 1), "llm gpu");
    TRY(ul_cmd_dispatch(g->cmd, g->pipe[K_WO], &b->wo_bg, 1, (uint32_t)((D + 7) / 8), 1, 1), "llm gpu");
    TRY(ul_cmd_dispatch(g->cmd, g->pipe[K_W13], &b->w13, 1, (uint32_t)((H + 7) / 8), 1, 1), "llm gpu");
    TRY(ul_cmd_dispatch(g->cmd, g->pipe[K_W2], &b->w2_bg, 1, (uint32_t)((D + 7) / 8), 1, 1), "llm gpu");
  }
  TRY(bind(g, K_CLS, "llm.cls",
           (ul_bind_entry[]){BUF(0, g->x), BUF(1, g->rms_final), BUF(2, g->wcls), BUF(3, g->logits_buf)},
           4, &g->cls_bg), "llm gpu");
  if ((V + 7) / 8 > lim.max_compute_workgroups_per_dimension) {
    s = ul_error_set(UL_ERR_UNSUPPORTED, "llm gpu: vocabulary %llu too large", (unsigned long long)V);
    goto fail;
  }
  TRY(ul_cmd_dispatch(g->cmd, g->pipe[K_CLS], &g->cls_bg, 1, (uint32_t)((V + 7) / 8), 1, 1), "llm gpu");
  *out = g;
  return UL_OK;
fail:
  llm_gpu_destroy(g);
  return s;
}

void llm_gpu_destroy(llm_gpu *g) {
  if (!g) return;
  ul_device *d = g->dev;
  ul_cmd_destroy(g->cmd);
  ul_bind_group_destroy(d, g->embed_bg);
  ul_bind_group_destroy(d, g->cls_bg);
  for (int32_t l = 0; g->layers && l < g->cfg.n_layers; l++) {
    llm_layer_bufs *b = &g->layers[l];
    ul_bind_group_destroy(d, b->qkv);
    ul_bind_group_destroy(d, b->attn);
    ul_bind_group_destroy(d, b->wo_bg);
    ul_bind_group_destroy(d, b->w13);
    ul_bind_group_destroy(d, b->w2_bg);
  }
  for (int k = 0; k < K_COUNT; k++) {
    ul_compute_pipeline_destroy(d, g->pipe[k]);
    ul_shader_destroy(d, g->sh[k]);
  }
  for (int32_t l = 0; g->layers && l < g->cfg.n_layers; l++) {
    llm_layer_bufs *b = &g->layers[l];
    ul_buffer bufs[] = {b->rms_att, b->wq, b->wk, b->wv, b->wo, b->rms_ffn, b->w1, b->w2, b->w3};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) ul_buffer_destroy(d, bufs[i]);
  }
  if (g->wcls.id != g->emb.id) ul_buffer_destroy(d, g->wcls);
  ul_buffer bufs[] = {g->emb, g->rms_final, g->rope, g->state, g->x, g->xb,
                      g->q, g->hb, g->att, g->logits_buf, g->kv};
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) ul_buffer_destroy(d, bufs[i]);
  free(g->layers);
  free(g->rope_host);
  free(g->tokens);
  free(g->logits);
  free(g);
}

ul_status llm_gpu_submit(llm_gpu *g, int32_t token, int32_t pos) {
  if (!g) return ul_error_set(UL_ERR_INVALID_ARGUMENT, "gpu forward: NULL argument");
  const llm_config *c = &g->cfg;
  if (token < 0 || token >= c->vocab_size)
    return ul_error_set(UL_ERR_INVALID_ARGUMENT, "gpu forward: token %d is outside [0, %d)", token,
                    c->vocab_size);
  if (pos < 0 || pos >= c->seq_len || pos > g->next_pos)
    return ul_error_set(UL_ERR_INVALID_ARGUMENT, "gpu forward: position %d is outside [0, %d] (seq_len %d)",
                    pos, LLM_MIN(g->next_pos, c->seq_len - 1), c->seq_len);
  ul_status s;
  /* Bound what a loss has to replay. With the CALLBACK cache nothing is a
   * LOG buffer, so this only empties the log (a refill redoes it all). */
  if (g->since_ckpt && (g->opts.kv == LLM_KV_CALLBACK ||
                        g->since_ckpt >= g->opts.checkpoint_every)) {
    if ((s = ul_device_checkpoint(g->dev))) return ul_error_wrap(s, "gpu forward: checkpoint");
    g->since_ckpt = 0;
    g->st.checkpoints++;
  }
  /* Positions past pos are forgotten (a restart); attention never reads them. */
  g->next_pos = pos;
  if (g->kv_len > pos) g->kv_len = pos;
  g->tokens[pos] = token;
  uint32_t stv[4] = {(uint32_t)pos, (uint32_t)token, 0, 0};
  memcpy(g->cur_state, stv, sizeof stv);
  if ((s = ul_buffer_write(g->dev, g->state, 0, stv, sizeof stv)))
    return ul_error_wrap(s, "gpu forward: position %d", pos);
  /* Counted before the submit: a loss found inside it refills this one too. */
  g->kv_len = pos + 1;
  if ((s = ul_cmd_submit(g->dev, g->cmd, NULL))) {
    g->kv_len = pos;
    return ul_error_wrap(s, "gpu forward: position %d", pos);
  }
  g->next_pos = pos + 1;
  g->since_ckpt++;
  g->st.tokens++;
  return UL_OK;
}

ul_status llm_gpu_read_logits(llm_gpu *g, const float **logits) {
  if (logits) *logits = NULL;
  if (!g || !logits) return ul_error_set(UL_ERR_INVALID_ARGUMENT, "gpu read logits: NULL argument");
  /* Defensive: should a refill run after the read that found the loss (as
   * unlost did before restore callbacks moved ahead of the replay), the
   * logits read were computed before it; the refill re-runs the last
   * position, so read again when one ran meanwhile. */
  ul_status s;
  for (int tries = 0;; tries++) {
    uint64_t refills = g->st.refills;
    s = ul_buffer_read(g->dev, g->logits_buf, 0, g->logits, (uint64_t)g->cfg.vocab_size * 4, 0);
    if (s || g->st.refills == refills || tries == 4) break;
  }
  if (s) return ul_error_wrap(s, "gpu forward: read logits at position %d", g->next_pos - 1);
  *logits = g->logits;
  return UL_OK;
}

ul_status llm_gpu_forward(llm_gpu *g, int32_t token, int32_t pos, const float **logits) {
  if (logits) *logits = NULL;
  ul_status s = llm_gpu_submit(g, token, pos);
  if (!s && logits) s = llm_gpu_read_logits(g, logits);
  return s;
}

void llm_gpu_get_stats(const llm_gpu *g, llm_gpu_stats *out) {
  if (!out) return;
  memset(out, 0, sizeof *out);
  if (g) *out = g->st;
}

void llm_gpu_parts(const llm_gpu *g, ul_buffer *state, ul_cmd **cmd, ul_buffer *logits,
                       int32_t *vocab) {
  *state = g->state;
  *cmd = g->cmd;
  *logits = g->logits_buf;
  *vocab = g->cfg.vocab_size;
}
