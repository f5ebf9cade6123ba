/* Textures, views, samplers, shader modules, bind group layouts, pipeline
 * layouts, compute pipelines (sync and async), bind groups and query sets
 * of the webgpu.h front door. Each create checks the program's handles and
 * the chained structs it can keep, copies the native descriptor into the
 * engine (ul__*_create) and hands back the layer's object: an error object
 * when the create failed, as the implementation would. */
#include "webgpu/wg.h"

/* The program's object, or NULL for a NULL handle that is allowed. Sets
 * *bad for a handle that is not NULL and not a live object of `kind` (the
 * error reported on dv). */
static void *opt(ul__wg_device *dv, const void *h, ul__wg_kind kind, const char *what, bool *bad) {
  if (!h) return NULL;
  void *o = ul__wg_check_on(dv, h, kind, what);
  if (!o) *bad = true;
  return o;
}

/* A create's engine call, entered and left; the status reported. */
#define UL__WG_CREATE(dv, what, call)                        \
  ({                                                         \
    ul_status s_ = UL_ERR_DEVICE_FAILED;                     \
    if (ul__wg_enter(dv, what)) {                            \
      s_ = (call);                                           \
      ul__wg_leave(dv);                                      \
      if (s_) ul__wg_report(dv, s_, what);                   \
    }                                                        \
    s_;                                                      \
  })

static bool chain_refused(ul__wg_device *dv, const WGPUChainedStruct *c, const char *what) {
  if (!c) return false;
  ul__wg_error(dv, WGPUErrorType_Validation, "%s: chained sType 0x%x is not one unlost can keep for a rebuild", what,
               c->sType);
  return true;
}

/* The start of the wgpuDeviceCreate* that need a descriptor: the device
 * checked, the door's object made (NULL for a wrong device or no host
 * memory). *go is false when the descriptor is NULL or chains a struct the
 * door does not keep (said on the device): the caller returns the object
 * as it is then, an error object. */
static void *create_begin(WGPUDevice device, ul__wg_kind kind, size_t size, const void *descriptor,
                          const WGPUChainedStruct *chain, const char *what, bool *go) {
  *go = false;
  ul__wg_device *dv = ul__wg_check(device, UL__WG_DEVICE, what);
  void *o = dv ? ul__wg_new(kind, size, dv) : NULL;
  if (!o) return NULL;
  if (!descriptor) ul__wg_error(dv, WGPUErrorType_Validation, "%s: the descriptor is NULL", what);
  else *go = !chain_refused(dv, chain, what);
  return o;
}

/* ---- textures and views ---- */

UL__WG_EXPORT WGPUTexture wgpuDeviceCreateTexture(WGPUDevice device, const WGPUTextureDescriptor *descriptor) {
  const char *what = "wgpuDeviceCreateTexture";
  ul__wg_device *dv = ul__wg_check(device, UL__WG_DEVICE, what);
  if (!dv) return NULL;
  const ul_site *site = ul__wg_site(__builtin_return_address(0));
  ul__wg_texture *t = ul__wg_new(UL__WG_TEXTURE, sizeof *t, dv);
  if (!t) return NULL;
  if (!descriptor) {
    ul__wg_error(dv, WGPUErrorType_Validation, "%s: the descriptor is NULL", what);
    return (WGPUTexture)t;
  }
  t->desc = *descriptor;
  t->desc.nextInChain = NULL;
  t->desc.label = (WGPUStringView){NULL, 0};
  t->desc.viewFormats = NULL;
  t->desc.viewFormatCount = 0;
  if (chain_refused(dv, descriptor->nextInChain, what)) return (WGPUTexture)t;
  if (descriptor->viewFormatCount && !descriptor->viewFormats) {
    ul__wg_error(dv, WGPUErrorType_Validation, "%s: viewFormats is NULL", what);
    return (WGPUTexture)t;
  }
  char label[128];
  const char *lab = ul__wg_label(descriptor->label, label, sizeof label);
  uint32_t id = 0;
  if (!UL__WG_CREATE(dv, what, ul__texture_create(dv->ud, descriptor, UL_RESTORE_LOG, lab, site, &id))) t->h.id = id;
  return (WGPUTexture)t;
}

