/* The few internals the CLI reads (not part of the public API). */
#include "chaos/chaos.h"
#include "core/core.h"

uint64_t cli_env_chaos_calls(ul_env *env);
uint64_t cli_env_chaos_calls(ul_env *env) { return env && env->chaos ? ul__chaos_calls(env->chaos) : 0; }
