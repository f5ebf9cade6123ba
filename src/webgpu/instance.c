/* Instances, adapters and device requests of the webgpu.h front door.
 * Every instance of the process shares one engine env (the loaded
 * implementation, its instance and any fault schedule); an adapter is what
 * the program asked for plus a native adapter that answers its questions;
 * a device request makes an engine device, which asks for a new native
 * adapter and device at every recovery with the program's features,
 * limits and toggles. */
#include "webgpu/wg.h"

#include <errno.h>
#include <unistd.h>

/* ---- the process's env ---- */
static pthread_mutex_t g_env_mu = PTHREAD_MUTEX_INITIALIZER;
static ul_env *g_env;
static int g_env_users;

/* What the devices of the process went through, for a fault harness that
 * runs a program as a child: UNLOST_CHAOS_REPORT names the file a line is
 * appended to when the last instance goes, or at exit for an env still
 * alive then (a program that never releases its instance, as many do not).
 * One line per env: g_env_reported says its line was written. */
static _Atomic uint64_t g_recoveries, g_recovery_ns, g_leaks, g_failed;
static bool g_env_reported; /* under g_env_mu */
/* The devices not yet freed, under g_live_mu (taken after g_env_mu). */
static pthread_mutex_t g_live_mu = PTHREAD_MUTEX_INITIALIZER;
static ul__wg_device *g_live;

static void live_add(ul__wg_device *dv) {
  pthread_mutex_lock(&g_live_mu);
  dv->live_prev = NULL;
  dv->live_next = g_live;
  if (g_live) g_live->live_prev = dv;
  g_live = dv;
  pthread_mutex_unlock(&g_live_mu);
}

void ul__wg_device_gone(ul__wg_device *dv, uint64_t recoveries, uint64_t recovery_ns, bool failed) {
  pthread_mutex_lock(&g_live_mu);
  if (dv->live_prev || g_live == dv) {
    if (dv->live_prev) dv->live_prev->live_next = dv->live_next;
    else g_live = dv->live_next;
    if (dv->live_next) dv->live_next->live_prev = dv->live_prev;
    dv->live_prev = dv->live_next = NULL;
  }
  atomic_fetch_add(&g_recoveries, recoveries);
  atomic_fetch_add(&g_recovery_ns, recovery_ns);
  if (failed) atomic_fetch_add(&g_failed, 1);
  pthread_mutex_unlock(&g_live_mu);
}

void ul__wg_count_leaked(void) { atomic_fetch_add(&g_leaks, 1); }

/* The report's line for `env` into `line` (under g_env_mu): the process's
 * counts, with what the devices still alive went through. */
static void chaos_report_line(ul_env *env, char *line, size_t cap) {
  uint64_t calls = 0, injected = 0;
  ul__saved_error keep;
  ul__error_save(&keep);
  ul__engine_chaos_counts(env, &calls, &injected);
  ul__error_restore(&keep);
  pthread_mutex_lock(&g_live_mu);
  uint64_t recoveries = atomic_load(&g_recoveries), failed = atomic_load(&g_failed);
  uint64_t recovery_ns = atomic_load(&g_recovery_ns);
  for (ul__wg_device *dv = g_live; dv; dv = dv->live_next) {
    uint64_t ns;
    recoveries += ul__device_recoveries_ns(dv->ud, &ns);
    recovery_ns += ns;
    failed += atomic_load(&dv->lost) && dv->lost_reason != WGPUDeviceLostReason_Destroyed;
  }
  pthread_mutex_unlock(&g_live_mu);
  snprintf(line, cap,
           "calls=%llu injected=%llu recoveries=%llu leaked_devices=%llu failed_devices=%llu reentries=%llu "
           "recovery_ms=%.1f\n",
           (unsigned long long)calls, (unsigned long long)injected, (unsigned long long)recoveries,
           (unsigned long long)atomic_load(&g_leaks), (unsigned long long)failed,
           (unsigned long long)ul_wgpu_reentries(), (double)recovery_ns / 1e6);
}

/* Appends a line (written with no lock held: the file may be slow). */
static void chaos_report_write(const char *line) {
  const char *path = ul__opt_text(UL__OPT_CHAOS_REPORT);
  FILE *f = path ? fopen(path, "a") : NULL;
  if (!f) return;
  fputs(line, f);
  fclose(f);
}

