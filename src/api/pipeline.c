/* The public calls of shaders, bind group layouts, pipeline layouts,
 * compute pipelines and bind groups: check, enter, copy the descriptor into
 * the registry, create with retries (ul__obj_finish), leave. Their native
 * creation is src/res/pipeline.c. */
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

ul_status ul_shader_create_at(ul_device *d, const ul_shader_desc *desc, ul_shader *out,
                              const ul_site *site) {
  if (out) out->id = 0;
  if (!d || !desc || !out) return ul__fail(UL_ERR_INVALID_ARGUMENT, "create shader: NULL argument");
  if (!desc->wgsl) return ul__fail(UL_ERR_INVALID_ARGUMENT, "create shader '%s': wgsl is NULL",
                                   desc->label ? desc->label : "");
  ul_status s = ul__device_enter(d);
  if (s) return ul__wrap(s, "create shader");
  ul__obj *o;
  if (!(s = ul__obj_new(d, UL__OBJ_SHADER, desc->label, site, &o))) {
    o->pending = true;
    o->u.sh.wgsl = ul__strdup(desc->wgsl);
    if (!o->u.sh.wgsl) {
      ul__obj_free(d, o);
      s = ul__fail(UL_ERR_OUT_OF_MEMORY, "out of host memory");
    } else {
      s = ul__obj_finish(d, o, &out->id);
      /* A validation error on a shader module is a compile error. */
      if (s == UL_ERR_VALIDATION) {
        char msg[2048];
        snprintf(msg, sizeof msg, "%s", ul_last_error());
        s = ul__fail(UL_ERR_SHADER_COMPILE, "%s", msg);
      }
    }
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
  for (uint32_t i = 0; i < desc->entry_count; i++) {
    if ((unsigned)desc->entries[i].type > UL_BINDING_STORAGE_TEXTURE)
      return ul__fail(UL_ERR_INVALID_ARGUMENT, "create bind group layout: entry %u has type %d", i,
                      (int)desc->entries[i].type);
    if ((unsigned)desc->entries[i].format >= UL_FORMAT_COUNT_)
      return ul__fail(UL_ERR_INVALID_ARGUMENT, "create bind group layout: entry %u has format %d", i,
                      (int)desc->entries[i].format);
  }
  ul_status s = ul__device_enter(d);
  if (s) return ul__wrap(s, "create bind group layout");
  ul__obj *o;
  if (!(s = ul__obj_new(d, UL__OBJ_BGL, desc->label, site, &o))) {
    o->pending = true;
    o->u.bgl.desc = *desc;
    o->u.bgl.desc.label = NULL;
    s = ul__obj_finish(d, o, &out->id);
  }
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
  ul_status s = ul__device_enter(d);
  if (s) return ul__wrap(s, "create pipeline layout");
  ul__obj *o;
  if (!(s = ul__obj_new(d, UL__OBJ_PLAYOUT, desc->label, site, &o))) {
    o->pending = true;
    o->u.pl.desc = *desc;
    o->u.pl.desc.label = NULL;
    s = ul__obj_finish(d, o, &out->id);
  }
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
  for (uint32_t i = 0; i < desc->constant_count; i++)
    if (!desc->constants[i].name)
      return ul__fail(UL_ERR_INVALID_ARGUMENT, "create compute pipeline: constant %u has no name", i);
  ul_status s = ul__device_enter(d);
  if (s) return ul__wrap(s, "create compute pipeline");
  ul__obj *o;
  if (!(s = ul__obj_new(d, UL__OBJ_PIPELINE, desc->label, site, &o))) {
    o->pending = true;
    ul__pipeline_data *p = &o->u.pipe;
    p->desc = *desc;
    p->desc.label = NULL;
    p->entry = ul__strdup(desc->entry ? desc->entry : "main");
    bool oom = !p->entry;
    for (uint32_t i = 0; i < desc->constant_count; i++)
      if (!(p->constant_names[i] = ul__strdup(desc->constants[i].name))) oom = true;
    if (oom) {
      ul__obj_free(d, o);
      s = ul__fail(UL_ERR_OUT_OF_MEMORY, "out of host memory");
    } else {
      s = ul__obj_finish(d, o, &out->id);
    }
  }
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
  for (uint32_t i = 0; i < desc->entry_count; i++) {
    const ul_bind_entry *e = &desc->entries[i];
    int n = !!e->buffer.id + !!e->view.id + !!e->sampler.id;
    if (n != 1)
      return ul__fail(UL_ERR_INVALID_ARGUMENT,
                      "create bind group: entry %u names %d resources (exactly one of buffer, view, sampler)",
                      i, n);
  }
  ul_status s = ul__device_enter(d);
  if (s) return ul__wrap(s, "create bind group");
  ul__obj *o;
  if (!(s = ul__obj_new(d, UL__OBJ_BIND_GROUP, desc->label, site, &o))) {
    o->pending = true;
    o->u.bg.desc = *desc;
    o->u.bg.desc.label = NULL;
    s = ul__obj_finish(d, o, &out->id);
  }
  ul__device_unlock(d);
  return s;
}

ul_status ul_bind_group_destroy(ul_device *d, ul_bind_group x) {
  return ul__destroy_simple(d, x.id, UL__OBJ_BIND_GROUP, "destroy bind group");
}

