/* The benchmark's in-process sampling profiler (sampler.h says what it
 * samples and the file it writes). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "sampler.h"

#include <stdio.h>

#if defined(__linux__) && defined(__x86_64__)

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

/* Room for 2^21 samples: 24 MiB of address space, touched only as samples
 * come (calloc of this size maps fresh zero pages). At 4999 Hz that is
 * over 400 s of CPU time; later samples are counted as dropped. */
#define SAMPLER_CAP ((size_t)1 << 21)
#define SAMPLER_MAX_TASKS 1024

static uintptr_t *g_pc;
static int32_t *g_tid;
static atomic_size_t g_n;   /* samples taken (may pass SAMPLER_CAP) */
static atomic_int g_on;     /* the handler records only while set */
static atomic_int g_busy;   /* handlers running now */
static FILE *g_out;         /* opened at start: a bad path fails early */
static int g_timer = SAMPLER_PROCESS;
static int g_hz, g_interval_us;
static int32_t g_main_tid;
static char g_exe[PATH_MAX];
static struct timespec g_cpu0, g_wall0;
static struct rusage g_ru0;
static _Thread_local int32_t t_tid; /* this thread's id, once asked */

/* The threads seen at start and at stop, with their CPU time. */
typedef struct task {
  int32_t tid;
  double cpu0_ms, cpu1_ms; /* -1: not there then */
  int blocks;              /* SIGPROF in its signal mask: 1, 0, -1 unknown */
  char name[32];
  bool has_timer;
  timer_t timer; /* SAMPLER_THREADS */
} task;
static task g_tasks[SAMPLER_MAX_TASKS];
static int g_ntasks, g_ntimers;

static int32_t gettid_now(void) { return (int32_t)syscall(SYS_gettid); }

/* SIGPROF: the interrupted PC and the thread, into the next slot.
 * Async-signal-safe: atomics, stores into memory made before the timer
 * started, and gettid (errno kept). */
static void on_prof(int sig, siginfo_t *si, void *ctx) {
  (void)sig, (void)si;
  atomic_fetch_add(&g_busy, 1);
  if (atomic_load(&g_on)) {
    int saved = errno;
    const ucontext_t *uc = ctx;
    uintptr_t pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
    size_t i = atomic_fetch_add_explicit(&g_n, 1, memory_order_relaxed);
    if (i < SAMPLER_CAP) {
      if (!t_tid) t_tid = gettid_now();
      g_pc[i] = pc;
      g_tid[i] = t_tid;
    }
    errno = saved;
  }
  atomic_fetch_sub(&g_busy, 1);
}

/* A thread's CPU clock (Linux's MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED)):
 * any thread of this process may read it or time it. */
static clockid_t thread_clock(int32_t tid) { return (clockid_t)((~(unsigned)tid << 3) | 6u); }

/* The CPU time of thread tid in ms (its clock, else /proc's ticks), its
 * name and whether it blocks SIGPROF. False when the thread is gone. */