/* At exit: the line of an env still alive, unless it was written. The
 * lock is waited for a bounded time (a thread may hold it while it loads
 * the implementation, or the exit may come from inside a call that holds
 * it): without it, no line. */
static void chaos_report_at_exit(void) {
  if (!ul__opt_text(UL__OPT_CHAOS_REPORT)) return;
  int rc = EBUSY;
  for (int i = 0; i < 200 && (rc = pthread_mutex_trylock(&g_env_mu)) == EBUSY; i++)
    nanosleep(&(struct timespec){0, 10000000}, NULL);
  if (rc) {
    ul__log(UL__LOG_WARN, "UNLOST_CHAOS_REPORT: no report at exit (the instances' lock stayed held)");
    return;
  }
  char line[256] = "";
  if (g_env && !g_env_reported) {
    chaos_report_line(g_env, line, sizeof line);
    g_env_reported = true;
  }
  pthread_mutex_unlock(&g_env_mu);
  if (line[0]) chaos_report_write(line);
}

static ul_status env_get(ul_env **out) {
  static bool exit_hook;
  pthread_mutex_lock(&g_env_mu);
  ul_status s = UL_OK;
  if (!g_env && !(s = ul__engine_env_create(&g_env))) {
    g_env->wgpu = ul__wg_guard(g_env->wgpu);
    g_env_reported = false;
    if (!exit_hook && ul__opt_text(UL__OPT_CHAOS_REPORT)) exit_hook = atexit(chaos_report_at_exit) == 0;
  }
  if (!s) g_env_users++;
  *out = g_env;
  pthread_mutex_unlock(&g_env_mu);
  return s;
}

static void env_put(void) {
  char line[256] = "";
  pthread_mutex_lock(&g_env_mu);
  if (--g_env_users == 0) {
    if (ul__opt_text(UL__OPT_CHAOS_REPORT) && !g_env_reported) chaos_report_line(g_env, line, sizeof line);
    g_env_reported = true;
    ul__engine_env_destroy(g_env);
    g_env = NULL;
  }
  pthread_mutex_unlock(&g_env_mu);
  if (line[0]) chaos_report_write(line);
}

/* For tests and the chaos harness: the env behind every instance (NULL
 * when none is alive). */
UL__WG_EXPORT ul_env *ul_webgpu_env(void);
ul_env *ul_webgpu_env(void) {
  pthread_mutex_lock(&g_env_mu);
  ul_env *e = g_env;
  pthread_mutex_unlock(&g_env_mu);
  return e;
}

/* unlost exec: the library says it was loaded into this process. */
__attribute__((constructor)) static void exec_mark(void) {
  const char *path = ul__opt_text(UL__OPT_EXEC_MARK);
  FILE *f = path ? fopen(path, "a") : NULL;
  if (!f) return;
  fprintf(f, "loaded %ld\n", (long)getpid());
  fclose(f);
}

/* ---- instances ---- */

/* The stable header's instance descriptor, read with this revision's
 * layout: its requiredFeatureCount falls on capabilities.nextInChain, its
 * requiredFeatures on timedWaitAnyEnable, its requiredLimits on
 * timedWaitAnyMaxCount (both 32 bytes). A count where a pointer belongs, a
 * WGPUBool that is neither 0 nor 1 or a wait count no implementation takes
 * tell that layout; an all-zero descriptor means the same in both. */
#if !UL_WGPU_STABLE
static bool foreign_layout(const WGPUInstanceDescriptor *d) {
  uintptr_t chain = (uintptr_t)d->capabilities.nextInChain;
  return (chain && chain < 4096) || d->capabilities.timedWaitAnyEnable > 1 ||
         d->capabilities.timedWaitAnyMaxCount > (1u << 20);
}

/* Whether the program asked for timed waits, and for how many at once. */
static bool asks_timed(const WGPUInstanceDescriptor *d, size_t *max) {
  *max = d ? d->capabilities.timedWaitAnyMaxCount : 0;
  return d && d->capabilities.timedWaitAnyEnable;
}
#else
/* The pinned revision's descriptor read with the stable layout: its
 * capabilities.nextInChain falls on requiredFeatureCount, its
 * timedWaitAnyEnable (a WGPUBool) on requiredFeatures, its
 * timedWaitAnyMaxCount on requiredLimits. A pointer below 4096 (a 1, a
 * count of 64) or a count over 2^20 is none a program passes. */
