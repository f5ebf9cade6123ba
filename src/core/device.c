/* ul_device: the native device, its loss, and recovery.
 *
 * The lost callback only records the loss. Recovery runs on the next call
 * into the device (ul__device_enter) or on ul_device_recover(), never inside
 * a WebGPU callback: a new adapter and device with bounded retries and
 * exponential back-off with jitter, then the fallback adapter, then FAILED. */
#include "core/adapter.h"
#include "core/core.h"
#include "chaos/chaos.h"
#include "recover/recover.h"
#include "res/res.h"

#include <errno.h>
#include <math.h>
#include <time.h>

/* ---- loss records ------------------------------------------------------------
 * Each native device gets a context for its callbacks. The device and the
 * lost callback each hold a reference; the last one frees it. g_lost_mu
 * guards `owner` and the loss fields of every ul_device. */
typedef struct ul__native_ctx {
  _Atomic int refs;
  ul_device *owner; /* NULL once the ul_device let go of this native device */
  uint64_t epoch;
  /* The loss of this native device, recorded whether or not it is the
   * device's current one yet: a device lost while recovery builds it is
   * lost when it is adopted (no loss is ever dropped). */
  bool lost;
  uint32_t lost_reason;
  uint64_t lost_at_ns;
  char lost_message[256];
} ul__native_ctx;

static pthread_mutex_t g_lost_mu = PTHREAD_MUTEX_INITIALIZER;

static void ctx_unref(ul__native_ctx *c) {
  if (c && atomic_fetch_sub(&c->refs, 1) == 1) free(c);
}

/* Records the loss of native device `c` once (under g_lost_mu); it is the
 * device's at once when `c` is current, else when it is adopted. */
static void loss_take_locked(ul_device *d, const ul__native_ctx *c);
static void loss_record_locked(ul_device *d, ul__native_ctx *c, uint32_t reason, const char *message) {
  if (c->lost) return;
  c->lost = true;
  c->lost_reason = reason;
  c->lost_at_ns = ul__now_ns();
  snprintf(c->lost_message, sizeof c->lost_message, "%s", message);
  d->losses_total++;
  if (d->native_ctx == c) loss_take_locked(d, c);
}

/* Makes the loss recorded in `c` the device's (under g_lost_mu). */
static void loss_take_locked(ul_device *d, const ul__native_ctx *c) {
  d->lost_reason = c->lost_reason;
  d->lost_at_ns = c->lost_at_ns;
  snprintf(d->lost_message, sizeof d->lost_message, "%s", c->lost_message);
  atomic_store(&d->lost, true);
}

static void on_device_lost(WGPUDevice const *device, uint32_t reason, WGPUStringView message,
                           void *u1, void *u2) {
  UL__UNUSED(device);
  UL__UNUSED(u2);
  ul__native_ctx *c = u1;
  char msg[256];
  ul__sv_copy(message, msg, sizeof msg);
  pthread_mutex_lock(&g_lost_mu);
  ul_device *d = c->owner;
  /* CallbackCancelled: the instance went away; Destroyed with no owner: our
   * own release. Neither is a loss to recover from. */
  if (d && !d->destroying && reason != WGPUDeviceLostReason_CallbackCancelled)
    loss_record_locked(d, c, reason, msg);
  pthread_mutex_unlock(&g_lost_mu);
  ctx_unref(c);
}

static void on_uncaptured_error(WGPUDevice const *device, uint32_t type, WGPUStringView message,
                                void *u1, void *u2) {
  UL__UNUSED(device);
  UL__UNUSED(u2);
  ul__native_ctx *c = u1;
  char msg[256];
  ul__sv_copy(message, msg, sizeof msg);
  pthread_mutex_lock(&g_lost_mu);
  ul_device *d = c->owner;
  if (d) {
    snprintf(d->uncaptured_message, sizeof d->uncaptured_message, "%s", msg);
    for (char *p = d->uncaptured_message; *p; p++)
      if (*p == '\n' || *p == '\r') *p = ' ';
    atomic_fetch_add(&d->uncaptured_errors, 1);
    ul__device_health_error(d, type == WGPUErrorType_OutOfMemory ? UL_ERR_OUT_OF_MEMORY
                               : type == WGPUErrorType_Validation ? UL_ERR_VALIDATION
                                                                  : UL_ERR_INTERNAL,
                            true);
  }
  pthread_mutex_unlock(&g_lost_mu);
  ul__log(UL__LOG_WARN, "uncaptured WebGPU error (type %u): %s", type, msg);
}

bool ul__device_loss_pending(ul_device *d) { return atomic_load(&d->lost); }

bool ul__device_uncaptured_since(ul_device *d, uint64_t mark, char *msg, size_t cap) {
  if (atomic_load(&d->uncaptured_errors) == mark) return false;
  pthread_mutex_lock(&g_lost_mu);
  snprintf(msg, cap, "%s", d->uncaptured_message);
  pthread_mutex_unlock(&g_lost_mu);
  return true;
}

