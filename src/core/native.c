/* Native devices: built (bounded by the request timeout), adopted,
 * released (bounded: a device that does not let go is abandoned to a
 * thread; a lost one is torn down in the background), and builds and
 * teardowns kept from overlapping. The loss records are loss.c. */
#include "core/native.h"
#include "core/adapter.h"
#include "core/prefill.h"
#include "core/core.h"
#include "chaos/chaos.h"

#include <errno.h>
#include <math.h>
#include <time.h>
#include <unistd.h>

/* ---- building a native device ----------------------------------------------- */

uint64_t ul__request_timeout_ns(const ul_device *d) {
  uint32_t ms = d->desc.recovery.request_timeout_ms ? d->desc.recovery.request_timeout_ms : 10000;
  return (uint64_t)ms * 1000000ull;
}


static bool keep_device(ul_device *d, WGPUDevice dev, ul__native_ctx *c) {
  if (d->kept_count == d->kept_cap) {
    uint32_t cap = d->kept_cap ? d->kept_cap * 2 : 4;
    WGPUDevice *k = ul__realloc(d->kept_devices, cap * sizeof *k);
    if (!k) return false; /* the mapping ends with the device: unmap cannot copy it */
    d->kept_devices = k;
    ul__native_ctx **kc = ul__realloc(d->kept_ctx, cap * sizeof *kc);
    if (!kc) return false;
    d->kept_ctx = kc;
    d->kept_cap = cap;
  }
  if (c) atomic_fetch_add(&c->refs, 1);
  d->kept_ctx[d->kept_count] = c;
  d->kept_devices[d->kept_count++] = dev;
  return true;
}

void ul__device_release_kept(ul_device *d) {
  for (uint32_t i = 0; i < d->kept_count; i++) {
    d->wgpu->DeviceDestroy(d->kept_devices[i]);
    d->wgpu->DeviceRelease(d->kept_devices[i]);
    ul__ctx_run_release_hooks(d->kept_ctx[i]);
    ul__ctx_unref(d->kept_ctx[i]);
  }
  d->kept_count = 0;
  free(d->kept_devices);
  free(d->kept_ctx);
  d->kept_devices = NULL;
  d->kept_ctx = NULL;
  d->kept_cap = 0;
}

/* ---- builds and teardowns of native devices do not overlap ----
 * The implementation is never asked to build a device (adapter and device
 * requests) while it destroys another one of the env, nor the reverse.
 * Each side waits for the other at most a deadline; a teardown still
 * running when a build stops waiting for it (work that never ends) no
 * longer counts, so that it does not hold up every later build. Under
 * env->rel_mu; rel_cv signals each end. */
typedef struct ul__teardown {
  struct ul__teardown *next;
  bool counted;
} ul__teardown;

static bool wait_none_locked(ul_env *env, const unsigned *count, uint64_t ns) {
  struct timespec until = ul__deadline(CLOCK_REALTIME, ns);
  while (*count && pthread_cond_timedwait(&env->rel_cv, &env->rel_mu, &until) == 0) {
  }
  return *count == 0;
}

static void build_begin(ul_env *env, uint64_t ns) {
  uint64_t t0 = ul__now_ns();
  pthread_mutex_lock(&env->rel_mu);
  bool none = wait_none_locked(env, &env->tearing, ns);
  if (ul__now_ns() - t0 > 100000000ull)
    ul__log(UL__LOG_INFO, "a device build waited %.1f ms for a teardown%s", (double)(ul__now_ns() - t0) / 1e6,
            none ? "" : " and stopped waiting");
  if (!none) {
    for (ul__teardown *t = env->teardowns; t; t = t->next) {
      if (t->counted) env->tearing--;
      t->counted = false;
    }
  }
  env->building++;
  pthread_mutex_unlock(&env->rel_mu);
}

static void build_end(ul_env *env) {
  pthread_mutex_lock(&env->rel_mu);
  env->building--;
  pthread_cond_broadcast(&env->rel_cv);
  pthread_mutex_unlock(&env->rel_mu);
}

static void teardown_begin(ul_env *env, ul__teardown *t, bool counted, uint64_t ns) {
  uint64_t t0 = ul__now_ns();
  pthread_mutex_lock(&env->rel_mu);
  wait_none_locked(env, &env->building, ns);
  if (ul__now_ns() - t0 > 100000000ull)
    ul__log(UL__LOG_INFO, "a device teardown waited %.1f ms for a build", (double)(ul__now_ns() - t0) / 1e6);
  t->counted = counted;
  env->tearing += counted;
  t->next = env->teardowns;
  env->teardowns = t;
  pthread_mutex_unlock(&env->rel_mu);
}

