/* unlost: the command-line tool. */
#include "cli.h"

#if defined(__SANITIZE_ADDRESS__)
#include <dlfcn.h>
/* Under LeakSanitizer (make sanitize): the CPU Vulkan driver's own leak
 * (see tests/webgpu/wgpu_prog.h) would end every demo with a report from an
 * "<unknown module>"; kept resident, it stays reachable. */
__attribute__((constructor)) static void pin_cpu_driver(void) {
  dlopen("libvulkan_lvp.so", RTLD_NOW | RTLD_NODELETE | RTLD_LOCAL);
}
#endif

/* The programs of tests/webgpu as chaos workloads (chaos_webgpu.c). */
int cmd_chaos_webgpu(int argc, char **argv);

/* `chaos --workload webgpu-NAME`: a program run as a child through the
 * webgpu.h front door, not a built-in workload. */
static bool chaos_webgpu_workload(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    if (!strncmp(argv[i], "--workload=webgpu-", 18)) return true;
    if (i + 1 < argc && !strcmp(argv[i], "--workload") && !strncmp(argv[i + 1], "webgpu-", 7)) return true;
  }
  return false;
}

static const cli_command commands[] = {
    {"doctor", "check the WebGPU implementation, adapter and loss injection", cmd_doctor},
    {"demo", "generate text on the GPU through injected device losses", cmd_demo},
    {"run", "run a llama2.c model (e.g. stories15M) on the GPU", cmd_run},
    {"chaos", "inject a fault at every WebGPU call of a workload and compare", cmd_chaos},
    {"bench", "benchmarks against raw webgpu.h, with JSON output", cmd_bench},
    {"serve", "run a workload and serve its page, /metrics, /healthz, /readyz over HTTP", cmd_serve},
    {"report", "summarize a JSON report; --html writes its timeline page", cmd_report},
    {"exec", "run a webgpu.h program through libunlost-webgpu and say what happened", cmd_exec},
};

static void usage(FILE *f) {
  fprintf(f,
          "usage: unlost [--version] [--help] <command> [options]\n"
          "\n"
          "Make WebGPU compute programs survive GPU device loss.\n"
          "\n"
          "commands:\n");
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
  fprintf(f,
          "\n"
          "Run 'unlost <command> --help' for a command's options.\n"
          "Exit status: 0 success, 1 failure, 2 usage error.\n");
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
    usage(stdout);
    return 0;
  }
  if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
    printf("unlost %s\n", ul_version());
    return 0;
  }
  if (!strcmp(cmd, "chaos") && chaos_webgpu_workload(argc - 1, argv + 1)) return cmd_chaos_webgpu(argc - 1, argv + 1);
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (!strcmp(cmd, commands[i].name)) return commands[i].run(argc - 1, argv + 1);
  fprintf(stderr, "unlost: unknown command '%s'\n\n", cmd);
  usage(stderr);
  return 2;
}