void ul__device_note_loss(ul_device *d, const char *message) {
  pthread_mutex_lock(&g_lost_mu);
  if (d->native_ctx)
    loss_record_locked(d, d->native_ctx, WGPUDeviceLostReason_Unknown, message ? message : "device lost");
  pthread_mutex_unlock(&g_lost_mu);
}

void ul__lost_lock(void) { pthread_mutex_lock(&g_lost_mu); }
void ul__lost_unlock(void) { pthread_mutex_unlock(&g_lost_mu); }

ul__native_ctx *ul__native_ctx_ref(ul_device *d) {
  ul__native_ctx *c = d->native_ctx;
  if (c) atomic_fetch_add(&c->refs, 1);
  return c;
}
void ul__native_ctx_unref(ul__native_ctx *c) { ctx_unref(c); }
/* Under ul__lost_lock. */
ul_device *ul__native_ctx_owner(ul__native_ctx *c, uint64_t *epoch) {
  *epoch = c->epoch;
  return c->owner;
}

/* ---- events ------------------------------------------------------------------ */

static const char *const state_names[] = {"READY", "LOST", "RECOVERING", "FALLBACK", "FAILED"};
static const char *const event_names[] = {"lost", "recovering", "retry", "recovered",
                                          "fallback", "failed", "health"};

const char *ul_device_state_name(ul_device_state s) {
  return (unsigned)s < UL__COUNT_OF(state_names) ? state_names[s] : "UNKNOWN";
}
const char *ul_event_kind_name(ul_event_kind k) {
  return (unsigned)k < UL__COUNT_OF(event_names) ? event_names[k] : "unknown";
}

static double since_loss_ms(ul_device *d) {
  if (!d->lost_at_ns) return 0;
  return (double)(ul__now_ns() - d->lost_at_ns) / 1e6;
}

void ul__device_emit(ul_device *d, ul_event_kind kind, uint32_t attempt, double delay_ms,
                     const char *message) {
  if (!d->desc.listener && kind != UL_EVENT_FAILED) return;
  if (d->pending_count == UL__MAX_PENDING_EVENTS) {
    memmove(d->pending, d->pending + 1, sizeof d->pending[0] * (UL__MAX_PENDING_EVENTS - 1));
    d->pending_count--;
  }
  ul__pending_event *p = &d->pending[d->pending_count++];
  memset(p, 0, sizeof *p);
  p->ev.kind = kind;
  p->ev.state = (ul_device_state)atomic_load(&d->state);
  p->ev.epoch = d->epoch;
  p->ev.attempt = attempt;
  p->ev.since_loss_ms = since_loss_ms(d);
  p->ev.delay_ms = delay_ms;
  snprintf(p->message, sizeof p->message, "%s", message ? message : "");
}

void ul__device_lock(ul_device *d) { pthread_mutex_lock(&d->mu); }

void ul__device_unlock(ul_device *d) {
  if (d->hev_count) ul__device_health_events(d);
  int n = d->pending_count;
  if (n == 0) {
    pthread_mutex_unlock(&d->mu);
    return;
  }
  ul__pending_event evs[UL__MAX_PENDING_EVENTS];
  memcpy(evs, d->pending, sizeof evs[0] * (size_t)n);
  d->pending_count = 0;
  ul_listener_fn listener = d->desc.listener;
  void *lu = d->desc.listener_user;
  ul_failed_fn failed = d->desc.on_failed;
  void *fu = d->desc.on_failed_user;
  pthread_mutex_unlock(&d->mu);
  for (int i = 0; i < n; i++) {
    evs[i].ev.message = evs[i].message;
    if (evs[i].ev.kind == UL_EVENT_HEALTH) evs[i].ev.health = (ul_health_state)evs[i].ev.attempt;
    if (listener) listener(d, &evs[i].ev, lu);
    if (evs[i].ev.kind == UL_EVENT_FAILED && failed) failed(d, evs[i].message, fu);
  }
}

/* ---- building a native device ----------------------------------------------- */

static uint64_t request_timeout_ns(const ul_device *d) {
  uint32_t ms = d->desc.recovery.request_timeout_ms ? d->desc.recovery.request_timeout_ms : 10000;
  return (uint64_t)ms * 1000000ull;
}

typedef struct ul__native {
  WGPUInstance instance;
  WGPUAdapter adapter;
  WGPUDevice device;
  WGPUQueue queue;
  WGPULimits limits;
  ul_adapter_info info;
  ul__native_ctx *ctx;
} ul__native;

static bool keep_device(ul_device *d, WGPUDevice dev) {
  if (d->kept_count == d->kept_cap) {
    uint32_t cap = d->kept_cap ? d->kept_cap * 2 : 4;
    WGPUDevice *k = ul__realloc(d->kept_devices, cap * sizeof *k);
    if (!k) return false; /* the mapping ends with the device: unmap cannot copy it */
    d->kept_devices = k;
    d->kept_cap = cap;
  }
  d->kept_devices[d->kept_count++] = dev;
  return true;
}

