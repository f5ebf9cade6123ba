/* unlost demo: the built-in model generates text on the GPU while the device
 * is lost on purpose, and the text comes out the same as without the losses
 * and as the CPU reference's. */
#include "cli.h"
#include "llm/cpu.h"
#include "llm/gen.h"
#include "llm/gpu.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define DEMO_MAX_LOSSES 64

static void demo_usage(FILE *f) {
  fprintf(f,
          "usage: unlost demo [--losses K] [--seed S] [--steps N] [--kv log|callback]\n"
          "                   [--json [FILE]]\n"
          "\n"
          "Generates text greedily with the built-in model on the GPU through unlost,\n"
          "loses the device K times at random steps (wgpuDeviceForceLoss, as a driver\n"
          "reset would), and checks that the tokens equal a clean run's and the CPU\n"
          "reference's, and that nothing leaked.\n"
          "\n"
          "  --losses K     device losses to inject (default 3, at most %d)\n"
          "  --seed S       seed of the steps the losses happen at (default 1)\n"
          "  --steps N      tokens to generate (default 120, at most 256)\n"
          "  --kv POLICY    how the KV cache survives a loss: 'log' (default:\n"
          "                 checkpoint + replay of the operation log) or 'callback'\n"
          "                 (re-run every cached position after the loss)\n"
          "  --checkpoint-every N\n"
          "                 with 'log': checkpoint every N tokens (default 32),\n"
          "                 which bounds the replay after a loss\n"
          "  --json [FILE]  also write the results as JSON to FILE (none or '-': stdout)\n"
          "  -h, --help     this help\n"
          "\n"
          "A progress line (tokens, tokens/s, losses) is shown when stdout is a\n"
          "terminal, and each injected loss as a mark in the text: \u27f2 and the\n"
          "time the step took beyond an ordinary one (dim unless NO_COLOR is set).\n"
          "unlost's warnings about the losses the demo injects are not shown (the\n"
          "summary counts them); any other line of its log is, on a line of its own\n"
          "(on stderr; UNLOST_LOG=error|none hides it).\n"
          "\n"
          "Exit status: 0 when every loss was recovered, the tokens equal the clean\n"
          "run's and the CPU reference's and nothing leaked; 1 otherwise (or on an\n"
          "error); 2 on a usage error.\n",
          DEMO_MAX_LOSSES);
}

static double mono_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

typedef struct demo_events {
  int lost, recovered, failed;
  double event_ms[DEMO_MAX_LOSSES]; /* since_loss_ms at RECOVERED */
} demo_events;

static void demo_listener(ul_device *d, const ul_event *e, void *user) {
  (void)d;
  demo_events *ev = user;
  switch (e->kind) {
  case UL_EVENT_LOST: ev->lost++; break;
  case UL_EVENT_RECOVERED:
  case UL_EVENT_FALLBACK:
    if (ev->recovered < DEMO_MAX_LOSSES) ev->event_ms[ev->recovered] = e->since_loss_ms;
    ev->recovered++;
    break;
  case UL_EVENT_FAILED: ev->failed++; break;
  default: break;
  }
}


/* Text output: the pieces as they come; on a terminal, lines are wrapped
 * and the line being written is redrawn with the progress after it. */
typedef struct demo_out {
  bool tty;
  bool color;       /* dim marks and progress (a terminal, NO_COLOR unset) */
  int wrap;
  char line[512];   /* the line being written (bytes, marks' escapes included) */
  size_t len;
  int col;          /* its width in columns */
  bool mid_line;    /* not a terminal: text written since the last newline */
  bool err_same;    /* stderr is the same file as stdout */
  bool err_tty;     /* stderr is a terminal */
  char *all; /* the whole text, for --json */
  size_t all_len, all_cap;
  /* The library's log, through ul_set_log_callback: lines about the
   * losses the demo injects are counted, not shown; others are shown on
   * a line of their own. mu orders them with the text (they may come
   * from unlost's own threads). */
  pthread_mutex_t mu;
  int log_expected, log_other;
} demo_out;

