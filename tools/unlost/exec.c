/* unlost exec: runs a program through libunlost-webgpu, as apitrace and
 * compute-sanitizer run theirs (issue 39): the layer preloaded, the
 * implementation and the options set, the program's exit status passed on,
 * and at the end what happened (losses injected, recoveries, time spent
 * recovering, devices unlost gave up on). A run in which the layer never
 * loaded, or loaded but never saw an instance (a static program, one that
 * opens its implementation with dlopen by path), says so and fails: it
 * cannot pass for a run without losses. */
#include "cli.h"

#include <errno.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef UL_INSTALL_LIBDIR
#define UL_INSTALL_LIBDIR "lib"
#endif

static void usage(FILE *f) {
  fprintf(f,
          "usage: unlost exec [--chaos SPEC] [--report FILE] [--] PROGRAM [ARGS...]\n"
          "\n"
          "Runs PROGRAM, a program written on webgpu.h, through libunlost-webgpu\n"
          "(preloaded: no rebuild), exits with its status, and prints on stderr what\n"
          "happened: WebGPU calls, losses injected, recoveries, time spent recovering,\n"
          "devices unlost gave up on.\n"
          "\n"
          "  --chaos SPEC    a fault schedule (UNLOST_CHAOS; the grammar: unlost(1),\n"
          "                  e.g. 'loss-every=40' or 'loss@120,loss@300')\n"
          "  --report FILE   also keep the layer's report line(s) in FILE\n"
          "  -h, --help      this help\n"
          "\n"
          "The layer is the libunlost-webgpu.so beside this executable, or in the\n"
          "library folder of its installation (UNLOST_EXEC_LAYER names another).\n"
          "Exit status: PROGRAM's (128 + N when a signal N ended it); when that is 0,\n"
          "1 if the layer did not load into PROGRAM or saw no instance of it; 2 on a\n"
          "usage error.\n");
}

/* The layer: UNLOST_EXEC_LAYER, else beside this executable (a build
 * tree), else in the installation's library folder. */
static bool find_layer(char *out, size_t cap) {
  const char *env = getenv("UNLOST_EXEC_LAYER");
  if (env && *env) {
    snprintf(out, cap, "%s", env);
    return access(out, R_OK) == 0;
  }
  char self[4096];
  if (!cli_self_dir(self, sizeof self)) return false;
  const char *tries[] = {"%s/libunlost-webgpu.so", "%s/../" UL_INSTALL_LIBDIR "/libunlost-webgpu.so"};
  for (size_t i = 0; i < sizeof tries / sizeof tries[0]; i++) {
    snprintf(out, cap, tries[i], self);
    if (access(out, R_OK) == 0) return true;
  }
  return false;
}

static bool set_env(const char *name, const char *value) {
  if (setenv(name, value, 1) == 0) return true;
  fprintf(stderr, "unlost exec: cannot set %s: %s\n", name, strerror(errno));
  return false;
}

int cmd_exec(int argc, char **argv) {
  const char *chaos = NULL, *keep = NULL;
  const cli_opt opts[] = {CLI_O("chaos", CLI_TEXT, &chaos), CLI_O("report", CLI_TEXT, &keep), {0}};
  int i;
  /* In order: the program's own options follow it, untouched ("--" ends
   * unlost's, as getopt's convention). */
  int prc = cli_parse("exec", argc, argv, opts, CLI_IN_ORDER, usage, &i);
  if (prc) return prc == 1 ? 0 : 2;
  if (i >= argc) {
    usage(stderr);
    return 2;
  }
  char layer[4300];
  if (!find_layer(layer, sizeof layer)) {
    fprintf(stderr, "unlost exec: libunlost-webgpu not found (%s); build it (make) or set UNLOST_EXEC_LAYER\n",
            getenv("UNLOST_EXEC_LAYER") ? getenv("UNLOST_EXEC_LAYER") : "looked beside this executable and in its "
                                                                        "installation's library folder");
    return 1;
  }
  /* The mark, and the report unless it is to be kept, in a folder of our
   * own; a kept report is emptied first (the layer appends to it). */
  const char *tmp = getenv("TMPDIR");
  char dir[4200], report[4300], mark[4300], preload[8800];
  snprintf(dir, sizeof dir, "%s/unlost-exec-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) {
    fprintf(stderr, "unlost exec: cannot make a folder in %s: %s\n", tmp && *tmp ? tmp : "/tmp", strerror(errno));
    return 1;
  }
  snprintf(report, sizeof report, "%s/report", dir);
  snprintf(mark, sizeof mark, "%s/loaded", dir);
  if (keep) {
    FILE *f = fopen(keep, "w");
    if (!f) {
      fprintf(stderr, "unlost exec: cannot write %s: %s\n", keep, strerror(errno));
      rmdir(dir);
      return 1;
    }
    fclose(f);
    snprintf(report, sizeof report, "%s", keep);
  }
  /* After what is preloaded already (a sanitizer's runtime must stay
   * first); still before the implementation, which the program links. */
  const char *old = getenv("LD_PRELOAD");
  snprintf(preload, sizeof preload, "%s%s%s", old && *old ? old : "", old && *old ? ":" : "", layer);
  if (!set_env("LD_PRELOAD", preload) || !set_env("UNLOST_CHAOS_REPORT", report) ||
      !set_env("UNLOST_EXEC_MARK", mark) || (chaos && !set_env("UNLOST_CHAOS", chaos)))
    return 1;
  pid_t pid = fork();
  if (pid < 0) {
    fprintf(stderr, "unlost exec: fork: %s\n", strerror(errno));
    return 1;
  }
  if (pid == 0) {
    execvp(argv[i], argv + i);
    fprintf(stderr, "unlost exec: cannot run %s: %s\n", argv[i], strerror(errno));
    _exit(127);
  }
  /* Ctrl-C reaches the program (same process group); this process waits
   * for it and reports. */
  signal(SIGINT, SIG_IGN);
  signal(SIGTERM, SIG_IGN);
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  int rc = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1;
  struct stat sb;
  bool loaded = stat(mark, &sb) == 0 && sb.st_size > 0;
  layer_report s;
  layer_report_read(report, &s);
  if (!keep) unlink(report);
  unlink(mark);
  rmdir(dir);
  const char *prog = argv[i];
  if (!loaded) {
    fprintf(stderr, "unlost exec: the layer (%s) did not load into %s: it ran without unlost (a static or "
                    "setuid program, or the loader refused the library); exit status %d\n", layer, prog, rc);
    return rc ? rc : 1;
  }
  if (!s.present) {
    fprintf(stderr, "unlost exec: the layer loaded into %s but saw no WebGPU instance of it (%s): its calls, if "
                    "any, did not go through unlost (does it open its implementation with dlopen by path? see "
                    "docs/webgpu.md); exit status %d\n", prog, rc == 0 ? "the program ended normally" :
                    "the program failed before it released one, or died", rc);
    return rc ? rc : 1;
  }
  char faults[128] = "no fault schedule";
  if (chaos)
    snprintf(faults, sizeof faults, "%llu fault(s) injected in %llu WebGPU calls", (unsigned long long)s.injected,
             (unsigned long long)s.calls);
  fprintf(stderr, "unlost exec: %s exited with status %d; through libunlost-webgpu: %s, %llu recoveries (%.1f ms "
                  "recovering), %llu device(s) given up on%s\n",
          prog, rc, faults, (unsigned long long)s.recoveries, s.recovery_ms, (unsigned long long)s.failed,
          s.leaked ? ", devices left unreleased" : "");
  return rc;
}
