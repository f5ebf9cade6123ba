/* unlost bench: measurements with JSON output, each against raw webgpu.h in
 * the same run. */
#include "cli.h"
#include "bench_internal.h"

#include <errno.h>
#include <unistd.h>

static void bench_usage(FILE *f) {
  fprintf(f,
          "usage: unlost bench <name> [--json [FILE]] [--verbose] [options]\n"
          "\n"
          "  track      cost of tracking: a buffer create+destroy pair through raw\n"
          "             webgpu.h, through unlost, and through unlost with backtraces\n"
          "             [--buffers N: buffers made and destroyed (default 2000)]\n"
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
 * `recovery` injects itself (ul_device_force_loss "bench...") and about
 * the churn `track` makes on purpose (a buffer made and destroyed in a
 * loop, labelled "bench") are counted, or shown with --verbose; any other
 * line is shown as the library would. */
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
  bool churn = !strncmp(l->message, "churn: ", 7) && strstr(l->message, " (bench); ");
  if (l->level == UL_LOG_WARN &&
      (churn || (l->device && !strcmp(l->device, "bench-recovery") && strstr(l->message, "' lost ") &&
                 (ends_with(l->message, ": bench") || ends_with(l->message, ": bench first use"))))) {
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
static int bench_webgpu_exec(int argc, char **argv, bool json) {
  char self[4096], path[4200];
  if (!cli_self_dir(self, sizeof self)) {
    fprintf(stderr, "unlost bench webgpu: cannot find this executable's folder\n");
    return 1;
  }
  snprintf(path, sizeof path, "%s/unlost-bench-webgpu", self);
  if (access(path, X_OK) != 0)
    snprintf(path, sizeof path, "%s/../" UL_INSTALL_LIBEXECDIR "/unlost/unlost-bench-webgpu", self);
  char **args = calloc((size_t)argc + 2, sizeof *args);
  if (!args) return 1;
  int k = 0;
  args[k++] = path;
  if (json) args[k++] = "--json"; /* stdout is already the file */
  for (int i = 1; i < argc; i++) args[k++] = argv[i];
  fflush(stdout);
  execv(path, args);
  fprintf(stderr, "unlost bench webgpu: cannot run %s: %s (build it: cmake --build build --target "
                  "unlost_bench_webgpu)\n", path, strerror(errno));
  free(args);
  return 1;
}

void bench_sub_usage(FILE *f) { bench_usage(f); }

int cmd_bench(int argc, char **argv) {
  static const char *const names[] = {"track", "recovery", "overhead", "decode", "webgpu"};
  const char *json_path = NULL;
  /* --verbose and --json [FILE] are the command's, before or after the
   * benchmark's name: taken out of what the benchmark parses (a word after
   * --json is its FILE unless it is an option or a benchmark's name). */
  int k = 1;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--verbose")) {
      g_log.verbose = true;
    } else if (!strncmp(argv[i], "--json=", 7)) {
      json_path = argv[i] + 7;
    } else if (!strcmp(argv[i], "--json")) {
      json_path = "-";
      bool named = false;
      for (size_t j = 0; i + 1 < argc && j < sizeof names / sizeof *names; j++) named |= !strcmp(argv[i + 1], names[j]);
      if (i + 1 < argc && argv[i + 1][0] != '-' && !named) json_path = argv[++i];
    } else {
      argv[k++] = argv[i];
    }
  }
  argc = k;
  int first;
  const cli_opt none[] = {{0}};
  int prc = cli_parse("bench", argc, argv, none, CLI_IN_ORDER, bench_usage, &first);
  if (prc) return prc == 1 ? 0 : 2;
  if (first >= argc) {
    bench_usage(stderr);
    return 2;
  }
  const char *name = argv[first];
  bool json = json_path != NULL;
  if (json && !cli_json_available("unlost bench")) return 2;
  /* The benchmark writes its JSON to stdout: to FILE, stdout is FILE. */
  if (json && strcmp(json_path, "-") && !freopen(json_path, "w", stdout)) {
    fprintf(stderr, "unlost bench: cannot write %s: %s\n", json_path, strerror(errno));
    return 1;
  }
  /* Each benchmark parses its own options, its name as argv[0]. */
  argc -= first;
  argv += first;
  if (!strcmp(name, "track")) {
    ul_set_log_callback(bench_log, NULL);
    int rc = bench_track(argc, argv, json);
    ul_set_log_callback(NULL, NULL);
    if (!json && g_log.expected)
      printf("unlost's log       %u warning%s about the churn the benchmark makes on purpose (--verbose shows "
             "them)\n", g_log.expected, g_log.expected == 1 ? "" : "s");
    return rc;
  }
  if (!strcmp(name, "recovery")) {
    ul_set_log_callback(bench_log, NULL);
    int rc = bench_recovery(argc, argv, json);
    ul_set_log_callback(NULL, NULL);
    if (!json && g_log.expected)
      printf("unlost's log       %u warning%s about the injected losses (--verbose shows them)\n", g_log.expected,
             g_log.expected == 1 ? "" : "s");
    return rc;
  }
  if (!strcmp(name, "overhead")) return bench_overhead(argc, argv, json);
  if (!strcmp(name, "decode")) return bench_decode_cmd(argc, argv, json);
  if (!strcmp(name, "webgpu")) return bench_webgpu_exec(argc, argv, json);
  fprintf(stderr, "unlost bench: unknown benchmark '%s'\n", name);
  bench_usage(stderr);
  return 2;
}
