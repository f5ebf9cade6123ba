/* Textures, texture views and samplers. */
#include "exec/oplog.h"
#include "recover/recover.h"
#include "res/obj.h"

typedef struct format_info {
  uint32_t wgpu;
  uint32_t bytes;
} format_info;

/* ul_format -> WebGPU format: the values of this Dawn's WGPUTextureFormat,
 * each measured against the implementation (docs/webgpu-abi.md). */
static const format_info formats[UL_FORMAT_COUNT_] = {
    [UL_FORMAT_R32_FLOAT] = {0x0C, 4},
    [UL_FORMAT_R32_UINT] = {0x0D, 4},
    [UL_FORMAT_RG32_FLOAT] = {0x1D, 8},
    [UL_FORMAT_RGBA8_UNORM] = {0x12, 4},
    [UL_FORMAT_RGBA16_FLOAT] = {0x22, 8},
    [UL_FORMAT_RGBA32_FLOAT] = {0x23, 16},
    [UL_FORMAT_RGBA32_UINT] = {0x24, 16},
    [UL_FORMAT_R8_UNORM] = {0x01, 1},
};

uint32_t ul_format_bytes(ul_format f) {
  return (unsigned)f < UL_FORMAT_COUNT_ ? formats[f].bytes : 0;
}
uint32_t ul__format_wgpu(ul_format f) { return (unsigned)f < UL_FORMAT_COUNT_ ? formats[f].wgpu : 0; }

ul_status ul__texture_create_native(ul_device *d, ul__obj *o) {
  const ul_texture_desc *t = &o->u.tex.desc;
  WGPUTextureDescriptor td = {0};
  td.label = ul__sv(o->label);
  td.usage = t->usage;
  td.dimension = t->is_3d ? WGPUTextureDimension_3D : WGPUTextureDimension_2D;
  td.size = (WGPUExtent3D){t->width, t->height, t->depth};
  td.format = o->u.tex.wgpu_format;
  td.mipLevelCount = t->mip_levels;
  td.sampleCount = 1;
  o->native = d->wgpu->DeviceCreateTexture(d->device, &td);
  return UL_OK;
}

ul_status ul__view_create_native(ul_device *d, ul__obj *o) {
  ul__obj *t;
  ul_status s = ul__obj_get(d, o->u.view.desc.texture.id, UL__OBJ_TEXTURE, "texture view", &t);
  if (s) return s;
  const ul_texture_view_desc *v = &o->u.view.desc;
  WGPUTextureViewDescriptor vd = {0};
  vd.label = ul__sv(o->label);
  vd.format = t->u.tex.wgpu_format;
  vd.dimension = t->u.tex.desc.is_3d ? WGPUTextureViewDimension_3D
                 : (v->layer_count == 1 || t->u.tex.desc.depth == 1) ? WGPUTextureViewDimension_2D
                                                                   : WGPUTextureViewDimension_2DArray;
  vd.baseMipLevel = v->base_mip;
  vd.mipLevelCount = v->mip_count ? v->mip_count : WGPU_MIP_LEVEL_COUNT_UNDEFINED;
  vd.baseArrayLayer = v->base_layer;
  vd.arrayLayerCount = v->layer_count ? v->layer_count : WGPU_ARRAY_LAYER_COUNT_UNDEFINED;
  vd.aspect = WGPUTextureAspect_All;
  o->native = d->wgpu->TextureCreateView(t->native, &vd);
  return UL_OK;
}

ul_status ul__sampler_create_native(ul_device *d, ul__obj *o) {
  const ul_sampler_desc *sd = &o->u.smp.desc;
  WGPUSamplerDescriptor x = {0};
  x.label = ul__sv(o->label);
  uint32_t am = sd->repeat ? WGPUAddressMode_Repeat : WGPUAddressMode_ClampToEdge;
  x.addressModeU = x.addressModeV = x.addressModeW = am;
  x.magFilter = x.minFilter = sd->linear ? WGPUFilterMode_Linear : WGPUFilterMode_Nearest;
  x.mipmapFilter = sd->linear ? WGPUMipmapFilterMode_Linear : WGPUMipmapFilterMode_Nearest;
  x.lodMinClamp = 0;
  x.lodMaxClamp = 32;
  x.maxAnisotropy = 1;
  o->native = d->wgpu->DeviceCreateSampler(d->device, &x);
  return UL_OK;
}

static void texel_copy(const ul__obj *t, uint32_t level, uint32_t x, uint32_t y, uint32_t z,
                       WGPUTexelCopyTextureInfo *out) {
  memset(out, 0, sizeof *out);
  out->texture = t->native;
  out->mipLevel = level;
  out->origin = (WGPUOrigin3D){x, y, z};
  out->aspect = WGPUTextureAspect_All;
}

/* The size of mip level `level`: a level halves width and height (and the
 * depth of a 3D texture; array layers stay). */
static void level_extent(const ul__obj *o, uint32_t level, uint32_t *w, uint32_t *h, uint32_t *depth) {
  const ul_texture_desc *t = &o->u.tex.desc;
  *w = UL__MAX(t->width >> level, 1u);
  *h = UL__MAX(t->height >> level, 1u);
  *depth = t->is_3d ? UL__MAX(t->depth >> level, 1u) : t->depth;
}

uint64_t ul__texture_level_bytes(const ul__obj *o, uint32_t level) {
  uint32_t w, h, depth;
  level_extent(o, level, &w, &h, &depth);
  return (uint64_t)w * h * depth * ul_format_bytes(o->u.tex.desc.format);
}

