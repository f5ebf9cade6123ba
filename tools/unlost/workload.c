/* Built-in workloads. Integer arithmetic only, so a replayed run is
 * bit-identical to a clean one. */
#include "workload.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#define N 256 /* u32 elements per buffer */
#define STEPS 8

static const char *step_wgsl =
    "struct Params { step: u32, scale: u32, pad0: u32, pad1: u32 }\n"
    "@group(0) @binding(0) var<storage, read> weights: array<u32>;\n"
    "@group(0) @binding(1) var<storage, read> params: Params;\n"
    "@group(0) @binding(2) var<storage, read_write> state: array<u32>;\n"
    "@group(0) @binding(3) var<storage, read> cache: array<u32>;\n"
    "@group(0) @binding(4) var<storage, read_write> out: array<u32>;\n"
    "@compute @workgroup_size(64)\n"
    "fn update(@builtin(global_invocation_id) id: vec3u) {\n"
    "  let i = id.x;\n"
    "  if (i >= arrayLength(&state)) { return; }\n"
    "  let j = (i + params.step) % arrayLength(&state);\n"
    "  state[i] = state[i] * params.scale + weights[i] + cache[j] + params.step;\n"
    "}\n"
    "@compute @workgroup_size(64)\n"
    "fn emit(@builtin(global_invocation_id) id: vec3u) {\n"
    "  let i = id.x;\n"
    "  if (i >= arrayLength(&out)) { return; }\n"
    "  out[i] = state[i] ^ (params.step * 7u);\n"
    "}\n"
    "@group(0) @binding(5) var<storage, read> src: array<u32>;\n"
    "@group(0) @binding(6) var<storage, read_write> dst: array<u32>;\n"
    "@compute @workgroup_size(64)\n"
    "fn stencil(@builtin(global_invocation_id) id: vec3u) {\n"
    "  let n = arrayLength(&dst);\n"
    "  let i = id.x;\n"
    "  if (i >= n) { return; }\n"
    "  dst[i] = src[(i + n - 1u) % n] + 2u * src[i] + src[(i + 1u) % n] + params.step;\n"
    "}\n";

static void cache_contents(uint32_t v[N]) {
  for (uint32_t i = 0; i < N; i++) v[i] = i * 2654435761u;
}

static ul_status refill_cache(ul_device *dev, ul_buffer buf, void *user) {
  (void)user;
  uint32_t v[N];
  cache_contents(v);
  return ul_buffer_write(dev, buf, 0, v, sizeof v);
}

/* Steps after which an asynchronous read of the ping-pong buffer just
 * written is issued; that buffer is overwritten two steps later. */
static bool async_read_after(uint32_t step) { return step == 2 || step == 5 || step == 7; }
#define ASYNC_WORDS 16
#define ASYNC_READS 3

/* The same computation on the CPU, written from the shader's text alone:
 * what the workload's output must be. */
static size_t basic_expected(uint8_t *outp) {
  uint32_t weights[N], cache[N], state[N], out[N], a[N], b[N];
  for (uint32_t i = 0; i < N; i++) {
    weights[i] = i * 40503u + 17u;
    state[i] = i;
    a[i] = i * 7u + 1u;
    b[i] = 0;
    out[i] = 0;
  }
  cache_contents(cache);
  size_t o = 0;
  uint32_t reads[ASYNC_READS][ASYNC_WORDS];
  int nreads = 0;
  for (uint32_t step = 1; step <= STEPS; step++) {
    uint32_t scale = 3u + step % 2u;
    for (uint32_t i = 0; i < N; i++) state[i] = state[i] * scale + weights[i] + cache[(i + step) % N] + step;
    for (uint32_t i = 0; i < N; i++) out[i] = state[i] ^ (step * 7u);
    uint32_t *src = step % 2 ? a : b, *dst = step % 2 ? b : a;
    for (uint32_t i = 0; i < N; i++)
      dst[i] = src[(i + N - 1) % N] + 2u * src[i] + src[(i + 1) % N] + step;
    if (step % 3 == 0) {
      memcpy(outp + o, state, ASYNC_WORDS * 4);
      o += ASYNC_WORDS * 4;
    }
    if (async_read_after(step)) memcpy(reads[nreads++], dst, sizeof reads[0]);
  }
  memcpy(outp + o, reads, sizeof reads);
  o += sizeof reads;
  memcpy(outp + o, state, N * 4);
  o += N * 4;
  memcpy(outp + o, out, N * 4);
  o += N * 4;
  memcpy(outp + o, a, N * 4);
  o += N * 4;
  memcpy(outp + o, b, N * 4);
  o += N * 4;
  return o;
}

