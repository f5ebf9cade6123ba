/* unlost chaos: run a workload once clean, then once per WebGPU call index
 * with a fault injected there (or a pair of faults, or a storm of losses),
 * and check each run against the clean run and the CPU. A point where
 * nothing was injected is not applicable: it is never counted as passed. */
#include "cli.h"
#include "workload.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void chaos_usage(FILE *f) {
  fprintf(f,
          "usage: unlost chaos [--workload NAME] [--every-call | --at N | --chaos SPEC]\n"
          "                    [--fault loss|oom|validation|request] [--stride K]\n"
          "                    [--pairs [--pair-stride M]] [--storm SECONDS --seed S\n"
          "                    [--no-health]] [--density [--from N] [--to M]]\n"
          "                    [--steps N] [--threads T] [--hung-after SECONDS]\n"
          "                    [--verbose] [--json [FILE]]\n"
          "\n"
          "Runs the workload once without faults and counts its WebGPU calls, then\n"
          "once for each call index 1..calls with a fault injected at that call,\n"
          "and checks that every run ends with the clean run's output (which must\n"
          "equal the workload's CPU reference), no leaked object and no hang.\n"
          "\n"
          "  --workload NAME  built-in workload (default: basic)\n"
          "  --every-call     inject at every call index (the default)\n"
          "  --stride K       inject at every K-th call index only\n"
          "  --at N           inject at call N only\n"
          "  --chaos SPEC     one run with this chaos schedule (UNLOST_CHAOS's grammar,\n"
          "                   docs/chaos.md; --spec is the same option)\n"
          "  --fault KIND     loss (default): the device is lost;\n"
          "                   oom, validation: an error inside unlost's error scopes;\n"
          "                   request: the device is lost and the device request of\n"
          "                   the recovery that follows fails once\n"
          "  --pairs          a loss at call i, then a second loss at every call j of\n"
          "                   the recovery, checkpoint and replay that follow\n"
          "  --pair-stride M  every M-th j only (default 1)\n"
          "  --storm SECONDS  run the workload again and again on one device while\n"
          "                   another thread forces losses at random times and a\n"
          "                   loss-every schedule runs (both as dense per call for\n"
          "                   every workload); every run is checked against the CPU\n"
          "  --seed S         the storm's seed (default 1)\n"
          "  --no-health      storm with the health monitor off\n"
          "  --density        run each workload (basic, zoo, decode, threads; or the\n"
          "                   one --workload names) under loss-every=N for N from\n"
          "                   --from (5) to --to (200), every --stride-th N: every\n"
          "                   run must end with the clean output, or with an error\n"
          "                   status and every asynchronous read answered; the\n"
          "                   smallest N from which every run is complete and\n"
          "                   correct is the workload's density cliff\n"
          "  --steps N        steps of the iterate and threads workloads (200)\n"
          "  --threads T      threads of the threads workload (4)\n"
          "  --hung-after S   a run longer than S seconds is hung (default 60); one\n"
          "                   twice as long ends the harness (exit 1, JSON written)\n"
          "  --verbose        show the library's warnings about the injected faults\n"
          "                   (by default counted in the summary; others always show)\n"
          "  --json [FILE]    write the summary as JSON to FILE (none or '-': stdout)\n"
          "\n"
          "Workloads: basic, zoo, iterate (one thread: a stencil, a uniform, a pool\n"
          "buffer each step, reads every 25 steps, checkpoints every 100), threads\n"
          "(several threads on one device, each with its own LOG buffers, reads and\n"
          "checkpoints), decode (the demo model's decode step). webgpu-NAME (or\n"
          "webgpu-all): the programs of tests/webgpu, written on webgpu.h alone and\n"
          "run through libunlost-webgpu as children (`unlost chaos --workload\n"
          "webgpu-all --help` lists their own options: --jobs, --points, --control).\n"
          "\n"
          "A point passes only when its faults were injected (both losses of a\n"
          "pair), the run recovered\n"
          "(for loss and request) and its output is the clean run's. Exit status:\n"
          "0 when every applicable point passed and no run was wrong, 1 otherwise,\n"
          "2 usage error. --density: 0 when no run was wrong, hung, leaked or left\n"
          "a read unanswered, and every workload has a cliff within the range.\n"
          "\n"
          "On a terminal one progress line shows the points done, the total, the\n"
          "failures so far and the time left.\n");
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

typedef struct run_result {
  ul_status status;
  char error[512];
  workload_result out;
  uint64_t calls;
  uint64_t injected;
  uint64_t leaked_objects;
  uint64_t recoveries;
  uint64_t standby_recoveries; /* of those, begun on the standby device */
  uint64_t restored;           /* contents put back on demand after them */
  uint64_t restore_interrupted; /* ... of those, tries a loss interrupted */
  uint64_t unanswered_reads;   /* asynchronous reads accepted and never answered */
  double ms;
} run_result;

/* A counter of the device's metrics text (`name`: a family's name). */
static uint64_t metric_u64(ul_device *dev, const char *name) {
  char *text = NULL, key[96];
  uint64_t n = 0;
  if (ul_metrics(&dev, 1, UL_METRICS_PROMETHEUS, &text)) return 0;
  snprintf(key, sizeof key, "\n%s{", name);
  const char *p = strstr(text, key);
  if (p && (p = strchr(p + 1, '}'))) n = strtoull(p + 1, NULL, 10);
  ul_free(text);
  return n;
}


/* A point that takes longer than this is reported as hung (--hung-after);
 * one twice as long ends the harness (the watchdog). */
static double g_hung_ms = 60000.0;
#define CHAOS_HUNG_MS g_hung_ms

/* ---- the terminal: one progress line, and the library's warnings ----
 * The library writes its warnings to stderr. While the harness runs,
 * stderr is a pipe to a reader process of its own, which owns the
 * terminal: the warnings about the faults the harness injected (the
 * losses, the health monitor's moves, devices giving up) are counted for
 * the summary, or shown with --verbose; any other line is shown at once,
 * on a line of its own, and the progress line (sent through the same pipe)
 * is drawn again under it. A process, not a thread: whatever the harness
 * wrote before it died (a sanitizer's report, the watchdog's message) is
 * still shown. */
