/* Textures, texture views and samplers below the engine's creates
 * (src/engine/objects.c) and the public calls (src/api/texture.c):
 * formats, native creation, region copies, restore. */
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
  WGPUTextureDescriptor td = o->u.tex.nd;
  td.label = ul__sv(o->label);
  o->native = d->wgpu->DeviceCreateTexture(d->device, &td);
  return UL_OK;
}

ul_status ul__view_create_native(ul_device *d, ul__obj *o) {
  ul__obj *t;
  ul_status s = ul__obj_get(d, o->u.view.texture, UL__OBJ_TEXTURE, "texture view", &t);
  if (s) return s;
  WGPUTextureViewDescriptor vd = o->u.view.nd;
  vd.label = ul__sv(o->label);
  o->native = d->wgpu->TextureCreateView(t->native, &vd);
  return UL_OK;
}

ul_status ul__sampler_create_native(ul_device *d, ul__obj *o) {
  WGPUSamplerDescriptor x = o->u.smp.nd;
  x.label = ul__sv(o->label);
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

void ul__texture_level_extent(const ul__obj *o, uint32_t level, uint32_t *w, uint32_t *h, uint32_t *depth) {
  const WGPUTextureDescriptor *t = &o->u.tex.nd;
  *w = UL__MAX(t->size.width >> level, 1u);
  *h = t->dimension == WGPUTextureDimension_1D ? 1 : UL__MAX(t->size.height >> level, 1u);
  *depth = t->dimension == WGPUTextureDimension_3D ? UL__MAX(t->size.depthOrArrayLayers >> level, 1u)
                                                   : t->size.depthOrArrayLayers;
}

/* A level's size in whole blocks (what a copy of the whole level moves),
 * and the bytes of one row of blocks. */
static void level_blocks(const ul__obj *o, uint32_t level, uint32_t *w, uint32_t *h, uint32_t *depth,
                         uint32_t *row_bytes, uint32_t *rows) {
  const ul__format_info *f = &o->u.tex.fmt;
  ul__texture_level_extent(o, level, w, h, depth);
  uint32_t bw = f->bw ? f->bw : 1, bh = f->bh ? f->bh : 1;
  *w = (*w + bw - 1) / bw * bw;
  *h = (*h + bh - 1) / bh * bh;
  *row_bytes = *w / bw * f->block_bytes;
  *rows = *h / bh;
}

uint64_t ul__texture_level_bytes(const ul__obj *o, uint32_t level) {
  uint32_t w, h, depth, row_bytes, rows;
  level_blocks(o, level, &w, &h, &depth, &row_bytes, &rows);
  return (uint64_t)row_bytes * rows * depth;
}

uint64_t ul__texture_all_bytes(const ul__obj *o) {
  uint64_t n = 0;
  for (uint32_t l = 0; l < o->u.tex.nd.mipLevelCount; l++) n += ul__texture_level_bytes(o, l);
  return n;
}

static uint32_t block_rows(const ul__obj *t, uint32_t h) {
  uint32_t bh = t->u.tex.fmt.bh ? t->u.tex.fmt.bh : 1;
  return (h + bh - 1) / bh;
}

static ul_status write_level(ul_device *d, ul__obj *t, uint32_t level, uint32_t x, uint32_t y, uint32_t z,
                             uint32_t w, uint32_t h, uint32_t depth, const void *data, uint64_t size,
                             uint32_t bpr) {
  WGPUTexelCopyTextureInfo dst;
  texel_copy(t, level, x, y, z, &dst);
  WGPUTexelCopyBufferLayout layout = {0, bpr, block_rows(t, h)};
  WGPUExtent3D ext = {w, h, depth};
  d->wgpu->QueueWriteTexture(d->queue, &dst, data, (size_t)size, &layout, &ext);
  return UL_OK;
}

ul_status ul__texture_write_region(ul_device *d, ul__obj *t, const uint32_t r[UL__TR_WORDS], const void *data,
                                   uint64_t size) {
  WGPUTexelCopyTextureInfo dst;
  texel_copy(t, r[UL__TR_MIP], r[UL__TR_X], r[UL__TR_Y], r[UL__TR_Z], &dst);
  if (r[UL__TR_ASPECT]) dst.aspect = r[UL__TR_ASPECT];
  WGPUTexelCopyBufferLayout layout = {0, r[UL__TR_BPR], r[UL__TR_ROWS] ? r[UL__TR_ROWS] : block_rows(t, r[UL__TR_H])};
  WGPUExtent3D ext = {r[UL__TR_W], r[UL__TR_H], r[UL__TR_DEPTH]};
  d->wgpu->QueueWriteTexture(d->queue, &dst, data, (size_t)size, &layout, &ext);
  return UL_OK;
}

/* Copies a region of one level (in texels, whole blocks) into `dst`, rows
 * of blocks tightly packed, waiting up to `tmo`; nothing reaches dst
 * after a loss. */
static ul_status read_level(ul_device *d, ul__obj *o, uint32_t level, uint32_t x, uint32_t y, uint32_t z,
                            uint32_t w, uint32_t h, uint32_t depth, void *dst, uint64_t tmo) {
  const ul__wgpu *wg = d->wgpu;
  const ul__format_info *f = &o->u.tex.fmt;
  uint32_t tight = (w + f->bw - 1) / f->bw * f->block_bytes;
  uint32_t rows = block_rows(o, h);
  uint32_t bpr = (tight + 255) & ~255u; /* copies need rows aligned to 256 */
  uint64_t total = (uint64_t)bpr * rows * depth;
  WGPUBufferDescriptor bd = {0};
  bd.usage = WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst;
  bd.size = total;
  WGPUBuffer st = wg->DeviceCreateBuffer(d->device, &bd);
  if (!st) return ul__fail(UL_ERR_OUT_OF_MEMORY, "read texture: no staging buffer");
  WGPUTexelCopyTextureInfo src;
  texel_copy(o, level, x, y, z, &src);
  WGPUTexelCopyBufferInfo dstb = {{0, bpr, rows}, st};
  WGPUExtent3D ext = {w, h, depth};
  ul_status s = ul__copy_texture_submit(d, &src, &dstb, &ext);
  if (!s) s = ul__wait_map(d, st, WGPUMapMode_Read, 0, (size_t)total, tmo);
  /* A completion seen after the loss is not proof that the copy ran. */
  if (!s && ul__device_loss_pending(d)) s = ul__fail(UL_ERR_DEVICE_LOST, "read texture: device lost");
  if (!s) {
    const uint8_t *p = wg->BufferGetConstMappedRange(st, 0, (size_t)total);
    for (uint64_t row = 0; p && row < (uint64_t)rows * depth; row++)
      memcpy((uint8_t *)dst + row * tight, p + row * bpr, tight);
    if (!p) s = ul__fail(UL_ERR_INTERNAL, "read texture: mapped range unavailable");
  }
  wg->BufferDestroy(st); /* unmaps */
  wg->BufferRelease(st);
  return s;
}

ul_status ul__texture_download_all(ul_device *d, ul__obj *o, uint8_t *dst, uint64_t tmo) {
  ul_status s = UL_OK;
  for (uint32_t l = 0; l < o->u.tex.nd.mipLevelCount && !s; l++) {
    uint32_t w, h, depth, row_bytes, rows;
    level_blocks(o, l, &w, &h, &depth, &row_bytes, &rows);
    s = read_level(d, o, l, 0, 0, 0, w, h, depth, dst, tmo);
    dst += ul__texture_level_bytes(o, l);
  }
  return s;
}

ul_status ul__texture_restore(ul_device *d, ul__obj *o) {
  ul__texture_data *t = &o->u.tex;
  uint32_t w, h, depth, row_bytes, rows;
  if (t->shadow) {
    level_blocks(o, 0, &w, &h, &depth, &row_bytes, &rows);
    return write_level(d, o, 0, 0, 0, 0, w, h, depth, t->shadow, (uint64_t)row_bytes * rows * depth, row_bytes);
  }
  if (t->restore == UL_RESTORE_LOG && t->written && !t->fmt.copyable && !t->checkpoint) {
    char why[160];
    snprintf(why, sizeof why, "its format 0x%x cannot be copied to and from buffers, so no checkpoint holds it",
             (unsigned)t->nd.format);
    ul__obj_mark_lost(o, why);
    return UL_OK;
  }
  /* LOG: every level as at the last checkpoint; the replay does the rest. */
  const uint8_t *p = t->checkpoint;
  for (uint32_t l = 0; p && l < t->nd.mipLevelCount; l++) {
    level_blocks(o, l, &w, &h, &depth, &row_bytes, &rows);
    uint64_t n = ul__texture_level_bytes(o, l);
    write_level(d, o, l, 0, 0, 0, w, h, depth, p, n, row_bytes);
    p += n;
  }
  return UL_OK;
}

ul_status ul__texture_read_region(ul_device *d, ul__obj *o, uint32_t x, uint32_t y, uint32_t z, uint32_t w,
                                  uint32_t h, uint32_t depth, void *dst, uint64_t timeout_ns) {
  return read_level(d, o, 0, x, y, z, w, h, depth, dst, timeout_ns);
}