uint64_t ul__texture_all_bytes(const ul__obj *o) {
  uint64_t n = 0;
  for (uint32_t l = 0; l < o->u.tex.desc.mip_levels; l++) n += ul__texture_level_bytes(o, l);
  return n;
}

static ul_status write_level(ul_device *d, ul__obj *t, uint32_t level, uint32_t x, uint32_t y, uint32_t z,
                             uint32_t w, uint32_t h, uint32_t depth, const void *data, uint64_t size,
                             uint32_t bpr) {
  WGPUTexelCopyTextureInfo dst;
  texel_copy(t, level, x, y, z, &dst);
  WGPUTexelCopyBufferLayout layout = {0, bpr, h};
  WGPUExtent3D ext = {w, h, depth};
  d->wgpu->QueueWriteTexture(d->queue, &dst, data, (size_t)size, &layout, &ext);
  return UL_OK;
}

ul_status ul__texture_write_region(ul_device *d, ul__obj *t, uint32_t x, uint32_t y, uint32_t z,
                                   uint32_t w, uint32_t h, uint32_t depth, const void *data,
                                   uint64_t size, uint32_t bpr) {
  return write_level(d, t, 0, x, y, z, w, h, depth, data, size, bpr);
}

/* Copies a region of one level into `dst` (rows of w texels, tightly
 * packed), waiting up to `tmo`; nothing reaches dst after a loss. */
static ul_status read_level(ul_device *d, ul__obj *o, uint32_t level, uint32_t x, uint32_t y, uint32_t z,
                            uint32_t w, uint32_t h, uint32_t depth, void *dst, uint64_t tmo) {
  const ul__wgpu *wg = d->wgpu;
  uint32_t tight = w * ul_format_bytes(o->u.tex.desc.format);
  uint32_t bpr = (tight + 255) & ~255u; /* copies need rows aligned to 256 */
  uint64_t total = (uint64_t)bpr * h * depth;
  WGPUBufferDescriptor bd = {0};
  bd.usage = WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst;
  bd.size = total;
  WGPUBuffer st = wg->DeviceCreateBuffer(d->device, &bd);
  if (!st) return ul__fail(UL_ERR_OUT_OF_MEMORY, "read texture: no staging buffer");
  WGPUTexelCopyTextureInfo src;
  texel_copy(o, level, x, y, z, &src);
  WGPUTexelCopyBufferInfo dstb = {{0, bpr, h}, st};
  WGPUExtent3D ext = {w, h, depth};
  ul_status s = ul__copy_texture_submit(d, &src, &dstb, &ext);
  if (!s) s = ul__wait_map(d, st, WGPUMapMode_Read, 0, (size_t)total, tmo);
  /* A completion seen after the loss is not proof that the copy ran. */
  if (!s && ul__device_loss_pending(d)) s = ul__fail(UL_ERR_DEVICE_LOST, "read texture: device lost");
  if (!s) {
    const uint8_t *p = wg->BufferGetConstMappedRange(st, 0, (size_t)total);
    for (uint64_t row = 0; p && row < (uint64_t)h * depth; row++)
      memcpy((uint8_t *)dst + row * tight, p + row * bpr, tight);
    if (!p) s = ul__fail(UL_ERR_INTERNAL, "read texture: mapped range unavailable");
  }
  wg->BufferDestroy(st); /* unmaps */
  wg->BufferRelease(st);
  return s;
}

ul_status ul__texture_download_all(ul_device *d, ul__obj *o, uint8_t *dst, uint64_t tmo) {
  ul_status s = UL_OK;
  for (uint32_t l = 0; l < o->u.tex.desc.mip_levels && !s; l++) {
    uint32_t w, h, depth;
    level_extent(o, l, &w, &h, &depth);
    s = read_level(d, o, l, 0, 0, 0, w, h, depth, dst, tmo);
    dst += ul__texture_level_bytes(o, l);
  }
  return s;
}

ul_status ul__texture_restore(ul_device *d, ul__obj *o) {
  const ul_texture_desc *t = &o->u.tex.desc;
  uint32_t tb = ul_format_bytes(t->format);
  if (o->u.tex.shadow)
    return write_level(d, o, 0, 0, 0, 0, t->width, t->height, t->depth, o->u.tex.shadow,
                       (uint64_t)t->width * tb * t->height * t->depth, t->width * tb);
  /* LOG: every level as at the last checkpoint; the replay does the rest. */
  const uint8_t *p = o->u.tex.checkpoint;
  for (uint32_t l = 0; p && l < t->mip_levels; l++) {
    uint32_t w, h, depth;
    level_extent(o, l, &w, &h, &depth);
    uint64_t n = ul__texture_level_bytes(o, l);
    write_level(d, o, l, 0, 0, 0, w, h, depth, p, n, w * tb);
    p += n;
  }
  return UL_OK;
}

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
    if (!s) s = write_level(d, o, 0, x, y, z, w, h, depth, data, size, bytes_per_row);
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
    s = read_level(d, o, 0, x, y, z, w, h, depth, dst, timeout_ms ? (uint64_t)timeout_ms * 1000000ull : 30000000000ull);
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

ul_status ul__destroy_simple(ul_device *d, uint32_t id, ul__obj_kind kind, const char *what) {
  if (!d) return ul__fail(UL_ERR_INVALID_ARGUMENT, "%s: device is NULL", what);
  if (!id) return UL_OK;
  ul__device_lock(d);
  ul__obj *o;
  ul_status s = ul__obj_get(d, id, kind, what, &o);
  if (!s) ul__obj_destroy(d, o);
  ul__device_unlock(d);
  return s;
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