#define TERM_PROGRESS '\001' /* a line that is the progress line */

typedef struct term {
  bool tty, verbose, routed;
  int real_err;       /* the real stderr */
  int count_r;        /* the reader's count of expected lines, at its end */
  pid_t reader;
  uint64_t expected;  /* warnings about injected faults (after term_stop) */
} term;

static term g_term = {.real_err = 2, .count_r = -1};

/* A line of the library's log (not the harness's own messages) about a
 * fault the harness injected. */
static bool expected_warning(const char *line) {
  if (strncmp(line, "unlost warn: ", 13) && strncmp(line, "unlost error: ", 14) && strncmp(line, "unlost info: ", 13))
    return false;
  return strstr(line, "unlost chaos: ") || strstr(line, "unlost warn: health: ") || strstr(line, " gave up: ") ||
         strstr(line, "moving the work to the fallback") || strstr(line, "is BROKEN and could not move");
}

static void term_write(int fd, const char *p, size_t n) {
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w <= 0) return;
    p += w;
    n -= (size_t)w;
  }
}

/* The reader process: until the pipe's last writer is gone. */
static void term_reader(int in, int err, int count_w, bool tty, bool verbose) {
  static char buf[8192], progress[512];
  size_t len = 0;
  uint64_t expected = 0;
  for (;;) {
    ssize_t n = read(in, buf + len, sizeof buf - 1 - len);
    if (n <= 0) break;
    len += (size_t)n;
    buf[len] = '\0';
    char *start = buf, *nl;
    while ((nl = strchr(start, '\n')) || (start == buf && len == sizeof buf - 1)) {
      if (nl) *nl = '\0';
      if (start[0] == TERM_PROGRESS && !start[1]) {
        /* The end of the progress line: it stays, and the next goes below. */
        if (tty && progress[0]) term_write(1, "\n", 1);
        progress[0] = '\0';
      } else if (start[0] == TERM_PROGRESS) {
        snprintf(progress, sizeof progress, "\r\033[K%s", start + 1);
        if (tty) term_write(1, progress, strlen(progress));
      } else if (expected_warning(start) && (expected++, !verbose)) {
        /* counted */
      } else if (*start) {
        if (tty && progress[0]) term_write(1, "\r\033[K", 4);
        term_write(err, start, strlen(start));
        term_write(err, "\n", 1);
        if (tty && progress[0]) term_write(1, progress, strlen(progress));
      }
      if (!nl) {
        start = buf + len;
        break;
      }
      start = nl + 1;
    }
    len = (size_t)(buf + len - start);
    memmove(buf, start, len);
  }
  if (len) term_write(err, buf, len);
  term_write(count_w, (const char *)&expected, sizeof expected);
}

static void term_start(bool verbose) {
  g_term.tty = isatty(1);
  g_term.verbose = verbose;
  int fds[2], cnt[2];
  fflush(stdout);
  fflush(stderr);
  if (pipe(fds)) return;
  if (pipe(cnt)) {
    close(fds[0]);
    close(fds[1]);
    return;
  }
  int real = dup(2);
  pid_t pid = real < 0 ? -1 : fork();
  if (pid == 0) {
    close(fds[1]);
    close(cnt[0]);
    term_reader(fds[0], real, cnt[1], g_term.tty, verbose);
    _exit(0);
  }
  close(fds[0]);
  close(cnt[1]);
  if (pid < 0 || dup2(fds[1], 2) < 0) {
    if (real >= 0) close(real);
    close(fds[1]);
    close(cnt[0]);
    if (pid > 0) waitpid(pid, NULL, 0);
    return;
  }
  close(fds[1]);
  g_term.real_err = real;
  g_term.count_r = cnt[0];
  g_term.reader = pid;
  g_term.routed = true;
}

/* Puts stderr back and waits until the reader showed every line. */
static void term_stop(void) {
  if (!g_term.routed) return;
  fflush(stderr);
  dup2(g_term.real_err, 2); /* the pipe's last writer goes */
  uint64_t n = 0;
  if (read(g_term.count_r, &n, sizeof n) == (ssize_t)sizeof n) g_term.expected = n;
  waitpid(g_term.reader, NULL, 0);
  close(g_term.count_r);
  close(g_term.real_err);
  g_term.real_err = 2;
  g_term.routed = false;
}

static void fmt_duration(double s, char *buf, size_t cap) {
  if (s < 0) s = 0;
  if (s < 90) snprintf(buf, cap, "%.0f s", s);
  else if (s < 5400) snprintf(buf, cap, "%.0f min", s / 60);
  else snprintf(buf, cap, "%.1f h", s / 3600);
}

/* The progress line (a terminal only): done of total, failures, time left;
 * drawn by the reader, so that other lines never glue to it. */
static void term_progress(const char *what, long done, long total, long failures, double elapsed_ms) {
  if (!g_term.tty) return;
  char eta[32] = "?", line[256];
  if (done > 0) fmt_duration(elapsed_ms / 1000.0 / (double)done * (double)(total - done), eta, sizeof eta);
  int n = snprintf(line, sizeof line, "%c%s %ld/%ld, %ld failed, ETA %s\n", TERM_PROGRESS, what, done, total,
                   failures, eta);
  if (g_term.routed) term_write(2, line, (size_t)n); /* one write, shorter than PIPE_BUF: never torn */
  else {
    char shown[300];
    snprintf(shown, sizeof shown, "\r\033[K%.*s", n - 2, line + 1);
    term_write(1, shown, strlen(shown));
  }
}

static void term_progress_end(void) {
  if (!g_term.tty) return;
  if (g_term.routed) term_write(2, "\001\n", 2);
  else term_write(1, "\n", 1);
}

/* ---- the watchdog: a run that never ends ends the harness ---- */
static _Atomic double g_run_start_ms; /* 0: no run */
static pthread_mutex_t g_run_mu = PTHREAD_MUTEX_INITIALIZER;
static char g_run_what[160]; /* under g_run_mu */
static const char *g_json_path;
static const char *g_mode = "points";

static double now_ms(void);

