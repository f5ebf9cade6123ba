/* The reference forward pass and the samplers: a dim-2 model checked by
 * hand, an independent double-precision forward pass (RoPE, grouped KV) on a
 * random model, determinism and the greedy margin of the default model. */
#include "internal.h"
#include "llm/cpu.h"
#include "llm/gen.h"
#include "ul_test.h"

#include <limits.h>
#include <math.h>

static char tmpdir[1024];

static llm_model *open_blob(const unsigned char *data, size_t size, const char *name) {
  char path[1200];
  snprintf(path, sizeof path, "%s/%s", tmpdir, name);
  if (llm_write_file_atomic(path, data, size) != UL_OK) return NULL;
  llm_model *m = NULL;
  llm_model_open(path, &m);
  unlink(path); /* the mapping stays valid */
  return m;
}

/* A model whose tensors are filled by `fill` (id, index) -> value. */
static llm_model *make_model(const int32_t hdr[7], float (*fill)(int id, uint64_t i),
                                 const char *name) {
  llm_layout lay;
  if (llm_layout_compute(hdr, UINT64_MAX, &lay) != UL_OK) return NULL;
  unsigned char *b = calloc(1, (size_t)lay.total_bytes);
  memcpy(b, hdr, 28);
  for (int id = 0; id < LLM_TENSOR_COUNT; id++) {
    if (id == LLM_WCLS && lay.cfg.shared_classifier) continue;
    for (uint64_t i = 0; i < lay.t[id].count; i++) {
      float v = fill(id, i);
      memcpy(b + lay.t[id].offset + 4 * i, &v, 4);
    }
  }
  llm_model *m = open_blob(b, (size_t)lay.total_bytes, name);
  free(b);
  return m;
}

/* dim 2, one head (head_size 2), hidden 1, one layer, vocab 3 shared:
 *   embeddings t0 = (1, 0), t1 = (0, 2), t2 = (3, 4); rms weights 1;
 *   wq = wk = 0 (attention is uniform), wv = I, wo = 0.5 I; w1 = 0 so
 *   silu(0) = 0 and the FFN adds nothing. */
static float hand_fill(int id, uint64_t i) {
  static const float emb[6] = {1, 0, 0, 2, 3, 4};
  switch (id) {
  case LLM_TOKEN_EMBEDDING: return emb[i];
  case LLM_RMS_ATT: case LLM_RMS_FFN: case LLM_RMS_FINAL: return 1;
  case LLM_WV: return (i == 0 || i == 3) ? 1.0f : 0.0f;
  case LLM_WO: return (i == 0 || i == 3) ? 0.5f : 0.0f;
  case LLM_W2: case LLM_W3: return 7; /* multiplied by silu(0) = 0 */
  default: return 0;
  }
}

static void test_hand_checked_dim2(void) {
  const int32_t hdr[7] = {2, 1, 1, 1, 1, 3, 4};
  llm_model *m = make_model(hdr, hand_fill, "hand.bin");
  ASSERT_TRUE(m != NULL);
  llm_cpu *c = NULL;
  ASSERT_OK(llm_cpu_create(m, &c));
  const float *lg;
  /* pos 0, token 1: x = (0, 2); rmsnorm -> (0, 2 / sqrt(2.00001)) = (0, 1.414210);
   * attention over one position returns v = that; x = (0, 2 + 0.707105);
   * final rmsnorm -> (0, 1.414211); logits = E xn = (0, 2.828422, 5.656844). */
  ASSERT_OK(llm_cpu_forward(c, 1, 0, &lg));
  ASSERT_EQ_F(lg[0], 0.0, 1e-6);
  ASSERT_EQ_F(lg[1], 2.828422, 1e-4);
  ASSERT_EQ_F(lg[2], 5.656844, 1e-4);
  /* pos 1, token 2: x = (3, 4), rms = sqrt(12.5) -> xb = (0.848528, 1.131371);
   * uniform attention: mean of v0 = (0, 1.414210) and v1 -> (0.424264, 1.272790);
   * x = (3.212132, 4.636395); rms = sqrt((10.317792 + 21.496158) / 2) = 3.988357
   * -> xn = (0.805372, 1.162479); logits = (0.805372, 2.324958, 7.066032). */
  ASSERT_OK(llm_cpu_forward(c, 2, 1, &lg));
  ASSERT_EQ_F(lg[0], 0.805372, 1e-4);
  ASSERT_EQ_F(lg[1], 2.324958, 1e-4);
  ASSERT_EQ_F(lg[2], 7.066032, 1e-4);
  EXPECT_EQ(llm_argmax(lg, 3), 2);
  llm_cpu_destroy(c);
  llm_model_close(m);
}