/* `t` stops counting (a caller gave up waiting for it); no-op once ended. */
static void teardown_forget(ul_env *env, ul__teardown *t) {
  pthread_mutex_lock(&env->rel_mu);
  if (t->counted) env->tearing--;
  t->counted = false;
  pthread_cond_broadcast(&env->rel_cv);
  pthread_mutex_unlock(&env->rel_mu);
}

static void teardown_end(ul_env *env, ul__teardown *t) {
  pthread_mutex_lock(&env->rel_mu);
  if (t->counted) env->tearing--;
  t->counted = false;
  for (ul__teardown **l = &env->teardowns; *l; l = &(*l)->next) {
    if (*l == t) {
      *l = t->next;
      break;
    }
  }
  pthread_cond_broadcast(&env->rel_cv);
  pthread_mutex_unlock(&env->rel_mu);
}

/* A condition variable whose timed waits take CLOCK_MONOTONIC deadlines. */
void ul__cond_init_monotonic(pthread_cond_t *cv) {
  pthread_condattr_t ca;
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_cond_init(cv, &ca);
  pthread_condattr_destroy(&ca);
}

/* Destroying a device waits for its queue: work that never ends (an
 * endless loop in a kernel, a hung driver) would block the caller for good.
 * The release runs on a thread of its own; after the deadline the caller
 * goes on and the thread is left with the device (its memory is lost to
 * the process, which is better than a process that never returns). */
typedef struct release_job {
  ul_env *env;
  uint64_t wait_ns;
  ul__teardown td;
  const ul__wgpu *w;
  WGPUDevice device;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  bool done, abandoned;
} release_job;

static void *release_main(void *arg) {
  release_job *j = arg;
  teardown_begin(j->env, &j->td, true, j->wait_ns);
  j->w->DeviceDestroy(j->device);
  j->w->DeviceRelease(j->device);
  teardown_end(j->env, &j->td);
  pthread_mutex_lock(&j->mu);
  j->done = true;
  bool abandoned = j->abandoned;
  pthread_cond_signal(&j->cv);
  pthread_mutex_unlock(&j->mu);
  if (abandoned) { /* the caller has gone: the job is this thread's */
    pthread_mutex_destroy(&j->mu);
    pthread_cond_destroy(&j->cv);
    free(j);
  }
  return NULL;
}

uint64_t ul__device_release_deadline_ns(const ul_device *d) {
  uint64_t deadline_ms = d->desc.health.submit_deadline_ms ? d->desc.health.submit_deadline_ms : 2000;
  return UL__MAX(2 * deadline_ms, 2000) * 1000000ull;
}

static bool release_device_bounded(ul_device *d, WGPUDevice dev) {
  release_job *j = calloc(1, sizeof *j);
  pthread_t t;
  if (j) {
    j->env = d->env;
    j->wait_ns = ul__device_release_deadline_ns(d) / 2;
    j->w = d->wgpu;
    j->device = dev;
    pthread_mutex_init(&j->mu, NULL);
    ul__cond_init_monotonic(&j->cv);
  }
  if (!j || pthread_create(&t, NULL, release_main, j) != 0) {
    if (j) {
      pthread_mutex_destroy(&j->mu);
      pthread_cond_destroy(&j->cv);
      free(j);
    }
    d->wgpu->DeviceDestroy(dev); /* no thread to spare: as before */
    d->wgpu->DeviceRelease(dev);
    return true;
  }
  struct timespec until = ul__deadline(CLOCK_MONOTONIC, ul__device_release_deadline_ns(d));
  pthread_mutex_lock(&j->mu);
  while (!j->done && pthread_cond_timedwait(&j->cv, &j->mu, &until) == 0) {
  }
  bool done = j->done;
  if (!done) {
    j->abandoned = true;
    teardown_forget(d->env, &j->td); /* j lives until its thread sees `abandoned` */
  }
  pthread_mutex_unlock(&j->mu);
  if (done) {
    pthread_join(t, NULL);
    pthread_mutex_destroy(&j->mu);
    pthread_cond_destroy(&j->cv);
    free(j);
  } else {
    pthread_detach(t);
    atomic_fetch_add(&d->env->abandoned_devices, 1);
  }
  return done;
}

