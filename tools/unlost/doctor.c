/* unlost doctor: what implementation, which adapter, and is it usable. */
#include "cli.h"

static void doctor_usage(FILE *f) {
  fprintf(f,
          "usage: unlost doctor [--json] [--lib PATH]\n"
          "\n"
          "Loads the webgpu.h implementation, requests an adapter and a device, runs\n"
          "a small compute check, and says whether this machine can run unlost.\n"
          "\n"
          "  --json       print one JSON object instead of text\n"
          "  --lib PATH   the implementation to load (default: $UNLOST_WEBGPU_LIB,\n"
          "               then the pinned Dawn)\n"
          "  -h, --help   this help\n"
          "\n"
          "Exit status: 0 when a usable (non-Null) adapter exists, 1 otherwise,\n"
          "2 on a usage error.\n");
}

/* A dispatch whose result is checked: an adapter that hands back zeros
 * (Dawn's Null backend does) fails it. */
static ul_status compute_check(ul_device *dev) {
  static const char *wgsl =
      "@group(0) @binding(0) var<storage, read_write> v: array<u32>;\n"
      "@compute @workgroup_size(64)\n"
      "fn main(@builtin(global_invocation_id) id: vec3u) { v[id.x] = v[id.x] * 3u + 1u; }\n";
  uint32_t in[64], out[64] = {0};
  for (uint32_t i = 0; i < 64; i++) in[i] = i + 7;
  ul_buffer b = {0};
  ul_shader sh = {0};
  ul_compute_pipeline p = {0};
  ul_bind_group bg = {0};
  ul_cmd *cmd = NULL;
  ul_status s = ul_buffer_create(dev, &(ul_buffer_desc){.label = "doctor", .size = sizeof in,
                                                         .restore = UL_RESTORE_NONE, .initial_data = in}, &b);
  if (!s) s = ul_shader_create(dev, &(ul_shader_desc){.label = "doctor", .wgsl = wgsl}, &sh);
  if (!s) s = ul_compute_pipeline_create(dev, &(ul_compute_pipeline_desc){.shader = sh}, &p);
  if (!s) s = ul_bind_group_create(dev, &(ul_bind_group_desc){.pipeline = p, .entry_count = 1,
      .entries = {{.binding = 0, .buffer = b}}}, &bg);
  if (!s) s = ul_cmd_create(dev, "doctor", &cmd);
  if (!s) s = ul_cmd_dispatch(cmd, p, &bg, 1, 1, 1, 1);
  if (!s) s = ul_cmd_submit(dev, cmd, NULL);
  if (!s) s = ul_buffer_read(dev, b, 0, out, sizeof out, 10000);
  for (uint32_t i = 0; !s && i < 64; i++)
    if (out[i] != in[i] * 3 + 1) s = UL_ERR_INTERNAL;
  ul_cmd_destroy(cmd);
  ul_bind_group_destroy(dev, bg);
  ul_compute_pipeline_destroy(dev, p);
  ul_shader_destroy(dev, sh);
  ul_buffer_destroy(dev, b);
  return s;
}