/* ---- an independent forward pass in double precision -------------------- */

static float rand_fill(int id, uint64_t i) {
  uint64_t s = ((uint64_t)id << 32) ^ i;
  float r = llm_rng_float(&s) - 0.5f;
  if (id == LLM_RMS_ATT || id == LLM_RMS_FFN || id == LLM_RMS_FINAL)
    return 1.0f + r * 0.5f;
  return r;
}

typedef struct ref {
  int dim, hid, layers, heads, kv_heads, vocab, seq, hs, kv_dim;
  double kc[2][6][8], vc[2][6][8]; /* [layer][pos][kv_dim] */
} ref;

static void ref_rmsnorm(double *o, const double *x, const float *w, int n) {
  double ss = 0;
  for (int i = 0; i < n; i++) ss += x[i] * x[i];
  double k = 1.0 / sqrt(ss / n + 1e-5);
  for (int i = 0; i < n; i++) o[i] = w[i] * x[i] * k;
}

static void ref_mat(double *y, const float *w, const double *x, int rows, int cols) {
  for (int i = 0; i < rows; i++) {
    y[i] = 0;
    for (int j = 0; j < cols; j++) y[i] += (double)w[i * cols + j] * x[j];
  }
}

/* Rotates the pair (v[2p], v[2p+1]) of each head by pos * 10000^(-2p/hs). */
static void ref_rope(double *v, int n, int hs, int pos) {
  for (int h = 0; h < n / hs; h++)
    for (int p = 0; p < hs / 2; p++) {
      double ang = pos * pow(10000.0, -2.0 * p / hs);
      double *a = v + h * hs + 2 * p, x = a[0], y = a[1];
      a[0] = x * cos(ang) - y * sin(ang);
      a[1] = x * sin(ang) + y * cos(ang);
    }
}

static void ref_forward(ref *r, const llm_model *m, int token, int pos, double *logits) {
  double x[8], xb[8], q[8], k[8], v[8], att[8], out[8], h1[12], h3[12], t[8];
  int D = r->dim, H = r->hid, KV = r->kv_dim;
  for (int i = 0; i < D; i++) x[i] = m->token_embedding[token * D + i];
  for (int l = 0; l < r->layers; l++) {
    ref_rmsnorm(xb, x, m->rms_att + l * D, D);
    ref_mat(q, m->wq + l * D * D, xb, D, D);
    ref_mat(k, m->wk + l * KV * D, xb, KV, D);
    ref_mat(v, m->wv + l * KV * D, xb, KV, D);
    ref_rope(q, D, r->hs, pos);
    ref_rope(k, KV, r->hs, pos);
    memcpy(r->kc[l][pos], k, sizeof(double) * (size_t)KV);
    memcpy(r->vc[l][pos], v, sizeof(double) * (size_t)KV);
    for (int h = 0; h < r->heads; h++) {
      int g = h / (r->heads / r->kv_heads);
      double mx = -1e300, sum = 0;
      for (int s = 0; s <= pos; s++) {
        att[s] = 0;
        for (int i = 0; i < r->hs; i++) att[s] += q[h * r->hs + i] * r->kc[l][s][g * r->hs + i];
        att[s] /= sqrt((double)r->hs);
        if (att[s] > mx) mx = att[s];
      }
      for (int s = 0; s <= pos; s++) sum += (att[s] = exp(att[s] - mx));
      for (int i = 0; i < r->hs; i++) {
        out[h * r->hs + i] = 0;
        for (int s = 0; s <= pos; s++) out[h * r->hs + i] += att[s] / sum * r->vc[l][s][g * r->hs + i];
      }
    }
    ref_mat(t, m->wo + l * D * D, out, D, D);
    for (int i = 0; i < D; i++) x[i] += t[i];
    ref_rmsnorm(xb, x, m->rms_ffn + l * D, D);
    ref_mat(h1, m->w1 + l * H * D, xb, H, D);
    ref_mat(h3, m->w3 + l * H * D, xb, H, D);
    for (int i = 0; i < H; i++) h1[i] = h1[i] / (1 + exp(-h1[i])) * h3[i];
    ref_mat(t, m->w2 + l * D * H, h1, D, H);
    for (int i = 0; i < D; i++) x[i] += t[i];
  }
  ref_rmsnorm(xb, x, m->rms_final, D);
  ref_mat(logits, m->wcls, xb, r->vocab, D);
}

