/* The engine's creates of every kind but buffers, which both front doors
 * call: shaders, bind group layouts, pipeline layouts, compute pipelines,
 * bind groups, query sets, textures, views and samplers. Each takes the
 * native descriptor (handles as ids), copies it into a new object, makes
 * the native object with retries and tracks it, under d->mu. Their native
 * creation is src/res/descriptors.c and src/res/texture_restore.c. Then the writes of
 * a texture, and the destroy of an object by id. */
#include "engine/engine.h"
#include "exec/oplog.h"

/* A create that ran out of host memory copying its descriptor: the new
 * object goes, untracked. */
static ul_status no_memory(ul_device *d, ul__obj *o) {
  ul__obj_free(d, o);
  return ul__fail(UL_ERR_OUT_OF_MEMORY, "out of host memory");
}

ul_status ul__obj_finish(ul_device *d, ul__obj *o, uint32_t *out) {
  ul_status s;
  ul__retry rt = UL__RETRY_SCOPES;
  do {
    s = ul__obj_create_native(d, o);
  } while (ul__retry_again(d, &s, &rt));
  if (!s) s = ul__obj_track(d, o, 0, false);
  if (s) {
    ul__obj_release_native(d, o);
    ul__obj_free(d, o);
    return s;
  }
  o->pending = false;
  ul__obj_hold_parents(d, o);
  *out = o->id;
  return UL_OK;
}

ul_status ul__shader_create(ul_device *d, const char *wgsl, size_t len, const char *label, const ul_site *site,
                            uint32_t *out) {
  *out = 0;
  ul__obj *o;
  ul_status s = ul__obj_new(d, UL__OBJ_SHADER, label, site, &o);
  if (s) return s;
  o->pending = true;
  if (!(o->u.sh.wgsl = malloc(len + 1))) return no_memory(d, o);
  memcpy(o->u.sh.wgsl, wgsl, len);
  o->u.sh.wgsl[len] = 0;
  o->u.sh.wgsl_len = len;
  o->u.sh.writes = ul__wgsl_analyze(o->u.sh.wgsl, len);
  return ul__obj_finish(d, o, out);
}

ul_status ul__bgl_create(ul_device *d, uint32_t count, const WGPUBindGroupLayoutEntry *entries, const char *label,
                         const ul_site *site, uint32_t *out) {
  *out = 0;
  ul__obj *o;
  ul_status s = ul__obj_new(d, UL__OBJ_BGL, label, site, &o);
  if (s) return s;
  o->pending = true;
  if (count && !(o->u.bgl.entries = ul__memdup(entries, sizeof *entries * count))) return no_memory(d, o);
  for (uint32_t i = 0; i < count; i++) {
    o->u.bgl.entries[i].nextInChain = NULL;
    o->u.bgl.entries[i].buffer.nextInChain = NULL;
    o->u.bgl.entries[i].sampler.nextInChain = NULL;
    o->u.bgl.entries[i].texture.nextInChain = NULL;
    o->u.bgl.entries[i].storageTexture.nextInChain = NULL;
  }
  o->u.bgl.count = count;
  return ul__obj_finish(d, o, out);
}

ul_status ul__pipeline_bgl_create(ul_device *d, uint32_t pipeline, uint32_t group, const char *label,
                                  const ul_site *site, uint32_t *out) {
  *out = 0;
  ul__obj *p, *o;
  ul_status s = ul__obj_get(d, pipeline, UL__OBJ_PIPELINE, "bind group layout of a pipeline", &p);
  if (!s) s = ul__obj_new(d, UL__OBJ_PIPELINE_BGL, label, site, &o);
  if (s) return s;
  o->pending = true;
  o->u.pbgl.pipeline = pipeline;
  o->u.pbgl.group = group;
  return ul__obj_finish(d, o, out);
}