void ul__device_release_kept(ul_device *d) {
  for (uint32_t i = 0; i < d->kept_count; i++) {
    d->wgpu->DeviceDestroy(d->kept_devices[i]);
    d->wgpu->DeviceRelease(d->kept_devices[i]);
  }
  d->kept_count = 0;
  free(d->kept_devices);
  d->kept_devices = NULL;
  d->kept_cap = 0;
}

/* Destroying a device waits for its queue: work that never ends (an
 * endless loop in a kernel, a hung driver) would block the caller for good.
 * The release runs on a thread of its own; after the deadline the caller
 * goes on and the thread is left with the device (its memory is lost to
 * the process, which is better than a process that never returns). */
typedef struct release_job {
  const ul__wgpu *w;
  WGPUDevice device;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  bool done, abandoned;
} release_job;

static void *release_main(void *arg) {
  release_job *j = arg;
  j->w->DeviceDestroy(j->device);
  j->w->DeviceRelease(j->device);
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

static uint64_t release_deadline_ns(const ul_device *d) {
  uint64_t deadline_ms = d->desc.health.submit_deadline_ms ? d->desc.health.submit_deadline_ms : 2000;
  return UL__MAX(2 * deadline_ms, 2000) * 1000000ull;
}

static bool release_device_bounded(ul_device *d, WGPUDevice dev) {
  release_job *j = calloc(1, sizeof *j);
  pthread_t t;
  if (j) {
    j->w = d->wgpu;
    j->device = dev;
    pthread_mutex_init(&j->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&j->cv, &ca);
    pthread_condattr_destroy(&ca);
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
  struct timespec until;
  clock_gettime(CLOCK_MONOTONIC, &until);
  uint64_t ns = (uint64_t)until.tv_nsec + release_deadline_ns(d);
  until.tv_sec += (time_t)(ns / 1000000000ull);
  until.tv_nsec = (long)(ns % 1000000000ull);
  pthread_mutex_lock(&j->mu);
  while (!j->done && pthread_cond_timedwait(&j->cv, &j->mu, &until) == 0) {
  }
  bool done = j->done;
  if (!done) j->abandoned = true;
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

static void native_release(ul_device *d, ul__native *n) {
  const ul__wgpu *w = d->wgpu;
  /* Chaos must not inject into a device being released. */
  if (d->env->chaos && n->device) ul__chaos_forget_device(d->env->chaos, n->device);
  if (n->ctx) {
    pthread_mutex_lock(&g_lost_mu);
    n->ctx->owner = NULL;
    pthread_mutex_unlock(&g_lost_mu);
  }
  if (n->queue) w->QueueRelease(n->queue);
  if (n->device) {
    /* A buffer keeps a mapping made on a lost device: hold the device
     * (its last release would free the mapped memory) until none is kept. */
    if (ul__res_keeps_mappings(d) && keep_device(d, n->device)) n->device = NULL;
    if (n->device && !release_device_bounded(d, n->device))
      ul__log(UL__LOG_WARN, "device '%s': the implementation did not release a device within %.1f s (work that "
              "never ends, e.g. an endless loop in a kernel); it was abandoned to a background thread", d->label,
              (double)release_deadline_ns(d) / 1e9);
  }
  if (n->adapter) w->AdapterRelease(n->adapter);
  ctx_unref(n->ctx); /* the ul_device's reference */
  memset(n, 0, sizeof *n);
}

/* Requests an adapter (the fallback one when asked) and a device for epoch
 * `epoch`. On failure nothing is held. */
static ul_status native_build(ul_device *d, bool fallback, uint64_t epoch, ul__native *n) {
  ul_env *env = d->env;
  const ul__wgpu *w = d->wgpu;
  memset(n, 0, sizeof *n);
  uint32_t power = d->desc.power == UL_POWER_LOW_POWER ? WGPUPowerPreference_LowPower
                                                       : WGPUPowerPreference_HighPerformance;
  n->instance = env->instance;
  ul_status s = ul__request_adapter(env, n->instance, power, fallback, request_timeout_ns(d),
                                    &n->adapter);
  if (s && fallback) {
    /* No fallback adapter of the implementation's own: the CPU driver. */
    char first[256];
    snprintf(first, sizeof first, "%s", ul_last_error());
    n->instance = ul__env_cpu_instance(env);
    if (!n->instance) return ul__fail(s, "%s; no CPU Vulkan driver (lavapipe) found", first);
    s = ul__request_adapter(env, n->instance, power, false, request_timeout_ns(d), &n->adapter);
  }
  if (s) return s;
  s = ul__adapter_describe(env, n->adapter, &n->info);
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

  WGPUDeviceDescriptor dd = {0};
  /* Staging buffers mapped at creation are always written before use:
   * Dawn need not zero them first (this halves the cost of a restore). */
  static const char *const toggles[] = {"disable_lazy_clear_for_mapped_at_creation_buffer"};
  WGPUDawnTogglesDescriptor td = {{NULL, WGPUSType_DawnTogglesDescriptor}, 1, toggles, 0, NULL};
  if (env->lib.procs.DeviceForceLoss) dd.nextInChain = &td.chain; /* Dawn's own entry point: it is Dawn */
  dd.label = ul__sv(d->label);
  dd.requiredLimits = &required;
  dd.deviceLostCallbackInfo.mode = WGPUCallbackMode_AllowSpontaneous;
  dd.deviceLostCallbackInfo.callback = on_device_lost;
  dd.deviceLostCallbackInfo.userdata1 = n->ctx;
  dd.uncapturedErrorCallbackInfo.callback = on_uncaptured_error;
  dd.uncapturedErrorCallbackInfo.userdata1 = n->ctx;
  s = ul__request_device(env, n->instance, n->adapter, &dd, request_timeout_ns(d), &n->device);
  if (s) {
    /* No device: its lost callback was either never registered or has
     * already fired with FailedCreation and dropped its reference. */
    if (atomic_load(&n->ctx->refs) == 2) atomic_fetch_sub(&n->ctx->refs, 1);
    goto fail;
  }
  /* Faults of a fault schedule go to the device being built from here on,
   * so that a loss during recovery hits the device that recovery uses. */
  if (env->chaos) ul__chaos_set_device(env->chaos, n->device);
  n->queue = w->DeviceGetQueue(n->device);
  memset(&n->limits, 0, sizeof n->limits);
  if (w->DeviceGetLimits(n->device, &n->limits) != WGPUStatus_Success) {
    s = ul__fail(UL_ERR_INTERNAL, "wgpuDeviceGetLimits failed");
    goto fail;
  }
  return UL_OK;
fail:
  native_release(d, n);
  return s;
}

/* Makes `n` the device's current native device (epoch already chosen). */
static void native_adopt(ul_device *d, ul__native *n, uint64_t epoch) {
  d->instance = n->instance;
  d->adapter = n->adapter;
  d->device = n->device;
  d->queue = n->queue;
  d->limits = n->limits;
  d->info = n->info;
  pthread_mutex_lock(&g_lost_mu);
  d->native_ctx = n->ctx;
  if (n->ctx) n->ctx->epoch = epoch;
  d->epoch = epoch;
  /* The device's loss state is that of the native device it now uses: a
   * loss of the new device before this point is kept, never cleared. */
  if (n->ctx && n->ctx->lost) loss_take_locked(d, n->ctx);
  else atomic_store(&d->lost, false);
  pthread_mutex_unlock(&g_lost_mu);
  d->on_fallback = n->info.is_fallback;
  if (d->env->chaos) ul__chaos_set_device(d->env->chaos, n->device);
}

static void native_current(ul_device *d, ul__native *n) {
  n->instance = d->instance;
  n->adapter = d->adapter;
  n->device = d->device;
  n->queue = d->queue;
  n->limits = d->limits;
  n->info = d->info;
  n->ctx = d->native_ctx;
}

/* ---- recovery ------------------------------------------------------------------ */

static uint64_t backoff_ns(ul_device *d, uint32_t attempt) {
  const ul_recovery_config *rc = &d->desc.recovery;
  double initial = rc->backoff_initial_ms ? rc->backoff_initial_ms : 50;
  double maxms = rc->backoff_max_ms ? rc->backoff_max_ms : 2000;
  double jitter = rc->jitter == 0 ? 0.2 : (rc->jitter < 0 ? 0 : rc->jitter);
  if (jitter > 1) jitter = 1;
  double ms = initial * ldexp(1.0, (int)UL__MIN(attempt - 1, 30u));
  if (ms > maxms) ms = maxms;
  double u = (double)(ul__splitmix64(&d->rng) >> 11) / 9007199254740992.0; /* [0,1) */
  ms *= 1.0 + jitter * (2.0 * u - 1.0);
  return (uint64_t)(ms * 1e6);
}

/* Tries to replace the lost native device: on the preferred adapter with
 * retries, then on the fallback adapter. Under d->mu. */
typedef enum ul__target {
  UL__TO_ANY = 0,   /* after a loss: the preferred adapter with retries, then the fallback */
  UL__TO_PRIMARY,   /* move back from the fallback: one try, no change on failure */
  UL__TO_FALLBACK,  /* move off a BROKEN GPU: one try, no change on failure */
} ul__target;

static ul_status recover_attempts(ul_device *d, ul__target target);

/* Recovery may drop d->mu while a restore callback runs; meanwhile other
 * callers wait in ul__device_enter until it is over. */
static ul_status recover_locked(ul_device *d, ul__target target) {
  d->recovering = true;
  d->recovering_thread = pthread_self();
  if (d->env->chaos) ul__chaos_recovering(d->env->chaos, true);
  uint64_t t0 = ul__now_ns();
  ul_status s = recover_attempts(d, target);
  if (!s && target == UL__TO_ANY) ul__device_health_recovered(d, (double)(ul__now_ns() - t0) / 1e9);
  d->recovering = false;
  if (d->env->chaos) ul__chaos_recovering(d->env->chaos, false);
  pthread_cond_broadcast(&d->recovered);
  return s;
}

static ul_status recover_attempts(ul_device *d, ul__target target) {
  ul_device_state before = (ul_device_state)atomic_load(&d->state);
  atomic_store(&d->state, UL_DEVICE_RECOVERING);
  ul__device_emit(d, UL_EVENT_RECOVERING, 0, 0,
                  target == UL__TO_ANY ? d->lost_message
                  : target == UL__TO_PRIMARY ? "moving back to the preferred adapter"
                                             : "moving to the fallback adapter");
  const ul_recovery_config *rc = &d->desc.recovery;
  uint32_t retries = rc->max_retries == UL_RECOVERY_NO_RETRY ? 0
                     : rc->max_retries ? rc->max_retries : 5;
  bool only_fallback = d->desc.power == UL_POWER_FALLBACK_ONLY;
  ul__native old;
  native_current(d, &old);
  char why[512] = "";
  ul_status s = UL_ERR_NO_ADAPTER;

  for (int phase = 0; phase < 2; phase++) {
    bool fallback = phase == 1 || only_fallback;
    if (target == UL__TO_PRIMARY && phase == 1) break;
    if (target == UL__TO_FALLBACK && phase == 0) continue;
    if (target == UL__TO_ANY && phase == 1 && (only_fallback || rc->no_fallback)) break;
    uint32_t attempts = target == UL__TO_ANY && phase == 0 ? retries + 1 : 1;
    for (uint32_t a = 1; a <= attempts; a++) {
      ul__native n;
      /* Every attempt gets a fresh epoch, so objects rebuilt on a device
       * that was lost again mid-rebuild are never taken for current. */
      uint64_t epoch = ++d->epoch_seq;
      uint64_t tb = ul__now_ns();
      /* No lock across the request: other callers wait on `recovered` for
       * at most their recovery wait, and state, health and metrics answer. */
      pthread_mutex_unlock(&d->mu);
      s = native_build(d, fallback, epoch, &n);
      pthread_mutex_lock(&d->mu);
      ul__log(UL__LOG_INFO, "recovery of '%s': new adapter and device %.1f ms (%s)", d->label,
              (double)(ul__now_ns() - tb) / 1e6, s ? "failed" : "ok");
      if (!s) {
        /* Swap in the new device, then rebuild every live object on it. */
        native_adopt(d, &n, epoch);
        s = ul__recover_rebuild(d);
        if (!s && !atomic_load(&d->lost)) {
          native_release(d, &old);
          pthread_mutex_lock(&g_lost_mu); /* metrics read it under this lock */
          d->recoveries_total++;
          pthread_mutex_unlock(&g_lost_mu);
          ul_device_state st = fallback && !only_fallback ? UL_DEVICE_FALLBACK : UL_DEVICE_READY;
          atomic_store(&d->state, st);
          ul__device_emit(d, st == UL_DEVICE_FALLBACK ? UL_EVENT_FALLBACK : UL_EVENT_RECOVERED,
                          a, 0, d->info.name);
          return UL_OK;
        }
        /* Lost again while rebuilding: drop the new device and try again;
         * the next attempt rebuilds whatever is not of its epoch. */
        if (!s) s = ul__fail(UL_ERR_DEVICE_LOST, "lost again during rebuild");
        snprintf(why, sizeof why, "%s", ul_last_error());
        native_release(d, &n);
        if (target != UL__TO_ANY) {
          /* The old device still works: bring its objects back to it,
           * under a fresh epoch (some were rebuilt on the dropped one). */
          native_adopt(d, &old, ++d->epoch_seq);
          if (ul__recover_rebuild(d) && !atomic_load(&d->lost)) {
            /* The old device works but its objects could not be brought
             * back: recover it like a loss at the next call. */
            pthread_mutex_lock(&g_lost_mu);
            snprintf(d->lost_message, sizeof d->lost_message, "%s", "a failed move left objects unbuilt");
            d->lost_at_ns = ul__now_ns();
            d->lost_reason = WGPUDeviceLostReason_Unknown;
            atomic_store(&d->lost, true);
            pthread_mutex_unlock(&g_lost_mu);
          }
        } else {
          native_adopt(d, &old, epoch);
        }
      } else {
        snprintf(why, sizeof why, "%s", ul_last_error());
      }
      if (a < attempts) {
        uint64_t delay = backoff_ns(d, a);
        ul__device_emit(d, UL_EVENT_RETRY, a, (double)delay / 1e6, why);
        pthread_mutex_unlock(&d->mu);
        ul__sleep_ns(delay);
        pthread_mutex_lock(&d->mu);
      }
    }
  }
  if (target != UL__TO_ANY) {
    /* A failed move leaves the device where it was. */
    atomic_store(&d->state, atomic_load(&d->lost) ? UL_DEVICE_LOST : before);
    return ul__fail(s ? s : UL_ERR_NO_ADAPTER, "move to the %s adapter: %s",
                    target == UL__TO_PRIMARY ? "preferred" : "fallback", why);
  }
  atomic_store(&d->state, UL_DEVICE_FAILED);
  ul__device_emit(d, UL_EVENT_FAILED, retries + 1, 0, why);
  return ul__fail(UL_ERR_DEVICE_FAILED, "device '%s' could not be recovered: %s", d->label, why);
}

/* Processes a recorded loss (under d->mu). */
static ul_status handle_loss_locked(ul_device *d) {
  pthread_mutex_lock(&g_lost_mu);
  uint32_t reason = d->lost_reason;
  char msg[256];
  snprintf(msg, sizeof msg, "%s", d->lost_message);
  pthread_mutex_unlock(&g_lost_mu);
  atomic_store(&d->state, UL_DEVICE_LOST);
  ul__device_emit(d, UL_EVENT_LOST, 0, 0, msg);
  if (reason == WGPUDeviceLostReason_Destroyed) {
    /* The program destroyed the native device itself: not recovered. */
    atomic_store(&d->state, UL_DEVICE_FAILED);
    ul__device_emit(d, UL_EVENT_FAILED, 0, 0, "the native device was destroyed by the program");
    return ul__fail(UL_ERR_DEVICE_FAILED,
                    "device '%s' was destroyed by the program (%s); not recovered", d->label, msg);
  }
  ul__device_health_loss(d);
  if (d->moved_for_health && d->on_fallback) {
    /* The breaker moved the work off the GPU: recover on the fallback
     * again; the breaker's probes decide when to go back. */
    if (!recover_locked(d, UL__TO_FALLBACK)) return UL_OK;
  }
  return recover_locked(d, UL__TO_ANY);
}

ul_status ul__device_recover_locked(ul_device *d) {
  /* Called again from inside a recovery (a restore callback's own calls):
   * no nested rebuild; the outer recovery sees the loss and tries again. */
  if (d->recovering) {
    if (atomic_load(&d->lost))
      return ul__fail(UL_ERR_DEVICE_LOST, "device '%s' was lost again during recovery", d->label);
    return UL_OK;
  }
  if (atomic_load(&d->state) == UL_DEVICE_FAILED)
    return ul__fail(UL_ERR_DEVICE_FAILED, "device '%s' has failed for good", d->label);
  if (!atomic_load(&d->lost) && atomic_load(&d->state) != UL_DEVICE_LOST) return UL_OK;
  return handle_loss_locked(d);
}

bool ul__device_recovering_elsewhere(ul_device *d) {
  return d->recovering && !pthread_equal(d->recovering_thread, pthread_self());
}

ul_status ul__device_enter(ul_device *d) { return ul__device_enter_ex(d, true); }

ul_status ul__device_enter_ex(ul_device *d, bool gate) {
  pthread_mutex_lock(&d->mu);
  if (ul__device_recovering_elsewhere(d)) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    uint64_t ns = (uint64_t)until.tv_nsec + (uint64_t)d->recovery_wait_ms * 1000000ull;
    until.tv_sec += (time_t)(ns / 1000000000ull);
    until.tv_nsec = (long)(ns % 1000000000ull);
    while (ul__device_recovering_elsewhere(d)) {
      if (pthread_cond_timedwait(&d->recovered, &d->mu, &until) == ETIMEDOUT &&
          ul__device_recovering_elsewhere(d)) {
        ul__device_unlock(d);
        return ul__fail(UL_ERR_TIMEOUT, "device '%s' is still recovering after %u ms", d->label,
                        d->recovery_wait_ms);
      }
    }
  }
  if (atomic_load(&d->state) == UL_DEVICE_FAILED) {
    ul__device_unlock(d);
    return ul__fail(UL_ERR_DEVICE_FAILED, "device '%s' has failed for good", d->label);
  }
  if (d->recovering) {
    /* This thread is recovering (a restore callback calls in). */
    if (atomic_load(&d->lost)) {
      ul__device_unlock(d);
      return ul__fail(UL_ERR_DEVICE_LOST, "device '%s' was lost again during recovery", d->label);
    }
    return UL_OK;
  }
  if (atomic_load(&d->lost) || atomic_load(&d->state) == UL_DEVICE_LOST) {
    ul_status s = handle_loss_locked(d);
    if (s) {
      ul__device_unlock(d);
      return s;
    }
  }
  if (atomic_load(&d->state) == UL_DEVICE_FAILED) {
    ul__device_unlock(d);
    return ul__fail(UL_ERR_DEVICE_FAILED, "device '%s' has failed for good", d->label);
  }
  if (gate && d->health && !d->recovering) {
    ul_status s = ul__device_health_gate(d);
    if (s) {
      ul__device_unlock(d);
      return s;
    }
  }
  return UL_OK;
}

ul_status ul__device_move_locked(ul_device *d, bool to_fallback) {
  return recover_locked(d, to_fallback ? UL__TO_FALLBACK : UL__TO_PRIMARY);
}

/* ---- public -------------------------------------------------------------------- */

/* The health monitor's settings, each in a range that makes sense (zero
 * fields take their defaults): a NaN rate or a day-long window is a
 * mistake, not a configuration. */
static ul_status validate_health(const ul_health_config *h) {
  const uint32_t day_ms = 86400000u;
  if ((unsigned)h->on_broken > UL_BROKEN_FAIL_FAST)
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "on_broken %d is not a ul_broken_policy", (int)h->on_broken);
  if (!(h->fault_rate_broken >= 0.0f && h->fault_rate_broken <= 1.0f))
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "fault_rate_broken %g is not in [0, 1]", (double)h->fault_rate_broken);
  if (h->window_ms > day_ms || h->slow_ms > day_ms || h->open_wait_ms > day_ms || h->open_wait_max_ms > day_ms ||
      h->submit_deadline_ms > day_ms)
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "a time is longer than a day (window %u, slow %u, open wait %u..%u, "
                    "submit deadline %u ms)", h->window_ms, h->slow_ms, h->open_wait_ms, h->open_wait_max_ms,
                    h->submit_deadline_ms);
  if (h->window_ms && h->window_ms < 10)
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "window_ms %u is below 10 (10 buckets of at least 1 ms)", h->window_ms);
  if (h->open_wait_ms && h->open_wait_max_ms && h->open_wait_max_ms < h->open_wait_ms)
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "open_wait_max_ms %u is below open_wait_ms %u", h->open_wait_max_ms,
                    h->open_wait_ms);
  if (h->consecutive_losses > 1000000 || h->probes > 1000000 || h->min_calls > 100000000)
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "consecutive_losses %u, probes %u or min_calls %u is absurdly large",
                    h->consecutive_losses, h->probes, h->min_calls);
  return UL_OK;
}

