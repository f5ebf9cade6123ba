/* The GPU forward pass (src/llm/gpu.c) on the real implementation (the CPU
 * adapter in CI): logits against the CPU reference within 5e-4 (cpu.h's
 * tolerance), identical greedy tokens, bit-identical tokens through forced
 * device losses with either KV-cache policy, and nothing leaked. */
#include "llm/cpu.h"
#include "llm/gen.h"
#include "llm/gpu.h"
#include "ul_test.h"

#include <math.h>

#define TOL 5e-4
#define GREEDY_STEPS 64
#define LOGIT_STEPS 40

static char tmpdir[1024];
static llm_model *g_model;

typedef struct counts {
  int lost, recovered;
} counts;

static void on_event(ul_device *d, const ul_event *e, void *user) {
  (void)d;
  counts *c = user;
  if (e->kind == UL_EVENT_LOST) c->lost++;
  if (e->kind == UL_EVENT_RECOVERED || e->kind == UL_EVENT_FALLBACK) c->recovered++;
}

static ul_device *open_device(ul_env **env, counts *c) {
  *env = NULL;
  if (ul_env_create(NULL, env)) return NULL;
  ul_device_desc dd = {.label = "llm-test", .listener = on_event, .listener_user = c};
  dd.recovery.backoff_initial_ms = 1;
  dd.recovery.backoff_max_ms = 10;
  dd.recovery.jitter_seed = 7;
  ul_device *dev = NULL;
  if (ul_device_create(*env, &dd, &dev)) {
    ul_env_destroy(*env);
    *env = NULL;
  }
  return dev;
}

static void close_device(ul_env *env, ul_device *dev) {
  ul_memory_stats ms;
  EXPECT_TRUE(ul_device_memory_stats(dev, &ms) == UL_OK);
  EXPECT_EQ(ms.live_objects, 0);
  EXPECT_EQ(ms.live_bytes, 0);
  EXPECT_TRUE(ul_device_destroy(dev) == UL_OK);
  EXPECT_TRUE(ul_env_destroy(env) == UL_OK);
}

/* Greedy tokens from BOS on the CPU reference. */
static void cpu_greedy(const llm_model *m, int steps, int32_t *out) {
  llm_cpu *c = NULL;
  if (llm_cpu_create(m, &c)) return;
  int32_t tok = LLM_TOKEN_BOS;
  for (int p = 0; p < steps; p++) {
    const float *lg;
    if (llm_cpu_forward(c, tok, p, &lg)) break;
    tok = out[p] = llm_argmax(lg, m->cfg.vocab_size);
  }
  llm_cpu_destroy(c);
}

/* GPU logits against the CPU's, position by position, both fed the same
 * (CPU-greedy) tokens; then the GPU's own greedy path. */
static void check_model(const llm_model *m, int logit_steps, int greedy_steps, double tol) {
  ul_env *env;
  counts cnt = {0};
  ul_device *dev = open_device(&env, &cnt);
  ASSERT_TRUE(dev != NULL);
  llm_gpu *g = NULL;
  llm_cpu *c = NULL;
  ul_status s = llm_gpu_create(dev, m, NULL, &g);
  if (s) fprintf(stderr, "gpu create: %s\n", ul_last_error());
  ASSERT_OK(s);
  ASSERT_OK(llm_cpu_create(m, &c));
  const int32_t V = m->cfg.vocab_size;
  double worst = 0;
  int32_t tok = LLM_TOKEN_BOS;
  float *first = calloc((size_t)V, sizeof(float));
  for (int p = 0; p < logit_steps; p++) {
    const float *lc, *lg;
    ASSERT_OK(llm_cpu_forward(c, tok, p, &lc));
    ASSERT_OK(llm_gpu_forward(g, tok, p, &lg));
    if (p == 0) memcpy(first, lg, (size_t)V * sizeof(float));
    for (int32_t i = 0; i < V; i++) {
      double d = fabs((double)lc[i] - (double)lg[i]);
      if (!(d <= worst)) worst = d; /* NaN counts as worst */
    }
    if (!(worst <= tol)) {
      UL__FAIL_AT("position %d: max |gpu - cpu| = %g > %g", p, worst, tol);
      break;
    }
    EXPECT_EQ(llm_argmax(lg, V), llm_argmax(lc, V));
    tok = llm_argmax(lc, V);
  }
  printf("  logits: %d positions, max |gpu - cpu| = %.3g (tolerance %g)\n", logit_steps, worst, tol);

  /* Greedy on the GPU from a restart at 0: same tokens as the CPU's. */
  int32_t *want = calloc((size_t)greedy_steps, sizeof(int32_t));
  cpu_greedy(m, greedy_steps, want);
  tok = LLM_TOKEN_BOS;
  for (int p = 0; p < greedy_steps; p++) {
    const float *lg;
    s = llm_gpu_forward(g, tok, p, &lg);
    if (s) break;
    if (p == 0) EXPECT_TRUE(memcmp(first, lg, (size_t)V * sizeof(float)) == 0);
    tok = llm_argmax(lg, V);
    if (tok != want[p]) {
      UL__FAIL_AT("greedy token %d: gpu %d, cpu %d", p, tok, want[p]);
      break;
    }
  }
  EXPECT_TRUE(s == UL_OK);
  EXPECT_EQ(cnt.lost, 0);
  free(want);
  free(first);
  llm_cpu_destroy(c);
  llm_gpu_destroy(g);
  close_device(env, dev);
}

static void test_default_model_matches_cpu(void) {
  ASSERT_TRUE(g_model != NULL);
  check_model(g_model, LOGIT_STEPS, GREEDY_STEPS, TOL);
}

