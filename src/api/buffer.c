/* The public buffer calls: create (the native buffer with retries, then its
 * first contents by policy, logged), destroy, write (logged), read, map,
 * unmap (a MAP_WRITE mapping logged as a write), size. The buffer below
 * them is src/res/buffer.c. */
#include "api/api.h"
#include "core/prefill.h"
#include "exec/oplog.h"
#include "recover/recover.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

/* ---- public ---- */
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
  if ((s = ul__device_enter(d))) return ul__wrap(s, "create buffer");
  ul__buffer_spec spec = {desc->label, desc->size, desc->usage ? desc->usage
                                                               : (UL_BUFFER_STORAGE | UL_BUFFER_COPY_SRC | UL_BUFFER_COPY_DST),
                          desc->restore, desc->source_data, desc->source_path, desc->source_offset,
                          desc->source_path ? &st : NULL, desc->restore_fn, desc->restore_user, desc->initial_data,
                          false};
  uint32_t id;
  s = ul__buffer_create(d, &spec, site, &id);
  if (!s) *out = (ul_buffer){id};
  ul__device_unlock(d);
  return s;
}

ul_status ul__buffer_create(ul_device *d, const ul__buffer_spec *spec, const ul_site *site, uint32_t *out) {
  ul_status s;
  *out = 0;
  if (spec->size > d->limits.maxBufferSize)
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "create buffer '%s': size %llu exceeds the device's maxBufferSize %llu",
                    spec->label ? spec->label : "", (unsigned long long)spec->size,
                    (unsigned long long)d->limits.maxBufferSize);
  ul__obj *o = NULL;
  s = ul__obj_new(d, UL__OBJ_BUFFER, spec->label, site, &o);
  if (s) goto out;
  o->pending = true;
  ul__buffer_data *b = &o->u.buf;
  b->size = spec->size;
  b->usage = (uint32_t)spec->usage;
  b->restore = spec->restore;
  b->wgpu_usage = b->usage;
  /* What a restore needs: copies both ways, or into a MAP_READ buffer (its
   * one companion usage); a MAP_WRITE buffer takes none (its host copy
   * fills it through a mapping). */
  if (!(b->usage & (UL_BUFFER_MAP_READ | UL_BUFFER_MAP_WRITE)))
    b->wgpu_usage |= WGPUBufferUsage_CopySrc | WGPUBufferUsage_CopyDst;
  else if (b->usage & UL_BUFFER_MAP_READ)
    b->wgpu_usage |= WGPUBufferUsage_CopyDst;
  b->source_data = spec->source_data;
  b->source_offset = spec->source_offset;
  b->restore_fn = spec->restore_fn;
  b->restore_user = spec->restore_user;
  b->from_use = b->host_only = spec->from_use && b->restore == UL_RESTORE_LOG &&
                               !(b->usage & (UL_BUFFER_MAP_READ | UL_BUFFER_MAP_WRITE));
  const void *initial = spec->initial_data;
  if (spec->source_path) {
    /* The absolute path: a later chdir must not change what restores read. */
    if (!(b->source_path = realpath(spec->source_path, NULL))) {
      s = ul__fail(errno == ENOMEM ? UL_ERR_OUT_OF_MEMORY : UL_ERR_IO, "source '%s': %s", spec->source_path,
                   strerror(errno));
      goto fail;
    }
    b->source_file_size = (uint64_t)spec->source_stat->st_size;
    b->source_mtime_ns = ul__stat_mtime_ns(spec->source_stat);
  }
  /* A MAP_WRITE buffer changes only through the program's mappings, which
   * the log does not see: under LOG (the default) it keeps a host copy, as
   * SHADOW does. */
  if (b->restore == UL_RESTORE_SHADOW || (b->restore == UL_RESTORE_LOG && (b->usage & UL_BUFFER_MAP_WRITE))) {
    b->shadow = calloc(1, (size_t)b->size);
    if (!b->shadow) {
      s = ul__fail(UL_ERR_OUT_OF_MEMORY, "create buffer '%s': no host memory for its shadow copy",
                   o->label ? o->label : "");
      goto fail;
    }
    if (initial) memcpy(b->shadow, initial, (size_t)b->size);
    b->checkpoint = malloc((size_t)b->size);
    if (!b->checkpoint) {
      s = ul__fail(UL_ERR_OUT_OF_MEMORY, "create buffer '%s': no host memory for its shadow copy",
                   o->label ? o->label : "");
      goto fail;
    }
    memcpy(b->checkpoint, b->shadow, (size_t)b->size);
  }
  /* Large SOURCE files: the standby makes and fills these ahead
   * (ul__obj_free forgets it, on a failed create too). */
  if (b->source_path && b->size > UL__STAGING_THRESHOLD && (b->wgpu_usage & WGPUBufferUsage_CopyDst))
    ul__standby_source_add(d, o->id, o->label, b->wgpu_usage, b->size, b->source_path, b->source_offset,
                           b->source_file_size, b->source_mtime_ns);
  ul__track_desc td = {0};
  td.kind = UL__TRACK_BUFFER;
  td.size = b->size;
  td.label = o->label;
  if (site) td.site = (ul__track_site){site->file, site->line, site->func};
  s = ul__track_reserve(d->res->tracker, &td);
  if (s) goto fail;
  td.reserved = true;
  td.owner = o->id;
  ul__retry rt = UL__RETRY_SCOPES;
  do {
    s = ul__obj_create_native(d, o);
    if (!s) {
      const void *init = b->restore == UL_RESTORE_SOURCE ? b->source_data : initial;
      if (b->restore == UL_RESTORE_SOURCE && b->source_path) s = ul__buffer_restore(d, o);
      else if (init && !ul__buffer_filled_at_creation(b)) s = ul__buffer_upload(d, o, 0, init, b->size);
      if (!s && ul__device_loss_pending(d)) s = ul__fail(UL_ERR_DEVICE_LOST, "lost during create");
      /* LOG and NONE: the initial contents are a write like any other
       * (SHADOW keeps them in its host copy, SOURCE in its source). Logged
       * once the buffer exists, so a retry does not log them twice. */
      if (!s && init && (b->restore == UL_RESTORE_LOG || b->restore == UL_RESTORE_NONE ||
                         b->restore == UL_RESTORE_CALLBACK))
        s = ul__oplog_write(d, o, 0, init, b->size);
      /* Only the native create's scope errors are tried again. */
      if (s && s != UL_ERR_DEVICE_LOST) break;
    }
    if (s == UL_ERR_DEVICE_LOST) ul__obj_release_native(d, o);
  } while (ul__retry_again(d, &s, &rt));
  if (s) {
    ul__track_unreserve(d->res->tracker, b->size);
    goto fail;
  }
  s = ul__track_alloc(d->res->tracker, &td, &o->track_id);
  if (s) goto fail;
  o->pending = false;
  *out = o->id;
  goto out;
