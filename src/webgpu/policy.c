/* unlost's additions to webgpu.h (include/unlost_webgpu.h): a buffer's
 * restore policy chained on its descriptor (sType UL_WGPU_STYPE_RESTORE)
 * or set after its creation, and the engine's device behind a WGPUDevice
 * for unlost.h's calls. */
#include "webgpu/wg.h"

#include <errno.h>
#include <sys/stat.h>

UL__WG_EXPORT ul_device *ul_wgpu_device(WGPUDevice device) {
  ul__wg_device *dv = ul__wg_peek(device, UL__WG_DEVICE);
  return dv ? dv->ud : NULL;
}

/* The engine's CALLBACK calls the program's function with its own handles. */
static ul_status trampoline(ul_device *device, ul_buffer buffer, void *user) {
  UL__UNUSED(device);
  UL__UNUSED(buffer);
  ul__wg_buffer *b = user;
  if (!b->restore_fn) return UL_OK;
  WGPUStatus st = b->restore_fn((WGPUDevice)b->h.dev, (WGPUBuffer)b, b->restore_user);
  return st == WGPUStatus_Success ? UL_OK : ul__fail(UL_ERR_INTERNAL, "the restore callback failed");
}

ul_status ul__wg_policy_spec(ul__wg_buffer *b, const ul_wgpu_restore *r, uint64_t size, ul__buffer_spec *spec,
                             struct stat *st) {
  if ((unsigned)r->policy > UL_RESTORE_CALLBACK)
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "restore policy %d is not a ul_restore", (int)r->policy);
  spec->restore = r->policy;
  spec->from_use = r->policy == UL_RESTORE_LOG;
  if (r->policy == UL_RESTORE_SOURCE) {
    if (!r->source_data == !r->source_path)
      return ul__fail(UL_ERR_INVALID_ARGUMENT, "SOURCE needs exactly one of source_data and source_path");
    if (r->source_path) {
      if (stat(r->source_path, st) != 0)
        return ul__fail(UL_ERR_IO, "source '%s': %s", r->source_path, strerror(errno));
      if (!S_ISREG(st->st_mode) || r->source_offset > (uint64_t)st->st_size ||
          (uint64_t)st->st_size - r->source_offset < size)
        return ul__fail(UL_ERR_IO, "source '%s' is not a regular file of at least %llu bytes from offset %llu",
                        r->source_path, (unsigned long long)size, (unsigned long long)r->source_offset);
    }
    spec->source_data = r->source_data;
    spec->source_path = r->source_path;
    spec->source_offset = r->source_offset;
    spec->source_stat = r->source_path ? st : NULL;
  }
  if (r->policy == UL_RESTORE_CALLBACK) {
    if (!r->restore_fn) return ul__fail(UL_ERR_INVALID_ARGUMENT, "CALLBACK without restore_fn");
    b->restore_fn = r->restore_fn;
    b->restore_user = r->restore_user;
    spec->restore_fn = trampoline;
    spec->restore_user = b;
  }
  return UL_OK;
}

UL__WG_EXPORT ul_status ul_wgpu_buffer_set_restore(WGPUBuffer buffer, const ul_wgpu_restore *desc) {
  ul__wg_buffer *b = ul__wg_peek(buffer, UL__WG_BUFFER);
  if (!b || !b->h.id || atomic_load(&b->h.destroyed))
    return ul__fail(UL_ERR_INVALID_HANDLE, "set restore policy: the buffer is not a live buffer of libunlost-webgpu");
  if (!desc) return ul__fail(UL_ERR_INVALID_ARGUMENT, "set restore policy: desc is NULL");
  ul__buffer_spec spec = {0};
  struct stat st;
  ul__wg_buffer keep = *b; /* the callback fields, should the change fail */
  ul_status s = ul__wg_policy_spec(b, desc, b->size, &spec, &st);
  if (s) {
    b->restore_fn = keep.restore_fn;
    b->restore_user = keep.restore_user;
    return ul__wrap(s, "set restore policy");
  }
  ul__wg_device *dv = b->h.dev;
  if (atomic_load(&dv->lost)) return ul__fail(UL_ERR_DEVICE_FAILED, "set restore policy: the device is lost");
  ul_device *d = dv->ud;
  if ((s = ul__engine_enter(d))) return s;
  s = ul__buffer_set_policy(d, b->h.id, &spec);
  ul__engine_unlock(d);
  return s;
}
