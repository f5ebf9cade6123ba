/* The reference forward pass (see cpu.h for the math, in order) and the
 * samplers. */
#include "llm/cpu.h"

#include <math.h>

static void rmsnorm(float *out, const float *x, const float *w, int32_t n) {
  float ss = 0.0f;
  for (int32_t j = 0; j < n; j++) ss += x[j] * x[j];
  ss = ss / (float)n + 1e-5f;
  ss = 1.0f / sqrtf(ss);
  for (int32_t j = 0; j < n; j++) out[j] = w[j] * (x[j] * ss);
}

/* y[rows] = W[rows][cols] x[cols] */
static void matvec(float *y, const float *w, const float *x, int32_t rows, int32_t cols) {
  for (int32_t i = 0; i < rows; i++) {
    const float *row = w + (size_t)i * (size_t)cols;
    float sum = 0.0f;
    for (int32_t j = 0; j < cols; j++) sum += row[j] * x[j];
    y[i] = sum;
  }
}

static void softmax(float *s, int32_t n) {
  float max = s[0];
  for (int32_t i = 1; i < n; i++)
    if (s[i] > max) max = s[i];
  float sum = 0.0f;
  for (int32_t i = 0; i < n; i++) {
    s[i] = expf(s[i] - max);
    sum += s[i];
  }
  for (int32_t i = 0; i < n; i++) s[i] /= sum;
}

ul_status llm_cpu_create(const llm_model *model, llm_cpu **out) {
  if (out) *out = NULL;
  if (!model || !out)
    return ul_error_set(UL_ERR_INVALID_ARGUMENT, "create cpu forward: NULL argument");
  const llm_config *p = &model->cfg;
  llm_cpu *c = calloc(1, sizeof *c);
  if (!c) goto oom;
  c->model = model;
  size_t dim = (size_t)p->dim, hid = (size_t)p->hidden_dim, kv = (size_t)p->kv_dim;
  size_t cache = (size_t)p->n_layers * (size_t)p->seq_len * kv; /* bounded by the layout checks */
  c->x = calloc(dim, sizeof(float));
  c->xb = calloc(dim, sizeof(float));
  c->xb2 = calloc(dim, sizeof(float));
  c->hb = calloc(hid, sizeof(float));
  c->hb2 = calloc(hid, sizeof(float));
  c->q = calloc(dim, sizeof(float));
  c->k = calloc(kv, sizeof(float));
  c->v = calloc(kv, sizeof(float));
  c->att = calloc((size_t)p->seq_len, sizeof(float));
  c->logits = calloc((size_t)p->vocab_size, sizeof(float));
  c->key_cache = calloc(cache, sizeof(float));
  c->value_cache = calloc(cache, sizeof(float));
  if (!c->x || !c->xb || !c->xb2 || !c->hb || !c->hb2 || !c->q || !c->k || !c->v ||
      !c->att || !c->logits || !c->key_cache || !c->value_cache)
    goto oom;
  *out = c;
  return UL_OK;
oom:
  llm_cpu_destroy(c);
  return ul_error_set(UL_ERR_OUT_OF_MEMORY, "create cpu forward: out of memory");
}

void llm_cpu_destroy(llm_cpu *c) {
  if (!c) return;
  free(c->x);
  free(c->xb);
  free(c->xb2);
  free(c->hb);
  free(c->hb2);
  free(c->q);
  free(c->k);
  free(c->v);
  free(c->att);
  free(c->logits);
  free(c->key_cache);
  free(c->value_cache);
  free(c);
}

static void rope(float *q, float *k, int32_t dim, int32_t kv_dim, int32_t head_size,
                 int32_t pos) {
  for (int32_t i = 0; i < dim; i += 2) {
    int32_t hd = i % head_size;
    float freq = 1.0f / powf(10000.0f, (float)hd / (float)head_size);
    float val = (float)pos * freq;
    float fc = cosf(val), fs = sinf(val);
    float a = q[i], b = q[i + 1];
    q[i] = a * fc - b * fs;
    q[i + 1] = a * fs + b * fc;
    if (i < kv_dim) {
      a = k[i];
      b = k[i + 1];
      k[i] = a * fc - b * fs;
      k[i + 1] = a * fs + b * fc;
    }
  }
}