static void test_matches_double_reference(void) {
  /* dim 8, hidden 12, 2 layers, 4 heads over 2 KV heads (head_size 2), vocab
   * 7 with a separate classifier, seq_len 6. */
  const int32_t hdr[7] = {8, 12, 2, 4, 2, -7, 6};
  llm_model *m = make_model(hdr, rand_fill, "rand.bin");
  ASSERT_TRUE(m != NULL);
  ASSERT_TRUE(m->wcls != m->token_embedding);
  ref *r = calloc(1, sizeof *r);
  *r = (ref){.dim = 8, .hid = 12, .layers = 2, .heads = 4, .kv_heads = 2, .vocab = 7,
             .seq = 6, .hs = 2, .kv_dim = 4};
  llm_cpu *c = NULL;
  ASSERT_OK(llm_cpu_create(m, &c));
  const int tokens[6] = {1, 5, 0, 6, 6, 3};
  double want[7];
  double worst = 0;
  for (int pos = 0; pos < 6; pos++) {
    const float *lg;
    ASSERT_OK(llm_cpu_forward(c, tokens[pos], pos, &lg));
    ref_forward(r, m, tokens[pos], pos, want);
    for (int i = 0; i < 7; i++) {
      double d = fabs(lg[i] - want[i]);
      if (d > worst) worst = d;
      ASSERT_EQ_F(lg[i], want[i], 1e-4 * (1 + fabs(want[i])));
    }
  }
  EXPECT_TRUE(worst > 0); /* float vs double: not the same code by accident */
  /* Going back to position 2 restarts the sequence there. */
  const float *lg;
  ASSERT_OK(llm_cpu_forward(c, tokens[2], 2, &lg));
  ref_forward(r, m, tokens[2], 2, want);
  for (int i = 0; i < 7; i++) ASSERT_EQ_F(lg[i], want[i], 1e-4 * (1 + fabs(want[i])));
  ASSERT_STATUS(llm_cpu_forward(c, 1, 4, &lg), UL_ERR_INVALID_ARGUMENT); /* skips 3 */
  ASSERT_STATUS(llm_cpu_forward(c, 1, 6, &lg), UL_ERR_INVALID_ARGUMENT); /* seq_len */
  ASSERT_STATUS(llm_cpu_forward(c, 7, 3, &lg), UL_ERR_INVALID_ARGUMENT);
  ASSERT_STATUS(llm_cpu_forward(c, -1, 3, &lg), UL_ERR_INVALID_ARGUMENT);
  ASSERT_STATUS(llm_cpu_forward(c, 1, -1, &lg), UL_ERR_INVALID_ARGUMENT);
  ASSERT_TRUE(lg == NULL);
  ASSERT_STATUS(llm_cpu_forward(NULL, 1, 0, &lg), UL_ERR_INVALID_ARGUMENT);
  llm_cpu_destroy(c);
  ASSERT_STATUS(llm_cpu_create(NULL, &c), UL_ERR_INVALID_ARGUMENT);
  ASSERT_TRUE(c == NULL);
  free(r);
  llm_model_close(m);
}

/* ---- the default model --------------------------------------------------- */

typedef struct greedy_run {
  int32_t tokens[256];
  float min_margin;
  char text[4096];
} greedy_run;

static bool run_greedy(const llm_model *m, const llm_tokenizer *t, int n,
                       greedy_run *out) {
  llm_cpu *c = NULL;
  if (llm_cpu_create(m, &c) != UL_OK) return false;
  int32_t tok = LLM_TOKEN_BOS;
  size_t o = 0;
  out->min_margin = INFINITY;
  for (int pos = 0; pos < n; pos++) {
    const float *lg;
    if (llm_cpu_forward(c, tok, pos, &lg) != UL_OK) break;
    int32_t next = llm_argmax(lg, m->cfg.vocab_size);
    float second = -INFINITY;
    for (int32_t i = 0; i < m->cfg.vocab_size; i++)
      if (i != next && lg[i] > second) second = lg[i];
    if (lg[next] - second < out->min_margin) out->min_margin = lg[next] - second;
    const char *p;
    size_t pl;
    llm_tokenizer_decode(t, tok, next, &p, &pl);
    if (o + pl < sizeof out->text) {
      memcpy(out->text + o, p, pl);
      o += pl;
    }
    out->tokens[pos] = next;
    tok = next;
  }
  out->text[o] = '\0';
  llm_cpu_destroy(c);
  return true;
}

