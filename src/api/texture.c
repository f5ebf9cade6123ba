/* The public texture, view and sampler calls: create (with retries),
 * destroy, write (logged under LOG, copied under SHADOW), read. The
 * texture below them is src/res/texture.c. */
#include "api/api.h"
#include "exec/oplog.h"

static ul_status texture_new(ul_device *d, const ul_texture_desc *desc, ul_texture *out,
                             const ul_site *site) {
  ul_texture_desc t = *desc;
  if (!t.height) t.height = 1;
  if (!t.depth) t.depth = 1;
  if (!t.mip_levels) t.mip_levels = 1;
  if (!t.usage) t.usage = UL_TEXTURE_SAMPLED | UL_TEXTURE_STORAGE | UL_TEXTURE_COPY_SRC | UL_TEXTURE_COPY_DST;
  if (!t.width) return ul__fail(UL_ERR_INVALID_ARGUMENT, "width is 0");
  if ((unsigned)t.format >= UL_FORMAT_COUNT_)
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "format %d is not a ul_format", (int)t.format);
  if (t.usage & ~0xFu) return ul__fail(UL_ERR_INVALID_ARGUMENT, "unknown usage bits 0x%x", t.usage & ~0xFu);
  if (t.restore != UL_RESTORE_LOG && t.restore != UL_RESTORE_NONE && t.restore != UL_RESTORE_SHADOW)
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "textures take the LOG, NONE or SHADOW policy");
  /* The device's limits, before anything is allocated for the texture. */
  const WGPULimits *lim = &d->limits;
  uint32_t max_wh = t.is_3d ? lim->maxTextureDimension3D : lim->maxTextureDimension2D;
  uint32_t max_d = t.is_3d ? lim->maxTextureDimension3D : lim->maxTextureArrayLayers;
  if (t.mip_levels > 16 || t.width > max_wh || t.height > max_wh || t.depth > max_d)
    return ul__fail(UL_ERR_INVALID_ARGUMENT,
                    "texture of %ux%ux%u with %u levels exceeds the device's limits (%s %u, %s %u)",
                    t.width, t.height, t.depth, t.mip_levels, t.is_3d ? "3D size" : "2D size", max_wh,
                    t.is_3d ? "3D depth" : "array layers", max_d);
  t.usage |= UL_TEXTURE_COPY_SRC | UL_TEXTURE_COPY_DST; /* restore needs both */
  /* Estimate: texels of all levels (a level halves each dimension). */
  uint64_t bytes = 0;
  uint64_t w = t.width, h = t.height, dd = t.depth;
  for (uint32_t l = 0; l < t.mip_levels; l++) {
    bytes += w * h * dd * ul_format_bytes(t.format);
    w = UL__MAX(w / 2, 1);
    h = UL__MAX(h / 2, 1);
    if (t.is_3d) dd = UL__MAX(dd / 2, 1);
  }
  ul__obj *o = NULL;
  ul_status s = ul__obj_new(d, UL__OBJ_TEXTURE, desc->label, site, &o);
  if (s) return s;
  o->pending = true;
  o->u.tex.desc = t;
  o->u.tex.desc.usage = t.usage;
  o->u.tex.wgpu_format = ul__format_wgpu(t.format);
  o->u.tex.bytes = bytes;
  if (t.restore == UL_RESTORE_SHADOW) {
    /* Level 0's bytes; the limits above keep this product within 64 bits. */
    uint64_t level0 = (uint64_t)t.width * t.height * t.depth * ul_format_bytes(t.format);
    if (level0 > d->limits.maxBufferSize) {
      ul__obj_free(d, o);
      return ul__fail(UL_ERR_INVALID_ARGUMENT, "a SHADOW texture of %llu bytes is larger than the device's "
                      "maxBufferSize %llu", (unsigned long long)level0, (unsigned long long)d->limits.maxBufferSize);
    }
    o->u.tex.shadow = calloc(1, (size_t)level0);
    if (!o->u.tex.shadow) {
      ul__obj_free(d, o);
      return ul__fail(UL_ERR_OUT_OF_MEMORY, "no host memory for the shadow copy");
    }
  }
  ul__track_desc td = {.kind = UL__TRACK_TEXTURE, .size = bytes, .size_estimated = true,
                       .label = o->label, .owner = o->id};
  if (site) td.site = (ul__track_site){site->file, site->line, site->func};
  if ((s = ul__track_reserve(d->res->tracker, &td))) {
    ul__obj_free(d, o);
    return s;
  }
  td.reserved = true;
  ul__retry rt = UL__RETRY_SCOPES;
  do {
    s = ul__obj_create_native(d, o);
  } while (ul__retry_again(d, &s, &rt));
  if (!s) s = ul__track_alloc(d->res->tracker, &td, &o->track_id);
  else ul__track_unreserve(d->res->tracker, bytes);
  if (s) {
    ul__obj_release_native(d, o);
    ul__obj_free(d, o);
    return s;
  }
  o->pending = false;
  *out = (ul_texture){o->id};
  return UL_OK;
}