fail:
  if (o) {
    ul__obj_release_native(d, o);
    ul__obj_free(d, o);
  }
  s = ul__wrap(s, "create buffer");
out:
  return s;
}

ul_status ul_buffer_destroy(ul_device *d, ul_buffer buf) {
  if (!d) return ul__fail(UL_ERR_INVALID_ARGUMENT, "destroy buffer: device is NULL");
  if (buf.id == 0) return UL_OK;
  ul__device_lock(d);
  ul__obj *o;
  d->res->lookup_plain = true; /* nothing to put back into what goes */
  ul_status s = ul__obj_get(d, buf.id, UL__OBJ_BUFFER, "destroy buffer", &o);
  d->res->lookup_plain = false;
  if (!s) {
    ul__obj_destroy(d, o); /* unmaps a mapped buffer; a pending map is aborted */
  }
  ul__device_unlock(d);
  return s;
}

/* Looks up a usable buffer under d->mu. */
static ul_status get_buffer(ul_device *d, ul_buffer buf, const char *what, ul__obj **o) {
  d->res->lookup_plain = true; /* made and filled just below, losses recovered from */
  ul_status s = ul__obj_get(d, buf.id, UL__OBJ_BUFFER, what, o);
  d->res->lookup_plain = false;
  if (!s) s = ul__obj_use(d, *o); /* its contents, if a rebuild left them for now */
  if (s) return s;
  if ((*o)->state == UL__OBJ_LOST)
    return ul__fail(UL_ERR_DEVICE_LOST, "%s: buffer '%s' lost its contents in a device loss%s", what,
                    (*o)->label ? (*o)->label : "", ul__obj_lost_why(*o));
  return UL_OK;
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
  ul_status s = ul__device_enter(d);
  if (s) return ul__wrap(s, "write buffer");
  ul__obj *o;
  if ((s = get_buffer(d, buf, "write buffer", &o))) goto out;
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
  ul__device_unlock(d);
  return s ? ul__wrap(s, "write buffer") : UL_OK;
}

