/* unlost chaos --workload webgpu-NAME: fault injection through the webgpu.h
 * front door. The programs of tests/webgpu are written on webgpu.h alone;
 * their _linked build runs on libunlost-webgpu. Each runs as a child: once
 * clean, counting its WebGPU calls, then once per point with a fault
 * schedule in UNLOST_CHAOS. A child has a hard timeout (a hang is counted
 * and the child killed); its digest is compared with the clean run's; and
 * the line the layer appends to UNLOST_CHAOS_REPORT at the last instance
 * release (or at exit) says what was injected, recovered, leaked and
 * failed. A point where nothing was injected is not applicable: it is
 * never counted as passed. --control runs the same points with UNLOST_RECOVERY=0, where the
 * faults must fail the program: that shows the harness sees them. */
#include "cli.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

int cmd_chaos_webgpu(int argc, char **argv);

static void usage(FILE *f) {
  fprintf(f,
          "usage: unlost chaos --workload webgpu-NAME[,webgpu-NAME...] | webgpu-all\n"
          "                    [--every-call | --at N | --chaos SPEC] [--stride K | --points N]\n"
          "                    [--fault loss|oom|validation|request]\n"
          "                    [--pairs [--pair-stride M | --pair-points M]]\n"
          "                    [--storm SECONDS [--seed S] [--repeat R]]\n"
          "                    [--control] [--jobs J] [--timeout SECONDS] [--json [FILE]]\n"
          "       unlost chaos --workload webgpu-gen --programs N [--schedules M] [--seed S]\n"
          "                    [--gen-size K] [--gen-threads] [--control] [--jobs J] ...\n"
          "\n"
          "Runs a program of tests/webgpu (webgpu.h alone, linked to libunlost-webgpu)\n"
          "as a child: once without faults, counting its WebGPU calls, then once for\n"
          "each call index 1..calls with UNLOST_CHAOS injecting a fault there. Each\n"
          "run must print the clean run's digest and 'ok', recover every loss, leak\n"
          "no device and end within the timeout (a hang is killed and counted).\n"
          "\n"
          "  --workload W     webgpu-NAME (matmul, reduce, ...), a comma list of them,\n"
          "                   or webgpu-all (also webgpu-*): every program found\n"
          "  --every-call     inject at every call index (the default)\n"
          "  --stride K       inject at every K-th call index only\n"
          "  --points N       about N call indices per program, evenly spread\n"
          "                   (the stride is chosen from its clean call count)\n"
          "  --at N           inject at call N only\n"
          "  --chaos SPEC     one run with this chaos schedule (UNLOST_CHAOS's grammar,\n"
          "                   docs/chaos.md; --spec is the same option)\n"
          "  --fault KIND     loss (default); oom, validation: an error inside\n"
          "                   unlost's error scopes; request: a loss whose recovery's\n"
          "                   device request fails once\n"
          "  --pairs          a loss at call i, then a second loss at every call j of\n"
          "                   the recovery that follows (counted with count-recovery=1)\n"
          "  --pair-stride M  every M-th j only (default 1)\n"
          "  --pair-points M  about M values of j per i\n"
          "  --storm SECONDS  per program: run it with --repeat R again and again for\n"
          "                   SECONDS, each run under a dense schedule of its own seed\n"
          "                   (a loss every quarter to three quarters of a repetition,\n"
          "                   or random losses that also land inside recoveries)\n"
          "  --seed S         the storm's seed (default 1)\n"
          "  --repeat R       the storm's repetitions per run (default 4)\n"
          "  --programs N     webgpu-gen only: N generated programs (seeds S..S+N-1),\n"
          "                   each run directly (the reference digest, checked against\n"
          "                   the CPU), clean through the layer, then under M random\n"
          "                   loss schedules (one loss, a pair, loss-every, loss-rate);\n"
          "                   a run passes with the same digest, is an error when the\n"
          "                   program's device-lost callback named the loss, and is\n"
          "                   wrong otherwise (or hung, or crashed)\n"
          "  --schedules M    schedules per generated program (default 4)\n"
          "  --gen-size K     the generated programs' size, 1..8 (default 1)\n"
          "  --gen-threads    let each seed choose 1-3 threads (default: one thread)\n"
          "  --control        the same runs with UNLOST_RECOVERY=0 (recovery off): the\n"
          "                   faults must now fail the program, so this exits 1\n"
          "  --jobs J         run J children at a time (default 1)\n"
          "  --timeout S      a child running longer is hung and killed (default 60)\n"
          "  --json [FILE]    write the summary as JSON to FILE (none or '-': stdout)\n"
          "\n"
          "The programs are looked for in $UNLOST_WEBGPU_PROGRAMS_DIR, else in\n"
          "tests/webgpu next to this executable (a build tree). Exit status: 0 when\n"
          "every applicable point passed and no run was wrong, hung or leaked,\n"
          "1 otherwise (always for --control, whose faults must be seen), 2 usage\n"
          "error, 77 when no program found an adapter.\n");
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static uint64_t splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static long ceil_div(long a, long b) { return b > 0 ? (a + b - 1) / b : a; }

/* ---- options and programs ---- */

typedef enum { MODE_POINTS, MODE_PAIRS, MODE_STORM, MODE_GEN } run_mode;

typedef struct wopts {
  run_mode mode;
  const char *fault, *fault_fmt, *spec, *json;
  long at, stride, pair_stride, points, pair_points;
  bool control, need_recovery, tty;
  double storm_s, timeout_ms;
  uint64_t seed;
  unsigned repeat, jobs;
  /* --programs (webgpu-gen): programs, schedules per program, their size,
   * and whether the seed chooses threads too (else single-threaded) */
  long programs, schedules;
  unsigned gen_size;
  bool gen_threads;
  char tmp[64]; /* the folder of the children's output files */
} wopts;

typedef struct wprog {
  char name[64];
  char linked[PATH_MAX];
  char direct[PATH_MAX];
  char env[4][48]; /* added to the child's environment (webgpu-gen's seed) */
} wprog;

static bool programs_dir(char *out, size_t cap) {
  const char *env = getenv("UNLOST_WEBGPU_PROGRAMS_DIR");
  if (env && *env) return (size_t)snprintf(out, cap, "%s", env) < cap;
  char self[PATH_MAX];
  return cli_self_dir(self, sizeof self) && (size_t)snprintf(out, cap, "%s/tests/webgpu", self) < cap;
}

static bool executable(const char *path) {
  struct stat st;
  return !stat(path, &st) && S_ISREG(st.st_mode) && !access(path, X_OK);
}

static bool prog_fill(wprog *p, const char *dir, const char *name) {
  if (!*name || strlen(name) >= sizeof p->name) return false;
  snprintf(p->name, sizeof p->name, "%s", name);
  if ((size_t)snprintf(p->linked, sizeof p->linked, "%s/wgpu_%s_linked", dir, name) >= sizeof p->linked) return false;
  snprintf(p->direct, sizeof p->direct, "%s/wgpu_%s", dir, name);
  if (!executable(p->direct)) p->direct[0] = '\0';
  return executable(p->linked);
}

static int name_cmp(const void *a, const void *b) { return strcmp(((const wprog *)a)->name, ((const wprog *)b)->name); }

/* Every wgpu_NAME_linked in dir, sorted by NAME. */
static size_t programs_all(const char *dir, wprog *out, size_t cap) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  size_t n = 0;
  struct dirent *e;
  while ((e = readdir(d)) && n < cap) {
    size_t len = strlen(e->d_name);
    static const char pre[] = "wgpu_", suf[] = "_linked";
    if (len <= strlen(pre) + strlen(suf) || strncmp(e->d_name, pre, strlen(pre)) ||
        strcmp(e->d_name + len - strlen(suf), suf))
      continue;
    char name[64];
    size_t nl = len - strlen(pre) - strlen(suf);
    if (nl >= sizeof name) continue;
    memcpy(name, e->d_name + strlen(pre), nl);
    name[nl] = '\0';
    if (prog_fill(&out[n], dir, name)) n++;
  }
  closedir(d);
  qsort(out, n, sizeof *out, name_cmp);
  return n;
}

/* ---- one child ---- */

typedef struct child_result {
  int exit_code; /* -1: killed by a signal or for its time */
  int signal;    /* the signal that ended it, when it was not ours */
  bool hung;
  double ms;
  bool ok_line, wrong_line, has_digest;
  uint64_t digest;
  layer_report rep;
  char said[200];     /* what the program said of its failure on stderr (else stdout) */
  char said_out[200]; /* on stdout (a mismatch is said there) */
  bool lost_named;    /* the program's device-lost callback said why (stderr) */
} child_result;