/* The text the demo gives ul_device_force_loss: a loss line carrying it is
 * one the demo injected. */
#define DEMO_INJECTED "demo: injected"

static void out_append_all(demo_out *o, const char *p, size_t n) {
  if (o->all_len + n + 1 > o->all_cap) {
    size_t cap = (o->all_len + n + 1) * 2;
    char *a = realloc(o->all, cap);
    if (!a) return;
    o->all = a;
    o->all_cap = cap;
  }
  memcpy(o->all + o->all_len, p, n);
  o->all_len += n;
  o->all[o->all_len] = 0;
}

static void out_redraw(demo_out *o, const char *progress) {
  printf("\r\033[K%.*s", (int)o->len, o->line);
  if (progress) printf(o->color ? "  \033[2m%s\033[0m" : "  %s", progress);
  fflush(stdout);
}

static void out_flush_line(demo_out *o) {
  printf("\r\033[K%.*s\n", (int)o->len, o->line);
  o->len = 0;
  o->col = 0;
}

/* A mark of the demo's own in the line (a terminal only): bytes that take
 * `cols` columns; not part of the text. */
static void out_mark(demo_out *o, const char *bytes, int cols, const char *progress) {
  if (!o->tty) return;
  pthread_mutex_lock(&o->mu);
  size_t n = strlen(bytes);
  if (o->col + cols > o->wrap || o->len + n + 1 >= sizeof o->line) out_flush_line(o);
  if (o->len + n + 1 < sizeof o->line) {
    memcpy(o->line + o->len, bytes, n);
    o->len += n;
    o->col += cols;
  }
  out_redraw(o, progress);
  pthread_mutex_unlock(&o->mu);
}

static void demo_log(const ul_log_line *l, void *user) {
  static const char *names[] = {"error", "warn", "info", "debug"};
  demo_out *o = user;
  pthread_mutex_lock(&o->mu);
  if (l->level == UL_LOG_WARN && l->device && !strcmp(l->device, "demo") &&
      strstr(l->message, DEMO_INJECTED)) {
    o->log_expected++;
    pthread_mutex_unlock(&o->mu);
    return;
  }
  o->log_other++;
  /* On a line of its own: the progress line cleared first and drawn
   * again after it; in a pipe, a newline ends the text's line first where
   * the two meet (the same file, or stderr on a terminal). */
  bool nl = false;
  if (o->tty) {
    printf("\r\033[K");
    fflush(stdout);
  } else if (o->mid_line && o->err_same) {
    printf("\n");
    fflush(stdout);
    o->mid_line = false;
  } else if (o->mid_line && o->err_tty) {
    nl = true;
  }
  const char *lv = (unsigned)l->level < 4 ? names[l->level] : "log";
  fprintf(stderr, "%sunlost %s: %s\n", nl ? "\n" : "", lv, l->message);
  fflush(stderr);
  if (o->tty) out_redraw(o, NULL);
  pthread_mutex_unlock(&o->mu);
}

static void out_piece(demo_out *o, const char *p, size_t n, const char *progress) {
  /* Skip lone unprintable bytes (llama2.c's safe_printf). */
  if (n == 0 || (n == 1 && !isprint((unsigned char)p[0]) && !isspace((unsigned char)p[0]))) return;
  pthread_mutex_lock(&o->mu);
  out_append_all(o, p, n);
  if (!o->tty) {
    fwrite(p, 1, n, stdout);
    fflush(stdout);
    o->mid_line = p[n - 1] != '\n';
    pthread_mutex_unlock(&o->mu);
    return;
  }
  for (size_t i = 0; i < n; i++) {
    char ch = p[i];
    bool brk = ch == '\n' || (ch == ' ' && o->col >= o->wrap) || o->len + 1 >= sizeof o->line;
    if (brk) {
      out_flush_line(o);
      if (ch == '\n' || ch == ' ') continue;
    }
    o->line[o->len++] = ch;
    if (((unsigned char)ch & 0xC0) != 0x80) o->col++; /* not a UTF-8 continuation byte */
  }
  out_redraw(o, progress);
  pthread_mutex_unlock(&o->mu);
}