static void *watchdog_thread(void *arg) {
  (void)arg;
  for (;;) {
    usleep(200000);
    double t0 = atomic_load(&g_run_start_ms);
    if (t0 <= 0 || now_ms() - t0 < 2 * g_hung_ms) continue;
    char what[160], line[512];
    pthread_mutex_lock(&g_run_mu);
    snprintf(what, sizeof what, "%s", g_run_what);
    pthread_mutex_unlock(&g_run_mu);
    snprintf(line, sizeof line,
             "\nunlost chaos: a run of %s has not ended after %.0f s: hung; the harness stops here\n", what,
             (now_ms() - t0) / 1000.0);
    term_write(g_term.real_err, line, strlen(line));
#ifdef UL_HAVE_JANSSON
    if (g_json_path)
      cli_json_write("unlost chaos", g_json_path,
                     json_pack("{s:s,s:i,s:i,s:i,s:s,s:I}", "mode", g_mode, "hung", 1, "points_hung", 1,
                               "runs_hung", 1, "hung_run", what, "hung_after_ms", (json_int_t)llround(g_hung_ms)));
#endif
    fflush(stdout);
    _exit(1);
  }
  return NULL;
}

static void watchdog_start(void) {
  static bool started;
  pthread_t th;
  if (!started && pthread_create(&th, NULL, watchdog_thread, NULL) == 0) {
    pthread_detach(th);
    started = true;
  }
}

static void run_begin(const char *what) {
  pthread_mutex_lock(&g_run_mu);
  snprintf(g_run_what, sizeof g_run_what, "%s", what);
  pthread_mutex_unlock(&g_run_mu);
  atomic_store(&g_run_start_ms, now_ms());
}

static void run_end(void) { atomic_store(&g_run_start_ms, 0.0); }

static ul_device_desc chaos_device_desc(bool health) {
  ul_device_desc dd = {.label = "chaos"};
  dd.recovery.backoff_initial_ms = 1;
  dd.recovery.backoff_max_ms = 4;
  dd.recovery.jitter_seed = 7;
  dd.health.disabled = !health;
  return dd;
}

static bool output_ok(const workload_result *o, const workload_result *clean) {
  return o->output_size == clean->output_size && !memcmp(o->output, clean->output, o->output_size) &&
         o->output_size == o->expected_size && !memcmp(o->output, o->expected, o->output_size);
}

/* One env for the whole run: the implementation's driver stays loaded (some
 * drivers cannot be loaded and unloaded hundreds of times in one process),
 * and each point re-arms its chaos table with the counters at zero. */
static uint64_t chaos_calls(ul_env *env) {
  uint64_t n = 0;
  ul_env_chaos_counts(env, &n, NULL);
  return n;
}

static uint64_t chaos_injected(ul_env *env) {
  uint64_t n = 0;
  ul_env_chaos_counts(env, NULL, &n);
  return n;
}

static void run_once(ul_env *env, workload_fn fn, const char *spec, run_result *r) {
  memset(r, 0, sizeof *r);
  run_begin(spec);
  double t0 = now_ms();
  ul_device *dev = NULL;
  ul_device_desc dd = chaos_device_desc(true);
  if (ul_env_chaos_arm(env, spec)) {
    r->status = UL_ERR_INVALID_ARGUMENT;
    snprintf(r->error, sizeof r->error, "bad chaos schedule '%s': %s", spec, ul_last_error());
    return;
  }
  r->status = ul_device_create(env, &dd, &dev);
  if (!r->status) {
    r->status = fn(dev, &r->out);
    r->unanswered_reads = r->out.reads_issued - r->out.reads_answered;
  }
  /* A loss during the workload's teardown is recovered here, as the next
   * call of a program would: every loss must end in a recovery. */
  if (!r->status) r->status = ul_device_recover(dev);
  if (r->status) snprintf(r->error, sizeof r->error, "%s: %s", ul_status_name(r->status), ul_last_error());
  if (dev) {
    ul_memory_stats st;
    if (!ul_device_memory_stats(dev, &st)) r->leaked_objects = st.live_objects;
    r->recoveries = ul_device_recoveries(dev);
    r->standby_recoveries = metric_u64(dev, "unlost_standby_recoveries_total");
    r->restored = metric_u64(dev, "unlost_restored_on_demand_total");
    r->restore_interrupted = metric_u64(dev, "unlost_restore_interrupted_total");
  }
  r->calls = chaos_calls(env);
  r->injected = chaos_injected(env);
  if (ul_device_destroy(dev) == UL_ERR_BUSY && !r->leaked_objects) r->leaked_objects = 1;
  ul_env_chaos_arm(env, "seed=1");
  r->ms = now_ms() - t0;
  run_end();
}

typedef struct tally {
  long tested, applicable, passed, wrong, failed, hung;
  uint64_t injected, recoveries, standby_recoveries, leaked, reads_issued, unanswered_reads;
  uint64_t restored, restore_interrupted;
  double max_ms, total_ms;
  char slowest[128]; /* the schedule of the slowest point */
  char failures[4096];
  size_t flen;
} tally;

static void note_failure(tally *t, const char *spec, const char *why) {
  if (t->flen < sizeof t->failures - 256)
    t->flen += (size_t)snprintf(t->failures + t->flen, sizeof t->failures - t->flen, "  %s: %s\n", spec, why);
}

/* Classifies one run. `need_recovery`: a loss was injected, so passing
 * needs a recovery. */
