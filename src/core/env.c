/* ul_env: the loaded implementation and its instance. */
#include "core/core.h"
#include "chaos/chaos.h"
#include "core/adapter.h"

#include <unistd.h>

const char *ul_version(void) {
#ifdef UL_VERSION_STRING
  return UL_VERSION_STRING;
#else
  return "0.1.0";
#endif
}
int ul_version_number(void) { return UL_VERSION_NUMBER; }

ul_status ul_env_create(const ul_env_desc *desc, ul_env **out) {
  if (!out) return ul__fail(UL_ERR_INVALID_ARGUMENT, "create env: out is NULL");
  *out = NULL;
  ul_env_desc zero = {0};
  if (!desc) desc = &zero;
  ul_env *env = calloc(1, sizeof *env);
  if (!env) return ul__fail(UL_ERR_OUT_OF_MEMORY, "create env: out of host memory");
  ul_status s = ul__wgpu_open(desc->webgpu_lib, &env->lib);
  if (s) {
    free(env);
    return ul__wrap(s, "create env");
  }
  env->wgpu = &env->lib.procs;
  env->allow_null_backend = desc->allow_null_backend;
  const char *chaos = desc->chaos ? desc->chaos : ul__opt_text(UL__OPT_CHAOS);
  if (chaos && *chaos) {
    s = ul__chaos_create(chaos, &env->lib.procs, &env->chaos);
    if (s) {
      ul__wgpu_close(&env->lib);
      free(env);
      return ul__wrap(s, "create env: chaos schedule '%s'", chaos);
    }
    env->wgpu = ul__chaos_procs(env->chaos);
  }
  pthread_mutex_init(&env->mu, NULL);
  pthread_mutex_init(&env->rel_mu, NULL);
  pthread_cond_init(&env->rel_cv, NULL);

  /* Timed waits let every wait carry a deadline without polling. */
  ul__instance_req ir;
  /* the front door waits on several futures at once */
  env->instance = env->lib.procs.CreateInstance(ul__instance_req_init(&ir, true, 64));
  env->timed_wait = env->instance != NULL;
  if (!env->instance) {
    WGPUInstanceDescriptor plain = {0};
    env->instance = env->lib.procs.CreateInstance(&plain);
  }
  if (!env->instance) {
    s = ul__fail(UL_ERR_INTERNAL, "create env: wgpuCreateInstance failed in '%s'",
                 env->lib.path);
    ul__chaos_destroy(env->chaos);
    ul__wgpu_close(&env->lib);
    pthread_mutex_destroy(&env->mu);
    pthread_mutex_destroy(&env->rel_mu);
    pthread_cond_destroy(&env->rel_cv);
    free(env);
    return s;
  }
  /* Dawn (its own entry point says so) keeps compiled pipelines here. */
  if (env->lib.procs.DeviceForceLoss)
    env->blobs = ul__blob_cache_new((size_t)ul__opt_number(UL__OPT_PIPELINE_CACHE_MB) << 20);
  *out = env;
  return UL_OK;
}

ul_status ul_env_destroy(ul_env *env) {
  if (!env) return UL_OK;
  pthread_mutex_lock(&env->mu);
  int n = env->device_count;
  pthread_mutex_unlock(&env->mu);
  if (n > 0)
    return ul__fail(UL_ERR_BUSY, "destroy env: %d device(s) still alive; destroy them first", n);
  if (atomic_load(&env->abandoned_devices)) {
    /* A thread is still inside the implementation with an abandoned
     * device: unloading it under that thread would crash the process. */
    ul__log(UL__LOG_WARN, "destroy env: %u device(s) never finished their release (work that never ends); the "
            "implementation stays loaded until the process exits", atomic_load(&env->abandoned_devices));
    return UL_OK;
  }
  if (env->cpu_instance) env->lib.procs.InstanceRelease(env->cpu_instance);
  env->lib.procs.InstanceRelease(env->instance);
  /* Releasing the instance fired every pending callback (cancelled). */
  ul__adapter_reap_orphans(&env->lib.procs);
  ul__chaos_destroy(env->chaos);
  ul__wgpu_close(&env->lib);
  ul__blob_cache_free(env->blobs);
  pthread_mutex_destroy(&env->mu);
  pthread_mutex_destroy(&env->rel_mu);
  pthread_cond_destroy(&env->rel_cv);
  free(env);
  return UL_OK;
}

ul_status ul_env_chaos_arm(ul_env *env, const char *spec) {
  if (!env || !spec) return ul__fail(UL_ERR_INVALID_ARGUMENT, "chaos arm: NULL argument");
  if (!env->chaos)
    return ul__fail(UL_ERR_WRONG_STATE, "chaos arm: the env was created without a fault schedule");
  ul_status s = ul__chaos_reschedule(env->chaos, spec);
  if (s) return ul__wrap(s, "chaos arm");
  ul__chaos_reset_counters(env->chaos);
  return UL_OK;
}

