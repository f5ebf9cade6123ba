/*
 * unlost_webgpu.h — unlost's additions to webgpu.h, for programs that use
 * libunlost-webgpu (the webgpu.h front door) and want more than recovery
 * without a change: a buffer's restore policy set explicitly, and the
 * engine's device behind a WGPUDevice (reports, metrics, checkpoints,
 * health) through unlost.h.
 *
 * Include it after the program's own webgpu.h (it uses WGPUChainedStruct,
 * WGPUDevice, WGPUBuffer and WGPUStatus from there). Nothing here is needed
 * for recovery: without it, the library chooses each buffer's policy from
 * how the program uses it.
 */
#ifndef UNLOST_WEBGPU_H
#define UNLOST_WEBGPU_H

#include "unlost.h"

#ifdef __cplusplus
extern "C" {
#endif

/* unlost's sType, in webgpu.h's own extension mechanism: a value no
 * implementation uses ("UL" in its high half). An implementation that is
 * not unlost refuses it as an unknown chained struct. */
#define UL_WGPU_STYPE_RESTORE 0x554C0001u

/* Chained on a WGPUBufferDescriptor (nextInChain), or given to
 * ul_wgpu_buffer_set_restore: how the buffer's contents come back after a
 * device loss (the policies of unlost.h's ul_restore):
 *   LOG: the last checkpoint plus a replay of the work since; the default,
 *     chosen from use: while the GPU never writes the buffer, the
 *     checkpoint is where the program's writes came from (a file's range
 *     when the bytes lay in a read-only mapping of it).
 *   NONE: scratch and outputs: zeros after a loss.
 *   SOURCE: immutable data: source_size bytes at source_data (borrowed:
 *     must stay valid and unchanged while the buffer lives), or at
 *     source_offset in the file source_path (copied; checked by size, time
 *     and a hash at every restore: a changed file loses the buffer). Also
 *     its initial contents when given at creation.
 *   SHADOW: a host copy of every write (at creation only).
 *   CALLBACK: restore_fn refills the buffer (wgpuQueueWriteBuffer, or work
 *     it submits) after a rebuild, with no unlost lock held; a status other
 *     than WGPUStatus_Success makes the buffer's contents lost. */
typedef struct ul_wgpu_restore {
  WGPUChainedStruct chain;     /* chain.sType = UL_WGPU_STYPE_RESTORE */
  ul_restore policy;
  const void *source_data;
  const char *source_path;
  uint64_t source_offset;
  WGPUStatus (*restore_fn)(WGPUDevice device, WGPUBuffer buffer, void *user);
  void *restore_user;
} ul_wgpu_restore;

/* Sets a buffer's policy after its creation: LOG, NONE, SOURCE (the
 * program vouches that the buffer holds the source's bytes) or CALLBACK;
 * SHADOW only at creation (UL_ERR_UNSUPPORTED). UL_ERR_INVALID_HANDLE for
 * a buffer that is not live, UL_ERR_INVALID_ARGUMENT (a NULL desc, an
 * unknown policy, a SOURCE without a source, a CALLBACK without a
 * function), UL_ERR_IO (a source file that is not there or too short),
 * UL_ERR_DEVICE_FAILED. */
UL_API ul_status ul_wgpu_buffer_set_restore(WGPUBuffer buffer, const ul_wgpu_restore *desc);

/* The engine's device behind a device of libunlost-webgpu, for unlost.h's
 * calls that observe or drive it (ul_device_report, ul_metrics,
 * ul_device_checkpoint, ul_device_health, ul_device_memory_stats, ...):
 * valid while the WGPUDevice is. NULL for anything else. Do not destroy
 * it: wgpuDeviceRelease does. */
UL_API ul_device *ul_wgpu_device(WGPUDevice device);

/* Entries of libunlost-webgpu's webgpu.h functions made from inside a call
 * the library made into the implementation: the implementation calling a
 * webgpu.h function itself, which under LD_PRELOAD would reach the library
 * with one of the implementation's own objects. 0 with the pinned Dawn
 * (its exported functions call each other only from wrappers no one
 * calls); tests check it stays so. */
UL_API uint64_t ul_wgpu_reentries(void);

#ifdef __cplusplus
}
#endif
#endif /* UNLOST_WEBGPU_H */