ul_status ul_texture_create_at(ul_device *d, const ul_texture_desc *desc, ul_texture *out,
                               const ul_site *site) {
  if (out) out->id = 0;
  if (!d || !desc || !out) return ul__fail(UL_ERR_INVALID_ARGUMENT, "create texture: NULL argument");
  ul_status s = ul__device_enter(d);
  if (s) return ul__wrap(s, "create texture");
  s = texture_new(d, desc, out, site);
  ul__device_unlock(d);
  return s ? ul__wrap(s, "create texture '%s'", desc->label ? desc->label : "") : UL_OK;
}

/* Views of `t` die with it (WebGPU: a destroyed texture's views are invalid). */
static void destroy_views_of(ul_device *d, uint32_t texture_id) {
  ul__res *r = d->res;
  for (uint32_t i = 1; i < r->next_unused && i < r->cap; i++) {
    ul__obj *v = r->slots[i];
    if (v && v->kind == UL__OBJ_VIEW && !v->destroyed && v->u.view.desc.texture.id == texture_id)
      ul__obj_destroy(d, v);
  }
}

ul_status ul_texture_destroy(ul_device *d, ul_texture tex) {
  if (!d) return ul__fail(UL_ERR_INVALID_ARGUMENT, "destroy texture: device is NULL");
  if (!tex.id) return UL_OK;
  ul__device_lock(d);
  ul__obj *o;
  ul_status s = ul__obj_get(d, tex.id, UL__OBJ_TEXTURE, "destroy texture", &o);
  if (!s) {
    destroy_views_of(d, tex.id);
    ul__obj_destroy(d, o);
  }
  ul__device_unlock(d);
  return s;
}

static ul_status check_region(const ul__obj *t, uint32_t x, uint32_t y, uint32_t z, uint32_t w,
                              uint32_t h, uint32_t depth, uint64_t size, uint32_t *bpr) {
  const ul_texture_desc *td = &t->u.tex.desc;
  if (!w || !h || !depth) return ul__fail(UL_ERR_INVALID_ARGUMENT, "empty region");
  if ((uint64_t)x + w > td->width || (uint64_t)y + h > td->height || (uint64_t)z + depth > td->depth)
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "region %u,%u,%u + %ux%ux%u outside texture %ux%ux%u", x, y,
                    z, w, h, depth, td->width, td->height, td->depth);
  uint32_t tight = w * ul_format_bytes(td->format);
  if (!*bpr) *bpr = tight;
  if (*bpr < tight) return ul__fail(UL_ERR_INVALID_ARGUMENT, "bytes_per_row %u < %u", *bpr, tight);
  uint64_t need = (uint64_t)*bpr * h * (depth - 1) + (uint64_t)*bpr * (h - 1) + tight;
  if (size < need) return ul__fail(UL_ERR_INVALID_ARGUMENT, "data of %llu bytes, the region needs %llu",
                                   (unsigned long long)size, (unsigned long long)need);
  return UL_OK;
}

ul_status ul_texture_write(ul_device *d, ul_texture tex, uint32_t x, uint32_t y, uint32_t z,
                           uint32_t w, uint32_t h, uint32_t depth, const void *data, uint64_t size,
                           uint32_t bytes_per_row) {
  if (!d || !data) return ul__fail(UL_ERR_INVALID_ARGUMENT, "write texture: NULL argument");
  ul_status s = ul__device_enter(d);
  if (s) return ul__wrap(s, "write texture");
  ul__obj *o;
  if (!(s = ul__obj_get(d, tex.id, UL__OBJ_TEXTURE, "write texture", &o)) &&
      !(s = check_region(o, x, y, z, w, h, depth, size, &bytes_per_row))) {
    /* LOG: recorded first (room made first), so a loss from here on is
     * replayed; SHADOW: the host copy. */
    if (o->u.tex.desc.restore == UL_RESTORE_LOG) {
      uint32_t region[7] = {x, y, z, w, h, depth, bytes_per_row};
      if (!(s = ul__checkpoint_make_room(d, size)) &&
          !(s = ul__obj_get(d, tex.id, UL__OBJ_TEXTURE, "write texture", &o)))
        s = ul__oplog_write_texture(d, o, region, data, size);
    }
    if (!s && o->u.tex.shadow) {
      const ul_texture_desc *td = &o->u.tex.desc;
      uint32_t tb = ul_format_bytes(td->format);
      for (uint32_t k = 0; k < depth; k++)
        for (uint32_t j = 0; j < h; j++)
          memcpy(o->u.tex.shadow + (((uint64_t)(z + k) * td->height + y + j) * td->width + x) * tb,
                 (const uint8_t *)data + ((uint64_t)k * h + j) * bytes_per_row, (size_t)w * tb);
    }
    if (!s) s = ul__texture_write_region(d, o, x, y, z, w, h, depth, data, size, bytes_per_row);
    /* The write is kept (log or shadow): recovery puts it back. */
    if (!s && ul__device_loss_pending(d)) s = ul__device_recover_locked(d);
  }
  ul__device_unlock(d);
  return s ? ul__wrap(s, "write texture") : UL_OK;
}