ul_status ul__buffer_write(ul_device *d, uint32_t id, uint64_t offset, const void *data, uint64_t size) {
  ul__obj *o;
  ul_status s = get_buffer(d, (ul_buffer){id}, "write buffer", &o);
  if (s) return s;
  ul__buffer_data *b = &o->u.buf;
  /* Record first: what is recorded survives a loss during the write. The
   * log makes room first (a checkpoint), so its bound holds here too. A
   * MAP_WRITE buffer's host copy records it instead. */
  if (!(b->usage & UL_BUFFER_MAP_WRITE)) {
    /* A host-written buffer (its policy chosen from use) keeps where the
     * bytes came from: a file's range when they lie in a mapping of one,
     * logged without a copy. */
    ul__src_file *file = NULL;
    uint64_t file_off = 0, hash = 0;
    if (b->host_only && (s = ul__prov_source(data, size, &file, &file_off, &hash))) return s;
    if ((s = ul__checkpoint_make_room(d, file ? 64 : size)) || (s = get_buffer(d, (ul_buffer){id}, "write buffer", &o))) {
      ul__src_file_unref(file);
      return s;
    }
    b = &o->u.buf;
    /* One host copy, shared by the log's entry and the buffer's extent. */
    ul__chunk *copy = file ? NULL : ul__chunk_new(data, size);
    if (!file && !copy) return ul__fail(UL_ERR_OUT_OF_MEMORY, "write buffer: no host memory for a copy of %llu bytes",
                                        (unsigned long long)size);
    s = file ? ul__oplog_write_file(d, o, offset, size, file, file_off, hash) : ul__oplog_write_chunk(d, o, offset, copy);
    if (!s && b->host_only && ul__prov_write(&b->prov, offset, size, file, file_off, hash, copy)) {
      /* No memory for the record: a plain LOG buffer from now on (the log
       * has the write; a checkpoint reads the contents back). */
      b->host_only = false;
      ul__prov_clear(&b->prov);
    }
    ul__src_file_unref(file);
    ul__chunk_unref(copy);
    if (s) return s;
  }
  if (b->shadow) {
    memcpy(b->shadow + offset, data, (size_t)size);
    ul__obj_note_changed(d, o); /* the checkpoint takes the host copy */
  }
  if ((s = ul__buffer_upload(d, o, offset, data, size))) return s;
  if (ul__device_loss_pending(d)) {
    /* The write is kept (shadow or log); recovery will put it back. */
    s = ul__device_recover_locked(d);
  }
  return s;
}

ul_status ul_buffer_read(ul_device *d, ul_buffer buf, uint64_t offset, void *dst, uint64_t size,
                         uint32_t timeout_ms) {
  if (!d || (!dst && size)) return ul__fail(UL_ERR_INVALID_ARGUMENT, "read buffer: NULL argument");
  ul_status s = ul__device_enter(d);
  if (s) return ul__wrap(s, "read buffer");
  ul__obj *o;
  if ((s = get_buffer(d, buf, "read buffer", &o))) goto out;
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
    if (rt.recoveries && (s = get_buffer(d, buf, "read buffer", &o))) break;
    uint64_t t0 = ul__now_ns();
    s = ul__buffer_download(d, o, offset, dst, size, ul__timeout_ns(timeout_ms));
    ul__device_health_read(d, s, ul__now_ns() - t0);
  } while (ul__retry_again(d, &s, &rt));