static void count_point(tally *t, const char *spec, const run_result *r, const run_result *clean,
                        bool need_recovery, uint64_t need_injected) {
  t->tested++;
  t->injected += r->injected;
  t->recoveries += r->recoveries;
  t->standby_recoveries += r->standby_recoveries;
  t->restored += r->restored;
  t->restore_interrupted += r->restore_interrupted;
  t->leaked += r->leaked_objects;
  t->reads_issued += r->out.reads_issued;
  t->unanswered_reads += r->unanswered_reads;
  t->total_ms += r->ms;
  if (r->ms > t->max_ms) {
    t->max_ms = r->ms;
    snprintf(t->slowest, sizeof t->slowest, "%s", spec);
  }
  /* A pair whose second loss never came (its call did not happen this
   * time) tested one loss only: not applicable as a pair. */
  bool applicable = r->injected >= need_injected;
  bool good = !r->status && output_ok(&r->out, &clean->out);
  if (!r->status && !good) {
    /* UL_OK with wrong data: the one outcome that is never allowed. */
    t->wrong++;
    size_t at = 0;
    while (at < r->out.output_size && at < clean->out.output_size && r->out.output[at] == clean->out.output[at]) at++;
    size_t differ = 0, n = r->out.output_size < clean->out.output_size ? r->out.output_size : clean->out.output_size;
    for (size_t k = at; k < n; k++) differ += r->out.output[k] != clean->out.output[k];
    uint32_t got = 0, want = 0;
    size_t word = at & ~(size_t)3;
    if (word + 4 <= n) {
      memcpy(&got, r->out.output + word, 4);
      memcpy(&want, clean->out.output + word, 4);
    }
    char why[160];
    snprintf(why, sizeof why, "UL_OK with wrong output (differs from byte %zu: word 0x%08x, clean 0x%08x; %zu bytes differ)",
             at, got, want, differ);
    note_failure(t, spec, why);
  }
  if (r->ms > CHAOS_HUNG_MS) {
    t->hung++;
    note_failure(t, spec, "hung");
  }
  if (r->leaked_objects) note_failure(t, spec, "leaked objects");
  if (r->unanswered_reads) note_failure(t, spec, "asynchronous reads accepted and never answered");
  if (!applicable) return;
  t->applicable++;
  if (good && !r->leaked_objects && !r->unanswered_reads && r->ms <= CHAOS_HUNG_MS &&
      (!need_recovery || r->recoveries >= 1)) {
    t->passed++;
    return;
  }
  t->failed++;
  if (r->status) note_failure(t, spec, r->error);
  else if (good && need_recovery && !r->recoveries) note_failure(t, spec, "a loss was injected but nothing recovered");
}

static void print_tally(const char *what, const tally *t) {
  printf("%s: %ld points tested, %ld applicable, %ld passed, %ld wrong, %ld failed, %ld hung, "
         "%llu injected, %llu recoveries, %llu leaked objects, %llu unanswered reads, max %.1f ms per point (%s)\n",
         what, t->tested, t->applicable, t->passed, t->wrong, t->failed, t->hung,
         (unsigned long long)t->injected, (unsigned long long)t->recoveries, (unsigned long long)t->leaked,
         (unsigned long long)t->unanswered_reads, t->max_ms, t->slowest);
  if (t->flen) printf("failures:\n%s", t->failures);
}

#ifdef UL_HAVE_JANSSON
/* The tally's keys, added to the summary o; false when one could not be. */
static bool json_tally(json_t *o, const tally *t) {
  bool ok = cli_json_set(o, "points_tested", json_integer(t->tested));
  ok &= cli_json_set(o, "points_applicable", json_integer(t->applicable));
  ok &= cli_json_set(o, "points_passed", json_integer(t->passed));
  ok &= cli_json_set(o, "points_wrong", json_integer(t->wrong));
  ok &= cli_json_set(o, "points_failed", json_integer(t->failed));
  ok &= cli_json_set(o, "points_hung", json_integer(t->hung));
  ok &= cli_json_set(o, "injected", json_integer((json_int_t)t->injected));
  ok &= cli_json_set(o, "recoveries", json_integer((json_int_t)t->recoveries));
  ok &= cli_json_set(o, "standby_recoveries", json_integer((json_int_t)t->standby_recoveries));
  ok &= cli_json_set(o, "restored_on_demand", json_integer((json_int_t)t->restored));
  ok &= cli_json_set(o, "restore_interrupted", json_integer((json_int_t)t->restore_interrupted));
  ok &= cli_json_set(o, "leaked_objects", json_integer((json_int_t)t->leaked));
  ok &= cli_json_set(o, "reads_issued", json_integer((json_int_t)t->reads_issued));
  ok &= cli_json_set(o, "unanswered_reads", json_integer((json_int_t)t->unanswered_reads));
  ok &= cli_json_set(o, "max_point_ms", cli_json_real(t->max_ms, 1));
  ok &= cli_json_set(o, "mean_point_ms", cli_json_real(t->tested ? t->total_ms / (double)t->tested : 0, 1));
  ok &= cli_json_set(o, "slowest_point", json_string(t->slowest));
  return ok;
}
#endif

/* ---- storms ---- */
typedef struct storm_ctx {
  pthread_mutex_t mu;  /* guards dev: the main thread replaces a FAILED one */
  ul_device *dev;
  _Atomic bool stop;
  uint64_t rng;
  double scale;        /* the workload's size against the basic one's */
  _Atomic uint64_t forced;
  _Atomic uint64_t refused; /* already lost: nothing forced (UL_ERR_BUSY) */
} storm_ctx;

/* Storms are as dense for every workload: gaps and schedules scale with
 * its WebGPU calls (the basic workload's are scale 1), so a larger
 * workload, whose recovery rebuilds more, meets as many losses per run.
 * The basic workload makes 448 calls since creates open no error scope
 * (583 before: three pushes and three pops per create); with the old
 * figure a larger workload met half as many losses again per run. */
#define STORM_BASIC_CALLS 448.0

static uint64_t splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static void *storm_thread(void *arg) {
  storm_ctx *c = arg;
  while (!atomic_load(&c->stop)) {
    /* 2-50 ms apart (times the workload's scale): dense against a recovery
     * of tens of ms on the CPU adapter, so losses land inside recoveries. */
    uint64_t us = (uint64_t)((double)(2000 + splitmix(&c->rng) % 48000) * c->scale);
    usleep((useconds_t)us);
    if (atomic_load(&c->stop)) break;
    pthread_mutex_lock(&c->mu);
    /* Only a loss the call made counts: one asked for while the device
     * is still lost forces nothing (UL_ERR_BUSY). */
    ul_status fs = c->dev ? ul_device_force_loss(c->dev, "unlost chaos: storm") : UL_ERR_INVALID_ARGUMENT;
    if (!fs) atomic_fetch_add(&c->forced, 1);
    else if (fs == UL_ERR_BUSY) atomic_fetch_add(&c->refused, 1);
    pthread_mutex_unlock(&c->mu);
  }
  return NULL;
}

/* Ends a storm's device: what it leaked and recovered is counted; the
 * forcing thread lets go of it first. */