ul_status ul_device_create_at(ul_env *env, const ul_device_desc *desc, ul_device **out,
                              const ul_site *site) {
  if (!out) return ul__fail(UL_ERR_INVALID_ARGUMENT, "create device: out is NULL");
  *out = NULL;
  if (!env) return ul__fail(UL_ERR_INVALID_ARGUMENT, "create device: env is NULL");
  ul_device_desc zero = {0};
  if (!desc) desc = &zero;
  if ((unsigned)desc->power > UL_POWER_FALLBACK_ONLY)
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "create device: power preference %d is not a ul_power_preference",
                    (int)desc->power);
  if (desc->recovery.jitter > 1.0f || desc->recovery.jitter != desc->recovery.jitter)
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "create device: recovery.jitter must be at most 1");
  ul_status hs = validate_health(&desc->health);
  if (hs) return ul__wrap(hs, "create device: health");
  ul_device *d = calloc(1, sizeof *d);
  if (!d) return ul__fail(UL_ERR_OUT_OF_MEMORY, "create device: out of host memory");
  d->env = env;
  d->wgpu = env->wgpu;
  d->desc = *desc;
  d->label = ul__strdup(desc->label ? desc->label : "device");
  if (!d->label) {
    free(d);
    return ul__fail(UL_ERR_OUT_OF_MEMORY, "create device: out of host memory");
  }
  d->desc.label = d->label;
  if (site) d->site = *site;
  d->recovery_wait_ms = 30000;
  d->rng = desc->recovery.jitter_seed ? desc->recovery.jitter_seed : ul__now_ns();
  pthread_mutex_init(&d->mu, NULL);
  pthread_cond_init(&d->recovered, NULL);

  ul__native n;
  bool only_fallback = desc->power == UL_POWER_FALLBACK_ONLY;
  ul_status s = native_build(d, only_fallback, 1, &n);
  if (s && !only_fallback && !desc->recovery.no_fallback) {
    char first[512];
    snprintf(first, sizeof first, "%s", ul_last_error());
    ul_status first_s = s;
    s = native_build(d, true, 1, &n);
    /* Report the preferred adapter's status unless it was a plain refusal. */
    if (s) s = ul__wrap(first_s == UL_ERR_NO_ADAPTER ? s : first_s,
                        "preferred adapter: %s; fallback adapter", first);
  }
  if (s) {
    pthread_mutex_destroy(&d->mu);
    free(d->label);
    free(d);
    return ul__wrap(s, "create device '%s'", desc->label ? desc->label : "device");
  }
  d->epoch_seq = 1;
  native_adopt(d, &n, 1);
  atomic_store(&d->state, n.info.is_fallback && !only_fallback ? UL_DEVICE_FALLBACK
                                                               : UL_DEVICE_READY);
  pthread_mutex_init(&d->hev_mu, NULL);
  s = ul__res_create(d);
  if (!s) {
    s = ul__device_health_init(d);
    if (s) ul__res_destroy(d);
  }
  if (s) {
    pthread_mutex_destroy(&d->hev_mu);
    native_release(d, &n);
    pthread_mutex_destroy(&d->mu);
    free(d->label);
    free(d);
    return ul__wrap(s, "create device");
  }
  pthread_mutex_lock(&env->mu);
  env->device_count++;
  pthread_mutex_unlock(&env->mu);
  *out = d;
  return UL_OK;
}

