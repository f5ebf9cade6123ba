/* unlost chaos: run a workload once clean, then once per WebGPU call index
 * with a fault injected there (or a pair of faults, or a storm of losses),
 * and check each run against the clean run and the CPU. A point where
 * nothing was injected is not applicable: it is never counted as passed. */
#include "cli.h"
#include "workload.h"

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

static void chaos_usage(FILE *f) {
  fprintf(f,
          "usage: unlost chaos [--workload NAME] [--every-call | --at N | --spec SPEC]\n"
          "                    [--fault loss|oom|validation|request] [--stride K]\n"
          "                    [--pairs [--pair-stride M]] [--storm SECONDS --seed S\n"
          "                    [--no-health]] [--json FILE]\n"
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
          "  --spec SPEC      one run with this chaos schedule (see docs)\n"
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
          "  --json FILE      write the summary as JSON\n"
          "\n"
          "A point passes only when its faults were injected (both losses of a\n"
          "pair), the run recovered\n"
          "(for loss and request) and its output is the clean run's. Exit status:\n"
          "0 when every applicable point passed and no run was wrong, 1 otherwise,\n"
          "2 usage error.\n");
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
  double ms;
} run_result;

/* The device's unlost_standby_recoveries_total, from its metrics text. */
static uint64_t standby_recoveries(ul_device *dev) {
  char *text = NULL;
  uint64_t n = 0;
  if (ul_metrics(&dev, 1, UL_METRICS_PROMETHEUS, &text)) return 0;
  static const char key[] = "\nunlost_standby_recoveries_total{";
  const char *p = strstr(text, key);
  if (p && (p = strchr(p + 1, '}'))) n = strtoull(p + 1, NULL, 10);
  ul_free(text);
  return n;
}


/* A point that takes longer than this is reported as hung. */
#define CHAOS_HUNG_MS 60000.0

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
  double t0 = now_ms();
  ul_device *dev = NULL;
  ul_device_desc dd = chaos_device_desc(true);
  if (ul_env_chaos_arm(env, spec)) {
    r->status = UL_ERR_INVALID_ARGUMENT;
    snprintf(r->error, sizeof r->error, "bad chaos schedule '%s': %s", spec, ul_last_error());
    return;
  }
  r->status = ul_device_create(env, &dd, &dev);
  if (!r->status) r->status = fn(dev, &r->out);
  /* A loss during the workload's teardown is recovered here, as the next
   * call of a program would: every loss must end in a recovery. */
  if (!r->status) r->status = ul_device_recover(dev);
  if (r->status) snprintf(r->error, sizeof r->error, "%s: %s", ul_status_name(r->status), ul_last_error());
  if (dev) {
    ul_memory_stats st;
    if (!ul_device_memory_stats(dev, &st)) r->leaked_objects = st.live_objects;
    r->recoveries = ul_device_recoveries(dev);
    r->standby_recoveries = standby_recoveries(dev);
  }
  r->calls = chaos_calls(env);
  r->injected = chaos_injected(env);
  if (ul_device_destroy(dev) == UL_ERR_BUSY && !r->leaked_objects) r->leaked_objects = 1;
  ul_env_chaos_arm(env, "seed=1");
  r->ms = now_ms() - t0;
}

typedef struct tally {
  long tested, applicable, passed, wrong, failed, hung;
  uint64_t injected, recoveries, standby_recoveries, leaked;
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
  t->leaked += r->leaked_objects;
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
  if (!applicable) return;
  t->applicable++;
  if (good && !r->leaked_objects && r->ms <= CHAOS_HUNG_MS && (!need_recovery || r->recoveries >= 1)) {
    t->passed++;
    return;
  }
  t->failed++;
  if (r->status) note_failure(t, spec, r->error);
  else if (good && need_recovery && !r->recoveries) note_failure(t, spec, "a loss was injected but nothing recovered");
}

static void print_tally(const char *what, const tally *t) {
  printf("%s: %ld points tested, %ld applicable, %ld passed, %ld wrong, %ld failed, %ld hung, "
         "%llu injected, %llu recoveries, %llu leaked objects, max %.1f ms per point (%s)\n",
         what, t->tested, t->applicable, t->passed, t->wrong, t->failed, t->hung,
         (unsigned long long)t->injected, (unsigned long long)t->recoveries, (unsigned long long)t->leaked,
         t->max_ms, t->slowest);
  if (t->flen) printf("failures:\n%s", t->failures);
}

