/* Futures under device losses, through the layer (issue 36). Run with a
 * fault schedule in UNLOST_CHAOS (webgpu.cmake sets one per test):
 *
 *   lossfut threads     two threads each write, copy and map their own
 *                       buffer and wait for the map with WaitAny, round
 *                       after round, on one device, while a third turns
 *                       ProcessEvents: every map answers
 *                       Success with the bytes the CPU expects (a map
 *                       caught by a loss is made again, never answered
 *                       Error, and no future is moved on by two threads at
 *                       once).
 *   lossfut pending K   a kernel dispatched N times, then K work-done
 *                       callbacks pending while the program turns
 *                       ProcessEvents: the loop ends, every callback with
 *                       Success and the buffer read back as the CPU
 *                       computes it, or with the loss reported to the
 *                       program (the give-up bound); it never runs on.
 *
 * A watchdog fails a run that hangs (a wait that never ends, a callback
 * loop that never ends) instead of leaving it to CTest's timeout. */
#include "wgpu_prog.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#define LF_WATCHDOG_S 120
#define LF_WORDS 1024
#define LF_ROUNDS 40
#define LF_DISPATCHES 20
/* Each dispatch's loop: long enough that a replay of the dispatches takes
 * longer than the program's next few calls. */
#ifndef LF_ITERS
#define LF_ITERS 16384
#endif
#define LF_STR_(x) #x
#define LF_STR(x) LF_STR_(x)

static void on_alarm(int sig) {
  (void)sig;
  static const char msg[] = "FAIL lossfut: the watchdog fired: the program did not end\n";
  ssize_t r = write(1, msg, sizeof msg - 1);
  (void)r;
  _exit(1);
}

/* ---- threads ------------------------------------------------------------ */

typedef struct worker {
  wp_ctx *c;
  int index;
  int maps_ok;
  char why[1024];
} worker;

static void *work(void *p) {
  worker *w = p;
  wp_ctx *c = w->c;
  const uint64_t size = LF_WORDS * 4;
  WGPUBuffer src = wp_buffer(c, "src", WGPUBufferUsage_CopySrc | WGPUBufferUsage_CopyDst, size);
  WGPUBuffer dst = wp_buffer(c, "dst", WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst, size);
  uint32_t *want = wp_alloc(size), *got = wp_alloc(size);
  for (int r = 0; r < LF_ROUNDS && !w->why[0]; r++) {
    for (uint32_t i = 0; i < LF_WORDS; i++) want[i] = (uint32_t)w->index * 1000003u + (uint32_t)r * 7919u + i;
    wgpuQueueWriteBuffer(c->queue, src, 0, want, size);
    WGPUCommandEncoder enc = wp_encoder(c, "copy");
    wgpuCommandEncoderCopyBufferToBuffer(enc, src, 0, dst, 0, size);
    wp_submit(c, enc);
    wp_request *q = wp_request_new();
    WGPUBufferMapCallbackInfo cb = {.mode = WGPUCallbackMode_WaitAnyOnly, .callback = wp_on_map, .userdata1 = q};
    WGPUFutureWaitInfo wi = {.future = wgpuBufferMapAsync(dst, WGPUMapMode_Read, 0, size, cb)};
    WGPUWaitStatus s = wgpuInstanceWaitAny(c->instance, 1, &wi, WP_WAIT_NS);
    if (s != WGPUWaitStatus_Success || !wi.completed || !atomic_load(&q->done)) {
      snprintf(w->why, sizeof w->why, "round %d: the map's wait answered %s", r, wp_wait_status_name(s));
      break; /* q stays allocated: its callback may still come */
    }
    if (q->status != WGPUMapAsyncStatus_Success) {
      /* A loss reported to the program ends the run honestly; any other
       * failure is one the layer had promised not to give. */
      snprintf(w->why, sizeof w->why, "round %d: the map answered status %u: %s", r, q->status, q->message);
      wp_request_free(q);
      break;
    }
    wp_request_free(q);
    const void *m = wgpuBufferGetConstMappedRange(dst, 0, size);
    if (!m) {
      snprintf(w->why, sizeof w->why, "round %d: no mapped range", r);
      break;
    }
    memcpy(got, m, size);
    wgpuBufferUnmap(dst);
    if (memcmp(got, want, size)) {
      snprintf(w->why, sizeof w->why, "round %d: the bytes read differ from those written", r);
      break;
    }
    w->maps_ok++;
  }
  free(want);
  free(got);
  wgpuBufferRelease(src);
  wgpuBufferRelease(dst);
  return NULL;
}

/* A third thread turns ProcessEvents meanwhile: it moves the workers'
 * pending maps on too. */
typedef struct pumper {
  wp_ctx *c;
  atomic_bool stop;
} pumper;

static void *pump(void *p) {
  pumper *pm = p;
  while (!atomic_load(&pm->stop)) {
    wgpuInstanceProcessEvents(pm->c->instance);
    nanosleep(&(struct timespec){0, 100000}, NULL);
  }
  return NULL;
}

static bool run_threads(wp_ctx *c) {
  worker w[2] = {{c, 1, 0, ""}, {c, 2, 0, ""}};
  pthread_t t[2], tp;
  pumper pm = {c, false};
  if (pthread_create(&tp, NULL, pump, &pm)) return false;
  for (int i = 0; i < 2; i++)
    if (pthread_create(&t[i], NULL, work, &w[i])) return false;
  for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
  atomic_store(&pm.stop, true);
  pthread_join(tp, NULL);
  bool ok = true;
  for (int i = 0; i < 2; i++) {
    printf("thread %d: %d of %d maps answered with the bytes written%s%s\n", w[i].index, w[i].maps_ok, LF_ROUNDS,
           w[i].why[0] ? "; " : "", w[i].why);
    if (w[i].maps_ok != LF_ROUNDS) ok = false;
  }
  return ok;
}

