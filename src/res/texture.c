/* Textures, texture views and samplers below the public calls
 * (src/api/texture.c): formats, native creation, region copies, restore. */
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

ul_status ul__texture_read_region(ul_device *d, ul__obj *o, uint32_t x, uint32_t y, uint32_t z, uint32_t w,
                                  uint32_t h, uint32_t depth, void *dst, uint64_t timeout_ns) {
  return read_level(d, o, 0, x, y, z, w, h, depth, dst, timeout_ns);
}