UL__WG_EXPORT WGPUTexture wgpuDeviceCreateErrorTexture(WGPUDevice device, const WGPUTextureDescriptor *descriptor) {
  ul__wg_device *dv = ul__wg_check(device, UL__WG_DEVICE, "wgpuDeviceCreateErrorTexture");
  if (!dv) return NULL;
  ul__wg_texture *t = ul__wg_new(UL__WG_TEXTURE, sizeof *t, dv);
  if (t && descriptor) t->desc = *descriptor;
  ul__wg_error(dv, WGPUErrorType_Validation, "wgpuDeviceCreateErrorTexture: an error texture");
  return (WGPUTexture)t;
}

UL__WG_EXPORT void wgpuTextureDestroy(WGPUTexture texture) {
  ul__wg_texture *t = ul__wg_check(texture, UL__WG_TEXTURE, "wgpuTextureDestroy");
  if (!t || atomic_exchange(&t->h.destroyed, true) || !t->h.id) return;
  ul__destroy_by_id(t->h.dev->ud, t->h.id, UL__OBJ_TEXTURE, true);
}

static WGPUTextureView make_view(WGPUTexture texture, const WGPUTextureViewDescriptor *descriptor, bool error,
                                 void *ra) {
  const char *what = "wgpuTextureCreateView";
  ul__wg_texture *t = ul__wg_check(texture, UL__WG_TEXTURE, what);
  if (!t) return NULL;
  ul__wg_device *dv = t->h.dev;
  ul__wg_view *v = ul__wg_new(UL__WG_VIEW, sizeof *v, dv);
  if (!v) return NULL;
  v->texture = t;
  ul__wg_hold(t);
  if (error) {
    ul__wg_error(dv, WGPUErrorType_Validation, "wgpuTextureCreateErrorView: an error view");
    return (WGPUTextureView)v;
  }
  WGPUTextureViewDescriptor vd = descriptor ? *descriptor : (WGPUTextureViewDescriptor){0};
  if (!descriptor) {
    vd.mipLevelCount = WGPU_MIP_LEVEL_COUNT_UNDEFINED;
    vd.arrayLayerCount = WGPU_ARRAY_LAYER_COUNT_UNDEFINED;
  }
  if (chain_refused(dv, vd.nextInChain, what)) return (WGPUTextureView)v;
  if (!t->h.id) {
    ul__wg_error(dv, WGPUErrorType_Validation, "%s: the texture is invalid", what);
    return (WGPUTextureView)v;
  }
  /* A view of a destroyed texture is made (as the implementation makes
   * it); its use is the error. */
  if (atomic_load(&t->h.destroyed)) return (WGPUTextureView)v;
  char label[128];
  const char *lab = ul__wg_label(vd.label, label, sizeof label);
  uint32_t id = 0;
  if (!UL__WG_CREATE(dv, what, ul__view_create(dv->ud, t->h.id, &vd, lab, ul__wg_site(ra), &id))) v->h.id = id;
  return (WGPUTextureView)v;
}

UL__WG_EXPORT WGPUTextureView wgpuTextureCreateView(WGPUTexture texture, const WGPUTextureViewDescriptor *descriptor) {
  return make_view(texture, descriptor, false, __builtin_return_address(0));
}

UL__WG_EXPORT WGPUTextureView wgpuTextureCreateErrorView(WGPUTexture texture,
                                                        const WGPUTextureViewDescriptor *descriptor) {
  return make_view(texture, descriptor, true, __builtin_return_address(0));
}

/* ---- samplers ---- */

UL__WG_EXPORT WGPUSampler wgpuDeviceCreateSampler(WGPUDevice device, const WGPUSamplerDescriptor *descriptor) {
  const char *what = "wgpuDeviceCreateSampler";
  ul__wg_device *dv = ul__wg_check(device, UL__WG_DEVICE, what);
  if (!dv) return NULL;
  const ul_site *site = ul__wg_site(__builtin_return_address(0));
  ul__wg_obj *o = ul__wg_new(UL__WG_SAMPLER, sizeof *o, dv);
  if (!o) return NULL;
  WGPUSamplerDescriptor sd = descriptor ? *descriptor : (WGPUSamplerDescriptor){0};
  if (!descriptor) {
    sd.lodMaxClamp = 32;
    sd.maxAnisotropy = 1;
  }
  if (chain_refused(dv, sd.nextInChain, what)) return (WGPUSampler)o;
  char label[128];
  const char *lab = ul__wg_label(sd.label, label, sizeof label);
  uint32_t id = 0;
  if (!UL__WG_CREATE(dv, what, ul__sampler_create(dv->ud, &sd, lab, site, &id))) o->id = id;
  return (WGPUSampler)o;
}