ul_status ul_device_destroy(ul_device *d) {
  if (!d) return UL_OK;
  ul__device_lock(d);
  d->destroying = true;
  ul_status s = ul__res_destroy(d); /* reports leaks; UL_ERR_BUSY when there were any */
  ul__native cur;
  native_current(d, &cur);
  if (d->env->chaos) ul__chaos_set_device(d->env->chaos, NULL);
  unsigned abandoned = atomic_load(&d->env->abandoned_devices);
  native_release(d, &cur);
  ul__device_release_kept(d);
  if (atomic_load(&d->env->abandoned_devices) != abandoned && !s)
    s = ul__fail(UL_ERR_TIMEOUT, "destroy device '%s': the implementation did not release it within %.1f s "
                 "(work that never ends, e.g. an endless loop in a kernel); it was abandoned", d->label,
                 (double)release_deadline_ns(d) / 1e9);
  d->pending_count = 0;
  ul__device_health_fini(d);
  pthread_mutex_destroy(&d->hev_mu);
  pthread_mutex_unlock(&d->mu);
  pthread_mutex_lock(&d->env->mu);
  d->env->device_count--;
  pthread_mutex_unlock(&d->env->mu);
  ul__adapter_reap_orphans(d->wgpu);
  pthread_cond_destroy(&d->recovered);
  pthread_mutex_destroy(&d->mu);
  free(d->label);
  free(d);
  return s;
}

