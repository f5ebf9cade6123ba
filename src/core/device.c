/* ul_device below the objects: the native device (build, adopt, release,
 * bounded), its loss (recorded by the lost callback, which does nothing
 * else), and the device's events. Recovery itself is src/recover/gate.c;
 * the public device calls are src/api/device.c. */
#include "core/adapter.h"
#include "core/prefill.h"
#include "core/core.h"
#include "chaos/chaos.h"

#include <errno.h>
#include <math.h>
#include <time.h>
#include <unistd.h>

/* ---- loss records ------------------------------------------------------------
 * Each native device gets a context for its callbacks. The device and the
 * lost callback each hold a reference; the last one frees it. g_lost_mu
 * guards `owner` and the loss fields of every ul_device. */
typedef struct ul__native_ctx {
  _Atomic int refs;
  ul_device *owner; /* NULL once the ul_device let go of this native device */
  uint64_t epoch;
  /* Built ahead as the device's standby (ul__standby_*) and not taken
   * yet: its loss is kept here, not counted as one of the device's. */
  bool standby;
  /* The loss of this native device, recorded whether or not it is the
   * device's current one yet: a device lost while recovery builds it is
   * lost when it is adopted (no loss is ever dropped). */
  bool lost;
  uint32_t lost_reason;
  uint64_t lost_at_ns;
  char lost_message[256];
  /* A standby's errors (its prefills listen for them), never the device's. */
  _Atomic unsigned standby_errors;
  /* The implementation's lost callback ran (a loss, or the device's
   * destruction): Dawn calls it once the device's queue has drained, so
   * nothing runs on the device after this. Not set by a loss unlost
   * declares itself (a device declared hung may still be running). */
  _Atomic bool drained;
  /* Run once the device is released (ul__native_ctx_on_release), under
   * g_lost_mu. */
  struct release_hook *hooks;
  uint32_t hook_count; /* in hooks, under g_lost_mu */
} ul__native_ctx;

static pthread_mutex_t g_lost_mu = PTHREAD_MUTEX_INITIALIZER;

typedef struct release_hook {
  struct release_hook *next;
  void (*fn)(void *);
  void *arg;
} release_hook;

static void ctx_unref(ul__native_ctx *c) {
  if (!c || atomic_fetch_sub(&c->refs, 1) != 1) return;
  /* Hooks not run: the device was never seen released (abandoned to a
   * thread, or kept): what they would let go stays. */
  for (release_hook *h = c->hooks, *next; h; h = next) {
    next = h->next;
    free(h);
  }
  free(c);
}

/* After the native device's last release: it uses nothing any more. */
static void run_release_hooks(ul__native_ctx *c) {
  if (!c) return;
  pthread_mutex_lock(&g_lost_mu);
  release_hook *h = c->hooks;
  c->hooks = NULL;
  c->hook_count = 0;
  pthread_mutex_unlock(&g_lost_mu);
  for (release_hook *next; h; h = next) {
    next = h->next;
    h->fn(h->arg);
    free(h);
  }
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
  if (c->standby) return;
  d->losses_total++;
  if (d->native_ctx == c) loss_take_locked(d, c);
}

/* Makes the loss recorded in `c` the device's (under g_lost_mu). */
static void loss_take_locked(ul_device *d, const ul__native_ctx *c) {
  if (!atomic_load(&d->lost))
    ul__forensics_loss_locked(d, c->epoch, c->lost_reason, c->lost_at_ns, c->lost_message);
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
  if (reason != WGPUDeviceLostReason_CallbackCancelled) atomic_store(&c->drained, true);
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
  char msg[sizeof ((ul_device *)0)->uncaptured_message];
  ul__sv_copy(message, msg, sizeof msg);
  pthread_mutex_lock(&g_lost_mu);
  ul_device *d = c->owner;
  if (c->standby) {
    atomic_fetch_add(&c->standby_errors, 1);
    pthread_mutex_unlock(&g_lost_mu);
    ul__log(UL__LOG_INFO, "WebGPU error on the standby device (type %u): %s", type, msg);
    return;
  }
  /* During an error scope the call in it reports the error as its status;
   * its health outcome is the call's own, not a late one of a submission. */
  bool scoped = d && atomic_load(&d->in_scope);
  if (d) {
    snprintf(d->uncaptured_message, sizeof d->uncaptured_message, "%s", msg);
    d->uncaptured_type = type;
    for (char *p = d->uncaptured_message; *p; p++)
      if (*p == '\n' || *p == '\r') *p = ' ';
    atomic_fetch_add(&d->uncaptured_errors, 1);
    ul__device_health_error(d, type == WGPUErrorType_OutOfMemory ? UL_ERR_OUT_OF_MEMORY
                               : type == WGPUErrorType_Validation ? UL_ERR_VALIDATION
                                                                  : UL_ERR_INTERNAL,
                            !scoped);
  }
  pthread_mutex_unlock(&g_lost_mu);
  if (!scoped) ul__log(UL__LOG_WARN, "uncaptured WebGPU error (type %u): %s", type, msg);
}

bool ul__device_loss_pending(ul_device *d) { return atomic_load(&d->lost); }