/* ---- shader modules ---- */

UL__WG_EXPORT WGPUShaderModule wgpuDeviceCreateShaderModule(WGPUDevice device,
                                                           const WGPUShaderModuleDescriptor *descriptor) {
  const char *what = "wgpuDeviceCreateShaderModule";
  ul__wg_device *dv = ul__wg_check(device, UL__WG_DEVICE, what);
  if (!dv) return NULL;
  const ul_site *site = ul__wg_site(__builtin_return_address(0));
  ul__wg_shader *sh = ul__wg_new(UL__WG_SHADER, sizeof *sh, dv);
  if (!sh) return NULL;
  if (!descriptor) {
    ul__wg_error(dv, WGPUErrorType_Validation, "%s: the descriptor is NULL", what);
    return (WGPUShaderModule)sh;
  }
  char why[160];
  if (!ul__wg_chain_ok(descriptor->nextInChain, "ShaderModuleDescriptor", why, sizeof why)) {
    ul__wg_error(dv, WGPUErrorType_Validation, "%s: %s", what, why);
    return (WGPUShaderModule)sh;
  }
  const WGPUShaderSourceWGSL *src = NULL;
  for (const WGPUChainedStruct *c = descriptor->nextInChain; c; c = c->next) {
    if (c->sType == WGPUSType_ShaderSourceWGSL && !src) {
      src = (const WGPUShaderSourceWGSL *)c;
      continue;
    }
    ul__wg_error(dv, WGPUErrorType_Validation, "%s: chained sType 0x%x is not kept by unlost (a module is WGSL "
                 "source, which is compiled again after a loss)", what, c->sType);
    return (WGPUShaderModule)sh;
  }
  if (!src) {
    ul__wg_error(dv, WGPUErrorType_Validation, "%s: no WGSL source chained (ShaderSourceWGSL)", what);
    return (WGPUShaderModule)sh;
  }
  size_t len = !src->code.data ? 0 : src->code.length == WGPU_STRLEN ? strlen(src->code.data) : src->code.length;
  if ((sh->wgsl = malloc(len + 1))) {
    if (len) memcpy(sh->wgsl, src->code.data, len);
    sh->wgsl[len] = 0;
    sh->len = len;
  }
  char label[128];
  const char *lab = ul__wg_label(descriptor->label, label, sizeof label);
  uint32_t id = 0;
  if (!UL__WG_CREATE(dv, what, ul__shader_create(dv->ud, src->code.data ? src->code.data : "", len, lab, site, &id)))
    sh->h.id = id;
  return (WGPUShaderModule)sh;
}

UL__WG_EXPORT WGPUShaderModule wgpuDeviceCreateErrorShaderModule(WGPUDevice device,
                                                                const WGPUShaderModuleDescriptor *descriptor,
                                                                WGPUStringView errorMessage) {
  ul__wg_device *dv = ul__wg_check(device, UL__WG_DEVICE, "wgpuDeviceCreateErrorShaderModule");
  UL__UNUSED(descriptor);
  if (!dv) return NULL;
  ul__wg_shader *sh = ul__wg_new(UL__WG_SHADER, sizeof *sh, dv);
  char msg[512];
  ul__sv_copy(errorMessage, msg, sizeof msg);
  ul__wg_error(dv, WGPUErrorType_Validation, "%s", msg);
  return (WGPUShaderModule)sh;
}

/* The implementation's compilation messages, copied where its callback
 * gives them (they live only during the call). Shared by the waiter and the
 * callback; the last to let go frees it. */
typedef struct info_rec {
  _Atomic int refs;
  _Atomic bool done;
  uint32_t status;
  WGPUCompilationInfo info;
} info_rec;

static void info_unref(info_rec *r) {
  if (atomic_fetch_sub(&r->refs, 1) != 1) return;
  for (size_t i = 0; i < r->info.messageCount; i++) free((void *)r->info.messages[i].message.data);
  free((void *)r->info.messages);
  free(r);
}