static bool task_read(int32_t tid, double *cpu_ms, char *name, size_t cap, int *blocks) {
  char path[64], buf[4096];
  snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)tid);
  FILE *f = fopen(path, "r");
  if (!f) return false;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  char *open = strchr(buf, '('), *close = strrchr(buf, ')');
  if (!open || !close || close < open) return false;
  snprintf(name, cap, "%.*s", (int)(close - open - 1), open + 1);
  for (char *c = name; *c; c++)
    if (*c == ' ' || *c == '\n') *c = '_';
  unsigned long ut = 0, st = 0;
  /* After the name: state (field 3) ... utime (14), stime (15). */
  if (sscanf(close + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2) ut = st = 0;
  struct timespec ts;
  if (!clock_gettime(thread_clock(tid), &ts)) *cpu_ms = (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
  else *cpu_ms = (double)(ut + st) * 1e3 / (double)sysconf(_SC_CLK_TCK);
  *blocks = -1;
  snprintf(path, sizeof path, "/proc/self/task/%d/status", (int)tid);
  if ((f = fopen(path, "r"))) {
    char line[256];
    unsigned long long mask;
    while (fgets(line, sizeof line, f))
      if (sscanf(line, "SigBlk: %llx", &mask) == 1) {
        *blocks = (int)((mask >> (SIGPROF - 1)) & 1);
        break;
      }
    fclose(f);
  }
  return true;
}

static task *task_find(int32_t tid) {
  for (int i = 0; i < g_ntasks; i++)
    if (g_tasks[i].tid == tid) return &g_tasks[i];
  return NULL;
}

/* Reads every thread of the process into g_tasks: at start (cpu0) or at
 * stop (cpu1). */
static void tasks_scan(bool at_start) {
  DIR *d = opendir("/proc/self/task");
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    int32_t tid = (int32_t)atoi(e->d_name);
    double ms;
    char name[32];
    int blocks;
    if (!task_read(tid, &ms, name, sizeof name, &blocks)) continue;
    task *t = task_find(tid);
    if (!t) {
      if (g_ntasks == SAMPLER_MAX_TASKS) continue;
      t = &g_tasks[g_ntasks++];
      memset(t, 0, sizeof *t);
      t->tid = tid;
      t->cpu0_ms = t->cpu1_ms = -1;
      t->blocks = -1;
    }
    snprintf(t->name, sizeof t->name, "%s", name);
    if (blocks >= 0) t->blocks = blocks;
    if (at_start) t->cpu0_ms = ms;
    else t->cpu1_ms = ms;
  }
  closedir(d);
}

static void timers_delete(void) {
  for (int i = 0; i < g_ntasks; i++)
    if (g_tasks[i].has_timer) {
      timer_delete(g_tasks[i].timer);
      g_tasks[i].has_timer = false;
    }
}

static void release(void) {
  free(g_pc);
  free(g_tid);
  g_pc = NULL;
  g_tid = NULL;
  if (g_out) fclose(g_out);
  g_out = NULL;
}

void sampler_set_timer(int which) { g_timer = which == SAMPLER_THREADS ? SAMPLER_THREADS : SAMPLER_PROCESS; }

/* Arms the timers: 0, or -1 with why. */
static int timers_arm(char *why, size_t cap) {
  struct itimerval it;
  it.it_interval.tv_sec = g_interval_us / 1000000;
  it.it_interval.tv_usec = g_interval_us % 1000000;
  it.it_value = it.it_interval;
  if (g_timer == SAMPLER_PROCESS) {
    if (!setitimer(ITIMER_PROF, &it, NULL)) return 0;
    return snprintf(why, cap, "setitimer(ITIMER_PROF): %s", strerror(errno)), -1;
  }
  struct itimerspec its;
  its.it_interval.tv_sec = it.it_interval.tv_sec;
  its.it_interval.tv_nsec = it.it_interval.tv_usec * 1000L;
  its.it_value = its.it_interval;
  g_ntimers = 0;
  for (int i = 0; i < g_ntasks; i++) {
    task *t = &g_tasks[i];
    struct sigevent sev;
    memset(&sev, 0, sizeof sev);
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev.sigev_signo = SIGPROF;
    sev.sigev_notify_thread_id = t->tid;
    if (timer_create(thread_clock(t->tid), &sev, &t->timer)) {
      if (errno == EINVAL && t->tid != g_main_tid) continue; /* gone already */
      int e = errno;
      timers_delete();
      return snprintf(why, cap, "timer_create(thread %d's CPU clock): %s", (int)t->tid, strerror(e)), -1;
    }
    t->has_timer = true;
    if (timer_settime(t->timer, 0, &its, NULL)) {
      int e = errno;
      timers_delete();
      return snprintf(why, cap, "timer_settime: %s", strerror(e)), -1;
    }
    g_ntimers++;
  }
  return 0;
}