static void storm_retire(storm_ctx *sc, ul_device *dev, uint64_t *leaked, uint64_t *recoveries,
                         uint64_t restored[2]) {
  ul_memory_stats st = {0};
  ul_device_memory_stats(dev, &st);
  *leaked += st.live_objects;
  *recoveries += ul_device_recoveries(dev);
  restored[0] += metric_u64(dev, "unlost_restored_on_demand_total");
  restored[1] += metric_u64(dev, "unlost_restore_interrupted_total");
  pthread_mutex_lock(&sc->mu);
  sc->dev = NULL;
  pthread_mutex_unlock(&sc->mu);
  if (ul_device_destroy(dev) == UL_ERR_BUSY && !st.live_objects) (*leaked)++;
}

static int run_storm(ul_env *env, workload_fn fn, double seconds, uint64_t seed, bool health,
                     bool inject, const run_result *clean, const char *json) {
  uint64_t rng = seed;
  double scale = (double)clean->calls > STORM_BASIC_CALLS ? (double)clean->calls / STORM_BASIC_CALLS : 1.0;
  char spec[128];
  snprintf(spec, sizeof spec, "loss-every=%llu,seed=%llu",
           (unsigned long long)((double)(29 + splitmix(&rng) % 70) * scale), (unsigned long long)seed);
  if (!inject) snprintf(spec, sizeof spec, "seed=1");
  if (ul_env_chaos_arm(env, spec)) {
    fprintf(stderr, "unlost chaos: bad schedule '%s'\n", spec);
    return 2;
  }
  ul_device_desc dd = chaos_device_desc(health);
  ul_device *dev = NULL;
  if (ul_device_create(env, &dd, &dev)) {
    fprintf(stderr, "unlost chaos: storm: create device: %s\n", ul_last_error());
    return 1;
  }
  storm_ctx sc = {.dev = dev, .rng = splitmix(&rng), .scale = scale};
  pthread_mutex_init(&sc.mu, NULL);
  pthread_t th;
  bool started = inject && pthread_create(&th, NULL, storm_thread, &sc) == 0;
  static workload_result out;
  long runs = 0, ok = 0, wrong = 0, errors = 0, hung = 0, failed_devices = 0;
  uint64_t recoveries = 0, leaked = 0, unanswered = 0, reads = 0, restored[2] = {0, 0};
  double t0 = now_ms(), max_ms = 0;
  char first_error[512] = "";
  while (now_ms() - t0 < seconds * 1000.0) {
    double r0 = now_ms();
    char what[96];
    snprintf(what, sizeof what, "storm run %ld", runs + 1);
    run_begin(what);
    ul_status s = fn(dev, &out);
    run_end();
    double ms = now_ms() - r0;
    runs++;
    reads += out.reads_issued;
    unanswered += out.reads_issued - out.reads_answered;
    double el = now_ms() - t0;
    term_progress("storm seconds", (long)(el / 1000.0), (long)seconds, errors + wrong + hung, el);
    if (ms > max_ms) max_ms = ms;
    if (ms > CHAOS_HUNG_MS) hung++;
    if (s) {
      errors++;
      if (!first_error[0]) snprintf(first_error, sizeof first_error, "%s: %s", ul_status_name(s), ul_last_error());
    } else if (!output_ok(&out, &clean->out)) {
      wrong++;
    } else {
      ok++;
    }
    if (ul_device_get_state(dev) == UL_DEVICE_FAILED) {
      /* Recovery gave up (its retry budget spent inside the storm): an
       * honest end for that device; the storm goes on with a new one. */
      failed_devices++;
      storm_retire(&sc, dev, &leaked, &recoveries, restored);
      dev = NULL;
      if (ul_device_create(env, &dd, &dev)) {
        fprintf(stderr, "unlost chaos: storm: create device: %s\n", ul_last_error());
        break;
      }
      pthread_mutex_lock(&sc.mu);
      sc.dev = dev;
      pthread_mutex_unlock(&sc.mu);
    }
  }
  atomic_store(&sc.stop, true);
  if (started) pthread_join(th, NULL);
  term_progress_end();
  uint64_t injected = chaos_injected(env);
  ul_device_state final_state = dev ? ul_device_get_state(dev) : UL_DEVICE_FAILED;
  if (dev) storm_retire(&sc, dev, &leaked, &recoveries, restored);
  pthread_mutex_destroy(&sc.mu);
  ul_env_chaos_arm(env, "seed=1");
  uint64_t forced = atomic_load(&sc.forced), refused = atomic_load(&sc.refused);
  term_stop();
  printf("storm %.0f s, seed %llu, health %s, schedule %s: %ld runs, %ld ok, %ld wrong, %ld errors, %ld hung, "
         "%llu losses forced from another thread (%llu more asked for while the device was still lost: "
         "nothing forced), %llu injected by the schedule, %llu recoveries, %ld devices that gave up (FAILED), "
         "%llu leaked objects, %llu of %llu asynchronous reads unanswered, final state %s, max %.1f ms per run, "
         "%llu warnings about the injected faults\n",
         seconds, (unsigned long long)seed, health ? "on" : "off", spec, runs, ok, wrong, errors, hung,
         (unsigned long long)forced, (unsigned long long)refused, (unsigned long long)injected,
         (unsigned long long)recoveries, failed_devices, (unsigned long long)leaked, (unsigned long long)unanswered,
         (unsigned long long)reads, ul_device_state_name(final_state), max_ms, (unsigned long long)g_term.expected);
  if (first_error[0]) printf("first error: %s\n", first_error);
#ifdef UL_HAVE_JANSSON
  if (json) {
    /* The integers as json_int_t: json_pack's I reads one. */
    json_t *doc = json_pack(
        "{s:s,s:o,s:I,s:b,s:s,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:s,s:o,s:I,s:I,s:I,s:I,s:I}",
        "mode", "storm", "seconds", cli_json_real(seconds, 1), "seed", (json_int_t)seed, "health", (int)health,
        "schedule", spec, "runs", (json_int_t)runs, "runs_ok", (json_int_t)ok, "runs_wrong", (json_int_t)wrong,
        "runs_error", (json_int_t)errors, "runs_hung", (json_int_t)hung, "losses_forced", (json_int_t)forced,
        "losses_refused", (json_int_t)refused, "injected", (json_int_t)injected, "recoveries",
        (json_int_t)recoveries, "devices_failed", (json_int_t)failed_devices, "leaked_objects", (json_int_t)leaked,
        "reads_issued", (json_int_t)reads, "unanswered_reads", (json_int_t)unanswered, "final_state",
        ul_device_state_name(final_state), "max_run_ms", cli_json_real(max_ms, 1), "points_wrong",
        (json_int_t)wrong, "points_hung", (json_int_t)hung, "expected_warnings", (json_int_t)g_term.expected,
        "restored_on_demand", (json_int_t)restored[0], "restore_interrupted", (json_int_t)restored[1]);
    if (!cli_json_write("unlost chaos", json, doc)) return 1;
  }
#else
  (void)json; /* --json was refused */
#endif
  /* Errors are honest (a status, not wrong data); the storm must still
   * have been one (losses happened) and have finished runs. */
  return !wrong && !hung && !leaked && !unanswered && ok > 0 && (forced + injected) > 0 ? 0 : 1;
}