void ul__native_release(ul_device *d, ul__native *n) {
  const ul__wgpu *w = d->wgpu;
  ul__prefills_free(&d->env->lib.procs, &n->prefills);
  /* Chaos must not inject into a device being released. */
  if (d->env->chaos && n->device) ul__chaos_forget_device(d->env->chaos, n->device);
  if (n->ctx) {
    pthread_mutex_lock(&ul__lost_mu);
    n->ctx->owner = NULL;
    pthread_mutex_unlock(&ul__lost_mu);
  }
  if (n->queue) w->QueueRelease(n->queue);
  if (n->device) {
    /* A buffer keeps a mapping made on a lost device: hold the device
     * (its last release would free the mapped memory) until none is kept. */
    if (d->maps_kept && keep_device(d, n->device, n->ctx)) n->device = NULL;
    if (n->device && release_device_bounded(d, n->device)) ul__ctx_run_release_hooks(n->ctx);
    else if (n->device)
      ul__log(UL__LOG_WARN, "device '%s': the implementation did not release a device within %.1f s (work that "
              "never ends, e.g. an endless loop in a kernel); it was abandoned to a background thread", d->label,
              (double)ul__device_release_deadline_ns(d) / 1e9);
  }
  if (n->adapter) w->AdapterRelease(n->adapter);
  ul__ctx_unref(n->ctx); /* the ul_device's reference */
  memset(n, 0, sizeof *n);
}

typedef struct ul__async_release {
  struct ul__async_release *next; /* env->async_jobs, under env->rel_mu */
  pthread_t thread;
  bool done, abandoned;           /* under env->rel_mu */
  ul_env *env;
  uint64_t wait_ns;
  bool hung;
  ul__teardown td;
  WGPUDevice device;
  WGPUAdapter adapter;
  ul__native_ctx *ctx;
  /* Command buffers of this device the program let go while it was being
   * destroyed: released after the destroy (ul__native_cmdbuf_release).
   * Under env->rel_mu; `destroyed` says none is taken any more. */
  WGPUCommandBuffer *after;
  uint32_t nafter, cap_after;
  bool destroyed;
} async_release;

/* The destroy of j's device is over: the command buffers handed over
 * meanwhile go now, and none is handed over from here on. */
static void release_after(async_release *j, const ul__wgpu *w) {
  pthread_mutex_lock(&j->env->rel_mu);
  j->destroyed = true;
  WGPUCommandBuffer *after = j->after;
  uint32_t n = j->nafter;
  j->after = NULL;
  j->nafter = j->cap_after = 0;
  pthread_mutex_unlock(&j->env->rel_mu);
  for (uint32_t i = 0; i < n; i++) w->CommandBufferRelease(after[i]);
  free(after);
}

static void *async_release_main(void *arg) {
  async_release *j = arg;
  const ul__wgpu *w = &j->env->lib.procs; /* no fault is injected into a teardown */
  teardown_begin(j->env, &j->td, !j->hung, j->wait_ns);
  if (j->device) w->DeviceDestroy(j->device);
  release_after(j, w);
  if (j->device) {
    w->DeviceRelease(j->device);
    ul__ctx_run_release_hooks(j->ctx);
  }
  if (j->adapter) w->AdapterRelease(j->adapter);
  teardown_end(j->env, &j->td);
  ul__ctx_unref(j->ctx);
  ul_env *env = j->env;
  pthread_mutex_lock(&env->rel_mu);
  j->done = true;
  pthread_cond_broadcast(&env->rel_cv);
  pthread_mutex_unlock(&env->rel_mu);
  return NULL;
}

/* Joins and frees the background releases that ended: none of their
 * threads outlives the device that waited for them. */
static void reap_releases(ul_env *env) {
  async_release *ended = NULL;
  pthread_mutex_lock(&env->rel_mu);
  for (async_release **l = &env->async_jobs; *l;) {
    async_release *j = *l;
    if (j->done) {
      *l = j->next;
      j->next = ended;
      ended = j;
    } else {
      l = &j->next;
    }
  }
  pthread_mutex_unlock(&env->rel_mu);
  while (ended) {
    async_release *next = ended->next;
    pthread_join(ended->thread, NULL);
    free(ended);
    ended = next;
  }
}

static void release_in_background(ul_device *d, ul__native *n, async_release *j, bool here);