/* Random weights in [-a, a] from a fixed LCG. */
static uint64_t lcg = 12345;
static float rnd(float a) {
  lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
  return ((float)(lcg >> 40) / 16777216.0f * 2.0f - 1.0f) * a;
}

/* Shapes that exercise the edges: rows not a multiple of the 8-row tile
 * (vocab 37), inputs longer than one 256-column tile (hidden 300), head
 * size 12, grouped KV, shared classifier. */
static void test_odd_shapes_match_cpu(void) {
  const int32_t hdr[7] = {48, 300, 2, 4, 2, 37, 24};
  llm_layout lay;
  ASSERT_OK(llm_layout_compute(hdr, UINT64_MAX, &lay));
  unsigned char *b = calloc(1, (size_t)lay.total_bytes);
  ASSERT_TRUE(b != NULL);
  memcpy(b, hdr, 28);
  for (int id = 0; id < LLM_TENSOR_COUNT; id++) {
    if (id == LLM_WCLS && lay.cfg.shared_classifier) continue;
    bool norm = id == LLM_RMS_ATT || id == LLM_RMS_FFN || id == LLM_RMS_FINAL;
    for (uint64_t i = 0; i < lay.t[id].count; i++) {
      float v = norm ? 1.0f + rnd(0.2f) : rnd(id == LLM_TOKEN_EMBEDDING ? 1.0f : 0.25f);
      memcpy(b + lay.t[id].offset + 4 * i, &v, 4);
    }
  }
  char path[1200];
  snprintf(path, sizeof path, "%s/odd.bin", tmpdir);
  ul_status s = llm_write_file_atomic(path, b, (size_t)lay.total_bytes);
  free(b);
  ASSERT_OK(s);
  llm_model *m = NULL;
  ASSERT_OK(llm_model_open(path, &m));
  check_model(m, 24, 24, TOL);
  llm_model_close(m);
  unlink(path);
}

/* Greedy generation with device losses forced at steps `at`. */
static int run_with_losses(llm_kv_policy kv, const int *at, int n_at, int steps,
                           int32_t *out, counts *cnt) {
  ul_env *env;
  ul_device *dev = open_device(&env, cnt);
  if (!dev) return -1;
  llm_gpu *g = NULL;
  llm_gpu_opts o = {.kv = kv, .checkpoint_every = 16};
  int rc = 0;
  if (llm_gpu_create(dev, g_model, &o, &g)) {
    fprintf(stderr, "gpu create: %s\n", ul_last_error());
    rc = -1;
  }
  int32_t tok = LLM_TOKEN_BOS;
  int next = 0;
  for (int p = 0; p < steps && !rc; p++) {
    /* Alternately before the step and with the step's work in flight. */
    bool lose = next < n_at && at[next] == p;
    int where = lose ? next % 2 : -1;
    if (lose) next++;
    const float *lg = NULL;
    if (where == 0 && ul_device_force_loss(dev, "test: before the step")) rc = -1;
    if (!rc && llm_gpu_submit(g, tok, p)) rc = -1;
    if (!rc && where == 1 && ul_device_force_loss(dev, "test: step in flight")) rc = -1;
    if (!rc && llm_gpu_read_logits(g, &lg)) rc = -1;
    if (rc) {
      fprintf(stderr, "step %d: %s\n", p, ul_last_error());
      break;
    }
    tok = out[p] = llm_argmax(lg, g_model->cfg.vocab_size);
  }
  llm_gpu_destroy(g);
  close_device(env, dev);
  return rc;
}

static void check_losses(llm_kv_policy kv) {
  ASSERT_TRUE(g_model != NULL);
  int32_t clean[GREEDY_STEPS], lossy[GREEDY_STEPS];
  counts c0 = {0}, c1 = {0};
  const int at[] = {3, 17, 30, 47, 63};
  ASSERT_EQ(run_with_losses(kv, NULL, 0, GREEDY_STEPS, clean, &c0), 0);
  ASSERT_EQ(run_with_losses(kv, at, 5, GREEDY_STEPS, lossy, &c1), 0);
  EXPECT_EQ(c0.lost, 0);
  EXPECT_EQ(c1.lost, 5);
  EXPECT_EQ(c1.recovered, 5);
  for (int p = 0; p < GREEDY_STEPS; p++)
    if (clean[p] != lossy[p]) {
      UL__FAIL_AT("kv %s: token %d differs after losses: %d vs %d", llm_kv_policy_name(kv), p,
                  lossy[p], clean[p]);
      return;
    }
}

static void test_losses_log_policy(void) { check_losses(LLM_KV_LOG); }
static void test_losses_callback_policy(void) { check_losses(LLM_KV_CALLBACK); }

int main(void) {
  ul_test_watchdog(240);
  const char *base = getenv("TMPDIR");
  snprintf(tmpdir, sizeof tmpdir, "%s/ul_llm_gpu_XXXXXX", base && *base ? base : "/tmp");
  if (!mkdtemp(tmpdir)) return 1;
  llm_tokenizer *tk = NULL;
  if (llm_default_open(&g_model, &tk)) {
    fprintf(stderr, "default model: %s\n", ul_last_error());
    return 1;
  }
  RUN_TEST(test_default_model_matches_cpu);
  RUN_TEST(test_odd_shapes_match_cpu);
  RUN_TEST(test_losses_log_policy);
  RUN_TEST(test_losses_callback_policy);
  llm_tokenizer_free(tk);
  llm_model_close(g_model);
  rmdir(tmpdir);
  TEST_MAIN_END();
}