/* ---- the density sweep ---- */
typedef struct density_wl {
  const char *name;
  long runs, complete, errors, wrong, hung;
  uint64_t leaked, reads, unanswered, recoveries, injected;
  long cliff;         /* smallest N from which every run was complete (0: none) */
  long lowest_ok;     /* smallest N with a complete run */
  double max_ms, clean_ms;
  uint64_t calls;
  char first_error[600];
  long first_error_n;
  char fails[2048];   /* "N:STATUS " of the runs that were not complete */
  size_t flen;
} density_wl;

/* Under loss-every=N for each N, one run of `fn`: complete (the clean
 * output), an honest error (a status, every read answered), or a failure
 * (wrong data, hung, leaked, a read left unanswered). */
static void density_workload(ul_env *env, const char *name, long from, long to, long stride, density_wl *w,
                             long *done, long total, long *failures, double t_start) {
  memset(w, 0, sizeof *w);
  w->name = name;
  workload_fn fn = workload_find(name);
  static run_result clean, r;
  run_once(env, fn, "seed=1", &clean);
  w->clean_ms = clean.ms;
  w->calls = clean.calls;
  if (clean.status || clean.out.output_size != clean.out.expected_size ||
      memcmp(clean.out.output, clean.out.expected, clean.out.output_size)) {
    snprintf(w->first_error, sizeof w->first_error, "the clean run failed or differs from the CPU: %s",
             clean.status ? clean.error : "different output");
    w->wrong += clean.status ? 0 : 1;
    w->errors += clean.status ? 1 : 0;
    return;
  }
  bool all_ok_above = true;
  for (long n = to; n >= from; n -= stride) {
    char spec[64];
    snprintf(spec, sizeof spec, "loss-every=%ld", n);
    run_once(env, fn, spec, &r);
    w->runs++;
    w->recoveries += r.recoveries;
    w->injected += r.injected;
    w->leaked += r.leaked_objects;
    w->reads += r.out.reads_issued;
    w->unanswered += r.unanswered_reads;
    if (r.ms > w->max_ms) w->max_ms = r.ms;
    bool good = !r.status && output_ok(&r.out, &clean.out);
    bool failed = (!r.status && !good) || r.ms > CHAOS_HUNG_MS || r.leaked_objects || r.unanswered_reads;
    if (!r.status && !good) w->wrong++;
    if (r.ms > CHAOS_HUNG_MS) w->hung++;
    if (good && !failed) {
      w->complete++;
      w->lowest_ok = n;
      if (all_ok_above) w->cliff = n;
    } else {
      all_ok_above = false;
      if (r.status) w->errors++;
      if (w->flen < sizeof w->fails - 64)
        w->flen += (size_t)snprintf(w->fails + w->flen, sizeof w->fails - w->flen, "%s%ld:%s", w->flen ? " " : "",
                                    n, r.status ? ul_status_name(r.status) + 7 : failed ? "FAILED" : "WRONG");
      if (!w->first_error[0]) {
        /* The sweep goes from sparse to dense: the first failure is the
         * one nearest the cliff. */
        snprintf(w->first_error, sizeof w->first_error, "%s", r.status ? r.error : "wrong output");
        w->first_error_n = n;
      }
    }
    if (failed) (*failures)++;
    (*done)++;
    char label[64];
    snprintf(label, sizeof label, "density %s", name);
    term_progress(label, *done, total, *failures, now_ms() - t_start);
  }
}