out:
  ul__device_unlock(d);
  return s ? ul__wrap(s, "read buffer") : UL_OK;
}

ul_status ul_buffer_map(ul_device *d, ul_buffer buf, ul_map_mode mode, uint64_t offset,
                        uint64_t size, uint32_t timeout_ms, void **ptr) {
  if (!d || !ptr) return ul__fail(UL_ERR_INVALID_ARGUMENT, "map buffer: NULL argument");
  *ptr = NULL;
  ul_status s = ul__device_enter(d);
  if (s) return ul__wrap(s, "map buffer");
  ul__obj *o;
  if ((s = get_buffer(d, buf, "map buffer", &o))) goto out;
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
    if (rt.recoveries && (s = get_buffer(d, buf, "map buffer", &o))) break;
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
  ul__device_unlock(d);
  return s ? ul__wrap(s, "map buffer") : UL_OK;
}

/* Copies a mapping kept past a loss into the rebuilt buffer through a
 * mapping of it (MAP_WRITE buffers take no queue writes). A SHADOW or LOG
 * buffer already has it in its host copy, from which a further loss
 * rebuilds it; any other is mapped again on the next device. */
static ul_status write_kept_mapping(ul_device *d, ul_buffer buf, ul__obj **op) {
  ul__obj *o = *op;
  ul__buffer_data *b = &o->u.buf;
  ul_status s = UL_OK;
  ul__retry rt = UL__RETRY_LOSSES;
  for (;;) {
    if (!o->native) s = ul__fail(UL_ERR_DEVICE_LOST, "no buffer");
    else s = ul__wait_map(d, o->native, WGPUMapMode_Write, (size_t)b->map_offset, (size_t)b->map_size,
                          UL__DEFAULT_TIMEOUT_NS);
    if (!s) {
      void *p = d->wgpu->BufferGetMappedRange(o->native, (size_t)b->map_offset, (size_t)b->map_size);
      if (p) memcpy(p, b->map_ptr, (size_t)b->map_size);
      d->wgpu->BufferUnmap(o->native);
      if (!p) s = ul__fail(UL_ERR_INTERNAL, "no mapped range");
      else if (!ul__device_loss_pending(d)) return UL_OK;
      else s = ul__fail(UL_ERR_DEVICE_LOST, "lost while copying the mapping");
    }
    if (!ul__retry_again(d, &s, &rt)) break;
    if ((s = ul__obj_get(d, buf.id, UL__OBJ_BUFFER, "unmap buffer", &o))) {
      *op = NULL;
      return s;
    }
    *op = o;
    b = &o->u.buf;
    if (b->shadow) return UL_OK; /* rebuilt from the host copy, which has the mapping */
  }
  return ul__wrap(s, "unmap buffer '%s': what was written through the mapping could not reach the buffer",
                  o->label ? o->label : "");
}

ul_status ul_buffer_unmap(ul_device *d, ul_buffer buf) {
  if (!d) return ul__fail(UL_ERR_INVALID_ARGUMENT, "unmap buffer: NULL device");
  ul_status s = ul__device_enter_ex(d, false);
  if (s) return ul__wrap(s, "unmap buffer");
  s = ul__buffer_unmap(d, buf.id);
  ul__device_unlock(d);
  return s;
}

