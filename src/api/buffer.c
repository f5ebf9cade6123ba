/* The public buffer calls: create, destroy, write, read, map, unmap,
 * size; each checks its rules, enters and calls the engine's buffer
 * (src/engine/buffers.c), the buffer below that being src/res/buffer_restore.c. */
#include "engine/engine.h"

#include <errno.h>
#include <sys/stat.h>

static ul_status validate_desc(const ul_buffer_desc *desc) {
  if (!desc) return ul__fail(UL_ERR_INVALID_ARGUMENT, "descriptor is NULL");
  if (desc->size == 0 || desc->size % 4)
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "size %llu is not a positive multiple of 4",
                    (unsigned long long)desc->size);
  if (desc->usage & ~(uint32_t)UL__ALL_BUFFER_USAGE)
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "unknown usage bits 0x%x",
                    desc->usage & ~(uint32_t)UL__ALL_BUFFER_USAGE);
  if ((desc->usage & UL_BUFFER_MAP_READ) && (desc->usage & ~(uint32_t)(UL_BUFFER_MAP_READ | UL_BUFFER_COPY_DST)))
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "MAP_READ combines only with COPY_DST");
  if ((desc->usage & UL_BUFFER_MAP_WRITE) && (desc->usage & ~(uint32_t)(UL_BUFFER_MAP_WRITE | UL_BUFFER_COPY_SRC)))
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "MAP_WRITE combines only with COPY_SRC");
  if ((unsigned)desc->restore > UL_RESTORE_CALLBACK)
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "restore policy %d is not a ul_restore", (int)desc->restore);
  if (desc->restore == UL_RESTORE_SOURCE && !desc->source_data && !desc->source_path)
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "SOURCE policy without source_data or source_path");
  if (desc->restore == UL_RESTORE_SOURCE && desc->source_data && desc->source_path)
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "SOURCE policy with both source_data and source_path");
  if (desc->restore == UL_RESTORE_CALLBACK && !desc->restore_fn)
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "CALLBACK policy without restore_fn");
  if (desc->source_path && desc->source_offset > UINT64_MAX - desc->size)
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "source_offset + size overflows");
  return UL_OK;
}

ul_status ul_buffer_create_at(ul_device *d, const ul_buffer_desc *desc, ul_buffer *out,
                              const ul_site *site) {
  if (out) out->id = 0;
  if (!d || !out) return ul__fail(UL_ERR_INVALID_ARGUMENT, "create buffer: NULL argument");
  ul_status s = validate_desc(desc);
  if (s) return ul__wrap(s, "create buffer '%s'", desc && desc->label ? desc->label : "");
  struct stat st = {0};
  if (desc->source_path) {
    if (stat(desc->source_path, &st) != 0)
      return ul__fail(UL_ERR_IO, "create buffer '%s': source '%s': %s",
                      desc->label ? desc->label : "", desc->source_path, strerror(errno));
    if (!S_ISREG(st.st_mode))
      return ul__fail(UL_ERR_INVALID_ARGUMENT, "create buffer '%s': source '%s' is not a regular file",
                      desc->label ? desc->label : "", desc->source_path);
    if ((uint64_t)st.st_size < desc->source_offset + desc->size)
      return ul__fail(UL_ERR_INVALID_ARGUMENT,
                      "create buffer '%s': source '%s' has %llu bytes, needs %llu",
                      desc->label ? desc->label : "", desc->source_path,
                      (unsigned long long)st.st_size,
                      (unsigned long long)(desc->source_offset + desc->size));
  }
  if ((s = ul__engine_enter(d))) return ul__wrap(s, "create buffer");
  ul__buffer_spec spec = {desc->label, desc->size, desc->usage ? desc->usage
                                                               : (UL_BUFFER_STORAGE | UL_BUFFER_COPY_SRC | UL_BUFFER_COPY_DST),
                          desc->restore, desc->source_data, desc->source_path, desc->source_offset,
                          desc->source_path ? &st : NULL, desc->restore_fn, desc->restore_user, desc->initial_data,
                          false};
  uint32_t id;
  s = ul__buffer_create(d, &spec, site, &id);
  if (!s) *out = (ul_buffer){id};
  ul__engine_unlock(d);
  return s;
}