static void on_info(WGPUCompilationInfoRequestStatus status, const WGPUCompilationInfo *info, void *u1, void *u2) {
  UL__UNUSED(u2);
  info_rec *r = u1;
  r->status = status;
  if (info && info->messageCount) {
    WGPUCompilationMessage *m = calloc(info->messageCount, sizeof *m);
    if (m) {
      for (size_t i = 0; i < info->messageCount; i++) {
        m[i] = info->messages[i];
        m[i].nextInChain = NULL;
        WGPUStringView v = info->messages[i].message;
        size_t n = !v.data ? 0 : v.length == WGPU_STRLEN ? strlen(v.data) : v.length;
        char *p = malloc(n + 1);
        if (p) {
          if (n) memcpy(p, v.data, n);
          p[n] = 0;
        }
        m[i].message = (WGPUStringView){p, p ? n : 0};
      }
      r->info.messages = m;
      r->info.messageCount = info->messageCount;
    }
  }
  atomic_store(&r->done, true);
  info_unref(r);
}

/* The messages of compiling `wgsl` (or of the engine's module `id`) on one
 * native device, or NULL with *again set when that device was lost while it
 * compiled (its answer then says nothing: a lost device reports no
 * messages). */
static info_rec *compile_info_once(ul__wg_device *dv, uint32_t id, const char *wgsl, size_t len, bool *again) {
  ul_device *d = dv->ud;
  const ul__wgpu *w = d->wgpu;
  *again = false;
  if (!w->ShaderModuleGetCompilationInfo) return NULL;
  info_rec *r = calloc(1, sizeof *r);
  if (!r) return NULL;
  atomic_store(&r->refs, 2);
  WGPUCompilationInfoCallbackInfo ci = {NULL, WGPUCallbackMode_AllowProcessEvents, on_info, r, NULL};
  ul__native_ask q;
  bool asked = false;
  if (ul__shader_info_ask(d, id, wgsl, len, ci, &q, &asked)) {
    free(r);
    return NULL;
  }
  if (!asked) {
    r->refs = 1;
    info_unref(r);
    return NULL;
  }
  if (ul__native_ask_wait(d, &q, &r->done, 10000000000ull)) { /* never answered: the callback keeps its reference */
    info_unref(r);
    return NULL;
  }
  /* Lost while it compiled: the answer came from a dead device. */
  if (ul__native_ask_moved(d, &q) || r->status != WGPUCompilationInfoRequestStatus_Success) {
    info_unref(r);
    *again = true;
    return NULL;
  }
  return r;
}

/* The messages, asked again on the next native device after a loss (a few
 * times: the device then failed for good, or keeps being lost, and the
 * program hears it from its next call). */
static info_rec *compile_info(ul__wg_device *dv, uint32_t id, const char *wgsl, size_t len) {
  for (int i = 0; i < 8; i++) {
    bool again;
    info_rec *r = compile_info_once(dv, id, wgsl, len, &again);
    if (r || !again) return r;
  }
  return NULL;
}

UL__WG_EXPORT WGPUFuture wgpuShaderModuleGetCompilationInfo(WGPUShaderModule shaderModule,
                                                           WGPUCompilationInfoCallbackInfo callbackInfo) {
  ul__wg_shader *sh;
  ul__wg_future *f = UL__WG_FUTURE_FOR(shaderModule, UL__WG_SHADER, "wgpuShaderModuleGetCompilationInfo",
                                       UL__WGF_COMPILATION_INFO, false, callbackInfo, &sh);
  if (!f) return (WGPUFuture){0};
  ul__wg_device *dv = sh->h.dev;
  ul__wg_instance *in = dv->instance;
  WGPUFuture id = ul__wg_future_id(f);
  info_rec *r = atomic_load(&dv->lost) ? NULL : compile_info(dv, sh->h.id, sh->wgsl, sh->len);
  if (r) {
    f->info = r->info; /* the future owns the messages now */
    r->info = (WGPUCompilationInfo){0};
    uint32_t st = r->status;
    info_unref(r);
    ul__wg_future_resolve(in, f, st, 0, NULL, "");
  } else {
    ul__wg_future_resolve(in, f, WGPUCompilationInfoRequestStatus_Success, 0, NULL, "");
  }
  return id;
}

/* ---- bind group layouts, pipeline layouts ---- */

