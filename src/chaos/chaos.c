/* The fault-injecting proc table (see chaos.h for the schedule syntax). */
#include "chaos/chaos.h"

#include <errno.h>
#include <math.h>

#define UL__CHAOS_MAX_POINTS 64
#define UL__FAIL_ALL UINT32_MAX

typedef enum { FAULT_LOSS, FAULT_OOM, FAULT_VALIDATION } fault_kind;

typedef struct fault_point {
  fault_kind kind;
  uint64_t at;
  bool done;     /* its call came */
  bool injected; /* and the fault was injected there (not: no device yet,
                  * or an error outside unlost's error scopes) */
} fault_point;

struct ul__chaos {
  const ul__wgpu *real;
  ul__wgpu procs;
  pthread_mutex_t mu;
  _Atomic uint64_t calls;
  _Atomic uint64_t work_calls; /* calls not waiting (loss-every counts these) */
  _Atomic uint64_t injected;
  _Atomic int recovering;
  WGPUDevice device;
  WGPUInstance cpu_instance;
  _Atomic int scope_depth; /* unlost listens for the calls' errors (ul__chaos_listening) */
  /* The schedule (under mu): what parse_spec reads, replaced whole by
   * ul__chaos_reschedule. */
  struct {
    fault_point points[UL__CHAOS_MAX_POINTS];
    int npoints;
    uint32_t gpu_fail, adapter_fail, device_fail, recovery_fail, standby_fail;
    uint64_t recovery_delay_ms; /* each device request of a recovery waits this long first */
    uint64_t standby_delay_ms;  /* each standby build's device request waits this long first */
    bool count_recovery;
    double loss_rate;
    uint64_t loss_every;
    uint64_t rng;
  } plan;
};

static _Atomic(ul__chaos *) g_chaos;

static ul_status parse_count(const char *v, uint32_t *out) {
  if (!strcmp(v, "all")) {
    *out = UL__FAIL_ALL;
    return UL_OK;
  }
  uint64_t n;
  ul_status s = ul__parse_u64(v, 0, UL__FAIL_ALL - 1, false, &n);
  if (s) return ul__wrap(s, "bad count (a number or 'all')");
  *out = (uint32_t)n;
  return UL_OK;
}

/* Call indices and periods: far beyond any run, never near overflow. */
#define UL__CHAOS_MAX_INDEX (1ull << 48)

static ul_status parse_u64(const char *v, uint64_t lo, uint64_t *out) {
  ul_status s = ul__parse_u64(v, lo, UL__CHAOS_MAX_INDEX, false, out);
  return s ? ul__wrap(s, "bad number") : UL_OK;
}

