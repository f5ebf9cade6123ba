/* The "decode" chaos workload: the main job's decode step (tools/llm, the
 * demo's model) generating a few tokens greedily on one device, its KV
 * cache a LOG buffer checkpointed every few tokens. Its expected output is
 * the CPU reference's tokens (llm/cpu.h), computed once per process. */
#include "workload.h"
#include "llm/cpu.h"
#include "llm/gen.h"
#include "llm/gpu.h"

#include <pthread.h>
#include <string.h>

#define DECODE_TOKENS 12
#define DECODE_CHECKPOINT_EVERY 4

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static llm_model *g_model;
static int32_t g_expected[DECODE_TOKENS];
static ul_status g_status;
static char g_error[256];

/* The model (generated into the cache directory on first use) and the
 * CPU's greedy tokens from BOS. */
static void decode_setup(void) {
  llm_tokenizer *tk = NULL;
  llm_cpu *cpu = NULL;
  g_status = llm_default_open(&g_model, &tk);
  if (!g_status) g_status = llm_cpu_create(g_model, &cpu);
  int32_t tok = LLM_TOKEN_BOS;
  for (int p = 0; p < DECODE_TOKENS && !g_status; p++) {
    const float *lg = NULL;
    g_status = llm_cpu_forward(cpu, tok, p, &lg);
    if (!g_status) tok = g_expected[p] = llm_argmax(lg, g_model->cfg.vocab_size);
  }
  if (g_status) snprintf(g_error, sizeof g_error, "%s", ul_last_error());
  llm_cpu_destroy(cpu);
  llm_tokenizer_free(tk);
}

ul_status workload_decode(ul_device *dev, workload_result *out) {
  memset(out, 0, sizeof *out);
  pthread_once(&g_once, decode_setup);
  if (g_status) return ul_error_set(g_status, "decode workload: the model: %s", g_error);
  memcpy(out->expected, g_expected, sizeof g_expected);
  out->expected_size = sizeof g_expected;
  llm_gpu *g = NULL;
  llm_gpu_opts o = {.kv = LLM_KV_LOG, .checkpoint_every = DECODE_CHECKPOINT_EVERY};
  ul_status s = llm_gpu_create(dev, g_model, &o, &g);
  int32_t tok = LLM_TOKEN_BOS, got[DECODE_TOKENS];
  for (int p = 0; p < DECODE_TOKENS && !s; p++) {
    const float *lg = NULL;
    s = llm_gpu_forward(g, tok, p, &lg);
    if (!s) tok = got[p] = llm_argmax(lg, g_model->cfg.vocab_size);
  }
  llm_gpu_destroy(g);
  if (s) return s;
  memcpy(out->output, got, sizeof got);
  out->output_size = sizeof got;
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < out->output_size; i++) h = (h ^ out->output[i]) * 1099511628211ull;
  out->hash = h;
  return UL_OK;
}
