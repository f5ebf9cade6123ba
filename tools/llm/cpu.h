/* Internal to unlost: the reference forward pass on the CPU, and samplers.
 *
 * The GPU version is checked against this one, so the math is written out
 * here, in the order the code does it (float32 throughout; every sum runs
 * over ascending index in one float accumulator):
 *
 *   x = token_embedding[token]                                  [dim]
 *   for each layer l:
 *     xb = rmsnorm(x, rms_att[l])
 *     q = wq[l] xb, k = wk[l] xb, v = wv[l] xb                  matvec: y_i = sum_j W_ij x_j
 *     rope(q, k, pos)
 *     key_cache[l][pos] = k, value_cache[l][pos] = v
 *     for each head h (kv head g = h / (n_heads / n_kv_heads)):
 *       s_t = dot(q_h, k_g[t]) / sqrtf(head_size)      t = 0..pos
 *       a = softmax(s)
 *       xb_h = sum_t a_t * v_g[t]                        (t ascending)
 *     x = x + wo[l] xb
 *     xb = rmsnorm(x, rms_ffn[l])
 *     hb = silu(w1[l] xb) * (w3[l] xb)                   silu(z) = z / (1 + expf(-z))
 *     x = x + w2[l] hb
 *   logits = wcls rmsnorm(x, rms_final)                         [vocab]
 *
 *   rmsnorm(x, w)_i = w_i * (x_i * (1 / sqrtf(sum_j x_j^2 / dim + 1e-5)))
 *   softmax(s)_t = expf(s_t - max s) / sum_u expf(s_u - max s)
 *   rope: for i = 0, 2, .. dim-2: f = 1 / powf(10000, (i % head_size) /
 *     (float)head_size), c = cosf(pos * f), s = sinf(pos * f);
 *     (a, b) = (q_i, q_i+1) -> (a c - b s, a s + b c); the same for k when
 *     i < kv_dim.
 *
 * Tolerance for a GPU port: every logit within 5e-4 of this one on the
 * default model (its logits stay within +-20), and greedy tokens identical:
 * its greedy path from BOS keeps a top-two margin above 3e-3 (tested in
 * tests/test_llm_cpu.c), more than twice that tolerance. */
#ifndef UL_LLM_CPU_H
#define UL_LLM_CPU_H

#include "llm/model.h"

typedef struct llm_cpu {
  const llm_model *model; /* borrowed; must outlive this */
  int32_t next_pos;           /* positions [0, next_pos) are in the cache */
  float *x, *xb, *xb2, *hb, *hb2, *q, *k, *v, *att, *logits;
  float *key_cache, *value_cache; /* [n_layers][seq_len][kv_dim] */
} llm_cpu;

/* Allocates the activations and the KV cache for `model` (borrowed). */
ul_status llm_cpu_create(const llm_model *model, llm_cpu **out);
/* NULL is a no-op. */
void llm_cpu_destroy(llm_cpu *c);

/* Runs `token` at position `pos` and points *logits at vocab_size floats
 * owned by c (valid until the next call). Positions must be fed in order:
 * pos <= the number of positions already run (an earlier pos restarts the
 * sequence from there). UL_ERR_INVALID_ARGUMENT for a token or position out
 * of range. */
ul_status llm_cpu_forward(llm_cpu *c, int32_t token, int32_t pos,
                              const float **logits);

/* Index of the largest value; the lowest index wins ties; NaNs are skipped
 * (0 when all are NaN or n <= 0). */
int32_t llm_argmax(const float *v, int32_t n);

/* Deterministic PRNG (splitmix64): same seed, same stream, on any machine. */
uint64_t llm_rng_next(uint64_t *state);
/* Uniform float in [0, 1) with 24 random bits (exact, no libm). */
float llm_rng_float(uint64_t *state);

/* Temperature + top-p sampler. temperature 0 is greedy (argmax);
 * topp outside (0, 1) samples from the whole distribution. */
typedef struct llm_sampler {
  int32_t vocab_size;
  float temperature, topp;
  uint64_t rng; /* state; the stream is reproducible from the seed */
  float *probs;      /* [vocab] scratch */
  int32_t *idx, *tmp; /* [vocab] scratch for top-p */
} llm_sampler;

ul_status llm_sampler_init(llm_sampler *s, int32_t vocab_size, float temperature,
                               float topp, uint64_t seed);
/* Frees the scratch; a zeroed sampler is fine. */
void llm_sampler_free(llm_sampler *s);
/* Picks the next token from logits[0..vocab_size) (not modified). */
ul_status llm_sampler_sample(llm_sampler *s, const float *logits, int32_t *token);

#endif
