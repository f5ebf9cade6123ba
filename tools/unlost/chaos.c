/* unlost chaos: run a workload once clean, then once per WebGPU call index
 * with a fault injected there, and compare. */
#include "cli.h"
#include "workload.h"

#include <time.h>
#include <unistd.h>

static void chaos_usage(FILE *f) {
  fprintf(f,
          "usage: unlost chaos [--workload NAME] [--every-call | --at N | --spec SPEC]\n"
          "                    [--fault loss|oom|validation|request] [--stride K]\n"
          "                    [--json FILE]\n"
          "\n"
          "Runs the workload once without faults and counts its WebGPU calls, then\n"
          "once for each call index 1..calls with a fault injected at that call,\n"
          "and checks that every run ends with the clean run's output, no leaked\n"
          "object and no hang.\n"
          "\n"
          "  --workload NAME  built-in workload (default: basic)\n"
          "  --every-call     inject at every call index (the default)\n"
          "  --stride K       inject at every K-th call index only\n"
          "  --at N           inject at call N only\n"
          "  --spec SPEC      one run with this chaos schedule (see docs)\n"
          "  --fault KIND     loss (default): the device is lost;\n"
          "                   oom, validation: an error is injected;\n"
          "                   request: the device is lost and the next device\n"
          "                   request fails once\n"
          "  --json FILE      write the summary as JSON\n"
          "\n"
          "Exit status: 0 when every point passed, 1 otherwise, 2 usage error.\n");
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
  uint64_t leaked_objects;
  uint64_t recoveries;
  double ms;
} run_result;

uint64_t cli_env_chaos_calls(ul_env *env);
int cli_env_chaos_arm(ul_env *env, const char *spec);

/* One env for the whole run: the implementation's driver stays loaded (some
 * drivers cannot be loaded and unloaded hundreds of times in one process),
 * and each point re-arms its chaos table with the counters at zero. */
static void run_once(ul_env *env, workload_fn fn, const char *spec, run_result *r) {
  memset(r, 0, sizeof *r);
  double t0 = now_ms();
  ul_device *dev = NULL;
  ul_device_desc dd = {.label = "chaos"};
  dd.recovery.backoff_initial_ms = 1;
  dd.recovery.backoff_max_ms = 4;
  dd.recovery.jitter_seed = 7;
  if (cli_env_chaos_arm(env, spec)) {
    r->status = UL_ERR_INVALID_ARGUMENT;
    snprintf(r->error, sizeof r->error, "bad chaos schedule '%s': %s", spec, ul_last_error());
    return;
  }
  r->status = ul_device_create(env, &dd, &dev);
  if (!r->status) r->status = fn(dev, &r->out);
  if (r->status) snprintf(r->error, sizeof r->error, "%s: %s", ul_status_name(r->status), ul_last_error());
  if (dev) {
    ul_memory_stats st;
    if (!ul_device_memory_stats(dev, &st)) r->leaked_objects = st.live_objects;
    r->recoveries = ul_device_epoch(dev) - 1;
  }
  r->calls = cli_env_chaos_calls(env);
  if (ul_device_destroy(dev) == UL_ERR_BUSY && !r->leaked_objects) r->leaked_objects = 1;
  cli_env_chaos_arm(env, "seed=1");
  r->ms = now_ms() - t0;
}