void ul__native_release_async(ul_device *d, ul__native *n) {
  ul_env *env = d->env;
  reap_releases(env);
  if (env->chaos && n->device) ul__chaos_forget_device(env->chaos, n->device);
  /* A kept mapping needs its device held, and a device whose calls the
   * implementation does not serialize must not be torn down beside the
   * program's releases of its objects: the synchronous path. */
  async_release *j = d->maps_kept || !n->synchronized ? NULL : calloc(1, sizeof *j);
  if (!j) {
    ul__native_release(d, n);
    return;
  }
  ul__prefills_free(&d->env->lib.procs, &n->prefills);
  if (n->queue) d->wgpu->QueueRelease(n->queue);
  n->queue = NULL;
  release_in_background(d, n, j, false);
}

/* Lets go of `n` (its queue already released) on a thread of its own, job
 * `j` (malloc'd), or here when `here` (j is the caller's). */
static void release_in_background(ul_device *d, ul__native *n, async_release *j, bool here) {
  ul_env *env = d->env;
  if (n->ctx) {
    pthread_mutex_lock(&ul__lost_mu);
    n->ctx->owner = NULL;
    pthread_mutex_unlock(&ul__lost_mu);
  }
  j->env = env;
  j->wait_ns = ul__device_release_deadline_ns(d);
  j->hung = n->hung;
  j->device = n->device;
  j->adapter = n->adapter;
  j->ctx = n->ctx;
  memset(n, 0, sizeof *n);
  if (here) {
    async_release_main(j);
    return;
  }
  pthread_mutex_lock(&env->rel_mu);
  bool started = pthread_create(&j->thread, NULL, async_release_main, j) == 0;
  if (started) {
    j->next = env->async_jobs;
    env->async_jobs = j;
  }
  pthread_mutex_unlock(&env->rel_mu);
  if (!started) { /* no thread to spare: here, as before */
    async_release_main(j);
    free(j);
  }
}

void ul__native_cmdbuf_release(ul_device *d, WGPUCommandBuffer cb, WGPUDevice on) {
  if (!cb) return;
  if (on && on != d->device) {
    /* Of a lost device: Dawn's destroy of a device frees what its command
     * buffers hold without regard to a release of one beside it, so one
     * whose device is still being destroyed in the background goes after
     * that destroy, on its thread. */
    ul_env *env = d->env;
    pthread_mutex_lock(&env->rel_mu);
    for (async_release *j = env->async_jobs; j; j = j->next) {
      if (j->device != on || j->destroyed) continue;
      WGPUCommandBuffer *grown = ul__grow(j->after, j->nafter, &j->cap_after, sizeof *j->after, 8);
      bool kept = grown != NULL;
      if (kept) {
        j->after = grown;
        j->after[j->nafter++] = cb;
      }
      pthread_mutex_unlock(&env->rel_mu);
      /* No memory to hand it over: kept for good (a release now could
       * corrupt the implementation's heap). */
      if (!kept) ul__log(UL__LOG_WARN, "device '%s': a command buffer of a lost device was not released (no host "
                                       "memory)", d->label);
      return;
    }
    pthread_mutex_unlock(&env->rel_mu);
  }
  d->wgpu->CommandBufferRelease(cb);
}

static bool any_running_locked(ul_env *env) {
  for (async_release *j = env->async_jobs; j; j = j->next)
    if (!j->done) return true;
  return false;
}

void ul__native_releases_wait(ul_device *d) {
  ul_env *env = d->env;
  struct timespec until = ul__deadline(CLOCK_REALTIME, ul__device_release_deadline_ns(d));
  pthread_mutex_lock(&env->rel_mu);
  while (any_running_locked(env) && pthread_cond_timedwait(&env->rel_cv, &env->rel_mu, &until) == 0) {
  }
  unsigned left = 0;
  for (async_release *j = env->async_jobs; j; j = j->next) {
    if (j->done || j->abandoned) continue;
    j->abandoned = true; /* counted once */
    left++;
  }
  pthread_mutex_unlock(&env->rel_mu);
  reap_releases(env);
  if (left) {
    /* Still inside the implementation: the env must not unload it. */
    atomic_fetch_add(&env->abandoned_devices, left);
    ul__log(UL__LOG_WARN, "device '%s': %u lost device(s) still being released after %.1f s", d->label, left,
            (double)ul__device_release_deadline_ns(d) / 1e9);
  }
}

