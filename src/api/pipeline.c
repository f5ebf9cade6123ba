/* unlost.h's shaders, bind group layouts, pipeline layouts, compute
 * pipelines and bind groups: each call checks its own rules, translates
 * its descriptor, enters, calls the engine's create (src/engine/objects.c)
 * and leaves. */
#include "engine/engine.h"

ul_status ul_shader_create_at(ul_device *d, const ul_shader_desc *desc, ul_shader *out,
                              const ul_site *site) {
  if (out) out->id = 0;
  if (!d || !desc || !out) return ul__fail(UL_ERR_INVALID_ARGUMENT, "create shader: NULL argument");
  if (!desc->wgsl) return ul__fail(UL_ERR_INVALID_ARGUMENT, "create shader '%s': wgsl is NULL",
                                   desc->label ? desc->label : "");
  ul_status s = ul__engine_enter(d);
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
  ul__engine_unlock(d);
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
      e[i].storageTexture.format = ul__engine_format(x->format);
      e[i].storageTexture.viewDimension = WGPUTextureViewDimension_2D;
      break;
    }
  }
  ul_status s = ul__engine_enter(d);
  if (s) return ul__wrap(s, "create bind group layout");
  uint32_t id;
  s = ul__bgl_create(d, desc->entry_count, e, desc->label, site, &id);
  if (!s) out->id = id;
  ul__engine_unlock(d);
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
  ul_status s = ul__engine_enter(d);
  if (s) return ul__wrap(s, "create pipeline layout");
  /* unlost.h has no empty slots: each group names a layout. */
  ul__obj *g;
  for (uint32_t i = 0; i < desc->group_count && !s; i++)
    s = ul__obj_get(d, groups[i], UL__OBJ_BGL, "create pipeline layout", &g);
  uint32_t id;
  if (!s) s = ul__playout_create(d, desc->group_count, groups, 0, desc->label, site, &id);
  if (!s) out->id = id;
  ul__engine_unlock(d);
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
  ul_status s = ul__engine_enter(d);
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
  ul__engine_unlock(d);
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
  ul_status s = ul__engine_enter(d);
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
  ul__engine_unlock(d);
  return s;
}

ul_status ul_bind_group_destroy(ul_device *d, ul_bind_group x) {
  return ul__destroy_simple(d, x.id, UL__OBJ_BIND_GROUP, "destroy bind group");
}
