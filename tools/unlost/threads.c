/* Two iterative clients of unlost.h, as a program that runs for a long
 * time would be written (issue 29): "iterate", one thread that steps a
 * ping-pong stencil over two LOG buffers, writes a SHADOW uniform each
 * step, takes a buffer from a pool each step (giving it back once a read
 * of it came back), reads it back asynchronously every 25 steps, polls each
 * step and checkpoints every 100; and "threads", several threads
 * on one device, each with three LOG buffers of its own, its own uniform,
 * asynchronous reads and checkpoints. Integer arithmetic only: the CPU
 * reference (written from the shader's text) is bit-identical. Every
 * asynchronous read is counted as issued and as answered (its callback ran,
 * with data or an error), so the harness sees a read left pending. */
#include "workload.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define IT_N 256          /* u32 words per buffer */
#define IT_READ_EVERY 25  /* steps between asynchronous reads */
#define IT_CKPT_EVERY 100 /* steps between checkpoints */
#define IT_READ_WORDS 16  /* words per asynchronous read (threads) */
#define IT_MAX_STEPS 400 /* the outputs fit in workload_result */
#define IT_MAX_READS (IT_MAX_STEPS / IT_READ_EVERY)
#define IT_MAX_THREADS 8
/* How long a workload polls for its own reads before it gives up on them
 * (they are then counted unanswered: the library's deadline is shorter). */
#define IT_DELIVER_NS 90000000000ull

static uint32_t g_steps = 200, g_threads = 4;

void workload_iterate_config(uint32_t steps, uint32_t threads) {
  if (steps) g_steps = steps > IT_MAX_STEPS ? IT_MAX_STEPS : steps;
  if (threads) g_threads = threads > IT_MAX_THREADS ? IT_MAX_THREADS : threads;
}

static const char *stencil_wgsl =
    "struct P { step: u32, salt: u32, pad0: u32, pad1: u32 }\n"
    "@group(0) @binding(0) var<uniform> p: P;\n"
    "@group(0) @binding(1) var<storage, read> src: array<u32>;\n"
    "@group(0) @binding(2) var<storage, read_write> dst: array<u32>;\n"
    "@compute @workgroup_size(64)\n"
    "fn stencil(@builtin(global_invocation_id) id: vec3u) {\n"
    "  let n = arrayLength(&dst);\n"
    "  let i = id.x;\n"
    "  if (i >= n) { return; }\n"
    "  dst[i] = src[(i + n - 1u) % n] + 2u * src[i] + src[(i + 1u) % n] + p.step * 3u + p.salt;\n"
    "}\n";

/* The shader's step on the CPU. */
static void cpu_stencil(const uint32_t *src, uint32_t *dst, uint32_t step, uint32_t salt) {
  for (uint32_t i = 0; i < IT_N; i++)
    dst[i] = src[(i + IT_N - 1) % IT_N] + 2u * src[i] + src[(i + 1) % IT_N] + step * 3u + salt;
}