static void test_default_greedy(void) {
  char dir[1100];
  snprintf(dir, sizeof dir, "%s/cache", tmpdir);
  char mp[PATH_MAX], tp[PATH_MAX];
  ASSERT_OK(llm_gen_ensure(dir, LLM_DEFAULT_SEED, mp, tp, sizeof mp));
  llm_model *m = NULL;
  llm_tokenizer *t = NULL;
  ASSERT_OK(llm_model_open(mp, &m));
  ASSERT_OK(llm_tokenizer_open(tp, m->cfg.vocab_size, &t));
  greedy_run *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
  uint64_t t0 = ul__now_ns();
  ASSERT_TRUE(run_greedy(m, t, 200, a));
  double ms = (double)(ul__now_ns() - t0) / 1e6;
  ASSERT_TRUE(run_greedy(m, t, 200, b));
  printf("  200 greedy tokens on the CPU in %.0f ms, min top-two margin %.4f\n  %.160s...\n",
         ms, (double)a->min_margin, a->text);
  EXPECT_TRUE(memcmp(a->tokens, b->tokens, sizeof a->tokens) == 0);
  /* Pinned text: a GPU port must produce exactly these tokens. */
  ASSERT_TRUE(strncmp(a->text,
                      "the harbor. that night the keeper climbed aboard and found a small "
                      "book. one morning. the harbor every morning. she lit the keeper "
                      "walked down to the harbor.",
                      150) == 0);
  /* No top-two tie within reach of float differences. */
  EXPECT_TRUE(a->min_margin > 3e-3f);
  /* Not degenerate: many distinct words, and the last 100 tokens are not a
   * short cycle (no period p <= 20 covers them). */
  int distinct = 0;
  bool seen[512] = {false};
  for (int i = 0; i < 200; i++)
    if (!seen[a->tokens[i]]) {
      seen[a->tokens[i]] = true;
      distinct++;
    }
  EXPECT_TRUE(distinct >= 30);
  for (int p = 1; p <= 20; p++) {
    bool periodic = true;
    for (int i = 100; i + p < 200 && periodic; i++) periodic = a->tokens[i] == a->tokens[i + p];
    if (periodic) UL__FAIL_AT("greedy output has period %d", p);
  }
  free(a);
  free(b);
  llm_model_close(m);
  llm_tokenizer_free(t);
  unlink(mp);
  unlink(tp);
  rmdir(dir);
}

/* Every layer matters: zeroing one layer's attention and FFN outputs (wo,
 * w2) moves the logits of a short sequence. */
static void test_every_layer_changes_logits(void) {
  llm_blob blob;
  ASSERT_OK(llm_gen_build(LLM_DEFAULT_SEED, &blob, NULL));
  llm_model *m = open_blob(blob.data, blob.size, "full.bin");
  ASSERT_TRUE(m != NULL);
  const int32_t prompt[4] = {1, 300, 310, 320};
  float want[4][512];
  llm_cpu *c = NULL;
  ASSERT_OK(llm_cpu_create(m, &c));
  for (int pos = 0; pos < 4; pos++) {
    const float *lg;
    ASSERT_OK(llm_cpu_forward(c, prompt[pos], pos, &lg));
    memcpy(want[pos], lg, sizeof want[pos]);
  }
  llm_cpu_destroy(c);
  for (int32_t l = 0; l < m->cfg.n_layers; l++) {
    unsigned char *copy = malloc(blob.size);
    memcpy(copy, blob.data, blob.size);
    const llm_tensor_span *wo = &m->layout.t[LLM_WO], *w2 = &m->layout.t[LLM_W2];
    memset(copy + wo->offset + (uint64_t)l * wo->layer_stride * 4, 0, wo->layer_stride * 4);
    memset(copy + w2->offset + (uint64_t)l * w2->layer_stride * 4, 0, w2->layer_stride * 4);
    llm_model *ml = open_blob(copy, blob.size, "layer.bin");
    free(copy);
    ASSERT_TRUE(ml != NULL);
    ASSERT_OK(llm_cpu_create(ml, &c));
    float worst = 0;
    for (int pos = 0; pos < 4; pos++) {
      const float *lg;
      ASSERT_OK(llm_cpu_forward(c, prompt[pos], pos, &lg));
      for (int i = 0; i < 512; i++) worst = fmaxf(worst, fabsf(lg[i] - want[pos][i]));
    }
    llm_cpu_destroy(c);
    llm_model_close(ml);
    if (!(worst > 0.01f)) UL__FAIL_AT("layer %d moves the logits by only %g", l, (double)worst);
  }
  llm_model_close(m);
  llm_blob_free(&blob);
}