int sampler_start(const char *path, int hz, char *why, size_t cap) {
  if (g_pc) return snprintf(why, cap, "the sampler is running already"), -1;
  if (hz < 1 || hz > 1000000) return snprintf(why, cap, "sampling rate %d Hz: not in 1..1000000", hz), -1;
  struct itimerval cur;
  if (g_timer == SAMPLER_PROCESS && getitimer(ITIMER_PROF, &cur) == 0 &&
      (cur.it_value.tv_sec || cur.it_value.tv_usec))
    return snprintf(why, cap, "ITIMER_PROF is in use already (another profiler?)"), -1;
  ssize_t n = readlink("/proc/self/exe", g_exe, sizeof g_exe - 1);
  g_exe[n > 0 ? n : 0] = 0;
  if (n <= 0) snprintf(g_exe, sizeof g_exe, "[exe]");
  g_pc = calloc(SAMPLER_CAP, sizeof *g_pc);
  g_tid = calloc(SAMPLER_CAP, sizeof *g_tid);
  if (!g_pc || !g_tid) {
    release();
    return snprintf(why, cap, "out of memory for %zu samples", SAMPLER_CAP), -1;
  }
  if (!(g_out = fopen(path, "w"))) {
    int e = errno;
    release();
    return snprintf(why, cap, "cannot write %s: %s", path, strerror(e)), -1;
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_prof;
  sa.sa_flags = SA_RESTART | SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGPROF, &sa, NULL)) {
    int e = errno;
    release();
    return snprintf(why, cap, "sigaction(SIGPROF): %s", strerror(e)), -1;
  }
  g_hz = hz;
  g_interval_us = 1000000 / hz;
  g_main_tid = gettid_now();
  g_ntasks = 0;
  tasks_scan(true);
  atomic_store(&g_n, 0);
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &g_cpu0);
  clock_gettime(CLOCK_MONOTONIC, &g_wall0);
  getrusage(RUSAGE_SELF, &g_ru0);
  atomic_store(&g_on, 1);
  if (timers_arm(why, cap)) {
    atomic_store(&g_on, 0);
    release();
    return -1;
  }
  return 0;
}

typedef struct sample {
  uintptr_t pc;
  int cls; /* 0 the main thread, 1 another */
} sample;

static int cmp_sample(const void *x, const void *y) {
  const sample *a = x, *b = y;
  if (a->pc != b->pc) return a->pc < b->pc ? -1 : 1;
  return (a->cls > b->cls) - (a->cls < b->cls);
}

static int cmp_i32(const void *x, const void *y) {
  int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
  return (a > b) - (a < b);
}

static double ms_between(struct timespec a, struct timespec b) {
  return (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6;
}

static double tv_ms(struct timeval t) { return (double)t.tv_sec * 1e3 + (double)t.tv_usec / 1e3; }

typedef struct modules_ctx {
  FILE *f;
  int index;
  uintptr_t vdso; /* AT_SYSINFO_EHDR, or 0 */
} modules_ctx;

static int write_module(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  modules_ctx *m = data;
  const char *name = info->dlpi_name ? info->dlpi_name : "";
  bool is_vdso = false;
  for (int i = 0; i < info->dlpi_phnum && m->vdso; i++) {
    const ElfW(Phdr) *p = &info->dlpi_phdr[i];
    uintptr_t s = info->dlpi_addr + p->p_vaddr;
    if (p->p_type == PT_LOAD && m->vdso >= s && m->vdso < s + p->p_memsz) is_vdso = true;
  }
  if (is_vdso) name = "[vdso]";
  else if (!*name) name = m->index == 0 ? g_exe : "[anon]";
  fprintf(m->f, "module %lx %s\n", (unsigned long)info->dlpi_addr, name);
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *p = &info->dlpi_phdr[i];
    if (p->p_type != PT_LOAD) continue;
    uintptr_t s = info->dlpi_addr + p->p_vaddr;
    fprintf(m->f, "load %lx %lx %c%c%c\n", (unsigned long)s, (unsigned long)(s + p->p_memsz),
            p->p_flags & PF_R ? 'r' : '-', p->p_flags & PF_W ? 'w' : '-', p->p_flags & PF_X ? 'x' : '-');
  }
  m->index++;
  return 0;
}