ul_device_state ul_device_get_state(ul_device *d) {
  if (!d) return UL_DEVICE_FAILED;
  int st = atomic_load(&d->state);
  if ((st == UL_DEVICE_READY || st == UL_DEVICE_FALLBACK) && atomic_load(&d->lost))
    return UL_DEVICE_LOST;
  return (ul_device_state)st;
}

uint64_t ul_device_epoch(ul_device *d) {
  if (!d) return 0;
  pthread_mutex_lock(&g_lost_mu);
  uint64_t e = d->epoch;
  pthread_mutex_unlock(&g_lost_mu);
  return e;
}

ul_status ul_device_recover(ul_device *d) {
  if (!d) return ul__fail(UL_ERR_INVALID_ARGUMENT, "recover: device is NULL");
  bool was_on_fallback = atomic_load(&d->state) == UL_DEVICE_FALLBACK && !atomic_load(&d->lost);
  ul_status s = ul__device_enter(d);
  if (s) return s;
  if (was_on_fallback && d->on_fallback && d->desc.power != UL_POWER_FALLBACK_ONLY) {
    /* Try the preferred adapter once; stay on the fallback if it fails. */
    s = recover_locked(d, UL__TO_PRIMARY);
    if (s) ul__log(UL__LOG_INFO, "%s", ul_last_error());
    s = UL_OK;
  }
  ul__device_unlock(d);
  return s;
}