static ul_status parse_item(ul__chaos *c, char *item) {
  char *at = strchr(item, '@');
  char *eq = strchr(item, '=');
  if (at) {
    *at = '\0';
    fault_kind k;
    if (!strcmp(item, "loss")) k = FAULT_LOSS;
    else if (!strcmp(item, "oom")) k = FAULT_OOM;
    else if (!strcmp(item, "validation")) k = FAULT_VALIDATION;
    else return ul__fail(UL_ERR_INVALID_ARGUMENT, "unknown fault '%s' (loss, oom, validation)", item);
    uint64_t n = 0;
    ul_status s = parse_u64(at + 1, 1, &n);
    if (s) return ul__wrap(s, "call index (from 1)");
    if (c->plan.npoints >= UL__CHAOS_MAX_POINTS)
      return ul__fail(UL_ERR_INVALID_ARGUMENT, "more than %d fault points", UL__CHAOS_MAX_POINTS);
    c->plan.points[c->plan.npoints++] = (fault_point){k, n, false, false};
    return UL_OK;
  }
  if (!eq) return ul__fail(UL_ERR_INVALID_ARGUMENT, "item '%s' is neither KIND@N nor KEY=VALUE", item);
  *eq = '\0';
  const char *v = eq + 1;
  if (!strcmp(item, "gpu-fail")) return parse_count(v, &c->plan.gpu_fail);
  if (!strcmp(item, "adapter-fail")) return parse_count(v, &c->plan.adapter_fail);
  if (!strcmp(item, "device-fail")) return parse_count(v, &c->plan.device_fail);
  if (!strcmp(item, "recovery-fail")) return parse_count(v, &c->plan.recovery_fail);
  if (!strcmp(item, "standby-fail")) return parse_count(v, &c->plan.standby_fail);
  if (!strcmp(item, "recovery-delay")) {
    ul_status s = ul__parse_u64(v, 0, 600000, false, &c->plan.recovery_delay_ms);
    return s ? ul__wrap(s, "recovery-delay (ms, at most 600000)") : UL_OK;
  }
  if (!strcmp(item, "standby-delay")) {
    ul_status s = ul__parse_u64(v, 0, 600000, false, &c->plan.standby_delay_ms);
    return s ? ul__wrap(s, "standby-delay (ms, at most 600000)") : UL_OK;
  }
  if (!strcmp(item, "count-recovery")) {
    if (strcmp(v, "0") && strcmp(v, "1"))
      return ul__fail(UL_ERR_INVALID_ARGUMENT, "count-recovery '%s' is not 0 or 1", v);
    c->plan.count_recovery = v[0] == '1';
    return UL_OK;
  }
  if (!strcmp(item, "loss-every")) return parse_u64(v, 0, &c->plan.loss_every);
  if (!strcmp(item, "seed")) {
    ul_status s = ul__parse_u64(v, 0, UINT64_MAX, false, &c->plan.rng);
    return s ? ul__wrap(s, "bad seed") : UL_OK;
  }
  if (!strcmp(item, "loss-rate")) {
    ul_status s = ul__parse_f64(v, 0.0, 1.0, &c->plan.loss_rate);
    return s ? ul__wrap(s, "loss-rate (0 to 1)") : UL_OK;
  }
  return ul__fail(UL_ERR_INVALID_ARGUMENT, "unknown chaos key '%s'", item);
}

static ul_status parse_spec(ul__chaos *c, const char *spec) {
  memset(&c->plan, 0, sizeof c->plan);
  c->plan.rng = 1;
  if (strlen(spec) > 4096) return ul__fail(UL_ERR_INVALID_ARGUMENT, "chaos schedule too long");
  char *copy = ul__strdup(spec);
  if (!copy) return ul__fail(UL_ERR_OUT_OF_MEMORY, "out of host memory");
  ul_status s = UL_OK;
  char *save = NULL;
  for (char *it = strtok_r(copy, ",", &save); it && !s; it = strtok_r(NULL, ",", &save)) {
    while (*it == ' ') it++;
    if (*it) s = parse_item(c, it);
  }
  free(copy);
  if (!c->plan.rng) c->plan.rng = 1;
  return s;
}

static double next_unit(uint64_t *state) {
  return (double)(ul__splitmix64(state) >> 11) / 9007199254740992.0;
}