typedef struct async_sink {
  uint32_t data[ASYNC_READS][ASYNC_WORDS];
  uint32_t order[ASYNC_READS]; /* which read was delivered n-th */
  int delivered;
  ul_status status;
} async_sink;

static void on_async(ul_device *dev, ul_status status, void *dst, void *user) {
  (void)dev;
  async_sink *k = user;
  if (status && !k->status) k->status = status;
  if (k->delivered < ASYNC_READS)
    k->order[k->delivered++] = (uint32_t)(((uint32_t(*)[ASYNC_WORDS])dst) - k->data);
}

static uint64_t fnv(const uint8_t *p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

#define TRY(call)                                                                   \
  do {                                                                              \
    if ((s = (call)) != UL_OK) goto done;                                           \
  } while (0)

ul_status workload_basic(ul_device *dev, workload_result *out) {
  static uint32_t weights[N];
  for (uint32_t i = 0; i < N; i++) weights[i] = i * 40503u + 17u;
  uint32_t state0[N];
  for (uint32_t i = 0; i < N; i++) state0[i] = i;
  uint32_t a0[N];
  for (uint32_t i = 0; i < N; i++) a0[i] = i * 7u + 1u;
  ul_status s = UL_OK;
  ul_buffer w = {0}, params = {0}, state = {0}, cache = {0}, outb = {0}, pa = {0}, pb = {0};
  ul_shader sh = {0};
  ul_compute_pipeline pu = {0}, pe = {0}, ps = {0};
  ul_bind_group bu = {0}, be = {0}, bab = {0}, bba = {0};
  ul_cmd *cmd = NULL, *cmd_odd = NULL, *cmd_even = NULL;
  static async_sink sink;
  int nasync = 0;
  memset(&sink, 0, sizeof sink);
  memset(out, 0, sizeof *out);
  out->expected_size = basic_expected(out->expected);

  TRY(ul_buffer_create(dev, &(ul_buffer_desc){.label = "weights", .size = sizeof weights,
      .restore = UL_RESTORE_SOURCE, .source_data = weights}, &w));
  TRY(ul_buffer_create(dev, &(ul_buffer_desc){.label = "params", .size = 16,
      .restore = UL_RESTORE_SHADOW}, &params));
  TRY(ul_buffer_create(dev, &(ul_buffer_desc){.label = "state", .size = sizeof state0,
      .restore = UL_RESTORE_LOG, .initial_data = state0}, &state));
  TRY(ul_buffer_create(dev, &(ul_buffer_desc){.label = "cache", .size = N * 4,
      .restore = UL_RESTORE_CALLBACK, .restore_fn = refill_cache}, &cache));
  TRY(refill_cache(dev, cache, NULL));
  TRY(ul_buffer_create(dev, &(ul_buffer_desc){.label = "out", .size = N * 4,
      .restore = UL_RESTORE_NONE}, &outb));
  TRY(ul_shader_create(dev, &(ul_shader_desc){.label = "basic", .wgsl = step_wgsl}, &sh));
  TRY(ul_compute_pipeline_create(dev, &(ul_compute_pipeline_desc){.label = "update", .shader = sh,
      .entry = "update"}, &pu));
  TRY(ul_compute_pipeline_create(dev, &(ul_compute_pipeline_desc){.label = "emit", .shader = sh,
      .entry = "emit"}, &pe));
  TRY(ul_bind_group_create(dev, &(ul_bind_group_desc){.label = "update", .pipeline = pu, .entry_count = 4,
      .entries = {{.binding = 0, .buffer = w}, {.binding = 1, .buffer = params},
                  {.binding = 2, .buffer = state}, {.binding = 3, .buffer = cache}}}, &bu));
  TRY(ul_bind_group_create(dev, &(ul_bind_group_desc){.label = "emit", .pipeline = pe, .entry_count = 3,
      .entries = {{.binding = 1, .buffer = params}, {.binding = 2, .buffer = state},
                  {.binding = 4, .buffer = outb}}}, &be));
  /* Two LOG buffers that ping-pong: each step reads one and writes the
   * other, with checkpoints between their writes. */
  TRY(ul_buffer_create(dev, &(ul_buffer_desc){.label = "ping", .size = N * 4,
      .restore = UL_RESTORE_LOG, .initial_data = a0}, &pa));
  TRY(ul_buffer_create(dev, &(ul_buffer_desc){.label = "pong", .size = N * 4,
      .restore = UL_RESTORE_LOG}, &pb));
  TRY(ul_compute_pipeline_create(dev, &(ul_compute_pipeline_desc){.label = "stencil", .shader = sh,
      .entry = "stencil"}, &ps));
  TRY(ul_bind_group_create(dev, &(ul_bind_group_desc){.label = "ping->pong", .pipeline = ps, .entry_count = 3,
      .entries = {{.binding = 1, .buffer = params}, {.binding = 5, .buffer = pa},
                  {.binding = 6, .buffer = pb}}}, &bab));
  TRY(ul_bind_group_create(dev, &(ul_bind_group_desc){.label = "pong->ping", .pipeline = ps, .entry_count = 3,
      .entries = {{.binding = 1, .buffer = params}, {.binding = 5, .buffer = pb},
                  {.binding = 6, .buffer = pa}}}, &bba));
  TRY(ul_cmd_create(dev, "step", &cmd));
  TRY(ul_cmd_dispatch(cmd, pu, &bu, 1, N / 64, 1, 1));
  TRY(ul_cmd_dispatch(cmd, pe, &be, 1, N / 64, 1, 1));
  TRY(ul_cmd_create(dev, "ping->pong", &cmd_odd));
  TRY(ul_cmd_dispatch(cmd_odd, ps, &bab, 1, N / 64, 1, 1));
  TRY(ul_cmd_create(dev, "pong->ping", &cmd_even));
  TRY(ul_cmd_dispatch(cmd_even, ps, &bba, 1, N / 64, 1, 1));
  size_t o = 0;
  for (uint32_t step = 1; step <= STEPS; step++) {
    uint32_t p[4] = {step, 3u + step % 2u, 0, 0};
    TRY(ul_buffer_write(dev, params, 0, p, sizeof p));
    uint64_t serial;
    TRY(ul_cmd_submit(dev, cmd, &serial));
    TRY(ul_cmd_submit(dev, step % 2 ? cmd_odd : cmd_even, NULL));
    if (async_read_after(step)) {
      /* Read what this step wrote; two steps later it is overwritten. */
      TRY(ul_buffer_read_async(dev, step % 2 ? pb : pa, 0, sink.data[nasync], ASYNC_WORDS * 4, on_async, &sink));
      nasync++;
    }
    if (step % 3 == 0) {
      /* a read in the middle: its value is part of the output */
      uint32_t mid[16];
      TRY(ul_buffer_read(dev, state, 0, mid, sizeof mid, 0));
      memcpy(out->output + o, mid, sizeof mid);
      o += sizeof mid;
    }
    if (step == 4 || step == 6) TRY(ul_device_checkpoint(dev));
    if (step == 6) TRY(ul_device_wait(dev, serial, 0));
  }
  /* Deliver the asynchronous reads: in issue order, each with the data of
   * its place in the queue. */
  TRY(workload_deliver_reads(dev, &sink.delivered, nasync, &sink.status));
  for (int k = 0; k < nasync; k++) {
    memcpy(out->output + o, sink.data[sink.order[k]], ASYNC_WORDS * 4);
    o += ASYNC_WORDS * 4;
  }
  TRY(ul_buffer_read(dev, state, 0, out->output + o, N * 4, 0));
  o += N * 4;
  TRY(ul_buffer_read(dev, outb, 0, out->output + o, N * 4, 0));
  o += N * 4;
  TRY(ul_buffer_read(dev, pa, 0, out->output + o, N * 4, 0));
  o += N * 4;
  TRY(ul_buffer_read(dev, pb, 0, out->output + o, N * 4, 0));
  o += N * 4;
  out->output_size = o;
  out->hash = fnv(out->output, o);
done:
  /* Reads still queued are answered before their sink goes. */
  char err[512];
  snprintf(err, sizeof err, "%s", ul_last_error());
  if (nasync > sink.delivered) workload_deliver_reads(dev, &sink.delivered, nasync, &sink.status);
  out->reads_issued = (uint32_t)nasync;
  out->reads_answered = (uint32_t)sink.delivered;
  ul_cmd_destroy(cmd_even);
  ul_cmd_destroy(cmd_odd);
  ul_bind_group_destroy(dev, bba);
  ul_bind_group_destroy(dev, bab);
  ul_compute_pipeline_destroy(dev, ps);
  ul_buffer_destroy(dev, pb);
  ul_buffer_destroy(dev, pa);
  ul_cmd_destroy(cmd);
  ul_bind_group_destroy(dev, be);
  ul_bind_group_destroy(dev, bu);
  ul_compute_pipeline_destroy(dev, pe);
  ul_compute_pipeline_destroy(dev, pu);
  ul_shader_destroy(dev, sh);
  ul_buffer_destroy(dev, outb);
  ul_buffer_destroy(dev, cache);
  ul_buffer_destroy(dev, state);
  ul_buffer_destroy(dev, params);
  ul_buffer_destroy(dev, w);
  return s ? ul_error_set(s, "%s", err) : UL_OK;
}

static uint64_t mono_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

ul_status workload_deliver_reads(ul_device *dev, const int *delivered, int want, const ul_status *status) {
  uint64_t t0 = mono_ms();
  ul_status waited = UL_OK;
  char why[256] = "";
  while (*delivered < want && mono_ms() - t0 < 45000) {
    ul_device_poll(dev);
    if (*delivered >= want) break;
    ul_status s = ul_device_wait_idle(dev, 1000);
    if (s && s != UL_ERR_TIMEOUT && !waited) {
      waited = s;
      snprintf(why, sizeof why, "%s", ul_last_error());
    }
    if (s) nanosleep(&(struct timespec){0, 1000000}, NULL);
  }
  if (*status) return *status;
  if (*delivered == want) return waited ? ul_error_set(waited, "%s", why) : UL_OK;
  return ul_error_set(waited ? waited : UL_ERR_TIMEOUT, "%d of %d asynchronous reads not answered after 45 s%s%s",
                      want - *delivered, want, why[0] ? ": " : "", why);
}

workload_fn workload_find(const char *name) {
  if (!strcmp(name, "basic")) return workload_basic;
  if (!strcmp(name, "zoo")) return workload_zoo;
  if (!strcmp(name, "iterate")) return workload_iterate;
  if (!strcmp(name, "threads")) return workload_threads;
  if (!strcmp(name, "decode")) return workload_decode;
  return NULL;
}

const char *const workload_names = "basic, zoo, iterate, threads, decode";