ul_status llm_cpu_forward(llm_cpu *c, int32_t token, int32_t pos,
                              const float **logits) {
  if (logits) *logits = NULL;
  if (!c || !logits) return ul_error_set(UL_ERR_INVALID_ARGUMENT, "forward: NULL argument");
  const llm_model *m = c->model;
  const llm_config *p = &m->cfg;
  if (token < 0 || token >= p->vocab_size)
    return ul_error_set(UL_ERR_INVALID_ARGUMENT, "forward: token %d is outside [0, %d)", token,
                    p->vocab_size);
  if (pos < 0 || pos >= p->seq_len || pos > c->next_pos)
    return ul_error_set(UL_ERR_INVALID_ARGUMENT,
                    "forward: position %d is outside [0, %d] (seq_len %d)", pos,
                    LLM_MIN(c->next_pos, p->seq_len - 1), p->seq_len);
  const int32_t dim = p->dim, hid = p->hidden_dim, kv_dim = p->kv_dim,
                hs = p->head_size, group = p->n_heads / p->n_kv_heads;
  const size_t D = (size_t)dim, H = (size_t)hid, KV = (size_t)kv_dim,
               S = (size_t)p->seq_len;
  const float scale = 1.0f / sqrtf((float)hs);

  memcpy(c->x, m->token_embedding + (size_t)token * D, D * sizeof(float));
  for (int32_t l = 0; l < p->n_layers; l++) {
    const size_t L = (size_t)l;
    rmsnorm(c->xb, c->x, m->rms_att + L * D, dim);
    matvec(c->q, m->wq + L * D * D, c->xb, dim, dim);
    matvec(c->k, m->wk + L * KV * D, c->xb, kv_dim, dim);
    matvec(c->v, m->wv + L * KV * D, c->xb, kv_dim, dim);
    rope(c->q, c->k, dim, kv_dim, hs, pos);
    float *kc = c->key_cache + L * S * KV, *vc = c->value_cache + L * S * KV;
    memcpy(kc + (size_t)pos * KV, c->k, KV * sizeof(float));
    memcpy(vc + (size_t)pos * KV, c->v, KV * sizeof(float));

    for (int32_t h = 0; h < p->n_heads; h++) {
      const float *qh = c->q + (size_t)h * (size_t)hs;
      const size_t g = (size_t)(h / group) * (size_t)hs;
      for (int32_t t = 0; t <= pos; t++) {
        const float *kt = kc + (size_t)t * KV + g;
        float dot = 0.0f;
        for (int32_t i = 0; i < hs; i++) dot += qh[i] * kt[i];
        c->att[t] = dot * scale;
      }
      softmax(c->att, pos + 1);
      float *out = c->xb + (size_t)h * (size_t)hs;
      for (int32_t i = 0; i < hs; i++) out[i] = 0.0f;
      for (int32_t t = 0; t <= pos; t++) {
        const float *vt = vc + (size_t)t * KV + g;
        const float a = c->att[t];
        for (int32_t i = 0; i < hs; i++) out[i] += a * vt[i];
      }
    }
    matvec(c->xb2, m->wo + L * D * D, c->xb, dim, dim);
    for (int32_t i = 0; i < dim; i++) c->x[i] += c->xb2[i];

    rmsnorm(c->xb, c->x, m->rms_ffn + L * D, dim);
    matvec(c->hb, m->w1 + L * H * D, c->xb, hid, dim);
    matvec(c->hb2, m->w3 + L * H * D, c->xb, hid, dim);
    for (int32_t i = 0; i < hid; i++) {
      float z = c->hb[i];
      c->hb[i] = z * (1.0f / (1.0f + expf(-z))) * c->hb2[i];
    }
    matvec(c->xb, m->w2 + L * D * H, c->hb, dim, hid);
    for (int32_t i = 0; i < dim; i++) c->x[i] += c->xb[i];
  }
  rmsnorm(c->x, c->x, m->rms_final, dim);
  matvec(c->logits, m->wcls, c->x, p->vocab_size, dim);
  c->next_pos = pos + 1;
  *logits = c->logits;
  return UL_OK;
}

int32_t llm_argmax(const float *v, int32_t n) {
  int32_t best = -1;
  for (int32_t i = 0; i < n; i++) {
    if (isnan(v[i])) continue;
    if (best < 0 || v[i] > v[best]) best = i;
  }
  return best < 0 ? 0 : best;
}

