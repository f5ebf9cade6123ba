/* Programs built on another webgpu.h revision are refused, never misread
 * (issue 39). libunlost-webgpu is built for Dawn's header of June 2025; the
 * stable webgpu.h that programs are built on today lays out its instance
 * descriptor differently and numbers texture formats and features
 * differently. Linked to libunlost-webgpu; three modes, one process each:
 *   structs  instances with this revision's descriptors (timed waits on,
 *            all zero, NULL) are made; one laid out as the stable header
 *            lays it out (TimedWaitAny required) is refused with NULL and
 *            a message naming both revisions, and after it every new
 *            instance and an adapter request on an older one;
 *   calls    every entry point that only the stable header declares is
 *            defined by the layer (a call never reaches the implementation
 *            with one of the layer's objects), answers as refusing, and
 *            makes the next wgpuCreateInstance refuse;
 *   impl     (UNLOST_WEBGPU_LIB at an implementation that speaks the
 *            stable header) wgpuCreateInstance refuses it at load, naming
 *            both revisions.
 * The messages are read from the program's own stderr. */
#include "wgpu_prog.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failures;

#define CHECK(cond, ...)              \
  do {                                \
    if (!(cond)) {                    \
      printf("FAIL " __VA_ARGS__);    \
      printf("\n");                   \
      failures++;                     \
    }                                 \
  } while (0)

/* stderr into a file while `on`; its text since then when turned off. */
static int saved_fd = -1;
static char err_path[] = "/tmp/unlost_revision_XXXXXX";
static void capture_on(void) {
  fflush(stderr);
  int fd = mkstemp(err_path);
  saved_fd = dup(2);
  dup2(fd, 2);
  close(fd);
}
static char *capture_off(void) {
  fflush(stderr);
  dup2(saved_fd, 2);
  close(saved_fd);
  FILE *f = fopen(err_path, "rb");
  char *text = calloc(1, 65536);
  if (f && text) fread(text, 1, 65535, f);
  if (f) fclose(f);
  unlink(err_path);
  strcpy(err_path, "/tmp/unlost_revision_XXXXXX");
  fputs(text ? text : "", stderr); /* still shown */
  return text;
}

static bool names_both(const char *text) {
  return text && strstr(text, "stable webgpu.h") && strstr(text, "June 2025 (df73f16)");
}

/* The stable header's instance descriptor, by its layout. */
typedef struct stable_instance_descriptor {
  const void *nextInChain;
  size_t requiredFeatureCount;
  const uint32_t *requiredFeatures;
  const void *requiredLimits;
} stable_instance_descriptor;

static void structs(void) {
  WGPUInstanceDescriptor timed = {0};
  timed.capabilities.timedWaitAnyEnable = 1;
  timed.capabilities.timedWaitAnyMaxCount = 64;
  WGPUInstance a = wgpuCreateInstance(&timed);
  CHECK(a != NULL, "an instance with timed waits (this revision's descriptor) was refused");
  if (a) wgpuInstanceRelease(a);
  WGPUInstanceDescriptor zero = {0};
  WGPUInstance b = wgpuCreateInstance(&zero);
  CHECK(b != NULL, "an instance with an all-zero descriptor was refused");
  if (b) wgpuInstanceRelease(b);
  WGPUInstance kept = wgpuCreateInstance(NULL);
  CHECK(kept != NULL, "an instance without a descriptor was refused");

  const uint32_t timed_wait_any = 1; /* WGPUInstanceFeatureName_TimedWaitAny */
  stable_instance_descriptor sd = {NULL, 1, &timed_wait_any, NULL};
  capture_on();
  WGPUInstance c = wgpuCreateInstance((const WGPUInstanceDescriptor *)&sd);
  char *text = capture_off();
  CHECK(c == NULL, "an instance descriptor laid out as the stable header's was accepted (misread)");
  CHECK(names_both(text), "the refusal of the stable descriptor does not name both revisions");
  free(text);
  if (c) wgpuInstanceRelease(c);

  WGPUInstance d = wgpuCreateInstance(NULL);
  CHECK(d == NULL, "an instance after the tell was made");
  if (d) wgpuInstanceRelease(d);
  if (kept) {
    wp_request ans = {0};
    WGPURequestAdapterCallbackInfo cb = {
        .mode = WGPUCallbackMode_AllowProcessEvents, .callback = wp_on_adapter, .userdata1 = &ans};
    wgpuInstanceRequestAdapter(kept, NULL, cb);
    for (int i = 0; i < 1000 && !atomic_load(&ans.done); i++) wgpuInstanceProcessEvents(kept);
    CHECK(atomic_load(&ans.done) && ans.status != WGPURequestAdapterStatus_Success && strstr(ans.message, "revision"),
          "an adapter request after the tell was answered %u: %s", ans.status, ans.message);
    if (ans.object) wgpuAdapterRelease(ans.object);
    wgpuInstanceRelease(kept);
  }
}

static void calls(void) {
  static const char *const stable_only[] = {
      "wgpuGetInstanceFeatures",           "wgpuGetInstanceLimits",
      "wgpuHasInstanceFeature",            "wgpuSupportedInstanceFeaturesFreeMembers",
      "wgpuTextureGetTextureBindingViewDimension", "wgpuComputePassEncoderSetImmediates",
      "wgpuRenderPassEncoderSetImmediates", "wgpuRenderBundleEncoderSetImmediates",
  };
  for (size_t i = 0; i < sizeof stable_only / sizeof *stable_only; i++)
    CHECK(dlsym(RTLD_DEFAULT, stable_only[i]) != NULL,
          "%s is not defined by the layer: a program's call would reach the implementation", stable_only[i]);
  WGPUBool (*has)(uint32_t) = (WGPUBool(*)(uint32_t))dlsym(RTLD_DEFAULT, "wgpuHasInstanceFeature");
  if (!has) return;
  capture_on();
  WGPUBool answer = has(1);
  WGPUInstance in = wgpuCreateInstance(NULL);
  char *text = capture_off();
  CHECK(answer == 0, "wgpuHasInstanceFeature answered %u", answer);
  CHECK(in == NULL, "an instance was made after the program called wgpuHasInstanceFeature");
  CHECK(names_both(text), "the tell of wgpuHasInstanceFeature does not name both revisions");
  free(text);
  if (in) wgpuInstanceRelease(in);
}

static void impl(void) {
  capture_on();
  WGPUInstance in = wgpuCreateInstance(NULL);
  char *text = capture_off();
  CHECK(in == NULL, "an implementation that speaks the stable header was loaded");
  CHECK(text && strstr(text, "wgpuGetInstanceFeatures") && names_both(text),
        "the refusal at load does not name both revisions and the tell");
  free(text);
  if (in) wgpuInstanceRelease(in);
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  if (!strcmp(mode, "structs")) structs();
  else if (!strcmp(mode, "calls")) calls();
  else if (!strcmp(mode, "impl")) impl();
  else {
    fprintf(stderr, "usage: %s structs|calls|impl\n", argv[0]);
    return 2;
  }
  if (failures) return 1;
  printf("ok revision %s\n", mode);
  return 0;
}