ul_status ul_texture_read(ul_device *d, ul_texture tex, uint32_t x, uint32_t y, uint32_t z,
                          uint32_t w, uint32_t h, uint32_t depth, void *dst, uint64_t size,
                          uint32_t timeout_ms) {
  if (!d || !dst) return ul__fail(UL_ERR_INVALID_ARGUMENT, "read texture: NULL argument");
  ul_status s = ul__device_enter(d);
  if (s) return ul__wrap(s, "read texture");
  ul__obj *o;
  uint32_t tight = 0;
  if ((s = ul__obj_get(d, tex.id, UL__OBJ_TEXTURE, "read texture", &o))) goto out;
  if (o->state == UL__OBJ_LOST) {
    s = ul__fail(UL_ERR_DEVICE_LOST, "read texture '%s': its contents were lost in a device loss%s",
                 o->label ? o->label : "", ul__obj_lost_why(o));
    goto out;
  }
  if ((s = check_region(o, x, y, z, w, h, depth, size, &tight))) goto out;
  /* Lost while reading: recover (which replays), then read again. */
  ul__retry rt = UL__RETRY_LOSSES;
  do {
    if (rt.recoveries && (s = ul__obj_get(d, tex.id, UL__OBJ_TEXTURE, "read texture", &o))) break;
    s = ul__texture_read_region(d, o, x, y, z, w, h, depth, dst, ul__timeout_ns(timeout_ms));
  } while (ul__retry_again(d, &s, &rt));
out:
  ul__device_unlock(d);
  return s ? ul__wrap(s, "read texture") : UL_OK;
}

ul_status ul_texture_view_create_at(ul_device *d, const ul_texture_view_desc *desc,
                                    ul_texture_view *out, const ul_site *site) {
  if (out) out->id = 0;
  if (!d || !desc || !out) return ul__fail(UL_ERR_INVALID_ARGUMENT, "create texture view: NULL argument");
  ul_status s = ul__device_enter(d);
  if (s) return ul__wrap(s, "create texture view");
  ul__obj *t, *o = NULL;
  if (!(s = ul__obj_get(d, desc->texture.id, UL__OBJ_TEXTURE, "create texture view", &t)) &&
      !(s = ul__obj_new(d, UL__OBJ_VIEW, desc->label, site, &o))) {
    o->pending = true;
    o->u.view.desc = *desc;
    o->u.view.desc.label = NULL;
    s = ul__obj_finish(d, o, &out->id);
  }
  ul__device_unlock(d);
  return s ? ul__wrap(s, "create texture view") : UL_OK;
}

ul_status ul_texture_view_destroy(ul_device *d, ul_texture_view v) {
  return ul__destroy_simple(d, v.id, UL__OBJ_VIEW, "destroy texture view");
}

ul_status ul_sampler_create_at(ul_device *d, const ul_sampler_desc *desc, ul_sampler *out,
                               const ul_site *site) {
  if (out) out->id = 0;
  if (!d || !out) return ul__fail(UL_ERR_INVALID_ARGUMENT, "create sampler: NULL argument");
  ul_sampler_desc zero = {0};
  if (!desc) desc = &zero;
  ul_status s = ul__device_enter(d);
  if (s) return ul__wrap(s, "create sampler");
  ul__obj *o = NULL;
  if (!(s = ul__obj_new(d, UL__OBJ_SAMPLER, desc->label, site, &o))) {
    o->pending = true;
    o->u.smp.desc = *desc;
    o->u.smp.desc.label = NULL;
    s = ul__obj_finish(d, o, &out->id);
  }
  ul__device_unlock(d);
  return s ? ul__wrap(s, "create sampler") : UL_OK;
}

ul_status ul_sampler_destroy(ul_device *d, ul_sampler smp) {
  return ul__destroy_simple(d, smp.id, UL__OBJ_SAMPLER, "destroy sampler");
}
