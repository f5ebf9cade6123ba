/* Loading a webgpu.h implementation with dlopen/dlsym. */
#include "wgpu/procs.h"

#include <dlfcn.h>
#include <errno.h>
#include <sys/stat.h>

#include <limits.h>
#include <link.h>
#include <stdlib.h>

/* The pinned Dawn's file name. No path is built into the library: an
 * installed copy finds the Dawn installed beside it, and otherwise the
 * folders the dynamic loader searches for the dependencies of the binary
 * that holds this code are searched for it: that binary's run path (the
 * build tree's Dawn in a build, <libdir>/unlost relative to it once
 * installed), LD_LIBRARY_PATH, the system's. So the same build can be
 * installed under any prefix. (dlopen of the bare name would search the run
 * path of its caller, which is another library when one intercepts dlopen,
 * as the sanitizers' runtimes do.) */
#define UL_WEBGPU_LIB_NAME "libwebgpu_wrapper.so"

static bool file_exists(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* "<dir>/<name>" into out when that file exists; out empty otherwise. */
static bool found_in(char *out, size_t cap, const char *dir, size_t dir_len, const char *name) {
  int n = snprintf(out, cap, "%.*s/%s", (int)dir_len, dir, name);
  if (n > 0 && (size_t)n < cap && file_exists(out)) return true;
  out[0] = 0;
  return false;
}

static char default_path[PATH_MAX];

static void find_default(void) {
  Dl_info info;
  if (!dladdr((void *)find_default, &info) || !info.dli_fname) return;
  /* "<dir of the file holding this code>/unlost/libwebgpu_wrapper.so": the
   * pinned Dawn installed beside libunlost.so, wherever that was moved. */
  const char *slash = strrchr(info.dli_fname, '/');
  if (slash && found_in(default_path, sizeof default_path, info.dli_fname, (size_t)(slash - info.dli_fname),
                        "unlost/" UL_WEBGPU_LIB_NAME))
    return;
  /* The loader's search list for that binary (a shared library by its
   * name, the program itself as the main handle). */
  void *self = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  if (!self) self = dlopen(NULL, RTLD_LAZY);
  Dl_serinfo size;
  if (!self || dlinfo(self, RTLD_DI_SERINFOSIZE, &size) != 0) return;
  Dl_serinfo *si = malloc(size.dls_size);
  if (si && (memcpy(si, &size, sizeof size), dlinfo(self, RTLD_DI_SERINFOSIZE, si) == 0) &&
      dlinfo(self, RTLD_DI_SERINFO, si) == 0) {
    for (unsigned i = 0; i < si->dls_cnt; i++) {
      const char *dir = si->dls_serpath[i].dls_name;
      if (found_in(default_path, sizeof default_path, dir, strlen(dir), UL_WEBGPU_LIB_NAME)) break;
    }
  }
  free(si);
  dlclose(self);
}

const char *ul__wgpu_default_path(void) {
  const char *e = ul__opt_text(UL__OPT_WEBGPU_LIB);
  if (e) return e;
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, find_default);
  /* Found nowhere: the bare name, for dlopen's own search and its message. */
  return default_path[0] ? default_path : UL_WEBGPU_LIB_NAME;
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