UL__WG_EXPORT WGPUBindGroupLayout wgpuDeviceCreateBindGroupLayout(WGPUDevice device,
                                                                 const WGPUBindGroupLayoutDescriptor *descriptor) {
  const char *what = "wgpuDeviceCreateBindGroupLayout";
  const ul_site *site = ul__wg_site(__builtin_return_address(0));
  bool go;
  ul__wg_bgl *l = create_begin(device, UL__WG_BGL, sizeof *l, descriptor, descriptor ? descriptor->nextInChain : NULL, what, &go);
  if (!go) return (WGPUBindGroupLayout)l;
  ul__wg_device *dv = l->h.dev;
  if (descriptor->entryCount && !descriptor->entries) {
    ul__wg_error(dv, WGPUErrorType_Validation, "%s: entries is NULL", what);
    return (WGPUBindGroupLayout)l;
  }
  for (size_t i = 0; i < descriptor->entryCount; i++) {
    const WGPUBindGroupLayoutEntry *e = &descriptor->entries[i];
    if (chain_refused(dv, e->nextInChain, what) || chain_refused(dv, e->buffer.nextInChain, what) ||
        chain_refused(dv, e->sampler.nextInChain, what) || chain_refused(dv, e->texture.nextInChain, what) ||
        chain_refused(dv, e->storageTexture.nextInChain, what))
      return (WGPUBindGroupLayout)l;
  }
  char label[128];
  const char *lab = ul__wg_label(descriptor->label, label, sizeof label);
  uint32_t id = 0;
  if (!UL__WG_CREATE(dv, what, ul__bgl_create(dv->ud, (uint32_t)descriptor->entryCount, descriptor->entries, lab,
                                              site, &id)))
    l->h.id = id;
  return (WGPUBindGroupLayout)l;
}

void ul__wg_group_free(ul__wg_group *g) { ul__wg_holds_clear(&g->holds); }

UL__WG_EXPORT WGPUPipelineLayout wgpuDeviceCreatePipelineLayout(WGPUDevice device,
                                                               const WGPUPipelineLayoutDescriptor *descriptor) {
  const char *what = "wgpuDeviceCreatePipelineLayout";
  const ul_site *site = ul__wg_site(__builtin_return_address(0));
  bool go;
  ul__wg_group *g = create_begin(device, UL__WG_PLAYOUT, sizeof *g, descriptor, descriptor ? descriptor->nextInChain : NULL, what, &go);
  if (!go) return (WGPUPipelineLayout)g;
  ul__wg_device *dv = g->h.dev;
  size_t n = descriptor->bindGroupLayoutCount;
  if (n > UL_MAX_BIND_GROUPS || (n && !descriptor->bindGroupLayouts)) {
    ul__wg_error(dv, WGPUErrorType_Validation, "%s: %zu bind group layouts (at most %d)", what, n, UL_MAX_BIND_GROUPS);
    return (WGPUPipelineLayout)g;
  }
  uint32_t ids[UL_MAX_BIND_GROUPS];
  bool bad = false;
  for (size_t i = 0; i < n; i++) {
    ul__wg_bgl *l = opt(dv, descriptor->bindGroupLayouts[i], UL__WG_BGL, what, &bad);
    ids[i] = l ? l->h.id : 0;
    if (l && !l->h.id && !bad) {
      ul__wg_error(dv, WGPUErrorType_Validation, "%s: bind group layout %zu is an invalid object", what, i);
      bad = true;
    }
    if (l) ul__wg_holds_add(&g->holds, l);
  }
  if (bad) return (WGPUPipelineLayout)g;
  char label[128];
  const char *lab = ul__wg_label(descriptor->label, label, sizeof label);
  uint32_t id = 0;
  if (!UL__WG_CREATE(dv, what, ul__playout_create(dv->ud, (uint32_t)n, ids, descriptor->immediateSize, lab, site, &id)))
    g->h.id = id;
  return (WGPUPipelineLayout)g;
}

/* ---- compute pipelines ---- */