static bool foreign_layout(const WGPUInstanceDescriptor *d) {
  uintptr_t feats = (uintptr_t)d->requiredFeatures, limits = (uintptr_t)d->requiredLimits;
  return d->requiredFeatureCount > (1u << 20) || (feats && feats < 4096) || (limits && limits < 4096);
}

static bool asks_timed(const WGPUInstanceDescriptor *d, size_t *max) {
  *max = d && d->requiredLimits ? d->requiredLimits->timedWaitAnyMaxCount : 0;
  for (size_t i = 0; d && d->requiredFeatures && i < d->requiredFeatureCount; i++)
    if (d->requiredFeatures[i] == WGPUInstanceFeatureName_TimedWaitAny) return true;
  return false;
}
#endif

UL__WG_EXPORT WGPUInstance wgpuCreateInstance(const WGPUInstanceDescriptor *descriptor) {
  /* Toggles are the engine's; timed waits are the program's to ask for,
   * as the implementation's are (its own waits use the env's instance). The
   * chain is still refused where the implementation refuses it. */
  char why[160];
  if (descriptor && !ul__wg_chain_ok(descriptor->nextInChain, "InstanceDescriptor", why, sizeof why)) {
    ul__log(UL__LOG_ERROR, "wgpuCreateInstance: %s", why);
    return NULL;
  }
  if (descriptor && foreign_layout(descriptor)) ul__wg_foreign("wgpuCreateInstance (its descriptor's layout)");
  if (ul__wg_foreign_seen()) {
    ul__log(UL__LOG_ERROR, "wgpuCreateInstance: refused: the program was built on another webgpu.h revision (said "
                           "above)");
    return NULL;
  }
  ul__wg_instance *in = ul__wg_new(UL__WG_INSTANCE, sizeof *in, NULL);
  if (!in) return NULL;
  ul_status s = env_get(&in->env);
  if (s) {
    ul__log(UL__LOG_ERROR, "wgpuCreateInstance: %s", ul_last_error());
    free(in);
    return NULL;
  }
  pthread_mutex_init(&in->mu, NULL);
  in->next_future = 1;
  size_t max;
  in->timed = asks_timed(descriptor, &max);
  /* The implementation takes 64 unless the program asks for more. */
  in->timed_max = max > 64 ? max : 64;
  return (WGPUInstance)in;
}

void ul__wg_instance_free(ul__wg_instance *in) {
  ul__wg_futures_free(in);
  pthread_mutex_destroy(&in->mu);
  ul__wg_quarantine(in);
  env_put();
}

#if !UL_WGPU_STABLE
UL__WG_EXPORT WGPUStatus wgpuGetInstanceCapabilities(WGPUInstanceCapabilities *capabilities) {
  if (!capabilities || capabilities->nextInChain) return WGPUStatus_Error;
  capabilities->timedWaitAnyEnable = 1;
  capabilities->timedWaitAnyMaxCount = 64;
  return WGPUStatus_Success;
}
#else
/* The stable revision's instance questions, answered as the pinned
 * revision's wgpuGetInstanceCapabilities is: timed waits, 64 at once. */
static const WGPUInstanceFeatureName instance_features[] = {WGPUInstanceFeatureName_TimedWaitAny};

UL__WG_EXPORT void wgpuGetInstanceFeatures(WGPUSupportedInstanceFeatures *features) {
  if (!features) return;
  features->featureCount = UL__COUNT_OF(instance_features);
  features->features = instance_features;
}

UL__WG_EXPORT WGPUStatus wgpuGetInstanceLimits(WGPUInstanceLimits *limits) {
  if (!limits || limits->nextInChain) return WGPUStatus_Error;
  limits->timedWaitAnyMaxCount = 64;
  return WGPUStatus_Success;
}

UL__WG_EXPORT WGPUBool wgpuHasInstanceFeature(WGPUInstanceFeatureName feature) {
  for (size_t i = 0; i < UL__COUNT_OF(instance_features); i++)
    if (instance_features[i] == feature) return 1;
  return 0;
}

