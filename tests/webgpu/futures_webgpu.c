/* WaitAny and callbacks as the implementation answers them (issue 36):
 * every case prints one line, "case <name>: <status> <completed flags>",
 * and the same source runs directly on the implementation and linked to
 * libunlost-webgpu; futures_compare.sh fails the test when a line differs
 * (the implementation is the oracle). The cases: an empty list, future id
 * 0, an id never handed out, 100 and 65 futures with timeout 0 (over the
 * timed wait's count of 64), a timed wait over 65, a timed wait on an
 * instance made without timedWaitAnyEnable, a callback that waits for its
 * own future (with a timeout, and with 0), and a poll of a future whose
 * callback another thread is running. Each wait that should return at once
 * is timed: past UL_FUT_SLOW_S it is reported as a hang. A watchdog ends a
 * run that hangs for good. */
#include "wgpu_prog.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#define UL_FUT_SLOW_S 1.0
#define UL_FUT_WATCHDOG_S 60

static void on_alarm(int sig) {
  (void)sig;
  static const char msg[] = "FAIL futures: the watchdog fired (a wait hung)\n";
  ssize_t r = write(1, msg, sizeof msg - 1);
  (void)r;
  _exit(1);
}

static int g_slow;

static const char *st_name(WGPUWaitStatus s) {
  switch (s) {
  case WGPUWaitStatus_Success: return "Success";
  case WGPUWaitStatus_TimedOut: return "TimedOut";
  case WGPUWaitStatus_Error: return "Error";
  default: return "Other";
  }
}

/* One WaitAny, reported: status and each completed flag. `quick`: it must
 * come back at once. */
static WGPUWaitStatus report(WGPUInstance inst, const char *name, WGPUFutureWaitInfo *w, size_t n, uint64_t ns,
                             bool quick) {
  double t0 = wp_now_s();
  WGPUWaitStatus s = wgpuInstanceWaitAny(inst, n, w, ns);
  double dt = wp_now_s() - t0;
  char flags[128];
  size_t k = 0, done = 0;
  for (size_t i = 0; i < n; i++) done += w[i].completed != 0;
  for (size_t i = 0; i < n && i < 16 && k + 2 < sizeof flags; i++) flags[k++] = w[i].completed ? '1' : '0';
  flags[k] = 0;
  printf("case %s: %s completed %zu of %zu [%s]\n", name, st_name(s), done, n, flags);
  if (quick && dt > UL_FUT_SLOW_S) {
    printf("FAIL %s: the wait took %.2f s\n", name, dt);
    g_slow++;
  }
  fflush(stdout);
  return s;
}

static void on_done_count(WGPUQueueWorkDoneStatus status, WGPUStringView message, void *u1, void *u2) {
  (void)status, (void)message, (void)u2;
  atomic_fetch_add((atomic_int *)u1, 1);
}

/* A callback that waits for its own future (a "wait for f" helper). */
typedef struct self_wait {
  WGPUInstance inst;
  WGPUFuture self;
  uint64_t timeout;
  atomic_bool done;
  WGPUWaitStatus status;
  WGPUBool completed;
  double took;
} self_wait;

static void on_done_self(WGPUQueueWorkDoneStatus status, WGPUStringView message, void *u1, void *u2) {
  (void)status, (void)message, (void)u2;
  self_wait *sw = u1;
  WGPUFutureWaitInfo w = {.future = sw->self};
  double t0 = wp_now_s();
  sw->status = wgpuInstanceWaitAny(sw->inst, 1, &w, sw->timeout);
  sw->took = wp_now_s() - t0;
  sw->completed = w.completed;
  atomic_store(&sw->done, true);
}

/* A callback held until the main thread lets it go. */
typedef struct held {
  atomic_bool in, go;
} held;

static void on_done_held(WGPUQueueWorkDoneStatus status, WGPUStringView message, void *u1, void *u2) {
  (void)status, (void)message, (void)u2;
  held *h = u1;
  atomic_store(&h->in, true);
  double deadline = wp_now_s() + 20;
  while (!atomic_load(&h->go) && wp_now_s() < deadline) nanosleep(&(struct timespec){0, 1000000}, NULL);
}

typedef struct pump_arg {
  WGPUInstance inst;
  held *h;
} pump_arg;

static void *pump(void *p) {
  pump_arg *a = p;
  double deadline = wp_now_s() + 20;
  while (!atomic_load(&a->h->in) && wp_now_s() < deadline) {
    wgpuInstanceProcessEvents(a->inst);
    nanosleep(&(struct timespec){0, 200000}, NULL);
  }
  return NULL;
}

static WGPUFuture work_done(wp_ctx *c, WGPUCallbackMode mode, WGPUQueueWorkDoneCallback cb, void *u) {
  return wgpuQueueOnSubmittedWorkDone(c->queue,
                                      (WGPUQueueWorkDoneCallbackInfo){.mode = mode, .callback = cb, .userdata1 = u});
}

