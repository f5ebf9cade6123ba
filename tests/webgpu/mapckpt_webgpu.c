/* A checkpoint while the program's map of a MAP_READ buffer is on its way
 * (`unlost chaos --workload webgpu-gen --gen-threads`: one thread's
 * readback map pending while another thread's uploads fill the small log).
 * With UNLOST_LOG_MAX_MB=1, a map started and not yet waited for, then
 * uploads of 512 KiB: the log must empty, so a checkpoint must read the
 * MAP_READ buffer. It used to fail ("has a map on its way"), the log stayed
 * full and the device was lost for good with no fault at all; now the
 * checkpoint waits for the map and reads the mapping. Then the map is
 * delivered with the copied bytes, the uploads read back right, and after
 * a forced loss the MAP_READ buffer comes back from that checkpoint's copy.
 * Every expected value is the program's own data. A watchdog fails a hang. */
#include "wgpu_prog.h"

#include <signal.h>
#include <unistd.h>

#define MC_WORDS 64u                /* the MAP_READ buffer */
#define MC_BIG (128u * 1024u)       /* u32 words: 512 KiB an upload */
#define MC_UPLOADS 3
#define MC_WATCHDOG_S 120

static void on_alarm(int sig) {
  (void)sig;
  static const char msg[] = "FAIL mapckpt: the watchdog fired: the program did not end\n";
  ssize_t r = write(1, msg, sizeof msg - 1);
  (void)r;
  _exit(1);
}

static bool workload(wp_ctx *c) {
  uint32_t small[MC_WORDS], got[MC_WORDS];
  for (uint32_t i = 0; i < MC_WORDS; i++) small[i] = 0x9e3779b9u * (i + 1);
  WGPUBuffer src = wp_buffer_from(c, "source", WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc, small, sizeof small);
  WGPUBuffer rb = wp_buffer(c, "mapped", WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst, sizeof small);
  WGPUBuffer big = wp_buffer(c, "big", WGPUBufferUsage_Storage | WGPUBufferUsage_CopyDst | WGPUBufferUsage_CopySrc,
                             (uint64_t)MC_BIG * 4);
  WGPUCommandEncoder enc = wp_encoder(c, "copy");
  wgpuCommandEncoderCopyBufferToBuffer(enc, src, 0, rb, 0, sizeof small);
  wp_submit(c, enc);
  /* The map starts here and is not waited for until the uploads are in. */
  wp_request *map = wp_request_new();
  WGPUBufferMapCallbackInfo cb = {
      .mode = WGPUCallbackMode_AllowProcessEvents, .callback = wp_on_map, .userdata1 = map};
  wgpuBufferMapAsync(rb, WGPUMapMode_Read, 0, sizeof small, cb);
  uint32_t *data = wp_alloc((size_t)MC_BIG * 4);
  for (uint32_t k = 0; k < MC_UPLOADS; k++) {
    for (uint32_t i = 0; i < MC_BIG; i++) data[i] = i * 2654435761u + k;
    wgpuQueueWriteBuffer(c->queue, big, 0, data, (size_t)MC_BIG * 4);
  }
  bool ok = wp_process_until(c, &map->done, "the map");
  if (ok && map->status != WGPUMapAsyncStatus_Success) {
    fprintf(stderr, "mapckpt: the map failed (status %u): %s\n", map->status, map->message);
    ok = false;
  }
  wp_request_free(map);
  if (ok) {
    const uint32_t *p = wgpuBufferGetConstMappedRange(rb, 0, sizeof small);
    ok = p && wp_check_u32("the map that was on its way", p, small, MC_WORDS);
    if (!p) fprintf(stderr, "mapckpt: wgpuBufferGetConstMappedRange returned NULL\n");
    wgpuBufferUnmap(rb);
  }
  uint32_t *back = wp_alloc((size_t)MC_BIG * 4);
  ok = ok && wp_read_buffer(c, big, 0, (uint64_t)MC_BIG * 4, back) &&
       wp_check_u32("the last upload", back, data, MC_BIG);
  /* A loss: the MAP_READ buffer comes back from the checkpoint's copy of
   * it (the log that wrote it is gone). */
  if (ok) wgpuDeviceForceLoss(c->device, WGPUDeviceLostReason_Unknown, WP_STR("mapckpt: a forced loss"));
  ok = ok && wp_map_read(c, rb, 0, sizeof small, got) && wp_check_u32("after the loss", got, small, MC_WORDS);
  ok = ok && wp_read_buffer(c, big, 0, (uint64_t)MC_BIG * 4, back) &&
       wp_check_u32("the last upload, after the loss", back, data, MC_BIG);
  free(back);
  free(data);
  wgpuBufferRelease(big);
  wgpuBufferRelease(rb);
  wgpuBufferRelease(src);
  return ok;
}

int main(int argc, char **argv) {
  signal(SIGALRM, on_alarm);
  alarm(MC_WATCHDOG_S);
  /* The smallest log: two uploads fill it. */
  setenv("UNLOST_LOG_MAX_MB", "1", 1);
  wp_ctx c;
  int rc = wp_start(&c, "mapckpt", argc, argv);
  if (!rc) rc = wp_open_device(&c, NULL, 0, NULL);
  if (rc) return wp_end(&c, rc);
  return wp_main(&c, workload);
}
