/* `unlost bench track`: buffer create+destroy through raw webgpu.h,
 * through unlost, with backtraces, and the tracker alone (its hot path: one
 * alloc and one free). Reads internals (the proc table, the tracker), so it
 * lives with the benchmarks, not in the library or the CLI. */
#include "bench_internal.h"
#include "cli.h"
#include "core/core.h"
#include "track/track_int.h"

#include <math.h>


static double median(double *v, int n) {
  bench_sort(v, n);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ns per pair of: raw wgpu create+destroy (kind 0), unlost (1), unlost with
 * backtraces (2). */
static ul_status run_pairs(ul_device *dev, int kind, int pairs, double *ns) {
  uint64_t t0 = ul__now_ns();
  if (kind == 0) {
    const ul__wgpu *w = dev->wgpu;
    WGPUBufferDescriptor bd = {0};
    bd.usage = WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc | WGPUBufferUsage_CopyDst;
    bd.size = 256;
    for (int i = 0; i < pairs; i++) {
      WGPUBuffer b = w->DeviceCreateBuffer(dev->device, &bd);
      w->BufferDestroy(b);
      w->BufferRelease(b);
    }
  } else {
    for (int i = 0; i < pairs; i++) {
      ul_buffer b;
      ul_status s = ul_buffer_create(dev, &(ul_buffer_desc){.label = "bench", .size = 256,
                                                             .restore = UL_RESTORE_NONE}, &b);
      if (s) return s;
      ul_buffer_destroy(dev, b);
    }
  }
  *ns = (double)(ul__now_ns() - t0) / pairs;
  return UL_OK;
}

int bench_track(int argc, char **argv, bool json) {
  int pairs = 2000;
  const cli_opt opts[] = {{"buffers", CLI_INT, &pairs, .lo = 1, .hi = 100000000}, {0}};
  int prc = cli_parse("bench track", argc, argv, opts, CLI_NO_OPERANDS, bench_sub_usage, NULL);
  if (prc) return prc == 1 ? 0 : 2;
  ul_env *env = NULL;
  ul_device *plain = NULL, *bt = NULL;
  ul_status s = ul_env_create(NULL, &env);
  if (!s) s = ul_device_create(env, &(ul_device_desc){.label = "bench"}, &plain);
  if (!s) s = ul_device_create(env, &(ul_device_desc){.label = "bench-bt", .track_backtraces = true}, &bt);
  enum { REPS = 7 };
  double raw[REPS], tracked[REPS], withbt[REPS];
  /* Interleaved, so drift hits all three alike. */
  for (int r = 0; r < REPS && !s; r++) {
    s = run_pairs(plain, 0, pairs, &raw[r]);
    if (!s) s = run_pairs(plain, 1, pairs, &tracked[r]);
    if (!s) s = run_pairs(bt, 2, pairs, &withbt[r]);
  }
  /* The tracker alone: the median of repetitions, as for the rest (one
   * long run takes whatever the machine's neighbours do to it). */
  double alone[REPS], alone_bt[REPS];
  for (int r = 0; r < REPS && !s; r++) {
    s = ul__track_bench(false, 20000, &alone[r]);
    if (!s) s = ul__track_bench(true, 4000, &alone_bt[r]);
  }
  if (s) {
    fprintf(stderr, "unlost bench track: %s: %s\n", ul_status_name(s), ul_last_error());
    ul_device_destroy(bt);
    ul_device_destroy(plain);
    ul_env_destroy(env);
    return 1;
  }
  ul_adapter_info ai;
  ul_device_adapter_info(plain, &ai);
  double m_raw = median(raw, REPS), m_tr = median(tracked, REPS), m_bt = median(withbt, REPS);
  double tracker_only = median(alone, REPS), tracker_bt = median(alone_bt, REPS);
  double alone_min = alone[0], alone_max = alone[0];
  for (int r = 1; r < REPS; r++) {
    alone_min = alone[r] < alone_min ? alone[r] : alone_min;
    alone_max = alone[r] > alone_max ? alone[r] : alone_max;
  }
  int rc = 0;
  if (json) {
#ifdef UL_HAVE_JANSSON
    json_t *doc = json_pack("{s:s,s:s,s:i,s:i}", "bench", "track", "adapter", ai.name, "pairs", pairs, "repetitions",
                            REPS);
    bool ok = cli_json_reals(doc, 0, "untracked_ns", m_raw, "tracked_ns", m_tr, "backtrace_ns", m_bt, NULL);
    ok &= cli_json_reals(doc, 3, "ratio_tracked", m_tr / m_raw, NULL);
    ok &= cli_json_reals(doc, 1, "tracker_only_ns", tracker_only, "tracker_only_ns_min", alone_min,
                         "tracker_only_ns_max", alone_max, "tracker_backtrace_ns", tracker_bt, NULL);
    if (!ok || !cli_json_write("unlost bench track", "-", doc)) rc = 1;
#endif
  } else {
    printf("adapter                     %s\n", ai.name);
    printf("raw webgpu.h create+destroy %8.0f ns\n", m_raw);
    printf("unlost (tracked)            %8.0f ns  (%.2fx raw)\n", m_tr, m_tr / m_raw);
    printf("unlost with backtraces      %8.0f ns\n", m_bt);
    printf("tracker alone               %8.1f ns per pair (%.1f..%.1f; %.1f ns with backtraces)\n", tracker_only,
           alone_min, alone_max, tracker_bt);
  }
  ul_device_destroy(bt);
  ul_device_destroy(plain);
  ul_env_destroy(env);
  return rc;
}