static int run_density(ul_env *env, const char *only, long from, long to, long stride, const char *json) {
  static const char *const all[] = {"basic", "zoo", "decode", "threads"};
  const char *names[4];
  int nw = 0;
  if (only) names[nw++] = only;
  else
    for (int i = 0; i < 4; i++) names[nw++] = all[i];
  static density_wl w[4];
  long per = (to - from) / stride + 1, total = per * nw, done = 0, failures = 0;
  double t0 = now_ms();
  for (int i = 0; i < nw; i++) density_workload(env, names[i], from, to, stride, &w[i], &done, total, &failures, t0);
  term_progress_end();
  term_stop();
  long wrong = 0, hung = 0, runs = 0;
  uint64_t unanswered = 0, leaked = 0;
  bool cliffs = true;
  for (int i = 0; i < nw; i++) {
    wrong += w[i].wrong;
    hung += w[i].hung;
    runs += w[i].runs;
    unanswered += w[i].unanswered;
    leaked += w[i].leaked;
    cliffs &= w[i].cliff > 0;
    printf("density %s: loss-every=N for N %ld..%ld step %ld: %ld runs, %ld complete, %ld honest errors, %ld wrong, "
           "%ld hung, %llu of %llu reads unanswered, %llu leaked objects, %llu recoveries; cliff %s%ld (complete "
           "and correct from there up), lowest complete N %ld; clean run %llu calls, %.0f ms; slowest run %.0f ms\n",
           w[i].name, from, to, stride, w[i].runs, w[i].complete, w[i].errors, w[i].wrong, w[i].hung,
           (unsigned long long)w[i].unanswered, (unsigned long long)w[i].reads, (unsigned long long)w[i].leaked,
           (unsigned long long)w[i].recoveries, w[i].cliff ? "N=" : "none ", w[i].cliff, w[i].lowest_ok,
           (unsigned long long)w[i].calls, w[i].clean_ms, w[i].max_ms);
    if (w[i].flen) printf("  not complete: %s\n", w[i].fails);
    if (w[i].first_error[0]) printf("  nearest the cliff (N=%ld): %s\n", w[i].first_error_n, w[i].first_error);
  }
  printf("%llu warnings about the injected faults (--verbose shows them)\n", (unsigned long long)g_term.expected);
#ifdef UL_HAVE_JANSSON
  if (json) {
    json_t *list = json_array();
    for (int i = 0; list && i < nw; i++) {
      /* No cliff (0): null. */
      json_t *o = json_pack(
          "{s:s,s:o,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:o,s:o,s:s,s:s}", "workload", w[i].name,
          "cliff", w[i].cliff ? json_integer(w[i].cliff) : json_null(), "runs", (json_int_t)w[i].runs, "complete",
          (json_int_t)w[i].complete, "errors", (json_int_t)w[i].errors, "wrong", (json_int_t)w[i].wrong, "hung",
          (json_int_t)w[i].hung, "unanswered_reads", (json_int_t)w[i].unanswered, "reads_issued",
          (json_int_t)w[i].reads, "leaked_objects", (json_int_t)w[i].leaked, "recoveries",
          (json_int_t)w[i].recoveries, "injected", (json_int_t)w[i].injected, "lowest_complete",
          (json_int_t)w[i].lowest_ok, "clean_calls", (json_int_t)w[i].calls, "clean_ms",
          cli_json_real(w[i].clean_ms, 1), "max_run_ms", cli_json_real(w[i].max_ms, 1), "not_complete", w[i].fails,
          "error_nearest_cliff", w[i].first_error);
      if (json_array_append_new(list, o) != 0) list = (json_decref(list), NULL);
    }
    json_t *doc = json_pack("{s:s,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:o}", "mode", "density", "from",
                            (json_int_t)from, "to", (json_int_t)to, "stride", (json_int_t)stride, "runs",
                            (json_int_t)runs, "wrong", (json_int_t)wrong, "hung", (json_int_t)hung,
                            "unanswered_reads", (json_int_t)unanswered, "leaked_objects", (json_int_t)leaked,
                            "expected_warnings", (json_int_t)g_term.expected, "workloads", list);
    if (!cli_json_write("unlost chaos", json, doc)) return 1;
  }
#else
  (void)json; /* --json was refused */
#endif
  return !wrong && !hung && !unanswered && !leaked && cliffs ? 0 : 1;
}