ul_status ul__playout_create(ul_device *d, uint32_t count, const uint32_t *groups, uint32_t immediate_size,
                             const char *label, const ul_site *site, uint32_t *out) {
  *out = 0;
  for (uint32_t i = 0; i < count; i++) {
    ul__obj *g;
    if (!groups[i]) continue;
    if (ul__obj_find(d, groups[i], UL__OBJ_PIPELINE_BGL))
      return ul__fail(UL_ERR_UNSUPPORTED,
                      "create pipeline layout: group %u is a layout obtained from a pipeline, which a rebuild "
                      "makes after the pipeline layouts; give an explicit bind group layout",
                      i);
    ul_status s = ul__obj_get(d, groups[i], UL__OBJ_BGL, "create pipeline layout", &g);
    if (s) return s;
  }
  ul__obj *o;
  ul_status s = ul__obj_new(d, UL__OBJ_PLAYOUT, label, site, &o);
  if (s) return s;
  o->pending = true;
  if (count && !(o->u.pl.groups = ul__memdup(groups, sizeof *groups * count))) return no_memory(d, o);
  o->u.pl.count = count;
  o->u.pl.immediate_size = immediate_size;
  return ul__obj_finish(d, o, out);
}

ul_status ul__pipeline_create(ul_device *d, uint32_t shader, uint32_t layout, const char *entry, size_t entry_len,
                              uint32_t constant_count, const WGPUConstantEntry *constants, const char *label,
                              const ul_site *site, uint32_t *out) {
  *out = 0;
  ul__obj *o;
  ul_status s = ul__obj_new(d, UL__OBJ_PIPELINE, label, site, &o);
  if (s) return s;
  o->pending = true;
  ul__pipeline_data *p = &o->u.pipe;
  p->shader = shader;
  p->layout = layout;
  bool oom = false;
  if (entry) {
    if ((p->entry = malloc(entry_len + 1))) {
      memcpy(p->entry, entry, entry_len);
      p->entry[entry_len] = 0;
      p->entry_len = entry_len;
    } else {
      oom = true;
    }
  }
  if (constant_count) {
    p->constant_keys = calloc(constant_count, sizeof *p->constant_keys);
    p->constant_values = calloc(constant_count, sizeof *p->constant_values);
    p->constant_key_lens = calloc(constant_count, sizeof *p->constant_key_lens);
    if (!p->constant_keys || !p->constant_values || !p->constant_key_lens) oom = true;
    for (uint32_t i = 0; !oom && i < constant_count; i++) {
      WGPUStringView k = constants[i].key;
      size_t n = !k.data ? 0 : k.length == WGPU_STRLEN ? strlen(k.data) : k.length;
      if (!(p->constant_keys[i] = malloc(n + 1))) {
        oom = true;
        break;
      }
      if (n) memcpy(p->constant_keys[i], k.data, n);
      p->constant_keys[i][n] = 0;
      p->constant_key_lens[i] = n;
      p->constant_values[i] = constants[i].value;
      p->constant_count = i + 1;
    }
  }
  if (oom) return no_memory(d, o);
  return ul__obj_finish(d, o, out);
}

ul_status ul__bind_group_create(ul_device *d, uint32_t layout, uint32_t pipeline, uint32_t group, uint32_t count,
                                const ul__bg_entry *entries, const char *label, const ul_site *site,
                                uint32_t *out) {
  *out = 0;
  ul__obj *o;
  ul_status s = ul__obj_new(d, UL__OBJ_BIND_GROUP, label, site, &o);
  if (s) return s;
  o->pending = true;
  ul__bind_group_data *bg = &o->u.bg;
  bg->layout = layout;
  bg->pipeline = pipeline;
  bg->group = group;
  if (count && !(bg->entries = malloc(sizeof *entries * count))) return no_memory(d, o);
  if (count) memcpy(bg->entries, entries, sizeof *entries * count);
  bg->count = count;
  return ul__obj_finish(d, o, out);
}

ul_status ul__query_set_create(ul_device *d, uint32_t type, uint32_t count, const char *label, const ul_site *site,
                               uint32_t *out) {
  *out = 0;
  ul__obj *o;
  ul_status s = ul__obj_new(d, UL__OBJ_QUERY_SET, label, site, &o);
  if (s) return s;
  o->pending = true;
  o->u.qs.type = type;
  o->u.qs.count = count;
  return ul__obj_finish(d, o, out);
}

