/* leak: what the tracker shows. Leaks three labelled buffers and a texture,
 * and creates (and destroys) a uniform buffer every frame for a hundred
 * frames — the churn that a ring buffer replaces. Run it with
 * UNLOST_REPORT=r.json to get the final report as JSON. */
#include <stdio.h>
#include <unlost.h>

static ul_status frame(ul_device *dev, int i) {
  float uniforms[4] = {(float)i, 0, 0, 0};
  ul_buffer u;
  ul_status s = ul_buffer_create(dev, &(ul_buffer_desc){.label = "per-frame uniforms", .size = sizeof uniforms,
      .usage = UL_BUFFER_UNIFORM | UL_BUFFER_COPY_DST, .restore = UL_RESTORE_NONE}, &u);
  if (s) return s;
  s = ul_buffer_write(dev, u, 0, uniforms, sizeof uniforms);
  ul_buffer_destroy(dev, u);
  return s;
}

int main(void) {
  ul_env *env;
  ul_device *dev;
  if (ul_env_create(NULL, &env) || ul_device_create(env, &(ul_device_desc){.label = "leaky"}, &dev)) {
    fprintf(stderr, "%s\n", ul_last_error());
    return 1;
  }
  ul_buffer weights, scratch, output;
  ul_texture atlas;
  ul_buffer_create(dev, &(ul_buffer_desc){.label = "weights", .size = 1 << 20}, &weights);
  ul_buffer_create(dev, &(ul_buffer_desc){.label = "scratch", .size = 64 << 10}, &scratch);
  ul_buffer_create(dev, &(ul_buffer_desc){.label = "output", .size = 4096}, &output);
  ul_texture_create(dev, &(ul_texture_desc){.label = "atlas", .width = 256, .height = 256,
                                            .format = UL_FORMAT_RGBA8_UNORM}, &atlas);
  for (int i = 0; i < 100; i++)
    if (frame(dev, i)) fprintf(stderr, "frame %d: %s\n", i, ul_last_error());

  char *report = NULL;
  if (ul_device_report(dev, UL_REPORT_TEXT, &report) == UL_OK) printf("%s", report);
  ul_free(report);
  /* Destroying the device with live objects reports them and returns
   * UL_ERR_BUSY; $UNLOST_REPORT receives the JSON report. */
  ul_status s = ul_device_destroy(dev);
  printf("ul_device_destroy: %s\n", ul_status_name(s));
  ul_env_destroy(env);
  return s == UL_ERR_BUSY ? 0 : 1;
}