typedef enum { T_POINT, T_PROBE, T_PAIR, T_STORM, T_GEN } task_kind;

typedef struct task {
  task_kind kind;
  long i;
  char *spec;
} task;

typedef struct slot {
  pid_t pid;
  double t0;
  task t;
  char out[128], err[128], rep[128];
} slot;

static bool has_prefix(const char *s, const char *p) { return !strncmp(s, p, strlen(p)); }

/* The parent's environment with the layer's chaos variables set for one
 * run, built before fork (the child only calls execve). `own` keeps what
 * was allocated here. */
typedef struct child_envp {
  char **env;
  char *own[3];
} child_envp;

static bool child_env(child_envp *ce, const wprog *p, const char *spec, const char *report, bool recovery) {
  memset(ce, 0, sizeof *ce);
  size_t n = 0;
  while (environ[n]) n++;
  char **env = calloc(n + 5 + 4, sizeof *env);
  if (!env) return false;
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (!has_prefix(environ[i], "UNLOST_CHAOS=") && !has_prefix(environ[i], "UNLOST_CHAOS_REPORT=") &&
        !has_prefix(environ[i], "UNLOST_RECOVERY="))
      env[k++] = environ[i];
  ce->env = env;
  if (asprintf(&ce->own[0], "UNLOST_CHAOS=%s", spec) < 0) ce->own[0] = NULL;
  if (asprintf(&ce->own[1], "UNLOST_CHAOS_REPORT=%s", report) < 0) ce->own[1] = NULL;
  if (asprintf(&ce->own[2], "UNLOST_RECOVERY=%d", recovery ? 1 : 0) < 0) ce->own[2] = NULL;
  for (int i = 0; i < 3; i++) {
    if (!ce->own[i]) return false;
    env[k++] = ce->own[i];
  }
  for (int i = 0; i < 4; i++)
    if (p->env[i][0]) env[k++] = (char *)p->env[i];
  /* The layer's log goes to the child's stderr, read only for a failure. */
  if (!getenv("UNLOST_LOG")) env[k++] = "UNLOST_LOG=none";
  return true;
}

static void child_env_free(child_envp *ce) {
  for (int i = 0; i < 3; i++) free(ce->own[i]);
  free(ce->env);
}

static bool slot_start(slot *s, const wprog *p, const wopts *o, unsigned repeat) {
  unlink(s->rep); /* the layer appends */
  child_envp ce;
  if (!child_env(&ce, p, s->t.spec, s->rep, !o->control)) {
    child_env_free(&ce);
    errno = ENOMEM;
    return false;
  }
  char rep[16];
  snprintf(rep, sizeof rep, "%u", repeat);
  char *args[] = {(char *)p->linked, repeat > 1 ? "--repeat" : NULL, repeat > 1 ? rep : NULL, NULL};
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid == 0) {
    int out = open(s->out, O_WRONLY | O_CREAT | O_TRUNC, 0600), err = open(s->err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int in = open("/dev/null", O_RDONLY);
    if (out < 0 || err < 0 || in < 0) _exit(126);
    dup2(in, 0);
    dup2(out, 1);
    dup2(err, 2);
    execve(p->linked, args, ce.env);
    _exit(127);
  }
  int e = errno;
  child_env_free(&ce);
  errno = e;
  if (pid < 0) return false;
  s->pid = pid;
  s->t0 = now_ms();
  return true;
}

/* s, cut to fit (an excerpt for a message). */
static void copy_cut(char *out, size_t cap, const char *s) {
  size_t n = strlen(s);
  if (n >= cap) n = cap - 1;
  memcpy(out, s, n);
  out[n] = '\0';
}

/* The line of `path` that says most about a failure: the first that speaks
 * of a loss, an error, a failure or a mismatch, else the last. */
static void read_said(const char *path, char *out, size_t cap) {
  FILE *f = fopen(path, "r");
  if (!f) return;
  char line[512], last[512] = "";
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = '\0';
    if (!line[0] || strstr(line, ": adapter \"") || strstr(line, "as expected")) continue;
    copy_cut(last, sizeof last, line);
    if (strstr(line, "lost") || strstr(line, "error") || strstr(line, "fail") || strstr(line, "FAIL") ||
        strstr(line, "mismatch")) {
      if (!out[0]) copy_cut(out, cap, line);
    }
  }
  fclose(f);
  if (!out[0] && last[0]) copy_cut(out, cap, last);
}

static void slot_finish(slot *s, int status, bool killed, child_result *r) {
  memset(r, 0, sizeof *r);
  r->ms = now_ms() - s->t0;
  r->hung = killed;
  if (killed) r->exit_code = -1;
  else if (WIFEXITED(status)) r->exit_code = WEXITSTATUS(status);
  else {
    r->exit_code = -1;
    r->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  }
  FILE *f = fopen(s->out, "r");
  if (f) {
    char line[512];
    while (fgets(line, sizeof line, f)) {
      unsigned long long d;
      if (sscanf(line, "digest %16llx", &d) == 1) {
        r->digest = d;
        r->has_digest = true;
      } else if (has_prefix(line, "ok ")) {
        r->ok_line = true;
      } else if (has_prefix(line, "FAIL ") && strstr(line, "wrong results")) {
        r->wrong_line = true;
      }
    }
    fclose(f);
  }
  layer_report_read(s->rep, &r->rep);
  if (r->exit_code != 0 || r->wrong_line) {
    read_said(s->err, r->said, sizeof r->said);
    read_said(s->out, r->said_out, sizeof r->said_out);
    if (!r->said[0]) memcpy(r->said, r->said_out, sizeof r->said);
    /* wgpu_prog.h's device-lost callback: "NAME: device lost (reason R): MESSAGE". */
    FILE *e = fopen(s->err, "r");
    char line[512];
    while (e && fgets(line, sizeof line, e))
      if (strstr(line, ": device lost (reason ")) r->lost_named = true;
    if (e) fclose(e);
  }
  s->pid = 0;
}

/* ---- tallies ---- */

#define MAX_FAILURES 40

typedef struct failure {
  long seq; /* the point's call index (or storm run), for the order */
  char *spec;
  char why[320];
} failure;

typedef struct wtally {
  long tested, applicable, not_applicable, passed, passed_unrecovered, wrong, failed, hung, crashed, leaked_points;
  uint64_t injected, recoveries, leaked, failed_devices;
  double max_ms, total_ms;
  char slowest[160];
  failure failures[MAX_FAILURES];
  long nfailures;
  /* storms */
  long runs, runs_ok, runs_error;
  unsigned schedules_every, schedules_rate;
  /* webgpu-gen: points where something was injected; programs whose direct
   * run (or clean run through the layer) failed */
  long points_injected, direct_failed;
} wtally;

typedef struct wstate {
  const wopts *o;
  const wprog *p;
  uint64_t clean_calls, clean_digest;
  double clean_ms;
  long stride, pair_stride; /* as used (--points and --pair-points choose) */
  long probes_total, probes_done;
  uint64_t rng;   /* storms */
  long storm_seq;
  wtally t;
} wstate;