static ul__wg_pipeline *make_pipeline(ul__wg_device *dv, const WGPUComputePipelineDescriptor *descriptor,
                                      const ul_site *site, char *why, size_t cap) {
  const char *what = "wgpuDeviceCreateComputePipeline";
  ul__wg_pipeline *p = ul__wg_new(UL__WG_PIPELINE, sizeof *p, dv);
  if (!p) return NULL;
  why[0] = 0;
  if (!descriptor) {
    snprintf(why, cap, "the descriptor is NULL");
    ul__wg_error(dv, WGPUErrorType_Validation, "%s: %s", what, why);
    return p;
  }
  if (chain_refused(dv, descriptor->nextInChain, what) || chain_refused(dv, descriptor->compute.nextInChain, what)) {
    snprintf(why, cap, "a chained struct unlost cannot keep");
    return p;
  }
  bool bad = false;
  ul__wg_shader *sh = ul__wg_check_on(dv, descriptor->compute.module, UL__WG_SHADER, what);
  ul__wg_group *lay = opt(dv, descriptor->layout, UL__WG_PLAYOUT, what, &bad);
  if (!sh) bad = true;
  if (bad || !sh->h.id || (lay && !lay->h.id)) {
    snprintf(why, cap, "the shader module or the layout is invalid");
    if (!bad) ul__wg_error(dv, WGPUErrorType_Validation, "%s: %s", what, why);
    return p;
  }
  if (descriptor->compute.constantCount && !descriptor->compute.constants) {
    snprintf(why, cap, "constants is NULL with a count of %zu", descriptor->compute.constantCount);
    ul__wg_error(dv, WGPUErrorType_Validation, "%s: %s", what, why);
    return p;
  }
  p->shader = &sh->h;
  ul__wg_hold(sh);
  if (lay) {
    p->layout = &lay->h;
    ul__wg_hold(lay);
  }
  char label[128];
  const char *lab = ul__wg_label(descriptor->label, label, sizeof label);
  WGPUStringView ep = descriptor->compute.entryPoint;
  size_t eplen = !ep.data ? 0 : ep.length == WGPU_STRLEN ? strlen(ep.data) : ep.length;
  for (size_t i = 0; i < descriptor->compute.constantCount; i++)
    if (chain_refused(dv, descriptor->compute.constants[i].nextInChain, what)) return p;
  uint32_t id = 0;
  ul_status s = UL__WG_CREATE(dv, what,
                              ul__pipeline_create(dv->ud, sh->h.id, lay ? lay->h.id : 0, ep.data, eplen,
                                                  (uint32_t)descriptor->compute.constantCount,
                                                  descriptor->compute.constants, lab, site, &id));
  if (!s) p->h.id = id;
  else snprintf(why, cap, "%s", ul_last_error());
  return p;
}

UL__WG_EXPORT WGPUComputePipeline wgpuDeviceCreateComputePipeline(WGPUDevice device,
                                                                 const WGPUComputePipelineDescriptor *descriptor) {
  ul__wg_device *dv = ul__wg_check(device, UL__WG_DEVICE, "wgpuDeviceCreateComputePipeline");
  if (!dv) return NULL;
  char why[512];
  return (WGPUComputePipeline)make_pipeline(dv, descriptor, ul__wg_site(__builtin_return_address(0)), why, sizeof why);
}

UL__WG_EXPORT WGPUFuture wgpuDeviceCreateComputePipelineAsync(WGPUDevice device,
                                                              const WGPUComputePipelineDescriptor *descriptor,
                                                              WGPUCreateComputePipelineAsyncCallbackInfo callbackInfo) {
  ul__wg_device *dv;
  ul__wg_future *f = UL__WG_FUTURE_FOR(device, UL__WG_DEVICE, "wgpuDeviceCreateComputePipelineAsync", UL__WGF_PIPELINE,
                                       false, callbackInfo, &dv);
  if (!f) return (WGPUFuture){0};
  WGPUFuture id = ul__wg_future_id(f);
  /* Made now (the engine compiles while the call runs); the program hears
   * of it through its future, errors included (not through its scopes). */
  ul__wg_capture cap = {dv, 0, ""};
  ul__wg_capture *outer = ul__wg_capturing;
  ul__wg_capturing = &cap;
  char why[sizeof cap.msg];
  ul__wg_pipeline *p = make_pipeline(dv, descriptor, ul__wg_site(__builtin_return_address(0)), why, sizeof why);
  ul__wg_capturing = outer;
  if (cap.type && !why[0]) snprintf(why, sizeof why, "%s", cap.msg);
  if (atomic_load(&dv->lost)) {
    if (p) ul__wg_release(p);
    ul__wg_future_resolve(dv->instance, f, WGPUCreatePipelineAsyncStatus_Success, 0,
                          ul__wg_new(UL__WG_PIPELINE, sizeof *p, dv), "");
    return id;
  }
  if (!p || !p->h.id) {
    if (p) ul__wg_release(p);
    ul__wg_future_resolve(dv->instance, f, WGPUCreatePipelineAsyncStatus_ValidationError, 0, NULL,
                          why[0] ? why : "the pipeline could not be made");
    return id;
  }
  ul__wg_future_resolve(dv->instance, f, WGPUCreatePipelineAsyncStatus_Success, 0, p, "");
  return id;
}

