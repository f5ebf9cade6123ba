/* Shaders, bind group layouts, pipeline layouts, compute pipelines, bind
 * groups and query sets: the engine's creates (ul__*_create, from native
 * descriptors with handles as ids, under d->mu), which both front doors
 * call, and unlost.h's public calls, which check their own rules,
 * translate their descriptors, enter and leave. Their native creation is
 * src/res/pipeline.c. */
#include "api/api.h"

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

/* ---- the engine's creates ---- */

ul_status ul__shader_create(ul_device *d, const char *wgsl, size_t len, const char *label, const ul_site *site,
                            uint32_t *out) {
  *out = 0;
  ul__obj *o;
  ul_status s = ul__obj_new(d, UL__OBJ_SHADER, label, site, &o);
  if (s) return s;
  o->pending = true;
  if (!(o->u.sh.wgsl = malloc(len + 1))) {
    ul__obj_free(d, o);
    return ul__fail(UL_ERR_OUT_OF_MEMORY, "out of host memory");
  }
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
  if (count && !(o->u.bgl.entries = malloc(sizeof *entries * count))) {
    ul__obj_free(d, o);
    return ul__fail(UL_ERR_OUT_OF_MEMORY, "out of host memory");
  }
  for (uint32_t i = 0; i < count; i++) {
    o->u.bgl.entries[i] = entries[i];
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
  if (count && !(o->u.pl.groups = malloc(sizeof *groups * count))) {
    ul__obj_free(d, o);
    return ul__fail(UL_ERR_OUT_OF_MEMORY, "out of host memory");
  }
  if (count) memcpy(o->u.pl.groups, groups, sizeof *groups * count);
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
  if (oom) {
    ul__obj_free(d, o);
    return ul__fail(UL_ERR_OUT_OF_MEMORY, "out of host memory");
  }
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
  if (count && !(bg->entries = malloc(sizeof *entries * count))) {
    ul__obj_free(d, o);
    return ul__fail(UL_ERR_OUT_OF_MEMORY, "out of host memory");
  }
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

/* ---- unlost.h ---- */

ul_status ul_shader_create_at(ul_device *d, const ul_shader_desc *desc, ul_shader *out,
                              const ul_site *site) {
  if (out) out->id = 0;
  if (!d || !desc || !out) return ul__fail(UL_ERR_INVALID_ARGUMENT, "create shader: NULL argument");
  if (!desc->wgsl) return ul__fail(UL_ERR_INVALID_ARGUMENT, "create shader '%s': wgsl is NULL",
                                   desc->label ? desc->label : "");
  ul_status s = ul__device_enter(d);
  if (s) return ul__wrap(s, "create shader");
  uint32_t id;
  s = ul__shader_create(d, desc->wgsl, strlen(desc->wgsl), desc->label, site, &id);
  if (!s) out->id = id;
  /* A validation error on a shader module is a compile error. */
  if (s == UL_ERR_VALIDATION) {
    char msg[2048];
    snprintf(msg, sizeof msg, "%s", ul_last_error());
    s = ul__fail(UL_ERR_SHADER_COMPILE, "%s", msg);
  }
  ul__device_unlock(d);
  return s;
}

ul_status ul_shader_destroy(ul_device *d, ul_shader x) {
  return ul__destroy_simple(d, x.id, UL__OBJ_SHADER, "destroy shader");
}

ul_status ul_bind_group_layout_create_at(ul_device *d, const ul_bind_group_layout_desc *desc,
                                         ul_bind_group_layout *out, const ul_site *site) {
  if (out) out->id = 0;
  if (!d || !desc || !out) return ul__fail(UL_ERR_INVALID_ARGUMENT, "create bind group layout: NULL argument");
  if (desc->entry_count > UL_MAX_BINDINGS)
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "create bind group layout: %u entries (at most %d)",
                    desc->entry_count, UL_MAX_BINDINGS);
  WGPUBindGroupLayoutEntry e[UL_MAX_BINDINGS];
  memset(e, 0, sizeof e);
  for (uint32_t i = 0; i < desc->entry_count; i++) {
    const ul_layout_entry *x = &desc->entries[i];
    if ((unsigned)x->type > UL_BINDING_STORAGE_TEXTURE)
      return ul__fail(UL_ERR_INVALID_ARGUMENT, "create bind group layout: entry %u has type %d", i, (int)x->type);
    if ((unsigned)x->format >= UL_FORMAT_COUNT_)
      return ul__fail(UL_ERR_INVALID_ARGUMENT, "create bind group layout: entry %u has format %d", i,
                      (int)x->format);
    e[i].binding = x->binding;
    e[i].visibility = WGPUShaderStage_Compute;
    switch (x->type) {
    case UL_BINDING_STORAGE: e[i].buffer.type = WGPUBufferBindingType_Storage; break;
    case UL_BINDING_READ_ONLY_STORAGE: e[i].buffer.type = WGPUBufferBindingType_ReadOnlyStorage; break;
    case UL_BINDING_UNIFORM: e[i].buffer.type = WGPUBufferBindingType_Uniform; break;
    case UL_BINDING_SAMPLER: e[i].sampler.type = WGPUSamplerBindingType_NonFiltering; break;
    case UL_BINDING_TEXTURE:
      e[i].texture.sampleType = WGPUTextureSampleType_UnfilterableFloat;
      e[i].texture.viewDimension = WGPUTextureViewDimension_2D;
      break;
    case UL_BINDING_STORAGE_TEXTURE:
      e[i].storageTexture.access = WGPUStorageTextureAccess_WriteOnly;
      e[i].storageTexture.format = ul__format_wgpu(x->format);
      e[i].storageTexture.viewDimension = WGPUTextureViewDimension_2D;
      break;
    }
  }
  ul_status s = ul__device_enter(d);
  if (s) return ul__wrap(s, "create bind group layout");
  uint32_t id;
  s = ul__bgl_create(d, desc->entry_count, e, desc->label, site, &id);
  if (!s) out->id = id;
  ul__device_unlock(d);
  return s;
}

ul_status ul_bind_group_layout_destroy(ul_device *d, ul_bind_group_layout x) {
  return ul__destroy_simple(d, x.id, UL__OBJ_BGL, "destroy bind group layout");
}

ul_status ul_pipeline_layout_create_at(ul_device *d, const ul_pipeline_layout_desc *desc,
                                       ul_pipeline_layout *out, const ul_site *site) {
  if (out) out->id = 0;
  if (!d || !desc || !out) return ul__fail(UL_ERR_INVALID_ARGUMENT, "create pipeline layout: NULL argument");
  if (desc->group_count > UL_MAX_BIND_GROUPS)
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "create pipeline layout: %u groups (at most %d)",
                    desc->group_count, UL_MAX_BIND_GROUPS);
  uint32_t groups[UL_MAX_BIND_GROUPS];
  for (uint32_t i = 0; i < desc->group_count; i++) groups[i] = desc->groups[i].id;
  ul_status s = ul__device_enter(d);
  if (s) return ul__wrap(s, "create pipeline layout");
  /* unlost.h has no empty slots: each group names a layout. */
  ul__obj *g;
  for (uint32_t i = 0; i < desc->group_count && !s; i++)
    s = ul__obj_get(d, groups[i], UL__OBJ_BGL, "create pipeline layout", &g);
  uint32_t id;
  if (!s) s = ul__playout_create(d, desc->group_count, groups, 0, desc->label, site, &id);
  if (!s) out->id = id;
  ul__device_unlock(d);
  return s;
}

