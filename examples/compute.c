/* compute: the whole life of a compute job through unlost — create, write,
 * dispatch, read back, destroy — in about fifty lines. */
#include <stdio.h>
#include <unlost.h>

static const char *wgsl =
    "@group(0) @binding(0) var<storage, read_write> data: array<f32>;\n"
    "@compute @workgroup_size(64)\n"
    "fn main(@builtin(global_invocation_id) id: vec3u) {\n"
    "  if (id.x < arrayLength(&data)) { data[id.x] = data[id.x] * 2.0 + 1.0; }\n"
    "}\n";

#define CHECK(call) do { ul_status s_ = (call); if (s_) { \
  fprintf(stderr, "%s: %s\n", ul_status_name(s_), ul_last_error()); return 1; } } while (0)

int main(void) {
  enum { N = 1024 };
  float in[N], out[N];
  for (int i = 0; i < N; i++) in[i] = (float)i;

  ul_env *env;
  ul_device *dev;
  CHECK(ul_env_create(NULL, &env));
  CHECK(ul_device_create(env, &(ul_device_desc){.label = "example"}, &dev));

  ul_buffer buf;
  ul_shader sh;
  ul_compute_pipeline pipe;
  ul_bind_group bg;
  CHECK(ul_buffer_create(dev, &(ul_buffer_desc){.label = "data", .size = sizeof in}, &buf));
  CHECK(ul_buffer_write(dev, buf, 0, in, sizeof in));
  CHECK(ul_shader_create(dev, &(ul_shader_desc){.label = "double", .wgsl = wgsl}, &sh));
  CHECK(ul_compute_pipeline_create(dev, &(ul_compute_pipeline_desc){.shader = sh}, &pipe));
  CHECK(ul_bind_group_create(dev, &(ul_bind_group_desc){
      .pipeline = pipe, .entry_count = 1, .entries = {{.binding = 0, .buffer = buf}}}, &bg));

  ul_cmd *cmd;
  CHECK(ul_cmd_create(dev, "double", &cmd));
  CHECK(ul_cmd_dispatch(cmd, pipe, &bg, 1, N / 64, 1, 1));
  CHECK(ul_cmd_submit(dev, cmd, NULL));
  CHECK(ul_buffer_read(dev, buf, 0, out, sizeof out, 0));
  printf("out[0..3] = %g %g %g %g\n", out[0], out[1], out[2], out[3]);

  ul_cmd_destroy(cmd);
  ul_bind_group_destroy(dev, bg);
  ul_compute_pipeline_destroy(dev, pipe);
  ul_shader_destroy(dev, sh);
  ul_buffer_destroy(dev, buf);
  CHECK(ul_device_destroy(dev));
  CHECK(ul_env_destroy(env));
  return out[3] == 7.0f ? 0 : 1;
}
