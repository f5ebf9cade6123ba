/* The public texture, view and sampler calls: create (the engine's,
 * src/engine/objects.c), destroy, write (logged under LOG, copied under
 * SHADOW), read. The texture below them is src/res/texture_restore.c. */
#include "engine/engine.h"

/* unlost.h's texture: its defaults and rules, then the native descriptor. */
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
  WGPUTextureDescriptor nd = {0};
  nd.usage = t.usage;
  nd.dimension = t.is_3d ? WGPUTextureDimension_3D : WGPUTextureDimension_2D;
  nd.size = (WGPUExtent3D){t.width, t.height, t.depth};
  nd.format = ul__engine_format(t.format);
  nd.mipLevelCount = t.mip_levels;
  nd.sampleCount = 1;
  return ul__texture_create(d, &nd, t.restore, desc->label, site, &out->id);
}

ul_status ul_texture_create_at(ul_device *d, const ul_texture_desc *desc, ul_texture *out,
                               const ul_site *site) {
  if (out) out->id = 0;
  if (!d || !desc || !out) return ul__fail(UL_ERR_INVALID_ARGUMENT, "create texture: NULL argument");
  ul_status s = ul__engine_enter(d);
  if (s) return ul__wrap(s, "create texture");
  s = texture_new(d, desc, out, site);
  ul__engine_unlock(d);
  return s ? ul__wrap(s, "create texture '%s'", desc->label ? desc->label : "") : UL_OK;
}

ul_status ul_texture_destroy(ul_device *d, ul_texture tex) {
  if (!d) return ul__fail(UL_ERR_INVALID_ARGUMENT, "destroy texture: device is NULL");
  if (!tex.id) return UL_OK;
  ul__engine_lock(d);
  ul__obj *o;
  d->res->lookup_plain = true; /* nothing to put back into what goes */
  ul_status s = ul__obj_get(d, tex.id, UL__OBJ_TEXTURE, "destroy texture", &o);
  d->res->lookup_plain = false;
  if (!s) ul__texture_destroy(d, o);
  ul__engine_unlock(d);
  return s;
}

static ul_status check_region(const ul__obj *t, uint32_t x, uint32_t y, uint32_t z, uint32_t w,
                              uint32_t h, uint32_t depth, uint64_t size, uint32_t *bpr) {
  const WGPUExtent3D *sz = &t->u.tex.nd.size;
  if (!w || !h || !depth) return ul__fail(UL_ERR_INVALID_ARGUMENT, "empty region");
  if ((uint64_t)x + w > sz->width || (uint64_t)y + h > sz->height || (uint64_t)z + depth > sz->depthOrArrayLayers)
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "region %u,%u,%u + %ux%ux%u outside texture %ux%ux%u", x, y,
                    z, w, h, depth, sz->width, sz->height, sz->depthOrArrayLayers);
  uint32_t tight = w * t->u.tex.fmt.block_bytes;
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
  ul_status s = ul__engine_enter(d);
  if (s) return ul__wrap(s, "write texture");
  ul__obj *o;
  if (!(s = ul__obj_get(d, tex.id, UL__OBJ_TEXTURE, "write texture", &o)) && !(s = ul__obj_use(d, o)) &&
      !(s = check_region(o, x, y, z, w, h, depth, size, &bytes_per_row))) {
    uint32_t region[UL__TR_WORDS] = {x, y, z, w, h, depth, bytes_per_row, 0, 0, 0};
    s = ul__texture_write(d, tex.id, region, data, size, "write texture");
  }
  ul__engine_unlock(d);
  return s ? ul__wrap(s, "write texture") : UL_OK;
}

ul_status ul_texture_read(ul_device *d, ul_texture tex, uint32_t x, uint32_t y, uint32_t z,
                          uint32_t w, uint32_t h, uint32_t depth, void *dst, uint64_t size,
                          uint32_t timeout_ms) {
  if (!d || !dst) return ul__fail(UL_ERR_INVALID_ARGUMENT, "read texture: NULL argument");
  ul_status s = ul__engine_enter(d);
  if (s) return ul__wrap(s, "read texture");
  ul__obj *o;
  uint32_t tight = 0;
  if ((s = ul__obj_get(d, tex.id, UL__OBJ_TEXTURE, "read texture", &o)) || (s = ul__obj_use(d, o))) goto out;
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
  ul__engine_unlock(d);
  return s ? ul__wrap(s, "read texture") : UL_OK;
}

ul_status ul_texture_view_create_at(ul_device *d, const ul_texture_view_desc *desc,
                                    ul_texture_view *out, const ul_site *site) {
  if (out) out->id = 0;
  if (!d || !desc || !out) return ul__fail(UL_ERR_INVALID_ARGUMENT, "create texture view: NULL argument");
  ul_status s = ul__engine_enter(d);
  if (s) return ul__wrap(s, "create texture view");
  ul__obj *t;
  if (!(s = ul__obj_get(d, desc->texture.id, UL__OBJ_TEXTURE, "create texture view", &t))) {
    /* 3D for a 3D texture, 2D for one layer, else a 2D array. */
    const WGPUTextureDescriptor *td = &t->u.tex.nd;
    WGPUTextureViewDescriptor vd = {0};
    vd.format = td->format;
    vd.dimension = td->dimension == WGPUTextureDimension_3D ? WGPUTextureViewDimension_3D
                   : (desc->layer_count == 1 || td->size.depthOrArrayLayers == 1) ? WGPUTextureViewDimension_2D
                                                                                  : WGPUTextureViewDimension_2DArray;
    vd.baseMipLevel = desc->base_mip;
    vd.mipLevelCount = desc->mip_count ? desc->mip_count : WGPU_MIP_LEVEL_COUNT_UNDEFINED;
    vd.baseArrayLayer = desc->base_layer;
    vd.arrayLayerCount = desc->layer_count ? desc->layer_count : WGPU_ARRAY_LAYER_COUNT_UNDEFINED;
    vd.aspect = WGPUTextureAspect_All;
    uint32_t id;
    s = ul__view_create(d, desc->texture.id, &vd, desc->label, site, &id);
    if (!s) out->id = id;
  }
  ul__engine_unlock(d);
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
  ul_status s = ul__engine_enter(d);
  if (s) return ul__wrap(s, "create sampler");
  WGPUSamplerDescriptor x = {0};
  uint32_t am = desc->repeat ? WGPUAddressMode_Repeat : WGPUAddressMode_ClampToEdge;
  x.addressModeU = x.addressModeV = x.addressModeW = am;
  x.magFilter = x.minFilter = desc->linear ? WGPUFilterMode_Linear : WGPUFilterMode_Nearest;
  x.mipmapFilter = desc->linear ? WGPUMipmapFilterMode_Linear : WGPUMipmapFilterMode_Nearest;
  x.lodMinClamp = 0;
  x.lodMaxClamp = 32;
  x.maxAnisotropy = 1;
  uint32_t id;
  s = ul__sampler_create(d, &x, desc->label, site, &id);
  if (!s) out->id = id;
  ul__engine_unlock(d);
  return s ? ul__wrap(s, "create sampler") : UL_OK;
}

ul_status ul_sampler_destroy(ul_device *d, ul_sampler smp) {
  return ul__destroy_simple(d, smp.id, UL__OBJ_SAMPLER, "destroy sampler");
}