int cmd_doctor(int argc, char **argv) {
  bool json = false;
  const char *lib = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--json")) json = true;
    else if (!strcmp(argv[i], "--lib") && i + 1 < argc) lib = argv[++i];
    else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
      doctor_usage(stdout);
      return 0;
    } else {
      fprintf(stderr, "unlost doctor: unknown option '%s'\n", argv[i]);
      doctor_usage(stderr);
      return 2;
    }
  }
  ul_env *env = NULL;
  ul_device *dev = NULL;
  ul_env_info ei = {0};
  ul_adapter_info ai = {0};
  ul_limits lim = {0};
  char error[2048] = "";
  const char *verdict;
  ul_env_desc ed = {0};
  ed.webgpu_lib = lib;
  ul_status s = ul_env_create(&ed, &env);
  if (!s) s = ul_env_info_get(env, &ei);
  if (!s) {
    ul_device_desc dd = {0};
    dd.label = "doctor";
    dd.recovery.request_timeout_ms = 5000;
    s = ul_device_create(env, &dd, &dev);
  }
  if (!s) s = ul_device_adapter_info(dev, &ai);
  if (!s) s = ul_device_limits(dev, &lim);
  bool computed = false;
  if (!s) {
    s = compute_check(dev);
    computed = !s;
    if (s == UL_ERR_INTERNAL) ul_clear_error();
  }
  if (s) snprintf(error, sizeof error, "%s", ul_last_error()[0] ? ul_last_error() : "the compute check gave wrong results");
  bool ok = s == UL_OK;
  if (ok)
    verdict = ai.type == UL_ADAPTER_CPU
                  ? "usable: CPU adapter (correct but slow; tests and CI run here)"
                  : "usable: GPU adapter";
  else if (s == UL_ERR_NO_IMPLEMENTATION)
    verdict = "unusable: no webgpu.h implementation; run `make deps` or set UNLOST_WEBGPU_LIB";
  else if (dev && !computed)
    verdict = "unusable: the adapter runs work but gives wrong results (a Null backend?)";
  else if (s == UL_ERR_NO_ADAPTER)
    verdict = "unusable: no adapter; install a Vulkan driver (Debian 12: mesa-vulkan-drivers "
              "from bookworm-backports, as `make deps` does)";
  else
    verdict = "unusable";

  if (json) {
    printf("{\"ok\":%s,\"version\":", ok ? "true" : "false");
    cli_json_string(stdout, ul_version());
    printf(",\"implementation\":");
    cli_json_string(stdout, ei.implementation ? ei.implementation : lib);
    printf(",\"force_loss\":%s,\"inject_error\":%s,\"timed_wait\":%s,\"compute_check\":%s",
           ei.force_loss ? "true" : "false", ei.inject_error ? "true" : "false",
           ei.timed_wait ? "true" : "false", computed ? "true" : "false");
    if (dev) {
      printf(",\"adapter\":{\"name\":");
      cli_json_string(stdout, ai.name);
      printf(",\"vendor\":");
      cli_json_string(stdout, ai.vendor);
      printf(",\"architecture\":");
      cli_json_string(stdout, ai.architecture);
      printf(",\"driver\":");
      cli_json_string(stdout, ai.driver);
      printf(",\"backend\":\"%s\",\"type\":\"%s\",\"vendor_id\":%u,\"device_id\":%u}",
             ul_backend_name(ai.backend), ul_adapter_type_name(ai.type), ai.vendor_id,
             ai.device_id);
      printf(",\"limits\":{\"max_buffer_size\":%llu,\"max_storage_buffer_binding_size\":%llu,"
             "\"max_compute_workgroup_storage_size\":%llu,"
             "\"max_compute_invocations_per_workgroup\":%llu}",
             (unsigned long long)lim.max_buffer_size,
             (unsigned long long)lim.max_storage_buffer_binding_size,
             (unsigned long long)lim.max_compute_workgroup_storage_size,
             (unsigned long long)lim.max_compute_invocations_per_workgroup);
    } else {
      printf(",\"adapter\":null");
    }
    if (!ok) {
      printf(",\"status\":\"%s\",\"error\":", ul_status_name(s));
      cli_json_string(stdout, error);
    }
    printf(",\"verdict\":");
    cli_json_string(stdout, verdict);
    printf("}\n");
  } else {
    printf("unlost %s\n", ul_version());
    const char *tried = lib ? lib : getenv("UNLOST_WEBGPU_LIB");
    printf("implementation  %s\n", ei.implementation ? ei.implementation : (tried ? tried : "(not found)"));
    if (dev) {
      printf("adapter         %s\n", ai.name);
      printf("vendor          %s (0x%04x)  device 0x%04x\n", ai.vendor[0] ? ai.vendor : "?",
             ai.vendor_id, ai.device_id);
      printf("backend         %s\n", ul_backend_name(ai.backend));
      printf("type            %s\n", ul_adapter_type_name(ai.type));
      printf("driver          %s\n", ai.driver);
      printf("max buffer      %llu MiB\n", (unsigned long long)(lim.max_buffer_size >> 20));
      printf("max storage     %llu MiB per binding\n",
             (unsigned long long)(lim.max_storage_buffer_binding_size >> 20));
    }
    if (ei.implementation) {
      printf("force loss      %s\n", ei.force_loss ? "available (wgpuDeviceForceLoss)" : "not available");
      printf("inject error    %s\n", ei.inject_error ? "available (wgpuDeviceInjectError)" : "not available");
    }
    if (dev) printf("compute check   %s\n", computed ? "passed (a dispatch gave the right numbers)" : "FAILED");
    if (!ok) printf("error           %s: %s\n", ul_status_name(s), error);
    printf("verdict         %s\n", verdict);
  }
  ul_device_destroy(dev);
  ul_env_destroy(env);
  return ok ? 0 : 1;
}
