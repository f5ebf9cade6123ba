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
