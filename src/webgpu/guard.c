/* The table through which the front door calls the implementation: every
 * entry of the env's table, wrapped so that this thread is known to be
 * inside the implementation while it runs. An entry of the front door made
 * then (the implementation calling a webgpu.h function itself, which would
 * reach the layer under LD_PRELOAD with one of its own objects) is counted:
 * ul_wgpu_reentries() must stay 0 (tests/webgpu: the preloaded runs). */
#include "webgpu/wg.h"

static const ul__wgpu *g_inner;
static ul__wgpu g_guard;
static _Atomic uint64_t g_reentries;

void ul__wg_note_entry(void) { atomic_fetch_add(&g_reentries, 1); }

UL__WG_EXPORT uint64_t ul_wgpu_reentries(void) { return atomic_load(&g_reentries); }

#define UL__GUARD(req, kind, Ret, Name, params, args) UL__GUARD_##kind(Ret, Name, params, args)
#define UL__GUARD_R(Ret, Name, params, args) \
  static Ret guard_##Name params {           \
    ul__wg_in_native++;                      \
    Ret r_ = g_inner->Name args;             \
    ul__wg_in_native--;                      \
    return r_;                               \
  }
#define UL__GUARD_V(Ret, Name, params, args) \
  static void guard_##Name params {          \
    ul__wg_in_native++;                      \
    g_inner->Name args;                      \
    ul__wg_in_native--;                      \
  }
UL__WGPU_PROCS(UL__GUARD)
#undef UL__GUARD

const ul__wgpu *ul__wg_guard(const ul__wgpu *inner) {
  g_inner = inner;
#define UL__SET(req, kind, Ret, Name, params, args) g_guard.Name = inner->Name ? guard_##Name : NULL;
  UL__WGPU_PROCS(UL__SET)
#undef UL__SET
  return &g_guard;
}
