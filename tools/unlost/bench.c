/* unlost bench: measurements with JSON output, each against raw webgpu.h in
 * the same run. */
#include "cli.h"
#include "bench_internal.h"

#include <errno.h>
#include <unistd.h>

static void bench_usage(FILE *f) {
  fprintf(f,
          "usage: unlost bench <name> [--json] [--verbose] [options]\n"
          "\n"
          "  track      cost of tracking: a buffer create+destroy pair through raw\n"
          "             webgpu.h, through unlost, and through unlost with backtraces\n"
          "             [--pairs N (default 2000)]\n"
          "  recovery   loss to first dispatch after restoring N bytes of weights\n"
          "             (a SOURCE buffer mapped from a file), against the same\n"
          "             rebuild through raw webgpu.h with a queue write; restore\n"
          "             and queue-write bandwidth [--bytes N[K|M|G] (default 256M)]\n"
          "             [--reps R (1..16, default 5)]\n"
          "  overhead   a frame of N small dispatches, each with a bind group change,\n"
          "             through raw webgpu.h and through unlost, interleaved\n"
          "             [--dispatches N (default 10000)] [--reps R (3..64, default 15)]\n"
          "             and the demo's decode step, raw and through unlost\n"
          "  decode     tokens/s of the decode step and where its time goes\n"
          "             [--shape default|stories15M] [--steps N (default 128)]\n"
          "  webgpu     a program written on webgpu.h through Dawn and through\n"
          "             libunlost-webgpu, interleaved: frames of dispatches, and\n"
          "             ggml's pattern (a new bind group and a uniform write per\n"
          "             dispatch) with the log's memory and checkpoints, and a 4 KiB\n"
          "             WriteBuffer from the heap with 20,000 live objects; and a real\n"
          "             workload, the demo model's greedy decode on webgpu.h (the chaos\n"
          "             workload webgpu-decode): tokens/s both ways, their ratio, and\n"
          "             the tokens, which must be the CPU reference's both ways\n"
          "             [--dispatches N (default 10000)] [--ggml N (default 2000)]\n"
          "             [--uploads N (default 1024)] [--objects N (default 20000)]\n"
          "             [--decode-tokens N (1..256, default 64)] [--decode-only]\n"
          "             [--reps R (3..64, default 11)] (runs unlost-bench-webgpu)\n"
          "\n"
          "Every figure is a median of several repetitions measured in this run.\n"
          "unlost's warnings about the losses `recovery` injects are counted, not\n"
          "shown (--verbose shows them); any other line of its log is shown.\n"
          "Exit status: 0 success, 1 failure, 2 usage error.\n");
}

/* The library's log during a benchmark: its warnings about the losses
 * `recovery` injects itself (ul_device_force_loss "bench...") are counted,
 * or shown with --verbose; any other line is shown as the library would. */
static struct {
  bool verbose;
  unsigned expected;
} g_log;

static bool ends_with(const char *s, const char *end) {
  size_t n = strlen(s), m = strlen(end);
  return n >= m && !strcmp(s + n - m, end);
}

static void bench_log(const ul_log_line *l, void *user) {
  static const char *names[] = {"error", "warn", "info", "debug"};
  (void)user;
  if (l->level == UL_LOG_WARN && l->device && !strcmp(l->device, "bench-recovery") && strstr(l->message, "' lost ") &&
      (ends_with(l->message, ": bench") || ends_with(l->message, ": bench first use"))) {
    g_log.expected++;
    if (!g_log.verbose) return;
  }
  fprintf(stderr, "unlost %s: %s\n", (unsigned)l->level < 4 ? names[l->level] : "log", l->message);
}

/* The front door's benchmark is a program of its own (it is linked to
 * libunlost-webgpu): unlost-bench-webgpu beside this executable (a build
 * tree), else in the installation's libexec/unlost. */
#ifndef UL_INSTALL_LIBEXECDIR
#define UL_INSTALL_LIBEXECDIR "libexec"
#endif
static int bench_webgpu_exec(int argc, char **argv) {
  char self[4096], path[4200];
  if (!cli_self_dir(self, sizeof self)) {
    fprintf(stderr, "unlost bench webgpu: cannot find this executable's folder\n");
    return 1;
  }
  snprintf(path, sizeof path, "%s/unlost-bench-webgpu", self);
  if (access(path, X_OK) != 0)
    snprintf(path, sizeof path, "%s/../" UL_INSTALL_LIBEXECDIR "/unlost/unlost-bench-webgpu", self);
  char **args = calloc((size_t)argc + 1, sizeof *args);
  if (!args) return 1;
  int k = 0;
  args[k++] = path;
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "webgpu")) args[k++] = argv[i];
  execv(path, args);
  fprintf(stderr, "unlost bench webgpu: cannot run %s: %s (build it: cmake --build build --target "
                  "unlost_bench_webgpu)\n", path, strerror(errno));
  free(args);
  return 1;
}

int cmd_bench(int argc, char **argv) {
  bool json = false;
  const char *name = NULL;
  int rest = argc;
  /* --verbose is the command's: taken out of what the benchmark parses. */
  int k = 1;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--verbose")) g_log.verbose = true;
    else argv[k++] = argv[i];
  }
  argc = k;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--json")) json = true;
    else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
      bench_usage(stdout);
      return 0;
    } else if (!name && argv[i][0] != '-') {
      name = argv[i];
      rest = i + 1;
    }
  }
  if (!name) {
    bench_usage(stderr);
    return 2;
  }
  if (!strcmp(name, "track")) return bench_track(argc - rest, argv + rest, json);
  if (!strcmp(name, "recovery")) {
    ul_set_log_callback(bench_log, NULL);
    int rc = bench_recovery(argc - rest, argv + rest, json);
    ul_set_log_callback(NULL, NULL);
    if (!json && g_log.expected)
      printf("unlost's log       %u warning%s about the injected losses (--verbose shows them)\n", g_log.expected,
             g_log.expected == 1 ? "" : "s");
    return rc;
  }
  if (!strcmp(name, "overhead")) return bench_overhead(argc - rest, argv + rest, json);
  if (!strcmp(name, "decode")) return bench_decode_cmd(argc - rest, argv + rest, json);
  if (!strcmp(name, "webgpu")) return bench_webgpu_exec(argc, argv);
  fprintf(stderr, "unlost bench: unknown benchmark '%s'\n", name);
  bench_usage(stderr);
  return 2;
}
