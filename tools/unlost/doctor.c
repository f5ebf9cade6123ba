/* unlost doctor: what implementation, which adapter, and is it usable. */
#include "cli.h"

static void doctor_usage(FILE *f) {
  fprintf(f,
          "usage: unlost doctor [--json [FILE]] [--lib PATH]\n"
          "\n"
          "Loads the webgpu.h implementation, requests an adapter and a device, runs\n"
          "a small compute check, and says whether this machine can run unlost.\n"
          "\n"
          "  --json [FILE]  one JSON object instead of the text, to FILE (default stdout)\n"
          "  --lib PATH     the implementation to load (default: $UNLOST_WEBGPU_LIB,\n"
          "                 then the pinned Dawn)\n"
          "  -h, --help     this help\n"
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
  const char *json_path = NULL, *lib = NULL;
  const cli_opt opts[] = {CLI_O("json", CLI_JSON, &json_path), CLI_O("lib", CLI_TEXT, &lib), {0}};
  int prc = cli_parse("doctor", argc, argv, opts, CLI_NO_OPERANDS, doctor_usage, NULL);
  if (prc) return prc == 1 ? 0 : 2;
  bool json = json_path != NULL;
  if (json && !cli_json_available("unlost doctor")) return 2;
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
#ifdef UL_HAVE_JANSSON
    json_t *doc = json_object(), *adapter = json_null();
    bool good = doc != NULL;
    const char *impl = ei.implementation ? ei.implementation : lib;
    good &= cli_json_set(doc, "ok", json_boolean(ok));
    good &= cli_json_set(doc, "version", json_string(ul_version()));
    good &= cli_json_set(doc, "implementation", impl ? json_string(impl) : json_null());
    good &= cli_json_set(doc, "force_loss", json_boolean(ei.force_loss));
    good &= cli_json_set(doc, "inject_error", json_boolean(ei.inject_error));
    good &= cli_json_set(doc, "timed_wait", json_boolean(ei.timed_wait));
    good &= cli_json_set(doc, "compute_check", json_boolean(computed));
    if (dev) {
      adapter = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:i,s:i}", "name", ai.name, "vendor", ai.vendor, "architecture",
                          ai.architecture, "driver", ai.driver, "backend", ul_backend_name(ai.backend), "type",
                          ul_adapter_type_name(ai.type), "vendor_id", (json_int_t)ai.vendor_id, "device_id",
                          (json_int_t)ai.device_id);
      good &= cli_json_set(doc, "adapter", adapter);
      good &= cli_json_set(doc, "limits",
                           json_pack("{s:I,s:I,s:I,s:I}", "max_buffer_size", (json_int_t)lim.max_buffer_size,
                                     "max_storage_buffer_binding_size",
                                     (json_int_t)lim.max_storage_buffer_binding_size,
                                     "max_compute_workgroup_storage_size",
                                     (json_int_t)lim.max_compute_workgroup_storage_size,
                                     "max_compute_invocations_per_workgroup",
                                     (json_int_t)lim.max_compute_invocations_per_workgroup));
    } else {
      good &= cli_json_set(doc, "adapter", adapter);
    }
    if (!ok) {
      good &= cli_json_set(doc, "status", json_string(ul_status_name(s)));
      good &= cli_json_set(doc, "error", json_string(error));
    }
    good &= cli_json_set(doc, "verdict", json_string(verdict));
    if (!good) {
      json_decref(doc);
      doc = NULL;
    }
    if (!cli_json_write("unlost doctor", json_path, doc)) ok = false;
#endif
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