ul_status ul_buffer_destroy(ul_device *d, ul_buffer buf) {
  if (!d) return ul__fail(UL_ERR_INVALID_ARGUMENT, "destroy buffer: device is NULL");
  if (buf.id == 0) return UL_OK;
  ul__engine_lock(d);
  ul__obj *o;
  d->res->lookup_plain = true; /* nothing to put back into what goes */
  ul_status s = ul__obj_get(d, buf.id, UL__OBJ_BUFFER, "destroy buffer", &o);
  d->res->lookup_plain = false;
  if (!s) {
    ul__obj_destroy(d, o); /* unmaps a mapped buffer; a pending map is aborted */
  }
  ul__engine_unlock(d);
  return s;
}

static ul_status check_range(const ul__obj *o, uint64_t offset, uint64_t size, const char *what) {
  if (offset % 4 || size % 4)
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "%s: offset %llu and size %llu must be multiples of 4", what,
                    (unsigned long long)offset, (unsigned long long)size);
  if (offset > o->u.buf.size || size > o->u.buf.size - offset)
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "%s: range %llu+%llu outside buffer '%s' of %llu bytes",
                    what, (unsigned long long)offset, (unsigned long long)size,
                    o->label ? o->label : "", (unsigned long long)o->u.buf.size);
  return UL_OK;
}

ul_status ul_buffer_write(ul_device *d, ul_buffer buf, uint64_t offset, const void *data,
                          uint64_t size) {
  if (!d || (!data && size)) return ul__fail(UL_ERR_INVALID_ARGUMENT, "write buffer: NULL argument");
  ul_status s = ul__engine_enter(d);
  if (s) return ul__wrap(s, "write buffer");
  ul__obj *o;
  if ((s = ul__buffer_get(d, buf.id, "write buffer", &o))) goto out;
  if ((s = check_range(o, offset, size, "write buffer"))) goto out;
  if (size == 0) goto out;
  if (o->u.buf.mapped) {
    s = ul__fail(UL_ERR_WRONG_STATE, "write buffer '%s': the buffer is mapped", o->label ? o->label : "");
    goto out;
  }
  if (o->u.buf.usage & UL_BUFFER_MAP_READ) {
    s = ul__fail(UL_ERR_INVALID_ARGUMENT, "write buffer '%s': a MAP_READ buffer cannot be written by the queue",
                 o->label ? o->label : "");
    goto out;
  }
  if (o->u.buf.restore == UL_RESTORE_SOURCE) {
    s = ul__fail(UL_ERR_WRONG_STATE, "write buffer '%s': a SOURCE buffer is immutable (it is restored from its source)",
                 o->label ? o->label : "");
    goto out;
  }
  s = ul__buffer_write(d, buf.id, offset, data, size);
out:
  ul__engine_unlock(d);
  return s ? ul__wrap(s, "write buffer") : UL_OK;
}

ul_status ul_buffer_read(ul_device *d, ul_buffer buf, uint64_t offset, void *dst, uint64_t size,
                         uint32_t timeout_ms) {
  if (!d || (!dst && size)) return ul__fail(UL_ERR_INVALID_ARGUMENT, "read buffer: NULL argument");
  ul_status s = ul__engine_enter(d);
  if (s) return ul__wrap(s, "read buffer");
  ul__obj *o;
  if ((s = ul__buffer_get(d, buf.id, "read buffer", &o))) goto out;
  if ((s = check_range(o, offset, size, "read buffer"))) goto out;
  if (size == 0) goto out;
  if (o->u.buf.usage & (UL_BUFFER_MAP_READ | UL_BUFFER_MAP_WRITE)) {
    s = ul__fail(UL_ERR_INVALID_ARGUMENT, "read buffer '%s': use ul_buffer_map for mappable buffers",
                 o->label ? o->label : "");
    goto out;
  }
  /* Lost while reading: rebuild (which replays unfinished work), then
   * read the restored contents. */
  ul__retry rt = UL__RETRY_LOSSES;
  do {
    if (rt.recoveries && (s = ul__buffer_get(d, buf.id, "read buffer", &o))) break;
    uint64_t t0 = ul__now_ns();
    s = ul__buffer_download(d, o, offset, dst, size, ul__timeout_ns(timeout_ms));
    ul__device_health_read(d, s, ul__now_ns() - t0);
  } while (ul__retry_again(d, &s, &rt));
out:
  ul__engine_unlock(d);
  return s ? ul__wrap(s, "read buffer") : UL_OK;
}