UL__WG_EXPORT void wgpuSupportedInstanceFeaturesFreeMembers(WGPUSupportedInstanceFeatures features) {
  UL__UNUSED(features); /* a static list */
}
#endif

UL__WG_EXPORT WGPUBool wgpuInstanceHasWGSLLanguageFeature(WGPUInstance instance, WGPUWGSLLanguageFeatureName feature) {
  ul__wg_instance *in = ul__wg_check(instance, UL__WG_INSTANCE, "wgpuInstanceHasWGSLLanguageFeature");
  if (!in || !in->env->wgpu->InstanceHasWGSLLanguageFeature) return 0;
  return in->env->wgpu->InstanceHasWGSLLanguageFeature(in->env->instance, feature);
}

/* The implementation's WGSL language features, copied (the pinned revision
 * answers wgpuInstanceGetWGSLLanguageFeatures with a status, the stable one
 * with nothing). */
static WGPUStatus wgsl_features(WGPUInstance instance, WGPUSupportedWGSLLanguageFeatures *features) {
  ul__wg_instance *in = ul__wg_check(instance, UL__WG_INSTANCE, "wgpuInstanceGetWGSLLanguageFeatures");
  if (!features) return WGPUStatus_Error;
  features->featureCount = 0;
  features->features = NULL;
  const ul__wgpu *w = in ? in->env->wgpu : NULL;
  if (!w || !w->InstanceGetWGSLLanguageFeatures) return WGPUStatus_Error;
  WGPUSupportedWGSLLanguageFeatures raw = {0, NULL};
  WGPUStatus st = WGPUStatus_Success;
#if UL_WGPU_STABLE
  w->InstanceGetWGSLLanguageFeatures(in->env->instance, &raw);
#else
  st = w->InstanceGetWGSLLanguageFeatures(in->env->instance, &raw);
#endif
  if (st == WGPUStatus_Success &&
      (features->features = ul__memdup(raw.features, sizeof *raw.features * raw.featureCount)))
    features->featureCount = raw.featureCount;
  if (w->SupportedWGSLLanguageFeaturesFreeMembers) w->SupportedWGSLLanguageFeaturesFreeMembers(raw);
  return st;
}

#if UL_WGPU_STABLE
UL__WG_EXPORT void wgpuInstanceGetWGSLLanguageFeatures(WGPUInstance instance,
                                                       WGPUSupportedWGSLLanguageFeatures *features) {
  wgsl_features(instance, features);
}
#else
UL__WG_EXPORT WGPUStatus wgpuInstanceGetWGSLLanguageFeatures(WGPUInstance instance,
                                                            WGPUSupportedWGSLLanguageFeatures *features) {
  return wgsl_features(instance, features);
}
#endif

UL__WG_EXPORT void wgpuSupportedWGSLLanguageFeaturesFreeMembers(WGPUSupportedWGSLLanguageFeatures features) {
  free((void *)features.features);
}

/* ---- adapters ---- */

/* The Dawn toggles chained on a descriptor (copied), and whether every
 * struct of the chain is one the layer knows (`known` sTypes). The chain
 * is one ul__wg_chain_ok passed: it ends, with one toggles struct at most. */
static bool chain_toggles(const WGPUChainedStruct *c, char ***en, uint32_t *nen, char ***dis, uint32_t *ndis,
                          uint32_t *unknown) {
  *unknown = 0;
#if UL_WGPU_STABLE /* no toggles in the stable header */
  UL__UNUSED(en), UL__UNUSED(nen), UL__UNUSED(dis), UL__UNUSED(ndis);
#endif
  for (; c; c = c->next) {
#if !UL_WGPU_STABLE
    if (c->sType == WGPUSType_DawnTogglesDescriptor) {
      const WGPUDawnTogglesDescriptor *t = (const WGPUDawnTogglesDescriptor *)c;
      char **e = calloc(t->enabledToggleCount + 1, sizeof *e), **x = calloc(t->disabledToggleCount + 1, sizeof *x);
      if (!e || !x) {
        free(e);
        free(x);
        return false;
      }
      for (size_t i = 0; i < t->enabledToggleCount; i++) e[i] = ul__strdup(t->enabledToggles[i]);
      for (size_t i = 0; i < t->disabledToggleCount; i++) x[i] = ul__strdup(t->disabledToggles[i]);
      *en = e;
      *nen = (uint32_t)t->enabledToggleCount;
      *dis = x;
      *ndis = (uint32_t)t->disabledToggleCount;
      continue;
    }
#endif
    if (!*unknown) *unknown = c->sType;
  }
  return true;
}

