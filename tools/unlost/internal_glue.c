/* The few internals the CLI reads (not part of the public API). */
#include "chaos/chaos.h"
#include "core/core.h"

uint64_t cli_env_chaos_calls(ul_env *env);
uint64_t cli_env_chaos_calls(ul_env *env) { return env && env->chaos ? ul__chaos_calls(env->chaos) : 0; }

/* Arms `spec` on the env's chaos table with the counters at zero. */
int cli_env_chaos_arm(ul_env *env, const char *spec);
int cli_env_chaos_arm(ul_env *env, const char *spec) {
  if (!env || !env->chaos) return -1;
  if (ul__chaos_reschedule(env->chaos, spec)) return -1;
  ul__chaos_reset_counters(env->chaos);
  return 0;
}

uint64_t cli_env_chaos_injected(ul_env *env);
uint64_t cli_env_chaos_injected(ul_env *env) {
  return env && env->chaos ? ul__chaos_injected(env->chaos) : 0;
}

/* Recoveries onto a new device so far (epochs count attempts, not these). */
uint64_t cli_device_recoveries(ul_device *d);
uint64_t cli_device_recoveries(ul_device *d) {
  if (!d) return 0;
  ul__device_lock(d);
  uint64_t n = d->recoveries_total;
  ul__device_unlock(d);
  return n;
}
