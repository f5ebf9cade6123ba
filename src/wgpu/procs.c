/* Loading a webgpu.h implementation with dlopen/dlsym. */
#include "wgpu/procs.h"

#include <dlfcn.h>
#include <errno.h>
#include <sys/stat.h>

#include <limits.h>
#include <link.h>
#include <stdlib.h>

/* The pinned Dawn's file name. No path is built into the library: an
 * installed copy finds the Dawn installed beside it, and a bare name is
 * looked up by dlopen in the run path of the binary that holds this code
 * (the build tree's Dawn in a build, <libdir>/unlost once installed), so
 * the same build can be installed under any prefix. */
#define UL_WEBGPU_LIB_NAME "libwebgpu_wrapper.so"

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
  /* An installed shared library prefers the Dawn installed with it; any
   * other binary takes the one its run path names. */
  const char *beside = beside_this_library();
  if (beside && file_exists(beside)) return beside;
  return UL_WEBGPU_LIB_NAME;
}

/* The file dlopen found for `h`, resolved ("bin/../lib" made "lib"), into
 * buf; `asked` when it cannot tell. */
static const char *opened_path(void *h, const char *asked, char *buf) {
  struct link_map *lm = NULL;
  if (dlinfo(h, RTLD_DI_LINKMAP, &lm) != 0 || !lm || !lm->l_name || !*lm->l_name) return asked;
  return realpath(lm->l_name, buf) ? buf : lm->l_name;
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
#if UL_WGPU_STABLE
#define UL__OTHER_HAS "wgpuGetInstanceCapabilities"
#define UL__OWN_HAS "wgpuGetInstanceFeatures"
#else
#define UL__OTHER_HAS "wgpuGetInstanceFeatures"
#define UL__OWN_HAS "wgpuGetInstanceCapabilities"
#endif
  if (dlsym(h, UL__OTHER_HAS) && !dlsym(h, UL__OWN_HAS)) {
    dlclose(h);
    return ul__fail(UL_ERR_NO_IMPLEMENTATION,
                    "load webgpu implementation '%s': it speaks " UL__WGPU_REVISION_OTHER
                    " (it exports " UL__OTHER_HAS ", not " UL__OWN_HAS "), and this unlost was "
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
  char real[PATH_MAX];
  lib->path = ul__strdup(opened_path(h, path, real));
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