int cmd_chaos(int argc, char **argv) {
  const char *workload = "basic", *json = NULL, *fault = "loss", *spec = NULL;
  long at = 0, stride = 1, pair_stride = 1;
  bool pairs = false, health = true, inject = true, density = false, verbose = false, workload_given = false;
  long from = 5, to = 200;
  double storm = 0;
  uint64_t seed = 1;
  uint64_t at_u = 0, stride_u = 1, pair_stride_u = 1, from_u = 5, to_u = 200, steps = 0, threads = 0;
  bool every_call = false, no_health = false, no_inject = false;
  double hung_s = 0;
  const cli_opt opts[] = {CLI_O("every-call", CLI_FLAG, &every_call),
                          {"workload", CLI_TEXT, &workload, .given = &workload_given},
                          CLI_O("density", CLI_FLAG, &density),
                          CLI_O("verbose", CLI_FLAG, &verbose),
                          {"from", CLI_U64, &from_u, .lo = 1, .hi = 1ull << 40},
                          {"to", CLI_U64, &to_u, .lo = 1, .hi = 1ull << 40},
                          {"hung-after", CLI_F64, &hung_s, .flo = 1, .fhi = 86400},
                          CLI_O("json", CLI_JSON, &json),
                          CLI_O("fault", CLI_TEXT, &fault),
                          CLI_O("chaos", CLI_TEXT, &spec), CLI_O("spec", CLI_TEXT, &spec),
                          {"at", CLI_U64, &at_u, .lo = 1, .hi = 1ull << 40},
                          {"stride", CLI_U64, &stride_u, .lo = 1, .hi = 1ull << 40},
                          CLI_O("pairs", CLI_FLAG, &pairs),
                          {"pair-stride", CLI_U64, &pair_stride_u, .lo = 1, .hi = 1ull << 40},
                          {"storm", CLI_F64, &storm, .flo = 0.001, .fhi = 7 * 86400.0},
                          {"seed", CLI_U64, &seed, .hi = INT64_MAX}, /* --json's integers are signed */
                          CLI_O("no-health", CLI_FLAG, &no_health),
                          {"steps", CLI_U64, &steps, .lo = 1, .hi = 400},
                          {"threads", CLI_U64, &threads, .lo = 1, .hi = 8},
                          /* Hidden: the harness's own test. Nothing is injected, so no
                           * point is applicable and the run must fail. */
                          CLI_O("no-inject", CLI_FLAG, &no_inject),
                          {0}};
  int prc = cli_parse("chaos", argc, argv, opts, CLI_NO_OPERANDS, chaos_usage, NULL);
  if (prc) return prc == 1 ? 0 : 2;
  if (json && !cli_json_available("unlost chaos")) return 2;
  at = (long)at_u, stride = (long)stride_u, pair_stride = (long)pair_stride_u, from = (long)from_u, to = (long)to_u;
  if (every_call) at = 0;
  if (hung_s > 0) g_hung_ms = hung_s * 1000.0;
  health = !no_health;
  inject = !no_inject;
  if (steps || threads) workload_iterate_config((uint32_t)steps, (uint32_t)threads);
  workload_fn fn = workload_find(workload);
  if (!fn) {
    fprintf(stderr, "unlost chaos: unknown workload '%s' (known: %s)\n", workload, workload_names);
    return 2;
  }
  const char *fmt = !strcmp(fault, "loss")         ? "loss@%ld"
                    : !strcmp(fault, "oom")        ? "oom@%ld"
                    : !strcmp(fault, "validation") ? "validation@%ld"
                    : !strcmp(fault, "request")    ? "loss@%ld,recovery-fail=1"
                                                   : NULL;
  if (!fmt || stride < 1 || pair_stride < 1 || at < 0 || storm < 0 || (storm > 0 && pairs)) {
    fprintf(stderr, "unlost chaos: bad --fault, --stride, --pair-stride, --at or --storm\n");
    return 2;
  }
  if (density && (pairs || storm > 0 || spec || at || from > to)) {
    fprintf(stderr, "unlost chaos: --density goes with neither --pairs, --storm, --chaos nor --at, and needs "
                    "--from <= --to\n");
    return 2;
  }
  bool need_recovery = !strcmp(fault, "loss") || !strcmp(fault, "request");
  g_json_path = json;
  g_mode = density ? "density" : storm > 0 ? "storm" : pairs ? "pairs" : "points";
  term_start(verbose);
  atexit(term_stop); /* an early return still shows what was written */
  watchdog_start();
  ul_env *env = NULL;
  if (ul_env_create(&(ul_env_desc){.chaos = "seed=1"}, &env)) {
    fprintf(stderr, "unlost chaos: %s: %s\n", ul_status_name(ul_last_status()), ul_last_error());
    return 1;
  }
  /* A schedule that does not parse is a usage error, before any run. */
  if (spec && ul_env_chaos_arm(env, spec)) {
    fprintf(stderr, "unlost chaos: --chaos: %s\n", ul_last_error());
    ul_env_destroy(env);
    return 2;
  }
  if (density) {
    int rc = run_density(env, workload_given ? workload : NULL, from, to, stride, json);
    ul_env_destroy(env);
    return rc;
  }
  if (density) {
    int rc = run_density(env, workload_given ? workload : NULL, from, to, stride, json);
    ul_env_destroy(env);
    return rc;
  }
  static run_result clean, r;
  run_once(env, fn, "seed=1", &clean);
  if (clean.status) {
    fprintf(stderr, "unlost chaos: the clean run failed: %s\n", clean.error);
    ul_env_destroy(env);
    return 1;
  }
  bool clean_cpu = clean.out.output_size == clean.out.expected_size &&
                   !memcmp(clean.out.output, clean.out.expected, clean.out.output_size);
  printf("clean run: %llu WebGPU calls, %zu output bytes, hash %016llx, %s the CPU reference, %.1f ms\n",
         (unsigned long long)clean.calls, clean.out.output_size, (unsigned long long)clean.out.hash,
         clean_cpu ? "equal to" : "DIFFERENT FROM", clean.ms);
  if (!clean_cpu) {
    fprintf(stderr, "unlost chaos: the clean run does not match the CPU reference\n");
    ul_env_destroy(env);
    return 1;
  }
  if (storm > 0) {
    int rc = run_storm(env, fn, storm, seed, health, inject, &clean, json);
    ul_env_destroy(env);
    return rc;
  }
  static tally t;
  memset(&t, 0, sizeof t);
  if (at > (long)clean.calls) {
    /* A point past the end would inject nothing and test nothing. */
    fprintf(stderr, "unlost chaos: --at %ld: the clean run made only %llu WebGPU calls\n", at,
            (unsigned long long)clean.calls);
    ul_env_destroy(env);
    return 2;
  }
  long first = at ? at : 1, last = at ? at : (long)clean.calls;
  if (spec) first = last = 1;
  long total = (last - first) / stride + 1;
  double t_points = now_ms();
  for (long i = first; i <= last; i += stride) {
    char sp[160];
    if (!pairs) {
      /* A --spec goes as it is: never cut to a buffer's size. */
      snprintf(sp, sizeof sp, fmt, i);
      const char *point = spec ? spec : sp;
      run_once(env, fn, inject ? point : "seed=1", &r);
      count_point(&t, point, &r, &clean, need_recovery, 1);
    } else {
      /* The first loss alone, counting recovery's calls: how long the
       * recovery, checkpoint and replay after call i are. */
      snprintf(sp, sizeof sp, "loss@%ld,count-recovery=1", i);
      run_once(env, fn, inject ? sp : "seed=1", &r);
      if (!r.injected) {
        count_point(&t, sp, &r, &clean, true, 1); /* not applicable */
        continue;
      }
      long window = (long)(r.calls > clean.calls ? r.calls - clean.calls : 0) + 2;
      for (long j = i + 1; j <= i + window; j += pair_stride) {
        snprintf(sp, sizeof sp, "loss@%ld,loss@%ld,count-recovery=1", i, j);
        run_once(env, fn, inject ? sp : "seed=1", &r);
        count_point(&t, sp, &r, &clean, true, 2);
      }
    }
    term_progress(pairs ? "first points" : "points", (i - first) / stride + 1, total, t.failed + t.wrong + t.hung,
                  now_ms() - t_points);
  }
  term_progress_end();
  term_stop();
  char what[128];
  snprintf(what, sizeof what, "%s %s at %s", pairs ? "pairs: loss then loss" : "fault", pairs ? "" : fault,
           spec ? spec : at ? "one call" : "every call");
  print_tally(what, &t);
  ul_env_destroy(env);
#ifdef UL_HAVE_JANSSON
  if (json) {
    json_t *doc = json_pack("{s:s,s:s,s:s,s:I,s:I}", "mode", pairs ? "pairs" : "points", "workload", workload,
                            "fault", pairs ? "loss+loss" : fault, "calls", (json_int_t)clean.calls, "stride",
                            (json_int_t)stride);
    bool ok = doc != NULL;
    if (ok && pairs) ok &= cli_json_set(doc, "pair_stride", json_integer(pair_stride));
    if (ok) ok &= json_tally(doc, &t);
    if (ok) {
      ok &= cli_json_set(doc, "clean_ms", cli_json_real(clean.ms, 1));
      ok &= cli_json_set(doc, "output_hash", cli_json_hex64(clean.out.hash));
      ok &= cli_json_set(doc, "clean_matches_cpu", json_true());
    }
    if (!cli_json_write("unlost chaos", json, ok ? doc : (json_decref(doc), NULL))) return 1;
  }
#endif
  return t.applicable > 0 && t.passed == t.applicable && !t.wrong && !t.hung && !t.leaked ? 0 : 1;
}