static void free_toggles(char **t, uint32_t n) {
  for (uint32_t i = 0; t && i < n; i++) free(t[i]);
  free(t);
}

void ul__wg_adapter_free(ul__wg_adapter *a) {
  if (a->native) a->instance->env->wgpu->AdapterRelease(a->native);
  free_toggles(a->enabled, a->enabled_count);
  free_toggles(a->disabled, a->disabled_count);
  ul__wg_instance *in = a->instance;
  ul__wg_quarantine(a);
  if (in) ul__wg_unhold(in);
}

UL__WG_EXPORT WGPUFuture wgpuInstanceRequestAdapter(WGPUInstance instance, const WGPURequestAdapterOptions *options,
                                                    WGPURequestAdapterCallbackInfo info) {
  ul__wg_instance *in;
  ul__wg_future *f = UL__WG_FUTURE_FOR(instance, UL__WG_INSTANCE, "wgpuInstanceRequestAdapter", UL__WGF_ADAPTER, false,
                                       info, &in);
  if (!f) return (WGPUFuture){0};
  WGPUFuture id = ul__wg_future_id(f);
  WGPURequestAdapterOptions o = options ? *options : (WGPURequestAdapterOptions){0};
  char why[160];
  if (ul__wg_foreign_seen()) {
    ul__wg_future_resolve(in, f, WGPURequestAdapterStatus_Error, 0, NULL,
                          "refused: the program was built on another webgpu.h revision than unlost's (" UL__WGPU_REVISION
                          "); its enums would be misread");
    return id;
  }
  if (!ul__wg_chain_ok(o.nextInChain, "RequestAdapterOptions", why, sizeof why)) {
    ul__wg_future_resolve(in, f, WGPURequestAdapterStatus_Error, 0, NULL, why);
    return id;
  }
  ul__wg_adapter *a = ul__wg_new(UL__WG_ADAPTER, sizeof *a, NULL);
  if (!a) {
    ul__wg_future_resolve(in, f, WGPURequestAdapterStatus_Error, 0, NULL, "out of host memory");
    return id;
  }
  a->instance = in;
  ul__wg_hold(in);
  uint32_t unknown;
  if (!chain_toggles(o.nextInChain, &a->enabled, &a->enabled_count, &a->disabled, &a->disabled_count, &unknown)) {
    ul__wg_release(a);
    ul__wg_future_resolve(in, f, WGPURequestAdapterStatus_Error, 0, NULL, "out of host memory");
    return id;
  }
  if (unknown) ul__log(UL__LOG_INFO, "wgpuInstanceRequestAdapter: chained sType 0x%x is not kept", unknown);
  a->power = o.forceFallbackAdapter ? UL_POWER_FALLBACK_ONLY
             : o.powerPreference == WGPUPowerPreference_LowPower ? UL_POWER_LOW_POWER
                                                                 : UL_POWER_HIGH_PERFORMANCE;
  /* The native adapter that answers the program's questions: the one the
   * engine's first device will get. */
  WGPUInstance ni = NULL;
  ul_status s = ul__adapter_for(in->env, a->power, &a->native, &ni);
  if (s) {
    char msg[512];
    snprintf(msg, sizeof msg, "%s", ul_last_error());
    ul__wg_release(a);
    ul__wg_future_resolve(in, f, WGPURequestAdapterStatus_Unavailable, 0, NULL, msg);
    return id;
  }
  a->native_instance = ni;
  ul__wg_future_resolve(in, f, WGPURequestAdapterStatus_Success, 0, a, "");
  return id;
}