/* ---- pending callbacks -------------------------------------------------- */

static void on_done(WGPUQueueWorkDoneStatus status, WGPUStringView message, void *u1, void *u2) {
  (void)message;
  atomic_int *answered = u1, *success = u2;
  if (status == WGPUQueueWorkDoneStatus_Success) atomic_fetch_add(success, 1);
  atomic_fetch_add(answered, 1);
}

static bool run_pending(wp_ctx *c, unsigned k) {
  static const char *wgsl = "const ITERS = " LF_STR(LF_ITERS) "u;\n"
                            "@group(0) @binding(0) var<storage, read_write> v: array<u32>;\n"
                            "@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) {\n"
                            "  var x = v[g.x];\n"
                            "  for (var i = 0u; i < ITERS; i++) { x = x * 3u + g.x + i; }\n"
                            "  v[g.x] = x;\n"
                            "}\n";
  uint32_t *init = wp_alloc(LF_WORDS * 4), *want = wp_alloc(LF_WORDS * 4), *got = wp_alloc(LF_WORDS * 4);
  for (uint32_t i = 0; i < LF_WORDS; i++) want[i] = init[i] = i * 2654435761u;
  for (int d = 0; d < LF_DISPATCHES; d++)
    for (uint32_t i = 0; i < LF_WORDS; i++)
      for (uint32_t j = 0; j < LF_ITERS; j++) want[i] = want[i] * 3u + i + j;
  WGPUBuffer v = wp_buffer_from(c, "v", WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc, init, LF_WORDS * 4);
  WGPUShaderModule sm = wp_shader(c, "step", wgsl);
  WGPUComputePipeline pl = wp_pipeline(c, "step", sm, "main", NULL);
  WGPUBindGroupLayout bgl = wgpuComputePipelineGetBindGroupLayout(pl, 0);
  WGPUBindGroupEntry e = wp_bind_buffer(0, v, 0, LF_WORDS * 4);
  WGPUBindGroup bg = wp_bind_group(c, "v", bgl, &e, 1);
  for (int d = 0; d < LF_DISPATCHES; d++) {
    WGPUCommandEncoder enc = wp_encoder(c, "step");
    wp_dispatch(enc, pl, bg, LF_WORDS / 64, 1, 1);
    wp_submit(c, enc);
  }
  atomic_int answered = 0, success = 0;
  for (unsigned i = 0; i < k; i++)
    wgpuQueueOnSubmittedWorkDone(c->queue, (WGPUQueueWorkDoneCallbackInfo){.mode = WGPUCallbackMode_AllowProcessEvents,
                                                                           .callback = on_done,
                                                                           .userdata1 = &answered,
                                                                           .userdata2 = &success});
  double t0 = wp_now_s();
  unsigned long turns = 0;
  while (atomic_load(&answered) < (int)k && !atomic_load(&c->lost)) {
    wgpuInstanceProcessEvents(c->instance);
    turns++;
    nanosleep(&(struct timespec){0, 200000}, NULL);
  }
  printf("%d of %u callbacks answered (%d Success) after %.2f s and %lu turns of ProcessEvents; device lost: %s\n",
         atomic_load(&answered), k, atomic_load(&success), wp_now_s() - t0, turns, atomic_load(&c->lost) ? "yes" : "no");
  bool ok = true;
  if (!atomic_load(&c->lost)) {
    ok = atomic_load(&success) == (int)k;
    if (ok && wp_read_buffer(c, v, 0, LF_WORDS * 4, got)) {
      ok = wp_check_u32("after the dispatches", got, want, LF_WORDS);
      if (ok) printf("the buffer holds what the CPU computes\n");
    } else if (ok && !atomic_load(&c->lost)) {
      ok = false;
      printf("FAIL: the buffer could not be read back\n");
    }
  } else {
    /* The loss reported to the program is an honest end. */
    printf("the loss was reported to the program\n");
    atomic_store(&c->lost, 0);
  }
  wgpuBindGroupRelease(bg);
  wgpuBindGroupLayoutRelease(bgl);
  wgpuComputePipelineRelease(pl);
  wgpuShaderModuleRelease(sm);
  wgpuBufferRelease(v);
  free(init);
  free(want);
  free(got);
  return ok;
}

int main(int argc, char **argv) {
  signal(SIGALRM, on_alarm);
  alarm(LF_WATCHDOG_S);
  setvbuf(stdout, NULL, _IOLBF, 0);
  unsigned k = 0;
  bool threads = argc == 2 && !strcmp(argv[1], "threads");
  bool pending = argc == 3 && !strcmp(argv[1], "pending") && wp_parse_count(argv[2], 100000, &k);
  if (!threads && !pending) {
    fprintf(stderr, "usage: %s threads | pending K\n", argv[0]);
    return WP_USAGE;
  }
  wp_ctx c;
  int rc = wp_start(&c, "lossfut", 1, argv);
  if (rc) return wp_end(&c, rc);
  if ((rc = wp_open_device(&c, NULL, 0, NULL))) return wp_end(&c, rc);
  bool ok = threads ? run_threads(&c) : run_pending(&c, k);
  return wp_end(&c, ok ? 0 : WP_FAIL);
}
