/* Internal to unlost: a fault-injecting proc table. It wraps the real table,
 * counts every WebGPU call, and injects faults by a schedule:
 *
 *   loss@N            lose the device (wgpuDeviceForceLoss) before call N
 *   oom@N             inject an out-of-memory error before call N
 *   validation@N      inject a validation error before call N
 *   gpu-fail=K        the next K requests for a non-fallback adapter fail
 *                     ("all": every one, as if the GPU never came back)
 *   adapter-fail=K    the next K adapter requests fail, fallback included
 *   device-fail=K     the next K device requests fail
 *   loss-rate=P       lose the device before each call with probability P
 *   loss-every=N      lose the device every N calls
 *   seed=S            seed of loss-rate's generator (default 1)
 *   recovery-fail=K   the next K device requests made by a recovery fail
 *                     (a request fault that only recovery can meet)
 *   standby-fail=K    the next K standby builds fail: their device request is
 *                     refused, as a GPU's vkCreateDevice may refuse a second
 *                     device (the standby is built through the real table, so
 *                     no other request fault reaches it)
 *   recovery-delay=MS each device request made by a recovery waits MS ms
 *                     first (a device slow to come back; 0: none)
 *   standby-delay=MS  each standby build waits MS ms before it asks for its
 *                     device (a standby slower than a destroy's wait for it)
 *   count-recovery=1  calls made while a device recovers are counted and
 *                     faulted too (pairs: a second fault inside recovery)
 *
 * oom and validation are injected only while unlost listens for a call's
 * errors (ul__chaos_listening: a create, a rebuild), where the
 * implementation reports them to that call; elsewhere they are not
 * injected (and not counted).
 *
 * Items are separated by commas: "loss@120,gpu-fail=3". Call indices start
 * at 1. One chaos table may be active per process at a time. */
#ifndef UL_CHAOS_H
#define UL_CHAOS_H

#include "wgpu/procs.h"

typedef struct ul__chaos ul__chaos;

ul_status ul__chaos_create(const char *spec, const ul__wgpu *real, ul__chaos **out);
void ul__chaos_destroy(ul__chaos *c);
const ul__wgpu *ul__chaos_procs(ul__chaos *c);
/* The device faults are injected into (set on every rebuild). */
void ul__chaos_set_device(ul__chaos *c, WGPUDevice device);
/* Adapter requests on this instance count as requests for the fallback. */
void ul__chaos_set_cpu_instance(ul__chaos *c, WGPUInstance inst);
/* Stops injecting into `device` if it is the current one (it is released). */
void ul__chaos_forget_device(ul__chaos *c, WGPUDevice device);
/* WebGPU calls made through the table so far. */
uint64_t ul__chaos_calls(const ul__chaos *c);
/* Faults injected so far. */
uint64_t ul__chaos_injected(const ul__chaos *c);
/* While a device recovers, its calls are neither counted nor faulted
 * (unless count-recovery=1): a schedule addresses the program's own work,
 * and one denser than a recovery could otherwise never let it finish. */
void ul__chaos_recovering(ul__chaos *c, bool recovering);
/* unlost starts (true) or stops listening for the errors of the calls it
 * makes next (core/scope.c); NULL c: no-op. */
void ul__chaos_listening(ul__chaos *c, bool on);
/* Takes one of standby-fail's failures: true when the standby build asking
 * now must fail (NULL c: false). */
bool ul__chaos_standby_fails(ul__chaos *c);
/* standby-delay's milliseconds (0 without a schedule). */
uint64_t ul__chaos_standby_delay_ms(ul__chaos *c);
/* Limits no adapter offers: a device request that asks for them is refused
 * by the implementation itself, by the callback path of a real refusal. */
void ul__chaos_refused_limits(WGPULimits *lim);
/* Sets the call and fault counters back to zero. */
void ul__chaos_reset_counters(ul__chaos *c);
/* Replaces the schedule (same syntax); counters keep running. */
ul_status ul__chaos_reschedule(ul__chaos *c, const char *spec);
/* Warns of each fault point (kind@N) of the schedule that injected
 * nothing: its call never came (with the count of calls seen), or no
 * fault could be injected there. Done at destroy (a program that never
 * destroys its env: at the chaos report at exit). */
void ul__chaos_say_unmet(ul__chaos *c);

#endif