ul_status ul_pipeline_layout_destroy(ul_device *d, ul_pipeline_layout x) {
  return ul__destroy_simple(d, x.id, UL__OBJ_PLAYOUT, "destroy pipeline layout");
}

ul_status ul_compute_pipeline_create_at(ul_device *d, const ul_compute_pipeline_desc *desc,
                                        ul_compute_pipeline *out, const ul_site *site) {
  if (out) out->id = 0;
  if (!d || !desc || !out) return ul__fail(UL_ERR_INVALID_ARGUMENT, "create compute pipeline: NULL argument");
  if (desc->constant_count > UL_MAX_CONSTANTS)
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "create compute pipeline: %u constants (at most %d)",
                    desc->constant_count, UL_MAX_CONSTANTS);
  WGPUConstantEntry c[UL_MAX_CONSTANTS];
  memset(c, 0, sizeof c);
  for (uint32_t i = 0; i < desc->constant_count; i++) {
    if (!desc->constants[i].name)
      return ul__fail(UL_ERR_INVALID_ARGUMENT, "create compute pipeline: constant %u has no name", i);
    c[i].key = ul__sv(desc->constants[i].name);
    c[i].value = desc->constants[i].value;
  }
  ul_status s = ul__device_enter(d);
  if (s) return ul__wrap(s, "create compute pipeline");
  ul__obj *x;
  if (!(s = ul__obj_get(d, desc->shader.id, UL__OBJ_SHADER, "compute pipeline", &x)) && desc->layout.id)
    s = ul__obj_get(d, desc->layout.id, UL__OBJ_PLAYOUT, "compute pipeline", &x);
  const char *entry = desc->entry ? desc->entry : "main";
  uint32_t id;
  if (!s)
    s = ul__pipeline_create(d, desc->shader.id, desc->layout.id, entry, strlen(entry), desc->constant_count, c,
                            desc->label, site, &id);
  if (!s) out->id = id;
  ul__device_unlock(d);
  return s;
}

