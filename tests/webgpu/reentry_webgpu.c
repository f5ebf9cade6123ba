/* The front door's detector of re-entry (src/webgpu/guard.c): an entry of
 * the layer made while this thread is inside a call of the implementation
 * is counted. The detector can see one (an entry made with the thread
 * marked inside the implementation counts), and a whole program through the
 * layer makes none: the implementation never calls back into it. The
 * preloaded case (a program linked to the implementation itself, the
 * library preloaded) is reentry_preload.sh. */
#include "webgpu/wg.h"
#include "wgpu_prog.h"

static bool workload(wp_ctx *c) {
  uint32_t in[256], out[256];
  for (uint32_t i = 0; i < 256; i++) in[i] = i * 7u;
  WGPUBuffer b = wp_buffer_from(c, "b", WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc | WGPUBufferUsage_CopyDst,
                                in, sizeof in);
  bool ok = wp_read_buffer(c, b, 0, sizeof out, out) && wp_check_u32("round trip", out, in, 256);
  wgpuBufferRelease(b);
  return ok;
}

int main(int argc, char **argv) {
  wp_ctx c;
  int rc = wp_start(&c, "reentry", argc, argv);
  if (rc) return wp_end(&c, rc);
  if ((rc = wp_open_device(&c, NULL, 0, NULL))) return wp_end(&c, rc);
  rc = wp_main(&c, workload);
  if (ul_wgpu_reentries() != 0) {
    printf("FAIL: %llu entries of the layer from inside the implementation\n",
           (unsigned long long)ul_wgpu_reentries());
    return 1;
  }
  /* The detector itself: an entry with the thread inside the
   * implementation counts. */
  ul__wg_in_native++;
  (void)wgpuBufferGetSize(NULL);
  ul__wg_in_native--;
  if (ul_wgpu_reentries() != 1) {
    printf("FAIL: the detector did not count an entry from inside the implementation\n");
    return 1;
  }
  printf("the detector counts an entry from inside the implementation; the program made none\n");
  return rc;
}