/* Counts the call and injects whatever the schedule says for it. */
static void before_call(ul__chaos *c, bool waiting) {
  /* Calls made by a recovery are not counted: a schedule addresses the
   * program's own work, and one denser than a recovery could otherwise
   * never let recovery finish. */
  if (atomic_load(&c->recovering) > 0 && !c->plan.count_recovery) return;
  uint64_t n = atomic_fetch_add(&c->calls, 1) + 1;
  /* loss-every counts work, not waiting: a program that polls for its
   * results (WaitAny with no timeout, ProcessEvents in a loop) would
   * otherwise be lost at a rate its polling sets, and every wait for work
   * longer than N polls would be lost before it ends. A loss at call N
   * (loss@N, every call) still lands on waits. */
  uint64_t w = waiting ? atomic_load(&c->work_calls) : atomic_fetch_add(&c->work_calls, 1) + 1;
  fault_kind todo[4];
  int point[4]; /* the fault point each came from, -1 for a rate or a period */
  int ntodo = 0;
  pthread_mutex_lock(&c->mu);
  WGPUDevice dev = c->device;
  for (int i = 0; i < c->plan.npoints; i++) {
    if (!c->plan.points[i].done && c->plan.points[i].at == n) {
      c->plan.points[i].done = true;
      if (ntodo < 4) point[ntodo] = i, todo[ntodo++] = c->plan.points[i].kind;
    }
  }
  if (c->plan.loss_every && !waiting && w % c->plan.loss_every == 0 && ntodo < 4) point[ntodo] = -1, todo[ntodo++] = FAULT_LOSS;
  if (c->plan.loss_rate > 0 && next_unit(&c->plan.rng) < c->plan.loss_rate && ntodo < 4) point[ntodo] = -1, todo[ntodo++] = FAULT_LOSS;
  pthread_mutex_unlock(&c->mu);
  if (!dev) return;
  for (int i = 0; i < ntodo; i++) {
    uint64_t before = atomic_load(&c->injected);
    char msg[96];
    switch (todo[i]) {
    case FAULT_LOSS:
      if (!c->real->DeviceForceLoss) break;
      snprintf(msg, sizeof msg, "unlost chaos: device loss injected at call %llu",
               (unsigned long long)n);
      c->real->DeviceForceLoss(dev, WGPUDeviceLostReason_Unknown, ul__sv(msg));
      atomic_fetch_add(&c->injected, 1);
      break;
    case FAULT_OOM:
    case FAULT_VALIDATION:
      /* Outside unlost's error scopes the implementation reports an error
       * to nobody's call (the uncaptured-error callback): not a fault that
       * a call can meet, so not injected there. */
      if (!c->real->DeviceInjectError || atomic_load(&c->scope_depth) <= 0) break;
      snprintf(msg, sizeof msg, "unlost chaos: %s injected at call %llu",
               todo[i] == FAULT_OOM ? "out-of-memory" : "validation error",
               (unsigned long long)n);
      c->real->DeviceInjectError(
          dev, todo[i] == FAULT_OOM ? WGPUErrorType_OutOfMemory : WGPUErrorType_Validation,
          ul__sv(msg));
      atomic_fetch_add(&c->injected, 1);
      break;
    }
    if (point[i] >= 0 && atomic_load(&c->injected) != before) {
      pthread_mutex_lock(&c->mu);
      c->plan.points[point[i]].injected = true;
      pthread_mutex_unlock(&c->mu);
    }
  }
}

static const char *fault_name(fault_kind k) {
  return k == FAULT_LOSS ? "loss" : k == FAULT_OOM ? "oom" : "validation";
}

void ul__chaos_say_unmet(ul__chaos *c) {
  if (!c) return;
  uint64_t calls = atomic_load(&c->calls);
  pthread_mutex_lock(&c->mu);
  for (int i = 0; i < c->plan.npoints; i++) {
    const fault_point *p = &c->plan.points[i];
    if (!p->done)
      ul__log(UL__LOG_WARN, "unlost chaos: %s@%llu injected nothing: the program made %llu counted call(s)",
              fault_name(p->kind), (unsigned long long)p->at, (unsigned long long)calls);
    else if (!p->injected)
      ul__log(UL__LOG_WARN, "unlost chaos: %s@%llu injected nothing: %s", fault_name(p->kind),
              (unsigned long long)p->at,
              p->kind == FAULT_LOSS ? "no device was the fault target at that call"
                                    : "that call was not in one of unlost's error scopes (a create, a rebuild), "
                                      "where such an error is heard");
  }
  pthread_mutex_unlock(&c->mu);
}

static bool take(ul__chaos *c, uint32_t *counter) {
  pthread_mutex_lock(&c->mu);
  bool fail = *counter > 0;
  if (fail && *counter != UL__FAIL_ALL) (*counter)--;
  pthread_mutex_unlock(&c->mu);
  return fail;
}

/* A failing adapter request still goes through the implementation, asking
 * for a backend that this platform does not have, so the failure arrives by
 * the same callback path a real one would. */