uint64_t llm_rng_next(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

float llm_rng_float(uint64_t *state) {
  return (float)(llm_rng_next(state) >> 40) * (1.0f / 16777216.0f);
}

ul_status llm_sampler_init(llm_sampler *s, int32_t vocab_size, float temperature,
                               float topp, uint64_t seed) {
  if (!s) return ul_error_set(UL_ERR_INVALID_ARGUMENT, "sampler: NULL argument");
  memset(s, 0, sizeof *s);
  if (vocab_size < 1)
    return ul_error_set(UL_ERR_INVALID_ARGUMENT, "sampler: vocab_size %d < 1", vocab_size);
  if (!(temperature >= 0.0f) || isinf(temperature) || isnan(topp))
    return ul_error_set(UL_ERR_INVALID_ARGUMENT,
                    "sampler: temperature must be finite and >= 0, topp a number");
  s->vocab_size = vocab_size;
  s->temperature = temperature;
  s->topp = topp;
  s->rng = seed;
  s->probs = calloc((size_t)vocab_size, sizeof *s->probs);
  s->idx = calloc((size_t)vocab_size, sizeof *s->idx);
  s->tmp = calloc((size_t)vocab_size, sizeof *s->tmp);
  if (!s->probs || !s->idx || !s->tmp) {
    llm_sampler_free(s);
    return ul_error_set(UL_ERR_OUT_OF_MEMORY, "sampler: out of memory");
  }
  return UL_OK;
}

void llm_sampler_free(llm_sampler *s) {
  if (!s) return;
  free(s->probs);
  free(s->idx);
  free(s->tmp);
  s->probs = NULL;
  s->idx = s->tmp = NULL;
}

/* Sorts idx[0..n) by probs descending, index ascending on ties (merge sort,
 * so the order is fully determined). */
static void sort_by_prob(const float *probs, int32_t *idx, int32_t *tmp, int32_t n) {
  for (int32_t width = 1; width < n; width *= 2) {
    for (int32_t lo = 0; lo < n; lo += 2 * width) {
      int32_t mid = LLM_MIN(lo + width, n), hi = LLM_MIN(lo + 2 * width, n);
      int32_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi) {
        float a = probs[idx[i]], b = probs[idx[j]];
        if (a > b || (a == b && idx[i] < idx[j])) tmp[k++] = idx[i++];
        else tmp[k++] = idx[j++];
      }
      while (i < mid) tmp[k++] = idx[i++];
      while (j < hi) tmp[k++] = idx[j++];
    }
    memcpy(idx, tmp, (size_t)n * sizeof *idx);
  }
}

ul_status llm_sampler_sample(llm_sampler *s, const float *logits, int32_t *token) {
  if (!s || !logits || !token || !s->probs)
    return ul_error_set(UL_ERR_INVALID_ARGUMENT, "sample: NULL or uninitialised argument");
  const int32_t n = s->vocab_size;
  if (s->temperature == 0.0f) {
    *token = llm_argmax(logits, n);
    return UL_OK;
  }
  /* probs = softmax(logits / T); NaN logits get probability 0. */
  float max = -INFINITY;
  for (int32_t i = 0; i < n; i++)
    if (logits[i] > max) max = logits[i];
  if (!isfinite(max)) {
    *token = llm_argmax(logits, n);
    return UL_OK;
  }
  float sum = 0.0f;
  for (int32_t i = 0; i < n; i++) {
    float l = logits[i];
    s->probs[i] = isnan(l) ? 0.0f : expf((l - max) / s->temperature);
    sum += s->probs[i];
  }
  for (int32_t i = 0; i < n; i++) s->probs[i] /= sum;
  float r = llm_rng_float(&s->rng);

  if (!(s->topp > 0.0f && s->topp < 1.0f)) {
    float cdf = 0.0f;
    for (int32_t i = 0; i < n; i++) {
      cdf += s->probs[i];
      if (r < cdf) {
        *token = i;
        return UL_OK;
      }
    }
    *token = llm_argmax(s->probs, n); /* rounding left r above the cdf */
    return UL_OK;
  }
  /* Nucleus: the smallest prefix of tokens by probability whose mass exceeds
   * topp; tokens below (1 - topp) / (n - 1) cannot be in it and are skipped
   * before sorting. */
  const float cutoff = n > 1 ? (1.0f - s->topp) / (float)(n - 1) : 0.0f;
  int32_t m = 0;
  for (int32_t i = 0; i < n; i++)
    if (s->probs[i] >= cutoff) s->idx[m++] = i;
  if (m == 0) {
    *token = llm_argmax(s->probs, n);
    return UL_OK;
  }
  sort_by_prob(s->probs, s->idx, s->tmp, m);
  float mass = 0.0f;
  int32_t last = m - 1;
  for (int32_t i = 0; i < m; i++) {
    mass += s->probs[s->idx[i]];
    if (mass > s->topp) {
      last = i;
      break;
    }
  }
  float target = r * mass, cdf = 0.0f;
  for (int32_t i = 0; i <= last; i++) {
    cdf += s->probs[s->idx[i]];
    if (target < cdf) {
      *token = s->idx[i];
      return UL_OK;
    }
  }
  *token = s->idx[last];
  return UL_OK;
}