UL__WG_EXPORT WGPUInstance wgpuAdapterGetInstance(WGPUAdapter adapter) {
  ul__wg_adapter *a = ul__wg_check(adapter, UL__WG_ADAPTER, "wgpuAdapterGetInstance");
  if (!a) return NULL;
  ul__wg_addref(a->instance);
  return (WGPUInstance)a->instance;
}

WGPUStatus ul__wg_info_copy(const ul__wgpu *w, WGPUAdapter native, WGPUAdapterInfo *info);

UL__WG_EXPORT WGPUStatus wgpuAdapterGetInfo(WGPUAdapter adapter, WGPUAdapterInfo *info) {
  ul__wg_adapter *a = ul__wg_check(adapter, UL__WG_ADAPTER, "wgpuAdapterGetInfo");
  if (!a || !info) return WGPUStatus_Error;
  return ul__wg_info_copy(a->instance->env->wgpu, a->native, info);
}

/* What the layer can carry: its command records hold 4 bind groups and 12
 * dynamic offsets (the defaults of WebGPU's limits). */
static void clamp_limits(WGPULimits *l) {
  l->maxBindGroups = UL__MIN(l->maxBindGroups, (uint32_t)UL_MAX_BIND_GROUPS);
  l->maxDynamicUniformBuffersPerPipelineLayout = UL__MIN(l->maxDynamicUniformBuffersPerPipelineLayout, 8u);
  l->maxDynamicStorageBuffersPerPipelineLayout = UL__MIN(l->maxDynamicStorageBuffersPerPipelineLayout, 4u);
}

UL__WG_EXPORT WGPUStatus wgpuAdapterGetLimits(WGPUAdapter adapter, WGPULimits *limits) {
  ul__wg_adapter *a = ul__wg_check(adapter, UL__WG_ADAPTER, "wgpuAdapterGetLimits");
  if (!a || !limits) return WGPUStatus_Error;
  WGPUChainedStruct *chain = limits->nextInChain;
  WGPULimits l;
  memset(&l, 0, sizeof l);
  WGPUStatus st = a->instance->env->wgpu->AdapterGetLimits(a->native, &l);
  if (st != WGPUStatus_Success) return st;
  clamp_limits(&l);
  *limits = l;
  limits->nextInChain = chain;
  return WGPUStatus_Success;
}

UL__WG_EXPORT WGPUBool wgpuAdapterHasFeature(WGPUAdapter adapter, WGPUFeatureName feature) {
  ul__wg_adapter *a = ul__wg_check(adapter, UL__WG_ADAPTER, "wgpuAdapterHasFeature");
  const ul__wgpu *w = a ? a->instance->env->wgpu : NULL;
  return w && w->AdapterHasFeature ? w->AdapterHasFeature(a->native, feature) : 0;
}

UL__WG_EXPORT void wgpuAdapterGetFeatures(WGPUAdapter adapter, WGPUSupportedFeatures *features) {
  ul__wg_adapter *a = ul__wg_check(adapter, UL__WG_ADAPTER, "wgpuAdapterGetFeatures");
  if (!features) return;
  features->featureCount = 0;
  features->features = NULL;
  const ul__wgpu *w = a ? a->instance->env->wgpu : NULL;
  if (!w || !w->AdapterGetFeatures) return;
  WGPUSupportedFeatures raw = {0, NULL};
  w->AdapterGetFeatures(a->native, &raw);
  if ((features->features = ul__memdup(raw.features, sizeof *raw.features * raw.featureCount)))
    features->featureCount = raw.featureCount;
  if (w->SupportedFeaturesFreeMembers) w->SupportedFeaturesFreeMembers(raw);
}

#if !UL_WGPU_STABLE
UL__WG_EXPORT WGPUStatus wgpuAdapterGetFormatCapabilities(WGPUAdapter adapter, WGPUTextureFormat format,
                                                          WGPUDawnFormatCapabilities *capabilities) {
  ul__wg_adapter *a = ul__wg_check(adapter, UL__WG_ADAPTER, "wgpuAdapterGetFormatCapabilities");
  const ul__wgpu *w = a ? a->instance->env->wgpu : NULL;
  if (!w || !w->AdapterGetFormatCapabilities) return WGPUStatus_Error;
  return w->AdapterGetFormatCapabilities(a->native, format, capabilities);
}
#endif

/* ---- device requests ---- */

