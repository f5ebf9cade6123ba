/* For the test programs that use unlost's additions to webgpu.h
 * (include/unlost_webgpu.h) and so run only through libunlost-webgpu. */
#ifndef UL_TESTS_WGPU_LAYER_H
#define UL_TESTS_WGPU_LAYER_H

#include "wgpu_prog.h" /* first: the webgpu.h declarations unlost_webgpu.h uses */
#include "unlost_webgpu.h"

/* Opens the device (c->device_chain as set) and runs the workload; a device
 * that is not the layer's is a skip (WP_SKIP), not a pass. */
static inline int wp_layer_main(wp_ctx *c, bool (*run)(wp_ctx *c)) {
  int rc = wp_open_device(c, NULL, 0, NULL);
  if (rc) return wp_end(c, rc);
  if (!ul_wgpu_device(c->device)) {
    printf("skipped: not running on libunlost-webgpu\n");
    return wp_end(c, WP_SKIP);
  }
  return wp_main(c, run);
}

#endif