UL__WG_EXPORT WGPUBindGroupLayout wgpuComputePipelineGetBindGroupLayout(WGPUComputePipeline pipeline,
                                                                       uint32_t groupIndex) {
  const char *what = "wgpuComputePipelineGetBindGroupLayout";
  ul__wg_pipeline *p = ul__wg_check(pipeline, UL__WG_PIPELINE, what);
  if (!p) return NULL;
  ul__wg_device *dv = p->h.dev;
  /* The one made before for this group, while it lives (programs such as
   * ggml ask for it at every dispatch). */
  if (groupIndex < UL_MAX_BIND_GROUPS) {
    pthread_mutex_lock(&ul__wg_bgl_mu);
    ul__wg_bgl *had = p->bgl[groupIndex];
    bool again = had && ul__wg_revive(had);
    pthread_mutex_unlock(&ul__wg_bgl_mu);
    if (again) return (WGPUBindGroupLayout)had;
  }
  ul__wg_bgl *l = ul__wg_new(UL__WG_BGL, sizeof *l, dv);
  if (!l) return NULL;
  l->pipeline = p;
  l->group = groupIndex;
  ul__wg_hold(p);
  if (!p->h.id) {
    ul__wg_error(dv, WGPUErrorType_Validation, "%s: the pipeline is invalid", what);
    return (WGPUBindGroupLayout)l;
  }
  uint32_t id = 0;
  if (!UL__WG_CREATE(dv, what, ul__pipeline_bgl_create(dv->ud, p->h.id, groupIndex, NULL,
                                                       ul__wg_site(__builtin_return_address(0)), &id)))
    l->h.id = id;
  if (l->h.id && groupIndex < UL_MAX_BIND_GROUPS) {
    pthread_mutex_lock(&ul__wg_bgl_mu);
    if (!p->bgl[groupIndex]) p->bgl[groupIndex] = l;
    pthread_mutex_unlock(&ul__wg_bgl_mu);
  }
  return (WGPUBindGroupLayout)l;
}

/* ---- bind groups ---- */