static ul__wg_device *make_device(ul__wg_adapter *a, const WGPUDeviceDescriptor *desc, char *why, size_t cap) {
  ul__wg_instance *in = a->instance;
  WGPUDeviceDescriptor dd = desc ? *desc : (WGPUDeviceDescriptor){0};
  if (!ul__wg_chain_ok(dd.nextInChain, "DeviceDescriptor", why, cap)) return NULL;
  if (dd.requiredLimits) {
    const WGPULimits *l = dd.requiredLimits;
    if ((l->maxBindGroups != WGPU_LIMIT_U32_UNDEFINED && l->maxBindGroups > UL_MAX_BIND_GROUPS) ||
        (l->maxDynamicUniformBuffersPerPipelineLayout != WGPU_LIMIT_U32_UNDEFINED &&
         l->maxDynamicUniformBuffersPerPipelineLayout > 8) ||
        (l->maxDynamicStorageBuffersPerPipelineLayout != WGPU_LIMIT_U32_UNDEFINED &&
         l->maxDynamicStorageBuffersPerPipelineLayout > 4)) {
      snprintf(why, cap, "unlost-webgpu carries at most %d bind groups, 8 dynamic uniform and 4 dynamic storage "
               "buffers per pipeline layout (the limits it reports)", UL_MAX_BIND_GROUPS);
      return NULL;
    }
  }
  ul__device_req req = {0};
  req.feature_count = (uint32_t)dd.requiredFeatureCount;
  req.features = (uint32_t *)dd.requiredFeatures;
  if (dd.requiredLimits) {
    req.has_limits = true;
    req.limits = *dd.requiredLimits;
  }
  /* The adapter's toggles, then the device's own. */
  char **den = NULL, **ddis = NULL;
  uint32_t nden = 0, nddis = 0, unknown;
  if (!chain_toggles(dd.nextInChain, &den, &nden, &ddis, &nddis, &unknown)) {
    snprintf(why, cap, "out of host memory");
    return NULL;
  }
  if (unknown) ul__log(UL__LOG_INFO, "wgpuAdapterRequestDevice: chained sType 0x%x is not kept", unknown);
  req.enabled_count = a->enabled_count + nden;
  req.disabled_count = a->disabled_count + nddis;
  char *en_all[64], *dis_all[64];
  if (req.enabled_count > 64 || req.disabled_count > 64) {
    free_toggles(den, nden);
    free_toggles(ddis, nddis);
    snprintf(why, cap, "more than 64 toggles");
    return NULL;
  }
  for (uint32_t i = 0; i < a->enabled_count; i++) en_all[i] = a->enabled[i];
  for (uint32_t i = 0; i < nden; i++) en_all[a->enabled_count + i] = den[i];
  for (uint32_t i = 0; i < a->disabled_count; i++) dis_all[i] = a->disabled[i];
  for (uint32_t i = 0; i < nddis; i++) dis_all[a->disabled_count + i] = ddis[i];
  req.enabled = en_all;
  req.disabled = dis_all;

  char label[128];
  ul_device_desc udesc = {0};
  udesc.label = ul__wg_label(dd.label, label, sizeof label);
  if (!udesc.label) udesc.label = "webgpu device";
  udesc.power = a->power;
  ul__wg_device *dv = ul__wg_new(UL__WG_DEVICE, sizeof *dv, NULL);
  ul__wg_queue *q = dv ? ul__wg_new(UL__WG_QUEUE, sizeof *q, NULL) : NULL;
  ul_status s = dv && q ? UL_OK : ul__fail(UL_ERR_OUT_OF_MEMORY, "out of host memory");
  if (!s) s = ul__device_create_req(in->env, &udesc, &req, &dv->ud, ul__wg_site(__builtin_return_address(0)));
  free_toggles(den, nden);
  free_toggles(ddis, nddis);
  if (s) {
    snprintf(why, cap, "%s", ul_last_error());
    free(q);
    free(dv);
    return NULL;
  }
  pthread_mutex_init(&dv->mu, NULL);
  dv->instance = in;
  ul__wg_hold(in);
  dv->adapter = a;
  ul__wg_hold(a);
  a->consumed = true;
  /* The queue is the device's: the device holds it, it does not hold the
   * device, and the program has no reference to it before GetQueue. */
  q->h.dev = dv;
  atomic_store(&q->h.refs, 0);
  dv->queue = q;
  dv->lost_cb = dd.deviceLostCallbackInfo;
  dv->error_cb = dd.uncapturedErrorCallbackInfo;
  if (dd.requiredFeatureCount && (dv->features = malloc(sizeof *dv->features * dd.requiredFeatureCount))) {
    memcpy(dv->features, dd.requiredFeatures, sizeof *dv->features * dd.requiredFeatureCount);
    dv->features_count = (uint32_t)dd.requiredFeatureCount;
  }
  dv->limits = ul__device_limits_native(dv->ud);
  clamp_limits(&dv->limits);
  dv->limits.nextInChain = NULL;
  live_add(dv);
  ul__wg_future *lf = ul__wg_future_new(in, UL__WGF_LOST, dv->lost_cb.mode ? dv->lost_cb.mode : WGPUCallbackMode_AllowSpontaneous,
                                        (void *)dv->lost_cb.callback, dv->lost_cb.userdata1, dv->lost_cb.userdata2);
  if (lf) lf->object = dv; /* what its advance looks at: a loss not yet processed */
  dv->lost_future = lf ? lf->id : 0;
  return dv;
}