static void note_failure(wtally *t, long seq, const char *spec, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void note_failure(wtally *t, long seq, const char *spec, const char *fmt, ...) {
  if (t->nfailures++ >= MAX_FAILURES) return;
  failure *f = &t->failures[t->nfailures - 1];
  f->seq = seq;
  f->spec = strdup(spec);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(f->why, sizeof f->why, fmt, ap);
  va_end(ap);
}

/* Why a run is not a pass, in words (empty: it is one). */
static void verdict(const wstate *w, const child_result *r, char *why, size_t cap) {
  why[0] = '\0';
  const char *said = r->said[0] ? r->said : "nothing on stderr";
  if (r->hung)
    snprintf(why, cap, "hung: killed after %.0f ms", r->ms);
  else if (r->signal)
    snprintf(why, cap, "crashed (signal %d, %s)%s%s", r->signal, strsignal(r->signal), r->said[0] ? ": " : "",
             r->said);
  else if (r->wrong_line || (r->exit_code == 0 && r->has_digest && r->digest != w->clean_digest))
    snprintf(why, cap, "wrong results: digest %016llx, clean %016llx (exit %d%s%s)", (unsigned long long)r->digest,
             (unsigned long long)w->clean_digest, r->exit_code, r->said_out[0] ? ": " : "", r->said_out);
  else if (r->exit_code != 0)
    snprintf(why, cap, "exit %d: %s", r->exit_code, said);
  else if (!r->ok_line || !r->has_digest)
    snprintf(why, cap, "exit 0 without 'ok' and a digest");
  else if (!r->rep.present)
    snprintf(why, cap, "no chaos report (the program ended without exit, or its exit could not take the layer's lock)");
  else if (r->rep.leaked)
    snprintf(why, cap, "%llu device(s) leaked objects", (unsigned long long)r->rep.leaked);
  else if (r->rep.failed)
    snprintf(why, cap, "%llu device(s) failed", (unsigned long long)r->rep.failed);
}

static bool is_wrong(const wstate *w, const child_result *r) {
  return !r->hung && !r->signal &&
         (r->wrong_line || (r->exit_code == 0 && r->has_digest && r->digest != w->clean_digest));
}

/* What every kind of run adds to the totals: its report's counts, its
 * time, and whether it is the slowest so far. */
static void tally_run(wtally *t, const char *spec, const child_result *r) {
  t->injected += r->rep.injected;
  t->recoveries += r->rep.recoveries;
  t->leaked += r->rep.leaked;
  t->failed_devices += r->rep.failed;
  t->total_ms += r->ms;
  if (r->ms > t->max_ms) {
    t->max_ms = r->ms;
    snprintf(t->slowest, sizeof t->slowest, "%s", spec);
  }
}

/* Classifies one run of a point. A run that left no report (killed,
 * crashed, or its instance never released) is applicable: nothing that
 * ends that way passes. */
static void count_point(wstate *w, long seq, const char *spec, const child_result *r, uint64_t need_injected) {
  wtally *t = &w->t;
  t->tested++;
  tally_run(t, spec, r);
  char why[300];
  verdict(w, r, why, sizeof why);
  if (is_wrong(w, r)) t->wrong++;
  if (r->hung) t->hung++;
  if (r->signal) t->crashed++;
  if (r->rep.leaked) t->leaked_points++;
  bool applicable = !r->rep.present || r->rep.injected >= need_injected;
  if (!applicable) {
    t->not_applicable++;
    /* Wrong, hung or leaking without a fault is still all of those; an
     * error with nothing injected is listed too (not counted). */
    bool bad = is_wrong(w, r) || r->hung || r->rep.leaked;
    if (why[0]) note_failure(t, seq, spec, "%s%s", bad ? "" : "nothing injected, yet ", why);
    return;
  }
  t->applicable++;
  if (!why[0]) {
    t->passed++;
    /* A loss after the program's last use of the device (in its teardown)
     * needs no recovery: the layer recovers when the device is used. The
     * results were read back right, so nothing was skipped. */
    if (w->o->need_recovery && !r->rep.recoveries) t->passed_unrecovered++;
    return;
  }
  t->failed++;
  note_failure(t, seq, spec, "%s", why);
}

/* ---- the pool: J children at a time ---- */

typedef struct pool {
  slot *slots;
  unsigned n;
  task *q;
  size_t len, cap, head;
  double t0;
  long done;
} pool;

static bool push(pool *pl, task_kind kind, long i, const char *spec) {
  if (pl->len == pl->cap) {
    size_t cap = pl->cap ? pl->cap * 2 : 256;
    task *q = realloc(pl->q, cap * sizeof *q);
    if (!q) return false;
    pl->q = q;
    pl->cap = cap;
  }
  char *s = strdup(spec);
  if (!s) return false;
  pl->q[pl->len++] = (task){kind, i, s};
  return true;
}

static void storm_spec(wstate *w, char *out, size_t cap) {
  /* The calls of one repetition: the schedules are as dense for every
   * program, whatever its size. */
  uint64_t per_rep = w->clean_calls / (w->o->repeat ? w->o->repeat : 1);
  if (per_rep < 8) per_rep = 8;
  uint64_t r = splitmix(&w->rng), seed = splitmix(&w->rng) % 1000000 + 1;
  if (w->storm_seq++ % 2 == 0) {
    /* A loss every 25-75% of a repetition (at least every 40 calls), at
     * the program's calls: a recovery's own calls are not counted. Much
     * denser, and every retry of one submit's encode (some 30 calls) meets
     * a loss, until the layer gives that call up. */
    uint64_t every = per_rep * (25 + r % 51) / 100;
    if (every < 40) every = 40;
    snprintf(out, cap, "loss-every=%llu,seed=%llu", (unsigned long long)every, (unsigned long long)seed);
    w->t.schedules_every++;
  } else {
    /* Random losses, 0.2 to 0.5 per repetition's worth of calls, that also
     * land inside the recoveries (count-recovery=1): a recovery makes about
     * a repetition's worth of calls, so most recoveries finish at the first
     * or second attempt, and some meet a loss. */
    double rate = (0.2 + (double)(r % 31) / 100.0) / (double)per_rep;
    snprintf(out, cap, "loss-rate=%.6f,count-recovery=1,seed=%llu", rate, (unsigned long long)seed);
    w->t.schedules_rate++;
  }
}

static void count_storm_run(wstate *w, long seq, const char *spec, const child_result *r) {
  wtally *t = &w->t;
  t->runs++;
  tally_run(t, spec, r);
  char why[300];
  verdict(w, r, why, sizeof why);
  if (is_wrong(w, r)) t->wrong++;
  if (r->hung) t->hung++;
  if (r->signal) t->crashed++;
  if (r->rep.leaked) t->leaked_points++;
  if (!why[0]) t->runs_ok++;
  else {
    /* An error the program was told of (exit 1 after its device failed)
     * is honest; it is still listed. */
    if (!is_wrong(w, r) && !r->hung && !r->signal && !r->rep.leaked) t->runs_error++;
    note_failure(t, seq, spec, "%s", why);
  }
}

/* webgpu-gen: one run under a random schedule. Byte-identical results
 * with ok pass; an error is honest only when the program was told of the
 * loss (its device-lost callback ran: unlost gave up); any other outcome
 * is wrong. */
static void count_gen_run(wstate *w, long seq, const char *spec, const child_result *r) {
  wtally *t = &w->t;
  t->tested++;
  tally_run(t, spec, r);
  if (r->rep.injected) t->points_injected++;
  char why[300];
  verdict(w, r, why, sizeof why);
  if (r->rep.leaked) t->leaked_points++;
  if (r->hung) t->hung++;
  else if (r->signal) t->crashed++;
  else if (!why[0]) t->passed++;
  else if (r->exit_code == 1 && !is_wrong(w, r) && r->lost_named) t->runs_error++;
  else if (!(r->exit_code == 0 && !is_wrong(w, r) && r->rep.leaked)) t->wrong++;
  if (why[0]) {
    char full[240];
    snprintf(full, sizeof full, "WGPU_GEN_SEED=%s UNLOST_CHAOS=%s", w->p->env[0] + strlen("WGPU_GEN_SEED="), spec);
    note_failure(t, seq, full, "%s%s", r->exit_code == 1 && !is_wrong(w, r) && r->lost_named ? "error naming the loss: " : "",
                 why);
  }
}

/* What a finished task leads to. */
static void task_done(wstate *w, pool *pl, const task *tk, const child_result *r) {
  const wopts *o = w->o;
  switch (tk->kind) {
  case T_POINT: count_point(w, tk->i, tk->spec, r, 1); break;
  case T_PAIR: count_point(w, tk->i, tk->spec, r, 2); break;
  case T_STORM: count_storm_run(w, tk->i, tk->spec, r); break;
  case T_GEN: count_gen_run(w, tk->i, tk->spec, r); break;
  case T_PROBE: {
    w->probes_done++;
    /* The first loss alone: how long the recovery and replay after call i
     * are. Counted as a point only when it is not applicable or fails
     * (every-call runs test it on its own). */
    char why[300];
    verdict(w, r, why, sizeof why);
    if (r->rep.present && !r->rep.injected) {
      count_point(w, tk->i, tk->spec, r, 1);
      break;
    }
    if (why[0]) {
      count_point(w, tk->i, tk->spec, r, 1);
      break;
    }
    long window = (long)(r->rep.calls > w->clean_calls ? r->rep.calls - w->clean_calls : 0) + 2;
    long ps = o->pair_points ? ceil_div(window, o->pair_points) : w->pair_stride;
    if (ps < 1) ps = 1;
    for (long j = tk->i + 1; j <= tk->i + window; j += ps) {
      char sp[160];
      snprintf(sp, sizeof sp, "loss@%ld,loss@%ld,count-recovery=1", tk->i, j);
      push(pl, T_PAIR, tk->i, sp);
    }
    break;
  }
  }
}

static void progress(const wstate *w, const pool *pl, bool storm) {
  if (!w->o->tty) return;
  double el = (now_ms() - pl->t0) / 1000.0;
  if (storm) {
    printf("\r  webgpu-%s storm: %.0f/%.0f s, %ld runs, %ld not ok   ", w->p->name, el, w->o->storm_s, w->t.runs,
           w->t.runs - w->t.runs_ok);
  } else {
    /* Pairs: the runs still to come are guessed from those so far. */
    double total = (double)pl->len;
    if (w->o->mode == MODE_PAIRS && w->probes_done > 0 && w->probes_done < w->probes_total)
      total += (double)(pl->len - (size_t)w->probes_total) / (double)w->probes_done *
               (double)(w->probes_total - w->probes_done);
    double eta = pl->done ? el / (double)pl->done * (total - (double)pl->done) : 0;
    printf("\r  webgpu-%s: %ld/%.0f runs, %ld failing, ETA %.0f s   ", w->p->name, pl->done, total,
           w->t.failed + w->t.hung, eta > 0 ? eta : 0);
  }
  fflush(stdout);
}

/* Runs the queue (and, for a storm, new runs until its time is up). */
static void pool_run(wstate *w, pool *pl, unsigned repeat) {
  const wopts *o = w->o;
  bool storm = o->mode == MODE_STORM;
  pl->t0 = now_ms();
  double last_progress = 0;
  for (;;) {
    unsigned busy = 0;
    for (unsigned k = 0; k < pl->n; k++) {
      slot *s = &pl->slots[k];
      if (!s->pid && storm && pl->head == pl->len && now_ms() - pl->t0 < o->storm_s * 1000.0) {
        char sp[160];
        storm_spec(w, sp, sizeof sp);
        push(pl, T_STORM, w->storm_seq, sp);
      }
      if (!s->pid && pl->head < pl->len) {
        s->t = pl->q[pl->head++];
        if (!slot_start(s, w->p, o, repeat)) {
          fprintf(stderr, "unlost chaos: cannot start %s: %s\n", w->p->linked, strerror(errno));
          child_result r = {.exit_code = 127};
          snprintf(r.said, sizeof r.said, "could not be started");
          task_done(w, pl, &s->t, &r);
          pl->done++;
          continue;
        }
      }
      if (s->pid) busy++;
    }
    if (!busy) break;
    bool any = false;
    for (unsigned k = 0; k < pl->n; k++) {
      slot *s = &pl->slots[k];
      if (!s->pid) continue;
      int st = 0;
      pid_t got = waitpid(s->pid, &st, WNOHANG);
      bool killed = false;
      if (got == 0 && now_ms() - s->t0 > o->timeout_ms) {
        kill(s->pid, SIGKILL);
        waitpid(s->pid, &st, 0);
        killed = true;
        got = s->pid;
      }
      if (got != s->pid) continue;
      child_result r;
      slot_finish(s, st, killed, &r);
      task_done(w, pl, &s->t, &r);
      pl->done++;
      any = true;
    }
    if (!any) nanosleep(&(struct timespec){0, 1000000}, NULL);
    if (o->tty && now_ms() - last_progress > 200) {
      progress(w, pl, storm);
      last_progress = now_ms();
    }
  }
  if (o->tty) {
    progress(w, pl, storm);
    printf("\n");
  }
}

/* One child, waited for (the clean runs). */
static void run_one(const wopts *o, const wprog *p, const char *spec, unsigned repeat, slot *s, child_result *r,
                    bool direct) {
  wprog d = *p;
  if (direct) snprintf(d.linked, sizeof d.linked, "%s", p->direct);
  s->t = (task){T_POINT, 0, (char *)spec};
  if (!slot_start(s, &d, o, repeat)) {
    memset(r, 0, sizeof *r);
    r->exit_code = 127;
    snprintf(r->said, sizeof r->said, "could not be started: %s", strerror(errno));
    return;
  }
  int st = 0;
  bool killed = false;
  for (;;) {
    pid_t got = waitpid(s->pid, &st, WNOHANG);
    if (got == s->pid) break;
    if (now_ms() - s->t0 > o->timeout_ms) {
      kill(s->pid, SIGKILL);
      waitpid(s->pid, &st, 0);
      killed = true;
      break;
    }
    nanosleep(&(struct timespec){0, 1000000}, NULL);
  }
  slot_finish(s, st, killed, r);
}

/* ---- output ---- */

static int failure_cmp(const void *a, const void *b) {
  const failure *x = a, *y = b;
  if (x->seq != y->seq) return x->seq < y->seq ? -1 : 1;
  return strcmp(x->spec ? x->spec : "", y->spec ? y->spec : "");
}

static void print_failures(wstate *w) {
  wtally *t = &w->t;
  if (!t->nfailures) return;
  qsort(t->failures, (size_t)(t->nfailures < MAX_FAILURES ? t->nfailures : MAX_FAILURES), sizeof t->failures[0],
        failure_cmp);
  printf("  failures:\n");
  for (long k = 0; k < t->nfailures && k < MAX_FAILURES; k++)
    printf("    %s: %s\n", t->failures[k].spec, t->failures[k].why);
  if (t->nfailures > MAX_FAILURES) printf("    ... and %ld more\n", t->nfailures - MAX_FAILURES);
  printf("  reproduce one: UNLOST_CHAOS='%s' UNLOST_LOG=info %s%s\n", t->failures[0].spec, w->p->linked,
         w->o->mode == MODE_STORM ? " --repeat R" : "");
}

static const char *mode_words(const wopts *o, char *buf, size_t cap) {
  if (o->mode == MODE_PAIRS) snprintf(buf, cap, "pairs: loss then loss");
  else if (o->spec) snprintf(buf, cap, "schedule %s", o->spec);
  else if (o->at) snprintf(buf, cap, "fault %s at call %ld", o->fault, o->at);
  else snprintf(buf, cap, "fault %s at every call", o->fault);
  return buf;
}

static void print_tally(const char *what, const char *strides, const wtally *t) {
  printf("%s%s: %ld points tested, %ld applicable, %ld passed (%ld with no recovery needed), %ld wrong, %ld failed, "
         "%ld hung, %ld crashed, %ld not applicable, %llu injected, %llu recoveries, %llu leaked devices, "
         "%llu failed devices, max %.1f ms per point (%s)\n",
         what, strides, t->tested, t->applicable, t->passed, t->passed_unrecovered, t->wrong, t->failed, t->hung,
         t->crashed,
         t->not_applicable, (unsigned long long)t->injected, (unsigned long long)t->recoveries,
         (unsigned long long)t->leaked, (unsigned long long)t->failed_devices, t->max_ms, t->slowest);
}

static void print_storm(const char *what, const wopts *o, const wtally *t) {
  printf("%s: storm %.0f s, seed %llu, --repeat %u, %u loss-every and %u loss-rate schedules: %ld runs, %ld ok, "
         "%ld wrong, %ld errors, %ld hung, %ld crashed, %llu injected, %llu recoveries, %llu failed devices, "
         "%llu leaked devices, max %.1f ms per run\n",
         what, o->storm_s, (unsigned long long)o->seed, o->repeat, t->schedules_every, t->schedules_rate, t->runs,
         t->runs_ok, t->wrong, t->runs_error, t->hung, t->crashed, (unsigned long long)t->injected,
         (unsigned long long)t->recoveries, (unsigned long long)t->failed_devices, (unsigned long long)t->leaked,
         t->max_ms);
}

static void add_tally(wtally *a, const wtally *b) {
  a->tested += b->tested;
  a->applicable += b->applicable;
  a->not_applicable += b->not_applicable;
  a->passed += b->passed;
  a->passed_unrecovered += b->passed_unrecovered;
  a->wrong += b->wrong;
  a->failed += b->failed;
  a->hung += b->hung;
  a->crashed += b->crashed;
  a->leaked_points += b->leaked_points;
  a->injected += b->injected;
  a->recoveries += b->recoveries;
  a->leaked += b->leaked;
  a->failed_devices += b->failed_devices;
  a->total_ms += b->total_ms;
  if (b->max_ms > a->max_ms) {
    a->max_ms = b->max_ms;
    memcpy(a->slowest, b->slowest, sizeof a->slowest);
  }
  a->runs += b->runs;
  a->runs_ok += b->runs_ok;
  a->runs_error += b->runs_error;
  a->schedules_every += b->schedules_every;
  a->schedules_rate += b->schedules_rate;
  a->points_injected += b->points_injected;
  a->direct_failed += b->direct_failed;
}

#ifdef UL_HAVE_JANSSON
/* The tally's keys, added to the summary o; false when one could not be. */
static bool json_tally(json_t *o, const wopts *opt, const wtally *t) {
  bool ok = true;
  if (opt->mode == MODE_STORM) {
    ok &= cli_json_set(o, "runs", json_integer(t->runs));
    ok &= cli_json_set(o, "runs_ok", json_integer(t->runs_ok));
    ok &= cli_json_set(o, "runs_wrong", json_integer(t->wrong));
    ok &= cli_json_set(o, "runs_error", json_integer(t->runs_error));
    ok &= cli_json_set(o, "runs_hung", json_integer(t->hung));
    ok &= cli_json_set(o, "runs_crashed", json_integer(t->crashed));
    ok &= cli_json_set(o, "points_wrong", json_integer(t->wrong));
    ok &= cli_json_set(o, "points_hung", json_integer(t->hung));
  } else {
    ok &= cli_json_set(o, "points_tested", json_integer(t->tested));
    ok &= cli_json_set(o, "points_applicable", json_integer(t->applicable));
    ok &= cli_json_set(o, "points_not_applicable", json_integer(t->not_applicable));
    ok &= cli_json_set(o, "points_passed", json_integer(t->passed));
    ok &= cli_json_set(o, "points_passed_unrecovered", json_integer(t->passed_unrecovered));
    ok &= cli_json_set(o, "points_wrong", json_integer(t->wrong));
    ok &= cli_json_set(o, "points_failed", json_integer(t->failed));
    ok &= cli_json_set(o, "points_hung", json_integer(t->hung));
    ok &= cli_json_set(o, "points_crashed", json_integer(t->crashed));
    ok &= cli_json_set(o, "points_leaked", json_integer(t->leaked_points));
  }
  long n = opt->mode == MODE_STORM ? t->runs : t->tested;
  ok &= cli_json_set(o, "injected", json_integer((json_int_t)t->injected));
  ok &= cli_json_set(o, "recoveries", json_integer((json_int_t)t->recoveries));
  ok &= cli_json_set(o, "leaked_devices", json_integer((json_int_t)t->leaked));
  ok &= cli_json_set(o, "failed_devices", json_integer((json_int_t)t->failed_devices));
  ok &= cli_json_set(o, "max_point_ms", cli_json_real(t->max_ms, 1));
  ok &= cli_json_set(o, "mean_point_ms", cli_json_real(n ? t->total_ms / (double)n : 0, 1));
  ok &= cli_json_set(o, "slowest_point", json_string(t->slowest));
  return ok;
}

/* [{"point": spec, "why": why}, ...]: the first MAX_FAILURES (NULL out of
 * memory). */
static json_t *json_failures(const wtally *t) {
  json_t *list = json_array();
  for (long i = 0; list && i < t->nfailures && i < MAX_FAILURES; i++)
    if (json_array_append_new(list, json_pack("{s:s,s:s}", "point", t->failures[i].spec, "why",
                                              t->failures[i].why)) != 0)
      list = (json_decref(list), NULL);
  return list;
}

static bool write_json(const wopts *o, const char *workload, const wstate *ws, size_t n, const wtally *total,
                       uint64_t total_calls) {
  const char *mode = o->mode == MODE_STORM ? "storm" : o->mode == MODE_PAIRS ? "pairs" : "points";
  json_t *doc = json_pack("{s:s,s:s,s:s,s:b,s:b,s:I}", "mode", mode, "workload", workload, "fault",
                          o->mode == MODE_PAIRS ? "loss+loss" : o->mode == MODE_STORM ? "loss" : o->fault,
                          "control", (int)o->control, "recovery", (int)!o->control, "calls",
                          (json_int_t)total_calls);
  bool ok = doc != NULL;
  if (ok && o->mode == MODE_STORM) {
    ok &= cli_json_set(doc, "seconds", cli_json_real(o->storm_s, 1));
    ok &= cli_json_set(doc, "seed", json_integer((json_int_t)o->seed));
    ok &= cli_json_set(doc, "repeat", json_integer(o->repeat));
  }
  if (ok) ok &= json_tally(doc, o, total);
  json_t *list = ok ? json_array() : NULL;
  ok &= cli_json_set(doc, "workloads", list);
  for (size_t k = 0; ok && k < n; k++) {
    const wstate *w = &ws[k];
    char name[160];
    snprintf(name, sizeof name, "webgpu-%s", w->p->name);
    json_t *e = json_pack("{s:s,s:s,s:I}", "workload", name, "program", w->p->linked, "calls",
                          (json_int_t)w->clean_calls);
    ok &= e != NULL && json_array_append_new(list, e) == 0;
    if (!ok) break;
    if (o->mode != MODE_STORM) ok &= cli_json_set(e, "stride", json_integer(w->stride));
    if (o->mode == MODE_PAIRS && !o->pair_points) ok &= cli_json_set(e, "pair_stride", json_integer(w->pair_stride));
    if (o->mode == MODE_PAIRS && o->pair_points) ok &= cli_json_set(e, "pair_points", json_integer(o->pair_points));
    ok &= json_tally(e, o, &w->t);
    ok &= cli_json_set(e, "clean_ms", cli_json_real(w->clean_ms, 1));
    ok &= cli_json_set(e, "digest", cli_json_hex64(w->clean_digest));
    ok &= cli_json_set(e, "failures", json_failures(&w->t));
    ok &= cli_json_set(e, "failures_total", json_integer(w->t.nfailures));
  }
  return cli_json_write("unlost chaos", o->json, ok ? doc : (json_decref(doc), NULL));
}
#else
static bool write_json(const wopts *o, const char *workload, const wstate *ws, size_t n, const wtally *total,
                       uint64_t total_calls) {
  (void)o, (void)workload, (void)ws, (void)n, (void)total, (void)total_calls;
  return false; /* --json was refused */
}
#endif

/* ---- one program ---- */

typedef enum { W_DONE, W_SKIPPED, W_BROKEN } wresult;

static wresult run_workload(wstate *w, slot *slots) {
  const wopts *o = w->o;
  const wprog *p = w->p;
  unsigned repeat = o->mode == MODE_STORM ? o->repeat : 1;
  child_result clean;
  wopts co = *o;
  co.control = false; /* the clean run is the reference, recovery on or off */
  run_one(&co, p, "seed=1", repeat, &slots[0], &clean, false);
  if (clean.exit_code == 77) {
    printf("webgpu-%s: skipped: no adapter (%s)\n", p->name, clean.said);
    return W_SKIPPED;
  }
  if (clean.exit_code != 0 || !clean.ok_line || !clean.has_digest || !clean.rep.present || !clean.rep.calls) {
    fprintf(stderr, "unlost chaos: webgpu-%s: the clean run failed (exit %d%s%s%s%s)\n", p->name, clean.exit_code,
            clean.hung ? ", hung" : "", clean.said[0] ? ": " : "", clean.said,
            clean.exit_code == 0 && !clean.rep.present ? ": no chaos report; is it linked to libunlost-webgpu?" : "");
    return W_BROKEN;
  }
  w->clean_calls = clean.rep.calls;
  w->clean_digest = clean.digest;
  w->clean_ms = clean.ms;
  /* The same program directly on the implementation: its digest is the
   * one the layer must give. */
  char direct[96] = "";
  if (p->direct[0]) {
    child_result d;
    run_one(&co, p, "seed=1", repeat, &slots[0], &d, true);
    if (d.exit_code == 0 && d.has_digest && d.digest != clean.digest) {
      fprintf(stderr,
              "unlost chaos: webgpu-%s: the digest through the layer (%016llx) is not the direct run's (%016llx)\n",
              p->name, (unsigned long long)clean.digest, (unsigned long long)d.digest);
      return W_BROKEN;
    }
    snprintf(direct, sizeof direct, d.exit_code == 0 ? ", equal to the direct run's" : ", direct run exit %d",
             d.exit_code);
  }
  printf("webgpu-%s: clean run%s: %llu WebGPU calls, digest %016llx%s, ok, %.1f ms\n", p->name,
         repeat > 1 ? " (--repeat)" : "", (unsigned long long)w->clean_calls, (unsigned long long)w->clean_digest,
         direct, w->clean_ms);
  if (o->at > (long)w->clean_calls) {
    fprintf(stderr, "unlost chaos: --at %ld: webgpu-%s made only %llu WebGPU calls\n", o->at, p->name,
            (unsigned long long)w->clean_calls);
    return W_BROKEN;
  }
  pool pl = {.slots = slots, .n = o->jobs};
  w->stride = o->points ? ceil_div((long)w->clean_calls, o->points) : o->stride;
  w->pair_stride = o->pair_stride;
  w->rng = o->seed ^ 0x5eedull;
  if (o->mode == MODE_STORM) {
    /* nothing queued: pool_run makes the runs */
  } else if (o->spec) {
    push(&pl, T_POINT, 1, o->spec);
  } else {
    long first = o->at ? o->at : 1, last = o->at ? o->at : (long)w->clean_calls;
    for (long i = first; i <= last; i += w->stride) {
      char sp[160];
      if (o->mode == MODE_PAIRS) {
        snprintf(sp, sizeof sp, "loss@%ld,count-recovery=1", i);
        push(&pl, T_PROBE, i, sp);
        w->probes_total++;
      } else {
        snprintf(sp, sizeof sp, o->fault_fmt, i);
        push(&pl, T_POINT, i, sp);
      }
    }
  }
  pool_run(w, &pl, repeat);
  for (size_t k = 0; k < pl.len; k++) free(pl.q[k].spec);
  free(pl.q);
  return W_DONE;
}

/* ---- webgpu-gen: many generated programs ---- */

/* A random loss schedule over a program of `calls` calls: one loss, a
 * pair (the second inside the recovery of the first), a loss every K
 * calls, or random losses that also land inside recoveries. */
static void gen_spec(wstate *w, char *out, size_t cap) {
  uint64_t c = w->clean_calls > 2 ? w->clean_calls : 2;
  uint64_t r = splitmix(&w->rng), seed = splitmix(&w->rng) % 1000000 + 1;
  uint64_t i = 1 + splitmix(&w->rng) % c;
  switch (r % 4) {
  case 0: snprintf(out, cap, "loss@%llu", (unsigned long long)i); break;
  case 1:
    snprintf(out, cap, "loss@%llu,loss@%llu,count-recovery=1", (unsigned long long)i,
             (unsigned long long)(i + 1 + splitmix(&w->rng) % (c / 2 + 2)));
    break;
  case 2: {
    uint64_t every = c * (25 + splitmix(&w->rng) % 76) / 100;
    snprintf(out, cap, "loss-every=%llu,seed=%llu", (unsigned long long)(every < 40 ? 40 : every),
             (unsigned long long)seed);
    break;
  }
  default:
    snprintf(out, cap, "loss-rate=%.6f,count-recovery=1,seed=%llu",
             (0.5 + (double)(splitmix(&w->rng) % 151) / 100.0) / (double)c, (unsigned long long)seed);
    break;
  }
}

typedef struct gen_prog {
  uint64_t seed, calls, digest;
  long failures_from; /* its failures: the total's from this index */
} gen_prog;

/* Program k of --programs: its direct run gives the reference digest (and
 * checks itself against the CPU); the clean run through the layer counts
 * the calls and must give the same digest; then --schedules runs. */
static void run_gen_program(wstate *w, wtally *total, slot *slots, uint64_t seed, gen_prog *gp) {
  const wopts *o = w->o;
  wopts co = *o;
  co.control = false;
  gp->seed = seed;
  child_result d, clean;
  run_one(&co, w->p, "seed=1", 1, &slots[0], &d, true);
  if (d.exit_code == 77) {
    printf("webgpu-gen: seed %llu: skipped: no adapter (%s)\n", (unsigned long long)seed, d.said);
    return;
  }
  if (d.exit_code != 0 || !d.ok_line || !d.has_digest) {
    w->t.direct_failed++;
    note_failure(&w->t, 0, w->p->env[0], "the direct run (on the implementation) failed: exit %d%s: %s", d.exit_code,
                 d.hung ? ", hung" : "", d.said[0] ? d.said : d.said_out);
    return;
  }
  run_one(&co, w->p, "seed=1", 1, &slots[0], &clean, false);
  w->clean_digest = d.digest;
  w->clean_calls = clean.rep.calls;
  gp->calls = clean.rep.calls;
  gp->digest = d.digest;
  char why[300];
  verdict(w, &clean, why, sizeof why);
  if (why[0] || !clean.rep.calls) {
    /* Wrong without any fault: counted as a wrong (or hung, crashed) point. */
    count_gen_run(w, 0, "seed=1", &clean);
    w->t.direct_failed++;
    return;
  }
  pool pl = {.slots = slots, .n = o->jobs};
  w->rng = seed ^ o->seed ^ 0x6e6eull;
  for (long k = 0; k < o->schedules; k++) {
    char sp[160];
    gen_spec(w, sp, sizeof sp);
    push(&pl, T_GEN, k, sp);
  }
  pool_run(w, &pl, 1);
  for (size_t k = 0; k < pl.len; k++) free(pl.q[k].spec);
  free(pl.q);
  (void)total;
}

#ifdef UL_HAVE_JANSSON
static bool write_gen_json(const wopts *o, const wtally *t, const gen_prog *gps, long n) {
  json_t *doc = json_pack(
      "{s:s,s:s,s:b,s:b,s:I,s:I,s:b,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:o,s:o,s:s}",
      "mode", "gen", "workload", "webgpu-gen", "control", (int)o->control, "recovery", (int)!o->control, "seed",
      (json_int_t)o->seed, "size", (json_int_t)o->gen_size, "threads", (int)o->gen_threads, "programs",
      (json_int_t)n, "schedules", (json_int_t)o->schedules, "points", (json_int_t)t->tested, "points_injected",
      (json_int_t)t->points_injected, "passed", (json_int_t)t->passed, "errors", (json_int_t)t->runs_error, "wrong",
      (json_int_t)t->wrong, "hung", (json_int_t)t->hung, "crashed", (json_int_t)t->crashed, "direct_failed",
      (json_int_t)t->direct_failed, "points_leaked", (json_int_t)t->leaked_points, "injected",
      (json_int_t)t->injected, "recoveries", (json_int_t)t->recoveries, "leaked_devices", (json_int_t)t->leaked,
      "failed_devices", (json_int_t)t->failed_devices, "max_point_ms", cli_json_real(t->max_ms, 1),
      "mean_point_ms", cli_json_real(t->tested ? t->total_ms / (double)t->tested : 0, 1), "slowest_point",
      t->slowest);
  bool ok = doc != NULL;
  if (ok) {
    ok &= cli_json_set(doc, "failures", json_failures(t));
    ok &= cli_json_set(doc, "failures_total", json_integer(t->nfailures));
  }
  json_t *list = ok ? json_array() : NULL;
  ok &= cli_json_set(doc, "program_list", list);
  for (long k = 0; ok && k < n; k++)
    ok &= json_array_append_new(list, json_pack("{s:I,s:I,s:o}", "seed", (json_int_t)gps[k].seed, "calls",
                                                (json_int_t)gps[k].calls, "digest",
                                                cli_json_hex64(gps[k].digest))) == 0;
  return cli_json_write("unlost chaos", o->json, ok ? doc : (json_decref(doc), NULL));
}
#else
static bool write_gen_json(const wopts *o, const wtally *t, const gen_prog *gps, long n) {
  (void)o, (void)t, (void)gps, (void)n;
  return false; /* --json was refused */
}
#endif

/* --programs N: programs of seeds S..S+N-1, each run directly and then
 * through the layer under --schedules random loss schedules. */
static int run_gen(const wopts *o, const wprog *base, slot *slots) {
  gen_prog *gps = calloc((size_t)o->programs, sizeof *gps);
  wtally *total = calloc(1, sizeof *total);
  wstate *w = calloc(1, sizeof *w);
  if (!gps || !total || !w) {
    free(gps);
    free(total);
    free(w);
    return 1;
  }
  wprog p = *base;
  snprintf(p.env[1], sizeof p.env[1], "WGPU_GEN_SIZE=%u", o->gen_size);
  snprintf(p.env[2], sizeof p.env[2], "WGPU_GEN_THREADS=%s", o->gen_threads ? "seed" : "0");
  /* The smallest operation log: the programs' bulk uploads fill it, so the
   * layer checkpoints, and later losses restore from its checkpoints. */
  snprintf(p.env[3], sizeof p.env[3], "UNLOST_LOG_MAX_MB=1");
  double t0 = now_ms();
  for (long k = 0; k < o->programs; k++) {
    uint64_t seed = o->seed + (uint64_t)k;
    snprintf(p.env[0], sizeof p.env[0], "WGPU_GEN_SEED=%llu", (unsigned long long)seed);
    memset(w, 0, sizeof *w);
    w->o = o;
    w->p = &p;
    run_gen_program(w, total, slots, seed, &gps[k]);
    for (long i = 0; i < w->t.nfailures && i < MAX_FAILURES; i++) {
      failure *f = &w->t.failures[i];
      printf("  webgpu-gen: %s: %s\n", f->spec, f->why);
      if (total->nfailures < MAX_FAILURES) total->failures[total->nfailures] = *f;
      else free(f->spec);
      total->nfailures++;
    }
    w->t.nfailures = 0;
    add_tally(total, &w->t);
    if (o->tty)
      printf("\r  webgpu-gen: %ld/%ld programs, %ld points, %ld wrong, %.0f s   ", k + 1, o->programs, total->tested,
             total->wrong + total->hung + total->crashed, (now_ms() - t0) / 1000.0);
  }
  if (o->tty) printf("\n");
  printf("webgpu-gen: %s%ld programs (seeds %llu..%llu, size %u, %s), %ld schedules each: %ld points, %ld with a "
         "loss injected, %ld passed, %ld errors naming the loss, %ld wrong, %ld hung, %ld crashed, %ld direct or "
         "clean runs failed, %llu injected, %llu recoveries, %llu leaked devices, %llu failed devices, "
         "max %.1f ms per point\n",
         o->control ? "control, " : "", o->programs, (unsigned long long)o->seed,
         (unsigned long long)(o->seed + (uint64_t)o->programs - 1), o->gen_size,
         o->gen_threads ? "threads chosen by the seed" : "one thread", o->schedules, total->tested,
         total->points_injected, total->passed, total->runs_error, total->wrong, total->hung, total->crashed,
         total->direct_failed, (unsigned long long)total->injected, (unsigned long long)total->recoveries,
         (unsigned long long)total->leaked, (unsigned long long)total->failed_devices, total->max_ms);
  if (total->nfailures)
    printf("  reproduce one: %s %s (UNLOST_LOG=info, UNLOST_LOG_MAX_MB=1, WGPU_GEN_THREADS=%s)\n",
           total->failures[0].spec, base->linked, o->gen_threads ? "seed" : "0");
  bool pass = total->tested > 0 && total->injected > 0 && !total->wrong && !total->hung && !total->crashed &&
              !total->leaked && !total->direct_failed;
  if (o->control)
    printf("control (recovery off): %ld of %ld points failed (%ld errors naming the loss, %ld wrong): %s\n",
           total->tested - total->passed, total->tested, total->runs_error, total->wrong,
           total->passed < total->points_injected ? "the harness sees the faults; exit 1, as it must"
                                                  : "NO injected point failed: the harness does not see the faults");
  int rc = pass && !o->control ? 0 : 1;
  if (o->json && !write_gen_json(o, total, gps, o->programs)) rc = 1;
  for (long i = 0; i < total->nfailures && i < MAX_FAILURES; i++) free(total->failures[i].spec);
  free(gps);
  free(total);
  free(w);
  return rc;
}

/* ---- the command ---- */

static bool add_program(wprog *progs, size_t *n, size_t cap, const char *dir, const char *item) {
  if (strncmp(item, "webgpu-", 7)) {
    fprintf(stderr, "unlost chaos: '%s' is not webgpu-NAME\n", item);
    return false;
  }
  if (!strcmp(item + 7, "all") || !strcmp(item + 7, "*")) {
    *n += programs_all(dir, progs + *n, cap - *n);
    return true;
  }
  if (*n >= cap || !prog_fill(&progs[*n], dir, item + 7)) {
    wprog all[64];
    size_t na = programs_all(dir, all, 64);
    fprintf(stderr, "unlost chaos: no program %s/wgpu_%s_linked (known:", dir, item + 7);
    for (size_t k = 0; k < na; k++) fprintf(stderr, " webgpu-%s", all[k].name);
    fprintf(stderr, "%s)\n", na ? "" : " none; build with `make build`, or set UNLOST_WEBGPU_PROGRAMS_DIR");
    return false;
  }
  (*n)++;
  return true;
}

static bool parse_args(int argc, char **argv, wopts *o, const char **workload, int *rc) {
  *rc = 2;
  uint64_t at = 0, stride = 1, points = 0, pair_stride = 1, pair_points = 0, programs = 0, schedules = 4, gen_size = 1,
           repeat = 4, jobs = 1;
  bool every_call = false, pairs = false;
  double timeout_s = 0;
  const cli_opt opts[] = {CLI_O("every-call", CLI_FLAG, &every_call),
                          CLI_O("workload", CLI_TEXT, workload),
                          CLI_O("json", CLI_JSON, &o->json),
                          CLI_O("fault", CLI_TEXT, &o->fault),
                          CLI_O("chaos", CLI_TEXT, &o->spec), CLI_O("spec", CLI_TEXT, &o->spec),
                          CLI_O("pairs", CLI_FLAG, &pairs),
                          CLI_O("control", CLI_FLAG, &o->control),
                          CLI_O("gen-threads", CLI_FLAG, &o->gen_threads),
                          {"programs", CLI_U64, &programs, .lo = 1, .hi = 1000000},
                          {"schedules", CLI_U64, &schedules, .lo = 1, .hi = 100000},
                          {"gen-size", CLI_U64, &gen_size, .lo = 1, .hi = 8},
                          {"at", CLI_U64, &at, .lo = 1, .hi = 1ull << 40},
                          {"stride", CLI_U64, &stride, .lo = 1, .hi = 1ull << 40},
                          {"points", CLI_U64, &points, .lo = 1, .hi = 1ull << 40},
                          {"pair-stride", CLI_U64, &pair_stride, .lo = 1, .hi = 1ull << 40},
                          {"pair-points", CLI_U64, &pair_points, .lo = 1, .hi = 1ull << 40},
                          {"storm", CLI_F64, &o->storm_s, .flo = 0.001, .fhi = 7 * 86400.0},
                          /* At most INT64_MAX with the programs after it: --json writes
                           * signed 64-bit integers. */
                          {"seed", CLI_U64, &o->seed, .hi = INT64_MAX - 1000000},
                          {"repeat", CLI_U64, &repeat, .lo = 1, .hi = 100000},
                          {"jobs", CLI_U64, &jobs, .lo = 1, .hi = 64},
                          {"timeout", CLI_F64, &timeout_s, .flo = 0.1, .fhi = 86400.0},
                          {0}};
  int prc = cli_parse("chaos", argc, argv, opts, CLI_NO_OPERANDS, usage, NULL);
  if (prc) {
    *rc = prc == 1 ? 0 : 2;
    return false;
  }
  if (o->json && !cli_json_available("unlost chaos")) return false;
  if (at) o->at = (long)at;
  if (every_call) o->at = 0;
  o->stride = (long)stride, o->pair_stride = (long)pair_stride;
  if (points) o->points = (long)points;
  if (pair_points) o->pair_points = (long)pair_points;
  if (programs) o->programs = (long)programs;
  o->schedules = (long)schedules, o->gen_size = (unsigned)gen_size, o->repeat = (unsigned)repeat;
  o->jobs = (unsigned)jobs;
  if (timeout_s > 0) o->timeout_ms = timeout_s * 1000.0;
  if (pairs) o->mode = MODE_PAIRS;
  o->fault_fmt = !strcmp(o->fault, "loss")         ? "loss@%ld"
                 : !strcmp(o->fault, "oom")        ? "oom@%ld"
                 : !strcmp(o->fault, "validation") ? "validation@%ld"
                 : !strcmp(o->fault, "request")    ? "loss@%ld,recovery-fail=1"
                                                   : NULL;
  if (!o->fault_fmt) {
    fprintf(stderr, "unlost chaos: --fault: '%s' is not loss, oom, validation or request\n", o->fault);
    return false;
  }
  if (o->storm_s > 0 && o->mode == MODE_PAIRS) {
    fprintf(stderr, "unlost chaos: --storm and --pairs do not go together\n");
    return false;
  }
  if (o->storm_s > 0) o->mode = MODE_STORM;
  if (o->programs) {
    if (o->mode != MODE_POINTS || o->spec || o->at) {
      fprintf(stderr, "unlost chaos: --programs makes its own schedules: not with --pairs, --storm, --chaos or --at\n");
      return false;
    }
    o->mode = MODE_GEN;
  }
  if (o->control && o->mode == MODE_PAIRS) {
    fprintf(stderr, "unlost chaos: --control runs single points or a storm: with recovery off, the first loss of "
                    "a pair is final\n");
    return false;
  }
  if (o->spec && (o->mode != MODE_POINTS || o->at)) {
    fprintf(stderr, "unlost chaos: --chaos is one run: not with --at, --pairs or --storm\n");
    return false;
  }
  if (o->spec && (strlen(o->spec) > 4096 || strchr(o->spec, '\n'))) {
    fprintf(stderr, "unlost chaos: --chaos: too long, or more than one line\n");
    return false;
  }
  o->need_recovery = !strcmp(o->fault, "loss") || !strcmp(o->fault, "request") || o->spec;
  if (o->spec) {
    /* A schedule that does not parse is a usage error, before any run. */
    ul_env *env = NULL;
    if (ul_env_create(&(ul_env_desc){.chaos = o->spec}, &env)) {
      fprintf(stderr, "unlost chaos: --chaos: %s\n", ul_last_error());
      return false;
    }
    ul_env_destroy(env);
    /* A schedule of errors only needs no recovery. */
    o->need_recovery = strstr(o->spec, "loss") != NULL;
  }
  *rc = 0;
  return true;
}

int cmd_chaos_webgpu(int argc, char **argv) {
  wopts o = {.fault = "loss", .stride = 1, .pair_stride = 1, .seed = 1, .repeat = 4, .jobs = 1,
             .timeout_ms = 60000.0, .tty = isatty(1), .schedules = 4, .gen_size = 1};
  const char *workload = NULL;
  int rc;
  if (!parse_args(argc, argv, &o, &workload, &rc)) return rc;
  char dir[PATH_MAX];
  if (!programs_dir(dir, sizeof dir)) {
    fprintf(stderr, "unlost chaos: cannot find the programs' folder (set UNLOST_WEBGPU_PROGRAMS_DIR)\n");
    return 2;
  }
  static wprog progs[64];
  size_t n = 0;
  char *list = strdup(workload ? workload : "");
  if (!list) return 1;
  char *save = NULL;
  for (char *it = strtok_r(list, ",", &save); it; it = strtok_r(NULL, ",", &save))
    if (!add_program(progs, &n, 64, dir, it)) {
      free(list);
      return 2;
    }
  free(list);
  if (!n) {
    fprintf(stderr, "unlost chaos: no webgpu program in %s (build with `make build`)\n", dir);
    return 2;
  }
  snprintf(o.tmp, sizeof o.tmp, "/tmp/unlost-chaos-webgpu-XXXXXX");
  if (!mkdtemp(o.tmp)) {
    perror("unlost chaos: mkdtemp");
    return 1;
  }
  slot *slots = calloc(o.jobs, sizeof *slots);
  wstate *ws = calloc(n, sizeof *ws);
  if (!slots || !ws) {
    free(slots);
    free(ws);
    rmdir(o.tmp);
    return 1;
  }
  for (unsigned k = 0; k < o.jobs; k++) {
    snprintf(slots[k].out, sizeof slots[k].out, "%s/out.%u", o.tmp, k);
    snprintf(slots[k].err, sizeof slots[k].err, "%s/err.%u", o.tmp, k);
    snprintf(slots[k].rep, sizeof slots[k].rep, "%s/report.%u", o.tmp, k);
  }
  if (o.control)
    printf("control run: recovery off (UNLOST_RECOVERY=0); the faults must fail the programs\n");
  if (o.mode == MODE_GEN) {
    if (n != 1 || strcmp(progs[0].name, "gen")) {
      fprintf(stderr, "unlost chaos: --programs is for --workload webgpu-gen alone\n");
      rc = 2;
    } else {
      rc = run_gen(&o, &progs[0], slots);
    }
    for (unsigned k = 0; k < o.jobs; k++) {
      unlink(slots[k].out);
      unlink(slots[k].err);
      unlink(slots[k].rep);
    }
    rmdir(o.tmp);
    free(slots);
    free(ws);
    return rc;
  }
  wtally total;
  memset(&total, 0, sizeof total);
  uint64_t total_calls = 0;
  size_t done = 0, skipped = 0;
  bool broken = false;
  char what[256], words[128];
  for (size_t k = 0; k < n && !broken; k++) {
    wstate *w = &ws[done];
    memset(w, 0, sizeof *w);
    w->o = &o;
    w->p = &progs[k];
    wresult wr = run_workload(w, slots);
    if (wr == W_SKIPPED) {
      skipped++;
      continue;
    }
    if (wr == W_BROKEN) {
      broken = true;
      break;
    }
    done++;
    if (o.mode == MODE_STORM) snprintf(what, sizeof what, "webgpu-%s%s", w->p->name, o.control ? ": control" : "");
    else
      snprintf(what, sizeof what, "webgpu-%s: %s%s", w->p->name, o.control ? "control, " : "",
               mode_words(&o, words, sizeof words));
    if (o.mode == MODE_STORM) print_storm(what, &o, &w->t);
    else {
      char strides[64] = "";
      if (o.mode == MODE_PAIRS && o.pair_points)
        snprintf(strides, sizeof strides, " (stride %ld, about %ld j per i)", w->stride, o.pair_points);
      else if (o.mode == MODE_PAIRS)
        snprintf(strides, sizeof strides, " (stride %ld, pair stride %ld)", w->stride, w->pair_stride);
      else if (!o.spec && !o.at) snprintf(strides, sizeof strides, " (stride %ld)", w->stride);
      print_tally(what, strides, &w->t);
    }
    print_failures(w);
    add_tally(&total, &w->t);
    total_calls += w->clean_calls;
  }
  for (unsigned k = 0; k < o.jobs; k++) {
    unlink(slots[k].out);
    unlink(slots[k].err);
    unlink(slots[k].rep);
  }
  rmdir(o.tmp);
  free(slots);
  if (broken) rc = 1;
  else if (!done) {
    printf("unlost chaos: every program skipped (no adapter)\n");
    rc = 77;
  } else {
    if (done > 1) {
      if (o.mode == MODE_STORM) snprintf(what, sizeof what, "all %zu programs%s", done, o.control ? ": control" : "");
      else
        snprintf(what, sizeof what, "all %zu programs: %s%s", done, o.control ? "control, " : "",
                 mode_words(&o, words, sizeof words));
      if (o.mode == MODE_STORM) print_storm(what, &o, &total);
      else print_tally(what, "", &total);
    }
    bool pass;
    if (o.mode == MODE_STORM)
      pass = !total.wrong && !total.hung && !total.crashed && !total.leaked && total.runs_ok > 0 && total.injected > 0;
    else
      pass = total.applicable > 0 && total.passed == total.applicable && !total.wrong && !total.hung &&
             !total.leaked;
    if (o.control) {
      long seen = o.mode == MODE_STORM ? total.runs - total.runs_ok : total.failed + total.wrong;
      long of = o.mode == MODE_STORM ? total.runs : total.applicable;
      if (!pass)
        printf("control (recovery off): %ld of %ld %s failed (%ld wrong, %ld failed devices): the harness sees the "
               "faults; exit 1, as it must\n",
               seen, of, o.mode == MODE_STORM ? "runs" : "applicable points", total.wrong,
               (long)total.failed_devices);
      else
        printf("control (recovery off): NO run failed: the harness does not see the faults\n");
    }
    rc = pass ? 0 : 1;
    if (skipped) printf("%zu program(s) skipped: no adapter\n", skipped);
    if (o.json && !write_json(&o, workload, ws, done, &total, total_calls)) rc = 1;
  }
  for (size_t k = 0; k < n; k++)
    for (long i = 0; i < ws[k].t.nfailures && i < MAX_FAILURES; i++) free(ws[k].t.failures[i].spec);
  free(ws);
  return rc;
}