bool ul__device_uncaptured_since_typed(ul_device *d, uint64_t mark, char *msg, size_t cap, uint32_t *type) {
  if (atomic_load(&d->uncaptured_errors) == mark) return false;
  pthread_mutex_lock(&g_lost_mu);
  snprintf(msg, cap, "%s", d->uncaptured_message);
  if (type) *type = d->uncaptured_type;
  pthread_mutex_unlock(&g_lost_mu);
  return true;
}

bool ul__device_uncaptured_since(ul_device *d, uint64_t mark, char *msg, size_t cap) {
  return ul__device_uncaptured_since_typed(d, mark, msg, cap, NULL);
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
bool ul__native_ctx_drained(ul__native_ctx *c) { return c && atomic_load(&c->drained); }
bool ul__native_ctx_on_release(ul__native_ctx *c, void (*fn)(void *), void *arg) {
  release_hook *h = c ? malloc(sizeof *h) : NULL;
  if (!h) return false;
  h->fn = fn;
  h->arg = arg;
  pthread_mutex_lock(&g_lost_mu);
  h->next = c->hooks;
  c->hooks = h;
  c->hook_count++;
  pthread_mutex_unlock(&g_lost_mu);
  return true;
}
void ul__native_ctx_prune(ul__native_ctx *c, void (*fn)(void *), bool (*gone)(void *)) {
  if (!c) return;
  pthread_mutex_lock(&g_lost_mu);
  for (release_hook **p = &c->hooks; *p;) {
    release_hook *h = *p;
    if (h->fn == fn && gone(h->arg)) {
      *p = h->next;
      c->hook_count--;
      free(h);
    } else {
      p = &h->next;
    }
  }
  pthread_mutex_unlock(&g_lost_mu);
}
uint32_t ul__native_ctx_hook_count(ul__native_ctx *c) {
  if (!c) return 0;
  pthread_mutex_lock(&g_lost_mu);
  uint32_t n = c->hook_count;
  pthread_mutex_unlock(&g_lost_mu);
  return n;
}
/* Under ul__lost_lock. */
ul_device *ul__native_ctx_owner(ul__native_ctx *c, uint64_t *epoch) {
  *epoch = c->epoch;
  return c->owner;
}

/* ---- events ------------------------------------------------------------------ */

static const char *const state_names[] = {
#define UL__STATE_NAME(name, text, meaning) text,
    UL_DEVICE_STATE_MAP(UL__STATE_NAME)
#undef UL__STATE_NAME
};
static const char *const event_names[] = {
#define UL__EVENT_NAME(name, text, meaning) text,
    UL_EVENT_KIND_MAP(UL__EVENT_NAME)
#undef UL__EVENT_NAME
};

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
    run_release_hooks(d->kept_ctx[i]);
    ctx_unref(d->kept_ctx[i]);
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
static void cond_init_monotonic(pthread_cond_t *cv) {
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
    cond_init_monotonic(&j->cv);
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
    pthread_mutex_lock(&g_lost_mu);
    n->ctx->owner = NULL;
    pthread_mutex_unlock(&g_lost_mu);
  }
  if (n->queue) w->QueueRelease(n->queue);
  if (n->device) {
    /* A buffer keeps a mapping made on a lost device: hold the device
     * (its last release would free the mapped memory) until none is kept. */
    if (d->maps_kept && keep_device(d, n->device, n->ctx)) n->device = NULL;
    if (n->device && release_device_bounded(d, n->device)) run_release_hooks(n->ctx);
    else if (n->device)
      ul__log(UL__LOG_WARN, "device '%s': the implementation did not release a device within %.1f s (work that "
              "never ends, e.g. an endless loop in a kernel); it was abandoned to a background thread", d->label,
              (double)ul__device_release_deadline_ns(d) / 1e9);
  }
  if (n->adapter) w->AdapterRelease(n->adapter);
  ctx_unref(n->ctx); /* the ul_device's reference */
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
  uint64_t epoch;                 /* the device's (its ctx's) */
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
    run_release_hooks(j->ctx);
  }
  if (j->adapter) w->AdapterRelease(j->adapter);
  teardown_end(j->env, &j->td);
  ctx_unref(j->ctx);
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
    pthread_mutex_lock(&g_lost_mu);
    n->ctx->owner = NULL;
    j->epoch = n->ctx->epoch;
    pthread_mutex_unlock(&g_lost_mu);
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