static void request_device(ul__wg_adapter *a, const WGPUDeviceDescriptor *desc, ul__wg_future *f) {
  ul__wg_instance *in = a->instance;
  char why[512] = "";
  if (a->consumed) {
    /* The spec consumes an adapter with its first device; this build gives
     * more (PLATFORM.md), and so does the layer. */
    ul__log(UL__LOG_DEBUG, "a second device from one adapter");
  }
  ul__wg_device *dv = make_device(a, desc, why, sizeof why);
  if (!dv) {
    ul__wg_future_resolve(in, f, WGPURequestDeviceStatus_Error, 0, NULL, why);
    return;
  }
  ul__wg_future_resolve(in, f, WGPURequestDeviceStatus_Success, 0, dv, "");
}

UL__WG_EXPORT WGPUFuture wgpuAdapterRequestDevice(WGPUAdapter adapter, const WGPUDeviceDescriptor *descriptor,
                                                  WGPURequestDeviceCallbackInfo info) {
  ul__wg_adapter *a;
  ul__wg_future *f = UL__WG_FUTURE_FOR(adapter, UL__WG_ADAPTER, "wgpuAdapterRequestDevice", UL__WGF_DEVICE, false,
                                       info, &a);
  if (!f) return (WGPUFuture){0};
  WGPUFuture id = ul__wg_future_id(f);
  request_device(a, descriptor, f);
  return id;
}

UL__WG_EXPORT WGPUDevice wgpuAdapterCreateDevice(WGPUAdapter adapter, const WGPUDeviceDescriptor *descriptor) {
  ul__wg_adapter *a = ul__wg_check(adapter, UL__WG_ADAPTER, "wgpuAdapterCreateDevice");
  if (!a) return NULL;
  char why[512];
  ul__wg_device *dv = make_device(a, descriptor, why, sizeof why);
  if (!dv) ul__log(UL__LOG_WARN, "wgpuAdapterCreateDevice: %s", why);
  return (WGPUDevice)dv;
}

/* ---- procs ---- */
typedef struct proc_ent {
  const char *name;
  WGPUProc proc;
} proc_ent;

static const proc_ent procs[] = {
#define UL__WG_PROC(Ret, Name, params, args) {"wgpu" #Name, (WGPUProc)(void (*)(void))wgpu##Name},
    UL__WGPU_API(UL__WG_PROC)
#undef UL__WG_PROC
};

UL__WG_EXPORT WGPUProc wgpuGetProcAddress(WGPUStringView procName) {
  /* The whole view: a name with a NUL inside is no entry point's. */
  if (!procName.data) return NULL;
  size_t n = procName.length == WGPU_STRLEN ? strlen(procName.data) : procName.length;
  for (size_t i = 0; i < UL__COUNT_OF(procs); i++)
    if (strlen(procs[i].name) == n && !memcmp(procs[i].name, procName.data, n)) return procs[i].proc;
  return NULL;
}
