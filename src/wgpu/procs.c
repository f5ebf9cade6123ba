/* Loading a webgpu.h implementation with dlopen/dlsym. */
#include "wgpu/procs.h"

#include <dlfcn.h>
#include <errno.h>
#include <sys/stat.h>

#ifndef UL_DEFAULT_WEBGPU_LIB
#define UL_DEFAULT_WEBGPU_LIB "libwebgpu_wrapper.so"
#endif
#ifndef UL_INSTALLED_WEBGPU_LIB
#define UL_INSTALLED_WEBGPU_LIB "/usr/local/lib/unlost/libwebgpu_wrapper.so"
#endif

static bool file_exists(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* "<dir of the file holding this code>/unlost/libwebgpu_wrapper.so": the
 * pinned Dawn installed beside libunlost.so, wherever that was moved. */
static const char *beside_this_library(void) {
  static char path[4096];
  Dl_info info;
  if (!dladdr((void *)beside_this_library, &info) || !info.dli_fname) return NULL;
  const char *slash = strrchr(info.dli_fname, '/');
  if (!slash) return NULL;
  int n = snprintf(path, sizeof path, "%.*s/unlost/libwebgpu_wrapper.so",
                   (int)(slash - info.dli_fname), info.dli_fname);
  return n > 0 && (size_t)n < sizeof path ? path : NULL;
}

const char *ul__wgpu_default_path(void) {
  const char *e = ul__opt_text(UL__OPT_WEBGPU_LIB);
  if (e) return e;
  /* An installed library prefers the Dawn installed with it; a build-tree
   * binary finds neither of those and takes the source tree's. */
  const char *candidates[] = {beside_this_library(), UL_INSTALLED_WEBGPU_LIB, UL_DEFAULT_WEBGPU_LIB};
  for (size_t i = 0; i < UL__COUNT_OF(candidates); i++)
    if (candidates[i] && file_exists(candidates[i])) return candidates[i];
  return UL_DEFAULT_WEBGPU_LIB;
}

void ul__sv_copy(WGPUStringView v, char *buf, size_t cap) {
  if (!cap) return;
  size_t n = 0;
  if (v.data) n = v.length == WGPU_STRLEN ? strlen(v.data) : v.length;
  if (n >= cap) n = cap - 1;
  if (n) memcpy(buf, v.data, n);
  buf[n] = '\0';
}

ul_status ul__wgpu_open(const char *path, ul__wgpu_lib *lib) {
  memset(lib, 0, sizeof *lib);
  if (!path || !*path) path = ul__wgpu_default_path();
  const char *hint =
      "run `make deps` to install the pinned Dawn, or set UNLOST_WEBGPU_LIB "
      "to a webgpu.h implementation (a .so exporting wgpuCreateInstance)";
  if (strchr(path, '/') && !file_exists(path))
    return ul__fail(UL_ERR_NO_IMPLEMENTATION,
                    "load webgpu implementation '%s': no such file; %s", path, hint);
  dlerror();
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *why = dlerror();
    return ul__fail(UL_ERR_NO_IMPLEMENTATION,
                    "load webgpu implementation '%s': %s (wrong architecture or "
                    "missing dependency?); %s",
                    path, why ? why : "dlopen failed", hint);
  }
  /* An unlost library (libunlost-webgpu, at our path or copied elsewhere)
   * exports the webgpu.h entry points too, over an engine that would load
   * the same library again: its first wgpuCreateInstance would wait for
   * itself. Every build of the engine exports ul_env_create; no
   * implementation does. */
  if (dlsym(h, "ul_env_create")) {
    dlclose(h);
    return ul__fail(UL_ERR_NO_IMPLEMENTATION,
                    "load webgpu implementation '%s': it is an unlost library (libunlost-webgpu), "
                    "not an implementation of its own; it would load itself; %s",
                    path, hint);
  }
  /* The revision it speaks, told by entry points that one revision has
   * and the other has not: this build reads its structs with the layout of
   * UL__WGPU_REVISION, so another is refused here, never misread. */
  if (dlsym(h, "wgpuGetInstanceFeatures") && !dlsym(h, "wgpuGetInstanceCapabilities")) {
    dlclose(h);
    return ul__fail(UL_ERR_NO_IMPLEMENTATION,
                    "load webgpu implementation '%s': it speaks " UL__WGPU_REVISION_STABLE
                    " (it exports wgpuGetInstanceFeatures, not wgpuGetInstanceCapabilities), and this unlost was "
                    "built for " UL__WGPU_REVISION ", whose structs and enums differ; build unlost against that "
                    "implementation's header, or use the pinned Dawn; %s",
                    path, hint);
  }
#define UL__LOAD(req, kind, Ret, Name, params, args)                                      \
  {                                                                                 \
    void *sym = dlsym(h, "wgpu" #Name);                                             \
    if (!sym && req) {                                                              \
      dlclose(h);                                                                   \
      memset(lib, 0, sizeof *lib);                                                  \
      return ul__fail(UL_ERR_NO_IMPLEMENTATION,                                     \
                      "load webgpu implementation '%s': missing symbol wgpu" #Name  \
                      "; it is not a webgpu.h implementation unlost can use; %s",   \
                      path, hint);                                                  \
    }                                                                               \
    memcpy(&lib->procs.Name, &sym, sizeof sym);                                     \
  }
  UL__WGPU_PROCS(UL__LOAD)
#undef UL__LOAD
  lib->handle = h;
  lib->path = ul__strdup(path);
  if (!lib->path) {
    dlclose(h);
    memset(lib, 0, sizeof *lib);
    return ul__fail(UL_ERR_OUT_OF_MEMORY, "load webgpu implementation: out of host memory");
  }
  return UL_OK;
}

void ul__wgpu_close(ul__wgpu_lib *lib) {
  if (!lib) return;
  /* Dawn keeps threads and static state alive; unloading it while they run
   * is unsafe, so the handle stays open (dlclose is only reference-counted
   * bookkeeping here). */
  free(lib->path);
  memset(lib, 0, sizeof *lib);
}