void ul__native_cmdbuf_release(ul_device *d, WGPUCommandBuffer cb, uint64_t epoch) {
  if (!cb) return;
  if (epoch != d->epoch) {
    /* Of a lost device: Dawn's destroy of a device frees what its command
     * buffers hold without regard to a release of one beside it, so one
     * whose device is still being destroyed in the background goes after
     * that destroy, on its thread. */
    ul_env *env = d->env;
    pthread_mutex_lock(&env->rel_mu);
    for (async_release *j = env->async_jobs; j; j = j->next) {
      if (j->epoch != epoch || j->destroyed) continue;
      bool kept = true;
      if (j->nafter == j->cap_after) {
        uint32_t ncap = j->cap_after ? j->cap_after * 2 : 8;
        WGPUCommandBuffer *a = realloc(j->after, sizeof *a * ncap);
        if (a) {
          j->after = a;
          j->cap_after = ncap;
        } else {
          kept = false;
        }
      }
      if (kept) j->after[j->nafter++] = cb;
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
 * `epoch`. On failure nothing is held. */
static void standby_release(ul_device *d, ul__native *n);

/* A build through table `w`; a standby's (through the implementation's own
 * table) is not the fault schedule's target and its loss is not the
 * device's until it is taken. */
static ul_status native_build(ul_device *d, const ul__wgpu *w, bool standby, bool fallback, uint64_t epoch,
                              ul__native *n) {
  ul_env *env = d->env;
  memset(n, 0, sizeof *n);
  uint32_t power = d->desc.power == UL_POWER_LOW_POWER ? WGPUPowerPreference_LowPower
                                                       : WGPUPowerPreference_HighPerformance;
  n->instance = env->instance;
  uint64_t t0 = ul__now_ns();
  /* Not while a lost device is being torn down in the background. */
  build_begin(env, ul__device_release_deadline_ns(d));
  ul_status s = ul__request_adapter_with(env, w, n->instance, power, fallback, request_timeout_ns(d),
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
    s = ul__request_adapter_with(env, w, n->instance, power, false, request_timeout_ns(d), &n->adapter);
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
  if (backing) features[dd.requiredFeatureCount++] = WGPUFeatureName_HostMappedPointer;
  if (raw->DeviceForceLoss && raw->AdapterHasFeature &&
      raw->AdapterHasFeature(n->adapter, WGPUFeatureName_ImplicitDeviceSynchronization)) {
    bool asked = false;
    for (uint32_t i = 0; i < nreq; i++) asked |= req->features[i] == WGPUFeatureName_ImplicitDeviceSynchronization;
    if (!asked) features[dd.requiredFeatureCount++] = WGPUFeatureName_ImplicitDeviceSynchronization;
    n->synchronized = true;
  }
  if (dd.requiredFeatureCount) dd.requiredFeatures = features;
  dd.label = ul__sv(d->label);
  dd.requiredLimits = &required;
  if (req && req->has_limits) {
    required = req->limits;
    required.nextInChain = NULL;
  }
  /* The program's toggles beside unlost's own. */
  const char *en_stack[8], **enabled = en_stack;
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
  dd.deviceLostCallbackInfo.mode = WGPUCallbackMode_AllowSpontaneous;
  dd.deviceLostCallbackInfo.callback = on_device_lost;
  dd.deviceLostCallbackInfo.userdata1 = n->ctx;
  dd.uncapturedErrorCallbackInfo.callback = on_uncaptured_error;
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
  s = ul__request_device_with(env, w, n->instance, n->adapter, &dd, request_timeout_ns(d), &n->device);
  if (s && backing && (strstr(ul_last_error(), "host-mapped") || strstr(ul_last_error(), "allow_unsafe_apis"))) {
    /* An implementation without the feature: the device without it. */
    ul__log(UL__LOG_INFO, "device '%s': no buffers over host memory (%s)", d->label, ul_last_error());
    dd.requiredFeatureCount--;
    td.enabledToggleCount--;
    backing = false;
    s = ul__request_device_with(env, w, n->instance, n->adapter, &dd, request_timeout_ns(d), &n->device);
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
  if (standby) standby_release(d, n);
  else ul__native_release(d, n);
  return s;
}

ul_status ul__native_build(ul_device *d, bool fallback, uint64_t epoch, ul__native *n) {
  return native_build(d, d->wgpu, false, fallback, epoch, n);
}

/* Makes `n` the device's current native device (epoch already chosen). */
void ul__native_adopt(ul_device *d, ul__native *n, uint64_t epoch) {
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
  d->synchronized = n->synchronized;
  d->host_mapped = n->host_mapped;
  /* Buffers made ahead are for the device they were made on. */
  ul__prefills_drop(d);
  d->prefills = n->prefills;
  n->prefills = NULL;
  d->hung = false;
  if (d->env->chaos) ul__chaos_set_device(d->env->chaos, n->device);
}

void ul__native_current(ul_device *d, ul__native *n) {
  n->instance = d->instance;
  n->adapter = d->adapter;
  n->device = d->device;
  n->queue = d->queue;
  n->limits = d->limits;
  n->info = d->info;
  n->ctx = d->native_ctx;
  n->synchronized = d->synchronized;
  n->host_mapped = d->host_mapped;
  n->prefills = NULL; /* they stay the device's (ul__prefills_drop) */
  n->hung = d->hung;
}

/* ---- the standby device ----------------------------------------------------
 * A recovery spends most of its time asking for a new device (70-90 ms on
 * an H200). The standby is that device asked for ahead, on a thread of its
 * own, right after the device is created and after each recovery, so that
 * the next recovery begins on it. It is built through the implementation's
 * own table: fault schedules count the same calls whenever it is built, and
 * a recovery always waits for a standby being built rather than building a
 * second one beside it, so that a schedule sees the same calls every run.
 * A loss that takes the whole GPU (a reset) takes the standby too: its lost
 * callback marks it, and a recovery that finds it so builds as before (one
 * that comes later shows as a loss during the rebuild: another attempt). */
struct ul__standby {
  pthread_mutex_t mu; /* leaf; guards all below */
  pthread_cond_t cv;  /* the build ended */
  int mode;           /* UNLOST_STANDBY: 0 none, 1 on any adapter, 2 on GPU adapters */
  bool closed;        /* the device is being destroyed: none is started */
  bool running;       /* a build was started and is not collected yet */
  bool done;          /* it ended: `n` and `status` hold what it built */
  bool joined;        /* its thread was joined */
  pthread_t thread;
  ul__native n;
  ul_status status;
  /* A standby found lost by a recovery: released once that recovery is
   * over (a build waits for every teardown, so not before it builds). */
  ul__native corpse;
  ul__standby_counts counts;
  /* The SOURCE buffers to make ahead (ul__standby_source_*). */
  ul__prefill_src *sources;
  uint32_t nsources, sources_cap;
  uint64_t sources_gen;   /* bumped at every add: a fill under way looks again */
  uint64_t source_bytes;  /* their sizes, for the CPU adapter's threshold */
  /* A take or a close waits: a fill under way stops at its next chunk. */
  _Atomic bool wanted;
  /* Set when the device was destroyed with a build still under way (the
   * close did not wait for it): that build's thread, which reads the
   * device until it ends, releases what it built and frees the device's
   * memory with this (ul__standby_free_device). */
  void (*fin)(ul_device *);
};

/* Releases a standby native device through the implementation's table:
 * its objects (none) and the device, in the background where it may be. */
static void standby_release(ul_device *d, ul__native *n) {
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

/* On the CPU adapter, under the default mode, a standby pays only through
 * what it fills ahead (a new device there takes 10-20 ms, a restore about
 * 1 ms per MiB): it is built once the device's SOURCE buffers reach this. */
#define UL__STANDBY_CPU_SOURCE_BYTES (64ull << 20)

/* Whether a device on adapter `info` gets a standby under this mode. Not
 * under sb->mu. */
static bool standby_wanted(ul__standby *sb, const ul_adapter_info *info) {
  if (!sb->mode || info->is_fallback) return false;
  if (sb->mode == 1 || info->type != UL_ADAPTER_CPU) return true;
  pthread_mutex_lock(&sb->mu);
  bool enough = sb->source_bytes >= UL__STANDBY_CPU_SOURCE_BYTES;
  pthread_mutex_unlock(&sb->mu);
  return enough;
}

/* Device memory a standby on adapter `info` may fill ahead: the option, and
 * on the CPU adapter (whose device memory is the host's) at most a quarter
 * of the host's memory unless the option was set. */
static uint64_t prefill_budget(const ul_adapter_info *info) {
  uint64_t b = ul__opt_number(UL__OPT_STANDBY_PREFILL_MB) << 20;
  if (info->type == UL_ADAPTER_CPU && !ul__opt_text(UL__OPT_STANDBY_PREFILL_MB)) {
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0) b = UL__MIN(b, (uint64_t)pages * (uint64_t)page / 4);
  }
  return b;
}

static bool same_source(const ul__prefill_src *a, const ul__prefill_src *b) {
  return a->id == b->id && a->usage == b->usage && a->size == b->size && a->offset == b->offset &&
         a->file_size == b->file_size && a->mtime_ns == b->mtime_ns && a->path && b->path &&
         !strcmp(a->path, b->path);
}

static bool ctx_lost(ul__native_ctx *c) {
  pthread_mutex_lock(&g_lost_mu);
  bool lost = c->lost;
  pthread_mutex_unlock(&g_lost_mu);
  return lost;
}

/* One empty submission on standby `n`, from its own thread: the first
 * submission on a device pays for what the device did before (measured on
 * the H200: 17-21 ms after 1 GiB of queue writes, where a tick did not
 * help), and that first one would otherwise be the replay's or the
 * restore's, inside the recovery. */
static void standby_warm(ul_device *d, ul__native *n) {
  const ul__wgpu *raw = &d->env->lib.procs;
  uint64_t t0 = ul__now_ns();
  WGPUCommandEncoder e = raw->DeviceCreateCommandEncoder(n->device, NULL);
  WGPUCommandBuffer cb = e ? raw->CommandEncoderFinish(e, NULL) : NULL;
  if (cb) raw->QueueSubmit(n->queue, 1, &cb);
  if (cb) raw->CommandBufferRelease(cb);
  if (e) raw->CommandEncoderRelease(e);
  ul__log(UL__LOG_DEBUG, "device '%s': the standby's first submission took %.1f ms", d->label,
          (double)(ul__now_ns() - t0) / 1e6);
}

/* Makes and fills the registered SOURCE buffers on standby `n` that it
 * does not hold yet, within the prefill budget, until a take or a close
 * wants the standby; looks again while sources are added meanwhile. Drops
 * what it holds for buffers destroyed since. A failed one is left out: its
 * rebuild restores it. */
static uint64_t prefills_bytes(const ul__prefill *p);
static void standby_prefill(ul_device *d, ul__standby *sb, ul__native *n) {
  const ul__wgpu *raw = &d->env->lib.procs;
  uint64_t budget = prefill_budget(&n->info);
  if (!budget) return;
  uint64_t t0 = ul__now_ns(), made = 0, filled = 0, gen;
  do {
    pthread_mutex_lock(&sb->mu);
    gen = sb->sources_gen;
    uint32_t count = sb->nsources;
    ul__prefill_src *list = count ? calloc(count, sizeof *list) : NULL;
    for (uint32_t i = 0; list && i < count; i++) {
      list[i] = sb->sources[i];
      list[i].path = ul__strdup(sb->sources[i].path);
      list[i].label = sb->sources[i].label ? ul__strdup(sb->sources[i].label) : NULL;
    }
    pthread_mutex_unlock(&sb->mu);
    /* Held for a buffer no longer registered: gone. */
    for (ul__prefill **pp = &n->prefills; *pp;) {
      bool live = false;
      for (uint32_t i = 0; list && i < count && !live; i++) live = same_source(&(*pp)->src, &list[i]);
      if (live) {
        pp = &(*pp)->next;
        continue;
      }
      ul__prefill *gone = *pp;
      *pp = gone->next;
      ul__prefill_free(raw, gone);
    }
    uint64_t used = prefills_bytes(n->prefills);
    for (uint32_t i = 0; list && i < count && !atomic_load(&sb->wanted); i++) {
      ul__prefill_src *src = &list[i];
      bool held = false;
      for (const ul__prefill *p = n->prefills; p && !held; p = p->next) held = same_source(&p->src, src);
      if (held || !src->path || src->size > budget - UL__MIN(used, budget)) continue;
      unsigned errors = atomic_load(&n->ctx->standby_errors);
      ul__prefill *p = NULL;
      ul_status s = ul__prefill_make(raw, d->env, n->instance, n->device, n->queue, src, &sb->wanted, &p);
      if (!s && (atomic_load(&n->ctx->standby_errors) != errors || ctx_lost(n->ctx))) {
        ul__prefill_free(raw, p);
        s = UL_ERR_INTERNAL;
      }
      if (s) {
        ul__log(UL__LOG_DEBUG, "device '%s': buffer %u not made ahead: %s", d->label, src->id, ul_last_error());
        if (ctx_lost(n->ctx)) break;
        continue;
      }
      p->next = n->prefills;
      n->prefills = p;
      used += p->src.size;
      filled += p->src.size;
      made++;
    }
    for (uint32_t i = 0; list && i < count; i++) ul__prefill_src_clear(&list[i]);
    free(list);
    pthread_mutex_lock(&sb->mu);
    bool again = sb->sources_gen != gen;
    pthread_mutex_unlock(&sb->mu);
    if (!again || atomic_load(&sb->wanted) || ctx_lost(n->ctx)) break;
  } while (true);
  if (made) standby_warm(d, n);
  if (made)
    ul__log(UL__LOG_INFO, "device '%s': %llu SOURCE buffer(s), %.1f MiB, made and filled on the standby in %.1f ms",
            d->label, (unsigned long long)made, (double)filled / 1048576.0, (double)(ul__now_ns() - t0) / 1e6);
  pthread_mutex_lock(&sb->mu);
  sb->counts.prefilled += made;
  sb->counts.prefilled_bytes += filled;
  pthread_mutex_unlock(&sb->mu);
}

static uint64_t prefills_bytes(const ul__prefill *p) {
  uint64_t n = 0;
  for (; p; p = p->next) n += p->src.size;
  return n;
}

/* Frees `sb`, releasing the standby it holds, if any. */
static void standby_free(ul_device *d, ul__standby *sb) {
  if (sb->n.device || sb->n.adapter) standby_release(d, &sb->n);
  for (uint32_t i = 0; i < sb->nsources; i++) ul__prefill_src_clear(&sb->sources[i]);
  free(sb->sources);
  pthread_cond_destroy(&sb->cv);
  pthread_mutex_destroy(&sb->mu);
  free(sb);
}

/* The end of a build's thread: what it built (`n`, status `s`) handed to
 * the device, or, when the device was destroyed meanwhile, released with
 * the device's memory (the thread is detached then). */
static void standby_end(ul_device *d, ul__standby *sb, ul__native *n, ul_status s) {
  pthread_mutex_lock(&sb->mu);
  sb->n = *n;
  sb->status = s;
  sb->done = true;
  void (*fin)(ul_device *) = sb->fin;
  pthread_cond_broadcast(&sb->cv);
  pthread_mutex_unlock(&sb->mu);
  if (!fin) return;
  ul__log(UL__LOG_INFO, "device '%s': the abandoned standby build ended; released", d->label);
  d->standby = NULL;
  standby_free(d, sb);
  fin(d);
}

static void *standby_main(void *arg) {
  ul_device *d = arg;
  ul__standby *sb = d->standby;
  ul__native n;
  ul_status s = native_build(d, &d->env->lib.procs, true, false, 0, &n);
  if (!s && (!n.synchronized || !standby_wanted(sb, &n.info))) {
    /* Not one a recovery may use: it could not be torn down beside the
     * program's calls, or it is the CPU adapter where only GPUs get one. */
    standby_release(d, &n);
    s = ul__fail(UL_ERR_NO_ADAPTER, "the standby came from an adapter that does not get one");
  }
  if (!s) standby_prefill(d, sb, &n);
  if (!s && !n.prefills) standby_warm(d, &n); /* a fill warms it itself */
  if (s) ul__log(UL__LOG_INFO, "device '%s': no standby device: %s", d->label, ul_last_error());
  pthread_mutex_lock(&sb->mu);
  if (s) sb->counts.failed++;
  else sb->counts.built++;
  pthread_mutex_unlock(&sb->mu);
  standby_end(d, sb, &n, s);
  return NULL;
}

/* Fills, on the standby already built, the SOURCE buffers registered
 * since (ul__standby_source_add), and hands it back as it was. */
static void *standby_topup_main(void *arg) {
  ul_device *d = arg;
  ul__standby *sb = d->standby;
  pthread_mutex_lock(&sb->mu);
  ul__native n = sb->n;
  memset(&sb->n, 0, sizeof sb->n);
  pthread_mutex_unlock(&sb->mu);
  standby_prefill(d, sb, &n);
  standby_end(d, sb, &n, UL_OK);
  return NULL;
}

ul_status ul__standby_init(ul_device *d) {
  ul__standby *sb = calloc(1, sizeof *sb);
  if (!sb) return ul__fail(UL_ERR_OUT_OF_MEMORY, "standby: out of host memory");
  pthread_mutex_init(&sb->mu, NULL);
  cond_init_monotonic(&sb->cv);
  /* Dawn only: the standby is torn down beside the program's calls. */
  sb->mode = d->env->lib.procs.DeviceForceLoss ? (int)ul__opt_number(UL__OPT_STANDBY) : 0;
  d->standby = sb;
  return UL_OK;
}

/* The lost standby a recovery left, if any, released now. */
static void standby_bury(ul_device *d) {
  ul__standby *sb = d->standby;
  pthread_mutex_lock(&sb->mu);
  ul__native corpse = sb->corpse;
  memset(&sb->corpse, 0, sizeof sb->corpse);
  pthread_mutex_unlock(&sb->mu);
  if (corpse.device || corpse.adapter) standby_release(d, &corpse);
}

void ul__standby_start(ul_device *d) {
  ul__standby *sb = d->standby;
  if (!sb) return;
  standby_bury(d);
  if (!standby_wanted(sb, &d->info)) return;
  pthread_mutex_lock(&sb->mu);
  if (!sb->closed && !sb->running) {
    sb->done = false;
    sb->joined = false;
    atomic_store(&sb->wanted, false);
    sb->running = pthread_create(&sb->thread, NULL, standby_main, d) == 0;
  }
  pthread_mutex_unlock(&sb->mu);
}

/* The standby thread's result once it ended, joined (under sb->mu): true
 * with *n when it built one. Waits at most `ns` for a build under way. */
static bool standby_collect_locked(ul_device *d, uint64_t ns, ul__native *n) {
  ul__standby *sb = d->standby;
  if (!sb->running) return false;
  struct timespec until = ul__deadline(CLOCK_MONOTONIC, ns);
  while (!sb->done && pthread_cond_timedwait(&sb->cv, &sb->mu, &until) == 0) {
  }
  if (!sb->done) return false; /* still asking: left to the next collect */
  if (!sb->joined) pthread_join(sb->thread, NULL); /* it only returns now */
  sb->joined = true;
  sb->running = false;
  sb->done = false;
  if (sb->status) return false;
  *n = sb->n;
  memset(&sb->n, 0, sizeof sb->n);
  return true;
}

static uint64_t standby_wait_ns(const ul_device *d) {
  /* A build waits for a teardown at most the release deadline, then asks
   * for an adapter and a device, each within the request timeout. */
  return ul__device_release_deadline_ns(d) + 2 * request_timeout_ns(d);
}

bool ul__standby_take(ul_device *d, uint64_t epoch, ul__native *out) {
  ul__standby *sb = d->standby;
  if (!sb) return false;
  ul__native n;
  uint64_t t0 = ul__now_ns();
  atomic_store(&sb->wanted, true);
  pthread_mutex_lock(&sb->mu);
  bool asked = sb->running;
  bool got = standby_collect_locked(d, standby_wait_ns(d), &n);
  pthread_mutex_unlock(&sb->mu);
  if (asked)
    ul__log(UL__LOG_INFO, "device '%s': %s the standby device after %.1f ms", d->label,
            got ? "took" : "did not take", (double)(ul__now_ns() - t0) / 1e6);
  if (!got) return false;
  pthread_mutex_lock(&g_lost_mu);
  bool dead = n.ctx->lost;
  if (!dead) {
    n.ctx->standby = false; /* from here on its loss is the device's */
    n.ctx->epoch = epoch;
  }
  pthread_mutex_unlock(&g_lost_mu);
  ul__native earlier = {0};
  pthread_mutex_lock(&sb->mu);
  if (dead) {
    sb->counts.dead++;
    earlier = sb->corpse; /* none: the last recovery's was released at its end */
    sb->corpse = n;
  } else {
    sb->counts.used++;
  }
  pthread_mutex_unlock(&sb->mu);
  if (earlier.device || earlier.adapter) standby_release(d, &earlier);
  if (dead) {
    ul__log(UL__LOG_INFO, "device '%s': the standby device was lost as well; building a new one", d->label);
    return false;
  }
  *out = n;
  return true;
}

void ul__standby_close(ul_device *d) {
  ul__standby *sb = d->standby;
  if (!sb) return;
  ul__native n;
  uint64_t t0 = ul__now_ns();
  atomic_store(&sb->wanted, true);
  pthread_mutex_lock(&sb->mu);
  sb->closed = true;
  bool asked = sb->running;
  bool got = standby_collect_locked(d, standby_wait_ns(d), &n);
  bool left = sb->running; /* a build that did not end in time keeps sb */
  pthread_mutex_unlock(&sb->mu);
  standby_bury(d);
  if (asked)
    ul__log(UL__LOG_INFO, "device '%s': standby closed after %.1f ms", d->label, (double)(ul__now_ns() - t0) / 1e6);
  if (got) standby_release(d, &n);
  if (left) {
    /* Its thread still asks the implementation for a device and reads d
     * meanwhile: sb stays, and the device's memory is freed when the build
     * ends (ul__standby_free_device). The env stays loaded for it. */
    ul__log(UL__LOG_WARN, "device '%s': the standby device's request did not end in time; abandoned", d->label);
    atomic_fetch_add(&d->env->abandoned_devices, 1);
    return;
  }
  d->standby = NULL;
  standby_free(d, sb);
}

void ul__standby_free_device(ul_device *d, void (*fin)(ul_device *)) {
  ul__standby *sb = d->standby;
  if (sb) { /* a build left by ul__standby_close */
    pthread_mutex_lock(&sb->mu);
    bool later = !sb->done;
    if (later) sb->fin = fin;
    pthread_t t = sb->thread;
    pthread_mutex_unlock(&sb->mu);
    if (later) {
      pthread_detach(t); /* valid until joined or detached, ended or not */
      return;
    }
    pthread_join(t, NULL); /* it ended meanwhile */
    d->standby = NULL;
    standby_free(d, sb);
  }
  fin(d);
}

void ul__standby_get_counts(ul_device *d, ul__standby_counts *out) {
  memset(out, 0, sizeof *out);
  ul__standby *sb = d->standby;
  if (!sb) return;
  pthread_mutex_lock(&sb->mu);
  *out = sb->counts;
  out->mode = sb->mode;
  out->ready = sb->running && sb->done && !sb->status;
  out->ready_bytes = out->ready ? prefills_bytes(sb->n.prefills) : 0;
  out->pending = sb->running;
  pthread_mutex_unlock(&sb->mu);
}

bool ul__standby_wait_ready(ul_device *d, uint64_t ns) {
  ul__standby *sb = d->standby;
  if (!sb) return false;
  struct timespec until = ul__deadline(CLOCK_MONOTONIC, ns);
  pthread_mutex_lock(&sb->mu);
  while (sb->running && !sb->done && pthread_cond_timedwait(&sb->cv, &sb->mu, &until) == 0) {
  }
  bool ready = sb->running && sb->done && !sb->status;
  pthread_mutex_unlock(&sb->mu);
  return ready;
}

ul_status ul__standby_lose(ul_device *d) {
  ul__standby *sb = d->standby;
  const ul__wgpu *raw = &d->env->lib.procs;
  if (!sb || !raw->DeviceForceLoss) return ul__fail(UL_ERR_UNSUPPORTED, "standby: none to lose");
  ul__native n;
  pthread_mutex_lock(&sb->mu);
  bool got = standby_collect_locked(d, standby_wait_ns(d), &n);
  if (got) {
    /* Put back as it was, lost: a reset that took every device. */
    raw->DeviceForceLoss(n.device, WGPUDeviceLostReason_Unknown, ul__sv("unlost: the standby is lost too"));
    sb->n = n;
    sb->status = UL_OK;
    sb->done = true;
    sb->running = true; /* joined already */
  }
  pthread_mutex_unlock(&sb->mu);
  return got ? UL_OK : ul__fail(UL_ERR_NO_ADAPTER, "standby: none was built");
}

void ul__standby_source_add(ul_device *d, uint32_t id, const char *label, uint64_t usage, uint64_t size,
                            const char *path, uint64_t offset, uint64_t file_size, int64_t mtime_ns) {
  ul__standby *sb = d->standby;
  if (!sb || !sb->mode) return;
  ul__prefill_src src = {id, ul__strdup(path), label ? ul__strdup(label) : NULL, usage, size, offset,
                         file_size, mtime_ns};
  if (!src.path || (label && !src.label)) {
    ul__prefill_src_clear(&src);
    return;
  }
  pthread_mutex_lock(&sb->mu);
  if (sb->nsources == sb->sources_cap) {
    uint32_t cap = sb->sources_cap ? sb->sources_cap * 2 : 8;
    ul__prefill_src *grown = realloc(sb->sources, cap * sizeof *grown);
    if (grown) {
      sb->sources = grown;
      sb->sources_cap = cap;
    }
  }
  bool topup = false;
  if (sb->nsources < sb->sources_cap) {
    sb->sources[sb->nsources++] = src;
    memset(&src, 0, sizeof src);
    sb->sources_gen++;
    sb->source_bytes += size;
    /* A standby built and idle fills it now: a program's weights come
     * after its device, and the first loss should find them made ahead.
     * (A fill under way sees the new generation and looks again.) */
    if (!sb->closed && sb->running && sb->done && !sb->status) {
      if (!sb->joined) pthread_join(sb->thread, NULL); /* it has returned or is returning */
      sb->joined = true;
      sb->done = false;
      atomic_store(&sb->wanted, false);
      topup = pthread_create(&sb->thread, NULL, standby_topup_main, d) == 0;
      if (topup) sb->joined = false;
      else sb->done = true; /* left as it was */
    }
  }
  bool none = !sb->running && !sb->closed;
  pthread_mutex_unlock(&sb->mu);
  ul__prefill_src_clear(&src);
  /* The CPU adapter gets one once its SOURCE buffers are large enough. */
  if (none && !topup && standby_wanted(sb, &d->info)) ul__standby_start(d);
}

void ul__standby_source_remove(ul_device *d, uint32_t id) {
  ul__standby *sb = d->standby;
  if (!sb) return;
  ul__prefill_src gone = {0};
  pthread_mutex_lock(&sb->mu);
  for (uint32_t i = 0; i < sb->nsources; i++) {
    if (sb->sources[i].id != id) continue;
    gone = sb->sources[i];
    sb->source_bytes -= UL__MIN(sb->source_bytes, gone.size);
    sb->sources[i] = sb->sources[--sb->nsources];
    break;
  }
  pthread_mutex_unlock(&sb->mu);
  ul__prefill_src_clear(&gone);
}

ul__prefill *ul__prefill_take(ul_device *d, uint32_t id) {
  for (ul__prefill **pp = &d->prefills; *pp; pp = &(*pp)->next) {
    if ((*pp)->src.id != id) continue;
    ul__prefill *p = *pp;
    *pp = p->next;
    p->next = NULL;
    return p;
  }
  return NULL;
}

/* Through the implementation's own table, made ahead or not: a fault
 * schedule counts the same calls either way. */
void ul__prefills_drop(ul_device *d) { ul__prefills_free(&d->env->lib.procs, &d->prefills); }

/* ---- loss state for recovery (src/recover/gate.c) ---- */

void ul__device_loss_info(ul_device *d, uint32_t *reason, char *msg, size_t cap) {
  pthread_mutex_lock(&g_lost_mu);
  *reason = d->lost_reason;
  snprintf(msg, cap, "%s", d->lost_message);
  pthread_mutex_unlock(&g_lost_mu);
}

void ul__device_set_lost(ul_device *d, const char *message) {
  pthread_mutex_lock(&g_lost_mu);
  uint64_t now = ul__now_ns();
  if (!atomic_load(&d->lost)) ul__forensics_loss_locked(d, d->epoch, WGPUDeviceLostReason_Unknown, now, message);
  snprintf(d->lost_message, sizeof d->lost_message, "%s", message);
  d->lost_at_ns = now;
  d->lost_reason = WGPUDeviceLostReason_Unknown;
  atomic_store(&d->lost, true);
  pthread_mutex_unlock(&g_lost_mu);
}

void ul__device_count_recovery(ul_device *d) {
  pthread_mutex_lock(&g_lost_mu); /* metrics read it under this lock */
  d->recoveries_total++;
  pthread_mutex_unlock(&g_lost_mu);
}

bool ul__device_req_copy(ul__device_req *dst, const ul__device_req *src) {
  memset(dst, 0, sizeof *dst);
  dst->has_limits = src->has_limits;
  dst->limits = src->limits;
  dst->limits.nextInChain = NULL;
  if (src->feature_count) {
    if (!(dst->features = malloc(sizeof *dst->features * src->feature_count))) return false;
    memcpy(dst->features, src->features, sizeof *dst->features * src->feature_count);
    dst->feature_count = src->feature_count;
  }
  bool ok = true;
  if (src->enabled_count && (dst->enabled = calloc(src->enabled_count, sizeof *dst->enabled))) {
    dst->enabled_count = src->enabled_count;
    for (uint32_t i = 0; i < src->enabled_count; i++) ok &= (dst->enabled[i] = ul__strdup(src->enabled[i])) != NULL;
  } else if (src->enabled_count) {
    ok = false;
  }
  if (src->disabled_count && (dst->disabled = calloc(src->disabled_count, sizeof *dst->disabled))) {
    dst->disabled_count = src->disabled_count;
    for (uint32_t i = 0; i < src->disabled_count; i++) ok &= (dst->disabled[i] = ul__strdup(src->disabled[i])) != NULL;
  } else if (src->disabled_count) {
    ok = false;
  }
  if (!ok) ul__device_req_free(dst);
  return ok;
}

void ul__device_req_free(ul__device_req *r) {
  if (!r) return;
  for (uint32_t i = 0; r->enabled && i < r->enabled_count; i++) free(r->enabled[i]);
  for (uint32_t i = 0; r->disabled && i < r->disabled_count; i++) free(r->disabled[i]);
  free(r->enabled);
  free(r->disabled);
  free(r->features);
  memset(r, 0, sizeof *r);
}