/* Requests an adapter (the fallback one when asked) and a device for epoch
 * `epoch`, through table `w`; on failure nothing is held. A build through
 * table `w`; a standby's (through the implementation's own
 * table) is not the fault schedule's target and its loss is not the
 * device's until it is taken. */
ul_status ul__native_build_on(ul_device *d, const ul__wgpu *w, bool standby, bool fallback, uint64_t epoch,
                              ul__native *n) {
  ul_env *env = d->env;
  memset(n, 0, sizeof *n);
  uint32_t power = d->desc.power == UL_POWER_LOW_POWER ? WGPUPowerPreference_LowPower
                                                       : WGPUPowerPreference_HighPerformance;
  n->instance = env->instance;
  uint64_t t0 = ul__now_ns();
  /* Not while a lost device is being torn down in the background. */
  build_begin(env, ul__device_release_deadline_ns(d));
  ul_status s = ul__request_adapter_with(env, w, n->instance, power, fallback, ul__request_timeout_ns(d),
                                         &n->adapter);
  if (s && fallback) {
    /* No fallback adapter of the implementation's own: the CPU driver. */
    char first[256];
    snprintf(first, sizeof first, "%s", ul_last_error());
    n->instance = ul__env_cpu_instance(env);
    if (!n->instance) {
      build_end(env); /* a build that never ends holds up every teardown */
      return ul__fail(s, "%s; no CPU Vulkan driver (lavapipe) found", first);
    }
    s = ul__request_adapter_with(env, w, n->instance, power, false, ul__request_timeout_ns(d), &n->adapter);
  }
  n->adapter_ns = ul__now_ns() - t0;
  build_end(env);
  if (s) return s;
  s = ul__adapter_describe_with(w, n->adapter, &n->info);
  if (s) goto fail;
  if (fallback && n->info.type != UL_ADAPTER_CPU) {
    s = ul__fail(UL_ERR_NO_ADAPTER, "the fallback request gave '%s', not a CPU adapter",
                 n->info.name);
    goto fail;
  }
  n->info.is_fallback = fallback;
  if (n->info.backend == UL_BACKEND_NULL && !env->allow_null_backend) {
    s = ul__fail(UL_ERR_NO_ADAPTER,
                 "only Dawn's Null backend is available, which computes nothing; install "
                 "a Vulkan driver (on Debian 12: mesa-vulkan-drivers from bookworm-backports, "
                 "see `make deps`) or set ul_env_desc.allow_null_backend");
    goto fail;
  }
  WGPULimits adapter_limits;
  memset(&adapter_limits, 0, sizeof adapter_limits);
  if (w->AdapterGetLimits(n->adapter, &adapter_limits) != WGPUStatus_Success) {
    s = ul__fail(UL_ERR_INTERNAL, "wgpuAdapterGetLimits failed");
    goto fail;
  }
  WGPULimits required;
  s = ul__limits_required(&d->desc.required_limits, &adapter_limits, &required);
  if (s) goto fail;

  n->ctx = calloc(1, sizeof *n->ctx);
  if (!n->ctx) {
    s = ul__fail(UL_ERR_OUT_OF_MEMORY, "out of host memory");
    goto fail;
  }
  atomic_store(&n->ctx->refs, 2); /* ours, and the lost callback's */
  n->ctx->owner = d;
  n->ctx->epoch = epoch;
  n->ctx->standby = standby;

  WGPUDeviceDescriptor dd = {0};
  /* Staging buffers mapped at creation are always written before use:
   * Dawn need not zero them first (this halves the cost of a restore). */
#if !UL_WGPU_STABLE /* Dawn's toggles and cache: chained only when built on its header */
  static const char *const toggles[] = {"disable_lazy_clear_for_mapped_at_creation_buffer"};
  WGPUDawnTogglesDescriptor td = {{NULL, WGPUSType_DawnTogglesDescriptor}, 1, toggles, 0, NULL};
  WGPUDawnCacheDeviceDescriptor cd;
  if (env->lib.procs.DeviceForceLoss) { /* Dawn's own entry point: it is Dawn */
    dd.nextInChain = &td.chain;
    /* Not on the CPU adapter: lavapipe keeps compiled shaders in Mesa's own
     * disk cache, and a pipeline cache handed to it makes Mesa use a
     * thread-local of its driver that LeakSanitizer's exit scan crashes on
     * once the driver is unloaded (test_forensics under ASan). */
    if (env->blobs && (n->info.type != UL_ADAPTER_CPU || env->blobs_on_cpu)) {
      ul__blob_cache_chain(env->blobs, &cd, dd.nextInChain);
      dd.nextInChain = &cd.chain;
    }
  }
#endif
  /* Dawn serializes the calls on a device when asked: its teardown can then
   * run beside the program's calls (ul__native_release_async). Asked
   * through the real table, so that fault schedules count the same calls. */
  const ul__wgpu *raw = &env->lib.procs;
  const ul__device_req *req = d->req;
  uint32_t nreq = req ? req->feature_count : 0;
  uint32_t stack[16], *features = nreq + 2 <= 16 ? stack : malloc(sizeof *features * (nreq + 2));
  if (!features) {
    s = ul__fail(UL_ERR_OUT_OF_MEMORY, "out of host memory");
    goto fail;
  }
  for (uint32_t i = 0; i < nreq; i++) features[dd.requiredFeatureCount++] = req->features[i];
  /* On the CPU adapter, unlost.h's large buffers live in host memory that
   * outlives the device (res/backing.c): Dawn's buffers over host memory,
   * a feature its toggle allow_unsafe_apis guards. Not on libunlost-webgpu's
   * devices, whose features and validation are the program's. */
  bool backing = !req && n->info.type == UL_ADAPTER_CPU && raw->DeviceForceLoss &&
                 ul__opt_number(UL__OPT_HOST_BACKING) == 1;
#if UL_WGPU_STABLE
  backing = false; /* Dawn's feature, not in the stable header */
#else
  if (backing) features[dd.requiredFeatureCount++] = WGPUFeatureName_HostMappedPointer;
  if (raw->DeviceForceLoss && raw->AdapterHasFeature &&
      raw->AdapterHasFeature(n->adapter, WGPUFeatureName_ImplicitDeviceSynchronization)) {
    bool asked = false;
    for (uint32_t i = 0; i < nreq; i++) asked |= req->features[i] == WGPUFeatureName_ImplicitDeviceSynchronization;
    if (!asked) features[dd.requiredFeatureCount++] = WGPUFeatureName_ImplicitDeviceSynchronization;
    n->synchronized = true;
  }
#endif
  if (dd.requiredFeatureCount) dd.requiredFeatures = features;
  dd.label = ul__sv(d->label);
  dd.requiredLimits = &required;
  if (req && req->has_limits) {
    required = req->limits;
    required.nextInChain = NULL;
  }
  const char *en_stack[8], **enabled = en_stack;
#if !UL_WGPU_STABLE
  /* The program's toggles beside unlost's own. */
  uint32_t nen = 1 + (req ? req->enabled_count : 0) + (backing ? 1 : 0);
  if (nen > 8 && !(enabled = malloc(sizeof *enabled * nen))) {
    if (features != stack) free(features);
    s = ul__fail(UL_ERR_OUT_OF_MEMORY, "out of host memory");
    goto fail;
  }
  enabled[0] = toggles[0];
  for (uint32_t i = 1; i < nen - (backing ? 1 : 0); i++) enabled[i] = req->enabled[i - 1];
  if (backing) enabled[nen - 1] = "allow_unsafe_apis";
  td.enabledToggles = enabled;
  td.enabledToggleCount = nen;
  if (req && req->disabled_count) {
    td.disabledToggles = (const char *const *)req->disabled;
    td.disabledToggleCount = req->disabled_count;
  }
#endif
  dd.deviceLostCallbackInfo.mode = WGPUCallbackMode_AllowSpontaneous;
  dd.deviceLostCallbackInfo.callback = ul__on_device_lost;
  dd.deviceLostCallbackInfo.userdata1 = n->ctx;
  dd.uncapturedErrorCallbackInfo.callback = ul__on_uncaptured_error;
  dd.uncapturedErrorCallbackInfo.userdata1 = n->ctx;
  /* standby-fail: the standby's request refused (it asks through the real
   * table, which no other request fault reaches). */
  WGPULimits refused;
  if (standby && ul__chaos_standby_fails(env->chaos)) {
    ul__chaos_refused_limits(&refused);
    dd.requiredLimits = &refused;
  }
  uint64_t delay_ms = standby ? ul__chaos_standby_delay_ms(env->chaos) : 0;
  if (delay_ms) ul__sleep_ns(delay_ms * 1000000ull); /* standby-delay: a slow standby */
  build_begin(env, ul__device_release_deadline_ns(d));
  s = ul__request_device_with(env, w, n->instance, n->adapter, &dd, ul__request_timeout_ns(d), &n->device);
  if (s && backing && (strstr(ul_last_error(), "host-mapped") || strstr(ul_last_error(), "allow_unsafe_apis"))) {
    /* An implementation without the feature: the device without it. */
    ul__log(UL__LOG_INFO, "device '%s': no buffers over host memory (%s)", d->label, ul_last_error());
    dd.requiredFeatureCount--;
#if !UL_WGPU_STABLE
    td.enabledToggleCount--;
#endif
    backing = false;
    s = ul__request_device_with(env, w, n->instance, n->adapter, &dd, ul__request_timeout_ns(d), &n->device);
  }
  build_end(env);
  n->host_mapped = backing && !s;
  if (features != stack) free(features);
  if (enabled != en_stack) free(enabled);
  if (s) {
    /* No device: its lost callback was either never registered or has
     * already fired with FailedCreation and dropped its reference. */
    if (atomic_load(&n->ctx->refs) == 2) atomic_fetch_sub(&n->ctx->refs, 1);
    goto fail;
  }
  /* Faults of a fault schedule go to the device being built from here on,
   * so that a loss during recovery hits the device that recovery uses. */
  if (env->chaos && !standby) ul__chaos_set_device(env->chaos, n->device);
  n->queue = w->DeviceGetQueue(n->device);
  memset(&n->limits, 0, sizeof n->limits);
  if (w->DeviceGetLimits(n->device, &n->limits) != WGPUStatus_Success) {
    s = ul__fail(UL_ERR_INTERNAL, "wgpuDeviceGetLimits failed");
    goto fail;
  }
  return UL_OK;
fail:
  if (standby) ul__standby_release(d, n);
  else ul__native_release(d, n);
  return s;
}