static void out_finish(demo_out *o) {
  pthread_mutex_lock(&o->mu);
  if (o->tty) out_flush_line(o);
  else printf("\n");
  o->mid_line = false;
  fflush(stdout);
  pthread_mutex_unlock(&o->mu);
}

typedef struct demo_run {
  int32_t *tokens;
  double seconds;
  double step_ms_sum;
  int steps_done;
} demo_run;

int cmd_demo(int argc, char **argv) {
  uint64_t losses = 3, seed = 1, steps = 120, ckpt = 32;
  const char *json = NULL;
  llm_kv_policy kv = LLM_KV_LOG;
  const char *kv_name = "log";
  const cli_opt opts[] = {{"losses", CLI_U64, &losses, .hi = DEMO_MAX_LOSSES},
                          {"seed", CLI_U64, &seed, .hi = INT64_MAX}, /* --json: signed */
                          {"steps", CLI_U64, &steps, .lo = 1, .hi = LLM_GEN_SEQ_LEN},
                          {"checkpoint-every", CLI_U64, &ckpt, .lo = 1, .hi = 100000},
                          CLI_O("json", CLI_JSON, &json),
                          CLI_O("kv", CLI_TEXT, &kv_name),
                          {0}};
  int prc = cli_parse("demo", argc, argv, opts, CLI_NO_OPERANDS, demo_usage, NULL);
  if (prc) return prc == 1 ? 0 : 2;
  if (json && !cli_json_available("unlost demo")) return 2;
  if (strcmp(kv_name, "log") && strcmp(kv_name, "callback")) {
    fprintf(stderr, "unlost demo: --kv: '%s' is not log or callback\n", kv_name);
    return 2;
  }
  kv = !strcmp(kv_name, "log") ? LLM_KV_LOG : LLM_KV_CALLBACK;
  const int N = (int)steps;
  if (losses >= steps) {
    fprintf(stderr, "unlost demo: --losses %llu needs more than that many --steps\n",
            (unsigned long long)losses);
    return 2;
  }

  /* The steps the device is lost at (distinct, in 1..N-1), and where: before
   * the step, or with the step's work in flight (between submit and read). */
  int loss_step[DEMO_MAX_LOSSES], loss_where[DEMO_MAX_LOSSES];
  uint64_t rng = seed;
  for (int k = 0; k < (int)losses; k++) {
    int s;
    bool dup;
    do {
      s = 1 + (int)(llm_rng_next(&rng) % (uint64_t)(N - 1));
      dup = false;
      for (int j = 0; j < k; j++) dup |= loss_step[j] == s;
    } while (dup);
    loss_step[k] = s;
  }
  for (int k = 0; k < (int)losses; k++) /* sort */
    for (int j = k + 1; j < (int)losses; j++)
      if (loss_step[j] < loss_step[k]) {
        int t = loss_step[j];
        loss_step[j] = loss_step[k];
        loss_step[k] = t;
      }
  for (int k = 0; k < (int)losses; k++) loss_where[k] = (int)(llm_rng_next(&rng) & 1);

  int rc = 1;
  llm_model *model = NULL;
  llm_tokenizer *tok = NULL;
  llm_cpu *cpu = NULL;
  ul_env *env = NULL;
  ul_device *dev = NULL;
  llm_gpu *gpu = NULL;
  demo_events ev = {0};
  demo_out out = {0};
  pthread_mutex_init(&out.mu, NULL);
  out.tty = isatty(STDOUT_FILENO);
  out.color = out.tty && !(getenv("NO_COLOR") && getenv("NO_COLOR")[0]);
  out.err_tty = isatty(STDERR_FILENO);
  {
    struct stat so, se;
    out.err_same = fstat(STDOUT_FILENO, &so) == 0 && fstat(STDERR_FILENO, &se) == 0 &&
                   so.st_dev == se.st_dev && so.st_ino == se.st_ino;
  }
  /* From here on the library's log goes through demo_log (back to stderr
   * at the end). */
  ul_set_log_callback(demo_log, &out);
  int32_t *cpu_tokens = calloc((size_t)N, sizeof(int32_t));
  demo_run clean = {calloc((size_t)N, sizeof(int32_t)), 0, 0, 0};
  demo_run lossy = {calloc((size_t)N, sizeof(int32_t)), 0, 0, 0};
  double recovery_ms[DEMO_MAX_LOSSES] = {0};
  int recoveries_seen = 0;
  ul_memory_stats ms = {0};
  bool leak_checked = false;
  llm_gpu_stats gst = {0};
  ul_adapter_info ai = {0};
  char err[1024] = "";
  if (!cpu_tokens || !clean.tokens || !lossy.tokens) {
    snprintf(err, sizeof err, "out of memory");
    goto done;
  }

#define DEMO_TRY(call, what)                                                  \
  do {                                                                        \
    if ((call) != UL_OK) {                                                    \
      snprintf(err, sizeof err, "%s: %s", what, ul_last_error());             \
      goto done;                                                              \
    }                                                                         \
  } while (0)

  DEMO_TRY(llm_default_open(&model, &tok), "open the built-in model");
  const int32_t V = model->cfg.vocab_size;

  /* The CPU reference, greedy from BOS. */
  DEMO_TRY(llm_cpu_create(model, &cpu), "cpu reference");
  {
    int32_t t = LLM_TOKEN_BOS;
    for (int p = 0; p < N; p++) {
      const float *lg;
      DEMO_TRY(llm_cpu_forward(cpu, t, p, &lg), "cpu reference");
      t = cpu_tokens[p] = llm_argmax(lg, V);
    }
  }

  DEMO_TRY(ul_env_create(NULL, &env), "load WebGPU");
  ul_device_desc dd = {.label = "demo", .listener = demo_listener, .listener_user = &ev};
  dd.recovery.jitter_seed = seed;
  DEMO_TRY(ul_device_create(env, &dd, &dev), "create the device");
  ul_device_adapter_info(dev, &ai);
  llm_gpu_opts go = {.kv = kv, .checkpoint_every = (uint32_t)ckpt};
  DEMO_TRY(llm_gpu_create(dev, model, &go, &gpu), "upload the model");

  printf("unlost demo: built-in model (dim %d, %d layers, %d heads, vocab %d) on %s (%s, %s)\n",
         model->cfg.dim, model->cfg.n_layers, model->cfg.n_heads, V, ai.name,
         ul_backend_name(ai.backend), ul_adapter_type_name(ai.type));
  printf("KV cache restore: %s; %d tokens; %d device loss%s at step", llm_kv_policy_name(kv),
         N, (int)losses, losses == 1 ? "" : "es");
  for (int k = 0; k < (int)losses; k++) printf("%s %d", k ? "," : "", loss_step[k]);
  if (!losses) printf("s: none");
  printf(" (seed %llu)\n\n", (unsigned long long)seed);
  fflush(stdout);

  /* 1. The clean run (silent), which also times an ordinary step. */
  {
    double t0 = mono_ms();
    int32_t t = LLM_TOKEN_BOS;
    for (int p = 0; p < N; p++) {
      const float *lg;
      DEMO_TRY(llm_gpu_forward(gpu, t, p, &lg), "clean run");
      t = clean.tokens[p] = llm_argmax(lg, V);
    }
    clean.seconds = (mono_ms() - t0) / 1e3;
    clean.steps_done = N;
  }
  const double step_ms = clean.seconds * 1e3 / N;

  /* 2. The run with losses, streamed. */
  out.wrap = 72;
  if (out.tty) {
    struct winsize ws;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
      out.wrap = ws.ws_col - 48 < 20 ? 20 : ws.ws_col - 48 > 72 ? 72 : ws.ws_col - 48;
  }
  {
    double t0 = mono_ms();
    int32_t t = LLM_TOKEN_BOS, prev = LLM_TOKEN_BOS;
    int next = 0;
    for (int p = 0; p < N; p++) {
      bool lose = next < (int)losses && loss_step[next] == p;
      int where = lose ? loss_where[next] : -1;
      double ts = mono_ms();
      const float *lg;
      if (where == 0) DEMO_TRY(ul_device_force_loss(dev, DEMO_INJECTED " before a step"), "force a loss");
      DEMO_TRY(llm_gpu_submit(gpu, t, p), "generate");
      if (where == 1) DEMO_TRY(ul_device_force_loss(dev, DEMO_INJECTED " with a step in flight"), "force a loss");
      DEMO_TRY(llm_gpu_read_logits(gpu, &lg), "generate");
      const char *piece;
      size_t plen;
      char progress[160];
      double el = (mono_ms() - t0) / 1e3;
      snprintf(progress, sizeof progress, "[%d/%d tokens, %.0f tok/s, losses %d/%d]", p + 1, N,
               el > 0 ? (p + 1) / el : 0.0, ev.recovered, (int)losses);
      if (lose) {
        double extra = mono_ms() - ts - step_ms;
        recovery_ms[next] = extra > 0 ? extra : 0;
        /* " ⟲ 438 ms": the step's piece follows the mark. */
        char mark[64], num[32];
        int w = snprintf(num, sizeof num, "%.0f ms", recovery_ms[next]);
        snprintf(mark, sizeof mark, out.color ? " \033[2m\u27f2 %s\033[0m" : " \u27f2 %s", num);
        out_mark(&out, mark, 3 + w, progress);
        next++;
      }
      t = lossy.tokens[p] = llm_argmax(lg, V);
      if (llm_tokenizer_decode(tok, prev, t, &piece, &plen) == UL_OK)
        out_piece(&out, piece, plen, out.tty ? progress : NULL);
      prev = t;
      lossy.steps_done = p + 1;
    }
    lossy.seconds = (mono_ms() - t0) / 1e3;
    recoveries_seen = next;
  }
  out_finish(&out);
  llm_gpu_get_stats(gpu, &gst);

  /* 3. Everything this demo created is destroyed: the tracker must be empty. */
  llm_gpu_destroy(gpu);
  gpu = NULL;
  DEMO_TRY(ul_device_memory_stats(dev, &ms), "memory stats");
  leak_checked = true;
  rc = 0;

done:
  llm_gpu_destroy(gpu);
  if (dev && ul_device_destroy(dev) != UL_OK && !err[0])
    snprintf(err, sizeof err, "destroy the device: %s", ul_last_error());
  if (env) ul_env_destroy(env);
  ul_set_log_callback(NULL, NULL);
  if (out.tty && !leak_checked && out.len) out_finish(&out);

  bool match_clean = clean.steps_done == N && lossy.steps_done == N &&
                     !memcmp(clean.tokens, lossy.tokens, (size_t)N * sizeof(int32_t));
  bool match_cpu = lossy.steps_done == N &&
                   !memcmp(cpu_tokens, lossy.tokens, (size_t)N * sizeof(int32_t));
  bool no_leak = leak_checked && ms.live_objects == 0 && ms.live_bytes == 0;
  bool all_recovered = ev.recovered == (int)losses && ev.failed == 0;
  if (rc == 0 && !(match_clean && match_cpu && no_leak && all_recovered)) rc = 1;
  if (err[0]) rc = 1;
  double tps = lossy.seconds > 0 ? lossy.steps_done / lossy.seconds : 0;
  double tps_clean = clean.seconds > 0 ? clean.steps_done / clean.seconds : 0;

  printf("\nsummary (KV cache restore: %s)\n", llm_kv_policy_name(kv));
  printf("  tokens/s             %.1f with %d loss%s (clean run %.1f)\n", tps, (int)losses,
         losses == 1 ? "" : "es", tps_clean);
  printf("  losses injected      %d, recovered %d%s\n", (int)losses, ev.recovered,
         ev.failed ? " (recovery FAILED)" : "");
  for (int k = 0; k < recoveries_seen && k < ev.recovered; k++)
    printf("  recovery %-2d          step %3d (%s): %.1f ms extra for the step "
           "(device rebuilt and restored in %.1f ms)\n",
           k + 1, loss_step[k], loss_where[k] ? "step in flight" : "before the step",
           recovery_ms[k], ev.event_ms[k]);
  printf("  unlost's log         %d line%s on the injected losses (not shown), %d other%s\n",
         out.log_expected, out.log_expected == 1 ? "" : "s", out.log_other, out.log_other == 1 ? "" : "s");
  if (kv == LLM_KV_CALLBACK)
    printf("  re-prefills          %llu, %llu positions, %.1f ms in all\n",
           (unsigned long long)gst.refills, (unsigned long long)gst.refill_tokens,
           gst.refill_ms_total);
  else
    printf("  checkpoints          %llu (every %llu tokens)\n", (unsigned long long)gst.checkpoints,
           (unsigned long long)ckpt);
  printf("  tokens = clean run   %s\n", match_clean ? "yes" : "NO");
  printf("  tokens = CPU ref.    %s\n", match_cpu ? "yes" : "NO");
  if (leak_checked)
    printf("  leaked               %llu objects, %llu bytes\n", (unsigned long long)ms.live_objects,
           (unsigned long long)ms.live_bytes);
  else
    printf("  leaked               not checked\n");
  if (err[0]) printf("  error                %s\n", err);
  printf("result: %s\n", rc == 0 ? "PASS" : "FAIL");
  fflush(stdout);

#ifdef UL_HAVE_JANSSON
  if (json) {
    json_t *rms = json_array(), *ems = json_array(), *steps_at = json_array(), *inflight = json_array();
    bool ok = rms && ems && steps_at && inflight;
    for (int k = 0; ok && k < recoveries_seen; k++) ok &= json_array_append_new(rms, cli_json_real(recovery_ms[k], 3)) == 0;
    for (int k = 0; ok && k < ev.recovered && k < DEMO_MAX_LOSSES; k++)
      ok &= json_array_append_new(ems, cli_json_real(ev.event_ms[k], 3)) == 0;
    for (int k = 0; ok && k < (int)losses; k++) ok &= json_array_append_new(steps_at, json_integer(loss_step[k])) == 0;
    for (int k = 0; ok && k < (int)losses; k++) ok &= json_array_append_new(inflight, json_boolean(loss_where[k])) == 0;
    json_t *doc = NULL;
    if (ok)
      doc = json_pack("{s:i,s:i,s:b,s:b,s:I,s:I,s:o,s:o,s:O,s:O,s:O,s:O,s:i,s:i,s:s,s:i,s:I,s:b,s:s}",
                      "losses_injected", (int)losses, "recoveries", ev.recovered, "tokens_match_clean",
                      (int)match_clean, "tokens_match_cpu", (int)match_cpu, "leaked_objects",
                      (json_int_t)(leak_checked ? ms.live_objects : 0), "leaked_bytes",
                      (json_int_t)(leak_checked ? ms.live_bytes : 0), "tokens_per_s", cli_json_real(tps, 2),
                      "tokens_per_s_clean", cli_json_real(tps_clean, 2), "recovery_ms", rms, "recovery_event_ms",
                      ems, "loss_steps", steps_at, "loss_in_flight", inflight, "log_lines_injected",
                      out.log_expected, "log_lines_other", out.log_other, "kv", llm_kv_policy_name(kv), "steps", N,
                      "seed", (json_int_t)seed, "ok", rc == 0, "text", out.all ? out.all : "");
    json_decref(rms);
    json_decref(ems);
    json_decref(steps_at);
    json_decref(inflight);
    if (!cli_json_write("unlost demo", json, doc)) rc = 1;
  }
#else
  (void)json; /* --json was refused */
#endif
  if (err[0]) fprintf(stderr, "unlost demo: %s\n", err);
  free(out.all);
  pthread_mutex_destroy(&out.mu);
  free(cpu_tokens);
  free(clean.tokens);
  free(lossy.tokens);
  llm_cpu_destroy(cpu);
  llm_tokenizer_free(tok);
  llm_model_close(model);
  return rc;
}
