/* A door's way into the engine and out of it: the gate (recover/gate.c),
 * which makes the device usable before a call's work, the device's lock
 * and the environment (core), under the names of the engine's front,
 * which is all a door reaches. */
#include "engine/engine.h"
#include "recover/recover.h"

/* The log's hold is taken before the gate locks: the gate's lines (a loss,
 * a recovery) reach the program's log callback after the unlock, which
 * releases the hold (on the gate's failure too). */
ul_status ul__engine_enter(ul_device *d) {
  ul__log_hold(d->label);
  return ul__device_enter(d);
}

ul_status ul__engine_enter_ex(ul_device *d, bool gate) {
  ul__log_hold(d->label);
  return ul__device_enter_ex(d, gate);
}

ul_status ul__engine_enter_quiet(ul_device *d) {
  ul__log_hold(d->label);
  return ul__device_enter_quiet(d);
}

void ul__engine_lock(ul_device *d) { ul__device_lock(d); }

void ul__engine_unlock(ul_device *d) { ul__device_unlock(d); }

bool ul__engine_loss_pending(ul_device *d) { return ul__device_loss_pending(d); }

ul_status ul__engine_env_create(ul_env **out) {
  ul_status s = ul_env_create(NULL, out);
  /* The one line that says the layer is in the program (issue 39: a
   * preload that did not happen was silent). */
  if (!s)
    ul__log(UL__LOG_INFO, "libunlost-webgpu %s is active over %s; recovery %s", ul_version(), (*out)->lib.path,
            ul__opt_number(UL__OPT_RECOVERY) ? "on" : "off (UNLOST_RECOVERY=0)");
  return s;
}

ul_status ul__engine_env_destroy(ul_env *env) { return ul_env_destroy(env); }

ul_status ul__engine_chaos_counts(ul_env *env, uint64_t *calls, uint64_t *injected) {
  return ul_env_chaos_counts(env, calls, injected);
}