int sampler_stop(void) {
  if (!g_pc) {
    fprintf(stderr, "sampler: not running\n");
    return -1;
  }
  if (g_timer == SAMPLER_PROCESS) {
    struct itimerval off;
    memset(&off, 0, sizeof off);
    setitimer(ITIMER_PROF, &off, NULL);
  } else {
    timers_delete();
  }
  atomic_store(&g_on, 0);
  while (atomic_load(&g_busy)) sched_yield(); /* a handler that saw g_on set */
  struct timespec cpu1, wall1;
  struct rusage ru1;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu1);
  clock_gettime(CLOCK_MONOTONIC, &wall1);
  getrusage(RUSAGE_SELF, &ru1);
  tasks_scan(false);
  size_t taken = atomic_load(&g_n), n = taken < SAMPLER_CAP ? taken : SAMPLER_CAP;

  FILE *f = g_out;
  fprintf(f, "unlost-sampler 1\nexe %s\nhz %d interval_us %d\ntimer %s %d\nmain_tid %d\nsamples %zu dropped %zu\n",
          g_exe, g_hz, g_interval_us, g_timer == SAMPLER_PROCESS ? "process" : "threads", g_ntimers,
          (int)g_main_tid, n, taken - n);
  fprintf(f, "cpu_ms %.3f wall_ms %.3f user_ms %.3f sys_ms %.3f\n", ms_between(g_cpu0, cpu1),
          ms_between(g_wall0, wall1), tv_ms(ru1.ru_utime) - tv_ms(g_ru0.ru_utime),
          tv_ms(ru1.ru_stime) - tv_ms(g_ru0.ru_stime));
  modules_ctx m = {f, 0, (uintptr_t)getauxval(AT_SYSINFO_EHDR)};
  dl_iterate_phdr(write_module, &m);
  for (int i = 0; i < g_ntasks; i++) {
    const task *t = &g_tasks[i];
    fprintf(f, "task %d %.3f %.3f %c %s\n", (int)t->tid, t->cpu0_ms, t->cpu1_ms,
            t->blocks < 0 ? '?' : t->blocks ? 'b' : '-', t->name);
  }

  int rc = 0;
  sample *s = malloc((n ? n : 1) * sizeof *s);
  int32_t *tids = malloc((n ? n : 1) * sizeof *tids);
  if (!s || !tids) {
    fprintf(stderr, "sampler: out of memory for the report of %zu samples\n", n);
    rc = -1;
  } else {
    memcpy(tids, g_tid, n * sizeof *tids);
    qsort(tids, n, sizeof *tids, cmp_i32);
    for (size_t i = 0, j; i < n; i = j) {
      for (j = i + 1; j < n && tids[j] == tids[i]; j++) {}
      fprintf(f, "thread %d %zu\n", (int)tids[i], j - i);
    }
    for (size_t i = 0; i < n; i++) s[i] = (sample){g_pc[i], g_tid[i] != g_main_tid};
    qsort(s, n, sizeof *s, cmp_sample);
    for (size_t i = 0, j; i < n; i = j) {
      for (j = i + 1; j < n && !cmp_sample(&s[j], &s[i]); j++) {}
      fprintf(f, "pc %lx %c %zu\n", (unsigned long)s[i].pc, s[i].cls ? 'o' : 'm', j - i);
    }
    fprintf(f, "end\n");
  }
  free(s);
  free(tids);
  if (ferror(f)) {
    fprintf(stderr, "sampler: the sample file could not be written\n");
    rc = -1;
  }
  if (fclose(f)) rc = -1;
  g_out = NULL;
  release();
  return rc;
}

#else /* not x86-64 Linux: the PC's place in the signal context is not known here */

void sampler_set_timer(int which) { (void)which; }

int sampler_start(const char *path, int hz, char *why, size_t cap) {
  (void)path, (void)hz;
  snprintf(why, cap, "the sampler is not supported on this architecture (x86-64 Linux only)");
  return -1;
}

int sampler_stop(void) { return -1; }

#endif
