/* A real workload on webgpu.h alone (issue 38): the built-in model of
 * `unlost demo` (tools/llm's llm_default_open) decoding greedily from BOS,
 * one submission and one buffer map per token (tests/webgpu/decode_core.h),
 * checked against the CPU reference (llm/cpu.h): every token identical and
 * every logit within 5e-4 (cpu.h's tolerance for a GPU port). The digest
 * covers every logit read back and the tokens, so a run under faults must
 * give the clean run's bits, not only its tokens.
 *
 * 48 tokens by default, 48 * WGPU_PROG_SCALE, or WGPU_DECODE_TOKENS
 * (1..seq_len); the model file is made in unlost's cache directory on
 * first use (UNLOST_CACHE_DIR, see llm/gen.h). */
#include "wgpu_prog.h"

#include "decode_core.h"
#include "llm/gen.h"

#define DECODE_TOKENS 48
#define LOGIT_TOLERANCE 5e-4f

static llm_model *model;
static int32_t ntokens;
static int32_t *want_tokens;
static float *want_logits; /* [ntokens][vocab], the CPU's */
static dc_api api;

typedef struct seen {
  wp_ctx *c;
  float worst; /* the largest |GPU - CPU| logit so far */
  int32_t worst_pos;
} seen;

static void on_logits(void *user, int32_t pos, const float *logits) {
  seen *s = user;
  const int32_t v = model->cfg.vocab_size;
  wp_digest(s->c, logits, (size_t)v * 4);
  const float *want = want_logits + (size_t)pos * (size_t)v;
  for (int32_t i = 0; i < v; i++) {
    float diff = fabsf(logits[i] - want[i]);
    if (!(diff <= s->worst)) { /* NaN counts as the worst */
      s->worst = isnan(diff) ? INFINITY : diff;
      s->worst_pos = pos;
    }
  }
}

static bool run(wp_ctx *c) {
  dc_decoder d;
  int32_t *got = wp_alloc(sizeof(int32_t) * (size_t)ntokens);
  seen s = {c, 0.0f, -1};
  bool ok = dc_open(&d, &api, c->instance, c->device, c->queue, model);
  if (!ok) fprintf(stderr, "%s: %s\n", c->name, d.why);
  ok = ok && dc_decode(&d, ntokens, got, on_logits, &s);
  if (!ok && d.why[0] && d.a) fprintf(stderr, "%s: %s\n", c->name, d.why);
  dc_close(&d);
  if (ok) {
    wp_digest(c, got, sizeof(int32_t) * (size_t)ntokens);
    printf("tokens");
    for (int32_t i = 0; i < ntokens; i++) printf(" %d", got[i]);
    printf("\n");
    for (int32_t i = 0; i < ntokens && ok; i++)
      if (got[i] != want_tokens[i]) {
        printf("mismatch in the tokens at position %d: got %d, the CPU's %d\n", i, got[i], want_tokens[i]);
        ok = false;
      }
    if (ok && !(s.worst <= LOGIT_TOLERANCE)) {
      printf("mismatch in the logits at position %d: %g from the CPU's (tolerance %g)\n", s.worst_pos,
             (double)s.worst, (double)LOGIT_TOLERANCE);
      ok = false;
    }
    if (ok) fprintf(stderr, "%s: %d tokens equal to the CPU's, logits within %g\n", c->name, ntokens, (double)s.worst);
  }
  free(got);
  return ok;
}

int main(int argc, char **argv) {
  wp_ctx c;
  int rc = wp_start(&c, "decode", argc, argv);
  if (rc) return wp_end(&c, rc);
  llm_tokenizer *tok = NULL;
  if (llm_default_open(&model, &tok) != UL_OK) {
    fprintf(stderr, "decode: cannot open the built-in model (the cache directory: UNLOST_CACHE_DIR)\n");
    return wp_end(&c, WP_FAIL);
  }
  llm_tokenizer_free(tok);
  ntokens = DECODE_TOKENS * (int32_t)c.scale;
  const char *env = getenv("WGPU_DECODE_TOKENS");
  unsigned n = 0;
  if (env && *env) {
    if (!wp_parse_count(env, (unsigned)model->cfg.seq_len, &n)) {
      fprintf(stderr, "decode: WGPU_DECODE_TOKENS must be a whole number from 1 to %d, not \"%s\"\n",
              model->cfg.seq_len, env);
      llm_model_close(model);
      return wp_end(&c, WP_USAGE);
    }
    ntokens = (int32_t)n;
  }
  if (ntokens > model->cfg.seq_len) ntokens = model->cfg.seq_len;
  want_tokens = wp_alloc(sizeof(int32_t) * (size_t)ntokens);
  want_logits = wp_alloc(sizeof(float) * (size_t)ntokens * (size_t)model->cfg.vocab_size);
  if (!dc_cpu_decode(model, ntokens, want_tokens, want_logits)) {
    fprintf(stderr, "decode: the CPU reference failed\n");
    rc = WP_FAIL;
  }
  dc_api_linked(&api);
  if (!rc) rc = wp_open_device(&c, NULL, 0, NULL);
  if (!rc) rc = wp_main(&c, run);
  else rc = wp_end(&c, rc);
  free(want_logits);
  free(want_tokens);
  llm_model_close(model);
  return rc;
}