UL__WG_EXPORT WGPUBindGroup wgpuDeviceCreateBindGroup(WGPUDevice device, const WGPUBindGroupDescriptor *descriptor) {
  const char *what = "wgpuDeviceCreateBindGroup";
  const ul_site *site = ul__wg_site(__builtin_return_address(0));
  bool go;
  ul__wg_group *g = create_begin(device, UL__WG_BIND_GROUP, sizeof *g, descriptor, descriptor ? descriptor->nextInChain : NULL, what, &go);
  if (!go) return (WGPUBindGroup)g;
  ul__wg_device *dv = g->h.dev;
  size_t n = descriptor->entryCount;
  if (n && !descriptor->entries) {
    ul__wg_error(dv, WGPUErrorType_Validation, "%s: entries is NULL", what);
    return (WGPUBindGroup)g;
  }
  bool bad = false;
  ul__wg_bgl *l = ul__wg_check_on(dv, descriptor->layout, UL__WG_BGL, what);
  if (!l) return (WGPUBindGroup)g;
  ul__wg_holds_add(&g->holds, l);
  ul__bg_entry stack[16], *e = n <= 16 ? stack : calloc(n, sizeof *e);
  if (!e) {
    ul__wg_error(dv, WGPUErrorType_OutOfMemory, "%s: out of host memory", what);
    return (WGPUBindGroup)g;
  }
  bool invalid = !l->h.id;
  for (size_t i = 0; i < n && !bad; i++) {
    const WGPUBindGroupEntry *x = &descriptor->entries[i];
    if (chain_refused(dv, x->nextInChain, what)) {
      bad = true;
      break;
    }
    ul__wg_obj *b = opt(dv, x->buffer, UL__WG_BUFFER, what, &bad);
    ul__wg_obj *v = opt(dv, x->textureView, UL__WG_VIEW, what, &bad);
    ul__wg_obj *s = opt(dv, x->sampler, UL__WG_SAMPLER, what, &bad);
    e[i] = (ul__bg_entry){x->binding, b ? b->id : 0, v ? v->id : 0, s ? s->id : 0, x->offset, x->size};
    const ul__wg_buffer *wb = (const ul__wg_buffer *)b;
    if (wb && !bad && (x->size == 0 || (x->size == WGPU_WHOLE_SIZE && x->offset >= wb->size))) {
      ul__wg_error(dv, WGPUErrorType_Validation, "%s: entry %zu (binding %u) binds 0 bytes of its buffer", what, i,
                   x->binding);
      bad = true;
    }
    if (!!b + !!v + !!s != 1 && !bad) {
      ul__wg_error(dv, WGPUErrorType_Validation, "%s: entry %zu (binding %u) names %d resources (exactly one)", what,
                   i, x->binding, !!b + !!v + !!s);
      bad = true;
    }
    if ((b && !b->id) || (v && !v->id) || (s && !s->id)) invalid = true;
    if (b) ul__wg_holds_add(&g->holds, b);
    if (v) ul__wg_holds_add(&g->holds, v);
    if (s) ul__wg_holds_add(&g->holds, s);
  }
  if (!bad && invalid)
    ul__wg_error(dv, WGPUErrorType_Validation, "%s: the layout or a resource is an invalid object", what);
  char label[128];
  const char *lab = ul__wg_label(descriptor->label, label, sizeof label);
  uint32_t id = 0;
  if (!bad && !invalid &&
      !UL__WG_CREATE(dv, what, ul__bind_group_create(dv->ud, l->h.id, 0, 0, (uint32_t)n, e, lab, site, &id)))
    g->h.id = id;
  if (e != stack) free(e);
  return (WGPUBindGroup)g;
}

/* ---- query sets ---- */

UL__WG_EXPORT WGPUQuerySet wgpuDeviceCreateQuerySet(WGPUDevice device, const WGPUQuerySetDescriptor *descriptor) {
  const char *what = "wgpuDeviceCreateQuerySet";
  const ul_site *site = ul__wg_site(__builtin_return_address(0));
  bool go;
  ul__wg_query_set *q = create_begin(device, UL__WG_QUERY_SET, sizeof *q, descriptor, descriptor ? descriptor->nextInChain : NULL, what, &go);
  if (!go) return (WGPUQuerySet)q;
  ul__wg_device *dv = q->h.dev;
  q->type = descriptor->type;
  q->count = descriptor->count;
  char label[128];
  const char *lab = ul__wg_label(descriptor->label, label, sizeof label);
  uint32_t id = 0;
  if (!UL__WG_CREATE(dv, what, ul__query_set_create(dv->ud, descriptor->type, descriptor->count, lab, site, &id)))
    q->h.id = id;
  return (WGPUQuerySet)q;
}

UL__WG_EXPORT void wgpuQuerySetDestroy(WGPUQuerySet querySet) {
  ul__wg_query_set *q = ul__wg_check(querySet, UL__WG_QUERY_SET, "wgpuQuerySetDestroy");
  if (!q || atomic_exchange(&q->h.destroyed, true) || !q->h.id) return;
  ul__destroy_by_id(q->h.dev->ud, q->h.id, UL__OBJ_QUERY_SET, false);
}

#if UL_WGPU_STABLE
/* The view dimension a texture binding takes, as the stable header asks it:
 * the door keeps no chain of the descriptor, so the default one (a 2D
 * texture of several layers binds as an array). */
UL__WG_EXPORT WGPUTextureViewDimension wgpuTextureGetTextureBindingViewDimension(WGPUTexture texture) {
  const ul__wg_texture *t = ul__wg_check(texture, UL__WG_TEXTURE, "wgpuTextureGetTextureBindingViewDimension");
  if (!t) return WGPUTextureViewDimension_Undefined;
  switch (t->desc.dimension) {
    case WGPUTextureDimension_1D: return WGPUTextureViewDimension_1D;
    case WGPUTextureDimension_3D: return WGPUTextureViewDimension_3D;
    default:
      return t->desc.size.depthOrArrayLayers > 1 ? WGPUTextureViewDimension_2DArray : WGPUTextureViewDimension_2D;
  }
}
#endif