static uint64_t fnv(const uint8_t *p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

static uint64_t mono_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Reads of one client: answered from ul_device_poll on any thread. */
typedef struct read_sink {
  _Atomic int answered;
  _Atomic int first_error; /* ul_status of the first failed read */
  int issued;
} read_sink;

static void on_read(ul_device *dev, ul_status status, void *dst, void *user) {
  (void)dev;
  (void)dst;
  read_sink *k = user;
  int none = 0;
  if (status) atomic_compare_exchange_strong(&k->first_error, &none, (int)status);
  atomic_fetch_add_explicit(&k->answered, 1, memory_order_release);
}

/* Polls until every read of `k` was answered, for at most IT_DELIVER_NS,
 * as a program's frame loop would: a poll, then a millisecond of its own
 * work. */
static ul_status deliver(ul_device *dev, read_sink *k) {
  uint64_t t0 = mono_ns();
  while (atomic_load_explicit(&k->answered, memory_order_acquire) < k->issued) {
    ul_device_poll(dev);
    if (atomic_load_explicit(&k->answered, memory_order_acquire) >= k->issued) break;
    if (mono_ns() - t0 > IT_DELIVER_NS)
      return ul_error_set(UL_ERR_TIMEOUT, "%d of %d asynchronous reads not answered after %.0f s",
                          k->issued - atomic_load(&k->answered), k->issued, (double)IT_DELIVER_NS / 1e9);
    nanosleep(&(struct timespec){0, 1000000}, NULL);
  }
  int e = atomic_load(&k->first_error);
  return e ? ul_error_set((ul_status)e, "an asynchronous read failed: %s", ul_status_name((ul_status)e)) : UL_OK;
}

#define TRY(call)                                                                   \
  do {                                                                              \
    if ((s = (call)) != UL_OK) goto done;                                           \
  } while (0)

/* ---- iterate: one thread ---- */

static size_t iterate_expected(uint8_t *outp) {
  static uint32_t a[IT_N], b[IT_N], hist[IT_MAX_READS][IT_N];
  for (uint32_t i = 0; i < IT_N; i++) {
    a[i] = i * 7u + 1u;
    b[i] = 0;
  }
  int nreads = 0;
  for (uint32_t step = 1; step <= g_steps; step++) {
    uint32_t *src = step % 2 ? a : b, *dst = step % 2 ? b : a;
    cpu_stencil(src, dst, step, 0);
    if (step % IT_READ_EVERY == 0) memcpy(hist[nreads++], dst, sizeof hist[0]);
  }
  size_t o = 0;
  memcpy(outp + o, hist, (size_t)nreads * sizeof hist[0]);
  o += (size_t)nreads * sizeof hist[0];
  memcpy(outp + o, a, sizeof a);
  o += sizeof a;
  memcpy(outp + o, b, sizeof b);
  o += sizeof b;
  return o;
}

ul_status workload_iterate(ul_device *dev, workload_result *out) {
  static uint32_t hist[IT_MAX_READS][IT_N];
  static read_sink sink;
  ul_buffer held[IT_MAX_READS];
  int released = 0;
  memset(&sink, 0, sizeof sink);
  memset(out, 0, sizeof *out);
  out->expected_size = iterate_expected(out->expected);
  uint32_t a0[IT_N];
  for (uint32_t i = 0; i < IT_N; i++) a0[i] = i * 7u + 1u;
  ul_status s = UL_OK;
  ul_buffer params = {0}, pa = {0}, pb = {0}, tmp = {0};
  ul_shader sh = {0};
  ul_compute_pipeline ps = {0};
  ul_bind_group bab = {0}, bba = {0};
  ul_cmd *cmd = NULL;
  ul_buffer_pool *pool = NULL;

  TRY(ul_buffer_create(dev, &(ul_buffer_desc){.label = "iterate params", .size = 16,
      .usage = UL_BUFFER_UNIFORM | UL_BUFFER_COPY_DST, .restore = UL_RESTORE_SHADOW}, &params));
  TRY(ul_buffer_create(dev, &(ul_buffer_desc){.label = "ping", .size = IT_N * 4, .initial_data = a0}, &pa));
  TRY(ul_buffer_create(dev, &(ul_buffer_desc){.label = "pong", .size = IT_N * 4}, &pb));
  TRY(ul_shader_create(dev, &(ul_shader_desc){.label = "stencil", .wgsl = stencil_wgsl}, &sh));
  TRY(ul_compute_pipeline_create(dev, &(ul_compute_pipeline_desc){.label = "stencil", .shader = sh,
      .entry = "stencil"}, &ps));
  TRY(ul_bind_group_create(dev, &(ul_bind_group_desc){.label = "ping->pong", .pipeline = ps, .entry_count = 3,
      .entries = {{.binding = 0, .buffer = params}, {.binding = 1, .buffer = pa}, {.binding = 2, .buffer = pb}}},
      &bab));
  TRY(ul_bind_group_create(dev, &(ul_bind_group_desc){.label = "pong->ping", .pipeline = ps, .entry_count = 3,
      .entries = {{.binding = 0, .buffer = params}, {.binding = 1, .buffer = pb}, {.binding = 2, .buffer = pa}}},
      &bba));
  TRY(ul_buffer_pool_create(dev, &(ul_buffer_pool_desc){.label = "history"}, &pool));
  TRY(ul_cmd_create(dev, "step", &cmd));
  for (uint32_t step = 1; step <= g_steps; step++) {
    uint32_t p[4] = {step, 0, 0, 0};
    TRY(ul_buffer_write(dev, params, 0, p, sizeof p));
    /* A buffer from the pool each step: the step's result is copied into
     * it, and every 25 steps read back while the pool hands it out again. */
    TRY(ul_buffer_pool_acquire(pool, IT_N * 4, &tmp));
    ul_cmd_reset(cmd);
    TRY(ul_cmd_dispatch(cmd, ps, step % 2 ? &bab : &bba, 1, IT_N / 64, 1, 1));
    TRY(ul_cmd_copy_buffer(cmd, step % 2 ? pb : pa, 0, tmp, 0, IT_N * 4));
    TRY(ul_cmd_submit(dev, cmd, NULL));
    if (step % IT_READ_EVERY == 0) {
      /* A buffer with a read in flight is not given back before the read
       * came back: the pool holds more buffers then. */
      TRY(ul_buffer_read_async(dev, tmp, 0, hist[sink.issued], IT_N * 4, on_read, &sink));
      held[sink.issued++] = tmp;
    } else {
      TRY(ul_buffer_pool_release(pool, tmp));
    }
    tmp = (ul_buffer){0};
    if (step % IT_CKPT_EVERY == 0) TRY(ul_device_checkpoint(dev));
    ul_device_poll(dev);
    while (released < atomic_load_explicit(&sink.answered, memory_order_acquire))
      TRY(ul_buffer_pool_release(pool, held[released++]));
  }
  TRY(deliver(dev, &sink));
  size_t o = 0;
  memcpy(out->output + o, hist, (size_t)sink.issued * sizeof hist[0]);
  o += (size_t)sink.issued * sizeof hist[0];
  TRY(ul_buffer_read(dev, pa, 0, out->output + o, IT_N * 4, 0));
  o += IT_N * 4;
  TRY(ul_buffer_read(dev, pb, 0, out->output + o, IT_N * 4, 0));
  o += IT_N * 4;
  out->output_size = o;
  out->hash = fnv(out->output, o);
done:;
  char err[512];
  snprintf(err, sizeof err, "%s", ul_last_error());
  if (s) deliver(dev, &sink); /* its reads are answered before their sink goes */
  out->reads_issued = (uint32_t)sink.issued;
  out->reads_answered = (uint32_t)atomic_load(&sink.answered);
  if (tmp.id) ul_buffer_pool_release(pool, tmp);
  ul_cmd_destroy(cmd);
  ul_buffer_pool_destroy(pool); /* the buffers still held with it */
  ul_bind_group_destroy(dev, bba);
  ul_bind_group_destroy(dev, bab);
  ul_compute_pipeline_destroy(dev, ps);
  ul_shader_destroy(dev, sh);
  ul_buffer_destroy(dev, pb);
  ul_buffer_destroy(dev, pa);
  ul_buffer_destroy(dev, params);
  return s ? ul_error_set(s, "%s", err) : UL_OK;
}

/* ---- threads: several clients on one device ---- */

typedef struct worker {
  ul_device *dev;
  ul_compute_pipeline ps;
  uint32_t index;
  ul_status status;
  char error[256];
  read_sink sink;
  uint32_t hist[IT_MAX_READS][IT_READ_WORDS];
  uint32_t final[3][IT_N];
} worker;

static uint32_t worker_salt(uint32_t t) { return 0x9e3779b9u * (t + 1); }

static void worker_initial(uint32_t t, uint32_t k, uint32_t *v) {
  for (uint32_t i = 0; i < IT_N; i++) v[i] = i * (2u * t + 3u) + k * 1000u + t;
}

/* Step `step` of thread t reads buffer (step-1) % 3 and writes step % 3. */
static size_t worker_expected(uint32_t t, uint8_t *outp) {
  static uint32_t buf[3][IT_N];
  for (uint32_t k = 0; k < 3; k++) worker_initial(t, k, buf[k]);
  size_t o = 0;
  uint8_t hist[IT_MAX_READS * IT_READ_WORDS * 4];
  size_t h = 0;
  for (uint32_t step = 1; step <= g_steps; step++) {
    uint32_t *src = buf[(step - 1) % 3], *dst = buf[step % 3];
    cpu_stencil(src, dst, step, worker_salt(t));
    if (step % IT_READ_EVERY == 0) {
      uint32_t off = (step / IT_READ_EVERY) % (IT_N / IT_READ_WORDS) * IT_READ_WORDS;
      memcpy(hist + h, dst + off, IT_READ_WORDS * 4);
      h += IT_READ_WORDS * 4;
    }
  }
  memcpy(outp + o, hist, h);
  o += h;
  memcpy(outp + o, buf, sizeof buf);
  o += sizeof buf;
  return o;
}

static void *worker_run(void *arg) {
  worker *w = arg;
  ul_device *dev = w->dev;
  ul_status s = UL_OK;
  ul_buffer params = {0}, buf[3] = {{0}};
  ul_bind_group bg[3] = {{0}};
  ul_cmd *cmd[3] = {NULL};
  char label[48];
  uint32_t init[IT_N];
  snprintf(label, sizeof label, "t%u params", w->index);
  TRY(ul_buffer_create(dev, &(ul_buffer_desc){.label = label, .size = 16,
      .usage = UL_BUFFER_UNIFORM | UL_BUFFER_COPY_DST, .restore = UL_RESTORE_SHADOW}, &params));
  for (uint32_t k = 0; k < 3; k++) {
    snprintf(label, sizeof label, "t%u-state%u", w->index, k);
    worker_initial(w->index, k, init);
    TRY(ul_buffer_create(dev, &(ul_buffer_desc){.label = label, .size = IT_N * 4, .initial_data = init}, &buf[k]));
  }
  for (uint32_t k = 0; k < 3; k++) {
    snprintf(label, sizeof label, "t%u %u->%u", w->index, k, (k + 1) % 3);
    TRY(ul_bind_group_create(dev, &(ul_bind_group_desc){.label = label, .pipeline = w->ps, .entry_count = 3,
        .entries = {{.binding = 0, .buffer = params}, {.binding = 1, .buffer = buf[k]},
                    {.binding = 2, .buffer = buf[(k + 1) % 3]}}}, &bg[k]));
    snprintf(label, sizeof label, "t%u step %u", w->index, k);
    TRY(ul_cmd_create(dev, label, &cmd[k]));
    TRY(ul_cmd_dispatch(cmd[k], w->ps, &bg[k], 1, IT_N / 64, 1, 1));
  }
  for (uint32_t step = 1; step <= g_steps; step++) {
    uint32_t p[4] = {step, worker_salt(w->index), 0, 0};
    TRY(ul_buffer_write(dev, params, 0, p, sizeof p));
    TRY(ul_cmd_submit(dev, cmd[(step - 1) % 3], NULL));
    if (step % IT_READ_EVERY == 0) {
      uint32_t off = (step / IT_READ_EVERY) % (IT_N / IT_READ_WORDS) * IT_READ_WORDS;
      TRY(ul_buffer_read_async(dev, buf[step % 3], off * 4, w->hist[w->sink.issued], IT_READ_WORDS * 4, on_read,
                               &w->sink));
      w->sink.issued++;
    }
    if (step % IT_CKPT_EVERY == 0) TRY(ul_device_checkpoint(dev));
    if (step % 5 == 0) ul_device_poll(dev);
  }
  TRY(deliver(dev, &w->sink));
  for (uint32_t k = 0; k < 3; k++) TRY(ul_buffer_read(dev, buf[k], 0, w->final[k], IT_N * 4, 0));
done:
  if (s) {
    snprintf(w->error, sizeof w->error, "thread %u: %s: %s", w->index, ul_status_name(s), ul_last_error());
    deliver(dev, &w->sink);
  }
  w->status = s;
  for (uint32_t k = 0; k < 3; k++) {
    ul_cmd_destroy(cmd[k]);
    ul_bind_group_destroy(dev, bg[k]);
  }
  for (uint32_t k = 0; k < 3; k++) ul_buffer_destroy(dev, buf[k]);
  ul_buffer_destroy(dev, params);
  return NULL;
}

ul_status workload_threads(ul_device *dev, workload_result *out) {
  static worker workers[IT_MAX_THREADS];
  memset(out, 0, sizeof *out);
  const uint32_t nt = g_threads;
  size_t e = 0;
  for (uint32_t t = 0; t < nt; t++) e += worker_expected(t, out->expected + e);
  out->expected_size = e;
  ul_status s = UL_OK;
  ul_shader sh = {0};
  ul_compute_pipeline ps = {0};
  pthread_t th[IT_MAX_THREADS];
  bool started[IT_MAX_THREADS] = {false};
  TRY(ul_shader_create(dev, &(ul_shader_desc){.label = "stencil", .wgsl = stencil_wgsl}, &sh));
  TRY(ul_compute_pipeline_create(dev, &(ul_compute_pipeline_desc){.label = "stencil", .shader = sh,
      .entry = "stencil"}, &ps));
  for (uint32_t t = 0; t < nt; t++) {
    memset(&workers[t], 0, sizeof workers[t]);
    workers[t].dev = dev;
    workers[t].ps = ps;
    workers[t].index = t;
    started[t] = pthread_create(&th[t], NULL, worker_run, &workers[t]) == 0;
    if (!started[t]) {
      workers[t].status = UL_ERR_INTERNAL;
      snprintf(workers[t].error, sizeof workers[t].error, "thread %u: pthread_create failed", t);
    }
  }
  for (uint32_t t = 0; t < nt; t++)
    if (started[t]) pthread_join(th[t], NULL);
  for (uint32_t t = 0; t < nt; t++) {
    out->reads_issued += (uint32_t)workers[t].sink.issued;
    out->reads_answered += (uint32_t)atomic_load(&workers[t].sink.answered);
    if (workers[t].status && !s) s = ul_error_set(workers[t].status, "%s", workers[t].error);
  }
  if (s) goto done;
  size_t o = 0;
  for (uint32_t t = 0; t < nt; t++) {
    size_t h = (size_t)workers[t].sink.issued * IT_READ_WORDS * 4;
    memcpy(out->output + o, workers[t].hist, h);
    o += h;
    memcpy(out->output + o, workers[t].final, sizeof workers[t].final);
    o += sizeof workers[t].final;
  }
  out->output_size = o;
  out->hash = fnv(out->output, o);
done:
  ul_compute_pipeline_destroy(dev, ps);
  ul_shader_destroy(dev, sh);
  return s;
}
