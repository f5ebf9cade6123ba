/* Internal to unlost: the llama2.c forward pass on the GPU, through unlost's
 * public API only (include/unlost.h), checked against llm/cpu.h.
 *
 * Per token, one command list (recorded once: every per-token input lives in
 * a 16-byte `state` buffer {pos, token}) holds 2 + 5 * n_layers dispatches:
 *   embed                      x = token_embedding[token]
 *   per layer:
 *     qkv   rmsnorm(x, rms_att) fused into the matvec prologue; q, k, v in
 *           one tiled matvec over wq|wk|wv; RoPE in the epilogue (pairs of
 *           rows sit in one workgroup) from a host-computed cos/sin table
 *           (the CPU's own cosf/sinf/powf values); k and v written straight
 *           into the KV cache at pos
 *     attn  one workgroup per head: scores, softmax, weighted sum over V
 *     wo    xb -> x += wo xb                (residual in the epilogue)
 *     w13   rmsnorm(x, rms_ffn) prologue; hb = silu(w1 xb) * (w3 xb)
 *     w2    x += w2 hb
 *   cls     logits = wcls rmsnorm(x, rms_final)
 * then the logits are read back with ul_buffer_read.
 *
 * The matvec kernel is workgroup-cooperative: a workgroup of 64 invocations
 * owns 8 rows (8 invocations per row); the input vector is staged through
 * workgroup memory in tiles of 256 columns shared by the 8 rows, and the 8
 * partial sums of a row are reduced in workgroup memory.
 *
 * Restore policies (what makes the pass survive device loss):
 *   weights            SOURCE from the model file (source_path +
 *                      source_offset): no host copy; one buffer per tensor
 *                      and layer, so each stays under the binding limit
 *   rope table         SOURCE from host memory owned here (seq_len * head/2
 *                      pairs)
 *   activations,       NONE: every token's list writes them before reading
 *   logits             them, so a replayed or re-run token recomputes them
 *   KV cache           LOG (default) or CALLBACK (see llm_kv_policy)
 *   state {pos,token}  LOG with the LOG cache (the replay must see each
 *                      step's value in queue order); SHADOW with the
 *                      CALLBACK cache, where the log is emptied every token
 *                      and the re-prefill rewrites it itself. */
#ifndef UL_LLM_GPU_H
#define UL_LLM_GPU_H

#include "llm/model.h"

typedef enum llm_kv_policy {
  /* The KV cache is a LOG buffer: after a loss it comes back as the last
   * checkpoint plus a replay of the tokens run since (at most
   * checkpoint_every tokens). Costs a KV-cache download per checkpoint. */
  LLM_KV_LOG = 0,
  /* The KV cache is a CALLBACK buffer: after a loss this module re-runs
   * every position so far (re-prefill). Nothing is copied back while it
   * runs; recovery costs one forward pass per cached position. */
  LLM_KV_CALLBACK,
} llm_kv_policy;

/* "log", "callback". */
const char *llm_kv_policy_name(llm_kv_policy p);

typedef struct llm_gpu_opts {
  llm_kv_policy kv; /* 0: LOG */
  /* LOG only: ul_device_checkpoint after every this many tokens, which
   * bounds the replay after a loss. 0: 32. */
  uint32_t checkpoint_every;
} llm_gpu_opts;

typedef struct llm_gpu_stats {
  uint64_t tokens;          /* forward passes run (not counting re-prefills) */
  uint64_t checkpoints;     /* ul_device_checkpoint calls made */
  uint64_t refills;         /* CALLBACK re-prefills run */
  uint64_t refill_tokens;   /* positions re-run by them */
  double refill_ms_total;
  double last_refill_ms;
} llm_gpu_stats;

typedef struct llm_gpu llm_gpu;

/* Uploads `model` (borrowed; must outlive this; its file must stay in place
 * for SOURCE restores) to `device` and builds the pipelines and the command
 * list. opts may be NULL. UL_ERR_UNSUPPORTED when a tensor exceeds the
 * device's storage binding limit (ask for UL_LIMIT_ADAPTER), else the
 * status of the failing unlost call. On failure everything is released. */
ul_status llm_gpu_create(ul_device *device, const llm_model *model,
                             const llm_gpu_opts *opts, llm_gpu **out);
/* Destroys every object it created. NULL is a no-op. */
void llm_gpu_destroy(llm_gpu *g);

/* Runs `token` at `pos` (as llm_cpu_forward: pos <= positions run so
 * far; an earlier pos restarts from there) and, when logits is not NULL,
 * reads the logits back: *logits points at vocab_size floats owned by g,
 * valid until the next call. With logits NULL nothing waits for the GPU
 * (use for prompt tokens). */
ul_status llm_gpu_forward(llm_gpu *g, int32_t token, int32_t pos,
                              const float **logits);

/* The two halves of forward: submit the step (nothing waits), then read
 * the logits of the last submitted position. */
ul_status llm_gpu_submit(llm_gpu *g, int32_t token, int32_t pos);
ul_status llm_gpu_read_logits(llm_gpu *g, const float **logits);

void llm_gpu_get_stats(const llm_gpu *g, llm_gpu_stats *out);

/* The pieces of one decode step (for `unlost bench overhead`, which runs
 * the same step through raw webgpu.h): the per-token state buffer, the
 * recorded command list, the logits buffer and its length. */
void llm_gpu_parts(const llm_gpu *g, ul_buffer *state, ul_cmd **cmd, ul_buffer *logits,
                       int32_t *vocab);

/* WGSL sources (kernels.c). */
extern const char llm_wgsl_embed[];
extern const char llm_wgsl_qkv[];
extern const char llm_wgsl_attn[];
extern const char llm_wgsl_matvec_res[];
extern const char llm_wgsl_w13[];
extern const char llm_wgsl_cls[];

#endif