ul_status ul_compute_pipeline_destroy(ul_device *d, ul_compute_pipeline x) {
  return ul__destroy_simple(d, x.id, UL__OBJ_PIPELINE, "destroy compute pipeline");
}

ul_status ul_bind_group_create_at(ul_device *d, const ul_bind_group_desc *desc, ul_bind_group *out,
                                  const ul_site *site) {
  if (out) out->id = 0;
  if (!d || !desc || !out) return ul__fail(UL_ERR_INVALID_ARGUMENT, "create bind group: NULL argument");
  if (desc->entry_count > UL_MAX_BINDINGS)
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "create bind group: %u entries (at most %d)",
                    desc->entry_count, UL_MAX_BINDINGS);
  if (!desc->layout.id && !desc->pipeline.id)
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "create bind group: neither layout nor pipeline given");
  ul__bg_entry e[UL_MAX_BINDINGS];
  for (uint32_t i = 0; i < desc->entry_count; i++) {
    const ul_bind_entry *x = &desc->entries[i];
    int n = !!x->buffer.id + !!x->view.id + !!x->sampler.id;
    if (n != 1)
      return ul__fail(UL_ERR_INVALID_ARGUMENT,
                      "create bind group: entry %u names %d resources (exactly one of buffer, view, sampler)",
                      i, n);
    e[i] = (ul__bg_entry){x->binding, x->buffer.id, x->view.id, x->sampler.id, x->offset,
                          x->size ? x->size : WGPU_WHOLE_SIZE};
  }
  ul_status s = ul__device_enter(d);
  if (s) return ul__wrap(s, "create bind group");
  /* Every handle is checked where the program gave it (only checked: the
   * create below makes what is not made yet, losses recovered from). */
  ul__obj *x;
  d->res->lookup_plain = true;
  if (desc->layout.id) s = ul__obj_get(d, desc->layout.id, UL__OBJ_BGL, "create bind group", &x);
  else s = ul__obj_get(d, desc->pipeline.id, UL__OBJ_PIPELINE, "create bind group", &x);
  for (uint32_t i = 0; i < desc->entry_count && !s; i++) {
    if (e[i].buffer) s = ul__obj_get(d, e[i].buffer, UL__OBJ_BUFFER, "create bind group", &x);
    else if (e[i].view) s = ul__obj_get(d, e[i].view, UL__OBJ_VIEW, "create bind group", &x);
    else s = ul__obj_get(d, e[i].sampler, UL__OBJ_SAMPLER, "create bind group", &x);
  }
  d->res->lookup_plain = false;
  uint32_t id;
  if (!s)
    s = ul__bind_group_create(d, desc->layout.id, desc->layout.id ? 0 : desc->pipeline.id, desc->group,
                              desc->entry_count, e, desc->label, site, &id);
  if (!s) out->id = id;
  ul__device_unlock(d);
  return s;
}

ul_status ul_bind_group_destroy(ul_device *d, ul_bind_group x) {
  return ul__destroy_simple(d, x.id, UL__OBJ_BIND_GROUP, "destroy bind group");
}