int cmd_chaos(int argc, char **argv) {
  const char *workload = "basic", *json = NULL, *fault = "loss", *spec = NULL;
  long at = 0, stride = 1;
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
    else if (!strcmp(a, "--at") && has) at = atol(argv[++i]);
    else if (!strcmp(a, "--stride") && has) stride = atol(argv[++i]);
    else {
      fprintf(stderr, "unlost chaos: unknown or incomplete option '%s'\n", a);
      chaos_usage(stderr);
      return 2;
    }
  }
  workload_fn fn = workload_find(workload);
  if (!fn) {
    fprintf(stderr, "unlost chaos: unknown workload '%s' (known: basic)\n", workload);
    return 2;
  }
  const char *fmt = !strcmp(fault, "loss")         ? "loss@%ld"
                    : !strcmp(fault, "oom")        ? "oom@%ld"
                    : !strcmp(fault, "validation") ? "validation@%ld"
                    : !strcmp(fault, "request")    ? "loss@%ld,device-fail=1"
                                                   : NULL;
  if (!fmt || stride < 1 || at < 0) {
    fprintf(stderr, "unlost chaos: bad --fault, --stride or --at\n");
    return 2;
  }
  bool tty = isatty(1);
  ul_env *env = NULL;
  if (ul_env_create(&(ul_env_desc){.chaos = "seed=1"}, &env)) {
    fprintf(stderr, "unlost chaos: %s: %s\n", ul_status_name(ul_last_status()), ul_last_error());
    return 1;
  }
  run_result clean;
  run_once(env, fn, "seed=1", &clean);
  if (clean.status) {
    fprintf(stderr, "unlost chaos: the clean run failed: %s\n", clean.error);
    ul_env_destroy(env);
    return 1;
  }
  printf("clean run: %llu WebGPU calls, %zu output bytes, hash %016llx, %.1f ms\n",
         (unsigned long long)clean.calls, clean.out.output_size, (unsigned long long)clean.out.hash,
         clean.ms);
  long first = at ? at : 1, last = at ? at : (long)clean.calls;
  long tested = 0, passed = 0;
  uint64_t leaked = 0, recoveries = 0;
  double max_ms = 0, total_ms = 0;
  char failures[4096] = "";
  size_t flen = 0;
  run_result r;
  if (spec) {
    first = last = 1;
  }
  for (long i = first; i <= last; i += stride) {
    char sp[128];
    if (spec) snprintf(sp, sizeof sp, "%s", spec);
    else snprintf(sp, sizeof sp, fmt, i);
    run_once(env, fn, sp, &r);
    tested++;
    bool ok = !r.status && r.out.output_size == clean.out.output_size &&
              !memcmp(r.out.output, clean.out.output, clean.out.output_size) && !r.leaked_objects;
    if (ok) passed++;
    else if (flen < sizeof failures - 200) {
      size_t at_byte = 0;
      while (at_byte < clean.out.output_size && r.out.output[at_byte] == clean.out.output[at_byte]) at_byte++;
      char why[64];
      snprintf(why, sizeof why, "output differs from byte %zu", at_byte);
      flen += (size_t)snprintf(failures + flen, sizeof failures - flen, "  %s: %s\n", sp,
                               r.status ? r.error : r.leaked_objects ? "leaked objects" : why);
    }
    leaked += r.leaked_objects;
    recoveries += r.recoveries;
    total_ms += r.ms;
    if (r.ms > max_ms) max_ms = r.ms;
    if (tty) {
      printf("\r%ld/%ld points, %ld passed", tested, (last - first) / stride + 1, passed);
      fflush(stdout);
    }
  }
  if (tty) printf("\n");
  printf("fault %s at %s: %ld points tested, %ld passed, %llu recoveries, %llu leaked objects, "
         "max %.1f ms per point\n",
         fault, spec ? spec : at ? "one call" : "every call", tested, passed, (unsigned long long)recoveries,
         (unsigned long long)leaked, max_ms);
  if (flen) printf("failures:\n%s", failures);
  ul_env_destroy(env);
  if (json) {
    FILE *f = fopen(json, "w");
    if (!f) {
      perror(json);
      return 1;
    }
    fprintf(f,
            "{\"workload\":\"%s\",\"fault\":\"%s\",\"calls\":%llu,\"stride\":%ld,\"points_tested\":%ld,"
            "\"points_passed\":%ld,\"leaked_objects\":%llu,\"recoveries\":%llu,\"max_point_ms\":%.1f,"
            "\"mean_point_ms\":%.1f,\"clean_ms\":%.1f,\"output_hash\":\"%016llx\"}\n",
            workload, fault, (unsigned long long)clean.calls, stride, tested, passed,
            (unsigned long long)leaked, (unsigned long long)recoveries, max_ms,
            tested ? total_ms / (double)tested : 0, clean.ms, (unsigned long long)clean.out.hash);
    fclose(f);
  }
  return passed == tested ? 0 : 1;
}