ul_status ul_buffer_map(ul_device *d, ul_buffer buf, ul_map_mode mode, uint64_t offset,
                        uint64_t size, uint32_t timeout_ms, void **ptr) {
  if (!d || !ptr) return ul__fail(UL_ERR_INVALID_ARGUMENT, "map buffer: NULL argument");
  *ptr = NULL;
  ul_status s = ul__engine_enter(d);
  if (s) return ul__wrap(s, "map buffer");
  ul__obj *o;
  if ((s = ul__buffer_get(d, buf.id, "map buffer", &o))) goto out;
  if ((s = check_range(o, offset, size, "map buffer"))) goto out;
  uint32_t need = mode == UL_MAP_READ ? UL_BUFFER_MAP_READ : mode == UL_MAP_WRITE ? UL_BUFFER_MAP_WRITE : 0;
  if (!need || !(o->u.buf.usage & need)) {
    s = ul__fail(UL_ERR_INVALID_ARGUMENT, "map buffer '%s': mode %d needs usage %s", o->label ? o->label : "",
                 (int)mode, mode == UL_MAP_WRITE ? "MAP_WRITE" : "MAP_READ");
    goto out;
  }
  if (o->u.buf.mapped) {
    s = ul__fail(UL_ERR_WRONG_STATE, "map buffer '%s': already mapped", o->label ? o->label : "");
    goto out;
  }
  void *p = NULL;
  /* Lost while mapping: recover (the replay refills what copies wrote
   * into it since the last checkpoint), then map the new buffer. */
  ul__retry rt = UL__RETRY_LOSSES;
  do {
    if (rt.recoveries && (s = ul__buffer_get(d, buf.id, "map buffer", &o))) break;
    s = ul__wait_map(d, o->native, mode == UL_MAP_READ ? WGPUMapMode_Read : WGPUMapMode_Write,
                     (size_t)offset, (size_t)size, ul__timeout_ns(timeout_ms));
  } while (ul__retry_again(d, &s, &rt));
  if (s) goto out;
  p = mode == UL_MAP_READ
          ? (void *)(uintptr_t)d->wgpu->BufferGetConstMappedRange(o->native, (size_t)offset, (size_t)size)
          : d->wgpu->BufferGetMappedRange(o->native, (size_t)offset, (size_t)size);
  if (!p) {
    d->wgpu->BufferUnmap(o->native);
    s = ul__fail(UL_ERR_INTERNAL, "map buffer '%s': no mapped range", o->label ? o->label : "");
    goto out;
  }
  o->u.buf.mapped = true;
  o->u.buf.map_ptr = p;
  o->u.buf.map_offset = offset;
  o->u.buf.map_size = size;
  o->u.buf.map_mode = mode == UL_MAP_READ ? WGPUMapMode_Read : WGPUMapMode_Write;
  *ptr = p;
out:
  ul__engine_unlock(d);
  return s ? ul__wrap(s, "map buffer") : UL_OK;
}

ul_status ul_buffer_unmap(ul_device *d, ul_buffer buf) {
  if (!d) return ul__fail(UL_ERR_INVALID_ARGUMENT, "unmap buffer: NULL device");
  ul_status s = ul__engine_enter_ex(d, false);
  if (s) return ul__wrap(s, "unmap buffer");
  s = ul__buffer_unmap(d, buf.id);
  ul__engine_unlock(d);
  return s;
}

ul_status ul_buffer_size(ul_device *d, ul_buffer buf, uint64_t *size) {
  if (!d || !size) return ul__fail(UL_ERR_INVALID_ARGUMENT, "buffer size: NULL argument");
  ul__engine_lock(d);
  ul__obj *o;
  ul_status s = ul__obj_get(d, buf.id, UL__OBJ_BUFFER, "buffer size", &o);
  *size = s ? 0 : o->u.buf.size;
  ul__engine_unlock(d);
  return s;
}