static WGPUFuture chaos_request_adapter(WGPUInstance i, const WGPURequestAdapterOptions *o,
                                       WGPURequestAdapterCallbackInfo cb) {
  ul__chaos *c = atomic_load(&g_chaos);
  before_call(c, false);
  pthread_mutex_lock(&c->mu);
  bool fallback = (o && o->forceFallbackAdapter) || (c->cpu_instance && i == c->cpu_instance);
  pthread_mutex_unlock(&c->mu);
  bool fail = take(c, &c->plan.adapter_fail);
  if (!fail && !fallback) fail = take(c, &c->plan.gpu_fail);
  if (fail) {
    WGPURequestAdapterOptions bad = o ? *o : (WGPURequestAdapterOptions){0};
    bad.backendType = WGPUBackendType_D3D12;
    atomic_fetch_add(&c->injected, 1);
    return c->real->InstanceRequestAdapter(i, &bad, cb);
  }
  return c->real->InstanceRequestAdapter(i, o, cb);
}

void ul__chaos_refused_limits(WGPULimits *lim) {
  memset(lim, 0xff, sizeof *lim); /* every limit "undefined"... */
  lim->nextInChain = NULL;
  lim->maxBindGroups = 1u << 30;   /* ...but this one, beyond any adapter */
}

/* A failing device request asks for a limit no adapter offers. */
static WGPUFuture chaos_request_device(WGPUAdapter a, const WGPUDeviceDescriptor *d,
                                       WGPURequestDeviceCallbackInfo cb) {
  ul__chaos *c = atomic_load(&g_chaos);
  before_call(c, false);
  bool fail = take(c, &c->plan.device_fail);
  if (atomic_load(&c->recovering) > 0) {
    pthread_mutex_lock(&c->mu);
    uint64_t delay = c->plan.recovery_delay_ms;
    pthread_mutex_unlock(&c->mu);
    /* A device that is slow to come back (70-90 ms on an H200, far more on
     * a GPU being reset): no lock of unlost's is held across the request. */
    if (delay) ul__sleep_ns(delay * 1000000ull);
    if (!fail) fail = take(c, &c->plan.recovery_fail);
  }
  if (fail) {
    WGPUDeviceDescriptor bad = d ? *d : (WGPUDeviceDescriptor){0};
    WGPULimits lim;
    ul__chaos_refused_limits(&lim);
    bad.requiredLimits = &lim;
    atomic_fetch_add(&c->injected, 1);
    return c->real->AdapterRequestDevice(a, &bad, cb);
  }
  return c->real->AdapterRequestDevice(a, d, cb);
}

uint64_t ul__chaos_standby_delay_ms(ul__chaos *c) {
  if (!c) return 0;
  pthread_mutex_lock(&c->mu);
  uint64_t ms = c->plan.standby_delay_ms;
  pthread_mutex_unlock(&c->mu);
  return ms;
}

bool ul__chaos_standby_fails(ul__chaos *c) {
  if (!c || !take(c, &c->plan.standby_fail)) return false;
  atomic_fetch_add(&c->injected, 1);
  return true;
}