static void json_tally(FILE *f, const tally *t) {
  fprintf(f,
          "\"points_tested\":%ld,\"points_applicable\":%ld,\"points_passed\":%ld,\"points_wrong\":%ld,"
          "\"points_failed\":%ld,\"points_hung\":%ld,\"injected\":%llu,\"recoveries\":%llu,"
          "\"standby_recoveries\":%llu,\"leaked_objects\":%llu,\"max_point_ms\":%.1f,\"mean_point_ms\":%.1f,"
          "\"slowest_point\":",
          t->tested, t->applicable, t->passed, t->wrong, t->failed, t->hung, (unsigned long long)t->injected,
          (unsigned long long)t->recoveries, (unsigned long long)t->standby_recoveries,
          (unsigned long long)t->leaked, t->max_ms,
          t->tested ? t->total_ms / (double)t->tested : 0);
  cli_json_string(f, t->slowest);
}

/* ---- storms ---- */
typedef struct storm_ctx {
  pthread_mutex_t mu;  /* guards dev: the main thread replaces a FAILED one */
  ul_device *dev;
  _Atomic bool stop;
  uint64_t rng;
  double scale;        /* the workload's size against the basic one's */
  _Atomic uint64_t forced;
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
    if (c->dev && !ul_device_force_loss(c->dev, "unlost chaos: storm")) atomic_fetch_add(&c->forced, 1);
    pthread_mutex_unlock(&c->mu);
  }
  return NULL;
}

/* Ends a storm's device: what it leaked and recovered is counted; the
 * forcing thread lets go of it first. */