static bool run(wp_ctx *c) {
  WGPUInstance inst = c->instance;
  WGPUFutureWaitInfo w[100];
  memset(w, 0, sizeof w);
  report(inst, "empty-poll", NULL, 0, 0, true);
  report(inst, "empty-timed", NULL, 0, 1000000, true);
  w[0] = (WGPUFutureWaitInfo){.future = {0}};
  report(inst, "id-0-poll", w, 1, 0, true);
  w[0] = (WGPUFutureWaitInfo){.future = {0}};
  report(inst, "id-0-timed", w, 1, 1000000, true);
  w[0] = (WGPUFutureWaitInfo){.future = {1u << 30}};
  report(inst, "unknown-id-poll", w, 1, 0, true);
  w[0] = (WGPUFutureWaitInfo){.future = {1u << 30}};
  report(inst, "unknown-id-timed", w, 1, 1000000, true);

  /* 100 work-done futures, the last one waited for alone: the queue has
   * nothing in it, so every one is done once the last is. */
  atomic_int count = 0;
  WGPUFuture fs[100];
  for (int i = 0; i < 100; i++) fs[i] = work_done(c, WGPUCallbackMode_WaitAnyOnly, on_done_count, &count);
  w[0] = (WGPUFutureWaitInfo){.future = fs[99]};
  report(inst, "one-of-100", w, 1, WP_WAIT_NS, false);
  for (int i = 0; i < 100; i++) w[i] = (WGPUFutureWaitInfo){.future = fs[i]};
  report(inst, "100-poll", w, 100, 0, true);
  printf("callbacks run %d of 100\n", atomic_load(&count));
  for (int i = 0; i < 65; i++) w[i] = (WGPUFutureWaitInfo){.future = fs[i]};
  report(inst, "65-finished-poll", w, 65, 0, true);
  for (int i = 0; i < 65; i++) w[i] = (WGPUFutureWaitInfo){.future = fs[i]};
  report(inst, "65-finished-timed", w, 65, 1000000, true);
  for (int i = 0; i < 64; i++) w[i] = (WGPUFutureWaitInfo){.future = fs[i]};
  report(inst, "64-finished-timed", w, 64, 1000000, true);

  /* A timed wait on an instance without timedWaitAnyEnable. */
  WGPUInstance plain = wgpuCreateInstance(&(WGPUInstanceDescriptor){0});
  if (!plain) {
    printf("FAIL: a second instance could not be made\n");
    return false;
  }
  report(plain, "untimed-instance-empty-timed", NULL, 0, 1000000, true);
  report(plain, "untimed-instance-empty-poll", NULL, 0, 0, true);
  wgpuInstanceRelease(plain);

  /* A callback that waits for its own future: with a timeout of 2 s, then
   * with 0. */
  for (int k = 0; k < 2; k++) {
    self_wait sw = {.inst = inst, .timeout = k ? 0 : 2000000000ull};
    sw.self = work_done(c, WGPUCallbackMode_AllowProcessEvents, on_done_self, &sw);
    if (!wp_process_until(c, &sw.done, "a callback that waits for its own future")) return false;
    printf("case self-wait-%s: %s completed %d\n", k ? "poll" : "timed", st_name(sw.status), sw.completed ? 1 : 0);
    if (sw.took > UL_FUT_SLOW_S) {
      printf("FAIL self-wait: the wait took %.2f s\n", sw.took);
      g_slow++;
    }
  }

  /* Another thread runs a callback that does not return yet: a poll of its
   * future, and ProcessEvents, come back at once. */
  held h = {0};
  WGPUFuture hf = work_done(c, WGPUCallbackMode_AllowProcessEvents, on_done_held, &h);
  pthread_t t;
  pump_arg pa = {inst, &h};
  if (pthread_create(&t, NULL, pump, &pa)) return false;
  double deadline = wp_now_s() + 20;
  while (!atomic_load(&h.in) && wp_now_s() < deadline) nanosleep(&(struct timespec){0, 200000}, NULL);
  if (!atomic_load(&h.in)) {
    printf("FAIL: the held callback never ran\n");
    atomic_store(&h.go, true);
    pthread_join(t, NULL);
    return false;
  }
  w[0] = (WGPUFutureWaitInfo){.future = hf};
  report(inst, "poll-while-callback-runs-elsewhere", w, 1, 0, true);
  double t0 = wp_now_s();
  wgpuInstanceProcessEvents(inst);
  if (wp_now_s() - t0 > UL_FUT_SLOW_S) {
    printf("FAIL: ProcessEvents waited %.2f s for another thread's callback\n", wp_now_s() - t0);
    g_slow++;
  }
  atomic_store(&h.go, true);
  pthread_join(t, NULL);
  w[0] = (WGPUFutureWaitInfo){.future = hf};
  report(inst, "poll-after-callback-returned", w, 1, 0, true);
  return g_slow == 0;
}

int main(int argc, char **argv) {
  signal(SIGALRM, on_alarm);
  alarm(UL_FUT_WATCHDOG_S);
  wp_ctx c;
  int rc = wp_start(&c, "futures", argc, argv);
  if (rc) return wp_end(&c, rc);
  if ((rc = wp_open_device(&c, NULL, 0, NULL))) return wp_end(&c, rc);
  return wp_end(&c, run(&c) ? 0 : WP_FAIL);
}