/* The calls that wait for work rather than do it (folded at compile time). */
#define UL__CHAOS_WAITING(name) (!strcmp(name, "InstanceProcessEvents") || !strcmp(name, "InstanceWaitAny"))
#define UL__WRAP(req, kind, Ret, Name, params, args) UL__WRAP_##kind(Ret, Name, params, args)
#define UL__WRAP_R(Ret, Name, params, args)                                          \
  __attribute__((unused)) static Ret chaos_##Name params {                           \
    ul__chaos *ch_ = atomic_load(&g_chaos);                                          \
    before_call(ch_, UL__CHAOS_WAITING(#Name));                                      \
    return ch_->real->Name args;                                                     \
  }
#define UL__WRAP_V(Ret, Name, params, args)                                          \
  __attribute__((unused)) static void chaos_##Name params {                          \
    ul__chaos *ch_ = atomic_load(&g_chaos);                                          \
    before_call(ch_, UL__CHAOS_WAITING(#Name));                                      \
    ch_->real->Name args;                                                            \
  }
UL__WGPU_PROCS(UL__WRAP)
#undef UL__WRAP

void ul__chaos_listening(ul__chaos *c, bool on) {
  if (c) atomic_fetch_add(&c->scope_depth, on ? 1 : -1);
}

static void ul__chaos_fill(ul__chaos *c) {
#define UL__SET(req, kind, Ret, Name, params, args) \
  c->procs.Name = c->real->Name ? chaos_##Name : NULL;
  UL__WGPU_PROCS(UL__SET)
#undef UL__SET
  c->procs.InstanceRequestAdapter = chaos_request_adapter;
  c->procs.AdapterRequestDevice = chaos_request_device;
}

/* A program that never destroys its env hears of its schedule's unmet
 * points at exit (the newest schedule's: g_chaos). */
static void say_unmet_at_exit(void) { ul__chaos_say_unmet(atomic_load(&g_chaos)); }
static void register_at_exit(void) { (void)atexit(say_unmet_at_exit); }

ul_status ul__chaos_create(const char *spec, const ul__wgpu *real, ul__chaos **out) {
  *out = NULL;
  ul__chaos *c = calloc(1, sizeof *c);
  if (!c) return ul__fail(UL_ERR_OUT_OF_MEMORY, "out of host memory");
  ul_status s = parse_spec(c, spec);
  if (s) {
    free(c);
    return s;
  }
  pthread_mutex_init(&c->mu, NULL);
  c->real = real;
  ul__chaos_fill(c);
  ul__chaos *expected = NULL;
  if (!atomic_compare_exchange_strong(&g_chaos, &expected, c)) {
    pthread_mutex_destroy(&c->mu);
    free(c);
    return ul__fail(UL_ERR_BUSY, "another chaos table is active in this process");
  }
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, register_at_exit);
  *out = c;
  return UL_OK;
}

void ul__chaos_destroy(ul__chaos *c) {
  if (!c) return;
  ul__chaos_say_unmet(c);
  ul__chaos *expected = c;
  atomic_compare_exchange_strong(&g_chaos, &expected, NULL);
  pthread_mutex_destroy(&c->mu);
  free(c);
}

const ul__wgpu *ul__chaos_procs(ul__chaos *c) { return &c->procs; }

void ul__chaos_set_device(ul__chaos *c, WGPUDevice device) {
  if (!c) return;
  pthread_mutex_lock(&c->mu);
  if (c->device != device) atomic_store(&c->scope_depth, 0);
  c->device = device;
  pthread_mutex_unlock(&c->mu);
}

void ul__chaos_reset_counters(ul__chaos *c) {
  if (!c) return;
  atomic_store(&c->calls, 0);
  atomic_store(&c->work_calls, 0);
  atomic_store(&c->injected, 0);
}

void ul__chaos_forget_device(ul__chaos *c, WGPUDevice device) {
  if (!c) return;
  pthread_mutex_lock(&c->mu);
  if (c->device == device) c->device = NULL;
  pthread_mutex_unlock(&c->mu);
}

void ul__chaos_recovering(ul__chaos *c, bool recovering) {
  if (c) atomic_fetch_add(&c->recovering, recovering ? 1 : -1);
}

void ul__chaos_set_cpu_instance(ul__chaos *c, WGPUInstance inst) {
  if (!c) return;
  pthread_mutex_lock(&c->mu);
  c->cpu_instance = inst;
  pthread_mutex_unlock(&c->mu);
}

uint64_t ul__chaos_calls(const ul__chaos *c) { return c ? atomic_load(&c->calls) : 0; }
uint64_t ul__chaos_injected(const ul__chaos *c) { return c ? atomic_load(&c->injected) : 0; }
ul_status ul__chaos_reschedule(ul__chaos *c, const char *spec) {
  ul__chaos tmp;
  memset(&tmp, 0, sizeof tmp);
  ul_status s = parse_spec(&tmp, spec);
  if (s) return s;
  pthread_mutex_lock(&c->mu);
  c->plan = tmp.plan;
  pthread_mutex_unlock(&c->mu);
  return UL_OK;
}