/* ---- samplers ------------------------------------------------------------ */

static void test_rng_and_argmax(void) {
  uint64_t s = 0;
  /* splitmix64's published first output for seed 0. */
  ASSERT_EQ_U(llm_rng_next(&s), 0xE220A8397B1DCDAFull);
  s = 7;
  for (int i = 0; i < 1000; i++) {
    float f = llm_rng_float(&s);
    ASSERT_TRUE(f >= 0.0f && f < 1.0f);
  }
  const float v[] = {1, 3, NAN, 3, -INFINITY, 2};
  EXPECT_EQ(llm_argmax(v, 6), 1);
  const float nan2[] = {NAN, NAN};
  EXPECT_EQ(llm_argmax(nan2, 2), 0);
  const float neg[] = {-5, -1, -1};
  EXPECT_EQ(llm_argmax(neg, 3), 1);
}

static void test_sampler(void) {
  enum { N = 6 };
  const float logits[N] = {0.0f, logf(3.0f), -1.0f, -2.0f, -30.0f, NAN};
  llm_sampler s1, s2, s3;
  ASSERT_OK(llm_sampler_init(&s1, N, 1.0f, 0.0f, 123));
  ASSERT_OK(llm_sampler_init(&s2, N, 1.0f, 0.0f, 123));
  ASSERT_OK(llm_sampler_init(&s3, N, 1.0f, 0.0f, 124));
  int counts[N] = {0}, differ = 0;
  for (int i = 0; i < 4000; i++) {
    int32_t a, b, c;
    ASSERT_OK(llm_sampler_sample(&s1, logits, &a));
    ASSERT_OK(llm_sampler_sample(&s2, logits, &b));
    ASSERT_OK(llm_sampler_sample(&s3, logits, &c));
    ASSERT_EQ(a, b);
    ASSERT_TRUE(a >= 0 && a < N - 1); /* never the NaN */
    counts[a]++;
    differ += a != c;
  }
  EXPECT_TRUE(differ > 100);
  /* p(1) = 3 / (1 + 3 + e^-1 + e^-2 + e^-30) = 0.6662 */
  double p1 = counts[1] / 4000.0;
  EXPECT_TRUE(p1 > 0.63 && p1 < 0.70);
  EXPECT_TRUE(counts[4] == 0);
  llm_sampler_free(&s1);
  llm_sampler_free(&s2);
  llm_sampler_free(&s3);

  /* top-p 0.85: the nucleus is {1, 0} (0.666 + 0.222 > 0.85): nothing else. */
  ASSERT_OK(llm_sampler_init(&s1, N, 1.0f, 0.85f, 5));
  int in0 = 0;
  for (int i = 0; i < 2000; i++) {
    int32_t a;
    ASSERT_OK(llm_sampler_sample(&s1, logits, &a));
    ASSERT_TRUE(a == 0 || a == 1);
    in0 += a == 0;
  }
  EXPECT_TRUE(in0 > 400 && in0 < 600); /* 0.222 / 0.888 = 0.25 */
  llm_sampler_free(&s1);

  /* Temperature 0 is argmax; bad parameters are refused. */
  ASSERT_OK(llm_sampler_init(&s1, N, 0.0f, 0.9f, 5));
  int32_t a = -1;
  ASSERT_OK(llm_sampler_sample(&s1, logits, &a));
  EXPECT_EQ(a, 1);
  llm_sampler_free(&s1);
  llm_sampler_free(&s1); /* twice is fine */
  EXPECT_EQ(llm_sampler_init(&s1, N, -1.0f, 0.9f, 5), UL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(llm_sampler_init(&s1, N, NAN, 0.9f, 5), UL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(llm_sampler_init(&s1, 0, 1.0f, 0.9f, 5), UL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(llm_sampler_sample(&s1, logits, &a), UL_ERR_INVALID_ARGUMENT);
}

int main(void) {
  ul_test_watchdog(120);
  const char *base = getenv("TMPDIR");
  snprintf(tmpdir, sizeof tmpdir, "%s/ul_llm_cpu_XXXXXX", base && *base ? base : "/tmp");
  if (!mkdtemp(tmpdir)) return 1;
  RUN_TEST(test_hand_checked_dim2);
  RUN_TEST(test_matches_double_reference);
  RUN_TEST(test_default_greedy);
  RUN_TEST(test_every_layer_changes_logits);
  RUN_TEST(test_rng_and_argmax);
  RUN_TEST(test_sampler);
  rmdir(tmpdir);
  TEST_MAIN_END();
}