ul_status ul__buffer_unmap(ul_device *d, uint32_t id) {
  ul_buffer buf = {id};
  ul__obj *o;
  ul_status s = ul__obj_get(d, buf.id, UL__OBJ_BUFFER, "unmap buffer", &o);
  ul__buffer_data *b = s ? NULL : &o->u.buf;
  if (b && !b->mapped) {
    s = ul__fail(UL_ERR_WRONG_STATE, "unmap buffer '%s': not mapped", o->label ? o->label : "");
  } else if (b) {
    /* Exactly the mapped range reaches the host copy, and the log (it is
     * a write like any other: work submitted before it must not see it
     * when replayed). */
    if (b->shadow && b->map_ptr && b->map_mode == WGPUMapMode_Write) {
      if (!(s = ul__checkpoint_make_room(d, b->map_size)) &&
          !(s = ul__obj_get(d, buf.id, UL__OBJ_BUFFER, "unmap buffer", &o))) {
        b = &o->u.buf;
        memcpy(b->shadow + b->map_offset, b->map_ptr, (size_t)b->map_size);
        ul__obj_note_changed(d, o);
        s = ul__oplog_write(d, o, b->map_offset, b->map_ptr, b->map_size);
      }
      if (s) return ul__wrap(s, "unmap buffer '%s'", o && o->label ? o->label : "");
    }
    if (!b->map_old) {
      d->wgpu->BufferUnmap(o->native);
    } else if (b->map_mode == WGPUMapMode_Write) {
      /* Mapped before a loss: the mapping's memory is the lost device's.
       * What the program wrote through it goes into the rebuilt buffer. */
      s = write_kept_mapping(d, buf, &o);
      b = o ? &o->u.buf : NULL;
    }
    if (b) {
      ul__buffer_drop_kept_map(d, o);
      b->mapped = false;
      b->map_ptr = NULL;
    }
  }
  return s;
}

ul_status ul_buffer_size(ul_device *d, ul_buffer buf, uint64_t *size) {
  if (!d || !size) return ul__fail(UL_ERR_INVALID_ARGUMENT, "buffer size: NULL argument");
  ul__device_lock(d);
  ul__obj *o;
  ul_status s = ul__obj_get(d, buf.id, UL__OBJ_BUFFER, "buffer size", &o);
  *size = s ? 0 : o->u.buf.size;
  ul__device_unlock(d);
  return s;
}

ul_status ul__buffer_set_policy(ul_device *d, uint32_t id, const ul__buffer_spec *spec) {
  ul__obj *o;
  ul_status s = get_buffer(d, (ul_buffer){id}, "set restore policy", &o);
  if (s) return s;
  ul__buffer_data *b = &o->u.buf;
  if (spec->restore == UL_RESTORE_SHADOW)
    return ul__fail(UL_ERR_UNSUPPORTED, "set restore policy of '%s': SHADOW is set at creation only",
                    o->label ? o->label : "");
  if (b->usage & (UL_BUFFER_MAP_READ | UL_BUFFER_MAP_WRITE))
    return ul__fail(UL_ERR_UNSUPPORTED, "set restore policy of '%s': a mappable buffer keeps its own",
                    o->label ? o->label : "");
  char *path = NULL;
  if (spec->restore == UL_RESTORE_SOURCE && spec->source_path) {
    if (!(path = realpath(spec->source_path, NULL)))
      return ul__fail(errno == ENOMEM ? UL_ERR_OUT_OF_MEMORY : UL_ERR_IO, "source '%s': %s", spec->source_path,
                      strerror(errno));
  }
  /* What the old policy kept goes; the new one is the restore from now. */
  free(b->source_path);
  b->source_path = path;
  b->source_data = spec->source_data;
  b->source_offset = spec->source_offset;
  b->source_hashed = false;
  if (path) {
    b->source_file_size = (uint64_t)spec->source_stat->st_size;
    b->source_mtime_ns = ul__stat_mtime_ns(spec->source_stat);
  }
  b->restore_fn = spec->restore_fn;
  b->restore_user = spec->restore_user;
  b->restore = spec->restore;
  b->host_only = b->from_use = false;
  ul__prov_clear(&b->prov);
  /* LOG from here: what was written before the next checkpoint is in the
   * log; a checkpoint reads the rest back. */
  if (spec->restore == UL_RESTORE_LOG) {
    b->dirty = true;
    ul__obj_note_changed(d, o);
  } else ul__prov_clear(&b->prov_ckpt);
  return UL_OK;
}