ul_status ul__native_build(ul_device *d, bool fallback, uint64_t epoch, ul__native *n) {
  return ul__native_build_on(d, d->wgpu, false, fallback, epoch, n);
}

/* Makes `n` the device's current native device (epoch already chosen). */
void ul__native_adopt(ul_device *d, ul__native *n, uint64_t epoch) {
#define UL__TAKE(m) d->m = n->m;
  UL__NATIVE_SHARED(UL__TAKE)
#undef UL__TAKE
  pthread_mutex_lock(&ul__lost_mu);
  d->native_ctx = n->ctx;
  if (n->ctx) n->ctx->epoch = epoch;
  d->epoch = epoch;
  /* The device's loss state is that of the native device it now uses: a
   * loss of the new device before this point is kept, never cleared. */
  if (n->ctx && n->ctx->lost) ul__loss_take_locked(d, n->ctx);
  else atomic_store(&d->lost, false);
  pthread_mutex_unlock(&ul__lost_mu);
  d->on_fallback = n->info.is_fallback;
#if !UL_WGPU_STABLE
  if (d->logging.callback && d->wgpu->DeviceSetLoggingCallback) d->wgpu->DeviceSetLoggingCallback(d->device, d->logging);
#endif
  /* Buffers made ahead are for the device they were made on. */
  ul__prefills_drop(d);
  d->prefills = n->prefills;
  n->prefills = NULL;
  d->hung = false;
  if (d->env->chaos) ul__chaos_set_device(d->env->chaos, n->device);
}

void ul__native_current(ul_device *d, ul__native *n) {
#define UL__GIVE(m) n->m = d->m;
  UL__NATIVE_SHARED(UL__GIVE)
#undef UL__GIVE
  n->ctx = d->native_ctx;
  n->prefills = NULL; /* they stay the device's (ul__prefills_drop) */
  n->hung = d->hung;
}

/* Releases a standby native device through the implementation's table:
 * its objects (none) and the device, in the background where it may be. */
void ul__standby_release(ul_device *d, ul__native *n) {
  const ul__wgpu *raw = &d->env->lib.procs;
  ul__prefills_free(raw, &n->prefills);
  if (n->queue) raw->QueueRelease(n->queue);
  n->queue = NULL;
  async_release *j = n->synchronized ? calloc(1, sizeof *j) : NULL;
  if (j) {
    release_in_background(d, n, j, false);
    return;
  }
  async_release here; /* a teardown like any other, here */
  memset(&here, 0, sizeof here);
  release_in_background(d, n, &here, true);
}