ul_status ul_env_chaos_counts(ul_env *env, uint64_t *calls, uint64_t *injected) {
  if (!env) return ul__fail(UL_ERR_INVALID_ARGUMENT, "chaos counts: env is NULL");
  if (!env->chaos)
    return ul__fail(UL_ERR_WRONG_STATE, "chaos counts: the env was created without a fault schedule");
  if (calls) *calls = ul__chaos_calls(env->chaos);
  if (injected) *injected = ul__chaos_injected(env->chaos);
  return UL_OK;
}

ul_status ul_env_info_get(ul_env *env, ul_env_info *out) {
  if (!env || !out) return ul__fail(UL_ERR_INVALID_ARGUMENT, "env info: NULL argument");
  memset(out, 0, sizeof *out);
  out->implementation = env->lib.path;
  out->force_loss = env->lib.procs.DeviceForceLoss != NULL;
  out->inject_error = env->lib.procs.DeviceInjectError != NULL;
  out->timed_wait = env->timed_wait;
  return UL_OK;
}

ul_status ul__env_wait(ul_env *env, WGPUInstance inst, WGPUFuture future, _Atomic bool *done,
                       uint64_t timeout_ns) {
  return ul__env_wait_with(env, env->wgpu, inst, future, done, timeout_ns);
}

ul_status ul__env_wait_with(ul_env *env, const ul__wgpu *w, WGPUInstance inst, WGPUFuture future,
                            _Atomic bool *done, uint64_t timeout_ns) {
  uint64_t start = ul__now_ns();
  if (env->timed_wait) {
    for (;;) {
      if (atomic_load(done)) return UL_OK;
      uint64_t now = ul__now_ns();
      if (now - start >= timeout_ns) break;
      /* Wait in slices so a callback fired on another thread is seen. */
      uint64_t slice = UL__MIN(timeout_ns - (now - start), 100000000ull);
      WGPUFutureWaitInfo info = {future, 0};
      uint32_t st = w->InstanceWaitAny(inst, 1, &info, slice);
      if (st == WGPUWaitStatus_Success && info.completed) {
        if (atomic_load(done)) return UL_OK;
      } else if (st == WGPUWaitStatus_Error) {
        /* Not a waitable future (e.g. an implementation quirk): poll. */
        w->InstanceProcessEvents(inst);
        ul__sleep_ns(200000);
      }
    }
  } else {
    uint64_t nap = 20000;
    while (!atomic_load(done)) {
      w->InstanceProcessEvents(inst);
      if (atomic_load(done)) break;
      if (ul__now_ns() - start >= timeout_ns) break;
      ul__sleep_ns(nap);
      if (nap < 1000000) nap *= 2;
    }
  }
  if (atomic_load(done)) return UL_OK;
  return ul__fail(UL_ERR_TIMEOUT, "no answer within %.0f ms", (double)timeout_ns / 1e6);
}

/* The Vulkan loader reads VK_DRIVER_FILES when the implementation creates
 * its Vulkan instance, which Dawn does per WGPUInstance on the first adapter
 * request; the variable is set for that request only and then restored. */
static const char *find_cpu_icd(void) {
  const char *e = ul__opt_text(UL__OPT_CPU_ICD);
  if (e) return e;
  static const char *const paths[] = {
      "/usr/share/vulkan/icd.d/lvp_icd.json",
      "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json",
      "/usr/share/vulkan/icd.d/lvp_icd.aarch64.json",
  };
  for (size_t i = 0; i < UL__COUNT_OF(paths); i++)
    if (access(paths[i], R_OK) == 0) return paths[i];
  return NULL;
}

WGPUInstance ul__env_cpu_instance(ul_env *env) {
  pthread_mutex_lock(&env->mu);
  if (!env->cpu_instance_tried) {
    env->cpu_instance_tried = true;
    const char *icd = find_cpu_icd();
    if (icd) {
      char *old_files = ul__strdup(getenv("VK_DRIVER_FILES"));
      char *old_icd = ul__strdup(getenv("VK_ICD_FILENAMES"));
      setenv("VK_DRIVER_FILES", icd, 1);
      setenv("VK_ICD_FILENAMES", icd, 1);
      ul__instance_req ir;
      env->cpu_instance = env->lib.procs.CreateInstance(ul__instance_req_init(&ir, env->timed_wait, 1));
      /* Dawn makes its Vulkan instance at the first request: make one now,
       * while the variable is set. */
      if (env->cpu_instance) {
        WGPUAdapter a = NULL;
        pthread_mutex_unlock(&env->mu);
        ul_status s = ul__request_adapter(env, env->cpu_instance, WGPUPowerPreference_LowPower,
                                          false, 10000000000ull, &a);
        pthread_mutex_lock(&env->mu);
        if (!s && a) env->lib.procs.AdapterRelease(a);
      }
      if (old_files) setenv("VK_DRIVER_FILES", old_files, 1); else unsetenv("VK_DRIVER_FILES");
      if (old_icd) setenv("VK_ICD_FILENAMES", old_icd, 1); else unsetenv("VK_ICD_FILENAMES");
      free(old_files);
      free(old_icd);
      if (env->chaos) ul__chaos_set_cpu_instance(env->chaos, env->cpu_instance);
    }
  }
  WGPUInstance i = env->cpu_instance;
  pthread_mutex_unlock(&env->mu);
  return i;
}