static void storm_retire(storm_ctx *sc, ul_device *dev, uint64_t *leaked, uint64_t *recoveries) {
  ul_memory_stats st = {0};
  ul_device_memory_stats(dev, &st);
  *leaked += st.live_objects;
  *recoveries += ul_device_recoveries(dev);
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
  uint64_t recoveries = 0, leaked = 0;
  double t0 = now_ms(), max_ms = 0;
  char first_error[512] = "";
  while (now_ms() - t0 < seconds * 1000.0) {
    double r0 = now_ms();
    ul_status s = fn(dev, &out);
    double ms = now_ms() - r0;
    runs++;
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
      storm_retire(&sc, dev, &leaked, &recoveries);
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
  uint64_t injected = chaos_injected(env);
  ul_device_state final_state = dev ? ul_device_get_state(dev) : UL_DEVICE_FAILED;
  if (dev) storm_retire(&sc, dev, &leaked, &recoveries);
  pthread_mutex_destroy(&sc.mu);
  ul_env_chaos_arm(env, "seed=1");
  uint64_t forced = atomic_load(&sc.forced);
  printf("storm %.0f s, seed %llu, health %s, schedule %s: %ld runs, %ld ok, %ld wrong, %ld errors, %ld hung, "
         "%llu losses forced from another thread, %llu injected by the schedule, %llu recoveries, "
         "%ld devices that gave up (FAILED), %llu leaked objects, final state %s, max %.1f ms per run\n",
         seconds, (unsigned long long)seed, health ? "on" : "off", spec, runs, ok, wrong, errors, hung,
         (unsigned long long)forced, (unsigned long long)injected, (unsigned long long)recoveries,
         failed_devices, (unsigned long long)leaked, ul_device_state_name(final_state), max_ms);
  if (first_error[0]) printf("first error: %s\n", first_error);
  if (json) {
    FILE *f = fopen(json, "w");
    if (!f) {
      perror(json);
      return 1;
    }
    fprintf(f,
            "{\"mode\":\"storm\",\"seconds\":%.1f,\"seed\":%llu,\"health\":%s,\"schedule\":\"%s\",\"runs\":%ld,"
            "\"runs_ok\":%ld,\"runs_wrong\":%ld,\"runs_error\":%ld,\"runs_hung\":%ld,\"losses_forced\":%llu,"
            "\"injected\":%llu,\"recoveries\":%llu,\"devices_failed\":%ld,\"leaked_objects\":%llu,"
            "\"final_state\":\"%s\",\"max_run_ms\":%.1f,\"points_wrong\":%ld,\"points_hung\":%ld}\n",
            seconds, (unsigned long long)seed, health ? "true" : "false", spec, runs, ok, wrong, errors, hung,
            (unsigned long long)forced, (unsigned long long)injected, (unsigned long long)recoveries,
            failed_devices, (unsigned long long)leaked, ul_device_state_name(final_state), max_ms, wrong, hung);
    fclose(f);
  }
  /* Errors are honest (a status, not wrong data); the storm must still
   * have been one (losses happened) and have finished runs. */
  return !wrong && !hung && !leaked && ok > 0 && (forced + injected) > 0 ? 0 : 1;
}

int cmd_chaos(int argc, char **argv) {
  const char *workload = "basic", *json = NULL, *fault = "loss", *spec = NULL;
  long at = 0, stride = 1, pair_stride = 1;
  bool pairs = false, health = true, inject = true;
  double storm = 0;
  uint64_t seed = 1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    bool has = i + 1 < argc;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      chaos_usage(stdout);
      return 0;
    } else if (!strcmp(a, "--every-call")) {
      at = 0;
    } else if (!strcmp(a, "--workload") && has) workload = argv[++i];
    else if (!strcmp(a, "--json") && has) json = argv[++i];
    else if (!strcmp(a, "--fault") && has) fault = argv[++i];
    else if (!strcmp(a, "--spec") && has) spec = argv[++i];
    else if (!strcmp(a, "--at") && has) {
      uint64_t v;
      if (!cli_u64("chaos", a, argv[++i], 1, 1ull << 40, &v)) return 2;
      at = (long)v;
    } else if (!strcmp(a, "--stride") && has) {
      uint64_t v;
      if (!cli_u64("chaos", a, argv[++i], 1, 1ull << 40, &v)) return 2;
      stride = (long)v;
    } else if (!strcmp(a, "--pairs")) pairs = true;
    else if (!strcmp(a, "--pair-stride") && has) {
      uint64_t v;
      if (!cli_u64("chaos", a, argv[++i], 1, 1ull << 40, &v)) return 2;
      pair_stride = (long)v;
    } else if (!strcmp(a, "--storm") && has) {
      if (!cli_f64("chaos", a, argv[++i], 0.001, 7 * 86400.0, &storm)) return 2;
    } else if (!strcmp(a, "--seed") && has) {
      if (!cli_u64("chaos", a, argv[++i], 0, UINT64_MAX, &seed)) return 2;
    }
    else if (!strcmp(a, "--no-health")) health = false;
    else if (!strcmp(a, "--steps") && has) {
      uint64_t v;
      if (!cli_u64("chaos", a, argv[++i], 1, 400, &v)) return 2;
      workload_iterate_config((uint32_t)v, 0);
    } else if (!strcmp(a, "--threads") && has) {
      uint64_t v;
      if (!cli_u64("chaos", a, argv[++i], 1, 8, &v)) return 2;
      workload_iterate_config(0, (uint32_t)v);
    }
    /* Hidden: the harness's own test. Nothing is injected, so no point is
     * applicable and the run must fail. */
    else if (!strcmp(a, "--no-inject")) inject = false;
    else {
      fprintf(stderr, "unlost chaos: unknown or incomplete option '%s'\n", a);
      chaos_usage(stderr);
      return 2;
    }
  }
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
  bool need_recovery = !strcmp(fault, "loss") || !strcmp(fault, "request");
  bool tty = isatty(1);
  ul_env *env = NULL;
  if (ul_env_create(&(ul_env_desc){.chaos = "seed=1"}, &env)) {
    fprintf(stderr, "unlost chaos: %s: %s\n", ul_status_name(ul_last_status()), ul_last_error());
    return 1;
  }
  /* A schedule that does not parse is a usage error, before any run. */
  if (spec && ul_env_chaos_arm(env, spec)) {
    fprintf(stderr, "unlost chaos: --spec: %s\n", ul_last_error());
    ul_env_destroy(env);
    return 2;
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
    if (tty) {
      printf("\r%ld/%ld first points, %ld tested, %ld passed", (i - first) / stride + 1, total, t.tested, t.passed);
      fflush(stdout);
    }
  }
  if (tty) printf("\n");
  char what[128];
  snprintf(what, sizeof what, "%s %s at %s", pairs ? "pairs: loss then loss" : "fault", pairs ? "" : fault,
           spec ? spec : at ? "one call" : "every call");
  print_tally(what, &t);
  ul_env_destroy(env);
  if (json) {
    FILE *f = fopen(json, "w");
    if (!f) {
      perror(json);
      return 1;
    }
    fprintf(f, "{\"mode\":\"%s\",\"workload\":\"%s\",\"fault\":\"%s\",\"calls\":%llu,\"stride\":%ld,", pairs ? "pairs" : "points",
            workload, pairs ? "loss+loss" : fault, (unsigned long long)clean.calls, stride);
    if (pairs) fprintf(f, "\"pair_stride\":%ld,", pair_stride);
    json_tally(f, &t);
    fprintf(f, ",\"clean_ms\":%.1f,\"output_hash\":\"%016llx\",\"clean_matches_cpu\":true}\n", clean.ms,
            (unsigned long long)clean.out.hash);
    fclose(f);
  }
  return t.applicable > 0 && t.passed == t.applicable && !t.wrong && !t.hung && !t.leaked ? 0 : 1;
}
