/* A native device's loss: the context of its callbacks (recorded by the
 * lost callback, which does nothing else), the implementation's errors,
 * the device's events and its loss state for recovery. Building and
 * releasing native devices is native.c, the standby standby.c; recovery
 * itself is src/recover/gate.c, the public device calls src/api/device.c. */
#include "core/native.h"
#include "core/adapter.h"
#include "core/prefill.h"
#include "core/core.h"
#include "chaos/chaos.h"

#include <errno.h>
#include <math.h>
#include <time.h>
#include <unistd.h>

pthread_mutex_t ul__lost_mu = PTHREAD_MUTEX_INITIALIZER;

typedef struct release_hook {
  struct release_hook *next;
  void (*fn)(void *);
  void *arg;
} release_hook;

void ul__ctx_unref(ul__native_ctx *c) {
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
void ul__ctx_run_release_hooks(ul__native_ctx *c) {
  if (!c) return;
  pthread_mutex_lock(&ul__lost_mu);
  release_hook *h = c->hooks;
  c->hooks = NULL;
  c->hook_count = 0;
  pthread_mutex_unlock(&ul__lost_mu);
  for (release_hook *next; h; h = next) {
    next = h->next;
    h->fn(h->arg);
    free(h);
  }
}

/* Records the loss of native device `c` once (under ul__lost_mu); it is the
 * device's at once when `c` is current, else when it is adopted. */
static void loss_record_locked(ul_device *d, ul__native_ctx *c, uint32_t reason, const char *message) {
  if (c->lost) return;
  c->lost = true;
  c->lost_reason = reason;
  c->lost_at_ns = ul__now_ns();
  snprintf(c->lost_message, sizeof c->lost_message, "%s", message);
  if (c->standby) return;
  d->losses_total++;
  if (d->native_ctx == c) ul__loss_take_locked(d, c);
}

/* Makes the loss recorded in `c` the device's (under ul__lost_mu). */
void ul__loss_take_locked(ul_device *d, const ul__native_ctx *c) {
  if (!atomic_load(&d->lost))
    ul__forensics_loss_locked(d, c->epoch, c->lost_reason, c->lost_at_ns, c->lost_message);
  d->lost_reason = c->lost_reason;
  d->lost_at_ns = c->lost_at_ns;
  snprintf(d->lost_message, sizeof d->lost_message, "%s", c->lost_message);
  atomic_store(&d->lost, true);
}

void ul__on_device_lost(WGPUDevice const *device, uint32_t reason, WGPUStringView message,
                           void *u1, void *u2) {
  UL__UNUSED(device);
  UL__UNUSED(u2);
  ul__native_ctx *c = u1;
  char msg[256];
  ul__sv_copy(message, msg, sizeof msg);
  if (reason != WGPUDeviceLostReason_CallbackCancelled) atomic_store(&c->drained, true);
  pthread_mutex_lock(&ul__lost_mu);
  ul_device *d = c->owner;
  /* CallbackCancelled: the instance went away; Destroyed with no owner: our
   * own release. Neither is a loss to recover from. */
  if (d && !d->destroying && reason != WGPUDeviceLostReason_CallbackCancelled)
    loss_record_locked(d, c, reason, msg);
  pthread_mutex_unlock(&ul__lost_mu);
  ul__ctx_unref(c);
}

void ul__on_uncaptured_error(WGPUDevice const *device, uint32_t type, WGPUStringView message,
                                void *u1, void *u2) {
  UL__UNUSED(device);
  UL__UNUSED(u2);
  ul__native_ctx *c = u1;
  char msg[sizeof ((ul_device *)0)->uncaptured_message];
  ul__sv_copy(message, msg, sizeof msg);
  pthread_mutex_lock(&ul__lost_mu);
  ul_device *d = c->owner;
  if (c->standby) {
    atomic_fetch_add(&c->standby_errors, 1);
    pthread_mutex_unlock(&ul__lost_mu);
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
  pthread_mutex_unlock(&ul__lost_mu);
  if (!scoped) ul__log(UL__LOG_WARN, "uncaptured WebGPU error (type %u): %s", type, msg);
}

bool ul__device_loss_pending(ul_device *d) { return atomic_load(&d->lost); }

bool ul__device_uncaptured_since_typed(ul_device *d, uint64_t mark, char *msg, size_t cap, uint32_t *type) {
  if (atomic_load(&d->uncaptured_errors) == mark) return false;
  pthread_mutex_lock(&ul__lost_mu);
  snprintf(msg, cap, "%s", d->uncaptured_message);
  if (type) *type = d->uncaptured_type;
  pthread_mutex_unlock(&ul__lost_mu);
  return true;
}

bool ul__device_uncaptured_since(ul_device *d, uint64_t mark, char *msg, size_t cap) {
  return ul__device_uncaptured_since_typed(d, mark, msg, cap, NULL);
}

void ul__device_note_loss(ul_device *d, const char *message) {
  pthread_mutex_lock(&ul__lost_mu);
  if (d->native_ctx)
    loss_record_locked(d, d->native_ctx, WGPUDeviceLostReason_Unknown, message ? message : "device lost");
  pthread_mutex_unlock(&ul__lost_mu);
}

void ul__lost_lock(void) { pthread_mutex_lock(&ul__lost_mu); }
void ul__lost_unlock(void) { pthread_mutex_unlock(&ul__lost_mu); }

ul__native_ctx *ul__native_ctx_ref(ul_device *d) {
  ul__native_ctx *c = d->native_ctx;
  if (c) atomic_fetch_add(&c->refs, 1);
  return c;
}
void ul__native_ctx_unref(ul__native_ctx *c) { ul__ctx_unref(c); }
bool ul__native_ctx_drained(ul__native_ctx *c) { return c && atomic_load(&c->drained); }
bool ul__native_ctx_on_release(ul__native_ctx *c, void (*fn)(void *), void *arg) {
  release_hook *h = c ? malloc(sizeof *h) : NULL;
  if (!h) return false;
  h->fn = fn;
  h->arg = arg;
  pthread_mutex_lock(&ul__lost_mu);
  h->next = c->hooks;
  c->hooks = h;
  c->hook_count++;
  pthread_mutex_unlock(&ul__lost_mu);
  return true;
}
void ul__native_ctx_prune(ul__native_ctx *c, void (*fn)(void *), bool (*gone)(void *)) {
  if (!c) return;
  pthread_mutex_lock(&ul__lost_mu);
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
  pthread_mutex_unlock(&ul__lost_mu);
}
uint32_t ul__native_ctx_hook_count(ul__native_ctx *c) {
  if (!c) return 0;
  pthread_mutex_lock(&ul__lost_mu);
  uint32_t n = c->hook_count;
  pthread_mutex_unlock(&ul__lost_mu);
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

void ul__device_lock(ul_device *d) {
  ul__log_hold(d->label);
  pthread_mutex_lock(&d->mu);
}

void ul__device_unlock(ul_device *d) {
  if (d->hev_count) ul__device_health_events(d);
  int n = d->pending_count;
  if (n == 0) {
    pthread_mutex_unlock(&d->mu);
    ul__log_release();
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
  ul__log_release(); /* the log's lines before the events they explain */
  for (int i = 0; i < n; i++) {
    evs[i].ev.message = evs[i].message;
    if (evs[i].ev.kind == UL_EVENT_HEALTH) evs[i].ev.health = (ul_health_state)evs[i].ev.attempt;
    if (listener) listener(d, &evs[i].ev, lu);
    if (evs[i].ev.kind == UL_EVENT_FAILED && failed) failed(d, evs[i].message, fu);
  }
}

/* ---- loss state for recovery (src/recover/gate.c) ---- */

void ul__device_loss_info(ul_device *d, uint32_t *reason, char *msg, size_t cap) {
  pthread_mutex_lock(&ul__lost_mu);
  *reason = d->lost_reason;
  snprintf(msg, cap, "%s", d->lost_message);
  pthread_mutex_unlock(&ul__lost_mu);
}

void ul__device_set_lost(ul_device *d, const char *message) {
  pthread_mutex_lock(&ul__lost_mu);
  uint64_t now = ul__now_ns();
  if (!atomic_load(&d->lost)) ul__forensics_loss_locked(d, d->epoch, WGPUDeviceLostReason_Unknown, now, message);
  snprintf(d->lost_message, sizeof d->lost_message, "%s", message);
  d->lost_at_ns = now;
  d->lost_reason = WGPUDeviceLostReason_Unknown;
  atomic_store(&d->lost, true);
  pthread_mutex_unlock(&ul__lost_mu);
}

void ul__device_count_recovery(ul_device *d) {
  pthread_mutex_lock(&ul__lost_mu); /* metrics read it under this lock */
  d->recoveries_total++;
  uint64_t now = ul__now_ns();
  if (d->lost_at_ns && now > d->lost_at_ns) d->recovery_ns_total += now - d->lost_at_ns;
  pthread_mutex_unlock(&ul__lost_mu);
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