ul_status ul__texture_create(ul_device *d, const WGPUTextureDescriptor *nd, ul_restore restore, const char *label,
                             const ul_site *site, uint32_t *out) {
  *out = 0;
  /* What would make the estimate below absurd, before anything is made. */
  if (!nd->usage) return ul__fail(UL_ERR_INVALID_ARGUMENT, "texture usage is None");
  if (!nd->size.width || !nd->size.height || !nd->size.depthOrArrayLayers || !nd->mipLevelCount ||
      nd->mipLevelCount > 32)
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "texture of %ux%ux%u with %u levels: a size of 0 or more than 32 levels",
                    nd->size.width, nd->size.height, nd->size.depthOrArrayLayers, nd->mipLevelCount);
  ul__format_info fmt;
  if (!ul__format_info_of(nd->format, &fmt))
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "texture format 0x%x is not one this implementation knows",
                    (unsigned)nd->format);
  if (restore == UL_RESTORE_SHADOW && (!fmt.copyable || fmt.bw != 1 || nd->mipLevelCount > 1))
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "a SHADOW texture needs one level of an uncompressed, copyable format");
  /* Estimate: blocks of all levels (a level halves each dimension). */
  uint64_t bytes = 0;
  uint32_t bw = fmt.bw ? fmt.bw : 1, bh = fmt.bh ? fmt.bh : 1;
  uint64_t per_block = fmt.block_bytes ? fmt.block_bytes : 4;
  uint64_t w = nd->size.width, h = nd->size.height ? nd->size.height : 1, dd = nd->size.depthOrArrayLayers;
  for (uint32_t l = 0; l < nd->mipLevelCount; l++) {
    bytes += (w + bw - 1) / bw * ((h + bh - 1) / bh) * dd * per_block * (nd->sampleCount > 1 ? nd->sampleCount : 1);
    w = UL__MAX(w / 2, 1);
    h = UL__MAX(h / 2, 1);
    if (nd->dimension == WGPUTextureDimension_3D) dd = UL__MAX(dd / 2, 1);
  }
  ul__obj *o = NULL;
  ul_status s = ul__obj_new(d, UL__OBJ_TEXTURE, label, site, &o);
  if (s) return s;
  o->pending = true;
  ul__texture_data *t = &o->u.tex;
  t->nd = *nd;
  t->nd.nextInChain = NULL;
  t->nd.label = (WGPUStringView){NULL, 0};
  t->nd.viewFormats = NULL;
  t->fmt = fmt;
  t->restore = restore;
  t->bytes = bytes;
  /* Restore needs both copies, when the format allows them at all. */
  if (fmt.copyable && nd->sampleCount <= 1) t->nd.usage |= WGPUTextureUsage_CopySrc | WGPUTextureUsage_CopyDst;
  if (nd->viewFormatCount) {
    uint32_t *vf = malloc(sizeof *vf * nd->viewFormatCount);
    if (!vf) return no_memory(d, o);
    memcpy(vf, nd->viewFormats, sizeof *vf * nd->viewFormatCount);
    t->nd.viewFormats = vf;
  }
  if (restore == UL_RESTORE_SHADOW) {
    uint64_t level0 = ul__texture_level_bytes(o, 0);
    if (level0 > d->limits.maxBufferSize) {
      ul__obj_free(d, o);
      return ul__fail(UL_ERR_INVALID_ARGUMENT, "a SHADOW texture of %llu bytes is larger than the device's "
                      "maxBufferSize %llu", (unsigned long long)level0, (unsigned long long)d->limits.maxBufferSize);
    }
    t->shadow = calloc(1, (size_t)level0);
    if (!t->shadow) {
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
  *out = o->id;
  return UL_OK;
}

/* Views of `t` die with it (WebGPU: a destroyed texture's views are invalid). */
static void destroy_views_of(ul_device *d, uint32_t texture_id) {
  ul__res *r = d->res;
  for (uint32_t i = 1; i < r->next_unused && i < r->cap; i++) {
    ul__obj *v = r->slots[i];
    if (v && v->kind == UL__OBJ_VIEW && !v->destroyed && v->u.view.texture == texture_id)
      ul__obj_destroy(d, v);
  }
}

void ul__texture_destroy(ul_device *d, ul__obj *t) {
  destroy_views_of(d, t->id);
  ul__obj_destroy(d, t);
}

ul_status ul__texture_write(ul_device *d, uint32_t id, const uint32_t region[UL__TR_WORDS], const void *data,
                           uint64_t size, const char *what) {
  ul__obj *o;
  ul_status s = ul__obj_get(d, id, UL__OBJ_TEXTURE, what, &o);
  if (s) return s;
  bool logged = o->u.tex.restore == UL_RESTORE_LOG;
  /* LOG: recorded first (room made first), so a loss from here on is
   * replayed; SHADOW: the host copy. */
  if (logged && ((s = ul__checkpoint_make_room(d, size)) || (s = ul__obj_get(d, id, UL__OBJ_TEXTURE, what, &o))))
    return s;
  /* A part written into contents still to come back: they come first. */
  if ((s = ul__obj_use(d, o))) return s;
  if (logged && (s = ul__oplog_write_texture(d, o, region, data, size))) return s;
  if (o->u.tex.shadow) {
    const WGPUExtent3D *sz = &o->u.tex.nd.size;
    uint32_t tb = o->u.tex.fmt.block_bytes, x = region[UL__TR_X], y = region[UL__TR_Y], z = region[UL__TR_Z];
    uint32_t w = region[UL__TR_W], h = region[UL__TR_H], bpr = region[UL__TR_BPR];
    for (uint32_t k = 0; k < region[UL__TR_DEPTH]; k++)
      for (uint32_t j = 0; j < h; j++)
        memcpy(o->u.tex.shadow + (((uint64_t)(z + k) * sz->height + y + j) * sz->width + x) * tb,
               (const uint8_t *)data + ((uint64_t)k * h + j) * bpr, (size_t)w * tb);
  }
  uint64_t errors = atomic_load(&d->uncaptured_errors);
  s = ul__texture_write_region(d, o, region, data, size);
  char why[512];
  if (!s && !ul__device_loss_pending(d) && ul__device_uncaptured_since(d, errors, why, sizeof why))
    s = ul__fail(UL_ERR_VALIDATION, "%s", why);
  /* The write is kept (log or shadow): recovery puts it back. */
  if (!s && ul__device_loss_pending(d)) s = ul__device_recover_locked(d);
  return s;
}

void ul__destroy_by_id(ul_device *d, uint32_t id, ul__obj_kind kind, bool with_views) {
  ul__device_lock(d);
  ul__obj *o = ul__obj_find(d, id, kind);
  if (o && !o->destroyed) {
    if (with_views) ul__texture_destroy(d, o);
    else ul__obj_destroy(d, o);
  }
  ul__device_unlock(d);
}

ul_status ul__view_create(ul_device *d, uint32_t texture, const WGPUTextureViewDescriptor *nd, const char *label,
                          const ul_site *site, uint32_t *out) {
  *out = 0;
  ul__obj *t, *o = NULL;
  ul_status s = ul__obj_get(d, texture, UL__OBJ_TEXTURE, "create texture view", &t);
  if (!s && !(s = ul__obj_new(d, UL__OBJ_VIEW, label, site, &o))) {
    o->pending = true;
    o->u.view.texture = texture;
    o->u.view.nd = *nd;
    o->u.view.nd.nextInChain = NULL;
    o->u.view.nd.label = (WGPUStringView){NULL, 0};
    s = ul__obj_finish(d, o, out);
  }
  return s;
}

ul_status ul__sampler_create(ul_device *d, const WGPUSamplerDescriptor *nd, const char *label, const ul_site *site,
                             uint32_t *out) {
  *out = 0;
  ul__obj *o = NULL;
  ul_status s = ul__obj_new(d, UL__OBJ_SAMPLER, label, site, &o);
  if (!s) {
    o->pending = true;
    o->u.smp.nd = *nd;
    o->u.smp.nd.nextInChain = NULL;
    o->u.smp.nd.label = (WGPUStringView){NULL, 0};
    s = ul__obj_finish(d, o, out);
  }
  return s;
}

ul_status ul__destroy_simple(ul_device *d, uint32_t id, ul__obj_kind kind, const char *what) {
  if (!d) return ul__fail(UL_ERR_INVALID_ARGUMENT, "%s: device is NULL", what);
  if (!id) return UL_OK;
  ul__device_lock(d);
  ul__obj *o;
  d->res->lookup_plain = true; /* nothing to make or put back for what goes */
  ul_status s = ul__obj_get(d, id, kind, what, &o);
  d->res->lookup_plain = false;
  if (!s) ul__obj_destroy(d, o);
  ul__device_unlock(d);
  return s;
}

uint32_t ul__engine_format(ul_format f) { return ul__format_wgpu(f); }
