/* A door's way into the engine and out of it: the gate (recover/gate.c),
 * which makes the device usable before a call's work, and the device's
 * lock (core), under the names of the engine's front, which is all a door
 * reaches. */
#include "engine/engine.h"
#include "recover/recover.h"

ul_status ul__engine_enter(ul_device *d) { return ul__device_enter(d); }

ul_status ul__engine_enter_ex(ul_device *d, bool gate) { return ul__device_enter_ex(d, gate); }

void ul__engine_lock(ul_device *d) { ul__device_lock(d); }

void ul__engine_unlock(ul_device *d) { ul__device_unlock(d); }

bool ul__engine_loss_pending(ul_device *d) { return ul__device_loss_pending(d); }
