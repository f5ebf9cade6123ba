/* Shaders, bind group layouts, pipeline layouts, compute pipelines and bind
 * groups: objects that hold no contents, only references. */
#include "res/obj.h"


ul_status ul__shader_create_native(ul_device *d, ul__obj *o) {
  WGPUShaderSourceWGSL src = {{NULL, WGPUSType_ShaderSourceWGSL}, ul__sv(o->u.sh.wgsl)};
  WGPUShaderModuleDescriptor sd = {(WGPUChainedStruct *)&src, ul__sv(o->label)};
  o->native = d->wgpu->DeviceCreateShaderModule(d->device, &sd);
  return UL_OK;
}

ul_status ul__bgl_create_native(ul_device *d, ul__obj *o) {
  const ul_bind_group_layout_desc *bd = &o->u.bgl.desc;
  WGPUBindGroupLayoutEntry e[UL_MAX_BINDINGS];
  memset(e, 0, sizeof e);
  for (uint32_t i = 0; i < bd->entry_count; i++) {
    const ul_layout_entry *x = &bd->entries[i];
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
  WGPUBindGroupLayoutDescriptor ld = {NULL, ul__sv(o->label), bd->entry_count, e};
  o->native = d->wgpu->DeviceCreateBindGroupLayout(d->device, &ld);
  return UL_OK;
}

ul_status ul__playout_create_native(ul_device *d, ul__obj *o) {
  const ul_pipeline_layout_desc *pd = &o->u.pl.desc;
  WGPUBindGroupLayout ls[UL_MAX_BIND_GROUPS];
  for (uint32_t i = 0; i < pd->group_count; i++) {
    ul__obj *g;
    ul_status s = ul__obj_get(d, pd->groups[i].id, UL__OBJ_BGL, "pipeline layout", &g);
    if (s) return s;
    ls[i] = g->native;
  }
  WGPUPipelineLayoutDescriptor ld = {NULL, ul__sv(o->label), pd->group_count, ls, 0};
  o->native = d->wgpu->DeviceCreatePipelineLayout(d->device, &ld);
  return UL_OK;
}

ul_status ul__pipeline_create_native(ul_device *d, ul__obj *o) {
  ul__pipeline_data *p = &o->u.pipe;
  ul__obj *sh, *lay = NULL;
  ul_status s = ul__obj_get(d, p->desc.shader.id, UL__OBJ_SHADER, "compute pipeline", &sh);
  if (s) return s;
  if (p->desc.layout.id &&
      (s = ul__obj_get(d, p->desc.layout.id, UL__OBJ_PLAYOUT, "compute pipeline", &lay)))
    return s;
  WGPUConstantEntry c[UL_MAX_CONSTANTS];
  memset(c, 0, sizeof c);
  for (uint32_t i = 0; i < p->desc.constant_count; i++) {
    c[i].key = ul__sv(p->constant_names[i]);
    c[i].value = p->desc.constants[i].value;
  }
  WGPUComputePipelineDescriptor cd = {0};
  cd.label = ul__sv(o->label);
  cd.layout = lay ? lay->native : NULL;
  cd.compute.module = sh->native;
  cd.compute.entryPoint = ul__sv(p->entry);
  cd.compute.constantCount = p->desc.constant_count;
  cd.compute.constants = c;
  o->native = d->wgpu->DeviceCreateComputePipeline(d->device, &cd);
  return UL_OK;
}

/* The native layout a bind group is made against. *release is set when the
 * caller must release it (a pipeline's derived layout). */
static ul_status bind_group_layout_of(ul_device *d, const ul_bind_group_desc *bd,
                                      WGPUBindGroupLayout *out, bool *release) {
  *release = false;
  ul__obj *x;
  ul_status s;
  if (bd->layout.id) {
    if ((s = ul__obj_get(d, bd->layout.id, UL__OBJ_BGL, "bind group layout", &x))) return s;
    *out = x->native;
    return UL_OK;
  }
  if ((s = ul__obj_get(d, bd->pipeline.id, UL__OBJ_PIPELINE, "bind group pipeline", &x))) return s;
  *out = d->wgpu->ComputePipelineGetBindGroupLayout(x->native, bd->group);
  *release = true;
  return *out ? UL_OK : ul__fail(UL_ERR_VALIDATION, "pipeline has no bind group %u", bd->group);
}

ul_status ul__bind_group_create_native(ul_device *d, ul__obj *o) {
  const ul_bind_group_desc *bd = &o->u.bg.desc;
  WGPUBindGroupEntry e[UL_MAX_BINDINGS];
  memset(e, 0, sizeof e);
  ul_status s;
  for (uint32_t i = 0; i < bd->entry_count; i++) {
    const ul_bind_entry *x = &bd->entries[i];
    ul__obj *r;
    e[i].binding = x->binding;
    if (x->buffer.id) {
      if ((s = ul__obj_get(d, x->buffer.id, UL__OBJ_BUFFER, "bind group entry", &r))) return s;
      e[i].buffer = r->native;
      e[i].offset = x->offset;
      e[i].size = x->size ? x->size : WGPU_WHOLE_SIZE;
    } else if (x->view.id) {
      if ((s = ul__obj_get(d, x->view.id, UL__OBJ_VIEW, "bind group entry", &r))) return s;
      e[i].textureView = r->native;
    } else if (x->sampler.id) {
      if ((s = ul__obj_get(d, x->sampler.id, UL__OBJ_SAMPLER, "bind group entry", &r))) return s;
      e[i].sampler = r->native;
    }
  }
  WGPUBindGroupLayout layout;
  bool release;
  if ((s = bind_group_layout_of(d, bd, &layout, &release))) return s;
  WGPUBindGroupDescriptor gd = {NULL, ul__sv(o->label), layout, bd->entry_count, e};
  o->native = d->wgpu->DeviceCreateBindGroup(d->device, &gd);
  if (release) d->wgpu->BindGroupLayoutRelease(layout);
  return UL_OK;
}

void ul__obj_free_data(ul__obj *o) {
  switch (o->kind) {
  case UL__OBJ_SHADER: free(o->u.sh.wgsl); break;
  case UL__OBJ_PIPELINE:
    free(o->u.pipe.entry);
    for (int i = 0; i < UL_MAX_CONSTANTS; i++) free(o->u.pipe.constant_names[i]);
    break;
  case UL__OBJ_BUFFER:
    free(o->u.buf.source_path);
    free(o->u.buf.shadow);
    free(o->u.buf.checkpoint);
    break;
  case UL__OBJ_TEXTURE:
    free(o->u.tex.shadow);
    free(o->u.tex.checkpoint);
    break;
  default: break;
  }
}
