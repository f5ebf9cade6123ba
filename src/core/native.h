/* Internal to src/core: what loss.c, native.c and standby.c share about
 * native devices -- the context of a native device's callbacks, the lock
 * of every device's loss state, and the steps of building and releasing
 * one. */
#ifndef UL_CORE_NATIVE_H
#define UL_CORE_NATIVE_H

#include "core/core.h"

/* ---- loss records ------------------------------------------------------------
 * Each native device gets a context for its callbacks. The device and the
 * lost callback each hold a reference; the last one frees it. ul__lost_mu
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
   * ul__lost_mu. */
  struct release_hook *hooks;
  uint32_t hook_count; /* in hooks, under ul__lost_mu */
} ul__native_ctx;

extern pthread_mutex_t ul__lost_mu;

/* ---- loss.c ---- */
/* Drops a reference to `c`; the last frees it. */
void ul__ctx_unref(ul__native_ctx *c);
/* Runs `c`'s release hooks: its device was seen released. */
void ul__ctx_run_release_hooks(ul__native_ctx *c);
/* The device takes the loss recorded in `c` (under ul__lost_mu). */
void ul__loss_take_locked(ul_device *d, const ul__native_ctx *c);
/* The implementation's callbacks of a native device (userdata1: its ctx). */
void ul__on_device_lost(WGPUDevice const *device, uint32_t reason, WGPUStringView message, void *u1, void *u2);
void ul__on_uncaptured_error(WGPUDevice const *device, uint32_t type, WGPUStringView message, void *u1, void *u2);

/* ---- native.c ---- */
/* Releases a standby's native device through the implementation's table,
 * in the background where it may be. */
void ul__standby_release(ul_device *d, ul__native *n);
/* Builds a native device through table `w` (a standby's: the
 * implementation's own, not the fault schedule's target). */
ul_status ul__native_build_on(ul_device *d, const ul__wgpu *w, bool standby, bool fallback, uint64_t epoch,
                              ul__native *n);
/* A condition variable that waits on CLOCK_MONOTONIC. */
void ul__cond_init_monotonic(pthread_cond_t *cv);
/* How long a request for an adapter or a device may take. */
uint64_t ul__request_timeout_ns(const ul_device *d);


#endif