ul_status ul_device_adapter_info(ul_device *d, ul_adapter_info *out) {
  if (!d || !out) return ul__fail(UL_ERR_INVALID_ARGUMENT, "adapter info: NULL argument");
  ul__device_lock(d);
  *out = d->info;
  ul__device_unlock(d);
  return UL_OK;
}

ul_status ul_device_limits(ul_device *d, ul_limits *out) {
  if (!d || !out) return ul__fail(UL_ERR_INVALID_ARGUMENT, "limits: NULL argument");
  ul__device_lock(d);
  ul__limits_from_wgpu(&d->limits, out);
  ul__device_unlock(d);
  return UL_OK;
}

ul_status ul_device_force_loss(ul_device *d, const char *message) {
  if (!d) return ul__fail(UL_ERR_INVALID_ARGUMENT, "force loss: device is NULL");
  if (!d->env->lib.procs.DeviceForceLoss)
    return ul__fail(UL_ERR_UNSUPPORTED, "force loss: '%s' has no wgpuDeviceForceLoss",
                    d->env->lib.path);
  ul__device_lock(d);
  if (d->device)
    d->env->lib.procs.DeviceForceLoss(d->device, WGPUDeviceLostReason_Unknown,
                                      ul__sv(message ? message : "unlost: forced loss"));
  ul__device_unlock(d);
  return UL_OK;
}

void ul_device_set_recovery_wait(ul_device *d, uint32_t ms) {
  if (!d) return;
  ul__device_lock(d);
  d->recovery_wait_ms = ms;
  ul__device_unlock(d);
}
