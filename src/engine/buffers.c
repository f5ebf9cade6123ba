/* The engine's buffers: create (the native buffer with retries, then its
 * first contents by policy, logged), write (logged), unmap (a MAP_WRITE
 * mapping logged as a write) and the restore policy set after creation.
 * The buffer below them is src/res/buffer_restore.c; the doors' calls are
 * src/api/buffer.c and src/webgpu/. */
#include "engine/engine.h"
#include "core/prefill.h"
#include "exec/oplog.h"
#include "recover/recover.h"

#include <errno.h>
#include <sys/stat.h>

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

ul_status ul__buffer_get(ul_device *d, uint32_t id, const char *what, ul__obj **o) {
  d->res->lookup_plain = true; /* made and filled just below, losses recovered from */
  ul_status s = ul__obj_get(d, id, UL__OBJ_BUFFER, what, o);
  d->res->lookup_plain = false;
  if (!s) s = ul__obj_use(d, *o); /* its contents, if a rebuild left them for now */
  if (s) return s;
  if ((*o)->state == UL__OBJ_LOST)
    return ul__fail(UL_ERR_DEVICE_LOST, "%s: buffer '%s' lost its contents in a device loss%s", what,
                    (*o)->label ? (*o)->label : "", ul__obj_lost_why(*o));
  return UL_OK;
}

ul_status ul__buffer_write(ul_device *d, uint32_t id, uint64_t offset, const void *data, uint64_t size) {
  ul__obj *o;
  ul_status s = ul__buffer_get(d, id, "write buffer", &o);
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
    if ((s = ul__checkpoint_make_room(d, file ? 64 : size)) || (s = ul__buffer_get(d, id, "write buffer", &o))) {
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
      /* A read mapping of it all: what it shows is the buffer's contents
       * until the next change, kept for the checkpoints. */
      if (b->map_mode == WGPUMapMode_Read && b->map_ptr && b->map_offset == 0 && b->map_size >= b->size &&
          b->size <= UL__READ_COPY_MAX && (b->usage & UL_BUFFER_MAP_READ)) {
        if (!b->read_copy) b->read_copy = malloc(b->size ? (size_t)b->size : 1);
        if (b->read_copy) memcpy(b->read_copy, b->map_ptr, (size_t)b->size);
        b->read_copy_valid = b->read_copy != NULL;
        b->read_copy_epoch = d->epoch;
      }
      d->wgpu->BufferUnmap(o->native);
    } else if (b->map_mode == WGPUMapMode_Write) {
      /* Mapped before a loss: the mapping's memory is the lost device's.
       * What the program wrote through it goes into the rebuilt buffer,
       * and into the log when no host copy has it: a later rebuild (another
       * loss, a move for health) replays it, as the program was told its
       * mapping survived. */
      if (!b->shadow && !(s = ul__checkpoint_make_room(d, b->map_size)) &&
          !(s = ul__obj_get(d, buf.id, UL__OBJ_BUFFER, "unmap buffer", &o))) {
        b = &o->u.buf;
        s = ul__oplog_write(d, o, b->map_offset, b->map_ptr, b->map_size);
      }
      if (s) return ul__wrap(s, "unmap buffer '%s'", o && o->label ? o->label : "");
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

ul_status ul__buffer_set_policy(ul_device *d, uint32_t id, const ul__buffer_spec *spec) {
  ul__obj *o;
  ul_status s = ul__buffer_get(d, id, "set restore policy", &o);
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
